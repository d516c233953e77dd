/*
 * topology.h - a cluster's shape: nodes and NVLink domains. A node is the
 * box with its CPUs, NICs and local disks (cluster.gpus_per_node); an NVLink
 * domain the GPUs one set of NVLink switches joins (cluster.
 * nvlink_domain_size): an 8-GPU HGX board, or the 72 GPUs of a GB200/GB300
 * NVL72 rack's 18 compute trays. Placement and collectives work per domain
 * (engine/collective.h); NICs, servers and storage per node.
 */
#ifndef PP_TOPOLOGY_H
#define PP_TOPOLOGY_H

#include <stddef.h>

typedef struct pp_cluster pp_cluster; /* input/scenario.h */

/* GPUs one scale-up domain joins over the intra fabric: the cluster's
 * nvlink_domain_size when given; else, on NVLink and a rack-scale SKU, the
 * largest part of its domain (72 on GB200 NVL72) that is whole nodes of
 * this size and tiles num_gpus (64 for 256 GPUs); else one node. Inside a
 * domain collectives run on the intra fabric, between domains on the NICs
 * of its nodes. */
int pp_cluster_domain_gpus(const pp_cluster *c);
/* The number of domains (1 when the cluster fits in one). */
int pp_cluster_domains(const pp_cluster *c);
/* ", NVLink domains of D GPUs (K domains)" where a domain spans several
 * nodes, else "": for the cluster lines of check, predict, search, report. */
const char *pp_cluster_domain_text(const pp_cluster *c, char *buf, size_t n);

#endif
