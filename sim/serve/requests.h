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

/* The rate at which requests q[0..n) of sv's workload at rate arrive:
 * a trace's (n - 1) / its arrivals' span (NAN when they come at once),
 * else rate (INFINITY: all at once). */
double pp_serve_offered_rps(const pp_servespec *sv, double rate, const pp_sreq *q, size_t n);

/* The most work one simulation takes on, checked before anything is
 * allocated for it (pp_serve_run; the searches and `cost` multiply it by
 * their runs). Measured on this version's event simulation: about 0.4 us
 * and 30 bytes per output token (every inter-token gap is kept for the ITL
 * statistics) and 7 KB per replica, so the limits below hold a run to about
 * 10 s and 1 GB on one core: */
#define PP_SERVE_LIMIT_TOKENS 2e7     /* requests x (prefix + prompt + output) tokens */
#define PP_SERVE_LIMIT_REQUESTS 1000000 /* requests of one run (trace rows too) */
#define PP_SERVE_LIMIT_REPLICAS 4096  /* instances of one deployment */
#define PP_SERVE_LIMIT_WORK 1e8       /* tokens x runs of one cost option's sizing */
/* The span of arrivals a run may cover, in seconds: past it the clock
 * (double seconds) resolves less than a tenth of a microsecond. */
#define PP_SERVE_LIMIT_SPAN_S 1e9

/* The tokens sv's workload sends in one run (trace: its rows; else the
 * requests times the lengths' means, each within max_model_len). */
double pp_serve_work_tokens(const pp_servespec *sv);

/* 0, or PP_EINPUT naming the first of the limits above that replicas
 * instances running sv's workload runs times would pass (or warm-up
 * requests that leave none counted): the keys to change, what was found
 * and the limit. */
int pp_serve_check_work(const pp_servespec *sv, int replicas, double runs, pp_err *err);

/* One length draw from L (exposed for the tests). */
int64_t pp_lendist_draw(const pp_lendist *L, void *gsl_rng);

#endif
