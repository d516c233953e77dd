/*
 * test_calib_kill.c - podplan-calibrate's CPU side: nccl-tests' size and
 * byte-count semantics, the sweep against the fake GPU layer, the health
 * verdict, and what a SIGKILL mid-sweep leaves in the store.
 *
 * The harness's CPU-only sources (plan, sweep, fake backend, verdict) are
 * compiled into this test directly: they include no CUDA header, and this
 * way the test runs on machines without nvcc. When podplan-calibrate was
 * built (nvcc and NCCL found), the binary itself is killed too.
 */
#include "../calibrate/fake.c"
#include "../calibrate/health.c"
#include "../calibrate/plan.c"
#include "../calibrate/sweep.c"

#include "calib/calibdb.h"
#include "calib/fit.h"
#include "calib/profile.h"
#include "input/catalog.h"
#include "harness.h"
#include "core/store.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static pp_catalog *cat;

static void test_sizes(void)
{
	size_t s[64], n;
	pp_err err = {0};
	/* nccl-tests -b 8 -e 1G -f 2: 2^3 .. 2^30, 28 sizes */
	n = pp_cal_sizes(8, (size_t)1 << 30, (size_t)1 << 20, 2, s, 64);
	CHECK(n == 28);
	CHECK(s[0] == 8 && s[27] == (size_t)1 << 30 && s[1] == 16);
	/* -b 1M -e 3M -i 1M (factor 1): additive steps */
	n = pp_cal_sizes((size_t)1 << 20, (size_t)3 << 20, (size_t)1 << 20, 1, s, 64);
	CHECK(n == 3 && s[2] == (size_t)3 << 20);
	/* the --quick grid still holds 1 GiB: 16 x 4^13 */
	n = pp_cal_sizes(16, (size_t)1 << 30, 0, 4, s, 64);
	CHECK(n == 14 && s[13] == (size_t)1 << 30);
	/* the full grid holds 1 and 4 GiB */
	n = pp_cal_sizes(8, (size_t)8 << 30, 0, 2, s, 64);
	CHECK(n == 31 && s[27] == (size_t)1 << 30 && s[29] == (size_t)4 << 30);
	size_t v = 0;
	CHECK(pp_cal_parse_size("1G", &v, &err) == 0 && v == (size_t)1 << 30);
	CHECK(pp_cal_parse_size("64K", &v, &err) == 0 && v == 65536);
	CHECK(pp_cal_parse_size("1.5M", &v, &err) == 0 && v == 1572864);
	CHECK(pp_cal_parse_size("8", &v, &err) == 0 && v == 8);
	CHECK(pp_cal_parse_size("8x", &v, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "K, M or G");
	CHECK(pp_cal_parse_size("-1", &v, &err) == PP_EINPUT);
	CHECK(pp_cal_parse_size("1GB", &v, &err) == PP_EINPUT);
}

static void test_layouts(void)
{
	pp_cal_coll_req r;
	/* all_gather, 2 ranks, 1 GiB of float: each rank sends half */
	CHECK(pp_cal_coll_layout(PP_COLL_ALL_GATHER, PP_CDT_FLOAT, (size_t)1 << 30, 2, &r) == 0);
	CHECK(r.count == (size_t)1 << 27 && r.send_bytes == (size_t)1 << 29 &&
	      r.recv_bytes == (size_t)1 << 30 && r.bytes == (size_t)1 << 30);
	/* reduce_scatter over 3 ranks of 1000 B: 250 floats / 3 = 83 per rank */
	CHECK(pp_cal_coll_layout(PP_COLL_REDUCE_SCATTER, PP_CDT_FLOAT, 1000, 3, &r) == 0);
	CHECK(r.count == 83 && r.send_bytes == 996 && r.recv_bytes == 332 && r.bytes == 996);
	/* alltoall: count per peer, both buffers whole */
	CHECK(pp_cal_coll_layout(PP_COLL_ALL_TO_ALL, PP_CDT_BF16, 4096, 4, &r) == 0);
	CHECK(r.count == 512 && r.send_bytes == 4096 && r.recv_bytes == 4096);
	/* all_reduce of 8 B bf16: 4 elements */
	CHECK(pp_cal_coll_layout(PP_COLL_ALL_REDUCE, PP_CDT_BF16, 8, 2, &r) == 0 && r.count == 4);
	/* 8 B split over 8 ranks is 0 floats each: nccl-tests prints size 0; we skip */
	CHECK(pp_cal_coll_layout(PP_COLL_ALL_GATHER, PP_CDT_FLOAT, 8, 8, &r) == PP_CAL_SKIPPED);
	/* nccl-tests doc/PERFORMANCE.md: all_reduce 2(n-1)/n, all_gather (n-1)/n, broadcast 1 */
	CHECK_NEAR(pp_cal_busbw_factor(PP_COLL_ALL_REDUCE, 2), 1.0, 1e-12);
	CHECK_NEAR(pp_cal_busbw_factor(PP_COLL_ALL_REDUCE, 8), 1.75, 1e-12);
	CHECK_NEAR(pp_cal_busbw_factor(PP_COLL_ALL_GATHER, 8), 0.875, 1e-12);
	CHECK_NEAR(pp_cal_busbw_factor(PP_COLL_REDUCE_SCATTER, 4), 0.75, 1e-12);
	CHECK_NEAR(pp_cal_busbw_factor(PP_COLL_BROADCAST, 8), 1.0, 1e-12);
	CHECK_NEAR(pp_cal_busbw_factor(PP_COLL_SENDRECV, 8), 1.0, 1e-12);
}

static void test_plan(void)
{
	pp_cal_opts o;
	pp_cal_item *it = NULL;
	size_t n = 0;
	pp_err err = {0};
	pp_cal_opts_defaults(&o, true);
	o.models = "llama3-8b";
	o.ntps = 1;
	o.tps[0] = 2;
	CHECK(pp_cal_plan(&o, cat, 2, &it, &n, &err) == 0);
	size_t coll = 0, gemm = 0, groups = 0, ar_inplace = 0;
	bool qkv = false;
	for (size_t i = 0; i < n; i++) {
		coll += it[i].kind == PP_ITEM_COLL;
		groups += it[i].kind == PP_ITEM_GROUP;
		ar_inplace += it[i].kind == PP_ITEM_COLL && it[i].coll.op == PP_COLL_ALL_REDUCE &&
			      it[i].coll.inplace;
		if (it[i].kind == PP_ITEM_GEMM) {
			gemm++;
			/* llama3-8b qkv per TP=2 shard: (32 + 2 x 8) x 128 / 2 = 3072 out, 4096 in,
			 * 8192 tokens */
			if (!strcmp(it[i].gemm.name, "llama3-8b.tp2.qkv.fwd"))
				qkv = it[i].gemm.m == 8192 && it[i].gemm.n == 3072 && it[i].gemm.k == 4096;
		}
	}
	CHECK(groups == 1);
	CHECK(qkv);
	/* 14 sizes; 4 collectives in and out of place, alltoall and sendrecv out only */
	CHECK(coll == 14 * 10);
	CHECK(ar_inplace == 14);
	/* squares 256..8192 = 6 sizes x 4 dtypes, plus 5 forward linears */
	CHECK(gemm == 24 + 5);
	pp_cal_plan_max mx;
	pp_cal_plan_maxima(it, n, &mx);
	CHECK(mx.coll_send == (size_t)1 << 30 && mx.coll_recv == (size_t)1 << 30);
	/* the largest A: tf32 8192^2 x 4 B */
	CHECK(mx.gemm_a == (size_t)8192 * 8192 * 4);
	free(it);
	o.models = "llama3-8bb";
	CHECK(pp_cal_plan(&o, cat, 2, &it, &n, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "did you mean 'llama3-8b'");
	o.models = "none";
	o.ngroups = 1;
	o.groups[0] = 3;
	CHECK(pp_cal_plan(&o, cat, 2, &it, &n, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "--groups");
}

static pp_store *open_db(const char *name)
{
	char path[512];
	pp_store *st = NULL;
	pp_err err = {0};
	snprintf(path, sizeof(path), "%s/%s", pp_t_tmpdir(), name);
	unlink(path);
	if (pp_store_open(&st, path, &err))
		pp_t_diag("store: %s", err.msg);
	return st;
}

/* The quick sweep against the fake backend, like podplan-calibrate's main. */
static int run_fake(pp_store *st, double delay, int64_t *run, void (*hook)(void *, int64_t),
		    void *ctx, pp_cal_sweep *out_sw)
{
	pp_cal_backend *b = NULL;
	pp_cal_host h;
	pp_cal_opts o;
	pp_cal_item *items = NULL;
	size_t n = 0;
	pp_err err = {0};
	pp_calib_run r;
	int rc;
	pp_cal_opts_defaults(&o, true);
	o.models = "llama3-8b";
	if ((rc = pp_cal_fake_new(2, delay, &b, &err)) || (rc = b->ops->describe(b, &h, &err)) ||
	    (rc = pp_cal_plan(&o, cat, 2, &items, &n, &err)))
		goto out;
	pp_calib_run_init(&r);
	r.source = "fake";
	r.command_line = "test_calib_kill";
	r.host = h.host;
	r.gpu_name = h.gpu_name;
	r.gpu_count = 2;
	r.topology_json = h.topology_json;
	char host[256] = "", extra[512];
	gethostname(host, sizeof(host) - 1);
	snprintf(extra, sizeof(extra), "{\"pid\": %ld, \"writer_host\": \"%s\"}", (long)getpid(),
		 host);
	r.extra_json = extra;
	if ((rc = pp_calibdb_begin_run(st, &r, run, &err)))
		goto out;
	pp_cal_sweep sw = {.st = st, .run_id = *run, .be = b, .opts = &o, .host = &h,
			   .on_record = hook, .ctx = ctx};
	rc = pp_cal_sweep_run(&sw, items, n, &err);
	if (out_sw)
		*out_sw = sw;
	if (!rc) {
		pp_calib_meas *rows = NULL;
		size_t nr = 0;
		pp_sb v = {0};
		int slow = -1;
		if (!(rc = pp_calibdb_query(st, *run, NULL, &rows, &nr, &err)) &&
		    !(rc = pp_cal_health(cat, &h, NULL, rows, nr, &v, &slow, &err)))
			rc = pp_calibdb_end_run(st, *run, "complete", v.buf, &err);
		CHECK(slow == 0);
		pp_calib_meas_free(rows, nr);
		pp_sb_release(&v);
	}
out:
	if (rc)
		pp_t_diag("fake sweep: %s", err.msg);
	free(items);
	free(h.topology_json);
	if (b)
		b->ops->close(b);
	return rc;
}

static void test_fake_sweep(void)
{
	pp_store *st = open_db("sweep.db");
	int64_t run = 0;
	pp_cal_sweep sw;
	CHECK(st && run_fake(st, 0, &run, NULL, NULL, &sw) == 0);
	pp_calib_run r;
	pp_err err = {0};
	CHECK(pp_calibdb_get_run(st, run, &r, &err) == 0);
	CHECK(r.status && !strcmp(r.status, "complete"));
	CHECK(r.verdict_json && strstr(r.verdict_json, "\"verdict\":\"OK\""));
	CHECK((size_t)r.n_measurements == sw.recorded && sw.recorded > 200);
	pp_calib_run_release(&r);
	pp_calib_meas *rows = NULL;
	size_t n = 0;
	CHECK(pp_calibdb_query(st, run, "collective", &rows, &n, &err) == 0 && n == 140);
	for (size_t i = 0; i < n; i++) {
		const pp_calib_meas *m = &rows[i];
		/* nccl-tests: algbw = size / time; all_reduce busbw = algbw x 2(n-1)/n = algbw on 2 */
		CHECK_NEAR(m->algbw_GBps, (double)m->bytes / (m->time_us * 1e3), 1e-9);
		if (!strcmp(m->op, "all_gather"))
			CHECK_NEAR(m->busbw_GBps, m->algbw_GBps * 0.5, 1e-9);
		CHECK(m->time_min_us <= m->time_us && m->time_us <= m->time_max_us);
		CHECK(m->wrong == 0 && m->nranks == 2 && !strcmp(m->scope, "nvlink"));
	}
	pp_calib_meas_free(rows, n);
	/* GEMM rows: TFLOP/s = 2mnk / time, one row per GPU for squares */
	/* squares: 6 sizes x 4 dtypes on both GPUs; llama3-8b: 5 forward linears at TP 1
	 * and 2, on GPU 0 */
	CHECK(pp_calibdb_query(st, run, "gemm", &rows, &n, &err) == 0 && n == 24 * 2 + 10);
	for (size_t i = 0; i < n; i++)
		CHECK_NEAR(rows[i].tflops, 2.0 * rows[i].m * rows[i].n * rows[i].k /
				   (rows[i].time_us * 1e-6) / 1e12, 1e-9);
	pp_calib_meas_free(rows, n);
	pp_store_close(st);
}

static int ack_fd = -1;

static void ack(void *ctx, int64_t id)
{
	(void)ctx;
	/* a row is acknowledged only once pp_calibdb_add returned: committed */
	if (write(ack_fd, &id, sizeof(id)) != (ssize_t)sizeof(id))
		_exit(3);
}

static int integrity(const char *path, char *msg, size_t n)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	int ok = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW) {
		snprintf(msg, n, "%s", (const char *)sqlite3_column_text(s, 0));
		ok = !strcmp(msg, "ok");
	}
	sqlite3_finalize(s);
	sqlite3_close(db);
	return ok;
}

static void test_kill_in_process(void)
{
	char path[512];
	int p[2];
	snprintf(path, sizeof(path), "%s/kill.db", pp_t_tmpdir());
	unlink(path);
	CHECK(pipe(p) == 0);
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		close(p[0]);
		ack_fd = p[1];
		pp_store *st = NULL;
		pp_err err = {0};
		int64_t run;
		if (pp_store_open(&st, path, &err))
			_exit(2);
		/* 2 ms per fake measurement: the kill lands mid-sweep */
		run_fake(st, 0.002, &run, ack, NULL, NULL);
		_exit(0);
	}
	close(p[1]);
	int64_t ids[4096];
	size_t nack = 0;
	while (nack < 60) {
		ssize_t k = read(p[0], &ids[nack], sizeof(ids[0]));
		if (k != (ssize_t)sizeof(ids[0]))
			break;
		nack++;
	}
	kill(child, SIGKILL);
	int status = 0;
	waitpid(child, &status, 0);
	/* rows acknowledged after our last read may be in the pipe: drain */
	for (ssize_t k; nack < 4096 && (k = read(p[0], &ids[nack], sizeof(ids[0]))) == sizeof(ids[0]);)
		nack++;
	close(p[0]);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	CHECK(nack >= 60);
	char msg[256] = "";
	CHECK(integrity(path, msg, sizeof(msg)));
	pp_store *st = NULL;
	pp_err err = {0};
	CHECK(pp_store_open(&st, path, &err) == 0);
	int64_t run = 0;
	CHECK(pp_calibdb_latest_run(st, &run, &err) == 0);
	pp_calib_meas *rows = NULL;
	size_t n = 0;
	CHECK(pp_calibdb_query(st, run, NULL, &rows, &n, &err) == 0);
	/* every acknowledged row is there, and nothing beyond the plan */
	CHECK(n >= nack);
	size_t found = 0;
	for (size_t a = 0; a < nack; a++)
		for (size_t i = 0; i < n; i++)
			if (rows[i].id == ids[a]) {
				found++;
				break;
			}
	CHECK(found == nack);
	pp_calib_meas_free(rows, n);
	pp_calib_run r;
	CHECK(pp_calibdb_get_run(st, run, &r, &err) == 0);
	CHECK(!strcmp(r.status, "running"));
	CHECK(!strcmp(pp_calibdb_effective_status(&r), "interrupted"));
	pp_calib_run_release(&r);
	pp_store_close(st);
}

static const char *calibrate_bin(void)
{
	static char path[1024];
	const char *b = pp_t_bin();
	const char *slash = strrchr(b, '/');
	snprintf(path, sizeof(path), "%.*s/podplan-calibrate", slash ? (int)(slash - b) : 1,
		 slash ? b : ".");
	if (access(path, X_OK) == 0)
		return path;
	if (access("bin/podplan-calibrate", X_OK) == 0)
		return "bin/podplan-calibrate";
	return NULL;
}

static long count_rows(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	long n = -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT count(*) FROM calib_measurements", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return n;
}

/* A measurement's identity in a run, for comparing two runs' rows. */
static char *row_key(const pp_calib_meas *q)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%s|%s|%s|%lld|%lld|%lld|%lld|%lld|%lld|%lld", q->kind,
		 q->op ? q->op : "", q->dtype ? q->dtype : "", (long long)q->nranks,
		 (long long)q->bytes, (long long)q->inplace, (long long)q->m, (long long)q->n,
		 (long long)q->k, (long long)q->device);
	return pp_xstrdup(buf);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted keys of a run's rows (heap, n of them). */
static char **run_keys(pp_store *st, int64_t run, size_t *n)
{
	pp_calib_meas *rows = NULL;
	pp_err err = {0};
	*n = 0;
	if (pp_calibdb_query(st, run, NULL, &rows, n, &err))
		return NULL;
	char **k = pp_xcalloc(*n ? *n : 1, sizeof(*k));
	for (size_t i = 0; i < *n; i++)
		k[i] = row_key(&rows[i]);
	qsort(k, *n, sizeof(*k), cmp_str);
	pp_calib_meas_free(rows, *n);
	return k;
}

/* A resumed run measures only what its rows lack: a third of a full quick
 * sweep's rows stored first, the sweep over the items they do not hold
 * ends with the full sweep's rows, each once. */
static void test_resume_skips_stored(void)
{
	pp_store *st = open_db("resume.db");
	int64_t full = 0, part = 0;
	pp_err err = {0};
	CHECK(st && run_fake(st, 0, &full, NULL, NULL, NULL) == 0);
	if (!st || !full)
		return;
	pp_calib_meas *rows = NULL;
	size_t nf = 0, n = 0;
	CHECK(pp_calibdb_query(st, full, NULL, &rows, &nf, &err) == 0);
	pp_cal_opts o;
	pp_cal_opts_defaults(&o, true);
	o.models = "llama3-8b";
	pp_cal_item *items = NULL;
	CHECK(pp_cal_plan(&o, cat, 2, &items, &n, &err) == 0);
	size_t kept = nf / 3;
	unsigned char *done = pp_xcalloc(n, 1);
	size_t ndone = pp_cal_sweep_done(items, n, rows, kept, done);
	CHECK(ndone > 0 && ndone < n);
	/* everything of a full run is done; nothing of an empty one */
	unsigned char *all = pp_xcalloc(n, 1);
	CHECK(pp_cal_sweep_done(items, n, rows, nf, all) == n);
	CHECK(pp_cal_sweep_done(items, n, rows, 0, all) == 0);
	free(all);
	pp_calib_run r;
	pp_calib_run_init(&r);
	r.source = "fake";
	r.command_line = "test_calib_kill resume";
	CHECK(pp_calibdb_begin_run(st, &r, &part, &err) == 0);
	for (size_t i = 0; i < kept; i++)
		CHECK(pp_calibdb_add(st, part, &rows[i], NULL, &err) == 0);
	pp_cal_backend *b = NULL;
	pp_cal_host h;
	CHECK(pp_cal_fake_new(2, 0, &b, &err) == 0 && b->ops->describe(b, &h, &err) == 0);
	pp_cal_sweep sw = {.st = st, .run_id = part, .be = b, .opts = &o, .host = &h, .done = done};
	CHECK(pp_cal_sweep_run(&sw, items, n, &err) == 0);
	CHECK(sw.recorded == nf - kept);
	size_t na = 0, nb = 0;
	char **ka = run_keys(st, full, &na), **kb = run_keys(st, part, &nb);
	CHECK(ka && kb && na == nf && nb == nf);
	for (size_t i = 0; ka && kb && i < na && i < nb; i++)
		if (strcmp(ka[i], kb[i])) {
			pp_t_diag("row %zu: full run %s, resumed run %s", i, ka[i], kb[i]);
			CHECK(!strcmp(ka[i], kb[i]));
			break;
		}
	for (size_t i = 0; i < na; i++)
		free(ka[i]);
	for (size_t i = 0; i < nb; i++)
		free(kb[i]);
	free(ka);
	free(kb);
	free(h.topology_json);
	b->ops->close(b);
	free(done);
	free(items);
	pp_calib_meas_free(rows, nf);
	pp_store_close(st);
}

/* The binary: a sweep killed half-way, then the same command again,
 * continues the run - one run, complete, with as many rows as a sweep
 * that was never killed, none twice. */
static void test_resume_binary(void)
{
	const char *bin = calibrate_bin();
	if (!bin) {
		pp_t_skip("podplan-calibrate was not built here (no nvcc/NCCL); the in-process "
			  "resume test above covers the sweep");
		return;
	}
	char path[512], whole[512], cmd[2048], *out = NULL;
	snprintf(path, sizeof(path), "%s/resume-bin.db", pp_t_tmpdir());
	snprintf(whole, sizeof(whole), "%s/whole-bin.db", pp_t_tmpdir());
	unlink(path);
	unlink(whole);
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(bin, bin, "--fake", "--quick", "--fake-delay", "0.003", "--no-progress", "--db",
		      path, (char *)NULL);
		_exit(127);
	}
	long seen = 0;
	for (int i = 0; i < 1000 && seen < 40; i++) {
		usleep(10000);
		seen = count_rows(path);
	}
	kill(child, SIGKILL);
	int status = 0;
	waitpid(child, &status, 0);
	CHECK(WIFSIGNALED(status) && seen >= 40);
	snprintf(cmd, sizeof(cmd), "%s --fake --quick --fake-delay 0.003 --no-progress --db %s", bin,
		 path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "# resuming run 1 (interrupted");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s --fake --quick --no-progress --db %s >/dev/null", bin, whole);
	CHECK(pp_t_sh(cmd, &out) == 0);
	free(out);
	long n_resumed = count_rows(path), n_whole = count_rows(whole);
	pp_t_diag("rows: %ld before the kill, %ld after the resume, %ld in a run never killed", seen,
		  n_resumed, n_whole);
	CHECK(n_whole > seen && n_resumed == n_whole);
	snprintf(cmd, sizeof(cmd), "%s calib list --db %s", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "complete");
	CHECK(out && !strstr(out, "\n    2 "));
	free(out);
}

static void test_kill_binary(void)
{
	const char *bin = calibrate_bin();
	if (!bin) {
		pp_t_skip("podplan-calibrate was not built here (no nvcc/NCCL); the in-process "
		          "kill test above covers the sweep");
		return;
	}
	char path[512], cmd[2048];
	snprintf(path, sizeof(path), "%s/killbin.db", pp_t_tmpdir());
	unlink(path);
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(bin, bin, "--fake", "--quick", "--fake-delay", "0.003", "--no-progress", "--db",
		      path, (char *)NULL);
		_exit(127);
	}
	long seen = 0;
	for (int i = 0; i < 1000 && seen < 40; i++) {
		usleep(10000);
		seen = count_rows(path);
	}
	kill(child, SIGKILL);
	int status = 0;
	waitpid(child, &status, 0);
	CHECK(WIFSIGNALED(status));
	CHECK(seen >= 40);
	char msg[256] = "";
	CHECK(integrity(path, msg, sizeof(msg)));
	CHECK(count_rows(path) >= seen);
	char *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s calib list --db %s", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "interrupted");
	free(out);
	/* a failed canary stops the run with a clear message and status 1 */
	snprintf(cmd, sizeof(cmd), "PODPLAN_FAKE_FAIL=canary %s --fake --quick --no-progress --db %s",
		 bin, path);
	CHECK(pp_t_sh(cmd, &out) == 1);
	CHECK_CONTAINS(out, "canary failed");
	CHECK_CONTAINS(out, "marked failed");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s calib list --db %s", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "failed");
	free(out);
	/* bad options: status 2 and the reason */
	snprintf(cmd, sizeof(cmd), "%s --fake -e 1Q --db %s", bin, path);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "K, M or G");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s --fake --ops all_reduse --db %s", bin, path);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "did you mean 'all_reduce'");
	free(out);
	/* decode and sustained only when named; their options checked */
	snprintf(cmd, sizeof(cmd), "%s --fake=1 --only decode,sustained --decode-models llama3-8b "
		 "--decode-tp 8 --decode-max-m 4 --sustained-s 1 --sustained-dtypes bf16 --no-progress "
		 "--db %s/ds.db", bin, pp_t_tmpdir());
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "decode shapes");
	CHECK_CONTAINS(out, "llama3-8b.tp8.fc2.decode");
	CHECK_CONTAINS(out, "# sustained gemm bf16 8192x8192x8192");
	CHECK_CONTAINS(out, "of burst; SM clock 1980 -> ");
	CHECK(!strstr(out, "# collective") && !strstr(out, "fp8"));
	free(out);
	snprintf(cmd, sizeof(cmd), "%s --fake=1 --quick --no-progress --db %s/q.db", bin, pp_t_tmpdir());
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK(!strstr(out, "decode") && !strstr(out, "sustained"));
	free(out);
	snprintf(cmd, sizeof(cmd), "%s --fake --only sustained --sustained-s 600 --sample-ms 10 --db %s",
		 bin, path);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "more than 1200 samples");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s --fake --only decode --decode-dtypes fp32 --db %s", bin, path);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "use tf32");
	free(out);
	/* an imported nccl-tests log judged without a GPU: the SKU's NVLink assumed */
	snprintf(cmd, sizeof(cmd), "%s calib import-nccl-tests tests/data/nccl-tests/"
		 "all_reduce_perf_8gpu.log --db %s/v.db && %s verdict 1 --db %s/v.db && %s calib show 1 "
		 "--db %s/v.db", pp_t_bin(), pp_t_tmpdir(), bin, pp_t_tmpdir(), pp_t_bin(), pp_t_tmpdir());
	CHECK(pp_t_sh(cmd, &out) == 0);
	/* the log's best all_reduce busbw is 348.26 GB/s; H100 SXM NVLink4: 450 x 0.82 = 369 */
	CHECK_CONTAINS(out, "8 GPUs, NVLink?");
	CHECK_CONTAINS(out, "348 GB/s     369 GB/s   0.94  OK");
	CHECK_CONTAINS(out, "health verdict (stored with the run)\n");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s verdict 7 --db %s/v.db", bin, pp_t_tmpdir());
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "no calibration run 7");
	free(out);
}

/* The verdict against hand-computed expectations from the catalogs. */
static void test_health(void)
{
	pp_cal_host h;
	memset(&h, 0, sizeof(h));
	snprintf(h.gpu_name, sizeof(h.gpu_name), "NVIDIA H200");
	h.ngpus = 2;
	h.nhosts = 1;
	h.nvlink_all_pairs = true;
	h.nvlinks_active[0] = h.nvlinks_active[1] = 18;
	pp_calib_meas m[4];
	for (int i = 0; i < 4; i++)
		pp_calib_meas_init(&m[i]);
	m[0].kind = m[1].kind = "collective";
	m[0].op = m[1].op = "all_reduce";
	m[0].nranks = m[1].nranks = 2;
	m[0].busbw_GBps = 150;   /* half of what it should be */
	m[1].busbw_GBps = 180;
	m[0].wrong = m[1].wrong = 0;
	m[2].kind = "gemm";
	m[2].op = "square";
	m[2].dtype = "bf16";
	m[2].device = 0;
	m[2].tflops = 700;
	m[3].kind = "h2d";
	m[3].bytes = (int64_t)1 << 30;
	m[3].GBps = 30;
	pp_sb v = {0};
	pp_err err = {0};
	int slow = -1;
	CHECK(pp_cal_health(cat, &h, NULL, m, 4, &v, &slow, &err) == 0);
	/* NVLink4 per GPU 450 GB/s x 18/18 x 0.82 (fabrics.json) = 369 GB/s */
	CHECK_CONTAINS(v.buf, "\"expected\":369,");
	CHECK_CONTAINS(v.buf, "\"measured\":180,");
	/* bf16: 989.5 x 0.801 (kernels.json hopper) = 792.59 TFLOP/s; 700 / 792.59 = 0.883 < 0.90 */
	CHECK_CONTAINS(v.buf, "\"expected\":792.59");
	/* h2d: pcie5 63 GB/s x 0.85 (health.json) = 53.55 */
	CHECK_CONTAINS(v.buf, "\"expected\":53.55");
	CHECK(slow == 3);
	pp_sb t = {0};
	CHECK(pp_calibdb_format_verdict(v.buf, &t, &err) == 0);
	CHECK_CONTAINS(t.buf, "0 OK, 3 SLOW");
	CHECK_CONTAINS(t.buf, "NVLink links down");
	pp_sb_release(&t);
	pp_sb_release(&v);
	/* half the links down: SLOW against the whole SKU, and the cause says so */
	h.nvlinks_active[1] = 9;
	CHECK(pp_cal_health(cat, &h, NULL, m, 2, &v, &slow, &err) == 0);
	CHECK_CONTAINS(v.buf, "\"expected\":369,");
	CHECK_CONTAINS(v.buf, "only 9 of the SKU's 18 NVLink links");
	CHECK(slow == 1);
	pp_sb_release(&v);
	/* over PCIe: pcie5 63 GB/s x 0.44 = 27.72 */
	h.nvlink_all_pairs = false;
	CHECK(pp_cal_health(cat, &h, NULL, m, 2, &v, &slow, &err) == 0);
	CHECK_CONTAINS(v.buf, "\"expected\":27.72,");
	pp_sb_release(&v);
	/* a GPU health.json does not map: n/a with advice; a bad --gpu-sku: input error */
	snprintf(h.gpu_name, sizeof(h.gpu_name), "Imaginary GPU 9000");
	CHECK(pp_cal_health(cat, &h, NULL, m, 2, &v, &slow, &err) == 0);
	CHECK_CONTAINS(v.buf, "--gpu-sku");
	pp_sb_release(&v);
	pp_cal_health_opts o = {.gpu_sku = "h2000"};
	CHECK(pp_cal_health(cat, &h, &o, m, 2, &v, &slow, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "did you mean 'h200'");
	pp_sb_release(&v);
	/* a wrong element is its own verdict */
	snprintf(h.gpu_name, sizeof(h.gpu_name), "NVIDIA H200");
	h.nvlink_all_pairs = true;
	/* busbw still climbing at the largest size: the sweep was too short to judge */
	pp_calib_meas c2[2];
	for (int i = 0; i < 2; i++) {
		pp_calib_meas_init(&c2[i]);
		c2[i].kind = "collective";
		c2[i].op = "all_gather";
		c2[i].nranks = 2;
		c2[i].wrong = 0;
	}
	c2[0].bytes = (int64_t)1 << 28;
	c2[0].busbw_GBps = 240;
	c2[1].bytes = (int64_t)1 << 30;
	/* +15% over the previous size; all_gather expects 369 x 0.89 (health.json) = 328.4,
	 * and 275 is 0.84 of it */
	c2[1].busbw_GBps = 275;
	CHECK(pp_cal_health(cat, &h, NULL, c2, 2, &v, &slow, &err) == 0);
	CHECK_CONTAINS(v.buf, "\"verdict\":\"n/a\"");
	CHECK_CONTAINS(v.buf, "still rising at the largest size measured (1.0 GiB)");
	CHECK(slow == 0);
	pp_sb_release(&v);
	c2[1].busbw_GBps = 245;  /* flat: a slow link, not a short sweep */
	CHECK(pp_cal_health(cat, &h, NULL, c2, 2, &v, &slow, &err) == 0);
	CHECK(slow == 1);
	pp_sb_release(&v);
	m[1].wrong = 5;
	CHECK(pp_cal_health(cat, &h, NULL, m, 2, &v, &slow, &err) == 0);
	CHECK_CONTAINS(v.buf, "\"verdict\":\"WRONG\"");
	pp_sb_release(&v);
}

/* Decode-shaped and sustained items: opt-in, the decode shapes per TP shard
 * of the presets (by hand from models.json), the weight rotated through
 * PP_CAL_DECODE_ROTATE_BYTES, one sustained item per dtype. */
static void test_plan_decode_sustained(void)
{
	pp_cal_opts o;
	pp_cal_item *it = NULL;
	size_t n = 0;
	pp_err err = {0};
	pp_cal_opts_defaults(&o, false);
	CHECK(!o.do_decode && !o.do_sustained);
	o.do_coll = o.do_gemm = o.do_mem = false;
	o.do_decode = o.do_sustained = true;
	o.decode_models = "llama3-8b";
	CHECK(pp_cal_plan(&o, cat, 1, &it, &n, &err) == 0);
	size_t dec = 0, sus = 0;
	bool qkv8 = false, logits1 = false, logits8 = false;
	for (size_t i = 0; i < n; i++) {
		if (it[i].kind == PP_ITEM_SUSTAINED) {
			sus++;
			CHECK(it[i].sustain.m == 8192 && it[i].sustain.seconds == 12 &&
			      it[i].sustain.interval_s == 0.1);
			CHECK(it[i].sustain.dtype == PP_DT_BF16 || it[i].sustain.dtype == PP_DT_FP8);
			continue;
		}
		CHECK(it[i].kind == PP_ITEM_GEMM && it[i].gemm.decode && it[i].gemm.device == 0);
		dec++;
		/* llama3-8b qkv at TP 8: (32 + 2 x 8) x 128 / 8 = 768 outputs of 4096 */
		if (!strcmp(it[i].gemm.name, "llama3-8b.tp8.qkv.decode") && it[i].gemm.m == 8)
			qkv8 = it[i].gemm.n == 768 && it[i].gemm.k == 4096;
		/* the vocabulary padded to 128 x TP (Megatron): 128256 at TP 1 and
		 * 129024 / 8 = 16128 at TP 8 */
		if (!strcmp(it[i].gemm.name, "llama3-8b.tp1.logits.decode") && it[i].gemm.m == 1)
			logits1 = it[i].gemm.n == 128256 && it[i].gemm.k == 4096;
		if (!strcmp(it[i].gemm.name, "llama3-8b.tp8.logits.decode") && it[i].gemm.m == 512)
			logits8 = it[i].gemm.n == 16128 && it[i].gemm.k == 4096;
	}
	CHECK(qkv8 && logits1 && logits8);
	CHECK(sus == 2);
	/* 5 layers x 4 TP degrees (1, 2, 4, 8) x 10 token counts (1 .. 512),
	 * no two shapes alike */
	CHECK(dec == 200);
	/* the A buffer: llama3-8b's largest weight at TP 1, the logits (128256 x
	 * 4096 bf16 = 1002 MiB, over 512 MiB: one copy) */
	pp_cal_plan_max mx;
	pp_cal_plan_maxima(it, n, &mx);
	CHECK(mx.gemm_a == (size_t)128256 * 4096 * 2);
	free(it);
	/* a small weight cycles through copies spanning 512 MiB: qkv at TP 8
	 * is 768 x 4096 x 2 = 6 MiB, 86 copies (85.3 rounded up) */
	pp_cal_gemm_req r = {.dtype = PP_DT_BF16, .m = 1, .n = 768, .k = 4096, .decode = true,
			     .rotate_bytes = PP_CAL_DECODE_ROTATE_BYTES};
	size_t stride = 0;
	CHECK(pp_cal_decode_copies(&r, &stride) == 86 && stride == (size_t)768 * 4096 * 2);
	o.decode_models = "llama3-8bx";
	CHECK(pp_cal_plan(&o, cat, 1, &it, &n, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "--decode-models");
}

/* The fake pod through decode and sustained items into the store, and
 * the fit of them: the fake's clock settles at 1755 of 1980 MHz and its
 * rate follows the clock, so the sustained fraction is 1755 / 1980. */
static void test_fake_decode_sustained(void)
{
	pp_store *st = open_db("decsus.db");
	pp_cal_backend *b = NULL;
	pp_cal_host h;
	pp_cal_opts o;
	pp_cal_item *items = NULL;
	size_t n = 0;
	pp_err err = {0};
	int64_t run = 0;
	pp_cal_opts_defaults(&o, true);
	o.do_coll = o.do_gemm = o.do_mem = false;
	o.do_decode = o.do_sustained = true;
	o.decode_models = "llama3-8b";
	o.ndecode_tps = 1;
	o.sustained_s = 4;
	CHECK(pp_cal_fake_new(1, 0, &b, &err) == 0 && b->ops->describe(b, &h, &err) == 0);
	CHECK(pp_cal_plan(&o, cat, 1, &items, &n, &err) == 0);
	pp_calib_run r;
	pp_calib_run_init(&r);
	r.source = "fake";
	r.command_line = "test_calib_kill";
	r.gpu_name = h.gpu_name;
	r.gpu_count = 1;
	CHECK(pp_calibdb_begin_run(st, &r, &run, &err) == 0);
	pp_cal_sweep sw = {.st = st, .run_id = run, .be = b, .opts = &o, .host = &h};
	CHECK(pp_cal_sweep_run(&sw, items, n, &err) == 0);
	CHECK(pp_calibdb_end_run(st, run, "complete", NULL, &err) == 0);
	pp_calib_meas *rows = NULL;
	size_t nr = 0;
	/* 5 layers x 10 token counts at TP 1 */
	CHECK(pp_calibdb_query(st, run, "gemm_decode", &rows, &nr, &err) == 0 && nr == 50);
	for (size_t i = 0; i < nr; i++) {
		double bytes = ((double)rows[i].m * rows[i].k + (double)rows[i].n * rows[i].k) * 2 +
			       (double)rows[i].m * rows[i].n * 2;
		CHECK_NEAR(rows[i].GBps, bytes / (rows[i].time_us * 1e-6) / 1e9, 1e-9);
	}
	pp_calib_meas_free(rows, nr);
	CHECK(pp_calibdb_query(st, run, "gemm_sustained", &rows, &nr, &err) == 0);
	size_t bursts = 0, samples = 0;
	for (size_t i = 0; i < nr; i++) {
		bursts += !strcmp(rows[i].op, "burst");
		samples += !strcmp(rows[i].op, "sample");
	}
	CHECK(bursts == 2 && samples >= 2 * 35);
	pp_calib_meas_free(rows, nr);
	pp_profile p;
	CHECK(pp_fit_runs(st, cat, &run, 1, NULL, "fake", &p, &err) == 0);
	CHECK(p.has_sustained[PP_DT_BF16] && p.has_sustained[PP_DT_FP8]);
	CHECK_NEAR(p.gemm_sustained_fraction[PP_DT_BF16], 1755.0 / 1980.0, 0.01);
	CHECK(p.sustained[PP_DT_BF16].reasons == 0x4);
	CHECK(p.gemm_small_m_n[PP_DT_BF16] == 10 && p.gemm_small_m[PP_DT_BF16][0].m == 1);
	free(items);
	free(h.topology_json);
	b->ops->close(b);
	pp_store_close(st);
}

int main(void)
{
	pp_err err = {0};
	if (pp_catalog_load(&cat, NULL, &err)) {
		fprintf(stderr, "catalog: %s\n", err.msg);
		return 1;
	}
	RUN(test_sizes);
	RUN(test_layouts);
	RUN(test_plan);
	RUN(test_plan_decode_sustained);
	RUN(test_fake_sweep);
	RUN(test_fake_decode_sustained);
	RUN(test_kill_in_process);
	RUN(test_kill_binary);
	RUN(test_resume_skips_stored);
	RUN(test_resume_binary);
	RUN(test_health);
	pp_catalog_free(cat);
	return pp_t_done("test_calib_kill");
}
