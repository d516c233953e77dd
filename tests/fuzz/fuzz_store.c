/*
 * fuzz_store.c - what a calibration store and a profile may hold. The
 * input is JSON: {"profile": a profile's JSON (an object or its text),
 * "calib_runs": [...], "calib_measurements": [...], "runs": [...],
 * "profiles": [...]}, each row an object of column: value (text, number,
 * null). The profile goes through the loader (fuzzutil.h
 * fz_profile_json); the rows are inserted into a podplan store in memory
 * (columns outside the schema, and rows SQLite refuses, are left out) and
 * every reader of it is run (fz_read_store). Seeds: the rows of
 * models/calibrations/h200-nvlink-2gpu.db and a report's history row
 * (tests/fuzz/seeds/store/).
 */
#include "fuzzutil.h"
#include "core/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const tables[] = {"calib_runs", "calib_measurements", "runs", "profiles"};
static const char *const columns[] = {
	/* calib_runs */
	"id,source,status,started_at,ended_at,command_line,host,gpu_name,gpu_count,driver_version,"
	"cuda_version,nccl_version,cpu_cores,mem_bytes,topology_json,verdict_json,extra_json",
	/* calib_measurements */
	"id,run_id,kind,op,dtype,nranks,bytes,inplace,m,n,k,time_us,time_min_us,time_max_us,"
	"algbw_GBps,busbw_GBps,tflops,GBps,repeats,wrong,device,scope,extra_json",
	/* runs */
	"id,kind,created_at,scenario_name,scenario_hash,podplan_version,calib_profile,inputs_json,"
	"results_json",
	/* profiles */
	"id,name,version,created_at,run_ids,params_json,residuals_json",
};

static bool known(size_t t, const char *col)
{
	size_t n = strlen(col);
	for (const char *p = columns[t]; *p;) {
		size_t l = strcspn(p, ",");
		if (l == n && !strncmp(p, col, n))
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

static void bind(sqlite3_stmt *q, int i, const cJSON *v)
{
	if (cJSON_IsString(v)) {
		sqlite3_bind_text(q, i, v->valuestring, -1, SQLITE_TRANSIENT);
	} else if (cJSON_IsNumber(v)) {
		double x = v->valuedouble;
		if (x == floor(x) && fabs(x) < 9e18)
			sqlite3_bind_int64(q, i, (sqlite3_int64)x);
		else
			sqlite3_bind_double(q, i, x);
	} else if (cJSON_IsBool(v)) {
		sqlite3_bind_int(q, i, cJSON_IsTrue(v));
	} else if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
		char *t = cJSON_PrintUnformatted(v);
		sqlite3_bind_text(q, i, t ? t : "", -1, SQLITE_TRANSIENT);
		free(t);
	} else {
		sqlite3_bind_null(q, i);
	}
}

static void insert(pp_store *st, size_t t, const cJSON *row)
{
	pp_sb sql = {0}, vals = {0};
	int n = 0;
	pp_sb_addf(&sql, "INSERT INTO %s(", tables[t]);
	for (const cJSON *c = row->child; c; c = c->next) {
		if (!c->string || !known(t, c->string))
			continue;
		pp_sb_addf(&sql, "%s%s", n ? "," : "", c->string);
		pp_sb_addf(&vals, "%s?", n ? "," : "");
		n++;
	}
	pp_sb_addf(&sql, ") VALUES (%s)", vals.buf ? vals.buf : "");
	sqlite3_stmt *q = NULL;
	if (n && sqlite3_prepare_v2(pp_store_db(st), sql.buf, -1, &q, NULL) == SQLITE_OK) {
		int i = 1;
		for (const cJSON *c = row->child; c; c = c->next)
			if (c->string && known(t, c->string))
				bind(q, i++, c);
		sqlite3_step(q); /* a row SQLite refuses (NOT NULL, a foreign key) is left out */
	}
	sqlite3_finalize(q);
	pp_sb_release(&sql);
	pp_sb_release(&vals);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_text(data, size);
	cJSON *j = cJSON_ParseWithLength(text, size);
	free(text);
	if (!j)
		return 0;
	const cJSON *prof = cJSON_GetObjectItemCaseSensitive(j, "profile");
	if (cJSON_IsString(prof)) {
		fz_profile_json(prof->valuestring);
	} else if (cJSON_IsObject(prof)) {
		char *t = cJSON_PrintUnformatted(prof);
		if (t)
			fz_profile_json(t);
		free(t);
	}
	pp_store *st = fz_store();
	int rows = 0;
	for (size_t t = 0; t < PP_ARRAY_LEN(tables); t++) {
		const cJSON *arr = cJSON_GetObjectItemCaseSensitive(j, tables[t]);
		for (const cJSON *r = cJSON_IsArray(arr) ? arr->child : NULL; r && rows < 256;
		     r = r->next, rows++)
			if (cJSON_IsObject(r))
				insert(st, t, r);
	}
	if (rows)
		fz_read_store(st);
	cJSON_Delete(j);
	return 0;
}
