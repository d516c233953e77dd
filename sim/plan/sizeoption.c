/* sizeoption.c - one option of a sizing run (sizeopt.h): whether it is
 * searched, its layout search, and its record. */
#include "plan/answer.h"
#include "plan/sizeopt.h"
#include "input/prices.h"

#include <math.h>
#include <string.h>

/* Whether op's bounds rule it out against the target and the best found
 * so far (best_usd: cheapest meeting the deadline; best_time: fastest
 * within the budget); sets its status and why when they do. */
static bool ruled_out(const pp_size_opts *o, pp_size_option *op, double best_usd, double best_time)
{
	bool budget = o->budget_usd > 0, deadline = o->deadline_s > 0;
	char b1[32];
	if (deadline && op->lb_train_s > o->deadline_s) {
		op->status = PP_SIZE_SKIP_SLOW;
		snprintf(op->why, sizeof(op->why), "needs at least %s",
			 pp_fmt_duration(op->lb_train_s, b1, sizeof(b1)));
		return true;
	}
	if ((deadline && op->lb_usd >= best_usd) || (budget && op->lb_usd > o->budget_usd)) {
		op->status = PP_SIZE_SKIP_DEAR;
		snprintf(op->why, sizeof(op->why), "costs at least %s",
			 pp_fmt_usd(op->lb_usd, b1, sizeof(b1)));
		return true;
	}
	if (budget && op->lb_train_s >= best_time) {
		op->status = PP_SIZE_SKIP_SLOW;
		snprintf(op->why, sizeof(op->why), "needs at least %s",
			 pp_fmt_duration(op->lb_train_s, b1, sizeof(b1)));
		return true;
	}
	return false;
}

bool size_to_search(const pp_size_opts *o, size_opt *oi, double best_usd, double best_time)
{
	pp_size_option *op = &oi->o;
	return oi->valid && op->status != PP_SIZE_NO_PRICE &&
	       !ruled_out(o, op, best_usd, best_time);
}

int size_search_option(const pp_size_opts *o, const size_opt *oi, double steps, size_res *res,
		       pp_err *err)
{
	const pp_size_option *op = &oi->o;
	bool budget = o->budget_usd > 0, deadline = o->deadline_s > 0;
	pp_search_opts so = {o->conservative ? 16 : 1, false, false, op->usd_per_gpu_hour, o->progress,
			     o->progress_ctx, true, oi->fit, oi->cache, o->headroom};
	pp_search_result sr;
	pp_err e = {0};
	memset(res, 0, sizeof(*res));
	int rc;
	for (;;) {
		rc = pp_search_run(&oi->x, &oi->hw, &so, &sr, &e);
		if (rc || !o->conservative)
			break;
		/* the best at the pessimistic end: widened until no layout left
		 * out could beat it there (search's --conservative) */
		pp_answer_rank_conservative(o->conservative, &oi->x, &sr, NULL);
		if (pp_conservative_settled(o->conservative, &oi->x, &sr, 1) || so.top_k >= 4096)
			break;
		so.top_k *= 4;
		pp_search_result_release(&sr);
	}
	double scale = 1; /* the train time's factor: the interval's upper one, conservative */
	if (!rc && sr.nbest && o->conservative) {
		pp_answer a;
		pp_answer_of(o->conservative, &oi->x, &sr.best[0].layout, &sr.best[0].result, &a);
		scale = a.band.on ? a.band.f_hi : 1;
	}
	if (rc == PP_EINPUT) {
		res->status = PP_SIZE_NO_LAYOUT;
		snprintf(res->why, sizeof(res->why), "no valid layout");
		return 0;
	}
	if (rc)
		return res->rc = pp_errf(err, rc, "%s", e.msg);
	res->evaluated = sr.evaluated;
	res->feasible = sr.feasible;
	res->simulated = sr.simulated;
	if (!sr.nbest) {
		res->status = PP_SIZE_NO_FIT;
		snprintf(res->why, sizeof(res->why), "none of %lld layouts fits in %s memory",
			 (long long)sr.evaluated, op->gpu->id);
	} else {
		res->status = PP_SIZE_SEARCHED;
		res->best = sr.best[0];
		res->train_s = steps * res->best.result.step_time_s * scale;
		res->usd = pp_price_rent_usd(op->usd_per_gpu_hour, op->num_gpus, res->train_s);
		res->meets = deadline ? res->train_s <= o->deadline_s
			     : budget ? res->usd <= o->budget_usd
				      : true;
	}
	pp_search_result_release(&sr);
	return 0;
}

void size_record(pp_size_option *op, const size_res *res, pp_size_result *out,
		 double *best_usd, double *best_time)
{
	out->searches++;
	op->status = res->status;
	snprintf(op->why, sizeof(op->why), "%s", res->why);
	if (res->status == PP_SIZE_NO_LAYOUT)
		return;
	out->evaluated += res->evaluated;
	out->simulated += res->simulated;
	out->feasible += res->feasible;
	op->evaluated = res->evaluated;
	op->feasible = res->feasible;
	op->simulated = res->simulated;
	if (res->status == PP_SIZE_SEARCHED) {
		op->best = res->best;
		op->train_s = res->train_s;
		op->usd = res->usd;
		op->meets = res->meets;
	}
	if (op->status == PP_SIZE_SEARCHED && op->meets && op->usd < *best_usd)
		*best_usd = op->usd;
	if (op->status == PP_SIZE_SEARCHED && op->meets && op->train_s < *best_time)
		*best_time = op->train_s;
}
