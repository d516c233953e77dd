/*
 * space.h - the training layouts `podplan search` and `podplan size` may
 * run (plan/search.h searches them): every tensor, pipeline, data and
 * context parallel size, ZeRO stage, micro-batch size, interleaving
 * depth, sequence parallelism, recompute mode and expert parallel size
 * the scenario's `parallel` and `training` sections left out (given keys
 * stay fixed) that pp_layout_check() accepts on its cluster, and a layout
 * set into a scenario.
 *
 * The values: TP, CP and PP each a divisor of the GPU count (TP dividing
 * the attention heads and the FFN width, and the query groups or they
 * it; CP with the sequence a multiple of 2 CP; PP at most the layers),
 * DP the GPUs left, dividing the global batch; micro-batch sizes the
 * divisors of the batch per data-parallel rank; interleaving 1 and every
 * depth up to 64 that splits the layers evenly into PP x depth chunks with
 * the micro-batch count a multiple of PP; expert parallel sizes the
 * divisors of the expert count whose grid the stage's ranks hold.
 * Enumerated TP, CP, PP (DP follows), then micro-batch, interleaving, SP,
 * ZeRO, recompute and EP, the last fastest: a TP x CP x PP x DP group is
 * contiguous and its micro-batch sizes ascend (search.c prunes on both).
 *
 * Equivalent layouts are enumerated once: ZeRO stages 1-3 only when
 * data x context parallelism > 1 (otherwise they equal ZeRO-0), SP only
 * with TP > 1, and, with flash attention, selective recompute is left out
 * when recompute is searched (flash attention keeps no attention scores,
 * so selective recompute equals none in time and memory).
 */
#ifndef PP_SPACE_H
#define PP_SPACE_H

#include "input/scenario.h"
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One candidate layout. */
typedef struct pp_layout {
	int tp, pp, dp, cp, vpp;
	int zero_stage;
	bool sp;
	pp_schedule schedule;
	pp_recompute recompute;
	int64_t micro_batch_size;
	int ep;                    /* expert_model_parallel_size (1: dense, or not split) */
} pp_layout;

/* Called with each valid layout of the space as the enumeration finds it
 * and its index in enumeration order; l is valid during the call only. */
typedef void (*pp_space_emit_fn)(void *ctx, const pp_layout *l, uint32_t idx);

/* The pipeline schedules s's space holds for pipelines (pp > 1), as a
 * mask of 1 << pp_schedule: search.pipeline_schedules when given (GPipe
 * too, where it names it); else those the framework ships
 * (frameworks.json pipeline_schedules, s->training.stack.schedules; any
 * where it states none), GPipe left out. Depth 1 holds 1F1B, GPipe, ZB-H1
 * and ZB-H2; deeper interleaved 1F1B (from pp micro-batches on); depth 2
 * ZB-V and DualPipeV (even layouts only). */
unsigned pp_space_schedules(const pp_scenario *s);

/* Stream s's space: every valid layout to emit(ctx, ...), in enumeration
 * order, none kept; *n gets the count and, when space is not NULL,
 * space[nspace] the space in words ("TP {1,2,4,8}, PP ..."). PP_EINPUT
 * (with why and the nearest batches a data-parallel size divides) when
 * no layout is valid, or when the space has more than 50 million layouts
 * (with the keys to fix). */
int pp_space_walk(const pp_scenario *s, pp_space_emit_fn emit, void *ctx, size_t *n,
		  char *space, size_t nspace, pp_err *err);

/* The layouts of s's space in enumeration order (*out heap-allocated,
 * caller frees) and, in space[nspace], the space in words; errors as
 * pp_space_walk. */
int pp_space_enumerate(const pp_scenario *s, pp_layout **out, size_t *n, char *space,
		       size_t nspace, pp_err *err);

/* Set s's layout keys (parallel sizes, ZeRO, SP, schedule, micro-batch,
 * recompute, EP) to l and derive the micro-batch count. */
void pp_layout_apply(pp_scenario *s, const pp_layout *l);

/* "TP 8 x PP 16 x DP 40 x CP 1, interleaved x2, micro-batch 1, ZeRO-1,
 * SP, recompute selective" into buf[n]; returns buf. */
const char *pp_layout_str(const pp_layout *l, char *buf, size_t n);
/* "TP8 PP16 DP40 CP1 v2 mb1 ZeRO-1 SP selective" (the schedule "-"
 * without a pipeline, "vN" interleaved, else its name; " EPn" after CP
 * where EP > 1) for tables; returns buf. */
const char *pp_layout_short(const pp_layout *l, char *buf, size_t n);
/* The layout's keys, as the scenario's parallel and training sections
 * name them, added to object o; mbs_count is its micro-batch count. */
void pp_layout_json(cJSON *o, const pp_layout *l, int64_t mbs_count);

#endif
