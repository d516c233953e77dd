/* requests.c - see requests.h. */
#include "serve/requests.h"
#include "core/util.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int64_t pp_lendist_draw(const pp_lendist *L, void *rng)
{
	gsl_rng *g = rng;
	double x = L->mean;
	switch (L->kind) {
	case PP_LEN_UNIFORM: {
		/* vllm bench serve --random-range-ratio r: integers in
		 * [floor(L (1 - r)), ceil(L (1 + r))] */
		int64_t lo = (int64_t)floor(L->mean * (1.0 - L->range_ratio));
		int64_t hi = (int64_t)ceil(L->mean * (1.0 + L->range_ratio));
		x = (double)(lo + (int64_t)gsl_rng_uniform_int(g, (unsigned long)(hi - lo + 1)));
		break;
	}
	case PP_LEN_NORMAL:
		x = round(L->mean + gsl_ran_gaussian(g, L->stddev));
		break;
	case PP_LEN_LOGNORMAL: {
		/* the lognormal whose mean and standard deviation are the given ones */
		double s2 = log(1.0 + L->stddev * L->stddev / (L->mean * L->mean));
		x = round(gsl_ran_lognormal(g, log(L->mean) - s2 / 2, sqrt(s2)));
		break;
	}
	default:
		break;
	}
	if (x < (double)L->min)
		x = (double)L->min;
	if (x > (double)L->max)
		x = (double)L->max;
	return (int64_t)x;
}

void pp_serve_requests(const pp_servespec *sv, double rate, uint64_t seed, pp_sreq **out, size_t *n)
{
	size_t N = sv->trace ? sv->ntrace : (size_t)sv->num_prompts;
	pp_sreq *r = pp_xcalloc(N ? N : 1, sizeof(*r));
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(g, (unsigned long)seed);
	double t = 0;
	for (size_t i = 0; i < N; i++) {
		pp_sreq *q = &r[i];
		q->replica = -1;
		if (sv->trace) {
			q->prompt = sv->trace[i].input_len;
			q->output = sv->trace[i].output_len;
			q->arrival_s = isinf(rate) ? 0 : sv->trace[i].arrival_s / rate;
		} else {
			int64_t in = pp_lendist_draw(&sv->input, g), outl = pp_lendist_draw(&sv->output, g);
			bool pre = sv->prefix_len > 0 && gsl_rng_uniform(g) < sv->prefix_fraction;
			q->prefix = pre ? sv->prefix_len : 0;
			/* as drawn: one too long for max_model_len is refused or
			 * rejected whole (pp_serve_admit), never cut */
			q->prompt = q->prefix + in;
			q->output = outl;
			/* unit-rate gamma inter-arrival (vllm bench serve: shape
			 * burstiness, scale 1 / (rate burstiness)) */
			double gap = gsl_ran_gamma(g, sv->burstiness, 1.0 / sv->burstiness);
			q->arrival_s = isinf(rate) ? 0 : t / rate;
			t += gap;
		}
		q->max_tokens = sv->max_tokens > q->output ? sv->max_tokens : q->output;
	}
	gsl_rng_free(g);
	*out = r;
	*n = N;
}

/* A length distribution's mean as drawn: within [min, max]. */
static double len_mean(const pp_lendist *L)
{
	double m = L->mean;
	if (m < (double)L->min)
		m = (double)L->min;
	if (m > (double)L->max)
		m = (double)L->max;
	return m;
}

double pp_serve_work_tokens(const pp_servespec *sv)
{
	if (sv->trace) {
		double t = 0;
		for (size_t i = 0; i < sv->ntrace; i++)
			t += (double)sv->trace[i].input_len + (double)sv->trace[i].output_len;
		return t;
	}
	double one = (double)sv->prefix_len * sv->prefix_fraction + len_mean(&sv->input) +
		     len_mean(&sv->output);
	if (one > (double)sv->max_model_len)
		one = (double)sv->max_model_len;
	return (double)sv->num_prompts * one;
}

double pp_serve_offered_rps(const pp_servespec *sv, double rate, const pp_sreq *q, size_t n)
{
	if (!sv->trace)
		return rate;
	double first = INFINITY, last = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (q[i].arrival_s < first)
			first = q[i].arrival_s;
		if (q[i].arrival_s > last)
			last = q[i].arrival_s;
	}
	return n > 1 && last > first ? (double)(n - 1) / (last - first) : NAN;
}

int pp_serve_check_work(const pp_servespec *sv, int replicas, double runs, pp_err *err)
{
	double n = sv->trace ? (double)sv->ntrace : (double)sv->num_prompts;
	const char *key = sv->trace ? "the rows of workload.trace" : "workload.num_prompts";
	if (n > PP_SERVE_LIMIT_REQUESTS)
		return pp_errf(err, PP_EINPUT, "serve: found %.0f requests (%s), above the limit of "
			       "%d a simulation; expected fewer requests", n, key,
			       PP_SERVE_LIMIT_REQUESTS);
	if (replicas > PP_SERVE_LIMIT_REPLICAS)
		return pp_errf(err, PP_EINPUT, "serve: found %d instances (serving.data_parallel_size), "
			       "above the limit of %d a simulation; expected fewer", replicas,
			       PP_SERVE_LIMIT_REPLICAS);
	if (2 * (double)sv->warmup_requests >= n)
		return pp_errf(err, PP_EINPUT, "serve: found workload.warmup_requests = %lld of %.0f "
			       "requests; expected fewer than half (the first and the last that many "
			       "are left out of the statistics)", (long long)sv->warmup_requests, n);
	double tok = pp_serve_work_tokens(sv);
	if (tok > PP_SERVE_LIMIT_TOKENS)
		return pp_errf(err, PP_EINPUT, "serve: found %.0f requests x %.0f tokens a request = "
			       "%.3g tokens (%s x (input_len + output_len)), above the limit of %.3g "
			       "tokens a simulation; expected fewer or shorter requests", n,
			       n > 0 ? tok / n : 0, tok, key, PP_SERVE_LIMIT_TOKENS);
	if (tok * runs > PP_SERVE_LIMIT_WORK)
		return pp_errf(err, PP_EINPUT, "serve: found %.3g tokens a simulation (%s x "
			       "(input_len + output_len)) x %.0f simulations = %.3g tokens, above the "
			       "limit of %.3g simulated tokens a command; expected fewer or shorter "
			       "requests", tok, key, runs, tok * runs, PP_SERVE_LIMIT_WORK);
	return 0;
}

/* The output tokens sv's workload asks for in one run: a bound on the
 * run's iterations (each samples a token of every request it decodes). */
static double output_tokens(const pp_servespec *sv)
{
	if (sv->trace) {
		double t = 0;
		for (size_t i = 0; i < sv->ntrace; i++)
			t += (double)sv->trace[i].output_len;
		return t;
	}
	return (double)sv->num_prompts * fmin(len_mean(&sv->output), (double)sv->max_model_len);
}

int pp_serve_check_search_work(const pp_servespec *sv, int layouts, pp_err *err)
{
	double n = sv->trace ? (double)sv->ntrace : (double)sv->num_prompts;
	double tok = output_tokens(sv);
	int m = layouts > PP_SERVE_SEARCH_MIN_LAYOUTS ? layouts : PP_SERVE_SEARCH_MIN_LAYOUTS;
	if (!(tok * m > PP_SERVE_LIMIT_SEARCH_WORK))
		return 0;
	char counted[40] = "";
	if (layouts < m)
		snprintf(counted, sizeof(counted), " (counted as %d)", m);
	return pp_errf(err, PP_EINPUT, "serve --search: found %.0f requests x %.0f output tokens "
		       "a request = %.3g output tokens a simulation (%s x output_len) x %d layouts%s = "
		       "%.3g, above the limit of %.3g output tokens x layouts a search; expected "
		       "fewer or shorter requests (%s, workload.input_len, workload.output_len) or "
		       "fewer layouts (set serving.tensor_parallel_size, pipeline_parallel_size, "
		       "max_num_seqs or max_num_batched_tokens in the scenario to fix them)", n,
		       n > 0 ? tok / n : 0, tok, sv->trace ? "the rows of workload.trace" :
		       "workload.num_prompts", layouts, counted, tok * m, PP_SERVE_LIMIT_SEARCH_WORK,
		       sv->trace ? "the rows of workload.trace" : "workload.num_prompts");
}

int pp_serve_admit(const pp_servespec *sv, pp_sreq *q, size_t *n, int64_t *rejected, pp_err *err)
{
	size_t k = 0;
	int64_t L = sv->max_model_len;
	*rejected = 0;
	for (size_t i = 0; i < *n; i++) {
		/* vLLM: the engine's processor refuses a prompt of max_model_len
		 * tokens or more, the OpenAI server one whose prompt + max_tokens
		 * passes max_model_len (HTTP 400) */
		bool over = q[i].prompt >= L || q[i].prompt + q[i].max_tokens > L;
		if (!over) {
			q[k++] = q[i];
			continue;
		}
		if (!sv->reject_over_length) {
			if (sv->trace)
				return pp_errf(err, PP_EINPUT, "serve: %s:%zu: input_len + output_len = %lld, "
					       "above serving.max_model_len = %lld; expected at most that (vLLM "
					       "refuses a longer request; workload.over_length \"reject\" counts "
					       "it as rejected)", sv->trace_path, i + 2,
					       (long long)(q[i].prompt + q[i].max_tokens), (long long)L);
			return pp_errf(err, PP_EINPUT, "serve: request %zu of workload (seed %llu) draws a "
				       "prompt of %lld tokens (shared prefix %lld) and max_tokens %lld: %lld "
				       "tokens, above serving.max_model_len = %lld; expected every request "
				       "within it (vLLM refuses a longer one: shorter lengths, or "
				       "workload.over_length \"reject\" to count such requests as rejected)",
				       i, (unsigned long long)sv->seed, (long long)q[i].prompt,
				       (long long)q[i].prefix, (long long)q[i].max_tokens,
				       (long long)(q[i].prompt + q[i].max_tokens), (long long)L);
		}
		(*rejected)++;
	}
	*n = k;
	if (k == 0)
		return pp_errf(err, PP_EINPUT, "serve: every one of the workload's %lld requests is "
			       "longer than serving.max_model_len = %lld (workload.over_length \"reject\" "
			       "rejected them all); expected shorter requests or a longer max_model_len",
			       (long long)*rejected, (long long)L);
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static double median_i64(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

double pp_serve_trace_rps(const pp_servespec *sv)
{
	if (!sv->trace || sv->ntrace < 2)
		return NAN;
	double span = sv->trace[sv->ntrace - 1].arrival_s - sv->trace[0].arrival_s;
	return span > 0 ? (double)(sv->ntrace - 1) / span : NAN;
}

void pp_serve_trace_facts(const pp_servespec *sv, pp_trace_facts *f)
{
	memset(f, 0, sizeof(*f));
	size_t n = sv->ntrace;
	f->rows = n;
	f->mean_rps = pp_serve_trace_rps(sv);
	if (!sv->trace || n == 0)
		return;
	int64_t *v = pp_xcalloc(n, sizeof(*v));
	double si = 0, so = 0;
	for (size_t i = 0; i < n; i++) {
		si += (double)sv->trace[i].input_len;
		so += (double)sv->trace[i].output_len;
		v[i] = sv->trace[i].input_len;
	}
	f->input_mean = si / (double)n;
	f->input_median = median_i64(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = sv->trace[i].output_len;
	f->output_mean = so / (double)n;
	f->output_median = median_i64(v, n);
	free(v);
	f->duration_s = sv->trace[n - 1].arrival_s - sv->trace[0].arrival_s;
}

double pp_serve_configured_rps(const pp_servespec *sv, double rate)
{
	if (!sv->trace || isinf(rate))
		return rate;
	double t = pp_serve_trace_rps(sv);
	return isnan(t) ? t : rate * t;
}

int pp_serve_trace_factor(const pp_servespec *sv, double *rate, pp_err *err)
{
	if (!sv->trace || isinf(*rate))
		return 0;
	double t = pp_serve_trace_rps(sv);
	if (isnan(t))
		return pp_errf(err, PP_EINPUT, "--rate %g: the trace %s has %s, so no rate to "
			       "rescale; expected --rate inf or no --rate", *rate, sv->trace_path,
			       sv->ntrace < 2 ? "one row" : "every arrival at one time");
	*rate /= t;
	return 0;
}
