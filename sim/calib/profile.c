/* profile.c - see profile.h. */
#include "calib/profile.h"
#include "core/jdoc.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const scope_names[PP_SCOPE_COUNT] = {"intra_node", "inter_node"};

char *pp_profile_to_json(const pp_profile *p)
{
	pp_sb o = {0};
	pp_sb_adds(&o, "{\n  \"format\": \"podplan-profile/1\",\n  \"name\": ");
	pp_sb_add_json(&o, p->name);
	pp_sb_addf(&o, ",\n  \"version\": %d,\n  \"gpu\": ", p->version);
	pp_sb_add_json(&o, p->gpu);
	pp_sb_adds(&o, ",\n  \"runs\": [");
	for (int i = 0; i < p->nruns; i++)
		pp_sb_addf(&o, "%s%lld", i ? ", " : "", (long long)p->runs[i]);
	pp_sb_adds(&o, "],\n  \"collectives\": [");
	for (int i = 0; i < p->nfits; i++) {
		const pp_coll_fit *f = &p->fits[i];
		pp_sb_addf(&o, "%s\n    {\"op\": \"%s\", \"scope\": \"%s\", \"nranks\": %d, "
			       "\"rms_rel_residual\": %.6g, \"pieces\": [", i ? "," : "",
			   pp_coll_names[f->op], scope_names[f->scope], f->nranks, p->fit_rms[i]);
		for (int k = 0; k < f->npieces; k++) {
			const pp_fit_piece_ci *c = &p->fit_ci[i][k];
			double hi = f->piece[k].hi_bytes;
			pp_sb_addf(&o, "%s\n      {\"lo_bytes\": %.17g, \"hi_bytes\": %.17g, "
				       "\"alpha_us\": %.9g, \"alpha_ci_us\": %.9g, \"busbw_GBps\": %.9g, "
				       "\"busbw_ci_GBps\": %.9g, \"points\": %d}",
				   k ? "," : "", f->piece[k].lo_bytes, isfinite(hi) ? hi : 1e300,
				   f->piece[k].alpha_s * 1e6, c->alpha_ci_s * 1e6, f->piece[k].busbw_Bps / PP_GB,
				   c->busbw_ci_Bps / PP_GB, c->points);
		}
		pp_sb_adds(&o, "]}");
	}
	pp_sb_adds(&o, "\n  ],\n  \"gemm\": {");
	bool first = true;
	for (int dt = 0; dt < PP_DT_COUNT; dt++) {
		if (!p->has_gemm[dt])
			continue;
		pp_sb_addf(&o, "%s\n    \"%s\": {\"peak_fraction\": %.6g, \"ci\": %.6g, \"k0\": "
			       "%.6g, \"k0_ci\": %.6g, \"points\": %d, \"rms_rel_residual\": %.6g}",
			   first ? "" : ",", pp_dtype_names[dt], p->gemm_frac[dt], p->gemm_frac_ci[dt],
			   p->gemm_k0[dt], p->gemm_k0_ci[dt], p->gemm_points[dt],
			   p->gemm_rms[dt]);
		first = false;
	}
	pp_sb_adds(&o, "\n  }");
	if (p->has_mem)
		pp_sb_addf(&o, ",\n  \"memory\": {\"GBps\": %.6g, \"ci_GBps\": %.6g, \"points\": %d}",
			   p->mem_Bps / PP_GB, p->mem_ci_Bps / PP_GB, p->mem_points);
	if (p->has_overlap)
		pp_sb_addf(&o, ",\n  \"overlap\": {\"efficiency\": %.6g, \"ci\": %.6g, \"points\": %d}",
			   p->overlap_eff, p->overlap_ci, p->overlap_points);
	pp_sb_adds(&o, "\n}\n");
	return pp_sb_detach(&o);
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

int pp_profile_from_json(pp_profile *p, const char *name, const char *json, pp_err *err)
{
	memset(p, 0, sizeof(*p));
	pp_jdoc d;
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
	    (rc = pp_jget_str(&d, r, "", "gpu", false, p->gpu, sizeof(p->gpu), NULL, err)))
		goto out;
	p->version = (int)num(r, "version");
	const cJSON *runs = cJSON_GetObjectItemCaseSensitive(r, "runs");
	for (const cJSON *e = runs ? runs->child : NULL; e && p->nruns < PP_PROFILE_MAX_RUNS; e = e->next)
		p->runs[p->nruns++] = (int64_t)e->valuedouble;
	const cJSON *cs = cJSON_GetObjectItemCaseSensitive(r, "collectives");
	for (const cJSON *c = cs ? cs->child : NULL; c && p->nfits < PP_HW_MAX_FITS; c = c->next) {
		pp_coll_fit *f = &p->fits[p->nfits];
		const cJSON *op = cJSON_GetObjectItemCaseSensitive(c, "op");
		const cJSON *sc = cJSON_GetObjectItemCaseSensitive(c, "scope");
		int o = -1;
		for (int i = 0; cJSON_IsString(op) && i < PP_COLL_COUNT; i++)
			if (!strcmp(op->valuestring, pp_coll_names[i]))
				o = i;
		if (o < 0)
			continue;
		f->op = (pp_coll)o;
		f->scope = cJSON_IsString(sc) && !strcmp(sc->valuestring, "inter_node") ? PP_SCOPE_INTER
											: PP_SCOPE_INTRA;
		f->nranks = (int)num(c, "nranks");
		p->fit_rms[p->nfits] = num(c, "rms_rel_residual");
		const cJSON *ps = cJSON_GetObjectItemCaseSensitive(c, "pieces");
		for (const cJSON *q = ps ? ps->child : NULL; q && f->npieces < PP_FIT_PIECES; q = q->next) {
			int k = f->npieces++;
			f->piece[k].lo_bytes = num(q, "lo_bytes");
			double hi = num(q, "hi_bytes");
			f->piece[k].hi_bytes = hi >= 1e300 ? INFINITY : hi;
			f->piece[k].alpha_s = num(q, "alpha_us") * 1e-6;
			f->piece[k].busbw_Bps = num(q, "busbw_GBps") * PP_GB;
			p->fit_ci[p->nfits][k].alpha_ci_s = num(q, "alpha_ci_us") * 1e-6;
			p->fit_ci[p->nfits][k].busbw_ci_Bps = num(q, "busbw_ci_GBps") * PP_GB;
			p->fit_ci[p->nfits][k].points = (int)num(q, "points");
		}
		if (f->npieces)
			p->nfits++;
	}
	const cJSON *g = cJSON_GetObjectItemCaseSensitive(r, "gemm");
	for (int dt = 0; dt < PP_DT_COUNT; dt++) {
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(g, pp_dtype_names[dt]);
		if (!e)
			continue;
		p->has_gemm[dt] = true;
		p->gemm_frac[dt] = num(e, "peak_fraction");
		p->gemm_frac_ci[dt] = num(e, "ci");
		p->gemm_k0[dt] = isfinite(num(e, "k0")) ? num(e, "k0") : 0;
		p->gemm_k0_ci[dt] = isfinite(num(e, "k0_ci")) ? num(e, "k0_ci") : 0;
		p->gemm_points[dt] = (int)num(e, "points");
		p->gemm_rms[dt] = num(e, "rms_rel_residual");
	}
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(r, "memory");
	if (m) {
		p->has_mem = true;
		p->mem_Bps = num(m, "GBps") * PP_GB;
		p->mem_ci_Bps = num(m, "ci_GBps") * PP_GB;
		p->mem_points = (int)num(m, "points");
	}
	const cJSON *ov = cJSON_GetObjectItemCaseSensitive(r, "overlap");
	if (ov && isfinite(num(ov, "efficiency"))) {
		p->has_overlap = true;
		p->overlap_eff = num(ov, "efficiency");
		p->overlap_ci = num(ov, "ci");
		p->overlap_points = (int)num(ov, "points");
	}
out:
	pp_jdoc_release(&d);
	return rc;
}

int pp_profile_save(pp_store *st, pp_profile *p, pp_err *err)
{
	sqlite3 *db = pp_store_db(st);
	sqlite3_stmt *q = NULL;
	int rc = 0;
	char *json = NULL;
	if (sqlite3_prepare_v2(db, "SELECT coalesce(max(version), 0) FROM profiles WHERE name = ?", -1,
			       &q, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(q, 1, p->name, -1, SQLITE_STATIC);
	p->version = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int(q, 0) + 1 : 1;
	sqlite3_finalize(q);
	q = NULL;
	json = pp_profile_to_json(p);
	pp_sb runs = {0}, resid = {0};
	pp_sb_adds(&runs, "[");
	for (int i = 0; i < p->nruns; i++)
		pp_sb_addf(&runs, "%s%lld", i ? "," : "", (long long)p->runs[i]);
	pp_sb_adds(&runs, "]");
	pp_sb_adds(&resid, "{\"collectives\": [");
	for (int i = 0; i < p->nfits; i++)
		pp_sb_addf(&resid, "%s{\"op\": \"%s\", \"nranks\": %d, \"rms_rel\": %.6g}", i ? ", " : "",
			   pp_coll_names[p->fits[i].op], p->fits[i].nranks, p->fit_rms[i]);
	pp_sb_adds(&resid, "], \"gemm\": {");
	bool first = true;
	for (int dt = 0; dt < PP_DT_COUNT; dt++)
		if (p->has_gemm[dt]) {
			pp_sb_addf(&resid, "%s\"%s\": %.6g", first ? "" : ", ", pp_dtype_names[dt],
				   p->gemm_rms[dt]);
			first = false;
		}
	pp_sb_adds(&resid, "}}");
	if (sqlite3_prepare_v2(db, "INSERT INTO profiles(name, version, created_at, run_ids, "
				   "params_json, residuals_json) VALUES (?, ?, ?, ?, ?, ?)", -1, &q,
			       NULL) != SQLITE_OK) {
		pp_sb_release(&runs);
		pp_sb_release(&resid);
		goto dberr;
	}
	sqlite3_bind_text(q, 1, p->name, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 2, p->version);
	sqlite3_bind_double(q, 3, pp_now_s());
	sqlite3_bind_text(q, 4, runs.buf, -1, SQLITE_TRANSIENT);
	/* the stored JSON carries the version just assigned */
	free(json);
	json = pp_profile_to_json(p);
	sqlite3_bind_text(q, 5, json, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 6, resid.buf, -1, SQLITE_TRANSIENT);
	int s = sqlite3_step(q);
	pp_sb_release(&runs);
	pp_sb_release(&resid);
	if (s != SQLITE_DONE)
		goto dberr;
	goto out;
dberr:
	rc = pp_errf(err, PP_EDB, "%s: %s", pp_store_path(st), sqlite3_errmsg(db));
out:
	sqlite3_finalize(q);
	free(json);
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

int pp_profile_apply_spec(pp_hw *hw, const char *db, const char *profile, pp_err *err)
{
	char name[128];
	int version = 0;
	snprintf(name, sizeof(name), "%s", profile);
	char *at = strchr(name, '@');
	if (at) {
		*at = '\0';
		version = atoi(at + 1);
	}
	pp_store *st;
	int rc = pp_store_open(&st, db, err);
	if (rc)
		return rc;
	pp_profile p;
	if (!(rc = pp_profile_load(st, name, version, &p, err)))
		pp_profile_apply(hw, &p);
	pp_store_close(st);
	return rc;
}
