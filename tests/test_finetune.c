/*
 * test_finetune.c - LoRA and QLoRA in the step engine (training.finetune),
 * against values derived without the engine:
 *  - the adapter count of Llama-2-7B at rank 64 on every linear layer is
 *    159,907,840: what Hugging Face PEFT's print_trainable_parameters()
 *    reports for that configuration (the QLoRA recipe, Dettmers et al.
 *    2023), and 32 x 64 x (2h + 2(h + kv) + 2h + 3(h + f)) by hand;
 *  - a frozen base drops every weight-gradient GEMM: the backward's base
 *    GEMM FLOPs are half of full training's (dgrad only, Hu et al. 2021);
 *  - QLoRA stores the base at 4.127 bits a parameter (NF4 with
 *    double-quantised constants), LoRA at 2 bytes;
 *  - gradients, optimizer state and the data-parallel reduction cover the
 *    adapters only; the fast path equals the event simulation.
 */
#include "engine/fastpath.h"
#include "engine/predict.h"
#include "engine/workload.h"
#include "harness.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LLAMA7B "\"model\": {\"preset\": \"llama2-7b\"}, "
#define H100X8 "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8}"
#define TRAIN(ft) "\"training\": {\"global_batch_size\": 16, \"recompute\": \"full\", " \
		  "\"finetune\": \"" ft "\"}, "

static void adapter_count(void)
{
	pp_scenario s;
	pp_hw hw;
	if (tu_scenario("{" LLAMA7B TRAIN("lora") H100X8 "}", &s, &hw)) {
		CHECK(0);
		return;
	}
	double h = 4096, kv = 4096, f = 11008;
	double by_hand = 32 * 64 * (2 * h + 2 * (h + kv) + 2 * h + 3 * (h + f));
	CHECK(by_hand == 159907840.0);
	CHECK(pp_lora_params(&s.model, 64) == 159907840.0);
	CHECK(s.training.lora_rank == 64); /* the catalog's default */
	pp_workload w;
	pp_workload_build(&w, &s, &hw);
	CHECK(w.trainable_total == 159907840.0);
	/* per GPU without TP: a layer's adapters, nothing of the embedding or head */
	CHECK_NEAR(w.lk[0].trainable * 32, 159907840.0, 1e-12);
	CHECK(w.trainable_embed == 0 && w.trainable_head == 0);
	pp_workload_release(&w);
	pp_scenario_release(&s);
}

/* GEMM FLOPs of one layer's backward whose name is not an adapter's. */
static double base_bwd_gemm_flops(const pp_workload *w)
{
	double f = 0;
	for (int i = 0; i < w->nops; i++) {
		const pp_op *o = &w->ops[i];
		if (o->part == PP_PART_LAYER && o->phase == PP_PH_BWD && o->kind == PP_OP_GEMM &&
		    !strstr(o->name, ".lora_"))
			f += o->flops;
	}
	return f;
}

static void frozen_base(void)
{
	pp_scenario full, lora;
	pp_hw hw;
	if (tu_scenario("{" LLAMA7B TRAIN("full") H100X8 "}", &full, &hw) ||
	    tu_scenario("{" LLAMA7B TRAIN("lora") H100X8 "}", &lora, &hw)) {
		CHECK(0);
		return;
	}
	pp_workload wf, wl;
	pp_workload_build(&wf, &full, &hw);
	pp_workload_build(&wl, &lora, &hw);
	/* flash attention: the layer's only GEMMs are its four linears */
	CHECK_NEAR(base_bwd_gemm_flops(&wl), 0.5 * base_bwd_gemm_flops(&wf), 1e-12);
	int wgrads = 0;
	for (int i = 0; i < wl.nops; i++)
		wgrads += strstr(wl.ops[i].name, ".wgrad") && !strstr(wl.ops[i].name, ".lora_");
	CHECK(wgrads == 0);
	pp_result rf, rl;
	pp_err err = {0};
	CHECK(pp_predict(&full, &hw, NULL, &rf, &err) == 0);
	CHECK(pp_predict(&lora, &hw, NULL, &rl, &err) == 0);
	CHECK(rl.step_time_s < rf.step_time_s);
	/* gradients in fp32 (4 bytes) and Adam's master + m + v (12) on the adapters */
	CHECK_NEAR(rl.memory.grads_bytes, 4 * 159907840.0, 1e-9);
	CHECK_NEAR(rl.memory.optimizer_bytes, 12 * 159907840.0, 1e-9);
	/* the bf16 base at 2 bytes and the adapters at 2 */
	CHECK_NEAR(rl.memory.weights_bytes, 2 * (wl.params_total + 159907840.0), 1e-6);
	CHECK(rl.params_trainable == 159907840.0);
	/* the fast path runs the same program */
	pp_fp_cache *c = pp_fp_cache_new();
	pp_workload fw;
	pp_fp_workload(c, &lora, &hw, &fw);
	CHECK(pp_fp_step_ns(&lora, &hw, &fw) == llround(rl.step_time_s * 1e9));
	pp_fp_cache_free(c);
	pp_workload_release(&wf);
	pp_workload_release(&wl);
	pp_scenario_release(&full);
	pp_scenario_release(&lora);
}

static void qlora_nf4(void)
{
	pp_scenario s;
	pp_hw hw;
	if (tu_scenario("{" LLAMA7B TRAIN("qlora") H100X8 "}", &s, &hw)) {
		CHECK(0);
		return;
	}
	pp_result r;
	pp_err err = {0};
	CHECK(pp_predict(&s, &hw, NULL, &r, &err) == 0);
	double base = r.params_total;
	CHECK_NEAR(r.memory.weights_bytes, base * 4.127 / 8 + 2 * 159907840.0, 1e-6);
	/* dequantisation costs time: QLoRA is slower than LoRA, never faster */
	double t_lora = tu_step("{" LLAMA7B TRAIN("lora") H100X8 "}", NULL);
	CHECK(r.step_time_s > t_lora);
	pp_scenario_release(&s);
}

/* The DP all-reduce moves the adapters' fp32 gradients only: a slower
 * fabric barely moves a LoRA step, but does move full training. */
static void dp_traffic_is_adapters(void)
{
	const char *slow = "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 16, "
			   "\"inter_node\": {\"fabric\": \"eth-10g\"}}";
	char a[512], b[512];
	snprintf(a, sizeof(a), "{" LLAMA7B TRAIN("lora") "%s}", slow);
	snprintf(b, sizeof(b), "{" LLAMA7B TRAIN("full") "%s}", slow);
	pp_result rl, rf;
	if (tu_step(a, &rl) < 0 || tu_step(b, &rf) < 0) {
		CHECK(0);
		return;
	}
	/* 160M fp32 gradients vs 6.7B: at least 30x less exposed traffic */
	CHECK(rl.breakdown.dp_comm_exposed_s * 30 < rf.breakdown.dp_comm_exposed_s);
}

static void bad_input(void)
{
	pp_scenario s;
	pp_hw hw;
	/* "auto" is a cost option's choice, not a recipe the engine runs */
	CHECK(tu_scenario("{" LLAMA7B TRAIN("auto") H100X8 "}", &s, &hw) != 0);
	CHECK(tu_scenario("{" LLAMA7B "\"training\": {\"global_batch_size\": 16, \"lora_rank\": 0}, "
			  H100X8 "}", &s, &hw) != 0);
}

int main(void)
{
	RUN(adapter_count);
	RUN(frozen_base);
	RUN(qlora_nf4);
	RUN(dp_traffic_is_adapters);
	RUN(bad_input);
	return pp_t_done("test_finetune");
}
