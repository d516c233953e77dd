/*
 * store.h - podplan's embedded SQLite store: calibration runs and their
 * measurements, fitted profiles, and the history of predict/cost/report
 * runs. One database file, created on first use.
 *
 * Path: --db on the command line, else $PODPLAN_DB, else
 * $XDG_DATA_HOME/podplan/podplan.db, else ~/.local/share/podplan/podplan.db.
 *
 * The schema is versioned with PRAGMA user_version and upgraded by forward
 * migrations when a database is opened; foreign keys are on; the journal is
 * WAL so a calibration killed mid-sweep keeps every committed measurement.
 * The tables are listed in store.c (migration 1 onwards).
 */
#ifndef PP_STORE_H
#define PP_STORE_H

#include "core/pp.h"
#include <sqlite3.h>

typedef struct pp_store pp_store;

/* Open for writing (creating directories and file as needed) and migrate.
 * The file is checked first, with reads only: a file that is not a SQLite
 * database, or another program's database (tables that are not podplan's,
 * a user_version podplan never wrote), is PP_EINPUT and left byte for byte
 * as it was (no WAL switch, no table created). An empty file or a missing
 * one becomes a new store. */
int pp_store_open(pp_store **out, const char *path, pp_err *err);
/* Open for reading only (history, compare, calib list/show/export, fit
 * --list/--export, a calibration profile for predict): nothing is written
 * to the file or made beside it. A WAL store without a -wal file (no
 * writer has it open) and one in a folder that cannot be written (an
 * installed copy, another user's) are read as immutable; a WAL store being
 * written is read through SQLite's -shm and -wal files, as any reader of
 * it, to see the writer's commits. A missing or empty file is an empty
 * store (no file created); a store at an older schema is read through a
 * migrated copy in memory; not a podplan store is PP_EINPUT as above.
 * Writing through it fails (PRAGMA query_only). */
int pp_store_open_ro(pp_store **out, const char *path, pp_err *err);
void pp_store_close(pp_store *s);
sqlite3 *pp_store_db(pp_store *s);
const char *pp_store_path(const pp_store *s);

/* The schema version this build writes, and the one found in the file. */
int pp_store_schema_latest(void);
int pp_store_schema_version(pp_store *s);

/* Default database path per the rules above; static buffer. */
const char *pp_store_default_path(void);
/* The rule pp_store_default_path follows, in words for --help (no path of
 * this machine in the text). */
#define PP_STORE_DEFAULT_TEXT \
	"$PODPLAN_DB, else $XDG_DATA_HOME/podplan/podplan.db, else ~/.local/share/podplan/podplan.db"

/* Execute SQL with no results; PP_EDB with SQLite's message on failure. */
int pp_store_exec(pp_store *s, const char *sql, pp_err *err);

/* Record a predict/cost/report run: returns its id in *id. */
int pp_store_add_run(pp_store *s, const char *kind, const char *scenario_name,
		     const char *scenario_hash, const char *calib_profile, const char *inputs_json,
		     const char *results_json, int64_t *id, pp_err *err);

#endif
