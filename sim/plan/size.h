/*
 * size.h - the cheapest cluster that trains a scenario's model within a
 * deadline (or the fastest within a budget): every GPU SKU x GPU count x
 * inter-node fabric option gets its own layout search (sim/plan/search.h), its
 * best step time becomes a time to train (training.train_tokens) and a
 * rent cost (GPU-hours x $/GPU-hour).
 *
 * Price: $/GPU-hour of the SKU from pp_price_lookup() (sim/input/prices.h:
 * the catalog's prices.json, the SKU mapped through tco.json's
 * gpu_price_skus), tier on_demand unless told, the cheapest provider
 * listing that tier unless one is named; or the scenario's
 * search.usd_per_gpu_hour. Cost = price x GPUs x time to train:
 * no goodput, storage or egress (podplan cost prices those for chosen
 * options). Prices have no per-fabric rate, so listing fabrics shows their
 * effect on time; at one price the faster fabric is never dearer.
 *
 * Options that cannot win are not searched: a lower bound on any layout's
 * step time on an option (the step's executed FLOPs, spread evenly over
 * every GPU at the SKU's best GEMM/attention rate) gives lower bounds on
 * its time to train and cost; with a deadline, options whose bound misses
 * it, or whose bound costs more than the cheapest option found so far, are
 * skipped (and shown with their bound), and likewise for a budget.
 * Options that differ only in the inter-node fabric (the same GPU, count
 * and node) share the layouts that fit (pp_search_fit): the space is
 * enumerated and each layout's memory estimated once for all of them.
 *
 * The scenario's "search" section (input/sizespec.h, s->search) may name
 * the SKUs, GPU counts and inter-node fabrics to weigh, the provider and
 * tier to price at, and prices of its own.
 * Defaults: every catalog SKU with a price that supports the training
 * precision; the scenario's GPU count x {1/4, 1/2, 1, 2, 4} rounded to whole
 * nodes; the scenario's inter-node fabric.
 */
#ifndef PP_SIZE_H
#define PP_SIZE_H

#include "calib/hwres.h"
#include "input/catalog.h"
#include "input/sizespec.h"
#include "plan/search.h"

typedef enum pp_size_status {
	PP_SIZE_SEARCHED,     /* searched: best layout below */
	PP_SIZE_NO_LAYOUT,    /* no valid layout (precision unsupported, sizes do not divide) */
	PP_SIZE_NO_FIT,       /* no layout fits in memory */
	PP_SIZE_NO_PRICE,     /* no price for the SKU */
	PP_SIZE_SKIP_SLOW,    /* skipped: its bound misses the deadline / is slower than the best */
	PP_SIZE_SKIP_DEAR     /* skipped: its bound costs more than the best / than the budget */
} pp_size_status;

extern const char *const pp_size_status_names[6];

typedef struct pp_size_option {
	const pp_gpu *gpu;
	int num_gpus, gpus_per_node, nics_per_node;
	const pp_fabric *inter;
	double usd_per_gpu_hour;     /* NAN without a price */
	char price_what[200];
	pp_size_status status;
	char why[256];
	double lb_train_s, lb_usd;   /* lower bounds */
	pp_search_hit best;          /* PP_SIZE_SEARCHED */
	int64_t evaluated, feasible, simulated;
	double train_s, usd;         /* of the best layout */
	bool meets;                  /* within the deadline / budget */
} pp_size_option;

typedef struct pp_size_opts {
	double deadline_s;           /* > 0: cheapest option within it */
	double budget_usd;           /* > 0: fastest option within it */
	pp_size_spec spec;
	pp_search_progress_fn progress;   /* of each option's search */
	void *progress_ctx;
	void (*on_option)(int i, int n, const pp_size_option *o, void *ctx); /* before each search */
	const pp_hwcal *hwcal;       /* the calibration named (NULL: none): each option's
					hardware is resolved with it (calib/hwres.h) */
	double headroom;             /* share of each GPU's memory kept free (pp_search_opts) */
	/* non-NULL (the catalog, whose validation sets give each layout's 80%
	 * interval, plan/answer.h): each option's layout is the best at the
	 * pessimistic end of its interval, and its time and cost are taken
	 * there (--conservative); NULL: by step time */
	const pp_catalog *conservative;
} pp_size_opts;

typedef struct pp_size_result {
	pp_size_option *opt;         /* in output order: searched by cost (deadline or no target)
					or time (budget), then skipped ones */
	int n;
	int answer;                  /* index into opt; -1: no option meets the target */
	double train_tokens, deadline_s, budget_usd;
	int64_t evaluated, simulated, feasible;
	int searches;
	double elapsed_s;
	char why[1024];              /* the answer and why, in sentences */
} pp_size_result;

/* Size s: needs training.train_tokens (PP_EINPUT otherwise). Every rank of
 * an MPI job must call it alike; all get the same result. Under MPI each
 * option's search runs on one rank, the options handed out in order by a
 * shared counter (sizequeue.c), and the serial run's
 * decisions are made again on all the results. */
int pp_size_run(const pp_scenario *s, const pp_catalog *cat, const pp_size_opts *o,
		pp_size_result *out, pp_err *err);
void pp_size_result_release(pp_size_result *r);

#endif
