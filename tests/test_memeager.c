/*
 * test_memeager.c - the eager PyTorch step's memory (engine/memeager.h,
 * frameworks.json eager_memory) against values derived without the engine:
 *  - a hand count of what a Hugging Face Llama layer saves under
 *    torch.autocast over fp32 parameters (two fp32 norms, a bf16 cast of
 *    the norm output per q, k, v, gate and up, SDPA's q, k, v, output and
 *    log-sum-exp, the SwiGLU's four FFN-wide tensors) and over bf16
 *    parameters (FSDP2's param_dtype), the logits' chain at the loss's
 *    backward, the step's fp32 parameters and Adam states: the total by
 *    hand, phase by phase;
 *  - the same against the allocated peaks measured on the H200 (the
 *    campaign CSVs of models/calibrations: torch.cuda.max_memory_allocated
 *    of a TinyLlama-1.1B step at 8 x 2048 tokens, 61.82 GB; of a
 *    Llama-3.2-3B step at 8192 tokens with full recompute, whose peak is
 *    the optimizer step, 66.43 GB; of FSDP2 TinyLlama at 4 x 2048, 33.05 GB
 *    allocated and 38.18 GB reserved, the run of framework-kernels4-h200.csv
 *    with no DDP or FSDP2 row before it in the process) to 1% (3% for the
 *    reserved bytes, which hold the copy-in stream's pool and the
 *    fragmentation podplan does not count apart);
 *  - the second step's loss chain reserved anew (campaign 7's allocator
 *    trace): three blocks, or as many as the first step's states fill,
 *    less those DDP's freed first-iteration bucket hosts;
 *  - FSDP2's reduce-scatter stream keeps the gradients' bytes reserved at
 *    the loss's backward, and the copy-in stream two groups' buffers;
 *  - more tokens never need less memory, recompute never more;
 *  - only the pytorch framework has it, and only where its figures apply
 *    (no tensor parallelism, a fused attention kernel, a dense SwiGLU
 *    model, 16-bit training); a bad eager_memory entry is an error naming its JSON path.
 */
#include "engine/memeager.h"
#include "engine/memory.h"
#include "engine/workload.h"
#include "core/jdoc.h"
#include "core/util.h"
#include "input/framework.h"
#include "harness.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* TinyLlama-1.1B (models/validation/framework/hf/tinyllama-1.1b.json) */
#define TINY "\"model\": {\"num_layers\": 22, \"hidden_size\": 2048, \"num_attention_heads\": " \
	     "32, \"num_query_groups\": 4, \"ffn_hidden_size\": 5632, \"vocab_size\": 32000, "  \
	     "\"seq_length\": 2048, \"swiglu\": true, "                                          \
	     "\"untie_embeddings_and_output_weights\": true}, "
/* Llama-3.2-3B (hf/llama-3.2-3b.json: tied embeddings, head_dim 128) */
#define L3B "\"model\": {\"num_layers\": 28, \"hidden_size\": 3072, \"num_attention_heads\": " \
	    "24, \"num_query_groups\": 8, \"ffn_hidden_size\": 8192, \"vocab_size\": 128256, "  \
	    "\"seq_length\": 8192, \"swiglu\": true, \"untie_embeddings_and_output_weights\": false}, "
#define H200 "\"cluster\": {\"gpu\": \"h200\", \"num_gpus\": 1}"

typedef struct model {
	double L, h, a, g, f, V, dh;
	bool tied;
} model;

static const model tiny = {22, 2048, 32, 4, 5632, 32000, 64, false};
static const model l3b = {28, 3072, 24, 8, 8192, 128256, 128, true};

static double layer_params(const model *m)
{
	double qw = m->a * m->dh, kvw = m->g * m->dh;
	return 2 * m->h * qw + 2 * m->h * kvw + 3 * m->h * m->f + 2 * m->h;
}

static double model_params(const model *m)
{
	return m->L * layer_params(m) + m->V * m->h * (m->tied ? 1 : 2) + m->h;
}

/* What one layer saves per token (bytes), counted from modeling_llama.py:
 * autocast over fp32 parameters or bf16 parameters. */
static double layer_saved(const model *m, bool amp)
{
	double qw = m->a * m->dh, kvw = m->g * m->dh, h = m->h;
	double norms = amp ? 2 * (4 * h + 4 * h)          /* fp32 input, fp32 normed */
			   : 2 * (4 * h + 2 * h + 2 * h); /* fp32 copy, bf16 normed, bf16 output */
	double casts = amp ? 5 * 2 * h : 0;               /* q, k, v, gate, up each cast */
	double sdpa = 2 * qw + 2 * kvw + 2 * kvw + 2 * qw + 4 * m->a;
	return norms + casts + sdpa + 4 * 2 * m->f;
}

static int load(const char *json, pp_scenario *s, pp_hw *hw, pp_workload *w, pp_memory *mem)
{
	if (tu_scenario(json, s, hw))
		return -1;
	pp_workload_build(w, s, hw);
	pp_memory_estimate(s, hw, w, mem);
	return 0;
}

static void done(pp_scenario *s, pp_workload *w)
{
	pp_workload_release(w);
	pp_scenario_release(s);
}

/* The plain loop: TinyLlama at 8 x 2048 under autocast, no recompute. The
 * loss's backward is the peak: the layers' saved activations and weight
 * casts, the final norm and lm_head's casts, the chain at 14 bytes per
 * logit (hf-fp32's peak: bf16 logits, log-probabilities, two fp32
 * gradients). */
static void plain_by_hand(void)
{
	pp_scenario s;
	pp_hw hw;
	pp_workload w;
	pp_memory m;
	if (load("{" TINY "\"training\": {\"framework\": \"pytorch\", \"master_weights_fp32\": true, "
		 "\"global_batch_size\": 8, \"micro_batch_size\": 8}, " H200 "}", &s, &hw, &w, &m)) {
		CHECK(0);
		return;
	}
	CHECK(pp_memory_eager(&s, &w));
	const model *t = &tiny;
	double P = model_params(t), T = 8 * 2048.0, TV = T * t->V;
	double act = t->L * T * layer_saved(t, true) + 2 * t->L * layer_params(t) +
		     T * t->h * (8 + 2) + 2 * t->V * t->h;
	double temp = 14 * TV + hw.reserved_bytes;
	double frag = hw.act_margin * (act + temp);
	CHECK_NEAR(m.weights_bytes, 4 * P, 1e-9);
	CHECK_NEAR(m.optimizer_bytes, 8 * P, 1e-9);
	CHECK(m.grads_bytes == 0); /* zero_grad(set_to_none=True): none until the backward */
	CHECK(!strcmp(m.peak_phase, "the loss's backward"));
	CHECK_NEAR(m.activations_bytes, act, 1e-9);
	CHECK_NEAR(m.temp_bytes, temp, 1e-9);
	CHECK_NEAR(m.total_bytes, 12 * P + act + temp + frag, 1e-9);
	/* measured: max_memory_allocated 61,817,897,984 B (framework-train-raw3-h200.csv,
	 * fw-h200-plain-tinyllama-s2k-mb8-none) */
	CHECK_NEAR(m.total_bytes - m.fragmentation_bytes - hw.reserved_bytes, 61.82e9, 0.01);
	done(&s, &w);
}

/* Full recompute, Llama-3.2-3B at 8192 tokens: the kept layer inputs are
 * small, so the optimizer step is the peak of each step: fp32 parameters,
 * Adam's states, every fp32 gradient, foreach AdamW's state-sized temporary
 * and the bf16 logits the model output still holds. The reservation is the
 * first step's (its segments cut to its requests, no margin) plus the
 * chain's three fp32 blocks of 4 x tokens x vocabulary bytes, made anew from
 * the second step (the first step's states, 8P bytes, fill ceil(8P / block)
 * = 7 > 3 of them: all three). */
static void recompute_optimizer_peak(void)
{
	pp_scenario s;
	pp_hw hw;
	pp_workload w;
	pp_memory m;
	if (load("{" L3B "\"training\": {\"framework\": \"pytorch\", \"master_weights_fp32\": true, "
		 "\"global_batch_size\": 1, \"micro_batch_size\": 1, \"recompute\": \"full\"}, " H200
		 "}", &s, &hw, &w, &m)) {
		CHECK(0);
		return;
	}
	double P = model_params(&l3b), TV = 8192.0 * l3b.V;
	CHECK_NEAR(m.grads_bytes, 4 * P, 1e-9);
	CHECK_NEAR(m.optimizer_bytes, 8 * P, 1e-9);
	CHECK(m.activations_bytes == 0);
	CHECK(!strcmp(m.peak_phase, "the first step's, chain anew"));
	CHECK_NEAR(m.temp_bytes, 4 * P + 2 * TV + hw.reserved_bytes, 1e-9);
	CHECK_NEAR(m.fragmentation_bytes, 3 * 4 * TV, 1e-9);
	/* measured: 66,426,731,008 B allocated at the optimizer's peak
	 * (framework-kernels-h200.csv, fw-h200-plain-3b-s8k-mb1-full optimizer_peak) */
	CHECK_NEAR(m.total_bytes - m.fragmentation_bytes - hw.reserved_bytes, 66.43e9, 0.01);
	/* measured: 79,628,861,440 B reserved (framework-train-raw5-h200.csv), to
	 * the README's 1.2% */
	CHECK_NEAR(m.total_bytes, 79.63e9, 0.02);
	/* the loss's backward by hand, below it: the fp32 layer inputs, lm_head's
	 * cast, the chain's peak */
	double B = 12 * P + 28 * 8192.0 * 4 * l3b.h + 8192.0 * l3b.h * 10 + 2 * l3b.V * l3b.h +
		   14 * TV;
	CHECK(B < 20 * P + 2 * TV);
	done(&s, &w);
}

/* Fewer blocks anew than the chain's three: Llama-3.2-1B (tied, 16 layers)
 * at 8 x 2048 tokens with full recompute. Its states (8P = 9.9 GB) fill
 * ceil(8P / (4 x 16,384 x 128,256)) = 2 of the chain's 8.4 GB blocks; the
 * first step peaks at the loss's backward (no states yet). Campaign 7's
 * trace: two segments of 8,405,385,216 B made in the second step,
 * 56,805,556,224 B reserved (framework-train-raw5-h200.csv). */
static void fewer_blocks_anew(void)
{
	pp_scenario s;
	pp_hw hw;
	pp_workload w;
	pp_memory m;
	if (load("{\"model\": {\"num_layers\": 16, \"hidden_size\": 2048, "
		 "\"num_attention_heads\": 32, \"num_query_groups\": 8, \"ffn_hidden_size\": 8192, "
		 "\"vocab_size\": 128256, \"seq_length\": 2048, \"swiglu\": true, "
		 "\"untie_embeddings_and_output_weights\": false}, \"training\": {\"framework\": "
		 "\"pytorch\", \"master_weights_fp32\": true, \"global_batch_size\": 8, "
		 "\"micro_batch_size\": 8, \"recompute\": \"full\"}, " H200 "}", &s, &hw, &w, &m)) {
		CHECK(0);
		return;
	}
	const model l1b = {16, 2048, 32, 8, 8192, 128256, 64, true};
	double P = model_params(&l1b), block = 4 * 16384.0 * l1b.V;
	CHECK(8 * P > block && 8 * P < 2 * block);
	CHECK(!strcmp(m.peak_phase, "the first step's, chain anew"));
	CHECK(m.optimizer_bytes == 0);
	CHECK_NEAR(m.fragmentation_bytes, 2 * block, 1e-9);
	CHECK_NEAR(m.total_bytes, 56.81e9, 0.02);
	done(&s, &w);
}

/* DDP hands blocks back: its first iteration's one bucket of every fp32
 * gradient (4P bytes), freed when the second forward rebuilds the buckets,
 * hosts the bf16 logits (2 x tokens x vocabulary) and floor((4P - 2TV) /
 * 4TV) = 2 of the chain's three fp32 blocks (Llama-3.2-3B at 8192 tokens:
 * the second forward's saved layer inputs fit elsewhere under full
 * recompute), so one block is made anew (campaign 7c's trace: exactly
 * one). Measured: 84,074,823,680 B reserved (framework-train-raw6-h200.csv),
 * to the README's 1.1%. */
static void ddp_bucket_hosts(void)
{
	pp_scenario s;
	pp_hw hw;
	pp_workload w;
	pp_memory m;
	if (load("{" L3B "\"training\": {\"framework\": \"pytorch\", \"master_weights_fp32\": true, "
		 "\"ddp\": true, \"global_batch_size\": 1, \"micro_batch_size\": 1, "
		 "\"recompute\": \"full\"}, " H200 "}", &s, &hw, &w, &m)) {
		CHECK(0);
		return;
	}
	double P = model_params(&l3b), TV = 8192.0 * l3b.V;
	CHECK((int)((4 * P - 2 * TV) / (4 * TV)) == 2);
	CHECK(!strcmp(m.peak_phase, "the first step's, chain anew"));
	CHECK_NEAR(m.fragmentation_bytes, 4 * TV, 1e-9);
	CHECK_NEAR(m.total_bytes, 84.07e9, 0.02);
	done(&s, &w);
}

/* FSDP2 at world size 1 over bf16 parameters (MixedPrecisionPolicy
 * param_dtype): no autocast casts, bf16 norms; the root group's unsharded
 * parameters (every layer is resharded at the loss); the gradients reserved
 * in the reduce-scatter stream's pool and two groups' all-gather buffers
 * (cast shard and output) in the copy-in stream's. */
static void fsdp2_streams(void)
{
	pp_scenario s;
	pp_hw hw;
	pp_workload w;
	pp_memory m;
	if (load("{" TINY "\"training\": {\"framework\": \"pytorch\", \"master_weights_fp32\": true, "
		 "\"grad_reduce_in_fp32\": true, \"global_batch_size\": 4, \"micro_batch_size\": 4}, "
		 "\"parallel\": {\"zero_stage\": 3}, " H200 "}", &s, &hw, &w, &m)) {
		CHECK(0);
		return;
	}
	CHECK(pp_memory_eager(&s, &w) && !pp_autocast_fp32(&s));
	const model *t = &tiny;
	double P = model_params(t), T = 4 * 2048.0, TV = T * t->V, lp = layer_params(t);
	double root = 2 * t->V * t->h + t->h; /* embedding, final norm, untied output layer */
	double act = t->L * T * layer_saved(t, false) + T * t->h * 8;
	double temp = 14 * TV + 2 * root + (root + lp) * 2 * 2 + hw.reserved_bytes;
	double frag = hw.act_margin * (act + temp);
	CHECK_NEAR(m.grads_bytes, 4 * P, 1e-9); /* reserved in the reduce-scatter stream */
	CHECK_NEAR(m.activations_bytes, act, 1e-9);
	CHECK_NEAR(m.temp_bytes, temp, 1e-9);
	CHECK_NEAR(m.total_bytes, 12 * P + 4 * P + act + temp + frag, 1e-9);
	/* measured (framework-kernels4-h200.csv, fw-h200-fsdp2-tinyllama-s2k-mb4-none):
	 * 33,045,992,448 B allocated at the backward's peak, before any gradient;
	 * 38,176,555,008 B reserved */
	double pools = 4 * P + (root + lp) * 4;
	double alloc = m.total_bytes - m.fragmentation_bytes - hw.reserved_bytes - pools;
	CHECK_NEAR(alloc, 33.05e9, 0.005);
	CHECK_NEAR(alloc + pools, 38.18e9, 0.03);
	done(&s, &w);
}

/* Where it applies: the pytorch framework, one TP and CP rank, a fused
 * attention kernel, dense SwiGLU layers. */
static void where_it_applies(void)
{
	static const struct {
		const char *fw, *par, *extra;
		bool on;
	} c[] = {{"pytorch", "", "", true},
		 {"megatron-core", "", "", false},
		 {"torchtitan", "", "", false},
		 {"pytorch", "\"tensor_model_parallel_size\": 2", "", false},
		 {"pytorch", "", "\"use_flash_attn\": false, ", false},
		 {"pytorch", "", "\"precision\": \"fp32\", ", false}};
	for (size_t k = 0; k < PP_ARRAY_LEN(c); k++) {
		char json[900];
		snprintf(json, sizeof(json), "{" TINY "\"training\": {\"framework\": \"%s\", %s"
			 "\"global_batch_size\": 8, \"micro_batch_size\": 1}, \"parallel\": {%s}, "
			 "\"cluster\": {\"gpu\": \"h200\", \"num_gpus\": 2}}", c[k].fw, c[k].extra,
			 c[k].par);
		pp_scenario s;
		pp_hw hw;
		pp_workload w;
		pp_memory m;
		if (load(json, &s, &hw, &w, &m)) {
			CHECK(0);
			continue;
		}
		CHECK(pp_memory_eager(&s, &w) == c[k].on);
		CHECK(c[k].on == (m.peak_phase[0] != 0)); /* the summed accounting has no phase */
		CHECK(s.training.stack.eager_memory == !strcmp(c[k].fw, "pytorch"));
		done(&s, &w);
	}
}

/* More tokens per micro-batch never need less memory, with or without
 * recompute, plain or FSDP2; recompute never needs more. */
static void monotone(void)
{
	for (int zero = 0; zero <= 3; zero += 3) {
		double prev[2] = {0, 0};
		for (int mbs = 1; mbs <= 16; mbs *= 2) {
			double tot[2];
			for (int rc = 0; rc < 2; rc++) {
				char json[900];
				snprintf(json, sizeof(json), "{" TINY "\"training\": {\"framework\": "
					 "\"pytorch\", \"master_weights_fp32\": true, "
					 "\"global_batch_size\": %d, \"micro_batch_size\": %d, "
					 "\"recompute\": \"%s\"}, \"parallel\": {\"zero_stage\": %d}, "
					 H200 "}", mbs, mbs, rc ? "full" : "none", zero);
				pp_scenario s;
				pp_hw hw;
				pp_workload w;
				pp_memory m;
				if (load(json, &s, &hw, &w, &m)) {
					CHECK(0);
					return;
				}
				tot[rc] = m.total_bytes;
				CHECK(tot[rc] > prev[rc]);
				prev[rc] = tot[rc];
				done(&s, &w);
			}
			CHECK(tot[1] <= tot[0]);
		}
	}
}

/* eager_memory without its figure: the error names the JSON path. */
static void bad_entry(void)
{
	char *text = NULL;
	size_t len = 0;
	pp_err err = {0};
	if (pp_read_file("models/frameworks.json", 1 << 24, &text, &len, &err)) {
		CHECK(0);
		return;
	}
	char *k = strstr(text, "\"optimizer_temp_states\"");
	CHECK(k != NULL);
	if (k)
		memcpy(k, "\"optimizer_temp_stateX\"", strlen("\"optimizer_temp_stateX\""));
	pp_jdoc d;
	if (pp_jdoc_parse(&d, "frameworks.json", text, len, &err)) {
		CHECK(0);
		free(text);
		return;
	}
	pp_frameworks *f = NULL;
	CHECK(pp_frameworks_load(&f, &d, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "eager_memory");
	CHECK_CONTAINS(err.msg, "optimizer_temp_states");
	if (f)
		pp_frameworks_free(f);
	pp_jdoc_release(&d);
	free(text);
}

int main(void)
{
	RUN(plain_by_hand);
	RUN(recompute_optimizer_peak);
	RUN(fewer_blocks_anew);
	RUN(ddp_bucket_hosts);
	RUN(fsdp2_streams);
	RUN(where_it_applies);
	RUN(monotone);
	RUN(bad_entry);
	return pp_t_done("test_memeager");
}
