/*
 * forward.h - one forward iteration of a serving batch (podplan serve),
 * costed by the step engine's own op builders: the layer's attention,
 * dense MLP or mixture-of-experts block, the first stage's embedding and
 * the last stage's head, each op timed by compute.h and collective.h
 * (opsint.h's serving mode: the attention over the paged KV cache, the
 * logits of the sampled rows only, the experts that some token chose).
 *
 * The replica is a pp_scenario: parallel.tp / pp (data_parallel_size 1),
 * parallel.ep (> 1: experts split over the TP ranks, vLLM's
 * enable_expert_parallel), training.precision for the weights and GEMMs
 * (bf16, fp16 or fp8; the embedding and head stay 16-bit, as vLLM's fp8
 * checkpoints keep them), sequence parallelism off. Pipeline stages hold
 * pp_stage_layers()'s layers (Megatron's even split; vLLM's
 * get_pp_indices differs by at most one layer per stage).
 *
 * On top of the kernels' GPU time: the host's launch of each kernel (a
 * CUDA graph for decode-only batches up to the largest captured size,
 * padded to it, else eager launches: the GPU never starts a kernel before
 * the host issued it), and TP all-reduces below the largest measured size
 * at the measured custom all-reduce latency when the replica runs on the
 * fabric it was measured on (pp_fwd_opts), NCCL's model above it.
 *
 * Times in seconds, sizes in bytes, work in tokens. pp_forward_new
 * returns a heap object the caller frees with pp_forward_free; it keeps
 * pointers to s and hw, which must outlive it.
 */
#ifndef PP_FORWARD_H
#define PP_FORWARD_H

#include "input/hw.h"
#include "input/scenario.h"
#include <stdbool.h>
#include <stdint.h>

/* What one iteration processes. Prefill chunks and decodes apart because
 * multi-latent attention runs them differently; for other attention they
 * are simply summed. */
typedef struct pp_fwd_batch {
	double prefill_tokens, decode_tokens;  /* new tokens this iteration */
	/* attention work: over the sequences, new tokens x keys each attends
	 * to (a chunk of n after c cached tokens: n c + n (n + 1) / 2) */
	double prefill_pairs, decode_pairs;
	double prefill_kv_read, decode_kv_read; /* KV tokens read (c + n per sequence) */
	/* the same with keys capped at the model's sliding window (windowed
	 * layers only; ignored for models without one) */
	double prefill_pairs_w, decode_pairs_w, prefill_kv_read_w, decode_kv_read_w;
	double kv_write;                       /* tokens whose K and V are written */
	double sampled;                        /* rows whose logits are computed */
	int seqs;                              /* sequences in the batch */
} pp_fwd_batch;

/* The serving engine's figures the iteration needs (servespec.h). */
typedef struct pp_fwd_opts {
	double kv_bytes;            /* per cached K or V element */
	double launch_eager_s;      /* host cost per kernel issued eagerly */
	double launch_graph_s;      /* per kernel of a replayed CUDA graph */
	int64_t graph_max_tokens;   /* largest captured decode batch; 0: never a graph */
	double sampler_passes;      /* fp32 passes of the sampler over rows x vocabulary */
	bool custom_allreduce;
	const pp_ar_curve *ar;      /* measured custom all-reduce latency per TP size */
	int nar;
	const char *ar_intra_node;  /* the fabric they were measured on */
} pp_fwd_opts;

#define PP_FWD_MAX_STAGES 128

typedef struct pp_fwd_cost {
	double total_s;             /* the batch through every stage, sends included */
	int nstages;
	double stage_s[PP_FWD_MAX_STAGES]; /* per stage: kernels, collectives, launch waits
					    * (entries past nstages are not written) */
	double p2p_s;               /* stage-to-stage sends, summed */
	/* over the stages */
	double compute_s, tp_comm_s, ep_comm_s, launch_s;
	double flops;               /* executed */
	double bytes;               /* device-memory traffic of the kernels (collectives apart) */
	double tokens;              /* processed, padded to the CUDA graph's size */
	int kernels;                /* launched, over the stages */
	bool graphed;               /* replayed as a CUDA graph */
} pp_fwd_cost;

typedef struct pp_forward pp_forward;

/* Precompute the replica's dimensions. Errors: PP_EINPUT when the replica
 * has more than PP_FWD_MAX_STAGES stages. */
int pp_forward_new(pp_forward **out, const pp_scenario *s, const pp_hw *hw, const pp_fwd_opts *o,
		   pp_err *err);
void pp_forward_free(pp_forward *f);

/* The iteration's time. Results for a batch shape seen before reuse its
 * memoized non-attention op times (the attention ops are costed anew for
 * every call), so the answer does not depend on call order. */
void pp_forward_cost(pp_forward *f, const pp_fwd_batch *b, pp_fwd_cost *out);

/* A TP all-reduce of bytes as the iteration costs it (custom or NCCL). */
double pp_forward_allreduce_s(const pp_forward *f, double bytes);

/* The token count a batch of n runs at: the CUDA-graph size it is padded
 * to (vLLM's capture list 1, 2, 4 and multiples of 8), or n. */
double pp_forward_padded(const pp_forward *f, double n, bool decode_only);

/* Experts of E that t tokens choosing k each hit, in expectation, when
 * every token's choice is uniform and independent: E (1 - (1 - k/E)^t)
 * (an expert is missed by one token with probability 1 - k/E; the
 * occupancy problem, Feller vol. 1, ch. II.11). Real routers are skewed,
 * so they hit fewer; this is the upper end of the weights a decode reads. */
double pp_forward_experts_hit(double E, double k, double t);

/* Bytes of one layer's activations at their peak for t tokens on a
 * rank (the MLP's or experts' intermediate beside the residual stream),
 * and of the largest such layer: what a profiling forward of t tokens
 * holds beside the weights (serve/kvcap.c). */
double pp_forward_peak_activation_bytes(const pp_forward *f, double t);

#endif
