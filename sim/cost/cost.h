/*
 * cost.h - the TCO engine: the same useful work (a training run, a recurring
 * job, continuous training or an inference volume) priced several ways -
 * rent (on-demand, reserved, spot), build (servers, derived network,
 * storage, facility, support, staff, residual value), a hosted API (Tier 1)
 * or one 8-GPU node (Tier 4) - in $ per run, $ per 1M tokens, time to
 * train, with goodput (failures, checkpoints, restarts, spot interruptions)
 * and Monte Carlo uncertainty.
 *
 * Data flow: pp_scenario (its "costs" section, sim/input/costspec.h) -> for each
 * option a modified copy of the scenario -> the step-time engine (through
 * the predict callback, so tests can pass a fake; the model's parameter
 * count is the engine's pp_model_params()), or for an inference work the
 * serving simulation of one replica (podplan serve, serve/servesim.h;
 * costserve.h) -> throughput -> goodput -> cost over a monthly schedule ->
 * Monte Carlo and tornado -> pp_cost_result. Prices come from the catalog's prices.json,
 * TCO figures (failure rates, restart times, network parts...) from
 * models/tco.json; every figure used is listed in result.sources.
 *
 * Money is in US dollars, undiscounted unless a field says "npv"/"pv";
 * time is seconds unless the name says months.
 *
 * Three cost views per option (README, "Costs"):
 *   full       - every dollar paid over the horizon if this work is all the
 *                capacity does: idle reserved hours, capex net of the
 *                residual value at the end of the horizon, staff, power.
 *   amortized  - the GPU-hours the work uses, each priced at the option's
 *                fully loaded cost per *used* GPU-hour at the fleet
 *                utilisation (finance.utilization): what the work costs
 *                when the capacity is shared with other work.
 *   marginal   - only the costs the work causes: billed on-demand/spot
 *                hours, API tokens, energy; nothing for sunk capex or
 *                commitments.
 * The headline usd_total is the full cost; the recommendation uses it.
 *
 * Ownership: pp_cost_run() fills a caller-owned pp_cost_result whose arrays
 * are heap-allocated; pp_cost_result_release() frees them.
 */
#ifndef PP_COST_H
#define PP_COST_H

#include "engine/band.h"
#include "input/catalog.h"
#include "input/hw.h"
#include "core/pp.h"
#include "engine/predict.h"
#include "input/scenario.h"
#include "core/util.h"
#include <stdbool.h>

typedef enum pp_option_kind {
	PP_OPT_RENT,   /* a rented cluster (Tier 5 pod or larger) */
	PP_OPT_BUILD,  /* an owned cluster */
	PP_OPT_API,    /* Tier 1: hosted fine-tuning or inference API */
	PP_OPT_TIER4,  /* Tier 4: one node of <= 8 GPUs, rented or owned */
	PP_OPT_KIND_COUNT
} pp_option_kind;

/* The most GPUs of a tier4 option: one 8-GPU server (an HGX board, a
 * workstation box), the class docs/costs.md defines; a definition, not a
 * measured figure. */
#define PP_TIER4_MAX_GPUS 8

/* "rent", "build", "api", "tier4" */
extern const char *const pp_option_kind_names[PP_OPT_KIND_COUNT];

/* Cost components of an option's full cost (the stacked chart). They add
 * up to usd_total. */
typedef enum pp_cost_comp {
	PP_CC_GPU_TIME,        /* rented GPU-hours that did work (incl. work lost to failures) */
	PP_CC_IDLE_COMMIT,     /* reserved hours paid for and not used */
	PP_CC_SERVERS,         /* owned servers: purchase minus residual value at horizon end */
	PP_CC_NETWORK,         /* owned fabric: NICs, switches, cables/optics (net of residual) */
	PP_CC_STORAGE,         /* parallel file system: bought (net) or rented per TB-month */
	PP_CC_FACILITY,        /* energy x PUE, colocation $/kW-month */
	PP_CC_SUPPORT,         /* hardware maintenance/support contracts, software licences */
	PP_CC_STAFF,           /* platform-engineering staff */
	PP_CC_API,             /* hosted API token charges */
	PP_CC_COUNT
} pp_cost_comp;

/* "gpu_time", "idle_commitment", "servers", "network", "storage",
 * "facility", "support", "staff", "api" */
extern const char *const pp_cost_comp_names[PP_CC_COUNT];

/* Build-versus-rent finance for a build (or owned tier4) option, against the
 * cheapest rent option of the result ("versus"). Cash flows are monthly:
 * capex at month 0, then (rent avoided - own opex) each month, plus the
 * residual value at the horizon's end. */
typedef struct pp_cost_fin {
	bool valid;                       /* false when there is no rent option to compare */
	char versus[64];                  /* name of the rent option compared against */
	double capex_usd;                 /* servers + network + storage + installation */
	double residual_usd;              /* value at horizon end (market or book, see finance.residual) */
	double discount_rate;             /* annual */
	double npv_usd;                   /* NPV of building instead of renting (> 0: building saves) */
	double irr;                       /* annual IRR of that investment; NAN when undefined */
	double payback_months;            /* undiscounted; NAN when never within the horizon */
	double discounted_payback_months; /* NAN when never */
	double crossover_month;           /* first month where cumulative build cost <= rent; NAN never */
	double utilization;               /* fleet utilisation assumed for the amortized view */
	double usd_per_gpu_hour_used;     /* fully loaded $ per used GPU-hour at that utilisation */
	double breakeven_utilization;     /* utilisation at which build $/token = rent $/token;
					     NAN when building never breaks even (> 1) */
} pp_cost_fin;

/* One point of a serving replica's throughput-latency curve: the
 * workload sent to one replica at request_rate (pp_cost_opts.serve_curve). */
typedef struct pp_cost_serve_point {
	double request_rate;          /* sent, requests/s */
	double request_throughput;    /* completed over the run, requests/s */
	double output_throughput;     /* generated tokens/s */
	double ttft_s, tpot_s, itl_s, e2el_s; /* at the SLO's percentile (p99 without one) */
	bool slo_met;                 /* false when not sustained */
	/* the replica did not keep up with request_rate (pp_serve_judge_sustained:
	 * a finite burst drained, above what it completes with every request
	 * at once, capacity_rps): its latencies are no verdict at that rate */
	bool not_sustained;
	double capacity_rps;
} pp_cost_serve_point;

#define PP_COST_CURVE_MAX 10

/* How a cluster option serves an inference work (README, "Costs"): one
 * serving replica (the scenario's "serving" layout on the option's GPU)
 * simulated by podplan serve (serve/servesim.h) - its highest request rate
 * at the SLO, its KV cache, and the replica time an input and an output
 * token take - and what the work needs of it. */
typedef struct pp_cost_serving {
	bool simulated;               /* measured by podplan serve; false: the option's
					 inference_tokens_per_s_per_gpu (or not an inference work) */
	char engine[12];              /* vllm | sglang | trtllm */
	int tp, pp;
	int gpus_per_replica;         /* tp x pp */
	int replicas_per_cluster;     /* serving replicas in one copy of the option's cluster */
	double offline_rps;           /* one replica, every request sent at once: what it completes */
	double slo_rate_rps;          /* the highest rate at which the SLO holds (INFINITY: even
					 with every request at once; offline_rps without an SLO) */
	double max_rate_rps;          /* what one replica is sized at: slo_rate_rps, at most
					 offline_rps (a replica cannot sustain more than it
					 completes) */
	double input_tokens_per_s, output_tokens_per_s; /* one replica at max_rate_rps, at the mix */
	pp_cost_serve_point at_max;   /* the run at max_rate_rps */
	/* KV cache and memory of one replica, as vLLM sizes them at start-up */
	int64_t kv_tokens, num_gpu_blocks;
	double max_concurrency;       /* kv_tokens / max_model_len */
	double kv_cache_bytes_per_gpu, weights_bytes_per_gpu, memory_budget_bytes_per_gpu;
	/* replica-seconds one token takes at the SLO: a request's replica
	 * time 1 / max_rate_rps split between its input and its output tokens
	 * in proportion to their marginal times (the max-rate search again
	 * with every prompt input_scale times as long, then every output
	 * output_scale times; a scale of 1: it could not grow within
	 * max_model_len, and the split is by token count); s_per_input_token x
	 * mean input + s_per_output_token x mean output = 1 / max_rate_rps */
	double input_scale, output_scale;
	double s_per_input_token, s_per_output_token;
	/* the work's need, at the base case */
	double peak_rps;              /* the busiest hour's requests/s at the workload's mix */
	int replicas_needed;          /* serving replicas for it */
	double input_cost_share;      /* of the option's full cost, the input tokens' */
	int ncurve;
	pp_cost_serve_point curve[PP_COST_CURVE_MAX];
	int runs;                     /* simulations made (shared by options of one GPU) */
} pp_cost_serving;

typedef struct pp_cost_option {
	char name[64];
	pp_option_kind kind;
	char provider[64];          /* rent/tier4-rent: prices.json provider key ("aws_p5.48xlarge");
				       api: price key ("fireworks_lora_sft_le16B"); build: "own" */
	char tier[32];              /* on_demand | reserved_1y | reserved_3y | spot | capacity_block |
				       own | api */
	char label[256];            /* one line for people: "1,024 x H100 SXM, AWS p5, 1-yr reserved" */
	char gpu[32];               /* catalog GPU id; "" for api */
	int num_gpus;
	char fabric[24];            /* inter-node fabric id ("" on one node) */
	char method[8];             /* full | lora | qlora (fine-tunes) */
	bool feasible;              /* false: does not fit in memory, or cannot do the work */
	char infeasible_why[256];
	/* throughput (NAN for api) */
	double step_time_s;         /* predicted, before goodput */
	pp_band band;               /* its 80% interval from the validated runs near the option's
				       layout (calib/evidence.h); the Monte Carlo draws the step
				       from it; on false for api options and inference work */
	double tokens_per_s;        /* predicted, before goodput */
	double mfu;
	pp_breakdown breakdown;     /* where step_time_s goes (predict.h), with the lora/qlora
				       rescaling applied: its parts add up to step_time_s; all
				       zero for api options and inference work */
	double memory_per_gpu_bytes, memory_capacity_bytes;
	double goodput;             /* useful fraction of wall time, 0..1 (failures, checkpoints, spot) */
	double checkpoint_interval_s; /* Young/Daly optimum used */
	double tokens_per_s_effective; /* tokens_per_s x goodput */
	double time_to_train_s;     /* wall time of one run/job incl. goodput; NAN when unknown (api) */
	double lead_time_s;         /* build: order to first step; 0 otherwise */
	double gpu_hours_used;      /* over the horizon */
	double replicas;            /* clusters needed to keep up (recurring/inference), usually 1 */
	int gpus_priced;            /* num_gpus x replicas: every GPU the full cost pays for */
	/* can it be had? false for a spot option larger than tco.json's
	 * spot.max_nodes_obtainable: it is then a risked alternative, never the
	 * recommendation, and risk says why */
	bool obtainable;
	char risk[320];
	bool meets_target;          /* within pp_cost_opts' deadline or budget (true without one) */
	/* reserved tiers: how the contract is paid ("upfront", "partial",
	 * "monthly"; "" for other tiers) and its contracted cost, which no
	 * Monte Carlo draw changes */
	char payment[12];
	double contract_usd;
	/* owned fabric, derived from the cluster size (0 on one node or when rented) */
	int net_switches, net_links, net_tiers;
	double storage_tb;          /* shared file system sized for dataset + kept checkpoints */
	/* money (full view unless named) */
	double capex_usd;           /* owned: servers, network, storage and installation of every
				       replica, paid before the first step (= fin.capex_usd); 0 rented */
	double usd_total;
	double usd_amortized;
	double usd_marginal;
	double usd_per_run;         /* full cost / number of runs or jobs (= usd_total for one run) */
	double usd_per_million_tokens;          /* full */
	double usd_per_million_tokens_marginal;
	double usd_per_gpu_hour_used;           /* full cost / GPU-hours used */
	double usd_lost_work;       /* part of usd_total caused by goodput < 1 */
	/* inference: the full cost per 1M input and per 1M output tokens - an
	 * API's two prices; a cluster's cost split by the replica time the
	 * input and the output tokens take (serving.input_cost_share), or by
	 * token count with a typed-in throughput; NAN for other works */
	double usd_per_million_input_tokens, usd_per_million_output_tokens;
	pp_cost_serving serving;
	double components[PP_CC_COUNT];
	/* uncertainty, of usd_total */
	double p10_usd, p50_usd, p90_usd, mean_usd;
	double p_cheapest;          /* share of draws in which this option is the cheapest feasible
				       obtainable one; NAN for an option that cannot be obtained */
	double *samples;            /* draws of usd_total, in draw order (same draw = same inputs
				       for every option); nsamples of them; NULL when no draws */
	int nsamples;
	double q01_usd, q99_usd;    /* the samples' P1 and P99 order statistics (pp_mc_stats'
				       q01, q99): pp_cost_histogram's default range; NAN: not known */
	/* cumulative cash, undiscounted: cum_usd[0] at the start (capex), cum_usd[m] at the
	 * end of month m, m = 1..nmonths */
	double *cum_usd;
	int nmonths;
	pp_cost_fin fin;
} pp_cost_option;

/* One-at-a-time sensitivity of the recommended option (tornado chart). */
typedef struct pp_tornado_row {
	char driver[48];            /* "H100 rent price", "step-time error", "failure rate", ... */
	char unit[24];              /* of the inputs: "usd_per_gpu_hour", "factor", "fraction" */
	double base_input, low_input, high_input;
	double low_usd, high_usd;   /* recommended option's usd_total at low/high input */
	double low_margin_usd, high_margin_usd; /* runner-up minus recommended (< 0: it flips) */
	double swing_usd;           /* |high_usd - low_usd| (rows are sorted by it) */
} pp_tornado_row;

/* A figure the result used, for the assumptions table. */
typedef struct pp_cost_source {
	char item[128];             /* "H100-SXM-80GB aws_p5.48xlarge on_demand" */
	double value;
	char unit[32];
	char source[512];           /* source title */
	char url[256];
	char date[40];              /* as the data file gives it */
	bool estimate;
	bool assumption;            /* podplan's own figure (source "podplan_assumption"),
				     * no published one behind it */
	double age_months;          /* at result.as_of; NAN when undated */
} pp_cost_source;

/* An inference work's volume, its request mix and its SLO (README,
 * "Costs"). */
typedef struct pp_cost_inference {
	bool present;                 /* an inference work */
	bool simulated;               /* the scenario has a "serving" section (podplan serve) */
	double input_tokens_per_month, output_tokens_per_month;
	double peak_to_average;       /* busiest hour over the month's mean */
	/* the workload's request mix, as simulated (0 without a serving section) */
	int64_t num_prompts;
	double mean_input_len, mean_output_len; /* tokens a request */
	double requests_per_month;    /* (input + output) / (mean input + mean output) */
	bool slo_present;
	double slo_ttft_s, slo_tpot_s, slo_itl_s, slo_e2el_s; /* 0: no bound */
	double slo_percentile;
	int simulations;              /* podplan serve runs, all options */
	double serve_elapsed_s;       /* their wall time */
} pp_cost_inference;

typedef struct pp_cost_result {
	char scenario[128];
	char question[512];         /* the scenario's description */
	char work[256];             /* "1 run of 2.00T tokens", "4.33 jobs/month of 500M tokens" */
	char as_of[16];             /* date prices are aged against (YYYY-MM-DD) */
	double stale_months;        /* a figure older than this at as_of is warned about
				       (tco.json uncertainty.stale_months); NAN: none */
	double tokens_total;        /* useful tokens over the horizon */
	double runs;                /* runs or jobs over the horizon */
	double horizon_months;
	unsigned long seed;
	int draws;
	pp_cost_option *options;
	int noptions;
	int recommended;            /* index: the cheapest feasible option that can be obtained
				       (the cheapest feasible one when none can); -1 when none is
				       feasible */
	int runner_up;              /* the next cheapest obtainable one; -1 when none */
	int risked;                 /* the cheapest feasible option that cannot be obtained (spot
				       beyond its capacity), when it is cheaper than the
				       recommended one; -1 otherwise */
	double deadline_s, budget_usd; /* the target ranked against (pp_cost_opts), 0 = none */
	char recommendation[1024];  /* the answer and why, in sentences */
	/* how the utilisation came from a cluster simulation
	 * (costs.finance.utilization_from), in a sentence; "" = a constant */
	char utilization_from[640];
	/* the simulation it came from (cost/costcluster.h; owned); NULL = none */
	struct pp_cost_cluster *cluster;
	pp_cost_inference inference;
	pp_tornado_row *tornado;
	int ntornado;
	pp_cost_source *sources;
	int nsources;
	char **warnings;            /* one sentence each */
	int nwarnings;
	double elapsed_s;           /* wall time of pp_cost_run */
	double mc_elapsed_s;        /* of which Monte Carlo and tornado */
} pp_cost_result;

/* The step-time engine, injected: pass pp_predict. Tests pass a fake. */
typedef int (*pp_cost_predict_fn)(const pp_scenario *s, const pp_hw *hw,
				  const pp_predict_opts *opts, pp_result *out, pp_err *err);

typedef struct pp_cost_opts {
	pp_cost_predict_fn predict;  /* required */
	bool seed_given;             /* else costs.uncertainty.seed, else tco.json's default */
	unsigned long seed;
	bool draws_given;            /* else costs.uncertainty.draws, else tco.json's default */
	int draws;                   /* 0 = no Monte Carlo */
	const char *tco_path;        /* NULL = the catalog's tco.json */
	/* a target (podplan size): > 0 and only options whose time to result
	 * (lead time + one run) is within deadline_s can be recommended, the
	 * cheapest of them; or, with budget_usd, the fastest whose full cost is
	 * within it. 0 = none: the cheapest. */
	double deadline_s;
	double budget_usd;
	/* inference with a "serving" section: also sweep each replica's
	 * throughput-latency curve (the reports' chart; a few more
	 * simulations) */
	bool serve_curve;
	/* called before each serving simulation of an option's replica (what:
	 * "8 x h100-sxm, TP 8"), for a progress line; may be NULL */
	void (*progress)(void *ctx, const char *what);
	void *progress_ctx;
	/* every rank of an MPI job (core/dist.h) makes this call with the same
	 * inputs: each evaluates its own block of the Monte Carlo's draws (every
	 * rank still draws the whole random stream, so each draw's numbers are
	 * the serial run's) and the blocks are gathered; the result is the
	 * serial one, byte for byte. False: this rank prices alone. */
	bool spread_draws;
	/* the calibration profile named (calib/hwres.h): each option's
	 * hardware is resolved with it, so it applies to the options on the
	 * hardware it measured, whose step time then carries the calibrated
	 * uncertainty; NULL: the one the scenario names, from its db or the
	 * default store (the run fails as the commands do when it is not
	 * there) */
	const struct pp_hwcal *hwcal;
	/* price each training option at the pessimistic end of its step's 80%
	 * interval (step x its upper factor; `podplan size --conservative`):
	 * the base case, and so the recommendation, is that step; the Monte
	 * Carlo still draws the step from the whole interval */
	bool conservative;
} pp_cost_opts;

/* Price every option of s->costs. Errors: PP_EINPUT for a costs section
 * that cannot be priced (unknown provider or tier, missing price, layout
 * that does not divide the option's GPUs), naming file:line:col and the
 * JSON path; PP_EIO when tco.json cannot be read. An option that does not
 * fit in memory is not an error: it is reported infeasible with why.
 * On failure *out holds nothing to release (releasing it is harmless). */
int pp_cost_run(const pp_scenario *s, const pp_catalog *cat, const pp_cost_opts *opts,
		pp_cost_result *out, pp_err *err);
void pp_cost_result_release(pp_cost_result *r);

/* A cluster and layout found by `podplan size`, to be priced every way a
 * cluster is: rented (at provider and tier: NULL or "" = the cheapest
 * provider's on_demand; usd_per_gpu_hour NAN = prices.json's) and built.
 * Fields as the scenario's keys name them; 0 or -1 = the scenario's. */
typedef struct pp_cost_candidate {
	const pp_gpu *gpu;
	int num_gpus, gpus_per_node, nics_per_node;
	const pp_fabric *inter;
	int tp, pp, cp, vpp, sequence_parallel, zero_stage, recompute;
	int64_t micro_batch_size;
	const char *provider, *tier;
	double usd_per_gpu_hour;
} pp_cost_candidate;

/* Weigh n candidates (at most PP_COST_MAX_CANDIDATES) for one run of
 * s's training.train_tokens: each rented and built, beside the hosted-API
 * and one-node (tier4) options of s's own "costs" section, with s's cost
 * assumptions (or the catalogs' when it has none), through pp_cost_run
 * with opts' target - one computation for `podplan size` and `podplan
 * cost`. Errors as pp_cost_run's; PP_EINPUT without train_tokens. */
#define PP_COST_MAX_CANDIDATES 24
int pp_cost_weigh(const pp_scenario *s, const pp_catalog *cat, const pp_cost_opts *opts,
		  const pp_cost_candidate *cand, int n, pp_cost_result *out, pp_err *err);

/* Histogram of an option's samples over [lo, hi) in nbins equal bins
 * (counts[nbins], caller-owned); lo/hi = the P1/P99 of the samples when
 * *lo >= *hi on entry. Returns the number of samples counted. */
int pp_cost_histogram(const pp_cost_option *o, int nbins, double *lo, double *hi, int *counts);

#endif
