/*
 * cmd_validate.c - podplan validate FILE.csv [--csv]: predict published
 * runs and print measured, predicted and the error per row, with the mean
 * and max absolute error per table. The CSV's texts are printed with their
 * control bytes as \xNN.
 */
#include "cli/cli.h"
#include "calib/replayval.h"
#include "calib/validate.h"
#include "core/csv.h"
#include "core/util.h"

#include <getopt.h>
#include <math.h>
#include <string.h>

/* podplan validate --replay FILE.csv: replayed steps (podplan-calibrate
 * replay) against the predictions. */
static int validate_replay(const char *path, bool csv, bool repredict)
{
	pp_replayset v;
	pp_err err = {0};
	pp_catalog *cat = NULL;
	int rc = pp_replayval_load(path, &v, &err);
	if (rc)
		return pp_cli_fail(&err);
	if (repredict && ((rc = pp_cli_catalog(&cat)) || (rc = pp_replayval_repredict(&v, cat, &err)))) {
		if (!cat)
			goto out;
		rc = pp_cli_fail(&err);
		goto out;
	}
	if (csv) {
		pp_sb sb = {0};
		pp_replayval_csv(&v, &sb);
		fputs(sb.buf, stdout);
		pp_sb_release(&sb);
		goto out;
	}
	printf("%-46s %12s %12s %8s\n", "config", "predicted", "measured", "error");
	for (int i = 0; i < v.n; i++) {
		const pp_replay_row *r = &v.rows[i];
		printf("%-46s %9.1f ms %9.1f ms %+7.1f%%\n", pp_tty(r->config), r->predicted_s * 1e3,
		       r->measured_s * 1e3, 100 * r->error);
	}
	printf("\n%d replayed steps: mean |error| %.1f%%, max %.1f%%%s\n", v.n, 100 * v.mean_abs,
	       100 * v.max_abs, repredict ? " (predictions recomputed now)" : "");
out:
	pp_replayset_release(&v);
	pp_catalog_free(cat);
	return rc;
}

/* One row per predicted published figure (RFC 4180, the one writer). */
static void print_csv(const pp_valset *v)
{
	pp_sb sb = {0};
	pp_csvw w;
	pp_csvw_init(&w, &sb);
	pp_csvw_header(&w, "csv_line,table,model,config,metric,measured,predicted,error_pct,primary");
	for (int i = 0; i < v->n; i++) {
		const pp_valrow *r = &v->rows[i];
		pp_csvw_int(&w, r->csv_row);
		pp_csvw_text(&w, r->group);
		pp_csvw_text(&w, r->model);
		pp_csvw_text(&w, r->config);
		pp_csvw_text(&w, r->metric);
		pp_csvw_num(&w, r->measured, 6);
		pp_csvw_num(&w, r->predicted, 6);
		pp_csvw_fixed(&w, 100 * r->error, 2);
		pp_csvw_int(&w, r->primary);
		pp_csvw_end(&w);
	}
	fputs(sb.buf, stdout);
	pp_sb_release(&sb);
}

int pp_cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = {
		{"csv", no_argument, NULL, 'c'}, {"replay", no_argument, NULL, 'r'},
		{"repredict", no_argument, NULL, 'p'}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	bool csv = false, replay = false, repredict = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ch", opts, NULL)) != -1) {
		switch (c) {
		case 'c': csv = true; break;
		case 'r': replay = true; break;
		case 'p': repredict = true; break;
		case 'h':
			printf("usage: podplan validate FILE.csv [--csv]\n\n"
			       "Predicts each published run of FILE.csv (the layout of\n"
			       "validation-public.csv) whose configuration is complete, and prints\n"
			       "measured, predicted and the error per row, then the mean and max\n"
			       "absolute error per table. Like is compared with like: iteration time\n"
			       "with step time, recompute-inclusive TFLOP/s (Narayanan eq. 3) with the\n"
			       "same formula, MFU with MFU, HFU with HFU. Rows marked * count toward\n"
			       "the summary (MFU/HFU/%%-of-peak rows repeat an iteration time).\n"
			       "Assumptions where papers are silent are listed in sim/calib/validate.h.\n\n"
			       "podplan validate --replay FILE.csv [--repredict] [--csv]\n"
			       "Replayed steps measured on real GPUs (podplan-calibrate replay --csv) against\n"
			       "the predictions: config, predicted, measured, error per row, then the mean and\n"
			       "max absolute error. --repredict predicts every row again from its scenario file\n"
			       "(paths relative to the current directory) with the current engine and the\n"
			       "scenario's calibration profile; --csv prints the CSV with those predictions.\n");
			return 0;
		default: return pp_cli_usage_error("validate", "unknown option");
		}
	}
	if (optind + 1 != argc)
		return pp_cli_usage_error("validate", "expected one CSV file");
	if (replay)
		return validate_replay(argv[optind], csv, repredict);
	if (repredict)
		return pp_cli_usage_error("validate", "--repredict goes with --replay");
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
		print_csv(&v);
		goto out;
	}
	const char *last = "";
	for (int i = 0; i < v.n; i++) {
		const pp_valrow *r = &v.rows[i];
		if (strcmp(last, r->group)) {
			double mean, max;
			int n = pp_valset_summary(&v, r->group, &mean, &max);
			printf("\n%s  (%d rows in summary: mean |error| %.1f%%, max %.1f%%)\n",
			       pp_tty(r->group), n, 100 * mean, 100 * max);
			printf("  %4s %-22s %-40s %-22s %10s %10s %7s\n", "line", "model", "configuration",
			       "metric", "measured", "predicted", "error");
			last = r->group;
		}
		printf("  %4d %-22.22s %-40.40s %-22.22s %10.4g %10.4g %+6.1f%%%s\n", r->csv_row,
		       pp_tty(r->model), pp_tty(r->config), pp_tty(r->metric), r->measured, r->predicted,
		       100 * r->error,
		       r->primary ? "*" : "");
	}
	double mean, max;
	int n = pp_valset_summary(&v, NULL, &mean, &max);
	printf("\nAll tables: %d rows, mean |error| %.1f%%, max %.1f%%; %d rows skipped%s%s\n", n,
	       100 * mean, 100 * max, v.skipped, v.skipped ? ": " : "", pp_tty(v.skipped_why));
out:
	pp_valset_release(&v);
	pp_catalog_free(cat);
	return rc;
}
