/* profile.c - see profile.h. */
#include "calib/profile.h"
#include "calib/fit.h"
#include "core/jdoc.h"
#include "core/jsonget.h"
#include "core/jsonout.h"
#include "core/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const scope_names[PP_SCOPE_COUNT] = {"intra_node", "inter_node"};

/* A collective's fit: its key figures and its pieces, the open-ended last
 * piece's hi_bytes written as 1e300 (JSON has no infinity). */
static void fit_json(cJSON *arr, const pp_profile *p, int i)
{
	const pp_coll_fit *f = &p->fits[i];
	cJSON *o = pp_json_obj(arr, NULL);
	pp_json_str(o, "op", pp_coll_names[f->op]);
	pp_json_str(o, "scope", scope_names[f->scope]);
	pp_json_int(o, "nranks", f->nranks);
	pp_json_num(o, "rms_rel_residual", p->fit_rms[i], 6);
	cJSON *pieces = pp_json_arr(o, "pieces");
	for (int k = 0; k < f->npieces; k++) {
		const pp_fit_piece_ci *c = &p->fit_ci[i][k];
		double hi = f->piece[k].hi_bytes;
		cJSON *q = pp_json_obj(pieces, NULL);
		pp_json_num(q, "lo_bytes", f->piece[k].lo_bytes, 17);
		pp_json_num(q, "hi_bytes", isfinite(hi) ? hi : 1e300, 17);
		pp_json_num(q, "alpha_us", f->piece[k].alpha_s * 1e6, 9);
		pp_json_num(q, "alpha_ci_us", c->alpha_ci_s * 1e6, 9);
		pp_json_num(q, "busbw_GBps", f->piece[k].busbw_Bps / PP_GB, 9);
		pp_json_num(q, "busbw_ci_GBps", c->busbw_ci_Bps / PP_GB, 9);
		pp_json_int(q, "points", c->points);
	}
}

/* "gemm_sustained", only where some dtype has it (profiles before it
 * read and print as they did). */
static void sustained_json(cJSON *o, const pp_profile *p)
{
	cJSON *sj = NULL;
	for (int dt = 0; dt < PP_DT_COUNT; dt++) {
		if (!p->has_sustained[dt])
			continue;
		if (!sj)
			sj = pp_json_obj(o, "gemm_sustained");
		const pp_profile_sustained *s = &p->sustained[dt];
		char names[160];
		cJSON *g = pp_json_obj(sj, pp_dtype_names[dt]);
		pp_json_num(g, "fraction", p->gemm_sustained_fraction[dt], 6);
		pp_json_num(g, "ci", p->gemm_sustained_ci[dt], 6);
		pp_json_num(g, "burst_TFLOPs", s->burst_flops / 1e12, 6);
		pp_json_num(g, "sustained_TFLOPs", s->sustained_flops / 1e12, 6);
		pp_json_num(g, "sm_clock_MHz", s->sm_clock_hz / 1e6, 6);
		pp_json_num(g, "first_sm_clock_MHz", s->first_sm_clock_hz / 1e6, 6);
		pp_json_num(g, "power_W", s->power_w, 6);
		pp_json_num(g, "power_limit_W", s->power_limit_w, 6);
		pp_json_num(g, "temp_C", s->temp_c, 6);
		pp_json_num(g, "seconds", s->seconds, 6);
		pp_json_str(g, "throttle_reasons", pp_fit_reason_names(s->reasons, names, sizeof(names)));
		pp_json_int(g, "reasons_mask", s->reasons);
		pp_json_int(g, "gpus", s->gpus);
		pp_json_int(g, "points", s->points);
		cJSON *shape = pp_json_arr(g, "shape");
		pp_json_int(shape, NULL, s->m);
		pp_json_int(shape, NULL, s->n);
		pp_json_int(shape, NULL, s->k);
	}
}

/* "gemm_small_m", only where some dtype has a curve. */
static void small_m_json(cJSON *o, const pp_profile *p)
{
	cJSON *sj = NULL;
	for (int dt = 0; dt < PP_DT_COUNT; dt++) {
		if (p->gemm_small_m_n[dt] <= 0)
			continue;
		if (!sj)
			sj = pp_json_obj(o, "gemm_small_m");
		cJSON *g = pp_json_obj(sj, pp_dtype_names[dt]);
		pp_json_num(g, "peak_TFLOPs", p->small_m_peak_flops[dt] / 1e12, 6);
		pp_json_num(g, "hbm_GBps", p->small_m_hbm_Bps[dt] / PP_GB, 6);
		cJSON *pts = pp_json_arr(g, "points");
		for (int i = 0; i < p->gemm_small_m_n[dt]; i++) {
			const pp_small_m_point *q = &p->gemm_small_m[dt][i];
			cJSON *e = pp_json_obj(pts, NULL);
			pp_json_num(e, "m", q->m, 9);
			pp_json_num(e, "roofline_fraction", q->roofline_fraction, 6);
			pp_json_num(e, "q25", q->q25, 6);
			pp_json_num(e, "q75", q->q75, 6);
			pp_json_num(e, "median_us", q->median_s * 1e6, 6);
			pp_json_num(e, "median_GBps", q->median_Bps / PP_GB, 6);
			pp_json_int(e, "shapes", q->shapes);
		}
	}
}

static void sustained_from_json(pp_profile *p, const cJSON *r)
{
	const cJSON *sj = cJSON_GetObjectItemCaseSensitive(r, "gemm_sustained");
	for (int dt = 0; sj && dt < PP_DT_COUNT; dt++) {
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(sj, pp_dtype_names[dt]);
		if (!e || !isfinite(pp_json_get_num(e, "fraction", NAN)))
			continue;
		pp_profile_sustained *s = &p->sustained[dt];
		p->has_sustained[dt] = true;
		p->gemm_sustained_fraction[dt] = pp_json_get_num(e, "fraction", NAN);
		p->gemm_sustained_ci[dt] = pp_json_get_num(e, "ci", NAN);
		s->burst_flops = pp_json_get_num(e, "burst_TFLOPs", NAN) * 1e12;
		s->sustained_flops = pp_json_get_num(e, "sustained_TFLOPs", NAN) * 1e12;
		s->sm_clock_hz = pp_json_get_num(e, "sm_clock_MHz", NAN) * 1e6;
		s->first_sm_clock_hz = pp_json_get_num(e, "first_sm_clock_MHz", NAN) * 1e6;
		s->power_w = pp_json_get_num(e, "power_W", NAN);
		s->power_limit_w = pp_json_get_num(e, "power_limit_W", NAN);
		s->temp_c = pp_json_get_num(e, "temp_C", NAN);
		s->seconds = pp_json_get_num(e, "seconds", NAN);
		s->reasons = (int64_t)pp_json_get_num(e, "reasons_mask", -1);
		s->gpus = (int)pp_json_get_num(e, "gpus", 0);
		s->points = (int)pp_json_get_num(e, "points", 0);
		const cJSON *sh = cJSON_GetObjectItemCaseSensitive(e, "shape");
		if (cJSON_GetArraySize(sh) == 3) {
			s->m = (int64_t)cJSON_GetArrayItem(sh, 0)->valuedouble;
			s->n = (int64_t)cJSON_GetArrayItem(sh, 1)->valuedouble;
			s->k = (int64_t)cJSON_GetArrayItem(sh, 2)->valuedouble;
		}
	}
}

static void small_m_from_json(pp_profile *p, const cJSON *r)
{
	const cJSON *sj = cJSON_GetObjectItemCaseSensitive(r, "gemm_small_m");
	for (int dt = 0; sj && dt < PP_DT_COUNT; dt++) {
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(sj, pp_dtype_names[dt]);
		if (!e)
			continue;
		p->small_m_peak_flops[dt] = pp_json_get_num(e, "peak_TFLOPs", NAN) * 1e12;
		p->small_m_hbm_Bps[dt] = pp_json_get_num(e, "hbm_GBps", NAN) * PP_GB;
		const cJSON *pts = cJSON_GetObjectItemCaseSensitive(e, "points");
		for (const cJSON *q = pts ? pts->child : NULL;
		     q && p->gemm_small_m_n[dt] < PP_PROFILE_MAX_SMALL_M; q = q->next) {
			pp_small_m_point *pt = &p->gemm_small_m[dt][p->gemm_small_m_n[dt]];
			pt->m = pp_json_get_num(q, "m", NAN);
			pt->roofline_fraction = pp_json_get_num(q, "roofline_fraction", NAN);
			if (!(pt->m > 0) || !(pt->roofline_fraction > 0))
				continue;
			pt->q25 = pp_json_get_num(q, "q25", NAN);
			pt->q75 = pp_json_get_num(q, "q75", NAN);
			pt->median_s = pp_json_get_num(q, "median_us", NAN) * 1e-6;
			pt->median_Bps = pp_json_get_num(q, "median_GBps", NAN) * PP_GB;
			pt->shapes = (int)pp_json_get_num(q, "shapes", 0);
			p->gemm_small_m_n[dt]++;
		}
	}
}

double pp_profile_small_m_fraction(const pp_profile *p, pp_dtype dt, double m)
{
	int n = p->gemm_small_m_n[dt];
	const pp_small_m_point *q = p->gemm_small_m[dt];
	if (n <= 0 || !(m > 0))
		return NAN;
	if (m <= q[0].m)
		return q[0].roofline_fraction;
	if (m >= q[n - 1].m)
		return q[n - 1].roofline_fraction;
	int i = 1;
	while (i < n - 1 && q[i].m < m)
		i++;
	double x0 = log2(q[i - 1].m), x1 = log2(q[i].m), w = (log2(m) - x0) / (x1 - x0);
	return q[i - 1].roofline_fraction + w * (q[i].roofline_fraction - q[i - 1].roofline_fraction);
}

char *pp_profile_to_json(const pp_profile *p)
{
	cJSON *o = pp_json_obj(NULL, NULL);
	pp_json_str(o, "format", "podplan-profile/1");
	pp_json_str(o, "name", p->name);
	pp_json_int(o, "version", p->version);
	pp_json_str(o, "gpu", p->gpu);
	cJSON *runs = pp_json_arr(o, "runs");
	for (int i = 0; i < p->nruns; i++)
		pp_json_int(runs, NULL, p->runs[i]);
	cJSON *colls = pp_json_arr(o, "collectives");
	for (int i = 0; i < p->nfits; i++)
		fit_json(colls, p, i);
	cJSON *gemm = pp_json_obj(o, "gemm");
	for (int dt = 0; dt < PP_DT_COUNT; dt++) {
		if (!p->has_gemm[dt])
			continue;
		cJSON *g = pp_json_obj(gemm, pp_dtype_names[dt]);
		pp_json_num(g, "peak_fraction", p->gemm_frac[dt], 6);
		pp_json_num(g, "ci", p->gemm_frac_ci[dt], 6);
		pp_json_num(g, "k0", p->gemm_k0[dt], 6);
		pp_json_num(g, "k0_ci", p->gemm_k0_ci[dt], 6);
		pp_json_int(g, "points", p->gemm_points[dt]);
		pp_json_num(g, "rms_rel_residual", p->gemm_rms[dt], 6);
	}
	if (p->has_mem) {
		cJSON *m = pp_json_obj(o, "memory");
		pp_json_num(m, "GBps", p->mem_Bps / PP_GB, 6);
		pp_json_num(m, "ci_GBps", p->mem_ci_Bps / PP_GB, 6);
		pp_json_int(m, "points", p->mem_points);
	}
	if (p->has_overlap) {
		cJSON *v = pp_json_obj(o, "overlap");
		pp_json_num(v, "efficiency", p->overlap_eff, 6);
		pp_json_num(v, "ci", p->overlap_ci, 6);
		pp_json_int(v, "points", p->overlap_points);
	}
	sustained_json(o, p);
	small_m_json(o, p);
	return pp_json_finish(o, true);
}

/* The figures a profile may hold: wide of any real pod, narrow enough that
 * the engine's times stay finite (a busbw of 1e-300 would make a
 * collective outlast the int64 nanosecond clock). */
#define BUSBW_MIN_GBPS 1e-3
#define BUSBW_MAX_GBPS 1e6
#define ALPHA_MAX_US 1e7
#define MAX_POINTS 100000000
#define MAX_RANKS 4194304

/* A number at parent.key into *out: absent or null (an undefined figure, as
 * the writer stores it) leaves def; else it must lie in [min, max]. */
static int fig(const pp_jdoc *d, const cJSON *o, const char *parent, const char *key, double min,
	       double max, double def, double *out, pp_err *err)
{
	*out = def;
	if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, key)))
		return 0;
	return pp_jget_num(d, o, parent, key, false, min, max, out, NULL, err);
}

/* A whole number at parent.key into *out (def when absent). */
static int whole(const pp_jdoc *d, const cJSON *o, const char *parent, const char *key,
		 int64_t min, int64_t max, int def, int *out, pp_err *err)
{
	int64_t v = def;
	int rc = pp_jget_int(d, o, parent, key, false, min, max, &v, NULL, err);
	*out = (int)v;
	return rc;
}

static int piece_from_json(const pp_jdoc *d, const cJSON *q, const char *path, pp_coll_fit *f,
			   pp_fit_piece_ci *ci, pp_err *err)
{
	int k = f->npieces, rc;
	double hi, a, bw, aci, bwci;
	if (!cJSON_IsObject(q))
		return pp_jdoc_errf(d, err, path, "expected an object {\"lo_bytes\", \"hi_bytes\", "
				    "\"alpha_us\", \"busbw_GBps\", ...}");
	if ((rc = pp_jget_num(d, q, path, "lo_bytes", true, 0, 1e300, &f->piece[k].lo_bytes, NULL,
			      err)) ||
	    (rc = pp_jget_num(d, q, path, "hi_bytes", true, 0, 1e300, &hi, NULL, err)) ||
	    (rc = pp_jget_num(d, q, path, "alpha_us", true, 0, ALPHA_MAX_US, &a, NULL, err)) ||
	    /* null: the fit's slope was not positive (times flat in the
	     * size), the writer's infinite busbw */
	    (rc = fig(d, q, path, "busbw_GBps", BUSBW_MIN_GBPS, BUSBW_MAX_GBPS, INFINITY, &bw, err)) ||
	    (rc = fig(d, q, path, "alpha_ci_us", 0, 1e300, NAN, &aci, err)) ||
	    (rc = fig(d, q, path, "busbw_ci_GBps", 0, 1e300, NAN, &bwci, err)) ||
	    (rc = whole(d, q, path, "points", 0, MAX_POINTS, 0, &ci->points, err)))
		return rc;
	f->piece[k].hi_bytes = hi >= 1e300 ? INFINITY : hi;
	f->piece[k].alpha_s = a * 1e-6;
	f->piece[k].busbw_Bps = bw * PP_GB;
	ci->alpha_ci_s = aci * 1e-6;
	ci->busbw_ci_Bps = bwci * PP_GB;
	f->npieces++;
	return 0;
}

/* collectives[i]: skipped (0) when its op is not one podplan models. */
static int fit_from_json(const pp_jdoc *d, const cJSON *c, const char *path, pp_profile *p,
			 pp_err *err)
{
	pp_coll_fit *f = &p->fits[p->nfits];
	char pp_[128];
	int rc;
	memset(f, 0, sizeof(*f));
	const cJSON *op = cJSON_GetObjectItemCaseSensitive(c, "op");
	const cJSON *sc = cJSON_GetObjectItemCaseSensitive(c, "scope");
	int o = -1;
	for (int i = 0; cJSON_IsString(op) && i < PP_COLL_COUNT; i++)
		if (!strcmp(op->valuestring, pp_coll_names[i]))
			o = i;
	if (o < 0)
		return 0;
	f->op = (pp_coll)o;
	f->scope = cJSON_IsString(sc) && !strcmp(sc->valuestring, "inter_node") ? PP_SCOPE_INTER
										: PP_SCOPE_INTRA;
	if ((rc = whole(d, c, path, "nranks", 1, MAX_RANKS, 0, &f->nranks, err)) ||
	    (rc = fig(d, c, path, "rms_rel_residual", 0, 1e300, NAN, &p->fit_rms[p->nfits], err)))
		return rc;
	if (!f->nranks)
		return pp_jdoc_errf(d, err, path, "no \"nranks\", expected the GPU count of the fit");
	const cJSON *ps = cJSON_GetObjectItemCaseSensitive(c, "pieces");
	int k = 0;
	for (const cJSON *q = ps ? ps->child : NULL; q && f->npieces < PP_FIT_PIECES; q = q->next, k++) {
		char qp[160];
		snprintf(pp_, sizeof(pp_), "%s.pieces", path);
		pp_jpath_idx(qp, sizeof(qp), pp_, k);
		if ((rc = piece_from_json(d, q, qp, f, &p->fit_ci[p->nfits][f->npieces], err)))
			return rc;
	}
	if (f->npieces)
		p->nfits++;
	return 0;
}

static int gemm_from_json(const pp_jdoc *d, const cJSON *g, pp_profile *p, pp_err *err)
{
	for (int dt = 0; dt < PP_DT_COUNT; dt++) {
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(g, pp_dtype_names[dt]);
		char path[64];
		int rc;
		if (!e)
			continue;
		snprintf(path, sizeof(path), "gemm.%s", pp_dtype_names[dt]);
		p->has_gemm[dt] = true;
		if ((rc = fig(d, e, path, "peak_fraction", 0, 2, NAN, &p->gemm_frac[dt], err)) ||
		    (rc = fig(d, e, path, "ci", 0, 1e300, NAN, &p->gemm_frac_ci[dt], err)) ||
		    (rc = fig(d, e, path, "k0", 0, 1e9, 0, &p->gemm_k0[dt], err)) ||
		    (rc = fig(d, e, path, "k0_ci", 0, 1e300, 0, &p->gemm_k0_ci[dt], err)) ||
		    (rc = whole(d, e, path, "points", 0, MAX_POINTS, 0, &p->gemm_points[dt], err)) ||
		    (rc = fig(d, e, path, "rms_rel_residual", 0, 1e300, NAN, &p->gemm_rms[dt], err)))
			return rc;
	}
	return 0;
}

int pp_profile_from_json(pp_profile *p, const char *name, const char *json, pp_err *err)
{
	memset(p, 0, sizeof(*p));
	pp_jdoc d;
	memset(&d, 0, sizeof(d));
	if (!json) /* a profiles row without params_json */
		return pp_errf(err, PP_EINPUT, "%s: the profile has no parameters (params_json is "
			       "empty), expected podplan-profile/1 JSON", name);
	int rc = pp_jdoc_parse(&d, name, json, strlen(json), err);
	if (rc)
		goto out;
	const cJSON *r = d.root;
	const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(r, "format");
	if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, "podplan-profile/1")) {
		rc = pp_jdoc_errf(&d, err, "format", "expected \"podplan-profile/1\"");
		goto out;
	}
	if ((rc = pp_jget_str(&d, r, "", "name", true, p->name, sizeof(p->name), NULL, err)) ||
	    (rc = pp_jget_str(&d, r, "", "gpu", false, p->gpu, sizeof(p->gpu), NULL, err)) ||
	    (rc = whole(&d, r, "", "version", 0, 0x7fffffff, 0, &p->version, err)))
		goto out;
	const cJSON *runs = cJSON_GetObjectItemCaseSensitive(r, "runs");
	int i = 0;
	for (const cJSON *e = runs ? runs->child : NULL; e && p->nruns < PP_PROFILE_MAX_RUNS;
	     e = e->next, i++) {
		char path[32];
		pp_jpath_idx(path, sizeof(path), "runs", i);
		double v = cJSON_IsNumber(e) ? e->valuedouble : NAN;
		if (!(v >= 1 && v <= 9007199254740992.0) || v != floor(v)) {
			rc = pp_jdoc_errf(&d, err, path, "expected a calibration run id (a positive whole "
					  "number)");
			goto out;
		}
		p->runs[p->nruns++] = (int64_t)v;
	}
	const cJSON *cs = cJSON_GetObjectItemCaseSensitive(r, "collectives");
	i = 0;
	for (const cJSON *c = cs ? cs->child : NULL; c && p->nfits < PP_HW_MAX_FITS; c = c->next, i++) {
		char path[48];
		if ((rc = fit_from_json(&d, c, pp_jpath_idx(path, sizeof(path), "collectives", i), p,
					err)))
			goto out;
	}
	if ((rc = gemm_from_json(&d, cJSON_GetObjectItemCaseSensitive(r, "gemm"), p, err)))
		goto out;
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(r, "memory");
	if (m) {
		p->has_mem = true;
		double gb, ci;
		if ((rc = fig(&d, m, "memory", "GBps", BUSBW_MIN_GBPS, BUSBW_MAX_GBPS, NAN, &gb, err)) ||
		    (rc = fig(&d, m, "memory", "ci_GBps", 0, 1e300, NAN, &ci, err)) ||
		    (rc = whole(&d, m, "memory", "points", 0, MAX_POINTS, 0, &p->mem_points, err)))
			goto out;
		p->mem_Bps = gb * PP_GB;
		p->mem_ci_Bps = ci * PP_GB;
	}
	const cJSON *ov = cJSON_GetObjectItemCaseSensitive(r, "overlap");
	if (ov) {
		double eff;
		if ((rc = fig(&d, ov, "overlap", "efficiency", 0, 1, NAN, &eff, err)))
			goto out;
		if (isfinite(eff)) {
			p->has_overlap = true;
			p->overlap_eff = eff;
			if ((rc = fig(&d, ov, "overlap", "ci", 0, 1e300, NAN, &p->overlap_ci, err)) ||
			    (rc = whole(&d, ov, "overlap", "points", 0, MAX_POINTS, 0, &p->overlap_points,
					err)))
				goto out;
		}
	}
	sustained_from_json(p, r);
	small_m_from_json(p, r);
out:
	pp_jdoc_release(&d);
	return rc;
}

/* The profiles row's run_ids ([1,2]) and residuals_json ({"collectives":
 * [{"op", "nranks", "rms_rel"}], "gemm": {"bf16": rms}}), compact. */
static char *runs_json(const pp_profile *p)
{
	cJSON *runs = pp_json_arr(NULL, NULL);
	for (int i = 0; i < p->nruns; i++)
		pp_json_int(runs, NULL, p->runs[i]);
	return pp_json_finish(runs, false);
}

static char *residuals_json(const pp_profile *p)
{
	cJSON *o = pp_json_obj(NULL, NULL);
	cJSON *colls = pp_json_arr(o, "collectives");
	for (int i = 0; i < p->nfits; i++) {
		cJSON *c = pp_json_obj(colls, NULL);
		pp_json_str(c, "op", pp_coll_names[p->fits[i].op]);
		pp_json_int(c, "nranks", p->fits[i].nranks);
		pp_json_num(c, "rms_rel", p->fit_rms[i], 6);
	}
	cJSON *gemm = pp_json_obj(o, "gemm");
	for (int dt = 0; dt < PP_DT_COUNT; dt++)
		if (p->has_gemm[dt])
			pp_json_num(gemm, pp_dtype_names[dt], p->gemm_rms[dt], 6);
	return pp_json_finish(o, false);
}

int pp_profile_save(pp_store *st, pp_profile *p, pp_err *err)
{
	sqlite3 *db = pp_store_db(st);
	sqlite3_stmt *q = NULL;
	int rc = 0;
	char *json = NULL, *runs = NULL, *resid = NULL;
	if (sqlite3_prepare_v2(db, "SELECT coalesce(max(version), 0) FROM profiles WHERE name = ?", -1,
			       &q, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(q, 1, p->name, -1, SQLITE_STATIC);
	p->version = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int(q, 0) + 1 : 1;
	sqlite3_finalize(q);
	q = NULL;
	/* the stored JSON carries the version just assigned */
	json = pp_profile_to_json(p);
	runs = runs_json(p);
	resid = residuals_json(p);
	if (sqlite3_prepare_v2(db, "INSERT INTO profiles(name, version, created_at, run_ids, "
				   "params_json, residuals_json) VALUES (?, ?, ?, ?, ?, ?)", -1, &q,
			       NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(q, 1, p->name, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 2, p->version);
	sqlite3_bind_double(q, 3, pp_now_s());
	sqlite3_bind_text(q, 4, runs, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 5, json, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 6, resid, -1, SQLITE_STATIC);
	if (sqlite3_step(q) != SQLITE_DONE)
		goto dberr;
	goto out;
dberr:
	rc = pp_errf(err, PP_EDB, "%s: %s", pp_store_path(st), sqlite3_errmsg(db));
out:
	sqlite3_finalize(q);
	free(json);
	free(runs);
	free(resid);
	return rc;
}

int pp_profile_load(pp_store *st, const char *name, int version, pp_profile *p, pp_err *err)
{
	sqlite3 *db = pp_store_db(st);
	sqlite3_stmt *q = NULL;
	int rc = 0;
	const char *sql = version > 0 ? "SELECT params_json FROM profiles WHERE name = ? AND version = ?"
				      : "SELECT params_json FROM profiles WHERE name = ? ORDER BY version "
					"DESC LIMIT 1";
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
		rc = pp_errf(err, PP_EDB, "%s: %s", pp_store_path(st), sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
	if (version > 0)
		sqlite3_bind_int(q, 2, version);
	if (sqlite3_step(q) != SQLITE_ROW) {
		rc = pp_errf(err, PP_ENOTFOUND, "%s: no calibration profile \"%s\"%s (podplan fit "
			     "--list shows the profiles)", pp_store_path(st), name,
			     version > 0 ? " at that version" : "");
		goto out;
	}
	rc = pp_profile_from_json(p, name, (const char *)sqlite3_column_text(q, 0), err);
out:
	sqlite3_finalize(q);
	return rc;
}

void pp_profile_apply(pp_hw *hw, const pp_profile *p)
{
	snprintf(hw->profile, sizeof(hw->profile), "%s v%d", p->name, p->version);
	char runs[96] = "";
	for (int i = 0; i < p->nruns && strlen(runs) < 80; i++)
		snprintf(runs + strlen(runs), sizeof(runs) - strlen(runs), "%s%lld", i ? "," : "",
			 (long long)p->runs[i]);
	hw->nfits = 0;
	for (int i = 0; i < p->nfits && hw->nfits < PP_HW_MAX_FITS; i++)
		hw->fits[hw->nfits++] = p->fits[i];
	if (p->nfits)
		pp_hw_set_origin(hw, "collectives", "calibration profile %s v%d (runs %s): %d fitted "
				 "collective/scope/size models", p->name, p->version, runs, p->nfits);
	bool gemm = false;
	for (int dt = 0; dt < PP_DT_COUNT; dt++)
		if (p->has_gemm[dt] && p->gemm_frac[dt] > 0) {
			hw->gemm_frac[dt] = p->gemm_frac[dt];
			gemm = true;
		}
	if (p->has_gemm[PP_DT_BF16])
		hw->gemm_k0 = p->gemm_k0[PP_DT_BF16];
	if (gemm)
		pp_hw_set_origin(hw, "gemm_efficiency", "calibration profile %s v%d (runs %s): bf16 "
				 "%.3f of peak", p->name, p->version, runs,
				 p->has_gemm[PP_DT_BF16] ? p->gemm_frac[PP_DT_BF16] : hw->gemm_frac[PP_DT_BF16]);
	/* measured GEMMs: their rates are what the profile's protocol held
	 * (a sweep back to back, or bursts), not the catalog's burst figures
	 * the SKU's sustained share scales; attention (the catalog's rates)
	 * keeps it */
	for (int dt = 0; dt < PP_DT_COUNT; dt++)
		if (p->has_gemm[dt] && p->gemm_frac[dt] > 0)
			hw->gemm_measured[dt] = true;
	if (gemm && pp_hw_has_sustained(hw))
		pp_hw_set_origin(hw, "sustained_gemm", "catalog gpus.json: bf16 %.3f, fp8 %.3f of the "
				 "burst rate in a GEMM-dense step, for attention and the GEMMs of dtypes "
				 "calibration profile %s v%d did not measure (its measured rates stand)",
				 hw->dense_sustained[PP_DT_BF16], hw->dense_sustained[PP_DT_FP8], p->name,
				 p->version);
	if (p->has_mem && p->mem_Bps > 0) {
		hw->mem_Bps = p->mem_Bps;
		hw->elementwise_Bps = p->mem_Bps;
		pp_hw_set_origin(hw, "memory_bandwidth", "calibration profile %s v%d (runs %s): %.0f GB/s "
				 "(podplan-calibrate's copy kernel; framework kernels may be slower)",
				 p->name, p->version, runs, p->mem_Bps / PP_GB);
	}
	if (p->has_overlap) {
		hw->overlap_eff = p->overlap_eff;
		pp_hw_set_origin(hw, "overlap_efficiency", "calibration profile %s v%d (runs %s): %.2f "
				 "of a collective hidden beside compute (%d GEMM/copy + collective pairs)",
				 p->name, p->version, runs, p->overlap_eff, p->overlap_points);
	}
}

int pp_profile_load_spec(const char *db, const char *profile, pp_profile *p, pp_err *err)
{
	char name[128];
	int version = 0;
	snprintf(name, sizeof(name), "%s", profile);
	char *at = strchr(name, '@');
	if (at) {
		char *end;
		*at = '\0';
		errno = 0;
		long v = strtol(at + 1, &end, 10);
		if (end == at + 1 || *end || errno || v < 1 || v > 0x7fffffffL)
			return pp_errf(err, PP_EINPUT, "calibration profile \"%s\": found version \"%s\", "
				       "expected NAME@VERSION with a positive whole version", profile,
				       at + 1);
		version = (int)v;
	}
	pp_store *st;
	int rc = pp_store_open_ro(&st, db, err);
	if (rc)
		return rc;
	rc = pp_profile_load(st, name, version, p, err);
	pp_store_close(st);
	return rc;
}

int pp_profile_apply_spec(pp_hw *hw, const char *db, const char *profile, pp_err *err)
{
	pp_profile p;
	int rc = pp_profile_load_spec(db, profile, &p, err);
	if (!rc)
		pp_profile_apply(hw, &p);
	return rc;
}
