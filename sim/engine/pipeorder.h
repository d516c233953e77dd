/*
 * pipeorder.h - the order in which each pipeline stage runs its units
 * (the forward or the backward of one model chunk for one micro-batch):
 * GPipe (every forward, then every backward in reverse), 1F1B (warm-up
 * forwards, one forward one backward, cool-down backwards) and Megatron-
 * LM's interleaved 1F1B (forward_backward_pipelining_with_interleaving).
 * It reads the pipeline's shape only; the program (program.h) issues the
 * units in this order and the fast path's bounds walk it.
 */
#ifndef PP_PIPEORDER_H
#define PP_PIPEORDER_H

#include "input/scenario.h"

#include <stdbool.h>

/* What the order of a stage's units reads: the pipeline's shape. */
typedef struct pp_pipe {
	int pp;               /* pipeline stages */
	int vpp;              /* model chunks per stage (1 unless interleaved) */
	pp_schedule schedule;
	int m;                /* micro-batches per step */
} pp_pipe;
/* s's pipeline shape (parallel.pp, vpp, schedule; num_microbatches). */
pp_pipe pp_pipe_of(const pp_scenario *s);

/* The order of (forward?, chunk, micro-batch) units a stage runs; returns
 * the count (2 x micro-batches x chunks). out must hold that many. */
typedef struct pp_unit {
	bool fwd;
	int chunk;
	int mb;
} pp_unit;
int pp_schedule_order(const pp_pipe *pl, int stage, pp_unit *out);
/* The same one unit at a time, in O(1) memory: the count, and unit i. */
int pp_schedule_count(const pp_pipe *pl);
pp_unit pp_schedule_unit(const pp_pipe *pl, int stage, int i);

#endif
