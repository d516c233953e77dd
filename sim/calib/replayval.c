/* replayval.c - see replayval.h. */
#include "calib/replayval.h"
#include "input/hw.h"
#include "engine/predict.h"
#include "calib/hwres.h"
#include "input/scenario.h"
#include "core/store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void summarise(pp_replayset *v)
{
	double sum = 0, bsum = 0;
	v->mean_abs = v->max_abs = v->bytes_mean_abs = v->bytes_max_abs = 0;
	v->nmeasured = v->nbytes = 0;
	for (int i = 0; i < v->n; i++) {
		pp_replay_row *r = &v->rows[i];
		r->error = (r->predicted_s - r->measured_s) / r->measured_s;
		r->bytes_error = (r->predicted_bytes - r->measured_bytes) / r->measured_bytes;
		if (isfinite(r->error)) {
			v->nmeasured++;
			sum += fabs(r->error);
			if (fabs(r->error) > v->max_abs)
				v->max_abs = fabs(r->error);
		}
		if (isfinite(r->bytes_error)) {
			v->nbytes++;
			bsum += fabs(r->bytes_error);
			if (fabs(r->bytes_error) > v->bytes_max_abs)
				v->bytes_max_abs = fabs(r->bytes_error);
		}
	}
	if (v->nmeasured)
		v->mean_abs = sum / v->nmeasured;
	if (v->nbytes)
		v->bytes_mean_abs = bsum / v->nbytes;
}

/* A positive number, or NAN for an empty cell when empty_ok; false for
 * anything else. */
static bool cell_num(const char *s, bool empty_ok, double *out)
{
	char *end;
	*out = NAN;
	if (!*s)
		return empty_ok;
	*out = strtod(s, &end);
	return end != s && !*end && *out > 0;
}

int pp_replayval_load(const char *path, pp_replayset *v, pp_err *err)
{
	char *text = NULL;
	memset(v, 0, sizeof(*v));
	int rc = pp_read_file(path, PP_REPLAYVAL_MAX_BYTES, &text, NULL, err);
	if (rc)
		return rc;
	rc = pp_replayval_parse(path, text, v, err);
	free(text);
	return rc;
}

int pp_replayval_parse(const char *path, const char *text, pp_replayset *v, pp_err *err)
{
	memset(v, 0, sizeof(*v));
	int rc = pp_csv_parse_max(&v->csv, path, text, PP_REPLAYVAL_MAX_ROWS, err);
	if (rc)
		return rc;
	const pp_csv *c = &v->csv;
	int ci = pp_csv_col(c, "config"), pi = pp_csv_col(c, "predicted_s"),
	    mi = pp_csv_col(c, "measured_s"), si = pp_csv_col(c, "scenario"),
	    fi = pp_csv_col(c, "profile"), pbi = pp_csv_col(c, "predicted_bytes"),
	    mbi = pp_csv_col(c, "measured_bytes");
	if (ci < 0 || pi < 0 || mi < 0) {
		rc = pp_errf(err, PP_EINPUT, "%s: expected the columns config, predicted_s and "
			     "measured_s (as podplan-calibrate replay --csv writes them)", path);
		goto out;
	}
	v->rows = pp_xcalloc((size_t)(c->nrows > 0 ? c->nrows : 1), sizeof(pp_replay_row));
	for (int i = 1; i < c->nrows; i++) {
		if (c->nfields[i] == 1 && !*pp_csv_get(c, i, 0))
			continue; /* a blank line */
		pp_replay_row *r = &v->rows[v->n];
		const char *ps = pp_csv_get(c, i, pi), *ms = pp_csv_get(c, i, mi);
		if (!cell_num(ps, false, &r->predicted_s) || !cell_num(ms, true, &r->measured_s)) {
			rc = pp_errf(err, PP_EINPUT, "%s:%d: predicted_s '%s', measured_s '%s': expected "
				     "positive seconds (measured_s may be empty: not measured yet)", path,
				     i + 1, ps, ms);
			goto out;
		}
		r->predicted_bytes = r->measured_bytes = NAN;
		if (pbi >= 0 && mbi >= 0) {
			const char *pb = pp_csv_get(c, i, pbi), *mb = pp_csv_get(c, i, mbi);
			if (!cell_num(pb, true, &r->predicted_bytes) || !cell_num(mb, true, &r->measured_bytes)) {
				rc = pp_errf(err, PP_EINPUT, "%s:%d: predicted_bytes '%s', measured_bytes '%s': "
					     "expected positive bytes or an empty cell", path, i + 1, pb, mb);
				goto out;
			}
		}
		snprintf(r->config, sizeof(r->config), "%s", pp_csv_get(c, i, ci));
		if (si >= 0)
			snprintf(r->scenario, sizeof(r->scenario), "%s", pp_csv_get(c, i, si));
		if (fi >= 0)
			snprintf(r->profile, sizeof(r->profile), "%s", pp_csv_get(c, i, fi));
		r->csv_row = i;
		v->n++;
	}
	if (!v->n) {
		rc = pp_errf(err, PP_EINPUT, "%s: no replayed steps", path);
		goto out;
	}
	v->has_bytes = pbi >= 0 && mbi >= 0;
	summarise(v);
out:
	if (rc)
		pp_replayset_release(v);
	return rc;
}

int pp_replayval_repredict(pp_replayset *v, const pp_catalog *cat, pp_err *err)
{
	int rc = 0;
	for (int i = 0; i < v->n && !rc; i++) {
		pp_replay_row *r = &v->rows[i];
		if (!r->scenario[0])
			return pp_errf(err, PP_EINPUT, "%s: no scenario column to predict from",
				       r->config);
		pp_scenario s;
		pp_hwcal cal;
		pp_hw hw;
		pp_result res;
		if ((rc = pp_scenario_load(&s, r->scenario, cat, err)))
			return rc;
		if (!(rc = pp_hwcal_init(&cal, &s, NULL, NULL, NULL, err)))
			rc = pp_hw_resolve(&hw, cat, &s.cluster, &cal, err);
		if (!rc && !(rc = pp_predict(&s, &hw, NULL, &res, err))) {
			r->predicted_s = res.step_time_s;
			if (v->has_bytes)
				r->predicted_bytes = res.memory.total_bytes;
			snprintf(r->profile, sizeof(r->profile), "%s", hw.profile[0] ? hw.profile : "catalog");
		}
		pp_scenario_release(&s);
	}
	if (!rc)
		summarise(v);
	return rc;
}

/* A number, or an empty cell for NAN (a pending measurement). */
static void optional_fixed(pp_csvw *w, double x, int decimals)
{
	if (isfinite(x))
		pp_csvw_fixed(w, x, decimals);
	else
		pp_csvw_text(w, "");
}

void pp_replayval_csv(const pp_replayset *v, pp_sb *out)
{
	/* a fixed set of columns, those the file has: the replay's own
	 * diagnostics (plan_s: the plan on paper with the durations modelled
	 * at replay time) are left out, as they go stale with the engine */
	static const char *const cols[] = {"config", "predicted_s", "measured_s", "error_pct",
					   "measured_min_s", "measured_max_s", "steps", "warmup",
					   "framework", "model", "seq", "micro_batch", "recompute",
					   "predicted_bytes", "measured_bytes", "bytes_error_pct",
					   "status", "predicted_at_commit", "profile", "scenario"};
	const pp_csv *c = &v->csv;
	int idx[PP_ARRAY_LEN(cols)], n = 0;
	const char *name[PP_ARRAY_LEN(cols)];
	for (size_t k = 0; k < PP_ARRAY_LEN(cols); k++) {
		int j = pp_csv_col(c, cols[k]);
		if (j < 0 && strcmp(cols[k], "error_pct") &&
		    (strcmp(cols[k], "bytes_error_pct") || !v->has_bytes))
			continue;
		name[n] = cols[k];
		idx[n++] = j;
	}
	pp_csvw w;
	pp_csvw_init(&w, out);
	for (int k = 0; k < n; k++)
		pp_csvw_text(&w, name[k]);
	pp_csvw_end(&w);
	for (int i = 0; i < v->n; i++) {
		const pp_replay_row *r = &v->rows[i];
		for (int k = 0; k < n; k++) {
			if (!strcmp(name[k], "predicted_s"))
				pp_csvw_fixed(&w, r->predicted_s, 6);
			else if (!strcmp(name[k], "measured_s"))
				optional_fixed(&w, r->measured_s, 6);
			else if (!strcmp(name[k], "error_pct"))
				optional_fixed(&w, 100 * r->error, 2);
			else if (!strcmp(name[k], "predicted_bytes"))
				optional_fixed(&w, r->predicted_bytes, 0);
			else if (!strcmp(name[k], "measured_bytes"))
				optional_fixed(&w, r->measured_bytes, 0);
			else if (!strcmp(name[k], "bytes_error_pct"))
				optional_fixed(&w, 100 * r->bytes_error, 2);
			else if (!strcmp(name[k], "profile") && r->profile[0])
				pp_csvw_text(&w, r->profile);
			else
				pp_csvw_text(&w, pp_csv_get(c, r->csv_row, idx[k]));
		}
		pp_csvw_end(&w);
	}
}

void pp_replayset_release(pp_replayset *v)
{
	free(v->rows);
	pp_csv_release(&v->csv);
	memset(v, 0, sizeof(*v));
}
