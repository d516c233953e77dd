/*
 * test_answer.c - search answers that respect the evidence (plan/answer.h,
 * calib/headroom.h): the allocator's headroom from the framework set (its
 * median worked out outside podplan), no layout above capacity x
 * (1 - headroom), the step
 * at the best published MFU, and --conservative's order, which must not
 * change when the search is widened.
 */
#include "harness.h"
#include "testutil.h"
#include "calib/evidence.h"
#include "calib/headroom.h"
#include "core/util.h"
#include "plan/answer.h"
#include "plan/search.h"
#include "plan/size.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The 24 runs of models/calibrations/framework-h200.csv with both
 * figures, 1 - measured_allocated_bytes / measured_bytes, sorted outside
 * podplan (Python's csv and sorted): the 12th and 13th are 0.10614 and
 * 0.12386, their mean 0.11500. */
static void headroom_measured(void)
{
	pp_headroom h;
	pp_err err = {0};
	CHECK(pp_headroom_measured(tu_catalog(), "pytorch", &h, &err) == 0);
	CHECK_NEAR(h.share, 0.115, 1e-3);
	CHECK(h.runs == 24);
	/* a framework with no run of its own: every run, and it says so */
	CHECK(pp_headroom_measured(tu_catalog(), "megatron-core", &h, &err) == 0);
	CHECK_NEAR(h.share, 0.115, 1e-3);
	CHECK_CONTAINS(h.what, "none of megatron-core");
	CHECK(pp_headroom_given(0.95, &h, &err) == PP_EINPUT);
	CHECK(pp_headroom_given(0.2, &h, &err) == 0 && h.share == 0.2);
	/* 80 GB with 20% kept: 64 GB usable; 70 GB is in the reserve, 60 GB
	 * is not, 81 GB does not fit at all (another verdict) */
	char why[512];
	CHECK(pp_headroom_check(&h, 70e9, 80e9, why, sizeof(why)) == 1);
	CHECK_CONTAINS(why, "80.0% left");
	CHECK(pp_headroom_check(&h, 60e9, 80e9, why, sizeof(why)) == 0);
	CHECK(pp_headroom_check(&h, 81e9, 80e9, why, sizeof(why)) == 0);
}

static const char *l70 =
	"{\"name\": \"l70\", \"model\": {\"preset\": \"llama3-70b\"},"
	" \"training\": {\"global_batch_size\": 1024, \"train_tokens\": 1e12},"
	" \"cluster\": {\"gpu\": \"h200\", \"num_gpus\": 256}}";

/* Llama 3 70B on 256 H200 (issue 33's question): without headroom the
 * fastest layouts use more than 88.5% of the 141 GB; with it none does,
 * and the answer is the fastest of those the full search kept under the
 * line (the search stays exact). */
static void search_keeps_headroom(void)
{
	pp_scenario s;
	pp_hw hw;
	if (tu_scenario_unchecked(l70, &s, &hw)) {
		CHECK(0);
		return;
	}
	pp_search_opts o0 = {40, false, false, 0, NULL, NULL, true, NULL, NULL, 0};
	pp_search_opts o1 = o0;
	o1.top_k = 5;
	o1.headroom = 0.115;
	pp_search_result r0, r1;
	pp_err err = {0};
	CHECK(pp_search_run(&s, &hw, &o0, &r0, &err) == 0);
	CHECK(pp_search_run(&s, &hw, &o1, &r1, &err) == 0);
	double cap = hw.mem_capacity_bytes;
	bool above = false;
	int first_under = -1;
	for (int i = 0; i < r0.nbest; i++) {
		above |= r0.best[i].result.memory.total_bytes > cap * (1 - 0.115);
		if (first_under < 0 && r0.best[i].result.memory.total_bytes <= cap * (1 - 0.115))
			first_under = i;
	}
	CHECK(above); /* the headroom has something to exclude */
	CHECK(r1.nbest == 5);
	for (int i = 0; i < r1.nbest; i++)
		CHECK(r1.best[i].result.memory.total_bytes <= cap * (1 - 0.115));
	CHECK(first_under >= 0);
	if (first_under >= 0 && r1.nbest)
		CHECK(r1.best[0].step_ns == r0.best[first_under].step_ns);
	pp_search_result_release(&r0);
	pp_search_result_release(&r1);
	pp_scenario_release(&s);
}

/* A prediction above the best published MFU of its GPU and precision
 * (plausibility.json: H200 at bf16, 49%) is also stated at it: the same
 * work at 49% takes step x MFU / 0.49. */
static void at_best_published(void)
{
	pp_scenario s;
	pp_hw hw;
	if (tu_scenario_unchecked(l70, &s, &hw)) {
		CHECK(0);
		return;
	}
	pp_result r;
	memset(&r, 0, sizeof(r));
	r.step_time_s = 10;
	r.mfu = 0.588;
	pp_layout l = {.tp = 2, .pp = 1, .dp = 64, .cp = 2, .vpp = 1, .micro_batch_size = 1, .ep = 1};
	pp_answer a;
	pp_answer_of(tu_catalog(), &s, &l, &r, &a);
	CHECK_NEAR(a.best_mfu, 0.49, 1e-9);
	CHECK(a.above_best);
	CHECK_NEAR(a.step_at_best_s, 12.0, 1e-9);
	CHECK(a.band.on);
	r.mfu = 0.40;
	pp_answer_of(tu_catalog(), &s, &l, &r, &a);
	CHECK(!a.above_best && isnan(a.step_at_best_s));
	pp_scenario_release(&s);
}

/* --conservative: the order is by step x the upper factor; the first 3 of
 * it from a top list the settle test accepts equal the first 3 from a
 * list eight times longer. */
static void conservative_order(void)
{
	pp_scenario s;
	pp_hw hw;
	if (tu_scenario_unchecked(l70, &s, &hw)) {
		CHECK(0);
		return;
	}
	const pp_catalog *cat = tu_catalog();
	int k = 3, top = 16;
	pp_search_result r;
	pp_err err = {0};
	for (;;) {
		pp_search_opts o = {top, false, false, 0, NULL, NULL, true, NULL, NULL, 0.115};
		CHECK(pp_search_run(&s, &hw, &o, &r, &err) == 0);
		pp_answer_rank_conservative(cat, &s, &r, NULL);
		if (pp_conservative_settled(cat, &s, &r, k) || top >= 1024)
			break;
		top *= 4;
		pp_search_result_release(&r);
	}
	pp_answer *ans = pp_xcalloc((size_t)r.nbest, sizeof(*ans));
	for (int i = 0; i < r.nbest; i++)
		pp_answer_of(cat, &s, &r.best[i].layout, &r.best[i].result, &ans[i]);
	for (int i = 1; i < r.nbest; i++)
		CHECK(pp_band_pessimistic(&ans[i - 1].band, r.best[i - 1].result.step_time_s) <=
		      pp_band_pessimistic(&ans[i].band, r.best[i].result.step_time_s));
	pp_search_opts wide = {8 * top, false, false, 0, NULL, NULL, true, NULL, NULL, 0.115};
	pp_search_result w;
	CHECK(pp_search_run(&s, &hw, &wide, &w, &err) == 0);
	pp_answer_rank_conservative(cat, &s, &w, NULL);
	for (int i = 0; i < k && i < r.nbest && i < w.nbest; i++)
		CHECK(r.best[i].index == w.best[i].index);
	pp_t_diag("settled at a top list of %d", top);
	free(ans);
	pp_search_result_release(&w);
	pp_search_result_release(&r);
	pp_scenario_release(&s);
}

/* size --conservative: every searched option's time to train is the
 * steps x its layout's step x its interval's upper factor, and each
 * option's layout is at least as good at that end as the one the plain
 * size picks for it. */
static void size_conservative(void)
{
	const char *json =
		"{\"name\": \"sz\", \"model\": {\"preset\": \"gpt-1.7b\"}, \"training\": "
		"{\"global_batch_size\": 64, \"train_tokens\": 2e10}, \"search\": {\"gpus\": "
		"[\"a100-80gb\", \"h100-sxm\"], \"num_gpus\": [8, 16], \"fabrics\": [\"ib-hdr\"]}, "
		"\"cluster\": {\"gpu\": \"a100-80gb\", \"num_gpus\": 16}}";
	pp_scenario s;
	pp_hw hw;
	if (tu_scenario_unchecked(json, &s, &hw)) {
		CHECK(0);
		return;
	}
	const pp_catalog *cat = tu_catalog();
	pp_err err = {0};
	pp_size_opts o;
	memset(&o, 0, sizeof(o));
	o.spec = s.search;
	o.headroom = 0.115;
	pp_size_result plain, cons;
	CHECK(pp_size_run(&s, cat, &o, &plain, &err) == 0);
	o.conservative = cat;
	CHECK(pp_size_run(&s, cat, &o, &cons, &err) == 0);
	double steps = ceil(2e10 / (64.0 * 2048));
	int checked = 0;
	for (int i = 0; i < cons.n; i++) {
		const pp_size_option *op = &cons.opt[i];
		if (op->status != PP_SIZE_SEARCHED)
			continue;
		pp_scenario x = s;
		x.cluster.gpu = op->gpu;
		x.cluster.num_gpus = op->num_gpus;
		pp_answer a;
		pp_answer_of(cat, &x, &op->best.layout, &op->best.result, &a);
		CHECK(a.band.on);
		CHECK_NEAR(op->train_s, steps * op->best.result.step_time_s * a.band.f_hi, 1e-9);
		for (int j = 0; j < plain.n; j++) {
			const pp_size_option *q = &plain.opt[j];
			if (q->status != PP_SIZE_SEARCHED || q->gpu != op->gpu || q->num_gpus != op->num_gpus)
				continue;
			pp_answer b;
			pp_answer_of(cat, &x, &q->best.layout, &q->best.result, &b);
			CHECK(pp_band_pessimistic(&a.band, op->best.result.step_time_s) <=
			      pp_band_pessimistic(&b.band, q->best.result.step_time_s) * (1 + 1e-12));
			checked++;
		}
	}
	CHECK(checked == 4);
	pp_size_result_release(&plain);
	pp_size_result_release(&cons);
	pp_scenario_release(&s);
}

int main(void)
{
	RUN(headroom_measured);
	RUN(search_keeps_headroom);
	RUN(at_best_published);
	RUN(conservative_order);
	RUN(size_conservative);
	return pp_t_done("test_answer");
}
