/*
 * test_cluster_input.c - the cluster spec and the job importers (cluster/
 * cspec.h, cluster/cjobs.h) on files in their sources' exact formats
 * (tests/data/cluster/SOURCES.md): each value checked against the row as
 * the source prints it, by hand; bad input named by file, row and column,
 * exit status 2.
 */
#include "cluster/cjobs.h"
#include "cluster/cspec.h"
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define D "tests/data/cluster/"

static const pp_cjob *find(const pp_cjobs *j, const char *id)
{
	for (int i = 0; i < j->n; i++)
		if (!strcmp(pp_cjobs_id(j, &j->v[i]), id))
			return &j->v[i];
	return NULL;
}

static void test_times(void)
{
	/* 2024-03-01T10:00:00 UTC = 1709287200 (date -u -d ... +%s) */
	CHECK_NEAR(pp_cjobs_parse_time("2024-03-01T10:00:00"), 1709287200, 1e-12);
	/* +08:00: eight hours earlier in UTC */
	CHECK_NEAR(pp_cjobs_parse_time("2023-03-01 00:18:22+08:00"),
		   pp_cjobs_parse_time("2023-02-28 16:18:22"), 1e-12);
	CHECK(pp_cjobs_parse_time("2023-13-01 00:00:00") < 0);
	CHECK(pp_cjobs_parse_time("Unknown") < 0);
	CHECK_NEAR(pp_cjobs_parse_slurm_duration("1-00:00:00"), 86400, 1e-12);
	CHECK_NEAR(pp_cjobs_parse_slurm_duration("02:00:00"), 7200, 1e-12);
	CHECK_NEAR(pp_cjobs_parse_slurm_duration("01:40"), 100, 1e-12);
	CHECK(isinf(pp_cjobs_parse_slurm_duration("UNLIMITED")));
	CHECK(pp_cjobs_parse_slurm_duration("soon") < 0);
}

static void test_sacct(void)
{
	pp_cjobs j;
	pp_err err = {0};
	CHECK(pp_cjobs_load(&j, D "sacct.txt", PP_CJF_AUTO, &err) == 0);
	CHECK(j.fmt == PP_CJF_SACCT);
	CHECK(j.n == 3);
	CHECK(j.skipped == 3); /* the .batch step, the CPU job, the pending job */
	const pp_cjob *a = find(&j, "1001"), *b = find(&j, "1002"), *c = find(&j, "1005");
	CHECK(a && b && c);
	if (!a || !b || !c)
		goto out;
	CHECK(a->gpus == 8 && a->submit_s == 0 && a->work_s == 7200 && a->limit_s == 14400);
	CHECK(a->state == PP_CJS_COMPLETED);
	CHECK(!strcmp(j.queues[a->queue], "gpu"));
	/* typed GRES gres/gpu:h100=32 on 4 nodes, submitted 30 min later */
	CHECK(b->gpus == 32 && b->nodes == 4 && b->submit_s == 1800 && b->work_s == 86400);
	CHECK(b->state == PP_CJS_CANCELLED);
	CHECK(c->gpus == 2 && c->work_s == 100 && isnan(c->limit_s) && c->state == PP_CJS_FAILED);
	CHECK_NEAR(j.t0_unix_s, 1709287200, 1e-12);
out:
	pp_cjobs_release(&j);
}

static void test_acme_helios(void)
{
	pp_cjobs j;
	pp_err err = {0};
	CHECK(pp_cjobs_load(&j, D "acme_seren.csv", PP_CJF_AUTO, &err) == 0);
	CHECK(j.fmt == PP_CJF_ACME && j.n == 2);
	const pp_cjob *x = find(&j, "5778469");
	CHECK(x && x->gpus == 8 && x->nodes == 1 && x->work_s == 2693);
	CHECK(x && x->submit_s == 336 && x->state == PP_CJS_COMPLETED); /* 00:23:58 - 00:18:22 */
	pp_cjobs_release(&j);
	CHECK(pp_cjobs_load(&j, D "acme_kalos.csv", PP_CJF_AUTO, &err) == 0);
	CHECK(j.fmt == PP_CJF_ACME && j.n == 2);
	x = find(&j, "dlc1t2ypl09b8qtp");
	CHECK(x && x->gpus == 64 && x->nodes == 8 && x->work_s == 82 && x->submit_s == 1664);
	CHECK(x && x->state == PP_CJS_CANCELLED);
	pp_cjobs_release(&j);
	CHECK(pp_cjobs_load(&j, D "helios_venus.csv", PP_CJF_AUTO, &err) == 0);
	CHECK(j.fmt == PP_CJF_HELIOS && j.n == 3);
	x = find(&j, "1425513");
	CHECK(x && x->gpus == 1 && x->work_s == 675233 && x->submit_s == 27);
	CHECK(x && !strcmp(j.queues[x->queue], "vcpDC"));
	pp_cjobs_release(&j);
}

static void test_philly(void)
{
	pp_cjobs j;
	pp_err err = {0};
	CHECK(pp_cjobs_load(&j, D "philly_job_log.json", PP_CJF_AUTO, &err) == 0);
	CHECK(j.fmt == PP_CJF_PHILLY && j.n == 1 && j.skipped == 1);
	const pp_cjob *x = find(&j, "application_1506638472019_14199");
	CHECK(x != NULL);
	if (x) {
		CHECK(x->gpus == 8);
		/* 74 s, then 01:13:30 -> 2 days 06:53:12: 2 d 5 h 39 min 42 s */
		CHECK_NEAR(x->work_s, 74 + 2 * 86400 + 5 * 3600 + 39 * 60 + 42, 1e-12);
		CHECK(x->state == PP_CJS_COMPLETED);
	}
	pp_cjobs_release(&j);
}

static void test_openb(void)
{
	pp_cjobs j;
	pp_err err = {0};
	CHECK(pp_cjobs_load(&j, D "openb_pod_list.csv", PP_CJF_AUTO, &err) == 0);
	CHECK(j.fmt == PP_CJF_OPENB && j.n == 4 && j.skipped == 2);
	const pp_cjob *a = find(&j, "openb-pod-0001"), *b = find(&j, "openb-pod-0017");
	CHECK(a && a->gpus == 1 && a->gpu_milli == 460 && a->submit_s == 427061);
	CHECK(a && a->work_s == 12902960 - 427061);
	CHECK(b && b->gpus == 8 && b->gpu_milli == 1000 && b->work_s == 10769854 - 9437497);
	CHECK(b && !strcmp(j.queues[b->queue], "Burstable") && b->state == PP_CJS_COMPLETED);
	pp_cjobs_release(&j);
}

static void test_podplan_roundtrip(void)
{
	pp_cjobs j, k;
	pp_err err = {0};
	CHECK(pp_cjobs_load(&j, D "openb_pod_list.csv", PP_CJF_AUTO, &err) == 0);
	pp_sb sb = {0};
	pp_cjobs_write_csv(&j, &sb);
	CHECK(pp_cjobs_parse(&k, "rt.csv", sb.buf, sb.len, PP_CJF_AUTO, &err) == 0);
	CHECK(k.fmt == PP_CJF_PODPLAN && k.n == j.n);
	for (int i = 0; i < j.n && i < k.n; i++) {
		CHECK(j.v[i].gpus == k.v[i].gpus && j.v[i].gpu_milli == k.v[i].gpu_milli);
		CHECK(j.v[i].submit_s == k.v[i].submit_s && j.v[i].work_s == k.v[i].work_s);
	}
	pp_sb_release(&sb);
	pp_cjobs_release(&j);
	pp_cjobs_release(&k);
}

static int run_cmd(const char *args, char **out)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "%s cluster %s 2>&1", pp_t_bin(), args);
	return pp_t_sh(cmd, out);
}

static void write(const char *name, const char *text, char *path, size_t n)
{
	snprintf(path, n, "%s/%s", pp_t_tmpdir(), name);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static void test_bad_input(void)
{
	char jp[1024], sp[1024], args[3000];
	char *out = NULL;
	write("bad.csv", "job_id,gpus,submit_s,duration_s\na,8,0,10\nb,abc,5,10\n", jp, sizeof(jp));
	snprintf(args, sizeof(args), D "small.json %s", jp);
	CHECK(run_cmd(args, &out) == 2);
	CHECK_CONTAINS(out, "bad.csv:3: column gpus: found \"abc\", expected an integer");
	free(out);
	write("bad.json", "{\"nodes\": [{\"count\": 2}], \"scheduler\": {\"type\": \"sjf\"}}", sp,
	      sizeof(sp));
	snprintf(args, sizeof(args), "%s " D "jobs.csv", sp);
	CHECK(run_cmd(args, &out) == 2);
	CHECK_CONTAINS(out, "scheduler.type");
	CHECK_CONTAINS(out, "sjf");
	free(out);
	write("big.csv", "job_id,gpus,submit_s,duration_s\nhuge,4096,0,10\n", jp, sizeof(jp));
	snprintf(args, sizeof(args), D "small.json %s", jp);
	CHECK(run_cmd(args, &out) == 2);
	CHECK_CONTAINS(out, "job huge: found 4096 GPUs");
	free(out);
	/* a TRES count past int: 4294967295 once became a job of -1 GPUs
	 * (a calloc of -1 slots in placement; found by fuzz_cluster) */
	write("sacct.txt", "JobID|Submit|Start|End|AllocTRES\n"
	      "7|2024-03-01T10:00:00|2024-03-01T10:00:05|2024-03-01T11:00:05|gres/gpu=4294967295\n",
	      jp, sizeof(jp));
	snprintf(args, sizeof(args), D "small.json %s", jp);
	CHECK(run_cmd(args, &out) == 2);
	CHECK_CONTAINS(out, "sacct.txt:2: column AllocTRES: found \"gres/gpu=4294967295\"");
	CHECK_CONTAINS(out, "(0 to 10000000 GPUs)");
	free(out);
	/* typed counts summed past the limit */
	write("sacct.txt", "JobID|Submit|Start|End|AllocTRES\n"
	      "7|2024-03-01T10:00:00|2024-03-01T10:00:05|2024-03-01T11:00:05|"
	      "gres/gpu:a=9000000,gres/gpu:b=9000000\n", jp, sizeof(jp));
	CHECK(run_cmd(args, &out) == 2);
	CHECK_CONTAINS(out, "sacct.txt:2: column AllocTRES");
	free(out);
	write("philly.json", "[{\"jobid\": \"x\", \"attempts\": [], \"submitted_time\": \"tomorrow\"}]",
	      jp, sizeof(jp));
	snprintf(args, sizeof(args), D "small.json %s", jp);
	CHECK(run_cmd(args, &out) == 2);
	CHECK_CONTAINS(out, "record 1: submitted_time: found \"tomorrow\"");
	free(out);
	CHECK(run_cmd(D "small.json " D "jobs.csv --what-if colour=red", &out) == 2);
	free(out);
	CHECK(run_cmd("--help", &out) == 0);
	CHECK_CONTAINS(out, "usage: podplan cluster");
	free(out);
}

static void test_spec(void)
{
	pp_cspec s;
	pp_err err = {0};
	CHECK(pp_cspec_load(&s, D "small.json", &err) == 0);
	CHECK(s.nodes == 4 && s.gpus == 32 && s.nodes_per_leaf == 2 && s.oversubscription == 2);
	CHECK(s.fs_write_Bps == 50e9 && s.sched == PP_CSCHED_BACKFILL);
	/* Slurm's dispatch is off unless batch_sched_delay_s is given */
	CHECK(s.batch_dispatch == false && s.time_resolution_s == 0);
	pp_cspec_release(&s);
	const char *bad = "{\"nodes\": [{\"count\": 2}], \"reliability\": "
			  "{\"failures_per_1000_node_days\": 6.5, "
			  "\"interruptions_per_1000_node_days\": 2}}";
	CHECK(pp_cspec_parse(&s, "x.json", bad, strlen(bad), &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "reliability.interruptions_per_1000_node_days");
	CHECK_CONTAINS(err.msg, "includes the infrastructure failures");
	/* Slurm's dispatch on; a negative delay names its key */
	const char *on = "{\"nodes\": [{\"count\": 2}], \"scheduler\": "
			 "{\"batch_sched_delay_s\": 3, \"time_resolution_s\": 1}}";
	CHECK(pp_cspec_parse(&s, "x.json", on, strlen(on), &err) == 0);
	CHECK(s.batch_dispatch && s.batch_sched_delay_s == 3 && s.sched_interval_s == 60 &&
	      s.time_resolution_s == 1);
	pp_cspec_release(&s);
	const char *neg = "{\"nodes\": [{\"count\": 2}], \"scheduler\": "
			  "{\"batch_sched_delay_s\": -1}}";
	CHECK(pp_cspec_parse(&s, "x.json", neg, strlen(neg), &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "scheduler.batch_sched_delay_s");
}

int main(void)
{
	RUN(test_times);
	RUN(test_sacct);
	RUN(test_acme_helios);
	RUN(test_philly);
	RUN(test_openb);
	RUN(test_podplan_roundtrip);
	RUN(test_spec);
	RUN(test_bad_input);
	return pp_t_done("test_cluster_input");
}
