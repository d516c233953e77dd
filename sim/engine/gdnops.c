/* gdnops.c - the ops of a Gated DeltaNet layer's token mixer (opsint.h),
 * in place of the softmax attention: Yang et al., "Gated Delta Networks",
 * arXiv:2412.06464, as transformers' Qwen3NextGatedDeltaNet runs it
 * (modeling_qwen3_next.py) with flash-linear-attention's chunked kernel
 * (fla/ops/gated_delta_rule/chunk.py) and the causal-conv1d kernel.
 *
 * Forward, per token: the first norm; in_proj_qkvz (h to q, k, v and the
 * output gate z) and in_proj_ba (h to beta and the decay input per value
 * head), column-parallel over the heads; the depthwise causal conv1d with
 * its SiLU over q, k and v (causal_conv1d_fn: gdn_conv multiply-adds per
 * channel); the L2 norms of q and k and the gates beta = sigmoid(b),
 * g = -exp(A_log) softplus(a + dt_bias), elementwise; the chunked delta
 * rule (pp_gdn_core_flops), q and k repeated to the value heads; the gated
 * RMSNorm norm(o) silu(z); out_proj (row-parallel) and its TP reduction;
 * the residual add. The backward mirrors it. The chunk kernel is costed on
 * the attention roofline (a Triton kernel of small dense products, as the
 * attention kernels are), reading q, k, v, the gates and writing o and the
 * per-chunk states (dk x dv per value head, at the activations' width). */
#include "engine/opsint.h"

/* Per TP rank: q and k widths together, v's (= z's), the value heads. */
static void widths(const dims *x, double *qk, double *v, double *heads)
{
	*qk = 2.0 * x->nk * x->dk / x->t;
	*v = x->nv * x->dvl / x->t;
	*heads = x->nv / x->t;
}

/* The chunk kernel's bytes on this rank: q, k, v, g and beta read, o
 * written, and the states of each chunk (fla stores them for the output
 * and the backward). */
static double core_bytes(ctx *c, const dims *x)
{
	double qk, v, heads;
	widths(x, &qk, &v, &heads);
	double states = x->T / PP_GDN_CHUNK * heads * x->dk * x->dvl;
	return c->act * (x->T * (qk + 2.0 * v) + states) + 8.0 * x->T * heads;
}

void wl_gdn_fwd(ctx *c, const dims *x, pp_group tp, bool count, bool core_only)
{
	const pp_eltw_impl *e = wl_eltw(c);
	double act = c->act, qk, v, heads;
	double mask = x->dropout ? 1.0 : 0.0;
	widths(x, &qk, &v, &heads);
	/* selective recompute of the core: none, fla's backward recomputes its own states */
	if (core_only)
		return;
	wl_mem_n(c, "ln1", e->norm_fwd * act * x->Tn * x->h, e->norm_kernels);
	int ag = wl_sp_gather(c, x, "sp.allgather1", tp), g0 = c->w->nops;
	wl_amp_cast(c, "in_proj.input_cast", x->T * x->h, 2, false);
	wl_block_linear(c, x, "in_proj_qkvz", x->T, qk + 2.0 * v, x->h, 4, count);
	wl_block_linear(c, x, "in_proj_ba", x->T, 2.0 * heads, x->h, 2, count);
	if (ag >= 0)
		wl_tp_overlap(c, ag, g0, c->w->nops - 1, WL_OV_RING);
	/* causal_conv1d_fn over q, k, v with the SiLU fused: read, write */
	pp_op *o = wl_add(c, "conv1d", PP_OP_MEM);
	o->flops = 2.0 * x->conv * x->T * (qk + v);
	o->model_flops = count ? o->flops : 0;
	o->bytes = 2.0 * act * x->T * (qk + v);
	o->time_s = pp_mem_time_at(c->hw, o->bytes, 1, e->bw_over_copy);
	/* the L2 norms of q and k, the gates beta and g (fp32) */
	wl_mem(c, "l2norm_gates", 2.0 * act * x->T * qk + x->T * heads * (2.0 * act + 8.0));
	o = wl_add(c, "chunk_gated_delta_rule", PP_OP_ATTN);
	o->dtype = c->attn_dt;
	o->flops = pp_gdn_core_flops(x->dk, x->dvl, x->T * heads, false);
	o->model_flops = count ? o->flops : 0;
	o->bytes = core_bytes(c, x);
	o->time_s = pp_attn_time(c->hw, c->attn_dt, o->flops, o->bytes);
	/* Qwen3NextRMSNormGated: read o and z, write the gated norm */
	wl_mem(c, "norm_gated", 3.0 * act * x->T * v);
	g0 = c->w->nops;
	wl_block_linear(c, x, "out_proj", x->T, x->h, v, 1, count);
	int g1 = c->w->nops - 1, rs = c->w->nops;
	wl_comm(c, x->sp ? "sp.reducescatter1" : "tp.allreduce1",
		x->sp ? PP_COLL_REDUCE_SCATTER : PP_COLL_ALL_REDUCE, x->T * x->h * act, tp, -1);
	if (x->sp && c->w->nops > rs)
		wl_tp_overlap(c, rs, g0, g1, WL_OV_PIPE);
	wl_mem_n(c, "dropout_add1", x->Tn * x->h * (e->resid_fwd * act + mask), e->resid_kernels);
}

void wl_gdn_bwd(ctx *c, const dims *x, pp_group tp)
{
	const pp_eltw_impl *e = wl_eltw(c);
	double act = c->act, qk, v, heads;
	double mask = x->dropout ? 1.0 : 0.0;
	int dg, wg, d2;
	widths(x, &qk, &v, &heads);
	wl_mem_n(c, "dropout_add1.bwd", x->Tn * x->h * (e->resid_bwd * act + mask), e->resid_kernels);
	int ag = wl_sp_gather(c, x, "sp.allgather_grad1", tp);
	bool have_ag = ag >= 0;
	wg = wl_block_linear_bwd(c, x, "out_proj", x->T, x->h, v, 1, &dg);
	if (have_ag)
		wl_tp_overlap(c, ag, dg, dg, WL_OV_RING);
	/* the gated norm's backward: read o, z and the gradient, write two */
	wl_mem(c, "norm_gated.bwd", 5.0 * act * x->T * v);
	pp_op *o = wl_add(c, "chunk_gated_delta_rule.bwd", PP_OP_ATTN);
	o->dtype = c->attn_dt;
	o->flops = pp_gdn_core_flops(x->dk, x->dvl, x->T * heads, true);
	o->model_flops = o->flops;
	o->bytes = 2.0 * core_bytes(c, x);
	o->kernels = 6; /* recompute_w_u, fwd_h, bwd_dv_local, bwd_dhu, bwd_dqkwg, wy_repr_bwd */
	o->time_s = pp_attn_time(c->hw, c->attn_dt, o->flops, o->bytes);
	wl_mem(c, "l2norm_gates.bwd", 3.0 * act * x->T * qk + x->T * heads * (3.0 * act + 8.0));
	o = wl_add(c, "conv1d.bwd", PP_OP_MEM);
	o->flops = 4.0 * x->conv * x->T * (qk + v); /* the input's and the weight's gradients */
	o->model_flops = o->flops;
	o->bytes = 3.0 * act * x->T * (qk + v);
	o->time_s = pp_mem_time_at(c->hw, o->bytes, 1, e->bw_over_copy);
	wl_block_linear_bwd(c, x, "in_proj_ba", x->T, 2.0 * heads, x->h, 2, &d2);
	wg = wl_block_linear_bwd(c, x, "in_proj_qkvz", x->T, qk + 2.0 * v, x->h, 4, &dg);
	wl_amp_cast(c, "in_proj.input_cast.bwd", x->T * x->h, 2, true);
	wl_mem_n(c, "in_proj.grad_sum", 2.0 * e->grad_sum * act * x->T * x->h, 2);
	wl_colpar_grad_comm(c, x, tp, dg, wg, 1);
}
