/*
 * csvout.c - the report's CSV files: every number the page shows, one file
 * per table or chart, through the one CSV writer (core/csv.h: RFC 4180,
 * CRLF, formula cells neutralised), SI units named in the column headers,
 * empty fields for undefined values. The header lines are a format:
 * tests/golden/report-csv-headers-*.txt.
 */
#include "report.h"
#include "clusterrep.h"
#include "cost/costout.h"
#include "core/csv.h"
#include "engine/breakdown.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* every figure with ten significant digits */
#define SIG 10

static pp_csvw *add_file(pp_report_file *files, int *n, int max, const char *name,
			 const char *header, pp_csvw *w)
{
	if (*n >= max)
		return NULL;
	pp_report_file *f = &files[(*n)++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	pp_csvw_init(w, &f->body);
	if (header)
		pp_csvw_header(w, header);
	return w;
}

static void step_row(pp_csvw *w, const char *name, const char *kind, const char *gpu, int ngpus,
		     const char *method, double step, const pp_breakdown *b, double tok, double mfu,
		     double mem, double cap, double goodput, double ckpt, double ttt, double lead)
{
	pp_csvw_text(w, name);
	pp_csvw_text(w, kind);
	pp_csvw_text(w, gpu);
	pp_csvw_int(w, ngpus);
	pp_csvw_text(w, method);
	pp_csvw_num(w, step, SIG);
	pp_breakdown_csv(w, isfinite(step) ? b : NULL, SIG);
	const double v[] = {tok, mfu, mem, cap, goodput, ckpt, ttt, lead};
	for (size_t k = 0; k < PP_ARRAY_LEN(v); k++)
		pp_csvw_num(w, v[k], SIG);
	pp_csvw_end(w);
}

/* step_time.csv's header: the breakdown's keys between the step time and
 * the throughput */
static pp_csvw *add_step_file(pp_report_file *files, int *n, int max, pp_csvw *w)
{
	if (!add_file(files, n, max, "step_time.csv", NULL, w))
		return NULL;
	pp_csvw_names(w, "option,kind,gpu,num_gpus,method,step_time_s");
	pp_breakdown_csv_names(w);
	pp_csvw_names(w, "tokens_per_s,mfu,memory_per_gpu_bytes,memory_capacity_bytes,goodput,"
			 "checkpoint_interval_s,time_to_train_s,lead_time_s");
	pp_csvw_end(w);
	return w;
}

static void tornado_file(const pp_cost_result *c, pp_report_file *files, int *n, int max)
{
	pp_csvw w;
	if (!add_file(files, n, max, "tornado.csv",
		      "option,driver,unit,base_input,low_input,high_input,base_usd,low_usd,high_usd,"
		      "low_margin_usd,high_margin_usd,swing_usd", &w))
		return;
	const pp_cost_option *win = c->recommended >= 0 ? &c->options[c->recommended] : NULL;
	for (int i = 0; i < c->ntornado; i++) {
		const pp_tornado_row *t = &c->tornado[i];
		pp_csvw_text(&w, win ? win->name : "");
		pp_csvw_text(&w, t->driver);
		pp_csvw_text(&w, t->unit);
		const double v[] = {t->base_input, t->low_input, t->high_input,
				    win ? win->usd_total : NAN, t->low_usd, t->high_usd,
				    t->low_margin_usd, t->high_margin_usd, t->swing_usd};
		for (size_t k = 0; k < PP_ARRAY_LEN(v); k++)
			pp_csvw_num(&w, v[k], SIG);
		pp_csvw_end(&w);
	}
}

static void distribution_file(const pp_cost_result *c, pp_report_file *files, int *n, int max)
{
	pp_csvw w;
	if (!add_file(files, n, max, "distribution.csv",
		      "option,bin,lo_usd,hi_usd,count,share,p10_usd,p50_usd,p90_usd,mean_usd,p_cheapest",
		      &w))
		return;
	for (int i = 0; i < c->noptions; i++) {
		const pp_cost_option *o = &c->options[i];
		int counts[40];
		double lo = 0, hi = 0;
		if (!o->feasible || pp_cost_histogram(o, 40, &lo, &hi, counts) <= 0)
			continue;
		double width = (hi - lo) / 40;
		for (int b = 0; b < 40; b++) {
			pp_csvw_text(&w, o->name);
			pp_csvw_int(&w, b);
			pp_csvw_num(&w, lo + b * width, SIG);
			pp_csvw_num(&w, lo + (b + 1) * width, SIG);
			pp_csvw_int(&w, counts[b]);
			const double v[] = {o->nsamples > 0 ? (double)counts[b] / o->nsamples : NAN,
					    o->p10_usd, o->p50_usd, o->p90_usd, o->mean_usd,
					    o->p_cheapest};
			for (size_t k = 0; k < PP_ARRAY_LEN(v); k++)
				pp_csvw_num(&w, v[k], SIG);
			pp_csvw_end(&w);
		}
	}
}

static void finance_file(const pp_cost_result *c, pp_report_file *files, int *n, int max)
{
	pp_csvw w;
	if (!add_file(files, n, max, "finance.csv",
		      "option,versus,capex_usd,residual_usd,discount_rate,npv_usd,irr,payback_months,"
		      "discounted_payback_months,crossover_month,utilization,usd_per_gpu_hour_used,"
		      "breakeven_utilization", &w))
		return;
	for (int i = 0; i < c->noptions; i++) {
		const pp_cost_fin *f = &c->options[i].fin;
		if (!f->valid)
			continue;
		pp_csvw_text(&w, c->options[i].name);
		pp_csvw_text(&w, f->versus);
		const double v[] = {f->capex_usd, f->residual_usd, f->discount_rate, f->npv_usd,
				    f->irr, f->payback_months, f->discounted_payback_months,
				    f->crossover_month, f->utilization, f->usd_per_gpu_hour_used,
				    f->breakeven_utilization};
		for (size_t k = 0; k < PP_ARRAY_LEN(v); k++)
			pp_csvw_num(&w, v[k], SIG);
		pp_csvw_end(&w);
	}
}

/* An inference work: the workload and SLO (serving_workload.csv), each
 * option's replica, KV cache, replicas and $ per 1M input and output
 * tokens (serving.csv), and each replica's throughput-latency curve
 * (serving_curve.csv). */
static void serving_files(const pp_cost_result *c, pp_report_file *files, int *n, int max)
{
	const pp_cost_inference *f = &c->inference;
	pp_csvw w;
	if (!f->present)
		return;
	if (add_file(files, n, max, "serving_workload.csv", "metric,value,unit", &w)) {
		static const char *const k[] = {"input_tokens_per_month", "output_tokens_per_month",
						"peak_to_average", "num_prompts", "mean_input_len",
						"mean_output_len", "requests_per_month", "slo_ttft",
						"slo_tpot", "slo_itl", "slo_e2el", "slo_percentile",
						"simulations"};
		static const char *const u[] = {"tokens", "tokens", "ratio", "requests", "tokens",
						"tokens", "requests", "s", "s", "s", "s", "percentile",
						"runs"};
		const double v[] = {f->input_tokens_per_month, f->output_tokens_per_month,
				    f->peak_to_average, f->simulated ? (double)f->num_prompts : NAN,
				    f->simulated ? f->mean_input_len : NAN,
				    f->simulated ? f->mean_output_len : NAN,
				    f->simulated ? f->requests_per_month : NAN,
				    f->slo_ttft_s > 0 ? f->slo_ttft_s : NAN,
				    f->slo_tpot_s > 0 ? f->slo_tpot_s : NAN,
				    f->slo_itl_s > 0 ? f->slo_itl_s : NAN,
				    f->slo_e2el_s > 0 ? f->slo_e2el_s : NAN,
				    f->slo_present ? f->slo_percentile : NAN, (double)f->simulations};
		for (size_t i = 0; i < PP_ARRAY_LEN(k); i++) {
			pp_csvw_text(&w, k[i]);
			pp_csvw_num(&w, v[i], SIG);
			pp_csvw_text(&w, u[i]);
			pp_csvw_end(&w);
		}
	}
	if (add_file(files, n, max, "serving.csv",
		     "option,kind,gpu,feasible,simulated,engine,tensor_parallel_size,"
		     "pipeline_parallel_size,gpus_per_replica,replicas_per_cluster,offline_rps,"
		     "slo_rate_rps,max_rate_rps,input_tokens_per_s,output_tokens_per_s,ttft_s,tpot_s,"
		     "itl_s,e2el_s,kv_cache_tokens,num_gpu_blocks,max_concurrency,"
		     "kv_cache_bytes_per_gpu,weights_bytes_per_gpu,s_per_input_token,"
		     "s_per_output_token,peak_rps,replicas_needed,clusters,input_cost_share,"
		     "usd_per_million_input_tokens,usd_per_million_output_tokens", &w))
		for (int i = 0; i < c->noptions; i++) {
			const pp_cost_option *o = &c->options[i];
			const pp_cost_serving *v = &o->serving;
			bool sim = o->kind != PP_OPT_API && v->simulated, ok = sim && o->feasible;
			pp_csvw_text(&w, o->name);
			pp_csvw_text(&w, pp_option_kind_names[o->kind]);
			pp_csvw_text(&w, o->gpu);
			pp_csvw_bool(&w, o->feasible);
			pp_csvw_bool(&w, sim);
			pp_csvw_text(&w, sim ? v->engine : "");
			const double a[] = {sim ? v->tp : NAN, sim ? v->pp : NAN,
					    sim ? v->gpus_per_replica : NAN,
					    sim ? v->replicas_per_cluster : NAN,
					    ok ? v->offline_rps : NAN, ok ? v->slo_rate_rps : NAN,
					    ok ? v->max_rate_rps : NAN, ok ? v->input_tokens_per_s : NAN,
					    ok ? v->output_tokens_per_s : NAN, ok ? v->at_max.ttft_s : NAN,
					    ok ? v->at_max.tpot_s : NAN, ok ? v->at_max.itl_s : NAN,
					    ok ? v->at_max.e2el_s : NAN, sim ? (double)v->kv_tokens : NAN,
					    sim ? (double)v->num_gpu_blocks : NAN,
					    sim ? v->max_concurrency : NAN,
					    sim ? v->kv_cache_bytes_per_gpu : NAN,
					    sim ? v->weights_bytes_per_gpu : NAN,
					    ok ? v->s_per_input_token : NAN,
					    ok ? v->s_per_output_token : NAN, ok ? v->peak_rps : NAN,
					    ok ? v->replicas_needed : NAN,
					    o->kind != PP_OPT_API && o->feasible ? fmax(1, o->replicas) : NAN,
					    o->kind != PP_OPT_API && o->feasible ? v->input_cost_share : NAN,
					    o->usd_per_million_input_tokens,
					    o->usd_per_million_output_tokens};
			for (size_t k = 0; k < PP_ARRAY_LEN(a); k++)
				pp_csvw_num(&w, a[k], SIG);
			pp_csvw_end(&w);
		}
	if (add_file(files, n, max, "serving_curve.csv",
		     "option,gpu,point,request_rate_rps,request_throughput_rps,"
		     "output_throughput_tokens_per_s,ttft_s,tpot_s,itl_s,e2el_s,slo_met", &w))
		for (int i = 0; i < c->noptions; i++) {
			const pp_cost_option *o = &c->options[i];
			const pp_cost_serving *v = &o->serving;
			for (int k = 0; o->kind != PP_OPT_API && k < v->ncurve; k++) {
				const pp_cost_serve_point *p = &v->curve[k];
				pp_csvw_text(&w, o->name);
				pp_csvw_text(&w, o->gpu);
				pp_csvw_int(&w, k);
				const double a[] = {p->request_rate, p->request_throughput,
						    p->output_throughput, p->ttft_s, p->tpot_s, p->itl_s,
						    p->e2el_s};
				for (size_t j = 0; j < PP_ARRAY_LEN(a); j++)
					pp_csvw_num(&w, a[j], SIG);
				pp_csvw_bool(&w, p->slo_met);
				pp_csvw_end(&w);
			}
		}
}

static void cost_files(const pp_report *r, pp_report_file *files, int *n, int max)
{
	const pp_cost_result *c = &r->cost;
	pp_csvw w;
	/* options.csv: the cost engine's own CSV (PP_COST_CSV_HEADER) */
	if (add_file(files, n, max, "options.csv", NULL, &w))
		pp_cost_to_csv(c, w.out);
	if (add_step_file(files, n, max, &w))
		for (int i = 0; i < c->noptions; i++) {
			const pp_cost_option *o = &c->options[i];
			step_row(&w, o->name, pp_option_kind_names[o->kind], o->gpu, o->num_gpus, o->method,
				 o->step_time_s, &o->breakdown, o->tokens_per_s, o->mfu,
				 o->memory_per_gpu_bytes, o->memory_capacity_bytes, o->goodput,
				 o->checkpoint_interval_s, o->time_to_train_s, o->lead_time_s);
		}
	if (add_file(files, n, max, "cumulative_cost.csv", "option,month,cumulative_usd", &w))
		for (int i = 0; i < c->noptions; i++) {
			const pp_cost_option *o = &c->options[i];
			for (int m = 0; o->cum_usd && m <= o->nmonths; m++) {
				pp_csvw_text(&w, o->name);
				pp_csvw_int(&w, m);
				pp_csvw_num(&w, o->cum_usd[m], SIG);
				pp_csvw_end(&w);
			}
		}
	tornado_file(c, files, n, max);
	distribution_file(c, files, n, max);
	finance_file(c, files, n, max);
	serving_files(c, files, n, max);
	if (add_file(files, n, max, "sources.csv", "item,value,unit,source,url,date,age_months,estimate",
		     &w))
		for (int i = 0; i < c->nsources; i++) {
			const pp_cost_source *f = &c->sources[i];
			pp_csvw_text(&w, f->item);
			pp_csvw_num(&w, f->value, SIG);
			pp_csvw_text(&w, f->unit);
			pp_csvw_text(&w, f->source);
			pp_csvw_text(&w, f->url);
			pp_csvw_text(&w, f->date);
			pp_csvw_num(&w, f->age_months, SIG);
			pp_csvw_bool(&w, f->estimate);
			pp_csvw_end(&w);
		}
}

static void pred_files(const pp_report *r, pp_report_file *files, int *n, int max)
{
	const pp_result *p = &r->pred;
	const pp_scenario *s = r->s;
	pp_csvw w;
	if (add_step_file(files, n, max, &w))
		step_row(&w, s->name, "scenario", s->cluster.gpu->id, s->cluster.num_gpus, "full",
			 p->step_time_s, &p->breakdown, p->tokens_per_s, p->mfu, p->memory.total_bytes,
			 p->memory.capacity_bytes, NAN, NAN,
			 s->training.train_tokens > 0 ? p->time_to_train_s : NAN, 0);
	if (add_file(files, n, max, "memory.csv", "part,bytes_per_gpu", &w)) {
		const pp_memory *m = &p->memory;
		static const char *const k[] = {"weights", "gradients", "optimizer", "activations",
						"temporary", "fragmentation", "total", "capacity"};
		double v[] = {m->weights_bytes, m->grads_bytes, m->optimizer_bytes, m->activations_bytes,
			      m->temp_bytes, m->fragmentation_bytes, m->total_bytes, m->capacity_bytes};
		for (size_t i = 0; i < PP_ARRAY_LEN(k); i++) {
			pp_csvw_text(&w, k[i]);
			pp_csvw_num(&w, v[i], SIG);
			pp_csvw_end(&w);
		}
	}
	if (add_file(files, n, max, "scenario.csv", "metric,value,unit", &w)) {
		static const char *const k[] = {"step_time", "tokens_per_step", "tokens_per_s", "mfu",
						"hfu", "model_tflops_per_gpu", "time_to_train",
						"steps_to_train", "params", "checkpoint", "checkpoint_write",
						"worst_stage", "fits"};
		static const char *const u[] = {"s", "tokens", "tokens/s", "fraction", "fraction",
						"TFLOP/s", "s", "steps", "parameters", "bytes", "s",
						"stage", "bool"};
		double v[] = {p->step_time_s, p->tokens_per_step, p->tokens_per_s, p->mfu, p->hfu,
			      p->model_tflops_per_gpu,
			      s->training.train_tokens > 0 ? p->time_to_train_s : NAN,
			      s->training.train_tokens > 0 ? p->steps_to_train : NAN, p->params_total,
			      p->checkpoint_bytes, p->checkpoint_write_s, p->memory.worst_stage,
			      p->memory.fits ? 1 : 0};
		for (size_t i = 0; i < PP_ARRAY_LEN(k); i++) {
			pp_csvw_text(&w, k[i]);
			pp_csvw_num(&w, v[i], SIG);
			pp_csvw_text(&w, u[i]);
			pp_csvw_end(&w);
		}
	}
}

int pp_report_csv(const pp_report *r, pp_report_file *files, int max)
{
	int n = 0;
	pp_csvw w;
	pp_report_cluster cl;
	if (r->have_cost)
		cost_files(r, files, &n, max);
	if (pp_report_cluster_of(r, &cl))
		pp_report_cluster_csv(&cl, "cluster_", files, &n, max);
	else if (r->have_pred)
		pred_files(r, files, &n, max);
	if (add_file(files, &n, max, "parameters.csv", "parameter,origin", &w))
		for (int i = 0; i < r->hw.norigins; i++) {
			pp_csvw_text(&w, r->hw.origins[i].name);
			pp_csvw_text(&w, r->hw.origins[i].origin);
			pp_csvw_end(&w);
		}
	if (add_file(files, &n, max, "calibration.csv",
		     "run_id,check,scope,measured,expected,unit,ratio,verdict,cause", &w))
		for (int i = 0; i < r->nverdict; i++) {
			const pp_report_verdict *v = &r->verdict[i];
			pp_csvw_int(&w, (long long)v->run_id);
			pp_csvw_text(&w, v->check);
			pp_csvw_text(&w, v->scope);
			pp_csvw_num(&w, v->measured, SIG);
			pp_csvw_num(&w, v->expected, SIG);
			pp_csvw_text(&w, v->unit);
			pp_csvw_num(&w, v->ratio, SIG);
			pp_csvw_text(&w, v->verdict);
			pp_csvw_text(&w, v->cause);
			pp_csvw_end(&w);
		}
	if (add_file(files, &n, max, "warnings.csv", "warning", &w))
		for (int i = 0; i < r->nwarnings; i++) {
			pp_csvw_text(&w, r->warnings[i]);
			pp_csvw_end(&w);
		}
	return n;
}

void pp_report_files_release(pp_report_file *files, int n)
{
	for (int i = 0; i < n; i++)
		pp_sb_release(&files[i].body);
}
