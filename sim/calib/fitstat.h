/*
 * fitstat.h - the order statistics the calibration fits report (fit.c,
 * sustained.c): medians that shrug off a throttled or noisy sample.
 */
#ifndef PP_FITSTAT_H
#define PP_FITSTAT_H

/* The median of v[0..n) (sorted in place: core/sortd.h); the mean of the
 * two middle values when n is even; NAN when n <= 0. */
double pp_fit_median(double *v, int n);

/* The median of the finite values of v[0..n) (v reordered); NAN when
 * none. */
double pp_fit_median_finite(double *v, int n);

#endif
