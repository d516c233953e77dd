/*
 * costcluster.h - the cluster simulation a build option's utilisation came
 * from (costs.finance.utilization_from; costcluster.c), kept with the cost
 * result so that the report draws it without simulating again.
 *
 * Ownership: a pp_cost_result owns its pp_cost_cluster (NULL when the
 * utilisation is a constant); pp_cost_result_release() frees it.
 */
#ifndef PP_COSTCLUSTER_H
#define PP_COSTCLUSTER_H

#include "cluster/cjobs.h"
#include "cluster/csim.h"
#include "cluster/cspec.h"

typedef struct pp_cost_cluster {
	char spec_path[512], jobs_path[512]; /* as the scenario resolved them */
	pp_cspec spec;
	pp_cjobs jobs;
	pp_csim_result r;            /* with r.jobs (per job) */
} pp_cost_cluster;

void pp_cost_cluster_free(pp_cost_cluster *c);

#endif
