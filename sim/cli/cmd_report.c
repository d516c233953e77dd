/*
 * cmd_report.c - podplan report SCENARIO.json -o DIR [--pdf] [--seed N] [--draws N] [--db DB]
 *                podplan report --compare RUN1 RUN2 [--db DB]
 *                podplan history [--scenario NAME] [--limit N] [--csv] [--db DB]
 */
#include "cli/cli.h"
#include "history.h"
#include "report.h"
#include "core/store.h"
#include "core/util.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void help_report(void)
{
	printf("usage: podplan report SCENARIO.json -o DIR [--pdf] [--seed N] [--draws N] [--db DB]\n"
	       "       podplan report --compare RUN1 RUN2 [--db DB]\n\n"
	       "Writes the report a finance reviewer or an architect reads:\n"
	       "  DIR/index.html   one self-contained page (inline CSS and SVG charts; no script, no\n"
	       "                   network): the question and the answer first (which option, its\n"
	       "                   cost with the P10-P90 range, $ per 1M tokens, time to result),\n"
	       "                   warnings, the options table, six charts (cost by component,\n"
	       "                   cost vs time to result, cumulative cost by month with the\n"
	       "                   rent/build crossover, sensitivity tornado, Monte Carlo\n"
	       "                   distribution, step-time breakdown), build-vs-rent finance, and\n"
	       "                   every price's source and date and every hardware parameter's\n"
	       "                   origin. Prints on A4 or Letter.\n"
	       "  DIR/summary.md   the answer, options, warnings and sensitivity in Markdown\n"
	       "  DIR/*.csv        every number shown (options, step_time, cumulative_cost, tornado,\n"
	       "                   distribution, finance, sources, parameters, calibration, warnings)\n"
	       "  DIR/report.pdf   with --pdf, printed by headless Chromium (Debian package\n"
	       "                   chromium; or set PODPLAN_CHROMIUM to a Chrome/Chromium binary)\n"
	       "A scenario without a \"costs\" section gets the step-time report (step breakdown,\n"
	       "memory per GPU). Files are written to a staging directory first and moved into\n"
	       "place, index.html last: a failed run leaves DIR as it was.\n\n"
	       "Each report run is recorded in the SQLite store (scenario hash, podplan version,\n"
	       "calibration profile, inputs and results): 'podplan history' lists them;\n"
	       "--compare RUN1 RUN2 prints what changed between two runs - scenario keys, prices\n"
	       "and their dates, catalog files, version, seed - and which changes explain which\n"
	       "results moved.\n\n"
	       "  -o, --output DIR  where to write (created as needed)\n"
	       "  --pdf             also print DIR/report.pdf (needs Chromium)\n"
	       "  --seed N          Monte Carlo seed (default: the scenario's, else tco.json's)\n"
	       "  --draws N         Monte Carlo draws (default 10000; 0 = no distribution)\n"
	       "  --db DB           the store (default $PODPLAN_DB, else ~/.local/share/podplan)\n"
	       "  --compare A B     compare two recorded runs (ids from 'podplan history')\n\n"
	       "The timestamp on the page is now, or $SOURCE_DATE_EPOCH when set (reproducible\n"
	       "output). Warnings: options that do not fit in memory, a SLOW verdict of the\n"
	       "calibration run behind the scenario's profile, prices older than 12 months.\n"
	       "Exit status 2 for bad input (file:line:col and JSON path in the message), 1 for\n"
	       "anything else (an unwritable DIR, no Chromium for --pdf, a store error).\n");
}

static void help_history(void)
{
	printf("usage: podplan history [--scenario NAME] [--limit N] [--csv] [--db DB]\n\n"
	       "Lists the recorded runs, newest first: id, date (UTC), kind, scenario, scenario\n"
	       "hash, podplan version, calibration profile, the answer (recommended option and its\n"
	       "total cost, or the step time) and where the report was written.\n"
	       "Compare two with 'podplan report --compare RUN1 RUN2'.\n\n"
	       "  --scenario NAME  only runs of that scenario (its \"name\")\n"
	       "  --limit N        at most N runs (default 50; 0 = all)\n"
	       "  --csv            RFC 4180 CSV for spreadsheets\n"
	       "  --db DB          the store (default $PODPLAN_DB, else ~/.local/share/podplan)\n");
}

static int parse_run(const char *s, int64_t *id)
{
	unsigned long v;
	if (pp_cli_parse_ulong(s, 0x7fffffffUL, &v) || v == 0)
		return -1;
	*id = (int64_t)v;
	return 0;
}

static int compare(const char *db, const char *a, const char *b)
{
	int64_t ia, ib;
	if (parse_run(a, &ia) || parse_run(b, &ib))
		return pp_cli_usage_error("report", "--compare: found \"%s\" \"%s\", expected two run "
					  "ids (positive numbers from 'podplan history')", a, b);
	pp_store *st = NULL;
	pp_err err = {0};
	pp_sb out = {0};
	int rc;
	if ((rc = pp_store_open_ro(&st, db, &err)) ||
	    (rc = pp_history_compare(st, ia, ib, &out, &err))) {
		pp_store_close(st);
		pp_sb_release(&out);
		rc = pp_cli_fail(&err);
		return err.code == PP_ENOTFOUND ? 2 : rc; /* a run id that is not there: bad input */
	}
	fputs(out.buf, stdout);
	pp_sb_release(&out);
	pp_store_close(st);
	return 0;
}

/* DIR as the user gave it, without trailing slashes: the record and the
 * messages never turn it into a path of this machine. */
static void given_dir(const char *dir, char *buf, size_t n)
{
	snprintf(buf, n, "%s", dir);
	size_t l = strlen(buf);
	while (l > 1 && buf[l - 1] == '/')
		buf[--l] = '\0';
}

typedef struct commit_ctx {
	pp_store *st;
	bool *in_tx;
} commit_ctx;

static int commit_run(void *arg, pp_err *err)
{
	commit_ctx *c = arg;
	int rc = pp_store_exec(c->st, "COMMIT", err);
	if (!rc)
		*c->in_tx = false;
	return rc;
}

/* Take back a committed run whose files did not go into place. */
static void forget_run(pp_store *st, int64_t id)
{
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(pp_store_db(st), "DELETE FROM runs WHERE id = ?", -1, &q, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_int64(q, 1, id);
		sqlite3_step(q);
	}
	sqlite3_finalize(q);
}

int pp_cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
					     {"output", required_argument, NULL, 'o'},
					     {"pdf", no_argument, NULL, 'p'},
					     {"compare", required_argument, NULL, 'c'},
					     {"db", required_argument, NULL, 'b'},
					     {"seed", required_argument, NULL, 's'},
					     {"draws", required_argument, NULL, 'd'},
					     {0, 0, 0, 0}};
	const char *out_dir = NULL, *cmp = NULL, *db = NULL;
	bool pdf = false;
	pp_report_opts ro;
	memset(&ro, 0, sizeof(ro));
	unsigned long v;
	int ch;
	optind = 1;
	/* ':' first: a missing argument is reported once, here, not by getopt too */
	while ((ch = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			help_report();
			return 0;
		case 'o':
			out_dir = optarg;
			break;
		case 'p':
			pdf = true;
			break;
		case 'c':
			cmp = optarg;
			break;
		case 'b':
			db = optarg;
			break;
		case 's':
			if (pp_cli_parse_seed("report", optarg, &v))
				return 2; /* the usage error, printed */
			ro.seed_given = true;
			ro.seed = v;
			break;
		case 'd':
			if (pp_cli_parse_ulong(optarg, 10000000UL, &v))
				return pp_cli_usage_error("report", "--draws: found \"%s\", expected an integer "
							  "0..10000000", optarg);
			ro.draws_given = true;
			ro.draws = (int)v;
			break;
		case ':':
			return pp_cli_usage_error("report", "%s: expected a value (podplan report "
						  "--help)", argv[optind - 1]);
		default:
			return pp_cli_usage_error("report", "unknown option \"%s\" (podplan report "
						  "--help)", argv[optind - 1]);
		}
	}
	if (cmp) {
		if (optind + 1 != argc)
			return pp_cli_usage_error("report", "--compare: expected two run ids, e.g. "
						  "--compare 3 7");
		if (out_dir || pdf)
			return pp_cli_usage_error("report", "--compare prints to the terminal; -o and --pdf "
						  "do not apply");
		return compare(db, cmp, argv[optind]);
	}
	if (optind + 1 != argc)
		return pp_cli_usage_error("report", "expected one scenario file (podplan report "
					  "SCENARIO.json -o DIR)");
	if (!out_dir || !*out_dir)
		return pp_cli_usage_error("report", "-o DIR: expected the directory to write the report "
					  "to");
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	if (sde && *sde) {
		if (pp_cli_parse_ulong(sde, 253402300799UL, &v))
			return pp_cli_usage_error("report", "SOURCE_DATE_EPOCH: found \"%s\", expected "
						  "seconds since 1970", sde);
		ro.now_s = (double)v;
	}
	char chromium[PATH_MAX];
	if (pdf && !pp_report_find_chromium(chromium, sizeof(chromium))) {
		fprintf(stderr, "podplan: --pdf needs headless Chromium: none found (install the Debian "
				"package chromium, or set PODPLAN_CHROMIUM to a Chrome/Chromium binary); "
				"nothing written\n");
		return 1;
	}
	ro.store_path = db;
	pp_cli_scenario l;
	pp_report r;
	pp_err err = {0};
	pp_store *st = NULL;
	bool have_r = false, in_tx = false;
	pp_sb names = {0};
	double t0 = pp_mono_s();
	int rc = pp_cli_load_scenario(&l, "report", argv[optind], NULL, db, 0);
	if (rc)
		goto out;
	ro.hwcal = &l.cal;
	pp_cli_prog pg = {"report", pp_cli_tty(), false, 0};
	ro.progress = pp_cli_serve_progress;
	ro.progress_ctx = &pg;
	rc = pp_report_build(&r, &l.s, l.cat, argv[optind], &ro, &err);
	pp_cli_serve_progress_end(&pg);
	if (rc)
		goto fail;
	have_r = true;
	/* record and write as one: the run is committed only when the files are in place */
	char dir[PATH_MAX];
	given_dir(out_dir, dir, sizeof(dir));
	if ((rc = pp_store_open(&st, db, &err)) || (rc = pp_store_exec(st, "BEGIN IMMEDIATE", &err)))
		goto fail;
	in_tx = true;
	if ((rc = pp_history_record(st, &r, dir, &r.run_id, &err)))
		goto fail;
	pp_report_public_path(pp_store_path(st), r.store_path, sizeof(r.store_path));
	/* the row is committed once the files are staged, just before they
	 * go into place (pp_report_write_commit) */
	commit_ctx cc = {st, &in_tx};
	if ((rc = pp_report_write_commit(&r, out_dir, pdf ? chromium : NULL, &names, commit_run, &cc,
					 &err))) {
		if (!in_tx) /* committed, then the files could not go into place */
			forget_run(st, r.run_id);
		goto fail;
	}
	pp_sb h = {0};
	pp_report_headline(&r, &h);
	printf("report: %s/index.html\n", dir);
	printf("answer: %s\n", h.buf ? h.buf : "");
	pp_sb_release(&h);
	for (char *p = names.buf; p && *p; p++)
		if (*p == '\n')
			*p = p[1] ? ' ' : '\0';
	printf("files:  %s\n", names.buf ? names.buf : "");
	if (r.nwarnings)
		printf("warnings: %d (listed at the top of the page)\n", r.nwarnings);
	printf("run %lld recorded in %s ('podplan history'; 'podplan report --compare %lld OTHER')\n",
	       (long long)r.run_id, r.store_path, (long long)r.run_id);
	printf("took %.2f s (engines %.2f s)\n", pp_mono_s() - t0, r.elapsed_s);
	rc = 0;
	goto out;
fail:
	if (in_tx)
		sqlite3_exec(pp_store_db(st), "ROLLBACK", NULL, NULL, NULL);
	rc = pp_cli_fail(&err);
out:
	pp_sb_release(&names);
	pp_store_close(st);
	if (have_r)
		pp_report_release(&r);
	pp_cli_scenario_release(&l);
	return rc;
}

int pp_cmd_history(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
					     {"scenario", required_argument, NULL, 's'},
					     {"limit", required_argument, NULL, 'l'},
					     {"csv", no_argument, NULL, 'c'},
					     {"db", required_argument, NULL, 'b'},
					     {0, 0, 0, 0}};
	const char *scenario = NULL, *db = NULL;
	bool csv = false;
	unsigned long limit = 50;
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			help_history();
			return 0;
		case 's':
			scenario = optarg;
			break;
		case 'l':
			if (pp_cli_parse_ulong(optarg, 1000000000UL, &limit))
				return pp_cli_usage_error("history", "--limit: found \"%s\", expected a count "
							  "(0 = all)", optarg);
			break;
		case 'c':
			csv = true;
			break;
		case 'b':
			db = optarg;
			break;
		default:
			return pp_cli_usage_error("history", "unknown option (podplan history --help)");
		}
	}
	if (optind != argc)
		return pp_cli_usage_error("history", "unexpected argument \"%s\"; did you mean "
					  "--scenario %s?", argv[optind], argv[optind]);
	pp_store *st = NULL;
	pp_err err = {0};
	pp_sb out = {0};
	int rc;
	if ((rc = pp_store_open_ro(&st, db, &err)) ||
	    (rc = pp_history_list(st, scenario, (int)limit, csv, &out, &err))) {
		pp_store_close(st);
		pp_sb_release(&out);
		rc = pp_cli_fail(&err);
		return err.code == PP_ENOTFOUND ? 2 : rc; /* an unknown scenario name: bad input */
	}
	fputs(out.buf ? out.buf : "", stdout);
	pp_sb_release(&out);
	pp_store_close(st);
	return 0;
}
