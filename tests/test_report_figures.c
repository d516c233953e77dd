/*
 * test_report_figures.c - one figure everywhere (issue 17): every shipped
 * scenario's report is written to disk, and each figure index.html shows
 * - the answer's key figures, the options table (capex and GPUs priced in
 * the label, replicas, time to result and lead time, total, P10-P90, the lead over
 * the cheapest, $ per 1M tokens, P(cheapest), goodput), build versus rent
 * (capex, resale, NPV, IRR, payback, crossover, break-even), the per-option
 * step table (GPUs, step time, tokens/s, MFU, goodput, GPU-hours), and for
 * an inference work the serving section (the workload's prompts, mean
 * lengths and busiest hour; each option's replica, its max rate at the SLO,
 * tokens/s in and out, TTFT and TPOT, KV tokens and concurrency, replicas
 * needed in copies of its cluster, $ per 1M input and output tokens; a
 * throughput-latency line per simulated GPU) - is read back from the
 * page's text and checked against the CSV files the same report wrote
 * (options.csv, step_time.csv, finance.csv, serving.csv,
 * serving_workload.csv, serving_curve.csv) and against summary.md's
 * tables, which are parsed the same way. Nothing is compared
 * with numbers copied from the program: the CSVs carry ten significant
 * digits, the page rounds, and a figure matches when the CSV value lies
 * within half a unit of the page's last digit.
 *
 * Regressions it holds: the board report's "8 x h100-sxm (1 nodes),
 * $312.7k capex" beside 3 replicas and a $644.1k finance capex; the 70B
 * options table's $38.56M capex beside $39.72M under build vs rent;
 * summary.md's MFU column holding the pipeline bubble (284.7 ms).
 */
#include "harness.h"
#include "report.h"
#include "testutil.h"
#include "textutil.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading figures as people read them ---- */

/* A figure read from text: its value and half a unit of its last digit. */
typedef struct fig {
	bool ok;
	double v, tol;
} fig;

/* The number at *p (digits, one '.', thousands commas); advances *p. */
static bool number(const char **p, double *v, double *unit_of_last)
{
	const char *s = *p;
	char buf[64];
	size_t n = 0;
	int dec = -1;
	if (!isdigit((unsigned char)*s))
		return false;
	for (; *s && n + 1 < sizeof(buf); s++) {
		if (isdigit((unsigned char)*s)) {
			buf[n++] = *s;
			if (dec >= 0)
				dec++;
		} else if (*s == '.' && dec < 0 && isdigit((unsigned char)s[1])) {
			buf[n++] = '.';
			dec = 0;
		} else if (*s == ',' && isdigit((unsigned char)s[1])) {
			continue;
		} else {
			break;
		}
	}
	buf[n] = '\0';
	*v = strtod(buf, NULL);
	*unit_of_last = pow(10.0, dec > 0 ? -dec : 0);
	*p = s;
	return true;
}

/* "$2.23M", "-$9.17M", "+$1.20M", "$1177", "$0.50", "$312.7k", "$1.2B". */
static fig money_at(const char **p)
{
	fig f = {0};
	const char *s = *p;
	while (*s && *s != '$')
		s++;
	if (!*s)
		return f;
	double sign = (s > *p && s[-1] == '-') ? -1 : 1;
	s++;
	double v, u;
	if (!number(&s, &v, &u))
		return f;
	double mult = *s == 'k' ? 1e3 : *s == 'M' ? 1e6 : *s == 'B' ? 1e9 : 1;
	if (mult > 1)
		s++;
	f.ok = true;
	f.v = sign * v * mult;
	f.tol = 0.5 * u * mult;
	*p = s;
	return f;
}

static fig money(const char *s)
{
	return money_at(&s);
}

/* "98.3%", "-51.9%" as a fraction. */
static fig percent(const char *s)
{
	fig f = {0};
	while (*s && !isdigit((unsigned char)*s) && *s != '-')
		s++;
	double sign = 1;
	if (*s == '-') {
		sign = -1;
		s++;
	}
	double v, u;
	if (!number(&s, &v, &u) || *s != '%')
		return f;
	f.ok = true;
	f.v = sign * v / 100;
	f.tol = 0.5 * u / 100;
	return f;
}

/* "22.5 days", "3.7 months", "80.4 min", "4.9 h", "4.01 s", "284.7 ms",
 * "1.1 us" in seconds (a month is 365.25/12 days, as the page says). */
static fig duration(const char *s)
{
	fig f = {0};
	while (*s && !isdigit((unsigned char)*s))
		s++;
	double v, u;
	if (!number(&s, &v, &u))
		return f;
	while (*s == ' ')
		s++;
	static const struct {
		const char *unit;
		double s;
	} units[] = {{"months", 365.25 / 12 * 86400}, {"days", 86400}, {"min", 60},
		     {"ms", 1e-3}, {"us", 1e-6}, {"h", 3600}, {"s", 1}};
	for (size_t i = 0; i < PP_ARRAY_LEN(units); i++)
		if (!strncmp(s, units[i].unit, strlen(units[i].unit))) {
			f.ok = true;
			f.v = v * units[i].s;
			f.tol = 0.5 * u * units[i].s;
			return f;
		}
	return f;
}

/* "1,045,610" and the like */
static fig count(const char *s)
{
	fig f = {0};
	while (*s && !isdigit((unsigned char)*s))
		s++;
	double v, u;
	if (!number(&s, &v, &u))
		return f;
	f.ok = true;
	f.v = v;
	f.tol = 0.5 * u;
	return f;
}

/* Whether a figure shown equals the CSV's value (NAN: the page shows
 * "-"). */
static bool same(fig f, const char *shown, double want)
{
	if (isnan(want))
		return !f.ok && strchr(shown, '-') != NULL;
	return f.ok && fabs(f.v - want) <= f.tol * 1.0001 + 1e-9 * fabs(want);
}

static int checked; /* figures compared, all scenarios */

#define SAME(f, shown, want, what, who)                                                          \
	do {                                                                                       \
		checked++;                                                                         \
		if (!same((f), (shown), (want))) {                                                 \
			pp_t_diag("%s, %s: the page shows \"%s\", the CSV has %.10g", (who),        \
				  (what), (shown), (double)(want));                                \
			CHECK(!"a figure shown equals the CSV's");                                 \
		}                                                                                  \
	} while (0)

/* ---- pulling text out of the page and the summary ---- */

/* The text of an HTML fragment: tags dropped, the five entities decoded,
 * spaces squeezed. Heap string. */
static char *text_of(const char *h, size_t n)
{
	char *o = malloc(n + 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (h[i] == '<') {
			while (i < n && h[i] != '>')
				i++;
			if (k && o[k - 1] != ' ')
				o[k++] = ' ';
			continue;
		}
		static const struct {
			const char *e;
			char c;
		} ents[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&#39;", '\''}};
		bool ent = false;
		for (size_t e = 0; e < PP_ARRAY_LEN(ents) && !ent; e++)
			if (!strncmp(h + i, ents[e].e, strlen(ents[e].e))) {
				o[k++] = ents[e].c;
				i += strlen(ents[e].e) - 1;
				ent = true;
			}
		if (!ent && !(h[i] == ' ' && k && o[k - 1] == ' '))
			o[k++] = h[i];
	}
	while (k && o[k - 1] == ' ')
		k--;
	o[k] = '\0';
	char *s = o;
	while (*s == ' ')
		s++;
	memmove(o, s, strlen(s) + 1);
	return o;
}

#define MAXC 16
typedef struct row {
	int n;
	char *cell[MAXC]; /* text of each cell */
	char *raw[MAXC];  /* its HTML */
} row;

static void row_free(row *r)
{
	for (int i = 0; i < r->n; i++) {
		free(r->cell[i]);
		free(r->raw[i]);
	}
	r->n = 0;
}

/* The body rows of the first <table> at or after from; *n rows (at most
 * max). */
static int table_rows(const char *from, row *rows, int max)
{
	const char *t = strstr(from, "<tbody>");
	const char *end = t ? strstr(t, "</tbody>") : NULL;
	int n = 0;
	for (const char *p = t; p && end && n < max;) {
		const char *tr = strstr(p, "<tr");
		if (!tr || tr > end)
			break;
		const char *tre = strstr(tr, "</tr>");
		row *r = &rows[n++];
		memset(r, 0, sizeof(*r));
		for (const char *c = tr; (c = strstr(c, "<td")) && c < tre && r->n < MAXC;) {
			const char *body = strchr(c, '>') + 1;
			const char *ce = strstr(body, "</td>");
			r->raw[r->n] = strndup(body, (size_t)(ce - body));
			r->cell[r->n] = text_of(body, (size_t)(ce - body));
			r->n++;
			c = ce;
		}
		p = tre;
	}
	return n;
}

/* The cells of a Markdown table row, unescaped (backslash escapes). */
static int md_cells(const char *line, char cells[][256], int max)
{
	int n = 0;
	const char *p = strchr(line, '|');
	while (p && *p == '|' && n < max) {
		p++;
		char *o = cells[n];
		size_t k = 0;
		while (*p && *p != '\n' && !(*p == '|' && p[-1] != '\\')) {
			if (*p == '\\' && p[1])
				p++;
			if (k + 1 < 256)
				o[k++] = *p;
			p++;
		}
		while (k && o[k - 1] == ' ')
			k--;
		o[k] = '\0';
		char *s = o;
		while (*s == ' ')
			s++;
		memmove(o, s, strlen(s) + 1);
		n++;
		if (*p != '|')
			break;
		if (p[1] == '\n' || !p[1])
			break;
	}
	return n;
}

/* The line of the Markdown table under heading h whose first cell is name
 * (markup stripped), or NULL. */
static const char *md_row(const char *md, const char *h, const char *name, char cells[][256],
			  int *n)
{
	const char *t = strstr(md, h);
	for (const char *l = t; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (l != t && !strncmp(l, "## ", 3))
			break;
		if (*l != '|')
			continue;
		*n = md_cells(l, cells, MAXC);
		char first[256];
		snprintf(first, sizeof(first), "%s", cells[0]);
		char *star = strstr(first, "**");
		if (star == first) {
			memmove(first, first + 2, strlen(first + 2) + 1);
			char *e = strstr(first, "**");
			if (e)
				*e = '\0';
		}
		char *paren = strstr(first, " (");
		if (paren)
			*paren = '\0';
		if (!strcmp(first, name))
			return l;
	}
	return NULL;
}

/* ---- the CSV files ---- */

typedef struct csvf {
	char *body;
} csvf;

/* Row of the CSV whose column col equals key; 0 when none. */
static int csv_row(const char *csv, const char *col, const char *key)
{
	int c = tu_csv_col(csv, col);
	char b[256];
	for (int r = 1; c >= 0; r++) {
		const char *v = tu_csv_field(csv, r, c, b, sizeof(b));
		if (!*v && !strstr(csv, "\r\n"))
			return 0;
		if (!strcmp(v, key))
			return r;
		/* past the last record */
		int fields[1];
		if (r >= tu_csv_shape(csv, fields, 1) - 1)
			return 0;
	}
	return 0;
}

/* Column name of row r as a number, NAN when empty. */
static double csv_num(const char *csv, int r, const char *name)
{
	char b[128];
	int c = tu_csv_col(csv, name);
	if (c < 0 || r <= 0)
		return NAN;
	const char *v = tu_csv_field(csv, r, c, b, sizeof(b));
	return *v ? strtod(v, NULL) : NAN;
}

static const char *csv_text(const char *csv, int r, const char *name, char *b, size_t n)
{
	int c = tu_csv_col(csv, name);
	return c < 0 || r <= 0 ? "" : tu_csv_field(csv, r, c, b, n);
}

/* ---- one scenario ---- */

/* GPUs a label or a GPUs cell counts: "3 x 8 x NVIDIA ..." = 24, "1024 x
 * ..." = 1024; 0 when it names none. */
static int gpus_named(const char *s)
{
	while (*s && !isdigit((unsigned char)*s))
		s++;
	int a = atoi(s);
	while (isdigit((unsigned char)*s))
		s++;
	if (strncmp(s, " x ", 3))
		return 0;
	s += 3;
	if (isdigit((unsigned char)*s)) {
		int b = atoi(s);
		const char *t = s;
		while (isdigit((unsigned char)*t))
			t++;
		if (!strncmp(t, " x ", 3))
			return a * b;
	}
	return a;
}

/* Copies of the cluster a label or GPUs cell counts: "3 x 8 x ..." = 3,
 * "1024 x ..." = 1. */
static int replicas_named(const char *s)
{
	while (*s && !isdigit((unsigned char)*s))
		s++;
	int a = atoi(s);
	while (isdigit((unsigned char)*s))
		s++;
	if (strncmp(s, " x ", 3) || !isdigit((unsigned char)s[3]))
		return 1;
	s += 3;
	while (isdigit((unsigned char)*s))
		s++;
	return strncmp(s, " x ", 3) ? 1 : a;
}

static void check_options(const char *html, const char *md, const char *opts, const char *who)
{
	row rows[64];
	int n = table_rows(strstr(html, "<table class=\"options\">"), rows, 64);
	int ncsv = 0, fields[1];
	ncsv = tu_csv_shape(opts, fields, 1) - 1;
	CHECK(n == ncsv);
	bool any_time = strstr(strstr(html, "<table class=\"options\">"), "Time to result") != NULL &&
			tu_pos(strstr(html, "<table class=\"options\">"), "Time to result") <
				tu_pos(strstr(html, "<table class=\"options\">"), "</thead>");
	double best = NAN;
	int rrec = csv_row(opts, "recommended", "true");
	if (rrec > 0)
		best = csv_num(opts, rrec, "usd_total");
	for (int i = 0; i < n; i++) {
		row *r = &rows[i];
		char name[96], b[256], what[200];
		const char *br = strstr(r->raw[0], "<br>");
		char *nm = text_of(r->raw[0], br ? (size_t)(br - r->raw[0]) : strlen(r->raw[0]));
		snprintf(name, sizeof(name), "%s", nm);
		free(nm);
		int cr = csv_row(opts, "option", name);
		CHECK(cr > 0);
		if (cr <= 0) {
			pp_t_diag("%s: option \"%s\" of the page is not in options.csv", who, name);
			continue;
		}
		snprintf(what, sizeof(what), "%s option %s", who, name);
		if (!strcmp(csv_text(opts, cr, "feasible", b, sizeof(b)), "false")) {
			CHECK(r->n == 2 && strstr(r->cell[1], "cannot do the work"));
			continue;
		}
		int k = 1;
		/* the label: every GPU priced, the capex of the finance table */
		const char *label = r->cell[k++];
		int g = gpus_named(label);
		if (strcmp(csv_text(opts, cr, "kind", b, sizeof(b)), "api")) {
			checked++;
			if (g != (int)csv_num(opts, cr, "gpus_priced")) {
				pp_t_diag("%s: label \"%s\" counts %d GPUs, options.csv gpus_priced %g", what,
					  label, g, csv_num(opts, cr, "gpus_priced"));
				CHECK(!"the label counts the GPUs priced");
			}
			double reps = csv_num(opts, cr, "replicas");
			checked++;
			CHECK(replicas_named(label) == (int)(reps > 1 ? reps : 1));
		}
		const char *cap = strstr(label, " capex");
		if (cap) {
			const char *d = cap;
			while (d > label && *d != '$')
				d--;
			char shown[48];
			snprintf(shown, sizeof(shown), "%.*s", (int)(cap - d), d);
			SAME(money(shown), shown, csv_num(opts, cr, "capex_usd"), "capex in the label", what);
		}
		double lead = csv_num(opts, cr, "lead_time_s");
		if (any_time) {
			double t = csv_num(opts, cr, "time_to_train_s") + (isnan(lead) ? 0 : lead);
			SAME(duration(r->cell[k]), r->cell[k], t, "time to result", what);
			const char *incl = strstr(r->cell[k], "incl. ");
			if (incl)
				SAME(duration(incl), incl, lead, "lead time", what);
			k++;
		}
		SAME(money(r->cell[k]), r->cell[k], csv_num(opts, cr, "usd_total"), "total", what);
		k++;
		const char *rg = r->cell[k];
		const char *p = rg;
		fig lo = money_at(&p), hi = money_at(&p);
		SAME(lo, rg, csv_num(opts, cr, "p10_usd"), "P10", what);
		SAME(hi, rg, csv_num(opts, cr, "p90_usd"), "P90", what);
		k++;
		if (cr != rrec && isfinite(best)) {
			SAME(money(r->cell[k]), r->cell[k], csv_num(opts, cr, "usd_total") - best,
			     "lead over the recommended", what);
		}
		k++;
		SAME(money(r->cell[k]), r->cell[k], csv_num(opts, cr, "usd_per_million_tokens"),
		     "$ per 1M tokens", what);
		k++;
		SAME(percent(r->cell[k]), r->cell[k], csv_num(opts, cr, "p_cheapest"), "cheapest in", what);
		k++;
		SAME(percent(r->cell[k]), r->cell[k], csv_num(opts, cr, "goodput"), "goodput", what);
		/* summary.md's row: the same figures */
		char cells[MAXC][256];
		int nc = 0;
		const char *line = md_row(md, "## Options", name, cells, &nc);
		CHECK(line != NULL && nc >= 8);
		if (!line || nc < 8)
			continue;
		snprintf(what, sizeof(what), "%s summary.md option %s", who, name);
		CHECK(!strcmp(cells[1], label));
		double t = csv_num(opts, cr, "time_to_train_s") + (isnan(lead) ? 0 : lead);
		SAME(duration(cells[2]), cells[2], t, "time to result", what);
		SAME(money(cells[3]), cells[3], csv_num(opts, cr, "usd_total"), "total", what);
		p = cells[4];
		lo = money_at(&p);
		hi = money_at(&p);
		SAME(lo, cells[4], csv_num(opts, cr, "p10_usd"), "P10", what);
		SAME(hi, cells[4], csv_num(opts, cr, "p90_usd"), "P90", what);
		CHECK(!strcmp(cells[4], rg)); /* one formatter for a range */
		SAME(money(cells[5]), cells[5], csv_num(opts, cr, "usd_per_million_tokens"), "$/1M", what);
		SAME(percent(cells[6]), cells[6], csv_num(opts, cr, "p_cheapest"), "cheapest in", what);
		SAME(percent(cells[7]), cells[7], csv_num(opts, cr, "goodput"), "goodput", what);
	}
	for (int i = 0; i < n; i++)
		row_free(&rows[i]);
}

/* The answer's key figures (the kpi boxes) against the recommended row. */
static void check_answer(const char *html, const char *opts, const char *who)
{
	int rrec = csv_row(opts, "recommended", "true");
	if (rrec <= 0) {
		CHECK_CONTAINS(tu_after(html, "<section id=\"answer\""), "No option can do the work");
		return;
	}
	const char *a = strstr(html, "<div class=\"kpis\">");
	const char *e = a ? strstr(a, "<p class=\"why") : NULL;
	CHECK(a && e);
	if (!a || !e)
		return;
	char what[160];
	snprintf(what, sizeof(what), "%s answer", who);
	for (const char *k = a; (k = strstr(k, "<div class=\"kpi\">")) && k < e;) {
		const char *ve = strstr(k, "</div>");
		char *t = text_of(k, (size_t)(ve - k));
		char *v = strstr(t, " ");
		k = ve;
		if (!strncmp(t, "Total cost ", 11)) {
			SAME(money(t + 11), t, csv_num(opts, rrec, "usd_total"), "total", what);
			const char *rg = strstr(t, "P10-P90");
			if (rg) {
				const char *p = rg;
				fig lo = money_at(&p), hi = money_at(&p);
				SAME(lo, rg, csv_num(opts, rrec, "p10_usd"), "P10", what);
				SAME(hi, rg, csv_num(opts, rrec, "p90_usd"), "P90", what);
			}
		} else if (!strncmp(t, "Per 1M tokens ", 14)) {
			SAME(money(t + 14), t, csv_num(opts, rrec, "usd_per_million_tokens"), "$/1M", what);
		} else if (!strncmp(t, "Time to result ", 15)) {
			double lead = csv_num(opts, rrec, "lead_time_s");
			SAME(duration(t + 15), t,
			     csv_num(opts, rrec, "time_to_train_s") + (isnan(lead) ? 0 : lead),
			     "time to result", what);
		} else if (!strncmp(t, "Cheapest in ", 12)) {
			SAME(percent(t + 12), t, csv_num(opts, rrec, "p_cheapest"), "cheapest in", what);
		}
		(void)v;
		free(t);
	}
}

static void check_finance(const char *html, const char *md, const char *fin, const char *opts,
			  const char *who)
{
	const char *sec = strstr(html, "<section id=\"finance\">");
	CHECK(sec != NULL);
	if (!sec || !strstr(sec, "<table>") || strstr(sec, "<table>") > strstr(sec, "</section>"))
		return; /* no owned option compared */
	row rows[32];
	int n = table_rows(sec, rows, 32), fields[1];
	CHECK(n == tu_csv_shape(fin, fields, 1) - 1);
	for (int i = 0; i < n; i++) {
		row *r = &rows[i];
		char what[160];
		int cr = csv_row(fin, "option", r->cell[0]);
		CHECK(cr > 0 && r->n == 9);
		if (cr <= 0 || r->n != 9)
			continue;
		snprintf(what, sizeof(what), "%s finance %s", who, r->cell[0]);
		char b[96];
		CHECK(!strcmp(r->cell[1], csv_text(fin, cr, "versus", b, sizeof(b))));
		SAME(money(r->cell[2]), r->cell[2], csv_num(fin, cr, "capex_usd"), "capex", what);
		/* one capex: the option's (its label's) is the finance table's */
		int co = csv_row(opts, "option", r->cell[0]);
		CHECK(co > 0);
		CHECK_NEAR(csv_num(opts, co, "capex_usd"), csv_num(fin, cr, "capex_usd"), 1e-9);
		SAME(money(r->cell[3]), r->cell[3], csv_num(fin, cr, "residual_usd"), "resale", what);
		SAME(money(r->cell[4]), r->cell[4], csv_num(fin, cr, "npv_usd"), "NPV", what);
		if (strcmp(r->cell[5], "none"))
			SAME(percent(r->cell[5]), r->cell[5], csv_num(fin, cr, "irr"), "IRR", what);
		else
			CHECK(isnan(csv_num(fin, cr, "irr")));
		if (strcmp(r->cell[6], "never")) {
			fig f = count(r->cell[6]);
			SAME(f, r->cell[6], csv_num(fin, cr, "payback_months"), "payback months", what);
		}
		if (strcmp(r->cell[7], "never"))
			SAME(count(r->cell[7]), r->cell[7], csv_num(fin, cr, "crossover_month"),
			     "crossover month", what);
		if (strcmp(r->cell[8], "above 100%"))
			SAME(percent(r->cell[8]), r->cell[8], csv_num(fin, cr, "breakeven_utilization"),
			     "break-even", what);
		/* summary.md's build-versus-rent row */
		char cells[MAXC][256];
		int nc = 0;
		const char *line = md_row(md, "## Build versus rent", r->cell[0], cells, &nc);
		CHECK(line != NULL && nc >= 8);
		if (!line || nc < 8)
			continue;
		CHECK(!strcmp(cells[2], r->cell[2])); /* the same capex, as shown */
		CHECK(!strcmp(cells[3], r->cell[4])); /* NPV */
		SAME(money(cells[2]), cells[2], csv_num(fin, cr, "capex_usd"), "summary.md capex", what);
	}
	for (int i = 0; i < n; i++)
		row_free(&rows[i]);
}

static void check_engine(const char *html, const char *md, const char *opts, const char *step,
			 const char *who)
{
	const char *sec = strstr(html, "<section id=\"engine\">");
	CHECK(sec != NULL);
	if (!sec)
		return;
	row rows[64];
	int n = table_rows(sec, rows, 64);
	for (int i = 0; i < n; i++) {
		row *r = &rows[i];
		char what[160];
		int cs = csv_row(step, "option", r->cell[0]), co = csv_row(opts, "option", r->cell[0]);
		CHECK(cs > 0 && co > 0);
		if (cs <= 0 || co <= 0 || r->n < 10)
			continue; /* an API row: nothing simulated */
		snprintf(what, sizeof(what), "%s step table %s", who, r->cell[0]);
		checked++;
		CHECK(gpus_named(r->cell[1]) == (int)csv_num(opts, co, "gpus_priced"));
		double reps = csv_num(opts, co, "replicas");
		CHECK(replicas_named(r->cell[1]) == (int)(reps > 1 ? reps : 1));
		SAME(duration(r->cell[3]), r->cell[3], csv_num(step, cs, "step_time_s"), "step time", what);
		SAME(count(r->cell[4]), r->cell[4], csv_num(step, cs, "tokens_per_s"), "tokens/s", what);
		SAME(percent(r->cell[5]), r->cell[5], csv_num(step, cs, "mfu"), "MFU", what);
		SAME(percent(r->cell[7]), r->cell[7], csv_num(step, cs, "goodput"), "goodput", what);
		SAME(count(r->cell[9]), r->cell[9], csv_num(opts, co, "gpu_hours_used"), "GPU-hours", what);
		/* summary.md: step time and MFU (the MFU column held the bubble) */
		char cells[MAXC][256];
		int nc = 0;
		const char *line = md_row(md, "## Step time per option", r->cell[0], cells, &nc);
		if (!isfinite(csv_num(step, cs, "step_time_s")))
			continue;
		CHECK(line != NULL && nc == 7);
		if (!line || nc != 7)
			continue;
		snprintf(what, sizeof(what), "%s summary.md step table %s", who, r->cell[0]);
		SAME(duration(cells[1]), cells[1], csv_num(step, cs, "step_time_s"), "step time", what);
		SAME(duration(cells[4]), cells[4], csv_num(step, cs, "pp_bubble_s"), "bubble", what);
		SAME(percent(cells[6]), cells[6], csv_num(step, cs, "mfu"), "MFU", what);
	}
	for (int i = 0; i < n; i++)
		row_free(&rows[i]);
}

/* ---- the serving section (an inference work) ---- */

/* The part of s after the first "/ " (for "a / b" cells), or "". */
static const char *after_slash(const char *s)
{
	const char *p = strstr(s, "/ ");
	return p ? p + 2 : "";
}

/* "2 in 3 x 8 GPUs": the copies (3) and their GPUs (8). */
static bool copies_named(const char *s, int *copies, int *gpus)
{
	const char *p = strstr(s, "in ");
	return p && sscanf(p, "in %d x %d GPUs", copies, gpus) == 2;
}

/* One option's serving cells (HTML or summary.md, cells from the second
 * on: the replica, then the figures) against serving.csv row sr and
 * options.csv row co. */
static void serving_cells(char cells[][256], int nc, const char *sv, int sr, const char *opts, int co,
			  const char *what)
{
	char b[64];
	bool sim = !strcmp(csv_text(sv, sr, "simulated", b, sizeof(b)), "true");
	bool ok = !strcmp(csv_text(sv, sr, "feasible", b, sizeof(b)), "true");
	const char *money_cell = cells[nc - 1];
	const char *p = money_cell;
	fig fi = money_at(&p), fo = money_at(&p);
	SAME(fi, money_cell, csv_num(sv, sr, "usd_per_million_input_tokens"), "$ per 1M input", what);
	SAME(fo, money_cell, csv_num(sv, sr, "usd_per_million_output_tokens"), "$ per 1M output", what);
	/* one figure everywhere: options.csv's are serving.csv's */
	CHECK(csv_num(opts, co, "usd_per_million_input_tokens") ==
		      csv_num(sv, sr, "usd_per_million_input_tokens") ||
	      isnan(csv_num(sv, sr, "usd_per_million_input_tokens")));
	if (!sim)
		return;
	CHECK(nc >= 7);
	if (nc < 7)
		return;
	char rep[96];
	snprintf(rep, sizeof(rep), "TP %g x PP %g on %s", csv_num(sv, sr, "tensor_parallel_size"),
		 csv_num(sv, sr, "pipeline_parallel_size"), csv_text(sv, sr, "gpu", b, sizeof(b)));
	checked++;
	CHECK_CONTAINS(cells[1], rep);
	int k = 2;
	if (ok) {
		SAME(count(cells[k]), cells[k], csv_num(sv, sr, "max_rate_rps"), "max rate", what);
		CHECK(csv_num(opts, co, "serving_max_rate_rps") == csv_num(sv, sr, "max_rate_rps"));
		k++;
		SAME(count(cells[k]), cells[k], csv_num(sv, sr, "input_tokens_per_s"), "input tokens/s",
		     what);
		SAME(count(after_slash(cells[k])), cells[k], csv_num(sv, sr, "output_tokens_per_s"),
		     "output tokens/s", what);
		k++;
		SAME(duration(cells[k]), cells[k], csv_num(sv, sr, "ttft_s"), "TTFT", what);
		SAME(duration(after_slash(cells[k])), cells[k], csv_num(sv, sr, "tpot_s"), "TPOT", what);
		k++;
	} else {
		k++;
	}
	SAME(count(cells[k]), cells[k], csv_num(sv, sr, "kv_cache_tokens"), "KV tokens", what);
	const char *tk = strstr(cells[k], "tokens");
	SAME(count(tk ? tk : ""), cells[k], csv_num(sv, sr, "max_concurrency"), "max concurrency",
	     what);
	k++;
	if (ok) {
		SAME(count(cells[k]), cells[k], csv_num(sv, sr, "replicas_needed"), "replicas", what);
		CHECK(csv_num(opts, co, "serving_replicas") == csv_num(sv, sr, "replicas_needed"));
		int copies = 0, gpus = 0;
		checked++;
		CHECK(copies_named(cells[k], &copies, &gpus));
		CHECK(copies == (int)csv_num(sv, sr, "clusters") &&
		      copies == (int)fmax(1, csv_num(opts, co, "replicas")));
		CHECK(gpus == (int)csv_num(opts, co, "num_gpus"));
		/* the replicas needed fit the copies */
		CHECK(csv_num(sv, sr, "replicas_needed") <=
		      copies * csv_num(sv, sr, "replicas_per_cluster"));
	}
}

static void check_serving(const char *html, const char *md, const char *sv, const char *wl,
			  const char *curve, const char *opts, const char *who)
{
	const char *sec = strstr(html, "<section id=\"serving\">");
	CHECK(sec != NULL);
	if (!sec)
		return;
	char what[200], b[96];
	/* the workload and the SLO */
	const char *note = strstr(sec, "<p class=\"note workload\">");
	CHECK(note != NULL);
	if (note) {
		const char *ne = strstr(note, "</p>");
		char *t = text_of(note, (size_t)(ne - note));
		snprintf(what, sizeof(what), "%s serving workload", who);
		const char *m = strstr(t, "prompts of mean ");
		if (m) {
			const char *pr = m;
			while (pr > t && pr[-1] != ',')
				pr--;
			SAME(count(pr), pr, csv_num(wl, csv_row(wl, "metric", "num_prompts"), "value"),
			     "prompts", what);
			SAME(count(m), m, csv_num(wl, csv_row(wl, "metric", "mean_input_len"), "value"),
			     "mean input", what);
			const char *mo = strstr(m, "tokens in and ");
			SAME(count(mo ? mo : ""), m,
			     csv_num(wl, csv_row(wl, "metric", "mean_output_len"), "value"), "mean output",
			     what);
		}
		const char *pk = strstr(t, "busiest hour is ");
		CHECK(pk != NULL);
		if (pk)
			SAME(count(pk), pk, csv_num(wl, csv_row(wl, "metric", "peak_to_average"), "value"),
			     "peak to average", what);
		free(t);
	}
	row rows[64];
	int n = table_rows(strstr(sec, "<table class=\"serving\">"), rows, 64), fields[1];
	CHECK(n == tu_csv_shape(sv, fields, 1) - 1);
	for (int i = 0; i < n; i++) {
		row *r = &rows[i];
		int sr = csv_row(sv, "option", r->cell[0]), co = csv_row(opts, "option", r->cell[0]);
		CHECK(sr > 0 && co > 0);
		if (sr <= 0 || co <= 0)
			continue;
		char cells[MAXC][256];
		for (int k = 0; k < r->n && k < MAXC; k++)
			snprintf(cells[k], sizeof(cells[k]), "%s", r->cell[k]);
		snprintf(what, sizeof(what), "%s serving table %s", who, r->cell[0]);
		serving_cells(cells, r->n, sv, sr, opts, co, what);
		/* summary.md's serving row: the same figures */
		int nc = 0;
		const char *line = md_row(md, "## Serving", r->cell[0], cells, &nc);
		CHECK(line != NULL && nc == 8);
		if (!line || nc != 8)
			continue;
		snprintf(what, sizeof(what), "%s summary.md serving %s", who, r->cell[0]);
		serving_cells(cells, nc, sv, sr, opts, co, what);
	}
	for (int i = 0; i < n; i++)
		row_free(&rows[i]);
	/* the throughput-latency charts: one line per simulated GPU of
	 * serving_curve.csv */
	int npts = tu_csv_shape(curve, fields, 1) - 1;
	if (npts <= 0) {
		CHECK(!strstr(sec, "fig-serving-ttft"));
		return;
	}
	const char *ft = strstr(sec, "<figure id=\"fig-serving-ttft\">");
	const char *fp = strstr(sec, "<figure id=\"fig-serving-tpot\">");
	CHECK(ft && fp);
	for (int k = 1; ft && fp && k <= npts; k++) {
		char rep[96];
		int so = csv_row(sv, "option", csv_text(curve, k, "option", b, sizeof(b)));
		snprintf(rep, sizeof(rep), "TP %g x PP %g on %s", csv_num(sv, so, "tensor_parallel_size"),
			 csv_num(sv, so, "pipeline_parallel_size"), csv_text(curve, k, "gpu", b, sizeof(b)));
		checked++;
		CHECK(strstr(ft, rep) && strstr(fp, rep));
	}
}

/* A scenario without costs: the simulated step's figures. */
static void check_predict(const char *html, const char *scen, const char *who)
{
	int rs = csv_row(scen, "metric", "step_time"), rm = csv_row(scen, "metric", "mfu");
	const char *a = strstr(html, "<div class=\"kpis\">");
	CHECK(a && rs > 0 && rm > 0);
	if (!a)
		return;
	for (const char *k = a; (k = strstr(k, "<div class=\"kpi\">"));) {
		const char *ve = strstr(k, "</div>");
		char *t = text_of(k, (size_t)(ve - k));
		k = ve;
		if (!strncmp(t, "Step time ", 10))
			SAME(duration(t + 10), t, csv_num(scen, rs, "value"), "step time", who);
		else if (!strncmp(t, "MFU ", 4))
			SAME(percent(t + 4), t, csv_num(scen, rm, "value"), "MFU", who);
		free(t);
	}
}

static char *slurp_in(const char *dir, const char *name)
{
	char p[1200];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return tu_slurp(p);
}

static void one(const char *path)
{
	pp_scenario s;
	pp_report r;
	pp_err err = {0};
	memset(&s, 0, sizeof(s));
	if (pp_scenario_load(&s, path, tu_catalog(), &err)) {
		pp_t_diag("%s", err.msg);
		CHECK(!"scenario loads");
		pp_scenario_release(&s);
		return;
	}
	pp_report_opts o;
	memset(&o, 0, sizeof(o));
	o.now_s = 1764547200.0;
	o.draws_given = true;
	o.draws = 1000;
	if (pp_report_build(&r, &s, tu_catalog(), path, &o, &err)) {
		pp_t_diag("%s", err.msg);
		CHECK(!"report builds");
		pp_scenario_release(&s);
		return;
	}
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s/%s", pp_t_tmpdir(), base);
	CHECK(pp_report_write(&r, dir, NULL, NULL, &err) == 0);
	char *html = slurp_in(dir, "index.html"), *md = slurp_in(dir, "summary.md");
	CHECK(html && md);
	if (html && md && r.have_cost) {
		char *opts = slurp_in(dir, "options.csv"), *step = slurp_in(dir, "step_time.csv"),
		     *fin = slurp_in(dir, "finance.csv");
		CHECK(opts && step && fin);
		if (opts && step && fin) {
			check_answer(html, opts, base);
			check_options(html, md, opts, base);
			check_finance(html, md, fin, opts, base);
			check_engine(html, md, opts, step, base);
		}
		char *sv = slurp_in(dir, "serving.csv"), *wl = slurp_in(dir, "serving_workload.csv"),
		     *cv = slurp_in(dir, "serving_curve.csv");
		CHECK(!sv == !r.cost.inference.present);
		if (sv && wl && cv && opts) {
			int before = checked;
			check_serving(html, md, sv, wl, cv, opts, base);
			pp_t_diag("%s: %d serving figures", base, checked - before);
		}
		free(sv);
		free(wl);
		free(cv);
		free(opts);
		free(step);
		free(fin);
	} else if (html && md) {
		char *scen = slurp_in(dir, "scenario.csv");
		CHECK(scen != NULL);
		if (scen)
			check_predict(html, scen, base);
		free(scen);
	}
	free(html);
	free(md);
	pp_report_release(&r);
	pp_scenario_release(&s);
}

static void test_every_scenario(void)
{
	DIR *d = opendir("scenarios");
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 6 || strcmp(e->d_name + l - 5, ".json"))
			continue;
		char path[600];
		snprintf(path, sizeof(path), "scenarios/%s", e->d_name);
		int before = checked;
		one(path);
		pp_t_diag("%-60s %d figures", e->d_name, checked - before);
		n++;
	}
	if (d)
		closedir(d);
	CHECK(n >= 7);
	CHECK(checked > 300);
}

/* The readers themselves, on text whose values are known by eye. */
static void test_readers(void)
{
	CHECK(same(money("$2.23M"), "$2.23M", 2.234e6) && !same(money("$2.23M"), "$2.23M", 2.236e6));
	CHECK(same(money("-$9.17M"), "", -9.17e6) && same(money("+$1.20M"), "", 1.2e6));
	CHECK(same(money("$1177"), "", 1177.4) && same(money("$312.7k"), "", 312740));
	CHECK(same(money("$0.50"), "", 0.5) && !same(money("$1.2B"), "", 1.26e9));
	CHECK(same(percent("98.3%"), "", 0.9834) && same(percent("-51.9%"), "", -0.519));
	CHECK(same(duration("22.5 days"), "", 22.5 * 86400) && same(duration("80.4 min"), "", 4824));
	CHECK(same(duration("284.7 ms"), "", 0.2847) && same(duration("3.7 months"), "", 9.6e6));
	CHECK(same(count("1,045,610"), "", 1045610) && gpus_named("rent 3 x 8 x NVIDIA H100") == 24);
	CHECK(gpus_named("build 1024 x NVIDIA H100 SXM5 80GB (128 nodes, ib-ndr)") == 1024);
	CHECK(replicas_named("rent 3 x 8 x NVIDIA H100") == 3 && replicas_named("1024 x h100-sxm") == 1);
	CHECK(same(money("-"), "-", NAN) && !same(money("$1"), "$1", NAN));
}

int main(void)
{
	pp_t_fixture_data();
	RUN(test_readers);
	RUN(test_every_scenario);
	return pp_t_done("test_report_figures");
}
