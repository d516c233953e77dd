/*
 * test_requests.c - the requests a serving benchmark sends (serve/
 * requests.h), drawn as `vllm bench serve` draws them: each length shape's
 * range and mean, arrivals at infinite and finite rates with common random
 * numbers across rates, the shared prefix, a request longer than
 * max_model_len refused or counted as rejected (never cut) and a trace
 * replayed, at its own rate and rescaled. Expected values are the distributions' own (the uniform
 * range vllm's --random-range-ratio gives, a gamma of shape b and scale
 * 1/(rate b) has mean 1/rate), with tolerances of several standard errors
 * at the fixed seeds used.
 */
#include "harness.h"
#include "serve/requests.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N 20000

static pp_lendist len(pp_len_kind k, double mean, double r_or_sd, int64_t min, int64_t max)
{
	pp_lendist L = {0};
	L.kind = k;
	L.mean = mean;
	if (k == PP_LEN_UNIFORM)
		L.range_ratio = r_or_sd;
	else
		L.stddev = r_or_sd;
	L.min = min;
	L.max = max;
	return L;
}

/* N draws of L: their least, greatest and mean. */
static void draws(const pp_lendist *L, int64_t *lo, int64_t *hi, double *mean)
{
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(g, 11);
	*lo = INT64_MAX;
	*hi = INT64_MIN;
	double sum = 0;
	for (int i = 0; i < N; i++) {
		int64_t x = pp_lendist_draw(L, g);
		*lo = x < *lo ? x : *lo;
		*hi = x > *hi ? x : *hi;
		sum += (double)x;
	}
	*mean = sum / N;
	gsl_rng_free(g);
}

static void length_shapes(void)
{
	int64_t lo, hi;
	double mean;
	pp_lendist L = len(PP_LEN_FIXED, 300, 0, 1, 4096);
	draws(&L, &lo, &hi, &mean);
	CHECK(lo == 300 && hi == 300);
	/* --random-range-ratio 0.5 at 100: integers in [50, 150], each drawn
	 * ((100/101)^20000 of missing one) */
	L = len(PP_LEN_UNIFORM, 100, 0.5, 1, 4096);
	draws(&L, &lo, &hi, &mean);
	CHECK(lo == 50 && hi == 150);
	CHECK_NEAR(mean, 100, 0.01);
	CHECK_NEAR(pp_lendist_longest(&L, INFINITY), 150, 1e-12);
	/* clamped to [80, 120]: both ends reached, nothing beyond */
	L = len(PP_LEN_UNIFORM, 100, 0.5, 80, 120);
	draws(&L, &lo, &hi, &mean);
	CHECK(lo == 80 && hi == 120);
	CHECK_NEAR(pp_lendist_longest(&L, INFINITY), 120, 1e-12);
	/* normal 500 +- 50: standard error 0.35 tokens */
	L = len(PP_LEN_NORMAL, 500, 50, 1, 1000000);
	draws(&L, &lo, &hi, &mean);
	CHECK_NEAR(mean, 500, 0.005);
	CHECK(lo > 250 && hi < 750); /* 5 sigma */
	CHECK_NEAR(pp_lendist_longest(&L, 3), 650, 1e-12);
	CHECK_NEAR(pp_lendist_longest(&L, INFINITY), 1000000, 1e-12);
	/* lognormal with mean 300 and sd 250 (MLPerf's OpenOrca shape in
	 * models/validation/serving): standard error 1.8 tokens */
	L = len(PP_LEN_LOGNORMAL, 300, 250, 1, 1000000);
	draws(&L, &lo, &hi, &mean);
	CHECK_NEAR(mean, 300, 0.03);
	CHECK(lo >= 1);
}

static pp_servespec spec(void)
{
	pp_servespec sv;
	memset(&sv, 0, sizeof(sv));
	sv.num_prompts = 2000;
	sv.input = len(PP_LEN_FIXED, 100, 0, 1, 4096);
	sv.output = len(PP_LEN_FIXED, 50, 0, 1, 4096);
	sv.max_model_len = 4096;
	sv.burstiness = 1;
	sv.prefix_fraction = 1;
	return sv;
}

static void arrivals(void)
{
	pp_servespec sv = spec();
	pp_sreq *a, *b, *c;
	size_t na, nb, nc;
	pp_serve_requests(&sv, INFINITY, 3, &a, &na);
	pp_serve_requests(&sv, 10, 3, &b, &nb);
	pp_serve_requests(&sv, 20, 3, &c, &nc);
	CHECK(na == 2000 && nb == 2000 && nc == 2000);
	bool zero = true, scaled = true, order = true;
	for (size_t i = 0; i < na; i++) {
		zero &= a[i].arrival_s == 0;
		scaled &= fabs(b[i].arrival_s - 2 * c[i].arrival_s) <= 1e-9 * (1 + b[i].arrival_s);
		order &= i == 0 || b[i].arrival_s >= b[i - 1].arrival_s;
	}
	CHECK(zero && scaled && order);
	CHECK(b[0].arrival_s == 0);
	/* 1999 gaps of mean 1/10 s: standard error 2.2% */
	CHECK_NEAR(b[na - 1].arrival_s, 1999 / 10.0, 0.08);
	CHECK(b[5].prompt == 100 && b[5].output == 50 && b[5].max_tokens == 50);
	free(a);
	free(b);
	free(c);
	/* burstiness 4 keeps the mean rate */
	sv.burstiness = 4;
	pp_serve_requests(&sv, 10, 3, &a, &na);
	CHECK_NEAR(a[na - 1].arrival_s, 1999 / 10.0, 0.04);
	free(a);
}

static void prefix_and_max_tokens(void)
{
	pp_servespec sv = spec();
	sv.prefix_len = 20;
	sv.max_tokens = 64;
	pp_sreq *r;
	size_t n;
	pp_serve_requests(&sv, INFINITY, 5, &r, &n);
	bool all = true;
	for (size_t i = 0; i < n; i++)
		all &= r[i].prefix == 20 && r[i].prompt == 120 && r[i].max_tokens == 64;
	CHECK(all);
	free(r);
	sv.prefix_fraction = 0.5;
	pp_serve_requests(&sv, INFINITY, 5, &r, &n);
	int with = 0;
	for (size_t i = 0; i < n; i++)
		with += r[i].prefix == 20;
	CHECK(with > 900 && with < 1100); /* 1000 +- 22 */
	free(r);
}

/* Never cut: a request longer than max_model_len is drawn as it is and
 * then refused (the workload is bad input) or, with over_length
 * "reject", taken out and counted, as vLLM's server answers it with an
 * error (prompt >= max_model_len, or prompt + max_tokens above it). */
static void over_length_refused_or_rejected(void)
{
	pp_servespec sv = spec();
	sv.input = len(PP_LEN_UNIFORM, 100, 0.5, 1, 4096); /* 50..150 */
	sv.prefix_len = 10;
	sv.max_model_len = 130;
	pp_sreq *r;
	size_t n;
	pp_serve_requests(&sv, INFINITY, 7, &r, &n);
	/* drawn whole: prefix + the range's top, output 50 as asked */
	int64_t most = 0, over = 0;
	bool whole = true;
	for (size_t i = 0; i < n; i++) {
		most = r[i].prompt > most ? r[i].prompt : most;
		whole &= r[i].output == 50 && r[i].max_tokens == 50;
		/* prompt + max_tokens > 130, by hand: prefix 10 + input > 70 */
		over += r[i].prompt - 10 > 70;
	}
	CHECK(whole && most == 160 && n == 2000);
	/* about (150 - 70) / 101 of the uniform draws are too long */
	CHECK(fabs((double)over / 2000 - 80.0 / 101) < 0.04);
	pp_err err = {0};
	int64_t rej = -1;
	size_t m = n;
	CHECK(pp_serve_admit(&sv, r, &m, &rej, &err) == PP_EINPUT);
	CHECK(strstr(err.msg, "max_model_len = 130") && strstr(err.msg, "over_length"));
	sv.reject_over_length = true;
	m = n;
	CHECK(pp_serve_admit(&sv, r, &m, &rej, &err) == 0);
	CHECK(rej == over && m == n - (size_t)over);
	bool within = true;
	for (size_t i = 0; i < m; i++)
		within &= r[i].prompt + r[i].max_tokens <= 130 && r[i].prompt < 130;
	CHECK(within);
	free(r);
	/* every one too long: an error, not an empty run */
	sv.input = len(PP_LEN_FIXED, 200, 0, 1, 4096);
	pp_serve_requests(&sv, INFINITY, 7, &r, &n);
	m = n;
	CHECK(pp_serve_admit(&sv, r, &m, &rej, &err) == PP_EINPUT && rej == (int64_t)n);
	free(r);
}

static void trace_replayed(void)
{
	pp_servespec sv = spec();
	pp_trace_row rows[3] = {{0, 10, 5}, {1.5, 700, 20}, {4, 30, 900}};
	sv.trace = rows;
	sv.ntrace = 3;
	sv.num_prompts = 3;
	pp_sreq *r;
	size_t n;
	pp_serve_requests(&sv, 2, 1, &r, &n);
	CHECK(n == 3);
	CHECK(r[1].prompt == 700 && r[1].output == 20 && r[1].arrival_s == 0.75);
	CHECK(r[2].arrival_s == 2 && r[2].output == 900 && r[2].max_tokens == 900);
	CHECK(pp_servework_longest_prompt(&sv) == 700);
	CHECK(pp_servework_longest(&sv, 1, 3) == 900);
	free(r);
	/* its own rate: 2 gaps over 4 s; at 2 x that, arrivals at half the
	 * times and the configured rate 1 req/s */
	CHECK(pp_serve_trace_rps(&sv) == 0.5);
	CHECK(pp_serve_configured_rps(&sv, 2) == 1.0);
	pp_trace_facts f;
	pp_serve_trace_facts(&sv, &f);
	CHECK(f.rows == 3 && f.duration_s == 4 && f.input_median == 30 && f.output_median == 20);
	CHECK(fabs(f.input_mean - 740.0 / 3) < 1e-9 && fabs(f.output_mean - 925.0 / 3) < 1e-9);
	/* one row: no rate to rescale */
	sv.ntrace = 1;
	CHECK(isnan(pp_serve_trace_rps(&sv)));
}

int main(void)
{
	RUN(length_shapes);
	RUN(arrivals);
	RUN(prefix_and_max_tokens);
	RUN(over_length_refused_or_rejected);
	RUN(trace_replayed);
	return pp_t_done("test_requests");
}
