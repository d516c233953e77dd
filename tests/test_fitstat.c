/*
 * test_fitstat.c - the medians the calibration fits report
 * (calib/fitstat.h), on values whose medians are read off by hand.
 */
#include "calib/fitstat.h"
#include "harness.h"

#include <math.h>

static void median(void)
{
	double odd[] = {5, 1, 4, 2, 3};
	CHECK(pp_fit_median(odd, 5) == 3);
	double even[] = {10, -2, 7, 1};
	CHECK(pp_fit_median(even, 4) == 4); /* (1 + 7) / 2 */
	double one[] = {42};
	CHECK(pp_fit_median(one, 1) == 42);
	CHECK(isnan(pp_fit_median(one, 0)));
	/* sorted in place, as the contract says */
	CHECK(odd[0] == 1 && odd[4] == 5);
}

static void median_finite(void)
{
	double v[] = {NAN, 8, INFINITY, 2, NAN, 6};
	CHECK(pp_fit_median_finite(v, 6) == 6); /* of 8, 2, 6 */
	double w[] = {NAN, -INFINITY};
	CHECK(isnan(pp_fit_median_finite(w, 2)));
	double x[] = {3, NAN, 1};
	CHECK(pp_fit_median_finite(x, 3) == 2);
}

int main(void)
{
	RUN(median);
	RUN(median_finite);
	return pp_t_done("test_fitstat");
}
