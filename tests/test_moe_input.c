/*
 * test_moe_input.c - the input side of mixture-of-experts training: the
 * presets' parameter counts against their model cards (a hand formula from
 * the published architecture), the Hugging Face config.json import of each
 * family (tests/data/hf/, values from the sources in its README) and its
 * refusals, the scenario keys' defaults and checks, and the H800 / GB200
 * SKUs against the bandwidths DeepSeek publishes.
 */
#include "engine/stages.h"
#include "engine/workload.h"
#include "harness.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parameter counts: the hand formula ---- */

typedef struct counts {
	double total, active;
} counts;

/*
 * The parameters of a decoder from its published architecture. Per layer:
 *   attention, grouped-query: Q and O of heads x head_dim each, K and V of
 *     groups x head_dim each, all from / to the hidden size h;
 *   attention, multi-head latent (DeepSeek-V2 report Sec. 2.1): W_DQ h x
 *     q_lora_rank and its RMSNorm, W_UQ q_lora_rank x heads x (qk_head_dim +
 *     qk_pos_emb_head_dim) (without compression, W_Q h x that), W_DKV+W_KR
 *     h x (kv_lora_rank + qk_pos_emb_head_dim) and its RMSNorm, W_UK+W_UV
 *     kv_lora_rank x heads x (qk_head_dim + v_head_dim), W_O heads x
 *     v_head_dim x h;
 *   two RMSNorms of h;
 *   MLP, dense: 3 h ffn (SwiGLU: gate, up, down), 2 h ffn otherwise;
 *   MLP, MoE: E routed experts of 3 h moe_ffn, the shared experts' 3 h
 *     shared (Megatron's size is all of them together), the router h x E.
 * Then the final RMSNorm, the input embedding V x h and the output layer V x h
 * (none when tied). Active: a MoE layer counts top-k routed experts instead
 * of E (the router and shared experts see every token). Left out, each below
 * 0.05% of a total: biases (gpt-oss's attention and expert biases, Qwen2-MoE's
 * shared-expert gate), gpt-oss's attention sinks, Qwen3's QK-norm weights.
 * The layer rule is the published one: a moe_layer_freq list, else layer i
 * is MoE when i % N == 0.
 */
static counts hand_params(const pp_model *m)
{
	double h = m->hidden_size, H = m->num_attention_heads, G = m->num_query_groups;
	double V = m->vocab_size, mult = m->swiglu ? 3 : 2;
	double attn;
	if (m->multi_latent_attention) {
		double qk = m->qk_head_dim + m->qk_pos_emb_head_dim;
		double q = m->q_lora_rank > 0 ? h * m->q_lora_rank + m->q_lora_rank +
							m->q_lora_rank * H * qk
					      : h * H * qk;
		double kv = h * (m->kv_lora_rank + m->qk_pos_emb_head_dim) + m->kv_lora_rank +
			    m->kv_lora_rank * H * (m->qk_head_dim + m->v_head_dim);
		attn = q + kv + H * m->v_head_dim * h;
	} else {
		double d = m->head_dim > 0 ? m->head_dim : h / H;
		attn = 2 * h * H * d + 2 * h * G * d;
	}
	counts c = {0, 0};
	for (int i = 0; i < m->num_layers; i++) {
		bool moe = m->num_experts > 0 &&
			   (m->moe_list_len ? m->moe_list[i] != 0 : i % m->moe_layer_freq == 0);
		double base = attn + 2 * h;
		if (moe) {
			double common = mult * h * m->moe_shared_expert_intermediate_size +
					h * m->num_experts;
			double expert = mult * h * m->moe_ffn_hidden_size;
			c.total += base + common + m->num_experts * expert;
			c.active += base + common + m->moe_router_topk * expert;
		} else {
			double mlp = mult * h * m->ffn_hidden_size;
			c.total += base + mlp;
			c.active += base + mlp;
		}
	}
	double emb = V * h * (m->tied_embeddings ? 1 : 2) + h;
	c.total += emb;
	c.active += emb;
	return c;
}

/* The active count as the model card counts it (some leave out the input
 * embedding: models.json params_active_published_no_embedding). */
static double card_active(const pp_model *m, counts c)
{
	return c.active - (m->params_active_published_no_embedding ? (double)m->vocab_size *
									     m->hidden_size
								       : 0);
}

static void preset_params_within_2pc(void)
{
	const char *ids[] = {"mixtral-8x7b", "mixtral-8x22b", "qwen3-30b-a3b", "qwen3-235b-a22b",
			     "deepseek-v3", "gpt-oss-120b"};
	pp_t_diag("%-16s %9s %9s %7s %9s %9s %7s", "preset", "total", "card", "err", "active",
		  "card", "err");
	for (size_t i = 0; i < PP_ARRAY_LEN(ids); i++) {
		const pp_model *m = pp_catalog_model(tu_catalog(), ids[i]);
		CHECK(m != NULL);
		if (!m)
			continue;
		CHECK(m->num_experts > 0 && m->params_published > 0 && m->params_active_published > 0);
		counts c = hand_params(m);
		double act = card_active(m, c);
		pp_t_diag("%-16s %8.2fB %8.1fB %+6.2f%% %8.2fB %8.1fB %+6.2f%%", ids[i], c.total / 1e9,
			  m->params_published / 1e9, 100 * (c.total / m->params_published - 1),
			  act / 1e9, m->params_active_published / 1e9,
			  100 * (act / m->params_active_published - 1));
		CHECK_NEAR(c.total, m->params_published, 0.02);
		CHECK_NEAR(act, m->params_active_published, 0.02);
	}
}

/* ---- Hugging Face import ---- */

/* Parse a scenario named as if it lived in tests/data/ (hf_config paths are
 * relative to it). Returns the error code; the message in err. */
static int parse(const char *json, pp_scenario *s, pp_err *err)
{
	memset(err, 0, sizeof(*err));
	return pp_scenario_parse(s, "tests/data/x.json", json, strlen(json), tu_catalog(), err);
}

/* Import tests/data/hf/FILE with MODEL_EXTRA in the model section; an
 * unexpected error is printed. */
static int import_as(const char *file, const char *model_extra, bool expect_error,
		     pp_scenario *s, pp_err *err)
{
	char j[1024];
	snprintf(j, sizeof(j), "{\"model\": {\"hf_config\": \"hf/%s\"%s}, \"cluster\": {\"gpu\": "
		 "\"h100-sxm\", \"num_gpus\": 8}}", file, model_extra);
	int rc = parse(j, s, err);
	if (rc && !expect_error)
		pp_t_diag("%s: %s", file, err->msg);
	return rc;
}

static int import(const char *file, const char *model_extra, pp_scenario *s, pp_err *err)
{
	return import_as(file, model_extra, false, s, err);
}

/* The architecture an import and a preset must share (not seq_length: the
 * config's max_position_embeddings against the training context). */
static void same_arch(const pp_model *a, const pp_model *b, const char *what)
{
	bool ok = a->num_layers == b->num_layers && a->hidden_size == b->hidden_size &&
		  a->num_attention_heads == b->num_attention_heads &&
		  a->num_query_groups == b->num_query_groups &&
		  a->ffn_hidden_size == b->ffn_hidden_size && a->vocab_size == b->vocab_size &&
		  a->swiglu == b->swiglu && a->tied_embeddings == b->tied_embeddings &&
		  a->multi_latent_attention == b->multi_latent_attention &&
		  a->q_lora_rank == b->q_lora_rank && a->kv_lora_rank == b->kv_lora_rank &&
		  a->qk_head_dim == b->qk_head_dim && a->qk_pos_emb_head_dim == b->qk_pos_emb_head_dim &&
		  a->v_head_dim == b->v_head_dim && a->window == b->window &&
		  a->window_freq == b->window_freq && a->num_experts == b->num_experts &&
		  a->moe_router_topk == b->moe_router_topk &&
		  a->moe_ffn_hidden_size == b->moe_ffn_hidden_size &&
		  a->moe_shared_expert_intermediate_size == b->moe_shared_expert_intermediate_size;
	if (!a->multi_latent_attention)
		ok = ok && pp_model_head_dim(a) == pp_model_head_dim(b);
	for (int i = 0; i < a->num_layers && ok; i++)
		ok = pp_model_layer_kind(a, i) == pp_model_layer_kind(b, i);
	if (!ok)
		pp_t_diag("%s: the import and the preset differ", what);
	CHECK(ok);
}

static void hf_families(void)
{
	pp_scenario s;
	pp_err err;
	/* Mixtral-8x7B: 8 experts of 14336, top-2, every layer, no window */
	CHECK(import("mixtral-8x7b-config.json", "", &s, &err) == 0);
	const pp_model *m = &s.model;
	CHECK(m->num_experts == 8 && m->moe_router_topk == 2 && m->moe_ffn_hidden_size == 14336);
	CHECK(m->moe_shared_expert_intermediate_size == 0 && m->window == 0);
	CHECK(m->num_query_groups == 8 && m->swiglu && !m->tied_embeddings);
	for (int i = 0; i < 32; i++)
		CHECK(pp_model_layer_moe(m, i));
	same_arch(m, pp_catalog_model(tu_catalog(), "mixtral-8x7b"), "mixtral-8x7b");
	pp_scenario_release(&s);

	CHECK(import("mixtral-8x22b-config.json", "", &s, &err) == 0);
	CHECK(s.model.num_experts == 8 && s.model.moe_ffn_hidden_size == 16384);
	same_arch(&s.model, pp_catalog_model(tu_catalog(), "mixtral-8x22b"), "mixtral-8x22b");
	pp_scenario_release(&s);

	/* Qwen3-MoE: head_dim 128 != hidden / heads, 128 experts of 768, top-8 */
	CHECK(import("qwen3-30b-a3b-config.json", "", &s, &err) == 0);
	m = &s.model;
	CHECK(m->head_dim == 128 && pp_model_head_dim(m) == 128);
	CHECK(m->num_experts == 128 && m->moe_router_topk == 8 && m->moe_ffn_hidden_size == 768);
	CHECK(m->moe_list_len == 0 && m->moe_layer_freq == 1 && m->num_query_groups == 4);
	same_arch(m, pp_catalog_model(tu_catalog(), "qwen3-30b-a3b"), "qwen3-30b-a3b");
	pp_scenario_release(&s);
	CHECK(import("qwen3-235b-a22b-config.json", "", &s, &err) == 0);
	CHECK(s.model.moe_ffn_hidden_size == 1536 && s.model.num_layers == 94);
	same_arch(&s.model, pp_catalog_model(tu_catalog(), "qwen3-235b-a22b"), "qwen3-235b-a22b");
	pp_scenario_release(&s);

	/* DeepSeek-V3 without its MTP module: MLA, 3 dense layers then MoE,
	 * 1 shared expert x 2048 */
	CHECK(import("deepseek-v3-config.json", ", \"mtp_num_layers\": 0", &s, &err) == 0);
	m = &s.model;
	CHECK(m->multi_latent_attention && m->q_lora_rank == 1536 && m->kv_lora_rank == 512);
	CHECK(m->qk_head_dim == 128 && m->qk_pos_emb_head_dim == 64 && m->v_head_dim == 128);
	CHECK(m->num_experts == 256 && m->moe_router_topk == 8 && m->moe_ffn_hidden_size == 2048);
	CHECK(m->moe_shared_expert_intermediate_size == 2048 && m->ffn_hidden_size == 18432);
	CHECK(m->num_query_groups == 128);
	CHECK(m->moe_list_len == 61);
	for (int i = 0; i < 61; i++)
		CHECK(pp_model_layer_moe(m, i) == (i >= 3));
	same_arch(m, pp_catalog_model(tu_catalog(), "deepseek-v3"), "deepseek-v3");
	pp_scenario_release(&s);

	/* gpt-oss-120b: 128 experts of 2880, top-4, head_dim 64, a 128-token
	 * window on even layers (layer_types) */
	CHECK(import("gpt-oss-120b-config.json", "", &s, &err) == 0);
	m = &s.model;
	CHECK(m->num_experts == 128 && m->moe_router_topk == 4 && m->moe_ffn_hidden_size == 2880);
	CHECK(m->head_dim == 64 && m->window == 128 && m->window_freq == 2);
	for (int i = 0; i < 36; i++)
		CHECK(((pp_model_layer_kind(m, i) & PP_LK_WINDOW) != 0) == (i % 2 == 0));
	same_arch(m, pp_catalog_model(tu_catalog(), "gpt-oss-120b"), "gpt-oss-120b");
	pp_scenario_release(&s);

	/* Gemma 3 1B: sliding_window_pattern 6, five sliding layers (512
	 * tokens) then a global one: layers 5, 11, 17, 23 full, 26 layers */
	CHECK(import("gemma-3-1b-it-config.json", "", &s, &err) == 0);
	m = &s.model;
	CHECK(m->window == 512 && m->window_list_len == 26 && m->head_dim == 256);
	CHECK(m->num_query_groups == 1 && m->swiglu && m->tied_embeddings);
	for (int i = 0; i < 26; i++)
		CHECK(((pp_model_layer_kind(m, i) & PP_LK_WINDOW) != 0) == (i != 5 && i != 11 &&
									       i != 17 && i != 23));
	pp_scenario_release(&s);

	/* Kimi K2 (model_type kimi_k2, DeepSeek-V3's architecture): MLA with 64
	 * heads, 384 experts of 2048, top-8, one shared, layer 0 dense */
	CHECK(import("kimi-k2-instruct-config.json", "", &s, &err) == 0);
	m = &s.model;
	CHECK(m->multi_latent_attention && m->num_attention_heads == 64 && m->q_lora_rank == 1536);
	CHECK(m->num_experts == 384 && m->moe_router_topk == 8 && m->moe_ffn_hidden_size == 2048);
	CHECK(m->moe_shared_expert_intermediate_size == 2048 && m->ffn_hidden_size == 18432);
	for (int i = 0; i < 61; i++)
		CHECK(pp_model_layer_moe(m, i) == (i >= 1));
	pp_scenario_release(&s);

	/* GLM-4.5-Air: grouped-query attention (96 heads of 128, 8 groups),
	 * 128 experts of 1408, top-8, one shared, layer 0 dense; its MTP layer
	 * only when the scenario says so */
	CHECK(import_as("glm-4.5-air-config.json", "", true, &s, &err) != 0);
	CHECK_CONTAINS(err.msg, "num_nextn_predict_layers");
	CHECK(import("glm-4.5-air-config.json", ", \"mtp_num_layers\": 0", &s, &err) == 0);
	m = &s.model;
	CHECK(!m->multi_latent_attention && m->num_attention_heads == 96 && m->head_dim == 128);
	CHECK(m->num_query_groups == 8 && m->ffn_hidden_size == 10944);
	CHECK(m->num_experts == 128 && m->moe_router_topk == 8 && m->moe_ffn_hidden_size == 1408);
	CHECK(m->moe_shared_expert_intermediate_size == 1408);
	for (int i = 0; i < 46; i++)
		CHECK(pp_model_layer_moe(m, i) == (i >= 1));
	pp_scenario_release(&s);

	/* dense Mistral-7B: its 4096-token window on every layer */
	CHECK(import("mistral-7b-v0.1-config.json", "", &s, &err) == 0);
	CHECK(s.model.num_experts == 0 && s.model.window == 4096 && s.model.window_freq == 1);
	pp_scenario_release(&s);
}

/* Models without a preset: the import's hand count against the card. */
static void hf_params_without_preset(void)
{
	struct {
		const char *file;
		double total_b, active_b;
		bool no_embedding;
	} rows[] = {
		/* NeMo AutoModel's Qwen1.5-MoE-A2.7B page: 14.3B / 2.7B (Qwen counts
		 * the input embedding, as for Qwen3) */
		{"qwen1.5-moe-a2.7b-config.json", 14.3, 2.7, false},
		/* DeepSeek-V2 README: 236B / 21B (DeepSeek's convention: without the
		 * input embedding, as README_WEIGHTS says for V3) */
		{"deepseek-v2-config.json", 236, 21, true},
		/* Gemma 3 1B card: 1B (tied embedding, counted) */
		{"gemma-3-1b-it-config.json", 1.0, 1.0, false},
		/* Kimi K2: the published weights' shapes sum to 1,026,470,731,056
		 * (tests/data/hf/README.md); card: 32B activated (DeepSeek-V3's
		 * convention, without the input embedding) */
		{"kimi-k2-instruct-config.json", 1026.47, 32, true},
	};
	for (size_t i = 0; i < PP_ARRAY_LEN(rows); i++) {
		pp_scenario s;
		pp_err err;
		CHECK(import(rows[i].file, "", &s, &err) == 0);
		s.model.params_active_published_no_embedding = rows[i].no_embedding;
		counts c = hand_params(&s.model);
		double act = card_active(&s.model, c);
		pp_t_diag("%s: %.2fB total (card %.1fB), %.2fB active (card %.1fB)", rows[i].file,
			  c.total / 1e9, rows[i].total_b, act / 1e9, rows[i].active_b);
		CHECK_NEAR(c.total, rows[i].total_b * 1e9, 0.02);
		CHECK_NEAR(act, rows[i].active_b * 1e9, 0.02);
		pp_scenario_release(&s);
	}
}

static void hf_layer_rules(void)
{
	pp_scenario s;
	pp_err err;
	/* Qwen2-MoE, 8 layers, decoder_sparse_step 2, mlp_only_layers [5]: MoE iff
	 * (i + 1) % 2 == 0 and i != 5 -> layers 1, 3, 7 */
	CHECK(import("synthetic-qwen2-moe-sparse-step.json", "", &s, &err) == 0);
	const int qwen[8] = {0, 1, 0, 1, 0, 0, 0, 1};
	CHECK(s.model.moe_list_len == 8);
	for (int i = 0; i < 8; i++)
		CHECK(pp_model_layer_moe(&s.model, i) == qwen[i]);
	pp_scenario_release(&s);
	/* DeepSeek rule, first_k_dense_replace 1, moe_layer_freq 2: MoE iff i >= 1
	 * and i % 2 == 0 -> layers 2, 4, 6; q_lora_rank null: no query
	 * compression; n_shared_experts null: none */
	CHECK(import("synthetic-deepseek-v2-lite-like.json", "", &s, &err) == 0);
	const int ds[8] = {0, 0, 1, 0, 1, 0, 1, 0};
	for (int i = 0; i < 8; i++)
		CHECK(pp_model_layer_moe(&s.model, i) == ds[i]);
	CHECK(s.model.q_lora_rank == 0 && s.model.moe_shared_expert_intermediate_size == 0);
	CHECK(s.model.multi_latent_attention && s.model.kv_lora_rank == 256);
	pp_scenario_release(&s);
}

/* Write a config into the test's directory and import it; returns the
 * error message (static) or NULL when it imported. */
static const char *import_text(const char *name, const char *cfg, const char *model_extra)
{
	static pp_err err;
	char path[512], j[1024];
	snprintf(path, sizeof(path), "%s/%s", pp_t_tmpdir(), name);
	FILE *f = fopen(path, "w");
	if (!f)
		return "cannot write";
	fputs(cfg, f);
	fclose(f);
	snprintf(j, sizeof(j), "{\"model\": {\"hf_config\": \"%s\"%s}, \"cluster\": {\"gpu\": "
		 "\"h100-sxm\", \"num_gpus\": 8}}", path, model_extra);
	pp_scenario s;
	memset(&err, 0, sizeof(err));
	int rc = pp_scenario_parse(&s, "x.json", j, strlen(j), tu_catalog(), &err);
	pp_scenario_release(&s);
	return rc ? err.msg : NULL;
}

#define DENSE_BASE "\"hidden_size\": 1024, \"num_hidden_layers\": 8, \"num_attention_heads\": 8, " \
		   "\"vocab_size\": 32000, \"max_position_embeddings\": 4096"

static void hf_refusals(void)
{
	pp_scenario s;
	pp_err err;
	/* DeepSeek-V3's MTP module: refused, naming the key, unless the scenario
	 * says whether it is trained */
	CHECK(import_as("deepseek-v3-config.json", "", true, &s, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "tests/data/x.json:1:");
	CHECK_CONTAINS(err.msg, "model.hf_config: tests/data/hf/deepseek-v3-config.json:");
	CHECK_CONTAINS(err.msg, "num_nextn_predict_layers");
	CHECK_CONTAINS(err.msg, "mtp_num_layers");
	pp_scenario_release(&s);
	/* trained with it: one depth, params_total up by a layer of the last
	 * layer's kind, the 2h x h projection and three norms (Megatron-Core's
	 * MultiTokenPredictionLayer; the embedding and the output layer are
	 * shared) */
	CHECK(import_as("deepseek-v3-config.json", ", \"mtp_num_layers\": 1", false, &s, &err) == 0);
	CHECK(s.model.mtp_num_layers == 1);
	{
		pp_model m0 = s.model;
		m0.mtp_num_layers = 0;
		double h = m0.hidden_size;
		int k = pp_model_layer_kind(&m0, m0.num_layers - 1);
		CHECK_NEAR(pp_model_params(&s.model) - pp_model_params(&m0),
			   pp_layer_params_kind(&m0, k) + 2.0 * h * h + 3.0 * h, 1e-9);
		CHECK_NEAR(pp_model_params_active(&s.model) - pp_model_params_active(&m0),
			   pp_layer_params_active(&m0, k) + 2.0 * h * h + 3.0 * h, 1e-9);
	}
	pp_scenario_release(&s);

	const char *msg;
	struct {
		const char *name, *cfg, *want;
	} bad[] = {
		/* the case: experts under a dense model_type are never dense */
		{"experts-in-mistral.json", "{\"model_type\": \"mistral\", " DENSE_BASE
		 ", \"num_local_experts\": 8, \"num_experts_per_tok\": 2}", "num_local_experts"},
		{"unknown-key.json", "{\"model_type\": \"llama\", " DENSE_BASE ", \"foo_layers\": 3}",
		 "foo_layers"},
		/* a window on the upper layers only */
		{"qwen2-partial-window.json", "{\"model_type\": \"qwen2\", " DENSE_BASE
		 ", \"sliding_window\": 1024, \"use_sliding_window\": true, \"max_window_layers\": 4}",
		 "max_window_layers"},
		{"odd-layer-type.json", "{\"model_type\": \"qwen3\", " DENSE_BASE ", \"layer_types\": "
		 "[\"full_attention\", \"full_attention\", \"linear_attention\", \"full_attention\", "
		 "\"full_attention\", \"full_attention\", \"full_attention\", \"full_attention\"]}",
		 "layer_types[2]"},
		/* layer_types against Gemma 3's pattern 6 (layer 5 full) */
		{"window-pattern-disagrees.json", "{\"model_type\": \"gemma3_text\", " DENSE_BASE ", "
		 "\"sliding_window\": 512, \"sliding_window_pattern\": 6, \"layer_types\": "
		 "[\"sliding_attention\", \"sliding_attention\", \"sliding_attention\", "
		 "\"sliding_attention\", \"sliding_attention\", \"sliding_attention\", "
		 "\"sliding_attention\", \"sliding_attention\"]}", "layer_types[5]"},
		/* linear attention outside Qwen3-Next (Qwen3.5's text model):
		 * refused by the key that carries the feature, whatever key comes
		 * first in the file; a Qwen3-Next config whose layer_types does not
		 * follow its full_attention_interval; value heads not a multiple of
		 * the key heads; a Llama 4 config whose text_config is empty:
		 * refused naming it */
		{"hybrid-linear.json", "{\"model_type\": \"qwen3_5_text\", \"decoder_sparse_step\": 1, "
		 DENSE_BASE ", \"full_attention_interval\": 4}", "full_attention_interval: found the "
		 "number 4"},
		{"qwen3-next-types.json", "{\"model_type\": \"qwen3_next\", " DENSE_BASE
		 ", \"num_experts\": 4, \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 256, "
		 "\"linear_num_key_heads\": 4, \"linear_num_value_heads\": 8, \"linear_key_head_dim\": "
		 "64, \"linear_value_head_dim\": 64, \"linear_conv_kernel_dim\": 4, "
		 "\"full_attention_interval\": 4, \"layer_types\": [\"linear_attention\", "
		 "\"linear_attention\", \"full_attention\", \"full_attention\", \"linear_attention\", "
		 "\"linear_attention\", \"linear_attention\", \"full_attention\"]}", "layer_types[2]"},
		{"qwen3-next-heads.json", "{\"model_type\": \"qwen3_next\", " DENSE_BASE
		 ", \"num_experts\": 4, \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 256, "
		 "\"linear_num_key_heads\": 3, \"linear_num_value_heads\": 8, \"linear_key_head_dim\": "
		 "64, \"linear_value_head_dim\": 64, \"linear_conv_kernel_dim\": 4}",
		 "linear_num_value_heads: found 8 value heads for 3 key heads"},
		{"multimodal.json", "{\"model_type\": \"llama4\", \"boi_token_index\": 200080, "
		 "\"text_config\": {}}", "text_config"},
		{"llama-window.json", "{\"model_type\": \"llama\", " DENSE_BASE
		 ", \"sliding_window\": 1024}", "sliding_window"},
		{"mixtral-topk.json", "{\"model_type\": \"mixtral\", " DENSE_BASE
		 ", \"intermediate_size\": 2048, \"num_local_experts\": 4, \"num_experts_per_tok\": 5}",
		 "num_experts_per_tok"},
		{"gpt-oss-k.json", "{\"model_type\": \"gpt_oss\", " DENSE_BASE
		 ", \"intermediate_size\": 1024, \"num_local_experts\": 8, \"experts_per_token\": 4, "
		 "\"num_experts_per_tok\": 2}", "num_experts_per_tok"},
		{"deepseek-other-family.json", "{\"model_type\": \"deepseek_v3\", " DENSE_BASE
		 ", \"kv_lora_rank\": 128, \"qk_nope_head_dim\": 64, \"qk_rope_head_dim\": 32, "
		 "\"v_head_dim\": 64, \"sliding_window\": 128}", "sliding_window"},
		/* a layer index far outside int's range (a fuzz finding: it was
		 * cast to int before its range was checked, undefined behaviour
		 * the sanitizer pass reports) */
		{"qwen3-moe-huge-mlp-only.json", "{\"model_type\": \"qwen3_moe\", " DENSE_BASE
		 ", \"intermediate_size\": 2048, \"num_experts\": 4, \"num_experts_per_tok\": 2, "
		 "\"moe_intermediate_size\": 512, \"decoder_sparse_step\": 2, "
		 "\"mlp_only_layers\": [1.5e100]}", "mlp_only_layers[0]"},
	};
	for (size_t i = 0; i < PP_ARRAY_LEN(bad); i++) {
		msg = import_text(bad[i].name, bad[i].cfg, "");
		CHECK(msg != NULL);
		if (!msg)
			continue;
		CHECK_CONTAINS(msg, bad[i].name);
		CHECK_CONTAINS(msg, bad[i].want);
	}
	/* a window as long as the model's context changes nothing: accepted */
	CHECK(import_text("mistral-long-window.json", "{\"model_type\": \"mistral\", " DENSE_BASE
			  ", \"sliding_window\": 4096}", "") == NULL);
	/* routing constraints and RoPE scaling have no compute effect: accepted */
	CHECK(import_text("dsv3-like.json", "{\"model_type\": \"deepseek_v3\", " DENSE_BASE
			  ", \"kv_lora_rank\": 128, \"qk_nope_head_dim\": 64, \"qk_rope_head_dim\": 32, "
			  "\"v_head_dim\": 64, \"n_routed_experts\": 8, \"num_experts_per_tok\": 2, "
			  "\"moe_intermediate_size\": 256, \"n_group\": 4, \"topk_group\": 2, "
			  "\"norm_topk_prob\": true, \"scoring_func\": \"sigmoid\", "
			  "\"routed_scaling_factor\": 2.5, \"rope_scaling\": {\"type\": \"yarn\", "
			  "\"factor\": 40}}", "") == NULL);
}

/* ---- scenario keys ---- */

#define CL8 "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8}"
#define TINY "\"num_layers\": 4, \"hidden_size\": 1024, \"num_attention_heads\": 8, " \
	     "\"vocab_size\": 32000, \"seq_length\": 2048"

static void scenario_defaults(void)
{
	pp_scenario s;
	pp_err err;
	/* num_experts alone: Megatron's top-2, every layer MoE, the dense FFN
	 * size per expert; the allgather dispatcher, dropless, ETP = TP */
	CHECK(parse("{\"model\": {" TINY ", \"ffn_hidden_size\": 4096, \"num_experts\": 8}, " CL8 "}",
		    &s, &err) == 0);
	CHECK(s.model.moe_router_topk == 2 && s.model.moe_ffn_hidden_size == 4096);
	CHECK(s.model.moe_layer_freq == 1 && s.model.moe_list_len == 0);
	CHECK(s.training.moe_token_dispatcher == PP_MOE_ALLGATHER);
	CHECK(s.training.moe_expert_capacity_factor == 0 && !s.training.moe_grouped_gemm);
	CHECK(!s.training.moe_shared_expert_overlap);
	const pp_moe_defaults *md = pp_catalog_moe(tu_catalog());
	CHECK(md->load_imbalance >= 1 && md->imbalance_prov.estimate && md->imbalance_prov.source[0]);
	CHECK(s.training.moe_load_imbalance == md->load_imbalance);
	CHECK(s.parallel.ep == 1 && s.parallel.etp == 0 && pp_parallel_etp(&s.parallel) == 1);
	CHECK(!(s.given & PP_GIVEN_EP));
	pp_scenario_release(&s);
	/* a dense model keeps an imbalance of 1 */
	CHECK(parse("{\"model\": {" TINY "}, " CL8 "}", &s, &err) == 0);
	CHECK(s.training.moe_load_imbalance == 1.0 && s.model.num_experts == 0);
	pp_scenario_release(&s);

	/* the full set, given */
	CHECK(parse("{\"model\": {" TINY ", \"num_experts\": 8, \"moe_router_topk\": 1, "
		    "\"moe_ffn_hidden_size\": 512, \"moe_shared_expert_intermediate_size\": 1024, "
		    "\"moe_layer_freq\": [0, 1, 1, 1], \"kv_channels\": 256, \"window_size\": 512, "
		    "\"window_layer_freq\": 2}, \"training\": {\"global_batch_size\": 8, "
		    "\"moe_token_dispatcher_type\": \"alltoall\", \"moe_expert_capacity_factor\": 1.25, "
		    "\"moe_load_imbalance\": 1.3, \"moe_shared_expert_overlap\": true, "
		    "\"moe_grouped_gemm\": true}, \"parallel\": {\"expert_model_parallel_size\": 4, "
		    "\"expert_tensor_parallel_size\": 2}, " CL8 "}", &s, &err) == 0);
	if (err.msg[0])
		pp_t_diag("%s", err.msg);
	CHECK(s.model.moe_router_topk == 1 && s.model.moe_ffn_hidden_size == 512);
	CHECK(s.model.moe_shared_expert_intermediate_size == 1024 && s.model.moe_list_len == 4);
	CHECK(!pp_model_layer_moe(&s.model, 0) && pp_model_layer_moe(&s.model, 3));
	CHECK(s.model.head_dim == 256 && s.model.window == 512 && s.model.window_freq == 2);
	CHECK(s.training.moe_token_dispatcher == PP_MOE_ALLTOALL);
	CHECK(s.training.moe_expert_capacity_factor == 1.25 && s.training.moe_load_imbalance == 1.3);
	CHECK(s.training.moe_shared_expert_overlap && s.training.moe_grouped_gemm);
	CHECK(s.parallel.ep == 4 && pp_parallel_etp(&s.parallel) == 2 && (s.given & PP_GIVEN_EP));
	CHECK(pp_parallel_edp(&s.parallel) == 1); /* 8 GPUs / (ETP 2 x EP 4) */
	pp_scenario_release(&s);

	/* multi-latent attention: Megatron-Core's MLATransformerConfig dims */
	CHECK(parse("{\"model\": {\"num_layers\": 4, \"hidden_size\": 1024, \"num_attention_heads\": "
		    "8, \"vocab_size\": 32000, \"seq_length\": 2048, \"multi_latent_attention\": true}, "
		    CL8 "}", &s, &err) == 0);
	CHECK(s.model.q_lora_rank == 512 && s.model.kv_lora_rank == 512);
	CHECK(s.model.qk_head_dim == 128 && s.model.qk_pos_emb_head_dim == 64);
	CHECK(s.model.v_head_dim == 128 && s.model.num_query_groups == 8);
	pp_scenario_release(&s);
	/* q_lora_rank 0: no query compression; a capacity factor of null:
	 * dropless (Megatron's None) */
	CHECK(parse("{\"model\": {" TINY ", \"multi_latent_attention\": true, \"q_lora_rank\": 0, "
		    "\"num_experts\": 4}, \"training\": {\"moe_expert_capacity_factor\": null}, " CL8
		    "}", &s, &err) == 0);
	CHECK(s.model.q_lora_rank == 0 && s.training.moe_expert_capacity_factor == 0);
	pp_scenario_release(&s);
	/* a preset's experts, overridden; dense FFN not divisible by TP is fine
	 * when no layer is dense */
	CHECK(parse("{\"model\": {\"preset\": \"qwen3-30b-a3b\", \"moe_router_topk\": 4, "
		    "\"ffn_hidden_size\": 6145}, \"parallel\": {\"tensor_model_parallel_size\": 2, "
		    "\"sequence_parallel\": true, \"expert_model_parallel_size\": 4}, " CL8 "}", &s,
		    &err) == 0);
	CHECK(s.model.moe_router_topk == 4 && s.model.num_experts == 128);
	pp_scenario_release(&s);
	/* search's unchecked load accepts the keys and marks EP as given */
	const char *j = "{\"model\": {\"preset\": \"mixtral-8x7b\"}, \"parallel\": "
			"{\"expert_model_parallel_size\": 8}, " CL8 "}";
	CHECK(pp_scenario_parse_unchecked(&s, "x.json", j, strlen(j), tu_catalog(), &err) == 0);
	CHECK((s.given & PP_GIVEN_EP) && s.parallel.ep == 8);
	pp_scenario_release(&s);
}

static void scenario_errors(void)
{
	struct {
		const char *json, *want;
	} bad[] = {
		{"{\"model\": {" TINY ", \"num_experts\": 6}, \"parallel\": "
		 "{\"expert_model_parallel_size\": 4}, " CL8 "}", "parallel.expert_model_parallel_size"},
		{"{\"model\": {" TINY ", \"num_experts\": 8}, \"parallel\": "
		 "{\"expert_model_parallel_size\": 8, \"expert_tensor_parallel_size\": 2}, " CL8 "}",
		 "parallel.expert_tensor_parallel_size"},
		{"{\"model\": {" TINY ", \"num_experts\": 8, \"moe_ffn_hidden_size\": 100}, "
		 "\"parallel\": {\"expert_tensor_parallel_size\": 8}, " CL8 "}",
		 "parallel.expert_tensor_parallel_size"},
		{"{\"model\": {" TINY ", \"num_experts\": 8}, \"parallel\": "
		 "{\"tensor_model_parallel_size\": 2}, " CL8 "}", "parallel.sequence_parallel"},
		{"{\"model\": {" TINY "}, \"parallel\": {\"expert_model_parallel_size\": 2}, " CL8 "}",
		 "parallel.expert_model_parallel_size"},
		{"{\"model\": {" TINY "}, \"parallel\": {\"expert_tensor_parallel_size\": 1}, " CL8 "}",
		 "parallel.expert_tensor_parallel_size"},
		{"{\"model\": {" TINY ", \"num_experts\": 8}, \"parallel\": {\"zero_stage\": 3}, " CL8
		 "}", "ZeRO-1"},
		{"{\"model\": {" TINY ", \"num_experts\": 8, \"moe_shared_expert_intermediate_size\": "
		 "1004}, \"parallel\": {\"tensor_model_parallel_size\": 8, \"sequence_parallel\": "
		 "true}, " CL8 "}", "parallel.tensor_model_parallel_size"},
		{"{\"model\": {" TINY ", \"num_experts\": 8, \"moe_router_topk\": 9}, " CL8 "}",
		 "model.moe_router_topk"},
		{"{\"model\": {" TINY ", \"num_experts\": 8, \"moe_layer_freq\": [1, 1, 1]}, " CL8 "}",
		 "model.moe_layer_freq"},
		{"{\"model\": {" TINY ", \"num_experts\": 8, \"moe_layer_freq\": [1, 2, 1, 1]}, " CL8 "}",
		 "model.moe_layer_freq[1]"},
		{"{\"model\": {" TINY ", \"num_experts\": 8, \"moe_layer_freq\": \"([0]+[1]*3)\"}, " CL8
		 "}", "model.moe_layer_freq"},
		{"{\"model\": {" TINY ", \"moe_router_topk\": 2}, " CL8 "}", "model.moe_router_topk"},
		{"{\"model\": {" TINY ", \"kv_lora_rank\": 128}, " CL8 "}", "model.kv_lora_rank"},
		{"{\"model\": {" TINY ", \"multi_latent_attention\": true, \"head_dim\": 64}, " CL8 "}",
		 "model.head_dim"},
		{"{\"model\": {" TINY ", \"multi_latent_attention\": true, \"num_query_groups\": 2}, " CL8
		 "}", "model.num_query_groups"},
		{"{\"model\": {" TINY ", \"head_dim\": 64, \"kv_channels\": 64}, " CL8 "}",
		 "model.kv_channels"},
		{"{\"model\": {" TINY ", \"window_layer_freq\": 2}, " CL8 "}", "model.window_layer_freq"},
		{"{\"model\": {" TINY "}, \"training\": {\"moe_grouped_gemm\": true}, " CL8 "}",
		 "training.moe_grouped_gemm"},
		{"{\"model\": {" TINY ", \"num_experts\": 8}, \"training\": "
		 "{\"moe_token_dispatcher_type\": \"flex\"}, " CL8 "}", "DeepEP"},
		{"{\"model\": {" TINY ", \"num_experts\": 8}, \"training\": "
		 "{\"moe_token_dispatcher_type\": \"alltoall_seq\"}, " CL8 "}",
		 "training.moe_token_dispatcher_type"},
		{"{\"model\": {" TINY ", \"num_experts\": 8}, \"training\": "
		 "{\"moe_expert_capacity_factor\": 0}, " CL8 "}", "training.moe_expert_capacity_factor"},
		{"{\"model\": {" TINY ", \"num_experts\": 8}, \"training\": "
		 "{\"moe_load_imbalance\": 0.9}, " CL8 "}", "training.moe_load_imbalance"},
		{"{\"model\": {" TINY ", \"num_experts\": 8, \"moe_shared_expert_intermediate_size\": "
		 "1024}, \"training\": {\"moe_shared_expert_overlap\": true}, " CL8 "}", "alltoall"},
		{"{\"model\": {" TINY ", \"num_experts\": 8}, \"training\": "
		 "{\"moe_token_dispatcher_type\": \"alltoall\", \"moe_shared_expert_overlap\": true}, "
		 CL8 "}", "training.moe_shared_expert_overlap"},
		{"{\"model\": {" TINY ", \"mtp_num_layers\": -1}, " CL8 "}", "model.mtp_num_layers"},
		/* pipeline_model_parallel_layout (Megatron-Core's rules) */
		{"{\"model\": {" TINY "}, \"parallel\": {\"pipeline_model_parallel_size\": 2, "
		 "\"pipeline_model_parallel_layout\": \"Ett|ttL|\"}, " CL8 "}", "L last"},
		{"{\"model\": {" TINY "}, \"parallel\": {\"pipeline_model_parallel_size\": 2, "
		 "\"pipeline_model_parallel_layout\": \"Ett|tx|tL\"}, " CL8 "}", "found 'x'"},
		{"{\"model\": {" TINY "}, \"parallel\": {\"pipeline_model_parallel_size\": 2, "
		 "\"pipeline_model_parallel_layout\": \"Et|t|tL\"}, " CL8 "}",
		 "must be divisible by pipeline_model_parallel_size"},
		{"{\"model\": {" TINY "}, \"parallel\": {\"pipeline_model_parallel_size\": 2, "
		 "\"pipeline_model_parallel_layout\": \"Et|ttL\"}, " CL8 "}", "must match num_layers"},
		{"{\"model\": {" TINY "}, \"parallel\": {\"pipeline_model_parallel_size\": 2, "
		 "\"pipeline_model_parallel_layout\": \"Ett|ttmL\"}, " CL8 "}",
		 "must match mtp_num_layers"},
		{"{\"model\": {" TINY ", \"mtp_num_layers\": 1}, \"parallel\": "
		 "{\"pipeline_model_parallel_size\": 2, \"pipeline_model_parallel_layout\": "
		 "\"Etmt|ttL\"}, " CL8 "}", "MTP depth before a decoder layer"},
		{"{\"model\": {" TINY "}, \"parallel\": {\"pipeline_model_parallel_size\": 2, "
		 "\"virtual_pipeline_model_parallel_size\": 2, \"pipeline_model_parallel_layout\": "
		 "\"Ett|ttL\"}, " CL8 "}", "expected them to agree"},
		{"{\"model\": {" TINY "}, \"parallel\": {\"pipeline_model_parallel_size\": 2, "
		 "\"decoder_first_pipeline_num_layers\": 2, \"pipeline_model_parallel_layout\": "
		 "\"Ett|ttL\"}, " CL8 "}", "one of the two ways"},
		/* --overlap-moe-expert-parallel-comm: Megatron-Core's checks */
		{"{\"model\": {" TINY "}, \"training\": {\"overlap_moe_expert_parallel_comm\": true}, "
		 CL8 "}", "training.overlap_moe_expert_parallel_comm"},
		{"{\"model\": {" TINY ", \"num_experts\": 8}, \"training\": "
		 "{\"moe_token_dispatcher_type\": \"alltoall\", \"delay_wgrad_compute\": true}, "
		 CL8 "}", "training.delay_wgrad_compute"},
		{"{\"model\": {" TINY ", \"num_experts\": 8}, \"training\": "
		 "{\"overlap_moe_expert_parallel_comm\": true}, \"parallel\": "
		 "{\"expert_model_parallel_size\": 8}, " CL8 "}", "alltoall/flex token dispatcher"},
		{"{\"model\": {" TINY ", \"num_experts\": 8}, \"training\": "
		 "{\"moe_token_dispatcher_type\": \"alltoall\", \"overlap_moe_expert_parallel_comm\": "
		 "true}, " CL8 "}", "only supported with expert model parallelism"},
		{"{\"model\": {" TINY ", \"num_experts\": 8}, \"training\": "
		 "{\"moe_token_dispatcher_type\": \"alltoall\", \"overlap_moe_expert_parallel_comm\": "
		 "true}, \"parallel\": {\"expert_model_parallel_size\": 4, "
		 "\"pipeline_model_parallel_size\": 2}, " CL8 "}",
		 "virtual_pipeline_model_parallel_size must be specified"},
		{"{\"model\": {" TINY ", \"num_experts\": 8}, \"training\": "
		 "{\"moe_token_dispatcher_type\": \"alltoall\", \"overlap_moe_expert_parallel_comm\": "
		 "true, \"recompute\": \"full\"}, \"parallel\": {\"expert_model_parallel_size\": 8}, "
		 CL8 "}", "disable full recomputation"},
	};
	for (size_t i = 0; i < PP_ARRAY_LEN(bad); i++) {
		pp_scenario s;
		pp_err err;
		int rc = parse(bad[i].json, &s, &err);
		if (rc != PP_EINPUT)
			pp_t_diag("case %zu: rc %d, expected an input error naming %s", i, rc, bad[i].want);
		CHECK(rc == PP_EINPUT);
		CHECK_CONTAINS(err.msg, bad[i].want);
		CHECK_CONTAINS(err.msg, "tests/data/x.json:");
		pp_scenario_release(&s);
	}
}

/* Megatron-Core's layout string unrolled ("(...)*n", "x*n", commas): the
 * decoder layers of each virtual stage, chunk-major, the chunks per stage
 * from the count; DeepSeek-V3's "Et|(tt|)*30mL" on PP 8: 32 virtual stages
 * of 1, 2 x 30 and 0 layers (the last holds the MTP depth and the loss). */
static void layouts(void)
{
	pp_scenario s;
	pp_err err;
	int rc = parse("{\"model\": {" TINY "}, \"training\": {\"global_batch_size\": 8}, "
		       "\"parallel\": {\"pipeline_model_parallel_size\": 2, "
		       "\"pipeline_model_parallel_layout\": \"Et|t,t|t*1|L\"}, " CL8 "}", &s, &err);
	if (rc)
		pp_t_diag("%s", err.msg);
	CHECK(rc == 0);
	if (rc)
		return;
	CHECK(s.parallel.layout_len == 4 && s.parallel.vpp == 2);
	CHECK(s.parallel.schedule == PP_SCHED_INTERLEAVED);
	CHECK(pp_stage_layers(&s, 0) == 1 && pp_stage_layers(&s, 1) == 2 &&
	      pp_stage_layers(&s, 2) == 1 && pp_stage_layers(&s, 3) == 0);
	pp_scenario_release(&s);
	rc = parse("{\"model\": {\"preset\": \"deepseek-v3\", \"mtp_num_layers\": 1}, "
		   "\"training\": {\"global_batch_size\": 8192}, "
		   "\"parallel\": {\"tensor_model_parallel_size\": 2, \"sequence_parallel\": true, "
		   "\"pipeline_model_parallel_size\": 8, \"expert_model_parallel_size\": 64, "
		   "\"pipeline_model_parallel_layout\": \"Et|(tt|)*30mL\"}, \"cluster\": "
		   "{\"gpu\": \"h100-sxm\", \"num_gpus\": 1024}}", &s, &err);
	if (rc)
		pp_t_diag("%s", err.msg);
	CHECK(rc == 0);
	if (rc)
		return;
	CHECK(s.parallel.layout_len == 32 && s.parallel.vpp == 4 && s.parallel.layout_mtp == 1);
	int sum = 0;
	for (int v = 0; v < 32; v++)
		sum += pp_stage_layers(&s, v);
	CHECK(sum == 61 && pp_stage_layers(&s, 0) == 1 && pp_stage_layers(&s, 17) == 2 &&
	      pp_stage_layers(&s, 31) == 0);
	pp_scenario_release(&s);
	/* a repeat inside a group, as Megatron substitutes the groups and then
	 * the characters: Llama 3.1 405B's embedding and loss counted as a
	 * layer each, (126 + 2) / 16 = 8 a virtual stage on PP 8 x VPP 2 */
	rc = parse("{\"model\": {\"preset\": \"llama3-405b\"}, \"training\": {\"global_batch_size\": 64}, "
		   "\"parallel\": {\"tensor_model_parallel_size\": 8, \"pipeline_model_parallel_size\": 8, "
		   "\"pipeline_model_parallel_layout\": \"Et*7|(t*8|)*14t*7L\"}, \"cluster\": "
		   "{\"gpu\": \"h100-sxm\", \"num_gpus\": 64}}", &s, &err);
	if (rc)
		pp_t_diag("%s", err.msg);
	CHECK(rc == 0);
	if (rc)
		return;
	CHECK(s.parallel.layout_len == 16 && s.parallel.vpp == 2);
	CHECK(pp_stage_layers(&s, 0) == 7 && pp_stage_layers(&s, 1) == 8 &&
	      pp_stage_layers(&s, 14) == 8 && pp_stage_layers(&s, 15) == 7);
	pp_scenario_release(&s);
}

/* ---- SKUs ---- */

static void skus(void)
{
	const pp_catalog *cat = tu_catalog();
	const pp_gpu *h8 = pp_catalog_gpu(cat, "h800"), *h1 = pp_catalog_gpu(cat, "h100-sxm");
	const pp_gpu *gb = pp_catalog_gpu(cat, "gb200");
	CHECK(h8 && h1 && gb);
	if (!h8 || !h1 || !gb)
		return;
	/* H800: H100's compute, NVLink 400 GB/s both ways (DeepSeek ISCA'25) */
	CHECK(h8->peak_flops[PP_DT_BF16] == h1->peak_flops[PP_DT_BF16]);
	CHECK(h8->peak_flops[PP_DT_FP8] == h1->peak_flops[PP_DT_FP8]);
	CHECK_NEAR(h8->nvlink_Bps * 2, 400e9, 1e-9);
	/* GB200 (NVIDIA's NVL72 table, sparse / 2): BF16 2.5 PF, FP8 5 PF dense,
	 * 186 GB at 8 TB/s, NVLink 1.8 TB/s per GPU, 72 GPUs in one domain */
	CHECK_NEAR(gb->peak_flops[PP_DT_BF16], 2.5e15, 1e-9);
	CHECK_NEAR(gb->peak_flops[PP_DT_FP8], 5e15, 1e-9);
	CHECK_NEAR(gb->nvlink_Bps * 2, 1.8e12, 1e-9);
	CHECK_NEAR(gb->mem_Bps, 8e12, 1e-9);
	CHECK(gb->gpus_per_node == 4 && gb->nvlink_domain_size == 72);

	/* the resolved NVLink busbw against what DeepSeek measures on H800:
	 * "NVLink 160 GB/s" (V3 report), DeepEP's "~160 GB/s maximum" */
	pp_scenario s;
	pp_hw hw;
	CHECK(tu_scenario("{\"model\": {\"preset\": \"deepseek-v3\"}, \"parallel\": "
			  "{\"pipeline_model_parallel_size\": 8, \"expert_model_parallel_size\": 8}, "
			  "\"cluster\": {\"gpu\": \"h800\", \"num_gpus\": 64}}", &s, &hw) == 0);
	CHECK_NEAR(hw.intra_Bps, 160e9, 0.02);
	CHECK(hw.intra_ncurve == 0); /* not the H100 all_reduce curve */
	pp_scenario_release(&s);
	/* GB200: trays of 4 GPUs (the node's NICs), 72-GPU NVLink domains */
	CHECK(tu_scenario("{\"model\": {\"preset\": \"qwen3-235b-a22b\"}, \"parallel\": "
			  "{\"pipeline_model_parallel_size\": 2, \"expert_model_parallel_size\": 4}, "
			  "\"cluster\": {\"gpu\": \"gb200\", \"num_gpus\": 144}}", &s, &hw) == 0);
	CHECK(pp_cluster_nodes(&s.cluster) == 36 && pp_cluster_domains(&s.cluster) == 2 &&
	      hw.gpus_per_node == 4);
	pp_scenario_release(&s);
}

int main(void)
{
	RUN(preset_params_within_2pc);
	RUN(hf_families);
	RUN(hf_params_without_preset);
	RUN(hf_layer_rules);
	RUN(hf_refusals);
	RUN(scenario_defaults);
	RUN(scenario_errors);
	RUN(layouts);
	RUN(skus);
	return pp_t_done("test_moe_input");
}
