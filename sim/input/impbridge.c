/* impbridge.c - podplan import nemo (import.h): a Megatron-Bridge recipe,
 * NeMo's training recipes since NeMo 2's LLM collection moved there, read
 * from its Python module as published (src/megatron/bridge/recipes/FAMILY/
 * GPU/MODEL.py at 067f987d, the version models/frameworks.json's `nemo`
 * entry names). A recipe is a function that starts from
 * `_pretrain_common()`, takes the model from `AutoBridge.
 * from_hf_pretrained("org/name")` and sets fields with `cfg.SECTION.KEY =
 * VALUE`; this file reads those statements, values that are literals or
 * module constants, and refuses by file:line any statement it does not
 * understand (a branch, a loop, a call it does not know) rather than guess
 * what running it would give. Defaults as _pretrain_common (recipes/
 * common.py) and the mixed-precision recipes (training/mixed_precision.py)
 * set them at that version. */
#include "input/impint.h"
#include "input/catalog.h"

typedef pp_bridge_recipe recipe;

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAP(n, c, k, w) {n, 1, PP_IMP_MAP, c, k, w}
#define IGN(n, w) {n, 1, PP_IMP_IGNORE, PP_IMPV_SPECIAL, NULL, w}
#define REF(n, w) {n, 1, PP_IMP_REFUSE, PP_IMPV_SPECIAL, NULL, w}
#define SPC(n, k, w) {n, 1, PP_IMP_MAP, PP_IMPV_SPECIAL, k, w}

static const char LOG[] = "logging, evaluation or the run's bookkeeping: not part of a training step";
static const char CKPT[] = "checkpoint paths, formats and intervals: podplan's step has no checkpoint";
static const char DATA[] = "data files and loading: podplan counts the bytes of a token, not the files";
static const char HYPER[] = "an optimizer or schedule hyper-parameter: the same kernels whatever its value";
static const char FUSE[] = "a kernel-fusion switch: podplan costs the framework's fused kernels "
			   "(training.elementwise)";

/* Refused rules here refuse a value that turns the feature on; False, None,
 * 0 and "none" pass (a recipe spells out its switches, most of them off). */
const pp_imp_rule pp_imp_bridge_rules[] = {
	/* parallelism (Megatron-Core's ModelParallelConfig on cfg.model) */
	MAP("model.tensor_model_parallel_size", PP_IMPV_INT, "parallel.tensor_model_parallel_size", "as given"),
	MAP("model.pipeline_model_parallel_size", PP_IMPV_INT, "parallel.pipeline_model_parallel_size", "as given"),
	MAP("model.virtual_pipeline_model_parallel_size", PP_IMPV_INT,
	    "parallel.virtual_pipeline_model_parallel_size", "as given (None: no interleaving)"),
	MAP("model.context_parallel_size", PP_IMPV_INT, "parallel.context_parallel_size", "as given"),
	MAP("model.expert_model_parallel_size", PP_IMPV_INT, "parallel.expert_model_parallel_size", "as given"),
	MAP("model.expert_tensor_parallel_size", PP_IMPV_INT, "parallel.expert_tensor_parallel_size", "as given"),
	SPC("model.sequence_parallel", "parallel.sequence_parallel", "as given at TP > 1 (off at TP 1)"),
	MAP("model.pipeline_model_parallel_layout", PP_IMPV_STR, "parallel.pipeline_model_parallel_layout",
	    "a layout string as given (None: none)"),
	SPC("model.account_for_embedding_in_pipeline_split", "parallel.pipeline_model_parallel_layout",
	    "with account_for_loss_in_pipeline_split: the embedding and the loss count as a layer each "
	    "and the layers + 2 split evenly over the virtual stages, written as the layout "
	    "(Megatron-Core's get_num_layers_to_build); one without the other is refused"),
	SPC("model.account_for_loss_in_pipeline_split", "parallel.pipeline_model_parallel_layout",
	    "see account_for_embedding_in_pipeline_split"),
	IGN("model.pipeline_dtype", "the dtype of the pipeline's activations: the training precision"),
	/* the model */
	SPC("model.seq_length", "model.seq_length", "as given; must equal dataset.seq_length (Bridge asserts it)"),
	IGN("model.init_method_std", "initialisation: before the first step"),
	IGN("model.transformer_impl", "transformer_engine: the framework's layers (a local "
	    "implementation is refused)"),
	SPC("model.attention_backend", "training.attention_kernel",
	    "None or auto: the framework's choice; flash: fa2; fused: cudnn; unfused or local: unfused"),
	SPC("model.cross_entropy_loss_fusion", "training.cross_entropy",
	    "True with cross_entropy_fusion_impl \"te\": te-fused, \"native\": megatron-fused; "
	    "False: megatron-vocab-parallel"),
	SPC("model.cross_entropy_fusion_impl", "training.cross_entropy", "see cross_entropy_loss_fusion"),
	SPC("model.cuda_graph_impl", "training.cuda_graphs",
	    "\"none\": false; \"local\" or \"transformer_engine\" over the full layer: true; "
	    "a partial scope (a list) is refused"),
	SPC("model.cuda_graph_scope", "training.cuda_graphs", "see cuda_graph_impl"),
	IGN("model.cuda_graph_warmup_steps", "graph capture before the measured steps"),
	SPC("model.recompute_granularity", "training.recompute", "None: none; full or selective"),
	SPC("model.recompute_method", "training.recompute", "uniform (every layer); block is refused"),
	SPC("model.recompute_num_layers", "training.recompute", "1 with uniform; another count is refused"),
	SPC("model.recompute_modules", "training.recompute",
	    "None, or [\"core_attn\"] with selective; another module list is refused"),
	REF("model.fine_grained_activation_offloading", "activation offloading to the host is not modelled"),
	REF("model.offload_modules", "activation offloading to the host is not modelled"),
	IGN("model.bias_activation_fusion", FUSE),
	IGN("model.apply_rope_fusion", FUSE),
	IGN("model.gradient_accumulation_fusion", FUSE),
	IGN("model.use_te_rng_tracker", "the random-number tracker for dropout: no dropout in these models"),
	/* mixture of experts */
	SPC("model.moe_token_dispatcher_type", "training.moe_token_dispatcher_type",
	    "alltoall or allgather; flex (DeepEP, HybridEP) is refused"),
	IGN("model.moe_flex_dispatcher_backend", "read only by apply_flex_dispatcher_backend (refused "
	    "when it selects flex)"),
	IGN("model.moe_hybridep_num_sms", "HybridEP's SM count: flex is refused"),
	IGN("model.moe_router_fusion", FUSE),
	IGN("model.moe_permute_fusion", FUSE),
	MAP("model.moe_grouped_gemm", PP_IMPV_BOOL, "training.moe_grouped_gemm", "as given"),
	IGN("model.moe_router_padding_for_fp8", "the router's padding of token counts for FP8 GEMMs"),
	MAP("model.moe_shared_expert_overlap", PP_IMPV_BOOL, "training.moe_shared_expert_overlap", "as given"),
	MAP("model.moe_a2a_overlap", PP_IMPV_BOOL, "training.overlap_moe_expert_parallel_comm", "as given"),
	REF("model.moe_router_force_load_balancing", "routing forced to balance: podplan's "
	    "training.moe_load_imbalance states the imbalance instead"),
	/* training */
	MAP("train.global_batch_size", PP_IMPV_INT, "training.global_batch_size", "as given"),
	MAP("train.micro_batch_size", PP_IMPV_INT, "training.micro_batch_size", "as given"),
	SPC("train.train_iters", "training.train_tokens", "x global batch x sequence length"),
	IGN("train.manual_gc", "Python's garbage collection schedule on the host"),
	IGN("train.manual_gc_interval", "Python's garbage collection schedule on the host"),
	IGN("train.manual_gc_eval", "Python's garbage collection schedule on the host"),
	IGN("validation.eval_interval", LOG),
	IGN("validation.eval_iters", LOG),
	SPC("mixed_precision", "training.precision",
	    "bf16_mixed: bf16; fp16_mixed: fp16; bf16_with_fp8_delayed_scaling_mixed: fp8 "
	    "(Transformer Engine's delayed scaling, fp8_recipe te); other FP8 and FP4 recipes are "
	    "refused"),
	SPC("mixed_precision.grad_reduce_in_fp32", "training.grad_reduce_in_fp32",
	    "as given; it overwrites ddp.grad_reduce_in_fp32 (MixedPrecisionConfig.setup); "
	    "bf16_mixed sets True"),
	MAP("mixed_precision.fp8_param_gather", PP_IMPV_BOOL, "training.fp8_param_gather", "as given"),
	SPC("comm_overlap", "training.tp_comm_overlap",
	    "CommOverlapConfig(tp_comm_overlap=...): as given; None: false; its userbuffers "
	    "configuration is not read"),
	MAP("comm_overlap.tp_comm_overlap", PP_IMPV_BOOL, "training.tp_comm_overlap",
	    "as given (Transformer Engine's userbuffers)"),
	IGN("comm_overlap.tp_comm_overlap_cfg", "the userbuffers' tuning (SMs, chunking): podplan "
	    "models the overlap, not its settings"),
	MAP("comm_overlap.overlap_moe_expert_parallel_comm", PP_IMPV_BOOL,
	    "training.overlap_moe_expert_parallel_comm", "as given"),
	MAP("comm_overlap.delay_wgrad_compute", PP_IMPV_BOOL, "training.delay_wgrad_compute", "as given"),
	/* distributed data parallel and the optimizer */
	SPC("ddp.use_distributed_optimizer", "parallel.zero_stage", "True: 1 (Megatron's distributed "
	    "optimizer shards the states over the data-parallel group)"),
	SPC("optimizer.use_distributed_optimizer", "parallel.zero_stage", "as ddp.use_distributed_optimizer"),
	MAP("ddp.overlap_grad_reduce", PP_IMPV_BOOL, "training.overlap_grad_reduce", "as given"),
	MAP("ddp.overlap_param_gather", PP_IMPV_BOOL, "training.overlap_param_gather", "as given"),
	IGN("ddp.grad_reduce_in_fp32", "overwritten by the mixed-precision recipe's "
	    "grad_reduce_in_fp32 (MixedPrecisionConfig.setup)"),
	IGN("ddp.check_for_nan_in_grad", "a check on scalars"),
	IGN("ddp.average_in_collective", "where the gradient average is taken: the same bytes"),
	IGN("ddp.data_parallel_sharding_strategy", "read only by Megatron-FSDP (use_megatron_fsdp, "
	    "refused when on)"),
	REF("ddp.use_megatron_fsdp", "Megatron-FSDP's sharding and buffers are not modelled "
	    "(ZeRO-3 is: parallel.zero_stage 3 in a scenario)"),
	REF("dist.use_megatron_fsdp", "Megatron-FSDP is not modelled"),
	REF("dist.use_torch_fsdp2", "PyTorch FSDP2 under Megatron-Bridge is not modelled"),
	REF("optimizer.use_precision_aware_optimizer", "optimizer states in a lower precision are "
	    "not modelled (podplan keeps fp32 states)"),
	SPC("optimizer.main_grads_dtype", "training.precision", "torch.float32 (another dtype is refused)"),
	SPC("optimizer.main_params_dtype", "training.precision", "torch.float32 (another dtype is refused)"),
	SPC("optimizer.exp_avg_dtype", "training.precision", "torch.float32 (another dtype is refused)"),
	SPC("optimizer.exp_avg_sq_dtype", "training.precision", "torch.float32 (another dtype is refused)"),
	IGN("optimizer.lr", HYPER), IGN("optimizer.min_lr", HYPER), IGN("optimizer.finetune_lr", HYPER),
	IGN("optimizer.weight_decay", HYPER), IGN("optimizer.adam_beta1", HYPER),
	IGN("optimizer.adam_beta2", HYPER), IGN("optimizer.adam_eps", HYPER),
	IGN("optimizer.clip_grad", HYPER),
	IGN("scheduler.lr_warmup_iters", HYPER), IGN("scheduler.lr_decay_iters", HYPER),
	IGN("scheduler.lr_warmup_init", HYPER), IGN("scheduler.lr_decay_style", HYPER),
	IGN("scheduler.start_weight_decay", HYPER), IGN("scheduler.end_weight_decay", HYPER),
	IGN("scheduler.weight_decay_incr_style", HYPER),
	/* the vocabulary */
	SPC("tokenizer.tokenizer_type", "model.vocab_size",
	    "NullTokenizer: its vocab_size, padded to a multiple of 128 x TP as Bridge pads a "
	    "tokenizer's vocabulary (use_tokenizer_vocab_size, set by _pretrain_common); another "
	    "tokenizer: the model's own vocabulary, or import --vocab-size N (podplan does not "
	    "read tokenizer files)"),
	SPC("tokenizer.vocab_size", "model.vocab_size", "see tokenizer_type"),
	IGN("tokenizer.tokenizer_model", "the tokenizer's name or path: see tokenizer_type"),
	IGN("tokenizer.hf_tokenizer_kwargs", "the tokenizer's loading options"),
	/* not part of a step */
	IGN("dataset.blend", DATA), IGN("dataset.num_workers", DATA), IGN("dataset.random_seed", DATA),
	SPC("dataset.seq_length", "model.seq_length", "the sequence length when model.seq_length is not set"),
	IGN("logger.log_interval", LOG), IGN("logger.log_timers_to_tensorboard", LOG),
	IGN("logger.tensorboard_dir", LOG),
	IGN("checkpoint.save_interval", CKPT), IGN("checkpoint.save", CKPT), IGN("checkpoint.load", CKPT),
	IGN("checkpoint.pretrained_checkpoint", CKPT),
	IGN("rng.seed", "the random seed: the same kernels"),
	IGN("rng.te_rng_tracker", "the random-number tracker for dropout: no dropout in these models"),
	IGN("env_vars", "the process environment"),
};
const size_t pp_imp_bridge_nrules = sizeof(pp_imp_bridge_rules) / sizeof(pp_imp_bridge_rules[0]);

/* Check every assignment against the rules: an unknown field, or a refused
 * one that turns its feature on, is PP_EINPUT naming file:line. */
static int check(const recipe *r, pp_err *err)
{
	for (size_t i = 0; i < r->a.n; i++) {
		const pp_imp_arg *g = &r->a.a[i];
		const pp_imp_rule *u = pp_imp_find(pp_imp_bridge_rules, pp_imp_bridge_nrules, g->flag);
		if (!u) {
			const char *names[256];
			size_t k = 0;
			for (; k < pp_imp_bridge_nrules && k < 256; k++)
				names[k] = pp_imp_bridge_rules[k].name;
			const char *dym = pp_did_you_mean(g->flag, names, k);
			return pp_errf(err, PP_EINPUT, "%s:%d: cfg.%s = %s: not a field podplan knows%s%s%s; "
				       "expected one of its table (podplan import --mapping nemo): mapped "
				       "to a scenario key, ignored with the reason, or refused by name",
				       r->file, g->line, g->flag, g->val[0], dym ? " (did you mean cfg." : "",
				       dym ? dym : "", dym ? "?)" : "");
		}
		if (u->act == PP_IMP_REFUSE && !pp_bridge_is_off(g->val[0]))
			return pp_errf(err, PP_EINPUT, "%s:%d: cfg.%s = %s: refused: %s", r->file, g->line,
				       g->flag, g->val[0], u->why);
	}
	return 0;
}

static const char *get(const recipe *r, const char *key, int *line)
{
	int l = 0;
	const char *v = pp_imp_get(&r->a, key, &l);
	if (line)
		*line = l;
	return v;
}

/* An integer field (absent or None: def); PP_EINPUT when not a number. */
static int getint(const recipe *r, const char *key, long long def, long long *out, pp_err *err)
{
	int line;
	const char *v = get(r, key, &line);
	*out = def;
	if (!v || !strcmp(v, "None"))
		return 0;
	char *e = NULL;
	long long x = strtoll(v, &e, 10);
	if (e == v || *e || x < 0)
		return pp_errf(err, PP_EINPUT, "%s:%d: cfg.%s = %s: found no whole number; expected "
			       "one >= 0 (a literal or a module constant)", r->file, line, key, v);
	*out = x;
	return 0;
}

static int getbool(const recipe *r, const char *key, int def, int *out, pp_err *err)
{
	int line;
	const char *v = get(r, key, &line);
	*out = def;
	if (!v || !strcmp(v, "None"))
		return 0;
	if (strcmp(v, "True") && strcmp(v, "False"))
		return pp_errf(err, PP_EINPUT, "%s:%d: cfg.%s = %s: expected True or False", r->file,
			       line, key, v);
	*out = !strcmp(v, "True");
	return 0;
}

static void set(cJSON *root, const char *key, cJSON *val)
{
	const char *leaf;
	cJSON *o = pp_imp_parent(root, key, &leaf);
	cJSON_DeleteItemFromObjectCaseSensitive(o, leaf);
	cJSON_AddItemToObject(o, leaf, val);
}

/* The plainly mapped fields (INT, STR, BOOL). */
static int apply(const recipe *r, cJSON *root, pp_err *err)
{
	for (size_t i = 0; i < pp_imp_bridge_nrules; i++) {
		const pp_imp_rule *u = &pp_imp_bridge_rules[i];
		if (u->act != PP_IMP_MAP || u->conv == PP_IMPV_SPECIAL)
			continue;
		int line, rc, b;
		long long x;
		const char *v = get(r, u->name, &line);
		if (!v || !strcmp(v, "None"))
			continue;
		switch (u->conv) {
		case PP_IMPV_INT:
			if ((rc = getint(r, u->name, 0, &x, err)))
				return rc;
			set(root, u->key, cJSON_CreateNumber((double)x));
			break;
		case PP_IMPV_STR:
			if (v[0] != '"')
				return pp_errf(err, PP_EINPUT, "%s:%d: cfg.%s = %s: expected a string",
					       r->file, line, u->name, v);
			char s[512];
			snprintf(s, sizeof(s), "%.*s", (int)strlen(v) - 2, v + 1);
			set(root, u->key, cJSON_CreateString(s));
			break;
		case PP_IMPV_BOOL:
			if ((rc = getbool(r, u->name, 0, &b, err)))
				return rc;
			set(root, u->key, cJSON_CreateBool(b));
			break;
		default:
			break;
		}
	}
	return 0;
}

static int precision(const recipe *r, cJSON *tr, pp_err *err)
{
	int line;
	const char *mp = get(r, "mixed_precision", &line);
	if (pp_bridge_is_str(mp, "bf16_mixed") || pp_bridge_is_str(mp, "bf16-mixed")) {
		cJSON_AddStringToObject(tr, "precision", "bf16");
	} else if (pp_bridge_is_str(mp, "fp16_mixed") || pp_bridge_is_str(mp, "fp16-mixed")) {
		cJSON_AddStringToObject(tr, "precision", "fp16");
	} else if (pp_bridge_is_str(mp, "bf16_with_fp8_delayed_scaling_mixed")) {
		cJSON_AddStringToObject(tr, "precision", "fp8");
		cJSON_AddStringToObject(tr, "fp8_recipe", "te");
	} else {
		return pp_errf(err, PP_EINPUT, "%s:%d: cfg.mixed_precision = %s: refused: podplan "
			       "models bf16_mixed, fp16_mixed and bf16_with_fp8_delayed_scaling_mixed "
			       "(Transformer Engine's delayed scaling); current, sub-channel, MXFP8 and "
			       "FP4 scaling are not modelled", r->file, line, mp);
	}
	/* MixedPrecisionConfig.setup copies its grad_reduce_in_fp32 (True
	 * unless set) over the DDP's */
	int b, rc;
	if ((rc = getbool(r, "mixed_precision.grad_reduce_in_fp32", 1, &b, err)))
		return rc;
	cJSON_AddBoolToObject(tr, "grad_reduce_in_fp32", b);
	static const char *const dt[] = {"optimizer.main_grads_dtype", "optimizer.main_params_dtype",
					 "optimizer.exp_avg_dtype", "optimizer.exp_avg_sq_dtype"};
	for (size_t i = 0; i < 4; i++) {
		const char *v = get(r, dt[i], &line);
		if (v && strcmp(v, "torch.float32") && strcmp(v, "None"))
			return pp_errf(err, PP_EINPUT, "%s:%d: cfg.%s = %s: refused: podplan keeps the "
				       "optimizer's gradients, master weights and states in fp32; "
				       "expected torch.float32", r->file, line, dt[i], v);
	}
	return 0;
}

static int recompute(const recipe *r, cJSON *tr, pp_err *err)
{
	int line, rc;
	const char *g = get(r, "model.recompute_granularity", &line);
	if (!g || !strcmp(g, "None"))
		return 0;
	if (!pp_bridge_is_str(g, "full") && !pp_bridge_is_str(g, "selective"))
		return pp_errf(err, PP_EINPUT, "%s:%d: cfg.model.recompute_granularity = %s: expected "
			       "\"full\", \"selective\" or None", r->file, line, g);
	const char *m = get(r, "model.recompute_method", &line);
	if (m && strcmp(m, "None") && !pp_bridge_is_str(m, "uniform"))
		return pp_errf(err, PP_EINPUT, "%s:%d: cfg.model.recompute_method = %s: refused: "
			       "podplan recomputes every layer (uniform, one layer a chunk); a block "
			       "of layers kept is not modelled", r->file, line, m);
	long long n;
	if ((rc = getint(r, "model.recompute_num_layers", 1, &n, err)))
		return rc;
	if (n != 1 && pp_bridge_is_str(g, "full"))
		return pp_errf(err, PP_EINPUT, "%s:%d: cfg.model.recompute_num_layers = %lld: refused: "
			       "expected 1 (podplan recomputes each layer from its own input)", r->file,
			       line, n);
	const char *mods = get(r, "model.recompute_modules", &line);
	if (mods && strcmp(mods, "None") && !(pp_bridge_is_str(g, "selective") &&
					      (!strcmp(mods, "[\"core_attn\"]") || !strcmp(mods, "['core_attn']"))))
		return pp_errf(err, PP_EINPUT, "%s:%d: cfg.model.recompute_modules = %s: refused: "
			       "podplan's selective recompute keeps the core attention only; expected "
			       "None or [\"core_attn\"]", r->file, line, mods);
	char s[32];
	snprintf(s, sizeof(s), "%.*s", (int)strlen(g) - 2, g + 1);
	cJSON_AddStringToObject(tr, "recompute", s);
	return 0;
}

/* Kernels: attention backend, cross entropy, CUDA graphs; the dispatcher. */
static int kernels(const recipe *r, cJSON *tr, pp_err *err)
{
	int line, rc, b;
	const char *ab = get(r, "model.attention_backend", &line);
	if (ab && strcmp(ab, "None")) {
		const char *v = ab;
		if (!strncmp(v, "AttnBackend.", 12))
			v += 12;
		else if (v[0] == '"')
			v++;
		size_t k = strcspn(v, "\"");
		const char *kern = !strncmp(v, "flash", k) && k == 5 ? "fa2" :
				   !strncmp(v, "fused", k) && k == 5 ? "cudnn" :
				   (!strncmp(v, "unfused", k) && k == 7) || (!strncmp(v, "local", k) && k == 5)
				   ? "unfused" : NULL;
		if (!kern && strncmp(v, "auto", 4))
			return pp_errf(err, PP_EINPUT, "%s:%d: cfg.model.attention_backend = %s: expected "
				       "auto, flash, fused, unfused, local or None", r->file, line, ab);
		if (kern)
			cJSON_AddStringToObject(tr, "attention_kernel", kern);
	}
	if ((rc = getbool(r, "model.cross_entropy_loss_fusion", -1, &b, err)))
		return rc;
	const char *impl = get(r, "model.cross_entropy_fusion_impl", &line);
	if (b == 0) {
		cJSON_AddStringToObject(tr, "cross_entropy", "megatron-vocab-parallel");
	} else if (b == 1) {
		if (impl && pp_bridge_is_str(impl, "native"))
			cJSON_AddStringToObject(tr, "cross_entropy", "megatron-fused");
		else if (!impl || pp_bridge_is_str(impl, "te"))
			cJSON_AddStringToObject(tr, "cross_entropy", "te-fused");
		else
			return pp_errf(err, PP_EINPUT, "%s:%d: cfg.model.cross_entropy_fusion_impl = %s: "
				       "expected \"te\" or \"native\"", r->file, line, impl);
	}
	const char *cg = get(r, "model.cuda_graph_impl", &line);
	if (cg && strcmp(cg, "None")) {
		int sl;
		const char *sc = get(r, "model.cuda_graph_scope", &sl);
		if (pp_bridge_is_str(cg, "none"))
			cJSON_AddFalseToObject(tr, "cuda_graphs");
		else if (!sc || pp_bridge_is_str(sc, "full") || !strcmp(sc, "None"))
			cJSON_AddTrueToObject(tr, "cuda_graphs");
		else
			return pp_errf(err, PP_EINPUT, "%s:%d: cfg.model.cuda_graph_scope = %s: refused: "
				       "CUDA graphs over part of a layer are not modelled (podplan's "
				       "cuda_graphs removes the host's issue time of whole layers); "
				       "expected \"full\"", r->file, sl, sc);
	}
	const char *disp = get(r, "model.moe_token_dispatcher_type", &line);
	if (disp && strcmp(disp, "None")) {
		if (pp_bridge_is_str(disp, "flex"))
			return pp_errf(err, PP_EINPUT, "%s:%d: the flex token dispatcher (DeepEP or "
				       "HybridEP, chosen by apply_flex_dispatcher_backend or "
				       "moe_token_dispatcher_type): refused: podplan does not model it; "
				       "expected alltoall or allgather", r->file, line);
		if (!pp_bridge_is_str(disp, "alltoall") && !pp_bridge_is_str(disp, "allgather"))
			return pp_errf(err, PP_EINPUT, "%s:%d: cfg.model.moe_token_dispatcher_type = %s: "
				       "expected \"alltoall\" or \"allgather\"", r->file, line, disp);
		char s[32];
		snprintf(s, sizeof(s), "%.*s", (int)strlen(disp) - 2, disp + 1);
		cJSON_AddStringToObject(tr, "moe_token_dispatcher_type", s);
	}
	const char *co = get(r, "comm_overlap", NULL);
	if (co && !strcmp(co, "None"))
		cJSON_AddFalseToObject(tr, "tp_comm_overlap");
	return 0;
}

/* The cluster from the recipe's name (Bridge names its recipes
 * MODEL_pretrain_NNgpu_GPU_PRECISION_config), unless the options give it. */
static int cluster(const recipe *r, const char *func, const pp_import_opts *o, cJSON *root,
		   pp_err *err)
{
	cJSON *cl = cJSON_AddObjectToObject(root, "cluster");
	long long ng = o->num_gpus;
	char gpu[32] = "";
	for (const char *p = func; (p = strchr(p, '_')); p++) {
		char *e = NULL;
		long long x = strtoll(p + 1, &e, 10);
		if (e && e != p + 1 && !strncmp(e, "gpu_", 4)) {
			if (!ng)
				ng = x;
			size_t k = strcspn(e + 4, "_");
			snprintf(gpu, sizeof(gpu), "%.*s", (int)k, e + 4);
			break;
		}
	}
	const char *g = o->gpu;
	if (!g)
		g = !gpu[0] || !strcmp(gpu, "h100") ? "h100-sxm" : gpu;
	cJSON_AddStringToObject(cl, "gpu", g);
	if (!ng)
		return pp_errf(err, PP_EINPUT, "%s: %s: cannot tell the GPUs (no NNgpu in the recipe's "
			       "name); expected podplan import nemo --num-gpus N", r->file, func);
	cJSON_AddNumberToObject(cl, "num_gpus", (double)ng);
	return 0;
}

/* The recipe to read: --recipe, else the file's one public *_config. */
static int pick(const recipe *r, const pp_import_opts *o, char *func, size_t n, pp_err *err)
{
	if (o->recipe) {
		snprintf(func, n, "%s", o->recipe);
		return 0;
	}
	static char buf[512][128];
	const char *names[512];
	size_t k = pp_py_functions(r->py, names, buf, 512), m = 0;
	pp_sb sb = {0};
	for (size_t i = 0; i < k; i++) {
		size_t l = strlen(names[i]);
		if (names[i][0] == '_' || l < 7 || strcmp(names[i] + l - 7, "_config"))
			continue;
		if (m < 6)
			pp_sb_addf(&sb, "%s%s", m ? ", " : "", names[i]);
		if (!m)
			snprintf(func, n, "%s", names[i]);
		m++;
	}
	int rc = 0;
	if (m != 1)
		rc = pp_errf(err, PP_EINPUT, "%s: found %zu recipe functions%s%s%s; expected podplan "
			     "import nemo --recipe NAME", r->file, m, m ? " (" : "", m ? sb.buf : "",
			     m > 6 ? ", ...)" : m ? ")" : "");
	pp_sb_release(&sb);
	return rc;
}

int pp_import_nemo(const char *name, const char *text, const pp_import_opts *o, cJSON **out,
		   pp_err *err)
{
	pp_py py;
	pp_py_read(text, &py);
	recipe r = {.file = name, .py = &py};
	cJSON *root = cJSON_CreateObject();
	char func[128];
	int rc, line;
	*out = NULL;
	if ((rc = pick(&r, o, func, sizeof(func), err)) || (rc = pp_bridge_read(&r, func, err)) ||
	    (rc = check(&r, err)))
		goto out;
	if (!r.common_line) {
		rc = pp_errf(err, PP_EINPUT, "%s: %s: found no cfg = _pretrain_common(); expected a "
			     "pre-training recipe", name, func);
		goto out;
	}
	cJSON_AddStringToObject(root, "name", func);
	char desc[512];
	snprintf(desc, sizeof(desc), "Imported from %s, recipe %s, by podplan import nemo (each "
		 "field's rule: podplan import --mapping nemo)", strrchr(name, '/') ?
		 strrchr(name, '/') + 1 : name, func);
	cJSON_AddStringToObject(root, "description", desc);
	cJSON *mo = cJSON_AddObjectToObject(root, "model");
	cJSON *tr = cJSON_AddObjectToObject(root, "training");
	cJSON *pa = cJSON_AddObjectToObject(root, "parallel");
	cJSON_AddStringToObject(tr, "framework", "nemo");
	/* the model: --model, else the preset that names the repository */
	const pp_model *pm = NULL;
	if (o->model) {
		size_t l = strlen(o->model);
		if (l > 5 && !strcmp(o->model + l - 5, ".json"))
			cJSON_AddStringToObject(mo, "hf_config", o->model);
		else
			cJSON_AddStringToObject(mo, "preset", o->model);
		pm = o->cat && !(l > 5 && !strcmp(o->model + l - 5, ".json")) ?
		     pp_catalog_model(o->cat, o->model) : NULL;
	} else {
		if (!r.repo[0]) {
			rc = pp_errf(err, PP_EINPUT, "%s: %s: found no cfg.model = AutoBridge."
				     "from_hf_pretrained(...); expected the model, or podplan import "
				     "nemo --model PRESET|config.json", name, func);
			goto out;
		}
		pm = o->cat ? pp_catalog_model_hf(o->cat, r.repo) : NULL;
		if (!pm) {
			rc = pp_errf(err, PP_EINPUT, "%s:%d: the model \"%s\": no preset podplan has "
				     "names this Hugging Face repository (podplan catalog models); "
				     "expected podplan import nemo --model PRESET|config.json", name,
				     r.repo_line, r.repo);
			goto out;
		}
		cJSON_AddStringToObject(mo, "preset", pm->id);
	}
	if ((rc = apply(&r, root, err)))
		goto out;
	/* the sequence: Bridge asserts the model's and the dataset's agree */
	long long ms, ds, seq, tp, pp, vpp, gbs, it;
	if ((rc = getint(&r, "model.seq_length", 0, &ms, err)) ||
	    (rc = getint(&r, "dataset.seq_length", 0, &ds, err)) ||
	    (rc = getint(&r, "model.tensor_model_parallel_size", 1, &tp, err)) ||
	    (rc = getint(&r, "model.pipeline_model_parallel_size", 1, &pp, err)) ||
	    (rc = getint(&r, "model.virtual_pipeline_model_parallel_size", 1, &vpp, err)) ||
	    (rc = getint(&r, "train.global_batch_size", 0, &gbs, err)) ||
	    (rc = getint(&r, "train.train_iters", 0, &it, err)))
		goto out;
	if (ms && ds && ms != ds) {
		get(&r, "model.seq_length", &line);
		rc = pp_errf(err, PP_EINPUT, "%s:%d: cfg.model.seq_length = %lld with "
			     "cfg.dataset.seq_length = %lld; expected them equal (Bridge asserts it)",
			     name, line, ms, ds);
		goto out;
	}
	seq = ms ? ms : ds;
	if (seq)
		cJSON_AddNumberToObject(mo, "seq_length", (double)seq);
	if (it && gbs && seq)
		cJSON_AddNumberToObject(tr, "train_tokens", (double)it * (double)gbs * (double)seq);
	/* the vocabulary: the tokenizer's, padded (use_tokenizer_vocab_size) */
	const char *tok = get(&r, "tokenizer.tokenizer_type", &line);
	long long v = o->vocab_size;
	if (!v && pp_bridge_is_str(tok, "NullTokenizer") && (rc = getint(&r, "tokenizer.vocab_size", 0, &v, err)))
		goto out;
	if (v) {
		long long mult = 128 * tp; /* GPTModelProvider.make_vocab_size_divisible_by x TP */
		cJSON_AddNumberToObject(mo, "vocab_size", (double)((v + mult - 1) / mult * mult));
	}
	if ((rc = precision(&r, tr, err)) || (rc = recompute(&r, tr, err)) ||
	    (rc = kernels(&r, tr, err)))
		goto out;
	int b, ae, al;
	if ((rc = getbool(&r, "model.sequence_parallel", 0, &b, err)))
		goto out;
	cJSON_DeleteItemFromObject(pa, "sequence_parallel");
	if (b && tp > 1)
		cJSON_AddTrueToObject(pa, "sequence_parallel");
	int zd, zo;
	if ((rc = getbool(&r, "ddp.use_distributed_optimizer", 0, &zd, err)) ||
	    (rc = getbool(&r, "optimizer.use_distributed_optimizer", 0, &zo, err)))
		goto out;
	if (zd || zo)
		cJSON_AddNumberToObject(pa, "zero_stage", 1);
	/* the embedding and the loss as a layer each of the pipeline split */
	if ((rc = getbool(&r, "model.account_for_embedding_in_pipeline_split", 0, &ae, err)) ||
	    (rc = getbool(&r, "model.account_for_loss_in_pipeline_split", 0, &al, err)))
		goto out;
	if ((ae || al) && pp > 1) {
		get(&r, ae ? "model.account_for_embedding_in_pipeline_split" :
		    "model.account_for_loss_in_pipeline_split", &line);
		long long stages = pp * vpp, nl = pm ? pm->num_layers : 0;
		if (!(ae && al) || !nl || (nl + 2) % stages || (nl + 2) / stages < 2) {
			rc = pp_errf(err, PP_EINPUT, "%s:%d: account_for_%s_in_pipeline_split: refused: "
				     "podplan writes the split as a layout when both the embedding and "
				     "the loss count and the layers + 2 split evenly over %lld virtual "
				     "stages (found %s%lld layers)", name, line, ae ? "embedding" :
				     "loss", stages, ae && al ? "" : "one of the two; ", nl);
			goto out;
		}
		long long k = (nl + 2) / stages;
		char lay[128];
		if (stages == 2)
			snprintf(lay, sizeof(lay), "Et*%lld|t*%lldL", k - 1, k - 1);
		else
			snprintf(lay, sizeof(lay), "Et*%lld|(t*%lld|)*%lldt*%lldL", k - 1, k, stages - 2,
				 k - 1);
		cJSON_AddStringToObject(pa, "pipeline_model_parallel_layout", lay);
	}
	if ((rc = cluster(&r, func, o, root, err)))
		goto out;
	*out = root;
	root = NULL;
	rc = 0;
out:
	cJSON_Delete(root);
	pp_imp_args_release(&r.a);
	pp_py_release(&py);
	return rc;
}
