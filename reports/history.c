/* history.c - see history.h: recording a run and listing them;
 * comparing two is compare.c. */
#include "histint.h"
#include "core/fmt.h"
#include "core/csv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int pp_history_record(pp_store *st, const pp_report *r, const char *out_dir, int64_t *id,
		      pp_err *err)
{
	pp_sb in = {0}, res = {0};
	pp_report_inputs_json(r, &in);
	pp_report_results_json(r, out_dir, &res);
	const char *profile = r->hw.profile[0] ? r->hw.profile : r->s->calib_profile;
	int rc = pp_store_add_run(st, "report", r->s->name, r->s->hash, profile, in.buf, res.buf, id,
				  err);
	pp_sb_release(&in);
	pp_sb_release(&res);
	return rc;
}

const char *pp_hist_store(pp_store *st, char *buf, size_t n)
{
	return pp_report_public_path(pp_store_path(st), buf, n);
}

const char *pp_hist_col_text(sqlite3_stmt *q, int i)
{
	const unsigned char *t = sqlite3_column_text(q, i);
	return t ? (const char *)t : "";
}

void pp_hist_fmt_time(double t, char *buf, size_t n)
{
	pp_fmt_utc(t, "%Y-%m-%d %H:%M", buf, n);
}

const cJSON *pp_hist_option(const cJSON *res, const char *name)
{
	const cJSON *opts = cJSON_GetObjectItemCaseSensitive(res, "options");
	for (const cJSON *o = opts ? opts->child : NULL; o && name; o = o->next) {
		const char *on = pp_json_get_str(o, "name", NULL);
		if (on && !strcmp(on, name))
			return o;
	}
	return NULL;
}

/* The answer of a stored run in a few words. */
static void answer_words(const cJSON *res, char *buf, size_t n)
{
	char a[32], b[32];
	const char *rec = pp_json_get_str(res, "recommended", NULL);
	const cJSON *pred = cJSON_GetObjectItemCaseSensitive(res, "predict");
	if (rec) {
		const cJSON *o = pp_hist_option(res, rec);
		snprintf(buf, n, "%s %s", rec,
			 pp_fmt_usd(pp_json_get_num(o, "usd_total", NAN), a, sizeof(a)));
	} else if (pred) {
		snprintf(buf, n, "step %s, train %s",
			 pp_fmt_span(pp_json_get_num(pred, "step_time_s", NAN), a, sizeof(a)),
			 pp_fmt_span(pp_json_get_num(pred, "time_to_train_s", NAN), b, sizeof(b)));
	} else if (cJSON_GetObjectItemCaseSensitive(res, "options")) {
		snprintf(buf, n, "no feasible option");
	} else {
		snprintf(buf, n, "-");
	}
}

/* One run as a CSV row (the header is in pp_history_list). */
static void csv_row(pp_csvw *w, sqlite3_stmt *q, const cJSON *res, const char *when,
		    const char *prof)
{
	const char *rec = pp_json_get_str(res, "recommended", NULL);
	const char *dir = pp_json_get_str(res, "output_dir", NULL);
	pp_csvw_int(w, (long long)sqlite3_column_int64(q, 0));
	pp_csvw_text(w, when);
	for (int i = 2; i <= 5; i++)
		pp_csvw_text(w, pp_hist_col_text(q, i));
	pp_csvw_text(w, prof);
	pp_csvw_text(w, rec ? rec : "");
	pp_csvw_num(w, pp_json_get_num(pp_hist_option(res, rec), "usd_total", NAN), 10);
	pp_csvw_text(w, dir ? dir : "");
	pp_csvw_end(w);
}

/* One run as two lines of the table. */
static void text_row(pp_sb *out, sqlite3_stmt *q, const cJSON *res, const char *when,
		     const char *prof)
{
	char hash[9], ans[200];
	answer_words(res, ans, sizeof(ans));
	snprintf(hash, sizeof(hash), "%s", pp_hist_col_text(q, 4));
	pp_sb_addf(out, "%5lld  %-16s  %-7s  %-8s  %-7s  %-12s  %s\n",
		   (long long)sqlite3_column_int64(q, 0), when, pp_hist_col_text(q, 2), hash,
		   pp_hist_col_text(q, 5), *prof ? prof : "-", ans);
	const char *dir = pp_json_get_str(res, "output_dir", NULL);
	pp_sb_addf(out, "%5s  %s", "", pp_hist_col_text(q, 3));
	if (dir && *dir)
		pp_sb_addf(out, " -> %s/index.html", dir);
	pp_sb_adds(out, "\n");
}

/* An unknown scenario: PP_ENOTFOUND naming the closest recorded name. */
static int no_such_scenario(pp_store *st, const char *scenario, pp_err *err)
{
	sqlite3_stmt *q = NULL;
	char **names = NULL, sp[1024];
	size_t n = 0;
	if (sqlite3_prepare_v2(pp_store_db(st), "SELECT DISTINCT scenario_name FROM runs ORDER BY 1",
			       -1, &q, NULL) == SQLITE_OK) {
		while (sqlite3_step(q) == SQLITE_ROW) {
			names = pp_xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = pp_xstrdup(pp_hist_col_text(q, 0));
		}
	}
	sqlite3_finalize(q);
	const char *near = pp_did_you_mean(scenario, (const char *const *)names, n);
	int rc = pp_errf(err, PP_ENOTFOUND, "no runs of scenario \"%s\" in %s%s%s%s", scenario,
			 pp_hist_store(st, sp, sizeof(sp)), near ? "; did you mean \"" : n ? " (recorded: " : "",
			 near ? near : n ? names[0] : "", near ? "\"?" : n ? (n > 1 ? ", ...)" : ")") : "");
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int pp_history_list(pp_store *st, const char *scenario, int limit, bool csv, pp_sb *out,
		    pp_err *err)
{
	char sp[1024];
	sqlite3 *db = pp_store_db(st);
	sqlite3_stmt *q = NULL;
	int rc = 0, rows = 0;
	size_t start = out->len;
	const char *sql = scenario
		? "SELECT id, created_at, kind, scenario_name, scenario_hash, podplan_version, "
		  "calib_profile, results_json FROM runs WHERE scenario_name = ?1 ORDER BY id DESC LIMIT ?2"
		: "SELECT id, created_at, kind, scenario_name, scenario_hash, podplan_version, "
		  "calib_profile, results_json FROM runs ORDER BY id DESC LIMIT ?2";
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
		return pp_errf(err, PP_EDB, "%s: %s", pp_hist_store(st, sp, sizeof(sp)), sqlite3_errmsg(db));
	if (scenario)
		sqlite3_bind_text(q, 1, scenario, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 2, limit > 0 ? limit : -1);
	pp_csvw w;
	pp_csvw_init(&w, out);
	if (csv)
		pp_csvw_header(&w, "id,created_at_utc,kind,scenario,scenario_hash,podplan_version,"
				   "calib_profile,recommended,usd_total,output_dir");
	else
		pp_sb_addf(out, "%5s  %-16s  %-7s  %-8s  %-7s  %-12s  %s\n%5s  %s\n", "run", "date (UTC)",
			   "kind", "hash", "version", "profile", "answer", "", "scenario -> report");
	int s;
	while ((s = sqlite3_step(q)) == SQLITE_ROW) {
		char when[32];
		pp_hist_fmt_time(sqlite3_column_double(q, 1), when, sizeof(when));
		cJSON *res = cJSON_Parse(pp_hist_col_text(q, 7));
		const char *prof = sqlite3_column_type(q, 6) == SQLITE_NULL ? "" : pp_hist_col_text(q, 6);
		if (csv)
			csv_row(&w, q, res, when, prof);
		else
			text_row(out, q, res, when, prof);
		cJSON_Delete(res);
		rows++;
	}
	if (s != SQLITE_DONE)
		rc = pp_errf(err, PP_EDB, "%s: %s", pp_hist_store(st, sp, sizeof(sp)), sqlite3_errmsg(db));
	sqlite3_finalize(q);
	if (!rc && rows == 0 && !scenario && !csv)
		pp_sb_addf(out, "(no runs recorded in %s yet: 'podplan report SCENARIO.json -o DIR' "
			   "records one)\n", pp_hist_store(st, sp, sizeof(sp)));
	if (!csv) /* the table is for a terminal: stored names escaped */
		pp_sb_tty_from(out, start);
	if (rc || rows > 0 || !scenario)
		return rc;
	return no_such_scenario(st, scenario, err);
}
