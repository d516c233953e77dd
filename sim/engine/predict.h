/*
 * predict.h - one training step of a scenario, simulated: step time, its
 * breakdown, throughput, MFU/HFU and memory per GPU.
 *
 * Data flow: pp_scenario + pp_hw -> workload (per-layer op costs) ->
 * schedule (the event graph of one step over the distinct ranks) ->
 * discrete-event simulation -> pp_result. Nothing here reads files.
 */
#ifndef PP_PREDICT_H
#define PP_PREDICT_H

#include "input/hw.h"
#include "input/scenario.h"
#include "engine/workload.h"
#include "core/util.h"
#include <stdbool.h>

/* Where the step's time went, on the critical path of the slowest rank:
 * these add up to step_time_s (within rounding). */
typedef struct pp_breakdown {
	double compute_s;           /* GEMMs, attention, memory-bound kernels (recompute included) */
	double tp_comm_exposed_s;   /* tensor/sequence/context-parallel collectives not hidden */
	double ep_comm_exposed_s;   /* expert-parallel dispatch and combine not hidden (MoE) */
	double dp_comm_exposed_s;   /* data-parallel / ZeRO collectives not hidden by backward */
	double pp_bubble_s;         /* pipeline fill and drain */
	double pp_comm_exposed_s;   /* stage-to-stage send/recv not hidden */
	double optimizer_s;         /* optimizer step (and gradient clipping) */
	double data_s;              /* data loading not hidden by the previous step */
} pp_breakdown;

typedef struct pp_memory {
	double weights_bytes;
	double grads_bytes;
	double optimizer_bytes;
	double activations_bytes;   /* peak in-flight activations of the schedule */
	double temp_bytes;          /* communication buckets, gathered ZeRO-3 params, logits, workspace */
	double fragmentation_bytes;
	double total_bytes;
	double capacity_bytes;
	bool fits;
	int worst_stage;            /* the pipeline stage that needs the most */
	/* the step's phase at that peak where the memory is the eager model's
	 * (engine/memeager.h: "the loss", ...); "" where every term is summed */
	char peak_phase[40];
} pp_memory;

typedef struct pp_result {
	double step_time_s;
	double tokens_per_step;
	double tokens_per_s;
	double model_flops_per_step;      /* fwd+bwd, no recompute (MFU numerator) */
	double hw_flops_per_step;         /* with recompute (HFU numerator) */
	double mfu, hfu;                  /* vs dense peak of the training precision */
	double model_tflops_per_gpu;      /* model flops / step / GPU, TFLOP/s */
	double hw_tflops_per_gpu;
	/* the FLOPs the kernels execute: causal attention as a flash kernel
	 * runs it (the masked half skipped; an unfused core computes every
	 * score), recomputation included; over the dense peak of the training
	 * precision (MFU/HFU keep Megatron's count, attention at the full s x s
	 * score matrix: PP_MFU_CONVENTION) */
	double exec_flops_per_step;
	double exec_util;
	double exec_tflops_per_gpu;
	double steps_to_train;            /* 0 when train_tokens is not given */
	double time_to_train_s;
	pp_breakdown breakdown;
	/* of breakdown.tp_comm_exposed_s, the context-parallel exchange (the
	 * K/V ring or all-gather, context_parallel_comm); the rest is tensor
	 * parallelism's */
	double cp_comm_exposed_s;
	pp_memory memory;
	char bottleneck[96];              /* the largest non-compute term, in words */
	double params_total;              /* model parameters */
	double params_trainable;          /* of those trained (the adapters, fine-tuning) */
	double params_active;             /* per token: an MoE layer's top-k and shared experts */
	double checkpoint_bytes;          /* full checkpoint: weights + optimizer state */
	double checkpoint_write_s;        /* at the cluster's storage write bandwidth */
	int64_t events;                   /* simulated events */
} pp_result;

/* The convention of pp_result.mfu and .hfu, as predict prints it. */
#define PP_MFU_CONVENTION                                                                          \
	"Megatron's (Narayanan et al. SC'21 eq. 3): model FLOPs with attention at the full s x s "  \
	"score matrix, no recomputation (HFU adds it), over the dense peak of the training precision"

typedef struct pp_trace pp_trace;

typedef struct pp_predict_opts {
	pp_trace *trace;                  /* when non-NULL, every task is recorded */
	/* when non-NULL, the per-rank action timeline (timeline.h) is written
	 * to it; both run the event simulation */
	pp_sb *timeline;
} pp_predict_opts;

/* Simulate one step. Returns PP_EINPUT for a layout the engine cannot
 * simulate (the scenario loader rejects those first). */
int pp_predict(const pp_scenario *s, const pp_hw *hw, const pp_predict_opts *opts,
	       pp_result *out, pp_err *err);

#endif
