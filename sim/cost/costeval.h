/*
 * costeval.h - pricing resolved options; private to sim/cost/. Includes
 * costopt.h (and through it costdata.h); cost.c includes it.
 */
#ifndef PP_COSTEVAL_H
#define PP_COSTEVAL_H

#include "cost/costopt.h"

#define MAX_GROUPS 64

/* One Monte Carlo draw (or the base case: every factor 1). Each field
 * multiplies its input for one evaluation. */
typedef struct draw {
	double step;                   /* predicted step time */
	double price;                  /* the option's rent or API price */
	double capex;                  /* server prices */
	double failures;               /* failure rate */
	double demand;                 /* tokens wanted a month (not PP_WORK_RUN) */
	double electricity;            /* $ per kWh */
} draw;

/* One option priced under one draw. Money undiscounted. */
typedef struct ev {
	double total_usd;              /* full view: the sum of comp_usd */
	double comp_usd[PP_CC_COUNT];  /* its components (pp_cost_comp) */
	double marginal_usd, amortized_usd; /* the other two views (cost.h) */
	double gpu_hours;              /* GPU-hours used over the window */
	double time_to_train_s;        /* one run or job, with goodput; NAN when not one */
	double goodput;                /* useful fraction of wall time */
	double checkpoint_interval_s;  /* the interval goodput used */
	double replicas;               /* clusters needed to keep up */
	double tokens;                 /* useful tokens over the horizon */
	double window_months;          /* from order (or start) to the end of the work/horizon */
	int nmonths;                   /* months of the cash schedule: ceil(window_months) */
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
