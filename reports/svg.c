/* svg.c - see svg.h. */
#include "svg.h"
#include "core/fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FONT 12.0
#define SMALL 11.0
#define GRID "#e3e3e3"
#define INK "#222"
#define MUTED "#666"
#define MAXT 24

/* ---- numbers and text ---- */

/* One decimal, never "-0.0": the output must not depend on rounding noise. */
static void num(pp_sb *o, double v)
{
	double r = round(v * 10.0) / 10.0;
	if (r == 0)
		r = 0;
	pp_sb_addf(o, "%.1f", r);
}

double pp_svg_text_width(const char *s, double px)
{
	int n = 0;
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++)
		if ((*p & 0xC0) != 0x80)
			n++;
	return n * px * 0.6;
}

/* Escaped text, cut to fit maxw with an ellipsis (the full text as a
 * tooltip). anchor: "start" | "middle" | "end". */
static void text(pp_sb *o, double x, double y, const char *anchor, double px, const char *weight,
		 const char *fill, const char *s, double maxw)
{
	if (!s)
		s = "";
	pp_sb_adds(o, "<text x=\"");
	num(o, x);
	pp_sb_adds(o, "\" y=\"");
	num(o, y);
	pp_sb_addf(o, "\" text-anchor=\"%s\"", anchor);
	if (px != FONT)
		pp_sb_addf(o, " font-size=\"%g\"", px);
	if (weight)
		pp_sb_addf(o, " font-weight=\"%s\"", weight);
	if (fill && strcmp(fill, INK))
		pp_sb_addf(o, " fill=\"%s\"", fill);
	pp_sb_adds(o, ">");
	if (maxw > 0 && pp_svg_text_width(s, px) > maxw) {
		int keep = (int)(maxw / (px * 0.6)) - 1;
		if (keep < 1)
			keep = 1;
		const char *p = s;
		for (int c = 0; *p; p++) /* p: the first byte of character number keep */
			if ((*p & 0xC0) != 0x80 && c++ == keep)
				break;
		pp_sb_adds(o, "<title>");
		pp_sb_add_html(o, s);
		pp_sb_adds(o, "</title>");
		char *cut = pp_xstrdup(s);
		cut[p - s] = '\0';
		pp_sb_add_html(o, cut);
		free(cut);
		pp_sb_adds(o, "\u2026");
	} else {
		pp_sb_add_html(o, s);
	}
	pp_sb_adds(o, "</text>\n");
}

static void line(pp_sb *o, double x1, double y1, double x2, double y2, const char *stroke,
		 double width, const char *dash)
{
	pp_sb_adds(o, "<line x1=\"");
	num(o, x1);
	pp_sb_adds(o, "\" y1=\"");
	num(o, y1);
	pp_sb_adds(o, "\" x2=\"");
	num(o, x2);
	pp_sb_adds(o, "\" y2=\"");
	num(o, y2);
	pp_sb_addf(o, "\" stroke=\"%s\"", stroke);
	if (width != 1)
		pp_sb_addf(o, " stroke-width=\"%g\"", width);
	if (dash)
		pp_sb_addf(o, " stroke-dasharray=\"%s\"", dash);
	pp_sb_adds(o, "/>\n");
}

/* A rectangle with an optional tooltip. */
static void rect(pp_sb *o, double x, double y, double w, double h, const char *fill,
		 const char *tip)
{
	pp_sb_adds(o, "<rect x=\"");
	num(o, x);
	pp_sb_adds(o, "\" y=\"");
	num(o, y);
	pp_sb_adds(o, "\" width=\"");
	num(o, w);
	pp_sb_adds(o, "\" height=\"");
	num(o, h);
	pp_sb_addf(o, "\" fill=\"%s\"", fill);
	if (tip) {
		pp_sb_adds(o, "><title>");
		pp_sb_add_html(o, tip);
		pp_sb_adds(o, "</title></rect>\n");
	} else {
		pp_sb_adds(o, "/>\n");
	}
}

/* ---- axes ---- */

static double nice_step(double raw)
{
	double e = pow(10.0, floor(log10(raw)));
	double f = raw / e;
	return (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * e;
}

int pp_svg_ticks(double lo, double hi, int target, double *ticks, int max, double *alo,
		 double *ahi)
{
	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	if (lo > hi) {
		double t = lo;
		lo = hi;
		hi = t;
	}
	if (hi - lo <= fabs(hi) * 1e-9) {
		double d = fabs(hi) > 0 ? fabs(hi) * 0.1 : 1.0;
		lo -= d;
		hi += d;
	}
	if (target < 2)
		target = 2;
	double step = nice_step((hi - lo) / target);
	double a = floor(lo / step + 1e-9) * step;
	double b = ceil(hi / step - 1e-9) * step;
	int n = (int)llround((b - a) / step) + 1;
	while (n > max && max >= 2) {
		step = nice_step(step * 1.5);
		a = floor(lo / step + 1e-9) * step;
		b = ceil(hi / step - 1e-9) * step;
		n = (int)llround((b - a) / step) + 1;
	}
	for (int i = 0; i < n && i < max; i++) {
		double t = a + i * step;
		ticks[i] = fabs(t) < step * 1e-9 ? 0 : t;
	}
	*alo = a;
	*ahi = b;
	return n < max ? n : max;
}

/* The display unit of a duration or dollar axis whose largest magnitude is span. */
static double unit_of(pp_svg_fmt fmt, double span, const char **name)
{
	span = fabs(span);
	*name = "";
	if (fmt == PP_SVG_SECONDS) {
		if (span < 1e-3)
			return *name = "us", 1e-6;
		if (span < 1.0)
			return *name = "ms", 1e-3;
		if (span < 120.0)
			return *name = "s", 1.0;
		if (span < 7200.0)
			return *name = "min", 60.0;
		if (span < 3 * 86400.0)
			return *name = "h", 3600.0;
		return *name = "days", 86400.0;
	}
	if (fmt == PP_SVG_USD) {
		if (span >= 1e9)
			return *name = "B", 1e9;
		if (span >= 1e6)
			return *name = "M", 1e6;
		if (span >= 1e3)
			return *name = "k", 1e3;
		return 1.0;
	}
	return 1.0;
}

const char *pp_svg_label(pp_svg_fmt fmt, double v, double span, char *buf, size_t n)
{
	const char *u;
	double div = unit_of(fmt, span, &u);
	double x = v / div;
	if (fabs(x) < 1e-12)
		x = 0;
	switch (fmt) {
	case PP_SVG_USD:
		if (x == 0)
			snprintf(buf, n, "$0");
		else
			snprintf(buf, n, "%s$%.4g%s", x < 0 ? "-" : "", fabs(x), u);
		break;
	case PP_SVG_SECONDS:
		snprintf(buf, n, "%.4g %s", x, u);
		break;
	case PP_SVG_PCT:
		snprintf(buf, n, "%.4g%%", 100 * v);
		break;
	default:
		snprintf(buf, n, "%.4g", x);
	}
	return buf;
}

/* An axis: data range -> pixels, ticks in display units. */
typedef struct axis {
	pp_svg_fmt fmt;
	double lo, hi, p0, p1;
	double t[MAXT];
	int nt;
	double div;
	const char *unit;
} axis;

static void axis_init(axis *a, pp_svg_fmt fmt, double lo, double hi, double p0, double p1,
		      int target)
{
	memset(a, 0, sizeof(*a));
	a->fmt = fmt;
	a->div = fmt == PP_SVG_SECONDS ? unit_of(fmt, fmax(fabs(lo), fabs(hi)), &a->unit) : 1.0;
	double alo, ahi;
	a->nt = pp_svg_ticks(lo / a->div, hi / a->div, target, a->t, MAXT, &alo, &ahi);
	if (fmt == PP_SVG_MONTHS && a->nt >= 2 && a->t[1] - a->t[0] < 1) {
		/* whole months only */
		alo = floor(lo);
		ahi = ceil(hi) > alo ? ceil(hi) : alo + 1;
		a->nt = 0;
		for (double m = alo; m <= ahi + 1e-9 && a->nt < MAXT; m += 1)
			a->t[a->nt++] = m;
	}
	for (int i = 0; i < a->nt; i++)
		a->t[i] *= a->div;
	a->lo = alo * a->div;
	a->hi = ahi * a->div;
	if (fmt == PP_SVG_USD)
		unit_of(fmt, fmax(fabs(a->lo), fabs(a->hi)), &a->unit);
	a->p0 = p0;
	a->p1 = p1;
}

static double ax(const axis *a, double v)
{
	return a->p0 + (v - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

static const char *tick_label(const axis *a, double v, char *buf, size_t n)
{
	if (a->fmt == PP_SVG_SECONDS) {
		double x = v / a->div;
		snprintf(buf, n, "%.4g", fabs(x) < 1e-12 ? 0 : x);
		return buf;
	}
	return pp_svg_label(a->fmt, v, fmax(fabs(a->lo), fabs(a->hi)), buf, n);
}

/* A value in words for tooltips and end labels: "$2.21M", "22.4 days". */
static const char *value_words(pp_svg_fmt fmt, double v, char *buf, size_t n)
{
	switch (fmt) {
	case PP_SVG_USD:
		return pp_fmt_usd(v, buf, n);
	case PP_SVG_SECONDS:
		return pp_fmt_duration(v, buf, n);
	case PP_SVG_PCT:
		snprintf(buf, n, "%.1f%%", 100 * v);
		return buf;
	default:
		snprintf(buf, n, "%.4g", v);
		return buf;
	}
}

/* Axis title with the display unit of a duration axis. */
static void axis_title(const axis *a, const char *label, char *buf, size_t n)
{
	if (a->fmt == PP_SVG_SECONDS)
		snprintf(buf, n, "%s (%s)", label ? label : "time", a->unit);
	else
		snprintf(buf, n, "%s", label ? label : "");
}

/* Vertical grid lines and tick labels of a horizontal axis at y. */
static void xaxis_draw(pp_sb *o, const axis *a, double ytop, double y, const char *label)
{
	char b[64], t[200];
	for (int i = 0; i < a->nt; i++) {
		double x = ax(a, a->t[i]);
		line(o, x, ytop, x, y, GRID, 1, NULL);
		text(o, x, y + 15, "middle", SMALL, NULL, MUTED, tick_label(a, a->t[i], b, sizeof(b)), 0);
	}
	line(o, a->p0, y, a->p1, y, "#999", 1, NULL);
	axis_title(a, label, t, sizeof(t));
	if (t[0])
		text(o, (a->p0 + a->p1) / 2, y + 33, "middle", FONT, NULL, INK, t, 0);
}

/* Horizontal grid lines and tick labels of a vertical axis at x. */
static void yaxis_draw(pp_sb *o, const axis *a, double x, double xright, const char *label,
		       double ylabel_x)
{
	char b[64], t[200];
	for (int i = 0; i < a->nt; i++) {
		double y = ax(a, a->t[i]);
		line(o, x, y, xright, y, GRID, 1, NULL);
		text(o, x - 6, y + 4, "end", SMALL, NULL, MUTED, tick_label(a, a->t[i], b, sizeof(b)), 0);
	}
	line(o, x, a->p0, x, a->p1, "#999", 1, NULL);
	axis_title(a, label, t, sizeof(t));
	if (t[0]) {
		double ym = (a->p0 + a->p1) / 2;
		pp_sb_adds(o, "<text transform=\"translate(");
		num(o, ylabel_x);
		pp_sb_adds(o, ",");
		num(o, ym);
		pp_sb_adds(o, ") rotate(-90)\" text-anchor=\"middle\">");
		pp_sb_add_html(o, t);
		pp_sb_adds(o, "</text>\n");
	}
}

/* ---- frame and legend ---- */

static void open_svg(pp_sb *o, const pp_svg_frame *f, int w, int h)
{
	const char *id = f->id ? f->id : "chart";
	pp_sb_adds(o, "<svg class=\"chart\" id=\"");
	pp_sb_add_html(o, id);
	pp_sb_addf(o, "\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
		      "height=\"%d\" role=\"img\" aria-labelledby=\"", w, h, w, h);
	pp_sb_add_html(o, id);
	pp_sb_adds(o, "-t\" font-size=\"12\" font-family=\"sans-serif\" fill=\"" INK "\">\n<title id=\"");
	pp_sb_add_html(o, id);
	pp_sb_adds(o, "-t\">");
	pp_sb_add_html(o, f->title ? f->title : "");
	pp_sb_adds(o, "</title>\n");
	if (f->desc) {
		pp_sb_adds(o, "<desc>");
		pp_sb_add_html(o, f->desc);
		pp_sb_adds(o, "</desc>\n");
	}
}

static void close_svg(pp_sb *o)
{
	pp_sb_adds(o, "</svg>\n");
}

/* A chart with nothing to plot: its message, wrapped at spaces. */
static void empty_chart(pp_sb *o, const pp_svg_frame *f, const char *msg)
{
	int w = f->width > 0 ? f->width : 720;
	const char *m = msg ? msg : "nothing to show";
	int per = (int)((w - 40) / (FONT * 0.6)), nl = 0;
	char lines[6][160];
	while (*m && nl < 6) {
		size_t len = strlen(m), cut = len;
		if ((int)len > per) {
			cut = (size_t)per;
			while (cut > 0 && m[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = (size_t)per;
		}
		if (cut >= sizeof(lines[0]))
			cut = sizeof(lines[0]) - 1;
		memcpy(lines[nl], m, cut);
		lines[nl++][cut] = '\0';
		m += cut;
		while (*m == ' ')
			m++;
	}
	int h = 70 + 18 * nl;
	open_svg(o, f, w, h);
	rect(o, 0.5, 0.5, w - 1, h - 1, "#fafafa", NULL);
	for (int i = 0; i < nl; i++)
		text(o, w / 2.0, 44 + 18 * i, "middle", FONT, NULL, MUTED, lines[i], 0);
	close_svg(o);
}

typedef struct legend_item {
	const char *name;
	const char *color;
	int style; /* 0 swatch, 1 line, 2 dashed line, 3 whisker */
} legend_item;

static double legend_width(const legend_item *it)
{
	return 22 + pp_svg_text_width(it->name, SMALL) + 16;
}

/* Flowed legend from (x, y) within width; returns the height used. */
static double legend(pp_sb *o, double x0, double y0, double width, const legend_item *it, int n,
		     bool draw)
{
	double x = x0, y = y0;
	if (n <= 0)
		return 0;
	for (int i = 0; i < n; i++) {
		double w = legend_width(&it[i]);
		if (x > x0 && x + w > x0 + width) {
			x = x0;
			y += 17;
		}
		if (draw) {
			switch (it[i].style) {
			case 1:
			case 2:
				line(o, x, y + 6, x + 16, y + 6, it[i].color, 2.5, it[i].style == 2 ? "4 3" : NULL);
				break;
			case 3:
				line(o, x, y + 6, x + 16, y + 6, it[i].color, 1.5, NULL);
				line(o, x, y + 2, x, y + 10, it[i].color, 1.5, NULL);
				line(o, x + 16, y + 2, x + 16, y + 10, it[i].color, 1.5, NULL);
				break;
			default:
				rect(o, x, y + 1, 12, 11, it[i].color, NULL);
			}
			text(o, x + 20, y + 11, "start", SMALL, NULL, INK, it[i].name, 0);
		}
		x += w;
	}
	return y - y0 + 20;
}

/* ---- stacked horizontal bars ---- */

void pp_svg_hbars(pp_sb *o, const pp_svg_frame *f, const pp_svg_bars *b)
{
	int w = f->width > 0 ? f->width : 720;
	if (b->ncat <= 0) {
		empty_chart(o, f, "no rows");
		return;
	}
	/* legend: the series that have a non-zero value somewhere */
	legend_item *it = pp_xcalloc((size_t)b->nser + 1, sizeof(*it));
	int nit = 0;
	double vmax = 0;
	bool any_whisker = false;
	for (int s = 0; s < b->nser; s++) {
		bool used = false;
		for (int c = 0; c < b->ncat; c++) {
			double v = b->v[c * b->nser + s];
			if (isfinite(v) && v > 0)
				used = true;
		}
		if (used)
			it[nit++] = (legend_item){b->ser[s], b->color[s], 0};
	}
	double endw = 0, lw = 0;
	for (int c = 0; c < b->ncat; c++) {
		double sum = 0;
		for (int s = 0; s < b->nser; s++) {
			double v = b->v[c * b->nser + s];
			if (isfinite(v) && v > 0)
				sum += v;
		}
		vmax = fmax(vmax, sum);
		if (b->hi && isfinite(b->hi[c])) {
			vmax = fmax(vmax, b->hi[c]);
			any_whisker = true;
		}
		double ew = b->endlabel && b->endlabel[c] ? pp_svg_text_width(b->endlabel[c], SMALL) + 8 : 0;
		bool has_value = false;
		for (int s = 0; s < b->nser; s++)
			has_value |= isfinite(b->v[c * b->nser + s]);
		if (has_value && b->note && b->note[c]) /* a note after the bar needs room too */
			ew += pp_svg_text_width(b->note[c], SMALL);
		endw = fmax(endw, ew);
		lw = fmax(lw, pp_svg_text_width(b->cat[c], FONT));
	}
	if (any_whisker)
		it[nit++] = (legend_item){b->whisker_label ? b->whisker_label : "range", INK, 3};
	lw = fmin(lw + 10, w * 0.36);
	double x0 = lw + 10, x1 = w - fmin(fmax(endw + 6, 20), w * 0.3);
	double top = 6 + legend(o, x0, 6, x1 - x0, it, nit, false) + 6;
	const double row = 28, bh = 16;
	double plot_bottom = top + b->ncat * row;
	int h = f->height > 0 ? f->height : (int)ceil(plot_bottom + 44);
	open_svg(o, f, w, h);
	legend(o, x0, 6, x1 - x0, it, nit, true);
	axis a;
	axis_init(&a, f->xfmt, 0, vmax > 0 ? vmax : 1, x0, x1, 5);
	if (vmax > 0) /* an axis with nothing on it says nothing */
		xaxis_draw(o, &a, top - 4, plot_bottom, f->xlabel);
	char tip[400], vb[48];
	for (int c = 0; c < b->ncat; c++) {
		double y = top + c * row;
		text(o, x0 - 8, y + 18, "end", FONT, c == b->highlight ? "bold" : NULL, INK, b->cat[c], lw);
		double x = 0;
		bool any = false;
		for (int s = 0; s < b->nser; s++) {
			double v = b->v[c * b->nser + s];
			if (!isfinite(v))
				continue;
			any = true;
			if (v <= 0)
				continue;
			snprintf(tip, sizeof(tip), "%s: %s", b->ser[s], value_words(f->xfmt, v, vb, sizeof(vb)));
			double px0 = ax(&a, x), px1 = ax(&a, x + v);
			rect(o, px0, y + 6, fmax(px1 - px0, 0.5), bh, b->color[s], tip);
			x += v;
		}
		double end = ax(&a, x);
		if (b->lo && b->hi && isfinite(b->lo[c]) && isfinite(b->hi[c])) {
			double l = ax(&a, b->lo[c]), r = ax(&a, b->hi[c]);
			line(o, l, y + 14, r, y + 14, INK, 1.5, NULL);
			line(o, l, y + 9, l, y + 19, INK, 1.5, NULL);
			line(o, r, y + 9, r, y + 19, INK, 1.5, NULL);
			end = fmax(end, r);
		}
		const char *note = b->note ? b->note[c] : NULL;
		if (!any) {
			text(o, x0 + 4, y + 18, "start", SMALL, NULL, MUTED, note ? note : "-", x1 - x0);
			continue;
		}
		double ex = end + 6;
		if (b->endlabel && b->endlabel[c]) {
			text(o, ex, y + 18, "start", SMALL, c == b->highlight ? "bold" : NULL, INK,
			     b->endlabel[c], 0);
			ex += pp_svg_text_width(b->endlabel[c], SMALL) + 8;
		}
		if (note)
			text(o, fmin(ex, w - 40.0), y + 18, "start", SMALL, NULL, MUTED, note,
			     fmax(w - fmin(ex, w - 40.0) - 4, 30));
	}
	free(it);
	close_svg(o);
}

/* ---- scatter ---- */

typedef struct box {
	double x0, y0, x1, y1;
} box;

static bool overlaps(const box *a, const box *bs, int n)
{
	for (int i = 0; i < n; i++)
		if (a->x0 < bs[i].x1 && bs[i].x0 < a->x1 && a->y0 < bs[i].y1 && bs[i].y0 < a->y1)
			return true;
	return false;
}

void pp_svg_scatter(pp_sb *o, const pp_svg_frame *f, const pp_svg_point *p, int n,
		    const char *empty)
{
	int w = f->width > 0 ? f->width : 720, h = f->height > 0 ? f->height : 380;
	double xmax = 0, ymax = 0;
	int nok = 0;
	bool whisk = false;
	for (int i = 0; i < n; i++) {
		if (!isfinite(p[i].x) || !isfinite(p[i].y))
			continue;
		nok++;
		xmax = fmax(xmax, p[i].x);
		ymax = fmax(ymax, p[i].y);
		if (isfinite(p[i].yhi)) {
			ymax = fmax(ymax, p[i].yhi);
			whisk = true;
		}
	}
	if (nok == 0) {
		empty_chart(o, f, empty);
		return;
	}
	open_svg(o, f, w, h);
	double x0 = 78, x1 = w - 24, top = 30, bottom = h - 46;
	legend_item it[2] = {{"recommended", INK, 0}, {"P10-P90 of cost", INK, 3}};
	legend(o, x0, 6, x1 - x0, it, whisk ? 2 : 1, true);
	axis xa, ya;
	axis_init(&xa, f->xfmt, 0, xmax > 0 ? xmax * 1.08 : 1, x0, x1, 6);
	axis_init(&ya, f->yfmt, 0, ymax > 0 ? ymax : 1, bottom, top, 5);
	xaxis_draw(o, &xa, top, bottom, f->xlabel);
	yaxis_draw(o, &ya, x0, x1, f->ylabel, 16);
	char tip[400], xb[48], yb[48];
	for (int i = 0; i < n; i++) {
		if (!isfinite(p[i].x) || !isfinite(p[i].y) || !isfinite(p[i].ylo) || !isfinite(p[i].yhi))
			continue;
		double x = ax(&xa, p[i].x);
		line(o, x, ax(&ya, p[i].ylo), x, ax(&ya, p[i].yhi), p[i].color, 1.5, NULL);
		line(o, x - 4, ax(&ya, p[i].ylo), x + 4, ax(&ya, p[i].ylo), p[i].color, 1.5, NULL);
		line(o, x - 4, ax(&ya, p[i].yhi), x + 4, ax(&ya, p[i].yhi), p[i].color, 1.5, NULL);
	}
	box *placed = pp_xcalloc((size_t)n * 2 + 1, sizeof(*placed));
	int np = 0;
	for (int i = 0; i < n; i++) {
		if (!isfinite(p[i].x) || !isfinite(p[i].y))
			continue;
		double x = ax(&xa, p[i].x), y = ax(&ya, p[i].y), r = p[i].highlight ? 7 : 5;
		placed[np++] = (box){x - r, y - r, x + r, y + r};
	}
	for (int i = 0; i < n; i++) {
		if (!isfinite(p[i].x) || !isfinite(p[i].y))
			continue;
		double x = ax(&xa, p[i].x), y = ax(&ya, p[i].y), r = p[i].highlight ? 7 : 5;
		snprintf(tip, sizeof(tip), "%s: %s, %s", p[i].label ? p[i].label : "",
			 value_words(f->xfmt, p[i].x, xb, sizeof(xb)),
			 value_words(f->yfmt, p[i].y, yb, sizeof(yb)));
		pp_sb_adds(o, "<circle cx=\"");
		num(o, x);
		pp_sb_adds(o, "\" cy=\"");
		num(o, y);
		pp_sb_addf(o, "\" r=\"%g\" fill=\"%s\"%s><title>", r, p[i].color,
			   p[i].highlight ? " stroke=\"#000\" stroke-width=\"2\"" : " fill-opacity=\"0.9\"");
		pp_sb_add_html(o, tip);
		pp_sb_adds(o, "</title></circle>\n");
	}
	/* labels: right of the point, else stepped up/down, else to the left */
	static const double dys[] = {4, -10, 18, -24, 32, -38, 46, -52};
	for (int i = 0; i < n; i++) {
		if (!isfinite(p[i].x) || !isfinite(p[i].y) || !p[i].label)
			continue;
		double x = ax(&xa, p[i].x), y = ax(&ya, p[i].y);
		double tw = fmin(pp_svg_text_width(p[i].label, SMALL), 220);
		box bx = {0, 0, 0, 0};
		bool left = false;
		double dy = dys[0];
		for (int side = 0; side < 2; side++) {
			bool found = false;
			for (size_t k = 0; k < PP_ARRAY_LEN(dys); k++) {
				double lx = side ? x - 10 - tw : x + 10;
				if (lx < x0 || lx + tw > w - 2)
					break;
				bx = (box){lx, y + dys[k] - 10, lx + tw, y + dys[k] + 3};
				if (bx.y0 < top - 20 || bx.y1 > bottom)
					continue;
				if (!overlaps(&bx, placed, np)) {
					found = true;
					left = side;
					dy = dys[k];
					break;
				}
			}
			if (found)
				break;
			if (side == 1) { /* nowhere free: right of the point, overlapping */
				left = x + 10 + tw > w - 2;
				dy = dys[0];
				bx = (box){left ? x - 10 - tw : x + 10, y - 6, left ? x - 10 : x + 10 + tw, y + 7};
			}
		}
		placed[np++] = bx;
		if (dy != dys[0])
			line(o, x, y, left ? bx.x1 : bx.x0, y + dy - 4, "#aaa", 1, NULL);
		text(o, left ? bx.x1 : bx.x0, y + dy, left ? "end" : "start", SMALL,
		     p[i].highlight ? "bold" : NULL, INK, p[i].label, 220);
	}
	free(placed);
	close_svg(o);
}

/* ---- lines ---- */

void pp_svg_lines(pp_sb *o, const pp_svg_frame *f, const pp_svg_series *s, int ns,
		  const pp_svg_marker *m, int nm, const char *empty)
{
	int w = f->width > 0 ? f->width : 720, h = f->height > 0 ? f->height : 380;
	double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
	int npts = 0;
	for (int i = 0; i < ns; i++)
		for (int k = 0; k < s[i].n; k++) {
			if (!isfinite(s[i].x[k]) || !isfinite(s[i].y[k]))
				continue;
			npts++;
			xmin = fmin(xmin, s[i].x[k]);
			xmax = fmax(xmax, s[i].x[k]);
			ymax = fmax(ymax, s[i].y[k]);
		}
	if (npts == 0) {
		empty_chart(o, f, empty);
		return;
	}
	double x0 = 78, x1 = w - 24;
	legend_item *it = pp_xcalloc((size_t)ns + 1, sizeof(*it));
	for (int i = 0; i < ns; i++)
		it[i] = (legend_item){s[i].name, s[i].color, 1};
	double top = 6 + legend(o, x0, 6, x1 - x0, it, ns, false) + 18;
	if (f->height <= 0)
		h = (int)(top + 300 + 46);
	double bottom = h - 46;
	open_svg(o, f, w, h);
	legend(o, x0, 6, x1 - x0, it, ns, true);
	axis xa, ya;
	axis_init(&xa, f->xfmt, fmin(xmin, 0), xmax, x0, x1, 8);
	axis_init(&ya, f->yfmt, 0, ymax > 0 ? ymax : 1, bottom, top, 5);
	xaxis_draw(o, &xa, top, bottom, f->xlabel);
	yaxis_draw(o, &ya, x0, x1, f->ylabel, 16);
	for (int i = 0; i < nm; i++) {
		if (!isfinite(m[i].x))
			continue;
		double x = ax(&xa, m[i].x);
		line(o, x, top, x, bottom, "#555", 1, "5 4");
		double ty = top - 4 + (i % 3) * 14 + 12;
		bool left = x + 8 + pp_svg_text_width(m[i].label, SMALL) > x1;
		text(o, left ? x - 4 : x + 4, ty, left ? "end" : "start", SMALL, NULL, INK, m[i].label,
		     x1 - x0);
	}
	char tip[300], yb[48];
	for (int i = 0; i < ns; i++) {
		pp_sb_addf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%g\" "
			      "stroke-linejoin=\"round\" points=\"", s[i].color, s[i].bold ? 3.0 : 2.0);
		int last = -1;
		for (int k = 0; k < s[i].n; k++) {
			if (!isfinite(s[i].x[k]) || !isfinite(s[i].y[k]))
				continue;
			if (last >= 0)
				pp_sb_adds(o, " ");
			num(o, ax(&xa, s[i].x[k]));
			pp_sb_adds(o, ",");
			num(o, ax(&ya, s[i].y[k]));
			last = k;
		}
		pp_sb_adds(o, "\">");
		if (last >= 0) {
			snprintf(tip, sizeof(tip), "%s: %s at the end", s[i].name,
				 value_words(f->yfmt, s[i].y[last], yb, sizeof(yb)));
			pp_sb_adds(o, "<title>");
			pp_sb_add_html(o, tip);
			pp_sb_adds(o, "</title>");
		}
		pp_sb_adds(o, "</polyline>\n");
	}
	free(it);
	close_svg(o);
}

/* ---- tornado ---- */

void pp_svg_tornado(pp_sb *o, const pp_svg_frame *f, double base, const char *base_label,
		    const pp_svg_trow *r, int n, const char *empty)
{
	int w = f->width > 0 ? f->width : 720;
	if (n <= 0 || !isfinite(base)) {
		empty_chart(o, f, empty);
		return;
	}
	double lo = base, hi = base, lw = 0;
	bool flips = false;
	for (int i = 0; i < n; i++) {
		if (isfinite(r[i].lo)) {
			lo = fmin(lo, r[i].lo);
			hi = fmax(hi, r[i].lo);
		}
		if (isfinite(r[i].hi)) {
			lo = fmin(lo, r[i].hi);
			hi = fmax(hi, r[i].hi);
		}
		flips |= r[i].flips_lo || r[i].flips_hi;
		lw = fmax(lw, pp_svg_text_width(r[i].label, FONT));
		if (r[i].range)
			lw = fmax(lw, pp_svg_text_width(r[i].range, SMALL));
	}
	/* room for the value labels either side */
	double span = hi - lo > 0 ? hi - lo : fabs(base) * 0.1 + 1;
	lo -= span * 0.3;
	hi += span * 0.3;
	if (lo < 0 && base >= 0 && lo > -span)
		lo = fmin(lo, 0);
	lw = fmin(lw + 10, w * 0.38);
	double x0 = lw + 10, x1 = w - 16;
	legend_item it[3] = {{"input at its low end", "#4e79a7", 0},
			     {"input at its high end", "#f28e2b", 0},
			     {"\u2691 the answer changes", "#c0392b", 0}};
	double top = 6 + legend(o, x0, 6, x1 - x0, it, flips ? 3 : 2, false) + 22;
	const double row = 38;
	double bottom = top + n * row;
	int h = f->height > 0 ? f->height : (int)ceil(bottom + 44);
	open_svg(o, f, w, h);
	legend(o, x0, 6, x1 - x0, it, flips ? 3 : 2, true);
	axis a;
	axis_init(&a, f->xfmt, lo, hi, x0, x1, 5);
	xaxis_draw(o, &a, top - 4, bottom, f->xlabel);
	double bx = ax(&a, base);
	char vb[48], tip[300];
	for (int i = 0; i < n; i++) {
		double y = top + i * row;
		text(o, x0 - 8, y + 15, "end", FONT, NULL, INK, r[i].label, lw);
		if (r[i].range)
			text(o, x0 - 8, y + 29, "end", SMALL, NULL, MUTED, r[i].range, lw);
		double v[2] = {r[i].lo, r[i].hi};
		const char *col[2] = {"#4e79a7", "#f28e2b"};
		const char *end[2] = {"low", "high"};
		bool fl[2] = {r[i].flips_lo, r[i].flips_hi};
		/* the longer bar first, so a shorter one on the same side stays visible */
		int order[2] = {0, 1};
		if (fabs(v[1] - base) > fabs(v[0] - base)) {
			order[0] = 1;
			order[1] = 0;
		}
		double minx = bx, maxx = bx;
		for (int k = 0; k < 2; k++) {
			int j = order[k];
			if (!isfinite(v[j]))
				continue;
			double px = ax(&a, v[j]);
			snprintf(tip, sizeof(tip), "%s at its %s end: %s", r[i].label, end[j],
				 value_words(f->xfmt, v[j], vb, sizeof(vb)));
			rect(o, fmin(px, bx), y + 7 + k * 2, fmax(fabs(px - bx), 1), 20 - k * 4, col[j], tip);
			minx = fmin(minx, px);
			maxx = fmax(maxx, px);
		}
		/* value labels at the outer ends */
		for (int j = 0; j < 2; j++) {
			if (!isfinite(v[j]))
				continue;
			double px = ax(&a, v[j]);
			bool is_left = px < bx || (px == bx && j == 0);
			if ((is_left && px != minx) || (!is_left && px != maxx))
				continue;
			char lab[80];
			snprintf(lab, sizeof(lab), "%s%s", fl[j] ? "\u2691 " : "",
				 value_words(f->xfmt, v[j], vb, sizeof(vb)));
			text(o, is_left ? px - 4 : px + 4, y + 21, is_left ? "end" : "start", SMALL, NULL,
			     fl[j] ? "#c0392b" : INK, lab, 0);
		}
	}
	line(o, bx, top - 8, bx, bottom, INK, 1.5, NULL);
	char bl[200];
	snprintf(bl, sizeof(bl), "%s %s", base_label ? base_label : "base",
		 value_words(f->xfmt, base, vb, sizeof(vb)));
	bool left = bx + pp_svg_text_width(bl, SMALL) + 6 > x1;
	text(o, left ? bx - 4 : bx + 4, top - 10, left ? "end" : "start", SMALL, "bold", INK, bl, 0);
	close_svg(o);
}

/* ---- histogram ---- */

void pp_svg_histogram(pp_sb *o, const pp_svg_frame *f, double lo, double hi, int nbins,
		      const pp_svg_hist *hs, int nh, const pp_svg_marker *m, int nm,
		      const char *empty)
{
	int w = f->width > 0 ? f->width : 720, h = f->height > 0 ? f->height : 360;
	double vmax = 0;
	for (int i = 0; i < nh; i++)
		for (int b = 0; b < nbins; b++)
			if (isfinite(hs[i].v[b]))
				vmax = fmax(vmax, hs[i].v[b]);
	if (nh <= 0 || nbins <= 0 || !(hi > lo) || vmax <= 0) {
		empty_chart(o, f, empty);
		return;
	}
	double x0 = 78, x1 = w - 24;
	legend_item *it = pp_xcalloc((size_t)nh + 1, sizeof(*it));
	for (int i = 0; i < nh; i++)
		it[i] = (legend_item){hs[i].name, hs[i].color, 0};
	double top = 6 + legend(o, x0, 6, x1 - x0, it, nh, false) + 18 + (nm > 0 ? 14.0 * ((nm - 1) % 3) : 0);
	double bottom = h - 46;
	open_svg(o, f, w, h);
	legend(o, x0, 6, x1 - x0, it, nh, true);
	axis xa, ya;
	axis_init(&xa, f->xfmt, lo, hi, x0, x1, 6);
	axis_init(&ya, f->yfmt, 0, vmax, bottom, top, 4);
	xaxis_draw(o, &xa, top, bottom, f->xlabel);
	yaxis_draw(o, &ya, x0, x1, f->ylabel, 16);
	double bw = (hi - lo) / nbins;
	for (int i = 0; i < nh; i++) {
		pp_sb_addf(o, "<path fill=\"%s\" fill-opacity=\"0.28\" stroke=\"%s\" stroke-width=\"%g\" d=\"M",
			   hs[i].color, hs[i].color, hs[i].bold ? 2.5 : 1.5);
		num(o, ax(&xa, lo));
		pp_sb_adds(o, " ");
		num(o, ax(&ya, 0));
		for (int b = 0; b < nbins; b++) {
			double v = isfinite(hs[i].v[b]) ? hs[i].v[b] : 0;
			pp_sb_adds(o, " L");
			num(o, ax(&xa, lo + b * bw));
			pp_sb_adds(o, " ");
			num(o, ax(&ya, v));
			pp_sb_adds(o, " L");
			num(o, ax(&xa, lo + (b + 1) * bw));
			pp_sb_adds(o, " ");
			num(o, ax(&ya, v));
		}
		pp_sb_adds(o, " L");
		num(o, ax(&xa, hi));
		pp_sb_adds(o, " ");
		num(o, ax(&ya, 0));
		pp_sb_adds(o, " Z\"><title>");
		pp_sb_add_html(o, hs[i].name);
		pp_sb_adds(o, "</title></path>\n");
	}
	for (int i = 0; i < nm; i++) {
		if (!isfinite(m[i].x))
			continue;
		double x = ax(&xa, m[i].x);
		double ty = top - 4 - 14.0 * ((nm - 1 - i) % 3);
		line(o, x, ty + 4, x, bottom, "#333", 1, "4 3");
		bool left = x + 6 + pp_svg_text_width(m[i].label, SMALL) > x1;
		text(o, left ? x - 3 : x + 3, ty, left ? "end" : "start", SMALL, NULL, INK, m[i].label, 0);
	}
	free(it);
	close_svg(o);
}
