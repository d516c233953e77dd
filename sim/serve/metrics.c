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
