/*
 * serveplanint.h - private to the serving search's files (as SQLite's
 * vdbeInt.h is the VDBE's): serveplan.c (the search over the layouts) and
 * serveplanrun.c (the runs it asks for: simulated, or reused from an
 * earlier run alike). The public contract is serveplan.h.
 *
 * Times in seconds, rates in requests/s.
 */
#ifndef PP_SERVEPLANINT_H
#define PP_SERVEPLANINT_H

#include "plan/serveplan.h"

/* The search's state. */
typedef struct pp_splan_ctx {
	const pp_scenario *s;
	const pp_splan_opts *o;
	pp_splan_result *r;
	int capopts;
	int *dps;                     /* replica counts worth running, for the current layout */
	int ndps;
	int best_gpus;                /* INT_MAX: none meets yet */
	double t0;
	int done;
	/* the workload's shortest request, for the lone screen */
	int64_t min_prompt, min_output, min_output2; /* min_output2 0: none of two tokens or more */
	bool screen_ttft;             /* no prefix-cache hits could beat a lone prefill */
	struct pp_splan_memo *memos; /* runs another layout may reuse (serveplanrun.c) */
	int nmemos;
} pp_splan_ctx;

/* Report progress (pp_splan_opts.progress), if asked for. */
void pp_splan_report(pp_splan_ctx *c);

/* Run layout li (set up in cd) at dp replicas as a new option; returns
 * the option's index or a negative error. A miss's run stops once the SLO
 * is certainly missed by PP_SERVE_STOP_FACTOR (not exhaustive): its
 * verdict is what the search reads. */
int pp_splan_run_at(pp_splan_ctx *c, pp_serve_cand *cd, int li, int dp, pp_err *err);

/* Option q run again to its end, its figures exact (a stopped run's were
 * bounds): for the options the answer names. 0 or a negative error. */
int pp_splan_run_whole(pp_splan_ctx *c, const pp_catalog *cat, int q, pp_err *err);

#endif
