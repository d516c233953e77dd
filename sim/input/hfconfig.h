/*
 * hfconfig.h - a Hugging Face config.json as a pp_model (scenario key
 * model.hf_config).
 *
 * Families read (model_type): the dense decoders (llama, mistral, qwen2,
 * qwen3, phi3, gemma, gemma2, olmo2, granite, and any other model_type that
 * sticks to their keys), gpt2 (its own names: n_embd, n_layer, ...), mixtral,
 * qwen2_moe, qwen3_moe, qwen3_next (Gated DeltaNet layers between gated
 * attention ones: full_attention_interval, linear_*), deepseek_v2,
 * deepseek_v3, glm4_moe, gpt_oss and llama4
 * (its text_config; hfllama4.c: MoE interleave, a shared expert, chunked
 * attention up to one chunk). The fields
 * map to Megatron-LM's names as NVIDIA's Megatron-MoE-ModelZoo converts them
 * (num_local_experts / num_experts / n_routed_experts -> num_experts,
 * num_experts_per_tok -> moe_router_topk, moe_intermediate_size (Mixtral,
 * gpt-oss: intermediate_size) -> moe_ffn_hidden_size, ...), and each
 * family's layer rule becomes podplan's moe_layer_freq (the integer form
 * where it says the same, else the 0/1 list):
 *   Qwen2/3-MoE: layer i is MoE iff i is not in mlp_only_layers and
 *                (i + 1) % decoder_sparse_step == 0 (transformers'
 *                modeling_qwen2_moe.py / modeling_qwen3_moe.py);
 *   DeepSeek:    iff i >= first_k_dense_replace and i % moe_layer_freq == 0
 *                (vLLM deepseek_v2.py _is_moe_layer).
 * A sliding window becomes window_size / window_layer_freq (layer i windowed
 * when i % freq == 0) where the family's rule says one podplan can express:
 * every layer (Mistral, Mixtral; Qwen with use_sliding_window and
 * max_window_layers 0), even layers (gpt-oss, or any layer_types list that
 * alternates from a sliding layer 0), none.
 *
 * Strict by design: every key of the file must be one podplan reads, or one
 * listed as having no effect on a training step's compute, memory or
 * communication (token ids, initialisation, norm epsilons, RoPE bases and
 * scaling, router loss coefficients and routing constraints, the release's
 * weight format). Anything else - an unknown key, a key of another family, a
 * feature podplan does not model (DeepSeek-V3's multi-token prediction, a
 * sliding window on only some layers, a layer type other than full or
 * sliding attention), dropout at a rate podplan does not cost - is an error
 * naming the key, never ignored. One table in hfkeys.c holds every key
 * with its families and what podplan does with it (pp_hfconfig_accepted,
 * `podplan import --mapping hf`).
 */
#ifndef PP_HFCONFIG_H
#define PP_HFCONFIG_H

#include "input/catalog.h"
#include "core/jdoc.h"
#include "core/util.h"
#include <stdbool.h>

/*
 * Fill m's architecture from the parsed config.json hf (m is overwritten;
 * id and name are the caller's). drop_mtp: the scenario trains without the
 * multi-token-prediction module (model.mtp_num_layers 0), so a config with
 * num_nextn_predict_layers > 0 imports without it; otherwise such a config
 * is refused. Returns 0, or PP_EINPUT with "FILE:LINE:COL: KEY: found ...,
 * expected ..." about the config file.
 */
int pp_hfconfig_read(pp_model *m, const pp_jdoc *hf, bool drop_mtp, pp_err *err);

/* The table of every key a config may carry (Markdown: key, families, what
 * podplan does with it - read, or accepted with the reason it cannot change
 * a training step or a serving iteration); a key not in it is refused. */
void pp_hfconfig_accepted(pp_sb *out);

#endif
