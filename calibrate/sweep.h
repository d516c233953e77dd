/*
 * sweep.h - run a measurement plan against a backend: one measurement at a
 * time, each recorded in the store (and so committed) before the next one
 * starts, a result table on stdout and a progress line with the time left
 * on a terminal. CPU only.
 */
#ifndef PP_CAL_SWEEP_H
#define PP_CAL_SWEEP_H

#include "backend.h"
#include "plan.h"
#include "calib/calibdb.h"
#include "core/store.h"
#include <stdio.h>

typedef struct pp_cal_sweep {
	pp_store *st;              /* the root's store; NULL on other ranks */
	int64_t run_id;
	pp_cal_backend *be;
	const pp_cal_opts *opts;   /* iteration settings */
	const pp_cal_host *host;
	FILE *out;                 /* result tables; NULL for none */
	bool progress;             /* the progress line on stderr */
	/* Called after each row is committed, with its id (tests use it to
	 * know what a kill must not lose). */
	void (*on_record)(void *ctx, int64_t row_id);
	void *ctx;
	/* A resumed run: done[i] nonzero for the items its stored rows hold
	 * already (pp_cal_sweep_done), which are not measured again; NULL for
	 * none. The same on every rank. */
	const unsigned char *done;
	/* what happened */
	size_t recorded, skipped;
	int64_t wrong;             /* elements that failed a check, summed */
	double elapsed_s;
} pp_cal_sweep;

/* Measure items[0..n) in order. Returns 0, or the error of the
 * measurement (or database write) that stopped the sweep; the rows
 * recorded before it stay in the store. */
int pp_cal_sweep_run(pp_cal_sweep *sw, const pp_cal_item *items, size_t n, pp_err *err);

/* Which of items[0..n) the rows of a run hold already: done[i] = 1 for an
 * item with at least one stored row of its kind, name, type and shape (a
 * collective's op, dtype, ranks, size and in-place flag; a GEMM's kind,
 * shape name, dtype and m, n, k; a copy's kind, method and size; storage's
 * direction and size; a sustained GEMM's dtype and shape), and for a group
 * switch whose collectives are all done. An item killed after some of its
 * rows were stored counts as measured. Returns how many items are done. */
size_t pp_cal_sweep_done(const pp_cal_item *items, size_t n, const pp_calib_meas *rows,
			 size_t nrows, unsigned char *done);

/* The scope a collective of this job runs over: "net" when the ranks span
 * hosts, "nvlink" when every pair of GPUs has NVLink, else "pcie". */
const char *pp_cal_coll_scope(const pp_cal_host *h);

#endif
