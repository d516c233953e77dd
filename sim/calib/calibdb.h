/*
 * calibdb.h - the calibration tables of the store (calib_runs,
 * calib_measurements): start a run, add one measurement at a time, close the
 * run with its health verdict; list, read back and export.
 *
 * Durability: every pp_calibdb_add() is its own transaction, committed
 * before it returns (the store runs in WAL mode), so a calibration killed
 * half-way keeps every measurement it added; its run stays "running".
 *
 * NULL columns: doubles use NAN, integers PP_CALIB_NULL, strings NULL.
 * Units follow the table columns (microseconds, GB/s = 1e9 bytes/s,
 * TFLOP/s = 1e12 flop/s), the units nccl-tests and cuBLAS users read.
 */
#ifndef PP_CALIBDB_H
#define PP_CALIBDB_H

#include "core/pp.h"
#include "core/store.h"
#include "core/util.h"

#define PP_CALIB_NULL INT64_MIN

/* One row of calib_measurements. On insert the strings are borrowed; rows
 * returned by pp_calibdb_query() own their strings (free with
 * pp_calib_meas_free). */
typedef struct pp_calib_meas {
	int64_t id, run_id;
	const char *kind;  /* collective gemm memcpy h2d d2h storage_write storage_read */
	const char *op;    /* all_reduce ...; GEMM shape name; copy method */
	const char *dtype; /* nccl-tests type names for collectives, podplan dtypes for GEMMs */
	int64_t nranks, bytes, inplace, m, n, k, repeats, wrong, device;
	double time_us;    /* median (nccl-tests imports: their mean) */
	double time_min_us, time_max_us;
	double algbw_GBps, busbw_GBps, tflops, GBps;
	const char *scope; /* nvlink pcie net local */
	const char *extra_json;
} pp_calib_meas;

/* Every field NULL (NAN / PP_CALIB_NULL / NULL). */
void pp_calib_meas_init(pp_calib_meas *m);
void pp_calib_meas_free(pp_calib_meas *rows, size_t n);

/* One row of calib_runs. Strings are owned by the struct after a read
 * (pp_calib_run_release) and borrowed on insert. */
typedef struct pp_calib_run {
	int64_t id;
	const char *source;  /* podplan-calibrate | nccl-tests | fake */
	const char *status;  /* running | complete | failed */
	double started_at, ended_at;  /* unix seconds; ended_at NAN while running */
	const char *command_line, *host, *gpu_name, *driver_version, *cuda_version,
		*nccl_version, *topology_json, *verdict_json, *extra_json;
	int64_t gpu_count, cpu_cores, mem_bytes;
	int64_t n_measurements;  /* filled on read */
} pp_calib_run;

void pp_calib_run_init(pp_calib_run *r);
void pp_calib_run_release(pp_calib_run *r);

/* Insert a run with status "running" (started_at = now when 0); commits. */
int pp_calibdb_begin_run(pp_store *st, const pp_calib_run *info, int64_t *id, pp_err *err);
/* Replace a run's provenance text columns that are non-NULL in info
 * (host, gpu_name, versions, topology_json, extra_json) and its integer
 * columns that are not PP_CALIB_NULL. For provenance learnt after the run
 * began (the GPU layer starts after the run row exists). */
int pp_calibdb_update_run(pp_store *st, int64_t id, const pp_calib_run *info, pp_err *err);
/* Close a run: status ("complete" or "failed"), ended_at = now, verdict
 * (JSON text, may be NULL). */
int pp_calibdb_end_run(pp_store *st, int64_t id, const char *status, const char *verdict_json,
		       pp_err *err);
/* Replace a run's stored verdict (a re-judged run keeps its status and
 * times). PP_ENOTFOUND when the run does not exist. */
int pp_calibdb_set_verdict(pp_store *st, int64_t id, const char *verdict_json, pp_err *err);
/* Add one measurement to run_id and commit it; *id (may be NULL) gets its
 * row id. Rejects rows without kind or with a non-finite time. */
int pp_calibdb_add(pp_store *st, int64_t run_id, const pp_calib_meas *m, int64_t *id,
		   pp_err *err);

/* Read one run (PP_ENOTFOUND when absent). */
int pp_calibdb_get_run(pp_store *st, int64_t id, pp_calib_run *out, pp_err *err);
/* Every run, oldest first; free each with pp_calib_run_release, then free(). */
int pp_calibdb_list_runs(pp_store *st, pp_calib_run **out, size_t *n, pp_err *err);
/* The newest run's id (PP_ENOTFOUND in an empty store). */
int pp_calibdb_latest_run(pp_store *st, int64_t *id, pp_err *err);
/* A run's measurements in insertion order, kind filter optional (NULL =
 * all). Free with pp_calib_meas_free(). */
int pp_calibdb_query(pp_store *st, int64_t run_id, const char *kind, pp_calib_meas **out,
		     size_t *n, pp_err *err);

/* The CSV export: a header line, then one line per measurement of the run.
 * Columns, exactly and in this order first:
 *   kind,op,dtype,nranks,bytes,inplace,m,n,k,time_us,algbw_GBps,busbw_GBps,tflops,GBps
 * then time_min_us,time_max_us,repeats,wrong,device,scope,run_id. Empty
 * fields where a column does not apply. */
extern const char pp_calibdb_csv_header[];
int pp_calibdb_export_csv(pp_store *st, int64_t run_id, pp_sb *out, pp_err *err);
/* The same rows as a JSON array of objects (NULL columns left out). */
int pp_calibdb_export_json(pp_store *st, int64_t run_id, pp_sb *out, pp_err *err);

/* The health verdict podplan-calibrate stores with a run (verdict_json),
 * as a table: check, measured, expected, ratio, OK/SLOW, likely cause.
 * The JSON:
 *   {"format": "podplan-verdict/1", "gpu": "h200", "rows": [
 *     {"check": "all_reduce busbw", "scope": "2 GPUs", "measured": 362.1,
 *      "expected": 369.0, "unit": "GB/s", "ratio": 0.981, "verdict": "OK",
 *      "basis": "...", "cause": "..."}, ...]}
 * The last line counts the rows: "N OK, M SLOW", and ", K WRONG" when a
 * check found wrong results.
 * Returns PP_EINPUT when the text is not such a document. */
int pp_calibdb_format_verdict(const char *verdict_json, pp_sb *out, pp_err *err);
/* The number of rows of a verdict (the JSON above) whose verdict is
 * `verdict` ("OK", "SLOW", "WRONG", "n/a"); -1 when the text is not a
 * verdict. */
int pp_calibdb_verdict_count(const char *verdict_json, const char *verdict);

/* "interrupted" for a run left "running" by a process of this host that no
 * longer exists (extra_json's "pid" and "writer_host"), else the stored
 * status. */
const char *pp_calibdb_effective_status(const pp_calib_run *r);

#endif
