/*
 * headroom.c - memory kept free for the caching allocator (headroom.h).
 */
#include "calib/headroom.h"
#include "core/csv.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADROOM_CSV "calibrations/framework-h200.csv"

int pp_headroom_measured(const pp_catalog *cat, const char *framework, pp_headroom *h,
			 pp_err *err)
{
	memset(h, 0, sizeof(*h));
	char *path = pp_path_join(pp_catalog_dir(cat), HEADROOM_CSV);
	pp_csv c;
	int rc = pp_csv_load(&c, path, err);
	free(path);
	if (rc)
		return rc;
	int jf = pp_csv_col(&c, "framework"), jr = pp_csv_col(&c, "measured_bytes"),
	    ja = pp_csv_col(&c, "measured_allocated_bytes");
	double *mine = pp_xmalloc(sizeof(double) * (size_t)(c.nrows + 1));
	double *all = pp_xmalloc(sizeof(double) * (size_t)(c.nrows + 1));
	int nm = 0, na = 0;
	for (int i = 1; jr >= 0 && ja >= 0 && i < c.nrows; i++) {
		const char *rs = pp_csv_get(&c, i, jr), *as = pp_csv_get(&c, i, ja);
		char *e1, *e2;
		double r = strtod(rs ? rs : "", &e1), a = strtod(as ? as : "", &e2);
		if (!rs || !as || e1 == rs || e2 == as || !(r > 0) || !(a > 0) || a > r)
			continue;
		all[na++] = 1 - a / r;
		const char *f = jf >= 0 ? pp_csv_get(&c, i, jf) : NULL;
		if (f && framework && !strcmp(f, framework))
			mine[nm++] = 1 - a / r;
	}
	if (!na) {
		rc = pp_errf(err, PP_ENOTFOUND, "models/%s: no run with measured_bytes and "
			     "measured_allocated_bytes", HEADROOM_CSV);
		goto out;
	}
	double *v = nm ? mine : all;
	int n = nm ? nm : na;
	gsl_sort(v, 1, (size_t)n);
	h->share = gsl_stats_median_from_sorted_data(v, 1, (size_t)n);
	h->runs = n;
	if (nm)
		snprintf(h->what, sizeof(h->what), "%.1f%% of each GPU's memory kept free: the median "
			 "reserve of PyTorch's caching allocator (1 - allocated / reserved) over %d "
			 "measured %s runs (models/%s)", 100 * h->share, n, framework, HEADROOM_CSV);
	else
		snprintf(h->what, sizeof(h->what), "%.1f%% of each GPU's memory kept free: the median "
			 "reserve of PyTorch's caching allocator (1 - allocated/reserved) over %d runs "
			 "of models/%s (none of %s, which allocates through it too)", 100 * h->share, n,
			 HEADROOM_CSV, framework ? framework : "");
out:
	free(mine);
	free(all);
	pp_csv_release(&c);
	return rc;
}

int pp_headroom_check(const pp_headroom *h, double bytes, double capacity, char *buf, size_t n)
{
	if (!(capacity > 0) || bytes > capacity || bytes <= capacity * (1 - h->share))
		return 0;
	snprintf(buf, n, "%.1f of %.1f GiB per GPU needed, more than the %.1f%% left after the "
		 "caching allocator's reserve (%.1f%%, sim/calib/headroom.h: the median measured "
		 "reserved over allocated): a real run may not start; more parallelism, recompute or "
		 "a smaller micro-batch would leave room", bytes / 1073741824.0,
		 capacity / 1073741824.0, 100 * (1 - h->share), 100 * h->share);
	return 1;
}

int pp_headroom_given(double share, pp_headroom *h, pp_err *err)
{
	memset(h, 0, sizeof(*h));
	if (!(share >= 0 && share <= 0.9))
		return pp_errf(err, PP_EINPUT, "--memory-headroom: found %g, expected a share of the "
			       "GPU's memory from 0 to 0.9", share);
	h->share = share;
	snprintf(h->what, sizeof(h->what), "%.1f%% of each GPU's memory kept free "
		 "(--memory-headroom)", 100 * share);
	return 0;
}
