/* catalog.c - see catalog.h. */
#include "input/catalog.h"
#include "input/framework.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

const char *const pp_dtype_names[PP_DT_COUNT] = {"fp32", "tf32", "bf16", "fp16", "fp8"};

double pp_dtype_bytes(pp_dtype dt)
{
	switch (dt) {
	case PP_DT_FP8: return 1.0;
	case PP_DT_BF16:
	case PP_DT_FP16: return 2.0;
	default: return 4.0;
	}
}

enum { DOC_GPUS, DOC_FABRICS, DOC_STORAGE, DOC_MODELS, DOC_PRICES, DOC_KERNELS, DOC_FRAMEWORKS,
       DOC_PLAUSIBILITY, DOC_TCO, DOC_COUNT };
static const char *const doc_kinds[DOC_COUNT] = {"gpus", "fabrics", "storage", "models", "prices",
						 "kernels", "frameworks", "plausibility", "tco"};

struct pp_catalog {
	char *dir;
	pp_jdoc docs[DOC_COUNT];
	pp_gpu *gpus;
	size_t ngpus;
	pp_fabric *fabrics;
	size_t nfabrics;
	pp_storage *storage;
	size_t nstorage;
	pp_model *models;
	size_t nmodels;
	pp_finetune_defaults finetune;
	pp_moe_defaults moe;
	pp_kernel_params *kernels;
	size_t nkernels;
	pp_frameworks *frameworks;
	pp_best_mfu *best;
	size_t nbest;
	const char **ids[DOC_COUNT];
	size_t nids[DOC_COUNT];
};

/* A figure: {"value", "source", "date", "estimate"}; or null when nullable.
 * *out = value * scale. */
static int read_fig(const pp_jdoc *d, const cJSON *obj, const char *parent, const char *key,
		    bool required, bool nullable, double scale, double *out, pp_prov *prov, pp_err *err)
{
	char path[512];
	pp_jpath(path, sizeof(path), parent, key);
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!f) {
		if (required)
			return pp_jdoc_errf(d, err, path, "missing, expected a figure "
					    "{\"value\", \"source\", \"date\"}");
		return 0;
	}
	if (cJSON_IsNull(f)) {
		if (!nullable)
			return pp_jdoc_errf(d, err, path, "found null, expected a figure");
		*out = 0;
		return 0;
	}
	if (!cJSON_IsObject(f))
		return pp_jdoc_errf(d, err, path, "found a bare value, expected a figure "
				    "{\"value\", \"source\", \"date\"} (every figure carries its source)");
	double v = 0;
	int rc = pp_jget_num(d, f, path, "value", true, -1e30, 1e30, &v, NULL, err);
	if (rc)
		return rc;
	pp_prov p = {0};
	rc = pp_jget_str(d, f, path, "source", true, p.source, sizeof(p.source), NULL, err);
	if (rc)
		return rc;
	rc = pp_jget_str(d, f, path, "date", true, p.date, sizeof(p.date), NULL, err);
	if (rc)
		return rc;
	rc = pp_jget_bool(d, f, path, "estimate", false, &p.estimate, NULL, err);
	if (rc)
		return rc;
	*out = v * scale;
	if (prov)
		*prov = p;
	return 0;
}

static int read_int(const pp_jdoc *d, const cJSON *o, const char *parent, const char *key,
		    int64_t min, int64_t max, int *out, pp_err *err)
{
	int64_t v = 0;
	int rc = pp_jget_int(d, o, parent, key, true, min, max, &v, NULL, err);
	if (!rc)
		*out = (int)v;
	return rc;
}

static int load_doc(pp_catalog *c, int kind, pp_err *err)
{
	char name[64];
	snprintf(name, sizeof(name), "%s.json", doc_kinds[kind]);
	char *path = pp_path_join(c->dir, name);
	int rc = pp_jdoc_load(&c->docs[kind], path, err);
	free(path);
	return rc;
}

static const cJSON *doc_array(const pp_jdoc *d, const char *key, pp_err *err, int *rc)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(d->root, key);
	*rc = 0;
	if (!cJSON_IsArray(a))
		*rc = pp_jdoc_errf(d, err, key, "missing or not an array, expected an array of entries");
	return a;
}

static int load_gpus(pp_catalog *c, pp_err *err)
{
	const pp_jdoc *d = &c->docs[DOC_GPUS];
	int rc;
	const cJSON *arr = doc_array(d, "gpus", err, &rc);
	if (rc)
		return rc;
	size_t n = (size_t)cJSON_GetArraySize(arr);
	c->gpus = pp_xcalloc(n, sizeof(pp_gpu));
	int i = 0;
	for (const cJSON *e = arr->child; e; e = e->next, i++) {
		pp_gpu *g = &c->gpus[i];
		char p[256], q[256];
		pp_jpath_idx(p, sizeof(p), "gpus", i);
		if ((rc = pp_jget_str(d, e, p, "id", true, g->id, sizeof(g->id), NULL, err)) ||
		    (rc = pp_jget_str(d, e, p, "name", true, g->name, sizeof(g->name), NULL, err)) ||
		    (rc = pp_jget_str(d, e, p, "arch", true, g->arch, sizeof(g->arch), NULL, err)))
			return rc;
		char ff[16] = "";
		if ((rc = pp_jget_str(d, e, p, "form_factor", true, ff, sizeof(ff), NULL, err)))
			return rc;
		g->sxm = !strcmp(ff, "sxm");
		const cJSON *pk;
		if ((rc = pp_jget_obj(d, e, p, "peak_dense_tflops", true, &pk, err)))
			return rc;
		pp_jpath(q, sizeof(q), p, "peak_dense_tflops");
		for (int t = 0; t < PP_DT_COUNT; t++) {
			pp_prov pv;
			if ((rc = read_fig(d, pk, q, pp_dtype_names[t], t != PP_DT_FP8, true, PP_TERA,
					   &g->peak_flops[t], &pv, err)))
				return rc;
			if (t == PP_DT_BF16)
				g->peak_prov = pv;
		}
		double sm = 0, clk = 0;
		if ((rc = read_fig(d, e, p, "sm_count", true, false, 1, &sm, NULL, err)) ||
		    (rc = read_fig(d, e, p, "boost_clock_mhz", false, true, 1e6, &clk, NULL, err)) ||
		    (rc = read_fig(d, e, p, "memory_gib", true, false, PP_GIB, &g->mem_bytes, &g->mem_prov, err)) ||
		    (rc = read_fig(d, e, p, "memory_tbps", true, false, PP_TERA, &g->mem_Bps, NULL, err)) ||
		    (rc = read_fig(d, e, p, "tdp_w", true, false, 1, &g->tdp_w, NULL, err)))
			return rc;
		g->sm_count = (int)sm;
		g->clock_hz = clk;
		g->sustained = 1;
		if ((rc = read_fig(d, e, p, "sustained_clock_fraction", false, false, 1, &g->sustained,
				   &g->sustained_prov, err)))
			return rc;
		if (g->sustained <= 0 || g->sustained > 1)
			return pp_jdoc_errf(d, err, pp_jpath(q, sizeof(q), p, "sustained_clock_fraction"),
					    "found %g; expected a fraction in (0, 1]", g->sustained);
		for (int t = 0; t < PP_DT_COUNT; t++)
			g->sustained_gemm[t] = 1;
		const cJSON *sg = cJSON_GetObjectItemCaseSensitive(e, "sustained_gemm_fraction");
		if (sg) {
			pp_jpath(q, sizeof(q), p, "sustained_gemm_fraction");
			char fb[80];
			if (!cJSON_IsObject(sg))
				return pp_jdoc_errf(d, err, q, "found %s; expected an object of figures by "
						    "dtype (\"bf16\", \"fp8\", ...)",
						    pp_jdoc_describe(sg, fb, sizeof(fb)));
			if ((rc = pp_jcheck_keys(d, sg, q, pp_dtype_names, PP_DT_COUNT, err)))
				return rc;
			bool given[PP_DT_COUNT] = {false};
			for (int t = 0; t < PP_DT_COUNT; t++) {
				pp_prov pv = {0};
				if ((rc = read_fig(d, sg, q, pp_dtype_names[t], false, false, 1,
						   &g->sustained_gemm[t], &pv, err)))
					return rc;
				given[t] = pv.source[0] != 0;
				char r[600];
				if (!(g->sustained_gemm[t] > 0 && g->sustained_gemm[t] <= 1))
					return pp_jdoc_errf(d, err, pp_jpath(r, sizeof(r), q, pp_dtype_names[t]),
							    "found %g; expected a fraction in (0, 1]",
							    g->sustained_gemm[t]);
				if (given[t] && (t == PP_DT_BF16 || !g->sustained_gemm_prov.source[0]))
					g->sustained_gemm_prov = pv;
			}
			/* fp16 runs on the tensor cores as bf16 does: bf16's share unless
			 * given its own */
			if (given[PP_DT_BF16] && !given[PP_DT_FP16])
				g->sustained_gemm[PP_DT_FP16] = g->sustained_gemm[PP_DT_BF16];
		}
		const cJSON *nv = cJSON_GetObjectItemCaseSensitive(e, "nvlink");
		if (nv && !cJSON_IsNull(nv)) {
			pp_jpath(q, sizeof(q), p, "nvlink");
			int64_t gen = 0;
			if ((rc = pp_jget_int(d, nv, q, "generation", true, 1, 9, &gen, NULL, err)) ||
			    (rc = pp_jget_str(d, nv, q, "fabric", true, g->nvlink_fabric,
					      sizeof(g->nvlink_fabric), NULL, err)) ||
			    (rc = read_fig(d, nv, q, "unidir_gbytes_per_s", true, false, PP_GB,
					   &g->nvlink_Bps, NULL, err)))
				return rc;
			g->nvlink_gen = (int)gen;
		}
		const cJSON *pc;
		if ((rc = pp_jget_obj(d, e, p, "pcie", true, &pc, err)))
			return rc;
		pp_jpath(q, sizeof(q), p, "pcie");
		if ((rc = read_int(d, pc, q, "generation", 1, 9, &g->pcie_gen, err)) ||
		    (rc = pp_jget_str(d, pc, q, "fabric", true, g->pcie_fabric, sizeof(g->pcie_fabric),
				      NULL, err)))
			return rc;
		const cJSON *node;
		if ((rc = pp_jget_obj(d, e, p, "node", true, &node, err)))
			return rc;
		pp_jpath(q, sizeof(q), p, "node");
		if ((rc = read_int(d, node, q, "gpus_per_node", 1, 1024, &g->gpus_per_node, err)) ||
		    (rc = pp_jget_str(d, node, q, "intra_node", true, g->intra_node, sizeof(g->intra_node),
				      NULL, err)))
			return rc;
		c->ngpus++;
	}
	return 0;
}

static int load_fabrics(pp_catalog *c, pp_err *err)
{
	static const char *const kinds[] = {"nvlink", "pcie", "infiniband", "roce", "ethernet"};
	static const char *const scopes[] = {"intra_node", "inter_node"};
	const pp_jdoc *d = &c->docs[DOC_FABRICS];
	int rc;
	const cJSON *arr = doc_array(d, "fabrics", err, &rc);
	if (rc)
		return rc;
	c->fabrics = pp_xcalloc((size_t)cJSON_GetArraySize(arr), sizeof(pp_fabric));
	int i = 0;
	for (const cJSON *e = arr->child; e; e = e->next, i++) {
		pp_fabric *f = &c->fabrics[i];
		char p[256];
		pp_jpath_idx(p, sizeof(p), "fabrics", i);
		int kind = 0, scope = 0;
		double lat_us = 0;
		if ((rc = pp_jget_str(d, e, p, "id", true, f->id, sizeof(f->id), NULL, err)) ||
		    (rc = pp_jget_str(d, e, p, "name", true, f->name, sizeof(f->name), NULL, err)) ||
		    (rc = pp_jget_enum(d, e, p, "kind", true, kinds, 5, &kind, NULL, err)) ||
		    (rc = pp_jget_enum(d, e, p, "scope", true, scopes, 2, &scope, NULL, err)) ||
		    (rc = read_fig(d, e, p, "port_unidir_gbytes_per_s", true, false, PP_GB, &f->port_Bps,
				   &f->bw_prov, err)) ||
		    (rc = read_fig(d, e, p, "achievable_fraction", true, false, 1, &f->efficiency,
				   &f->eff_prov, err)) ||
		    (rc = read_fig(d, e, p, "latency_us", true, false, 1, &lat_us, &f->lat_prov, err)))
			return rc;
		f->kind = (pp_fabric_kind)kind;
		f->intra_node = scope == 0;
		f->latency_s = lat_us * 1e-6;
		const cJSON *cv = cJSON_GetObjectItemCaseSensitive(e, "allreduce_busbw_curve");
		if (cv) {
			char q[256];
			pp_jpath(q, sizeof(q), p, "allreduce_busbw_curve");
			const cJSON *pts = cJSON_GetObjectItemCaseSensitive(cv, "points");
			int64_t nr = 0;
			if ((rc = pp_jget_int(d, cv, q, "nranks", true, 2, 100000, &nr, NULL, err)))
				return rc;
			f->curve_nranks = (int)nr;
			if ((rc = pp_jget_str(d, cv, q, "source", true, f->curve_prov.source,
					      sizeof(f->curve_prov.source), NULL, err)) ||
			    (rc = pp_jget_str(d, cv, q, "date", true, f->curve_prov.date,
					      sizeof(f->curve_prov.date), NULL, err)))
				return rc;
			if (!cJSON_IsArray(pts) || cJSON_GetArraySize(pts) < 2 ||
			    cJSON_GetArraySize(pts) > 48)
				return pp_jdoc_errf(d, err, q, "points: expected 2 to 48 [bytes, GB/s] pairs");
			int k = 0;
			for (const cJSON *pt = pts->child; pt; pt = pt->next, k++) {
				const cJSON *a = cJSON_GetArrayItem(pt, 0), *b2 = cJSON_GetArrayItem(pt, 1);
				if (!cJSON_IsArray(pt) || !cJSON_IsNumber(a) || !cJSON_IsNumber(b2) ||
				    a->valuedouble <= 0 || b2->valuedouble <= 0 ||
				    (k && a->valuedouble <= f->curve_bytes[k - 1]))
					return pp_jdoc_errf(d, err, q, "points[%d]: expected [bytes, GB/s] with "
							    "increasing positive sizes", k);
				f->curve_bytes[k] = a->valuedouble;
				f->curve_Bps[k] = b2->valuedouble * PP_GB;
			}
			f->ncurve = k;
		}
		const cJSON *sw = cJSON_GetObjectItemCaseSensitive(e, "switch");
		if (sw && cJSON_IsObject(sw)) {
			char q[256];
			double ports = 0;
			pp_jpath(q, sizeof(q), p, "switch");
			if ((rc = read_fig(d, sw, q, "ports", true, false, 1, &ports, NULL, err)))
				return rc;
			f->switch_ports = (int)ports;
		}
		c->nfabrics++;
	}
	return 0;
}

static int load_storage(pp_catalog *c, pp_err *err)
{
	const pp_jdoc *d = &c->docs[DOC_STORAGE];
	int rc;
	const cJSON *arr = doc_array(d, "storage", err, &rc);
	if (rc)
		return rc;
	c->storage = pp_xcalloc((size_t)cJSON_GetArraySize(arr), sizeof(pp_storage));
	int i = 0;
	for (const cJSON *e = arr->child; e; e = e->next, i++) {
		pp_storage *s = &c->storage[i];
		char p[256];
		pp_jpath_idx(p, sizeof(p), "storage", i);
		if ((rc = pp_jget_str(d, e, p, "id", true, s->id, sizeof(s->id), NULL, err)) ||
		    (rc = pp_jget_str(d, e, p, "name", true, s->name, sizeof(s->name), NULL, err)) ||
		    (rc = read_fig(d, e, p, "read_gbytes_per_s_per_node", true, false, PP_GB,
				   &s->read_Bps_per_node, &s->prov, err)) ||
		    (rc = read_fig(d, e, p, "write_gbytes_per_s_per_node", true, false, PP_GB,
				   &s->write_Bps_per_node, NULL, err)) ||
		    (rc = read_fig(d, e, p, "aggregate_read_gbytes_per_s", false, true, PP_GB,
				   &s->agg_read_Bps, NULL, err)) ||
		    (rc = read_fig(d, e, p, "aggregate_write_gbytes_per_s", false, true, PP_GB,
				   &s->agg_write_Bps, NULL, err)))
			return rc;
		c->nstorage++;
	}
	return 0;
}


/* ---- architecture keys shared by presets and scenario files ---- */

/* Upper bound of a model dimension: catches typos and overflow. */
#define ARCH_MAX 10000000

/* An optional integer member into *out (left alone when absent). */
static int opt_int(const pp_jdoc *d, const cJSON *o, const char *path, const char *key,
		   int64_t min, int64_t max, int *out, bool *present, pp_err *err)
{
	int64_t v = 0;
	int rc = pp_jget_int(d, o, path, key, false, min, max, &v, present, err);
	if (!rc && *present)
		*out = (int)v;
	return rc;
}

/* moe_layer_freq: an integer N >= 1 (layer i is MoE when i % N == 0,
 * Megatron's int form) or a list of 0/1, one per layer (its list form). */
static int read_layer_freq(const pp_jdoc *d, const cJSON *o, const char *path, pp_model *m,
			   bool *present, pp_err *err)
{
	char p[512], q[540], what[96];
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "moe_layer_freq");
	*present = v != NULL;
	if (!v)
		return 0;
	pp_jpath(p, sizeof(p), path, "moe_layer_freq");
	if (cJSON_IsArray(v)) {
		int n = cJSON_GetArraySize(v), i = 0;
		if (n < 1 || n > PP_MOE_LIST_MAX)
			return pp_jdoc_errf(d, err, p, "found a list of %d entries; expected one 0/1 "
					    "entry per layer (at most %d layers)", n, PP_MOE_LIST_MAX);
		for (const cJSON *e = v->child; e; e = e->next, i++) {
			if (!cJSON_IsNumber(e) || (e->valuedouble != 0 && e->valuedouble != 1))
				return pp_jdoc_errf(d, err, pp_jpath_idx(q, sizeof(q), p, i),
						    "found %s; expected 0 (a dense layer) or 1 (an MoE "
						    "layer)", pp_jdoc_describe(e, what, sizeof(what)));
			m->moe_list[i] = (uint8_t)e->valuedouble;
		}
		m->moe_list_len = n;
		m->moe_layer_freq = 0;
		return 0;
	}
	if (!cJSON_IsNumber(v))
		return pp_jdoc_errf(d, err, p, "found %s; expected an integer N >= 1 (every N-th layer "
				    "MoE, layer 0 first) or a list of 0/1, one per layer",
				    pp_jdoc_describe(v, what, sizeof(what)));
	int f = 0;
	bool pr;
	int rc = opt_int(d, o, path, "moe_layer_freq", 1, ARCH_MAX, &f, &pr, err);
	if (rc)
		return rc;
	m->moe_layer_freq = f;
	m->moe_list_len = 0;
	return 0;
}

/* The error for a key whose feature the model does not have. */
static int orphan(const pp_jdoc *d, const char *path, const char *key, const char *why,
		  pp_err *err)
{
	char p[512];
	return pp_jdoc_errf(d, err, pp_jpath(p, sizeof(p), path, key), "%s", why);
}

int pp_model_read_arch(const pp_jdoc *d, const cJSON *o, const char *path, pp_model *m,
		       pp_err *err)
{
	int rc;
	/* head size: head_dim (Hugging Face's name) or kv_channels (Megatron's) */
	bool has_hd = false, has_kvc = false;
	int hd = 0, kvc = 0;
	if ((rc = opt_int(d, o, path, "head_dim", 1, ARCH_MAX, &hd, &has_hd, err)) ||
	    (rc = opt_int(d, o, path, "kv_channels", 1, ARCH_MAX, &kvc, &has_kvc, err)))
		return rc;
	if (has_hd && has_kvc)
		return orphan(d, path, "kv_channels", "found with head_dim (kv_channels is Megatron's "
			      "name for the same size); expected one of them", err);
	if (has_hd || has_kvc)
		m->head_dim = has_hd ? hd : kvc;

	/* multi-head latent attention */
	bool mla = m->multi_latent_attention, has_mla = false;
	if ((rc = pp_jget_bool(d, o, path, "multi_latent_attention", false, &mla, &has_mla, err)))
		return rc;
	if (mla && !m->multi_latent_attention) {
		/* Megatron-Core's MLATransformerConfig dataclass defaults */
		m->q_lora_rank = 512;
		m->kv_lora_rank = 512;
		m->qk_head_dim = 128;
		m->qk_pos_emb_head_dim = 64;
		m->v_head_dim = 128;
		m->head_dim = 0;
	} else if (!mla) {
		m->q_lora_rank = m->kv_lora_rank = m->qk_head_dim = m->qk_pos_emb_head_dim = 0;
		m->v_head_dim = 0;
	}
	m->multi_latent_attention = mla;
	static const char *const mla_keys[] = {"q_lora_rank", "kv_lora_rank", "qk_head_dim",
					       "qk_pos_emb_head_dim", "v_head_dim"};
	int *mla_dims[] = {&m->q_lora_rank, &m->kv_lora_rank, &m->qk_head_dim,
			   &m->qk_pos_emb_head_dim, &m->v_head_dim};
	for (size_t i = 0; i < PP_ARRAY_LEN(mla_keys); i++) {
		bool pr = false;
		int v = *mla_dims[i];
		/* q_lora_rank 0: the query is not compressed (DeepSeek-V2-Lite) */
		if ((rc = opt_int(d, o, path, mla_keys[i], i == 0 ? 0 : 1, ARCH_MAX, &v, &pr, err)))
			return rc;
		if (pr && !mla)
			return orphan(d, path, mla_keys[i], "found without multi_latent_attention; "
				      "expected the multi-latent attention dims only with "
				      "\"multi_latent_attention\": true", err);
		if (pr)
			*mla_dims[i] = v;
	}
	if (mla && (has_hd || has_kvc))
		return orphan(d, path, has_hd ? "head_dim" : "kv_channels", "found with "
			      "multi_latent_attention; expected no head size: MLA's query and key heads "
			      "are qk_head_dim + qk_pos_emb_head_dim, its value heads v_head_dim", err);

	/* sliding window (podplan's names) */
	bool has_win = false, has_wf = false;
	int win = m->window, wf = m->window_freq;
	if ((rc = opt_int(d, o, path, "window_size", 0, ARCH_MAX, &win, &has_win, err)) ||
	    (rc = opt_int(d, o, path, "window_layer_freq", 1, ARCH_MAX, &wf, &has_wf, err)))
		return rc;
	if (has_win) {
		m->window = win;
		if (win == 0)
			m->window_freq = 0;
		else if (m->window_freq == 0)
			m->window_freq = 1;
	}
	if (has_wf) {
		if (m->window == 0)
			return orphan(d, path, "window_layer_freq", "found without a window_size; "
				      "expected window_layer_freq only with a sliding window", err);
		m->window_freq = wf;
	}

	/* mixture of experts */
	bool has_ne = false;
	int ne = m->num_experts;
	if ((rc = opt_int(d, o, path, "num_experts", 0, 1000000, &ne, &has_ne, err)))
		return rc;
	if (has_ne && ne == 0) {
		/* dense (Megatron maps num_experts 0 to None) */
		m->moe_router_topk = m->moe_ffn_hidden_size = 0;
		m->moe_shared_expert_intermediate_size = m->moe_layer_freq = m->moe_list_len = 0;
	}
	m->num_experts = ne;
	static const char *const moe_keys[] = {"moe_router_topk", "moe_ffn_hidden_size",
					       "moe_shared_expert_intermediate_size"};
	int *moe_fields[] = {&m->moe_router_topk, &m->moe_ffn_hidden_size,
			     &m->moe_shared_expert_intermediate_size};
	bool any = false;
	const char *first = NULL;
	for (size_t i = 0; i < PP_ARRAY_LEN(moe_keys); i++) {
		bool pr = false;
		/* a shared-expert size of 0: none */
		if ((rc = opt_int(d, o, path, moe_keys[i], i == 2 ? 0 : 1, ARCH_MAX, moe_fields[i], &pr,
				  err)))
			return rc;
		if (pr && !any) {
			any = true;
			first = moe_keys[i];
		}
	}
	bool has_lf = false;
	if ((rc = read_layer_freq(d, o, path, m, &has_lf, err)))
		return rc;
	if (has_lf && !any)
		first = "moe_layer_freq";
	if (m->num_experts == 0 && (any || has_lf))
		return orphan(d, path, first, "found for a dense model; expected mixture-of-experts "
			      "keys only with \"num_experts\" > 0", err);
	if (m->num_experts > 0) {
		if (m->moe_router_topk == 0)
			m->moe_router_topk = 2; /* Megatron-Core's default */
		if (m->moe_ffn_hidden_size == 0)
			m->moe_ffn_hidden_size = m->ffn_hidden_size; /* Megatron falls back to it */
		if (m->moe_layer_freq == 0 && m->moe_list_len == 0)
			m->moe_layer_freq = 1; /* every layer MoE */
	}
	return 0;
}

int pp_model_check(const pp_model *m, const char **key, char *why, size_t n)
{
#define FAIL(k, ...)                                    \
	do {                                            \
		*key = k;                               \
		snprintf(why, n, __VA_ARGS__);          \
		return PP_EINPUT;                       \
	} while (0)
	bool mla = m->multi_latent_attention;
	if (!mla && m->head_dim == 0 && m->hidden_size % m->num_attention_heads)
		FAIL("num_attention_heads", "found %d heads for hidden_size %d; expected a head count "
		     "that divides hidden_size", m->num_attention_heads, m->hidden_size);
	if (mla && m->num_query_groups != m->num_attention_heads)
		FAIL("num_query_groups", "found %d groups with multi_latent_attention; expected "
		     "num_attention_heads = %d (MLA has no grouped-query attention)",
		     m->num_query_groups, m->num_attention_heads);
	if (!mla && m->num_attention_heads % m->num_query_groups)
		FAIL("num_query_groups", "found %d groups for %d heads; expected a divisor of "
		     "num_attention_heads", m->num_query_groups, m->num_attention_heads);
	if (mla && (m->q_lora_rank < 0 || m->kv_lora_rank < 1 || m->qk_head_dim < 1 ||
		    m->qk_pos_emb_head_dim < 1 || m->v_head_dim < 1))
		FAIL("kv_lora_rank", "found MLA dims q_lora_rank %d, kv_lora_rank %d, qk_head_dim %d, "
		     "qk_pos_emb_head_dim %d, v_head_dim %d; expected positive sizes (q_lora_rank 0: "
		     "no query compression)", m->q_lora_rank, m->kv_lora_rank, m->qk_head_dim,
		     m->qk_pos_emb_head_dim, m->v_head_dim);
	if (m->num_experts > 0) {
		if (m->moe_router_topk > m->num_experts)
			FAIL("moe_router_topk", "found %d experts per token for num_experts %d; expected "
			     "at most num_experts", m->moe_router_topk, m->num_experts);
		if (m->moe_list_len && m->moe_list_len != m->num_layers)
			FAIL("moe_layer_freq", "found a list of %d entries for num_layers %d; expected one "
			     "0/1 entry per layer", m->moe_list_len, m->num_layers);
	}
	return 0;
#undef FAIL
}

static int load_models(pp_catalog *c, pp_err *err)
{
	const pp_jdoc *d = &c->docs[DOC_MODELS];
	int rc;
	const cJSON *arr = doc_array(d, "models", err, &rc);
	if (rc)
		return rc;
	c->models = pp_xcalloc((size_t)cJSON_GetArraySize(arr), sizeof(pp_model));
	int i = 0;
	for (const cJSON *e = arr->child; e; e = e->next, i++) {
		pp_model *m = &c->models[i];
		char p[256];
		pp_jpath_idx(p, sizeof(p), "models", i);
		int64_t v;
		if ((rc = pp_jget_str(d, e, p, "id", true, m->id, sizeof(m->id), NULL, err)) ||
		    (rc = pp_jget_str(d, e, p, "name", true, m->name, sizeof(m->name), NULL, err)))
			return rc;
#define MI(field)                                                                           \
	if ((rc = pp_jget_int(d, e, p, #field, true, 1, 10000000, &v, NULL, err)))         \
		return rc;                                                                  \
	m->field = (int)v;
		MI(num_layers)
		MI(hidden_size)
		MI(num_attention_heads)
		MI(num_query_groups)
		MI(ffn_hidden_size)
		MI(vocab_size)
		MI(seq_length)
#undef MI
		if ((rc = pp_jget_bool(d, e, p, "swiglu", true, &m->swiglu, NULL, err)) ||
		    (rc = pp_jget_bool(d, e, p, "tied_embeddings", false, &m->tied_embeddings, NULL, err)))
			return rc;
		double pb = 0, pa = 0;
		if ((rc = pp_jget_num(d, e, p, "params_b_published", false, 0, 1e6, &pb, NULL, err)) ||
		    (rc = pp_jget_num(d, e, p, "params_active_b_published", false, 0, 1e6, &pa, NULL,
				      err)) ||
		    (rc = pp_jget_bool(d, e, p, "params_active_published_no_embedding", false,
				       &m->params_active_published_no_embedding, NULL, err)))
			return rc;
		m->params_published = pb * 1e9;
		m->params_active_published = pa * 1e9;
		if ((rc = pp_model_read_arch(d, e, p, m, err)))
			return rc;
		const char *key = NULL;
		char why[512], q[300];
		if (pp_model_check(m, &key, why, sizeof(why)))
			return pp_jdoc_errf(d, err, pp_jpath(q, sizeof(q), p, key), "%s", why);
		c->nmodels++;
	}
	return 0;
}

static int load_finetune(pp_catalog *c, pp_err *err)
{
	const pp_jdoc *d = &c->docs[DOC_MODELS];
	const cJSON *f;
	int rc;
	pp_finetune_defaults *ft = &c->finetune;
	if ((rc = pp_jget_obj(d, d->root, "", "finetune", true, &f, err)) ||
	    (rc = read_fig(d, f, "finetune", "lora_rank", true, false, 1, &ft->lora_rank,
			   &ft->rank_prov, err)) ||
	    (rc = read_fig(d, f, "finetune", "nf4_bits_per_param", true, false, 1,
			   &ft->nf4_bits_per_param, &ft->bits_prov, err)))
		return rc;
	if (ft->lora_rank < 1 || ft->nf4_bits_per_param <= 0)
		return pp_jdoc_errf(d, err, "finetune", "expected a rank >= 1 and bits per parameter > 0");
	return 0;
}

static int load_moe(pp_catalog *c, pp_err *err)
{
	const pp_jdoc *d = &c->docs[DOC_MODELS];
	const cJSON *f;
	int rc;
	pp_moe_defaults *mo = &c->moe;
	if ((rc = pp_jget_obj(d, d->root, "", "moe", true, &f, err)) ||
	    (rc = read_fig(d, f, "moe", "load_imbalance", true, false, 1, &mo->load_imbalance,
			   &mo->imbalance_prov, err)))
		return rc;
	if (mo->load_imbalance < 1 || mo->load_imbalance > 100)
		return pp_jdoc_errf(d, err, "moe.load_imbalance", "found %g; expected a ratio of the "
				    "busiest EP rank's tokens to the mean, 1 to 100", mo->load_imbalance);
	return 0;
}

static int load_attn_kernels(const pp_jdoc *d, const cJSON *e, const char *p, pp_kernel_params *k,
			     pp_err *err);

static int load_kernels(pp_catalog *c, pp_err *err)
{
	const pp_jdoc *d = &c->docs[DOC_KERNELS];
	int rc;
	const cJSON *arr = doc_array(d, "archs", err, &rc);
	if (rc)
		return rc;
	c->kernels = pp_xcalloc((size_t)cJSON_GetArraySize(arr), sizeof(pp_kernel_params));
	int i = 0;
	for (const cJSON *e = arr->child; e; e = e->next, i++) {
		pp_kernel_params *k = &c->kernels[i];
		char p[256], q[256];
		pp_jpath_idx(p, sizeof(p), "archs", i);
		if ((rc = pp_jget_str(d, e, p, "arch", true, k->arch, sizeof(k->arch), NULL, err)))
			return rc;
		const cJSON *g;
		if ((rc = pp_jget_obj(d, e, p, "gemm_peak_fraction", true, &g, err)))
			return rc;
		pp_jpath(q, sizeof(q), p, "gemm_peak_fraction");
		for (int t = 0; t < PP_DT_COUNT; t++)
			if ((rc = read_fig(d, g, q, pp_dtype_names[t], true, true, 1,
					   &k->gemm_peak_fraction[t], t == PP_DT_BF16 ? &k->gemm_prov : NULL,
					   err)))
				return rc;
		double gmin = 0, ovh = 0;
		if ((rc = read_int(d, e, p, "tile_m", 1, 1024, &k->tile_m, err)) ||
		    (rc = read_int(d, e, p, "tile_n", 1, 1024, &k->tile_n, err)) ||
		    (rc = read_fig(d, e, p, "gemm_min_time_us", true, false, 1e-6, &gmin, NULL, err)) ||
		    (rc = read_fig(d, e, p, "mem_bw_fraction", true, false, 1, &k->mem_bw_fraction,
				   &k->mem_prov, err)) ||
		    (rc = read_fig(d, e, p, "attn_peak_fraction", true, false, 1, &k->attn_peak_fraction,
				   &k->attn_prov, err)) ||
		    (rc = read_fig(d, e, p, "kernel_overhead_us", true, false, 1e-6, &ovh, &k->ovh_prov,
				   err)))
			return rc;
		double resv = 0;
		if ((rc = read_fig(d, e, p, "half_tile_efficiency", true, false, 1, &k->half_tile_eff,
				   NULL, err)) ||
		    (rc = read_fig(d, e, p, "quarter_tile_efficiency", true, false, 1,
				   &k->quarter_tile_eff, NULL, err)) ||
		    (rc = read_fig(d, e, p, "activation_memory_margin", true, false, 1, &k->act_margin,
				   NULL, err)) ||
		    (rc = read_fig(d, e, p, "framework_reserved_gib", true, false, PP_GIB, &resv, NULL,
				   err)))
			return rc;
		if ((rc = read_fig(d, e, p, "elementwise_bw_fraction", true, false, 1,
				   &k->elementwise_bw_fraction, NULL, err)) ||
		    (rc = read_fig(d, e, p, "comm_overlap_efficiency", true, false, 1, &k->overlap_eff,
				   NULL, err)) ||
		    (rc = read_fig(d, e, p, "blocking_pipeline_stall", true, false, 1,
				   &k->blocking_pipeline_stall, NULL, err)))
			return rc;
		if ((rc = read_fig(d, e, p, "wave_quantization_weight", true, false, 1, &k->wave_weight,
				   NULL, err)) ||
		    (rc = read_fig(d, e, p, "gemm_k_overhead", true, false, 1, &k->gemm_k0, NULL, err)))
			return rc;
		if ((rc = read_fig(d, e, p, "gemm_stream_bw_fraction", false, false, 1,
				   &k->gemm_stream_bw_fraction, NULL, err)) ||
		    (rc = read_fig(d, e, p, "gemm_stream_latency_us", false, false, 1e-6,
				   &k->gemm_stream_latency_s, NULL, err)) ||
		    (rc = load_attn_kernels(d, e, p, k, err)))
			return rc;
		k->reserved_bytes = resv;
		k->gemm_min_time_s = gmin;
		k->kernel_overhead_s = ovh;
		c->nkernels++;
	}
	return 0;
}

/* plausibility.json: the best published MFU per SKU and precision */
static int load_plausibility(pp_catalog *c, pp_err *err)
{
	const pp_jdoc *d = &c->docs[DOC_PLAUSIBILITY];
	int rc;
	const cJSON *arr = doc_array(d, "best_mfu", err, &rc);
	if (rc)
		return rc;
	size_t cap = 0;
	for (const cJSON *e = arr->child; e; e = e->next) {
		const cJSON *g = cJSON_GetObjectItemCaseSensitive(e, "gpus");
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(e, "precision");
		cap += (size_t)(cJSON_GetArraySize(g) * cJSON_GetArraySize(p));
	}
	c->best = pp_xcalloc(cap ? cap : 1, sizeof(pp_best_mfu));
	int i = 0;
	for (const cJSON *e = arr->child; e; e = e->next, i++) {
		char p[128], q[160];
		pp_jpath_idx(p, sizeof(p), "best_mfu", i);
		double mfu = 0;
		pp_prov pv;
		if ((rc = read_fig(d, e, p, "mfu", true, false, 1, &mfu, &pv, err)))
			return rc;
		if (mfu <= 0 || mfu > 1)
			return pp_jdoc_errf(d, err, pp_jpath(q, sizeof(q), p, "mfu"), "found %g; expected "
					    "a fraction in (0, 1]", mfu);
		const cJSON *fig = cJSON_GetObjectItemCaseSensitive(e, "mfu");
		const cJSON *note = cJSON_GetObjectItemCaseSensitive(fig, "note");
		const cJSON *g = cJSON_GetObjectItemCaseSensitive(e, "gpus");
		const cJSON *pr = cJSON_GetObjectItemCaseSensitive(e, "precision");
		if (!cJSON_IsArray(g) || !cJSON_IsArray(pr))
			return pp_jdoc_errf(d, err, p, "expected \"gpus\" and \"precision\" arrays");
		for (const cJSON *gi = g->child; gi; gi = gi->next) {
			if (!cJSON_IsString(gi) || !pp_catalog_gpu(c, gi->valuestring))
				return pp_jdoc_errf(d, err, pp_jpath(q, sizeof(q), p, "gpus"), "found %s; "
						    "expected GPU ids of gpus.json",
						    cJSON_IsString(gi) ? gi->valuestring : "a non-string");
			for (const cJSON *pi = pr->child; pi; pi = pi->next) {
				int t = 0;
				while (t < PP_DT_COUNT && !(cJSON_IsString(pi) &&
							    !strcmp(pi->valuestring, pp_dtype_names[t])))
					t++;
				if (t == PP_DT_COUNT)
					return pp_jdoc_errf(d, err, pp_jpath(q, sizeof(q), p, "precision"),
							    "expected precisions fp32, tf32, bf16, fp16, fp8");
				pp_best_mfu *b = &c->best[c->nbest++];
				snprintf(b->gpu, sizeof(b->gpu), "%s", gi->valuestring);
				b->precision = (pp_dtype)t;
				b->mfu = mfu;
				b->prov = pv;
				snprintf(b->what, sizeof(b->what), "%s",
					 cJSON_IsString(note) ? note->valuestring : "");
			}
		}
	}
	return 0;
}

const pp_best_mfu *pp_catalog_best_mfu(const pp_catalog *c, const char *gpu, pp_dtype dt)
{
	for (size_t i = 0; i < c->nbest; i++)
		if (c->best[i].precision == dt && !strcmp(c->best[i].gpu, gpu))
			return &c->best[i];
	return NULL;
}

/* kernels.json archs[i].attention_kernels (optional): measured TFLOP/s of
 * fa2, fa3 and cudnn against sequence length, kept as shares of the peak
 * they were measured at */
static int load_attn_kernels(const pp_jdoc *d, const cJSON *e, const char *p, pp_kernel_params *k,
			     pp_err *err)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(e, "attention_kernels");
	char q[300], r[360], t[420];
	if (!a)
		return 0;
	pp_jpath(q, sizeof(q), p, "attention_kernels");
	const cJSON *seq = cJSON_GetObjectItemCaseSensitive(a, "seq");
	int n = cJSON_GetArraySize(seq);
	if (!cJSON_IsArray(seq) || n < 2 || n > 8)
		return pp_jdoc_errf(d, err, pp_jpath(r, sizeof(r), q, "seq"), "expected 2 to 8 sequence "
				    "lengths");
	double peak = 0;
	int rc = pp_jget_num(d, a, q, "measured_peak_tflops", true, 1, 1e6, &peak, NULL, err);
	if (rc)
		return rc;
	/* optional: the curves' head dimension and the exponentials' rate */
	double exp_t = 0;
	if ((rc = pp_jget_num(d, a, q, "head_dim", false, 1, 1024, &k->attn_head_dim, NULL, err)) ||
	    (rc = pp_jget_num(d, a, q, "exp_tflops", false, 0, 1e6, &exp_t, NULL, err)))
		return rc;
	k->attn_exp_flops = k->attn_head_dim > 0 ? exp_t * 1e12 : 0;
	k->attn_peak_flops = peak * 1e12;
	int i = 0;
	for (const cJSON *v = seq->child; v; v = v->next, i++) {
		if (!cJSON_IsNumber(v) || v->valuedouble <= 0 || (i && v->valuedouble <= k->attn_seq[i - 1]))
			return pp_jdoc_errf(d, err, pp_jpath(r, sizeof(r), q, "seq"), "expected increasing "
					    "positive lengths");
		k->attn_seq[i] = v->valuedouble;
	}
	k->attn_nseq = n;
	static const char *const kern[4] = {"fa2", "fa3", "cudnn", NULL};
	static const char *const pass[3] = {"fwd_causal", "fwd", "bwd"};
	for (int j = 0; kern[j]; j++) {
		const cJSON *o = cJSON_GetObjectItemCaseSensitive(a, kern[j]);
		if (!o)
			continue;
		pp_jpath(r, sizeof(r), q, kern[j]);
		for (int ps = 0; ps < 3; ps++) {
			const cJSON *fig = cJSON_GetObjectItemCaseSensitive(o, pass[ps]);
			const cJSON *val = fig ? cJSON_GetObjectItemCaseSensitive(fig, "value") : NULL;
			pp_jpath(t, sizeof(t), r, pass[ps]);
			if (!cJSON_IsArray(val) || cJSON_GetArraySize(val) != n)
				return pp_jdoc_errf(d, err, t, "expected a figure whose value has one TFLOP/s "
						    "per sequence length (%d)", n);
			char src[160] = "";
			if ((rc = pp_jget_str(d, fig, t, "source", true, src, sizeof(src), NULL, err)))
				return rc;
			int m = 0;
			for (const cJSON *v = val->child; v; v = v->next, m++) {
				if (!cJSON_IsNumber(v) || v->valuedouble <= 0 || v->valuedouble > peak)
					return pp_jdoc_errf(d, err, t, "expected TFLOP/s in (0, %g]", peak);
				k->attn_rate[j][ps][m] = v->valuedouble / peak;
			}
			if (j == 0 && ps == 0) {
				snprintf(k->attn_kernels_prov.source, sizeof(k->attn_kernels_prov.source), "%s",
					 src);
				pp_jget_str(d, fig, t, "date", false, k->attn_kernels_prov.date,
					    sizeof(k->attn_kernels_prov.date), NULL, err);
			}
		}
		k->attn_have[j] = true;
	}
	return 0;
}

int pp_catalog_mfu_check(const pp_catalog *c, const pp_gpu *gpu, pp_dtype dt, double mfu, char *buf,
			 size_t n)
{
	const pp_best_mfu *b = gpu ? pp_catalog_best_mfu(c, gpu->id, dt) : NULL;
	if (!b || !(mfu > b->mfu))
		return 0;
	snprintf(buf, n, "predicted MFU %.1f%% is above the best published for %s at %s, %.1f%% "
		 "(plausibility.json, %s: %s); no run has shown it, check the inputs before relying "
		 "on it", 100.0 * mfu, gpu->name, pp_dtype_names[dt], 100.0 * b->mfu, b->prov.source,
		 b->what);
	return 1;
}

static void index_ids(pp_catalog *c)
{
	c->nids[DOC_GPUS] = c->ngpus;
	c->ids[DOC_GPUS] = pp_xcalloc(c->ngpus, sizeof(char *));
	for (size_t i = 0; i < c->ngpus; i++)
		c->ids[DOC_GPUS][i] = c->gpus[i].id;
	c->nids[DOC_FABRICS] = c->nfabrics;
	c->ids[DOC_FABRICS] = pp_xcalloc(c->nfabrics, sizeof(char *));
	for (size_t i = 0; i < c->nfabrics; i++)
		c->ids[DOC_FABRICS][i] = c->fabrics[i].id;
	c->nids[DOC_STORAGE] = c->nstorage;
	c->ids[DOC_STORAGE] = pp_xcalloc(c->nstorage, sizeof(char *));
	for (size_t i = 0; i < c->nstorage; i++)
		c->ids[DOC_STORAGE][i] = c->storage[i].id;
	c->nids[DOC_MODELS] = c->nmodels;
	c->ids[DOC_MODELS] = pp_xcalloc(c->nmodels, sizeof(char *));
	for (size_t i = 0; i < c->nmodels; i++)
		c->ids[DOC_MODELS][i] = c->models[i].id;
}

static int check_refs(pp_catalog *c, pp_err *err)
{
	const pp_jdoc *d = &c->docs[DOC_GPUS];
	for (size_t i = 0; i < c->ngpus; i++) {
		const pp_gpu *g = &c->gpus[i];
		char p[128];
		if (!pp_catalog_fabric(c, g->intra_node))
			return pp_jdoc_errf(d, err, pp_jpath_idx(p, sizeof(p), "gpus", (int)i),
					    "node.intra_node \"%s\" is not in fabrics.json", g->intra_node);
		if (g->nvlink_gen && !pp_catalog_fabric(c, g->nvlink_fabric))
			return pp_jdoc_errf(d, err, pp_jpath_idx(p, sizeof(p), "gpus", (int)i),
					    "nvlink.fabric \"%s\" is not in fabrics.json", g->nvlink_fabric);
	}
	return 0;
}

int pp_catalog_load(pp_catalog **out, const char *dir, pp_err *err)
{
	pp_catalog *c = pp_xcalloc(1, sizeof(*c));
	int rc = 0;
	c->dir = pp_xstrdup(dir ? dir : pp_data_dir());
	for (int k = 0; k < DOC_COUNT; k++)
		if ((rc = load_doc(c, k, err)))
			goto out;
	if ((rc = load_gpus(c, err)) || (rc = load_fabrics(c, err)) || (rc = load_storage(c, err)) ||
	    (rc = load_models(c, err)) || (rc = load_finetune(c, err)) || (rc = load_moe(c, err)) ||
	    (rc = load_kernels(c, err)) ||
	    (rc = pp_frameworks_load(&c->frameworks, &c->docs[DOC_FRAMEWORKS], err)) ||
	    (rc = load_plausibility(c, err)))
		goto out;
	index_ids(c);
	rc = check_refs(c, err);
out:
	if (rc) {
		pp_catalog_free(c);
		c = NULL;
	}
	*out = c;
	return rc;
}

void pp_catalog_free(pp_catalog *c)
{
	if (!c)
		return;
	for (int k = 0; k < DOC_COUNT; k++) {
		pp_jdoc_release(&c->docs[k]);
		free(c->ids[k]);
	}
	free(c->gpus);
	free(c->fabrics);
	free(c->storage);
	free(c->models);
	free(c->kernels);
	pp_frameworks_free(c->frameworks);
	free(c->best);
	free(c->dir);
	free(c);
}

const char *pp_catalog_dir(const pp_catalog *c) { return c->dir; }
size_t pp_catalog_ngpus(const pp_catalog *c) { return c->ngpus; }
const pp_gpu *pp_catalog_gpu_at(const pp_catalog *c, size_t i) { return i < c->ngpus ? &c->gpus[i] : NULL; }
size_t pp_catalog_nfabrics(const pp_catalog *c) { return c->nfabrics; }
const pp_fabric *pp_catalog_fabric_at(const pp_catalog *c, size_t i) { return i < c->nfabrics ? &c->fabrics[i] : NULL; }
size_t pp_catalog_nstorage(const pp_catalog *c) { return c->nstorage; }
const pp_storage *pp_catalog_storage_at(const pp_catalog *c, size_t i) { return i < c->nstorage ? &c->storage[i] : NULL; }
size_t pp_catalog_nmodels(const pp_catalog *c) { return c->nmodels; }
bool pp_model_layer_moe(const pp_model *m, int i)
{
	if (m->num_experts <= 0)
		return false;
	if (m->moe_list_len > 0)
		return i < m->moe_list_len && m->moe_list[i];
	int f = m->moe_layer_freq > 0 ? m->moe_layer_freq : 1;
	return i % f == 0;
}

int pp_model_layer_kind(const pp_model *m, int i)
{
	int k = pp_model_layer_moe(m, i) ? PP_LK_MOE : 0;
	if (m->window > 0 && i % (m->window_freq > 0 ? m->window_freq : 1) == 0)
		k |= PP_LK_WINDOW;
	return k;
}

int pp_model_head_dim(const pp_model *m)
{
	return m->head_dim > 0 ? m->head_dim : m->hidden_size / m->num_attention_heads;
}

const pp_finetune_defaults *pp_catalog_finetune(const pp_catalog *c) { return &c->finetune; }
const pp_frameworks *pp_catalog_frameworks(const pp_catalog *c) { return c->frameworks; }
const pp_moe_defaults *pp_catalog_moe(const pp_catalog *c) { return &c->moe; }
const pp_model *pp_catalog_model_at(const pp_catalog *c, size_t i) { return i < c->nmodels ? &c->models[i] : NULL; }

const pp_gpu *pp_catalog_gpu(const pp_catalog *c, const char *id)
{
	for (size_t i = 0; i < c->ngpus; i++)
		if (!strcmp(c->gpus[i].id, id))
			return &c->gpus[i];
	return NULL;
}

const pp_fabric *pp_catalog_fabric(const pp_catalog *c, const char *id)
{
	for (size_t i = 0; i < c->nfabrics; i++)
		if (!strcmp(c->fabrics[i].id, id))
			return &c->fabrics[i];
	return NULL;
}

const pp_storage *pp_catalog_storage(const pp_catalog *c, const char *id)
{
	for (size_t i = 0; i < c->nstorage; i++)
		if (!strcmp(c->storage[i].id, id))
			return &c->storage[i];
	return NULL;
}

const pp_model *pp_catalog_model(const pp_catalog *c, const char *id)
{
	for (size_t i = 0; i < c->nmodels; i++)
		if (!strcmp(c->models[i].id, id))
			return &c->models[i];
	return NULL;
}

const pp_kernel_params *pp_catalog_kernels(const pp_catalog *c, const char *arch)
{
	const pp_kernel_params *def = NULL;
	for (size_t i = 0; i < c->nkernels; i++) {
		if (!strcmp(c->kernels[i].arch, arch))
			return &c->kernels[i];
		if (!strcmp(c->kernels[i].arch, "default"))
			def = &c->kernels[i];
	}
	return def ? def : (c->nkernels ? &c->kernels[0] : NULL);
}

const pp_jdoc *pp_catalog_doc(const pp_catalog *c, const char *kind)
{
	for (int k = 0; k < DOC_COUNT; k++)
		if (!strcmp(doc_kinds[k], kind))
			return &c->docs[k];
	return NULL;
}

const char *const *pp_catalog_ids(const pp_catalog *c, const char *kind, size_t *n)
{
	for (int k = 0; k < DOC_COUNT; k++) {
		if (!strcmp(doc_kinds[k], kind)) {
			*n = c->nids[k];
			return (const char *const *)c->ids[k];
		}
	}
	*n = 0;
	return NULL;
}

const char *pp_catalog_source_title(const pp_catalog *c, const char *kind, const char *key)
{
	const pp_jdoc *d = pp_catalog_doc(c, kind);
	if (!d || !d->root)
		return key;
	const cJSON *srcs = cJSON_GetObjectItemCaseSensitive(d->root, "sources");
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(srcs, key);
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(s, "title");
	if (!t) t = cJSON_GetObjectItemCaseSensitive(s, "what");
	return cJSON_IsString(t) ? t->valuestring : key;
}
