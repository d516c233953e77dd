/*
 * costspec.h - the "costs" section of a scenario: the work to be priced,
 * the options to price it with (rent, build, hosted API, one 8-GPU node),
 * and the finance, goodput, facility and uncertainty assumptions that
 * override the catalogs' defaults. Parsed strictly as part of loading a
 * scenario: unknown keys are errors with a did-you-mean, every error names
 * FILE:LINE:COL and the JSON path.
 *
 *   "costs": {
 *     "work": {"type": "run", "train_tokens": 2e12, "runs": 1},
 *       (or {"type": "inference", "input_tokens_per_month": 7e9,
 *            "output_tokens_per_month": 3e9, "peak_to_average": 2}: the
 *        scenario's "serving", "workload" and "slo" sections give the
 *        throughput)
 *     "horizon_months": 36,
 *     "finance": {"discount_rate": 0.12, "depreciation_years": 5, ...},
 *     "goodput": {"failures_per_gpu_hour": 2e-5, "restart_s": 900, ...},
 *     "build": {"facility": "colocation", "pue": 1.25, ...},
 *     "rent": {"storage_usd_per_tb_month": 145, ...},
 *     "uncertainty": {"draws": 10000, "seed": 1, ...},
 *     "options": [
 *       {"name": "rent-h100", "kind": "rent", "provider": "lambda_8x", "tier": "on_demand"},
 *       {"name": "build-h200", "kind": "build", "cluster": {"gpu": "h200"}},
 *       {"name": "api", "kind": "api", "price": "fireworks_lora_sft_le16B"},
 *       {"name": "box", "kind": "tier4", "own": true,
 *        "cluster": {"gpu": "rtx4090", "num_gpus": 8}, "method": "qlora"}]
 *   }
 *
 * The full key reference is in README.md ("Costs"). Values not given are
 * NAN (numbers) or 0/-1 (counts, enums) and the cost engine fills them from
 * models/prices.json and models/tco.json. Catalog ids (GPU, fabric,
 * storage, provider, API price) are checked here; whether a provider has a
 * price for the option's GPU and tier is checked when pricing (the GPU may
 * come from the scenario's cluster).
 */
#ifndef PP_COSTSPEC_H
#define PP_COSTSPEC_H

#include "core/jdoc.h"
#include "core/pp.h"
#include <stdbool.h>

typedef struct pp_catalog pp_catalog;
typedef struct pp_gpu pp_gpu;
typedef struct pp_fabric pp_fabric;
typedef struct pp_storage pp_storage;

typedef enum pp_work_type {
	PP_WORK_RUN,        /* train_tokens, `runs` times back to back */
	PP_WORK_RECURRING,  /* tokens_per_job, jobs_per_month (a weekly fine-tune: 4.35/month) */
	PP_WORK_CAPACITY,   /* steady training: gpu_hours_per_month of the scenario's cluster */
	PP_WORK_INFERENCE,  /* serving input and output tokens a month */
	PP_WORK_COUNT
} pp_work_type;
extern const char *const pp_work_type_names[PP_WORK_COUNT];

typedef enum pp_ft_method {
	PP_FT_FULL,   /* every weight trained (pretraining, full fine-tune) */
	PP_FT_LORA,   /* frozen bf16 base, LoRA adapters */
	PP_FT_QLORA,  /* frozen 4-bit NF4 base, LoRA adapters (Dettmers et al. 2023) */
	PP_FT_AUTO,   /* full when it fits in memory, else qlora */
	PP_FT_COUNT
} pp_ft_method;
extern const char *const pp_ft_method_names[PP_FT_COUNT];

/* How a reserved tier's commitment is paid: all of it when it starts, part
 * then and the rest monthly, or in equal monthly instalments over its term
 * (the total is the same; only when it is paid differs). */
typedef enum pp_payment {
	PP_PAY_UPFRONT,
	PP_PAY_PARTIAL,
	PP_PAY_MONTHLY,
	PP_PAY_COUNT
} pp_payment;
extern const char *const pp_payment_names[PP_PAY_COUNT];

/* Cluster/layout overrides of one option; NULL / 0 / -1 = the scenario's. */
typedef struct pp_costspec_cluster {
	const pp_gpu *gpu;
	int num_gpus;
	int gpus_per_node;
	const pp_fabric *intra;
	const pp_fabric *inter;
	int nics_per_node;
	double oversubscription;      /* 0 = keep */
	int rail_optimized;           /* -1 keep, 0 fat tree, 1 rail-optimised */
	const pp_storage *storage;
	int tp, pp, cp, vpp;          /* 0 = keep (dp is re-derived from num_gpus) */
	int sequence_parallel;        /* -1 keep */
	int zero_stage;               /* -1 keep */
	int64_t micro_batch_size;     /* 0 = keep */
	int64_t global_batch_size;    /* 0 = keep (must stay divisible) */
	int recompute;                /* -1 keep, else pp_recompute */
} pp_costspec_cluster;

/* Options' kinds, as pp_option_kind in cost.h: 0 rent, 1 build, 2 api, 3 tier4. */
typedef struct pp_costspec_option {
	char name[64];
	int kind;
	char provider[64];            /* rent / tier4-rented: prices.json cloud_prices key */
	char tier[32];                /* on_demand | reserved_1y | reserved_3y | spot | capacity_block */
	char price[64];               /* api: hosted_api price key */
	bool own;                     /* tier4: bought (true) or rented */
	double usd_per_gpu_hour;      /* NAN = catalog */
	double server_usd;            /* NAN = catalog: price of one server */
	double commitment_months;     /* NAN = the tier's term */
	int payment;                  /* reserved tiers: pp_payment; -1 = the provider's default
					 (prices.json ops.reservation_payment) */
	double lead_time_months;      /* NAN = tco.json */
	double staff_fte;             /* NAN = rule of thumb */
	double inference_tokens_per_s_per_gpu; /* inference without a "serving" section: the
					  user's throughput (input and output tokens alike);
					  NAN = not given (an error then: nothing else
					  gives one) */
	int method;                   /* -1 = the work's */
	pp_costspec_cluster cluster;
	bool has_cluster;
	char path[48];                /* "costs.options[2]", for messages */
} pp_costspec_option;

typedef struct pp_costspec {
	bool present;
	/* work */
	pp_work_type work;
	double train_tokens;          /* run; NAN = training.train_tokens */
	double runs;                  /* run: 1 */
	double tokens_per_job, jobs_per_month;   /* recurring */
	double utilization;           /* capacity: busy share of the scenario's cluster */
	double gpu_hours_per_month;   /* capacity (alternative to utilization) */
	/* inference: the tokens served a month, input (prompts) and output
	 * (generated) apart - given so, or as tokens_per_month and
	 * output_fraction (default 0.5), from which the parser derives them;
	 * tokens_per_month is then their sum either way */
	double input_tokens_per_month, output_tokens_per_month;
	double tokens_per_month;
	double output_fraction;       /* as given (NAN: not given) */
	double peak_to_average;       /* busiest hour's demand over the month's mean; NAN = tco.json */
	pp_ft_method method;
	double horizon_months;        /* NAN = default */
	char as_of[16];               /* "" = tco.json as_of */
	/* finance */
	double discount_rate, depreciation_years, salvage_fraction, fleet_utilization;
	int residual;                 /* -1 default (market), 0 market, 1 book */
	/* finance.utilization_from: a cluster spec and a jobs file (podplan
	 * cluster) whose simulated utilisation replaces finance.utilization
	 * and, for a capacity work given none, work.utilization; paths
	 * resolved against the scenario's folder; "" = not given */
	char utilization_cluster[512], utilization_jobs[512];
	/* goodput */
	bool goodput;                 /* false: ignore failures and checkpoints */
	double failures_per_gpu_hour, restart_s, checkpoint_interval_s, checkpoint_write_s;
	double job_setup_s;
	/* build */
	int facility;                 /* -1 default, 0 colocation, 1 owned (energy only) */
	double pue, usd_per_kwh, colo_usd_per_kw_month, support_fraction;
	double software_usd_per_gpu_year;  /* NAN = 0 (not included) */
	double staff_usd_per_fte_year, lead_time_months, storage_tb, integration_fraction;
	double resale_haircut;
	/* rent */
	double storage_usd_per_tb_month;
	/* uncertainty */
	int draws;                    /* -1 = default */
	bool seed_given;
	unsigned long seed;
	double step_time_sigma, price_sigma;
	pp_costspec_option *options;
	int noptions;
} pp_costspec;

/* obj is the "costs" object at JSON path `path` of d (NULL when absent:
 * cs->present = false, nothing else is set). cat resolves catalog ids. */
int pp_costspec_parse(pp_costspec *cs, const pp_jdoc *d, const cJSON *obj, const char *path,
		      const pp_catalog *cat, pp_err *err);
void pp_costspec_release(pp_costspec *cs);
/* What "not given" is, for a costs section or an option built in code
 * (podplan size builds one): NAN numbers, -1 counts and enums, 1 run,
 * goodput on, method full. Neither touches present, work or options. */
void pp_costspec_defaults(pp_costspec *cs);
void pp_costspec_option_defaults(pp_costspec_option *o);

#endif
