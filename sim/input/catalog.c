/* catalog.c - see catalog.h: the loader, the hardware, model and
 * plausibility documents; kernels.json in catkernels.c (catint.h). */
#include "input/catint.h"
#include "input/framework.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const doc_kinds[DOC_COUNT] = {"gpus", "fabrics", "storage", "models", "prices",
						 "kernels", "frameworks", "plausibility", "tco"};

static int load_doc(pp_catalog *c, int kind, pp_err *err)
{
	char name[64];
	snprintf(name, sizeof(name), "%s.json", doc_kinds[kind]);
	char *path = pp_path_join(c->dir, name);
	int rc = pp_jdoc_load(&c->docs[kind], path, err);
	free(path);
	return rc;
}

/* gpus.json gpus[i].KEY (optional): an object of figures by dtype, each a
 * fraction in (0, 1]. A dtype not given reads `absent`, but fp16 takes
 * bf16's figure unless given its own (both run on the same tensor cores).
 * prov: bf16's source, else the first given. */
static int load_dtype_figs(const pp_jdoc *d, const cJSON *e, const char *p, const char *key,
			   double absent, double out[PP_DT_COUNT], pp_prov *prov, pp_err *err)
{
	char q[256], r[600], fb[80];
	int rc;
	for (int t = 0; t < PP_DT_COUNT; t++)
		out[t] = absent;
	const cJSON *sg = cJSON_GetObjectItemCaseSensitive(e, key);
	if (!sg)
		return 0;
	pp_jpath(q, sizeof(q), p, key);
	if (!cJSON_IsObject(sg))
		return pp_jdoc_errf(d, err, q, "found %s; expected an object of figures by dtype "
				    "(\"bf16\", \"fp8\", ...)", pp_jdoc_describe(sg, fb, sizeof(fb)));
	if ((rc = pp_jcheck_keys(d, sg, q, pp_dtype_names, PP_DT_COUNT, err)))
		return rc;
	bool given[PP_DT_COUNT] = {false};
	for (int t = 0; t < PP_DT_COUNT; t++) {
		pp_prov pv = {0};
		if ((rc = pp_cat_fig(d, sg, q, pp_dtype_names[t], false, false, 1, &out[t], &pv, err)))
			return rc;
		given[t] = pv.source[0] != 0;
		if (given[t] && !(out[t] > 0 && out[t] <= 1))
			return pp_jdoc_errf(d, err, pp_jpath(r, sizeof(r), q, pp_dtype_names[t]),
					    "found %g; expected a fraction in (0, 1]", out[t]);
		if (given[t] && (t == PP_DT_BF16 || !prov->source[0]))
			*prov = pv;
	}
	if (given[PP_DT_BF16] && !given[PP_DT_FP16])
		out[PP_DT_FP16] = out[PP_DT_BF16];
	/* nvfp4 and mxfp4 take fp8's figure unless given their own: the same
	 * tensor cores, block-scaled (an estimate where no FP4 GEMM share is
	 * published; docs/serving.md "FP4") */
	for (int t = PP_DT_NVFP4; t <= PP_DT_MXFP4; t++)
		if (given[PP_DT_FP8] && !given[t])
			out[t] = out[PP_DT_FP8];
	return 0;
}

static int load_gpus(pp_catalog *c, pp_err *err)
{
	const pp_jdoc *d = &c->docs[DOC_GPUS];
	int rc;
	const cJSON *arr = pp_cat_array(d, "gpus", err, &rc);
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
			/* fp8 and the FP4 formats are optional: a SKU without
			 * their tensor cores has no figure */
			if ((rc = pp_cat_fig(d, pk, q, pp_dtype_names[t], t < PP_DT_FP8, true, PP_TERA,
					   &g->peak_flops[t], &pv, err)))
				return rc;
			if (t == PP_DT_BF16)
				g->peak_prov = pv;
		}
		double sm = 0, clk = 0;
		if ((rc = pp_cat_fig(d, e, p, "sm_count", true, false, 1, &sm, NULL, err)) ||
		    (rc = pp_cat_fig(d, e, p, "boost_clock_mhz", false, true, 1e6, &clk, NULL, err)) ||
		    (rc = pp_cat_fig(d, e, p, "memory_gib", true, false, PP_GIB, &g->mem_bytes, &g->mem_prov, err)) ||
		    (rc = pp_cat_fig(d, e, p, "memory_tbps", true, false, PP_TERA, &g->mem_Bps, NULL, err)) ||
		    (rc = pp_cat_fig(d, e, p, "tdp_w", true, false, 1, &g->tdp_w, NULL, err)))
			return rc;
		g->sm_count = (int)sm;
		g->clock_hz = clk;
		g->sustained = 1;
		if ((rc = pp_cat_fig(d, e, p, "sustained_clock_fraction", false, false, 1, &g->sustained,
				   &g->sustained_prov, err)))
			return rc;
		if (g->sustained <= 0 || g->sustained > 1)
			return pp_jdoc_errf(d, err, pp_jpath(q, sizeof(q), p, "sustained_clock_fraction"),
					    "found %g; expected a fraction in (0, 1]", g->sustained);
		if ((rc = load_dtype_figs(d, e, p, "sustained_gemm_fraction", 1, g->sustained_gemm,
					  &g->sustained_gemm_prov, err)) ||
		    (rc = load_dtype_figs(d, e, p, "gemm_peak_fraction", 0, g->gemm_frac,
					  &g->gemm_frac_prov, err)))
			return rc;
		const cJSON *nv = cJSON_GetObjectItemCaseSensitive(e, "nvlink");
		if (nv && !cJSON_IsNull(nv)) {
			pp_jpath(q, sizeof(q), p, "nvlink");
			int64_t gen = 0;
			if ((rc = pp_jget_int(d, nv, q, "generation", true, 1, 9, &gen, NULL, err)) ||
			    (rc = pp_jget_str(d, nv, q, "fabric", true, g->nvlink_fabric,
					      sizeof(g->nvlink_fabric), NULL, err)) ||
			    (rc = pp_cat_fig(d, nv, q, "unidir_gbytes_per_s", true, false, PP_GB,
					   &g->nvlink_Bps, NULL, err)))
				return rc;
			g->nvlink_gen = (int)gen;
		}
		const cJSON *pc;
		if ((rc = pp_jget_obj(d, e, p, "pcie", true, &pc, err)))
			return rc;
		pp_jpath(q, sizeof(q), p, "pcie");
		if ((rc = pp_cat_int(d, pc, q, "generation", 1, 9, &g->pcie_gen, err)) ||
		    (rc = pp_jget_str(d, pc, q, "fabric", true, g->pcie_fabric, sizeof(g->pcie_fabric),
				      NULL, err)))
			return rc;
		const cJSON *node;
		if ((rc = pp_jget_obj(d, e, p, "node", true, &node, err)))
			return rc;
		pp_jpath(q, sizeof(q), p, "node");
		int64_t dom = 0;
		bool has_dom = false;
		if ((rc = pp_cat_int(d, node, q, "gpus_per_node", 1, 1024, &g->gpus_per_node, err)) ||
		    (rc = pp_jget_int(d, node, q, "nvlink_domain_size", false, 1, 1024, &dom, &has_dom,
				      err)) ||
		    (rc = pp_jget_str(d, node, q, "intra_node", true, g->intra_node, sizeof(g->intra_node),
				      NULL, err)))
			return rc;
		g->nvlink_domain_size = has_dom ? (int)dom : g->gpus_per_node;
		if (g->nvlink_domain_size % g->gpus_per_node) {
			char r[200];
			return pp_jdoc_errf(d, err, pp_jpath(r, sizeof(r), q, "nvlink_domain_size"),
					    "found %d with gpus_per_node %d; expected a multiple of "
					    "gpus_per_node (a domain is whole nodes)",
					    g->nvlink_domain_size, g->gpus_per_node);
		}
		c->ngpus++;
	}
	return 0;
}

const char *const pp_fabric_kind_names[PP_FAB_KIND_COUNT] = {
	"nvlink", "pcie", "infiniband", "roce", "ethernet", "infinity-fabric"};

static int load_fabrics(pp_catalog *c, pp_err *err)
{
	static const char *const scopes[] = {"intra_node", "inter_node"};
	const pp_jdoc *d = &c->docs[DOC_FABRICS];
	int rc;
	const cJSON *arr = pp_cat_array(d, "fabrics", err, &rc);
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
		    (rc = pp_jget_enum(d, e, p, "kind", true, pp_fabric_kind_names, PP_FAB_KIND_COUNT, &kind, NULL,
				       err)) ||
		    (rc = pp_jget_enum(d, e, p, "scope", true, scopes, 2, &scope, NULL, err)) ||
		    (rc = pp_cat_fig(d, e, p, "port_unidir_gbytes_per_s", true, false, PP_GB, &f->port_Bps,
				   &f->bw_prov, err)) ||
		    (rc = pp_cat_fig(d, e, p, "achievable_fraction", true, false, 1, &f->efficiency,
				   &f->eff_prov, err)) ||
		    (rc = pp_cat_fig(d, e, p, "latency_us", true, false, 1, &lat_us, &f->lat_prov, err)))
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
			const cJSON *alg = cJSON_GetObjectItemCaseSensitive(cv, "algorithm");
			if (alg && !(cJSON_IsString(alg) && (!strcmp(alg->valuestring, "nvls") ||
							    !strcmp(alg->valuestring, "ring"))))
				return pp_jdoc_errf(d, err, q, "algorithm: expected \"nvls\" or \"ring\"");
			f->curve_nvls = alg && !strcmp(alg->valuestring, "nvls");
		}
		const cJSON *nv = cJSON_GetObjectItemCaseSensitive(e, "nvls");
		if (nv) {
			char q[256];
			double lat_nv = 0, on = 0;
			pp_jpath(q, sizeof(q), p, "nvls");
			if (!cJSON_IsObject(nv) || f->kind != PP_FAB_NVLINK)
				return pp_jdoc_errf(d, err, q, "expected an object, on an NVLink fabric only");
			if ((rc = pp_cat_fig(d, nv, q, "algbw_over_link", true, false, 1, &f->nvls_algbw_ratio,
					     &f->nvls_prov, err)) ||
			    (rc = pp_cat_fig(d, nv, q, "latency_us", true, false, 1, &lat_nv, NULL, err)) ||
			    (rc = pp_cat_fig(d, nv, q, "enabled_by_default", true, false, 1, &on, NULL, err)))
				return rc;
			if (f->nvls_algbw_ratio <= 0 || f->nvls_algbw_ratio > 1)
				return pp_jdoc_errf(d, err, q, "algbw_over_link: found %g, expected (0, 1]",
						    f->nvls_algbw_ratio);
			f->nvls_latency_s = lat_nv * 1e-6;
			if (on == 0)
				f->nvls_algbw_ratio = 0;
		}
		const cJSON *sw = cJSON_GetObjectItemCaseSensitive(e, "switch");
		if (sw && cJSON_IsObject(sw)) {
			char q[256];
			double ports = 0;
			pp_jpath(q, sizeof(q), p, "switch");
			if ((rc = pp_cat_fig(d, sw, q, "ports", true, false, 1, &ports, NULL, err)))
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
	const cJSON *arr = pp_cat_array(d, "storage", err, &rc);
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
		    (rc = pp_cat_fig(d, e, p, "read_gbytes_per_s_per_node", true, false, PP_GB,
				   &s->read_Bps_per_node, &s->prov, err)) ||
		    (rc = pp_cat_fig(d, e, p, "write_gbytes_per_s_per_node", true, false, PP_GB,
				   &s->write_Bps_per_node, NULL, err)) ||
		    (rc = pp_cat_fig(d, e, p, "aggregate_read_gbytes_per_s", false, true, PP_GB,
				   &s->agg_read_Bps, NULL, err)) ||
		    (rc = pp_cat_fig(d, e, p, "aggregate_write_gbytes_per_s", false, true, PP_GB,
				   &s->agg_write_Bps, NULL, err)))
			return rc;
		c->nstorage++;
	}
	return 0;
}


static int load_models(pp_catalog *c, pp_err *err)
{
	const pp_jdoc *d = &c->docs[DOC_MODELS];
	int rc;
	const cJSON *arr = pp_cat_array(d, "models", err, &rc);
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
		    (rc = pp_jget_str(d, e, p, "name", true, m->name, sizeof(m->name), NULL, err)) ||
		    (rc = pp_jget_str(d, e, p, "hf_repo", false, m->hf_repo, sizeof(m->hf_repo), NULL,
				      err)))
			return rc;
#define MI(field)                                                                           \
	if ((rc = pp_jget_int(d, e, p, #field, true, 1, PP_MODEL_DIM_MAX, &v, NULL, err))) \
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
	    (rc = pp_cat_fig(d, f, "finetune", "lora_rank", true, false, 1, &ft->lora_rank,
			   &ft->rank_prov, err)) ||
	    (rc = pp_cat_fig(d, f, "finetune", "nf4_bits_per_param", true, false, 1,
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
	    (rc = pp_cat_fig(d, f, "moe", "load_imbalance", true, false, 1, &mo->load_imbalance,
			   &mo->imbalance_prov, err)) ||
	    (rc = pp_cat_fig(d, f, "moe", "ep_comm_sms", true, false, 1, &mo->ep_comm_sms,
			   &mo->comm_sms_prov, err)))
		return rc;
	if (mo->load_imbalance < 1 || mo->load_imbalance > 100)
		return pp_jdoc_errf(d, err, "moe.load_imbalance", "found %g; expected a ratio of the "
				    "busiest EP rank's tokens to the mean, 1 to 100", mo->load_imbalance);
	if (mo->ep_comm_sms < 0 || mo->ep_comm_sms > 1024 || mo->ep_comm_sms != (int)mo->ep_comm_sms)
		return pp_jdoc_errf(d, err, "moe.ep_comm_sms", "found %g; expected a whole number of "
				    "SMs, 0 to 1024", mo->ep_comm_sms);
	return 0;
}

/* plausibility.json: the best published MFU per SKU and precision */
static int load_plausibility(pp_catalog *c, pp_err *err)
{
	const pp_jdoc *d = &c->docs[DOC_PLAUSIBILITY];
	int rc;
	const cJSON *arr = pp_cat_array(d, "best_mfu", err, &rc);
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
		if ((rc = pp_cat_fig(d, e, p, "mfu", true, false, 1, &mfu, &pv, err)))
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
				while (t < PP_DT_TRAIN_COUNT && !(cJSON_IsString(pi) &&
								  !strcmp(pi->valuestring, pp_dtype_names[t])))
					t++;
				if (t == PP_DT_TRAIN_COUNT)
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
	    (rc = pp_cat_load_kernels(c, err)) ||
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

bool pp_gpu_fabric_ok(const pp_gpu *g, const pp_fabric *f)
{
	if (f->kind == PP_FAB_NVLINK)
		return g->nvlink_gen > 0;
	if (f->kind == PP_FAB_XGMI)
		return !strcmp(g->intra_node, f->id);
	return true;
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

const pp_model *pp_catalog_model_hf(const pp_catalog *c, const char *repo)
{
	for (size_t i = 0; i < c->nmodels; i++)
		if (c->models[i].hf_repo[0] && !strcasecmp(c->models[i].hf_repo, repo))
			return &c->models[i];
	return NULL;
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
