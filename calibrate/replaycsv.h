/*
 * replaycsv.h - the CSV files podplan-calibrate replay appends to, written
 * through the one CSV writer (core/csv.h: CRLF after every row, RFC 4180
 * quoting, formula-leading text cells neutralised). CPU only: no CUDA
 * header, so the tests compile it without nvcc.
 *
 *   --csv FILE     one row per replayed scenario (PP_RCSV_STEP_HEADER);
 *                  `podplan validate --replay FILE` reads it
 *   --op-csv FILE  one row per distinct GEMM and memory op of GPU 0 timed
 *                  alone (PP_RCSV_OP_HEADER)
 *
 * Cells: times %.6f s (op rows %.6e s), error_pct %.2f, work (FLOPs or
 * bytes) %.0f; an undefined figure is an empty cell.
 */
#ifndef PP_CAL_REPLAYCSV_H
#define PP_CAL_REPLAYCSV_H

#include "core/pp.h"
#include "core/util.h"
#include <stdint.h>

#define PP_RCSV_STEP_HEADER "config,predicted_s,measured_s,error_pct,measured_min_s," \
	"measured_max_s,steps,warmup,plan_s,profile,scenario"
#define PP_RCSV_OP_HEADER "config,kind,name,shape,batch,work,count_per_step,sim_s,measured_s"

/* One replayed scenario. */
typedef struct pp_rcsv_step {
	const char *config;       /* the scenario's name and diagnostic flags */
	double predicted_s, measured_s, error; /* error = (predicted - measured) / measured */
	double measured_min_s, measured_max_s;
	int steps, warmup;
	double plan_s;            /* the plan executed on paper */
	const char *profile;      /* the calibration profile, "catalog" without one */
	const char *scenario;     /* the scenario file */
} pp_rcsv_step;

/* Append the row of one scenario to out. */
void pp_rcsv_step_row(pp_sb *out, const pp_rcsv_step *r);
/* Append the row of a GEMM (D[m x n] = A[m x k] B[k x n], batch times;
 * work = 2mnk x batch FLOPs) or of a memory-bound op (kind "mem", work in
 * bytes), each issued count times a step, simulated sim_s and measured
 * alone measured_s. */
void pp_rcsv_gemm_row(pp_sb *out, const char *config, const char *name, int64_t m, int64_t n,
		      int64_t k, int64_t batch, int count, double sim_s, double measured_s);
void pp_rcsv_mem_row(pp_sb *out, const char *config, const char *name, double bytes, int count,
		     double sim_s, double measured_s);

/* Append rows (whole CRLF rows) to the CSV at path and empty rows: a new
 * file starts with header; an existing one is kept as it is, with a line
 * end added when its last line has none. Written atomically
 * (pp_write_file_atomic). Nothing to do (0) when path is NULL or rows is
 * empty; on an error rows is kept. */
int pp_rcsv_append(const char *path, const char *header, pp_sb *rows, pp_err *err);

#endif
