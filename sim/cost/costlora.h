/*
 * costlora.h - LoRA and QLoRA fine-tunes priced from the engine's
 * prediction of a full fine-tune: a stand-in until the step-time engine
 * models frozen weights and adapters itself. Private to sim/cost/; it
 * includes only public headers, costopt.c calls it from one place
 * (run_engine()). To swap it for the engine's model: have the engine
 * predict the adapter method and delete that call; the fields listed at
 * cost_adapter_result() are the ones the engine's pp_result must then
 * carry for the method.
 *
 * What it assumes, none of it the engine's models:
 *  - step: the base is frozen, so it has no weight gradients; with full
 *    recompute a token costs forward + recomputed forward + input-gradient
 *    backward = 6N of the 8N FLOPs of a full fine-tune (Dettmers et al.
 *    2023; Korthikanti et al. 2022): compute and the pipeline bubble scale
 *    by 0.75, and by 1 + qlora_dequant_fraction more for QLoRA; DP gradient
 *    traffic and the optimizer step scale by adapter / base parameters;
 *    TP and PP communication and data loading are unchanged.
 *  - memory per GPU: base weights at 2 bytes (LoRA, bf16) or
 *    qlora_bits_per_param / 8 bytes (QLoRA) a parameter, plus the adapters
 *    at adapter_bytes_per_param (weights, gradients, Adam state), both
 *    split over TP x PP; plus the full fine-tune's activations,
 *    temporaries and fragmentation.
 *  - checkpoint: the adapters only, written at the full checkpoint's rate.
 */
#ifndef PP_COSTLORA_H
#define PP_COSTLORA_H

#include "engine/predict.h"
#include "input/scenario.h"

/* tco.json's qlora.* figures. */
typedef struct cost_adapter_figs {
	double lora_rank;               /* rank of the adapters */
	double qlora_bits_per_param;    /* quantised base weights (NF4: 4) */
	double adapter_bytes_per_param; /* adapter weights + gradients + Adam state */
	double qlora_dequant_fraction;  /* QLoRA's extra compute for dequantising, fraction */
} cost_adapter_figs;

/* LoRA adapter parameters at rank `rank` on every linear layer of m
 * (Q, K, V, O and the MLP's matrices; Hu et al. 2021): r x (in + out)
 * each. */
double cost_lora_params(const pp_model *m, double rank);

/* Turn res, the engine's prediction of a full fine-tune of s with full
 * recompute (the caller sets s->training.recompute = PP_RC_FULL before
 * predicting), into a prediction of method (PP_FT_LORA or PP_FT_QLORA).
 * In: s->model and s->parallel.tp/pp; params, the base model's parameter
 * count; f; and of res: step_time_s, breakdown, tokens_per_step,
 * memory.{activations,temp,fragmentation,capacity}_bytes,
 * checkpoint_bytes, checkpoint_write_s. Out, rewritten in res:
 * step_time_s, breakdown (its parts still add up to step_time_s),
 * tokens_per_s, memory.total_bytes, memory.fits, checkpoint_bytes,
 * checkpoint_write_s. Every other field (mfu, params_total, ...) stays the
 * full fine-tune's. */
void cost_adapter_result(const pp_scenario *s, int method, double params,
			 const cost_adapter_figs *f, pp_result *res);

#endif
