/*
 * cmd_size.c - podplan size SCENARIO.json --deadline DAYS | --budget USD
 *
 * Which cluster (GPU SKU x count x inter-node fabric) trains the scenario
 * soonest enough and cheapest: a layout search (`podplan search`,
 * cmd_search.c) per option, through pp_size_run. Runs under `mpirun -np N`
 * as search does; rank 0 prints.
 */
#include "cli/plancmd.h"
#include "calib/headroom.h"
#include "core/dist.h"
#include "cost/cost.h"
#include "core/util.h"
#include "plan/sizeout.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Apply a comma-separated list of catalog ids to a spec list. */
static int parse_ids(const char *cmd, const char *arg, const pp_catalog *cat, bool gpus,
		     pp_size_spec *spec)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", arg);
	int n = 0;
	for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == PP_SIZE_MAX_LIST)
			return pp_cli_usage_error(cmd, "at most %d values", PP_SIZE_MAX_LIST);
		if (gpus) {
			const pp_gpu *g = pp_catalog_gpu(cat, tok);
			if (!g)
				return pp_cli_usage_error(cmd, "unknown GPU \"%s\" (podplan catalog gpus)",
							  tok);
			spec->gpus[n++] = g;
		} else {
			const pp_fabric *f = pp_catalog_fabric(cat, tok);
			if (!f || f->intra_node)
				return pp_cli_usage_error(cmd, "unknown inter-node fabric \"%s\" "
							  "(podplan catalog fabrics)", tok);
			spec->fabrics[n++] = f;
		}
	}
	if (!n)
		return pp_cli_usage_error(cmd, "empty list");
	if (gpus)
		spec->ngpus = n;
	else
		spec->nfabrics = n;
	return 0;
}

static int parse_counts(const char *cmd, const char *arg, pp_size_spec *spec)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", arg);
	int n = 0;
	for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long v = strtol(tok, &end, 10);
		if (*end || v < 1 || v > 4194304 || n == PP_SIZE_MAX_LIST)
			return pp_cli_usage_error(cmd, "--num-gpus: found \"%s\", expected up to %d "
						  "GPU counts from 1 to 4194304, comma-separated",
						  tok, PP_SIZE_MAX_LIST);
		spec->counts[n++] = (int)v;
	}
	if (!n)
		return pp_cli_usage_error(cmd, "--num-gpus: empty list");
	spec->ncounts = n;
	return 0;
}

static void on_option(int i, int n, const pp_size_option *o, void *ctx)
{
	pp_plan_prog *g = ctx;
	snprintf(g->prefix, sizeof(g->prefix), "size: option %d/%d, %d x %s (%s): ", i + 1, n,
		 o->num_gpus, o->gpu->id, o->inter->id);
}

static void help_size(void)
{
	printf("usage: podplan size SCENARIO.json (--deadline DAYS | --budget USD) [options]\n\n"
	       "Which cluster trains the scenario's model on training.train_tokens soonest enough and\n"
	       "cheapest? Every option (GPU SKU x GPU count x inter-node fabric) gets its own layout\n"
	       "search (`podplan search`); its best step time gives the time to train, and\n"
	       "$/GPU-hour x GPUs x that time its rent cost (no goodput, storage or egress: `podplan\n"
	       "cost` prices those).\n\n"
	       "  --deadline DAYS  the cheapest option that trains within DAYS\n"
	       "  --budget USD     the fastest option that costs at most USD\n"
	       "                   (neither: every option, cheapest first)\n"
	       "  --gpus a,b       SKUs (catalog ids; default search.gpus, else every priced SKU)\n"
	       "  --num-gpus n,m   GPU counts (default search.num_gpus, else the scenario's count x\n"
	       "                   1/4, 1/2, 1, 2, 4 in whole nodes)\n"
	       "  --fabrics f,g    inter-node fabrics (default search.fabrics, else the scenario's)\n"
	       "  --provider P, --tier T  prices.json provider and tier (default: cheapest on_demand)\n"
	       "  --memory-headroom F  share of each GPU's memory kept free (0 to 0.9); default: the\n"
	       "                   caching allocator's reserve measured for the framework\n"
	       "                   (sim/calib/headroom.h); no layout above capacity x (1 - F)\n"
	       "  --conservative   each option's layout, time and cost at the pessimistic end of\n"
	       "                   its step's 80%% interval (step x its upper factor), and the\n"
	       "                   answer priced there\n"
	       "  --json, --csv    machine-readable; --verbose: timing on stderr\n"
	       "  -d, -b, -j, -c, -v  short for --deadline, --budget, --json, --csv, --verbose\n\n"
	       "Options that cannot win are not searched: a lower bound on any layout's step time\n"
	       "(the step's FLOPs over every GPU at the SKU's best rate) bounds the time and cost;\n"
	       "they are listed with that bound. Runs under `mpirun -np N` like `podplan search`.\n\n"
	       "The answer weighs every searched cluster rented and built (capex, lead time,\n"
	       "financing, goodput), beside the hosted-API and one-node options of the scenario's\n"
	       "\"costs\" section, with podplan cost's engine: the cheapest option whose time to\n"
	       "result (lead time + one run) meets the deadline, or the fastest within the budget.\n");
}

/* The searched clusters, cheapest rent first, as the cost engine's
 * candidates (at most PP_COST_MAX_CANDIDATES), weighed into *w. */
static int weigh(const pp_plan_loaded *l, const pp_size_result *r, double deadline_s,
		 double budget_usd, bool conservative, pp_cost_result *w, pp_err *err)
{
	pp_cost_candidate c[PP_COST_MAX_CANDIDATES];
	int n = 0;
	for (int i = 0; i < r->n && n < PP_COST_MAX_CANDIDATES; i++) {
		const pp_size_option *o = &r->opt[i];
		if (o->status != PP_SIZE_SEARCHED)
			continue;
		const pp_layout *y = &o->best.layout;
		pp_cost_candidate *k = &c[n++];
		memset(k, 0, sizeof(*k));
		k->gpu = o->gpu;
		k->num_gpus = o->num_gpus;
		k->gpus_per_node = o->gpus_per_node;
		k->nics_per_node = o->nics_per_node;
		k->inter = o->inter;
		k->tp = y->tp;
		k->pp = y->pp;
		k->cp = y->cp;
		k->vpp = y->vpp;
		k->sequence_parallel = y->sp;
		k->zero_stage = y->zero_stage;
		k->recompute = (int)y->recompute;
		k->micro_batch_size = y->micro_batch_size;
		k->provider = l->spec.provider;
		k->tier = l->spec.tier;
		k->usd_per_gpu_hour = NAN;
		for (int p = 0; p < l->spec.nprices; p++)
			if (l->spec.price_gpu[p] == o->gpu)
				k->usd_per_gpu_hour = l->spec.price_usd[p];
	}
	pp_cost_opts co = {0};
	co.predict = pp_predict;
	co.deadline_s = deadline_s;
	co.budget_usd = budget_usd;
	co.spread_draws = pp_dist_size() > 1;
	co.hwcal = &l->c.cal;
	co.conservative = conservative;
	return pp_cost_weigh(&l->c.s, l->c.cat, &co, c, n, w, err);
}

int pp_cmd_size(int argc, char **argv)
{
	static const struct option opts[] = {
		{"deadline", required_argument, NULL, 'd'}, {"budget", required_argument, NULL, 'b'},
		{"gpus", required_argument, NULL, 'g'},     {"num-gpus", required_argument, NULL, 'n'},
		{"fabrics", required_argument, NULL, 'f'},  {"provider", required_argument, NULL, 'P'},
		{"tier", required_argument, NULL, 'T'},     {"json", no_argument, NULL, 'j'},
		{"csv", no_argument, NULL, 'c'},            {"verbose", no_argument, NULL, 'v'},
		{"memory-headroom", required_argument, NULL, 'H'},
		{"conservative", no_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},           {0, 0, 0, 0}};
	bool json = false, csv = false, verbose = false;
	double headroom = NAN;
	bool conservative = false;
	double deadline_days = 0, budget = 0;
	const char *gpus = NULL, *counts = NULL, *fabrics = NULL, *provider = NULL, *tier = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:b:jcvh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (pp_cli_parse_num("size", "--deadline", optarg, 1e-6, 1e5, false, "days",
					     &deadline_days))
				return 2; /* the usage error, printed */
			break;
		case 'b':
			if (pp_cli_parse_num("size", "--budget", optarg, 0.01, 1e13, false, "US dollars",
					     &budget))
				return 2; /* the usage error, printed */
			break;
		case 'g': gpus = optarg; break;
		case 'n': counts = optarg; break;
		case 'f': fabrics = optarg; break;
		case 'P': provider = optarg; break;
		case 'T': tier = optarg; break;
		case 'j': json = true; break;
		case 'c': csv = true; break;
		case 'v': verbose = true; break;
		case 'S': conservative = true; break;
		case 'H': {
			char *end;
			headroom = strtod(optarg, &end);
			if (*end || end == optarg || !(headroom >= 0 && headroom <= 0.9))
				return pp_cli_usage_error("size", "--memory-headroom: found \"%s\", "
							  "expected a share from 0 to 0.9", optarg);
			break;
		}
		case 'h': help_size(); return 0;
		default: return pp_cli_usage_error("size", "unknown option");
		}
	}
	if (optind + 1 != argc)
		return pp_cli_usage_error("size", "expected one scenario file");
	if (deadline_days > 0 && budget > 0)
		return pp_cli_usage_error("size", "--deadline and --budget exclude each other");
	if (json && csv)
		return pp_cli_usage_error("size", "--json and --csv exclude each other");
	pp_dist_init();
	if (pp_dist_idle())
		return 0;
	bool out0 = pp_dist_rank() == 0;
	pp_plan_loaded l = {0};
	int rc = pp_plan_load(&l, argv[optind], "size", NULL);
	if (rc)
		goto out;
	if ((gpus && (rc = parse_ids("size", gpus, l.c.cat, true, &l.spec))) ||
	    (fabrics && (rc = parse_ids("size", fabrics, l.c.cat, false, &l.spec))) ||
	    (counts && (rc = parse_counts("size", counts, &l.spec))))
		goto out;
	if (provider)
		snprintf(l.spec.provider, sizeof(l.spec.provider), "%s", provider);
	if (tier)
		snprintf(l.spec.tier, sizeof(l.spec.tier), "%s", tier);
	pp_plan_prog pg = {out0 && pp_cli_tty(), 0, -1, "size: "};
	pp_headroom hr;
	pp_err herr = {0};
	if ((rc = isnan(headroom) ? pp_headroom_measured(l.c.cat, l.c.s.training.stack.framework, &hr,
							 &herr)
				  : pp_headroom_given(headroom, &hr, &herr))) {
		rc = pp_cli_fail(&herr);
		goto out;
	}
	pp_size_opts so = {deadline_days * 86400.0, budget, l.spec, pp_plan_on_progress, &pg, on_option,
			   &l.c.cal, hr.share, conservative ? l.c.cat : NULL};
	pp_size_result r;
	pp_err err = {0};
	rc = pp_size_run(&l.c.s, l.c.cat, &so, &r, &err);
	pp_plan_progress_end(&pg);
	if (rc) {
		rc = out0 ? pp_cli_fail(&err) : pp_exit_status(rc);
		goto out;
	}
	/* one answer: every searched cluster rented and built, beside the
	 * scenario's lower tiers, through the cost engine; every rank has the
	 * same search result, so every rank weighs (the Monte Carlo's draws
	 * spread over them) and rank 0 prints */
	pp_cost_result w;
	memset(&w, 0, sizeof(w));
	if ((rc = weigh(&l, &r, deadline_days * 86400.0, budget, conservative, &w, &err))) {
		rc = out0 ? pp_cli_fail(&err) : pp_exit_status(rc);
		pp_size_result_release(&r);
		goto out;
	}
	if (out0) {
		pp_size_weighed v;
		pp_sb table = {0}, wj = {0}, out = {0};
		pp_plan_weighed(&w, &v, &table, &wj);
		if (json)
			pp_size_to_json(l.c.cat, &l.c.s, &r, &v, &hr, &out);
		else if (csv)
			pp_size_to_csv(&r, &v, &out);
		else
			pp_size_to_text(l.c.cat, &l.c.s, &r, &v, &hr, conservative, &out);
		fputs(out.buf ? out.buf : "", stdout);
		pp_sb_release(&out);
		pp_sb_release(&wj);
		pp_sb_release(&table);
		fflush(stdout);
		if (verbose || pp_cli_tty())
			fprintf(stderr, "size: %d options, %d searches, %lld candidates in %.3f s; %s\n",
				r.n, r.searches, (long long)r.evaluated, r.elapsed_s,
				pp_dist_describe());
	}
	pp_size_result_release(&r);
	pp_cost_result_release(&w);
out:
	pp_plan_unload(&l);
	pp_dist_finalize();
	return rc;
}
