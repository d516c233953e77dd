/* harness.c - see harness.h. */
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int ntests, nfailed, cur_failed;
static bool cur_skipped;
static char cur_skip_why[256];
static const char *cur_name = "?";

static char tmpdir[PATH_MAX];
static pid_t owner; /* the process that made tmpdir: forked children never remove it */

/* "# " before each line of text. */
static void diag_text(const char *text)
{
	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		int n = e ? (int)(e - l) : (int)strlen(l);
		printf(n ? "# %.*s\n" : "#\n", n, l);
		l += n + (e ? 1 : 0);
	}
}

static char *vformat(const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		n = 0;
	char *buf = malloc((size_t)n + 1);
	if (!buf) {
		fputs("harness: out of memory\n", stderr);
		exit(1);
	}
	vsnprintf(buf, (size_t)n + 1, fmt, ap);
	return buf;
}

static void rm_tmp(void)
{
	if (!tmpdir[0] || getpid() != owner)
		return;
	if (nfailed) {
		printf("# test files kept in %s\n", tmpdir);
		fflush(stdout);
		return;
	}
	/* rm -rf without a shell: the path is not quoted anywhere */
	pid_t pid = fork();
	if (pid == 0) {
		execlp("rm", "rm", "-rf", "--", tmpdir, (char *)NULL);
		_exit(127);
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fprintf(stderr, "harness: could not remove %s\n", tmpdir);
}

/* The first harness call of a program: line-buffered TAP, the temporary
 * directory and the program's own store. */
static void setup(void)
{
	if (tmpdir[0])
		return;
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *base = getenv("TMPDIR");
	snprintf(tmpdir, sizeof(tmpdir), "%s/pp-test.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "harness: mkdtemp %s: %s\n", tmpdir, strerror(errno));
		exit(1);
	}
	owner = getpid();
	atexit(rm_tmp);
	char db[PATH_MAX + 16];
	snprintf(db, sizeof(db), "%s/podplan.db", tmpdir);
	if (setenv("PODPLAN_DB", db, 1)) {
		fprintf(stderr, "harness: setenv PODPLAN_DB: %s\n", strerror(errno));
		exit(1);
	}
}

void pp_t_diag(const char *fmt, ...)
{
	setup();
	va_list ap;
	va_start(ap, fmt);
	char *t = vformat(fmt, ap);
	va_end(ap);
	diag_text(t);
	free(t);
}

void pp_t_check(bool ok, const char *expr, const char *file, int line)
{
	if (ok)
		return;
	cur_failed++;
	pp_t_diag("%s: %s:%d: check failed: %s", cur_name, file, line, expr);
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
	pp_t_diag("%s: %s:%d: %s = %.9g, expected %s = %.9g within %.3g%%", cur_name, file, line, ge,
		  got, we, want, rel * 100);
}

void pp_t_contains(const char *hay, const char *needle, const char *file, int line)
{
	if (hay && needle && strstr(hay, needle))
		return;
	cur_failed++;
	pp_t_diag("%s: %s:%d: expected to find \"%s\" in:\n    %.600s", cur_name, file, line,
		  needle ? needle : "(null)", hay ? hay : "(null)");
}

void pp_t_skip(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *t = vformat(fmt, ap);
	va_end(ap);
	/* a directive is one line */
	for (char *p = t; *p; p++)
		if (*p == '\n')
			*p = ' ';
	snprintf(cur_skip_why, sizeof(cur_skip_why), "%s", t);
	cur_skipped = true;
	free(t);
}

void pp_t_skip_all(const char *fmt, ...)
{
	setup();
	va_list ap;
	va_start(ap, fmt);
	char *t = vformat(fmt, ap);
	va_end(ap);
	for (char *p = t; *p; p++)
		if (*p == '\n')
			*p = ' ';
	printf("1..0 # SKIP %s\n", t);
	free(t);
	exit(0);
}

void pp_t_run(const char *name, void (*fn)(void))
{
	setup();
	cur_name = name;
	cur_failed = 0;
	cur_skipped = false;
	fn();
	ntests++;
	if (cur_failed) {
		nfailed++;
		printf("not ok %d - %s\n", ntests, name);
	} else if (cur_skipped) {
		printf("ok %d - %s # SKIP %s\n", ntests, name, cur_skip_why);
	} else {
		printf("ok %d - %s\n", ntests, name);
	}
	cur_name = "?";
	fflush(stdout);
}

const char *pp_t_tmpdir(void)
{
	setup();
	return tmpdir;
}

int pp_t_done(const char *suite)
{
	setup();
	printf("1..%d\n", ntests);
	if (nfailed)
		pp_t_diag("%s: %d of %d tests failed", suite, nfailed, ntests);
	fflush(stdout);
	return nfailed ? 1 : 0;
}

const char *pp_t_bin(void)
{
	setup();
	const char *b = getenv("PODPLAN_BIN");
	return b && *b ? b : "bin/podplan";
}

int pp_t_sh(const char *cmd, char **out)
{
	setup();
	fflush(stdout);
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

static void fixture_fail(const char *what, const char *path)
{
	fprintf(stderr, "harness: fixture catalog: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

const char *pp_t_fixture_data(void)
{
	static char dir[PATH_MAX + 16];
	if (dir[0])
		return dir;
	setup();
	const char *env = getenv("PODPLAN_DATA");
	char live[PATH_MAX], fix[PATH_MAX];
	if (!realpath(env && *env ? env : "models", live))
		fixture_fail("the live catalog", env && *env ? env : "models");
	if (!realpath("tests/data/catalog", fix))
		fixture_fail("the fixture", "tests/data/catalog");
	snprintf(dir, sizeof(dir), "%s/catalog", tmpdir);
	if (mkdir(dir, 0700))
		fixture_fail("mkdir", dir);
	DIR *d = opendir(live);
	if (!d)
		fixture_fail("opendir", live);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char src[2 * PATH_MAX], dst[2 * PATH_MAX], own[2 * PATH_MAX];
		struct stat sb;
		snprintf(own, sizeof(own), "%s/%s", fix, e->d_name);
		if (stat(own, &sb) == 0)
			snprintf(src, sizeof(src), "%s", own);
		else
			snprintf(src, sizeof(src), "%s/%s", live, e->d_name);
		snprintf(dst, sizeof(dst), "%s/%s", dir, e->d_name);
		if (symlink(src, dst))
			fixture_fail("symlink", dst);
	}
	closedir(d);
	if (setenv("PODPLAN_DATA", dir, 1))
		fixture_fail("setenv PODPLAN_DATA", dir);
	return dir;
}
