/* topology.c - see topology.h. */
#include "input/topology.h"
#include "input/scenario.h"

#include <stdio.h>

int pp_cluster_domain_gpus(const pp_cluster *c)
{
	int node = c->gpus_per_node;
	if (c->nvlink_domain_size > 0)
		return c->nvlink_domain_size;
	if (!c->gpu || !c->intra || c->intra->kind != PP_FAB_NVLINK)
		return node;
	/* only a rack-scale SKU's switches reach past its node: an 8-GPU HGX
	 * board cut into nodes of 4 is two domains of 4 */
	int rack = c->gpu->nvlink_domain_size;
	if (rack <= c->gpu->gpus_per_node || rack <= node || rack % node)
		return node;
	/* the largest whole-node part of a rack that tiles the cluster: a
	 * job of 256 GB200 GPUs runs in domains of 64, as NVIDIA's do */
	for (int d = rack; d > node; d -= node)
		if (c->num_gpus <= d || c->num_gpus % d == 0)
			return d;
	return node;
}

int pp_cluster_domains(const pp_cluster *c)
{
	int d = pp_cluster_domain_gpus(c);
	return c->num_gpus <= d ? 1 : (c->num_gpus + d - 1) / d;
}

const char *pp_cluster_domain_text(const pp_cluster *c, char *buf, size_t n)
{
	int d = pp_cluster_domain_gpus(c);
	if (d == c->gpus_per_node)
		snprintf(buf, n, "%s", "");
	else
		snprintf(buf, n, ", NVLink domains of %d GPUs (%d domain%s)", d,
			 pp_cluster_domains(c), pp_cluster_domains(c) == 1 ? "" : "s");
	return buf;
}
