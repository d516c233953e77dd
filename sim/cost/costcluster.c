/*
 * costcluster.c - the utilisation a build option is priced at, from a
 * cluster simulation instead of a typed-in constant (costs.finance.
 * utilization_from; sim/cluster/csim.h): the job stream replayed on the
 * cluster spec, and the share of the available GPU-hours it kept
 * allocated (the simulation's scheduling goodput) is the fleet
 * utilisation, and a capacity work's busy share when it gives none. The
 * result says which in utilization_from and in its sources.
 */
#include "cluster/cjobs.h"
#include "cluster/cscen.h"
#include "cluster/csim.h"
#include "cluster/cspec.h"
#include "cost/costdata.h"
#include "core/fmt.h"

#include <stdio.h>

int cost_cluster_utilization(ctx *c, char *source, size_t n)
{
	source[0] = 0;
	const pp_costspec *cs = c->cs;
	c->capacity_utilization = cs->utilization;
	if (!cs->utilization_cluster[0])
		return 0;
	pp_cspec spec;
	pp_cjobs jobs;
	pp_csim_result r;
	pp_cscen *sc = NULL;
	int rc = pp_cspec_load(&spec, cs->utilization_cluster, c->err);
	if (rc)
		return rc;
	if ((rc = pp_cjobs_load(&jobs, cs->utilization_jobs, PP_CJF_AUTO, c->err))) {
		pp_cspec_release(&spec);
		return rc;
	}
	pp_csim_opts o = {0};
	if (jobs.nscenarios &&
	    (rc = pp_cscen_new(&sc, &jobs, cs->utilization_jobs, &spec, c->cat, c->err)))
		goto out;
	o.step = sc ? pp_cscen_step : NULL;
	o.step_ctx = sc;
	if ((rc = pp_csim_run(&spec, &jobs, &o, &r, c->err)))
		goto out;
	double u = r.sched_goodput, before = c->fleet_utilization;
	bool capacity = c->work == PP_WORK_CAPACITY && isnan(cs->utilization) &&
			isnan(cs->gpu_hours_per_month);
	if (capacity)
		before = NAN;
	c->fleet_utilization = u;
	if (capacity)
		c->capacity_utilization = u;
	char src[512], qd[32];
	snprintf(src, sizeof(src), "podplan cluster: %d jobs (%s) on %s (%d GPUs, %s, seed %lu); "
		 "allocated over available GPU-hours", r.njobs, cs->utilization_jobs,
		 cs->utilization_cluster, spec.gpus, pp_csched_names[spec.sched], r.seed);
	snprintf(source, n, "%s", src);
	snprintf(c->r->utilization_from, sizeof(c->r->utilization_from),
		 "%.1f%% from a cluster simulation, not a constant%s%s: %d jobs on %d GPUs kept "
		 "%.1f%% of the GPU-hours allocated (mean queueing delay %s; idle and "
		 "fragmented GPUs, gang waits and failures are what the rest lost)%s", 100 * u,
		 isnan(before) ? "" : " (finance.utilization would have been ",
		 isnan(before) ? "" : (snprintf(src, sizeof(src), "%.0f%%)", 100 * before), src),
		 r.njobs, spec.gpus, 100 * u,
		 pp_fmt_duration(r.queue[PP_CSIM_SIZE_BUCKETS - 1].mean_s, qd, sizeof(qd)),
		 capacity ? "; the capacity work's busy share is the same figure" : "");
	pp_csim_result_release(&r);
out:
	pp_cscen_free(sc);
	pp_cjobs_release(&jobs);
	pp_cspec_release(&spec);
	return rc;
}
