/*
 * test_montecarlo.c - percentiles of the seeded draws against analytic
 * quantiles, reproducibility of a seed, and the percentile arithmetic on a
 * hand-worked sample.
 */
#include "harness.h"
#include "cost/montecarlo.h"
#include "core/pp.h"
#include "core/sortd.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N 200000

static void test_lognormal_percentiles(void)
{
	/* exp(N(0, 0.2^2)): P10 = exp(-1.281552 x 0.2) = 0.773902, P50 = 1,
	 * P90 = exp(+0.2563104) = 1.292154, mean = exp(0.02) = 1.020201 */
	pp_mc *mc = pp_mc_new(12345);
	double *x = malloc(N * sizeof(double));
	for (int i = 0; i < N; i++)
		x[i] = pp_mc_lognormal(mc, 0.2);
	pp_mc_stats st;
	pp_mc_summarize(x, N, &st);
	CHECK_NEAR(st.p10, 0.773902, 0.005);
	CHECK_NEAR(st.p50, 1.0, 0.005);
	CHECK_NEAR(st.p90, 1.292154, 0.005);
	CHECK_NEAR(st.mean, 1.020201, 0.005);
	CHECK_NEAR(pp_mc_lognormal_q(0.2, 0.9), 1.292154, 1e-5);
	free(x);
	pp_mc_free(mc);
}

/* pp_mc_lognormal is GSL's lognormal draw for draw (the same values from
 * the same generator), and its skip consumes what it does: a stream of
 * draws, some skipped, stays on GSL's stream; the sigmas include 0 (no
 * random number taken), -1 (none) and NaN (drawn, NaN) */
static void test_lognormal_is_gsl_and_skips(void)
{
	/* seven sigmas against a skip every third draw: each sigma is drawn
	 * and skipped */
	static const double sig[] = {0.2, 0.05, 0, 0.6, 1e-3, NAN, -1};
	pp_mc *mc = pp_mc_new(20261130);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 20261130);
	int same = 0, total = 0;
	for (int i = 0; i < N; i++) {
		double s = sig[i % 7];
		double want = s <= 0 ? 1.0 : gsl_ran_lognormal(r, 0.0, s);
		if (i % 3 == 1) {
			pp_mc_lognormal_skip(mc, s);
			continue;
		}
		total++;
		double got = pp_mc_lognormal(mc, s);
		same += got == want || (isnan(got) && isnan(want));
	}
	CHECK(total > 0 && same == total);
	CHECK(pp_mc_uniform(mc) == gsl_rng_uniform(r));
	gsl_rng_free(r);
	pp_mc_free(mc);
}

static void test_triangular(void)
{
	/* triangular(0, 1, 3): F(mode) = 1/3, so the median is on the right:
	 * 3 - sqrt(0.5 x 3 x 2) = 3 - sqrt(3) = 1.267949; P10 = sqrt(0.1 x 3 x 1) = 0.547723;
	 * mean (0 + 1 + 3)/3 = 1.333333 */
	CHECK_NEAR(pp_mc_triangular_q(0, 1, 3, 0.5), 1.267949, 1e-6);
	CHECK_NEAR(pp_mc_triangular_q(0, 1, 3, 0.1), 0.547723, 1e-6);
	pp_mc *mc = pp_mc_new(99);
	double *x = malloc(N * sizeof(double));
	for (int i = 0; i < N; i++)
		x[i] = pp_mc_triangular(mc, 0, 1, 3);
	pp_mc_stats st;
	pp_mc_summarize(x, N, &st);
	CHECK_NEAR(st.p50, 1.267949, 0.01);
	CHECK_NEAR(st.p10, 0.547723, 0.01);
	CHECK_NEAR(st.mean, 4.0 / 3.0, 0.01);
	CHECK(st.min >= 0 && st.max <= 3);
	free(x);
	pp_mc_free(mc);
}

static void test_loguniform(void)
{
	/* log-uniform on [1, 100]: median 10, P10 = 100^0.1 = 1.584893 */
	pp_mc *mc = pp_mc_new(5);
	double *x = malloc(N * sizeof(double));
	for (int i = 0; i < N; i++)
		x[i] = pp_mc_loguniform(mc, 1, 100);
	pp_mc_stats st;
	pp_mc_summarize(x, N, &st);
	CHECK_NEAR(st.p50, 10, 0.02);
	CHECK_NEAR(st.p10, 1.584893, 0.02);
	free(x);
	pp_mc_free(mc);
}

static void test_seed_reproducible(void)
{
	pp_mc *a = pp_mc_new(2026), *b = pp_mc_new(2026), *c = pp_mc_new(2027);
	int same = 1, differ = 0;
	for (int i = 0; i < 1000; i++) {
		double x = pp_mc_uniform(a), y = pp_mc_uniform(b), z = pp_mc_uniform(c);
		same &= x == y;
		differ |= x != z;
	}
	CHECK(same);
	CHECK(differ);
	pp_mc_free(a);
	pp_mc_free(b);
	pp_mc_free(c);
}

static void test_summarize_hand(void)
{
	/* 1..10 (unsorted on purpose): GSL interpolates at index p x (n - 1):
	 * P10 at 0.9 -> 1.9, P50 at 4.5 -> 5.5, P90 at 8.1 -> 9.1; mean 5.5 */
	double x[] = {7, 3, 10, 1, 5, 9, 2, 8, 4, 6};
	pp_mc_stats st;
	pp_mc_summarize(x, 10, &st);
	CHECK_NEAR(st.p10, 1.9, 1e-12);
	CHECK_NEAR(st.p50, 5.5, 1e-12);
	CHECK_NEAR(st.p90, 9.1, 1e-12);
	CHECK_NEAR(st.mean, 5.5, 1e-12);
	CHECK(x[0] == 7); /* not modified */
	pp_mc_summarize(x, 0, &st);
	CHECK(isnan(st.p50));
}

/* The summary without a comparison sort equals GSL's on the sample sorted
 * by gsl_sort, bit for bit (the mean adds in sorted order), on samples with
 * negatives, ties, zeros, infinities and spans of exponent; the selected
 * order statistics are the sorted sample's. */
static void test_summarize_equals_sorted(void)
{
	pp_mc *mc = pp_mc_new(7);
	int bad = 0, cases = 0;
	for (int t = 0; t < 40; t++) {
		size_t n = t < 10 ? (size_t)(t + 1) : (size_t)(1000 + 997 * t);
		double *x = malloc(n * sizeof(double)), *s = malloc(n * sizeof(double));
		for (size_t i = 0; i < n; i++) {
			double u = pp_mc_uniform(mc);
			x[i] = t % 5 == 0 ? 1e6 * pp_mc_lognormal(mc, 0.3)     /* costs */
			       : t % 5 == 1 ? (u - 0.5) * pow(10, 40 * u - 20) /* signs, exponents */
			       : t % 5 == 2 ? floor(8 * u) - 3                 /* ties and zeros */
			       : t % 5 == 3 ? (u < 0.01 ? -INFINITY : u > 0.99 ? INFINITY : u)
					    : (u - 0.5) * 1e20 + 1; /* a mean that depends on the order */
		}
		memcpy(s, x, n * sizeof(double));
		gsl_sort(s, 1, n);
		pp_mc_stats st;
		pp_mc_summarize(x, n, &st);
		double want[] = {gsl_stats_quantile_from_sorted_data(s, 1, n, 0.10),
				 gsl_stats_quantile_from_sorted_data(s, 1, n, 0.50),
				 gsl_stats_quantile_from_sorted_data(s, 1, n, 0.90),
				 gsl_stats_mean(s, 1, n), s[0], s[n - 1],
				 s[(int)(0.01 * (double)(n - 1))], s[(int)(0.99 * (double)(n - 1))]};
		double got[] = {st.p10, st.p50, st.p90, st.mean, st.min, st.max, st.q01, st.q99};
		for (size_t i = 0; i < PP_ARRAY_LEN(got); i++, cases++)
			bad += memcmp(&got[i], &want[i], sizeof(double)) != 0 &&
			       !(isnan(got[i]) && isnan(want[i]));
		for (size_t k = 0; k < n; k += n / 7 + 1, cases++)
			bad += pp_mc_order_stat(x, n, k) != s[k];
		free(x);
		free(s);
	}
	pp_t_diag("%d figures of 40 samples against gsl_sort: %d differ", cases, bad);
	CHECK(bad == 0);
	pp_mc_free(mc);
}

/* pp_sort_doubles in place (as the serving metrics call it) gives
 * gsl_sort's order bit for bit, on latencies with ties and a spread of
 * exponents; an empty array is left alone. */
static void test_sort_in_place(void)
{
	pp_mc *mc = pp_mc_new(11);
	int bad = 0;
	for (int t = 0; t < 12; t++) {
		size_t n = (size_t)1 << (t + 4);
		double *x = malloc(n * sizeof(double)), *s = malloc(n * sizeof(double));
		for (size_t i = 0; i < n; i++) {
			double u = pp_mc_uniform(mc);
			x[i] = t % 3 == 0 ? floor(16 * u) * 1e-3 : t % 3 == 1 ? pow(10, 12 * u - 9)
											 : u - 0.5;
		}
		memcpy(s, x, n * sizeof(double));
		gsl_sort(s, 1, n);
		pp_sort_doubles(x, n, x);
		bad += memcmp(x, s, n * sizeof(double)) != 0;
		free(x);
		free(s);
	}
	CHECK(bad == 0);
	pp_sort_doubles(NULL, 0, NULL);
	pp_mc_free(mc);
}

int main(void)
{
	RUN(test_lognormal_percentiles);
	RUN(test_lognormal_is_gsl_and_skips);
	RUN(test_triangular);
	RUN(test_loguniform);
	RUN(test_seed_reproducible);
	RUN(test_summarize_hand);
	RUN(test_summarize_equals_sorted);
	RUN(test_sort_in_place);
	return pp_t_done("test_montecarlo");
}
