/*
 * cmd_cluster.c - podplan cluster SPEC.json JOBS|--generate ID [options]:
 * many jobs on one cluster (sim/cluster/csim.h).
 */
#include "cli/cli.h"
#include "cluster/canchor.h"
#include "cluster/cfgd.h"
#include "cluster/cgen.h"
#include "cluster/cjobs.h"
#include "cluster/cout.h"
#include "cluster/cscen.h"
#include "cluster/csim.h"
#include "cluster/cspec.h"
#include "core/jsonout.h"
#include "core/util.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
	       "A progress line goes to stderr when it is a terminal. Bad input: exit status 2.\n");
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

static int what_if(pp_cspec *s, const char *kv)
{
	const char *eq = strchr(kv, '=');
	if (!eq)
		return pp_cli_usage_error("cluster", "--what-if %s: expected KEY=VALUE", kv);
	size_t kl = (size_t)(eq - kv);
	const char *v = eq + 1;
	char *end;
	if (kl == 9 && !strncmp(kv, "add_nodes", kl)) {
		long n = strtol(v, &end, 10);
		if (*end || end == v || n < -s->types[0].count + 1 || n > 1000000)
			return pp_cli_usage_error("cluster", "--what-if add_nodes=%s: expected an "
						  "integer that leaves at least one node", v);
		s->types[0].count += (int)n;
		s->nodes += (int)n;
		s->gpus += (int)n * s->gpus_per_node;
		return 0;
	}
	if (kl == 8 && !strncmp(kv, "fs_scale", kl)) {
		double x = strtod(v, &end);
		if (*end || end == v || !(x > 0 && x < 1e6))
			return pp_cli_usage_error("cluster", "--what-if fs_scale=%s: expected a "
						  "positive factor", v);
		s->fs_write_Bps *= x;
		s->fs_read_Bps *= x;
		return 0;
	}
	const char *const *names = NULL;
	int n = 0, tmp = -1;
	if (kl == 9 && !strncmp(kv, "scheduler", kl)) {
		names = pp_csched_names;
		n = 2;
	} else if (kl == 9 && !strncmp(kv, "placement", kl)) {
		names = pp_cplace_names;
		n = 3;
	} else if (kl == 8 && !strncmp(kv, "topology", kl)) {
		names = pp_ctopo_names;
		n = 3;
	} else {
		return pp_cli_usage_error("cluster", "--what-if %s: unknown key; expected add_nodes, "
					  "scheduler, placement, fs_scale or topology", kv);
	}
	for (int i = 0; i < n; i++)
		if (!strcmp(v, names[i]))
			tmp = i;
	if (tmp < 0)
		return pp_cli_usage_error("cluster", "--what-if %s: unknown value \"%s\"", kv, v);
	if (names == pp_csched_names)
		s->sched = (pp_csched)tmp;
	else if (names == pp_cplace_names)
		s->placement = (pp_cplace)tmp;
	else
		s->topology_mode = (pp_ctopo)tmp;
	return 0;
}

static int simulate(const pp_cspec *spec, const pp_cjobs *jobs, const char *jobs_path,
		    const pp_catalog *cat, bool per_job, pp_csim_result *r, pp_err *err)
{
	pp_cscen *sc = NULL;
	int rc = 0;
	if (jobs->nscenarios &&
	    (rc = pp_cscen_new(&sc, jobs, jobs_path, spec, cat, err)))
		return rc;
	prog p = {pp_cli_tty(), false};
	pp_csim_opts o = {0};
	o.step = sc ? pp_cscen_step : NULL;
	o.step_ctx = sc;
	o.progress = progress;
	o.progress_ctx = &p;
	o.per_job = per_job;
	rc = pp_csim_run(spec, jobs, &o, r, err);
	progress_end(&p);
	pp_cscen_free(sc);
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

static int validate(bool csv)
{
	pp_sb out = {0};
	pp_err err = {0};
	pp_catalog *cat;
	int rc = pp_cli_catalog(&cat);
	if (rc)
		return rc;
	rc = pp_canchor_run(cat, pp_data_dir(), csv, &out, &err);
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
	       O_WRITE, O_VALIDATE, O_PERJOB, O_FRAG, O_TUNE, O_RUNS };
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'},      {"format", required_argument, NULL, O_FORMAT},
		{"generate", required_argument, NULL, O_GEN},
		{"jobs", required_argument, NULL, O_NJOBS},
		{"seed", required_argument, NULL, O_SEED},
		{"compare", required_argument, NULL, O_CMP},
		{"what-if", required_argument, NULL, O_WHATIF},
		{"json", no_argument, NULL, O_JSON},   {"csv", no_argument, NULL, O_CSV},
		{"timeline-csv", no_argument, NULL, O_TL},
		{"write-jobs", required_argument, NULL, O_WRITE},
		{"validate", no_argument, NULL, O_VALIDATE},
		{"per-job", no_argument, NULL, O_PERJOB},
		{"fragmentation", no_argument, NULL, O_FRAG},
		{"tune", required_argument, NULL, O_TUNE},
		{"runs", required_argument, NULL, O_RUNS}, {0, 0, 0, 0}};
	const char *fmt_s = NULL, *gen = NULL, *cmp = NULL, *write_jobs = NULL;
	const char *wif[16];
	int nwif = 0;
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
	pp_err err = {0};
	pp_cspec spec, specb;
	pp_cjobs jobs;
	pp_catalog *cat = NULL;
	pp_csim_result ra, rb;
	bool have_b = cmp || nwif;
	memset(&ra, 0, sizeof(ra));
	memset(&rb, 0, sizeof(rb));
	memset(&specb, 0, sizeof(specb));
	pp_cjobs_init(&jobs);
	pp_sb out = {0};
	if ((rc = pp_cspec_load(&spec, argv[optind], &err))) {
		pp_cjobs_release(&jobs);
		return pp_cli_fail(&err);
	}
	if (seed_given)
		spec.seed = seed;
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
		if (!json && !csv && !tl)
			printf("generated %d jobs from %s: P(1 GPU) %.3f, size ratio %.3f, run time "
			       "lognormal mu %.3f sigma %.3f, beta %.3f (seed %lu)\n",
			       p.njobs, gen, f.p1, f.r, f.mu, f.sigma, f.beta, p.seed);
	} else {
		pp_cjobs_release(&jobs);
		if ((rc = pp_cjobs_load(&jobs, jobs_path, fmt, &err)))
			goto fail;
	}
	if (write_jobs) {
		pp_sb w = {0};
		pp_cjobs_write_csv(&jobs, &w);
		rc = pp_write_file_atomic(write_jobs, w.buf, w.len, &err);
		pp_sb_release(&w);
		if (rc)
			goto fail;
	}
	if (jobs.nscenarios && (rc = pp_cli_catalog(&cat)))
		goto out;
	if ((rc = simulate(&spec, &jobs, jobs_path, cat, per_job || csv, &ra, &err)))
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
			if ((rc = what_if(&specb, wif[i])))
				goto out;
		if ((rc = simulate(&specb, &jobs, jobs_path, cat, false, &rb, &err)))
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
			char nb[256] = "";
			if (cmp)
				snprintf(nb, sizeof(nb), "%s", cmp);
			for (int i = 0; i < nwif; i++)
				snprintf(nb + strlen(nb), sizeof(nb) - strlen(nb), "%s%s",
					 nb[0] ? ", " : "what-if ", wif[i]);
			pp_cout_compare_text(&out, argv[optind], &ra, nb, &rb);
		}
	}
	fwrite(out.buf, 1, out.len, stdout);
	rc = 0;
	goto out;
fail:
	rc = pp_cli_fail(&err);
out:
	pp_sb_release(&out);
	pp_csim_result_release(&ra);
	pp_csim_result_release(&rb);
	pp_cspec_release(&spec);
	pp_cspec_release(&specb);
	pp_cjobs_release(&jobs);
	pp_catalog_free(cat);
	return rc;
}
