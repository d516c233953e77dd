/*
 * test_model.c - a model's architecture (input/model.h): which layers are
 * mixture-of-experts or windowed, the head size, the architecture keys a
 * preset and a scenario share (read from JSON text here, with Megatron-
 * Core's defaults where a key turns a feature on) and the checks of a
 * model as a whole. Expected values come from the rules model.h cites
 * (Megatron-LM's moe_layer_freq forms, MLATransformerConfig's dims), not
 * from the program's output.
 */
#include "core/jdoc.h"
#include "harness.h"
#include "input/model.h"

#include <string.h>

static pp_model dense(void)
{
	pp_model m = {0};
	m.num_layers = 8;
	m.hidden_size = 1024;
	m.num_attention_heads = 16;
	m.num_query_groups = 4;
	m.ffn_hidden_size = 4096;
	m.seq_length = 2048;
	m.vocab_size = 32000;
	return m;
}

/* Read json's architecture keys over *m; returns the code, the message in
 * err. */
static int read_arch(const char *json, pp_model *m, pp_err *err)
{
	pp_jdoc d;
	memset(err, 0, sizeof(*err));
	int rc = pp_jdoc_parse(&d, "model.json", json, strlen(json), err);
	if (rc)
		return rc;
	rc = pp_model_read_arch(&d, d.root, "model", m, err);
	pp_jdoc_release(&d);
	return rc;
}

static void layer_kinds(void)
{
	pp_model m = dense();
	for (int i = 0; i < m.num_layers; i++)
		CHECK(!pp_model_layer_moe(&m, i) && pp_model_layer_kind(&m, i) == 0);
	m.num_experts = 8;
	m.moe_layer_freq = 2; /* layers 0, 2, 4, 6 */
	int moe = 0;
	for (int i = 0; i < m.num_layers; i++)
		moe += pp_model_layer_moe(&m, i);
	CHECK(moe == 4 && pp_model_layer_moe(&m, 0) && !pp_model_layer_moe(&m, 1));
	/* the list form wins over the int form */
	static const uint8_t list[8] = {0, 0, 1, 1, 1, 1, 1, 0};
	memcpy(m.moe_list, list, sizeof(list));
	m.moe_list_len = 8;
	CHECK(!pp_model_layer_moe(&m, 0) && pp_model_layer_moe(&m, 2) && !pp_model_layer_moe(&m, 7));
	/* a window on every third layer (0, 3, 6) */
	m.window = 128;
	m.window_freq = 3;
	CHECK(pp_model_layer_kind(&m, 0) == PP_LK_WINDOW);
	CHECK(pp_model_layer_kind(&m, 3) == (PP_LK_MOE | PP_LK_WINDOW));
	CHECK(pp_model_layer_kind(&m, 4) == PP_LK_MOE);
	CHECK(pp_model_layer_kind(&m, 7) == 0);
}

static void head_size(void)
{
	pp_model m = dense();
	CHECK(pp_model_head_dim(&m) == 64); /* 1024 / 16 */
	m.head_dim = 128;
	CHECK(pp_model_head_dim(&m) == 128);
}

static void arch_defaults(void)
{
	pp_err err;
	pp_model m = dense();
	CHECK(read_arch("{\"num_experts\": 16}", &m, &err) == 0);
	/* Megatron-Core: top-2, the dense FFN size, every layer MoE */
	CHECK(m.num_experts == 16 && m.moe_router_topk == 2);
	CHECK(m.moe_ffn_hidden_size == 4096 && m.moe_layer_freq == 1);
	CHECK(read_arch("{\"num_experts\": 0}", &m, &err) == 0);
	CHECK(m.num_experts == 0 && m.moe_router_topk == 0 && m.moe_layer_freq == 0);
	m = dense();
	CHECK(read_arch("{\"multi_latent_attention\": true, \"q_lora_rank\": 0}", &m, &err) == 0);
	/* MLATransformerConfig's dims, the query left uncompressed */
	CHECK(m.multi_latent_attention && m.q_lora_rank == 0 && m.kv_lora_rank == 512);
	CHECK(m.qk_head_dim == 128 && m.qk_pos_emb_head_dim == 64 && m.v_head_dim == 128);
	m = dense();
	CHECK(read_arch("{\"kv_channels\": 96, \"window_size\": 4096}", &m, &err) == 0);
	CHECK(m.head_dim == 96 && m.window == 4096 && m.window_freq == 1);
	m = dense();
	CHECK(read_arch("{\"num_experts\": 4, \"moe_layer_freq\": [1, 0, 1, 0, 1, 0, 1, 0]}", &m,
			&err) == 0);
	CHECK(m.moe_list_len == 8 && m.moe_layer_freq == 0 && m.moe_list[2] == 1 && m.moe_list[3] == 0);
}

static void arch_errors(void)
{
	static const struct {
		const char *json, *path;
	} bad[] = {
		{"{\"head_dim\": 64, \"kv_channels\": 64}", "model.kv_channels"},
		{"{\"q_lora_rank\": 64}", "model.q_lora_rank"},
		{"{\"multi_latent_attention\": true, \"head_dim\": 64}", "model.head_dim"},
		{"{\"window_layer_freq\": 2}", "model.window_layer_freq"},
		{"{\"moe_router_topk\": 2}", "model.moe_router_topk"},
		{"{\"num_experts\": 4, \"moe_layer_freq\": [1, 2]}", "model.moe_layer_freq[1]"},
		{"{\"num_experts\": 4, \"moe_layer_freq\": \"every\"}", "model.moe_layer_freq"},
		{"{\"head_dim\": 10000001}", "model.head_dim"}, /* PP_MODEL_DIM_MAX */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pp_model m = dense();
		pp_err err;
		int rc = read_arch(bad[i].json, &m, &err);
		CHECK(rc == PP_EINPUT);
		CHECK_CONTAINS(err.msg, bad[i].path);
		CHECK_CONTAINS(err.msg, "model.json:1:");
	}
}

static void whole_model_checks(void)
{
	const char *key = NULL;
	char why[256];
	pp_model m = dense();
	CHECK(pp_model_check(&m, &key, why, sizeof(why)) == 0);
	m.num_attention_heads = 24; /* 1024 % 24 */
	CHECK(pp_model_check(&m, &key, why, sizeof(why)) == PP_EINPUT);
	CHECK(!strcmp(key, "num_attention_heads"));
	m.head_dim = 64; /* a given head size lifts it; 24 % 4 groups */
	CHECK(pp_model_check(&m, &key, why, sizeof(why)) == 0);
	m.num_query_groups = 5;
	CHECK(pp_model_check(&m, &key, why, sizeof(why)) == PP_EINPUT);
	CHECK(!strcmp(key, "num_query_groups"));
	m = dense();
	m.num_experts = 4;
	m.moe_router_topk = 8;
	CHECK(pp_model_check(&m, &key, why, sizeof(why)) == PP_EINPUT);
	CHECK(!strcmp(key, "moe_router_topk"));
	m.moe_router_topk = 2;
	m.moe_list_len = 6; /* 8 layers */
	CHECK(pp_model_check(&m, &key, why, sizeof(why)) == PP_EINPUT);
	CHECK(!strcmp(key, "moe_layer_freq"));
	m = dense();
	m.multi_latent_attention = true; /* with 4 groups for 16 heads */
	m.kv_lora_rank = m.qk_head_dim = m.qk_pos_emb_head_dim = m.v_head_dim = 64;
	CHECK(pp_model_check(&m, &key, why, sizeof(why)) == PP_EINPUT);
	CHECK(!strcmp(key, "num_query_groups"));
	m.num_query_groups = 16;
	CHECK(pp_model_check(&m, &key, why, sizeof(why)) == 0);
}

int main(void)
{
	RUN(layer_kinds);
	RUN(head_size);
	RUN(arch_defaults);
	RUN(arch_errors);
	RUN(whole_model_checks);
	return pp_t_done("test_model");
}
