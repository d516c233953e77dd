/* validate.c - see validate.h. */
#include "calib/validate.h"
#include "core/csv.h"
#include "core/jsonout.h"
#include "input/hw.h"
#include "engine/predict.h"
#include "input/scenario.h"
#include "engine/workload.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool has(const char *s, const char *needle)
{
	return s && strstr(s, needle) != NULL;
}

static bool hasi(const char *s, const char *needle)
{
	size_t n = strlen(needle);
	for (; s && *s; s++)
		if (!strncasecmp(s, needle, n))
			return true;
	return false;
}

/* The largest count a row may give (layers, GPUs, batch sizes, ...): the
 * scenario parser's own limits are lower; this keeps the products below
 * (micro-batch x DP) far inside a long. */
#define VAL_MAX 1000000000L

/* A whole number cell: strtol, clamped to 0..VAL_MAX + 1 (0 for what is
 * not a number or is negative; VAL_MAX + 1 for what is too large). */
static long cell_long(const char *s)
{
	long v = strtol(s, NULL, 10);
	return v < 0 ? 0 : v > VAL_MAX ? VAL_MAX + 1 : v;
}

/* The first integer after any of the keys in text, else def. */
static long after(const char *text, const char *const *keys, size_t nkeys, long def)
{
	for (size_t i = 0; i < nkeys; i++) {
		const char *p = strstr(text, keys[i]);
		if (!p)
			continue;
		p += strlen(keys[i]);
		while (*p && !isdigit((unsigned char)*p))
			p++;
		if (!*p)
			continue;
		/* thousands separators, e.g. "250,680"; a number past VAL_MAX
		 * stays VAL_MAX + 1 (out of range for every use) */
		const char *q = p;
		while (isdigit((unsigned char)*q) || (*q == ',' && isdigit((unsigned char)q[1])))
			q++;
		long v = 0;
		for (const char *r = p; r < q; r++)
			if (isdigit((unsigned char)*r) && v <= VAL_MAX)
				v = v * 10 + (*r - '0');
		return v > VAL_MAX ? VAL_MAX + 1 : v;
	}
	return def;
}

static void group_of(const char *source, const char *table, char *out, size_t n)
{
	if (has(source, "Korthikanti"))
		snprintf(out, n, "Korthikanti et al. 2022 %s", table);
	else if (has(source, "Narayanan"))
		snprintf(out, n, "Narayanan et al. SC'21 %s", table);
	else if (has(source, "bigscience"))
		snprintf(out, n, "BLOOM-176B production run");
	else
		snprintf(out, n, "%.60s", source);
	char *paren = strstr(out, " (");
	if (paren && (has(table, "Table 1") || has(table, "Table 2") || has(table, "DP scaling") ||
		      has(table, "per-layer")))
		*paren = '\0';
}

static const char *gpu_id(const char *sku)
{
	if (has(sku, "A100") && has(sku, "40"))
		return "a100-40gb";
	if (has(sku, "A100"))
		return "a100-80gb";
	if (has(sku, "H200"))
		return "h200";
	if (has(sku, "H100"))
		return "h100-sxm";
	return NULL;
}

static const char *inter_id(const char *txt, int *nics)
{
	static const char *const k[] = {"x "};
	*nics = (int)after(txt, k, 0, 8);
	long n = cell_long(txt);
	if (n > 0)
		*nics = (int)n; /* <= VAL_MAX + 1: an int */
	if (has(txt, "Omni-Path")) {
		*nics = (int)after(txt, (const char *const[]){"("}, 1, 4);
		return "opa-100g";
	}
	if (has(txt, "HDR"))
		return "ib-hdr";
	if (has(txt, "NDR") || has(txt, "400"))
		return "ib-ndr";
	if (has(txt, "n/a") || !txt[0])
		return "ib-hdr";
	return NULL;
}

typedef struct rowin {
	const char *source, *table, *model, *gbs, *sku, *inter, *zero, *recompute, *precision, *metric,
		*notes;
	long layers, hidden, heads, seq, gpus, gpn, tp, pp, dp;
	double measured;
} rowin;

static int vpp_for(const rowin *r)
{
	if (r->pp < 2)
		return 1;
	bool inter = hasi(r->notes, "interleaved");
	if (!inter)
		return 1;
	long per = r->layers / r->pp;
	if (r->layers % r->pp)
		return 1;
	if (per % 3 == 0)
		return 3;
	if (per % 2 == 0)
		return 2;
	return 1;
}

static int build(const pp_catalog *cat, const rowin *r, pp_scenario *s, char *why, size_t nwhy,
		 long mbs)
{
	const char *gpu = gpu_id(r->sku);
	int nics = 8;
	const char *inter = inter_id(r->inter, &nics);
	if (!gpu || !inter) {
		snprintf(why, nwhy, "GPU or fabric not in the catalog");
		return -1;
	}
	long gbs = cell_long(r->gbs);
	if (has(r->gbs, "micro-batch"))
		gbs = mbs * r->dp; /* both <= VAL_MAX + 1 */
	static const char *const vk[] = {"V=", "Vocab ", "vocab "};
	long vocab = after(r->notes, vk, PP_ARRAY_LEN(vk), 51200);
	bool sp = hasi(r->recompute, "sequence") && !hasi(r->recompute, "no sequence");
	const char *rc = hasi(r->recompute, "selective") ? "selective"
			 : (hasi(r->recompute, "full") || hasi(r->recompute, "recompute-inclusive") ||
			    hasi(r->recompute, "checkpointing"))
				 ? "full"
				 : "none";
	int zero = has(r->zero, "ZeRO-3") ? 3 : has(r->zero, "ZeRO-1") ? 1 : 0;
	const char *prec = hasi(r->precision, "bf16") ? "bf16" : "fp16";
	int vpp = vpp_for(r);
	/* built as a tree: a quote or backslash in a model name stays text */
	char name[64];
	snprintf(name, sizeof(name), "%.60s", r->model);
	cJSON *j = pp_json_obj(NULL, NULL);
	pp_json_str(j, "name", name);
	cJSON *m = pp_json_obj(j, "model");
	pp_json_int(m, "num_layers", r->layers);
	pp_json_int(m, "hidden_size", r->hidden);
	pp_json_int(m, "num_attention_heads", r->heads);
	pp_json_int(m, "seq_length", r->seq);
	pp_json_int(m, "vocab_size", vocab);
	cJSON *t = pp_json_obj(j, "training");
	/* the papers' stacks: Megatron-LM of 2021-22, DeepSpeed for the ZeRO-3 rows */
	pp_json_str(t, "framework", zero == 3 ? "deepspeed" : "megatron-lm-2022");
	pp_json_int(t, "global_batch_size", gbs);
	pp_json_int(t, "micro_batch_size", mbs);
	pp_json_str(t, "precision", prec);
	pp_json_str(t, "recompute", rc);
	pp_json_bool(t, "use_flash_attn", false);
	pp_json_bool(t, "overlap_grad_reduce", false);
	pp_json_bool(t, "overlap_param_gather", false);
	pp_json_bool(t, "overlap_p2p_comm", false);
	cJSON *p = pp_json_obj(j, "parallel");
	pp_json_int(p, "tensor_model_parallel_size", r->tp);
	pp_json_int(p, "pipeline_model_parallel_size", r->pp);
	pp_json_int(p, "data_parallel_size", r->dp);
	pp_json_int(p, "virtual_pipeline_model_parallel_size", vpp);
	pp_json_bool(p, "sequence_parallel", sp);
	pp_json_int(p, "zero_stage", zero);
	cJSON *c = pp_json_obj(j, "cluster");
	pp_json_str(c, "gpu", gpu);
	pp_json_int(c, "num_gpus", r->gpus);
	pp_json_int(c, "gpus_per_node", r->gpn);
	pp_json_str(c, "intra_node", "nvlink3");
	cJSON *in = pp_json_obj(c, "inter_node");
	pp_json_str(in, "fabric", inter);
	pp_json_int(in, "nics_per_node", nics);
	pp_sb json = {0};
	pp_json_print(j, false, &json);
	cJSON_Delete(j);
	pp_err e = {0};
	int perr = pp_scenario_parse(s, "row", json.buf, json.len, cat, &e);
	pp_sb_release(&json);
	if (perr) {
		snprintf(why, nwhy, "%s", e.msg);
		pp_scenario_release(s);
		return -1;
	}
	return 0;
}

static void add_row(pp_valset *v, const pp_valrow *r)
{
	v->rows = pp_xrealloc(v->rows, sizeof(pp_valrow) * (size_t)(v->n + 1));
	v->rows[v->n++] = *r;
}

static void skip(pp_valset *v, int line, const char *why)
{
	v->skipped++;
	size_t len = strlen(v->skipped_why);
	if (len + 80 < sizeof(v->skipped_why))
		snprintf(v->skipped_why + len, sizeof(v->skipped_why) - len, "%sline %d: %.60s",
			 len ? "; " : "", line, why);
}

int pp_validate_csv(const pp_catalog *cat, const pp_hw_resolver *hwr, const char *path,
		    pp_valset *v, pp_err *err)
{
	char *text = NULL;
	memset(v, 0, sizeof(*v));
	int rc = pp_read_file(path, PP_VALIDATE_MAX_BYTES, &text, NULL, err);
	if (rc)
		return rc;
	rc = pp_validate_text(cat, hwr, path, text, v, err);
	free(text);
	return rc;
}

int pp_validate_text(const pp_catalog *cat, const pp_hw_resolver *hwr, const char *path,
		     const char *text, pp_valset *v, pp_err *err)
{
	pp_csv c;
	int rc;
	memset(v, 0, sizeof(*v));
	memset(&c, 0, sizeof(c));
	/* the columns first: a file of another layout is refused before its
	 * rows are parsed */
	if ((rc = pp_csv_parse_header(&c, path, text, err)))
		goto out;
	const char *need[] = {"source", "table_or_section", "model", "layers", "hidden", "heads",
			      "seq_len", "global_batch_tokens_or_seqs", "gpu_sku", "num_gpus",
			      "gpus_per_node", "inter_node_fabric", "TP", "PP", "DP",
			      "zero_stage_or_fsdp", "recompute", "precision", "measured_metric",
			      "measured_value", "notes"};
	int col[PP_ARRAY_LEN(need)];
	for (size_t i = 0; i < PP_ARRAY_LEN(need); i++) {
		col[i] = pp_csv_col(&c, need[i]);
		if (col[i] < 0) {
			rc = pp_errf(err, PP_EINPUT, "%s:1: missing column \"%s\", expected the layout of "
				     "validation-public.csv", path, need[i]);
			goto out;
		}
	}
	pp_csv_release(&c);
	if ((rc = pp_csv_parse_max(&c, path, text, PP_VALIDATE_MAX_ROWS, err)))
		goto out;
	for (int i = 1; i < c.nrows; i++) {
#define F(k) pp_csv_get(&c, i, col[k])
		rowin r;
		memset(&r, 0, sizeof(r));
		r.source = F(0);
		r.table = F(1);
		r.model = F(2);
		r.gbs = F(7);
		r.sku = F(8);
		r.inter = F(11);
		r.zero = F(15);
		r.recompute = F(16);
		r.precision = F(17);
		r.metric = F(18);
		r.notes = F(20);
		r.layers = cell_long(F(3));
		r.hidden = cell_long(F(4));
		r.heads = cell_long(F(5));
		r.seq = cell_long(F(6));
		r.gpus = cell_long(F(9));
		r.gpn = cell_long(F(10));
		r.tp = cell_long(F(12));
		r.pp = cell_long(F(13));
		r.dp = cell_long(F(14));
		r.measured = strtod(F(19), NULL);
#undef F
		const char *m = r.metric;
		enum { M_ITER, M_TFLOPS, M_MFU, M_HFU, M_PCT_HFU, M_LAYER } kind;
		if (!strcmp(m, "iteration_time_s"))
			kind = M_ITER;
		else if (!strncmp(m, "TFLOPs_per_gpu", 14) && !has(m, "max"))
			kind = M_TFLOPS;
		else if (!strcmp(m, "MFU_pct"))
			kind = M_MFU;
		else if (!strcmp(m, "HFU_pct"))
			kind = M_HFU;
		else if (!strcmp(m, "pct_of_peak_HFU_like"))
			kind = M_PCT_HFU;
		else if (!strcmp(m, "layer_fwd_plus_bwd_ms"))
			kind = M_LAYER;
		else
			continue; /* not a step-time metric (bandwidths, specs) */
		if (r.layers <= 0 || r.hidden <= 0 || r.heads <= 0 || r.seq <= 0 || r.gpus <= 0 ||
		    r.tp <= 0 || r.pp <= 0 || r.dp <= 0 || !r.gbs[0] || !(r.measured > 0) ||
		    !isfinite(r.measured)) {
			skip(v, i + 1, "configuration incomplete");
			continue;
		}
		if (has(r.zero, "offload") || has(r.zero, "FSDP")) {
			skip(v, i + 1, "CPU offload / FSDP variant not modelled");
			continue;
		}
		static const char *const mk[] = {"microbatch ", "micro-batch ", "MBS="};
		long mbs = after(r.notes, mk, PP_ARRAY_LEN(mk), -1);
		/* rows of the same run (source, model, GPUs) share their notes */
		for (int k = 1; mbs < 0 && k < c.nrows; k++)
			if (k != i && !strcmp(pp_csv_get(&c, k, col[0]), r.source) &&
			    !strcmp(pp_csv_get(&c, k, col[2]), r.model) &&
			    !strcmp(pp_csv_get(&c, k, col[9]), pp_csv_get(&c, i, col[9])))
				mbs = after(pp_csv_get(&c, k, col[20]), mk, PP_ARRAY_LEN(mk), -1);
		if (mbs < 0)
			mbs = 1;
		if (has(r.gbs, "micro-batch"))
			mbs = after(r.gbs, mk, 2, mbs);
		pp_scenario s;
		char why[PP_ERR_MAX];
		if (build(cat, &r, &s, why, sizeof(why), mbs)) {
			skip(v, i + 1, why);
			continue;
		}
		pp_hw hw;
		pp_result res;
		pp_err e = {0};
		if (pp_hw_resolve_with(hwr, cat, &s, &s.cluster, &hw, &e) ||
		    pp_predict(&s, &hw, NULL, &res, &e)) {
			skip(v, i + 1, e.msg);
			pp_scenario_release(&s);
			continue;
		}
		pp_valrow out = {0};
		out.csv_row = i + 1;
		group_of(r.source, r.table, out.group, sizeof(out.group));
		snprintf(out.model, sizeof(out.model), "%.63s", r.model);
		snprintf(out.config, sizeof(out.config), "%ld GPUs TP%ld PP%ld%s DP%ld mb%ld %s%s%s",
			 r.gpus, r.tp, r.pp,
			 s.parallel.vpp > 1 ? (char[8]){'x', (char)('0' + s.parallel.vpp), 0} : "",
			 r.dp, mbs, pp_recompute_names[s.training.recompute],
			 s.parallel.sequence_parallel ? "+SP" : "",
			 s.parallel.zero_stage ? (s.parallel.zero_stage == 3 ? " ZeRO-3" : " ZeRO-1") : "");
		snprintf(out.metric, sizeof(out.metric), "%s", m);
		out.measured = r.measured;
		double N = (double)s.cluster.num_gpus, T = res.step_time_s;
		double gbs = (double)s.training.global_batch_size;
		double peak = hw.peak_flops[s.training.precision];
		switch (kind) {
		case M_ITER:
			out.predicted = T;
			out.primary = true;
			break;
		case M_TFLOPS:
			out.predicted = pp_flops_narayanan(&s.model, gbs, true) / (T * N) / PP_TERA;
			out.primary = true;
			break;
		case M_PCT_HFU:
			out.predicted = 100.0 * pp_flops_narayanan(&s.model, gbs, true) / (T * N * peak);
			break;
		case M_MFU:
			out.predicted = 100.0 * res.mfu;
			break;
		case M_HFU:
			out.predicted = 100.0 * res.hfu;
			break;
		case M_LAYER: {
			pp_workload w;
			pp_workload_build(&w, &s, &hw);
			const pp_part_cost *l = &w.lk[0].cost;
			out.predicted = 1e3 * (l->fwd.compute_s + l->fwd.comm_s + l->bwd.compute_s +
					       l->bwd.comm_s + l->recompute.compute_s +
					       l->recompute.comm_s);
			out.primary = true;
			pp_workload_release(&w);
			break;
		}
		}
		out.error = (out.predicted - out.measured) / out.measured;
		add_row(v, &out);
		pp_scenario_release(&s);
	}
out:
	pp_csv_release(&c);
	return rc;
}

void pp_valset_release(pp_valset *v)
{
	free(v->rows);
	memset(v, 0, sizeof(*v));
}

int pp_valset_summary(const pp_valset *v, const char *group, double *mean, double *max)
{
	int n = 0;
	double sum = 0, mx = 0;
	for (int i = 0; i < v->n; i++) {
		const pp_valrow *r = &v->rows[i];
		if (!r->primary || (group && strcmp(group, r->group)))
			continue;
		double a = fabs(r->error);
		sum += a;
		if (a > mx)
			mx = a;
		n++;
	}
	*mean = n ? sum / n : 0;
	*max = mx;
	return n;
}
