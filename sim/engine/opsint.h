/*
 * opsint.h - what the files that write one micro-batch's op list share:
 * workload.c (the build, parameters), ops.c (the op primitives), layerops.c
 * (attention, dense MLP, embedding, head) and moeops.c (a mixture-of-experts
 * block). Private to sim/engine/; the public interface is workload.h.
 *
 * Every op records its shape, FLOPs, bytes and costed time (compute.h,
 * collective.h) on this GPU: sizes are per tensor-parallel rank (and per
 * expert-parallel rank for the experts).
 */
#ifndef PP_OPSINT_H
#define PP_OPSINT_H

#include "engine/collective.h"
#include "engine/compute.h"
#include "engine/workload.h"

typedef struct ctx {
	pp_workload *w;
	const pp_hw *hw;
	pp_dtype dt;          /* GEMM dtype */
	pp_dtype attn_dt;     /* attention dtype (fp8 runs attention in bf16) */
	double act;           /* bytes per activation element */
	pp_part part;
	pp_phase phase;
	int kind;             /* the layer kind being built (PP_LK_*) */
	/* the framework's stack (training; NULL for the serving forward pass,
	 * which keeps the fused kernels): its elementwise kernels, the attention
	 * kernel on this GPU, TorchTitan's op-level recompute policy */
	const pp_stack *st;
	pp_attn_kernel attn_k;
	bool sac_op;          /* building the recompute of the op policy */
	bool core_attn;       /* the recompute of Megatron-Core's checkpointed core attention */
	int mm_count;         /* its matmuls so far: every second one is recomputed */
	/* torch.autocast over fp32 parameters (input/framework.h pp_stack
	 * autocast): the residual stream is fp32, the linears cast their inputs
	 * and weights */
	bool amp;
} ctx;

/* The elementwise kernels ctx c runs (the fused ones without a stack; the
 * stack's fp32-stream twin under autocast). */
const pp_eltw_impl *wl_eltw(const ctx *c);
/* Bytes per element of the residual stream (fp32 under autocast). */
double wl_stream_bytes(const ctx *c);
/* Under autocast: the casts of a linear's fp32 input to 16 bits, one per
 * call reading it (calls linears read the same elems), or in the backward
 * the casts of their input gradients back to fp32. Nothing otherwise. */
void wl_amp_cast(ctx *c, const char *name, double elems, int calls, bool bwd);

/* The layout's dimensions for one micro-batch on one GPU. */
typedef struct dims {
	double b, s, sl, h, a, g, d, f, t, V, T, Tn; /* Tn: tokens on norm/dropout ops (SP) */
	double qw;            /* query width a x head_dim (h unless head_dim is given) */
	bool sp, flash, dropout, swiglu;
	bool rope;            /* rotary positions (Llama-style models; GPT's are learned) */
	bool fused_proj;      /* Q, K, V one GEMM, gate and up one (Megatron); else one each */
	bool peft, qlora;     /* a frozen base with LoRA adapters; stored in NF4 */
	double r, base_wb;    /* adapter rank; bytes of a stored base weight */
	/* multi-latent attention */
	bool mla;
	double qlr, kvlr, dqk, drope, dv;
	/* the kind being built */
	bool moe, windowed;
	bool linear;          /* a Gated DeltaNet layer (gdnops.c) instead of softmax attention */
	double qgate;         /* q_proj's width over the query's: 2 with an output gate, else 1 */
	double nk, nv, dk, dvl, conv; /* Gated DeltaNet: key, value heads; their sizes; conv taps */
	double window;        /* tokens a windowed layer attends to */
	/* experts (MoE kinds) */
	double E, topk, Fm, S;     /* experts, per token, one's FFN, the shared FFN */
	double ep, etp, El;        /* EP and expert-TP sizes, experts on this GPU */
	double n_avg, n_busy;      /* token rows per local expert: the mean, the busiest rank's */
	double imb;                /* busiest rank / mean (capped by a capacity factor) */
	int dispatcher;            /* PP_MOE_ALLTOALL | PP_MOE_ALLGATHER */
	bool shared_overlap, grouped;
	pp_group epg, etpg, tpepg; /* EP, expert-TP, and expert-TP x EP groups */
	/* serving (engine/forward.c): one forward iteration of a serving batch
	 * instead of a training micro-batch; T is then the batch's new tokens
	 * (padded to a captured CUDA-graph size where one runs) */
	bool serve;
	double kvb;                /* KV-cache bytes per token and layer on this rank */
	double kv_write;           /* tokens whose K and V are written to the cache */
	double pf_tok, dc_tok;     /* new tokens of prefill chunks, of decodes */
	double pf_pairs, dc_pairs; /* attention work: new tokens x keys they attend (causal) */
	double pf_kv, dc_kv;       /* KV-cache tokens the attention reads */
	double pf_pairs_w, dc_pairs_w, pf_kv_w, dc_kv_w; /* the same for windowed layers */
	double rows;               /* sampled rows: the logits computed */
	double sampler_passes;     /* fp32 passes of the sampler over rows x vocabulary */
	double El_act;             /* local experts receiving at least one token */
} dims;

/* workload.c: the model's dimensions on tp ranks (every field the model
 * and the TP size fix); the training step and the serving forward pass
 * add their batch's. */
void wl_dims_model(dims *x, const pp_model *m, int tp);

/* ops.c: the primitives. Each appends an op to c->w and returns it (or
 * its index). */
pp_op *wl_add(ctx *c, const char *name, pp_op_kind kind);
/* batch x (m x n x k); count: it is model work (MFU numerator) */
pp_op *wl_gemm(ctx *c, const char *name, double m, double n, double k, double batch, bool count);
/* dgrad (m x k x n) and wgrad (k x n x m); returns the wgrad's index, *dgrad the dgrad's */
int wl_linear_bwd(ctx *c, const char *name, double m, double n, double k, double batch, int *dgrad);
void wl_mem(ctx *c, const char *name, double bytes);
/* The same for a chain of n kernels moving bytes together (an eager norm). */
void wl_mem_n(ctx *c, const char *name, double bytes, int n);
/* Tensor-parallel communication overlapped as the stack's implementation
 * runs it (input/framework.h PP_TPO_*): collective ci beside GEMMs g0..g1
 * of this pass, as a ring exchange (an all-gather feeding the GEMMs, or a
 * reduce-scatter of their output over a ring), a pipelined reduce-scatter
 * of their output, or a bulk collective beside them. Nothing without an
 * overlap implementation (the collective keeps its exposure). */
enum { WL_OV_RING, WL_OV_PIPE, WL_OV_BULK };
void wl_tp_overlap(ctx *c, int ci, int g0, int g1, int mode);
/* A TP/SP collective on the compute stream; hide >= 0: the op (a GEMM of
 * this pass) it overlaps. Nothing over a group of one. */
void wl_comm(ctx *c, const char *name, pp_coll op, double bytes, pp_group g, int hide);
/* Under sequence parallelism, the all-gather of a block's hidden-wide
 * input (or of its output's gradient) over tp, named name: its op index,
 * or -1 where none was listed (no SP, or a group of one). */
int wl_sp_gather(ctx *c, const dims *x, const char *name, pp_group tp);
/* The same for the expert-parallel dispatch and combine (booked apart);
 * gk: the ranks (PP_GK_EP, PP_GK_ETP or PP_GK_TPEP). */
void wl_comm_ep(ctx *c, const char *name, pp_coll op, double bytes, pp_group g, int gk, int hide);
/* List a context-parallel exchange (op over g, bytes sent per GPU in
 * calls of msg_bytes each) or, op
 * < 0, its merge kernels, with the time and exposed share the workload's
 * context-parallel block costed (workload.c): the pass costs already hold
 * them, so the op only shows them in the op list (predict --ops). */
void wl_cp_op(ctx *c, const char *name, int op, double bytes, double msg_bytes, pp_group g,
	      double time_s, double exposed_s);
/* A weight-bearing linear of a block (LoRA/QLoRA aware) and its backward;
 * nsub: the sub-projections sharing the GEMM (q, k, v: 3). */
void wl_block_linear(ctx *c, const dims *x, const char *name, double m, double n, double k, int nsub,
		     bool count);
int wl_block_linear_bwd(ctx *c, const dims *x, const char *name, double m, double n, double k,
			int nsub, int *dgrad);
/* After a column-parallel linear's backward following norm n: the SP
 * all-gather behind its dgrad, the input gradient's reduce-scatter (or
 * all-reduce) behind its wgrad, then the norm's backward; n is 1 (the
 * attention's norm) or 2 (the MLP's). */
void wl_colpar_grad_comm(ctx *c, const dims *x, pp_group tp, int dg, int wg, int n);

/* layerops.c */
void wl_attention_fwd(ctx *c, const dims *x, pp_group tp, bool count, bool core_only);
/* Serving (x->serve): the attention core's ops of one iteration, as
 * wl_attention_fwd adds them after the KV cache write (attn_paged, or
 * MLA's prefill and decode ops of the parts present), into out[] without
 * an op list: what forward.c recosts for every batch. Returns how many
 * (at most WL_SERVE_ATTN_MAX). */
#define WL_SERVE_ATTN_MAX 2
typedef struct wl_attn_fig {
	const char *name;
	double flops, bytes, time_s;
} wl_attn_fig;
int wl_serve_attention_core(const ctx *c, const dims *x, wl_attn_fig *out);
void wl_attention_bwd(ctx *c, const dims *x, pp_group tp);
void wl_mlp_fwd(ctx *c, const dims *x, pp_group tp, bool count);
void wl_mlp_bwd(ctx *c, const dims *x, pp_group tp);
void wl_embed_fwd(ctx *c, const dims *x, pp_group tp);
void wl_embed_bwd(ctx *c, const dims *x, pp_group tp);
void wl_head_fwd(ctx *c, const dims *x, pp_group tp, bool count);
void wl_head_bwd(ctx *c, const dims *x, pp_group tp);

/* gdnops.c: a Gated DeltaNet layer's token mixer in place of the
 * attention (wl_attention_fwd/bwd hand over to them when x->linear). */
void wl_gdn_fwd(ctx *c, const dims *x, pp_group tp, bool count, bool core_only);
void wl_gdn_bwd(ctx *c, const dims *x, pp_group tp);

/* moeops.c: the MLP of an MoE layer (router, dispatch, experts, combine,
 * shared experts), after the second norm. */
void wl_moe_fwd(ctx *c, const dims *x, pp_group tp, bool count);
void wl_moe_bwd(ctx *c, const dims *x, pp_group tp);
/* The combined 1F1B pair of an MoE layer kind (ops [a0,a1) its forward,
 * [a1,a2) its backward, [a2,a3) its recompute): sets the seconds the
 * forward's and the backward's exposed all-to-alls shrink by. */
void wl_moe_pair_saving(ctx *c, int a0, int a1, int a2, int a3, bool delay_wgrad,
			double *save_fwd, double *save_bwd);
/* DualPipe's overlapped forward-backward pair of an MoE layer kind (the
 * same ops and the same two streams as the combined 1F1B pair above, the
 * expert weight gradients inside the backward): the all-to-all kernels
 * hold comm_sms of the GPU's SMs (hw sm_count) all through the pair, so
 * every compute segment takes sm_count / (sm_count - comm_sms) as long,
 * and no catalog overlap efficiency applies on top (that share of the SMs
 * is the contention). Sets out: the EP seconds hidden, split between the
 * passes by their all-to-all time, and the compute seconds added, by their
 * compute. */
void wl_moe_dualpipe_pair(ctx *c, int a0, int a1, int a2, int a3, int comm_sms,
			  pp_dual_pair *out);

#endif
