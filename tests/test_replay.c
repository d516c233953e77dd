/*
 * test_replay.c - the replay plan (sim/calib/replayplan.h) that podplan-calibrate
 * replay issues on GPUs, checked without a GPU: instruction counts against
 * hand counts of the model's GEMMs and collectives, data-parallel bytes
 * against the parameter count, the plan executed on paper (a dataflow
 * interpreter) against the event simulation (a second method), NCCL's
 * same-order rule and deadlock freedom, exact collective sizes, refusals; the
 * overlap fit and the interference it drives; validate --replay's summary.
 */
#include "calib/calibdb.h"
#include "calib/fit.h"
#include "harness.h"
#include "calib/replaycount.h"
#include "calib/replayplan.h"
#include "calib/replaysim.h"
#include "calib/replayval.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPT17 "\"model\": {\"preset\": \"gpt-1.7b\"}, "
#define H200X2 "\"cluster\": {\"gpu\": \"h200\", \"num_gpus\": 2}"

/* gpt-1.7b: 24 layers, hidden 2304, vocabulary 51200, 2048 positions. */
static const double L = 24, H = 2304, V = 51200, S = 2048;

/* The plan of a scenario on catalog hardware; overlap_eff 1: the model
 * charges no slowdown of compute beside data-parallel collectives (that
 * slowdown is physical on a GPU, and not an instruction of the plan), so
 * the plan on paper and the event simulation must agree exactly. */
static int plan_of(const char *json, const pp_rplan_opts *o, pp_rplan *p, pp_hw *hw_out)
{
	pp_scenario s;
	pp_hw hw;
	pp_err err = {0};
	if (tu_scenario(json, &s, &hw))
		return -1;
	hw.overlap_eff = 1.0;
	int rc = pp_rplan_build(p, &s, &hw, o, &err);
	if (rc)
		pp_t_diag("plan: %s", err.msg);
	if (hw_out)
		*hw_out = hw;
	pp_scenario_release(&s);
	return rc;
}

static int count_stream(const pp_rplan *p, int g, int kind, int stream)
{
	int n = 0;
	for (int i = 0; i < p->gpu[g].nins; i++)
		n += p->gpu[g].ins[i].kind == kind && p->gpu[g].ins[i].stream == stream;
	return n;
}

/* DDP: every GEMM of every micro-batch, the gradients all-reduced once. */
static void ddp_counts(void)
{
	pp_rplan p;
	pp_hw hw;
	if (plan_of("{" GPT17 "\"training\": {\"framework\": \"podplan-replay\", \"global_batch_size\": 8, \"use_flash_attn\": false}, "
		    "\"parallel\": {\"data_parallel_size\": 2}, " H200X2 "}", NULL, &p, &hw)) {
		CHECK(0);
		return;
	}
	pp_rplan_counts c;
	pp_rplan_count(&p, 0, &c);
	/* per layer: forward qkv, QK^T, AV, proj, fc1, fc2 (6); backward two
	 * GEMMs each (12); the head: logits forward 1, backward 2; 8 / (1 x 2)
	 * = 4 micro-batches */
	CHECK(p.ngpus == 2);
	CHECK(c.gemms == 4 * (int)(L * 18 + 3));
	/* GPT with biases and LayerNorm: 12h^2 + 13h per layer, word and
	 * position embeddings, final LayerNorm; fp32 gradients (4 bytes) */
	double params = L * (12 * H * H + 13 * H) + V * H + S * H + 2 * H;
	CHECK_NEAR(c.coll_bytes[PP_RS_DP], 4 * params, 1e-12);
	CHECK(c.sends == 0 && c.recvs == 0);
	/* the optimizer: one memory op of the whole model's Adam traffic */
	bool opt = false;
	for (int i = 0; i < p.gpu[0].nins; i++)
		if (p.gpu[0].ins[i].kind == PP_RI_MEM && fabs(p.gpu[0].ins[i].bytes - params * 34) < 1)
			opt = true;
	CHECK(opt);
	/* both GPUs issue the same list (data-parallel peers) */
	CHECK(p.gpu[0].nins == p.gpu[1].nins);
	double paper = 0;
	pp_err err = {0};
	CHECK(pp_rplan_simulate(&p, &paper, &err) == 0);
	/* a second method: the interpreter over the instruction lists equals
	 * the event simulation's makespan where nothing overlaps partially */
	CHECK_NEAR(paper, p.des_step_s, 1e-6);
	pp_rplan_release(&p);
}

/* ZeRO-3: a gather before each compute task, a reduce-scatter after each
 * backward one, on the data-parallel stream. */
static void zero3_counts(void)
{
	pp_rplan p;
	if (plan_of("{" GPT17 "\"training\": {\"framework\": \"podplan-replay\", \"global_batch_size\": 8, \"use_flash_attn\": false}, "
		    "\"parallel\": {\"data_parallel_size\": 2, \"zero_stage\": 3}, " H200X2 "}", NULL,
		    &p, NULL)) {
		CHECK(0);
		return;
	}
	/* embedding, 24 layers, head: 26 tasks each way, 4 micro-batches */
	CHECK(count_stream(&p, 0, PP_RI_COLL, PP_RS_DP) == 4 * 3 * (int)(L + 2));
	double paper;
	pp_err err = {0};
	CHECK(pp_rplan_simulate(&p, &paper, &err) == 0);
	CHECK_NEAR(paper, p.des_step_s, 1e-6);
	/* without the collectives the plan keeps its events and still runs */
	pp_rplan q;
	pp_rplan_opts o = {false, true};
	if (!plan_of("{" GPT17 "\"training\": {\"framework\": \"podplan-replay\", \"global_batch_size\": 8, \"use_flash_attn\": false}, "
		     "\"parallel\": {\"data_parallel_size\": 2, \"zero_stage\": 3}, " H200X2 "}", &o,
		     &q, NULL)) {
		CHECK(count_stream(&q, 0, PP_RI_COLL, PP_RS_DP) == 0);
		CHECK(pp_rplan_simulate(&q, &paper, &err) == 0);
		pp_rplan_release(&q);
	}
	pp_rplan_release(&p);
}

/* Pipeline: one send per micro-batch each way, matched in order. */
static void pipeline(void)
{
	const char *sched[] = {"1f1b", "gpipe"};
	for (int k = 0; k < 2; k++) {
		char json[512];
		snprintf(json, sizeof(json), "{" GPT17 "\"training\": {\"framework\": \"podplan-replay\", \"global_batch_size\": 8, "
			 "\"use_flash_attn\": false}, \"parallel\": {\"pipeline_model_parallel_size\": 2, "
			 "\"pipeline_schedule\": \"%s\"}, " H200X2 "}", sched[k]);
		for (int early = 0; early < 2; early++) {
			pp_rplan p;
			pp_rplan_opts o = {early != 0, false};
			if (plan_of(json, &o, &p, NULL)) {
				CHECK(0);
				continue;
			}
			pp_rplan_counts c0, c1;
			pp_rplan_count(&p, 0, &c0);
			pp_rplan_count(&p, 1, &c1);
			CHECK(p.gpu[0].stage == 0 && p.gpu[1].stage == 1);
			/* 8 micro-batches: activations forward, gradients back */
			CHECK(c0.sends == 8 && c0.recvs == 8 && c1.sends == 8 && c1.recvs == 8);
			/* each stage holds 12 layers; the head is on stage 1 */
			CHECK(c0.gemms == 8 * 12 * 18);
			CHECK(c1.gemms == 8 * (12 * 18 + 3));
			double paper;
			pp_err err = {0};
			CHECK(pp_rplan_simulate(&p, &paper, &err) == 0);
			if (early) {
				CHECK_NEAR(paper, p.des_step_s, 1e-6);
			} else {
				/* posted when the consumer is reached: a transfer the
				 * receiver was busy for now starts late, never early */
				CHECK(paper >= p.des_step_s - 1e-9);
				CHECK(paper <= p.des_step_s * 1.01);
			}
			pp_rplan_release(&p);
		}
	}
}

/* Sends and receives pair up on every rank under every schedule: a V
 * (zbv, dualpipev) turns its second chunk back from the last rank to the
 * first, DualPipe runs half the micro-batches from the last rank down, so
 * a forward send need not go to rank + 1 nor a backward one to rank - 1.
 * Hand count: each rank sends as many transfers as it receives (every
 * virtual stage but the first receives its forward input, every one but
 * the last its output gradient; a rank holds as many of each end as the
 * placement gives it), and every send on a communicator is matched by a
 * receive of the same bytes, in the same order, on its other member. */
static void pipeline_directions(void)
{
	const char *sched[] = {"1f1b", "interleaved", "zb-h1", "zbv", "dualpipev", "dualpipe"};
	/* Per micro-batch, a virtual stage sends and receives one transfer
	 * each way (forward input in, output out; gradients back) less the
	 * model's two ends (the first receives no input, sends no input
	 * gradient; the last the reverse), and a V's turn (virtual stages pp - 1
	 * and pp on one rank) passes its transfer locally. Sends = receives per
	 * rank, in units of m (per-direction halves under DualPipe add up to m):
	 * 1F1B, ZB-H1: an end rank 1, a middle one 2; interleaved (2 chunks):
	 * an end 1 + 2, a middle 2 + 2; ZB-V, DualPipeV: rank 0 holds both
	 * model ends (1 + 1), rank pp - 1 the turn (1 + 1), a middle 2 + 2;
	 * DualPipe: each direction's end 1/2 + 1/2 of m, a middle 2/2 + 2/2. */
	const int per_end[] = {1, 3, 1, 2, 2, 1}, per_mid[] = {2, 4, 2, 4, 4, 2};
	const int ranks[] = {2, 4, 8};
	for (int k = 0; k < 6; k++)
		for (int r = 0; r < 3; r++) {
			int P = ranks[r], m = 2 * P;
			char json[640];
			snprintf(json, sizeof(json), "{" GPT17 "\"training\": {\"framework\": "
				 "\"podplan-replay\", \"global_batch_size\": %d, \"use_flash_attn\": "
				 "false}, \"parallel\": {\"pipeline_model_parallel_size\": %d%s, "
				 "\"pipeline_schedule\": \"%s\"}, \"cluster\": {\"gpu\": \"h200\", "
				 "\"num_gpus\": %d}}", m, P,
				 k == 1 ? ", \"virtual_pipeline_model_parallel_size\": 2" : "", sched[k], P);
			pp_rplan p;
			if (plan_of(json, NULL, &p, NULL)) {
				CHECK(0);
				continue;
			}
			int bad = 0;
			for (int g = 0; g < p.ngpus; g++) {
				pp_rplan_counts c;
				pp_rplan_count(&p, g, &c);
				/* a split backward's I and W parts issue the backward's
				 * GEMMs once between them: on 2 ranks ZB-H1's first
				 * stage runs 1F1B's, 12 layers x 18 GEMMs a micro-batch */
				if (k == 2 && P == 2 && g == 0 && c.gemms != m * 12 * 18) {
					pp_t_diag("zb-h1 pp 2: GPU 0 issues %d GEMMs (hand count %d)",
						  c.gemms, m * 12 * 18);
					bad++;
				}
				int want = m * (g == 0 || g == P - 1 ? per_end[k] : per_mid[k]);
				if (c.sends != want || c.recvs != want) {
					pp_t_diag("%s pp %d: GPU %d sends %d, receives %d (hand count %d)",
						  sched[k], P, g, c.sends, c.recvs, want);
					bad++;
				}
			}
			/* per communicator: one sender, one receiver, same sequence */
			for (int ci = 0; ci < p.ncomms; ci++) {
				const pp_rcomm *cm = &p.comms[ci];
				if (strncmp(cm->name, "p2p-", 4))
					continue;
				int src = cm->gpus[0], dst = cm->gpus[1], ns = 0, nr = 0;
				double bs = 0, br = 0;
				for (int g = 0; g < p.ngpus; g++)
					for (int i = 0; i < p.gpu[g].nins; i++) {
						const pp_rinstr *x = &p.gpu[g].ins[i];
						if (x->comm != ci)
							continue;
						if (x->kind == PP_RI_SEND) {
							bad += g != src;
							ns++;
							bs += x->bytes * ns;
						} else if (x->kind == PP_RI_RECV) {
							bad += g != dst;
							nr++;
							br += x->bytes * nr;
						}
					}
				if (ns != nr || bs != br || src == dst) {
					pp_t_diag("%s pp %d: %s carries %d sends, %d receives", sched[k], P,
						  cm->name, ns, nr);
					bad++;
				}
			}
			CHECK(bad == 0);
			/* it runs on paper without deadlock, receives posted when the
			 * consumer is reached (the default) or at the sender's time */
			for (int early = 0; early < 2; early++) {
				pp_rplan_opts o = {early != 0, false};
				pp_rplan q;
				double paper;
				pp_err err = {0};
				if (early && plan_of(json, &o, &q, NULL)) {
					CHECK(0);
					continue;
				}
				int rc = pp_rplan_simulate(early ? &q : &p, &paper, &err);
				if (rc)
					pp_t_diag("%s pp %d%s: %s", sched[k], P, early ? " early" : "", err.msg);
				CHECK(rc == 0);
				if (early && !rc)
					CHECK_NEAR(paper, q.des_step_s, 1e-6);
				if (early)
					pp_rplan_release(&q);
			}
			pp_rplan_release(&p);
		}
}

/* TP with SP: the overlapped collectives on the TP stream, joined. */
static void tensor_parallel(void)
{
	pp_rplan p;
	if (plan_of("{" GPT17 "\"training\": {\"framework\": \"podplan-replay\", \"global_batch_size\": 4, \"use_flash_attn\": false}, "
		    "\"parallel\": {\"tensor_model_parallel_size\": 2, \"sequence_parallel\": true}, "
		    H200X2 "}", NULL, &p, NULL)) {
		CHECK(0);
		return;
	}
	/* per layer backward: the all-gather of each column-parallel linear's
	 * input (for its weight gradient) and the reduce-scatter of its input
	 * gradient (2 linears x 2), plus the head's reduce-scatter; 4 micro-
	 * batches */
	CHECK(count_stream(&p, 0, PP_RI_COLL, PP_RS_TP) == 4 * (int)(4 * L + 1));
	/* TP peers issue alike */
	CHECK(p.gpu[0].nins == p.gpu[1].nins);
	double paper;
	pp_err err = {0};
	CHECK(pp_rplan_simulate(&p, &paper, &err) == 0);
	/* on paper the side stream hides all it can; the model hides a share */
	CHECK(paper <= p.des_step_s + 1e-9);
	pp_rplan_release(&p);
}

static void refusals(void)
{
	pp_rplan p;
	pp_scenario s;
	pp_hw hw;
	pp_err err = {0};
	if (!tu_scenario("{" GPT17 "\"training\": {\"global_batch_size\": 8}, "
			 "\"parallel\": {\"data_parallel_size\": 2}, " H200X2 "}", &s, &hw)) {
		CHECK(pp_rplan_build(&p, &s, &hw, NULL, &err) == PP_EINPUT);
		CHECK_CONTAINS(err.msg, "use_flash_attn");
		pp_scenario_release(&s);
	}
	if (!tu_scenario("{" GPT17 "\"training\": {\"framework\": \"podplan-replay\", "
			 "\"global_batch_size\": 8, \"use_flash_attn\": false}, \"parallel\": "
			 "{\"context_parallel_size\": 2}, " H200X2 "}", &s, &hw)) {
		CHECK(pp_rplan_build(&p, &s, &hw, NULL, &err) == PP_EINPUT);
		CHECK_CONTAINS(err.msg, "context");
		pp_scenario_release(&s);
	}
	/* a framework that issues kernels from Python is host-bound where the
	 * replay is not: the replay runs the podplan-replay stack only */
	if (!tu_scenario("{" GPT17 "\"training\": {\"global_batch_size\": 8, \"use_flash_attn\": "
			 "false}, \"parallel\": {\"data_parallel_size\": 2}, " H200X2 "}", &s, &hw)) {
		CHECK(pp_rplan_build(&p, &s, &hw, NULL, &err) == PP_EINPUT);
		CHECK_CONTAINS(err.msg, "podplan-replay");
		pp_scenario_release(&s);
	}
}

/* The sizes of the data-parallel collectives are the payload of the graph's
 * tasks, exact: ZeRO-1 reduce-scatters the fp32 gradients (4 bytes a
 * parameter) and all-gathers the bf16 parameters (2 bytes), each once. */
static void payload(void)
{
	pp_rplan p;
	if (plan_of("{" GPT17 "\"training\": {\"framework\": \"podplan-replay\", \"global_batch_size\": 8, \"use_flash_attn\": false}, "
		    "\"parallel\": {\"data_parallel_size\": 2, \"zero_stage\": 1}, " H200X2 "}", NULL,
		    &p, NULL)) {
		CHECK(0);
		return;
	}
	pp_rplan_counts c;
	pp_rplan_count(&p, 0, &c);
	double params = L * (12 * H * H + 13 * H) + V * H + S * H + 2 * H;
	CHECK_NEAR(c.coll_bytes[PP_RS_DP], 6 * params, 1e-12);
	int rs = 0, ag = 0;
	for (int i = 0; i < p.gpu[0].nins; i++) {
		const pp_rinstr *r = &p.gpu[0].ins[i];
		if (r->kind != PP_RI_COLL || r->stream != PP_RS_DP)
			continue;
		rs += r->coll == PP_COLL_REDUCE_SCATTER && r->elem_bytes == 4;
		ag += r->coll == PP_COLL_ALL_GATHER && r->elem_bytes == 2;
	}
	CHECK(rs > 0 && ag > 0);
	pp_rplan_release(&p);
}

/* The overlap fit: the median of (Tc + Tg - Tboth) / min(Tc, Tg). */
static void overlap_fit(void)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/overlap.db", pp_t_tmpdir());
	pp_store *st = NULL;
	pp_err err = {0};
	int64_t run = 0;
	CHECK(pp_store_open(&st, path, &err) == 0);
	pp_calib_run r;
	pp_calib_run_init(&r);
	r.source = "test";
	r.command_line = "test_replay";
	r.gpu_name = "NVIDIA H200";
	r.gpu_count = 2;
	CHECK(pp_calibdb_begin_run(st, &r, &run, &err) == 0);
	/* hidden shares 0.2, 0.5, 0.6, 0.7 and an over-1 one (clamped to 1):
	 * Tg = 4000 us, Tc = 2000 us, Tboth = Tg + Tc - e x Tc */
	double e[] = {0.2, 0.5, 0.6, 0.7, 1.3};
	for (int i = 0; i < 5; i++) {
		char ex[160];
		snprintf(ex, sizeof(ex), "{\"compute_us\": 4000, \"comm_us\": 2000}");
		pp_calib_meas m;
		pp_calib_meas_init(&m);
		m.kind = "overlap";
		m.op = "all_gather";
		m.nranks = 2;
		m.time_us = 6000 - e[i] * 2000;
		m.extra_json = ex;
		CHECK(pp_calibdb_add(st, run, &m, NULL, &err) == 0);
	}
	pp_calibdb_end_run(st, run, "complete", NULL, &err);
	pp_profile prof;
	CHECK(pp_fit_runs(st, tu_catalog(), &run, 1, "h200", "t", &prof, &err) == 0);
	CHECK(prof.has_overlap && prof.overlap_points == 5);
	CHECK_NEAR(prof.overlap_eff, 0.6, 1e-9);
	/* applied, it becomes the simulator's overlap efficiency */
	pp_hw hw;
	memset(&hw, 0, sizeof(hw));
	hw.overlap_eff = 0.5;
	pp_profile_apply(&hw, &prof);
	CHECK_NEAR(hw.overlap_eff, 0.6, 1e-9);
	pp_store_close(st);
}

/* Data-parallel collectives slow the compute beside them: more hidden,
 * never slower; all hidden, no cost beyond the exposed part. */
static void interference(void)
{
	const char *json = "{" GPT17 "\"training\": {\"global_batch_size\": 8, \"use_flash_attn\": "
			   "false}, \"parallel\": {\"data_parallel_size\": 2, \"zero_stage\": 3}, "
			   H200X2 "}";
	pp_scenario s;
	pp_hw hw;
	pp_err err = {0};
	if (tu_scenario(json, &s, &hw)) {
		CHECK(0);
		return;
	}
	double t[3], eff[3] = {1.0, 0.6, 0.0};
	pp_result r;
	for (int i = 0; i < 3; i++) {
		hw.overlap_eff = eff[i];
		CHECK(pp_predict(&s, &hw, NULL, &r, &err) == 0);
		t[i] = r.step_time_s;
	}
	CHECK(t[0] < t[1] && t[1] < t[2]);
	/* eff 0: each gather and reduce-scatter (all inside the node) costs
	 * the compute stream its whole time: 4 micro-batches x 26 tasks x
	 * (2 gathers + 1 reduce-scatter) of the modelled sizes */
	pp_group g = {2, 2};
	double lay = L * (12 * H * H + 13 * H) / L, emb = V * H + S * H, head = 2 * H;
	double per[3] = {lay, emb, head}, cnt[3] = {L, 1, 1}, sum = 0;
	for (int k = 0; k < 3; k++)
		sum += cnt[k] * (2 * pp_coll_time(&hw, PP_COLL_ALL_GATHER, per[k] * 2, g) +
				 pp_coll_time(&hw, PP_COLL_REDUCE_SCATTER, per[k] * 2, g));
	/* the step grows by at most that (what was exposed before is not
	 * charged twice) and by most of it (the collectives are short beside
	 * the layers, so nearly all of it was hidden) */
	CHECK(t[2] - t[0] <= 4 * sum * 1.001);
	CHECK(t[2] - t[0] >= 0.8 * 4 * sum);
	pp_scenario_release(&s);
}

static void validate_cli(void)
{
	char path[512], cmd[1024], *out = NULL;
	snprintf(path, sizeof(path), "%s/replay.csv", pp_t_tmpdir());
	FILE *f = fopen(path, "w");
	if (!f) {
		CHECK(0);
		return;
	}
	/* errors +11.11% and -9.09%: mean 10.10%, max 11.11% */
	fputs("config,predicted_s,measured_s\na,1.0,0.9\n\"b, with a comma\",2.0,2.2\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s validate --replay %s", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "2 replayed steps: mean |error| 10.1%, max 11.1%");
	CHECK_CONTAINS(out, "+11.1%");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s validate --replay %s --csv", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "config,predicted_s,measured_s,error_pct\r\n");
	CHECK_CONTAINS(out, "\"b, with a comma\",2.000000,2.200000,-9.09\r\n");
	free(out);
	/* the framework CSV's form: a pending row (measured cells empty) is shown
	 * and left out of the summary; memory beside the step time, its error
	 * (predicted - measured) / measured: 45 GiB for 50 is -10% */
	f = fopen(path, "w");
	if (f) {
		fputs("config,framework,predicted_s,measured_s,predicted_bytes,measured_bytes,status\n"
		      "a,pytorch,1.0,0.8,48318382080,53687091200,ok\n"
		      "b,pytorch,2.0,,1073741824,,\n", f);
		fclose(f);
	}
	snprintf(cmd, sizeof(cmd), "%s validate --replay %s", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "1 of 2 steps measured: mean |error| 25.0%, max 25.0%");
	CHECK_CONTAINS(out, "memory per GPU, 1 rows: mean |error| 10.0%, max 10.0%");
	CHECK_CONTAINS(out, "     45.0 GiB      50.0 GiB   -10.0%");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s validate --replay %s --csv", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "config,predicted_s,measured_s,error_pct,framework,predicted_bytes,"
			    "measured_bytes,bytes_error_pct,status\r\n");
	CHECK_CONTAINS(out, "b,2.000000,,,pytorch,1073741824,,,\r\n");
	free(out);
	f = fopen(path, "w");
	if (f) {
		fputs("config,predicted_s,measured_s\na,1.0,\nb,2.0,\n", f);
		fclose(f);
	}
	snprintf(cmd, sizeof(cmd), "%s validate --replay %s", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "2 steps, none measured yet");
	free(out);
	f = fopen(path, "w");
	if (f) {
		fputs("config,predicted_s,measured_s,predicted_bytes,measured_bytes\na,1.0,0.9,x,\n", f);
		fclose(f);
	}
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, ":2: predicted_bytes 'x'");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s validate --replay %s --csv", pp_t_bin(), path);
	f = fopen(path, "w");
	if (f) {
		fputs("config,measured_s\na,0.9\n", f);
		fclose(f);
	}
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "predicted_s");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s validate --repredict %s", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 2);
	free(out);
}

/* The committed replays (measured on 2x H200, held out: never fitted)
 * against the current engine and the committed profile: the acceptance of
 * issue 5, at the figures README.md publishes for `podplan validate
 * --replay models/calibrations/replay-h200-nvlink-2gpu.csv --repredict`:
 * "26 replayed steps: mean |error| 2.8%, max 5.9%" - a figure printed as
 * 2.8% holds while the value is below 2.85%, so a regression of a tenth of
 * a point fails - and its "pipelined steps predicted 1.5-5.9% slow, TP 2
 * steps -4.1% to +1.6%" (asserted here as: every pipelined step slow by at
 * most 5.9%, every TP 2 step within 4.1% either way). */
static void committed_replays(void)
{
	pp_replayset v;
	pp_err err = {0};
	if (pp_replayval_load("models/calibrations/replay-h200-nvlink-2gpu.csv", &v, &err)) {
		pp_t_diag("%s", err.msg);
		CHECK(0);
		return;
	}
	CHECK(pp_replayval_repredict(&v, tu_catalog(), &err) == 0);
	CHECK(v.n >= 20);
	/* the layouts, recompute modes, models and micro-batch sizes covered */
	const char *need[] = {"-ddp-", "-zero1-", "-zero2-", "-zero3-", "-tp2-", "-tp2sp-",
			      "-pp2-1f1b-", "-pp2-gpipe-", "-none", "-selective", "-full",
			      "gpt-1_7b", "gpt-3_6b", "-mbs1-", "-mbs2-"};
	for (size_t k = 0; k < PP_ARRAY_LEN(need); k++) {
		bool found = false;
		for (int i = 0; i < v.n; i++)
			found |= strstr(v.rows[i].config, need[k]) != NULL;
		if (!found)
			pp_t_diag("no replay of %s", need[k]);
		CHECK(found);
	}
	pp_t_diag("%d replays: mean |error| %.2f%%, max %.2f%% (README: 26, 2.3%%, 5.0%%)", v.n,
	          100 * v.mean_abs, 100 * v.max_abs);
	CHECK(v.n == 26);
	CHECK(v.mean_abs <= 0.0235);
	CHECK(v.max_abs <= 0.0505);
	/* every row held to the published max, and the lean of each kind */
	int npp = 0, ntp = 0;
	for (int i = 0; i < v.n; i++) {
		const pp_replay_row *r = &v.rows[i];
		bool pp = strstr(r->config, "-pp2") != NULL, tp = strstr(r->config, "-tp2") != NULL;
		CHECK(fabs(r->error) <= 0.0595);
		if (pp) {
			npp++;
			CHECK(r->error > 0 && r->error <= 0.0595);
		}
		if (tp) {
			ntp++;
			CHECK(fabs(r->error) <= 0.0415);
		}
		if ((pp && !(r->error > 0 && r->error <= 0.0595)) || (tp && fabs(r->error) > 0.0415) ||
		    fabs(r->error) > 0.0595)
			pp_t_diag("%s: %+.2f%%", r->config, 100 * r->error);
	}
	CHECK(npp == 8 && ntp == 6);
	pp_replayset_release(&v);
}

/* The same through the command the README shows, with the predictions the
 * CSV holds and with predictions recomputed now: its summary line. */
static void committed_replays_cli(void)
{
	static const char *const modes[] = {"", " --repredict"};
	for (size_t k = 0; k < PP_ARRAY_LEN(modes); k++) {
		char cmd[512], *out = NULL;
		snprintf(cmd, sizeof(cmd), "%s validate --replay "
			 "models/calibrations/replay-h200-nvlink-2gpu.csv%s", pp_t_bin(), modes[k]);
		CHECK(pp_t_sh(cmd, &out) == 0);
		const char *l = strstr(out, "replayed steps: mean |error| ");
		while (l && l > out && l[-1] != '\n')
			l--;
		int n = 0;
		double mean = NAN, max = NAN;
		CHECK(l && sscanf(l, "%d replayed steps: mean |error| %lf%%, max %lf%%", &n, &mean,
				  &max) == 3);
		pp_t_diag("validate --replay%s: %d steps, mean %.1f%%, max %.1f%%", modes[k], n, mean,
			  max);
		/* printed to one decimal: at most the README's 2.8% and 5.9% */
		CHECK(n == 26);
		CHECK(mean <= 2.8);
		CHECK(max <= 5.9);
		free(out);
	}
}

int main(void)
{
	RUN(ddp_counts);
	RUN(zero3_counts);
	RUN(pipeline);
	RUN(pipeline_directions);
	RUN(tensor_parallel);
	RUN(refusals);
	RUN(payload);
	RUN(overlap_fit);
	RUN(interference);
	RUN(validate_cli);
	RUN(committed_replays);
	RUN(committed_replays_cli);
	return pp_t_done("test_replay");
}
