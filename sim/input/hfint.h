/*
 * hfint.h - private to the Hugging Face config readers: hfconfig.c (the
 * families of one flat config and the table of their keys) and the
 * readers of a family of its own (hfllama4.c).
 */
#ifndef PP_HFINT_H
#define PP_HFINT_H

#include "input/hfconfig.h"

#include <stdbool.h>

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
