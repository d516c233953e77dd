/*
 * cmd_validate.c - podplan validate FILE.csv [--csv]: predict published
 * runs and print measured, predicted and the error per row, with the mean
 * and max absolute error per table; --replay for replayed steps; --serve
 * RESULT.json SCENARIO for a `vllm bench serve` result (serve/servecheck.h).
 * The CSV's texts are printed with their control bytes as \xNN.
 */
#include "cli/cli.h"
#include "calib/evidence.h"
#include "calib/hwres.h"
#include "calib/replayval.h"
#include "calib/validate.h"
#include "core/csv.h"
#include "core/fmt.h"
#include "core/jsonout.h"
#include "serve/servecheck.h"
#include "core/util.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* podplan validate --replay FILE.csv: replayed steps (podplan-calibrate
 * replay) against the predictions. */
/* each published row's scenario runs on the hardware every command
 * resolves (calib/hwres.h) */
static const pp_hw_resolver hw_of = {pp_hw_of_scenario, NULL};

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
	printf("%-46s %12s %12s %8s", "config", "predicted", "measured", "error");
	if (v.has_bytes)
		printf(" %13s %13s %8s", "predicted mem", "measured mem", "error");
	printf("\n");
	for (int i = 0; i < v.n; i++) {
		const pp_replay_row *r = &v.rows[i];
		char ms[32] = "-", er[32] = "-";
		if (isfinite(r->measured_s)) {
			snprintf(ms, sizeof(ms), "%9.1f ms", r->measured_s * 1e3);
			snprintf(er, sizeof(er), "%+7.1f%%", 100 * r->error);
		}
		printf("%-46s %9.1f ms %12s %8s", pp_tty(r->config), r->predicted_s * 1e3, ms, er);
		if (v.has_bytes) {
			char pb[32] = "-", mb[32] = "-", be[32] = "-";
			if (isfinite(r->predicted_bytes))
				snprintf(pb, sizeof(pb), "%9.1f GiB", r->predicted_bytes / 1073741824.0);
			if (isfinite(r->measured_bytes))
				snprintf(mb, sizeof(mb), "%9.1f GiB", r->measured_bytes / 1073741824.0);
			if (isfinite(r->bytes_error))
				snprintf(be, sizeof(be), "%+7.1f%%", 100 * r->bytes_error);
			printf(" %13s %13s %8s", pb, mb, be);
		}
		printf("\n");
	}
	if (v.nmeasured == v.n)
		printf("\n%d replayed steps: mean |error| %.1f%%, max %.1f%%%s\n", v.n, 100 * v.mean_abs,
		       100 * v.max_abs, repredict ? " (predictions recomputed now)" : "");
	else if (v.nmeasured)
		printf("\n%d of %d steps measured: mean |error| %.1f%%, max %.1f%%%s\n", v.nmeasured, v.n,
		       100 * v.mean_abs, 100 * v.max_abs, repredict ? " (predictions recomputed now)" : "");
	else
		printf("\n%d steps, none measured yet (measured_s empty)%s\n", v.n,
		       repredict ? "; predictions recomputed now" : "");
	if (v.has_bytes && v.nbytes)
		printf("memory per GPU, %d rows: mean |error| %.1f%%, max %.1f%% (podplan's bytes against "
		       "the measured peak)\n", v.nbytes, 100 * v.bytes_mean_abs, 100 * v.bytes_max_abs);
out:
	pp_replayset_release(&v);
	pp_catalog_free(cat);
	return rc;
}

/* podplan validate --serve RESULT.json SCENARIO: each record of a vllm
 * bench serve result file beside the scenario's prediction at its traffic. */
static void serve_text(const pp_scheck_bench *b, const pp_scheck_result *r, pp_sb *o)
{
	size_t from = o->len;
	pp_sb_addf(o, "%s", b->where);
	if (b->label[0] || b->model_id[0] || b->date[0])
		pp_sb_addf(o, " (%s%s%s%s%s)", b->label, b->label[0] && b->model_id[0] ? ", " : "",
			   b->model_id, b->date[0] ? ", " : "", b->date);
	pp_sb_tty_from(o, from); /* the file's names: no escape sequence reaches the terminal */
	pp_sb_addf(o, "\n  traffic: %lld prompts, request rate ", (long long)r->num_prompts);
	if (isinf(r->request_rate))
		pp_sb_adds(o, "inf");
	else
		pp_sb_addf(o, "%g/s, burstiness %g", r->request_rate, r->burstiness);
	if (r->max_concurrency > 0)
		pp_sb_addf(o, ", max_concurrency %lld", (long long)r->max_concurrency);
	pp_sb_adds(o, "\n  lengths: ");
	if (r->meas_input_mean >= 0)
		pp_sb_addf(o, "measured mean input %.1f, output %.1f tokens; ", r->meas_input_mean,
			   r->meas_output_mean);
	pp_sb_addf(o, "the scenario's workload %.1f and %.1f", r->pred_input_mean, r->pred_output_mean);
	if (r->meas_input_mean > 0 && r->meas_output_mean > 0 &&
	    (fabs(r->pred_input_mean / r->meas_input_mean - 1) > 0.05 ||
	     fabs(r->pred_output_mean / r->meas_output_mean - 1) > 0.05))
		pp_sb_adds(o, " (more than 5% apart: the workload does not describe this run)");
	pp_sb_addf(o, "\n  %-30s %14s %14s %9s\n", "figure", "measured", "predicted", "error");
	for (int i = 0; i < r->nrows; i++) {
		const pp_scheck_row *w = &r->rows[i];
		pp_sb_addf(o, "  %-30s %14.2f %14.2f %+8.1f%%\n", w->key, w->measured, w->predicted,
			   100 * w->error);
	}
	pp_sb_addf(o, "  %d figures: mean |error| %.1f%%", r->nrows, 100 * r->mean_abs_error);
	if (!isnan(r->mean_abs_throughput))
		pp_sb_addf(o, "; throughputs %.1f%%", 100 * r->mean_abs_throughput);
	if (!isnan(r->mean_abs_latency))
		pp_sb_addf(o, "; latencies (mean, median, percentiles) %.1f%%", 100 * r->mean_abs_latency);
	pp_sb_adds(o, "\n");
	if (r->note[0])
		pp_sb_addf(o, "  note: %s\n", r->note);
}

static void serve_json(cJSON *arr, const pp_scheck_bench *b, const pp_scheck_result *r)
{
	cJSON *j = cJSON_CreateObject();
	pp_json_str(j, "record", b->where);
	if (b->label[0])
		pp_json_str(j, "label", b->label);
	if (b->model_id[0])
		pp_json_str(j, "model_id", b->model_id);
	pp_json_int(j, "num_prompts", r->num_prompts);
	if (isinf(r->request_rate))
		pp_json_str(j, "request_rate", "inf");
	else
		pp_json_num(j, "request_rate", r->request_rate, 9);
	pp_json_num(j, "burstiness", r->burstiness, 6);
	if (r->max_concurrency > 0)
		pp_json_int(j, "max_concurrency", r->max_concurrency);
	else
		pp_json_null(j, "max_concurrency");
	if (r->meas_input_mean >= 0) {
		pp_json_num(j, "measured_mean_input_len", r->meas_input_mean, 6);
		pp_json_num(j, "measured_mean_output_len", r->meas_output_mean, 6);
	}
	pp_json_num(j, "predicted_mean_input_len", r->pred_input_mean, 6);
	pp_json_num(j, "predicted_mean_output_len", r->pred_output_mean, 6);
	cJSON *rows = pp_json_arr(j, "figures");
	for (int i = 0; i < r->nrows; i++) {
		cJSON *w = cJSON_CreateObject();
		pp_json_str(w, "figure", r->rows[i].key);
		pp_json_num(w, "measured", r->rows[i].measured, 9);
		pp_json_num(w, "predicted", r->rows[i].predicted, 9);
		pp_json_fixed(w, "error_pct", 100 * r->rows[i].error, 2);
		cJSON_AddItemToArray(rows, w);
	}
	pp_json_num(j, "mean_abs_error_pct", 100 * r->mean_abs_error, 6);
	if (!isnan(r->mean_abs_throughput))
		pp_json_num(j, "mean_abs_throughput_error_pct", 100 * r->mean_abs_throughput, 6);
	if (!isnan(r->mean_abs_latency))
		pp_json_num(j, "mean_abs_latency_error_pct", 100 * r->mean_abs_latency, 6);
	if (r->note[0])
		pp_json_str(j, "note", r->note);
	cJSON_AddItemToArray(arr, j);
}

static int validate_serve(const char *result, const char *scenario, bool csv, bool json,
			  bool seed_given, unsigned long seed)
{
	pp_err err = {0};
	pp_scheck_bench *b = NULL;
	size_t nb = 0;
	pp_cli_scenario l;
	pp_serve_setup su;
	bool have_l = false, have_su = false;
	pp_sb o = {0};
	cJSON *arr = NULL;
	pp_csvw w;
	int rc = pp_scheck_load(result, &b, &nb, &err);
	if (rc) {
		rc = pp_cli_fail(&err);
		goto out;
	}
	have_l = true;
	if ((rc = pp_cli_load_scenario(&l, "validate", scenario, NULL, NULL, PP_CLI_SERVING)))
		goto out;
	if ((rc = pp_serve_setup_init(&su, &l.s, &l.hw, &err))) {
		rc = pp_cli_fail(&err);
		goto out;
	}
	have_su = true;
	if (json)
		arr = cJSON_CreateArray();
	if (csv) {
		pp_csvw_init(&w, &o);
		pp_csvw_header(&w, "record,figure,measured,predicted,error_pct");
	}
	for (size_t i = 0; i < nb; i++) {
		pp_scheck_result r;
		if ((rc = pp_scheck_run(&su, &b[i], seed_given ? seed : su.sv.seed, &r, &err))) {
			rc = pp_cli_fail(&err);
			goto out;
		}
		if (json) {
			serve_json(arr, &b[i], &r);
		} else if (csv) {
			for (int k = 0; k < r.nrows; k++) {
				pp_csvw_text(&w, b[i].where);
				pp_csvw_text(&w, r.rows[k].key);
				pp_csvw_num(&w, r.rows[k].measured, 9);
				pp_csvw_num(&w, r.rows[k].predicted, 9);
				pp_csvw_fixed(&w, 100 * r.rows[k].error, 2);
				pp_csvw_end(&w);
			}
		} else {
			if (i)
				pp_sb_adds(&o, "\n");
			serve_text(&b[i], &r, &o);
		}
	}
	if (json)
		pp_json_print(arr, true, &o);
	fputs(o.buf ? o.buf : "", stdout);
out:
	cJSON_Delete(arr);
	pp_sb_release(&o);
	if (have_su)
		pp_serve_setup_release(&su);
	if (have_l)
		pp_cli_scenario_release(&l);
	free(b);
	return rc;
}

/* podplan validate --coverage: the stated 80% intervals (calib/evidence.h)
 * checked on the validation sets, each row's interval computed without
 * it and without its model's family. */
static int validate_coverage(bool rows)
{
	pp_catalog *cat;
	int rc = pp_cli_catalog(&cat);
	if (rc)
		return rc;
	pp_evidence ev;
	pp_err err = {0};
	if ((rc = pp_evidence_load(&ev, cat, &err))) {
		rc = pp_cli_fail(&err);
		pp_catalog_free(cat);
		return rc;
	}
	if (rows) {
		printf("%-12s %-48s %10s %10s %8s  %-22s %-22s\n", "set", "config", "predicted", "measured",
		       "error", "80% interval, LOO", "leave family out");
		for (int i = 0; i < ev.n; i++) {
			const pp_evrow *r = &ev.rows[i];
			char a[2][48];
			for (int f = 0; f < 2; f++) {
				pp_band b;
				pp_evidence_band(&ev, &r->key, r->predicted_s, i, f ? r->family : NULL, &b);
				bool in = b.on && r->measured_s >= b.lo_s && r->measured_s <= b.hi_s;
				snprintf(a[f], sizeof(a[f]), "%+4.0f%%/%+4.0f%% %s%s", 100 * (b.f_lo - 1),
					 100 * (b.f_hi - 1), in ? "in " : "OUT", b.near ? "" : " far");
			}
			printf("%-12s %-48s %8.3f s %8.3f s %+7.1f%%  %-22s %-22s\n", r->set,
			       pp_tty(r->config), r->predicted_s, r->measured_s,
			       100 * (r->predicted_s / r->measured_s - 1), a[0], a[1]);
		}
		printf("\n");
	}
	pp_evcov cv[16];
	int n = pp_evidence_coverage(&ev, cv, 16);
	printf("Coverage of podplan's 80%% step-time intervals on its validation sets (each row's\n"
	       "interval computed without it: leave-one-out, LOO; and without every row of its\n"
	       "model: leave-family-out, LFO). Half-width: half the interval as a share of the\n"
	       "prediction, median over the rows; 'near': intervals resting on validated runs near\n"
	       "the row (sim/calib/evidence.h), the others are the default band. Targets: coverage\n"
	       ">= 75%% per set; median half-width <= 15%% where near runs exist.\n\n");
	printf("%-12s %5s %13s %13s %11s %11s %13s %11s\n", "set", "rows", "LOO coverage",
	       "LFO coverage", "LOO near", "half, near", "half, all", "LFO near");
	for (int i = 0; i < n; i++) {
		const pp_evcov *c = &cv[i];
		char h1[16], h2[16];
		pp_fmt_pct(c->loo_med_hw_near, 1, h1, sizeof(h1));
		pp_fmt_pct(c->loo_med_hw, 1, h2, sizeof(h2));
		printf("%-12s %5d %5d (%3.0f%%) %5d (%3.0f%%) %11d %11s %13s %11d\n", c->set, c->n,
		       c->loo_in, c->n ? 100.0 * c->loo_in / c->n : 0, c->lofo_in,
		       c->n ? 100.0 * c->lofo_in / c->n : 0, c->loo_near, h1, h2, c->lofo_near);
	}
	if (ev.skipped)
		printf("\n%d rows skipped (their scenario did not predict); the first: %s\n", ev.skipped,
		       pp_tty(ev.skipped_why));
	pp_evidence_release(&ev);
	pp_catalog_free(cat);
	return 0;
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
		{"repredict", no_argument, NULL, 'p'}, {"serve", no_argument, NULL, 's'},
		{"json", no_argument, NULL, 'j'}, {"seed", required_argument, NULL, 'e'},
		{"coverage", no_argument, NULL, 'V'}, {"rows", no_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	bool csv = false, replay = false, repredict = false, serve = false, json = false;
	bool coverage = false, rows = false;
	bool seed_given = false;
	unsigned long seed = 0;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ch", opts, NULL)) != -1) {
		switch (c) {
		case 'c': csv = true; break;
		case 'r': replay = true; break;
		case 'p': repredict = true; break;
		case 's': serve = true; break;
		case 'j': json = true; break;
		case 'V': coverage = true; break;
		case 'R': rows = true; break;
		case 'e':
			if (pp_cli_parse_seed("validate", optarg, &seed))
				return 2; /* the usage error, printed */
			seed_given = true;
			break;
		case 'h':
			printf("usage: podplan validate FILE.csv [-c | --csv]\n\n"
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
			       "scenario's calibration profile; --csv prints the CSV with those predictions.\n\n"
			       "podplan validate --serve RESULT.json SCENARIO.json [--json | --csv] [--seed N]\n"
			       "A `vllm bench serve --save-result` file (one record, or one a line from\n"
			       "--append-result) beside the prediction: the scenario's deployment and workload\n"
			       "lengths run at the record's num_prompts, request_rate, burstiness and\n"
			       "max_concurrency; every figure both have (request/output/total-token\n"
			       "throughput, duration, max_concurrent_requests, request_goodput with the\n"
			       "scenario's slo, and mean/median/std/pNN of ttft, tpot, itl and e2el in ms) is\n"
			       "printed measured, predicted and the error, with the mean |error| of the\n"
			       "throughputs and of the latencies, and the mean lengths of both sides.\n\n"
			       "podplan validate --coverage [--rows]\n"
			       "The 80%% step-time intervals predict, search, size, cost and the report state\n"
			       "(sim/calib/evidence.h), checked on the repository's validation sets\n"
			       "(models/validation/*-published.csv and the framework set): every row predicted\n"
			       "now, its interval computed without it (leave-one-out) and without its model's\n"
			       "rows (leave-family-out); per set the share of measured steps inside and the\n"
			       "median half-width. --rows lists every row's interval first.\n");
			return 0;
		default: return pp_cli_usage_error("validate", "unknown option");
		}
	}
	if (coverage) {
		if (serve || replay || repredict || csv || json || seed_given || optind != argc)
			return pp_cli_usage_error("validate", "--coverage takes no file and no other option "
						  "but --rows");
		return validate_coverage(rows);
	}
	if (rows)
		return pp_cli_usage_error("validate", "--rows goes with --coverage");
	if (serve) {
		if (replay || repredict)
			return pp_cli_usage_error("validate", "--serve and --replay: expected one of them");
		if (csv && json)
			return pp_cli_usage_error("validate", "--csv and --json: expected one of them");
		if (optind + 2 != argc)
			return pp_cli_usage_error("validate", "--serve: expected RESULT.json and a serving "
						  "scenario");
		return validate_serve(argv[optind], argv[optind + 1], csv, json, seed_given, seed);
	}
	if (json || seed_given)
		return pp_cli_usage_error("validate", "--json and --seed go with --serve");
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
	if ((rc = pp_validate_csv(cat, &hw_of, argv[optind], &v, &err))) {
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
