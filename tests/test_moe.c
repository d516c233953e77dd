/*
 * test_moe.c - mixture-of-experts layers and expert parallelism in the step
 * engine, against values derived without it:
 *  - parameter counts of Mixtral 8x7B (46.7B total, 12.9B active: Mistral's
 *    announcement) and DeepSeek-V3 (671B / 37B: its report, Table 1 of the
 *    README), by the architecture's formula and within 2% of the cards;
 *  - the dispatch all-to-all's size: T k h bytes per rank (Mixtral: 4096
 *    tokens x 2 x 4096 x 2 bytes = 67.1 MB), and a local expert's rows
 *    T k EP / E;
 *  - physics: more load imbalance never speeds a step; an EP group that
 *    leaves the node is slower than one inside it; dropping tokens at a
 *    capacity factor below the imbalance is faster than dropless; an MTP
 *    depth is slower than none;
 *  - the fast path equals the event simulation on MoE layouts (EP, expert
 *    TP, both dispatchers, shared experts with overlap, leading dense
 *    layers, ZeRO-1's gathers, interleaved pipelines, sliding windows,
 *    Megatron-Core's combined 1F1B EP overlap, an MTP depth);
 *  - --overlap-moe-expert-parallel-comm: the paired share of units from
 *    Megatron's warm-up counts, an all-to-all shorter than the compute it
 *    runs beside hidden whole (at the overlap efficiency), one longer than
 *    it hidden in part, a faster step;
 *  - DualPipe's overlapped pairs (DualPipeV, and DualPipe on 2 ranks):
 *    the paired share counted by hand from dualpipev.py's (dualpipe.py's)
 *    eight steps, every all-to-all hidden where
 *    the compute beside it is longer (no overlap efficiency on top), the
 *    compute of a pair slowed by SMs / (SMs - comm SMs) exactly, more SMs
 *    for communication never a faster step, the fast path still equal.
 *  - DeepSeek-V3's memory measures (report Sec. 3.2.3, 3.3): an MoE
 *    layer's kept activations with the RMSNorms, MLA's up-projections and
 *    the SwiGLU recomputed and linear inputs in FP8 less by the bytes each
 *    drops, counted by hand; bf16 Adam moments halve the moments' bytes;
 *    the keys refused where they do not apply.
 * The model fields are set on parsed dense scenarios here; the scenario
 * keys and presets have their own tests.
 */
#include "calib/replayplan.h"
#include "calib/replaysim.h"
#include "engine/fastpath.h"
#include "engine/memory.h"
#include "engine/predict.h"
#include "engine/stepcost.h"
#include "engine/workload.h"
#include "harness.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Mixtral 8x7B (config.json of mistralai/Mixtral-8x7B-v0.1): 32 layers,
 * hidden 4096, 32 heads, 8 KV heads, 8 experts of 14336, top-2, vocabulary
 * 32000, untied. */
#define MIXTRAL_DENSE "\"model\": {\"num_layers\": 32, \"hidden_size\": 4096, " \
	"\"num_attention_heads\": 32, \"num_query_groups\": 8, \"ffn_hidden_size\": 14336, " \
	"\"vocab_size\": 32000, \"seq_length\": 4096, \"swiglu\": true, " \
	"\"untie_embeddings_and_output_weights\": true}, "

static void make_mixtral(pp_model *m)
{
	m->num_experts = 8;
	m->moe_router_topk = 2;
	m->moe_ffn_hidden_size = 14336;
	m->moe_layer_freq = 1;
}

/* DeepSeek-V3 (its inference config_671B.json): 61 layers, the first 3
 * dense (18432), 256 routed experts of 2048, top-8, one shared expert of
 * 2048, hidden 7168, 128 heads of MLA (q_lora 1536, kv_lora 512, 128 + 64
 * RoPE for Q.K, 128 for V), vocabulary 129280, untied. */
static void make_dsv3(pp_model *m)
{
	memset(m, 0, sizeof(*m));
	m->num_layers = 61;
	m->hidden_size = 7168;
	m->num_attention_heads = 128;
	m->num_query_groups = 128;
	m->ffn_hidden_size = 18432;
	m->vocab_size = 129280;
	m->seq_length = 4096;
	m->swiglu = true;
	m->multi_latent_attention = true;
	m->q_lora_rank = 1536;
	m->kv_lora_rank = 512;
	m->qk_head_dim = 128;
	m->qk_pos_emb_head_dim = 64;
	m->v_head_dim = 128;
	m->num_experts = 256;
	m->moe_router_topk = 8;
	m->moe_ffn_hidden_size = 2048;
	m->moe_shared_expert_intermediate_size = 2048;
	m->moe_list_len = 61;
	for (int i = 0; i < 61; i++)
		m->moe_list[i] = i >= 3;
}

static void param_counts(void)
{
	pp_scenario s;
	pp_hw hw;
	if (tu_scenario("{" MIXTRAL_DENSE "\"training\": {\"global_batch_size\": 8}, "
			"\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8}}", &s, &hw)) {
		CHECK(0);
		return;
	}
	make_mixtral(&s.model);
	/* by hand: attention 4096 x (4096 + 2048) + 4096^2, experts 8 x 3 x 4096
	 * x 14336, router 4096 x 8, two norms; embeddings and output untied */
	double h = 4096, layer = h * (h + 2048) + h * h + 8 * 3 * h * 14336 + h * 8 + 2 * h;
	double total = 32 * layer + 2 * 32000 * h + h;
	CHECK_NEAR(pp_model_params(&s.model), total, 1e-12);
	CHECK_NEAR(pp_model_params(&s.model), 46.7e9, 0.02);
	CHECK_NEAR(pp_model_params_active(&s.model), 12.9e9, 0.02);
	pp_model d;
	make_dsv3(&d);
	CHECK_NEAR(pp_model_params(&d), 671e9, 0.02);
	CHECK_NEAR(pp_model_params_active(&d), 37e9, 0.02);
	pp_scenario_release(&s);
}

/* The Mixtral layout on 8 GPUs: TP 1, EP `ep` over the 8 data-parallel ranks. */
static int mixtral(pp_scenario *s, pp_hw *hw, int gpus, const char *extra, int ep)
{
	char js[2048];
	snprintf(js, sizeof(js), "{" MIXTRAL_DENSE "\"training\": {\"global_batch_size\": %d%s}, "
		 "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": %d}}", gpus, extra, gpus);
	if (tu_scenario(js, s, hw))
		return -1;
	make_mixtral(&s->model);
	s->parallel.ep = ep;
	s->training.moe_token_dispatcher = PP_MOE_ALLTOALL;
	return 0;
}

static const pp_op *op_named(const pp_workload *w, const char *name, int phase)
{
	for (int i = 0; i < w->nops; i++)
		if (!strcmp(w->ops[i].name, name) && (int)w->ops[i].phase == phase)
			return &w->ops[i];
	return NULL;
}

static void dispatch_sizes(void)
{
	pp_scenario s;
	pp_hw hw;
	if (mixtral(&s, &hw, 8, "", 8)) {
		CHECK(0);
		return;
	}
	pp_workload w;
	pp_workload_build(&w, &s, &hw);
	const pp_op *a2a = op_named(&w, "ep.dispatch", PP_PH_FWD);
	CHECK(a2a && a2a->ep);
	if (a2a)
		CHECK_NEAR(a2a->bytes, 4096.0 * 2 * 4096 * 2, 1e-12);
	/* one local expert of 8 on each of 8 ranks: T k EP / E = 8192 rows */
	const pp_op *fc1 = op_named(&w, "experts.fc1", PP_PH_FWD);
	CHECK(fc1 && fc1->m == 8192 && fc1->batch == 1 && fc1->n == 2 * 14336);
	CHECK(w.lk[PP_LK_MOE].count == 32 && w.lk[0].count == 0);
	/* per GPU: one expert's 3 x 4096 x 14336 and everything dense */
	CHECK_NEAR(w.lk[PP_LK_MOE].expert_params, 3.0 * 4096 * 14336, 1e-12);
	pp_workload_release(&w);
	pp_result r;
	pp_err err = {0};
	CHECK(pp_predict(&s, &hw, NULL, &r, &err) == 0);
	CHECK(r.breakdown.ep_comm_exposed_s > 0);
	CHECK_NEAR(r.params_active, pp_model_params_active(&s.model), 1e-12);
	pp_scenario_release(&s);
}

static double step_of(pp_scenario *s, pp_hw *hw)
{
	pp_result r;
	pp_err err = {0};
	if (pp_predict(s, hw, NULL, &r, &err)) {
		pp_t_diag("%s", err.msg);
		return -1;
	}
	return r.step_time_s;
}

static void physics(void)
{
	pp_scenario s;
	pp_hw hw;
	if (mixtral(&s, &hw, 16, "", 8)) {
		CHECK(0);
		return;
	}
	double prev = 0;
	for (double imb = 1.0; imb <= 2.0; imb += 0.25) {
		s.training.moe_load_imbalance = imb;
		double t = step_of(&s, &hw);
		CHECK(t >= prev);
		prev = t;
	}
	/* capacity 1.0 below an imbalance of 1.5: tokens dropped, less work */
	s.training.moe_load_imbalance = 1.5;
	double dropless = step_of(&s, &hw);
	s.training.moe_expert_capacity_factor = 1.0;
	CHECK(step_of(&s, &hw) < dropless);
	s.training.moe_expert_capacity_factor = 0;
	/* a multi-token-prediction depth: one more layer and head of work */
	s.model.mtp_num_layers = 1;
	CHECK(step_of(&s, &hw) > dropless);
	s.model.mtp_num_layers = 0;
	/* the same dispatch inside a node (EP 8) and over two (EP 16): the
	 * remote half through each GPU's own NIC is slower than NVLink */
	s.training.moe_load_imbalance = 1.0;
	s.model.num_experts = 16;
	pp_workload w;
	pp_workload_build(&w, &s, &hw);
	const pp_op *o = op_named(&w, "ep.dispatch", PP_PH_FWD);
	double inside = o ? o->time_s : 0;
	pp_workload_release(&w);
	s.parallel.ep = 16;
	pp_workload_build(&w, &s, &hw);
	o = op_named(&w, "ep.dispatch", PP_PH_FWD);
	CHECK(o && o->group.n == 16 && o->group.per_node == 8 && o->time_s > 2 * inside);
	pp_workload_release(&w);
	pp_scenario_release(&s);
}

static void check_fast(pp_scenario *s, pp_hw *hw, const char *what)
{
	pp_result r;
	pp_err err = {0};
	if (pp_predict(s, hw, NULL, &r, &err)) {
		pp_t_diag("%s: %s", what, err.msg);
		CHECK(0);
		return;
	}
	pp_fp_cache *c = pp_fp_cache_new();
	pp_workload w;
	pp_fp_workload(c, s, hw, &w);
	int64_t fp = pp_fp_step_ns(s, hw, &w);
	if (fp != llround(r.step_time_s * 1e9))
		pp_t_diag("%s: fast path %lld ns, event simulation %.0f ns", what, (long long)fp,
			  r.step_time_s * 1e9);
	CHECK(fp == llround(r.step_time_s * 1e9));
	CHECK(pp_fp_bound_ns(s, hw, &w) <= fp);
	pp_fp_cache_free(c);
}

static void fast_path(void)
{
	struct {
		const char *what, *extra, *parallel;
		int gpus, ep, etp, dispatcher, shared, zero1, first_dense;
		int overlap; /* 1: overlap_moe_expert_parallel_comm, 2: and delay_wgrad_compute */
	} cases[] = {
		{"ep8 alltoall", "", "", 8, 8, 0, PP_MOE_ALLTOALL, 0, 0, 0, 0},
		{"ep4 allgather", "", "", 8, 4, 0, PP_MOE_ALLGATHER, 0, 0, 0, 0},
		{"tp2 sp ep4 etp1 shared overlap", "", "\"tensor_model_parallel_size\": 2, "
		 "\"sequence_parallel\": true", 8, 4, 1, PP_MOE_ALLTOALL, 1, 0, 0, 0},
		{"tp2 sp ep2 etp2", "", "\"tensor_model_parallel_size\": 2, \"sequence_parallel\": true",
		 8, 2, 2, PP_MOE_ALLTOALL, 0, 0, 0, 0},
		{"pp2 ep4 zero1 first dense", "", "\"pipeline_model_parallel_size\": 2, \"zero_stage\": 1",
		 16, 4, 0, PP_MOE_ALLTOALL, 1, 1, 2, 0},
		{"pp2 vpp2 ep8 no overlap", ", \"overlap_grad_reduce\": false",
		 "\"pipeline_model_parallel_size\": 2, \"virtual_pipeline_model_parallel_size\": 2, "
		 "\"zero_stage\": 1", 32, 8, 0, PP_MOE_ALLTOALL, 0, 1, 1, 0},
		{"ep8 combined 1f1b", "", "", 8, 8, 0, PP_MOE_ALLTOALL, 0, 0, 0, 1},
		{"pp2 layout ep8 combined 1f1b", "",
		 "\"pipeline_model_parallel_size\": 2, \"pipeline_model_parallel_layout\": "
		 "\"E(t)*9|(t)*7|(t)*8|(t)*8L\", \"zero_stage\": 1", 32, 8, 0, PP_MOE_ALLTOALL, 0, 1, 0,
		 1},
		{"pp2 vpp2 ep8 combined 1f1b delayed wgrad", "",
		 "\"pipeline_model_parallel_size\": 2, \"virtual_pipeline_model_parallel_size\": 2, "
		 "\"zero_stage\": 1", 32, 8, 0, PP_MOE_ALLTOALL, 0, 1, 1, 2},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char js[2048];
		snprintf(js, sizeof(js), "{" MIXTRAL_DENSE "\"training\": {\"global_batch_size\": %d%s}, "
			 "\"parallel\": {%s}, \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": %d}}",
			 2 * cases[i].gpus, cases[i].extra, cases[i].parallel, cases[i].gpus);
		pp_scenario s;
		pp_hw hw;
		if (tu_scenario(js, &s, &hw)) {
			CHECK(0);
			continue;
		}
		make_mixtral(&s.model);
		s.parallel.ep = cases[i].ep;
		s.parallel.etp = cases[i].etp;
		s.training.moe_token_dispatcher = cases[i].dispatcher;
		s.training.moe_load_imbalance = 1.2;
		if (cases[i].shared) {
			s.model.moe_shared_expert_intermediate_size = 4096;
			s.training.moe_shared_expert_overlap = true;
		}
		s.training.overlap_moe_expert_parallel_comm = cases[i].overlap > 0;
		s.training.delay_wgrad_compute = cases[i].overlap > 1;
		if (cases[i].first_dense) {
			s.model.moe_list_len = 32;
			for (int l = 0; l < 32; l++)
				s.model.moe_list[l] = l >= cases[i].first_dense;
		}
		check_fast(&s, &hw, cases[i].what);
		/* and with gpt-oss-style windows on every other layer */
		s.model.window = 128;
		s.model.window_freq = 2;
		check_fast(&s, &hw, cases[i].what);
		/* and with a multi-token-prediction depth on the last stage */
		s.model.mtp_num_layers = 1;
		check_fast(&s, &hw, cases[i].what);
		pp_scenario_release(&s);
	}
}

/* --overlap-moe-expert-parallel-comm. The paired share: without a pipeline
 * M - 1 of M forwards; P 2, V 2, M 4: stage 0 runs 2 + 2 + 1 = 5 of its 8
 * units alone, stage 1 0 + 2 + 1 = 3, so 1 - 8 / 16 = 1/2. Mixtral at EP 8
 * inside a node: every all-to-all (about 0.2 ms) is shorter than the
 * compute it is paired with (attention, the experts' GEMMs), so the pair
 * hides all of them at the overlap efficiency; the step is faster than
 * without. At EP 16 over two nodes with small experts (FFN 1024) the
 * all-to-alls are longer than the experts' GEMMs beside them: less than
 * all of them is hidden. */
static void ep_overlap(void)
{
	pp_scenario s;
	pp_hw hw;
	if (mixtral(&s, &hw, 8, "", 8)) {
		CHECK(0);
		return;
	}
	s.training.num_microbatches = 4;
	s.training.overlap_moe_expert_parallel_comm = true;
	CHECK_NEAR(pp_stepcost_pair_share(&s), 3.0 / 4, 1e-12);
	s.parallel.pp = 2;
	s.parallel.vpp = 2;
	CHECK_NEAR(pp_stepcost_pair_share(&s), 0.5, 1e-12);
	s.parallel.pp = 1;
	s.parallel.vpp = 1;
	s.training.num_microbatches = 1;
	s.training.overlap_moe_expert_parallel_comm = false;
	CHECK(pp_stepcost_pair_share(&s) == 0);

	double serial = step_of(&s, &hw);
	pp_workload w;
	pp_workload_build(&w, &s, &hw);
	double ep_s = 0;
	int k = -1;
	for (int i = 0; i < w.nops; i++)
		if (w.ops[i].kind == PP_OP_COMM && w.ops[i].ep && w.ops[i].phase != PP_PH_RECOMPUTE) {
			ep_s += w.ops[i].time_s;
			k = w.ops[i].layer_kind;
		}
	CHECK(k >= 0 && w.lk[k].ep_pair_save_fwd_s == 0 && w.lk[k].ep_pair_save_bwd_s == 0);
	pp_workload_release(&w);
	s.training.overlap_moe_expert_parallel_comm = true;
	pp_workload_build(&w, &s, &hw);
	if (k >= 0) {
		const pp_layer_cost *l = &w.lk[k];
		CHECK_NEAR(l->ep_pair_save_fwd_s + l->ep_pair_save_bwd_s, hw.overlap_eff * ep_s, 1e-12);
		CHECK(l->ep_pair_save_fwd_s > 0 && l->ep_pair_save_bwd_s > 0);
	}
	pp_workload_release(&w);
	/* one micro-batch: nothing to pair, the same step */
	CHECK_NEAR(step_of(&s, &hw), serial, 1e-9);
	s.training.global_batch_size = 64;
	s.training.num_microbatches = 8;
	s.training.overlap_moe_expert_parallel_comm = false;
	serial = step_of(&s, &hw);
	s.training.overlap_moe_expert_parallel_comm = true;
	double paired = step_of(&s, &hw);
	CHECK(paired < serial);
	pp_workload_build(&w, &s, &hw);
	pp_stepcost c;
	pp_stepcost_init(&c, &s, &hw, &w, NULL);
	/* per micro-batch per layer, the share of the pairs' saving */
	double hidden = (serial - paired) / (8.0 * 32);
	CHECK(hidden <= hw.overlap_eff * ep_s + 1e-9);
	CHECK(c.pair_share > 0.87 && c.pair_share < 0.88); /* 7 / 8 */
	pp_stepcost_release(&c);
	pp_workload_release(&w);
	/* EP 16 over two nodes: all-to-alls longer than the compute beside them */
	pp_scenario_release(&s);
	if (mixtral(&s, &hw, 16, "", 16)) {
		CHECK(0);
		return;
	}
	s.model.num_experts = 16;
	s.model.moe_ffn_hidden_size = 1024;
	s.training.overlap_moe_expert_parallel_comm = true;
	pp_workload_build(&w, &s, &hw);
	ep_s = 0;
	for (int i = 0; i < w.nops; i++)
		if (w.ops[i].kind == PP_OP_COMM && w.ops[i].ep && w.ops[i].phase != PP_PH_RECOMPUTE) {
			ep_s += w.ops[i].time_s;
			k = w.ops[i].layer_kind;
		}
	double save = w.lk[k].ep_pair_save_fwd_s + w.lk[k].ep_pair_save_bwd_s;
	CHECK(save > 0 && save < hw.overlap_eff * ep_s);
	pp_workload_release(&w);
	pp_scenario_release(&s);
}

/* DualPipeV on 2 ranks, 8 micro-batches (deepseek-ai/DualPipe
 * dualpipev.py): rank 0 runs 2 + 2 + 1 forwards alone (steps 1-3), then
 * 5 x 2 overlapped pairs (step 4) and 1 (step 5); rank 1, the V's middle,
 * runs its first step-4 forward and backward apart, then 1 + 5 x 2 pairs.
 * Each rank runs 32 forwards and backwards, 22 of them paired: a share of
 * 44 / 64. Mixtral at EP 4 inside a node: every all-to-all is shorter than
 * the compute beside it, so the pair hides it whole. With 20 of the SMs
 * held for the all-to-alls every compute segment of the pair takes
 * n / (n - 20) as long. */
static void dualpipe_overlap(void)
{
	pp_scenario s;
	pp_hw hw;
	if (mixtral(&s, &hw, 8, "", 4)) {
		CHECK(0);
		return;
	}
	s.parallel.pp = 2;
	s.parallel.vpp = 2;
	s.parallel.dp = 4;
	s.parallel.schedule = PP_SCHED_DUALPIPEV;
	s.training.global_batch_size = 32;
	s.training.num_microbatches = 8;
	CHECK_NEAR(pp_stepcost_pair_share(&s), 44.0 / 64, 1e-12);
	s.training.moe_ep_comm_sms = 0;
	pp_workload w;
	pp_workload_build(&w, &s, &hw);
	double ep_s = 0;
	int k = -1;
	for (int i = 0; i < w.nops; i++)
		if (w.ops[i].kind == PP_OP_COMM && w.ops[i].ep && w.ops[i].phase != PP_PH_RECOMPUTE) {
			ep_s += w.ops[i].time_s;
			k = w.ops[i].layer_kind;
		}
	CHECK(k >= 0 && ep_s > 0);
	if (k < 0) {
		pp_workload_release(&w);
		pp_scenario_release(&s);
		return;
	}
	const pp_dual_pair *d = &w.lk[k].dual;
	CHECK_NEAR(d->hide_fwd_s + d->hide_bwd_s, ep_s, 1e-12);
	CHECK(d->slow_fwd_s == 0 && d->slow_bwd_s == 0);
	double comp = w.lk[k].cost.fwd.compute_s + w.lk[k].cost.bwd.compute_s;
	pp_workload_release(&w);
	check_fast(&s, &hw, "dualpipev ep4");
	double t0 = step_of(&s, &hw);
	s.training.moe_ep_comm_sms = 20;
	pp_workload_build(&w, &s, &hw);
	d = &w.lk[k].dual;
	double x = (double)hw.sm_count / (hw.sm_count - 20);
	CHECK_NEAR(d->slow_fwd_s + d->slow_bwd_s, (x - 1) * comp, 1e-9);
	CHECK_NEAR(d->hide_fwd_s + d->hide_bwd_s, ep_s, 1e-12);
	pp_workload_release(&w);
	check_fast(&s, &hw, "dualpipev ep4, 20 SMs");
	double t20 = step_of(&s, &hw);
	s.training.moe_ep_comm_sms = 40;
	double t40 = step_of(&s, &hw);
	CHECK(t0 > 0 && t0 < t20 && t20 < t40);
	/* DualPipe itself on the same 2 ranks (dualpipe.py: 4 micro-batches
	 * each way, half_rank 0 of 1 on both, a middle rank): F0 F1, then
	 * F0 and B1 apart, F1&B0, 2 x (F0&B1, F1&B0), B1 B0, W; 16 forwards
	 * and backwards a rank, 10 paired; the fast path still equals the
	 * event simulation */
	s.parallel.schedule = PP_SCHED_DUALPIPE;
	s.training.moe_ep_comm_sms = 20;
	CHECK_NEAR(pp_stepcost_pair_share(&s), 20.0 / 32, 1e-12);
	check_fast(&s, &hw, "dualpipe ep4, 20 SMs");
	/* 1F1B has no such pairs */
	s.parallel.schedule = PP_SCHED_1F1B;
	s.parallel.vpp = 1;
	CHECK(pp_stepcost_pair_share(&s) == 0);
	pp_scenario_release(&s);
}

/* DeepSeek-V3 at seq 4096, micro-batch 1, TP 1, fp8 (activations 2 bytes),
 * balanced routing: what each measure drops from an MoE layer (s = 4096
 * tokens, h = 7168; 32768 routed rows; SwiGLU inputs 2 x 2048 wide):
 *  layernorm: the two norms' outputs (the QKV and FC1 inputs), 2 s h x 2;
 *  mla_up_proj: Q, K, V (3 s h x 2) for the latents (s x 2048 x 2) and the
 *    RoPE key (s x 64 x 2);
 *  moe_act: the SwiGLU outputs, s x 2048 x 2 (shared) + 32768 x 2048 x 2;
 *  fp8_activation_cache on top: every kept linear input and SwiGLU input
 *    a byte instead of 2: the latents (s x 2048), the shared SwiGLU input
 *    (s x 4096), the routed token copies (32768 x 7168) and SwiGLU inputs
 *    (32768 x 4096). */
static void memory_measures(void)
{
	const char *js = "{\"model\": {\"preset\": \"deepseek-v3\", \"seq_length\": 4096}, "
			 "\"training\": {\"global_batch_size\": 64, \"precision\": \"fp8\", "
			 "\"moe_load_imbalance\": 1.0%s}, "
			 "\"parallel\": {\"pipeline_model_parallel_size\": 1, "
			 "\"expert_model_parallel_size\": 64}, "
			 "\"cluster\": {\"gpu\": \"h800\", \"num_gpus\": 64}}";
	const char *extra[] = {
		"",
		", \"recompute_modules\": [\"layernorm\"]",
		", \"recompute_modules\": [\"mla_up_proj\"]",
		", \"recompute_modules\": [\"moe_act\"]",
		", \"recompute_modules\": [\"layernorm\", \"mla_up_proj\", \"moe_act\"], "
		"\"fp8_activation_cache\": true",
	};
	double S = 4096, H = 7168, R = 32768;
	double drop[] = {0, 2 * S * H * 2, 3 * S * H * 2 - S * 2048 * 2 - S * 64 * 2,
			 S * 2048 * 2 + R * 2048 * 2, 0};
	drop[4] = drop[1] + drop[2] + drop[3] + S * 2048 + S * 4096 + R * 7168 + R * 4096;
	double base = 0;
	for (size_t i = 0; i < PP_ARRAY_LEN(extra); i++) {
		char buf[1200];
		snprintf(buf, sizeof(buf), js, extra[i]);
		pp_scenario s;
		pp_hw hw;
		if (tu_scenario(buf, &s, &hw)) {
			CHECK(0);
			continue;
		}
		double a = pp_layer_activation_bytes_kind(&s, PP_LK_MOE);
		if (i == 0)
			base = a;
		else
			CHECK_NEAR(base - a, drop[i], 1e-9);
		pp_scenario_release(&s);
	}
	/* bf16 moments: 12 bytes a parameter (fp32 master, m, v) become 8 */
	const char *dt = ", \"exp_avg_dtype\": \"bf16\", \"exp_avg_sq_dtype\": \"bf16\"";
	double ob[2];
	for (int i = 0; i < 2; i++) {
		char buf[1200];
		snprintf(buf, sizeof(buf), js, i ? dt : "");
		pp_scenario s;
		pp_hw hw;
		pp_workload w;
		pp_memory m;
		if (tu_scenario(buf, &s, &hw)) {
			CHECK(0);
			return;
		}
		pp_workload_build(&w, &s, &hw);
		pp_memory_estimate(&s, &hw, &w, &m);
		ob[i] = m.optimizer_bytes;
		pp_workload_release(&w);
		pp_scenario_release(&s);
	}
	CHECK_NEAR(ob[1] / ob[0], 8.0 / 12, 1e-12);
	/* refused: FP8 caching without FP8 training, mla_up_proj without MLA */
	pp_scenario s;
	pp_hw hw;
	char buf[1200];
	snprintf(buf, sizeof(buf), "{\"model\": {\"preset\": \"deepseek-v3\"}, \"training\": "
		 "{\"global_batch_size\": 64, \"fp8_activation_cache\": true}, \"parallel\": "
		 "{\"expert_model_parallel_size\": 64}, \"cluster\": {\"gpu\": \"h800\", "
		 "\"num_gpus\": 64}}");
	CHECK(tu_scenario(buf, &s, &hw) != 0);
	CHECK(tu_scenario("{\"model\": {\"preset\": \"gpt-1.7b\"}, \"training\": "
			  "{\"global_batch_size\": 8, \"recompute_modules\": [\"mla_up_proj\"]}, "
			  "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8}}", &s, &hw) != 0);
	CHECK(tu_scenario("{\"model\": {\"preset\": \"gpt-1.7b\"}, \"training\": "
			  "{\"global_batch_size\": 8, \"recompute\": \"full\", "
			  "\"recompute_modules\": [\"layernorm\"]}, "
			  "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8}}", &s, &hw) != 0);
}

/* The replay plan of an EP=2 step on 2 GPUs: every layer's dispatch and
 * combine (forward and backward) as all-to-alls over the EP communicator,
 * of T k h bytes each, and the plan on paper equal to the event
 * simulation (overlap_eff 1: no slowdown tasks, which the plan omits). */
/* Qwen3-30B-A3B (hidden 2048, 32 query heads x 128 = 4096 wide, 4 KV
 * groups x 128 = 512), seq 4096, micro-batch 1, TP 1, bf16, flash
 * attention, no recompute, balanced routing: an MoE layer keeps per token
 * (bytes; Megatron-Core/TE save for backward)
 *   the norms' inputs and outputs (the QKV and router/FC1 inputs): 4 x 2048 x 2
 *   Q, K, V for the attention core:             (4096 + 2 x 512) x 2
 *   the core's output, linear_proj's input:     4096 x 2
 *   the log-sum-exp, fp32 per head:             32 x 4
 *   the routed experts, 8 rows a token: token copies 2048 x 2, fc1's
 *   SwiGLU output 2 x 768 x 2 and fc2's input 768 x 2; the router's fp32
 *   scores 128 x 4.
 * Sized at the hidden width (Q 2048, K and V 256, the core output 2048)
 * the attention's part would be 4608 x 2 bytes a token short. */
static void memory_head_dim(void)
{
	pp_scenario s;
	pp_hw hw;
	if (tu_scenario("{\"model\": {\"preset\": \"qwen3-30b-a3b\"}, \"training\": "
			"{\"global_batch_size\": 64, \"micro_batch_size\": 1, \"precision\": \"bf16\", "
			"\"use_flash_attn\": true, \"recompute\": \"none\", "
			"\"moe_load_imbalance\": 1.0}, \"parallel\": {\"pipeline_model_parallel_size\": 1, "
			"\"expert_model_parallel_size\": 8}, \"cluster\": {\"gpu\": \"h100-sxm\", "
			"\"num_gpus\": 8}}", &s, &hw)) {
		CHECK(0);
		return;
	}
	double S = 4096, h = 2048;
	double per_token = 4 * h * 2 + (4096 + 2 * 512) * 2 + 4096 * 2 + 32 * 4 +
			   8 * (h * 2 + 2 * 768 * 2 + 768 * 2) + 128 * 4;
	CHECK_NEAR(pp_layer_activation_bytes_kind(&s, PP_LK_MOE), S * per_token, 1e-12);
	pp_scenario_release(&s);
}

static void replay_plan(void)
{
	pp_scenario s;
	pp_hw hw;
	if (tu_scenario("{\"model\": {\"num_layers\": 2, \"hidden_size\": 1024, "
			"\"num_attention_heads\": 8, \"ffn_hidden_size\": 2048, \"vocab_size\": 32000, "
			"\"seq_length\": 1024, \"swiglu\": true}, \"training\": {\"framework\": \"podplan-replay\", \"global_batch_size\": 4, "
			"\"use_flash_attn\": false}, \"cluster\": {\"gpu\": \"h200\", \"num_gpus\": 2}}",
			&s, &hw)) {
		CHECK(0);
		return;
	}
	s.model.num_experts = 4;
	s.model.moe_router_topk = 2;
	s.model.moe_ffn_hidden_size = 2048;
	s.model.moe_layer_freq = 1;
	s.parallel.ep = 2;
	s.training.moe_token_dispatcher = PP_MOE_ALLTOALL;
	s.training.moe_grouped_gemm = true;
	hw.overlap_eff = 1.0;
	pp_rplan p;
	pp_err err = {0};
	int rc = pp_rplan_build(&p, &s, &hw, NULL, &err);
	if (rc)
		pp_t_diag("%s", err.msg);
	CHECK(rc == 0);
	if (rc) {
		pp_scenario_release(&s);
		return;
	}
	int a2a = 0;
	for (int i = 0; i < p.gpu[0].nins; i++) {
		const pp_rinstr *r = &p.gpu[0].ins[i];
		if (r->kind == PP_RI_COLL && r->coll == PP_COLL_ALL_TO_ALL) {
			a2a++;
			CHECK(!strncmp(p.comms[r->comm].name, "ep ", 3) && p.comms[r->comm].n == 2);
			CHECK_NEAR(r->bytes, 1024.0 * 2 * 1024 * 2, 1e-12);
		}
	}
	/* 2 micro-batches x 2 layers x (dispatch, combine) x (forward, backward) */
	CHECK(a2a == 2 * 2 * 2 * 2);
	double paper = 0;
	CHECK(pp_rplan_simulate(&p, &paper, &err) == 0);
	CHECK_NEAR(paper, p.des_step_s, 1e-6); /* ops unrounded, tasks to the ns */
	pp_rplan_release(&p);
	pp_scenario_release(&s);
}

int main(void)
{
	RUN(param_counts);
	RUN(dispatch_sizes);
	RUN(physics);
	RUN(fast_path);
	RUN(ep_overlap);
	RUN(dualpipe_overlap);
	RUN(memory_measures);
	RUN(memory_head_dim);
	RUN(replay_plan);
	return pp_t_done("test_moe");
}
