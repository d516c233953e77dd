/*
 * test_montecarlo.c - percentiles of the seeded draws against analytic
 * quantiles, reproducibility of a seed, and the percentile arithmetic on a
 * hand-worked sample.
 */
#include "harness.h"
#include "cost/montecarlo.h"

#include <math.h>
#include <stdlib.h>

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

int main(void)
{
	RUN(test_lognormal_percentiles);
	RUN(test_triangular);
	RUN(test_loguniform);
	RUN(test_seed_reproducible);
	RUN(test_summarize_hand);
	return pp_t_done("test_montecarlo");
}
