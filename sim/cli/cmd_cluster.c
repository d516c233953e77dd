/*
 * cmd_cluster.c - podplan cluster SPEC.json JOBS|--generate ID [options]:
 * many jobs on one cluster (sim/cluster/csim.h), a what-if of two specs,
 * a sweep of specs (sim/cluster/csweep.h; under `mpirun -np N` the ranks
 * share the points) and a report page (reports/clusterrep.h).
 */
#include "cli/cli.h"
#include "calib/hwres.h"
#include "cluster/canchor.h"
#include "cluster/cfgd.h"
#include "cluster/cgen.h"
#include "cluster/cjobs.h"
#include "cluster/cout.h"
#include "cluster/cscen.h"
#include "cluster/csim.h"
#include "cluster/cspec.h"
#include "cluster/csweep.h"
#include "clusterrep.h"
#include "core/dist.h"
#include "core/jsonout.h"
#include "core/util.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a job's scenario runs on the hardware every command resolves for it: its
 * own calibration profile applied (calib/hwres.h) */
static const pp_hw_resolver hw_of = {pp_hw_of_scenario, NULL};

static void help(void)
{
	printf("usage: podplan cluster SPEC.json JOBS [options]\n"
	       "       podplan cluster SPEC.json --generate ID [--jobs N] [options]\n"
	       "       podplan cluster --validate [--csv]\n"
	       "       podplan cluster --fragmentation NODES.csv PODS.csv [--tune R] [--runs N]\n\n"
	       "Simulates many jobs on one cluster: the queue (FIFO or EASY backfill, queues with\n"
	       "quotas, priorities with preemption), gang placement on nodes, leaf switches and\n"
	       "NVLink domains, node failures and other interruptions (work since the last\n"
	       "checkpoint lost, restart, requeue), checkpoints sharing the file system's\n"
	       "bandwidth. Prints goodput as scheduling x runtime x program goodput, idle and\n"
	       "fragmented GPUs, queueing delay by job size and $ per useful GPU-hour.\n"
	       "A spec's \"spot\" pool (nodes that only spot jobs use, their availability\n"
	       "from a trace, t_s,available_nodes CSV or SkyPilot JSON, or a reclaim rate,\n"
	       "with a notice) and jobs of kind serve with replica_rps and demand_rps\n"
	       "(replicas scaled every hour to the demand, before training) add the spot\n"
	       "pool's reclaims, GPU-hours and price, and the share of demand served.\n"
	       "SPEC.json: the cluster and its policy (docs/cluster.md). JOBS: a jobs file in\n"
	       "podplan's CSV or an imported format (detected, or --format).\n\n"
	       "  --format F       podplan | sacct | acme | helios | philly | openb\n"
	       "  --generate ID    draw the jobs from a published trace summary's fitted\n"
	       "                   distributions (models/cluster/trace-summaries.csv: seren,\n"
	       "                   kalos); --jobs N draws N (default: the row's job count)\n"
	       "  --seed N         the random seed (failures, generator); default the spec's\n"
	       "  --compare B.json the same jobs on a second spec, side by side\n"
	       "  --what-if K=V    the same jobs on the spec changed: add_nodes=N,\n"
	       "                   scheduler=builtin|backfill, placement=pack|spread|fgd,\n"
	       "                   fs_scale=X, topology=none|preferred|required (repeatable)\n"
	       "  --sweep K=V1,V2  the same jobs on every point of a grid of such changes, one\n"
	       "                   table line a point (repeatable: the product of the keys,\n"
	       "                   the last given changing fastest; at most 4096 points).\n"
	       "                   Under `mpirun -np N` the ranks share the points and rank 0\n"
	       "                   prints the serial run's table byte for byte (--csv: as CSV)\n"
	       "  --report DIR     also write a report page: DIR/index.html (allocation over\n"
	       "                   time, queueing-delay CDF by size, goodput waterfall, the\n"
	       "                   what-if), summary.md, timeline.csv, queue_cdf.csv, jobs.csv\n"
	       "  --json           machine-readable summary (--per-job: every job)\n"
	       "  --csv            one row per job\n"
	       "  --timeline-csv   the allocation over time\n"
	       "  --write-jobs F   write the (generated or imported) jobs as podplan CSV\n"
	       "  --validate       the validation anchors (models/validation/cluster.csv):\n"
	       "                   each computed here, with its published figure and source\n"
	       "  --fragmentation  the FGD experiment (Weng et al., ATC'23) on Alibaba openb\n"
	       "                   node and pod lists: unallocated GPU under best-fit and\n"
	       "                   fragmentation-gradient-descent placement as the arrived GPU\n"
	       "                   requests grow; --tune R: up to R x the cluster's GPUs (1.3),\n"
	       "                   --runs N: the median over N seeds from --seed (10, from 42)\n\n"
	       "A progress line goes to stderr when it is a terminal (a sweep's names its point).\n"
	       "Bad input: exit status 2.\n");
}

typedef struct prog {
	bool tty, shown;
} prog;

static void progress(void *ctx, int done, int total)
{
	prog *p = ctx;
	if (!p->tty)
		return;
	fprintf(stderr, "\rcluster: %d of %d jobs done (%d%%) ", done, total,
		total ? (int)(100.0 * done / total) : 100);
	p->shown = true;
}

static void progress_end(prog *p)
{
	if (p->shown)
		fprintf(stderr, "\r%60s\r", "");
	p->shown = false;
}

static int simulate(const pp_cspec *spec, const pp_cjobs *jobs, const char *jobs_path,
		    const pp_catalog *cat, bool per_job, pp_csim_result *r, pp_err *err)
{
	prog p = {pp_cli_tty(), false};
	pp_csim_opts o = {0};
	o.progress = progress;
	o.progress_ctx = &p;
	o.per_job = per_job;
	int rc = pp_cscen_simulate(spec, jobs, jobs_path, cat, &hw_of, &o, r, err);
	progress_end(&p);
	return rc;
}

static int fragmentation(const char *nodes, const char *pods, double tune, unsigned long seed,
			 int runs)
{
	pp_fgd_trace t;
	pp_err err = {0};
	pp_sb out = {0};
	int rc = pp_fgd_load(&t, nodes, pods, &err);
	if (rc)
		return pp_cli_fail(&err);
	rc = pp_fgd_report(&t, tune, seed, runs, &out, &err);
	pp_fgd_release(&t);
	if (rc) {
		pp_sb_release(&out);
		return pp_cli_fail(&err);
	}
	fwrite(out.buf, 1, out.len, stdout);
	pp_sb_release(&out);
	return 0;
}

typedef struct sweep_prog {
	prog p;
	const pp_csweep *w;
} sweep_prog;

static void sweep_progress(void *ctx, int point, int done, int npoints, int jobs_done, int njobs)
{
	sweep_prog *s = ctx;
	if (!s->p.tty)
		return;
	char what[160] = "";
	for (int a = 0; a < s->w->naxes; a++)
		snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s%s=%s", a ? " " : "",
			 s->w->axes[a].key, pp_csweep_value(s->w, point, a));
	fprintf(stderr, "\rcluster sweep: %d of %d points done; point %d (%s): %d%% of %d jobs ",
		done, npoints, point + 1, what, njobs ? (int)(100.0 * jobs_done / njobs) : 100,
		njobs);
	s->p.shown = true;
}

/* every rank runs its share of the points; rank 0 prints */
static int sweep(const pp_csweep *w, const pp_cspec *spec, const pp_cjobs *jobs,
		 const char *jobs_path, const pp_catalog *cat, bool csv)
{
	bool out0 = pp_dist_rank() == 0;
	sweep_prog sp = {{out0 && pp_cli_tty(), false}, w};
	pp_csweep_row *rows = NULL;
	pp_err err = {0};
	int rc = pp_csweep_run(w, spec, jobs, jobs_path, cat, &hw_of, sweep_progress, &sp, &rows,
			       &err);
	if (sp.p.shown)
		fprintf(stderr, "\r%100s\r", "");
	if (rc) {
		free(rows);
		return out0 ? pp_cli_fail(&err) : pp_exit_status(rc);
	}
	if (out0) {
		pp_sb out = {0};
		if (csv)
			pp_csweep_csv(&out, w, rows);
		else
			pp_csweep_text(&out, w, rows);
		fwrite(out.buf, 1, out.len, stdout);
		fflush(stdout);
		pp_sb_release(&out);
		/* how the points were shared out, where it is news */
		if (pp_cli_tty() || pp_dist_size() > 1)
			fprintf(stderr, "cluster sweep: %d points (%s)\n", w->npoints,
				pp_dist_describe());
	}
	free(rows);
	return 0;
}

static int validate(bool csv)
{
	pp_sb out = {0};
	pp_err err = {0};
	pp_catalog *cat;
	int rc = pp_cli_catalog(&cat);
	if (rc)
		return rc;
	rc = pp_canchor_run(cat, &hw_of, pp_data_dir(), csv, &out, &err);
	pp_catalog_free(cat);
	if (rc) {
		pp_sb_release(&out);
		return pp_cli_fail(&err);
	}
	fwrite(out.buf, 1, out.len, stdout);
	pp_sb_release(&out);
	return 0;
}

int pp_cmd_cluster(int argc, char **argv)
{
	enum { O_FORMAT = 1000, O_GEN, O_NJOBS, O_SEED, O_CMP, O_WHATIF, O_JSON, O_CSV, O_TL,
	       O_WRITE, O_VALIDATE, O_PERJOB, O_FRAG, O_TUNE, O_RUNS, O_SWEEP, O_REPORT };
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'},      {"format", required_argument, NULL, O_FORMAT},
		{"generate", required_argument, NULL, O_GEN},
		{"jobs", required_argument, NULL, O_NJOBS},
		{"seed", required_argument, NULL, O_SEED},
		{"compare", required_argument, NULL, O_CMP},
		{"what-if", required_argument, NULL, O_WHATIF},
		{"sweep", required_argument, NULL, O_SWEEP},
		{"report", required_argument, NULL, O_REPORT},
		{"json", no_argument, NULL, O_JSON},   {"csv", no_argument, NULL, O_CSV},
		{"timeline-csv", no_argument, NULL, O_TL},
		{"write-jobs", required_argument, NULL, O_WRITE},
		{"validate", no_argument, NULL, O_VALIDATE},
		{"per-job", no_argument, NULL, O_PERJOB},
		{"fragmentation", no_argument, NULL, O_FRAG},
		{"tune", required_argument, NULL, O_TUNE},
		{"runs", required_argument, NULL, O_RUNS}, {0, 0, 0, 0}};
	const char *fmt_s = NULL, *gen = NULL, *cmp = NULL, *write_jobs = NULL, *report = NULL;
	const char *wif[16], *swp[PP_CSWEEP_MAX_AXES];
	int nwif = 0, nswp = 0;
	unsigned long seed = 0, njobs = 0;
	bool seed_given = false, json = false, csv = false, tl = false, val = false,
	     per_job = false, frag = false;
	double tune = 1.3;
	unsigned long runs = 10;
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			help();
			return 0;
		case O_FORMAT: fmt_s = optarg; break;
		case O_GEN: gen = optarg; break;
		case O_NJOBS:
			if (pp_cli_parse_ulong(optarg, 100000000, &njobs) || njobs == 0)
				return pp_cli_usage_error("cluster", "--jobs: found \"%s\", expected "
							  "1..100000000", optarg);
			break;
		case O_SEED:
			if ((rc = pp_cli_parse_seed("cluster", optarg, &seed)))
				return rc;
			seed_given = true;
			break;
		case O_CMP: cmp = optarg; break;
		case O_WHATIF:
			if (nwif == 16)
				return pp_cli_usage_error("cluster", "--what-if: at most 16");
			wif[nwif++] = optarg;
			break;
		case O_SWEEP:
			if (nswp == PP_CSWEEP_MAX_AXES)
				return pp_cli_usage_error("cluster", "--sweep: at most %d keys",
							  PP_CSWEEP_MAX_AXES);
			swp[nswp++] = optarg;
			break;
		case O_REPORT:
			if (!*optarg)
				return pp_cli_usage_error("cluster", "--report: expected a folder");
			report = optarg;
			break;
		case O_JSON: json = true; break;
		case O_CSV: csv = true; break;
		case O_TL: tl = true; break;
		case O_WRITE: write_jobs = optarg; break;
		case O_VALIDATE: val = true; break;
		case O_PERJOB: per_job = true; break;
		case O_FRAG: frag = true; break;
		case O_TUNE:
			if ((rc = pp_cli_parse_num("cluster", "--tune", optarg, 0.9, 3.0, false,
						    "x the GPUs", &tune)))
				return rc;
			break;
		case O_RUNS:
			if (pp_cli_parse_ulong(optarg, 1000, &runs) || runs == 0)
				return pp_cli_usage_error("cluster", "--runs: found \"%s\", expected "
							  "1..1000", optarg);
			break;
		default: return pp_cli_usage_error("cluster", "unknown option");
		}
	}
	if (val)
		return optind == argc ? validate(csv)
				      : pp_cli_usage_error("cluster", "--validate takes no files");
	if (frag)
		return argc - optind == 2
			       ? fragmentation(argv[optind], argv[optind + 1], tune,
					       seed_given ? seed : 42, (int)runs)
			       : pp_cli_usage_error("cluster", "--fragmentation: expected NODES.csv "
							"and PODS.csv (openb_node_list_gpu_node.csv, "
							"openb_pod_list_default.csv)");
	int nargs = argc - optind;
	if (nargs != (gen ? 1 : 2))
		return pp_cli_usage_error("cluster", gen ? "expected SPEC.json with --generate"
						   : "expected SPEC.json and a jobs file");
	if ((json ? 1 : 0) + (csv ? 1 : 0) + (tl ? 1 : 0) > 1)
		return pp_cli_usage_error("cluster", "--json, --csv and --timeline-csv: one at a time");
	if (nswp && (json || tl || cmp || nwif || report || per_job))
		return pp_cli_usage_error("cluster", "--sweep prints one table (--csv: as CSV); "
					  "expected no --json, --timeline-csv, --per-job, --compare, "
					  "--what-if or --report with it");
	pp_cjob_fmt fmt = PP_CJF_AUTO;
	if (fmt_s) {
		int f = -1;
		for (int i = 1; i < PP_CJF_COUNT; i++)
			if (!strcmp(fmt_s, pp_cjob_fmt_names[i]))
				f = i;
		if (f < 0)
			return pp_cli_usage_error("cluster", "--format %s: expected podplan, sacct, "
						  "acme, helios, philly or openb", fmt_s);
		fmt = (pp_cjob_fmt)f;
	}
	/* a sweep runs on every rank of an mpirun job; rank 0 alone prints */
	if (nswp) {
		pp_dist_init();
		if (pp_dist_idle())
			return 0;
	}
	bool out0 = pp_dist_rank() == 0;
	pp_err err = {0};
	pp_cspec spec, specb;
	pp_cjobs jobs;
	pp_catalog *cat = NULL;
	pp_csim_result ra, rb;
	pp_csweep sw;
	bool have_b = cmp || nwif;
	memset(&ra, 0, sizeof(ra));
	memset(&rb, 0, sizeof(rb));
	memset(&specb, 0, sizeof(specb));
	memset(&sw, 0, sizeof(sw));
	pp_cjobs_init(&jobs);
	pp_sb out = {0};
	char gen_what[96] = "";
	if ((rc = pp_cspec_load(&spec, argv[optind], &err))) {
		pp_cjobs_release(&jobs);
		rc = out0 ? pp_cli_fail(&err) : pp_exit_status(rc);
		goto done;
	}
	if (seed_given)
		spec.seed = seed;
	/* the knobs are checked before anything runs */
	for (int i = 0; i < nwif; i++) {
		pp_cspec t;
		pp_cspec_copy(&t, &spec);
		rc = pp_cspec_set_kv(&t, wif[i], &err);
		pp_cspec_release(&t);
		if (rc) {
			rc = pp_cli_usage_error("cluster", "--what-if %s", err.msg);
			goto out;
		}
	}
	for (int i = 0; i < nswp; i++)
		if ((rc = pp_csweep_add(&sw, swp[i], &spec, &err))) {
			rc = out0 ? pp_cli_usage_error("cluster", "%s", err.msg) : 2;
			goto out;
		}
	const char *jobs_path = gen ? NULL : argv[optind + 1];
	if (gen) {
		pp_cgen_params p;
		pp_cgen_fit f;
		int gpus;
		pp_cjobs_release(&jobs);
		if ((rc = pp_cgen_preset(pp_data_dir(), gen, &p, &gpus, &err)) ||
		    (rc = pp_cgen_fit_params(&p, &f, &err)))
			goto fail;
		if (njobs)
			p.njobs = (int)njobs;
		p.seed = spec.seed;
		if ((rc = pp_cgen_draw(&p, &f, &jobs, &err)))
			goto fail;
		snprintf(gen_what, sizeof(gen_what), "generated from %s (seed %lu)", gen, p.seed);
		if (!json && !csv && !tl && out0)
			printf("generated %d jobs from %s: P(1 GPU) %.3f, size ratio %.3f, run time "
			       "lognormal mu %.3f sigma %.3f, beta %.3f (seed %lu)\n",
			       p.njobs, gen, f.p1, f.r, f.mu, f.sigma, f.beta, p.seed);
	} else {
		pp_cjobs_release(&jobs);
		if ((rc = pp_cjobs_load(&jobs, jobs_path, fmt, &err)))
			goto fail;
	}
	if (write_jobs && out0) {
		pp_sb w = {0};
		pp_cjobs_write_csv(&jobs, &w);
		rc = pp_write_file_atomic(write_jobs, w.buf, w.len, &err);
		pp_sb_release(&w);
		if (rc)
			goto fail;
	}
	if (jobs.nscenarios && (rc = pp_cli_catalog(&cat)))
		goto out;
	if (nswp) {
		fflush(stdout);
		rc = sweep(&sw, &spec, &jobs, jobs_path, cat, csv);
		goto out;
	}
	if ((rc = simulate(&spec, &jobs, jobs_path, cat, per_job || csv || report, &ra, &err)))
		goto fail;
	if (have_b) {
		if (cmp) {
			if ((rc = pp_cspec_load(&specb, cmp, &err)))
				goto fail;
			if (seed_given)
				specb.seed = seed;
		} else {
			pp_cspec_copy(&specb, &spec);
		}
		for (int i = 0; i < nwif; i++)
			if ((rc = pp_cspec_set_kv(&specb, wif[i], &err))) {
				rc = pp_cli_usage_error("cluster", "--what-if %s", err.msg);
				goto out;
			}
		if ((rc = simulate(&specb, &jobs, jobs_path, cat, false, &rb, &err)))
			goto fail;
	}
	char nb[256] = "";
	if (cmp)
		snprintf(nb, sizeof(nb), "%s", cmp);
	for (int i = 0; i < nwif; i++)
		snprintf(nb + strlen(nb), sizeof(nb) - strlen(nb), "%s%s", nb[0] ? ", " : "what-if ",
			 wif[i]);
	if (report) {
		pp_report_cluster v = {argv[optind], jobs_path, gen ? gen_what : NULL, &spec, &jobs,
				       &ra, have_b ? nb : NULL, have_b ? &specb : NULL,
				       have_b ? &rb : NULL, NULL};
		if ((rc = pp_report_cluster_write(&v, report, NULL, &err)))
			goto fail;
	}
	if (json) {
		cJSON *j = have_b ? pp_cout_compare_json(argv[optind], &ra,
							 cmp ? cmp : "what-if", &rb)
				  : pp_cout_json(&spec, &jobs, &ra);
		pp_json_print(j, true, &out);
		cJSON_Delete(j);
	} else if (csv) {
		pp_cout_csv_jobs(&out, &jobs, &ra);
	} else if (tl) {
		pp_cout_csv_timeline(&out, &ra);
	} else {
		pp_cout_text(&out, &spec, &jobs, &ra);
		if (have_b) {
			pp_sb_adds(&out, "\n");
			pp_cout_compare_text(&out, argv[optind], &ra, nb, &rb);
		}
		if (report)
			pp_sb_addf(&out, "report: %s/index.html\n", pp_tty(report));
	}
	fwrite(out.buf, 1, out.len, stdout);
	rc = 0;
	goto out;
fail:
	rc = out0 ? pp_cli_fail(&err) : pp_exit_status(rc);
out:
	pp_sb_release(&out);
	pp_csim_result_release(&ra);
	pp_csim_result_release(&rb);
	pp_cspec_release(&spec);
	pp_cspec_release(&specb);
	pp_cjobs_release(&jobs);
	pp_catalog_free(cat);
done:
	if (nswp)
		pp_dist_finalize();
	return rc;
}
