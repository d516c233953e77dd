/*
 * clientmeas.h - what the benchmark client measures in a serving run
 * (private to the serve layer: servesim.c's event loop feeds it, metrics.c
 * holds it): every token's time as it reaches the client, and at the end
 * the figures `vllm bench serve` reports over the counted requests
 * (calculate_metrics in vllm/benchmarks/serve.py at 0307428d).
 */
#ifndef PP_CLIENTMEAS_H
#define PP_CLIENTMEAS_H

#include "serve/servesim.h"

/* The inter-token gaps seen so far (seconds) and each one's request. */
typedef struct pp_serve_meas {
	double *itl;
	int *itl_req;
	size_t nitl, capitl;
	/* pp_serve_setup.stop_when_missed: the SLO's TTFT, TPOT and E2EL
	 * bounds (0: none or not watched), how many requests passed each so
	 * far and the least such value (seconds) */
	double bound[3];
	int64_t over[3];
	double over_min[3];
} pp_serve_meas;
enum { PP_MEAS_TTFT, PP_MEAS_TPOT, PP_MEAS_E2EL };

/* The next token of each request ids[0 .. n) reached the client at now,
 * in that order: a request's first sets its TTFT's end, each later one
 * adds a gap. */
void pp_serve_meas_tokens(pp_serve_meas *m, pp_sreq *r, const int *ids, int n, double now);
void pp_serve_meas_release(pp_serve_meas *m);

/* Room for n gaps at once (a run's output tokens, known before it
 * starts), so that the arrays are not grown and copied step by step. */
void pp_serve_meas_reserve(pp_serve_meas *m, size_t n);

/* The run's client figures into o from the N requests' records r (and,
 * disaggregated, xfer_s[N] each request's KV transfer time, else NULL):
 * counted requests (without the first warmup_requests sent and the last
 * that many to finish; 2 x warmup_requests < N, pp_serve_check_work), the
 * duration over their window, throughputs, goodput, latency statistics at
 * pct and su's extra percentiles, the SLO verdict. m's gaps are cut to
 * the counted requests' and sorted. */
void pp_serve_finish(const pp_serve_setup *su, const pp_sreq *r, size_t N, const double *xfer_s,
		     pp_serve_meas *m, double pct, pp_serve_result *o);

#endif
