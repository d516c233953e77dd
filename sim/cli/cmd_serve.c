/*
 * cmd_serve.c - podplan serve SCENARIO.json [--json] [--max-rate]
 * [--seed N] [--rate R]: a serving deployment's `vllm bench serve`
 * figures from the iteration-level simulation (serve/servesim.h).
 * With --search anywhere in the arguments, cmd_servesearch.c runs instead.
 */
#include "cli/cli.h"
#include "serve/requests.h"
#include "serve/serveout.h"
#include "serve/servesim.h"
#include "core/util.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
	printf("usage: podplan serve SCENARIO.json [--json] [--max-rate] [--seed N] [--rate R]\n"
	       "       podplan serve --search SCENARIO.json [--rate R] [--json | --csv] (see\n"
	       "       podplan serve --search --help)\n\n"
	       "Simulates a serving deployment iteration by iteration and prints what\n"
	       "`vllm bench serve --save-result` would report for the scenario's workload:\n"
	       "request/output/total-token throughput and the mean, median and p99 of TTFT,\n"
	       "TPOT, ITL and end-to-end latency, with the KV-cache capacity vLLM logs at\n"
	       "start-up (# GPU blocks, GPU KV cache size, maximum concurrency at\n"
	       "max_model_len), the memory per GPU and whether the SLO holds.\n\n"
	       "  --json       the figures under vllm bench serve's result-file names, plus\n"
	       "               serving, kv_cache, memory, slo, engine (and max_rate)\n"
	       "  --max-rate   bisect the highest request rate at which the scenario's \"slo\"\n"
	       "               holds (at its percentile), starting from the offline throughput\n"
	       "  --seed N     the workload's seed (default: workload.seed, else 0)\n"
	       "  --rate R     request rate in requests/s, or inf (default: workload.request_rate;\n"
	       "               a trace is replayed at its recorded arrival times, and --rate R\n"
	       "               scales its inter-arrival times so that its mean rate is R)\n\n"
	       "The scenario: \"model\" and \"cluster\" as for training, and\n"
	       "  \"serving\": {engine vllm|sglang|trtllm, tensor_parallel_size,\n"
	       "     pipeline_parallel_size, data_parallel_size (replicas), enable_expert_parallel,\n"
	       "     max_num_seqs, max_num_batched_tokens, max_model_len, block_size,\n"
	       "     gpu_memory_utilization, enable_chunked_prefill, enable_prefix_caching,\n"
	       "     kv_cache_dtype auto|fp8, precision bf16|fp16|fp8|nvfp4|mxfp4 (FP4 also as\n"
	       "     modelopt_fp4, NVFP4, MXFP4; a GPU without that peak refuses it),\n"
	       "     enforce_eager; trtllm:\n"
	       "     capacity_scheduler_policy GUARANTEED_NO_EVICT|MAX_UTILIZATION;\n"
	       "     disaggregation: {prefill: {tensor_parallel_size, data_parallel_size,\n"
	       "     max_num_seqs, max_num_batched_tokens, kv_role kv_producer}, decode: {...,\n"
	       "     kv_role kv_consumer}, kv_transfer_config: {kv_connector, link\n"
	       "     auto|intra_node|inter_node}}: prefill and decode pools, the KV cache sent\n"
	       "     after each prefill at the fabric's point-to-point time}\n"
	       "  \"workload\": {num_prompts, input_len, output_len (a number, or\n"
	       "     {\"distribution\": uniform|normal|lognormal, mean, range_ratio, stddev, min,\n"
	       "     max}), range_ratio, request_rate (number or \"inf\"), burstiness,\n"
	       "     max_concurrency, prefix_len, prefix_fraction, max_tokens, seed} or\n"
	       "     {\"trace\": \"file.csv\"} with columns arrival_s,input_len,output_len (rows\n"
	       "     in time order), over_length refuse|reject (a request longer than\n"
	       "     max_model_len: bad input, as vLLM refuses it, or counted as rejected)\n"
	       "  \"slo\": {ttft_ms, tpot_ms, itl_ms, e2el_ms, percentile (default 99)}\n"
	       "Keys left out take the engine's documented defaults for the GPU\n"
	       "(models/serving.json says where each comes from; vLLM V1 at 0307428d).\n\n"
	       "How an iteration is timed: the step engine's forward op list of the batch\n"
	       "(GEMMs at the batch's tokens, attention over the paged KV cache, the logits of\n"
	       "the sampled rows, MoE experts that some token chose), TP all-reduces at the\n"
	       "measured custom all-reduce latency on NVLink 4 (NCCL's model elsewhere), and the\n"
	       "host's kernel launches (CUDA graphs for decode batches up to the captured size).\n"
	       "Not modelled: the API server, detokenization and the scheduler's own CPU time.\n"
	       "Exit status 2 for bad input (file:line:col and JSON path in the message).\n");
}

typedef struct prog {
	double t0;
	bool shown, tty;
} prog;

static void progress(void *ctx, double done)
{
	prog *p = ctx;
	if (!p->tty || pp_mono_s() - p->t0 < 2.0)
		return;
	if (done < 0)
		fprintf(stderr, "\rserve: --max-rate: %.0f simulations so far ", -done);
	else
		fprintf(stderr, "\rserve: %3.0f%% of the requests done ", done * 100);
	p->shown = true;
}

int pp_cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
					     {"json", no_argument, NULL, 'j'},
					     {"max-rate", no_argument, NULL, 'm'},
					     {"seed", required_argument, NULL, 's'},
					     {"rate", required_argument, NULL, 'r'},
					     {0, 0, 0, 0}};
	bool json = false, maxrate = false, seed_given = false, rate_given = false;
	unsigned long seed = 0;
	double rate = 0;
	int ch;
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--search"))
			return pp_cmd_serve_search(argc, argv);
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			help();
			return 0;
		case 'j':
			json = true;
			break;
		case 'm':
			maxrate = true;
			break;
		case 's':
			if (pp_cli_parse_seed("serve", optarg, &seed))
				return 2; /* the usage error, printed */
			seed_given = true;
			break;
		case 'r':
			if (pp_cli_parse_num("serve", "--rate", optarg, PP_SERVE_RATE_MIN, PP_SERVE_RATE_MAX,
					     true, "requests per second (workload.request_rate)", &rate))
				return 2; /* the usage error, printed */
			rate_given = true;
			break;
		default:
			return pp_cli_usage_error("serve", "unknown option");
		}
	}
	if (optind + 1 != argc)
		return pp_cli_usage_error("serve", "expected one scenario file");
	if (maxrate && rate_given)
		return pp_cli_usage_error("serve", "--max-rate and --rate: expected one of them");
	pp_cli_scenario l;
	pp_err err = {0};
	pp_serve_setup su;
	bool have_su = false;
	int rc = pp_cli_load_scenario(&l, "serve", argv[optind], NULL, NULL, PP_CLI_SERVING);
	if (rc)
		goto out;
	if ((rc = pp_serve_setup_init(&su, &l.s, &l.hw, &err))) {
		rc = pp_cli_fail(&err);
		goto out;
	}
	have_su = true;
	if (rate_given && pp_serve_trace_factor(&su.sv, &rate, &err)) {
		rc = pp_cli_usage_error("serve", "%s", err.msg);
		goto out;
	}
	prog pg = {pp_mono_s(), false, pp_cli_tty()};
	su.progress = progress;
	su.progress_ctx = &pg;
	uint64_t sd = seed_given ? seed : su.sv.seed;
	pp_serve_result r;
	pp_serve_search mr = {NAN, 0};
	if (maxrate)
		rc = pp_serve_max_rate(&su, sd, 0.01, &mr.rate, &r, &mr.runs, &err);
	else if (!(rc = pp_serve_run(&su, rate_given ? rate : su.sv.trace ? 1.0 /* as recorded */
										   : su.sv.request_rate, sd, &r, &err))) {
		/* a drained backlog is not the rate kept up: no SLO verdict on it */
		if ((rc = pp_serve_check_sustained(&su, sd, &r, &err)) > 0)
			rc = 0;
		else if (rc < 0)
			pp_serve_result_release(&r);
	}
	if (pg.shown)
		fprintf(stderr, "\r%60s\r", "");
	if (rc) {
		rc = pp_cli_fail(&err);
		goto out;
	}
	pp_sb o = {0};
	if (json)
		pp_serve_to_json(&su, &r, &mr, &o);
	else
		pp_serve_to_text(&su, &r, &mr, &o);
	fputs(o.buf ? o.buf : "", stdout);
	pp_sb_release(&o);
out:
	if (have_su)
		pp_serve_setup_release(&su);
	pp_cli_scenario_release(&l);
	return rc;
}
