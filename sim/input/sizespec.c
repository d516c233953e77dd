/* sizespec.c - see sizespec.h. */
#include "input/sizespec.h"
#include "input/layout.h"
#include "input/prices.h"
#include "core/util.h"

#include <math.h>
#include <string.h>

/* The list of catalog ids o.key (GPUs, else inter-node fabrics) into
 * out[*n]; left alone when absent. */
static int id_list(const pp_jdoc *d, const cJSON *o, const char *parent, const char *key,
		   const pp_catalog *cat, bool gpus, void **out, int *n, pp_err *err)
{
	char path[96];
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!a)
		return 0;
	pp_jpath(path, sizeof(path), parent, key);
	char buf[64];
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1 ||
	    cJSON_GetArraySize(a) > PP_SIZE_MAX_LIST)
		return pp_jdoc_errf(d, err, path, "found %s, expected an array of 1 to %d %s ids",
				    pp_jdoc_describe(a, buf, sizeof(buf)), PP_SIZE_MAX_LIST,
				    gpus ? "GPU" : "fabric");
	int i = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, a)
	{
		char ep[112];
		pp_jpath_idx(ep, sizeof(ep), path, i);
		if (!cJSON_IsString(e))
			return pp_jdoc_errf(d, err, ep, "found %s, expected a %s id",
					    pp_jdoc_describe(e, buf, sizeof(buf)), gpus ? "GPU" : "fabric");
		const void *p = gpus ? (const void *)pp_catalog_gpu(cat, e->valuestring)
				     : (const void *)pp_catalog_fabric(cat, e->valuestring);
		if (!gpus && p && ((const pp_fabric *)p)->intra_node)
			p = NULL;
		if (!p) {
			size_t nid;
			const char *const *ids = pp_catalog_ids(cat, gpus ? "gpus" : "fabrics", &nid);
			const char *dym = pp_did_you_mean(e->valuestring, ids, nid);
			return pp_jdoc_errf(d, err, ep, "found \"%s\", expected a%s %s id of the catalog%s%s%s",
					    e->valuestring, gpus ? "" : "n inter-node",
					    gpus ? "GPU" : "fabric", dym ? " (did you mean \"" : "",
					    dym ? dym : "", dym ? "\"?)" : "");
		}
		out[i++] = (void *)p;
	}
	*n = i;
	return 0;
}

int pp_size_spec_parse(pp_size_spec *spec, const pp_jdoc *d, const cJSON *o, const char *path,
		       const pp_catalog *cat, pp_err *err)
{
	static const char *const keys[] = {"top", "gpus", "num_gpus", "fabrics", "provider", "tier",
					   "usd_per_gpu_hour", "pipeline_schedules"};
	memset(spec, 0, sizeof(*spec));
	int rc;
	char buf[64], cpath[96], ppath[96];
	if (!o)
		return 0;
	if ((rc = pp_jcheck_keys(d, o, path, keys, PP_ARRAY_LEN(keys), err)))
		return rc;
	int64_t top = 0;
	if ((rc = pp_jget_int(d, o, path, "top", false, 1, 1000, &top, NULL, err)) ||
	    (rc = pp_jget_str(d, o, path, "provider", false, spec->provider,
			      sizeof(spec->provider), NULL, err)) ||
	    (rc = pp_jget_str(d, o, path, "tier", false, spec->tier, sizeof(spec->tier), NULL,
			      err)))
		return rc;
	spec->top = (int)top;
	void *tmp[PP_SIZE_MAX_LIST];
	if ((rc = id_list(d, o, path, "gpus", cat, true, tmp, &spec->ngpus, err)))
		return rc;
	for (int i = 0; i < spec->ngpus; i++)
		spec->gpus[i] = tmp[i];
	if ((rc = id_list(d, o, path, "fabrics", cat, false, tmp, &spec->nfabrics, err)))
		return rc;
	for (int i = 0; i < spec->nfabrics; i++)
		spec->fabrics[i] = tmp[i];
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "num_gpus");
	pp_jpath(cpath, sizeof(cpath), path, "num_gpus");
	if (a) {
		if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1 ||
		    cJSON_GetArraySize(a) > PP_SIZE_MAX_LIST)
			return pp_jdoc_errf(d, err, cpath, "found %s, expected an array of "
					    "1 to %d GPU counts", pp_jdoc_describe(a, buf, sizeof(buf)),
					    PP_SIZE_MAX_LIST);
		const cJSON *e;
		cJSON_ArrayForEach(e, a)
		{
			char ep[64];
			pp_jpath_idx(ep, sizeof(ep), cpath, spec->ncounts);
			if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) ||
			    e->valuedouble < 1 || e->valuedouble > 4194304)
				return pp_jdoc_errf(d, err, ep, "found %s, expected a whole number of "
						    "GPUs from 1 to 4194304",
						    pp_jdoc_describe(e, buf, sizeof(buf)));
			spec->counts[spec->ncounts++] = (int)e->valuedouble;
		}
	}
	const cJSON *ps = cJSON_GetObjectItemCaseSensitive(o, "pipeline_schedules");
	pp_jpath(cpath, sizeof(cpath), path, "pipeline_schedules");
	if (ps) {
		if (!cJSON_IsArray(ps) || cJSON_GetArraySize(ps) < 1)
			return pp_jdoc_errf(d, err, cpath, "found %s, expected an array of pipeline "
					    "schedule names (those of parallel.pipeline_schedule)",
					    pp_jdoc_describe(ps, buf, sizeof(buf)));
		const cJSON *e;
		int i = 0;
		cJSON_ArrayForEach(e, ps)
		{
			char ep[112];
			pp_jpath_idx(ep, sizeof(ep), cpath, i++);
			int k = cJSON_IsString(e) ? pp_schedule_lookup(e->valuestring) : -1;
			if (k < 0)
				return pp_jdoc_errf(d, err, ep, "found %s, expected a schedule name: one "
						    "of 1f1b, gpipe, interleaved, zb-h1, zb-h2, zbv, "
						    "dualpipev, dualpipe or PyTorch's",
						    pp_jdoc_describe(e, buf, sizeof(buf)));
			spec->schedules |= 1u << k;
		}
	}
	const cJSON *pr = cJSON_GetObjectItemCaseSensitive(o, "usd_per_gpu_hour");
	pp_jpath(ppath, sizeof(ppath), path, "usd_per_gpu_hour");
	if (pr) {
		if (!cJSON_IsObject(pr))
			return pp_jdoc_errf(d, err, ppath, "found %s, expected an "
					    "object of GPU id -> $ per GPU-hour",
					    pp_jdoc_describe(pr, buf, sizeof(buf)));
		const cJSON *e;
		cJSON_ArrayForEach(e, pr)
		{
			char ep[96];
			pp_jpath(ep, sizeof(ep), ppath, e->string);
			const pp_gpu *g = pp_catalog_gpu(cat, e->string);
			if (!g)
				return pp_jdoc_errf(d, err, ep, "found the GPU \"%s\", expected a GPU id "
						    "of the catalog", e->string);
			if (!cJSON_IsNumber(e) || e->valuedouble <= 0 || e->valuedouble > 1e4)
				return pp_jdoc_errf(d, err, ep, "found %s, expected a price in $ per "
						    "GPU-hour above 0",
						    pp_jdoc_describe(e, buf, sizeof(buf)));
			if (spec->nprices == PP_SIZE_MAX_LIST)
				return pp_jdoc_errf(d, err, ep, "expected at most %d prices",
						    PP_SIZE_MAX_LIST);
			spec->price_gpu[spec->nprices] = g;
			spec->price_usd[spec->nprices++] = e->valuedouble;
		}
	}
	return 0;
}

int pp_size_price(const pp_catalog *cat, const pp_size_spec *spec, const pp_gpu *g, double *usd,
		  char *what, size_t n, pp_err *err)
{
	for (int i = 0; i < spec->nprices; i++)
		if (spec->price_gpu[i] == g) {
			*usd = spec->price_usd[i];
			snprintf(what, n, "scenario search.usd_per_gpu_hour");
			return 0;
		}
	pp_price p;
	int rc = pp_price_lookup(cat, pp_price_sku_map(cat), g, spec->provider, spec->tier, &p, err);
	if (!rc) {
		*usd = p.usd_per_gpu_hour;
		snprintf(what, n, "%s %s, %s, %s%s", p.provider, p.tier, p.source ? p.source : "?",
			 p.date ? p.date : "undated", p.estimate ? " [estimate]" : "");
	}
	return rc;
}
