/*
 * test_serve.c - podplan serve against values derived without it:
 *  - KV bytes per token by hand: Llama 3 8B 128 KiB, 70B 320 KiB (bf16),
 *    KV heads replicated past TP = KV heads, DeepSeek-V3's MLA latent
 *    576 x 61 x 2 = 70,272 B on every TP rank;
 *  - the KV capacity arithmetic of vLLM's worker (util x total - weights -
 *    peak activation - non-torch) with the weights counted by hand, and
 *    the published Meta-Llama-3-8B on H100 figure within 3%;
 *  - the forward pass's FLOPs of a prefill by hand (GEMMs 2mnk, causal
 *    attention, logits of the sampled row);
 *  - the scheduler on hand-traceable cases: one request (prefill then one
 *    decode a step), the token budget split over two prompts, preemption
 *    of the newest when blocks run out, prefix-cache hits in full blocks
 *    and never the last prompt token;
 *  - the event simulation: one request's TTFT is its prefill iteration's
 *    time and its E2EL adds one iteration per further token; Little's law
 *    L = lambda W in steady state; a higher rate never lowers the TTFT
 *    percentiles, more replicas are never slower;
 *  - np.percentile's rule, the expected experts of top-k routing, and bad
 *    serving input (exit 2 with the JSON path).
 */
#include "engine/forward.h"
#include "harness.h"
#include "input/servespec.h"
#include "serve/kvcap.h"
#include "serve/kvpool.h"
#include "serve/metrics.h"
#include "serve/requests.h"
#include "serve/sched.h"
#include "serve/servesim.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define H100_8B(serving, workload)                                                               \
	"{\"name\": \"t\", \"model\": {\"preset\": \"llama3-8b\"}, "                           \
	"\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 1}, \"serving\": {" serving "}, "   \
	"\"workload\": {" workload "}}"

/* ---- KV bytes per token ---- */

static void kv_bytes(void)
{
	const pp_catalog *cat = tu_catalog();
	const pp_model *m8 = pp_catalog_model(cat, "llama3-8b"), *m70 = pp_catalog_model(cat, "llama3-70b");
	CHECK(m8 && m70);
	if (!m8 || !m70)
		return;
	/* 2 (K, V) x 32 layers x 8 KV heads x 128 x 2 bytes */
	CHECK_NEAR(pp_kv_bytes_per_token(m8, 1, 2), 131072, 1e-12);
	CHECK_NEAR(pp_kv_bytes_per_token(m70, 1, 2), 327680, 1e-12); /* 80 layers */
	CHECK_NEAR(pp_kv_bytes_per_token(m8, 2, 2), 65536, 1e-12);
	/* 16 ranks for 8 KV heads: one head each, replicated */
	CHECK_NEAR(pp_kv_bytes_per_token(m8, 16, 2), 2.0 * 32 * 1 * 128 * 2, 1e-12);
	CHECK_NEAR(pp_kv_bytes_per_token(m8, 1, 1), 65536, 1e-12); /* fp8 */
	pp_model ds = {0};
	ds.num_layers = 61;
	ds.hidden_size = 7168;
	ds.num_attention_heads = 128;
	ds.num_query_groups = 128;
	ds.multi_latent_attention = true;
	ds.kv_lora_rank = 512;
	ds.qk_pos_emb_head_dim = 64;
	ds.qk_head_dim = 128;
	ds.v_head_dim = 128;
	CHECK_NEAR(pp_kv_bytes_per_token(&ds, 1, 2), 70272, 1e-12);
	CHECK_NEAR(pp_kv_bytes_per_token(&ds, 8, 2), 70272, 1e-12); /* the latent on every rank */
	CHECK_NEAR(pp_kv_bytes_per_token(&ds, 8, 1), 35136, 1e-12);
}

/* ---- KV capacity ---- */

static void kv_capacity(void)
{
	pp_scenario s;
	pp_hw hw;
	pp_serve_setup su;
	const char *j = H100_8B("\"max_num_seqs\": 256, \"max_num_batched_tokens\": 8192, "
				"\"enable_chunked_prefill\": false, \"gpu_memory_utilization\": 0.9",
				"\"num_prompts\": 1, \"input_len\": 16, \"output_len\": 4");
	if (tu_serve_setup(j, &s, &hw, &su)) {
		CHECK(!"setup");
		pp_scenario_release(&s);
		return;
	}
	double h = 4096, f = 14336, kv = 2 * 8 * 128, V = 128256;
	double layer = h * (h + kv) + h * h + 3 * h * f + 2 * h;
	double params = 32 * layer + 2 * V * h + h;
	CHECK_NEAR(params, 8030261248.0, 1e-12); /* 8.03B: Meta's card */
	double weights = 2 * params;
	/* the profiling forward of 8192 tokens: hidden + residual beside the
	 * MLP's gate_up and product; the sampler over 256 rows */
	double T = 8192;
	double fwd = 2 * T * h * 2 + T * 3 * f * 2, sampler = 256 * V * (2 + 4 + 4);
	double peak = fwd > sampler ? fwd : sampler;
	double total = 79.22 * PP_GIB; /* what CUDA reports on an H100 80GB (vLLM's log) */
	double avail = 0.9 * total - weights - peak - 1.5 * PP_GIB;
	int64_t blocks = (int64_t)floor(avail / (16 * 131072.0));
	CHECK_NEAR(su.mem.weights_bytes, weights, 1e-12);
	CHECK_NEAR(su.mem.activation_bytes, fwd, 1e-12);
	CHECK_NEAR(su.mem.kv_cache_bytes, avail, 1e-12);
	CHECK(su.mem.num_gpu_blocks == blocks);
	CHECK(su.mem.kv_tokens == blocks * 16);
	CHECK_NEAR(su.mem.max_concurrency, blocks * 16.0 / 8192.0, 1e-12);
	/* vLLM PR #10511's log for this model, GPU and utilisation: 53.29 GiB */
	double err = su.mem.kv_cache_bytes / (53.29 * PP_GIB) - 1;
	pp_t_diag("KV cache %.2f GiB predicted, 53.29 GiB logged by vLLM: %+.1f%%",
		  su.mem.kv_cache_bytes / PP_GIB, 100 * err);
	CHECK(fabs(err) < 0.03);
	pp_serve_setup_release(&su);
	pp_scenario_release(&s);
}

/* ---- the forward pass ---- */

static void forward_flops(void)
{
	pp_scenario s;
	pp_hw hw;
	pp_serve_setup su;
	if (tu_serve_setup(H100_8B("\"tensor_parallel_size\": 1", "\"num_prompts\": 1"), &s, &hw, &su)) {
		CHECK(!"setup");
		pp_scenario_release(&s);
		return;
	}
	double n = 1024, h = 4096, f = 14336, kv = 2 * 8 * 128, V = 128256;
	pp_fwd_batch b;
	memset(&b, 0, sizeof(b));
	b.prefill_tokens = n;
	b.prefill_pairs = n * (n + 1) / 2; /* causal */
	b.prefill_kv_read = n;
	b.kv_write = n;
	b.sampled = 1;
	b.seqs = 1;
	pp_fwd_cost c;
	pp_forward_cost(su.fwd, &b, &c);
	double gemm = 2 * n * (h * (h + kv) + h * h + 3 * h * f);
	double attn = 2 * b.prefill_pairs * 32 * (128 + 128);
	double want = 32 * (gemm + attn) + 2 * 1 * V * h;
	CHECK_NEAR(c.flops, want, 1e-12);
	CHECK(!c.graphed && c.nstages == 1);
	CHECK_NEAR(c.total_s, c.compute_s + c.tp_comm_s + c.ep_comm_s + c.launch_s, 1e-9);
	/* a decode-only batch of 13 runs as the captured graph of 16 */
	pp_fwd_batch d;
		memset(&d, 0, sizeof(d));
	d.decode_tokens = 13;
	d.decode_pairs = d.decode_kv_read = 13 * 500;
	d.kv_write = d.sampled = 13;
	d.seqs = 13;
	pp_forward_cost(su.fwd, &d, &c);
	CHECK(c.graphed && c.tokens == 16);
	CHECK(pp_forward_padded(su.fwd, 3, true) == 4 && pp_forward_padded(su.fwd, 9, true) == 16);
	CHECK(pp_forward_padded(su.fwd, 600, true) == 600); /* past min(2 x 1024, 512) */
	/* the same batch twice costs the same (memoized op times) */
	pp_fwd_cost c2;
	pp_forward_cost(su.fwd, &d, &c2);
	CHECK(c2.total_s == c.total_s);
	pp_serve_setup_release(&su);
	pp_scenario_release(&s);
	/* top-k routing's expected experts */
	CHECK_NEAR(pp_forward_experts_hit(256, 8, 1), 8, 1e-12);
	CHECK_NEAR(pp_forward_experts_hit(256, 8, 32), 256 * (1 - pow(1 - 8.0 / 256, 32)), 1e-12);
	CHECK(pp_forward_experts_hit(256, 8, 4096) > 255.99);
}

/* A decode of one token after c cached, as the scheduler describes it. */
static pp_fwd_batch decode_batch(double n, double pairs)
{
	pp_fwd_batch d;
	memset(&d, 0, sizeof(d));
	d.decode_tokens = n;
	d.decode_pairs = d.decode_kv_read = pairs;
	d.kv_write = d.sampled = n;
	d.seqs = (int)n;
	return d;
}

/* Mixture of experts: a one-token decode reads the attention weights and
 * only the top-k experts' (Mixtral: 2 of 8); a batch that hits every
 * expert reads them all. Multi-latent attention: each head of a decode
 * attends over the cached latent (2 x 512 + 64 per pair, absorbed). */
static void forward_moe_mla(void)
{
	const char *mix = "{\"name\": \"mix\", \"model\": {\"num_layers\": 32, \"hidden_size\": 4096, "
			  "\"num_attention_heads\": 32, \"num_query_groups\": 8, \"ffn_hidden_size\": 14336, "
			  "\"vocab_size\": 32000, \"seq_length\": 4096, \"swiglu\": true, "
			  "\"untie_embeddings_and_output_weights\": true}, \"cluster\": {\"gpu\": \"h200\", "
			  "\"num_gpus\": 1}, \"serving\": {}}";
	pp_scenario s;
	pp_hw hw;
	pp_serve_setup su;
	if (tu_scenario(mix, &s, &hw)) {
		CHECK(!"scenario");
		pp_scenario_release(&s);
		return;
	}
	s.model.num_experts = 8;
	s.model.moe_router_topk = 2;
	s.model.moe_ffn_hidden_size = 14336;
	s.model.moe_layer_freq = 1;
	pp_err err = {0};
	if (pp_serve_setup_init(&su, &s, &hw, &err)) {
		pp_t_diag("%s", err.msg);
		CHECK(!"setup");
		pp_scenario_release(&s);
		return;
	}
	double h = 4096, kvw = 2 * 8 * 128, F = 14336, E = 8, V = 32000;
	double attn_w = (h * (h + kvw) + h * h) * 2, expert = 3 * h * F * 2, router = h * E * 2;
	pp_fwd_batch d = decode_batch(1, 101);
	pp_fwd_cost c;
	pp_forward_cost(su.fwd, &d, &c);
	double want = 32 * (attn_w + router + 2 * expert) + V * h * 2;
	pp_t_diag("Mixtral decode of 1: %.3f GB read, weights of 2 experts a layer %.3f GB", c.bytes / 1e9,
		  want / 1e9);
	CHECK(c.bytes > want && c.bytes < want * 1.01); /* plus activations, KV and norms */
	pp_fwd_batch big = decode_batch(64, 64 * 101);
	pp_forward_cost(su.fwd, &big, &c);
	double all = 32 * (attn_w + router + 8 * expert) + V * h * 2;
	CHECK(c.bytes > all * 0.999 && c.bytes < all * 1.05);
	pp_serve_setup_release(&su);
	pp_scenario_release(&s);

	const char *mla = "{\"name\": \"mla\", \"model\": {\"num_layers\": 4, \"hidden_size\": 7168, "
			  "\"num_attention_heads\": 128, \"ffn_hidden_size\": 18432, \"vocab_size\": 129280, "
			  "\"seq_length\": 4096, \"swiglu\": true, \"untie_embeddings_and_output_weights\": "
			  "true}, \"cluster\": {\"gpu\": \"h200\", \"num_gpus\": 8}, \"serving\": "
			  "{\"tensor_parallel_size\": 8}}";
	if (tu_scenario(mla, &s, &hw)) {
		CHECK(!"scenario");
		pp_scenario_release(&s);
		return;
	}
	pp_model *m = &s.model;
	m->multi_latent_attention = true;
	m->q_lora_rank = 1536;
	m->kv_lora_rank = 512;
	m->qk_head_dim = 128;
	m->qk_pos_emb_head_dim = 64;
	m->v_head_dim = 128;
	if (pp_serve_setup_init(&su, &s, &hw, &err)) {
		pp_t_diag("%s", err.msg);
		CHECK(!"setup");
		pp_scenario_release(&s);
		return;
	}
	CHECK_NEAR(su.mem.kv_bytes_per_token, 4 * 576 * 2.0, 1e-12); /* every rank holds the latent */
	pp_fwd_cost c1, c2;
	pp_fwd_batch d1 = decode_batch(8, 8 * 1000), d2 = decode_batch(8, 8 * 3000);
	pp_forward_cost(su.fwd, &d1, &c1);
	pp_forward_cost(su.fwd, &d2, &c2);
	CHECK_NEAR(c2.flops - c1.flops, 4 * 2.0 * (8 * 2000) * (128 / 8) * (512 + 64 + 512), 1e-9);
	CHECK(c2.total_s > c1.total_s);
	/* a result does not depend on what was costed before: a prefill batch
	 * after a mixed one of the same size equals it on a fresh engine */
	pp_fwd_batch mixed, pre;
	memset(&mixed, 0, sizeof(mixed));
	mixed.prefill_tokens = 4;
	mixed.prefill_pairs = 10;
	mixed.prefill_kv_read = 4;
	mixed.decode_tokens = 4;
	mixed.decode_pairs = mixed.decode_kv_read = 4000;
	mixed.kv_write = 8;
	mixed.sampled = 5;
	mixed.seqs = 5;
	pre = mixed;
	pre.decode_tokens = pre.decode_pairs = pre.decode_kv_read = 0;
	pre.prefill_tokens = 8;
	pre.prefill_pairs = 36;
	pre.prefill_kv_read = 8;
	pp_fwd_cost after, fresh;
	pp_forward_cost(su.fwd, &mixed, &c1);
	pp_forward_cost(su.fwd, &pre, &after);
	pp_serve_setup_release(&su);
	CHECK(pp_serve_setup_init(&su, &s, &hw, &err) == 0);
	pp_forward_cost(su.fwd, &pre, &fresh);
	CHECK(after.total_s == fresh.total_s && after.flops == fresh.flops);
	pp_serve_setup_release(&su);
	pp_scenario_release(&s);
}

/* ---- the scheduler ---- */

static pp_servespec small_spec(int64_t budget, int64_t seqs)
{
	pp_servespec sv;
	memset(&sv, 0, sizeof(sv));
	sv.block_size = 16;
	sv.max_num_batched_tokens = budget;
	sv.max_num_seqs = seqs;
	sv.max_model_len = 4096;
	sv.chunked_prefill = sv.mixed_batches = sv.preemption = sv.prefix_caching = true;
	return sv;
}

static int emitted[8];
static void count_emit(void *ctx, const int *tok, int n, double now)
{
	(void)ctx;
	(void)now;
	for (int k = 0; k < n; k++)
		emitted[tok[k]]++;
}

static void sched_one(void)
{
	pp_servespec sv = small_spec(8192, 8);
	pp_sreq r[1];
	memset(r, 0, sizeof(r));
	r[0].prompt = 100;
	r[0].output = 3;
	r[0].max_tokens = 3;
	pp_sched *s = pp_sched_new(&sv, r, 100, 0);
	int ids[8], done[8];
	pp_fwd_batch b;
	memset(emitted, 0, sizeof(emitted));
	pp_sched_add(s, 0);
	CHECK(pp_sched_next(s, ids, 8, &b) == 1);
	CHECK(b.prefill_tokens == 100 && b.prefill_pairs == 5050 && b.prefill_kv_read == 100);
	CHECK(b.decode_tokens == 0 && b.sampled == 1 && b.kv_write == 100);
	CHECK(pp_sched_complete(s, ids, 1, 1.0, done, count_emit, NULL) == 0);
	CHECK(emitted[0] == 1); /* the first token at the end of the prefill */
	for (int k = 0; k < 2; k++) {
		CHECK(pp_sched_next(s, ids, 8, &b) == 1);
		CHECK(b.decode_tokens == 1 && b.prefill_tokens == 0);
		CHECK(b.decode_pairs == 101 + k && b.decode_kv_read == 101 + k);
		int nd = pp_sched_complete(s, ids, 1, 2.0 + k, done, count_emit, NULL);
		CHECK(nd == (k == 1));
	}
	CHECK(emitted[0] == 3);
	CHECK(pp_sched_next(s, ids, 8, &b) == 0);
	CHECK(pp_kvpool_free_blocks(pp_sched_pool(s)) == 100);
	pp_sched_free(s);
}

static void sched_budget(void)
{
	pp_servespec sv = small_spec(64, 8);
	pp_sreq r[2];
	memset(r, 0, sizeof(r));
	for (int i = 0; i < 2; i++) {
		r[i].prompt = 100;
		r[i].output = 2;
		r[i].max_tokens = 2;
	}
	pp_sched *s = pp_sched_new(&sv, r, 100, 0);
	int ids[8], done[8];
	pp_fwd_batch b;
	memset(emitted, 0, sizeof(emitted));
	pp_sched_add(s, 0);
	pp_sched_add(s, 1);
	CHECK(pp_sched_next(s, ids, 8, &b) == 1 && ids[0] == 0 && r[0].sched_n == 64);
	pp_sched_complete(s, ids, 1, 1, done, count_emit, NULL);
	CHECK(emitted[0] == 0); /* a chunk samples nothing */
	/* the running request's remaining 36 first, then 28 of the next */
	CHECK(pp_sched_next(s, ids, 8, &b) == 2 && r[0].sched_n == 36 && r[1].sched_n == 28);
	CHECK(b.prefill_tokens == 64);
	/* A's second chunk: 36 new after 64 cached */
	CHECK(b.prefill_pairs == 36 * 64 + 36 * 37 / 2 + 28 * 29 / 2);
	pp_sched_complete(s, ids, 2, 2, done, count_emit, NULL);
	CHECK(emitted[0] == 1 && emitted[1] == 0);
	/* A decodes (1) and B gets the rest of its prompt (72) within 64 */
	CHECK(pp_sched_next(s, ids, 8, &b) == 2 && r[0].sched_n == 1 && r[1].sched_n == 63);
	pp_sched_free(s);
}

static void sched_preempt(void)
{
	pp_servespec sv = small_spec(8192, 8);
	pp_sreq r[2];
	memset(r, 0, sizeof(r));
	for (int i = 0; i < 2; i++) {
		r[i].prompt = 64; /* 4 blocks each */
		r[i].output = 40;
		r[i].max_tokens = 40;
	}
	pp_sched *s = pp_sched_new(&sv, r, 10, 0); /* 160 tokens in all */
	int ids[8], done[8], finished[2] = {-1, -1}, nfin = 0;
	pp_fwd_batch b;
	memset(emitted, 0, sizeof(emitted));
	pp_sched_add(s, 0);
	pp_sched_add(s, 1);
	bool resumed_whole = false;
	for (int it = 0; it < 400 && nfin < 2; it++) {
		int n = pp_sched_next(s, ids, 8, &b);
		CHECK(n > 0);
		if (!n)
			break;
		for (int k = 0; k < n; k++)
			if (ids[k] == 1 && r[1].preemptions > 0 && r[1].started && r[1].sched_n > 1)
				resumed_whole |= r[1].sched_n == r[1].prompt + r[1].generated;
		CHECK(pp_kvpool_free_blocks(pp_sched_pool(s)) >= 0);
		int nd = pp_sched_complete(s, ids, n, it, done, count_emit, NULL);
		for (int k = 0; k < nd; k++)
			finished[nfin++] = done[k];
	}
	CHECK(nfin == 2);
	CHECK(emitted[0] == 40 && emitted[1] == 40);
	/* both need 104 tokens = 7 blocks: 14 > 10, so the newest (B) was
	 * preempted, recomputed its prompt and its tokens so far, and A ran on */
	CHECK(r[0].preemptions == 0 && r[1].preemptions >= 1);
	CHECK(pp_sched_preemptions(s) == r[1].preemptions);
	CHECK(resumed_whole);
	CHECK(finished[0] == 0 && finished[1] == 1);
	CHECK(pp_kvpool_free_blocks(pp_sched_pool(s)) == 10);
	pp_sched_free(s);
}

static void sched_prefix(void)
{
	pp_servespec sv = small_spec(8192, 8);
	sv.prefix_len = 70; /* 4 full blocks of 16; the last 6 tokens never cached */
	pp_sreq r[3];
	memset(r, 0, sizeof(r));
	for (int i = 0; i < 3; i++) {
		r[i].prefix = 70;
		r[i].prompt = 70 + 10;
		r[i].output = 2;
		r[i].max_tokens = 2;
	}
	r[2].prefix = 64; /* a prompt that is all prefix: its last token is computed */
	r[2].prompt = 64;
	sv.prefix_len = 70;
	pp_sched *s = pp_sched_new(&sv, r, 100, 0);
	int ids[8], done[8];
	pp_fwd_batch b;
	pp_sched_add(s, 0);
	CHECK(pp_sched_next(s, ids, 8, &b) == 1 && b.prefill_tokens == 80 && r[0].cached == 0);
	pp_sched_complete(s, ids, 1, 1, done, count_emit, NULL);
	CHECK(pp_kvpool_prefix_hit(pp_sched_pool(s), 10) == 4);
	pp_sched_add(s, 1);
	CHECK(pp_sched_next(s, ids, 8, &b) == 2);
	CHECK(r[1].cached == 64 && r[1].sched_n == 16); /* full blocks only: 64 of 70 */
	pp_sched_complete(s, ids, 2, 2, done, count_emit, NULL);
	pp_sched_add(s, 2);
	pp_sched_next(s, ids, 8, &b);
	CHECK(r[2].cached == 48 && r[2].sched_n == 16); /* never the last prompt token */
	CHECK(pp_sched_hit_tokens(s) == 64 + 48);
	pp_sched_free(s);
}

/* ---- the event simulation ---- */

static void one_request(void)
{
	pp_scenario s;
	pp_hw hw;
	pp_serve_setup su;
	if (tu_serve_setup(H100_8B("\"tensor_parallel_size\": 1",
			  "\"num_prompts\": 1, \"input_len\": 100, \"output_len\": 4"), &s, &hw, &su)) {
		CHECK(!"setup");
		pp_scenario_release(&s);
		return;
	}
	pp_err err = {0};
	pp_serve_result r;
	CHECK(pp_serve_run(&su, INFINITY, 0, &r, &err) == 0);
	pp_fwd_batch b;
	memset(&b, 0, sizeof(b));
	pp_fwd_cost c;
	b.prefill_tokens = 100;
	b.prefill_pairs = 5050;
	b.prefill_kv_read = b.kv_write = 100;
	b.sampled = b.seqs = 1;
	pp_forward_cost(su.fwd, &b, &c);
	CHECK_NEAR(r.ttft.mean, c.total_s, 1e-12);
	double e2el = c.total_s, dec[3];
	for (int k = 0; k < 3; k++) {
		pp_fwd_batch d;
		memset(&d, 0, sizeof(d));
		d.decode_tokens = 1;
		d.decode_pairs = d.decode_kv_read = 101 + k;
		d.kv_write = d.sampled = d.seqs = 1;
		pp_forward_cost(su.fwd, &d, &c);
		dec[k] = c.total_s;
		e2el += c.total_s;
	}
	CHECK_NEAR(r.e2el.mean, e2el, 1e-12);
	CHECK_NEAR(r.tpot.mean, (dec[0] + dec[1] + dec[2]) / 3, 1e-12);
	CHECK(r.itl.n == 3 && r.iterations == 4 && r.completed == 1);
	CHECK_NEAR(r.duration_s, e2el, 1e-12);
	CHECK_NEAR(r.output_throughput, 4 / e2el, 1e-12);
	pp_serve_setup_release(&su);
	pp_scenario_release(&s);
}

static void littles_law(void)
{
	pp_scenario s;
	pp_hw hw;
	pp_serve_setup su;
	if (tu_serve_setup(H100_8B("\"tensor_parallel_size\": 1",
			  "\"num_prompts\": 3000, \"input_len\": 512, \"output_len\": 128, "
			  "\"request_rate\": 15"), &s, &hw, &su)) {
		CHECK(!"setup");
		pp_scenario_release(&s);
		return;
	}
	su.keep_requests = true;
	pp_err err = {0};
	pp_serve_result r;
	CHECK(pp_serve_run(&su, 15, 7, &r, &err) == 0);
	double t0 = 0.25 * r.duration_s, t1 = 0.75 * r.duration_s, area = 0, w = 0;
	int arrivals = 0;
	for (size_t i = 0; i < r.nrequests; i++) {
		const pp_sreq *q = &r.requests[i];
		double a = q->send_s > t0 ? q->send_s : t0, e = q->last_s < t1 ? q->last_s : t1;
		if (e > a)
			area += e - a;
		if (q->send_s >= t0 && q->send_s < t1) {
			arrivals++;
			w += q->last_s - q->send_s;
		}
	}
	double L = area / (t1 - t0), lambda = arrivals / (t1 - t0), W = w / arrivals;
	pp_t_diag("Little: L = %.2f in the system, lambda W = %.2f x %.3f s = %.2f", L, lambda, W,
		  lambda * W);
	CHECK(fabs(L / (lambda * W) - 1) < 0.05);
	pp_serve_result_release(&r);
	pp_serve_setup_release(&su);
	pp_scenario_release(&s);
}

/* stop_when_missed: an overloaded run stops once its p99 TTFT is
 * certainly over twice the bound, and the full run agrees (its p99 over
 * the stopped run's lower bound, itself over twice the bound); a run
 * that meets is the same run with it on; a run never reaching
 * max_num_seqs nor its blocks is the same run under a smaller max_num_seqs
 * (the search's reuse). */
static void stop_and_reuse(void)
{
	pp_scenario s;
	pp_hw hw;
	pp_serve_setup su;
	if (tu_serve_setup(H100_8B("\"tensor_parallel_size\": 1",
			  "\"num_prompts\": 400, \"input_len\": 1024, \"output_len\": 64, "
			  "\"request_rate\": 20"), &s, &hw, &su)) {
		CHECK(!"setup");
		pp_scenario_release(&s);
		return;
	}
	su.sv.slo_present = true;
	su.sv.slo_percentile = 99;
	su.sv.slo_ttft_s = 0.2;
	pp_err err = {0};
	pp_serve_result full, cut, meet, meet2;
	/* 400 requests at 200 req/s: a backlog of seconds */
	CHECK(pp_serve_run(&su, 200, 3, &full, &err) == 0);
	su.stop_when_missed = 2;
	CHECK(pp_serve_run(&su, 200, 3, &cut, &err) == 0);
	CHECK(!full.stopped && !full.slo_met && full.ttft.pct > 0.4);
	CHECK(cut.stopped && !cut.slo_met && cut.ttft.pct > 0.4 && cut.ttft.pct <= full.ttft.pct);
	CHECK(isnan(cut.request_throughput) && isnan(cut.tpot.pct));
	CHECK(cut.iterations < full.iterations);
	pp_t_diag("stopped after %lld of %lld iterations, p99 TTFT >= %.3f s (whole run %.3f s)",
		  (long long)cut.iterations, (long long)full.iterations, cut.ttft.pct, full.ttft.pct);
	/* 2 req/s meets: stop changes nothing */
	CHECK(pp_serve_run(&su, 2, 3, &meet, &err) == 0);
	su.stop_when_missed = 0;
	CHECK(pp_serve_run(&su, 2, 3, &meet2, &err) == 0);
	CHECK(meet.slo_met && !meet.stopped && meet.ttft.pct == meet2.ttft.pct &&
	      meet.tpot.pct == meet2.tpot.pct && meet.iterations == meet2.iterations);
	/* its peaks below a smaller max_num_seqs: the same run there */
	CHECK(meet2.peak_running > 0 && meet2.peak_running < 64 && meet2.peak_kv_demand > 0 &&
	      meet2.peak_kv_demand <= su.mem.num_gpu_blocks);
	int64_t seqs = su.sv.max_num_seqs;
	su.sv.max_num_seqs = meet2.peak_running + 1;
	CHECK(pp_serve_run(&su, 2, 3, &meet, &err) == 0);
	CHECK(meet.ttft.pct == meet2.ttft.pct && meet.e2el.pct == meet2.e2el.pct &&
	      meet.iterations == meet2.iterations);
	/* and not at its peak: admissions wait, the run differs */
	su.sv.max_num_seqs = meet2.peak_running / 2 > 0 ? meet2.peak_running / 2 : 1;
	CHECK(pp_serve_run(&su, 2, 3, &meet, &err) == 0);
	CHECK(meet.iterations != meet2.iterations || meet.e2el.pct != meet2.e2el.pct);
	su.sv.max_num_seqs = seqs;
	pp_serve_setup_release(&su);
	pp_scenario_release(&s);
}

/* TensorRT-LLM's capacity scheduler policies on a KV-bound offline run:
 * GUARANTEED_NO_EVICT reserves prompt + max_tokens, so at most
 * blocks / ceil((prompt + max_tokens) / block) requests run and none is
 * ever paused; MAX_UTILIZATION takes only the next step's blocks, runs
 * more at once, and pauses (recomputes) when the cache fills. */
static void trtllm_policies(void)
{
	const char *base = "{\"name\": \"t\", \"model\": {\"preset\": \"llama3-70b\"}, "
			   "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 2}, \"serving\": "
			   "{\"engine\": \"trtllm\", \"tensor_parallel_size\": 2, \"precision\": \"fp8\", "
			   "\"max_num_seqs\": 2048, \"max_model_len\": 4096%s}, \"workload\": "
			   "{\"num_prompts\": 3000, \"input_len\": 1000, \"output_len\": 2000}}";
	char json[1024];
	double running[2] = {0, 0};
	int64_t preempt[2] = {0, 0}, cap = 0;
	for (int k = 0; k < 2; k++) {
		snprintf(json, sizeof(json), base,
			 k ? ", \"capacity_scheduler_policy\": \"MAX_UTILIZATION\"" : "");
		pp_scenario s;
		pp_hw hw;
		pp_serve_setup su;
		if (tu_serve_setup(json, &s, &hw, &su)) {
			CHECK(!"setup");
			pp_scenario_release(&s);
			return;
		}
		CHECK(!strcmp(su.sv.capacity_policy, k ? "MAX_UTILIZATION" : "GUARANTEED_NO_EVICT"));
		CHECK(su.sv.output_reserve == (k ? 0.0 : 1.0) && su.sv.preemption == (k == 1));
		int64_t per = (1000 + 2000 + su.sv.block_size - 1) / su.sv.block_size;
		if (k == 0)
			cap = su.mem.num_gpu_blocks / per;
		pp_err err = {0};
		pp_serve_result r;
		CHECK(pp_serve_run(&su, INFINITY, 1, &r, &err) == 0);
		running[k] = r.mean_running;
		preempt[k] = r.preemptions;
		pp_serve_setup_release(&su);
		pp_scenario_release(&s);
	}
	pp_t_diag("KV-bound 70B TP2: no-evict cap %lld, mean running %.0f (no-evict) and %.0f "
		  "(max-utilization, %lld preemptions)", (long long)cap, running[0], running[1],
		  (long long)preempt[1]);
	CHECK(cap > 0 && running[0] <= (double)cap + 1e-9);
	CHECK(preempt[0] == 0);
	CHECK(running[1] > running[0]);
}

/* workload.warmup_requests: a closed loop of 8 with W = 8 leaves out the
 * first wave (which queues behind each other's prefills) and the last:
 * every counted request started when a slot freed, so the mean TTFT is
 * lower, and between N - 2W and N - W requests are counted. */
static void warmup_window(void)
{
	pp_scenario s;
	pp_hw hw;
	pp_serve_setup su;
	double ttft[2] = {0, 0};
	for (int k = 0; k < 2; k++) {
		char json[512];
		snprintf(json, sizeof(json), H100_8B("", "\"num_prompts\": 96, \"input_len\": 2048, "
			 "\"output_len\": 64, \"max_concurrency\": 8, \"warmup_requests\": %d"), k ? 8 : 0);
		if (tu_serve_setup(json, &s, &hw, &su)) {
			CHECK(!"setup");
			pp_scenario_release(&s);
			return;
		}
		pp_err err = {0};
		pp_serve_result r;
		CHECK(pp_serve_run(&su, INFINITY, 0, &r, &err) == 0);
		ttft[k] = r.ttft.mean;
		if (k == 0)
			CHECK(r.completed == 96);
		else
			CHECK(r.completed >= 96 - 16 && r.completed <= 96 - 8);
		CHECK(r.num_prompts == 96);
		pp_serve_setup_release(&su);
		pp_scenario_release(&s);
	}
	CHECK(ttft[1] < ttft[0]);
}

/* A closed loop's next request reaches the engine after the response that
 * freed its slot, and the engine starts its next iteration as soon as it
 * has sent that response (TensorRT-LLM's executionLoop, vLLM's EngineCore
 * busy loop): alone (concurrency 1) every request starts at once, so each
 * TTFT is the lone prefill; at concurrency 2 a request sent while the
 * other still runs waits for that one's iteration first, so its TTFT is at
 * least the lone prefill plus a lone decode step (joining the iteration
 * that starts at its send, as before, gives about the lone prefill). */
static void closed_loop_reply(void)
{
	double lone_ttft = 0, lone_tpot = 0;
	for (int c = 1; c <= 2; c++) {
		pp_scenario s;
		pp_hw hw;
		pp_serve_setup su;
		char json[512];
		/* a budget of 3072 tokens: at t = 0 the second prompt gets a
		 * chunk of 1024, so the two run an iteration apart, and a
		 * prompt of 2048 beside a decode fits one iteration */
		snprintf(json, sizeof(json),
			 H100_8B("\"tensor_parallel_size\": 1, \"max_num_batched_tokens\": 3072",
				 "\"num_prompts\": 40, \"input_len\": 2048, \"output_len\": 16, "
				 "\"max_concurrency\": %d"), c);
		if (tu_serve_setup(json, &s, &hw, &su)) {
			CHECK(!"setup");
			pp_scenario_release(&s);
			return;
		}
		su.keep_requests = true;
		pp_err err = {0};
		pp_serve_result r;
		CHECK(pp_serve_run(&su, INFINITY, 0, &r, &err) == 0);
		int replies = 0, ok = 0;
		for (size_t i = 0; i < r.nrequests; i++) {
			const pp_sreq *q = &r.requests[i];
			double ttft = q->first_s - q->send_s;
			if (c == 1) {
				if (i == 0) {
					lone_ttft = ttft;
					lone_tpot = (q->last_s - q->first_s) / (double)(q->output - 1);
				}
				ok += fabs(ttft - lone_ttft) <= 1e-9 * lone_ttft;
				replies++;
				continue;
			}
			bool other_running = false;
			for (size_t j = 0; j < r.nrequests; j++)
				if (j != i && r.requests[j].send_s < q->send_s &&
				    r.requests[j].last_s > q->send_s)
					other_running = true;
			if (q->send_s <= 0 || !other_running)
				continue;
			replies++;
			ok += ttft >= (lone_ttft + lone_tpot) * (1 - 1e-9);
		}
		pp_t_diag("concurrency %d: %d of %d requests %s (lone prefill %.2f ms, decode step "
			  "%.2f ms)", c, ok, replies, c == 1 ? "start at once" : "wait an iteration",
			  1e3 * lone_ttft, 1e3 * lone_tpot);
		CHECK(replies > (c == 1 ? 39 : 10) && ok == replies);
		pp_serve_result_release(&r);
		pp_serve_setup_release(&su);
		pp_scenario_release(&s);
	}
}

static void monotone(void)
{
	pp_scenario s, s2;
	pp_hw hw, hw2;
	pp_serve_setup su, su2;
	const char *wl = "\"num_prompts\": 800, \"input_len\": 1024, \"output_len\": 128";
	if (tu_serve_setup(H100_8B("\"tensor_parallel_size\": 1", "\"num_prompts\": 800, \"input_len\": 1024, "
			  "\"output_len\": 128"), &s, &hw, &su)) {
		CHECK(!"setup");
		pp_scenario_release(&s);
		return;
	}
	(void)wl;
	pp_err err = {0};
	double last_p99 = 0, last_med = 0, last_e2el = 0;
	for (double rate = 4; rate <= 64; rate *= 2) {
		pp_serve_result r;
		CHECK(pp_serve_run(&su, rate, 3, &r, &err) == 0);
		CHECK(r.ttft.p99 >= last_p99 && r.ttft.median >= last_med * 0.999);
		CHECK(r.e2el.mean >= last_e2el);
		last_p99 = r.ttft.p99;
		last_med = r.ttft.median;
		last_e2el = r.e2el.mean;
	}
	/* two replicas at the same rate: never slower */
	const char *two = "{\"name\": \"t2\", \"model\": {\"preset\": \"llama3-8b\"}, "
			  "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 2}, \"serving\": "
			  "{\"data_parallel_size\": 2}, \"workload\": {\"num_prompts\": 800, "
			  "\"input_len\": 1024, \"output_len\": 128}}";
	if (tu_serve_setup(two, &s2, &hw2, &su2) == 0) {
		pp_serve_result a, c;
		CHECK(pp_serve_run(&su, 24, 3, &a, &err) == 0);
		CHECK(pp_serve_run(&su2, 24, 3, &c, &err) == 0);
		CHECK(c.e2el.mean <= a.e2el.mean && c.ttft.p99 <= a.ttft.p99);
		CHECK(c.duration_s <= a.duration_s);
		pp_serve_result x, y;
		CHECK(pp_serve_run(&su, INFINITY, 3, &x, &err) == 0);
		CHECK(pp_serve_run(&su2, INFINITY, 3, &y, &err) == 0);
		CHECK(y.output_throughput >= x.output_throughput);
		pp_t_diag("offline: 1 replica %.0f tok/s, 2 replicas %.0f tok/s", x.output_throughput,
			  y.output_throughput);
		pp_serve_setup_release(&su2);
	} else {
		CHECK(!"setup two");
	}
	pp_scenario_release(&s2);
	pp_serve_setup_release(&su);
	pp_scenario_release(&s);
}

/* ---- statistics ---- */

static void stats(void)
{
	double v[4] = {4, 1, 3, 2};
	pp_serve_stat st;
	pp_serve_stat_of(v, 4, 90, &st);
	CHECK_NEAR(st.mean, 2.5, 1e-12);
	CHECK_NEAR(st.median, 2.5, 1e-12);             /* np.percentile([1,2,3,4], 50) */
	CHECK_NEAR(st.p99, 3.97, 1e-12);               /* 1 + 0.99 x 3 ranks */
	CHECK_NEAR(st.pct, 3.7, 1e-12);
	CHECK_NEAR(st.std, sqrt(1.25), 1e-12);         /* np.std: the population's */
	pp_serve_stat e;
	pp_serve_stat_of(v, 0, 99, &e);
	CHECK(e.n == 0 && e.mean == 0);
}

/* pp_serve_pct_of's percentile equals the sort's bit for bit, on latency
 * samples with ties and of every size from 1 (to 133,713: the sampled
 * threshold's path at high percentiles), at percentiles from 0 to 100 (the
 * searches' runs take it instead of pp_serve_stat_of) */
static void stats_pct_only(void)
{
	int bad = 0, cases = 0;
	unsigned long x = 12345;
	const double pcts[] = {0, 1, 25, 50, 90, 95, 99, 99.9, 100};
	for (size_t n = 1; n < 140000; n += n < 20 ? 1 : n < 400 ? 37 : 33331) {
		double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
		for (size_t p = 0; p < PP_ARRAY_LEN(pcts); p++, cases++) {
			for (size_t i = 0; i < n; i++) {
				x = x * 6364136223846793005ul + 1442695040888963407ul;
				double u = (double)(x >> 11) / 9007199254740992.0;
				a[i] = b[i] = p % 2 ? floor(6 * u) * 1e-3 : 0.02 * exp(4 * u);
			}
			pp_serve_stat full, one;
			pp_serve_stat_of(a, n, pcts[p], &full);
			pp_serve_pct_of(b, n, pcts[p], &one);
			bad += memcmp(&full.pct, &one.pct, sizeof(double)) != 0 || one.n != n ||
			       !isnan(one.median);
		}
		free(a);
		free(b);
	}
	pp_t_diag("%d percentiles by selection against the sort: %d differ", cases, bad);
	CHECK(bad == 0);
	pp_serve_stat e;
	pp_serve_pct_of(NULL, 0, 99, &e);
	CHECK(e.n == 0 && e.pct == 0);
}

/* ---- bad input ---- */

static void bad_input(void)
{
	char path[600], cmd[1400], *out = NULL;
	const char *d = pp_t_tmpdir();
	/* Llama 3 70B in bf16 on one H100: no room for the KV cache */
	snprintf(path, sizeof(path), "%s/nofit.json", d);
	FILE *f = fopen(path, "w");
	fputs("{\"model\": {\"preset\": \"llama3-70b\"}, \"cluster\": {\"gpu\": \"h100-sxm\", "
	      "\"num_gpus\": 1}, \"serving\": {}}\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s serve %s", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "serving");
	CHECK_CONTAINS(out, "max_model_len");
	free(out);
	/* --max-rate without an SLO */
	snprintf(path, sizeof(path), "%s/noslo.json", d);
	f = fopen(path, "w");
	fputs("{\"model\": {\"preset\": \"llama3-8b\"}, \"cluster\": {\"gpu\": \"h100-sxm\", "
	      "\"num_gpus\": 1}, \"serving\": {}, \"workload\": {\"num_prompts\": 4}}\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s serve %s --max-rate", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "slo");
	free(out);
	/* a training scenario */
	snprintf(cmd, sizeof(cmd), "%s serve tests/data/ddp-70b.json", pp_t_bin());
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "serving");
	free(out);
	/* a trace with a bad cell: file and row */
	snprintf(path, sizeof(path), "%s/trace.csv", d);
	f = fopen(path, "w");
	fputs("arrival_s,input_len,output_len\n0,100,10\n0.5,abc,10\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/trace.json", d);
	f = fopen(path, "w");
	fputs("{\"model\": {\"preset\": \"llama3-8b\"}, \"cluster\": {\"gpu\": \"h100-sxm\", "
	      "\"num_gpus\": 1}, \"serving\": {}, \"workload\": {\"trace\": \"trace.csv\"}}\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s serve %s", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "trace.csv:3: input_len");
	free(out);
	/* arrivals that go backwards: refused, naming the row */
	snprintf(path, sizeof(path), "%s/trace.csv", d);
	f = fopen(path, "w");
	fputs("arrival_s,input_len,output_len\n0,100,10\n0.5,200,20\n0.25,50,5\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s serve %s/trace.json", pp_t_bin(), d);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "trace.csv:4: arrival_s");
	free(out);
	/* a good trace replays */
	snprintf(path, sizeof(path), "%s/trace.csv", d);
	f = fopen(path, "w");
	fputs("arrival_s,input_len,output_len\n0,100,10\n0.25,50,5\n0.5,200,20\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s serve %s/trace.json --json", pp_t_bin(), d);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "\"total_input_tokens\":\t350");
	CHECK_CONTAINS(out, "\"total_output_tokens\":\t35");
	free(out);
}

int main(void)
{
	RUN(kv_bytes);
	RUN(kv_capacity);
	RUN(forward_flops);
	RUN(forward_moe_mla);
	RUN(sched_one);
	RUN(sched_budget);
	RUN(sched_preempt);
	RUN(sched_prefix);
	RUN(one_request);
	RUN(littles_law);
	RUN(trtllm_policies);
	RUN(warmup_window);
	RUN(closed_loop_reply);
	RUN(monotone);
	RUN(stop_and_reuse);
	RUN(stats);
	RUN(stats_pct_only);
	RUN(bad_input);
	return pp_t_done("test_serve");
}
