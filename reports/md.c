/*
 * md.c - the report's summary.md: the question, the answer, warnings, the
 * options and the figures behind them, for pasting into a ticket or a
 * review document. User text is escaped for Markdown and for the HTML that
 * Markdown renderers pass through (a scenario named <script> stays text).
 */
#include "report.h"
#include "core/fmt.h"
#include "cost/costout.h"

#include <math.h>
#include <string.h>

/* Markdown-safe text: HTML specials as entities, Markdown punctuation
 * backslash-escaped, line breaks as spaces (table cells stay one line). */
static void md(pp_sb *o, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': pp_sb_adds(o, "&lt;"); break;
		case '>': pp_sb_adds(o, "&gt;"); break;
		case '&': pp_sb_adds(o, "&amp;"); break;
		case '\n':
		case '\r': pp_sb_adds(o, " "); break;
		case '\\': case '`': case '*': case '_': case '[': case ']': case '|': case '#':
		case '!':
			pp_sb_addf(o, "\\%c", *s);
			break;
		default:
			pp_sb_add(o, s, 1);
		}
	}
}



/* An inference work: each option's serving replica, as index.html's
 * serving table. */
static void serving_md(pp_sb *o, const pp_cost_result *c)
{
	const pp_cost_inference *f = &c->inference;
	if (!f->present)
		return;
	char a[48], b[48], d[96], slo[160];
	pp_sb_addf(o, "## Serving\n\nSLO: %s; the busiest hour is %.2gx the average.\n\n",
		   pp_cost_fmt_slo(f, slo, sizeof(slo)), f->peak_to_average);
	pp_sb_adds(o, "| Option | Serving replica | Max rate at SLO | Tokens/s in / out | TTFT / TPOT | "
		      "KV cache | Replicas needed | $/1M in / out |\n|---|---|--:|--:|--:|--:|--:|--:|\n");
	for (int i = 0; i < c->noptions; i++) {
		const pp_cost_option *x = &c->options[i];
		const pp_cost_serving *v = &x->serving;
		pp_sb_adds(o, "| ");
		md(o, x->name);
		pp_sb_adds(o, " | ");
		if (x->kind == PP_OPT_API) {
			pp_sb_adds(o, "hosted API | - | - | - | - | -");
		} else if (!v->simulated) {
			snprintf(d, sizeof(d), "%d x %s", x->num_gpus, x->gpu);
			md(o, d);
			pp_sb_adds(o, " | - | - | - | - | -");
		} else {
			snprintf(d, sizeof(d), "TP %d x PP %d on %s", v->tp, v->pp, x->gpu);
			md(o, d);
			if (x->feasible)
				pp_sb_addf(o, " | %.3g req/s | %s / %s | %s / %s", v->max_rate_rps,
					   pp_fmt_count(v->input_tokens_per_s, a, sizeof(a)),
					   pp_fmt_count(v->output_tokens_per_s, b, sizeof(b)),
					   pp_fmt_span(v->at_max.ttft_s, d, sizeof(d)),
					   pp_fmt_span(v->at_max.tpot_s, slo, sizeof(slo)));
			else
				pp_sb_adds(o, " | - | - | -");
			pp_sb_addf(o, " | %s tokens (%.1f x max_model_len)",
				   pp_fmt_count((double)v->kv_tokens, a, sizeof(a)), v->max_concurrency);
			if (x->feasible)
				pp_sb_addf(o, " | %d in %.0f x %d GPUs", v->replicas_needed,
					   fmax(1, x->replicas), x->num_gpus);
			else
				pp_sb_adds(o, " | -");
		}
		pp_sb_addf(o, " | %s / %s |\n", pp_fmt_unit_price(x->usd_per_million_input_tokens, a, sizeof(a)),
			   pp_fmt_unit_price(x->usd_per_million_output_tokens, b, sizeof(b)));
	}
	pp_sb_adds(o, "\nserving.csv has every figure; serving_curve.csv the throughput-latency "
		      "curve of each replica.\n\n");
}

static void cost_md(pp_sb *o, const pp_report *r)
{
	const pp_cost_result *c = &r->cost;
	char a[48], b[48], d[48];
	pp_sb_adds(o, "## Options\n\n| Option | What | Time to result | Total cost | P10 - P90 | "
		      "$/1M tokens | Cheapest in | Goodput |\n|---|---|--:|--:|--:|--:|--:|--:|\n");
	for (int i = 0; i < c->noptions; i++) {
		const pp_cost_option *x = &c->options[i];
		pp_sb_adds(o, "| ");
		if (i == c->recommended)
			pp_sb_adds(o, "**");
		md(o, x->name);
		if (i == c->recommended)
			pp_sb_adds(o, c->risked >= 0 ? "** (cheapest obtainable)" : "** (cheapest)");
		else if (x->feasible && !x->obtainable)
			pp_sb_adds(o, " (may not be obtainable)");
		pp_sb_adds(o, " | ");
		if (!x->feasible) {
			pp_sb_adds(o, "cannot do the work: ");
			md(o, x->infeasible_why);
			pp_sb_adds(o, " | - | - | - | - | - | - |\n");
			continue;
		}
		md(o, x->label);
		pp_sb_addf(o, " | %s | %s | ", pp_fmt_span(pp_report_time_to_result(x), a, sizeof(a)),
			   pp_fmt_usd(x->usd_total, b, sizeof(b)));
		pp_sb_addf(o, "%s | ", pp_fmt_usd_range(x->p10_usd, x->p90_usd, " - ", a, sizeof(a)));
		if (isfinite(x->usd_per_million_tokens))
			pp_sb_addf(o, "$%.3g", x->usd_per_million_tokens);
		else
			pp_sb_adds(o, "-");
		pp_sb_addf(o, " | %s | ", pp_fmt_pct(x->p_cheapest, 0, d, sizeof(d)));
		if (isfinite(x->goodput))
			pp_sb_addf(o, "%.1f%%", 100 * x->goodput);
		else
			pp_sb_adds(o, "-");
		pp_sb_adds(o, " |\n");
	}
	pp_sb_addf(o, "\nFull cost over %.1f months (%s); prices as of %s; Monte Carlo %d draws, seed "
		      "%lu.\n\n", c->horizon_months, c->work, c->as_of, c->draws, c->seed);
	serving_md(o, c);
	bool any = false;
	for (int i = 0; i < c->noptions; i++) {
		const pp_cost_fin *f = &c->options[i].fin;
		if (!f->valid)
			continue;
		if (!any)
			pp_sb_adds(o, "## Build versus rent\n\n| Owned option | Against | Capex | NPV of "
				      "building | IRR | Payback | Crossover | Break-even utilisation |\n"
				      "|---|---|--:|--:|--:|--:|--:|--:|\n");
		any = true;
		pp_sb_adds(o, "| ");
		md(o, c->options[i].name);
		pp_sb_adds(o, " | ");
		md(o, f->versus);
		pp_sb_addf(o, " | %s | %s | ", pp_fmt_usd(f->capex_usd, a, sizeof(a)),
			   pp_fmt_usd(f->npv_usd, b, sizeof(b)));
		if (isfinite(f->irr))
			pp_sb_addf(o, "%.1f%%", 100 * f->irr);
		else
			pp_sb_adds(o, "none");
		if (isfinite(f->payback_months))
			pp_sb_addf(o, " | %.1f months", f->payback_months);
		else
			pp_sb_adds(o, " | never");
		if (isfinite(f->crossover_month))
			pp_sb_addf(o, " | month %.0f", f->crossover_month);
		else
			pp_sb_adds(o, " | never");
		pp_sb_addf(o, " | %s |\n", isfinite(f->breakeven_utilization)
						   ? pp_fmt_pct(f->breakeven_utilization, 0, d, sizeof(d)) : "above 100%");
	}
	if (any)
		pp_sb_adds(o, "\n");
	if (c->utilization_from[0]) {
		/* where the build options' utilisation came from (the page's
		 * "Cluster simulation" section draws it) */
		pp_sb_adds(o, "Utilisation: ");
		md(o, c->utilization_from);
		pp_sb_adds(o, ". Charts: the page's cluster section; figures: cluster_timeline.csv, "
			      "cluster_queue_cdf.csv.\n\n");
	}
	if (c->ntornado > 0 && c->recommended >= 0) {
		pp_sb_adds(o, "## Sensitivity\n\nThe full cost of ");
		md(o, c->options[c->recommended].name);
		pp_sb_adds(o, " with one input at a time at its low and high end (flips: another option "
			      "becomes cheaper).\n\n| Input | Low .. high | Cost at low | Cost at high |\n"
			      "|---|--:|--:|--:|\n");
		for (int i = 0; i < c->ntornado; i++) {
			const pp_tornado_row *t = &c->tornado[i];
			pp_sb_adds(o, "| ");
			md(o, t->driver);
			pp_sb_addf(o, " | %.3g .. %.3g ", t->low_input, t->high_input);
			md(o, t->unit);
			pp_sb_addf(o, " | %s%s | %s%s |\n", pp_fmt_usd(t->low_usd, a, sizeof(a)),
				   isfinite(t->low_margin_usd) && t->low_margin_usd < 0 ? " (flips)" : "",
				   pp_fmt_usd(t->high_usd, b, sizeof(b)),
				   isfinite(t->high_margin_usd) && t->high_margin_usd < 0 ? " (flips)" : "");
		}
		pp_sb_adds(o, "\n");
	}
	pp_sb_adds(o, "## Step time per option\n\n| Option | Step time | Compute | Exposed comm | "
		      "Bubble | Other | MFU |\n|---|--:|--:|--:|--:|--:|--:|\n");
	for (int i = 0; i < c->noptions; i++) {
		const pp_cost_option *x = &c->options[i];
		if (!isfinite(x->step_time_s))
			continue;
		double g[PP_BD_GROUPS];
		pp_breakdown_groups(&x->breakdown, g);
		char e[48], f2[48], mfu[24];
		pp_sb_adds(o, "| ");
		md(o, x->name);
		pp_sb_addf(o, " | %s | %s | %s | %s | %s | %s |\n", pp_fmt_span(x->step_time_s, a, sizeof(a)),
			   pp_fmt_span(g[PP_BD_COMPUTE], b, sizeof(b)),
			   pp_fmt_span(g[PP_BD_COMM], d, sizeof(d)),
			   pp_fmt_span(g[PP_BD_BUBBLE], e, sizeof(e)),
			   pp_fmt_span(g[PP_BD_OTHER], f2, sizeof(f2)),
			   isfinite(x->mfu) ? (snprintf(mfu, sizeof(mfu), "%.1f%%", 100 * x->mfu), mfu) : "-");
	}
	pp_sb_adds(o, "\nStep time, 80% interval (the Monte Carlo draws each option's step from it):\n\n");
	for (int i = 0; i < c->noptions; i++) {
		const pp_cost_option *x = &c->options[i];
		if (!x->band.on)
			continue;
		pp_sb t = {0};
		pp_band_text(&x->band, "", &t);
		pp_sb_adds(o, "- ");
		md(o, x->name);
		pp_sb_adds(o, ": ");
		md(o, t.buf);
		pp_sb_adds(o, "\n");
		pp_sb_release(&t);
	}
	int est = 0;
	for (int i = 0; i < c->nsources; i++)
		est += c->sources[i].estimate;
	pp_sb_addf(o, "\n## Assumptions\n\n%d figures used (%d estimates), each with its source and "
		      "date in sources.csv and index.html; %d hardware parameters with their origin in "
		      "parameters.csv.\n", c->nsources, est, r->hw.norigins);
}

static void pred_md(pp_sb *o, const pp_report *r)
{
	const pp_result *p = &r->pred;
	char a[48], b[48];
	double parts[PP_BD_COUNT];
	pp_breakdown_values(&p->breakdown, parts);
	pp_sb_addf(o, "## Step time\n\n| Part | Time | Share |\n|---|--:|--:|\n| step | %s | 100%% |\n",
		   pp_fmt_span(p->step_time_s, a, sizeof(a)));
	for (int k = 0; k < PP_BD_COUNT; k++)
		pp_sb_addf(o, "| %s | %s | %.1f%% |\n", pp_breakdown_fields[k].label,
			   pp_fmt_span(parts[k], a, sizeof(a)),
			   p->step_time_s > 0 ? 100 * parts[k] / p->step_time_s : 0);
	pp_sb t = {0};
	pp_band_text(&r->band, "", &t);
	pp_sb_adds(o, "\nUncertainty: ");
	md(o, t.buf);
	pp_sb_adds(o, "\n");
	pp_sb_release(&t);
	pp_sb_addf(o, "\n## Memory per GPU\n\n%s of %s on pipeline stage %d: %s.\n",
		   pp_fmt_bytes(p->memory.total_bytes, a, sizeof(a)),
		   pp_fmt_bytes(p->memory.capacity_bytes, b, sizeof(b)), p->memory.worst_stage,
		   p->memory.fits ? "fits" : "does NOT fit");
	pp_sb_addf(o, "\n## Assumptions\n\n%d hardware parameters with their origin in "
		      "parameters.csv and index.html.\n", r->hw.norigins);
}

void pp_report_md(const pp_report *r, pp_sb *o)
{
	const pp_scenario *s = r->s;
	pp_sb_adds(o, "# ");
	md(o, s->name);
	pp_sb_adds(o, "\n\npodplan " PP_VERSION " report, ");
	md(o, r->generated);
	if (r->run_id > 0)
		pp_sb_addf(o, ", run %lld", (long long)r->run_id);
	pp_sb_adds(o, ", scenario hash ");
	md(o, s->hash);
	pp_sb_adds(o, ".\n\n**Question:** ");
	md(o, s->description[0] ? s->description : r->have_cost ? r->cost.work : s->name);
	pp_sb_adds(o, "\n\n**Answer:** ");
	pp_sb h = {0};
	pp_report_headline(r, &h);
	md(o, h.buf ? h.buf : "");
	pp_sb_release(&h);
	pp_sb_adds(o, "\n\n");
	if (r->have_cost && r->cost.recommendation[0]) {
		md(o, r->cost.recommendation);
		pp_sb_adds(o, "\n\n");
	}
	pp_sb_addf(o, "## Warnings\n\n");
	if (r->nwarnings == 0)
		pp_sb_adds(o, "None.\n");
	for (int i = 0; i < r->nwarnings; i++) {
		pp_sb_adds(o, "- ");
		md(o, r->warnings[i]);
		pp_sb_adds(o, "\n");
	}
	pp_sb_adds(o, "\n");
	if (r->have_cost)
		cost_md(o, r);
	else if (r->have_pred)
		pred_md(o, r);
	pp_sb_adds(o, "\n## Calibration\n\n");
	md(o, r->calib_note);
	pp_sb_adds(o, "\n");
	for (int i = 0; i < r->nverdict; i++) {
		const pp_report_verdict *v = &r->verdict[i];
		pp_sb_addf(o, "- run %lld: ", (long long)v->run_id);
		md(o, v->check);
		pp_sb_addf(o, " %s (%.2f of expected)", v->verdict, v->ratio);
		if (v->cause[0]) {
			pp_sb_adds(o, ": ");
			md(o, v->cause);
		}
		pp_sb_adds(o, "\n");
	}
	pp_sb_adds(o, "\n## Files\n\nindex.html (the full report, charts and sources), this summary, "
		      "and CSV files with every number shown.\n");
}
