/* servework.c - see servework.h. */
#include "input/servework.h"
#include "core/csv.h"
#include "core/fmt.h"
#include "core/util.h"

#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_len_kind_names[4] = {"fixed", "uniform", "normal", "lognormal"};

static const char *const workload_keys[] = {
	"num_prompts", "input_len", "output_len", "range_ratio", "request_rate", "burstiness",
	"max_concurrency", "prefix_len", "prefix_fraction", "max_tokens", "trace", "seed",
	"warmup_requests", "over_length"};
static const char *const over_length_names[2] = {"refuse", "reject"};
static const char *const len_keys[] = {"distribution", "mean", "range_ratio", "stddev", "min", "max"};

#define MAX_LEN 100000000

/* input_len / output_len: a number (fixed, or uniform with the section's
 * range_ratio as vllm bench serve's --random-range-ratio) or an object. */
static int parse_len(const pp_jdoc *d, const cJSON *wl, const char *key, double range_ratio,
		     int64_t cap, pp_lendist *L, pp_err *err)
{
	char path[64];
	pp_jpath(path, sizeof(path), "workload", key);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(wl, key);
	int rc;
	L->min = 1;
	L->max = cap;
	if (!v)
		return 0;
	if (cJSON_IsNumber(v)) {
		double x = 0;
		if ((rc = pp_jget_num(d, wl, "workload", key, true, 1, MAX_LEN, &x, NULL, err)))
			return rc;
		L->mean = floor(x);
		L->kind = range_ratio > 0 ? PP_LEN_UNIFORM : PP_LEN_FIXED;
		L->range_ratio = range_ratio;
		return 0;
	}
	if (!cJSON_IsObject(v)) {
		char what[96];
		return pp_jdoc_errf(d, err, path, "found %s, expected a token count or an object "
				    "{\"distribution\": \"uniform|normal|lognormal\", \"mean\", ...}",
				    pp_jdoc_describe(v, what, sizeof(what)));
	}
	int k = 0;
	if ((rc = pp_jcheck_keys(d, v, path, len_keys, PP_ARRAY_LEN(len_keys), err)) ||
	    (rc = pp_jget_enum(d, v, path, "distribution", true, pp_len_kind_names, 4, &k, NULL, err)) ||
	    (rc = pp_jget_num(d, v, path, "mean", true, 1, MAX_LEN, &L->mean, NULL, err)) ||
	    (rc = pp_jget_num(d, v, path, "range_ratio", false, 0, 0.999999, &L->range_ratio, NULL,
			      err)) ||
	    (rc = pp_jget_num(d, v, path, "stddev", k >= PP_LEN_NORMAL, 1e-9, MAX_LEN, &L->stddev, NULL,
			      err)) ||
	    (rc = pp_jget_int(d, v, path, "min", false, 1, MAX_LEN, &L->min, NULL, err)) ||
	    (rc = pp_jget_int(d, v, path, "max", false, 1, MAX_LEN, &L->max, NULL, err)))
		return rc;
	L->kind = (pp_len_kind)k;
	if (L->min > L->max) {
		char p2[80];
		snprintf(p2, sizeof(p2), "%s.min", path);
		return pp_jdoc_errf(d, err, p2, "found %lld above max %lld; expected min <= max",
				    (long long)L->min, (long long)L->max);
	}
	return 0;
}

static int load_trace(pp_servespec *sv, const pp_jdoc *d, const char *file, pp_err *err)
{
	char resolved[PATH_MAX + 8];
	if (file[0] == '/') {
		snprintf(resolved, sizeof(resolved), "%s", file);
	} else {
		char tmp[PATH_MAX];
		snprintf(tmp, sizeof(tmp), "%s", d->path);
		snprintf(resolved, sizeof(resolved), "%s/%s", dirname(tmp), file);
	}
	snprintf(sv->trace_path, sizeof(sv->trace_path), "%s", resolved);
	pp_csv c = {0};
	pp_err sub = {0};
	/* the one rule for files (a regular file, size-bounded) and a row
	 * limit found before the rows beyond are stored */
	int rc = pp_csv_load_max(&c, resolved, PP_TRACE_MAX_BYTES, PP_TRACE_MAX_ROWS + 1, &sub);
	if (rc)
		return pp_jdoc_errf(d, err, "workload.trace", "cannot use \"%s\": %s; expected a "
				    "readable CSV arrival_s,input_len,output_len", file, sub.msg);
	int ca = pp_csv_col(&c, "arrival_s"), ci = pp_csv_col(&c, "input_len"),
	    co = pp_csv_col(&c, "output_len");
	if (ca < 0 || ci < 0 || co < 0 || c.nrows < 2) {
		rc = pp_jdoc_errf(d, err, "workload.trace", "%s: found %s; expected a header "
				  "arrival_s,input_len,output_len and at least one row", resolved,
				  c.nrows < 1 ? "an empty file" : c.nrows < 2 ? "no rows" : "other columns");
		goto out;
	}
	sv->trace = pp_xcalloc((size_t)(c.nrows - 1), sizeof(*sv->trace));
	for (int i = 1; i < c.nrows; i++) {
		const char *f[3] = {pp_csv_get(&c, i, ca), pp_csv_get(&c, i, ci), pp_csv_get(&c, i, co)};
		static const char *const names[3] = {"arrival_s", "input_len", "output_len"};
		double x[3];
		for (int j = 0; j < 3; j++) {
			bool bad = pp_parse_decimal(f[j], &x[j]) || x[j] < (j ? 1 : 0) ||
				   (j ? x[j] != floor(x[j]) || x[j] > MAX_LEN : x[j] > PP_TRACE_MAX_ARRIVAL_S);
			if (bad) {
				rc = pp_errf(err, PP_EINPUT, "%s:%d: %s: found \"%s\", expected %s",
					     resolved, i + 1, names[j], f[j],
					     j ? "a whole number of tokens from 1 to 100000000"
					       : "seconds from 0 to 1e9 (a decimal number)");
				goto out;
			}
		}
		if (x[1] + x[2] > (double)sv->max_model_len && !sv->reject_over_length) {
			rc = pp_errf(err, PP_EINPUT, "%s:%d: input_len + output_len: found %.0f, expected "
				     "at most serving.max_model_len = %lld (vLLM refuses a longer request; "
				     "workload.over_length \"reject\" counts such rows as rejected)",
				     resolved, i + 1, x[1] + x[2], (long long)sv->max_model_len);
			goto out;
		}
		if (sv->ntrace > 0 && x[0] < sv->trace[sv->ntrace - 1].arrival_s) {
			char prev[32];
			rc = pp_errf(err, PP_EINPUT, "%s:%d: arrival_s: found %s, before the row above's "
				     "%s; expected the rows in time order (a trace as it was recorded)",
				     resolved, i + 1, f[0],
				     pp_fmt_num(sv->trace[sv->ntrace - 1].arrival_s, prev, sizeof(prev)));
			goto out;
		}
		sv->trace[sv->ntrace].arrival_s = x[0];
		sv->trace[sv->ntrace].input_len = (int64_t)x[1];
		sv->trace[sv->ntrace].output_len = (int64_t)x[2];
		sv->ntrace++;
	}
	sv->num_prompts = (int64_t)sv->ntrace;
out:
	pp_csv_release(&c);
	return rc;
}

double pp_lendist_longest(const pp_lendist *L, double tail)
{
	double hi = L->mean;
	if (L->kind == PP_LEN_UNIFORM)
		hi = ceil(L->mean * (1.0 + L->range_ratio));
	else if (L->kind != PP_LEN_FIXED)
		hi = isinf(tail) ? (double)L->max : L->mean + tail * L->stddev;
	return fmax((double)L->min, fmin(hi, (double)L->max));
}

double pp_servework_longest(const pp_servespec *sv, int output, double tail)
{
	if (!sv->trace)
		return pp_lendist_longest(output ? &sv->output : &sv->input, tail);
	double most = 0;
	for (size_t i = 0; i < sv->ntrace; i++)
		most = fmax(most, (double)(output ? sv->trace[i].output_len : sv->trace[i].input_len));
	return most;
}

int64_t pp_servework_longest_prompt(const pp_servespec *sv)
{
	if (sv->trace)
		return (int64_t)pp_servework_longest(sv, 0, INFINITY);
	int64_t longest = sv->prefix_len + (int64_t)pp_servework_longest(sv, 0, INFINITY);
	return longest < sv->max_model_len - 1 ? longest : sv->max_model_len - 1;
}

int pp_servework_parse(pp_servespec *sv, const pp_jdoc *d, const cJSON *wl, pp_err *err)
{
	const char *P = "workload";
	int rc;
	sv->num_prompts = 1000;
	sv->input.kind = sv->output.kind = PP_LEN_FIXED;
	sv->input.mean = 1024;
	sv->output.mean = 128;
	sv->input.min = sv->output.min = 1;
	sv->input.max = sv->output.max = sv->max_model_len;
	sv->request_rate = INFINITY;
	sv->burstiness = 1.0;
	sv->prefix_fraction = 1.0;
	if (!wl)
		goto check;
	if ((rc = pp_jcheck_keys(d, wl, P, workload_keys, PP_ARRAY_LEN(workload_keys), err)))
		return rc;
	char trace[PATH_MAX] = "";
	bool has_trace = false, present;
	if ((rc = pp_jget_str(d, wl, P, "trace", false, trace, sizeof(trace), &has_trace, err)))
		return rc;
	if (has_trace) {
		static const char *const excl[] = {"num_prompts", "input_len", "output_len",
						   "range_ratio", "request_rate", "burstiness"};
		for (size_t i = 0; i < PP_ARRAY_LEN(excl); i++)
			if (cJSON_GetObjectItemCaseSensitive(wl, excl[i])) {
				char path[64];
				pp_jpath(path, sizeof(path), P, excl[i]);
				return pp_jdoc_errf(d, err, path, "found beside a trace; expected the "
						    "arrivals and lengths from workload.trace alone");
			}
	}
	double rr = 0;
	if ((rc = pp_jget_int(d, wl, P, "num_prompts", false, 1, 100000000, &sv->num_prompts, NULL,
			      err)) ||
	    (rc = pp_jget_num(d, wl, P, "range_ratio", false, 0, 0.999999, &rr, NULL, err)) ||
	    (rc = parse_len(d, wl, "input_len", rr, sv->max_model_len, &sv->input, err)) ||
	    (rc = parse_len(d, wl, "output_len", rr, sv->max_model_len, &sv->output, err)))
		return rc;
	const cJSON *rate = cJSON_GetObjectItemCaseSensitive(wl, "request_rate");
	if (cJSON_IsString(rate)) {
		if (strcmp(rate->valuestring, "inf"))
			return pp_jdoc_errf(d, err, "workload.request_rate", "found the string \"%s\", "
					    "expected requests per second or \"inf\"", rate->valuestring);
	} else if (rate) {
		if ((rc = pp_jget_num(d, wl, P, "request_rate", true, PP_SERVE_RATE_MIN, PP_SERVE_RATE_MAX, &sv->request_rate, NULL,
				      err)))
			return rc;
		sv->given |= PP_SG_RATE;
	}
	if ((rc = pp_jget_num(d, wl, P, "burstiness", false, 1e-3, 1e3, &sv->burstiness, NULL, err)) ||
	    (rc = pp_jget_int(d, wl, P, "max_concurrency", false, 1, 100000000, &sv->max_concurrency,
			      NULL, err)) ||
	    (rc = pp_jget_int(d, wl, P, "prefix_len", false, 0, MAX_LEN, &sv->prefix_len, NULL, err)) ||
	    (rc = pp_jget_num(d, wl, P, "prefix_fraction", false, 0, 1, &sv->prefix_fraction, NULL,
			      err)) ||
	    (rc = pp_jget_int(d, wl, P, "max_tokens", false, 1, MAX_LEN, &sv->max_tokens, &present,
			      err)))
		return rc;
	int64_t seed = 0;
	if ((rc = pp_jget_int(d, wl, P, "seed", false, 0, INT64_MAX, &seed, NULL, err)) ||
	    (rc = pp_jget_int(d, wl, P, "warmup_requests", false, 0, 100000000, &sv->warmup_requests,
			      NULL, err)))
		return rc;
	sv->seed = (uint64_t)seed;
	int ol = 0;
	if ((rc = pp_jget_enum(d, wl, P, "over_length", false, over_length_names, 2, &ol, NULL, err)))
		return rc;
	sv->reject_over_length = ol == 1;
	if (has_trace && (rc = load_trace(sv, d, trace, err)))
		return rc;
check:
	if (!sv->chunked_prefill) { /* a prompt runs whole in one step */
		int64_t longest = pp_servework_longest_prompt(sv);
		if (longest > sv->max_num_batched_tokens)
			return pp_jdoc_errf(d, err, "serving.max_num_batched_tokens", "found %lld with "
					    "chunked prefill off and prompts of up to %lld tokens; expected "
					    "at least the longest prompt (or enable_chunked_prefill)",
					    (long long)sv->max_num_batched_tokens, (long long)longest);
	}
	{
		int64_t n = sv->trace ? (int64_t)sv->ntrace : sv->num_prompts;
		if (2 * sv->warmup_requests >= n)
			return pp_jdoc_errf(d, err, "workload.warmup_requests", "found %lld of %lld "
					    "requests; expected fewer than half (the first and the last "
					    "that many are left out of the statistics)",
					    (long long)sv->warmup_requests, (long long)n);
	}
	if (sv->trace || sv->reject_over_length) /* rows checked as loaded; rejects counted */
		return 0;
	/* vLLM rejects a prompt that cannot leave room for its output */
	if (sv->input.kind == PP_LEN_FIXED && sv->output.kind == PP_LEN_FIXED &&
	    sv->prefix_len + sv->input.mean + sv->output.mean > (double)sv->max_model_len)
		return pp_jdoc_errf(d, err, wl && cJSON_GetObjectItemCaseSensitive(wl, "output_len")
						    ? "workload.output_len" : "workload",
				    "found prefix %lld + input %.0f + output %.0f tokens; expected at most "
				    "serving.max_model_len = %lld (vLLM refuses a longer request; "
				    "workload.over_length \"reject\" counts such requests as rejected)",
				    (long long)sv->prefix_len, sv->input.mean, sv->output.mean,
				    (long long)sv->max_model_len);
	/* ... and so does it with the longest a uniform range draws (vllm
	 * bench serve's random dataset: up to ceil(L (1 + range_ratio))),
	 * rather than the prompt being cut to fit */
	if (sv->input.kind <= PP_LEN_UNIFORM && sv->output.kind <= PP_LEN_UNIFORM &&
	    (sv->input.kind == PP_LEN_UNIFORM || sv->output.kind == PP_LEN_UNIFORM)) {
		double hi[2];
		const pp_lendist *L[2] = {&sv->input, &sv->output};
		for (int k = 0; k < 2; k++) {
			hi[k] = L[k]->kind == PP_LEN_UNIFORM ? ceil(L[k]->mean * (1.0 + L[k]->range_ratio))
							     : L[k]->mean;
			/* a max below max_model_len is the user's own bound on the
			 * draws; the default one (max_model_len) hides nothing */
			if (L[k]->max < sv->max_model_len && hi[k] > (double)L[k]->max)
				hi[k] = (double)L[k]->max;
		}
		if ((double)sv->prefix_len + hi[0] + hi[1] > (double)sv->max_model_len)
			return pp_jdoc_errf(d, err, "workload.range_ratio", "draws requests of up to prefix "
					    "%lld + input %.0f + output %.0f tokens; expected at most "
					    "serving.max_model_len = %lld (vLLM refuses a longer request: a "
					    "smaller range_ratio or shorter lengths, or workload.over_length "
					    "\"reject\" to count such requests as rejected)",
					    (long long)sv->prefix_len, hi[0], hi[1],
					    (long long)sv->max_model_len);
	}
	if (sv->prefix_len >= sv->max_model_len)
		return pp_jdoc_errf(d, err, "workload.prefix_len", "found %lld, expected fewer than "
				    "serving.max_model_len = %lld tokens", (long long)sv->prefix_len,
				    (long long)sv->max_model_len);
	return 0;
}
