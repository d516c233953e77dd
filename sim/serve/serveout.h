/*
 * serveout.h - a serving run printed: as text in `vllm bench serve`'s
 * layout, or as JSON (cJSON, core/jsonout.h) under the names `vllm bench
 * serve --save-result` writes (completed, duration, total_input_tokens,
 * total_output_tokens, request_throughput, request_goodput,
 * output_throughput, total_token_throughput, mean_/median_/std_/p99_ of
 * ttft_ms, tpot_ms, itl_ms, e2el_ms, max_concurrent_requests, num_prompts,
 * request_rate, burstiness, max_concurrency), plus podplan's: the seed, the
 * replica layout, the KV capacity as vLLM logs it, the memory per GPU, the
 * SLO and whether it holds, the engine's iterations, and with --max-rate
 * the rate found.
 */
#ifndef PP_SERVEOUT_H
#define PP_SERVEOUT_H

#include "core/util.h"
#include "serve/servesim.h"

/* The search's outcome, for the printers (rate NAN: no search). */
typedef struct pp_serve_search {
	double rate;     /* highest request rate meeting the SLO; INFINITY: all at once meets it */
	int runs;        /* simulations made */
} pp_serve_search;

void pp_serve_to_text(const pp_serve_setup *su, const pp_serve_result *r,
		      const pp_serve_search *mr, pp_sb *out);
void pp_serve_to_json(const pp_serve_setup *su, const pp_serve_result *r,
		      const pp_serve_search *mr, pp_sb *out);

/* What a serving scenario deploys, in words, as `podplan check` and the
 * report print it (no simulation: the scenario's resolved settings).
 * Each member one sentence without a final period, "" where s has no
 * serving section. */
typedef struct pp_serve_desc {
	/* engine; TP x PP x DP (replicas, GPUs), expert parallel, or the
	 * disaggregated pools; weights' precision; the KV cache's dtype, as
	 * kv_cache_dtype resolves */
	char deployment[512];
	/* max_num_seqs, max_num_batched_tokens, max_model_len, block_size,
	 * chunked prefill, prefix caching, gpu_memory_utilization, CUDA graphs */
	char scheduler[400];
	/* the requests: lengths and arrivals, or the trace's figures */
	char workload[512];
	/* the bounds at their percentile, or "none" */
	char slo[200];
} pp_serve_desc;
void pp_serve_describe(const pp_scenario *s, pp_serve_desc *d);

#endif
