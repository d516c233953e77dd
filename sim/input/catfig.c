/* catfig.c - see catint.h: the readers the catalog's documents share. */
#include "input/catint.h"

/* A figure: {"value", "source", "date", "estimate"}; or null when nullable.
 * *out = value * scale. */
int pp_cat_fig(const pp_jdoc *d, const cJSON *obj, const char *parent, const char *key,
	       bool required, bool nullable, double scale, double *out, pp_prov *prov, pp_err *err)
{
	char path[512];
	pp_jpath(path, sizeof(path), parent, key);
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!f) {
		if (required)
			return pp_jdoc_errf(d, err, path, "missing, expected a figure "
					    "{\"value\", \"source\", \"date\"}");
		return 0;
	}
	if (cJSON_IsNull(f)) {
		if (!nullable)
			return pp_jdoc_errf(d, err, path, "found null, expected a figure");
		*out = 0;
		return 0;
	}
	if (!cJSON_IsObject(f))
		return pp_jdoc_errf(d, err, path, "found a bare value, expected a figure "
				    "{\"value\", \"source\", \"date\"} (every figure carries its source)");
	double v = 0;
	int rc = pp_jget_num(d, f, path, "value", true, -1e30, 1e30, &v, NULL, err);
	if (rc)
		return rc;
	pp_prov p = {0};
	rc = pp_jget_str(d, f, path, "source", true, p.source, sizeof(p.source), NULL, err);
	if (rc)
		return rc;
	rc = pp_jget_str(d, f, path, "date", true, p.date, sizeof(p.date), NULL, err);
	if (rc)
		return rc;
	rc = pp_jget_bool(d, f, path, "estimate", false, &p.estimate, NULL, err);
	if (rc)
		return rc;
	*out = v * scale;
	if (prov)
		*prov = p;
	return 0;
}

int pp_cat_int(const pp_jdoc *d, const cJSON *o, const char *parent, const char *key,
	       int64_t min, int64_t max, int *out, pp_err *err)
{
	int64_t v = 0;
	int rc = pp_jget_int(d, o, parent, key, true, min, max, &v, NULL, err);
	if (!rc)
		*out = (int)v;
	return rc;
}

const cJSON *pp_cat_array(const pp_jdoc *d, const char *key, pp_err *err, int *rc)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(d->root, key);
	*rc = 0;
	if (!cJSON_IsArray(a))
		*rc = pp_jdoc_errf(d, err, key, "missing or not an array, expected an array of entries");
	return a;
}
