/*
 * test_write.c - writing a report's files (reports/write.c) and the
 * directory primitives under it (core/dirs.h): a planted link is never
 * followed (the old predictable staging name, a link in place of
 * index.html, a link inside a stale staging folder), staging left by a
 * killed run is cleaned by the next run, DIR's other files are kept, and
 * a kill at any moment leaves the old report or the new one whole, with
 * the report on disk always one that history lists.
 */
#include "harness.h"
#include "report.h"
#include "testutil.h"
#include "textutil.h"
#include "core/dirs.h"
#include "core/store.h"
#include "core/util.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SCEN "scenarios/default.json"

static char *path_in(const char *dir, const char *name)
{
	return pp_path_join(dir, name);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static bool same_text(const char *path, const char *text)
{
	char *t = tu_slurp(path);
	bool ok = t && !strcmp(t, text);
	free(t);
	return ok;
}

static int count_prefix(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	if (d)
		closedir(d);
	return n;
}

/* pp_rmtree removes a link, never what it points to. */
static void rmtree_no_follow(void)
{
	const char *t = pp_t_tmpdir();
	char *victim = path_in(t, "victim"), *vf = path_in(victim, "keep.txt");
	char *tree = path_in(t, "tree"), *sub = path_in(tree, "sub");
	char *l1 = path_in(tree, "link"), *l2 = path_in(sub, "link2");
	CHECK(pp_mkdirs(victim, NULL) == 0 && pp_mkdirs(sub, NULL) == 0);
	put(vf, "precious");
	CHECK(symlink(victim, l1) == 0 && symlink(vf, l2) == 0);
	pp_err err = {0};
	CHECK(pp_rmtree(tree, &err) == 0);
	struct stat st;
	CHECK(lstat(tree, &st) != 0);
	CHECK(same_text(vf, "precious"));
	/* a link given as the path itself: the link goes */
	CHECK(symlink(victim, tree) == 0);
	CHECK(pp_rmtree(tree, &err) == 0 && lstat(tree, &st) != 0 && same_text(vf, "precious"));
	CHECK(pp_rmtree(tree, &err) == 0); /* nothing there: fine */
	free(victim), free(vf), free(tree), free(sub), free(l1), free(l2);
}

/* mkdtemp names: new each time, mode 0700; stale ones (dead pid, or a day
 * old) of this user cleaned, live ones kept, a link removed not followed. */
static void staging_names_and_cleaning(void)
{
	const char *t = pp_t_tmpdir();
	char *dir = path_in(t, "stage-test"), *victim = path_in(t, "victim2");
	char *vf = path_in(victim, "keep.txt");
	CHECK(pp_mkdirs(dir, NULL) == 0 && pp_mkdirs(victim, NULL) == 0);
	put(vf, "precious");
	pp_err err = {0};
	char *a = pp_staging_dir(dir, ".x-staging", &err), *b = pp_staging_dir(dir, ".x-staging", &err);
	CHECK(a && b && strcmp(a, b));
	struct stat st;
	CHECK(a && stat(a, &st) == 0 && (st.st_mode & 0777) == 0700);
	/* a dead process's staging: fork a child and let it exit */
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	char name[128];
	snprintf(name, sizeof(name), ".x-staging.%ld.dead00", (long)pid);
	char *dead = path_in(dir, name), *deadlink = path_in(dead, "link");
	CHECK(mkdir(dead, 0700) == 0 && symlink(victim, deadlink) == 0);
	/* pid 1 is alive: its staging stays unless a day old; a link planted
	 * under such a name, two days old, is removed as a link */
	char *live = path_in(dir, ".x-staging.1.live00"), *planted = path_in(dir, ".x-staging.1.old000");
	CHECK(mkdir(live, 0700) == 0 && symlink(victim, planted) == 0);
	struct timespec old[2] = {{time(NULL) - 2 * 86400, 0}, {time(NULL) - 2 * 86400, 0}};
	CHECK(utimensat(AT_FDCWD, planted, old, AT_SYMLINK_NOFOLLOW) == 0);
	int n = pp_clean_stale(dir, ".x-staging");
	CHECK(n == 2);
	CHECK(lstat(dead, &st) != 0 && lstat(planted, &st) != 0);
	CHECK(stat(live, &st) == 0 && stat(a, &st) == 0 && stat(b, &st) == 0);
	CHECK(same_text(vf, "precious"));
	free(a), free(b), free(dir), free(victim), free(vf), free(dead), free(deadlink), free(live),
		free(planted);
}

/* The report of SCEN built once for the tests below. */
static pp_scenario scen;
static pp_report rep;
static bool have_rep;

static const pp_report *report(void)
{
	if (!have_rep) {
		pp_err err = {0};
		pp_report_opts o;
		memset(&o, 0, sizeof(o));
		o.now_s = 1.7e9;
		if (pp_scenario_load(&scen, SCEN, tu_catalog(), &err) ||
		    pp_report_build(&rep, &scen, tu_catalog(), SCEN, &o, &err)) {
			pp_t_diag("%s", err.msg);
			return NULL;
		}
		have_rep = true;
	}
	return &rep;
}

/* A report into a folder of ours is swapped in whole: a new folder (a new
 * inode) with the new files and DIR's other files (the same inodes). */
static void swap_keeps_other_files(void)
{
	const pp_report *r = report();
	CHECK(r != NULL);
	if (!r)
		return;
	char *dir = path_in(pp_t_tmpdir(), "swap"), *notes = path_in(dir, "notes.txt");
	pp_err err = {0};
	CHECK(pp_report_write(r, dir, NULL, NULL, &err) == 0);
	put(notes, "mine");
	struct stat before, after, nb, na;
	CHECK(stat(dir, &before) == 0 && stat(notes, &nb) == 0);
	CHECK(chmod(dir, 0750) == 0);
	pp_sb names = {0};
	CHECK(pp_report_write(r, dir, NULL, &names, &err) == 0);
	CHECK(stat(dir, &after) == 0 && stat(notes, &na) == 0);
	CHECK(before.st_ino != after.st_ino);       /* swapped */
	CHECK(nb.st_ino == na.st_ino && same_text(notes, "mine"));
	CHECK((after.st_mode & 0777) == 0750);
	CHECK_CONTAINS(names.buf, "index.html\n");
	char *parent = pp_xstrdup(pp_t_tmpdir());
	CHECK(count_prefix(parent, ".swap.podplan-staging") == 0);
	CHECK(count_prefix(dir, ".podplan-staging") == 0);
	pp_sb_release(&names);
	free(parent), free(dir), free(notes);
}

/* A link planted in DIR in place of index.html: replaced, its target
 * untouched (DIR then holds a link, so the files are moved in one by one). */
static void planted_link_replaced(void)
{
	const pp_report *r = report();
	if (!r)
		return;
	char *dir = path_in(pp_t_tmpdir(), "planted"), *idx = path_in(dir, "index.html");
	char *victim = path_in(pp_t_tmpdir(), "victim.html");
	CHECK(pp_mkdirs(dir, NULL) == 0);
	put(victim, "not yours");
	CHECK(symlink(victim, idx) == 0);
	pp_err err = {0};
	CHECK(pp_report_write(r, dir, NULL, NULL, &err) == 0);
	struct stat st;
	CHECK(lstat(idx, &st) == 0 && S_ISREG(st.st_mode));
	CHECK(same_text(victim, "not yours"));
	CHECK(count_prefix(dir, ".podplan-staging") == 0);
	free(dir), free(idx), free(victim);
}

/* The staging name of the old code (.podplan-staging.PID) planted as a
 * link to a folder for this process's pid and the next few: nothing under
 * the link's target is touched, and the link, a live process's name, is
 * left as it is. */
static void planted_staging_link(void)
{
	const pp_report *r = report();
	if (!r)
		return;
	char *dir = path_in(pp_t_tmpdir(), "planted2"), *victim = path_in(pp_t_tmpdir(), "victim3");
	char *vf = path_in(victim, "index.html");
	CHECK(pp_mkdirs(dir, NULL) == 0 && pp_mkdirs(victim, NULL) == 0);
	put(vf, "precious");
	for (long p = getpid(); p < getpid() + 4; p++) {
		char name[64];
		snprintf(name, sizeof(name), ".podplan-staging.%ld", p);
		char *l = path_in(dir, name);
		CHECK(symlink(victim, l) == 0);
		free(l);
	}
	pp_err err = {0};
	CHECK(pp_report_write(r, dir, NULL, NULL, &err) == 0);
	CHECK(same_text(vf, "precious"));
	free(dir), free(victim), free(vf);
}

static int exit_now(void *arg, pp_err *err)
{
	(void)arg, (void)err;
	_exit(9); /* a kill once everything is staged, just before the swap */
}

/* A run killed at the last moment before the swap leaves the old report
 * whole; the next run removes what it left. */
static void killed_before_swap(void)
{
	const pp_report *r = report();
	if (!r)
		return;
	char *dir = path_in(pp_t_tmpdir(), "killed"), *idx = path_in(dir, "index.html");
	pp_err err = {0};
	CHECK(pp_report_write(r, dir, NULL, NULL, &err) == 0);
	put(idx, "old report");
	pid_t pid = fork();
	if (pid == 0) {
		pp_err e = {0};
		pp_report_write_commit(r, dir, NULL, NULL, exit_now, NULL, &e);
		_exit(0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 9);
	CHECK(same_text(idx, "old report"));
	CHECK(count_prefix(pp_t_tmpdir(), ".killed.podplan-staging") == 1);
	CHECK(pp_report_write(r, dir, NULL, NULL, &err) == 0);
	CHECK(!same_text(idx, "old report"));
	CHECK(count_prefix(pp_t_tmpdir(), ".killed.podplan-staging") == 0);
	free(dir), free(idx);
}

/* The run id a report page names ("run N &middot;"), else 0. */
static long page_run(const char *dir)
{
	char *p = path_in(dir, "index.html"), *t = tu_slurp(p);
	const char *k = t ? strstr(t, "run ") : NULL;
	long id = 0;
	while (k && !id) {
		id = strtol(k + 4, NULL, 10);
		if (!strstr(k, "&middot;") || strncmp(k + 4 + strspn(k + 4, "0123456789"), " &middot;", 9))
			id = 0;
		k = strstr(k + 4, "run ");
	}
	free(t);
	free(p);
	return id;
}

static long md_run(const char *dir)
{
	char *p = path_in(dir, "summary.md"), *t = tu_slurp(p);
	const char *k = t ? strstr(t, ", run ") : NULL;
	long id = k ? strtol(k + 6, NULL, 10) : 0;
	free(t);
	free(p);
	return id;
}

static bool in_history(const char *db, long id)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *q = NULL;
	bool found = false;
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(h, "SELECT 1 FROM runs WHERE id = ?", -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(q, 1, id);
		found = sqlite3_step(q) == SQLITE_ROW;
	}
	sqlite3_finalize(q);
	sqlite3_close(h);
	return found;
}

/* `podplan report` killed (SIGKILL) at random moments: each time the
 * folder holds one report whole (index.html and summary.md of the same
 * run, every file of it new or every one old) and that run is in
 * history. */
#define KILLS 40

static void random_kills(void)
{
	const char *t = pp_t_tmpdir();
	char *dir = path_in(t, "kills"), *db = path_in(t, "kills.db");
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "%s report %s -o %s --db %s >/dev/null 2>&1", pp_t_bin(), SCEN, dir,
		 db);
	double t0 = pp_mono_s();
	CHECK(system(cmd) == 0);
	double took = pp_mono_s() - t0;
	static const char *const files[] = {"index.html", "summary.md", "step_time.csv", "memory.csv",
					    "scenario.csv", "parameters.csv", "calibration.csv",
					    "warnings.csv"};
	unsigned seed = 12345; /* fixed: the same kill times every run */
	int mixed = 0, orphan = 0, killed = 0;
	for (int it = 0; it < KILLS; it++) {
		ino_t ino[PP_ARRAY_LEN(files)];
		for (size_t k = 0; k < PP_ARRAY_LEN(files); k++) {
			char *p = path_in(dir, files[k]);
			struct stat st;
			ino[k] = stat(p, &st) == 0 ? st.st_ino : 0;
			free(p);
		}
		seed = seed * 1103515245u + 12345u;
		double at = took * (0.3 + (double)(seed >> 16 & 0x7fff) / 0x7fff * 0.9);
		pid_t pid = fork();
		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);
			dup2(fd, 1);
			dup2(fd, 2);
			execl(pp_t_bin(), "podplan", "report", SCEN, "-o", dir, "--db", db, (char *)NULL);
			_exit(127);
		}
		struct timespec ts = {(time_t)at, (long)((at - (time_t)at) * 1e9)};
		nanosleep(&ts, NULL);
		killed += kill(pid, SIGKILL) == 0;
		waitpid(pid, NULL, 0);
		int fresh = 0;
		for (size_t k = 0; k < PP_ARRAY_LEN(files); k++) {
			char *p = path_in(dir, files[k]);
			struct stat st;
			fresh += stat(p, &st) == 0 && st.st_ino != ino[k];
			free(p);
		}
		mixed += fresh != 0 && fresh != (int)PP_ARRAY_LEN(files);
		long pr = page_run(dir);
		orphan += pr <= 0 || pr != md_run(dir) || !in_history(db, pr);
	}
	pp_t_diag("%d kills (%d landed) within a run of %.3f s: %d mixed folders, %d pages not in "
		  "history", KILLS, killed, took, mixed, orphan);
	CHECK(mixed == 0 && orphan == 0);
	free(dir), free(db);
}

int main(void)
{
	RUN(rmtree_no_follow);
	RUN(staging_names_and_cleaning);
	RUN(swap_keeps_other_files);
	RUN(planted_link_replaced);
	RUN(planted_staging_link);
	RUN(killed_before_swap);
	RUN(random_kills);
	if (have_rep) {
		pp_report_release(&rep);
		pp_scenario_release(&scen);
	}
	return pp_t_done("test_write");
}
