/*
 * test_servedisagg.c - disaggregated prefill/decode (serving.disaggregation)
 * against values derived without the simulation:
 *  - one request on 1 prefill + 1 decode instance: TTFT = its prefill
 *    iteration + the KV transfer (the engine's point-to-point time of the
 *    prompt's KV bytes, 2 x 32 layers x 8 heads x 128 x 2 B a token, by
 *    hand) + the decode instance's one-token iteration over the prompt;
 *    E2EL adds one decode iteration a further token;
 *  - with an infinite link and no latency (no interference: one request)
 *    that TTFT is the co-located TTFT plus exactly that one-token
 *    iteration, and the TPOT equals the co-located one;
 *  - conservation under load with a small KV cache: every request
 *    completes once, every one has one transfer, the bytes are the sum of
 *    the prompts x the bytes per token, every block of both pools is free
 *    at the end, and the output tokens are the workload's;
 *  - serve --search: long prompts under a tight TPOT bound (co-located
 *    decodes share iterations with 4k-token prefill chunks) pick a
 *    disaggregated layout on fewer GPUs than any co-located one meeting
 *    the SLO, and the pick's scenario document, loaded and run as `podplan
 *    serve` would, gives the search's figures; short prompts under a loose
 *    bound, which one GPU meets
 *    co-located, do not (a prefill pool costs its own GPUs);
 *  - bad input: exit 2 with the JSON path.
 */
#include "engine/collective.h"
#include "engine/forward.h"
#include "harness.h"
#include "input/servespec.h"
#include "plan/serveplan.h"
#include "serve/servesim.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DISAGG_8B(gpus, serving, workload)                                                      \
	"{\"name\": \"t\", \"model\": {\"preset\": \"llama3-8b\"}, "                           \
	"\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": " gpus "}, \"serving\": {" serving   \
	"}, \"workload\": {" workload "}}"

#define ONE_P_ONE_D                                                                              \
	"\"disaggregation\": {\"prefill\": {}, \"decode\": {}, "                                 \
	"\"kv_transfer_config\": {\"link\": \"intra_node\"}}"

static double fwd_time(pp_forward *f, double prefill, double pairs, double kv_read, bool decode)
{
	pp_fwd_batch b;
	memset(&b, 0, sizeof(b));
	pp_fwd_cost c;
	if (decode) {
		b.decode_tokens = prefill;
		b.decode_pairs = pairs;
		b.decode_kv_read = kv_read;
	} else {
		b.prefill_tokens = prefill;
		b.prefill_pairs = pairs;
		b.prefill_kv_read = kv_read;
	}
	b.kv_write = prefill;
	b.sampled = b.seqs = 1;
	pp_forward_cost(f, &b, &c);
	return c.total_s;
}

static void one_request(void)
{
	pp_scenario s;
	pp_hw hw;
	pp_serve_setup su;
	if (tu_serve_setup(DISAGG_8B("2", ONE_P_ONE_D, "\"num_prompts\": 1, \"input_len\": 100, "
			    "\"output_len\": 4"), &s, &hw, &su)) {
		CHECK(!"setup");
		pp_scenario_release(&s);
		return;
	}
	CHECK(su.disagg && su.xfer_same_node);
	CHECK_NEAR(su.pool[PP_POOL_PREFILL].mem.kv_bytes_per_token, 2.0 * 32 * 8 * 128 * 2, 1e-12);
	pp_err err = {0};
	pp_serve_result r;
	CHECK(pp_serve_run(&su, INFINITY, 0, &r, &err) == 0);
	double prefill = fwd_time(su.pool[PP_POOL_PREFILL].fwd, 100, 5050, 100, false);
	double bytes = 100 * 131072.0;
	double xfer = pp_p2p_time(&su.hw, bytes, true);
	/* the last prompt token recomputed: 1 query over 100 keys */
	double first = fwd_time(su.pool[PP_POOL_DECODE].fwd, 1, 100, 100, false);
	CHECK_NEAR(r.ttft.mean, prefill + xfer + first, 1e-12);
	double e2el = prefill + xfer + first, dec = 0;
	for (int k = 0; k < 3; k++) {
		double t = fwd_time(su.pool[PP_POOL_DECODE].fwd, 1, 101 + k, 101 + k, true);
		dec += t;
		e2el += t;
	}
	CHECK_NEAR(r.e2el.mean, e2el, 1e-12);
	CHECK_NEAR(r.tpot.mean, dec / 3, 1e-12);
	CHECK(r.completed == 1 && r.kv_transfers == 1);
	CHECK_NEAR(r.kv_transfer_bytes, bytes, 1e-12);
	CHECK_NEAR(r.mean_transfer_s, xfer, 1e-12);
	CHECK(r.pool[PP_POOL_PREFILL].iterations == 1 && r.pool[PP_POOL_DECODE].iterations == 4);
	CHECK(r.blocks_held_at_end == 0);
	/* bytes over the catalog's NVLink (450 GB/s x 0.82) plus its latencies */
	CHECK(xfer > bytes / (450e9 * 0.82) && xfer < bytes / (450e9 * 0.82) + 50e-6);
	pp_t_diag("1P1D, 100 tokens: prefill %.3f ms + transfer %.1f us + first decode %.3f ms",
		  prefill * 1e3, xfer * 1e6, first * 1e3);
	pp_serve_setup_release(&su);
	pp_scenario_release(&s);
}

/* An ideal link and no interference: the bounds the co-located engine gives. */
static void ideal_link(void)
{
	pp_scenario s, c;
	pp_hw hw, hwc;
	pp_serve_setup su, sc;
	const char *w = "\"num_prompts\": 1, \"input_len\": 500, \"output_len\": 16";
	char j[1200], k[1200];
	snprintf(j, sizeof(j), DISAGG_8B("2", ONE_P_ONE_D, "%s"), w);
	snprintf(k, sizeof(k), DISAGG_8B("1", "\"tensor_parallel_size\": 1", "%s"), w);
	if (tu_serve_setup(j, &s, &hw, &su) || tu_serve_setup(k, &c, &hwc, &sc)) {
		CHECK(!"setup");
		return;
	}
	su.hw.intra_Bps = INFINITY;
	su.hw.intra_lat_s = su.hw.coll_launch_s = 0;
	su.hw.nfits = 0;
	pp_err err = {0};
	pp_serve_result r, x;
	CHECK(pp_serve_run(&su, INFINITY, 0, &r, &err) == 0);
	CHECK(pp_serve_run(&sc, INFINITY, 0, &x, &err) == 0);
	CHECK(r.mean_transfer_s == 0);
	double first = fwd_time(su.pool[PP_POOL_DECODE].fwd, 1, 500, 500, false);
	CHECK_NEAR(r.ttft.mean, x.ttft.mean + first, 1e-12);
	CHECK_NEAR(r.tpot.mean, x.tpot.mean, 1e-12);
	CHECK_NEAR(r.e2el.mean, x.e2el.mean + first, 1e-12);
	pp_serve_setup_release(&su);
	pp_serve_setup_release(&sc);
	pp_scenario_release(&s);
	pp_scenario_release(&c);
}

/* Load on a small KV cache: requests wait for decode blocks, some are
 * preempted; nothing is lost or counted twice. */
static void conservation(void)
{
	pp_scenario s;
	pp_hw hw;
	pp_serve_setup su;
	const char *j = DISAGG_8B("4", "\"gpu_memory_utilization\": 0.25, \"max_model_len\": 4096, "
				  "\"disaggregation\": {\"prefill\": {\"data_parallel_size\": 2}, "
				  "\"decode\": {\"data_parallel_size\": 2, \"max_num_seqs\": 64}}",
				  "\"num_prompts\": 300, \"input_len\": {\"distribution\": \"uniform\", "
				  "\"mean\": 1500, \"range_ratio\": 0.5}, \"output_len\": "
				  "{\"distribution\": \"uniform\", \"mean\": 300, \"range_ratio\": 0.9}, "
				  "\"request_rate\": 40");
	if (tu_serve_setup(j, &s, &hw, &su)) {
		CHECK(!"setup");
		pp_scenario_release(&s);
		return;
	}
	su.keep_requests = true;
	pp_err err = {0};
	pp_serve_result r;
	CHECK(pp_serve_run(&su, 40, 3, &r, &err) == 0);
	int64_t in = 0, out = 0;
	bool once = true;
	for (size_t i = 0; i < r.nrequests; i++) {
		const pp_sreq *q = &r.requests[i];
		in += q->prompt;
		out += q->output;
		once &= q->state == PP_RQ_DONE && q->generated == q->output && q->first_s > q->send_s &&
			q->last_s >= q->first_s;
	}
	CHECK(once);
	CHECK(r.completed == 300 && r.kv_transfers == 300);
	CHECK(r.total_input_tokens == in && r.total_output_tokens == out);
	CHECK_NEAR(r.kv_transfer_bytes, (double)in * 131072, 1e-12);
	CHECK(r.blocks_held_at_end == 0);
	CHECK(r.pool[PP_POOL_PREFILL].instances == 2 && r.pool[PP_POOL_DECODE].instances == 2);
	for (int k = 0; k < PP_NPOOLS; k++) /* busy time per GPU never exceeds the run */
		CHECK(r.pool[k].utilisation > 0 && r.pool[k].utilisation <= 1 + 1e-9);
	pp_t_diag("300 requests on 2P2D with %lld KV tokens a decode instance: %lld preemptions, "
		  "mean wait for decode blocks %.1f ms, decode utilisation %.0f%%",
		  (long long)su.pool[PP_POOL_DECODE].mem.kv_tokens, (long long)r.preemptions,
		  r.mean_decode_wait_s * 1e3, 100 * r.pool[PP_POOL_DECODE].utilisation);
	CHECK(r.mean_decode_wait_s > 0); /* the case is built to make them wait */
	pp_serve_result_release(&r);
	pp_serve_setup_release(&su);
	pp_scenario_release(&s);
}

/* Two pipeline stages a pool: several batches in flight, utilisation
 * still per GPU. */
static void pipeline(void)
{
	pp_scenario s;
	pp_hw hw;
	pp_serve_setup su;
	if (tu_serve_setup(DISAGG_8B("4", "\"pipeline_parallel_size\": 2, " ONE_P_ONE_D,
			    "\"num_prompts\": 100, \"input_len\": 1000, \"output_len\": 100, "
			    "\"request_rate\": 20"), &s, &hw, &su)) {
		CHECK(!"setup");
		pp_scenario_release(&s);
		return;
	}
	pp_err err = {0};
	pp_serve_result r;
	CHECK(pp_serve_run(&su, 20, 0, &r, &err) == 0);
	CHECK(r.completed == 100 && r.blocks_held_at_end == 0);
	/* each GPU holds half the layers: half the bytes a link carries */
	CHECK_NEAR(su.pool[PP_POOL_DECODE].mem.kv_bytes_per_token, 131072.0 / 2, 1e-12);
	CHECK_NEAR(r.kv_transfer_bytes, 100 * 1000 * 131072.0, 1e-12);
	for (int k = 0; k < PP_NPOOLS; k++)
		CHECK(r.pool[k].utilisation > 0 && r.pool[k].utilisation <= 1 + 1e-9);
	pp_serve_setup_release(&su);
	pp_scenario_release(&s);
}

static void bad(const char *name, const char *json, const char *want)
{
	char path[600], cmd[1400], *out = NULL;
	snprintf(path, sizeof(path), "%s/%s.json", pp_t_tmpdir(), name);
	FILE *f = fopen(path, "w");
	fputs(json, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s serve %s", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, want);
	free(out);
}

static void bad_input(void)
{
	bad("dp", DISAGG_8B("2", "\"data_parallel_size\": 2, " ONE_P_ONE_D, "\"num_prompts\": 2"),
	    "serving.data_parallel_size");
	bad("gpus", DISAGG_8B("3", ONE_P_ONE_D, "\"num_prompts\": 2"),
	    "serving.disaggregation: found pipeline 1 x (prefill TP 1 x 1 + decode TP 1 x 1) = 2 GPUs; "
	    "expected cluster.num_gpus = 3");
	bad("role", DISAGG_8B("2", "\"disaggregation\": {\"prefill\": {}, \"decode\": {\"kv_role\": "
			      "\"kv_producer\"}}", "\"num_prompts\": 2"),
	    "serving.disaggregation.decode.kv_role");
	bad("tp", DISAGG_8B("4", "\"disaggregation\": {\"prefill\": {\"tensor_parallel_size\": 3}, "
			    "\"decode\": {}}", "\"num_prompts\": 2"),
	    "serving.disaggregation.prefill.tensor_parallel_size");
	bad("nopool", DISAGG_8B("2", "\"disaggregation\": {\"prefill\": {}}", "\"num_prompts\": 2"),
	    "serving.disaggregation.decode");
	bad("link", DISAGG_8B("16", "\"disaggregation\": {\"prefill\": {\"data_parallel_size\": 8}, "
			      "\"decode\": {\"data_parallel_size\": 8}, \"kv_transfer_config\": "
			      "{\"link\": \"intra_node\"}}", "\"num_prompts\": 2"),
	    "serving.disaggregation.kv_transfer_config.link");
	bad("key", DISAGG_8B("2", "\"disaggregation\": {\"prefill\": {\"gpu\": \"h100-sxm\"}, "
			     "\"decode\": {}}", "\"num_prompts\": 2"),
	    "serving.disaggregation.prefill");
}

#define SEARCH_8B(workload, slo)                                                                \
	"{\"name\": \"s\", \"model\": {\"preset\": \"llama3-8b\"}, "                           \
	"\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 1}, \"serving\": {\"engine\": "   \
	"\"vllm\", \"tensor_parallel_size\": 1, \"pipeline_parallel_size\": 1, \"max_num_seqs\": "  \
	"256, \"max_num_batched_tokens\": 8192, \"max_model_len\": 8192}, \"workload\": {"        \
	workload "}, \"slo\": {" slo "}}"

static int search(const char *json, pp_scenario *s, pp_splan_result *r)
{
	if (tu_scenario(json, s, NULL))
		return -1;
	pp_splan_opts o = {NAN, 0, NAN, false, NULL, NULL, true, NULL};
	pp_err err = {0};
	int rc = pp_splan_run(s, tu_catalog(), &o, r, &err);
	if (rc)
		pp_t_diag("search: %s", err.msg);
	return rc;
}

/* The cheapest meeting option of each kind. */
static void best_of_kinds(const pp_splan_result *r, int *co, int *dis)
{
	*co = *dis = -1;
	for (int i = 0; i < r->nopts; i++) {
		const pp_splan_option *x = &r->opts[i];
		int *b = r->layouts[x->layout].l.disagg ? dis : co;
		if (x->slo_met && (*b < 0 || x->gpus < r->opts[*b].gpus))
			*b = i;
	}
}

static void search_picks(void)
{
	pp_scenario s;
	pp_splan_result r;
	/* prefill-heavy: 4096-token prompts at 4 req/s, p99 TPOT 9 ms */
	if (search(SEARCH_8B("\"num_prompts\": 200, \"input_len\": 4096, \"output_len\": 64, "
			     "\"request_rate\": 4", "\"tpot_ms\": 9, \"percentile\": 99"), &s, &r) == 0) {
		int co, dis;
		best_of_kinds(&r, &co, &dis);
		CHECK(r.pick >= 0 && r.layouts[r.opts[r.pick].layout].l.disagg);
		CHECK(dis >= 0 && (co < 0 || r.opts[dis].gpus < r.opts[co].gpus));
		/* co-located on as many GPUs as the pick was run, and misses */
		bool miss = false;
		for (int i = 0; r.pick >= 0 && i < r.nopts; i++)
			miss |= !r.layouts[r.opts[i].layout].l.disagg && !r.opts[i].slo_met &&
				r.opts[i].gpus == r.opts[r.pick].gpus;
		CHECK(miss);
		/* the pick's scenario, loaded and run as podplan serve would, gives its figures */
		if (r.pick >= 0) {
			const pp_splan_option *pk = &r.opts[r.pick];
			cJSON *j = pp_serve_space_scenario(&s, &r.layouts[pk->layout].l, pk->dp);
			char *text = cJSON_PrintUnformatted(j);
			cJSON_Delete(j);
			pp_scenario s2;
			pp_hw hw2;
			pp_serve_setup su2;
			if (tu_serve_setup(text, &s2, &hw2, &su2) == 0) {
				pp_err err = {0};
				pp_serve_result x;
				CHECK(su2.disagg && pp_serve_run(&su2, 4, 0, &x, &err) == 0);
				CHECK_NEAR(x.ttft.pct, pk->ttft_s, 1e-12);
				CHECK_NEAR(x.tpot.pct, pk->tpot_s, 1e-12);
				CHECK_NEAR(x.mean_transfer_s, pk->mean_transfer_s, 1e-12);
				pp_serve_setup_release(&su2);
			} else {
				CHECK(!"pick setup");
			}
			pp_scenario_release(&s2);
			free(text);
		}
		if (r.pick >= 0)
			pp_t_diag("prefill-heavy: disaggregated on %d GPUs (prefill %d x TP %d), co-located "
				  "best %d GPUs", r.opts[r.pick].gpus,
				  r.layouts[r.opts[r.pick].layout].l.prefill_dp,
				  r.layouts[r.opts[r.pick].layout].l.prefill_tp,
				  co >= 0 ? r.opts[co].gpus : -1);
		pp_splan_result_release(&r);
	} else {
		CHECK(!"search");
	}
	pp_scenario_release(&s);
	/* short prompts, a loose bound: one co-located GPU meets it */
	if (search(SEARCH_8B("\"num_prompts\": 200, \"input_len\": 128, \"output_len\": 128, "
			     "\"request_rate\": 2", "\"tpot_ms\": 50, \"percentile\": 99"), &s, &r) == 0) {
		CHECK(r.pick >= 0 && !r.layouts[r.opts[r.pick].layout].l.disagg);
		CHECK(r.pick >= 0 && r.opts[r.pick].gpus == 1);
		pp_splan_result_release(&r);
	} else {
		CHECK(!"search");
	}
	pp_scenario_release(&s);
}

int main(void)
{
	RUN(one_request);
	RUN(ideal_link);
	RUN(conservation);
	RUN(pipeline);
	RUN(search_picks);
	RUN(bad_input);
	return pp_t_done("test_servedisagg");
}
