/*
 * test_pipesched.c - the pipeline schedules written as per-rank action
 * lists (engine/pipeorder.h, pipelist.c) and run by the real engine:
 *  - every list runs each micro-batch's forward once per chunk, its
 *    backward once (whole, or as an input-gradient part before a
 *    weight-gradient part), the forward before the backward;
 *  - the bubble of the schedules as the event simulation runs them, with
 *    synthetic unit costs (a layer's forward F, its input gradient I, its
 *    weight gradient W; no transfers), at F = I = W and at F = I = 2 W
 *    (F = 2, B = 3, W = 1 with B the full backward), on 2, 4 and 8 ranks
 *    with 2 p, 4 p and 6 p + 4 micro-batches, equals the published formulas: 1F1B (p - 1)(F + B), ZB-H1
 *    (p - 1)(F + B - W), ZB-H2 (p - 1)(F + B - 2 W) (zero-bubble README /
 *    ICLR 2024 paper, B the input gradient), ZB-V (p - 1)(F + B - 2 W) in chunk units, DualPipeV
 *    and DualPipe (PP/2 - 1)(F&B + B - 3 W) (deepseek-ai/DualPipe README, B the full
 *    backward, F&B an overlapped pair, run here as F then B; PP the
 *    stages: 2 p for DualPipeV, p for DualPipe). The bubble
 *    of a rank is its idle time from its first action's start to its last
 *    action's end (the zero-bubble paper's parallelogram); the formulas are
 *    the worst rank's, rank 0's;
 *  - the activations a rank holds at its peak, in chunks, against the
 *    README tables' multiples: 1F1B p, ZB-H1 p (1x), ZB-H2 2 p - 1, ZB-V 2 p half-size
 *    chunks (1x), DualPipeV PP + 1 chunks (PP = 2 p stages), DualPipe
 *    PP + 1 chunks of a stage each (PP = p), its parameters 2x (each rank
 *    holds 1F1B's stage r and stage p - 1 - r);
 *  - DualPipe's lists on 4 ranks as deepseek-ai/DualPipe dualpipe.py's
 *    step() orders them, transcribed by hand from its eight steps;
 *  - the weight-gradient share W comes from the op list's *.wgrad GEMMs;
 *  - the timeline read off the event simulation (timeline.h, predict
 *    --schedule) runs each rank's actions in its list's order, one after
 *    the other; the names PyTorch and the zero-bubble fork give select the
 *    same schedules;
 *  - the fast path (the search's closed form) equals the event simulation
 *    to the nanosecond on real workloads with every listed schedule, and
 *    its bounds stay below it;
 *  - a V (ZB-V, DualPipeV) reads pipeline_model_parallel_layout in the
 *    model's order of virtual stages, DualPipe as its pp stages.
 */
#include "engine/evgraph.h"
#include "engine/fastpath.h"
#include "engine/pipeorder.h"
#include "engine/stages.h"
#include "engine/stepcost.h"
#include "engine/timeline.h"
#include "harness.h"
#include "testutil.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const pp_schedule listed[] = {PP_SCHED_ZBH1, PP_SCHED_ZBH2, PP_SCHED_ZBV,
				      PP_SCHED_DUALPIPEV, PP_SCHED_DUALPIPE};

/* Whether the list generator takes P ranks and m micro-batches:
 * DualPipeV at least 2 P micro-batches, DualPipe an even number of
 * ranks and of micro-batches, at least 2 P (dualpipe.py's asserts). */
static bool list_takes(pp_schedule k, int P, int m)
{
	if (k == PP_SCHED_DUALPIPEV)
		return m >= 2 * P;
	if (k == PP_SCHED_DUALPIPE)
		return P % 2 == 0 && m % 2 == 0 && m >= 2 * P;
	return true;
}

/* Whether chunk c of a list runs micro-batch mb: every one, but under
 * DualPipe chunk 0 the first half, chunk 1 the second. */
static bool runs(pp_schedule k, int c, int mb, int m)
{
	return k != PP_SCHED_DUALPIPE || (c == 0) == (mb < m / 2);
}

static void lists_complete(void)
{
	int cases = 0, bad = 0;
	for (size_t k = 0; k < PP_ARRAY_LEN(listed); k++)
		for (int P = 1; P <= 8; P++)
			for (int m = 1; m <= 40; m++) {
				pp_pipe pl = {P, pp_schedule_two_chunks(listed[k]) ? 2 : 1, listed[k], m};
				if (!list_takes(listed[k], P, m))
					continue;
				int V = pl.vpp;
				pp_unit *u = pp_xmalloc(sizeof(pp_unit) * (size_t)pp_pipe_list_cap(&pl));
				/* per (chunk, mb): 1 forward, 2 backward whole, 4 input, 8 weight */
				int *seen = pp_xcalloc((size_t)(V * m), sizeof(int));
				for (int st = 0; st < P; st++) {
					memset(seen, 0, sizeof(int) * (size_t)(V * m));
					int n = pp_pipe_list(&pl, st, u);
					for (int i = 0; i < n; i++) {
						int *x = &seen[u[i].chunk * m + u[i].mb];
						int bit = u[i].fwd ? 1 : u[i].act == PP_ACT_I ? 4 : u[i].act == PP_ACT_W ? 8 : 2;
						/* each once; a backward after its forward, W after I */
						bad += (*x & bit) || (!u[i].fwd && !(*x & 1)) ||
						       (bit == 8 && !(*x & 4)) || (bit == 2 && (*x & 4));
						*x |= bit;
					}
					for (int j = 0; j < V * m; j++)
						bad += runs(listed[k], j / m, j % m, m)
							       ? seen[j] != 3 && seen[j] != 13
							       : seen[j] != 0;
					cases++;
				}
				free(seen);
				free(u);
			}
	pp_t_diag("%d stage lists: %d actions missing, repeated or out of order", cases, bad);
	CHECK(cases > 500);
	CHECK(bad == 0);
}

/* A dense model cut into 2 x P layers on P GPUs (one pipeline, no data
 * parallelism), untied embeddings, m micro-batches. */
static int scenario(pp_scenario *s, pp_hw *hw, const char *sched, int P, int m)
{
	char js[1024];
	snprintf(js, sizeof(js),
		 "{\"name\": \"pipe\", \"model\": {\"preset\": \"gpt-1.7b\", \"num_layers\": %d}, "
		 "\"training\": {\"global_batch_size\": %d, \"micro_batch_size\": 1, "
		 "\"use_flash_attn\": true, \"recompute\": \"none\"}, "
		 "\"parallel\": {\"tensor_model_parallel_size\": 1, "
		 "\"pipeline_model_parallel_size\": %d, \"pipeline_schedule\": \"%s\"}, "
		 "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": %d}}",
		 2 * P, m, P, sched, P);
	int rc = tu_scenario_unchecked(js, s, hw);
	s->model.tied_embeddings = false;
	return rc;
}

/* Every layer: forward f, backward i + w of which the weight gradients w
 * (seconds); the embedding and the head cost nothing. */
static void synthetic(pp_workload *w, double f, double i, double wg)
{
	for (int k = 0; k < PP_LAYER_KINDS; k++) {
		if (!w->lk[k].count)
			continue;
		memset(&w->lk[k].cost, 0, sizeof(w->lk[k].cost));
		w->lk[k].cost.fwd.compute_s = f;
		w->lk[k].cost.bwd.compute_s = i + wg;
		w->lk[k].cost.bwd.wgrad_s = wg;
	}
	memset(&w->embed, 0, sizeof(w->embed));
	memset(&w->head, 0, sizeof(w->head));
}

/* The event simulation's worst rank bubble (ns): per rank, from its first
 * forward or backward task's start to its last one's end, less their
 * durations; and the fast path's step against the event simulation's. */
static int64_t des_bubble(const pp_scenario *s, const pp_hw *hw, const pp_workload *w, bool *same)
{
	pp_des *d = pp_des_new();
	pp_sched_opts o = {true, true, true};
	int P = s->parallel.pp;
	pp_stage_busy *bd = pp_xcalloc((size_t)P, sizeof(pp_stage_busy));
	pp_stage_busy *bf = pp_xcalloc((size_t)P, sizeof(pp_stage_busy));
	pp_evgraph_build(d, s, hw, w, &o, bd);
	pp_err err = {0};
	int64_t worst = -1;
	*same = false;
	if (!pp_des_run(d, &err)) {
		int64_t *first = pp_xmalloc(sizeof(int64_t) * 3 * (size_t)P), *last = first + P,
			*work = last + P;
		for (int r = 0; r < P; r++) {
			first[r] = INT64_MAX;
			last[r] = work[r] = 0;
		}
		for (int t = 0; t < pp_des_ntasks(d); t++) {
			pp_des_tag g = pp_des_task_tag(d, t);
			if (g.cat != PP_CAT_FWD && g.cat != PP_CAT_BWD)
				continue;
			int r = pp_des_resource_rank(d, pp_des_task_resource(d, t));
			if (pp_des_start(d, t) < first[r])
				first[r] = pp_des_start(d, t);
			if (pp_des_end(d, t) > last[r])
				last[r] = pp_des_end(d, t);
			work[r] += pp_des_dur(d, t);
		}
		for (int r = 0; r < P; r++)
			if (last[r] - first[r] - work[r] > worst)
				worst = last[r] - first[r] - work[r];
		free(first);
		int64_t tasks = 0;
		int64_t tf = pp_fp_run(s, hw, w, &o, bf, &tasks);
		*same = tf == pp_des_makespan(d) && tasks == pp_des_events(d);
		for (int r = 0; r < P; r++)
			*same &= bf[r].compute_s == bd[r].compute_s &&
				 bf[r].last_task == pp_des_end(d, (int)bd[r].last_task);
	}
	free(bd);
	free(bf);
	pp_des_free(d);
	return worst;
}

static void bubble_formulas(void)
{
	/* per layer, in ms: F = I = W, then F = I = 2 W (F = 2, B = 3, W = 1
	 * with B the full backward) */
	const double ratio[2][3] = {{1, 1, 1}, {2, 2, 1}};
	int cases = 0, bad = 0, unequal = 0;
	/* micro-batches: the least every schedule takes (2 P), and more */
	for (int P = 2; P <= 8; P *= 2)
		for (int c = 0; c < 6; c++)
			for (int k = 0; k < 6; k++) {
				int mi = c / 2, ri = c % 2;
				const char *names[6] = {"1f1b", "zb-h1", "zbv", "dualpipev", "zb-h2",
							"dualpipe"};
				pp_scenario s;
				pp_hw hw;
				int m = mi == 0 ? 2 * P : mi == 1 ? 4 * P : 6 * P + 4;
				if (scenario(&s, &hw, names[k], P, m)) {
					CHECK(0);
					continue;
				}
				pp_workload w;
				pp_workload_build(&w, &s, &hw);
				double f = ratio[ri][0] * 1e-3, i = ratio[ri][1] * 1e-3, wg = ratio[ri][2] * 1e-3;
				synthetic(&w, f, i, wg);
				/* a chunk's passes: two layers a stage (one a chunk in a V) */
				int lc = pp_schedule_vshape(s.parallel.schedule) ? 1 : 2;
				int64_t F = lc * pp_ns(f), I = lc * pp_ns(i), W = lc * pp_ns(wg), B = I + W;
				/* DualPipe(V)'s PP: the stages, 2 P in the V, P
				 * two-ended (two layers each, a chunk a stage) */
				int PP = k == 3 ? 2 * P : P;
				/* ZB-H1's (p - 1)(F + I - W) is the DualPipe README's
				 * ZB1P row (PP - 1)(F + B - 2 W) with B = I + W */
				int64_t want = k == 0   ? (P - 1) * (F + B)
					       : k == 1 ? (P - 1) * (F + I - W)
					       : k == 2 || k == 4 ? (P - 1) * (F + I - 2 * W)
							: (PP / 2 - 1) * ((F + B) + B - 3 * W);
				bool same;
				int64_t got = des_bubble(&s, &hw, &w, &same);
				if (got != want || !same || (k == 5 && mi == 1))
					pp_t_diag("%s, %d ranks, %d micro-batches, F:I:W = %g:%g:%g: bubble "
						  "%lld ns, the formula %lld; fast path %s", names[k], P, m,
						  ratio[ri][0], ratio[ri][1], ratio[ri][2], (long long)got,
						  (long long)want, same ? "equal" : "NOT equal");
				bad += got != want;
				unequal += !same;
				cases++;
				pp_workload_release(&w);
				pp_scenario_release(&s);
			}
	pp_t_diag("%d schedules x ratios x pipelines x micro-batch counts: %d bubbles off the "
		  "formula, %d fast paths unequal", cases, bad, unequal);
	CHECK(cases == 108);
	CHECK(bad == 0);
	CHECK(unequal == 0);
}

/* Interleaved 1F1B on P stages of v chunks of one layer each, m
 * micro-batches (any count from P on). */
static int scenario_v(pp_scenario *s, pp_hw *hw, int P, int v, int m)
{
	char js[1024];
	snprintf(js, sizeof(js),
		 "{\"name\": \"pipe\", \"model\": {\"preset\": \"gpt-1.7b\", \"num_layers\": %d}, "
		 "\"training\": {\"global_batch_size\": %d, \"micro_batch_size\": 1, "
		 "\"use_flash_attn\": true, \"recompute\": \"none\"}, "
		 "\"parallel\": {\"tensor_model_parallel_size\": 1, "
		 "\"pipeline_model_parallel_size\": %d, \"virtual_pipeline_model_parallel_size\": %d, "
		 "\"pipeline_schedule\": \"interleaved\"}, "
		 "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": %d}}",
		 v * P, m, P, v, P);
	int rc = tu_scenario_unchecked(js, s, hw);
	s->model.tied_embeddings = false;
	return rc;
}

/* Interleaved 1F1B with micro-batches the stages do not divide (Megatron-
 * Core's groups of N, pp_pipe_group): every list runs each (chunk,
 * micro-batch) forward once and its backward once after it, the group
 * meets Megatron-Core's constraint; with unit costs and no transfers the
 * worst rank idles (p - 1)(F + B) of one chunk's F and B, the interleaved
 * schedule's bubble (Narayanan et al., SC'21, Sec. 2.2: (p - 1)(t_f +
 * t_b) / v of a stage's whole pass), whatever N; the fast path equals
 * the event simulation; the memory model holds the list's peak. */
static void interleaved_any_m(void)
{
	int cases = 0, bad = 0;
	for (int P = 2; P <= 6; P++)
		for (int v = 2; v <= 4; v++)
			for (int m = P; m <= 30; m++) {
				pp_pipe pl = {P, v, PP_SCHED_INTERLEAVED, m};
				if (m % P == 0) {
					bad += pp_pipe_listed(&pl);
					continue;
				}
				int N = pp_pipe_group(&pl);
				/* Megatron-Core's constraint on the group */
				bad += !pp_pipe_listed(&pl) || N < P || N > m || (m % N && m % N < P);
				pp_unit *u = pp_xmalloc(sizeof(pp_unit) * (size_t)pp_pipe_list_cap(&pl));
				int *seen = pp_xcalloc((size_t)(v * m), sizeof(int));
				for (int st = 0; st < P; st++) {
					memset(seen, 0, sizeof(int) * (size_t)(v * m));
					int n = pp_pipe_list(&pl, st, u);
					bad += n != 2 * v * m;
					for (int i = 0; i < n; i++) {
						int *x = &seen[u[i].chunk * m + u[i].mb];
						int bit = u[i].fwd ? 1 : 2;
						bad += (*x & bit) || (!u[i].fwd && !(*x & 1)) || u[i].act != PP_ACT_WHOLE;
						*x |= bit;
					}
					for (int j = 0; j < v * m; j++)
						bad += seen[j] != 3;
					cases++;
				}
				free(seen);
				free(u);
			}
	pp_t_diag("%d interleaved stage lists, micro-batches not a multiple of the stages: %d wrong",
		  cases, bad);
	CHECK(cases > 500);
	CHECK(bad == 0);
	/* bubble */
	const double ratio[2][3] = {{1, 1, 1}, {2, 2, 1}};
	int nb = 0, off = 0, unequal = 0;
	for (int P = 2; P <= 4; P++)
		for (int v = 2; v <= 3; v++)
			for (int m = P + 1; m <= 3 * P + 1; m += P) {
				for (int ri = 0; ri < 2; ri++) {
					pp_scenario s;
					pp_hw hw;
					if (scenario_v(&s, &hw, P, v, m)) {
						CHECK(0);
						continue;
					}
					pp_workload w;
					pp_workload_build(&w, &s, &hw);
					double f = ratio[ri][0] * 1e-3, i = ratio[ri][1] * 1e-3, wg = ratio[ri][2] * 1e-3;
					synthetic(&w, f, i, wg);
					int64_t F = pp_ns(f), B = pp_ns(i) + pp_ns(wg);
					int64_t want = (P - 1) * (F + B);
					bool same;
					int64_t got = des_bubble(&s, &hw, &w, &same);
					pp_pipe pl = pp_pipe_of(&s);
					/* the memory model's held chunks: the list's peak */
					for (int st = 0; st < P; st++)
						off += pp_stage_inflight_chunks(&s, st) !=
						       pp_pipe_peak_inflight(&pl, st);
					if (got != want || !same)
						pp_t_diag("%d stages, %d chunks, %d micro-batches (groups of %d), "
							  "F:B %g:%g per chunk: bubble %lld ns, (p - 1)(F + B) %lld; "
							  "fast path %s", P, v, m, pp_pipe_group(&pl), ratio[ri][0],
							  ratio[ri][1] + ratio[ri][2], (long long)got,
							  (long long)want, same ? "equal" : "NOT equal");
					off += got != want;
					unequal += !same;
					nb++;
					pp_workload_release(&w);
					pp_scenario_release(&s);
				}
			}
	pp_t_diag("%d interleaved pipelines x ratios: %d bubbles off (p - 1)(F + B) a chunk, %d "
		  "fast paths unequal", nb, off, unequal);
	CHECK(nb == 36);
	CHECK(off == 0);
	CHECK(unequal == 0);
}

/* DualPipe's lists on 4 ranks with 8 micro-batches (4 each way: chunk 0
 * runs 0-3 fed at rank 0, chunk 1 4-7 fed at rank 3), transcribed by hand
 * from deepseek-ai/DualPipe @3da1bbe dualpipe/dualpipe.py step(): rank 0
 * (half_rank 0 of num_half_ranks 2) step 1 2 F0, step 2 F0 F1, step 3
 * B1 (zero bubble: I, its W next) W F1, step 4 one F0&B1 and F1&B0, step
 * 5 B1 F1&B0, step 6 B1 then B0 as I (half_rank even: from the middle
 * iteration's B0 on), step 7 W B0 (I), step 8 W; rank 1 (a middle rank,
 * half_rank 1) step 2 twice F0 F1, step 4 first F0 and B1 alone ("We
 * don't overlap these two chunks"), step 6 B1 B0 whole then as I (half
 * rank odd: from the middle iteration's B1 on), step 8 two W; ranks 2
 * and 3 run ranks 1 and 0's steps with the phases swapped. F a forward
 * (+: overlapped with the backward after it), B a whole backward, I its
 * input-gradient part, W its weight-gradient part; chunk:micro-batch. */
static void dualpipe_lists(void)
{
	static const char *const want[4] = {
		"F0:0 F0:1 F0:2 F1:4 I1:4 W1:4 F1:5 F0:3+ B1:5 F1:6+ B0:0 B1:6 F1:7+ B0:1 B1:7 "
		"I0:2 W0:2 I0:3 W0:3",
		"F0:0 F1:4 F0:1 F1:5 F0:2 B1:4 F1:6+ B0:0 F0:3+ B1:5 F1:7+ B0:1 B1:6 B0:2 I1:7 "
		"I0:3 W1:7 W0:3",
		"F1:4 F0:0 F1:5 F0:1 F1:6 B0:0 F0:2+ B1:4 F1:7+ B0:1 F0:3+ B1:5 B0:2 B1:6 I0:3 "
		"I1:7 W0:3 W1:7",
		"F1:4 F1:5 F1:6 F0:0 I0:0 W0:0 F0:1 F1:7+ B0:1 F0:2+ B1:4 B0:2 F0:3+ B1:5 B0:3 "
		"I1:6 W1:6 I1:7 W1:7",
	};
	pp_pipe pl = {4, 2, PP_SCHED_DUALPIPE, 8};
	pp_unit *u = pp_xmalloc(sizeof(pp_unit) * (size_t)pp_pipe_list_cap(&pl));
	for (int r = 0; r < 4; r++) {
		char got[512] = "";
		int n = pp_pipe_list(&pl, r, u);
		size_t len = 0;
		for (int i = 0; i < n && len < sizeof(got); i++)
			len += (size_t)snprintf(got + len, sizeof(got) - len, "%s%s%d:%d%s",
						i ? " " : "", pp_unit_name(u[i]), u[i].chunk,
						u[i].mb, u[i].pair ? "+" : "");
		if (strcmp(got, want[r]))
			pp_t_diag("rank %d: %s\n#   dualpipe.py: %s", r, got, want[r]);
		CHECK(!strcmp(got, want[r]));
	}
	free(u);
	/* the two ends of each direction */
	CHECK(pp_pipe_vs(&pl, 0, 0) == 0 && pp_pipe_vs(&pl, 0, 1) == 3);
	CHECK(pp_pipe_vs(&pl, 3, 0) == 3 && pp_pipe_vs(&pl, 3, 1) == 0);
	CHECK(pp_pipe_stage_of(&pl, 1, 0) == 1 && pp_pipe_stage_of(&pl, 1, 1) == 2);
	CHECK(pp_schedule_lookup("DualPipe") == PP_SCHED_DUALPIPE);
	/* refused: odd ranks, odd micro-batches, fewer than 2 x PP */
	const int bad[3][2] = {{3, 12}, {4, 9}, {4, 6}};
	for (int i = 0; i < 3; i++) {
		pp_scenario s;
		pp_hw hw;
		char js[600];
		snprintf(js, sizeof(js),
			 "{\"name\": \"pipe\", \"model\": {\"preset\": \"gpt-1.7b\", \"num_layers\": 12}, "
			 "\"training\": {\"global_batch_size\": %d, \"micro_batch_size\": 1}, "
			 "\"parallel\": {\"tensor_model_parallel_size\": 1, "
			 "\"pipeline_model_parallel_size\": %d, \"pipeline_schedule\": \"dualpipe\"}, "
			 "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": %d}}",
			 bad[i][1], bad[i][0], bad[i][0]);
		int rc = tu_scenario(js, &s, &hw);
		CHECK(rc != 0);
		if (!rc)
			pp_scenario_release(&s);
	}
}

/* Activation memory per rank, in micro-batches of a 1F1B stage's layers,
 * as the README tables give it. */
static void activation_multiples(void)
{
	int bad = 0;
	for (int P = 2; P <= 16; P *= 2) {
		int m = 4 * P;
		pp_pipe a = {P, 1, PP_SCHED_1F1B, m}, h1 = {P, 1, PP_SCHED_ZBH1, m};
		pp_pipe h2 = {P, 1, PP_SCHED_ZBH2, m};
		pp_pipe v = {P, 2, PP_SCHED_ZBV, m}, d = {P, 2, PP_SCHED_DUALPIPEV, m};
		pp_pipe two = {P, 2, PP_SCHED_DUALPIPE, m};
		int base = pp_pipe_peak_inflight(&a, 0);
		bad += base != P;                               /* 1F1B: p */
		bad += pp_pipe_peak_inflight(&h1, 0) != base;   /* ZB-H1: 1x */
		bad += pp_pipe_peak_inflight(&h2, 0) != 2 * P - 1; /* ZB-H2: 2p - 1 */
		for (int st = 0; st < P; st++) {
			/* ZB-V: 1x, in chunks of half a stage */
			bad += pp_pipe_peak_inflight(&v, st) != 2 * base;
			/* DualPipeV: PP + 1 chunks, PP = 2 p stages of a chunk each */
			bad += pp_pipe_peak_inflight(&d, st) != 2 * P + 1;
			/* DualPipe: PP + 1 chunks of a stage each, PP = p
			 * (1F1B's micro-batches on rank 0 plus one) */
			bad += pp_pipe_peak_inflight(&two, st) != base + 1;
		}
		if (bad)
			pp_t_diag("%d ranks: 1F1B %d, ZB-H1 %d, ZB-V %d, DualPipeV %d, DualPipe %d", P,
				  base, pp_pipe_peak_inflight(&h1, 0), pp_pipe_peak_inflight(&v, 0),
				  pp_pipe_peak_inflight(&d, 0), pp_pipe_peak_inflight(&two, 0));
	}
	CHECK(bad == 0);
	/* DualPipe's memory: the memory model holds PP + 1 chunks on every
	 * rank, and each rank's parameters are 1F1B's stage r and stage
	 * p - 1 - r together (2x: the model twice over the pipeline) */
	for (int P = 2; P <= 8; P *= 2) {
		pp_scenario a, b;
		pp_hw hw;
		if (scenario(&a, &hw, "1f1b", P, 4 * P) || scenario(&b, &hw, "dualpipe", P, 4 * P)) {
			CHECK(0);
			continue;
		}
		pp_workload w;
		pp_workload_build(&w, &a, &hw);
		int off = 0;
		double sum = 0, one = 0;
		for (int st = 0; st < P; st++) {
			off += pp_stage_inflight_chunks(&b, st) != P + 1;
			double want = pp_stage_params(&a, &w, st) + pp_stage_params(&a, &w, P - 1 - st);
			off += fabs(pp_stage_params(&b, &w, st) - want) > 1e-12 * want;
			sum += pp_stage_params(&b, &w, st);
			one += pp_stage_params(&a, &w, st);
		}
		pp_t_diag("DualPipe on %d ranks: %d ranks off PP + 1 chunks or 1F1B's two stages' "
			  "parameters; parameters %.4gx 1F1B's", P, off, sum / one);
		CHECK(off == 0);
		CHECK(fabs(sum - 2 * one) < 1e-12 * one);
		pp_workload_release(&w);
		pp_scenario_release(&a);
		pp_scenario_release(&b);
	}
	/* the memory model reads the same peak */
	pp_scenario s;
	pp_hw hw;
	if (scenario(&s, &hw, "zbv", 4, 16) == 0) {
		CHECK(pp_stage_inflight_chunks(&s, 0) == 8);
		pp_scenario_release(&s);
	}
}

/* W is the weight-gradient GEMMs' share of the backward: positive, below
 * the whole backward, and about half of a dense layer's GEMM time (dgrad
 * and wgrad have the same FLOPs). */
static void wgrad_share(void)
{
	pp_scenario s;
	pp_hw hw;
	if (scenario(&s, &hw, "zb-h1", 2, 8)) {
		CHECK(0);
		return;
	}
	pp_workload w;
	pp_workload_build(&w, &s, &hw);
	const pp_pass_cost *b = &w.lk[0].cost.bwd;
	pp_t_diag("dense layer backward %.3f ms, of it weight gradients %.3f ms", b->compute_s * 1e3,
		  b->wgrad_s * 1e3);
	CHECK(b->wgrad_s > 0.2 * b->compute_s);
	CHECK(b->wgrad_s < 0.6 * b->compute_s);
	pp_workload_release(&w);
	pp_scenario_release(&s);
}

/* The fast path equals the event simulation on real workloads (data
 * parallelism with the distributed optimizer, blocking sends, uneven
 * layers), and its bounds stay at or below it. */
static void fast_equals_des(void)
{
	const char *extra[] = {
		"\"data_parallel_size\": 2, \"zero_stage\": 1",
		"\"data_parallel_size\": 2",
	};
	int cases = 0, bad = 0, badb = 0, badl = 0;
	/* k past the listed ones: interleaved, 2 chunks, 13 micro-batches */
	for (size_t k = 0; k <= PP_ARRAY_LEN(listed); k++)
		for (int P = k < PP_ARRAY_LEN(listed) ? 1 : 2; P <= 4; P++)
			for (size_t e = 0; e < PP_ARRAY_LEN(extra); e++)
				for (int blocking = 0; blocking < 2; blocking++) {
					bool il = k == PP_ARRAY_LEN(listed);
					/* DualPipe: an even number of ranks */
					if (!il && !list_takes(listed[k], P, 24))
						continue;
					pp_schedule sk = il ? PP_SCHED_INTERLEAVED : listed[k];
					char js[1200];
					snprintf(js, sizeof(js),
						 "{\"name\": \"pipe\", \"model\": {\"preset\": \"gpt-1.7b\", "
						 "\"num_layers\": %d}, \"training\": {\"global_batch_size\": %d, "
						 "\"micro_batch_size\": 1, \"use_flash_attn\": true, "
						 "\"overlap_p2p_comm\": %s}, "
						 "\"parallel\": {\"tensor_model_parallel_size\": 1, "
						 "\"pipeline_model_parallel_size\": %d, %s%s, "
						 "\"pipeline_schedule\": \"%s\"}, "
						 "\"cluster\": {\"gpu\": \"a100-80gb\", \"num_gpus\": %d, "
						 "\"gpus_per_node\": 2, \"intra_node\": \"nvlink3\", "
						 "\"inter_node\": {\"fabric\": \"ib-hdr\", \"nics_per_node\": 1}}}",
						 il ? 24 : 13, il ? 26 : 48, blocking ? "false" : "true", P,
						 extra[e],
						 il ? ", \"virtual_pipeline_model_parallel_size\": 2" : "",
						 pp_schedule_names[sk], 2 * P);
					pp_scenario s;
					pp_hw hw;
					if (tu_scenario_unchecked(js, &s, &hw)) {
						CHECK(0);
						continue;
					}
					pp_workload w;
					pp_workload_build(&w, &s, &hw);
					pp_des *d = pp_des_new();
					pp_stage_busy *bd = pp_xcalloc((size_t)P, sizeof(pp_stage_busy));
					pp_stage_busy *bf = pp_xcalloc((size_t)P, sizeof(pp_stage_busy));
					pp_sched_opts o = {false, false, false};
					pp_evgraph_build(d, &s, &hw, &w, &o, bd);
					pp_err err = {0};
					int64_t td = pp_des_run(d, &err) ? -1 : pp_des_makespan(d);
					int64_t tasks = 0;
					int64_t tf = pp_fp_run(&s, &hw, &w, &o, bf, &tasks);
					bool ok = td > 0 && tf == td && tasks == pp_des_events(d);
					for (int r = 0; r < P; r++)
						ok &= bf[r].compute_s == bd[r].compute_s &&
						      bf[r].opt_s == bd[r].opt_s &&
						      bf[r].last_task == pp_des_end(d, (int)bd[r].last_task);
					if (!ok && bad < 5)
						pp_t_diag("%s, %d stages, %s, %s sends: fast %lld, event "
							  "simulation %lld", pp_schedule_names[sk], P,
							  extra[e], blocking ? "blocking" : "overlapped",
							  (long long)tf, (long long)td);
					bad += !ok;
					int64_t b = pp_fp_bound_ns(&s, &hw, &w),
						bt = pp_fp_bound_tight_ns(&s, &hw, &w),
						bq = pp_fp_bound_quick_ns(&s, &hw, &w);
					if (b > bt || bt > td || bq > td)
						pp_t_diag("%s, %d stages, %s, %s sends: bounds %lld, tight %lld, "
							  "quick %lld above %lld", pp_schedule_names[sk], P,
							  extra[e], blocking ? "blocking" : "overlapped",
							  (long long)b, (long long)bt, (long long)bq, (long long)td);
					badb += b > bt || bt > td || bq > td;
					int64_t lims[3] = {td, td - 1, td / 2};
					for (int j = 0; j < 3; j++)
						badl += pp_fp_step_within_ns(&s, &hw, &w, lims[j]) !=
							(td <= lims[j] ? td : INT64_MAX);
					cases++;
					free(bd);
					free(bf);
					pp_des_free(d);
					pp_workload_release(&w);
					pp_scenario_release(&s);
				}
	pp_t_diag("%d steps: %d fast paths unequal to the event simulation, %d bounds above it, "
		  "%d walks against a limit wrong", cases, bad, badb, badl);
	CHECK(cases == 84);
	CHECK(bad == 0);
	CHECK(badb == 0);
	CHECK(badl == 0);
}

/* A V read from pipeline_model_parallel_layout, in the model's order of
 * virtual stages: "Ettt|tt|tt|tL" on 2 ranks puts 3 + 1 layers on rank 0
 * (virtual stages 0 and 3) and 2 + 2 on rank 1; the fast path still
 * equals the event simulation. */
static void v_layout(void)
{
	for (int k = 0; k < 2; k++) {
		char js[1200];
		snprintf(js, sizeof(js),
			 "{\"name\": \"v\", \"model\": {\"preset\": \"gpt-1.7b\", \"num_layers\": 8}, "
			 "\"training\": {\"global_batch_size\": 8, \"micro_batch_size\": 1}, "
			 "\"parallel\": {\"tensor_model_parallel_size\": 1, "
			 "\"pipeline_model_parallel_size\": 2, \"pipeline_schedule\": \"%s\", "
			 "\"pipeline_model_parallel_layout\": \"Ettt|tt|tt|tL\"}, "
			 "\"cluster\": {\"gpu\": \"a100-80gb\", \"num_gpus\": 2}}",
			 k ? "zbv" : "dualpipev");
		pp_scenario s;
		pp_hw hw;
		if (tu_scenario(js, &s, &hw)) {
			CHECK(0);
			continue;
		}
		pp_pipe pl = pp_pipe_of(&s);
		CHECK(pp_stage_layers(&s, pp_pipe_vs(&pl, 0, 0)) == 3);
		CHECK(pp_stage_layers(&s, pp_pipe_vs(&pl, 0, 1)) == 1);
		CHECK(pp_stage_layers(&s, pp_pipe_vs(&pl, 1, 0)) == 2);
		CHECK(pp_stage_layers(&s, pp_pipe_vs(&pl, 1, 1)) == 2);
		pp_workload w;
		pp_workload_build(&w, &s, &hw);
		pp_des *d = pp_des_new();
		pp_stage_busy bd[2], bf[2];
		pp_sched_opts o = {false, false, false};
		pp_evgraph_build(d, &s, &hw, &w, &o, bd);
		pp_err err = {0};
		int64_t td = pp_des_run(d, &err) ? -1 : pp_des_makespan(d);
		int64_t tasks = 0;
		CHECK(td > 0 && pp_fp_run(&s, &hw, &w, &o, bf, &tasks) == td);
		pp_des_free(d);
		pp_workload_release(&w);
		pp_scenario_release(&s);
	}
	/* DualPipe reads it as its pp stages: "Ettt|tttttL" on 2 ranks puts
	 * stage 0's 3 layers and stage 1's 5 on each rank (rank 0 the forward
	 * direction's stage 0 and the reverse one's stage 1, rank 1 the
	 * other way round), and both ranks hold the embedding and the head */
	pp_scenario s;
	pp_hw hw;
	if (tu_scenario("{\"name\": \"d\", \"model\": {\"preset\": \"gpt-1.7b\", \"num_layers\": 8}, "
			"\"training\": {\"global_batch_size\": 8, \"micro_batch_size\": 1}, "
			"\"parallel\": {\"tensor_model_parallel_size\": 1, "
			"\"pipeline_model_parallel_size\": 2, \"pipeline_schedule\": \"dualpipe\", "
			"\"pipeline_model_parallel_layout\": \"Ettt|tttttL\"}, "
			"\"cluster\": {\"gpu\": \"a100-80gb\", \"num_gpus\": 2}}",
			&s, &hw)) {
		CHECK(0);
		return;
	}
	pp_pipe pl = pp_pipe_of(&s);
	CHECK(pp_stage_layers(&s, pp_pipe_vs(&pl, 0, 0)) == 3);
	CHECK(pp_stage_layers(&s, pp_pipe_vs(&pl, 0, 1)) == 5);
	CHECK(pp_stage_layers(&s, pp_pipe_vs(&pl, 1, 0)) == 5);
	CHECK(pp_stage_layers(&s, pp_pipe_vs(&pl, 1, 1)) == 3);
	CHECK(pp_stage_holds_embed(&s, 1) && pp_stage_holds_head(&s, 0));
	pp_workload w;
	pp_workload_build(&w, &s, &hw);
	pp_des *d = pp_des_new();
	pp_stage_busy bd[2], bf[2];
	pp_sched_opts o = {false, false, false};
	pp_evgraph_build(d, &s, &hw, &w, &o, bd);
	pp_err err = {0};
	int64_t td = pp_des_run(d, &err) ? -1 : pp_des_makespan(d);
	int64_t tasks = 0;
	CHECK(td > 0 && pp_fp_run(&s, &hw, &w, &o, bf, &tasks) == td);
	pp_des_free(d);
	pp_workload_release(&w);
	pp_scenario_release(&s);
}

/* Each rank's actions in the event simulation run in its list's order,
 * back to back or later, never overlapping. */
static void timeline_order(void)
{
	int bad = 0, ranks = 0;
	for (size_t k = 0; k < PP_ARRAY_LEN(listed); k++) {
		pp_scenario s;
		pp_hw hw;
		if (scenario(&s, &hw, pp_schedule_names[listed[k]], 4, 16)) {
			CHECK(0);
			continue;
		}
		pp_workload w;
		pp_workload_build(&w, &s, &hw);
		pp_des *d = pp_des_new();
		pp_sched_opts o = {false, false, false};
		pp_evgraph_build(d, &s, &hw, &w, &o, NULL);
		pp_err err = {0};
		CHECK(pp_des_run(d, &err) == 0);
		pp_action_span *a;
		int n = pp_timeline_of(d, &a), i = 0;
		pp_pipe pl = pp_pipe_of(&s);
		pp_unit *u = pp_xmalloc(sizeof(pp_unit) * (size_t)pp_pipe_list_cap(&pl));
		for (int r = 0; r < 4; r++) {
			int m = pp_pipe_list(&pl, r, u);
			for (int j = 0; j < m; j++, i++) {
				bool ok = i < n && a[i].rank == r && a[i].u.fwd == u[j].fwd &&
					  a[i].u.chunk == u[j].chunk && a[i].u.mb == u[j].mb &&
					  a[i].u.act == u[j].act && a[i].u.pair == u[j].pair &&
					  (j == 0 || a[i].start_ns >= a[i - 1].end_ns);
				bad += !ok;
			}
			ranks++;
		}
		bad += i != n;
		free(u);
		free(a);
		pp_des_free(d);
		pp_workload_release(&w);
		pp_scenario_release(&s);
	}
	pp_t_diag("%d ranks' timelines: %d actions out of their list's order", ranks, bad);
	CHECK(ranks == 4 * (int)PP_ARRAY_LEN(listed));
	CHECK(bad == 0);
	/* PyTorch's and the zero-bubble fork's names */
	CHECK(pp_schedule_lookup("ScheduleZBVZeroBubble") == PP_SCHED_ZBV);
	CHECK(pp_schedule_lookup("ScheduleDualPipeV") == PP_SCHED_DUALPIPEV);
	CHECK(pp_schedule_lookup("Schedule1F1B") == PP_SCHED_1F1B);
	CHECK(pp_schedule_lookup("ScheduleGPipe") == PP_SCHED_GPIPE);
	CHECK(pp_schedule_lookup("ScheduleInterleaved1F1B") == PP_SCHED_INTERLEAVED);
	CHECK(pp_schedule_lookup("ZB1P") == PP_SCHED_ZBH1);
	CHECK(pp_schedule_lookup("zb2p") == PP_SCHED_ZBH2);
	CHECK(pp_schedule_lookup("ScheduleLoopedBFS") < 0);
}

int main(void)
{
	RUN(lists_complete);
	RUN(dualpipe_lists);
	RUN(bubble_formulas);
	RUN(interleaved_any_m);
	RUN(activation_multiples);
	RUN(wgrad_share);
	RUN(timeline_order);
	RUN(fast_equals_des);
	RUN(v_layout);
	return pp_t_done("test_pipesched");
}
