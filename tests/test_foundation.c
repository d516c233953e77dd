/*
 * test_foundation.c - catalogs (every figure sourced and dated, the required
 * ids present), JSON positions, the SQLite store (schema version, foreign
 * keys, WAL, forward migration; another program's database and an empty
 * file left byte for byte as they were, read-only opening, a store in a
 * folder that cannot be written), atomic writes (no planted link
 * followed), whole-file reads (FIFOs, devices, folders, sizes), one-line
 * error messages and terminal-safe names, did-you-mean.
 */
#include "input/catalog.h"
#include "core/fmt.h"
#include "harness.h"
#include "core/jdoc.h"
#include "core/store.h"
#include "testutil.h"
#include "core/util.h"

#include <math.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

static char *nested(int n)
{
	char *t = malloc(2 * (size_t)n + 8);
	char *q = t;
	memcpy(q, "{\"a\":", 5);
	q += 5;
	for (int i = 0; i < n; i++)
		*q++ = '[';
	for (int i = 0; i < n; i++)
		*q++ = ']';
	*q++ = '}';
	*q = '\0';
	return t;
}

/* A syntax error names what is wrong where it is; the nesting limit only
 * when the text really nests past it (cJSON's CJSON_NESTING_LIMIT). */
static void json_syntax_messages(void)
{
	pp_err err = {0};
	pp_jdoc d;
	const char *comma = "{\n  \"a\": [1, 2,],\n  \"b\": 1\n}\n";
	CHECK(pp_jdoc_parse(&d, "c.json", comma, strlen(comma), &err) == PP_EINPUT);
	pp_jdoc_release(&d);
	CHECK_CONTAINS(err.msg, "c.json:2:");
	CHECK_CONTAINS(err.msg, "JSON syntax error near ']'");
	CHECK(!strstr(err.msg, "nest"));
	const char *ctl = "{\"a\": \x7f}";
	CHECK(pp_jdoc_parse(&d, "b.json", ctl, strlen(ctl), &err) == PP_EINPUT);
	pp_jdoc_release(&d);
	CHECK_CONTAINS(err.msg, "near byte 0x7f");
	/* an object holding n arrays, one inside the other: cJSON counts the
	 * object as a level, so n = CJSON_NESTING_LIMIT - 1 parses and one more
	 * does not; the text is balanced, so only the depth can be the cause. */
	char want[64];
	snprintf(want, sizeof(want), "nesting deeper than %d levels", CJSON_NESTING_LIMIT);
	for (int n = CJSON_NESTING_LIMIT - 1; n <= CJSON_NESTING_LIMIT; n++) {
		char *deep = nested(n);
		int rc = pp_jdoc_parse(&d, "d.json", deep, strlen(deep), &err);
		pp_jdoc_release(&d);
		free(deep);
		if (n < CJSON_NESTING_LIMIT) {
			CHECK(rc == 0);
		} else {
			CHECK(rc == PP_EINPUT);
			CHECK_CONTAINS(err.msg, want);
			CHECK(!strstr(err.msg, "syntax error"));
		}
	}
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

/* The old name of the temporary file (PATH.tmp.PID) planted as a link,
 * and a link at PATH itself: neither target is written; PATH becomes a
 * regular file with the umask's mode. */
static void atomic_write_links(void)
{
	char path[512], old[560], victim[512], v2[512];
	snprintf(path, sizeof(path), "%s/links.txt", pp_t_tmpdir());
	snprintf(old, sizeof(old), "%s.tmp.%ld", path, (long)getpid());
	snprintf(victim, sizeof(victim), "%s/victim.txt", pp_t_tmpdir());
	snprintf(v2, sizeof(v2), "%s/victim2.txt", pp_t_tmpdir());
	pp_err err = {0};
	CHECK(pp_write_file_atomic(victim, "precious", 8, &err) == 0);
	CHECK(pp_write_file_atomic(v2, "precious", 8, &err) == 0);
	CHECK(symlink(victim, old) == 0);
	CHECK(symlink(v2, path) == 0);
	mode_t um = umask(027);
	CHECK(pp_write_file_atomic(path, "new", 3, &err) == 0);
	umask(um);
	char *t = NULL;
	CHECK(pp_read_file(victim, 100, &t, NULL, &err) == 0 && !strcmp(t, "precious"));
	free(t);
	CHECK(pp_read_file(v2, 100, &t, NULL, &err) == 0 && !strcmp(t, "precious"));
	free(t);
	struct stat st;
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0640);
	CHECK(lstat(old, &st) == 0 && S_ISLNK(st.st_mode)); /* left alone */
}

/* A FIFO with no writer, a device, a folder: refused at once, named; a
 * file over the limit refused before it is read. */
static void read_odd_files(void)
{
	char fifo[512], big[512];
	snprintf(fifo, sizeof(fifo), "%s/fifo", pp_t_tmpdir());
	snprintf(big, sizeof(big), "%s/big", pp_t_tmpdir());
	CHECK(mkfifo(fifo, 0600) == 0);
	pp_err err = {0};
	char *t = NULL;
	double t0 = pp_mono_s();
	/* a child, so that a regression hangs the child and not the test */
	pid_t pid = fork();
	if (pid == 0)
		_exit(pp_read_file(fifo, 100, &t, NULL, &err) == PP_EINPUT && strstr(err.msg, "FIFO") ? 0 : 1);
	int st = -1;
	for (int i = 0; i < 500 && waitpid(pid, &st, WNOHANG) == 0; i++) {
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	if (waitpid(pid, &st, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		st = -1;
	}
	CHECK(st == 0);
	CHECK(pp_mono_s() - t0 < 5);
	CHECK(pp_read_file("/dev/zero", 1 << 20, &t, NULL, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "character device, expected a regular file");
	CHECK(pp_read_file(pp_t_tmpdir(), 100, &t, NULL, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "a directory");
	int fd = open(big, O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0 && ftruncate(fd, (off_t)1 << 33) == 0); /* 8 GiB, sparse */
	close(fd);
	CHECK(pp_read_file(big, 1 << 20, &t, NULL, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "larger than 1048576 bytes");
	unlink(big);
}

/* Messages stay one line without control bytes; names for a terminal get
 * them as \xNN; JSON strings with one are refused (a TAB is text). */
static void control_characters(void)
{
	pp_err err = {0};
	pp_errf(&err, PP_EINPUT, "%s: bad", "a\x1b]0;owned\a\nb\xc2\x9b" "c");
	CHECK(!pp_has_control(err.msg));
	CHECK_CONTAINS(err.msg, "a\\x1b]0;owned\\x07\\x0ab\\xc2\\x9bc: bad");
	char buf[64];
	CHECK(!strcmp(pp_tty_str("h\x1b[2Jx\t\xc3\xa9", buf, sizeof(buf)), "h\\x1b[2Jx\\x09\xc3\xa9"));
	pp_sb sb = {0};
	pp_sb_adds(&sb, "keep\n");
	pp_sb_adds(&sb, "a\x1b[31m\nb\r\n");
	pp_sb_tty_from(&sb, 5);
	CHECK(!strcmp(sb.buf, "keep\na\\x1b[31m\nb\\x0d\n"));
	pp_sb_release(&sb);
	const char *t = "{\"a\": \"x\\u001b[31my\", \"b\": \"tab\\there\", \"c\": \"\\u009b2J\"}";
	pp_jdoc d;
	CHECK(pp_jdoc_parse(&d, "c.json", t, strlen(t), &err) == 0);
	char out[32];
	CHECK(pp_jget_str(&d, d.root, "", "a", true, out, sizeof(out), NULL, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "c.json:1:2: a: found the string \"x\\x1b[31my\" with a control "
		       "character, expected printable text");
	CHECK(pp_jget_str(&d, d.root, "", "b", true, out, sizeof(out), NULL, &err) == 0);
	CHECK(pp_jget_str(&d, d.root, "", "c", true, out, sizeof(out), NULL, &err) == PP_EINPUT);
	pp_jdoc_release(&d);
	char when[32];
	CHECK(!strcmp(pp_fmt_utc(1e300, "%Y", when, sizeof(when)), "-"));
	CHECK(!strcmp(pp_fmt_utc(NAN, "%Y", when, sizeof(when)), "-"));
	CHECK(!strcmp(pp_fmt_utc(0, "%Y", when, sizeof(when)), "1970"));
}

static char *slurp_bytes(const char *path, size_t *n)
{
	char *t = NULL;
	pp_err err = {0};
	*n = 0;
	if (pp_read_file(path, 64 << 20, &t, n, &err))
		return NULL;
	return t;
}

static bool exists(const char *p)
{
	struct stat st;
	return lstat(p, &st) == 0;
}

/* Another program's SQLite database, a text file and an empty file: the
 * read-write and the read-only open refuse the first two with PP_EINPUT
 * and leave every byte (and no -wal or -shm beside it); the empty file is
 * an empty store to a reader (still empty after) and a new store to a
 * writer. A missing store is read as empty and not created. */
static void store_foreign_files(void)
{
	char foreign[512], text[512], empty[512], missing[512], side[600];
	snprintf(foreign, sizeof(foreign), "%s/foreign.sqlite", pp_t_tmpdir());
	snprintf(text, sizeof(text), "%s/notes.txt", pp_t_tmpdir());
	snprintf(empty, sizeof(empty), "%s/empty.db", pp_t_tmpdir());
	snprintf(missing, sizeof(missing), "%s/nothing/here.db", pp_t_tmpdir());
	sqlite3 *db = NULL;
	CHECK(sqlite3_open(foreign, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "CREATE TABLE contacts(name TEXT); INSERT INTO contacts "
			   "VALUES ('ada'); PRAGMA user_version = 7;", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	pp_err err = {0};
	CHECK(pp_write_file_atomic(text, "not a database\n", 15, &err) == 0);
	CHECK(pp_write_file_atomic(empty, "", 0, &err) == 0);
	size_t n0, n1;
	char *before = slurp_bytes(foreign, &n0);
	pp_store *st = NULL;
	for (int ro = 0; ro < 2; ro++) {
		CHECK((ro ? pp_store_open_ro : pp_store_open)(&st, foreign, &err) == PP_EINPUT && !st);
		CHECK_CONTAINS(err.msg, "not a podplan store (found the tables contacts, user_version 7");
		CHECK((ro ? pp_store_open_ro : pp_store_open)(&st, text, &err) == PP_EINPUT && !st);
		CHECK_CONTAINS(err.msg, "not a podplan store (not a SQLite database)");
	}
	char *after = slurp_bytes(foreign, &n1);
	CHECK(before && after && n0 == n1 && !memcmp(before, after, n0));
	free(before);
	free(after);
	snprintf(side, sizeof(side), "%s-wal", foreign);
	CHECK(!exists(side));
	snprintf(side, sizeof(side), "%s-shm", foreign);
	CHECK(!exists(side));
	char *t = slurp_bytes(text, &n0);
	CHECK(t && !strcmp(t, "not a database\n"));
	free(t);
	/* read-only: an empty store that cannot be written, the file untouched */
	CHECK(pp_store_open_ro(&st, empty, &err) == 0);
	CHECK(pp_store_schema_version(st) == pp_store_schema_latest());
	CHECK(pp_store_add_run(st, "predict", "s", "0", NULL, "{}", "{}", NULL, &err) == PP_EDB);
	pp_store_close(st);
	struct stat sb;
	CHECK(stat(empty, &sb) == 0 && sb.st_size == 0);
	CHECK(pp_store_open_ro(&st, missing, &err) == 0);
	pp_store_close(st);
	CHECK(!exists(missing));
	snprintf(side, sizeof(side), "%s/nothing", pp_t_tmpdir());
	CHECK(!exists(side));
	/* read-write: the empty file becomes a store */
	CHECK(pp_store_open(&st, empty, &err) == 0);
	pp_store_close(st);
	CHECK(stat(empty, &sb) == 0 && sb.st_size > 0);
}

/* A store at schema 1 read through pp_store_open_ro: its rows are there
 * at the latest schema, the file stays at version 1. */
static void store_old_schema_read_only(void)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/v1.db", pp_t_tmpdir());
	pp_store *st;
	pp_err err = {0};
	CHECK(pp_store_open(&st, path, &err) == 0);
	CHECK(pp_store_add_run(st, "report", "old", "0", NULL, "{}", "{}", NULL, &err) == 0);
	/* take migration 2 back */
	CHECK(pp_store_exec(st, "ALTER TABLE calib_runs DROP COLUMN extra_json; "
			    "PRAGMA user_version = 1; PRAGMA journal_mode = DELETE;", &err) == 0);
	pp_store_close(st);
	CHECK(pp_store_open_ro(&st, path, &err) == 0);
	sqlite3_stmt *q = NULL;
	CHECK(sqlite3_prepare_v2(pp_store_db(st), "SELECT count(*) FROM runs", -1, &q, NULL) == 0);
	CHECK(sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 1);
	sqlite3_finalize(q);
	CHECK(sqlite3_prepare_v2(pp_store_db(st), "SELECT extra_json FROM calib_runs", -1, &q, NULL) ==
	      SQLITE_OK);
	sqlite3_finalize(q);
	pp_store_close(st);
	sqlite3 *db = NULL;
	CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 1);
	sqlite3_finalize(q);
	sqlite3_close(db);
}

/* A reader beside a writer that keeps the store open sees its commits
 * (through the -wal file); once the writer is gone, a reader makes no
 * -wal or -shm file. */
static void store_reader_beside_writer(void)
{
	char path[512], side[600];
	snprintf(path, sizeof(path), "%s/busy.db", pp_t_tmpdir());
	pp_store *w, *r;
	pp_err err = {0};
	CHECK(pp_store_open(&w, path, &err) == 0);
	CHECK(pp_store_add_run(w, "report", "live", "0", NULL, "{}", "{}", NULL, &err) == 0);
	CHECK(pp_store_open_ro(&r, path, &err) == 0);
	sqlite3_stmt *q = NULL;
	CHECK(sqlite3_prepare_v2(pp_store_db(r), "SELECT count(*) FROM runs", -1, &q, NULL) == 0);
	CHECK(sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 1);
	sqlite3_finalize(q);
	pp_store_close(r);
	pp_store_close(w);
	snprintf(side, sizeof(side), "%s-wal", path);
	CHECK(!exists(side));
	CHECK(pp_store_open_ro(&r, path, &err) == 0);
	pp_store_close(r);
	CHECK(!exists(side));
	snprintf(side, sizeof(side), "%s-shm", path);
	CHECK(!exists(side));
}

/* A WAL store in a folder this user cannot write (an installed copy):
 * `podplan calib list` and `podplan history` read it. As root, through
 * setpriv as nobody; skipped without a way to drop to another user. */
static void store_read_only_folder(void)
{
	char dir[512], db[600], cmd[2048];
	snprintf(dir, sizeof(dir), "%s/ro", pp_t_tmpdir());
	snprintf(db, sizeof(db), "%s/store.db", dir);
	CHECK(pp_mkdirs(dir, NULL) == 0);
	pp_store *st;
	pp_err err = {0};
	CHECK(pp_store_open(&st, db, &err) == 0);
	CHECK(pp_store_add_run(st, "report", "installed", "0", NULL, "{}", "{}", NULL, &err) == 0);
	pp_store_close(st);
	const char *as = "";
	if (geteuid() == 0) {
		if (access("/usr/bin/setpriv", X_OK) != 0) {
			pp_t_skip("running as root without setpriv to drop to another user");
			return;
		}
		as = "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups ";
		/* nobody must reach the folder and the binary */
		snprintf(cmd, sizeof(cmd), "chmod o+rx %s %s && chmod o+r %s", pp_t_tmpdir(), dir, db);
		CHECK(system(cmd) == 0);
	}
	CHECK(chmod(dir, 0555) == 0);
	char *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s%s history --db %s", as, pp_t_bin(), db);
	int rc = pp_t_sh(cmd, &out);
	if (rc != 0 && out && strstr(out, "Permission denied") && !strstr(out, db)) {
		pp_t_skip("another user cannot run %s here", pp_t_bin());
		free(out);
		chmod(dir, 0755);
		return;
	}
	CHECK(rc == 0);
	CHECK_CONTAINS(out, "installed");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s%s calib list --db %s", as, pp_t_bin(), db);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "no calibration runs");
	free(out);
	chmod(dir, 0755);
}

int main(void)
{
	RUN(catalogs_sourced);
	RUN(catalog_cli);
	RUN(json_positions);
	RUN(json_syntax_messages);
	RUN(store_schema);
	RUN(atomic_write);
	RUN(atomic_write_links);
	RUN(read_odd_files);
	RUN(control_characters);
	RUN(store_foreign_files);
	RUN(store_old_schema_read_only);
	RUN(store_reader_beside_writer);
	RUN(store_read_only_folder);
	return pp_t_done("test_foundation");
}
