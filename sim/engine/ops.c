/* ops.c - the op primitives of a micro-batch's op list (opsint.h). */
#include "engine/opsint.h"
#include "core/util.h"

#include <assert.h>
#include <string.h>

/* dst = a then b, cut to n - 1 bytes and terminated, as snprintf(dst, n,
 * "%s%s", a, b) writes it; without the formatting machinery, which was
 * half of the time a workload took to build (the search builds thousands). */
static void name_cat(char *dst, size_t n, const char *a, const char *b)
{
	if (!n)
		return;
	size_t la = strlen(a), lb = strlen(b);
	if (la > n - 1)
		la = n - 1;
	if (lb > n - 1 - la)
		lb = n - 1 - la;
	memcpy(dst, a, la);
	memcpy(dst + la, b, lb);
	dst[la + lb] = 0;
}

pp_op *wl_add(ctx *c, const char *name, pp_op_kind kind)
{
	pp_workload *w = c->w;
	if (w->nops == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		w->ops = pp_xrealloc(w->ops, sizeof(pp_op) * (size_t)w->cap);
	}
	pp_op *o = &w->ops[w->nops++];
	memset(o, 0, sizeof(*o));
	o->overlap_op = -1;
	name_cat(o->name, sizeof(o->name), name, "");
	o->kind = kind;
	o->phase = c->phase;
	o->part = c->part;
	o->dtype = c->dt;
	o->layer_kind = c->kind;
	o->kernels = 1;
	return o;
}

/* podplan's fused kernels (frameworks.json "fused"), for a ctx without a
 * stack (the serving forward pass) */
static const pp_eltw_impl fused_eltw = {"fused", 2, 3, 0, 0, 3, 5, 2, 3, 3, 2, 0, 1, 0, 1, 1, 3,
					0, 0, 0, 0, "", 0, 0, 0, 0};

const pp_eltw_impl *wl_eltw(const ctx *c)
{
	if (!c->st)
		return &fused_eltw;
	return c->amp ? &c->st->eltw_amp : &c->st->eltw;
}

double wl_stream_bytes(const ctx *c)
{
	return c->amp ? 4.0 : c->act;
}

void wl_amp_cast(ctx *c, const char *name, double elems, int calls, bool bwd)
{
	const pp_eltw_impl *e = wl_eltw(c);
	double f = bwd ? e->cast_in_bwd : e->cast_in_fwd;
	if (!c->amp || f <= 0 || calls < 1)
		return;
	wl_mem_n(c, name, calls * elems * f * c->act, calls);
}

/* Under autocast, a linear's fp32 weight cast to 16 bits (forward: once
 * per autocast region, the cache of leaf tensors) or its 16-bit gradient
 * cast to fp32 (backward, before AccumulateGrad). */
static void amp_weight_cast(ctx *c, const char *name, double elems, bool bwd)
{
	const pp_eltw_impl *e = wl_eltw(c);
	double f = bwd ? e->weight_cast_bwd : e->weight_cast_fwd;
	char nm[48];
	if (!c->amp || f <= 0)
		return;
	name_cat(nm, sizeof(nm), name, bwd ? ".grad_cast" : ".weight_cast");
	wl_mem(c, nm, elems * f * c->act);
}

pp_op *wl_gemm(ctx *c, const char *name, double m, double n, double k, double batch, bool count)
{
	pp_op *o = wl_add(c, name, PP_OP_GEMM);
	o->m = m;
	o->n = n;
	o->k = k;
	o->batch = batch;
	o->flops = 2.0 * m * n * k * batch;
	o->model_flops = count ? o->flops : 0;
	o->bytes = batch * ((m * k + k * n) * pp_dtype_bytes(c->dt) + m * n * c->act);
	o->time_s = pp_gemm_time(c->hw, c->dt, m, n, k, batch, c->act);
	return o;
}

/* The backward of a linear layer: its input- and weight-gradient GEMMs
 * (dgrad: m x k x n; wgrad: k x n x m). Returns the wgrad op's index and
 * sets *dgrad to the dgrad op's (a TP collective can hide behind either). */
int wl_linear_bwd(ctx *c, const char *name, double m, double n, double k, double batch,
		      int *dgrad)
{
	char nm[40];
	name_cat(nm, sizeof(nm), name, ".dgrad");
	wl_gemm(c, nm, m, k, n, batch, true);
	*dgrad = c->w->nops - 1;
	name_cat(nm, sizeof(nm), name, ".wgrad");
	wl_gemm(c, nm, k, n, m, batch, true);
	return c->w->nops - 1;
}

void wl_mem(ctx *c, const char *name, double bytes)
{
	pp_op *o = wl_add(c, name, PP_OP_MEM);
	o->bytes = bytes;
	o->time_s = pp_mem_time_at(c->hw, bytes, 1, wl_eltw(c)->bw_over_copy);
}

void wl_mem_n(ctx *c, const char *name, double bytes, int n)
{
	if (n <= 1) {
		wl_mem(c, name, bytes);
		return;
	}
	pp_op *o = wl_add(c, name, PP_OP_MEM);
	o->bytes = bytes;
	o->kernels = n;
	o->time_s = pp_mem_time_at(c->hw, bytes, n, wl_eltw(c)->bw_over_copy);
}

/* A TP/SP collective; hide >= 0: the op (a GEMM of this pass) it overlaps. */
static pp_op *comm_op(ctx *c, const char *name, pp_coll op, double bytes, pp_group g, int hide)
{
	if (g.n <= 1 || bytes <= 0)
		return NULL;
	/* TorchTitan's op policy saves reduce-scatter outputs: not run again */
	if (c->sac_op && c->phase == PP_PH_RECOMPUTE && op == PP_COLL_REDUCE_SCATTER)
		return NULL;
	double overlap_s = hide >= 0 ? c->w->ops[hide].time_s : 0;
	pp_op *o = wl_add(c, name, PP_OP_COMM);
	o->coll = op;
	o->group = g;
	o->bytes = bytes;
	o->overlap_s = overlap_s;
	o->overlap_op = hide;
	o->time_s = pp_coll_time(c->hw, op, bytes, g);
	/* overlapping compute hides only part of a collective (SM and memory
	 * contention): overlap_eff of the overlappable span */
	double hidden = c->hw->overlap_eff * (o->time_s < overlap_s ? o->time_s : overlap_s);
	o->exposed_s = o->time_s - hidden;
	return o;
}

void wl_comm(ctx *c, const char *name, pp_coll op, double bytes, pp_group g, int hide)
{
	comm_op(c, name, op, bytes, g, hide);
}

int wl_sp_gather(ctx *c, const dims *x, const char *name, pp_group tp)
{
	int ag = c->w->nops;
	if (x->sp)
		comm_op(c, name, PP_COLL_ALL_GATHER, x->T * x->h * c->act, tp, -1);
	return c->w->nops > ag ? ag : -1;
}

void wl_cp_op(ctx *c, const char *name, int op, double bytes, double msg_bytes, pp_group g,
	      double time_s, double exposed_s)
{
	if (time_s <= 0)
		return;
	pp_op *o = wl_add(c, name, op < 0 ? PP_OP_MEM : PP_OP_COMM);
	if (op >= 0) {
		o->coll = (pp_coll)op;
		o->group = g;
	}
	o->bytes = bytes;
	o->msg_bytes = msg_bytes;
	o->time_s = time_s;
	o->exposed_s = exposed_s;
	o->cp = true;
}

void wl_comm_ep(ctx *c, const char *name, pp_coll op, double bytes, pp_group g, int gk, int hide)
{
	pp_op *o = comm_op(c, name, op, bytes, g, hide);
	if (o) {
		o->ep = true;
		o->gkind = gk;
	}
}

/* A weight-bearing linear layer of a block, forward: y = x W, m x n x k
 * on this GPU. Fine-tuning adds its LoRA adapter, y += (x A) B (Hu et al.
 * 2021, eq. 3): A is k x (nsub r), one rank-r factor per sub-projection
 * (q, k, v; gate, up), B the block-diagonal (nsub r) x n, costed as one
 * m x n x r GEMM (the same FLOPs); then the add. QLoRA first dequantises W
 * from NF4 to the 16-bit copy the GEMM reads (bitsandbytes: read the
 * packed weight, write the copy; Dettmers et al. 2023, Sec. 3). The
 * adapter's parameters on this GPU follow from the shapes. */
void wl_block_linear(ctx *c, const dims *x, const char *name, double m, double n, double k,
			 int nsub, bool count)
{
	char nm[48];
	/* TorchTitan's op policy (parallelize_llama.py _custom_policy): a
	 * matmul's output is saved unless it is an even one of the block's, so
	 * the recompute runs the 2nd, 4th, ... and nothing of the others */
	if (c->sac_op && c->phase == PP_PH_RECOMPUTE && ++c->mm_count % 2 == 1)
		return;
	if (x->qlora) {
		name_cat(nm, sizeof(nm), name, ".dequant");
		wl_mem(c, nm, k * n * (x->base_wb + pp_dtype_bytes(c->dt)));
	}
	/* an FP8 GEMM's scaling kernels (the stack's recipe): the input's
	 * amax and cast (and transpose), the weight's */
	const pp_fp8_impl *f8 = c->dt == PP_DT_FP8 && c->st ? &c->st->fp8 : NULL;
	if (f8 && f8->input_fwd + f8->weight_fwd > 0) {
		name_cat(nm, sizeof(nm), name, ".fp8_cast");
		wl_mem_n(c, nm, m * k * f8->input_fwd + k * n * f8->weight_fwd, f8->weight_fwd > 0 ? 4 : 1);
	}
	amp_weight_cast(c, name, k * n, false);
	wl_gemm(c, name, m, n, k, 1, count);
	if (!x->peft)
		return;
	name_cat(nm, sizeof(nm), name, ".lora_a");
	wl_gemm(c, nm, m, nsub * x->r, k, 1, count);
	name_cat(nm, sizeof(nm), name, ".lora_b");
	wl_gemm(c, nm, m, n, x->r, 1, count);
	name_cat(nm, sizeof(nm), name, ".lora_add");
	wl_mem(c, nm, m * n * 3.0 * c->act);
	if (c->phase == PP_PH_FWD && c->part == PP_PART_LAYER)
		c->w->lk[c->kind].trainable += k * nsub * x->r + x->r * n;
}

/* Its backward. Full training: dgrad and wgrad (linear_bwd). Fine-tuning:
 * the adapter's four GEMMs (B's dgrad and wgrad, A's dgrad and wgrad), the
 * base's dgrad only (W is frozen; QLoRA dequantises it again), and the sum
 * of the two input gradients. Returns the op a TP collective of the input
 * gradient can hide behind (the weight gradient: A's under fine-tuning)
 * and sets *dgrad to the base dgrad. */
int wl_block_linear_bwd(ctx *c, const dims *x, const char *name, double m, double n, double k,
			    int nsub, int *dgrad)
{
	char nm[48];
	const pp_fp8_impl *f8 = c->dt == PP_DT_FP8 && c->st ? &c->st->fp8 : NULL;
	if (f8 && f8->grad_bwd + f8->input_bwd + f8->weight_bwd > 0) {
		/* the output gradient's cast (and transpose), the input's and the
		 * weight's transposes for the two GEMMs */
		name_cat(nm, sizeof(nm), name, ".fp8_cast.bwd");
		wl_mem_n(c, nm, m * n * f8->grad_bwd + m * k * f8->input_bwd + k * n * f8->weight_bwd,
			 f8->input_bwd + f8->weight_bwd > 0 ? 6 : 1);
	}
	if (!x->peft) {
		int wg = wl_linear_bwd(c, name, m, n, k, 1, dgrad);
		amp_weight_cast(c, name, k * n, true);
		return wg;
	}
	name_cat(nm, sizeof(nm), name, ".lora_b.dgrad");
	wl_gemm(c, nm, m, x->r, n, 1, true);
	name_cat(nm, sizeof(nm), name, ".lora_b.wgrad");
	wl_gemm(c, nm, x->r, n, m, 1, true);
	name_cat(nm, sizeof(nm), name, ".lora_a.dgrad");
	wl_gemm(c, nm, m, k, nsub * x->r, 1, true);
	name_cat(nm, sizeof(nm), name, ".lora_a.wgrad");
	wl_gemm(c, nm, k, nsub * x->r, m, 1, true);
	int wg = c->w->nops - 1;
	if (x->qlora) {
		name_cat(nm, sizeof(nm), name, ".dequant");
		wl_mem(c, nm, k * n * (x->base_wb + pp_dtype_bytes(c->dt)));
	}
	name_cat(nm, sizeof(nm), name, ".dgrad");
	wl_gemm(c, nm, m, k, n, 1, true);
	*dgrad = c->w->nops - 1;
	name_cat(nm, sizeof(nm), name, ".lora_add.bwd");
	wl_mem(c, nm, m * k * 3.0 * c->act);
	return wg;
}

/* After the backward of a column-parallel linear (qkv, fc1) that follows
 * norm n (1 or 2): under SP the all-gather of the norm's output for the
 * weight gradient, hidden behind the dgrad, and the reduce-scatter of the
 * input gradient behind the wgrad; without SP the all-reduce of the input
 * gradient behind the wgrad. Then the norm's backward. */
void wl_colpar_grad_comm(ctx *c, const dims *x, pp_group tp, int dg, int wg, int n)
{
	const pp_eltw_impl *e = wl_eltw(c);
	double bytes = x->T * x->h * c->act;
	/* the ops' names as constants: a search builds this block some
	 * 40,000 times; n is the layer's norm, 1 (attention) or 2 (MLP) */
	static const char *const names[2][4] = {
		{"sp.allgather_ln1", "sp.reducescatter_grad0", "tp.allreduce_grad0", "ln1.bwd"},
		{"sp.allgather_ln2", "sp.reducescatter_grad1", "tp.allreduce_grad1", "ln2.bwd"}};
	assert(n == 1 || n == 2);
	const char *ag = names[n - 1][0], *rs = names[n - 1][1], *ar = names[n - 1][2],
		   *ln = names[n - 1][3];
	if (x->sp) {
		/* Transformer Engine's bulk overlap: the all-gather of the norm's
		 * output beside the dgrad, the reduce-scatter beside the wgrad */
		int a = c->w->nops;
		wl_comm(c, ag, PP_COLL_ALL_GATHER, bytes, tp, dg);
		if (c->w->nops > a)
			wl_tp_overlap(c, a, dg, dg, WL_OV_BULK);
		a = c->w->nops;
		wl_comm(c, rs, PP_COLL_REDUCE_SCATTER, bytes, tp, wg);
		if (c->w->nops > a && wg >= 0)
			wl_tp_overlap(c, a, wg, wg, WL_OV_BULK);
	} else {
		wl_comm(c, ar, PP_COLL_ALL_REDUCE, bytes, tp, wg);
	}
	wl_mem_n(c, ln, e->norm_bwd * c->act * x->Tn * x->h, e->norm_kernels);
}


/* Overlap as Transformer Engine's userbuffers (initialize_ub) and PyTorch's
 * async TP run it, from the stack's parameters:
 *  - ring exchange: the GEMM runs in n chunks (one per rank), each while
 *    the next chunk is exchanged on the copy engines, so one chunk's
 *    transfer is exposed and the rest hides behind the other chunks'
 *    GEMMs;
 *  - pipelined reduce-scatter: n chunks, each reduce-scattered while the
 *    next is computed on the SMs the communication leaves (num_sm), the last
 *    chunk's exposed;
 *  - bulk: the collective beside the whole GEMM on its own SMs.
 * The GEMMs are re-costed at their chunk's rows on the SMs left. */
void wl_tp_overlap(ctx *c, int ci, int g0, int g1, int mode)
{
	if (!c->st || c->st->tp_overlap == PP_TPO_NONE || ci < 0 || g0 < 0 || g1 < g0)
		return;
	const pp_stack *st = c->st;
	if (mode == WL_OV_BULK && st->tp_overlap != PP_TPO_TE)
		return; /* async TP decomposes the forward's patterns only */
	pp_op *cm = &c->w->ops[ci];
	int tp = cm->group.n;
	int n = mode == WL_OV_BULK ? 1
		: mode == WL_OV_PIPE ? (st->tpo_rs_splits ? st->tpo_rs_splits : tp)
				      : (st->tpo_ag_splits ? st->tpo_ag_splits : tp);
	double sms = mode == WL_OV_PIPE ? st->tpo_rs_sms : mode == WL_OV_BULK ? st->tpo_bulk_sms : 0;
	double left = c->hw->sm_count > sms ? c->hw->sm_count / (c->hw->sm_count - sms) : 1;
	double g = 0;
	for (int i = g0; i <= g1; i++) {
		pp_op *o = &c->w->ops[i];
		if (o->kind != PP_OP_GEMM)
			continue;
		double t = n * pp_gemm_time(c->hw, o->dtype, o->m / n, o->n, o->k, o->batch, c->act);
		o->time_s = t * left;
		g += o->time_s;
	}
	double t = cm->time_s;
	double exposed = n <= 1 ? t - (t < g ? t : g)
				: t / n + (t - g > 0 ? (t - g) * (n - 1) / n : 0);
	cm->overlap_s = g;
	cm->overlap_op = g0;
	cm->exposed_s = exposed > 0 ? exposed : 0;
}
