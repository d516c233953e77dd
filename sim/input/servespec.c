/* servespec.c - see servespec.h: the "serving" and "slo" sections and the
 * engine defaults of models/serving.json (the workload: servework.c). */
#include "input/servespec.h"
#include "input/servework.h"
#include "input/scenario.h"
#include "core/util.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_serve_engine_names[PP_ENG_COUNT] = {"vllm", "sglang", "trtllm"};

static const char *const serving_keys[] = {
	"engine", "tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size",
	"enable_expert_parallel", "max_num_seqs", "max_num_batched_tokens", "max_model_len",
	"block_size", "gpu_memory_utilization", "enable_chunked_prefill", "enable_prefix_caching",
	"kv_cache_dtype", "precision", "enforce_eager", "capacity_scheduler_policy",
	"disaggregation"};
static const char *const slo_keys[] = {"ttft_ms", "tpot_ms", "itl_ms", "e2el_ms", "percentile"};
static const char *const kv_dtypes[] = {"auto", "bf16", "fp16", "fp8", "fp8_e4m3", "fp8_e5m2"};
/* serving.precision as users type it: podplan's dtype names, vLLM's
 * --quantization for NVIDIA ModelOpt NVFP4 checkpoints ("modelopt_fp4")
 * and TensorRT-LLM's quant_algo ("NVFP4", "MXFP4"; hf_quant_config.json,
 * tensorrt_llm.quantization.mode.QuantAlgo) */
static const char *const precisions[] = {"bf16", "fp16", "fp8", "nvfp4", "mxfp4", "modelopt_fp4",
					 "NVFP4", "MXFP4"};
static const pp_dtype precision_dt[] = {PP_DT_BF16, PP_DT_FP16, PP_DT_FP8, PP_DT_NVFP4,
					PP_DT_MXFP4, PP_DT_NVFP4, PP_DT_NVFP4, PP_DT_MXFP4};

#define MAX_TOKENS_KEY 100000000

double pp_kv_bytes_per_token(const pp_model *m, int tp, double kv_bytes)
{
	if (m->multi_latent_attention) /* one latent per token and layer, on every rank */
		return (double)m->num_layers * (m->kv_lora_rank + m->qk_pos_emb_head_dim) * kv_bytes;
	int heads = m->num_query_groups / (tp > 0 ? tp : 1);
	if (heads < 1)
		heads = 1;
	return 2.0 * m->num_layers * heads * pp_model_head_dim(m) * kv_bytes;
}

int pp_servespec_unit_gpus(const pp_servespec *sv)
{
	if (!sv->disagg.present)
		return sv->tp * sv->pp;
	int g = 0;
	for (int k = 0; k < PP_NPOOLS; k++)
		g += sv->disagg.pool[k].tp * sv->disagg.pool[k].dp;
	return g * sv->pp;
}

/* ---- models/serving.json ---- */

typedef struct sdoc {
	pp_jdoc doc;
	const cJSON *eng;       /* engines.<engine> */
	char eng_path[64];
} sdoc;

/* A figure {"value", "source", "date"} of the data file; required. */
static int fig(const sdoc *s, const cJSON *obj, const char *parent, const char *key, double *out,
	       pp_err *err)
{
	char path[256];
	const cJSON *f;
	pp_jpath(path, sizeof(path), parent, key);
	int rc = pp_jget_obj(&s->doc, obj, parent, key, true, &f, err);
	if (rc)
		return rc;
	char src[96];
	if ((rc = pp_jget_num(&s->doc, f, path, "value", true, -1e30, 1e30, out, NULL, err)) ||
	    (rc = pp_jget_str(&s->doc, f, path, "source", true, src, sizeof(src), NULL, err)))
		return rc;
	return 0;
}

static int efig(const sdoc *s, const char *key, double *out, pp_err *err)
{
	return fig(s, s->eng, s->eng_path, key, out, err);
}

static int ebool(const sdoc *s, const char *key, bool *out, pp_err *err)
{
	return pp_jget_bool(&s->doc, s->eng, s->eng_path, key, true, out, NULL, err);
}

static int load_data(sdoc *s, const pp_catalog *cat, pp_serve_engine e, pp_err *err)
{
	char *path = pp_path_join(pp_catalog_dir(cat), "serving.json");
	int rc = pp_jdoc_load(&s->doc, path, err);
	free(path);
	if (rc)
		return rc;
	const cJSON *engines;
	snprintf(s->eng_path, sizeof(s->eng_path), "engines.%s", pp_serve_engine_names[e]);
	if ((rc = pp_jget_obj(&s->doc, s->doc.root, "", "engines", true, &engines, err)) ||
	    (rc = pp_jget_obj(&s->doc, engines, "engines", pp_serve_engine_names[e], true, &s->eng,
			      err)))
		return rc;
	return 0;
}

/* The measured custom all-reduce latencies, per TP size. */
static int load_ar(const sdoc *s, pp_servespec *sv, pp_err *err)
{
	const cJSON *ar, *lat;
	int rc;
	if ((rc = pp_jget_obj(&s->doc, s->doc.root, "", "custom_allreduce", true, &ar, err)) ||
	    (rc = pp_jget_str(&s->doc, ar, "custom_allreduce", "intra_node", true, sv->ar_intra_node,
			      sizeof(sv->ar_intra_node), NULL, err)) ||
	    (rc = pp_jget_obj(&s->doc, ar, "custom_allreduce", "latency_us", true, &lat, err)))
		return rc;
	int k = 0;
	const cJSON *curve;
	cJSON_ArrayForEach(curve, lat)
	{
		char path[96];
		snprintf(path, sizeof(path), "custom_allreduce.latency_us.%s", curve->string);
		int tp = atoi(curve->string);
		if (k >= 4 || tp < 2 || !cJSON_IsArray(curve) || cJSON_GetArraySize(curve) < 1 ||
		    cJSON_GetArraySize(curve) > PP_AR_MAX_POINTS)
			return pp_jdoc_errf(&s->doc, err, path, "expected at most 4 TP sizes >= 2, each a "
					    "list of 1-%d [bytes, us] pairs", PP_AR_MAX_POINTS);
		pp_ar_curve *c = &sv->ar[k++];
		c->tp = tp;
		const cJSON *pt;
		cJSON_ArrayForEach(pt, curve)
		{
			const cJSON *b = cJSON_GetArrayItem(pt, 0), *t = cJSON_GetArrayItem(pt, 1);
			if (!cJSON_IsNumber(b) || !cJSON_IsNumber(t) || b->valuedouble <= 0 ||
			    t->valuedouble <= 0 || (c->n && b->valuedouble <= c->bytes[c->n - 1]))
				return pp_jdoc_errf(&s->doc, err, path, "expected [bytes, us] pairs of positive "
						    "numbers in increasing size");
			c->bytes[c->n] = b->valuedouble;
			c->s[c->n++] = t->valuedouble * 1e-6;
		}
	}
	return 0;
}

static int load_misc(const sdoc *s, pp_servespec *sv, const pp_gpu *gpu, pp_err *err)
{
	const cJSON *o;
	int rc;
	double v;
	if ((rc = pp_jget_obj(&s->doc, s->doc.root, "", "launch", true, &o, err)) ||
	    (rc = fig(s, o, "launch", "eager_us", &v, err)))
		return rc;
	sv->launch_eager_s = v * 1e-6;
	if ((rc = fig(s, o, "launch", "graph_us", &v, err)))
		return rc;
	sv->launch_graph_s = v * 1e-6;
	if ((rc = pp_jget_obj(&s->doc, s->doc.root, "", "sampler", true, &o, err)) ||
	    (rc = fig(s, o, "sampler", "fp32_passes", &sv->sampler_passes, err)))
		return rc;
	char pol[32];
	if ((rc = pp_jget_obj(&s->doc, s->doc.root, "", "dp_load_balance", true, &o, err)) ||
	    (rc = pp_jget_str(&s->doc, o, "dp_load_balance", "policy", true, pol, sizeof(pol), NULL,
			      err)) ||
	    (rc = fig(s, o, "dp_load_balance", "waiting_weight", &sv->lb_waiting_weight, err)))
		return rc;
	sv->lb_policy = strcmp(pol, "round_robin") ? PP_LB_LEAST_LOADED : PP_LB_ROUND_ROBIN;
	if ((rc = pp_jget_obj(&s->doc, s->doc.root, "", "device_total_memory_gib", true, &o, err)))
		return rc;
	if (cJSON_GetObjectItemCaseSensitive(o, gpu->id)) {
		if ((rc = fig(s, o, "device_total_memory_gib", gpu->id, &v, err)))
			return rc;
		sv->device_total_bytes = v * PP_GIB;
	}
	return load_ar(s, sv, err);
}

/* ---- the serving section ---- */

static bool big_gpu(const pp_gpu *g, double min_gib, const char *exclude)
{
	char id[200];
	snprintf(id, sizeof(id), "%s %s", g->id, g->name);
	for (char *p = id; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	if (exclude[0] && strstr(id, exclude))
		return false;
	return g->mem_bytes >= min_gib * PP_GIB;
}

static int check_layout(const pp_jdoc *d, const pp_servespec *sv, const pp_model *m,
			const pp_cluster *cl, const char *TP, pp_err *err)
{
	/* a Gated DeltaNet layer keeps a fixed recurrent state per sequence
	 * (gdn_v_heads x gdn_k_dim x gdn_v_dim and the conv's last taps), not a
	 * KV cache: the serving model's cache, its block pool and its decode
	 * kernels are softmax attention's on every layer */
	if (m->linear_attn_interval > 0)
		return pp_jdoc_errf(d, err, "model", "found a model with Gated DeltaNet linear-attention "
				    "layers (Qwen3-Next: %d of every %d layers); expected a model with "
				    "softmax attention on every layer: podplan serves no linear-attention "
				    "model (its fixed recurrent state in place of a KV cache is not "
				    "modelled); training predict reads it", m->linear_attn_interval - 1,
				    m->linear_attn_interval);
	if (m->num_attention_heads % sv->tp)
		return pp_jdoc_errf(d, err, TP, "found %d, which does not divide num_attention_heads "
				    "= %d; expected a divisor of the head count", sv->tp,
				    m->num_attention_heads);
	if (!m->multi_latent_attention && m->num_query_groups % sv->tp && sv->tp % m->num_query_groups)
		return pp_jdoc_errf(d, err, TP, "found %d, which neither divides nor is a multiple of "
				    "the %d KV heads; expected one of them", sv->tp, m->num_query_groups);
	if (m->ffn_hidden_size % sv->tp)
		return pp_jdoc_errf(d, err, TP, "found %d, which does not divide ffn_hidden_size = %d; "
				    "expected a divisor", sv->tp, m->ffn_hidden_size);
	if (m->num_experts > 0 && !sv->expert_parallel && m->moe_ffn_hidden_size % sv->tp)
		return pp_jdoc_errf(d, err, TP, "found %d, which does not divide moe_ffn_hidden_size = "
				    "%d; expected a divisor, or enable_expert_parallel", sv->tp,
				    m->moe_ffn_hidden_size);
	if (m->num_experts > 0 && sv->expert_parallel && m->num_experts % sv->tp)
		return pp_jdoc_errf(d, err, "serving.enable_expert_parallel", "found true with %d "
				    "experts over %d ranks; expected a tensor_parallel_size dividing "
				    "num_experts", m->num_experts, sv->tp);
	if (sv->pp > m->num_layers)
		return pp_jdoc_errf(d, err, "serving.pipeline_parallel_size", "found %d stages for %d "
				    "layers; expected at most one stage per layer", sv->pp, m->num_layers);
	int64_t per = (int64_t)sv->tp * sv->pp;
	if (sv->disagg.present) {
		/* the pools' GPUs: parse_disagg */
	} else if (sv->given & PP_SG_DP) {
		if (per * sv->dp != cl->num_gpus)
			return pp_jdoc_errf(d, err, "serving.data_parallel_size", "found tensor %d x "
					    "pipeline %d x %d replicas = %lld GPUs; expected cluster.num_gpus "
					    "= %d", sv->tp, sv->pp, sv->dp, (long long)(per * sv->dp),
					    cl->num_gpus);
	} else if (cl->num_gpus % per) {
		return pp_jdoc_errf(d, err, "serving", "found tensor %d x pipeline %d = %lld GPUs a "
				    "replica, which does not divide cluster.num_gpus = %d; expected a "
				    "divisor (data_parallel_size is derived)", sv->tp, sv->pp,
				    (long long)per, cl->num_gpus);
	}
	if (cl->gpu->peak_flops[sv->precision] <= 0) {
		char have[64] = "";
		for (int t = PP_DT_BF16; t < PP_DT_COUNT; t++)
			if (cl->gpu->peak_flops[t] > 0)
				snprintf(have + strlen(have), sizeof(have) - strlen(have), "%s%s",
					 have[0] ? ", " : "", pp_dtype_names[t]);
		if (pp_dtype_is_fp4(sv->precision))
			return pp_jdoc_errf(d, err, "serving.precision", "found \"%s\", but GPU \"%s\" "
					    "(%s) has no %s tensor cores (gpus.json peak_dense_tflops "
					    "gives no %s figure); expected one of its datatypes: %s",
					    pp_dtype_names[sv->precision], cl->gpu->id, cl->gpu->name,
					    sv->precision == PP_DT_NVFP4 ? "NVFP4" : "MXFP4",
					    pp_dtype_names[sv->precision], have);
		return pp_jdoc_errf(d, err, "serving.precision", "found \"%s\", which %s does not "
				    "support; expected one of its datatypes", pp_dtype_names[sv->precision],
				    cl->gpu->id);
	}
	return 0;
}

/* TensorRT-LLM's capacity_scheduler_policy: the engine's default, or the
 * scenario's, each policy's admission reserve and preemption from
 * serving.json. Engines without policies refuse the key. */
static int parse_policy(pp_servespec *sv, const sdoc *s, const pp_jdoc *d, const cJSON *so,
			pp_err *err)
{
	const char *K = "capacity_scheduler_policy";
	const cJSON *given = cJSON_GetObjectItemCaseSensitive(so, K), *pols = NULL, *pol = NULL;
	int rc = pp_jget_obj(&s->doc, s->eng, s->eng_path, "capacity_scheduler_policies", false, &pols,
			     err);
	if (rc)
		return rc;
	if (!pols) {
		if (given)
			return pp_jdoc_errf(d, err, "serving.capacity_scheduler_policy", "found with engine "
					    "%s, which has no capacity scheduler policy; expected it only "
					    "with engine trtllm", pp_serve_engine_names[sv->engine]);
		return 0;
	}
	if ((rc = pp_jget_str(&s->doc, s->eng, s->eng_path, K, true, sv->capacity_policy,
			      sizeof(sv->capacity_policy), NULL, err)))
		return rc;
	if (given && (rc = pp_jget_str(d, so, "serving", K, false, sv->capacity_policy,
				       sizeof(sv->capacity_policy), NULL, err)))
		return rc;
	pol = cJSON_GetObjectItemCaseSensitive(pols, sv->capacity_policy);
	if (!pol) {
		char names[160] = "";
		const cJSON *c;
		cJSON_ArrayForEach(c, pols)
		{
			size_t n = strlen(names);
			snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "", c->string);
		}
		if (given)
			return pp_jdoc_errf(d, err, "serving.capacity_scheduler_policy", "found \"%s\"; "
					    "expected one of %s", sv->capacity_policy, names);
		return pp_jdoc_errf(&s->doc, err, s->eng_path, "default capacity_scheduler_policy "
				    "\"%s\" is not among capacity_scheduler_policies (%s)",
				    sv->capacity_policy, names);
	}
	char path[128];
	snprintf(path, sizeof(path), "%s.capacity_scheduler_policies.%s", s->eng_path,
		 sv->capacity_policy);
	char src[96];
	if ((rc = pp_jget_num(&s->doc, pol, path, "admission_output_reserve", true, 0, 1,
			      &sv->output_reserve, NULL, err)) ||
	    (rc = pp_jget_bool(&s->doc, pol, path, "preemption", true, &sv->preemption, NULL, err)) ||
	    (rc = pp_jget_str(&s->doc, pol, path, "source", true, src, sizeof(src), NULL, err)))
		return rc;
	return 0;
}

/* Captured decode batches: vLLM min(2 x max_num_seqs, 512), SGLang
 * cuda_graph_max_bs, TensorRT-LLM up to 8192; never above the budget. */
static int graph_max(const sdoc *s, const pp_servespec *sv, int tp, int64_t seqs, int64_t toks,
		     double per_seq, double cap, int64_t *out, pp_err *err)
{
	double v;
	int rc = 0;
	if (per_seq > 0) {
		v = per_seq * (double)seqs;
		*out = (int64_t)(v < cap ? v : cap);
	} else {
		*out = (int64_t)cap;
		if (sv->engine == PP_ENG_SGLANG && tp >= 4 &&
		    (rc = efig(s, "cudagraph_cap_tp4", &v, err)) == 0)
			*out = (int64_t)v;
		if (rc)
			return rc;
	}
	if (*out > toks)
		*out = toks;
	if (sv->enforce_eager)
		*out = 0;
	return 0;
}

const char *const pp_pool_names[PP_NPOOLS] = {"prefill", "decode"};
const char *const pp_link_names[3] = {"auto", "intra_node", "inter_node"};
static const char *const disagg_keys[] = {"prefill", "decode", "kv_transfer_config"};
static const char *const pool_keys[] = {"tensor_parallel_size", "data_parallel_size",
					"max_num_seqs", "max_num_batched_tokens", "kv_role"};
static const char *const xfer_keys[] = {"kv_connector", "link"};
/* vLLM's kv_role of each pool (KVTransferConfig: kv_producer, kv_consumer;
 * kv_both serves either, as NixlConnector's examples run) */
static const char *const kv_roles[] = {"kv_producer", "kv_consumer", "kv_both"};

/* serving.disaggregation: the two pools and the KV transfer link. The
 * serving section's layout and limits are the pools' defaults; the
 * cluster holds pipeline x (prefill TP x instances + decode TP x
 * instances) GPUs. */
static int parse_disagg(pp_servespec *sv, const sdoc *s, const pp_jdoc *d, const cJSON *o,
			const pp_model *m, const pp_cluster *cl, double per_seq, double cap,
			pp_err *err)
{
	const char *P = "serving.disaggregation";
	pp_serve_disagg *g = &sv->disagg;
	int rc;
	if ((rc = pp_jcheck_keys(d, o, P, disagg_keys, PP_ARRAY_LEN(disagg_keys), err)))
		return rc;
	if (sv->given & PP_SG_DP)
		return pp_jdoc_errf(d, err, "serving.data_parallel_size", "found beside "
				    "\"disaggregation\"; expected the instances of each pool in "
				    "serving.disaggregation.prefill/decode.data_parallel_size");
	g->present = true;
	int64_t gpus = 0;
	for (int k = 0; k < PP_NPOOLS; k++) {
		char path[96], tpp[128];
		snprintf(path, sizeof(path), "%s.%s", P, pp_pool_names[k]);
		const cJSON *po;
		if ((rc = pp_jget_obj(d, o, P, pp_pool_names[k], true, &po, err)) ||
		    (rc = pp_jcheck_keys(d, po, path, pool_keys, PP_ARRAY_LEN(pool_keys), err)))
			return rc;
		pp_serve_pool_spec *ps = &g->pool[k];
		int64_t i64;
		bool present;
		ps->tp = sv->tp;
		ps->dp = 1;
		ps->max_num_seqs = sv->max_num_seqs;
		ps->max_num_batched_tokens = sv->max_num_batched_tokens;
		ps->given = sv->given & (PP_SG_SEQS | PP_SG_TOKENS);
		if ((rc = pp_jget_int(d, po, path, "tensor_parallel_size", false, 1, 4096, &i64,
				      &present, err)))
			return rc;
		if (present)
			ps->tp = (int)i64;
		if ((rc = pp_jget_int(d, po, path, "data_parallel_size", false, 1, 1 << 20, &i64,
				      &present, err)))
			return rc;
		if (present) {
			ps->dp = (int)i64;
			ps->given |= PP_SG_DP;
		}
		if ((rc = pp_jget_int(d, po, path, "max_num_seqs", false, 1, 1 << 20, &ps->max_num_seqs,
				      &present, err)))
			return rc;
		if (present)
			ps->given |= PP_SG_SEQS;
		if ((rc = pp_jget_int(d, po, path, "max_num_batched_tokens", false, 1, MAX_TOKENS_KEY,
				      &ps->max_num_batched_tokens, &present, err)))
			return rc;
		if (present)
			ps->given |= PP_SG_TOKENS;
		int role = k;
		if ((rc = pp_jget_enum(d, po, path, "kv_role", false, kv_roles, PP_ARRAY_LEN(kv_roles),
				       &role, NULL, err)))
			return rc;
		if (role != k && role != 2)
			return pp_jdoc_errf(d, err, pp_jpath(tpp, sizeof(tpp), path, "kv_role"), "found "
					    "\"%s\" in the %s pool; expected \"%s\" (or \"kv_both\")",
					    kv_roles[role], pp_pool_names[k], kv_roles[k]);
		if (ps->max_num_batched_tokens < ps->max_num_seqs) {
			if ((ps->given & PP_SG_TOKENS) && (ps->given & PP_SG_SEQS))
				return pp_jdoc_errf(d, err, pp_jpath(tpp, sizeof(tpp), path,
						    "max_num_batched_tokens"), "found %lld, below "
						    "max_num_seqs %lld; expected at least max_num_seqs (vLLM "
						    "refuses it)", (long long)ps->max_num_batched_tokens,
						    (long long)ps->max_num_seqs);
			ps->max_num_seqs = ps->max_num_batched_tokens;
		}
		if (!sv->chunked_prefill && sv->engine != PP_ENG_TRTLLM &&
		    ps->max_num_batched_tokens < sv->max_model_len)
			return pp_jdoc_errf(d, err, pp_jpath(tpp, sizeof(tpp), path,
					    "max_num_batched_tokens"), "found %lld with chunked prefill "
					    "off and max_model_len %lld; expected at least max_model_len "
					    "(a prompt must fit one step)",
					    (long long)ps->max_num_batched_tokens,
					    (long long)sv->max_model_len);
		/* the pool's TP against the model, as for the serving section */
		pp_servespec t = *sv;
		t.tp = ps->tp;
		t.given = 0;
		pp_cluster c1 = *cl;
		c1.num_gpus = ps->tp * sv->pp;
		if ((rc = check_layout(d, &t, m, &c1, pp_jpath(tpp, sizeof(tpp), path,
							       "tensor_parallel_size"), err)))
			return rc;
		if ((rc = graph_max(s, sv, ps->tp, ps->max_num_seqs, ps->max_num_batched_tokens,
				    per_seq, cap, &ps->cudagraph_max, err)))
			return rc;
		gpus += (int64_t)ps->tp * sv->pp * ps->dp;
	}
	if (gpus != cl->num_gpus)
		return pp_jdoc_errf(d, err, P, "found pipeline %d x (prefill TP %d x %d + decode TP %d "
				    "x %d) = %lld GPUs; expected cluster.num_gpus = %d", sv->pp,
				    g->pool[0].tp, g->pool[0].dp, g->pool[1].tp, g->pool[1].dp,
				    (long long)gpus, cl->num_gpus);
	const cJSON *x;
	char xp[96];
	snprintf(xp, sizeof(xp), "%s.kv_transfer_config", P);
	snprintf(g->kv_connector, sizeof(g->kv_connector), "NixlConnector");
	if ((rc = pp_jget_obj(d, o, P, "kv_transfer_config", false, &x, err)))
		return rc;
	if (x && ((rc = pp_jcheck_keys(d, x, xp, xfer_keys, PP_ARRAY_LEN(xfer_keys), err)) ||
		  (rc = pp_jget_str(d, x, xp, "kv_connector", false, g->kv_connector,
				    sizeof(g->kv_connector), NULL, err)) ||
		  (rc = pp_jget_enum(d, x, xp, "link", false, pp_link_names, 3, &g->link, NULL, err))))
		return rc;
	int dom = pp_cluster_domain_gpus(cl);
	if (g->link == PP_LINK_AUTO)
		g->link = gpus <= dom ? PP_LINK_INTRA : PP_LINK_INTER;
	if (g->link == PP_LINK_INTRA && gpus > dom)
		return pp_jdoc_errf(d, err, "serving.disaggregation.kv_transfer_config.link", "found "
				    "\"intra_node\" with %lld GPUs in both pools, more than an NVLink "
				    "domain's %d; expected \"inter_node\" (or \"auto\")", (long long)gpus,
				    dom);
	return 0;
}

static int parse_serving(pp_servespec *sv, const pp_jdoc *d, const cJSON *so, const pp_model *m,
			 const pp_cluster *cl, const pp_catalog *cat, pp_err *err)
{
	int rc, e = 0;
	bool present;
	const char *P = "serving";
	if ((rc = pp_jcheck_keys(d, so, P, serving_keys, PP_ARRAY_LEN(serving_keys), err)) ||
	    (rc = pp_jget_enum(d, so, P, "engine", false, pp_serve_engine_names, PP_ENG_COUNT, &e,
			       NULL, err)))
		return rc;
	sv->engine = (pp_serve_engine)e;
	sdoc s = {0};
	if ((rc = load_data(&s, cat, sv->engine, err)))
		goto out;
	/* the engine's behaviour */
	double big_gib, seqs_big, seqs_other, tok_big, tok_other, bs, bs_mla, util, per_seq, cap;
	char excl[32], rule[16];
	if ((rc = efig(&s, "big_gpu_min_gib", &big_gib, err)) ||
	    (rc = pp_jget_str(&s.doc, s.eng, s.eng_path, "big_gpu_exclude", true, excl, sizeof(excl),
			      NULL, err)) ||
	    (rc = efig(&s, "max_num_seqs_big", &seqs_big, err)) ||
	    (rc = efig(&s, "max_num_seqs_other", &seqs_other, err)) ||
	    (rc = efig(&s, "max_num_batched_tokens_big", &tok_big, err)) ||
	    (rc = efig(&s, "max_num_batched_tokens_other", &tok_other, err)) ||
	    (rc = efig(&s, "block_size", &bs, err)) || (rc = efig(&s, "block_size_mla", &bs_mla, err)) ||
	    (rc = efig(&s, "gpu_memory_utilization", &util, err)) ||
	    (rc = ebool(&s, "enable_chunked_prefill", &sv->chunked_prefill, err)) ||
	    (rc = ebool(&s, "enable_prefix_caching", &sv->prefix_caching, err)) ||
	    (rc = ebool(&s, "mixed_batches", &sv->mixed_batches, err)) ||
	    (rc = ebool(&s, "prefill_first", &sv->prefill_first, err)) ||
	    (rc = ebool(&s, "preemption", &sv->preemption, err)) ||
	    (rc = ebool(&s, "custom_allreduce", &sv->custom_allreduce, err)) ||
	    (rc = efig(&s, "admission_output_reserve", &sv->output_reserve, err)) ||
	    (rc = efig(&s, "cudagraph_per_seq", &per_seq, err)) ||
	    (rc = efig(&s, "cudagraph_cap", &cap, err)) ||
	    (rc = pp_jget_str(&s.doc, s.eng, s.eng_path, "kv_memory_rule", true, rule, sizeof(rule),
			      NULL, err)) ||
	    (rc = load_misc(&s, sv, cl->gpu, err)))
		goto out;
	if ((rc = parse_policy(sv, &s, d, so, err)))
		goto out;
	sv->kv_rule = !strcmp(rule, "sglang") ? PP_KVRULE_SGLANG
		      : !strcmp(rule, "trtllm") ? PP_KVRULE_TRTLLM : PP_KVRULE_VLLM;
	if (sv->kv_rule == PP_KVRULE_SGLANG) {
		double b, c, g, r8, fl;
		if ((rc = efig(&s, "reserve_mib_base", &b, err)) ||
		    (rc = efig(&s, "reserve_mib_per_chunk_token", &c, err)) ||
		    (rc = efig(&s, "reserve_mib_per_graph_bs", &g, err)) ||
		    (rc = efig(&s, "reserve_mib_per_8_ranks", &r8, err)) ||
		    (rc = efig(&s, "reserve_floor_gib_big", &fl, err)) ||
		    (rc = efig(&s, "max_running_scale", &sv->sg_max_running_scale, err)) ||
		    (rc = efig(&s, "max_running_floor", &sv->sg_max_running_floor, err)))
			goto out;
		double mib = 1024.0 * 1024.0;
		sv->sg_reserve_base_bytes = b * mib;
		sv->sg_reserve_per_chunk_token = c * mib;
		sv->sg_reserve_per_graph_bs = g * mib;
		sv->sg_reserve_per_8_ranks = r8 * mib;
		sv->sg_reserve_floor_bytes = fl * PP_GIB;
		sv->sg_big_bytes = big_gib * PP_GIB;
	}
	/* the layout */
	int64_t i64 = 0;
	sv->tp = sv->pp = 1;
	if ((rc = pp_jget_int(d, so, P, "tensor_parallel_size", false, 1, 4096, &i64, &present, err)))
		goto out;
	if (present)
		sv->tp = (int)i64;
	if ((rc = pp_jget_int(d, so, P, "pipeline_parallel_size", false, 1, 4096, &i64, &present,
			      err)))
		goto out;
	if (present)
		sv->pp = (int)i64;
	if ((rc = pp_jget_int(d, so, P, "data_parallel_size", false, 1, 1 << 22, &i64, &present, err)))
		goto out;
	if (present) {
		sv->dp = (int)i64;
		sv->given |= PP_SG_DP;
	}
	if ((rc = pp_jget_bool(d, so, P, "enable_expert_parallel", false, &sv->expert_parallel, NULL,
			       err)))
		goto out;
	e = 0;
	if ((rc = pp_jget_enum(d, so, P, "precision", false, precisions, PP_ARRAY_LEN(precisions), &e,
			       NULL, err)))
		goto out;
	sv->precision = precision_dt[e];
	const cJSON *so_disagg;
	if ((rc = pp_jget_obj(d, so, P, "disaggregation", false, &so_disagg, err)))
		goto out;
	sv->disagg.present = so_disagg != NULL; /* parse_disagg fills it */
	if ((rc = check_layout(d, sv, m, cl, "serving.tensor_parallel_size", err)))
		goto out;
	if (!(sv->given & PP_SG_DP))
		sv->dp = so_disagg ? 1 : cl->num_gpus / (sv->tp * sv->pp);
	/* the scheduler's limits */
	bool big = big_gpu(cl->gpu, big_gib, excl);
	snprintf(sv->kv_cache_dtype, sizeof(sv->kv_cache_dtype), "auto");
	e = 0;
	if ((rc = pp_jget_enum(d, so, P, "kv_cache_dtype", false, kv_dtypes, PP_ARRAY_LEN(kv_dtypes),
			       &e, NULL, err)))
		goto out;
	snprintf(sv->kv_cache_dtype, sizeof(sv->kv_cache_dtype), "%s", kv_dtypes[e]);
	sv->kv_bytes = e >= 3 ? 1.0 : 2.0; /* auto: the model's 16-bit activations */
	if ((rc = pp_jget_bool(d, so, P, "enable_chunked_prefill", false, &sv->chunked_prefill, NULL,
			       err)) ||
	    (rc = pp_jget_bool(d, so, P, "enable_prefix_caching", false, &sv->prefix_caching, NULL,
			       err)) ||
	    (rc = pp_jget_bool(d, so, P, "enforce_eager", false, &sv->enforce_eager, NULL, err)))
		goto out;
	sv->max_model_len = m->seq_length;
	if ((rc = pp_jget_int(d, so, P, "max_model_len", false, 2, MAX_TOKENS_KEY, &sv->max_model_len,
			      &present, err)))
		goto out;
	if (present)
		sv->given |= PP_SG_MODEL_LEN;
	sv->max_num_seqs = (int64_t)(big ? seqs_big : seqs_other);
	if ((rc = pp_jget_int(d, so, P, "max_num_seqs", false, 1, 1 << 20, &sv->max_num_seqs,
			      &present, err)))
		goto out;
	if (present)
		sv->given |= PP_SG_SEQS;
	sv->seqs_from_kv = !present && sv->engine == PP_ENG_SGLANG;
	sv->max_num_batched_tokens = (int64_t)(big ? tok_big : tok_other);
	/* vLLM and SGLang without chunked prefill: a step must hold a whole
	 * max_model_len; TensorRT-LLM asks only for the longest prompt (checked
	 * against the workload, servework.c) */
	bool whole_len = sv->engine != PP_ENG_TRTLLM;
	if (whole_len && !sv->chunked_prefill && sv->max_num_batched_tokens < sv->max_model_len)
		sv->max_num_batched_tokens = sv->max_model_len; /* vLLM: a whole prompt per step */
	if ((rc = pp_jget_int(d, so, P, "max_num_batched_tokens", false, 1, MAX_TOKENS_KEY,
			      &sv->max_num_batched_tokens, &present, err)))
		goto out;
	if (present)
		sv->given |= PP_SG_TOKENS;
	if ((sv->given & PP_SG_TOKENS) && (sv->given & PP_SG_SEQS) &&
	    sv->max_num_batched_tokens < sv->max_num_seqs) {
		rc = pp_jdoc_errf(d, err, "serving.max_num_batched_tokens", "found %lld, below "
				  "max_num_seqs %lld; expected at least max_num_seqs (vLLM refuses it)",
				  (long long)sv->max_num_batched_tokens, (long long)sv->max_num_seqs);
		goto out;
	}
	if (sv->max_num_seqs > sv->max_num_batched_tokens)
		sv->max_num_seqs = sv->max_num_batched_tokens; /* vLLM clamps the default */
	if (whole_len && !sv->chunked_prefill && sv->max_num_batched_tokens < sv->max_model_len) {
		rc = pp_jdoc_errf(d, err, "serving.max_num_batched_tokens", "found %lld with chunked "
				  "prefill off and max_model_len %lld; expected at least max_model_len (a "
				  "prompt must fit one step)", (long long)sv->max_num_batched_tokens,
				  (long long)sv->max_model_len);
		goto out;
	}
	sv->block_size = (int)(m->multi_latent_attention ? bs_mla : bs);
	if ((rc = pp_jget_int(d, so, P, "block_size", false, 1, 1024, &i64, &present, err)))
		goto out;
	if (present) {
		static const int ok[] = {1, 8, 16, 32, 64, 128};
		bool good = false;
		for (size_t i = 0; i < PP_ARRAY_LEN(ok); i++)
			good |= ok[i] == i64;
		if (!good) {
			rc = pp_jdoc_errf(d, err, "serving.block_size", "found %lld, expected one of 1, 8, "
					  "16, 32, 64, 128", (long long)i64);
			goto out;
		}
		sv->block_size = (int)i64;
		sv->given |= PP_SG_BLOCK;
	}
	sv->gpu_memory_utilization = util;
	if ((rc = pp_jget_num(d, so, P, "gpu_memory_utilization", false, 0.01, 1.0,
			      &sv->gpu_memory_utilization, &present, err)))
		goto out;
	if (present)
		sv->given |= PP_SG_UTIL;
	if ((rc = graph_max(&s, sv, sv->tp, sv->max_num_seqs, sv->max_num_batched_tokens, per_seq,
			    cap, &sv->cudagraph_max, err)))
		goto out;
	if (so_disagg && (rc = parse_disagg(sv, &s, d, so_disagg, m, cl, per_seq, cap, err)))
		goto out;
	snprintf(sv->defaults_note, sizeof(sv->defaults_note),
		 "%s defaults for %s (%s-GPU rule) from models/serving.json",
		 pp_serve_engine_names[sv->engine], cl->gpu->id, big ? "large" : "small");
out:
	pp_jdoc_release(&s.doc);
	return rc;
}

static int parse_slo(pp_servespec *sv, const pp_jdoc *d, const cJSON *o, pp_err *err)
{
	int rc;
	const char *P = "slo";
	double ms[4] = {0, 0, 0, 0};
	static const char *const k[4] = {"ttft_ms", "tpot_ms", "itl_ms", "e2el_ms"};
	if ((rc = pp_jcheck_keys(d, o, P, slo_keys, PP_ARRAY_LEN(slo_keys), err)))
		return rc;
	bool any = false;
	for (int i = 0; i < 4; i++) {
		bool present;
		if ((rc = pp_jget_num(d, o, P, k[i], false, 1e-3, 1e9, &ms[i], &present, err)))
			return rc;
		any |= present;
	}
	if (!any)
		return pp_jdoc_errf(d, err, P, "found no bound; expected at least one of ttft_ms, "
				    "tpot_ms, itl_ms, e2el_ms");
	sv->slo_present = true;
	sv->slo_ttft_s = ms[0] * 1e-3;
	sv->slo_tpot_s = ms[1] * 1e-3;
	sv->slo_itl_s = ms[2] * 1e-3;
	sv->slo_e2el_s = ms[3] * 1e-3;
	sv->slo_percentile = 99;
	return pp_jget_num(d, o, P, "percentile", false, 0, 100, &sv->slo_percentile, NULL, err);
}

int pp_servespec_parse(pp_servespec *sv, const pp_jdoc *d, const pp_model *m,
		       const struct pp_cluster *cl, const pp_catalog *cat, pp_err *err)
{
	memset(sv, 0, sizeof(*sv));
	const cJSON *so, *wl, *slo;
	int rc;
	if ((rc = pp_jget_obj(d, d->root, "", "serving", false, &so, err)) ||
	    (rc = pp_jget_obj(d, d->root, "", "workload", false, &wl, err)) ||
	    (rc = pp_jget_obj(d, d->root, "", "slo", false, &slo, err)))
		return rc;
	if (!so) {
		if (wl || slo)
			return pp_jdoc_errf(d, err, wl ? "workload" : "slo", "found without a \"serving\" "
					    "section; expected \"serving\" beside it (the engine and "
					    "layout it runs on)");
		return 0;
	}
	sv->present = true;
	if ((rc = parse_serving(sv, d, so, m, cl, cat, err)) ||
	    (rc = pp_servework_parse(sv, d, wl, err)) || (slo && (rc = parse_slo(sv, d, slo, err)))) {
		pp_servespec_release(sv);
		memset(sv, 0, sizeof(*sv));
		return rc;
	}
	return 0;
}

void pp_servespec_release(pp_servespec *sv)
{
	if (!sv)
		return;
	free(sv->trace);
	sv->trace = NULL;
	sv->ntrace = 0;
}
