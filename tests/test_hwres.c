/*
 * test_hwres.c - the one resolution of hardware from a scenario
 * (calib/hwres.h): which clusters a calibration profile describes; the cost
 * engine pricing the options on that hardware with the profile (a profile
 * that doubles the fabric's bandwidth makes those options faster and
 * cheaper and leaves the others as they were) and with the calibrated
 * step-time uncertainty, only there; a cluster job's scenario that names
 * the profile run on that hardware too (`podplan cluster`), as `podplan
 * predict` runs it; and every command refusing a scenario whose profile
 * is not there, with one message.
 */
#include "harness.h"
#include "testutil.h"
#include "calib/hwres.h"
#include "calib/profile.h"
#include "calib/validate.h"
#include "cluster/cjobs.h"
#include "cluster/cscen.h"
#include "cluster/cspec.h"
#include "core/store.h"
#include "core/util.h"
#include "cost/cost.h"
#include "engine/predict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 7B on two H100 nodes (TP 8 inside each, DP 2 across): tensor-parallel
 * traffic on NVLink, gradients on InfiniBand. Options: rented H100s (the
 * scenario's hardware) and a built H200 cluster (another GPU). */
static char *scenario(const char *calibration)
{
	pp_sb sb = {0};
	pp_sb_addf(&sb,
		   "{\"name\": \"hwres\", \"model\": {\"preset\": \"llama2-7b\"},\n"
		   " \"training\": {\"global_batch_size\": 16, \"micro_batch_size\": 1,"
		   " \"train_tokens\": 1e9},\n"
		   " \"parallel\": {\"tensor_model_parallel_size\": 8},\n"
		   " \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 16,"
		   " \"inter_node\": {\"fabric\": \"ib-ndr\", \"nics_per_node\": 8}},\n"
		   " \"costs\": {\"work\": {\"type\": \"run\", \"train_tokens\": 1e9},"
		   " \"uncertainty\": {\"draws\": 2000, \"seed\": 3},"
		   " \"options\": [{\"name\": \"here\", \"kind\": \"rent\", \"provider\": \"lambda_8x\","
		   " \"tier\": \"on_demand\"},"
		   " {\"name\": \"other\", \"kind\": \"build\", \"cluster\": {\"gpu\": \"h200\"}}]}%s%s}\n",
		   calibration ? ",\n \"calibration\": " : "", calibration ? calibration : "");
	return pp_sb_detach(&sb);
}

/* A profile whose collective fits give every all_reduce, all_gather and
 * reduce_scatter of 2..16 GPUs factor x the catalog's busbw for the
 * scenario's fabrics (NVLink inside a node, the NICs' share across). */
static void save_fabric_profile(const char *db, const char *name, double factor)
{
	char *j = scenario(NULL);
	pp_scenario s;
	pp_hw hw;
	CHECK(tu_scenario(j, &s, &hw) == 0);
	free(j);
	pp_profile p;
	memset(&p, 0, sizeof(p));
	snprintf(p.name, sizeof(p.name), "%s", name);
	snprintf(p.gpu, sizeof(p.gpu), "NVIDIA H100 80GB HBM3");
	const pp_coll ops[] = {PP_COLL_ALL_REDUCE, PP_COLL_ALL_GATHER, PP_COLL_REDUCE_SCATTER};
	double inter = hw.nic_Bps * hw.nics_per_node / hw.gpus_per_node / hw.oversubscription;
	for (int o = 0; o < 3; o++)
		for (int sc = 0; sc < PP_SCOPE_COUNT; sc++)
			for (int n = 2; n <= 16; n *= 2) {
				pp_coll_fit *f = &p.fits[p.nfits++];
				f->op = ops[o];
				f->scope = (pp_scope)sc;
				f->nranks = n;
				f->npieces = 1;
				f->piece[0].lo_bytes = 0;
				f->piece[0].hi_bytes = 1e300;
				f->piece[0].alpha_s = sc == PP_SCOPE_INTRA ? hw.intra_lat_s : hw.inter_lat_s;
				f->piece[0].busbw_Bps = factor * (sc == PP_SCOPE_INTRA ? hw.intra_Bps : inter);
			}
	pp_store *st = NULL;
	pp_err err = {0};
	CHECK(pp_store_open(&st, db, &err) == 0);
	CHECK(st && pp_profile_save(st, &p, &err) == 0);
	if (err.msg[0])
		pp_t_diag("%s", err.msg);
	pp_store_close(st);
	pp_scenario_release(&s);
}

static char dbpath[600];

static void make_db(void)
{
	if (dbpath[0])
		return;
	snprintf(dbpath, sizeof(dbpath), "%s/hwres.db", pp_t_tmpdir());
	save_fabric_profile(dbpath, "fabric-1x", 1);
	save_fabric_profile(dbpath, "fabric-2x", 2);
}

static void test_covers(void)
{
	make_db();
	char cal[800];
	snprintf(cal, sizeof(cal), "{\"db\": \"%s\", \"profile\": \"fabric-2x\"}", dbpath);
	char *j = scenario(cal);
	pp_scenario s;
	pp_hw hw;
	pp_err err = {0};
	CHECK(tu_scenario(j, &s, &hw) == 0);
	free(j);
	pp_hwcal c;
	CHECK(pp_hwcal_init(&c, &s, NULL, NULL, NULL, &err) == 0 && c.on);
	pp_cluster cl = s.cluster;
	CHECK(pp_hwcal_covers(&c, &cl));
	cl.num_gpus = 64; /* another size of the same pod: its fits are per group size */
	CHECK(pp_hwcal_covers(&c, &cl));
	CHECK(pp_hw_resolve(&hw, tu_catalog(), &cl, &c, &err) == 0);
	CHECK(strstr(hw.profile, "fabric-2x") != NULL && hw.nfits == 24);
	cl.gpu = pp_catalog_gpu(tu_catalog(), "h200");
	CHECK(cl.gpu && !pp_hwcal_covers(&c, &cl));
	CHECK(pp_hw_resolve(&hw, tu_catalog(), &cl, &c, &err) == 0);
	CHECK(hw.profile[0] == '\0' && hw.nfits == 0);
	CHECK(!pp_hwcal_covers(NULL, &s.cluster));
	/* nothing named: off, and the catalog alone */
	pp_scenario s0;
	j = scenario(NULL);
	CHECK(tu_scenario(j, &s0, &hw) == 0);
	free(j);
	CHECK(pp_hwcal_init(&c, &s0, NULL, NULL, NULL, &err) == 0 && !c.on);
	pp_scenario_release(&s0);
	pp_scenario_release(&s);
}

static int price(const char *calibration, pp_cost_result *r, pp_err *err)
{
	char *j = scenario(calibration);
	pp_scenario s;
	memset(r, 0, sizeof(*r));
	int rc = pp_scenario_parse(&s, "hwres.json", j, strlen(j), tu_catalog(), err);
	free(j);
	if (rc)
		return rc;
	pp_cost_opts o = {0};
	o.predict = pp_predict;
	rc = pp_cost_run(&s, tu_catalog(), &o, r, err);
	pp_scenario_release(&s);
	return rc;
}

static const pp_cost_option *option(const pp_cost_result *r, const char *name)
{
	for (int i = 0; i < r->noptions; i++)
		if (!strcmp(r->options[i].name, name))
			return &r->options[i];
	return NULL;
}

static bool has_source(const pp_cost_result *r, const char *item)
{
	for (int i = 0; i < r->nsources; i++)
		if (!strcmp(r->sources[i].item, item))
			return true;
	return false;
}

static void test_cost_uses_profile(void)
{
	make_db();
	char cal1[800], cal2[800];
	snprintf(cal1, sizeof(cal1), "{\"db\": \"%s\", \"profile\": \"fabric-1x\"}", dbpath);
	snprintf(cal2, sizeof(cal2), "{\"db\": \"%s\", \"profile\": \"fabric-2x\"}", dbpath);
	pp_cost_result r0, r1, r2;
	pp_err err = {0};
	int rc0 = price(NULL, &r0, &err), rc1 = price(cal1, &r1, &err), rc2 = price(cal2, &r2, &err);
	CHECK(rc0 == 0 && rc1 == 0 && rc2 == 0);
	if (rc0 || rc1 || rc2) {
		pp_t_diag("%s", err.msg);
		return;
	}
	const pp_cost_option *h0 = option(&r0, "here"), *h1 = option(&r1, "here"),
			     *h2 = option(&r2, "here"), *o0 = option(&r0, "other"),
			     *o1 = option(&r1, "other"), *o2 = option(&r2, "other");
	CHECK(h0 && h1 && h2 && o0 && o1 && o2);
	if (!(h0 && h1 && h2 && o0 && o1 && o2))
		return;
	pp_t_diag("here: step %.4f s (catalog), %.4f s (fits at 1x busbw), %.4f s (2x); "
		  "$%.0f, $%.0f, $%.0f", h0->step_time_s, h1->step_time_s, h2->step_time_s,
		  h0->usd_total, h1->usd_total, h2->usd_total);
	/* twice the fabric's bandwidth: a faster step, a shorter and cheaper
	 * rental (priced per GPU-hour) on the profile's hardware */
	CHECK(h2->step_time_s < h1->step_time_s);
	CHECK(h2->time_to_train_s < h1->time_to_train_s);
	CHECK(h2->usd_total < h1->usd_total);
	/* the other GPU is not what the profile measured: catalog figures */
	CHECK(o1->step_time_s == o0->step_time_s && o2->step_time_s == o0->step_time_s);
	CHECK(o1->usd_total == o0->usd_total && o2->usd_total == o0->usd_total);
	/* the calibrated uncertainty is used where the profile applied only */
	CHECK(!has_source(&r0, "tco.json uncertainty.step_time_sigma_calibrated"));
	CHECK(has_source(&r1, "tco.json uncertainty.step_time_sigma_calibrated"));
	CHECK(has_source(&r1, "tco.json uncertainty.step_time_sigma"));
	pp_cost_result_release(&r0);
	pp_cost_result_release(&r1);
	pp_cost_result_release(&r2);
	/* a profile the store lacks refuses the run */
	char nope[800];
	snprintf(nope, sizeof(nope), "{\"db\": \"%s\", \"profile\": \"nope\"}", dbpath);
	pp_cost_result rn;
	CHECK(price(nope, &rn, &err) == PP_ENOTFOUND);
	CHECK(strstr(err.msg, "no calibration profile \"nope\"") != NULL);
}

/* Write text to file name in the test's folder; path gets its path. */
static bool write_tmp(const char *name, const char *text, char *path, size_t n)
{
	snprintf(path, n, "%s/%s", pp_t_tmpdir(), name);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return false;
	fputs(text, f);
	fclose(f);
	return true;
}

/* The step a cluster job on scenario file name gets (pp_cscen, with the
 * resolver `podplan cluster` passes), inside one leaf. */
static int job_step(const char *name, double *step, pp_err *err)
{
	char jobs[700], csv[256];
	snprintf(csv, sizeof(csv), "job_id,gpus,submit_s,scenario,tokens\nt,16,0,%s,1e9\n", name);
	if (!write_tmp("jobs.csv", csv, jobs, sizeof(jobs)))
		return PP_EIO;
	pp_cjobs j;
	pp_cspec spec;
	memset(&spec, 0, sizeof(spec));
	spec.oversubscription = 2;
	int rc = pp_cjobs_parse(&j, jobs, csv, strlen(csv), PP_CJF_AUTO, err);
	if (rc)
		return rc;
	pp_hw_resolver hwr = {pp_hw_of_scenario, NULL};
	pp_cscen *sc = NULL;
	double tps, mfu;
	if (!(rc = pp_cscen_new(&sc, &j, jobs, &spec, tu_catalog(), &hwr, err)))
		rc = pp_cscen_step(sc, 0, false, step, &tps, &mfu, err);
	pp_cscen_free(sc);
	pp_cjobs_release(&j);
	return rc;
}

/* The step `podplan predict` gives scenario file path: the command
 * prologue's hardware (pp_hwcal_init from the scenario, pp_hw_resolve). */
static int predict_step(const char *path, double *step, pp_err *err)
{
	pp_scenario s;
	int rc = pp_scenario_load(&s, path, tu_catalog(), err);
	if (rc)
		return rc;
	pp_hwcal *c = pp_xmalloc(sizeof(*c));
	pp_hw hw;
	pp_result r;
	if (!(rc = pp_hwcal_init(c, &s, NULL, NULL, NULL, err)) &&
	    !(rc = pp_hw_resolve(&hw, tu_catalog(), &s.cluster, c, err)) &&
	    !(rc = pp_predict(&s, &hw, NULL, &r, err)))
		*step = r.step_time_s;
	free(c);
	pp_scenario_release(&s);
	return rc;
}

/* A cluster job whose scenario names a profile that doubles its fabrics'
 * bandwidth runs faster than one naming the 1x profile, and each runs the
 * step `podplan predict` gives its scenario (before, the cluster layer
 * resolved hardware from the catalog alone: every job got the same
 * step, the profile ignored). */
static void test_cluster_uses_profile(void)
{
	make_db();
	const char *names[] = {"job-none.json", "job-1x.json", "job-2x.json"};
	const char *profiles[] = {NULL, "fabric-1x", "fabric-2x"};
	double job[3] = {0}, pred[3] = {0};
	for (int i = 0; i < 3; i++) {
		char cal[800], path[700];
		snprintf(cal, sizeof(cal), "{\"db\": \"%s\", \"profile\": \"%s\"}", dbpath,
			 profiles[i] ? profiles[i] : "");
		char *j = scenario(profiles[i] ? cal : NULL);
		bool ok = write_tmp(names[i], j, path, sizeof(path));
		free(j);
		if (!ok)
			return;
		pp_err err = {0};
		CHECK(job_step(names[i], &job[i], &err) == 0);
		CHECK(predict_step(path, &pred[i], &err) == 0);
		if (err.msg[0])
			pp_t_diag("%s: %s", names[i], err.msg);
		CHECK(job[i] == pred[i]);
	}
	pp_t_diag("cluster job step: %.4f s (catalog), %.4f s (1x fits), %.4f s (2x fits)", job[0],
		  job[1], job[2]);
	CHECK(job[2] < job[1]);
	/* the command: `podplan cluster` on a jobs file naming each scenario
	 * (the "jobs:" line ends with the makespan) */
	char line[2][256] = {"", ""};
	for (int i = 1; i < 3; i++) {
		char jobs[700], csv[256], cmd[2048];
		snprintf(csv, sizeof(csv), "job_id,gpus,submit_s,scenario,tokens\nt,16,0,%s,1e12\n",
			 names[i]);
		if (!write_tmp(i == 1 ? "jobs-1x.csv" : "jobs-2x.csv", csv, jobs, sizeof(jobs)))
			return;
		snprintf(cmd, sizeof(cmd), "%s cluster tests/data/cluster/small.json %s", pp_t_bin(),
			 jobs);
		char *out = NULL;
		CHECK(pp_t_sh(cmd, &out) == 0);
		const char *p = out ? strstr(out, "\njobs: ") : NULL;
		CHECK(p != NULL);
		if (p)
			snprintf(line[i - 1], sizeof(line[i - 1]), "%.*s", (int)strcspn(p + 1, "\n"),
				 p + 1);
		free(out);
	}
	pp_t_diag("podplan cluster, 1x: %s", line[0]);
	pp_t_diag("podplan cluster, 2x: %s", line[1]);
	CHECK(line[0][0] && strcmp(line[0], line[1]) != 0);
	/* the published table's rows name no profile: validate resolves them
	 * as before, the catalog's figures */
	pp_hw_resolver hwr = {pp_hw_of_scenario, NULL};
	pp_valset a, b;
	pp_err err = {0};
	CHECK(pp_validate_csv(tu_catalog(), &hwr, "models/validation/validation-public.csv", &a,
			      &err) == 0);
	CHECK(pp_validate_csv(tu_catalog(), NULL, "models/validation/validation-public.csv", &b,
			      &err) == 0);
	CHECK(a.n == b.n && a.n > 0);
	int differ = 0;
	for (int i = 0; i < a.n && i < b.n; i++)
		differ += a.rows[i].predicted != b.rows[i].predicted;
	CHECK(differ == 0);
	pp_valset_release(&a);
	pp_valset_release(&b);
}

/* The line of out that holds "calibration.db: ", from there on. */
static const char *reason(const char *out)
{
	const char *p = out ? strstr(out, "calibration.db: ") : NULL;
	return p ? p : "(none)";
}

static void test_refused_everywhere(void)
{
	char missing[700], cal[900], path[700], spath[700];
	snprintf(missing, sizeof(missing), "%s/no-such.db", pp_t_tmpdir());
	snprintf(cal, sizeof(cal), "{\"db\": \"%s\", \"profile\": \"p\"}", missing);
	char *j = scenario(cal);
	snprintf(path, sizeof(path), "%s/train.json", pp_t_tmpdir());
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(j, f);
	fclose(f);
	free(j);
	snprintf(spath, sizeof(spath), "%s/serve.json", pp_t_tmpdir());
	f = fopen(spath, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "{\"name\": \"s\", \"model\": {\"preset\": \"llama3-8b\"},"
		   " \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 1},"
		   " \"serving\": {\"engine\": \"vllm\", \"tensor_parallel_size\": 1},"
		   " \"workload\": {\"num_prompts\": 10, \"input_len\": 128, \"output_len\": 16,"
		   " \"request_rate\": 1, \"seed\": 0},"
		   " \"calibration\": %s}\n", cal);
	fclose(f);
	static const char *const cmds[] = {"predict %s", "trace %s -o %s.trace", "search %s",
					   "size %s", "cost %s", "report %s -o %s.report",
					   "serve %s", "serve --search %s"};
	char first[2048] = "";
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *file = strstr(cmds[i], "serve") ? spath : path;
		char args[2048], cmd[4096];
		snprintf(args, sizeof(args), cmds[i], file, file);
		snprintf(cmd, sizeof(cmd), "%s %s", pp_t_bin(), args);
		char *out = NULL;
		int st = pp_t_sh(cmd, &out);
		const char *why = reason(out);
		size_t l = strcspn(why, "\n");
		CHECK(st == 2);
		CHECK(strstr(why, "does not exist or is unreadable") != NULL);
		if (!first[0])
			snprintf(first, sizeof(first), "%.*s", (int)l, why);
		/* the same words after the file position, whatever the command */
		CHECK(strlen(first) == l && !strncmp(first, why, l));
		if (st != 2 || strlen(first) != l || strncmp(first, why, l))
			pp_t_diag("podplan %s: status %d: %s", args, st, out ? out : "");
		free(out);
	}
}

int main(void)
{
	RUN(test_covers);
	RUN(test_cost_uses_profile);
	RUN(test_cluster_uses_profile);
	RUN(test_refused_everywhere);
	return pp_t_done("test_hwres");
}
