/*
 * test_validate.c - the engine against published runs (issue 3 acceptance):
 * Korthikanti et al. 2022 Table 5 iteration times within 5% mean absolute
 * error, Narayanan et al. SC'21 Table 1 within 10%, Korthikanti Table 4
 * per-layer times within 3%, with the catalog's default A100 parameters.
 */
#include "harness.h"
#include "testutil.h"
#include "calib/validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pp_valset v;

static void check_group(const char *group, int min_rows, double max_mean)
{
	double mean = 0, max = 0;
	int n = pp_valset_summary(&v, group, &mean, &max);
	pp_t_diag("%s: %d rows, mean |error| %.2f%%, max %.2f%%", group, n, 100 * mean, 100 * max);
	CHECK(n >= min_rows);
	CHECK(mean <= max_mean);
}

static void published_runs(void)
{
	pp_err err = {0};
	int rc = pp_validate_csv(tu_catalog(), "models/validation/validation-public.csv", &v, &err);
	if (rc)
		pp_t_diag("%s", err.msg);
	CHECK(rc == 0);
	check_group("Korthikanti et al. 2022 Table 5", 8, 0.05);
	check_group("Narayanan et al. SC'21 Table 1", 10, 0.10);
	check_group("Korthikanti et al. 2022 Table 4", 5, 0.03);
}

static void bad_csv(void)
{
	char cmd[512], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s validate tests/bad/EXPECT", pp_t_bin());
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "missing column");
	free(out);
}

int main(void)
{
	RUN(published_runs);
	RUN(bad_csv);
	pp_valset_release(&v);
	return pp_t_done("test_validate");
}
