/*
 * test_fmt.c - the formatters of core/fmt.h: each unit boundary of the
 * dollar, duration, byte and token forms worked out by hand; the range form
 * printing both ends in the unit pp_fmt_usd gives the larger end, at every
 * boundary (the one rule both share); and "-" for every value that is not
 * finite, which no caller guards itself.
 */
#include "harness.h"
#include "core/fmt.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define IS(expr, want) CHECK(!strcmp((expr), (want)))

static void test_usd(void)
{
	char b[64];
	IS(pp_fmt_usd(8.8, b, sizeof(b)), "$8.80");
	IS(pp_fmt_usd(99.994, b, sizeof(b)), "$99.99");
	IS(pp_fmt_usd(100, b, sizeof(b)), "$100");
	IS(pp_fmt_usd(9999, b, sizeof(b)), "$9999");
	IS(pp_fmt_usd(10000, b, sizeof(b)), "$10.0k");
	IS(pp_fmt_usd(412345, b, sizeof(b)), "$412.3k");
	IS(pp_fmt_usd(1.234e6, b, sizeof(b)), "$1.23M");
	IS(pp_fmt_usd(2.5e9, b, sizeof(b)), "$2.50B");
	IS(pp_fmt_usd(-3.99, b, sizeof(b)), "-$3.99");
	IS(pp_fmt_usd(-552000, b, sizeof(b)), "-$552.0k");
}

/* the range's unit is pp_fmt_usd's for the larger end: its hi end prints
 * exactly as pp_fmt_usd prints it, on both sides of every boundary */
static void test_usd_range(void)
{
	char r[96], h[64], want[160];
	const double his[] = {50, 99.5, 100, 9999, 10000, 999949, 1e6, 2.03e6, 1e9, 4.2e9};
	for (size_t i = 0; i < sizeof(his) / sizeof(his[0]); i++) {
		pp_fmt_usd_range(his[i] / 3, his[i], " - ", r, sizeof(r));
		snprintf(want, sizeof(want), " - %s", pp_fmt_usd(his[i], h, sizeof(h)));
		size_t lr = strlen(r), lw = strlen(want);
		CHECK(lr > lw && !strcmp(r + lr - lw, want));
		if (!(lr > lw && !strcmp(r + lr - lw, want)))
			pp_t_diag("hi %g: range \"%s\", usd \"%s\"", his[i], r, h);
	}
	IS(pp_fmt_usd_range(909.2e3, 2.03e6, " - ", r, sizeof(r)), "$0.91M - $2.03M");
	IS(pp_fmt_usd_range(9156, 13200, "-", r, sizeof(r)), "$9.2k-$13.2k");
	IS(pp_fmt_usd_range(-1500, 20000, " .. ", r, sizeof(r)), "-$1.5k .. $20.0k");
	IS(pp_fmt_usd_range(55, 120, " - ", r, sizeof(r)), "$55 - $120");
}

static void test_others(void)
{
	char b[64];
	IS(pp_fmt_duration(0.0005, b, sizeof(b)), "500.0 us");
	IS(pp_fmt_duration(0.4596, b, sizeof(b)), "459.6 ms");
	IS(pp_fmt_duration(119.994, b, sizeof(b)), "119.99 s");
	IS(pp_fmt_duration(120, b, sizeof(b)), "2.0 min");
	IS(pp_fmt_duration(7200, b, sizeof(b)), "2.0 h");
	IS(pp_fmt_duration(3 * 86400, b, sizeof(b)), "3.0 days");
	IS(pp_fmt_duration(-1, b, sizeof(b)), "-");
	IS(pp_fmt_span(59 * 86400, b, sizeof(b)), "59.0 days");
	/* 365.25 / 12 days a month: 91.3125 days is three */
	IS(pp_fmt_span(91.3125 * 86400, b, sizeof(b)), "3.0 months");
	IS(pp_fmt_bytes(1023, b, sizeof(b)), "1023 B");
	IS(pp_fmt_bytes(80.0 * 1024 * 1024 * 1024, b, sizeof(b)), "80.0 GiB");
	IS(pp_fmt_tokens(2e12, b, sizeof(b)), "2T");
	IS(pp_fmt_tokens(15.6e9, b, sizeof(b)), "15.6B");
	IS(pp_fmt_tokens(512, b, sizeof(b)), "512");
	IS(pp_fmt_count(1051661, b, sizeof(b)), "1,051,661");
	IS(pp_fmt_count(-999, b, sizeof(b)), "-999");
	IS(pp_fmt_pct(0.1234, 1, b, sizeof(b)), "12.3%");
	IS(pp_fmt_pct(1, 0, b, sizeof(b)), "100%");
	IS(pp_fmt_unit_price(0.12345, b, sizeof(b)), "$0.123");
	IS(pp_fmt_usd_sig(98.3149, 4, b, sizeof(b)), "$98.31");
	IS(pp_fmt_usd_sig(12345, 4, b, sizeof(b)), "$1.234e+04");
	IS(pp_fmt_usd_sig(2.5, 3, b, sizeof(b)), "$2.5");
	IS(pp_fmt_step(0.41234, b, sizeof(b)), "412.3 ms");
	IS(pp_fmt_step(3.2084, b, sizeof(b)), "3.208 s");
	IS(pp_fmt_ms(0.03824, 1, b, sizeof(b)), "38.2 ms");
	IS(pp_fmt_ms(2.5, 0, b, sizeof(b)), "2500 ms");
	IS(pp_fmt_utc(1700000000, "%Y-%m-%d %H:%M", b, sizeof(b)), "2023-11-14 22:13");
	/* the shortest text that reads back as the double */
	IS(pp_fmt_num(-3.99, b, sizeof(b)), "-3.99");
	IS(pp_fmt_num(0.1 + 0.2, b, sizeof(b)), "0.30000000000000004");
	IS(pp_fmt_num(123456789, b, sizeof(b)), "123456789");
	IS(pp_fmt_num(1000, b, sizeof(b)), "1000");
	IS(pp_fmt_num(1e300, b, sizeof(b)), "1e+300");
	IS(pp_fmt_num(2.5e-7, b, sizeof(b)), "2.5e-07");
	IS(pp_fmt_num(0, b, sizeof(b)), "0");
	IS(pp_fmt_num(DBL_MAX, b, sizeof(b)), "1.7976931348623157e+308");
}

/* no formatter prints "nan", "inf" or a unit after one */
static void test_not_finite(void)
{
	const double bad[] = {NAN, INFINITY, -INFINITY};
	char b[64];
	for (size_t i = 0; i < 3; i++) {
		double v = bad[i];
		IS(pp_fmt_duration(v, b, sizeof(b)), "-");
		IS(pp_fmt_span(v, b, sizeof(b)), "-");
		IS(pp_fmt_utc(v, "%Y", b, sizeof(b)), "-");
		IS(pp_fmt_bytes(v, b, sizeof(b)), "-");
		IS(pp_fmt_usd(v, b, sizeof(b)), "-");
		IS(pp_fmt_usd_range(v, 1, "-", b, sizeof(b)), "-");
		IS(pp_fmt_usd_range(1, v, "-", b, sizeof(b)), "-");
		IS(pp_fmt_unit_price(v, b, sizeof(b)), "-");
		IS(pp_fmt_usd_sig(v, 4, b, sizeof(b)), "-");
		IS(pp_fmt_step(v, b, sizeof(b)), "-");
		IS(pp_fmt_ms(v, 1, b, sizeof(b)), "-");
		IS(pp_fmt_tokens(v, b, sizeof(b)), "-");
		IS(pp_fmt_count(v, b, sizeof(b)), "-");
		IS(pp_fmt_pct(v, 1, b, sizeof(b)), "-");
		IS(pp_fmt_num(v, b, sizeof(b)), "-");
	}
}

int main(void)
{
	RUN(test_usd);
	RUN(test_usd_range);
	RUN(test_others);
	RUN(test_not_finite);
	return pp_t_done("test_fmt");
}
