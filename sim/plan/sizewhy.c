/* sizewhy.c - the answer of a sizing run and why, in sentences
 * (sizeopt.h size_explain). */
#include "plan/sizeopt.h"

#include <math.h>

/* "64 x h100-sxm (ib-ndr)" */
static void label(const pp_size_option *o, char *buf, size_t n)
{
	snprintf(buf, n, "%d x %s (%s)", o->num_gpus, o->gpu->id, o->inter->id);
}

/* The answer and why, in sentences, when one option meets the target. */
static void explain_answer(const pp_size_result *out, const pp_size_opts *o, pp_sb *why)
{
	bool budget = o->budget_usd > 0, deadline = o->deadline_s > 0;
	char l1[96], l2[200], b1[32], b2[32], b3[32];
	const pp_size_option *a = &out->opt[out->answer];
	label(a, l1, sizeof(l1));
	pp_sb_addf(why, "%s trains %.3g tokens in %s for %s", l1, out->train_tokens,
		   pp_fmt_duration(a->train_s, b1, sizeof(b1)), pp_fmt_usd(a->usd, b2, sizeof(b2)));
	if (deadline)
		pp_sb_addf(why, ", the cheapest option within the %.3g-day deadline",
			   o->deadline_s / 86400.0);
	else if (budget)
		pp_sb_addf(why, ", the fastest option within the %s budget",
			   pp_fmt_usd(o->budget_usd, b3, sizeof(b3)));
	else
		pp_sb_adds(why, ", the cheapest option");
	pp_sb_addf(why, " (best layout %s, %.1f%% MFU, $%.3g per GPU-hour).",
		   pp_layout_str(&a->best.layout, l2, sizeof(l2)), 100 * a->best.result.mfu,
		   a->usd_per_gpu_hour);
	/* the runner-up, and a cheaper option that misses */
	for (int i = out->answer + 1; i < out->n; i++) {
		const pp_size_option *r = &out->opt[i];
		if (r->status != PP_SIZE_SEARCHED || !r->meets)
			continue;
		label(r, l1, sizeof(l1));
		if (budget)
			pp_sb_addf(why, " Next fastest within budget: %s, %s for %s.", l1,
				   pp_fmt_duration(r->train_s, b1, sizeof(b1)),
				   pp_fmt_usd(r->usd, b2, sizeof(b2)));
		else
			pp_sb_addf(why, " Next cheapest: %s, %s more (%s).", l1,
				   pp_fmt_usd(r->usd - a->usd, b1, sizeof(b1)),
				   pp_fmt_duration(r->train_s, b2, sizeof(b2)));
		break;
	}
	for (int i = 0; i < out->n && deadline; i++) {
		const pp_size_option *r = &out->opt[i];
		if (r->status != PP_SIZE_SEARCHED || r->meets || !(r->usd < a->usd))
			continue;
		label(r, l1, sizeof(l1));
		pp_sb_addf(why, " Cheaper but too slow: %s, %s for %s.", l1,
			   pp_fmt_duration(r->train_s, b1, sizeof(b1)), pp_fmt_usd(r->usd, b2, sizeof(b2)));
		break;
	}
}

/* Why no option meets the target, and what the closest ones reach. */
static void explain_none(const pp_size_result *out, const pp_size_opts *o, pp_sb *why)
{
	bool budget = o->budget_usd > 0, deadline = o->deadline_s > 0;
	char b1[32];
	pp_sb_addf(why, "No option %s.",
		   deadline ? "trains within the deadline"
		   : budget ? "trains within the budget"
			    : "can train the model");
	double fastest = INFINITY, cheapest = INFINITY;
	for (int i = 0; i < out->n; i++)
		if (out->opt[i].status == PP_SIZE_SEARCHED) {
			if (out->opt[i].train_s < fastest)
				fastest = out->opt[i].train_s;
			if (out->opt[i].usd < cheapest)
				cheapest = out->opt[i].usd;
		}
	if (deadline && isfinite(fastest))
		pp_sb_addf(why, " The fastest option searched needs %s; add GPUs (search."
			   "num_gpus), a faster SKU, or relax the deadline.",
			   pp_fmt_duration(fastest, b1, sizeof(b1)));
	if (budget && isfinite(cheapest))
		pp_sb_addf(why, " The cheapest option searched costs %s.",
			   pp_fmt_usd(cheapest, b1, sizeof(b1)));
}

void size_explain(const pp_size_result *out, const pp_size_opts *o, pp_sb *why)
{
	if (out->answer >= 0)
		explain_answer(out, o, why);
	else
		explain_none(out, o, why);
}
