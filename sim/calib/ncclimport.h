/*
 * ncclimport.h - read nccl-tests' standard output (all_reduce_perf and the
 * other *_perf programs) into the calibration tables, so a team with logs
 * from a rented pod can calibrate without running podplan-calibrate.
 *
 * What is read, per section (a log may hold several programs' output, each
 * starting at its "# nThread ..." line):
 *   - the device list ("#  Rank  3 Group  0 Pid ... on HOST device  3 [...] NAME"):
 *     the number of ranks, the hosts, the GPU name;
 *   - the header line naming the columns (size count type redop [root],
 *     then one or two groups of time algbw busbw #wrong|error, out-of-place
 *     first; per-iteration columns and a timestamp may follow);
 *   - the data rows, "#wrong" N/A when the run did not check;
 *   - the footer ("# Out of bounds values", "# Avg bus bandwidth").
 * The collective comes from --op, else "# Collective test starting: X_perf"
 * (nccl-tests 2.14 on, src/util.cu writeDeviceReport), and is then checked
 * against the rows' busbw/algbw ratio, which nccl-tests fixes per
 * collective (doc/PERFORMANCE.md): a mismatch is an error. A log that names
 * nothing is read from its columns (size/count ratio, redop, root) narrowed
 * by that ratio; when several collectives fit alike (all_gather and
 * alltoall print the same columns and ratio), it is an error asking for
 * --op. The file name is never read: "allreduce" holds "reduce".
 * Other lines (NCCL INFO/WARN, blank lines) are skipped.
 *
 * nccl-tests reports the MEAN time over its iterations; the rows keep it in
 * time_us with extra_json {"stat":"mean"} and no min/max.
 */
#ifndef PP_NCCLIMPORT_H
#define PP_NCCLIMPORT_H

#include "calib/calibdb.h"
#include "core/pp.h"
#include "core/store.h"
#include <stdbool.h>

typedef struct pp_nccl_row {
	int line;
	int64_t size_bytes, count;
	char type[16], redop[16];
	int root;                 /* -1 when the log has none */
	bool root_known;          /* the log has a root column */
	bool has[2];              /* [0] out-of-place, [1] in-place */
	double time_us[2], algbw_GBps[2], busbw_GBps[2];
	int64_t wrong[2];         /* PP_CALIB_NULL for N/A */
	double max_error[2];      /* old logs' "error" column; NAN when absent */
} pp_nccl_row;

typedef struct pp_nccl_section {
	int line;                 /* where it starts */
	char op[32];              /* resolved collective name */
	char op_from[40];         /* "option", "log", "columns", "busbw/algbw ratio and columns" */
	int op_line;              /* the "# Collective test starting" line, 0 when none */
	char params[256];         /* the "# nThread ..." line, trimmed */
	char nccl_version[32];    /* "22803" from nccl-library=, or "" */
	int nranks, nhosts;
	char hosts[256];          /* comma-separated */
	char gpu_name[128];
	int iters;                /* timed iterations, 0 when unknown */
	double avg_busbw_GBps;    /* footer; NAN when absent */
	int64_t out_of_bounds;    /* footer; PP_CALIB_NULL when absent */
	pp_nccl_row *rows;
	size_t nrows;
} pp_nccl_section;

typedef struct pp_nccl_log {
	pp_nccl_section *sections;
	size_t nsections;
	char warnings[1024];      /* consistency notes (footer vs rows), "" when none */
} pp_nccl_log;

typedef struct pp_ncclimport_opts {
	const char *op;      /* collective name, overrides the log; NULL = detect */
	const char *scope;   /* nvlink pcie net local; NULL = "net" when ranks span hosts */
	int nranks;          /* 0 = from the device list */
} pp_ncclimport_opts;

/* Names of the collectives nccl-tests has, for --op and did-you-mean. */
extern const char *const pp_nccl_ops[];
extern const size_t pp_nccl_nops;

/* nccl-tests' bus-bandwidth factor for op over n ranks (busbw = algbw x
 * factor; https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md
 * and each src/OP.cu's GetBw): all_reduce 2(n-1)/n; all_gather,
 * reduce_scatter, alltoall, gather, scatter (n-1)/n; broadcast, reduce,
 * sendrecv, hypercube 1. */
double pp_nccl_busbw_factor(const char *op, int nranks);

/* Parse a log held in memory; name is the file name used in messages and
 * for detecting the collective. Bad input -> PP_EINPUT naming name:line. */
int pp_ncclimport_parse(const char *name, const char *text, const pp_ncclimport_opts *opts,
			pp_nccl_log *out, pp_err *err);
void pp_nccl_log_release(pp_nccl_log *log);

/* The largest log read (a sweep of every program at every size on 4096
 * ranks is a few MB, its NCCL_DEBUG=INFO chatter included) and its most
 * result rows: a 100 MB log took 45 s to store while holding the store's
 * write lock, and other writers failed with "database is locked". */
#define PP_NCCL_MAX_BYTES ((size_t)16 << 20)
#define PP_NCCL_MAX_ROWS 100000

/* Read path and store it as one calibration run (source "nccl-tests",
 * status "complete"), all rows in one transaction. *run_id gets the run,
 * *log (may be NULL) the parsed log (caller releases). */
int pp_ncclimport_file(pp_store *st, const char *path, const pp_ncclimport_opts *opts,
		       int64_t *run_id, pp_nccl_log *log, pp_err *err);
/* The same for a log already read (len bytes of text; path names it). */
int pp_ncclimport_text(pp_store *st, const char *path, const char *text, size_t len,
		       const pp_ncclimport_opts *opts, int64_t *run_id, pp_nccl_log *log, pp_err *err);

#endif
