/*
 * costown.c - what an owned option is made of (costown.h): servers (price,
 * power, the spread of their prices), the fabric derived from the cluster
 * size (a folded-Clos fat tree) and its prices, staff and lead time.
 */
#include "cost/costown.h"

/* ---- network: a folded-Clos (fat tree) over the NIC ports ---- */

typedef struct netplan {
	int endpoints, switches, links, tiers;
} netplan;

/* Leaves take `down` endpoints each (down:up = oversubscription:1); two
 * tiers while the spines can reach every leaf (leaves <= radix), else a
 * three-tier Clos whose upper tiers are non-blocking. Rail-optimised
 * wiring uses the same switch count (rails are leaf groups). */
static void plan_network(int endpoints, int radix, double oversub, netplan *np)
{
	memset(np, 0, sizeof(*np));
	np->endpoints = endpoints;
	if (endpoints <= 0 || radix <= 1)
		return;
	if (endpoints <= radix) {
		np->switches = 1;
		np->links = endpoints;
		np->tiers = 1;
		return;
	}
	int down = (int)floor(radix * oversub / (1.0 + oversub));
	if (down < 1)
		down = 1;
	if (down >= radix)
		down = radix - 1;
	int up = radix - down;
	int leaves = (endpoints + down - 1) / down;
	if (leaves <= radix) {
		int spines = (leaves * up + radix - 1) / radix;
		np->switches = leaves + spines;
		np->links = endpoints + leaves * up;
		np->tiers = 2;
		return;
	}
	int half = radix / 2;
	int aggs = (leaves * up + half - 1) / half;
	int cores = (aggs * half + radix - 1) / radix;
	np->switches = leaves + aggs + cores;
	np->links = endpoints + leaves * up + aggs * half;
	np->tiers = 3;
}

/* The server of an option that gives its own "server_usd" for a GPU whose
 * prices.json SKU has no server: that price for one node of the cluster,
 * whose power is its GPUs' TDP times prices.json's chip-to-server power
 * multiplier for GPUs other than A100/H100 (Epoch's (server kW / 8) / chip
 * kW), an estimate. */
static int option_server(ctx *c, const pp_costspec_option *sp, oin *o, double *price, double *kw,
			 double *gpus, bool *est)
{
	const char *path = "facility.chip_to_server_power_multiplier";
	const cJSON *m = cost_jpath(c->prices, path);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "other_gpu");
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(m, "source");
	if (!cJSON_IsNumber(v) || v->valuedouble <= 0)
		return cost_fail_data(c, "models/prices.json: %s needs a positive other_gpu", path);
	*price = sp->server_usd;
	*gpus = o->gpus_per_node;
	*kw = o->gpu->tdp_w / 1000.0 * o->gpus_per_node * v->valuedouble;
	*est = true;
	char item[160];
	snprintf(item, sizeof(item), "%s node max power (%d x %.0f W TDP x %.2f chip-to-server)",
		 o->gpu->id, o->gpus_per_node, o->gpu->tdp_w, v->valuedouble);
	cost_add_source(c, item, *kw, "kw", cJSON_IsString(src) ? src->valuestring : NULL, "prices",
			NULL, true);
	return 0;
}

/* An owned option's server: price, max power and GPUs per server from
 * tco.json's servers.<gpu> (an estimate) when it has one, else the SKU's
 * server in prices.json (with the capex sigma of its alternative prices),
 * else the option's own server_usd (option_server). */
static int server_parts(ctx *c, const pp_costspec_option *sp, const char *skuname,
			const cJSON *sku, oin *o, double *price, double *kw, double *gpus, bool *est)
{
	char item[160];
	const cJSON *srv = cost_jpath(cost_jpath(c->tco->root, "servers"), o->gpu->id);
	*est = false;
	if (srv) {
		char p2[96];
		snprintf(p2, sizeof(p2), "servers.%s.price_usd", o->gpu->id);
		*price = cost_tco(c, p2, "usd");
		snprintf(p2, sizeof(p2), "servers.%s.max_power_kw", o->gpu->id);
		*kw = cost_tco(c, p2, "kw");
		*gpus = cJSON_GetObjectItemCaseSensitive(srv, "gpus")->valuedouble;
		*est = true;
		return 0;
	}
	const cJSON *sv = cJSON_GetObjectItemCaseSensitive(sku, "server");
	if (!cJSON_IsObject(sv) && !isnan(sp->server_usd))
		return option_server(c, sp, o, price, kw, gpus, est);
	if (!cJSON_IsObject(sv))
		return pp_jdoc_errf(&c->s->doc, c->err, sp->path, "option \"%s\": no public price to "
				    "build with %s (prices.json skus.%s has no server); expected "
				    "\"server_usd\" on the option (one node of %d GPUs)", sp->name,
				    o->gpu->id, skuname, o->gpus_per_node);
	const cJSON *pv = cJSON_GetObjectItemCaseSensitive(sv, "price_usd");
	const cJSON *kv = cJSON_GetObjectItemCaseSensitive(sv, "max_power_kw");
	const cJSON *gv = cJSON_GetObjectItemCaseSensitive(sv, "gpus");
	if (!cJSON_IsNumber(pv) || !cJSON_IsNumber(kv) || !cJSON_IsNumber(gv))
		return cost_fail_data(c, "models/prices.json: skus.%s.server needs price_usd, "
				      "max_power_kw and gpus", skuname);
	*price = pv->valuedouble;
	*kw = kv->valuedouble;
	*gpus = gv->valuedouble;
	*est = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sv, "estimate"));
	const cJSON *ps = cJSON_GetObjectItemCaseSensitive(sv, "price_source");
	const cJSON *pd = cJSON_GetObjectItemCaseSensitive(sv, "price_date");
	snprintf(item, sizeof(item), "%s server price", skuname);
	cost_add_source(c, item, *price, "usd", cJSON_IsString(ps) ? ps->valuestring : NULL,
			"prices", cJSON_IsString(pd) ? pd->valuestring : NULL, *est);
	const cJSON *ks = cJSON_GetObjectItemCaseSensitive(sv, "max_power_source");
	snprintf(item, sizeof(item), "%s server max power", skuname);
	cost_add_source(c, item, *kw, "kw", cJSON_IsString(ks) ? ks->valuestring : NULL, "prices",
			NULL,
			cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sv, "max_power_estimate")));
	/* the server-price spread of its alternative prices, taken as P10-P90 */
	double lo = *price, hi = *price;
	const cJSON *alt;
	cJSON_ArrayForEach(alt, cJSON_GetObjectItemCaseSensitive(sv, "alt_prices"))
	{
		const cJSON *av = cJSON_GetObjectItemCaseSensitive(alt, "value");
		if (cJSON_IsNumber(av)) {
			lo = fmin(lo, av->valuedouble);
			hi = fmax(hi, av->valuedouble);
		}
	}
	o->capex_sigma = cost_sigma_of_range(lo, hi);
	return 0;
}

/* An owned multi-node cluster's fabric: a fat tree over its NIC ports,
 * priced from tco.json's network.<fabric>. */
static int owned_network(ctx *c, const pp_cluster *cl, oin *o)
{
	const pp_fabric *fab = cl->inter;
	char p2[96];
	netplan np;
	plan_network(o->nodes * cl->nics_per_node, fab->switch_ports, cl->oversubscription, &np);
	snprintf(p2, sizeof(p2), "network.%s", fab->id);
	if (!cost_jpath(c->tco->root, p2))
		return cost_fail_data(c, "%s: no network prices for fabric \"%s\"", c->tco->path,
				      fab->id);
	snprintf(p2, sizeof(p2), "network.%s.switch_usd", fab->id);
	double sw = cost_tco(c, p2, "usd");
	snprintf(p2, sizeof(p2), "network.%s.link_usd", fab->id);
	double ln = cost_tco(c, p2, "usd");
	snprintf(p2, sizeof(p2), "network.%s.nic_usd", fab->id);
	double nic = cost_tco(c, p2, "usd");
	snprintf(p2, sizeof(p2), "network.%s.switch_power_w", fab->id);
	double swp = cost_tco(c, p2, "w");
	o->network_usd = np.switches * sw + np.links * ln + np.endpoints * nic;
	o->switch_kw = np.switches * swp / 1000.0;
	o->net_switches = np.switches;
	o->net_links = np.links;
	o->net_tiers = np.tiers;
	return 0;
}

int cost_resolve_owned(ctx *c, const pp_costspec_option *sp, const char *skuname,
		       const cJSON *sku, const pp_cluster *cl, oin *o, pp_cost_option *out)
{
	int rc;
	o->tier = TIER_OWN;
	snprintf(out->provider, sizeof(out->provider), "own");
	snprintf(out->tier, sizeof(out->tier), "own");
	double price = 0, kw = 0, gpus = 0;
	bool est = false;
	if ((rc = server_parts(c, sp, skuname, sku, o, &price, &kw, &gpus, &est)))
		return rc;
	double per_gpu = price / gpus;
	o->server_usd = isnan(sp->server_usd) ? per_gpu * o->gpus_per_node : sp->server_usd;
	o->server_kw = kw / gpus * o->gpus_per_node;
	o->num_servers = o->nodes;
	o->capex_sigma = fmax(o->capex_sigma, est ? c->price_sigma_estimate : c->capex_sigma_min);
	if (o->nodes > 1 && (rc = owned_network(c, cl, o)))
		return rc;
	double gpus_all = o->num_gpus;
	o->staff_fte = isnan(sp->staff_fte) ? fmax(c->min_fte, gpus_all / c->gpus_per_fte)
					    : sp->staff_fte;
	o->lead_time_months = cost_pick(sp->lead_time_months, c->lead_time_months);
	return 0;
}

bool cost_can_own(ctx *c, const pp_gpu *g, const pp_fabric *inter, bool multinode)
{
	char p2[96];
	if (multinode) {
		snprintf(p2, sizeof(p2), "network.%s", inter->id);
		if (!cost_jpath(c->tco->root, p2))
			return false;
	}
	if (cost_jpath(cost_jpath(c->tco->root, "servers"), g->id))
		return true;
	const char *skuname = NULL;
	const cJSON *sku = cost_sku_of(c, g, &skuname);
	const cJSON *sv = cJSON_GetObjectItemCaseSensitive(sku, "server");
	return cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(sv, "price_usd")) &&
	       cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(sv, "max_power_kw")) &&
	       cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(sv, "gpus"));
}
