/*
 * cmd_search.c - podplan search SCENARIO.json [--top K] [--json|--csv]
 *                podplan size SCENARIO.json --deadline DAYS | --budget USD
 *
 * Both run unchanged under `mpirun -np N` (sim/core/dist.h): every rank loads
 * the same inputs and takes part in the search; rank 0 prints. stdout holds
 * only what does not depend on the number of ranks or on the clock (the
 * JSON's elapsed_s and candidates_per_s lines excepted), so a distributed
 * run prints what the serial run prints. Timing goes to stderr when it is a
 * terminal (or with --verbose).
 */
#include "cli/cli.h"
#include "core/dist.h"
#include "input/hw.h"
#include "calib/profile.h"
#include "plan/search.h"
#include "plan/size.h"
#include "core/store.h"
#include "core/util.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- progress on a terminal ---- */

typedef struct prog {
	bool on;
	double last;
	double phase1_at;  /* elapsed when simulation started; < 0 before */
	char prefix[96];
} prog;

static void on_progress(const pp_search_progress *p, void *ctx)
{
	prog *g = ctx;
	if (!g->on)
		return;
	if (p->phase == 0)
		g->phase1_at = -1;
	else if (g->phase1_at < 0)
		g->phase1_at = p->elapsed_s;
	double now = pp_mono_s();
	if (now - g->last < 0.1)
		return;
	g->last = now;
	double rate = p->elapsed_s > 0 ? p->done / p->elapsed_s : 0;
	if (p->phase == 0) {
		double left = rate > 0 ? (p->total - p->done) / rate : 0;
		fprintf(stderr, "\r\033[K%sbounding %lld/%lld candidates, %.0f/s, ~%.1f s left",
			g->prefix, (long long)p->done, (long long)p->total, rate, left);
	} else {
		double dt = p->elapsed_s - g->phase1_at;
		double srate = dt > 0 ? p->simulated / dt : 0;
		fprintf(stderr, "\r\033[K%ssimulating in order of the bound: %lld done, %.0f/s; "
			"%lld more have a bound under the current k-th best",
			g->prefix, (long long)p->simulated, srate, (long long)p->to_simulate);
	}
	fflush(stderr);
}

static void progress_end(prog *g)
{
	if (g->on && g->last > 0)
		fprintf(stderr, "\r\033[K");
	g->last = 0;
}

/* ---- shared set-up ---- */

typedef struct loaded {
	pp_catalog *cat;
	pp_scenario s;
	bool have_s;
	pp_hw hw;
	pp_size_spec spec;
} loaded;

static int load(loaded *l, const char *path, const char *cmd, const char *calib)
{
	pp_err err = {0};
	int rc = pp_cli_catalog(&l->cat);
	if (rc)
		return rc;
	if ((rc = pp_scenario_load_unchecked(&l->s, path, l->cat, &err)))
		return pp_cli_fail(&err);
	l->have_s = true;
	if ((rc = pp_hw_from_catalog(&l->hw, l->cat, &l->s.cluster, &err)) ||
	    (rc = pp_size_spec_parse(&l->s, l->cat, &l->spec, &err)))
		return pp_cli_fail(&err);
	if (calib || l->s.calib_profile[0]) {
		if (!strcmp(cmd, "size")) {
			if (pp_dist_rank() == 0)
				fprintf(stderr, "podplan size: the calibration profile describes one "
						"cluster; every option is sized with catalog parameters\n");
		} else if ((rc = pp_cli_calibrate(&l->hw, &l->s, cmd, calib))) {
			return rc;
		}
	}
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(l->s.doc.root, "training");
	if (!cJSON_GetObjectItemCaseSensitive(t, "global_batch_size")) {
		pp_jdoc_errf(&l->s.doc, &err, "training", "has no global_batch_size; expected one "
			     "(the search keeps the global batch fixed and splits it)");
		return pp_cli_fail(&err);
	}
	return 0;
}

static void unload(loaded *l)
{
	if (l->have_s)
		pp_scenario_release(&l->s);
	pp_catalog_free(l->cat);
}

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

/* ---- search output ---- */

/* "TP8 PP16 DP40 CP1 1f1b mb1 ZeRO-1 SP selective" for tables. */
static const char *short_layout(const pp_layout *l, char *buf, size_t n)
{
	char sched[16];
	if (l->pp == 1)
		snprintf(sched, sizeof(sched), "-");
	else if (l->vpp > 1)
		snprintf(sched, sizeof(sched), "v%d", l->vpp);
	else
		snprintf(sched, sizeof(sched), "%s", l->schedule == PP_SCHED_GPIPE ? "gpipe" : "1f1b");
	snprintf(buf, n, "TP%d PP%d DP%d CP%d %s mb%lld ZeRO-%d%s %s", l->tp, l->pp, l->dp, l->cp,
		 sched, (long long)l->micro_batch_size, l->zero_stage, l->sp ? " SP" : "",
		 pp_recompute_names[l->recompute]);
	return buf;
}

static void layout_json(pp_sb *o, const pp_layout *l, int64_t mbs_count)
{
	pp_sb_addf(o, "\"tensor_model_parallel_size\": %d, \"pipeline_model_parallel_size\": %d, "
		      "\"data_parallel_size\": %d, \"context_parallel_size\": %d, "
		      "\"virtual_pipeline_model_parallel_size\": %d, \"sequence_parallel\": %s, "
		      "\"zero_stage\": %d, \"pipeline_schedule\": \"%s\", \"micro_batch_size\": %lld, "
		      "\"recompute\": \"%s\", \"num_microbatches\": %lld",
		   l->tp, l->pp, l->dp, l->cp, l->vpp, l->sp ? "true" : "false", l->zero_stage,
		   pp_schedule_names[l->schedule], (long long)l->micro_batch_size,
		   pp_recompute_names[l->recompute], (long long)mbs_count);
}

static void breakdown_json(pp_sb *o, const pp_breakdown *b)
{
	pp_sb_addf(o, "{\"compute_s\": %.9g, \"tp_comm_exposed_s\": %.9g, \"dp_comm_exposed_s\": "
		      "%.9g, \"pp_bubble_s\": %.9g, \"pp_comm_exposed_s\": %.9g, \"optimizer_s\": "
		      "%.9g, \"data_s\": %.9g}",
		   b->compute_s, b->tp_comm_exposed_s, b->dp_comm_exposed_s, b->pp_bubble_s,
		   b->pp_comm_exposed_s, b->optimizer_s, b->data_s);
}

static void num_or_null(pp_sb *o, double v)
{
	if (isfinite(v))
		pp_sb_addf(o, "%.9g", v);
	else
		pp_sb_adds(o, "null");
}

static const char *const bd_names[7] = {"compute", "TP/CP communication",
					"data-parallel communication", "pipeline bubble",
					"pipeline send/recv", "optimizer step", "data loading"};

static void bd_vec(const pp_breakdown *b, double v[7])
{
	v[0] = b->compute_s;
	v[1] = b->tp_comm_exposed_s;
	v[2] = b->dp_comm_exposed_s;
	v[3] = b->pp_bubble_s;
	v[4] = b->pp_comm_exposed_s;
	v[5] = b->optimizer_s;
	v[6] = b->data_s;
}

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
		double va[7], vb[7];
		bd_vec(&wr->breakdown, va);
		bd_vec(&q->result.breakdown, vb);
		int ord[7] = {0, 1, 2, 3, 4, 5, 6};
		for (int i = 0; i < 7; i++)
			for (int j = i + 1; j < 7; j++)
				if (fabs(vb[ord[j]] - va[ord[j]]) > fabs(vb[ord[i]] - va[ord[i]])) {
					int t = ord[i];
					ord[i] = ord[j];
					ord[j] = t;
				}
		double gain = q->result.step_time_s - wr->step_time_s;
		pp_sb_addf(o, " It beats the runner-up (%s) by %s (%.1f%%)", d.len ? d.buf : "same layout",
			   pp_fmt_duration(gain, b1, sizeof(b1)),
			   100 * gain / q->result.step_time_s);
		int said = 0;
		for (int i = 0; i < 7 && said < 2; i++) {
			double delta = vb[ord[i]] - va[ord[i]];
			if (fabs(delta) < 1e-4 * wr->step_time_s)
				break;
			pp_sb_addf(o, "%s %s %s %s", said ? " and" : ":", bd_names[ord[i]],
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

static void print_search_json(const loaded *l, const pp_search_result *r, double usd,
			      const char *price_what, const char *rank_by)
{
	const pp_scenario *s = &l->s;
	pp_sb o = {0};
	pp_sb_adds(&o, "{\n  \"scenario\": ");
	pp_sb_add_json(&o, s->name);
	pp_sb_addf(&o, ",\n  \"num_gpus\": %d,\n  \"gpu\": ", s->cluster.num_gpus);
	pp_sb_add_json(&o, s->cluster.gpu->id);
	pp_sb_addf(&o, ",\n  \"global_batch_size\": %lld,\n  \"rank_by\": \"%s\",\n  \"top_k\": %d,\n",
		   (long long)s->training.global_batch_size, rank_by, r->nbest);
	pp_sb_adds(&o, "  \"space\": ");
	pp_sb_add_json(&o, r->space);
	pp_sb_addf(&o, ",\n  \"evaluated\": %lld,\n  \"no_fit\": %lld,\n  \"feasible\": %lld,\n"
		       "  \"bounded\": %lld,\n  \"simulated\": %lld,\n",
		   (long long)r->evaluated, (long long)r->no_fit, (long long)r->feasible,
		   (long long)r->bounded, (long long)r->simulated);
	pp_sb_adds(&o, "  \"usd_per_gpu_hour\": ");
	num_or_null(&o, usd);
	pp_sb_adds(&o, ",\n  \"price_source\": ");
	if (price_what && price_what[0])
		pp_sb_add_json(&o, price_what);
	else
		pp_sb_adds(&o, "null");
	pp_sb_addf(&o, ",\n  \"fast_path_agrees\": %s,\n", r->fell_back ? "false" : "true");
	/* the only lines that depend on the clock: each on a line of its own */
	pp_sb_addf(&o, "  \"elapsed_s\": %.6f,\n", r->elapsed_s);
	pp_sb_addf(&o, "  \"candidates_per_s\": %.0f,\n",
		   r->elapsed_s > 0 ? r->evaluated / r->elapsed_s : 0);
	pp_sb_adds(&o, "  \"best\": [");
	for (int i = 0; i < r->nbest; i++) {
		const pp_search_hit *h = &r->best[i];
		const pp_result *x = &h->result;
		pp_sb_addf(&o, "%s\n    {\"rank\": %d, ", i ? "," : "", i + 1);
		layout_json(&o, &h->layout, s->training.global_batch_size /
						    (h->layout.micro_batch_size * h->layout.dp));
		pp_sb_addf(&o, ", \"step_time_s\": %.9g, \"tokens_per_s\": %.9g, \"mfu\": %.6g, "
			       "\"hfu\": %.6g, \"model_tflops_per_gpu\": %.6g, \"usd_per_million_tokens\": ",
			   x->step_time_s, x->tokens_per_s, x->mfu, x->hfu, x->model_tflops_per_gpu);
		num_or_null(&o, h->usd_per_million_tokens);
		pp_sb_addf(&o, ", \"step_time_bound_s\": %.9g, \"memory\": {\"per_gpu_bytes\": %.9g, "
			       "\"capacity_bytes\": %.9g, \"worst_stage\": %d}, \"breakdown\": ",
			   h->bound_ns * 1e-9, x->memory.total_bytes, x->memory.capacity_bytes,
			   x->memory.worst_stage);
		breakdown_json(&o, &x->breakdown);
		pp_sb_adds(&o, ", \"bottleneck\": ");
		pp_sb_add_json(&o, x->bottleneck);
		pp_sb_adds(&o, "}");
	}
	pp_sb_adds(&o, "\n  ],\n  \"why\": ");
	pp_sb w = {0};
	if (r->nbest)
		explain(s, r, &w);
	pp_sb_add_json(&o, w.buf ? w.buf : "");
	pp_sb_release(&w);
	pp_sb_adds(&o, "\n}\n");
	fputs(o.buf, stdout);
	pp_sb_release(&o);
}

#define SEARCH_CSV_HEADER                                                                       \
	"rank,tensor_model_parallel_size,pipeline_model_parallel_size,data_parallel_size,"          \
	"context_parallel_size,virtual_pipeline_model_parallel_size,sequence_parallel,zero_stage,"   \
	"pipeline_schedule,micro_batch_size,recompute,num_microbatches,step_time_s,tokens_per_s,"  \
	"mfu,hfu,usd_per_million_tokens,memory_per_gpu_bytes,compute_s,tp_comm_exposed_s,"          \
	"dp_comm_exposed_s,pp_bubble_s,pp_comm_exposed_s,optimizer_s,data_s,bottleneck\n"

static void print_search_csv(const loaded *l, const pp_search_result *r)
{
	pp_sb o = {0};
	pp_sb_adds(&o, SEARCH_CSV_HEADER);
	for (int i = 0; i < r->nbest; i++) {
		const pp_search_hit *h = &r->best[i];
		const pp_layout *y = &h->layout;
		const pp_result *x = &h->result;
		const pp_breakdown *b = &x->breakdown;
		pp_sb_addf(&o, "%d,%d,%d,%d,%d,%d,%s,%d,%s,%lld,%s,%lld,%.9g,%.9g,%.6g,%.6g,", i + 1,
			   y->tp, y->pp, y->dp, y->cp, y->vpp, y->sp ? "true" : "false", y->zero_stage,
			   pp_schedule_names[y->schedule], (long long)y->micro_batch_size,
			   pp_recompute_names[y->recompute],
			   (long long)(l->s.training.global_batch_size / (y->micro_batch_size * y->dp)),
			   x->step_time_s, x->tokens_per_s, x->mfu, x->hfu);
		if (isfinite(h->usd_per_million_tokens))
			pp_sb_addf(&o, "%.6g", h->usd_per_million_tokens);
		pp_sb_addf(&o, ",%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,", x->memory.total_bytes,
			   b->compute_s, b->tp_comm_exposed_s, b->dp_comm_exposed_s, b->pp_bubble_s,
			   b->pp_comm_exposed_s, b->optimizer_s, b->data_s);
		pp_sb_add_csv(&o, x->bottleneck);
		pp_sb_adds(&o, "\n");
	}
	fputs(o.buf, stdout);
	pp_sb_release(&o);
}

static void print_search_text(const loaded *l, const pp_search_result *r, double usd,
			      const char *price_what, bool by_cost)
{
	const pp_scenario *s = &l->s;
	const pp_cluster *c = &s->cluster;
	char b1[32], b2[32], lay[200];
	printf("Search     %s: %s, %d layers, hidden %d; %d x %s (%d nodes of %d, %s, %d x %s per "
	       "node); global batch %lld x %d tokens, %s\n",
	       s->name, s->model.name, s->model.num_layers, s->model.hidden_size, c->num_gpus,
	       c->gpu->name, pp_cluster_nodes(c), c->gpus_per_node, c->intra->id, c->nics_per_node,
	       c->inter->id, (long long)s->training.global_batch_size, s->model.seq_length,
	       pp_dtype_names[s->training.precision]);
	printf("Space      %s\n", r->space);
	printf("Candidates %lld evaluated: %lld do not fit in memory, %lld ruled out by the step-time "
	       "bound, %lld simulated\n",
	       (long long)r->evaluated, (long long)r->no_fit, (long long)r->bounded,
	       (long long)r->simulated);
	if (isfinite(usd))
		printf("Price      $%.4g per GPU-hour (%s)\n", usd, price_what);
	if (r->fell_back)
		printf("Note       the fast path disagreed with the event simulation; every layout "
		       "was re-simulated with the event simulation\n");
	printf("\nTop %d by %s\n", r->nbest, by_cost ? "$ per token" : "step time");
	printf("  %-2s %-48s %9s %10s %6s %10s %9s\n", "#", "layout", "step", "tokens/s", "MFU",
	       "mem/GPU", "$/1M tok");
	for (int i = 0; i < r->nbest; i++) {
		const pp_search_hit *h = &r->best[i];
		const pp_result *x = &h->result;
		char usdb[32] = "-";
		if (isfinite(h->usd_per_million_tokens))
			snprintf(usdb, sizeof(usdb), "$%.4g", h->usd_per_million_tokens);
		printf("  %-2d %-48s %9s %10.0f %5.1f%% %10s %9s\n", i + 1,
		       short_layout(&h->layout, lay, sizeof(lay)),
		       pp_fmt_duration(x->step_time_s, b1, sizeof(b1)), x->tokens_per_s, 100 * x->mfu,
		       pp_fmt_bytes(x->memory.total_bytes, b2, sizeof(b2)), usdb);
	}
	printf("\nStep-time breakdown (s, critical stage)\n");
	printf("  %-2s %9s %9s %9s %9s %9s %9s %9s  %s\n", "#", "compute", "TP/CP", "DP", "bubble",
	       "p2p", "optim", "data", "bottleneck");
	for (int i = 0; i < r->nbest; i++) {
		const pp_breakdown *b = &r->best[i].result.breakdown;
		printf("  %-2d %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f  %s\n", i + 1, b->compute_s,
		       b->tp_comm_exposed_s, b->dp_comm_exposed_s, b->pp_bubble_s, b->pp_comm_exposed_s,
		       b->optimizer_s, b->data_s, r->best[i].result.bottleneck);
	}
	pp_sb w = {0};
	explain(s, r, &w);
	printf("\nWhy #1 wins\n  %s\n", w.buf);
	pp_sb_release(&w);
}

static void help_search(void)
{
	printf("usage: podplan search SCENARIO.json [--top K] [--rank time|cost] [--json | --csv]\n\n"
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
	       "                  candidates_per_s, best: [{layout keys, step_time_s, mfu, memory,\n"
	       "                  breakdown, usd_per_million_tokens}], why}\n"
	       "  --csv           one row per layout of the top K (RFC 4180, header first)\n"
	       "  --calibration DB:PROFILE  a fitted calibration profile, as `podplan predict` uses\n"
	       "                  it (default: the scenario's calibration section)\n"
	       "  --exhaustive    simulate every layout that fits (slow; checks the pruning)\n"
	       "  --verbose       timing summary on stderr even when it is not a terminal\n\n"
	       "Counts: evaluated = every candidate of the space; no_fit = pruned by memory;\n"
	       "bounded = fits but its step-time lower bound is above the K-th best; simulated = the\n"
	       "rest. Distributed: `mpirun -np N podplan search ...` splits the candidates over the\n"
	       "ranks (Open MPI, loaded at run time) and prints what the serial run prints.\n"
	       "Progress goes to stderr when it is a terminal.\n");
}

static int get_price(loaded *l, double *usd, char *what, size_t n)
{
	pp_err e = {0};
	*usd = NAN;
	what[0] = '\0';
	if (pp_size_price(l->cat, &l->spec, l->s.cluster.gpu, usd, what, n, &e)) {
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
		{0, 0, 0, 0}};
	bool json = false, csv = false, exhaustive = false, verbose = false, by_cost = false;
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
		case 'h': help_search(); return 0;
		default: return pp_cli_usage_error("search", "unknown option");
		}
	}
	if (optind + 1 != argc)
		return pp_cli_usage_error("search", "expected one scenario file");
	if (json && csv)
		return pp_cli_usage_error("search", "--json and --csv exclude each other");
	pp_dist_init();
	if (pp_dist_idle())
		return 0;
	bool out0 = pp_dist_rank() == 0;
	loaded l = {0};
	int rc = load(&l, argv[optind], "search", calib);
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
	prog pg = {out0 && pp_cli_tty(), 0, -1, "search: "};
	pp_search_opts so = {top ? (int)top : l.spec.top ? l.spec.top : 5, exhaustive, false, usd,
			     on_progress, &pg};
	pp_search_result r;
	pp_err err = {0};
	rc = pp_search_run(&l.s, &l.hw, &so, &r, &err);
	progress_end(&pg);
	if (rc) {
		rc = out0 ? pp_cli_fail(&err) : pp_exit_status(rc);
		goto out;
	}
	if (out0) {
		if (r.fell_back)
			fprintf(stderr, "podplan search: warning: the fast path disagreed with the event "
					"simulation (sim/engine/fastpath.c no longer mirrors sim/engine/schedule.c); "
					"the search was redone with the event simulation\n");
		if (!r.nbest)
			printf("No layout of %lld fits in memory (%s).\n", (long long)r.evaluated, r.space);
		else if (json)
			print_search_json(&l, &r, usd, isfinite(usd) ? what : NULL,
					  by_cost ? "usd_per_token" : "step_time");
		else if (csv)
			print_search_csv(&l, &r);
		else
			print_search_text(&l, &r, usd, what, by_cost);
		fflush(stdout);
	}
	summary("search", &r, verbose);
	if (!r.nbest && !json && !csv)
		rc = 1;
	pp_search_result_release(&r);
out:
	unload(&l);
	pp_dist_finalize();
	return rc;
}

/* ---- size ---- */

static void on_option(int i, int n, const pp_size_option *o, void *ctx)
{
	prog *g = ctx;
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
	       "  --json, --csv    machine-readable; --verbose: timing on stderr\n\n"
	       "Options that cannot win are not searched: a lower bound on any layout's step time\n"
	       "(the step's FLOPs over every GPU at the SKU's best rate) bounds the time and cost;\n"
	       "they are listed with that bound. Runs under `mpirun -np N` like `podplan search`.\n");
}

static void print_size_text(const loaded *l, const pp_size_result *r)
{
	const pp_scenario *s = &l->s;
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
	printf("Answer     %s\n\n", r->why);
	printf("  %-2s %-28s %8s %-48s %9s %10s %9s  %s\n", "#", "option", "$/GPU-h", "best layout",
	       "step", "train", "cost", "verdict");
	for (int i = 0; i < r->n; i++) {
		const pp_size_option *o = &r->opt[i];
		char opt[64], price[16] = "-";
		snprintf(opt, sizeof(opt), "%d x %s (%s)", o->num_gpus, o->gpu->id, o->inter->id);
		if (isfinite(o->usd_per_gpu_hour))
			snprintf(price, sizeof(price), "$%.3g", o->usd_per_gpu_hour);
		if (o->status == PP_SIZE_SEARCHED) {
			printf("  %-2d %-28s %8s %-48s %9s %10s %9s  %s\n", i + 1, opt, price,
			       short_layout(&o->best.layout, lay, sizeof(lay)),
			       pp_fmt_duration(o->best.result.step_time_s, b1, sizeof(b1)),
			       pp_fmt_duration(o->train_s, b2, sizeof(b2)),
			       pp_fmt_usd(o->usd, b3, sizeof(b3)),
			       i == r->answer ? "ANSWER" : o->meets ? "meets" : "misses");
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
}

static void print_size_json(const loaded *l, const pp_size_result *r)
{
	pp_sb o = {0};
	pp_sb_adds(&o, "{\n  \"scenario\": ");
	pp_sb_add_json(&o, l->s.name);
	pp_sb_addf(&o, ",\n  \"train_tokens\": %.9g,\n  \"deadline_s\": ", r->train_tokens);
	num_or_null(&o, r->deadline_s > 0 ? r->deadline_s : NAN);
	pp_sb_adds(&o, ",\n  \"budget_usd\": ");
	num_or_null(&o, r->budget_usd > 0 ? r->budget_usd : NAN);
	pp_sb_addf(&o, ",\n  \"options_total\": %d,\n  \"searches\": %d,\n  \"evaluated\": %lld,\n"
		       "  \"feasible\": %lld,\n  \"simulated\": %lld,\n",
		   r->n, r->searches, (long long)r->evaluated, (long long)r->feasible,
		   (long long)r->simulated);
	pp_sb_addf(&o, "  \"elapsed_s\": %.6f,\n", r->elapsed_s);
	pp_sb_adds(&o, "  \"answer\": ");
	if (r->answer >= 0)
		pp_sb_addf(&o, "%d", r->answer);
	else
		pp_sb_adds(&o, "null");
	pp_sb_adds(&o, ",\n  \"why\": ");
	pp_sb_add_json(&o, r->why);
	pp_sb_adds(&o, ",\n  \"options\": [");
	for (int i = 0; i < r->n; i++) {
		const pp_size_option *p = &r->opt[i];
		pp_sb_addf(&o, "%s\n    {\"gpu\": ", i ? "," : "");
		pp_sb_add_json(&o, p->gpu->id);
		pp_sb_addf(&o, ", \"num_gpus\": %d, \"gpus_per_node\": %d, \"nics_per_node\": %d, "
			       "\"fabric\": ", p->num_gpus, p->gpus_per_node, p->nics_per_node);
		pp_sb_add_json(&o, p->inter->id);
		pp_sb_adds(&o, ", \"usd_per_gpu_hour\": ");
		num_or_null(&o, p->usd_per_gpu_hour);
		pp_sb_adds(&o, ", \"price_source\": ");
		pp_sb_add_json(&o, p->price_what);
		pp_sb_addf(&o, ", \"status\": \"%s\", \"why\": ", pp_size_status_names[p->status]);
		pp_sb_add_json(&o, p->why);
		pp_sb_adds(&o, ", \"time_to_train_bound_s\": ");
		num_or_null(&o, p->lb_train_s);
		pp_sb_adds(&o, ", \"usd_bound\": ");
		num_or_null(&o, p->lb_usd);
		if (p->status == PP_SIZE_SEARCHED) {
			const pp_search_hit *h = &p->best;
			pp_sb_addf(&o, ", \"evaluated\": %lld, \"simulated\": %lld, \"best\": {",
				   (long long)p->evaluated, (long long)p->simulated);
			layout_json(&o, &h->layout,
				    l->s.training.global_batch_size /
					    (h->layout.micro_batch_size * h->layout.dp));
			pp_sb_addf(&o, ", \"step_time_s\": %.9g, \"mfu\": %.6g, \"memory_per_gpu_bytes\": "
				       "%.9g, \"breakdown\": ",
				   h->result.step_time_s, h->result.mfu, h->result.memory.total_bytes);
			breakdown_json(&o, &h->result.breakdown);
			pp_sb_addf(&o, "}, \"time_to_train_s\": %.9g, \"usd\": %.9g, \"meets\": %s",
				   p->train_s, p->usd, p->meets ? "true" : "false");
		}
		pp_sb_adds(&o, "}");
	}
	pp_sb_adds(&o, "\n  ]\n}\n");
	fputs(o.buf, stdout);
	pp_sb_release(&o);
}

static void print_size_csv(const pp_size_result *r)
{
	pp_sb o = {0};
	pp_sb_adds(&o, "rank,gpu,num_gpus,fabric,usd_per_gpu_hour,status,tensor_model_parallel_size,"
		       "pipeline_model_parallel_size,data_parallel_size,context_parallel_size,"
		       "virtual_pipeline_model_parallel_size,sequence_parallel,zero_stage,"
		       "micro_batch_size,recompute,step_time_s,time_to_train_s,usd,meets,"
		       "time_to_train_bound_s,usd_bound,answer\n");
	for (int i = 0; i < r->n; i++) {
		const pp_size_option *p = &r->opt[i];
		pp_sb_addf(&o, "%d,%s,%d,%s,", i + 1, p->gpu->id, p->num_gpus, p->inter->id);
		if (isfinite(p->usd_per_gpu_hour))
			pp_sb_addf(&o, "%.6g", p->usd_per_gpu_hour);
		pp_sb_adds(&o, ",");
		pp_sb_add_csv(&o, pp_size_status_names[p->status]);
		if (p->status == PP_SIZE_SEARCHED) {
			const pp_layout *y = &p->best.layout;
			pp_sb_addf(&o, ",%d,%d,%d,%d,%d,%s,%d,%lld,%s,%.9g,%.9g,%.9g,%s,", y->tp, y->pp,
				   y->dp, y->cp, y->vpp, y->sp ? "true" : "false", y->zero_stage,
				   (long long)y->micro_batch_size, pp_recompute_names[y->recompute],
				   p->best.result.step_time_s, p->train_s, p->usd,
				   p->meets ? "true" : "false");
		} else {
			pp_sb_adds(&o, ",,,,,,,,,,,,,,");
		}
		if (isfinite(p->lb_train_s))
			pp_sb_addf(&o, "%.9g,%.9g", p->lb_train_s, p->lb_usd);
		else
			pp_sb_adds(&o, ",");
		pp_sb_addf(&o, ",%s\n", i == r->answer ? "true" : "false");
	}
	fputs(o.buf, stdout);
	pp_sb_release(&o);
}

int pp_cmd_size(int argc, char **argv)
{
	static const struct option opts[] = {
		{"deadline", required_argument, NULL, 'd'}, {"budget", required_argument, NULL, 'b'},
		{"gpus", required_argument, NULL, 'g'},     {"num-gpus", required_argument, NULL, 'n'},
		{"fabrics", required_argument, NULL, 'f'},  {"provider", required_argument, NULL, 'P'},
		{"tier", required_argument, NULL, 'T'},     {"json", no_argument, NULL, 'j'},
		{"csv", no_argument, NULL, 'c'},            {"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},           {0, 0, 0, 0}};
	bool json = false, csv = false, verbose = false;
	double deadline_days = 0, budget = 0;
	const char *gpus = NULL, *counts = NULL, *fabrics = NULL, *provider = NULL, *tier = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:b:jcvh", opts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'd':
			deadline_days = strtod(optarg, &end);
			if (*end || !(deadline_days > 0) || deadline_days > 1e5)
				return pp_cli_usage_error("size", "--deadline: found \"%s\", expected a "
							  "number of days above 0", optarg);
			break;
		case 'b':
			budget = strtod(optarg, &end);
			if (*end || !(budget > 0) || budget > 1e13)
				return pp_cli_usage_error("size", "--budget: found \"%s\", expected "
							  "dollars above 0", optarg);
			break;
		case 'g': gpus = optarg; break;
		case 'n': counts = optarg; break;
		case 'f': fabrics = optarg; break;
		case 'P': provider = optarg; break;
		case 'T': tier = optarg; break;
		case 'j': json = true; break;
		case 'c': csv = true; break;
		case 'v': verbose = true; break;
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
	loaded l = {0};
	int rc = load(&l, argv[optind], "size", NULL);
	if (rc)
		goto out;
	if ((gpus && (rc = parse_ids("size", gpus, l.cat, true, &l.spec))) ||
	    (fabrics && (rc = parse_ids("size", fabrics, l.cat, false, &l.spec))) ||
	    (counts && (rc = parse_counts("size", counts, &l.spec))))
		goto out;
	if (provider)
		snprintf(l.spec.provider, sizeof(l.spec.provider), "%s", provider);
	if (tier)
		snprintf(l.spec.tier, sizeof(l.spec.tier), "%s", tier);
	prog pg = {out0 && pp_cli_tty(), 0, -1, "size: "};
	pp_size_opts so = {deadline_days * 86400.0, budget, l.spec, on_progress, &pg, on_option};
	pp_size_result r;
	pp_err err = {0};
	rc = pp_size_run(&l.s, l.cat, &so, &r, &err);
	progress_end(&pg);
	if (rc) {
		rc = out0 ? pp_cli_fail(&err) : pp_exit_status(rc);
		goto out;
	}
	if (out0) {
		if (json)
			print_size_json(&l, &r);
		else if (csv)
			print_size_csv(&r);
		else
			print_size_text(&l, &r);
		fflush(stdout);
		if (verbose || pp_cli_tty())
			fprintf(stderr, "size: %d options, %d searches, %lld candidates in %.3f s; %s\n",
				r.n, r.searches, (long long)r.evaluated, r.elapsed_s,
				pp_dist_describe());
	}
	pp_size_result_release(&r);
out:
	unload(&l);
	pp_dist_finalize();
	return rc;
}
