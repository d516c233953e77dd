/* framework.c - see framework.h. */
#include "input/framework.h"
#include "core/jsonget.h"
#include "core/util.h"

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
static const char *const clock_names[2] = {"burst", "sustained"};

/* A tensor-parallel overlap implementation (frameworks.json "tp_overlap"). */
typedef struct tpo_impl {
	char id[32];
	int ag_splits, rs_splits;  /* 0: one chunk per tensor-parallel rank */
	double rs_sms, bulk_sms;
} tpo_impl;

typedef struct fw {
	char id[32], name[96], version[96];
	const cJSON *def[PP_BEH_COUNT];      /* each default's figure object */
	char origin[PP_BEH_COUNT][448];
	int tpo;                             /* PP_TPO_* this framework's tp_comm_overlap runs */
	bool torch_compile;                  /* has a torch.compile path */
	bool fsdp2_copies;                   /* ZeRO-3 is FSDP2 (optional fsdp2_copies) */
	bool ddp_bucket_copies;              /* DDP copies into its buckets (optional) */
	bool eager_memory;                   /* optional eager_memory */
	double optim_temp_states;            /* its optimizer_temp_states */
} fw;

struct pp_frameworks {
	const pp_jdoc *d;
	fw *fws;
	size_t nfw;
	pp_ce_impl *ce;
	size_t nce;
	pp_eltw_impl *el;
	size_t nel;
	pp_optim_impl *op;
	size_t nop;
	pp_fp8_impl *f8;
	size_t nf8;
	tpo_impl tpo[PP_TPO_COUNT];
	struct {
		bool overlapped;
		double fwd, bwd_q, bwd_kv;
	} cpi[PP_CPC_COUNT];
	const char **ids;
};

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

static int name_index(const char *const *names, int n, const char *s);
static const pp_eltw_impl *find_el(const pp_frameworks *f, const char *id);

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
		if (f->el[k].autocast[0] && !find_el(f, f->el[k].autocast)) {
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
		int k = name_index(pp_cpc_names, PP_CPC_COUNT, id);
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

static const pp_ce_impl *find_ce(const pp_frameworks *f, const char *id)
{
	for (size_t i = 0; i < f->nce; i++)
		if (!strcmp(f->ce[i].id, id))
			return &f->ce[i];
	return NULL;
}

static const pp_eltw_impl *find_el(const pp_frameworks *f, const char *id)
{
	for (size_t i = 0; i < f->nel; i++)
		if (!strcmp(f->el[i].id, id))
			return &f->el[i];
	return NULL;
}

static const pp_optim_impl *find_op(const pp_frameworks *f, const char *id)
{
	for (size_t i = 0; i < f->nop; i++)
		if (!strcmp(f->op[i].id, id))
			return &f->op[i];
	return NULL;
}

static const pp_fp8_impl *find_f8(const pp_frameworks *f, const char *id)
{
	for (size_t i = 0; i < f->nf8; i++)
		if (!strcmp(f->f8[i].id, id))
			return &f->f8[i];
	return NULL;
}

static int name_index(const char *const *names, int n, const char *s)
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
static int check_value(const pp_frameworks *f, const pp_jdoc *d, int b, const cJSON *v,
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
				int rc = check_value(f, d, b, e, pp_jpath(p, sizeof(p), path, e->string),
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
		ok = name_index(pp_attn_kernel_names, PP_ATTN_COUNT, s) >= 0;
		for (int i = 0; i < PP_ATTN_COUNT; i++)
			pp_sb_addf(&list, "%s\"%s\"", i ? ", " : "", pp_attn_kernel_names[i]);
	} else if (b == PP_BEH_CE) {
		ok = find_ce(f, s) != NULL;
		for (size_t i = 0; i < f->nce; i++)
			pp_sb_addf(&list, "%s\"%s\"", i ? ", " : "", f->ce[i].id);
	} else if (b == PP_BEH_ELTW) {
		ok = find_el(f, s) != NULL;
		for (size_t i = 0; i < f->nel; i++)
			pp_sb_addf(&list, "%s\"%s\"", i ? ", " : "", f->el[i].id);
	} else if (b == PP_BEH_OPTIM) {
		ok = find_op(f, s) != NULL;
		for (size_t i = 0; i < f->nop; i++)
			pp_sb_addf(&list, "%s\"%s\"", i ? ", " : "", f->op[i].id);
	} else if (b == PP_BEH_FP8) {
		ok = find_f8(f, s) != NULL;
		for (size_t i = 0; i < f->nf8; i++)
			pp_sb_addf(&list, "%s\"%s\"", i ? ", " : "", f->f8[i].id);
	} else if (b == PP_BEH_SAC) {
		ok = name_index(pp_sac_names, PP_SAC_COUNT, s) >= 0;
		pp_sb_addf(&list, "\"%s\", \"%s\", \"%s\"", pp_sac_names[0], pp_sac_names[1],
			   pp_sac_names[2]);
	} else if (b == PP_BEH_TENSOR_CLOCK) {
		ok = name_index(clock_names, 2, s) >= 0;
		pp_sb_addf(&list, "\"%s\", \"%s\"", clock_names[0], clock_names[1]);
	} else {
		ok = name_index(pp_cpc_names, PP_CPC_COUNT, s) >= 0;
		pp_sb_addf(&list, "\"%s\", \"%s\"", pp_cpc_names[0], pp_cpc_names[1]);
	}
	int rc = ok ? 0 : pp_jdoc_errf(d, err, path, "found \"%s\"; expected one of %s", s, list.buf);
	pp_sb_release(&list);
	return rc;
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
			if ((rc = check_value(f, d, b, v, vr, true, err)) ||
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

static pp_attn_kernel attn_of(const cJSON *v)
{
	return (pp_attn_kernel)name_index(pp_attn_kernel_names, PP_ATTN_COUNT, v->valuestring);
}

pp_attn_kernel pp_stack_attention(const pp_stack *st, const char *arch)
{
	for (int i = 0; i < st->nattn_arch; i++)
		if (arch && !strcmp(st->attn_arch[i], arch))
			return st->attn_arch_k[i];
	return st->attn;
}

/* Apply value v of behaviour b (checked) to st. */
static void apply(pp_stack *st, const pp_frameworks *f, int b, const cJSON *v)
{
	switch (b) {
	case PP_BEH_ATTN:
		st->nattn_arch = 0;
		if (cJSON_IsObject(v)) {
			for (const cJSON *e = v->child; e; e = e->next) {
				if (!strcmp(e->string, "default"))
					st->attn = attn_of(e);
				else if (st->nattn_arch < 6) {
					snprintf(st->attn_arch[st->nattn_arch], sizeof(st->attn_arch[0]), "%s",
						 e->string);
					st->attn_arch_k[st->nattn_arch++] = attn_of(e);
				}
			}
		} else {
			st->attn = attn_of(v);
		}
		break;
	case PP_BEH_CE: st->ce = *find_ce(f, v->valuestring); break;
	case PP_BEH_ELTW: st->eltw = *find_el(f, v->valuestring); break;
	case PP_BEH_OPTIM: st->optim = *find_op(f, v->valuestring); break;
	case PP_BEH_FP8: st->fp8 = *find_f8(f, v->valuestring); break;
	case PP_BEH_FUSED_PROJ: st->fused_proj = cJSON_IsTrue(v); break;
	case PP_BEH_SAC: st->sac = name_index(pp_sac_names, PP_SAC_COUNT, v->valuestring); break;
	case PP_BEH_GRAD_FP32:
		st->grad_reduce = cJSON_IsString(v) ? PP_GRED_MEGATRON
				  : cJSON_IsTrue(v) ? PP_GRED_FP32 : PP_GRED_TRAIN_DTYPE;
		break;
	case PP_BEH_RESHARD: st->reshard_after_forward = cJSON_IsTrue(v); break;
	case PP_BEH_TP_OVERLAP: st->tp_overlap = cJSON_IsTrue(v) ? PP_TPO_TE : PP_TPO_NONE; break;
	case PP_BEH_CUDA_GRAPHS: st->cuda_graphs = cJSON_IsTrue(v); break;
	case PP_BEH_HOST_ISSUE: st->host_issue_s = v->valuedouble * 1e-6; break;
	case PP_BEH_MASTER_FP32: st->master_fp32 = cJSON_IsTrue(v); break;
	case PP_BEH_AUTOCAST: st->autocast = cJSON_IsTrue(v); break;
	case PP_BEH_TENSOR_CLOCK:
		st->sustained_clock = name_index(clock_names, 2, v->valuestring) == 1;
		break;
	case PP_BEH_CP_COMM:
		st->cp_comm = name_index(pp_cpc_names, PP_CPC_COUNT, v->valuestring);
		st->cp_overlapped = f->cpi[st->cp_comm].overlapped;
		st->cp_merge_fwd = f->cpi[st->cp_comm].fwd;
		st->cp_merge_bwd_q = f->cpi[st->cp_comm].bwd_q;
		st->cp_merge_bwd_kv = f->cpi[st->cp_comm].bwd_kv;
		break;
	default: break;
	}
}

static const fw *find_fw(const pp_frameworks *f, const char *id)
{
	for (size_t i = 0; i < f->nfw; i++)
		if (!strcmp(f->fws[i].id, id))
			return &f->fws[i];
	return NULL;
}

/* tp_comm_overlap on: the framework's implementation and its parameters */
static void set_tpo(pp_stack *st, const pp_frameworks *f, int k)
{
	const tpo_impl *t = &f->tpo[k];
	st->tp_overlap = k;
	st->tpo_ag_splits = t->ag_splits;
	st->tpo_rs_splits = t->rs_splits;
	st->tpo_rs_sms = t->rs_sms;
	st->tpo_bulk_sms = t->bulk_sms;
}

static void set_defaults(pp_stack *st, const pp_frameworks *f, const fw *x)
{
	memset(st, 0, sizeof(*st));
	snprintf(st->framework, sizeof(st->framework), "%s", x->id);
	snprintf(st->framework_name, sizeof(st->framework_name), "%s", x->name);
	snprintf(st->version, sizeof(st->version), "%s", x->version);
	st->fsdp2_copies = x->fsdp2_copies;
	st->ddp_bucket_copies = x->ddp_bucket_copies;
	st->eager_memory = x->eager_memory;
	st->optim_temp_states = x->optim_temp_states;
	st->ddp = -1;
	for (int b = 0; b < PP_BEH_COUNT; b++) {
		apply(st, f, b, x->def[b]);
		snprintf(st->origin[b], sizeof(st->origin[b]), "%s", x->origin[b]);
	}
}

/* The elementwise kernels of the same code on an fp32 residual stream. */
static void set_amp(pp_stack *st, const pp_frameworks *f)
{
	st->eltw_amp = st->eltw;
	if (st->eltw.autocast[0])
		st->eltw_amp = *find_el(f, st->eltw.autocast);
}

int pp_stack_default(pp_stack *st, const pp_frameworks *f, const char *id, pp_err *err)
{
	const fw *x = find_fw(f, id);
	if (!x)
		return pp_errf(err, PP_EINPUT, "frameworks.json: no framework \"%s\"", id);
	set_defaults(st, f, x);
	/* the default tp_comm_overlap means the framework's implementation */
	if (st->tp_overlap)
		set_tpo(st, f, x->tpo);
	set_amp(st, f);
	return 0;
}

int pp_stack_resolve(pp_stack *st, const pp_frameworks *f, const pp_jdoc *d, const cJSON *t,
		     pp_err *err)
{
	char id[32] = "megatron-core";
	int rc;
	bool present = false;
	if (t && (rc = pp_jget_str(d, t, "training", "framework", false, id, sizeof(id), &present, err)))
		return rc;
	const fw *x = find_fw(f, id);
	if (!x) {
		const char *dym = pp_did_you_mean(id, f->ids, f->nfw);
		pp_sb list = {0};
		for (size_t i = 0; i < f->nfw; i++)
			pp_sb_addf(&list, "%s\"%s\"", i ? ", " : "", f->ids[i]);
		rc = dym ? pp_jdoc_errf(d, err, "training.framework", "unknown framework \"%s\", did "
					"you mean \"%s\"?", id, dym)
			 : pp_jdoc_errf(d, err, "training.framework", "unknown framework \"%s\"; "
					"expected one of %s (models/frameworks.json)", id, list.buf);
		pp_sb_release(&list);
		return rc;
	}
	set_defaults(st, f, x);
	if (!t)
		goto overlap;
	/* torch.compile: a TorchTitan or plain PyTorch path only; it compiles
	 * the blocks' elementwise chains */
	if ((rc = pp_jget_bool(d, t, "training", "torch_compile", false, &st->torch_compile, &present,
			       err)))
		return rc;
	if (st->torch_compile && !x->torch_compile)
		return pp_jdoc_errf(d, err, "training.torch_compile", "found true with framework \"%s\", "
				    "which has no torch.compile path; expected false or the key left "
				    "out", x->id);
	if (st->torch_compile) {
		st->eltw = *find_el(f, "compiled");
		snprintf(st->origin[PP_BEH_ELTW], sizeof(st->origin[PP_BEH_ELTW]),
			 "scenario training.torch_compile (each block compiled)");
	}
	bool ddp;
	if ((rc = pp_jget_bool(d, t, "training", "ddp", false, &ddp, &present, err)))
		return rc;
	if (present)
		st->ddp = ddp;
	for (int b = 0; b < PP_BEH_COUNT; b++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, pp_beh_keys[b]);
		char p[96];
		if (!v)
			continue;
		pp_jpath(p, sizeof(p), "training", pp_beh_keys[b]);
		if ((rc = check_value(f, d, b, v, p, false, err)))
			return rc;
		apply(st, f, b, v);
		snprintf(st->origin[b], sizeof(st->origin[b]), "scenario %s", p);
	}
	/* use_flash_attn false is the unfused core; true asks for a fused one */
	const cJSON *fa = cJSON_GetObjectItemCaseSensitive(t, "use_flash_attn");
	if (cJSON_IsFalse(fa)) {
		if (cJSON_GetObjectItemCaseSensitive(t, "attention_kernel") && st->attn != PP_ATTN_UNFUSED)
			return pp_jdoc_errf(d, err, "training.attention_kernel", "found \"%s\" with "
					    "use_flash_attn false; expected \"unfused\" or one of the "
					    "two keys left out", pp_attn_kernel_names[st->attn]);
		st->attn = PP_ATTN_UNFUSED;
		st->nattn_arch = 0;
		snprintf(st->origin[PP_BEH_ATTN], sizeof(st->origin[PP_BEH_ATTN]),
			 "scenario training.use_flash_attn false");
	} else if (cJSON_IsTrue(fa) && st->attn == PP_ATTN_UNFUSED && !st->nattn_arch) {
		if (cJSON_GetObjectItemCaseSensitive(t, "attention_kernel"))
			return pp_jdoc_errf(d, err, "training.attention_kernel", "found \"unfused\" with "
					    "use_flash_attn true; expected a fused kernel (\"fa2\", "
					    "\"fa3\", \"cudnn\", \"catalog\")");
		st->attn = PP_ATTN_FA2;
		st->nattn_arch = 0;
		snprintf(st->origin[PP_BEH_ATTN], sizeof(st->origin[PP_BEH_ATTN]),
			 "scenario training.use_flash_attn true (FlashAttention 2)");
	}
	if (st->tp_overlap && x->tpo == PP_TPO_NONE)
		return pp_jdoc_errf(d, err, "training.tp_comm_overlap", "found true with framework "
				    "\"%s\", which has no tensor-parallel communication overlap; expected "
				    "false", x->id);
overlap:
	if (st->tp_overlap)
		set_tpo(st, f, x->tpo);
	set_amp(st, f);
	return 0;
}
