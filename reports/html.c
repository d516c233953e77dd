/*
 * html.c - the report page: one self-contained HTML file (inline CSS and
 * SVG; no script, no web fonts, no images, no network), the question and
 * its answer on the first screen, then warnings, the options table, the
 * charts (charts.c), build-versus-rent finance, the engine's figures, and every
 * assumption with its source and date. Prints on A4 or Letter (the @media
 * print rules; the paper size is the printer's).
 *
 * Every user-supplied string (scenario name and description, option names
 * and labels, warnings, sources) goes through pp_sb_add_html.
 */
#include "charts.h"
#include "clusterrep.h"
#include "core/fmt.h"
#include "cost/costout.h"
#include "report.h"
#include "serve/serveout.h"
#include "svg.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char css[] =
	":root{--ink:#1d232a;--muted:#5b6570;--line:#d9dee3;--accent:#1f5fa8;--warn:#9a5b00;"
	"--bad:#b3261e;--soft:#f4f6f8}\n"
	"*{box-sizing:border-box}\n"
	"body{margin:0;font:15px/1.45 system-ui,-apple-system,\"Segoe UI\",Roboto,\"Helvetica Neue\","
	"Arial,sans-serif;color:var(--ink);background:#fff;-webkit-print-color-adjust:exact;"
	"print-color-adjust:exact}\n"
	"header.top{display:flex;justify-content:space-between;flex-wrap:wrap;gap:2px 18px;"
	"padding:9px 28px;background:#1d232a;color:#fff;font-size:13px}\n"
	"header.top b{font-weight:700}\n"
	"main{max-width:1180px;margin:0 auto;padding:18px 28px 40px}\n"
	".label{text-transform:uppercase;font-size:12px;letter-spacing:.08em;color:var(--muted);"
	"margin:0}\n"
	"h1.question{font-size:23px;line-height:1.3;margin:2px 0 14px;font-weight:600}\n"
	".answer{border:2px solid var(--accent);border-radius:8px;padding:14px 20px 16px;"
	"background:#f5f9fe}\n"
	".answer.none{border-color:var(--bad);background:#fdf3f2}\n"
	".pick{font-size:22px;margin:2px 0 12px;line-height:1.3}\n"
	".pick .what{font-size:16px;color:var(--muted);font-weight:400}\n"
	".kpis{display:grid;grid-template-columns:repeat(4,1fr);gap:12px;margin:0 0 12px}\n"
	".kpi{background:#fff;border:1px solid var(--line);border-radius:6px;padding:9px 12px}\n"
	".kpi .k{display:block;font-size:12px;color:var(--muted);text-transform:uppercase;"
	"letter-spacing:.05em}\n"
	".kpi .v{display:block;font-size:26px;font-weight:700;font-variant-numeric:tabular-nums;"
	"line-height:1.25}\n"
	".kpi .s{display:block;font-size:13px;color:var(--muted)}\n"
	".why{margin:0;font-size:14px}\n"
	".why.risked{margin:0 0 8px;color:var(--warn)}\n"
	"section{margin-top:26px}\n"
	"h2{font-size:19px;border-bottom:1px solid var(--line);padding-bottom:4px;margin:0 0 10px}\n"
	"h3{font-size:15px;margin:16px 0 6px}\n"
	"p.note{font-size:13px;color:var(--muted);margin:6px 0 0}\n"
	"table{border-collapse:collapse;width:100%;font-size:13.5px;font-variant-numeric:tabular-nums}\n"
	"th,td{padding:5px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}\n"
	"th{font-size:12px;color:var(--muted);font-weight:600;background:var(--soft)}\n"
	"td.n,th.n{text-align:right;white-space:nowrap}\n"
	"tr.rec td{background:#eaf4ea;font-weight:600}\n"
	"tr.no td{color:#8a8f94}\n"
	"td.why{font-size:12.5px;color:var(--bad)}\n"
	"td.src{font-size:12.5px;word-break:break-word;min-width:34%;width:40%}\n"
	".tag{display:inline-block;font-size:11px;padding:0 5px;border-radius:3px;"
	"background:var(--soft);color:var(--muted);border:1px solid var(--line);font-weight:400}\n"
	".tag.old{background:#fff1dc;color:var(--warn);border-color:#f0cf9c}\n"
	".tag.rec{background:#1e7b45;color:#fff;border-color:#1e7b45}\n"
	".tag.slow{background:#fde3e0;color:var(--bad);border-color:#f3b5ae}\n"
	".warnings{border-left:4px solid var(--warn);background:#fff8ec;padding:8px 16px 8px 12px;"
	"margin-top:14px}\n"
	".warnings h2{border:0;font-size:15px;margin:0 0 4px;color:var(--warn)}\n"
	".warnings ul{margin:0;padding-left:20px;font-size:13.5px}\n"
	".warnings.none{border-color:#1e7b45;background:#eef7f0}\n"
	".warnings.none h2{color:#1e7b45}\n"
	".grid{display:grid;grid-template-columns:1fr;gap:18px}\n"
	"figure{margin:0;border:1px solid var(--line);border-radius:6px;padding:12px 14px 8px;"
	"break-inside:avoid}\n"
	"figcaption{font-size:14px;margin-bottom:6px}\n"
	"figcaption .how{display:block;font-size:12.5px;color:var(--muted)}\n"
	"svg.chart{display:block;width:100%;height:auto;max-width:900px}\n"
	"td.name{white-space:nowrap}\n"
	"table.options td:nth-child(2){min-width:190px}\n"
	"span.sub{display:block;font-size:12px;color:var(--muted);font-weight:400;white-space:normal}\n"
	"table.narrow{width:auto;min-width:50%}\n"
	"td.date{white-space:nowrap}\n"
	"code{font-size:12.5px;background:var(--soft);padding:1px 4px;border-radius:3px;"
	"word-break:break-all}\n"
	"footer{max-width:1180px;margin:0 auto;padding:10px 28px 30px;font-size:12px;color:var(--muted)}\n"
	"@media (max-width:820px){.kpis{grid-template-columns:repeat(2,1fr)}}\n"
	"@media print{\n"
	"@page{margin:13mm 12mm}\n"
	"body{font-size:9.5pt;color:#000}\n"
	"header.top{background:none;color:#000;border-bottom:1.5pt solid #000;padding:0 0 3pt}\n"
	"main{max-width:none;padding:0}\n"
	"footer{padding:6pt 0 0}\n"
	"h1.question{font-size:15pt}\n"
	".pick{font-size:14pt}\n"
	".kpi .v{font-size:15pt}\n"
	".kpis{gap:6pt}\n"
	".grid{display:block}\n"
	"figure{margin:0 0 8pt;page-break-inside:avoid;break-inside:avoid}\n"
	"svg.chart{max-height:120mm;width:auto;max-width:100%;margin:0 auto}\n"
	"section{margin-top:12pt}\n"
	"h2{font-size:12.5pt;break-after:avoid;page-break-after:avoid}\n"
	"table{font-size:8pt}\n"
	"th,td{padding:2pt 4pt}\n"
	"tr{break-inside:avoid;page-break-inside:avoid}\n"
	"thead{display:table-header-group}\n"
	"a{color:#000;text-decoration:none}\n"
	"td.src a[href]::after{content:\" <\" attr(href) \">\";font-size:7pt;word-break:break-all}\n"
	"#answer,#warnings{break-inside:avoid}\n"
	".kpis{grid-template-columns:repeat(4,1fr)}\n"
	"table.options td:nth-child(2){min-width:0}\n"
	".tag{white-space:nowrap}\n"
	"table.options{font-size:7.5pt}\n"
	"}\n";

/* ---- small writers ---- */

static void esc(pp_sb *o, const char *s)
{
	pp_sb_add_html(o, s ? s : "");
}

static void td(pp_sb *o, const char *cls, const char *s)
{
	if (cls)
		pp_sb_addf(o, "<td class=\"%s\">", cls);
	else
		pp_sb_adds(o, "<td>");
	esc(o, s);
	pp_sb_adds(o, "</td>");
}

static void tdn(pp_sb *o, const char *s)
{
	td(o, "n", s);
}

static void th_row(pp_sb *o, const char *const *cols, const bool *num, int n)
{
	pp_sb_adds(o, "<thead><tr>");
	for (int i = 0; i < n; i++) {
		pp_sb_adds(o, num && num[i] ? "<th class=\"n\">" : "<th>");
		esc(o, cols[i]);
		pp_sb_adds(o, "</th>");
	}
	pp_sb_adds(o, "</tr></thead>\n<tbody>\n");
}




/* ---- the first screen ---- */


static void answer_cost(pp_sb *o, const pp_report *r)
{
	const pp_cost_result *c = &r->cost;
	char a[48], b[48], d[48], s[400];
	if (c->recommended < 0) {
		pp_sb_adds(o, "<div class=\"answer none\"><p class=\"label\">Answer</p>\n"
			      "<p class=\"pick\">No option can do the work</p>\n<ul>");
		for (int i = 0; i < c->noptions; i++) {
			pp_sb_adds(o, "<li><b>");
			esc(o, c->options[i].name);
			pp_sb_adds(o, "</b>: ");
			esc(o, c->options[i].infeasible_why);
			pp_sb_adds(o, "</li>");
		}
		pp_sb_adds(o, "</ul></div>\n");
		return;
	}
	const pp_cost_option *w = &c->options[c->recommended];
	const pp_cost_option *ru = c->runner_up >= 0 ? &c->options[c->runner_up] : NULL;
	pp_sb_addf(o, "<div class=\"answer\"><p class=\"label\">Answer: the cheapest option that "
		      "does the work%s</p>\n<p class=\"pick\"><b>",
		   c->risked >= 0 ? " and can be obtained" : "");
	esc(o, w->name);
	pp_sb_adds(o, "</b> <span class=\"what\">");
	esc(o, w->label);
	pp_sb_adds(o, "</span></p>\n<div class=\"kpis\">\n");
	if (isfinite(w->p10_usd))
		snprintf(s, sizeof(s), "P10-P90 %s",
			 pp_fmt_usd_range(w->p10_usd, w->p90_usd, " - ", a, sizeof(a)));
	else
		snprintf(s, sizeof(s), "no Monte Carlo range (0 draws)");
	pp_html_kpi(o, "Total cost", pp_fmt_usd(w->usd_total, d, sizeof(d)), s);
	if (isfinite(w->usd_per_million_input_tokens))
		snprintf(s, sizeof(s), "%s in / %s out; %s",
			 pp_fmt_unit_price(w->usd_per_million_input_tokens, a, sizeof(a)),
			 pp_fmt_unit_price(w->usd_per_million_output_tokens, b, sizeof(b)), c->work);
	else
		snprintf(s, sizeof(s), "%s", c->work);
	pp_html_kpi(o, "Per 1M tokens", pp_fmt_unit_price(w->usd_per_million_tokens, d, sizeof(d)), s);
	double t = pp_report_time_to_result(w);
	if (isfinite(t)) {
		if (w->lead_time_s > 0)
			snprintf(s, sizeof(s), "incl. %s lead time; goodput %s",
				 pp_fmt_span(w->lead_time_s, a, sizeof(a)), pp_fmt_pct(w->goodput, 1, b, sizeof(b)));
		else if (isfinite(w->goodput))
			snprintf(s, sizeof(s), "wall time, goodput %s", pp_fmt_pct(w->goodput, 1, b, sizeof(b)));
		else
			snprintf(s, sizeof(s), "wall time");
		pp_html_kpi(o, "Time to result", pp_fmt_span(t, d, sizeof(d)), s);
	} else {
		snprintf(s, sizeof(s), "%s: priced per token, no training time",
			 w->kind == PP_OPT_API ? "hosted API" : "serving");
		pp_html_kpi(o, "Horizon", (snprintf(d, sizeof(d), "%.0f months", c->horizon_months), d), s);
	}
	if (ru && isfinite(w->p_cheapest)) {
		char nd[32];
		snprintf(s, sizeof(s), "of %s draws; runner-up %s costs %s (%+.0f%%) more",
			 pp_fmt_count(c->draws, nd, sizeof(nd)), ru->name, pp_fmt_usd(ru->usd_total - w->usd_total, a, sizeof(a)),
			 w->usd_total > 0 ? 100 * (ru->usd_total - w->usd_total) / w->usd_total : 0);
		pp_html_kpi(o, "Cheapest in", pp_fmt_pct(w->p_cheapest, 0, d, sizeof(d)), s);
	} else if (ru) {
		snprintf(s, sizeof(s), "%s costs that much more", ru->name);
		pp_html_kpi(o, "Lead over runner-up", pp_fmt_usd(ru->usd_total - w->usd_total, d, sizeof(d)), s);
	} else {
		pp_html_kpi(o, "Runner-up", "none", "no other option can do the work");
	}
	pp_sb_adds(o, "</div>\n");
	if (c->risked >= 0) {
		const pp_cost_option *k = &c->options[c->risked];
		pp_sb_adds(o, "<p class=\"why risked\"><b>Cheaper, but it may not be obtainable: ");
		esc(o, k->name);
		pp_sb_adds(o, "</b>, ");
		esc(o, pp_fmt_usd(k->usd_total, a, sizeof(a)));
		if (isfinite(k->p10_usd)) {
			pp_sb_adds(o, " (P10-P90 ");
			esc(o, pp_fmt_usd_range(k->p10_usd, k->p90_usd, " - ", b, sizeof(b)));
			pp_sb_adds(o, ")");
		}
		pp_sb_adds(o, ": it ");
		esc(o, k->risk);
		pp_sb_adds(o, ".</p>\n");
	}
	pp_sb_adds(o, "<p class=\"why\">");
	esc(o, c->recommendation);
	pp_sb_adds(o, "</p></div>\n");
}

static void answer_pred(pp_sb *o, const pp_report *r)
{
	const pp_result *p = &r->pred;
	const pp_scenario *s = r->s;
	char a[48], b[48], d[48], t[300];
	pp_sb_addf(o, "<div class=\"answer%s\"><p class=\"label\">Answer: the simulated step</p>\n"
		      "<p class=\"pick\"><b>", p->memory.fits ? "" : " none");
	snprintf(t, sizeof(t), "%d x %s", s->cluster.num_gpus, s->cluster.gpu->name);
	esc(o, t);
	pp_sb_adds(o, "</b> <span class=\"what\">");
	snprintf(t, sizeof(t), "%s, TP %d x PP %d x DP %d x CP %d, %d nodes over %s", s->model.name,
		 s->parallel.tp, s->parallel.pp, s->parallel.dp, s->parallel.cp,
		 pp_cluster_nodes(&s->cluster), s->cluster.inter->name);
	esc(o, t);
	pp_sb_adds(o, "</span></p>\n<div class=\"kpis\">\n");
	if (s->training.train_tokens > 0) {
		char tk[32], st[32];
		snprintf(t, sizeof(t), "%s tokens, %s steps, no failures counted",
			 pp_fmt_tokens(s->training.train_tokens, tk, sizeof(tk)),
			 pp_fmt_count(p->steps_to_train, st, sizeof(st)));
		pp_html_kpi(o, "Time to train", pp_fmt_span(p->time_to_train_s, d, sizeof(d)), t);
	} else {
		pp_html_kpi(o, "Time to train", "-", "training.train_tokens not given");
	}
	char tk[32];
	snprintf(t, sizeof(t), "%s tokens/s; bottleneck: %s", pp_fmt_count(p->tokens_per_s, tk, sizeof(tk)),
		 p->bottleneck);
	if (r->band.on) {
		char lo[48], hi[48];
		size_t at = strlen(t);
		snprintf(t + at, sizeof(t) - at, "; 80%% interval %s to %s (%s)",
			 pp_fmt_span(r->band.lo_s, lo, sizeof(lo)), pp_fmt_span(r->band.hi_s, hi, sizeof(hi)),
			 r->band.near ? "validated runs near it" : "no validated run near this layout");
	}
	pp_html_kpi(o, "Step time", pp_fmt_span(p->step_time_s, d, sizeof(d)), t);
	snprintf(t, sizeof(t), "HFU %.1f%%, %.0f model TFLOP/s per GPU", 100 * p->hfu,
		 p->model_tflops_per_gpu);
	pp_html_kpi(o, "MFU", pp_fmt_pct(p->mfu, 1, d, sizeof(d)), t);
	snprintf(t, sizeof(t), "of %s per GPU: %s", pp_fmt_bytes(p->memory.capacity_bytes, a, sizeof(a)),
		 p->memory.fits ? "fits" : "does NOT fit");
	pp_html_kpi(o, "Memory", pp_fmt_bytes(p->memory.total_bytes, b, sizeof(b)), t);
	pp_sb_adds(o, "</div>\n<p class=\"why\">");
	pp_sb t2 = {0};
	pp_report_headline(r, &t2);
	esc(o, t2.buf);
	pp_sb_release(&t2);
	pp_sb_adds(o, " Nothing is priced: the scenario has no \"costs\" section.</p></div>\n");
}

static void warnings(pp_sb *o, const pp_report *r)
{
	if (r->nwarnings == 0) {
		pp_sb_adds(o, "<section id=\"warnings\" class=\"warnings none\"><h2>No warnings</h2>"
			      "<p class=\"note\">Every option fits, no calibration verdict is SLOW, no "
			      "price is older than the staleness limit.</p></section>\n");
		return;
	}
	pp_sb_addf(o, "<section id=\"warnings\" class=\"warnings\"><h2>Check before deciding (%d)</h2>"
		      "<ul>\n", r->nwarnings);
	for (int i = 0; i < r->nwarnings; i++) {
		pp_sb_adds(o, "<li>");
		esc(o, r->warnings[i]);
		pp_sb_adds(o, "</li>\n");
	}
	pp_sb_adds(o, "</ul></section>\n");
}

/* ---- tables ---- */

static void options_table(pp_sb *o, const pp_report *r)
{
	const pp_cost_result *c = &r->cost;
	static const char *const cols[] = {"Option", "What it is", "Time to result", "Total cost",
					   "P10 - P90", "vs cheapest", "$ / 1M tokens",
					   "Cheapest in", "Goodput"};
	static const char *const cols_nt[] = {"Option", "What it is", "Total cost", "P10 - P90",
					      "vs cheapest", "$ / 1M tokens", "Cheapest in", "Goodput"};
	static const bool num[] = {false, false, true, true, true, true, true, true, true};
	char a[48], b[48], d[96];
	/* serving and API-only comparisons have no time to result: no column for it */
	bool any_time = false;
	for (int i = 0; i < c->noptions; i++)
		any_time |= c->options[i].feasible && isfinite(pp_report_time_to_result(&c->options[i]));
	pp_sb_adds(o, "<section id=\"options\"><h2>The options compared</h2>\n<table class=\"options\">\n");
	if (any_time)
		th_row(o, cols, num, (int)PP_ARRAY_LEN(cols));
	else
		th_row(o, cols_nt, num + 1, (int)PP_ARRAY_LEN(cols_nt));
	double best = c->recommended >= 0 ? c->options[c->recommended].usd_total : NAN;
	for (int i = 0; i < c->noptions; i++) {
		const pp_cost_option *x = &c->options[i];
		pp_sb_addf(o, "<tr%s>", i == c->recommended ? " class=\"rec\"" : !x->feasible ? " class=\"no\"" : "");
		pp_sb_adds(o, "<td class=\"name\">");
		esc(o, x->name);
		if (i == c->recommended)
			pp_sb_addf(o, "<br><span class=\"tag rec\">%s</span>",
				   c->risked >= 0 ? "cheapest obtainable" : "cheapest");
		else if (x->feasible && !x->obtainable)
			pp_sb_adds(o, "<br><span class=\"tag old\">may not be obtainable</span>");
		pp_sb_adds(o, "</td>");
		if (!x->feasible) {
			pp_sb_addf(o, "<td class=\"why\" colspan=\"%d\">cannot do the work: ", any_time ? 8 : 7);
			esc(o, x->infeasible_why);
			pp_sb_adds(o, "</td></tr>\n");
			continue;
		}
		td(o, NULL, x->label);
		double t = pp_report_time_to_result(x);
		if (any_time && isfinite(t) && x->lead_time_s > 0) {
			pp_sb_addf(o, "<td class=\"n\">%s<span class=\"sub\">incl. %s lead time</span></td>",
				   pp_fmt_span(t, a, sizeof(a)), pp_fmt_span(x->lead_time_s, b, sizeof(b)));
		} else if (any_time) {
			tdn(o, pp_fmt_span(t, a, sizeof(a)));
		}
		tdn(o, pp_fmt_usd(x->usd_total, a, sizeof(a)));
		tdn(o, pp_fmt_usd_range(x->p10_usd, x->p90_usd, " - ", d, sizeof(d)));
		if (i == c->recommended || !isfinite(best))
			tdn(o, "-");
		else
			pp_sb_addf(o, "<td class=\"n\">+%s<span class=\"sub\">%+.0f%%</span></td>",
				   pp_fmt_usd(x->usd_total - best, a, sizeof(a)),
				   best > 0 ? 100 * (x->usd_total - best) / best : 0);
		tdn(o, pp_fmt_unit_price(x->usd_per_million_tokens, a, sizeof(a)));
		tdn(o, pp_fmt_pct(x->p_cheapest, 0, a, sizeof(a)));
		tdn(o, pp_fmt_pct(x->goodput, 1, a, sizeof(a)));
		pp_sb_adds(o, "</tr>\n");
	}
	pp_sb_adds(o, "</tbody></table>\n<p class=\"note\">Total cost is the full cost over the "
		      "horizon: every dollar paid if this work is all the capacity does (capex net of "
		      "resale value, idle reserved hours, staff, power). ");
	pp_sb_addf(o, "Horizon %.1f months; prices as of %s; Monte Carlo %d draws, seed %lu. "
		      "Amortized and marginal views: options.csv.</p></section>\n",
		   c->horizon_months, c->as_of, c->draws, c->seed);
}

static void finance_table(pp_sb *o, const pp_report *r)
{
	const pp_cost_result *c = &r->cost;
	int n = 0;
	for (int i = 0; i < c->noptions; i++)
		n += c->options[i].fin.valid;
	pp_sb_adds(o, "<section id=\"finance\"><h2>Build versus rent</h2>\n");
	if (n == 0) {
		pp_sb_adds(o, "<p class=\"note\">No owned option is compared with a rented one in this "
			      "scenario.</p></section>\n");
		return;
	}
	static const char *const cols[] = {"Owned option", "Against", "Capex", "Resale at end",
					   "NPV of building", "IRR", "Payback",
					   "Cost crosses below renting", "Break-even utilisation"};
	static const bool num[] = {false, false, true, true, true, true, true, true, true};
	pp_sb_adds(o, "<table>\n");
	th_row(o, cols, num, (int)PP_ARRAY_LEN(cols));
	char a[48];
	double rate = NAN;
	for (int i = 0; i < c->noptions; i++) {
		const pp_cost_fin *f = &c->options[i].fin;
		if (!f->valid)
			continue;
		rate = f->discount_rate;
		pp_sb_adds(o, "<tr>");
		td(o, NULL, c->options[i].name);
		td(o, NULL, f->versus);
		tdn(o, pp_fmt_usd(f->capex_usd, a, sizeof(a)));
		tdn(o, pp_fmt_usd(f->residual_usd, a, sizeof(a)));
		tdn(o, pp_fmt_usd(f->npv_usd, a, sizeof(a)));
		tdn(o, isfinite(f->irr) ? pp_fmt_pct(f->irr, 1, a, sizeof(a)) : "none");
		tdn(o, isfinite(f->payback_months) ? (snprintf(a, sizeof(a), "%.1f months",
							       f->payback_months), a) : "never");
		tdn(o, isfinite(f->crossover_month) ? (snprintf(a, sizeof(a), "month %.0f",
								f->crossover_month), a) : "never");
		tdn(o, isfinite(f->breakeven_utilization) ? pp_fmt_pct(f->breakeven_utilization, 0, a, sizeof(a))
							   : "above 100%");
		pp_sb_adds(o, "</tr>\n");
	}
	pp_sb_addf(o, "</tbody></table>\n<p class=\"note\">Monthly cash flows against the cheapest "
		      "rented option: capex at month 0, then the rent avoided minus the owned "
		      "option's running costs, plus resale value at the end; NPV at %.0f%% a year. "
		      "Break-even utilisation: how busy the owned cluster must be kept for its cost per "
		      "token to match renting. finance.csv has every figure.</p></section>\n",
		   isfinite(rate) ? 100 * rate : 0);
}

/* An inference work: the workload and SLO, each option's serving replica
 * at the SLO, its KV cache, the replicas the busiest hour needs and $ per
 * 1M input and output tokens; the throughput-latency curves. Every figure
 * is in serving.csv, serving_workload.csv and serving_curve.csv. */
static void serving_section(pp_sb *o, const pp_report *r)
{
	const pp_cost_result *c = &r->cost;
	const pp_cost_inference *f = &c->inference;
	if (!f->present)
		return;
	char a[48], b[48], d[96], slo[160], line[900];
	pp_sb_adds(o, "<section id=\"serving\"><h2>Serving: throughput at the SLO, KV cache, "
		      "replicas, $ per 1M tokens</h2>\n<p class=\"note workload\">");
	char ti[32], to[32], rq[32];
	if (f->simulated)
		snprintf(line, sizeof(line), "%s input and %s output tokens a month: %s requests of the "
			 "workload's mix, %s prompts of mean %s tokens in and %s out; the busiest hour "
			 "is %.2gx the average. SLO: %s. Each option's replica (the \"serving\" "
			 "section on its GPU) was simulated by podplan serve at its highest rate "
			 "meeting the SLO, at most what it completes with every request at once.",
			 pp_fmt_tokens(f->input_tokens_per_month, ti, sizeof(ti)),
			 pp_fmt_tokens(f->output_tokens_per_month, to, sizeof(to)),
			 pp_fmt_tokens(f->requests_per_month, rq, sizeof(rq)),
			 pp_fmt_count((double)f->num_prompts, a, sizeof(a)),
			 pp_fmt_count(f->mean_input_len, b, sizeof(b)),
			 pp_fmt_count(f->mean_output_len, d, sizeof(d)), f->peak_to_average,
			 pp_cost_fmt_slo(f, slo, sizeof(slo)));
	else
		snprintf(line, sizeof(line), "%s input and %s output tokens a month; the busiest hour "
			 "is %.2gx the average. Not simulated: the scenario has no \"serving\" "
			 "section, and each option's throughput is its typed-in "
			 "inference_tokens_per_s_per_gpu, input and output tokens alike.",
			 pp_fmt_tokens(f->input_tokens_per_month, ti, sizeof(ti)),
			 pp_fmt_tokens(f->output_tokens_per_month, to, sizeof(to)), f->peak_to_average);
	esc(o, line);
	pp_sb_adds(o, "</p>\n<table class=\"serving\">\n");
	static const char *const cols[] = {"Option", "Serving replica", "Max rate at SLO",
					   "Tokens/s in / out", "TTFT / TPOT", "KV cache",
					   "Replicas needed", "$ / 1M in / out"};
	static const bool num[] = {false, false, true, true, true, true, true, true};
	th_row(o, cols, num, (int)PP_ARRAY_LEN(cols));
	for (int i = 0; i < c->noptions; i++) {
		const pp_cost_option *x = &c->options[i];
		const pp_cost_serving *v = &x->serving;
		pp_sb_addf(o, "<tr%s>", i == c->recommended ? " class=\"rec\"" : !x->feasible ? " class=\"no\"" : "");
		td(o, NULL, x->name);
		if (x->kind == PP_OPT_API) {
			td(o, NULL, "hosted API");
			pp_sb_adds(o, "<td colspan=\"5\">priced per token: nothing simulated</td>");
		} else if (!v->simulated) {
			snprintf(d, sizeof(d), "%d x %s", x->num_gpus, x->gpu);
			td(o, NULL, d);
			pp_sb_adds(o, "<td colspan=\"5\">");
			esc(o, x->feasible ? "typed-in throughput: not simulated (no \"serving\" section)"
					   : x->infeasible_why);
			pp_sb_adds(o, "</td>");
		} else {
			snprintf(d, sizeof(d), "TP %d x PP %d on %s", v->tp, v->pp, x->gpu);
			td(o, NULL, d);
			if (!x->feasible) {
				pp_sb_adds(o, "<td class=\"why\" colspan=\"3\">cannot do the work: ");
				esc(o, x->infeasible_why);
				pp_sb_adds(o, "</td>");
			} else {
				snprintf(d, sizeof(d), "%.3g req/s", v->max_rate_rps);
				tdn(o, d);
				snprintf(line, sizeof(line), "%s / %s",
					 pp_fmt_count(v->input_tokens_per_s, a, sizeof(a)),
					 pp_fmt_count(v->output_tokens_per_s, b, sizeof(b)));
				tdn(o, line);
				snprintf(line, sizeof(line), "%s / %s", pp_fmt_span(v->at_max.ttft_s, a, sizeof(a)),
					 pp_fmt_span(v->at_max.tpot_s, b, sizeof(b)));
				tdn(o, line);
			}
			pp_sb_addf(o, "<td class=\"n\">%s tokens<span class=\"sub\">%.1f x max_model_len"
				      "</span></td>", pp_fmt_count((double)v->kv_tokens, a, sizeof(a)),
				   v->max_concurrency);
			if (x->feasible)
				pp_sb_addf(o, "<td class=\"n\">%d<span class=\"sub\">in %.0f x %d GPUs</span>"
					      "</td>", v->replicas_needed, fmax(1, x->replicas), x->num_gpus);
			else
				tdn(o, "-");
		}
		snprintf(line, sizeof(line), "%s / %s", pp_fmt_unit_price(x->usd_per_million_input_tokens, a, sizeof(a)),
			 pp_fmt_unit_price(x->usd_per_million_output_tokens, b, sizeof(b)));
		tdn(o, line);
		pp_sb_adds(o, "</tr>\n");
	}
	pp_sb_adds(o, "</tbody></table>\n<p class=\"note\">Max rate: one replica's highest request "
		      "rate meeting the SLO; tokens/s in and out are its throughput there; TTFT and TPOT "
		      "at the SLO's percentile at that rate. KV cache: tokens one replica holds, as "
		      "vLLM logs it at start-up, and the requests of max_model_len that fit at once. "
		      "Replicas: serving replicas the busiest hour needs, in copies of the option's "
		      "cluster. $ per 1M: a hosted API's two prices; a cluster's full cost split by the "
		      "replica time its input and its output tokens take at the SLO (the max-rate search "
		      "again with longer prompts, then longer outputs). serving.csv, "
		      "serving_workload.csv and serving_curve.csv have every figure.</p>\n");
	bool curve = false;
	for (int i = 0; i < c->noptions; i++)
		curve |= c->options[i].kind != PP_OPT_API && c->options[i].serving.ncurve > 0;
	if (curve) {
		pp_sb_adds(o, "<div class=\"grid\">\n");
		pp_chart_serving_latency(o, r, 0);
		pp_chart_serving_latency(o, r, 1);
		pp_sb_adds(o, "</div>\n");
	}
	pp_sb_adds(o, "</section>\n");
}

static void engine_cost(pp_sb *o, const pp_report *r)
{
	const pp_cost_result *c = &r->cost;
	static const char *const cols[] = {"Option", "GPUs", "Method", "Step time", "Tokens/s",
					   "MFU", "Memory per GPU", "Goodput", "Checkpoint every",
					   "GPU-hours"};
	static const bool num[] = {false, true, false, true, true, true, true, true, true, true};
	char a[48], b[48], d[96];
	pp_sb_adds(o, "<h3>Per option</h3><table>\n");
	th_row(o, cols, num, (int)PP_ARRAY_LEN(cols));
	for (int i = 0; i < c->noptions; i++) {
		const pp_cost_option *x = &c->options[i];
		pp_sb_addf(o, "<tr%s>", !x->feasible ? " class=\"no\"" : "");
		td(o, NULL, x->name);
		if (x->kind == PP_OPT_API) {
			pp_sb_adds(o, "<td class=\"n\">-</td><td colspan=\"8\">hosted API: priced per token, "
				      "nothing simulated</td></tr>\n");
			continue;
		}
		tdn(o, pp_cost_gpus_text(x, d, sizeof(d)));
		/* serving options run podplan serve, not a training step */
		td(o, NULL, c->inference.present ? "podplan serve" : x->method);
		tdn(o, pp_fmt_span(x->step_time_s, a, sizeof(a)));
		tdn(o, pp_fmt_count(x->tokens_per_s, d, sizeof(d)));
		tdn(o, pp_fmt_pct(x->mfu, 1, a, sizeof(a)));
		if (isfinite(x->memory_per_gpu_bytes) && isfinite(x->memory_capacity_bytes)) {
			snprintf(d, sizeof(d), "%s of %s", pp_fmt_bytes(x->memory_per_gpu_bytes, a, sizeof(a)),
				 pp_fmt_bytes(x->memory_capacity_bytes, b, sizeof(b)));
			tdn(o, d);
		} else {
			tdn(o, "-");
		}
		tdn(o, pp_fmt_pct(x->goodput, 1, a, sizeof(a)));
		tdn(o, pp_fmt_span(x->checkpoint_interval_s, a, sizeof(a)));
		tdn(o, pp_fmt_count(x->gpu_hours_used, d, sizeof(d)));
		pp_sb_adds(o, "</tr>\n");
	}
	if (c->inference.present)
		pp_sb_adds(o, "</tbody></table>\n<p class=\"note\">Serving has no training step: "
			      "tokens/s is what one copy of the option's cluster serves at the SLO at the "
			      "workload's mix (input and output tokens, the serving section above), memory "
			      "per GPU is a serving replica's (weights, activations, KV cache), and "
			      "GPU-hours count every copy running the whole horizon.</p>\n");
	else
		pp_sb_adds(o, "</tbody></table>\n<p class=\"note\">Step time, throughput and memory come "
			      "from the discrete-event step simulator on each option's cluster (before "
			      "goodput); goodput discounts failures, checkpoint writes at the Young/Daly "
			      "interval and restarts. Per-part step times: step_time.csv.</p>\n");
}

static void engine_pred(pp_sb *o, const pp_report *r)
{
	const pp_result *p = &r->pred;
	const pp_memory *m = &p->memory;
	char a[48], b[48];
	pp_sb_adds(o, "<h3>The simulated step</h3><table class=\"narrow\">\n");
	static const char *const cols[] = {"Figure", "Value"};
	static const bool num[] = {false, true};
	th_row(o, cols, num, 2);
	double parts[PP_BD_COUNT];
	pp_breakdown_values(&p->breakdown, parts);
	pp_sb_adds(o, "<tr>");
	td(o, NULL, "step time");
	tdn(o, pp_fmt_span(p->step_time_s, a, sizeof(a)));
	pp_sb_adds(o, "</tr>\n");
	{
		pp_sb t = {0};
		pp_band_text(&r->band, "", &t);
		pp_sb_adds(o, "<tr>");
		td(o, NULL, "80% interval");
		td(o, NULL, t.buf);
		pp_sb_adds(o, "</tr>\n");
		pp_sb_release(&t);
	}
	for (int k = 0; k < PP_BD_COUNT; k++) {
		char d[96];
		snprintf(d, sizeof(d), "%s (%.1f%%)", pp_fmt_span(parts[k], a, sizeof(a)),
			 p->step_time_s > 0 ? 100 * parts[k] / p->step_time_s : 0);
		pp_sb_adds(o, "<tr>");
		snprintf(b, sizeof(b), "  %s", pp_breakdown_fields[k].label);
		td(o, NULL, b);
		tdn(o, d);
		pp_sb_adds(o, "</tr>\n");
	}
	static const char *const mw[] = {"weights", "gradients", "optimizer state", "activations",
					 "temporary buffers", "fragmentation"};
	double mv[] = {m->weights_bytes, m->grads_bytes, m->optimizer_bytes, m->activations_bytes,
		       m->temp_bytes, m->fragmentation_bytes};
	pp_sb_adds(o, "<tr>");
	snprintf(b, sizeof(b), "memory per GPU (stage %d)", m->worst_stage);
	td(o, NULL, b);
	char d[96];
	snprintf(d, sizeof(d), "%s of %s", pp_fmt_bytes(m->total_bytes, a, sizeof(a)),
		 pp_fmt_bytes(m->capacity_bytes, b, sizeof(b)));
	tdn(o, d);
	pp_sb_adds(o, "</tr>\n");
	for (size_t k = 0; k < PP_ARRAY_LEN(mw); k++) {
		pp_sb_adds(o, "<tr>");
		td(o, NULL, mw[k]);
		tdn(o, pp_fmt_bytes(mv[k], a, sizeof(a)));
		pp_sb_adds(o, "</tr>\n");
	}
	pp_sb_addf(o, "<tr><td>checkpoint</td><td class=\"n\">%s, written in %s</td></tr>\n",
		   pp_fmt_bytes(p->checkpoint_bytes, a, sizeof(a)),
		   pp_fmt_span(p->checkpoint_write_s, b, sizeof(b)));
	pp_sb_adds(o, "</tbody></table>\n");
}

static void model_layout(pp_sb *o, const pp_report *r)
{
	const pp_scenario *s = r->s;
	const pp_parallel *p = &s->parallel;
	const pp_training *t = &s->training;
	const pp_cluster *c = &s->cluster;
	char line[1000], dom[96];
	pp_cluster_domain_text(c, dom, sizeof(dom));
	if (s->serve.present) { /* the deployment podplan serve simulated */
		pp_serve_desc d;
		pp_serve_describe(s, &d);
		pp_sb_adds(o, "<h3>The scenario's model, deployment and cluster</h3><p class=\"note\">");
		snprintf(line, sizeof(line), "Model %s (%s): %d layers, hidden %d, %d heads (%d KV). ",
			 s->model.name, s->model_origin, s->model.num_layers, s->model.hidden_size,
			 s->model.num_attention_heads, s->model.num_query_groups);
		esc(o, line);
		pp_sb_adds(o, "Deployment ");
		esc(o, d.deployment);
		pp_sb_adds(o, ". Scheduler ");
		esc(o, d.scheduler);
		pp_sb_adds(o, ". Workload ");
		esc(o, d.workload);
		pp_sb_adds(o, ". SLO ");
		esc(o, d.slo);
		snprintf(line, sizeof(line), ". Cluster %d x %s in %d nodes of %d%s, %s inside nodes, "
			 "%d x %s per node.", c->num_gpus, c->gpu->name, pp_cluster_nodes(c),
			 c->gpus_per_node, dom, c->intra->name, c->nics_per_node, c->inter->name);
		esc(o, line);
		if (r->have_cost)
			pp_sb_adds(o, " Options change the cluster where the scenario's \"costs\" "
				      "section says so; the serving section above gives each option's "
				      "replica.");
		pp_sb_adds(o, "</p>\n");
		return;
	}
	pp_sb_adds(o, "<h3>The scenario's model, layout and cluster</h3><p class=\"note\">");
	snprintf(line, sizeof(line), "Model %s (%s): %d layers, hidden %d, %d heads, sequence %d. "
		 "Layout TP %d x PP %d x DP %d x CP %d%s, ZeRO-%d, global batch %lld of micro-batch "
		 "%lld, %s, recompute %s. Cluster %d x %s in %d nodes of %d%s, %s inside %s, %d x %s "
		 "per node, storage %s.", s->model.name, s->model_origin, s->model.num_layers,
		 s->model.hidden_size, s->model.num_attention_heads, s->model.seq_length, p->tp, p->pp,
		 p->dp, p->cp, p->vpp > 1 ? " (interleaved)" : "", p->zero_stage,
		 (long long)t->global_batch_size, (long long)t->micro_batch_size,
		 pp_dtype_names[t->precision], pp_recompute_names[t->recompute], c->num_gpus,
		 c->gpu->name, pp_cluster_nodes(c), c->gpus_per_node, dom, c->intra->name,
		 dom[0] ? "domains" : "nodes", c->nics_per_node, c->inter->name, c->storage->name);
	esc(o, line);
	if (r->have_cost)
		pp_sb_adds(o, " Options change the cluster or layout where the scenario's \"costs\" "
			      "section says so.");
	pp_sb_adds(o, "</p>\n");
}

static void assumptions(pp_sb *o, const pp_report *r, double stale_months)
{
	char a[48], b[48];
	pp_sb_adds(o, "<section id=\"assumptions\"><h2>Assumptions and sources</h2>\n");
	if (r->have_cost) {
		const pp_cost_result *c = &r->cost;
		/* prices (dollar figures) first: what finance checks; then the rest */
		for (int pass = 0; pass < 2; pass++) {
			int n = 0, est = 0, old = 0;
			for (int i = 0; i < c->nsources; i++) {
				const pp_cost_source *f = &c->sources[i];
				if ((strncmp(f->unit, "usd", 3) == 0) != (pass == 0))
					continue;
				n++;
				est += f->estimate;
				old += isfinite(f->age_months) && f->age_months > stale_months;
			}
			pp_sb_addf(o, "<h3 id=\"%s\">%s (%d; %d estimates", pass ? "figures" : "sources",
				   pass ? "Other figures: failure rates, lifetimes, efficiencies" : "Prices",
				   n, est);
			if (isfinite(stale_months))
				pp_sb_addf(o, ", %d older than %.0f months at %s", old, stale_months, c->as_of);
			pp_sb_adds(o, ")</h3>\n<table>\n");
			static const char *const cols[] = {"Figure", "Value", "Unit", "Date", "Age", "Source"};
			static const bool num[] = {false, true, false, false, true, false};
			th_row(o, cols, num, 6);
			for (int i = 0; i < c->nsources; i++) {
				const pp_cost_source *f = &c->sources[i];
				if ((strncmp(f->unit, "usd", 3) == 0) != (pass == 0))
					continue;
				pp_sb_adds(o, "<tr><td>");
				esc(o, f->item);
				if (f->estimate)
					pp_sb_adds(o, " <span class=\"tag\">estimate</span>");
				pp_sb_adds(o, "</td>");
				snprintf(a, sizeof(a), "%.6g", f->value);
				tdn(o, a);
				td(o, NULL, f->unit);
				td(o, "date", f->date[0] ? f->date : "undated");
				pp_sb_adds(o, "<td class=\"n\">");
				if (isfinite(f->age_months)) {
					snprintf(b, sizeof(b), "%.0f mo", f->age_months);
					esc(o, b);
					if (isfinite(stale_months) && f->age_months > stale_months)
						pp_sb_adds(o, " <span class=\"tag old\">old</span>");
				} else {
					pp_sb_adds(o, "<span class=\"tag old\">undated</span>");
				}
				pp_sb_adds(o, "</td><td class=\"src\">");
				if (f->url[0] && (!strncmp(f->url, "http://", 7) || !strncmp(f->url, "https://", 8))) {
					pp_sb_adds(o, "<a href=\"");
					esc(o, f->url);
					pp_sb_adds(o, "\">");
					esc(o, f->source[0] ? f->source : f->url);
					pp_sb_adds(o, "</a>");
				} else {
					esc(o, f->source);
					if (f->url[0]) {
						pp_sb_adds(o, " (");
						esc(o, f->url);
						pp_sb_adds(o, ")");
					}
				}
				pp_sb_adds(o, "</td></tr>\n");
			}
			pp_sb_adds(o, "</tbody></table>\n");
		}
	}
	pp_sb_adds(o, "<h3 id=\"parameters\">Hardware parameters of the scenario's cluster</h3>\n<table>\n");
	static const char *const pc[] = {"Parameter", "Origin"};
	th_row(o, pc, NULL, 2);
	for (int i = 0; i < r->hw.norigins; i++) {
		pp_sb_adds(o, "<tr>");
		td(o, NULL, r->hw.origins[i].name);
		pp_sb_adds(o, "<td class=\"src\">");
		esc(o, r->hw.origins[i].origin);
		if (!strncmp(r->hw.origins[i].origin, "calibration", 11))
			pp_sb_adds(o, " <span class=\"tag rec\">calibrated</span>");
		pp_sb_adds(o, "</td></tr>\n");
	}
	pp_sb_adds(o, "</tbody></table>\n<h3 id=\"calibration\">Calibration</h3>\n<p class=\"note\">");
	esc(o, r->calib_note);
	pp_sb_adds(o, "</p>\n");
	if (r->nverdict > 0) {
		static const char *const vc[] = {"Run", "Check", "Measured", "Expected", "Ratio",
						 "Verdict", "Likely cause / basis"};
		static const bool vn[] = {true, false, true, true, true, false, false};
		pp_sb_adds(o, "<table>\n");
		th_row(o, vc, vn, 7);
		for (int i = 0; i < r->nverdict; i++) {
			const pp_report_verdict *v = &r->verdict[i];
			char ch[200];
			pp_sb_adds(o, "<tr>");
			snprintf(a, sizeof(a), "%lld", (long long)v->run_id);
			tdn(o, a);
			snprintf(ch, sizeof(ch), "%s%s%s%s", v->check, v->scope[0] ? " (" : "", v->scope,
				 v->scope[0] ? ")" : "");
			td(o, NULL, ch);
			snprintf(a, sizeof(a), "%.4g %s", v->measured, v->unit);
			tdn(o, isfinite(v->measured) ? a : "-");
			snprintf(b, sizeof(b), "%.4g %s", v->expected, v->unit);
			tdn(o, isfinite(v->expected) ? b : "-");
			snprintf(a, sizeof(a), "%.2f", v->ratio);
			tdn(o, isfinite(v->ratio) ? a : "-");
			pp_sb_adds(o, !strcmp(v->verdict, "SLOW") ? "<td><span class=\"tag slow\">"
								  : "<td><span class=\"tag\">");
			esc(o, v->verdict);
			pp_sb_adds(o, "</span></td>");
			td(o, "src", v->cause);
			pp_sb_adds(o, "</tr>\n");
		}
		pp_sb_adds(o, "</tbody></table>\n");
	}
	pp_sb_adds(o, "</section>\n");
}

/* ---- the page ---- */

static void files_section(pp_sb *o, const pp_report *r)
{
	pp_report_file files[PP_REPORT_MAX_FILES];
	int n = pp_report_csv(r, files, PP_REPORT_MAX_FILES);
	pp_sb_adds(o, "<section id=\"files\"><h2>Files and how to reproduce</h2>\n<p class=\"note\">"
		      "Next to this page: <code>summary.md</code>");
	for (int i = 0; i < n; i++) {
		pp_sb_adds(o, ", <code>");
		esc(o, files[i].name);
		pp_sb_adds(o, "</code>");
	}
	pp_report_files_release(files, n);
	pp_sb_adds(o, " (every number shown here, RFC 4180 CSV).</p>\n<p class=\"note\">Reproduce: "
		      "<code>podplan report ");
	esc(o, r->scenario_path);
	if (r->have_cost)
		pp_sb_addf(o, " --seed %lu --draws %d", r->cost.seed, r->cost.draws);
	pp_sb_adds(o, " -o DIR</code>; scenario hash <code>");
	esc(o, r->s->hash);
	pp_sb_adds(o, "</code>");
	if (r->run_id > 0)
		pp_sb_addf(o, "; recorded as run %lld (<code>podplan history</code>, "
			      "<code>podplan report --compare %lld OTHER</code>)",
			   (long long)r->run_id, (long long)r->run_id);
	pp_sb_adds(o, ".</p></section>\n");
}

void pp_report_html(const pp_report *r, pp_sb *o)
{
	const pp_scenario *s = r->s;
	pp_sb_adds(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		      "<meta name=\"generator\" content=\"podplan " PP_VERSION "\">\n<title>");
	esc(o, s->name);
	pp_sb_adds(o, " - podplan report</title>\n<style>\n");
	pp_sb_adds(o, css);
	pp_sb_adds(o, "</style>\n</head>\n<body>\n<header class=\"top\"><span><b>podplan report</b> "
		      "&middot; ");
	esc(o, s->name);
	pp_sb_adds(o, "</span><span>");
	if (r->run_id > 0)
		pp_sb_addf(o, "run %lld &middot; ", (long long)r->run_id);
	esc(o, r->generated);
	pp_sb_adds(o, " &middot; podplan " PP_VERSION);
	if (r->have_cost) {
		pp_sb_adds(o, " &middot; prices as of ");
		esc(o, r->cost.as_of);
	}
	pp_sb_adds(o, "</span></header>\n<main>\n<section id=\"answer\"><p class=\"label\">Question</p>\n"
		      "<h1 class=\"question\">");
	if (s->description[0])
		esc(o, s->description);
	else if (r->have_cost) {
		esc(o, "Which option does the work cheapest: ");
		esc(o, r->cost.work);
		esc(o, "?");
	} else {
		esc(o, "How fast does this cluster train the model, and does it fit?");
	}
	pp_sb_adds(o, "</h1>\n");
	if (r->have_cost)
		answer_cost(o, r);
	else
		answer_pred(o, r);
	pp_sb_adds(o, "</section>\n");
	warnings(o, r);
	if (r->have_cost) {
		options_table(o, r);
		pp_sb_adds(o, "<section id=\"charts\"><h2>Charts</h2>\n<div class=\"grid\">\n");
		pp_chart_cost(o, r);
		pp_chart_tradeoff(o, r);
		pp_chart_cumulative(o, r);
		pp_chart_tornado(o, r);
		pp_chart_distribution(o, r);
		pp_chart_steptime_cost(o, r);
		pp_sb_adds(o, "</div></section>\n");
		serving_section(o, r);
		finance_table(o, r);
		pp_report_cluster cl;
		if (pp_report_cluster_of(r, &cl))
			pp_report_cluster_section(o, &cl);
		pp_sb_adds(o, "<section id=\"engine\"><h2>Step time, memory and goodput</h2>\n");
		engine_cost(o, r);
		model_layout(o, r);
		pp_sb_adds(o, "</section>\n");
	} else {
		pp_sb_adds(o, "<section id=\"charts\"><h2>Charts</h2>\n<div class=\"grid\">\n");
		pp_chart_steptime_pred(o, r);
		pp_chart_memory(o, r);
		pp_sb_adds(o, "</div></section>\n");
		pp_sb_adds(o, "<section id=\"engine\"><h2>Step time and memory</h2>\n");
		engine_pred(o, r);
		model_layout(o, r);
		pp_sb_adds(o, "</section>\n");
	}
	/* the cost engine's staleness limit, from the tco.json it read */
	assumptions(o, r, r->have_cost ? r->cost.stale_months : NAN);
	files_section(o, r);
	pp_sb_adds(o, "</main>\n<footer>Generated by podplan " PP_VERSION " on ");
	esc(o, r->generated);
	pp_sb_adds(o, " from ");
	esc(o, r->scenario_path);
	pp_sb_adds(o, ". Estimates are marked; every figure's source and date is listed above. "
		      "This page needs no network and no script.</footer>\n</body>\n</html>\n");
}

void pp_report_cluster_page(pp_sb *o, const pp_report_cluster *c)
{
	const char *name = c->spec->name[0] ? c->spec->name : c->spec_path;
	pp_sb_adds(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		      "<meta name=\"generator\" content=\"podplan " PP_VERSION "\">\n<title>");
	esc(o, name);
	pp_sb_adds(o, " - podplan cluster report</title>\n<style>\n");
	pp_sb_adds(o, css);
	pp_sb_adds(o, "</style>\n</head>\n<body>\n<header class=\"top\"><span><b>podplan cluster "
		      "report</b> &middot; ");
	esc(o, name);
	pp_sb_adds(o, "</span><span>podplan " PP_VERSION "</span></header>\n<main>\n");
	pp_report_cluster_section(o, c);
	pp_sb_adds(o, "</main>\n<footer>Generated by <code>podplan cluster</code> from ");
	esc(o, c->spec_path);
	if (c->jobs_path) {
		pp_sb_adds(o, " and ");
		esc(o, c->jobs_path);
	}
	pp_sb_adds(o, "; the numbers of the charts are in timeline.csv and queue_cdf.csv. This page "
		      "needs no network and no script.</footer>\n</body>\n</html>\n");
}
