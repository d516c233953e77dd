/*
 * metrics.h - the per-metric statistics `vllm bench serve` reports
 * (calculate_metrics in vllm/benchmarks/serve.py at 0307428d): mean,
 * standard deviation (numpy's np.std: of the population), median and
 * percentiles as np.percentile computes them (linear between the two
 * nearest ranks: GSL's gsl_stats_quantile_from_sorted_data is the same
 * rule). Seconds in, seconds out.
 */
#ifndef PP_METRICS_H
#define PP_METRICS_H

#include <stddef.h>

#define PP_SERVE_MAX_PCTS 8

typedef struct pp_serve_stat {
	size_t n;
	double mean, std, median, p99;
	double pct;          /* at the requested percentile (the SLO's) */
	double pcts[PP_SERVE_MAX_PCTS]; /* at pp_serve_setup's extra percentiles */
} pp_serve_stat;

/* Statistics of v[n] (sorted in place), with the percentile pct (0..100)
 * besides the median and p99. An empty set gives zeros. */
void pp_serve_stat_of(double *v, size_t n, double pct, pp_serve_stat *out);

/* Only out->n and out->pct (the rest NAN) of v[n], v reordered and
 * partly overwritten: the percentile's two order statistics found by
 * selection (gsl_stats_select, O(n); for a high percentile of many
 * values, over the few not under a threshold drawn from a sample and
 * checked) instead of a sort, then np.percentile's rule on them as
 * pp_serve_percentile applies it, so pct equals pp_serve_stat_of's bit for
 * bit. For the searches that read a run's SLO percentiles alone. */
void pp_serve_pct_of(double *v, size_t n, double pct, pp_serve_stat *out);

/* The p-th percentile (0..100) of sorted v[n], np.percentile's rule. */
double pp_serve_percentile(const double *sorted, size_t n, double p);

#endif
