/*
 * bench_engine.c - how fast the step-time engine simulates (issue 3):
 * steps simulated per second and events per second for GPT-3 175B on 1,024
 * A100 (TP8 PP8 1F1B, 64 micro-batches), Llama-3 405B on 16,384 H100 (TP8
 * PP16 DP128, interleaved) and a 7B DDP job on 8 GPUs; and the 405B step at
 * 1,024 vs 16,384 GPUs, to show the cost does not grow with data
 * parallelism. One core, wall clock (CLOCK_MONOTONIC), median of repeats.
 *
 * With PODPLAN_BENCH_REF_S (the reference workload's CPU seconds, set by
 * bench/bench.py) a last column gives each step's time as a ratio to it.
 *
 * A "step" is one pp_predict: the full simulation plus the three ablation
 * runs that give the breakdown; "events" counts task completions over all
 * four runs.
 */
#include "calib/hwres.h"
#include "input/catalog.h"
#include "input/hw.h"
#include "engine/predict.h"
#include "input/scenario.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* the reference workload's CPU seconds in this run (bench/bench.py), 0: not given */
static double ref_s;

static void bench(const pp_catalog *cat, const char *name, const char *json, double *out_ms)
{
	pp_scenario s;
	pp_hw hw;
	pp_err err = {0};
	if (pp_scenario_parse(&s, name, json, strlen(json), cat, &err) ||
	    pp_hw_of_scenario(NULL, cat, &s, &s.cluster, &hw, &err)) {
		printf("%-44s error: %s\n", name, err.msg);
		exit(1);
	}
	pp_result r;
	double t[15];
	int n = (int)PP_ARRAY_LEN(t);
	for (int i = 0; i < n; i++) {
		double t0 = pp_mono_s();
		if (pp_predict(&s, &hw, NULL, &r, &err)) {
			printf("%s: %s\n", name, err.msg);
			exit(1);
		}
		t[i] = pp_mono_s() - t0;
	}
	qsort(t, (size_t)n, sizeof(double), cmp);
	double med = t[n / 2];
	printf("%-44s %7d %10.2f %12.1f %14.3g %10.3f", name, s.cluster.num_gpus, med * 1e3, 1.0 / med,
	       (double)r.events / med, r.step_time_s);
	if (ref_s > 0)
		printf(" %10.2e", med / ref_s);
	printf("\n");
	if (out_ms)
		*out_ms = med * 1e3;
	pp_scenario_release(&s);
}

int main(void)
{
	pp_catalog *cat;
	pp_err err = {0};
	if (pp_catalog_load(&cat, NULL, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	const char *r = getenv("PODPLAN_BENCH_REF_S");
	ref_s = r ? atof(r) : 0;
	printf("%-44s %7s %10s %12s %14s %10s%s\n", "configuration", "GPUs", "ms/step", "steps/s",
	       "events/s", "step (s)", ref_s > 0 ? "      ratio" : "");
	bench(cat, "GPT-3 175B, TP8 PP8 1F1B, 64 micro-batches",
	      "{\"model\": {\"preset\": \"gpt3-175b\"}, \"training\": {\"global_batch_size\": 1024, "
	      "\"recompute\": \"selective\"}, \"parallel\": {\"tensor_model_parallel_size\": 8, "
	      "\"pipeline_model_parallel_size\": 8, \"sequence_parallel\": true, "
	      "\"pipeline_schedule\": \"1f1b\"}, \"cluster\": {\"gpu\": \"a100-80gb\", \"num_gpus\": 1024, "
	      "\"inter_node\": {\"fabric\": \"ib-hdr\"}}}", NULL);
	const char *l405 = "{\"model\": {\"preset\": \"llama3-405b\"}, \"training\": {\"global_batch_size\": %d, "
			   "\"recompute\": \"selective\"}, \"parallel\": {\"tensor_model_parallel_size\": 8, "
			   "\"pipeline_model_parallel_size\": 16, \"virtual_pipeline_model_parallel_size\": 4, "
			   "\"sequence_parallel\": true, \"zero_stage\": 1}, \"cluster\": {\"gpu\": \"h100-sxm\", "
			   "\"num_gpus\": %d}}";
	char j[1024];
	double ms_small, ms_big;
	snprintf(j, sizeof(j), l405, 16 * 8, 1024);
	bench(cat, "Llama-3 405B, TP8 PP16x4 DP8 (16 mb/rank)", j, &ms_small);
	snprintf(j, sizeof(j), l405, 16 * 128, 16384);
	bench(cat, "Llama-3 405B, TP8 PP16x4 DP128 (16 mb/rank)", j, &ms_big);
	bench(cat, "7B DDP on 8 GPUs (llama2-7b)",
	      "{\"model\": {\"preset\": \"llama2-7b\"}, \"training\": {\"global_batch_size\": 64, "
	      "\"micro_batch_size\": 2}, \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8}}", NULL);
	printf("\n405B step at 16,384 GPUs: %.2f ms (target <= 50 ms); 16,384 / 1,024 GPUs cost ratio %.2f "
	       "(1.00 = independent of data_parallel_size)\n", ms_big, ms_big / ms_small);
	pp_catalog_free(cat);
	return 0;
}
