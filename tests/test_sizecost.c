/*
 * test_sizecost.c - `podplan size` gives one answer for "what should we get
 * for this deadline": every searched cluster rented and built, beside the
 * scenario's lower tiers, priced by the cost engine (pp_cost_weigh). The
 * answer is found again here by a scan of the weighed options the command
 * prints (--json "weighed"): the cheapest feasible, obtainable option whose
 * time to result (lead time + one run) meets the deadline, or the fastest
 * within a budget. Building is weighed, and its lead time counts. Times are
 * shown in a unit that suits them (an 18-minute job is not "0.0 days").
 *
 * Prices come from the fixed fixture (tests/data/catalog/).
 */
#include "harness.h"
#include "core/util.h"
#include "textutil.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S70 "scenarios/llama70b-2T-tokens-rent-h100-or-build-h100-or-h200.json"

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static bool flag(const cJSON *o, const char *k)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

static double time_to_result(const cJSON *o)
{
	double l = num(o, "lead_time_s");
	return num(o, "time_to_train_s") + (isfinite(l) ? l : 0);
}

/* size's JSON for args; NULL on failure */
static cJSON *size_json(const char *args)
{
	char cmd[1024], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s size %s --json 2>/dev/null", pp_t_bin(), args);
	int st = pp_t_sh(cmd, &out);
	CHECK(st == 0);
	cJSON *j = st == 0 ? cJSON_Parse(out) : NULL;
	free(out);
	return j;
}

/* The deadline: the answer is the cheapest weighed option within it. */
static void test_deadline(void)
{
	cJSON *j = size_json(S70 " --deadline 30");
	CHECK(j != NULL);
	if (!j)
		return;
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "weighed");
	const cJSON *opts = cJSON_GetObjectItemCaseSensitive(w, "options"), *o;
	const char *rec = str(j, "recommended");
	CHECK(*rec && !strcmp(rec, str(w, "recommended")));
	const cJSON *best = NULL;
	int builds = 0, rents = 0;
	cJSON_ArrayForEach(o, opts)
	{
		const char *kind = str(o, "kind");
		builds += !strcmp(kind, "build");
		rents += !strcmp(kind, "rent");
		/* building waits for its lead time: months, never within 30 days */
		if (!strcmp(kind, "build"))
			CHECK(num(o, "lead_time_s") >= 30 * 86400.0);
		if (!flag(o, "feasible") || !flag(o, "obtainable") ||
		    !(time_to_result(o) <= 30 * 86400.0))
			continue;
		if (!best || num(o, "usd_total") < num(best, "usd_total"))
			best = o;
	}
	CHECK(builds >= 4 && rents >= 4); /* every cluster both ways */
	CHECK(best != NULL && !strcmp(str(best, "name"), rec));
	CHECK_CONTAINS(str(j, "recommendation"), "within the 30-day deadline");
	cJSON_Delete(j);
	/* a deadline the lead time allows: the answer is still the scan's */
	j = size_json(S70 " --deadline 400 --gpus h100-sxm --num-gpus 1024");
	CHECK(j != NULL);
	if (!j)
		return;
	w = cJSON_GetObjectItemCaseSensitive(j, "weighed");
	best = NULL;
	cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(w, "options"))
	{
		if (!flag(o, "feasible") || !flag(o, "obtainable") ||
		    !(time_to_result(o) <= 400 * 86400.0))
			continue;
		if (!best || num(o, "usd_total") < num(best, "usd_total"))
			best = o;
	}
	CHECK(best != NULL && !strcmp(str(best, "name"), str(j, "recommended")));
	cJSON_Delete(j);
}

/* The budget: the fastest weighed option within it. */
static void test_budget(void)
{
	cJSON *j = size_json(S70 " --budget 3e6");
	CHECK(j != NULL);
	if (!j)
		return;
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "weighed"), *o, *best = NULL;
	cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(w, "options"))
	{
		if (!flag(o, "feasible") || !flag(o, "obtainable") || !(num(o, "usd_total") <= 3e6))
			continue;
		if (!best || time_to_result(o) < time_to_result(best))
			best = o;
	}
	CHECK(best != NULL && !strcmp(str(best, "name"), str(j, "recommended")));
	cJSON_Delete(j);
}

/* The scenario's lower tiers are weighed too, and a short job reads in
 * minutes. */
static void test_lower_tiers_and_units(void)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/small.json", pp_t_tmpdir());
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("{\"name\": \"small\", \"model\": {\"preset\": \"llama2-7b\", \"seq_length\": 4096},\n"
	      " \"training\": {\"global_batch_size\": 64, \"micro_batch_size\": 1, \"train_tokens\": 2e8},\n"
	      " \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8},\n"
	      " \"search\": {\"gpus\": [\"h100-sxm\"], \"num_gpus\": [8]},\n"
	      " \"costs\": {\"work\": {\"type\": \"run\"}, \"options\": [\n"
	      "  {\"name\": \"api-ft\", \"kind\": \"api\", \"price\": \"fireworks_full_sft_le16B\"}]}}\n", f);
	fclose(f);
	char args[800];
	snprintf(args, sizeof(args), "%s --deadline 1", path);
	cJSON *j = size_json(args);
	CHECK(j != NULL);
	if (j) {
		bool api = false;
		const cJSON *o;
		cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(
					      cJSON_GetObjectItemCaseSensitive(j, "weighed"), "options"))
			api |= !strcmp(str(o, "name"), "api-ft");
		CHECK(api);
		cJSON_Delete(j);
	}
	char cmd[1024], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s size %s --deadline 1 2>&1", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK(strstr(out, "0.0 days") == NULL);
	CHECK_CONTAINS(out, " min");
	CHECK_CONTAINS(out, "Priced every way");
	free(out);
}

int main(void)
{
	pp_t_fixture_data();
	RUN(test_deadline);
	RUN(test_budget);
	RUN(test_lower_tiers_and_units);
	return pp_t_done("test_sizecost");
}
