/*
 * framework.h - the training frameworks of models/frameworks.json and the
 * software stack a scenario resolves to: how its framework, at the version
 * the catalog names, runs a step (which attention kernel, which
 * cross-entropy chain, fused or eager elementwise kernels, what selective
 * recomputation keeps, the dtype of the gradient reduction, whether FSDP
 * re-gathers for the backward, tensor-parallel communication overlap, the
 * optimizer's kernels, host issue cost, fp32 master weights, the context-
 * parallel exchange).
 *
 * Every behaviour has a default per framework, with its source (the
 * repository at a version, the code path, a note), and a training key of
 * its own that overrides it; pp_stack records for each where its value
 * came from, so `podplan check` and `predict` can say. The scenario's
 * training.framework selects the defaults (absent: "megatron-core").
 *
 * Nothing here computes a duration: the engine reads the resolved stack.
 */
#ifndef PP_FRAMEWORK_H
#define PP_FRAMEWORK_H

#include "core/jdoc.h"
#include "core/pp.h"
#include <stdbool.h>

/* The fused attention kernel (or none): its rates per GPU architecture are
 * models/kernels.json attention_kernels; "catalog" is the architecture's
 * single attn_peak_fraction (podplan's figure before per-kernel rates). */
typedef enum pp_attn_kernel {
	PP_ATTN_CATALOG,
	PP_ATTN_FA2,
	PP_ATTN_FA3,
	PP_ATTN_CUDNN,
	PP_ATTN_UNFUSED,
	PP_ATTN_COUNT
} pp_attn_kernel;
extern const char *const pp_attn_kernel_names[PP_ATTN_COUNT];

/* What "recompute": "selective" keeps: Megatron-LM 2022's (the unfused
 * attention core is recomputed; a flash kernel keeps nothing to
 * recompute), Megatron-Core's recompute_modules ["core_attn"] (the core
 * attention is checkpointed whatever its kernel: a fused kernel's forward
 * runs again in the backward), or TorchTitan's op policy (every matmul
 * output but every second one, the attention output, the reduce-scatters
 * are saved; the rest of the block is recomputed). */
enum { PP_SAC_ATTN_CORE, PP_SAC_TORCHTITAN_OP, PP_SAC_CORE_ATTN, PP_SAC_COUNT };
extern const char *const pp_sac_names[PP_SAC_COUNT];

/* How context parallelism exchanges K and V: Megatron-Core / TE's ring of
 * send/recv overlapped with the attention blocks, or PyTorch's
 * context_parallel all-gather (rotate method "allgather") before them. */
enum { PP_CPC_P2P, PP_CPC_ALLGATHER, PP_CPC_COUNT };
extern const char *const pp_cpc_names[PP_CPC_COUNT];

/* Tensor-parallel communication overlap: none, Transformer Engine's
 * userbuffers (ring exchange for all-gather + GEMM, pipelined reduce-scatter
 * on SMs taken from the GEMM, bulk overlap in the backward), or PyTorch's
 * async TP (symmetric-memory micro-pipelining on the copy engines). */
enum { PP_TPO_NONE, PP_TPO_TE, PP_TPO_ASYNC, PP_TPO_COUNT };

/* Gradient reduction dtype: fp32, the training dtype, or Megatron-LM's
 * rule (bf16 reduces fp32 main gradients, fp16 reduces fp16; a ZeRO-2/3
 * layout, DeepSpeed's or FSDP's, reduces in the training dtype). */
enum { PP_GRED_FP32, PP_GRED_TRAIN_DTYPE, PP_GRED_MEGATRON };

/* A cross-entropy chain: bytes read and written per element of the logits
 * (tokens x vocabulary on this rank) at 16-bit logits, the kernels, and the
 * bytes per element kept for the backward and held at the head's peak. */
typedef struct pp_ce_impl {
	char id[32];
	double fwd_bytes, bwd_bytes;
	int fwd_kernels, bwd_kernels;
	double kept_bytes, peak_bytes;
	/* optional (0: not given): held at the forward's peak (the loss), and
	 * held until the step ends (a model output keeping the logits); read
	 * by the eager memory model (engine/memeager.h) */
	double fwd_peak_bytes, held_bytes;
	/* optional (0: not given): the fp32 blocks of tokens x vocabulary the
	 * chain holds at its peak (each its own allocation) */
	double peak_fp32_blocks;
} pp_ce_impl;

/* The elementwise kernels of a layer, in bytes per element over the
 * activation's bytes (so 2 = read once and write once), and kernel counts:
 * a norm (per hidden element), RoPE (per element of q and k), the MLP's
 * activation (per FFN element: SwiGLU, or GeLU), a residual add (per hidden
 * element; a dropout mask adds its own byte), repeat_kv (per K/V element:
 * factor x (1 + repetitions); 0 = K/V not expanded). */
typedef struct pp_eltw_impl {
	char id[32];
	double norm_fwd, norm_bwd, rope_fwd, rope_bwd, act_fwd, act_bwd, gelu_fwd, gelu_bwd;
	double resid_fwd, resid_bwd, repeat_kv;
	int norm_kernels, rope_kernels, act_kernels, resid_kernels;
	/* autograd's sum of a tensor's two gradients (per element; 3: 16-bit) */
	double grad_sum;
	/* torch.autocast over fp32 parameters (0 elsewhere): the cast of a
	 * linear's fp32 input to 16 bits at every call that reads it, and its
	 * backward (per input element); the weight's cast, once per forward
	 * region, and the cast of its 16-bit gradient to fp32 (per weight
	 * element) */
	double cast_in_fwd, cast_in_bwd, weight_cast_fwd, weight_cast_bwd;
	/* the implementation of the same code on an fp32 residual stream
	 * (autocast over fp32 parameters); "" = this one */
	char autocast[32];
	/* the rate its memory-bound kernels reach over the device's copy rate
	 * (hw mem_Bps), as measured; 0: the hardware's elementwise rate */
	double bw_over_copy;
	/* bytes per element autograd saves for the backward (optional, 0: not
	 * counted; read by the eager memory model, engine/memeager.h): one
	 * norm's per hidden element (its output included where the linears
	 * reading it share one tensor), each autocast cast of a linear's input
	 * per hidden element, the gated MLP's per FFN element */
	double kept_norm, kept_cast, kept_act;
} pp_eltw_impl;

/* An Adam optimizer step: bytes per parameter at fp32 states, the 16-bit
 * copy it writes (mixed precision), the gradient-norm and clipping passes. */
typedef struct pp_optim_impl {
	char id[32];
	double bytes_per_param, copy_bytes, clip_bytes;
} pp_optim_impl;

/* FP8 scaling kernels around each FP8 GEMM of a block (frameworks.json
 * "fp8"): bytes per element of the 16-bit operand, for the input (its
 * cast in the forward, its transpose for the weight gradient), the output
 * gradient, the weight (per micro-batch). */
typedef struct pp_fp8_impl {
	char id[32];
	double input_fwd, input_bwd, grad_bwd, weight_fwd, weight_bwd;
} pp_fp8_impl;

/* The behaviours, in the order of their training keys. */
enum {
	PP_BEH_ATTN,
	PP_BEH_CE,
	PP_BEH_ELTW,
	PP_BEH_FUSED_PROJ,
	PP_BEH_SAC,
	PP_BEH_GRAD_FP32,
	PP_BEH_RESHARD,
	PP_BEH_TP_OVERLAP,
	PP_BEH_OPTIM,
	PP_BEH_CUDA_GRAPHS,
	PP_BEH_HOST_ISSUE,
	PP_BEH_MASTER_FP32,
	PP_BEH_CP_COMM,
	PP_BEH_FP8,
	PP_BEH_AUTOCAST,
	PP_BEH_TENSOR_CLOCK,
	PP_BEH_COUNT
};
/* The training key of each behaviour ("attention_kernel", ...). */
extern const char *const pp_beh_keys[PP_BEH_COUNT];

/* A scenario's resolved software stack. */
typedef struct pp_stack {
	char framework[32];          /* frameworks.json id */
	char framework_name[96];
	char version[96];
	pp_attn_kernel attn;         /* the kernel on an architecture not listed below */
	int nattn_arch;              /* a framework default per architecture (TE: cuDNN on Hopper+) */
	char attn_arch[6][16];
	pp_attn_kernel attn_arch_k[6];
	pp_ce_impl ce;
	pp_eltw_impl eltw;
	pp_optim_impl optim;
	pp_fp8_impl fp8;             /* the recipe's scaling kernels (precision fp8) */
	bool fused_proj;             /* Q, K, V in one GEMM; gate and up in one */
	int sac;                     /* PP_SAC_* */
	int grad_reduce;             /* PP_GRED_* */
	bool reshard_after_forward;  /* ZeRO-3 / FSDP re-gathers each layer for its backward */
	int tp_overlap;              /* PP_TPO_* (PP_TPO_NONE unless tp_comm_overlap is on) */
	/* its parameters: all-gather and reduce-scatter chunks (0: one per
	 * tensor-parallel rank), SMs a pipelined reduce-scatter and a bulk
	 * overlap take from the GEMM beside them */
	int tpo_ag_splits, tpo_rs_splits;
	double tpo_rs_sms, tpo_bulk_sms;
	bool cuda_graphs;
	double host_issue_s;         /* host time to issue one kernel (eager); 0 = not host-bound */
	bool master_fp32;            /* fp32 master weights and optimizer states under 16-bit training */
	int cp_comm;                 /* PP_CPC_* */
	/* its implementation (frameworks.json context_parallel): whether the
	 * exchange overlaps the attention, and the bytes (over the activation's)
	 * per element its per-step merges move: the forward's output
	 * correction, the backward's dq and dK/dV accumulation */
	bool cp_overlapped;
	double cp_merge_fwd, cp_merge_bwd_q, cp_merge_bwd_kv;
	bool torch_compile;          /* training.torch_compile (TorchTitan, plain PyTorch) */
	/* tensor_clock "sustained": the step keeps the tensor cores busy enough
	 * that the power limit holds the clocks below their burst (fused,
	 * GEMM-dense stacks); its GEMMs and attention run at the SKU's
	 * sustained share (gpus.json sustained_gemm_fraction). "burst": eager
	 * steps, whose memory-bound kernels and launch gaps leave the GEMMs at
	 * burst rates */
	bool sustained_clock;
	/* torch.autocast around the forward: over fp32 parameters (fp32 master
	 * weights without a wrapper that casts them, as FSDP2's
	 * MixedPrecisionPolicy(param_dtype) does in its all-gather) the
	 * embedding's output and so the residual stream stay fp32, and every
	 * linear casts its inputs and weight; the elementwise kernels are then
	 * eltw_amp (eltw's "autocast" twin) */
	bool autocast;
	pp_eltw_impl eltw_amp;
	/* ZeRO-3 runs as FSDP2's fully_shard (frameworks.json fsdp2_copies):
	 * its local copies around each all-gather and reduce-scatter */
	bool fsdp2_copies;
	/* PyTorch DDP keeps its all-reduce buckets apart from the gradients
	 * (frameworks.json ddp_bucket_copies: gradient_as_bucket_view=False):
	 * each gradient is copied into its bucket and back, and the buckets
	 * are a second copy of the gradients in memory */
	bool ddp_bucket_copies;
	/* the step's memory as eager PyTorch allocates it (frameworks.json
	 * eager_memory, engine/memeager.h), and the optimizer-state-sized
	 * temporaries its optimizer step allocates */
	bool eager_memory;
	double optim_temp_states;
	/* the pipeline schedules the framework ships (frameworks.json
	 * pipeline_schedules; 1 << pp_schedule each), which search ranks
	 * unless search.pipeline_schedules names others; 0: not stated (any) */
	unsigned schedules;
	char schedules_origin[448];
	/* training.ddp: DistributedDataParallel wraps the model (-1: not
	 * given; then it does when data-parallel ranks exist) */
	int ddp;
	/* where each behaviour's value came from: "framework X: <path> (<source title>)"
	 * or "scenario training.<key>" */
	char origin[PP_BEH_COUNT][448];
} pp_stack;

typedef struct pp_frameworks pp_frameworks;

/* Parse models/frameworks.json (d); errors name the file, JSON path, what
 * was found and what was expected. *out is heap-owned (pp_frameworks_free). */
int pp_frameworks_load(pp_frameworks **out, const pp_jdoc *d, pp_err *err);
void pp_frameworks_free(pp_frameworks *f);
/* Ids of the frameworks (for did-you-mean); static within f. */
const char *const *pp_frameworks_ids(const pp_frameworks *f, size_t *n);

/*
 * Resolve the stack of a scenario: training.framework (t may be NULL: no
 * training section; absent key: "megatron-core") and its defaults for a GPU
 * of architecture arch, then every behaviour key t gives (bool, number or
 * implementation id), training.torch_compile and use_flash_attn (false is
 * the attention kernel "unfused"; true with attention_kernel "unfused" is
 * an error). d is the scenario document (for error positions).
 * Errors (PP_EINPUT, exit status 2 at the CLI): an unknown framework or
 * implementation id (did-you-mean), a wrong type, torch_compile with a
 * framework that has no torch.compile path, tp_comm_overlap with a
 * framework that has none.
 */
int pp_stack_resolve(pp_stack *st, const pp_frameworks *f, const pp_jdoc *d, const cJSON *t,
		     pp_err *err);

/* The attention kernel the stack runs on a GPU of architecture arch. */
pp_attn_kernel pp_stack_attention(const pp_stack *st, const char *arch);

/* The stack of framework id with its defaults only (validation rows,
 * tests). Returns PP_EINPUT for an unknown id. */
int pp_stack_default(pp_stack *st, const pp_frameworks *f, const char *id, pp_err *err);

#endif
