/* scenario.c - see scenario.h. */
#include "input/scenario.h"
#include "input/scenint.h"
#include "input/limits.h"
#include "input/hfconfig.h"
#include "input/scenalias.h"
#include "core/util.h"

#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char *const top_keys[] = {"name", "description", "model", "training", "parallel",
				       "cluster", "calibration", "costs", "search", "serving", "workload",
				       "slo"};
static const char *const model_keys[] = {"preset", "hf_config", "num_layers", "hidden_size",
					 "num_attention_heads", "num_query_groups", "ffn_hidden_size",
					 "vocab_size", "seq_length", "swiglu",
					 "untie_embeddings_and_output_weights", "mtp_num_layers",
					 PP_MODEL_ARCH_KEYS};
static const char *const cluster_keys[] = {"gpu", "num_gpus", "gpus_per_node",
					   "nvlink_domain_size", "intra_node", "nccl_nvls_enable",
					   "inter_node", "storage"};
static const char *const inter_keys[] = {"fabric", "nics_per_node", "oversubscription", "topology"};
static const char *const storage_keys[] = {"type", "read_gbytes_per_s_per_node",
					   "write_gbytes_per_s_per_node"};
static const char *const calib_keys[] = {"db", "profile"};

int pp_cluster_nodes(const pp_cluster *c)
{
	if (c->num_gpus <= c->gpus_per_node)
		return 1;
	return (c->num_gpus + c->gpus_per_node - 1) / c->gpus_per_node;
}

/* ---- model ---- */

static int read_hf_config(pp_scenario *s, const pp_jdoc *d, const char *hfpath, pp_model *m,
			  bool drop_mtp, pp_err *err)
{
	pp_jdoc hf;
	char resolved[PATH_MAX + 8];
	int rc = 0;
	if (hfpath[0] == '/') {
		snprintf(resolved, sizeof(resolved), "%s", hfpath);
	} else {
		char tmp[PATH_MAX];
		snprintf(tmp, sizeof(tmp), "%s", d->path);
		snprintf(resolved, sizeof(resolved), "%s/%s", dirname(tmp), hfpath);
	}
	pp_err sub = {0};
	rc = pp_jdoc_load(&hf, resolved, &sub);
	if (rc) {
		rc = pp_jdoc_errf(d, err, "model.hf_config", "cannot use \"%s\": %s; expected a readable "
				  "Hugging Face config.json", hfpath, sub.msg);
		goto out;
	}
	/* the config's own position and key, after the scenario's */
	memset(&sub, 0, sizeof(sub));
	if ((rc = pp_hfconfig_read(m, &hf, drop_mtp, &sub))) {
		rc = pp_jdoc_errf(d, err, "model.hf_config", "%s", sub.msg);
		goto out;
	}
	snprintf(m->id, sizeof(m->id), "hf");
	snprintf(m->name, sizeof(m->name), "%.80s", hfpath);
	snprintf(s->model_origin, sizeof(s->model_origin), "hf_config %s", hfpath);
out:
	pp_jdoc_release(&hf);
	return rc;
}

static int parse_model(pp_scenario *s, const pp_catalog *cat, pp_err *err)
{
	const pp_jdoc *d = &s->doc;
	const cJSON *mo;
	int rc;
	if ((rc = pp_jget_obj(d, d->root, "", "model", true, &mo, err)) ||
	    (rc = pp_jcheck_keys(d, mo, "model", model_keys, PP_ARRAY_LEN(model_keys), err)))
		return rc;
	pp_model *m = &s->model;
	char preset[64] = "", hf[PATH_MAX] = "";
	bool has_preset = false, has_hf = false;
	if ((rc = pp_jget_str(d, mo, "model", "preset", false, preset, sizeof(preset), &has_preset, err)) ||
	    (rc = pp_jget_str(d, mo, "model", "hf_config", false, hf, sizeof(hf), &has_hf, err)))
		return rc;
	if (has_preset && has_hf)
		return pp_jdoc_errf(d, err, "model.hf_config", "found both preset and hf_config; "
				    "expected one of them");
	/* Megatron's --mtp-num-layers: multi-token prediction depths (0: none;
	 * a config.json with num_nextn_predict_layers needs it said) */
	int64_t mtp = 0;
	bool has_mtp = false;
	if ((rc = pp_jget_int(d, mo, "model", "mtp_num_layers", false, 0, 64, &mtp, &has_mtp, err)))
		return rc;
	if (has_preset) {
		const pp_model *pm = pp_catalog_model(cat, preset);
		if (!pm) {
			size_t n;
			const char *const *ids = pp_catalog_ids(cat, "models", &n);
			const char *dym = pp_did_you_mean(preset, ids, n);
			pp_sb list = {0};
			for (size_t i = 0; i < n; i++)
				pp_sb_addf(&list, "%s%s", i ? ", " : "", ids[i]);
			if (dym)
				rc = pp_jdoc_errf(d, err, "model.preset", "unknown model preset \"%s\", did "
						  "you mean \"%s\"?", preset, dym);
			else
				rc = pp_jdoc_errf(d, err, "model.preset", "unknown model preset \"%s\", "
						  "expected one of: %s", preset, list.buf);
			pp_sb_release(&list);
			return rc;
		}
		*m = *pm;
		snprintf(s->model_origin, sizeof(s->model_origin), "preset %s", preset);
	} else if (has_hf) {
		if ((rc = read_hf_config(s, d, hf, m, has_mtp, err)))
			return rc;
	} else {
		snprintf(m->id, sizeof(m->id), "custom");
		snprintf(m->name, sizeof(m->name), "custom");
		snprintf(s->model_origin, sizeof(s->model_origin), "inline");
	}
	m->mtp_num_layers = (int)mtp;
	bool inl = !has_preset && !has_hf;
	int64_t v;
	bool present;
#define MK(key, field, req)                                                                       \
	if ((rc = pp_jget_int(d, mo, "model", key, req, 1, PP_MODEL_DIM_MAX, &v, &present, err))) \
		return rc;                                                                        \
	if (present)                                                                              \
		m->field = (int)v;
	MK("num_layers", num_layers, inl)
	MK("hidden_size", hidden_size, inl)
	MK("num_attention_heads", num_attention_heads, inl)
	if (inl) {
		m->num_query_groups = m->num_attention_heads;
		m->ffn_hidden_size = 4 * m->hidden_size;
	}
	MK("num_query_groups", num_query_groups, false)
	MK("ffn_hidden_size", ffn_hidden_size, false)
	MK("vocab_size", vocab_size, inl)
	MK("seq_length", seq_length, inl)
#undef MK
	if ((rc = pp_jget_bool(d, mo, "model", "swiglu", false, &m->swiglu, NULL, err)))
		return rc;
	bool untie = !m->tied_embeddings, have_untie = false;
	if ((rc = pp_jget_bool(d, mo, "model", "untie_embeddings_and_output_weights", false, &untie,
			       &have_untie, err)))
		return rc;
	if (have_untie)
		m->tied_embeddings = !untie;
	/* mixture of experts, latent attention, head size, sliding window */
	if ((rc = pp_model_read_arch(d, mo, "model", m, err)))
		return rc;
	const char *key = NULL;
	char why[512], path[300];
	if (pp_model_check(m, &key, why, sizeof(why)))
		return pp_jdoc_errf(d, err, pp_jpath(path, sizeof(path), "model", key), "%s", why);
	return 0;
}

/* ---- cluster ---- */

static int lookup_fabric(const pp_jdoc *d, const pp_catalog *cat, const char *path, const char *id,
			 bool want_intra, const pp_fabric **out, pp_err *err)
{
	const pp_fabric *f = pp_catalog_fabric(cat, id);
	if (!f) {
		size_t n;
		const char *const *ids = pp_catalog_ids(cat, "fabrics", &n);
		const char *dym = pp_did_you_mean(id, ids, n);
		pp_sb list = {0};
		for (size_t i = 0; i < n; i++)
			if (pp_catalog_fabric_at(cat, i)->intra_node == want_intra)
				pp_sb_addf(&list, "%s%s", list.len ? ", " : "", ids[i]);
		int rc = dym ? pp_jdoc_errf(d, err, path, "unknown fabric \"%s\", did you mean \"%s\"?",
					    id, dym)
			     : pp_jdoc_errf(d, err, path, "unknown fabric \"%s\", expected one of: %s", id,
					    list.buf);
		pp_sb_release(&list);
		return rc;
	}
	if (f->intra_node != want_intra)
		return pp_jdoc_errf(d, err, path, "found \"%s\", an %s fabric; expected an %s fabric", id,
				    f->intra_node ? "intra-node" : "inter-node",
				    want_intra ? "intra-node" : "inter-node");
	*out = f;
	return 0;
}

static int parse_cluster(pp_scenario *s, const pp_catalog *cat, pp_err *err)
{
	const pp_jdoc *d = &s->doc;
	const cJSON *c;
	int rc;
	pp_cluster *cl = &s->cluster;
	if ((rc = pp_jget_obj(d, d->root, "", "cluster", true, &c, err)) ||
	    (rc = pp_jcheck_keys(d, c, "cluster", cluster_keys, PP_ARRAY_LEN(cluster_keys), err)))
		return rc;
	char gpu[64];
	if ((rc = pp_jget_str(d, c, "cluster", "gpu", true, gpu, sizeof(gpu), NULL, err)))
		return rc;
	cl->gpu = pp_catalog_gpu(cat, gpu);
	if (!cl->gpu) {
		size_t n;
		const char *const *ids = pp_catalog_ids(cat, "gpus", &n);
		const char *dym = pp_did_you_mean(gpu, ids, n);
		pp_sb list = {0};
		for (size_t i = 0; i < n; i++)
			pp_sb_addf(&list, "%s%s", i ? ", " : "", ids[i]);
		rc = dym ? pp_jdoc_errf(d, err, "cluster.gpu", "unknown GPU \"%s\", did you mean \"%s\"?",
					gpu, dym)
			 : pp_jdoc_errf(d, err, "cluster.gpu", "unknown GPU \"%s\", expected one of: %s",
					gpu, list.buf);
		pp_sb_release(&list);
		return rc;
	}
	int64_t v = 0;
	bool present;
	if ((rc = pp_jget_int(d, c, "cluster", "num_gpus", true, 1, PP_LAYOUT_SIZE_MAX, &v, NULL,
			      err)))
		return rc;
	cl->num_gpus = (int)v;
	cl->gpus_per_node = cl->gpu->gpus_per_node;
	if ((rc = pp_jget_int(d, c, "cluster", "gpus_per_node", false, 1, 1024, &v, &present, err)))
		return rc;
	if (present)
		cl->gpus_per_node = (int)v;
	if ((rc = pp_jget_int(d, c, "cluster", "nvlink_domain_size", false, 1, 1024, &v, &present,
			      err)))
		return rc;
	cl->nvlink_domain_size = present ? (int)v : 0;
	/* NCCL_NVLS_ENABLE: NVLink SHARP where the NVSwitches have it (NCCL's
	 * default, 2 = auto); false as NCCL_NVLS_ENABLE=0 */
	bool nvls_on = true;
	if ((rc = pp_jget_bool(d, c, "cluster", "nccl_nvls_enable", false, &nvls_on, NULL, err)))
		return rc;
	cl->nvls_off = !nvls_on;
	char intra[32];
	snprintf(intra, sizeof(intra), "%s", cl->gpu->intra_node);
	if ((rc = pp_jget_str(d, c, "cluster", "intra_node", false, intra, sizeof(intra), NULL, err)) ||
	    (rc = lookup_fabric(d, cat, "cluster.intra_node", intra, true, &cl->intra, err)))
		return rc;
	if (!pp_gpu_fabric_ok(cl->gpu, cl->intra))
		return pp_jdoc_errf(d, err, "cluster.intra_node", "found \"%s\", but %s has no %s; "
				    "expected \"%s\" or a PCIe fabric", intra, cl->gpu->id,
				    cl->intra->kind == PP_FAB_NVLINK ? "NVLink" : "such Infinity Fabric",
				    cl->gpu->intra_node);
	/* Inter-node fabric: defaults are one 400G NDR NIC per GPU, non-blocking. */
	char inter[32] = "ib-ndr";
	cl->nics_per_node = cl->gpus_per_node;
	cl->oversubscription = 1.0;
	cl->rail_optimized = true;
	const cJSON *in;
	if ((rc = pp_jget_obj(d, c, "cluster", "inter_node", false, &in, err)))
		return rc;
	if (in) {
		static const char *const topo[] = {"rail-optimized", "fat-tree"};
		int t = 0;
		if ((rc = pp_jcheck_keys(d, in, "cluster.inter_node", inter_keys,
					 PP_ARRAY_LEN(inter_keys), err)) ||
		    (rc = pp_jget_str(d, in, "cluster.inter_node", "fabric", false, inter, sizeof(inter),
				      NULL, err)) ||
		    (rc = pp_jget_int(d, in, "cluster.inter_node", "nics_per_node", false, 1, 1024, &v,
				      &present, err)))
			return rc;
		if (present)
			cl->nics_per_node = (int)v;
		if ((rc = pp_jget_num(d, in, "cluster.inter_node", "oversubscription", false, 1, 64,
				      &cl->oversubscription, NULL, err)) ||
		    (rc = pp_jget_enum(d, in, "cluster.inter_node", "topology", false, topo, 2, &t,
				       &present, err)))
			return rc;
		if (present)
			cl->rail_optimized = t == 0;
	}
	if ((rc = lookup_fabric(d, cat, "cluster.inter_node.fabric", inter, false, &cl->inter, err)))
		return rc;
	/* Storage. */
	char st[48] = "lustre";
	const cJSON *so;
	if ((rc = pp_jget_obj(d, c, "cluster", "storage", false, &so, err)))
		return rc;
	double rd = 0, wr = 0;
	if (so) {
		if ((rc = pp_jcheck_keys(d, so, "cluster.storage", storage_keys,
					 PP_ARRAY_LEN(storage_keys), err)) ||
		    (rc = pp_jget_str(d, so, "cluster.storage", "type", false, st, sizeof(st), NULL, err)) ||
		    (rc = pp_jget_num(d, so, "cluster.storage", "read_gbytes_per_s_per_node", false, 1e-3,
				      1e5, &rd, NULL, err)) ||
		    (rc = pp_jget_num(d, so, "cluster.storage", "write_gbytes_per_s_per_node", false, 1e-3,
				      1e5, &wr, NULL, err)))
			return rc;
	}
	cl->storage = pp_catalog_storage(cat, st);
	if (!cl->storage) {
		size_t n;
		const char *const *ids = pp_catalog_ids(cat, "storage", &n);
		pp_sb list = {0};
		for (size_t i = 0; i < n; i++)
			pp_sb_addf(&list, "%s%s", i ? ", " : "", ids[i]);
		rc = pp_jdoc_errf(d, err, "cluster.storage.type", "unknown storage \"%s\", expected one "
				  "of: %s", st, list.buf);
		pp_sb_release(&list);
		return rc;
	}
	cl->storage_read_Bps = rd > 0 ? rd * PP_GB : cl->storage->read_Bps_per_node;
	cl->storage_write_Bps = wr > 0 ? wr * PP_GB : cl->storage->write_Bps_per_node;
	return 0;
}

static int parse_calibration(pp_scenario *s, pp_err *err)
{
	const pp_jdoc *d = &s->doc;
	const cJSON *c;
	int rc;
	if ((rc = pp_jget_obj(d, d->root, "", "calibration", false, &c, err)))
		return rc;
	if (!c)
		return 0;
	if ((rc = pp_jcheck_keys(d, c, "calibration", calib_keys, PP_ARRAY_LEN(calib_keys), err)) ||
	    (rc = pp_jget_str(d, c, "calibration", "db", false, s->calib_db, sizeof(s->calib_db), NULL,
			      err)) ||
	    (rc = pp_jget_str(d, c, "calibration", "profile", true, s->calib_profile,
			      sizeof(s->calib_profile), NULL, err)))
		return rc;
	if (s->calib_db[0] && s->calib_db[0] != '/') {
		/* relative to the scenario file */
		char tmp[PATH_MAX], full[PATH_MAX + 600];
		snprintf(tmp, sizeof(tmp), "%s", d->path);
		snprintf(full, sizeof(full), "%s/%s", dirname(tmp), s->calib_db);
		snprintf(s->calib_db, sizeof(s->calib_db), "%.511s", full);
	}
	return 0;
}

static int finish(pp_scenario *s, bool check_layout, pp_err *err)
{
	const pp_jdoc *d = &s->doc;
	pp_parallel *p = &s->parallel;
	pp_training *t = &s->training;
	pp_cluster *c = &s->cluster;
	const char *key = NULL;
	char why[512];
	if (pp_layout_check_heads(&s->model, p, &key, why, sizeof(why)))
		return pp_jdoc_errf(d, err, key, "%s", why);
	if (!(s->given & PP_GIVEN_DP)) {
		int64_t denom = (int64_t)p->tp * p->pp * p->cp;
		if (c->num_gpus % denom)
			return pp_jdoc_errf(d, err, "parallel", "found tensor %d x pipeline %d x context "
					    "%d = %lld, which does not divide cluster.num_gpus = %d; "
					    "expected a divisor (data_parallel_size is derived)",
					    p->tp, p->pp, p->cp, (long long)denom, c->num_gpus);
		p->dp = (int)(c->num_gpus / denom);
	}
	if (t->global_batch_size == 0)
		t->global_batch_size = t->micro_batch_size * p->dp;
	if (t->bucket_bytes == 0)
		t->bucket_bytes = 40e6 * 4.0; /* Megatron DDP default: max(40M, 1M x dp) params */
	if (check_layout && pp_layout_check(&s->model, t, p, c, &key, why, sizeof(why)))
		return pp_jdoc_errf(d, err, key, "%s", why);
	pp_layout_derive(t, p);
	return 0;
}

static int parse_body(pp_scenario *s, const char *name, const char *text, size_t len,
		      const pp_catalog *cat, bool check_layout, pp_err *err)
{
	memset(s, 0, sizeof(*s));
	int rc = pp_jdoc_parse(&s->doc, name, text, len, err);
	if (rc)
		return rc;
	const pp_jdoc *d = &s->doc;
	pp_hash_hex(text, len, s->hash);
	/* Megatron's and vLLM's own names where unambiguous (scenalias.h) */
	if ((rc = pp_scen_aliases(&s->doc, cat, err)) ||
	    (rc = pp_jcheck_keys(d, d->root, "", top_keys, PP_ARRAY_LEN(top_keys), err)))
		return rc;
	bool present;
	if ((rc = pp_jget_str(d, d->root, "", "name", false, s->name, sizeof(s->name), &present, err)))
		return rc;
	if (!present) {
		const char *b = strrchr(name, '/');
		snprintf(s->name, sizeof(s->name), "%s", b ? b + 1 : name);
		char *dot = strrchr(s->name, '.');
		if (dot && !strcmp(dot, ".json"))
			*dot = '\0';
	}
	if ((rc = pp_jget_str(d, d->root, "", "description", false, s->description,
			      sizeof(s->description), NULL, err)) ||
	    (rc = parse_model(s, cat, err)) || (rc = pp_scen_parse_training(s, cat, err)) ||
	    (rc = pp_scen_parse_parallel(s, err)) || (rc = parse_cluster(s, cat, err)) ||
	    (rc = parse_calibration(s, err)) ||
	    (rc = pp_servespec_parse(&s->serve, d, &s->model, &s->cluster, cat, err)) ||
	    (rc = pp_scen_parse_stack(s, cat, err)))
		return rc;
	const cJSON *costs;
	if ((rc = pp_jget_obj(d, d->root, "", "costs", false, &costs, err)) ||
	    (rc = pp_costspec_parse(&s->costs, d, costs, "costs", cat, err)))
		return rc;
	if ((rc = finish(s, check_layout, err)) || (rc = pp_scenario_check_limits(s, err)))
		return rc;
	const cJSON *search;
	if ((rc = pp_jget_obj(d, d->root, "", "search", false, &search, err)))
		return rc;
	return pp_size_spec_parse(&s->search, d, search, "search", cat, err);
}

/* On failure, nothing stays allocated (s is zeroed: releasing it is
 * harmless). */
static int parse(pp_scenario *s, const char *name, const char *text, size_t len,
		 const pp_catalog *cat, bool check_layout, pp_err *err)
{
	int rc = parse_body(s, name, text, len, cat, check_layout, err);
	if (rc) {
		pp_scenario_release(s);
		memset(s, 0, sizeof(*s));
	}
	return rc;
}

int pp_scenario_parse(pp_scenario *s, const char *name, const char *text, size_t len,
		      const pp_catalog *cat, pp_err *err)
{
	return parse(s, name, text, len, cat, true, err);
}

static int load(pp_scenario *s, const char *path, const pp_catalog *cat, bool check_layout,
		pp_err *err)
{
	char *text = NULL;
	size_t len = 0;
	memset(s, 0, sizeof(*s));
	int rc = pp_read_file(path, 16u << 20, &text, &len, err);
	if (rc)
		return rc;
	rc = parse(s, path, text, len, cat, check_layout, err);
	free(text);
	return rc;
}

int pp_scenario_load(pp_scenario *s, const char *path, const pp_catalog *cat, pp_err *err)
{
	return load(s, path, cat, true, err);
}

void pp_scenario_release(pp_scenario *s)
{
	if (!s)
		return;
	pp_costspec_release(&s->costs);
	pp_servespec_release(&s->serve);
	pp_jdoc_release(&s->doc);
}

int pp_scenario_parse_unchecked(pp_scenario *s, const char *name, const char *text, size_t len,
				const pp_catalog *cat, pp_err *err)
{
	return parse(s, name, text, len, cat, false, err);
}

int pp_scenario_load_unchecked(pp_scenario *s, const char *path, const pp_catalog *cat, pp_err *err)
{
	return load(s, path, cat, false, err);
}
