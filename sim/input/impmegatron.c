/* impmegatron.c - podplan import megatron (import.h): Megatron-LM's
 * arguments (megatron/training/arguments.py, core_v0.19) and torchrun's
 * into a training scenario. Defaults as Megatron's validate_args sets
 * them: ffn_hidden_size 4 x hidden (SwiGLU: int(8h/3 / 64) x 64), tied
 * embeddings, dropout 0.1, the vocabulary padded to a multiple of
 * make_vocab_size_divisible_by (128) x TP, sequence parallelism off at
 * TP 1. */
#include "input/impint.h"

#include <stdlib.h>
#include <string.h>

#define MAP(n, v, c, k, w) {n, v, PP_IMP_MAP, c, k, w}
#define IGN(n, v, w) {n, v, PP_IMP_IGNORE, PP_IMPV_SPECIAL, NULL, w}
#define REF(n, v, w) {n, v, PP_IMP_REFUSE, PP_IMPV_SPECIAL, NULL, w}
#define SPC(n, v, k, w) {n, v, PP_IMP_MAP, PP_IMPV_SPECIAL, k, w}

static const char LOG[] = "logging, profiling or evaluation: not part of a training step";
static const char CKPT[] = "checkpoint paths, formats and intervals: podplan's step has no checkpoint";
static const char DATA[] = "data files and loading: podplan counts the bytes of a token "
			   "(training.data_bytes_per_token), not the files";
static const char HYPER[] = "an optimizer or schedule hyper-parameter: the same kernels whatever its value";
static const char RDZV[] = "torchrun's rendezvous: not part of the step";
static const char ROPE[] = "the rotary embedding's base, share or scaling: the same elementwise "
			   "rotation whatever the value";
static const char FUSE[] = "a kernel-fusion switch of Megatron's unfused paths: podplan costs "
			   "the framework's fused elementwise kernels (training.elementwise)";
static const char STOP[] = "when the run stops or what it does at the end: not part of a step";

const pp_imp_rule pp_imp_megatron_rules[] = {
	/* the model */
	MAP("--num-layers", 1, PP_IMPV_INT, "model.num_layers", "as given"),
	MAP("--hidden-size", 1, PP_IMPV_INT, "model.hidden_size", "as given"),
	MAP("--num-attention-heads", 1, PP_IMPV_INT, "model.num_attention_heads", "as given"),
	SPC("--group-query-attention", 0, "model.num_query_groups",
	    "with it, --num-query-groups is read (Megatron ignores the groups without it)"),
	SPC("--num-query-groups", 1, "model.num_query_groups", "read only with --group-query-attention"),
	SPC("--ffn-hidden-size", 1, "model.ffn_hidden_size",
	    "as given; absent: 4 x hidden, with --swiglu int(8 x hidden / 3 / 64) x 64 (Megatron's default)"),
	MAP("--kv-channels", 1, PP_IMPV_INT, "model.kv_channels", "as given"),
	MAP("--seq-length", 1, PP_IMPV_INT, "model.seq_length", "as given"),
	SPC("--vocab-size", 1, "model.vocab_size",
	    "padded to a multiple of --make-vocab-size-divisible-by (128) x TP, as Megatron pads it"),
	SPC("--make-vocab-size-divisible-by", 1, "model.vocab_size", "the padding multiple (x TP)"),
	SPC("--tokenizer-type", 1, "model.vocab_size",
	    "GPT2BPETokenizer: 50,257 tokens; any other needs --vocab-size in the text or on import; "
	    "not read when the text gives --vocab-size"),
	SPC("--vocab-file", 1, "model.vocab_size",
	    "a GPT-2 vocabulary (gpt2-vocab.json): 50,257 tokens; the path itself is not kept"),
	SPC("--swiglu", 0, "model.swiglu", "true; absent: false"),
	SPC("--untie-embeddings-and-output-weights", 0, "model.untie_embeddings_and_output_weights",
	    "true; absent: false (Megatron ties them)"),
	SPC("--attention-dropout", 1, "model.swiglu",
	    "checked: podplan costs dropout 0.1 on GPT (GeLU) models and none on SwiGLU ones; "
	    "another value is refused"),
	SPC("--hidden-dropout", 1, "model.swiglu", "as --attention-dropout"),
	MAP("--num-experts", 1, PP_IMPV_INT, "model.num_experts", "as given"),
	MAP("--moe-router-topk", 1, PP_IMPV_INT, "model.moe_router_topk", "as given"),
	MAP("--moe-ffn-hidden-size", 1, PP_IMPV_INT, "model.moe_ffn_hidden_size", "as given"),
	MAP("--moe-shared-expert-intermediate-size", 1, PP_IMPV_INT,
	    "model.moe_shared_expert_intermediate_size", "as given"),
	MAP("--moe-layer-freq", 1, PP_IMPV_INT, "model.moe_layer_freq",
	    "an integer (a Python list expression is refused as not a number)"),
	MAP("--mtp-num-layers", 1, PP_IMPV_INT, "model.mtp_num_layers", "as given"),
	MAP("--multi-latent-attention", 0, PP_IMPV_TRUE, "model.multi_latent_attention", "true"),
	MAP("--q-lora-rank", 1, PP_IMPV_INT, "model.q_lora_rank", "as given"),
	MAP("--kv-lora-rank", 1, PP_IMPV_INT, "model.kv_lora_rank", "as given"),
	MAP("--qk-head-dim", 1, PP_IMPV_INT, "model.qk_head_dim", "as given"),
	MAP("--qk-pos-emb-head-dim", 1, PP_IMPV_INT, "model.qk_pos_emb_head_dim", "as given"),
	MAP("--v-head-dim", 1, PP_IMPV_INT, "model.v_head_dim", "as given"),
	IGN("--max-position-embeddings", 1, "the position table's size (a learned table is under "
	    "0.1% of the parameters, not counted) or RoPE's limit: --seq-length sets the step"),
	IGN("--position-embedding-type", 1, "rope, yarn or learned_absolute: an elementwise pass either way"),
	IGN("--use-rotary-position-embeddings", 0, ROPE),
	IGN("--no-position-embedding", 0, ROPE),
	IGN("--rotary-base", 1, ROPE),
	IGN("--rotary-percent", 1, ROPE),
	IGN("--rotary-interleaved", 0, ROPE),
	IGN("--use-rope-scaling", 0, ROPE),
	IGN("--rope-scaling-factor", 1, ROPE),
	IGN("--rope-type", 1, ROPE),
	IGN("--normalization", 1, "LayerNorm or RMSNorm: one elementwise norm pass a block either way"),
	IGN("--apply-layernorm-1p", 0, "the norm's weight offset: the same kernel"),
	IGN("--norm-epsilon", 1, "a constant inside the norm"),
	IGN("--disable-bias-linear", 0, "bias adds: negligible, not costed"),
	IGN("--add-qkv-bias", 0, "bias adds: negligible, not costed"),
	IGN("--qk-layernorm", 0, "a norm over the query and key heads: elementwise, under 1% of a "
	    "layer's bytes, not costed (as the Qwen3 presets)"),
	IGN("--init-method-std", 1, "initialisation: before the first step"),
	IGN("--attention-softmax-in-fp32", 0, "the unfused softmax's dtype: podplan costs the fused "
	    "attention kernel"),
	IGN("--no-masked-softmax-fusion", 0, FUSE),
	IGN("--no-bias-swiglu-fusion", 0, FUSE),
	IGN("--no-bias-gelu-fusion", 0, FUSE),
	IGN("--no-bias-dropout-fusion", 0, FUSE),
	IGN("--no-rope-fusion", 0, FUSE),
	IGN("--no-persist-layer-norm", 0, FUSE),
	IGN("--no-gradient-accumulation-fusion", 0, FUSE),
	IGN("--use-mcore-models", 0, "Megatron-Core's models: training.framework megatron-core, the default"),
	IGN("--transformer-impl", 1, "transformer_engine: megatron-core's default stack"),
	SPC("--attention-backend", 1, "training.attention_kernel",
	    "flash: fa2; fused: cudnn; unfused or local: unfused; auto: the framework's choice"),
	MAP("--use-flash-attn", 0, PP_IMPV_TRUE, "training.use_flash_attn", "true"),
	MAP("--cross-entropy-loss-fusion", 0, PP_IMPV_SPECIAL, "training.cross_entropy",
	    "megatron-fused (Megatron-Core's fused cross entropy)"),
	IGN("--tokenizer-model", 1, "the tokenizer's path: its vocabulary comes from --vocab-size"),
	IGN("--merge-file", 1, DATA),
	IGN("--tiktoken-pattern", 1, DATA),
	IGN("--export-force-local-attention", 0, "export only"),
	REF("--quick-geglu", 0, "gpt-oss's clamped GeGLU: podplan models SwiGLU and GeLU MLPs"),
	REF("--softmax-type", 1, "attention sinks (learnable softmax offsets): not modelled"),
	REF("--glu-linear-offset", 1, "part of --quick-geglu, not modelled"),
	/* training */
	MAP("--micro-batch-size", 1, PP_IMPV_INT, "training.micro_batch_size", "as given"),
	MAP("--global-batch-size", 1, PP_IMPV_INT, "training.global_batch_size", "as given"),
	IGN("--rampup-batch-size", 1, "a batch ramp over the first samples: podplan predicts the "
	    "steady step at --global-batch-size"),
	IGN("--step-batch-size-schedule", 1, "a batch schedule over the first tokens: podplan "
	    "predicts the steady step at --global-batch-size"),
	SPC("--train-iters", 1, "training.train_tokens", "x global batch x sequence length"),
	SPC("--train-samples", 1, "training.train_tokens", "x sequence length"),
	SPC("--bf16", 0, "training.precision", "bf16"),
	SPC("--fp16", 0, "training.precision", "fp16"),
	SPC("--fp8-format", 1, "training.precision", "fp8 (e4m3 or hybrid, Transformer Engine's recipe)"),
	IGN("--fp8-amax-history-len", 1, "FP8 scaling bookkeeping on scalars"),
	IGN("--fp8-amax-compute-algo", 1, "FP8 scaling bookkeeping on scalars"),
	IGN("--fp8-margin", 1, "FP8 scaling bookkeeping on scalars"),
	IGN("--fp8-interval", 1, "FP8 scaling bookkeeping on scalars"),
	MAP("--fp8-param-gather", 0, PP_IMPV_TRUE, "training.fp8_param_gather",
	    "true: the layers' compute parameters are FP8, 1 byte each in memory and in the "
	    "distributed optimizer's all-gather instead of 2 (embedding and output layer 16-bit)"),
	REF("--fp8-recipe", 1, "a scaling recipe other than Transformer Engine's delayed scaling "
	    "(podplan's fp8_recipe te)"),
	SPC("--recompute-granularity", 1, "training.recompute", "full or selective"),
	SPC("--recompute-method", 1, "training.recompute", "uniform (every layer); block is refused"),
	SPC("--recompute-num-layers", 1, "training.recompute", "1 with uniform; another count is refused"),
	SPC("--recompute-activations", 0, "training.recompute", "selective"),
	SPC("--checkpoint-activations", 0, "training.recompute", "full (Megatron's former name)"),
	SPC("--activations-checkpoint-method", 1, "training.recompute", "uniform: full (former name)"),
	MAP("--optimizer", 1, PP_IMPV_STR, "training.optimizer", "adam or sgd"),
	SPC("--use-distributed-optimizer", 0, "parallel.zero_stage",
	    "1: Megatron's distributed optimizer shards the optimizer state over the data-parallel group"),
	MAP("--overlap-grad-reduce", 0, PP_IMPV_TRUE, "training.overlap_grad_reduce", "true"),
	MAP("--overlap-param-gather", 0, PP_IMPV_TRUE, "training.overlap_param_gather", "true"),
	MAP("--ddp-bucket-size", 1, PP_IMPV_NUM, "training.bucket_size", "parameters, as given"),
	MAP("--grad-reduce-in-bf16", 0, PP_IMPV_FALSE, "training.grad_reduce_in_fp32", "false"),
	MAP("--accumulate-allreduce-grads-in-fp32", 0, PP_IMPV_TRUE, "training.grad_reduce_in_fp32", "true"),
	MAP("--tp-comm-overlap", 0, PP_IMPV_TRUE, "training.tp_comm_overlap", "true"),
	MAP("--moe-token-dispatcher-type", 1, PP_IMPV_STR, "training.moe_token_dispatcher_type", "as given"),
	MAP("--moe-grouped-gemm", 0, PP_IMPV_TRUE, "training.moe_grouped_gemm", "true"),
	MAP("--moe-shared-expert-overlap", 0, PP_IMPV_TRUE, "training.moe_shared_expert_overlap", "true"),
	MAP("--moe-expert-capacity-factor", 1, PP_IMPV_NUM, "training.moe_expert_capacity_factor", "as given"),
	MAP("--overlap-moe-expert-parallel-comm", 0, PP_IMPV_TRUE,
	    "training.overlap_moe_expert_parallel_comm", "true"),
	MAP("--delay-wgrad-compute", 0, PP_IMPV_TRUE, "training.delay_wgrad_compute", "true"),
	IGN("--moe-router-load-balancing-type", 1, "the router's balancing loss: on the router's "
	    "logits, negligible"),
	IGN("--moe-aux-loss-coeff", 1, "the router's balancing loss: a coefficient"),
	IGN("--moe-z-loss-coeff", 1, "the router's z-loss: a coefficient"),
	IGN("--moe-router-score-function", 1, "the router's scoring: on the router's logits, negligible"),
	IGN("--moe-router-pre-softmax", 0, "the router's scoring: on the router's logits, negligible"),
	IGN("--lr", 1, HYPER), IGN("--min-lr", 1, HYPER), IGN("--lr-decay-style", 1, HYPER),
	IGN("--lr-decay-iters", 1, HYPER), IGN("--lr-decay-samples", 1, HYPER),
	IGN("--lr-warmup-iters", 1, HYPER), IGN("--lr-warmup-samples", 1, HYPER),
	IGN("--lr-warmup-fraction", 1, HYPER), IGN("--decoupled-lr", 1, HYPER),
	IGN("--decoupled-min-lr", 1, HYPER), IGN("--weight-decay", 1, HYPER),
	IGN("--adam-beta1", 1, HYPER), IGN("--adam-beta2", 1, HYPER), IGN("--adam-eps", 1, HYPER),
	IGN("--clip-grad", 1, HYPER), IGN("--seed", 1, "the random seed: the same kernels"),
	IGN("--calculate-per-token-loss", 0, "the loss's normalisation: a scalar"),
	IGN("--manual-gc", 0, "Python's garbage collection schedule on the host"),
	IGN("--manual-gc-interval", 1, "Python's garbage collection schedule on the host"),
	IGN("--empty-unused-memory-level", 1, "the allocator's cache release between steps"),
	IGN("--no-check-for-nan-in-loss-and-grad", 0, "a check on scalars"),
	IGN("--exit-duration-in-mins", 1, STOP), IGN("--exit-interval", 1, STOP),
	IGN("--finetune", 0, CKPT), IGN("--no-load-optim", 0, CKPT), IGN("--no-load-rng", 0, CKPT),
	IGN("--save", 1, CKPT), IGN("--load", 1, CKPT), IGN("--save-interval", 1, CKPT),
	IGN("--ckpt-format", 1, CKPT), IGN("--pretrained-checkpoint", 1, CKPT),
	IGN("--data-path", 1, DATA), IGN("--data-path2", 1, DATA), IGN("--split", 1, DATA),
	IGN("--data-cache-path", 1, DATA), IGN("--mock-data", 0, DATA), IGN("--num-workers", 1, DATA),
	IGN("--no-mmap-bin-files", 0, DATA), IGN("--no-create-attention-mask-in-dataloader", 0, DATA),
	IGN("--dataloader-type", 1, DATA),
	IGN("--log-interval", 1, LOG), IGN("--log-throughput", 0, LOG), IGN("--eval-interval", 1, LOG),
	IGN("--eval-iters", 1, LOG), IGN("--tensorboard-dir", 1, LOG), IGN("--wandb-project", 1, LOG),
	IGN("--wandb-exp-name", 1, LOG), IGN("--profile", 0, LOG), IGN("--profile-step-start", 1, LOG),
	IGN("--profile-step-end", 1, LOG), IGN("--log-validation-ppl-to-tensorboard", 0, LOG),
	IGN("--timing-log-level", 1, LOG),
	IGN("--distributed-timeout-minutes", 1, "a timeout: not part of a step"),
	IGN("--distributed-backend", 1, "nccl: the collectives podplan models"),
	IGN("--DDP-impl", 1, "the 2021 DDP implementation: one bucketed gradient reduction either way"),
	/* parallelism */
	MAP("--tensor-model-parallel-size", 1, PP_IMPV_INT, "parallel.tensor_model_parallel_size", "as given"),
	MAP("--pipeline-model-parallel-size", 1, PP_IMPV_INT, "parallel.pipeline_model_parallel_size", "as given"),
	MAP("--context-parallel-size", 1, PP_IMPV_INT, "parallel.context_parallel_size", "as given"),
	MAP("--expert-model-parallel-size", 1, PP_IMPV_INT, "parallel.expert_model_parallel_size", "as given"),
	MAP("--expert-tensor-parallel-size", 1, PP_IMPV_INT, "parallel.expert_tensor_parallel_size", "as given"),
	MAP("--virtual-pipeline-model-parallel-size", 1, PP_IMPV_INT,
	    "parallel.virtual_pipeline_model_parallel_size", "as given"),
	SPC("--num-layers-per-virtual-pipeline-stage", 1, "parallel.virtual_pipeline_model_parallel_size",
	    "layers / (pipeline size x this)"),
	MAP("--decoder-first-pipeline-num-layers", 1, PP_IMPV_INT,
	    "parallel.decoder_first_pipeline_num_layers", "as given"),
	MAP("--decoder-last-pipeline-num-layers", 1, PP_IMPV_INT,
	    "parallel.decoder_last_pipeline_num_layers", "as given"),
	MAP("--pipeline-model-parallel-layout", 1, PP_IMPV_STR, "parallel.pipeline_model_parallel_layout",
	    "as given"),
	SPC("--sequence-parallel", 0, "parallel.sequence_parallel",
	    "true when TP > 1 (Megatron turns it off at TP 1)"),
	REF("--use-megatron-fsdp", 0, "Megatron-FSDP's sharding and buffers are not modelled "
	    "(ZeRO-3 is: parallel.zero_stage 3 in a scenario)"),
	REF("--data-parallel-sharding-strategy", 1, "Megatron-FSDP, not modelled"),
	/* torchrun */
	SPC("--nproc-per-node", 1, "cluster.num_gpus", "x --nnodes (unless import --num-gpus)"),
	SPC("--nnodes", 1, "cluster.num_gpus", "x --nproc-per-node"),
	IGN("--node-rank", 1, RDZV), IGN("--master-addr", 1, RDZV), IGN("--master-port", 1, RDZV),
	IGN("--rdzv-backend", 1, RDZV), IGN("--rdzv-endpoint", 1, RDZV), IGN("--rdzv-id", 1, RDZV),
};
const size_t pp_imp_megatron_nrules = sizeof(pp_imp_megatron_rules) / sizeof(pp_imp_megatron_rules[0]);

static cJSON *obj(cJSON *root, const char *key)
{
	cJSON *o = cJSON_GetObjectItemCaseSensitive(root, key);
	return o ? o : cJSON_AddObjectToObject(root, key);
}

static int getint(const char *name, const pp_imp_args *a, const char *flag, long long def,
		  long long *out, pp_err *err)
{
	int line = 0;
	const char *v = pp_imp_get(a, flag, &line);
	*out = def;
	return v ? pp_imp_int(name, flag, v, line, out, err) : 0;
}

static int dropout(const char *name, const pp_imp_args *a, const char *flag, bool swiglu, pp_err *err)
{
	int line = 0;
	const char *v = pp_imp_get(a, flag, &line);
	double x = 0.1; /* Megatron's default */
	if (v && pp_parse_decimal(v, &x))
		return pp_errf(err, PP_EINPUT, "%s:%d: %s: found \"%s\"; expected a number", name, line,
			       flag, v);
	double want = swiglu ? 0.0 : 0.1;
	if (x != want)
		return pp_errf(err, PP_EINPUT, "%s%s%.0d: %s: refused: found %g%s; expected %g: "
			       "podplan costs dropout 0.1 on GPT (GeLU) models and none on SwiGLU "
			       "ones, and does not model another rate", name, line ? ":" : "", line,
			       flag, x, v ? "" : " (absent: Megatron's default)", want);
	return 0;
}

static int precision_and_recompute(const char *name, const pp_imp_args *a, cJSON *tr, pp_err *err)
{
	const char *prec = NULL;
	if (pp_imp_has(a, "--bf16"))
		prec = "bf16";
	if (pp_imp_has(a, "--fp16")) {
		if (prec)
			return pp_errf(err, PP_EINPUT, "%s: --fp16 with --bf16; expected one", name);
		prec = "fp16";
	}
	int line = 0;
	const char *f8 = pp_imp_get(a, "--fp8-format", &line);
	if (f8) {
		if (strcmp(f8, "hybrid") && strcmp(f8, "e4m3"))
			return pp_errf(err, PP_EINPUT, "%s:%d: --fp8-format: found \"%s\"; expected "
				       "hybrid or e4m3", name, line, f8);
		prec = "fp8";
	}
	cJSON_AddStringToObject(tr, "precision", prec ? prec : "fp32");
	const char *rc = NULL;
	if (pp_imp_has(a, "--recompute-activations"))
		rc = "selective";
	const char *g = pp_imp_get(a, "--recompute-granularity", &line);
	if (g) {
		if (strcmp(g, "full") && strcmp(g, "selective"))
			return pp_errf(err, PP_EINPUT, "%s:%d: --recompute-granularity: found \"%s\"; "
				       "expected full or selective", name, line, g);
		rc = g;
	}
	if (pp_imp_has(a, "--checkpoint-activations"))
		rc = "full";
	const char *m = pp_imp_get(a, "--activations-checkpoint-method", &line);
	if (!m)
		m = pp_imp_get(a, "--recompute-method", &line);
	if (m) {
		if (strcmp(m, "uniform"))
			return pp_errf(err, PP_EINPUT, "%s:%d: recompute method \"%s\": refused: podplan "
				       "recomputes every layer (uniform with one layer a chunk); a "
				       "block of layers kept is not modelled", name, line, m);
		if (!g && !rc)
			rc = "full";
	}
	long long n = 1;
	const char *nl = pp_imp_get(a, "--recompute-num-layers", &line);
	if (nl && (pp_imp_int(name, "--recompute-num-layers", nl, line, &n, err) || n != 1))
		return pp_errf(err, PP_EINPUT, "%s:%d: --recompute-num-layers: found %s; expected 1 "
			       "(podplan recomputes each layer from its own input)", name, line, nl);
	if (rc)
		cJSON_AddStringToObject(tr, "recompute", rc);
	return 0;
}

/* Drop every occurrence of flag from a: an argument podplan does not read
 * in this text. */
static void drop_unread(pp_imp_args *a, const char *flag)
{
	size_t k = 0;
	for (size_t i = 0; i < a->n; i++) {
		if (strcmp(a->a[i].flag, flag)) {
			a->a[k++] = a->a[i];
			continue;
		}
		for (int j = 0; j < a->a[i].nval; j++)
			free(a->a[i].val[j]);
	}
	a->n = k;
}

int pp_import_megatron(const char *name, const char *text, const pp_import_opts *o, cJSON **out,
		       pp_err *err)
{
	pp_imp_args a;
	pp_imp_read_script(text, &a);
	cJSON *root = cJSON_CreateObject();
	int rc;
	*out = NULL;
	if (!a.n) {
		rc = pp_errf(err, PP_EINPUT, "%s: found no --argument; expected a Megatron-LM launch "
			     "script, command line or argument file", name);
		goto out;
	}
	/* with --vocab-size in the text the tokenizer's name is not read (it
	 * only says GPT-2's 50,257 without one): a script that names two
	 * tokenizers in the branches of an if (examples/llama/
	 * train_llama3_8b_h100_fp8.sh: NullTokenizer for mock data,
	 * HuggingFaceTokenizer else, --vocab-size 128256 in both) imports */
	if (pp_imp_has(&a, "--vocab-size"))
		drop_unread(&a, "--tokenizer-type");
	if ((rc = pp_imp_check(name, "Megatron-LM", &a, pp_imp_megatron_rules,
			       pp_imp_megatron_nrules, err)))
		goto out;
	const char *base = pp_imp_name(root, name);
	char desc[512];
	snprintf(desc, sizeof(desc), "Imported from %s by podplan import megatron (each argument's "
		 "rule: podplan import --mapping megatron)", base);
	cJSON_AddStringToObject(root, "description", desc);
	cJSON *mo = obj(root, "model"), *tr = obj(root, "training"), *pa = obj(root, "parallel");
	(void)pa;
	if ((rc = pp_imp_apply(name, &a, pp_imp_megatron_rules, pp_imp_megatron_nrules, root, err)))
		goto out;
	bool swiglu = pp_imp_has(&a, "--swiglu");
	long long h, heads, v, ffn, tp, pp, nl, seq, gbs;
	if ((rc = getint(name, &a, "--hidden-size", 0, &h, err)) ||
	    (rc = getint(name, &a, "--num-attention-heads", 0, &heads, err)) ||
	    (rc = getint(name, &a, "--num-layers", 0, &nl, err)) ||
	    (rc = getint(name, &a, "--seq-length", 0, &seq, err)) ||
	    (rc = getint(name, &a, "--global-batch-size", 0, &gbs, err)) ||
	    (rc = getint(name, &a, "--tensor-model-parallel-size", 1, &tp, err)) ||
	    (rc = getint(name, &a, "--pipeline-model-parallel-size", 1, &pp, err)))
		goto out;
	if (!h || !heads || !nl || !seq) {
		rc = pp_errf(err, PP_EINPUT, "%s: found no %s; expected the model's --num-layers, "
			     "--hidden-size, --num-attention-heads and --seq-length", name,
			     !nl ? "--num-layers" : !h ? "--hidden-size" : !heads ?
			     "--num-attention-heads" : "--seq-length");
		goto out;
	}
	/* groups only with --group-query-attention, as Megatron reads them */
	if (pp_imp_has(&a, "--group-query-attention")) {
		long long g;
		if ((rc = getint(name, &a, "--num-query-groups", 1, &g, err)))
			goto out;
		cJSON_AddNumberToObject(mo, "num_query_groups", (double)g);
	}
	if ((rc = getint(name, &a, "--ffn-hidden-size", swiglu ? (8 * h / 3) / 64 * 64 : 4 * h, &ffn,
			 err)))
		goto out;
	cJSON_AddNumberToObject(mo, "ffn_hidden_size", (double)ffn);
	cJSON_AddBoolToObject(mo, "swiglu", swiglu);
	cJSON_AddBoolToObject(mo, "untie_embeddings_and_output_weights",
			      pp_imp_has(&a, "--untie-embeddings-and-output-weights"));
	if ((rc = dropout(name, &a, "--attention-dropout", swiglu, err)) ||
	    (rc = dropout(name, &a, "--hidden-dropout", swiglu, err)))
		goto out;
	/* the vocabulary, padded as Megatron's _vocab_size_with_padding */
	int line = 0;
	const char *tok = pp_imp_get(&a, "--tokenizer-type", &line);
	const char *vf = pp_imp_get(&a, "--vocab-file", NULL);
	if ((rc = getint(name, &a, "--vocab-size", o->vocab_size, &v, err)))
		goto out;
	if (!v && ((tok && !strcmp(tok, "GPT2BPETokenizer")) ||
		   (!tok && vf && strstr(vf, "gpt2-vocab"))))
		v = 50257; /* GPT-2's byte-pair vocabulary (Radford et al. 2019) */
	if (!v) {
		rc = pp_errf(err, PP_EINPUT, "%s: cannot tell the vocabulary size (tokenizer %s); "
			     "expected --vocab-size in the text, or podplan import megatron "
			     "--vocab-size N", name, tok ? tok : "not named");
		goto out;
	}
	long long div;
	if ((rc = getint(name, &a, "--make-vocab-size-divisible-by", 128, &div, err)))
		goto out;
	if (div < 1)
		div = 1;
	long long mult = div * tp;
	cJSON_AddNumberToObject(mo, "vocab_size", (double)((v + mult - 1) / mult * mult));
	/* attention kernel, cross entropy */
	const char *ab = pp_imp_get(&a, "--attention-backend", &line);
	if (ab) {
		const char *k = !strcmp(ab, "flash") ? "fa2" : !strcmp(ab, "fused") ? "cudnn" :
				(!strcmp(ab, "unfused") || !strcmp(ab, "local")) ? "unfused" : NULL;
		if (!k && strcmp(ab, "auto")) {
			rc = pp_errf(err, PP_EINPUT, "%s:%d: --attention-backend: found \"%s\"; expected "
				     "auto, flash, fused, unfused or local", name, line, ab);
			goto out;
		}
		if (k)
			cJSON_AddStringToObject(tr, "attention_kernel", k);
	}
	if (pp_imp_has(&a, "--cross-entropy-loss-fusion"))
		cJSON_AddStringToObject(tr, "cross_entropy", "megatron-fused");
	if ((rc = precision_and_recompute(name, &a, tr, err)))
		goto out;
	/* tokens to train */
	long long it, samples;
	if ((rc = getint(name, &a, "--train-iters", 0, &it, err)) ||
	    (rc = getint(name, &a, "--train-samples", 0, &samples, err)))
		goto out;
	if (it && gbs)
		cJSON_AddNumberToObject(tr, "train_tokens", (double)it * (double)gbs * (double)seq);
	else if (samples)
		cJSON_AddNumberToObject(tr, "train_tokens", (double)samples * (double)seq);
	/* parallelism */
	cJSON *par = obj(root, "parallel");
	if (pp_imp_has(&a, "--use-distributed-optimizer"))
		cJSON_AddNumberToObject(par, "zero_stage", 1);
	if (pp_imp_has(&a, "--sequence-parallel") && tp > 1)
		cJSON_AddTrueToObject(par, "sequence_parallel");
	long long lpv;
	if ((rc = getint(name, &a, "--num-layers-per-virtual-pipeline-stage", 0, &lpv, err)))
		goto out;
	if (lpv) {
		if (nl % (pp * lpv)) {
			rc = pp_errf(err, PP_EINPUT, "%s: --num-layers-per-virtual-pipeline-stage %lld: "
				     "%lld layers do not split into %lld stages of chunks of %lld; "
				     "expected a divisor", name, lpv, nl, pp, lpv);
			goto out;
		}
		cJSON_AddNumberToObject(par, "virtual_pipeline_model_parallel_size",
					(double)(nl / (pp * lpv)));
	}
	/* the cluster */
	cJSON *cl = obj(root, "cluster");
	cJSON_AddStringToObject(cl, "gpu", o->gpu ? o->gpu : "h100-sxm");
	long long nproc, nnodes;
	if ((rc = getint(name, &a, "--nproc-per-node", 0, &nproc, err)) ||
	    (rc = getint(name, &a, "--nnodes", 1, &nnodes, err)))
		goto out;
	long long ng = o->num_gpus ? o->num_gpus : nproc * nnodes;
	if (!ng) {
		rc = pp_errf(err, PP_EINPUT, "%s: cannot tell the GPUs (no torchrun --nproc_per_node); "
			     "expected podplan import megatron --num-gpus N", name);
		goto out;
	}
	cJSON_AddNumberToObject(cl, "num_gpus", (double)ng);
	*out = root;
	root = NULL;
	rc = 0;
out:
	cJSON_Delete(root);
	pp_imp_args_release(&a);
	return rc;
}
