/*
 * limits.h - the largest scenario podplan will simulate: every size that
 * drives the engine's memory or time, checked once the scenario is parsed
 * and before anything is allocated for it, each error naming the key, what
 * was found and the limit (file:line:col, exit status 2).
 *
 * Why these numbers (measured on the event simulation of this version: about
 * 400 bytes per pipeline task and 150 bytes per micro-batch and layer, about
 * 1 us of each; the closed-form walk that predict and search run instead
 * holds 16 to 32 bytes a task and skips the steady state): the largest published runs (GPT 1T on 3072 GPUs: 128
 * layers, 64 stages x 512 micro-batches x 2 chunks = 65,536 tasks and
 * 65,536 layer passes) sit well inside them, and the largest scenario they
 * allow is simulated in under 10 s and 1.5 GB instead of running the machine
 * out of memory (a global batch of 10^6 with PP 8 took 12.9 GB). The ideal
 * step (every FLOP at the GPU's dense peak) is bounded so that the engine's
 * times, with any efficiency and communication the catalog holds, stay far
 * inside the int64 nanosecond clock (292 years).
 */
#ifndef PP_LIMITS_H
#define PP_LIMITS_H

#include "input/scenario.h"

#define PP_LIMIT_LAYERS 16384           /* model.num_layers */
#define PP_LIMIT_HIDDEN 1048576         /* hidden_size, ffn_hidden_size, moe_ffn_hidden_size */
#define PP_LIMIT_SEQ 16777216           /* seq_length, tokens */
#define PP_LIMIT_VOCAB 16777216         /* vocab_size */
#define PP_LIMIT_EXPERTS 16384          /* num_experts */
#define PP_LIMIT_GLOBAL_BATCH 16777216  /* training.global_batch_size, sequences */
/* stages x model chunks x micro-batches of one step: what the closed-form
 * walk (engine/fastpath.h) holds, two or four int64 a task (64 to 128 MiB) */
#define PP_LIMIT_PIPELINE_TASKS 4194304
/* ... and what the event simulation holds (a trace, or a walk that stalls):
 * about 400 bytes a task */
#define PP_LIMIT_EVENT_TASKS 524288
/* micro-batches x layers: every layer's events of every micro-batch */
#define PP_LIMIT_LAYER_PASSES 8388608
/* seconds of one step with every FLOP at the dense peak (116 days) */
#define PP_LIMIT_IDEAL_STEP_S 1e7

/* The number of pipeline tasks of a layout (pipeline stages x chunks x
 * micro-batches per step, each chunk half of them under DualPipe), as a
 * double (no overflow). */
double pp_limit_pipeline_tasks(const pp_training *t, const pp_parallel *p);

/* The FLOPs of one training step of s, estimated from the shapes alone
 * (6 flops per parameter and token for the active parameters, 12 L s h per
 * token for attention, 8 instead of 6 with full recompute): for the limit
 * only, the engine computes its own. */
double pp_limit_step_flop(const pp_scenario *s);

/* 0, or PP_EINPUT naming the first size over its limit (pp_jdoc_errf on
 * s->doc). Called at the end of pp_scenario_parse, once the layout is
 * derived. */
int pp_scenario_check_limits(const pp_scenario *s, pp_err *err);

#endif
