/*
 * costown.h - the parts of an owned option (build, or an owned tier4
 * node); private to sim/cost/. Includes costopt.h for the resolved option;
 * costopt.c (and costweigh.c, whether a cluster can be owned) call it, it
 * calls only costdata.c.
 */
#ifndef PP_COSTOWN_H
#define PP_COSTOWN_H

#include "cost/costopt.h"

/* Fill o's owned parts for option sp on cluster cl (GPU o->gpu, prices.json
 * SKU sku named skuname): one server's price and power (tco.json's
 * servers.<gpu>, else the SKU's server), the capex sigma, the fat tree of
 * a multi-node cluster and its prices, staff and lead time; out's
 * provider and tier "own". Bad catalog data fails through
 * cost_fail_data(). */
int cost_resolve_owned(ctx *c, const pp_costspec_option *sp, const char *skuname,
		       const cJSON *sku, const pp_cluster *cl, oin *o, pp_cost_option *out);

/* Whether a cluster of GPU g can be priced as owned: a server price and
 * power for g (tco.json servers.<gpu>, else its prices.json SKU's server)
 * and, across nodes, network prices for fabric inter (tco.json
 * network.<fabric>). */
bool cost_can_own(ctx *c, const pp_gpu *g, const pp_fabric *inter, bool multinode);

#endif
