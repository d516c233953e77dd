/* montecarlo.c - see montecarlo.h. */
#include "cost/montecarlo.h"
#include "core/util.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
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

double pp_mc_lognormal(pp_mc *mc, double sigma)
{
	if (sigma <= 0)
		return 1.0;
	return gsl_ran_lognormal(mc->r, 0.0, sigma);
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
static uint64_t key_of(double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof(u));
	return u >> 63 ? ~u : u ^ 0x8000000000000000ull;
}

static double value_of(uint64_t k)
{
	uint64_t u = k >> 63 ? k ^ 0x8000000000000000ull : ~k;
	double v;
	memcpy(&v, &u, sizeof(v));
	return v;
}

/* x sorted ascending into out[n] (LSD radix sort, 16 bits a pass; out
 * is one of its two buffers, so a summary faults in 8 bytes a draw less). */
static void radix_sort(const double *x, size_t n, double *out)
{
	uint64_t *a = pp_xmalloc(n * sizeof(uint64_t)), *b = (uint64_t *)(void *)out;
	uint64_t *mine = a;
	size_t *cnt = pp_xcalloc((size_t)4 << 16, sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		a[i] = key_of(x[i]);
		for (int d = 0; d < 4; d++)
			cnt[((size_t)d << 16) + ((a[i] >> (16 * d)) & 0xffff)]++;
	}
	for (int d = 0; d < 4; d++) {
		size_t *c = cnt + ((size_t)d << 16);
		if (c[a[0] >> (16 * d) & 0xffff] == n)
			continue; /* every key has this digit */
		size_t sum = 0;
		for (size_t v = 0; v < 65536; v++) {
			size_t t = c[v];
			c[v] = sum;
			sum += t;
		}
		for (size_t i = 0; i < n; i++)
			b[c[(a[i] >> (16 * d)) & 0xffff]++] = a[i];
		uint64_t *t = a;
		a = b;
		b = t;
	}
	/* the keys back to doubles in out, in place when they are there */
	for (size_t i = 0; i < n; i++) {
		double v = value_of(a[i]);
		memcpy(out + i, &v, sizeof(v));
	}
	free(mine);
	free(cnt);
}

void pp_mc_summarize(const double *x, size_t n, pp_mc_stats *out)
{
	if (n == 0) {
		out->p10 = out->p50 = out->p90 = out->mean = out->min = out->max = NAN;
		out->q01 = out->q99 = NAN;
		return;
	}
	double *s = pp_xmalloc(n * sizeof(*s));
	radix_sort(x, n, s);
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
