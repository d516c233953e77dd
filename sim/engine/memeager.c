/* memeager.c - see memeager.h. */
#include "engine/memeager.h"

#include "engine/stages.h"

#include <math.h>
#include <stdio.h>

static const pp_eltw_impl *eltw_of(const pp_scenario *s)
{
	return pp_autocast_fp32(s) ? &s->training.stack.eltw_amp : &s->training.stack.eltw;
}

bool pp_memory_eager(const pp_scenario *s, const pp_workload *w)
{
	const pp_training *tr = &s->training;
	const pp_model *m = &s->model;
	const pp_parallel *p = &s->parallel;
	/* the kept_* figures count 16-bit activations */
	bool b16 = tr->precision == PP_DT_BF16 || tr->precision == PP_DT_FP16;
	return tr->stack.eager_memory && b16 && eltw_of(s)->kept_norm > 0 && m->num_experts <= 0 &&
	       m->kv_lora_rank <= 0 && m->linear_attn_interval <= 0 && m->swiglu && p->tp == 1 &&
	       p->cp == 1 && tr->use_flash_attn &&
	       w->base_weight_bytes <= 0;
}

/* Bytes one layer saves for its backward per token, without recompute. */
static double layer_kept(const pp_scenario *s, double e)
{
	const pp_model *m = &s->model;
	const pp_eltw_impl *el = eltw_of(s);
	double h = m->hidden_size, a = m->num_attention_heads, f = m->ffn_hidden_size;
	double dh = m->head_dim > 0 ? m->head_dim : h / a;
	double qw = a * dh, kvw = m->num_query_groups * dh;
	bool fused = s->training.stack.fused_proj;
	double casts = (fused ? 1.0 : 3.0) + (fused ? 1.0 : 2.0);
	return 2.0 * el->kept_norm * h + el->kept_cast * h * casts + e * (2.0 * qw + 2.0 * kvw) +
	       4.0 * a + el->kept_act * f;
}

/* The loss chain's fp32 blocks the caching allocator reserves anew from
 * the second step on (campaign 7, models/validation/framework/mem_trace.py:
 * from the second step the chain's vocabulary-sized requests found no free
 * block to fit and got segments of their own, while more bytes than each
 * request were free). The optimizer's states, created in the first step's
 * optimizer step, are placed by best fit (c10/cuda/CUDACachingAllocator.cpp
 * get_free_block: the smallest free block that fits, split) into the
 * blocks the first step's chain freed; the remainder of a split block is
 * the best fit for the next state, so the states fill those blocks one
 * after another and spoil ceil(states / block) of them, at most the
 * chain's blocks at its peak (cross_entropy peak_fp32_blocks).
 *
 * DDP gives some of them back: with find_unused_parameters false its first
 * iteration has one bucket of every gradient (torch/nn/parallel/
 * distributed.py _ddp_init_helper: bucket_size_limits [sys.maxsize]), freed
 * when the second forward rebuilds the buckets at bucket_cap_mb (campaign
 * 7c: the freed 11.97 GiB block of Llama-3.2-3B took the bf16 logits and
 * two of the chain's fp32 blocks). It survives to the chain, best fit
 * passing it over, where the second forward's saved activations fit in
 * the cache's other free bytes (the first step's reservation less the
 * step's start and both buckets), and then hosts the bf16 logits
 * (held_bytes) and as many fp32 blocks as fit after them.
 *
 * first: the first step's reservation; saved: the second forward's saved
 * activations; at_start: what the step starts with (weights, states, the
 * new buckets). 0 where the chain does not say, or the stage has none. */
static double chain_anew_bytes(const pp_scenario *s, double states, bool last, double bucket,
			       double first, double saved, double at_start)
{
	const pp_ce_impl *ce = &s->training.stack.ce;
	if (!last || ce->peak_fp32_blocks <= 0 || states <= 0)
		return 0;
	const pp_model *m = &s->model;
	double TV = (double)s->training.micro_batch_size * m->seq_length * m->vocab_size;
	double block = 4.0 * TV;
	double n = ceil(states / block);
	if (n > ce->peak_fp32_blocks)
		n = ce->peak_fp32_blocks;
	if (bucket > 0 && saved <= first - at_start - bucket) {
		double hosted = floor((bucket - ce->held_bytes * TV) / block);
		n -= hosted > 0 ? hosted : 0;
	}
	return n > 0 ? n * block : 0;
}

void pp_memory_eager_stage(const pp_scenario *s, const pp_hw *hw, const pp_workload *w, int st,
			   pp_memory *out)
{
	const pp_training *tr = &s->training;
	const pp_parallel *p = &s->parallel;
	const pp_model *m = &s->model;
	const pp_stack *sk = &tr->stack;
	const pp_eltw_impl *el = eltw_of(s);
	bool mixed = tr->precision != PP_DT_FP32 && tr->precision != PP_DT_TF32;
	bool amp = pp_autocast_fp32(s), full = tr->recompute == PP_RC_FULL;
	bool fsdp2 = p->zero_stage == 3 && sk->fsdp2_copies;
	bool last = pp_stage_holds_head(s, st);
	double e = w->act_bytes, d = (double)p->dp * p->cp;
	double T = (double)tr->micro_batch_size * m->seq_length, h = m->hidden_size;
	double TV = T * m->vocab_size;

	/* the parameters' own dtype: fp32 unless 16-bit training without
	 * master weights; the gradients and optimizer states in it */
	double pb = mixed && !sk->master_fp32 ? 2.0 : 4.0;
	double held = pp_stage_params(s, w, st), trained = pp_stage_trainable(s, w, st);
	double weights = held * pb / (p->zero_stage == 3 ? d : 1.0);
	double sd = p->zero_stage >= 1 ? d : 1.0;
	double states = trained * pb * (tr->optimizer == PP_OPTIM_ADAM ? 2.0 : 1.0) / sd;
	double opt_tmp = trained * pb * sk->optim_temp_states / sd;
	double grads = trained * pb / (p->zero_stage >= 2 ? d : 1.0);
	double buckets = pp_ddp_bucket_copies(s) ? trained * w->grad_comm_bytes_per_param : 0;

	/* the stage's layers and their parameters (one chunk's when interleaved) */
	double n[PP_LAYER_KINDS], layers = 0, layer_params = 0;
	pp_stage_kinds(s, st, n);
	for (int k = 0; k < PP_LAYER_KINDS; k++) {
		layers += n[k];
		layer_params += n[k] * w->lk[k].params;
	}
	double one_layer = layers > 0 ? layer_params / layers : 0;
	double inflight = pp_stage_inflight_chunks(s, st) * layers / p->vpp;
	double stream = amp ? 4.0 : e; /* the residual stream's bytes per element */
	double kept = layer_kept(s, e) * T;
	double act = inflight * (full ? stream * h * T : kept);
	/* autocast's bf16 weight casts: saved by the linears without recompute,
	 * only cached until the forward's end with it */
	double casts = amp ? e * layer_params : 0;
	double head = 0, ce_fwd = 0, ce_bwd = 0, logits = 0;
	if (last) {
		const pp_ce_impl *ce = &sk->ce;
		head = T * h * (el->kept_norm + el->kept_cast) + (amp ? e * m->vocab_size * h : 0);
		ce_fwd = (ce->fwd_peak_bytes > 0 ? ce->fwd_peak_bytes : ce->peak_bytes) * TV;
		ce_bwd = ce->peak_bytes * TV;
		logits = ce->held_bytes * TV;
	}
	/* FSDP2: the root group (the embedding, final norm, output layer) is
	 * not resharded after the forward; in the layers' backward the
	 * unsharded layer and the one prefetched (at the loss every layer is
	 * resharded); the copy-in and reduce-scatter streams' pools */
	double root = 0, gathered = 0, ag_pool = 0, rs_pool = 0;
	if (fsdp2) {
		double rp = (pp_stage_holds_embed(s, st) ? w->params_embed : 0) +
			    (last ? w->params_head : 0);
		root = e * rp;
		gathered = 2.0 * e * one_layer;
		ag_pool = (rp + one_layer) * e * (1.0 + 1.0 / d);
		rs_pool = grads;
	}
	struct {
		const char *name;
		double grads, act, temp;
	} ph[4] = {
		{"the loss (the forward's end)", rs_pool, act + casts + head, ce_fwd + root + ag_pool},
		{"the loss's backward", rs_pool, act + (full ? 0 : casts) + head, ce_bwd + root + ag_pool},
		{"the last layer's backward", grads, kept + (amp ? e * one_layer : 0),
		 logits + root + gathered + ag_pool},
		{"the optimizer step", grads, 0, logits + opt_tmp + ag_pool},
	};
	/* each phase's bytes but the fragmentation, in the steady step
	 * (bytes[0]) and the first (bytes[1]): the optimizer creates its states
	 * in its step, so the first step's phases before it hold none */
	double bytes[2][4], step1 = 0;
	for (int i = 0; i < 4; i++)
		for (int first = 0; first < 2; first++) {
			double sb = first && i < 3 ? 0 : states;
			bytes[first][i] = weights + buckets + sb + ph[i].grads + ph[i].act +
					 (ph[i].temp + hw->reserved_bytes);
		}
	/* the first step's segments are cut to its requests (a fresh cache
	 * has no free block to misfit), so its peak carries no margin */
	for (int i = 0; i < 4; i++)
		step1 = bytes[1][i] > step1 ? bytes[1][i] : step1;
	double anew = chain_anew_bytes(s, states, last, buckets, step1, ph[0].act,
				       weights + states + buckets);
	double margin = hw->act_margin;
	double best = -1;
	for (int first = 0; first < (anew > 0 ? 2 : 1); first++) {
		for (int i = 0; i < 4; i++) {
			double temp = ph[i].temp + hw->reserved_bytes;
			/* the steady step's carry the fragmentation margin */
			double frag = first ? anew : margin * (ph[i].act + temp);
			double total = bytes[first][i] + frag;
			if (total <= best)
				continue;
			best = total;
			out->weights_bytes = weights;
			out->grads_bytes = ph[i].grads + buckets;
			out->optimizer_bytes = first && i < 3 ? 0 : states;
			out->activations_bytes = ph[i].act;
			out->temp_bytes = temp;
			out->fragmentation_bytes = frag;
			out->total_bytes = total;
			snprintf(out->peak_phase, sizeof(out->peak_phase), "%s",
				 first ? "the first step's, chain anew" : ph[i].name);
		}
	}
}
