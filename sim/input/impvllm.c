/* impvllm.c - podplan import vllm (import.h): a `vllm serve` command line
 * (vLLM's engine arguments, vllm/engine/arg_utils.py) into the serving
 * section, and a `vllm bench serve` one (vllm/benchmarks/serve.py, the
 * random dataset) into the workload. */
#include "input/impint.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAP(n, v, c, k, w) {n, v, PP_IMP_MAP, c, k, w}
#define IGN(n, v, w) {n, v, PP_IMP_IGNORE, PP_IMPV_SPECIAL, NULL, w}
#define REF(n, v, w) {n, v, PP_IMP_REFUSE, PP_IMPV_SPECIAL, NULL, w}
#define SPC(n, v, k, w) {n, v, PP_IMP_MAP, PP_IMPV_SPECIAL, k, w}

static const char LOG[] = "logging: not part of an iteration";
static const char NET[] = "the server's address, names or keys: not part of an iteration";
static const char HOST[] = "request and response handling on the host (parsers, templates): "
			   "outside the engine's iterations";
static const char OUT[] = "where and how the client reports: not part of the workload";

const pp_imp_rule pp_imp_vllm_rules[] = {
	SPC("--model", 1, "model", "the served model: import --model, else the repository's name "
	    "as a preset id (a name ending -FP8: serving.precision fp8; -FP4, NVIDIA's ModelOpt "
	    "checkpoints: nvfp4)"),
	MAP("--tensor-parallel-size", 1, PP_IMPV_INT, "serving.tensor_parallel_size", "as given"),
	MAP("-tp", 1, PP_IMPV_INT, "serving.tensor_parallel_size", "as given"),
	MAP("--pipeline-parallel-size", 1, PP_IMPV_INT, "serving.pipeline_parallel_size", "as given"),
	MAP("-pp", 1, PP_IMPV_INT, "serving.pipeline_parallel_size", "as given"),
	MAP("--data-parallel-size", 1, PP_IMPV_INT, "serving.data_parallel_size", "replicas"),
	MAP("-dp", 1, PP_IMPV_INT, "serving.data_parallel_size", "replicas"),
	MAP("--enable-expert-parallel", 0, PP_IMPV_TRUE, "serving.enable_expert_parallel", "true"),
	MAP("-ep", 0, PP_IMPV_TRUE, "serving.enable_expert_parallel", "true"),
	MAP("--max-num-seqs", 1, PP_IMPV_INT, "serving.max_num_seqs", "as given"),
	MAP("--max-num-batched-tokens", 1, PP_IMPV_INT, "serving.max_num_batched_tokens", "as given"),
	MAP("--max-model-len", 1, PP_IMPV_INT, "serving.max_model_len", "as given"),
	MAP("--block-size", 1, PP_IMPV_INT, "serving.block_size", "as given"),
	MAP("--gpu-memory-utilization", 1, PP_IMPV_NUM, "serving.gpu_memory_utilization", "as given"),
	MAP("--enable-chunked-prefill", 0, PP_IMPV_TRUE, "serving.enable_chunked_prefill", "true"),
	MAP("--no-enable-chunked-prefill", 0, PP_IMPV_FALSE, "serving.enable_chunked_prefill", "false"),
	MAP("--enable-prefix-caching", 0, PP_IMPV_TRUE, "serving.enable_prefix_caching", "true"),
	MAP("--no-enable-prefix-caching", 0, PP_IMPV_FALSE, "serving.enable_prefix_caching", "false"),
	MAP("--kv-cache-dtype", 1, PP_IMPV_STR, "serving.kv_cache_dtype", "as given"),
	MAP("--enforce-eager", 0, PP_IMPV_TRUE, "serving.enforce_eager", "true"),
	SPC("--dtype", 1, "serving.precision", "auto, bfloat16, float16 or half: bf16 (16-bit "
	    "weights and activations, the same bytes and tensor rate); float32 is refused"),
	SPC("--quantization", 1, "serving.precision", "fp8: fp8; modelopt_fp4: nvfp4; mxfp4: "
	    "mxfp4; any other method is refused"),
	REF("--speculative-config", 1, "speculative decoding (a draft model or MTP heads "
	    "proposing tokens): not modelled"),
	REF("--async-scheduling", 0, "the scheduler running an iteration ahead of the GPU: not modelled"),
	REF("--config", 1, "a YAML file of options: pass its options on the command line"),
	REF("--compilation-config", 1, "torch.compile and CUDA-graph settings: podplan models "
	    "vLLM's defaults and --enforce-eager only"),
	REF("-O", 1, "as --compilation-config"),
	REF("--cpu-offload-gb", 1, "weights offloaded to host memory: not modelled"),
	REF("--lora-modules", 1, "LoRA adapters at serving time: not modelled"),
	IGN("--trust-remote-code", 0, "permission to run the repository's code"),
	IGN("--swap-space", 1, "CPU swap space: vLLM V1 preempts by recomputing, it does not swap"),
	IGN("--distributed-executor-backend", 1, "how the workers are started (mp, ray)"),
	IGN("--disable-log-requests", 0, LOG), IGN("--disable-log-stats", 0, LOG),
	IGN("--max-log-len", 1, LOG), IGN("--uvicorn-log-level", 1, LOG),
	IGN("--host", 1, NET), IGN("--port", 1, NET), IGN("--served-model-name", 1, NET),
	IGN("--api-key", 1, NET),
	IGN("--download-dir", 1, "where the weights are kept: before the first iteration"),
	IGN("--load-format", 1, "how the weights are read: before the first iteration"),
	IGN("--tokenizer", 1, HOST), IGN("--reasoning-parser", 1, HOST),
	IGN("--tool-call-parser", 1, HOST), IGN("--enable-auto-tool-choice", 0, HOST),
	IGN("--chat-template", 1, HOST), IGN("--tool-server", 1, HOST),
	IGN("--generation-config", 1, "sampling defaults: the benchmark's requests set their lengths"),
	IGN("--seed", 1, "the sampler's seed: the same kernels"),
};
const size_t pp_imp_vllm_nrules = sizeof(pp_imp_vllm_rules) / sizeof(pp_imp_vllm_rules[0]);

const pp_imp_rule pp_imp_bench_rules[] = {
	IGN("--model", 1, "the served model: from vllm serve"),
	IGN("--backend", 1, "the client's API (vllm, openai): the same requests"),
	IGN("--base-url", 1, NET), IGN("--host", 1, NET), IGN("--port", 1, NET),
	IGN("--endpoint", 1, NET), IGN("--tokenizer", 1, HOST),
	IGN("--trust-remote-code", 0, "permission to run the repository's code"),
	SPC("--dataset-name", 1, "workload", "random (the default); another dataset is refused: "
	    "podplan draws the random dataset's lengths or replays a trace (workload.trace)"),
	MAP("--random-input-len", 1, PP_IMPV_INT, "workload.input_len", "as given"),
	MAP("--random-output-len", 1, PP_IMPV_INT, "workload.output_len", "as given"),
	MAP("--random-range-ratio", 1, PP_IMPV_NUM, "workload.range_ratio", "as given"),
	MAP("--random-prefix-len", 1, PP_IMPV_INT, "workload.prefix_len", "as given"),
	MAP("--num-prompts", 1, PP_IMPV_INT, "workload.num_prompts", "as given"),
	SPC("--request-rate", 1, "workload.request_rate", "a number, or inf (every request at once)"),
	MAP("--burstiness", 1, PP_IMPV_NUM, "workload.burstiness", "as given"),
	MAP("--max-concurrency", 1, PP_IMPV_INT, "workload.max_concurrency", "as given"),
	MAP("--seed", 1, PP_IMPV_INT, "workload.seed", "as given"),
	IGN("--ignore-eos", 0, "podplan's requests run to their drawn output length, as --ignore-eos "
	    "makes vLLM's"),
	IGN("--save-result", 0, OUT), IGN("--result-dir", 1, OUT), IGN("--result-filename", 1, OUT),
	IGN("--percentile-metrics", 1, OUT), IGN("--metric-percentiles", 1, OUT),
	IGN("--disable-tqdm", 0, OUT),
};
const size_t pp_imp_bench_nrules = sizeof(pp_imp_bench_rules) / sizeof(pp_imp_bench_rules[0]);

static void lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

/* The model: import --model (a preset id, or a config.json path), else the
 * served repository's name ("Qwen/Qwen3-235B-A22B-FP8") as a preset id
 * ("qwen3-235b-a22b"), a -FP8 suffix read as FP8 weights and -FP4 as
 * NVFP4 (NVIDIA's ModelOpt checkpoints, "nvidia/Llama-3.3-70B-Instruct-FP4":
 * quant_algo NVFP4). *prec: "fp8", "nvfp4" or NULL. */
static int model(const char *name, const pp_imp_args *a, const pp_import_opts *o, cJSON *root,
		 const char **prec, pp_err *err)
{
	const char *repo = pp_imp_get(a, "--model", NULL);
	if (!repo && a->npositional)
		repo = a->positional[0];
	cJSON *mo = cJSON_AddObjectToObject(root, "model");
	*prec = NULL;
	if (repo) {
		char id[128];
		const char *b = strrchr(repo, '/');
		snprintf(id, sizeof(id), "%s", b ? b + 1 : repo);
		lower(id);
		if (ends_with(id, "-fp8") || ends_with(id, "-fp4")) {
			*prec = ends_with(id, "-fp8") ? "fp8" : "nvfp4";
			id[strlen(id) - 4] = 0;
		}
		if (!o->model)
			cJSON_AddStringToObject(mo, "preset", id);
	}
	if (o->model) {
		if (ends_with(o->model, ".json"))
			cJSON_AddStringToObject(mo, "hf_config", o->model);
		else
			cJSON_AddStringToObject(mo, "preset", o->model);
	} else if (!repo) {
		return pp_errf(err, PP_EINPUT, "%s: vllm serve names no model; expected its model "
			       "operand, or podplan import vllm --model PRESET|config.json", name);
	}
	return 0;
}

static int serve_section(const char *name, const pp_imp_args *a, const char *prec, cJSON *root,
			 pp_err *err)
{
	cJSON *sv = cJSON_GetObjectItemCaseSensitive(root, "serving");
	int line = 0;
	const char *dt = pp_imp_get(a, "--dtype", &line);
	if (dt) {
		if (!strcmp(dt, "float32") || !strcmp(dt, "float"))
			return pp_errf(err, PP_EINPUT, "%s:%d: --dtype: found \"%s\": refused: podplan "
				       "serves 16-bit or FP8 weights; expected auto, bfloat16, float16 "
				       "or half", name, line, dt);
		if (strcmp(dt, "auto") && strcmp(dt, "bfloat16") && strcmp(dt, "float16") &&
		    strcmp(dt, "half"))
			return pp_errf(err, PP_EINPUT, "%s:%d: --dtype: found \"%s\"; expected auto, "
				       "bfloat16, float16 or half", name, line, dt);
	}
	const char *q = pp_imp_get(a, "--quantization", &line);
	if (q) {
		/* vLLM's method names (vllm/model_executor/layers/quantization) */
		if (!strcmp(q, "fp8"))
			prec = "fp8";
		else if (!strcmp(q, "modelopt_fp4"))
			prec = "nvfp4";
		else if (!strcmp(q, "mxfp4"))
			prec = "mxfp4";
		else
			return pp_errf(err, PP_EINPUT, "%s:%d: --quantization: found \"%s\": refused: "
				       "podplan models FP8, NVFP4 and MXFP4 weights (a method such as "
				       "quark names its format in the checkpoint: set serving.precision "
				       "by hand); expected fp8, modelopt_fp4 or mxfp4", name, line, q);
	}
	cJSON_AddStringToObject(sv, "precision", prec ? prec : "bf16");
	return 0;
}

static int bench_section(const char *name, const pp_imp_args *b, cJSON *root, pp_err *err)
{
	int line = 0;
	const char *ds = pp_imp_get(b, "--dataset-name", &line);
	if (ds && strcmp(ds, "random"))
		return pp_errf(err, PP_EINPUT, "%s:%d: --dataset-name: found \"%s\": refused: podplan "
			       "draws vllm bench serve's random dataset or replays a trace "
			       "(workload.trace); expected random", name, line, ds);
	if (!cJSON_GetObjectItemCaseSensitive(root, "workload"))
		cJSON_AddObjectToObject(root, "workload");
	cJSON *w = cJSON_GetObjectItemCaseSensitive(root, "workload");
	const char *r = pp_imp_get(b, "--request-rate", &line);
	if (r) {
		double x;
		if (!strcmp(r, "inf"))
			cJSON_AddStringToObject(w, "request_rate", "inf");
		else if (!pp_parse_decimal(r, &x) && x > 0)
			cJSON_AddNumberToObject(w, "request_rate", x);
		else
			return pp_errf(err, PP_EINPUT, "%s:%d: --request-rate: found \"%s\"; expected "
				       "requests a second > 0, or inf", name, line, r);
	}
	return 0;
}

int pp_import_vllm(const char *name, const char *text, const pp_import_opts *o, cJSON **out,
		   pp_err *err)
{
	pp_imp_args s = {0}, b = {0};
	int sline = 0, bline = 0, rc;
	cJSON *root = cJSON_CreateObject();
	*out = NULL;
	if (pp_imp_read_command(text, "vllm serve", &s, &sline)) {
		rc = pp_errf(err, PP_EINPUT, "%s: found no `vllm serve` command line; expected one "
			     "(and optionally a `vllm bench serve` one)", name);
		goto out;
	}
	bool bench = !pp_imp_read_command(text, "vllm bench serve", &b, &bline);
	if ((rc = pp_imp_check(name, "vllm serve", &s, pp_imp_vllm_rules, pp_imp_vllm_nrules, err)) ||
	    (bench && (rc = pp_imp_check(name, "vllm bench serve", &b, pp_imp_bench_rules,
					 pp_imp_bench_nrules, err))))
		goto out;
	const char *base = pp_imp_name(root, name);
	char desc[512];
	snprintf(desc, sizeof(desc), "Imported from %s by podplan import vllm: vllm serve (line %d)%s "
		 "(each argument's rule: podplan import --mapping vllm)", base, sline,
		 bench ? " and vllm bench serve" : ", vllm bench serve's default random workload");
	cJSON_AddStringToObject(root, "description", desc);
	const char *prec;
	if ((rc = model(name, &s, o, root, &prec, err)))
		goto out;
	cJSON *cl = cJSON_AddObjectToObject(root, "cluster");
	cJSON_AddObjectToObject(root, "serving");
	cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(root, "serving"), "engine", "vllm");
	if ((rc = pp_imp_apply(name, &s, pp_imp_vllm_rules, pp_imp_vllm_nrules, root, err)) ||
	    (rc = serve_section(name, &s, prec, root, err)))
		goto out;
	if (bench && ((rc = pp_imp_apply(name, &b, pp_imp_bench_rules, pp_imp_bench_nrules, root,
					 err)) ||
		      (rc = bench_section(name, &b, root, err))))
		goto out;
	cJSON *sv = cJSON_GetObjectItemCaseSensitive(root, "serving");
	cJSON *t = cJSON_GetObjectItemCaseSensitive(sv, "tensor_parallel_size");
	cJSON *p = cJSON_GetObjectItemCaseSensitive(sv, "pipeline_parallel_size");
	cJSON *d = cJSON_GetObjectItemCaseSensitive(sv, "data_parallel_size");
	long long g = (long long)((t ? t->valuedouble : 1) * (p ? p->valuedouble : 1) *
				  (d ? d->valuedouble : 1));
	cJSON_AddStringToObject(cl, "gpu", o->gpu ? o->gpu : "h100-sxm");
	cJSON_AddNumberToObject(cl, "num_gpus", (double)(o->num_gpus ? o->num_gpus : g));
	*out = root;
	root = NULL;
	rc = 0;
out:
	cJSON_Delete(root);
	pp_imp_args_release(&s);
	pp_imp_args_release(&b);
	return rc;
}
