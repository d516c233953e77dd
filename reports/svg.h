/*
 * svg.h - chart primitives for the reports: stacked horizontal bars,
 * scatter, lines, tornado and histogram. Each call appends one complete
 * inline <svg> element (class "chart") with axes, tick labels, axis titles
 * and a legend, sized by its viewBox; CSS may scale it (max-width: 100%;
 * height: auto). Nothing needs a script or a network to render.
 *
 * Deterministic: the same data gives byte-identical output (coordinates
 * printed with one decimal, no clock, no random ids), so a report can be
 * diffed and golden-tested. Every text that reaches the SVG (names, labels,
 * titles, notes) goes through pp_sb_add_html: user-supplied names show as
 * text, never as markup.
 *
 * Values are in SI units of the axis format (US dollars, seconds, months,
 * fractions for percentages). NAN values are skipped: a bar row whose
 * values are NAN draws its note instead, a point with a NAN coordinate is
 * left out. Layout text widths are estimated (0.6 em per character), which
 * is what makes the output independent of installed fonts.
 */
#ifndef PP_SVG_H
#define PP_SVG_H

#include "core/util.h"
#include <stdbool.h>

typedef enum pp_svg_fmt {
	PP_SVG_NUM,     /* a plain number */
	PP_SVG_USD,     /* dollars: $0, $500k, $2.5M */
	PP_SVG_SECONDS, /* a duration; the axis picks one unit (us, ms, s, min, h, days) */
	PP_SVG_PCT,     /* a fraction shown as a percentage */
	PP_SVG_MONTHS   /* month numbers */
} pp_svg_fmt;

/* What every chart has. width 0 = 720; height 0 = computed from the rows
 * (bars, tornado) or 360 (the others). */
typedef struct pp_svg_frame {
	const char *id;      /* element id, unique in the page */
	const char *title;   /* accessible name (<title>) */
	const char *desc;    /* longer description (<desc>); may be NULL */
	int width, height;
	pp_svg_fmt xfmt, yfmt;
	const char *xlabel, *ylabel; /* axis titles; may be NULL */
} pp_svg_frame;

/* Stacked horizontal bars: ncat rows of nser stacked series (values >= 0).
 * Optional per row: a whisker lo..hi (P10-P90), a note drawn in place of
 * the bar (when every value of the row is NAN) or after it, and a label
 * after the bar end (the total). */
typedef struct pp_svg_bars {
	int ncat, nser;
	const char *const *cat;      /* row labels */
	const char *const *ser;      /* series names (legend) */
	const char *const *color;    /* per series, "#rrggbb" */
	const double *v;             /* ncat x nser, row-major */
	const double *lo, *hi;       /* whiskers per row; NULL or NAN = none */
	const char *whisker_label;   /* legend entry for the whiskers */
	const char *const *note;     /* per row, NULL entries = none; may be NULL */
	const char *const *endlabel; /* per row, NULL entries = none; may be NULL */
	int highlight;               /* row whose label is bold; -1 = none */
} pp_svg_bars;
void pp_svg_hbars(pp_sb *out, const pp_svg_frame *f, const pp_svg_bars *b);

/* Scatter with optional vertical whiskers (ylo..yhi) and labelled points. */
typedef struct pp_svg_point {
	double x, y, ylo, yhi;  /* ylo/yhi NAN = no whisker */
	const char *label;
	const char *color;
	bool highlight;         /* larger, outlined */
} pp_svg_point;
/* empty: the message drawn when no point has finite coordinates. */
void pp_svg_scatter(pp_sb *out, const pp_svg_frame *f, const pp_svg_point *p, int n,
		    const char *empty);

/* Lines over a shared x axis; markers are labelled vertical lines. */
typedef struct pp_svg_series {
	const char *name;
	const char *color;
	int n;
	const double *x, *y;
	bool bold;
} pp_svg_series;
typedef struct pp_svg_marker {
	double x;
	const char *label;
} pp_svg_marker;
void pp_svg_lines(pp_sb *out, const pp_svg_frame *f, const pp_svg_series *s, int ns,
		  const pp_svg_marker *m, int nm, const char *empty);

/* Tornado: one row per driver, a bar from base to the result at the low
 * end of the input and one to the result at the high end. */
typedef struct pp_svg_trow {
	const char *label;      /* the driver */
	const char *range;      /* the input range in words ("3.51 .. 4.54 $/GPU-h"); may be NULL */
	double lo, hi;          /* result at the low / high input */
	bool flips_lo, flips_hi;/* the answer changes at that end */
} pp_svg_trow;
void pp_svg_tornado(pp_sb *out, const pp_svg_frame *f, double base, const char *base_label,
		    const pp_svg_trow *r, int n, const char *empty);

/* Overlaid histograms over common bins [lo, hi) in nbins; v[b] is the
 * height of bin b (a share of draws with yfmt PP_SVG_PCT). */
typedef struct pp_svg_hist {
	const char *name;
	const char *color;
	const double *v;
	bool bold;
} pp_svg_hist;
void pp_svg_histogram(pp_sb *out, const pp_svg_frame *f, double lo, double hi, int nbins,
		      const pp_svg_hist *h, int nh, const pp_svg_marker *m, int nm,
		      const char *empty);

/* Axis ticks at 1-2-5 steps covering [lo, hi] with about `target` ticks;
 * writes at most max ticks, returns how many; alo and ahi get the axis range
 * (the first and last tick). lo == hi gives a range around the value. */
int pp_svg_ticks(double lo, double hi, int target, double *ticks, int max, double *alo,
		 double *ahi);

/* A value as an axis label of format fmt; for PP_SVG_SECONDS and
 * PP_SVG_USD the unit follows `span` (the axis' largest magnitude), so the
 * labels of one axis share a unit. Returns buf. */
const char *pp_svg_label(pp_svg_fmt fmt, double v, double span, char *buf, size_t n);

/* Estimated width in px of text at font size px (0.6 em per character,
 * UTF-8 continuation bytes not counted). */
double pp_svg_text_width(const char *s, double px);

#endif
