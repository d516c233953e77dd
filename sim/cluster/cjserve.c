/* cjserve.c - see cjobs.h: a serving deployment's columns in podplan's
 * jobs CSV (replicas_min, replicas_max, replica_rps, demand_rps) and the
 * hourly demand curve they name. */
#include "cluster/cjobs.h"
#include "cluster/cjobsint.h"
#include "core/csv.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HOURS 1000000

static int add_hour(pp_cserve_dep *d, int *cap, double v)
{
	if (d->nhours == MAX_HOURS)
		return -1;
	if (d->nhours == *cap) {
		*cap = *cap ? 2 * *cap : 32;
		d->demand_rps = pp_xrealloc(d->demand_rps, (size_t)*cap * sizeof(double));
	}
	d->demand_rps[d->nhours++] = v;
	return 0;
}

/* "hour,rps" rows, hours 0, 1, 2, ... in order */
static int demand_file(pp_cserve_dep *d, const char *jobs_file, int row, const char *cell,
		       pp_err *err)
{
	char dir[4096] = ".";
	const char *slash = strrchr(jobs_file, '/');
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - jobs_file), jobs_file);
	char *full = cell[0] == '/' ? pp_xstrdup(cell) : pp_path_join(dir, cell);
	pp_csv c;
	int rc = pp_csv_load(&c, full, err), cap = 0;
	if (rc) {
		char why[256];
		snprintf(why, sizeof(why), "%s", err->msg);
		rc = pp_errf(err, PP_EINPUT, "%s:%d: column demand_rps: found \"%s\", which is "
			     "neither numbers nor a readable file (%s); expected requests/s, hourly "
			     "values separated by ';', or a CSV \"hour,rps\"", jobs_file, row, cell,
			     why);
		free(full);
		return rc;
	}
	int ch = pp_csv_col(&c, "hour"), cr = pp_csv_col(&c, "rps");
	if (ch < 0 || cr < 0 || c.nrows < 2) {
		rc = pp_errf(err, PP_EINPUT, "%s:1: header: expected the columns hour,rps and at "
			     "least one row (the demand curve of %s row %d)", full, jobs_file, row);
		goto out;
	}
	for (int i = 1; i < c.nrows; i++) {
		double h, v;
		if ((rc = cj_num(full, i + 1, "hour", pp_csv_get(&c, i, ch), 0, MAX_HOURS, &h, err)) ||
		    (rc = cj_num(full, i + 1, "rps", pp_csv_get(&c, i, cr), 0, 1e12, &v, err)))
			goto out;
		if (h != i - 1) {
			rc = pp_errf(err, PP_EINPUT, "%s:%d: column hour: found \"%s\", expected %d "
				     "(hours in order from 0)", full, i + 1, pp_csv_get(&c, i, ch), i - 1);
			goto out;
		}
		add_hour(d, &cap, v);
	}
out:
	pp_csv_release(&c);
	free(full);
	return rc;
}

static int demand_cell(pp_cserve_dep *d, const char *file, int row, const char *cell,
		       pp_err *err)
{
	int cap = 0;
	const char *s = cell;
	char *end;
	/* numbers separated by ';' */
	for (;;) {
		double v = strtod(s, &end);
		if (end == s || !isfinite(v) || v < 0 || (*end && *end != ';'))
			break;
		if (add_hour(d, &cap, v))
			break;
		if (!*end)
			return 0;
		s = end + 1;
	}
	if (d->nhours > 0 || strchr(cell, ';'))
		return pp_errf(err, PP_EINPUT, "%s:%d: column demand_rps: found \"%s\", expected "
			       "requests/s >= 0, hourly values separated by ';'", file, row, cell);
	return demand_file(d, file, row, cell, err);
}

int cj_serve_cols(pp_cjobs *j, const char *file, const pp_csv *c, int i, pp_cjob *x,
		  const int cols[4], pp_err *err)
{
	static const char *const names[4] = {"replicas_min", "replicas_max", "replica_rps",
					     "demand_rps"};
	int row = i + 1, rc, given = 0;
	const char *v[4];
	for (int k = 0; k < 4; k++) {
		v[k] = cols[k] >= 0 ? pp_csv_get(c, i, cols[k]) : "";
		given += v[k][0] != 0;
	}
	if (!given)
		return 0;
	if (x->kind != PP_CJK_SERVE)
		return pp_errf(err, PP_EINPUT, "%s:%d: column kind: found \"%s\" beside replica "
			       "columns, expected serve (a serving deployment)", file, row,
			       pp_cjob_kind_names[x->kind]);
	for (int k = 2; k < 4; k++)
		if (!v[k][0])
			return pp_errf(err, PP_EINPUT, "%s:%d: column %s: found an empty cell, "
				       "expected it for a serving deployment (replica_rps and "
				       "demand_rps)", file, row, names[k]);
	if (x->scenario >= 0 || isnan(x->work_s))
		return pp_errf(err, PP_EINPUT, "%s:%d: column duration_s: found %s, expected the "
			       "deployment's lifetime in seconds (and no scenario)", file, row,
			       x->scenario >= 0 ? "a scenario" : "an empty cell");
	pp_cserve_dep d = {.min_replicas = 1, .max_replicas = -1};
	if ((v[0][0] && (rc = cj_int(file, row, names[0], v[0], 0, 100000, &d.min_replicas, err))) ||
	    (v[1][0] && (rc = cj_int(file, row, names[1], v[1], 1, 100000, &d.max_replicas, err))) ||
	    (rc = cj_num(file, row, names[2], v[2], 1e-9, 1e12, &d.replica_rps, err)))
		return rc;
	if (d.max_replicas < 0)
		d.max_replicas = d.min_replicas > 0 ? d.min_replicas : 1;
	if (d.max_replicas < d.min_replicas)
		return pp_errf(err, PP_EINPUT, "%s:%d: column replicas_max: found %d, expected at "
			       "least replicas_min (%d)", file, row, (int)d.max_replicas,
			       (int)d.min_replicas);
	if ((rc = demand_cell(&d, file, row, v[3], err))) {
		free(d.demand_rps);
		return rc;
	}
	j->serve = pp_xrealloc(j->serve, (size_t)(j->nserve + 1) * sizeof(*j->serve));
	j->serve[j->nserve] = d;
	x->serve = j->nserve++;
	return 0;
}
