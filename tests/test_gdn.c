/*
 * test_gdn.c - Gated DeltaNet linear attention (Qwen3-Next): the
 * parameters of the published config.json (tests/data/hf) against the hand
 * count of the checkpoint's weight shapes, the layer rule, and the FLOPs of
 * one linear-attention layer's ops against a hand computation of the
 * chunked delta rule (flash-linear-attention's kernels, chunks of 64).
 */
#include "engine/memory.h"
#include "engine/workload.h"
#include "harness.h"
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#define QNEXT "tests/data/hf/qwen3-next-80b-a3b-instruct-config.json"

static int load(int tp, pp_scenario *s, pp_hw *hw)
{
	char j[1024];
	snprintf(j, sizeof(j), "{\"model\": {\"hf_config\": \"%s\", \"seq_length\": 4096}, "
		 "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 64}, \"parallel\": "
		 "{\"tensor_model_parallel_size\": %d, \"expert_model_parallel_size\": %d, "
		 "\"pipeline_model_parallel_size\": 2, \"sequence_parallel\": %s}, "
		 "\"training\": {\"micro_batch_size\": 1, \"global_batch_size\": 256}}", QNEXT, tp, 32 / tp, tp > 1 ? "true" : "false");
	return tu_scenario(j, s, hw);
}

/* The checkpoint's tensors (Qwen/Qwen3-Next-80B-A3B-Instruct, listed with
 * its config in the report named in tests/data/hf/README.md), per layer:
 *   linear_attn (36 layers): in_proj_qkvz [12288, 2048], in_proj_ba
 *     [64, 2048], conv1d [8192, 1, 4], A_log [32], dt_bias [32], norm
 *     [128], out_proj [2048, 4096];
 *   self_attn (12 layers): q_proj [8192, 2048] (query and gate), k_proj and
 *     v_proj [512, 2048], o_proj [2048, 4096], q_norm and k_norm [256];
 *   mlp (48 layers): 512 experts of gate, up [512, 2048] and down
 *     [2048, 512], gate (router) [512, 2048], shared_expert of the same
 *     three shapes, shared_expert_gate [1, 2048];
 *   input_layernorm, post_attention_layernorm [2048];
 * embed_tokens and lm_head [151936, 2048], norm [2048]; the mtp.* tensors
 * (1,650,471,424: the config has no key for them) left out. podplan leaves
 * out q_norm, k_norm and shared_expert_gate (elementwise or a 2048-wide
 * gate: 6,144 + 98,304 parameters). */
static void params_from_weight_shapes(void)
{
	pp_scenario s;
	pp_hw hw;
	if (load(1, &s, &hw)) {
		CHECK(!"Qwen3-Next config loads");
		return;
	}
	const pp_model *m = &s.model;
	double gdn = 12288.0 * 2048 + 64.0 * 2048 + 8192.0 * 4 + 32 + 32 + 128 + 2048.0 * 4096;
	double att = 8192.0 * 2048 + 2 * 512.0 * 2048 + 2048.0 * 4096 + 2 * 256;
	double expert = 3 * 512.0 * 2048;
	double moe = 512 * expert + 512.0 * 2048 + expert + 2048;
	double norms = 2 * 2048.0;
	double emb = 2 * 151936.0 * 2048 + 2048;
	double shapes = 36 * (gdn + moe + norms) + 12 * (att + moe + norms) + emb;
	double omitted = 12 * 2 * 256.0 + 48 * 2048.0;
	double active = shapes - 48 * (512 - 10) * expert;
	pp_t_diag("weight shapes: %.0f total, %.0f active; podplan %.0f, %.0f (card: 80B, 3B)",
		  shapes, active, pp_model_params(m), pp_model_params_active(m));
	CHECK(shapes == 79674391296.0);
	CHECK(pp_gdn_params(m) == gdn); /* every tensor of the mixer counted */
	CHECK(pp_model_params(m) == shapes - omitted);
	CHECK(pp_model_params_active(m) == active - omitted);
	CHECK_NEAR(pp_model_params(m), 80e9, 0.02); /* the card's total */
	/* the layer rule: full attention on layers 3, 7, ..., 47 */
	int lin = 0;
	for (int i = 0; i < m->num_layers; i++) {
		bool full = (i % 4) == 3;
		CHECK(pp_model_layer_linear(m, i) == !full);
		CHECK(pp_model_layer_kind(m, i) == (PP_LK_MOE | (full ? 0 : PP_LK_LINEAR)));
		lin += !full;
	}
	CHECK(lin == 36 && m->attn_output_gate && m->gdn_v_heads == 32 && m->gdn_k_heads == 16);
	pp_scenario_release(&s);
}

/* The op named `name` of the linear MoE kind in phase ph; NULL if none. */
static const pp_op *find(const pp_workload *w, const char *name, pp_phase ph)
{
	for (int i = 0; i < w->nops; i++) {
		const pp_op *o = &w->ops[i];
		if (o->part == PP_PART_LAYER && o->layer_kind == (PP_LK_MOE | PP_LK_LINEAR) &&
		    o->phase == ph && !strcmp(o->name, name))
			return o;
	}
	return NULL;
}

/* One linear-attention layer of a 4096-token micro-batch, by hand. Per
 * value head (32, dk = dv = 128) and chunk of C = 64 tokens, multiply-adds:
 *   forward: K K^T 64*64*128; the triangular inverse 64^3/6; w and u
 *     64*64*128 each; the state pass 2*64*128*128; the output
 *     64*128*128 + 64*64*128 + 64*64*128;
 *   backward: recompute 2*64*128*128 + 2*64*64*128; dv local 2*64*64*128;
 *     states 3*64*128*128; dq dk dw 3*64*128*128 + 3*64*64*128; WY form
 *     6*64*64*128 + 2*64^3.
 * The projections: 2 x 4096 x (12288 + 64) x 2048 and 2 x 4096 x 2048 x
 * 4096; the conv: 2 x 4 taps x 4096 x 8192 channels. */
static void flops_of_one_layer(void)
{
	const double C = 64, dk = 128, T = 4096, heads = 32, chunks = T / C;
	double fwd_mac = C * C * dk + C * C * C / 6 + 2 * C * C * dk + 2 * C * dk * dk +
			 (C * dk * dk + 2 * C * C * dk);
	double bwd_mac = (2 * C * dk * dk + 2 * C * C * dk) + 2 * C * C * dk + 3 * C * dk * dk +
			 (3 * C * dk * dk + 3 * C * C * dk) + (6 * C * C * dk + 2 * C * C * C);
	double core_f = 2 * fwd_mac * chunks * heads, core_b = 2 * bwd_mac * chunks * heads;
	for (int tp = 1; tp <= 2; tp++) {
		pp_scenario s;
		pp_hw hw;
		if (load(tp, &s, &hw)) {
			CHECK(!"Qwen3-Next config loads");
			return;
		}
		pp_workload w;
		pp_workload_build(&w, &s, &hw);
		const pp_op *cf = find(&w, "chunk_gated_delta_rule", PP_PH_FWD);
		const pp_op *cb = find(&w, "chunk_gated_delta_rule.bwd", PP_PH_BWD);
		const pp_op *qkvz = find(&w, "in_proj_qkvz", PP_PH_FWD);
		const pp_op *ba = find(&w, "in_proj_ba", PP_PH_FWD);
		const pp_op *out = find(&w, "out_proj", PP_PH_FWD);
		const pp_op *conv = find(&w, "conv1d", PP_PH_FWD);
		CHECK(cf && cb && qkvz && ba && out && conv);
		if (cf && cb && qkvz && ba && out && conv) {
			pp_t_diag("TP %d: chunk rule %.4g fwd (hand %.4g), %.4g bwd (hand %.4g)", tp,
				  cf->flops, core_f / tp, cb->flops, core_b / tp);
			CHECK_NEAR(cf->flops, core_f / tp, 1e-12);
			CHECK_NEAR(cb->flops, core_b / tp, 1e-12);
			CHECK_NEAR(qkvz->flops, 2 * T * 12288 * 2048 / tp, 1e-12);
			CHECK_NEAR(ba->flops, 2 * T * 64 * 2048 / tp, 1e-12);
			CHECK_NEAR(out->flops, 2 * T * 2048 * 4096 / tp, 1e-12);
			CHECK_NEAR(conv->flops, 2 * 4 * T * 8192 / tp, 1e-12);
		}
		/* no softmax attention in a linear layer, and no linear core in
		 * a full-attention one */
		bool flash_in_linear = false, gdn_in_full = false;
		for (int i = 0; i < w.nops; i++) {
			const pp_op *o = &w.ops[i];
			if (o->part != PP_PART_LAYER)
				continue;
			flash_in_linear |= (o->layer_kind & PP_LK_LINEAR) && !strncmp(o->name, "flash", 5);
			gdn_in_full |= !(o->layer_kind & PP_LK_LINEAR) && !strncmp(o->name, "chunk_", 6);
		}
		CHECK(!flash_in_linear && !gdn_in_full);
		/* the full-attention layer's q_proj writes the gate too: 4096
		 * query and 4096 gate columns beside 2 x 512 of K and V */
		bool gated = false;
		for (int i = 0; i < w.nops; i++) {
			const pp_op *o = &w.ops[i];
			gated |= o->part == PP_PART_LAYER && o->layer_kind == PP_LK_MOE &&
				 o->phase == PP_PH_FWD && !strcmp(o->name, "qkv") &&
				 o->n == (2 * 4096.0 + 1024) / tp;
		}
		CHECK(gated);
		pp_workload_release(&w);
		pp_scenario_release(&s);
	}
}

/* What one linear-attention layer keeps for its backward, against a
 * full-attention layer of the same model (both MoE; TP 1, no recompute,
 * flash attention), per token in bf16: the linear layer keeps q, k, v
 * before and after the conv (2 x 8192), the gate z, the core output and
 * out_proj's input (3 x 4096), beta and g in fp32 (2 x 32 x 4 bytes) and
 * the chunks' 64 x 64 inverse per value head (64 x 32); the full one Q
 * (16 heads x 256), K and V (2 groups x 256 each), the projection's input
 * (the core's output, 16 x 256), the output gate (16 x 256) and the fp32
 * log-sum-exp of 16 heads. */
static void activations_of_one_layer(void)
{
	pp_scenario s;
	pp_hw hw;
	if (load(1, &s, &hw)) {
		CHECK(!"Qwen3-Next config loads");
		return;
	}
	double T = 4096, e = 2;
	double lin = T * (e * (2 * 8192 + 3 * 4096 + 64 * 32) + 2 * 32 * 4);
	double full = T * (e * (16 * 256 + 2 * 2 * 256 + 16 * 256 + 16 * 256) + 4 * 16);
	double got = pp_layer_activation_bytes_kind(&s, PP_LK_MOE | PP_LK_LINEAR) -
		     pp_layer_activation_bytes_kind(&s, PP_LK_MOE);
	pp_t_diag("linear - full layer: %.0f bytes kept (hand %.0f)", got, lin - full);
	CHECK_NEAR(got, lin - full, 1e-12);
	pp_scenario_release(&s);
}

int main(void)
{
	RUN(params_from_weight_shapes);
	RUN(flops_of_one_layer);
	RUN(activations_of_one_layer);
	return pp_t_done("test_gdn");
}
