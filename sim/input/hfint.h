/*
 * hfint.h - private to the Hugging Face config reader's files (as SQLite's
 * vdbeInt.h is the VDBE's): hfconfig.c (the architecture read from the
 * config) and hfkeys.c (the table of every key a config may carry and the
 * check of a config's keys against it), and the readers of a family of its
 * own (hfllama4.c; hflayers.c, the dense/MoE layer rule they share). The
 * public contract is hfconfig.h.
 */
#ifndef PP_HFINT_H
#define PP_HFINT_H

#include "input/hfconfig.h"

#include <stdbool.h>

/* The families of configs (model_type), each with its own keys and layer
 * rule: the dense decoders; Mixtral; Qwen2/3-MoE; DeepSeek-V2/V3 and Kimi
 * K2; gpt-oss; GPT-2 (its own names); GLM-4.5 (DeepSeek's expert layout
 * without MLA); Qwen3-Next (Qwen3-MoE's experts, Gated DeltaNet layers
 * between gated-attention ones). At most 8 (a key's family bits). */
typedef enum pp_hf_fam {
	F_DENSE, F_MIXTRAL, F_QWEN_MOE, F_DEEPSEEK, F_GPT_OSS, F_GPT2, F_GLM, F_QWEN_NEXT, F_COUNT
} pp_hf_fam;

/* Every key of the config hf (model_type mt, family f) is one the family
 * reads or one known to leave a step unchanged, and none is a refused
 * architecture's (checked first, so the message names the feature). 0, or
 * PP_EINPUT with "FILE:LINE:COL: KEY: found ..., expected ...". */
int pp_hf_check_keys(const pp_jdoc *hf, pp_hf_fam f, const char *mt, pp_err *err);

/* Layer i is MoE iff moe[i] (i < m->num_layers): podplan's integer
 * moe_layer_freq where it says the same (i % N == 0), else the 0/1 list;
 * no MoE layer at all makes m dense. PP_EINPUT about hf's
 * num_hidden_layers when the list is longer than podplan keeps. */
int pp_hf_set_layers(const pp_jdoc *hf, pp_model *m, const bool *moe, pp_err *err);

/* Llama 4 (model_type llama4, or llama4_text on its own): m from hf, as
 * pp_hfconfig_read; its keys' rows of the mapping table. */
int pp_hfllama4_read(pp_model *m, const pp_jdoc *hf, pp_err *err);
void pp_hfllama4_accepted(pp_sb *out);

#endif
