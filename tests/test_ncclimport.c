/*
 * test_ncclimport.c - nccl-tests logs into the calibration tables. The logs
 * in tests/data/nccl-tests/ are in nccl-tests' exact formats (three
 * generations of its printf formats; make_samples.py there writes them):
 * 8 and 16 ranks, one and two hosts, with and without in-place columns,
 * checked and unchecked (#wrong N/A), old max-error columns, NCCL INFO
 * chatter, two programs in one file. Expected values are read off the log
 * lines quoted in the comments, or computed from nccl-tests' formulas.
 * Damaged numbers (overflowing counts, a #wrong of 1e30) are messages, and
 * names with terminal escapes are printed escaped.
 */
#include "calib/calibdb.h"
#include "harness.h"
#include "calib/ncclimport.h"
#include "core/store.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DATA "tests/data/nccl-tests/"

static int parse_file(const char *name, const pp_ncclimport_opts *o, pp_nccl_log *log, pp_err *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc = pp_read_file(name, 1 << 24, &text, &len, err);
	if (!rc)
		rc = pp_nccl_log_parse(name, text, o, log, err);
	free(text);
	return rc;
}

static const pp_nccl_row *row_of(const pp_nccl_section *s, int64_t size)
{
	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].size_bytes == size)
			return &s->rows[i];
	return NULL;
}

static void test_all_reduce_8(void)
{
	pp_nccl_log log;
	pp_err err = {0};
	CHECK(parse_file(DATA "all_reduce_perf_8gpu.log", NULL, &log, &err) == 0);
	CHECK(log.nsections == 1);
	const pp_nccl_section *s = &log.sections[0];
	CHECK(!strcmp(s->op, "all_reduce") && !strcmp(s->op_from, "log"));
	CHECK(s->nranks == 8 && s->nhosts == 1 && !strcmp(s->hosts, "dgx-h100-01"));
	CHECK(!strcmp(s->gpu_name, "NVIDIA H100 80GB HBM3"));
	CHECK(!strcmp(s->nccl_version, "22803"));
	CHECK(s->nrows == 25 && s->iters == 20);
	CHECK_NEAR(s->avg_busbw_GBps, 78.0437, 1e-9);
	CHECK(s->out_of_bounds == 0);
	/* "134217728  33554432  float  sum  -1   682.28  196.72  344.26  0   674.45  199.00  348.26  0" */
	const pp_nccl_row *r = row_of(s, 134217728);
	CHECK(r && r->count == 33554432 && !strcmp(r->type, "float") && !strcmp(r->redop, "sum"));
	CHECK(r && r->root == -1 && r->has[0] && r->has[1]);
	CHECK(r && r->time_us[0] == 682.28 && r->algbw_GBps[0] == 196.72 && r->busbw_GBps[0] == 344.26);
	CHECK(r && r->time_us[1] == 674.45 && r->busbw_GBps[1] == 348.26 && r->wrong[1] == 0);
	/* nccl-tests' formulas hold on the printed figures: algbw = size / time,
	 * all_reduce busbw = algbw x 2(n-1)/n = 1.75 x algbw on 8 ranks */
	CHECK(r && fabs(134217728 / (r->time_us[0] * 1e3) - r->algbw_GBps[0]) < 0.01);
	CHECK(r && fabs(r->busbw_GBps[0] - 1.75 * r->algbw_GBps[0]) < 0.01);
	CHECK(!log.warnings[0]);
	pp_nccl_log_release(&log);
}

static void test_all_gather_16_two_nodes(void)
{
	pp_nccl_log log;
	pp_err err = {0};
	/* the log does not name the program (no "# Collective test starting"),
	 * and all_gather and alltoall print the same columns and the same
	 * busbw/algbw ratio (n-1)/n: the file name is not read, --op must say */
	CHECK(parse_file(DATA "all_gather_perf.16ranks.2nodes.log", NULL, &log, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "all_gather_perf.16ranks.2nodes.log:28: the log does not name its "
		       "collective");
	CHECK_CONTAINS(err.msg, "fit all_gather or alltoall alike; name it with --op");
	pp_ncclimport_opts o = {.op = "all_gather"};
	CHECK(parse_file(DATA "all_gather_perf.16ranks.2nodes.log", &o, &log, &err) == 0);
	const pp_nccl_section *s = &log.sections[0];
	CHECK(!strcmp(s->op, "all_gather") && !strcmp(s->op_from, "option"));
	CHECK(s->nranks == 16 && s->nhosts == 2 && !strcmp(s->hosts, "node01,node02"));
	CHECK(s->nrows == 11); /* 1 KiB .. 1 GiB by 4 */
	/* "1073741824  16777216  float  none  -1  22181  48.41  45.38  0  21918  48.99  45.93  0" */
	const pp_nccl_row *r = row_of(s, 1073741824);
	CHECK(r && r->count == 16777216 && r->time_us[0] == 22181 && r->busbw_GBps[1] == 45.93);
	/* all_gather busbw = algbw x (n-1)/n */
	CHECK(r && fabs(r->busbw_GBps[0] - r->algbw_GBps[0] * 15.0 / 16.0) < 0.01);
	CHECK_NEAR(pp_nccl_busbw_factor("all_gather", 16), 15.0 / 16.0, 1e-12);
	pp_nccl_log_release(&log);
}

static void test_oldest_format_inferred(void)
{
	pp_nccl_log log;
	pp_err err = {0};
	CHECK(parse_file(DATA "nccl16.log", NULL, &log, &err) == 0);
	const pp_nccl_section *s = &log.sections[0];
	/* no root column, a max-error column, the collective only in the columns:
	 * redop sum and size = count x 2 B x 16 ranks is reduce_scatter */
	CHECK(!strcmp(s->op, "reduce_scatter") && !strcmp(s->op_from, "columns"));
	CHECK(s->nranks == 16 && s->iters == 50 && !strcmp(s->gpu_name, "NVIDIA A100-SXM4-80GB"));
	/* "1073741824  33554432  half  sum  23193  46.30  43.40  0e+00  22918  46.85  43.92  0e+00" */
	const pp_nccl_row *r = row_of(s, 1073741824);
	CHECK(r && r->root == -1 && r->time_us[0] == 23193 && r->time_us[1] == 22918);
	CHECK(r && r->max_error[0] == 0 && r->wrong[0] == PP_CALIB_NULL);
	pp_nccl_log_release(&log);
	/* --op names the collective, and is checked against the ratio: this
	 * log's "16.89 15.84" (busbw/algbw 0.938 = 15/16) is not all_reduce's
	 * 2 x 15/16 = 1.875 */
	pp_ncclimport_opts o = {.op = "all_reduce"};
	CHECK(parse_file(DATA "nccl16.log", &o, &log, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "nccl16.log:24: the --op option names all_reduce, whose busbw is "
		       "algbw x 2(n-1)/n = 1.875 on 16 ranks; found busbw/algbw 15.84/16.89 = 0.9378");
	CHECK_CONTAINS(err.msg, "which fits all_gather, reduce_scatter, alltoall, gather or scatter");
	o.op = "reduce_scatter";
	CHECK(parse_file(DATA "nccl16.log", &o, &log, &err) == 0);
	CHECK(!strcmp(log.sections[0].op, "reduce_scatter") && !strcmp(log.sections[0].op_from, "option"));
	pp_nccl_log_release(&log);
}

static void test_out_of_place_only(void)
{
	pp_nccl_log log;
	pp_err err = {0};
	CHECK(parse_file(DATA "alltoall_perf_8gpu_outofplace.log", NULL, &log, &err) == 0);
	const pp_nccl_section *s = &log.sections[0];
	CHECK(!strcmp(s->op, "alltoall") && s->nranks == 8 && s->nrows == 25);
	bool any_in = false;
	for (size_t i = 0; i < s->nrows; i++)
		any_in |= s->rows[i].has[1];
	CHECK(!any_in);
	/* "1073741824  33554432  float  none  -1  2826.47  379.89  332.40  N/A" */
	const pp_nccl_row *r = row_of(s, 1073741824);
	CHECK(r && r->has[0] && r->time_us[0] == 2826.47 && r->wrong[0] == PP_CALIB_NULL);
	CHECK(r && fabs(r->busbw_GBps[0] - r->algbw_GBps[0] * 7.0 / 8.0) < 0.01);
	pp_nccl_log_release(&log);
}

static void test_two_programs(void)
{
	pp_nccl_log log;
	pp_err err = {0};
	CHECK(parse_file(DATA "broadcast_sendrecv_8gpu.log", NULL, &log, &err) == 0);
	CHECK(log.nsections == 2);
	CHECK(!strcmp(log.sections[0].op, "broadcast") && log.sections[0].nrows == 6);
	CHECK(!strcmp(log.sections[1].op, "sendrecv") && log.sections[1].nrows == 6);
	/* broadcast's root column is 0, sendrecv's -1 */
	CHECK(log.sections[0].rows[0].root == 0 && log.sections[1].rows[0].root == -1);
	CHECK_NEAR(log.sections[1].avg_busbw_GBps, 270.498, 1e-9);
	pp_nccl_log_release(&log);
}

static void test_store_import(void)
{
	pp_store *st = NULL;
	pp_err err = {0};
	char path[512];
	snprintf(path, sizeof(path), "%s/imp.db", pp_t_tmpdir());
	unlink(path);
	CHECK(pp_store_open(&st, path, &err) == 0);
	int64_t run = 0;
	pp_ncclimport_opts ag = {.op = "all_gather"};
	CHECK(pp_ncclimport_file(st, DATA "all_gather_perf.16ranks.2nodes.log", &ag, &run, NULL, &err) == 0);
	pp_calib_run r;
	CHECK(pp_calibdb_get_run(st, run, &r, &err) == 0);
	CHECK(!strcmp(r.source, "nccl-tests") && !strcmp(r.status, "complete"));
	CHECK(r.gpu_count == 16 && r.n_measurements == 22);
	CHECK(r.extra_json && strstr(r.extra_json, "\"avg_busbw_GBps\":21.4948"));
	pp_calib_run_release(&r);
	pp_calib_meas *rows = NULL;
	size_t n = 0;
	CHECK(pp_calibdb_query(st, run, "collective", &rows, &n, &err) == 0 && n == 22);
	/* two hosts: the net scope; the mean time is the statistic */
	CHECK(n && !strcmp(rows[0].scope, "net") && rows[0].nranks == 16 && rows[0].repeats == 20);
	CHECK(n && strstr(rows[0].extra_json, "\"stat\":\"mean\""));
	CHECK(n && rows[n - 1].bytes == 1073741824 && rows[n - 1].inplace == 1 &&
	      rows[n - 1].time_us == 21918);
	pp_calib_meas_free(rows, n);
	/* the NCCL version code becomes a version */
	CHECK(pp_ncclimport_file(st, DATA "all_reduce_perf_8gpu.log", NULL, &run, NULL, &err) == 0);
	CHECK(pp_calibdb_get_run(st, run, &r, &err) == 0);
	CHECK(!strcmp(r.nccl_version, "2.28.3") && r.n_measurements == 50);
	CHECK(r.host && !strcmp(r.host, "dgx-h100-01"));
	pp_calib_run_release(&r);
	/* a bad log adds nothing (one transaction) */
	char bad[512];
	snprintf(bad, sizeof(bad), "%s/bad.log", pp_t_tmpdir());
	FILE *f = fopen(bad, "w");
	fputs("#  Rank  0 Group  0 Pid 1 on h device  0 [0x18] GPU\n#  Rank  1 Group  0 Pid 1 on h "
	      "device  1 [0x19] GPU\n#       size         count      type   redop    root     time   "
	      "algbw   busbw #wrong     time   algbw   busbw #wrong\n"
	      "        1024           256     float     sum      -1    12.00    0.09    0.09      0"
	      "    12.00    0.09    0.09      0\n        2048           512     float     sum      -1"
	      "    oops    0.09    0.09      0    12.00    0.09    0.09      0\n", f);
	fclose(f);
	int64_t before = 0, after = 0;
	pp_calibdb_latest_run(st, &before, &err);
	CHECK(pp_ncclimport_file(st, bad, NULL, &run, NULL, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "bad.log:5: field 6: found 'oops', expected a number");
	pp_calibdb_latest_run(st, &after, &err);
	CHECK(before == after);
	pp_store_close(st);
}

static int parse_text(const char *text, const pp_ncclimport_opts *o, pp_err *err)
{
	pp_nccl_log log;
	int rc = pp_nccl_log_parse("x.log", text, o, &log, err);
	if (!rc)
		pp_nccl_log_release(&log);
	return rc;
}

static void test_errors(void)
{
	pp_err err = {0};
	const char *devs = "#  Rank  0 Group  0 Pid 1 on h device  0 [0x18] GPU\n"
			   "#  Rank  1 Group  0 Pid 1 on h device  1 [0x19] GPU\n";
	const char *hdr = "#       size         count      type   redop    root     time   algbw   "
			  "busbw #wrong     time   algbw   busbw #wrong\n";
	char buf[2048];
	/* a result row before the header */
	snprintf(buf, sizeof(buf), "%s        1024           256     float     sum      -1    12.00    "
		 "0.09    0.09      0    12.00    0.09    0.09      0\n", devs);
	CHECK(parse_text(buf, NULL, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "x.log:3: a result row before any column header");
	/* all_gather and alltoall print alike: the name must come from somewhere */
	snprintf(buf, sizeof(buf), "%s%s        1024           128     float    none      -1    12.00    "
		 "0.09    0.04      0    12.00    0.09    0.04      0\n", devs, hdr);
	CHECK(parse_text(buf, NULL, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "--op");
	pp_ncclimport_opts o = {.op = "all_gather"};
	CHECK(parse_text(buf, &o, &err) == 0);
	o.op = "allgather";
	CHECK(parse_text(buf, &o, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "did you mean 'all_gather'");
	/* a row with a column missing */
	snprintf(buf, sizeof(buf), "%s%s        1024           256     float     sum      -1    12.00    "
		 "0.09    0.09      0    12.00    0.09\n", devs, hdr);
	CHECK(parse_text(buf, NULL, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "x.log:4: a result row with 11 fields; the header above it has 13");
	/* no device list: the ranks are unknown unless given */
	snprintf(buf, sizeof(buf), "%s     1048576        262144     float     sum      -1   116.51    "
		 "9.00    9.00      0   116.51    9.00    9.00      0\n", hdr);
	CHECK(parse_text(buf, NULL, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "--nranks");
	pp_ncclimport_opts on = {.nranks = 4};
	/* all_reduce on 4 ranks: busbw = algbw x 2 x 3/4 = 13.50, not 9.00 */
	CHECK(parse_text(buf, &on, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "ratio fits none of them over 4 ranks");
	snprintf(buf, sizeof(buf), "%s     1048576        262144     float     sum      -1   116.51    "
		 "9.00   13.50      0   116.51    9.00   13.50      0\n", hdr);
	CHECK(parse_text(buf, &on, &err) == 0);
	/* a small message's 0.09/0.09 does not tell the ratio (0.09 could be
	 * 0.085 to 0.095): not judged, the columns say all_reduce */
	snprintf(buf, sizeof(buf), "%s        1024           256     float     sum      -1    12.00    "
		 "0.09    0.09      0    12.00    0.09    0.09      0\n", hdr);
	pp_nccl_log lg;
	CHECK(pp_nccl_log_parse("x.log", buf, &on, &lg, &err) == 0);
	CHECK(lg.nsections == 1 && !strcmp(lg.sections[0].op, "all_reduce"));
	pp_nccl_log_release(&lg);
	/* nothing to import */
	CHECK(parse_text("hello\n# nThread 1 nGpus 1\n", NULL, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "no nccl-tests result rows");
	/* a footer that does not match the rows: imported, with a warning */
	snprintf(buf, sizeof(buf), "%s%s        1024           256     float     sum      -1    12.00    "
		 "0.09    0.09      0    12.00    0.09    0.09      0\n# Avg bus bandwidth    : 7.5 \n",
		 devs, hdr);
	pp_nccl_log log;
	CHECK(pp_nccl_log_parse("x.log", buf, NULL, &log, &err) == 0);
	CHECK_CONTAINS(log.warnings, "differs from the rows' mean");
	CHECK(!strcmp(log.sections[0].op, "all_reduce") && !strcmp(log.sections[0].op_from, "columns"));
	pp_nccl_log_release(&log);
}

static void test_cli(void)
{
	char cmd[1024], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s calib import-nccl-tests %s %s --db %s/cli.db", pp_t_bin(),
		 DATA "all_gather_perf.16ranks.2nodes.log", DATA "broadcast_sendrecv_8gpu.log",
		 pp_t_tmpdir());
	/* the first log names no collective and could be two: exit 2, the
	 * second is imported all the same */
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "all_gather_perf.16ranks.2nodes.log:28: the log does not name its collective");
	CHECK_CONTAINS(out, "sendrecv (from the log), 8 ranks on 1 host");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s calib import-nccl-tests %s --op all_gather --db %s/cli.db",
		 pp_t_bin(), DATA "all_gather_perf.16ranks.2nodes.log", pp_t_tmpdir());
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "all_gather (from the option), 16 ranks on 2 hosts, 11 sizes, 22 rows");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s calib import-nccl-tests %s/nope.log --db %s/cli.db", pp_t_bin(),
		 pp_t_tmpdir(), pp_t_tmpdir());
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "nope.log");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s calib import-nccl-tests %s --scope nvlinks --db %s/cli.db",
		 pp_t_bin(), DATA "nccl16.log", pp_t_tmpdir());
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "--scope");
	free(out);
}

/* Damaged numbers: a count whose product with the type size overflows
 * int64 (the collective is inferred by division), a #wrong of 1e30 (no
 * int64 holds it; it was stored as NULL, "not checked"), sizes past 2^53,
 * a root that is not a rank, an iteration count past INT_MAX. Each is a
 * message or a clean inference, never undefined behaviour (the sanitizer
 * pass checks). */
static void test_damaged_numbers(void)
{
	pp_err err = {0};
	const char *devs = "#  Rank  0 Group  0 Pid 1 on h device  0 [0x18] GPU\n"
			   "#  Rank  1 Group  0 Pid 1 on h device  1 [0x19] GPU\n";
	const char *hdr = "#       size         count      type   redop    root     time   algbw   "
			  "busbw #wrong     time   algbw   busbw #wrong\n";
	char buf[2048];
	/* count x 4 x 2 ranks overflows; neither shape matches */
	snprintf(buf, sizeof(buf), "%s%s  8   4611686018427387904   float     sum      -1    12.00    "
		 "0.09    0.09      0    12.00    0.09    0.09      0\n", devs, hdr);
	CHECK(parse_text(buf, NULL, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "size and count must be whole numbers up to 2^53");
	snprintf(buf, sizeof(buf), "%s%s  8   2305843009213693952   float     sum      -1    12.00    "
		 "0.09    0.09      0    12.00    0.09    0.09      0\n", devs, hdr);
	CHECK(parse_text(buf, NULL, &err) == PP_EINPUT);
	/* reduce_scatter on 2 ranks: busbw = algbw / 2 */
	snprintf(buf, sizeof(buf), "%s%s  9007199254740992   1125899906842624   float     sum      -1    "
		 "12.00    0.09    0.05      0    12.00    0.09    0.05      0\n", devs, hdr);
	pp_nccl_log log;
	CHECK(pp_nccl_log_parse("x.log", buf, NULL, &log, &err) == 0);
	CHECK(!strcmp(log.sections[0].op, "reduce_scatter")); /* 2^53 = 2^50 x 4 x 2 */
	pp_nccl_log_release(&log);
	snprintf(buf, sizeof(buf), "%s%s  1024  256   float     sum      -1    12.00    "
		 "0.09    0.09      1e30    12.00    0.09    0.09      0\n", devs, hdr);
	CHECK(parse_text(buf, NULL, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "x.log:4: field 9: found '1e30', expected the number of wrong elements");
	snprintf(buf, sizeof(buf), "%s%s  1024  256   float     sum      -1    12.00    "
		 "0.09    0.09      -2    12.00    0.09    0.09      0\n", devs, hdr);
	CHECK(parse_text(buf, NULL, &err) == PP_EINPUT);
	snprintf(buf, sizeof(buf), "%s%s  1024  256   float     sum    x7    12.00    "
		 "0.09    0.09      0    12.00    0.09    0.09      0\n", devs, hdr);
	CHECK(parse_text(buf, NULL, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "found root 'x7', expected a rank or -1");
	snprintf(buf, sizeof(buf), "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup "
		 "iters: 5 iters: 99999999999999999999 agg iters: 1\n%s%s  1024  256   float     sum      "
		 "-1    12.00    0.09    0.09      0    12.00    0.09    0.09      0\n# Out of bounds "
		 "values : 99999999999999999999999 OK\n", devs, hdr);
	CHECK(pp_nccl_log_parse("x.log", buf, NULL, &log, &err) == 0);
	CHECK(log.sections[0].iters == 0 && log.sections[0].out_of_bounds == PP_CALIB_NULL);
	pp_nccl_log_release(&log);
	snprintf(buf, sizeof(buf), "#  Rank 99999999999 Group  0 Pid 1 on h device  0 [0x18] GPU\n%s  "
		 "1024  256   float     sum      -1    12.00    0.09    0.09      0    12.00    0.09    "
		 "0.09      0\n", hdr);
	CHECK(parse_text(buf, NULL, &err) == PP_EINPUT); /* no usable rank line */
}

/* Host and GPU names with terminal escapes in a log: stored as they are,
 * printed by calib list and calib show with every control byte as \xNN. */
static void test_names_on_terminal(void)
{
	char log[600], cmd[2048], *out = NULL;
	snprintf(log, sizeof(log), "%s/evil_all_reduce_perf.log", pp_t_tmpdir());
	FILE *f = fopen(log, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "# nThread 1 nGpus 2 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 "
		   "iters: 20\n#  Rank  0 Group  0 Pid 1 on \x1b]0;pwned\x07host device  0 [0x18] "
		   "NVIDIA \x1b[2JH100\n#  Rank  1 Group  0 Pid 1 on \x1b]0;pwned\x07host device  1 [0x19] "
		   "NVIDIA \x1b[2JH100\n#       size         count      type   redop    root     time   "
		   "algbw   busbw #wrong     time   algbw   busbw #wrong\n        1024           256     "
		   "float     sum      -1    12.00    0.09    0.09      0    12.00    0.09    0.09      "
		   "0\n");
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s calib import-nccl-tests %s --db %s/evil.db && %s calib list "
		 "--db %s/evil.db && %s calib show 1 --db %s/evil.db", pp_t_bin(), log, pp_t_tmpdir(),
		 pp_t_bin(), pp_t_tmpdir(), pp_t_bin(), pp_t_tmpdir());
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK(out && !strchr(out, '\x1b') && !strchr(out, '\x07'));
	CHECK_CONTAINS(out, "\\x1b]0;pwned\\x07host");
	CHECK_CONTAINS(out, "NVIDIA \\x1b[2JH100");
	free(out);
}

/* Issue 17: a log named "...allreduce..." was imported as reduce (the
 * longest collective name inside the file name). The file name is not
 * read: the columns and the busbw/algbw ratio decide. Rows made from
 * nccl-tests' formulas on 8 ranks: algbw = size / time, all_reduce busbw =
 * algbw x 2 x 7/8 = 1.75 x algbw, reduce busbw = algbw. */
static void write_log(const char *path, const char *collective_line, bool root_col, double factor)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	if (collective_line)
		fprintf(f, "%s\n", collective_line);
	fprintf(f, "# nThread 1 nGpus 8 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup "
		   "iters: 5 iters: 20\n#\n# Using devices\n");
	for (int r = 0; r < 8; r++)
		fprintf(f, "#  Rank %2d Group  0 Pid 1 on h device %2d [0x18] NVIDIA H100 80GB HBM3\n", r, r);
	fprintf(f, "#\n#       size         count      type   redop  %s   time   algbw   busbw #wrong\n",
		root_col ? "  root" : "");
	for (long long size = 1048576; size <= 4194304; size *= 2) {
		double t_us = 20.0 + size / 100e3; /* 100 GB/s after 20 us */
		double alg = size / 1e3 / t_us;
		fprintf(f, "%12lld  %12lld     float     sum  %s  %7.2f  %6.2f  %6.2f      0\n", size,
			size / 4, root_col ? "    -1" : "", t_us, alg, alg * factor);
	}
	fclose(f);
}

static void test_collective_from_log_not_file_name(void)
{
	char path[600];
	pp_nccl_log log;
	pp_err err = {0};
	snprintf(path, sizeof(path), "%s/pod7_allreduce_8gpu.log", pp_t_tmpdir());
	/* redop sum, root -1, whole count: all_reduce by the columns */
	write_log(path, NULL, true, 1.75);
	CHECK(parse_file(path, NULL, &log, &err) == 0);
	CHECK(log.nsections == 1 && !strcmp(log.sections[0].op, "all_reduce"));
	CHECK(!strcmp(log.sections[0].op_from, "columns"));
	pp_nccl_log_release(&log);
	/* an older log with no root column: all_reduce and reduce print alike,
	 * the ratio 1.75 = 2(n-1)/n decides */
	write_log(path, NULL, false, 1.75);
	CHECK(parse_file(path, NULL, &log, &err) == 0);
	CHECK(log.nsections == 1 && !strcmp(log.sections[0].op, "all_reduce"));
	CHECK(!strcmp(log.sections[0].op_from, "busbw/algbw ratio and columns"));
	pp_nccl_log_release(&log);
	/* the same columns with busbw = algbw: reduce */
	write_log(path, NULL, false, 1.0);
	CHECK(parse_file(path, NULL, &log, &err) == 0);
	CHECK(log.nsections == 1 && !strcmp(log.sections[0].op, "reduce"));
	pp_nccl_log_release(&log);
	/* columns of a reduction, a ratio of no reduction: an error naming both */
	write_log(path, NULL, true, 7.0 / 8.0);
	CHECK(parse_file(path, NULL, &log, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "its columns fit all_reduce, but its busbw/algbw ratio fits none");
}

/* A log whose header names one collective and whose rows have another's
 * busbw/algbw ratio is an error at the first row that shows it, with the
 * figures found and the factor expected. */
static void test_named_collective_checked(void)
{
	char path[600], cmd[1400], *out = NULL;
	pp_nccl_log log;
	pp_err err = {0};
	snprintf(path, sizeof(path), "%s/reduce_perf.log", pp_t_tmpdir());
	write_log(path, "# Collective test starting: reduce_perf", false, 1.75);
	CHECK(parse_file(path, NULL, &log, &err) == PP_EINPUT);
	/* row 1 (log line 15): 1 MiB in 20 + 10.49 us = 34.40 GB/s, busbw x 1.75 = 60.19 */
	CHECK_CONTAINS(err.msg, "reduce_perf.log:15: the log at line 1 names reduce, whose busbw is "
		       "algbw x 1 on 8 ranks; found busbw/algbw 60.19/34.40 = 1.75 (out-of-place), "
		       "which fits all_reduce");
	write_log(path, "# Collective test starting: all_reduce_perf", false, 1.75);
	CHECK(parse_file(path, NULL, &log, &err) == 0);
	CHECK(!strcmp(log.sections[0].op, "all_reduce") && !strcmp(log.sections[0].op_from, "log"));
	pp_nccl_log_release(&log);
	/* a program this importer does not know is named, not guessed */
	write_log(path, "# Collective test starting: ./build/alltoallv_perf", true, 1.75);
	CHECK(parse_file(path, NULL, &log, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "reduce_perf.log:1: the log names the program './build/alltoallv_perf'");
	/* the command exits 2 with the message */
	write_log(path, "# Collective test starting: broadcast_perf", false, 1.75);
	snprintf(cmd, sizeof(cmd), "%s calib import-nccl-tests %s --db %s/named.db", pp_t_bin(), path,
		 pp_t_tmpdir());
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "names broadcast, whose busbw is algbw x 1 on 8 ranks");
	free(out);
	/* hypercube's busbw is its algbw (src/hypercube.cu), which already counts n-1 blocks */
	CHECK_NEAR(pp_nccl_busbw_factor("hypercube", 8), 1.0, 1e-12);
	CHECK_NEAR(pp_nccl_busbw_factor("all_reduce", 8), 1.75, 1e-12);
	CHECK_NEAR(pp_nccl_busbw_factor("alltoall", 8), 0.875, 1e-12);
	CHECK_NEAR(pp_nccl_busbw_factor("sendrecv", 8), 1.0, 1e-12);
}

int main(void)
{
	RUN(test_all_reduce_8);
	RUN(test_all_gather_16_two_nodes);
	RUN(test_collective_from_log_not_file_name);
	RUN(test_named_collective_checked);
	RUN(test_oldest_format_inferred);
	RUN(test_out_of_place_only);
	RUN(test_two_programs);
	RUN(test_store_import);
	RUN(test_errors);
	RUN(test_damaged_numbers);
	RUN(test_cli);
	RUN(test_names_on_terminal);
	return pp_t_done("test_ncclimport");
}
