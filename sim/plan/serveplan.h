/*
 * serveplan.h - the cheapest serving deployment for a target request rate
 * (`podplan serve --search`): which tensor_parallel_size,
 * pipeline_parallel_size, enable_expert_parallel (MoE), max_num_seqs,
 * max_num_batched_tokens and data_parallel_size (replicas) meet the
 * scenario's SLO at the rate on the fewest GPUs of the scenario's SKU.
 * Every option is simulated by the serving engine (serve/servesim.h) as
 * `podplan serve` would run it; nothing is estimated outside it.
 *
 * The space (plan/servespace.h): the serving keys the scenario leaves
 * out (a given key stays fixed, as in `podplan search`), and replicas 1,
 * 2, ... (beyond one node whole nodes) up to the requests the client can
 * have in flight (with as many replicas as requests every request runs
 * alone: more cannot help). A layout is the scenario file with those keys
 * set, loaded by the scenario loader (which refuses what vLLM refuses) and
 * set up as `podplan serve` does; it keeps every other key (engine,
 * precision, max_model_len, gpu_memory_utilization, the workload, the SLO,
 * the seed). Runs at dp replicas share one set-up of the replica (the
 * serving simulation's replicas share nothing but the client and its load
 * balancer).
 *
 * Cost: the SKU's $/GPU-hour x GPUs (tensor x pipeline x replicas), no
 * rounding to instances. At one price the cheapest option is the one on
 * the fewest GPUs, so the ranking needs no price: options rank by GPUs,
 * then by headroom (the least slack over the SLO's bounds at its
 * percentile: min over the bounds of 1 - measured / bound), then by how
 * few scheduler keys differ from the scenario's values (an exact tie
 * keeps what the scenario runs), then by the enumeration order.
 *
 * Pruning, and what it rests on:
 *  1. memory: a layout where one request of max_model_len does not fit
 *     the KV cache is not started (vLLM refuses it);
 *  2. alone: a replica running the workload's shortest request alone
 *     (its shortest prompt, its shortest output; and its shortest output
 *     of two or more tokens for TPOT) gives lower bounds on every
 *     request's TTFT, TPOT and E2EL under any load, so if one of them
 *     misses its bound no replica count meets the SLO. It rests on an
 *     iteration never taking less time than one holding part of its work,
 *     and on latencies growing with the prompt and output lengths; with a
 *     shared prefix and prefix caching, hits can beat the lone request's
 *     prefill, so TTFT and E2EL are then not screened (TPOT still is);
 *  3. cost: once an option meets the SLO on G GPUs, a layout is only run
 *     at replica counts on at most G GPUs; assuming more replicas of a
 *     layout never miss the SLO where fewer meet it (they share the same
 *     requests; the load balancer only spreads them thinner), a layout
 *     that misses at the most replicas within G GPUs misses at fewer too
 *     (one simulation rules it out), and one that meets there has its
 *     fewest replicas found by bisection. Before any option meets, the
 *     replica count is found by doubling, then bisection.
 * Layouts are visited in order of GPUs per replica (the scenario's
 * scheduler values first within equal GPUs), so a cheap option is found
 * early. With exhaustive set nothing but memory prunes: every layout is
 * run at 1, 2, ... replicas up to its first meeting (the brute force the
 * tests compare the pick with).
 *
 * Disaggregated prefill/decode (o->disagg): besides the co-located
 * layouts, a prefill pool of 1 .. 8 instances of each TP of the space
 * beside a decode pool of each TP (PP 1, the scenario's scheduler limits,
 * the KV over the node's fabric when both pools fit one node, else the
 * NICs), each such pair a layout whose replicas are the decode instances
 * (a layout of x prefill instances costs x x their TP GPUs more than its
 * decode instances). They run, prune and rank as the co-located layouts
 * do, in one order of GPUs (prefill pool + one decode instance); the
 * pruning's assumption becomes: more decode instances never miss the SLO
 * where fewer meet it. The pick is whichever meets on the fewest GPUs, so
 * disaggregation wins only when it is cheaper at the SLO (typically a
 * tight TPOT or ITL bound with long prompts: co-located decodes share
 * iterations with prefill chunks) and co-location otherwise.
 *
 * Times in seconds, rates in requests/s, money in US dollars.
 */
#ifndef PP_SERVEPLAN_H
#define PP_SERVEPLAN_H

#include "input/catalog.h"
#include "input/scenario.h"
#include "plan/servespace.h"
#include "core/util.h"
#include <stdbool.h>
#include <stdint.h>

typedef enum pp_splan_status {
	PP_SPLAN_INVALID,  /* the scenario loader refuses it (why) */
	PP_SPLAN_NO_FIT,   /* one request of max_model_len does not fit the KV cache */
	PP_SPLAN_ALONE,    /* the shortest request alone misses the SLO: no replica count meets it */
	PP_SPLAN_DEARER,   /* one replica needs more GPUs than the pick */
	PP_SPLAN_MISSES,   /* misses at the most replicas tried */
	PP_SPLAN_MEETS,    /* meets it: best is its fewest replicas meeting */
	PP_SPLAN_NSTATUS
} pp_splan_status;

extern const char *const pp_splan_status_names[PP_SPLAN_NSTATUS];

/* One simulation of a layout at the target rate. Latencies at the SLO's
 * percentile. */
typedef struct pp_splan_option {
	int layout;                   /* index into pp_splan_result.layouts */
	int dp, gpus;
	double usd_per_hour;          /* NAN without a price */
	bool slo_met;
	double headroom;              /* min over the SLO's bounds of 1 - measured / bound */
	double capacity_rps;          /* NAN; else the run met the bounds but not the rate: what
					 it completes with every request at once, below the
					 offered rate (slo_met false) */
	double ttft_s, tpot_s, itl_s, e2el_s;
	double mean_transfer_s, transfer_ttft_share; /* disaggregated: the KV transfers */
	double request_throughput, output_throughput;  /* as vllm bench serve reports them */
	int64_t preemptions;
	/* the run was stopped once the SLO was certainly missed
	 * (pp_serve_setup.stop_when_missed): a passed bound's latency is a
	 * lower bound on the run's, the others and the throughputs NAN, and
	 * headroom an upper bound */
	bool stopped;
} pp_splan_option;

typedef struct pp_splan_layout {
	pp_serve_layout l;
	int index;                    /* enumeration order */
	int changed;                  /* scheduler keys (max_num_seqs, max_num_batched_tokens)
					 unlike the scenario's values */
	int gpus;                     /* per replica (disaggregated: per decode instance) */
	int fixed_gpus;               /* disaggregated: the prefill pool's; 0 co-located */
	pp_splan_status status;
	char why[320];
	int64_t kv_tokens;            /* per replica (0: not set up) */
	int64_t max_num_seqs_run;     /* what the engine runs with (SGLang may lower it) */
	double alone_ttft_s, alone_tpot_s, alone_e2el_s; /* NAN: not run */
	int best;                     /* option: MEETS its fewest replicas meeting, MISSES the most tried; -1 */
	int sims;                     /* simulations at the target rate */
} pp_splan_layout;

/* Progress, for a terminal. */
typedef struct pp_splan_progress {
	int done, total;              /* layouts */
	int sims;                     /* simulations so far (alone ones included) */
	int best_gpus;                /* of the best option so far; 0: none yet */
	double elapsed_s;
} pp_splan_progress;

typedef struct pp_splan_opts {
	double rate;                  /* target request rate; NAN: workload.request_rate (trace: a
					 factor on its rate, 1 as recorded) */
	uint64_t seed;                /* the workload's draws */
	double usd_per_gpu_hour;      /* > 0: fill the options' usd_per_hour; NAN: none */
	bool exhaustive;              /* memory the only pruning (tests) */
	void (*progress)(const pp_splan_progress *p, void *ctx);
	void *progress_ctx;
	bool disagg;                  /* also disaggregated prefill/decode layouts (above) */
	const pp_hwcal *hwcal;        /* the calibration named (NULL: none): each candidate's
					 hardware is resolved with it (calib/hwres.h) */
} pp_splan_opts;

typedef struct pp_splan_result {
	double rate;                  /* the target rate as run (trace: the factor) */
	double offered_rps;           /* requests/s the client sends at it */
	double mean_output_tokens;    /* per request, over the workload's requests */
	int64_t requests;             /* the workload's */
	int max_replicas;             /* the most replicas worth running */
	double usd_per_gpu_hour;
	int nlayouts;
	pp_splan_layout *layouts;     /* enumeration order */
	int nopts;
	pp_splan_option *opts;        /* in the order run */
	int pick;                     /* option index; -1: none meets the SLO */
	int count[PP_SPLAN_NSTATUS];  /* layouts by status */
	int sims, alone_sims;         /* at the target rate; of lone requests */
	/* runs at the target rate taken from an earlier run of a layout that
	 * differs only in max_num_seqs and KV blocks that run never reached
	 * (vLLM co-located; serveplanrun.c reuse()): the same run, not simulated
	 * again */
	int reused;
	char space[600];              /* the space searched, in words */
	char fixed[300];              /* keys the scenario fixed, in words ("" none) */
	double elapsed_s;
} pp_splan_result;

/* Search s (a serving scenario with an "slo" section, loaded with
 * pp_scenario_load from a file) for o->rate. Errors: PP_EINPUT without an
 * SLO, with an infinite target rate or when no layout of the space is
 * valid; a failing simulation's error otherwise. */
int pp_splan_run(const pp_scenario *s, const pp_catalog *cat, const pp_splan_opts *o,
		 pp_splan_result *out, pp_err *err);
void pp_splan_result_release(pp_splan_result *r);

/* The layouts that ran at the target rate (MEETS then MISSES), best first:
 * meeting ones by their best option's GPUs, then headroom, then index;
 * missing ones by the headroom of their last try. *order is a heap array
 * of layout indices the caller frees; returns its length. */
int pp_splan_order(const pp_splan_result *r, int **order);

#endif
