/*
 * cmd_search.c - podplan search SCENARIO.json [--top K] [--json|--csv]
 *
 * Runs unchanged under `mpirun -np N` (sim/core/dist.h): every rank loads
 * the same inputs and takes part in the search; rank 0 prints. stdout holds
 * only what does not depend on the number of ranks or on the clock (the
 * JSON's elapsed_s and candidates_per_s lines excepted), so a distributed
 * run prints what the serial run prints. Timing goes to stderr when it is a
 * terminal (or with --verbose). `podplan size` (cmd_size.c) runs a search
 * per cluster option.
 */
#include "cli/plancmd.h"
#include "calib/headroom.h"
#include "plan/answer.h"
#include "plan/searchout.h"
#include "core/dist.h"
#include "core/util.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void help_search(void)
{
	printf("usage: podplan search SCENARIO.json [--top K] [--rank time|cost] [--conservative]\n"
	       "                      [--memory-headroom F] [--json | --csv]\n\n"
	       "Finds the fastest parallel layouts for the scenario's model, global batch and cluster.\n"
	       "Searched: tensor, pipeline, data and context parallel sizes, ZeRO stage 0-3, micro-batch\n"
	       "size, interleaving (virtual pipeline chunks), sequence parallelism and recompute. Keys\n"
	       "the scenario gives in `parallel` (and training.micro_batch_size / recompute) stay fixed;\n"
	       "leave a key out to search it. training.global_batch_size is required and kept.\n\n"
	       "Layouts that do not fit in memory are dropped; the others are simulated in order of a\n"
	       "lower bound on their step time until no remaining layout can enter the top K, so the\n"
	       "answer is the one simulating every layout would give. The top K are then predicted in\n"
	       "full (same numbers as `podplan predict` on that layout).\n\n"
	       "  --top K         layouts to print (default: search.top in the scenario, else 5)\n"
	       "  --rank time|cost  order by step time (default) or by $ per token; on one cluster\n"
	       "                  both give the same order ($/token = price x GPUs x step / tokens);\n"
	       "                  `podplan size` compares clusters by cost\n"
	       "  --provider P, --tier T  price for $/token (prices.json; default: cheapest on_demand)\n"
	       "  --json          {evaluated, no_fit, feasible, bounded, simulated, elapsed_s,\n"
	       "                  candidates_per_s, memory_headroom, memory_headroom_source,\n"
	       "                  best: [{layout keys, step_time_s, interval, at_best_published,\n"
	       "                  mfu, memory, breakdown, usd_per_million_tokens}], why}\n"
	       "  --csv           one row per layout of the top K (RFC 4180, header first)\n"
	       "  --calibration DB:PROFILE  a fitted calibration profile, as `podplan predict` uses\n"
	       "                  it (default: the scenario's calibration section)\n"
	       "  --conservative  rank by the pessimistic end of each layout's 80%% interval (step x\n"
	       "                  its upper factor): the search widens its top list until no layout\n"
	       "                  left out could rank in the first K that way\n"
	       "  --memory-headroom F  share of each GPU's memory kept free (0 to 0.9); default: the\n"
	       "                  caching allocator's reserve measured for the framework\n"
	       "                  (sim/calib/headroom.h). No layout above capacity x (1 - F) is kept\n"
	       "  --exhaustive    simulate every layout that fits (slow; checks the pruning)\n"
	       "  --verbose       timing summary on stderr even when it is not a terminal\n"
	       "  -k, -r, -j, -c, -v  short for --top, --rank, --json, --csv, --verbose\n\n"
	       "Counts: evaluated = every candidate of the space; no_fit = pruned by memory;\n"
	       "bounded = fits but its step-time lower bound is above the K-th best; simulated = the\n"
	       "rest. Distributed: `mpirun -np N podplan search ...` splits the candidates over the\n"
	       "ranks (Open MPI, loaded at run time) and prints what the serial run prints.\n"
	       "Progress goes to stderr when it is a terminal.\n\n"
	       "Each layout carries the 80%% interval of its step from podplan's errors on the\n"
	       "validated runs nearest to it (as `podplan predict` prints it; * marks the default\n"
	       "band where none is near); a #1 above the best published MFU of its GPU and precision\n"
	       "(models/plausibility.json) is also costed at that MFU.\n");
}

static int get_price(pp_plan_loaded *l, double *usd, char *what, size_t n)
{
	pp_err e = {0};
	*usd = NAN;
	what[0] = '\0';
	if (pp_size_price(l->c.cat, &l->spec, l->c.s.cluster.gpu, usd, what, n, &e)) {
		*usd = NAN;
		snprintf(what, n, "%s", e.msg);
		return -1;
	}
	return 0;
}

static void summary(const char *what, const pp_search_result *r, bool verbose)
{
	if (!(verbose || pp_cli_tty()) || pp_dist_rank() != 0)
		return;
	fprintf(stderr, "%s: %lld candidates in %.3f s (%.0f/s), %lld simulations run, %d "
			"workloads built; %s\n",
		what, (long long)r->evaluated, r->elapsed_s,
		r->elapsed_s > 0 ? r->evaluated / r->elapsed_s : 0, (long long)r->sims_run,
		r->workloads_built, pp_dist_describe());
}

int pp_cmd_search(int argc, char **argv)
{
	static const struct option opts[] = {
		{"top", required_argument, NULL, 'k'},      {"rank", required_argument, NULL, 'r'},
		{"json", no_argument, NULL, 'j'},           {"csv", no_argument, NULL, 'c'},
		{"provider", required_argument, NULL, 'P'}, {"tier", required_argument, NULL, 'T'},
		{"exhaustive", no_argument, NULL, 'X'},     {"verbose", no_argument, NULL, 'v'},
		{"calibration", required_argument, NULL, 'C'}, {"help", no_argument, NULL, 'h'},
		{"conservative", no_argument, NULL, 'S'},
		{"memory-headroom", required_argument, NULL, 'H'}, {0, 0, 0, 0}};
	bool json = false, csv = false, exhaustive = false, verbose = false, by_cost = false;
	bool conservative = false;
	double headroom = NAN;
	const char *calib = NULL;
	long top = 0;
	const char *provider = NULL, *tier = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "k:r:jcvh", opts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'k':
			top = strtol(optarg, &end, 10);
			if (*end || top < 1 || top > 1000)
				return pp_cli_usage_error("search", "--top: found \"%s\", expected 1 to 1000",
							  optarg);
			break;
		case 'r':
			if (!strcmp(optarg, "time"))
				by_cost = false;
			else if (!strcmp(optarg, "cost"))
				by_cost = true;
			else
				return pp_cli_usage_error("search", "--rank: found \"%s\", expected time "
							  "or cost", optarg);
			break;
		case 'j': json = true; break;
		case 'c': csv = true; break;
		case 'P': provider = optarg; break;
		case 'T': tier = optarg; break;
		case 'X': exhaustive = true; break;
		case 'v': verbose = true; break;
		case 'C': calib = optarg; break;
		case 'S': conservative = true; break;
		case 'H':
			headroom = strtod(optarg, &end);
			if (*end || end == optarg || !(headroom >= 0 && headroom <= 0.9))
				return pp_cli_usage_error("search", "--memory-headroom: found \"%s\", "
							  "expected a share from 0 to 0.9", optarg);
			break;
		case 'h': help_search(); return 0;
		default: return pp_cli_usage_error("search", "unknown option");
		}
	}
	if (optind + 1 != argc)
		return pp_cli_usage_error("search", "expected one scenario file");
	if (json && csv)
		return pp_cli_usage_error("search", "--json and --csv exclude each other");
	if (conservative && by_cost)
		return pp_cli_usage_error("search", "--conservative and --rank cost exclude each other");
	pp_dist_init();
	if (pp_dist_idle())
		return 0;
	bool out0 = pp_dist_rank() == 0;
	pp_plan_loaded l = {0};
	int rc = pp_plan_load(&l, argv[optind], "search", calib);
	if (rc)
		goto out;
	if (provider)
		snprintf(l.spec.provider, sizeof(l.spec.provider), "%s", provider);
	if (tier)
		snprintf(l.spec.tier, sizeof(l.spec.tier), "%s", tier);
	double usd;
	char what[256];
	if (get_price(&l, &usd, what, sizeof(what)) && by_cost) {
		fprintf(stderr, "podplan search: --rank cost: %s\n", what);
		rc = 2;
		goto out;
	}
	pp_headroom hr;
	pp_err err = {0};
	if ((rc = isnan(headroom) ? pp_headroom_measured(l.c.cat, l.c.s.training.stack.framework, &hr,
							 &err)
				  : pp_headroom_given(headroom, &hr, &err))) {
		rc = pp_cli_fail(&err);
		goto out;
	}
	pp_plan_prog pg = {out0 && pp_cli_tty(), 0, -1, "search: "};
	int k = top ? (int)top : l.spec.top ? l.spec.top : 5;
	pp_search_opts so = {conservative ? (k < 8 ? 16 : 2 * k) : k, exhaustive, false, usd,
			     pp_plan_on_progress, &pg, false, NULL, NULL, hr.share};
	pp_search_result r;
	pp_answer *ans = NULL;
	for (;;) {
		rc = pp_search_run(&l.c.s, &l.c.hw, &so, &r, &err);
		if (rc || !conservative)
			break;
		pp_answer_rank_conservative(l.c.cat, &l.c.s, &r, NULL);
		if (pp_conservative_settled(l.c.cat, &l.c.s, &r, k) || so.top_k >= 4096)
			break;
		so.top_k *= 4;
		pp_search_result_release(&r);
	}
	pp_plan_progress_end(&pg);
	if (rc) {
		rc = out0 ? pp_cli_fail(&err) : pp_exit_status(rc);
		goto out;
	}
	if (r.nbest > k)
		r.nbest = k; /* the hits past k stay allocated until the release */
	ans = pp_xcalloc((size_t)r.nbest + 1, sizeof(*ans));
	for (int i = 0; i < r.nbest; i++)
		pp_answer_of(l.c.cat, &l.c.s, &r.best[i].layout, &r.best[i].result, &ans[i]);
	if (out0) {
		if (r.fell_back)
			fprintf(stderr, "podplan search: warning: the fast path disagreed with the event "
					"simulation on the same program (sim/engine/fastpath.c and evgraph.c); "
					"the search was redone with the event simulation\n");
		pp_search_out o = {conservative ? PP_RANK_PESSIMISTIC : by_cost ? PP_RANK_COST
										 : PP_RANK_TIME,
				   usd, what, ans, &hr};
		pp_sb out = {0};
		if (!r.nbest || !(json || csv))
			pp_search_to_text(l.c.cat, &l.c.s, &r, &o, &out);
		else if (json)
			pp_search_to_json(l.c.cat, &l.c.s, &r, &o, &out);
		else
			pp_search_to_csv(&l.c.s, &r, &out);
		fputs(out.buf ? out.buf : "", stdout);
		pp_sb_release(&out);
		fflush(stdout);
	}
	summary("search", &r, verbose);
	if (!r.nbest && !json && !csv)
		rc = 1;
	pp_search_result_release(&r);
	free(ans);
out:
	pp_plan_unload(&l);
	pp_dist_finalize();
	return rc;
}
