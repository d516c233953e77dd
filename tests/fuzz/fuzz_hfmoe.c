/*
 * fuzz_hfmoe.c - a Hugging Face config.json (seeded with the MoE configs
 * of tests/data/hf/: Mixtral, Qwen MoE, DeepSeek-V2/V3, gpt-oss) through
 * both paths that read one: bit 0 of the first byte picks serving (TP 1 or
 * 8 by bit 1, expert parallel by bit 2; the replica set up and 3 requests
 * simulated) or training (DP 8, or EP 8 by bit 1; the size limits and, far
 * under them, a prediction). The rest is the config file, written to the
 * scratch folder and named by the scenario's model.hf_config.
 */
#include "fuzzutil.h"
#include "engine/predict.h"
#include "input/hw.h"
#include "input/limits.h"
#include "input/scenario.h"
#include "serve/servesim.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned sel = data[0];
	const char *path = fz_write("config.json", data + 1, size - 1);
	if (!path)
		return 0;
	pp_sb sc = {0};
	if (sel & 1)
		pp_sb_addf(&sc, "{\"name\": \"hf\", \"model\": {\"hf_config\": \"%s\", \"seq_length\": "
			   "1024}, \"cluster\": {\"gpu\": \"h200-sxm\", \"num_gpus\": 8, "
			   "\"gpus_per_node\": 8}, \"serving\": {\"engine\": \"vllm\", "
			   "\"tensor_parallel_size\": %d%s}, \"workload\": {\"num_prompts\": 3, "
			   "\"input_len\": 32, \"output_len\": 4}}", path, sel & 2 ? 8 : 1,
			   sel & 4 ? ", \"enable_expert_parallel\": true" : "");
	else
		pp_sb_addf(&sc, "{\"name\": \"hf\", \"model\": {\"hf_config\": \"%s\", \"mtp_num_layers\": "
			   "0}, \"training\": {\"global_batch_size\": 16, \"micro_batch_size\": 1}, "
			   "\"parallel\": {\"tensor_model_parallel_size\": 1%s}, \"cluster\": {\"gpu\": "
			   "\"h100-sxm\", \"num_gpus\": 8, \"gpus_per_node\": 8}}", path,
			   sel & 2 ? ", \"expert_model_parallel_size\": 8" : "");
	pp_scenario s;
	pp_err err = {0};
	int rc = pp_scenario_parse(&s, "hf.json", sc.buf, sc.len, fz_catalog(), &err);
	fz_check_err(rc, err.msg, "pp_scenario_parse");
	if (!rc) {
		rc = pp_scenario_check_limits(&s, &err);
		fz_check_err(rc, err.msg, "pp_scenario_check_limits");
		pp_hw hw;
		if (!rc && s.model.num_layers <= 256) {
			rc = pp_hw_from_catalog(&hw, fz_catalog(), &s.cluster, &err);
			fz_check_err(rc, err.msg, "pp_hw_from_catalog");
		}
		if (!rc && s.model.num_layers <= 256 && s.serve.present) {
			pp_serve_setup su;
			rc = pp_serve_setup_init(&su, &s, &hw, &err);
			fz_check_err(rc, err.msg, "pp_serve_setup_init");
			if (!rc) {
				pp_serve_result r;
				rc = pp_serve_run(&su, INFINITY, 1, &r, &err);
				fz_check_err(rc, err.msg, "pp_serve_run");
				if (!rc)
					pp_serve_result_release(&r);
				pp_serve_setup_release(&su);
			}
		} else if (!rc && s.model.num_layers <= 256) {
			pp_result r;
			rc = pp_predict(&s, &hw, NULL, &r, &err);
			fz_check_err(rc, err.msg, "pp_predict");
		}
		pp_scenario_release(&s);
	}
	pp_sb_release(&sc);
	return 0;
}
