/* ops.c - the op primitives of a micro-batch's op list (opsint.h). */
#include "engine/opsint.h"
#include "core/util.h"

#include <stdio.h>
#include <string.h>

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
	snprintf(o->name, sizeof(o->name), "%s", name);
	o->kind = kind;
	o->phase = c->phase;
	o->part = c->part;
	o->dtype = c->dt;
	o->layer_kind = c->kind;
	return o;
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
	snprintf(nm, sizeof(nm), "%s.dgrad", name);
	wl_gemm(c, nm, m, k, n, batch, true);
	*dgrad = c->w->nops - 1;
	snprintf(nm, sizeof(nm), "%s.wgrad", name);
	wl_gemm(c, nm, k, n, m, batch, true);
	return c->w->nops - 1;
}

void wl_mem(ctx *c, const char *name, double bytes)
{
	pp_op *o = wl_add(c, name, PP_OP_MEM);
	o->bytes = bytes;
	o->time_s = pp_mem_time(c->hw, bytes);
}

/* A TP/SP collective; hide >= 0: the op (a GEMM of this pass) it overlaps. */
static pp_op *comm_op(ctx *c, const char *name, pp_coll op, double bytes, pp_group g, int hide)
{
	if (g.n <= 1 || bytes <= 0)
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
	if (x->qlora) {
		snprintf(nm, sizeof(nm), "%s.dequant", name);
		wl_mem(c, nm, k * n * (x->base_wb + pp_dtype_bytes(c->dt)));
	}
	wl_gemm(c, name, m, n, k, 1, count);
	if (!x->peft)
		return;
	snprintf(nm, sizeof(nm), "%s.lora_a", name);
	wl_gemm(c, nm, m, nsub * x->r, k, 1, count);
	snprintf(nm, sizeof(nm), "%s.lora_b", name);
	wl_gemm(c, nm, m, n, x->r, 1, count);
	snprintf(nm, sizeof(nm), "%s.lora_add", name);
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
	if (!x->peft)
		return wl_linear_bwd(c, name, m, n, k, 1, dgrad);
	char nm[48];
	snprintf(nm, sizeof(nm), "%s.lora_b.dgrad", name);
	wl_gemm(c, nm, m, x->r, n, 1, true);
	snprintf(nm, sizeof(nm), "%s.lora_b.wgrad", name);
	wl_gemm(c, nm, x->r, n, m, 1, true);
	snprintf(nm, sizeof(nm), "%s.lora_a.dgrad", name);
	wl_gemm(c, nm, m, k, nsub * x->r, 1, true);
	snprintf(nm, sizeof(nm), "%s.lora_a.wgrad", name);
	wl_gemm(c, nm, k, nsub * x->r, m, 1, true);
	int wg = c->w->nops - 1;
	if (x->qlora) {
		snprintf(nm, sizeof(nm), "%s.dequant", name);
		wl_mem(c, nm, k * n * (x->base_wb + pp_dtype_bytes(c->dt)));
	}
	snprintf(nm, sizeof(nm), "%s.dgrad", name);
	wl_gemm(c, nm, m, k, n, 1, true);
	*dgrad = c->w->nops - 1;
	snprintf(nm, sizeof(nm), "%s.lora_add.bwd", name);
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
	double bytes = x->T * x->h * c->act;
	char ag[32], rs[32], ar[32], ln[16];
	snprintf(ag, sizeof(ag), "sp.allgather_ln%d", n);
	snprintf(rs, sizeof(rs), "sp.reducescatter_grad%d", n - 1);
	snprintf(ar, sizeof(ar), "tp.allreduce_grad%d", n - 1);
	snprintf(ln, sizeof(ln), "ln%d.bwd", n);
	if (x->sp) {
		wl_comm(c, ag, PP_COLL_ALL_GATHER, bytes, tp, dg);
		wl_comm(c, rs, PP_COLL_REDUCE_SCATTER, bytes, tp, wg);
	} else {
		wl_comm(c, ar, PP_COLL_ALL_REDUCE, bytes, tp, wg);
	}
	wl_mem(c, ln, 3.0 * c->act * x->Tn * x->h);
}

