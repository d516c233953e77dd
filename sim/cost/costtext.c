/* costtext.c - the recommendation and the description of the work, in words (costtext.h). */
#include "cost/costtext.h"
#include "core/fmt.h"


/* Wall-clock to the end of the work: lead time plus time to train. */
static double time_done_s(const pp_cost_option *o)
{
	return o->time_to_train_s + o->lead_time_s;
}

/* Equal times to train: two options on the same hardware priced apart
 * (two providers of one GPU) predict the same seconds, up to rounding. */
static bool same_time(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* The feasible option (not `skip`) that finishes first; among those that
 * finish together, the cheapest: the premium for speed is measured
 * against it, never against a dearer twin. -1 when none has a finite time. */
static int fastest_option(const pp_cost_result *r, int skip)
{
	int fast = -1;
	for (int i = 0; i < r->noptions; i++) {
		const pp_cost_option *f = &r->options[i];
		if (!f->feasible || i == skip || !isfinite(f->time_to_train_s))
			continue;
		if (fast < 0) {
			fast = i;
			continue;
		}
		double ti = time_done_s(f), tf = time_done_s(&r->options[fast]);
		if (same_time(ti, tf) ? f->usd_total < r->options[fast].usd_total : ti < tf)
			fast = i;
	}
	return fast;
}

void cost_recommend(ctx *c, int rec, int ru)
{
	pp_cost_result *r = c->r;
	pp_sb sb = {0};
	char a[32], b[32], x[32], t[32];
	char target[96] = "";
	if (r->deadline_s >= 86400)
		snprintf(target, sizeof(target), " within the %.3g-day deadline", r->deadline_s / 86400);
	else if (r->deadline_s > 0)
		snprintf(target, sizeof(target), " within the %s deadline",
			 pp_fmt_duration(r->deadline_s, t, sizeof(t)));
	else if (r->budget_usd > 0)
		snprintf(target, sizeof(target), " within the %s budget",
			 pp_fmt_usd(r->budget_usd, a, sizeof(a)));
	if (rec < 0) {
		int any = 0;
		for (int i = 0; i < r->noptions; i++)
			any += r->options[i].feasible;
		int fast = fastest_option(r, -1);
		if (any && target[0]) {
			pp_sb_addf(&sb, "No option does the work%s.", target);
			if (fast >= 0)
				pp_sb_addf(&sb, " The fastest, %s, takes %s (lead time included) for %s.",
					   r->options[fast].name,
					   pp_fmt_duration(r->options[fast].time_to_train_s +
							    r->options[fast].lead_time_s, t, sizeof(t)),
					   pp_fmt_usd(r->options[fast].usd_total, a, sizeof(a)));
			goto out;
		}
		pp_sb_adds(&sb, "No option can do this work:");
		for (int i = 0; i < r->noptions; i++)
			pp_sb_addf(&sb, " %s: %s.", r->options[i].name, r->options[i].infeasible_why);
		goto out;
	}
	const pp_cost_option *o = &r->options[rec];
	char rg[64];
	pp_sb_addf(&sb, "%s (%s) is the %s%s%s: %s for %s", o->name, o->label,
		   r->budget_usd > 0 ? "fastest" : "cheapest",
		   r->risked >= 0 ? " option that can be obtained" : "", target,
		   pp_fmt_usd(o->usd_total, a, sizeof(a)), r->work);
	if (isfinite(o->usd_per_million_tokens))
		pp_sb_addf(&sb, ", $%.3g per 1M tokens", o->usd_per_million_tokens);
	if (r->draws > 0)
		pp_sb_addf(&sb, " (P10-P90 %s)",
			   pp_fmt_usd_range(o->p10_usd, o->p90_usd, "-", rg, sizeof(rg)));
	if (isfinite(o->time_to_train_s))
	{
		char tk[32];
		if (c->work == PP_WORK_RECURRING)
			pp_sb_addf(&sb, "; one job takes %s", pp_fmt_duration(o->time_to_train_s, t, sizeof(t)));
		else
			pp_sb_addf(&sb, "; one %s-token run takes %s",
				   pp_fmt_tokens(c->train_tokens, tk, sizeof(tk)),
				   pp_fmt_duration(o->time_to_train_s, t, sizeof(t)));
	}
	if (o->lead_time_s > 0)
		pp_sb_addf(&sb, " after a %s lead time", pp_fmt_duration(o->lead_time_s, t, sizeof(t)));
	pp_sb_adds(&sb, ".");
	if (!o->obtainable)
		pp_sb_addf(&sb, " Caution: no option can be counted on; this one %s.", o->risk);
	if (r->risked >= 0) {
		const pp_cost_option *k = &r->options[r->risked];
		double d = o->usd_total - k->usd_total;
		pp_sb_addf(&sb, " Risked alternative: %s would cost %s", k->name,
			   pp_fmt_usd(k->usd_total, a, sizeof(a)));
		if (r->draws > 0)
			pp_sb_addf(&sb, " (P10-P90 %s)",
				   pp_fmt_usd_range(k->p10_usd, k->p90_usd, "-", rg, sizeof(rg)));
		pp_sb_addf(&sb, ", %s (%.0f%%) less, but it %s.", pp_fmt_usd(d, b, sizeof(b)),
			   o->usd_total > 0 ? 100.0 * d / o->usd_total : 0, k->risk);
	}
	if (ru >= 0) {
		const pp_cost_option *u = &r->options[ru];
		double d = u->usd_total - o->usd_total;
		pp_sb_addf(&sb, " The runner-up, %s, costs %s: %s (%.0f%%) more.", u->name,
			   pp_fmt_usd(u->usd_total, a, sizeof(a)), pp_fmt_usd(d, b, sizeof(b)),
			   100.0 * d / o->usd_total);
	}
	if (r->draws > 0) {
		pp_sb_addf(&sb, " It is the cheapest in %.0f%% of %d Monte Carlo draws (seed %lu)",
			   100 * o->p_cheapest, r->draws, r->seed);
		pp_sb_adds(&sb, o->p_cheapest < 0.6 ? ", so the choice is within the uncertainty: look "
						     "at the tornado for what decides it." : ".");
	}
	if (r->ntornado > 0) {
		const pp_tornado_row *tr = &r->tornado[0];
		pp_sb_addf(&sb, " The largest driver is %s (%s to %s).", tr->driver,
			   pp_fmt_usd(fmin(tr->low_usd, tr->high_usd), a, sizeof(a)),
			   pp_fmt_usd(fmax(tr->low_usd, tr->high_usd), b, sizeof(b)));
		for (int i = 0; i < r->ntornado; i++)
			if (r->tornado[i].low_margin_usd < 0 || r->tornado[i].high_margin_usd < 0) {
				pp_sb_addf(&sb, " At the %s end of \"%s\" the runner-up would win.",
					   r->tornado[i].low_margin_usd < 0 ? "low" : "high",
					   r->tornado[i].driver);
				break;
			}
	}
	/* build economics of the cheapest owned option, whichever option won */
	int own = -1;
	for (int i = 0; i < r->noptions; i++)
		if (r->options[i].fin.valid && r->options[i].feasible &&
		    (own < 0 || r->options[i].usd_total < r->options[own].usd_total))
			own = i;
	for (int i = own; i >= 0 && i < r->noptions; i++) {
		const pp_cost_option *b2 = &r->options[i];
		const pp_cost_fin *f = &b2->fin;
		pp_sb_addf(&sb, " Building (%s) instead of renting (%s): NPV %s at %.0f%%", b2->name,
			   f->versus, pp_fmt_usd(f->npv_usd, a, sizeof(a)), 100 * f->discount_rate);
		if (isfinite(f->irr))
			pp_sb_addf(&sb, ", IRR %.0f%%", 100 * f->irr);
		if (isfinite(f->payback_months))
			pp_sb_addf(&sb, ", payback in %.1f months", f->payback_months);
		if (isfinite(f->breakeven_utilization))
			pp_sb_addf(&sb, ", breaks even with renting on $/token at %.0f%% utilisation",
				   100 * f->breakeven_utilization);
		else
			pp_sb_adds(&sb, ", never breaks even on $/token even at 100% utilisation");
		if (isfinite(f->crossover_month))
			pp_sb_addf(&sb, ", cumulative cost crosses below renting in month %.0f",
				   f->crossover_month);
		pp_sb_adds(&sb, ".");
		break;
	}
	/* the fastest, when the recommendation does not finish as early */
	int fast = fastest_option(r, r->risked);
	if (fast >= 0 && fast != rec && isfinite(o->time_to_train_s) &&
	    !same_time(time_done_s(&r->options[fast]), time_done_s(o))) {
		const pp_cost_option *f = &r->options[fast];
		double d = f->usd_total - o->usd_total;
		pp_sb_addf(&sb, " Fastest is %s (%s), for %s %s.", f->name,
			   pp_fmt_duration(time_done_s(f), t, sizeof(t)),
			   pp_fmt_usd(fabs(d), x, sizeof(x)), d >= 0 ? "more" : "less");
	}
out:
	snprintf(r->recommendation, sizeof(r->recommendation), "%s", sb.buf ? sb.buf : "");
	pp_sb_release(&sb);
}

void cost_describe_work(ctx *c)
{
	char tk[32];
	pp_cost_result *r = c->r;
	switch (c->work) {
	case PP_WORK_RUN:
		snprintf(r->work, sizeof(r->work), "%g run%s of %s tokens", c->runs, c->runs == 1 ? "" : "s",
			 pp_fmt_tokens(c->train_tokens, tk, sizeof(tk)));
		r->runs = c->runs;
		break;
	case PP_WORK_RECURRING:
	{
		char jn[24]; /* the count as printed decides the plural: "1 job", "4.35 jobs" */
		snprintf(jn, sizeof(jn), "%.3g", c->jobs_per_month);
		snprintf(r->work, sizeof(r->work), "%s job%s/month of %s tokens for %.0f months", jn,
			 strcmp(jn, "1") ? "s" : "", pp_fmt_tokens(c->tokens_per_job, tk, sizeof(tk)),
			 c->horizon_months);
	}
		r->runs = c->jobs_per_month * c->horizon_months;
		break;
	case PP_WORK_CAPACITY:
		snprintf(r->work, sizeof(r->work),
			 "steady training of %s tokens/month for %.0f months",
			 pp_fmt_tokens(c->capacity_tokens_per_month, tk, sizeof(tk)),
			 c->horizon_months);
		break;
	default: {
		char ti[32], to[32];
		snprintf(r->work, sizeof(r->work),
			 "serving %s tokens/month (%s in, %s out) for %.0f months, 24/7",
			 pp_fmt_tokens(c->tokens_per_month, tk, sizeof(tk)),
			 pp_fmt_tokens(c->input_tokens_per_month, ti, sizeof(ti)),
			 pp_fmt_tokens(c->output_tokens_per_month, to, sizeof(to)), c->horizon_months);
	}
	}
}

