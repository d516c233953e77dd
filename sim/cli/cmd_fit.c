/*
 * cmd_fit.c - podplan fit: fit a calibration profile from calibration runs,
 * list profiles, export one as JSON.
 */
#include "calib/calibdb.h"
#include "core/fmt.h"
#include "cli/cli.h"
#include "calib/fit.h"
#include "calib/profile.h"
#include "core/util.h"

#include <getopt.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
	printf("usage: podplan fit [--db DB] [--run RUN]... [--name NAME] [--gpu ID]\n"
	       "       podplan fit --list [--db DB]\n"
	       "       podplan fit --export NAME[@VERSION] [-o FILE] [--db DB]\n\n"
	       "Fits simulator parameters to calibration measurements (podplan-calibrate or\n"
	       "podplan calib import-nccl-tests) and stores them as a named, versioned profile:\n"
	       "  - per collective, scope and GPU count: a piecewise latency-bandwidth model\n"
	       "    (time = alpha + bytes x factor / busbw, 1-3 pieces over message size,\n"
	       "    weighted least squares, 95%% confidence intervals);\n"
	       "  - per dtype: the large-GEMM share of peak after tile/wave quantisation;\n"
	       "  - the bandwidth of memory-bound kernels;\n"
	       "  - the overlap efficiency (podplan-calibrate overlap runs);\n"
	       "  - per dtype, the sustained GEMM rate over the burst rate and the small-M\n"
	       "    (decode) GEMM curve (podplan-calibrate --only sustained,decode).\n"
	       "Without --run, every complete run of the newest run's GPU is used. The GPU is\n"
	       "taken from the runs (or --gpu,\n"
	       "a catalog id). Use a profile with `podplan predict --calibration DB:NAME`, or\n"
	       "\"calibration\": {\"db\": ..., \"profile\": ...} in a scenario.\n"
	       "The database: --db, else " PP_STORE_DEFAULT_TEXT ".\n\n"
	       "  -d, --db DB        the store the runs are read from and the profile stored in\n"
	       "  -r, --run RUN      a run to fit (podplan calib list); repeat for several\n"
	       "  -n, --name NAME    the profile's name (default: run-RUN, the first run's id)\n"
	       "  -g, --gpu ID       the GPU, a catalog id (default: taken from the runs)\n"
	       "  -l, --list         the stored profiles: name, version, created, runs\n"
	       "  -e, --export NAME[@VERSION]\n"
	       "                     a stored profile as JSON (default: its newest version)\n"
	       "  -o, --output FILE  with --export: write the JSON to FILE (atomically)\n");
}

static void print_profile(const pp_profile *p)
{
	printf("profile %s v%d  (GPU %s, runs", p->name, p->version, p->gpu);
	for (int i = 0; i < p->nruns; i++)
		printf(" %lld", (long long)p->runs[i]);
	printf(")\n");
	if (p->nfits)
		printf("  %-15s %-10s %5s  %-22s %12s %18s %8s\n", "collective", "scope", "GPUs",
		       "message sizes", "alpha (us)", "busbw (GB/s)", "rms rel.");
	for (int i = 0; i < p->nfits; i++) {
		const pp_coll_fit *f = &p->fits[i];
		for (int k = 0; k < f->npieces; k++) {
			char lo[32], hi[32];
			pp_fmt_bytes(f->piece[k].lo_bytes, lo, sizeof(lo));
			if (f->piece[k].hi_bytes > 1e299)
				snprintf(hi, sizeof(hi), "up");
			else
				pp_fmt_bytes(f->piece[k].hi_bytes, hi, sizeof(hi));
			char rms[16] = "";
			if (k == 0)
				snprintf(rms, sizeof(rms), "%.1f%%", 100 * p->fit_rms[i]);
			printf("  %-15s %-10s %5d  %9s - %-10s %6.1f +-%-5.1f %8.1f +-%-7.1f %8s\n",
			       k ? "" : pp_coll_names[f->op], k ? "" : (f->scope ? "inter-node" : "intra-node"),
			       f->nranks, lo, hi, f->piece[k].alpha_s * 1e6, p->fit_ci[i][k].alpha_ci_s * 1e6,
			       f->piece[k].busbw_Bps / PP_GB, p->fit_ci[i][k].busbw_ci_Bps / PP_GB, rms);
		}
	}
	for (int dt = 0; dt < PP_DT_COUNT; dt++)
		if (p->has_gemm[dt])
			printf("  GEMM %-5s  %.3f of dense peak +- %.3f, k0 %.0f +- %.0f  (%d shapes, rms residual %.1f%%)\n",
			       pp_dtype_names[dt], p->gemm_frac[dt], p->gemm_frac_ci[dt], p->gemm_k0[dt], p->gemm_k0_ci[dt], p->gemm_points[dt],
			       100 * p->gemm_rms[dt]);
	if (p->has_mem)
		printf("  memory-bound kernels  %.0f GB/s +- %.0f  (%d sizes)\n", p->mem_Bps / PP_GB,
		       p->mem_ci_Bps / PP_GB, p->mem_points);
	if (p->has_overlap)
		printf("  overlap efficiency    %.2f +- %.2f of a collective hidden beside compute  (%d "
		       "pairs)\n", p->overlap_eff, p->overlap_ci, p->overlap_points);
	for (int dt = 0; dt < PP_DT_COUNT; dt++) {
		if (!p->has_sustained[dt])
			continue;
		const pp_profile_sustained *s = &p->sustained[dt];
		char names[160];
		printf("  GEMM %-5s sustained %.3f +- %.3f of burst  (%.0f -> %.0f TFLOP/s over %.0f s "
		       "back to back, %lldx%lldx%lld, %d GPU%s; SM clock %.0f -> %.0f MHz, %.0f W of %.0f W; "
		       "throttle: %s)\n", pp_dtype_names[dt], p->gemm_sustained_fraction[dt],
		       p->gemm_sustained_ci[dt], s->burst_flops / 1e12, s->sustained_flops / 1e12,
		       s->seconds, (long long)s->m, (long long)s->n, (long long)s->k, s->gpus,
		       s->gpus == 1 ? "" : "s", s->first_sm_clock_hz / 1e6, s->sm_clock_hz / 1e6,
		       s->power_w, s->power_limit_w, pp_fit_reason_names(s->reasons, names, sizeof(names)));
	}
	for (int dt = 0; dt < PP_DT_COUNT; dt++) {
		if (p->gemm_small_m_n[dt] <= 0)
			continue;
		printf("  GEMM %-5s small M, share of the datasheet roofline (%.0f TFLOP/s, %.0f GB/s):\n"
		       "  %8s %9s %15s %11s %10s %7s\n", pp_dtype_names[dt],
		       p->small_m_peak_flops[dt] / 1e12, p->small_m_hbm_Bps[dt] / PP_GB, "M",
		       "median", "quartiles", "median us", "GB/s", "shapes");
		for (int i = 0; i < p->gemm_small_m_n[dt]; i++) {
			const pp_small_m_point *q = &p->gemm_small_m[dt][i];
			printf("  %8.0f %9.3f %7.3f-%-7.3f %11.2f %10.0f %7d\n", q->m, q->roofline_fraction,
			       q->q25, q->q75, q->median_s * 1e6, q->median_Bps / PP_GB, q->shapes);
		}
	}
}

typedef struct fit_args {
	const char *db, *name, *gpu, *export, *output;
	int64_t runs[PP_PROFILE_MAX_RUNS];
	int nruns;
	bool list;
} fit_args;

/* Returns 0 to go on, -1 after --help, else the exit status of a usage
 * error. */
static int parse_args(int argc, char **argv, fit_args *a)
{
	static const struct option opts[] = {
		{"db", required_argument, NULL, 'd'},   {"run", required_argument, NULL, 'r'},
		{"name", required_argument, NULL, 'n'}, {"gpu", required_argument, NULL, 'g'},
		{"list", no_argument, NULL, 'l'},       {"export", required_argument, NULL, 'e'},
		{"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
		{0, 0, 0, 0}};
	int c;
	memset(a, 0, sizeof(*a));
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:r:n:g:le:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': a->db = optarg; break;
		case 'r': {
			char *end;
			long long v = strtoll(optarg, &end, 10);
			if (*end || v <= 0 || a->nruns == PP_PROFILE_MAX_RUNS)
				return pp_cli_usage_error("fit", "--run %s: expected a run id (podplan calib "
							  "list), at most %d runs", optarg,
							  PP_PROFILE_MAX_RUNS);
			a->runs[a->nruns++] = v;
			break;
		}
		case 'n': a->name = optarg; break;
		case 'g': a->gpu = optarg; break;
		case 'l': a->list = true; break;
		case 'e': a->export = optarg; break;
		case 'o': a->output = optarg; break;
		case 'h': help(); return -1;
		default: return pp_cli_usage_error("fit", "unknown option");
		}
	}
	if (optind < argc)
		return pp_cli_usage_error("fit", "unexpected argument '%s'", argv[optind]);
	/* the name is printed on terminals and read back as JSON text */
	if (a->name && (!*a->name || pp_has_control_text(a->name) || strlen(a->name) > 127))
		return pp_cli_usage_error("fit", "--name: found \"%s\", expected 1 to 127 characters "
					  "of printable text", a->name);
	return 0;
}

/* fit --list: one line per stored profile version. */
static void list_profiles(pp_store *st)
{
	sqlite3_stmt *q;
	sqlite3_prepare_v2(pp_store_db(st), "SELECT name, version, created_at, run_ids FROM "
			   "profiles ORDER BY name, version", -1, &q, NULL);
	printf("%-24s %7s %-20s %s\n", "profile", "version", "created (UTC)", "runs");
	while (sqlite3_step(q) == SQLITE_ROW) {
		char when[32];
		pp_fmt_utc(sqlite3_column_double(q, 2), "%Y-%m-%d %H:%M", when, sizeof(when));
		/* names from the store, escaped for the terminal */
		printf("%-24s %7d %-20s %s\n", pp_tty((const char *)sqlite3_column_text(q, 0)),
		       sqlite3_column_int(q, 1), when, pp_tty((const char *)sqlite3_column_text(q, 3)));
	}
	sqlite3_finalize(q);
}

/* fit --export NAME[@VERSION]: the profile as JSON, to stdout or the file
 * output. Returns the exit status. */
static int export_profile(pp_store *st, const char *spec, const char *output)
{
	pp_err err = {0};
	char nm[128];
	snprintf(nm, sizeof(nm), "%s", spec);
	char *at = strchr(nm, '@');
	int v = 0, rc = 0;
	if (at) {
		unsigned long u;
		*at = '\0';
		if (pp_cli_parse_ulong(at + 1, 0x7fffffffUL, &u) || u == 0)
			return pp_cli_usage_error("fit", "--export %s: expected NAME or NAME@VERSION with "
						  "a positive version", spec);
		v = (int)u;
	}
	pp_profile p;
	if (pp_profile_load(st, nm, v, &p, &err))
		return pp_cli_fail(&err);
	char *json = pp_profile_to_json(&p);
	if (output) {
		if (pp_write_file_atomic(output, json, strlen(json), &err))
			rc = pp_cli_fail(&err);
	} else {
		fputs(json, stdout);
	}
	free(json);
	return rc;
}

/* Without --run: every complete run of the newest run's GPU (a sweep and
 * the separate runs, overlap and imports, that complement it); the
 * newest alone when none is complete. */
static int default_runs(pp_store *st, fit_args *a, pp_err *err)
{
	int64_t newest;
	pp_calib_run nr, *all = NULL;
	size_t n = 0;
	int rc;
	pp_calib_run_init(&nr);
	if ((rc = pp_calibdb_latest_run(st, &newest, err)) ||
	    (rc = pp_calibdb_get_run(st, newest, &nr, err)) ||
	    (rc = pp_calibdb_list_runs(st, &all, &n, err)))
		return rc;
	for (size_t i = 0; i < n; i++) {
		bool same = (!nr.gpu_name && !all[i].gpu_name) ||
			    (nr.gpu_name && all[i].gpu_name && !strcmp(nr.gpu_name, all[i].gpu_name));
		if (same && all[i].status && !strcmp(all[i].status, "complete") &&
		    a->nruns < PP_PROFILE_MAX_RUNS)
			a->runs[a->nruns++] = all[i].id;
		pp_calib_run_release(&all[i]);
	}
	free(all);
	if (a->nruns == 0)
		a->runs[a->nruns++] = newest;
	pp_calib_run_release(&nr);
	return 0;
}

int pp_cmd_fit(int argc, char **argv)
{
	fit_args a;
	pp_err err = {0};
	pp_store *st = NULL;
	pp_catalog *cat = NULL;
	int rc;
	if ((rc = parse_args(argc, argv, &a)))
		return rc < 0 ? 0 : rc;
	/* --list and --export only read: the store is opened read-only */
	if ((rc = (a.list || a.export ? pp_store_open_ro : pp_store_open)(&st, a.db, &err)))
		return pp_cli_fail(&err);
	if (a.list) {
		list_profiles(st);
		goto out;
	}
	if (a.export) {
		rc = export_profile(st, a.export, a.output);
		goto out;
	}
	if ((rc = pp_cli_catalog(&cat)))
		goto out;
	if (a.nruns == 0 && (rc = default_runs(st, &a, &err))) {
		rc = pp_cli_fail(&err);
		goto out;
	}
	char defname[64];
	if (!a.name) {
		snprintf(defname, sizeof(defname), "run-%lld", (long long)a.runs[0]);
		a.name = defname;
	}
	pp_profile p;
	if ((rc = pp_fit_runs(st, cat, a.runs, a.nruns, a.gpu, a.name, &p, &err)) ||
	    (rc = pp_profile_save(st, &p, &err))) {
		rc = pp_cli_fail(&err);
		goto out;
	}
	print_profile(&p);
	printf("stored as %s v%d in %s\n", p.name, p.version, pp_store_path(st));
out:
	pp_catalog_free(cat);
	pp_store_close(st);
	return rc;
}
