/*
 * nccllog.h - nccl-tests' standard output (all_reduce_perf and the other
 * *_perf programs) read into sections of rows, each section's collective
 * identified (calib/ncclop.h); calib/ncclimport.h stores what is read.
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
 * (nccl-tests 2.14 on, src/util.cu writeDeviceReport), else from the
 * columns; either way it is checked against the rows (ncclop.h). The file
 * name is never read: "allreduce" holds "reduce".
 * Other lines (NCCL INFO/WARN, blank lines) are skipped.
 */
#ifndef PP_NCCLLOG_H
#define PP_NCCLLOG_H

#include "calib/calibdb.h"
#include "core/pp.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most result rows one log may hold (calib/ncclimport.h: its size
 * limit and why): past it the parse stops with PP_EINPUT. */
#define PP_NCCL_MAX_ROWS 100000

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

/* Parse a log held in memory; name is the file name used in messages.
 * Bad input -> PP_EINPUT naming name:line; on any error nothing stays
 * allocated. The caller releases *out. */
int pp_nccl_log_parse(const char *name, const char *text, const pp_ncclimport_opts *opts,
		      pp_nccl_log *out, pp_err *err);
void pp_nccl_log_release(pp_nccl_log *log);

#endif
