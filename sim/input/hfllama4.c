/* hfllama4.c - Llama 4's config.json (hfint.h): model_type llama4, the
 * language model under text_config (model_type llama4_text), or a
 * llama4_text config on its own. Read as transformers' Llama 4 builds the
 * model (models/llama4/configuration_llama4.py and modeling_llama4.py,
 * v4.51, the release that added it):
 *   - layer i's feed-forward is a mixture of experts iff i is in moe_layers,
 *     by default range(interleave_moe_layer_step - 1, layers, step) (Scout:
 *     every layer; Maverick: the odd ones); a MoE layer routes each token to
 *     num_experts_per_tok of num_local_experts experts of intermediate_size
 *     and adds one shared expert of intermediate_size (Llama4TextMoe's
 *     shared_expert); the other layers are a dense MLP of
 *     intermediate_size_mlp;
 *   - layer i with no_rope_layers[i] = 1 applies RoPE and attends within
 *     chunks of attention_chunk_size tokens; the others (every fourth, no
 *     RoPE) attend to the whole sequence. Within one chunk both are causal
 *     attention over the same tokens, so podplan models a sequence of at
 *     most attention_chunk_size exactly (the model's seq_length defaults to
 *     it) and refuses a longer one (pp_model_check: attention_chunk).
 * The vision encoder (vision_config) is not part of the step podplan
 * costs: its parameters (about 0.87B in Scout, under 1% of the 109B) are
 * not counted, as the Gemma 3 preset leaves its encoder out. */
#include "input/hfint.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char IDS[] = "token ids: the data, not the step";
static const char BOOK[] = "the file's bookkeeping";
static const char ELT[] = "an elementwise scale or norm on the queries and keys: not costed";
static const char ROPE[] = "the rotary embedding's base or scaling: the same elementwise rotation";
static const char ROUT[] = "the router's balancing loss or noise: the same tokens per expert on average";

/* The keys of the outer (multimodal) config and of text_config: read, or
 * accepted with the reason; any other key is refused by name. */
static const struct l4key {
	const char *key;
	bool text; /* a text_config key (else an outer one) */
	const char *why;
} keys[] = {
	{"architectures", false, BOOK}, {"model_type", false, "read"},
	{"text_config", false, "read: the language model"},
	{"vision_config", false, "the vision encoder: it runs on image tokens only; podplan costs "
	 "the language model on text and does not count the encoder's parameters (Scout: about "
	 "0.87B of 109B)"},
	{"boi_token_index", false, IDS}, {"eoi_token_index", false, IDS},
	{"image_token_index", false, IDS}, {"tie_word_embeddings", false, "read"},
	{"torch_dtype", false, BOOK}, {"transformers_version", false, BOOK},
	{"model_type", true, "read"}, {"hidden_size", true, "read"},
	{"num_hidden_layers", true, "read"}, {"num_attention_heads", true, "read"},
	{"num_key_value_heads", true, "read"}, {"head_dim", true, "read"},
	{"intermediate_size", true, "read: each expert's and the shared expert's FFN size"},
	{"intermediate_size_mlp", true, "read: the dense layers' FFN size"},
	{"num_local_experts", true, "read"}, {"num_experts_per_tok", true, "read"},
	{"interleave_moe_layer_step", true, "read: the MoE layers when moe_layers is absent"},
	{"moe_layers", true, "read: the MoE layers"}, {"vocab_size", true, "read"},
	{"max_position_embeddings", true, "read: the longest sequence (the default seq_length is "
	 "attention_chunk_size)"},
	{"attention_chunk_size", true, "read: a sequence up to one chunk is modelled exactly; a "
	 "longer one is refused"},
	{"no_rope_layers", true, "read: the chunked (RoPE) and the global (NoPE) layers"},
	{"hidden_act", true, "read: silu (a gated MLP)"},
	{"attention_dropout", true, "read: 0 (podplan costs no dropout on gated models)"},
	{"attention_bias", true, "bias adds: negligible, not costed"},
	{"use_qk_norm", true, ELT}, {"attn_scale", true, ELT}, {"attn_temperature_tuning", true, ELT},
	{"floor_scale", true, ELT}, {"rope_scaling", true, ROPE}, {"rope_theta", true, ROPE},
	{"rms_norm_eps", true, "a constant inside the norm"}, {"router_aux_loss_coef", true, ROUT},
	{"router_jitter_noise", true, ROUT}, {"output_router_logits", true, BOOK},
	{"bos_token_id", true, IDS}, {"eos_token_id", true, IDS}, {"pad_token_id", true, IDS},
	{"initializer_range", true, "initialisation: before the first step"},
	{"torch_dtype", true, BOOK}, {"use_cache", true, "serving's cache switch: the step is the same"},
	{"for_llm_compressor", true, BOOK},
	{"cache_implementation", true, "serving's cache layout: the step is the same"},
};

void pp_hfllama4_accepted(pp_sb *out)
{
	for (size_t i = 0; i < PP_ARRAY_LEN(keys); i++)
		pp_sb_addf(out, "| `%s%s` | llama4 | %s |\n", keys[i].text ? "text_config." : "",
			   keys[i].key, keys[i].why);
}

static int check_keys(const pp_jdoc *hf, const cJSON *o, bool text, pp_err *err)
{
	for (const cJSON *c = o->child; c; c = c->next) {
		const char *k = c->string;
		bool known = !k || k[0] == '_';
		for (size_t i = 0; i < PP_ARRAY_LEN(keys) && !known; i++)
			known = keys[i].text == text && !strcmp(keys[i].key, k);
		if (known)
			continue;
		char path[128];
		snprintf(path, sizeof(path), "%s%s", text ? "text_config." : "", k);
		return pp_jdoc_errf(hf, err, path, "found a key podplan does not model in a Llama 4 "
				    "config; expected only keys it reads or knows to leave a training "
				    "step unchanged (podplan import --mapping hf): a key that may "
				    "change the architecture is refused, never ignored");
	}
	return 0;
}

static int geti(const pp_jdoc *hf, const cJSON *tc, const char *key, bool req, int *out,
		pp_err *err)
{
	int64_t v = *out;
	int rc = pp_jget_int(hf, tc, "text_config", key, req, 1, PP_MODEL_DIM_MAX, &v, NULL, err);
	*out = (int)v;
	return rc;
}

/* A list of layer indices (moe_layers) or of 0/1 flags (no_rope_layers),
 * one bool a layer into out[0..L). */
static int layer_list(const pp_jdoc *hf, const cJSON *v, const char *key, int L, bool flags,
		      bool *out, pp_err *err)
{
	char path[64];
	snprintf(path, sizeof(path), "text_config.%s", key);
	if (!cJSON_IsArray(v) || (flags && cJSON_GetArraySize(v) != L))
		return pp_jdoc_errf(hf, err, path, "found %s; expected a list of %s", cJSON_IsArray(v) ?
				    "a list of another length" : "no list", flags ?
				    "0/1, one a layer" : "layer indices");
	int i = 0;
	for (const cJSON *e = v->child; e; e = e->next, i++) {
		double x = cJSON_IsNumber(e) ? e->valuedouble : -1;
		if (flags ? (x != 0 && x != 1) : (x < 0 || x >= L || x != floor(x)))
			return pp_jdoc_errf(hf, err, path, "found element %d not %s; expected %s", i,
					    flags ? "0 or 1" : "a layer index", flags ? "0 or 1" :
					    "0 to num_hidden_layers - 1");
		if (flags)
			out[i] = x == 1;
		else
			out[(int)x] = true;
	}
	return 0;
}

int pp_hfllama4_read(pp_model *m, const pp_jdoc *hf, pp_err *err)
{
	char mt[64] = "";
	int rc;
	bool *moe = NULL, *rope = NULL;
	memset(m, 0, sizeof(*m));
	if ((rc = pp_jget_str(hf, hf->root, "", "model_type", true, mt, sizeof(mt), NULL, err)))
		return rc;
	const cJSON *tc = hf->root;
	if (!strcmp(mt, "llama4")) {
		if ((rc = check_keys(hf, hf->root, false, err)))
			return rc;
		tc = cJSON_GetObjectItemCaseSensitive(hf->root, "text_config");
		if (!cJSON_IsObject(tc))
			return pp_jdoc_errf(hf, err, "text_config", "found %s; expected the language "
					    "model's config (an object)", tc ? "no object" : "nothing");
	}
	if ((rc = check_keys(hf, tc, true, err)))
		return rc;
	m->seq_length = 0;
	if ((rc = geti(hf, tc, "hidden_size", true, &m->hidden_size, err)) ||
	    (rc = geti(hf, tc, "num_hidden_layers", true, &m->num_layers, err)) ||
	    (rc = geti(hf, tc, "num_attention_heads", true, &m->num_attention_heads, err)))
		return rc;
	m->num_query_groups = m->num_attention_heads;
	int max_pos = 0, chunk = 0, step = 1;
	if ((rc = geti(hf, tc, "num_key_value_heads", false, &m->num_query_groups, err)) ||
	    (rc = geti(hf, tc, "head_dim", false, &m->head_dim, err)) ||
	    (rc = geti(hf, tc, "vocab_size", true, &m->vocab_size, err)) ||
	    (rc = geti(hf, tc, "intermediate_size", true, &m->moe_ffn_hidden_size, err)) ||
	    (rc = geti(hf, tc, "intermediate_size_mlp", true, &m->ffn_hidden_size, err)) ||
	    (rc = geti(hf, tc, "num_local_experts", true, &m->num_experts, err)) ||
	    (rc = geti(hf, tc, "num_experts_per_tok", true, &m->moe_router_topk, err)) ||
	    (rc = geti(hf, tc, "interleave_moe_layer_step", false, &step, err)) ||
	    (rc = geti(hf, tc, "max_position_embeddings", false, &max_pos, err)) ||
	    (rc = geti(hf, tc, "attention_chunk_size", false, &chunk, err)))
		return rc;
	char act[32] = "silu";
	if ((rc = pp_jget_str(hf, tc, "text_config", "hidden_act", false, act, sizeof(act), NULL, err)))
		return rc;
	if (strcmp(act, "silu"))
		return pp_jdoc_errf(hf, err, "text_config.hidden_act", "found \"%s\"; expected silu "
				    "(Llama 4's gated MLP)", act);
	double drop = 0;
	if ((rc = pp_jget_num(hf, tc, "text_config", "attention_dropout", false, 0, 1, &drop, NULL,
			      err)))
		return rc;
	if (drop != 0)
		return pp_jdoc_errf(hf, err, "text_config.attention_dropout", "found %g; expected 0: "
				    "podplan costs no dropout on gated models", drop);
	m->swiglu = true;
	m->tied_embeddings = false; /* Llama4Config's default */
	if ((rc = pp_jget_bool(hf, hf->root, "", "tie_word_embeddings", false, &m->tied_embeddings,
			       NULL, err)))
		return rc;
	int L = m->num_layers;
	if (L > PP_MOE_LIST_MAX)
		return pp_jdoc_errf(hf, err, "text_config.num_hidden_layers", "found %d; expected at "
				    "most %d", L, PP_MOE_LIST_MAX);
	moe = pp_xcalloc((size_t)L, sizeof(bool));
	rope = pp_xcalloc((size_t)L, sizeof(bool));
	const cJSON *ml = cJSON_GetObjectItemCaseSensitive(tc, "moe_layers");
	if (ml && !cJSON_IsNull(ml)) {
		if ((rc = layer_list(hf, ml, "moe_layers", L, false, moe, err)))
			goto out;
	} else {
		for (int i = step - 1; i < L; i += step)
			moe[i] = true;
	}
	m->moe_shared_expert_intermediate_size = m->moe_ffn_hidden_size;
	if ((rc = pp_hf_set_layers(hf, m, moe, err)))
		goto out;
	/* chunked attention on the RoPE layers (no_rope_layers[i] = 1;
	 * transformers' default: every fourth layer without RoPE) */
	const cJSON *nr = cJSON_GetObjectItemCaseSensitive(tc, "no_rope_layers");
	if (nr && !cJSON_IsNull(nr)) {
		if ((rc = layer_list(hf, nr, "no_rope_layers", L, true, rope, err)))
			goto out;
	} else {
		for (int i = 0; i < L; i++)
			rope[i] = (i + 1) % 4 != 0;
	}
	bool any = false;
	for (int i = 0; i < L; i++)
		any |= rope[i];
	m->attention_chunk = any ? chunk : 0;
	m->seq_length = m->attention_chunk ? m->attention_chunk : max_pos ? max_pos : 2048;
	if (max_pos && m->seq_length > max_pos)
		m->seq_length = max_pos;
	rc = 0;
out:
	free(moe);
	free(rope);
	return rc;
}
