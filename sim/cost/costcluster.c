/*
 * costcluster.c - the utilisation a build option is priced at, from a
 * cluster simulation instead of a typed-in constant (costs.finance.
 * utilization_from; sim/cluster/csim.h): the job stream replayed on the
 * cluster spec, and the share of the available GPU-hours it kept
 * allocated (the simulation's scheduling goodput) is the fleet
 * utilisation, and a capacity work's busy share when it gives none. The
 * result says which in utilization_from and in its sources.
 */
#include "cost/costcluster.h"
#include "calib/hwres.h"
#include "cluster/cscen.h"
#include "cost/costdata.h"
#include "core/fmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pp_cost_cluster_free(pp_cost_cluster *c)
{
	if (!c)
		return;
	pp_csim_result_release(&c->r);
	pp_cjobs_release(&c->jobs);
	pp_cspec_release(&c->spec);
	free(c);
}

int cost_cluster_utilization(ctx *c, char *source, size_t n)
{
	source[0] = 0;
	const pp_costspec *cs = c->cs;
	c->capacity_utilization = cs->utilization;
	if (!cs->utilization_cluster[0])
		return 0;
	pp_cost_cluster *k = pp_xcalloc(1, sizeof(*k));
	snprintf(k->spec_path, sizeof(k->spec_path), "%s", cs->utilization_cluster);
	snprintf(k->jobs_path, sizeof(k->jobs_path), "%s", cs->utilization_jobs);
	pp_cjobs_init(&k->jobs);
	int rc = pp_cspec_load(&k->spec, cs->utilization_cluster, c->err);
	if (rc) {
		free(k);
		return rc;
	}
	pp_cjobs_release(&k->jobs);
	if ((rc = pp_cjobs_load(&k->jobs, cs->utilization_jobs, PP_CJF_AUTO, c->err))) {
		pp_cspec_release(&k->spec);
		free(k);
		return rc;
	}
	/* per job: the report's queueing-delay distribution */
	pp_csim_opts o = {0};
	o.per_job = true;
	pp_hw_resolver hwr = {pp_hw_of_scenario, NULL};
	if ((rc = pp_cscen_simulate(&k->spec, &k->jobs, cs->utilization_jobs, c->cat, &hwr, &o,
				    &k->r, c->err))) {
		pp_cost_cluster_free(k);
		return rc;
	}
	const pp_csim_result *r = &k->r;
	double u = r->sched_goodput, before = c->fleet_utilization;
	bool capacity = c->work == PP_WORK_CAPACITY && isnan(cs->utilization) &&
			isnan(cs->gpu_hours_per_month);
	if (capacity)
		before = NAN;
	c->fleet_utilization = u;
	if (capacity)
		c->capacity_utilization = u;
	char src[512], qd[32];
	snprintf(src, sizeof(src), "podplan cluster: %d jobs (%s) on %s (%d GPUs, %s, seed %lu); "
		 "allocated over available GPU-hours", r->njobs, cs->utilization_jobs,
		 cs->utilization_cluster, k->spec.gpus, pp_csched_names[k->spec.sched], r->seed);
	snprintf(source, n, "%s", src);
	snprintf(c->r->utilization_from, sizeof(c->r->utilization_from),
		 "%.1f%% from a cluster simulation, not a constant%s%s: %d jobs on %d GPUs kept "
		 "%.1f%% of the GPU-hours allocated (mean queueing delay %s; idle and "
		 "fragmented GPUs, gang waits and failures are what the rest lost)%s", 100 * u,
		 isnan(before) ? "" : " (finance.utilization would have been ",
		 isnan(before) ? "" : (snprintf(src, sizeof(src), "%.0f%%)", 100 * before), src),
		 r->njobs, k->spec.gpus, 100 * u,
		 pp_fmt_duration(r->queue[PP_CSIM_SIZE_BUCKETS - 1].mean_s, qd, sizeof(qd)),
		 capacity ? "; the capacity work's busy share is the same figure" : "");
	pp_cost_cluster_free(c->r->cluster);
	c->r->cluster = k;
	return 0;
}
