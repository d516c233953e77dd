/*
 * cjobsint.h - what cjobs.c and cjobimport.c share: cell parsers that
 * report "FILE:ROW: column NAME: found X, expected Y", and the importers.
 */
#ifndef PP_CJOBSINT_H
#define PP_CJOBSINT_H

#include "cluster/cjobs.h"
#include "core/csv.h"

int cj_num(const char *file, int row, const char *col, const char *s, double lo, double hi,
	   double *out, pp_err *err);
/* the most GPUs (and nodes) one job record may name, in every format */
#define CJ_MAX_GPUS 10000000
#define CJ_MAX_NODES 1000000

int cj_int(const char *file, int row, const char *col, const char *s, long lo, long hi,
	   int32_t *out, pp_err *err);
int cj_time(const char *file, int row, const char *col, const char *s, double *out,
	    pp_err *err);
/* idx[i] = the column of cols[i]; a missing one is PP_EINPUT naming fmt */
int cj_need(const char *file, const pp_csv *c, const char *const *cols, int n, int *idx,
	    const char *fmt, pp_err *err);

/* row i's serving columns (cols: replicas_min, replicas_max, replica_rps,
 * demand_rps, -1 = absent) into a new pp_cserve_dep of x (cjserve.c) */
int cj_serve_cols(pp_cjobs *j, const char *file, const pp_csv *c, int i, pp_cjob *x,
		  const int cols[4], pp_err *err);

int cj_parse_sacct(pp_cjobs *j, const char *file, const pp_csv *c, pp_err *err);
int cj_parse_acme(pp_cjobs *j, const char *file, const pp_csv *c, bool helios, pp_err *err);
int cj_parse_openb(pp_cjobs *j, const char *file, const pp_csv *c, pp_err *err);
int cj_parse_philly(pp_cjobs *j, const char *file, const char *text, size_t len, pp_err *err);

#endif
