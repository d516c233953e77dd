/*
 * test_cluster_spot.c - spot pools and serving deployments in the cluster
 * simulation (cluster/csim.h, "Spot pool", "Serving deployments"; the
 * spec: cluster/cspot.h; the jobs' columns: cluster/cjobs.h), on small
 * cases worked out by hand in each test's comment, and bad input named by
 * file and row or JSON path with exit status 2.
 */
#include "cluster/cjobs.h"
#include "cluster/csim.h"
#include "cluster/cspec.h"
#include "cluster/cspot.h"
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define D "tests/data/cluster/"

/* one on-demand node of 8 GPUs, 10 GB/s of file system, and extra keys */
static int spec(pp_cspec *s, const char *extra, pp_err *err)
{
	char json[2048];
	snprintf(json, sizeof(json),
		 "{\"nodes\": [{\"count\": 1, \"gpus_per_node\": 8}],"
		 " \"filesystem\": {\"read_GBps\": 10, \"write_GBps\": 10}, %s}", extra);
	/* named in the fixtures' folder: a trace path is relative to it */
	int rc = pp_cspec_parse(s, D "t.json", json, strlen(json), err);
	if (rc)
		pp_t_diag("%s", err->msg);
	return rc;
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

/*
 * One spot node whose trace reads 1 node at 0, none from 1000 s, 1 again
 * from 2000 s; notice 120 s; restart 100 s. B (8 GPUs, on demand, 5000 s)
 * holds the on-demand node; A (8 GPUs, spot, 1500 s) goes on the spot node
 * at 0. The notice comes at 880 s. Without a checkpoint A runs on and is
 * killed at 1000 s (1000 s lost); the node is back at 2000 s, A restarts
 * (100 s) and ends at 2000 + 100 + 1500 = 3600 s. Spot GPU-hours held:
 * 8 x (1000 + 1600) s = 5.778 h; available 8 x (1000 + 3000) s = 8.889 h
 * (the run ends with B at 5000 s). Cost at $2 on demand and $0.5 spot:
 * 2 x 8 x 5000 / 3600 = $22.222 + 0.5 x 5.778 = $2.889, over useful
 * 8 x (1500 + 5000) s = 14.444 h: $1.7385 per useful GPU-hour.
 * With 100 GB to write at 10 GB/s (10 s <= 120 s), A writes an emergency
 * checkpoint from 880 s, leaves at 890 s losing nothing, and ends at
 * 2000 + 100 + (1500 - 880) = 2720 s. With 2 TB (200 s > 120 s) it is
 * killed as without one. The SkyPilot-format trace holds the same points.
 */
static void test_trace_reclaim(void)
{
	const char *traces[2] = {"spot-trace.csv", "spot-trace.json"};
	for (int t = 0; t < 2; t++)
		for (int c = 0; c < 3; c++) {
			char extra[512];
			snprintf(extra, sizeof(extra),
				 "\"reliability\": {\"restart_s\": 100}, \"cost\": {\"usd_per_gpu_hour\": 2},"
				 " \"spot\": {\"nodes\": 1, \"trace\": \"%s\", \"notice_s\": 120,"
				 " \"usd_per_gpu_hour\": 0.5}", traces[t]);
			pp_cspec s;
			pp_err err = {0};
			CHECK(spec(&s, extra, &err) == 0);
			pp_cjobs j;
			pp_csim_result r;
			pp_cjobs_init(&j);
			pp_cjob *a = job(&j, "A", 8, 0, 1500);
			a->spot = 1;
			a->ckpt_interval_s = 1e6;
			a->ckpt_bytes = c == 1 ? 100e9 : c == 2 ? 2e12 : 0;
			job(&j, "B", 8, 0, 5000);
			CHECK(sim(&s, &j, &r) == 0);
			CHECK(r.spot_reclaims == 1);
			CHECK(r.jobs[0].preemptions == 1 && r.jobs[0].interruptions == 0);
			CHECK(r.preemptions == 0);
			if (c == 1) {
				CHECK(r.spot_ckpt_saved == 1 && r.spot_killed == 0);
				CHECK_NEAR(r.jobs[0].end_s, 2720, 1e-9);
				CHECK_NEAR(r.jobs[0].lost_s, 0, 1e-9);
				CHECK_NEAR(r.jobs[0].ckpt_block_s, 10, 1e-9);
			} else {
				CHECK(r.spot_ckpt_saved == 0 && r.spot_killed == 1);
				CHECK_NEAR(r.jobs[0].end_s, 3600, 1e-9);
				CHECK_NEAR(r.jobs[0].lost_s, 1000, 1e-9);
				CHECK_NEAR(r.gpu_s_spot_allocated, 8 * 2600.0, 1e-9);
				CHECK_NEAR(r.gpu_s_spot_available, 8 * 4000.0, 1e-9);
				CHECK_NEAR(r.usd_per_useful_gpu_hour, (22.0 + 2.0 / 9 + 0.5 * 20800 / 3600) /
								      (8 * 6500 / 3600.0), 1e-9);
				/* the cluster's available GPU-hours hold the pool's */
				CHECK_NEAR(r.gpu_s_available, 8 * 5000 + 8 * 4000.0, 1e-9);
			}
			CHECK_NEAR(r.jobs[0].restart_s, 100, 1e-9);
			CHECK_NEAR(r.jobs[1].end_s, 5000, 1e-9);
			pp_csim_result_release(&r);
			pp_cjobs_release(&j);
			pp_cspec_release(&s);
		}
}

/* A pool of 4 nodes whose trace reads 4 at 0, 2 from 1000 s, 1 from 1050 s
 * (notice 120 s): the second point's notice (at 930 s) comes while two
 * nodes are still leaving, and takes one more, not the last two. The pool
 * had 8 x (4 x 1000 + 2 x 50 + 1 x 950) = 40,400 GPU-seconds over the
 * 2,000 s that B runs. */
static void test_trace_overlap(void)
{
	pp_cspec s;
	pp_err err = {0};
	const char *trace = "t_s,available_nodes\n0,4\n1000,2\n1050,1\n";
	CHECK(spec(&s, "\"spot\": {\"nodes\": 4, \"trace\": \"spot-trace.csv\", \"notice_s\": 120}",
		   &err) == 0);
	CHECK(pp_cspot_trace_parse(&s.spot, "overlap.csv", trace, strlen(trace), &err) == 0);
	pp_cjobs j;
	pp_csim_result r;
	pp_cjobs_init(&j);
	job(&j, "B", 8, 0, 2000);
	CHECK(sim(&s, &j, &r) == 0);
	CHECK(r.spot_reclaims == 3);
	CHECK_NEAR(r.gpu_s_spot_available, 8 * 5050.0, 1e-9);
	pp_csim_result_release(&r);
	pp_cjobs_release(&j);
	pp_cspec_release(&s);
}

/* Without room on the pool a spot job runs on the on-demand nodes; an
 * on-demand job never goes on the pool: with the spot node free and the
 * on-demand node busy, on-demand C waits for B (queue 5000 s). */
static void test_pools_apart(void)
{
	pp_cspec s;
	pp_err err = {0};
	CHECK(spec(&s, "\"spot\": {\"nodes\": 1, \"reclaims_per_node_hour\": 0, \"notice_s\": 30}",
		   &err) == 0);
	pp_cjobs j;
	pp_csim_result r;
	pp_cjobs_init(&j);
	job(&j, "B", 8, 0, 5000);
	job(&j, "C", 8, 1, 100);
	pp_cjob *a = job(&j, "A", 8, 2, 100);
	a->spot = 1;
	CHECK(sim(&s, &j, &r) == 0);
	CHECK_NEAR(r.jobs[1].queue_s, 4999, 1e-9);
	CHECK_NEAR(r.jobs[2].queue_s, 0, 1e-9);
	CHECK_NEAR(r.gpu_s_spot_allocated, 800, 1e-9);
	pp_csim_result_release(&r);
	pp_cjobs_release(&j);
	pp_cspec_release(&s);
	/* With preemption, high-priority H (on demand) arriving at 10 s takes
	 * the on-demand node from L; spot job S on the pool is no use to it and
	 * is left alone, though its priority is the lowest. */
	CHECK(spec(&s, "\"scheduler\": {\"preempt_mode\": \"requeue\"}, \"spot\": {\"nodes\": 1, "
		       "\"reclaims_per_node_hour\": 0, \"notice_s\": 30}", &err) == 0);
	pp_cjobs_init(&j);
	pp_cjob *sj = job(&j, "S", 8, 0, 100);
	sj->spot = 1;
	job(&j, "L", 8, 0, 100);
	job(&j, "H", 8, 10, 100)->priority = 10;
	CHECK(sim(&s, &j, &r) == 0);
	CHECK(r.jobs[0].preemptions == 0 && r.jobs[1].preemptions == 1 && r.preemptions == 1);
	CHECK_NEAR(r.jobs[0].end_s, 100, 1e-9);
	CHECK_NEAR(r.jobs[2].queue_s, 0, 1e-9);
	/* L: 10 s lost, back at 110 s when H ends, 100 s more */
	CHECK_NEAR(r.jobs[1].end_s, 210, 1e-9);
	pp_csim_result_release(&r);
	pp_cjobs_release(&j);
	pp_cspec_release(&s);
}

/*
 * Rate mode: 4 spot nodes reclaimed at 0.5 per node-hour, each back 1 h
 * after it goes (notice 0). A node alternates up (mean 2 h) and out (1 h):
 * available 2/3 of the time, so over 1,000 h about 4 x 1000 x 2/3 x 0.5 =
 * 1,333 reclaims (Poisson: sd 37; the test allows 4 sd) and 4 x 8 x 1000 x
 * 2/3 = 21,333 spot GPU-hours available (within 5%).
 */
static void test_rate_reclaims(void)
{
	pp_cspec s;
	pp_err err = {0};
	CHECK(spec(&s, "\"seed\": 7, \"spot\": {\"nodes\": 4, \"reclaims_per_node_hour\": 0.5,"
		       " \"replacement_s\": 3600, \"notice_s\": 0}", &err) == 0);
	pp_cjobs j;
	pp_csim_result r;
	pp_cjobs_init(&j);
	job(&j, "long", 8, 0, 1000 * 3600.0);
	CHECK(sim(&s, &j, &r) == 0);
	pp_t_diag("reclaims %d, spot GPU-hours available %.0f", r.spot_reclaims,
		  r.gpu_s_spot_available / 3600);
	CHECK(fabs(r.spot_reclaims - 4000.0 / 3) < 4 * sqrt(4000.0 / 3));
	CHECK_NEAR(r.gpu_s_spot_available / 3600, 4 * 8 * 1000 * 2.0 / 3, 0.05);
	pp_csim_result_release(&r);
	pp_cjobs_release(&j);
	pp_cspec_release(&s);
}

/*
 * A deployment of 1-GPU replicas at 10 requests/s each, min 1, max 4, for
 * 6 h with demand 5,5,5,15,5,5 requests/s: 1 replica, 2 at hour 3, 1 after:
 * 7 replica-hours, (5 x 5 + 15) x 3600 = 144,000 requests, all served.
 * On a node of 2 GPUs where a training job T (1 GPU, 100 h) came first,
 * without preemption the second replica cannot start: hour 3 serves 10 of
 * 15 requests/s, 126,000 of 144,000 (87.5%), 6 replica-hours. With
 * preempt_mode requeue it preempts T: all served. With restart_s 360 s
 * (each replica loads its model first) the first replica serves from
 * 0.1 h and the second from 3.1 h: 144,000 - 5 x 360 - 5 x 360 = 140,400.
 */
static void test_serving(void)
{
	const char *csv_fmt =
		"job_id,gpus,submit_s,duration_s,kind,replicas_min,replicas_max,replica_rps,demand_rps\n"
		"web,1,0,21600,serve,1,4,10,5;5;5;15;5;5\n%s";
	for (int c = 0; c < 4; c++) {
		char csv[1024], extra[512];
		snprintf(csv, sizeof(csv), csv_fmt, c ? "T,1,0,360000,pretrain,,,,\n" : "");
		snprintf(extra, sizeof(extra), "\"reliability\": {\"restart_s\": %d}%s",
			 c == 3 ? 360 : 0,
			 c >= 2 ? ", \"scheduler\": {\"preempt_mode\": \"requeue\"}" : "");
		pp_cspec s;
		pp_err err = {0};
		char json[1024];
		snprintf(json, sizeof(json),
			 "{\"nodes\": [{\"count\": 1, \"gpus_per_node\": %d}], %s}", c ? 2 : 8, extra);
		CHECK(pp_cspec_parse(&s, "t.json", json, strlen(json), &err) == 0);
		pp_cjobs j;
		CHECK(pp_cjobs_parse(&j, "jobs.csv", csv, strlen(csv), PP_CJF_AUTO, &err) == 0);
		pp_csim_result r;
		CHECK(sim(&s, &j, &r) == 0);
		CHECK(r.deployments == 1 && r.njobs == (c ? 2 : 1));
		CHECK_NEAR(r.serve_demand_req, 144000, 1e-9);
		double served = c == 1 ? 126000 : c == 3 ? 140400 : 144000;
		CHECK_NEAR(r.serve_served_req, served, 1e-9);
		double rh = c == 1 ? 6 : c == 3 ? 7 - 0.2 : 7;
		CHECK_NEAR(r.serve_replica_s / 3600, rh, 1e-9);
		/* GPU-hours held by replicas: serving time plus model loading */
		CHECK_NEAR(r.gpu_s_serving / 3600, c == 1 ? 6 : 7, 1e-9);
		if (c >= 2)
			CHECK(r.preemptions == 1);
		pp_t_diag("case %d: served %.1f%%, replica-hours %.2f, training GPU-hours %.2f", c,
			  100 * r.serve_served_req / r.serve_demand_req, r.serve_replica_s / 3600,
			  (r.gpu_s_allocated - r.gpu_s_serving) / 3600);
		pp_csim_result_release(&r);
		pp_cjobs_release(&j);
		pp_cspec_release(&s);
	}
}

/* a demand curve from a file "hour,rps": 24 values, repeating daily; the
 * jobs written out and read back keep the deployment */
static void test_demand_file(void)
{
	pp_cjobs j, k;
	pp_err err = {0};
	CHECK(pp_cjobs_load(&j, D "serve-jobs.csv", PP_CJF_AUTO, &err) == 0);
	if (err.msg[0])
		pp_t_diag("%s", err.msg);
	CHECK(j.nserve == 1 && j.serve[0].nhours == 24);
	CHECK(j.serve[0].demand_rps[3] == 30 && j.serve[0].min_replicas == 1 &&
	      j.serve[0].max_replicas == 8 && j.serve[0].replica_rps == 12.5);
	pp_sb sb = {0};
	pp_cjobs_write_csv(&j, &sb);
	CHECK(pp_cjobs_parse(&k, "back.csv", sb.buf, sb.len, PP_CJF_AUTO, &err) == 0);
	CHECK(k.nserve == 1 && k.serve[0].nhours == 24 && k.serve[0].demand_rps[3] == 30);
	pp_sb_release(&sb);
	pp_cjobs_release(&k);
	pp_cjobs_release(&j);
}

static void bad_spec(const char *extra, const char *want)
{
	pp_cspec s;
	pp_err err = {0};
	char json[1024];
	snprintf(json, sizeof(json), "{\"nodes\": [{\"count\": 1}], %s}", extra);
	CHECK(pp_cspec_parse(&s, D "t.json", json, strlen(json), &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, want);
}

static void bad_jobs(const char *csv, const char *want)
{
	pp_cjobs j;
	pp_err err = {0};
	CHECK(pp_cjobs_parse(&j, "jobs.csv", csv, strlen(csv), PP_CJF_AUTO, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, want);
}

static void test_bad_input(void)
{
	bad_spec("\"spot\": {\"nodes\": 2, \"notice_s\": 120}", "spot: found neither");
	bad_spec("\"spot\": {\"nodes\": 2, \"notice_s\": 1, \"trace\": \"spot-trace.csv\", "
		 "\"reclaims_per_node_hour\": 1}", "spot: found both");
	bad_spec("\"spot\": {\"nodes\": 2, \"reclaims_per_node_hour\": 1}", "spot.notice_s");
	bad_spec("\"spot\": {\"nodes\": 2, \"notice_s\": 1, \"trace\": \"nowhere.csv\"}",
		 "spot.trace: cannot read \"nowhere.csv\"");
	pp_cspot p = {.nodes = 2};
	pp_err err = {0};
	const char *t1 = "t_s,available_nodes\n0,2\n60,3\n";
	CHECK(pp_cspot_trace_parse(&p, "tr.csv", t1, strlen(t1), &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "tr.csv:3: column available_nodes: found \"3\", expected a whole "
				"number in [0, 2]");
	const char *t2 = "t_s,available_nodes\n0,2\n60,1\n30,2\n";
	CHECK(pp_cspot_trace_parse(&p, "tr.csv", t2, strlen(t2), &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "tr.csv:4: column t_s: found \"30\"");
	const char *t3 = "{\"metadata\": {\"gap_seconds\": 300}, \"data\": [1, 2, 1.5]}";
	CHECK(pp_cspot_trace_parse(&p, "tr.json", t3, strlen(t3), &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "data[2]: found the number 1.5");
	pp_cspot_release(&p);
	const char *h = "job_id,gpus,submit_s,duration_s,kind,replica_rps,demand_rps\n";
	char csv[512];
	snprintf(csv, sizeof(csv), "%sa,1,0,10,serve,10,5;x;3\n", h);
	bad_jobs(csv, "jobs.csv:2: column demand_rps: found \"5;x;3\"");
	snprintf(csv, sizeof(csv), "%sa,1,0,10,eval,10,5\n", h);
	bad_jobs(csv, "jobs.csv:2: column kind: found \"eval\" beside replica columns");
	snprintf(csv, sizeof(csv), "%sa,1,0,10,serve,,5\n", h);
	bad_jobs(csv, "jobs.csv:2: column replica_rps: found an empty cell");
	snprintf(csv, sizeof(csv), "%sa,1,0,10,serve,10,no-such-curve.csv\n", h);
	bad_jobs(csv, "jobs.csv:2: column demand_rps: found \"no-such-curve.csv\"");
	/* through the command: exit status 2 and the file named */
	char cmd[1024], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s cluster " D "spot-bad.json " D "jobs.csv 2>&1", pp_t_bin());
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "spot-bad-trace.csv:3: column available_nodes");
	free(out);
}

int main(void)
{
	RUN(test_trace_reclaim);
	RUN(test_trace_overlap);
	RUN(test_pools_apart);
	RUN(test_rate_reclaims);
	RUN(test_serving);
	RUN(test_demand_file);
	RUN(test_bad_input);
	return pp_t_done("test_cluster_spot");
}
