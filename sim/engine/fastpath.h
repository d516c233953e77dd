/*
 * fastpath.h - what the layout search needs to evaluate hundreds of
 * thousands of layouts a second: the per-layout workload without rebuilding
 * it, the exact step time without the event queue, and a lower bound on the
 * step time that costs O(stages).
 *
 * Exactness. pp_fp_step_ns() returns the int64 nanoseconds that
 * pp_evgraph_build() + pp_des_run() give for the full step (no ablation):
 * the program's tasks (program.h, issued by the same code for both
 * backends) with the same rounded durations (stepcost.h), each task's end
 * computed as it is issued. Every resource of the step graph is either an
 * in-order stream (a task starts at max(the previous task's end, its
 * predecessors' ends)) or a FIFO link with exactly one producing stage whose releases are
 * strictly increasing in that stage's program order (so the link serves in
 * program order); with no choice left to an event queue, the recurrence
 * and the simulation agree to the nanosecond. tests/test_search.c checks
 * it on every candidate of several search spaces (1F1B, GPipe,
 * interleaved; ZeRO 0-3; each overlap flag off; uneven stages; tied and
 * untied embeddings; context parallelism). Nothing of the task structure
 * is restated here: a change to the program reaches both backends. What
 * the fast path adds is the assumption above (every link served in its
 * one sender's order), which the test checks; pp_search_run() also
 * compares its winners with pp_predict() and falls back to the event
 * simulation on a mismatch.
 *
 * Lower bound. pp_fp_bound_ns() <= pp_fp_step_ns() for every layout:
 *  - each stage's compute stream runs its tasks one after another and cannot
 *    start before micro-batch 0 has crossed the stages in front of it;
 *  - each stage's last backward (chunk 0 of the same micro-batch on every
 *    stage, for all three schedules) must flow back to stage 0 before the
 *    optimizer steps there;
 *  - the data-parallel gradient buckets of that last backward are released
 *    no earlier than their layers end, and the optimizer waits for the last;
 *  - ZeRO-3's gathers and reduce-scatters share one stream per stage;
 *  - the tied-embedding all-reduce and the data-loading read;
 *  - (pp_fp_bound_tight_ns) the gathers at the start on the DP stream;
 *  - (pp_fp_bound_tight_ns, one chunk 1F1B) each stage's last backward no
 *    earlier than the chains of round trips through stage 0
 *    (pp_program_round_trips_ns), with the sends each cycle waits for.
 * It ignores what only delays (link queueing, steady-state waits), which is
 * what makes it a bound; the search simulates a layout only while its bound
 * can still beat the current k-th best (tests check bound <= exact).
 *
 * Files: fpcache.c (the workload cache and the quick bounds kept),
 * fastpath.c (the closed-form backend of program.h), fpbound.c (the
 * lower bounds).
 */
#ifndef PP_FASTPATH_H
#define PP_FASTPATH_H

#include "input/hw.h"
#include "input/scenario.h"
#include "engine/workload.h"

/* A cache of workloads for one scenario family: every call on one cache
 * must pass scenarios that differ only in their layout (parallel sizes,
 * ZeRO stage, micro-batch size, SP, recompute, schedule), GPU count and
 * inter-node network, with hws that differ at most in that network
 * (fabric, NICs per node, oversubscription) and storage: podplan size's
 * options of one SKU. The key takes the GPUs per domain the groups are
 * placed on (pp_workload_domain_gpus) and the network where the op list
 * reads it (pp_workload_reads_network): layouts whose collectives stay
 * inside a node share one workload over every fabric and GPU count, the
 * others over GPU counts; a hw with calibrated collectives shares with no
 * other. */
typedef struct pp_fp_cache pp_fp_cache;
pp_fp_cache *pp_fp_cache_new(void);
void pp_fp_cache_free(pp_fp_cache *c);
/* Number of workloads built so far (one per tensor x context x micro-batch
 * x SP x recompute x pipelined-or-not x expert layout). */
int pp_fp_cache_builds(const pp_fp_cache *c);
/* Drop the quick bounds kept (pp_fp_bound_quick_cached_ns), keeping the
 * workloads: a search on another cluster calls it before its first bound,
 * since a bound reads the hw's links and the workloads' key does not
 * always. */
void pp_fp_cache_forget_bounds(pp_fp_cache *c);
/* The most workloads c holds (32,768 unless set): when full it is emptied
 * and the next keys are built afresh. */
void pp_fp_cache_set_max(pp_fp_cache *c, size_t max);

/* Fill *w with the workload of s's layout, field for field what
 * pp_workload_build(w, s, hw) gives but the op list: w->ops is NULL and
 * w->nops 0 (the fast path, its bounds and the memory estimate read the
 * passes' costs only; a cached workload is some 1.6 KB, its op list tens
 * of KB). Do not pp_workload_release() it. */
void pp_fp_workload(pp_fp_cache *c, const pp_scenario *s, const pp_hw *hw, pp_workload *w);

/* The step time in nanoseconds, equal to the event simulation's makespan
 * (see above); -1 when the layout gives no micro-batches or the walk stalls
 * (a dependency cycle, which the event simulation would report too). */
int64_t pp_fp_step_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w);

/* pp_fp_step_ns() where it is at most limit_ns; INT64_MAX where it is
 * longer, known as soon as the walk issues a task that ends after
 * limit_ns (the step is the latest task end, and the latest end only
 * grows as the walk goes on), so a layout that cannot beat limit_ns costs
 * only its walk up to there. -1 as pp_fp_step_ns(). For the search, whose
 * k-th best so far is the limit (tests/test_search.c checks both sides of
 * the limit on every layout of its spaces). */
int64_t pp_fp_step_within_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
			     int64_t limit_ns);

/* The same walk with the ablations of ab (may be NULL) filling busy (pp
 * entries, may be NULL: busy[st].last_task is the end of the stage's
 * optimizer, in ns) and *tasks (may be NULL: the tasks issued, which the
 * event simulation would count as events). -1 as above. Memory: two int64
 * per unit of every stage, no graph.
 *
 * Steady state: through the steady part of a 1F1B or interleaved schedule
 * the walk stops at each period (program.h) and, once the state is one it
 * was q periods before moved on by dt (q up to PP_STEADY_MARKS), moves on
 * whole cycles of q periods without issuing them (pp_program_skip): the
 * same ends, tasks and busy time, in time that grows with the pipeline's
 * transients, not with the micro-batch count. */
#include "engine/program.h"
int64_t pp_fp_run(const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
		  const pp_sched_opts *ab, pp_stage_busy *busy, int64_t *tasks);

/* What a walk did (for tests and benchmarks). */
typedef struct pp_fp_stats {
	int64_t units;      /* units issued, every stage */
	int64_t skipped;    /* units moved over in whole cycles, every stage */
	int cycle;          /* periods of the cycle found (0: none) */
	int checkpoint;     /* the checkpoint at which it was found */
} pp_fp_stats;
/* pp_fp_run(), filling *stats (may be NULL). */
int64_t pp_fp_run_stats(const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
			const pp_sched_opts *ab, pp_stage_busy *busy, int64_t *tasks,
			pp_fp_stats *stats);

/* A lower bound on pp_fp_step_ns(s, hw, w), in O(stages x chunks). */
int64_t pp_fp_bound_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w);
/* A tighter lower bound, >= pp_fp_bound_ns() and <= pp_fp_step_ns(): with
 * the distributed optimizer's parameter gathers at the start of the step
 * (ZeRO-1/2, overlap_param_gather), which hold each stage's data-parallel
 * stream before its gradient reduces (pp_program_start_gathers_ns): the
 * stream is busy until their sum; then it carries every chunk's buckets
 * (overlap_grad_reduce), each after its chunk's last backward unit, which
 * ends no earlier than the stage's start plus every unit before it back to
 * back (the schedule walked from its end). On a slow fabric that is most
 * of the step. With one chunk and 1F1B, each stage's last backward
 * also ends no earlier than its chain of round trips through stage 0
 * (program.h: pp_program_round_trips_ns, O(micro-batches x stages)): on a
 * slow fabric each micro-batch's sends, which make most of the difference
 * between the compute streams and the step. The search orders and counts
 * by pp_fp_bound_ns() and simulates a layout only when this one too is
 * under the k-th best (search.h). */
int64_t pp_fp_bound_tight_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w);
/* A cheaper lower bound, <= pp_fp_bound_ns(): the busiest stage's compute
 * stream, every micro-batch's units of it back to back (the first term of
 * the bound above, without the stage's pipeline fill, sends, optimizer
 * and data-parallel tails). O(stages x chunks), no allocation. */
int64_t pp_fp_bound_quick_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w);
/* pp_fp_bound_quick_ns() of s's layout with c's workload, kept in c: the
 * bound reads the op list (its cache key above), the pipeline size, the
 * interleaving and the micro-batch count, and nothing of the ZeRO stage or
 * the data-parallel placement, so the layouts that agree in those (a
 * search's ZeRO stages of one TP x PP x DP x micro-batch) share one
 * evaluation and one workload lookup. tests/test_search.c compares it
 * with pp_fp_bound_quick_ns() on every layout of its spaces. */
int64_t pp_fp_bound_quick_cached_ns(pp_fp_cache *c, const pp_scenario *s, const pp_hw *hw);

#endif
