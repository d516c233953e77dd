/*
 * test_cp.c - context parallelism reported as itself (issue 17: a CP=8
 * scenario over 10 GbE said "tensor-parallel communication (98%)", its op
 * list had no CP operation, search rows likewise). tests/data/cp/cp8-10gbe.json:
 * Llama 2 7B at 32k tokens, TP 2 x CP 8 over two nodes joined by one 10 GbE
 * port each. Checked: the bottleneck names context parallelism; the op
 * list shows Megatron-Core's K/V ring (context_parallel_comm p2p) with the
 * bytes of a hand calculation; the CP ops' exposed time over the step's
 * layers and micro-batches equals the simulated context-parallel share (a
 * second path to the same figure); TP and CP add up to the breakdown's
 * TP/CP row; TorchTitan's all-gather lists all_gather ops; a layout
 * without CP has none.
 */
#include "engine/predict.h"
#include "engine/workload.h"
#include "harness.h"
#include "testutil.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CP8 "tests/data/cp/cp8-10gbe.json"

static char *scenario_text(void)
{
	char *text = NULL;
	size_t len = 0;
	pp_err err = {0};
	if (pp_read_file(CP8, 1 << 20, &text, &len, &err))
		pp_t_diag("%s", err.msg);
	return text;
}

/* text with "from" replaced by "to" once (caller frees) */
static char *replace(const char *text, const char *from, const char *to)
{
	const char *at = text ? strstr(text, from) : NULL;
	if (!at)
		return NULL;
	size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
	char *o = malloc(n);
	snprintf(o, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	return o;
}

/* The CP ops' exposed seconds of one layer, forward and backward. */
static double cp_exposed(const pp_workload *w, int *nops, const char *want, double *want_bytes)
{
	double t = 0;
	*nops = 0;
	for (int i = 0; i < w->nops; i++) {
		const pp_op *o = &w->ops[i];
		if (!o->cp)
			continue;
		(*nops)++;
		if (o->kind == PP_OP_COMM && o->part == PP_PART_LAYER)
			t += o->exposed_s;
		if (want && !strcmp(o->name, want))
			*want_bytes = o->bytes;
	}
	return t;
}

static void test_cp_over_10gbe(void)
{
	char *text = scenario_text();
	pp_scenario s;
	pp_hw hw;
	pp_result r;
	if (!text || tu_scenario(text, &s, &hw)) {
		CHECK(!"scenario loads");
		free(text);
		return;
	}
	CHECK(pp_predict(&s, &hw, NULL, &r, &(pp_err){0}) == 0);
	CHECK_CONTAINS(r.bottleneck, "context-parallel communication");
	CHECK(r.cp_comm_exposed_s > 0 && r.cp_comm_exposed_s <= r.breakdown.tp_comm_exposed_s);
	pp_workload w;
	pp_workload_build(&w, &s, &hw);
	int n = 0;
	double ring_bytes = 0;
	double per_layer = cp_exposed(&w, &n, "cp.kv_ring", &ring_bytes);
	/* forward ring, backward ring (K,V and their gradients), and a merge
	 * kernel each: selective recompute does not run the exchange again */
	CHECK(n == 4);
	/* K and V of one CP chunk on one TP rank: 2 x (32768 / 8 tokens) x 32
	 * KV heads x 128 / TP 2 x 2 bytes = 33554432 B, sent 8 - 1 times */
	CHECK_NEAR(ring_bytes, 7.0 * 33554432.0, 1e-12);
	/* 32 layers x 16 micro-batches of that exposed time is the step's
	 * context-parallel share (one stage, every layer on it) */
	CHECK_NEAR(32.0 * 16.0 * per_layer, r.cp_comm_exposed_s, 1e-9);
	pp_workload_release(&w);
	pp_scenario_release(&s);
	/* TorchTitan: the all-gather of K and V, and their gradients'
	 * reduce-scatter backward */
	char *tt = replace(text, "\"training\": {", "\"training\": {\"framework\": \"torchtitan\", ");
	if (tt && !tu_scenario(tt, &s, &hw)) {
		pp_workload_build(&w, &s, &hw);
		double ag_bytes = 0;
		cp_exposed(&w, &n, "cp.kv_allgather", &ag_bytes);
		CHECK(n == 5);
		CHECK_NEAR(ag_bytes, 8.0 * 33554432.0, 1e-12);
		bool rs = false;
		for (int i = 0; i < w.nops; i++)
			rs |= w.ops[i].cp && w.ops[i].coll == PP_COLL_REDUCE_SCATTER &&
			      w.ops[i].phase == PP_PH_BWD;
		CHECK(rs);
		pp_workload_release(&w);
		pp_scenario_release(&s);
	} else {
		CHECK(!"torchtitan variant loads");
	}
	free(tt);
	/* no CP: nothing of it anywhere */
	char *nocp = replace(text, "\"context_parallel_size\": 8", "\"context_parallel_size\": 1");
	if (nocp && !tu_scenario(nocp, &s, &hw)) {
		CHECK(pp_predict(&s, &hw, NULL, &r, &(pp_err){0}) == 0);
		CHECK(r.cp_comm_exposed_s == 0);
		CHECK(!strstr(r.bottleneck, "context-parallel"));
		pp_workload_build(&w, &s, &hw);
		cp_exposed(&w, &n, NULL, NULL);
		CHECK(n == 0);
		pp_workload_release(&w);
		pp_scenario_release(&s);
	} else {
		CHECK(!"CP 1 variant loads");
	}
	free(nocp);
	free(text);
}

static void test_cli(void)
{
	char cmd[1024], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s predict %s", pp_t_bin(), CP8);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "Bottleneck         context-parallel communication (");
	CHECK_CONTAINS(out, "  tensor/context-parallel comm (exposed)");
	CHECK_CONTAINS(out, "    of which tensor-parallel");
	CHECK_CONTAINS(out, "    of which context-parallel");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s predict %s --ops", pp_t_bin(), CP8);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "layer  fwd       cp.kv_ring               comm                sendrecv n=8/4");
	CHECK_CONTAINS(out, "layer  bwd       cp.kv_dkv_ring");
	CHECK_CONTAINS(out, "234.88"); /* MB the ring sends: 7 x 33.55 */
	free(out);
	snprintf(cmd, sizeof(cmd), "%s predict %s --json", pp_t_bin(), CP8);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "\"tp_cp_comm_exposed\":");
	CHECK_CONTAINS(out, "\"context_parallel_s\":");
	CHECK_CONTAINS(out, "\"bottleneck\":\t\"context-parallel communication");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s search %s", pp_t_bin(), CP8);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "context-parallel communication (100% of the step)");
	CHECK(out && !strstr(out, "tensor/context-parallel communication"));
	free(out);
}

int main(void)
{
	RUN(test_cp_over_10gbe);
	RUN(test_cli);
	return pp_t_done("cp");
}
