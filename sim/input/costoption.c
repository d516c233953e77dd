/* costoption.c - see costoption.h. */
#include "input/costoption.h"
#include "input/catalog.h"
#include "input/prices.h"
#include "input/scenario.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {"rent", "build", "api", "tier4"};
static const char *const tier_names[] = {"on_demand", "reserved_1y", "reserved_3y", "spot",
					 "capacity_block"};
const char *const pp_payment_names[PP_PAY_COUNT] = {"upfront", "partial", "monthly"};

static const char *const option_keys[] = {"name", "description", "kind", "provider", "tier", "price",
					  "own", "usd_per_gpu_hour", "server_usd",
					  "commitment_months", "payment", "lead_time_months", "staff_fte",
					  "inference_tokens_per_s_per_gpu", "method", "cluster",
					  "parallel", "training"};
static const char *const ocluster_keys[] = {"gpu", "num_gpus", "gpus_per_node",
					    "nvlink_domain_size", "intra_node",
					    "inter_node", "storage"};
static const char *const ointer_keys[] = {"fabric", "nics_per_node", "oversubscription",
					  "topology"};
static const char *const ostorage_keys[] = {"type"};
static const char *const oparallel_keys[] = {"tensor_model_parallel_size",
					     "pipeline_model_parallel_size", "context_parallel_size",
					     "virtual_pipeline_model_parallel_size",
					     "sequence_parallel", "zero_stage"};
static const char *const otraining_keys[] = {"micro_batch_size", "global_batch_size", "recompute"};

/* Unknown catalog id: did-you-mean, else the list. */
static int unknown_id(const pp_jdoc *d, pp_err *err, const char *path, const char *what,
		      const char *id, const char *const *ids, size_t n)
{
	const char *dym = pp_did_you_mean(id, ids, n);
	if (dym)
		return pp_jdoc_errf(d, err, path, "unknown %s \"%s\", did you mean \"%s\"?", what, id,
				    dym);
	pp_sb list = {0};
	for (size_t i = 0; i < n && i < 40; i++)
		pp_sb_addf(&list, "%s%s", i ? ", " : "", ids[i]);
	int rc = pp_jdoc_errf(d, err, path, "unknown %s \"%s\", expected one of: %s", what, id,
			      list.buf ? list.buf : "(none)");
	pp_sb_release(&list);
	return rc;
}

static int lookup_gpu(const pp_jdoc *d, const pp_catalog *cat, const cJSON *o, const char *p,
		      const pp_gpu **out, pp_err *err)
{
	char id[64];
	bool present = false;
	int rc = pp_jget_str(d, o, p, "gpu", false, id, sizeof(id), &present, err);
	if (rc || !present)
		return rc;
	*out = pp_catalog_gpu(cat, id);
	if (*out)
		return 0;
	size_t n;
	const char *const *ids = pp_catalog_ids(cat, "gpus", &n);
	char path[160];
	return unknown_id(d, err, pp_jpath(path, sizeof(path), p, "gpu"), "GPU", id, ids, n);
}

static int lookup_fabric(const pp_jdoc *d, const pp_catalog *cat, const cJSON *o, const char *p,
			 const char *key, bool intra, const pp_fabric **out, pp_err *err)
{
	char id[64], path[160];
	bool present = false;
	int rc = pp_jget_str(d, o, p, key, false, id, sizeof(id), &present, err);
	if (rc || !present)
		return rc;
	pp_jpath(path, sizeof(path), p, key);
	const pp_fabric *f = pp_catalog_fabric(cat, id);
	if (!f) {
		size_t n;
		const char *const *ids = pp_catalog_ids(cat, "fabrics", &n);
		return unknown_id(d, err, path, "fabric", id, ids, n);
	}
	if (f->intra_node != intra)
		return pp_jdoc_errf(d, err, path, "found \"%s\", an %s fabric; expected an %s fabric",
				    id, f->intra_node ? "intra-node" : "inter-node",
				    intra ? "intra-node" : "inter-node");
	*out = f;
	return 0;
}

void pp_costspec_option_defaults(pp_costspec_option *o)
{
	o->usd_per_gpu_hour = o->server_usd = o->commitment_months = o->lead_time_months = NAN;
	o->staff_fte = o->inference_tokens_per_s_per_gpu = NAN;
	o->method = -1;
	o->payment = -1;
	pp_costspec_cluster *c = &o->cluster;
	c->rail_optimized = c->sequence_parallel = c->zero_stage = c->recompute = -1;
}

/* ---- an option's cluster, parallel and training overrides ---- */

static int parse_ointer(const pp_jdoc *d, const pp_catalog *cat, const cJSON *in, const char *q,
			pp_costspec_cluster *c, pp_err *err)
{
	static const char *const topo[] = {"rail-optimized", "fat-tree"};
	int rc, t = 0;
	int64_t v;
	bool present;
	if ((rc = pp_jcheck_keys(d, in, q, ointer_keys, PP_ARRAY_LEN(ointer_keys), err)) ||
	    (rc = lookup_fabric(d, cat, in, q, "fabric", false, &c->inter, err)) ||
	    (rc = pp_jget_int(d, in, q, "nics_per_node", false, 1, 1024, &v, &present, err)))
		return rc;
	if (present)
		c->nics_per_node = (int)v;
	if ((rc = pp_jget_num(d, in, q, "oversubscription", false, 1, 64, &c->oversubscription, NULL,
			      err)) ||
	    (rc = pp_jget_enum(d, in, q, "topology", false, topo, 2, &t, &present, err)))
		return rc;
	if (present)
		c->rail_optimized = t == 0;
	return 0;
}

static int parse_ostorage(const pp_jdoc *d, const pp_catalog *cat, const cJSON *so, const char *q,
			  pp_costspec_cluster *c, pp_err *err)
{
	char id[64];
	int rc;
	if ((rc = pp_jcheck_keys(d, so, q, ostorage_keys, PP_ARRAY_LEN(ostorage_keys), err)) ||
	    (rc = pp_jget_str(d, so, q, "type", true, id, sizeof(id), NULL, err)))
		return rc;
	c->storage = pp_catalog_storage(cat, id);
	if (c->storage)
		return 0;
	size_t n;
	const char *const *ids = pp_catalog_ids(cat, "storage", &n);
	char r[200];
	return unknown_id(d, err, pp_jpath(r, sizeof(r), q, "type"), "storage", id, ids, n);
}

/* "cluster": GPU, counts, fabrics and storage, at JSON path p. */
static int parse_ocluster(const pp_jdoc *d, const pp_catalog *cat, const cJSON *cl, const char *p,
			  pp_costspec_cluster *c, pp_err *err)
{
	const cJSON *in, *so;
	char q[160];
	int rc;
	int64_t v;
	bool present;
	if ((rc = pp_jcheck_keys(d, cl, p, ocluster_keys, PP_ARRAY_LEN(ocluster_keys), err)) ||
	    (rc = lookup_gpu(d, cat, cl, p, &c->gpu, err)) ||
	    (rc = pp_jget_int(d, cl, p, "num_gpus", false, 1, PP_LAYOUT_SIZE_MAX, &v, &present,
			      err)))
		return rc;
	if (present)
		c->num_gpus = (int)v;
	if ((rc = pp_jget_int(d, cl, p, "gpus_per_node", false, 1, 1024, &v, &present, err)))
		return rc;
	if (present)
		c->gpus_per_node = (int)v;
	if ((rc = pp_jget_int(d, cl, p, "nvlink_domain_size", false, 1, 1024, &v, &present, err)))
		return rc;
	if (present)
		c->nvlink_domain_size = (int)v;
	if ((rc = lookup_fabric(d, cat, cl, p, "intra_node", true, &c->intra, err)) ||
	    (rc = pp_jget_obj(d, cl, p, "inter_node", false, &in, err)))
		return rc;
	if (in && (rc = parse_ointer(d, cat, in, pp_jpath(q, sizeof(q), p, "inter_node"), c, err)))
		return rc;
	if ((rc = pp_jget_obj(d, cl, p, "storage", false, &so, err)))
		return rc;
	if (so && (rc = parse_ostorage(d, cat, so, pp_jpath(q, sizeof(q), p, "storage"), c, err)))
		return rc;
	return 0;
}

/* "parallel": the layout, at JSON path p. */
static int parse_oparallel(const pp_jdoc *d, const cJSON *pa, const char *p, pp_costspec_cluster *c,
			   pp_err *err)
{
	int rc;
	int64_t v;
	bool present, b;
	if ((rc = pp_jcheck_keys(d, pa, p, oparallel_keys, PP_ARRAY_LEN(oparallel_keys), err)))
		return rc;
	struct {
		const char *key;
		int *f;
	} ints[] = {{"tensor_model_parallel_size", &c->tp},
		    {"pipeline_model_parallel_size", &c->pp},
		    {"context_parallel_size", &c->cp},
		    {"virtual_pipeline_model_parallel_size", &c->vpp}};
	for (size_t i = 0; i < PP_ARRAY_LEN(ints); i++) {
		if ((rc = pp_jget_int(d, pa, p, ints[i].key, false, 1, PP_LAYOUT_SIZE_MAX, &v, &present,
				      err)))
			return rc;
		if (present)
			*ints[i].f = (int)v;
	}
	if ((rc = pp_jget_bool(d, pa, p, "sequence_parallel", false, &b, &present, err)))
		return rc;
	if (present)
		c->sequence_parallel = b;
	if ((rc = pp_jget_int(d, pa, p, "zero_stage", false, 0, 3, &v, &present, err)))
		return rc;
	if (present)
		c->zero_stage = (int)v;
	return 0;
}

/* "training": batch sizes and recompute, at JSON path p. */
static int parse_otraining(const pp_jdoc *d, const cJSON *tr, const char *p, pp_costspec_cluster *c,
			   pp_err *err)
{
	int rc, e;
	bool present;
	if ((rc = pp_jcheck_keys(d, tr, p, otraining_keys, PP_ARRAY_LEN(otraining_keys), err)) ||
	    (rc = pp_jget_int(d, tr, p, "micro_batch_size", false, 1, 1000000, &c->micro_batch_size,
			      NULL, err)) ||
	    (rc = pp_jget_int(d, tr, p, "global_batch_size", false, 1, 1000000000,
			      &c->global_batch_size, NULL, err)) ||
	    (rc = pp_jget_enum(d, tr, p, "recompute", false, pp_recompute_names, 3, &e, &present, err)))
		return rc;
	if (present)
		c->recompute = e;
	return 0;
}

/* The option's "cluster", "parallel" and "training" objects; any of them
 * sets has_cluster. */
static int parse_cluster(const pp_jdoc *d, const pp_catalog *cat, const cJSON *opt, const char *op,
			 pp_costspec_option *o, pp_err *err)
{
	pp_costspec_cluster *c = &o->cluster;
	const cJSON *cl, *pa, *tr;
	char p[128];
	int rc;
	if ((rc = pp_jget_obj(d, opt, op, "cluster", false, &cl, err)))
		return rc;
	if (cl) {
		o->has_cluster = true;
		if ((rc = parse_ocluster(d, cat, cl, pp_jpath(p, sizeof(p), op, "cluster"), c, err)))
			return rc;
	}
	if ((rc = pp_jget_obj(d, opt, op, "parallel", false, &pa, err)))
		return rc;
	if (pa) {
		o->has_cluster = true;
		if ((rc = parse_oparallel(d, pa, pp_jpath(p, sizeof(p), op, "parallel"), c, err)))
			return rc;
	}
	if ((rc = pp_jget_obj(d, opt, op, "training", false, &tr, err)))
		return rc;
	if (tr) {
		o->has_cluster = true;
		if ((rc = parse_otraining(d, tr, pp_jpath(p, sizeof(p), op, "training"), c, err)))
			return rc;
	}
	return 0;
}

/* ---- one option ---- */

/* The value of op's key (given) is one of keys[n] (the catalog's, heap:
 * freed here), else an unknown-id error naming what it is. */
static int check_key(const pp_jdoc *d, pp_err *err, const char *op, const char *key,
		     const char *what, const char *val, const char **keys, size_t n)
{
	char path[160];
	bool ok = false;
	int rc = 0;
	for (size_t i = 0; i < n; i++)
		ok |= !strcmp(keys[i], val);
	if (!ok)
		rc = unknown_id(d, err, pp_jpath(path, sizeof(path), op, key), what, val, keys, n);
	free(keys);
	return rc;
}

/* Which of the keys that belong to some kinds only the option has. */
typedef struct kind_keys {
	bool provider, tier, price, own;
} kind_keys;

/* What each kind needs and may not have. */
static int check_kind(const pp_jdoc *d, const cJSON *opt, const char *op,
		      const pp_costspec_option *o, kind_keys h, pp_err *err)
{
	char path[160];
	switch (o->kind) {
	case 0: /* rent */
		if (!h.provider && isnan(o->usd_per_gpu_hour))
			return pp_jdoc_errf(d, err, op, "a \"rent\" option needs \"provider\" (a "
					    "prices.json cloud_prices key such as \"lambda_8x\") or "
					    "its own \"usd_per_gpu_hour\"");
		if (h.price || h.own)
			return pp_jdoc_errf(d, err, pp_jpath(path, sizeof(path), op,
							     h.price ? "price" : "own"),
					    "found on a \"rent\" option; expected only on \"%s\" options",
					    h.price ? "api" : "tier4");
		break;
	case 1: /* build */
		if (h.provider || h.tier || h.price || h.own)
			return pp_jdoc_errf(d, err, pp_jpath(path, sizeof(path), op,
							     h.provider ? "provider" : h.tier ? "tier"
							     : h.price ? "price" : "own"),
					    "found on a \"build\" option, which owns its hardware; "
					    "expected no provider, tier, price or own");
		break;
	case 2: /* api */
		if (!h.price)
			return pp_jdoc_errf(d, err, op, "an \"api\" option needs \"price\" (a prices.json "
					    "hosted_api key such as \"fireworks_lora_sft_le16B\")");
		if (h.provider || h.tier || h.own)
			return pp_jdoc_errf(d, err, pp_jpath(path, sizeof(path), op,
							     h.provider ? "provider" : h.tier ? "tier"
							     : "own"),
					    "found on an \"api\" option; expected only \"price\"");
		break;
	case 3: /* tier4 */
		if (!h.own)
			return pp_jdoc_errf(d, err, op, "a \"tier4\" option needs \"own\": true (bought) "
					    "or false (rented, with \"provider\" and \"tier\")");
		if (!o->own && !h.provider)
			return pp_jdoc_errf(d, err, op, "a rented \"tier4\" option (\"own\": false) needs "
					    "\"provider\"");
		if (o->own && (h.provider || h.tier))
			return pp_jdoc_errf(d, err, pp_jpath(path, sizeof(path), op,
							     h.provider ? "provider" : "tier"),
					    "found on an owned \"tier4\" option; expected no provider "
					    "or tier (set \"own\": false to rent)");
		if (h.price)
			return pp_jdoc_errf(d, err, pp_jpath(path, sizeof(path), op, "price"),
					    "found on a \"tier4\" option; expected only on \"api\" options");
		break;
	}
	if (o->kind == 2) {
		const char *bad[] = {"cluster", "parallel", "training", "usd_per_gpu_hour", "server_usd"};
		for (size_t i = 0; i < PP_ARRAY_LEN(bad); i++)
			if (cJSON_GetObjectItemCaseSensitive(opt, bad[i]))
				return pp_jdoc_errf(d, err, pp_jpath(path, sizeof(path), op, bad[i]),
						    "found on an \"api\" option, which has no cluster; "
						    "expected only \"price\"");
	}
	return 0;
}

/* Name, kind, where its price comes from (provider and tier, or price),
 * own; *h says which of the kind-bound keys are there. */
static int parse_option_source(const pp_jdoc *d, const pp_catalog *cat, const cJSON *opt,
			       const char *op, pp_costspec_option *o, kind_keys *h, pp_err *err)
{
	int rc, tier = 0;
	size_t n;
	if ((rc = pp_jcheck_keys(d, opt, op, option_keys, PP_ARRAY_LEN(option_keys), err)) ||
	    (rc = pp_jget_str(d, opt, op, "name", true, o->name, sizeof(o->name), NULL, err)) ||
	    (rc = pp_jget_enum(d, opt, op, "kind", true, kind_names, PP_ARRAY_LEN(kind_names),
			       &o->kind, NULL, err)) ||
	    (rc = pp_jget_str(d, opt, op, "provider", false, o->provider, sizeof(o->provider),
			      &h->provider, err)))
		return rc;
	if (h->provider) {
		const char **keys = pp_price_providers(cat, &n);
		if ((rc = check_key(d, err, op, "provider", "provider", o->provider, keys, n)))
			return rc;
	}
	if ((rc = pp_jget_enum(d, opt, op, "tier", false, tier_names, PP_ARRAY_LEN(tier_names), &tier,
			       &h->tier, err)))
		return rc;
	snprintf(o->tier, sizeof(o->tier), "%s", h->tier ? tier_names[tier] : "on_demand");
	if ((rc = pp_jget_str(d, opt, op, "price", false, o->price, sizeof(o->price), &h->price, err)))
		return rc;
	if (h->price) {
		const char **keys = pp_price_api_keys(cat, &n);
		if ((rc = check_key(d, err, op, "price", "hosted API price", o->price, keys, n)))
			return rc;
	}
	return pp_jget_bool(d, opt, op, "own", false, &o->own, &h->own, err);
}

int pp_costspec_option_parse(const pp_jdoc *d, const pp_catalog *cat, const cJSON *opt,
			     const char *op, pp_costspec_option *o, pp_err *err)
{
	int rc, method = 0;
	bool present;
	kind_keys h = {0};
	pp_costspec_option_defaults(o);
	snprintf(o->path, sizeof(o->path), "%s", op);
	if (!cJSON_IsObject(opt)) {
		char buf[64];
		return pp_jdoc_errf(d, err, op, "found %s, expected an option object",
				    pp_jdoc_describe(opt, buf, sizeof(buf)));
	}
	if ((rc = parse_option_source(d, cat, opt, op, o, &h, err)) ||
	    (rc = pp_jget_num(d, opt, op, "usd_per_gpu_hour", false, 0, 1000, &o->usd_per_gpu_hour,
			      NULL, err)) ||
	    (rc = pp_jget_num(d, opt, op, "server_usd", false, 0, 1e8, &o->server_usd, NULL, err)) ||
	    (rc = pp_jget_num(d, opt, op, "commitment_months", false, 1, 120, &o->commitment_months,
			      NULL, err)) ||
	    (rc = pp_jget_num(d, opt, op, "lead_time_months", false, 0, 60, &o->lead_time_months,
			      NULL, err)) ||
	    (rc = pp_jget_num(d, opt, op, "staff_fte", false, 0, 10000, &o->staff_fte, NULL, err)) ||
	    (rc = pp_jget_num(d, opt, op, "inference_tokens_per_s_per_gpu", false, 1e-3, 1e7,
			      &o->inference_tokens_per_s_per_gpu, NULL, err)) ||
	    (rc = pp_jget_enum(d, opt, op, "method", false, pp_ft_method_names, PP_FT_COUNT, &method,
			       &present, err)))
		return rc;
	if (present)
		o->method = method;
	int pay = 0;
	if ((rc = pp_jget_enum(d, opt, op, "payment", false, pp_payment_names, PP_PAY_COUNT, &pay,
			       &present, err)))
		return rc;
	if (present) {
		char path[160];
		if (strncmp(o->tier, "reserved", 8))
			return pp_jdoc_errf(d, err, pp_jpath(path, sizeof(path), op, "payment"),
					    "found on a \"%s\" option; expected only with tier "
					    "\"reserved_1y\" or \"reserved_3y\" (how the commitment is paid)",
					    o->tier);
		o->payment = pay;
	}
	if ((rc = check_kind(d, opt, op, o, h, err)))
		return rc;
	return parse_cluster(d, cat, opt, op, o, err);
}
