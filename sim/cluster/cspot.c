/* cspot.c - see cspot.h: the spot pool's spec and its availability trace.
 * What the simulation does with them: cspotsim.c. */
#include "cluster/cspot.h"
#include "core/csv.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOUR_S 3600.0

static void trace_add(pp_cspot *sp, int *cap, double t, int n)
{
	if (sp->ntrace == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		sp->trace_t_s = pp_xrealloc(sp->trace_t_s, (size_t)*cap * sizeof(double));
		sp->trace_nodes = pp_xrealloc(sp->trace_nodes, (size_t)*cap * sizeof(int));
	}
	sp->trace_t_s[sp->ntrace] = t;
	sp->trace_nodes[sp->ntrace++] = n;
}

static int trace_json(pp_cspot *sp, const char *name, const char *text, size_t len, pp_err *err)
{
	static const char *const top[] = {"metadata", "data"};
	static const char *const meta_keys[] = {"gap_seconds"};
	pp_jdoc d;
	int rc = pp_jdoc_parse(&d, name, text, len, err), cap = 0;
	if (rc) {
		pp_jdoc_release(&d); /* what it read before the error */
		return rc;
	}
	const cJSON *m, *data, *v;
	double gap = 0;
	char what[96], p[64];
	if ((rc = pp_jcheck_keys(&d, d.root, "", top, PP_ARRAY_LEN(top), err)) ||
	    (rc = pp_jget_obj(&d, d.root, "", "metadata", true, &m, err)) ||
	    (rc = pp_jcheck_keys(&d, m, "metadata", meta_keys, PP_ARRAY_LEN(meta_keys), err)) ||
	    (rc = pp_jget_num(&d, m, "metadata", "gap_seconds", true, 1e-3, 1e9, &gap, NULL, err)))
		goto out;
	data = cJSON_GetObjectItemCaseSensitive(d.root, "data");
	if (!cJSON_IsArray(data) || cJSON_GetArraySize(data) < 1) {
		rc = pp_jdoc_errf(&d, err, "data", "found %s, expected a non-empty array of "
				  "available instance counts", pp_jdoc_describe(data, what, sizeof(what)));
		goto out;
	}
	int i = 0;
	cJSON_ArrayForEach(v, data)
	{
		pp_jpath_idx(p, sizeof(p), "data", i);
		double x = cJSON_IsNumber(v) ? v->valuedouble : -1;
		if (!cJSON_IsNumber(v) || x < 0 || x > sp->nodes || x != floor(x)) {
			rc = pp_jdoc_errf(&d, err, p, "found %s, expected a whole number of "
					  "available nodes in [0, %d] (spot.nodes)",
					  pp_jdoc_describe(v, what, sizeof(what)), sp->nodes);
			goto out;
		}
		trace_add(sp, &cap, i * gap, (int)x);
		i++;
	}
out:
	pp_jdoc_release(&d);
	return rc;
}

static int trace_csv(pp_cspot *sp, const char *name, const char *text, pp_err *err)
{
	pp_csv c;
	int rc = pp_csv_parse(&c, name, text, err), cap = 0;
	if (rc)
		return rc;
	int ct = pp_csv_col(&c, "t_s"), cn = pp_csv_col(&c, "available_nodes");
	if (c.nrows < 2 || ct < 0 || cn < 0) {
		rc = pp_errf(err, PP_EINPUT, "%s:1: header: found %s, expected the columns "
			     "t_s,available_nodes and at least one row", name,
			     c.nrows < 1 ? "an empty file" : c.nrows < 2 ? "no rows" : "other columns");
		goto out;
	}
	for (int i = 1; i < c.nrows; i++) {
		const char *a = pp_csv_get(&c, i, ct), *b = pp_csv_get(&c, i, cn);
		char *e1, *e2;
		double t = strtod(a, &e1);
		long n = strtol(b, &e2, 10);
		double prev = sp->ntrace ? sp->trace_t_s[sp->ntrace - 1] : 0;
		if (e1 == a || *e1 || !isfinite(t) || t < prev || (i == 1 && t != 0) ||
		    (i > 1 && t <= prev)) {
			rc = pp_errf(err, PP_EINPUT, "%s:%d: column t_s: found \"%s\", expected %s",
				     name, i + 1, a, i == 1 ? "0 (the trace starts at time 0)"
							    : "a time after the row before's");
			goto out;
		}
		if (e2 == b || *e2 || n < 0 || n > sp->nodes) {
			rc = pp_errf(err, PP_EINPUT, "%s:%d: column available_nodes: found \"%s\", "
				     "expected a whole number in [0, %d] (spot.nodes)", name, i + 1,
				     b, sp->nodes);
			goto out;
		}
		trace_add(sp, &cap, t, (int)n);
	}
out:
	pp_csv_release(&c);
	return rc;
}

int pp_cspot_trace_parse(pp_cspot *sp, const char *name, const char *text, size_t len,
			 pp_err *err)
{
	size_t i = 0;
	while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t'))
		i++;
	free(sp->trace_t_s);
	free(sp->trace_nodes);
	sp->trace_t_s = NULL;
	sp->trace_nodes = NULL;
	sp->ntrace = 0;
	int rc = i < len && text[i] == '{' ? trace_json(sp, name, text, len, err)
					   : trace_csv(sp, name, text, err);
	if (rc) {
		free(sp->trace_t_s);
		free(sp->trace_nodes);
		sp->trace_t_s = NULL;
		sp->trace_nodes = NULL;
		sp->ntrace = 0;
	}
	return rc;
}

int pp_cspot_parse(pp_cspot *sp, const pp_jdoc *d, const cJSON *root, const char *spec_name,
		   pp_err *err)
{
	static const char *const keys[] = {"nodes", "trace", "reclaims_per_node_hour",
					   "replacement_s", "notice_s", "usd_per_gpu_hour",
					   "source"};
	const char *p = "spot";
	const cJSON *o;
	memset(sp, 0, sizeof(*sp));
	sp->usd_per_gpu_hour = NAN;
	int rc;
	if ((rc = pp_jget_obj(d, root, "", "spot", false, &o, err)) || !o)
		return rc;
	int64_t nodes = 0;
	double rate_h = NAN;
	char trace[512] = "";
	bool has_trace = false;
	if ((rc = pp_jcheck_keys(d, o, p, keys, PP_ARRAY_LEN(keys), err)) ||
	    (rc = pp_jget_int(d, o, p, "nodes", true, 1, 1000000, &nodes, NULL, err)) ||
	    (rc = pp_jget_str(d, o, p, "trace", false, trace, sizeof(trace), &has_trace, err)) ||
	    (rc = pp_jget_num(d, o, p, "reclaims_per_node_hour", false, 0, 1e4, &rate_h, NULL,
			      err)) ||
	    (rc = pp_jget_num(d, o, p, "replacement_s", false, 0, 1e9, &sp->replace_s, NULL, err)) ||
	    (rc = pp_jget_num(d, o, p, "notice_s", true, 0, 1e6, &sp->notice_s, NULL, err)) ||
	    (rc = pp_jget_num(d, o, p, "usd_per_gpu_hour", false, 0, 1e5, &sp->usd_per_gpu_hour,
			      NULL, err)))
		return rc;
	sp->nodes = (int)nodes;
	if (has_trace == !isnan(rate_h))
		return pp_jdoc_errf(d, err, p, "found %s, expected either \"trace\" (an "
				    "availability file) or \"reclaims_per_node_hour\"",
				    has_trace ? "both" : "neither");
	if (!has_trace) {
		sp->reclaims_per_node_s = rate_h / HOUR_S;
		return 0;
	}
	char dir[4096] = ".";
	const char *slash = strrchr(spec_name, '/');
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - spec_name), spec_name);
	char *full = trace[0] == '/' ? pp_xstrdup(trace) : pp_path_join(dir, trace);
	char *text = NULL;
	size_t len = 0;
	rc = pp_read_file(full, 64u << 20, &text, &len, err);
	if (rc) {
		pp_jdoc_errf(d, err, "spot.trace", "cannot read \"%s\"; expected an availability "
			     "trace (t_s,available_nodes CSV or SkyPilot JSON)", trace);
	} else {
		rc = pp_cspot_trace_parse(sp, full, text, len, err);
	}
	free(text);
	free(full);
	return rc;
}

void pp_cspot_release(pp_cspot *sp)
{
	free(sp->trace_t_s);
	free(sp->trace_nodes);
	sp->trace_t_s = NULL;
	sp->trace_nodes = NULL;
	sp->ntrace = 0;
}

void pp_cspot_copy(pp_cspot *dst, const pp_cspot *src)
{
	*dst = *src;
	if (!src->ntrace)
		return;
	dst->trace_t_s = pp_xmalloc((size_t)src->ntrace * sizeof(double));
	dst->trace_nodes = pp_xmalloc((size_t)src->ntrace * sizeof(int));
	memcpy(dst->trace_t_s, src->trace_t_s, (size_t)src->ntrace * sizeof(double));
	memcpy(dst->trace_nodes, src->trace_nodes, (size_t)src->ntrace * sizeof(int));
}
