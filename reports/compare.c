/*
 * compare.c - `podplan report --compare A B` (history.h): what changed
 * from one recorded run to another in the inputs (scenario keys, the
 * figures used with their dates, catalog files, version, Monte Carlo seed
 * and draws, calibration profile) and in the results (the answer, each
 * option's total and time, the predicted step, warnings), and which input
 * changes explain which moved option.
 */
#include "histint.h"
#include "core/fmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct run_row {
	int64_t id;
	double created;
	char kind[16], scenario[128], hash[20], version[32], profile[128];
	cJSON *in, *res;
} run_row;

static void free_run(run_row *r)
{
	cJSON_Delete(r->in);
	cJSON_Delete(r->res);
	r->in = r->res = NULL;
}

/* Read run id; on failure nothing is left to free. */
static int load_run(pp_store *st, int64_t id, run_row *r, pp_err *err)
{
	sqlite3 *db = pp_store_db(st);
	sqlite3_stmt *q = NULL;
	int rc = 0;
	char sp[1024];
	memset(r, 0, sizeof(*r));
	if (sqlite3_prepare_v2(db, "SELECT id, created_at, kind, scenario_name, scenario_hash, "
				"podplan_version, calib_profile, inputs_json, results_json FROM runs "
				"WHERE id = ?", -1, &q, NULL) != SQLITE_OK)
		return pp_errf(err, PP_EDB, "%s: %s", pp_hist_store(st, sp, sizeof(sp)), sqlite3_errmsg(db));
	sqlite3_bind_int64(q, 1, id);
	int s = sqlite3_step(q);
	if (s == SQLITE_ROW) {
		r->id = sqlite3_column_int64(q, 0);
		r->created = sqlite3_column_double(q, 1);
		snprintf(r->kind, sizeof(r->kind), "%s", pp_hist_col_text(q, 2));
		snprintf(r->scenario, sizeof(r->scenario), "%s", pp_hist_col_text(q, 3));
		snprintf(r->hash, sizeof(r->hash), "%s", pp_hist_col_text(q, 4));
		snprintf(r->version, sizeof(r->version), "%s", pp_hist_col_text(q, 5));
		snprintf(r->profile, sizeof(r->profile), "%s", pp_hist_col_text(q, 6));
		r->in = cJSON_Parse(pp_hist_col_text(q, 7));
		r->res = cJSON_Parse(pp_hist_col_text(q, 8));
		if (!r->in || !r->res)
			rc = pp_errf(err, PP_EDB, "%s: run %lld has unreadable JSON", pp_hist_store(st, sp, sizeof(sp)),
				     (long long)id);
	} else if (s == SQLITE_DONE) {
		rc = pp_errf(err, PP_ENOTFOUND, "run %lld is not in %s ('podplan history' lists the runs)",
			     (long long)id, pp_hist_store(st, sp, sizeof(sp)));
	} else {
		rc = pp_errf(err, PP_EDB, "%s: %s", pp_hist_store(st, sp, sizeof(sp)), sqlite3_errmsg(db));
	}
	sqlite3_finalize(q);
	if (rc)
		free_run(r);
	return rc;
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
	for (const cJSON *f = figs ? figs->child : NULL; f; f = f->next) {
		const char *it = pp_json_get_str(f, "item", NULL);
		if (it && !strcmp(it, item))
			return f;
	}
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
	const char *prov = pp_json_get_str(opt, "provider", NULL);
	if (prov && *prov && strcmp(prov, "own") && strstr(item, prov))
		return true;
	return false;
}

/* What the sections share: the two runs and what the inputs section
 * found, which the results section uses to explain a moved option. */
typedef struct cmp {
	run_row A, B;
	const cJSON *sa, *sb;  /* the two scenario documents */
	const cJSON *fa, *fb;  /* the figures each used */
	kvs scen_paths;        /* scenario keys that changed */
	int changes;           /* input changes, all kinds */
	int nfig, ncat;        /* figures and catalog files that changed */
	bool ver, mc;          /* podplan version; Monte Carlo seed or draws */
	int nres;              /* result changes */
	pp_sb why;             /* a line per moved option */
} cmp;

static void header(const cmp *c, pp_sb *out)
{
	const run_row *A = &c->A, *B = &c->B;
	char ta[32], tb[32];
	pp_hist_fmt_time(A->created, ta, sizeof(ta));
	pp_hist_fmt_time(B->created, tb, sizeof(tb));
	pp_sb_addf(out, "Comparing run %lld with run %lld\n", (long long)A->id, (long long)B->id);
	pp_sb_addf(out, "  %lld: %s UTC, %s \"%s\", scenario hash %s, podplan %s\n", (long long)A->id, ta,
		   A->kind, A->scenario, A->hash, A->version);
	pp_sb_addf(out, "  %lld: %s UTC, %s \"%s\", scenario hash %s, podplan %s\n", (long long)B->id, tb,
		   B->kind, B->scenario, B->hash, B->version);
	if (strcmp(A->scenario, B->scenario))
		pp_sb_adds(out, "  (different scenarios: every difference below may come from that)\n");
}

static void scenario_changes(cmp *c, pp_sb *out)
{
	c->sa = cJSON_GetObjectItemCaseSensitive(c->A.in, "scenario");
	c->sb = cJSON_GetObjectItemCaseSensitive(c->B.in, "scenario");
	if (!strcmp(c->A.hash, c->B.hash)) {
		pp_sb_addf(out, "  scenario file: unchanged (hash %s)\n", c->A.hash);
		return;
	}
	pp_sb_addf(out, "  scenario file: changed (hash %s -> %s)\n", c->A.hash, c->B.hash);
	int nscen = diff_docs(c->sa, c->sb, "    ", out, &c->scen_paths);
	if (nscen == 0)
		pp_sb_adds(out, "    (only comments or formatting changed)\n");
	c->changes += nscen;
}

static void figure_changes(cmp *c, pp_sb *out)
{
	const cJSON *fa = c->fa = cJSON_GetObjectItemCaseSensitive(c->A.in, "figures");
	const cJSON *fb = c->fb = cJSON_GetObjectItemCaseSensitive(c->B.in, "figures");
	pp_sb figs = {0};
	int nfig = 0;
	for (const cJSON *f = fb ? fb->child : NULL; f; f = f->next) {
		const char *item = pp_json_get_str(f, "item", NULL);
		if (!item)
			continue;
		const cJSON *g = figure_named(fa, item);
		if (!g) {
			if (nfig++ < MAX_LINES)
				pp_sb_addf(&figs, "    + %s: %.6g %s (%s, added)\n", item,
					   pp_json_get_num(f, "value", NAN), pp_json_get_str(f, "unit", ""),
					   pp_json_get_str(f, "date", ""));
		} else if (!same_num(pp_json_get_num(f, "value", NAN), pp_json_get_num(g, "value", NAN)) ||
			   strcmp(pp_json_get_str(f, "date", ""), pp_json_get_str(g, "date", ""))) {
			if (nfig++ < MAX_LINES)
				pp_sb_addf(&figs, "    %s: %.6g -> %.6g %s (dated %s -> %s)\n", item,
					   pp_json_get_num(g, "value", NAN), pp_json_get_num(f, "value", NAN),
					   pp_json_get_str(f, "unit", ""), pp_json_get_str(g, "date", "?"),
					   pp_json_get_str(f, "date", "?"));
		}
	}
	for (const cJSON *g = fa ? fa->child : NULL; g; g = g->next) {
		const char *item = pp_json_get_str(g, "item", NULL);
		if (item && !figure_named(fb, item) && nfig++ < MAX_LINES)
			pp_sb_addf(&figs, "    - %s: %.6g %s (removed)\n", item,
				   pp_json_get_num(g, "value", NAN), pp_json_get_str(g, "unit", ""));
	}
	if (nfig) {
		pp_sb_addf(out, "  prices and other figures used: %d changed\n%s", nfig, figs.buf);
		if (nfig > MAX_LINES)
			pp_sb_addf(out, "    ... and %d more\n", nfig - MAX_LINES);
	} else {
		pp_sb_adds(out, "  prices and other figures used: unchanged\n");
	}
	pp_sb_release(&figs);
	c->nfig = nfig;
	c->changes += nfig;
}

static void catalog_changes(cmp *c, pp_sb *out)
{
	const cJSON *ca = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(c->A.in, "catalog"), "files");
	const cJSON *cb = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(c->B.in, "catalog"), "files");
	pp_sb cat = {0};
	int ncat = 0;
	for (const cJSON *f = cb ? cb->child : NULL; f; f = f->next) {
		const char *h = pp_json_get_str(ca, f->string, NULL);
		if (!h || strcmp(h, cJSON_IsString(f) ? f->valuestring : "")) {
			pp_sb_addf(&cat, "%s%s", ncat ? ", " : "", f->string);
			ncat++;
		}
	}
	if (ncat)
		pp_sb_addf(out, "  catalog files changed: %s\n", cat.buf);
	else
		pp_sb_adds(out, "  catalog files (models/*.json): unchanged\n");
	pp_sb_release(&cat);
	c->ncat = ncat;
	c->changes += ncat;
}

static void input_changes(cmp *c, pp_sb *out)
{
	const run_row *A = &c->A, *B = &c->B;
	pp_sb_adds(out, "\nInputs\n");
	scenario_changes(c, out);
	figure_changes(c, out);
	catalog_changes(c, out);
	c->ver = strcmp(A->version, B->version) != 0;
	pp_sb_addf(out, "  podplan version: %s%s%s\n", A->version, c->ver ? " -> " : " (same)",
		   c->ver ? B->version : "");
	c->changes += c->ver;
	double seed_a = pp_json_get_num(A->in, "seed", NAN);
	double seed_b = pp_json_get_num(B->in, "seed", NAN);
	double draws_a = pp_json_get_num(A->in, "draws", NAN);
	double draws_b = pp_json_get_num(B->in, "draws", NAN);
	c->mc = !same_num(seed_a, seed_b) || !same_num(draws_a, draws_b);
	if (isfinite(seed_a) || isfinite(seed_b))
		pp_sb_addf(out, "  Monte Carlo: seed %.0f -> %.0f, draws %.0f -> %.0f%s\n", seed_a, seed_b,
			   draws_a, draws_b, c->mc ? "" : " (same)");
	c->changes += c->mc;
	bool prof = strcmp(A->profile, B->profile) != 0;
	pp_sb_addf(out, "  calibration profile: %s%s%s\n", *A->profile ? A->profile : "none",
		   prof ? " -> " : " (same)", prof ? (*B->profile ? B->profile : "none") : "");
	c->changes += prof;
}

/* Why option o (named name; p its run-A self, NULL when added) moved: a
 * line of c->why. */
static void option_why(cmp *c, const cJSON *o, const char *name, const cJSON *p)
{
	pp_sb *why = &c->why;
	pp_sb_addf(why, "  - %s: ", name ? name : "?");
	int reasons = 0;
	if (!p) {
		pp_sb_adds(why, "added to the scenario's options");
		reasons++;
	}
	/* its own settings in the scenario (costs.options[i] with its name) */
	int idx = 0;
	const cJSON *sopts = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(c->sb, "costs"), "options");
	for (const cJSON *so = sopts ? sopts->child : NULL; so; so = so->next, idx++) {
		const char *sname = pp_json_get_str(so, "name", NULL);
		if (sname && name && !strcmp(sname, name))
			break;
	}
	char pre[64];
	snprintf(pre, sizeof(pre), "costs.options[%d]", idx);
	int own = 0, global = 0;
	const char *first_global = NULL;
	for (size_t k = 0; k < c->scen_paths.n; k++) {
		const char *sp = c->scen_paths.v[k].path;
		if (!strncmp(sp, pre, strlen(pre)) && (sp[strlen(pre)] == '.' || sp[strlen(pre)] == '\0'))
			own++;
		else if (strncmp(sp, "costs.options[", 14)) {
			global++;
			if (!first_global)
				first_global = sp;
		}
	}
	if (own)
		pp_sb_addf(why, "%sits own settings changed (%d key%s under %s)", reasons++ ? "; " : "",
			   own, own > 1 ? "s" : "", pre);
	if (global)
		pp_sb_addf(why, "%sscenario-wide inputs changed (%d, e.g. %s)", reasons++ ? "; " : "",
			   global, first_global);
	int fown = 0;
	for (const cJSON *fg = c->fb ? c->fb->child : NULL; fg; fg = fg->next) {
		const char *item = pp_json_get_str(fg, "item", NULL);
		const cJSON *g = item ? figure_named(c->fa, item) : NULL;
		double now = pp_json_get_num(fg, "value", NAN);
		if (!item || !figure_of(item, o) ||
		    (g && same_num(now, pp_json_get_num(g, "value", NAN))))
			continue;
		if (g)
			pp_sb_addf(why, "%s%s%s %.6g -> %.6g", reasons ? "; " : "", fown ? "" : "its price ",
				   item, pp_json_get_num(g, "value", NAN), now);
		else
			pp_sb_addf(why, "%s%s%s now %.6g (new)", reasons ? "; " : "", fown ? "" : "its price ",
				   item, now);
		fown++;
		reasons++;
	}
	if (c->nfig > fown && reasons == 0)
		pp_sb_addf(why, "%d shared figures changed (see Inputs)", c->nfig - fown), reasons++;
	if (c->ncat && reasons == 0)
		pp_sb_adds(why, "catalog data changed (hardware, prices or TCO figures)"), reasons++;
	if (c->ver && reasons == 0)
		pp_sb_addf(why, "the engine changed (podplan %s -> %s)", c->A.version, c->B.version),
			reasons++;
	if (reasons == 0)
		pp_sb_adds(why, "no recorded input explains it (same inputs, same version: please report "
				"this as a bug)");
	pp_sb_adds(why, "\n");
}

static void option_changes(cmp *c, pp_sb *out)
{
	const cJSON *oa = cJSON_GetObjectItemCaseSensitive(c->A.res, "options");
	const cJSON *ob = cJSON_GetObjectItemCaseSensitive(c->B.res, "options");
	if (!oa && !ob)
		return;
	char a[48], b[48];
	pp_sb_addf(out, "  %-26s %12s %12s %8s %13s %13s\n", "option", "total before", "total after",
		   "change", "time before", "time after");
	for (const cJSON *o = ob ? ob->child : NULL; o; o = o->next) {
		const char *name = pp_json_get_str(o, "name", NULL);
		const cJSON *p = pp_hist_option(c->A.res, name);
		double t0 = pp_json_get_num(p, "usd_total", NAN), t1 = pp_json_get_num(o, "usd_total", NAN);
		double d0 = pp_json_get_num(p, "time_to_train_s", NAN);
		double d1 = pp_json_get_num(o, "time_to_train_s", NAN);
		double r0 = rel(t0, t1);
		char ch[24], e[32], f[32];
		if (!p)
			snprintf(ch, sizeof(ch), "added");
		else if (isfinite(r0))
			snprintf(ch, sizeof(ch), "%+.1f%%", 100 * r0);
		else
			snprintf(ch, sizeof(ch), "-");
		pp_sb_addf(out, "  %-26.26s %12s %12s %8s %13s %13s\n", name ? name : "?",
			   p ? pp_fmt_usd(t0, a, sizeof(a)) : "-", pp_fmt_usd(t1, b, sizeof(b)), ch,
			   p ? pp_fmt_span(d0, e, sizeof(e)) : "-", pp_fmt_span(d1, f, sizeof(f)));
		if (p && same_num(t0, t1) && same_num(d0, d1))
			continue;
		c->nres++;
		option_why(c, o, name, p);
	}
	for (const cJSON *p = oa ? oa->child : NULL; p; p = p->next)
		if (!pp_hist_option(c->B.res, pp_json_get_str(p, "name", NULL))) {
			pp_sb_addf(out, "  %-26.26s %12s %12s %8s\n", pp_json_get_str(p, "name", "?"),
				   pp_fmt_usd(pp_json_get_num(p, "usd_total", NAN), a, sizeof(a)), "-",
				   "removed");
			c->nres++;
		}
}

static void predict_changes(cmp *c, pp_sb *out)
{
	const cJSON *pa = cJSON_GetObjectItemCaseSensitive(c->A.res, "predict");
	const cJSON *pb = cJSON_GetObjectItemCaseSensitive(c->B.res, "predict");
	if (!pa && !pb)
		return;
	char a[48], b[48], e[32], f[32];
	pp_sb_addf(out, "  step time: %s -> %s; time to train: %s -> %s\n",
		   pp_fmt_span(pp_json_get_num(pa, "step_time_s", NAN), a, sizeof(a)),
		   pp_fmt_span(pp_json_get_num(pb, "step_time_s", NAN), b, sizeof(b)),
		   pp_fmt_span(pp_json_get_num(pa, "time_to_train_s", NAN), e, sizeof(e)),
		   pp_fmt_span(pp_json_get_num(pb, "time_to_train_s", NAN), f, sizeof(f)));
	if (!same_num(pp_json_get_num(pa, "step_time_s", NAN), pp_json_get_num(pb, "step_time_s", NAN)))
		c->nres++;
}

static void warning_changes(cmp *c, pp_sb *out)
{
	const cJSON *wa = cJSON_GetObjectItemCaseSensitive(c->A.res, "warnings");
	const cJSON *wb = cJSON_GetObjectItemCaseSensitive(c->B.res, "warnings");
	for (int pass = 0; pass < 2; pass++) {
		const cJSON *from = pass ? wa : wb, *other = pass ? wb : wa;
		for (const cJSON *w = from ? from->child : NULL; w; w = w->next) {
			bool found = false;
			for (const cJSON *v = other ? other->child : NULL; v; v = v->next)
				if (cJSON_IsString(w) && cJSON_IsString(v) && !strcmp(w->valuestring, v->valuestring))
					found = true;
			if (!found && cJSON_IsString(w)) {
				pp_sb_addf(out, "  %s warning: %s\n", pass ? "- gone" : "+ new", w->valuestring);
				c->nres++;
			}
		}
	}
}

int pp_history_compare(pp_store *st, int64_t ida, int64_t idb, pp_sb *out, pp_err *err)
{
	cmp c;
	memset(&c, 0, sizeof(c));
	int rc;
	size_t start = out->len;
	if ((rc = load_run(st, ida, &c.A, err)))
		return rc;
	if ((rc = load_run(st, idb, &c.B, err))) {
		free_run(&c.A);
		return rc;
	}
	header(&c, out);
	input_changes(&c, out);

	pp_sb_adds(out, "\nResults\n");
	const char *ra = pp_json_get_str(c.A.res, "recommended", NULL);
	const char *rb = pp_json_get_str(c.B.res, "recommended", NULL);
	bool ans = (ra || rb) && (!ra || !rb || strcmp(ra, rb));
	if (ans)
		pp_sb_addf(out, "  answer: %s -> %s  (CHANGED)\n", ra ? ra : "none", rb ? rb : "none");
	else if (ra)
		pp_sb_addf(out, "  answer: %s (same)\n", ra);
	c.nres = ans;
	option_changes(&c, out);
	predict_changes(&c, out);
	warning_changes(&c, out);

	pp_sb_adds(out, "\nWhy\n");
	if (c.changes == 0 && c.nres == 0)
		pp_sb_adds(out, "  Nothing in the inputs changed and the results are identical: the run "
				"is reproducible.\n");
	else if (c.changes == 0)
		pp_sb_adds(out, "  No recorded input changed, yet the results differ: a non-recorded input "
				"(an environment variable, the data directory) or a bug; please report it.\n");
	else if (c.nres == 0)
		pp_sb_addf(out, "  %d input change%s, none of which moved the answer, a total or a time "
			      "(they affect other figures or nothing).\n", c.changes, c.changes > 1 ? "s" : "");
	else {
		if (c.mc)
			pp_sb_adds(out, "  - the Monte Carlo seed or draws changed: P10/P90 and 'cheapest in' "
					"move with them; totals do not.\n");
		if (c.why.buf)
			pp_sb_adds(out, c.why.buf);
		if (ans)
			pp_sb_addf(out, "  => the answer changed from %s to %s.\n", ra ? ra : "none",
				   rb ? rb : "none");
	}
	pp_sb_release(&c.why);
	kvs_free(&c.scen_paths);
	free_run(&c.A);
	free_run(&c.B);
	pp_sb_tty_from(out, start); /* for a terminal: stored names escaped */
	return 0;
}
