/*
 * test_cluster_anchors.c - the cluster simulation's validation anchors
 * (cluster/canchor.h; models/validation/cluster.csv): Meta's MTTF and ETTR,
 * Llama 3's interruptions, ETTR and checkpoint bursts, each within the
 * tolerance the issue sets. The Acme queueing rows run on the first
 * 100,000 generated jobs here (the command runs them whole) and are
 * reported, as are the rows podplan does not meet (docs/cluster.md says
 * why).
 */
#include "cluster/canchor.h"
#include "harness.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pp_canchor *v;
static int n;

static const pp_canchor *get(const char *id)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i].id, id))
			return &v[i];
	return NULL;
}

static void expect_pass(const char *id)
{
	const pp_canchor *a = get(id);
	CHECK(a != NULL);
	if (!a)
		return;
	pp_t_diag("%-40s predicted %.4g published %.4g (%+.1f%%)", id, a->predicted, a->published,
		  a->error_pct);
	CHECK(a->pass);
}

static void test_compute(void)
{
	pp_err err = {0};
	int rc = pp_canchor_compute(tu_catalog(), NULL, "models", true, &v, &n, &err);
	if (rc)
		pp_t_diag("%s", err.msg);
	CHECK(rc == 0 && n >= 15);
}

static void test_failures(void)
{
	expect_pass("meta-mttf-16k-gpus");
	expect_pass("meta-mttf-131k-gpus");
	expect_pass("meta-ettr-sim-vs-analytic");
	expect_pass("llama3-54d-interruptions");
	expect_pass("llama3-54d-interruptions-at-rsc1-rate");
	/* the restart that gives an ETTR, checked against the estimator it
	 * inverts, and by hand: interval 252 s, write 2.84 s, rate 419 per 54
	 * days: ETTR 0.90 at (1 - 0.9 x 254.84 / 252) / rate - 127.42 s */
	double lam = 419.0 / (54 * 86400.0), d = 252, w = 2.84;
	double u = pp_canchor_restart_for_ettr(d, w, 0.90, lam);
	CHECK_NEAR(pp_canchor_ettr(d, w, u, lam), 0.90, 1e-12);
	CHECK_NEAR(u, (1 - 0.9 * 254.84 / 252) / lam - 127.42, 1e-12);
	CHECK(pp_canchor_ettr(d, w, u + 60, lam) < 0.90);
}

static void test_storage(void)
{
	expect_pass("llama3-405b-ckpt-per-gpu");
	expect_pass("llama3-ckpt-burst-2tbps");
	expect_pass("llama3-ckpt-burst-7tbps");
	expect_pass("llama3-ckpt-two-bursts-2tbps");
}

/* Seren's median (1 s) comes from Slurm's batch dispatch and sacct's
 * whole seconds (cqueue.c cs_batch_arrival): without them it is 0 */
static void test_queueing(void)
{
	expect_pass("acme-seren-queue-median");
}

/* reported, not asserted: the rows docs/cluster.md lists as not met */
static void test_reported(void)
{
	const char *ids[] = {"llama3-54d-ettr", "llama3-54d-ettr-detection-apart",
			     "pytorch-dcp-async-7b-ratio",
			     "acme-seren-queue-mean",
			     "acme-kalos-queue-mean", "acme-kalos-queue-median"};
	for (size_t i = 0; i < PP_ARRAY_LEN(ids); i++) {
		const pp_canchor *a = get(ids[i]);
		CHECK(a != NULL);
		if (a)
			pp_t_diag("%-40s predicted %.4g published %.4g (%+.1f%%) %s", ids[i],
				  a->predicted, a->published, a->error_pct,
				  a->pass ? "met" : "not met");
	}
}

/* the FGD paper's openb rows: asserted when the trace is fetched
 * (models/cluster/openb/fetch.sh), else present and marked not met */
static void test_openb(void)
{
	const char *ids[] = {"openb-fgd-vs-bestfit-reduction", "openb-bestfit-unalloc-at-100",
			     "openb-fgd-unalloc-at-100"};
	bool have = access("models/cluster/openb/openb_node_list_gpu_node.csv", R_OK) == 0 &&
		    access("models/cluster/openb/openb_pod_list_default.csv", R_OK) == 0;
	for (size_t i = 0; i < PP_ARRAY_LEN(ids); i++) {
		if (have) {
			expect_pass(ids[i]);
		} else {
			const pp_canchor *a = get(ids[i]);
			CHECK(a != NULL && !a->pass && isnan(a->predicted));
		}
	}
	if (!have)
		pp_t_diag("openb trace not fetched: its rows are reported as not computed");
}

int main(void)
{
	RUN(test_compute);
	RUN(test_failures);
	RUN(test_storage);
	RUN(test_queueing);
	RUN(test_reported);
	RUN(test_openb);
	free(v);
	return pp_t_done("test_cluster_anchors");
}
