/*
 * kvcap.h - a serving replica's memory per GPU and its KV-cache capacity,
 * as the engine sizes it at start-up.
 *
 * vLLM V1 (gpu_worker.determine_available_memory at 0307428d):
 *   KV = gpu_memory_utilization x total memory
 *        - weights - peak activation of the profiling run - non-torch memory
 * the profiling run being a forward of max_num_batched_tokens tokens and a
 * sampler over max_num_seqs rows; blocks = KV / (block_size x KV bytes per
 * token of the GPU's layers), the fewest over the pipeline stages; it logs
 * "GPU KV cache size: blocks x block_size tokens" and "Maximum concurrency
 * for max_model_len tokens per request: tokens / max_model_len x".
 * TensorRT-LLM: free_gpu_memory_fraction of the memory left after weights,
 * activations and workspaces. SGLang: mem_fraction_static x total -
 * weights, the fraction (total - reserve) / total with the reserve of
 * server_args.py.
 *
 * Weights: every linear layer at the serving precision (fp8: 1 byte), the
 * embedding, head and norms at 16 bits. The peak activation is podplan's
 * model of the profiling forward (engine/forward.h) and of the sampler's
 * 16-bit logits, their fp32 copy and the probabilities; the non-torch
 * memory is kernels.json's framework_reserved_gib (CUDA context, cuBLAS
 * and NCCL workspaces: an estimate).
 */
#ifndef PP_KVCAP_H
#define PP_KVCAP_H

#include "engine/forward.h"
#include "input/hw.h"
#include "input/scenario.h"

typedef struct pp_serve_memory {
	double device_bytes;        /* the device's total, as the engine reads it */
	double budget_bytes;        /* what the engine may use for weights, activations and KV */
	double weights_bytes;       /* on the GPU of the stage with the fewest blocks */
	double activation_bytes;    /* the profiling forward's peak */
	double sampler_bytes;       /* the profiling sampler's */
	double reserve_bytes;       /* beside PyTorch's allocator */
	double kv_cache_bytes;      /* per GPU */
	double kv_bytes_per_token;  /* per GPU: its stage's layers, its TP share of heads */
	int64_t num_gpu_blocks;     /* per replica ("# GPU blocks") */
	int64_t kv_tokens;          /* num_gpu_blocks x block_size */
	double max_concurrency;     /* kv_tokens / max_model_len */
	int stage;                  /* the stage that sets the block count */
	bool fits;                  /* room for one request of max_model_len */
} pp_serve_memory;

/* Size replica rs (engine/forward.h's replica scenario) of serving spec
 * sv. Never fails; out->fits says whether one max_model_len request fits
 * (vLLM refuses to start otherwise). */
void pp_serve_memory_of(const pp_scenario *rs, const pp_servespec *sv, const pp_hw *hw,
			const pp_forward *f, pp_serve_memory *out);

#endif
