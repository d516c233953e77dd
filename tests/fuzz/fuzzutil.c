/* fuzzutil.c - see fuzzutil.h. */
#include "fuzzutil.h"
#include "core/dirs.h"
#include "core/util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pp_catalog *cat;
static char tmp[256];

static void cleanup(void)
{
	if (tmp[0])
		pp_rmtree(tmp, NULL);
	pp_catalog_free(cat);
}

const pp_catalog *fz_catalog(void)
{
	if (!cat) {
		pp_err err = {0};
		if (pp_catalog_load(&cat, NULL, &err)) {
			fprintf(stderr, "fuzz: cannot load the catalog: %s\n", err.msg);
			abort();
		}
		atexit(cleanup);
	}
	return cat;
}

char *fz_text(const uint8_t *data, size_t size)
{
	char *t = pp_xmalloc(size + 1);
	if (size)
		memcpy(t, data, size);
	t[size] = '\0';
	return t;
}

const char *fz_tmpdir(void)
{
	if (!tmp[0]) {
		/* TMPDIR as mkstemp(3)'s callers honour it: the report target
		 * fsyncs every file it writes, so a tmpfs (/dev/shm) spares a
		 * campaign the disk's flush latency */
		const char *d = getenv("TMPDIR");
		if (!d || !*d || strlen(d) > sizeof(tmp) - 32)
			d = "/tmp";
		snprintf(tmp, sizeof(tmp), "%s/podplan-fuzz.XXXXXX", d);
		if (!mkdtemp(tmp)) {
			perror("fuzz: mkdtemp");
			abort();
		}
		fz_catalog(); /* registers the clean-up */
	}
	return tmp;
}

const char *fz_write(const char *name, const void *data, size_t size)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", fz_tmpdir(), name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	size_t off = 0;
	while (off < size) {
		ssize_t w = write(fd, (const char *)data + off, size - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(fd);
	return off == size ? path : NULL;
}

void fz_check_err(int rc, const char *msg, const char *what)
{
	if (rc && !msg[0]) {
		fprintf(stderr, "fuzz: %s failed (%d) without a message\n", what, rc);
		abort();
	}
}

#include "calib/calibdb.h"
#include "calib/fit.h"
#include "calib/profile.h"
#include "engine/predict.h"
#include "history.h"
#include "input/hw.h"
#include "input/scenario.h"

static pp_store *store;

static void close_store(void)
{
	pp_store_close(store);
}

pp_store *fz_store(void)
{
	pp_err err = {0};
	if (!store) {
		if (pp_store_open(&store, ":memory:", &err)) {
			fprintf(stderr, "fuzz: cannot open a store in memory: %s\n", err.msg);
			abort();
		}
		atexit(close_store);
	}
	if (pp_store_exec(store, "DELETE FROM calib_measurements; DELETE FROM calib_runs; "
			  "DELETE FROM runs; DELETE FROM profiles;", &err)) {
		fprintf(stderr, "fuzz: %s\n", err.msg);
		abort();
	}
	return store;
}

/* a small scenario predicted with profile p applied */
static void predict_with(const pp_profile *p)
{
	static const char *const sc =
		"{\"model\": {\"num_layers\": 4, \"hidden_size\": 1024, \"num_attention_heads\": 8, "
		"\"seq_length\": 512, \"vocab_size\": 32000}, \"training\": {\"global_batch_size\": 16, "
		"\"micro_batch_size\": 1}, \"parallel\": {\"tensor_model_parallel_size\": 2, "
		"\"pipeline_model_parallel_size\": 2}, \"cluster\": {\"gpu\": \"h100-sxm\", "
		"\"num_gpus\": 16, \"gpus_per_node\": 8}}";
	pp_scenario s;
	pp_hw hw;
	pp_result r;
	pp_err err = {0};
	int rc = pp_scenario_parse(&s, "small.json", sc, strlen(sc), fz_catalog(), &err);
	if (rc) {
		fprintf(stderr, "fuzz: the small scenario: %s\n", err.msg);
		abort();
	}
	if (!(rc = pp_hw_from_catalog(&hw, fz_catalog(), &s.cluster, &err))) {
		pp_profile_apply(&hw, p);
		rc = pp_predict(&s, &hw, NULL, &r, &err);
	}
	fz_check_err(rc, err.msg, "pp_predict with a profile");
	pp_scenario_release(&s);
}

void fz_profile_json(const char *json)
{
	pp_profile p, q;
	pp_err err = {0};
	int rc = pp_profile_from_json(&p, "profile.json", json, &err);
	fz_check_err(rc, err.msg, "pp_profile_from_json");
	if (rc)
		return;
	char *again = pp_profile_to_json(&p);
	if (pp_profile_from_json(&q, "again.json", again, &err)) {
		fprintf(stderr, "fuzz: a profile that loaded does not load again: %s\n%s\n", err.msg,
			again);
		abort();
	}
	free(again);
	predict_with(&p);
}

void fz_read_store(pp_store *st)
{
	pp_calib_run *runs = NULL;
	size_t n = 0;
	pp_err err = {0};
	int rc = pp_calibdb_list_runs(st, &runs, &n, &err);
	fz_check_err(rc, err.msg, "pp_calibdb_list_runs");
	for (size_t i = 0; i < n && i < 4; i++) {
		pp_calib_run r;
		pp_calib_meas *rows = NULL;
		size_t nr = 0;
		pp_sb sb = {0};
		pp_calibdb_effective_status(&runs[i]);
		if (!pp_calibdb_get_run(st, runs[i].id, &r, &err)) {
			if (r.verdict_json)
				pp_calibdb_format_verdict(r.verdict_json, &sb, &err);
			pp_calib_run_release(&r);
		}
		if (!pp_calibdb_query(st, runs[i].id, NULL, &rows, &nr, &err))
			pp_calib_meas_free(rows, nr);
		memset(&err, 0, sizeof(err));
		rc = pp_calibdb_export_csv(st, runs[i].id, &sb, &err);
		fz_check_err(rc, err.msg, "pp_calibdb_export_csv");
		rc = pp_calibdb_export_json(st, runs[i].id, &sb, &err);
		fz_check_err(rc, err.msg, "pp_calibdb_export_json");
		pp_sb_release(&sb);
		pp_profile p;
		memset(&err, 0, sizeof(err));
		rc = pp_fit_runs(st, fz_catalog(), &runs[i].id, 1, "h100-sxm", "fz", &p, &err);
		fz_check_err(rc, err.msg, "pp_fit_runs");
		if (!rc) {
			char *json = pp_profile_to_json(&p);
			pp_profile q;
			if (!pp_profile_save(st, &p, &err) && pp_profile_load(st, "fz", 0, &q, &err))
				fprintf(stderr, "fuzz: note: a fitted profile does not load: %s\n", err.msg);
			fz_profile_json(json);
			free(json);
		}
	}
	for (size_t i = 0; i < n; i++)
		pp_calib_run_release(&runs[i]);
	free(runs);
	pp_sb out = {0};
	rc = pp_history_list(st, NULL, 0, false, &out, &err);
	fz_check_err(rc, err.msg, "pp_history_list");
	rc = pp_history_list(st, NULL, 0, true, &out, &err);
	fz_check_err(rc, err.msg, "pp_history_list --csv");
	rc = pp_history_list(st, "x", 5, false, &out, &err);
	fz_check_err(rc, err.msg, "pp_history_list --scenario");
	sqlite3_stmt *q = NULL;
	int64_t ids[2] = {0, 0};
	int k = 0;
	if (sqlite3_prepare_v2(pp_store_db(st), "SELECT id FROM runs ORDER BY id LIMIT 2", -1, &q,
			       NULL) == SQLITE_OK)
		while (sqlite3_step(q) == SQLITE_ROW && k < 2)
			ids[k++] = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	if (k) {
		rc = pp_history_compare(st, ids[0], ids[k - 1], &out, &err);
		fz_check_err(rc, err.msg, "pp_history_compare");
	}
	pp_sb_release(&out);
}
