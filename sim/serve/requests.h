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

/* vLLM's rule on q[0..*n): a request whose prompt is max_model_len
 * tokens or more, or whose prompt + max_tokens passes max_model_len, is
 * refused (vllm/v1/engine/processor.py _validate_model_input; the OpenAI
 * server answers HTTP 400). Without workload.over_length "reject" the
 * first such request is PP_EINPUT naming it (a trace's row, or the
 * request's index and lengths); with it, such requests are taken out of
 * q (the others keep their order and arrivals), *n lowered and *rejected
 * set to how many. PP_EINPUT too when none is left. */
int pp_serve_admit(const pp_servespec *sv, pp_sreq *q, size_t *n, int64_t *rejected, pp_err *err);

/* A trace's mean request rate: (rows - 1) / the span of its arrivals,
 * requests/s; NAN without a trace, with one row or all at one time. A
 * rate R given for a trace (serve --rate R) is the factor R / this on
 * its arrival times' rate: the inter-arrival times scaled by
 * this / R, so that the mean rate is R. */
double pp_serve_trace_rps(const pp_servespec *sv);

/* The requests/s a run at rate (pp_serve_requests' argument) sends: rate,
 * or for a trace rate x pp_serve_trace_rps (NAN for a trace whose
 * arrivals cannot be rescaled: one row, or all at one time). */
double pp_serve_configured_rps(const pp_servespec *sv, double rate);

/* A rate R (requests/s, or INFINITY) given for a run on sv's workload
 * (serve --rate) as pp_serve_requests takes it: R itself without a
 * trace; for a trace the factor R / pp_serve_trace_rps on its arrival
 * times' rate (its inter-arrival times scaled so that the mean rate is
 * R), *rate rewritten. PP_EINPUT when a trace's arrivals cannot be
 * rescaled (one row, or all at one time) and R is finite. */
int pp_serve_trace_factor(const pp_servespec *sv, double *rate, pp_err *err);

/* What a trace holds, for the header of a run on it. */
typedef struct pp_trace_facts {
	size_t rows;
	double input_mean, input_median;   /* tokens */
	double output_mean, output_median; /* tokens */
	double duration_s;                 /* last arrival - first */
	double mean_rps;                   /* pp_serve_trace_rps */
} pp_trace_facts;
void pp_serve_trace_facts(const pp_servespec *sv, pp_trace_facts *f);

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
/* output tokens x layouts of one `serve --search` (sim/plan/serveplan.c),
 * checked once the layouts are known and before the first run. A run
 * takes at most one iteration per output token (each iteration samples a
 * token of every request it decodes), its worst case a light load where
 * requests decode alone: 88,192 requests of 24 + 128 tokens at 2
 * requests/s, 5.8 million iterations, take 3.5 s. A search runs a share of
 * its layouts at the target rate, and overloaded runs stop early
 * (servesim.h stop_when_missed): the shipped 70B search makes 277 runs of
 * 1,000 requests over 528 layouts in under 1 s. */
#define PP_SERVE_LIMIT_SEARCH_WORK 2e8
/* layouts counted at least: a search of a few layouts runs each at several
 * replica counts */
#define PP_SERVE_SEARCH_MIN_LAYOUTS 64
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

/* 0, or PP_EINPUT when `serve --search` over layouts layouts of sv's
 * workload would pass PP_SERVE_LIMIT_SEARCH_WORK: the message names the
 * limit, what was found and the keys that reduce it. */
int pp_serve_check_search_work(const pp_servespec *sv, int layouts, pp_err *err);

/* One length draw from L (exposed for the tests). */
int64_t pp_lendist_draw(const pp_lendist *L, void *gsl_rng);

#endif
