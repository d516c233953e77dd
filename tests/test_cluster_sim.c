/*
 * test_cluster_sim.c - the cluster simulation's mechanisms (cluster/
 * csim.h) on small clusters whose outcome is worked out by hand in each
 * test's comment: FIFO against EASY backfill, pack against spread
 * (fragmentation), leaf topology preferred and required, checkpoints
 * sharing the file system, async staging, quotas with borrowing,
 * preemption, failures' accounting, a scenario job timed by the engine,
 * the generator's fit, the event heap.
 */
#include "cluster/canchor.h"
#include "cluster/cgen.h"
#include "cluster/cheap.h"
#include "cluster/cjobs.h"
#include "cluster/cscen.h"
#include "cluster/csim.h"
#include "cluster/cspec.h"
#include "core/sortd.h"
#include "engine/predict.h"
#include "harness.h"
#include "input/hw.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a spec from JSON text with defaults for what the test does not name */
static void spec(pp_cspec *s, int nodes, int per_leaf, const char *extra)
{
	char json[2048];
	snprintf(json, sizeof(json),
		 "{\"nodes\": [{\"count\": %d, \"gpus_per_node\": 8}],"
		 " \"network\": {\"nodes_per_leaf\": %d, \"oversubscription\": 2},"
		 " \"filesystem\": {\"read_GBps\": 10, \"write_GBps\": 10}%s%s}",
		 nodes, per_leaf, extra[0] ? ", " : "", extra);
	pp_err err = {0};
	int rc = pp_cspec_parse(s, "t.json", json, strlen(json), &err);
	if (rc)
		pp_t_diag("%s", err.msg);
	CHECK(rc == 0);
}

static pp_cjob *job(pp_cjobs *j, const char *id, int gpus, double submit, double work)
{
	pp_cjob *x = pp_cjobs_add(j, id);
	x->gpus = gpus;
	x->submit_s = submit;
	x->work_s = work;
	return x;
}

static int sim(const pp_cspec *s, pp_cjobs *j, pp_csim_result *r)
{
	pp_csim_opts o = {0};
	o.per_job = true;
	pp_err err = {0};
	int rc = pp_csim_run(s, j, &o, r, &err);
	if (rc)
		pp_t_diag("%s", err.msg);
	return rc;
}

/* 32 GPUs. A: 24 GPUs at 0 for 100 s; B: 16 at 1 (blocked: 8 free);
 * C: 8 at 2 for 50 s. FIFO: C waits behind B until A ends (queue 98 s).
 * Backfill: B's reservation is at 100 s; C ends at 52 <= 100, so it
 * starts at 2 (queue 0) and B still starts at 100. */
static void test_fifo_vs_backfill(void)
{
	for (int bf = 0; bf < 2; bf++) {
		pp_cspec s;
		pp_cjobs j;
		pp_csim_result r;
		spec(&s, 4, 4, bf ? "\"scheduler\": {\"type\": \"backfill\"}"
				  : "\"scheduler\": {\"type\": \"builtin\"}");
		pp_cjobs_init(&j);
		job(&j, "A", 24, 0, 100);
		job(&j, "B", 16, 1, 100);
		job(&j, "C", 8, 2, 50);
		CHECK(sim(&s, &j, &r) == 0);
		CHECK(r.jobs[1].start_s == 100);
		CHECK(r.jobs[2].queue_s == (bf ? 0 : 98));
		CHECK(r.finished == 3);
		pp_csim_result_release(&r);
		pp_cjobs_release(&j);
		pp_cspec_release(&s);
	}
}

/* 2 nodes of 8. Two 4-GPU jobs for 1,000 s at 0, an 8-GPU job at 1.
 * Pack puts both on one node: the 8-GPU job starts at once. Spread puts
 * one on each: it waits 999 s while 8 GPUs sit free in two halves -
 * 8 x 999 = 7,992 fragmented GPU-seconds. */
static void test_pack_vs_spread(void)
{
	for (int spread = 0; spread < 2; spread++) {
		pp_cspec s;
		pp_cjobs j;
		pp_csim_result r;
		spec(&s, 2, 2, spread ? "\"scheduler\": {\"placement\": \"spread\"}"
				      : "\"scheduler\": {\"placement\": \"pack\"}");
		pp_cjobs_init(&j);
		job(&j, "a", 4, 0, 1000);
		job(&j, "b", 4, 0, 1000);
		job(&j, "c", 8, 1, 10);
		CHECK(sim(&s, &j, &r) == 0);
		CHECK(r.jobs[2].queue_s == (spread ? 999 : 0));
		CHECK_NEAR(r.gpu_s_fragmented, spread ? 7992 : 0, 1e-9);
		pp_csim_result_release(&r);
		pp_cjobs_release(&j);
		pp_cspec_release(&s);
	}
}

/* 6 nodes, 3 a leaf. X (2 nodes) goes to leaf 0, Y (2 nodes) to leaf 1
 * (the only leaf with 2 empty nodes left): one node free in each leaf. Z
 * (2 nodes): "preferred" spans the two leaves at once; "required" waits
 * for X to end at 100 s. */
static void test_topology(void)
{
	for (int req = 0; req < 2; req++) {
		pp_cspec s;
		pp_cjobs j;
		pp_csim_result r;
		spec(&s, 6, 3, req ? "\"scheduler\": {\"topology_mode\": \"required\"}"
				   : "\"scheduler\": {\"topology_mode\": \"preferred\"}");
		pp_cjobs_init(&j);
		job(&j, "X", 16, 0, 100);
		job(&j, "Y", 16, 1, 1000);
		job(&j, "Z", 16, 2, 10);
		CHECK(sim(&s, &j, &r) == 0);
		CHECK(!r.jobs[0].spans_leaf && !r.jobs[1].spans_leaf);
		CHECK(r.jobs[2].spans_leaf == !req);
		CHECK(r.jobs[2].start_s == (req ? 100 : 2));
		pp_csim_result_release(&r);
		pp_cjobs_release(&j);
		pp_cspec_release(&s);
	}
}

/* A 10 GB/s file system. Each job: 150 s of work, a 100 GB checkpoint
 * every 100 s, synchronous. Alone: 100 + 10 + 50 = 160 s. Two jobs on two
 * nodes checkpoint at the same instant and share the bandwidth: each
 * write takes 20 s, both end at 170 s. */
static void test_checkpoint_sharing(void)
{
	for (int n = 1; n <= 2; n++) {
		pp_cspec s;
		pp_cjobs j;
		pp_csim_result r;
		spec(&s, 2, 2, "");
		pp_cjobs_init(&j);
		for (int i = 0; i < n; i++) {
			pp_cjob *x = job(&j, i ? "b" : "a", 8, 0, 150);
			x->ckpt_interval_s = 100;
			x->ckpt_bytes = 100e9;
		}
		CHECK(sim(&s, &j, &r) == 0);
		for (int i = 0; i < n; i++) {
			CHECK_NEAR(r.jobs[i].end_s, n == 1 ? 160 : 170, 1e-9);
			CHECK_NEAR(r.jobs[i].ckpt_block_s, 10.0 * n, 1e-9);
		}
		CHECK_NEAR(r.mean_ckpt_write_s, 10.0 * n, 1e-9);
		pp_csim_result_release(&r);
		pp_cjobs_release(&j);
		pp_cspec_release(&s);
	}
}

/* Async: 2 nodes stage 100 GB at 25 GB/s each: 2 s blocked; the write
 * goes on in the background (10 s) and the job ends at 100 + 2 + 50. */
static void test_async_staging(void)
{
	pp_cspec s;
	pp_cjobs j;
	pp_csim_result r;
	spec(&s, 2, 2, "\"checkpoint\": {\"host_copy_GBps\": 25}");
	pp_cjobs_init(&j);
	pp_cjob *x = job(&j, "a", 16, 0, 150);
	x->ckpt_interval_s = 100;
	x->ckpt_bytes = 100e9;
	x->async_ckpt = 1;
	CHECK(sim(&s, &j, &r) == 0);
	CHECK_NEAR(r.jobs[0].ckpt_block_s, 2, 1e-9);
	CHECK_NEAR(r.jobs[0].end_s, 152, 1e-9);
	CHECK(r.checkpoints == 1);
	pp_csim_result_release(&r);
	pp_cjobs_release(&j);
	pp_cspec_release(&s);
}

/* Queue "research" has a nominal quota of 8 GPUs, "prod" 24, nothing
 * running in prod. Two 8-GPU research jobs at 0 for 100 s: with no
 * borrowing the second waits 100 s; allowed to borrow 8 it starts at once
 * (prod lends what it does not use). */
static void test_quota_borrowing(void)
{
	for (int borrow = 0; borrow < 2; borrow++) {
		pp_cspec s;
		pp_cjobs j;
		pp_csim_result r;
		char extra[512];
		snprintf(extra, sizeof(extra),
			 "\"queues\": [{\"name\": \"research\", \"nominal_quota_gpus\": 8, "
			 "\"borrowing_limit_gpus\": %d}, {\"name\": \"prod\", "
			 "\"nominal_quota_gpus\": 24}]", borrow ? 8 : 0);
		spec(&s, 4, 4, extra);
		pp_cjobs_init(&j);
		job(&j, "r1", 8, 0, 100)->queue = pp_cjobs_queue(&j, "research");
		job(&j, "r2", 8, 0, 100)->queue = pp_cjobs_queue(&j, "research");
		CHECK(sim(&s, &j, &r) == 0);
		CHECK(r.jobs[1].queue_s == (borrow ? 0 : 100));
		pp_csim_result_release(&r);
		pp_cjobs_release(&j);
		pp_cspec_release(&s);
	}
}

/* Priority with PreemptMode=REQUEUE: a low-priority job holds all 32 GPUs
 * from 0 for 100 s; a high-priority 8-GPU job at 10 preempts it. The low
 * job loses its 10 s (no checkpoint), restarts at 10 (24 GPUs free? no:
 * it needs 32) after the high job ends at 20, and ends at 120. */
static void test_preemption(void)
{
	pp_cspec s;
	pp_cjobs j;
	pp_csim_result r;
	spec(&s, 4, 4, "\"scheduler\": {\"preempt_mode\": \"requeue\"}, \"queues\": "
		       "[{\"name\": \"hi\", \"priority\": 10}, {\"name\": \"lo\"}]");
	pp_cjobs_init(&j);
	job(&j, "lo", 32, 0, 100)->queue = pp_cjobs_queue(&j, "lo");
	job(&j, "hi", 8, 10, 10)->queue = pp_cjobs_queue(&j, "hi");
	CHECK(sim(&s, &j, &r) == 0);
	CHECK(r.jobs[1].queue_s == 0);
	CHECK(r.jobs[0].preemptions == 1);
	CHECK_NEAR(r.jobs[0].lost_s, 10, 1e-9);
	CHECK_NEAR(r.jobs[0].end_s, 120, 1e-9);
	pp_csim_result_release(&r);
	pp_cjobs_release(&j);
	pp_cspec_release(&s);
}

/* Failures at a high rate: the books balance. Every allocated second of a
 * job is useful, lost, blocked writing or restarting; a job that finishes
 * did all its work; the work lost is never more than a checkpoint
 * interval per interruption. */
static void test_failure_accounting(void)
{
	pp_cspec s;
	pp_cjobs j;
	pp_csim_result r;
	spec(&s, 8, 8, "\"reliability\": {\"failures_per_1000_node_days\": 20000, "
		       "\"interruptions_per_1000_node_days\": 40000, \"repair_time_s\": 600, "
		       "\"restart_s\": 120, \"max_requeue\": -1}, \"seed\": 9");
	pp_cjobs_init(&j);
	for (int i = 0; i < 6; i++) {
		char id[8];
		snprintf(id, sizeof(id), "j%d", i);
		pp_cjob *x = job(&j, id, 16, i * 50.0, 20000);
		x->ckpt_interval_s = 1000;
		x->ckpt_bytes = 10e9;
	}
	CHECK(sim(&s, &j, &r) == 0);
	CHECK(r.infra_failures > 0 && r.interruptions > r.infra_failures);
	for (int i = 0; i < 6; i++) {
		const pp_csim_job *o = &r.jobs[i];
		CHECK(!isnan(o->end_s));
		CHECK_NEAR(o->useful_s, 20000, 1e-9);
		CHECK_NEAR(o->alloc_s, o->useful_s + o->lost_s + o->ckpt_block_s + o->restart_s, 1e-9);
		CHECK(o->lost_s <= 1000 * o->interruptions + 1e-6);
		CHECK(o->ettr > 0 && o->ettr < 1);
	}
	CHECK(r.runtime_goodput < 1);
	pp_csim_result_release(&r);
	pp_cjobs_release(&j);
	pp_cspec_release(&s);
}

/* A job naming a scenario runs ceil(tokens / tokens per step) steps at the
 * engine's step time for its placement: across leaves (one node a leaf)
 * at the spec's 2:1 oversubscription, inside one leaf at full bisection. */
static void test_scenario_job(void)
{
	const pp_catalog *cat = tu_catalog();
	double end[2];
	for (int span = 0; span < 2; span++) {
		pp_cspec s;
		pp_cjobs j;
		pp_csim_result r;
		pp_cscen *sc;
		pp_err err = {0};
		spec(&s, 2, span ? 1 : 2, "");
		char json[] = "job_id,gpus,submit_s,scenario,tokens\nt,16,0,llama7b-16gpu.json,1e9\n";
		CHECK(pp_cjobs_parse(&j, "tests/data/cluster/jobs-scen.csv", json, strlen(json),
				     PP_CJF_AUTO, &err) == 0);
		CHECK(pp_cscen_new(&sc, &j, "tests/data/cluster/jobs-scen.csv", &s, cat, NULL,
				   &err) == 0);
		double step, tps, mfu;
		CHECK(pp_cscen_step(sc, 0, span, &step, &tps, &mfu, &err) == 0);
		pp_csim_opts o = {0};
		o.step = pp_cscen_step;
		o.step_ctx = sc;
		o.per_job = true;
		CHECK(pp_csim_run(&s, &j, &o, &r, &err) == 0);
		CHECK(r.jobs[0].spans_leaf == span);
		CHECK_NEAR(r.jobs[0].end_s, ceil(1e9 / tps) * step, 1e-9);
		CHECK_NEAR(r.program_goodput, mfu, 1e-9);
		/* the engine directly, the scenario as written (2 nodes, full bisection) */
		if (!span) {
			pp_scenario x;
			pp_hw hw;
			pp_result pr;
			CHECK(pp_scenario_load(&x, "tests/data/cluster/llama7b-16gpu.json", cat,
					       &err) == 0);
			CHECK(pp_hw_from_catalog(&hw, cat, &x.cluster, &err) == 0);
			CHECK(pp_predict(&x, &hw, NULL, &pr, &err) == 0);
			CHECK_NEAR(step, pr.step_time_s, 1e-12);
			pp_scenario_release(&x);
		}
		end[span] = r.jobs[0].end_s;
		pp_cscen_free(sc);
		pp_csim_result_release(&r);
		pp_cjobs_release(&j);
		pp_cspec_release(&s);
	}
	CHECK(end[1] >= end[0]); /* an oversubscribed fabric never speeds a step */
	pp_t_diag("scenario job: %.1f s inside a leaf, %.1f s across two", end[0], end[1]);
}

/* Meta's MTTF (Kokolis et al.): 1 / (N r_f); at 2,048 nodes and 6.50 per
 * 1,000 node-days, 86,400 / (2,048 x 0.0065) = 6,490.4 s = 1.803 h. The
 * ETTR estimator at its optimal interval sits at its maximum. */
static void test_analytic(void)
{
	double rf = 6.5e-3 / 86400;
	CHECK_NEAR(pp_canchor_mttf_s(2048, rf), 6490.38, 1e-5);
	double lam = 1024 * rf, w = 60, u0 = 600;
	double d = pp_canchor_opt_interval_s(w, lam);
	CHECK_NEAR(d, sqrt(2 * 60 / lam), 1e-12);
	double best = pp_canchor_ettr(d, w, u0, lam);
	CHECK(best >= pp_canchor_ettr(0.8 * d, w, u0, lam));
	CHECK(best >= pp_canchor_ettr(1.25 * d, w, u0, lam));
}

/* The generator fitted to Acme Seren's row draws a stream whose mean GPUs,
 * median run time and mean GPU time a job are the row's. */
static void test_generator(void)
{
	pp_cgen_params p;
	pp_cgen_fit f;
	pp_cjobs a, b;
	pp_err err = {0};
	int gpus;
	CHECK(pp_cgen_preset("models", "seren", &p, &gpus, &err) == 0);
	CHECK(gpus == 2288);
	CHECK(pp_cgen_fit_params(&p, &f, &err) == 0);
	CHECK(f.median_gpus == 1 && f.p1 >= 0.5);
	p.njobs = 200000;
	CHECK(pp_cgen_draw(&p, &f, &a, &err) == 0);
	CHECK(pp_cgen_draw(&p, &f, &b, &err) == 0);
	double sg = 0, sgt = 0;
	double *run = malloc(sizeof(double) * (size_t)a.n);
	bool same = a.n == b.n;
	for (int i = 0; i < a.n; i++) {
		sg += a.v[i].gpus;
		sgt += a.v[i].gpus * a.v[i].work_s;
		run[i] = a.v[i].work_s;
		same = same && a.v[i].work_s == b.v[i].work_s && a.v[i].submit_s == b.v[i].submit_s;
	}
	pp_sort_doubles(run, (size_t)a.n, run);
	CHECK(same);
	CHECK_NEAR(sg / a.n, 5.68, 0.03);
	CHECK_NEAR(run[a.n / 2], 122, 0.05);
	CHECK_NEAR(a.v[a.n - 1].submit_s / a.n, 184 * 86400.0 / 663813, 0.02);
	pp_t_diag("generator: mean GPU time a job %.0f s against the row's %.0f (heavy tail)",
		  sgt / a.n, p.mean_gpu_s);
	CHECK_NEAR(sgt / a.n, p.mean_gpu_s, 0.25);
	free(run);
	pp_cjobs_release(&a);
	pp_cjobs_release(&b);
}

static void test_heap(void)
{
	pp_cheap h;
	pp_cheap_init(&h);
	srand(3);
	for (int i = 0; i < 5000; i++)
		pp_cheap_push(&h, (double)(rand() % 100), 0, i, 0);
	pp_cev e, prev = {-1, 0, 0, 0, 0};
	bool ordered = true;
	int n = 0;
	while (pp_cheap_pop(&h, &e)) {
		ordered = ordered && (e.t_s > prev.t_s || (e.t_s == prev.t_s && e.seq > prev.seq));
		prev = e;
		n++;
	}
	CHECK(ordered && n == 5000);
	pp_cheap_release(&h);
}

/* Slurm's batch dispatch (cqueue.c cs_batch_arrival; SchedMD/slurm
 * slurm-22-05-11-1 controller.c/proc_req.c), batch_sched_delay 3,
 * sched_interval 60 (full passes at seconds 0, 60, ...), the background
 * loop's ticks at k + 0.5 s. One node of 8 GPUs, by hand:
 *   A (8 GPUs, 10 s) at 0.7: second 0 was a full pass, so the next pass
 *     is second 3: starts 3.5, runs to 13.5.
 *   B (8 GPUs, 5 s) at 2.0: waits for that pass, which A takes; A's end
 *     at 13.5 schedules at once (epilog complete), not at a tick: starts
 *     13.5, ends 18.5.
 *   C (8 GPUs, 1 s) at 59.7: second 60 is a full pass: starts 60.5, ends
 *     61.5.
 *   D (8 GPUs, 1 s) at 61.6, the node free: the last pass was second 60,
 *     so the next is second 63: starts 63.5.
 * Exact times: queue 2.8, 11.5, 0.8, 1.9. Recorded in whole seconds
 * (time_resolution_s 1): floor(start) - floor(submit) = 3, 11, 1, 2.
 * Without the dispatch each job starts the instant it can: A 0.7-10.7,
 * B 10.7: queue 0, 8.7, 0, 0. */
static void test_slurm_dispatch(void)
{
	const char *modes[3] = {
		"\"scheduler\": {\"batch_sched_delay_s\": 3, \"sched_interval_s\": 60}",
		"\"scheduler\": {\"batch_sched_delay_s\": 3, \"sched_interval_s\": 60,"
		" \"time_resolution_s\": 1}",
		"\"scheduler\": {\"type\": \"backfill\"}"};
	const double want[3][4] = {{2.8, 11.5, 0.8, 1.9}, {3, 11, 1, 2}, {0, 8.7, 0, 0}};
	for (int m = 0; m < 3; m++) {
		pp_cspec s;
		pp_cjobs j;
		pp_csim_result r;
		spec(&s, 1, 1, modes[m]);
		pp_cjobs_init(&j);
		job(&j, "A", 8, 0.7, 10);
		job(&j, "B", 8, 2.0, 5);
		job(&j, "C", 8, 59.7, 1);
		job(&j, "D", 8, 61.6, 1);
		CHECK(sim(&s, &j, &r) == 0);
		for (int i = 0; i < 4; i++) {
			pp_t_diag("mode %d job %d queue %.3f s (want %.3f)", m, i, r.jobs[i].queue_s,
				  want[m][i]);
			CHECK_NEAR(r.jobs[i].queue_s, want[m][i], 1e-9);
		}
		CHECK(r.finished == 4);
		/* the queue statistic is the recorded delay too */
		CHECK_NEAR(r.queue[PP_CSIM_SIZE_BUCKETS - 1].mean_s,
			   (want[m][0] + want[m][1] + want[m][2] + want[m][3]) / 4, 1e-9);
		pp_csim_result_release(&r);
		pp_cjobs_release(&j);
		pp_cspec_release(&s);
	}
}

int main(void)
{
	RUN(test_heap);
	RUN(test_fifo_vs_backfill);
	RUN(test_pack_vs_spread);
	RUN(test_topology);
	RUN(test_checkpoint_sharing);
	RUN(test_async_staging);
	RUN(test_quota_borrowing);
	RUN(test_preemption);
	RUN(test_slurm_dispatch);
	RUN(test_failure_accounting);
	RUN(test_scenario_job);
	RUN(test_analytic);
	RUN(test_generator);
	return pp_t_done("test_cluster_sim");
}
