/*
 * costopt.h - one cost option, resolved; private to sim/cost/. Includes
 * costdata.h only; costeval.c and cost.c include it.
 */
#ifndef PP_COSTOPT_H
#define PP_COSTOPT_H

#include "cost/costdata.h"

extern const char *const pp_cost_tier_keys[];

enum { TIER_OD, TIER_R1, TIER_R3, TIER_SPOT, TIER_CB, TIER_OWN, TIER_API };

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

typedef struct netplan {
	int endpoints, switches, links, tiers;
} netplan;

/* Resolve option idx (overrides, engine, prices, owned parts). */
int cost_resolve_option(ctx *c, const pp_cost_opts *opts, int idx, oin *o, pp_cost_option *out);
/* Steady training: tokens per month of the scenario's own cluster. */
int cost_capacity_tokens(ctx *c, const pp_cost_opts *opts);

#endif
