/*
 * test_serveplan.c - podplan serve --search (plan/serveplan.h) against a
 * second method and against podplan serve itself:
 *  - a brute force (every layout at 1, 2, ... replicas up to its first
 *    meeting the SLO, no pruning but memory) finds the same pick as the
 *    pruned search, on a case where every pruning rule fires (a layout
 *    misses alone, one is dearer at one replica, one misses at the most
 *    replicas the best option allows, some meet), on a case needing more
 *    than a node of replicas, and on one where the winner ties on GPUs
 *    with the first option found and wins on headroom;
 *  - no option the brute force ran on fewer GPUs than the pick meets the
 *    SLO, nor one of the pruned search's; none on as many GPUs has more
 *    headroom;
 *  - the lone-request screen is a lower bound: every simulation of a
 *    layout at the target rate has a TTFT, TPOT and E2EL at the SLO's
 *    percentile no lower than its lone request's;
 *  - the pick, written as the scenario --json prints it, meets the SLO
 *    when `podplan serve` runs it at the rate, with the same figures;
 *  - $ per hour and per 1M output tokens by hand from the fixture's
 *    prices (--provider, --tier); expert parallelism enumerated for MoE
 *    only over more than one rank; given keys stay fixed;
 *  - bad flags and inputs exit 2 with a message naming the problem.
 */
#include "harness.h"
#include "plan/serveplan.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 8B on 2-GPU H100 nodes, 24 requests: TP 1 decodes too slowly alone for
 * the 5.5 ms TPOT, TP 2 meets it on 2 replicas (two nodes' worth is
 * needed at 60 req/s). */
#define SMALL                                                                                    \
	"{\"name\": \"small\", \"model\": {\"preset\": \"llama3-8b\"}, "                        \
	"\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 2, \"gpus_per_node\": 2}, "         \
	"\"serving\": {\"engine\": \"vllm\", \"max_model_len\": 2048, "                         \
	"\"max_num_batched_tokens\": 4096}, "                                                    \
	"\"workload\": {\"num_prompts\": 24, \"input_len\": 512, \"output_len\": 64, "           \
	"\"request_rate\": 60}, "                                                                \
	"\"slo\": {\"ttft_ms\": 300, \"tpot_ms\": 5.5, \"percentile\": 99}}"

/* TP 1 only, replicas matter: 4-GPU nodes at 200 req/s; the pick needs
 * more than a node's worth of replicas (bisection over 1, 2, 3, 4, 8, 12,
 * ...: whole nodes beyond one). 120 requests: at 60 and 400 req/s the
 * lone request's latency times the rate passed the requests (a burst, not
 * a rate: serveplan.c screens it out). */
#define REPLICAS                                                                                 \
	"{\"name\": \"replicas\", \"model\": {\"preset\": \"llama3-8b\"}, "                     \
	"\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 1, \"gpus_per_node\": 4}, "         \
	"\"serving\": {\"engine\": \"vllm\", \"tensor_parallel_size\": 1, "                     \
	"\"max_model_len\": 2048}, "                                                             \
	"\"workload\": {\"num_prompts\": 120, \"input_len\": 512, \"output_len\": 64, "           \
	"\"request_rate\": 200}, "                                                               \
	"\"slo\": {\"ttft_ms\": 150, \"tpot_ms\": 8, \"percentile\": 90}}"

/* Ties: TP 2 meets on 4 replicas at every chunk size; the smaller chunk
 * has more headroom but is not the first visited (the scenario's default
 * chunk is): only a search that runs equal-cost options finds it. */
#define TIES                                                                                     \
	"{\"name\": \"ties\", \"model\": {\"preset\": \"llama3-8b\"}, "                           \
	"\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 2, \"gpus_per_node\": 2}, "         \
	"\"serving\": {\"engine\": \"vllm\", \"max_model_len\": 4096, \"max_num_seqs\": 256}, "    \
	"\"workload\": {\"num_prompts\": 24, \"input_len\": 3000, \"output_len\": 64, "          \
	"\"request_rate\": 30}, "                                                                \
	"\"slo\": {\"ttft_ms\": 400, \"tpot_ms\": 6, \"percentile\": 90}}"

static int run(const char *json, bool exhaustive, pp_scenario *s, pp_splan_result *r)
{
	if (tu_scenario(json, s, NULL))
		return -1;
	pp_splan_opts o = {NAN, 0, NAN, exhaustive, NULL, NULL, false, NULL};
	pp_err err = {0};
	int rc = pp_splan_run(s, tu_catalog(), &o, r, &err);
	if (rc)
		pp_t_diag("search: %s", err.msg);
	return rc;
}

static bool same_layout(const pp_serve_layout *a, const pp_serve_layout *b)
{
	return a->tp == b->tp && a->pp == b->pp && a->ep == b->ep &&
	       a->max_num_seqs == b->max_num_seqs &&
	       a->max_num_batched_tokens == b->max_num_batched_tokens;
}

/* No option on fewer GPUs than the pick meets; none on as many has more
 * headroom. */
static void check_cheapest(const pp_splan_result *r)
{
	const pp_splan_option *p = &r->opts[r->pick];
	int bad = 0;
	for (int i = 0; i < r->nopts; i++) {
		const pp_splan_option *q = &r->opts[i];
		if (q->slo_met && (q->gpus < p->gpus || (q->gpus == p->gpus && q->headroom > p->headroom)))
			bad++;
	}
	CHECK(bad == 0);
	CHECK(p->slo_met && p->headroom >= 0);
}

static void compare(const char *json, const char *what)
{
	pp_scenario s1, s2;
	pp_splan_result a, b;
	if (run(json, false, &s1, &a)) {
		CHECK(0);
		return;
	}
	if (run(json, true, &s2, &b)) {
		CHECK(0);
		pp_splan_result_release(&a);
		return;
	}
	CHECK(a.pick >= 0 && b.pick >= 0);
	if (a.pick >= 0 && b.pick >= 0) {
		const pp_splan_option *pa = &a.opts[a.pick], *pb = &b.opts[b.pick];
		CHECK(same_layout(&a.layouts[pa->layout].l, &b.layouts[pb->layout].l));
		CHECK(pa->dp == pb->dp && pa->gpus == pb->gpus);
		CHECK(pa->headroom == pb->headroom);
		pp_t_diag("%s: pruned %d simulations (+%d alone) vs brute force %d; pick %d GPUs "
			  "(TP %d x %d replicas), headroom %.3f", what, a.sims, a.alone_sims, b.sims,
			  pa->gpus, a.layouts[pa->layout].l.tp, pa->dp, pa->headroom);
		check_cheapest(&a);
		check_cheapest(&b);
		CHECK(a.sims < b.sims);
	}
	/* the lone request bounds every run of its layout */
	int viol = 0, checked = 0;
	for (int i = 0; i < b.nopts; i++) {
		const pp_splan_option *q = &b.opts[i];
		const pp_splan_layout *L = &a.layouts[q->layout];
		CHECK(same_layout(&L->l, &b.layouts[q->layout].l)); /* one enumeration order */
		if (!isfinite(L->alone_ttft_s))
			continue;
		checked++;
		viol += q->ttft_s < L->alone_ttft_s * (1 - 1e-12) || q->e2el_s < L->alone_e2el_s * (1 - 1e-12) ||
			(isfinite(L->alone_tpot_s) && q->tpot_s < L->alone_tpot_s * (1 - 1e-12));
	}
	CHECK(checked > 0 && viol == 0);
	/* a layout ruled out alone meets at no replica count */
	for (int i = 0; i < a.nlayouts; i++)
		if (a.layouts[i].status == PP_SPLAN_ALONE)
			CHECK(b.layouts[i].status == PP_SPLAN_MISSES);
	pp_splan_result_release(&a);
	pp_splan_result_release(&b);
	pp_scenario_release(&s1);
	pp_scenario_release(&s2);
}

static void brute_force(void)
{
	pp_scenario s;
	pp_splan_result r;
	if (run(SMALL, false, &s, &r)) {
		CHECK(0);
		return;
	}
	/* every rule fired */
	CHECK(r.count[PP_SPLAN_ALONE] > 0);
	CHECK(r.count[PP_SPLAN_DEARER] > 0);
	CHECK(r.count[PP_SPLAN_MISSES] > 0);
	CHECK(r.count[PP_SPLAN_MEETS] > 0);
	/* max_num_batched_tokens was given: fixed */
	for (int i = 0; i < r.nlayouts; i++)
		CHECK(r.layouts[i].l.max_num_batched_tokens == 4096);
	CHECK(strstr(r.fixed, "max_num_batched_tokens 4096") != NULL);
	pp_splan_result_release(&r);
	pp_scenario_release(&s);
	compare(SMALL, "small");
}

static void brute_force_replicas(void)
{
	pp_scenario s;
	pp_splan_result r;
	if (run(REPLICAS, false, &s, &r)) {
		CHECK(0);
		return;
	}
	CHECK(r.pick >= 0 && r.opts[r.pick].dp >= 3);
	/* every option run is one the scenario loader accepts (beyond one
	 * node, whole nodes) */
	int refused = 0;
	for (int i = 0; i < r.nopts; i++) {
		cJSON *j = pp_serve_space_scenario(&s, &r.layouts[r.opts[i].layout].l, r.opts[i].dp);
		char *text = cJSON_PrintUnformatted(j);
		pp_scenario x;
		pp_err err = {0};
		if (pp_scenario_parse(&x, "option.json", text, strlen(text), tu_catalog(), &err)) {
			if (!refused++)
				pp_t_diag("refused: %s", err.msg);
		} else {
			pp_scenario_release(&x);
		}
		free(text);
		cJSON_Delete(j);
	}
	CHECK(refused == 0);
	for (int i = 0; i < r.nlayouts; i++)
		CHECK(r.layouts[i].l.tp == 1);
	pp_splan_result_release(&r);
	pp_scenario_release(&s);
	compare(REPLICAS, "replicas");
}

static void brute_force_ties(void)
{
	pp_scenario s;
	pp_splan_result r;
	if (run(TIES, false, &s, &r)) {
		CHECK(0);
		return;
	}
	/* the pick is not what the scenario runs by default */
	CHECK(r.pick >= 0 && r.layouts[r.opts[r.pick].layout].changed > 0);
	pp_splan_result_release(&r);
	pp_scenario_release(&s);
	compare(TIES, "ties");
}

/* ---- through the command ---- */

static char *write_tmp(const char *name, const char *text)
{
	static char path[600];
	snprintf(path, sizeof(path), "%s/%s", pp_t_tmpdir(), name);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void pick_reruns(void)
{
	char cmd[1400], *out = NULL;
	const char *path = write_tmp("small.json", SMALL);
	snprintf(cmd, sizeof(cmd), "%s serve --search %s --json --provider aws_p5.48xlarge 2>/dev/null",
		 pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	cJSON *j = cJSON_Parse(out);
	free(out);
	CHECK(j != NULL);
	if (!j)
		return;
	const cJSON *pk = cJSON_GetObjectItemCaseSensitive(j, "pick");
	const cJSON *ev = cJSON_GetObjectItemCaseSensitive(j, "evaluated");
	CHECK(cJSON_IsObject(pk) && cJSON_IsArray(ev));
	if (!cJSON_IsObject(pk) || !cJSON_IsArray(ev)) {
		cJSON_Delete(j);
		return;
	}
	double gpus = num(pk, "num_gpus");
	/* no cheaper evaluated option meets it */
	int bad = 0, n = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, ev)
	{
		n++;
		bad += num(e, "num_gpus") < gpus &&
		       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "slo_met"));
	}
	CHECK(n > 0 && bad == 0);
	/* $ by hand: the fixture's aws_p5.48xlarge on-demand H100 price */
	CHECK_NEAR(num(j, "usd_per_gpu_hour"), 6.88, 1e-12);
	CHECK_NEAR(num(pk, "usd_per_hour"), 6.88 * gpus, 1e-9);
	/* 60 req/s x 64 output tokens a request */
	CHECK_NEAR(num(pk, "output_tokens_per_s"), 60.0 * 64, 1e-9);
	CHECK_NEAR(num(pk, "usd_per_million_output_tokens"), 6.88 * gpus / (3600.0 * 60 * 64) * 1e6,
		   1e-8);
	/* the pick as a scenario, run by podplan serve at the rate */
	cJSON *sc = cJSON_Parse(SMALL);
	cJSON_ReplaceItemInObjectCaseSensitive(
		sc, "cluster", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(pk, "cluster"), true));
	cJSON_ReplaceItemInObjectCaseSensitive(
		sc, "serving", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(pk, "serving"), true));
	char *text = cJSON_Print(sc);
	cJSON_Delete(sc);
	path = write_tmp("pick.json", text);
	free(text);
	snprintf(cmd, sizeof(cmd), "%s serve %s --json --rate 60 2>/dev/null", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	cJSON *sv = cJSON_Parse(out);
	free(out);
	CHECK(sv != NULL);
	if (sv) {
		const cJSON *slo = cJSON_GetObjectItemCaseSensitive(sv, "slo");
		CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(slo, "met")));
		const cJSON *srv = cJSON_GetObjectItemCaseSensitive(sv, "serving");
		CHECK(num(srv, "data_parallel_size") == num(pk, "data_parallel_size"));
		CHECK(num(srv, "tensor_parallel_size") == num(pk, "tensor_parallel_size"));
		/* the same run: the SLO's p99 figures */
		CHECK_NEAR(num(sv, "p99_ttft_ms"), num(pk, "ttft_ms"), 1e-6);
		CHECK_NEAR(num(sv, "p99_tpot_ms"), num(pk, "tpot_ms"), 1e-6);
		CHECK_NEAR(num(sv, "p99_e2el_ms"), num(pk, "e2el_ms"), 1e-6);
		cJSON_Delete(sv);
	}
	/* another tier: the spot price, the same pick */
	snprintf(cmd, sizeof(cmd), "%s serve --search %s --json --provider aws_p5.48xlarge "
		 "--tier spot 2>/dev/null", pp_t_bin(), write_tmp("small.json", SMALL));
	CHECK(pp_t_sh(cmd, &out) == 0);
	cJSON *k = cJSON_Parse(out);
	free(out);
	if (k) {
		const cJSON *p2 = cJSON_GetObjectItemCaseSensitive(k, "pick");
		CHECK_NEAR(num(k, "usd_per_gpu_hour"), 3.39, 1e-12);
		CHECK(num(p2, "num_gpus") == gpus);
		CHECK_NEAR(num(p2, "usd_per_hour"), 3.39 * gpus, 1e-9);
		cJSON_Delete(k);
	}
	CHECK(k != NULL);
	/* CSV: one row per simulation, the pick marked once */
	snprintf(cmd, sizeof(cmd), "%s serve --search %s --csv 2>/dev/null", pp_t_bin(),
		 write_tmp("small.json", SMALL));
	CHECK(pp_t_sh(cmd, &out) == 0);
	int rows = -1, picks = 0;
	for (char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (*p == '\0')
			break;
		rows++;
		char *nl = strchr(p, '\n');
		if (nl && nl > p && nl[-1] == '\r')
			nl--; /* RFC 4180 line ends */
		if (nl && nl - p >= 4 && !strncmp(nl - 4, "true", 4))
			picks++;
	}
	CHECK(rows == n && picks == 1);
	free(out);
	cJSON_Delete(j);
}

static void moe_space(void)
{
	/* Mixtral 8x7B: expert parallelism searched only over TP > 1 */
	const char *json =
		"{\"name\": \"moe\", \"model\": {\"preset\": \"mixtral-8x7b\"}, "
		"\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8}, "
		"\"serving\": {\"engine\": \"vllm\", \"max_model_len\": 4096, "
		"\"pipeline_parallel_size\": 1, \"max_num_seqs\": 256, \"max_num_batched_tokens\": 8192}, "
		"\"workload\": {\"num_prompts\": 40, \"input_len\": 512, \"output_len\": 32, "
		"\"request_rate\": 10}, "
		"\"slo\": {\"ttft_ms\": 1000, \"tpot_ms\": 40}}";
	pp_scenario s;
	pp_splan_result r;
	if (run(json, false, &s, &r)) {
		CHECK(0);
		return;
	}
	int ep = 0, noep_multi = 0;
	for (int i = 0; i < r.nlayouts; i++) {
		const pp_serve_layout *l = &r.layouts[i].l;
		CHECK(l->pp == 1 && l->max_num_seqs == 256);
		CHECK(!l->ep || l->tp > 1);
		ep += l->ep;
		noep_multi += !l->ep && l->tp > 1;
	}
	CHECK(ep > 0 && ep == noep_multi);
	CHECK(r.pick >= 0);
	if (r.pick >= 0) {
		const pp_splan_option *p = &r.opts[r.pick];
		cJSON *sc = pp_serve_space_scenario(&s, &r.layouts[p->layout].l, p->dp);
		const cJSON *sv = cJSON_GetObjectItemCaseSensitive(sc, "serving");
		CHECK(cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(sv, "enable_expert_parallel")));
		CHECK(num(cJSON_GetObjectItemCaseSensitive(sc, "cluster"), "num_gpus") == p->gpus);
		cJSON_Delete(sc);
		/* TP 1 does not fit 93 GB of bf16 weights on an 80 GB H100 */
		for (int i = 0; i < r.nlayouts; i++)
			if (r.layouts[i].l.tp == 1)
				CHECK(r.layouts[i].status == PP_SPLAN_NO_FIT);
	}
	pp_splan_result_release(&r);
	pp_scenario_release(&s);
}

/* ---- bad input ---- */

static void expect2(const char *args, const char *needle)
{
	char cmd[1400], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s serve %s", pp_t_bin(), args);
	int rc = pp_t_sh(cmd, &out);
	CHECK(rc == 2);
	if (rc != 2)
		pp_t_diag("'podplan serve %s' exited %d", args, rc);
	CHECK_CONTAINS(out, needle);
	free(out);
}

static void bad_flags(void)
{
	char a[1200];
	const char *small = write_tmp("small.json", SMALL);
	snprintf(a, sizeof(a), "--search %s --rate 0", small);
	expect2(a, "--rate");
	snprintf(a, sizeof(a), "--search %s --rate fast", small);
	expect2(a, "--rate");
	snprintf(a, sizeof(a), "--search %s --rate inf", small);
	expect2(a, "target request rate");
	snprintf(a, sizeof(a), "--search %s --top 0", small);
	expect2(a, "--top");
	snprintf(a, sizeof(a), "--search %s --json --csv", small);
	expect2(a, "exclude");
	snprintf(a, sizeof(a), "--search %s --max-rate", small);
	expect2(a, "unknown option");
	snprintf(a, sizeof(a), "--search %s --seed -1", small);
	expect2(a, "--seed");
	snprintf(a, sizeof(a), "--search %s %s", small, small);
	expect2(a, "one scenario");
	expect2("--search", "one scenario");
	snprintf(a, sizeof(a), "--search %s --tier gold", small);
	expect2(a, "gold");
	/* the shipped scenario sends every request at once: no rate to plan for */
	expect2("--search scenarios/serve/llama3-8b-h100-vllm.json", "--rate R");
	/* no SLO, no serving section */
	const char *noslo = write_tmp("noslo.json",
				      "{\"model\": {\"preset\": \"llama3-8b\"}, \"cluster\": {\"gpu\": "
				      "\"h100-sxm\", \"num_gpus\": 1}, \"serving\": {}, \"workload\": "
				      "{\"num_prompts\": 4, \"request_rate\": 1}}\n");
	snprintf(a, sizeof(a), "--search %s", noslo);
	expect2(a, "\"slo\"");
	expect2("--search tests/data/ddp-70b.json", "serving");
	/* a bad scenario: file, JSON path */
	const char *bad = write_tmp("bad.json",
				    "{\"model\": {\"preset\": \"llama3-8b\"}, \"cluster\": {\"gpu\": "
				    "\"h100-sxm\", \"num_gpus\": 1}, \"serving\": {\"max_num_seqs\": 0}}\n");
	snprintf(a, sizeof(a), "--search %s --rate 1", bad);
	expect2(a, "serving.max_num_seqs");
	/* issue 31 (a fuzz finding): 88,192 requests of 24 + 128 tokens at 2
	 * requests/s, over a minute of CPU before; refused before the first
	 * run, naming the limit and the keys (14,000 such requests, under the
	 * limit, search in about 6 s on the 2-core build machine). */
	const char *big = write_tmp("big.json",
				    "{\"model\": {\"preset\": \"llama3-8b\"}, \"cluster\": {\"gpu\": "
				    "\"h100-sxm\", \"num_gpus\": 1}, \"serving\": {\"engine\": \"vllm\", "
				    "\"tensor_parallel_size\": 1}, \"workload\": {\"num_prompts\": 88192, "
				    "\"input_len\": 24, \"output_len\": 128}, \"slo\": {\"ttft_ms\": 500, "
				    "\"tpot_ms\": 15, \"percentile\": 99}}\n");
	double t0 = pp_mono_s();
	snprintf(a, sizeof(a), "--search %s --rate 2", big);
	expect2(a, "above the limit of 2e+08 output tokens x layouts a search");
	expect2(a, "workload.num_prompts");
	CHECK(pp_mono_s() - t0 < 5);
	/* --help works */
	char cmd[1400], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s serve --search --help", pp_t_bin());
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "usage: podplan serve --search");
	free(out);
}

int main(void)
{
	pp_t_fixture_data();
	RUN(brute_force);
	RUN(brute_force_replicas);
	RUN(brute_force_ties);
	RUN(pick_reruns);
	RUN(moe_space);
	RUN(bad_flags);
	return pp_t_done("test_serveplan");
}
