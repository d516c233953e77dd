/*
 * cost.c - see cost.h. The TCO engine's run: resolve the context
 * (costdata.c) and every option (costopt.c) once, price each over a monthly
 * schedule (costeval.c), rank them, compare building with renting, run the
 * Monte Carlo and the tornado, and say what it means (costtext.c).
 *
 * Output formats (JSON, CSV, text) are in costout.c.
 */
#include "calib/headroom.h"
#include "cost/costcluster.h"
#include "cost/costdata.h"
#include "cost/costeval.h"
#include "cost/costopt.h"
#include "cost/costserve.h"
#include "cost/costtext.h"
#include "cost/montecarlo.h"
#include "core/warn.h"
#include "input/plausible.h"

#include <limits.h>

const char *const pp_option_kind_names[PP_OPT_KIND_COUNT] = {"rent", "build", "api", "tier4"};
const char *const pp_cost_comp_names[PP_CC_COUNT] = {"gpu_time", "idle_commitment", "servers",
						     "network", "storage", "facility", "support",
						     "staff", "api"};

/* The most GPUs an option may need (copies of its cluster x its GPUs):
 * past it, a volume is not a deployment anyone can price. */
#define PP_COST_MAX_GPUS 1e7

static void fill_option(const ctx *c, const oin *o, const ev *e, pp_cost_option *out)
{
	out->feasible = o->feasible;
	snprintf(out->infeasible_why, sizeof(out->infeasible_why), "%s", o->why);
	bool cluster = o->kind != PP_OPT_API;
	out->step_time_s = cluster && c->work != PP_WORK_INFERENCE ? o->step_time_s : NAN;
	if (cluster && c->work != PP_WORK_INFERENCE)
		out->band = o->band;
	out->tokens_per_s = cluster ? o->tokens_per_s : NAN;
	out->mfu = cluster && c->work != PP_WORK_INFERENCE ? o->mfu : NAN;
	if (cluster && c->work != PP_WORK_INFERENCE)
		out->breakdown = o->breakdown;
	out->memory_per_gpu_bytes = cluster ? o->mem_bytes : NAN;
	out->memory_capacity_bytes = cluster ? o->mem_capacity_bytes : NAN;
	out->goodput = cluster ? e->goodput : NAN;
	out->checkpoint_interval_s =
		cluster && isfinite(e->checkpoint_interval_s) && e->checkpoint_interval_s > 0
			? e->checkpoint_interval_s
			: NAN;
	out->tokens_per_s_effective = cluster ? o->tokens_per_s * e->goodput : NAN;
	out->time_to_train_s = e->time_to_train_s;
	out->lead_time_s = o->owned ? o->lead_time_months * PP_SECONDS_PER_MONTH : 0;
	out->gpu_hours_used = cluster ? e->gpu_hours : NAN;
	out->replicas = e->replicas;
	double gpus = o->num_gpus * e->replicas;
	out->gpus_priced = cluster ? (gpus < INT_MAX ? (int)lround(gpus) : INT_MAX) : 0;
	out->contract_usd = e->contract_usd;
	out->capex_usd = e->capex_usd;
	out->net_switches = o->net_switches;
	out->net_links = o->net_links;
	out->net_tiers = o->net_tiers;
	out->storage_tb = o->storage_tb;
	out->usd_total = e->total_usd;
	out->usd_amortized = e->amortized_usd;
	out->usd_marginal = e->marginal_usd;
	double runs = c->work == PP_WORK_RUN ? c->runs
		      : c->work == PP_WORK_RECURRING ? c->jobs_per_month * c->horizon_months : NAN;
	out->usd_per_run = runs > 0 ? e->total_usd / runs : NAN;
	out->usd_per_million_tokens = e->tokens > 0 ? e->total_usd / (e->tokens / 1e6) : NAN;
	out->usd_per_million_tokens_marginal =
		e->tokens > 0 ? e->marginal_usd / (e->tokens / 1e6) : NAN;
	out->usd_per_gpu_hour_used =
		cluster && e->gpu_hours > 0 ? e->total_usd / e->gpu_hours : NAN;
	memcpy(out->components, e->comp_usd, sizeof(out->components));
	cost_serve_split(c, o, e->total_usd, out);
}

/* Build-vs-rent finance of owned option b against rent option v. */
static void finance_of(const ctx *c, const oin *ob, const pp_cost_option *b, const oin *ov,
		       const pp_cost_option *v, pp_cost_fin *f)
{
	memset(f, 0, sizeof(*f));
	f->valid = true;
	snprintf(f->versus, sizeof(f->versus), "%s", v->name);
	f->discount_rate = c->discount_rate_per_year;
	f->utilization = c->fleet_utilization;
	int n = b->nmonths > v->nmonths ? b->nmonths : v->nmonths;
	double *cf = pp_xcalloc((size_t)n + 1, sizeof(double));
	for (int m = 0; m <= n; m++) {
		double cb = b->cum_usd[m < b->nmonths ? m : b->nmonths];
		double pb = m ? b->cum_usd[(m - 1) < b->nmonths ? m - 1 : b->nmonths] : 0;
		double cv = v->cum_usd[m < v->nmonths ? m : v->nmonths];
		double pv = m ? v->cum_usd[(m - 1) < v->nmonths ? m - 1 : v->nmonths] : 0;
		cf[m] = (cv - pv) - (cb - pb); /* rent avoided minus build cost */
	}
	f->capex_usd = b->capex_usd;
	double win = fmax(0, (double)b->nmonths - ob->lead_time_months) / 12.0;
	f->residual_usd = (ob->server_usd * ob->num_servers + ob->network_usd +
			   ob->storage_tb * c->storage_buy_usd_per_tb) *
			  cost_residual_fraction(c, win, c->resale_haircut);
	double mr = pp_fin_monthly_rate(c->discount_rate_per_year);
	f->npv_usd = pp_fin_npv(mr, cf, (size_t)n + 1);
	double irr_m = pp_fin_irr(cf, (size_t)n + 1);
	f->irr = isnan(irr_m) ? NAN : pp_fin_annual_rate(irr_m);
	f->payback_months = pp_fin_payback(cf, (size_t)n + 1);
	f->discounted_payback_months = pp_fin_discounted_payback(mr, cf, (size_t)n + 1);
	f->crossover_month = NAN;
	for (int m = 1; m <= n; m++) {
		double cb = b->cum_usd[m < b->nmonths ? m : b->nmonths];
		double cv = v->cum_usd[m < v->nmonths ? m : v->nmonths];
		if (cb <= cv) {
			f->crossover_month = m;
			break;
		}
	}
	free(cf);
	/* fully loaded $ per used GPU-hour at the fleet utilisation */
	f->usd_per_gpu_hour_used = b->gpu_hours_used > 0 ? b->usd_amortized / b->gpu_hours_used : NAN;
	/* break-even utilisation: build $/token (F/U + V)/t_b = rent $/token
	 * r/t_v, with F the fixed and V the variable cost per GPU-hour. */
	double U = c->fleet_utilization;
	double kw_act = ob->server_kw * c->active_draw_fraction,
	       kw_idle = ob->server_kw * c->idle_draw_fraction;
	double V = (kw_act - kw_idle) * c->pue * c->usd_per_kwh / ob->gpus_per_node;
	double per_used = f->usd_per_gpu_hour_used;
	double F = (per_used - V) * U; /* per available GPU-hour */
	double tb = ob->tokens_per_s * b->goodput, tv = ov->tokens_per_s * v->goodput;
	double rent_per_tok = v->gpu_hours_used > 0 ? (v->components[PP_CC_GPU_TIME] +
						       v->components[PP_CC_IDLE_COMMIT]) /
						      v->gpu_hours_used / (tv / ov->num_gpus)
						: NAN;
	double denom = rent_per_tok * (tb / ob->num_gpus) - V;
	f->breakeven_utilization = denom > 0 ? F / denom : NAN;
	if (!(f->breakeven_utilization > 0 && f->breakeven_utilization <= 1))
		f->breakeven_utilization = NAN;
}

int pp_cost_histogram(const pp_cost_option *o, int nbins, double *lo, double *hi, int *counts)
{
	if (!o->samples || o->nsamples == 0 || nbins <= 0)
		return 0;
	if (*lo >= *hi) {
		/* the P1 and P99 order statistics: summarised with the draws, or
		 * selected here */
		int n = o->nsamples;
		size_t k1 = (size_t)(0.01 * (n - 1)), k99 = (size_t)(0.99 * (n - 1));
		*lo = isnan(o->q01_usd) ? pp_mc_order_stat(o->samples, (size_t)n, k1) : o->q01_usd;
		*hi = isnan(o->q99_usd) ? pp_mc_order_stat(o->samples, (size_t)n, k99) : o->q99_usd;
		if (*hi <= *lo)
			*hi = *lo + 1;
	}
	memset(counts, 0, (size_t)nbins * sizeof(int));
	int counted = 0;
	double w = (*hi - *lo) / nbins;
	for (int i = 0; i < o->nsamples; i++) {
		double x = o->samples[i];
		if (x < *lo || x >= *hi)
			continue;
		int b = (int)((x - *lo) / w);
		if (b >= nbins)
			b = nbins - 1;
		counts[b]++;
		counted++;
	}
	return counted;
}

void pp_cost_result_release(pp_cost_result *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->noptions; i++) {
		free(r->options[i].samples);
		free(r->options[i].cum_usd);
	}
	free(r->options);
	free(r->tornado);
	free(r->sources);
	pp_warn_free(r->warnings, r->nwarnings);
	pp_cost_cluster_free(r->cluster);
	memset(r, 0, sizeof(*r));
}

/* With no horizon given, a run is priced over the longest window any
 * cluster option needs. */
static void run_horizon(ctx *c, const oin *oi, int n)
{
	if (c->work != PP_WORK_RUN || c->horizon_given)
		return;
	double h = 0;
	for (int i = 0; i < n; i++) {
		ev e;
		cost_evaluate(c, &oi[i], &cost_base_draw, true, &e, NULL, 0);
		if (oi[i].kind != PP_OPT_API)
			h = fmax(h, e.window_months);
	}
	c->horizon_months = h > 0 ? h : 1;
}

/* Whether o is within the run's target (cost.h). */
static bool within_target(const pp_cost_result *out, const pp_cost_option *o)
{
	if (out->deadline_s > 0) {
		double t = o->time_to_train_s + o->lead_time_s;
		return !isfinite(t) || t <= out->deadline_s;
	}
	if (out->budget_usd > 0)
		return o->usd_total <= out->budget_usd;
	return true;
}

/* Whether o can be had as priced: a spot option whose nodes (every
 * replica's) exceed tco.json's spot.max_nodes_obtainable cannot be
 * counted on; it is then a risked alternative with its risk in words. */
static void obtainability(ctx *c, const oin *oi, pp_cost_option *o)
{
	o->obtainable = true;
	o->risk[0] = '\0';
	if (oi->tier != TIER_SPOT || !o->feasible)
		return;
	double nodes = oi->nodes * (o->replicas > 1 ? o->replicas : 1);
	if (!(nodes > c->spot_max_nodes))
		return;
	o->obtainable = false;
	char age[80] = "";
	if (!oi->price_date[0] || (oi->price_date[0] < '0' || oi->price_date[0] > '9'))
		snprintf(age, sizeof(age), "; its spot price is undated (prices.json: \"%.40s\")",
			 oi->price_date[0] ? oi->price_date : "no date");
	snprintf(o->risk, sizeof(o->risk),
		 "needs %.0f spot nodes (%d GPUs) at once and for the whole run; no provider "
		 "guarantees spot capacity, and podplan counts on at most %.0f nodes "
		 "(tco.json spot.max_nodes_obtainable, an estimate), so it may not be obtainable and "
		 "its time to result is optimistic%s", nodes, o->gpus_priced, c->spot_max_nodes, age);
	cost_warnf(c, "option \"%s\" %s", o->name, o->risk);
}

/* Every option at the base case: its figures, its cumulative cash, the work
 * lost to goodput, and the warnings about it. */
static void price_base_case(ctx *c, oin *oi, int n)
{
	pp_cost_result *out = c->r;
	for (int i = 0; i < n; i++) {
		ev e, e0;
		cost_evaluate(c, &oi[i], &cost_base_draw, true, &e, NULL, 0);
		if (oi[i].tier == TIER_R1 || oi[i].tier == TIER_R3) {
			/* the contract is what the base case commits to */
			oi[i].contract_replicas = e.replicas;
			oi[i].contract_months =
				ceil(e.window_months / oi[i].commit_months - 1e-9) * oi[i].commit_months;
			oi[i].contract_set = true;
		}
		pp_cost_option *o = &out->options[i];
		o->nmonths = e.nmonths;
		o->cum_usd = pp_xcalloc((size_t)e.nmonths + 1, sizeof(double));
		cost_evaluate(c, &oi[i], &cost_base_draw, true, &e, o->cum_usd, e.nmonths + 1);
		fill_option(c, &oi[i], &e, o);
		if (o->feasible && oi[i].num_gpus * e.replicas > PP_COST_MAX_GPUS) {
			/* more copies than any fleet holds: not a price to print */
			o->feasible = false;
			snprintf(o->infeasible_why, sizeof(o->infeasible_why), "it needs %.3g copies of its "
				 "cluster (%.3g GPUs) to keep up with the volume, more than the %.0e GPUs "
				 "podplan prices", e.replicas, oi[i].num_gpus * e.replicas,
				 (double)PP_COST_MAX_GPUS);
		}
		if (o->feasible && e.nmonths > PP_COST_MAX_MONTHS) {
			o->feasible = false;
			snprintf(o->infeasible_why, sizeof(o->infeasible_why), "its work takes more than "
				 "%d months (%.3g), past the longest schedule podplan prices",
				 PP_COST_MAX_MONTHS, e.window_months);
		}
		cost_label_option(&oi[i], o);
		obtainability(c, &oi[i], o);
		o->meets_target = within_target(out, o);
		cost_evaluate(c, &oi[i], &cost_base_draw, false, &e0, NULL, 0);
		o->usd_lost_work = e.total_usd - e0.total_usd;
		if (out->tokens_total == 0)
			out->tokens_total = e.tokens;
		if (!o->feasible)
			cost_warnf(c, "option \"%s\" cannot do the work: %s", o->name,
				   o->infeasible_why);
		char why[1024];
		if (o->feasible && oi[i].gpu && c->work != PP_WORK_INFERENCE &&
		    pp_catalog_mfu_check(c->cat, oi[i].gpu, c->s->training.precision, oi[i].mfu, why,
					 sizeof(why)))
			cost_warnf(c, "option \"%s\": %s", o->name, why);
		if (e.replicas > 1 && c->work != PP_WORK_INFERENCE)
			cost_warnf(c,
				   "option \"%s\" needs %.0f copies of its cluster to keep up with "
				   "the demand",
				   o->name, e.replicas);
		if ((oi[i].tier == TIER_R1 || oi[i].tier == TIER_R3) &&
		    e.window_months < ceil(e.window_months / oi[i].commit_months - 1e-9) *
					      oi[i].commit_months - 1e-6)
			cost_warnf(c, "option \"%s\": the %.0f-month commitment outlasts the work "
				   "(%.1f months); the idle remainder is paid", o->name,
				   oi[i].commit_months, e.window_months);
	}
}

/* Whether any feasible option within the target can be obtained: then
 * only those compete. */
static bool any_obtainable(const pp_cost_result *out)
{
	for (int i = 0; i < out->noptions; i++)
		if (out->options[i].feasible && out->options[i].meets_target &&
		    out->options[i].obtainable)
			return true;
	return false;
}

/* What options are ranked by: the full cost, or with a budget the time
 * to result (lead time + one run; an option without one last). */
static double rank_key(const pp_cost_result *out, const pp_cost_option *x)
{
	if (out->budget_usd > 0) {
		double t = x->time_to_train_s + x->lead_time_s;
		return isfinite(t) ? t : INFINITY;
	}
	return x->usd_total;
}

/* The best feasible option within the target that can be obtained (any
 * feasible one within it when none can) and the runner-up among the same;
 * the best one that cannot be obtained, when it is better still, as the
 * risked alternative. */
static void rank_options(pp_cost_result *out)
{
	bool only_obtainable = any_obtainable(out);
	out->risked = -1;
	for (int i = 0; i < out->noptions; i++) {
		const pp_cost_option *x = &out->options[i];
		if (!x->feasible || !x->meets_target)
			continue;
		double k = rank_key(out, x);
		if (only_obtainable && !x->obtainable) {
			if (out->risked < 0 || k < rank_key(out, &out->options[out->risked]))
				out->risked = i;
			continue;
		}
		if (out->recommended < 0 || k < rank_key(out, &out->options[out->recommended])) {
			out->runner_up = out->recommended;
			out->recommended = i;
		} else if (out->runner_up < 0 || k < rank_key(out, &out->options[out->runner_up])) {
			out->runner_up = i;
		}
	}
	if (out->risked >= 0 &&
	    (out->recommended < 0 || rank_key(out, &out->options[out->risked]) >=
					     rank_key(out, &out->options[out->recommended])))
		out->risked = -1;
}

/* Build-vs-rent finance of every owned option against the cheapest
 * feasible rented cluster that can be obtained (any feasible rented one
 * when none can). */
static void build_vs_rent(ctx *c, const oin *oi, int n)
{
	pp_cost_result *out = c->r;
	int vs = -1;
	for (int pass = 0; pass < 2 && vs < 0; pass++)
		for (int i = 0; i < n; i++)
			if (out->options[i].feasible && (pass || out->options[i].obtainable) &&
			    !oi[i].owned && oi[i].kind != PP_OPT_API &&
			    (vs < 0 || out->options[i].usd_total < out->options[vs].usd_total))
				vs = i;
	for (int i = 0; i < n; i++)
		if (oi[i].owned && vs >= 0)
			finance_of(c, &oi[i], &out->options[i], &oi[vs], &out->options[vs],
				   &out->options[i].fin);
}

/* Stale or undated prices among the sources, one warning each; then the
 * other figures (staff per GPU, failure rates, efficiencies) older than the
 * same limit: the sources table tags them old, so the list of what to
 * check before deciding names them too; then podplan's own assumptions
 * (a discount rate, a support share, a payroll), which no source backs. */
static void warn_old_prices(ctx *c)
{
	pp_cost_result *out = c->r;
	pp_sb stale = {0}, undated = {0}, other = {0}, assumed = {0};
	int nstale = 0, nund = 0, nother = 0, nassumed = 0;
	for (int i = 0; i < out->nsources; i++) {
		const pp_cost_source *sr = &out->sources[i];
		if (sr->assumption)
			pp_sb_addf(&assumed, "%s%s", nassumed++ ? "; " : "", sr->item);
		if (strncmp(sr->unit, "usd", 3)) {
			if (sr->age_months > c->stale_months)
				pp_sb_addf(&other, "%s%s (%s)", nother++ ? "; " : "", sr->item, sr->date);
			continue;
		}
		if (isnan(sr->age_months)) {
			pp_sb_addf(&undated, "%s%s", nund++ ? "; " : "", sr->item);
		} else if (sr->age_months > c->stale_months) {
			pp_sb_addf(&stale, "%s%s (%s)", nstale++ ? "; " : "", sr->item, sr->date);
		}
	}
	if (nstale)
		cost_warnf(c, "%d price%s older than %.0f months at %s, check before deciding: %s",
			   nstale, nstale > 1 ? "s are" : " is", c->stale_months, out->as_of,
			   stale.buf);
	if (nund)
		cost_warnf(c, "%d price%s undated, check before deciding: %s", nund,
			   nund > 1 ? "s are" : " is", undated.buf);
	if (nother)
		cost_warnf(c, "%d other figure%s older than %.0f months at %s, check before deciding: "
			   "%s", nother, nother > 1 ? "s are" : " is", c->stale_months, out->as_of,
			   other.buf);
	if (nassumed)
		cost_warnf(c, "%d figure%s podplan's own assumption%s, with no published source: %s; "
			   "replace %s with your own before deciding", nassumed,
			   nassumed > 1 ? "s are" : " is", nassumed > 1 ? "s" : "", assumed.buf,
			   nassumed > 1 ? "them" : "it");
	pp_sb_release(&stale);
	pp_sb_release(&undated);
	pp_sb_release(&other);
	pp_sb_release(&assumed);
}

int pp_cost_run(const pp_scenario *s, const pp_catalog *cat, const pp_cost_opts *opts,
		pp_cost_result *out, pp_err *err)
{
	double t0 = pp_mono_s();
	memset(out, 0, sizeof(*out));
	out->recommended = out->runner_up = out->risked = -1;
	out->deadline_s = opts && opts->deadline_s > 0 ? opts->deadline_s : 0;
	out->budget_usd = opts && opts->budget_usd > 0 ? opts->budget_usd : 0;
	if (!opts || !opts->predict)
		return pp_errf(err, PP_EINTERNAL, "pp_cost_run: no step-time predictor given");
	if (!s->costs.present)
		return pp_errf(err, PP_EINPUT,
			       "%s: no \"costs\" section; expected one with \"work\" and "
			       "\"options\" (docs/costs.md, \"The `costs` section, key by key\")",
			       s->doc.path);
	ctx c;
	oin *oi = NULL;
	int rc;
	if ((rc = cost_ctx_open(&c, s, cat, opts->tco_path, out, err)))
		goto out;
	c.opts = opts;
	if ((rc = cost_ctx_calibration(&c, opts->hwcal)))
		goto out;
	snprintf(out->scenario, sizeof(out->scenario), "%s", s->name);
	snprintf(out->question, sizeof(out->question), "%s", s->description);
	pp_scenario_plausibility(s, &out->warnings, &out->nwarnings);
	if ((rc = cost_ctx_resolve(&c)) || (rc = cost_capacity_tokens(&c, opts)))
		goto out;
	cost_eval_prepare(&c);
	out->seed = opts->seed_given ? opts->seed : c.cs->seed_given ? c.cs->seed
		    : (unsigned long)cost_tco(&c, "uncertainty.seed", "seed");
	out->draws = opts->draws_given ? opts->draws : c.cs->draws >= 0 ? c.cs->draws
		     : (int)cost_tco(&c, "uncertainty.draws", "draws");
	if ((rc = c.rc))
		goto out;
	int n = c.cs->noptions;
	out->options = pp_xcalloc((size_t)n, sizeof(*out->options));
	out->noptions = n;
	oi = pp_xcalloc((size_t)n, sizeof(*oi));
	for (int i = 0; i < n; i++) {
		if ((rc = cost_resolve_option(&c, opts, i, &oi[i], &out->options[i])) ||
		    (rc = c.rc))
			goto out;
	}
	cost_step_sigmas(&c, oi, n);
	/* a cluster option that fits only into the caching allocator's
	 * reserve: said, the option kept (its layout is the scenario's) */
	pp_headroom hr;
	pp_err herr = {0};
	if (c.work != PP_WORK_INFERENCE &&
	    !pp_headroom_measured(cat, s->training.stack.framework, &hr, &herr)) {
		/* one warning per figure, naming every option it applies to */
		bool *said = pp_xcalloc((size_t)n + 1, sizeof(bool));
		for (int i = 0; i < n; i++) {
			char why[512], other[512];
			if (said[i] || oi[i].kind == PP_OPT_API || !oi[i].feasible ||
			    !pp_headroom_check(&hr, oi[i].mem_bytes, oi[i].mem_capacity_bytes, why,
					       sizeof(why)))
				continue;
			pp_sb names = {0};
			int k = 0;
			for (int j = i; j < n; j++)
				if (!said[j] && oi[j].kind != PP_OPT_API && oi[j].feasible &&
				    pp_headroom_check(&hr, oi[j].mem_bytes, oi[j].mem_capacity_bytes,
						      other, sizeof(other)) && !strcmp(other, why)) {
					said[j] = true;
					pp_sb_addf(&names, "%s\"%s\"", k++ ? ", " : "", out->options[j].name);
				}
			cost_warnf(&c, "option%s %s: %s", k > 1 ? "s" : "", names.buf ? names.buf : "", why);
			pp_sb_release(&names);
		}
		free(said);
	}
	for (int i = 0; i < n; i++)
		oi[i].group = cost_group_of(oi, n, i);
	run_horizon(&c, oi, n);
	out->horizon_months = c.horizon_months;
	cost_describe_work(&c);
	cost_serve_describe(&c, oi, n);
	price_base_case(&c, oi, n);
	{ /* the draws walk every option's months again: bounded first */
		double months = 0;
		for (int i = 0; i < n; i++)
			months += out->options[i].nmonths;
		if (months * out->draws > PP_COST_LIMIT_MONTH_DRAWS) {
			rc = pp_errf(err, PP_EINPUT, "%s: costs: found %d options' schedules of %.0f "
				     "months in all x %d draws (uncertainty.draws) = %.3g month "
				     "evaluations, above the limit of %.3g; expected fewer draws, a "
				     "shorter horizon_months or less work", s->doc.path, n, months,
				     out->draws, months * out->draws, PP_COST_LIMIT_MONTH_DRAWS);
			goto out;
		}
	}
	rank_options(out);
	build_vs_rent(&c, oi, n);
	double tm = pp_mono_s();
	cost_monte_carlo(&c, oi, n, out->seed, out->draws);
	cost_tornado(&c, oi, out->recommended, out->runner_up);
	out->mc_elapsed_s = pp_mono_s() - tm;
	cost_recommend(&c, out->recommended, out->runner_up);
	warn_old_prices(&c);
	rc = 0;
out:
	free(oi);
	cost_ctx_close(&c);
	if (rc) /* on failure the result holds nothing */
		pp_cost_result_release(out);
	out->elapsed_s = pp_mono_s() - t0;
	return rc;
}
