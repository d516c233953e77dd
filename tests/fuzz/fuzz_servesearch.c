/*
 * fuzz_servesearch.c - a serving scenario through `podplan serve
 * --search`: the first byte picks the target rate (0: the workload's, else
 * the byte / 8 requests/s; bit 7 also tries disaggregated layouts), the
 * rest is the scenario. The workload is cut to 6 requests of at most 2048
 * tokens in all, and where the scenario leaves them open the layout's
 * tensor and pipeline sizes and scheduler limits are fixed at the
 * scenario's (the search runs only replica counts): the space itself is
 * tested in tests/test_serveplan.c.
 */
#include "fuzzserve.h"
#include "fuzzutil.h"
#include "plan/serveplan.h"
#include "core/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned sel = data[0];
	char *text = fz_text(data + 1, size - 1);
	pp_scenario s;
	if (fz_serve_parse(text, size - 1, &s)) {
		free(text);
		return 0;
	}
	cJSON *so = cJSON_GetObjectItemCaseSensitive(s.doc.root, "serving");
	if (fz_serve_small(&s, 6, 2048) && cJSON_IsObject(so)) {
		static const char *const keys[] = {"tensor_parallel_size", "pipeline_parallel_size",
						   "max_num_seqs", "max_num_batched_tokens"};
		for (size_t i = 0; i < PP_ARRAY_LEN(keys); i++)
			if (!cJSON_GetObjectItemCaseSensitive(so, keys[i]))
				cJSON_AddNumberToObject(so, keys[i], 1); /* "given": the value is the parsed one */
		pp_splan_opts o;
		memset(&o, 0, sizeof(o));
		o.rate = (sel & 0x7f) ? (double)(sel & 0x7f) / 8 : NAN;
		o.seed = 3;
		o.usd_per_gpu_hour = 2.5;
		o.disagg = sel & 0x80;
		pp_splan_result r;
		pp_err err = {0};
		int rc = pp_splan_run(&s, fz_catalog(), &o, &r, &err);
		fz_check_err(rc, err.msg, "pp_splan_run");
		if (!rc) {
			int *order = NULL;
			pp_splan_order(&r, &order);
			free(order);
			pp_splan_result_release(&r);
		}
	}
	pp_scenario_release(&s);
	free(text);
	return 0;
}
