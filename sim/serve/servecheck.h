/*
 * servecheck.h - a `vllm bench serve --save-result` file set beside the
 * prediction (`podplan validate --serve RESULT.json SCENARIO`).
 *
 * The result file is what vllm/benchmarks/serve.py writes (main's
 * result_json merged with benchmark()'s result, read at vLLM def9ce85;
 * the same names since the script was benchmarks/benchmark_serving.py):
 * the traffic it ran (num_prompts, request_rate - a number or "inf" -,
 * burstiness, max_concurrency - null or a count), the totals (completed,
 * failed, total_input_tokens, total_output_tokens, duration), the
 * throughputs (request_throughput, output_throughput,
 * total_token_throughput, request_goodput - null without --goodput -,
 * max_output_tokens_per_s, max_concurrent_requests) and, per metric of
 * --percentile-metrics (ttft, tpot, itl, e2el), mean_/median_/std_ and
 * pNN_ (each --metric-percentiles value, "p99", "p99.9") in ms. Other keys
 * (date, backend, label, model_id, metadata given with --metadata, the
 * per-request lists of --save-detailed) are read where they name the run
 * and otherwise ignored. A file written with --append-result holds one
 * record a line; each is compared.
 *
 * The prediction runs the scenario's deployment and workload (its lengths:
 * the file has only their totals, whose means are printed beside the
 * scenario's) with the record's traffic: num_prompts, request_rate,
 * burstiness and max_concurrency replace the scenario's where given.
 * Errors: PP_EINPUT with FILE:LINE:COL, the JSON path, what was found and
 * what was expected.
 */
#ifndef PP_SERVECHECK_H
#define PP_SERVECHECK_H

#include "serve/servesim.h"

#define PP_SCHECK_MAX_FIGS 48
/* records of an --append-result file: each is one simulation */
#define PP_SCHECK_MAX_RECORDS 1000
/* a measured figure below this (ms, requests/s, tokens/s, s) is not
 * compared: no benchmark resolves it, and the error would overflow */
#define PP_SCHECK_MIN_MEASURED 1e-6

/* One figure of a record: its key in the result file, its value (seconds
 * or per-second units as the file has them: ms for latencies). */
typedef struct pp_scheck_fig {
	char key[40];
	double value;
} pp_scheck_fig;

/* One record of the result file. */
typedef struct pp_scheck_bench {
	char where[96];           /* "FILE" or "FILE, record N" */
	char label[64], model_id[128], date[32], backend[32];
	bool has_rate, has_burst, has_conc, has_prompts;
	double request_rate;      /* INFINITY: "inf" */
	double burstiness;
	int64_t max_concurrency;  /* 0: null (none) */
	int64_t num_prompts, completed, failed;
	double total_input_tokens, total_output_tokens; /* < 0: absent */
	int nfigs;
	pp_scheck_fig figs[PP_SCHECK_MAX_FIGS];
} pp_scheck_bench;

/* Read path: one JSON object, or one a line (--append-result). *out is a
 * heap array of *n records, freed with free(). */
int pp_scheck_load(const char *path, pp_scheck_bench **out, size_t *n, pp_err *err);

/* One compared figure: predicted / measured - 1 in error. */
typedef struct pp_scheck_row {
	char key[40];
	double measured, predicted, error;
} pp_scheck_row;

typedef struct pp_scheck_result {
	int nrows;
	pp_scheck_row rows[PP_SCHECK_MAX_FIGS];
	/* the traffic simulated and the lengths on either side */
	double request_rate, burstiness;
	int64_t max_concurrency, num_prompts;
	double meas_input_mean, meas_output_mean;  /* < 0: the file has no totals */
	double pred_input_mean, pred_output_mean;
	double mean_abs_error;                     /* over the rows */
	double mean_abs_throughput, mean_abs_latency; /* NAN when none of the kind */
	/* the simulated deployment did not keep up with the file's offered
	 * rate (pp_serve_check_sustained): it completes capacity_rps with every
	 * request sent at once; its figures describe a drained burst, and
	 * request_goodput (a verdict at the SLO) is not compared */
	bool not_sustained;
	double offered_rps, capacity_rps;
	char note[512];           /* what could not be compared, or "" */
} pp_scheck_result;

/* Simulate record b on su's deployment (su itself is not changed) with
 * seed, and compare every figure of b that podplan predicts. */
int pp_scheck_run(const pp_serve_setup *su, const pp_scheck_bench *b, uint64_t seed,
		  pp_scheck_result *out, pp_err *err);

#endif
