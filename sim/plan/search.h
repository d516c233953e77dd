/*
 * search.h - the best parallel layout for a scenario's model, batch and
 * cluster: walk the layouts of plan/space.h (tensor, pipeline, data and
 * context parallel sizes, ZeRO stage, micro-batch size, interleaving,
 * sequence parallelism and recompute: the keys the scenario's `parallel`
 * and `training` sections left out; given keys stay fixed), drop what does
 * not fit in memory (capacity less the headroom of pp_search_opts), and
 * return the k fastest with their full predictions.
 *
 * The answer is the one a full evaluation gives: the k layouts with the
 * smallest simulated step time (ties: the earlier in enumeration order),
 * exactly as if pp_predict() had run on every layout that fits. How it
 * gets there fast (sim/engine/fastpath.h):
 *   1. the space is streamed, never stored: each layout, as the
 *      enumeration finds it, gets its memory per GPU (pp_memory_estimate),
 *      and what fits is kept with a quick lower bound on its step time
 *      (pp_fp_bound_quick_ns: the busiest stage's compute alone); within
 *      one TP x CP x PP x DP, a layout that missed the capacity rules out
 *      the same layout at every larger micro-batch (memory grows with it)
 *      without a memory estimate;
 *   2. best first: the layout of the smallest bound is simulated (the
 *      exact fast path, equal to the event simulation) once its full
 *      bound (pp_fp_bound_ns, O(stages)) is known and no quick bound of a
 *      layout not yet fully bounded is below it; a full bound is computed
 *      only for a layout whose quick bound is under the k-th best
 *      simulated time;
 *   3. it stops when every bound left exceeds the k-th best simulated
 *      time: no skipped layout can enter the top k.
 * A layout about to be simulated whose tight bound (pp_fp_bound_tight_ns:
 * the DP stream's gathers and every chunk's gradient buckets) exceeds the
 * k-th best is not run: it cannot enter the top k. `simulated` still
 * counts by the full bound (the layouts the search has to consider, the
 * same count as before the tight bound); sims_run counts what ran. A
 * simulation stops as soon as one of its tasks ends after the k-th best so
 * far (pp_fp_step_within_ns): that layout cannot enter the top k.
 * Workloads are built once per (TP, CP, micro-batch, SP, recompute,
 * pipelined) and reused. The top k are then run through pp_predict() for
 * their breakdowns. The fast path runs the same issued program as the
 * event simulation (engine/program.h), so their step times agree; should
 * they ever differ (a bug), the search repeats with the event simulation
 * and says so (result.fell_back).
 *
 * Distributed (sim/core/dist.h): under mpirun the ranks share the work by
 * self-scheduling, with no rounds and no rank serving the others: every
 * rank streams the whole enumeration and evaluates the TP x CP x PP x DP
 * groups a shared counter hands it (the next one to whichever rank asks
 * first); the candidates that fit are then gathered on every rank in one
 * list, in order of their quick bound (exhaustive: the most simulation
 * work first), and a second counter hands them out one at a time. Each
 * rank publishes its k-th best step; the smallest published is the
 * threshold (never below the k-th best over all), so every layout whose
 * bound is under the final k-th best is simulated, as serially. The ranks'
 * top k are gathered on rank 0, merged and broadcast: every rank returns
 * what a serial run returns. `simulated` counts the layouts whose bound is
 * not above the final k-th best, which is what a serial run simulates;
 * the simulations actually run (sims_run) may be more under MPI.
 */
#ifndef PP_SEARCH_H
#define PP_SEARCH_H

#include "input/hw.h"
#include "engine/predict.h"
#include "input/scenario.h"
#include "plan/space.h"
#include <stdbool.h>
#include <stdint.h>

typedef struct pp_search_hit {
	pp_layout layout;
	uint32_t index;            /* position in the enumeration */
	int64_t step_ns;           /* simulated step time */
	int64_t bound_ns;          /* its lower bound */
	pp_result result;          /* pp_predict() of the layout */
	double usd_per_million_tokens; /* NAN without a price */
} pp_search_hit;

/* Progress, for a terminal: phase 0 fits candidates (memory, quick bound),
 * phase 1 bounds and simulates. */
typedef struct pp_search_progress {
	int phase;
	int64_t done, total;       /* phase 0: candidates seen (total 0: not known, the space is
				      streamed); phase 1: simulations, of the candidates that fit */
	int64_t simulated;         /* simulations run so far by this rank */
	int64_t to_simulate;       /* phase 1: candidates left that might still be simulated */
	double elapsed_s;
} pp_search_progress;
typedef void (*pp_search_progress_fn)(const pp_search_progress *p, void *ctx);

/* The candidates of a search that fit in memory, kept for the next search
 * of the same scenario on a cluster that differs only in its inter-node
 * fabric and NIC count (podplan size's options): the enumeration, the
 * layout checks and the memory estimates depend on neither (memory.h reads
 * the GPU's capacity, the kernels' reserve and margin, and byte counts of
 * the workload, no link), so such a search starts from this list and only
 * computes its quick bounds again. Heap-allocated, one per cluster. */
typedef struct pp_search_fit pp_search_fit;
pp_search_fit *pp_search_fit_new(void);
void pp_search_fit_free(pp_search_fit *f);

typedef struct pp_search_opts {
	int top_k;                 /* how many layouts to return (>= 1) */
	bool exhaustive;           /* simulate every layout that fits (no bound): tests */
	bool des;                  /* simulate with the event simulation, not the fast path */
	double usd_per_gpu_hour;   /* > 0: fill usd_per_million_tokens */
	pp_search_progress_fn progress;
	void *progress_ctx;
	bool local;                /* this rank alone, under MPI too (size's own scheduling) */
	pp_search_fit *fit;        /* NULL, or (on one rank) the list above: empty, the search
				      fills it; filled, the search starts from it */
	struct pp_fp_cache *cache; /* NULL, or a workload cache kept over searches of clusters
				      that differ only in GPU count and inter-node network
				      (fastpath.h; podplan size's options of one SKU) */
	double headroom;           /* share of each GPU's memory kept free (calib/headroom.h: the
				      caching allocator's reserve): a layout fits when its bytes
				      per GPU are at most capacity x (1 - headroom); 0: all of it */
} pp_search_opts;

typedef struct pp_search_result {
	int64_t evaluated;         /* every candidate of the space (pruned or simulated) */
	int64_t no_fit;            /* pruned: does not fit in memory */
	int64_t feasible;          /* fits in memory */
	int64_t simulated;         /* feasible, bound under the final k-th best (serial count) */
	int64_t bounded;           /* feasible, skipped by the bound (feasible - simulated) */
	int64_t sims_run;          /* simulations run over all ranks */
	int ranks;
	int workloads_built;       /* over all ranks */
	double elapsed_s;
	bool fell_back;            /* fast path disagreed with pp_predict(): DES used */
	int nbest;
	pp_search_hit *best;       /* nbest hits, fastest first */
	char space[640];           /* the space searched, in words */
} pp_search_result;

/* Search s's cluster. The layout keys s gave (s->given) stay fixed. Errors:
 * PP_EINPUT when no layout of the space is valid (with why), PP_EINTERNAL
 * when a simulation fails. Every rank of an MPI job must call it with the
 * same arguments; every rank gets the same result. */
int pp_search_run(const pp_scenario *s, const pp_hw *hw, const pp_search_opts *o,
		  pp_search_result *out, pp_err *err);
void pp_search_result_release(pp_search_result *r);

#endif
