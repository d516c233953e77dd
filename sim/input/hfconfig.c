/* hfconfig.c - see hfconfig.h: the architecture read from a config whose
 * keys hfkeys.c has checked. */
#include "input/hfint.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Upper bound of a dimension (model.h): catches typos and overflow, not a real limit. */
#define MAX_DIM PP_MODEL_DIM_MAX

/* Dropout at podplan's rate for the MLP kind (the engine's masks: 0.1 on
 * GeLU models, none on gated ones), else refused naming the key. */
static int check_dropout(const pp_jdoc *hf, const pp_model *m, pp_err *err)
{
	static const char *const keys[] = {"attention_dropout", "embd_pdrop", "resid_pdrop", "attn_pdrop"};
	double want = m->swiglu ? 0.0 : 0.1;
	for (size_t i = 0; i < PP_ARRAY_LEN(keys); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(hf->root, keys[i]);
		if (!v)
			continue;
		if (!cJSON_IsNumber(v) || fabs(v->valuedouble - want) > 1e-12)
			return pp_jdoc_errf(hf, err, keys[i], "found %g; expected %g: podplan costs "
					    "dropout 0.1 on GeLU models and none on gated (SwiGLU, GeGLU) "
					    "ones, and does not model another rate",
					    cJSON_IsNumber(v) ? v->valuedouble : -1.0, want);
	}
	return 0;
}

/* An integer member of the config; null (Python's None) reads as 0 where
 * nullable, and *present is then false. */
static int get_int(const pp_jdoc *hf, const char *key, bool req, bool nullable, int64_t min,
		   int64_t max, int *out, bool *present, pp_err *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(hf->root, key);
	bool pr = false;
	int64_t x = 0;
	if (nullable && cJSON_IsNull(v)) {
		*out = 0;
	} else {
		int rc = pp_jget_int(hf, hf->root, "", key, req, min, max, &x, &pr, err);
		if (rc)
			return rc;
		if (pr)
			*out = (int)x;
	}
	if (present)
		*present = pr;
	return 0;
}

static int check_topk(const pp_jdoc *hf, const char *key, const pp_model *m, pp_err *err)
{
	if (m->moe_router_topk > m->num_experts)
		return pp_jdoc_errf(hf, err, key, "found %d experts per token of %d; expected at "
				    "most the number of experts", m->moe_router_topk, m->num_experts);
	return 0;
}

/* Mixtral: every layer's MLP is num_local_experts SwiGLU experts of
 * intermediate_size (transformers MixtralSparseMoeBlock). */
static int read_mixtral(const pp_jdoc *hf, pp_model *m, pp_err *err)
{
	int rc;
	if ((rc = get_int(hf, "num_local_experts", true, false, 1, 1000000, &m->num_experts, NULL,
			  err)) ||
	    (rc = get_int(hf, "num_experts_per_tok", true, false, 1, 1000000, &m->moe_router_topk,
			  NULL, err)) ||
	    (rc = check_topk(hf, "num_experts_per_tok", m, err)))
		return rc;
	m->moe_ffn_hidden_size = m->ffn_hidden_size;
	m->moe_layer_freq = 1;
	return 0;
}

/* Qwen2-MoE, Qwen3-MoE: layer i is MoE iff i is not in mlp_only_layers and
 * (i + 1) % decoder_sparse_step == 0 (transformers Qwen2MoeDecoderLayer /
 * Qwen3MoeDecoderLayer); dense layers use intermediate_size. Qwen2-MoE's
 * shared expert carries a sigmoid gate of hidden_size weights: negligible. */
static int read_qwen_moe(const pp_jdoc *hf, pp_model *m, pp_err *err)
{
	int rc, step = 1;
	if ((rc = get_int(hf, "num_experts", true, false, 0, 1000000, &m->num_experts, NULL, err)))
		return rc;
	if (m->num_experts == 0)
		return 0; /* transformers: no experts, every layer dense */
	if ((rc = get_int(hf, "num_experts_per_tok", true, false, 1, 1000000, &m->moe_router_topk,
			  NULL, err)) ||
	    (rc = check_topk(hf, "num_experts_per_tok", m, err)) ||
	    (rc = get_int(hf, "moe_intermediate_size", true, false, 1, MAX_DIM,
			  &m->moe_ffn_hidden_size, NULL, err)) ||
	    (rc = get_int(hf, "shared_expert_intermediate_size", false, true, 0, MAX_DIM,
			  &m->moe_shared_expert_intermediate_size, NULL, err)) ||
	    (rc = get_int(hf, "decoder_sparse_step", false, false, 1, MAX_DIM, &step, NULL, err)))
		return rc;
	int L = m->num_layers;
	bool *moe = pp_xcalloc((size_t)L, sizeof(bool));
	for (int i = 0; i < L; i++)
		moe[i] = (i + 1) % step == 0;
	const cJSON *mlp = cJSON_GetObjectItemCaseSensitive(hf->root, "mlp_only_layers");
	if (mlp && !cJSON_IsArray(mlp)) {
		char what[96];
		rc = pp_jdoc_errf(hf, err, "mlp_only_layers", "found %s; expected a list of layer "
				  "indices", pp_jdoc_describe(mlp, what, sizeof(what)));
		goto out;
	}
	int k = 0;
	for (const cJSON *e = mlp ? mlp->child : NULL; e; e = e->next, k++) {
		char p[64], what[96];
		/* the range first: a number outside int's is never cast */
		if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0 && e->valuedouble < L) ||
		    e->valuedouble != floor(e->valuedouble)) {
			rc = pp_jdoc_errf(hf, err, pp_jpath_idx(p, sizeof(p), "mlp_only_layers", k),
					  "found %s; expected a layer index 0 to %d",
					  pp_jdoc_describe(e, what, sizeof(what)), L - 1);
			goto out;
		}
		moe[(int)e->valuedouble] = false;
	}
	rc = pp_hf_set_layers(hf, m, moe, err);
out:
	free(moe);
	return rc;
}

/* Qwen3-Next (transformers Qwen3NextConfig, modeling_qwen3_next.py):
 * Qwen3-MoE's experts with a shared expert; layer i is Gated DeltaNet
 * linear attention unless (i + 1) % full_attention_interval == 0 (the
 * config's layer_types, written out or not, must say the same), the others
 * gated softmax attention (q_proj writes a sigmoid gate per query element:
 * Qwen3NextAttention, always). linear_num_value_heads must be a multiple of
 * linear_num_key_heads (each key head serves that many value heads, as the
 * model repeats q and k). No sliding window. */
static int read_qwen_next(const pp_jdoc *hf, pp_model *m, pp_err *err)
{
	int rc, L = m->num_layers, every = 4;
	bool usw = false;
	if ((rc = get_int(hf, "full_attention_interval", false, false, 1, MAX_DIM, &every, NULL,
			  err)) ||
	    (rc = get_int(hf, "linear_num_key_heads", true, false, 1, MAX_DIM, &m->gdn_k_heads, NULL,
			  err)) ||
	    (rc = get_int(hf, "linear_num_value_heads", true, false, 1, MAX_DIM, &m->gdn_v_heads,
			  NULL, err)) ||
	    (rc = get_int(hf, "linear_key_head_dim", true, false, 1, MAX_DIM, &m->gdn_k_dim, NULL,
			  err)) ||
	    (rc = get_int(hf, "linear_value_head_dim", true, false, 1, MAX_DIM, &m->gdn_v_dim, NULL,
			  err)) ||
	    (rc = get_int(hf, "linear_conv_kernel_dim", true, false, 1, 1024, &m->gdn_conv, NULL,
			  err)) ||
	    (rc = pp_jget_bool(hf, hf->root, "", "use_sliding_window", false, &usw, NULL, err)))
		return rc;
	if (m->gdn_v_heads % m->gdn_k_heads)
		return pp_jdoc_errf(hf, err, "linear_num_value_heads", "found %d value heads for %d "
				    "key heads; expected a multiple of linear_num_key_heads",
				    m->gdn_v_heads, m->gdn_k_heads);
	if (usw)
		return pp_jdoc_errf(hf, err, "use_sliding_window", "found true; expected false: "
				    "Qwen3-Next's attention has no sliding window");
	const cJSON *lt = cJSON_GetObjectItemCaseSensitive(hf->root, "layer_types");
	if (lt) {
		char p[64], what[96];
		if (!cJSON_IsArray(lt) || cJSON_GetArraySize(lt) != L)
			return pp_jdoc_errf(hf, err, "layer_types", "found %s; expected a list of %d "
					    "layer types, one per layer",
					    pp_jdoc_describe(lt, what, sizeof(what)), L);
		int i = 0;
		for (const cJSON *e = lt->child; e; e = e->next, i++) {
			bool lin = (i + 1) % every != 0;
			const char *want = lin ? "linear_attention" : "full_attention";
			if (!cJSON_IsString(e) || strcmp(e->valuestring, want))
				return pp_jdoc_errf(hf, err, pp_jpath_idx(p, sizeof(p), "layer_types", i),
						    "found %s; expected \"%s\" (full_attention_interval "
						    "%d: podplan models that layer rule only)",
						    pp_jdoc_describe(e, what, sizeof(what)), want, every);
		}
	}
	m->linear_attn_interval = every;
	m->attn_output_gate = true;
	return read_qwen_moe(hf, m, err);
}

/* DeepSeek's expert layout (DeepSeek-V2/V3, Kimi K2, GLM-4.5): layer i is
 * MoE iff i >= first_k_dense_replace and i % moe_layer_freq == 0 (vLLM
 * deepseek_v2.py _is_moe_layer; glm4_moe.py: i >= first_k_dense_replace),
 * with n_shared_experts shared experts of moe_intermediate_size each
 * (Megatron's moe_shared_expert_intermediate_size is their sum); dense
 * layers use intermediate_size. num_nextn_predict_layers is the
 * multi-token-prediction module, trained only when the scenario says so. */
static int read_ds_moe(const pp_jdoc *hf, pp_model *m, bool drop_mtp, pp_err *err)
{
	int rc, nshared = 0, kdense = 0, freq = 1, mtp = 0;
	bool has_mtp = false;
	if ((rc = get_int(hf, "num_nextn_predict_layers", false, true, 0, 64, &mtp, &has_mtp, err)))
		return rc;
	if (mtp > 0 && !drop_mtp)
		return pp_jdoc_errf(hf, err, "num_nextn_predict_layers", "found %d: the "
				    "multi-token-prediction module (DeepSeek-V3, GLM-4.5) is trained "
				    "only when the scenario says so; expected the scenario's \"model\": "
				    "{\"mtp_num_layers\": %d} to train it or 0 to train without it "
				    "(Megatron-LM's --mtp-num-layers)", mtp, mtp);
	if ((rc = get_int(hf, "n_routed_experts", false, true, 0, 1000000, &m->num_experts, NULL,
			  err)))
		return rc;
	if (m->num_experts == 0)
		return 0; /* no routed experts: every layer dense */
	if ((rc = get_int(hf, "num_experts_per_tok", true, false, 1, 1000000, &m->moe_router_topk,
			  NULL, err)) ||
	    (rc = check_topk(hf, "num_experts_per_tok", m, err)) ||
	    (rc = get_int(hf, "moe_intermediate_size", true, false, 1, MAX_DIM,
			  &m->moe_ffn_hidden_size, NULL, err)) ||
	    (rc = get_int(hf, "n_shared_experts", false, true, 0, 1000000, &nshared, NULL, err)) ||
	    (rc = get_int(hf, "first_k_dense_replace", false, false, 0, MAX_DIM, &kdense, NULL,
			  err)) ||
	    (rc = get_int(hf, "moe_layer_freq", false, false, 1, MAX_DIM, &freq, NULL, err)))
		return rc;
	/* group-limited routing (DeepSeek-V2 sec. 2.1.3, V3 sec. 2.1.2:
	 * the top-k chosen within the topk_group best of n_group expert
	 * groups, to bound the devices or nodes a token reaches): the same
	 * tokens per expert on average, so the compute is unchanged and is
	 * not modelled beyond these checks that the routing can exist */
	int ngroup = 0, topkg = 0;
	bool has_ng = false, has_tg = false;
	if ((rc = get_int(hf, "n_group", false, true, 1, 1000000, &ngroup, &has_ng, err)) ||
	    (rc = get_int(hf, "topk_group", false, true, 1, 1000000, &topkg, &has_tg, err)))
		return rc;
	if (has_ng && m->num_experts % ngroup)
		return pp_jdoc_errf(hf, err, "n_group", "found %d groups of %d routed experts; expected "
				    "a divisor of n_routed_experts", ngroup, m->num_experts);
	if (has_tg && topkg > (has_ng ? ngroup : 1))
		return pp_jdoc_errf(hf, err, "topk_group", "found %d of %d groups; expected at most "
				    "n_group", topkg, has_ng ? ngroup : 1);
	if (has_ng && has_tg && m->moe_router_topk > (int64_t)topkg * (m->num_experts / ngroup))
		return pp_jdoc_errf(hf, err, "num_experts_per_tok", "found %d experts a token from "
				    "topk_group %d groups of %d; expected at most %d", m->moe_router_topk,
				    topkg, m->num_experts / ngroup, topkg * (m->num_experts / ngroup));
	m->moe_shared_expert_intermediate_size = nshared * m->moe_ffn_hidden_size;
	int L = m->num_layers;
	bool *moe = pp_xcalloc((size_t)L, sizeof(bool));
	for (int i = 0; i < L; i++)
		moe[i] = i >= kdense && i % freq == 0;
	rc = pp_hf_set_layers(hf, m, moe, err);
	free(moe);
	return rc;
}

/* DeepSeek-V2/V3 and Kimi K2 (model_type kimi_k2: DeepSeek-V3's
 * architecture, DeepseekV3ForCausalLM, with its own sizes): multi-head
 * latent attention in every layer, DeepSeek's expert layout. */
static int read_deepseek(const pp_jdoc *hf, pp_model *m, bool drop_mtp, pp_err *err)
{
	int rc;
	m->multi_latent_attention = true;
	/* MLA has no key/value head groups: num_key_value_heads (= heads in
	 * DeepSeek's configs) is not used by the attention */
	m->num_query_groups = m->num_attention_heads;
	m->head_dim = 0;
	if ((rc = get_int(hf, "q_lora_rank", false, true, 1, MAX_DIM, &m->q_lora_rank, NULL, err)) ||
	    (rc = get_int(hf, "kv_lora_rank", true, false, 1, MAX_DIM, &m->kv_lora_rank, NULL, err)) ||
	    (rc = get_int(hf, "qk_nope_head_dim", true, false, 1, MAX_DIM, &m->qk_head_dim, NULL,
			  err)) ||
	    (rc = get_int(hf, "qk_rope_head_dim", true, false, 1, MAX_DIM, &m->qk_pos_emb_head_dim,
			  NULL, err)) ||
	    (rc = get_int(hf, "v_head_dim", true, false, 1, MAX_DIM, &m->v_head_dim, NULL, err)))
		return rc;
	return read_ds_moe(hf, m, drop_mtp, err);
}

/* gpt-oss: every layer's MLP is num_local_experts SwiGLU experts of
 * intermediate_size (clamped at swiglu_limit), top experts_per_token. The
 * attention's learned sinks (one logit per head) and its bias vectors are
 * negligible compute and are not costed. */
static int read_gpt_oss(const pp_jdoc *hf, pp_model *m, pp_err *err)
{
	int rc, k1 = 0, k2 = 0;
	bool has1 = false, has2 = false;
	if ((rc = get_int(hf, "num_local_experts", true, false, 1, 1000000, &m->num_experts, NULL,
			  err)) ||
	    (rc = get_int(hf, "experts_per_token", false, false, 1, 1000000, &k1, &has1, err)) ||
	    (rc = get_int(hf, "num_experts_per_tok", false, false, 1, 1000000, &k2, &has2, err)))
		return rc;
	if (!has1 && !has2)
		return pp_jdoc_errf(hf, err, "experts_per_token", "missing; expected experts_per_token "
				    "or num_experts_per_tok");
	if (has1 && has2 && k1 != k2)
		return pp_jdoc_errf(hf, err, "num_experts_per_tok", "found %d, but experts_per_token "
				    "is %d; expected the same number", k2, k1);
	m->moe_router_topk = has1 ? k1 : k2;
	if ((rc = check_topk(hf, has1 ? "experts_per_token" : "num_experts_per_tok", m, err)))
		return rc;
	m->moe_ffn_hidden_size = m->ffn_hidden_size;
	m->moe_layer_freq = 1;
	return 0;
}

/* The window on the layers sl[0..L-1] marks: podplan's integer form
 * (window_freq N, layer i sliding iff i % N == 0) where it says the same,
 * else the 0/1 list (window_list). */
static void set_window(pp_model *m, const bool *sl, int win)
{
	int L = m->num_layers, n = L;
	if (sl[0])
		for (n = 1; n < L && !sl[n]; n++)
			;
	bool every_n = sl[0];
	for (int i = 0; i < L && every_n; i++)
		every_n = sl[i] == (i % n == 0);
	m->window = win;
	m->window_freq = every_n ? n : 1;
	m->window_list_len = 0;
	if (!every_n) {
		for (int i = 0; i < L; i++)
			m->window_list[i] = sl[i];
		m->window_list_len = L;
	}
}

/* The sliding window. A window at least max_position_embeddings long
 * changes nothing. Which layers slide: layer_types when the config lists
 * them; Gemma 3's sliding_window_pattern P (transformers Gemma3DecoderLayer:
 * is_sliding = bool((layer_idx + 1) % P); 6 by default), which layer_types
 * must then agree with; else Qwen's rule (use_sliding_window, from layer
 * max_window_layers on; off when absent, transformers' default); else every
 * layer for Mistral and Mixtral, even layers for gpt-oss (gpt_oss/torch/
 * model.py: "sliding_window if layer_idx % 2 == 0"). */
static int read_window(const pp_jdoc *hf, const char *mt, pp_model *m, pp_err *err)
{
	int rc, win = 0, L = m->num_layers, pat = 0;
	bool has_win = false, has_pat = false;
	m->window = m->window_freq = m->window_list_len = 0;
	int wsz = 0;
	bool has_wsz = false;
	if ((rc = get_int(hf, "sliding_window", false, true, 1, MAX_DIM, &win, &has_win, err)) ||
	    (rc = get_int(hf, "sliding_window_pattern", false, false, 1, MAX_DIM, &pat, &has_pat,
			  err)) ||
	    (rc = get_int(hf, "sliding_window_size", false, false, 1, MAX_DIM, &wsz, &has_wsz, err)))
		return rc;
	/* Gemma 2's first releases (transformers 4.42) wrote the window under
	 * both names: read once, the two must agree */
	if (has_wsz && wsz != win)
		return pp_jdoc_errf(hf, err, "sliding_window_size", "found %d beside sliding_window "
				    "%d; expected the same window under its earlier name", wsz, win);
	if (win >= m->seq_length)
		win = 0;
	if (L > PP_MOE_LIST_MAX)
		return pp_jdoc_errf(hf, err, "num_hidden_layers", "found %d layers; expected at most "
				    "%d", L, PP_MOE_LIST_MAX);
	bool sl[PP_MOE_LIST_MAX] = {0}, any = false;
	if (!has_pat && !strncmp(mt, "gemma3", 6)) /* Gemma3TextConfig's default */
		pat = 6, has_pat = true;
	if (has_pat)
		for (int i = 0; i < L; i++)
			any |= sl[i] = (i + 1) % pat != 0;
	const cJSON *lt = cJSON_GetObjectItemCaseSensitive(hf->root, "layer_types");
	if (lt) {
		char p[64], what[96];
		if (!cJSON_IsArray(lt) || cJSON_GetArraySize(lt) != L)
			return pp_jdoc_errf(hf, err, "layer_types", "found %s; expected a list of %d "
					    "attention types, one per layer",
					    pp_jdoc_describe(lt, what, sizeof(what)), L);
		int i = 0;
		any = false;
		for (const cJSON *e = lt->child; e; e = e->next, i++) {
			bool full = cJSON_IsString(e) && !strcmp(e->valuestring, "full_attention");
			bool s = cJSON_IsString(e) && !strcmp(e->valuestring, "sliding_attention");
			if (!full && !s)
				return pp_jdoc_errf(hf, err, pp_jpath_idx(p, sizeof(p), "layer_types", i),
						    "found %s; expected \"full_attention\" or "
						    "\"sliding_attention\" (podplan models no other "
						    "attention)", pp_jdoc_describe(e, what, sizeof(what)));
			if (has_pat && s != sl[i])
				return pp_jdoc_errf(hf, err, pp_jpath_idx(p, sizeof(p), "layer_types", i),
						    "found %s, but sliding_window_pattern %d makes layer "
						    "%d %s; expected the two to agree",
						    pp_jdoc_describe(e, what, sizeof(what)), pat, i,
						    sl[i] ? "sliding" : "full");
			sl[i] = s;
			any |= s;
		}
	}
	if (lt || has_pat) {
		/* a window of null or at least the context: no window */
		if (!any || (win == 0 && cJSON_GetObjectItemCaseSensitive(hf->root, "sliding_window")))
			return 0;
		if (win == 0)
			return pp_jdoc_errf(hf, err, "sliding_window", "found no window size, but "
					    "%s has sliding layers; expected the window in tokens",
					    lt ? "layer_types" : "sliding_window_pattern");
		set_window(m, sl, win);
		return 0;
	}
	const cJSON *usw = cJSON_GetObjectItemCaseSensitive(hf->root, "use_sliding_window");
	if (usw || !strncmp(mt, "qwen", 4)) {
		bool on = false;
		int mwl = 0;
		if ((rc = pp_jget_bool(hf, hf->root, "", "use_sliding_window", false, &on, NULL, err)))
			return rc;
		if (!on || win == 0)
			return 0;
		/* transformers' Qwen2: layer i slides iff i >= max_window_layers */
		if ((rc = get_int(hf, "max_window_layers", true, false, 0, MAX_DIM, &mwl, NULL, err)))
			return rc;
		if (mwl >= L)
			return 0;
		if (mwl > 0)
			return pp_jdoc_errf(hf, err, "max_window_layers", "found %d of %d layers with "
					    "use_sliding_window: a window on the layers from %d on only; "
					    "expected 0 (every layer) or num_hidden_layers (none): "
					    "podplan's window_layer_freq cannot express it", mwl, L, mwl);
		m->window = win;
		m->window_freq = 1;
		return 0;
	}
	if (win == 0)
		return 0;
	if (!strcmp(mt, "mistral") || !strcmp(mt, "mixtral") || !strcmp(mt, "phi3")) {
		/* transformers' Phi3Attention passes config.sliding_window to every layer */
		m->window = win;
		m->window_freq = 1;
	} else if (!strcmp(mt, "gpt_oss") || !strcmp(mt, "gemma2")) {
		/* Gemma 2 (transformers Gemma2DecoderLayer before layer_types:
		 * is_sliding = not bool(layer_idx % 2)) */
		m->window = win;
		m->window_freq = 2;
	} else {
		return pp_jdoc_errf(hf, err, "sliding_window", "found %d in a config of model_type "
				    "\"%s\", whose layer rule podplan does not know; expected null, "
				    "or layer_types naming the sliding layers", win, mt);
	}
	return 0;
}

/* GPT-2's names (transformers GPT2Config): n_embd, n_layer, n_head,
 * n_positions, n_inner (null: 4 x n_embd); a GeLU MLP, multi-head
 * attention, the output layer tied to the embedding unless the config says
 * otherwise (GPT2LMHeadModel's default). */
static int read_gpt2(const pp_jdoc *hf, pp_model *m, pp_err *err)
{
	int rc;
	if ((rc = get_int(hf, "n_embd", true, false, 1, MAX_DIM, &m->hidden_size, NULL, err)) ||
	    (rc = get_int(hf, "n_layer", true, false, 1, MAX_DIM, &m->num_layers, NULL, err)) ||
	    (rc = get_int(hf, "n_head", true, false, 1, MAX_DIM, &m->num_attention_heads, NULL, err)) ||
	    (rc = get_int(hf, "vocab_size", true, false, 1, MAX_DIM, &m->vocab_size, NULL, err)))
		return rc;
	m->num_query_groups = m->num_attention_heads;
	m->seq_length = 1024;
	m->ffn_hidden_size = 4 * m->hidden_size;
	if ((rc = get_int(hf, "n_positions", false, false, 1, MAX_DIM, &m->seq_length, NULL, err)) ||
	    (rc = get_int(hf, "n_inner", false, true, 1, MAX_DIM, &m->ffn_hidden_size, NULL, err)))
		return rc;
	if (!m->ffn_hidden_size)
		m->ffn_hidden_size = 4 * m->hidden_size;
	const cJSON *act = cJSON_GetObjectItemCaseSensitive(hf->root, "activation_function");
	if (act && (!cJSON_IsString(act) || strncmp(act->valuestring, "gelu", 4)))
		return pp_jdoc_errf(hf, err, "activation_function", "found %s; expected a GeLU "
				    "(gelu, gelu_new): podplan models GeLU and gated MLPs",
				    cJSON_IsString(act) ? act->valuestring : "a non-string");
	m->swiglu = false;
	m->tied_embeddings = true;
	if ((rc = pp_jget_bool(hf, hf->root, "", "tie_word_embeddings", false, &m->tied_embeddings,
			       NULL, err)))
		return rc;
	return check_dropout(hf, m, err);
}

int pp_hfconfig_read(pp_model *m, const pp_jdoc *hf, bool drop_mtp, pp_err *err)
{
	int rc;
	char mt[64] = "";
	memset(m, 0, sizeof(*m));
	if ((rc = pp_jget_str(hf, hf->root, "", "model_type", false, mt, sizeof(mt), NULL, err)))
		return rc;
	if (!strcmp(mt, "llama4") || !strcmp(mt, "llama4_text"))
		return pp_hfllama4_read(m, hf, err);
	pp_hf_fam f = !strcmp(mt, "mixtral")                                ? F_MIXTRAL
		      : !strcmp(mt, "qwen2_moe") || !strcmp(mt, "qwen3_moe") ? F_QWEN_MOE
		      : !strcmp(mt, "qwen3_next")                            ? F_QWEN_NEXT
		      : !strcmp(mt, "deepseek_v2") || !strcmp(mt, "deepseek_v3") ||
				!strcmp(mt, "kimi_k2")                       ? F_DEEPSEEK
		      : !strcmp(mt, "glm4_moe")                              ? F_GLM
		      : !strcmp(mt, "gpt_oss")                               ? F_GPT_OSS
		      : !strcmp(mt, "gpt2")                                  ? F_GPT2
									     : F_DENSE;
	if ((rc = pp_hf_check_keys(hf, f, mt[0] ? mt : "(none)", err)))
		return rc;
	if (f == F_GPT2)
		return read_gpt2(hf, m, err);
	int64_t v = 0;
	bool present;
#define HF(key, field, req)                                                                       \
	if ((rc = pp_jget_int(hf, hf->root, "", key, req, 1, MAX_DIM, &v, &present, err)))       \
		return rc;                                                                        \
	if (present)                                                                              \
		m->field = (int)v;
	HF("hidden_size", hidden_size, true)
	HF("num_hidden_layers", num_layers, true)
	HF("num_attention_heads", num_attention_heads, true)
	m->num_query_groups = m->num_attention_heads;
	HF("num_key_value_heads", num_query_groups, false)
	m->ffn_hidden_size = 4 * m->hidden_size;
	HF("intermediate_size", ffn_hidden_size, f == F_MIXTRAL || f == F_GPT_OSS)
	HF("vocab_size", vocab_size, true)
	m->seq_length = 2048;
	HF("max_position_embeddings", seq_length, false)
#undef HF
	/* Llama-style (gated SiLU MLP) when the activation is silu or the
	 * architecture says so; the expert families are all SwiGLU. */
	const cJSON *act = cJSON_GetObjectItemCaseSensitive(hf->root, "hidden_act");
	m->swiglu = (cJSON_IsString(act) && !strcmp(act->valuestring, "silu")) ||
		    strstr(mt, "llama") || strstr(mt, "mistral") || strstr(mt, "qwen") ||
		    !strncmp(mt, "gemma", 5) || f != F_DENSE;
	/* Gemma's configs tie the output layer by default (GemmaConfig
	 * tie_word_embeddings=True); the other families state it or untie */
	m->tied_embeddings = !strncmp(mt, "gemma", 5);
	if ((rc = pp_jget_bool(hf, hf->root, "", "tie_word_embeddings", false, &m->tied_embeddings,
			       NULL, err)) ||
	    (rc = check_dropout(hf, m, err)))
		return rc;
	if (f != F_DEEPSEEK &&
	    (rc = get_int(hf, "head_dim", false, true, 1, MAX_DIM, &m->head_dim, NULL, err)))
		return rc;
	if (f != F_DEEPSEEK && f != F_QWEN_NEXT && (rc = read_window(hf, mt, m, err)))
		return rc;
	switch (f) {
	case F_MIXTRAL: return read_mixtral(hf, m, err);
	case F_QWEN_MOE: return read_qwen_moe(hf, m, err);
	case F_DEEPSEEK: return read_deepseek(hf, m, drop_mtp, err);
	case F_GPT_OSS: return read_gpt_oss(hf, m, err);
	case F_GLM: return read_ds_moe(hf, m, drop_mtp, err);
	case F_QWEN_NEXT: return read_qwen_next(hf, m, err);
	default: return 0;
	}
}
