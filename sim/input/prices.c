/* prices.c - see prices.h. */
#include "input/prices.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const cJSON *sku_obj(const pp_catalog *cat, const char *sku)
{
	const pp_jdoc *pd = pp_catalog_doc(cat, "prices");
	if (!sku || !pd || !pd->root)
		return NULL;
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pd->root, "skus"),
						sku);
}

const cJSON *pp_price_sku_map(const pp_catalog *cat)
{
	const pp_jdoc *td = pp_catalog_doc(cat, "tco");
	return td ? cJSON_GetObjectItemCaseSensitive(td->root, "gpu_price_skus") : NULL;
}

const char *pp_price_sku(const cJSON *sku_map, const pp_gpu *g)
{
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(sku_map, g->id);
	return cJSON_IsString(k) ? k->valuestring : NULL;
}

/* A tier's listing: its $/GPU-hour, or NAN when it does not count. */
static double listing_usd(const cJSON *t)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, "value");
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(t, "unit");
	if (!cJSON_IsNumber(v) || v->valuedouble <= 0 ||
	    (cJSON_IsString(u) && strcmp(u->valuestring, "usd_per_gpu_hour")))
		return NAN;
	return v->valuedouble;
}

int pp_price_lookup(const pp_catalog *cat, const cJSON *sku_map, const pp_gpu *g,
		    const char *provider, const char *tier, pp_price *out, pp_err *err)
{
	memset(out, 0, sizeof(*out));
	out->usd_per_gpu_hour = NAN;
	out->tier = tier && tier[0] ? tier : "on_demand";
	out->sku = pp_price_sku(sku_map, g);
	bool any = !provider || !provider[0];
	const cJSON *cloud =
		cJSON_GetObjectItemCaseSensitive(sku_obj(cat, out->sku), "cloud_prices");
	const cJSON *prov, *best = NULL;
	double best_usd = INFINITY;
	cJSON_ArrayForEach(prov, cloud)
	{
		if (!any && strcmp(prov->string, provider))
			continue;
		double usd = listing_usd(cJSON_GetObjectItemCaseSensitive(prov, out->tier));
		if (usd < best_usd) { /* false for NAN */
			best_usd = usd;
			best = prov;
		}
	}
	if (!best)
		return pp_errf(err, PP_ENOTFOUND, "prices.json has no %s%s%s price for %s",
			       out->tier, any ? "" : " ", any ? "" : provider, g->id);
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(best, out->tier);
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(t, "source");
	const cJSON *date = cJSON_GetObjectItemCaseSensitive(t, "date");
	out->usd_per_gpu_hour = best_usd;
	out->provider = best->string;
	out->source = cJSON_IsString(src) ? src->valuestring : NULL;
	out->date = cJSON_IsString(date) ? date->valuestring : NULL;
	out->estimate = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "estimate"));
	return 0;
}

bool pp_price_tiers(const pp_catalog *cat, const char *sku, const char *provider, pp_sb *tiers)
{
	const cJSON *cloud = cJSON_GetObjectItemCaseSensitive(sku_obj(cat, sku), "cloud_prices");
	const cJSON *prov = cJSON_GetObjectItemCaseSensitive(cloud, provider);
	const cJSON *it;
	cJSON_ArrayForEach(it, prov)
	{
		if (cJSON_IsObject(it))
			pp_sb_addf(tiers, "%s%s", tiers->len ? ", " : "", it->string);
	}
	return prov != NULL;
}

/* Append key to keys[*n] (growing *cap), unless unique and already there. */
static const char **keys_add(const char **keys, size_t *n, size_t *cap, const char *key,
			     bool unique)
{
	for (size_t i = 0; unique && i < *n; i++)
		if (!strcmp(keys[i], key))
			return keys;
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 32;
		keys = pp_xrealloc(keys, *cap * sizeof(*keys));
	}
	keys[(*n)++] = key;
	return keys;
}

const char **pp_price_providers(const pp_catalog *cat, size_t *n)
{
	*n = 0;
	const pp_jdoc *pd = pp_catalog_doc(cat, "prices");
	const cJSON *skus = pd ? cJSON_GetObjectItemCaseSensitive(pd->root, "skus") : NULL;
	size_t cap = 0;
	const char **keys = NULL;
	const cJSON *sku, *prov;
	cJSON_ArrayForEach(sku, skus)
	{
		cJSON_ArrayForEach(prov, cJSON_GetObjectItemCaseSensitive(sku, "cloud_prices"))
			keys = keys_add(keys, n, &cap, prov->string, true);
	}
	return keys;
}

const char **pp_price_api_keys(const pp_catalog *cat, size_t *n)
{
	*n = 0;
	const pp_jdoc *pd = pp_catalog_doc(cat, "prices");
	const cJSON *api = pd ? cJSON_GetObjectItemCaseSensitive(pd->root, "hosted_api") : NULL;
	const char *groups[] = {"fine_tuning_usd_per_1m_training_tokens", "inference_usd_per_1m_tokens"};
	size_t cap = 0;
	const char **keys = NULL;
	for (size_t g = 0; g < 2; g++) {
		const cJSON *it;
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(api, groups[g]))
		{
			if (cJSON_IsObject(it))
				keys = keys_add(keys, n, &cap, it->string, false);
		}
	}
	return keys;
}

double pp_price_rent_usd(double usd_per_gpu_hour, double gpus, double seconds)
{
	return usd_per_gpu_hour * gpus * seconds / 3600.0;
}
