/*
 * collective.h - NCCL-like collective and send/recv costs.
 *
 * Sizes follow nccl-tests: all_reduce and broadcast take the buffer size;
 * all_gather the total output; reduce_scatter the total input; alltoall the
 * total per-rank buffer. Time = launch + latency(algorithm) + bytes x
 * factor / busbw, with nccl-tests' busbw factors (all_reduce 2(n-1)/n,
 * all_gather/reduce_scatter/alltoall (n-1)/n, broadcast and sendrecv 1).
 *
 * Hierarchy: a group of n ranks with `per_node` members in each NVLink
 * domain (pp_cluster_domain_gpus: an 8-GPU node, or the 72 GPUs of an
 * NVL72 rack's 18 trays; a PCIe node) runs at the NVLink/PCIe busbw inside
 * a domain and, across domains, at the share of the domain's NICs its
 * members own, nics_per_node / gpus_per_node per member (all groups of a
 * kind run at once, e.g.
 * the 8 data-parallel groups of a TP=8 layout each own 1 of 8 rails), over
 * the oversubscription. Ring and (for all_reduce across nodes) double
 * binary tree are both costed and the faster taken, as NCCL's tuner does.
 * An all-to-all across nodes sends each peer its share: the peers in the
 * node over NVLink/PCIe and the rest through the GPU's own NIC, which NCCL's
 * all-to-all cannot spread over several (nccl-tests#267), the slower of the
 * two setting the time. A calibration fit for (op, scope, n) replaces the
 * model when present.
 */
#ifndef PP_COLLECTIVE_H
#define PP_COLLECTIVE_H

#include "input/hw.h"

typedef struct pp_group {
	int n;          /* ranks */
	int per_node;   /* members of the group inside one NVLink domain (1..n) */
} pp_group;

/* The group of n ranks at stride `stride` in the global rank order, on
 * NVLink domains of `domain` GPUs: min(n, domain / stride) members per
 * domain (1 when the stride spans a domain). */
pp_group pp_group_place(int n, int stride, int domain);

/* nccl-tests' bus-bandwidth factor for op over n ranks. */
double pp_coll_busbw_factor(pp_coll op, int n);

/* Seconds for one collective; 0 for n <= 1 or bytes <= 0. */
double pp_coll_time(const pp_hw *hw, pp_coll op, double bytes, pp_group g);

/* The calibration fit pp_coll_time() uses for op over g at bytes, and in
 * *piece the piece of it that covers bytes; NULL (*piece -1) when none
 * applies and the catalog's model serves it. The one place the choice is
 * made: pp_coll_time() and the reports of which model served what
 * (collmodel.h) both ask here. */
const pp_coll_fit *pp_coll_fit_used(const pp_hw *hw, pp_coll op, double bytes, pp_group g,
				    int *piece);
/* The same for pp_p2p_time(): a send/recv fit over 2 ranks of the scope. */
const pp_coll_fit *pp_p2p_fit_used(const pp_hw *hw, double bytes, bool same_node, int *piece);

/* Seconds for an all_reduce over g with NCCL's NVLS (NVLink SHARP: the
 * NVSwitch reduces and multicasts), inside one NVLink domain; 0 where the
 * fabric has no NVLS, the scenario turns it off (cluster.nccl_nvls_enable,
 * NCCL_NVLS_ENABLE=0) or g spans domains (NVLS across nodes needs CollNet,
 * which NCCL enables only with NCCL_COLLNET_ENABLE and a SHARP plugin; not
 * modelled). pp_coll_time() takes it where it is faster than the ring, as
 * NCCL's tuner does; all_gather and reduce_scatter stay on the ring, whose
 * bandwidth NCCL's NVLS model for them does not beat inside a node. */
double pp_coll_nvls_time(const pp_hw *hw, double bytes, pp_group g);

/* The algorithm pp_coll_time() takes for op over g at bytes: "ring",
 * "ring/tree", "nvls", "nvls (measured curve)", "calibration" or "none";
 * a static string. */
const char *pp_coll_algorithm(const pp_hw *hw, pp_coll op, double bytes, pp_group g);

/* The busbw the model uses for a group (bytes/s), for reports. */
double pp_coll_busbw(const pp_hw *hw, pp_group g);

/* Seconds to send bytes from one GPU to another, same node or not. */
double pp_p2p_time(const pp_hw *hw, double bytes, bool same_node);

#endif
