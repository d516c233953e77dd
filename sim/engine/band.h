/*
 * band.h - the stated uncertainty of a predicted step time: an 80%
 * interval of the step a real run would measure, and the validated runs it
 * rests on (calib/evidence.h computes it from podplan's errors on the
 * repository's validation sets). Plain data and its printing, so that
 * predict, search, size, cost and the report state it in one way.
 */
#ifndef PP_BAND_H
#define PP_BAND_H

#include "core/util.h"
#include <cjson/cJSON.h>
#include <stdbool.h>

#define PP_BAND_LISTED 8

typedef struct pp_band {
	bool on;                    /* computed (false: nothing to state) */
	bool near;                  /* rests on validated runs near the layout; false: the
				       default band of every validated run */
	double predicted_s;
	double lo_s, hi_s;          /* the 80% interval of the measured step */
	double f_lo, f_hi;          /* the same as measured / predicted */
	double coverage;            /* what the rule guarantees (>= 0.80) */
	int n;                      /* validated runs it rests on */
	int pool;                   /* validated runs there are */
	char method[96];            /* the rule, in words */
	char kind[8];               /* a default band of one kind of model: "dense", "MoE"; "" */
	int nlisted;                /* of n, the nearest listed in rows */
	char rows[PP_BAND_LISTED][64];
	char why[160];              /* on false: why there is none */
} pp_band;

/* "80% interval 2.910 s to 4.060 s (-9%/+27% of the prediction), from 5
 * validated runs near this layout (t-based, 4 degrees of freedom)", then a
 * second line "rests on: a, b, c" under it (indented by prefix's length);
 * where none is near, one line "... no validated run near this layout: the
 * band of all N validated dense runs (...)". No final newline. */
void pp_band_text(const pp_band *b, const char *prefix, pp_sb *out);
/* The interval for a table column: "2.91-4.06 s", "*" after it where no
 * validated run is near (the default band); "-" where there is none.
 * Returns buf. */
const char *pp_band_short(const pp_band *b, char *buf, size_t n);
/* The same under parent's key "interval": lo_s, hi_s, factor_lo,
 * factor_hi, near, runs (count), rows (the listed ids), method. */
void pp_band_json(const pp_band *b, cJSON *parent);
/* Half of the interval's width as a share of the prediction. */
double pp_band_half_width(const pp_band *b);
/* A step time t at the interval's pessimistic end (t x f_hi); t where
 * there is no band. */
double pp_band_pessimistic(const pp_band *b, double t);

#endif
