/* cjcell.c - the cells of a job record, as every job format writes them
 * (cjobsint.h): dates and times, Slurm's durations, bounded numbers and the
 * columns a format requires; shared by podplan's own CSV (cjobs.c) and the
 * importers (cjobimport.c). */
#include "cluster/cjobs.h"
#include "cluster/cjobsint.h"
#include "core/csv.h"
#include "core/util.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* days from 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
 * days_from_civil, public domain) */
static long days_from_civil(long y, unsigned m, unsigned d)
{
	y -= m <= 2;
	long era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (long)doe - 719468;
}

double pp_cjobs_parse_time(const char *s)
{
	int y, mo, d, h, mi, n = 0;
	double sec;
	char sep;
	if (sscanf(s, "%4d-%2d-%2d%c%2d:%2d:%lf%n", &y, &mo, &d, &sep, &h, &mi, &sec, &n) != 7 ||
	    (sep != ' ' && sep != 'T') || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || !(sec >= 0 && sec < 61))
		return -1;
	double t = (double)days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400.0 + h * 3600.0 +
		   mi * 60.0 + sec;
	const char *z = s + n;
	if (*z == '+' || *z == '-') {
		int oh, om = 0;
		if (sscanf(z + 1, "%2d:%2d", &oh, &om) < 1)
			return -1;
		double off = oh * 3600.0 + om * 60.0;
		t -= *z == '+' ? off : -off;
	} else if (*z == 'Z') {
		/* UTC */
	} else if (*z && *z != ' ') {
		return -1;
	}
	return t;
}

double pp_cjobs_parse_slurm_duration(const char *s)
{
	if (!strcmp(s, "UNLIMITED") || !strcmp(s, "Partition_Limit"))
		return INFINITY;
	long dd = 0, a = 0, b = 0, c = 0;
	int n = 0;
	const char *p = s;
	if (strchr(s, '-')) {
		if (sscanf(p, "%ld-%n", &dd, &n) != 1 || dd < 0)
			return -1;
		p += n;
	}
	int k = sscanf(p, "%ld:%ld:%ld%n", &a, &b, &c, &n);
	if (k == 3 && !p[n])
		return dd * 86400.0 + a * 3600.0 + b * 60.0 + c;
	k = sscanf(p, "%ld:%ld%n", &a, &b, &n);
	if (k == 2 && !p[n])
		return dd ? dd * 86400.0 + a * 3600.0 + b * 60.0 : a * 60.0 + b;
	k = sscanf(p, "%ld%n", &a, &n);
	if (k == 1 && !p[n])
		return dd ? dd * 86400.0 + a * 3600.0 : a * 60.0;
	return -1;
}

int cj_num(const char *file, int row, const char *col, const char *s, double lo, double hi,
	   double *out, pp_err *err)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v) || v < lo || v > hi)
		return pp_errf(err, PP_EINPUT, "%s:%d: column %s: found \"%s\", expected a number "
			       "in [%g, %g]", file, row, col, s, lo, hi);
	*out = v;
	return 0;
}

int cj_int(const char *file, int row, const char *col, const char *s, long lo, long hi,
	   int32_t *out, pp_err *err)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (end == s || *end || v < lo || v > hi)
		return pp_errf(err, PP_EINPUT, "%s:%d: column %s: found \"%s\", expected an integer "
			       "in [%ld, %ld]", file, row, col, s, lo, hi);
	*out = (int32_t)v;
	return 0;
}

int cj_time(const char *file, int row, const char *col, const char *s, double *out, pp_err *err)
{
	double t = pp_cjobs_parse_time(s);
	if (t < 0)
		return pp_errf(err, PP_EINPUT, "%s:%d: column %s: found \"%s\", expected a date and "
			       "time YYYY-MM-DD HH:MM:SS (an offset +HH:MM allowed)", file, row, col,
			       s);
	*out = t;
	return 0;
}

int cj_need(const char *file, const pp_csv *c, const char *const *cols, int n, int *idx,
	    const char *fmt, pp_err *err)
{
	for (int i = 0; i < n; i++) {
		idx[i] = pp_csv_col(c, cols[i]);
		if (idx[i] < 0)
			return pp_errf(err, PP_EINPUT, "%s:1: header: no column \"%s\"; expected the "
				       "%s columns (docs/cluster.md)", file, cols[i], fmt);
	}
	return 0;
}
