/*
 * cmd_validate.c - podplan validate FILE.csv [--csv]: predict published
 * runs and print measured, predicted and the error per row, with the mean
 * and max absolute error per table.
 */
#include "cli.h"
#include "validate.h"

#include <getopt.h>
#include <math.h>
#include <string.h>

int pp_cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = {
		{"csv", no_argument, NULL, 'c'}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	bool csv = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ch", opts, NULL)) != -1) {
		switch (c) {
		case 'c': csv = true; break;
		case 'h':
			printf("usage: podplan validate FILE.csv [--csv]\n\n"
			       "Predicts each published run of FILE.csv (the layout of\n"
			       "validation-public.csv) whose configuration is complete, and prints\n"
			       "measured, predicted and the error per row, then the mean and max\n"
			       "absolute error per table. Like is compared with like: iteration time\n"
			       "with step time, recompute-inclusive TFLOP/s (Narayanan eq. 3) with the\n"
			       "same formula, MFU with MFU, HFU with HFU. Rows marked * count toward\n"
			       "the summary (MFU/HFU/%%-of-peak rows repeat an iteration time).\n"
			       "Assumptions where papers are silent are listed in sim/validate.h.\n");
			return 0;
		default: return pp_cli_usage_error("validate", "unknown option");
		}
	}
	if (optind + 1 != argc)
		return pp_cli_usage_error("validate", "expected one CSV file");
	pp_catalog *cat;
	int rc = pp_cli_catalog(&cat);
	if (rc)
		return rc;
	pp_valset v;
	pp_err err = {0};
	if ((rc = pp_validate_csv(cat, argv[optind], &v, &err))) {
		rc = pp_cli_fail(&err);
		goto out;
	}
	if (csv) {
		printf("csv_line,table,model,config,metric,measured,predicted,error_pct,primary\n");
		for (int i = 0; i < v.n; i++) {
			const pp_valrow *r = &v.rows[i];
			printf("%d,\"%s\",\"%s\",\"%s\",%s,%.6g,%.6g,%.2f,%d\n", r->csv_row, r->group,
			       r->model, r->config, r->metric, r->measured, r->predicted, 100 * r->error,
			       r->primary);
		}
		goto out;
	}
	const char *last = "";
	for (int i = 0; i < v.n; i++) {
		const pp_valrow *r = &v.rows[i];
		if (strcmp(last, r->group)) {
			double mean, max;
			int n = pp_valset_summary(&v, r->group, &mean, &max);
			printf("\n%s  (%d rows in summary: mean |error| %.1f%%, max %.1f%%)\n", r->group, n,
			       100 * mean, 100 * max);
			printf("  %4s %-22s %-40s %-22s %10s %10s %7s\n", "line", "model", "configuration",
			       "metric", "measured", "predicted", "error");
			last = r->group;
		}
		printf("  %4d %-22.22s %-40.40s %-22.22s %10.4g %10.4g %+6.1f%%%s\n", r->csv_row,
		       r->model, r->config, r->metric, r->measured, r->predicted, 100 * r->error,
		       r->primary ? "*" : "");
	}
	double mean, max;
	int n = pp_valset_summary(&v, NULL, &mean, &max);
	printf("\nAll tables: %d rows, mean |error| %.1f%%, max %.1f%%; %d rows skipped%s%s\n", n,
	       100 * mean, 100 * max, v.skipped, v.skipped ? ": " : "", v.skipped_why);
out:
	pp_valset_release(&v);
	pp_catalog_free(cat);
	return rc;
}
