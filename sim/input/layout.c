/* layout.c - see layout.h. */
#include "input/layout.h"
#include "input/scenario.h"

#include <stdio.h>

#include <strings.h>

const char *const pp_schedule_names[PP_SCHED_COUNT] = {"1f1b", "gpipe", "interleaved",
						       "zb-h1", "zbv", "dualpipev", "zb-h2",
						       "dualpipe"};

int pp_schedule_lookup(const char *name)
{
	static const struct {
		const char *name;
		pp_schedule s;
	} alias[] = {
		{"Schedule1F1B", PP_SCHED_1F1B},
		{"ScheduleGPipe", PP_SCHED_GPIPE},
		{"ScheduleInterleaved1F1B", PP_SCHED_INTERLEAVED},
		{"ScheduleZBVZeroBubble", PP_SCHED_ZBV},
		{"ScheduleDualPipeV", PP_SCHED_DUALPIPEV},
		{"ZB1P", PP_SCHED_ZBH1},
		{"zbh1", PP_SCHED_ZBH1},
		{"ZB2P", PP_SCHED_ZBH2},
		{"zbh2", PP_SCHED_ZBH2},
		{"zb-v", PP_SCHED_ZBV},
		{"DualPipe", PP_SCHED_DUALPIPE},
	};
	for (int i = 0; i < PP_SCHED_COUNT; i++)
		if (!strcasecmp(name, pp_schedule_names[i]))
			return i;
	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (!strcasecmp(name, alias[i].name))
			return (int)alias[i].s;
	return -1;
}

const char *pp_parallel_schedule_text(const pp_parallel *p, char *buf, size_t n)
{
	if (p->pp <= 1)
		snprintf(buf, n, "%s", "");
	else if (p->schedule == PP_SCHED_GPIPE)
		snprintf(buf, n, "GPipe");
	else if (p->schedule == PP_SCHED_INTERLEAVED)
		snprintf(buf, n, "interleaved 1F1B, %d virtual stages", p->vpp);
	else if (p->schedule == PP_SCHED_ZBH1)
		snprintf(buf, n, "ZB-H1");
	else if (p->schedule == PP_SCHED_ZBH2)
		snprintf(buf, n, "ZB-H2");
	else if (p->schedule == PP_SCHED_ZBV)
		snprintf(buf, n, "ZB-V, 2 stages a rank in a V");
	else if (p->schedule == PP_SCHED_DUALPIPEV)
		snprintf(buf, n, "DualPipeV, 2 stages a rank in a V");
	else if (p->schedule == PP_SCHED_DUALPIPE)
		snprintf(buf, n, "DualPipe, 2 stages a rank, fed from both ends");
	else
		snprintf(buf, n, "1F1B");
	return buf;
}

int pp_parallel_etp(const pp_parallel *p)
{
	return p->etp > 0 ? p->etp : p->tp;
}

int pp_parallel_edp(const pp_parallel *p)
{
	int e = pp_parallel_etp(p) * (p->ep > 0 ? p->ep : 1);
	return (p->tp * p->cp * p->dp) / (e > 0 ? e : 1);
}

void pp_layout_derive(pp_training *t, const pp_parallel *p)
{
	int64_t per = t->micro_batch_size * p->dp;
	t->num_microbatches = per > 0 ? t->global_batch_size / per : 0;
}

/* Whether some layer of m has a dense MLP (of ffn_hidden_size). */
static bool has_dense_layer(const pp_model *m)
{
	if (m->num_experts <= 0)
		return true;
	if (m->moe_list_len > 0) {
		for (int i = 0; i < m->moe_list_len; i++)
			if (!m->moe_list[i])
				return true;
		return false;
	}
	return m->moe_layer_freq > 1 && m->num_layers > 1;
}

/* The expert-parallel part of pp_layout_check (Megatron-Core's checks in
 * parallel_state.initialize_model_parallel, TransformerConfig and
 * arguments.py validate_args). */
static int moe_layout_check(const pp_model *m, const pp_training *t, const pp_parallel *p,
			    const char **key, char *why, size_t n)
{
#define FAIL(k, ...)                                    \
	do {                                            \
		*key = k;                               \
		if (n > 0)                              \
			snprintf(why, n, __VA_ARGS__);  \
		return PP_EINPUT;                       \
	} while (0)
	const char *EP = "parallel.expert_model_parallel_size";
	const char *ETP = "parallel.expert_tensor_parallel_size";
	const char *TP = "parallel.tensor_model_parallel_size";
	if (m->num_experts <= 0) {
		if (p->ep > 1)
			FAIL(EP, "found %d for a dense model; expected 1 (expert parallelism needs "
			     "model.num_experts)", p->ep);
		if (p->etp > 0)
			FAIL(ETP, "found %d for a dense model; expected the key left out (expert tensor "
			     "parallelism needs model.num_experts)", p->etp);
		return 0;
	}
	int etp = pp_parallel_etp(p), ep = p->ep > 0 ? p->ep : 1;
	if (m->num_experts % ep)
		FAIL(EP, "found %d, which does not divide num_experts = %d; expected a divisor (each "
		     "expert-parallel rank holds num_experts / EP experts)", ep, m->num_experts);
	int64_t dense = (int64_t)p->tp * p->cp * p->dp, expert = (int64_t)etp * ep;
	if (dense % expert)
		FAIL(p->etp > 0 ? ETP : EP, "found expert tensor %d x expert %d = %lld, which does not "
		     "divide tensor %d x context %d x data %d = %lld GPUs per pipeline stage; expected "
		     "a divisor (the expert layers' ETP x EP x expert-DP fold onto the GPUs of the "
		     "attention's TP x CP x DP)", etp, ep, (long long)expert, p->tp, p->cp, p->dp,
		     (long long)dense);
	if (m->moe_ffn_hidden_size % etp)
		FAIL(p->etp > 0 ? ETP : TP, "found %d, which does not divide moe_ffn_hidden_size = %d; "
		     "expected a divisor (each expert's FFN splits over the expert tensor-parallel "
		     "group, the tensor-parallel size unless expert_tensor_parallel_size is given)",
		     etp, m->moe_ffn_hidden_size);
	if (m->moe_shared_expert_intermediate_size % p->tp)
		FAIL(TP, "found %d, which does not divide moe_shared_expert_intermediate_size = %d; "
		     "expected a divisor (the shared experts are a tensor-parallel MLP)", p->tp,
		     m->moe_shared_expert_intermediate_size);
	if (p->tp > 1 && !p->sequence_parallel)
		FAIL("parallel.sequence_parallel", "found false with tensor_model_parallel_size %d on a "
		     "mixture-of-experts model; expected true (Megatron-LM: \"When using MoE and "
		     "tensor parallelism, sequence parallelism must be used\")", p->tp);
	/* Megatron-Core's TransformerConfig.__post_init__ (core_v0.19) */
	if (t->overlap_moe_expert_parallel_comm && ep < 2)
		FAIL("training.overlap_moe_expert_parallel_comm", "found true with "
		     "expert_model_parallel_size %d; expected 2 or more (Megatron-Core: \"overlap_moe_"
		     "expert_parallel_comm is only supported with expert model parallelism\")", ep);
	if (t->overlap_moe_expert_parallel_comm && p->pp > 1 && p->vpp < 2)
		FAIL("training.overlap_moe_expert_parallel_comm", "found true with %d pipeline stages "
		     "and no virtual stages; expected virtual_pipeline_model_parallel_size 2 or more "
		     "(Megatron-Core: \"If enabling EP A2A overlap, virtual_pipeline_model_parallel_"
		     "size must be specified when pipeline_model_parallel_size > 1\")", p->pp);
	if (p->zero_stage >= 2)
		FAIL("parallel.zero_stage", "found %d for a mixture-of-experts model; expected 0 or 1: "
		     "ZeRO-%d is not modelled for MoE (Megatron's distributed optimizer is ZeRO-1)",
		     p->zero_stage, p->zero_stage);
	return 0;
#undef FAIL
}

int pp_layout_check_heads(const pp_model *m, const pp_parallel *p, const char **key, char *why,
			  size_t n)
{
	if (m->num_attention_heads % p->tp == 0)
		return 0;
	*key = "parallel.tensor_model_parallel_size";
	if (n > 0)
		snprintf(why, n, "found %d, which does not divide num_attention_heads = %d; expected a "
		 "divisor of the head count", p->tp, m->num_attention_heads);
	return PP_EINPUT;
}

int pp_layout_check(const pp_model *m, const pp_training *t, const pp_parallel *p,
		    const pp_cluster *c, const char **key, char *why, size_t n)
{
#define FAIL(k, ...)                                    \
	do {                                            \
		*key = k;                               \
		if (n > 0)                              \
			snprintf(why, n, __VA_ARGS__);  \
		return PP_EINPUT;                       \
	} while (0)
	const char *TP = "parallel.tensor_model_parallel_size";
	const char *PPK = "parallel.pipeline_model_parallel_size";
	const char *VPP = "parallel.virtual_pipeline_model_parallel_size";
	if (pp_layout_check_heads(m, p, key, why, n))
		return PP_EINPUT;
	/* MLA has no key/value head groups to split */
	if (!m->multi_latent_attention && m->num_query_groups % p->tp && p->tp % m->num_query_groups)
		FAIL(TP, "found %d, which neither divides nor is a multiple of num_query_groups = %d; "
		     "expected one of them", p->tp, m->num_query_groups);
	/* Gated DeltaNet: TP splits the key heads (and their value heads) */
	if (m->linear_attn_interval > 0 && m->gdn_k_heads % p->tp)
		FAIL(TP, "found %d, which does not divide the %d Gated DeltaNet key heads "
		     "(linear_num_key_heads); expected a divisor", p->tp, m->gdn_k_heads);
	if (m->linear_attn_interval > 0 && p->cp > 1)
		FAIL("parallel.context_parallel_size", "found %d with Gated DeltaNet linear-attention "
		     "layers; expected 1: context parallelism is modelled as softmax attention's "
		     "ring exchange, and a linear-attention layer's (its states passed along the "
		     "ranks) is not", p->cp);
	if (m->linear_attn_interval > 0 && (t->finetune == PP_FT_LORA || t->finetune == PP_FT_QLORA))
		FAIL("training.finetune", "found \"%s\" with Gated DeltaNet linear-attention layers; "
		     "expected \"full\": podplan's LoRA adapters are those of softmax attention's "
		     "q, k, v and o", t->finetune == PP_FT_LORA ? "lora" : "qlora");
	if (has_dense_layer(m) && m->ffn_hidden_size % p->tp)
		FAIL(TP, "found %d, which does not divide ffn_hidden_size = %d; expected a divisor",
		     p->tp, m->ffn_hidden_size);
	int64_t prod = (int64_t)p->tp * p->pp * p->dp * p->cp;
	if (prod != c->num_gpus)
		FAIL("parallel", "found tensor %d x pipeline %d x data %d x context %d = %lld GPUs, "
		     "expected cluster.num_gpus = %d", p->tp, p->pp, p->dp, p->cp, (long long)prod,
		     c->num_gpus);
	if (p->pp > m->num_layers)
		FAIL(PPK, "found %d pipeline stages for %d layers; expected at most one stage per layer",
		     p->pp, m->num_layers);
	if (pp_parallel_nv(p) > m->num_layers && !p->layout_len)
		FAIL(VPP, "found %d x %d model chunks for %d layers; expected at least one layer per chunk",
		     p->pp, p->vpp, m->num_layers);
	if (p->layout_len > 0) {
		const char *LK = "parallel.pipeline_model_parallel_layout";
		int sum = 0, empty = -1;
		for (int i = 0; i < p->layout_len; i++) {
			sum += p->layout_layers[i];
			if (!p->layout_layers[i] && i > 0 && i < p->layout_len - 1 && empty < 0)
				empty = i;
		}
		if (p->layout_len != pp_parallel_nv(p))
			FAIL(LK, "found %d virtual stages for pipeline %d x %d chunks; expected %d%s",
			     p->layout_len, p->pp, p->vpp, pp_parallel_nv(p),
			     pp_schedule_two_ended(p->schedule)
				     ? " (DualPipe: one per stage, each rank holding two of them)" : "");
		if (sum != m->num_layers)
			FAIL(LK, "found %d decoder layers (t) for num_layers %d; expected them equal "
			     "(Megatron-Core: \"Number of decoder layers ... must match num_layers\")", sum,
			     m->num_layers);
		if (p->layout_mtp != m->mtp_num_layers)
			FAIL(LK, "found %d MTP depths (m) for mtp_num_layers %d; expected them equal "
			     "(Megatron-Core: \"Number of mtp layers in layout must match "
			     "mtp_num_layers\")", p->layout_mtp, m->mtp_num_layers);
		if (empty >= 0)
			FAIL(LK, "found virtual stage %d without a layer; expected a decoder layer in every "
			     "virtual stage but the first and the last", empty);
	}
	if (p->first_stage_layers || p->last_stage_layers) {
		/* Megatron-Core (get_num_layers_to_build): the first and last
		 * stage take the given counts, the stages between split the rest
		 * evenly, and each stage's layers split evenly over its chunks */
		const char *FL = p->first_stage_layers ? "parallel.decoder_first_pipeline_num_layers"
						       : "parallel.decoder_last_pipeline_num_layers";
		int ends = (p->first_stage_layers > 0) + (p->last_stage_layers > 0);
		int rest = m->num_layers - p->first_stage_layers - p->last_stage_layers;
		int mid = p->pp - ends;
		if (p->pp < 2)
			FAIL(FL, "found with pipeline_model_parallel_size %d; expected 2 or more stages",
			     p->pp);
		if (rest < 0 || (mid == 0 && rest != 0) || (mid > 0 && (rest < mid || rest % mid)))
			FAIL(FL, "found first %d and last %d of %d layers: the other %d stages cannot take "
			     "the remaining %d evenly; expected counts that leave a multiple of %d layers",
			     p->first_stage_layers, p->last_stage_layers, m->num_layers, mid, rest,
			     mid > 0 ? mid : 1);
		for (int st = 0; st < p->pp; st++) {
			int nl = st == 0 && p->first_stage_layers ? p->first_stage_layers
				 : st == p->pp - 1 && p->last_stage_layers ? p->last_stage_layers
				 : rest / (mid > 0 ? mid : 1);
			if (nl % p->vpp)
				FAIL(VPP, "found %d chunks per stage, but stage %d has %d layers; expected a "
				     "chunk count that divides every stage's layers", p->vpp, st, nl);
		}
	}
	if (p->vpp > 64)
		FAIL(VPP, "found %d; expected at most 64 model chunks per stage", p->vpp);
	if (p->vpp > 1 && p->pp < 2)
		FAIL(VPP, "found %d with pipeline_model_parallel_size 1; expected interleaving only "
		     "with 2 or more pipeline stages", p->vpp);
	if (p->cp > 1 && m->seq_length % (2 * p->cp))
		FAIL("parallel.context_parallel_size", "found %d: seq_length %d is not a multiple of "
		     "2 x %d; expected a size that splits the sequence into 2*cp balanced chunks",
		     p->cp, m->seq_length, p->cp);
	int64_t per = t->micro_batch_size * p->dp;
	if (t->global_batch_size % per)
		FAIL("training.global_batch_size", "found %lld, not a multiple of micro_batch_size %lld "
		     "x data_parallel_size %d = %lld; expected a multiple of it",
		     (long long)t->global_batch_size, (long long)t->micro_batch_size, p->dp,
		     (long long)per);
	int64_t mb = t->global_batch_size / per;
	if (p->schedule >= PP_SCHED_ZBH1 && p->zero_stage == 3 && p->dp > 1)
		FAIL("parallel.zero_stage", "found 3 with pipeline_schedule \"%s\"; expected 0-2 (the "
		     "zero-bubble and DualPipe schedules run with Megatron's distributed optimizer, "
		     "ZeRO-1)", pp_schedule_names[p->schedule]);
	if (p->schedule == PP_SCHED_DUALPIPEV && mb < 2 * p->pp)
		FAIL("parallel.pipeline_schedule", "found \"dualpipev\" with %lld micro-batches on %d "
		     "ranks; expected at least 2 x pipeline_model_parallel_size = %d (PyTorch's "
		     "ScheduleDualPipeV: as many micro-batches as stages)", (long long)mb, p->pp,
		     2 * p->pp);
	if (p->schedule == PP_SCHED_DUALPIPE && (p->pp % 2 || mb % 2 || mb < 2 * p->pp))
		FAIL("parallel.pipeline_schedule", "found \"dualpipe\" with %lld micro-batches on %d "
		     "ranks; expected an even number of ranks and an even number of micro-batches, at "
		     "least 2 x pipeline_model_parallel_size = %d (deepseek-ai/DualPipe dualpipe.py "
		     "step(): num_ranks %% 2 == 0, num_chunks %% 2 == 0 and >= num_ranks * 2)",
		     (long long)mb, p->pp, 2 * p->pp);
	if (p->vpp > 1 && !pp_schedule_two_chunks(p->schedule) && mb < p->pp)
		FAIL(VPP, "interleaving needs at least pipeline_model_parallel_size %d micro-batches, "
		     "found %lld (Megatron-Core: microbatch_group_size_per_vp_stage in [pp, m])",
		     p->pp, (long long)mb);
	if (p->schedule == PP_SCHED_INTERLEAVED && p->vpp < 2)
		FAIL("parallel.pipeline_schedule", "found \"interleaved\" with "
		     "virtual_pipeline_model_parallel_size %d; expected a virtual size of 2 or more",
		     p->vpp);
	if (c->num_gpus > c->gpus_per_node && c->num_gpus % c->gpus_per_node)
		FAIL("cluster.num_gpus", "found %d GPUs on nodes of %d; expected a multiple of "
		     "gpus_per_node", c->num_gpus, c->gpus_per_node);
	int dom = pp_cluster_domain_gpus(c);
	const char *DOM = "cluster.nvlink_domain_size";
	if (dom % c->gpus_per_node)
		FAIL(DOM, "found %d with nodes of %d GPUs; expected a multiple of gpus_per_node (an "
		     "NVLink domain is whole nodes: a %s node holds %d, its domain %d)", dom,
		     c->gpus_per_node, c->gpu->id, c->gpu->gpus_per_node, c->gpu->nvlink_domain_size);
	if (dom > c->gpus_per_node && (!c->intra || c->intra->kind != PP_FAB_NVLINK))
		FAIL(DOM, "found %d on nodes of %d joined by %s; expected at most gpus_per_node: only "
		     "NVLink switches join GPUs across nodes", dom, c->gpus_per_node,
		     c->intra ? c->intra->id : "no intra-node fabric");
	if (dom > c->gpus_per_node && dom > c->gpu->nvlink_domain_size)
		FAIL(DOM, "found %d, but the NVLink switches of %s join at most %d GPUs (%d per node); "
		     "expected at most %d", dom, c->gpu->id, c->gpu->nvlink_domain_size,
		     c->gpu->gpus_per_node, c->gpu->nvlink_domain_size);
	if (c->num_gpus > dom && c->num_gpus % dom)
		FAIL("cluster.num_gpus", "found %d GPUs in NVLink domains of %d; expected a multiple "
		     "of the domain (every domain alike)", c->num_gpus, dom);
	if (c->gpu->peak_flops[t->precision] <= 0)
		FAIL("training.precision", "found \"%s\", which %s does not support; expected one "
		     "of its datatypes", pp_dtype_names[t->precision], c->gpu->id);
	return moe_layout_check(m, t, p, key, why, n);
#undef FAIL
}
