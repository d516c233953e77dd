/* metrics.c - see metrics.h. */
#include "serve/metrics.h"
#include "core/sortd.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <string.h>

double pp_serve_percentile(const double *sorted, size_t n, double p)
{
	if (n == 0)
		return 0;
	return gsl_stats_quantile_from_sorted_data(sorted, 1, n, p / 100.0);
}

void pp_serve_stat_of(double *v, size_t n, double pct, pp_serve_stat *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	if (n == 0)
		return;
	pp_sort_doubles(v, n, v);
	double mean = gsl_stats_mean(v, 1, n), ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	out->mean = mean;
	out->std = sqrt(ss / (double)n);
	out->median = pp_serve_percentile(v, n, 50);
	out->p99 = pp_serve_percentile(v, n, 99);
	out->pct = pp_serve_percentile(v, n, pct);
}

void pp_serve_pct_of(double *v, size_t n, double pct, pp_serve_stat *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	out->mean = out->std = out->median = out->p99 = NAN;
	for (int k = 0; k < PP_SERVE_MAX_PCTS; k++)
		out->pcts[k] = NAN;
	if (n == 0)
		return;
	/* the rank below the percentile, as GSL's quantile rule takes it;
	 * GSL's quickselect partitions in place: v[lhs] holds it, nothing
	 * after it is smaller, and the least of those is the rank above
	 * (test_serve checks both against a sort) */
	size_t lhs = (size_t)(int)(pct / 100.0 * (double)(n - 1));
	if (lhs >= n)
		lhs = n - 1;
	(void)gsl_stats_select(v, 1, n, lhs);
	if (lhs + 1 < n) {
		size_t m = lhs + 1;
		for (size_t i = lhs + 2; i < n; i++)
			if (v[i] < v[m])
				m = i;
		double t = v[lhs + 1];
		v[lhs + 1] = v[m];
		v[m] = t;
	}
	out->pct = pp_serve_percentile(v, n, pct);
}
