/*
 * memory.h - device memory per GPU for every pipeline stage: weights,
 * gradients and optimizer states per ZeRO stage, activations per recompute
 * mode and pipeline schedule, temporary buffers, fragmentation margin.
 *
 * Activations follow Korthikanti et al. 2022 (arXiv:2205.05198) Sec. 4,
 * generalised to grouped-query attention and SwiGLU: per layer
 *   replicated part  s b h (10 + ...)           (/t with sequence parallelism)
 *   TP-split part    s b h (24 ...) / t          (Q,K,V, projections, MLP)
 *   attention core   5 a s^2 b / t               (none with flash attention)
 * so for a GPT layer without recompute: s b h (10 + 24/t + 5as/ht) bytes,
 * with SP: s b h/t (34 + 5as/h); selective: the core term dropped; full:
 * 2 s b h (/t with SP) per layer plus one layer's worth during its backward.
 * In-flight micro-batches per stage: pp_stage_inflight_chunks (stages.h).
 * DeepSeek-V3's measures (training.recompute_modules layernorm, mla_up_proj,
 * moe_act; fp8_activation_cache; report Sec. 3.2.3, 3.3.2) drop the
 * recomputed outputs and keep linear inputs in a byte; exp_avg_dtype and
 * exp_avg_sq_dtype size Adam's moments.
 *
 * Weights/gradients/optimizer (bytes per parameter): Megatron mixed
 * precision 2 + 4 + 12 (fp32 main grads, master, Adam m and v), its
 * distributed optimizer (ZeRO-1) 2 + 4 + 12/d; ZeRO-2 2 + (2 + 12)/d and
 * ZeRO-3 (2 + 2 + 12)/d (Rajbhandari et al. SC'20 Sec. 5), d = data x
 * context parallel size.
 */
#ifndef PP_MEMORY_H
#define PP_MEMORY_H

#include "engine/predict.h"
#include "engine/stages.h"   /* the partition a stage's memory is of */
#include "engine/workload.h"

/* Activation bytes of one transformer layer for one micro-batch on one GPU
 * (what is kept for its backward under the scenario's recompute mode). */
double pp_layer_activation_bytes(const pp_scenario *s);
/* The same for a layer of kind (PP_LK_*): an MoE layer keeps its experts'
 * token rows instead of the dense MLP's. */
double pp_layer_activation_bytes_kind(const pp_scenario *s, int kind);

/* Fill *out for the worst stage (and out->worst_stage). */
void pp_memory_estimate(const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
			pp_memory *out);

#endif
