/*
 * fmt.h - numbers in words for people: durations, dates, bytes, dollars,
 * token counts, percentages. Every formatter writes into the caller's buf
 * (n bytes, always terminated) and returns buf; every one prints "-" for a
 * value that is not finite, so no caller guards a NAN itself.
 */
#ifndef PP_FMT_H
#define PP_FMT_H

#include <stddef.h>

/* Seconds as "3.2 ms", "14.1 s", "2.3 h", "41.0 days"; "-" when negative. */
const char *pp_fmt_duration(double s, char *buf, size_t n);
/* A step time as predict prints one: "412.3 ms" below a second, "3.208 s"
 * from there. */
const char *pp_fmt_step(double s, char *buf, size_t n);
/* Seconds in milliseconds with dec decimals, whatever the size: "38.2 ms"
 * (a latency beside its bound or SLO). */
const char *pp_fmt_ms(double s, int dec, char *buf, size_t n);
/* A waiting time: "-" when NaN (none), "0.42 s" below a second, else as
 * pp_fmt_duration. */
const char *pp_fmt_wait(double s, char *buf, size_t n);
/* As pp_fmt_duration below 60 days, in months (of 365.25/12 days) from
 * there: "3.7 months" (finance reads long spans in months). */
const char *pp_fmt_span(double s, char *buf, size_t n);
/* Unix seconds t as UTC with strftime's fmt; "-" when t is not a time of
 * the years 1970..9999 (not finite, negative, huge). */
const char *pp_fmt_utc(double t, const char *fmt, char *buf, size_t n);
/* A byte count with binary prefixes: "79.1 GiB". */
const char *pp_fmt_bytes(double b, char *buf, size_t n);
/* Dollars: "$1.23B", "$1.23M", "$412.0k", "$880", "$8.80". */
const char *pp_fmt_usd(double usd, char *buf, size_t n);
/* Two amounts in the unit pp_fmt_usd gives the larger one, joined by sep:
 * "$0.91M - $2.03M"; "-" when either is not finite. */
const char *pp_fmt_usd_range(double lo, double hi, const char *sep, char *buf, size_t n);
/* A unit price to three significant digits: "$0.123", "$15.6". */
const char *pp_fmt_unit_price(double usd, char *buf, size_t n);
/* Dollars to sig significant digits, as printf's %g: "$98.31", "$1.234e+04"
 * (a price or a rate quoted to its precision, where pp_fmt_usd rounds). */
const char *pp_fmt_usd_sig(double usd, int sig, char *buf, size_t n);
/* A token count: "2T", "15.6B", "3.2M", "512". */
const char *pp_fmt_tokens(double t, char *buf, size_t n);
/* A whole number with thousands separators: "-1,234,567". */
const char *pp_fmt_count(double v, char *buf, size_t n);
/* Seconds rounded to the microsecond (a clock-dependent figure, such as
 * an elapsed time, in JSON); not finite: unchanged. */
double pp_round_us(double s);
/* A share as a percentage with dec decimals: 0.1234, 1 -> "12.3%". */
const char *pp_fmt_pct(double share, int dec, char *buf, size_t n);
/* A number as the shortest text that reads back as the same double
 * ("-3.99", "1000", "1e+300", "0.1"; whole numbers below 1e15 in full): for a figure quoted back to the user, as a
 * JSON value in a message. buf of 32 bytes holds any. */
const char *pp_fmt_num(double v, char *buf, size_t n);

#endif
