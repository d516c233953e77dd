/*
 * test_report.c - the reports: chart primitives (axis ticks by hand, bar
 * geometry against the tick positions, determinism, escaping, UTF-8 safe
 * truncation), the report page's structure and content for a cost
 * scenario, a QLoRA scenario and a step-only scenario, the CSV files
 * (RFC 4180 field counts, rows against the result, golden headers), the
 * escaping of hostile names in HTML, SVG, Markdown and CSV, the SLOW
 * calibration verdict, the CLI (exit statuses, all-or-nothing writes,
 * history, --compare), and how long rendering every scenario takes.
 *
 * Golden files (formats only) live in tests/golden/; regenerate them with
 *   PP_UPDATE_GOLDEN=1 build/tests/test_report
 * and read the diff before committing.
 */
#include "calib/calibdb.h"
#include "harness.h"
#include "history.h"
#include "report.h"
#include "core/store.h"
#include "svg.h"
#include "testutil.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define S70 "scenarios/llama70b-2T-tokens-rent-h100-or-build-h100-or-h200.json"
#define SQLORA "scenarios/qlora-13b-weekly-tier4-box-or-tier5-pod-or-api.json"
#define SDEF "scenarios/default.json"
#define NOW 1764547200.0 /* 2025-12-01 00:00 UTC: a pinned report timestamp */

/* ---- helpers ---- */

static int count(const char *hay, const char *needle)
{
	int n = 0;
	size_t l = strlen(needle);
	for (const char *p = hay; p && (p = strstr(p, needle)); p += l)
		n++;
	return n;
}

static const char *after(const char *hay, const char *needle)
{
	const char *p = hay ? strstr(hay, needle) : NULL;
	return p ? p : "";
}

static long pos(const char *hay, const char *needle)
{
	const char *p = strstr(hay, needle);
	return p ? (long)(p - hay) : -1;
}

static bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		int n = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2
			: (*p & 0xF8) == 0xF0 ? 3 : -1;
		if (n < 0)
			return false;
		p++;
		for (int i = 0; i < n; i++, p++)
			if ((*p & 0xC0) != 0x80)
				return false;
	}
	return true;
}

/* RFC 4180: split into records (CRLF outside quotes) and count fields;
 * returns records, fills fields[i] for the first max records. -1 on a
 * malformed quote or a bare LF. */
static int csv_shape(const char *s, int *fields, int max)
{
	int rec = 0, f = 1;
	bool q = false, at_start = true;
	for (const char *p = s; *p; p++) {
		if (q) {
			if (*p == '"') {
				if (p[1] == '"')
					p++;
				else
					q = false;
			}
			continue;
		}
		if (*p == '"') {
			if (!at_start)
				return -1;
			q = true;
			at_start = false;
		} else if (*p == ',') {
			f++;
			at_start = true;
		} else if (*p == '\r' && p[1] == '\n') {
			if (rec < max)
				fields[rec] = f;
			rec++;
			f = 1;
			at_start = true;
			p++;
		} else if (*p == '\n') {
			return -1;
		} else {
			at_start = false;
		}
	}
	return q ? -1 : rec;
}

/* Field k (0-based) of record r of a CSV text, unquoted, into buf. */
static const char *csv_field(const char *s, int r, int k, char *buf, size_t n)
{
	int rec = 0, f = 0;
	size_t o = 0;
	bool q = false;
	buf[0] = '\0';
	for (const char *p = s; *p; p++) {
		bool here = rec == r && f == k;
		if (q) {
			if (*p == '"' && p[1] == '"') {
				if (here && o + 1 < n)
					buf[o++] = '"';
				p++;
			} else if (*p == '"') {
				q = false;
			} else if (here && o + 1 < n) {
				buf[o++] = *p;
			}
			continue;
		}
		if (*p == '"')
			q = true;
		else if (*p == ',')
			f++;
		else if (*p == '\r' && p[1] == '\n') {
			rec++;
			f = 0;
			p++;
		} else if (here && o + 1 < n)
			buf[o++] = *p;
		if (rec > r)
			break;
	}
	buf[o] = '\0';
	return buf;
}

static int header_col(const char *csv, const char *name)
{
	char b[128];
	for (int k = 0; k < 200; k++) {
		csv_field(csv, 0, k, b, sizeof(b));
		if (!b[0])
			return -1;
		if (!strcmp(b, name))
			return k;
	}
	return -1;
}

static char *slurp(const char *path)
{
	char *t = NULL;
	size_t n;
	pp_err err = {0};
	if (pp_read_file(path, (size_t)64 << 20, &t, &n, &err))
		return NULL;
	return t;
}

static int load_build(const char *path, int draws, pp_scenario *s, pp_report *r)
{
	pp_err err = {0};
	memset(s, 0, sizeof(*s));
	if (pp_scenario_load(s, path, tu_catalog(), &err)) {
		pp_t_diag("%s", err.msg);
		pp_scenario_release(s);
		return -1;
	}
	pp_report_opts o;
	memset(&o, 0, sizeof(o));
	o.now_s = NOW;
	if (draws >= 0) {
		o.draws_given = true;
		o.draws = draws;
	}
	if (pp_report_build(r, s, tu_catalog(), path, &o, &err)) {
		pp_t_diag("%s", err.msg);
		pp_scenario_release(s);
		return -1;
	}
	return 0;
}

static int build_text(const char *name, const char *json, pp_scenario *s, pp_report *r)
{
	pp_err err = {0};
	if (pp_scenario_parse(s, name, json, strlen(json), tu_catalog(), &err)) {
		pp_t_diag("%s", err.msg);
		pp_scenario_release(s);
		return -1;
	}
	pp_report_opts o;
	memset(&o, 0, sizeof(o));
	o.now_s = NOW;
	if (pp_report_build(r, s, tu_catalog(), name, &o, &err)) {
		pp_t_diag("%s", err.msg);
		pp_scenario_release(s);
		return -1;
	}
	return 0;
}

/* The structure of a page: section and figure ids and h2 titles in order,
 * then the Markdown headings. */
static void structure(const char *html, const char *md, pp_sb *out)
{
	/* walk the tags in document order */
	static const char *const tags[] = {"<section id=\"", "<figure id=\"", "<h2>", "<svg class=\"chart\" id=\""};
	const char *p = html;
	for (;;) {
		const char *best = NULL;
		int bt = -1;
		for (int t = 0; t < 4; t++) {
			const char *q = strstr(p, tags[t]);
			if (q && (!best || q < best)) {
				best = q;
				bt = t;
			}
		}
		if (!best)
			break;
		const char *v = best + strlen(tags[bt]);
		const char *e = strpbrk(v, bt == 2 ? "<" : "\"");
		if (!e)
			break;
		static const char *const kinds[] = {"section", "figure", "h2", "svg"};
		/* formats only: a heading's count, "(4)", is data */
		const char *cut = bt == 2 ? strstr(v, " (") : NULL;
		if (cut && cut < e)
			e = cut;
		pp_sb_addf(out, "html %s %.*s\n", kinds[bt], (int)(e - v), v);
		p = e;
	}
	for (const char *l = md; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		if (n > 3 && !strncmp(l, "## ", 3))
			pp_sb_addf(out, "md %.*s\n", (int)n, l);
		l += n + (e ? 1 : 0);
	}
}

/* Compare text with a golden file, or write it when PP_UPDATE_GOLDEN is set. */
static void golden(const char *file, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "tests/golden/%s", file);
	const char *upd = getenv("PP_UPDATE_GOLDEN");
	if (upd && *upd) {
		pp_err err = {0};
		CHECK(pp_write_file_atomic(path, text, strlen(text), &err) == 0);
		pp_t_diag("wrote %s", path);
		return;
	}
	char *want = slurp(path);
	CHECK(want != NULL);
	if (want && strcmp(want, text)) {
		pp_t_diag("golden %s differs; got:\n%s  (PP_UPDATE_GOLDEN=1 build/tests/test_report "
		          "regenerates it)", path, text);
		CHECK(!"golden file matches");
	}
	free(want);
}

/* ---- chart primitives ---- */

static void test_ticks(void)
{
	double t[24], lo, hi;
	/* 36.46M over ~5 ticks: raw step 7.29M -> 1-2-5 step 10M; 0..40M */
	int n = pp_svg_ticks(0, 36.46e6, 5, t, 24, &lo, &hi);
	CHECK(n == 5);
	CHECK_NEAR(t[1], 1e7, 1e-12);
	CHECK_NEAR(hi, 4e7, 1e-12);
	CHECK(lo == 0);
	/* 0..1: raw 0.2 -> step 0.2, six ticks */
	n = pp_svg_ticks(0, 1, 5, t, 24, &lo, &hi);
	CHECK(n == 6);
	CHECK_NEAR(t[3], 0.6, 1e-9);
	/* 3.51..4.536: raw 0.205 -> step 0.5: 3.5 4 4.5 5 */
	n = pp_svg_ticks(3.51, 4.536, 5, t, 24, &lo, &hi);
	CHECK(n == 4);
	CHECK_NEAR(lo, 3.5, 1e-12);
	CHECK_NEAR(hi, 5.0, 1e-12);
	/* a single value gets a range around it that contains it */
	n = pp_svg_ticks(5, 5, 5, t, 24, &lo, &hi);
	CHECK(n >= 2 && lo < 5 && hi > 5);
	/* never more than max */
	n = pp_svg_ticks(0, 1e6, 1000, t, 24, &lo, &hi);
	CHECK(n <= 24 && n >= 2);
}

static void test_labels(void)
{
	char b[64];
	CHECK(!strcmp(pp_svg_label(PP_SVG_USD, 2.5e6, 1e7, b, sizeof(b)), "$2.5M"));
	CHECK(!strcmp(pp_svg_label(PP_SVG_USD, 0, 4e7, b, sizeof(b)), "$0"));
	CHECK(!strcmp(pp_svg_label(PP_SVG_USD, 300e3, 500e3, b, sizeof(b)), "$300k"));
	CHECK(!strcmp(pp_svg_label(PP_SVG_SECONDS, 20 * 86400.0, 30 * 86400.0, b, sizeof(b)), "20 days"));
	CHECK(!strcmp(pp_svg_label(PP_SVG_SECONDS, 0.5, 4, b, sizeof(b)), "0.5 s"));
	CHECK(!strcmp(pp_svg_label(PP_SVG_PCT, 0.06, 0.08, b, sizeof(b)), "6%"));
	CHECK(!strcmp(pp_report_count(1051661, b, sizeof(b)), "1,051,661"));
	CHECK(!strcmp(pp_report_count(999, b, sizeof(b)), "999"));
	CHECK(!strcmp(pp_report_count(1000, b, sizeof(b)), "1,000"));
	CHECK(!strcmp(pp_report_count(-1234567, b, sizeof(b)), "-1,234,567"));
	CHECK(!strcmp(pp_report_count(NAN, b, sizeof(b)), "-"));
	/* 91.3 days = 3.0 months of 30.44 days */
	CHECK(!strcmp(pp_report_dur(91.3 * 86400, b, sizeof(b)), "3.0 months"));
	CHECK(!strcmp(pp_report_dur(3.99, b, sizeof(b)), "3.99 s"));
	CHECK(!strcmp(pp_fmt_tokens(2e12, b, sizeof(b)), "2T"));
	CHECK(!strcmp(pp_fmt_tokens(1.5e8, b, sizeof(b)), "150M"));
	/* 0.6 em per character at 10 px, UTF-8 characters counted once */
	CHECK_NEAR(pp_svg_text_width("abcd", 10), 24, 1e-12);
	CHECK_NEAR(pp_svg_text_width("\xc3\xa9\xc3\xa9", 10), 12, 1e-12);
}

/* x of a <text> whose content is exactly s, or NAN */
static double text_x(const char *svg, const char *s)
{
	char needle[64];
	snprintf(needle, sizeof(needle), ">%s</text>", s);
	const char *e = strstr(svg, needle);
	if (!e)
		return NAN;
	const char *t = e;
	while (t > svg && strncmp(t, "<text x=\"", 9))
		t--;
	return strtod(t + 9, NULL);
}

static void test_hbars_geometry(void)
{
	static const char *const cat[] = {"row"};
	static const char *const ser[] = {"a", "b"};
	static const char *const col[] = {"#111111", "#222222"};
	double v[] = {1, 3};
	pp_svg_bars b = {1, 2, cat, ser, col, v, NULL, NULL, NULL, NULL, NULL, -1};
	pp_svg_frame f = {"g", "t", NULL, 720, 0, PP_SVG_NUM, PP_SVG_NUM, "x", NULL};
	pp_sb o = {0};
	pp_svg_hbars(&o, &f, &b);
	/* the two bars are the rects of height 16 (legend swatches are 11 high) */
	double x[2] = {NAN, NAN}, w[2] = {NAN, NAN};
	int k = 0;
	for (const char *p = o.buf; (p = strstr(p, "<rect x=\"")) && k < 2; p++) {
		double rx, ry, rw, rh;
		if (sscanf(p, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &rx, &ry, &rw, &rh) == 4 &&
		    rh == 16) {
			x[k] = rx;
			w[k] = rw;
			k++;
		}
	}
	CHECK(k == 2);
	/* axis 0..4 (1-2-5 ticks over 4): the bars span 1/4 and 3/4 of it, end to end */
	double x0 = text_x(o.buf, "0"), x4 = text_x(o.buf, "4");
	CHECK(isfinite(x0) && isfinite(x4));
	CHECK_NEAR(x[0], x0, 0.002);
	CHECK_NEAR(w[0], (x4 - x0) / 4, 0.01);
	CHECK_NEAR(w[1], 3 * (x4 - x0) / 4, 0.01);
	CHECK_NEAR(x[1], x[0] + w[0], 0.002);
	/* deterministic */
	pp_sb o2 = {0};
	pp_svg_hbars(&o2, &f, &b);
	CHECK(o.len == o2.len && !memcmp(o.buf, o2.buf, o.len));
	pp_sb_release(&o);
	pp_sb_release(&o2);
}

static void test_svg_escaping(void)
{
	/* hostile and long labels: escaped, truncated on a character boundary */
	char longl[300] = "";
	for (int i = 0; i < 80; i++)
		strcat(longl, "\xc3\xa9"); /* e acute */
	static const char *const ser[] = {"s<1>"};
	static const char *const col[] = {"#111111"};
	const char *cat[] = {"<script>alert(1)</script>", longl};
	double v[] = {1, 2};
	const char *note[] = {NULL, "&note\"'"};
	pp_svg_bars b = {2, 1, cat, ser, col, v, NULL, NULL, NULL, note, NULL, 0};
	pp_svg_frame f = {"e<x>", "title <b>", "desc & more", 400, 0, PP_SVG_NUM, PP_SVG_NUM, "x<", NULL};
	pp_sb o = {0};
	pp_svg_hbars(&o, &f, &b);
	CHECK(strstr(o.buf, "<script") == NULL);
	CHECK_CONTAINS(o.buf, "&lt;script&gt;alert(1)&lt;/script&gt;");
	CHECK_CONTAINS(o.buf, "id=\"e&lt;x&gt;\"");
	CHECK_CONTAINS(o.buf, "title &lt;b&gt;");
	CHECK_CONTAINS(o.buf, "s&lt;1&gt;");
	CHECK_CONTAINS(o.buf, "&amp;note&quot;&#39;");
	CHECK_CONTAINS(o.buf, "\xe2\x80\xa6"); /* the long label was cut, with an ellipsis */
	CHECK(utf8_valid(o.buf));
	CHECK(count(o.buf, "<svg ") == 1 && count(o.buf, "</svg>") == 1);
	pp_sb_release(&o);
	/* the other primitives escape their texts too */
	pp_svg_point pt[1] = {{1, 2, 1, 3, "<i>p</i>", "#123456", true}};
	pp_svg_frame fs = {"s", "<t>", NULL, 0, 0, PP_SVG_SECONDS, PP_SVG_USD, "<x>", "<y>"};
	pp_svg_scatter(&o, &fs, pt, 1, "none");
	CHECK(strstr(o.buf, "<i>") == NULL && strstr(o.buf, "<x>") == NULL && strstr(o.buf, "<y>") == NULL);
	CHECK_CONTAINS(o.buf, "&lt;i&gt;p&lt;/i&gt;");
	pp_sb_release(&o);
	pp_svg_trow tr[1] = {{"<d>", "<r>", 1, 3, true, false}};
	pp_svg_tornado(&o, &fs, 2, "<base>", tr, 1, "none");
	CHECK(strstr(o.buf, "<d>") == NULL && strstr(o.buf, "<r>") == NULL && strstr(o.buf, "<base>") == NULL);
	CHECK_CONTAINS(o.buf, "\xe2\x9a\x91"); /* the flip flag */
	pp_sb_release(&o);
}

static void test_other_charts(void)
{
	pp_sb o = {0};
	pp_svg_frame f = {"l", "lines", NULL, 0, 0, PP_SVG_MONTHS, PP_SVG_USD, "month", "usd"};
	double x[4] = {0, 1, 2, 3}, y1[4] = {10, 20, 30, 40}, y2[4] = {35, 36, 37, 38};
	pp_svg_series s[2] = {{"a", "#111111", 4, x, y1, true}, {"b", "#222222", 4, x, y2, false}};
	pp_svg_marker m[1] = {{2.5, "crossover"}};
	pp_svg_lines(&o, &f, s, 2, m, 1, "none");
	CHECK(count(o.buf, "<polyline") == 2);
	/* a polyline has one x,y pair per point: 4 points = 3 spaces between them */
	const char *pl = strstr(o.buf, "points=\"");
	CHECK(pl && count(pl, " ") > 0);
	CHECK_CONTAINS(o.buf, "crossover");
	pp_sb_release(&o);
	/* empty data: a message chart of non-zero size */
	pp_svg_lines(&o, &f, s, 0, NULL, 0, "No schedule here.");
	CHECK_CONTAINS(o.buf, "No schedule here.");
	CHECK_CONTAINS(o.buf, "class=\"chart\"");
	pp_sb_release(&o);
	double v[3] = {0.1, 0.5, 0.2};
	pp_svg_hist h[1] = {{"opt", "#333333", v, true}};
	pp_svg_frame fh = {"h", "hist", NULL, 0, 0, PP_SVG_USD, PP_SVG_PCT, "usd", "share"};
	pp_svg_marker hm[2] = {{1.5e6, "P10"}, {2.5e6, "P90"}};
	pp_svg_histogram(&o, &fh, 1e6, 3e6, 3, h, 1, hm, 2, "none");
	CHECK(count(o.buf, "<path ") == 1);
	CHECK_CONTAINS(o.buf, "P10");
	/* the y axis covers the tallest bin (0.5): ~4 ticks of 0.125 -> step 0.2, top 0.6 */
	CHECK_CONTAINS(o.buf, ">60%</text>");
	pp_sb_release(&o);
	pp_svg_point p[2] = {{NAN, 1, NAN, NAN, "x", "#000000", false}, {1, NAN, NAN, NAN, "y", "#000000", false}};
	pp_svg_scatter(&o, &fh, p, 2, "Nothing to plot.");
	CHECK_CONTAINS(o.buf, "Nothing to plot.");
	pp_sb_release(&o);
}

/* ---- the report of a cost scenario ---- */

static void check_csvs(const pp_report *r, const char *golden_name)
{
	pp_report_file files[PP_REPORT_MAX_FILES];
	int n = pp_report_csv(r, files, PP_REPORT_MAX_FILES);
	CHECK(n >= 5);
	pp_sb heads = {0};
	for (int i = 0; i < n; i++) {
		const char *body = files[i].body.buf;
		int fields[4096];
		int rows = csv_shape(body, fields, 4096);
		CHECK(rows >= 1);
		for (int k = 1; k < rows && k < 4096; k++)
			if (fields[k] != fields[0]) {
				pp_t_diag("%s row %d: %d fields, header has %d", files[i].name, k, fields[k],
				          fields[0]);
				CHECK(fields[k] == fields[0]);
				break;
			}
		const char *e = strstr(body, "\r\n");
		pp_sb_addf(&heads, "%s: %.*s\n", files[i].name, e ? (int)(e - body) : 0, body);
		if (r->have_cost && !strcmp(files[i].name, "options.csv")) {
			CHECK(rows == r->cost.noptions + 1);
			/* the recommended row's usd_total is the engine's, to 10 digits */
			int ct = header_col(body, "usd_total"), cr = header_col(body, "recommended");
			char b[64];
			for (int k = 1; k < rows; k++)
				if (!strcmp(csv_field(body, k, cr, b, sizeof(b)), "true")) {
					double v = strtod(csv_field(body, k, ct, b, sizeof(b)), NULL);
					CHECK_NEAR(v, r->cost.options[r->cost.recommended].usd_total, 1e-9);
				}
		}
		if (r->have_cost && !strcmp(files[i].name, "cumulative_cost.csv")) {
			int want = 1;
			for (int k = 0; k < r->cost.noptions; k++)
				if (r->cost.options[k].cum_usd)
					want += r->cost.options[k].nmonths + 1;
			CHECK(rows == want);
		}
		if (r->have_cost && !strcmp(files[i].name, "sources.csv"))
			CHECK(rows == r->cost.nsources + 1);
	}
	golden(golden_name, heads.buf);
	pp_sb_release(&heads);
	pp_report_files_release(files, n);
}

static void test_report_cost(void)
{
	pp_scenario s;
	pp_report r;
	if (load_build(S70, 2000, &s, &r))
		{
		CHECK(!"report builds");
		return;
	}
	const pp_cost_result *c = &r.cost;
	CHECK(r.have_cost && c->noptions >= 2);
	pp_sb html = {0}, md = {0};
	pp_report_html(&r, &html);
	pp_report_md(&r, &md);
	const char *h = html.buf;
	/* self-contained: no script, no external resource of any kind */
	CHECK(strstr(h, "<script") == NULL);
	CHECK(strstr(h, " src=") == NULL);
	CHECK(strstr(h, "url(") == NULL);
	CHECK(strstr(h, "@import") == NULL);
	CHECK(strstr(h, "<link") == NULL);
	CHECK(strstr(h, "<img") == NULL && strstr(h, "<iframe") == NULL);
	CHECK_CONTAINS(h, "@media print");
	CHECK(utf8_valid(h));
	/* the question and the answer first */
	long pa = pos(h, "<section id=\"answer\""), pw = pos(h, "id=\"warnings\""),
	     po = pos(h, "<section id=\"options\""), pc = pos(h, "<section id=\"charts\"");
	CHECK(pa > 0 && pa < pw && pw < po && po < pc);
	CHECK_CONTAINS(h, c->question);
	/* the cheapest feasible option, found here by a scan, is the answer */
	int best = -1;
	for (int i = 0; i < c->noptions; i++)
		if (c->options[i].feasible && (best < 0 || c->options[i].usd_total < c->options[best].usd_total))
			best = i;
	CHECK(best == c->recommended);
	char money[32];
	pp_fmt_usd(c->options[best].usd_total, money, sizeof(money));
	char *ans = strndup(h + pa, (size_t)(pw - pa));
	CHECK_CONTAINS(ans, c->options[best].name);
	CHECK_CONTAINS(ans, money);
	CHECK_CONTAINS(ans, "P10-P90");
	free(ans);
	/* six charts, each an inline SVG inside its figure */
	static const char *const charts[] = {"cost", "tradeoff", "cumulative", "tornado", "distribution",
					     "steptime"};
	for (size_t i = 0; i < PP_ARRAY_LEN(charts); i++) {
		char a[64], b[80];
		snprintf(a, sizeof(a), "<figure id=\"fig-%s\">", charts[i]);
		snprintf(b, sizeof(b), "<svg class=\"chart\" id=\"chart-%s\"", charts[i]);
		CHECK_CONTAINS(h, a);
		CHECK_CONTAINS(h, b);
		CHECK(pos(h, a) < pos(h, b));
	}
	CHECK(count(h, "<svg class=\"chart\"") == 6);
	/* every option with a simulated step: its parts add up to the step (the
	 * breakdown the chart stacks) and it has a row in the chart */
	const char *st = after(h, "id=\"chart-steptime\"");
	for (int i = 0; i < c->noptions; i++) {
		const pp_cost_option *o = &c->options[i];
		if (!isfinite(o->step_time_s))
			continue;
		double p[PP_REPORT_NBD], sum = 0;
		pp_report_bd_parts(&o->breakdown, p);
		for (int k = 0; k < PP_REPORT_NBD; k++)
			sum += p[k];
		CHECK_NEAR(sum, o->step_time_s, 1e-3);
		CHECK_CONTAINS(st, o->name);
	}
	/* warnings: prices dated 2024 are more than 12 months before the as-of date */
	CHECK_CONTAINS(after(h, "id=\"warnings\""), "older than 12 months");
	CHECK_CONTAINS(h, "<span class=\"tag old\">old</span>");
	/* assumptions: every figure is listed with its date */
	for (int i = 0; i < c->nsources; i++) {
		pp_sb e = {0};
		pp_sb_add_html(&e, c->sources[i].item);
		CHECK_CONTAINS(after(h, "id=\"assumptions\""), e.buf);
		pp_sb_release(&e);
	}
	/* markdown */
	CHECK_CONTAINS(md.buf, "**Answer:**");
	CHECK_CONTAINS(md.buf, "## Options");
	CHECK_CONTAINS(md.buf, "## Warnings");
	/* golden structure */
	pp_sb g = {0};
	structure(h, md.buf, &g);
	golden("report-structure-cost.txt", g.buf);
	pp_sb_release(&g);
	check_csvs(&r, "report-csv-headers-cost.txt");
	/* the record: results carry the answer, inputs every figure's date */
	pp_sb in = {0}, res = {0};
	pp_report_inputs_json(&r, &in);
	pp_report_results_json(&r, "/tmp/x", &res);
	cJSON *ji = cJSON_Parse(in.buf), *jr = cJSON_Parse(res.buf);
	CHECK(ji && jr);
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(ji, "figures")) == c->nsources);
	CHECK(cJSON_IsString(cJSON_GetObjectItem(jr, "recommended")) &&
	      !strcmp(cJSON_GetObjectItem(jr, "recommended")->valuestring, c->options[best].name));
	CHECK(cJSON_IsObject(cJSON_GetObjectItem(cJSON_GetObjectItem(ji, "catalog"), "files")));
	cJSON_Delete(ji);
	cJSON_Delete(jr);
	pp_sb_release(&in);
	pp_sb_release(&res);
	pp_sb_release(&html);
	pp_sb_release(&md);
	pp_report_release(&r);
	pp_scenario_release(&s);
}

static void test_report_qlora(void)
{
	pp_scenario s;
	pp_report r;
	if (load_build(SQLORA, 500, &s, &r))
		{
		CHECK(!"report builds");
		return;
	}
	const pp_cost_result *c = &r.cost;
	int adapters = 0;
	for (int i = 0; i < c->noptions; i++) {
		const pp_cost_option *o = &c->options[i];
		if (!isfinite(o->step_time_s))
			continue;
		adapters += !strcmp(o->method, "qlora") || !strcmp(o->method, "lora");
		double p[PP_REPORT_NBD], sum = 0;
		pp_report_bd_parts(&o->breakdown, p);
		for (int k = 0; k < PP_REPORT_NBD; k++)
			sum += p[k];
		/* the adapter rescaling applied part by part still adds up to the step */
		CHECK_NEAR(sum, o->step_time_s, 1e-3);
		CHECK(o->breakdown.compute_s > 0);
	}
	CHECK(adapters >= 1);
	pp_sb html = {0};
	pp_report_html(&r, &html);
	/* a hosted API option gets a note in the step chart, not an empty bar */
	bool api = false;
	for (int i = 0; i < c->noptions; i++)
		api |= c->options[i].kind == PP_OPT_API;
	if (api)
		CHECK_CONTAINS(after(html.buf, "id=\"chart-steptime\""), "hosted API: nothing simulated");
	pp_sb_release(&html);
	pp_report_release(&r);
	pp_scenario_release(&s);
}

static void test_report_predict(void)
{
	pp_scenario s;
	pp_report r;
	if (load_build(SDEF, -1, &s, &r))
		{
		CHECK(!"report builds");
		return;
	}
	CHECK(!r.have_cost && r.have_pred);
	pp_sb html = {0}, md = {0};
	pp_report_html(&r, &html);
	pp_report_md(&r, &md);
	CHECK(count(html.buf, "<svg class=\"chart\"") == 2);
	CHECK_CONTAINS(html.buf, "id=\"chart-steptime\"");
	CHECK_CONTAINS(html.buf, "id=\"chart-memory\"");
	CHECK_CONTAINS(html.buf, "no &quot;costs&quot; section");
	/* the time to train: tokens / (tokens per step) x step time, by hand */
	double steps = ceil(s.training.train_tokens / r.pred.tokens_per_step);
	CHECK_NEAR(r.pred.time_to_train_s, steps * r.pred.step_time_s, 1e-3);
	char d[48];
	CHECK_CONTAINS(html.buf, pp_report_dur(r.pred.time_to_train_s, d, sizeof(d)));
	pp_sb g = {0};
	structure(html.buf, md.buf, &g);
	golden("report-structure-predict.txt", g.buf);
	pp_sb_release(&g);
	check_csvs(&r, "report-csv-headers-predict.txt");
	pp_sb_release(&html);
	pp_sb_release(&md);
	pp_report_release(&r);
	pp_scenario_release(&s);
}

/* ---- escaping ---- */

#define HOSTILE_SCENARIO                                                                         \
	"{\"name\": \"<script>alert(1)</script>\",\n"                                            \
	" \"description\": \"<img src=x onerror=alert(2)> & \\\"quoted\\\" 'q'\",\n"             \
	" \"model\": {\"preset\": \"llama2-7b\", \"seq_length\": 4096},\n"                       \
	" \"training\": {\"global_batch_size\": 64, \"micro_batch_size\": 1, \"train_tokens\": 1e10},\n" \
	" \"parallel\": {\"zero_stage\": 1},\n"                                                  \
	" \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8},\n"                              \
	" \"costs\": {\"work\": {\"type\": \"run\"}, \"uncertainty\": {\"draws\": 300, \"seed\": 3},\n" \
	"  \"options\": [\n"                                                                     \
	"   {\"name\": \"<b>bold</b>&\\\"'\", \"kind\": \"rent\", \"provider\": \"lambda_8x\", \"tier\": \"on_demand\"},\n" \
	"   {\"name\": \"=HYPERLINK(\\\"http://x\\\")\", \"kind\": \"build\"}]}}\n"

static void test_escaping(void)
{
	pp_scenario s;
	pp_report r;
	if (build_text("hostile.json", HOSTILE_SCENARIO, &s, &r))
		{
		CHECK(!"hostile scenario builds");
		return;
	}
	pp_sb html = {0}, md = {0};
	pp_report_html(&r, &html);
	pp_report_md(&r, &md);
	const char *h = html.buf;
	CHECK(strstr(h, "<script") == NULL);
	CHECK(strstr(h, "<img") == NULL);
	CHECK(strstr(h, "<b>bold") == NULL);
	CHECK_CONTAINS(h, "<title>&lt;script&gt;alert(1)&lt;/script&gt; - podplan report</title>");
	CHECK_CONTAINS(h, "&lt;img src=x onerror=alert(2)&gt; &amp; &quot;quoted&quot; &#39;q&#39;");
	/* in SVG text too: the option name as a bar label of the cost chart */
	const char *svg = after(h, "<svg class=\"chart\" id=\"chart-cost\"");
	const char *end = strstr(svg, "</svg>");
	char *one = strndup(svg, end ? (size_t)(end - svg) : strlen(svg));
	CHECK_CONTAINS(one, "&lt;b&gt;bold&lt;/b&gt;&amp;&quot;&#39;");
	free(one);
	/* Markdown: no raw HTML */
	CHECK(strstr(md.buf, "<script") == NULL && strstr(md.buf, "<b>") == NULL);
	CHECK_CONTAINS(md.buf, "&lt;script&gt;alert(1)&lt;/script&gt;");
	/* CSV: a formula-looking name stays text in a spreadsheet */
	pp_report_file files[PP_REPORT_MAX_FILES];
	int n = pp_report_csv(&r, files, PP_REPORT_MAX_FILES);
	for (int i = 0; i < n; i++)
		if (!strcmp(files[i].name, "step_time.csv")) {
			CHECK_CONTAINS(files[i].body.buf, "\"'=HYPERLINK(\"\"http://x\"\")\"");
			CHECK_CONTAINS(files[i].body.buf, "\"<b>bold</b>&\"\"'\"");
		}
	pp_report_files_release(files, n);
	pp_sb_release(&html);
	pp_sb_release(&md);
	pp_report_release(&r);
	pp_scenario_release(&s);
}

/* No option fits: the page says so first and every chart still renders. */
static void test_nothing_fits(void)
{
	static const char json[] =
		"{\"name\": \"70b-on-one-node\", \"model\": {\"preset\": \"llama3-70b\", \"seq_length\": 4096},"
		" \"training\": {\"global_batch_size\": 64, \"micro_batch_size\": 1, \"train_tokens\": 1e9},"
		" \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8},"
		" \"costs\": {\"work\": {\"type\": \"run\"}, \"uncertainty\": {\"draws\": 200, \"seed\": 1},"
		" \"options\": [{\"name\": \"rent\", \"kind\": \"rent\", \"provider\": \"lambda_8x\", "
		"\"tier\": \"on_demand\"}]}}";
	pp_scenario s;
	pp_report r;
	if (build_text("nofit.json", json, &s, &r)) {
		CHECK(!"scenario builds");
		return;
	}
	/* 70B parameters x 16 bytes (bf16 weights and grads, fp32 Adam) / 8 GPUs = 140 GB > 80 GB */
	CHECK(r.cost.recommended < 0);
	pp_sb html = {0}, h = {0};
	pp_report_html(&r, &html);
	pp_report_headline(&r, &h);
	CHECK_CONTAINS(h.buf, "No option can do the work");
	CHECK_CONTAINS(after(html.buf, "<section id=\"answer\""), "No option can do the work");
	CHECK(count(html.buf, "<svg class=\"chart\"") == 6);
	CHECK(strstr(html.buf, "--draws N") == NULL); /* draws were asked for: not the hint */
	pp_sb_release(&html);
	pp_sb_release(&h);
	pp_report_release(&r);
	pp_scenario_release(&s);
}

/* ---- calibration verdict ---- */

static const char *const verdict_json =
	"{\"format\": \"podplan-verdict/1\", \"gpu\": \"h100-sxm\", \"rows\": ["
	"{\"check\": \"all_reduce busbw\", \"scope\": \"8 GPUs\", \"measured\": 118.0, "
	"\"expected\": 360.0, \"unit\": \"GB/s\", \"ratio\": 0.328, \"verdict\": \"SLOW\", "
	"\"basis\": \"nvlink4 x 0.8\", \"cause\": \"P2P through host memory (NVLink down?)\"},"
	"{\"check\": \"bf16 GEMM\", \"scope\": \"GPU 0\", \"measured\": 700, \"expected\": 720, "
	"\"unit\": \"TFLOP/s\", \"ratio\": 0.97, \"verdict\": \"OK\", \"basis\": \"peak x 0.72\"}]}";

static void test_calibration_verdict(void)
{
	char db[512];
	snprintf(db, sizeof(db), "%s/calib.db", pp_t_tmpdir());
	pp_store *st = NULL;
	pp_err err = {0};
	CHECK(pp_store_open(&st, db, &err) == 0);
	if (!st)
		return;
	pp_calib_run info;
	pp_calib_run_init(&info);
	info.source = "fake";
	info.command_line = "podplan-calibrate --test";
	info.host = "pod-7";
	info.gpu_name = "NVIDIA H100 80GB HBM3";
	info.gpu_count = 8;
	int64_t id = 0;
	CHECK(pp_calibdb_begin_run(st, &info, &id, &err) == 0);
	CHECK(pp_calibdb_end_run(st, id, "complete", verdict_json, &err) == 0);
	char sql[512];
	snprintf(sql, sizeof(sql), "INSERT INTO profiles(name, version, created_at, run_ids, params_json, "
		 "residuals_json) VALUES ('pod-a', 1, 0, '[%lld]', '{}', '{}')", (long long)id);
	CHECK(pp_store_exec(st, sql, &err) == 0);
	pp_store_close(st);
	static const char *const profiles[] = {"pod-a", "1", "nope"};
	for (int k = 0; k < 3; k++) {
		char json[1024];
		snprintf(json, sizeof(json), "{\"name\": \"calib\", \"model\": {\"preset\": \"llama2-7b\"},"
			 "\"training\": {\"global_batch_size\": 64, \"micro_batch_size\": 1},"
			 "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8},"
			 "\"calibration\": {\"db\": \"%s\", \"profile\": \"%s\"}}", db, profiles[k]);
		pp_scenario s;
		pp_report r;
		if (build_text("calib.json", json, &s, &r)) {
			CHECK(!"calibration scenario builds");
			continue;
		}
		pp_sb all = {0};
		for (int i = 0; i < r.nwarnings; i++)
			pp_sb_addf(&all, "%s\n", r.warnings[i]);
		if (k < 2) {
			CHECK_CONTAINS(all.buf, "SLOW fabric verdict");
			CHECK_CONTAINS(all.buf, "all_reduce busbw (8 GPUs) measured 118 GB/s, expected 360 GB/s");
			CHECK_CONTAINS(all.buf, "pod-7");
			CHECK(r.nverdict == 2);
			pp_sb html = {0};
			pp_report_html(&r, &html);
			CHECK_CONTAINS(after(html.buf, "id=\"calibration\""), "<span class=\"tag slow\">SLOW</span>");
			pp_sb_release(&html);
		} else {
			CHECK_CONTAINS(all.buf, "calibration profile \"nope\" is not in");
			CHECK(r.nverdict == 0);
		}
		if (k == 0)
			CHECK_CONTAINS(r.calib_note, "version 1");
		pp_sb_release(&all);
		pp_report_release(&r);
		pp_scenario_release(&s);
	}
	/* a db that does not exist: a warning, and no file created */
	char json[1024], missing[600];
	snprintf(missing, sizeof(missing), "%s/missing.db", pp_t_tmpdir());
	snprintf(json, sizeof(json), "{\"name\": \"calib\", \"model\": {\"preset\": \"llama2-7b\"},"
		 "\"training\": {\"global_batch_size\": 64, \"micro_batch_size\": 1},"
		 "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8},"
		 "\"calibration\": {\"db\": \"%s\", \"profile\": \"x\"}}", missing);
	pp_scenario s;
	pp_report r;
	if (build_text("calib.json", json, &s, &r) == 0) {
		CHECK(r.nwarnings >= 1);
		bool found = false;
		for (int i = 0; i < r.nwarnings; i++)
			found |= strstr(r.warnings[i], "not found") != NULL;
		CHECK(found);
		struct stat sb;
		CHECK(stat(missing, &sb) != 0);
		pp_report_release(&r);
		pp_scenario_release(&s);
	}
}

/* ---- the command line ---- */

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
	int n = st == 0 ? count(out, "\r\n") - 1 : -1;
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
	char *before = slurp(idx);
	snprintf(cmd, sizeof(cmd), "PODPLAN_CHROMIUM=/bin/false %s report %s -o %s --db %s --draws 100 --pdf",
		 bin, S70, dir, db);
	CHECK(sh(cmd, &out) == 1);
	free(out);
	char *after_ = slurp(idx);
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
	char *csv = slurp(p), b[128];
	double v = NAN;
	if (!csv)
		return v;
	int co = header_col(csv, "option"), cg = header_col(csv, "gpu_time_usd");
	for (int r = 1; r < 20; r++)
		if (!strcmp(csv_field(csv, r, co, b, sizeof(b)), option))
			v = strtod(csv_field(csv, r, cg, b, sizeof(b)), NULL);
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
	CHECK(strstr(after(out, "Why"), "- build:") == NULL); /* the owned option did not move */
	free(out);
	/* history filtered by scenario lists the three, newest first */
	snprintf(cmd, sizeof(cmd), "%s history --db %s --scenario small-rent-or-build", bin, db);
	CHECK(sh(cmd, &out) == 0);
	CHECK(pos(out, "    3  ") >= 0 && pos(out, "    3  ") < pos(out, "    1  "));
	free(out);
}

/* ---- speed ---- */

static void test_speed(void)
{
	DIR *d = opendir("scenarios");
	struct dirent *e;
	double total = 0;
	int n = 0;
	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 6 || strcmp(e->d_name + l - 5, ".json"))
			continue;
		char path[600];
		snprintf(path, sizeof(path), "scenarios/%s", e->d_name);
		double t0 = pp_mono_s();
		pp_scenario s;
		pp_report r;
		if (load_build(path, -1, &s, &r)) {
			CHECK(!"every scenario gets a report");
			continue;
		}
		double t1 = pp_mono_s();
		pp_sb html = {0}, md = {0};
		pp_report_html(&r, &html);
		pp_report_md(&r, &md);
		pp_report_file files[PP_REPORT_MAX_FILES];
		int nf = pp_report_csv(&r, files, PP_REPORT_MAX_FILES);
		pp_report_files_release(files, nf);
		double t2 = pp_mono_s();
		pp_t_diag("%-60s engines %.3f s, render %.3f s, %zu KB", e->d_name, t1 - t0, t2 - t1,
		          html.len / 1024);
		CHECK(count(html.buf, "<svg class=\"chart\"") == (r.have_cost ? 6 : 2));
		total += t2 - t0;
		n++;
		pp_sb_release(&html);
		pp_sb_release(&md);
		pp_report_release(&r);
		pp_scenario_release(&s);
	}
	if (d)
		closedir(d);
	pp_t_diag("%d scenarios in %.2f s (default Monte Carlo draws)", n, total);
	CHECK(n >= 2);
	CHECK(total < 30); /* a few seconds normally; ASan/UBSan is several times slower */
}

int main(void)
{
	RUN(test_ticks);
	RUN(test_labels);
	RUN(test_hbars_geometry);
	RUN(test_svg_escaping);
	RUN(test_other_charts);
	RUN(test_report_cost);
	RUN(test_report_qlora);
	RUN(test_report_predict);
	RUN(test_escaping);
	RUN(test_nothing_fits);
	RUN(test_calibration_verdict);
	RUN(test_cli);
	RUN(test_compare);
	RUN(test_speed);
	return pp_t_done("test_report");
}
