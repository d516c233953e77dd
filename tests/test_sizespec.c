/*
 * test_sizespec.c - the scenario's "search" section (input/sizespec.h),
 * parsed with the scenario: absent it is all defaults; given, every key
 * lands resolved to the catalog; each bad value is PP_EINPUT naming
 * file:line:col, the JSON path, what was found and what was expected.
 */
#include "harness.h"
#include "input/sizespec.h"
#include "testutil.h"
#include "core/util.h"

#include <stdio.h>
#include <string.h>

#define HEAD "{\"name\": \"ss\", \"model\": {\"preset\": \"gpt-1.7b\"}, \"training\": " \
	     "{\"global_batch_size\": 16}, \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8}"

static void absent(void)
{
	pp_scenario s;
	pp_err err = {0};
	CHECK(pp_scenario_parse(&s, "ss.json", HEAD "}", strlen(HEAD "}"), tu_catalog(), &err) == 0);
	static const pp_size_spec zero;
	CHECK(!memcmp(&s.search, &zero, sizeof(zero)));
	pp_scenario_release(&s);
	pp_size_spec spec;
	memset(&spec, 0xff, sizeof(spec));
	CHECK(pp_size_spec_parse(&spec, NULL, NULL, "search", tu_catalog(), &err) == 0);
	CHECK(!memcmp(&spec, &zero, sizeof(zero)));
}

static void every_key(void)
{
	const char *json = HEAD ", \"search\": {\"top\": 7, \"gpus\": [\"a100-80gb\", \"h100-sxm\"], "
			   "\"num_gpus\": [8, 16, 4096], \"fabrics\": [\"ib-ndr\"], \"provider\": "
			   "\"runpod\", \"tier\": \"spot\", \"usd_per_gpu_hour\": {\"l40s\": 0.9, "
			   "\"h100-sxm\": 2.5}}}";
	pp_scenario s;
	pp_err err = {0};
	const pp_catalog *cat = tu_catalog();
	CHECK(pp_scenario_parse(&s, "ss.json", json, strlen(json), cat, &err) == 0);
	const pp_size_spec *p = &s.search;
	CHECK(p->top == 7);
	CHECK(p->ngpus == 2 && p->gpus[0] == pp_catalog_gpu(cat, "a100-80gb") &&
	      p->gpus[1] == pp_catalog_gpu(cat, "h100-sxm"));
	CHECK(p->ncounts == 3 && p->counts[0] == 8 && p->counts[1] == 16 && p->counts[2] == 4096);
	CHECK(p->nfabrics == 1 && p->fabrics[0] == pp_catalog_fabric(cat, "ib-ndr"));
	CHECK(!strcmp(p->provider, "runpod") && !strcmp(p->tier, "spot"));
	CHECK(p->nprices == 2 && p->price_gpu[0] == pp_catalog_gpu(cat, "l40s") &&
	      p->price_usd[0] == 0.9 && p->price_gpu[1] == pp_catalog_gpu(cat, "h100-sxm") &&
	      p->price_usd[1] == 2.5);
	pp_scenario_release(&s);
}

/* One bad search section: the load fails with the path and the words. */
static void bad(const char *search, const char *path, const char *words)
{
	char json[2048];
	snprintf(json, sizeof(json), HEAD ", \"search\": %s}", search);
	pp_scenario s;
	pp_err err = {0};
	int rc = pp_scenario_parse(&s, "ss.json", json, strlen(json), tu_catalog(), &err);
	CHECK(rc == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "ss.json:1:");
	CHECK_CONTAINS(err.msg, path);
	CHECK_CONTAINS(err.msg, words);
	if (!rc)
		pp_scenario_release(&s);
}

static void errors(void)
{
	bad("[]", "search", "object");
	bad("{\"gpu\": [\"h100-sxm\"]}", "search", "gpus");
	bad("{\"top\": 0}", "search.top", "found 0, expected an integer in [1, 1000]");
	bad("{\"gpus\": \"h100-sxm\"}", "search.gpus", "expected an array of 1 to 32 GPU ids");
	bad("{\"gpus\": []}", "search.gpus", "expected an array of 1 to 32 GPU ids");
	bad("{\"gpus\": [\"h100sxm\"]}", "search.gpus[0]", "did you mean \"h100-sxm\"");
	bad("{\"gpus\": [\"h100-sxm\", 3]}", "search.gpus[1]", "expected a GPU id");
	bad("{\"fabrics\": [\"nvlink4\"]}", "search.fabrics[0]", "an inter-node fabric id");
	bad("{\"num_gpus\": [8, 0]}", "search.num_gpus[1]", "a whole number of GPUs from 1 to "
	    "4194304");
	bad("{\"num_gpus\": [8.5]}", "search.num_gpus[0]", "a whole number");
	bad("{\"usd_per_gpu_hour\": {\"h100-sxm\": 0}}", "search.usd_per_gpu_hour.h100-sxm",
	    "a price in $ per GPU-hour above 0");
	bad("{\"usd_per_gpu_hour\": {\"nosuch\": 2}}", "search.usd_per_gpu_hour.nosuch",
	    "expected a GPU id of the catalog");
	bad("{\"usd_per_gpu_hour\": [2]}", "search.usd_per_gpu_hour", "GPU id -> $ per GPU-hour");
	/* 33 counts: one more than a list holds */
	char many[512] = "{\"num_gpus\": [";
	for (int i = 1; i <= 33; i++) {
		size_t l = strlen(many);
		snprintf(many + l, sizeof(many) - l, "%s%d", i > 1 ? ", " : "", i);
	}
	strcat(many, "]}");
	bad(many, "search.num_gpus", "an array of 1 to 32 GPU counts");
}

int main(void)
{
	RUN(absent);
	RUN(every_key);
	RUN(errors);
	return pp_t_done("test_sizespec");
}
