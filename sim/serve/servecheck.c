/* servecheck.c - see servecheck.h. */
#include "serve/servecheck.h"
#include "core/jdoc.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the result file ---- */

static const char *const metrics[] = {"ttft", "tpot", "itl", "e2el"};
static const char *const totals[] = {"request_throughput", "output_throughput",
				     "total_token_throughput", "request_goodput", "duration",
				     "max_concurrent_requests"};

/* A percentile key's p ("p99" -> 99, "p99.9" -> 99.9, as vllm bench serve
 * writes them: f"p{p:g}" of --metric-percentiles); false otherwise. Only
 * decimal digits with at most one point are read (strtod would take
 * "p0x10" as 16 and "p 50" as 50). */
static bool pct_of(const char *s, size_t n, double *p)
{
	if (n < 2 || s[0] != 'p')
		return false;
	char buf[16];
	if (n - 1 >= sizeof(buf))
		return false;
	int digits = 0, points = 0;
	for (size_t i = 1; i < n; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			digits++;
		else if (s[i] == '.' && i > 1 && i + 1 < n)
			points++;
		else
			return false;
	}
	if (!digits || points > 1)
		return false;
	memcpy(buf, s + 1, n - 1);
	buf[n - 1] = 0;
	char *end;
	double v = strtod(buf, &end);
	if (*end || end == buf || !(v >= 0 && v <= 100))
		return false;
	*p = v;
	return true;
}

/* Whether key is a figure podplan predicts: a total, or
 * {mean,median,std,pNN}_{ttft,tpot,itl,e2el}_ms. */
static bool figure_key(const char *key)
{
	for (size_t i = 0; i < PP_ARRAY_LEN(totals); i++)
		if (!strcmp(key, totals[i]))
			return true;
	size_t n = strlen(key);
	if (n < 4 || strcmp(key + n - 3, "_ms"))
		return false;
	const char *us = strchr(key, '_');
	if (!us)
		return false;
	size_t stat = (size_t)(us - key);
	double p;
	bool st = (stat == 4 && !strncmp(key, "mean", 4)) || (stat == 6 && !strncmp(key, "median", 6)) ||
		  (stat == 3 && !strncmp(key, "std", 3)) || pct_of(key, stat, &p);
	if (!st)
		return false;
	for (size_t i = 0; i < PP_ARRAY_LEN(metrics); i++) {
		size_t m = strlen(metrics[i]);
		if (n == stat + 1 + m + 3 && !strncmp(us + 1, metrics[i], m))
			return true;
	}
	return false;
}

static int opt_str(const pp_jdoc *d, const cJSON *o, const char *key, char *out, size_t n, pp_err *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v)) { /* --metadata values are strings; anything else names nothing */
		char what[96];
		return pp_jdoc_errf(d, err, key, "found %s, expected a string",
				    pp_jdoc_describe(v, what, sizeof(what)));
	}
	snprintf(out, n, "%s", v->valuestring);
	return 0;
}

static int read_record(const pp_jdoc *d, const char *where, pp_scheck_bench *b, pp_err *err)
{
	const cJSON *o = d->root;
	int rc;
	memset(b, 0, sizeof(*b));
	snprintf(b->where, sizeof(b->where), "%s", where);
	b->total_input_tokens = b->total_output_tokens = -1;
	b->burstiness = 1;
	if ((rc = opt_str(d, o, "label", b->label, sizeof(b->label), err)) ||
	    (rc = opt_str(d, o, "model_id", b->model_id, sizeof(b->model_id), err)) ||
	    (rc = opt_str(d, o, "date", b->date, sizeof(b->date), err)) ||
	    (rc = opt_str(d, o, "backend", b->backend, sizeof(b->backend), err)))
		return rc;
	const cJSON *rate = cJSON_GetObjectItemCaseSensitive(o, "request_rate");
	if (cJSON_IsString(rate)) {
		if (strcmp(rate->valuestring, "inf"))
			return pp_jdoc_errf(d, err, "request_rate", "found the string \"%s\", expected a "
					    "rate in requests/s or \"inf\"", rate->valuestring);
		b->request_rate = INFINITY;
		b->has_rate = true;
	} else if (rate && !cJSON_IsNull(rate)) {
		if ((rc = pp_jget_num(d, o, "", "request_rate", true, PP_SERVE_RATE_MIN, PP_SERVE_RATE_MAX, &b->request_rate, NULL,
				      err)))
			return rc;
		b->has_rate = true;
	}
	if ((rc = pp_jget_num(d, o, "", "burstiness", false, 1e-3, 1e3, &b->burstiness, &b->has_burst,
			      err)) ||
	    (rc = pp_jget_int(d, o, "", "num_prompts", false, 1, 100000000, &b->num_prompts,
			      &b->has_prompts, err)) ||
	    (rc = pp_jget_int(d, o, "", "completed", false, 0, 100000000, &b->completed, NULL, err)) ||
	    (rc = pp_jget_int(d, o, "", "failed", false, 0, 100000000, &b->failed, NULL, err)) ||
	    (rc = pp_jget_num(d, o, "", "total_input_tokens", false, 0, 1e15, &b->total_input_tokens,
			      NULL, err)) ||
	    (rc = pp_jget_num(d, o, "", "total_output_tokens", false, 0, 1e15,
			      &b->total_output_tokens, NULL, err)))
		return rc;
	const cJSON *mc = cJSON_GetObjectItemCaseSensitive(o, "max_concurrency");
	if (mc && !cJSON_IsNull(mc)) {
		if ((rc = pp_jget_int(d, o, "", "max_concurrency", true, 1, 100000000,
				      &b->max_concurrency, NULL, err)))
			return rc;
		b->has_conc = true;
	} else if (mc) {
		b->has_conc = true; /* null: no cap */
	}
	const cJSON *v;
	cJSON_ArrayForEach(v, o)
	{
		if (!v->string || !figure_key(v->string))
			continue;
		if (cJSON_IsNull(v)) /* request_goodput without --goodput */
			continue;
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0) {
			char what[96];
			return pp_jdoc_errf(d, err, v->string, "found %s, expected a number >= 0",
					    pp_jdoc_describe(v, what, sizeof(what)));
		}
		if (b->nfigs == PP_SCHECK_MAX_FIGS)
			return pp_jdoc_errf(d, err, v->string, "found more than %d figures; expected "
					    "vllm bench serve's (at most 8 percentiles a metric)",
					    PP_SCHECK_MAX_FIGS);
		pp_scheck_fig *f = &b->figs[b->nfigs++];
		snprintf(f->key, sizeof(f->key), "%s", v->string);
		f->value = v->valuedouble;
	}
	if (b->nfigs == 0)
		return pp_jdoc_errf(d, err, "", "found none of request_throughput, output_throughput, "
				    "total_token_throughput or the ttft/tpot/itl/e2el figures; expected "
				    "a vllm bench serve --save-result file");
	return 0;
}

int pp_scheck_load(const char *path, pp_scheck_bench **out, size_t *n, pp_err *err)
{
	*out = NULL;
	*n = 0;
	pp_jdoc d;
	int rc = pp_jdoc_load(&d, path, err);
	if (rc == 0) {
		pp_scheck_bench *b = pp_xcalloc(1, sizeof(*b));
		rc = read_record(&d, path, b, err);
		pp_jdoc_release(&d);
		if (rc) {
			free(b);
			return rc;
		}
		*out = b;
		*n = 1;
		return 0;
	}
	pp_jdoc_release(&d);
	/* --append-result: one object a line, read under the same rule as
	 * the whole file (a regular file within the size limit) */
	pp_err first = *err;
	pp_sb text = {0};
	{
		pp_err rerr = {0};
		char *buf = NULL;
		size_t len = 0;
		if (pp_read_file(path, PP_JDOC_MAX_BYTES, &buf, &len, &rerr))
			return rc; /* not a regular file, too large, unreadable: the loader's error */
		text.buf = buf;
		text.len = text.cap = len;
	}
	pp_scheck_bench *recs = NULL;
	size_t nrec = 0, cap = 0;
	int lines = 0;
	const char *s = text.buf ? text.buf : "";
	while (*s) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		lines++;
		size_t k = 0;
		while (k < len && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r'))
			k++;
		if (k < len) {
			if (s[k] != '{') { /* not JSON Lines: the whole-file error stands */
				rc = PP_EINPUT;
				*err = first;
				goto fail;
			}
			char name[600];
			snprintf(name, sizeof(name), "%s, line %d", path, lines);
			if (nrec == PP_SCHECK_MAX_RECORDS) {
				rc = pp_errf(err, PP_EINPUT, "%s: found more than %d records; expected at "
					     "most %d (each is simulated)", name, PP_SCHECK_MAX_RECORDS,
					     PP_SCHECK_MAX_RECORDS);
				goto fail;
			}
			pp_jdoc ld;
			if ((rc = pp_jdoc_parse(&ld, name, s, len, err))) {
				pp_jdoc_release(&ld);
				goto fail;
			}
			if (nrec == cap) {
				cap = cap ? 2 * cap : 4;
				recs = pp_xrealloc(recs, cap * sizeof(*recs));
			}
			rc = read_record(&ld, name, &recs[nrec], err);
			pp_jdoc_release(&ld);
			if (rc)
				goto fail;
			nrec++;
		}
		s += len + (e ? 1 : 0);
	}
	if (nrec < 2) { /* one object that did not parse as a file: the file's own error */
		rc = PP_EINPUT;
		*err = first;
		goto fail;
	}
	pp_sb_release(&text);
	*out = recs;
	*n = nrec;
	return 0;
fail:
	pp_sb_release(&text);
	free(recs);
	return rc;
}

/* ---- the comparison ---- */

static const pp_serve_stat *stat_named(const pp_serve_result *r, const char *m, size_t n)
{
	if (n == 4 && !strncmp(m, "ttft", 4))
		return &r->ttft;
	if (n == 4 && !strncmp(m, "tpot", 4))
		return &r->tpot;
	if (n == 3 && !strncmp(m, "itl", 3))
		return &r->itl;
	if (n == 4 && !strncmp(m, "e2el", 4))
		return &r->e2el;
	return NULL;
}

/* The prediction of key (in the file's unit); false when podplan has none. */
static bool predicted(const pp_serve_setup *su, const pp_serve_result *r, const char *key,
		      double *out)
{
	if (!strcmp(key, "request_throughput"))
		*out = r->request_throughput;
	else if (!strcmp(key, "output_throughput"))
		*out = r->output_throughput;
	else if (!strcmp(key, "total_token_throughput"))
		*out = r->total_token_throughput;
	else if (!strcmp(key, "duration"))
		*out = r->duration_s;
	else if (!strcmp(key, "max_concurrent_requests"))
		*out = r->max_concurrent_requests;
	else if (!strcmp(key, "request_goodput")) {
		if (!su->sv.slo_present)
			return false;
		*out = r->request_goodput;
	} else {
		const char *us = strchr(key, '_'), *m = us + 1, *end = strstr(m, "_ms");
		const pp_serve_stat *st = stat_named(r, m, (size_t)(end - m));
		size_t stat = (size_t)(us - key);
		double p;
		if (!st)
			return false;
		if (!strncmp(key, "mean_", 5))
			*out = st->mean;
		else if (!strncmp(key, "median_", 7))
			*out = st->median;
		else if (!strncmp(key, "std_", 4))
			*out = st->std;
		else if (pct_of(key, stat, &p)) {
			int k = 0;
			while (k < su->npcts && su->pcts[k] != p)
				k++;
			if (k == su->npcts)
				return false;
			*out = st->pcts[k];
		} else {
			return false;
		}
		*out *= 1e3;
	}
	return true;
}

static bool is_throughput(const char *key)
{
	return !strcmp(key, "request_throughput") || !strcmp(key, "output_throughput") ||
	       !strcmp(key, "total_token_throughput");
}

static bool is_latency(const char *key)
{
	size_t n = strlen(key);
	return n > 3 && !strcmp(key + n - 3, "_ms") && strncmp(key, "std_", 4);
}

int pp_scheck_run(const pp_serve_setup *su, const pp_scheck_bench *b, uint64_t seed,
		  pp_scheck_result *out, pp_err *err)
{
	memset(out, 0, sizeof(*out));
	pp_serve_setup s = *su;
	pp_servespec *sv = &s.sv;
	char *note = out->note;
	size_t nn = sizeof(out->note);
	if (b->has_prompts || b->completed > 0) {
		int64_t n = b->has_prompts ? b->num_prompts : b->completed;
		if (sv->trace)
			snprintf(note, nn, "the scenario's trace sets the requests (%zu), not the file's %lld; ",
				 sv->ntrace, (long long)n);
		else
			sv->num_prompts = n;
		if (!sv->trace && 2 * sv->warmup_requests >= n)
			return pp_errf(err, PP_EINPUT, "%s: %s: found %lld requests with the scenario's "
				       "workload.warmup_requests = %lld; expected more than twice the "
				       "warm-up requests (the first and the last that many are left out "
				       "of the statistics)", b->where, b->has_prompts ? "num_prompts"
				       : "completed", (long long)n, (long long)sv->warmup_requests);
	}
	if (b->has_burst)
		sv->burstiness = b->burstiness;
	if (b->has_conc)
		sv->max_concurrency = b->max_concurrency;
	double rate = b->has_rate ? b->request_rate : sv->request_rate;
	/* the percentiles the file reports */
	s.npcts = 0;
	for (int i = 0; i < b->nfigs; i++) {
		const char *key = b->figs[i].key, *us = strchr(key, '_');
		double p;
		if (!us || !pct_of(key, (size_t)(us - key), &p))
			continue;
		int k = 0;
		while (k < s.npcts && s.pcts[k] != p)
			k++;
		if (k == s.npcts && s.npcts < PP_SERVE_MAX_PCTS)
			s.pcts[s.npcts++] = p;
	}
	s.keep_requests = false;
	s.progress = NULL;
	pp_serve_result r;
	int rc = pp_serve_run(&s, rate, seed, &r, err);
	if (rc)
		return rc;
	/* judged only on what it sustained, as serve does (issue 31) */
	if ((rc = pp_serve_check_sustained(&s, seed, &r, err)) < 0) {
		pp_serve_result_release(&r);
		return rc;
	}
	out->not_sustained = r.not_sustained;
	out->offered_rps = r.offered_rps;
	out->capacity_rps = r.capacity_rps;
	out->request_rate = rate;
	out->burstiness = sv->burstiness;
	out->max_concurrency = sv->max_concurrency;
	out->num_prompts = r.num_prompts;
	out->pred_input_mean = r.num_prompts ? (double)r.total_input_tokens / (double)r.num_prompts : 0;
	out->pred_output_mean = r.num_prompts ? (double)r.total_output_tokens / (double)r.num_prompts : 0;
	int64_t done = b->completed > 0 ? b->completed : b->num_prompts;
	out->meas_input_mean = b->total_input_tokens >= 0 && done > 0 ? b->total_input_tokens / (double)done : -1;
	out->meas_output_mean = b->total_output_tokens >= 0 && done > 0 ? b->total_output_tokens / (double)done : -1;
	double sa = 0, st = 0, sl = 0;
	int nt = 0, nl = 0;
	bool goodput_skipped = false;
	for (int i = 0; i < b->nfigs; i++) {
		const pp_scheck_fig *f = &b->figs[i];
		double p;
		if (r.not_sustained && !strcmp(f->key, "request_goodput"))
			continue;
		if (!predicted(&s, &r, f->key, &p)) {
			goodput_skipped |= !strcmp(f->key, "request_goodput");
			continue;
		}
		/* nothing measured to set an error against: 0, or below the file's
		 * resolution (a latency under a nanosecond, a rate under one
		 * request a million years) */
		if (!(f->value >= PP_SCHECK_MIN_MEASURED) || !isfinite(p / f->value))
			continue;
		pp_scheck_row *row = &out->rows[out->nrows++];
		snprintf(row->key, sizeof(row->key), "%s", f->key);
		row->measured = f->value;
		row->predicted = p;
		row->error = p / f->value - 1;
		sa += fabs(row->error);
		if (is_throughput(f->key)) {
			st += fabs(row->error);
			nt++;
		} else if (is_latency(f->key)) {
			sl += fabs(row->error);
			nl++;
		}
	}
	out->mean_abs_error = out->nrows ? sa / out->nrows : NAN;
	out->mean_abs_throughput = nt ? st / nt : NAN;
	out->mean_abs_latency = nl ? sl / nl : NAN;
	size_t used = strlen(note);
	if (r.not_sustained)
		snprintf(note + used, nn - used, "the simulated deployment did not sustain the offered "
			 "%.4g requests/s (it completes %.4g/s with every request sent at once): its "
			 "figures are those of a burst it drained, and request_goodput is not judged "
			 "at that rate; ", r.offered_rps, r.capacity_rps);
	used = strlen(note);
	if (goodput_skipped)
		snprintf(note + used, nn - used, "request_goodput needs the scenario's \"slo\" (the file "
			 "does not keep --goodput's bounds); ");
	used = strlen(note);
	if (used >= 2 && note[used - 2] == ';')
		note[used - 2] = 0;
	pp_serve_result_release(&r);
	return 0;
}
