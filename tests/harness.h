/*
 * harness.h - the test harness: checks, named test functions, TAP output.
 *
 * A test program speaks TAP (the Test Anything Protocol, as git's test
 * suite does) and runs under prove(1): one "ok N - name" or "not ok N -
 * name" line per RUN(), diagnostics as "# ..." lines, and the plan line
 * "1..N" at the end (pp_t_done). The exit status is 1 when a test failed.
 * Nothing else may go to stdout: print diagnostics with pp_t_diag(), or to
 * stderr.
 *
 * Each test program gets its own temporary directory (pp_t_tmpdir) and its
 * own SQLite store, $PODPLAN_DB = TMPDIR/podplan.db, set by the harness
 * before the first test runs (so commands the test starts inherit it). The
 * directory is removed at exit, or kept (and named in a # line) when a test
 * failed. No test program depends on another having run first.
 *
 * Tests assert on values derived independently of the code under test (a
 * hand calculation, a published table, a second method), never on numbers
 * copied from the program's own output. Hand calculations of prices read
 * the fixed fixture of tests/data/catalog/ (pp_t_fixture_data), never the
 * live models/prices.json.
 */
#ifndef PP_TEST_HARNESS_H
#define PP_TEST_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

void pp_t_check(bool ok, const char *expr, const char *file, int line);
void pp_t_near(double got, double want, double rel, const char *ge, const char *we,
	       const char *file, int line);
void pp_t_contains(const char *hay, const char *needle, const char *file, int line);
/* Run one test function: prints "ok N - name", "not ok N - name" (when a
 * check failed), or "ok N - name # SKIP why" (when it called pp_t_skip). */
void pp_t_run(const char *name, void (*fn)(void));
/* Prints the plan line "1..N" (N = tests run) and returns the process exit
 * status: 0 when every test passed, 1 otherwise. suite names the program
 * in the diagnostics. */
int pp_t_done(const char *suite);
/* A diagnostic: printf-style; each line of the text goes out as "# line". */
void pp_t_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Inside a test function: the test is skipped (TAP "# SKIP why"); return
 * from the function after calling it. Checks that failed still fail it. */
void pp_t_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Before any test: the whole program is skipped ("1..0 # SKIP why"); exits 0. */
void pp_t_skip_all(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Run a shell command, capture stdout+stderr into a heap string (*out) and
 * return its exit status (-1 if it did not exit normally). */
int pp_t_sh(const char *cmd, char **out);
/* Path of the podplan binary under test ($PODPLAN_BIN, else bin/podplan). */
const char *pp_t_bin(void);
/* This test program's temporary directory (created on first use, removed at
 * exit unless a test failed). */
const char *pp_t_tmpdir(void);
/*
 * Point $PODPLAN_DATA at a catalog for hand calculations: TMPDIR/catalog/
 * holds a link to each file of the live catalog ($PODPLAN_DATA, else
 * models/), except the files tests/data/catalog/ holds (prices.json,
 * tco.json: fixed prices that a price update of models/ does not move).
 * Call it first in main, before anything loads the catalog (the data
 * directory is read once per process); commands run through pp_t_sh see it
 * too. Returns the directory; exits 1 when it cannot be made.
 */
const char *pp_t_fixture_data(void);

#define CHECK(c) pp_t_check(!!(c), #c, __FILE__, __LINE__)
#define CHECK_NEAR(got, want, rel) pp_t_near((got), (want), (rel), #got, #want, __FILE__, __LINE__)
#define CHECK_CONTAINS(hay, needle) pp_t_contains((hay), (needle), __FILE__, __LINE__)
#define RUN(fn) pp_t_run(#fn, fn)

#endif
