/*
 * fuzz_cluster.c - `podplan cluster`'s inputs: the first byte picks one.
 * 0: a jobs file in the format the second byte names (auto, podplan,
 * sacct, acme, helios, philly, openb), simulated on a small fixed cluster
 * when it reads; 1: a cluster spec (JSON), a small fixed job stream
 * simulated on it when it reads and is small enough to run quickly; 2:
 * openb's node and pod lists for the fragmentation experiment (the rest
 * split at the first byte 0xff into the two files), each policy run once
 * when they read. Bad input must come back as an error with a message,
 * never a crash; a result must hold finite totals.
 */
#include "fuzzutil.h"
#include "cluster/cfgd.h"
#include "cluster/cjobs.h"
#include "cluster/csim.h"
#include "cluster/cspec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 2 leaves of 2 nodes of 8 GPUs, backfill, failures on */
static const char SPEC[] =
	"{\"name\": \"fuzz\", \"nodes\": [{\"count\": 4, \"gpus_per_node\": 8, \"gpu\": \"h100-sxm\"}],"
	" \"network\": {\"nodes_per_leaf\": 2, \"oversubscription\": 2},"
	" \"filesystem\": {\"write_GBps\": 10, \"read_GBps\": 20},"
	" \"scheduler\": {\"type\": \"backfill\"},"
	" \"reliability\": {\"failures_per_1000_node_days\": 50, \"interruptions_per_1000_node_days\": 80},"
	" \"seed\": 7}";

static const char JOBS[] = "job_id,gpus,submit_s,duration_s,checkpoint_interval_s,checkpoint_bytes\n"
			   "a,8,0,3600,600,1e10\n"
			   "b,16,10,7200,900,2e10\n"
			   "c,1,20,60,,\n"
			   "d,4,30,600,,\n";

static void simulate(const pp_cspec *spec, const pp_cjobs *jobs)
{
	pp_csim_opts o = {0};
	o.per_job = true;
	pp_csim_result r;
	pp_err err = {0};
	int rc = pp_csim_run(spec, jobs, &o, &r, &err);
	fz_check_err(rc, err.msg, "cluster simulation");
	if (rc)
		return;
	if (!isfinite(r.gpu_s_allocated) || r.gpu_s_allocated < 0 || !isfinite(r.makespan_s) ||
	    r.finished > r.njobs) {
		fprintf(stderr, "fuzz: cluster result out of range: allocated %g, makespan %g, "
				"finished %d of %d\n",
			r.gpu_s_allocated, r.makespan_s, r.finished, r.njobs);
		abort();
	}
	pp_csim_result_release(&r);
}

static void jobs_in(const uint8_t *data, size_t size)
{
	if (size < 1)
		return;
	pp_cjob_fmt fmt = (pp_cjob_fmt)(data[0] % PP_CJF_COUNT);
	char *text = fz_text(data + 1, size - 1);
	pp_cjobs j; /* pp_cjobs_parse initialises it; nothing to release on error */
	pp_err err = {0};
	int rc = pp_cjobs_parse(&j, "jobs.csv", text, size - 1, fmt, &err);
	fz_check_err(rc, err.msg, "jobs file");
	free(text);
	if (rc)
		return;
	/* the stream must run on the fixed cluster: a scenario job needs the
	 * engine (left to fuzz_scenario), and a short stream keeps each input
	 * quick */
	bool plain = j.n <= 64 && j.nscenarios == 0;
	if (plain) {
		pp_cspec spec;
		pp_err e2 = {0};
		if (pp_cspec_parse(&spec, "fuzz.json", SPEC, sizeof(SPEC) - 1, &e2)) {
			fprintf(stderr, "fuzz: the fixed spec does not load: %s\n", e2.msg);
			abort();
		}
		simulate(&spec, &j);
		pp_cspec_release(&spec);
	}
	pp_cjobs_release(&j);
}

static void spec_in(const uint8_t *data, size_t size)
{
	char *text = fz_text(data, size);
	pp_cspec spec;
	pp_err err = {0};
	int rc = pp_cspec_parse(&spec, "spec.json", text, size, &err);
	fz_check_err(rc, err.msg, "cluster spec");
	free(text);
	if (rc)
		return;
	if (spec.nodes <= 64 && spec.gpus <= 1024) {
		pp_cjobs j;
		pp_err e2 = {0};
		if (pp_cjobs_parse(&j, "jobs.csv", JOBS, sizeof(JOBS) - 1, PP_CJF_PODPLAN, &e2)) {
			fprintf(stderr, "fuzz: the fixed jobs do not load: %s\n", e2.msg);
			abort();
		}
		simulate(&spec, &j);
		pp_cjobs_release(&j);
	}
	pp_cspec_release(&spec);
}

static void fgd_in(const uint8_t *data, size_t size)
{
	const uint8_t *cut = memchr(data, 0xff, size);
	size_t a = cut ? (size_t)(cut - data) : size;
	const char *nodes = fz_write("nodes.csv", data, a);
	const char *pods = fz_write("pods.csv", cut ? cut + 1 : data + size,
				    cut ? size - a - 1 : 0);
	pp_fgd_trace t;
	pp_err err = {0};
	int rc = pp_fgd_load(&t, nodes, pods, &err);
	fz_check_err(rc, err.msg, "openb lists");
	if (rc)
		return;
	if (t.nnodes <= 64 && t.npods <= 256)
		for (int p = 0; p < 2; p++) {
			pp_fgd_opts o = {(pp_fgd_policy)p, 1.3, true, 42, 95};
			pp_fgd_result r;
			pp_err e2 = {0};
			int prc = pp_fgd_run(&t, &o, &r, &e2);
			fz_check_err(prc, e2.msg, "fragmentation run");
			if (!prc && (r.final_alloc_pct < -1e-9 || r.final_alloc_pct > 100 + 1e-9)) {
				fprintf(stderr, "fuzz: allocated %g%% of the cluster\n",
					r.final_alloc_pct);
				abort();
			}
		}
	pp_fgd_release(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		jobs_in(data + 1, size - 1);
		break;
	case 1:
		spec_in(data + 1, size - 1);
		break;
	default:
		fgd_in(data + 1, size - 1);
		break;
	}
	return 0;
}
