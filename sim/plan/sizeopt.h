/*
 * sizeopt.h - the options of a sizing run as the size family passes them
 * around, private to plan/size*.c (the public interface is size.h). The
 * family, each file calling functions only of those below it:
 *   size.c       the run (pp_size_run): the options, their bounds and
 *                shared fits, the serial search, the output order
 *   sizequeue.c  the searches shared out over MPI ranks (work queues)
 *   sizewhy.c    the answer and why, in sentences
 *   sizeoption.c one option: whether to search it, its search, its record
 */
#ifndef PP_SIZEOPT_H
#define PP_SIZEOPT_H

#include "plan/size.h"
#include "engine/fastpath.h"
#include "core/fmt.h"
#include "core/util.h"

/* One option (a GPU SKU x GPU count x inter-node fabric) being sized. */
typedef struct size_opt {
	pp_size_option o;          /* what the caller gets (pp_size_result.opt) */
	pp_scenario x;             /* the scenario on the option's cluster */
	pp_hw hw;                  /* x's hardware; valid only when valid is true */
	bool valid;                /* hw resolved */
	int order;                 /* position in build order (ties of the bounds' sort) */
	pp_search_fit *fit;        /* shared by the options that differ only in fabric and NICs */
	pp_fp_cache *cache;        /* shared by the options that differ only in GPU count,
				      fabric, NICs */
} size_opt;

/* What an option's search found, as a record one rank can send another
 * (no pointers). */
typedef struct size_res {
	int rc;                    /* 0, or the search's error */
	pp_size_status status;
	char why[256];
	int64_t evaluated, feasible, simulated;
	pp_search_hit best;        /* PP_SIZE_SEARCHED */
	double train_s, usd;       /* time to train (s) and its rent ($) with best */
	bool meets;                /* within the deadline / budget */
} size_res;

/* Whether option op is searched at all, the options taken in order of
 * their bound: not when it has no hardware or price, or when its bounds
 * rule it out against the target and the best found so far (best_usd:
 * cheapest meeting the deadline; best_time: fastest within the budget);
 * then op->o's status and why say so. */
bool size_to_search(const pp_size_opts *o, size_opt *op, double best_usd, double best_time);

/* The layout search of option op (on this rank alone; steps: the
 * training steps): its best layout, time to train and cost, and whether
 * it meets the target, into *res. An error (res->rc, err) only when a
 * search fails for another reason than no valid layout. */
int size_search_option(const pp_size_opts *o, const size_opt *op, double steps, size_res *res,
		       pp_err *err);

/* A search's record into its option and out's totals, and the best cost
 * and time meeting the target so far (*best_usd, *best_time) updated. */
void size_record(pp_size_option *op, const size_res *res, pp_size_result *out,
		 double *best_usd, double *best_time);

/* Under MPI: the n options (in order of their bound) searched over the
 * ranks, with the serial run's decisions and results (size.h). */
int size_search_scheduled(const pp_size_opts *o, size_opt *oi, int n, double steps,
			  pp_size_result *out, pp_err *err);

/* The answer (out->answer, -1: none) and why, in sentences, into why. */
void size_explain(const pp_size_result *out, const pp_size_opts *o, pp_sb *why);

#endif
