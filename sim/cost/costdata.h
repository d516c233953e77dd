/*
 * costdata.h - the run context of the TCO engine, private to sim/cost/
 * (the public interface is cost.h). The lowest file of the family:
 * costopt.c, costeval.c, costtext.c and cost.c include it; it includes
 * none of them.
 */
#ifndef PP_COSTDATA_H
#define PP_COSTDATA_H

#include "cost/cost.h"
#include "cost/finance.h"
#include "cost/goodput.h"
#include "cost/montecarlo.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

/* The work and every assumption of c's run (c->s, c->cs, c->tco and
 * c->prices set). PP_EINPUT for a work that cannot be priced or a missing
 * figure. */
int cost_ctx_resolve(ctx *c);

/* Helpers: failing on bad catalog data, warnings, figures from
 * prices.json and tco.json (each recorded in the result's sources with its
 * date), the scenario's price for a SKU. */
int cost_fail_data(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cost_warnf(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const cJSON *cost_jpath(const cJSON *root, const char *path);
void cost_add_source(ctx *c, const char *item, double value, const char *unit, const char *src,
		     const char *kind, const char *date, bool estimate);
double cost_tco(ctx *c, const char *path, const char *unit);
double cost_pfig(ctx *c, const cJSON *f, const char *item, const char *unit, bool *estimate);
double cost_pick(double given, double dflt);
const cJSON *cost_sku_of(ctx *c, const pp_gpu *g, const char **sku_name);

#endif
