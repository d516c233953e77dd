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
#include <stdint.h>

/* What the order of a stage's units reads: the pipeline's shape. */
typedef struct pp_pipe {
	int pp;               /* pipeline stages */
	int vpp;              /* model chunks per stage (1 unless interleaved) */
	pp_schedule schedule;
	int m;                /* micro-batches per step */
} pp_pipe;
/* s's pipeline shape (parallel.pp, vpp, schedule; num_microbatches). */
static inline pp_pipe pp_pipe_of(const pp_scenario *s)
{
	return (pp_pipe){s->parallel.pp, s->parallel.vpp, s->parallel.schedule,
			 (int)s->training.num_microbatches};
}

/* The order of (forward?, chunk, micro-batch) units a stage runs; returns
 * the count (2 x micro-batches x chunks). out must hold that many. */
/* act: the whole pass (a forward, or a full backward), or of a backward
 * split as the zero-bubble schedules split it, its input-gradient part
 * (PP_ACT_I, PyTorch's BACKWARD_INPUT) or its weight-gradient part
 * (PP_ACT_W, BACKWARD_WEIGHT). pair: a forward that runs overlapped with
 * the backward after it (PyTorch's OVERLAP_F_B; the engine issues the two
 * back to back on the compute stream). */
enum { PP_ACT_WHOLE = 0, PP_ACT_I = 1, PP_ACT_W = 2 };
typedef struct pp_unit {
	bool fwd;
	int chunk;
	int mb;
	uint8_t act;
	bool pair;
} pp_unit;
int pp_schedule_order(const pp_pipe *pl, int stage, pp_unit *out);
/* The same one unit at a time, in O(1) memory: the count, and unit i.
 * For a listed schedule (pp_pipe_listed) the count is the most units any
 * stage runs (pp_pipe_list gives each stage's) and unit i costs O(units). */
int pp_schedule_count(const pp_pipe *pl);
pp_unit pp_schedule_unit(const pp_pipe *pl, int stage, int i);

/* ---- the schedules written as per-rank action lists (pipelist.c) ----
 * ZB-H1, ZB-H2, ZB-V, DualPipeV and DualPipe: each rank's list of
 * actions (forward, input gradient, weight gradient, full backward, a
 * forward overlapped with a backward), as PyTorch's
 * torch.distributed.pipelining builds them (_Action lists; DualPipe as
 * deepseek-ai/DualPipe dualpipe.py's step() runs them); the sends and
 * receives follow from the placement (pp_pipe_vs): each action whose
 * output another rank reads sends it after it, and the reader waits for
 * it. Under DualPipe a unit's micro-batch numbers the direction: chunk 0
 * runs micro-batches 0 .. m/2 - 1 (fed at rank 0), chunk 1 m/2 .. m - 1
 * (fed at rank pp - 1). */

/* Whether the schedule is such a list (not 1F1B, GPipe, or interleaved
 * with micro-batches the stages divide: those walk pp_pipe_unit_at's
 * digits). Interleaved with micro-batches the stages do not divide is
 * listed. */
bool pp_pipe_listed(const pp_pipe *pl);
/* The interleaved schedule's group: micro-batches run chunk by chunk N at
 * a time (Megatron-Core's microbatch_group_size_per_vp_stage): pp if it
 * divides the micro-batches, else the least N in [pp, m] whose last group
 * (m mod N) is 0 or at least pp, as Megatron-Core requires. */
int pp_pipe_group(const pp_pipe *pl);
/* The virtual stage (the model's order of chunks) of chunk `chunk` on
 * stage st: chunk x pp + st, or in a V (ZB-V, DualPipeV) st for chunk 0
 * and 2 pp - 1 - st for chunk 1; DualPipe: the model's stage st of the
 * forward direction for chunk 0, pp - 1 - st of the reverse one for
 * chunk 1 (pp virtual stages, each on two ranks; a micro-batch runs
 * through one direction's, its chunk's). */
static inline int pp_pipe_vs(const pp_pipe *pl, int st, int chunk)
{
	if (pp_schedule_vshape(pl->schedule))
		return chunk == 0 ? st : 2 * pl->pp - 1 - st;
	if (pp_schedule_two_ended(pl->schedule))
		return chunk == 0 ? st : pl->pp - 1 - st;
	return chunk * pl->pp + st;
}
/* The stage that holds virtual stage vs for the micro-batches of chunk
 * `chunk` (read under DualPipe only, where each direction has its own
 * ranks). (Both inline: the program and the bounds ask them for every
 * unit they walk.) */
static inline int pp_pipe_stage_of(const pp_pipe *pl, int vs, int chunk)
{
	if (pp_schedule_vshape(pl->schedule))
		return vs < pl->pp ? vs : 2 * pl->pp - 1 - vs;
	if (pp_schedule_two_ended(pl->schedule))
		return chunk == 0 ? vs : pl->pp - 1 - vs;
	return vs % pl->pp;
}
/* The micro-batches each chunk of a stage runs: all of them, but half
 * under DualPipe (each direction's). */
static inline int pp_pipe_chunk_mbs(const pp_pipe *pl)
{
	return pp_schedule_two_ended(pl->schedule) ? pl->m / 2 : pl->m;
}
/* Stage st's actions of a listed schedule into out (NULL: count only;
 * else at least pp_pipe_list_cap entries); returns the count. */
int pp_pipe_list(const pp_pipe *pl, int st, pp_unit *out);
int pp_pipe_list_cap(const pp_pipe *pl);
/* The most chunk activations stage st holds at once in its order: the
 * forwards run less the backwards (full or input-gradient) that freed
 * theirs, at its peak. Any schedule. */
int pp_pipe_peak_inflight(const pp_pipe *pl, int st);
/* The action's name as PyTorch's _Action prints it: "F", "I", "W", "B"
 * (full backward). */
const char *pp_unit_name(pp_unit u);

#endif
