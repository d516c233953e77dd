/* charts.c - see charts.h. */
#include "charts.h"
#include "core/fmt.h"
#include "svg.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void figure_open(pp_sb *o, const char *id, const char *title, const char *how)
{
	pp_sb_addf(o, "<figure id=\"%s\"><figcaption><b>", id);
	pp_sb_add_html(o, title);
	pp_sb_adds(o, "</b>");
	if (how) {
		pp_sb_adds(o, "<span class=\"how\">");
		pp_sb_add_html(o, how);
		pp_sb_adds(o, "</span>");
	}
	pp_sb_adds(o, "</figcaption>\n");
}

static void figure_close(pp_sb *o)
{
	pp_sb_adds(o, "</figure>\n");
}

void pp_chart_figure_open(pp_sb *o, const char *id, const char *title, const char *how)
{
	figure_open(o, id, title, how);
}

void pp_chart_figure_close(pp_sb *o)
{
	figure_close(o);
}

void pp_chart_cost(pp_sb *o, const pp_report *r)
{
	const pp_cost_result *c = &r->cost;
	int n = c->noptions;
	const char **cat = pp_xcalloc((size_t)n + 1, sizeof(*cat));
	const char **note = pp_xcalloc((size_t)n + 1, sizeof(*note));
	char **endl = pp_xcalloc((size_t)n + 1, sizeof(*endl));
	char **notes = pp_xcalloc((size_t)n + 1, sizeof(*notes));
	double *v = pp_xcalloc((size_t)n * PP_CC_COUNT + 1, sizeof(*v));
	double *lo = pp_xcalloc((size_t)n + 1, sizeof(*lo)), *hi = pp_xcalloc((size_t)n + 1, sizeof(*hi));
	char a[48];
	for (int i = 0; i < n; i++) {
		const pp_cost_option *x = &c->options[i];
		cat[i] = x->name;
		for (int k = 0; k < PP_CC_COUNT; k++)
			v[i * PP_CC_COUNT + k] = x->feasible ? x->components[k] : NAN;
		lo[i] = x->feasible ? x->p10_usd : NAN;
		hi[i] = x->feasible ? x->p90_usd : NAN;
		endl[i] = pp_xstrdup(x->feasible ? pp_fmt_usd(x->usd_total, a, sizeof(a)) : "");
		if (!x->feasible) {
			size_t l = strlen(x->infeasible_why) + 32;
			notes[i] = pp_xmalloc(l);
			snprintf(notes[i], l, "cannot do the work: %s", x->infeasible_why);
		}
		note[i] = notes[i];
	}
	pp_svg_bars b = {n, PP_CC_COUNT, cat, pp_report_comp_words, pp_report_comp_colors, v, lo, hi,
			 "P10-P90 of the total", note, (const char *const *)endl, c->recommended};
	pp_svg_frame f = {"chart-cost", "Full cost per option, stacked by component",
			  "Horizontal stacked bars: one per option, the full cost over the horizon split "
			  "into its components; the whisker spans the Monte Carlo P10-P90 of the total.",
			  0, 0, PP_SVG_USD, PP_SVG_NUM, "full cost over the horizon (US dollars)", NULL};
	figure_open(o, "fig-cost", "Cost per option, by component",
		    "Where the money goes: GPU time, idle commitments, capex net of resale, power, "
		    "staff, API charges. The whisker is the P10-P90 range.");
	pp_svg_hbars(o, &f, &b);
	figure_close(o);
	for (int i = 0; i < n; i++) {
		free(endl[i]);
		free(notes[i]);
	}
	free(cat);
	free(note);
	free(endl);
	free(notes);
	free(v);
	free(lo);
	free(hi);
}

void pp_chart_tradeoff(pp_sb *o, const pp_report *r)
{
	const pp_cost_result *c = &r->cost;
	pp_svg_point *p = pp_xcalloc((size_t)c->noptions + 1, sizeof(*p));
	int n = 0;
	/* Serving has no training time: then the time that matters is when an
	 * option can start (the build lead time; renting and APIs start now). */
	bool any_time = false;
	for (int i = 0; i < c->noptions; i++)
		any_time |= c->options[i].feasible && isfinite(pp_report_time_to_result(&c->options[i]));
	for (int i = 0; i < c->noptions; i++) {
		const pp_cost_option *x = &c->options[i];
		if (!x->feasible)
			continue;
		double t = any_time ? pp_report_time_to_result(x)
				    : isfinite(x->lead_time_s) ? x->lead_time_s : 0;
		p[n++] = (pp_svg_point){t, x->usd_total, x->p10_usd, x->p90_usd, x->name,
					pp_report_option_color(i), i == c->recommended};
	}
	pp_svg_frame f = {"chart-tradeoff", "Cost against time to result, per option",
			  any_time ? "Scatter: x is the wall time until the work is done (lead time plus "
				     "training), y the full cost with its P10-P90 range."
				   : "Scatter: x is the time until an option can start (build lead time), y "
				     "the full cost with its P10-P90 range.",
			  0, 0, PP_SVG_SECONDS, PP_SVG_USD,
			  any_time ? "time to result, lead time + training" : "time until it can start",
			  "full cost (US dollars)"};
	figure_open(o, "fig-tradeoff", any_time ? "Cost versus time to result" : "Cost versus time to start",
		    any_time ? "Down and to the left is better. Time to result adds the build lead time "
			       "to the training wall time (with goodput)."
			     : "Down and to the left is better. Serving has no training time: the x axis "
			       "is the lead time before an option can serve (renting and APIs start at 0).");
	pp_svg_scatter(o, &f, p, n, c->recommended < 0 ? "No option can do the work."
				    : "No option has a training time (hosted APIs and serving are "
				      "priced per token): compare $ per 1M tokens in the table.");
	figure_close(o);
	free(p);
}

void pp_chart_cumulative(pp_sb *o, const pp_report *r)
{
	const pp_cost_result *c = &r->cost;
	pp_svg_series *s = pp_xcalloc((size_t)c->noptions + 1, sizeof(*s));
	double **xs = pp_xcalloc((size_t)c->noptions + 1, sizeof(*xs));
	pp_svg_marker *m = pp_xcalloc((size_t)c->noptions + 1, sizeof(*m));
	char **ml = pp_xcalloc((size_t)c->noptions + 1, sizeof(*ml));
	int ns = 0, nm = 0;
	for (int i = 0; i < c->noptions; i++) {
		const pp_cost_option *x = &c->options[i];
		if (!x->feasible || !x->cum_usd || x->nmonths <= 0)
			continue;
		xs[i] = pp_xcalloc((size_t)x->nmonths + 1, sizeof(double));
		for (int k = 0; k <= x->nmonths; k++)
			xs[i][k] = k;
		s[ns++] = (pp_svg_series){x->name, pp_report_option_color(i), x->nmonths + 1, xs[i],
					  x->cum_usd, i == c->recommended};
		if (x->fin.valid && isfinite(x->fin.crossover_month)) {
			ml[nm] = pp_xmalloc(200);
			snprintf(ml[nm], 200, "%s below %s from month %.0f", x->name, x->fin.versus,
				 x->fin.crossover_month);
			m[nm] = (pp_svg_marker){x->fin.crossover_month, ml[nm]};
			nm++;
		}
	}
	pp_svg_frame f = {"chart-cumulative", "Cumulative cost by month, per option",
			  "Lines: cash paid up to the end of each month (capex at month 0); a dashed "
			  "line marks the month an owned option's cumulative cost falls below renting.",
			  0, 0, PP_SVG_MONTHS, PP_SVG_USD, "month", "cumulative cost (US dollars)"};
	bool resale = false; /* an owned line that ends lower: the resale value returned */
	for (int i = 0; i < ns; i++)
		if (s[i].n >= 2 && s[i].y[s[i].n - 1] < s[i].y[s[i].n - 2])
			resale = true;
	char cap[400];
	snprintf(cap, sizeof(cap), "%s%s",
		 nm ? "Owning starts with the capex and grows slowly; renting starts at zero and grows "
		      "faster. The dashed line is the rent/build crossover."
		    : "Cash paid up to each month. No owned option's cumulative cost falls below renting "
		      "within the horizon (no crossover).",
		 resale ? " Owned lines drop in the last month: the hardware's resale value comes back." : "");
	figure_open(o, "fig-cumulative", "Cumulative cost over the months", cap);
	pp_svg_lines(o, &f, s, ns, m, nm, c->recommended < 0 ? "No option can do the work."
						    : "No option has a monthly cost schedule.");
	figure_close(o);
	for (int i = 0; i < c->noptions; i++)
		free(xs[i]);
	for (int i = 0; i < nm; i++)
		free(ml[i]);
	free(xs);
	free(ml);
	free(m);
	free(s);
}

void pp_chart_tornado(pp_sb *o, const pp_report *r)
{
	const pp_cost_result *c = &r->cost;
	pp_svg_trow *rows = pp_xcalloc((size_t)c->ntornado + 1, sizeof(*rows));
	char **ranges = pp_xcalloc((size_t)c->ntornado + 1, sizeof(*ranges));
	for (int i = 0; i < c->ntornado; i++) {
		const pp_tornado_row *t = &c->tornado[i];
		ranges[i] = pp_xmalloc(96);
		snprintf(ranges[i], 96, "%.3g .. %.3g %s", t->low_input, t->high_input, t->unit);
		rows[i] = (pp_svg_trow){t->driver, ranges[i], t->low_usd, t->high_usd,
					isfinite(t->low_margin_usd) && t->low_margin_usd < 0,
					isfinite(t->high_margin_usd) && t->high_margin_usd < 0};
	}
	const pp_cost_option *w = c->recommended >= 0 ? &c->options[c->recommended] : NULL;
	char base[120];
	snprintf(base, sizeof(base), "%s:", w ? w->name : "-");
	pp_svg_frame f = {"chart-tornado", "Sensitivity of the recommended option's cost",
			  "Tornado: each row moves one input from its low to its high value (P10/P90 or "
			  "range) with the others at base, and shows the recommended option's full cost.",
			  0, 0, PP_SVG_USD, PP_SVG_NUM, "full cost of the recommended option (US dollars)",
			  NULL};
	figure_open(o, "fig-tornado", "What moves the answer: one input at a time",
		    "Bars run from the base cost to the cost with the input at its low (blue) and high "
		    "(orange) end. A flag marks an end where another option becomes cheaper.");
	pp_svg_tornado(o, &f, w ? w->usd_total : NAN, base, rows, c->ntornado,
		       c->draws > 0 ? "No sensitivity rows: no option is feasible."
				    : "No sensitivity: Monte Carlo draws = 0 (run with --draws N).");
	figure_close(o);
	for (int i = 0; i < c->ntornado; i++)
		free(ranges[i]);
	free(ranges);
	free(rows);
}

#define NBINS 40

void pp_chart_distribution(pp_sb *o, const pp_report *r)
{
	const pp_cost_result *c = &r->cost;
	int pick[4], np = 0;
	if (c->recommended >= 0)
		pick[np++] = c->recommended;
	if (c->runner_up >= 0)
		pick[np++] = c->runner_up;
	for (int i = 0; i < c->noptions && np < 4; i++)
		if (i != c->recommended && i != c->runner_up && c->options[i].feasible &&
		    isfinite(c->options[i].p_cheapest) && c->options[i].p_cheapest >= 0.01)
			pick[np++] = i;
	double lo = INFINITY, hi = -INFINITY;
	int counts[NBINS];
	int used = 0;
	for (int k = 0; k < np; k++) {
		double l = 0, h = 0;
		if (pp_cost_histogram(&c->options[pick[k]], NBINS, &l, &h, counts) > 0) {
			lo = fmin(lo, l);
			hi = fmax(hi, h);
			pick[used++] = pick[k];
		}
	}
	np = used;
	pp_svg_hist hs[4];
	double share[4][NBINS];
	for (int k = 0; k < np; k++) {
		const pp_cost_option *x = &c->options[pick[k]];
		double l = lo, h = hi;
		pp_cost_histogram(x, NBINS, &l, &h, counts);
		for (int b = 0; b < NBINS; b++)
			share[k][b] = x->nsamples > 0 ? (double)counts[b] / x->nsamples : 0;
		hs[k] = (pp_svg_hist){x->name, pp_report_option_color(pick[k]), share[k],
				      pick[k] == c->recommended};
	}
	pp_svg_marker m[2];
	char l10[160], l90[160], a[48];
	int nm = 0;
	if (np > 0 && c->recommended >= 0) {
		const pp_cost_option *w = &c->options[c->recommended];
		snprintf(l10, sizeof(l10), "P10 %s", pp_fmt_usd(w->p10_usd, a, sizeof(a)));
		snprintf(l90, sizeof(l90), "P90 %s", pp_fmt_usd(w->p90_usd, a, sizeof(a)));
		m[nm++] = (pp_svg_marker){w->p10_usd, l10};
		m[nm++] = (pp_svg_marker){w->p90_usd, l90};
	}
	char title[200];
	snprintf(title, sizeof(title), "Monte Carlo distribution of the full cost (%d draws, seed %lu)",
		 c->draws, c->seed);
	pp_svg_frame f = {"chart-distribution", title,
			  "Histograms of the full cost over the Monte Carlo draws for the recommended "
			  "option and its closest competitors, on common bins (P1 to P99).",
			  0, 0, PP_SVG_USD, PP_SVG_PCT, "full cost (US dollars)", "share of draws"};
	figure_open(o, "fig-distribution", "How sure is the answer: the cost distributions",
		    "Each draw varies prices, step-time error, failure rate, demand and electricity "
		    "together for every option. Overlap means the ranking can flip; the dashed lines "
		    "are the recommended option's P10 and P90.");
	pp_svg_histogram(o, &f, lo, hi, NBINS, hs, np, m, nm,
			 c->recommended < 0 ? "No option can do the work: no distribution."
			 : c->draws > 0 ? "No Monte Carlo samples to show."
					: "No Monte Carlo draws (run with --draws N to see the distribution).");
	figure_close(o);
}

/* The stacked bars' series: the breakdown's parts by their labels. */
static void bd_series(const char *out[PP_BD_COUNT])
{
	for (int k = 0; k < PP_BD_COUNT; k++)
		out[k] = pp_breakdown_fields[k].label;
}

void pp_chart_steptime_cost(pp_sb *o, const pp_report *r)
{
	const pp_cost_result *c = &r->cost;
	int n = c->noptions;
	const char **cat = pp_xcalloc((size_t)n + 1, sizeof(*cat));
	const char **note = pp_xcalloc((size_t)n + 1, sizeof(*note));
	char **endl = pp_xcalloc((size_t)n + 1, sizeof(*endl));
	double *v = pp_xcalloc((size_t)n * PP_BD_COUNT + 1, sizeof(*v));
	const char *series[PP_BD_COUNT];
	bd_series(series);
	char a[48];
	int nsim = 0;
	for (int i = 0; i < n; i++) {
		const pp_cost_option *x = &c->options[i];
		cat[i] = x->name;
		double parts[PP_BD_COUNT];
		pp_breakdown_values(&x->breakdown, parts);
		bool sim = isfinite(x->step_time_s) && x->step_time_s > 0;
		nsim += sim;
		for (int k = 0; k < PP_BD_COUNT; k++)
			v[i * PP_BD_COUNT + k] = sim ? parts[k] : NAN;
		if (sim) {
			endl[i] = pp_xmalloc(96);
			if (isfinite(x->mfu))
				snprintf(endl[i], 96, "%s, MFU %.0f%%", pp_fmt_span(x->step_time_s, a, sizeof(a)),
					 100 * x->mfu);
			else
				snprintf(endl[i], 96, "%s", pp_fmt_span(x->step_time_s, a, sizeof(a)));
		}
		note[i] = sim ? (x->feasible ? NULL : "does not fit")
			      : x->kind == PP_OPT_API ? "hosted API: nothing simulated"
						      : "serving: simulated by podplan serve, no training step";
	}
	pp_svg_bars b = {n, PP_BD_COUNT, cat, series, pp_report_bd_colors, v, NULL,
			 NULL, NULL, note, (const char *const *)endl, c->recommended};
	pp_svg_frame f = {"chart-steptime", "Step time per option, by part",
			  "Horizontal stacked bars: the simulated training step of each option split into "
			  "compute, exposed communication, pipeline bubble, optimizer and data loading.",
			  0, 0, PP_SVG_SECONDS, PP_SVG_NUM, "time per training step", NULL};
	figure_open(o, "fig-steptime", "Where a training step goes, per option",
		    nsim ? "Compute versus exposed communication, pipeline bubble and I/O on the "
			   "critical path of one step (before goodput)."
			 : "No option runs a simulated training step in this scenario.");
	pp_svg_hbars(o, &f, &b);
	figure_close(o);
	for (int i = 0; i < n; i++)
		free(endl[i]);
	free(cat);
	free(note);
	free(endl);
	free(v);
}

void pp_chart_steptime_pred(pp_sb *o, const pp_report *r)
{
	const pp_result *p = &r->pred;
	double parts[PP_BD_COUNT];
	pp_breakdown_values(&p->breakdown, parts);
	const char *series[PP_BD_COUNT];
	bd_series(series);
	char a[48], e[96];
	snprintf(e, sizeof(e), "%s, MFU %.0f%%", pp_fmt_span(p->step_time_s, a, sizeof(a)), 100 * p->mfu);
	const char *cat[1] = {r->s->name};
	const char *endl[1] = {e};
	pp_svg_bars b = {1, PP_BD_COUNT, cat, series, pp_report_bd_colors, parts, NULL,
			 NULL, NULL, NULL, endl, 0};
	pp_svg_frame f = {"chart-steptime", "Step time by part",
			  "A stacked bar: the simulated training step split into compute, exposed "
			  "communication, pipeline bubble, optimizer and data loading.",
			  0, 0, PP_SVG_SECONDS, PP_SVG_NUM, "time per training step", NULL};
	figure_open(o, "fig-steptime", "Where a training step goes",
		    "Critical path of one step of the slowest pipeline stage.");
	pp_svg_hbars(o, &f, &b);
	figure_close(o);
}

void pp_chart_memory(pp_sb *o, const pp_report *r)
{
	const pp_memory *m = &r->pred.memory;
	static const char *const ser[] = {"weights", "gradients", "optimizer state", "activations",
					  "temporary buffers", "fragmentation", "GPU memory"};
	static const char *const col[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
					  "#76b7b2", "#bab0ac", "#9aa5b1"};
	double v[14];
	for (int k = 0; k < 14; k++)
		v[k] = 0;
	v[0] = m->weights_bytes / PP_GIB;
	v[1] = m->grads_bytes / PP_GIB;
	v[2] = m->optimizer_bytes / PP_GIB;
	v[3] = m->activations_bytes / PP_GIB;
	v[4] = m->temp_bytes / PP_GIB;
	v[5] = m->fragmentation_bytes / PP_GIB;
	v[13] = m->capacity_bytes / PP_GIB;
	char c0[64], e0[64], e1[64], a[32];
	snprintf(c0, sizeof(c0), "needed (stage %d)", m->worst_stage);
	snprintf(e0, sizeof(e0), "%s%s", pp_fmt_bytes(m->total_bytes, a, sizeof(a)),
		 m->fits ? "" : " - does NOT fit");
	snprintf(e1, sizeof(e1), "%s", pp_fmt_bytes(m->capacity_bytes, a, sizeof(a)));
	const char *cat[2] = {c0, "available per GPU"};
	const char *endl[2] = {e0, e1};
	pp_svg_bars b = {2, 7, cat, ser, col, v, NULL, NULL, NULL, NULL, endl, m->fits ? -1 : 0};
	pp_svg_frame f = {"chart-memory", "Memory per GPU against its capacity",
			  "Stacked bar of what one GPU holds on the most loaded pipeline stage, and a "
			  "bar of the GPU's memory.",
			  0, 0, PP_SVG_NUM, PP_SVG_NUM, "GiB per GPU", NULL};
	figure_open(o, "fig-memory", "Does it fit: memory per GPU",
		    "Weights, gradients and optimizer state (after ZeRO sharding), peak activations "
		    "and buffers, against the GPU's memory.");
	pp_svg_hbars(o, &f, &b);
	figure_close(o);
}


/* The simulated replicas of an inference report, one per GPU (options on
 * one GPU share a simulation): the index of each's first option. */
static int serving_replicas(const pp_cost_result *c, int *first, int max)
{
	int n = 0;
	for (int i = 0; i < c->noptions && n < max; i++) {
		const pp_cost_option *x = &c->options[i];
		if (x->kind == PP_OPT_API || !x->serving.simulated || x->serving.ncurve == 0)
			continue;
		bool seen = false;
		for (int k = 0; k < n; k++)
			seen |= !strcmp(c->options[first[k]].gpu, x->gpu);
		if (!seen)
			first[n++] = i;
	}
	return n;
}

void pp_chart_serving_latency(pp_sb *o, const pp_report *r, int which)
{
	const pp_cost_result *c = &r->cost;
	const pp_cost_inference *inf = &c->inference;
	int first[64];
	int nr = serving_replicas(c, first, 64);
	pp_svg_series *s = pp_xcalloc((size_t)nr + 2, sizeof(*s));
	double (*xs)[PP_COST_CURVE_MAX] = pp_xcalloc((size_t)nr + 1, sizeof(*xs));
	double (*ys)[PP_COST_CURVE_MAX] = pp_xcalloc((size_t)nr + 1, sizeof(*ys));
	char (*names)[96] = pp_xcalloc((size_t)nr + 1, sizeof(*names));
	int ns = 0;
	double xmax = 0, peak = NAN;
	for (int k = 0; k < nr; k++) {
		const pp_cost_option *x = &c->options[first[k]];
		const pp_cost_serving *v = &x->serving;
		for (int j = 0; j < v->ncurve; j++) {
			xs[k][j] = v->curve[j].request_rate;
			ys[k][j] = which ? v->curve[j].tpot_s : v->curve[j].ttft_s;
			xmax = fmax(xmax, xs[k][j]);
		}
		snprintf(names[k], sizeof(names[k]), "TP %d x PP %d on %s", v->tp, v->pp, x->gpu);
		s[ns++] = (pp_svg_series){names[k], pp_report_option_color(first[k]), v->ncurve, xs[k],
					  ys[k], false};
		if (isfinite(v->peak_rps))
			peak = v->peak_rps;
	}
	double bound = which ? inf->slo_tpot_s : inf->slo_ttft_s;
	double bx[2] = {0, xmax}, by[2] = {bound, bound};
	char bl[64];
	snprintf(bl, sizeof(bl), "SLO: p%g %s <= %.0f ms", inf->slo_percentile, which ? "TPOT" : "TTFT",
		 bound * 1e3);
	if (bound > 0 && ns > 0)
		s[ns++] = (pp_svg_series){bl, "#e15759", 2, bx, by, true};
	char ml[96];
	pp_svg_marker m = {peak, ml};
	snprintf(ml, sizeof(ml), "busiest hour %.3g req/s", peak);
	const char *what = which ? "TPOT" : "TTFT";
	char id[32], title[160], desc[400], ylab[96];
	snprintf(id, sizeof(id), "chart-serving-%s", which ? "tpot" : "ttft");
	snprintf(title, sizeof(title), "%s at the SLO's percentile against the request rate, one "
		 "serving replica", what);
	snprintf(desc, sizeof(desc), "Lines: one replica of each GPU sent the workload at rates "
		 "from a quarter to 1.5 times its max rate; y is the p%g %s of the run. The "
		 "horizontal line is the SLO's bound; the dashed line the busiest hour's rate.",
		 inf->slo_present ? inf->slo_percentile : 99, what);
	snprintf(ylab, sizeof(ylab), "p%g %s", inf->slo_present ? inf->slo_percentile : 99, what);
	pp_svg_frame f = {id, title, desc, 0, 0, PP_SVG_NUM, PP_SVG_SECONDS,
			  "requests/s sent to one replica", ylab};
	char fid[32], cap[300];
	snprintf(fid, sizeof(fid), "fig-serving-%s", which ? "tpot" : "ttft");
	snprintf(cap, sizeof(cap), which ? "Time per output token as the rate rises: decode batches "
					  "grow, then the KV cache fills and requests queue."
					: "Time to first token as the rate rises: past the max rate, "
					  "prompts queue and TTFT explodes (the knee).");
	figure_open(o, fid, which ? "Throughput-latency: TPOT" : "Throughput-latency: TTFT", cap);
	pp_svg_lines(o, &f, s, ns, isfinite(peak) ? &m : NULL, isfinite(peak) ? 1 : 0,
		     "No replica was simulated (no \"serving\" section, or none can do the work).");
	figure_close(o);
	free(s);
	free(xs);
	free(ys);
	free(names);
}

void pp_html_kpi(pp_sb *o, const char *k, const char *v, const char *s)
{
	pp_sb_adds(o, "<div class=\"kpi\"><span class=\"k\">");
	pp_sb_add_html(o, k ? k : "");
	pp_sb_adds(o, "</span><span class=\"v\">");
	pp_sb_add_html(o, v ? v : "");
	pp_sb_adds(o, "</span><span class=\"s\">");
	pp_sb_add_html(o, s ? s : "");
	pp_sb_adds(o, "</span></div>\n");
}
