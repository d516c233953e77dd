/* montecarlo.c - see montecarlo.h. */
#include "cost/montecarlo.h"
#include "core/sortd.h"
#include "core/util.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct pp_mc {
	gsl_rng *r;
};

pp_mc *pp_mc_new(unsigned long seed)
{
	pp_mc *mc = calloc(1, sizeof(*mc));
	if (!mc)
		return NULL;
	mc->r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!mc->r) {
		free(mc);
		return NULL;
	}
	gsl_rng_set(mc->r, seed);
	return mc;
}

void pp_mc_free(pp_mc *mc)
{
	if (!mc)
		return;
	gsl_rng_free(mc->r);
	free(mc);
}

double pp_mc_uniform(pp_mc *mc)
{
	return gsl_rng_uniform(mc->r);
}

/* A point uniform in the unit disc, by rejection from the square
 * (Marsaglia's polar method, Knuth TAOCP vol. 2, 3.4.1 algorithm P): its
 * first coordinate into *u, its squared radius returned. GSL's
 * gsl_ran_lognormal draws the same pairs in the same order. */
static double polar_pair(pp_mc *mc, double *u)
{
	double x, y, r2;
	do {
		x = -1 + 2 * gsl_rng_uniform(mc->r);
		y = -1 + 2 * gsl_rng_uniform(mc->r);
		r2 = x * x + y * y;
	} while (r2 > 1.0 || r2 == 0);
	*u = x;
	return r2;
}

/* Whether a lognormal of this sigma draws (a NaN sigma does, as GSL's). */
static bool draws(double sigma)
{
	return !(sigma <= 0);
}

double pp_mc_lognormal(pp_mc *mc, double sigma)
{
	if (!draws(sigma))
		return 1.0;
	double u, r2 = polar_pair(mc, &u);
	return exp(sigma * (u * sqrt(-2.0 * log(r2) / r2)));
}

void pp_mc_lognormal_skip(pp_mc *mc, double sigma)
{
	double u;
	if (draws(sigma))
		(void)polar_pair(mc, &u);
}

double pp_mc_triangular_q(double lo, double mode, double hi, double p)
{
	if (hi <= lo)
		return lo;
	double fc = (mode - lo) / (hi - lo);
	if (p < fc)
		return lo + sqrt(p * (hi - lo) * (mode - lo));
	return hi - sqrt((1.0 - p) * (hi - lo) * (hi - mode));
}

double pp_mc_triangular(pp_mc *mc, double lo, double mode, double hi)
{
	return pp_mc_triangular_q(lo, mode, hi, gsl_rng_uniform(mc->r));
}

double pp_mc_loguniform_q(double lo, double hi, double p)
{
	if (hi <= lo)
		return lo;
	return exp(log(lo) + p * (log(hi) - log(lo)));
}

double pp_mc_loguniform(pp_mc *mc, double lo, double hi)
{
	return pp_mc_loguniform_q(lo, hi, gsl_rng_uniform(mc->r));
}

double pp_mc_lognormal_q(double sigma, double p)
{
	if (sigma <= 0)
		return 1.0;
	return exp(sigma * gsl_cdf_ugaussian_Pinv(p));
}

/* Sortable keys: a double's bits, the sign bit flipped for positive values
 * and every bit for negative ones, order as the values do. */
void pp_mc_summarize(const double *x, size_t n, pp_mc_stats *out)
{
	if (n == 0) {
		out->p10 = out->p50 = out->p90 = out->mean = out->min = out->max = NAN;
		out->q01 = out->q99 = NAN;
		return;
	}
	double *s = pp_xmalloc(n * sizeof(*s));
	pp_sort_doubles(x, n, s);
	out->p10 = gsl_stats_quantile_from_sorted_data(s, 1, n, 0.10);
	out->p50 = gsl_stats_quantile_from_sorted_data(s, 1, n, 0.50);
	out->p90 = gsl_stats_quantile_from_sorted_data(s, 1, n, 0.90);
	out->mean = gsl_stats_mean(s, 1, n);
	out->min = s[0];
	out->max = s[n - 1];
	out->q01 = s[(size_t)(0.01 * (double)(n - 1))];
	out->q99 = s[(size_t)(0.99 * (double)(n - 1))];
	free(s);
}

double pp_mc_order_stat(const double *x, size_t n, size_t k)
{
	double *s = pp_xmalloc(n * sizeof(*s));
	memcpy(s, x, n * sizeof(*s));
	double v = gsl_stats_select(s, 1, n, k);
	free(s);
	return v;
}
