/*
 * montecarlo.h - seeded random draws and percentiles for the TCO engine's
 * uncertainty: GSL's Mersenne Twister (gsl_rng_mt19937) behind a small
 * handle, the distributions the cost inputs use (lognormal factors with
 * median 1, triangular, log-uniform), their quantile functions (for the
 * tornado's low/high inputs), and P10/P50/P90 of a sample.
 *
 * Reproducible: the same seed gives the same draws on every platform GSL
 * supports (mt19937 is specified bit for bit).
 */
#ifndef PP_MONTECARLO_H
#define PP_MONTECARLO_H

#include <stddef.h>

typedef struct pp_mc pp_mc;

/* A generator seeded with seed (0 is a valid seed: GSL maps it to its
 * default 4357). Returns NULL when out of memory. */
pp_mc *pp_mc_new(unsigned long seed);
void pp_mc_free(pp_mc *mc);

/* Uniform on [0, 1). */
double pp_mc_uniform(pp_mc *mc);
/* exp(N(0, sigma^2)): a multiplicative factor with median 1; the value
 * gsl_ran_lognormal(r, 0, sigma) gives from the same generator (GSL 2.7's
 * polar method; tests/test_montecarlo checks it draw for draw). Written
 * here rather than called from GSL because GSL does not say how many
 * uniforms a draw takes, which pp_mc_lognormal_skip must consume without
 * paying for the log, square root and exponential. */
double pp_mc_lognormal(pp_mc *mc, double sigma);
/* The random numbers pp_mc_lognormal(mc, sigma) would consume, consumed
 * without computing its value: a later draw is the same either way (a
 * rank skipping another rank's block of Monte Carlo draws). */
void pp_mc_lognormal_skip(pp_mc *mc, double sigma);
/* Triangular on [lo, hi] with mode (lo <= mode <= hi), by inverse CDF. */
double pp_mc_triangular(pp_mc *mc, double lo, double mode, double hi);
/* Log-uniform on [lo, hi] (lo, hi > 0). */
double pp_mc_loguniform(pp_mc *mc, double lo, double hi);

/* Quantile functions (0 < p < 1) of the same distributions. */
double pp_mc_lognormal_q(double sigma, double p);
double pp_mc_triangular_q(double lo, double mode, double hi, double p);
double pp_mc_loguniform_q(double lo, double hi, double p);

typedef struct pp_mc_stats {
	double p10, p50, p90, mean, min, max;
	/* the order statistics at (int)(0.01 (n - 1)) and (int)(0.99 (n - 1)):
	 * a histogram's default range (pp_mc_order_stat) */
	double q01, q99;
} pp_mc_stats;

/* Percentiles (GSL's linear interpolation between order statistics) and
 * mean (GSL's running mean, over the sorted sample) of x[0..n-1]; x is
 * not modified. n == 0 gives NANs. O(n): the sample is sorted by
 * pp_sort_doubles (core/sortd.h), in the order a comparison sort gives, so
 * the mean is the one a sort gives. */
void pp_mc_summarize(const double *x, size_t n, pp_mc_stats *out);

/* The k-th smallest of x[0..n-1] (0 <= k < n), x not modified: GSL's
 * selection (gsl_stats_select, quickselect) on a copy, O(n). */
double pp_mc_order_stat(const double *x, size_t n, size_t k);

#endif
