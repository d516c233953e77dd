/* serverate.c - see servesim.h: runs at rates other than the one asked
 * for: whether a run kept up its offered rate (the sustained check), and
 * the highest rate meeting the SLO (a bisection over runs). */
#include "serve/servesim.h"

#include <math.h>

int pp_serve_check_sustained(const pp_serve_setup *su, uint64_t seed, pp_serve_result *x,
			     pp_err *err)
{
	if (!isfinite(x->offered_rps) || x->request_throughput >= PP_SERVE_SUSTAINED * x->offered_rps)
		return 0;
	pp_serve_setup one = *su;
	one.keep_requests = false;
	pp_serve_result cap;
	int rc = pp_serve_run(&one, INFINITY, seed, &cap, err);
	if (rc)
		return rc;
	pp_serve_judge_sustained(x, cap.request_throughput);
	pp_serve_result_release(&cap);
	return 1;
}

bool pp_serve_judge_sustained(pp_serve_result *x, double capacity_rps)
{
	if (!isfinite(x->offered_rps) || x->request_throughput >= PP_SERVE_SUSTAINED * x->offered_rps ||
	    capacity_rps >= x->offered_rps)
		return true;
	x->not_sustained = true;
	x->capacity_rps = capacity_rps;
	x->slo_met = false;
	return false;
}

/* The highest rate meeting the SLO. */

int pp_serve_max_rate(const pp_serve_setup *su, uint64_t seed, double rel_tol, double *rate,
		      pp_serve_result *best, int *runs, pp_err *err)
{
	return pp_serve_max_rate_from(su, seed, rel_tol, NULL, rate, best, runs, err);
}

int pp_serve_max_rate_from(const pp_serve_setup *su, uint64_t seed, double rel_tol,
			   const pp_serve_result *offline, double *rate, pp_serve_result *best,
			   int *runs, pp_err *err)
{
	const pp_servespec *sv = &su->sv;
	*runs = 0;
	*rate = 0;
	if (!sv->slo_present)
		return pp_errf(err, PP_EINPUT, "--max-rate needs an \"slo\" section (ttft_ms, tpot_ms, "
			       "itl_ms or e2el_ms at a percentile)");
	pp_serve_result r;
	int rc;
	if (offline) {
		r = *offline;
		r.requests = NULL;
		r.nrequests = 0;
	} else {
		if ((rc = pp_serve_run(su, INFINITY, seed, &r, err)))
			return rc;
		(*runs)++;
	}
	if (r.slo_met) {
		*best = r;
		*rate = INFINITY;
		return 0;
	}
	double cap = r.request_throughput; /* what the deployment completes at most */
	double lo = cap * 0.01, hi = cap * 1.5;
	/* the probes above lo: a miss's verdict is all the bisection reads
	 * (a met probe runs whole: it becomes best). The run at lo, the
	 * slowest of all (its requests one at a time), is made only when no
	 * probe above it meets the SLO: one that does implies it at lo, as the
	 * bisection's own premise (latency grows with the rate) has it. */
	pp_serve_setup probe = *su;
	probe.stop_when_missed = PP_SERVE_STOP_FACTOR;
	pp_serve_result h;
	if ((rc = pp_serve_run(&probe, hi, seed, &h, err)))
		return rc;
	(*runs)++;
	if (h.slo_met) { /* the SLO holds past the deployment's capacity at this length */
		*best = h;
		*rate = hi;
		return 0;
	}
	bool met_above = false;
	double lo0 = lo;
	while ((hi - lo) > rel_tol * hi) {
		double mid = 0.5 * (lo + hi);
		if ((rc = pp_serve_run(&probe, mid, seed, &r, err)))
			return rc;
		(*runs)++;
		if (su->progress)
			su->progress(su->progress_ctx, -(double)*runs);
		if (r.slo_met) {
			lo = mid;
			*best = r;
			met_above = true;
		} else {
			hi = mid;
		}
	}
	if (!met_above) {
		if ((rc = pp_serve_run(su, lo0, seed, &r, err)))
			return rc;
		(*runs)++;
		*best = r;
		if (!r.slo_met)
			return 0;
	}
	*rate = lo;
	return 0;
}
