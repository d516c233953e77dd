/*
 * sizespec.h - the "search" section of a scenario: what `podplan search`
 * prints and prices, and the options `podplan size` weighs (plan/size.h).
 * Parsed strictly as part of loading a scenario (scenario.h: nothing
 * downstream re-reads the file): unknown keys are errors with a
 * did-you-mean, every error names FILE:LINE:COL and the JSON path, what
 * was found and what was expected.
 *
 *   "search": {                                  (all keys optional)
 *     "top": 5,                                  layouts `podplan search` prints (1-1000)
 *     "gpus": ["a100-80gb", "h100-sxm"],         SKUs (catalog GPU ids) for `size`
 *     "num_gpus": [1024, 2048, 4096],            GPU counts for `size` (1-4194304)
 *     "fabrics": ["ib-hdr", "ib-ndr"],           inter-node fabrics (catalog ids) for `size`
 *     "provider": "lambda_8x", "tier": "on_demand",
 *     "usd_per_gpu_hour": {"h100-sxm": 2.49}     price overrides per SKU ($/GPU-hour, > 0)
 *   }
 * Each list holds 1 to PP_SIZE_MAX_LIST entries. The provider and tier are
 * checked against prices.json when a price is looked up (pp_size_price
 * below), as the GPU may come from elsewhere.
 */
#ifndef PP_SIZESPEC_H
#define PP_SIZESPEC_H

#include "input/catalog.h"
#include "core/jdoc.h"

#define PP_SIZE_MAX_LIST 32

typedef struct pp_size_spec {
	int top;                              /* 0 = not given */
	int ngpus, ncounts, nfabrics;         /* 0 = not given: size's defaults */
	const pp_gpu *gpus[PP_SIZE_MAX_LIST];
	int counts[PP_SIZE_MAX_LIST];
	const pp_fabric *fabrics[PP_SIZE_MAX_LIST]; /* inter-node fabrics only */
	char provider[64], tier[32];          /* "" = cheapest provider / on_demand */
	int nprices;
	const pp_gpu *price_gpu[PP_SIZE_MAX_LIST];
	double price_usd[PP_SIZE_MAX_LIST];   /* $ per GPU-hour of price_gpu[i] */
	unsigned schedules;                   /* search.pipeline_schedules: bit 1 << pp_schedule
						 of each the search may rank; 0 = not given */
} pp_size_spec;

/* obj is the "search" object at JSON path `path` of d (NULL when absent:
 * every field zero, all defaults). cat resolves the GPU and fabric ids;
 * the pointers point into it. PP_EINPUT with file:line:col and the JSON
 * path for bad values or unknown keys. Nothing is allocated. */
int pp_size_spec_parse(pp_size_spec *spec, const pp_jdoc *d, const cJSON *obj, const char *path,
		       const pp_catalog *cat, pp_err *err);

/* $/GPU-hour for SKU g: the spec's search.usd_per_gpu_hour, else
 * pp_price_lookup() (input/prices.h: prices.json through the catalog's
 * tco.json gpu_price_skus, both read once with the catalog) at the spec's
 * provider and tier; with where it came from in what[n] ("lambda_8x
 * on_demand, lambda_2026, 2026-09-20"). PP_ENOTFOUND when the catalog has
 * no such price. `podplan size` prices its options with it, `podplan
 * search` and `podplan serve --search` their layouts. */
int pp_size_price(const pp_catalog *cat, const pp_size_spec *spec, const pp_gpu *g, double *usd,
		  char *what, size_t n, pp_err *err);

#endif
