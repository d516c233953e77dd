/* framework.c - see framework.h: models/frameworks.json loaded and looked
 * up (frameworkint.h); fwstack.c resolves a scenario's stack from it. */
#include "input/frameworkint.h"
#include "core/jsonget.h"
#include "core/util.h"
#include "input/layout.h"

#include <stdlib.h>
#include <string.h>

const char *const pp_attn_kernel_names[PP_ATTN_COUNT] = {"catalog", "fa2", "fa3", "cudnn",
							 "unfused"};
const char *const pp_sac_names[PP_SAC_COUNT] = {"attention-core", "torchtitan-op", "core-attn"};
const char *const pp_cpc_names[PP_CPC_COUNT] = {"p2p-ring", "allgather"};
const char *const pp_beh_keys[PP_BEH_COUNT] = {
	"attention_kernel", "cross_entropy", "elementwise", "fused_projections",
	"selective_recompute", "grad_reduce_in_fp32", "reshard_after_forward", "tp_comm_overlap",
	"optimizer_impl", "cuda_graphs", "host_issue_us", "master_weights_fp32",
	"context_parallel_comm", "fp8_recipe", "autocast", "tensor_clock"};
const char *const pp_fw_clock_names[2] = {"burst", "sustained"};

static const char *source_title(const pp_jdoc *d, const char *key)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(d->root, "sources");
	const cJSON *e = s ? cJSON_GetObjectItemCaseSensitive(s, key) : NULL;
	const cJSON *t = e ? cJSON_GetObjectItemCaseSensitive(e, "title") : NULL;
	return cJSON_IsString(t) ? t->valuestring : NULL;
}

/* The source key of an entry, which must be in the file's sources map. */
static int entry_source(const pp_jdoc *d, const cJSON *o, const char *path, char *src, size_t n,
			pp_err *err)
{
	int rc = pp_jget_str(d, o, path, "source", true, src, n, NULL, err);
	if (rc)
		return rc;
	char p[300];
	if (!source_title(d, src))
		return pp_jdoc_errf(d, err, pp_jpath(p, sizeof(p), path, "source"), "found \"%s\", "
				    "which is not a key of the file's sources map; expected a source", src);
	return 0;
}

static int read_num(const pp_jdoc *d, const cJSON *o, const char *path, const char *key,
		    double *out, pp_err *err)
{
	return pp_jget_num(d, o, path, key, true, 0, 1e6, out, NULL, err);
}

static int read_n(const pp_jdoc *d, const cJSON *o, const char *path, const char *key, int *out,
		  pp_err *err)
{
	int64_t v = 0;
	int rc = pp_jget_int(d, o, path, key, true, 0, 1000, &v, NULL, err);
	*out = (int)v;
	return rc;
}

static const cJSON *table(const pp_jdoc *d, const char *key, pp_err *err, int *rc)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(d->root, key);
	*rc = 0;
	if (!cJSON_IsArray(a) || !a->child)
		*rc = pp_jdoc_errf(d, err, key, "missing or empty, expected an array of implementations");
	return a;
}

static int load_tables(pp_frameworks *f, pp_err *err)
{
	const pp_jdoc *d = f->d;
	int rc, i;
	char p[128], src[64];
	const cJSON *a = table(d, "cross_entropy", err, &rc);
	if (rc)
		return rc;
	f->ce = pp_xcalloc((size_t)cJSON_GetArraySize(a), sizeof(pp_ce_impl));
	i = 0;
	for (const cJSON *e = a->child; e; e = e->next, i++) {
		pp_ce_impl *c = &f->ce[i];
		pp_jpath_idx(p, sizeof(p), "cross_entropy", i);
		if ((rc = pp_jget_str(d, e, p, "id", true, c->id, sizeof(c->id), NULL, err)) ||
		    (rc = entry_source(d, e, p, src, sizeof(src), err)) ||
		    (rc = read_num(d, e, p, "fwd_bytes", &c->fwd_bytes, err)) ||
		    (rc = read_num(d, e, p, "bwd_bytes", &c->bwd_bytes, err)) ||
		    (rc = read_n(d, e, p, "fwd_kernels", &c->fwd_kernels, err)) ||
		    (rc = read_n(d, e, p, "bwd_kernels", &c->bwd_kernels, err)) ||
		    (rc = read_num(d, e, p, "kept_bytes", &c->kept_bytes, err)) ||
		    (rc = read_num(d, e, p, "peak_bytes", &c->peak_bytes, err)) ||
		    (rc = pp_jget_num(d, e, p, "fwd_peak_bytes", false, 0, 1e6, &c->fwd_peak_bytes,
				      NULL, err)) ||
		    (rc = pp_jget_num(d, e, p, "held_bytes", false, 0, 1e6, &c->held_bytes, NULL, err)) ||
		    (rc = pp_jget_num(d, e, p, "peak_fp32_blocks", false, 0, 64, &c->peak_fp32_blocks,
				      NULL, err)))
			return rc;
		f->nce++;
	}
	a = table(d, "elementwise", err, &rc);
	if (rc)
		return rc;
	f->el = pp_xcalloc((size_t)cJSON_GetArraySize(a), sizeof(pp_eltw_impl));
	i = 0;
	for (const cJSON *e = a->child; e; e = e->next, i++) {
		pp_eltw_impl *x = &f->el[i];
		pp_jpath_idx(p, sizeof(p), "elementwise", i);
		struct {
			const char *k;
			double *v;
		} nums[] = {{"norm_fwd", &x->norm_fwd}, {"norm_bwd", &x->norm_bwd},
			    {"rope_fwd", &x->rope_fwd}, {"rope_bwd", &x->rope_bwd},
			    {"act_fwd", &x->act_fwd},   {"act_bwd", &x->act_bwd},
			    {"gelu_fwd", &x->gelu_fwd}, {"gelu_bwd", &x->gelu_bwd},
			    {"resid_fwd", &x->resid_fwd}, {"resid_bwd", &x->resid_bwd},
			    {"repeat_kv", &x->repeat_kv}};
		struct {
			const char *k;
			int *v;
		} ints[] = {{"norm_kernels", &x->norm_kernels}, {"rope_kernels", &x->rope_kernels},
			    {"act_kernels", &x->act_kernels}, {"resid_kernels", &x->resid_kernels}};
		if ((rc = pp_jget_str(d, e, p, "id", true, x->id, sizeof(x->id), NULL, err)) ||
		    (rc = entry_source(d, e, p, src, sizeof(src), err)))
			return rc;
		for (size_t k = 0; k < PP_ARRAY_LEN(nums); k++)
			if ((rc = read_num(d, e, p, nums[k].k, nums[k].v, err)))
				return rc;
		for (size_t k = 0; k < PP_ARRAY_LEN(ints); k++)
			if ((rc = read_n(d, e, p, ints[k].k, ints[k].v, err)))
				return rc;
		/* optional (absent in the fused stacks' entries): left as preset */
		x->grad_sum = 3;
		double *opt[] = {&x->grad_sum,        &x->cast_in_fwd, &x->cast_in_bwd,
				 &x->weight_cast_fwd, &x->weight_cast_bwd, &x->kept_norm,
				 &x->kept_cast,       &x->kept_act};
		const char *const optk[] = {"grad_sum",        "cast_in_fwd",     "cast_in_bwd",
					    "weight_cast_fwd", "weight_cast_bwd", "kept_norm",
					    "kept_cast",       "kept_act"};
		if ((rc = pp_jget_num(d, e, p, "bw_over_copy", false, 1e-3, 2, &x->bw_over_copy, NULL,
				      err)))
			return rc;
		for (size_t k = 0; k < PP_ARRAY_LEN(opt); k++)
			if ((rc = pp_jget_num(d, e, p, optk[k], false, 0, 1e6, opt[k], NULL, err)))
				return rc;
		if ((rc = pp_jget_str(d, e, p, "autocast", false, x->autocast, sizeof(x->autocast), NULL,
				      err)))
			return rc;
		f->nel++;
	}
	for (size_t k = 0; k < f->nel; k++) {
		if (f->el[k].autocast[0] && !pp_fw_find_el(f, f->el[k].autocast)) {
			pp_jpath_idx(p, sizeof(p), "elementwise", (int)k);
			char q[160];
			return pp_jdoc_errf(d, err, pp_jpath(q, sizeof(q), p, "autocast"), "found \"%s\", "
					    "which is no elementwise id; expected one", f->el[k].autocast);
		}
	}
	a = table(d, "optimizers", err, &rc);
	if (rc)
		return rc;
	f->op = pp_xcalloc((size_t)cJSON_GetArraySize(a), sizeof(pp_optim_impl));
	i = 0;
	for (const cJSON *e = a->child; e; e = e->next, i++) {
		pp_optim_impl *o = &f->op[i];
		pp_jpath_idx(p, sizeof(p), "optimizers", i);
		if ((rc = pp_jget_str(d, e, p, "id", true, o->id, sizeof(o->id), NULL, err)) ||
		    (rc = entry_source(d, e, p, src, sizeof(src), err)) ||
		    (rc = read_num(d, e, p, "bytes_per_param", &o->bytes_per_param, err)) ||
		    (rc = read_num(d, e, p, "copy_bytes", &o->copy_bytes, err)) ||
		    (rc = read_num(d, e, p, "clip_bytes", &o->clip_bytes, err)))
			return rc;
		f->nop++;
	}
	a = table(d, "fp8", err, &rc);
	if (rc)
		return rc;
	f->f8 = pp_xcalloc((size_t)cJSON_GetArraySize(a), sizeof(pp_fp8_impl));
	i = 0;
	for (const cJSON *e = a->child; e; e = e->next, i++) {
		pp_fp8_impl *o = &f->f8[i];
		pp_jpath_idx(p, sizeof(p), "fp8", i);
		if ((rc = pp_jget_str(d, e, p, "id", true, o->id, sizeof(o->id), NULL, err)) ||
		    (rc = entry_source(d, e, p, src, sizeof(src), err)) ||
		    (rc = read_num(d, e, p, "input_fwd", &o->input_fwd, err)) ||
		    (rc = read_num(d, e, p, "input_bwd", &o->input_bwd, err)) ||
		    (rc = read_num(d, e, p, "grad_bwd", &o->grad_bwd, err)) ||
		    (rc = read_num(d, e, p, "weight_fwd", &o->weight_fwd, err)) ||
		    (rc = read_num(d, e, p, "weight_bwd", &o->weight_bwd, err)))
			return rc;
		f->nf8++;
	}
	a = table(d, "context_parallel", err, &rc);
	if (rc)
		return rc;
	i = 0;
	bool seen[PP_CPC_COUNT] = {false};
	for (const cJSON *e = a->child; e; e = e->next, i++) {
		char id[32];
		pp_jpath_idx(p, sizeof(p), "context_parallel", i);
		if ((rc = pp_jget_str(d, e, p, "id", true, id, sizeof(id), NULL, err)) ||
		    (rc = entry_source(d, e, p, src, sizeof(src), err)))
			return rc;
		int k = pp_fw_name_index(pp_cpc_names, PP_CPC_COUNT, id);
		if (k < 0)
			return pp_jdoc_errf(d, err, p, "id \"%s\": expected \"p2p-ring\" or \"allgather\"",
					    id);
		if ((rc = pp_jget_bool(d, e, p, "overlapped", true, &f->cpi[k].overlapped, NULL, err)) ||
		    (rc = read_num(d, e, p, "merge_fwd", &f->cpi[k].fwd, err)) ||
		    (rc = read_num(d, e, p, "merge_bwd_q", &f->cpi[k].bwd_q, err)) ||
		    (rc = read_num(d, e, p, "merge_bwd_kv", &f->cpi[k].bwd_kv, err)))
			return rc;
		seen[k] = true;
	}
	for (int k = 0; k < PP_CPC_COUNT; k++)
		if (!seen[k])
			return pp_jdoc_errf(d, err, "context_parallel", "no \"%s\" entry; expected one "
					    "per implementation", pp_cpc_names[k]);
	a = table(d, "tp_overlap", err, &rc);
	if (rc)
		return rc;
	static const char *const tpo_ids[PP_TPO_COUNT] = {"", "te-userbuffers", "async-tp"};
	i = 0;
	for (const cJSON *e = a->child; e; e = e->next, i++) {
		tpo_impl t = {0};
		pp_jpath_idx(p, sizeof(p), "tp_overlap", i);
		if ((rc = pp_jget_str(d, e, p, "id", true, t.id, sizeof(t.id), NULL, err)) ||
		    (rc = entry_source(d, e, p, src, sizeof(src), err)) ||
		    (rc = read_n(d, e, p, "ag_splits", &t.ag_splits, err)) ||
		    (rc = read_n(d, e, p, "rs_splits", &t.rs_splits, err)) ||
		    (rc = read_num(d, e, p, "rs_num_sm", &t.rs_sms, err)) ||
		    (rc = read_num(d, e, p, "bulk_num_sm", &t.bulk_sms, err)))
			return rc;
		int k = 1;
		while (k < PP_TPO_COUNT && strcmp(tpo_ids[k], t.id))
			k++;
		if (k == PP_TPO_COUNT)
			return pp_jdoc_errf(d, err, p, "id \"%s\": expected \"te-userbuffers\" or "
					    "\"async-tp\"", t.id);
		f->tpo[k] = t;
	}
	return 0;
}

const pp_ce_impl *pp_fw_find_ce(const pp_frameworks *f, const char *id)
{
	for (size_t i = 0; i < f->nce; i++)
		if (!strcmp(f->ce[i].id, id))
			return &f->ce[i];
	return NULL;
}

const pp_eltw_impl *pp_fw_find_el(const pp_frameworks *f, const char *id)
{
	for (size_t i = 0; i < f->nel; i++)
		if (!strcmp(f->el[i].id, id))
			return &f->el[i];
	return NULL;
}

const pp_optim_impl *pp_fw_find_op(const pp_frameworks *f, const char *id)
{
	for (size_t i = 0; i < f->nop; i++)
		if (!strcmp(f->op[i].id, id))
			return &f->op[i];
	return NULL;
}

const pp_fp8_impl *pp_fw_find_f8(const pp_frameworks *f, const char *id)
{
	for (size_t i = 0; i < f->nf8; i++)
		if (!strcmp(f->f8[i].id, id))
			return &f->f8[i];
	return NULL;
}

int pp_fw_name_index(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

/* The expected type of each behaviour's value. */
enum { T_BOOL, T_NUM, T_STR, T_ATTN, T_GRED };
static const int beh_type[PP_BEH_COUNT] = {T_ATTN, T_STR,  T_STR,  T_BOOL, T_STR,
					    T_GRED, T_BOOL, T_BOOL, T_STR,  T_BOOL,
					    T_NUM,  T_BOOL, T_STR,  T_STR,  T_BOOL,
					    T_STR};

/* What a JSON value is, for "found ..." in a message. */
static const char *found(const cJSON *v, char *buf, size_t n)
{
	if (cJSON_IsString(v))
		snprintf(buf, n, "\"%.60s\"", v->valuestring);
	else if (cJSON_IsNumber(v))
		snprintf(buf, n, "%g", v->valuedouble);
	else if (cJSON_IsBool(v))
		snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
	else
		snprintf(buf, n, "%s", cJSON_IsNull(v) ? "null" : cJSON_IsArray(v) ? "an array" : "an object");
	return buf;
}

/* Check a value v (at path, in document d) against behaviour b's type and
 * ids: a framework default or a scenario key. A default of attention_kernel
 * may be an object {arch: id, ..., "default": id}. */
int pp_fw_check_value(const pp_frameworks *f, const pp_jdoc *d, int b, const cJSON *v,
		       const char *path, bool is_default, pp_err *err)
{
	char fb[80];
	switch (beh_type[b]) {
	case T_BOOL:
		if (!cJSON_IsBool(v))
			return pp_jdoc_errf(d, err, path, "found %s; expected true or false",
					    found(v, fb, sizeof(fb)));
		return 0;
	case T_NUM:
		if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1e4)
			return pp_jdoc_errf(d, err, path, "found %s; expected a number of microseconds, "
					    "0 to 10000", found(v, fb, sizeof(fb)));
		return 0;
	case T_GRED:
		if (cJSON_IsBool(v) || (is_default && cJSON_IsString(v) &&
					!strcmp(v->valuestring, "megatron")))
			return 0;
		return pp_jdoc_errf(d, err, path, "found %s; expected true or false%s",
				    found(v, fb, sizeof(fb)), is_default ? " or \"megatron\"" : "");
	case T_ATTN:
		if (is_default && cJSON_IsObject(v)) {
			if (!cJSON_GetObjectItemCaseSensitive(v, "default"))
				return pp_jdoc_errf(d, err, path, "expected a \"default\" kernel beside the "
						    "architectures'");
			for (const cJSON *e = v->child; e; e = e->next) {
				char p[300];
				int rc = pp_fw_check_value(f, d, b, e, pp_jpath(p, sizeof(p), path, e->string),
						     false, err);
				if (rc)
					return rc;
			}
			return 0;
		}
		break;
	default:
		break;
	}
	if (!cJSON_IsString(v))
		return pp_jdoc_errf(d, err, path, "found %s; expected a string", found(v, fb, sizeof(fb)));
	const char *s = v->valuestring;
	bool ok;
	pp_sb list = {0};
	if (b == PP_BEH_ATTN) {
		ok = pp_fw_name_index(pp_attn_kernel_names, PP_ATTN_COUNT, s) >= 0;
		for (int i = 0; i < PP_ATTN_COUNT; i++)
			pp_sb_addf(&list, "%s\"%s\"", i ? ", " : "", pp_attn_kernel_names[i]);
	} else if (b == PP_BEH_CE) {
		ok = pp_fw_find_ce(f, s) != NULL;
		for (size_t i = 0; i < f->nce; i++)
			pp_sb_addf(&list, "%s\"%s\"", i ? ", " : "", f->ce[i].id);
	} else if (b == PP_BEH_ELTW) {
		ok = pp_fw_find_el(f, s) != NULL;
		for (size_t i = 0; i < f->nel; i++)
			pp_sb_addf(&list, "%s\"%s\"", i ? ", " : "", f->el[i].id);
	} else if (b == PP_BEH_OPTIM) {
		ok = pp_fw_find_op(f, s) != NULL;
		for (size_t i = 0; i < f->nop; i++)
			pp_sb_addf(&list, "%s\"%s\"", i ? ", " : "", f->op[i].id);
	} else if (b == PP_BEH_FP8) {
		ok = pp_fw_find_f8(f, s) != NULL;
		for (size_t i = 0; i < f->nf8; i++)
			pp_sb_addf(&list, "%s\"%s\"", i ? ", " : "", f->f8[i].id);
	} else if (b == PP_BEH_SAC) {
		ok = pp_fw_name_index(pp_sac_names, PP_SAC_COUNT, s) >= 0;
		pp_sb_addf(&list, "\"%s\", \"%s\", \"%s\"", pp_sac_names[0], pp_sac_names[1],
			   pp_sac_names[2]);
	} else if (b == PP_BEH_TENSOR_CLOCK) {
		ok = pp_fw_name_index(pp_fw_clock_names, 2, s) >= 0;
		pp_sb_addf(&list, "\"%s\", \"%s\"", pp_fw_clock_names[0], pp_fw_clock_names[1]);
	} else {
		ok = pp_fw_name_index(pp_cpc_names, PP_CPC_COUNT, s) >= 0;
		pp_sb_addf(&list, "\"%s\", \"%s\"", pp_cpc_names[0], pp_cpc_names[1]);
	}
	int rc = ok ? 0 : pp_jdoc_errf(d, err, path, "found \"%s\"; expected one of %s", s, list.buf);
	pp_sb_release(&list);
	return rc;
}

/* A framework's optional pipeline_schedules {"value": [names], "source",
 * "path"}: the schedules it ships, by parallel.pipeline_schedule's names. */
static int load_schedules(const pp_jdoc *d, const cJSON *e, const char *p, fw *x, pp_err *err)
{
	const cJSON *ps = NULL;
	char q[200], src[64], path[400] = "", buf[96];
	int rc;
	if ((rc = pp_jget_obj(d, e, p, "pipeline_schedules", false, &ps, err)) || !ps)
		return rc;
	pp_jpath(q, sizeof(q), p, "pipeline_schedules");
	if ((rc = entry_source(d, ps, q, src, sizeof(src), err)) ||
	    (rc = pp_jget_str(d, ps, q, "path", true, path, sizeof(path), NULL, err)))
		return rc;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(ps, "value");
	char vq[220];
	pp_jpath(vq, sizeof(vq), q, "value");
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1)
		return pp_jdoc_errf(d, err, vq, "found %s, expected an array of schedule names",
				    pp_jdoc_describe(v, buf, sizeof(buf)));
	int i = 0;
	const cJSON *s;
	cJSON_ArrayForEach(s, v)
	{
		char sq[240];
		pp_jpath_idx(sq, sizeof(sq), vq, i++);
		int k = cJSON_IsString(s) ? pp_schedule_lookup(s->valuestring) : -1;
		if (k < 0)
			return pp_jdoc_errf(d, err, sq, "found %s, expected a schedule name: one of "
					    "1f1b, gpipe, interleaved, zb-h1, zb-h2, zbv, dualpipev or dualpipe",
					    pp_jdoc_describe(s, buf, sizeof(buf)));
		x->schedules |= 1u << k;
	}
	snprintf(x->schedules_origin, sizeof(x->schedules_origin), "framework %s, %s: %s", x->id,
		 src, path);
	return 0;
}

static int load_frameworks(pp_frameworks *f, pp_err *err)
{
	const pp_jdoc *d = f->d;
	int rc;
	const cJSON *a = table(d, "frameworks", err, &rc);
	if (rc)
		return rc;
	size_t n = (size_t)cJSON_GetArraySize(a);
	f->fws = pp_xcalloc(n, sizeof(fw));
	f->ids = pp_xcalloc(n, sizeof(char *));
	int i = 0;
	for (const cJSON *e = a->child; e; e = e->next, i++) {
		fw *x = &f->fws[i];
		char p[128], q[200], tpo[32] = "";
		pp_jpath_idx(p, sizeof(p), "frameworks", i);
		const cJSON *def;
		if ((rc = pp_jget_str(d, e, p, "id", true, x->id, sizeof(x->id), NULL, err)) ||
		    (rc = pp_jget_str(d, e, p, "name", true, x->name, sizeof(x->name), NULL, err)) ||
		    (rc = pp_jget_str(d, e, p, "version", true, x->version, sizeof(x->version), NULL,
				      err)) ||
		    (rc = pp_jget_str(d, e, p, "tp_overlap_impl", true, tpo, sizeof(tpo), NULL, err)) ||
		    (rc = pp_jget_bool(d, e, p, "torch_compile", true, &x->torch_compile, NULL, err)) ||
		    (rc = pp_jget_obj(d, e, p, "defaults", true, &def, err)))
			return rc;
		const cJSON *fc = NULL;
		if ((rc = pp_jget_obj(d, e, p, "fsdp2_copies", false, &fc, err)))
			return rc;
		if (fc) {
			char src[64];
			pp_jpath(q, sizeof(q), p, "fsdp2_copies");
			if ((rc = entry_source(d, fc, q, src, sizeof(src), err)))
				return rc;
			x->fsdp2_copies = true;
		}
		const cJSON *dc = NULL;
		if ((rc = pp_jget_obj(d, e, p, "ddp_bucket_copies", false, &dc, err)))
			return rc;
		if (dc) {
			char src[64];
			pp_jpath(q, sizeof(q), p, "ddp_bucket_copies");
			if ((rc = entry_source(d, dc, q, src, sizeof(src), err)))
				return rc;
			x->ddp_bucket_copies = true;
		}
		const cJSON *em = NULL;
		if ((rc = pp_jget_obj(d, e, p, "eager_memory", false, &em, err)))
			return rc;
		if (em) {
			char src[64];
			pp_jpath(q, sizeof(q), p, "eager_memory");
			if ((rc = entry_source(d, em, q, src, sizeof(src), err)) ||
			    (rc = pp_jget_num(d, em, q, "optimizer_temp_states", true, 0, 16,
					      &x->optim_temp_states, NULL, err)))
				return rc;
			x->eager_memory = true;
		}
		if ((rc = load_schedules(d, e, p, x, err)))
			return rc;
		x->tpo = !strcmp(tpo, "te-userbuffers") ? PP_TPO_TE
			 : !strcmp(tpo, "async-tp")     ? PP_TPO_ASYNC
							 : PP_TPO_NONE;
		if (x->tpo == PP_TPO_NONE && strcmp(tpo, "none"))
			return pp_jdoc_errf(d, err, pp_jpath(q, sizeof(q), p, "tp_overlap_impl"),
					    "found \"%s\"; expected \"te-userbuffers\", \"async-tp\" or "
					    "\"none\"", tpo);
		pp_jpath(q, sizeof(q), p, "defaults");
		for (int b = 0; b < PP_BEH_COUNT; b++) {
			char r[300], src[64], path[400] = "";
			const cJSON *fig = cJSON_GetObjectItemCaseSensitive(def, pp_beh_keys[b]);
			pp_jpath(r, sizeof(r), q, pp_beh_keys[b]);
			if (!cJSON_IsObject(fig))
				return pp_jdoc_errf(d, err, r, "missing; expected a default {\"value\", "
						    "\"source\", \"path\"} (every framework sets every "
						    "behaviour)");
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(fig, "value");
			char vr[320];
			pp_jpath(vr, sizeof(vr), r, "value");
			if (!v)
				return pp_jdoc_errf(d, err, vr, "missing; expected the default's value");
			if ((rc = pp_fw_check_value(f, d, b, v, vr, true, err)) ||
			    (rc = entry_source(d, fig, r, src, sizeof(src), err)) ||
			    (rc = pp_jget_str(d, fig, r, "path", true, path, sizeof(path), NULL, err)))
				return rc;
			x->def[b] = v;
			char id[sizeof(x->id)];
			memcpy(id, x->id, sizeof(id)); /* not from the struct written to */
			snprintf(x->origin[b], sizeof(x->origin[b]), "framework %s, %s: %s", id, src,
				 path);
		}
		f->ids[i] = x->id;
		f->nfw++;
	}
	return 0;
}

int pp_frameworks_load(pp_frameworks **out, const pp_jdoc *d, pp_err *err)
{
	pp_frameworks *f = pp_xcalloc(1, sizeof(*f));
	f->d = d;
	int rc = load_tables(f, err);
	if (!rc)
		rc = load_frameworks(f, err);
	if (rc) {
		pp_frameworks_free(f);
		f = NULL;
	}
	*out = f;
	return rc;
}

void pp_frameworks_free(pp_frameworks *f)
{
	if (!f)
		return;
	free(f->fws);
	free(f->ids);
	free(f->ce);
	free(f->el);
	free(f->op);
	free(f->f8);
	free(f);
}

const char *const *pp_frameworks_ids(const pp_frameworks *f, size_t *n)
{
	*n = f->nfw;
	return f->ids;
}

const fw *pp_fw_find(const pp_frameworks *f, const char *id)
{
	for (size_t i = 0; i < f->nfw; i++)
		if (!strcmp(f->fws[i].id, id))
			return &f->fws[i];
	return NULL;
}
