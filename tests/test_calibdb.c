/*
 * test_calibdb.c - the calibration tables: runs and measurements round-trip
 * through the store, NULL columns stay NULL, the CSV export has exactly the
 * issue's columns first, a run killed without closing reads as interrupted,
 * and the podplan calib commands answer with the right exit status.
 */
#include "calib/calibdb.h"
#include "harness.h"
#include "core/store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dbpath[512];

static pp_store *fresh(const char *name)
{
	pp_store *st = NULL;
	pp_err err = {0};
	snprintf(dbpath, sizeof(dbpath), "%s/%s", pp_t_tmpdir(), name);
	unlink(dbpath);
	if (pp_store_open(&st, dbpath, &err))
		pp_t_diag("store: %s", err.msg);
	return st;
}

static int64_t begin(pp_store *st, const char *extra)
{
	pp_calib_run r;
	int64_t id = 0;
	pp_err err = {0};
	pp_calib_run_init(&r);
	r.source = "podplan-calibrate";
	r.command_line = "podplan-calibrate --quick";
	r.host = "node7";
	r.gpu_name = "NVIDIA H200";
	r.gpu_count = 2;
	r.nccl_version = "2.28.3";
	r.topology_json = "{\"links\": [[\"X\", \"NV18\"], [\"NV18\", \"X\"]], \"links_from\": "
			  "\"nvidia-smi topo -m\", \"nics\": []}";
	r.extra_json = extra;
	CHECK(pp_calibdb_begin_run(st, &r, &id, &err) == 0);
	return id;
}

static void test_roundtrip(void)
{
	pp_store *st = fresh("rt.db");
	pp_err err = {0};
	/* the schema this build writes has the calibration tables' extra column */
	CHECK(pp_store_schema_version(st) == pp_store_schema_latest());
	CHECK(pp_store_schema_latest() >= 2);
	int64_t run = begin(st, NULL);
	pp_calib_meas m;
	pp_calib_meas_init(&m);
	m.kind = "collective";
	m.op = "all_reduce";
	m.dtype = "float";
	m.nranks = 2;
	m.bytes = 1073741824;
	m.inplace = 0;
	m.time_us = 3273.54;
	m.time_min_us = 3254.08;
	m.time_max_us = 3293.31;
	/* 2^30 B / 3273.54 us = 328.0063 GB/s; on 2 ranks busbw = algbw */
	m.algbw_GBps = 1073741824.0 / 3273.54e-6 / 1e9;
	m.busbw_GBps = m.algbw_GBps;
	m.repeats = 20;
	m.wrong = 0;
	m.scope = "nvlink";
	int64_t id1 = 0, id2 = 0;
	CHECK(pp_calibdb_add(st, run, &m, &id1, &err) == 0);
	pp_calib_meas g;
	pp_calib_meas_init(&g);
	g.kind = "gemm";
	g.op = "llama3-8b.tp2.qkv.fwd, \"quoted\"";
	g.dtype = "bf16";
	g.m = 8192;
	g.n = 3072;
	g.k = 4096;
	g.time_us = 306.58;
	g.tflops = 2.0 * 8192 * 3072 * 4096 / 306.58e-6 / 1e12;
	g.device = 0;
	CHECK(pp_calibdb_add(st, run, &g, &id2, &err) == 0);
	CHECK(id2 == id1 + 1);
	/* a row without a kind, or with no time, is a programming error */
	pp_calib_meas bad;
	pp_calib_meas_init(&bad);
	bad.time_us = 1;
	CHECK(pp_calibdb_add(st, run, &bad, NULL, &err) == PP_EINTERNAL);
	bad.kind = "gemm";
	bad.time_us = NAN;
	CHECK(pp_calibdb_add(st, run, &bad, NULL, &err) == PP_EINTERNAL);
	pp_calib_meas *rows = NULL;
	size_t n = 0;
	CHECK(pp_calibdb_query(st, run, NULL, &rows, &n, &err) == 0 && n == 2);
	CHECK(!strcmp(rows[0].op, "all_reduce") && rows[0].bytes == 1073741824);
	CHECK_NEAR(rows[0].busbw_GBps, 328.0063, 1e-6);
	CHECK(isnan(rows[0].tflops) && rows[0].m == PP_CALIB_NULL && rows[0].device == PP_CALIB_NULL);
	CHECK(rows[1].inplace == PP_CALIB_NULL && rows[1].device == 0);
	/* 2 x 8192 x 3072 x 4096 / 306.58 us = 672.446 TFLOP/s */
	CHECK_NEAR(rows[1].tflops, 672.446, 1e-5);
	pp_calib_meas_free(rows, n);
	CHECK(pp_calibdb_query(st, run, "gemm", &rows, &n, &err) == 0 && n == 1);
	pp_calib_meas_free(rows, n);

	pp_sb csv = {0};
	CHECK(pp_calibdb_export_csv(st, run, &csv, &err) == 0);
	/* the columns, exactly, first */
	CHECK(!strncmp(csv.buf, "kind,op,dtype,nranks,bytes,inplace,m,n,k,time_us,algbw_GBps,busbw_GBps,"
			       "tflops,GBps,", 83));
	CHECK_CONTAINS(csv.buf, "\ncollective,all_reduce,float,2,1073741824,0,,,,3273.54,328.006,328.006,,,3254.08,3293.31,20,0,,nvlink,");
	/* RFC 4180: a field with a comma or a quote is quoted, quotes doubled */
	CHECK_CONTAINS(csv.buf, "\ngemm,\"llama3-8b.tp2.qkv.fwd, \"\"quoted\"\"\",bf16,,,,8192,3072,4096,");
	pp_sb_release(&csv);
	pp_sb js = {0};
	CHECK(pp_calibdb_export_json(st, run, &js, &err) == 0);
	CHECK_CONTAINS(js.buf, "\"busbw_GBps\":\t328.006325");
	CHECK(!strstr(js.buf, "\"tflops\":\tnan"));
	pp_sb_release(&js);

	CHECK(pp_calibdb_end_run(st, run, "complete", "{\"rows\": []}", &err) == 0);
	pp_calib_run r;
	CHECK(pp_calibdb_get_run(st, run, &r, &err) == 0);
	CHECK(!strcmp(r.status, "complete") && isfinite(r.ended_at) && r.ended_at >= r.started_at);
	CHECK(r.n_measurements == 2 && r.gpu_count == 2 && !strcmp(r.nccl_version, "2.28.3"));
	CHECK(r.cpu_cores == PP_CALIB_NULL);
	pp_calib_run_release(&r);
	CHECK(pp_calibdb_get_run(st, run + 10, &r, &err) == PP_ENOTFOUND);
	CHECK_CONTAINS(err.msg, "podplan calib list");
	CHECK(pp_calibdb_end_run(st, run + 10, "failed", NULL, &err) == PP_ENOTFOUND);
	int64_t latest = 0;
	CHECK(pp_calibdb_latest_run(st, &latest, &err) == 0 && latest == run);
	pp_calib_run up;
	pp_calib_run_init(&up);
	up.cpu_cores = 32;
	up.driver_version = "580.159.04";
	CHECK(pp_calibdb_update_run(st, run, &up, &err) == 0);
	CHECK(pp_calibdb_get_run(st, run, &r, &err) == 0);
	CHECK(r.cpu_cores == 32 && !strcmp(r.driver_version, "580.159.04") && !strcmp(r.host, "node7"));
	pp_calib_run_release(&r);
	pp_store_close(st);
}

static void test_empty_and_status(void)
{
	pp_store *st = fresh("status.db");
	pp_err err = {0};
	int64_t id = 0;
	CHECK(pp_calibdb_latest_run(st, &id, &err) == PP_ENOTFOUND);
	/* a writer that is gone: a child that exited; a writer that lives: us */
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	int stt;
	waitpid(child, &stt, 0);
	char host[256] = "", extra[512];
	gethostname(host, sizeof(host) - 1);
	snprintf(extra, sizeof(extra), "{\"pid\": %ld, \"writer_host\": \"%s\"}", (long)child, host);
	int64_t dead = begin(st, extra);
	snprintf(extra, sizeof(extra), "{\"pid\": %ld, \"writer_host\": \"%s\"}", (long)getpid(), host);
	int64_t live = begin(st, extra);
	snprintf(extra, sizeof(extra), "{\"pid\": %ld, \"writer_host\": \"elsewhere-%s\"}", (long)child,
		 host);
	int64_t other = begin(st, extra);
	pp_calib_run *runs = NULL;
	size_t n = 0;
	CHECK(pp_calibdb_list_runs(st, &runs, &n, &err) == 0 && n == 3);
	CHECK(runs[0].id == dead && !strcmp(pp_calibdb_effective_status(&runs[0]), "interrupted"));
	CHECK(runs[1].id == live && !strcmp(pp_calibdb_effective_status(&runs[1]), "running"));
	/* another host's pid says nothing here */
	CHECK(runs[2].id == other && !strcmp(pp_calibdb_effective_status(&runs[2]), "running"));
	for (size_t i = 0; i < n; i++)
		pp_calib_run_release(&runs[i]);
	free(runs);
	pp_store_close(st);
}

static void test_verdict_format(void)
{
	pp_sb sb = {0};
	pp_err err = {0};
	const char *v = "{\"rows\": [{\"check\": \"all_reduce busbw\", \"scope\": \"2 GPUs, NVLink\", "
			"\"measured\": 180, \"expected\": 369, \"unit\": \"GB/s\", \"ratio\": 0.4878, "
			"\"verdict\": \"SLOW\", \"basis\": \"b\", \"cause\": \"a link is down\"}, "
			"{\"check\": \"gemm bf16\", \"scope\": \"best square\", \"measured\": 809.1, "
			"\"expected\": 792.6, \"unit\": \"TFLOP/s\", \"ratio\": 1.0208, \"verdict\": \"OK\", "
			"\"basis\": \"peak x fraction\", \"cause\": \"\"}]}";
	CHECK(pp_calibdb_format_verdict(v, &sb, &err) == 0);
	CHECK_CONTAINS(sb.buf, "180 GB/s");
	CHECK_CONTAINS(sb.buf, "0.49  SLOW    a link is down");
	CHECK_CONTAINS(sb.buf, "809 TFLOP/s");
	CHECK_CONTAINS(sb.buf, "1.02  OK      peak x fraction");
	CHECK_CONTAINS(sb.buf, "1 OK, 1 SLOW");
	pp_sb_release(&sb);
	CHECK(pp_calibdb_format_verdict("[1, 2]", &sb, &err) == PP_EINPUT);
	CHECK(pp_calibdb_format_verdict(NULL, &sb, &err) == PP_EINPUT);
	pp_sb_release(&sb);
}

static void test_cli(void)
{
	pp_store *st = fresh("cli.db");
	int64_t run = begin(st, NULL);
	pp_calib_meas m;
	pp_err err = {0};
	pp_calib_meas_init(&m);
	m.kind = "h2d";
	m.op = "pinned";
	m.bytes = 1073741824;
	m.time_us = 19382.46;
	m.GBps = 55.4;
	m.device = 1;
	CHECK(pp_calibdb_add(st, run, &m, NULL, &err) == 0);
	pp_store_close(st);
	char cmd[1024], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s calib list --db %s", pp_t_bin(), dbpath);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "podplan-calibrate");
	CHECK_CONTAINS(out, "NVIDIA H200");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s calib show 1 --db %s", pp_t_bin(), dbpath);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "NV18");
	CHECK_CONTAINS(out, "nvidia-smi topo -m");
	CHECK_CONTAINS(out, "55.40 GB/s");
	/* no stored verdict: judged now, saying the run is unfinished */
	CHECK_CONTAINS(out, "health verdict (judged now, the run did not finish; thresholds in");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s calib export --db %s", pp_t_bin(), dbpath);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "h2d,pinned,,,1073741824,,,,,19382.5,,,,55.4,");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s calib export 1 --csv -o %s/e.csv --db %s && head -c 5 %s/e.csv",
		 pp_t_bin(), pp_t_tmpdir(), dbpath, pp_t_tmpdir());
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "kind,");
	free(out);
	/* a run that does not exist, a bad id, a misspelt subcommand: status 2 */
	snprintf(cmd, sizeof(cmd), "%s calib show 42 --db %s", pp_t_bin(), dbpath);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "no calibration run 42");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s calib show x1 --db %s", pp_t_bin(), dbpath);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "positive number");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s calib exprt --db %s", pp_t_bin(), dbpath);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "did you mean 'export'");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s calib export --csv --json --db %s", pp_t_bin(), dbpath);
	CHECK(pp_t_sh(cmd, &out) == 2);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s calib export --db %s/empty.db", pp_t_bin(), pp_t_tmpdir());
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "no calibration runs yet");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s calib --help", pp_t_bin());
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "import-nccl-tests");
	free(out);
}

int main(void)
{
	RUN(test_roundtrip);
	RUN(test_empty_and_status);
	RUN(test_verdict_format);
	RUN(test_cli);
	return pp_t_done("test_calibdb");
}
