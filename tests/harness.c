/* harness.c - see harness.h. */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int passed, failed, cur_failed;
static const char *cur_name = "?";

void pp_t_check(bool ok, const char *expr, const char *file, int line)
{
	if (ok)
		return;
	cur_failed++;
	printf("  FAIL %s: %s:%d: %s\n", cur_name, file, line, expr);
}

void pp_t_near(double got, double want, double rel, const char *ge, const char *we,
	       const char *file, int line)
{
	double tol = rel * fabs(want);
	if (tol == 0)
		tol = rel;
	if (isfinite(got) && fabs(got - want) <= tol)
		return;
	cur_failed++;
	printf("  FAIL %s: %s:%d: %s = %.9g, expected %s = %.9g within %.3g%%\n", cur_name, file,
	       line, ge, got, we, want, rel * 100);
}

void pp_t_contains(const char *hay, const char *needle, const char *file, int line)
{
	if (hay && needle && strstr(hay, needle))
		return;
	cur_failed++;
	printf("  FAIL %s: %s:%d: expected to find \"%s\" in:\n    %.600s\n", cur_name, file, line,
	       needle ? needle : "(null)", hay ? hay : "(null)");
}

void pp_t_run(const char *name, void (*fn)(void))
{
	cur_name = name;
	cur_failed = 0;
	fn();
	if (cur_failed) {
		failed++;
		printf("not ok - %s\n", name);
	} else {
		passed++;
		printf("ok - %s\n", name);
	}
	fflush(stdout);
}

static char tmpdir[256];

static void rm_tmp(void)
{
	if (tmpdir[0]) {
		char cmd[300];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", tmpdir);
	}
}

const char *pp_t_tmpdir(void)
{
	if (!tmpdir[0]) {
		const char *base = getenv("TMPDIR");
		snprintf(tmpdir, sizeof(tmpdir), "%s/pp-test.XXXXXX", base && *base ? base : "/tmp");
		if (!mkdtemp(tmpdir)) {
			perror("mkdtemp");
			exit(1);
		}
		atexit(rm_tmp);
	}
	return tmpdir;
}

int pp_t_done(const char *suite)
{
	printf("# %s: %d passed, %d failed\n", suite, passed, failed);
	return failed ? 1 : 0;
}

const char *pp_t_bin(void)
{
	const char *b = getenv("PODPLAN_BIN");
	return b && *b ? b : "bin/podplan";
}

int pp_t_sh(const char *cmd, char **out)
{
	char full[8192];
	snprintf(full, sizeof(full), "(%s) 2>&1", cmd);
	FILE *p = popen(full, "r");
	if (!p) {
		*out = strdup("popen failed");
		return -1;
	}
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
		n += got;
		if (cap - n < 1024) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
	}
	buf[n] = '\0';
	*out = buf;
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
