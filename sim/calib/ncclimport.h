/*
 * ncclimport.h - nccl-tests logs (calib/nccllog.h reads them) stored into
 * the calibration tables, so a team with logs from a rented pod can
 * calibrate without running podplan-calibrate.
 *
 * nccl-tests reports the MEAN time over its iterations; the rows keep it in
 * time_us with extra_json {"stat":"mean"} and no min/max.
 */
#ifndef PP_NCCLIMPORT_H
#define PP_NCCLIMPORT_H

#include "calib/calibdb.h"
#include "calib/nccllog.h"
#include "calib/ncclop.h"
#include "core/pp.h"
#include "core/store.h"
#include <stdbool.h>

/* The largest log read (a sweep of every program at every size on 4096
 * ranks is a few MB, its NCCL_DEBUG=INFO chatter included) and its most
 * result rows: a 100 MB log took 45 s to store while holding the store's
 * write lock, and other writers failed with "database is locked". */
#define PP_NCCL_MAX_BYTES ((size_t)16 << 20)

/* Read path and store it as one calibration run (source "nccl-tests",
 * status "complete"), all rows in one transaction. *run_id gets the run,
 * *log (may be NULL) the parsed log (caller releases). */
int pp_ncclimport_file(pp_store *st, const char *path, const pp_ncclimport_opts *opts,
		       int64_t *run_id, pp_nccl_log *log, pp_err *err);
/* The same for a log already read (len bytes of text; path names it). */
int pp_ncclimport_text(pp_store *st, const char *path, const char *text, size_t len,
		       const pp_ncclimport_opts *opts, int64_t *run_id, pp_nccl_log *log, pp_err *err);

#endif
