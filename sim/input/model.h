/*
 * model.h - a model's architecture: the shapes a preset (models.json), a
 * Hugging Face config.json (hfconfig.h) or a scenario's model section
 * gives, with Megatron-LM's names, the architecture keys that a preset and
 * a scenario share, the checks of a model as a whole, and what each layer
 * is (dense or mixture of experts, windowed attention or full).
 *
 * Parameter and FLOP counts are the engine's (engine/workload.h); the
 * sizes the simulation can hold are limits.h's.
 */
#ifndef PP_MODEL_H
#define PP_MODEL_H

#include "core/jdoc.h"
#include "core/pp.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Upper bound of a model dimension (a layer count, a width, a rank) as
 * the files are read: it catches typos and int overflow and is no limit of
 * the simulation (those are limits.h's, checked once the scenario is
 * parsed). */
#define PP_MODEL_DIM_MAX 10000000

/* Longest 0/1 moe_layer_freq list podplan keeps (the int form has no limit). */
#define PP_MOE_LIST_MAX 1024

typedef struct pp_model {
	char id[48];
	char name[96];
	char hf_repo[96];          /* the Hugging Face repository it is published as ("org/name"); "" */
	int num_layers;
	int hidden_size;
	int num_attention_heads;
	int num_query_groups;
	int ffn_hidden_size;
	int vocab_size;
	int seq_length;
	bool swiglu;
	bool tied_embeddings;
	double params_published;   /* 0 = unknown */
	double params_active_published; /* mixture of experts: per token; 0 = unknown */
	/* the published active count leaves the input embedding out (OpenAI's
	 * gpt-oss card, DeepSeek's README_WEIGHTS); else it counts every
	 * parameter but the routed experts a token does not use */
	bool params_active_published_no_embedding;
	int head_dim;              /* attention head size (Megatron kv_channels); 0 = hidden / heads */
	/* multi-head latent attention (DeepSeek-V2/V3, Megatron's names): the
	 * query through a rank-q_lora_rank bottleneck (0: none), keys and values
	 * through one of kv_lora_rank; heads of qk_head_dim + qk_pos_emb_head_dim
	 * (the decoupled RoPE part) for Q.K and v_head_dim for V */
	bool multi_latent_attention;
	int q_lora_rank, kv_lora_rank, qk_head_dim, qk_pos_emb_head_dim, v_head_dim;
	/* sliding-window attention: layer i attends to the last `window` tokens
	 * when i % window_freq == 0 (gpt-oss: 128 on even layers); 0: none.
	 * window_list_len > 0: the 0/1 list form instead, one entry per layer
	 * (Gemma 3: five sliding layers, then one global, from a Hugging Face
	 * config only) */
	int window, window_freq;
	/* chunked attention (Llama 4's attention_chunk_size on its RoPE layers):
	 * tokens attend within chunks of this many; 0: none. Within one chunk it
	 * is causal attention, so podplan accepts seq_length <= attention_chunk
	 * only (pp_model_check) */
	int attention_chunk;
	int window_list_len;
	uint8_t window_list[PP_MOE_LIST_MAX];
	/* mixture of experts (Megatron's names); num_experts 0: dense */
	int num_experts;           /* routed experts of an MoE layer */
	int moe_router_topk;       /* experts per token */
	int moe_ffn_hidden_size;   /* one expert's FFN size */
	int moe_shared_expert_intermediate_size; /* all shared experts together; 0: none */
	int moe_layer_freq;        /* int form: layer i is MoE when i % moe_layer_freq == 0 */
	int moe_list_len;          /* > 0: the 0/1 list form, one entry per layer */
	uint8_t moe_list[PP_MOE_LIST_MAX];
	/* multi-token prediction (Megatron's --mtp-num-layers, DeepSeek-V3's
	 * MTP module): depths after the last layer on the last stage, each an
	 * embedding, two RMSNorms, a 2h -> h projection, one layer of the last
	 * layer's kind, a norm and the output layer's logits and loss; 0: none */
	int mtp_num_layers;
	/* Gated DeltaNet linear attention (Yang et al., arXiv:2412.06464;
	 * Qwen3-Next, transformers modeling_qwen3_next.py): layer i is a
	 * linear-attention layer unless (i + 1) % linear_attn_interval == 0
	 * (the config's full_attention_interval); 0: none. Its heads: gdn_k_heads
	 * query/key heads of gdn_k_dim, gdn_v_heads value heads of gdn_v_dim
	 * (each key head shared by gdn_v_heads / gdn_k_heads value heads), a
	 * causal depthwise convolution of gdn_conv taps over q, k and v */
	int linear_attn_interval;
	int gdn_k_heads, gdn_v_heads, gdn_k_dim, gdn_v_dim, gdn_conv;
	/* the softmax attention's sigmoid output gate (Qwen3-Next's gated
	 * attention, Qiu et al. arXiv:2505.06708): q_proj also writes one gate
	 * per query element, so it is twice as wide */
	bool attn_output_gate;
} pp_model;

/* Layer kinds the step engine costs separately: MoE or dense, windowed
 * attention or full, Gated DeltaNet linear attention or softmax (a linear
 * layer is never windowed). */
enum { PP_LK_MOE = 1, PP_LK_WINDOW = 2, PP_LK_LINEAR = 4, PP_LAYER_KINDS = 8 };
/* Whether layer i (0-based) of m is an MoE layer / a linear-attention
 * layer, and its kind. */
bool pp_model_layer_moe(const pp_model *m, int i);
bool pp_model_layer_linear(const pp_model *m, int i);
int pp_model_layer_kind(const pp_model *m, int i);
/* The head size of m's (non-MLA) attention. */
int pp_model_head_dim(const pp_model *m);

/* The optional architecture keys that a preset (models.json) and a
 * scenario's model section share, with Megatron-LM's names: head_dim (or
 * kv_channels, Megatron's name), multi-head latent attention, a sliding
 * window (window_size tokens on layer i when i % window_layer_freq == 0:
 * podplan's names, Megatron has no such argument) and mixture of experts. */
#define PP_MODEL_ARCH_KEYS                                                                        \
	"head_dim", "kv_channels", "multi_latent_attention", "q_lora_rank", "kv_lora_rank",       \
		"qk_head_dim", "qk_pos_emb_head_dim", "v_head_dim", "window_size",                \
		"window_layer_freq", "num_experts", "moe_router_topk", "moe_ffn_hidden_size",     \
		"moe_shared_expert_intermediate_size", "moe_layer_freq"

/*
 * Read the PP_MODEL_ARCH_KEYS members of o (an object at JSON path path of
 * d) into m, over what m holds already (a preset's or a config.json's
 * values): a key that is absent leaves its field alone. Defaults, when a key
 * turns a feature on: multi_latent_attention true -> Megatron-Core's
 * MLATransformerConfig dataclass dims (q_lora_rank 512, kv_lora_rank 512,
 * qk_head_dim 128, qk_pos_emb_head_dim 64, v_head_dim 128; the CLI's
 * defaults differ: no query compression and kv_lora_rank 32);
 * num_experts > 0 -> moe_router_topk 2 and moe_layer_freq 1 (Megatron's),
 * moe_ffn_hidden_size = ffn_hidden_size; window_size -> window_layer_freq 1.
 * num_experts 0 or multi_latent_attention false clear their fields.
 * Errors (PP_EINPUT, file:line:col, path, found, expected): wrong types and
 * ranges, both head_dim and kv_channels, a key of a feature the model then
 * does not have (MoE keys without num_experts, MLA dims without
 * multi_latent_attention, head_dim with it, window_layer_freq without
 * window_size), a moe_layer_freq list of other than 0/1 or longer than
 * PP_MOE_LIST_MAX. Checks that involve several fields: pp_model_check.
 */
int pp_model_read_arch(const pp_jdoc *d, const cJSON *o, const char *path, pp_model *m,
		       pp_err *err);

/* Check a model as a whole: the head count divides hidden_size (unless
 * head_dim is given or attention is MLA), the query groups divide the heads
 * (MLA: no groups, num_query_groups must equal the heads), moe_router_topk
 * <= num_experts, a moe_layer_freq list has one entry per layer. Returns 0,
 * or PP_EINPUT with *key the field's name (relative: "num_query_groups")
 * and why a "found ..., expected ..." sentence. */
int pp_model_check(const pp_model *m, const char **key, char *why, size_t n);

#endif
