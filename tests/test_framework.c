/*
 * test_framework.c - training.framework and the stack it resolves to
 * (input/framework.h, models/frameworks.json), and the engine's mechanisms
 * that read it, against values derived without the engine:
 *  - every framework of the catalog resolves, each behaviour with an
 *    origin; a training key overrides its default and says so;
 *  - the attention kernels' rates are the FlashAttention-3 paper's bars
 *    (kernels.json): at a listed length exactly, between two in log(seq),
 *    held at the ends, a causal backward scaled by the forward's ratio;
 *    the flash op's time is its executed FLOPs (half the score matrix,
 *    causal) at that rate;
 *  - the cross-entropy chain moves the bytes counted from each framework's
 *    code (frameworks.json cross_entropy) per logit element;
 *  - TorchTitan's op policy recomputes wk, wo and w3 (the 2nd, 4th and 6th
 *    matmul of a block), the norms, RoPE and the SwiGLU, never the
 *    attention core: its FLOPs by hand;
 *  - the gradient reduction's dtype per framework; TE userbuffers' overlap
 *    hides all but one chunk of a ring exchange; FSDP without
 *    reshard_after_forward gathers once a micro-batch;
 *  - the fast path equals the event simulation and the bound stays below
 *    it with a host-bound eager stack, op-level recompute and FSDP;
 *  - executed FLOPs and the plausibility warning of predict;
 *  - torch.autocast over fp32 parameters (plain PyTorch, fp32 master
 *    weights, no ZeRO-3): the fp32 residual stream's norm and embedding
 *    bytes, a cast of the norm output per q, k and v call, each weight cast
 *    once per forward and its gradient cast back, counted from the code
 *    (frameworks.json eager-hf-autocast); none under FSDP2's
 *    MixedPrecisionPolicy (zero_stage 3), with bf16 parameters or with
 *    training.autocast false;
 *  - FSDP2's local copies (frameworks.json fsdp2_copies): per layer the
 *    shard's cast and copy into the all-gather buffer, again for the
 *    backward's gather, and the gradients' copy into the reduce-scatter
 *    input; none for a ZeRO-3 that is not FSDP2;
 *  - tensor_clock: a GEMM-dense stack's compute-bound GEMMs and attention
 *    on an H100 SXM take 1 / 0.845 (bf16) and 1 / 0.893 (fp8 GEMMs) of
 *    their burst time (gpus.json sustained_gemm_fraction), an eager stack's
 *    and every stack's on an A100 their burst time, and a calibration
 *    profile's measured GEMMs are not scaled.
 */
#include "calib/profile.h"
#include "engine/compute.h"
#include "engine/des.h"
#include "engine/memory.h"
#include "engine/stages.h"
#include "engine/fastpath.h"
#include "engine/predict.h"
#include "engine/evgraph.h"
#include "engine/stepcost.h"
#include "engine/workload.h"
#include "core/util.h"
#include "input/plausible.h"
#include "harness.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LLAMA8B "\"model\": {\"preset\": \"llama3-8b\", \"seq_length\": 8192}, "
#define H100X8 "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8}"

static const pp_op *find_op(const pp_workload *w, const char *name, pp_phase ph, pp_part part)
{
	for (int i = 0; i < w->nops; i++)
		if (w->ops[i].phase == ph && w->ops[i].part == part && !strcmp(w->ops[i].name, name))
			return &w->ops[i];
	return NULL;
}

static void every_framework_resolves(void)
{
	const pp_frameworks *f = pp_catalog_frameworks(tu_catalog());
	size_t n = 0;
	const char *const *ids = pp_frameworks_ids(f, &n);
	CHECK(n >= 7);
	static const char *const want[] = {"megatron-lm-2022", "megatron-core", "nemo", "torchtitan",
					   "deepspeed", "pytorch", "podplan-replay"};
	for (size_t k = 0; k < PP_ARRAY_LEN(want); k++) {
		bool found = false;
		for (size_t i = 0; i < n; i++)
			found |= !strcmp(ids[i], want[k]);
		CHECK(found);
		pp_stack st;
		pp_err err = {0};
		CHECK(pp_stack_default(&st, f, want[k], &err) == 0);
		for (int b = 0; b < PP_BEH_COUNT; b++)
			CHECK(!strncmp(st.origin[b], "framework ", 10));
	}
	pp_stack st;
	pp_err err = {0};
	/* Transformer Engine prefers cuDNN's fused attention on Hopper+, FA2 before */
	CHECK(pp_stack_default(&st, f, "megatron-core", &err) == 0);
	CHECK(pp_stack_attention(&st, "hopper") == PP_ATTN_CUDNN);
	CHECK(pp_stack_attention(&st, "blackwell") == PP_ATTN_CUDNN);
	CHECK(pp_stack_attention(&st, "ampere") == PP_ATTN_FA2);
	CHECK(!strcmp(st.ce.id, "megatron-vocab-parallel") && st.fused_proj && !st.tp_overlap);
	/* TorchTitan at its benchmarks' commit: SDPA's FA2, eager, FSDP2 in fp32 */
	CHECK(pp_stack_default(&st, f, "torchtitan", &err) == 0);
	CHECK(pp_stack_attention(&st, "hopper") == PP_ATTN_FA2);
	CHECK(!strcmp(st.eltw.id, "eager-torchtitan") && !st.fused_proj);
	CHECK(st.sac == PP_SAC_TORCHTITAN_OP && st.grad_reduce == PP_GRED_FP32);
	CHECK(st.cp_comm == PP_CPC_ALLGATHER && !st.cp_overlapped);
	/* plain PyTorch 2.11 + transformers 5: cuDNN SDPA on Hopper, bf16 states */
	CHECK(pp_stack_default(&st, f, "pytorch", &err) == 0);
	CHECK(pp_stack_attention(&st, "hopper") == PP_ATTN_CUDNN && !st.master_fp32);
	CHECK(!strcmp(st.ce.id, "hf-fp32") && !strcmp(st.optim.id, "torch-foreach-adamw"));
	/* no framework key: Megatron-Core */
	pp_scenario s;
	pp_hw hw;
	if (!tu_scenario("{" LLAMA8B "\"training\": {\"global_batch_size\": 8}, " H100X8 "}", &s,
			 &hw)) {
		CHECK(!strcmp(s.training.stack.framework, "megatron-core"));
		pp_scenario_release(&s);
	}
	CHECK(pp_stack_default(&st, f, "no-such", &err) == PP_EINPUT);
}

static void keys_override(void)
{
	pp_scenario s;
	pp_hw hw;
	if (tu_scenario("{" LLAMA8B "\"training\": {\"framework\": \"torchtitan\", "
			"\"global_batch_size\": 8, \"cross_entropy\": \"te-fused\", "
			"\"reshard_after_forward\": false, \"host_issue_us\": 10, \"torch_compile\": true}, "
			"\"parallel\": {\"zero_stage\": 3}, " H100X8 "}", &s, &hw)) {
		CHECK(0);
		return;
	}
	const pp_stack *st = &s.training.stack;
	CHECK(!strcmp(st->ce.id, "te-fused"));
	CHECK_CONTAINS(st->origin[PP_BEH_CE], "scenario training.cross_entropy");
	CHECK(!st->reshard_after_forward);
	CHECK_NEAR(st->host_issue_s, 10e-6, 1e-12);
	CHECK(!strcmp(st->eltw.id, "compiled"));
	CHECK_CONTAINS(st->origin[PP_BEH_ELTW], "torch_compile");
	/* the others keep the framework's */
	CHECK_CONTAINS(st->origin[PP_BEH_SAC], "framework torchtitan");
	pp_scenario_release(&s);
	/* use_flash_attn false is the unfused core whatever the framework */
	if (!tu_scenario("{" LLAMA8B "\"training\": {\"framework\": \"nemo\", \"global_batch_size\": 8, "
			 "\"use_flash_attn\": false}, " H100X8 "}", &s, &hw)) {
		CHECK(s.training.stack.attn == PP_ATTN_UNFUSED && !s.training.use_flash_attn);
		pp_scenario_release(&s);
	}
}

/* The FlashAttention-3 paper's H100 SXM5 bars, hdim 128 (kernels.json),
 * and their scaling to other head dimensions. */
static void attention_rates(void)
{
	pp_scenario s;
	pp_hw hw;
	if (tu_scenario("{" LLAMA8B "\"training\": {\"global_batch_size\": 8}, " H100X8 "}", &s, &hw)) {
		CHECK(0);
		return;
	}
	double P = 989.4;
	CHECK_NEAR(pp_attn_rate(&hw, PP_ATTN_CUDNN, false, true, 8192), 529 / P, 1e-12);
	CHECK_NEAR(pp_attn_rate(&hw, PP_ATTN_FA2, false, false, 2048), 362 / P, 1e-12);
	CHECK_NEAR(pp_attn_rate(&hw, PP_ATTN_FA3, true, false, 4096), 542 / P, 1e-12);
	/* halfway between 2k and 4k in log(seq): halfway between the bars */
	CHECK_NEAR(pp_attn_rate(&hw, PP_ATTN_CUDNN, false, true, sqrt(2048.0 * 4096.0)),
		   0.5 * (484 + 518) / P, 1e-9);
	/* held at the ends */
	CHECK_NEAR(pp_attn_rate(&hw, PP_ATTN_FA2, false, true, 128), 191 / P, 1e-12);
	CHECK_NEAR(pp_attn_rate(&hw, PP_ATTN_FA2, false, true, 262144), 335 / P, 1e-12);
	/* causal backward: the unmasked backward times the forward's ratio */
	CHECK_NEAR(pp_attn_rate(&hw, PP_ATTN_CUDNN, true, true, 8192), 518.0 * 529 / 600 / P, 1e-9);
	/* no curve: the architecture's single share */
	CHECK_NEAR(pp_attn_rate(&hw, PP_ATTN_CATALOG, false, true, 8192), hw.attn_frac, 1e-12);
	/* other head dimensions: a score's 4d (10d backward) matmul FLOPs at
	 * 989.4 TFLOP/s and one exponential at 3.9 T/s, in sequence, over
	 * the bars' head dimension 128 */
	double E = 3.9e12, Pf = 989.4e12;
	CHECK_NEAR(pp_attn_head_dim_factor(&hw, false, 128), 1.0, 1e-12);
	CHECK_NEAR(pp_attn_head_dim_factor(&hw, false, 64),
		   0.5 * (512 / Pf + 1 / E) / (256 / Pf + 1 / E), 1e-12);
	CHECK_NEAR(pp_attn_head_dim_factor(&hw, true, 64),
		   0.5 * (1280 / Pf + 1 / E) / (640 / Pf + 1 / E), 1e-12);
	CHECK(pp_attn_head_dim_factor(&hw, false, 64) > 0.74 &&
	      pp_attn_head_dim_factor(&hw, false, 64) < 0.76);
	CHECK(pp_attn_head_dim_factor(&hw, false, 256) > 1.0);
	/* the op: 4 b s^2 h FLOPs a full forward, half executed under the mask */
	pp_workload w;
	pp_workload_build(&w, &s, &hw);
	const pp_op *o = find_op(&w, "flash_attn", PP_PH_FWD, PP_PART_LAYER);
	CHECK(o != NULL);
	if (o) {
		double full = 4.0 * 8192.0 * 8192.0 * 4096.0;
		CHECK_NEAR(o->model_flops, full, 1e-12);
		CHECK_NEAR(o->flops, 0.5 * full, 1e-12);
		/* Megatron-Core's step is GEMM-dense: the rate at the H100's
		 * sustained share (gpus.json, tensor_clock; sustained_clock below) */
		CHECK_NEAR(o->time_s, 0.5 * full / (989.4e12 * 529 / P * 0.845) + hw.kernel_overhead_s,
			   1e-9);
	}
	pp_workload_release(&w);
	pp_scenario_release(&s);
}

/* bytes per logit element, read off frameworks.json's notes:
 * megatron-vocab-parallel float r2 w4, max r4, sub r4 w4, exp r4 w4, sum r4,
 * div r4 w4 = 38, backward mul r4 w4 and the cast back r4 w2 = 14;
 * torch-fp32 float r2 w4, log_softmax r4 r4 r4 w4 = 22, backward w4,
 * r4 r4 r4 w4, r4 w2 = 26 */
static void cross_entropy_chains(void)
{
	static const struct {
		const char *fw;
		double fwd, bwd;
	} c[] = {{"megatron-core", 38, 14}, {"torchtitan", 22, 26}, {"nemo", 6, 4},
		 {"podplan-replay", 14, 6}};
	for (size_t k = 0; k < PP_ARRAY_LEN(c); k++) {
		char json[400];
		snprintf(json, sizeof(json), "{" LLAMA8B "\"training\": {\"framework\": \"%s\", "
			 "\"global_batch_size\": 8}, " H100X8 "}", c[k].fw);
		pp_scenario s;
		pp_hw hw;
		if (tu_scenario(json, &s, &hw)) {
			CHECK(0);
			continue;
		}
		pp_workload w;
		pp_workload_build(&w, &s, &hw);
		double logits = 8192.0 * 128256.0;
		const pp_op *f = find_op(&w, "cross_entropy", PP_PH_FWD, PP_PART_HEAD);
		const pp_op *b = find_op(&w, "cross_entropy.bwd", PP_PH_BWD, PP_PART_HEAD);
		CHECK(f && b);
		if (f && b) {
			CHECK_NEAR(f->bytes, logits * c[k].fwd, 1e-12);
			CHECK_NEAR(b->bytes, logits * c[k].bwd, 1e-12);
		}
		pp_workload_release(&w);
		pp_scenario_release(&s);
	}
}

static void op_level_recompute(void)
{
	pp_scenario s;
	pp_hw hw;
	if (tu_scenario("{" LLAMA8B "\"training\": {\"framework\": \"torchtitan\", "
			"\"global_batch_size\": 8, \"recompute\": \"selective\"}, " H100X8 "}", &s,
			&hw)) {
		CHECK(0);
		return;
	}
	pp_workload w;
	pp_workload_build(&w, &s, &hw);
	static const char *const again[] = {"k", "proj", "w3", "ln1", "ln2", "rope", "swiglu",
					    "repeat_kv"};
	static const char *const kept[] = {"q", "v", "w1", "fc2", "flash_attn"};
	for (size_t k = 0; k < PP_ARRAY_LEN(again); k++)
		CHECK(find_op(&w, again[k], PP_PH_RECOMPUTE, PP_PART_LAYER) != NULL);
	for (size_t k = 0; k < PP_ARRAY_LEN(kept); k++)
		CHECK(find_op(&w, kept[k], PP_PH_RECOMPUTE, PP_PART_LAYER) == NULL);
	/* wk (h x kv), wo (h x h), w3 (h x f) over 8192 tokens, 2 FLOPs a MAC */
	double h = 4096, kv = 1024, f = 14336, T = 8192;
	double by_hand = 2.0 * T * (h * kv + h * h + h * f);
	double gemm = 0;
	for (int i = 0; i < w.nops; i++)
		if (w.ops[i].phase == PP_PH_RECOMPUTE && w.ops[i].kind == PP_OP_GEMM)
			gemm += w.ops[i].flops;
	CHECK_NEAR(gemm, by_hand, 1e-12);
	CHECK_NEAR(w.lk[0].cost.recompute.flops, by_hand, 1e-12);
	pp_workload_release(&w);
	pp_scenario_release(&s);
}

static double grad_bytes(const char *fw, const char *prec, int zero)
{
	char json[400];
	snprintf(json, sizeof(json), "{" LLAMA8B "\"training\": {\"framework\": \"%s\", "
		 "\"global_batch_size\": 8, \"precision\": \"%s\"}, \"parallel\": {\"zero_stage\": %d}, "
		 H100X8 "}", fw, prec, zero);
	pp_scenario s;
	pp_hw hw;
	if (tu_scenario(json, &s, &hw))
		return -1;
	pp_workload w;
	pp_workload_build(&w, &s, &hw);
	double b = w.grad_comm_bytes_per_param;
	pp_workload_release(&w);
	pp_scenario_release(&s);
	return b;
}

static void gradient_reduction_dtype(void)
{
	CHECK(grad_bytes("megatron-core", "bf16", 1) == 4); /* fp32 main grads */
	CHECK(grad_bytes("megatron-core", "fp16", 1) == 2);
	CHECK(grad_bytes("megatron-core", "bf16", 3) == 2); /* a ZeRO-3 layout's own dtype */
	CHECK(grad_bytes("torchtitan", "bf16", 3) == 4);    /* mixed_precision_reduce fp32 */
	CHECK(grad_bytes("pytorch", "bf16", 3) == 2);       /* MixedPrecisionPolicy() default */
	CHECK(grad_bytes("deepspeed", "bf16", 3) == 2);
}

/* TE userbuffers (initialize_ub): qkv_fprop's all-gather as a ring exchange
 * of TP chunks, proj_fprop's reduce-scatter pipelined in 4 chunks on the
 * SMs left after 16 */
static void tp_overlap(void)
{
	pp_scenario off, on;
	pp_hw hw;
	const char *lay = "\"parallel\": {\"tensor_model_parallel_size\": 8, \"sequence_parallel\": "
			  "true}, ";
	char a[600], b[600];
	snprintf(a, sizeof(a), "{" LLAMA8B "\"training\": {\"framework\": \"nemo\", "
		 "\"global_batch_size\": 8, \"tp_comm_overlap\": false}, %s" H100X8 "}", lay);
	snprintf(b, sizeof(b), "{" LLAMA8B "\"training\": {\"framework\": \"nemo\", "
		 "\"global_batch_size\": 8}, %s" H100X8 "}", lay);
	if (tu_scenario(a, &off, &hw) || tu_scenario(b, &on, &hw)) {
		CHECK(0);
		return;
	}
	CHECK(on.training.stack.tp_overlap == PP_TPO_TE);
	pp_workload w0, w1;
	pp_workload_build(&w0, &off, &hw);
	pp_workload_build(&w1, &on, &hw);
	const pp_op *ag0 = find_op(&w0, "sp.allgather1", PP_PH_FWD, PP_PART_LAYER);
	const pp_op *ag1 = find_op(&w1, "sp.allgather1", PP_PH_FWD, PP_PART_LAYER);
	const pp_op *q0 = find_op(&w0, "qkv", PP_PH_FWD, PP_PART_LAYER);
	const pp_op *q1 = find_op(&w1, "qkv", PP_PH_FWD, PP_PART_LAYER);
	const pp_op *p0 = find_op(&w0, "proj", PP_PH_FWD, PP_PART_LAYER);
	const pp_op *p1 = find_op(&w1, "proj", PP_PH_FWD, PP_PART_LAYER);
	CHECK(ag0 && ag1 && q0 && q1 && p0 && p1);
	if (ag0 && ag1 && q0 && q1 && p0 && p1) {
		double t = ag0->time_s;
		CHECK_NEAR(ag0->exposed_s, t, 1e-12); /* no overlap: all of it */
		CHECK_NEAR(ag1->time_s, t, 1e-12);
		/* the GEMM as 8 chunks of 1/8 of the tokens */
		/* NeMo's step is GEMM-dense: the GEMMs at the sustained share */
		pp_hw dh = hw;
		dh.dense_on = true;
		double g = 8 * pp_gemm_time(&dh, PP_DT_BF16, q0->m / 8, q0->n, q0->k, 1, 2.0);
		CHECK_NEAR(q1->time_s, g, 1e-12);
		double ex = t / 8 + (t > g ? (t - g) * 7 / 8 : 0);
		CHECK_NEAR(ag1->exposed_s, ex, 1e-12);
		CHECK(ag1->exposed_s < ag0->exposed_s);
		/* 4 chunks on 132 - 16 SMs */
		double gp = 4 * pp_gemm_time(&dh, PP_DT_BF16, p0->m / 4, p0->n, p0->k, 1, 2.0) * 132 /
			    (132 - 16);
		CHECK_NEAR(p1->time_s, gp, 1e-12);
	}
	pp_workload_release(&w0);
	pp_workload_release(&w1);
	pp_scenario_release(&off);
	pp_scenario_release(&on);
}

static int64_t des_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w, int64_t *events)
{
	pp_des *d = pp_des_new();
	pp_stage_busy *busy = pp_xcalloc((size_t)s->parallel.pp, sizeof(pp_stage_busy));
	pp_sched_opts o = {false, false, false};
	pp_evgraph_build(d, s, hw, w, &o, busy);
	pp_err err = {0};
	int64_t t = pp_des_run(d, &err) ? -1 : pp_des_makespan(d);
	*events = pp_des_events(d);
	free(busy);
	pp_des_free(d);
	return t;
}

/* FSDP's gathers: twice a micro-batch per layer with reshard_after_forward,
 * once without; the fast path and the event simulation agree either way,
 * with a host-bound eager stack (a small model) and op-level recompute */
static void fsdp_and_fast_path(void)
{
	static const char *const fw[] = {"torchtitan", "pytorch", "megatron-core"};
	int64_t ev[2] = {0, 0};
	for (size_t k = 0; k < PP_ARRAY_LEN(fw); k++)
		for (int reshard = 0; reshard < 2; reshard++)
			for (int pp = 1; pp <= 2; pp++) {
				char json[700];
				snprintf(json, sizeof(json), "{\"model\": {\"num_layers\": 4, "
					 "\"hidden_size\": 512, \"num_attention_heads\": 8, "
					 "\"num_query_groups\": 2, \"ffn_hidden_size\": 1536, \"vocab_size\": "
					 "32000, \"seq_length\": 1024, \"swiglu\": true}, \"training\": "
					 "{\"framework\": \"%s\", \"global_batch_size\": 16, "
					 "\"recompute\": \"selective\", \"reshard_after_forward\": %s}, "
					 "\"parallel\": {\"zero_stage\": %d, \"pipeline_model_parallel_size\": "
					 "%d}, " H100X8 "}", fw[k], reshard ? "true" : "false", pp == 1 ? 3 : 1,
					 pp);
				pp_scenario s;
				pp_hw hw;
				if (tu_scenario(json, &s, &hw)) {
					CHECK(0);
					continue;
				}
				pp_workload w;
				pp_workload_build(&w, &s, &hw);
				int64_t e = 0;
				int64_t d = des_ns(&s, &hw, &w, &e);
				int64_t f = pp_fp_step_ns(&s, &hw, &w);
				int64_t b = pp_fp_bound_ns(&s, &hw, &w);
				CHECK(d > 0 && f == d);
				CHECK(b <= d);
				if (k == 0 && pp == 1)
					ev[reshard] = e;
				/* the small model is host-bound under eager PyTorch */
				if (k < 2) {
					const pp_pass_cost *fw0 = &w.lk[0].cost.fwd;
					CHECK(fw0->host_s > fw0->compute_s + fw0->comm_s);
				}
				pp_workload_release(&w);
				pp_scenario_release(&s);
			}
	/* 4 layers x 8 micro-batches fewer gathers without reshard (plus the
	 * slowdown task each gather issues beside it) */
	CHECK(ev[1] > ev[0]);
}

static void executed_flops_and_plausibility(void)
{
	pp_result r;
	double t = tu_step("{" LLAMA8B "\"training\": {\"global_batch_size\": 8}, "
			   "\"parallel\": {\"zero_stage\": 1}, " H100X8 "}", &r);
	CHECK(t > 0);
	/* no recompute: the model count has the forward's 4 b s^2 h a layer
	 * and a backward of twice that (eq. 3); the kernels execute half the
	 * forward and 2.5 times that backward (FlashAttention-2, Sec. 3) */
	double fwd = 32 * 4.0 * 8192.0 * 8192.0 * 4096.0 * 8; /* 8 sequences */
	CHECK_NEAR(r.exec_flops_per_step, r.model_flops_per_step - 3 * fwd + 0.5 * 3.5 * fwd, 1e-9);
	CHECK(r.exec_util < r.mfu);
	/* Llama-3-8B on 8 H100 predicts more than the 49% Megatron-LM publishes */
	char why[1024];
	const pp_gpu *g = pp_catalog_gpu(tu_catalog(), "h100-sxm");
	CHECK(pp_catalog_mfu_check(tu_catalog(), g, PP_DT_BF16, 0.491, why, sizeof(why)) == 1);
	CHECK_CONTAINS(why, "49.0%");
	CHECK(pp_catalog_mfu_check(tu_catalog(), g, PP_DT_BF16, 0.489, why, sizeof(why)) == 0);
	CHECK(pp_catalog_mfu_check(tu_catalog(), g, PP_DT_TF32, 0.9, why, sizeof(why)) == 0);
	char cmd[512], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s predict scenarios/multinode-10gbe-or-infiniband-ndr.json",
		 pp_t_bin());
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "Megatron's count");
	CHECK_CONTAINS(out, "Executed FLOPs");
	CHECK_CONTAINS(out, "above the best published");
	CHECK_CONTAINS(out, "Framework  megatron-core");
	free(out);
}

static void autocast_fp32_stream(void)
{
	static const struct {
		const char *extra;
		bool amp;
	} c[] = {{"\"master_weights_fp32\": true", true},
		 {"\"master_weights_fp32\": true, \"autocast\": false", false},
		 {"\"master_weights_fp32\": false", false},
		 {"\"master_weights_fp32\": true}, \"parallel\": {\"zero_stage\": 3", false}};
	double T = 8192, h = 4096, V = 128256;
	for (size_t k = 0; k < PP_ARRAY_LEN(c); k++) {
		char json[600];
		snprintf(json, sizeof(json), "{" LLAMA8B "\"training\": {\"framework\": \"pytorch\", "
			 "\"global_batch_size\": 8, \"micro_batch_size\": 1, %s}, " H100X8 "}",
			 c[k].extra);
		pp_scenario s;
		pp_hw hw;
		if (tu_scenario(json, &s, &hw)) {
			CHECK(0);
			continue;
		}
		pp_workload w;
		pp_workload_build(&w, &s, &hw);
		const pp_op *ln1 = find_op(&w, "ln1", PP_PH_FWD, PP_PART_LAYER);
		const pp_op *ln1b = find_op(&w, "ln1.bwd", PP_PH_BWD, PP_PART_LAYER);
		const pp_op *in = find_op(&w, "qkv.input_cast", PP_PH_FWD, PP_PART_LAYER);
		const pp_op *inb = find_op(&w, "qkv.input_cast.bwd", PP_PH_BWD, PP_PART_LAYER);
		const pp_op *wq = find_op(&w, "q.weight_cast", PP_PH_FWD, PP_PART_LAYER);
		const pp_op *gq = find_op(&w, "q.grad_cast", PP_PH_BWD, PP_PART_LAYER);
		const pp_op *emb = find_op(&w, "embed.lookup", PP_PH_FWD, PP_PART_EMBED);
		const pp_op *lw = find_op(&w, "logits.weight_cast", PP_PH_FWD, PP_PART_HEAD);
		CHECK(ln1 && ln1b && emb);
		if (!ln1 || !ln1b || !emb)
			goto next;
		if (c[k].amp) {
			CHECK(in && inb && wq && gq && lw);
			if (!in || !inb || !wq || !gq || !lw)
				goto next;
			/* fp32 x: pow r4 w4, mean r4, * rsqrt r4 w4, weight * r4 w4 */
			CHECK_NEAR(ln1->bytes, T * h * 28, 1e-12);
			CHECK(ln1->kernels == 6);
			CHECK_NEAR(ln1b->bytes, T * h * 92, 1e-12);
			/* q, k and v each read the fp32 output (4) and write bf16 (2) */
			CHECK_NEAR(in->bytes, 3 * T * h * 6, 1e-12);
			CHECK(in->kernels == 3);
			CHECK_NEAR(inb->bytes, 3 * T * h * 6, 1e-12);
			CHECK_NEAR(wq->bytes, h * h * 6, 1e-12);
			CHECK_NEAR(gq->bytes, h * h * 6, 1e-12);
			CHECK_NEAR(lw->bytes, V * h * 6, 1e-12);
			CHECK_NEAR(emb->bytes, T * h * 8, 1e-12); /* fp32 rows read and written */
		} else {
			CHECK(!in && !inb && !wq && !gq && !lw);
			CHECK_NEAR(ln1->bytes, T * h * 36, 1e-12); /* eager-hf on bf16 x */
			CHECK_NEAR(emb->bytes, T * h * 4, 1e-12);
		}
	next:
		pp_workload_release(&w);
		pp_scenario_release(&s);
	}
}

static void fsdp2_local_copies(void)
{
	static const struct {
		const char *fw;
		bool on;
	} c[] = {{"pytorch", true}, {"torchtitan", true}, {"megatron-core", false}};
	for (size_t k = 0; k < PP_ARRAY_LEN(c); k++) {
		char json[600];
		snprintf(json, sizeof(json), "{" LLAMA8B "\"training\": {\"framework\": \"%s\", "
			 "\"global_batch_size\": 8, \"micro_batch_size\": 1, \"master_weights_fp32\": "
			 "true}, \"parallel\": {\"zero_stage\": 3}, " H100X8 "}", c[k].fw);
		pp_scenario s;
		pp_hw hw;
		if (tu_scenario(json, &s, &hw)) {
			CHECK(0);
			continue;
		}
		pp_workload w;
		pp_workload_build(&w, &s, &hw);
		const pp_op *f = find_op(&w, "fsdp.all_gather_copy_in", PP_PH_FWD, PP_PART_LAYER);
		const pp_op *b = find_op(&w, "fsdp.all_gather_copy_in", PP_PH_BWD, PP_PART_LAYER);
		const pp_op *r = find_op(&w, "fsdp.reduce_scatter_copy_in", PP_PH_BWD, PP_PART_LAYER);
		if (!c[k].on) {
			CHECK(!f && !b && !r);
		} else {
			CHECK(f && b && r && w.dp.n == 8);
			if (f && b && r) {
				double P = w.lk[0].params; /* one dense layer's, on one GPU */
				/* the fp32 shard cast (r4 w2) and copied (r2 w2) */
				CHECK_NEAR(f->bytes, P / 8 * 10, 1e-12);
				CHECK_NEAR(b->bytes, P / 8 * 10, 1e-12);
				CHECK(f->kernels == 18);
				CHECK_NEAR(r->bytes, P * (2 + w.grad_comm_bytes_per_param), 1e-12);
			}
		}
		pp_workload_release(&w);
		pp_scenario_release(&s);
	}
}

/* PyTorch DDP's buckets (frameworks.json ddp_bucket_copies): each gradient
 * copied into its bucket and back, at the gradients' dtype (fp32 under
 * autocast over fp32 parameters), and a second copy of the gradients in
 * memory; only where DDP wraps the model (training.ddp, else DP > 1), not
 * under ZeRO-3 nor in Megatron's DDP (its grad buffer is the bucket). */
static void ddp_bucket_copies(void)
{
	static const struct {
		const char *fw, *extra;
		int gpus, zero;
		bool on;
	} c[] = {{"pytorch", "", 8, 0, true},
		 {"pytorch", "\"ddp\": false, ", 8, 0, false},
		 {"pytorch", "", 1, 0, false},
		 {"pytorch", "\"ddp\": true, ", 1, 0, true},
		 {"pytorch", "", 8, 3, false},
		 {"megatron-core", "", 8, 0, false}};
	double base_bytes = 0;
	for (size_t k = 0; k < PP_ARRAY_LEN(c); k++) {
		char json[700];
		snprintf(json, sizeof(json), "{" LLAMA8B "\"training\": {\"framework\": \"%s\", %s"
			 "\"global_batch_size\": 8, \"micro_batch_size\": 1, \"master_weights_fp32\": "
			 "true}, \"parallel\": {\"zero_stage\": %d}, \"cluster\": {\"gpu\": "
			 "\"h200\", \"num_gpus\": %d}}", c[k].fw, c[k].extra, c[k].zero, c[k].gpus);
		pp_scenario s;
		pp_hw hw;
		if (tu_scenario(json, &s, &hw)) {
			CHECK(0);
			continue;
		}
		pp_workload w;
		pp_workload_build(&w, &s, &hw);
		const pp_op *in = find_op(&w, "ddp.copy_grad_to_bucket", PP_PH_BWD, PP_PART_LAYER);
		const pp_op *out = find_op(&w, "ddp.copy_bucket_to_grad", PP_PH_BWD, PP_PART_LAYER);
		CHECK(pp_ddp_bucket_copies(&s) == c[k].on);
		CHECK(c[k].on ? in && out : !in && !out);
		pp_memory m;
		pp_memory_estimate(&s, &hw, &w, &m);
		if (in && out) {
			double P = w.lk[0].params;
			CHECK(w.grad_comm_bytes_per_param == 4.0); /* fp32 gradients */
			CHECK_NEAR(in->bytes, P * 8, 1e-12);
			CHECK_NEAR(out->bytes, P * 8, 1e-12);
			CHECK(in->kernels == 9); /* q, k, v, o, gate, up, down, two norms */
		}
		/* DP 1 with and without DDP: the buckets are the gradients again */
		if (c[k].gpus == 1 && !c[k].on)
			base_bytes = m.total_bytes;
		if (c[k].gpus == 1 && c[k].on)
			CHECK_NEAR(m.total_bytes - base_bytes, pp_stage_trainable(&s, &w, 0) * 4.0, 1e-9);
		pp_workload_release(&w);
		pp_scenario_release(&s);
	}
}

/* The forward qkv GEMM (q where the projections are apart) and flash
 * attention of one layer of s, less the per-kernel overhead: their
 * compute-bound time. */
static void dense_ops(const char *json, double *gemm, double *attn, pp_stack *st)
{
	pp_scenario s;
	pp_hw hw;
	*gemm = *attn = -1;
	if (tu_scenario(json, &s, &hw)) {
		CHECK(0);
		return;
	}
	pp_workload w;
	pp_workload_build(&w, &s, &hw);
	const pp_op *q = find_op(&w, s.training.stack.fused_proj ? "qkv" : "q", PP_PH_FWD,
				 PP_PART_LAYER);
	const pp_op *a = find_op(&w, "flash_attn", PP_PH_FWD, PP_PART_LAYER);
	CHECK(q && a);
	if (q && a) {
		*gemm = q->time_s - hw.kernel_overhead_s;
		*attn = a->time_s - hw.kernel_overhead_s;
	}
	if (st)
		*st = s.training.stack;
	pp_workload_release(&w);
	pp_scenario_release(&s);
}

static void sustained_clock(void)
{
	double g0, a0, g1, a1;
	pp_stack st;
	/* Megatron-Core (sustained by default) against itself at burst */
	dense_ops("{" LLAMA8B "\"training\": {\"global_batch_size\": 8}, " H100X8 "}", &g1, &a1, &st);
	CHECK(st.sustained_clock);
	CHECK_CONTAINS(st.origin[PP_BEH_TENSOR_CLOCK], "framework megatron-core");
	dense_ops("{" LLAMA8B "\"training\": {\"global_batch_size\": 8, \"tensor_clock\": \"burst\"}, "
		  H100X8 "}", &g0, &a0, &st);
	CHECK(!st.sustained_clock);
	CHECK_CONTAINS(st.origin[PP_BEH_TENSOR_CLOCK], "scenario training.tensor_clock");
	CHECK_NEAR(g1 / g0, 1 / 0.845, 1e-9);
	CHECK_NEAR(a1 / a0, 1 / 0.845, 1e-9);
	/* fp8: the GEMMs at fp8's share, attention (bf16) at bf16's */
	dense_ops("{" LLAMA8B "\"training\": {\"global_batch_size\": 8, \"precision\": \"fp8\"}, "
		  H100X8 "}", &g1, &a1, NULL);
	dense_ops("{" LLAMA8B "\"training\": {\"global_batch_size\": 8, \"precision\": \"fp8\", "
		  "\"tensor_clock\": \"burst\"}, " H100X8 "}", &g0, &a0, NULL);
	CHECK_NEAR(g1 / g0, 1 / 0.893, 1e-9);
	CHECK_NEAR(a1 / a0, 1 / 0.845, 1e-9);
	/* eager PyTorch keeps the bursts' rates unless told */
	dense_ops("{" LLAMA8B "\"training\": {\"framework\": \"pytorch\", \"global_batch_size\": 8}, "
		  H100X8 "}", &g0, &a0, &st);
	CHECK(!st.sustained_clock);
	dense_ops("{" LLAMA8B "\"training\": {\"framework\": \"pytorch\", \"global_batch_size\": 8, "
		  "\"tensor_clock\": \"sustained\"}, " H100X8 "}", &g1, &a1, NULL);
	CHECK_NEAR(g1 / g0, 1 / 0.845, 1e-9);
	/* no figure for the A100: nothing changes */
	dense_ops("{" LLAMA8B "\"training\": {\"global_batch_size\": 8}, \"cluster\": {\"gpu\": "
		  "\"a100-80gb\", \"num_gpus\": 8}}", &g1, &a1, NULL);
	dense_ops("{" LLAMA8B "\"training\": {\"global_batch_size\": 8, \"tensor_clock\": \"burst\"}, "
		  "\"cluster\": {\"gpu\": \"a100-80gb\", \"num_gpus\": 8}}", &g0, &a0, NULL);
	CHECK(g1 == g0 && a1 == a0);
	/* fp16 runs as bf16 does */
	dense_ops("{" LLAMA8B "\"training\": {\"global_batch_size\": 8, \"precision\": \"fp16\"}, "
		  H100X8 "}", &g1, &a1, NULL);
	dense_ops("{" LLAMA8B "\"training\": {\"global_batch_size\": 8, \"precision\": \"fp16\", "
		  "\"tensor_clock\": \"burst\"}, " H100X8 "}", &g0, &a0, NULL);
	CHECK_NEAR(g1 / g0, 1 / 0.845, 1e-9);
	/* a profile that measured the bf16 GEMMs: their rates stand, attention
	 * and fp8 GEMMs keep the share */
	pp_scenario s;
	pp_hw hw;
	if (!tu_scenario("{" LLAMA8B "\"training\": {\"global_batch_size\": 8}, " H100X8 "}", &s,
			 &hw)) {
		pp_profile p;
		memset(&p, 0, sizeof(p));
		snprintf(p.name, sizeof(p.name), "t");
		p.has_gemm[PP_DT_BF16] = true;
		p.gemm_frac[PP_DT_BF16] = 0.7;
		p.gemm_k0[PP_DT_BF16] = 150;
		pp_profile_apply(&hw, &p);
		hw.dense_on = true;
		CHECK_NEAR(pp_tensor_share(&hw, PP_DT_BF16, true), 1, 1e-12);
		CHECK_NEAR(pp_tensor_share(&hw, PP_DT_BF16, false), 0.845, 1e-12);
		CHECK_NEAR(pp_tensor_share(&hw, PP_DT_FP8, true), 0.893, 1e-12);
		pp_scenario_release(&s);
	}
	/* a value that is not one: the scenario's message */
	char *sc = pp_path_join(pp_t_tmpdir(), "clock.json");
	FILE *f = fopen(sc, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("{" LLAMA8B "\"training\": {\"global_batch_size\": 8, \"tensor_clock\": "
		      "\"fast\"}, " H100X8 "}", f);
		fclose(f);
		char cmd[1024], *out = NULL;
		snprintf(cmd, sizeof(cmd), "%s predict %s 2>&1", pp_t_bin(), sc);
		CHECK(pp_t_sh(cmd, &out) == 2);
		CHECK_CONTAINS(out, "training.tensor_clock: found \"fast\"; expected one of \"burst\", "
			       "\"sustained\"");
		free(out);
	}
	free(sc);
}

/* gpus.json gemm_peak_fraction: a share measured on the SKU itself stands
 * before its architecture's. GB200 and B200 share kernels.json's blackwell
 * entry (the B200's MAMF); GB200's own MAMF (Bekman: 3615.6 FP8 TFLOP/s
 * against the B200's 3432.5) sets its GEMMs, so a compute-bound GEMM of
 * one shape takes 3432.5 / 3615.6 of the B200's time on it (both 148 SMs,
 * the same tiles). */
static void sku_gemm_share(void)
{
	double gb, ab, gg, ag;
	dense_ops("{" LLAMA8B "\"training\": {\"global_batch_size\": 8, \"precision\": \"fp8\", "
		  "\"tensor_clock\": \"burst\"}, \"cluster\": {\"gpu\": \"b200\", \"num_gpus\": 8}}",
		  &gb, &ab, NULL);
	dense_ops("{" LLAMA8B "\"training\": {\"global_batch_size\": 8, \"precision\": \"fp8\", "
		  "\"tensor_clock\": \"burst\"}, \"cluster\": {\"gpu\": \"gb200\", \"num_gpus\": 8}}",
		  &gg, &ag, NULL);
	CHECK_NEAR(gg / gb, 3432.5 / 3615.6, 2e-3);
	/* attention has no SKU figure: the peaks' ratio */
	CHECK_NEAR(ag / ab, 2250.0 / 2500.0, 1e-9);
	pp_scenario s;
	pp_hw hw;
	if (!tu_scenario("{" LLAMA8B "\"training\": {\"global_batch_size\": 8}, \"cluster\": "
			 "{\"gpu\": \"gb200\", \"num_gpus\": 8}}", &s, &hw)) {
		const char *o = NULL;
		for (int i = 0; i < hw.norigins; i++)
			if (!strcmp(hw.origins[i].name, "gemm_efficiency"))
				o = hw.origins[i].origin;
		CHECK(o != NULL);
		if (o)
			CHECK_CONTAINS(o, "catalog gpus.json: S. Bekman");
		pp_scenario_release(&s);
	}
}

/* gpus.json's sustained_gemm_fraction, broken four ways in a copy of the
 * catalogs: each a message naming the file, the JSON path, what was found
 * and what was expected, exit status 2. */
static void sustained_catalog_errors(void)
{
	static const struct {
		const char *sed, *want;
	} cases[] = {
		{"0,/\"sustained_gemm_fraction\": {/s//\"sustained_gemm_fraction\": {\"bf16\": "
		 "{\"value\": 0.5, \"source\": \"podplan_h200_clocks\", \"date\": \"2026\"}, /",
		 "sustained_gemm_fraction.bf16: found this key twice"},
		{"0,/\"sustained_gemm_fraction\": {/s//\"sustained_gemm_fraction\": {\"fp9\": "
		 "{\"value\": 0.5, \"source\": \"podplan_h200_clocks\", \"date\": \"2026\"}, /",
		 "sustained_gemm_fraction.fp9: unknown key \"fp9\", did you mean \"fp8\"?"},
		{"0,/\"sustained_gemm_fraction\": {/s//\"sustained_gemm_fraction\": 0.8, \"x\": {/",
		 "sustained_gemm_fraction: found the number 0.8"},
		{"0,/\"value\": 0.845,/s//\"value\": 1.5,/",
		 "sustained_gemm_fraction.bf16: found 1.5; expected a fraction in (0, 1]"},
		{"0,/\"value\": 0.723,/s//\"value\": 1.5,/",
		 "gemm_peak_fraction.fp8: found 1.5; expected a fraction in (0, 1]"},
	};
	char *dir = pp_path_join(pp_t_tmpdir(), "catalog-sgf");
	for (size_t i = 0; i < PP_ARRAY_LEN(cases); i++) {
		char cmd[2048], *out = NULL;
		snprintf(cmd, sizeof(cmd), "rm -rf %s && mkdir -p %s && cp models/*.json %s/ && "
			 "sed -i '%s' %s/gpus.json && PODPLAN_DATA=%s %s predict scenarios/default.json "
			 "2>&1", dir, dir, dir, cases[i].sed, dir, dir, pp_t_bin());
		CHECK(pp_t_sh(cmd, &out) == 2);
		CHECK_CONTAINS(out, "gpus.json:");
		CHECK_CONTAINS(out, cases[i].want);
		free(out);
	}
	free(dir);
}

int main(void)
{
	RUN(every_framework_resolves);
	RUN(keys_override);
	RUN(attention_rates);
	RUN(cross_entropy_chains);
	RUN(op_level_recompute);
	RUN(gradient_reduction_dtype);
	RUN(tp_overlap);
	RUN(fsdp_and_fast_path);
	RUN(executed_flops_and_plausibility);
	RUN(autocast_fp32_stream);
	RUN(fsdp2_local_copies);
	RUN(ddp_bucket_copies);
	RUN(sustained_clock);
	RUN(sku_gemm_share);
	RUN(sustained_catalog_errors);
	return pp_t_done("test_framework");
}
