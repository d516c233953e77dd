/*
 * program.h - the tasks of one training step, in the order each pipeline
 * stage issues them, written once and run by two backends: the event graph
 * (evgraph.c builds a des.h graph from them) and the closed-form fast path
 * (fastpath.c computes each task's end as it is issued).
 *
 * One simulated GPU per pipeline stage (its tensor-, context- and
 * data-parallel peers behave alike), with a compute stream, a data-parallel
 * communication stream, one link per direction per stage boundary, the
 * embedding group and storage. Per stage the units (forward or backward of
 * one model chunk for one micro-batch) follow the pipeline schedule
 * (GPipe, 1F1B, Megatron's interleaved 1F1B); a unit issues one task per
 * layer (and for the embedding and the head). Data parallelism adds
 * bucketed gradient reduction overlapped with the last micro-batch's
 * backward (Megatron --overlap-grad-reduce), the distributed optimizer's
 * parameter all-gather, ZeRO-3's per-layer all-gather (prefetched one task
 * ahead) and reduce-scatter, the tied-embedding all-reduce and the
 * optimizer. Every duration and payload comes from stepcost.h.
 *
 * Semantics every backend implements: a task on a resource starts when the
 * resource has finished the task issued on it before (streams are in
 * order; each link has one sending stage, so it serves in that stage's
 * order too) and every task it depends on has ended. A handle names an
 * issued task: a task id for the event graph, the task's end (ns) for the
 * fast path; -1 is no task.
 *
 * Driving: pp_program_unit(p, st) issues stage st's next unit. A unit whose
 * input (the activation or gradient from a neighbouring stage) was not yet
 * issued can still be issued by a backend that takes dependencies later
 * (sink.dep); the fast path instead issues a unit only when
 * pp_program_ready() says its input is there.
 *
 * Files (sharing the private programint.h): pipeorder.c (the order of a
 * stage's units), program.c (issuing the units), progoptim.c (the
 * optimizer's side: the gathers before the first unit, what follows the
 * last), progbusy.c (a unit's busy time), progbound.c (lower bounds from
 * the program's structure), progsteady.c (the steady state).
 */
#ifndef PP_PROGRAM_H
#define PP_PROGRAM_H

#include "engine/des.h"
#include "engine/pipeorder.h"
#include "engine/stepcost.h"

/* Task categories (pp_des_tag.cat). */
enum {
	PP_CAT_FWD,
	PP_CAT_BWD,
	PP_CAT_P2P_FWD,
	PP_CAT_P2P_BWD,
	PP_CAT_GRAD_REDUCE,
	PP_CAT_PARAM_GATHER,
	PP_CAT_EMBED_ALLREDUCE,
	PP_CAT_OPTIMIZER,
	PP_CAT_DATA,
	PP_CAT_COUNT
};
extern const char *const pp_cat_names[PP_CAT_COUNT];

/* Layer index tags for the embedding and head tasks. */
#define PP_LAYER_EMBED (-2)
#define PP_LAYER_HEAD (-3)

/* What a backend provides. */
typedef struct pp_sink {
	void *ctx;
	/* a resource (in_order: a stream; else a FIFO link); returns its index */
	int (*resource)(void *ctx, const char *name, int rank, bool in_order);
	/* issue a task on res after deps (handles; -1 entries are ignored);
	 * returns its handle */
	int64_t (*task)(void *ctx, int res, int64_t dur_ns, const pp_des_tag *tag, const int64_t *deps,
			int ndeps);
	/* task also waits for pred (both issued); NULL when the backend never
	 * issues a unit before its input */
	void (*dep)(void *ctx, int64_t task, int64_t pred);
	/* true: a unit's layer tasks that nothing else waits on between them
	 * may come as one task of their summed duration (the same ends on an
	 * in-order stream); the event graph keeps one task a layer */
	bool coalesce;
	/* true: the backend never reads resource names (they come as "") */
	bool nameless;
	/* true: pp_program_finish will get no busy array, so the per-unit
	 * busy accounting is left out (it enters no task's time) */
	bool no_busy;
} pp_sink;

/* Per stage, for the breakdown: unstretched busy seconds and the handle of
 * the stage's optimizer, its last compute-stream task. */
typedef struct pp_stage_busy {
	double compute_s;  /* kernels */
	double tp_s;       /* blocking TP/CP collectives */
	double cp_s;       /* of tp_s, the context-parallel exchange */
	double ep_s;       /* blocking expert-parallel collectives */
	double opt_s;      /* optimizer */
	int64_t last_task;
} pp_stage_busy;

/* The order of each stage's units: pipeorder.h. */

typedef struct pp_program pp_program;

/* Start the step: create the resources through sink. c must outlive p. */
pp_program *pp_program_new(const pp_stepcost *c, const pp_sink *sink);
void pp_program_free(pp_program *p);

/* The sum of the durations (ns) of the distributed optimizer's parameter
 * gathers that stage st issues when the step starts (overlap_param_gather:
 * on its data-parallel stream, back to back, before any gradient reduce of
 * the stage); 0 when the step has none there. For the fast path's bound. */
int64_t pp_program_start_gathers_ns(const pp_stepcost *c, int st);

/* One chunk, 1F1B (not GPipe), at least as many micro-batches as stages:
 * a lower bound on the end of every stage's last unit (e_last, P
 * entries), each the length of a chain of the step's dependencies from
 * its start (every task after its stream's previous one and after its
 * input; each unit at least its compute-stream time, each send at least
 * its duration), whatever the backend. The chains run through stage 0:
 * micro-batch 0's round trip (its forward through every stage, its
 * backward back), then cycles that each take a forward F(k) of stage 0
 * up to a stage e, turn there into the backward B(k - warm(e)) that
 * follows it (the steady part alternates them) and bring it back to stage
 * 0, whose next forward is F(k + e + 1); then the last forward's round
 * trip. On a slow fabric every cycle costs each micro-batch up to two sends
 * on top of the stages' compute, which the stream alone does not show.
 * The longest such chain by dynamic programming over stage 0's backwards,
 * O(micro-batches x stages). Returns e_last[0]; -1 (e_last untouched)
 * where it does not apply. For the fast path's tight bound. */
int64_t pp_program_round_trips_ns(const pp_stepcost *c, int64_t *e_last);

/* Layer tasks a coalescing backend got as part of another task (so the
 * tasks of the step are those issued plus these). */
int64_t pp_program_coalesced(const pp_program *p);

/* Units stage st has yet to issue. */
int pp_program_left(const pp_program *p, int st);
/* Whether stage st's next unit has its input (true for units that need
 * none); false when none is left. */
bool pp_program_ready(const pp_program *p, int st);
/* Issue stage st's next unit (pp_program_left(p, st) > 0); before the
 * first, what the stage starts the step with (the distributed optimizer's
 * parameter gathers). */
void pp_program_unit(pp_program *p, int st);
/* Issue stage st's units while the next has its input and is before unit
 * end, stopping after a unit once *stop is true; returns how many. */
int pp_program_run(pp_program *p, int st, int end, const bool *stop);
/* A lower bound on the step's end, for a backend whose handles are task
 * ends and whose resources start a task no earlier than their last end:
 * res_free[r] is when resource r (the sink's index) is next free. Per
 * stage, the end of its last unit at least: its units to come on its
 * compute stream, the cool-down's chain (a stage's
 * last backward waits for the next stage's last), with one chunk and
 * overlapped sends the sends still to come on its links (the last feeds
 * its last forward, or its last backward). */
int64_t pp_program_end_bound_ns(pp_program *p, const int64_t *res_free);
/* After every unit: the pending reductions, the tied-embedding all-reduce,
 * each stage's optimizer and what follows it, the data read. busy (P
 * entries, may be NULL) gets each stage's accounting. */
void pp_program_finish(pp_program *p, pp_stage_busy *busy);

/* The steady state, for a backend whose handles are task ends (dep NULL).
 * In the steady part of a 1F1B or interleaved schedule every stage's units
 * repeat with a period (one forward and one backward; interleaved, a pass
 * over every chunk of pp micro-batches) on micro-batches a period further
 * on. Checkpoint c of stage st is its unit warm-up + c x period. When, with
 * every stage at checkpoint c + q, everything the units to come can read
 * (ZeRO-3's prefetch and pending reduce-scatter, each stage's last task,
 * the inputs sent and not yet used; the backend: its resources' free
 * times) is what it was at checkpoint c plus one dt, the q periods that
 * follow repeat the last q: each task starts at the latest of handles that
 * all moved by dt and lasts as long, so its end moves by dt too (time
 * invariance of the max-plus recurrence; q > 1 where the stages settle
 * into a cycle of several periods). pp_program_skip() then moves the
 * program on whole cycles without issuing them, exactly as issuing them
 * would, and the backend moves its resources by as much.
 *
 * pp_program_checkpoint: stage st's unit index at checkpoint c; -1 when the
 * schedule has no steady part (GPipe), the backend takes dependencies later
 * or the index is past the stage's last unit. */
#define PP_STEADY_MARKS 256    /* marks kept: the longest cycle looked for, in periods */
int pp_program_checkpoint(const pp_program *p, int st, int c);
/* Record what the units to come can read, every stage at a checkpoint
 * (the one after the last mark's), with a hash of it relative to *ref
 * (stage 0's last task), equal for states a cycle apart; false while a
 * chunk's first forward (its parameter gathers) is to come. */
bool pp_program_mark(pp_program *p, uint64_t *hash, int64_t *ref);
/* Every stage at the newest mark: whether the state is the mark q
 * checkpoints before it (1 <= q < PP_STEADY_MARKS) moved by one *dt
 * (filled when true). */
bool pp_program_periodic(const pp_program *p, int q, int64_t *dt);
/* How many whole cycles of q periods from here repeat the last one unit
 * for unit (none a chunk's last backward). */
int64_t pp_program_skippable(const pp_program *p, int q);
/* Whether a cycle found at checkpoint c or later can still be moved over:
 * false once some stage has less than one period left from checkpoint
 * c + 1 to the end of its steady part (pp_program_skippable() is 0 there
 * and at every later checkpoint), so the backend can stop marking. */
bool pp_program_may_skip(const pp_program *p, int c);
/* Move on k cycles of q periods, dt each (k <= pp_program_skippable()):
 * every handle moved by k x dt, the coalesced tasks counted and, with busy,
 * the units' busy time added as issuing them would (without,
 * pp_program_finish's busy accounting is not to be read). The marks are
 * dropped. The backend moves its own resources. */
void pp_program_skip(pp_program *p, int q, int64_t k, int64_t dt, bool busy);

#endif
