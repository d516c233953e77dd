/*
 * test_svg.c - the chart primitives of the reports (reports/svg.h): axis
 * ticks worked out by hand (1-2-5 steps), number and axis labels, bar
 * geometry against the tick positions, determinism, escaping of hostile
 * texts and UTF-8 safe truncation, and the line, histogram, scatter and
 * tornado charts (empty data included).
 */
#include "harness.h"
#include "core/fmt.h"
#include "report.h"
#include "svg.h"
#include "textutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	CHECK(!strcmp(pp_fmt_count(1051661, b, sizeof(b)), "1,051,661"));
	CHECK(!strcmp(pp_fmt_count(999, b, sizeof(b)), "999"));
	CHECK(!strcmp(pp_fmt_count(1000, b, sizeof(b)), "1,000"));
	CHECK(!strcmp(pp_fmt_count(-1234567, b, sizeof(b)), "-1,234,567"));
	CHECK(!strcmp(pp_fmt_count(NAN, b, sizeof(b)), "-"));
	/* 91.3 days = 3.0 months of 30.44 days */
	CHECK(!strcmp(pp_fmt_span(91.3 * 86400, b, sizeof(b)), "3.0 months"));
	CHECK(!strcmp(pp_fmt_span(3.99, b, sizeof(b)), "3.99 s"));
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
	CHECK(tu_utf8_valid(o.buf));
	CHECK(tu_count(o.buf, "<svg ") == 1 && tu_count(o.buf, "</svg>") == 1);
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
	CHECK(tu_count(o.buf, "<polyline") == 2);
	/* a polyline has one x,y pair per point: 4 points = 3 spaces between them */
	const char *pl = strstr(o.buf, "points=\"");
	CHECK(pl && tu_count(pl, " ") > 0);
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
	CHECK(tu_count(o.buf, "<path ") == 1);
	CHECK_CONTAINS(o.buf, "P10");
	/* the y axis covers the tallest bin (0.5): ~4 ticks of 0.125 -> step 0.2, top 0.6 */
	CHECK_CONTAINS(o.buf, ">60%</text>");
	pp_sb_release(&o);
	pp_svg_point p[2] = {{NAN, 1, NAN, NAN, "x", "#000000", false}, {1, NAN, NAN, NAN, "y", "#000000", false}};
	pp_svg_scatter(&o, &fh, p, 2, "Nothing to plot.");
	CHECK_CONTAINS(o.buf, "Nothing to plot.");
	pp_sb_release(&o);
}
int main(void)
{
	RUN(test_ticks);
	RUN(test_labels);
	RUN(test_hbars_geometry);
	RUN(test_svg_escaping);
	RUN(test_other_charts);
	return pp_t_done("test_svg");
}
