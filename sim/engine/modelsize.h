/*
 * modelsize.h - a model in numbers, from its architecture alone (no
 * layout, no hardware): the parameters of a layer of each kind, of the
 * whole model and of its LoRA adapters, and Narayanan et al.'s model FLOPs
 * per iteration. The workload (workload.h) splits them over the layout.
 */
#ifndef PP_MODELSIZE_H
#define PP_MODELSIZE_H

#include "input/scenario.h"

/* Model parameter count (embeddings once when tied, learned positions for
 * GPT-style models). */
double pp_model_params(const pp_model *m);

/* LoRA adapter parameters of the whole model at rank r on every linear
 * layer of every block (q, k, v, o and the MLP's), Hu et al. 2021. */
double pp_lora_params(const pp_model *m, double rank);

/* Parameters of one transformer layer (whole, before TP split): a dense
 * layer; of a kind (PP_LK_*); of a kind's top-k experts only (per token). */
double pp_layer_params(const pp_model *m);
double pp_layer_params_kind(const pp_model *m, int kind);
double pp_layer_params_active(const pp_model *m, int kind);
/* Whole-model parameters per token: the MoE layers' top-k experts and
 * shared experts, every dense and attention weight, the embeddings. */
double pp_model_params_active(const pp_model *m);

/* The routed experts of an MoE layer (whole): `experts` (all, or the
 * top-k of them) MLPs of moe_ffn_hidden_size. */
double pp_expert_params(const pp_model *m, double experts);
/* The model's layers by kind (PP_LK_*). */
void pp_model_kind_counts(const pp_model *m, int n[PP_LAYER_KINDS]);

/* Narayanan et al. SC'21 eq. 3 model FLOPs per iteration (no recompute):
 * 72 B s l h^2 (1 + s/6h + V/12lh) with B the global batch. */
double pp_flops_narayanan(const pp_model *m, double global_batch, bool recompute_full);

#endif
