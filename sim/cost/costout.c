/* costout.c - see costout.h. */
#include "cost/costout.h"
#include "core/fmt.h"
#include "core/csv.h"
#include "core/jsonout.h"
#include "core/util.h"
#include "engine/breakdown.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
/* ---- JSON ---- */

/* dollars, times and tokens: ten significant digits */
#define SIG 10

static void num(cJSON *o, const char *key, double v)
{
	pp_json_num(o, key, v, SIG);
}

static void histogram_json(cJSON *o, const pp_cost_option *x)
{
	int counts[40];
	double lo = 0, hi = 0;
	if (pp_cost_histogram(x, 40, &lo, &hi, counts) <= 0) {
		pp_json_null(o, "histogram");
		return;
	}
	cJSON *h = pp_json_obj(o, "histogram");
	num(h, "lo_usd", lo);
	num(h, "hi_usd", hi);
	cJSON *c = pp_json_arr(h, "counts");
	for (int b = 0; b < 40; b++)
		pp_json_int(c, NULL, counts[b]);
}

static void finance_json(cJSON *o, const pp_cost_fin *f)
{
	if (!f->valid) {
		pp_json_null(o, "finance");
		return;
	}
	cJSON *j = pp_json_obj(o, "finance");
	pp_json_str(j, "versus", f->versus);
	num(j, "capex_usd", f->capex_usd);
	num(j, "residual_usd", f->residual_usd);
	num(j, "discount_rate", f->discount_rate);
	num(j, "npv_usd", f->npv_usd);
	num(j, "irr", f->irr);
	num(j, "payback_months", f->payback_months);
	num(j, "discounted_payback_months", f->discounted_payback_months);
	num(j, "crossover_month", f->crossover_month);
	num(j, "utilization", f->utilization);
	num(j, "usd_per_gpu_hour_used", f->usd_per_gpu_hour_used);
	num(j, "breakeven_utilization", f->breakeven_utilization);
}

static void point_json(cJSON *o, const char *key, const pp_cost_serve_point *p)
{
	cJSON *j = pp_json_obj(o, key);
	num(j, "request_rate", p->request_rate);
	num(j, "request_throughput", p->request_throughput);
	num(j, "output_throughput", p->output_throughput);
	num(j, "ttft_s", p->ttft_s);
	num(j, "tpot_s", p->tpot_s);
	num(j, "itl_s", p->itl_s);
	num(j, "e2el_s", p->e2el_s);
	pp_json_bool(j, "slo_met", p->slo_met);
	if (p->not_sustained) { /* only then, so that sustained points read as before */
		pp_json_bool(j, "sustained", false);
		num(j, "capacity_rps", p->capacity_rps);
	}
}

static void serving_json(cJSON *o, const pp_cost_serving *v)
{
	if (!v->simulated) {
		pp_json_null(o, "serving");
		return;
	}
	cJSON *j = pp_json_obj(o, "serving");
	pp_json_str(j, "engine", v->engine);
	pp_json_int(j, "tensor_parallel_size", v->tp);
	pp_json_int(j, "pipeline_parallel_size", v->pp);
	pp_json_int(j, "gpus_per_replica", v->gpus_per_replica);
	pp_json_int(j, "replicas_per_cluster", v->replicas_per_cluster);
	num(j, "offline_rps", v->offline_rps);
	num(j, "slo_rate_rps", v->slo_rate_rps);
	num(j, "max_rate_rps", v->max_rate_rps);
	num(j, "input_tokens_per_s", v->input_tokens_per_s);
	num(j, "output_tokens_per_s", v->output_tokens_per_s);
	point_json(j, "at_max_rate", &v->at_max);
	cJSON *kv = pp_json_obj(j, "kv_cache");
	pp_json_int(kv, "num_gpu_blocks", v->num_gpu_blocks);
	pp_json_int(kv, "tokens", v->kv_tokens);
	num(kv, "max_concurrency", v->max_concurrency);
	num(kv, "bytes_per_gpu", v->kv_cache_bytes_per_gpu);
	num(j, "weights_bytes_per_gpu", v->weights_bytes_per_gpu);
	num(j, "memory_budget_bytes_per_gpu", v->memory_budget_bytes_per_gpu);
	num(j, "input_scale", v->input_scale);
	num(j, "output_scale", v->output_scale);
	num(j, "s_per_input_token", v->s_per_input_token);
	num(j, "s_per_output_token", v->s_per_output_token);
	num(j, "peak_rps", v->peak_rps);
	pp_json_int(j, "replicas_needed", v->replicas_needed);
	num(j, "input_cost_share", v->input_cost_share);
	cJSON *c = pp_json_arr(j, "curve");
	for (int i = 0; i < v->ncurve; i++)
		point_json(c, NULL, &v->curve[i]);
	pp_json_int(j, "simulations", v->runs);
}

static void inference_json(cJSON *o, const pp_cost_inference *f)
{
	if (!f->present) {
		pp_json_null(o, "inference");
		return;
	}
	cJSON *j = pp_json_obj(o, "inference");
	num(j, "input_tokens_per_month", f->input_tokens_per_month);
	num(j, "output_tokens_per_month", f->output_tokens_per_month);
	num(j, "peak_to_average", f->peak_to_average);
	pp_json_bool(j, "simulated", f->simulated);
	pp_json_int(j, "num_prompts", f->num_prompts);
	num(j, "mean_input_len", f->mean_input_len);
	num(j, "mean_output_len", f->mean_output_len);
	num(j, "requests_per_month", f->requests_per_month);
	if (f->slo_present) {
		cJSON *s = pp_json_obj(j, "slo");
		const double b[] = {f->slo_ttft_s, f->slo_tpot_s, f->slo_itl_s, f->slo_e2el_s};
		static const char *const k[] = {"ttft_ms", "tpot_ms", "itl_ms", "e2el_ms"};
		for (int i = 0; i < 4; i++)
			if (b[i] > 0)
				num(s, k[i], b[i] * 1e3);
		num(s, "percentile", f->slo_percentile);
	} else {
		pp_json_null(j, "slo");
	}
	pp_json_int(j, "simulations", f->simulations);
	num(j, "serve_elapsed_s", f->serve_elapsed_s);
}

static void option_json(cJSON *arr, const pp_cost_option *o)
{
	cJSON *j = pp_json_obj(arr, NULL);
	pp_json_str(j, "name", o->name);
	pp_json_str(j, "kind", pp_option_kind_names[o->kind]);
	pp_json_str(j, "provider", o->provider);
	pp_json_str(j, "tier", o->tier);
	pp_json_str(j, "label", o->label);
	pp_json_str(j, "gpu", o->gpu);
	pp_json_int(j, "num_gpus", o->num_gpus);
	pp_json_str(j, "fabric", o->fabric);
	pp_json_str(j, "method", o->method);
	pp_json_bool(j, "feasible", o->feasible);
	pp_json_str(j, "infeasible_why", o->infeasible_why);
	num(j, "usd_total", o->usd_total);
	num(j, "usd_amortized", o->usd_amortized);
	num(j, "usd_marginal", o->usd_marginal);
	num(j, "usd_per_run", o->usd_per_run);
	num(j, "usd_per_million_tokens", o->usd_per_million_tokens);
	num(j, "usd_per_million_tokens_marginal", o->usd_per_million_tokens_marginal);
	num(j, "usd_per_million_input_tokens", o->usd_per_million_input_tokens);
	num(j, "usd_per_million_output_tokens", o->usd_per_million_output_tokens);
	num(j, "usd_per_gpu_hour_used", o->usd_per_gpu_hour_used);
	num(j, "usd_lost_work", o->usd_lost_work);
	num(j, "time_to_train_s", o->time_to_train_s);
	num(j, "lead_time_s", o->lead_time_s);
	num(j, "step_time_s", o->step_time_s);
	if (o->band.on)
		pp_band_json(&o->band, j);
	num(j, "tokens_per_s", o->tokens_per_s);
	num(j, "tokens_per_s_effective", o->tokens_per_s_effective);
	num(j, "mfu", o->mfu);
	pp_breakdown_json(j, "breakdown", &o->breakdown, SIG);
	num(j, "goodput", o->goodput);
	num(j, "checkpoint_interval_s", o->checkpoint_interval_s);
	num(j, "memory_per_gpu_bytes", o->memory_per_gpu_bytes);
	num(j, "memory_capacity_bytes", o->memory_capacity_bytes);
	num(j, "gpu_hours_used", o->gpu_hours_used);
	num(j, "replicas", o->replicas);
	pp_json_int(j, "gpus_priced", o->gpus_priced);
	num(j, "capex_usd", o->capex_usd);
	pp_json_bool(j, "obtainable", o->obtainable);
	pp_json_str(j, "risk", o->risk);
	pp_json_str(j, "payment", o->payment);
	num(j, "contract_usd", o->payment[0] ? o->contract_usd : NAN);
	cJSON *net = pp_json_obj(j, "network");
	pp_json_int(net, "switches", o->net_switches);
	pp_json_int(net, "links", o->net_links);
	pp_json_int(net, "tiers", o->net_tiers);
	num(j, "storage_tb", o->storage_tb);
	num(j, "p10_usd", o->p10_usd);
	num(j, "p50_usd", o->p50_usd);
	num(j, "p90_usd", o->p90_usd);
	num(j, "mean_usd", o->mean_usd);
	num(j, "p_cheapest", o->p_cheapest);
	cJSON *comp = pp_json_obj(j, "components");
	for (int k = 0; k < PP_CC_COUNT; k++)
		num(comp, pp_cost_comp_names[k], o->components[k]);
	cJSON *cum = pp_json_arr(j, "cumulative_usd_by_month");
	for (int m = 0; o->cum_usd && m <= o->nmonths; m++)
		num(cum, NULL, o->cum_usd[m]);
	histogram_json(j, o);
	finance_json(j, &o->fin);
	serving_json(j, &o->serving);
}

static void tornado_json(cJSON *arr, const pp_tornado_row *t)
{
	cJSON *j = pp_json_obj(arr, NULL);
	pp_json_str(j, "driver", t->driver);
	pp_json_str(j, "unit", t->unit);
	num(j, "base_input", t->base_input);
	num(j, "low_input", t->low_input);
	num(j, "high_input", t->high_input);
	num(j, "low_usd", t->low_usd);
	num(j, "high_usd", t->high_usd);
	num(j, "low_margin_usd", t->low_margin_usd);
	num(j, "high_margin_usd", t->high_margin_usd);
	num(j, "swing_usd", t->swing_usd);
}

static void source_json(cJSON *arr, const pp_cost_source *s)
{
	cJSON *j = pp_json_obj(arr, NULL);
	pp_json_str(j, "item", s->item);
	num(j, "value", s->value);
	pp_json_str(j, "unit", s->unit);
	pp_json_str(j, "source", s->source);
	pp_json_str(j, "url", s->url);
	pp_json_str(j, "date", s->date);
	pp_json_bool(j, "estimate", s->estimate);
	num(j, "age_months", s->age_months);
}

void pp_cost_to_json(const pp_cost_result *r, pp_sb *sb)
{
	cJSON *j = pp_json_obj(NULL, NULL);
	pp_json_str(j, "scenario", r->scenario);
	pp_json_str(j, "question", r->question);
	pp_json_str(j, "work", r->work);
	num(j, "tokens_total", r->tokens_total);
	num(j, "runs", r->runs);
	num(j, "horizon_months", r->horizon_months);
	pp_json_str(j, "as_of", r->as_of);
	pp_json_int(j, "seed", (int64_t)r->seed);
	pp_json_int(j, "draws", r->draws);
	cJSON *opts = pp_json_arr(j, "options");
	for (int i = 0; i < r->noptions; i++)
		option_json(opts, &r->options[i]);
	pp_json_str(j, "recommended", r->recommended >= 0 ? r->options[r->recommended].name : NULL);
	pp_json_str(j, "runner_up", r->runner_up >= 0 ? r->options[r->runner_up].name : NULL);
	pp_json_str(j, "risked_alternative", r->risked >= 0 ? r->options[r->risked].name : NULL);
	pp_json_str(j, "recommendation", r->recommendation);
	inference_json(j, &r->inference);
	cJSON *tor = pp_json_arr(j, "tornado");
	for (int i = 0; i < r->ntornado; i++)
		tornado_json(tor, &r->tornado[i]);
	cJSON *src = pp_json_arr(j, "sources");
	for (int i = 0; i < r->nsources; i++)
		source_json(src, &r->sources[i]);
	pp_json_str(j, "utilization_from", r->utilization_from[0] ? r->utilization_from : NULL);
	cJSON *w = pp_json_arr(j, "warnings");
	for (int i = 0; i < r->nwarnings; i++)
		pp_json_str(w, NULL, r->warnings[i]);
	num(j, "elapsed_s", r->elapsed_s);
	num(j, "mc_elapsed_s", r->mc_elapsed_s);
	pp_json_print(j, true, sb);
	cJSON_Delete(j);
}

/* ---- CSV ---- */

void pp_cost_to_csv(const pp_cost_result *r, pp_sb *sb)
{
	pp_csvw w;
	pp_csvw_init(&w, sb);
	pp_csvw_header(&w, PP_COST_CSV_HEADER);
	for (int i = 0; i < r->noptions; i++) {
		const pp_cost_option *o = &r->options[i];
		pp_csvw_text(&w, r->scenario);
		pp_csvw_int(&w, (long long)r->seed);
		pp_csvw_int(&w, r->draws);
		pp_csvw_text(&w, o->name);
		pp_csvw_text(&w, pp_option_kind_names[o->kind]);
		pp_csvw_text(&w, o->provider);
		pp_csvw_text(&w, o->tier);
		pp_csvw_text(&w, o->gpu);
		pp_csvw_int(&w, o->num_gpus);
		pp_csvw_text(&w, o->method);
		pp_csvw_bool(&w, o->feasible);
		const double v[] = {o->usd_total, o->usd_amortized, o->usd_marginal, o->usd_per_run,
				    o->usd_per_million_tokens, o->usd_per_million_tokens_marginal,
				    o->usd_per_gpu_hour_used, o->time_to_train_s, o->gpu_hours_used,
				    o->goodput, o->tokens_per_s, o->p10_usd, o->p50_usd, o->p90_usd,
				    o->p_cheapest};
		for (size_t k = 0; k < PP_ARRAY_LEN(v); k++)
			pp_csvw_num(&w, v[k], SIG);
		for (int k = 0; k < PP_CC_COUNT; k++)
			pp_csvw_num(&w, o->components[k], SIG);
		const pp_cost_fin *f = &o->fin;
		pp_csvw_num(&w, f->valid ? f->npv_usd : NAN, SIG);
		pp_csvw_num(&w, f->valid ? f->irr : NAN, SIG);
		pp_csvw_num(&w, f->valid ? f->payback_months : NAN, SIG);
		pp_csvw_num(&w, f->valid ? f->crossover_month : NAN, SIG);
		pp_csvw_num(&w, f->valid ? f->breakeven_utilization : NAN, SIG);
		pp_csvw_bool(&w, i == r->recommended);
		pp_csvw_num(&w, o->replicas, SIG);
		pp_csvw_int(&w, o->gpus_priced);
		pp_csvw_num(&w, o->capex_usd, SIG);
		pp_csvw_num(&w, o->lead_time_s, SIG);
		pp_csvw_bool(&w, o->obtainable);
		pp_csvw_text(&w, o->payment);
		pp_csvw_text(&w, o->risk);
		pp_csvw_num(&w, o->usd_per_million_input_tokens, SIG);
		pp_csvw_num(&w, o->usd_per_million_output_tokens, SIG);
		const pp_cost_serving *sv = &o->serving;
		pp_csvw_num(&w, sv->simulated ? sv->max_rate_rps : NAN, SIG);
		if (sv->simulated && o->feasible)
			pp_csvw_int(&w, sv->replicas_needed);
		else
			pp_csvw_num(&w, NAN, SIG);
		pp_csvw_end(&w);
	}
}

/* ---- shared by the text and the reports ---- */

const char *pp_cost_gpus_text(const pp_cost_option *o, char *buf, size_t n)
{
	if (o->kind == PP_OPT_API)
		snprintf(buf, n, "(hosted)");
	else if (o->replicas > 1)
		snprintf(buf, n, "%.0f x %d x %s", o->replicas, o->num_gpus, o->gpu);
	else
		snprintf(buf, n, "%d x %s", o->num_gpus, o->gpu);
	return buf;
}

/* ---- text ---- */



const char *pp_cost_fmt_slo(const pp_cost_inference *f, char *buf, size_t n)
{
	if (!f->slo_present)
		return snprintf(buf, n, "no SLO"), buf;
	static const char *const k[] = {"TTFT", "TPOT", "ITL", "E2EL"};
	const double b[] = {f->slo_ttft_s, f->slo_tpot_s, f->slo_itl_s, f->slo_e2el_s};
	size_t o = (size_t)snprintf(buf, n, "p%g", f->slo_percentile);
	for (int i = 0; i < 4 && o < n; i++)
		if (b[i] > 0)
			o += (size_t)snprintf(buf + o, n - o, "%s %s <= %g ms", o > 4 ? "," : "", k[i],
					      b[i] * 1e3);
	return buf;
}

/* An inference work's serving table: each option's replica at the SLO,
 * its KV cache, the replicas the busiest hour needs, $ per 1M input and
 * output tokens. */
static void serving_text(const pp_cost_result *r, pp_sb *sb)
{
	const pp_cost_inference *f = &r->inference;
	if (!f->present)
		return;
	char a[32], b[32], c[32], slo[160];
	if (f->simulated) {
		pp_sb_addf(sb, "\nServing (podplan serve, one replica per GPU type; %lld prompts, mean "
			   "%.0f in / %.0f out tokens a request; SLO %s):\n",
			   (long long)f->num_prompts, f->mean_input_len, f->mean_output_len,
			   pp_cost_fmt_slo(f, slo, sizeof(slo)));
		pp_sb_addf(sb, "  %s input + %s output tokens a month = %s requests of that mix; busiest "
			   "hour %.2gx the average\n",
			   pp_fmt_tokens(f->input_tokens_per_month, a, sizeof(a)),
			   pp_fmt_tokens(f->output_tokens_per_month, b, sizeof(b)),
			   pp_fmt_tokens(f->requests_per_month, c, sizeof(c)), f->peak_to_average);
	} else {
		pp_sb_addf(sb, "\nServing (typed-in throughput, not simulated): %s input + %s output "
			   "tokens a month, busiest hour %.2gx the average\n",
			   pp_fmt_tokens(f->input_tokens_per_month, a, sizeof(a)),
			   pp_fmt_tokens(f->output_tokens_per_month, b, sizeof(b)), f->peak_to_average);
	}
	pp_sb_addf(sb, "%-22s %-14s %9s %9s %9s %9s %9s %10s %6s %8s %9s %9s\n", "option", "replica",
		   "max req/s", "in tok/s", "out tok/s", "TTFT", "TPOT", "KV tokens", "conc.",
		   "replicas", "$/1M in", "$/1M out");
	for (int i = 0; i < r->noptions; i++) {
		const pp_cost_option *o = &r->options[i];
		const pp_cost_serving *v = &o->serving;
		char rep[48] = "(hosted)", mr[24] = "", it[24] = "", ot[24] = "", tt[24] = "", tp[24] = "",
		     kv[24] = "", cc[24] = "", rp[24] = "", pi[24] = "-", po[24] = "-";
		if (o->kind != PP_OPT_API && v->simulated) {
			if (v->pp > 1)
				snprintf(rep, sizeof(rep), "TP%dxPP%d x %s", v->tp, v->pp, o->gpu);
			else
				snprintf(rep, sizeof(rep), "TP%d x %s", v->tp, o->gpu);
			if (o->feasible) {
				snprintf(mr, sizeof(mr), "%.3g", v->max_rate_rps);
				snprintf(it, sizeof(it), "%.0f", v->input_tokens_per_s);
				snprintf(ot, sizeof(ot), "%.0f", v->output_tokens_per_s);
				pp_fmt_ms(v->at_max.ttft_s, 0, tt, sizeof(tt));
				pp_fmt_ms(v->at_max.tpot_s, 1, tp, sizeof(tp));
				snprintf(rp, sizeof(rp), "%d", v->replicas_needed);
			}
			snprintf(kv, sizeof(kv), "%lld", (long long)v->kv_tokens);
			snprintf(cc, sizeof(cc), "%.1f", v->max_concurrency);
		} else if (o->kind != PP_OPT_API) {
			snprintf(rep, sizeof(rep), "%d x %s", o->num_gpus, o->gpu);
			snprintf(it, sizeof(it), "%.0f", o->tokens_per_s);
			snprintf(ot, sizeof(ot), "(typed)");
		}
		if (isfinite(o->usd_per_million_input_tokens))
			snprintf(pi, sizeof(pi), "%.3g", o->usd_per_million_input_tokens);
		if (isfinite(o->usd_per_million_output_tokens))
			snprintf(po, sizeof(po), "%.3g", o->usd_per_million_output_tokens);
		pp_sb_addf(sb, "%-22.22s %-14.14s %9s %9s %9s %9s %9s %10s %6s %8s %9s %9s%s\n", o->name,
			   rep, mr, it, ot, tt, tp, kv, cc, rp, pi, po,
			   o->feasible ? "" : "  (cannot)");
	}
	pp_sb_adds(sb, "  max req/s: one replica's highest rate at the SLO (at most what it completes "
		   "with every request at once); TTFT and TPOT at the SLO's percentile at that rate; "
		   "replicas: serving replicas the busiest hour needs; $/1M: the full cost split by "
		   "the replica time input and output tokens take\n");
}

void pp_cost_to_text(const pp_cost_result *r, pp_sb *sb)
{
	char a[32], b[32], c[32], d[32];
	pp_sb_addf(sb, "Scenario   %s\n", r->scenario);
	if (r->question[0])
		pp_sb_addf(sb, "Question   %s\n", r->question);
	pp_sb_addf(sb, "Work       %s (horizon %.1f months)\n", r->work, r->horizon_months);
	pp_sb_addf(sb, "Prices as of %s; Monte Carlo %d draws, seed %lu\n\n", r->as_of, r->draws,
		   r->seed);
	pp_sb_addf(sb, "%-22s %-6s %-24s %10s %10s %9s %21s %6s %7s\n", "option", "kind", "GPUs",
		   "time/run", "total", "$/1M tok", "P10 - P90", "P(win)", "goodput");
	for (int i = 0; i < r->noptions; i++) {
		const pp_cost_option *o = &r->options[i];
		char gpus[128], g[96], rng[80], pm[24], win[16];
		bool ft = strcmp(o->method, "full") != 0 && o->kind != PP_OPT_API;
		snprintf(gpus, sizeof(gpus), "%s%s%s", pp_cost_gpus_text(o, g, sizeof(g)), ft ? " " : "",
			 ft ? o->method : "");
		pp_fmt_usd_range(o->p10_usd, o->p90_usd, " - ", rng, sizeof(rng));
		if (isfinite(o->usd_per_million_tokens))
			snprintf(pm, sizeof(pm), "%.3g", o->usd_per_million_tokens);
		else
			snprintf(pm, sizeof(pm), "-");
		if (isfinite(o->p_cheapest))
			snprintf(win, sizeof(win), "%.0f%%", 100 * o->p_cheapest);
		else
			snprintf(win, sizeof(win), "-");
		pp_sb_addf(sb, "%-22.22s %-6s %-24.24s %10s %10s %9s %21s %6s %6.1f%%%s\n", o->name,
			   pp_option_kind_names[o->kind], gpus, pp_fmt_duration(o->time_to_train_s, c, sizeof(c)),
			   pp_fmt_usd(o->usd_total, d, sizeof(d)), pm, rng, win,
			   isfinite(o->goodput) ? 100 * o->goodput : 100.0,
			   i == r->recommended ? (r->risked >= 0 ? "  <- cheapest obtainable"
							      : "  <- cheapest")
			   : i == r->risked ? "  (cheaper, may not be obtainable)"
			   : o->feasible ? "" : "  (cannot)");
	}
	bool banded = false;
	for (int i = 0; i < r->noptions; i++)
		banded |= r->options[i].band.on;
	if (banded) {
		pp_sb_adds(sb, "\nStep time, 80% interval (the Monte Carlo draws each option's step from "
			   "it):\n");
		const pp_band *last = NULL;
		for (int i = 0; i < r->noptions; i++) {
			const pp_cost_option *o = &r->options[i];
			if (!o->band.on)
				continue;
			if (last && last->near == o->band.near && last->n == o->band.n &&
			    last->f_lo == o->band.f_lo && last->f_hi == o->band.f_hi) {
				pp_sb_addf(sb, "  %-20.20s %s to %s, the same runs as above\n", o->name,
					   pp_fmt_duration(o->band.lo_s, a, sizeof(a)),
					   pp_fmt_duration(o->band.hi_s, b, sizeof(b)));
				continue;
			}
			char pre[64];
			snprintf(pre, sizeof(pre), "  %-20.20s ", o->name);
			pp_band_text(&o->band, pre, sb);
			pp_sb_adds(sb, "\n");
			last = &o->band;
		}
	}
	serving_text(r, sb);
	pp_sb_adds(sb, "\nFull cost by component (the stack), amortized and marginal views:\n");
	pp_sb_addf(sb, "%-22s", "option");
	for (int k = 0; k < PP_CC_COUNT; k++)
		pp_sb_addf(sb, " %9.9s", pp_cost_comp_names[k]);
	pp_sb_addf(sb, " %10s %10s\n", "amortized", "marginal");
	for (int i = 0; i < r->noptions; i++) {
		const pp_cost_option *o = &r->options[i];
		pp_sb_addf(sb, "%-22.22s", o->name);
		for (int k = 0; k < PP_CC_COUNT; k++)
			pp_sb_addf(sb, " %9s", o->components[k] != 0 ? pp_fmt_usd(o->components[k], a, sizeof(a)) : "-");
		pp_sb_addf(sb, " %10s %10s\n", pp_fmt_usd(o->usd_amortized, a, sizeof(a)),
			   pp_fmt_usd(o->usd_marginal, b, sizeof(b)));
	}
	bool any = false;
	for (int i = 0; i < r->noptions; i++) {
		const pp_cost_fin *f = &r->options[i].fin;
		if (!f->valid)
			continue;
		if (!any)
			pp_sb_adds(sb, "\nBuild vs rent (cash flows by month, against the cheapest rented cluster):\n");
		any = true;
		pp_sb_addf(sb, "  %s vs %s: capex %s, residual %s, NPV of building %s at %.0f%%/year, %s per "
			   "used GPU-hour at %.0f%% utilisation\n", r->options[i].name, f->versus,
			   pp_fmt_usd(f->capex_usd, a, sizeof(a)), pp_fmt_usd(f->residual_usd, b, sizeof(b)),
			   pp_fmt_usd(f->npv_usd, c, sizeof(c)), 100 * f->discount_rate,
			   pp_fmt_usd(f->usd_per_gpu_hour_used, d, sizeof(d)), 100 * f->utilization);
		/* the three figures that may be undefined, spelled out */
		pp_sb_addf(sb, "    IRR %s; payback %s; crossover month %s; break-even utilisation %s\n",
			   isfinite(f->irr) ? (snprintf(a, sizeof(a), "%.1f%%", 100 * f->irr), a) : "none",
			   isfinite(f->payback_months) ? (snprintf(b, sizeof(b), "%.1f months", f->payback_months), b)
						       : "never",
			   isfinite(f->crossover_month) ? (snprintf(c, sizeof(c), "%.0f", f->crossover_month), c)
							: "never",
			   isfinite(f->breakeven_utilization)
				   ? (snprintf(d, sizeof(d), "%.0f%%", 100 * f->breakeven_utilization), d)
				   : "above 100% (never)");
	}
	if (r->ntornado > 0) {
		pp_sb_addf(sb, "\nSensitivity of %s (one input at a time, P10/P90 or range):\n",
			   r->recommended >= 0 ? r->options[r->recommended].name : "-");
		for (int i = 0; i < r->ntornado; i++) {
			const pp_tornado_row *t = &r->tornado[i];
			pp_sb_addf(sb, "  %-34.34s %10.4g .. %-10.4g -> %10s .. %-10s", t->driver, t->low_input,
				   t->high_input, pp_fmt_usd(t->low_usd, a, sizeof(a)), pp_fmt_usd(t->high_usd, b, sizeof(b)));
			if (isfinite(t->low_margin_usd))
				pp_sb_addf(sb, " lead over runner-up %s .. %s", pp_fmt_usd(t->low_margin_usd, c, sizeof(c)),
					   pp_fmt_usd(t->high_margin_usd, d, sizeof(d)));
			pp_sb_adds(sb, "\n");
		}
	}
	pp_sb_addf(sb, "\nRecommendation: %s\n", r->recommendation);
	if (r->utilization_from[0])
		pp_sb_addf(sb, "Utilisation: %s\n", r->utilization_from);
	if (r->nwarnings) {
		pp_sb_adds(sb, "\nWarnings:\n");
		for (int i = 0; i < r->nwarnings; i++)
			pp_sb_addf(sb, "  - %s\n", r->warnings[i]);
	}
	int est = 0;
	for (int i = 0; i < r->nsources; i++)
		est += r->sources[i].estimate;
	pp_sb_addf(sb, "\n%d figures used (%d estimates); --json lists each with its source and date.\n",
		   r->nsources, est);
	pp_sb_addf(sb, "Computed in %.2f s (Monte Carlo and tornado %.2f s).\n", r->elapsed_s,
		   r->mc_elapsed_s);
}

void pp_cost_weighed_text(const pp_cost_result *w, pp_sb *out)
{
	char g[96], t[32], u[32], rg[64];
	pp_sb_addf(out, "\nPriced every way (podplan cost's engine: goodput, lead time, capex and "
		   "financing, lower tiers):\n");
	pp_sb_addf(out, "  %-28s %-6s %-18s %14s %10s %21s  %s\n", "option", "kind", "GPUs",
		   "time to result", "total", "P10 - P90", "verdict");
	for (int i = 0; i < w->noptions; i++) {
		const pp_cost_option *o = &w->options[i];
		double tr = o->time_to_train_s + o->lead_time_s;
		const char *v = i == w->recommended ? "ANSWER"
				: !o->feasible ? "cannot"
				: !o->obtainable ? "may not be obtainable"
				: o->meets_target ? "meets" : "misses";
		pp_sb_addf(out, "  %-28.28s %-6s %-18.18s %14s %10s %21s  %s\n", o->name,
			   pp_option_kind_names[o->kind], pp_cost_gpus_text(o, g, sizeof(g)),
			   pp_fmt_duration(tr, t, sizeof(t)),
			   o->feasible ? pp_fmt_usd(o->usd_total, u, sizeof(u)) : "-",
			   pp_fmt_usd_range(o->p10_usd, o->p90_usd, " - ", rg, sizeof(rg)), v);
	}
	pp_sb_addf(out, "  Monte Carlo %d draws, seed %lu; prices as of %s ('podplan cost' on a "
		   "scenario with these options gives every figure and its source).\n", w->draws,
		   w->seed, w->as_of);
}
