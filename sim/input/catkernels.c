/* catkernels.c - see catalog.h: kernels.json, the kernel-efficiency
 * defaults per GPU architecture (catint.h). */
#include "input/catint.h"
#include "core/util.h"

#include <stdio.h>
#include <string.h>

static int load_attn_kernels(const pp_jdoc *d, const cJSON *e, const char *p, pp_kernel_params *k,
			     pp_err *err);

int pp_cat_load_kernels(pp_catalog *c, pp_err *err)
{
	const pp_jdoc *d = &c->docs[DOC_KERNELS];
	int rc;
	const cJSON *arr = pp_cat_array(d, "archs", err, &rc);
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
			if ((rc = pp_cat_fig(d, g, q, pp_dtype_names[t], !pp_dtype_is_fp4(t), true, 1,
					   &k->gemm_peak_fraction[t], t == PP_DT_BF16 ? &k->gemm_prov : NULL,
					   err)))
				return rc;
		/* nvfp4 and mxfp4 not given: fp8's share (see load_dtype_figs) */
		for (int t = PP_DT_NVFP4; t <= PP_DT_MXFP4; t++)
			if (!cJSON_GetObjectItemCaseSensitive(g, pp_dtype_names[t]))
				k->gemm_peak_fraction[t] = k->gemm_peak_fraction[PP_DT_FP8];
		double gmin = 0, ovh = 0;
		if ((rc = pp_cat_int(d, e, p, "tile_m", 1, 1024, &k->tile_m, err)) ||
		    (rc = pp_cat_int(d, e, p, "tile_n", 1, 1024, &k->tile_n, err)) ||
		    (rc = pp_cat_fig(d, e, p, "gemm_min_time_us", true, false, 1e-6, &gmin, NULL, err)) ||
		    (rc = pp_cat_fig(d, e, p, "mem_bw_fraction", true, false, 1, &k->mem_bw_fraction,
				   &k->mem_prov, err)) ||
		    (rc = pp_cat_fig(d, e, p, "attn_peak_fraction", true, false, 1, &k->attn_peak_fraction,
				   &k->attn_prov, err)) ||
		    (rc = pp_cat_fig(d, e, p, "kernel_overhead_us", true, false, 1e-6, &ovh, &k->ovh_prov,
				   err)))
			return rc;
		double resv = 0;
		if ((rc = pp_cat_fig(d, e, p, "half_tile_efficiency", true, false, 1, &k->half_tile_eff,
				   NULL, err)) ||
		    (rc = pp_cat_fig(d, e, p, "quarter_tile_efficiency", true, false, 1,
				   &k->quarter_tile_eff, NULL, err)) ||
		    (rc = pp_cat_fig(d, e, p, "activation_memory_margin", true, false, 1, &k->act_margin,
				   NULL, err)) ||
		    (rc = pp_cat_fig(d, e, p, "framework_reserved_gib", true, false, PP_GIB, &resv, NULL,
				   err)))
			return rc;
		if ((rc = pp_cat_fig(d, e, p, "elementwise_bw_fraction", true, false, 1,
				   &k->elementwise_bw_fraction, NULL, err)) ||
		    (rc = pp_cat_fig(d, e, p, "comm_overlap_efficiency", true, false, 1, &k->overlap_eff,
				   NULL, err)) ||
		    (rc = pp_cat_fig(d, e, p, "blocking_pipeline_stall", true, false, 1,
				   &k->blocking_pipeline_stall, NULL, err)))
			return rc;
		if ((rc = pp_cat_fig(d, e, p, "wave_quantization_weight", true, false, 1, &k->wave_weight,
				   NULL, err)) ||
		    (rc = pp_cat_fig(d, e, p, "gemm_k_overhead", true, false, 1, &k->gemm_k0, NULL, err)))
			return rc;
		if ((rc = pp_cat_fig(d, e, p, "gemm_stream_bw_fraction", false, false, 1,
				   &k->gemm_stream_bw_fraction, NULL, err)) ||
		    (rc = pp_cat_fig(d, e, p, "gemm_stream_latency_us", false, false, 1e-6,
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
