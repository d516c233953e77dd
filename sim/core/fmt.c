/* fmt.c - see fmt.h. */
#include "core/fmt.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* "-" into buf: the one spelling of a value that is not there */
static const char *dash(char *buf, size_t n)
{
	snprintf(buf, n, "-");
	return buf;
}

const char *pp_fmt_duration(double s, char *buf, size_t n)
{
	if (!isfinite(s) || s < 0)
		return dash(buf, n);
	if (s < 1e-3)
		snprintf(buf, n, "%.1f us", s * 1e6);
	else if (s < 1.0)
		snprintf(buf, n, "%.1f ms", s * 1e3);
	else if (s < 120.0)
		snprintf(buf, n, "%.2f s", s);
	else if (s < 7200.0)
		snprintf(buf, n, "%.1f min", s / 60.0);
	else if (s < 3 * 86400.0)
		snprintf(buf, n, "%.1f h", s / 3600.0);
	else
		snprintf(buf, n, "%.1f days", s / 86400.0);
	return buf;
}

const char *pp_fmt_step(double s, char *buf, size_t n)
{
	if (!isfinite(s))
		return dash(buf, n);
	if (s < 1)
		snprintf(buf, n, "%.1f ms", s * 1e3);
	else
		snprintf(buf, n, "%.3f s", s);
	return buf;
}

const char *pp_fmt_ms(double s, int dec, char *buf, size_t n)
{
	if (!isfinite(s))
		return dash(buf, n);
	snprintf(buf, n, "%.*f ms", dec, s * 1e3);
	return buf;
}

const char *pp_fmt_wait(double s, char *buf, size_t n)
{
	if (isnan(s))
		return "-";
	if (s < 1) {
		snprintf(buf, n, "%.2f s", s);
		return buf;
	}
	return pp_fmt_duration(s, buf, n);
}

const char *pp_fmt_span(double s, char *buf, size_t n)
{
	if (isfinite(s) && s >= 60 * 86400.0) {
		snprintf(buf, n, "%.1f months", s / (365.25 / 12 * 86400.0));
		return buf;
	}
	return pp_fmt_duration(s, buf, n);
}

const char *pp_fmt_utc(double t, const char *fmt, char *buf, size_t n)
{
	struct tm tm;
	/* years 1970..9999: beyond, time_t and strftime's %Y would not hold it */
	if (!(t >= 0 && t < 253402300800.0))
		return dash(buf, n);
	time_t tt = (time_t)t;
	if (!gmtime_r(&tt, &tm) || !strftime(buf, n, fmt, &tm))
		snprintf(buf, n, "-");
	return buf;
}

const char *pp_fmt_bytes(double b, char *buf, size_t n)
{
	const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	int i = 0;
	if (!isfinite(b))
		return dash(buf, n);
	while (b >= 1024.0 && i < 5) {
		b /= 1024.0;
		i++;
	}
	snprintf(buf, n, i ? "%.1f %s" : "%.0f %s", b, u[i]);
	return buf;
}

/* The unit, divisor and decimals pp_fmt_usd prints an amount of magnitude
 * a (>= 0) in: the one rule its range form shares. */
typedef struct usd_unit {
	double div;
	const char *unit;
	int dec;
} usd_unit;

static usd_unit usd_unit_of(double a)
{
	if (a >= 1e9)
		return (usd_unit){1e9, "B", 2};
	if (a >= 1e6)
		return (usd_unit){1e6, "M", 2};
	if (a >= 1e4)
		return (usd_unit){1e3, "k", 1};
	if (a >= 100)
		return (usd_unit){1, "", 0};
	return (usd_unit){1, "", 2};
}

const char *pp_fmt_usd(double usd, char *buf, size_t n)
{
	if (!isfinite(usd))
		return dash(buf, n);
	usd_unit u = usd_unit_of(fabs(usd));
	snprintf(buf, n, "%s$%.*f%s", usd < 0 ? "-" : "", u.dec, fabs(usd) / u.div, u.unit);
	return buf;
}

const char *pp_fmt_usd_range(double lo, double hi, const char *sep, char *buf, size_t n)
{
	if (!isfinite(lo) || !isfinite(hi))
		return dash(buf, n);
	usd_unit u = usd_unit_of(fmax(fabs(lo), fabs(hi)));
	snprintf(buf, n, "%s$%.*f%s%s%s$%.*f%s", lo < 0 ? "-" : "", u.dec, fabs(lo) / u.div, u.unit,
		 sep, hi < 0 ? "-" : "", u.dec, fabs(hi) / u.div, u.unit);
	return buf;
}

const char *pp_fmt_unit_price(double usd, char *buf, size_t n)
{
	return pp_fmt_usd_sig(usd, 3, buf, n);
}

const char *pp_fmt_usd_sig(double usd, int sig, char *buf, size_t n)
{
	if (!isfinite(usd))
		return dash(buf, n);
	snprintf(buf, n, "$%.*g", sig, usd);
	return buf;
}

const char *pp_fmt_tokens(double t, char *buf, size_t n)
{
	if (!isfinite(t))
		return dash(buf, n);
	if (t >= 1e12)
		snprintf(buf, n, "%.3gT", t / 1e12);
	else if (t >= 1e9)
		snprintf(buf, n, "%.3gB", t / 1e9);
	else if (t >= 1e6)
		snprintf(buf, n, "%.3gM", t / 1e6);
	else
		snprintf(buf, n, "%.0f", t);
	return buf;
}

const char *pp_fmt_count(double v, char *buf, size_t n)
{
	if (!isfinite(v))
		return dash(buf, n);
	char d[48];
	snprintf(d, sizeof(d), "%.0f", fabs(v));
	size_t len = strlen(d), o = 0;
	if (v < 0 && o + 1 < n)
		buf[o++] = '-';
	for (size_t i = 0; i < len && o + 2 < n; i++) {
		buf[o++] = d[i];
		if ((len - i - 1) % 3 == 0 && i + 1 < len)
			buf[o++] = ',';
	}
	buf[o] = '\0';
	return buf;
}

const char *pp_fmt_pct(double share, int dec, char *buf, size_t n)
{
	if (!isfinite(share))
		return dash(buf, n);
	snprintf(buf, n, "%.*f%%", dec, 100 * share);
	return buf;
}

double pp_round_us(double s)
{
	return isfinite(s) ? round(s * 1e6) / 1e6 : s;
}

const char *pp_fmt_num(double v, char *buf, size_t n)
{
	if (!isfinite(v))
		return dash(buf, n);
	/* a whole number below 1e15 in full (1000, not %.1g's "1e+03");
	 * otherwise the fewest significant digits that read back as v: -3.99
	 * stays "-3.99" where %.17g would print "-3.9900000000000002" */
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(buf, n, "%.0f", v == 0 ? 0.0 : v);
		return buf;
	}
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, n, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}
