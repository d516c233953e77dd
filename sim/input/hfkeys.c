/* hfkeys.c - see hfint.h: every key a Hugging Face config.json may carry,
 * with the families that may carry it and what podplan does with it; the
 * keys refused by name; the check of a config's keys against them. */
#include "input/hfint.h"

#include <math.h>
#include <string.h>

/* Which families a key belongs to (a bit per fam). */
#define B(f) (1u << (f))
#define ALL 0xffu
#define DENSE B(F_DENSE)
#define MOE (B(F_MIXTRAL) | B(F_QWEN_MOE) | B(F_GPT_OSS) | B(F_QWEN_NEXT))
/* Qwen2/3-MoE's expert keys, which Qwen3-Next shares */
#define QMOE (B(F_QWEN_MOE) | B(F_QWEN_NEXT))
#define NOT_GPT2 (ALL & ~B(F_GPT2))
/* DeepSeek's expert layout: routed + shared experts after first_k_dense_replace dense layers */
#define DSMOE (B(F_DEEPSEEK) | B(F_GLM))

/* The largest magnitude of a number in a config (a key read or not):
 * rope_theta, the largest podplan knows of, is 1e6 to 1e8. */
#define HF_MAX_NUMBER 1e12

static const char RD[] = "read";
static const char WIN[] = "read: the sliding window (docs/scenario.md)";
static const char IDS[] = "token ids: the data, not the step";
static const char BOOK[] = "the file's bookkeeping: which classes load it, which versions wrote it";
static const char ROPE[] = "the rotary embedding's base, scaling or original context (YaRN, "
			   "linear, dynamic, longrope): the same elementwise rotation whatever "
			   "the values";
static const char DROP[] = "dropout: accepted at podplan's rate, 0 on gated (SwiGLU, GeGLU) "
			   "models and 0.1 on GeLU ones (the masks it costs); another rate is "
			   "refused";
static const char SCAL[] = "a scalar multiplier or soft cap (on embeddings, residuals, "
			   "attention scores or logits): an elementwise pass the fused kernels "
			   "fold in, not costed";
static const char PROT[] = "rotary embedding on a fraction of each head: the same elementwise "
			   "rotation on fewer elements, not costed";
static const char ROUT[] = "the router's balancing loss or noise, routing weights renormalised: "
			   "the same tokens per expert on average, no compute effect";

/* Every key a config may carry, with the families that may carry it and
 * what podplan does with it: RD/WIN, read; any other text, accepted with
 * that reason (it cannot change a training step or a serving iteration).
 * Anything not here is refused by name. pp_hfconfig_accepted prints it. */
static const struct hf_key {
	const char *key;
	unsigned fams;
	const char *why;
} hf_keys[] = {
	{"model_type", ALL, RD}, {"hidden_size", NOT_GPT2, RD}, {"num_hidden_layers", NOT_GPT2, RD},
	{"num_attention_heads", NOT_GPT2, RD}, {"num_key_value_heads", NOT_GPT2, RD},
	{"intermediate_size", NOT_GPT2, RD}, {"vocab_size", ALL, RD},
	{"max_position_embeddings", NOT_GPT2, RD}, {"hidden_act", NOT_GPT2, RD},
	{"hidden_activation", DENSE, "read: Gemma's gated GeLU (a gated MLP, as SwiGLU)"},
	{"tie_word_embeddings", ALL, RD},
	{"head_dim", NOT_GPT2 & ~B(F_DEEPSEEK), RD},
	{"n_embd", B(F_GPT2), "read: hidden_size"}, {"n_layer", B(F_GPT2), "read: num_layers"},
	{"n_head", B(F_GPT2), "read: num_attention_heads"},
	{"n_positions", B(F_GPT2), "read: seq_length"},
	{"n_inner", B(F_GPT2), "read: ffn_hidden_size (null: 4 x n_embd)"},
	{"activation_function", B(F_GPT2), "read: a GeLU MLP (not gated)"},
	{"n_ctx", B(F_GPT2), "GPT-2's former name for n_positions, equal to it"},
	{"sliding_window", DENSE | B(F_MIXTRAL) | B(F_QWEN_MOE) | B(F_GPT_OSS), WIN},
	{"sliding_window_size", DENSE, "read: Gemma 2's earlier name of sliding_window (transformers "
	 "4.42 wrote both), which it must equal"},
	{"use_sliding_window", DENSE | B(F_QWEN_MOE), WIN},
	{"use_sliding_window", B(F_QWEN_NEXT), "read: false (Qwen3-Next has no sliding window; true "
	 "is refused)"}, {"max_window_layers", DENSE | B(F_QWEN_MOE), WIN},
	{"layer_types", DENSE | B(F_QWEN_MOE) | B(F_GPT_OSS), WIN},
	{"sliding_window_pattern", DENSE, "read: Gemma 3's layer rule, layer i sliding unless (i + 1) "
	 "is a multiple of it (five local layers per global one at 6)"},
	{"num_local_experts", B(F_MIXTRAL) | B(F_GPT_OSS), RD},
	{"num_experts_per_tok", MOE | DSMOE, RD}, {"experts_per_token", B(F_GPT_OSS), RD},
	{"num_experts", QMOE, RD}, {"moe_intermediate_size", QMOE | DSMOE, RD},
	{"shared_expert_intermediate_size", QMOE, RD},
	{"decoder_sparse_step", QMOE, RD}, {"mlp_only_layers", QMOE, RD},
	{"full_attention_interval", B(F_QWEN_NEXT), "read: layer i is Gated DeltaNet linear attention "
	 "unless (i + 1) is a multiple of it (transformers Qwen3NextConfig's layer_types)"},
	{"layer_types", B(F_QWEN_NEXT), "read: linear_attention or full_attention, which must follow "
	 "full_attention_interval"},
	{"linear_num_key_heads", B(F_QWEN_NEXT), "read: Gated DeltaNet's query/key heads"},
	{"linear_num_value_heads", B(F_QWEN_NEXT), "read: Gated DeltaNet's value heads (a multiple of "
	 "the key heads)"},
	{"linear_key_head_dim", B(F_QWEN_NEXT), RD}, {"linear_value_head_dim", B(F_QWEN_NEXT), RD},
	{"linear_conv_kernel_dim", B(F_QWEN_NEXT), "read: the causal conv1d's taps over q, k and v"},
	{"n_routed_experts", DSMOE, RD}, {"n_shared_experts", DSMOE, RD},
	{"first_k_dense_replace", DSMOE, RD}, {"moe_layer_freq", B(F_DEEPSEEK), RD},
	{"q_lora_rank", B(F_DEEPSEEK), RD}, {"kv_lora_rank", B(F_DEEPSEEK), RD},
	{"qk_nope_head_dim", B(F_DEEPSEEK), RD}, {"qk_rope_head_dim", B(F_DEEPSEEK), RD},
	{"v_head_dim", B(F_DEEPSEEK), RD}, {"num_nextn_predict_layers", DSMOE, RD},
	{"head_dim", B(F_DEEPSEEK), "newer transformers write qk_rope_head_dim here; MLA's sizes are read"},
	{"architectures", ALL, BOOK}, {"auto_map", ALL, BOOK}, {"transformers_version", ALL, BOOK},
	{"torch_dtype", ALL, "the release's weight dtype: the scenario's precision decides"},
	{"dtype", ALL, "the release's weight dtype: the scenario's precision decides"},
	{"quantization_config", ALL, "the release's weight format (FP8 blocks, MXFP4): training "
	 "precision and QLoRA are training keys, serving precision a serving key"},
	{"bos_token_id", ALL, IDS}, {"eos_token_id", ALL, IDS}, {"pad_token_id", ALL, IDS},
	{"initializer_range", ALL, "initialisation: before the first step"},
	{"use_cache", ALL, "the inference library's KV cache switch: podplan's serving always caches"},
	{"cache_implementation", DENSE, "the inference library's cache class"},
	{"rms_norm_eps", ALL, "a constant inside the norm"}, {"layer_norm_eps", ALL, "a constant inside the norm"},
	{"layer_norm_epsilon", ALL, "a constant inside the norm"},
	{"rope_theta", NOT_GPT2, ROPE}, {"rope_scaling", NOT_GPT2, ROPE},
	{"rope_parameters", NOT_GPT2, ROPE}, {"original_max_position_embeddings", DENSE, ROPE},
	{"rope_interleave", B(F_DEEPSEEK), ROPE}, {"initial_context_length", B(F_GPT_OSS), ROPE},
	{"rope_local_base_freq", DENSE, ROPE},
	{"partial_rotary_factor", NOT_GPT2, PROT},
	{"attention_dropout", ALL, DROP}, {"embd_pdrop", ALL, DROP}, {"resid_pdrop", ALL, DROP},
	{"attn_pdrop", ALL, DROP},
	{"summary_first_dropout", B(F_GPT2), "a sequence-classification head's: not in a causal LM's step"},
	{"summary_activation", B(F_GPT2), "a sequence-classification head's: not in a causal LM's step"},
	{"summary_proj_to_labels", B(F_GPT2), "a sequence-classification head's: not in a causal LM's step"},
	{"summary_type", B(F_GPT2), "a sequence-classification head's: not in a causal LM's step"},
	{"summary_use_proj", B(F_GPT2), "a sequence-classification head's: not in a causal LM's step"},
	{"task_specific_params", B(F_GPT2), "generation defaults: the benchmark's requests set lengths"},
	{"scale_attn_weights", B(F_GPT2), "the 1/sqrt(d) score scale, inside the attention kernel"},
	{"pretraining_tp", ALL, "Llama's emulation of its pre-training TP split: the same GEMMs"},
	{"attention_bias", ALL, "bias adds on the projections: negligible, not costed"},
	{"mlp_bias", ALL, "bias adds on the projections: negligible, not costed"},
	{"query_pre_attn_scalar", DENSE, SCAL}, {"attn_logit_softcapping", DENSE, SCAL},
	{"final_logit_softcapping", DENSE, SCAL}, {"embedding_multiplier", DENSE, SCAL},
	{"residual_multiplier", DENSE, SCAL}, {"attention_multiplier", DENSE, SCAL},
	{"logits_scaling", DENSE, SCAL},
	{"use_qk_norm", B(F_GLM), "an RMSNorm of each query and key head: elementwise, not costed"},
	{"router_aux_loss_coef", MOE, ROUT}, {"router_jitter_noise", B(F_MIXTRAL), ROUT},
	{"output_router_logits", MOE, ROUT}, {"norm_topk_prob", QMOE | DSMOE, ROUT},
	{"n_group", DSMOE, "group-limited routing (checked to be possible): the same tokens "
	 "per expert on average"},
	{"topk_group", DSMOE, "as n_group"}, {"topk_method", B(F_DEEPSEEK), ROUT},
	{"scoring_func", B(F_DEEPSEEK), ROUT}, {"routed_scaling_factor", DSMOE, ROUT},
	{"aux_loss_alpha", B(F_DEEPSEEK), ROUT}, {"seq_aux", B(F_DEEPSEEK), ROUT},
	{"ep_size", B(F_DEEPSEEK), "an expert-parallel size hint for serving: the scenario sets EP"},
	{"swiglu_limit", B(F_GPT_OSS), "the SwiGLU clamp: elementwise"},
};

/* Expert keys: named in the message when a dense model_type carries them. */
static const char *const k_experts[] = {"num_local_experts", "num_experts", "n_routed_experts",
					"num_experts_per_tok", "experts_per_token",
					"moe_intermediate_size"};

/* Keys of architectures podplan does not model, refused with what they
 * would change (checked before any other key, so the message names the
 * feature rather than the first unknown key of the file). */
static const struct hf_refused {
	const char *key, *why;
} hf_refused[] = {
	{"full_attention_interval", "a hybrid of linear and softmax attention, read in a Qwen3-Next "
	 "config (model_type qwen3_next) only: another family's linear layers (Qwen3.5's, Kimi "
	 "Linear's) may differ from Qwen3-Next's Gated DeltaNet"},
	{"linear_num_value_heads", "linear-attention heads, read in a Qwen3-Next config only"},
	{"linear_num_key_heads", "linear-attention heads, read in a Qwen3-Next config only"},
	{"vision_config", "a vision encoder (a multimodal model); podplan models the language model "
	 "only, from a text model's config"},
	{"text_config", "the language model nested in a multimodal config; podplan reads it in "
	 "Llama 4's (model_type llama4) only"},
	{"interleave_moe_layer_step", "Llama 4's dense/MoE interleave, read in a Llama 4 config "
	 "(model_type llama4 or llama4_text) only"},
	{"attention_chunk_size", "chunked attention, read in a Llama 4 config only"},
	{"no_rope_layers", "Llama 4's layers without RoPE, read in a Llama 4 config only"},
};

static int check_refused(const pp_jdoc *hf, pp_hf_fam f, const char *mt, pp_err *err)
{
	for (size_t i = 0; i < PP_ARRAY_LEN(hf_refused); i++) {
		/* Qwen3-Next reads its linear-attention keys (the table's rows) */
		if (f == F_QWEN_NEXT && !strncmp(hf_refused[i].key, "linear_", 7))
			continue;
		if (f == F_QWEN_NEXT && !strcmp(hf_refused[i].key, "full_attention_interval"))
			continue;
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(hf->root, hf_refused[i].key);
		char what[96];
		if (v)
			return pp_jdoc_errf(hf, err, hf_refused[i].key, "found %s in a config of "
					    "model_type \"%s\": %s; expected a config without it "
					    "(podplan import --mapping hf lists what is read)",
					    pp_jdoc_describe(v, what, sizeof(what)), mt, hf_refused[i].why);
	}
	return 0;
}

static bool in(const char *key, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(key, list[i]))
			return true;
	return false;
}

static const struct hf_key *find_key(const char *k, pp_hf_fam f)
{
	for (size_t i = 0; i < PP_ARRAY_LEN(hf_keys); i++)
		if (!strcmp(hf_keys[i].key, k) && (hf_keys[i].fams & B(f)))
			return &hf_keys[i];
	return NULL;
}

void pp_hfconfig_accepted(pp_sb *out)
{
	pp_sb_adds(out, "| key | families | what podplan does with it |\n|---|---|---|\n");
	static const char *const fn[F_COUNT] = {"dense", "mixtral", "qwen MoE", "deepseek",
						"gpt-oss", "gpt2", "glm4_moe", "qwen3_next"};
	for (size_t i = 0; i < PP_ARRAY_LEN(hf_keys); i++) {
		const struct hf_key *k = &hf_keys[i];
		pp_sb_addf(out, "| `%s` | ", k->key);
		if (k->fams == ALL) {
			pp_sb_adds(out, "all");
		} else {
			int n = 0;
			for (int f = 0; f < F_COUNT; f++)
				if (k->fams & B(f))
					pp_sb_addf(out, "%s%s", n++ ? ", " : "", fn[f]);
		}
		pp_sb_addf(out, " | %s |\n", k->why);
	}
	pp_hfllama4_accepted(out);
	for (size_t i = 0; i < PP_ARRAY_LEN(hf_refused); i++)
		pp_sb_addf(out, "| `%s` | all but llama4%s | refused: %s |\n", hf_refused[i].key,
			   strncmp(hf_refused[i].key, "linear_", 7) &&
					   strcmp(hf_refused[i].key, "full_attention_interval")
				   ? ""
				   : ", qwen3_next",
			   hf_refused[i].why);
}

static int check_keys(const pp_jdoc *hf, pp_hf_fam f, const char *mt, pp_err *err)
{
	for (const cJSON *c = hf->root->child; c; c = c->next) {
		const char *k = c->string;
		/* "_name_or_path", "_comment", "//": bookkeeping and comments */
		if (!k || k[0] == '_' || !strncmp(k, "//", 2))
			continue;
		/* a key left unread still holds a number a config can hold (the
		 * ones read are checked against their own ranges) */
		if (cJSON_IsNumber(c) && !(fabs(c->valuedouble) <= HF_MAX_NUMBER))
			return pp_jdoc_errf(hf, err, k, "found %g, expected a finite number of "
					    "magnitude at most %g", c->valuedouble, HF_MAX_NUMBER);
		if (find_key(k, f))
			continue;
		if (f == F_DENSE && in(k, k_experts, PP_ARRAY_LEN(k_experts)))
			return pp_jdoc_errf(hf, err, k, "found an expert key in a config of model_type "
					    "\"%s\"; expected expert keys only with model_type mixtral, "
					    "qwen2_moe, qwen3_moe, qwen3_next, deepseek_v2, deepseek_v3, kimi_k2, glm4_moe or gpt_oss (a "
					    "mixture of experts is never read as a dense model)", mt);
		return pp_jdoc_errf(hf, err, k, "found a key podplan does not model in a config of "
				    "model_type \"%s\"; expected only keys it reads or knows to leave "
				    "a training step unchanged (docs/scenario.md, \"Hugging Face "
				    "config.json\"; podplan import --mapping hf): a key that may change "
				    "the architecture is refused, never ignored", mt);
	}
	return 0;
}

int pp_hf_check_keys(const pp_jdoc *hf, pp_hf_fam f, const char *mt, pp_err *err)
{
	int rc = check_refused(hf, f, mt, err);
	return rc ? rc : check_keys(hf, f, mt, err);
}
