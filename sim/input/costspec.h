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

#include "input/costoption.h"
#include "input/finetune.h"
#include "core/jdoc.h"
#include "core/pp.h"
#include <stdbool.h>

typedef enum pp_work_type {
	PP_WORK_RUN,        /* train_tokens, `runs` times back to back */
	PP_WORK_RECURRING,  /* tokens_per_job, jobs_per_month (a weekly fine-tune: 4.35/month) */
	PP_WORK_CAPACITY,   /* steady training: gpu_hours_per_month of the scenario's cluster */
	PP_WORK_INFERENCE,  /* serving input and output tokens a month */
	PP_WORK_COUNT
} pp_work_type;
extern const char *const pp_work_type_names[PP_WORK_COUNT];

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
 * goodput on, method full. It touches neither present, work nor options
 * (an option's own: costoption.h). */
void pp_costspec_defaults(pp_costspec *cs);

#endif
