/*
 * requests.h - the requests a serving benchmark sends, drawn as `vllm
 * bench serve` draws them (vllm/benchmarks/serve.py and datasets.py at
 * 0307428d): lengths from the random dataset's distribution (or another
 * shape), a shared prefix of prefix_len tokens in front of the prompts
 * that carry it, and arrivals: all at t = 0 for request_rate "inf", else
 * gamma inter-arrival times of shape burstiness and scale
 * 1 / (rate x burstiness) (Poisson at burstiness 1), the first request at
 * t = 0; or a trace's arrivals and lengths.
 *
 * Draws come from GSL's MT19937 seeded with seed, in a fixed order per
 * request (lengths, prefix, inter-arrival time), and arrival times are
 * drawn at unit rate and divided by the rate, so two rates see the same
 * requests at proportionally scaled times (common random numbers: the
 * max-rate search and the monotonicity tests rely on it).
 */
#ifndef PP_REQUESTS_H
#define PP_REQUESTS_H

#include "input/servespec.h"
#include "serve/sched.h"
#include <stddef.h>

/* The requests of sv's workload at rate (requests/s; INFINITY: all at 0;
 * for a trace, a factor on its own rate: 1 replays it as recorded).
 * *out is a heap array the caller frees; its engine fields are zero. */
void pp_serve_requests(const pp_servespec *sv, double rate, uint64_t seed, pp_sreq **out,
		       size_t *n);

/* One length draw from L (exposed for the tests). */
int64_t pp_lendist_draw(const pp_lendist *L, void *gsl_rng);

#endif
