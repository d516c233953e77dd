/*
 * fuzz_servecheck.c - a `vllm bench serve --save-result` file (one JSON
 * object, or --append-result's one a line) through `podplan validate
 * --serve`: read from a file (the JSON loader, then the JSON-lines
 * fallback), and each of its first 4 records simulated on a small fixed
 * deployment (llama3-8b, one H100, an SLO, 2 warm-up requests) with the
 * record's traffic, its request counts cut to 16 (the work limits are
 * tested in tests/test_serve_hostile.c).
 */
#include "fuzzutil.h"
#include "input/hw.h"
#include "input/scenario.h"
#include "serve/servecheck.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char scen[] =
	"{\"name\": \"v\", \"model\": {\"preset\": \"llama3-8b\", \"seq_length\": 2048}, "
	"\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 1}, \"serving\": {\"engine\": \"vllm\"}, "
	"\"workload\": {\"num_prompts\": 8, \"input_len\": 64, \"output_len\": 8, "
	"\"warmup_requests\": 2}, \"slo\": {\"ttft_ms\": 200, \"tpot_ms\": 20, \"percentile\": 90}}";

static pp_scenario s;
static pp_hw hw;
static pp_serve_setup su;

static void setup(void)
{
	static bool done;
	if (done)
		return;
	pp_err err = {0};
	if (pp_scenario_parse(&s, "v.json", scen, strlen(scen), fz_catalog(), &err) ||
	    pp_hw_from_catalog(&hw, fz_catalog(), &s.cluster, &err) ||
	    pp_serve_setup_init(&su, &s, &hw, &err)) {
		fprintf(stderr, "fuzz: the fixed scenario: %s\n", err.msg);
		abort();
	}
	done = true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	const char *path = fz_write("result.json", data, size);
	if (!path)
		return 0;
	pp_scheck_bench *b = NULL;
	size_t n = 0;
	pp_err err = {0};
	int rc = pp_scheck_load(path, &b, &n, &err);
	fz_check_err(rc, err.msg, "pp_scheck_load");
	for (size_t i = 0; !rc && i < n && i < 4; i++) {
		pp_scheck_bench c = b[i];
		if (c.num_prompts > 16)
			c.num_prompts = 16;
		if (c.completed > 16)
			c.completed = 16;
		pp_scheck_result r;
		memset(&err, 0, sizeof(err));
		int rr = pp_scheck_run(&su, &c, 0, &r, &err);
		fz_check_err(rr, err.msg, "pp_scheck_run");
	}
	free(b);
	return 0;
}
