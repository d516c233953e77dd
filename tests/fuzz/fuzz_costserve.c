/*
 * fuzz_costserve.c - a "costs" section priced on a small serving
 * deployment (`podplan cost` with inference work): the input is the
 * section's JSON, put into a fixed scenario (llama3-8b on H100s, 6
 * requests of 64 tokens in and 8 out, an SLO), parsed, and priced with 8
 * draws; the text, JSON and CSV outputs rendered. Where the section's
 * work is an inference volume, each option's replica is simulated at
 * many rates (costserve.c).
 */
#include "fuzzutil.h"
#include "cost/cost.h"
#include "cost/costout.h"
#include "engine/predict.h"
#include "input/scenario.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pp_sb t = {0};
	pp_sb_adds(&t, "{\"name\": \"c\", \"model\": {\"preset\": \"llama3-8b\", \"seq_length\": 1024}, "
		       "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 1}, \"serving\": "
		       "{\"engine\": \"vllm\"}, \"workload\": {\"num_prompts\": 6, \"input_len\": 64, "
		       "\"output_len\": 8}, \"slo\": {\"ttft_ms\": 300, \"tpot_ms\": 30}, \"costs\": ");
	pp_sb_add(&t, (const char *)data, size);
	pp_sb_adds(&t, "}");
	pp_scenario s;
	pp_err err = {0};
	int rc = pp_scenario_parse(&s, "c.json", t.buf, t.len, fz_catalog(), &err);
	fz_check_err(rc, err.msg, "pp_scenario_parse");
	if (rc) {
		pp_sb_release(&t);
		return 0;
	}
	if (s.costs.present) {
		pp_cost_opts o;
		memset(&o, 0, sizeof(o));
		o.predict = pp_predict;
		o.seed_given = o.draws_given = true;
		o.seed = 5;
		o.draws = 8;
		pp_cost_result r;
		memset(&err, 0, sizeof(err));
		rc = pp_cost_run(&s, fz_catalog(), &o, &r, &err);
		fz_check_err(rc, err.msg, "pp_cost_run");
		if (!rc) {
			pp_sb out = {0};
			pp_cost_to_text(&r, &out);
			pp_cost_to_json(&r, &out);
			pp_cost_to_csv(&r, &out);
			pp_sb_release(&out);
			pp_cost_result_release(&r);
		}
	}
	pp_scenario_release(&s);
	pp_sb_release(&t);
	return 0;
}
