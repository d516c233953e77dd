/*
 * costint.h - what the files of the TCO engine share (cost.c, costopt.c,
 * costeval.c, costtext.c): the resolved run, the resolved options, one
 * Monte Carlo draw, one evaluation. Internal to the cost module: nothing
 * outside sim/cost*.c includes it; the public interface is cost.h.
 */
#ifndef PP_COSTINT_H
#define PP_COSTINT_H

#include "cost/cost.h"
#include "cost/finance.h"
#include "cost/goodput.h"
#include "cost/montecarlo.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

extern const char *const pp_cost_tier_keys[];

enum { TIER_OD, TIER_R1, TIER_R3, TIER_SPOT, TIER_CB, TIER_OWN, TIER_API };

#define MAX_GROUPS 64

/* Everything resolved once per run. */
typedef struct ctx {
	const pp_scenario *s;
	const pp_catalog *cat;
	const pp_costspec *cs;
	pp_cost_result *r;
	pp_jdoc tco;
	const cJSON *prices;
	int rc;
	pp_err *err;
	/* work */
	int work;
	double runs, train_tokens, tokens_per_job, jobs_per_month, tokens_per_month, output_fraction;
	double cap_tokens_pm;
	double horizon_m;
	bool horizon_given;
	double params;
	/* finance */
	double disc, dep_years, salvage, fleet_util, ooms;
	int residual;
	/* goodput */
	bool goodput;
	double fail, fail_lo, fail_hi, restart_s, interval_s, write_override, setup_s;
	double spot_node_h, spot_reacquire_s, spot_max_nodes;
	/* build */
	int facility;
	double pue, kwh, kwh_lo, kwh_hi, colo, support, software, staff_usd, lead_m, integ, haircut;
	double idle_frac, draw_frac, gpus_per_fte, min_fte, buy_usd_per_tb, min_tb, ckpts_kept;
	/* rent */
	double rent_tb_usd, rent_fte_per_1000;
	/* inference, qlora */
	double inf_ref_params, inf_eff, inf_peak;
	double q_bits, q_rank, q_adapter_bytes, q_dequant;
	/* uncertainty */
	double sig_step, sig_price, sig_price_est, sig_capex_min, dem_lo, dem_hi, stale_months;
	int as_of_y, as_of_m;
} ctx;

/* One option, resolved. */
typedef struct oin {
	const pp_costspec_option *spec;
	int kind, tier, method;
	bool owned;
	double rate, rate_sigma, commit_m;
	const pp_gpu *gpu;
	int n, nodes, gpn, group;
	bool feasible;
	char why[256];
	double tok_s, step_s, mfu, mem, cap, ckpt_bytes, ckpt_write_s, ckpt_load_s;
	pp_breakdown bd;    /* step_s's parts (reports' step-time chart) */
	double inf_tok_s;
	/* owned */
	double server_usd, server_kw, servers, net_usd, switch_kw, tb, capex_sigma, fte, lead_m;
	int nswitches, nlinks, tiers;
	/* api */
	double api_usd_per_mtok, api_sigma;
} oin;

/* One Monte Carlo draw (or the base case: every factor 1). */
typedef struct draw {
	double step, price, capex, fail, demand, kwh;
} draw;

typedef struct ev {
	double total, comp[PP_CC_COUNT], marginal, amortized, gpu_hours, ttt, goodput, interval_s;
	double replicas, tokens, window_m, used_gpu_h_per_year_avail;
	int nm;
} ev;

typedef struct netplan {
	int endpoints, switches, links, tiers;
} netplan;

/* Helpers (cost.c): failing on bad catalog data, warnings, figures from
 * prices.json and tco.json (each recorded in the result's sources with its
 * date), the scenario's price for a SKU, LoRA parameter counts. */
int cost_fail_data(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cost_warnf(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const cJSON *cost_jpath(const cJSON *root, const char *path);
void cost_add_source(ctx *c, const char *item, double value, const char *unit, const char *src,
		     const char *kind, const char *date, bool estimate);
double cost_tco(ctx *c, const char *path, const char *unit);
double cost_pfig(ctx *c, const cJSON *f, const char *item, const char *unit, bool *estimate);
double cost_pick(double given, double dflt);
const cJSON *cost_sku_of(ctx *c, const pp_gpu *g, const char **sku_name);
double cost_lora_params(const pp_model *m, double rank);
/* A folded-Clos (fat tree) over endpoints NIC ports of switches of radix. */
void cost_plan_network(int endpoints, int radix, double oversub, netplan *np);

/* costopt.c: resolve option idx (overrides, engine, prices, owned parts). */
int cost_resolve_option(ctx *c, const pp_cost_opts *opts, int idx, oin *o, pp_cost_option *out);
int cost_run_engine(ctx *c, const pp_cost_opts *opts, const pp_costspec_option *sp, oin *o,
		    pp_scenario *x);

/* costeval.c: price option o under draw d (monthly cumulative cost into cum
 * when given), Monte Carlo, tornado. */
void cost_evaluate(const ctx *c, const oin *o, const draw *d, bool with_goodput, ev *e,
		   double *cum, int cum_n);
double cost_residual_fraction(const ctx *c, double age_years, double haircut);
int cost_group_of(const oin *oi, int n, int i);
void cost_monte_carlo(ctx *c, oin *oi, int n, unsigned long seed, int draws);
void cost_tornado(ctx *c, oin *oi, int rec, int ru);

/* costtext.c: the recommendation and the work, in words. */
void cost_recommend(ctx *c, int rec, int ru);
void cost_describe_work(ctx *c);

/* The base case: every uncertainty factor 1. */
extern const draw cost_base_draw;

#endif
