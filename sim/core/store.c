/* store.c - see store.h. */
#include "core/store.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

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

int pp_store_open(pp_store **out, const char *path, pp_err *err)
{
	int rc = 0;
	pp_store *s = pp_xcalloc(1, sizeof(*s));
	s->path = pp_xstrdup(path ? path : pp_store_default_path());
	char *dir = pp_xstrdup(s->path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if ((rc = pp_mkdirs(dir, err)))
			goto out;
	}
	if (sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		rc = pp_errf(err, PP_EDB, "%s: cannot open database: %s", s->path,
			     s->db ? sqlite3_errmsg(s->db) : "out of memory");
		goto out;
	}
	sqlite3_busy_timeout(s->db, 5000);
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
