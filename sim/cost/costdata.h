/*
 * costdata.h - the run context of the TCO engine, private to sim/cost/
 * (the public interface is cost.h). The family, each file calling
 * functions only of those below it:
 *   costweigh.c the clusters `podplan size` found, priced by the run
 *   cost.c      the run (pp_cost_run)
 *   costeval.c  pricing an option under a draw, Monte Carlo, tornado
 *   costtext.c  the recommendation in words
 *   costopt.c   resolving an option (engine, API and rent prices)
 *   costserve.c an inference option's replica through podplan serve
 *   costown.c   an owned option's servers, fabric and staff
 *   costdata.c  this context, the figure readers, sources and warnings
 *   costcluster.c the utilisation from a cluster simulation (sim/cluster/)
 * Only a type goes the other way: costown.h includes costopt.h for the
 * resolved option (oin).
 */
#ifndef PP_COSTDATA_H
#define PP_COSTDATA_H

#include "cost/cost.h"
#include "cost/finance.h"
#include "cost/goodput.h"
#include "cost/montecarlo.h"
#include "input/prices.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The longest cash schedule an option may need (1000 years, months): an
 * option whose work outlasts it cannot do the work; and the most month
 * evaluations (the options' months x the uncertainty draws) one `cost`
 * makes, checked before the draws (about 17 million a second measured on
 * the build machine: 1e8 is about 6 s). */
#define PP_COST_MAX_MONTHS 12000
#define PP_COST_LIMIT_MONTH_DRAWS 1e8

/*
 * Everything resolved once per run. Units are in the names (README,
 * "Costs"): _usd US dollars, _s seconds, _months months of
 * PP_SECONDS_PER_MONTH, _kw kilowatts, _tb terabytes (1e12 bytes), _fte
 * full-time staff; _fraction and _factor are dimensionless (0..1, and a
 * multiplier of 1 at the base case); _sigma is the sigma of a lognormal
 * factor (ln units). Figures come from the scenario's costs section (cs)
 * when given, else from prices.json and tco.json (load_assumptions()),
 * each recorded in r->sources.
 */
typedef struct ctx {
	const pp_scenario *s;          /* the scenario (not owned) */
	const pp_catalog *cat;         /* the catalogs (not owned) */
	const pp_costspec *cs;         /* &s->costs */
	pp_cost_result *r;             /* the caller's result, filled as the run goes */
	const pp_jdoc *tco;            /* tco.json: the catalog's, or tco_own */
	pp_jdoc tco_own;               /* a tco_path's, owned: released by cost_ctx_close() */
	const cJSON *prices;           /* prices.json's root, inside cat */
	const cJSON *sku_map;          /* tco.json's gpu_price_skus: GPU id -> prices.json SKU */
	int rc;                        /* first error of cost_fail_data(), else 0 */
	pp_err *err;                   /* the caller's error buffer */
	/* the work (costs.work) */
	int work;                      /* pp_work_type */
	double runs;                   /* PP_WORK_RUN: runs back to back */
	double train_tokens;           /* tokens of one run (costs.work or training.train_tokens) */
	double tokens_per_job, jobs_per_month; /* PP_WORK_RECURRING */
	double tokens_per_month;       /* PP_WORK_INFERENCE: tokens served a month (input + output) */
	double input_tokens_per_month, output_tokens_per_month; /* of them, prompts and generated */
	double capacity_tokens_per_month; /* PP_WORK_CAPACITY: tokens the scenario's cluster trains */
	double horizon_months;         /* window every option is priced over */
	bool horizon_given;            /* costs.work.horizon_months given (else derived) */
	double model_params;           /* the model's parameters (a count): pp_model_params() */
	/* finance */
	double discount_rate_per_year; /* annual discount rate, fraction */
	double depreciation_years;     /* book life of owned hardware */
	double salvage_fraction;       /* book value at the end of its life, of cost */
	double fleet_utilization;      /* fraction of available GPU-hours used (amortized view) */
	double capacity_utilization;   /* PP_WORK_CAPACITY's busy share: costs.work.utilization or
					  the cluster simulation's (costcluster.c); NAN = neither */
	double market_decay_ooms_per_year; /* price-performance gain, orders of magnitude a year */
	int residual_book; /* 1: residual at book value, 0: market value less a haircut */
	/* of owned hardware at the end of its book life, which every draw's
	 * amortized view needs (cost_eval_prepare, costeval.h): the annuity at
	 * discount_rate_per_year over depreciation_years, and the residual
	 * fraction at that age less resale_haircut */
	pp_fin_annuity life_annuity;
	double life_residual;
	/* goodput */
	bool goodput_on;               /* price failures, checkpoints and restarts */
	double failures_per_gpu_hour;  /* base rate; _lo/_hi: its range (Monte Carlo, tornado) */
	double failures_per_gpu_hour_lo, failures_per_gpu_hour_hi;
	double restart_s;              /* detect + reschedule + warm-up after a failure */
	double checkpoint_interval_s;  /* NAN: the Young/Daly optimum */
	double checkpoint_write_s;     /* NAN: the engine's figure */
	double job_setup_s;            /* once per run or job */
	double spot_interruptions_per_node_hour;
	double spot_reacquire_s;       /* to get spot capacity back after an interruption */
	double spot_max_nodes;         /* more spot nodes at once cannot be counted on (obtainable) */
	/* build */
	int facility_owned;            /* 1: own facility (energy only), 0: colocation */
	double pue;                    /* power usage effectiveness: facility / IT energy, ratio */
	double usd_per_kwh;            /* electricity; _lo/_hi: its range */
	double usd_per_kwh_lo, usd_per_kwh_hi;
	double colo_usd_per_kw_month;  /* colocation, per kW provisioned */
	double support_fraction_per_year; /* maintenance and support, of capex a year */
	double software_usd_per_gpu_year;
	double staff_usd_per_fte_year; /* loaded cost; also the rent options' staff */
	double lead_time_months;       /* order to first step (an option may override) */
	double integration_fraction;   /* installation and integration, of hardware capex */
	double resale_haircut;         /* fraction of market value lost when selling */
	double idle_draw_fraction;     /* server power when idle, of its max power */
	double active_draw_fraction;   /* server power when training, of its max power */
	double gpus_per_fte, min_fte;  /* owned staffing: GPUs one engineer runs; a floor */
	double storage_buy_usd_per_tb; /* owned parallel file system */
	double storage_min_tb;         /* smallest shared file system */
	double checkpoints_kept;       /* checkpoints the file system holds (a count) */
	/* rent */
	double storage_rent_usd_per_tb_month;
	double rent_fte_per_1000_gpus; /* platform staff of a rented cluster */
	/* inference (PP_WORK_INFERENCE only) */
	double inference_peak_to_average; /* demand peak over its mean, ratio */
	const pp_cost_opts *opts;      /* the run's options (costserve.c: the curve, progress) */
	struct cost_serve_memo *serve_memo; /* replicas simulated, one per GPU and fabric (owned,
					   costserve.c) */
	int nserve_memo;
	struct cost_engine_memo *engine_memo; /* training steps predicted, one per scenario
						 (costopt.c: run_engine) */
	int nengine_memo;
	/* the calibration profile named: opts->hwcal, else own_hwcal (owned,
	 * loaded by cost_ctx_resolve for a scenario that names one) */
	const struct pp_hwcal *hwcal;
	struct pp_hwcal *own_hwcal;
	/* uncertainty */
	double step_sigma;             /* predicted step time, catalog hardware */
	double step_sigma_calibrated;  /* and on hardware the profile applies to (NAN until an
					  option is: cost_calibrated_sigma) */
	double price_sigma;            /* a quoted price */
	double price_sigma_estimate;   /* a price marked estimate (>= price_sigma) */
	double capex_sigma_min;        /* floor of an owned option's capex sigma */
	double demand_lo_factor, demand_hi_factor; /* triangular demand range around 1 */
	double stale_months;           /* a price older than this at as_of is warned about */
	int as_of_year, as_of_month;   /* r->as_of: prices are aged against it */
} ctx;

/* Start c's run of s: the prices and tco catalogs of cat (tco_path, when
 * not NULL, a tco.json read instead), results into r. PP_EIO when either
 * cannot be read. cost_ctx_close() releases what it holds, whether or not
 * this failed. */
int cost_ctx_open(ctx *c, const pp_scenario *s, const pp_catalog *cat, const char *tco_path,
		  pp_cost_result *r, pp_err *err);
void cost_ctx_close(ctx *c);

/* The calibration profile of c's run: given (opts->hwcal), else the one
 * c->s names, loaded (pp_hwcal_init; its errors), else none. Before
 * cost_ctx_resolve. */
int cost_ctx_calibration(ctx *c, const struct pp_hwcal *given);
/* The work and every assumption of c's run (c->s, c->cs, c->tco and
 * c->prices set). PP_EINPUT for a work that cannot be priced or a missing
 * figure. */
int cost_ctx_resolve(ctx *c);

/* Fail the run on bad data in the catalogs (not the user's scenario):
 * PP_EINPUT with the message, kept in c->rc; the first failure wins.
 * Returns c->rc. */
int cost_fail_data(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Add a warning sentence to the result, once (core/warn.h). */
void cost_warnf(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* costcluster.c: finance.utilization_from, when given, replaces the fleet
 * (and a capacity work's) utilisation with a cluster simulation's and
 * writes what it rests on into source (empty: not asked for), which the
 * caller books as a source. */
int cost_cluster_utilization(ctx *c, char *source, size_t n);
/* The member at dotted path ("facility.pue.other") below root; NULL when
 * absent. */
const cJSON *cost_jpath(const cJSON *root, const char *path);
/* Record a figure the run used in r->sources, once per item: src is a
 * source key of the document kind ("tco", "prices" or "models"), resolved to its
 * title and url; date as the file gives it (NULL: undated); its age at
 * as_of is computed here. */
void cost_add_source(ctx *c, const char *item, double value, const char *unit, const char *src,
		     const char *kind, const char *date, bool estimate);
/* Record the fine-tuning defaults a lora/qlora option's prediction used
 * (models.json finetune: the adapter rank; NF4's size for qlora). */
void cost_source_finetune(ctx *c, int method);
/* The {value, source, date, estimate} figure of tco.json at path, recorded
 * in the sources; NAN and cost_fail_data() when it is missing. */
double cost_tco(ctx *c, const char *path, const char *unit);
/* given, or dflt when given is NAN (not in the scenario). */
double cost_pick(double given, double dflt);
/* The lognormal sigma of a figure whose P10-P90 range is [lo, hi]. */
double cost_sigma_of_range(double lo, double hi);
/* The prices.json SKU object of catalog GPU g (its key in *sku_name),
 * through pp_price_sku(); NULL when tco.json maps g to none. */
const cJSON *cost_sku_of(ctx *c, const pp_gpu *g, const char **sku_name);

#endif
