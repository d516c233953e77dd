/* history.c - see history.h. */
#include "history.h"

#include <cjson/cJSON.h>
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

static const char *col_text(sqlite3_stmt *q, int i)
{
	const unsigned char *t = sqlite3_column_text(q, i);
	return t ? (const char *)t : "";
}

static void fmt_time(double t, char *buf, size_t n)
{
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	strftime(buf, n, "%Y-%m-%d %H:%M", &tm);
}

static const char *js(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double jd(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const cJSON *option_named(const cJSON *res, const char *name)
{
	const cJSON *opts = cJSON_GetObjectItemCaseSensitive(res, "options");
	for (const cJSON *o = opts ? opts->child : NULL; o && name; o = o->next)
		if (js(o, "name") && !strcmp(js(o, "name"), name))
			return o;
	return NULL;
}

/* The answer of a stored run in a few words. */
static void answer_words(const cJSON *res, char *buf, size_t n)
{
	char a[32], b[32];
	const char *rec = js(res, "recommended");
	const cJSON *pred = cJSON_GetObjectItemCaseSensitive(res, "predict");
	if (rec) {
		const cJSON *o = option_named(res, rec);
		snprintf(buf, n, "%s %s", rec, pp_report_usd(jd(o, "usd_total"), a, sizeof(a)));
	} else if (pred) {
		snprintf(buf, n, "step %s, train %s", pp_report_dur(jd(pred, "step_time_s"), a, sizeof(a)),
			 pp_report_dur(jd(pred, "time_to_train_s"), b, sizeof(b)));
	} else if (cJSON_GetObjectItemCaseSensitive(res, "options")) {
		snprintf(buf, n, "no feasible option");
	} else {
		snprintf(buf, n, "-");
	}
}

int pp_history_list(pp_store *st, const char *scenario, int limit, bool csv, pp_sb *out,
		    pp_err *err)
{
	sqlite3 *db = pp_store_db(st);
	sqlite3_stmt *q = NULL;
	int rc = 0, rows = 0;
	const char *sql = scenario
		? "SELECT id, created_at, kind, scenario_name, scenario_hash, podplan_version, "
		  "calib_profile, results_json FROM runs WHERE scenario_name = ?1 ORDER BY id DESC LIMIT ?2"
		: "SELECT id, created_at, kind, scenario_name, scenario_hash, podplan_version, "
		  "calib_profile, results_json FROM runs ORDER BY id DESC LIMIT ?2";
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
		return pp_errf(err, PP_EDB, "%s: %s", pp_store_path(st), sqlite3_errmsg(db));
	if (scenario)
		sqlite3_bind_text(q, 1, scenario, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 2, limit > 0 ? limit : -1);
	if (csv)
		pp_sb_adds(out, "id,created_at_utc,kind,scenario,scenario_hash,podplan_version,"
				"calib_profile,recommended,usd_total,output_dir\r\n");
	else
		pp_sb_addf(out, "%5s  %-16s  %-7s  %-8s  %-7s  %-12s  %s\n%5s  %s\n", "run", "date (UTC)",
			   "kind", "hash", "version", "profile", "answer", "", "scenario -> report");
	int s;
	while ((s = sqlite3_step(q)) == SQLITE_ROW) {
		char when[32], ans[200];
		fmt_time(sqlite3_column_double(q, 1), when, sizeof(when));
		cJSON *res = cJSON_Parse(col_text(q, 7));
		answer_words(res, ans, sizeof(ans));
		const char *prof = sqlite3_column_type(q, 6) == SQLITE_NULL ? "" : col_text(q, 6);
		if (csv) {
			const char *rec = js(res, "recommended");
			double tot = jd(option_named(res, rec), "usd_total");
			pp_sb_addf(out, "%lld,", (long long)sqlite3_column_int64(q, 0));
			pp_sb_add_csv(out, when);
			for (int i = 2; i <= 5; i++) {
				pp_sb_adds(out, ",");
				pp_sb_add_csv(out, col_text(q, i));
			}
			pp_sb_adds(out, ",");
			pp_sb_add_csv(out, prof);
			pp_sb_adds(out, ",");
			pp_sb_add_csv(out, rec ? rec : "");
			pp_sb_adds(out, ",");
			if (isfinite(tot))
				pp_sb_addf(out, "%.10g", tot);
			pp_sb_adds(out, ",");
			pp_sb_add_csv(out, js(res, "output_dir") ? js(res, "output_dir") : "");
			pp_sb_adds(out, "\r\n");
		} else {
			char hash[9];
			snprintf(hash, sizeof(hash), "%s", col_text(q, 4));
			pp_sb_addf(out, "%5lld  %-16s  %-7s  %-8s  %-7s  %-12s  %s\n",
				   (long long)sqlite3_column_int64(q, 0), when, col_text(q, 2), hash,
				   col_text(q, 5), *prof ? prof : "-", ans);
			const char *dir = js(res, "output_dir");
			pp_sb_addf(out, "%5s  %s", "", col_text(q, 3));
			if (dir && *dir)
				pp_sb_addf(out, " -> %s/index.html", dir);
			pp_sb_adds(out, "\n");
		}
		cJSON_Delete(res);
		rows++;
	}
	if (s != SQLITE_DONE)
		rc = pp_errf(err, PP_EDB, "%s: %s", pp_store_path(st), sqlite3_errmsg(db));
	sqlite3_finalize(q);
	if (!rc && rows == 0 && !scenario && !csv)
		pp_sb_addf(out, "(no runs recorded in %s yet: 'podplan report SCENARIO.json -o DIR' "
			   "records one)\n", pp_store_path(st));
	if (rc || rows > 0 || !scenario)
		return rc;
	/* an unknown scenario: say which names exist */
	char **names = NULL;
	size_t n = 0;
	if (sqlite3_prepare_v2(db, "SELECT DISTINCT scenario_name FROM runs ORDER BY 1", -1, &q, NULL) ==
	    SQLITE_OK) {
		while (sqlite3_step(q) == SQLITE_ROW) {
			names = pp_xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = pp_xstrdup(col_text(q, 0));
		}
	}
	sqlite3_finalize(q);
	const char *near = pp_did_you_mean(scenario, (const char *const *)names, n);
	rc = pp_errf(err, PP_ENOTFOUND, "no runs of scenario \"%s\" in %s%s%s%s", scenario,
		     pp_store_path(st), near ? "; did you mean \"" : n ? " (recorded: " : "",
		     near ? near : n ? names[0] : "", near ? "\"?" : n ? (n > 1 ? ", ...)" : ")") : "");
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* ---- compare ---- */

typedef struct run_row {
	int64_t id;
	double created;
	char kind[16], scenario[128], hash[20], version[32], profile[128];
	cJSON *in, *res;
} run_row;

static int load_run(pp_store *st, int64_t id, run_row *r, pp_err *err)
{
	sqlite3 *db = pp_store_db(st);
	sqlite3_stmt *q = NULL;
	int rc = 0;
	memset(r, 0, sizeof(*r));
	if (sqlite3_prepare_v2(db, "SELECT id, created_at, kind, scenario_name, scenario_hash, "
				"podplan_version, calib_profile, inputs_json, results_json FROM runs "
				"WHERE id = ?", -1, &q, NULL) != SQLITE_OK)
		return pp_errf(err, PP_EDB, "%s: %s", pp_store_path(st), sqlite3_errmsg(db));
	sqlite3_bind_int64(q, 1, id);
	int s = sqlite3_step(q);
	if (s == SQLITE_ROW) {
		r->id = sqlite3_column_int64(q, 0);
		r->created = sqlite3_column_double(q, 1);
		snprintf(r->kind, sizeof(r->kind), "%s", col_text(q, 2));
		snprintf(r->scenario, sizeof(r->scenario), "%s", col_text(q, 3));
		snprintf(r->hash, sizeof(r->hash), "%s", col_text(q, 4));
		snprintf(r->version, sizeof(r->version), "%s", col_text(q, 5));
		snprintf(r->profile, sizeof(r->profile), "%s", col_text(q, 6));
		r->in = cJSON_Parse(col_text(q, 7));
		r->res = cJSON_Parse(col_text(q, 8));
		if (!r->in || !r->res)
			rc = pp_errf(err, PP_EDB, "%s: run %lld has unreadable JSON", pp_store_path(st),
				     (long long)id);
	} else if (s == SQLITE_DONE) {
		rc = pp_errf(err, PP_ENOTFOUND, "run %lld is not in %s ('podplan history' lists the runs)",
			     (long long)id, pp_store_path(st));
	} else {
		rc = pp_errf(err, PP_EDB, "%s: %s", pp_store_path(st), sqlite3_errmsg(db));
	}
	sqlite3_finalize(q);
	return rc;
}

static void free_run(run_row *r)
{
	cJSON_Delete(r->in);
	cJSON_Delete(r->res);
}

/* A JSON document flattened to sorted (path, value) pairs; comment keys
 * ("_..." and "//...") left out. */
typedef struct kv {
	char *path, *val;
} kv;
typedef struct kvs {
	kv *v;
	size_t n;
} kvs;

static void flatten(const cJSON *x, const char *path, kvs *out)
{
	if (cJSON_IsObject(x) || cJSON_IsArray(x)) {
		int i = 0;
		for (const cJSON *c = x->child; c; c = c->next, i++) {
			char p[512];
			if (cJSON_IsArray(x))
				snprintf(p, sizeof(p), "%s[%d]", path, i);
			else if (c->string && (c->string[0] == '_' || !strncmp(c->string, "//", 2)))
				continue;
			else
				snprintf(p, sizeof(p), "%s%s%s", path, *path ? "." : "", c->string);
			flatten(c, p, out);
		}
		if (x->child)
			return;
	}
	char *v = cJSON_PrintUnformatted(x);
	out->v = pp_xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
	out->v[out->n].path = pp_xstrdup(path);
	out->v[out->n].val = v ? v : pp_xstrdup("?");
	out->n++;
}

static int cmp_kv(const void *a, const void *b)
{
	return strcmp(((const kv *)a)->path, ((const kv *)b)->path);
}

static void kvs_free(kvs *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->v[i].path);
		free(k->v[i].val);
	}
	free(k->v);
}

#define MAX_LINES 30

/* Diff of two flattened documents; returns the number of differences and
 * appends up to MAX_LINES lines; changed paths (all of them) to *paths. */
static int diff_docs(const cJSON *a, const cJSON *b, const char *indent, pp_sb *out, kvs *paths)
{
	kvs x = {0}, y = {0};
	flatten(a, "", &x);
	flatten(b, "", &y);
	qsort(x.v, x.n, sizeof(kv), cmp_kv);
	qsort(y.v, y.n, sizeof(kv), cmp_kv);
	size_t i = 0, j = 0;
	int nd = 0;
	while (i < x.n || j < y.n) {
		int c = i == x.n ? 1 : j == y.n ? -1 : strcmp(x.v[i].path, y.v[j].path);
		const char *p = c <= 0 ? x.v[i].path : y.v[j].path;
		bool diff = c != 0 || strcmp(x.v[i].val, y.v[j].val);
		if (diff) {
			if (nd < MAX_LINES) {
				if (c < 0)
					pp_sb_addf(out, "%s- %s: %s (removed)\n", indent, p, x.v[i].val);
				else if (c > 0)
					pp_sb_addf(out, "%s+ %s: %s (added)\n", indent, p, y.v[j].val);
				else
					pp_sb_addf(out, "%s%s: %s -> %s\n", indent, p, x.v[i].val, y.v[j].val);
			}
			if (paths) {
				paths->v = pp_xrealloc(paths->v, (paths->n + 1) * sizeof(kv));
				paths->v[paths->n].path = pp_xstrdup(p);
				paths->v[paths->n].val = pp_xstrdup("");
				paths->n++;
			}
			nd++;
		}
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
	}
	if (nd > MAX_LINES)
		pp_sb_addf(out, "%s... and %d more\n", indent, nd - MAX_LINES);
	kvs_free(&x);
	kvs_free(&y);
	return nd;
}

static const cJSON *figure_named(const cJSON *figs, const char *item)
{
	for (const cJSON *f = figs ? figs->child : NULL; f; f = f->next)
		if (js(f, "item") && !strcmp(js(f, "item"), item))
			return f;
	return NULL;
}

static bool same_num(double a, double b)
{
	if (isnan(a) && isnan(b))
		return true;
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

static double rel(double a, double b)
{
	return a != 0 && isfinite(a) && isfinite(b) ? (b - a) / fabs(a) : NAN;
}

/* Did an option's figures move? A figure item names the provider or
 * price key of the options it prices ("H100-SXM-80GB lambda_8x on_demand"). */
static bool figure_of(const char *item, const cJSON *opt)
{
	const char *prov = js(opt, "provider");
	if (prov && *prov && strcmp(prov, "own") && strstr(item, prov))
		return true;
	return false;
}

int pp_history_compare(pp_store *st, int64_t ida, int64_t idb, pp_sb *out, pp_err *err)
{
	run_row A, B;
	int rc;
	if ((rc = load_run(st, ida, &A, err)))
		return rc;
	if ((rc = load_run(st, idb, &B, err))) {
		free_run(&A);
		return rc;
	}
	char ta[32], tb[32], a[48], b[48];
	fmt_time(A.created, ta, sizeof(ta));
	fmt_time(B.created, tb, sizeof(tb));
	pp_sb_addf(out, "Comparing run %lld with run %lld\n", (long long)A.id, (long long)B.id);
	pp_sb_addf(out, "  %lld: %s UTC, %s \"%s\", scenario hash %s, podplan %s\n", (long long)A.id, ta,
		   A.kind, A.scenario, A.hash, A.version);
	pp_sb_addf(out, "  %lld: %s UTC, %s \"%s\", scenario hash %s, podplan %s\n", (long long)B.id, tb,
		   B.kind, B.scenario, B.hash, B.version);
	if (strcmp(A.scenario, B.scenario))
		pp_sb_adds(out, "  (different scenarios: every difference below may come from that)\n");

	/* ---- inputs ---- */
	pp_sb_adds(out, "\nInputs\n");
	int changes = 0;
	kvs scen_paths = {0};
	const cJSON *sa = cJSON_GetObjectItemCaseSensitive(A.in, "scenario");
	const cJSON *sb = cJSON_GetObjectItemCaseSensitive(B.in, "scenario");
	int nscen = 0;
	if (!strcmp(A.hash, B.hash)) {
		pp_sb_addf(out, "  scenario file: unchanged (hash %s)\n", A.hash);
	} else {
		pp_sb_addf(out, "  scenario file: changed (hash %s -> %s)\n", A.hash, B.hash);
		nscen = diff_docs(sa, sb, "    ", out, &scen_paths);
		if (nscen == 0)
			pp_sb_adds(out, "    (only comments or formatting changed)\n");
		changes += nscen;
	}
	const cJSON *fa = cJSON_GetObjectItemCaseSensitive(A.in, "figures");
	const cJSON *fb = cJSON_GetObjectItemCaseSensitive(B.in, "figures");
	pp_sb figs = {0};
	int nfig = 0;
	for (const cJSON *f = fb ? fb->child : NULL; f; f = f->next) {
		const char *item = js(f, "item");
		if (!item)
			continue;
		const cJSON *g = figure_named(fa, item);
		if (!g) {
			if (nfig++ < MAX_LINES)
				pp_sb_addf(&figs, "    + %s: %.6g %s (%s, added)\n", item, jd(f, "value"),
					   js(f, "unit") ? js(f, "unit") : "", js(f, "date") ? js(f, "date") : "");
		} else if (!same_num(jd(f, "value"), jd(g, "value")) ||
			   strcmp(js(f, "date") ? js(f, "date") : "", js(g, "date") ? js(g, "date") : "")) {
			if (nfig++ < MAX_LINES)
				pp_sb_addf(&figs, "    %s: %.6g -> %.6g %s (dated %s -> %s)\n", item,
					   jd(g, "value"), jd(f, "value"), js(f, "unit") ? js(f, "unit") : "",
					   js(g, "date") ? js(g, "date") : "?", js(f, "date") ? js(f, "date") : "?");
		}
	}
	for (const cJSON *g = fa ? fa->child : NULL; g; g = g->next)
		if (js(g, "item") && !figure_named(fb, js(g, "item")) && nfig++ < MAX_LINES)
			pp_sb_addf(&figs, "    - %s: %.6g %s (removed)\n", js(g, "item"), jd(g, "value"),
				   js(g, "unit") ? js(g, "unit") : "");
	if (nfig) {
		pp_sb_addf(out, "  prices and other figures used: %d changed\n%s", nfig, figs.buf);
		if (nfig > MAX_LINES)
			pp_sb_addf(out, "    ... and %d more\n", nfig - MAX_LINES);
	} else {
		pp_sb_adds(out, "  prices and other figures used: unchanged\n");
	}
	changes += nfig;
	const cJSON *ca = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(A.in, "catalog"), "files");
	const cJSON *cb = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(B.in, "catalog"), "files");
	pp_sb cat = {0};
	int ncat = 0;
	for (const cJSON *f = cb ? cb->child : NULL; f; f = f->next) {
		const char *h = js(ca, f->string);
		if (!h || strcmp(h, cJSON_IsString(f) ? f->valuestring : "")) {
			pp_sb_addf(&cat, "%s%s", ncat ? ", " : "", f->string);
			ncat++;
		}
	}
	if (ncat)
		pp_sb_addf(out, "  catalog files changed: %s\n", cat.buf);
	else
		pp_sb_adds(out, "  catalog files (models/*.json): unchanged\n");
	changes += ncat;
	bool ver = strcmp(A.version, B.version) != 0;
	pp_sb_addf(out, "  podplan version: %s%s%s\n", A.version, ver ? " -> " : " (same)", ver ? B.version : "");
	changes += ver;
	double seed_a = jd(A.in, "seed"), seed_b = jd(B.in, "seed");
	double draws_a = jd(A.in, "draws"), draws_b = jd(B.in, "draws");
	bool mc = !same_num(seed_a, seed_b) || !same_num(draws_a, draws_b);
	if (isfinite(seed_a) || isfinite(seed_b))
		pp_sb_addf(out, "  Monte Carlo: seed %.0f -> %.0f, draws %.0f -> %.0f%s\n", seed_a, seed_b,
			   draws_a, draws_b, mc ? "" : " (same)");
	changes += mc;
	bool prof = strcmp(A.profile, B.profile) != 0;
	pp_sb_addf(out, "  calibration profile: %s%s%s\n", *A.profile ? A.profile : "none",
		   prof ? " -> " : " (same)", prof ? (*B.profile ? B.profile : "none") : "");
	changes += prof;

	/* ---- results ---- */
	pp_sb_adds(out, "\nResults\n");
	const char *ra = js(A.res, "recommended"), *rb = js(B.res, "recommended");
	bool ans = (ra || rb) && (!ra || !rb || strcmp(ra, rb));
	if (ans)
		pp_sb_addf(out, "  answer: %s -> %s  (CHANGED)\n", ra ? ra : "none", rb ? rb : "none");
	else if (ra)
		pp_sb_addf(out, "  answer: %s (same)\n", ra);
	const cJSON *oa = cJSON_GetObjectItemCaseSensitive(A.res, "options");
	const cJSON *ob = cJSON_GetObjectItemCaseSensitive(B.res, "options");
	int nres = ans;
	pp_sb why = {0};
	if (oa || ob) {
		pp_sb_addf(out, "  %-26s %12s %12s %8s %13s %13s\n", "option", "total before", "total after",
			   "change", "time before", "time after");
		for (const cJSON *o = ob ? ob->child : NULL; o; o = o->next) {
			const char *name = js(o, "name");
			const cJSON *p = option_named(A.res, name);
			double t0 = jd(p, "usd_total"), t1 = jd(o, "usd_total");
			double d0 = jd(p, "time_to_train_s"), d1 = jd(o, "time_to_train_s");
			double r0 = rel(t0, t1);
			char c[24], e[32], f[32];
			if (!p)
				snprintf(c, sizeof(c), "added");
			else if (isfinite(r0))
				snprintf(c, sizeof(c), "%+.1f%%", 100 * r0);
			else
				snprintf(c, sizeof(c), "-");
			pp_sb_addf(out, "  %-26.26s %12s %12s %8s %13s %13s\n", name ? name : "?",
				   p ? pp_report_usd(t0, a, sizeof(a)) : "-", pp_report_usd(t1, b, sizeof(b)), c,
				   p ? pp_report_dur(d0, e, sizeof(e)) : "-", pp_report_dur(d1, f, sizeof(f)));
			bool moved = !p || !same_num(t0, t1) || !same_num(d0, d1);
			if (!moved)
				continue;
			nres++;
			/* why this option moved */
			pp_sb_addf(&why, "  - %s: ", name ? name : "?");
			int reasons = 0;
			if (!p) {
				pp_sb_adds(&why, "added to the scenario's options");
				reasons++;
			}
			/* its own settings in the scenario (costs.options[i] with its name) */
			int idx = 0;
			const cJSON *sopts = cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(sb, "costs"), "options");
			for (const cJSON *so = sopts ? sopts->child : NULL; so; so = so->next, idx++)
				if (js(so, "name") && name && !strcmp(js(so, "name"), name))
					break;
			char pre[64];
			snprintf(pre, sizeof(pre), "costs.options[%d]", idx);
			int own = 0, global = 0;
			const char *first_global = NULL;
			for (size_t k = 0; k < scen_paths.n; k++) {
				const char *sp = scen_paths.v[k].path;
				if (!strncmp(sp, pre, strlen(pre)) &&
				    (sp[strlen(pre)] == '.' || sp[strlen(pre)] == '\0'))
					own++;
				else if (strncmp(sp, "costs.options[", 14)) {
					global++;
					if (!first_global)
						first_global = sp;
				}
			}
			if (own)
				pp_sb_addf(&why, "%sits own settings changed (%d key%s under %s)",
					   reasons++ ? "; " : "", own, own > 1 ? "s" : "", pre);
			if (global)
				pp_sb_addf(&why, "%sscenario-wide inputs changed (%d, e.g. %s)",
					   reasons++ ? "; " : "", global, first_global);
			int fown = 0;
			for (const cJSON *fg = fb ? fb->child : NULL; fg; fg = fg->next) {
				const char *item = js(fg, "item");
				const cJSON *g = item ? figure_named(fa, item) : NULL;
				if (item && figure_of(item, o) &&
				    (!g || !same_num(jd(fg, "value"), jd(g, "value")))) {
					if (g)
						pp_sb_addf(&why, "%s%s%s %.6g -> %.6g", reasons ? "; " : "",
							   fown ? "" : "its price ", item, jd(g, "value"),
							   jd(fg, "value"));
					else
						pp_sb_addf(&why, "%s%s%s now %.6g (new)", reasons ? "; " : "",
							   fown ? "" : "its price ", item, jd(fg, "value"));
					fown++;
					reasons++;
				}
			}
			if (nfig > fown && reasons == 0)
				pp_sb_addf(&why, "%d shared figures changed (see Inputs)", nfig - fown), reasons++;
			if (ncat && reasons == 0)
				pp_sb_adds(&why, "catalog data changed (hardware, prices or TCO figures)"), reasons++;
			if (ver && reasons == 0)
				pp_sb_addf(&why, "the engine changed (podplan %s -> %s)", A.version, B.version), reasons++;
			if (reasons == 0)
				pp_sb_adds(&why, "no recorded input explains it (same inputs, same version: "
						 "please report this as a bug)");
			pp_sb_adds(&why, "\n");
		}
		for (const cJSON *p = oa ? oa->child : NULL; p; p = p->next)
			if (!option_named(B.res, js(p, "name"))) {
				pp_sb_addf(out, "  %-26.26s %12s %12s %8s\n", js(p, "name") ? js(p, "name") : "?",
					   pp_report_usd(jd(p, "usd_total"), a, sizeof(a)), "-", "removed");
				nres++;
			}
	}
	const cJSON *pa = cJSON_GetObjectItemCaseSensitive(A.res, "predict");
	const cJSON *pb = cJSON_GetObjectItemCaseSensitive(B.res, "predict");
	if (pa || pb) {
		char e[32], f[32];
		pp_sb_addf(out, "  step time: %s -> %s; time to train: %s -> %s\n",
			   pp_report_dur(jd(pa, "step_time_s"), a, sizeof(a)),
			   pp_report_dur(jd(pb, "step_time_s"), b, sizeof(b)),
			   pp_report_dur(jd(pa, "time_to_train_s"), e, sizeof(e)),
			   pp_report_dur(jd(pb, "time_to_train_s"), f, sizeof(f)));
		if (!same_num(jd(pa, "step_time_s"), jd(pb, "step_time_s")))
			nres++;
	}
	/* warnings */
	const cJSON *wa = cJSON_GetObjectItemCaseSensitive(A.res, "warnings");
	const cJSON *wb = cJSON_GetObjectItemCaseSensitive(B.res, "warnings");
	for (int pass = 0; pass < 2; pass++) {
		const cJSON *from = pass ? wa : wb, *other = pass ? wb : wa;
		for (const cJSON *w = from ? from->child : NULL; w; w = w->next) {
			bool found = false;
			for (const cJSON *v = other ? other->child : NULL; v; v = v->next)
				if (cJSON_IsString(w) && cJSON_IsString(v) && !strcmp(w->valuestring, v->valuestring))
					found = true;
			if (!found && cJSON_IsString(w)) {
				pp_sb_addf(out, "  %s warning: %s\n", pass ? "- gone" : "+ new", w->valuestring);
				nres++;
			}
		}
	}

	/* ---- why ---- */
	pp_sb_adds(out, "\nWhy\n");
	if (changes == 0 && nres == 0)
		pp_sb_adds(out, "  Nothing in the inputs changed and the results are identical: the run "
				"is reproducible.\n");
	else if (changes == 0)
		pp_sb_adds(out, "  No recorded input changed, yet the results differ: a non-recorded input "
				"(an environment variable, the data directory) or a bug; please report it.\n");
	else if (nres == 0)
		pp_sb_addf(out, "  %d input change%s, none of which moved the answer, a total or a time "
			      "(they affect other figures or nothing).\n", changes, changes > 1 ? "s" : "");
	else {
		if (mc)
			pp_sb_adds(out, "  - the Monte Carlo seed or draws changed: P10/P90 and 'cheapest in' "
					"move with them; totals do not.\n");
		if (why.buf)
			pp_sb_adds(out, why.buf);
		if (ans)
			pp_sb_addf(out, "  => the answer changed from %s to %s.\n", ra ? ra : "none",
				   rb ? rb : "none");
	}
	pp_sb_release(&why);
	pp_sb_release(&figs);
	pp_sb_release(&cat);
	kvs_free(&scen_paths);
	free_run(&A);
	free_run(&B);
	return 0;
}
