/*
 * costout.c - the three output formats of a pp_cost_result (text, JSON,
 * CSV), declared in cost.h; `podplan cost` and the reports print them.
 */
#include "cost/cost.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
/* ---- JSON ---- */

static void jnum(pp_sb *sb, const char *key, double v, bool comma)
{
	if (key)
		pp_sb_addf(sb, "\"%s\": ", key);
	if (isfinite(v))
		pp_sb_addf(sb, "%.10g", v);
	else
		pp_sb_adds(sb, "null");
	if (comma)
		pp_sb_adds(sb, ", ");
}

static void jstr(pp_sb *sb, const char *key, const char *v, bool comma)
{
	pp_sb_addf(sb, "\"%s\": ", key);
	pp_sb_add_json(sb, v);
	if (comma)
		pp_sb_adds(sb, ", ");
}

void pp_cost_to_json(const pp_cost_result *r, pp_sb *sb)
{
	pp_sb_adds(sb, "{");
	jstr(sb, "scenario", r->scenario, true);
	jstr(sb, "question", r->question, true);
	jstr(sb, "work", r->work, true);
	jnum(sb, "tokens_total", r->tokens_total, true);
	jnum(sb, "runs", r->runs, true);
	jnum(sb, "horizon_months", r->horizon_months, true);
	jstr(sb, "as_of", r->as_of, true);
	pp_sb_addf(sb, "\"seed\": %lu, \"draws\": %d, ", r->seed, r->draws);
	pp_sb_adds(sb, "\"options\": [");
	for (int i = 0; i < r->noptions; i++) {
		const pp_cost_option *o = &r->options[i];
		pp_sb_adds(sb, i ? ",\n  {" : "\n  {");
		jstr(sb, "name", o->name, true);
		jstr(sb, "kind", pp_option_kind_names[o->kind], true);
		jstr(sb, "provider", o->provider, true);
		jstr(sb, "tier", o->tier, true);
		jstr(sb, "label", o->label, true);
		jstr(sb, "gpu", o->gpu, true);
		pp_sb_addf(sb, "\"num_gpus\": %d, ", o->num_gpus);
		jstr(sb, "fabric", o->fabric, true);
		jstr(sb, "method", o->method, true);
		pp_sb_addf(sb, "\"feasible\": %s, ", o->feasible ? "true" : "false");
		jstr(sb, "infeasible_why", o->infeasible_why, true);
		jnum(sb, "usd_total", o->usd_total, true);
		jnum(sb, "usd_amortized", o->usd_amortized, true);
		jnum(sb, "usd_marginal", o->usd_marginal, true);
		jnum(sb, "usd_per_run", o->usd_per_run, true);
		jnum(sb, "usd_per_million_tokens", o->usd_per_million_tokens, true);
		jnum(sb, "usd_per_million_tokens_marginal", o->usd_per_million_tokens_marginal, true);
		jnum(sb, "usd_per_gpu_hour_used", o->usd_per_gpu_hour_used, true);
		jnum(sb, "usd_lost_work", o->usd_lost_work, true);
		jnum(sb, "time_to_train_s", o->time_to_train_s, true);
		jnum(sb, "lead_time_s", o->lead_time_s, true);
		jnum(sb, "step_time_s", o->step_time_s, true);
		jnum(sb, "tokens_per_s", o->tokens_per_s, true);
		jnum(sb, "tokens_per_s_effective", o->tokens_per_s_effective, true);
		jnum(sb, "mfu", o->mfu, true);
		pp_sb_adds(sb, "\"breakdown\": {");
		jnum(sb, "compute_s", o->breakdown.compute_s, true);
		jnum(sb, "tp_comm_exposed_s", o->breakdown.tp_comm_exposed_s, true);
		jnum(sb, "dp_comm_exposed_s", o->breakdown.dp_comm_exposed_s, true);
		jnum(sb, "pp_bubble_s", o->breakdown.pp_bubble_s, true);
		jnum(sb, "pp_comm_exposed_s", o->breakdown.pp_comm_exposed_s, true);
		jnum(sb, "optimizer_s", o->breakdown.optimizer_s, true);
		jnum(sb, "data_s", o->breakdown.data_s, false);
		pp_sb_adds(sb, "}, ");
		jnum(sb, "goodput", o->goodput, true);
		jnum(sb, "checkpoint_interval_s", o->checkpoint_interval_s, true);
		jnum(sb, "memory_per_gpu_bytes", o->memory_per_gpu_bytes, true);
		jnum(sb, "memory_capacity_bytes", o->memory_capacity_bytes, true);
		jnum(sb, "gpu_hours_used", o->gpu_hours_used, true);
		jnum(sb, "replicas", o->replicas, true);
		pp_sb_addf(sb, "\"network\": {\"switches\": %d, \"links\": %d, \"tiers\": %d}, ",
			   o->net_switches, o->net_links, o->net_tiers);
		jnum(sb, "storage_tb", o->storage_tb, true);
		jnum(sb, "p10_usd", o->p10_usd, true);
		jnum(sb, "p50_usd", o->p50_usd, true);
		jnum(sb, "p90_usd", o->p90_usd, true);
		jnum(sb, "mean_usd", o->mean_usd, true);
		jnum(sb, "p_cheapest", o->p_cheapest, true);
		pp_sb_adds(sb, "\"components\": {");
		for (int k = 0; k < PP_CC_COUNT; k++)
			jnum(sb, pp_cost_comp_names[k], o->components[k], k + 1 < PP_CC_COUNT);
		pp_sb_adds(sb, "}, \"cumulative_usd_by_month\": [");
		for (int m = 0; o->cum_usd && m <= o->nmonths; m++)
			jnum(sb, NULL, o->cum_usd[m], m < o->nmonths);
		pp_sb_adds(sb, "], \"histogram\": ");
		int counts[40];
		double lo = 0, hi = 0;
		if (pp_cost_histogram(o, 40, &lo, &hi, counts) > 0) {
			pp_sb_adds(sb, "{");
			jnum(sb, "lo_usd", lo, true);
			jnum(sb, "hi_usd", hi, true);
			pp_sb_adds(sb, "\"counts\": [");
			for (int b = 0; b < 40; b++)
				pp_sb_addf(sb, "%d%s", counts[b], b < 39 ? ", " : "");
			pp_sb_adds(sb, "]}");
		} else {
			pp_sb_adds(sb, "null");
		}
		pp_sb_adds(sb, ", \"finance\": ");
		if (o->fin.valid) {
			const pp_cost_fin *f = &o->fin;
			pp_sb_adds(sb, "{");
			jstr(sb, "versus", f->versus, true);
			jnum(sb, "capex_usd", f->capex_usd, true);
			jnum(sb, "residual_usd", f->residual_usd, true);
			jnum(sb, "discount_rate", f->discount_rate, true);
			jnum(sb, "npv_usd", f->npv_usd, true);
			jnum(sb, "irr", f->irr, true);
			jnum(sb, "payback_months", f->payback_months, true);
			jnum(sb, "discounted_payback_months", f->discounted_payback_months, true);
			jnum(sb, "crossover_month", f->crossover_month, true);
			jnum(sb, "utilization", f->utilization, true);
			jnum(sb, "usd_per_gpu_hour_used", f->usd_per_gpu_hour_used, true);
			jnum(sb, "breakeven_utilization", f->breakeven_utilization, false);
			pp_sb_adds(sb, "}");
		} else {
			pp_sb_adds(sb, "null");
		}
		pp_sb_adds(sb, "}");
	}
	pp_sb_adds(sb, "],\n");
	pp_sb_addf(sb, "\"recommended\": ");
	if (r->recommended >= 0)
		pp_sb_add_json(sb, r->options[r->recommended].name);
	else
		pp_sb_adds(sb, "null");
	pp_sb_adds(sb, ", \"runner_up\": ");
	if (r->runner_up >= 0)
		pp_sb_add_json(sb, r->options[r->runner_up].name);
	else
		pp_sb_adds(sb, "null");
	pp_sb_adds(sb, ",\n\"recommendation\": ");
	pp_sb_add_json(sb, r->recommendation);
	pp_sb_adds(sb, ",\n\"tornado\": [");
	for (int i = 0; i < r->ntornado; i++) {
		const pp_tornado_row *t = &r->tornado[i];
		pp_sb_adds(sb, i ? ", {" : "{");
		jstr(sb, "driver", t->driver, true);
		jstr(sb, "unit", t->unit, true);
		jnum(sb, "base_input", t->base_input, true);
		jnum(sb, "low_input", t->low_input, true);
		jnum(sb, "high_input", t->high_input, true);
		jnum(sb, "low_usd", t->low_usd, true);
		jnum(sb, "high_usd", t->high_usd, true);
		jnum(sb, "low_margin_usd", t->low_margin_usd, true);
		jnum(sb, "high_margin_usd", t->high_margin_usd, true);
		jnum(sb, "swing_usd", t->swing_usd, false);
		pp_sb_adds(sb, "}");
	}
	pp_sb_adds(sb, "],\n\"sources\": [");
	for (int i = 0; i < r->nsources; i++) {
		const pp_cost_source *s = &r->sources[i];
		pp_sb_adds(sb, i ? ",\n  {" : "\n  {");
		jstr(sb, "item", s->item, true);
		jnum(sb, "value", s->value, true);
		jstr(sb, "unit", s->unit, true);
		jstr(sb, "source", s->source, true);
		jstr(sb, "url", s->url, true);
		jstr(sb, "date", s->date, true);
		pp_sb_addf(sb, "\"estimate\": %s, ", s->estimate ? "true" : "false");
		jnum(sb, "age_months", s->age_months, false);
		pp_sb_adds(sb, "}");
	}
	pp_sb_adds(sb, "],\n\"warnings\": [");
	for (int i = 0; i < r->nwarnings; i++) {
		if (i)
			pp_sb_adds(sb, ", ");
		pp_sb_add_json(sb, r->warnings[i]);
	}
	pp_sb_adds(sb, "],\n");
	jnum(sb, "elapsed_s", r->elapsed_s, true);
	jnum(sb, "mc_elapsed_s", r->mc_elapsed_s, false);
	pp_sb_adds(sb, "}\n");
}

/* ---- CSV ---- */

static void cnum(pp_sb *sb, double v)
{
	pp_sb_adds(sb, ",");
	if (isfinite(v))
		pp_sb_addf(sb, "%.10g", v);
}

static void cstr(pp_sb *sb, const char *s)
{
	pp_sb_adds(sb, ",");
	pp_sb_add_csv(sb, s);
}

void pp_cost_to_csv(const pp_cost_result *r, pp_sb *sb)
{
	pp_sb_adds(sb, PP_COST_CSV_HEADER "\r\n");
	for (int i = 0; i < r->noptions; i++) {
		const pp_cost_option *o = &r->options[i];
		pp_sb_add_csv(sb, r->scenario);
		pp_sb_addf(sb, ",%lu,%d", r->seed, r->draws);
		cstr(sb, o->name);
		cstr(sb, pp_option_kind_names[o->kind]);
		cstr(sb, o->provider);
		cstr(sb, o->tier);
		cstr(sb, o->gpu);
		pp_sb_addf(sb, ",%d", o->num_gpus);
		cstr(sb, o->method);
		pp_sb_adds(sb, o->feasible ? ",true" : ",false");
		cnum(sb, o->usd_total);
		cnum(sb, o->usd_amortized);
		cnum(sb, o->usd_marginal);
		cnum(sb, o->usd_per_run);
		cnum(sb, o->usd_per_million_tokens);
		cnum(sb, o->usd_per_million_tokens_marginal);
		cnum(sb, o->usd_per_gpu_hour_used);
		cnum(sb, o->time_to_train_s);
		cnum(sb, o->gpu_hours_used);
		cnum(sb, o->goodput);
		cnum(sb, o->tokens_per_s);
		cnum(sb, o->p10_usd);
		cnum(sb, o->p50_usd);
		cnum(sb, o->p90_usd);
		cnum(sb, o->p_cheapest);
		for (int k = 0; k < PP_CC_COUNT; k++)
			cnum(sb, o->components[k]);
		const pp_cost_fin *f = &o->fin;
		cnum(sb, f->valid ? f->npv_usd : NAN);
		cnum(sb, f->valid ? f->irr : NAN);
		cnum(sb, f->valid ? f->payback_months : NAN);
		cnum(sb, f->valid ? f->crossover_month : NAN);
		cnum(sb, f->valid ? f->breakeven_utilization : NAN);
		pp_sb_adds(sb, i == r->recommended ? ",true\r\n" : ",false\r\n");
	}
}

/* ---- text ---- */

static const char *usd(double v, char *b, size_t n)
{
	if (!isfinite(v))
		return snprintf(b, n, "-"), b;
	return pp_fmt_usd(v, b, n);
}

static const char *dur(double s, char *b, size_t n)
{
	if (!isfinite(s))
		return snprintf(b, n, "-"), b;
	return pp_fmt_duration(s, b, n);
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
		char gpus[96], rng[80], pm[24];
		if (o->kind == PP_OPT_API)
			snprintf(gpus, sizeof(gpus), "(hosted)");
		else
			snprintf(gpus, sizeof(gpus), "%d x %s%s%s", o->num_gpus, o->gpu,
				 strcmp(o->method, "full") ? " " : "", strcmp(o->method, "full") ? o->method : "");
		snprintf(rng, sizeof(rng), "%s - %s", usd(o->p10_usd, a, sizeof(a)),
			 usd(o->p90_usd, b, sizeof(b)));
		if (isfinite(o->usd_per_million_tokens))
			snprintf(pm, sizeof(pm), "%.3g", o->usd_per_million_tokens);
		else
			snprintf(pm, sizeof(pm), "-");
		pp_sb_addf(sb, "%-22.22s %-6s %-24.24s %10s %10s %9s %21s %5.0f%% %6.1f%%%s\n", o->name,
			   pp_option_kind_names[o->kind], gpus, dur(o->time_to_train_s, c, sizeof(c)),
			   usd(o->usd_total, d, sizeof(d)), pm, rng, 100 * o->p_cheapest,
			   isfinite(o->goodput) ? 100 * o->goodput : 100.0,
			   i == r->recommended ? "  <- cheapest" : o->feasible ? "" : "  (cannot)");
	}
	pp_sb_adds(sb, "\nFull cost by component (the stack), amortized and marginal views:\n");
	pp_sb_addf(sb, "%-22s", "option");
	for (int k = 0; k < PP_CC_COUNT; k++)
		pp_sb_addf(sb, " %9.9s", pp_cost_comp_names[k]);
	pp_sb_addf(sb, " %10s %10s\n", "amortized", "marginal");
	for (int i = 0; i < r->noptions; i++) {
		const pp_cost_option *o = &r->options[i];
		pp_sb_addf(sb, "%-22.22s", o->name);
		for (int k = 0; k < PP_CC_COUNT; k++)
			pp_sb_addf(sb, " %9s", o->components[k] != 0 ? usd(o->components[k], a, sizeof(a)) : "-");
		pp_sb_addf(sb, " %10s %10s\n", usd(o->usd_amortized, a, sizeof(a)),
			   usd(o->usd_marginal, b, sizeof(b)));
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
			   usd(f->capex_usd, a, sizeof(a)), usd(f->residual_usd, b, sizeof(b)),
			   usd(f->npv_usd, c, sizeof(c)), 100 * f->discount_rate,
			   usd(f->usd_per_gpu_hour_used, d, sizeof(d)), 100 * f->utilization);
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
				   t->high_input, usd(t->low_usd, a, sizeof(a)), usd(t->high_usd, b, sizeof(b)));
			if (isfinite(t->low_margin_usd))
				pp_sb_addf(sb, " lead over runner-up %s .. %s", usd(t->low_margin_usd, c, sizeof(c)),
					   usd(t->high_margin_usd, d, sizeof(d)));
			pp_sb_adds(sb, "\n");
		}
	}
	pp_sb_addf(sb, "\nRecommendation: %s\n", r->recommendation);
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
