/* workload.c - see workload.h. */
#include "engine/workload.h"
#include "engine/compute.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_phase_names[3] = {"fwd", "bwd", "recompute"};

double pp_layer_params(const pp_model *m)
{
	double h = m->hidden_size, f = m->ffn_hidden_size;
	double d = h / m->num_attention_heads;
	double kv = 2.0 * m->num_query_groups * d;
	if (m->swiglu) /* Llama style: no biases, RMSNorm (one vector each) */
		return h * (h + kv) + h * h + 3.0 * h * f + 2.0 * h;
	/* GPT style: biases, LayerNorm (weight and bias) */
	return h * (h + kv) + (h + kv) + h * h + h + 2.0 * h * f + f + h + 4.0 * h;
}

double pp_model_params(const pp_model *m)
{
	double h = m->hidden_size;
	double emb = (double)m->vocab_size * h;
	double p = m->num_layers * pp_layer_params(m) + emb;
	if (!m->swiglu)
		p += (double)m->seq_length * h + 2.0 * h; /* learned positions, final LayerNorm */
	else
		p += h;                                  /* final RMSNorm */
	if (!m->tied_embeddings)
		p += emb;
	return p;
}

double pp_lora_params(const pp_model *m, double rank)
{
	double h = m->hidden_size, f = m->ffn_hidden_size;
	double kv = (double)m->num_query_groups * (h / m->num_attention_heads);
	/* q, k, v, o; gate, up, down (or fc1, fc2): r (in + out) each */
	double per = (h + h) + 2.0 * (h + kv) + (h + h) + (m->swiglu ? 3.0 : 2.0) * (h + f);
	return m->num_layers * rank * per;
}

double pp_flops_narayanan(const pp_model *m, double B, bool recompute_full)
{
	double s = m->seq_length, l = m->num_layers, h = m->hidden_size, V = m->vocab_size;
	double c = recompute_full ? 96.0 : 72.0;
	double vterm = recompute_full ? V / (16.0 * l * h) : V / (12.0 * l * h);
	return c * B * s * l * h * h * (1.0 + s / (6.0 * h) + vterm);
}

/* ---- op list ---- */

typedef struct ctx {
	pp_workload *w;
	const pp_hw *hw;
	pp_dtype dt;          /* GEMM dtype */
	pp_dtype attn_dt;     /* attention dtype (fp8 runs attention in bf16) */
	double act;           /* bytes per activation element */
	pp_part part;
	pp_phase phase;
} ctx;

static pp_op *add(ctx *c, const char *name, pp_op_kind kind)
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
	return o;
}

static void gemm(ctx *c, const char *name, double m, double n, double k, double batch, bool count)
{
	pp_op *o = add(c, name, PP_OP_GEMM);
	o->m = m;
	o->n = n;
	o->k = k;
	o->batch = batch;
	o->flops = 2.0 * m * n * k * batch;
	o->model_flops = count ? o->flops : 0;
	o->bytes = batch * ((m * k + k * n) * pp_dtype_bytes(c->dt) + m * n * c->act);
	o->time_s = pp_gemm_time(c->hw, c->dt, m, n, k, batch, c->act);
}

/* The backward of a linear layer: its input- and weight-gradient GEMMs
 * (dgrad: m x k x n; wgrad: k x n x m). Returns the wgrad op's index and
 * sets *dgrad to the dgrad op's (a TP collective can hide behind either). */
static int linear_bwd(ctx *c, const char *name, double m, double n, double k, double batch,
		      int *dgrad)
{
	char nm[40];
	snprintf(nm, sizeof(nm), "%s.dgrad", name);
	gemm(c, nm, m, k, n, batch, true);
	*dgrad = c->w->nops - 1;
	snprintf(nm, sizeof(nm), "%s.wgrad", name);
	gemm(c, nm, k, n, m, batch, true);
	return c->w->nops - 1;
}

static void mem(ctx *c, const char *name, double bytes)
{
	pp_op *o = add(c, name, PP_OP_MEM);
	o->bytes = bytes;
	o->time_s = pp_mem_time(c->hw, bytes);
}

/* A TP/SP collective; hide >= 0: the op (a GEMM of this pass) it overlaps. */
static void comm(ctx *c, const char *name, pp_coll op, double bytes, pp_group g, int hide)
{
	if (g.n <= 1 || bytes <= 0)
		return;
	double overlap_s = hide >= 0 ? c->w->ops[hide].time_s : 0;
	pp_op *o = add(c, name, PP_OP_COMM);
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
}

typedef struct dims {
	double b, s, sl, h, a, g, d, f, t, V, T, Tn; /* Tn: tokens on norm/dropout ops (SP) */
	bool sp, flash, dropout, swiglu;
	bool peft, qlora;     /* a frozen base with LoRA adapters; stored in NF4 */
	double r, base_wb;    /* adapter rank; bytes of a stored base weight */
} dims;

/* A weight-bearing linear layer of a block, forward: y = x W, m x n x k
 * on this GPU. Fine-tuning adds its LoRA adapter, y += (x A) B (Hu et al.
 * 2021, eq. 3): A is k x (nsub r), one rank-r factor per sub-projection
 * (q, k, v; gate, up), B the block-diagonal (nsub r) x n, costed as one
 * m x n x r GEMM (the same FLOPs); then the add. QLoRA first dequantises W
 * from NF4 to the 16-bit copy the GEMM reads (bitsandbytes: read the
 * packed weight, write the copy; Dettmers et al. 2023, Sec. 3). The
 * adapter's parameters on this GPU follow from the shapes. */
static void block_linear(ctx *c, const dims *x, const char *name, double m, double n, double k,
			 int nsub, bool count)
{
	char nm[48];
	if (x->qlora) {
		snprintf(nm, sizeof(nm), "%s.dequant", name);
		mem(c, nm, k * n * (x->base_wb + pp_dtype_bytes(c->dt)));
	}
	gemm(c, name, m, n, k, 1, count);
	if (!x->peft)
		return;
	snprintf(nm, sizeof(nm), "%s.lora_a", name);
	gemm(c, nm, m, nsub * x->r, k, 1, count);
	snprintf(nm, sizeof(nm), "%s.lora_b", name);
	gemm(c, nm, m, n, x->r, 1, count);
	snprintf(nm, sizeof(nm), "%s.lora_add", name);
	mem(c, nm, m * n * 3.0 * c->act);
	if (c->phase == PP_PH_FWD && c->part == PP_PART_LAYER)
		c->w->trainable_layer += k * nsub * x->r + x->r * n;
}

/* Its backward. Full training: dgrad and wgrad (linear_bwd). Fine-tuning:
 * the adapter's four GEMMs (B's dgrad and wgrad, A's dgrad and wgrad), the
 * base's dgrad only (W is frozen; QLoRA dequantises it again), and the sum
 * of the two input gradients. Returns the op a TP collective of the input
 * gradient can hide behind (the weight gradient: A's under fine-tuning)
 * and sets *dgrad to the base dgrad. */
static int block_linear_bwd(ctx *c, const dims *x, const char *name, double m, double n, double k,
			    int nsub, int *dgrad)
{
	if (!x->peft)
		return linear_bwd(c, name, m, n, k, 1, dgrad);
	char nm[48];
	snprintf(nm, sizeof(nm), "%s.lora_b.dgrad", name);
	gemm(c, nm, m, x->r, n, 1, true);
	snprintf(nm, sizeof(nm), "%s.lora_b.wgrad", name);
	gemm(c, nm, x->r, n, m, 1, true);
	snprintf(nm, sizeof(nm), "%s.lora_a.dgrad", name);
	gemm(c, nm, m, k, nsub * x->r, 1, true);
	snprintf(nm, sizeof(nm), "%s.lora_a.wgrad", name);
	gemm(c, nm, k, nsub * x->r, m, 1, true);
	int wg = c->w->nops - 1;
	if (x->qlora) {
		snprintf(nm, sizeof(nm), "%s.dequant", name);
		mem(c, nm, k * n * (x->base_wb + pp_dtype_bytes(c->dt)));
	}
	snprintf(nm, sizeof(nm), "%s.dgrad", name);
	gemm(c, nm, m, k, n, 1, true);
	*dgrad = c->w->nops - 1;
	snprintf(nm, sizeof(nm), "%s.lora_add.bwd", name);
	mem(c, nm, m * k * 3.0 * c->act);
	return wg;
}

static void layer_fwd(ctx *c, const dims *x, pp_group tp, bool count, bool attn_core_only)
{
	double act = c->act;
	double kvw = 2.0 * x->g * x->d;            /* K and V width */
	double heads_t = x->a / x->t;
	double mask = x->dropout ? 1.0 : 0.0;
	if (!attn_core_only) {
		mem(c, "ln1", 2.0 * act * x->Tn * x->h);
		if (x->sp)
			comm(c, "sp.allgather1", PP_COLL_ALL_GATHER, x->T * x->h * act, tp, -1);
		block_linear(c, x, "qkv", x->T, (x->h + kvw) / x->t, x->h, 3, count);
	}
	if (x->flash) {
		if (!attn_core_only) {
			pp_op *o = add(c, "flash_attn", PP_OP_ATTN);
			double full = 4.0 * x->b * x->sl * x->s * heads_t * x->d;
			o->dtype = c->attn_dt;
			o->flops = 0.5 * full; /* causal: blocks above the diagonal are skipped */
			o->model_flops = count ? full : 0;
			o->bytes = x->T * (x->h + kvw + x->h) / x->t * act;
			o->time_s = pp_attn_time(c->hw, c->attn_dt, o->flops, o->bytes);
		}
	} else {
		double scores = x->b * heads_t * x->sl * x->s;
		gemm(c, "attn.qk", x->sl, x->s, x->d, x->b * heads_t, count);
		mem(c, "attn.softmax", scores * 2.0 * act);
		if (x->dropout)
			mem(c, "attn.dropout", scores * (2.0 * act + mask));
		gemm(c, "attn.av", x->sl, x->d, x->s, x->b * heads_t, count);
	}
	if (attn_core_only)
		return;
	block_linear(c, x, "proj", x->T, x->h, x->h / x->t, 1, count);
	comm(c, x->sp ? "sp.reducescatter1" : "tp.allreduce1",
	     x->sp ? PP_COLL_REDUCE_SCATTER : PP_COLL_ALL_REDUCE, x->T * x->h * act, tp, -1);
	mem(c, "dropout_add1", x->Tn * x->h * (3.0 * act + mask));
	mem(c, "ln2", 2.0 * act * x->Tn * x->h);
	if (x->sp)
		comm(c, "sp.allgather2", PP_COLL_ALL_GATHER, x->T * x->h * act, tp, -1);
	double fc1_n = (x->swiglu ? 2.0 : 1.0) * x->f / x->t;
	block_linear(c, x, "fc1", x->T, fc1_n, x->h, x->swiglu ? 2 : 1, count);
	mem(c, x->swiglu ? "swiglu" : "gelu",
	    x->T * x->f / x->t * act * (x->swiglu ? 3.0 : 2.0));
	block_linear(c, x, "fc2", x->T, x->h, x->f / x->t, 1, count);
	comm(c, x->sp ? "sp.reducescatter2" : "tp.allreduce2",
	     x->sp ? PP_COLL_REDUCE_SCATTER : PP_COLL_ALL_REDUCE, x->T * x->h * act, tp, -1);
	mem(c, "dropout_add2", x->Tn * x->h * (3.0 * act + mask));
}

/* After the backward of a column-parallel linear (qkv, fc1) that follows
 * norm n (1 or 2): under SP the all-gather of the norm's output for the
 * weight gradient, hidden behind the dgrad, and the reduce-scatter of the
 * input gradient behind the wgrad; without SP the all-reduce of the input
 * gradient behind the wgrad. Then the norm's backward. */
static void colpar_grad_comm(ctx *c, const dims *x, pp_group tp, int dg, int wg, int n)
{
	double bytes = x->T * x->h * c->act;
	char ag[32], rs[32], ar[32], ln[16];
	snprintf(ag, sizeof(ag), "sp.allgather_ln%d", n);
	snprintf(rs, sizeof(rs), "sp.reducescatter_grad%d", n - 1);
	snprintf(ar, sizeof(ar), "tp.allreduce_grad%d", n - 1);
	snprintf(ln, sizeof(ln), "ln%d.bwd", n);
	if (x->sp) {
		comm(c, ag, PP_COLL_ALL_GATHER, bytes, tp, dg);
		comm(c, rs, PP_COLL_REDUCE_SCATTER, bytes, tp, wg);
	} else {
		comm(c, ar, PP_COLL_ALL_REDUCE, bytes, tp, wg);
	}
	mem(c, ln, 3.0 * c->act * x->Tn * x->h);
}

/* Backward of a layer, in reverse op order. TP collectives of the
 * column-parallel linears overlap with the other half of their backward
 * (Megatron's async grad all-reduce / SP all-gather), those of the
 * row-parallel linears under SP block. */
static void layer_bwd(ctx *c, const dims *x, pp_group tp)
{
	double act = c->act;
	double kvw = 2.0 * x->g * x->d;
	double heads_t = x->a / x->t;
	double mask = x->dropout ? 1.0 : 0.0;
	int dg, wg;
	mem(c, "dropout_add2.bwd", x->Tn * x->h * (2.0 * act + mask));
	if (x->sp)
		comm(c, "sp.allgather_grad2", PP_COLL_ALL_GATHER, x->T * x->h * act, tp, -1);
	wg = block_linear_bwd(c, x, "fc2", x->T, x->h, x->f / x->t, 1, &dg);
	mem(c, x->swiglu ? "swiglu.bwd" : "gelu.bwd",
	    x->T * x->f / x->t * act * (x->swiglu ? 5.0 : 3.0));
	double fc1_n = (x->swiglu ? 2.0 : 1.0) * x->f / x->t;
	wg = block_linear_bwd(c, x, "fc1", x->T, fc1_n, x->h, x->swiglu ? 2 : 1, &dg);
	colpar_grad_comm(c, x, tp, dg, wg, 2);
	mem(c, "dropout_add1.bwd", x->Tn * x->h * (2.0 * act + mask));
	if (x->sp)
		comm(c, "sp.allgather_grad1", PP_COLL_ALL_GATHER, x->T * x->h * act, tp, -1);
	wg = block_linear_bwd(c, x, "proj", x->T, x->h, x->h / x->t, 1, &dg);
	if (x->flash) {
		pp_op *o = add(c, "flash_attn.bwd", PP_OP_ATTN);
		double full = 4.0 * x->b * x->sl * x->s * heads_t * x->d;
		o->dtype = c->attn_dt;
		o->flops = 2.5 * 0.5 * full;
		o->model_flops = 2.0 * full; /* the backward counted as 2x forward, eq. 3 */
		o->bytes = x->T * (x->h + kvw + x->h) / x->t * act * 2.0;
		o->time_s = pp_attn_time(c->hw, c->attn_dt, o->flops, o->bytes);
	} else {
		double scores = x->b * heads_t * x->sl * x->s;
		linear_bwd(c, "attn.av", x->sl, x->d, x->s, x->b * heads_t, &dg);
		if (x->dropout)
			mem(c, "attn.dropout.bwd", scores * (2.0 * act + mask));
		mem(c, "attn.softmax.bwd", scores * 3.0 * act);
		linear_bwd(c, "attn.qk", x->sl, x->s, x->d, x->b * heads_t, &dg);
	}
	wg = block_linear_bwd(c, x, "qkv", x->T, (x->h + kvw) / x->t, x->h, 3, &dg);
	colpar_grad_comm(c, x, tp, dg, wg, 1);
}

static void embed_fwd(ctx *c, const dims *x, pp_group tp)
{
	/* vocab-parallel lookup (read rows, write), position add, dropout */
	mem(c, "embed.lookup", x->T * x->h * c->act * (x->swiglu ? 2.0 : 4.0));
	comm(c, x->sp ? "embed.reducescatter" : "embed.allreduce",
	     x->sp ? PP_COLL_REDUCE_SCATTER : PP_COLL_ALL_REDUCE, x->T * x->h * c->act, tp, -1);
	if (x->dropout)
		mem(c, "embed.dropout", x->Tn * x->h * (2.0 * c->act + 1.0));
}

static void embed_bwd(ctx *c, const dims *x, pp_group tp)
{
	if (x->peft) /* frozen, and nothing before it needs a gradient */
		return;
	if (x->sp)
		comm(c, "embed.allgather_grad", PP_COLL_ALL_GATHER, x->T * x->h * c->act, tp, -1);
	/* scatter-add of the token gradients into the fp32 embedding gradient */
	mem(c, "embed.grad", x->T * x->h * (c->act + 8.0));
}

static void head_fwd(ctx *c, const dims *x, pp_group tp, bool count)
{
	mem(c, "final_norm", 2.0 * c->act * x->Tn * x->h);
	if (x->sp)
		comm(c, "head.allgather", PP_COLL_ALL_GATHER, x->T * x->h * c->act, tp, -1);
	gemm(c, "logits", x->T, x->V / x->t, x->h, 1, count);
	/* vocab-parallel cross entropy in fp32: cast, max, exp-sum, loss */
	mem(c, "cross_entropy", x->T * x->V / x->t * (c->act + 12.0));
	comm(c, "loss.allreduce", PP_COLL_ALL_REDUCE, x->T * 4.0 * 3.0, tp, -1);
}

static void head_bwd(ctx *c, const dims *x, pp_group tp)
{
	int dg, wg = -1;
	mem(c, "cross_entropy.bwd", x->T * x->V / x->t * (4.0 + c->act));
	if (x->peft) /* the output layer is frozen: its input gradient only */
		gemm(c, "logits.dgrad", x->T, x->h, x->V / x->t, 1, true);
	else
		wg = linear_bwd(c, "logits", x->T, x->V / x->t, x->h, 1, &dg);
	if (x->sp)
		comm(c, "head.reducescatter_grad", PP_COLL_REDUCE_SCATTER, x->T * x->h * c->act, tp, wg);
	else
		comm(c, "head.allreduce_grad", PP_COLL_ALL_REDUCE, x->T * x->h * c->act, tp, wg);
	mem(c, "final_norm.bwd", 3.0 * c->act * x->Tn * x->h);
}

static void sum_pass(const pp_workload *w, int from, int to, pp_pass_cost *pc)
{
	memset(pc, 0, sizeof(*pc));
	for (int i = from; i < to; i++) {
		const pp_op *o = &w->ops[i];
		if (o->kind == PP_OP_COMM) {
			pc->comm_s += o->exposed_s;
		} else {
			pc->compute_s += o->time_s;
			pc->flops += o->flops;
			pc->model_flops += o->model_flops;
		}
	}
}

void pp_workload_set_layout(pp_workload *w, const pp_scenario *s)
{
	const pp_parallel *p = &s->parallel;
	const pp_training *tr = &s->training;
	int G = s->cluster.gpus_per_node < s->cluster.num_gpus ? s->cluster.gpus_per_node
							       : s->cluster.num_gpus;
	/* Megatron-LM's rank order: tp fastest, then cp, dp, pp */
	w->tp = pp_group_place(p->tp, 1, G);
	w->cp = pp_group_place(p->cp, p->tp, G);
	w->dp = pp_group_place(p->dp * p->cp, p->tp, G);
	w->pp_group_ = pp_group_place(p->pp, p->tp * p->cp * p->dp, G);
	/* DP gradient reduction dtype: Megatron-LM reduces fp32 main grads for
	 * bf16 (it forces --accumulate-allreduce-grads-in-fp32) and fp16 grads
	 * for fp16 (that flag's default); DeepSpeed ZeRO-2/3 and FSDP reduce in
	 * the training dtype. */
	bool mixed = tr->precision != PP_DT_FP32 && tr->precision != PP_DT_TF32;
	w->grad_comm_bytes_per_param =
		mixed && (p->zero_stage >= 2 || tr->precision != PP_DT_BF16) ? 2.0 : 4.0;
}

bool pp_stage_link_same_node(const pp_scenario *s, int stage)
{
	const pp_parallel *p = &s->parallel;
	long per_stage = (long)p->tp * p->cp * p->dp;
	long G = s->cluster.gpus_per_node;
	if (s->cluster.num_gpus <= G)
		return true;
	return (stage * per_stage) / G == ((stage + 1) * per_stage) / G;
}

void pp_workload_build(pp_workload *w, const pp_scenario *s, const pp_hw *hw)
{
	memset(w, 0, sizeof(*w));
	const pp_model *m = &s->model;
	const pp_parallel *p = &s->parallel;
	const pp_training *tr = &s->training;
	dims x;
	x.b = (double)tr->micro_batch_size;
	x.s = m->seq_length;
	x.sl = (double)m->seq_length / p->cp;
	x.h = m->hidden_size;
	x.a = m->num_attention_heads;
	x.g = m->num_query_groups;
	x.d = x.h / x.a;
	x.f = m->ffn_hidden_size;
	x.t = p->tp;
	x.V = m->vocab_size;
	x.T = x.b * x.sl;
	x.sp = p->sequence_parallel && p->tp > 1;
	x.Tn = x.sp ? x.T / x.t : x.T;
	x.flash = tr->use_flash_attn;
	x.dropout = !m->swiglu; /* GPT recipes train with dropout 0.1; Llama recipes with none */
	x.swiglu = m->swiglu;
	x.peft = tr->finetune == PP_FT_LORA || tr->finetune == PP_FT_QLORA;
	x.qlora = tr->finetune == PP_FT_QLORA;
	x.r = tr->lora_rank;
	x.base_wb = tr->base_weight_bytes;
	/* GQA with fewer groups than TP ranks replicates K/V heads per rank */
	if (x.g < x.t)
		x.g = x.t;

	pp_workload_set_layout(w, s);

	ctx c = {w, hw, tr->precision, tr->precision == PP_DT_FP8 ? PP_DT_BF16 : tr->precision,
		 (tr->precision == PP_DT_FP32 || tr->precision == PP_DT_TF32) ? 4.0 : 2.0,
		 PP_PART_LAYER, PP_PH_FWD};

	/* one layer */
	int a0 = w->nops;
	layer_fwd(&c, &x, w->tp, true, false);
	int a1 = w->nops;
	c.phase = PP_PH_BWD;
	layer_bwd(&c, &x, w->tp);
	int a2 = w->nops;
	c.phase = PP_PH_RECOMPUTE;
	if (tr->recompute == PP_RC_FULL)
		layer_fwd(&c, &x, w->tp, true, false);
	else if (tr->recompute == PP_RC_SELECTIVE && !x.flash)
		layer_fwd(&c, &x, w->tp, true, true);
	int a3 = w->nops;
	sum_pass(w, a0, a1, &w->layer.fwd);
	sum_pass(w, a1, a2, &w->layer.bwd);
	sum_pass(w, a2, a3, &w->layer.recompute);

	/* embedding (first stage) */
	c.part = PP_PART_EMBED;
	c.phase = PP_PH_FWD;
	a0 = w->nops;
	embed_fwd(&c, &x, w->tp);
	a1 = w->nops;
	c.phase = PP_PH_BWD;
	embed_bwd(&c, &x, w->tp);
	a2 = w->nops;
	sum_pass(w, a0, a1, &w->embed.fwd);
	sum_pass(w, a1, a2, &w->embed.bwd);

	/* head and loss (last stage); recomputed only under full recompute of
	 * the last layer's output, which Megatron does not do: none here */
	c.part = PP_PART_HEAD;
	c.phase = PP_PH_FWD;
	a0 = w->nops;
	head_fwd(&c, &x, w->tp, true);
	a1 = w->nops;
	c.phase = PP_PH_BWD;
	head_bwd(&c, &x, w->tp);
	a2 = w->nops;
	sum_pass(w, a0, a1, &w->head.fwd);
	sum_pass(w, a1, a2, &w->head.bwd);

	/* parameters per GPU */
	double emb = x.V * x.h / x.t;
	/* trainable_layer holds the adapters block_linear counted */
	w->params_layer = pp_layer_params(m) / x.t + w->trainable_layer;
	w->params_embed = emb + (m->swiglu ? 0 : x.s * x.h);
	w->params_head = (m->swiglu ? x.h : 2.0 * x.h);
	if (!m->tied_embeddings || p->pp > 1)
		w->params_head += emb; /* untied output layer, or the tied copy on the last stage */
	w->params_total = pp_model_params(m);
	w->base_weight_bytes = x.base_wb;
	if (x.peft) {
		w->trainable_embed = w->trainable_head = 0;
		w->trainable_total = pp_lora_params(m, x.r);
	} else {
		w->trainable_layer = w->params_layer;
		w->trainable_embed = w->params_embed;
		w->trainable_head = w->params_head;
		w->trainable_total = w->params_total;
	}
	w->tokens_per_mb = x.b * x.s;
	w->act_bytes = c.act;
	w->p2p_bytes = x.T * x.h * c.act / x.t; /* scatter/gather or SP: each TP rank sends 1/t */

	bool mixed = tr->precision != PP_DT_FP32 && tr->precision != PP_DT_TF32;
	w->param_gather_bytes_per_param = mixed ? 2.0 : 4.0;
	/* Adam: read fp32 param, grad, m, v; write param, m, v; write the 16-bit
	 * copy. SGD with momentum: read param, grad, momentum; write both. */
	double copy = mixed ? 2.0 : 0.0;
	w->optimizer_bytes_per_param = tr->optimizer == PP_OPTIM_ADAM ? 16.0 + 12.0 + copy
								      : 12.0 + 8.0 + copy;

	/* context parallelism: ring exchange of K and V per layer, overlapped
	 * with the attention it feeds (Megatron CP, ring attention) */
	if (p->cp > 1) {
		double kv = 2.0 * x.b * x.sl * x.g * x.d / x.t * c.act;
		double t_ring = (p->cp - 1) * pp_p2p_time(hw, kv, w->cp.per_node == p->cp);
		double attn = 0;
		for (int i = 0; i < w->nops; i++)
			if (w->ops[i].part == PP_PART_LAYER && w->ops[i].phase == PP_PH_FWD &&
			    (w->ops[i].kind == PP_OP_ATTN || !strncmp(w->ops[i].name, "attn.", 5)))
				attn += w->ops[i].time_s;
		w->cp_comm_s = t_ring > attn ? t_ring - attn : 0;
		w->layer.fwd.comm_s += w->cp_comm_s;
		w->layer.bwd.comm_s += 2.0 * w->cp_comm_s; /* K,V and their gradients */
		if (tr->recompute == PP_RC_FULL)
			w->layer.recompute.comm_s += w->cp_comm_s;
	}
}

void pp_workload_release(pp_workload *w)
{
	free(w->ops);
	memset(w, 0, sizeof(*w));
}
