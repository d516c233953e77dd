/*
 * band.c - the printing of a step-time interval (band.h).
 */
#include "engine/band.h"
#include "core/fmt.h"
#include "core/jsonout.h"
#include <math.h>
#include <stdio.h>
#include <string.h>


const char *pp_band_short(const pp_band *b, char *buf, size_t n)
{
	if (!b || !b->on)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.3g-%.3g s%s", b->lo_s, b->hi_s, b->near ? "" : "*");
	return buf;
}

void pp_band_text(const pp_band *b, const char *prefix, pp_sb *out)
{
	if (!b || !b->on) {
		pp_sb_addf(out, "%s80%% interval: none (%s)", prefix, b && b->why[0] ? b->why : "not computed");
		return;
	}
	char lo[32], hi[32];
	pp_sb_addf(out, "%s80%% interval %s to %s (%+.0f%%/%+.0f%% of the prediction), ", prefix,
		   pp_fmt_step(b->lo_s, lo, sizeof(lo)), pp_fmt_step(b->hi_s, hi, sizeof(hi)),
		   100 * (b->f_lo - 1), 100 * (b->f_hi - 1));
	if (b->near)
		pp_sb_addf(out, "from %d validated run%s near this layout (%s)\n%*srests on: ", b->n,
			   b->n == 1 ? "" : "s", b->method, (int)strlen(prefix), "");
	else
		pp_sb_addf(out, "no validated run near this layout: the band of all %d validated%s%s "
			   "runs (%s)", b->n, b->kind[0] ? " " : "", b->kind, b->method);
	if (b->near) {
		for (int i = 0; i < b->nlisted; i++)
			pp_sb_addf(out, "%s%s", i ? ", " : "", b->rows[i]);
		if (b->n > b->nlisted)
			pp_sb_addf(out, " and %d more", b->n - b->nlisted);
	}
}

void pp_band_json(const pp_band *b, cJSON *parent)
{
	if (!b || !b->on) {
		pp_json_null(parent, "interval");
		return;
	}
	cJSON *o = pp_json_obj(parent, "interval");
	pp_json_num(o, "lo_s", b->lo_s, 9);
	pp_json_num(o, "hi_s", b->hi_s, 9);
	pp_json_num(o, "factor_lo", b->f_lo, 6);
	pp_json_num(o, "factor_hi", b->f_hi, 6);
	pp_json_num(o, "coverage", b->coverage, 6);
	pp_json_bool(o, "near", b->near);
	pp_json_int(o, "runs", b->n);
	pp_json_str(o, "method", b->method);
	cJSON *r = pp_json_arr(o, "rows");
	for (int i = 0; i < b->nlisted; i++)
		cJSON_AddItemToArray(r, cJSON_CreateString(b->rows[i]));
}

double pp_band_half_width(const pp_band *b)
{
	return b && b->on ? (b->f_hi - b->f_lo) / 2 : NAN;
}

double pp_band_pessimistic(const pp_band *b, double t)
{
	return b && b->on ? t * b->f_hi : t;
}
