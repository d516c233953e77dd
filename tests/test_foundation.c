/*
 * test_foundation.c - catalogs (every figure sourced and dated, the required
 * ids present), JSON positions, the SQLite store (schema version, foreign
 * keys, WAL, forward migration), atomic writes, did-you-mean.
 */
#include "input/catalog.h"
#include "harness.h"
#include "core/jdoc.h"
#include "core/store.h"
#include "testutil.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int unsourced;

/* Every object with a numeric "value" must carry a "source" found in the
 * file's sources map and a "date". */
static void walk(const cJSON *srcs, const cJSON *n, const char *where)
{
	if (cJSON_IsObject(n)) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(n, "value");
		if (cJSON_IsNumber(v)) {
			const cJSON *s = cJSON_GetObjectItemCaseSensitive(n, "source");
			const cJSON *d = cJSON_GetObjectItemCaseSensitive(n, "date");
			bool ok = cJSON_IsString(s) && cJSON_IsString(d) && d->valuestring[0];
			if (ok && srcs && !cJSON_GetObjectItemCaseSensitive(srcs, s->valuestring) &&
			    !strstr(s->valuestring, " ") && !strstr(s->valuestring, ":"))
				ok = false;
			if (!ok) {
				pp_t_diag("unsourced figure in %s", where);
				unsourced++;
			}
		}
	}
	for (const cJSON *c = n ? n->child : NULL; c; c = c->next)
		if (!c->string || strcmp(c->string, "sources"))
			walk(srcs, c, where);
}

static void catalogs_sourced(void)
{
	const pp_catalog *cat = tu_catalog();
	const char *kinds[] = {"gpus", "fabrics", "storage", "models", "kernels"};
	for (size_t i = 0; i < PP_ARRAY_LEN(kinds); i++) {
		const pp_jdoc *d = pp_catalog_doc(cat, kinds[i]);
		const cJSON *srcs = cJSON_GetObjectItemCaseSensitive(d->root, "sources");
		CHECK(cJSON_IsObject(srcs));
		walk(srcs, d->root, kinds[i]);
	}
	CHECK(unsourced == 0);
	const char *gpus[] = {"a100-40gb", "a100-80gb", "h100-sxm", "h100-pcie", "h200", "b200",
			      "l40s", "rtx4090"};
	CHECK(pp_catalog_ngpus(cat) >= 8);
	for (size_t i = 0; i < PP_ARRAY_LEN(gpus); i++)
		CHECK(pp_catalog_gpu(cat, gpus[i]) != NULL);
	const char *fabs[] = {"nvlink3", "nvlink4", "nvlink5", "pcie4", "pcie5", "ib-hdr", "ib-ndr",
			      "ib-xdr", "roce-400g", "eth-100g", "eth-10g"};
	for (size_t i = 0; i < PP_ARRAY_LEN(fabs); i++)
		CHECK(pp_catalog_fabric(cat, fabs[i]) != NULL);
	const char *models[] = {"gpt3-175b", "llama3-8b", "llama3-70b", "llama3-405b", "gpt-1.7b",
				"gpt-1t"};
	for (size_t i = 0; i < PP_ARRAY_LEN(models); i++)
		CHECK(pp_catalog_model(cat, models[i]) != NULL);
	CHECK(pp_catalog_storage(cat, "local-nvme") && pp_catalog_storage(cat, "lustre") &&
	      pp_catalog_storage(cat, "object-nvme-cache"));
	/* datasheet cross-checks (NVIDIA: A100 312, H100 SXM 989 dense bf16 TFLOP/s) */
	CHECK_NEAR(pp_catalog_gpu(cat, "a100-80gb")->peak_flops[PP_DT_BF16], 312e12, 0.005);
	CHECK_NEAR(pp_catalog_gpu(cat, "h100-sxm")->peak_flops[PP_DT_BF16], 989e12, 0.005);
	CHECK(pp_catalog_gpu(cat, "a100-80gb")->peak_flops[PP_DT_FP8] == 0);
	CHECK(pp_catalog_gpu(cat, "rtx4090")->nvlink_gen == 0);
}

static void catalog_cli(void)
{
	char cmd[512], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s catalog gpus", pp_t_bin());
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "h100-sxm");
	CHECK_CONTAINS(out, "every figure, with its source and date");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s catalog gpus --json", pp_t_bin());
	CHECK(pp_t_sh(cmd, &out) == 0);
	cJSON *j = cJSON_Parse(out);
	CHECK(j && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "gpus")) >= 8);
	CHECK(j && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(j, "sources")));
	cJSON_Delete(j);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s catalog gpu", pp_t_bin());
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "did you mean 'gpus'");
	free(out);
}

static void json_positions(void)
{
	const char *t = "{\n  \"a\": {\n    \"b\": [1, {\"c\": 2}],\n    \"d\": \"x\"\n  }\n}\n";
	pp_jdoc d;
	pp_err err = {0};
	CHECK(pp_jdoc_parse(&d, "t.json", t, strlen(t), &err) == 0);
	int line, col;
	pp_jdoc_locate(&d, "a.d", &line, &col);
	CHECK(line == 4 && col == 5);
	pp_jdoc_locate(&d, "a.b[1].c", &line, &col);
	CHECK(line == 3 && col == 15);
	pp_jdoc_locate(&d, "a.zz", &line, &col);
	CHECK(line == 0);
	int64_t v;
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(d.root, "a");
	CHECK(pp_jget_int(&d, a, "a", "d", true, 0, 10, &v, NULL, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "t.json:4:5: a.d: found the string \"x\", expected an integer");
	pp_jdoc_release(&d);
	const char *cands[] = {"tensor_model_parallel_size", "pipeline_model_parallel_size"};
	CHECK(!strcmp(pp_did_you_mean("tensor_model_paralel_size", cands, 2), cands[0]));
	CHECK(pp_did_you_mean("banana", cands, 2) == NULL);
}

static void store_schema(void)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/sub/dir/t.db", pp_t_tmpdir());
	pp_store *st;
	pp_err err = {0};
	CHECK(pp_store_open(&st, path, &err) == 0);
	CHECK(pp_store_schema_version(st) == pp_store_schema_latest());
	sqlite3_stmt *q;
	sqlite3_prepare_v2(pp_store_db(st), "PRAGMA foreign_keys", -1, &q, NULL);
	CHECK(sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 1);
	sqlite3_finalize(q);
	sqlite3_prepare_v2(pp_store_db(st), "PRAGMA journal_mode", -1, &q, NULL);
	CHECK(sqlite3_step(q) == SQLITE_ROW && !strcmp((const char *)sqlite3_column_text(q, 0), "wal"));
	sqlite3_finalize(q);
	int64_t id = 0;
	CHECK(pp_store_add_run(st, "predict", "s", "0123", NULL, "{}", "{}", &id, &err) == 0 && id > 0);
	/* foreign keys enforced: a measurement of a run that does not exist */
	CHECK(pp_store_exec(st, "INSERT INTO calib_measurements(run_id, kind, time_us) "
			    "VALUES (999, 'gemm', 1.0)", &err) == PP_EDB);
	pp_store_close(st);
	/* reopening migrates nothing and keeps the data */
	CHECK(pp_store_open(&st, path, &err) == 0);
	sqlite3_prepare_v2(pp_store_db(st), "SELECT count(*) FROM runs", -1, &q, NULL);
	CHECK(sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 1);
	sqlite3_finalize(q);
	/* a database from a newer podplan is refused, not damaged */
	char sql[64];
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", pp_store_schema_latest() + 1);
	CHECK(pp_store_exec(st, sql, &err) == 0);
	pp_store_close(st);
	CHECK(pp_store_open(&st, path, &err) == PP_EDB);
	CHECK_CONTAINS(err.msg, "newer");
}

static void atomic_write(void)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/out.txt", pp_t_tmpdir());
	pp_err err = {0};
	CHECK(pp_write_file_atomic(path, "hello", 5, &err) == 0);
	char *t = NULL;
	size_t n = 0;
	CHECK(pp_read_file(path, 100, &t, &n, &err) == 0 && n == 5 && !strcmp(t, "hello"));
	free(t);
	/* into a directory that does not exist: an error and no stray file */
	snprintf(path, sizeof(path), "%s/nodir/out.txt", pp_t_tmpdir());
	CHECK(pp_write_file_atomic(path, "x", 1, &err) == PP_EIO);
	CHECK(access(path, F_OK) != 0);
}

int main(void)
{
	RUN(catalogs_sourced);
	RUN(catalog_cli);
	RUN(json_positions);
	RUN(store_schema);
	RUN(atomic_write);
	return pp_t_done("test_foundation");
}
