/* layerops.c - the ops of a transformer layer's attention and dense MLP,
 * of the embedding and of the head and loss (opsint.h). */
#include "engine/opsint.h"

#include <stdio.h>

/* Attention core FLOPs of one layer's forward, in the MFU convention (the
 * full s x s_kv score matrix, Narayanan et al. SC'21 eq. 3) and as a
 * flash-attention kernel executes them: under the causal mask it skips the
 * blocks above the diagonal (half), and a sliding window of w < s tokens
 * leaves w s - w^2 / 2 of the s^2 scores (the convention then counts the
 * full window, w s). qk and v: head sizes of Q.K and of V. */
static void attn_flops(const dims *x, double qk, double v, double *model, double *executed)
{
	double full = 2.0 * x->b * x->sl * x->s * (x->a / x->t) * (qk + v);
	if (x->windowed && x->window < x->s) {
		double w = x->window;
		*model = full * w / x->s;
		*executed = full * (w * x->s - 0.5 * w * w) / (x->s * x->s);
		return;
	}
	*model = full;
	*executed = 0.5 * full; /* causal: blocks above the diagonal are skipped */
}

/* Q, K, V of multi-latent attention (DeepSeek-V2 Sec. 2.1): the query
 * through its rank-qlr bottleneck (down-projection and norm replicated on
 * every TP rank, the up-projection split over heads), keys and values
 * through one latent of kvlr plus the shared RoPE key, then the per-head
 * up-projection; the RoPE rotation of q and k. */
static void mla_qkv_fwd(ctx *c, const dims *x, bool count)
{
	double at = x->a / x->t, dq = x->dqk + x->drope;
	if (x->qlr > 0) {
		wl_block_linear(c, x, "q_down", x->T, x->qlr, x->h, 1, count);
		wl_mem(c, "q_norm", 2.0 * c->act * x->T * x->qlr);
		wl_block_linear(c, x, "q_up", x->T, at * dq, x->qlr, 1, count);
	} else {
		wl_block_linear(c, x, "q_proj", x->T, at * dq, x->h, 1, count);
	}
	wl_block_linear(c, x, "kv_down", x->T, x->kvlr + x->drope, x->h, 1, count);
	wl_mem(c, "kv_norm", 2.0 * c->act * x->T * x->kvlr);
	wl_block_linear(c, x, "kv_up", x->T, at * (x->dqk + x->dv), x->kvlr, 1, count);
	wl_mem(c, "rope", 2.0 * c->act * x->T * (at + 1.0) * x->drope);
}

static void mla_qkv_bwd(ctx *c, const dims *x, pp_group tp, int *dg, int *wg)
{
	double at = x->a / x->t, dq = x->dqk + x->drope;
	int d2;
	wl_mem(c, "rope.bwd", 2.0 * c->act * x->T * (at + 1.0) * x->drope);
	wl_block_linear_bwd(c, x, "kv_up", x->T, at * (x->dqk + x->dv), x->kvlr, 1, &d2);
	/* the replicated latents' gradients, summed over the TP ranks */
	wl_comm(c, "tp.allreduce_latent", PP_COLL_ALL_REDUCE,
		x->T * (x->kvlr + (x->qlr > 0 ? x->qlr : 0)) * c->act, tp, -1);
	wl_mem(c, "kv_norm.bwd", 3.0 * c->act * x->T * x->kvlr);
	*wg = wl_block_linear_bwd(c, x, "kv_down", x->T, x->kvlr + x->drope, x->h, 1, dg);
	if (x->qlr > 0) {
		wl_block_linear_bwd(c, x, "q_up", x->T, at * dq, x->qlr, 1, &d2);
		wl_mem(c, "q_norm.bwd", 3.0 * c->act * x->T * x->qlr);
		wl_block_linear_bwd(c, x, "q_down", x->T, x->qlr, x->h, 1, &d2);
	} else {
		wl_block_linear_bwd(c, x, "q_proj", x->T, at * dq, x->h, 1, &d2);
	}
}

/* Serving: the attention of one iteration over a batch of prefill chunks
 * and decodes reading the paged KV cache (vLLM's FlashAttention varlen
 * kernel, one launch for the batch). The new tokens' K and V are written
 * to the cache first (reshape_and_cache: read at the activation width,
 * written at the cache's); the kernel then reads Q, every key and value it
 * attends to from the cache once, and writes O. Executed FLOPs are 2 per
 * multiply-add of Q.K and of P.V over the (new token, key) pairs the batch
 * describes (causal inside a chunk). Multi-latent attention (DeepSeek-V2
 * Sec. 2.1, vLLM's MLA backends): prefill chunks attend with the latent
 * expanded per head (heads of dqk + drope for Q.K, dv for V), decodes with
 * W_UK and W_UV absorbed into the query and output, so each head attends
 * over the cached latent itself (kvlr + drope for Q.K, kvlr for V); the
 * absorption GEMMs have kv_up's shape and FLOPs, which mla_qkv_fwd already
 * counts. */
int wl_serve_attention_core(const ctx *c, const dims *x, wl_attn_fig *out)
{
	double act = c->act, heads_t = x->a / x->t;
	double qk = x->mla ? x->dqk + x->drope : x->d, v = x->mla ? x->dv : x->d;
	bool w = x->windowed && x->window > 0;
	double pf_pairs = w ? x->pf_pairs_w : x->pf_pairs, dc_pairs = w ? x->dc_pairs_w : x->dc_pairs;
	double pf_kv = w ? x->pf_kv_w : x->pf_kv, dc_kv = w ? x->dc_kv_w : x->dc_kv;
	int n = 0;
	if (!x->mla) {
		out[n].name = "attn_paged";
		out[n].flops = 2.0 * (pf_pairs + dc_pairs) * heads_t * (qk + v);
		out[n].bytes = 2.0 * x->T * x->qw / x->t * act + (pf_kv + dc_kv) * x->kvb;
		n++;
	} else {
		if (x->pf_tok > 0) {
			out[n].name = "mla_prefill_attn";
			out[n].flops = 2.0 * pf_pairs * heads_t * (qk + v);
			out[n].bytes = x->pf_tok * heads_t * (2.0 * qk + 2.0 * v) * act + pf_kv * x->kvb;
			n++;
		}
		if (x->dc_tok > 0) {
			double lq = x->kvlr + x->drope, lv = x->kvlr;
			out[n].name = "mla_decode_attn";
			out[n].flops = 2.0 * dc_pairs * heads_t * (lq + lv);
			out[n].bytes = x->dc_tok * heads_t * (lq + lv) * act + dc_kv * x->kvb;
			n++;
		}
	}
	for (int i = 0; i < n; i++)
		out[i].time_s = pp_attn_time(c->hw, c->attn_dt, out[i].flops, out[i].bytes);
	return n;
}

static void serve_attention(ctx *c, const dims *x)
{
	double act = c->act;
	double kv_in = x->mla ? (x->kvlr + x->drope) * act : 2.0 * x->g / x->t * x->d * act;
	wl_mem(c, "kv_cache_write", x->kv_write * (x->kvb + kv_in));
	wl_attn_fig f[WL_SERVE_ATTN_MAX];
	int n = wl_serve_attention_core(c, x, f);
	for (int i = 0; i < n; i++) {
		pp_op *o = wl_add(c, f[i].name, PP_OP_ATTN);
		o->dtype = c->attn_dt;
		o->flops = f[i].flops;
		o->bytes = f[i].bytes;
		o->time_s = f[i].time_s;
	}
}

/* The attention kernel's sequence for its measured rate: the keys a query
 * block sees (a context-parallel rank's chunks are half its sequence). */
static double attn_seq(const dims *x)
{
	return x->sl < x->s ? x->sl / 2.0 : x->s;
}

/* RoPE on q and k (Llama-style models; MLA has its own): the stack's
 * kernels, bytes per element of q and k. */
static void rope_op(ctx *c, const dims *x, const char *name, double f)
{
	const pp_eltw_impl *e = wl_eltw(c);
	if (!x->rope || x->mla || f <= 0)
		return;
	wl_mem_n(c, name, f * c->act * x->T * (x->qw + x->g * x->d) / x->t, e->rope_kernels);
}

/* repeat_kv (TorchTitan): K and V copied to every query head before the
 * kernel, and their gradients summed back. */
static void repeat_op(ctx *c, const dims *x, const char *name)
{
	const pp_eltw_impl *e = wl_eltw(c);
	if (e->repeat_kv <= 0 || x->mla || x->g >= x->a)
		return;
	double kv = x->T * x->g * x->d / x->t;
	wl_mem_n(c, name, 2.0 * e->repeat_kv * c->act * kv * (1.0 + x->a / x->g), 2);
}

void wl_attention_fwd(ctx *c, const dims *x, pp_group tp, bool count, bool core_only)
{
	const pp_eltw_impl *e = wl_eltw(c);
	double act = c->act;
	double kvw = 2.0 * x->g * x->d;            /* K and V width */
	double heads_t = x->a / x->t;
	double mask = x->dropout ? 1.0 : 0.0;
	double qk = x->mla ? x->dqk + x->drope : x->d, v = x->mla ? x->dv : x->d;
	bool recomp_core = c->sac_op && c->phase == PP_PH_RECOMPUTE; /* the core's output is saved */
	if (x->linear) {
		wl_gdn_fwd(c, x, tp, count, core_only);
		return;
	}
	if (!core_only) {
		/* serving: vLLM's fused residual add + RMSNorm (read x and the
		 * residual, write both) */
		if (x->serve)
			wl_mem(c, "ln1", 4.0 * act * x->Tn * x->h);
		else
			wl_mem_n(c, "ln1", e->norm_fwd * act * x->Tn * x->h, e->norm_kernels);
		int ag = wl_sp_gather(c, x, "sp.allgather1", tp), g0 = c->w->nops;
		/* autocast: q, k and v each cast the fp32 norm output */
		if (!x->mla)
			wl_amp_cast(c, "qkv.input_cast", x->T * x->h, x->fused_proj ? 1 : 3, false);
		if (x->mla) {
			mla_qkv_fwd(c, x, count);
		} else if (x->fused_proj || x->serve) {
			wl_block_linear(c, x, "qkv", x->T, (x->qgate * x->qw + kvw) / x->t, x->h, 3,
					count);
		} else {
			wl_block_linear(c, x, "q", x->T, x->qgate * x->qw / x->t, x->h, 1, count);
			wl_block_linear(c, x, "k", x->T, x->g * x->d / x->t, x->h, 1, count);
			wl_block_linear(c, x, "v", x->T, x->g * x->d / x->t, x->h, 1, count);
		}
		if (ag >= 0)
			wl_tp_overlap(c, ag, g0, c->w->nops - 1, WL_OV_RING);
		if (x->serve && !x->mla) /* the rotary embedding of q and k, its own kernel */
			wl_mem(c, "rope", 2.0 * act * x->T * (x->qw + x->g * x->d) / x->t);
		else
			rope_op(c, x, "rope", e->rope_fwd);
		if (!x->serve && x->flash)
			repeat_op(c, x, "repeat_kv");
	}
	if (x->serve) {
		serve_attention(c, x);
	} else if (x->flash) {
		if ((!core_only || c->core_attn) && !recomp_core) {
			pp_op *o = wl_add(c, "flash_attn", PP_OP_ATTN);
			double model, exec;
			bool causal = !(x->windowed && x->window < x->s);
			attn_flops(x, qk, v, &model, &exec);
			o->dtype = c->attn_dt;
			o->flops = exec;
			o->model_flops = count ? model : 0;
			o->bytes = x->mla ? x->T * heads_t * (2.0 * qk + 2.0 * v) * act
					  : x->T * (x->qw + kvw + x->qw) / x->t * act;
			o->time_s = pp_attn_time_k(c->hw, c->attn_dt, c->attn_k, false, causal, attn_seq(x),
						   0.5 * (qk + v), o->flops, o->bytes);
		}
	} else {
		double scores = x->b * heads_t * x->sl * x->s;
		wl_gemm(c, "attn.qk", x->sl, x->s, qk, x->b * heads_t, count);
		wl_mem(c, "attn.softmax", scores * 2.0 * act);
		if (x->dropout)
			wl_mem(c, "attn.dropout", scores * (2.0 * act + mask));
		wl_gemm(c, "attn.av", x->sl, v, x->s, x->b * heads_t, count);
	}
	if (core_only)
		return;
	/* the output gate (Qwen3-Next): o * sigmoid(gate), read both, write */
	if (x->qgate > 1.0)
		wl_mem(c, "attn_gate", 3.0 * act * x->T * x->qw / x->t);
	int g0 = c->w->nops;
	wl_block_linear(c, x, "proj", x->T, x->h, (x->mla ? x->a * x->dv : x->qw) / x->t, 1, count);
	int g1 = c->w->nops - 1, rs = c->w->nops;
	wl_comm(c, x->sp ? "sp.reducescatter1" : "tp.allreduce1",
		x->sp ? PP_COLL_REDUCE_SCATTER : PP_COLL_ALL_REDUCE, x->T * x->h * act, tp, -1);
	if (x->sp && c->w->nops > rs)
		wl_tp_overlap(c, rs, g0, g1, WL_OV_PIPE);
	if (!x->serve) /* serving: the add is fused into the next norm */
		wl_mem_n(c, "dropout_add1", x->Tn * x->h * (e->resid_fwd * act + mask), e->resid_kernels);
}

/* Backward of the attention half, in reverse op order, from the residual
 * add's gradient: the projection, the core, Q/K/V and the first norm. TP
 * collectives of the column-parallel linears overlap with the other half of
 * their backward (Megatron's async grad all-reduce / SP all-gather), those
 * of the row-parallel linears under SP block. */
void wl_attention_bwd(ctx *c, const dims *x, pp_group tp)
{
	const pp_eltw_impl *e = wl_eltw(c);
	double act = c->act;
	double kvw = 2.0 * x->g * x->d;
	double heads_t = x->a / x->t;
	double mask = x->dropout ? 1.0 : 0.0;
	double qk = x->mla ? x->dqk + x->drope : x->d, v = x->mla ? x->dv : x->d;
	int dg, wg;
	if (x->linear) {
		wl_gdn_bwd(c, x, tp);
		return;
	}
	wl_mem_n(c, "dropout_add1.bwd", x->Tn * x->h * (e->resid_bwd * act + mask), e->resid_kernels);
	int ag = wl_sp_gather(c, x, "sp.allgather_grad1", tp);
	bool have_ag = ag >= 0;
	wg = wl_block_linear_bwd(c, x, "proj", x->T, x->h, (x->mla ? x->a * x->dv : x->qw) / x->t, 1,
				 &dg);
	if (have_ag) /* the gradient's all-gather beside the projection's dgrad */
		wl_tp_overlap(c, ag, dg, dg, WL_OV_RING);
	if (x->qgate > 1.0) /* the gate's backward: read o, the gate, the gradient; write two */
		wl_mem(c, "attn_gate.bwd", 5.0 * act * x->T * x->qw / x->t);
	if (x->flash) {
		pp_op *o = wl_add(c, "flash_attn.bwd", PP_OP_ATTN);
		double model, exec;
		bool causal = !(x->windowed && x->window < x->s);
		attn_flops(x, qk, v, &model, &exec);
		o->dtype = c->attn_dt;
		o->flops = 2.5 * exec;
		o->model_flops = 2.0 * model; /* the backward counted as 2x forward, eq. 3 */
		o->bytes = x->mla ? x->T * heads_t * (2.0 * qk + 2.0 * v) * act * 2.0
				  : x->T * (x->qw + kvw + x->qw) / x->t * act * 2.0;
		o->kernels = 3; /* FlashAttention 2's dot(dO, O), the main kernel, dq's conversion */
		o->time_s = pp_attn_time_k(c->hw, c->attn_dt, c->attn_k, true, causal, attn_seq(x),
					   0.5 * (qk + v), o->flops, o->bytes);
		repeat_op(c, x, "repeat_kv.bwd");
	} else {
		double scores = x->b * heads_t * x->sl * x->s;
		wl_linear_bwd(c, "attn.av", x->sl, v, x->s, x->b * heads_t, &dg);
		if (x->dropout)
			wl_mem(c, "attn.dropout.bwd", scores * (2.0 * act + mask));
		wl_mem(c, "attn.softmax.bwd", scores * 3.0 * act);
		wl_linear_bwd(c, "attn.qk", x->sl, x->s, qk, x->b * heads_t, &dg);
	}
	rope_op(c, x, "rope.bwd", e->rope_bwd);
	if (x->mla) {
		mla_qkv_bwd(c, x, tp, &dg, &wg);
	} else if (x->fused_proj) {
		wg = wl_block_linear_bwd(c, x, "qkv", x->T, (x->qgate * x->qw + kvw) / x->t, x->h, 3,
					 &dg);
		wl_amp_cast(c, "qkv.input_cast.bwd", x->T * x->h, 1, true);
	} else {
		int d2;
		wl_block_linear_bwd(c, x, "v", x->T, x->g * x->d / x->t, x->h, 1, &d2);
		wl_block_linear_bwd(c, x, "k", x->T, x->g * x->d / x->t, x->h, 1, &d2);
		wg = wl_block_linear_bwd(c, x, "q", x->T, x->qgate * x->qw / x->t, x->h, 1, &dg);
		wl_amp_cast(c, "qkv.input_cast.bwd", x->T * x->h, 3, true);
		/* autograd sums the three input gradients */
		wl_mem_n(c, "qkv.grad_sum", 2.0 * e->grad_sum * act * x->T * x->h, 2);
	}
	wl_colpar_grad_comm(c, x, tp, dg, wg, 1);
}

/* The dense MLP after the second norm: fc1 (column-parallel; gate and up
 * under SwiGLU, one GEMM or, without fused projections, two), the
 * activation, fc2 (row-parallel), and the residual. */
void wl_mlp_fwd(ctx *c, const dims *x, pp_group tp, bool count)
{
	const pp_eltw_impl *e = wl_eltw(c);
	double act = c->act;
	int ag = wl_sp_gather(c, x, "sp.allgather2", tp);
	bool have_ag = ag >= 0;
	int g0 = c->w->nops;
	double fc1_n = (x->swiglu ? 2.0 : 1.0) * x->f / x->t;
	/* autocast: gate and up each cast the fp32 norm output */
	wl_amp_cast(c, "fc1.input_cast", x->T * x->h, x->swiglu && !x->fused_proj ? 2 : 1, false);
	if (x->swiglu && !x->fused_proj) {
		wl_block_linear(c, x, "w1", x->T, x->f / x->t, x->h, 1, count);
		wl_block_linear(c, x, "w3", x->T, x->f / x->t, x->h, 1, count);
	} else {
		wl_block_linear(c, x, "fc1", x->T, fc1_n, x->h, x->swiglu ? 2 : 1, count);
	}
	if (have_ag)
		wl_tp_overlap(c, ag, g0, c->w->nops - 1, WL_OV_RING);
	wl_mem_n(c, x->swiglu ? "swiglu" : "gelu",
		 x->T * x->f / x->t * act * (x->swiglu ? e->act_fwd : e->gelu_fwd), e->act_kernels);
	g0 = c->w->nops;
	wl_block_linear(c, x, "fc2", x->T, x->h, x->f / x->t, 1, count);
	int g1 = c->w->nops - 1, rs = c->w->nops;
	wl_comm(c, x->sp ? "sp.reducescatter2" : "tp.allreduce2",
		x->sp ? PP_COLL_REDUCE_SCATTER : PP_COLL_ALL_REDUCE, x->T * x->h * act, tp, -1);
	if (x->sp && c->w->nops > rs)
		wl_tp_overlap(c, rs, g0, g1, WL_OV_PIPE);
}

/* Its backward, ending with the second norm's. */
void wl_mlp_bwd(ctx *c, const dims *x, pp_group tp)
{
	const pp_eltw_impl *e = wl_eltw(c);
	double act = c->act;
	int dg, wg;
	int ag = wl_sp_gather(c, x, "sp.allgather_grad2", tp);
	bool have_ag = ag >= 0;
	wg = wl_block_linear_bwd(c, x, "fc2", x->T, x->h, x->f / x->t, 1, &dg);
	if (have_ag)
		wl_tp_overlap(c, ag, dg, dg, WL_OV_RING);
	wl_mem_n(c, x->swiglu ? "swiglu.bwd" : "gelu.bwd",
		 x->T * x->f / x->t * act * (x->swiglu ? e->act_bwd : e->gelu_bwd),
		 e->act_kernels > 1 ? e->act_kernels + 1 : e->act_kernels); /* eager: 2 products, silu */
	double fc1_n = (x->swiglu ? 2.0 : 1.0) * x->f / x->t;
	if (x->swiglu && !x->fused_proj) {
		int d2;
		wl_block_linear_bwd(c, x, "w3", x->T, x->f / x->t, x->h, 1, &d2);
		wg = wl_block_linear_bwd(c, x, "w1", x->T, x->f / x->t, x->h, 1, &dg);
		wl_amp_cast(c, "fc1.input_cast.bwd", x->T * x->h, 2, true);
		wl_mem(c, "w13.grad_sum", e->grad_sum * act * x->T * x->h); /* autograd sums the two */
	} else {
		wg = wl_block_linear_bwd(c, x, "fc1", x->T, fc1_n, x->h, x->swiglu ? 2 : 1, &dg);
		wl_amp_cast(c, "fc1.input_cast.bwd", x->T * x->h, 1, true);
	}
	wl_colpar_grad_comm(c, x, tp, dg, wg, 2);
}

void wl_embed_fwd(ctx *c, const dims *x, pp_group tp)
{
	/* vocab-parallel lookup (read rows, write), position add, dropout; the
	 * rows in fp32 under autocast (the embedding is no autocast op) */
	wl_mem(c, "embed.lookup", x->T * x->h * wl_stream_bytes(c) * (x->swiglu ? 2.0 : 4.0));
	wl_comm(c, x->sp ? "embed.reducescatter" : "embed.allreduce",
		x->sp ? PP_COLL_REDUCE_SCATTER : PP_COLL_ALL_REDUCE, x->T * x->h * c->act, tp, -1);
	if (x->dropout)
		wl_mem(c, "embed.dropout", x->Tn * x->h * (2.0 * c->act + 1.0));
}

void wl_embed_bwd(ctx *c, const dims *x, pp_group tp)
{
	if (x->peft) /* frozen, and nothing before it needs a gradient */
		return;
	if (x->sp)
		wl_comm(c, "embed.allgather_grad", PP_COLL_ALL_GATHER, x->T * x->h * c->act, tp, -1);
	/* scatter-add of the token gradients into the fp32 embedding gradient */
	wl_mem(c, "embed.grad", x->T * x->h * (wl_stream_bytes(c) + 8.0));
}

/* Serving: the logits of the sampled rows only (vLLM computes them at each
 * scheduled request's last position), gathered over the vocabulary-parallel
 * ranks, and the sampler's fp32 passes over them. */
static void serve_head(ctx *c, const dims *x, pp_group tp, bool count)
{
	wl_gemm(c, "logits", x->rows, x->V / x->t, x->h, 1, count);
	wl_comm(c, "logits.gather", PP_COLL_ALL_GATHER, x->rows * x->V * c->act, tp, -1);
	wl_mem(c, "sampler", x->rows * x->V * 4.0 * x->sampler_passes);
}

/* The logits' cross-entropy chain as the stack runs it: bytes per logit
 * element at 16-bit logits, the logits' own read scaling with the
 * activation size (fp32 training reads 4 bytes where bf16 reads 2). The
 * replays' chain without a stack. */
static const pp_ce_impl replay_ce = {"podplan-1", 14, 6, 1, 1, 8, 8, 0, 0, 0};

static const pp_ce_impl *ce_of(const ctx *c)
{
	return c->st ? &c->st->ce : &replay_ce;
}

/* The output layer's GEMMs run in 16 bits under FP8 training: Megatron-Core's
 * output_layer is not a Transformer Engine module, torchtitan's float8
 * conversion skips "output". */
static pp_dtype head_dt(const ctx *c)
{
	return c->dt == PP_DT_FP8 ? c->attn_dt : c->dt;
}

void wl_head_fwd(ctx *c, const dims *x, pp_group tp, bool count)
{
	const pp_eltw_impl *e = wl_eltw(c);
	if (x->serve) {
		wl_mem(c, "final_norm", 4.0 * c->act * x->Tn * x->h);
		serve_head(c, x, tp, count);
		return;
	}
	wl_mem_n(c, "final_norm", e->norm_fwd * c->act * x->Tn * x->h, e->norm_kernels);
	if (x->sp)
		wl_comm(c, "head.allgather", PP_COLL_ALL_GATHER, x->T * x->h * c->act, tp, -1);
	pp_dtype dt = c->dt;
	c->dt = head_dt(c);
	/* autocast: lm_head casts its fp32 input and weight */
	wl_amp_cast(c, "logits.input_cast", x->T * x->h, 1, false);
	if (c->amp)
		wl_mem(c, "logits.weight_cast", x->V / x->t * x->h * e->weight_cast_fwd * c->act);
	wl_gemm(c, "logits", x->T, x->V / x->t, x->h, 1, count);
	c->dt = dt;
	/* vocab-parallel cross entropy in fp32 */
	const pp_ce_impl *ce = ce_of(c);
	wl_mem_n(c, "cross_entropy", x->T * x->V / x->t * (ce->fwd_bytes + c->act - 2.0),
		 ce->fwd_kernels);
	wl_comm(c, "loss.allreduce", PP_COLL_ALL_REDUCE, x->T * 4.0 * 3.0, tp, -1);
}

void wl_head_bwd(ctx *c, const dims *x, pp_group tp)
{
	const pp_eltw_impl *e = wl_eltw(c);
	const pp_ce_impl *ce = ce_of(c);
	int dg, wg = -1;
	wl_mem_n(c, "cross_entropy.bwd", x->T * x->V / x->t * (ce->bwd_bytes + c->act - 2.0),
		 ce->bwd_kernels);
	pp_dtype dt = c->dt;
	c->dt = head_dt(c);
	if (x->peft) /* the output layer is frozen: its input gradient only */
		wl_gemm(c, "logits.dgrad", x->T, x->h, x->V / x->t, 1, true);
	else
		wg = wl_linear_bwd(c, "logits", x->T, x->V / x->t, x->h, 1, &dg);
	c->dt = dt;
	wl_amp_cast(c, "logits.input_cast.bwd", x->T * x->h, 1, true);
	if (c->amp && !x->peft)
		wl_mem(c, "logits.grad_cast", x->V / x->t * x->h * e->weight_cast_bwd * c->act);
	if (x->sp)
		wl_comm(c, "head.reducescatter_grad", PP_COLL_REDUCE_SCATTER, x->T * x->h * c->act, tp,
			wg);
	else
		wl_comm(c, "head.allreduce_grad", PP_COLL_ALL_REDUCE, x->T * x->h * c->act, tp, wg);
	wl_mem_n(c, "final_norm.bwd", e->norm_bwd * c->act * x->Tn * x->h, e->norm_kernels);
}
