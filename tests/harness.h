/*
 * harness.h - the test harness: checks, named test functions, a summary line
 * that tests/run.sh adds up ("# NAME: N passed, N failed").
 *
 * Tests assert on values derived independently of the code under test (a
 * hand calculation, a published table, a second method), never on numbers
 * copied from the program's own output.
 */
#ifndef PP_TEST_HARNESS_H
#define PP_TEST_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

void pp_t_check(bool ok, const char *expr, const char *file, int line);
void pp_t_near(double got, double want, double rel, const char *ge, const char *we,
	       const char *file, int line);
void pp_t_contains(const char *hay, const char *needle, const char *file, int line);
void pp_t_run(const char *name, void (*fn)(void));
/* Prints the summary, returns the process exit status. */
int pp_t_done(const char *suite);
/* Run a shell command, capture stdout+stderr into a heap string (*out) and
 * return its exit status (-1 if it did not exit normally). */
int pp_t_sh(const char *cmd, char **out);
/* Path of the podplan binary under test ($PODPLAN_BIN, else bin/podplan). */
const char *pp_t_bin(void);
/* A fresh temporary directory for this test program (removed at exit). */
const char *pp_t_tmpdir(void);

#define CHECK(c) pp_t_check(!!(c), #c, __FILE__, __LINE__)
#define CHECK_NEAR(got, want, rel) pp_t_near((got), (want), (rel), #got, #want, __FILE__, __LINE__)
#define CHECK_CONTAINS(hay, needle) pp_t_contains((hay), (needle), __FILE__, __LINE__)
#define RUN(fn) pp_t_run(#fn, fn)

#endif
