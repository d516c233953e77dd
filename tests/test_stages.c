/*
 * test_stages.c - how layers go to pipeline stages, by hand:
 *  - the even split gives the remainder to the first virtual stages;
 *  - Megatron-Core's decoder_first/last_pipeline_num_layers: Llama 3's 126
 *    layers on 16 stages as 7 + 14 x 8 + 7, DeepSeek-V3-style 61 on 16 as
 *    1 + 14 x 4 + 4 (first-stage layers lighten the embedding's stage);
 *    with interleaving each stage's layers split evenly over its chunks;
 *  - a stage's layers summed over its chunks (pp_stage_kinds, in closed
 *    form for the even split) are its chunks' pp_stage_layers added up, for
 *    every layer count to 130, stage count to 16 and depth to 6;
 *  - the parameters the stages hold add up to the model's (modelsize.h,
 *    counted from the architecture alone) without tensor parallelism;
 *  - counts that cannot split evenly are bad input naming the key;
 *  - the fast path equals the event simulation on uneven layouts.
 */
#include "engine/fastpath.h"
#include "engine/modelsize.h"
#include "engine/stages.h"
#include "engine/predict.h"
#include "harness.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int layers_of(const char *json, int *out, int nmax)
{
	pp_scenario s;
	pp_hw hw;
	if (tu_scenario(json, &s, &hw))
		return -1;
	int nv = s.parallel.pp * s.parallel.vpp;
	for (int v = 0; v < nv && v < nmax; v++)
		out[v] = pp_stage_layers(&s, v);
	pp_scenario_release(&s);
	return nv;
}

#define L405 "\"model\": {\"preset\": \"llama3-405b\"}, \"training\": {\"global_batch_size\": 2048}, "
#define C16K "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 16384}"

static void even_and_uneven(void)
{
	int n[64];
	/* 126 = 16 x 7 + 14: the first 14 stages take 8 */
	CHECK(layers_of("{" L405 "\"parallel\": {\"tensor_model_parallel_size\": 8, "
			"\"pipeline_model_parallel_size\": 16}, " C16K "}", n, 64) == 16);
	CHECK(n[0] == 8 && n[13] == 8 && n[14] == 7 && n[15] == 7);
	CHECK(layers_of("{" L405 "\"parallel\": {\"tensor_model_parallel_size\": 8, "
			"\"pipeline_model_parallel_size\": 16, \"decoder_first_pipeline_num_layers\": 7, "
			"\"decoder_last_pipeline_num_layers\": 7}, " C16K "}", n, 64) == 16);
	int sum = 0;
	for (int i = 0; i < 16; i++)
		sum += n[i];
	CHECK(n[0] == 7 && n[15] == 7 && n[1] == 8 && n[14] == 8 && sum == 126);
	/* 61 layers: 1 first, 4 last, 14 x 4 between */
	CHECK(layers_of("{\"model\": {\"num_layers\": 61, \"hidden_size\": 1024, "
			"\"num_attention_heads\": 8, \"vocab_size\": 32000, \"seq_length\": 2048}, "
			"\"training\": {\"global_batch_size\": 16}, \"parallel\": "
			"{\"pipeline_model_parallel_size\": 16, \"decoder_first_pipeline_num_layers\": 1, "
			"\"decoder_last_pipeline_num_layers\": 4}, \"cluster\": {\"gpu\": \"h100-sxm\", "
			"\"num_gpus\": 16}}", n, 64) == 16);
	CHECK(n[0] == 1 && n[1] == 4 && n[14] == 4 && n[15] == 4);
	/* interleaved: 8 layers per middle stage over 2 chunks, vs = chunk x P + stage */
	CHECK(layers_of("{" L405 "\"parallel\": {\"tensor_model_parallel_size\": 8, "
			"\"pipeline_model_parallel_size\": 16, \"virtual_pipeline_model_parallel_size\": 2, "
			"\"decoder_first_pipeline_num_layers\": 6, \"decoder_last_pipeline_num_layers\": 8}, "
			C16K "}", n, 64) == 32);
	/* 126 - 14 = 112 over 14 stages = 8; first 6 -> 3 a chunk, last 8 -> 4 */
	CHECK(n[0] == 3 && n[16] == 3 && n[15] == 4 && n[31] == 4 && n[1] == 4 && n[17] == 4);
}

static void kinds_sum_chunks(void)
{
	pp_scenario s;
	memset(&s, 0, sizeof(s));
	int cases = 0, bad = 0;
	for (int L = 1; L <= 130; L++)
		for (int P = 1; P <= 16; P++)
			for (int v = 1; v <= 6; v++) {
				s.model.num_layers = L;
				s.parallel.pp = P;
				s.parallel.vpp = v;
				for (int st = 0; st < P; st++) {
					double n[PP_LAYER_KINDS];
					pp_stage_kinds(&s, st, n);
					int sum = 0;
					for (int c = 0; c < v; c++)
						sum += pp_stage_layers(&s, c * P + st);
					bad += n[0] != sum || n[1] != 0 || n[2] != 0 || n[3] != 0;
					cases++;
				}
			}
	pp_t_diag("%d stages: %d whose kinds are not their chunks' layers", cases, bad);
	CHECK(cases > 50000);
	CHECK(bad == 0);
}

static void bad_counts(void)
{
	pp_scenario s;
	pp_hw hw;
	/* 126 - 7 - 6 = 113 does not split over 14 stages */
	CHECK(tu_scenario("{" L405 "\"parallel\": {\"tensor_model_parallel_size\": 8, "
			  "\"pipeline_model_parallel_size\": 16, \"decoder_first_pipeline_num_layers\": 7, "
			  "\"decoder_last_pipeline_num_layers\": 6}, " C16K "}", &s, &hw) != 0);
	/* 7 first-stage layers do not split over 2 chunks */
	CHECK(tu_scenario("{" L405 "\"parallel\": {\"tensor_model_parallel_size\": 8, "
			  "\"pipeline_model_parallel_size\": 16, \"virtual_pipeline_model_parallel_size\": 2, "
			  "\"decoder_first_pipeline_num_layers\": 7, \"decoder_last_pipeline_num_layers\": 7}, "
			  C16K "}", &s, &hw) != 0);
	/* no pipeline */
	CHECK(tu_scenario("{" L405 "\"parallel\": {\"tensor_model_parallel_size\": 8, "
			  "\"decoder_first_pipeline_num_layers\": 7}, " C16K "}", &s, &hw) != 0);
}

static void fast_path_agrees(void)
{
	const char *layouts[] = {
		"\"pipeline_model_parallel_size\": 4, \"decoder_first_pipeline_num_layers\": 4, "
		"\"decoder_last_pipeline_num_layers\": 6",
		"\"pipeline_model_parallel_size\": 4, \"virtual_pipeline_model_parallel_size\": 2, "
		"\"decoder_first_pipeline_num_layers\": 6, \"decoder_last_pipeline_num_layers\": 6, "
		"\"zero_stage\": 1",
		"\"pipeline_model_parallel_size\": 4, \"decoder_last_pipeline_num_layers\": 2, "
		"\"zero_stage\": 3",
	};
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		char json[1024];
		/* llama3-8b: 32 layers; 8 GPUs = PP 4 x DP 2 */
		snprintf(json, sizeof(json), "{\"model\": {\"preset\": \"llama3-8b\"}, \"training\": "
			 "{\"global_batch_size\": 16}, \"parallel\": {%s}, \"cluster\": {\"gpu\": "
			 "\"h100-sxm\", \"num_gpus\": 8}}", layouts[i]);
		pp_scenario s;
		pp_hw hw;
		if (tu_scenario(json, &s, &hw)) {
			CHECK(0);
			continue;
		}
		pp_result r;
		pp_err err = {0};
		CHECK(pp_predict(&s, &hw, NULL, &r, &err) == 0);
		pp_fp_cache *c = pp_fp_cache_new();
		pp_workload w;
		pp_fp_workload(c, &s, &hw, &w);
		int64_t fp = pp_fp_step_ns(&s, &hw, &w);
		CHECK(fp == llround(r.step_time_s * 1e9));
		CHECK(pp_fp_bound_ns(&s, &hw, &w) <= fp);
		pp_fp_cache_free(c);
		pp_scenario_release(&s);
	}
}

/* Untied embeddings (Llama 2), no tensor parallelism: every parameter is
 * on exactly one stage, however the layers split. */
static void stage_params_sum(void)
{
	const char *pp[] = {"1", "3", "4", "5"};
	for (size_t i = 0; i < sizeof(pp) / sizeof(pp[0]); i++) {
		char json[512];
		snprintf(json, sizeof(json), "{\"model\": {\"preset\": \"llama2-7b\"}, "
			 "\"training\": {\"global_batch_size\": 960}, \"parallel\": "
			 "{\"pipeline_model_parallel_size\": %s}, \"cluster\": {\"gpu\": "
			 "\"h100-sxm\", \"num_gpus\": 120}}", pp[i]);
		pp_scenario s;
		pp_hw hw;
		if (tu_scenario(json, &s, &hw)) {
			CHECK(0);
			continue;
		}
		pp_workload w;
		pp_workload_build(&w, &s, &hw);
		double held = 0, trained = 0;
		for (int st = 0; st < s.parallel.pp; st++) {
			double n[PP_LAYER_KINDS];
			pp_stage_kinds(&s, st, n);
			double p = pp_stage_params(&s, &w, st);
			CHECK(p == pp_stage_count_of(&s, &w, st, n).held);
			held += p;
			trained += pp_stage_trainable(&s, &w, st);
			CHECK(pp_stage_trainable_expert(&s, &w, st) == 0);
		}
		CHECK_NEAR(held, pp_model_params(&s.model), 1e-12);
		CHECK_NEAR(trained, held, 1e-12);
		pp_workload_release(&w);
		pp_scenario_release(&s);
	}
}

int main(void)
{
	RUN(even_and_uneven);
	RUN(kinds_sum_chunks);
	RUN(stage_params_sum);
	RUN(bad_counts);
	RUN(fast_path_agrees);
	return pp_t_done("test_stages");
}
