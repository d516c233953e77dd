/* sizeout.c - see sizeout.h. */
#include "plan/sizeout.h"
#include "core/csv.h"
#include "core/fmt.h"
#include "core/jsonout.h"
#include "engine/breakdown.h"
#include "input/plausible.h"
#include "plan/answer.h"
#include "plan/searchout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIG PP_PLAN_SIG
#define SIG_RATIO PP_PLAN_SIG_RATIO

/* One option's interval (the runs it rests on), its time to train at
 * both ends and, above the best published MFU, its time and rent at that
 * figure. */
static void option_evidence(const pp_catalog *cat, const pp_scenario *s, const pp_size_option *o,
			    const char *what, bool conservative, pp_sb *out)
{
	pp_scenario x = *s;
	x.cluster.gpu = o->gpu;
	x.cluster.num_gpus = o->num_gpus;
	pp_answer a;
	pp_answer_of(cat, &x, &o->best.layout, &o->best.result, &a);
	char b1[32], b2[32], pre[160];
	snprintf(pre, sizeof(pre), "Uncertainty %s (%d x %s, %s): ", what, o->num_gpus, o->gpu->id,
		 o->inter->id);
	pp_band_text(&a.band, pre, out);
	pp_sb_adds(out, "\n");
	/* the time to train as predicted (size's own is the pessimistic end
	 * under --conservative) */
	double train_s = conservative && a.band.on ? o->train_s / a.band.f_hi : o->train_s;
	if (a.band.on)
		pp_sb_addf(out, "            its time to train %s to %s (80%%)\n",
			   pp_fmt_duration(train_s * a.band.f_lo, b1, sizeof(b1)),
			   pp_fmt_duration(train_s * a.band.f_hi, b2, sizeof(b2)));
	if (a.above_best) {
		double f = a.step_at_best_s / o->best.result.step_time_s;
		pp_sb_addf(out, "            %.1f%% MFU is above the best published for %s (%.1f%%); "
			   "if it runs like the best published run: time to train %s, rent %s\n",
			   100 * o->best.result.mfu, o->gpu->id, 100 * a.best_mfu,
			   pp_fmt_duration(train_s * f, b1, sizeof(b1)),
			   pp_fmt_usd(o->usd * train_s / o->train_s * f, b2, sizeof(b2)));
	}
}

/* Whether option o is the answer's cluster. */
static bool is_answer(const pp_size_option *o, const pp_size_weighed *w)
{
	return w && w->gpu && o->status == PP_SIZE_SEARCHED && !strcmp(o->gpu->id, w->gpu) &&
	       o->num_gpus == w->num_gpus && (!w->fabric[0] || !strcmp(o->inter->id, w->fabric));
}

/* The evidence of the answer's cluster (the cost engine's recommendation)
 * and of the fastest searched option where that is another. */
static void evidence_text(const pp_catalog *cat, const pp_scenario *s, const pp_size_result *r,
			  const pp_size_weighed *w, bool conservative, pp_sb *out)
{
	int best = -1, ans = -1;
	for (int i = 0; i < r->n; i++)
		if (r->opt[i].status == PP_SIZE_SEARCHED &&
		    (best < 0 || r->opt[i].train_s < r->opt[best].train_s))
			best = i;
	for (int i = 0; i < r->n && ans < 0; i++)
		if (is_answer(&r->opt[i], w))
			ans = i;
	if (ans >= 0)
		option_evidence(cat, s, &r->opt[ans], "the answer", conservative, out);
	if (best >= 0 && best != ans)
		option_evidence(cat, s, &r->opt[best], "the fastest", conservative, out);
}

void pp_size_to_text(const pp_catalog *cat, const pp_scenario *s, const pp_size_result *r,
		     const pp_size_weighed *w, const pp_headroom *hr, bool conservative,
		     pp_sb *out)
{
	char b1[32], b2[32], b3[32], b4[32], lay[200];
	pp_sb_addf(out, "Sizing     %s: %s, %.3g tokens, global batch %lld x %d tokens, %s\n", s->name,
		   s->model.name, r->train_tokens, (long long)s->training.global_batch_size,
		   s->model.seq_length, pp_dtype_names[s->training.precision]);
	if (r->deadline_s > 0)
		pp_sb_addf(out, "Target     deadline %.1f days: the cheapest option that meets it\n",
			   r->deadline_s / 86400);
	else if (r->budget_usd > 0)
		pp_sb_addf(out, "Target     budget %s: the fastest option within it\n",
			   pp_fmt_usd(r->budget_usd, b1, sizeof(b1)));
	int skipped = 0;
	for (int i = 0; i < r->n; i++)
		skipped += r->opt[i].status == PP_SIZE_SKIP_SLOW || r->opt[i].status == PP_SIZE_SKIP_DEAR;
	pp_sb_addf(out, "Options    %d: %d searched (%lld layouts evaluated, %lld simulated), %d ruled "
		   "out by bounds\n", r->n, r->searches, (long long)r->evaluated,
		   (long long)r->simulated, skipped);
	pp_sb_addf(out, "Answer     %s\n",
		   w && w->recommendation && w->recommendation[0] ? w->recommendation : r->why);
	pp_sb_addf(out, "Memory     %s\n", hr->what);
	if (conservative)
		pp_sb_addf(out, "Ranked     at the pessimistic end of each layout's 80%% step-time "
			   "interval (--conservative): times and costs below are there\n");
	evidence_text(cat, s, r, w, conservative, out);
	pp_sb_adds(out, "\n");
	pp_sb_addf(out, "Layouts    the fastest layout of each cluster, rented (before goodput): %s\n",
		   r->why);
	pp_sb_addf(out, "  %-2s %-28s %8s %-48s %9s %10s %9s  %s\n", "#", "option", "$/GPU-h",
		   "best layout", "step", "train", "rent", "verdict");
	for (int i = 0; i < r->n; i++) {
		const pp_size_option *o = &r->opt[i];
		char opt[64], price[16];
		snprintf(opt, sizeof(opt), "%d x %s (%s)", o->num_gpus, o->gpu->id, o->inter->id);
		pp_fmt_unit_price(o->usd_per_gpu_hour, price, sizeof(price));
		if (o->status == PP_SIZE_SEARCHED) {
			pp_sb_addf(out, "  %-2d %-28s %8s %-48s %9s %10s %9s  %s\n", i + 1, opt, price,
				   pp_layout_short(&o->best.layout, lay, sizeof(lay)),
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
			pp_sb_addf(out, "  %-2d %-28s %8s %-48s %9s %10s %9s  %s: %s\n", i + 1, opt,
				   price, bound, "", "", "", pp_size_status_names[o->status], o->why);
		}
	}
	/* a searched layout above the best published MFU of its GPU */
	for (int i = 0; i < r->n; i++) {
		const pp_size_option *o = &r->opt[i];
		char why[1024];
		if (o->status == PP_SIZE_SEARCHED &&
		    pp_catalog_mfu_check(cat, o->gpu, s->training.precision, o->best.result.mfu, why,
					 sizeof(why)))
			pp_sb_addf(out, "  Warning: #%d's %s\n", i + 1, why);
	}
	if (w && w->table)
		pp_sb_adds(out, w->table);
}

static void option_json(cJSON *arr, const pp_size_option *p, const pp_catalog *cat,
			const pp_scenario *s)
{
	int64_t gbs = s->training.global_batch_size;
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
	pp_layout_json(b, &h->layout, gbs / (h->layout.micro_batch_size * h->layout.dp));
	pp_json_num(b, "step_time_s", h->result.step_time_s, SIG);
	pp_json_num(b, "mfu", h->result.mfu, SIG_RATIO);
	char why[1024];
	if (pp_catalog_mfu_check(cat, p->gpu, s->training.precision, h->result.mfu, why,
				 sizeof(why)))
		pp_json_str(b, "plausibility_warning", why);
	pp_json_num(b, "memory_per_gpu_bytes", h->result.memory.total_bytes, SIG);
	pp_breakdown_json(b, "breakdown", &h->result.breakdown, SIG);
	pp_json_num(j, "time_to_train_s", p->train_s, SIG);
	pp_json_num(j, "usd", p->usd, SIG);
	pp_json_bool(j, "meets", p->meets);
}

void pp_size_to_json(const pp_catalog *cat, const pp_scenario *s, const pp_size_result *r,
		     const pp_size_weighed *w, const pp_headroom *hr, pp_sb *out)
{
	cJSON *j = pp_json_obj(NULL, NULL);
	pp_json_str(j, "scenario", s->name);
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
	pp_json_str(j, "recommended", w ? w->recommended : NULL);
	pp_json_str(j, "recommendation", w ? w->recommendation : NULL);
	cJSON *opts = pp_json_arr(j, "options");
	for (int i = 0; i < r->n; i++)
		option_json(opts, &r->opt[i], cat, s);
	if (w && w->json)
		pp_json_add(j, "weighed", cJSON_Parse(w->json));
	else
		pp_json_null(j, "weighed");
	pp_json_print(j, true, out);
	cJSON_Delete(j);
}

/* Whether the weighed answer is size option p, rented or built ("rent",
 * "build"; "" otherwise). */
static const char *answer_kind(const pp_size_option *p, const pp_size_weighed *w)
{
	if (!w || !w->gpu || !w->kind[0] || strcmp(w->gpu, p->gpu->id) ||
	    w->num_gpus != p->num_gpus || (w->fabric[0] && strcmp(w->fabric, p->inter->id)))
		return "";
	return w->kind;
}

void pp_size_to_csv(const pp_size_result *r, const pp_size_weighed *wr, pp_sb *out)
{
	pp_csvw w;
	pp_csvw_init(&w, out);
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
}
