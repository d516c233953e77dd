/* scenario.c - see scenario.h. */
#include "input/scenario.h"
#include "input/limits.h"
#include "input/hfconfig.h"
#include "core/util.h"

#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_recompute_names[3] = {"none", "selective", "full"};
const char *const pp_schedule_names[3] = {"1f1b", "gpipe", "interleaved"};
const char *pp_parallel_schedule_text(const pp_parallel *p, char *buf, size_t n)
{
	if (p->pp <= 1)
		snprintf(buf, n, "%s", "");
	else if (p->schedule == PP_SCHED_GPIPE)
		snprintf(buf, n, "GPipe");
	else if (p->schedule == PP_SCHED_INTERLEAVED)
		snprintf(buf, n, "interleaved 1F1B, %d virtual stages", p->vpp);
	else
		snprintf(buf, n, "1F1B");
	return buf;
}

const char *const pp_optimizer_names[2] = {"adam", "sgd"};
const char *const pp_moe_dispatcher_names[2] = {"alltoall", "allgather"};

/* Upper bounds that catch typos and overflow, not real limits. */
#define MAX_GPUS 4194304
#define MAX_DIM 10000000

static const char *const top_keys[] = {"name", "description", "model", "training", "parallel",
				       "cluster", "calibration", "costs", "search", "serving", "workload",
				       "slo"};
static const char *const model_keys[] = {"preset", "hf_config", "num_layers", "hidden_size",
					 "num_attention_heads", "num_query_groups", "ffn_hidden_size",
					 "vocab_size", "seq_length", "swiglu",
					 "untie_embeddings_and_output_weights", "mtp_num_layers",
					 PP_MODEL_ARCH_KEYS};
static const char *const training_keys[] = {"global_batch_size", "micro_batch_size", "precision",
					    "recompute", "optimizer", "train_tokens", "use_flash_attn",
					    "overlap_grad_reduce", "overlap_param_gather", "overlap_p2p_comm",
					    "bucket_size", "data_bytes_per_token", "finetune",
					    "lora_rank", "moe_token_dispatcher_type",
					    "moe_expert_capacity_factor", "moe_load_imbalance",
					    "moe_shared_expert_overlap", "moe_grouped_gemm",
					    "overlap_moe_expert_parallel_comm", "delay_wgrad_compute", "framework",
					    "torch_compile", "attention_kernel", "cross_entropy", "elementwise",
					    "fused_projections", "selective_recompute", "grad_reduce_in_fp32",
					    "reshard_after_forward", "tp_comm_overlap", "optimizer_impl",
					    "cuda_graphs", "host_issue_us", "master_weights_fp32",
					    "context_parallel_comm", "fp8_recipe", "autocast", "tensor_clock",
					    "ddp"};
static const char *const parallel_keys[] = {"tensor_model_parallel_size",
					    "pipeline_model_parallel_size", "data_parallel_size",
					    "context_parallel_size",
					    "virtual_pipeline_model_parallel_size", "sequence_parallel",
					    "decoder_first_pipeline_num_layers",
					    "decoder_last_pipeline_num_layers",
					    "pipeline_model_parallel_layout", "zero_stage", "pipeline_schedule",
					    "expert_model_parallel_size",
					    "expert_tensor_parallel_size"};
static const char *const cluster_keys[] = {"gpu", "num_gpus", "gpus_per_node", "intra_node",
					   "inter_node", "storage"};
static const char *const inter_keys[] = {"fabric", "nics_per_node", "oversubscription", "topology"};
static const char *const storage_keys[] = {"type", "read_gbytes_per_s_per_node",
					   "write_gbytes_per_s_per_node"};
static const char *const calib_keys[] = {"db", "profile"};

int pp_cluster_nodes(const pp_cluster *c)
{
	if (c->num_gpus <= c->gpus_per_node)
		return 1;
	return (c->num_gpus + c->gpus_per_node - 1) / c->gpus_per_node;
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
		snprintf(why, n, __VA_ARGS__);          \
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

int pp_layout_check(const pp_model *m, const pp_training *t, const pp_parallel *p,
		    const pp_cluster *c, const char **key, char *why, size_t n)
{
#define FAIL(k, ...)                                    \
	do {                                            \
		*key = k;                               \
		snprintf(why, n, __VA_ARGS__);          \
		return PP_EINPUT;                       \
	} while (0)
	const char *TP = "parallel.tensor_model_parallel_size";
	const char *PPK = "parallel.pipeline_model_parallel_size";
	const char *VPP = "parallel.virtual_pipeline_model_parallel_size";
	if (m->num_attention_heads % p->tp)
		FAIL(TP, "found %d, which does not divide num_attention_heads = %d; expected a divisor "
		     "of the head count", p->tp, m->num_attention_heads);
	/* MLA has no key/value head groups to split */
	if (!m->multi_latent_attention && m->num_query_groups % p->tp && p->tp % m->num_query_groups)
		FAIL(TP, "found %d, which neither divides nor is a multiple of num_query_groups = %d; "
		     "expected one of them", p->tp, m->num_query_groups);
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
	if ((int64_t)p->pp * p->vpp > m->num_layers && !p->layout_len)
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
		if (p->layout_len != p->pp * p->vpp)
			FAIL(LK, "found %d virtual stages for pipeline %d x %d chunks; expected %d",
			     p->layout_len, p->pp, p->vpp, p->pp * p->vpp);
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
	if (p->vpp > 1 && mb % p->pp)
		FAIL(VPP, "interleaving needs the number of micro-batches (%lld) to be a multiple of "
		     "pipeline_model_parallel_size %d (Megatron-LM requires it)", (long long)mb, p->pp);
	if (p->schedule == PP_SCHED_INTERLEAVED && p->vpp < 2)
		FAIL("parallel.pipeline_schedule", "found \"interleaved\" with "
		     "virtual_pipeline_model_parallel_size %d; expected a virtual size of 2 or more",
		     p->vpp);
	if (c->num_gpus > c->gpus_per_node && c->num_gpus % c->gpus_per_node)
		FAIL("cluster.num_gpus", "found %d GPUs on nodes of %d; expected a multiple of "
		     "gpus_per_node", c->num_gpus, c->gpus_per_node);
	if (c->gpu->peak_flops[t->precision] <= 0)
		FAIL("training.precision", "found \"%s\", which %s does not support; expected one "
		     "of its datatypes", pp_dtype_names[t->precision], c->gpu->id);
	return moe_layout_check(m, t, p, key, why, n);
#undef FAIL
}

/* ---- model ---- */

static int read_hf_config(pp_scenario *s, const pp_jdoc *d, const char *hfpath, pp_model *m,
			  bool drop_mtp, pp_err *err)
{
	pp_jdoc hf;
	char resolved[PATH_MAX + 8];
	int rc = 0;
	if (hfpath[0] == '/') {
		snprintf(resolved, sizeof(resolved), "%s", hfpath);
	} else {
		char tmp[PATH_MAX];
		snprintf(tmp, sizeof(tmp), "%s", d->path);
		snprintf(resolved, sizeof(resolved), "%s/%s", dirname(tmp), hfpath);
	}
	pp_err sub = {0};
	rc = pp_jdoc_load(&hf, resolved, &sub);
	if (rc) {
		rc = pp_jdoc_errf(d, err, "model.hf_config", "cannot use \"%s\": %s; expected a readable "
				  "Hugging Face config.json", hfpath, sub.msg);
		goto out;
	}
	/* the config's own position and key, after the scenario's */
	memset(&sub, 0, sizeof(sub));
	if ((rc = pp_hfconfig_read(m, &hf, drop_mtp, &sub))) {
		rc = pp_jdoc_errf(d, err, "model.hf_config", "%s", sub.msg);
		goto out;
	}
	snprintf(m->id, sizeof(m->id), "hf");
	snprintf(m->name, sizeof(m->name), "%.80s", hfpath);
	snprintf(s->model_origin, sizeof(s->model_origin), "hf_config %s", hfpath);
out:
	pp_jdoc_release(&hf);
	return rc;
}

static int parse_model(pp_scenario *s, const pp_catalog *cat, pp_err *err)
{
	const pp_jdoc *d = &s->doc;
	const cJSON *mo;
	int rc;
	if ((rc = pp_jget_obj(d, d->root, "", "model", true, &mo, err)) ||
	    (rc = pp_jcheck_keys(d, mo, "model", model_keys, PP_ARRAY_LEN(model_keys), err)))
		return rc;
	pp_model *m = &s->model;
	char preset[64] = "", hf[PATH_MAX] = "";
	bool has_preset = false, has_hf = false;
	if ((rc = pp_jget_str(d, mo, "model", "preset", false, preset, sizeof(preset), &has_preset, err)) ||
	    (rc = pp_jget_str(d, mo, "model", "hf_config", false, hf, sizeof(hf), &has_hf, err)))
		return rc;
	if (has_preset && has_hf)
		return pp_jdoc_errf(d, err, "model.hf_config", "found both preset and hf_config; "
				    "expected one of them");
	/* Megatron's --mtp-num-layers: multi-token prediction depths (0: none;
	 * a config.json with num_nextn_predict_layers needs it said) */
	int64_t mtp = 0;
	bool has_mtp = false;
	if ((rc = pp_jget_int(d, mo, "model", "mtp_num_layers", false, 0, 64, &mtp, &has_mtp, err)))
		return rc;
	if (has_preset) {
		const pp_model *pm = pp_catalog_model(cat, preset);
		if (!pm) {
			size_t n;
			const char *const *ids = pp_catalog_ids(cat, "models", &n);
			const char *dym = pp_did_you_mean(preset, ids, n);
			pp_sb list = {0};
			for (size_t i = 0; i < n; i++)
				pp_sb_addf(&list, "%s%s", i ? ", " : "", ids[i]);
			if (dym)
				rc = pp_jdoc_errf(d, err, "model.preset", "unknown model preset \"%s\", did "
						  "you mean \"%s\"?", preset, dym);
			else
				rc = pp_jdoc_errf(d, err, "model.preset", "unknown model preset \"%s\", "
						  "expected one of: %s", preset, list.buf);
			pp_sb_release(&list);
			return rc;
		}
		*m = *pm;
		snprintf(s->model_origin, sizeof(s->model_origin), "preset %s", preset);
	} else if (has_hf) {
		if ((rc = read_hf_config(s, d, hf, m, has_mtp, err)))
			return rc;
	} else {
		snprintf(m->id, sizeof(m->id), "custom");
		snprintf(m->name, sizeof(m->name), "custom");
		snprintf(s->model_origin, sizeof(s->model_origin), "inline");
	}
	m->mtp_num_layers = (int)mtp;
	bool inl = !has_preset && !has_hf;
	int64_t v;
	bool present;
#define MK(key, field, req)                                                                       \
	if ((rc = pp_jget_int(d, mo, "model", key, req, 1, MAX_DIM, &v, &present, err)))          \
		return rc;                                                                        \
	if (present)                                                                              \
		m->field = (int)v;
	MK("num_layers", num_layers, inl)
	MK("hidden_size", hidden_size, inl)
	MK("num_attention_heads", num_attention_heads, inl)
	if (inl) {
		m->num_query_groups = m->num_attention_heads;
		m->ffn_hidden_size = 4 * m->hidden_size;
	}
	MK("num_query_groups", num_query_groups, false)
	MK("ffn_hidden_size", ffn_hidden_size, false)
	MK("vocab_size", vocab_size, inl)
	MK("seq_length", seq_length, inl)
#undef MK
	if ((rc = pp_jget_bool(d, mo, "model", "swiglu", false, &m->swiglu, NULL, err)))
		return rc;
	bool untie = !m->tied_embeddings, have_untie = false;
	if ((rc = pp_jget_bool(d, mo, "model", "untie_embeddings_and_output_weights", false, &untie,
			       &have_untie, err)))
		return rc;
	if (have_untie)
		m->tied_embeddings = !untie;
	/* mixture of experts, latent attention, head size, sliding window */
	if ((rc = pp_model_read_arch(d, mo, "model", m, err)))
		return rc;
	const char *key = NULL;
	char why[512], path[300];
	if (pp_model_check(m, &key, why, sizeof(why)))
		return pp_jdoc_errf(d, err, pp_jpath(path, sizeof(path), "model", key), "%s", why);
	return 0;
}

/* ---- training, parallel ---- */

/* training.finetune: "full" (every weight trained, the default), "lora"
 * (a frozen bf16 base with LoRA adapters of training.lora_rank on every
 * linear layer of every block) or "qlora" (the frozen base stored in 4-bit
 * NF4); defaults from models.json "finetune". t may be NULL (no section). */
static int parse_finetune(pp_scenario *s, const cJSON *t, const pp_catalog *cat, pp_err *err)
{
	const pp_jdoc *d = &s->doc;
	pp_training *tr = &s->training;
	const pp_finetune_defaults *ft = pp_catalog_finetune(cat);
	tr->finetune = PP_FT_FULL;
	tr->lora_rank = (int)ft->lora_rank;
	tr->base_weight_bytes = 0;
	if (t) {
		int e = 0, rc;
		bool present = false;
		int64_t r = 0;
		/* "auto" is a cost option's choice, not a training recipe */
		if ((rc = pp_jget_enum(d, t, "training", "finetune", false, pp_ft_method_names, 3, &e,
				       &present, err)))
			return rc;
		if (present)
			tr->finetune = (pp_ft_method)e;
		if ((rc = pp_jget_int(d, t, "training", "lora_rank", false, 1, 65536, &r, &present, err)))
			return rc;
		if (present)
			tr->lora_rank = (int)r;
	}
	pp_training_set_finetune(tr, tr->finetune, cat);
	return 0;
}

void pp_training_set_finetune(pp_training *tr, pp_ft_method m, const pp_catalog *cat)
{
	tr->finetune = m;
	tr->base_weight_bytes = 0;
	if (m == PP_FT_QLORA)
		tr->base_weight_bytes = pp_catalog_finetune(cat)->nf4_bits_per_param / 8.0;
	else if (m == PP_FT_LORA)
		tr->base_weight_bytes = tr->precision == PP_DT_FP32 || tr->precision == PP_DT_TF32 ? 4.0 : 2.0;
}

/* The mixture-of-experts training keys (Megatron's names); defaults:
 * Megatron-Core's allgather dispatcher, dropless, no shared-expert overlap,
 * one GEMM per expert, and the catalog's load imbalance for real routing
 * (models.json "moe"; 1 for a dense model). t may be NULL (no section). */
static int parse_moe_training(pp_scenario *s, const cJSON *t, const pp_catalog *cat, pp_err *err)
{
	const pp_jdoc *d = &s->doc;
	pp_training *tr = &s->training;
	const pp_model *m = &s->model;
	bool moe = m->num_experts > 0;
	int rc;
	tr->moe_token_dispatcher = PP_MOE_ALLGATHER; /* Megatron-Core's default */
	tr->moe_expert_capacity_factor = 0;
	tr->moe_load_imbalance = moe ? pp_catalog_moe(cat)->load_imbalance : 1.0;
	tr->moe_shared_expert_overlap = false;
	tr->moe_grouped_gemm = false; /* Megatron's default */
	tr->overlap_moe_expert_parallel_comm = false;
	tr->delay_wgrad_compute = false;
	if (!t)
		return 0;
	static const char *const keys[] = {"moe_token_dispatcher_type", "moe_expert_capacity_factor",
					   "moe_load_imbalance", "moe_shared_expert_overlap",
					   "moe_grouped_gemm", "overlap_moe_expert_parallel_comm",
					   "delay_wgrad_compute"};
	char path[96];
	for (size_t i = 0; i < PP_ARRAY_LEN(keys) && !moe; i++)
		if (cJSON_GetObjectItemCaseSensitive(t, keys[i]))
			return pp_jdoc_errf(d, err, pp_jpath(path, sizeof(path), "training", keys[i]),
					    "found for a dense model; expected the mixture-of-experts "
					    "training keys only with model.num_experts > 0");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, "moe_token_dispatcher_type");
	if (cJSON_IsString(v) && !strcmp(v->valuestring, "flex"))
		return pp_jdoc_errf(d, err, "training.moe_token_dispatcher_type", "found \"flex\": "
				    "podplan does not model DeepEP's (or HybridEP's) flex dispatcher; "
				    "expected \"alltoall\" or \"allgather\"");
	if ((rc = pp_jget_enum(d, t, "training", "moe_token_dispatcher_type", false,
			       pp_moe_dispatcher_names, 2, &tr->moe_token_dispatcher, NULL, err)))
		return rc;
	/* capacity factor: absent or null (Megatron's None) = dropless */
	v = cJSON_GetObjectItemCaseSensitive(t, "moe_expert_capacity_factor");
	if (v && !cJSON_IsNull(v)) {
		double cf = 0;
		if ((rc = pp_jget_num(d, t, "training", "moe_expert_capacity_factor", false, -1e6, 1e6,
				      &cf, NULL, err)))
			return rc;
		if (cf <= 0)
			return pp_jdoc_errf(d, err, "training.moe_expert_capacity_factor", "found %g; "
					    "expected a factor > 0 (an expert takes at most factor x "
					    "the mean tokens, the rest are dropped), or the key left out "
					    "for dropless training", cf);
		tr->moe_expert_capacity_factor = cf;
	}
	if ((rc = pp_jget_num(d, t, "training", "moe_load_imbalance", false, 1, 100,
			      &tr->moe_load_imbalance, NULL, err)) ||
	    (rc = pp_jget_bool(d, t, "training", "moe_grouped_gemm", false, &tr->moe_grouped_gemm,
			       NULL, err)) ||
	    (rc = pp_jget_bool(d, t, "training", "moe_shared_expert_overlap", false,
			       &tr->moe_shared_expert_overlap, NULL, err)) ||
	    (rc = pp_jget_bool(d, t, "training", "overlap_moe_expert_parallel_comm", false,
			       &tr->overlap_moe_expert_parallel_comm, NULL, err)) ||
	    (rc = pp_jget_bool(d, t, "training", "delay_wgrad_compute", false,
			       &tr->delay_wgrad_compute, NULL, err)))
		return rc;
	/* Megatron-Core's TransformerConfig.__post_init__ checks (core_v0.19) */
	const char *OV = "training.overlap_moe_expert_parallel_comm";
	if (tr->delay_wgrad_compute && !tr->overlap_moe_expert_parallel_comm)
		return pp_jdoc_errf(d, err, "training.delay_wgrad_compute", "found true without "
				    "overlap_moe_expert_parallel_comm; expected both (Megatron-Core: "
				    "\"overlap_moe_expert_parallel_comm must be enabled when enabling "
				    "delay_wgrad_compute\")");
	if (tr->overlap_moe_expert_parallel_comm && tr->moe_token_dispatcher != PP_MOE_ALLTOALL)
		return pp_jdoc_errf(d, err, OV, "found true with moe_token_dispatcher_type \"%s\"; "
				    "expected \"alltoall\" (Megatron-Core: \"overlap_moe_expert_"
				    "parallel_comm is supported with alltoall/flex token dispatcher\")",
				    pp_moe_dispatcher_names[tr->moe_token_dispatcher]);
	if (tr->overlap_moe_expert_parallel_comm && tr->moe_shared_expert_overlap)
		return pp_jdoc_errf(d, err, OV, "found true with moe_shared_expert_overlap; expected "
				    "one of them (Megatron-Core: \"disable moe_shared_expert_overlap "
				    "when enabling overlap_moe_expert_parallel_comm\")");
	if (tr->overlap_moe_expert_parallel_comm && tr->recompute == PP_RC_FULL)
		return pp_jdoc_errf(d, err, OV, "found true with recompute \"full\"; expected "
				    "\"none\" or \"selective\" (Megatron-Core: \"disable full "
				    "recomputation when enabling overlap_moe_expert_parallel_comm\")");
	if (tr->moe_shared_expert_overlap && m->moe_shared_expert_intermediate_size == 0)
		return pp_jdoc_errf(d, err, "training.moe_shared_expert_overlap", "found true for a "
				    "model without shared experts; expected false (there is no shared "
				    "expert to overlap with the all-to-alls)");
	if (tr->moe_shared_expert_overlap && tr->moe_token_dispatcher != PP_MOE_ALLTOALL)
		return pp_jdoc_errf(d, err, "training.moe_shared_expert_overlap", "found true with "
				    "moe_token_dispatcher_type \"%s\"; expected the \"alltoall\" "
				    "dispatcher (Megatron-LM: \"moe_shared_expert_overlap only works "
				    "with alltoall token dispatcher\")",
				    pp_moe_dispatcher_names[tr->moe_token_dispatcher]);
	return 0;
}

static int parse_training(pp_scenario *s, const pp_catalog *cat, pp_err *err)
{
	const pp_jdoc *d = &s->doc;
	const cJSON *t;
	int rc;
	pp_training *tr = &s->training;
	tr->micro_batch_size = 1;
	tr->precision = PP_DT_BF16;
	tr->recompute = PP_RC_NONE;
	tr->optimizer = PP_OPTIM_ADAM;
	tr->use_flash_attn = true;
	tr->overlap_grad_reduce = true;
	tr->overlap_param_gather = true;
	tr->overlap_p2p_comm = true;
	tr->bucket_bytes = 0; /* filled below from the parameter count default */
	tr->data_bytes_per_token = 4; /* Megatron's indexed datasets store int32 tokens */
	if ((rc = pp_jget_obj(d, d->root, "", "training", false, &t, err)))
		return rc;
	if (!t) {
		if ((rc = parse_moe_training(s, NULL, cat, err)))
			return rc;
		return parse_finetune(s, NULL, cat, err);
	}
	if ((rc = pp_jcheck_keys(d, t, "training", training_keys, PP_ARRAY_LEN(training_keys), err)))
		return rc;
	bool present;
	int e = 0;
	if ((rc = pp_jget_int(d, t, "training", "global_batch_size", false, 1, 1000000000,
			      &tr->global_batch_size, NULL, err)) ||
	    (rc = pp_jget_int(d, t, "training", "micro_batch_size", false, 1, 1000000,
			      &tr->micro_batch_size, &present, err)))
		return rc;
	if (present)
		s->given |= PP_GIVEN_MBS;
	if ((rc = pp_jget_enum(d, t, "training", "precision", false, pp_dtype_names, PP_DT_COUNT, &e,
			       &present, err)))
		return rc;
	if (present)
		tr->precision = (pp_dtype)e;
	if ((rc = pp_jget_enum(d, t, "training", "recompute", false, pp_recompute_names, 3, &e,
			       &present, err)))
		return rc;
	if (present) {
		tr->recompute = (pp_recompute)e;
		s->given |= PP_GIVEN_RECOMPUTE;
	}
	if ((rc = pp_jget_enum(d, t, "training", "optimizer", false, pp_optimizer_names, 2, &e,
			       &present, err)))
		return rc;
	if (present)
		tr->optimizer = (pp_optimizer)e;
	double bucket = 0;
	if ((rc = pp_jget_num(d, t, "training", "train_tokens", false, 1, 1e18, &tr->train_tokens,
			      NULL, err)) ||
	    (rc = pp_jget_bool(d, t, "training", "use_flash_attn", false, &tr->use_flash_attn, NULL, err)) ||
	    (rc = pp_jget_bool(d, t, "training", "overlap_grad_reduce", false, &tr->overlap_grad_reduce,
			       NULL, err)) ||
	    (rc = pp_jget_bool(d, t, "training", "overlap_param_gather", false,
			       &tr->overlap_param_gather, NULL, err)) ||
	    (rc = pp_jget_bool(d, t, "training", "overlap_p2p_comm", false, &tr->overlap_p2p_comm,
			       NULL, err)) ||
	    (rc = pp_jget_num(d, t, "training", "bucket_size", false, 1, 1e13, &bucket, NULL, err)) ||
	    (rc = pp_jget_num(d, t, "training", "data_bytes_per_token", false, 0, 1e9,
			      &tr->data_bytes_per_token, NULL, err)))
		return rc;
	/* Megatron's bucket_size counts parameters; store bytes of fp32 grads. */
	tr->bucket_bytes = bucket * 4.0;
	if ((rc = parse_moe_training(s, t, cat, err)))
		return rc;
	return parse_finetune(s, t, cat, err);
}

/* Megatron-Core's pipeline_model_parallel_layout string
 * (transformer/pipeline_parallel_layer_layout.py parse_str_to_list at
 * core_v0.19): commas dropped, "(...)*n" and "x*n" unrolled, '|' splits the
 * virtual stages, E embedding, t a decoder layer, m an MTP depth, L the
 * loss. podplan runs the embedding on the first virtual stage and the head
 * (with the MTP depths) on the last, so E must open the layout and the m's
 * and the L close it, in the last virtual stage (Megatron's own rules:
 * embedding first, loss last, MTP after every decoder layer and in a
 * rank's last chunk). The virtual stages set the chunks per stage:
 * their count over pipeline_model_parallel_size. */
static int unroll(const char *in, char *out, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; in[i]; i++) {
		const char *body = NULL;
		size_t blen = 0, next = i;
		if (in[i] == '(') {
			const char *close = strchr(in + i, ')');
			if (!close || close[1] != '*')
				return -1;
			body = in + i + 1;
			blen = (size_t)(close - body);
			next = (size_t)(close - in) + 1;
		} else if (in[i + 1] == '*') {
			body = in + i;
			blen = 1;
			next = i + 1;
		}
		if (!body) {
			if (o + 1 >= n)
				return -1;
			out[o++] = in[i];
			continue;
		}
		char *end;
		long times = strtol(in + next + 1, &end, 10);
		if (end == in + next + 1 || times < 0 || times > 100000)
			return -1;
		for (long r = 0; r < times; r++) {
			if (o + blen >= n)
				return -1;
			memcpy(out + o, body, blen);
			o += blen;
		}
		i = (size_t)(end - in) - 1;
	}
	out[o] = 0;
	return 0;
}

static int parse_layout(pp_scenario *s, const cJSON *p, pp_err *err)
{
	const pp_jdoc *d = &s->doc;
	pp_parallel *pa = &s->parallel;
	const char *K = "parallel.pipeline_model_parallel_layout";
	char raw[512] = "", plain[512], ex[8192];
	bool present = false;
	int rc;
	pa->layout_len = 0;
	pa->layout_mtp = 0;
	memset(pa->layout_layers, 0, sizeof(pa->layout_layers));
	if ((rc = pp_jget_str(d, p, "parallel", "pipeline_model_parallel_layout", false, raw,
			      sizeof(raw), &present, err)))
		return rc;
	if (!present)
		return 0;
	size_t o = 0;
	for (size_t i = 0; raw[i]; i++)
		if (raw[i] != ',' && raw[i] != ' ')
			plain[o++] = raw[i];
	plain[o] = 0;
	if (unroll(plain, ex, sizeof(ex)))
		return pp_jdoc_errf(d, err, K, "found \"%s\": cannot unroll it; expected Megatron's "
				    "syntax, virtual stages split by '|', \"(...)*n\" or \"x*n\" to "
				    "repeat (e.g. \"Et|(tt|)*30mL\")", raw);
	if (pa->first_stage_layers || pa->last_stage_layers)
		return pp_jdoc_errf(d, err, K, "found with decoder_first/last_pipeline_num_layers; "
				    "expected one of the two ways to split the layers");
	int n = 1, e_at = -1, l_at = -1, first_m = -1, last_t = -1;
	size_t len = strlen(ex);
	for (size_t i = 0; i < len; i++) {
		char ch = ex[i];
		if (ch == '|') {
			if (n >= PP_LAYOUT_MAX)
				return pp_jdoc_errf(d, err, K, "found more than %d virtual stages; "
						    "expected at most %d", PP_LAYOUT_MAX, PP_LAYOUT_MAX);
			n++;
			continue;
		}
		if (ch == 't') {
			pa->layout_layers[n - 1]++;
			last_t = (int)i;
		} else if (ch == 'm') {
			pa->layout_mtp++;
			if (first_m < 0)
				first_m = (int)i;
		} else if (ch == 'E') {
			if (e_at >= 0)
				return pp_jdoc_errf(d, err, K, "found \"%s\" with more than one E; expected "
						    "the embedding exactly once", raw);
			e_at = (int)i;
		} else if (ch == 'L') {
			if (l_at >= 0)
				return pp_jdoc_errf(d, err, K, "found \"%s\" with more than one L; expected "
						    "the loss exactly once", raw);
			l_at = (int)i;
		} else {
			return pp_jdoc_errf(d, err, K, "found '%c' in \"%s\"; expected the layer "
					    "characters E (embedding), t (decoder layer), m (MTP) and L "
					    "(loss), '|' between virtual stages", ch, raw);
		}
	}
	if (e_at != 0 || l_at != (int)len - 1)
		return pp_jdoc_errf(d, err, K, "found \"%s\"; expected E first and L last "
				    "(Megatron-Core: \"The first layer must be embedding\", \"The last "
				    "layer must be loss\")", raw);
	const char *lastvs = strrchr(ex, '|');
	if (first_m >= 0 && (first_m < last_t || (lastvs && first_m < lastvs - ex)))
		return pp_jdoc_errf(d, err, K, "found \"%s\": an MTP depth before a decoder layer or "
				    "outside the last virtual stage; expected the m's after every t, in "
				    "the last stage with the L (podplan runs them with the loss)", raw);
	pa->layout_len = n;
	if (pa->pp < 1 || n % pa->pp)
		return pp_jdoc_errf(d, err, K, "found %d virtual stages, not a multiple of "
				    "pipeline_model_parallel_size %d; expected a multiple (Megatron-Core: "
				    "\"pipeline_model_parallel_layout must be divisible by "
				    "pipeline_model_parallel_size\")", n, pa->pp);
	int v = n / pa->pp;
	if ((s->given & PP_GIVEN_VPP) && pa->vpp != v)
		return pp_jdoc_errf(d, err, K, "found %d virtual stages over %d pipeline stages = %d "
				    "chunks each, but virtual_pipeline_model_parallel_size is %d; expected "
				    "them to agree (or leave the latter out)", n, pa->pp, v, pa->vpp);
	pa->vpp = v;
	return 0;
}

static int parse_parallel(pp_scenario *s, pp_err *err)
{
	const pp_jdoc *d = &s->doc;
	const cJSON *p;
	int rc;
	pp_parallel *pa = &s->parallel;
	pa->tp = pa->pp = pa->dp = pa->cp = pa->vpp = 1;
	pa->ep = 1;
	pa->etp = 0; /* not given: the tensor-parallel size (Megatron-Core's default) */
	pa->schedule = PP_SCHED_1F1B;
	if ((rc = pp_jget_obj(d, d->root, "", "parallel", false, &p, err)))
		return rc;
	if (!p)
		return 0;
	if ((rc = pp_jcheck_keys(d, p, "parallel", parallel_keys, PP_ARRAY_LEN(parallel_keys), err)))
		return rc;
	struct {
		const char *key;
		int *field;
		unsigned flag;
	} ints[] = {
		{"tensor_model_parallel_size", &pa->tp, PP_GIVEN_TP},
		{"pipeline_model_parallel_size", &pa->pp, PP_GIVEN_PP},
		{"data_parallel_size", &pa->dp, PP_GIVEN_DP},
		{"context_parallel_size", &pa->cp, PP_GIVEN_CP},
		{"virtual_pipeline_model_parallel_size", &pa->vpp, PP_GIVEN_VPP},
		{"expert_model_parallel_size", &pa->ep, PP_GIVEN_EP},
		/* given when > 0; left out it means the tensor-parallel size */
		{"expert_tensor_parallel_size", &pa->etp, 0},
	};
	for (size_t i = 0; i < PP_ARRAY_LEN(ints); i++) {
		int64_t v = 0;
		bool present;
		if ((rc = pp_jget_int(d, p, "parallel", ints[i].key, false, 1, MAX_GPUS, &v, &present, err)))
			return rc;
		if (present) {
			*ints[i].field = (int)v;
			s->given |= ints[i].flag;
		}
	}
	int64_t fl = 0, ll = 0;
	if ((rc = pp_jget_int(d, p, "parallel", "decoder_first_pipeline_num_layers", false, 1,
			      MAX_DIM, &fl, NULL, err)) ||
	    (rc = pp_jget_int(d, p, "parallel", "decoder_last_pipeline_num_layers", false, 1, MAX_DIM,
			      &ll, NULL, err)))
		return rc;
	pa->first_stage_layers = (int)fl;
	pa->last_stage_layers = (int)ll;
	if ((rc = parse_layout(s, p, err)))
		return rc;
	bool present;
	if ((rc = pp_jget_bool(d, p, "parallel", "sequence_parallel", false, &pa->sequence_parallel,
			       &present, err)))
		return rc;
	if (present)
		s->given |= PP_GIVEN_SP;
	int64_t z = 0;
	if ((rc = pp_jget_int(d, p, "parallel", "zero_stage", false, 0, 3, &z, &present, err)))
		return rc;
	if (present) {
		pa->zero_stage = (int)z;
		s->given |= PP_GIVEN_ZERO;
	}
	int e = 0;
	if ((rc = pp_jget_enum(d, p, "parallel", "pipeline_schedule", false, pp_schedule_names, 3, &e,
			       &present, err)))
		return rc;
	if (present) {
		pa->schedule = (pp_schedule)e;
		s->given |= PP_GIVEN_SCHEDULE;
	}
	if (pa->vpp > 1 && !(s->given & PP_GIVEN_SCHEDULE))
		pa->schedule = PP_SCHED_INTERLEAVED;
	if (pa->vpp > 1 && pa->schedule != PP_SCHED_INTERLEAVED)
		return pp_jdoc_errf(d, err, "parallel.pipeline_schedule", "found \"%s\" with "
				    "virtual_pipeline_model_parallel_size %d; expected \"interleaved\"",
				    pp_schedule_names[pa->schedule], pa->vpp);
	return 0;
}

/* ---- cluster ---- */

static int lookup_fabric(const pp_jdoc *d, const pp_catalog *cat, const char *path, const char *id,
			 bool want_intra, const pp_fabric **out, pp_err *err)
{
	const pp_fabric *f = pp_catalog_fabric(cat, id);
	if (!f) {
		size_t n;
		const char *const *ids = pp_catalog_ids(cat, "fabrics", &n);
		const char *dym = pp_did_you_mean(id, ids, n);
		pp_sb list = {0};
		for (size_t i = 0; i < n; i++)
			if (pp_catalog_fabric_at(cat, i)->intra_node == want_intra)
				pp_sb_addf(&list, "%s%s", list.len ? ", " : "", ids[i]);
		int rc = dym ? pp_jdoc_errf(d, err, path, "unknown fabric \"%s\", did you mean \"%s\"?",
					    id, dym)
			     : pp_jdoc_errf(d, err, path, "unknown fabric \"%s\", expected one of: %s", id,
					    list.buf);
		pp_sb_release(&list);
		return rc;
	}
	if (f->intra_node != want_intra)
		return pp_jdoc_errf(d, err, path, "found \"%s\", an %s fabric; expected an %s fabric", id,
				    f->intra_node ? "intra-node" : "inter-node",
				    want_intra ? "intra-node" : "inter-node");
	*out = f;
	return 0;
}

static int parse_cluster(pp_scenario *s, const pp_catalog *cat, pp_err *err)
{
	const pp_jdoc *d = &s->doc;
	const cJSON *c;
	int rc;
	pp_cluster *cl = &s->cluster;
	if ((rc = pp_jget_obj(d, d->root, "", "cluster", true, &c, err)) ||
	    (rc = pp_jcheck_keys(d, c, "cluster", cluster_keys, PP_ARRAY_LEN(cluster_keys), err)))
		return rc;
	char gpu[64];
	if ((rc = pp_jget_str(d, c, "cluster", "gpu", true, gpu, sizeof(gpu), NULL, err)))
		return rc;
	cl->gpu = pp_catalog_gpu(cat, gpu);
	if (!cl->gpu) {
		size_t n;
		const char *const *ids = pp_catalog_ids(cat, "gpus", &n);
		const char *dym = pp_did_you_mean(gpu, ids, n);
		pp_sb list = {0};
		for (size_t i = 0; i < n; i++)
			pp_sb_addf(&list, "%s%s", i ? ", " : "", ids[i]);
		rc = dym ? pp_jdoc_errf(d, err, "cluster.gpu", "unknown GPU \"%s\", did you mean \"%s\"?",
					gpu, dym)
			 : pp_jdoc_errf(d, err, "cluster.gpu", "unknown GPU \"%s\", expected one of: %s",
					gpu, list.buf);
		pp_sb_release(&list);
		return rc;
	}
	int64_t v = 0;
	bool present;
	if ((rc = pp_jget_int(d, c, "cluster", "num_gpus", true, 1, MAX_GPUS, &v, NULL, err)))
		return rc;
	cl->num_gpus = (int)v;
	cl->gpus_per_node = cl->gpu->gpus_per_node;
	if ((rc = pp_jget_int(d, c, "cluster", "gpus_per_node", false, 1, 1024, &v, &present, err)))
		return rc;
	if (present)
		cl->gpus_per_node = (int)v;
	char intra[32];
	snprintf(intra, sizeof(intra), "%s", cl->gpu->intra_node);
	if ((rc = pp_jget_str(d, c, "cluster", "intra_node", false, intra, sizeof(intra), NULL, err)) ||
	    (rc = lookup_fabric(d, cat, "cluster.intra_node", intra, true, &cl->intra, err)))
		return rc;
	if (cl->intra->kind == PP_FAB_NVLINK && !cl->gpu->nvlink_gen)
		return pp_jdoc_errf(d, err, "cluster.intra_node", "found \"%s\", but %s has no NVLink; "
				    "expected a PCIe fabric", intra, cl->gpu->id);
	/* Inter-node fabric: defaults are one 400G NDR NIC per GPU, non-blocking. */
	char inter[32] = "ib-ndr";
	cl->nics_per_node = cl->gpus_per_node;
	cl->oversubscription = 1.0;
	cl->rail_optimized = true;
	const cJSON *in;
	if ((rc = pp_jget_obj(d, c, "cluster", "inter_node", false, &in, err)))
		return rc;
	if (in) {
		static const char *const topo[] = {"rail-optimized", "fat-tree"};
		int t = 0;
		if ((rc = pp_jcheck_keys(d, in, "cluster.inter_node", inter_keys,
					 PP_ARRAY_LEN(inter_keys), err)) ||
		    (rc = pp_jget_str(d, in, "cluster.inter_node", "fabric", false, inter, sizeof(inter),
				      NULL, err)) ||
		    (rc = pp_jget_int(d, in, "cluster.inter_node", "nics_per_node", false, 1, 64, &v,
				      &present, err)))
			return rc;
		if (present)
			cl->nics_per_node = (int)v;
		if ((rc = pp_jget_num(d, in, "cluster.inter_node", "oversubscription", false, 1, 64,
				      &cl->oversubscription, NULL, err)) ||
		    (rc = pp_jget_enum(d, in, "cluster.inter_node", "topology", false, topo, 2, &t,
				       &present, err)))
			return rc;
		if (present)
			cl->rail_optimized = t == 0;
	}
	if ((rc = lookup_fabric(d, cat, "cluster.inter_node.fabric", inter, false, &cl->inter, err)))
		return rc;
	/* Storage. */
	char st[48] = "lustre";
	const cJSON *so;
	if ((rc = pp_jget_obj(d, c, "cluster", "storage", false, &so, err)))
		return rc;
	double rd = 0, wr = 0;
	if (so) {
		if ((rc = pp_jcheck_keys(d, so, "cluster.storage", storage_keys,
					 PP_ARRAY_LEN(storage_keys), err)) ||
		    (rc = pp_jget_str(d, so, "cluster.storage", "type", false, st, sizeof(st), NULL, err)) ||
		    (rc = pp_jget_num(d, so, "cluster.storage", "read_gbytes_per_s_per_node", false, 1e-3,
				      1e5, &rd, NULL, err)) ||
		    (rc = pp_jget_num(d, so, "cluster.storage", "write_gbytes_per_s_per_node", false, 1e-3,
				      1e5, &wr, NULL, err)))
			return rc;
	}
	cl->storage = pp_catalog_storage(cat, st);
	if (!cl->storage) {
		size_t n;
		const char *const *ids = pp_catalog_ids(cat, "storage", &n);
		pp_sb list = {0};
		for (size_t i = 0; i < n; i++)
			pp_sb_addf(&list, "%s%s", i ? ", " : "", ids[i]);
		rc = pp_jdoc_errf(d, err, "cluster.storage.type", "unknown storage \"%s\", expected one "
				  "of: %s", st, list.buf);
		pp_sb_release(&list);
		return rc;
	}
	cl->storage_read_Bps = rd > 0 ? rd * PP_GB : cl->storage->read_Bps_per_node;
	cl->storage_write_Bps = wr > 0 ? wr * PP_GB : cl->storage->write_Bps_per_node;
	return 0;
}

static int parse_calibration(pp_scenario *s, pp_err *err)
{
	const pp_jdoc *d = &s->doc;
	const cJSON *c;
	int rc;
	if ((rc = pp_jget_obj(d, d->root, "", "calibration", false, &c, err)))
		return rc;
	if (!c)
		return 0;
	if ((rc = pp_jcheck_keys(d, c, "calibration", calib_keys, PP_ARRAY_LEN(calib_keys), err)) ||
	    (rc = pp_jget_str(d, c, "calibration", "db", false, s->calib_db, sizeof(s->calib_db), NULL,
			      err)) ||
	    (rc = pp_jget_str(d, c, "calibration", "profile", true, s->calib_profile,
			      sizeof(s->calib_profile), NULL, err)))
		return rc;
	if (s->calib_db[0] && s->calib_db[0] != '/') {
		/* relative to the scenario file */
		char tmp[PATH_MAX], full[PATH_MAX + 600];
		snprintf(tmp, sizeof(tmp), "%s", d->path);
		snprintf(full, sizeof(full), "%s/%s", dirname(tmp), s->calib_db);
		snprintf(s->calib_db, sizeof(s->calib_db), "%.511s", full);
	}
	return 0;
}

/* training.framework and the behaviour keys (input/framework.h); the
 * attention kernel decides use_flash_attn. */
static int parse_stack(pp_scenario *s, const pp_catalog *cat, pp_err *err)
{
	const pp_jdoc *d = &s->doc;
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(d->root, "training");
	pp_training *tr = &s->training;
	int rc = pp_stack_resolve(&tr->stack, pp_catalog_frameworks(cat), d, t, err);
	if (rc)
		return rc;
	tr->use_flash_attn = tr->stack.attn != PP_ATTN_UNFUSED;
	return 0;
}

static int finish(pp_scenario *s, bool check_layout, pp_err *err)
{
	const pp_jdoc *d = &s->doc;
	pp_parallel *p = &s->parallel;
	pp_training *t = &s->training;
	pp_cluster *c = &s->cluster;
	if (s->model.num_attention_heads % p->tp)
		return pp_jdoc_errf(d, err, "parallel.tensor_model_parallel_size", "found %d, which does "
				    "not divide num_attention_heads = %d; expected a divisor of the head "
				    "count", p->tp, s->model.num_attention_heads);
	if (!(s->given & PP_GIVEN_DP)) {
		int64_t denom = (int64_t)p->tp * p->pp * p->cp;
		if (c->num_gpus % denom)
			return pp_jdoc_errf(d, err, "parallel", "found tensor %d x pipeline %d x context "
					    "%d = %lld, which does not divide cluster.num_gpus = %d; "
					    "expected a divisor (data_parallel_size is derived)",
					    p->tp, p->pp, p->cp, (long long)denom, c->num_gpus);
		p->dp = (int)(c->num_gpus / denom);
	}
	if (t->global_batch_size == 0)
		t->global_batch_size = t->micro_batch_size * p->dp;
	if (t->bucket_bytes == 0)
		t->bucket_bytes = 40e6 * 4.0; /* Megatron DDP default: max(40M, 1M x dp) params */
	const char *key = NULL;
	char why[512];
	if (check_layout && pp_layout_check(&s->model, t, p, c, &key, why, sizeof(why)))
		return pp_jdoc_errf(d, err, key, "%s", why);
	pp_layout_derive(t, p);
	return 0;
}

static int parse_body(pp_scenario *s, const char *name, const char *text, size_t len,
		      const pp_catalog *cat, bool check_layout, pp_err *err)
{
	memset(s, 0, sizeof(*s));
	int rc = pp_jdoc_parse(&s->doc, name, text, len, err);
	if (rc)
		return rc;
	const pp_jdoc *d = &s->doc;
	pp_hash_hex(text, len, s->hash);
	if ((rc = pp_jcheck_keys(d, d->root, "", top_keys, PP_ARRAY_LEN(top_keys), err)))
		return rc;
	bool present;
	if ((rc = pp_jget_str(d, d->root, "", "name", false, s->name, sizeof(s->name), &present, err)))
		return rc;
	if (!present) {
		const char *b = strrchr(name, '/');
		snprintf(s->name, sizeof(s->name), "%s", b ? b + 1 : name);
		char *dot = strrchr(s->name, '.');
		if (dot && !strcmp(dot, ".json"))
			*dot = '\0';
	}
	if ((rc = pp_jget_str(d, d->root, "", "description", false, s->description,
			      sizeof(s->description), NULL, err)) ||
	    (rc = parse_model(s, cat, err)) || (rc = parse_training(s, cat, err)) ||
	    (rc = parse_parallel(s, err)) || (rc = parse_cluster(s, cat, err)) ||
	    (rc = parse_calibration(s, err)) ||
	    (rc = pp_servespec_parse(&s->serve, d, &s->model, &s->cluster, cat, err)) ||
	    (rc = parse_stack(s, cat, err)))
		return rc;
	const cJSON *costs;
	if ((rc = pp_jget_obj(d, d->root, "", "costs", false, &costs, err)) ||
	    (rc = pp_costspec_parse(&s->costs, d, costs, "costs", cat, err)))
		return rc;
	if ((rc = finish(s, check_layout, err)) || (rc = pp_scenario_check_limits(s, err)))
		return rc;
	const cJSON *search;
	if ((rc = pp_jget_obj(d, d->root, "", "search", false, &search, err)))
		return rc;
	return pp_size_spec_parse(&s->search, d, search, "search", cat, err);
}

/* On failure, nothing stays allocated (s is zeroed: releasing it is
 * harmless). */
static int parse(pp_scenario *s, const char *name, const char *text, size_t len,
		 const pp_catalog *cat, bool check_layout, pp_err *err)
{
	int rc = parse_body(s, name, text, len, cat, check_layout, err);
	if (rc) {
		pp_scenario_release(s);
		memset(s, 0, sizeof(*s));
	}
	return rc;
}

int pp_scenario_parse(pp_scenario *s, const char *name, const char *text, size_t len,
		      const pp_catalog *cat, pp_err *err)
{
	return parse(s, name, text, len, cat, true, err);
}

static int load(pp_scenario *s, const char *path, const pp_catalog *cat, bool check_layout,
		pp_err *err)
{
	char *text = NULL;
	size_t len = 0;
	memset(s, 0, sizeof(*s));
	int rc = pp_read_file(path, 16u << 20, &text, &len, err);
	if (rc)
		return rc;
	rc = parse(s, path, text, len, cat, check_layout, err);
	free(text);
	return rc;
}

int pp_scenario_load(pp_scenario *s, const char *path, const pp_catalog *cat, pp_err *err)
{
	return load(s, path, cat, true, err);
}

void pp_scenario_release(pp_scenario *s)
{
	if (!s)
		return;
	pp_costspec_release(&s->costs);
	pp_servespec_release(&s->serve);
	pp_jdoc_release(&s->doc);
}

int pp_scenario_parse_unchecked(pp_scenario *s, const char *name, const char *text, size_t len,
				const pp_catalog *cat, pp_err *err)
{
	return parse(s, name, text, len, cat, false, err);
}

int pp_scenario_load_unchecked(pp_scenario *s, const char *path, const pp_catalog *cat, pp_err *err)
{
	return load(s, path, cat, false, err);
}
