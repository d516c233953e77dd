/*
 * test_collmodel.c - which fitted collective model served which traffic
 * (issue 17): predict --calibration DB:PROFILE names, per kind of traffic,
 * the fit piece pp_coll_time() used or "catalog". Checked on the committed
 * 2x H200 profile (models/calibrations/h200-nvlink-2gpu.db), whose fits are
 * two-rank, intra-node: a TP 2 layout's all-reduce of 4096 tokens x 4096
 * hidden x 2 bytes = 32 MiB is served by the all_reduce fit, and the op's
 * costed time is that piece's alpha + bytes x 2(n-1)/n / busbw (a second
 * path: the op list against the reported piece); data-parallel traffic
 * over 4 ranks and sends across nodes have no fit: catalog. Without a
 * profile nothing is reported.
 */
#include "calib/profile.h"
#include "engine/collective.h"
#include "engine/collmodel.h"
#include "engine/workload.h"
#include "harness.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char db[600];

#define TP2 "{\"name\": \"h200-tp2\", \"model\": {\"preset\": \"llama2-7b\", \"seq_length\": 4096}, " \
	    "\"training\": {\"global_batch_size\": 8, \"micro_batch_size\": 1, \"precision\": \"bf16\"}, " \
	    "\"parallel\": {\"tensor_model_parallel_size\": 2, \"pipeline_model_parallel_size\": 1, " \
	    "\"zero_stage\": 1}, \"cluster\": {\"gpu\": \"h200\", \"num_gpus\": 2}}"
#define MIX "{\"name\": \"h200-mix\", \"model\": {\"preset\": \"llama2-7b\", \"seq_length\": 4096}, " \
	    "\"training\": {\"global_batch_size\": 64, \"micro_batch_size\": 1, \"precision\": \"bf16\"}, " \
	    "\"parallel\": {\"tensor_model_parallel_size\": 2, \"pipeline_model_parallel_size\": 2, " \
	    "\"context_parallel_size\": 2, \"zero_stage\": 1}, \"cluster\": {\"gpu\": \"h200\", " \
	    "\"num_gpus\": 16, \"inter_node\": {\"fabric\": \"ib-ndr\", \"nics_per_node\": 8}}}"

static const pp_coll_use *find(const pp_coll_use *u, int n, const char *traffic, const char *op,
			       double bytes)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(u[i].traffic, traffic) && !strcmp(u[i].op, op) &&
		    bytes >= u[i].min_bytes && bytes <= u[i].max_bytes)
			return &u[i];
	return NULL;
}

static void test_uses(void)
{
	pp_scenario s;
	pp_hw hw;
	pp_err err = {0};
	if (tu_scenario(TP2, &s, &hw)) {
		CHECK(!"scenario loads");
		return;
	}
	CHECK(pp_profile_apply_spec(&hw, db, "h200-nvlink-2gpu", &err) == 0);
	int n = 0;
	pp_coll_use *u = pp_coll_uses(&s, &hw, &n);
	const double ar = 4096.0 * 4096.0 * 2.0; /* 32 MiB */
	const pp_coll_use *tp = find(u, n, "TP", "all_reduce", ar);
	CHECK(tp && tp->fit && tp->fit->op == PP_COLL_ALL_REDUCE && tp->fit->nranks == 2 &&
	      tp->fit->scope == PP_SCOPE_INTRA && tp->scope == PP_SCOPE_INTRA);
	if (tp && tp->fit) {
		/* the piece covers the size */
		CHECK(tp->fit->piece[tp->piece].lo_bytes <= ar &&
		      (tp->piece == tp->fit->npieces - 1 || ar < tp->fit->piece[tp->piece].hi_bytes));
		/* and gives the time the op list costed */
		double want = tp->fit->piece[tp->piece].alpha_s +
			      ar * 1.0 / tp->fit->piece[tp->piece].busbw_Bps; /* 2(n-1)/n = 1 */
		pp_workload w;
		pp_workload_build(&w, &s, &hw);
		int seen = 0;
		for (int i = 0; i < w.nops; i++)
			if (w.ops[i].kind == PP_OP_COMM && w.ops[i].bytes == ar) {
				CHECK_NEAR(w.ops[i].time_s, want, 1e-12);
				seen++;
			}
		CHECK(seen > 0);
		pp_workload_release(&w);
	}
	/* one GPU per DP group (DP 1): no DP entry */
	CHECK(!find(u, n, "DP", "reduce_scatter", 1));
	free(u);
	pp_scenario_release(&s);

	if (tu_scenario(MIX, &s, &hw)) {
		CHECK(!"scenario loads");
		return;
	}
	CHECK(pp_profile_apply_spec(&hw, db, "h200-nvlink-2gpu", &err) == 0);
	u = pp_coll_uses(&s, &hw, &n);
	bool dp = false, pp = false, cp = false, ep = false;
	for (int i = 0; i < n; i++) {
		if (!strcmp(u[i].traffic, "DP")) {
			/* DP 2 x CP 2 = 4 ranks: the profile's fits are for 2 */
			dp = true;
			CHECK(u[i].nranks == 4 && !u[i].fit && u[i].piece == -1);
		} else if (!strcmp(u[i].traffic, "PP")) {
			/* TP 2 x CP 2 x DP 2 = 8: stage 1 is on the other node */
			pp = true;
			CHECK(u[i].scope == PP_SCOPE_INTER && !u[i].fit && !strcmp(u[i].op, "sendrecv"));
		} else if (!strcmp(u[i].traffic, "CP")) {
			/* the K/V ring between the two CP ranks of a node: the
			 * send/recv fit */
			cp = true;
			CHECK(u[i].fit && u[i].fit->op == PP_COLL_SENDRECV && u[i].scope == PP_SCOPE_INTRA);
		}
		ep |= !strcmp(u[i].traffic, "EP") || !strcmp(u[i].traffic, "DP experts");
	}
	CHECK(dp && pp && cp && !ep);
	free(u);
	pp_scenario_release(&s);
}

static void test_cli(void)
{
	char path[600], cmd[1600], *out = NULL;
	snprintf(path, sizeof(path), "%s/tp2.json", pp_t_tmpdir());
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	fputs(TP2, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s predict %s --calibration %s:h200-nvlink-2gpu", pp_t_bin(), path, db);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "Collective models (which served which traffic; calibration profile "
		       "h200-nvlink-2gpu v");
	CHECK_CONTAINS(out, "  TP: tensor-parallel (and sequence-parallel) collectives\n"
		       "    all_reduce n=2 intra-node, 32.0 MiB          fit all_reduce intra-node n=2, piece ");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s predict %s --calibration %s:h200-nvlink-2gpu --json", pp_t_bin(),
		 path, db);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "\"collective_models\":");
	CHECK_CONTAINS(out, "\"traffic\":\t\"TP\"");
	CHECK_CONTAINS(out, "\"model\":\t\"fit\"");
	CHECK_CONTAINS(out, "\"min_bytes\":\t33554432");
	free(out);
	/* a layout whose traffic no fit covers says catalog */
	snprintf(cmd, sizeof(cmd), "%s predict tests/data/ddp-70b.json --calibration %s:h200-nvlink-2gpu",
		 pp_t_bin(), db);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "catalog (the profile has no ");
	free(out);
	/* no profile: no such section */
	snprintf(cmd, sizeof(cmd), "%s predict %s --json", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK(out && !strstr(out, "collective_models"));
	free(out);
}

int main(void)
{
	snprintf(db, sizeof(db), "%s/h200.db", pp_t_tmpdir());
	char cmd[1400], *out = NULL;
	snprintf(cmd, sizeof(cmd), "cp models/calibrations/h200-nvlink-2gpu.db %s", db);
	if (pp_t_sh(cmd, &out) != 0)
		pp_t_diag("cannot copy the committed profile");
	free(out);
	RUN(test_uses);
	RUN(test_cli);
	return pp_t_done("collmodel");
}
