/* calibdb.c - see calibdb.h. */
#include "calib/calibdb.h"
#include "core/csv.h"
#include "core/jsonget.h"
#include "core/jsonout.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void pp_calib_meas_init(pp_calib_meas *m)
{
	memset(m, 0, sizeof(*m));
	m->id = m->run_id = PP_CALIB_NULL;
	m->nranks = m->bytes = m->inplace = m->m = m->n = m->k = PP_CALIB_NULL;
	m->repeats = m->wrong = m->device = PP_CALIB_NULL;
	m->time_us = m->time_min_us = m->time_max_us = NAN;
	m->algbw_GBps = m->busbw_GBps = m->tflops = m->GBps = NAN;
}

void pp_calib_meas_free(pp_calib_meas *rows, size_t n)
{
	if (!rows)
		return;
	for (size_t i = 0; i < n; i++) {
		free((char *)rows[i].kind);
		free((char *)rows[i].op);
		free((char *)rows[i].dtype);
		free((char *)rows[i].scope);
		free((char *)rows[i].extra_json);
	}
	free(rows);
}

void pp_calib_run_init(pp_calib_run *r)
{
	memset(r, 0, sizeof(*r));
	r->id = PP_CALIB_NULL;
	r->started_at = 0;
	r->ended_at = NAN;
	r->gpu_count = r->cpu_cores = r->mem_bytes = PP_CALIB_NULL;
	r->n_measurements = 0;
}

void pp_calib_run_release(pp_calib_run *r)
{
	const char **s[] = {&r->source, &r->status, &r->command_line, &r->host, &r->gpu_name,
			    &r->driver_version, &r->cuda_version, &r->nccl_version,
			    &r->topology_json, &r->verdict_json, &r->extra_json};
	for (size_t i = 0; i < PP_ARRAY_LEN(s); i++) {
		free((char *)*s[i]);
		*s[i] = NULL;
	}
}

static int db_fail(pp_store *st, pp_err *err, const char *what)
{
	return pp_errf(err, PP_EDB, "%s: %s: %s", pp_store_path(st), what,
		       sqlite3_errmsg(pp_store_db(st)));
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

static void bind_int(sqlite3_stmt *s, int i, int64_t v)
{
	if (v == PP_CALIB_NULL)
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_int64(s, i, v);
}

static void bind_num(sqlite3_stmt *s, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

static char *col_text(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	return t ? pp_xstrdup((const char *)t) : NULL;
}

static int64_t col_int(sqlite3_stmt *s, int i)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? PP_CALIB_NULL : sqlite3_column_int64(s, i);
}

static double col_num(sqlite3_stmt *s, int i)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

int pp_calibdb_begin_run(pp_store *st, const pp_calib_run *info, int64_t *id, pp_err *err)
{
	sqlite3 *db = pp_store_db(st);
	sqlite3_stmt *s = NULL;
	int rc = 0;
	const char *sql =
		"INSERT INTO calib_runs(source, status, started_at, command_line, host, gpu_name, "
		"gpu_count, driver_version, cuda_version, nccl_version, cpu_cores, mem_bytes, "
		"topology_json, extra_json) VALUES (?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
	if (!info->source || !info->command_line)
		return pp_errf(err, PP_EINTERNAL, "calibration run without source or command line");
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
		rc = db_fail(st, err, "cannot start a calibration run");
		goto out;
	}
	bind_text(s, 1, info->source);
	sqlite3_bind_double(s, 2, info->started_at > 0 ? info->started_at : pp_now_s());
	bind_text(s, 3, info->command_line);
	bind_text(s, 4, info->host);
	bind_text(s, 5, info->gpu_name);
	bind_int(s, 6, info->gpu_count);
	bind_text(s, 7, info->driver_version);
	bind_text(s, 8, info->cuda_version);
	bind_text(s, 9, info->nccl_version);
	bind_int(s, 10, info->cpu_cores);
	bind_int(s, 11, info->mem_bytes);
	bind_text(s, 12, info->topology_json);
	bind_text(s, 13, info->extra_json);
	if (sqlite3_step(s) != SQLITE_DONE) {
		rc = db_fail(st, err, "cannot start a calibration run");
		goto out;
	}
	if (id)
		*id = sqlite3_last_insert_rowid(db);
out:
	sqlite3_finalize(s);
	return rc;
}

int pp_calibdb_update_run(pp_store *st, int64_t id, const pp_calib_run *info, pp_err *err)
{
	static const char *const tcols[] = {"host", "gpu_name", "driver_version", "cuda_version",
					    "nccl_version", "topology_json", "extra_json"};
	const char *tvals[] = {info->host, info->gpu_name, info->driver_version, info->cuda_version,
			       info->nccl_version, info->topology_json, info->extra_json};
	static const char *const icols[] = {"gpu_count", "cpu_cores", "mem_bytes"};
	const int64_t ivals[] = {info->gpu_count, info->cpu_cores, info->mem_bytes};
	sqlite3 *db = pp_store_db(st);
	int rc = 0;
	for (size_t i = 0; i < PP_ARRAY_LEN(tcols) + PP_ARRAY_LEN(icols) && !rc; i++) {
		bool text = i < PP_ARRAY_LEN(tcols);
		if (text ? !tvals[i] : ivals[i - PP_ARRAY_LEN(tcols)] == PP_CALIB_NULL)
			continue;
		char sql[128];
		snprintf(sql, sizeof(sql), "UPDATE calib_runs SET %s = ? WHERE id = ?",
			 text ? tcols[i] : icols[i - PP_ARRAY_LEN(tcols)]);
		sqlite3_stmt *s = NULL;
		if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
			rc = db_fail(st, err, "cannot update a calibration run");
			break;
		}
		if (text)
			bind_text(s, 1, tvals[i]);
		else
			bind_int(s, 1, ivals[i - PP_ARRAY_LEN(tcols)]);
		sqlite3_bind_int64(s, 2, id);
		if (sqlite3_step(s) != SQLITE_DONE)
			rc = db_fail(st, err, "cannot update a calibration run");
		sqlite3_finalize(s);
	}
	return rc;
}

int pp_calibdb_end_run(pp_store *st, int64_t id, const char *status, const char *verdict_json,
		       pp_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = 0;
	if (sqlite3_prepare_v2(pp_store_db(st),
			       "UPDATE calib_runs SET status = ?, ended_at = ?, "
			       "verdict_json = coalesce(?, verdict_json) WHERE id = ?",
			       -1, &s, NULL) != SQLITE_OK) {
		rc = db_fail(st, err, "cannot close a calibration run");
		goto out;
	}
	bind_text(s, 1, status);
	sqlite3_bind_double(s, 2, pp_now_s());
	bind_text(s, 3, verdict_json);
	sqlite3_bind_int64(s, 4, id);
	if (sqlite3_step(s) != SQLITE_DONE)
		rc = db_fail(st, err, "cannot close a calibration run");
	else if (sqlite3_changes(pp_store_db(st)) != 1)
		rc = pp_errf(err, PP_ENOTFOUND, "%s: no calibration run %lld", pp_store_path(st),
			     (long long)id);
out:
	sqlite3_finalize(s);
	return rc;
}

int pp_calibdb_set_verdict(pp_store *st, int64_t id, const char *verdict_json, pp_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = 0;
	if (sqlite3_prepare_v2(pp_store_db(st), "UPDATE calib_runs SET verdict_json = ? WHERE id = ?",
			       -1, &s, NULL) != SQLITE_OK) {
		rc = db_fail(st, err, "cannot store a verdict");
		goto out;
	}
	bind_text(s, 1, verdict_json);
	sqlite3_bind_int64(s, 2, id);
	if (sqlite3_step(s) != SQLITE_DONE)
		rc = db_fail(st, err, "cannot store a verdict");
	else if (sqlite3_changes(pp_store_db(st)) != 1)
		rc = pp_errf(err, PP_ENOTFOUND, "%s: no calibration run %lld", pp_store_path(st),
			     (long long)id);
out:
	sqlite3_finalize(s);
	return rc;
}

int pp_calibdb_add(pp_store *st, int64_t run_id, const pp_calib_meas *m, int64_t *id,
		   pp_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = 0;
	const char *sql =
		"INSERT INTO calib_measurements(run_id, kind, op, dtype, nranks, bytes, inplace, m, "
		"n, k, time_us, time_min_us, time_max_us, algbw_GBps, busbw_GBps, tflops, GBps, "
		"repeats, wrong, device, scope, extra_json) "
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
	if (!m->kind || !*m->kind)
		return pp_errf(err, PP_EINTERNAL, "calibration measurement without a kind");
	if (!isfinite(m->time_us) || m->time_us < 0)
		return pp_errf(err, PP_EINTERNAL, "%s %s: time %g us is not a duration", m->kind,
			       m->op ? m->op : "", m->time_us);
	if (sqlite3_prepare_v2(pp_store_db(st), sql, -1, &s, NULL) != SQLITE_OK) {
		rc = db_fail(st, err, "cannot add a measurement");
		goto out;
	}
	sqlite3_bind_int64(s, 1, run_id);
	bind_text(s, 2, m->kind);
	bind_text(s, 3, m->op);
	bind_text(s, 4, m->dtype);
	bind_int(s, 5, m->nranks);
	bind_int(s, 6, m->bytes);
	bind_int(s, 7, m->inplace);
	bind_int(s, 8, m->m);
	bind_int(s, 9, m->n);
	bind_int(s, 10, m->k);
	bind_num(s, 11, m->time_us);
	bind_num(s, 12, m->time_min_us);
	bind_num(s, 13, m->time_max_us);
	bind_num(s, 14, m->algbw_GBps);
	bind_num(s, 15, m->busbw_GBps);
	bind_num(s, 16, m->tflops);
	bind_num(s, 17, m->GBps);
	bind_int(s, 18, m->repeats);
	bind_int(s, 19, m->wrong);
	bind_int(s, 20, m->device);
	bind_text(s, 21, m->scope);
	bind_text(s, 22, m->extra_json);
	/* Autocommit: the row is durable (WAL) when sqlite3_step returns. */
	if (sqlite3_step(s) != SQLITE_DONE) {
		rc = db_fail(st, err, "cannot add a measurement");
		goto out;
	}
	if (id)
		*id = sqlite3_last_insert_rowid(pp_store_db(st));
out:
	sqlite3_finalize(s);
	return rc;
}

#define RUN_COLS                                                                                  \
	"r.id, r.source, r.status, r.started_at, r.ended_at, r.command_line, r.host, r.gpu_name, " \
	"r.gpu_count, r.driver_version, r.cuda_version, r.nccl_version, r.cpu_cores, "            \
	"r.mem_bytes, r.topology_json, r.verdict_json, r.extra_json, "                            \
	"(SELECT count(*) FROM calib_measurements m WHERE m.run_id = r.id)"

static void read_run(sqlite3_stmt *s, pp_calib_run *r)
{
	pp_calib_run_init(r);
	r->id = sqlite3_column_int64(s, 0);
	r->source = col_text(s, 1);
	r->status = col_text(s, 2);
	r->started_at = col_num(s, 3);
	r->ended_at = col_num(s, 4);
	r->command_line = col_text(s, 5);
	r->host = col_text(s, 6);
	r->gpu_name = col_text(s, 7);
	r->gpu_count = col_int(s, 8);
	r->driver_version = col_text(s, 9);
	r->cuda_version = col_text(s, 10);
	r->nccl_version = col_text(s, 11);
	r->cpu_cores = col_int(s, 12);
	r->mem_bytes = col_int(s, 13);
	r->topology_json = col_text(s, 14);
	r->verdict_json = col_text(s, 15);
	r->extra_json = col_text(s, 16);
	r->n_measurements = sqlite3_column_int64(s, 17);
}

int pp_calibdb_get_run(pp_store *st, int64_t id, pp_calib_run *out, pp_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = 0, step;
	pp_calib_run_init(out);
	if (sqlite3_prepare_v2(pp_store_db(st), "SELECT " RUN_COLS " FROM calib_runs r WHERE r.id = ?",
			       -1, &s, NULL) != SQLITE_OK) {
		rc = db_fail(st, err, "cannot read calibration runs");
		goto out;
	}
	sqlite3_bind_int64(s, 1, id);
	step = sqlite3_step(s);
	if (step == SQLITE_ROW)
		read_run(s, out);
	else if (step == SQLITE_DONE)
		rc = pp_errf(err, PP_ENOTFOUND, "%s: no calibration run %lld (see 'podplan calib list')",
			     pp_store_path(st), (long long)id);
	else
		rc = db_fail(st, err, "cannot read calibration runs");
out:
	sqlite3_finalize(s);
	return rc;
}

int pp_calibdb_list_runs(pp_store *st, pp_calib_run **out, size_t *n, pp_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = 0, step;
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(pp_store_db(st), "SELECT " RUN_COLS " FROM calib_runs r ORDER BY r.id",
			       -1, &s, NULL) != SQLITE_OK) {
		rc = db_fail(st, err, "cannot read calibration runs");
		goto out;
	}
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			*out = pp_xrealloc(*out, cap * sizeof(**out));
		}
		read_run(s, &(*out)[(*n)++]);
	}
	if (step != SQLITE_DONE)
		rc = db_fail(st, err, "cannot read calibration runs");
out:
	sqlite3_finalize(s);
	return rc;
}

int pp_calibdb_latest_run(pp_store *st, int64_t *id, pp_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = 0, step;
	if (sqlite3_prepare_v2(pp_store_db(st), "SELECT max(id) FROM calib_runs", -1, &s, NULL) !=
	    SQLITE_OK) {
		rc = db_fail(st, err, "cannot read calibration runs");
		goto out;
	}
	step = sqlite3_step(s);
	if (step != SQLITE_ROW) {
		rc = db_fail(st, err, "cannot read calibration runs");
	} else if (sqlite3_column_type(s, 0) == SQLITE_NULL) {
		rc = pp_errf(err, PP_ENOTFOUND, "%s: no calibration runs yet (run podplan-calibrate "
			     "or 'podplan calib import-nccl-tests')", pp_store_path(st));
	} else {
		*id = sqlite3_column_int64(s, 0);
	}
out:
	sqlite3_finalize(s);
	return rc;
}

int pp_calibdb_query(pp_store *st, int64_t run_id, const char *kind, pp_calib_meas **out,
		     size_t *n, pp_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = 0, step;
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	const char *sql =
		"SELECT id, run_id, kind, op, dtype, nranks, bytes, inplace, m, n, k, time_us, "
		"time_min_us, time_max_us, algbw_GBps, busbw_GBps, tflops, GBps, repeats, wrong, "
		"device, scope, extra_json FROM calib_measurements "
		"WHERE run_id = ? AND (?2 IS NULL OR kind = ?2) ORDER BY id";
	if (sqlite3_prepare_v2(pp_store_db(st), sql, -1, &s, NULL) != SQLITE_OK) {
		rc = db_fail(st, err, "cannot read measurements");
		goto out;
	}
	sqlite3_bind_int64(s, 1, run_id);
	bind_text(s, 2, kind);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			*out = pp_xrealloc(*out, cap * sizeof(**out));
		}
		pp_calib_meas *m = &(*out)[(*n)++];
		pp_calib_meas_init(m);
		m->id = sqlite3_column_int64(s, 0);
		m->run_id = sqlite3_column_int64(s, 1);
		m->kind = col_text(s, 2);
		m->op = col_text(s, 3);
		m->dtype = col_text(s, 4);
		m->nranks = col_int(s, 5);
		m->bytes = col_int(s, 6);
		m->inplace = col_int(s, 7);
		m->m = col_int(s, 8);
		m->n = col_int(s, 9);
		m->k = col_int(s, 10);
		m->time_us = col_num(s, 11);
		m->time_min_us = col_num(s, 12);
		m->time_max_us = col_num(s, 13);
		m->algbw_GBps = col_num(s, 14);
		m->busbw_GBps = col_num(s, 15);
		m->tflops = col_num(s, 16);
		m->GBps = col_num(s, 17);
		m->repeats = col_int(s, 18);
		m->wrong = col_int(s, 19);
		m->device = col_int(s, 20);
		m->scope = col_text(s, 21);
		m->extra_json = col_text(s, 22);
	}
	if (step != SQLITE_DONE) {
		rc = db_fail(st, err, "cannot read measurements");
		pp_calib_meas_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
out:
	sqlite3_finalize(s);
	return rc;
}

const char pp_calibdb_csv_header[] =
	"kind,op,dtype,nranks,bytes,inplace,m,n,k,time_us,algbw_GBps,busbw_GBps,tflops,GBps,"
	"time_min_us,time_max_us,repeats,wrong,device,scope,run_id";

static void csv_int(pp_csvw *w, int64_t v)
{
	if (v != PP_CALIB_NULL)
		pp_csvw_int(w, (long long)v);
	else
		pp_csvw_empty(w);
}

static int check_run(pp_store *st, int64_t run_id, pp_err *err)
{
	pp_calib_run r;
	int rc = pp_calibdb_get_run(st, run_id, &r, err);
	pp_calib_run_release(&r);
	return rc;
}

int pp_calibdb_export_csv(pp_store *st, int64_t run_id, pp_sb *out, pp_err *err)
{
	pp_calib_meas *rows = NULL;
	size_t n = 0;
	int rc;
	if ((rc = check_run(st, run_id, err)) || (rc = pp_calibdb_query(st, run_id, NULL, &rows, &n, err)))
		return rc;
	/* %.6g keeps six significant digits: finer than any repeat-to-repeat
	 * spread, and short enough for a spreadsheet */
	pp_csvw w;
	pp_csvw_init(&w, out);
	pp_csvw_header(&w, pp_calibdb_csv_header);
	for (size_t i = 0; i < n; i++) {
		const pp_calib_meas *m = &rows[i];
		pp_csvw_text(&w, m->kind);
		pp_csvw_text(&w, m->op);
		pp_csvw_text(&w, m->dtype);
		const int64_t ints[] = {m->nranks, m->bytes, m->inplace, m->m, m->n, m->k};
		for (size_t k = 0; k < PP_ARRAY_LEN(ints); k++)
			csv_int(&w, ints[k]);
		const double nums[] = {m->time_us, m->algbw_GBps, m->busbw_GBps, m->tflops, m->GBps,
				       m->time_min_us, m->time_max_us};
		for (size_t k = 0; k < PP_ARRAY_LEN(nums); k++)
			pp_csvw_num(&w, nums[k], 6);
		csv_int(&w, m->repeats);
		csv_int(&w, m->wrong);
		csv_int(&w, m->device);
		pp_csvw_text(&w, m->scope);
		csv_int(&w, m->run_id);
		pp_csvw_end(&w);
	}
	pp_calib_meas_free(rows, n);
	return 0;
}

/* NULL columns are left out of a row's object */
static void json_int(cJSON *o, const char *key, int64_t v)
{
	if (v != PP_CALIB_NULL)
		pp_json_int(o, key, v);
}

static void json_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		pp_json_num(o, key, v, 9);
}

static void json_str(cJSON *o, const char *key, const char *v)
{
	if (v)
		pp_json_str(o, key, v);
}

static void meas_json(cJSON *arr, const pp_calib_meas *m)
{
	cJSON *o = pp_json_obj(arr, NULL);
	json_int(o, "run_id", m->run_id);
	json_str(o, "kind", m->kind);
	json_str(o, "op", m->op);
	json_str(o, "dtype", m->dtype);
	json_int(o, "nranks", m->nranks);
	json_int(o, "bytes", m->bytes);
	json_int(o, "inplace", m->inplace);
	json_int(o, "m", m->m);
	json_int(o, "n", m->n);
	json_int(o, "k", m->k);
	json_num(o, "time_us", m->time_us);
	json_num(o, "time_min_us", m->time_min_us);
	json_num(o, "time_max_us", m->time_max_us);
	json_num(o, "algbw_GBps", m->algbw_GBps);
	json_num(o, "busbw_GBps", m->busbw_GBps);
	json_num(o, "tflops", m->tflops);
	json_num(o, "GBps", m->GBps);
	json_int(o, "repeats", m->repeats);
	json_int(o, "wrong", m->wrong);
	json_int(o, "device", m->device);
	json_str(o, "scope", m->scope);
	if (m->extra_json) {
		/* stored by podplan as JSON; a row that is not keeps its text */
		cJSON *x = cJSON_Parse(m->extra_json);
		pp_json_add(o, "extra", x ? x : cJSON_CreateString(m->extra_json));
	}
}

int pp_calibdb_export_json(pp_store *st, int64_t run_id, pp_sb *out, pp_err *err)
{
	pp_calib_meas *rows = NULL;
	size_t n = 0;
	int rc;
	if ((rc = check_run(st, run_id, err)) || (rc = pp_calibdb_query(st, run_id, NULL, &rows, &n, err)))
		return rc;
	cJSON *arr = pp_json_arr(NULL, NULL);
	for (size_t i = 0; i < n; i++)
		meas_json(arr, &rows[i]);
	pp_json_print(arr, true, out);
	cJSON_Delete(arr);
	pp_calib_meas_free(rows, n);
	return 0;
}

const char *pp_calibdb_effective_status(const pp_calib_run *r)
{
	if (!r->status || strcmp(r->status, "running") || !r->extra_json)
		return r->status ? r->status : "?";
	char host[256] = "";
	cJSON *j = cJSON_Parse(r->extra_json);
	double pid = pp_json_get_num(j, "pid", 0);
	const char *wh = pp_json_get_str(j, "writer_host", NULL);
	const char *st = r->status;
	/* kill(pid, 0) fails with ESRCH once the writer is gone; only
	 * meaningful on the host that ran it */
	if (wh && !gethostname(host, sizeof(host) - 1) && !strcmp(host, wh) && pid >= 1 &&
	    pid <= 4194304 && pid == floor(pid) && kill((pid_t)pid, 0) != 0 && errno == ESRCH)
		st = "interrupted";
	cJSON_Delete(j);
	return st;
}

/* A figure with about four significant digits, "-" when absent. */
static void fmt_fig(char *buf, size_t n, double v, const char *unit)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (fabs(v) >= 100)
		snprintf(buf, n, "%.0f %s", v, unit);
	else if (fabs(v) >= 10)
		snprintf(buf, n, "%.1f %s", v, unit);
	else
		snprintf(buf, n, "%.2f %s", v, unit);
}

int pp_calibdb_verdict_count(const char *verdict_json, const char *verdict)
{
	cJSON *j = verdict_json ? cJSON_Parse(verdict_json) : NULL;
	const cJSON *rows = j ? cJSON_GetObjectItemCaseSensitive(j, "rows") : NULL;
	int n = cJSON_IsArray(rows) ? 0 : -1;
	for (const cJSON *r = n == 0 ? rows->child : NULL; r; r = r->next)
		n += !strcmp(pp_json_get_str(r, "verdict", ""), verdict);
	cJSON_Delete(j);
	return n;
}

int pp_calibdb_format_verdict(const char *verdict_json, pp_sb *out, pp_err *err)
{
	cJSON *j = verdict_json ? cJSON_Parse(verdict_json) : NULL;
	const cJSON *rows = j ? cJSON_GetObjectItemCaseSensitive(j, "rows") : NULL;
	if (!cJSON_IsArray(rows)) {
		cJSON_Delete(j);
		return pp_errf(err, PP_EINPUT, "not a podplan health verdict (expected an object with "
			       "a \"rows\" array)");
	}
	int slow = 0, ok = 0, wrong = 0;
	pp_sb_addf(out, "  %-26s %-17s %12s %12s %6s  %-7s %s\n", "check", "scope", "measured",
		   "expected", "ratio", "verdict", "likely cause (SLOW) / basis (OK)");
	for (const cJSON *r = rows->child; r; r = r->next) {
		char meas[32], exp[32], ratio[16];
		const char *unit = pp_json_get_str(r, "unit", ""), *v = pp_json_get_str(r, "verdict", "");
		fmt_fig(meas, sizeof(meas), pp_json_get_num(r, "measured", NAN), unit);
		fmt_fig(exp, sizeof(exp), pp_json_get_num(r, "expected", NAN), unit);
		double q = pp_json_get_num(r, "ratio", NAN);
		if (isfinite(q))
			snprintf(ratio, sizeof(ratio), "%.2f", q);
		else
			snprintf(ratio, sizeof(ratio), "-");
		const char *cause = pp_json_get_str(r, "cause", "");
		if (!strcmp(v, "SLOW"))
			slow++;
		else if (!strcmp(v, "WRONG"))
			wrong++;
		else if (!strcmp(v, "OK"))
			ok++;
		pp_sb_addf(out, "  %-26s %-17s %12s %12s %6s  %-7s %s\n", pp_json_get_str(r, "check", ""),
			   pp_json_get_str(r, "scope", ""), meas, exp, ratio, v,
			   *cause ? cause : pp_json_get_str(r, "basis", ""));
	}
	/* a WRONG row is counted as such: the results, not the speed, failed */
	if (wrong)
		pp_sb_addf(out, "  %d OK, %d SLOW, %d WRONG: the machine computed wrong results; "
			   "its timings are not calibration data\n", ok, slow, wrong);
	else
		pp_sb_addf(out, "  %d OK, %d SLOW%s\n", ok, slow,
			   slow ? ": see the likely causes above" : "");
	cJSON_Delete(j);
	return 0;
}
