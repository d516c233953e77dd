/* workload.c - see workload.h. */
#include "engine/workload.h"
#include "engine/opsint.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_phase_names[3] = {"fwd", "bwd", "recompute"};

static void sum_pass(const pp_workload *w, int from, int to, pp_pass_cost *pc)
{
	memset(pc, 0, sizeof(*pc));
	for (int i = from; i < to; i++) {
		const pp_op *o = &w->ops[i];
		pc->kernels += o->kernels;
		if (o->kind == PP_OP_COMM && o->ep) {
			pc->ep_comm_s += o->exposed_s;
		} else if (o->kind == PP_OP_COMM) {
			pc->comm_s += o->exposed_s;
		} else {
			pc->compute_s += o->time_s;
			if (pp_op_wgrad(o))
				pc->wgrad_s += o->time_s;
			pc->flops += o->flops;
			pc->model_flops += o->model_flops;
		}
	}
	/* eager PyTorch issues each kernel from Python: a pass whose kernels
	 * are shorter than their issue takes the host's time */
	pc->host_s = pc->kernels * w->host_issue_s;
}

int pp_workload_domain_gpus(const pp_scenario *s)
{
	int dom = pp_cluster_domain_gpus(&s->cluster);
	return dom < s->cluster.num_gpus ? dom : s->cluster.num_gpus;
}

/* Megatron-LM's rank order: tp fastest, then cp, dp, pp */
static pp_group tp_group(const pp_scenario *s)
{
	return pp_group_place(s->parallel.tp, 1, pp_workload_domain_gpus(s));
}

static pp_group cp_group(const pp_scenario *s)
{
	return pp_group_place(s->parallel.cp, s->parallel.tp, pp_workload_domain_gpus(s));
}

bool pp_workload_reads_network(const pp_scenario *s)
{
	const pp_stack *st = &s->training.stack;
	if (s->model.num_experts > 0 || st->fsdp2_copies || st->autocast || st->ddp_bucket_copies)
		return true;
	pp_group tp = tp_group(s), cp = cp_group(s);
	return tp.per_node < tp.n || cp.per_node < cp.n;
}

void pp_workload_set_layout(pp_workload *w, const pp_scenario *s)
{
	const pp_parallel *p = &s->parallel;
	const pp_training *tr = &s->training;
	int G = pp_workload_domain_gpus(s);
	w->tp = tp_group(s);
	w->cp = cp_group(s);
	w->dp = pp_group_place(p->dp * p->cp, p->tp, G);
	w->pp_group_ = pp_group_place(p->pp, p->tp * p->cp * p->dp, G);
	/* experts: etp fastest, then ep, then the expert data-parallel ranks */
	int ee = pp_parallel_etp(p) * (p->ep > 0 ? p->ep : 1);
	w->edp = pp_group_place(pp_parallel_edp(p), ee, G);
	/* DP gradient reduction dtype (the stack's grad_reduce_in_fp32):
	 * Megatron-LM's rule reduces fp32 main grads for bf16 (it forces
	 * --accumulate-allreduce-grads-in-fp32) and fp16 grads for fp16 (that
	 * flag's default), a ZeRO-2/3 layout (DeepSpeed's, FSDP's) in the
	 * training dtype; TorchTitan's FSDP2 reduces in fp32
	 * (mixed_precision_reduce), plain FSDP2/DDP in the parameters' dtype. */
	bool mixed = tr->precision != PP_DT_FP32 && tr->precision != PP_DT_TF32;
	int g = tr->stack.grad_reduce;
	if (!mixed)
		w->grad_comm_bytes_per_param = 4.0;
	else if (g == PP_GRED_FP32)
		w->grad_comm_bytes_per_param = 4.0;
	else if (g == PP_GRED_TRAIN_DTYPE && tr->stack.autocast && tr->stack.master_fp32 &&
		 p->zero_stage < 3)
		/* "the parameters' dtype" under autocast over fp32 parameters
		 * (plain DDP): the gradients are fp32 */
		w->grad_comm_bytes_per_param = 4.0;
	else if (g == PP_GRED_TRAIN_DTYPE)
		w->grad_comm_bytes_per_param = 2.0;
	else
		w->grad_comm_bytes_per_param =
			p->zero_stage >= 2 || tr->precision != PP_DT_BF16 ? 2.0 : 4.0;
}

bool pp_stage_link_same_domain(const pp_scenario *s, int stage)
{
	const pp_parallel *p = &s->parallel;
	long per_stage = (long)p->tp * p->cp * p->dp;
	long G = pp_cluster_domain_gpus(&s->cluster);
	if (s->cluster.num_gpus <= G)
		return true;
	return (stage * per_stage) / G == ((stage + 1) * per_stage) / G;
}

void wl_dims_model(dims *x, const pp_model *m, int tp)
{
	x->h = m->hidden_size;
	x->a = m->num_attention_heads;
	x->g = m->num_query_groups;
	x->d = m->head_dim > 0 ? m->head_dim : x->h / x->a;
	x->qw = m->head_dim > 0 ? x->a * m->head_dim : x->h;
	x->f = m->ffn_hidden_size;
	x->t = tp;
	x->V = m->vocab_size;
	x->swiglu = m->swiglu;
	/* GQA with fewer groups than TP ranks replicates K/V heads per rank */
	if (x->g < x->t)
		x->g = x->t;
	x->mla = m->multi_latent_attention;
	x->qlr = m->q_lora_rank;
	x->kvlr = m->kv_lora_rank;
	x->dqk = m->qk_head_dim;
	x->drope = m->qk_pos_emb_head_dim;
	x->dv = m->v_head_dim;
	x->window = m->window;
	x->fused_proj = true;
	x->qgate = m->attn_output_gate ? 2.0 : 1.0;
	x->nk = m->gdn_k_heads;
	x->nv = m->gdn_v_heads;
	x->dk = m->gdn_k_dim;
	x->dvl = m->gdn_v_dim;
	x->conv = m->gdn_conv;
}

/* The dimensions of the layout and of layer kind k. */
static void dims_of(dims *x, const pp_scenario *s, const pp_workload *w)
{
	const pp_model *m = &s->model;
	const pp_parallel *p = &s->parallel;
	const pp_training *tr = &s->training;
	memset(x, 0, sizeof(*x));
	wl_dims_model(x, m, p->tp);
	x->b = (double)tr->micro_batch_size;
	x->s = m->seq_length;
	x->sl = (double)m->seq_length / p->cp;
	x->T = x->b * x->sl;
	x->sp = p->sequence_parallel && p->tp > 1;
	x->Tn = x->sp ? x->T / x->t : x->T;
	x->flash = tr->use_flash_attn;
	x->dropout = !m->swiglu;
	x->rope = m->swiglu; /* Llama-family models rotate q and k; GPT's positions are learned */
	x->fused_proj = tr->stack.fused_proj; /* GPT recipes train with dropout 0.1; Llama recipes with none */
	x->peft = tr->finetune == PP_FT_LORA || tr->finetune == PP_FT_QLORA;
	x->qlora = tr->finetune == PP_FT_QLORA;
	x->r = tr->lora_rank;
	x->base_wb = tr->base_weight_bytes;

	if (m->num_experts > 0) {
		int G = pp_workload_domain_gpus(s);
		int etp = pp_parallel_etp(p), ep = p->ep > 0 ? p->ep : 1;
		x->E = m->num_experts;
		x->topk = m->moe_router_topk;
		x->Fm = m->moe_ffn_hidden_size;
		x->S = m->moe_shared_expert_intermediate_size;
		x->ep = ep;
		x->etp = etp;
		x->El = x->E / ep;
		x->n_avg = x->Tn * x->topk * ep * etp / x->E;
		double imb = tr->moe_load_imbalance >= 1 ? tr->moe_load_imbalance : 1;
		if (tr->moe_expert_capacity_factor > 0 && tr->moe_expert_capacity_factor < imb)
			imb = tr->moe_expert_capacity_factor; /* the rest is dropped */
		x->imb = imb;
		x->n_busy = x->n_avg * imb;
		x->dispatcher = tr->moe_token_dispatcher;
		x->shared_overlap = tr->moe_shared_expert_overlap;
		x->grouped = tr->moe_grouped_gemm;
		/* Megatron-Core's expert rank order: etp fastest, then ep, then edp */
		x->etpg = pp_group_place(etp, 1, G);
		x->epg = pp_group_place(ep, etp, G);
		x->tpepg = pp_group_place(etp * ep, 1, G);
	}
	(void)w;
}

static void sum_kind(pp_workload *w, int k, int a0, int a1, int a2, int a3)
{
	sum_pass(w, a0, a1, &w->lk[k].cost.fwd);
	sum_pass(w, a1, a2, &w->lk[k].cost.bwd);
	sum_pass(w, a2, a3, &w->lk[k].cost.recompute);
}

static void layer_fwd(ctx *c, const dims *x, pp_group tp, bool core_only)
{
	const pp_eltw_impl *e = wl_eltw(c);
	double mask = x->dropout ? 1.0 : 0.0;
	wl_attention_fwd(c, x, tp, true, core_only);
	if (core_only)
		return;
	wl_mem_n(c, "ln2", e->norm_fwd * c->act * x->Tn * x->h, e->norm_kernels);
	if (x->moe)
		wl_moe_fwd(c, x, tp, true);
	else
		wl_mlp_fwd(c, x, tp, true);
	/* the op policy's recompute ends at the MLP's input to fc2: the block's
	 * output is the next block's saved input */
	if (c->sac_op && c->phase == PP_PH_RECOMPUTE)
		return;
	wl_mem_n(c, "dropout_add2", x->Tn * x->h * (e->resid_fwd * c->act + mask), e->resid_kernels);
}

static void layer_bwd(ctx *c, const dims *x, pp_group tp)
{
	const pp_eltw_impl *e = wl_eltw(c);
	double mask = x->dropout ? 1.0 : 0.0;
	wl_mem_n(c, "dropout_add2.bwd", x->Tn * x->h * (e->resid_bwd * c->act + mask),
		 e->resid_kernels);
	if (x->moe)
		wl_moe_bwd(c, x, tp);
	else
		wl_mlp_bwd(c, x, tp);
	wl_attention_bwd(c, x, tp);
}

/* Layer kind k's parameters on this GPU without LoRA adapters; *experts:
 * the routed experts' among them. */
static double kind_params(const pp_model *m, const dims *x, int k, double *experts)
{
	*experts = 0;
	if (x->moe)
		*experts = x->El * (m->swiglu ? 3.0 : 2.0) * x->h * x->Fm / x->etp;
	if (!x->moe && !x->mla && m->head_dim <= 0 && !x->linear && !m->attn_output_gate)
		return pp_layer_params(m) / x->t;
	return (pp_layer_params_kind(m, k) - (x->moe ? pp_expert_params(m, x->E) : 0)) / x->t + *experts;
}

/* FSDP2's local copies of a parameter group of `params` on this GPU in
 * `tensors` tensors (frameworks.json fsdp2_copies, torch 2.11
 * _fsdp_collectives.py): before an all-gather each shard is cast to
 * param_dtype (fp32 parameters under 16-bit training: read 4, write 2)
 * and copied into the all-gather buffer (read and write 2); before a
 * reduce-scatter the unsharded gradients are copied into its input (read
 * 2, written at the reduction's dtype), one _chunk_cat. Nothing unless
 * ZeRO-3 runs as FSDP2. */
static void fsdp_copies(ctx *c, const pp_scenario *s, const pp_workload *w, double params,
			int tensors, bool gather)
{
	const pp_training *tr = &s->training;
	if (!tr->stack.fsdp2_copies || s->parallel.zero_stage != 3 || params <= 0)
		return;
	bool mixed = tr->precision != PP_DT_FP32 && tr->precision != PP_DT_TF32;
	double n = w->dp.n > 0 ? w->dp.n : 1, pb = mixed ? 2.0 : 4.0;
	if (gather) {
		bool cast = mixed && tr->stack.master_fp32;
		wl_mem_n(c, "fsdp.all_gather_copy_in", params / n * ((cast ? 4.0 + pb : 0) + 2.0 * pb),
			 tensors * (cast ? 2 : 1));
	} else if (w->grad_comm_bytes_per_param > 0) {
		wl_mem(c, "fsdp.reduce_scatter_copy_in", params * (pb + w->grad_comm_bytes_per_param));
	}
}

bool pp_autocast_fp32(const pp_scenario *s)
{
	const pp_training *tr = &s->training;
	return tr->stack.autocast && tr->stack.master_fp32 && s->parallel.zero_stage < 3 &&
	       (tr->precision == PP_DT_BF16 || tr->precision == PP_DT_FP16);
}

bool pp_ddp_bucket_copies(const pp_scenario *s)
{
	const pp_stack *st = &s->training.stack;
	const pp_parallel *p = &s->parallel;
	if (!st->ddp_bucket_copies || p->zero_stage > 1)
		return false;
	return st->ddp >= 0 ? st->ddp == 1 : (double)p->dp * p->cp > 1;
}

/* DDP's bucket copies of a parameter group of `params` in `tensors`
 * tensors (torch 2.11 torch/csrc/distributed/c10d/reducer.cpp): in the
 * backward each gradient is copied into its bucket (copy_grad_to_bucket),
 * and after the all-reduce the bucket back into .grad
 * (finalize_bucket_dense), both at the gradients' dtype. */
static void ddp_copies(ctx *c, const pp_scenario *s, const pp_workload *w, double params,
		       int tensors)
{
	if (!pp_ddp_bucket_copies(s) || params <= 0)
		return;
	double gb = w->grad_comm_bytes_per_param;
	wl_mem_n(c, "ddp.copy_grad_to_bucket", params * 2.0 * gb, tensors);
	wl_mem_n(c, "ddp.copy_bucket_to_grad", params * 2.0 * gb, tensors);
}

/* The weight tensors of a dense layer: its linears and two norms. */
static int layer_tensors(const dims *x)
{
	if (x->fused_proj)
		return 6;
	return 4 + (x->swiglu ? 3 : 2) + 2;
}

/* One multi-token-prediction depth (Megatron-Core multi_token_prediction.py,
 * MultiTokenPredictionLayer.forward): the shifted tokens' embedding, enorm
 * and hnorm, eh_proj over their concatenation (2h -> h), a layer of the
 * last layer's kind, then the final norm, the shared output layer's
 * logits and the loss; counted in the model FLOPs as Megatron's
 * num_floating_point_operations counts them (the layer, the projection,
 * one more logits). Backward in reverse. */
static void mtp_kind(dims *x, const pp_scenario *s, ctx *c)
{
	int k = pp_model_layer_kind(&s->model, s->model.num_layers - 1);
	c->kind = k;
	x->moe = (k & PP_LK_MOE) != 0;
	x->windowed = (k & PP_LK_WINDOW) != 0;
	x->linear = (k & PP_LK_LINEAR) != 0;
}

static void mtp_fwd(pp_workload *w, ctx *c, dims *x, const pp_scenario *s)
{
	const pp_eltw_impl *e = wl_eltw(c);
	dims keep = *x;
	mtp_kind(x, s, c);
	wl_embed_fwd(c, x, w->tp);
	wl_mem_n(c, "mtp.norms", 2.0 * e->norm_fwd * c->act * x->Tn * x->h, 2 * e->norm_kernels);
	wl_block_linear(c, x, "mtp.eh_proj", x->T, x->h / x->t, 2.0 * x->h, 1, true);
	layer_fwd(c, x, w->tp, false);
	wl_head_fwd(c, x, w->tp, true);
	c->kind = 0;
	*x = keep;
}

static void mtp_bwd(pp_workload *w, ctx *c, dims *x, const pp_scenario *s)
{
	const pp_eltw_impl *e = wl_eltw(c);
	int dg;
	dims keep = *x;
	mtp_kind(x, s, c);
	wl_head_bwd(c, x, w->tp);
	layer_bwd(c, x, w->tp);
	wl_block_linear_bwd(c, x, "mtp.eh_proj", x->T, x->h / x->t, 2.0 * x->h, 1, &dg);
	wl_mem_n(c, "mtp.norms.bwd", 2.0 * e->norm_bwd * c->act * x->Tn * x->h, 2 * e->norm_kernels);
	wl_embed_bwd(c, x, w->tp);
	c->kind = 0;
	*x = keep;
}

/* Layer kind k's ops (forward, backward, recompute) and parameters. */
static void build_kind(pp_workload *w, ctx *c, dims *x, const pp_scenario *s, int k)
{
	const pp_model *m = &s->model;
	const pp_training *tr = &s->training;
	pp_layer_cost *lc = &w->lk[k];
	c->part = PP_PART_LAYER;
	c->kind = k;
	x->moe = (k & PP_LK_MOE) != 0;
	x->windowed = (k & PP_LK_WINDOW) != 0;
	x->linear = (k & PP_LK_LINEAR) != 0;
	double experts, base = kind_params(m, x, k, &experts);
	int a0 = w->nops;
	c->phase = PP_PH_FWD;
	fsdp_copies(c, s, w, base, layer_tensors(x), true);
	layer_fwd(c, x, w->tp, false);
	int a1 = w->nops;
	c->phase = PP_PH_BWD;
	if (tr->stack.reshard_after_forward)
		fsdp_copies(c, s, w, base, layer_tensors(x), true);
	layer_bwd(c, x, w->tp);
	if (!x->peft) {
		fsdp_copies(c, s, w, base, layer_tensors(x), false);
		ddp_copies(c, s, w, base, layer_tensors(x));
	}
	int a2 = w->nops;
	c->phase = PP_PH_RECOMPUTE;
	if (tr->recompute == PP_RC_FULL) {
		layer_fwd(c, x, w->tp, false);
	} else if (tr->recompute == PP_RC_SELECTIVE && tr->stack.sac == PP_SAC_TORCHTITAN_OP) {
		/* TorchTitan's op policy: the block again, but for the saved
		 * matmul outputs, the attention core and the reduce-scatters */
		c->sac_op = true;
		c->mm_count = 0;
		layer_fwd(c, x, w->tp, false);
		c->sac_op = false;
	} else if (tr->recompute == PP_RC_SELECTIVE && tr->stack.sac == PP_SAC_CORE_ATTN) {
		/* Megatron-Core (attention.py _checkpointed_attention_forward):
		 * the core attention again, fused kernel or not */
		c->core_attn = true;
		layer_fwd(c, x, w->tp, true);
		c->core_attn = false;
	} else if (tr->recompute == PP_RC_SELECTIVE && !x->flash) {
		layer_fwd(c, x, w->tp, true);
	}
	sum_kind(w, k, a0, a1, a2, w->nops);
	if (x->moe && tr->overlap_moe_expert_parallel_comm)
		wl_moe_pair_saving(c, a0, a1, a2, w->nops, tr->delay_wgrad_compute,
				   &lc->ep_pair_save_fwd_s, &lc->ep_pair_save_bwd_s);
	if (x->moe)
		wl_moe_dualpipe_pair(c, a0, a1, a2, w->nops, tr->moe_ep_comm_sms, &lc->dual);
	/* lc->trainable holds the adapters wl_block_linear counted */
	lc->params = base + lc->trainable;
	lc->expert_params = experts;
	if (!x->peft) {
		lc->trainable = lc->params;
		lc->trainable_expert = experts;
	}
}

void pp_workload_build(pp_workload *w, const pp_scenario *s, const pp_hw *hw)
{
	memset(w, 0, sizeof(*w));
	const pp_model *m = &s->model;
	const pp_parallel *p = &s->parallel;
	const pp_training *tr = &s->training;
	dims x;
	pp_workload_set_layout(w, s);
	dims_of(&x, s, w);

	ctx c = {w, hw, tr->precision, pp_dtype_attn(tr->precision),
		 (tr->precision == PP_DT_FP32 || tr->precision == PP_DT_TF32) ? 4.0 : 2.0,
		 PP_PART_LAYER, PP_PH_FWD, 0, &tr->stack,
		 pp_stack_attention(&tr->stack, s->cluster.gpu ? s->cluster.gpu->arch : NULL), false,
		 false, 0, false};
	/* a GEMM-dense step (tensor_clock "sustained") on a SKU whose sustained
	 * share is known: its GEMMs and attention are costed at that share of
	 * the burst rates (input/hw.h dense_sustained) */
	pp_hw dense;
	if (tr->stack.sustained_clock && !hw->dense_on && pp_hw_has_sustained(hw)) {
		dense = *hw;
		dense.dense_on = true;
		c.hw = &dense;
	}
	w->host_issue_s = tr->stack.cuda_graphs ? 0 : tr->stack.host_issue_s;
	/* torch.autocast over fp32 parameters: 16-bit training with fp32
	 * master weights that no ZeRO-3 / FSDP2 MixedPrecisionPolicy casts in
	 * its all-gather (that hands the layers 16-bit parameters) */
	c.amp = pp_autocast_fp32(s);

	/* a layer of each kind the model has */
	int counts[PP_LAYER_KINDS];
	pp_model_kind_counts(m, counts);
	for (int k = 0; k < PP_LAYER_KINDS; k++) {
		w->lk[k].count = counts[k];
		if (counts[k])
			build_kind(w, &c, &x, s, k);
	}

	/* embedding (first stage) */
	c.part = PP_PART_EMBED;
	c.kind = 0;
	c.phase = PP_PH_FWD;
	/* FSDP2's root group (the embedding, the final norm, an untied output
	 * layer) is gathered once: fully_shard keeps the root's parameters
	 * through the backward */
	double root = x.V * x.h / x.t * (m->tied_embeddings && p->pp == 1 ? 1.0 : 2.0) + x.h;
	int a0 = w->nops;
	fsdp_copies(&c, s, w, root, 3, true);
	wl_embed_fwd(&c, &x, w->tp);
	int a1 = w->nops;
	c.phase = PP_PH_BWD;
	wl_embed_bwd(&c, &x, w->tp);
	if (!x.peft) {
		fsdp_copies(&c, s, w, root, 3, false);
		ddp_copies(&c, s, w, root, 3);
	}
	int a2 = w->nops;
	sum_pass(w, a0, a1, &w->embed.fwd);
	sum_pass(w, a1, a2, &w->embed.bwd);

	/* head and loss (last stage); recomputed only under full recompute of
	 * the last layer's output, which Megatron does not do: none here. The
	 * multi-token-prediction depths ride in the head's tasks: Megatron-Core
	 * runs them on the last stage after the decoder, before the loss */
	c.part = PP_PART_HEAD;
	c.phase = PP_PH_FWD;
	a0 = w->nops;
	wl_head_fwd(&c, &x, w->tp, true);
	for (int d = 0; d < m->mtp_num_layers; d++)
		mtp_fwd(w, &c, &x, s);
	a1 = w->nops;
	c.phase = PP_PH_BWD;
	for (int d = 0; d < m->mtp_num_layers; d++)
		mtp_bwd(w, &c, &x, s);
	wl_head_bwd(&c, &x, w->tp);
	a2 = w->nops;
	sum_pass(w, a0, a1, &w->head.fwd);
	sum_pass(w, a1, a2, &w->head.bwd);
	if (m->mtp_num_layers > 0) {
		const pp_layer_cost *lm = &w->lk[pp_model_layer_kind(m, m->num_layers - 1)];
		w->head_pair_save_fwd_s = m->mtp_num_layers * lm->ep_pair_save_fwd_s;
		w->head_pair_save_bwd_s = m->mtp_num_layers * lm->ep_pair_save_bwd_s;
		double n = m->mtp_num_layers;
		w->head_dual = (pp_dual_pair){n * lm->dual.hide_fwd_s, n * lm->dual.hide_bwd_s,
					      n * lm->dual.slow_fwd_s, n * lm->dual.slow_bwd_s};
	}

	/* parameters per GPU */
	double emb = x.V * x.h / x.t;
	w->params_embed = emb + (m->swiglu ? 0 : x.s * x.h);
	w->params_head = (m->swiglu ? x.h : 2.0 * x.h);
	if (!m->tied_embeddings || p->pp > 1)
		w->params_head += emb; /* untied output layer, or the tied copy on the last stage */
	if (m->mtp_num_layers > 0) {
		/* the MTP depths' layers, projections and norms, and the embedding
		 * the MTP stage holds (gpt_model.py: pre_process or mtp_process) */
		int k = pp_model_layer_kind(m, m->num_layers - 1);
		w->params_head += m->mtp_num_layers * (w->lk[k].params + 2.0 * x.h * x.h / x.t + 3.0 * x.h);
		if (p->pp > 1)
			w->params_head += emb;
	}
	w->params_total = pp_model_params(m);
	w->params_active = pp_model_params_active(m);
	w->base_weight_bytes = x.base_wb;
	if (x.peft) {
		w->trainable_embed = w->trainable_head = 0;
		w->trainable_total = pp_lora_params(m, x.r);
	} else {
		w->trainable_embed = w->params_embed;
		w->trainable_head = w->params_head;
		w->trainable_total = w->params_total;
	}
	w->tokens_per_mb = x.b * x.s;
	w->act_bytes = c.act;
	w->p2p_bytes = x.T * x.h * c.act / x.t; /* scatter/gather or SP: each TP rank sends 1/t */

	bool mixed = tr->precision != PP_DT_FP32 && tr->precision != PP_DT_TF32;
	/* the distributed optimizer's all-gather of updated parameters: the
	 * compute copy's bytes, 1 with FP8 parameters (Megatron's
	 * --fp8-param-gather; their scales, one per tensor, are not counted;
	 * the 16-bit embedding and output layer are counted at 1 byte too, an
	 * underestimate of their share of the gather) */
	w->param_gather_bytes_per_param = tr->fp8_param_gather ? 1.0 : mixed ? 2.0 : 4.0;
	/* Adam as the stack's optimizer runs it (frameworks.json optimizers:
	 * fused, one pass reading fp32 param, grad, m, v and writing param, m,
	 * v and the 16-bit copy; or torch's foreach AdamW, a pass per op),
	 * states at 16 bits without fp32 master weights; then the gradient
	 * norm and clipping. SGD with momentum: read param, grad, momentum;
	 * write both. */
	const pp_optim_impl *oi = &tr->stack.optim;
	double sb = mixed && !tr->stack.master_fp32 ? 0.5 : 1.0; /* state bytes over fp32's */
	double copy = mixed && tr->stack.master_fp32 ? 2.0 : 0.0;
	w->optimizer_bytes_per_param = tr->optimizer == PP_OPTIM_ADAM
					       ? oi->bytes_per_param * sb + (copy > 0 ? oi->copy_bytes : 0)
					       : 12.0 + 8.0 + copy;
	w->clip_bytes_per_param = tr->optimizer == PP_OPTIM_ADAM ? oi->clip_bytes * sb : 4.0;

	/* context parallelism: the K/V exchange per layer as the stack's
	 * implementation runs it (frameworks.json context_parallel):
	 * Megatron-Core / TE's ring of send/recv (AttnFuncWithCPAndKVP2P) beside
	 * the attention steps it feeds, of which the catalog's overlap_eff is
	 * hidden, as for any collective beside compute; or PyTorch's
	 * context_parallel all-gather of K and V before the attention (its
	 * backward gathers them again and reduce-scatters their gradients),
	 * nothing hidden; TorchTitan gathers the K and V its repeat_kv expanded
	 * to every head. Each of the cp steps merges its partial output into
	 * the result (and, backward, its gradients), the implementation's
	 * bytes per element. */
	if (p->cp > 1) {
		const pp_stack *st = &tr->stack;
		bool expanded = st->eltw.repeat_kv > 0 && !x.mla;
		double kv = x.mla ? x.b * x.sl * (x.a / x.t) * (x.dqk + x.drope + x.dv) * c.act
				  : 2.0 * x.b * x.sl * (expanded ? x.a : x.g) * x.d / x.t * c.act;
		double qel = x.T * (x.mla ? x.a * x.dv : x.qw) / x.t; /* output elements */
		double kvel = kv / c.act;
		double mb_f = p->cp * st->cp_merge_fwd * c.act * qel;
		double mb_b = p->cp * c.act * (st->cp_merge_bwd_q * qel + st->cp_merge_bwd_kv * kvel);
		double m_f = pp_mem_time_n(hw, mb_f, p->cp);
		double m_b = pp_mem_time_n(hw, mb_b, 2 * p->cp);
		double t_ring = (p->cp - 1) * pp_p2p_time(hw, kv, w->cp.per_node == p->cp);
		double t_ag = pp_coll_time(hw, PP_COLL_ALL_GATHER, kv * p->cp, w->cp);
		double t_rs = pp_coll_time(hw, PP_COLL_REDUCE_SCATTER, kv * p->cp, w->cp);
		for (int k = 0; k < PP_LAYER_KINDS; k++) {
			pp_layer_cost *lc = &w->lk[k];
			if (!lc->count)
				continue;
			double fwd, bwd;
			if (st->cp_comm == PP_CPC_ALLGATHER) {
				fwd = t_ag;
				bwd = t_ag + t_rs;
			} else {
				double attn = 0;
				for (int i = 0; i < w->nops; i++)
					if (w->ops[i].part == PP_PART_LAYER && w->ops[i].layer_kind == k &&
					    w->ops[i].phase == PP_PH_FWD &&
					    (w->ops[i].kind == PP_OP_ATTN || !strncmp(w->ops[i].name, "attn.", 5)))
						attn += w->ops[i].time_s;
				double hide = st->cp_overlapped ? hw->overlap_eff : 1.0;
				fwd = t_ring - hide * (t_ring < attn ? t_ring : attn);
				bwd = 2.0 * fwd; /* K,V and their gradients */
			}
			lc->cp_comm_s = fwd;
			lc->cost.fwd.comm_s += fwd;
			lc->cost.bwd.comm_s += bwd;
			lc->cost.fwd.cp_comm_s += fwd;
			lc->cost.bwd.cp_comm_s += bwd;
			lc->cost.fwd.compute_s += m_f;
			lc->cost.bwd.compute_s += m_b;
			bool rc_full = tr->recompute == PP_RC_FULL;
			if (rc_full) {
				lc->cost.recompute.comm_s += fwd;
				lc->cost.recompute.cp_comm_s += fwd;
				lc->cost.recompute.compute_s += m_f;
			}
			/* the op list shows what was just costed */
			c.part = PP_PART_LAYER;
			c.kind = k;
			bool ag = st->cp_comm == PP_CPC_ALLGATHER;
			double ring_b = kv * (p->cp - 1); /* a ring's cp - 1 sends */
			for (int ph = PP_PH_FWD; ph <= PP_PH_RECOMPUTE; ph++) {
				if (ph == PP_PH_RECOMPUTE && !rc_full)
					continue;
				c.phase = ph;
				bool b = ph == PP_PH_BWD;
				if (ag) {
					wl_cp_op(&c, "cp.kv_allgather", PP_COLL_ALL_GATHER, kv * p->cp,
						 kv * p->cp, w->cp, t_ag, t_ag);
					if (b)
						wl_cp_op(&c, "cp.dkv_reduce_scatter", PP_COLL_REDUCE_SCATTER,
							 kv * p->cp, kv * p->cp, w->cp, t_rs, t_rs);
				} else {
					wl_cp_op(&c, b ? "cp.kv_dkv_ring" : "cp.kv_ring", PP_COLL_SENDRECV,
						 (b ? 2 : 1) * ring_b, kv, w->cp, (b ? 2 : 1) * t_ring,
						 b ? bwd : fwd);
				}
				wl_cp_op(&c, b ? "cp.merge.bwd" : "cp.merge", -1, b ? mb_b : mb_f, 0, w->cp,
					 b ? m_b : m_f, b ? m_b : m_f);
			}
		}
	}
}

static double pass_flops(const pp_pass_cost *p, bool model)
{
	return model ? p->model_flops : p->flops;
}

double pp_workload_layer_flops(const pp_workload *w, int which)
{
	bool model = which & PP_FL_MODEL;
	double f = 0;
	for (int k = 0; k < PP_LAYER_KINDS; k++) {
		const pp_part_cost *c = &w->lk[k].cost;
		if (!w->lk[k].count)
			continue;
		double per;
		if ((which & PP_FL_PASSES) && (which & PP_FL_RECOMPUTE))
			per = pass_flops(&c->fwd, model) + pass_flops(&c->bwd, model) +
			      pass_flops(&c->recompute, model);
		else if (which & PP_FL_PASSES)
			per = pass_flops(&c->fwd, model) + pass_flops(&c->bwd, model);
		else
			per = pass_flops(&c->recompute, model);
		f += w->lk[k].count * per;
	}
	return f;
}

void pp_workload_release(pp_workload *w)
{
	free(w->ops);
	memset(w, 0, sizeof(*w));
}
