/*
 * test_limits.c - podplan's limits on the sizes that drive the engine's
 * memory and time (input/limits.h): every shipped scenario is inside them;
 * each size one past its limit is PP_EINPUT naming the key and the limit;
 * the pipeline-task count and the ideal step are computed by hand; the
 * largest layout the task limit allows is simulated within the issue's
 * bounds (20 s, 4 GB), so the limit sits where the engine still answers,
 * and the event simulation (a trace) refuses it at its own limit.
 */
#include "engine/predict.h"
#include "engine/trace.h"
#include "harness.h"
#include "input/limits.h"
#include "testutil.h"
#include "core/util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static void shipped_scenarios_inside(void)
{
	static const char *const dirs[] = {"scenarios", "scenarios/replay", "scenarios/replay8",
					   "tests/data"};
	int n = 0;
	for (size_t k = 0; k < PP_ARRAY_LEN(dirs); k++) {
		DIR *d = opendir(dirs[k]);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			if (!strstr(e->d_name, ".json") || strstr(e->d_name, "config"))
				continue;
			char *p = pp_path_join(dirs[k], e->d_name);
			pp_scenario s;
			pp_err err = {0};
			if (pp_scenario_load(&s, p, tu_catalog(), &err) == 0) {
				int rc = pp_scenario_check_limits(&s, &err);
				CHECK(rc == 0);
				if (rc)
					pp_t_diag("%s", err.msg);
				n++;
				pp_scenario_release(&s);
			}
			free(p);
		}
		if (d)
			closedir(d);
	}
	CHECK(n >= 20);
	pp_t_diag("%d shipped scenarios inside the limits", n);
}

static int check(const char *json, pp_err *err)
{
	pp_scenario s;
	int rc = pp_scenario_parse(&s, "lim.json", json, strlen(json), tu_catalog(), err);
	if (!rc) {
		rc = pp_scenario_check_limits(&s, err);
		pp_scenario_release(&s);
	}
	return rc;
}

#define MODEL(layers, hidden, seq) \
	"{\"model\": {\"num_layers\": " #layers ", \"hidden_size\": " #hidden ", " \
	"\"num_attention_heads\": 8, \"seq_length\": " #seq ", \"vocab_size\": 32000}, "

static void each_limit_named(void)
{
	pp_err err = {0};
	CHECK(check(MODEL(16385, 1024, 1024) "\"training\": {\"global_batch_size\": 8}, \"cluster\": "
		    "{\"gpu\": \"h100-sxm\", \"num_gpus\": 8}}", &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "model.num_layers: found 16385, expected at most 16384");
	CHECK(check(MODEL(16384, 1024, 1024) "\"training\": {\"global_batch_size\": 8}, \"cluster\": "
		    "{\"gpu\": \"h100-sxm\", \"num_gpus\": 8}}", &err) == 0);
	CHECK(check(MODEL(8, 2097152, 1024) "\"training\": {\"global_batch_size\": 8}, \"cluster\": "
		    "{\"gpu\": \"h100-sxm\", \"num_gpus\": 8}}", &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "model.hidden_size: found 2097152, expected at most 1048576");
	CHECK(check(MODEL(8, 1024, 1024) "\"training\": {\"global_batch_size\": 16777224}, "
		    "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8}}", &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "training.global_batch_size: found 16777224, expected at most 16777216");
	/* 64 stages x 65537 micro-batches (mbs 1, dp 1) = 4194368 tasks */
	CHECK(check(MODEL(64, 1024, 1024) "\"training\": {\"global_batch_size\": 65537}, "
		    "\"parallel\": {\"pipeline_model_parallel_size\": 64}, \"cluster\": {\"gpu\": "
		    "\"h100-sxm\", \"num_gpus\": 64}}", &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "64 stages x 1 chunks x 65537 micro-batches = 4.194e+06 pipeline tasks "
		       "per step, expected at most 4194304");
	CHECK(check(MODEL(64, 1024, 1024) "\"training\": {\"global_batch_size\": 65536}, "
		    "\"parallel\": {\"pipeline_model_parallel_size\": 64}, \"cluster\": {\"gpu\": "
		    "\"h100-sxm\", \"num_gpus\": 64}}", &err) == 0);
	/* 8193 micro-batches x 1024 layers */
	CHECK(check(MODEL(1024, 1024, 1024) "\"training\": {\"global_batch_size\": 8193}, "
		    "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 1}}", &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "8193 micro-batches x 1024 layers = 8.39e+06 layer passes per step, "
		       "expected at most 8388608");
	/* the ideal step: 64 layers of hidden 256k, ffn 256k, a 1M context, a
	 * batch of 1024 on one GPU: over 10^26 flop at 989 TFLOP/s */
	CHECK(check("{\"model\": {\"num_layers\": 64, \"hidden_size\": 262144, \"ffn_hidden_size\": "
		    "262144, \"num_attention_heads\": 8, \"seq_length\": 1048576, \"vocab_size\": 32000}, "
		    "\"training\": {\"global_batch_size\": 1024, \"micro_batch_size\": 1024}, "
		    "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 1}}", &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "on 1 GPUs at their peak alone");
	CHECK_CONTAINS(err.msg, "expected at most 10000000 s");
}

/* By hand: a GPT of L = 2, h = 1024, ffn 4h, V = 1000, s = 128, batch 4,
 * no recompute: per token 6 (2 (4h^2 + 2 h 4h) + 2 V h) + 12 L s h. */
static void counted_by_hand(void)
{
	pp_scenario s;
	pp_err err = {0};
	const char *j = "{\"model\": {\"num_layers\": 2, \"hidden_size\": 1024, \"num_attention_heads\": "
			"8, \"seq_length\": 128, \"vocab_size\": 1000}, \"training\": {\"global_batch_size\": "
			"4, \"micro_batch_size\": 1, \"recompute\": \"none\"}, \"parallel\": "
			"{\"pipeline_model_parallel_size\": 2, \"virtual_pipeline_model_parallel_size\": 1}, "
			"\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 2}}";
	CHECK(pp_scenario_parse(&s, "h.json", j, strlen(j), tu_catalog(), &err) == 0);
	double h = 1024, per_token = 6 * (2 * (4 * h * h + 2 * h * 4 * h) + 2 * 1000 * h) +
				      12 * 2 * 128 * h;
	CHECK_NEAR(pp_limit_step_flop(&s), per_token * 4 * 128, 1e-12);
	/* 2 stages x 1 chunk x 4 micro-batches (dp 1) */
	CHECK(pp_limit_pipeline_tasks(&s.training, &s.parallel) == 8);
	pp_scenario_release(&s);
}

/* The largest layout the task limit allows, simulated: under 20 s and
 * 4 GB (the bound for any accepted input). */
static void largest_allowed_answers(void)
{
	/* both limits reached: 64 x 65536 tasks, 65536 x 128 layer passes (the
	 * sanitizer build, several times slower and larger, an eighth of the
	 * layers) */
#ifdef __SANITIZE_ADDRESS__
	const char *j = MODEL(64, 1024, 1024) "\"training\": {\"global_batch_size\": 65536}, "
			"\"parallel\": {\"pipeline_model_parallel_size\": 64}, \"cluster\": {\"gpu\": "
			"\"h100-sxm\", \"num_gpus\": 64}}";
#else
	const char *j = MODEL(128, 1024, 1024) "\"training\": {\"global_batch_size\": 65536}, "
			"\"parallel\": {\"pipeline_model_parallel_size\": 64}, \"cluster\": {\"gpu\": "
			"\"h100-sxm\", \"num_gpus\": 64}}";
#endif
	pp_scenario s;
	pp_hw hw;
	pp_result r;
	pp_err err = {0};
	CHECK(pp_scenario_parse(&s, "big.json", j, strlen(j), tu_catalog(), &err) == 0);
	CHECK(pp_scenario_check_limits(&s, &err) == 0);
	double t0 = pp_mono_s();
	CHECK(pp_hw_from_catalog(&hw, tu_catalog(), &s.cluster, &err) == 0);
	CHECK(pp_predict(&s, &hw, NULL, &r, &err) == 0);
	double took = pp_mono_s() - t0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	pp_t_diag("%.0f pipeline tasks, %d layers: %.1f s, peak RSS %.2f GB",
		  pp_limit_pipeline_tasks(&s.training, &s.parallel), s.model.num_layers, took,
		  ru.ru_maxrss / 1e6);
	CHECK(took < 20);
	CHECK(ru.ru_maxrss < 4000000L);
	/* the event simulation (a trace) holds every task: refused past its
	 * own limit, naming it */
	pp_trace *tr = pp_trace_new();
	pp_predict_opts po = {tr, NULL};
	CHECK(pp_predict(&s, &hw, &po, &r, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "expected at most 524288 for the event simulation");
	pp_trace_free(tr);
	pp_scenario_release(&s);
}

int main(void)
{
	RUN(shipped_scenarios_inside);
	RUN(each_limit_named);
	RUN(counted_by_hand);
	RUN(largest_allowed_answers);
	return pp_t_done("test_limits");
}
