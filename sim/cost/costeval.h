/*
 * costeval.h - pricing resolved options; private to sim/cost/. Includes
 * costopt.h (and through it costdata.h); cost.c includes it.
 */
#ifndef PP_COSTEVAL_H
#define PP_COSTEVAL_H

#include "cost/costopt.h"

#define MAX_GROUPS 64

/* One Monte Carlo draw (or the base case: every factor 1). */
typedef struct draw {
	double step, price, capex, fail, demand, kwh;
} draw;

typedef struct ev {
	double total, comp[PP_CC_COUNT], marginal, amortized, gpu_hours, ttt, goodput, interval_s;
	double replicas, tokens, window_m, used_gpu_h_per_year_avail;
	int nm;
} ev;

/* Price option o under draw d (monthly cumulative cost into cum when
 * given), Monte Carlo, tornado. */
void cost_evaluate(const ctx *c, const oin *o, const draw *d, bool with_goodput, ev *e,
		   double *cum, int cum_n);
double cost_residual_fraction(const ctx *c, double age_years, double haircut);
int cost_group_of(const oin *oi, int n, int i);
void cost_monte_carlo(ctx *c, oin *oi, int n, unsigned long seed, int draws);
void cost_tornado(ctx *c, oin *oi, int rec, int ru);

/* The base case: every uncertainty factor 1. */
extern const draw cost_base_draw;

#endif
