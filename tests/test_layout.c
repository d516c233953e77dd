/*
 * test_layout.c - a parallel layout's validity and derived sizes
 * (input/layout.h), called directly as search and the cost options call
 * it: a Llama-3-8B-shaped model (32 layers, hidden 4096, 32 heads, 8 KV
 * groups, FFN 14336, sequence 8192; the Llama 3 paper's Table 3) on H100
 * nodes of 8, and an MoE variant (8 experts, top 2). Every expected count
 * and key below is worked out by hand from Megatron-LM's rules that
 * layout.h cites.
 */
#include "harness.h"
#include "input/layout.h"
#include "testutil.h"

#include <string.h>

static pp_model llama8b(void)
{
	pp_model m = {0};
	m.num_layers = 32;
	m.hidden_size = 4096;
	m.num_attention_heads = 32;
	m.num_query_groups = 8;
	m.ffn_hidden_size = 14336;
	m.vocab_size = 128256;
	m.seq_length = 8192;
	m.swiglu = true;
	return m;
}

static pp_model moe8(void)
{
	pp_model m = llama8b();
	m.num_experts = 8;
	m.moe_router_topk = 2;
	m.moe_ffn_hidden_size = 14336;
	m.moe_layer_freq = 1;
	return m;
}

/* 64 H100s in nodes of 8; TP 4 x PP 2 x DP 8, micro-batch 1, global 64. */
typedef struct fix {
	pp_model m;
	pp_training t;
	pp_parallel p;
	pp_cluster c;
} fix;

static fix base(void)
{
	fix f;
	memset(&f, 0, sizeof(f));
	f.m = llama8b();
	f.t.global_batch_size = 64;
	f.t.micro_batch_size = 1;
	f.t.precision = PP_DT_BF16;
	f.p.tp = 4;
	f.p.pp = 2;
	f.p.dp = 8;
	f.p.cp = 1;
	f.p.vpp = 1;
	f.p.ep = 1;
	f.p.schedule = PP_SCHED_1F1B;
	f.c.gpu = pp_catalog_gpu(tu_catalog(), "h100-sxm");
	f.c.num_gpus = 64;
	f.c.gpus_per_node = 8;
	return f;
}

/* Check f; returns the key of the rule it breaks ("" when valid). */
static const char *check(const fix *f)
{
	const char *key = NULL;
	char why[512] = "";
	int rc = pp_layout_check(&f->m, &f->t, &f->p, &f->c, &key, why, sizeof(why));
	if (rc == 0)
		return "";
	CHECK(rc == PP_EINPUT);
	CHECK(why[0] != 0);
	return key ? key : "(null)";
}

static void valid_layout(void)
{
	CHECK(pp_catalog_gpu(tu_catalog(), "h100-sxm") != NULL);
	fix f = base();
	CHECK(!strcmp(check(&f), ""));
	/* TP 8 > 8 KV groups is a multiple of them: Megatron replicates */
	f.p.tp = 8;
	f.p.dp = 4;
	CHECK(!strcmp(check(&f), ""));
	/* interleaved: 2 stages x 4 chunks of 4 layers, 64 / (1 x 4) = 16
	 * micro-batches, a multiple of the 2 stages */
	f.p.vpp = 4;
	f.p.schedule = PP_SCHED_INTERLEAVED;
	CHECK(!strcmp(check(&f), ""));
}

static void broken_rules_name_their_key(void)
{
	fix f = base();
	f.p.tp = 3; /* 32 heads % 3 */
	f.p.dp = 1;
	CHECK(!strcmp(check(&f), "parallel.tensor_model_parallel_size"));
	f = base();
	f.p.dp = 4; /* 4 x 2 x 4 = 32 GPUs of 64 */
	CHECK(!strcmp(check(&f), "parallel"));
	f = base();
	f.p.pp = 64; /* more stages than the 32 layers */
	f.p.tp = 1;
	f.p.dp = 1;
	CHECK(!strcmp(check(&f), "parallel.pipeline_model_parallel_size"));
	f = base();
	f.t.global_batch_size = 60; /* not a multiple of 1 x 8 */
	CHECK(!strcmp(check(&f), "training.global_batch_size"));
	f = base();
	f.p.cp = 2;
	f.p.dp = 4;
	f.m.seq_length = 8190; /* not a multiple of 2 x cp = 4 */
	CHECK(!strcmp(check(&f), "parallel.context_parallel_size"));
	f = base();
	f.p.pp = 1;
	f.p.dp = 16;
	f.p.vpp = 2; /* interleaving without a pipeline */
	CHECK(!strcmp(check(&f), "parallel.virtual_pipeline_model_parallel_size"));
	f = base();
	f.p.vpp = 2;
	f.p.schedule = PP_SCHED_INTERLEAVED;
	f.t.global_batch_size = 8; /* 8 / 8 = 1 micro-batch, not a multiple of PP 2 */
	CHECK(!strcmp(check(&f), "parallel.virtual_pipeline_model_parallel_size"));
	f = base();
	f.p.schedule = PP_SCHED_INTERLEAVED; /* with vpp 1 */
	CHECK(!strcmp(check(&f), "parallel.pipeline_schedule"));
	f = base();
	f.c.num_gpus = 60; /* 60 on nodes of 8 */
	f.p.dp = 15;
	f.p.pp = 1;
	f.t.global_batch_size = 60;
	CHECK(!strcmp(check(&f), "cluster.num_gpus"));
	f = base();
	f.p.first_stage_layers = 10; /* with 2 stages: the other takes 22 */
	CHECK(!strcmp(check(&f), ""));
	f.p.vpp = 4; /* 10 layers in 4 chunks */
	f.p.schedule = PP_SCHED_INTERLEAVED;
	CHECK(!strcmp(check(&f), "parallel.virtual_pipeline_model_parallel_size"));
}

static void heads_rule_alone(void)
{
	pp_model m = llama8b();
	pp_parallel p = {0};
	const char *key = NULL;
	char why[256];
	p.tp = 16;
	CHECK(pp_layout_check_heads(&m, &p, &key, why, sizeof(why)) == 0);
	p.tp = 6;
	CHECK(pp_layout_check_heads(&m, &p, &key, why, sizeof(why)) == PP_EINPUT);
	CHECK(key && !strcmp(key, "parallel.tensor_model_parallel_size"));
	CHECK_CONTAINS(why, "num_attention_heads = 32");
}

static void moe_rules(void)
{
	fix f = base();
	f.m = moe8();
	f.p.sequence_parallel = true;
	f.p.ep = 4; /* ETP 4 (= TP) x EP 4 = 16 divides TP 4 x CP 1 x DP 8 = 32 */
	CHECK(!strcmp(check(&f), ""));
	CHECK(pp_parallel_etp(&f.p) == 4);
	CHECK(pp_parallel_edp(&f.p) == 2); /* 32 / 16 */
	f.p.ep = 3; /* 8 experts % 3 */
	CHECK(!strcmp(check(&f), "parallel.expert_model_parallel_size"));
	f.p.ep = 8; /* 4 x 8 = 32 divides 32 */
	CHECK(!strcmp(check(&f), ""));
	f.p.etp = 2;
	CHECK(pp_parallel_edp(&f.p) == 2); /* 32 / (2 x 8) */
	f.p.etp = 0;
	f.p.sequence_parallel = false; /* MoE with TP needs SP */
	CHECK(!strcmp(check(&f), "parallel.sequence_parallel"));
	f.p.sequence_parallel = true;
	f.p.zero_stage = 2;
	CHECK(!strcmp(check(&f), "parallel.zero_stage"));
	/* a dense model with expert parallelism */
	f = base();
	f.p.ep = 2;
	CHECK(!strcmp(check(&f), "parallel.expert_model_parallel_size"));
}

static void derived_sizes(void)
{
	fix f = base();
	pp_layout_derive(&f.t, &f.p);
	CHECK(f.t.num_microbatches == 8); /* 64 / (1 x 8) */
	f.t.micro_batch_size = 2;
	pp_layout_derive(&f.t, &f.p);
	CHECK(f.t.num_microbatches == 4);
	char buf[64];
	CHECK(!strcmp(pp_parallel_schedule_text(&f.p, buf, sizeof(buf)), "1F1B"));
	f.p.vpp = 5;
	f.p.schedule = PP_SCHED_INTERLEAVED;
	CHECK(!strcmp(pp_parallel_schedule_text(&f.p, buf, sizeof(buf)),
		      "interleaved 1F1B, 5 virtual stages"));
	f.p.schedule = PP_SCHED_GPIPE;
	CHECK(!strcmp(pp_parallel_schedule_text(&f.p, buf, sizeof(buf)), "GPipe"));
	f.p.pp = 1;
	CHECK(!strcmp(pp_parallel_schedule_text(&f.p, buf, sizeof(buf)), ""));
}

int main(void)
{
	RUN(valid_layout);
	RUN(broken_rules_name_their_key);
	RUN(heads_rule_alone);
	RUN(moe_rules);
	RUN(derived_sizes);
	return pp_t_done("test_layout");
}
