/*
 * test_history.c - the report command and the record of runs it keeps
 * (reports/history.h): exit statuses (0, 1 for a write failure, 2 for bad
 * input), all-or-nothing writes of the report folder (a failure at the last
 * step, the PDF, leaves it as it was), nothing recorded for a failed run,
 * `podplan history` (listing, filtering, did-you-mean) and `podplan report
 * --compare` (what changed between two runs and why the totals moved);
 * rows another writer left (unreadable JSON, terminal escapes in names,
 * absurd dates), and the read-only commands on a missing store (nothing
 * created) and on another program's database (exit 2, left byte for byte).
 */
#include "harness.h"
#include "core/store.h"
#include "core/util.h"
#include "textutil.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define S70 "scenarios/llama70b-2T-tokens-rent-h100-or-build-h100-or-h200.json"

static int sh(const char *cmd, char **out)
{
	int st = pp_t_sh(cmd, out);
	return st;
}

static int runs_in(const char *db)
{
	char cmd[1024], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s history --db %s --csv --limit 0", pp_t_bin(), db);
	int st = sh(cmd, &out);
	int n = st == 0 ? tu_count(out, "\r\n") - 1 : -1;
	free(out);
	return n;
}

static void test_cli(void)
{
	const char *t = pp_t_tmpdir(), *bin = pp_t_bin();
	char db[512], dir[512], cmd[4096], *out = NULL;
	snprintf(db, sizeof(db), "%s/cli.db", t);
	snprintf(dir, sizeof(dir), "%s/r70", t);
	/* a report */
	snprintf(cmd, sizeof(cmd), "%s report %s -o %s --db %s --draws 300", bin, S70, dir, db);
	CHECK(sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "/index.html");
	CHECK_CONTAINS(out, "run 1 recorded");
	free(out);
	static const char *const expect[] = {"index.html", "summary.md", "options.csv", "step_time.csv",
					     "cumulative_cost.csv", "tornado.csv", "distribution.csv",
					     "finance.csv", "sources.csv", "parameters.csv"};
	for (size_t i = 0; i < PP_ARRAY_LEN(expect); i++) {
		char p[700];
		struct stat sb;
		snprintf(p, sizeof(p), "%s/%s", dir, expect[i]);
		CHECK(stat(p, &sb) == 0 && sb.st_size > 0);
	}
	/* nothing left behind in DIR but the report */
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		CHECK(strncmp(e->d_name, ".podplan-staging", 16) != 0);
	if (d)
		closedir(d);
	CHECK(runs_in(db) == 1);
	/* history */
	snprintf(cmd, sizeof(cmd), "%s history --db %s", bin, db);
	CHECK(sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "llama70b-2T-tokens-rent-h100-or-build-h100-or-h200");
	CHECK_CONTAINS(out, "/r70/index.html");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s history --db %s --scenario llama70b-2T-tokens-rent-h100-or-build", bin, db);
	CHECK(sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "did you mean");
	free(out);
	/* bad input: exit status 2, nothing recorded */
	static const char *const bad[] = {
		"report /nonexistent/x.json -o %s/bad1",
		"report " S70,
		"report " S70 " -o %s/bad2 --draws many",
		"report " S70 " -o %s/bad3 --seed -1",
		"report tests/bad/truncated.json -o %s/bad4",
		"report --compare 1",
		"report --compare 1 99",
		"report --compare one two",
		"history --limit x",
	};
	for (size_t i = 0; i < PP_ARRAY_LEN(bad); i++) {
		char sub[600];
		snprintf(sub, sizeof(sub), bad[i], t);
		snprintf(cmd, sizeof(cmd), "%s %s --db %s", bin, sub, db);
		int st = sh(cmd, &out);
		if (st != 2)
			pp_t_diag("%s -> %d: %s", sub, st, out);
		CHECK(st == 2);
		CHECK_CONTAINS(out, "podplan");
		free(out);
	}
	CHECK(runs_in(db) == 1);
	/* an unwritable DIR (a path under a regular file): exit 1, nothing recorded */
	snprintf(cmd, sizeof(cmd), "%s report %s -o %s/index.html/sub --db %s --draws 100", bin, S70, dir, db);
	CHECK(sh(cmd, &out) == 1);
	free(out);
	CHECK(runs_in(db) == 1);
	/* all or nothing: a failure at the last step (the PDF) leaves DIR as it was */
	char idx[700];
	snprintf(idx, sizeof(idx), "%s/index.html", dir);
	char *before = tu_slurp(idx);
	snprintf(cmd, sizeof(cmd), "PODPLAN_CHROMIUM=/bin/false %s report %s -o %s --db %s --draws 100 --pdf",
		 bin, S70, dir, db);
	CHECK(sh(cmd, &out) == 1);
	free(out);
	char *after_ = tu_slurp(idx);
	CHECK(before && after_ && !strcmp(before, after_));
	free(before);
	free(after_);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		CHECK(strncmp(e->d_name, ".podplan-staging", 16) != 0);
		CHECK(strcmp(e->d_name, "report.pdf") != 0);
	}
	if (d)
		closedir(d);
	CHECK(runs_in(db) == 1);
	/* --pdf without any Chromium: refused before anything is written */
	snprintf(cmd, sizeof(cmd), "PODPLAN_CHROMIUM= %s report %s -o %s/nopdf --db %s --pdf", bin, S70, t, db);
	CHECK(sh(cmd, &out) == 1);
	CHECK_CONTAINS(out, "Chromium");
	free(out);
	char np[600];
	struct stat sb;
	snprintf(np, sizeof(np), "%s/nopdf", t);
	CHECK(stat(np, &sb) != 0);
	/* help answers */
	snprintf(cmd, sizeof(cmd), "%s report --help", bin);
	CHECK(sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "--compare");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s history --help", bin);
	CHECK(sh(cmd, &out) == 0);
	free(out);
}

/* A small scenario whose first option can be repriced. */
static void write_small(const char *path, const char *rate)
{
	char json[2048];
	snprintf(json, sizeof(json),
		 "{\"name\": \"small-rent-or-build\", \"description\": \"7B on 8 H100s: rent or build?\",\n"
		 " \"model\": {\"preset\": \"llama2-7b\", \"seq_length\": 4096},\n"
		 " \"training\": {\"global_batch_size\": 64, \"micro_batch_size\": 1, \"train_tokens\": 5e10},\n"
		 " \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8},\n"
		 " \"costs\": {\"work\": {\"type\": \"run\"}, \"uncertainty\": {\"draws\": 300, \"seed\": 5},\n"
		 "  \"options\": [{\"name\": \"rent\", \"kind\": \"rent\", \"provider\": \"lambda_8x\", "
		 "\"tier\": \"on_demand\"%s%s},\n"
		 "   {\"name\": \"build\", \"kind\": \"build\"}]}}\n",
		 rate ? ", \"usd_per_gpu_hour\": " : "", rate ? rate : "");
	pp_err err = {0};
	CHECK(pp_write_file_atomic(path, json, strlen(json), &err) == 0);
}

static double gpu_time_of(const char *dir, const char *option)
{
	char p[700];
	snprintf(p, sizeof(p), "%s/options.csv", dir);
	char *csv = tu_slurp(p), b[128];
	double v = NAN;
	if (!csv)
		return v;
	int co = tu_csv_col(csv, "option"), cg = tu_csv_col(csv, "gpu_time_usd");
	for (int r = 1; r < 20; r++)
		if (!strcmp(tu_csv_field(csv, r, co, b, sizeof(b)), option))
			v = strtod(tu_csv_field(csv, r, cg, b, sizeof(b)), NULL);
	free(csv);
	return v;
}

static void test_compare(void)
{
	const char *t = pp_t_tmpdir(), *bin = pp_t_bin();
	char db[512], scen[512], cmd[4096], d1[512], d2[512], d3[512], *out = NULL;
	snprintf(db, sizeof(db), "%s/cmp.db", t);
	snprintf(scen, sizeof(scen), "%s/small.json", t);
	snprintf(d1, sizeof(d1), "%s/c1", t);
	snprintf(d2, sizeof(d2), "%s/c2", t);
	snprintf(d3, sizeof(d3), "%s/c3", t);
	write_small(scen, "2.0");
	snprintf(cmd, sizeof(cmd), "%s report %s -o %s --db %s --seed 1", bin, scen, d1, db);
	CHECK(sh(cmd, &out) == 0);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s report %s -o %s --db %s --seed 2", bin, scen, d2, db);
	CHECK(sh(cmd, &out) == 0);
	free(out);
	/* same scenario, another seed: the totals cannot move */
	snprintf(cmd, sizeof(cmd), "%s report --compare 1 2 --db %s", bin, db);
	CHECK(sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "scenario file: unchanged");
	CHECK_CONTAINS(out, "seed 1 -> 2");
	CHECK_CONTAINS(out, "none of which moved the answer, a total or a time");
	free(out);
	/* a run compared with itself is reproducible */
	snprintf(cmd, sizeof(cmd), "%s report --compare 1 1 --db %s", bin, db);
	CHECK(sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "the run is reproducible");
	free(out);
	/* double the rented price: GPU time costs exactly twice as much (same hours) */
	write_small(scen, "4.0");
	snprintf(cmd, sizeof(cmd), "%s report %s -o %s --db %s --seed 2", bin, scen, d3, db);
	CHECK(sh(cmd, &out) == 0);
	free(out);
	CHECK_NEAR(gpu_time_of(d3, "rent"), 2 * gpu_time_of(d2, "rent"), 1e-9);
	snprintf(cmd, sizeof(cmd), "%s report --compare 2 3 --db %s", bin, db);
	CHECK(sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "scenario file: changed");
	CHECK_CONTAINS(out, "costs.options[0].usd_per_gpu_hour: 2 -> 4");
	CHECK_CONTAINS(out, "- rent: its own settings changed");
	CHECK(strstr(tu_after(out, "Why"), "- build:") == NULL); /* the owned option did not move */
	free(out);
	/* history filtered by scenario lists the three, newest first */
	snprintf(cmd, sizeof(cmd), "%s history --db %s --scenario small-rent-or-build", bin, db);
	CHECK(sh(cmd, &out) == 0);
	CHECK(tu_pos(out, "    3  ") >= 0 && tu_pos(out, "    3  ") < tu_pos(out, "    1  "));
	free(out);
}

/* What another writer may have left in the runs table: JSON columns that
 * do not parse (compare: a message, nothing leaked; list: the run shown
 * without an answer), names with terminal escapes (escaped in the table,
 * as stored in the CSV), a created_at of 1e300 (shown as "-"). The store
 * is only read: its bytes are the same after. */
static void test_hostile_rows(void)
{
	char db[512], cmd[2048], *out = NULL;
	snprintf(db, sizeof(db), "%s/hostile.db", pp_t_tmpdir());
	pp_store *st;
	pp_err err = {0};
	CHECK(pp_store_open(&st, db, &err) == 0);
	CHECK(pp_store_exec(st, "INSERT INTO runs(kind, created_at, scenario_name, scenario_hash, "
			    "podplan_version, inputs_json, results_json) VALUES "
			    "('report', 1e300, 'evil\x1b]0;title\x07name', 'h', '0.1.0', '{', '[1,'), "
			    "('report', -5, 'ok', 'h', '0.1.0', '{}', '{\"recommended\": \"r\x1b[31m\"}');"
			    "PRAGMA journal_mode = DELETE;", &err) == 0);
	pp_store_close(st);
	size_t n0, n1;
	char *before = NULL, *after = NULL;
	CHECK(pp_read_file(db, 1 << 24, &before, &n0, &err) == 0);
	snprintf(cmd, sizeof(cmd), "%s report --compare 1 2 --db %s", pp_t_bin(), db);
	CHECK(sh(cmd, &out) == 1);
	CHECK_CONTAINS(out, "run 1 has unreadable JSON");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s history --db %s", pp_t_bin(), db);
	CHECK(sh(cmd, &out) == 0);
	CHECK(out && !strchr(out, '\x1b') && !strchr(out, '\x07'));
	CHECK_CONTAINS(out, "evil\\x1b]0;title\\x07name");
	CHECK_CONTAINS(out, "    1  -    ");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s history --db %s --csv", pp_t_bin(), db);
	CHECK(sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "evil\x1b]0;title\x07name"); /* a CSV cell holds the data */
	free(out);
	CHECK(pp_read_file(db, 1 << 24, &after, &n1, &err) == 0);
	CHECK(before && after && n0 == n1 && !memcmp(before, after, n0));
	free(before);
	free(after);
}

/* The read-only commands on a store that is not there create nothing, and
 * on another program's database exit 2 and leave it as it was. */
static void test_read_only_commands(void)
{
	char db[512], cmd[2048], *out = NULL;
	snprintf(db, sizeof(db), "%s/none/here.db", pp_t_tmpdir());
	static const char *const ro[] = {"history --db %s", "history --csv --db %s",
					 "calib list --db %s", "fit --list --db %s",
					 "calib export --db %s", "report --compare 1 2 --db %s",
					 "fit --export p --db %s", "calib show 1 --db %s"};
	for (size_t i = 0; i < PP_ARRAY_LEN(ro); i++) {
		char sub[600];
		snprintf(sub, sizeof(sub), ro[i], db);
		snprintf(cmd, sizeof(cmd), "%s %s", pp_t_bin(), sub);
		int rc = sh(cmd, &out);
		CHECK(rc == 0 || rc == 2);
		free(out);
	}
	struct stat sb;
	snprintf(cmd, sizeof(cmd), "%s/none", pp_t_tmpdir());
	CHECK(stat(cmd, &sb) != 0);
	char foreign[512];
	snprintf(foreign, sizeof(foreign), "%s/places.sqlite", pp_t_tmpdir());
	sqlite3 *h = NULL;
	CHECK(sqlite3_open(foreign, &h) == SQLITE_OK);
	CHECK(sqlite3_exec(h, "CREATE TABLE moz_places(url TEXT); INSERT INTO moz_places "
			   "VALUES ('https://example.org');", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(h);
	size_t n0, n1;
	char *before = NULL, *after = NULL;
	pp_err err = {0};
	CHECK(pp_read_file(foreign, 1 << 24, &before, &n0, &err) == 0);
	for (size_t i = 0; i < PP_ARRAY_LEN(ro); i++) {
		char sub[600];
		snprintf(sub, sizeof(sub), ro[i], foreign);
		snprintf(cmd, sizeof(cmd), "%s %s", pp_t_bin(), sub);
		CHECK(sh(cmd, &out) == 2);
		CHECK_CONTAINS(out, "not a podplan store (found the tables moz_places");
		free(out);
	}
	/* a writer refuses it too */
	snprintf(cmd, sizeof(cmd), "%s report %s -o %s/r --db %s", pp_t_bin(), S70, pp_t_tmpdir(),
		 foreign);
	CHECK(sh(cmd, &out) == 2);
	free(out);
	CHECK(pp_read_file(foreign, 1 << 24, &after, &n1, &err) == 0);
	CHECK(before && after && n0 == n1 && !memcmp(before, after, n0));
	snprintf(cmd, sizeof(cmd), "%s-wal", foreign);
	CHECK(stat(cmd, &sb) != 0);
	free(before);
	free(after);
}

int main(void)
{
	RUN(test_cli);
	RUN(test_compare);
	RUN(test_hostile_rows);
	RUN(test_read_only_commands);
	return pp_t_done("test_history");
}
