/*
 * servesim.h - the iteration-level event simulation of a serving
 * deployment (`podplan serve`): a client sending the workload as `vllm
 * bench serve` does, replicas fed by vLLM's data-parallel load balancer,
 * each running its scheduler (sched.h) iteration by iteration, every
 * iteration timed by the step engine (engine/forward.h), and the client's
 * measurements under `vllm bench serve --save-result`'s names.
 *
 * Events are the client's sends and the iterations' ends. An iteration
 * starts as soon as the replica's first pipeline stage is free and fewer
 * than pipeline_parallel_size batches are in flight (vLLM V1's batch
 * queue); each stage starts a batch when the batch has left the stage
 * before and the stage has finished the batch ahead, so with one stage
 * iterations run back to back and with p stages up to p batches of
 * different requests overlap. Scheduling takes no simulated time (the
 * engine's host work between steps is not modelled). Tokens reach the
 * client when the iteration that sampled them ends (no detokenizer or
 * HTTP latency).
 *
 * Load balancing: vLLM's DPLBAsyncMPClient sends each request to the
 * replica with the least waiting x 4 + running requests (the first of
 * equals), read here from the replicas' current state (vLLM's counts are
 * up to 100 ms old); "round_robin" in serving.json cycles instead.
 *
 * Metrics (calculate_metrics): TTFT send -> first token; E2EL send -> last
 * token; TPOT (E2EL - TTFT) / (output - 1) for requests of more than one
 * token; ITL every gap between a request's successive tokens; duration
 * from the first send (t = 0) to the last token; throughputs over it
 * (with workload.warmup_requests W: over the requests left when the first
 * W sent and the last W to finish are set aside, the duration from the
 * first of them sent to the last token of them; completed counts them). With
 * max_concurrency the client holds requests until a slot frees and times
 * them from their send. Reproducible: the workload's draws depend only on
 * the seed (requests.h).
 */
#ifndef PP_SERVESIM_H
#define PP_SERVESIM_H

#include "engine/forward.h"
#include "input/hw.h"
#include "input/scenario.h"
#include "serve/kvcap.h"
#include "serve/metrics.h"
#include "serve/sched.h"

typedef struct pp_serve_setup {
	const pp_scenario *s;
	pp_servespec sv;            /* the scenario's, with the KV-derived defaults applied */
	pp_scenario replica;        /* one replica's layout: a shallow copy of *s */
	pp_hw hw;
	pp_forward *fwd;
	pp_serve_memory mem;
	bool keep_requests;         /* pp_serve_run leaves the requests in the result */
	/* percentiles (0..100) to report besides the median, p99 and the SLO's,
	 * in each pp_serve_stat's pcts[] */
	int npcts;
	double pcts[PP_SERVE_MAX_PCTS];
	/* progress: called now and then with the share of requests done */
	void (*progress)(void *ctx, double done);
	void *progress_ctx;
} pp_serve_setup;

/* Prepare a serving scenario (s->serve.present) on hardware hw: the
 * replica, its forward cost, its memory and KV capacity. PP_EINPUT when
 * one request of max_model_len does not fit the KV cache (vLLM refuses to
 * start: the message says how much is missing). s and hw must outlive
 * su's use; release with pp_serve_setup_release. */
int pp_serve_setup_init(pp_serve_setup *su, const pp_scenario *s, const pp_hw *hw, pp_err *err);
void pp_serve_setup_release(pp_serve_setup *su);

typedef struct pp_serve_result {
	double request_rate;          /* requests/s; INFINITY: all sent at t = 0 */
	uint64_t seed;
	int64_t num_prompts, completed, total_input_tokens, total_output_tokens;
	double duration_s;
	double request_throughput, output_throughput, total_token_throughput;
	double request_goodput;       /* requests meeting every given SLO bound, per second */
	pp_serve_stat ttft, tpot, itl, e2el;  /* seconds; pct at the SLO's percentile */
	int max_concurrent_requests;  /* at the client */
	bool slo_met;                 /* every given bound holds at the SLO's percentile */
	/* the engine's side */
	int64_t iterations, preemptions, prefix_hit_tokens, graphed_iterations;
	double mean_batch_tokens, mean_running;
	double busy_s, compute_s, tp_comm_s, ep_comm_s, launch_s, p2p_s; /* over replicas */
	pp_sreq *requests;            /* with su->keep_requests: every request's record (owned) */
	size_t nrequests;
} pp_serve_result;

/* Free what a result owns (its requests). */
void pp_serve_result_release(pp_serve_result *r);

/* Simulate the workload at request_rate (INFINITY: all at t = 0; for a
 * trace, a factor on its rate, INFINITY meaning all at once) with seed. */
int pp_serve_run(const pp_serve_setup *su, double request_rate, uint64_t seed,
		 pp_serve_result *out, pp_err *err);

/* The highest request rate at which the SLO holds, by bisection between
 * a rate that meets it and one that does not, to rel_tol of the rate,
 * from the offline (all at once) throughput up. *best is the run at the
 * rate returned, *runs the simulations made. Returns 0; *rate is 0 when
 * the SLO fails even at 1% of the offline throughput, INFINITY when it
 * holds with every request sent at once. PP_EINPUT without an SLO. */
int pp_serve_max_rate(const pp_serve_setup *su, uint64_t seed, double rel_tol, double *rate,
		      pp_serve_result *best, int *runs, pp_err *err);

#endif
