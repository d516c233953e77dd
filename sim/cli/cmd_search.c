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
#include "core/fmt.h"
#include "core/dist.h"
#include "engine/breakdown.h"
#include "core/util.h"
#include "input/plausible.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIG PP_PLAN_SIG
#define SIG_RATIO PP_PLAN_SIG_RATIO

/* Why the winner wins, in sentences. */
static void explain(const pp_scenario *s, const pp_search_result *r, pp_sb *o)
{
	const pp_search_hit *w = &r->best[0];
	const pp_result *wr = &w->result;
	char b1[32], b2[32], l1[200];
	pp_sb_addf(o, "%s runs a step in %s at %.1f%% MFU; %.0f%% of the step is kernels, the "
		      "largest overhead is %s.",
		   pp_layout_str(&w->layout, l1, sizeof(l1)),
		   pp_fmt_duration(wr->step_time_s, b1, sizeof(b1)), 100 * wr->mfu,
		   100 * wr->breakdown.compute_s / wr->step_time_s, wr->bottleneck);
	if (r->nbest > 1) {
		const pp_search_hit *q = &r->best[1];
		const pp_layout *a = &w->layout, *b = &q->layout;
		pp_sb d = {0};
#define DIFF(cond, ...)                                                                  \
	if (cond)                                                                        \
		pp_sb_addf(&d, __VA_ARGS__)
		DIFF(a->tp != b->tp, "%sTP %d instead of %d", d.len ? ", " : "", a->tp, b->tp);
		DIFF(a->pp != b->pp, "%sPP %d instead of %d", d.len ? ", " : "", a->pp, b->pp);
		DIFF(a->dp != b->dp, "%sDP %d instead of %d", d.len ? ", " : "", a->dp, b->dp);
		DIFF(a->cp != b->cp, "%sCP %d instead of %d", d.len ? ", " : "", a->cp, b->cp);
		DIFF(a->vpp != b->vpp, "%s%d model chunks per stage instead of %d",
		     d.len ? ", " : "", a->vpp, b->vpp);
		DIFF(a->micro_batch_size != b->micro_batch_size, "%smicro-batch %lld instead of %lld",
		     d.len ? ", " : "", (long long)a->micro_batch_size, (long long)b->micro_batch_size);
		DIFF(a->zero_stage != b->zero_stage, "%sZeRO-%d instead of ZeRO-%d",
		     d.len ? ", " : "", a->zero_stage, b->zero_stage);
		DIFF(a->sp != b->sp, "%sSP %s", d.len ? ", " : "", a->sp ? "on" : "off");
		DIFF(a->recompute != b->recompute, "%s%s recompute instead of %s", d.len ? ", " : "",
		     pp_recompute_names[a->recompute], pp_recompute_names[b->recompute]);
#undef DIFF
		double va[PP_BD_COUNT], vb[PP_BD_COUNT];
		pp_breakdown_values(&wr->breakdown, va);
		pp_breakdown_values(&q->result.breakdown, vb);
		int ord[PP_BD_COUNT];
		for (int i = 0; i < PP_BD_COUNT; i++)
			ord[i] = i;
		for (int i = 0; i < PP_BD_COUNT; i++)
			for (int j = i + 1; j < PP_BD_COUNT; j++)
				if (fabs(vb[ord[j]] - va[ord[j]]) > fabs(vb[ord[i]] - va[ord[i]])) {
					int t = ord[i];
					ord[i] = ord[j];
					ord[j] = t;
				}
		double gain = q->result.step_time_s - wr->step_time_s;
		/* the simulation keeps nanoseconds: closer than that is a tie,
		 * broken by the order the layouts were enumerated in */
		if (gain < 1e-9)
			pp_sb_addf(o, " It ties with the runner-up (%s) at %s a step; the search lists "
				   "the layout it enumerated first", d.len ? d.buf : "same layout",
				   pp_fmt_duration(wr->step_time_s, b1, sizeof(b1)));
		else
			pp_sb_addf(o, " It beats the runner-up (%s) by %s (%.1f%%)",
				   d.len ? d.buf : "same layout", pp_fmt_duration(gain, b1, sizeof(b1)),
				   100 * gain / q->result.step_time_s);
		int said = 0;
		for (int i = 0; i < PP_BD_COUNT && said < 2; i++) {
			double delta = vb[ord[i]] - va[ord[i]];
			if (fabs(delta) < 1e-4 * wr->step_time_s)
				break;
			pp_sb_addf(o, "%s %s %s %s", said ? " and" : ":", pp_breakdown_fields[ord[i]].label,
				   pp_fmt_duration(fabs(delta), b2, sizeof(b2)),
				   delta > 0 ? "shorter" : "longer");
			said++;
		}
		pp_sb_adds(o, ".");
		pp_sb_release(&d);
	}
	const pp_memory *m = &wr->memory;
	pp_sb_addf(o, " It needs %s of %s per GPU (stage %d).",
		   pp_fmt_bytes(m->total_bytes, b1, sizeof(b1)),
		   pp_fmt_bytes(m->capacity_bytes, b2, sizeof(b2)), m->worst_stage);
	if (r->no_fit)
		pp_sb_addf(o, " %lld of the %lld candidates do not fit in memory.", (long long)r->no_fit,
			   (long long)r->evaluated);
	(void)s;
}

static cJSON *hit_json(cJSON *arr, const pp_search_hit *h, int rank, int64_t gbs,
		       const pp_plan_loaded *l, const pp_answer *a)
{
	const pp_result *x = &h->result;
	cJSON *j = pp_json_obj(arr, NULL);
	char why[1024];
	if (pp_catalog_mfu_check(l->c.cat, l->c.s.cluster.gpu, l->c.s.training.precision, x->mfu, why,
				 sizeof(why)))
		pp_json_str(j, "plausibility_warning", why);
	pp_json_int(j, "rank", rank);
	pp_plan_layout_json(j, &h->layout, gbs / (h->layout.micro_batch_size * h->layout.dp));
	pp_json_num(j, "step_time_s", x->step_time_s, SIG);
	pp_band_json(&a->band, j);
	if (a->above_best) {
		cJSON *b = pp_json_obj(j, "at_best_published");
		pp_json_num(b, "mfu", a->best_mfu, SIG_RATIO);
		pp_json_num(b, "step_time_s", a->step_at_best_s, SIG);
		pp_json_str(b, "run", a->best_what);
	}
	pp_json_num(j, "tokens_per_s", x->tokens_per_s, SIG);
	pp_json_num(j, "mfu", x->mfu, SIG_RATIO);
	pp_json_num(j, "hfu", x->hfu, SIG_RATIO);
	pp_json_num(j, "model_tflops_per_gpu", x->model_tflops_per_gpu, SIG_RATIO);
	pp_json_num(j, "usd_per_million_tokens", h->usd_per_million_tokens, SIG);
	pp_json_num(j, "step_time_bound_s", h->bound_ns * 1e-9, SIG);
	cJSON *m = pp_json_obj(j, "memory");
	pp_json_num(m, "per_gpu_bytes", x->memory.total_bytes, SIG);
	pp_json_num(m, "capacity_bytes", x->memory.capacity_bytes, SIG);
	pp_json_int(m, "worst_stage", x->memory.worst_stage);
	pp_breakdown_json(j, "breakdown", &x->breakdown, SIG);
	pp_json_str(j, "bottleneck", x->bottleneck);
	return j;
}

static void print_search_json(const pp_plan_loaded *l, const pp_search_result *r, double usd,
			      const char *price_what, const char *rank_by, const pp_answer *ans,
			      const pp_headroom *hr)
{
	const pp_scenario *s = &l->c.s;
	cJSON *j = pp_json_obj(NULL, NULL);
	pp_json_str(j, "scenario", s->name);
	pp_json_int(j, "num_gpus", s->cluster.num_gpus);
	pp_json_str(j, "gpu", s->cluster.gpu->id);
	pp_json_int(j, "global_batch_size", s->training.global_batch_size);
	pp_json_str(j, "rank_by", rank_by);
	pp_json_num(j, "memory_headroom", hr->share, SIG_RATIO);
	pp_json_str(j, "memory_headroom_source", hr->what);
	pp_json_int(j, "top_k", r->nbest);
	pp_json_str(j, "space", r->space);
	pp_json_int(j, "evaluated", r->evaluated);
	pp_json_int(j, "no_fit", r->no_fit);
	pp_json_int(j, "feasible", r->feasible);
	pp_json_int(j, "bounded", r->bounded);
	pp_json_int(j, "simulated", r->simulated);
	pp_json_num(j, "usd_per_gpu_hour", usd, SIG);
	pp_json_str(j, "price_source", price_what && price_what[0] ? price_what : NULL);
	pp_json_bool(j, "fast_path_agrees", !r->fell_back);
	/* the only keys that depend on the clock: each on a line of its own */
	pp_json_num(j, "elapsed_s", pp_round_us(r->elapsed_s), 15);
	pp_json_int(j, "candidates_per_s", llround(r->elapsed_s > 0 ? r->evaluated / r->elapsed_s : 0));
	cJSON *best = pp_json_arr(j, "best");
	for (int i = 0; i < r->nbest; i++)
		hit_json(best, &r->best[i], i + 1, s->training.global_batch_size, l, &ans[i]);
	pp_sb w = {0};
	if (r->nbest)
		explain(s, r, &w);
	pp_json_str(j, "why", w.buf ? w.buf : "");
	pp_sb_release(&w);
	pp_sb o = {0};
	pp_json_print(j, true, &o);
	fputs(o.buf, stdout);
	pp_sb_release(&o);
	cJSON_Delete(j);
}

static void print_search_csv(const pp_plan_loaded *l, const pp_search_result *r)
{
	pp_sb o = {0};
	pp_csvw w;
	pp_csvw_init(&w, &o);
	pp_csvw_names(&w, "rank,tensor_model_parallel_size,pipeline_model_parallel_size,"
			  "data_parallel_size,context_parallel_size,"
			  "virtual_pipeline_model_parallel_size,sequence_parallel,zero_stage,"
			  "pipeline_schedule,micro_batch_size,recompute,num_microbatches,step_time_s,"
			  "tokens_per_s,mfu,hfu,usd_per_million_tokens,memory_per_gpu_bytes");
	pp_breakdown_csv_names(&w);
	pp_csvw_header(&w, "bottleneck");
	for (int i = 0; i < r->nbest; i++) {
		const pp_search_hit *h = &r->best[i];
		const pp_layout *y = &h->layout;
		const pp_result *x = &h->result;
		pp_csvw_int(&w, i + 1);
		const int n[] = {y->tp, y->pp, y->dp, y->cp, y->vpp};
		for (size_t k = 0; k < PP_ARRAY_LEN(n); k++)
			pp_csvw_int(&w, n[k]);
		pp_csvw_bool(&w, y->sp);
		pp_csvw_int(&w, y->zero_stage);
		pp_csvw_text(&w, pp_schedule_names[y->schedule]);
		pp_csvw_int(&w, y->micro_batch_size);
		pp_csvw_text(&w, pp_recompute_names[y->recompute]);
		pp_csvw_int(&w, l->c.s.training.global_batch_size / (y->micro_batch_size * y->dp));
		pp_csvw_num(&w, x->step_time_s, SIG);
		pp_csvw_num(&w, x->tokens_per_s, SIG);
		pp_csvw_num(&w, x->mfu, SIG_RATIO);
		pp_csvw_num(&w, x->hfu, SIG_RATIO);
		pp_csvw_num(&w, h->usd_per_million_tokens, SIG_RATIO);
		pp_csvw_num(&w, x->memory.total_bytes, SIG);
		pp_breakdown_csv(&w, &x->breakdown, SIG);
		pp_csvw_text(&w, x->bottleneck);
		pp_csvw_end(&w);
	}
	fputs(o.buf, stdout);
	pp_sb_release(&o);
}

static void print_search_text(const pp_plan_loaded *l, const pp_search_result *r, double usd,
			      const char *price_what, const char *rank_by, const pp_answer *ans,
			      const pp_headroom *hr)
{
	const pp_scenario *s = &l->c.s;
	const pp_cluster *c = &s->cluster;
	char b1[32], b2[32], lay[200];
	char dom[96];
	printf("Search     %s: %s, %d layers, hidden %d; %d x %s (%d nodes of %d%s, %s, %d x %s per "
	       "node); global batch %lld x %d tokens, %s\n",
	       s->name, s->model.name, s->model.num_layers, s->model.hidden_size, c->num_gpus,
	       c->gpu->name, pp_cluster_nodes(c), c->gpus_per_node,
	       pp_cluster_domain_text(c, dom, sizeof(dom)), c->intra->id, c->nics_per_node,
	       c->inter->id, (long long)s->training.global_batch_size, s->model.seq_length,
	       pp_dtype_names[s->training.precision]);
	printf("Space      %s\n", r->space);
	printf("Candidates %lld evaluated: %lld do not fit in memory, %lld ruled out by the step-time "
	       "bound, %lld simulated\n",
	       (long long)r->evaluated, (long long)r->no_fit, (long long)r->bounded,
	       (long long)r->simulated);
	if (isfinite(usd))
		printf("Price      $%.4g per GPU-hour (%s)\n", usd, price_what);
	printf("Memory     %s\n", hr->what);
	if (r->fell_back)
		printf("Note       the fast path disagreed with the event simulation; every layout "
		       "was re-simulated with the event simulation\n");
	printf("\nTop %d by %s\n", r->nbest, rank_by);
	printf("  %-2s %-48s %9s %19s %10s %6s %10s %9s\n", "#", "layout", "step", "80% interval",
	       "tokens/s", "MFU", "mem/GPU", "$/1M tok");
	for (int i = 0; i < r->nbest; i++) {
		const pp_search_hit *h = &r->best[i];
		const pp_result *x = &h->result;
		char usdb[32] = "-";
		if (isfinite(h->usd_per_million_tokens))
			snprintf(usdb, sizeof(usdb), "$%.4g", h->usd_per_million_tokens);
		char iv[48] = "-";
		if (ans[i].band.on)
			snprintf(iv, sizeof(iv), "%.3g-%.3g s%s", ans[i].band.lo_s, ans[i].band.hi_s,
				 ans[i].band.near ? "" : "*");
		printf("  %-2d %-48s %9s %19s %10.0f %5.1f%% %10s %9s\n", i + 1,
		       pp_plan_short_layout(&h->layout, lay, sizeof(lay)),
		       pp_fmt_duration(x->step_time_s, b1, sizeof(b1)), iv, x->tokens_per_s, 100 * x->mfu,
		       pp_fmt_bytes(x->memory.total_bytes, b2, sizeof(b2)), usdb);
	}
	bool far = false;
	for (int i = 0; i < r->nbest; i++)
		far |= ans[i].band.on && !ans[i].band.near;
	if (far)
		printf("  * no validated run near this layout: the default band (podplan predict says "
		       "which)\n");
	pp_sb u = {0};
	pp_band_text(&ans[0].band, "  #1's uncertainty: ", &u);
	printf("%s\n", u.buf);
	pp_sb_release(&u);
	char why[1024];
	if (r->nbest && pp_catalog_mfu_check(l->c.cat, c->gpu, s->training.precision,
					     r->best[0].result.mfu, why, sizeof(why)))
		printf("  Warning: #1's %s\n", why);
	if (ans[0].above_best) {
		const pp_result *x = &r->best[0].result;
		double f = ans[0].step_at_best_s / x->step_time_s;
		printf("  If it runs like the best published run (%.1f%% MFU): step %s, %.0f tokens/s",
		       100 * ans[0].best_mfu, pp_fmt_duration(ans[0].step_at_best_s, b1, sizeof(b1)),
		       x->tokens_per_s / f);
		if (s->training.train_tokens > 0)
			printf(", time to train %s", pp_fmt_duration(x->time_to_train_s * f, b2, sizeof(b2)));
		if (isfinite(r->best[0].usd_per_million_tokens))
			printf(", $%.4g per 1M tokens", r->best[0].usd_per_million_tokens * f);
		printf("\n");
	}
	printf("\nStep-time breakdown (s, critical stage)\n");
	printf("  %-2s", "#");
	for (int k = 0; k < PP_BD_COUNT; k++)
		printf(" %9s", pp_breakdown_fields[k].short_label);
	printf("  %s\n", "bottleneck");
	for (int i = 0; i < r->nbest; i++) {
		printf("  %-2d", i + 1);
		for (int k = 0; k < PP_BD_COUNT; k++)
			printf(" %9.3f", pp_breakdown_get(&r->best[i].result.breakdown, k));
		printf("  %s\n", r->best[i].result.bottleneck);
	}
	pp_sb w = {0};
	explain(s, r, &w);
	printf("\nWhy #1 wins\n  %s\n", w.buf);
	pp_sb_release(&w);
}

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
	const char *rank_by = conservative ? "the pessimistic end of the 80% interval"
			      : by_cost    ? "$ per token" : "step time";
	if (out0) {
		if (r.fell_back)
			fprintf(stderr, "podplan search: warning: the fast path disagreed with the event "
					"simulation on the same program (sim/engine/fastpath.c and evgraph.c); "
					"the search was redone with the event simulation\n");
		if (!r.nbest)
			printf("No layout of %lld fits in memory (%s).\n", (long long)r.evaluated, r.space);
		else if (json)
			print_search_json(&l, &r, usd, isfinite(usd) ? what : NULL,
					  conservative ? "step_time_pessimistic"
					  : by_cost    ? "usd_per_token" : "step_time", ans, &hr);
		else if (csv)
			print_search_csv(&l, &r);
		else
			print_search_text(&l, &r, usd, what, rank_by, ans, &hr);
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
