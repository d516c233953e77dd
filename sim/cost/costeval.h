/*
 * costeval.h - pricing resolved options: one option under one draw of the
 * uncertain inputs, over a monthly schedule, in closed form (no
 * re-simulation), so the Monte Carlo and the tornado re-run it cheaply.
 * Private to sim/cost/. Includes costopt.h (for oin, and costdata.h
 * through it); cost.c includes it.
 */
#ifndef PP_COSTEVAL_H
#define PP_COSTEVAL_H

#include "cost/costopt.h"

#define MAX_GROUPS 64 /* options that share Monte Carlo draws (costspec: at most 64 options) */

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
	int nmonths;                   /* months of the cash schedule: ceil(window_months), or to
					  the end of the last commitment when that is later */
	double contract_usd;           /* reserved tiers: the contract's cost (draw-independent) */
	double capex_usd;              /* owned: servers, network, storage, installation (month 0) */
} ev;

/* Price o under d into e; with cum (cum_n entries), the cumulative
 * undiscounted cash at the start (cum[0], capex) and the end of each
 * month. without goodput: as if nothing failed (the lost work is the
 * difference). */
void cost_evaluate(const ctx *c, const oin *o, const draw *d, bool with_goodput, ev *e,
		   double *cum, int cum_n);
/* The terms every evaluation shares, from c's resolved assumptions
 * (costdata.h: life_annuity, life_residual); call once after
 * cost_ctx_resolve, before any cost_evaluate. */
void cost_eval_prepare(ctx *c);
/* Value of owned hardware after age_years, as a fraction of its price:
 * book value (finance.residual "book") or market value less haircut. */
double cost_residual_fraction(const ctx *c, double age_years, double haircut);
/* The Monte Carlo group of option i: the first earlier option on the same
 * GPU, calibrated alike, shares its step-time and capex draws. */
int cost_group_of(const oin *oi, int n, int i);
/* draws Monte Carlo draws of every option (seeded; the same draw is the
 * same inputs for every option): each option's samples, P10/P50/P90, mean
 * and share of draws it is the cheapest feasible in, into c->r. */
void cost_monte_carlo(ctx *c, oin *oi, int n, unsigned long seed, int draws);
/* One-at-a-time sensitivity of option rec (against the runner-up ru, -1:
 * none) at the P10 and P90 of each uncertain input, sorted by swing, into
 * c->r->tornado. */
void cost_tornado(ctx *c, oin *oi, int rec, int ru);

/* The base case: every uncertainty factor 1. */
extern const draw cost_base_draw;

#endif
