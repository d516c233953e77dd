/* modelsize.c - see modelsize.h. */
#include "engine/modelsize.h"

/* One layer's attention weights (whole): Q, K, V and the projection (with
 * GPT's biases), or multi-latent attention's down/up projections and
 * latent norms. */
static double attention_params(const pp_model *m)
{
	double h = m->hidden_size, a = m->num_attention_heads;
	if (m->multi_latent_attention) {
		double dq = m->qk_head_dim + m->qk_pos_emb_head_dim;
		double q = m->q_lora_rank > 0
				   ? h * m->q_lora_rank + m->q_lora_rank + m->q_lora_rank * a * dq
				   : h * a * dq;
		double kv = h * (m->kv_lora_rank + m->qk_pos_emb_head_dim) + m->kv_lora_rank +
			    (double)m->kv_lora_rank * a * (m->qk_head_dim + m->v_head_dim);
		return q + kv + a * m->v_head_dim * h;
	}
	double d = h / m->num_attention_heads;
	double qw = m->head_dim > 0 ? a * m->head_dim : h;
	double kv = 2.0 * m->num_query_groups * (m->head_dim > 0 ? m->head_dim : d);
	double gate = m->attn_output_gate ? qw : 0; /* q_proj writes the gate too */
	if (m->swiglu)
		return h * (qw + gate + kv) + qw * h;
	return h * (qw + kv) + (qw + kv) + qw * h + h;
}

double pp_gdn_params(const pp_model *m)
{
	double h = m->hidden_size, nv = m->gdn_v_heads;
	double dk = (double)m->gdn_k_heads * m->gdn_k_dim, dv = nv * m->gdn_v_dim;
	double conv = 2.0 * dk + dv;
	return h * (2.0 * dk + 2.0 * dv) /* in_proj_qkvz */
	       + h * 2.0 * nv            /* in_proj_ba */
	       + conv * m->gdn_conv      /* conv1d, depthwise, no bias */
	       + 2.0 * nv                /* A_log, dt_bias */
	       + m->gdn_v_dim            /* the gated RMSNorm's weight, shared by the heads */
	       + dv * h;                 /* out_proj */
}

double pp_gdn_core_flops(double dk, double dv, double tokens, bool bwd)
{
	double C = PP_GDN_CHUNK;
	double per = bwd ? 16.0 * dk * dv + 16.0 * C * dk + 10.0 * C * dv + 4.0 * C * C
			 : 6.0 * dk * dv + 6.0 * C * dk + 4.0 * C * dv + C * C / 3.0;
	return tokens * per;
}

double pp_expert_params(const pp_model *m, double experts)
{
	double h = m->hidden_size;
	return experts * (m->swiglu ? 3.0 : 2.0) * h * m->moe_ffn_hidden_size;
}

static double moe_mlp_params(const pp_model *m, double experts)
{
	double h = m->hidden_size;
	double shared = (m->swiglu ? 3.0 : 2.0) * h * m->moe_shared_expert_intermediate_size;
	return pp_expert_params(m, experts) + h * m->num_experts + shared;
}

double pp_layer_params_kind(const pp_model *m, int kind)
{
	double h = m->hidden_size, f = m->ffn_hidden_size;
	if (!(kind & (PP_LK_MOE | PP_LK_LINEAR)) && !m->multi_latent_attention && m->head_dim <= 0 &&
	    !m->attn_output_gate) {
		double d = h / m->num_attention_heads;
		double kv = 2.0 * m->num_query_groups * d;
		if (m->swiglu) /* Llama style: no biases, RMSNorm (one vector each) */
			return h * (h + kv) + h * h + 3.0 * h * f + 2.0 * h;
		/* GPT style: biases, LayerNorm (weight and bias) */
		return h * (h + kv) + (h + kv) + h * h + h + 2.0 * h * f + f + h + 4.0 * h;
	}
	double norms = m->swiglu ? 2.0 * h : 4.0 * h;
	double mlp = (kind & PP_LK_MOE) ? moe_mlp_params(m, m->num_experts)
		     : m->swiglu ? 3.0 * h * f : 2.0 * h * f + f + h;
	double mix = (kind & PP_LK_LINEAR) ? pp_gdn_params(m) : attention_params(m);
	return mix + mlp + norms;
}

double pp_layer_params(const pp_model *m)
{
	return pp_layer_params_kind(m, 0);
}

double pp_layer_params_active(const pp_model *m, int kind)
{
	if (!(kind & PP_LK_MOE))
		return pp_layer_params_kind(m, kind);
	return pp_layer_params_kind(m, kind) - pp_expert_params(m, m->num_experts) +
	       pp_expert_params(m, m->moe_router_topk);
}

void pp_model_kind_counts(const pp_model *m, int n[PP_LAYER_KINDS])
{
	for (int k = 0; k < PP_LAYER_KINDS; k++)
		n[k] = 0;
	if (m->num_experts <= 0 && m->window <= 0 && m->linear_attn_interval <= 0) {
		n[0] = m->num_layers;
		return;
	}
	for (int i = 0; i < m->num_layers; i++)
		n[pp_model_layer_kind(m, i)]++;
}

static double embedding_params(const pp_model *m)
{
	double h = m->hidden_size;
	double emb = (double)m->vocab_size * h;
	double p = emb;
	if (!m->swiglu)
		p += (double)m->seq_length * h + 2.0 * h; /* learned positions, final LayerNorm */
	else
		p += h;                                  /* final RMSNorm */
	if (!m->tied_embeddings)
		p += emb;
	return p;
}

static double model_params(const pp_model *m, bool active)
{
	int n[PP_LAYER_KINDS];
	pp_model_kind_counts(m, n);
	if (n[0] == m->num_layers) {
		double h = m->hidden_size;
		double emb = (double)m->vocab_size * h;
		double p = m->num_layers * pp_layer_params(m) + emb;
		if (!m->swiglu)
			p += (double)m->seq_length * h + 2.0 * h;
		else
			p += h;
		if (!m->tied_embeddings)
			p += emb;
		return p;
	}
	double p = 0;
	for (int k = 0; k < PP_LAYER_KINDS; k++)
		if (n[k])
			p += n[k] * (active ? pp_layer_params_active(m, k) : pp_layer_params_kind(m, k));
	return p + embedding_params(m);
}

/* Multi-token prediction's own parameters (Megatron-Core
 * multi_token_prediction.py MultiTokenPredictionLayer): per depth the
 * enorm and hnorm, the eh_proj (2h -> h, no bias), a layer of the last
 * layer's kind and its final norm; the embedding and the output layer are
 * the main model's (shared). */
static double mtp_params(const pp_model *m, bool active)
{
	if (m->mtp_num_layers <= 0)
		return 0;
	double h = m->hidden_size;
	int k = pp_model_layer_kind(m, m->num_layers - 1);
	double layer = active ? pp_layer_params_active(m, k) : pp_layer_params_kind(m, k);
	return m->mtp_num_layers * (layer + 2.0 * h * h + 3.0 * h);
}

double pp_model_params(const pp_model *m)
{
	return model_params(m, false) + mtp_params(m, false);
}

double pp_model_params_active(const pp_model *m)
{
	return model_params(m, true) + mtp_params(m, true);
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
