/*
 * fuzz_hfconfig.c - a Hugging Face config.json named by a scenario's
 * model.hf_config: the first byte picks one of four layouts (data, tensor,
 * pipeline and interleaved pipeline parallel), the rest is the config
 * file, written to a scratch folder and read through the scenario loader
 * (pp_read_file: a regular file, size-bounded), then the size limits and,
 * for a model far under them, a prediction.
 */
#include "fuzzutil.h"
#include "engine/predict.h"
#include "input/hw.h"
#include "input/limits.h"
#include "input/scenario.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const layouts[] = {
	"\"tensor_model_parallel_size\": 1, \"pipeline_model_parallel_size\": 1",
	"\"tensor_model_parallel_size\": 2, \"pipeline_model_parallel_size\": 1",
	"\"tensor_model_parallel_size\": 1, \"pipeline_model_parallel_size\": 2",
	("\"tensor_model_parallel_size\": 1, \"pipeline_model_parallel_size\": 2, "
	 "\"virtual_pipeline_model_parallel_size\": 2"),
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const pp_catalog *cat = fz_catalog();
	const char *path = fz_write("config.json", data + 1, size - 1);
	if (!path)
		return 0;
	pp_sb sc = {0};
	pp_sb_addf(&sc, "{\"name\": \"hf\", \"model\": {\"hf_config\": \"%s\"}, \"training\": "
		   "{\"global_batch_size\": 16, \"micro_batch_size\": 1}, \"parallel\": {%s}, "
		   "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8, \"gpus_per_node\": 8}}",
		   path, layouts[data[0] % 4]);
	pp_scenario s;
	pp_err err = {0};
	int rc = pp_scenario_parse(&s, "hf.json", sc.buf, sc.len, cat, &err);
	fz_check_err(rc, err.msg, "pp_scenario_parse");
	if (!rc) {
		rc = pp_scenario_check_limits(&s, &err);
		fz_check_err(rc, err.msg, "pp_scenario_check_limits");
		pp_hw hw;
		pp_result r;
		if (!rc && s.model.num_layers <= 1024) {
			rc = pp_hw_from_catalog(&hw, cat, &s.cluster, &err);
			if (!rc)
				rc = pp_predict(&s, &hw, NULL, &r, &err);
			fz_check_err(rc, err.msg, "pp_predict");
		}
		pp_scenario_release(&s);
	}
	pp_sb_release(&sc);
	return 0;
}
