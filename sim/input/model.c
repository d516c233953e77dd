/* model.c - see model.h. */
#include "input/model.h"

#include <stdio.h>

bool pp_model_layer_moe(const pp_model *m, int i)
{
	if (m->num_experts <= 0)
		return false;
	if (m->moe_list_len > 0)
		return i < m->moe_list_len && m->moe_list[i];
	int f = m->moe_layer_freq > 0 ? m->moe_layer_freq : 1;
	return i % f == 0;
}

bool pp_model_layer_linear(const pp_model *m, int i)
{
	return m->linear_attn_interval > 0 && (i + 1) % m->linear_attn_interval != 0;
}

int pp_model_layer_kind(const pp_model *m, int i)
{
	int k = pp_model_layer_moe(m, i) ? PP_LK_MOE : 0;
	if (pp_model_layer_linear(m, i))
		return k | PP_LK_LINEAR;
	if (m->window <= 0)
		return k;
	if (m->window_list_len > 0 ? i < m->window_list_len && m->window_list[i]
				   : i % (m->window_freq > 0 ? m->window_freq : 1) == 0)
		k |= PP_LK_WINDOW;
	return k;
}

int pp_model_head_dim(const pp_model *m)
{
	return m->head_dim > 0 ? m->head_dim : m->hidden_size / m->num_attention_heads;
}

/* An optional integer member into *out (left alone when absent). */
static int opt_int(const pp_jdoc *d, const cJSON *o, const char *path, const char *key,
		   int64_t min, int64_t max, int *out, bool *present, pp_err *err)
{
	int64_t v = 0;
	int rc = pp_jget_int(d, o, path, key, false, min, max, &v, present, err);
	if (!rc && *present)
		*out = (int)v;
	return rc;
}

/* moe_layer_freq: an integer N >= 1 (layer i is MoE when i % N == 0,
 * Megatron's int form) or a list of 0/1, one per layer (its list form). */
static int read_layer_freq(const pp_jdoc *d, const cJSON *o, const char *path, pp_model *m,
			   bool *present, pp_err *err)
{
	char p[512], q[540], what[96];
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "moe_layer_freq");
	*present = v != NULL;
	if (!v)
		return 0;
	pp_jpath(p, sizeof(p), path, "moe_layer_freq");
	if (cJSON_IsArray(v)) {
		int n = cJSON_GetArraySize(v), i = 0;
		if (n < 1 || n > PP_MOE_LIST_MAX)
			return pp_jdoc_errf(d, err, p, "found a list of %d entries; expected one 0/1 "
					    "entry per layer (at most %d layers)", n, PP_MOE_LIST_MAX);
		for (const cJSON *e = v->child; e; e = e->next, i++) {
			if (!cJSON_IsNumber(e) || (e->valuedouble != 0 && e->valuedouble != 1))
				return pp_jdoc_errf(d, err, pp_jpath_idx(q, sizeof(q), p, i),
						    "found %s; expected 0 (a dense layer) or 1 (an MoE "
						    "layer)", pp_jdoc_describe(e, what, sizeof(what)));
			m->moe_list[i] = (uint8_t)e->valuedouble;
		}
		m->moe_list_len = n;
		m->moe_layer_freq = 0;
		return 0;
	}
	if (!cJSON_IsNumber(v))
		return pp_jdoc_errf(d, err, p, "found %s; expected an integer N >= 1 (every N-th layer "
				    "MoE, layer 0 first) or a list of 0/1, one per layer",
				    pp_jdoc_describe(v, what, sizeof(what)));
	int f = 0;
	bool pr;
	int rc = opt_int(d, o, path, "moe_layer_freq", 1, PP_MODEL_DIM_MAX, &f, &pr, err);
	if (rc)
		return rc;
	m->moe_layer_freq = f;
	m->moe_list_len = 0;
	return 0;
}

/* The error for a key whose feature the model does not have. */
static int orphan(const pp_jdoc *d, const char *path, const char *key, const char *why,
		  pp_err *err)
{
	char p[512];
	return pp_jdoc_errf(d, err, pp_jpath(p, sizeof(p), path, key), "%s", why);
}

int pp_model_read_arch(const pp_jdoc *d, const cJSON *o, const char *path, pp_model *m,
		       pp_err *err)
{
	int rc;
	/* head size: head_dim (Hugging Face's name) or kv_channels (Megatron's) */
	bool has_hd = false, has_kvc = false;
	int hd = 0, kvc = 0;
	if ((rc = opt_int(d, o, path, "head_dim", 1, PP_MODEL_DIM_MAX, &hd, &has_hd, err)) ||
	    (rc = opt_int(d, o, path, "kv_channels", 1, PP_MODEL_DIM_MAX, &kvc, &has_kvc, err)))
		return rc;
	if (has_hd && has_kvc)
		return orphan(d, path, "kv_channels", "found with head_dim (kv_channels is Megatron's "
			      "name for the same size); expected one of them", err);
	if (has_hd || has_kvc)
		m->head_dim = has_hd ? hd : kvc;

	/* multi-head latent attention */
	bool mla = m->multi_latent_attention, has_mla = false;
	if ((rc = pp_jget_bool(d, o, path, "multi_latent_attention", false, &mla, &has_mla, err)))
		return rc;
	if (mla && !m->multi_latent_attention) {
		/* Megatron-Core's MLATransformerConfig dataclass defaults */
		m->q_lora_rank = 512;
		m->kv_lora_rank = 512;
		m->qk_head_dim = 128;
		m->qk_pos_emb_head_dim = 64;
		m->v_head_dim = 128;
		m->head_dim = 0;
	} else if (!mla) {
		m->q_lora_rank = m->kv_lora_rank = m->qk_head_dim = m->qk_pos_emb_head_dim = 0;
		m->v_head_dim = 0;
	}
	m->multi_latent_attention = mla;
	static const char *const mla_keys[] = {"q_lora_rank", "kv_lora_rank", "qk_head_dim",
					       "qk_pos_emb_head_dim", "v_head_dim"};
	int *mla_dims[] = {&m->q_lora_rank, &m->kv_lora_rank, &m->qk_head_dim,
			   &m->qk_pos_emb_head_dim, &m->v_head_dim};
	for (size_t i = 0; i < PP_ARRAY_LEN(mla_keys); i++) {
		bool pr = false;
		int v = *mla_dims[i];
		/* q_lora_rank 0: the query is not compressed (DeepSeek-V2-Lite) */
		if ((rc = opt_int(d, o, path, mla_keys[i], i == 0 ? 0 : 1, PP_MODEL_DIM_MAX, &v, &pr, err)))
			return rc;
		if (pr && !mla)
			return orphan(d, path, mla_keys[i], "found without multi_latent_attention; "
				      "expected the multi-latent attention dims only with "
				      "\"multi_latent_attention\": true", err);
		if (pr)
			*mla_dims[i] = v;
	}
	if (mla && (has_hd || has_kvc))
		return orphan(d, path, has_hd ? "head_dim" : "kv_channels", "found with "
			      "multi_latent_attention; expected no head size: MLA's query and key heads "
			      "are qk_head_dim + qk_pos_emb_head_dim, its value heads v_head_dim", err);

	/* sliding window (podplan's names) */
	bool has_win = false, has_wf = false;
	int win = m->window, wf = m->window_freq;
	if ((rc = opt_int(d, o, path, "window_size", 0, PP_MODEL_DIM_MAX, &win, &has_win, err)) ||
	    (rc = opt_int(d, o, path, "window_layer_freq", 1, PP_MODEL_DIM_MAX, &wf, &has_wf, err)))
		return rc;
	if (has_win || has_wf) /* podplan's names replace a config's layer list */
		m->window_list_len = 0;
	if (has_win) {
		m->window = win;
		if (win == 0)
			m->window_freq = 0;
		else if (m->window_freq == 0)
			m->window_freq = 1;
	}
	if (has_wf) {
		if (m->window == 0)
			return orphan(d, path, "window_layer_freq", "found without a window_size; "
				      "expected window_layer_freq only with a sliding window", err);
		m->window_freq = wf;
	}

	/* mixture of experts */
	bool has_ne = false;
	int ne = m->num_experts;
	if ((rc = opt_int(d, o, path, "num_experts", 0, 1000000, &ne, &has_ne, err)))
		return rc;
	if (has_ne && ne == 0) {
		/* dense (Megatron maps num_experts 0 to None) */
		m->moe_router_topk = m->moe_ffn_hidden_size = 0;
		m->moe_shared_expert_intermediate_size = m->moe_layer_freq = m->moe_list_len = 0;
	}
	m->num_experts = ne;
	static const char *const moe_keys[] = {"moe_router_topk", "moe_ffn_hidden_size",
					       "moe_shared_expert_intermediate_size"};
	int *moe_fields[] = {&m->moe_router_topk, &m->moe_ffn_hidden_size,
			     &m->moe_shared_expert_intermediate_size};
	bool any = false;
	const char *first = NULL;
	for (size_t i = 0; i < PP_ARRAY_LEN(moe_keys); i++) {
		bool pr = false;
		/* a shared-expert size of 0: none */
		if ((rc = opt_int(d, o, path, moe_keys[i], i == 2 ? 0 : 1, PP_MODEL_DIM_MAX, moe_fields[i], &pr,
				  err)))
			return rc;
		if (pr && !any) {
			any = true;
			first = moe_keys[i];
		}
	}
	bool has_lf = false;
	if ((rc = read_layer_freq(d, o, path, m, &has_lf, err)))
		return rc;
	if (has_lf && !any)
		first = "moe_layer_freq";
	if (m->num_experts == 0 && (any || has_lf))
		return orphan(d, path, first, "found for a dense model; expected mixture-of-experts "
			      "keys only with \"num_experts\" > 0", err);
	if (m->num_experts > 0) {
		if (m->moe_router_topk == 0)
			m->moe_router_topk = 2; /* Megatron-Core's default */
		if (m->moe_ffn_hidden_size == 0)
			m->moe_ffn_hidden_size = m->ffn_hidden_size; /* Megatron falls back to it */
		if (m->moe_layer_freq == 0 && m->moe_list_len == 0)
			m->moe_layer_freq = 1; /* every layer MoE */
	}
	return 0;
}

int pp_model_check(const pp_model *m, const char **key, char *why, size_t n)
{
#define FAIL(k, ...)                                    \
	do {                                            \
		*key = k;                               \
		snprintf(why, n, __VA_ARGS__);          \
		return PP_EINPUT;                       \
	} while (0)
	bool mla = m->multi_latent_attention;
	if (m->attention_chunk && m->seq_length > m->attention_chunk)
		FAIL("seq_length", "found %d with chunked attention in chunks of %d (Llama 4's "
		     "attention_chunk_size on its RoPE layers); expected at most %d: within one chunk "
		     "it is causal attention, which podplan models; across chunks it is not modelled",
		     m->seq_length, m->attention_chunk, m->attention_chunk);
	if (!mla && m->head_dim == 0 && m->hidden_size % m->num_attention_heads)
		FAIL("num_attention_heads", "found %d heads for hidden_size %d; expected a head count "
		     "that divides hidden_size", m->num_attention_heads, m->hidden_size);
	if (mla && m->num_query_groups != m->num_attention_heads)
		FAIL("num_query_groups", "found %d groups with multi_latent_attention; expected "
		     "num_attention_heads = %d (MLA has no grouped-query attention)",
		     m->num_query_groups, m->num_attention_heads);
	if (!mla && m->num_attention_heads % m->num_query_groups)
		FAIL("num_query_groups", "found %d groups for %d heads; expected a divisor of "
		     "num_attention_heads", m->num_query_groups, m->num_attention_heads);
	if (mla && (m->q_lora_rank < 0 || m->kv_lora_rank < 1 || m->qk_head_dim < 1 ||
		    m->qk_pos_emb_head_dim < 1 || m->v_head_dim < 1))
		FAIL("kv_lora_rank", "found MLA dims q_lora_rank %d, kv_lora_rank %d, qk_head_dim %d, "
		     "qk_pos_emb_head_dim %d, v_head_dim %d; expected positive sizes (q_lora_rank 0: "
		     "no query compression)", m->q_lora_rank, m->kv_lora_rank, m->qk_head_dim,
		     m->qk_pos_emb_head_dim, m->v_head_dim);
	if (m->num_experts > 0) {
		if (m->moe_router_topk > m->num_experts)
			FAIL("moe_router_topk", "found %d experts per token for num_experts %d; expected "
			     "at most num_experts", m->moe_router_topk, m->num_experts);
		if (m->moe_list_len && m->moe_list_len != m->num_layers)
			FAIL("moe_layer_freq", "found a list of %d entries for num_layers %d; expected one "
			     "0/1 entry per layer", m->moe_list_len, m->num_layers);
	}
	return 0;
#undef FAIL
}
