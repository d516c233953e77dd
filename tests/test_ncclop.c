/*
 * test_ncclop.c - which nccl-tests collective a log section measured
 * (calib/ncclop.h), on sections built by hand over 8 ranks: the bus
 * factors of nccl-tests' doc/PERFORMANCE.md (all_reduce 2(n-1)/n = 1.75,
 * all_gather (n-1)/n = 0.875, broadcast 1), the columns that tell a
 * collective apart, and the errors when a name and the rows disagree or
 * several collectives fit alike.
 */
#include "calib/ncclop.h"
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A section of three rows over 8 float ranks: sizes 1, 4 and 16 MiB, the
 * count size/4 (whole) or size/32 (per rank), busbw = algbw x f. */
static void section(pp_nccl_section *s, pp_nccl_row *rows, const char *redop, int root,
		    bool per_rank, double f)
{
	memset(s, 0, sizeof(*s));
	s->line = 1;
	s->nranks = 8;
	s->rows = rows;
	s->nrows = 3;
	for (int i = 0; i < 3; i++) {
		pp_nccl_row *r = &rows[i];
		memset(r, 0, sizeof(*r));
		r->line = 10 + i;
		r->size_bytes = (int64_t)1 << (20 + 2 * i);
		r->count = r->size_bytes / (per_rank ? 32 : 4);
		snprintf(r->type, sizeof(r->type), "float");
		snprintf(r->redop, sizeof(r->redop), "%s", redop);
		r->root = root;
		r->root_known = true;
		r->has[0] = true;
		r->time_us[0] = 100.0 * (i + 1);
		r->algbw_GBps[0] = 40.0 + 10 * i;
		r->busbw_GBps[0] = r->algbw_GBps[0] * f;
		r->max_error[0] = NAN;
	}
}

static void factors(void)
{
	CHECK(pp_nccl_busbw_factor("all_reduce", 8) == 1.75);
	CHECK(pp_nccl_busbw_factor("reduce_scatter", 8) == 0.875);
	CHECK(pp_nccl_busbw_factor("broadcast", 8) == 1.0);
	CHECK(pp_nccl_busbw_factor("all_reduce", 0) == 0.0); /* 0 ranks read as one: nothing crosses */
	CHECK(pp_nccl_op_known("alltoall") && !pp_nccl_op_known("allreduce"));
}

/* Unnamed: a reduction (redop sum) without a root, whole count: only
 * all_reduce's columns; ratio 1.75 agrees. */
static void from_columns(void)
{
	pp_nccl_section s;
	pp_nccl_row rows[3];
	pp_err err = {0};
	section(&s, rows, "sum", -1, false, 1.75);
	CHECK(pp_nccl_section_identify("x.log", &s, &err) == 0);
	CHECK(!strcmp(s.op, "all_reduce"));
	CHECK(!strcmp(s.op_from, "columns"));
	/* a rooted reduction: reduce */
	section(&s, rows, "sum", 0, false, 1.0);
	CHECK(pp_nccl_section_identify("x.log", &s, &err) == 0);
	CHECK(!strcmp(s.op, "reduce"));
}

/* Unnamed, no reduction, per-rank count, ratio 0.875: all_gather,
 * alltoall, gather and scatter print alike but for the root; without a
 * root (-1) all_gather and alltoall fit alike: an error asking for --op. */
static void ambiguous(void)
{
	pp_nccl_section s;
	pp_nccl_row rows[3];
	pp_err err = {0};
	section(&s, rows, "none", -1, true, 0.875);
	CHECK(pp_nccl_section_identify("x.log", &s, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "x.log:10:");
	CHECK_CONTAINS(err.msg, "all_gather");
	CHECK_CONTAINS(err.msg, "alltoall");
	CHECK_CONTAINS(err.msg, "--op");
}

/* Named by the log as all_gather, rows at all_reduce's ratio: refused,
 * naming the ratio found and what fits it. */
static void named_mismatch(void)
{
	pp_nccl_section s;
	pp_nccl_row rows[3];
	pp_err err = {0};
	section(&s, rows, "sum", -1, false, 1.75);
	snprintf(s.op, sizeof(s.op), "all_gather");
	snprintf(s.op_from, sizeof(s.op_from), "log");
	s.op_line = 3;
	CHECK(pp_nccl_section_identify("x.log", &s, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "the log at line 3 names all_gather");
	CHECK_CONTAINS(err.msg, "(n-1)/n = 0.875");
	CHECK_CONTAINS(err.msg, "= 1.75");
	CHECK_CONTAINS(err.msg, "which fits all_reduce");
	/* and named rightly it passes */
	snprintf(s.op, sizeof(s.op), "all_reduce");
	CHECK(pp_nccl_section_identify("x.log", &s, &err) == 0);
}

/* A small message's bandwidths, printed to two decimals, do not tell the
 * ratio: "0.02 0.02" could be all_reduce's 1.75 (0.0143 x 1.75 = 0.025)
 * as much as broadcast's 1. Such rows are not judged; a mismatch is shown
 * on a row that tells the ratio, with the collectives whose factor fits. */
static void small_rows_not_judged(void)
{
	pp_nccl_section s;
	pp_nccl_row rows[3];
	pp_err err = {0};
	section(&s, rows, "sum", -1, false, 1.75);
	rows[0].algbw_GBps[0] = 0.02;
	rows[0].busbw_GBps[0] = 0.02;
	snprintf(s.op, sizeof(s.op), "all_reduce");
	snprintf(s.op_from, sizeof(s.op_from), "log");
	CHECK(pp_nccl_section_identify("x.log", &s, &err) == 0);
	/* the larger rows at all_gather's 0.875, named all_reduce: the error
	 * cites row 2 (line 11: 50 x 0.875 = 43.75), not the 0.02/0.02 row */
	section(&s, rows, "sum", -1, false, 0.875);
	rows[0].algbw_GBps[0] = 0.02;
	rows[0].busbw_GBps[0] = 0.01;
	snprintf(s.op, sizeof(s.op), "all_reduce");
	snprintf(s.op_from, sizeof(s.op_from), "option");
	CHECK(pp_nccl_section_identify("x.log", &s, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "x.log:11: the --op option names all_reduce");
	CHECK_CONTAINS(err.msg, "found busbw/algbw 43.75/50.00 = 0.875");
	CHECK_CONTAINS(err.msg, "which fits all_gather, reduce_scatter, alltoall, gather or scatter");
	CHECK(!strstr(err.msg, "0.01/0.02"));
}

int main(void)
{
	RUN(factors);
	RUN(from_columns);
	RUN(small_rows_not_judged);
	RUN(ambiguous);
	RUN(named_mismatch);
	return pp_t_done("test_ncclop");
}
