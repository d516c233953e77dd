/*
 * servespec.h - a serving scenario's "serving", "workload" and "slo"
 * sections, validated, with the engine's documented defaults filled in
 * from models/serving.json.
 *
 * Keys are vLLM's engine arguments (tensor_parallel_size,
 * pipeline_parallel_size, data_parallel_size = replicas,
 * enable_expert_parallel, max_num_seqs, max_num_batched_tokens,
 * max_model_len, block_size, gpu_memory_utilization,
 * enable_chunked_prefill, enable_prefix_caching, kv_cache_dtype,
 * enforce_eager) plus precision (weights and GEMMs: bf16 | fp16 | fp8 |
 * nvfp4 | mxfp4, also as vLLM's modelopt_fp4 and TensorRT-LLM's NVFP4 /
 * MXFP4; a GPU without that dtype's peak in gpus.json refuses it), engine
 * (vllm | sglang | trtllm) and, for TensorRT-LLM, its
 * capacity_scheduler_policy (GUARANTEED_NO_EVICT | MAX_UTILIZATION); the
 * workload uses `vllm bench serve`'s names
 * (num_prompts, input_len, output_len, request_rate, burstiness,
 * max_concurrency, prefix_len and prefix_fraction as --random-prefix-len
 * does, or a trace CSV arrival_s,input_len,output_len); the SLO ttft_ms,
 * tpot_ms, itl_ms, e2el_ms at a percentile. A key left out takes the
 * engine's default for the scenario's GPU (serving.json says where each
 * comes from); pp_servespec.origin[] records, per key, "given" or the
 * default's source.
 *
 * The model is the scenario's model section; the cluster section is read
 * as for training (cluster.num_gpus = tensor x pipeline x replicas).
 * Errors are PP_EINPUT with FILE:LINE:COL, the JSON path, what was found
 * and what was expected (core/jdoc.h). Units inside: seconds, bytes,
 * tokens.
 */
#ifndef PP_SERVESPEC_H
#define PP_SERVESPEC_H

#include "input/catalog.h"
#include "core/jdoc.h"
#include <stdbool.h>
#include <stdint.h>

/* workload.request_rate's bounds (requests/s), for the key and the
 * options that override it */
#define PP_SERVE_RATE_MIN 1e-9
#define PP_SERVE_RATE_MAX 1e9

struct pp_cluster;

typedef enum pp_serve_engine { PP_ENG_VLLM, PP_ENG_SGLANG, PP_ENG_TRTLLM, PP_ENG_COUNT } pp_serve_engine;
extern const char *const pp_serve_engine_names[PP_ENG_COUNT];

/* How each engine sizes its KV cache (pp_serve_kv in serve/kvcap.h). */
typedef enum pp_kv_rule { PP_KVRULE_VLLM, PP_KVRULE_SGLANG, PP_KVRULE_TRTLLM } pp_kv_rule;

/* A token-length distribution (vllm bench serve's random dataset, and
 * two more shapes). Draws are rounded to integers and clamped to
 * [min, max]. */
typedef enum pp_len_kind { PP_LEN_FIXED, PP_LEN_UNIFORM, PP_LEN_NORMAL, PP_LEN_LOGNORMAL } pp_len_kind;
extern const char *const pp_len_kind_names[4];

typedef struct pp_lendist {
	pp_len_kind kind;
	double mean;          /* tokens */
	double range_ratio;   /* uniform: integers in [floor(L(1-r)), ceil(L(1+r))], r in [0, 1)
			       * (vllm bench serve --random-range-ratio at 0307428d) */
	double stddev;        /* normal, lognormal: of the length itself, tokens */
	int64_t min, max;     /* clamp (default 1 .. max_model_len) */
} pp_lendist;

typedef struct pp_trace_row {
	double arrival_s;
	int64_t input_len, output_len;
} pp_trace_row;

/* Load balancing over replicas. */
enum { PP_LB_LEAST_LOADED, PP_LB_ROUND_ROBIN };

/* Measured custom all-reduce latency by TP size (serving.json). */
#define PP_AR_MAX_POINTS 12
typedef struct pp_ar_curve {
	int tp;                              /* 0: unused slot */
	int n;
	double bytes[PP_AR_MAX_POINTS], s[PP_AR_MAX_POINTS];
} pp_ar_curve;

/* Keys the file gave (others are defaults). */
enum {
	PP_SG_SEQS = 1 << 0,
	PP_SG_TOKENS = 1 << 1,
	PP_SG_MODEL_LEN = 1 << 2,
	PP_SG_BLOCK = 1 << 3,
	PP_SG_UTIL = 1 << 4,
	PP_SG_DP = 1 << 5,
	PP_SG_RATE = 1 << 6
};

/* Disaggregated prefill/decode (serving.disaggregation): two pools of
 * instances of the same model on the scenario's GPU, prefill instances
 * (vLLM kv_role "kv_producer", SGLang --disaggregation-mode prefill)
 * running prompts only and decode instances (kv_consumer, mode decode)
 * receiving each request's KV cache over a link and generating its
 * tokens (DistServe, Zhong et al., OSDI'24; Splitwise, Patel et al.,
 * ISCA'24). A pool's keys left out take the serving section's values. */
enum { PP_POOL_PREFILL, PP_POOL_DECODE, PP_NPOOLS };
extern const char *const pp_pool_names[PP_NPOOLS];
enum { PP_LINK_AUTO, PP_LINK_INTRA, PP_LINK_INTER };
extern const char *const pp_link_names[3];

typedef struct pp_serve_pool_spec {
	int tp, dp;                   /* tensor_parallel_size; data_parallel_size: instances */
	int64_t max_num_seqs, max_num_batched_tokens;
	int64_t cudagraph_max;        /* the engine's rule at the pool's max_num_seqs */
	unsigned given;               /* PP_SG_SEQS, PP_SG_TOKENS, PP_SG_DP */
} pp_serve_pool_spec;

typedef struct pp_serve_disagg {
	bool present;
	pp_serve_pool_spec pool[PP_NPOOLS];
	int link;                     /* PP_LINK_*: auto = one node when both pools fit in one */
	char kv_connector[32];        /* kv_transfer_config.kv_connector, as given (informational) */
} pp_serve_disagg;

typedef struct pp_servespec {
	bool present;
	pp_serve_disagg disagg;       /* serving.disaggregation; .present false: co-located */                 /* the file has a "serving" section */
	pp_serve_engine engine;
	/* one replica's layout and precision */
	int tp, pp, dp;               /* dp: replicas */
	bool expert_parallel;         /* experts split over the replica's TP ranks */
	pp_dtype precision;           /* weights and GEMMs: bf16, fp16, fp8, nvfp4 or mxfp4 */
	char kv_cache_dtype[16];      /* "auto", "fp8", "fp8_e4m3", "fp8_e5m2", "bf16" */
	double kv_bytes;              /* bytes per cached K or V element */
	int64_t max_num_seqs, max_num_batched_tokens, max_model_len;
	int block_size;               /* tokens per KV block */
	double gpu_memory_utilization;/* vllm: of total memory; trtllm: of free memory; sglang: 0 = derived */
	bool chunked_prefill, prefix_caching, enforce_eager;
	unsigned given;               /* PP_SG_* */
	/* the engine's behaviour (serving.json) */
	bool mixed_batches;           /* decodes and prefill chunks share an iteration */
	bool prefill_first;           /* not mixed: a prefill batch whenever one can be admitted */
	bool preemption;              /* a running request short of KV preempts the newest (recompute) */
	double output_reserve;        /* admission reserves this share of a request's max_tokens */
	char capacity_policy[24];     /* trtllm: capacity_scheduler_policy ("" for other engines) */
	int64_t cudagraph_max;        /* largest captured decode batch (tokens); 0: eager only */
	pp_kv_rule kv_rule;
	double sg_reserve_base_bytes, sg_reserve_per_chunk_token, sg_reserve_per_graph_bs,
		sg_reserve_per_8_ranks, sg_reserve_floor_bytes, sg_big_bytes;
	double sg_max_running_scale, sg_max_running_floor; /* sglang: max_running_requests rule */
	bool seqs_from_kv;            /* max_num_seqs not given and the engine derives it from the KV size */
	bool custom_allreduce;
	pp_ar_curve ar[4];
	char ar_intra_node[16];       /* the intra-node fabric the curves were measured on */
	double launch_eager_s, launch_graph_s;  /* per kernel */
	double device_total_bytes;    /* what CUDA reports as total (0: the catalog's memory) */
	double sampler_passes;        /* fp32 passes over the sampled rows' logits */
	int lb_policy;                /* PP_LB_* */
	double lb_waiting_weight;
	/* workload */
	int64_t num_prompts;
	pp_lendist input, output;
	double request_rate;          /* requests/s; INFINITY: all at t = 0 */
	double burstiness;            /* gamma shape of inter-arrival times (1: Poisson) */
	int64_t max_concurrency;      /* in-flight cap of the client; 0: none */
	int64_t prefix_len;           /* tokens of a prefix shared by the requests that carry it */
	double prefix_fraction;       /* share of requests carrying it */
	int64_t max_tokens;           /* a request's max output tokens (0: its output length) */
	/* workload.over_length: a request whose prompt + max_tokens passes
	 * max_model_len is refused by vLLM's server (HTTP 400); false
	 * ("refuse", the default): such a workload is bad input (exit 2);
	 * true ("reject"): each such request is counted as rejected and the
	 * others run */
	bool reject_over_length;
	uint64_t seed;
	/* left out of every statistic: the first this many requests sent and
	 * the last this many to finish (a steady-state window, as a client
	 * measuring in stable windows reports; 0: every request) */
	int64_t warmup_requests;
	pp_trace_row *trace;          /* owned; NULL without a trace */
	size_t ntrace;
	char trace_path[512];
	/* SLO (0: no bound) */
	bool slo_present;
	double slo_ttft_s, slo_tpot_s, slo_itl_s, slo_e2el_s;
	double slo_percentile;        /* 0..100 */
	/* provenance of the defaults, for printing: "engine defaults: ..." */
	char defaults_note[600];
} pp_servespec;

/* Parse the serving, workload and slo members of d's root (any may be
 * absent: sv->present is false without "serving"; a workload or slo
 * without a serving section is an error). m and cl are the scenario's
 * parsed model and cluster. Reads models/serving.json from the catalog's
 * directory. On failure nothing stays allocated. */
int pp_servespec_parse(pp_servespec *sv, const pp_jdoc *d, const pp_model *m,
		       const struct pp_cluster *cl, const pp_catalog *cat, pp_err *err);
void pp_servespec_release(pp_servespec *sv);

/* The longest length L draws (pp_lendist_draw, serve/requests.h): its
 * mean for a fixed length, vllm bench serve's upper end
 * ceil(mean (1 + range_ratio)) for a uniform one, mean + tail x stddev for
 * a normal or lognormal one (tail INFINITY: none but max, as the draws),
 * kept within [min, max]. Tokens. (servework.c, as the two below.) */
double pp_lendist_longest(const pp_lendist *L, double tail);

/* The longest input (output 0) or output (1) sv's workload sends, without
 * the shared prefix: a trace's longest row, else pp_lendist_longest of the
 * distribution with that tail. */
double pp_servework_longest(const pp_servespec *sv, int output, double tail);

/* The longest prompt sv's workload sends, its shared prefix included: a
 * trace's longest input_len, else prefix_len and the longest input
 * (every tail), at most max_model_len - 1 (a request leaves room for one
 * output token, as vLLM asks). The parser checks it against
 * max_num_batched_tokens without chunked prefill; the requests are cut to
 * it. */
int64_t pp_servework_longest_prompt(const pp_servespec *sv);

/* GPUs of one serving unit: a replica (tensor x pipeline), or with
 * disaggregation both pools (pipeline x (prefill TP x instances + decode
 * TP x instances)), which the costs scale as one replica. */
int pp_servespec_unit_gpus(const pp_servespec *sv);

/* KV-cache bytes per token per TP rank of model m at tp ranks with
 * elements of kv_bytes, summed over the layers: MHA/GQA 2 x kv heads per
 * rank (max(1, kv heads / tp): heads replicated when fewer than ranks) x
 * head size; MLA one latent of kv_lora_rank + qk_pos_emb_head_dim,
 * replicated on every rank (vLLM kv_cache_interface.py, MLAAttentionSpec). */
double pp_kv_bytes_per_token(const pp_model *m, int tp, double kv_bytes);

#endif
