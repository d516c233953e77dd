/*
 * test_prices.c - what renting a GPU costs (input/prices.h), read from the
 * price fixture (tests/data/catalog/prices.json and tco.json through
 * pp_t_fixture_data), never from the live models/: every expected figure
 * below is read off the fixture by hand. H100 SXM on demand: AWS p5
 * $6.88, Azure $12.29, GCP $10.98, Lambda $3.99, CoreWeave $6.155, RunPod
 * $3.99; A100 80 GB: RunPod $1.79 the cheapest; L40S: CoreWeave lists no
 * reserved_1y (null).
 */
#include "harness.h"
#include "input/prices.h"
#include "input/sizespec.h"
#include "testutil.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The catalog's tco.json maps each catalog GPU to its prices.json SKU. */
static void sku_map_from_catalog(void)
{
	const pp_catalog *cat = tu_catalog();
	const cJSON *map = pp_price_sku_map(cat);
	CHECK(map != NULL);
	/* read once with the catalog: the same node every time */
	CHECK(map == pp_price_sku_map(cat));
	const char *sku = pp_price_sku(map, pp_catalog_gpu(cat, "h100-sxm"));
	CHECK(sku && !strcmp(sku, "H100-SXM-80GB"));
	sku = pp_price_sku(map, pp_catalog_gpu(cat, "a100-80gb"));
	CHECK(sku && !strcmp(sku, "A100-80GB-SXM"));
	CHECK(pp_price_sku(NULL, pp_catalog_gpu(cat, "h100-sxm")) == NULL);
}

/* No provider: the cheapest listing of the tier, the first in the file on
 * a tie (Lambda before RunPod at $3.99). */
static void cheapest_provider(void)
{
	const pp_catalog *cat = tu_catalog();
	const cJSON *map = pp_price_sku_map(cat);
	pp_price p;
	pp_err err = {0};
	CHECK(pp_price_lookup(cat, map, pp_catalog_gpu(cat, "h100-sxm"), NULL, NULL, &p, &err) == 0);
	CHECK(p.usd_per_gpu_hour == 3.99);
	CHECK(p.provider && !strcmp(p.provider, "lambda_8x"));
	CHECK(!strcmp(p.tier, "on_demand"));
	CHECK(p.source && !strcmp(p.source, "lambda_2026"));
	CHECK(p.date && !strcmp(p.date, "2026-09-20"));
	CHECK(!p.estimate);
	CHECK(pp_price_lookup(cat, map, pp_catalog_gpu(cat, "a100-80gb"), "", "", &p, &err) == 0);
	CHECK(p.usd_per_gpu_hour == 1.79);
	CHECK(p.provider && !strcmp(p.provider, "runpod"));
}

/* A named provider and tier: that listing, its estimate flag with it. */
static void named_provider_and_tier(void)
{
	const pp_catalog *cat = tu_catalog();
	const cJSON *map = pp_price_sku_map(cat);
	const pp_gpu *h100 = pp_catalog_gpu(cat, "h100-sxm");
	pp_price p;
	pp_err err = {0};
	CHECK(pp_price_lookup(cat, map, h100, "aws_p5.48xlarge", NULL, &p, &err) == 0);
	CHECK(p.usd_per_gpu_hour == 6.88);
	CHECK(!p.estimate);
	CHECK(pp_price_lookup(cat, map, h100, "aws_p5.48xlarge", "reserved_1y", &p, &err) == 0);
	CHECK(p.usd_per_gpu_hour == 4.06);
	CHECK(p.estimate);
	CHECK(!strcmp(p.tier, "reserved_1y"));
	CHECK(!strcmp(p.sku, "H100-SXM-80GB"));
}

/* No such listing: PP_ENOTFOUND naming the tier, provider and GPU; a null
 * tier does not count. */
static void not_found(void)
{
	const pp_catalog *cat = tu_catalog();
	const cJSON *map = pp_price_sku_map(cat);
	pp_price p;
	pp_err err = {0};
	CHECK(pp_price_lookup(cat, map, pp_catalog_gpu(cat, "h100-sxm"), "nosuch", NULL, &p, &err) ==
	      PP_ENOTFOUND);
	CHECK_CONTAINS(err.msg, "prices.json has no on_demand nosuch price for h100-sxm");
	CHECK(isnan(p.usd_per_gpu_hour));
	CHECK(p.sku && !strcmp(p.sku, "H100-SXM-80GB"));
	memset(&err, 0, sizeof(err));
	CHECK(pp_price_lookup(cat, map, pp_catalog_gpu(cat, "l40s"), "coreweave_8x", "reserved_1y",
			      &p, &err) == PP_ENOTFOUND);
	/* without the map no GPU has a SKU */
	CHECK(pp_price_lookup(cat, NULL, pp_catalog_gpu(cat, "h100-sxm"), NULL, NULL, &p, NULL) ==
	      PP_ENOTFOUND);
	CHECK(p.sku == NULL);
}

/* The tiers a provider has an entry for, and every provider once. */
static void tiers_and_providers(void)
{
	const pp_catalog *cat = tu_catalog();
	pp_sb sb = {0};
	CHECK(pp_price_tiers(cat, "H100-SXM-80GB", "aws_p5.48xlarge", &sb));
	CHECK(sb.buf && !strcmp(sb.buf, "on_demand, reserved_1y, reserved_3y, spot, capacity_block"));
	pp_sb_release(&sb);
	/* null tiers are not entries */
	CHECK(pp_price_tiers(cat, "L40S-48GB-PCIe", "coreweave_8x", &sb));
	CHECK(sb.buf && !strcmp(sb.buf, "on_demand"));
	pp_sb_release(&sb);
	CHECK(!pp_price_tiers(cat, "H100-SXM-80GB", "nosuch", &sb));
	pp_sb_release(&sb);
	size_t n = 0;
	const char **prov = pp_price_providers(cat, &n);
	int lambda = 0, runpod = 0;
	for (size_t i = 0; i < n; i++) {
		lambda += !strcmp(prov[i], "lambda_8x");
		runpod += !strcmp(prov[i], "runpod");
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(prov[i], prov[j]) != 0);
	}
	CHECK(lambda == 1 && runpod == 1);
	free(prov);
}

/* Rent: $/GPU-hour x GPUs x hours. */
static void rent(void)
{
	CHECK(pp_price_rent_usd(2.0, 8, 3600) == 16.0);
	CHECK_NEAR(pp_price_rent_usd(3.99, 64, 86400), 3.99 * 64 * 24, 1e-12);
	CHECK(pp_price_rent_usd(5, 1, 0) == 0);
}

/* The search section's price: its own override first, else the look-up
 * at its provider and tier, with where the figure came from. */
static void size_price(void)
{
	const pp_catalog *cat = tu_catalog();
	pp_size_spec spec;
	memset(&spec, 0, sizeof(spec));
	const pp_gpu *h100 = pp_catalog_gpu(cat, "h100-sxm"), *l40s = pp_catalog_gpu(cat, "l40s");
	spec.nprices = 1;
	spec.price_gpu[0] = l40s;
	spec.price_usd[0] = 0.9;
	double usd = 0;
	char what[200];
	pp_err err = {0};
	CHECK(pp_size_price(cat, &spec, l40s, &usd, what, sizeof(what), &err) == 0);
	CHECK(usd == 0.9);
	CHECK(!strcmp(what, "scenario search.usd_per_gpu_hour"));
	CHECK(pp_size_price(cat, &spec, h100, &usd, what, sizeof(what), &err) == 0);
	CHECK(usd == 3.99);
	CHECK(!strcmp(what, "lambda_8x on_demand, lambda_2026, 2026-09-20"));
	snprintf(spec.provider, sizeof(spec.provider), "aws_p5.48xlarge");
	snprintf(spec.tier, sizeof(spec.tier), "reserved_1y");
	CHECK(pp_size_price(cat, &spec, h100, &usd, what, sizeof(what), &err) == 0);
	CHECK(usd == 4.06);
	CHECK_CONTAINS(what, "aws_p5.48xlarge reserved_1y");
	CHECK_CONTAINS(what, "[estimate]");
	snprintf(spec.provider, sizeof(spec.provider), "nosuch");
	CHECK(pp_size_price(cat, &spec, h100, &usd, what, sizeof(what), &err) == PP_ENOTFOUND);
}

int main(void)
{
	pp_t_fixture_data();
	RUN(sku_map_from_catalog);
	RUN(cheapest_provider);
	RUN(named_provider_and_tier);
	RUN(not_found);
	RUN(tiers_and_providers);
	RUN(rent);
	RUN(size_price);
	return pp_t_done("test_prices");
}
