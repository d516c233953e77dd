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
 * them from their send; a request a completion releases reaches the
 * engine after the iteration the engine starts on sending that response
 * (TensorRT-LLM's executionLoop and vLLM's EngineCore busy loop take the
 * queued requests, then step), or at once on a replica with nothing to run
 * (models/SOURCES.md). Reproducible: the workload's draws depend only on
 * the seed (requests.h).
 *
 * Disaggregated prefill/decode (serving.disaggregation), as vLLM runs it
 * behind its proxy (tests/v1/kv_connector/nixl_integration/
 * toy_proxy_server.py, NixlConnector): the client's request goes to a
 * prefill instance (the load balancer's rule over the prefill pool) as a
 * request of one output token; that instance's scheduler runs it (prompt
 * only; the token it samples is discarded) and holds its blocks. The
 * request then goes to a decode instance (the rule over the decode pool),
 * whose scheduler admits it FCFS when blocks for its prompt are free
 * (sched.h), which starts the KV transfer: each GPU of the prefill
 * instance sends its share (KV bytes per token per GPU of the pool with
 * the larger share, from pp_kv_bytes_per_token through kvcap.h, times
 * the prompt) to its peer at the time of the engine's point-to-point
 * model (engine/collective.h pp_p2p_time: latency + bytes / bandwidth of
 * the node's fabric, or the NIC share of a GPU between nodes), after the
 * prefill has finished (NixlConnector reads the finished request's blocks;
 * the layer-by-layer overlap of Splitwise, Patel et al., ISCA'24, section
 * IV-C, is not modelled). Transfers do not share links (no contention).
 * When it arrives the prefill instance frees the blocks, and the decode
 * instance's first iteration for the request recomputes the last prompt
 * token and samples the first output token. So TTFT = queue + prefill +
 * wait for decode blocks + transfer + the first decode iteration (vLLM's
 * TTFT behind the proxy: the first token the client sees streams from
 * the decode instance); TPOT and ITL come from decode iterations only.
 *
 * Files: servesetup.c (the set-up), servesim.c (one run's event
 * simulation), serverate.c (runs at other rates: the sustained check, the
 * highest rate meeting the SLO); the client's figures: clientmeas.h.
 */
#ifndef PP_SERVESIM_H
#define PP_SERVESIM_H

#include "engine/forward.h"
#include "input/hw.h"
#include "input/scenario.h"
#include "serve/kvcap.h"
#include "serve/metrics.h"
#include "serve/sched.h"

/* One pool of a disaggregated deployment: its instances' serving spec
 * (the scenario's with the pool's layout and limits), one instance's
 * layout, forward cost and memory. */
typedef struct pp_serve_pool {
	pp_servespec sv;
	pp_scenario replica;
	pp_forward *fwd;
	pp_serve_memory mem;
} pp_serve_pool;

typedef struct pp_serve_setup {
	const pp_scenario *s;
	pp_servespec sv;            /* the scenario's, with the KV-derived defaults applied */
	pp_scenario replica;        /* one replica's layout: a shallow copy of *s */
	pp_hw hw;
	pp_forward *fwd;
	pp_serve_memory mem;
	/* disaggregated (sv.disagg.present): the pools; replica, fwd and mem
	 * above are then the decode pool's (borrowed from pool[PP_POOL_DECODE]) */
	bool disagg;
	pp_serve_pool pool[PP_NPOOLS];
	bool xfer_same_node;        /* the KV moves over the node's fabric, else the NICs */
	bool keep_requests;         /* pp_serve_run leaves the requests in the result */
	/* each latency statistic's pct alone (pp_serve_pct_of: the rest NAN):
	 * for the searches that read the SLO's percentiles only */
	bool pct_only;
	/* stop a run as soon as its SLO is certainly missed by a factor
	 * stop_when_missed (0: never stop; the searches use
	 * PP_SERVE_STOP_FACTOR): once more of the requests than its
	 * percentile leaves out have passed factor x the TTFT, TPOT or E2EL
	 * bound, that percentile is over factor x the bound whatever the rest
	 * do (the percentile interpolates between the order statistics at
	 * and above rank floor(p (n - 1)), and that many values over it put
	 * both over it). The result then has stopped set, slo_met false, each
	 * such bound's pct its least passing value (a lower bound on the
	 * run's percentile, so the run's headroom is below 1 - factor) and
	 * every other figure NAN. Only without warmup_requests (whose counted
	 * set is known at the end). A run that misses by less runs to its
	 * end, its figures exact. */
	double stop_when_missed;
	/* percentiles (0..100) to report besides the median, p99 and the SLO's,
	 * in each pp_serve_stat's pcts[] */
	int npcts;
	double pcts[PP_SERVE_MAX_PCTS];
	/* progress: called now and then with the share of requests done */
	void (*progress)(void *ctx, double done);
	void *progress_ctx;
} pp_serve_setup;

/* The searches' stop_when_missed: a run whose percentile is certainly
 * over twice a bound (headroom below -100%) is stopped; a closer miss
 * runs to its end, so the misses the searches name (the closest one) are
 * measured whole whenever one misses by less. */
#define PP_SERVE_STOP_FACTOR 2.0

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
	/* requests refused for passing max_model_len (workload.over_length
	 * "reject"; pp_serve_admit): not in num_prompts nor any statistic */
	int64_t rejected;
	bool stopped;                 /* stop_when_missed stopped the run (see there) */
	/* the most requests one instance ran at once (after a scheduling
	 * pass) and its KV blocks' peak demand (pp_kvpool_peak_demand): a
	 * run whose peaks stay below another setting's max_num_seqs and
	 * blocks runs the same under it (the searches reuse it) */
	int64_t peak_running, peak_kv_demand;
	double duration_s;
	double request_throughput, output_throughput, total_token_throughput;
	double request_goodput;       /* requests meeting every given SLO bound, per second */
	pp_serve_stat ttft, tpot, itl, e2el;  /* seconds; pct at the SLO's percentile */
	int max_concurrent_requests;  /* at the client */
	bool slo_met;                 /* every given bound holds at the SLO's percentile */
	double offered_rps;           /* pp_serve_offered_rps of the run's requests */
	/* pp_serve_check_sustained: the rate was not kept up (slo_met then
	 * false), and the throughput with every request sent at once */
	bool not_sustained;
	double capacity_rps;
	/* the engine's side */
	int64_t iterations, preemptions, prefix_hit_tokens, graphed_iterations;
	double mean_batch_tokens, mean_running;
	double busy_s, compute_s, tp_comm_s, ep_comm_s, launch_s, p2p_s; /* over replicas */
	/* disaggregated: per pool (the figures above are over both) */
	bool disagg;
	struct {
		int instances;
		int64_t iterations, preemptions;
		double busy_s;
		double utilisation;       /* busy_s / (instances x pipeline stages x duration) */
		double mean_batch_tokens, mean_running;
	} pool[PP_NPOOLS];
	double kv_transfer_bytes;     /* sent over the link, every GPU's share */
	int64_t kv_transfers;
	double transfer_s;            /* sum over requests of the transfer's time */
	double mean_transfer_s;
	double transfer_ttft_share;   /* counted requests' transfer time / their TTFT, summed */
	double mean_decode_wait_s;    /* prefill done -> decode instance admits it */
	int64_t blocks_held_at_end;   /* KV blocks no instance freed (0 when all are conserved) */
	pp_sreq *requests;            /* with su->keep_requests: every request's record (owned) */
	size_t nrequests;
} pp_serve_result;

/* Free what a result owns (its requests). */
void pp_serve_result_release(pp_serve_result *r);

/* Simulate the workload at request_rate (INFINITY: all at t = 0; for a
 * trace, a factor on its rate, INFINITY meaning all at once) with seed. */
int pp_serve_run(const pp_serve_setup *su, double request_rate, uint64_t seed,
		 pp_serve_result *out, pp_err *err);

/* What a run must complete of the offered rate to be taken as keeping
 * up with it without a capacity run: a sustained finite run completes
 * offered x span / (span + drain), about 0.95 for 200 requests at 10/s. */
#define PP_SERVE_SUSTAINED 0.9

/* Whether run x (of su at seed) sustained its offered rate. A finite run
 * ends: below PP_SERVE_SUSTAINED of the offered rate it may be a burst
 * the deployment drained, not a rate it keeps up with. It sustains the
 * rate only when it completes at least that much with every request sent
 * at once (its capacity on these requests); else x->not_sustained,
 * x->capacity_rps that throughput and x->slo_met false: its SLO verdict
 * does not hold. Returns the runs made (0 or 1) or a negative error. */
int pp_serve_check_sustained(const pp_serve_setup *su, uint64_t seed, pp_serve_result *x,
			     pp_err *err);

/* The same judgement when the caller has the capacity already (the
 * request throughput of su's run at seed with every request sent at
 * once): marks x as above and returns false when x did not sustain its
 * offered rate, else true. */
bool pp_serve_judge_sustained(pp_serve_result *x, double capacity_rps);

/* The highest request rate at which the SLO holds, by bisection between
 * a rate that meets it and one that does not, to rel_tol of the rate,
 * from the offline (all at once) throughput up. *best is the run at the
 * rate returned, *runs the simulations made. Returns 0; *rate is 0 when
 * the SLO fails even at 1% of the offline throughput, INFINITY when it
 * holds with every request sent at once. PP_EINPUT without an SLO. The
 * run at 1% (the slowest: its requests run one at a time) is made only
 * when no faster probe meets the SLO; one that does implies it there, as
 * the bisection itself assumes latency grows with the rate. */
int pp_serve_max_rate(const pp_serve_setup *su, uint64_t seed, double rel_tol, double *rate,
		      pp_serve_result *best, int *runs, pp_err *err);

/* The same from offline, su's run at seed with every request sent at
 * once when the caller has it (its figures are copied, not its
 * requests; not counted in *runs), else NULL. */
int pp_serve_max_rate_from(const pp_serve_setup *su, uint64_t seed, double rel_tol,
			   const pp_serve_result *offline, double *rate, pp_serve_result *best,
			   int *runs, pp_err *err);

#endif
