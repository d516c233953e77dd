/*
 * prices.h - what renting a GPU costs: the one reader of prices.json's
 * cloud prices (skus.<sku>.cloud_prices.<provider>.<tier>), and the lists
 * of its provider and hosted API keys the scenario loader checks names
 * against. The rent price serves `podplan cost` (rent and rented tier4
 * options), `podplan size` and `podplan search` (both through
 * pp_size_price(), input/sizespec.h). prices.json and tco.json are read
 * once, with the catalog (catalog.h pp_catalog_doc).
 *
 * A catalog GPU id (gpus.json) maps to a prices.json SKU through tco.json's
 * gpu_price_skus; a SKU lists providers, each with the tiers it prices
 * (on_demand, reserved_1y, reserved_3y, spot, capacity_block), a tier as
 * {value, unit, source, date, estimate}. A listing counts when its value is
 * a number above 0 and its unit, when given, is usd_per_gpu_hour.
 *
 * Ownership: the strings a pp_price points to (but tier) live in the
 * catalog or in the map's document, and stay valid until they are freed.
 */
#ifndef PP_PRICES_H
#define PP_PRICES_H

#include "input/catalog.h"
#include "core/util.h"
#include <stdbool.h>

typedef struct pp_price {
	double usd_per_gpu_hour;
	const char *sku;       /* prices.json skus key of the GPU */
	const char *provider;  /* cloud_prices key: the one asked for, or the cheapest */
	const char *tier;      /* the caller's tier, or a static "on_demand" when none */
	const char *source;    /* the figure's source key (prices.json sources); NULL: none */
	const char *date;      /* as the file gives it; NULL: undated */
	bool estimate;
} pp_price;

/* tco.json's gpu_price_skus object (catalog GPU id -> prices.json SKU)
 * of cat's copy of tco.json, read once with the catalog; NULL when it has
 * none. Valid while cat is. */
const cJSON *pp_price_sku_map(const pp_catalog *cat);

/* The prices.json SKU of catalog GPU g through sku_map, tco.json's
 * gpu_price_skus object; NULL when it has no entry. */
const char *pp_price_sku(const cJSON *sku_map, const pp_gpu *g);

/* The $/GPU-hour of GPU g (mapped through sku_map) at tier (NULL or "":
 * on_demand) from provider (NULL or "": the cheapest provider listing that
 * tier; the first in the file on a tie) into *out. PP_ENOTFOUND, with
 * "prices.json has no <tier> [<provider>] price for <gpu>", when there is
 * no such listing (out->sku is then still set when g maps to a SKU). */
int pp_price_lookup(const pp_catalog *cat, const cJSON *sku_map, const pp_gpu *g,
		    const char *provider, const char *tier, pp_price *out, pp_err *err);

/* Whether provider lists SKU sku at all; appends the tiers it has an entry
 * for to tiers ("on_demand, spot"), for messages. */
bool pp_price_tiers(const pp_catalog *cat, const char *sku, const char *provider, pp_sb *tiers);

/* Every provider key of prices.json's cloud prices, each once, in file
 * order (for did-you-mean); *n of them. The array is the caller's to
 * free, the strings the catalog's. */
const char **pp_price_providers(const pp_catalog *cat, size_t *n);

/* Every hosted API price key of prices.json (hosted_api's fine-tuning,
 * then inference prices), in file order; allocation as above. */
const char **pp_price_api_keys(const pp_catalog *cat, size_t *n);

/* What gpus GPUs rented for seconds cost at usd_per_gpu_hour. */
double pp_price_rent_usd(double usd_per_gpu_hour, double gpus, double seconds);

#endif
