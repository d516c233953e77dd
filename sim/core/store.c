/* store.c - see store.h. */
#include "core/store.h"
#include "core/util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct pp_store {
	sqlite3 *db;
	char *path;
};

/* Forward migrations: migrations[i] brings user_version i to i + 1. Never
 * edit a released migration; append a new one. */
static const char *const migrations[] = {
	/* 1: history, calibration runs and measurements, fitted profiles. */
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  kind TEXT NOT NULL,"                 /* predict | cost | report */
	"  created_at REAL NOT NULL,"           /* unix seconds */
	"  scenario_name TEXT NOT NULL,"
	"  scenario_hash TEXT NOT NULL,"
	"  podplan_version TEXT NOT NULL,"
	"  calib_profile TEXT,"
	"  inputs_json TEXT NOT NULL,"
	"  results_json TEXT NOT NULL);"
	"CREATE INDEX runs_by_scenario ON runs(scenario_name, created_at);"
	"CREATE TABLE calib_runs ("
	"  id INTEGER PRIMARY KEY,"
	"  source TEXT NOT NULL,"               /* podplan-calibrate | nccl-tests | fake */
	"  status TEXT NOT NULL,"               /* running | complete | failed */
	"  started_at REAL NOT NULL,"
	"  ended_at REAL,"
	"  command_line TEXT NOT NULL,"
	"  host TEXT, gpu_name TEXT, gpu_count INTEGER, driver_version TEXT,"
	"  cuda_version TEXT, nccl_version TEXT, cpu_cores INTEGER, mem_bytes INTEGER,"
	"  topology_json TEXT,"                 /* link matrix, NICs */
	"  verdict_json TEXT);"                 /* health verdict rows */
	"CREATE TABLE calib_measurements ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES calib_runs(id) ON DELETE CASCADE,"
	"  kind TEXT NOT NULL,"                 /* collective gemm memcpy h2d d2h storage_write storage_read */
	"  op TEXT,"                            /* all_reduce ... ; gemm shape name */
	"  dtype TEXT,"
	"  nranks INTEGER,"
	"  bytes INTEGER,"
	"  inplace INTEGER,"
	"  m INTEGER, n INTEGER, k INTEGER,"
	"  time_us REAL NOT NULL,"              /* median */
	"  time_min_us REAL, time_max_us REAL,"
	"  algbw_GBps REAL, busbw_GBps REAL, tflops REAL, GBps REAL,"
	"  repeats INTEGER,"
	"  wrong INTEGER,"                      /* correctness errors seen */
	"  device INTEGER,"                     /* GPU index for per-GPU figures; NULL = group */
	"  scope TEXT,"                         /* nvlink | pcie | net | local */
	"  extra_json TEXT);"
	"CREATE INDEX calib_meas_by_run ON calib_measurements(run_id, kind, op);"
	"CREATE TABLE profiles ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL,"
	"  version INTEGER NOT NULL,"
	"  created_at REAL NOT NULL,"
	"  run_ids TEXT NOT NULL,"              /* JSON array of calib_runs ids */
	"  params_json TEXT NOT NULL,"
	"  residuals_json TEXT NOT NULL,"
	"  UNIQUE(name, version));",
	/* 2: per-run JSON for what has no column: sweep options, NCCL_* settings,
	 * the writer's pid, an imported log's footer. */
	"ALTER TABLE calib_runs ADD COLUMN extra_json TEXT;",
};

int pp_store_schema_latest(void)
{
	return (int)PP_ARRAY_LEN(migrations);
}

const char *pp_store_default_path(void)
{
	static char buf[4096];
	const char *env = getenv("PODPLAN_DB");
	if (env && *env)
		return env;
	const char *xdg = getenv("XDG_DATA_HOME");
	if (xdg && *xdg) {
		snprintf(buf, sizeof(buf), "%s/podplan/podplan.db", xdg);
		return buf;
	}
	const char *home = getenv("HOME");
	snprintf(buf, sizeof(buf), "%s/.local/share/podplan/podplan.db", home && *home ? home : ".");
	return buf;
}

int pp_store_exec(pp_store *s, const char *sql, pp_err *err)
{
	char *msg = NULL;
	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int rc = pp_errf(err, PP_EDB, "%s: SQLite: %s", s->path, msg ? msg : "error");
		sqlite3_free(msg);
		return rc;
	}
	return 0;
}

int pp_store_schema_version(pp_store *s)
{
	sqlite3_stmt *st = NULL;
	int v = -1;
	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int migrate(pp_store *s, pp_err *err)
{
	int v = pp_store_schema_version(s);
	int latest = pp_store_schema_latest();
	if (v < 0)
		return pp_errf(err, PP_EDB, "%s: cannot read the schema version: %s", s->path,
			       sqlite3_errmsg(s->db));
	if (v > latest)
		return pp_errf(err, PP_EDB, "%s: schema version %d is newer than this podplan (%d); "
			       "upgrade podplan", s->path, v, latest);
	for (; v < latest; v++) {
		char pragma[64];
		int rc;
		if ((rc = pp_store_exec(s, "BEGIN IMMEDIATE", err)))
			return rc;
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", v + 1);
		if ((rc = pp_store_exec(s, migrations[v], err)) || (rc = pp_store_exec(s, pragma, err))) {
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
			return rc;
		}
		if ((rc = pp_store_exec(s, "COMMIT", err)))
			return rc;
	}
	return 0;
}

/* The tables every podplan store has had since migration 1. */
static const char *const own_tables[] = {"runs", "calib_runs", "calib_measurements", "profiles"};

enum { STORE_EMPTY, STORE_OURS };

/* What the file holds, read without writing: STORE_EMPTY (no table, user
 * version 0: a new or empty file) or STORE_OURS (podplan's tables at a
 * version 1 or later) into *kind; else PP_EINPUT for a file that is not a
 * SQLite database or is another program's, naming what it holds, so that
 * nothing is created in it. *sqlite_rc gets SQLite's code of a failed
 * read. */
static int classify(pp_store *s, int *kind, int *sqlite_rc, pp_err *err)
{
	sqlite3_stmt *q = NULL;
	pp_sb found = {0};
	int have = 0, ntables = 0, rc = 0, st;
	*sqlite_rc = SQLITE_OK;
	if (sqlite3_prepare_v2(s->db, "SELECT name FROM sqlite_master WHERE type = 'table' AND "
			       "name NOT LIKE 'sqlite!_%' ESCAPE '!' ORDER BY name", -1, &q,
			       NULL) != SQLITE_OK)
		goto sqlerr;
	while ((st = sqlite3_step(q)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(q, 0);
		for (size_t i = 0; t && i < PP_ARRAY_LEN(own_tables); i++)
			have += !strcmp(t, own_tables[i]);
		if (ntables++ < 6)
			pp_sb_addf(&found, "%s%s", ntables > 1 ? ", " : "", t ? t : "?");
	}
	if (st != SQLITE_DONE)
		goto sqlerr;
	sqlite3_finalize(q);
	q = NULL;
	int v = pp_store_schema_version(s);
	if (v < 0)
		goto sqlerr;
	if (ntables == 0 && v == 0)
		*kind = STORE_EMPTY;
	else if (v >= 1 && have == (int)PP_ARRAY_LEN(own_tables))
		*kind = STORE_OURS;
	else
		rc = pp_errf(err, PP_EINPUT, "%s: not a podplan store (found %s%s%s, user_version %d; "
			     "expected the tables runs, calib_runs, calib_measurements and profiles); "
			     "left as it is: pass another --db", s->path,
			     ntables ? "the tables " : "no table", ntables ? found.buf : "",
			     ntables > 6 ? ", ..." : "", v);
	goto out;
sqlerr:
	*sqlite_rc = sqlite3_errcode(s->db);
	if (*sqlite_rc == SQLITE_NOTADB)
		rc = pp_errf(err, PP_EINPUT, "%s: not a podplan store (not a SQLite database); left as it "
			     "is: pass another --db", s->path);
	else
		rc = pp_errf(err, PP_EDB, "%s: cannot read the database: %s", s->path,
			     sqlite3_errmsg(s->db));
out:
	sqlite3_finalize(q);
	pp_sb_release(&found);
	return rc;
}

static pp_store *store_new(const char *path)
{
	pp_store *s = pp_xcalloc(1, sizeof(*s));
	s->path = pp_xstrdup(path ? path : pp_store_default_path());
	return s;
}

static int open_db(pp_store *s, const char *file, int flags, pp_err *err)
{
	if (s->db) {
		sqlite3_close(s->db);
		s->db = NULL;
	}
	if (sqlite3_open_v2(file, &s->db, flags, NULL) != SQLITE_OK)
		return pp_errf(err, PP_EDB, "%s: cannot open database: %s", s->path,
			       s->db ? sqlite3_errmsg(s->db) : "out of memory");
	sqlite3_busy_timeout(s->db, 5000);
	return 0;
}

int pp_store_open(pp_store **out, const char *path, pp_err *err)
{
	int rc = 0, kind = STORE_EMPTY, sqlite_rc;
	pp_store *s = store_new(path);
	char *dir = pp_xstrdup(s->path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if ((rc = pp_mkdirs(dir, err)))
			goto out;
	}
	struct stat st;
	if (stat(s->path, &st) == 0 && !S_ISREG(st.st_mode)) {
		rc = pp_errf(err, PP_EINPUT, "%s: is not a regular file, expected a podplan store (a "
			     "SQLite file) or none", s->path);
		goto out;
	}
	if ((rc = open_db(s, s->path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, err)))
		goto out;
	/* what the file is, before anything is written to it: another
	 * program's database keeps its journal mode and gets no table */
	if ((rc = classify(s, &kind, &sqlite_rc, err))) {
		int e = sqlite_rc & 0xff;
		if (e == SQLITE_READONLY || e == SQLITE_CANTOPEN || e == SQLITE_PERM)
			/* opened to write: say so, not "cannot read" */
			rc = pp_errf(err, PP_EDB, "%s: cannot write the database (%s): expected a store "
				     "this user may write (the file and its folder, for SQLite's -wal "
				     "and -shm files), or pass another --db", s->path,
				     sqlite3_errmsg(s->db));
		goto out;
	}
	if ((rc = pp_store_exec(s, "PRAGMA foreign_keys = ON", err)) ||
	    (rc = pp_store_exec(s, "PRAGMA journal_mode = WAL", err)) ||
	    (rc = pp_store_exec(s, "PRAGMA synchronous = NORMAL", err)))
		goto out;
	rc = migrate(s, err);
out:
	free(dir);
	if (rc) {
		pp_store_close(s);
		s = NULL;
	}
	*out = s;
	return rc;
}

/* "file:PATH?QUERY" with what a URI may not hold percent-encoded (SQLite's
 * URI filenames, sqlite.org/uri.html). */
static char *file_uri(const char *path, const char *query)
{
	pp_sb sb = {0};
	pp_sb_adds(&sb, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p <= ' ' || *p >= 0x7f || strchr("%?#", *p))
			pp_sb_addf(&sb, "%%%02X", *p);
		else
			pp_sb_add(&sb, (const char *)p, 1);
	}
	pp_sb_addf(&sb, "?%s", query);
	return pp_sb_detach(&sb);
}

/* Make s a read-only copy in memory at the latest schema: empty (copy
 * false: the file is missing or empty) or the file's content, migrated
 * when its schema is older (a reader never upgrades the file itself). */
static int to_memory(pp_store *s, bool copy, pp_err *err)
{
	sqlite3 *mem = NULL;
	int rc = 0;
	if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		rc = pp_errf(err, PP_EDB, "%s: cannot open an in-memory copy", s->path);
		sqlite3_close(mem);
		return rc;
	}
	if (copy) {
		sqlite3_backup *b = sqlite3_backup_init(mem, "main", s->db, "main");
		if (!b || sqlite3_backup_step(b, -1) != SQLITE_DONE) {
			rc = pp_errf(err, PP_EDB, "%s: cannot read the database: %s", s->path,
				     sqlite3_errmsg(mem));
			sqlite3_backup_finish(b);
			sqlite3_close(mem);
			return rc;
		}
		sqlite3_backup_finish(b);
	}
	sqlite3_close(s->db);
	s->db = mem;
	if ((rc = pp_store_exec(s, "PRAGMA foreign_keys = ON", err)) || (rc = migrate(s, err)))
		return rc;
	return pp_store_exec(s, "PRAGMA query_only = ON", err);
}

/* True for a SQLite file in WAL mode (header bytes 18 and 19 are 2,
 * sqlite.org/fileformat2.html) with no PATH-wal file: no writer has it
 * open, and every commit is in the file. */
static bool quiet_wal(const char *path)
{
	unsigned char h[20];
	FILE *f = fopen(path, "rb");
	bool wal = f && fread(h, 1, sizeof(h), f) == sizeof(h) &&
		   !memcmp(h, "SQLite format 3", 16) && h[18] == 2 && h[19] == 2;
	if (f)
		fclose(f);
	if (!wal)
		return false;
	pp_sb w = {0};
	pp_sb_addf(&w, "%s-wal", path);
	struct stat st;
	bool none = stat(w.buf, &st) != 0 && errno == ENOENT;
	pp_sb_release(&w);
	return none;
}

int pp_store_open_ro(pp_store **out, const char *path, pp_err *err)
{
	int rc = 0, kind = STORE_EMPTY, sqlite_rc = SQLITE_OK;
	pp_store *s = store_new(path);
	char *uri = NULL;
	struct stat st;
	if (stat(s->path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a FIFO would block the header's read forever */
		rc = pp_errf(err, PP_EINPUT, "%s: is not a regular file, expected a podplan store (a "
			     "SQLite file) or none", s->path);
		goto out;
	}
	if (stat(s->path, &st) != 0) {
		if (errno != ENOENT) {
			rc = pp_errf(err, PP_EDB, "%s: %s", s->path, strerror(errno));
			goto out;
		}
		/* nothing recorded yet: an empty store, and no file made */
		if ((rc = open_db(s, ":memory:", SQLITE_OPEN_READWRITE, err)))
			goto out;
		rc = to_memory(s, false, err);
		goto out;
	}
	/* a WAL store with no -wal beside it holds everything in the file:
	 * read it as immutable, so that a reader makes no -shm and -wal files
	 * (the next writer's WAL would only be read from its first commit on) */
	uri = file_uri(s->path, quiet_wal(s->path) ? "immutable=1" : "mode=ro");
	if ((rc = open_db(s, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, err)))
		goto out;
	rc = classify(s, &kind, &sqlite_rc, err);
	if (rc && ((sqlite_rc & 0xff) == SQLITE_CANTOPEN || (sqlite_rc & 0xff) == SQLITE_READONLY)) {
		/* a WAL store in a folder we may not write (an installed copy,
		 * another user's): SQLite cannot make the -shm file readers
		 * share, so read the file as it is (immutable: no locks, no
		 * side files) */
		free(uri);
		uri = file_uri(s->path, "immutable=1");
		if ((rc = open_db(s, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, err)))
			goto out;
		rc = classify(s, &kind, &sqlite_rc, err);
	}
	if (rc)
		goto out;
	int v = pp_store_schema_version(s);
	if (kind == STORE_EMPTY || v < pp_store_schema_latest())
		rc = to_memory(s, kind == STORE_OURS, err);
	else if (v > pp_store_schema_latest())
		rc = migrate(s, err); /* the "newer than this podplan" message */
	else
		rc = pp_store_exec(s, "PRAGMA query_only = ON", err);
out:
	free(uri);
	if (rc) {
		pp_store_close(s);
		s = NULL;
	}
	*out = s;
	return rc;
}

void pp_store_close(pp_store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s->path);
	free(s);
}

sqlite3 *pp_store_db(pp_store *s) { return s->db; }
const char *pp_store_path(const pp_store *s) { return s->path; }

int pp_store_add_run(pp_store *s, const char *kind, const char *scenario_name,
		     const char *scenario_hash, const char *calib_profile, const char *inputs_json,
		     const char *results_json, int64_t *id, pp_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = 0;
	const char *sql = "INSERT INTO runs(kind, created_at, scenario_name, scenario_hash, "
			  "podplan_version, calib_profile, inputs_json, results_json) "
			  "VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = pp_errf(err, PP_EDB, "%s: %s", s->path, sqlite3_errmsg(s->db));
		goto out;
	}
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 2, pp_now_s());
	sqlite3_bind_text(st, 3, scenario_name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, scenario_hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, PP_VERSION, -1, SQLITE_STATIC);
	if (calib_profile && *calib_profile)
		sqlite3_bind_text(st, 6, calib_profile, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 6);
	sqlite3_bind_text(st, 7, inputs_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, results_json, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		rc = pp_errf(err, PP_EDB, "%s: %s", s->path, sqlite3_errmsg(s->db));
		goto out;
	}
	if (id)
		*id = sqlite3_last_insert_rowid(s->db);
out:
	sqlite3_finalize(st);
	return rc;
}
