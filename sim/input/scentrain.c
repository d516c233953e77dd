/* scentrain.c - the scenario's "training" section: batch, precision,
 * recomputation, optimizer, overlap and bucket keys, the mixture-of-experts
 * training keys, fine-tuning, and the framework's behaviours (scenint.h). */
#include "input/scenint.h"

#include <stdio.h>
#include <string.h>

const char *const pp_recompute_names[3] = {"none", "selective", "full"};
const char *const pp_optimizer_names[2] = {"adam", "sgd"};
const char *const pp_recompute_module_names[PP_RCM_COUNT] = {"core_attn", "layernorm",
							      "mla_up_proj", "moe_act"};
const char *const pp_moe_dispatcher_names[2] = {"alltoall", "allgather"};

static const char *const training_keys[] = {"global_batch_size", "micro_batch_size", "precision",
					    "recompute", "optimizer", "train_tokens", "use_flash_attn",
					    "overlap_grad_reduce", "overlap_param_gather", "fp8_param_gather",
					    "overlap_p2p_comm",
					    "bucket_size", "data_bytes_per_token", "finetune",
					    "lora_rank", "moe_token_dispatcher_type",
					    "moe_expert_capacity_factor", "moe_load_imbalance",
					    "moe_shared_expert_overlap", "moe_grouped_gemm",
					    "overlap_moe_expert_parallel_comm", "delay_wgrad_compute",
					    "moe_ep_comm_sms", "framework",
					    "torch_compile", "attention_kernel", "cross_entropy", "elementwise",
					    "fused_projections", "selective_recompute", "grad_reduce_in_fp32",
					    "reshard_after_forward", "tp_comm_overlap", "optimizer_impl",
					    "cuda_graphs", "host_issue_us", "master_weights_fp32",
					    "context_parallel_comm", "fp8_recipe", "autocast", "tensor_clock",
					    "ddp", "recompute_modules", "fp8_activation_cache",
					    "exp_avg_dtype", "exp_avg_sq_dtype"};
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
	tr->moe_ep_comm_sms = (int)pp_catalog_moe(cat)->ep_comm_sms;
	if (!t)
		return 0;
	static const char *const keys[] = {"moe_token_dispatcher_type", "moe_expert_capacity_factor",
					   "moe_load_imbalance", "moe_shared_expert_overlap",
					   "moe_grouped_gemm", "overlap_moe_expert_parallel_comm",
					   "delay_wgrad_compute", "moe_ep_comm_sms"};
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
	int64_t sms = 0;
	bool sms_given = false;
	if ((rc = pp_jget_int(d, t, "training", "moe_ep_comm_sms", false, 0, 1024, &sms, &sms_given,
			      err)))
		return rc;
	if (sms_given)
		tr->moe_ep_comm_sms = (int)sms;
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

/* The memory measures (DeepSeek-V3, arXiv:2412.19437 Sec. 3.2.3 and 3.3):
 * training.recompute_modules (Megatron-Core's names; with it, "recompute"
 * follows from "core_attn" and may not say otherwise), fp8_activation_cache,
 * exp_avg_dtype and exp_avg_sq_dtype. t is the training section. */
static int parse_memory_measures(pp_scenario *s, const cJSON *t, bool rc_given, pp_err *err)
{
	const pp_jdoc *d = &s->doc;
	pp_training *tr = &s->training;
	char path[96];
	int rc;
	tr->recompute_modules = tr->recompute == PP_RC_SELECTIVE ? PP_RCM_CORE_ATTN : 0;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, "recompute_modules");
	if (v) {
		const char *RM = "training.recompute_modules";
		if (!cJSON_IsArray(v))
			return pp_jdoc_errf(d, err, RM, "found a non-array; expected an array of "
					    "Megatron-Core module names (core_attn, layernorm, "
					    "mla_up_proj, moe_act)");
		unsigned mods = 0;
		const cJSON *it;
		cJSON_ArrayForEach(it, v) {
			int k = -1;
			for (int i = 0; i < PP_RCM_COUNT && cJSON_IsString(it); i++)
				if (!strcmp(it->valuestring, pp_recompute_module_names[i]))
					k = i;
			if (k < 0)
				return pp_jdoc_errf(d, err, RM, "found %s%s%s; expected core_attn, "
						    "layernorm, mla_up_proj or moe_act (Megatron-Core's mlp, "
						    "moe and shared_experts are not modelled)",
						    cJSON_IsString(it) ? "\"" : "",
						    cJSON_IsString(it) ? it->valuestring : "a non-string",
						    cJSON_IsString(it) ? "\"" : "");
			mods |= 1u << k;
		}
		pp_recompute want = mods & PP_RCM_CORE_ATTN ? PP_RC_SELECTIVE : PP_RC_NONE;
		if (rc_given && tr->recompute != want)
			return pp_jdoc_errf(d, err, RM, "found with recompute \"%s\"; expected recompute "
					    "left out or \"%s\" (core_attn in the list is \"selective\", "
					    "as Megatron-Core's recompute_granularity selective)",
					    pp_recompute_names[tr->recompute], pp_recompute_names[want]);
		if ((mods & PP_RCM_MLA_UP_PROJ) && !s->model.q_lora_rank && !s->model.kv_lora_rank)
			return pp_jdoc_errf(d, err, RM, "found \"mla_up_proj\" for a model without "
					    "multi-latent attention; expected it only with q_lora_rank or "
					    "kv_lora_rank");
		if ((mods & PP_RCM_MOE_ACT) && s->model.num_experts <= 0)
			return pp_jdoc_errf(d, err, RM, "found \"moe_act\" for a dense model; expected "
					    "it only with model.num_experts > 0");
		tr->recompute = want;
		tr->recompute_modules = mods;
		s->given |= PP_GIVEN_RECOMPUTE;
	}
	if ((rc = pp_jget_bool(d, t, "training", "fp8_activation_cache", false, &tr->fp8_act_cache,
			       NULL, err)))
		return rc;
	if (tr->fp8_act_cache && tr->precision != PP_DT_FP8)
		return pp_jdoc_errf(d, err, pp_jpath(path, sizeof(path), "training",
						     "fp8_activation_cache"),
				    "found true with precision %s; expected precision fp8",
				    pp_dtype_names[tr->precision]);
	static const char *const keys[2] = {"exp_avg_dtype", "exp_avg_sq_dtype"};
	static const char *const dts[2] = {"fp32", "bf16"};
	int *out[2] = {&tr->exp_avg_bytes, &tr->exp_avg_sq_bytes};
	for (int i = 0; i < 2; i++) {
		int e = 0;
		bool present = false;
		*out[i] = 0;
		if ((rc = pp_jget_enum(d, t, "training", keys[i], false, dts, 2, &e, &present, err)))
			return rc;
		if (present)
			*out[i] = e == 0 ? 4 : 2;
	}
	return 0;
}

int pp_scen_parse_training(pp_scenario *s, const pp_catalog *cat, pp_err *err)
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
	tr->recompute_modules = 0;
	tr->fp8_act_cache = false;
	tr->exp_avg_bytes = tr->exp_avg_sq_bytes = 0;
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
	/* the FP4 formats are serving precisions: not among the first
	 * PP_DT_TRAIN_COUNT names, so refused here with the list of these */
	if ((rc = pp_jget_enum(d, t, "training", "precision", false, pp_dtype_names,
			       PP_DT_TRAIN_COUNT, &e, &present, err)))
		return rc;
	if (present)
		tr->precision = (pp_dtype)e;
	if ((rc = pp_jget_enum(d, t, "training", "recompute", false, pp_recompute_names, 3, &e,
			       &present, err)))
		return rc;
	bool rc_given = present;
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
	    (rc = pp_jget_bool(d, t, "training", "fp8_param_gather", false, &tr->fp8_param_gather,
			       NULL, err)) ||
	    (rc = pp_jget_bool(d, t, "training", "overlap_p2p_comm", false, &tr->overlap_p2p_comm,
			       NULL, err)) ||
	    (rc = pp_jget_num(d, t, "training", "bucket_size", false, 1, 1e13, &bucket, NULL, err)) ||
	    (rc = pp_jget_num(d, t, "training", "data_bytes_per_token", false, 0, 1e9,
			      &tr->data_bytes_per_token, NULL, err)))
		return rc;
	/* Megatron's --fp8-param-gather (megatron/training/arguments.py: "Keep the
	 * compute param in fp8 ... and perform the param all-gather in fp8") needs
	 * FP8 compute: Transformer Engine's FP8 weights */
	if (tr->fp8_param_gather && tr->precision != PP_DT_FP8) {
		char path[64];
		return pp_jdoc_errf(d, err, pp_jpath(path, sizeof(path), "training", "fp8_param_gather"),
				    "found true with precision %s; expected precision fp8 (FP8 "
				    "parameters exist only in FP8 training)",
				    pp_dtype_names[tr->precision]);
	}
	/* Megatron's bucket_size counts parameters; store bytes of fp32 grads. */
	tr->bucket_bytes = bucket * 4.0;
	if ((rc = parse_memory_measures(s, t, rc_given, err)))
		return rc;
	if ((rc = parse_moe_training(s, t, cat, err)))
		return rc;
	return parse_finetune(s, t, cat, err);
}

/* training.framework and the behaviour keys (input/framework.h); the
 * attention kernel decides use_flash_attn. */
int pp_scen_parse_stack(pp_scenario *s, const pp_catalog *cat, pp_err *err)
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
