/*
 * test_steady.c - the fast path's steady state (program.h, fastpath.h):
 * where a 1F1B or interleaved step repeats a cycle of periods, the walk
 * moves on whole cycles without issuing them, and must still give what the
 * event simulation of every task gives:
 *  - the schedule's periodicity the skip relies on, read off
 *    pp_schedule_unit() alone: in the steady part (from the first backward
 *    to the last forward's backward) unit i + T is unit i with the
 *    micro-batch S on, T = 2 and S = 1 for 1F1B, T = 2 P v and S = P
 *    interleaved;
 *  - on every layout of spaces with many micro-batches per stage (1F1B and
 *    interleaved, ZeRO 0-3, blocking sends, every overlap off, uneven
 *    stages, tied embeddings), the makespan, the task count and every
 *    stage's busy seconds equal the event simulation's, bit for bit,
 *    while most of those layouts skip, some through cycles of several
 *    periods;
 *  - pp_predict() (the fast path and its ablations) equals pp_predict()
 *    with a trace (the event simulation) field for field on skipping
 *    layouts, one of them 64 stages x 4,096 micro-batches;
 *  - GPipe, and a step too short for a period to repeat, issue every unit.
 */
#include "engine/fastpath.h"
#include "harness.h"
#include "engine/predict.h"
#include "engine/evgraph.h"
#include "engine/trace.h"
#include "plan/search.h"
#include "testutil.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool same_unit(pp_unit a, pp_unit b, int dmb)
{
	return a.fwd == b.fwd && a.chunk == b.chunk && a.mb == b.mb + dmb;
}

/* The steady part found by looking: from the first backward to the
 * backward after the last forward. */
static void steady_by_scan(const pp_scenario *s, int st, int *from, int *to)
{
	pp_pipe pl = pp_pipe_of(s);
	int n = pp_schedule_count(&pl), last_f = -1;
	*from = n;
	for (int i = 0; i < n; i++) {
		pp_unit u = pp_schedule_unit(&pl, st, i);
		if (!u.fwd && *from == n)
			*from = i;
		if (u.fwd)
			last_f = i;
	}
	*to = last_f + 2 > n ? n : last_f + 2;
}

static void schedule_periodic(void)
{
	pp_scenario s;
	memset(&s, 0, sizeof(s));
	int cases = 0, bad = 0;
	for (int sched = 0; sched < 2; sched++)
		for (int P = 1; P <= 9; P++)
			for (int v = 1; v <= (sched ? 4 : 1); v++) {
				if (sched && (v == 1 || P == 1))
					continue;
				for (int m = 1; m <= 40; m++) {
					if (sched && m % P)
						continue;
					s.parallel.pp = P;
					s.parallel.vpp = v;
					s.parallel.schedule = sched ? PP_SCHED_INTERLEAVED : PP_SCHED_1F1B;
					s.training.num_microbatches = m;
					pp_pipe pl = pp_pipe_of(&s);
					int T = sched ? 2 * P * v : 2, S = sched ? P : 1;
					for (int st = 0; st < P; st++) {
						int from, to;
						steady_by_scan(&s, st, &from, &to);
						/* the checkpoints start where the scan finds the steady part */
						cases++;
						for (int i = from + T; i < to; i++)
							bad += !same_unit(pp_schedule_unit(&pl, st, i),
									  pp_schedule_unit(&pl, st, i - T), S);
					}
				}
			}
	pp_t_diag("%d stage schedules: %d units not the unit a period before", cases, bad);
	CHECK(cases > 1000);
	CHECK(bad == 0);
}

/* GPT 1.7B cut to 18 layers (uneven over 4 or 8 stages, tied embeddings)
 * on 16 GPUs, with a global batch that gives up to 64 micro-batches. */
#define GPT(extra_training, extra)                                                                 \
	"{\"name\": \"gpt\", \"model\": {\"preset\": \"gpt-1.7b\", \"num_layers\": 18}, "          \
	"\"training\": {\"global_batch_size\": 64, \"use_flash_attn\": true, \"recompute\": "       \
	"\"none\"" extra_training "}, " extra                                                      \
	"\"cluster\": {\"gpu\": \"a100-80gb\", \"num_gpus\": 16, \"intra_node\": \"nvlink3\", "     \
	"\"inter_node\": {\"fabric\": \"ib-hdr\", \"nics_per_node\": 8}}}"

#define GPT530(mbs, tp, pp, cp)                                                                    \
	"{\"name\": \"530b\", \"model\": {\"preset\": \"gpt-530b\"}, \"training\": "                 \
	"{\"global_batch_size\": 2560, \"recompute\": \"selective\", \"use_flash_attn\": false, "       \
	"\"micro_batch_size\": " mbs "}, \"parallel\": {\"tensor_model_parallel_size\": " tp ", "        \
	"\"pipeline_model_parallel_size\": " pp ", \"context_parallel_size\": " cp "}, "               \
	"\"cluster\": {\"gpu\": \"a100-80gb\", \"num_gpus\": 5120, \"gpus_per_node\": 8, "            \
	"\"intra_node\": \"nvlink3\", \"inter_node\": {\"fabric\": \"ib-hdr\", \"nics_per_node\": 8}}}"

static const char *const spaces[] = {
	GPT("", "\"parallel\": {\"tensor_model_parallel_size\": 1}, "),
	/* blocking sends; gradient and parameter traffic after the step */
	GPT(", \"overlap_grad_reduce\": false, \"overlap_param_gather\": false, "
	    "\"overlap_p2p_comm\": false",
	    "\"parallel\": {\"tensor_model_parallel_size\": 2}, "),
	/* 13 layers: stages of 2 and 1 layers, where the stages settle into
	 * cycles of several periods */
	"{\"name\": \"uneven\", \"model\": {\"preset\": \"gpt-1.7b\", \"num_layers\": 13}, "
	"\"training\": {\"global_batch_size\": 128, \"use_flash_attn\": true, \"recompute\": "
	"\"none\", \"micro_batch_size\": 1}, \"parallel\": {\"tensor_model_parallel_size\": 1, "
	"\"context_parallel_size\": 1}, \"cluster\": {\"gpu\": \"a100-80gb\", \"num_gpus\": 16, "
	"\"intra_node\": \"nvlink3\", \"inter_node\": {\"fabric\": \"ib-hdr\", \"nics_per_node\": 8}}}",
	/* the 530B model (105 layers) on 5,120 A100s over 10 and 40 stages
	 * (5 and 25 of them a layer heavier), every boundary between nodes:
	 * the stages settle into cycles of 5 and 25 periods */
	GPT530("5", "2", "10", "64"),
	GPT530("20", "1", "40", "128"),
	/* 12 layers on a slow fabric: the distributed optimizer's traffic
	 * holds the DP stream (the tight bound's terms), interleaved up to 6 */
	"{\"name\": \"slow\", \"model\": {\"preset\": \"gpt-1.7b\", \"num_layers\": 12}, "
	"\"training\": {\"global_batch_size\": 64, \"use_flash_attn\": true, \"recompute\": "
	"\"none\"}, \"parallel\": {\"tensor_model_parallel_size\": 1, \"context_parallel_size\": 1}, "
	"\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 16, \"inter_node\": {\"fabric\": "
	"\"eth-10g\", \"nics_per_node\": 1}}}",
};

static pp_stage_busy *busy_new(const pp_scenario *s)
{
	return pp_xcalloc((size_t)s->parallel.pp, sizeof(pp_stage_busy));
}

static void walk_exact(void)
{
	int64_t total = 0, bad = 0, badn = 0, badb = 0, skipping = 0, cycles = 0, steady = 0;
	int64_t units = 0, skipped = 0, badt = 0, raised = 0, badl = 0, limited = 0;
	for (size_t sp = 0; sp < PP_ARRAY_LEN(spaces); sp++) {
		pp_scenario s;
		pp_hw hw;
		if (tu_scenario_unchecked(spaces[sp], &s, &hw)) {
			CHECK(0);
			continue;
		}
		pp_layout *lay;
		size_t n;
		pp_err err = {0};
		CHECK(pp_space_enumerate(&s, &lay, &n, NULL, 0, &err) == 0);
		pp_scenario x = s;
		for (size_t i = 0; i < n; i++) {
			pp_layout_apply(&x, &lay[i]);
			pp_workload w;
			pp_workload_build(&w, &x, &hw);
			pp_des *d = pp_des_new();
			pp_stage_busy *bd = busy_new(&x), *bf = busy_new(&x);
			pp_sched_opts o = {false, false, false};
			pp_evgraph_build(d, &x, &hw, &w, &o, bd);
			int64_t td = pp_des_run(d, &err) ? -1 : pp_des_makespan(d);
			int64_t tasks = 0;
			pp_fp_stats st;
			int64_t tf = pp_fp_run_stats(&x, &hw, &w, &o, bf, &tasks, &st);
			if (tf != td && bad++ < 5) {
				char buf[200];
				pp_t_diag("%s: fast %lld (cycle %d, %lld units skipped), event simulation "
					  "%lld", pp_layout_str(&lay[i], buf, sizeof(buf)), (long long)tf,
					  st.cycle, (long long)st.skipped, (long long)td);
			}
			badn += tasks != pp_des_events(d);
			/* the walk against a limit (the search's k-th best): the
			 * step when it is within, INT64_MAX when it is not, however
			 * early the walk's end bound stops it */
			if (td > 0) {
				int64_t lims[4] = {td, td - 1, td - td / 50, td / 2};
				for (int j = 0; j < 4; j++) {
					int64_t got = pp_fp_step_within_ns(&x, &hw, &w, lims[j]);
					badl += got != (td <= lims[j] ? td : INT64_MAX);
					limited++;
				}
			}
			/* the bounds: bound <= tight bound <= the event simulation */
			int64_t b = pp_fp_bound_ns(&x, &hw, &w), bt = pp_fp_bound_tight_ns(&x, &hw, &w);
			badt += b > bt || bt > td;
			raised += bt > b;
			for (int k = 0; k < x.parallel.pp; k++)
				badb += bf[k].compute_s != bd[k].compute_s || bf[k].tp_s != bd[k].tp_s ||
					bf[k].ep_s != bd[k].ep_s || bf[k].opt_s != bd[k].opt_s ||
					bf[k].last_task != pp_des_end(d, (int)bd[k].last_task);
			/* a period can repeat where the steady part lasts a few periods */
			if (x.parallel.pp > 1 && x.training.num_microbatches >= 4 * x.parallel.pp &&
			    x.parallel.schedule != PP_SCHED_GPIPE)
				steady++;
			skipping += st.skipped > 0;
			cycles += st.cycle > 1;
			units += st.units;
			skipped += st.skipped;
			free(bd);
			free(bf);
			pp_des_free(d);
			pp_workload_release(&w);
			total++;
		}
		free(lay);
		pp_scenario_release(&s);
	}
	pp_t_diag("%lld layouts (%lld with a steady part of 4 x stages micro-batches): %lld skip "
		  "(%lld through cycles of several periods), %.0f%% of units skipped; %lld "
		  "makespan, %lld task-count, %lld busy mismatches", (long long)total,
		  (long long)steady, (long long)skipping, (long long)cycles,
		  100.0 * (double)skipped / (double)(units + skipped), (long long)bad, (long long)badn,
		  (long long)badb);
	CHECK(total > 300);
	CHECK(bad == 0);
	CHECK(badn == 0);
	CHECK(badb == 0);
	CHECK(skipping >= steady / 2);
	CHECK(cycles >= 6);
	pp_t_diag("tight bound: %lld outside [bound, exact], %lld above the bound", (long long)badt,
		  (long long)raised);
	CHECK(badt == 0);
	CHECK(raised > 0);
	pp_t_diag("%lld walks against a limit, %lld not the step or INT64_MAX as it should",
		  (long long)limited, (long long)badl);
	CHECK(limited > 1000);
	CHECK(badl == 0);
}

/* pp_predict() through the fast path equals pp_predict() with a trace (the
 * event simulation), every field: the step, the breakdown from the
 * ablations, the events. */
static void predict_equal(void)
{
	const char *cases[] = {
		/* 1F1B, ZeRO-3 over 4, uneven stages */
		GPT("", "\"parallel\": {\"tensor_model_parallel_size\": 1, "
			"\"pipeline_model_parallel_size\": 4, \"data_parallel_size\": 4, "
			"\"zero_stage\": 3}, "),
		/* interleaved x3 over 2 stages, distributed optimizer */
		GPT("", "\"parallel\": {\"tensor_model_parallel_size\": 2, "
			"\"pipeline_model_parallel_size\": 2, \"data_parallel_size\": 4, "
			"\"virtual_pipeline_model_parallel_size\": 3, \"zero_stage\": 1}, "),
		/* blocking sends, 8 stages */
		GPT(", \"overlap_p2p_comm\": false", "\"parallel\": {\"tensor_model_parallel_size\": 1, "
			"\"pipeline_model_parallel_size\": 8, \"data_parallel_size\": 2}, "),		/* mid-size: bench/bench_predict_big.json's model and stages at 4,096
		 * micro-batches (262,144 tasks, inside the event simulation's limit;
		 * the bench runs 32,768) */
		"{\"name\": \"mid\", \"model\": {\"preset\": \"gpt-1.7b\", \"num_layers\": 64}, "
		"\"training\": {\"global_batch_size\": 4096, \"micro_batch_size\": 1}, "
		"\"parallel\": {\"pipeline_model_parallel_size\": 64}, "
		"\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 64}}",
	};
	for (size_t i = 0; i < PP_ARRAY_LEN(cases); i++) {
		pp_scenario s;
		pp_hw hw;
		if (tu_scenario_unchecked(cases[i], &s, &hw)) {
			CHECK(0);
			continue;
		}
		pp_workload w;
		pp_workload_build(&w, &s, &hw);
		pp_fp_stats st;
		CHECK(pp_fp_run_stats(&s, &hw, &w, NULL, NULL, NULL, &st) > 0);
		pp_workload_release(&w);
		pp_result a, b;
		pp_err err = {0};
		pp_trace *tr = pp_trace_new();
		pp_predict_opts o = {tr, NULL};
		CHECK(pp_predict(&s, &hw, NULL, &a, &err) == 0);
		CHECK(pp_predict(&s, &hw, &o, &b, &err) == 0);
		CHECK(st.skipped > 0);
		CHECK(!memcmp(&a, &b, sizeof(a)));
		pp_t_diag("case %zu: %lld of %lld units skipped (cycle of %d periods); step %.6f s, "
			  "bubble %.6f s, DP %.6f s, events %lld vs %lld", i, (long long)st.skipped,
			  (long long)(st.units + st.skipped), st.cycle, a.step_time_s,
			  a.breakdown.pp_bubble_s, a.breakdown.dp_comm_exposed_s, (long long)a.events,
			  (long long)b.events);
		pp_trace_free(tr);
		pp_scenario_release(&s);
	}
}

/* No steady part to skip: GPipe, and two micro-batches over two stages. */
static void no_skip(void)
{
	const char *cases[] = {
		GPT("", "\"parallel\": {\"tensor_model_parallel_size\": 1, "
			"\"pipeline_model_parallel_size\": 4, \"data_parallel_size\": 4, "
			"\"pipeline_schedule\": \"gpipe\"}, "),
		GPT(", \"micro_batch_size\": 4", "\"parallel\": {\"tensor_model_parallel_size\": 1, "
			"\"pipeline_model_parallel_size\": 2, \"data_parallel_size\": 8}, "),
	};
	for (size_t i = 0; i < PP_ARRAY_LEN(cases); i++) {
		pp_scenario s;
		pp_hw hw;
		if (tu_scenario_unchecked(cases[i], &s, &hw)) {
			CHECK(0);
			continue;
		}
		pp_workload w;
		pp_workload_build(&w, &s, &hw);
		pp_fp_stats st;
		CHECK(pp_fp_run_stats(&s, &hw, &w, NULL, NULL, NULL, &st) > 0);
		CHECK(st.skipped == 0);
		pp_pipe pl = pp_pipe_of(&s);
		CHECK(st.units == (int64_t)pp_schedule_count(&pl) * s.parallel.pp);
		pp_workload_release(&w);
		pp_scenario_release(&s);
	}
}

int main(void)
{
	RUN(schedule_periodic);
	RUN(walk_exact);
	RUN(predict_equal);
	RUN(no_skip);
	return pp_t_done("test_steady");
}
