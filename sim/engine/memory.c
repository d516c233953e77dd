/* memory.c - see memory.h. */
#include "engine/memory.h"

#include "engine/memeager.h"

#include <string.h>

/* Bytes per element of what a layer keeps for its backward, by what it
 * is (DeepSeek-V3, arXiv:2412.19437 Sec. 3.2.3 and 3.3.2-3.3.3, as
 * training.recompute_modules and fp8_activation_cache give them): e the
 * activations' dtype; lin the input of a linear layer (1 byte when cached
 * in FP8); the recomputed outputs 0: the RMSNorms' (norm), the MoE
 * SwiGLU's (moe_act), MLA's Q, K, V (rebuilt by the up-projections from
 * the latents, kept as up-projection inputs). */
typedef struct keep {
	double e, lin;
	bool norm, moe_act, mla;
} keep;

static keep keep_of(const pp_model *m, const pp_training *tr, double e)
{
	keep k = {e, tr->fp8_act_cache ? 1.0 : e, false, false, false};
	k.norm = tr->recompute_modules & PP_RCM_LAYERNORM;
	k.moe_act = tr->recompute_modules & PP_RCM_MOE_ACT;
	k.mla = (tr->recompute_modules & PP_RCM_MLA_UP_PROJ) && (m->q_lora_rank || m->kv_lora_rank);
	return k;
}

/* The routed experts' activations of an MoE layer kept for the backward on
 * the busiest expert-parallel rank: the permuted token copies (fc1's input),
 * fc1's output (the activation's input) and the activation's output (fc2's
 * input) for T_m k ETP x imbalance rows, and the router's fp32 scores;
 * Megatron-Core keeps them unless the MoE layer is recomputed. Cached in
 * FP8, the token copies and fc2's input take a byte, and so does the
 * SwiGLU's input (DeepSeek-V3 Sec. 3.3.2: "also stored in FP8"); with
 * moe_act recomputed fc2's input is not kept. */
static double moe_act_bytes(const pp_model *m, const pp_parallel *p, const pp_training *tr,
			    keep k)
{
	bool sp = p->sequence_parallel && p->tp > 1;
	double Tm = (double)tr->micro_batch_size * m->seq_length / p->cp / (sp ? p->tp : 1);
	double etp = pp_parallel_etp(p);
	double imb = tr->moe_load_imbalance >= 1 ? tr->moe_load_imbalance : 1;
	if (tr->moe_expert_capacity_factor > 0 && tr->moe_expert_capacity_factor < imb)
		imb = tr->moe_expert_capacity_factor;
	double rows = Tm * m->moe_router_topk * etp * imb;
	double fm = (double)m->moe_ffn_hidden_size / etp;
	double act_in = m->swiglu ? 2.0 * k.lin : k.e;
	return rows * (k.lin * m->hidden_size + fm * (act_in + (k.moe_act ? 0.0 : k.lin))) +
	       Tm * m->num_experts * 4.0;
}

static double act_bytes_kind(const pp_model *m, const pp_parallel *p, const pp_training *tr,
			     pp_recompute rc, int kind);

static double act_bytes(const pp_model *m, const pp_parallel *p, const pp_training *tr,
			pp_recompute rc)
{
	return act_bytes_kind(m, p, tr, rc, 0);
}

static double act_bytes_kind(const pp_model *m, const pp_parallel *p, const pp_training *tr,
			     pp_recompute rc, int kind)
{
	double t = p->tp;
	bool sp = p->sequence_parallel && p->tp > 1;
	double b = (double)tr->micro_batch_size;
	double sq = (double)m->seq_length / p->cp;
	double h = m->hidden_size, a = m->num_attention_heads, f = m->ffn_hidden_size;
	double g = m->num_query_groups < p->tp ? p->tp : m->num_query_groups;
	double e = (tr->precision == PP_DT_FP32 || tr->precision == PP_DT_TF32) ? 4.0 : 2.0;
	keep k = keep_of(m, tr, e);
	double mask = m->swiglu ? 0.0 : 1.0; /* dropout masks, GPT recipes only */
	double sbh = sq * b * h;
	/* the attention's widths: Q and the core's output heads x head_dim,
	 * K and V query groups x head_dim, which differ from the hidden size
	 * where head_dim is set (Qwen3, Gemma, GPT-OSS) */
	double qw = m->head_dim > 0 ? a * m->head_dim : h, kvw = g * qw / a;
	double rep = sbh * (2.0 * e + 2.0 * mask) / (sp ? t : 1.0) /* LN inputs, masks */
		     + sbh * (k.norm ? 0.0 : 2.0 * k.lin) / (sp ? t : 1.0); /* QKV and FC1 inputs */
	/* Q, K, V (the core attention's inputs, as Megatron-Core's
	 * DotProductAttention / TE's fused attention save them), or with MLA's
	 * up-projections recomputed their inputs, the latents (not split by
	 * TP) and the decoupled RoPE key */
	double qkv = k.mla ? sq * b * (m->q_lora_rank + m->kv_lora_rank) * k.lin +
				     sq * b * m->qk_pos_emb_head_dim * e
			   : sq * b * e * (qw + 2.0 * kvw) / t;
	/* the projection's input, the core's output: DeepSeek keeps it in
	 * E5M6 (Sec. 3.3.2), 16 bits here */
	double attn = qkv + sq * b * qw * e / t;
	if (m->attn_output_gate) /* Qwen3-Next's gate: sigmoid's input, kept */
		attn += sq * b * qw * e / t;
	if (kind & PP_LK_LINEAR) {
		/* Gated DeltaNet (gdnops.c): the conv's input and output (q, k, v;
		 * the output is what fla's chunk function saves), the gate z, the
		 * fp32 gates beta and g, the chunks' C x C inverse A (fla saves it),
		 * the core output and out_proj's input */
		double vw = (double)m->gdn_v_heads * m->gdn_v_dim, nv = m->gdn_v_heads;
		double qkv_w = 2.0 * m->gdn_k_heads * m->gdn_k_dim + vw;
		attn = sq * b * (2.0 * qkv_w * e + 2.0 * vw * e + vw * k.lin + nv * 8.0 +
				 PP_GDN_CHUNK * nv * e) / t;
	}
	double act_in = m->swiglu ? 2.0 * e : e; /* the activation's input */
	double tp_split = attn + sq * b * f * (act_in + k.lin) / t; /* act in, FC2 in */
	if (kind & PP_LK_MOE) { /* the experts instead of the dense MLP, and the shared experts */
		double sh_in = m->swiglu ? 2.0 * k.lin : e;
		tp_split = attn +
			   sq * b * m->moe_shared_expert_intermediate_size *
				   (sh_in + (k.moe_act ? 0.0 : k.lin)) / t +
			   moe_act_bytes(m, p, tr, k);
	}
	if (rc == PP_RC_SELECTIVE && tr->stack.sac == PP_SAC_TORCHTITAN_OP && !(kind & PP_LK_MOE)) {
		/* TorchTitan's op policy keeps the block's input, every odd matmul's
		 * output (wq, wv, w1, w2 with separate projections; qkv and fc1
		 * fused), the attention output with its fp32 log-sum-exp, the
		 * reduce-scatters' outputs; the block's backward recomputes the rest */
		double mm = tr->stack.fused_proj
				    ? (qw + 2.0 * kvw) / t + (m->swiglu ? 2.0 : 1.0) * f / t
				    : qw / t + kvw / t + f / t + h;
		double kept = sbh * e / (sp ? t : 1.0) + sq * b * e * mm + sq * b * qw / t * e +
			      4.0 * a / t * sq * b;
		if (sp)
			kept += 2.0 * sbh * e / t;
		return kept;
	}
	double core = 0;
	if (kind & PP_LK_LINEAR) {
		/* no score matrix and no log-sum-exp */
	} else if (!tr->use_flash_attn) {
		if (rc == PP_RC_NONE)
			core = a * sq * sq * b * (e + (mask > 0 ? e + 1.0 : 0.0)) / t;
	} else {
		core = 4.0 * a * sq * b / t; /* fp32 log-sum-exp per row */
	}
	if (rc == PP_RC_FULL)
		return sbh * e / (sp ? t : 1.0);
	return rep + tp_split + core;
}

double pp_layer_activation_bytes(const pp_scenario *s)
{
	return act_bytes(&s->model, &s->parallel, &s->training, s->training.recompute);
}

double pp_layer_activation_bytes_kind(const pp_scenario *s, int kind)
{
	return act_bytes_kind(&s->model, &s->parallel, &s->training, s->training.recompute, kind);
}

void pp_memory_estimate(const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
			pp_memory *out)
{
	const pp_parallel *p = &s->parallel;
	const pp_training *tr = &s->training;
	const pp_model *m = &s->model;
	bool mixed = tr->precision != PP_DT_FP32 && tr->precision != PP_DT_TF32;
	double d = (double)p->dp * p->cp;
	double wb = mixed ? 2.0 : 4.0;
	double gb, ob;
	bool master = tr->stack.master_fp32;
	double opt_state = tr->optimizer == PP_OPTIM_ADAM ? 8.0 : 4.0;
	if (mixed && master)
		opt_state += 4.0; /* fp32 master copy */
	else if (mixed)
		opt_state /= 2.0; /* 16-bit parameters keep 16-bit states (no master) */
	if (tr->optimizer == PP_OPTIM_ADAM && (tr->exp_avg_bytes || tr->exp_avg_sq_bytes)) {
		/* Megatron-Core's precision-aware optimizer (exp_avg_dtype,
		 * exp_avg_sq_dtype): the moments at their given size, the
		 * rest (a given moment's default, the master) as above */
		double dflt = mixed && !master ? 2.0 : 4.0;
		opt_state += (tr->exp_avg_bytes ? tr->exp_avg_bytes : dflt) - dflt +
			     (tr->exp_avg_sq_bytes ? tr->exp_avg_sq_bytes : dflt) - dflt;
	}
	/* main gradients: fp32 for bf16 and fp32 training, fp16 for fp16
	 * (Megatron-LM's --accumulate-allreduce-grads-in-fp32 default); the
	 * parameters' dtype without fp32 master weights */
	double main_grad = mixed && (!master || tr->precision != PP_DT_BF16) ? 2.0 : 4.0;
	double gred = w->grad_comm_bytes_per_param;
	switch (p->zero_stage) {
	case 0: gb = main_grad; ob = opt_state; break;
	case 1: gb = main_grad; ob = opt_state / d; break;
	case 2: gb = gred / d; ob = opt_state / d; break;
	default: gb = gred / d; ob = opt_state / d; wb /= d; break;
	}
	if (p->zero_stage == 3 && mixed && master && gred >= 4.0) {
		/* FSDP2 with fp32 sharded parameters (TorchTitan): the fp32 shard is
		 * the master, its gradient shard fp32 */
		wb = 4.0 / d;
		ob = (opt_state - 4.0) / d;
	}
	double per_layer = pp_layer_activation_bytes(s);
	bool sp = p->sequence_parallel && p->tp > 1;
	double e = mixed ? 2.0 : 4.0;
	double b = (double)tr->micro_batch_size, sq = (double)m->seq_length / p->cp;
	memset(out, 0, sizeof(*out));
	out->capacity_bytes = hw->mem_capacity_bytes;
	double worst = -1;
	/* experts' optimizer state is sharded over expert DP (ZeRO-1) */
	double ob_e = p->zero_stage >= 1 ? opt_state / pp_parallel_edp(p) : ob;
	bool eager = pp_memory_eager(s, w);
	/* a stage between the first and the last whose layers (by kind) an
	 * earlier such stage has too needs no more than it: everything but the
	 * activations is the same, and those grow with the chunks in flight,
	 * which never grow with the stage (pp_stage_inflight_chunks); so it cannot
	 * be the worst (a tie keeps the earlier stage) and is passed over */
	enum { SEEN = 4 };
	double seen[SEEN][PP_LAYER_KINDS];
	int nseen = 0;
	for (int st = 0; st < p->pp; st++) {
		if (eager) { /* the eager PyTorch step's phases (memeager.h) */
			pp_memory ms = *out;
			pp_memory_eager_stage(s, hw, w, st, &ms);
			if (ms.total_bytes > worst) {
				worst = ms.total_bytes;
				*out = ms;
				out->worst_stage = st;
			}
			continue;
		}
		double n[PP_LAYER_KINDS];
		pp_stage_kinds(s, st, n);
		if (st > 0 && st < p->pp - 1) {
			bool again = false;
			for (int i = 0; i < nseen && !again; i++)
				again = !memcmp(seen[i], n, sizeof(n));
			if (again)
				continue;
			if (nseen < SEEN)
				memcpy(seen[nseen++], n, sizeof(n));
		}
		pp_stage_count sc = pp_stage_count_of(s, w, st, n);
		double params = sc.held, trained = sc.trained, tex = sc.trained_expert;
		double chunks = pp_stage_inflight_chunks(s, st);
		double act = 0, full = 0;
		for (int k = 0; k < PP_LAYER_KINDS; k++) {
			if (n[k] <= 0)
				continue;
			double per = k == 0 ? per_layer : pp_layer_activation_bytes_kind(s, k);
			act += chunks * (n[k] / p->vpp) * per;
			double f = act_bytes_kind(m, p, tr, PP_RC_NONE, k);
			full = f > full ? f : full;
		}
		/* one layer fully materialised in its backward (full recompute, and
		 * TorchTitan's op policy recomputes most of the block) */
		if (tr->recompute == PP_RC_FULL ||
		    (tr->recompute == PP_RC_SELECTIVE && tr->stack.sac == PP_SAC_TORCHTITAN_OP))
			act += full;
		/* embedding output and its dropout mask per micro-batch in flight */
		if (pp_stage_holds_embed(s, st))
			act += chunks / p->vpp * sq * b * m->hidden_size * (e + 1.0) / (sp ? p->tp : 1);
		double temp = hw->reserved_bytes;
		/* the cross-entropy chain's logits at its peak (frameworks.json) */
		if (pp_stage_holds_head(s, st))
			temp += tr->stack.ce.peak_bytes * sq * b * m->vocab_size / p->tp;
		if (p->zero_stage == 3 && !tr->stack.reshard_after_forward)
			/* no reshard after the forward: every layer's gathered 16-bit
			 * parameters stay until its backward */
			temp += params * (mixed ? 2.0 : 4.0);
		if (p->zero_stage == 3) /* two gathered layers (prefetch) and one layer's grads */
			temp += 2.0 * w->lk[0].params * 2.0 + w->lk[0].trainable * 4.0;
		if (p->zero_stage == 2) /* gradient buckets before their reduce-scatter */
			temp += tr->bucket_bytes;
		double frag = hw->act_margin * (act + temp);
		/* a frozen base (fine-tuning) has weights only, at its stored size */
		double frozen = (params - trained) * (p->zero_stage == 3 ? tr->base_weight_bytes / d
									 : tr->base_weight_bytes);
		/* PyTorch DDP's buckets: a second copy of the gradients, allocated
		 * once (no fragmentation margin) */
		double buckets = pp_ddp_bucket_copies(s) ? trained * w->grad_comm_bytes_per_param : 0;
		/* Megatron's --fp8-param-gather: the layers' compute parameters are
		 * Transformer Engine FP8 tensors, 1 byte each instead of wb; the
		 * embedding and the output layer stay 16-bit */
		double fp8_save = 0;
		if (tr->fp8_param_gather && p->zero_stage < 3) {
			double eh = (pp_stage_holds_embed(s, st) ? w->params_embed : 0) +
				    (pp_stage_holds_head(s, st) ? w->params_head : 0);
			fp8_save = (trained > eh ? trained - eh : 0) * (wb - 1.0);
		}
		double total = (trained - tex) * (wb + gb + ob) + tex * (wb + gb + ob_e) + buckets +
			       frozen + act + temp + frag - fp8_save;
		if (total > worst) {
			worst = total;
			out->weights_bytes = trained * wb + frozen - fp8_save;
			out->grads_bytes = trained * gb + buckets;
			out->optimizer_bytes = (trained - tex) * ob + tex * ob_e;
			out->activations_bytes = act;
			out->temp_bytes = temp;
			out->fragmentation_bytes = frag;
			out->total_bytes = total;
			out->worst_stage = st;
		}
	}
	out->fits = out->total_bytes <= out->capacity_bytes;
}
