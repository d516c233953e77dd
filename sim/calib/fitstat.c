/* fitstat.c - see fitstat.h. */
#include "calib/fitstat.h"
#include "core/sortd.h"

#include <math.h>

double pp_fit_median(double *v, int n)
{
	if (n <= 0)
		return NAN;
	pp_sort_doubles(v, (size_t)n, v);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double pp_fit_median_finite(double *v, int n)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[k++] = v[i];
	return pp_fit_median(v, k);
}
