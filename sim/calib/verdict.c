/* verdict.c - see verdict.h. */
#include "calib/verdict.h"
#include "core/fmt.h"
#include "core/store.h"
#include "core/jdoc.h"
#include "core/jsonget.h"
#include "core/jsonout.h"
#include "core/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct thresholds {
	double coll, gemm, peers, memcpy, pcie, storage, host_copy_fraction;
} thresholds;

typedef struct judge {
	cJSON *rows;             /* the verdict's "rows" array */
	int slow;                /* SLOW rows */
	int wrong;               /* WRONG rows */
	const pp_jdoc *doc;
	const cJSON *causes;
} judge;

/* health.json collective_factor.<op>.value, 1 when absent. */
static double coll_factor(const judge *j, const char *op)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(j->doc->root, "collective_factor");
	const cJSON *o = f ? cJSON_GetObjectItemCaseSensitive(f, op) : NULL;
	const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, "value") : NULL;
	return cJSON_IsNumber(v) && v->valuedouble > 0 && v->valuedouble <= 1 ? v->valuedouble : 1.0;
}

static const char *cause_of(const judge *j, const char *key)
{
	return pp_json_get_str(j->causes, key, "");
}

/* One verdict row. expected <= 0 or measured NAN gives "n/a"; so does a
 * ratio below ok_at_least when na_reason says why the figure cannot be
 * judged (it becomes the cause). */
static void row_na(judge *j, const char *check, const char *scope, double measured,
		   double expected, const char *unit, double ok_at_least, const char *basis,
		   const char *cause, const char *na_reason)
{
	double ratio = expected > 0 && isfinite(measured) ? measured / expected : NAN;
	const char *v = !isfinite(ratio) ? "n/a" : ratio >= ok_at_least ? "OK" : na_reason ? "n/a" : "SLOW";
	if (na_reason && !strcmp(v, "n/a"))
		cause = na_reason;
	if (!strcmp(v, "SLOW"))
		j->slow++;
	cJSON *o = pp_json_obj(j->rows, NULL);
	pp_json_str(o, "check", check);
	pp_json_str(o, "scope", scope);
	if (isfinite(measured))
		pp_json_num(o, "measured", measured, 6);
	if (expected > 0)
		pp_json_num(o, "expected", expected, 6);
	pp_json_str(o, "unit", unit);
	if (isfinite(ratio)) {
		pp_json_fixed(o, "ratio", ratio, 4);
		pp_json_num(o, "ok_at_least", ok_at_least, 3);
	}
	pp_json_str(o, "verdict", v);
	pp_json_str(o, "basis", basis);
	pp_json_str(o, "cause", strcmp(v, "SLOW") ? (strcmp(v, "n/a") ? "" : cause) : cause);
}

static void row(judge *j, const char *check, const char *scope, double measured, double expected,
		const char *unit, double ok_at_least, const char *basis, const char *cause)
{
	row_na(j, check, scope, measured, expected, unit, ok_at_least, basis, cause, NULL);
}

static int load_thresholds(const pp_jdoc *d, thresholds *t, pp_err *err)
{
	static const char *const top[] = {"format", "sources", "gpu_names", "thresholds",
					  "collective_factor", "expectations", "default_storage",
					  "causes"};
	const cJSON *th, *ex, *fig;
	int rc;
	if ((rc = pp_jcheck_keys(d, d->root, "", top, PP_ARRAY_LEN(top), err)) ||
	    (rc = pp_jget_obj(d, d->root, "", "thresholds", true, &th, err)) ||
	    (rc = pp_jget_obj(d, d->root, "", "expectations", true, &ex, err)))
		return rc;
	static const char *const names[] = {"collective", "gemm", "gemm_peers", "memcpy", "pcie",
					    "storage"};
	double *dst[] = {&t->coll, &t->gemm, &t->peers, &t->memcpy, &t->pcie, &t->storage};
	for (size_t i = 0; i < PP_ARRAY_LEN(names); i++) {
		if ((rc = pp_jget_obj(d, th, "thresholds", names[i], true, &fig, err)))
			return rc;
		char p[64];
		pp_jpath(p, sizeof(p), "thresholds", names[i]);
		if ((rc = pp_jget_num(d, fig, p, "ok_at_least", true, 0.01, 1.0, dst[i], NULL, err)))
			return rc;
	}
	if ((rc = pp_jget_obj(d, ex, "expectations", "host_copy_fraction", true, &fig, err)) ||
	    (rc = pp_jget_num(d, fig, "expectations.host_copy_fraction", "value", true, 0.01, 1.0,
			      &t->host_copy_fraction, NULL, err)))
		return rc;
	return 0;
}

/* The catalog GPU for a device name, through health.json's gpu_names. */
static const pp_gpu *resolve_gpu(const pp_catalog *cat, const pp_jdoc *d, const char *name)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(d->root, "gpu_names");
	for (const cJSON *e = cJSON_IsArray(arr) ? arr->child : NULL; e; e = e->next) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "match");
		const cJSON *g = cJSON_GetObjectItemCaseSensitive(e, "gpu");
		if (cJSON_IsString(m) && cJSON_IsString(g) && strstr(name, m->valuestring))
			return pp_catalog_gpu(cat, g->valuestring);
	}
	return NULL;
}

/* gpus.json's NVLink link count for a GPU (0 when absent). */
static int sku_links(const pp_catalog *cat, const char *gpu_id)
{
	const pp_jdoc *d = pp_catalog_doc(cat, "gpus");
	const cJSON *arr = d ? cJSON_GetObjectItemCaseSensitive(d->root, "gpus") : NULL;
	for (const cJSON *e = cJSON_IsArray(arr) ? arr->child : NULL; e; e = e->next) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
		if (!cJSON_IsString(id) || strcmp(id->valuestring, gpu_id))
			continue;
		const cJSON *nv = cJSON_GetObjectItemCaseSensitive(e, "nvlink");
		const cJSON *l = nv ? cJSON_GetObjectItemCaseSensitive(nv, "links") : NULL;
		const cJSON *v = l ? cJSON_GetObjectItemCaseSensitive(l, "value") : NULL;
		return cJSON_IsNumber(v) ? (int)v->valuedouble : 0;
	}
	return 0;
}

static bool ok_row(const pp_calib_meas *m)
{
	return m->wrong == PP_CALIB_NULL || m->wrong == 0;
}

static void judge_collectives(judge *j, const pp_catalog *cat, const pp_verdict_host *h,
			      const pp_gpu *g, const thresholds *t, bool links_unknown,
			      const pp_calib_meas *rows, size_t n)
{
	/* distinct (op, nranks) pairs, in the order measured */
	for (size_t i = 0; i < n; i++) {
		const pp_calib_meas *m = &rows[i];
		if (strcmp(m->kind, "collective"))
			continue;
		bool first = true;
		for (size_t k = 0; k < i && first; k++)
			first = !(!strcmp(rows[k].kind, "collective") && !strcmp(rows[k].op, m->op) &&
				  rows[k].nranks == m->nranks);
		if (!first)
			continue;
		/* the best busbw, and the best at the largest and the next size */
		double best = NAN, at_max = NAN, at_prev = NAN;
		int64_t max_b = -1, prev_b = -1;
		for (size_t k = i; k < n; k++) {
			const pp_calib_meas *q = &rows[k];
			if (strcmp(q->kind, "collective") || strcmp(q->op, m->op) ||
			    q->nranks != m->nranks || !ok_row(q))
				continue;
			if (!isfinite(best) || q->busbw_GBps > best)
				best = q->busbw_GBps;
			if (q->bytes > max_b)
				max_b = q->bytes;
		}
		for (size_t k = i; k < n; k++) {
			const pp_calib_meas *q = &rows[k];
			if (strcmp(q->kind, "collective") || strcmp(q->op, m->op) ||
			    q->nranks != m->nranks || !ok_row(q))
				continue;
			if (q->bytes < max_b && q->bytes > prev_b)
				prev_b = q->bytes;
			if (q->bytes == max_b && !(q->busbw_GBps <= at_max))
				at_max = q->busbw_GBps;
		}
		for (size_t k = i; k < n; k++) {
			const pp_calib_meas *q = &rows[k];
			if (!strcmp(q->kind, "collective") && !strcmp(q->op, m->op) &&
			    q->nranks == m->nranks && ok_row(q) && q->bytes == prev_b &&
			    !(q->busbw_GBps <= at_prev))
				at_prev = q->busbw_GBps;
		}
		/* busbw still climbing at the largest size: the sweep stopped too
		 * early to judge the link (nccl-tests' curves flatten by ~1 GiB
		 * per rank on NVLink) */
		char na[200] = "";
		if (isfinite(at_prev) && at_max >= best && at_max > 1.03 * at_prev) {
			char b[32];
			snprintf(na, sizeof(na), "busbw still rising at the largest size measured (%s): "
				 "rerun with a larger -e to judge it",
				 pp_fmt_bytes((double)max_b, b, sizeof(b)));
		}
		char check[64], scope[64], basis[256], cbuf[640];
		snprintf(check, sizeof(check), "%s busbw", m->op);
		double exp = 0;
		const char *cause = "";
		if (h->nhosts > 1) {
			snprintf(scope, sizeof(scope), "%lld GPUs, %d hosts", (long long)m->nranks, h->nhosts);
			snprintf(basis, sizeof(basis), "inter-node: the NICs are not in the catalog; judge "
				 "them with the simulator's fabric");
		} else if (!g) {
			snprintf(scope, sizeof(scope), "%lld GPUs", (long long)m->nranks);
			snprintf(basis, sizeof(basis), "GPU not in the catalog");
		} else if ((h->nvlink_all_pairs || links_unknown) && g->nvlink_gen) {
			const pp_fabric *f = pp_catalog_fabric(cat, g->nvlink_fabric);
			int have = sku_links(cat, g->id), act = have;
			for (int d = 0; d < m->nranks && d < PP_VERDICT_MAX_GPUS; d++)
				if (h->nvlinks_active[d] > 0 && h->nvlinks_active[d] < act)
					act = h->nvlinks_active[d];
			/* judged against the SKU with every link up: a lost link is
			 * exactly the fault this verdict is for */
			double cf = coll_factor(j, m->op);
			exp = g->nvlink_Bps * (f ? f->efficiency : 1.0) * cf / 1e9;
			snprintf(scope, sizeof(scope), "%lld GPUs, NVLink%s", (long long)m->nranks,
				 links_unknown ? "?" : "");
			char links[48];
			if (links_unknown)
				snprintf(links, sizeof(links), "%d links, not checked", have);
			else
				snprintf(links, sizeof(links), "%d links; %d active", have, act);
			snprintf(basis, sizeof(basis), "%s %.0f GB/s per GPU (%s) x %.2f achievable%s",
				 g->nvlink_fabric, g->nvlink_Bps / 1e9, links, f ? f->efficiency : 1.0,
				 cf < 1 ? " x the op's factor" : "");
			if (cf < 1)
				snprintf(basis + strlen(basis), sizeof(basis) - strlen(basis), " %.2f", cf);
			if (act < have) {
				snprintf(cbuf, sizeof(cbuf), "only %d of the SKU's %d NVLink links are active; %s",
					 act, have, cause_of(j, "collective_nvlink"));
				cause = cbuf;
			} else {
				cause = cause_of(j, "collective_nvlink");
			}
		} else {
			const pp_fabric *f = pp_catalog_fabric(cat, g->pcie_fabric);
			exp = f ? f->port_Bps * f->efficiency * coll_factor(j, m->op) / 1e9 : 0;
			snprintf(scope, sizeof(scope), "%lld GPUs, PCIe", (long long)m->nranks);
			snprintf(basis, sizeof(basis), "%s %.1f GB/s x %.2f achievable", g->pcie_fabric,
				 f ? f->port_Bps / 1e9 : 0, f ? f->efficiency : 0);
			cause = cause_of(j, "collective_pcie");
		}
		row_na(j, check, scope, best, exp, "GB/s", t->coll, basis, cause, na[0] ? na : NULL);
	}
}

static void judge_gemm(judge *j, const pp_catalog *cat, const pp_gpu *g, const thresholds *t,
		       const pp_calib_meas *rows, size_t n, int ngpus)
{
	const pp_kernel_params *kp = g ? pp_catalog_kernels(cat, g->arch) : NULL;
	for (int dt = 0; dt < PP_DT_COUNT; dt++) {
		double best = NAN, per[PP_VERDICT_MAX_GPUS];
		for (int d = 0; d < PP_VERDICT_MAX_GPUS; d++)
			per[d] = NAN;
		for (size_t i = 0; i < n; i++) {
			const pp_calib_meas *m = &rows[i];
			if (strcmp(m->kind, "gemm") || strcmp(m->op, "square") ||
			    strcmp(m->dtype, pp_dtype_names[dt]) || !ok_row(m))
				continue;
			if (!isfinite(best) || m->tflops > best)
				best = m->tflops;
			if (m->device >= 0 && m->device < PP_VERDICT_MAX_GPUS &&
			    (!isfinite(per[m->device]) || m->tflops > per[m->device]))
				per[m->device] = m->tflops;
		}
		if (!isfinite(best))
			continue;
		char check[64], basis[200];
		double exp = 0;
		snprintf(check, sizeof(check), "gemm %s", pp_dtype_names[dt]);
		if (g && kp && g->peak_flops[dt] > 0) {
			exp = g->peak_flops[dt] * kp->gemm_peak_fraction[dt] / 1e12;
			snprintf(basis, sizeof(basis), "%s dense peak %.0f x %.3f (kernels.json %s)", g->id,
				 g->peak_flops[dt] / 1e12, kp->gemm_peak_fraction[dt], kp->arch);
		} else {
			snprintf(basis, sizeof(basis), "no %s peak for this GPU in the catalog",
				 pp_dtype_names[dt]);
		}
		row(j, check, "best square", best, exp, "TFLOP/s", t->gemm, basis,
		    cause_of(j, "gemm"));
		if (dt != PP_DT_BF16 || ngpus < 2)
			continue;
		int lo = -1, hi = -1;
		for (int d = 0; d < ngpus && d < PP_VERDICT_MAX_GPUS; d++) {
			if (!isfinite(per[d]))
				continue;
			if (lo < 0 || per[d] < per[lo])
				lo = d;
			if (hi < 0 || per[d] > per[hi])
				hi = d;
		}
		if (lo >= 0 && lo != hi) {
			char scope[64], cause[512];
			snprintf(scope, sizeof(scope), "GPU %d vs GPU %d", lo, hi);
			snprintf(basis, sizeof(basis), "slowest GPU's best bf16 square / the fastest's");
			snprintf(cause, sizeof(cause), "GPU %d: %s", lo, cause_of(j, "gemm_peers"));
			row(j, "gemm bf16 peers", scope, per[lo], per[hi], "TFLOP/s", t->peers, basis, cause);
		}
	}
}

/* The best GB/s of a kind at its largest size: smaller device copies fit
 * in the L2 cache (50 MB on an H100/H200) and would overstate HBM. */
static double best_of(const pp_calib_meas *rows, size_t n, const char *kind)
{
	double best = NAN;
	int64_t max_b = PP_CALIB_NULL; /* rows without a size compare equal */
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].kind, kind) && ok_row(&rows[i]) && rows[i].bytes > max_b)
			max_b = rows[i].bytes;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].kind, kind) && ok_row(&rows[i]) && rows[i].bytes == max_b &&
		    (!isfinite(best) || rows[i].GBps > best))
			best = rows[i].GBps;
	return best;
}

static int judge_rest(judge *j, const pp_catalog *cat, const pp_gpu *g, const thresholds *t,
		      const pp_verdict_opts *o, const pp_calib_meas *rows, size_t n, pp_err *err)
{
	char basis[200];
	const pp_kernel_params *kp = g ? pp_catalog_kernels(cat, g->arch) : NULL;
	double v = best_of(rows, n, "memcpy");
	if (isfinite(v)) {
		double exp = g && kp ? g->mem_Bps * kp->mem_bw_fraction / 1e9 : 0;
		snprintf(basis, sizeof(basis), "HBM %.2f TB/s x %.2f (kernels.json)", g ? g->mem_Bps / 1e12 : 0,
			 kp ? kp->mem_bw_fraction : 0);
		row(j, "memcpy (read+write)", "largest copy", v, exp, "GB/s", t->memcpy, basis,
		    cause_of(j, "memcpy"));
	}
	const pp_fabric *pf = g ? pp_catalog_fabric(cat, g->pcie_fabric) : NULL;
	const char *hk[] = {"h2d", "d2h"};
	for (int i = 0; i < 2; i++) {
		v = best_of(rows, n, hk[i]);
		if (!isfinite(v))
			continue;
		char check[32];
		snprintf(check, sizeof(check), "%s (pinned)", hk[i]);
		snprintf(basis, sizeof(basis), "%s %.1f GB/s x %.2f (health.json)", pf ? pf->id : "PCIe",
			 pf ? pf->port_Bps / 1e9 : 0, t->host_copy_fraction);
		row(j, check, "largest copy", v, pf ? pf->port_Bps * t->host_copy_fraction / 1e9 : 0,
		    "GB/s", t->pcie, basis, cause_of(j, "pcie"));
	}
	const char *sid = o && o->storage_id ? o->storage_id : NULL;
	const cJSON *ds = cJSON_GetObjectItemCaseSensitive(j->doc->root, "default_storage");
	if (!sid && cJSON_IsString(ds))
		sid = ds->valuestring;
	const pp_storage *sto = sid ? pp_catalog_storage(cat, sid) : NULL;
	if (sid && !sto) {
		size_t nids;
		const char *const *ids = pp_catalog_ids(cat, "storage", &nids);
		const char *dym = pp_did_you_mean(sid, ids, nids);
		return pp_errf(err, PP_EINPUT, "--storage-expect: no storage tier '%s' in storage.json%s%s%s",
			       sid, dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
	}
	const char *sk[] = {"storage_write", "storage_read"};
	for (int i = 0; i < 2; i++) {
		v = best_of(rows, n, sk[i]);
		if (!isfinite(v))
			continue;
		double exp = sto ? (i ? sto->read_Bps_per_node : sto->write_Bps_per_node) / 1e9 : 0;
		char check[48];
		snprintf(check, sizeof(check), "%s", sk[i]);
		snprintf(basis, sizeof(basis), "storage.json %s per node", sto ? sto->id : "?");
		row(j, check, sto ? sto->id : "", v, exp, "GB/s", t->storage, basis, cause_of(j, "storage"));
	}
	return 0;
}

int pp_verdict_judge(const pp_catalog *cat, const pp_verdict_host *host, const pp_verdict_opts *o,
		  const pp_calib_meas *rows, size_t n, pp_sb *json, int *slow, pp_err *err)
{
	pp_jdoc d = {0};
	thresholds t;
	judge j = {0};
	cJSON *root = NULL;
	int rc;
	char *path = pp_path_join(pp_catalog_dir(cat), "health.json");
	if ((rc = pp_jdoc_load(&d, path, err)) || (rc = load_thresholds(&d, &t, err)))
		goto out;
	j.doc = &d;
	j.causes = cJSON_GetObjectItemCaseSensitive(d.root, "causes");
	const pp_gpu *g = NULL;
	if (o && o->gpu_sku) {
		if (!(g = pp_catalog_gpu(cat, o->gpu_sku))) {
			size_t nids;
			const char *const *ids = pp_catalog_ids(cat, "gpus", &nids);
			const char *dym = pp_did_you_mean(o->gpu_sku, ids, nids);
			rc = pp_errf(err, PP_EINPUT, "--gpu-sku: no GPU '%s' in gpus.json%s%s%s", o->gpu_sku,
				     dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
			goto out;
		}
	} else {
		g = resolve_gpu(cat, &d, host->gpu_name);
	}
	root = pp_json_obj(NULL, NULL);
	pp_json_str(root, "format", "podplan-verdict/1");
	pp_json_str(root, "gpu", g ? g->id : "");
	pp_json_str(root, "gpu_name", host->gpu_name);
	/* the file within the catalog, not this machine's path to it */
	pp_json_str(root, "thresholds", "models/health.json");
	j.rows = pp_json_arr(root, "rows");
	if (!g) {
		char cause[256];
		snprintf(cause, sizeof(cause), "GPU '%s' is not mapped in health.json gpu_names; pass "
			 "--gpu-sku ID (see 'podplan catalog gpus')", host->gpu_name);
		row(&j, "GPU SKU", host->gpu_name, NAN, 0, "", 1, "", cause);
	}
	judge_collectives(&j, cat, host, g, &t, o && o->links_unknown, rows, n);
	judge_gemm(&j, cat, g, &t, rows, n, host->ngpus);
	if ((rc = judge_rest(&j, cat, g, &t, o, rows, n, err)))
		goto out;
	int64_t wrong = 0;
	for (size_t i = 0; i < n; i++)
		if (rows[i].wrong != PP_CALIB_NULL && rows[i].wrong > 0)
			wrong += rows[i].wrong;
	if (wrong) {
		char scope[64];
		snprintf(scope, sizeof(scope), "%lld wrong elements", (long long)wrong);
		cJSON *w = pp_json_obj(j.rows, NULL);
		pp_json_str(w, "check", "correctness");
		pp_json_str(w, "scope", scope);
		pp_json_int(w, "measured", wrong);
		pp_json_str(w, "unit", "");
		pp_json_str(w, "verdict", "WRONG");
		pp_json_str(w, "basis", "every checked element must match");
		pp_json_str(w, "cause", cause_of(&j, "wrong"));
		j.wrong++;
	}
	pp_json_int(root, "slow", j.slow);
	pp_json_int(root, "wrong", j.wrong);
	pp_json_print(root, false, json);
	if (slow)
		*slow = j.slow + j.wrong;
out:
	cJSON_Delete(root);
	free(path);
	pp_jdoc_release(&d);
	return rc;
}

void pp_verdict_host_from_run(const pp_calib_run *r, pp_verdict_host *h, bool *links_known)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->gpu_name, sizeof(h->gpu_name), "%s", r->gpu_name ? r->gpu_name : "?");
	snprintf(h->host, sizeof(h->host), "%s", r->host ? r->host : "?");
	h->ngpus = r->gpu_count != PP_CALIB_NULL ? (int)r->gpu_count : 0;
	h->nhosts = 1;
	for (const char *p = r->host; p && *p; p++)
		h->nhosts += *p == ',';
	for (int i = 0; i < PP_VERDICT_MAX_GPUS; i++)
		h->nvlinks_active[i] = -1;
	*links_known = false;
	cJSON *j = r->topology_json ? cJSON_Parse(r->topology_json) : NULL;
	const cJSON *links = j ? cJSON_GetObjectItemCaseSensitive(j, "links") : NULL;
	const cJSON *gpus = j ? cJSON_GetObjectItemCaseSensitive(j, "gpus") : NULL;
	if (cJSON_IsArray(links) && cJSON_GetArraySize(links) > 1) {
		*links_known = true;
		h->nvlink_all_pairs = true;
		int a = 0;
		for (const cJSON *row = links->child; row; row = row->next, a++) {
			int b = 0;
			for (const cJSON *c = row->child; c; c = c->next, b++) {
				const char *v = cJSON_IsString(c) ? c->valuestring : "";
				if (a != b && strncmp(v, "NV", 2))
					h->nvlink_all_pairs = false;
				if (!strcmp(v, "NET"))
					h->nhosts = 2;
			}
		}
	}
	int i = 0;
	for (const cJSON *g = cJSON_IsArray(gpus) ? gpus->child : NULL; g && i < PP_VERDICT_MAX_GPUS;
	     g = g->next, i++) {
		const cJSON *nv = cJSON_GetObjectItemCaseSensitive(g, "nvlinks");
		h->nvlinks_active[i] = cJSON_IsNumber(nv) ? (int)nv->valuedouble : -1;
	}
	cJSON_Delete(j);
}

int pp_verdict_of_run(pp_store *st, const pp_catalog *cat, int64_t id, const pp_verdict_opts *o,
		      pp_sb *json, int *slow, pp_verdict_host *host, bool *links_known, pp_err *err)
{
	pp_calib_run r;
	pp_calib_meas *rows = NULL;
	size_t n = 0;
	pp_verdict_opts vo = o ? *o : (pp_verdict_opts){0};
	int rc;
	pp_calib_run_init(&r);
	if ((rc = pp_calibdb_get_run(st, id, &r, err)) ||
	    (rc = pp_calibdb_query(st, id, NULL, &rows, &n, err)))
		goto out;
	pp_verdict_host_from_run(&r, host, links_known);
	vo.links_unknown = !*links_known;
	rc = pp_verdict_judge(cat, host, &vo, rows, n, json, slow, err);
out:
	pp_calib_meas_free(rows, n);
	pp_calib_run_release(&r);
	return rc;
}
