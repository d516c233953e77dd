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

/* A Gated DeltaNet layer's token mixer (whole, before the TP split), as
 * transformers' Qwen3NextGatedDeltaNet holds it: in_proj_qkvz (h to q, k
 * of gdn_k_heads x gdn_k_dim each, v and the output gate z of gdn_v_heads x
 * gdn_v_dim each), in_proj_ba (h to a beta and a decay input per value
 * head), the depthwise causal conv1d over q, k, v (gdn_conv taps, no bias),
 * A_log and dt_bias (one per value head), the gated RMSNorm's weight
 * (gdn_v_dim, shared by the heads) and out_proj (values to h). */
double pp_gdn_params(const pp_model *m);

/* The chunked gated delta rule's FLOPs for `tokens` tokens of one value
 * head (dk-wide keys, dv-wide values: a model's gdn_k_dim, gdn_v_dim), forward and
 * backward, as flash-linear-attention's chunk kernels execute them in chunks
 * of PP_GDN_CHUNK tokens (fla/ops/gated_delta_rule/chunk.py,
 * chunk_gated_delta_rule_fwd / _bwd; Yang et al. arXiv:2412.06464 Sec. 3.3,
 * the WY representation of Sec. 3.2). Per chunk of C tokens, dk x dv state,
 * in multiply-adds (2 FLOPs each):
 *   forward: beta K K^T (C C dk; chunk_scaled_dot_kkt_fwd), its triangular
 *   inverse (C^3 / 6 multiply-adds; solve_tril), w = A (beta exp(g) K) and
 *   u = A (beta V) (C C dk, C C dv; recompute_w_u_fwd), the state pass
 *   v' = u - w S and S += K^T v' (2 C dk dv; chunk_gated_delta_rule_fwd_h),
 *   the output Q S + (Q K^T masked) v' (C dk dv + C C dk + C C dv;
 *   chunk_fwd_o): per token 6 dk dv + 6 C dk + 4 C dv + C^2 / 3;
 *   backward: the recompute of w, u and the states (2 C dk dv + C C dk +
 *   C C dv), the local dv (C C dk + C C dv; chunk_bwd_dv_local), the states'
 *   gradients (3 C dk dv; chunk_gated_delta_rule_bwd_dhu), dq, dk, dw
 *   (3 C dk dv + 2 C C dk + C C dv; chunk_bwd_dqkwg), the WY form's
 *   backward (4 C C dk + 2 C C dv + 2 C^3; prepare_wy_repr_bwd): per token
 *   16 dk dv + 16 C dk + 10 C dv + 4 C^2.
 * The backward is podplan's reading of the kernels' products, an estimate
 * to within the small C x C terms. */
#define PP_GDN_CHUNK 64
double pp_gdn_core_flops(double dk, double dv, double tokens, bool bwd);

/* The routed experts of an MoE layer (whole): `experts` (all, or the
 * top-k of them) MLPs of moe_ffn_hidden_size. */
double pp_expert_params(const pp_model *m, double experts);
/* The model's layers by kind (PP_LK_*). */
void pp_model_kind_counts(const pp_model *m, int n[PP_LAYER_KINDS]);

/* Narayanan et al. SC'21 eq. 3 model FLOPs per iteration (no recompute):
 * 72 B s l h^2 (1 + s/6h + V/12lh) with B the global batch. */
double pp_flops_narayanan(const pp_model *m, double global_batch, bool recompute_full);

#endif
