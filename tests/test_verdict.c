/*
 * test_verdict.c - the CPU health verdict (sim/calib/verdict.h) on stored
 * runs: an imported nccl-tests log judged by podplan calib verdict and
 * calib show without a GPU binary, against hand calculations from the
 * catalogs (gpus.json H100 SXM NVLink4 450 GB/s unidirectional x
 * fabrics.json achievable 0.82 = 369 GB/s; health.json collective
 * ok_at_least 0.85); a slow link is SLOW with its cause; --save stores the
 * verdict, --json prints it without a path of this machine.
 */
#include "calib/calibdb.h"
#include "calib/ncclimport.h"
#include "calib/verdict.h"
#include "core/store.h"
#include "harness.h"
#include "input/catalog.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOG "tests/data/nccl-tests/all_reduce_perf_8gpu.log"

static void test_judge_imported_run(void)
{
	char path[512];
	pp_store *st = NULL;
	pp_catalog *cat = NULL;
	pp_err err = {0};
	snprintf(path, sizeof(path), "%s/j.db", pp_t_tmpdir());
	unlink(path);
	CHECK(pp_store_open(&st, path, &err) == 0 && pp_catalog_load(&cat, NULL, &err) == 0);
	if (!st || !cat)
		return;
	int64_t run = 0;
	CHECK(pp_ncclimport_file(st, LOG, NULL, &run, NULL, &err) == 0);
	pp_sb v = {0};
	pp_verdict_host h;
	bool known = true;
	int slow = -1;
	CHECK(pp_verdict_of_run(st, cat, run, NULL, &v, &slow, &h, &known, &err) == 0);
	/* the log's device list: 8 x H100 on one host; no link matrix */
	CHECK(!known && h.ngpus == 8 && h.nhosts == 1 && !strcmp(h.gpu_name, "NVIDIA H100 80GB HBM3"));
	CHECK(slow == 0);
	/* best all_reduce busbw in the log: 348.26 GB/s (128 MiB in-place);
	 * 348.26 / 369 = 0.944 >= 0.85 */
	CHECK_CONTAINS(v.buf, "\"check\":\"all_reduce busbw\"");
	CHECK_CONTAINS(v.buf, "\"measured\":348.26");
	CHECK_CONTAINS(v.buf, "\"expected\":369");
	CHECK_CONTAINS(v.buf, "\"verdict\":\"OK\"");
	CHECK_CONTAINS(v.buf, "\"thresholds\":\"models/health.json\"");
	pp_sb_release(&v);
	/* the same rows with a slow link: 200 GB/s / 369 = 0.54 < 0.85 */
	pp_calib_meas m;
	pp_calib_meas_init(&m);
	m.kind = "collective";
	m.op = "all_reduce";
	m.dtype = "float";
	m.nranks = 8;
	m.bytes = 1 << 30;
	m.busbw_GBps = 200;
	m.time_us = 1000;
	memset(&h, 0, sizeof(h));
	snprintf(h.gpu_name, sizeof(h.gpu_name), "NVIDIA H100 80GB HBM3");
	h.ngpus = 8;
	h.nhosts = 1;
	h.nvlink_all_pairs = true;
	pp_verdict_opts o = {.links_unknown = false};
	CHECK(pp_verdict_judge(cat, &h, &o, &m, 1, &v, &slow, &err) == 0);
	CHECK(slow == 1);
	CHECK_CONTAINS(v.buf, "\"verdict\":\"SLOW\"");
	CHECK_CONTAINS(v.buf, "\"ratio\":0.542");
	pp_sb_release(&v);
	/* an unknown SKU is an input error, named */
	o.gpu_sku = "h100-sxmm";
	CHECK(pp_verdict_judge(cat, &h, &o, &m, 1, &v, &slow, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "--gpu-sku: no GPU 'h100-sxmm'");
	CHECK(pp_verdict_of_run(st, cat, 99, NULL, &v, &slow, &h, &known, &err) != 0);
	pp_sb_release(&v);
	pp_catalog_free(cat);
	pp_store_close(st);
}

static void test_cli(void)
{
	char cmd[2048], *out = NULL;
	const char *b = pp_t_bin(), *d = pp_t_tmpdir();
	snprintf(cmd, sizeof(cmd), "%s calib import-nccl-tests %s --db %s/c.db >/dev/null && "
		 "%s calib verdict 1 --db %s/c.db", b, LOG, d, b, d);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "health verdict of run 1 (NVIDIA H100 80GB HBM3 x 8; links not recorded");
	CHECK_CONTAINS(out, "all_reduce busbw           8 GPUs, NVLink?       348 GB/s     369 GB/s   "
		       "0.94  OK      nvlink4 450 GB/s per GPU");
	CHECK_CONTAINS(out, "1 OK, 0 SLOW");
	free(out);
	/* show judges a run with no stored verdict, saying so */
	snprintf(cmd, sizeof(cmd), "%s calib show 1 --db %s/c.db", b, d);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "health verdict (judged now, links not recorded; thresholds in models/health.json)");
	CHECK_CONTAINS(out, "348 GB/s     369 GB/s   0.94  OK");
	free(out);
	/* --save stores it; show then prints the stored one */
	snprintf(cmd, sizeof(cmd), "%s calib verdict 1 --save --db %s/c.db && %s calib show 1 --db %s/c.db",
		 b, d, b, d);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "(stored with run 1)");
	CHECK_CONTAINS(out, "health verdict (stored with the run)");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s calib verdict 1 --json --db %s/c.db", b, d);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "{\"format\":\"podplan-verdict/1\",\"gpu\":\"h100-sxm\"");
	CHECK(out && !strstr(out, d) && !strstr(out, "file://"));
	free(out);
	/* bad input: exit 2 with a message */
	snprintf(cmd, sizeof(cmd), "%s calib verdict 7 --db %s/c.db", b, d);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "no calibration run 7");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s calib verdict 1 --gpu-sku nope --db %s/c.db", b, d);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "--gpu-sku: no GPU 'nope'");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s calib show 1 --save --db %s/c.db", b, d);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "options of 'calib verdict'");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s calib --help", b);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "podplan calib verdict RUN");
	CHECK_CONTAINS(out, "--save");
	free(out);
}

/* The 8-GPU log with 1,337 wrong elements in the 128 MiB out-of-place
 * row (nccl-tests' #wrong column), written to the test's directory. */
static bool write_wrong_log(const char *path)
{
	FILE *in = fopen(LOG, "rb");
	if (!in)
		return false;
	pp_sb sb = {0};
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		pp_sb_add(&sb, buf, n);
	fclose(in);
	/* "   134217728 ... 682.28  196.72  344.26       0   674.45 ..." */
	char *p = sb.buf ? strstr(sb.buf, "344.26       0") : NULL;
	bool ok = p != NULL;
	if (p)
		memcpy(p, "344.26    1337", 14);
	FILE *out = fopen(path, "wb");
	ok = ok && out && fwrite(sb.buf, 1, sb.len, out) == sb.len;
	if (out)
		fclose(out);
	pp_sb_release(&sb);
	return ok;
}

/* Wrong results do not flow on: the import warns, the verdict's text and
 * JSON count one WRONG row and no SLOW one and it exits 1, and fit refuses
 * the run. */
static void test_wrong_elements(void)
{
	char log[512], db[512], cmd[2048], *out = NULL;
	const char *b = pp_t_bin(), *d = pp_t_tmpdir();
	snprintf(log, sizeof(log), "%s/wrong.log", d);
	snprintf(db, sizeof(db), "%s/w.db", d);
	CHECK(write_wrong_log(log));
	snprintf(cmd, sizeof(cmd), "%s calib import-nccl-tests %s --db %s", b, log, db);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "warning: ");
	CHECK_CONTAINS(out, "1 result of all_reduce reports wrong elements (1337 in all;");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s calib verdict 1 --db %s", b, db);
	CHECK(pp_t_sh(cmd, &out) == 1);
	CHECK_CONTAINS(out, "WRONG");
	CHECK_CONTAINS(out, "1 OK, 0 SLOW, 1 WRONG");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s calib verdict 1 --json --db %s 2>/dev/null", b, db);
	CHECK(pp_t_sh(cmd, &out) == 1);
	CHECK_CONTAINS(out, "\"slow\":0,\"wrong\":1}");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s fit --run 1 --db %s", b, db);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "fit: run 1 has 1 measurement with wrong results (1337 wrong elements");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s fit --list --db %s", b, db);
	pp_t_sh(cmd, &out);
	CHECK(out && !strstr(out, "run-1"));
	free(out);
}

int main(void)
{
	RUN(test_judge_imported_run);
	RUN(test_cli);
	RUN(test_wrong_elements);
	return pp_t_done("verdict");
}
