/* searchout.c - see searchout.h. */
#include "plan/searchout.h"
#include "core/csv.h"
#include "core/fmt.h"
#include "core/jsonout.h"
#include "engine/breakdown.h"
#include "input/plausible.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIG PP_PLAN_SIG
#define SIG_RATIO PP_PLAN_SIG_RATIO

void pp_search_explain(const pp_search_result *r, pp_sb *o)
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
}

static const char *const rank_words[] = {
	[PP_RANK_TIME] = "step time",
	[PP_RANK_COST] = "$ per token",
	[PP_RANK_PESSIMISTIC] = "the pessimistic end of the 80% interval",
};
static const char *const rank_keys[] = {
	[PP_RANK_TIME] = "step_time",
	[PP_RANK_COST] = "usd_per_token",
	[PP_RANK_PESSIMISTIC] = "step_time_pessimistic",
};

static void hit_json(cJSON *arr, const pp_search_hit *h, int rank, const pp_catalog *cat,
		     const pp_scenario *s, const pp_answer *a)
{
	const pp_result *x = &h->result;
	int64_t gbs = s->training.global_batch_size;
	cJSON *j = pp_json_obj(arr, NULL);
	char why[1024];
	if (pp_catalog_mfu_check(cat, s->cluster.gpu, s->training.precision, x->mfu, why,
				 sizeof(why)))
		pp_json_str(j, "plausibility_warning", why);
	pp_json_int(j, "rank", rank);
	pp_layout_json(j, &h->layout, gbs / (h->layout.micro_batch_size * h->layout.dp));
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
}

void pp_search_to_json(const pp_catalog *cat, const pp_scenario *s, const pp_search_result *r,
		       const pp_search_out *o, pp_sb *out)
{
	double usd = o->usd_per_gpu_hour;
	const char *price_what = isfinite(usd) ? o->price_what : NULL;
	cJSON *j = pp_json_obj(NULL, NULL);
	pp_json_str(j, "scenario", s->name);
	pp_json_int(j, "num_gpus", s->cluster.num_gpus);
	pp_json_str(j, "gpu", s->cluster.gpu->id);
	pp_json_int(j, "global_batch_size", s->training.global_batch_size);
	pp_json_str(j, "rank_by", rank_keys[o->rank]);
	pp_json_num(j, "memory_headroom", o->hr->share, SIG_RATIO);
	pp_json_str(j, "memory_headroom_source", o->hr->what);
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
		hit_json(best, &r->best[i], i + 1, cat, s, &o->ans[i]);
	pp_sb w = {0};
	if (r->nbest)
		pp_search_explain(r, &w);
	pp_json_str(j, "why", w.buf ? w.buf : "");
	pp_sb_release(&w);
	pp_json_print(j, true, out);
	cJSON_Delete(j);
}

void pp_search_to_csv(const pp_scenario *s, const pp_search_result *r, pp_sb *out)
{
	pp_csvw w;
	pp_csvw_init(&w, out);
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
		pp_csvw_int(&w, s->training.global_batch_size / (y->micro_batch_size * y->dp));
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
}

void pp_search_to_text(const pp_catalog *cat, const pp_scenario *s, const pp_search_result *r,
		       const pp_search_out *o, pp_sb *out)
{
	if (!r->nbest) {
		pp_sb_addf(out, "No layout of %lld fits in memory (%s).\n", (long long)r->evaluated,
			   r->space);
		return;
	}
	const pp_cluster *c = &s->cluster;
	const pp_answer *ans = o->ans;
	char b1[32], b2[32], lay[200];
	char dom[96];
	pp_sb_addf(out, "Search     %s: %s, %d layers, hidden %d; %d x %s (%d nodes of %d%s, %s, %d x "
		   "%s per node); global batch %lld x %d tokens, %s\n",
		   s->name, s->model.name, s->model.num_layers, s->model.hidden_size, c->num_gpus,
		   c->gpu->name, pp_cluster_nodes(c), c->gpus_per_node,
		   pp_cluster_domain_text(c, dom, sizeof(dom)), c->intra->id, c->nics_per_node,
		   c->inter->id, (long long)s->training.global_batch_size, s->model.seq_length,
		   pp_dtype_names[s->training.precision]);
	pp_sb_addf(out, "Space      %s\n", r->space);
	pp_sb_addf(out, "Candidates %lld evaluated: %lld do not fit in memory, %lld ruled out by the "
		   "step-time bound, %lld simulated\n",
		   (long long)r->evaluated, (long long)r->no_fit, (long long)r->bounded,
		   (long long)r->simulated);
	if (isfinite(o->usd_per_gpu_hour))
		pp_sb_addf(out, "Price      %s per GPU-hour (%s)\n",
			   pp_fmt_usd_sig(o->usd_per_gpu_hour, 4, b1, sizeof(b1)), o->price_what);
	pp_sb_addf(out, "Memory     %s\n", o->hr->what);
	if (r->fell_back)
		pp_sb_addf(out, "Note       the fast path disagreed with the event simulation; every "
			   "layout was re-simulated with the event simulation\n");
	pp_sb_addf(out, "\nTop %d by %s\n", r->nbest, rank_words[o->rank]);
	pp_sb_addf(out, "  %-2s %-48s %9s %19s %10s %6s %10s %9s\n", "#", "layout", "step",
		   "80% interval", "tokens/s", "MFU", "mem/GPU", "$/1M tok");
	for (int i = 0; i < r->nbest; i++) {
		const pp_search_hit *h = &r->best[i];
		const pp_result *x = &h->result;
		char usdb[32], iv[48];
		pp_sb_addf(out, "  %-2d %-48s %9s %19s %10.0f %5.1f%% %10s %9s\n", i + 1,
			   pp_layout_short(&h->layout, lay, sizeof(lay)),
			   pp_fmt_duration(x->step_time_s, b1, sizeof(b1)),
			   pp_band_short(&ans[i].band, iv, sizeof(iv)), x->tokens_per_s, 100 * x->mfu,
			   pp_fmt_bytes(x->memory.total_bytes, b2, sizeof(b2)),
			   pp_fmt_usd_sig(h->usd_per_million_tokens, 4, usdb, sizeof(usdb)));
	}
	bool far = false;
	for (int i = 0; i < r->nbest; i++)
		far |= ans[i].band.on && !ans[i].band.near;
	if (far)
		pp_sb_addf(out, "  * no validated run near this layout: the default band (podplan "
			   "predict says which)\n");
	pp_band_text(&ans[0].band, "  #1's uncertainty: ", out);
	pp_sb_adds(out, "\n");
	char why[1024];
	if (pp_catalog_mfu_check(cat, c->gpu, s->training.precision, r->best[0].result.mfu, why,
				 sizeof(why)))
		pp_sb_addf(out, "  Warning: #1's %s\n", why);
	if (ans[0].above_best) {
		const pp_result *x = &r->best[0].result;
		double f = ans[0].step_at_best_s / x->step_time_s;
		pp_sb_addf(out, "  If it runs like the best published run (%.1f%% MFU): step %s, %.0f "
			   "tokens/s", 100 * ans[0].best_mfu,
			   pp_fmt_duration(ans[0].step_at_best_s, b1, sizeof(b1)), x->tokens_per_s / f);
		if (s->training.train_tokens > 0)
			pp_sb_addf(out, ", time to train %s",
				   pp_fmt_duration(x->time_to_train_s * f, b2, sizeof(b2)));
		if (isfinite(r->best[0].usd_per_million_tokens))
			pp_sb_addf(out, ", %s per 1M tokens",
				   pp_fmt_usd_sig(r->best[0].usd_per_million_tokens * f, 4, b1,
						  sizeof(b1)));
		pp_sb_adds(out, "\n");
	}
	pp_sb_addf(out, "\nStep-time breakdown (s, critical stage)\n");
	pp_sb_addf(out, "  %-2s", "#");
	for (int k = 0; k < PP_BD_COUNT; k++)
		pp_sb_addf(out, " %9s", pp_breakdown_fields[k].short_label);
	pp_sb_addf(out, "  %s\n", "bottleneck");
	for (int i = 0; i < r->nbest; i++) {
		pp_sb_addf(out, "  %-2d", i + 1);
		for (int k = 0; k < PP_BD_COUNT; k++)
			pp_sb_addf(out, " %9.3f", pp_breakdown_get(&r->best[i].result.breakdown, k));
		pp_sb_addf(out, "  %s\n", r->best[i].result.bottleneck);
	}
	pp_sb_adds(out, "\nWhy #1 wins\n  ");
	pp_search_explain(r, out);
	pp_sb_adds(out, "\n");
}
