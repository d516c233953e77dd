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
#include "plan/answer.h"
#include "core/fmt.h"
#include "cost/costout.h"
#include "core/dist.h"
#include "cost/cost.h"
#include "engine/breakdown.h"
#include "core/util.h"
#include "input/plausible.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIG PP_PLAN_SIG
#define SIG_RATIO PP_PLAN_SIG_RATIO

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

/* The weighed options (rent, build, lower tiers) as a table. */
static void print_weighed_text(const pp_cost_result *w)
{
	char g[96], t[32], u[32], rg[64];
	printf("\nPriced every way (podplan cost's engine: goodput, lead time, capex and financing, "
	       "lower tiers):\n");
	printf("  %-28s %-6s %-18s %14s %10s %21s  %s\n", "option", "kind", "GPUs", "time to result",
	       "total", "P10 - P90", "verdict");
	for (int i = 0; i < w->noptions; i++) {
		const pp_cost_option *o = &w->options[i];
		double tr = o->time_to_train_s + o->lead_time_s;
		const char *v = i == w->recommended ? "ANSWER"
				: !o->feasible ? "cannot"
				: !o->obtainable ? "may not be obtainable"
				: o->meets_target ? "meets" : "misses";
		printf("  %-28.28s %-6s %-18.18s %14s %10s %21s  %s\n", o->name,
		       pp_option_kind_names[o->kind], pp_cost_gpus_text(o, g, sizeof(g)),
		       pp_fmt_duration(tr, t, sizeof(t)),
		       o->feasible ? pp_fmt_usd(o->usd_total, u, sizeof(u)) : "-",
		       pp_fmt_usd_range(o->p10_usd, o->p90_usd, " - ", rg, sizeof(rg)), v);
	}
	printf("  Monte Carlo %d draws, seed %lu; prices as of %s ('podplan cost' on a scenario with "
	       "these options gives every figure and its source).\n", w->draws, w->seed, w->as_of);
}

/* One option's interval (the runs it rests on), its time to train at
 * both ends and, above the best published MFU, its time and rent at that
 * figure. */
static void option_evidence(const pp_plan_loaded *l, const pp_size_option *o, const char *what,
			    bool conservative)
{
	pp_scenario x = l->c.s;
	x.cluster.gpu = o->gpu;
	x.cluster.num_gpus = o->num_gpus;
	pp_answer a;
	pp_answer_of(l->c.cat, &x, &o->best.layout, &o->best.result, &a);
	char b1[32], b2[32], pre[160];
	snprintf(pre, sizeof(pre), "Uncertainty %s (%d x %s, %s): ", what, o->num_gpus, o->gpu->id,
		 o->inter->id);
	pp_sb u = {0};
	pp_band_text(&a.band, pre, &u);
	printf("%s\n", u.buf);
	pp_sb_release(&u);
	/* the time to train as predicted (size's own is the pessimistic end
	 * under --conservative) */
	double train_s = conservative && a.band.on ? o->train_s / a.band.f_hi : o->train_s;
	if (a.band.on)
		printf("            its time to train %s to %s (80%%)\n",
		       pp_fmt_duration(train_s * a.band.f_lo, b1, sizeof(b1)),
		       pp_fmt_duration(train_s * a.band.f_hi, b2, sizeof(b2)));
	if (a.above_best) {
		double f = a.step_at_best_s / o->best.result.step_time_s;
		printf("            %.1f%% MFU is above the best published for %s (%.1f%%); if it runs "
		       "like the best published run: time to train %s, rent %s\n",
		       100 * o->best.result.mfu, o->gpu->id, 100 * a.best_mfu,
		       pp_fmt_duration(train_s * f, b1, sizeof(b1)),
		       pp_fmt_usd(o->usd * train_s / o->train_s * f, b2, sizeof(b2)));
	}
}

/* The evidence of the answer's cluster (the cost engine's recommendation)
 * and of the fastest searched option where that is another. */
static void evidence_text(const pp_plan_loaded *l, const pp_size_result *r,
			  const pp_cost_result *w, bool conservative)
{
	int best = -1, ans = -1;
	for (int i = 0; i < r->n; i++)
		if (r->opt[i].status == PP_SIZE_SEARCHED &&
		    (best < 0 || r->opt[i].train_s < r->opt[best].train_s))
			best = i;
	const pp_cost_option *x = w && w->recommended >= 0 ? &w->options[w->recommended] : NULL;
	for (int i = 0; x && i < r->n && ans < 0; i++) {
		const pp_size_option *o = &r->opt[i];
		if (o->status == PP_SIZE_SEARCHED && !strcmp(o->gpu->id, x->gpu) &&
		    o->num_gpus == x->num_gpus && (!x->fabric[0] || !strcmp(o->inter->id, x->fabric)))
			ans = i;
	}
	if (ans >= 0)
		option_evidence(l, &r->opt[ans], "the answer", conservative);
	if (best >= 0 && best != ans)
		option_evidence(l, &r->opt[best], "the fastest", conservative);
}

static void print_size_text(const pp_plan_loaded *l, const pp_size_result *r,
			    const pp_cost_result *w, const pp_headroom *hr, bool conservative)
{
	const pp_scenario *s = &l->c.s;
	char b1[32], b2[32], b3[32], b4[32], lay[200];
	printf("Sizing     %s: %s, %.3g tokens, global batch %lld x %d tokens, %s\n", s->name,
	       s->model.name, r->train_tokens, (long long)s->training.global_batch_size,
	       s->model.seq_length, pp_dtype_names[s->training.precision]);
	if (r->deadline_s > 0)
		printf("Target     deadline %.1f days: the cheapest option that meets it\n",
		       r->deadline_s / 86400);
	else if (r->budget_usd > 0)
		printf("Target     budget %s: the fastest option within it\n",
		       pp_fmt_usd(r->budget_usd, b1, sizeof(b1)));
	int skipped = 0;
	for (int i = 0; i < r->n; i++)
		skipped += r->opt[i].status == PP_SIZE_SKIP_SLOW || r->opt[i].status == PP_SIZE_SKIP_DEAR;
	printf("Options    %d: %d searched (%lld layouts evaluated, %lld simulated), %d ruled out by "
	       "bounds\n", r->n, r->searches, (long long)r->evaluated, (long long)r->simulated,
	       skipped);
	printf("Answer     %s\n", w && w->recommendation[0] ? w->recommendation : r->why);
	printf("Memory     %s\n", hr->what);
	if (conservative)
		printf("Ranked     at the pessimistic end of each layout's 80%% step-time interval "
		       "(--conservative): times and costs below are there\n");
	evidence_text(l, r, w, conservative);
	printf("\n");
	printf("Layouts    the fastest layout of each cluster, rented (before goodput): %s\n", r->why);
	printf("  %-2s %-28s %8s %-48s %9s %10s %9s  %s\n", "#", "option", "$/GPU-h", "best layout",
	       "step", "train", "rent", "verdict");
	for (int i = 0; i < r->n; i++) {
		const pp_size_option *o = &r->opt[i];
		char opt[64], price[16] = "-";
		snprintf(opt, sizeof(opt), "%d x %s (%s)", o->num_gpus, o->gpu->id, o->inter->id);
		if (isfinite(o->usd_per_gpu_hour))
			snprintf(price, sizeof(price), "$%.3g", o->usd_per_gpu_hour);
		if (o->status == PP_SIZE_SEARCHED) {
			printf("  %-2d %-28s %8s %-48s %9s %10s %9s  %s\n", i + 1, opt, price,
			       pp_plan_short_layout(&o->best.layout, lay, sizeof(lay)),
			       pp_fmt_duration(o->best.result.step_time_s, b1, sizeof(b1)),
			       pp_fmt_duration(o->train_s, b2, sizeof(b2)),
			       pp_fmt_usd(o->usd, b3, sizeof(b3)),
			       i == r->answer ? "best rent" : o->meets ? "meets" : "misses");
		} else {
			char bound[64] = "";
			if (isfinite(o->lb_train_s))
				snprintf(bound, sizeof(bound), ">= %s, >= %s",
					 pp_fmt_duration(o->lb_train_s, b1, sizeof(b1)),
					 pp_fmt_usd(o->lb_usd, b4, sizeof(b4)));
			printf("  %-2d %-28s %8s %-48s %9s %10s %9s  %s: %s\n", i + 1, opt, price, bound,
			       "", "", "", pp_size_status_names[o->status], o->why);
		}
	}
	/* a searched layout above the best published MFU of its GPU */
	for (int i = 0; i < r->n; i++) {
		const pp_size_option *o = &r->opt[i];
		char why[1024];
		if (o->status == PP_SIZE_SEARCHED &&
		    pp_catalog_mfu_check(l->c.cat, o->gpu, s->training.precision, o->best.result.mfu, why,
					 sizeof(why)))
			printf("  Warning: #%d's %s\n", i + 1, why);
	}
	if (w)
		print_weighed_text(w);
}

static void option_json(cJSON *arr, const pp_size_option *p, int64_t gbs,
			const pp_plan_loaded *l)
{
	cJSON *j = pp_json_obj(arr, NULL);
	pp_json_str(j, "gpu", p->gpu->id);
	pp_json_int(j, "num_gpus", p->num_gpus);
	pp_json_int(j, "gpus_per_node", p->gpus_per_node);
	pp_json_int(j, "nics_per_node", p->nics_per_node);
	pp_json_str(j, "fabric", p->inter->id);
	pp_json_num(j, "usd_per_gpu_hour", p->usd_per_gpu_hour, SIG);
	pp_json_str(j, "price_source", p->price_what);
	pp_json_str(j, "status", pp_size_status_names[p->status]);
	pp_json_str(j, "why", p->why);
	pp_json_num(j, "time_to_train_bound_s", p->lb_train_s, SIG);
	pp_json_num(j, "usd_bound", p->lb_usd, SIG);
	if (p->status != PP_SIZE_SEARCHED)
		return;
	const pp_search_hit *h = &p->best;
	pp_json_int(j, "evaluated", p->evaluated);
	pp_json_int(j, "simulated", p->simulated);
	cJSON *b = pp_json_obj(j, "best");
	pp_plan_layout_json(b, &h->layout, gbs / (h->layout.micro_batch_size * h->layout.dp));
	pp_json_num(b, "step_time_s", h->result.step_time_s, SIG);
	pp_json_num(b, "mfu", h->result.mfu, SIG_RATIO);
	char why[1024];
	if (pp_catalog_mfu_check(l->c.cat, p->gpu, l->c.s.training.precision, h->result.mfu, why,
				 sizeof(why)))
		pp_json_str(b, "plausibility_warning", why);
	pp_json_num(b, "memory_per_gpu_bytes", h->result.memory.total_bytes, SIG);
	pp_breakdown_json(b, "breakdown", &h->result.breakdown, SIG);
	pp_json_num(j, "time_to_train_s", p->train_s, SIG);
	pp_json_num(j, "usd", p->usd, SIG);
	pp_json_bool(j, "meets", p->meets);
}

static void print_size_json(const pp_plan_loaded *l, const pp_size_result *r,
			    const pp_cost_result *w, const pp_headroom *hr)
{
	cJSON *j = pp_json_obj(NULL, NULL);
	pp_json_str(j, "scenario", l->c.s.name);
	pp_json_num(j, "memory_headroom", hr->share, SIG_RATIO);
	pp_json_str(j, "memory_headroom_source", hr->what);
	pp_json_num(j, "train_tokens", r->train_tokens, SIG);
	pp_json_num(j, "deadline_s", r->deadline_s > 0 ? r->deadline_s : NAN, SIG);
	pp_json_num(j, "budget_usd", r->budget_usd > 0 ? r->budget_usd : NAN, SIG);
	pp_json_int(j, "options_total", r->n);
	pp_json_int(j, "searches", r->searches);
	pp_json_int(j, "evaluated", r->evaluated);
	pp_json_int(j, "feasible", r->feasible);
	pp_json_int(j, "simulated", r->simulated);
	pp_json_num(j, "elapsed_s", pp_round_us(r->elapsed_s), 15);
	if (r->answer >= 0)
		pp_json_int(j, "answer", r->answer);
	else
		pp_json_null(j, "answer");
	pp_json_str(j, "why", r->why);
	/* the one answer: the weighed options' recommendation */
	pp_json_str(j, "recommended",
		    w && w->recommended >= 0 ? w->options[w->recommended].name : NULL);
	pp_json_str(j, "recommendation", w ? w->recommendation : NULL);
	cJSON *opts = pp_json_arr(j, "options");
	for (int i = 0; i < r->n; i++)
		option_json(opts, &r->opt[i], l->c.s.training.global_batch_size, l);
	if (w) {
		pp_sb cj = {0};
		pp_cost_to_json(w, &cj);
		pp_json_add(j, "weighed", cJSON_Parse(cj.buf));
		pp_sb_release(&cj);
	} else {
		pp_json_null(j, "weighed");
	}
	pp_sb o = {0};
	pp_json_print(j, true, &o);
	fputs(o.buf, stdout);
	pp_sb_release(&o);
	cJSON_Delete(j);
}

/* Whether the weighed answer is size option p, rented or built ("rent",
 * "build"; "" otherwise). */
static const char *answer_kind(const pp_size_option *p, const pp_cost_result *w)
{
	if (!w || w->recommended < 0)
		return "";
	const pp_cost_option *a = &w->options[w->recommended];
	if ((a->kind != PP_OPT_RENT && a->kind != PP_OPT_BUILD) || strcmp(a->gpu, p->gpu->id) ||
	    a->num_gpus != p->num_gpus || (a->fabric[0] && strcmp(a->fabric, p->inter->id)))
		return "";
	return pp_option_kind_names[a->kind];
}

static void print_size_csv(const pp_size_result *r, const pp_cost_result *wr)
{
	pp_sb o = {0};
	pp_csvw w;
	pp_csvw_init(&w, &o);
	pp_csvw_header(&w, "rank,gpu,num_gpus,fabric,usd_per_gpu_hour,status,tensor_model_parallel_size,"
			   "pipeline_model_parallel_size,data_parallel_size,context_parallel_size,"
			   "virtual_pipeline_model_parallel_size,sequence_parallel,zero_stage,"
			   "micro_batch_size,recompute,step_time_s,time_to_train_s,usd,meets,"
			   "time_to_train_bound_s,usd_bound,answer,answer_kind");
	for (int i = 0; i < r->n; i++) {
		const pp_size_option *p = &r->opt[i];
		pp_csvw_int(&w, i + 1);
		pp_csvw_text(&w, p->gpu->id);
		pp_csvw_int(&w, p->num_gpus);
		pp_csvw_text(&w, p->inter->id);
		pp_csvw_num(&w, p->usd_per_gpu_hour, SIG_RATIO);
		pp_csvw_text(&w, pp_size_status_names[p->status]);
		if (p->status == PP_SIZE_SEARCHED) {
			const pp_layout *y = &p->best.layout;
			const int n[] = {y->tp, y->pp, y->dp, y->cp, y->vpp};
			for (size_t k = 0; k < PP_ARRAY_LEN(n); k++)
				pp_csvw_int(&w, n[k]);
			pp_csvw_bool(&w, y->sp);
			pp_csvw_int(&w, y->zero_stage);
			pp_csvw_int(&w, y->micro_batch_size);
			pp_csvw_text(&w, pp_recompute_names[y->recompute]);
			pp_csvw_num(&w, p->best.result.step_time_s, SIG);
			pp_csvw_num(&w, p->train_s, SIG);
			pp_csvw_num(&w, p->usd, SIG);
			pp_csvw_bool(&w, p->meets);
		} else {
			for (int k = 0; k < 13; k++)
				pp_csvw_empty(&w);
		}
		bool bound = isfinite(p->lb_train_s);
		pp_csvw_num(&w, bound ? p->lb_train_s : NAN, SIG);
		pp_csvw_num(&w, bound ? p->lb_usd : NAN, SIG);
		const char *ak = answer_kind(p, wr);
		pp_csvw_bool(&w, *ak != 0);
		pp_csvw_text(&w, ak);
		pp_csvw_end(&w);
	}
	fputs(o.buf, stdout);
	pp_sb_release(&o);
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
		if (json)
			print_size_json(&l, &r, &w, &hr);
		else if (csv)
			print_size_csv(&r, &w);
		else
			print_size_text(&l, &r, &w, &hr, conservative);
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
