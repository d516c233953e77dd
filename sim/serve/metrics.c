/* metrics.c - see metrics.h and clientmeas.h. */
#include "serve/metrics.h"
#include "serve/clientmeas.h"
#include "core/sortd.h"
#include "core/util.h"

#include <gsl/gsl_statistics_double.h>
#include <assert.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

double pp_serve_percentile(const double *sorted, size_t n, double p)
{
	if (n == 0)
		return 0;
	return gsl_stats_quantile_from_sorted_data(sorted, 1, n, p / 100.0);
}

void pp_serve_stat_of(double *v, size_t n, double pct, pp_serve_stat *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	if (n == 0)
		return;
	pp_sort_doubles(v, n, v);
	double mean = gsl_stats_mean(v, 1, n), ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	out->mean = mean;
	out->std = sqrt(ss / (double)n);
	out->median = pp_serve_percentile(v, n, 50);
	out->p99 = pp_serve_percentile(v, n, 99);
	out->pct = pp_serve_percentile(v, n, pct);
}

/* A high percentile of many values (the SLO's p99 over a run's 10^5
 * inter-token gaps): a threshold below rank lhs from a sample, the values
 * not under it copied out in one pass (a few per cent of them), and
 * gsl_stats_select on those alone, instead of quickselect's partitions
 * over all n. The threshold is checked, not assumed: when fewer than lhs
 * + 1 values lie under it, ranks lhs and lhs + 1 are among the copies
 * (there at lhs - under and one above); then v[lhs] and v[lhs + 1] are
 * set to them and 1 returned. Else (or for a low percentile, few values,
 * a copy overflowing its room) 0, v untouched: the caller selects over
 * all. */
static int top_pair(double *v, size_t n, size_t lhs)
{
	enum { STRIDE = 32 };
	size_t K = n - lhs;
	if (n < 4096 || K * 16 > n)
		return 0;
	size_t ns = n / STRIDE, cap = K + n / 16 + 64;
	double *smp = pp_xmalloc(sizeof(double) * ns), *top = pp_xmalloc(sizeof(double) * cap);
	for (size_t j = 0; j < ns; j++)
		smp[j] = v[j * STRIDE];
	/* the sample's order statistic some four standard deviations below
	 * lhs's share of it: almost always under rank lhs, and checked below */
	double q = (double)lhs / (double)n, sd = sqrt((double)ns * q * (1 - q));
	double at = q * (double)ns - 4 * sd - 2;
	size_t j = at > 0 ? (size_t)at : 0;
	double tau = gsl_stats_select(smp, 1, ns, j);
	size_t m = 0, under = 0;
	int ok = 1;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < tau) {
			under++;
			continue;
		}
		if (m == cap) {
			ok = 0;
			break;
		}
		top[m++] = v[i];
	}
	if (ok && under <= lhs) {
		size_t r = lhs - under; /* rank lhs among the copies */
		double lo = gsl_stats_select(top, 1, m, r), hi = 0;
		if (r + 1 < m) { /* the least of those after it: rank lhs + 1 */
			size_t b = r + 1;
			for (size_t i = r + 2; i < m; i++)
				if (top[i] < top[b])
					b = i;
			hi = top[b];
		}
		v[lhs] = lo;
		if (lhs + 1 < n)
			v[lhs + 1] = hi;
	} else {
		ok = 0;
	}
	free(smp);
	free(top);
	return ok;
}

void pp_serve_pct_of(double *v, size_t n, double pct, pp_serve_stat *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	out->mean = out->std = out->median = out->p99 = NAN;
	for (int k = 0; k < PP_SERVE_MAX_PCTS; k++)
		out->pcts[k] = NAN;
	if (n == 0)
		return;
	/* the rank below the percentile, as GSL's quantile rule takes it;
	 * GSL's quickselect partitions in place: v[lhs] holds it, nothing
	 * after it is smaller, and the least of those is the rank above
	 * (test_serve checks both against a sort) */
	size_t lhs = (size_t)(int)(pct / 100.0 * (double)(n - 1));
	if (lhs >= n)
		lhs = n - 1;
	if (top_pair(v, n, lhs)) {
		out->pct = pp_serve_percentile(v, n, pct);
		return;
	}
	(void)gsl_stats_select(v, 1, n, lhs);
	if (lhs + 1 < n) {
		size_t m = lhs + 1;
		for (size_t i = lhs + 2; i < n; i++)
			if (v[i] < v[m])
				m = i;
		double t = v[lhs + 1];
		v[lhs + 1] = v[m];
		v[m] = t;
	}
	out->pct = pp_serve_percentile(v, n, pct);
}

/* ---- the client's measurements (clientmeas.h) ---- */

/* A request's latency v of kind k, against the watched bound. */
static void watch(pp_serve_meas *m, int k, double v)
{
	if (m->bound[k] > 0 && v > m->bound[k]) {
		if (!m->over[k] || v < m->over_min[k])
			m->over_min[k] = v;
		m->over[k]++;
	}
}

void pp_serve_meas_tokens(pp_serve_meas *m, pp_sreq *r, const int *ids, int n, double now)
{
	if (m->nitl + (size_t)n > m->capitl) {
		size_t cap = m->capitl ? 2 * m->capitl : 4096;
		if (cap < m->nitl + (size_t)n)
			cap = m->nitl + (size_t)n;
		m->capitl = cap;
		m->itl = pp_xrealloc(m->itl, sizeof(double) * m->capitl);
		m->itl_req = pp_xrealloc(m->itl_req, sizeof(int) * m->capitl);
	}
	/* the gaps' cursor in locals: stores through q would reload them */
	double *itl = m->itl;
	int *itl_req = m->itl_req;
	size_t nitl = m->nitl;
	const bool ends = m->bound[PP_MEAS_TPOT] > 0 || m->bound[PP_MEAS_E2EL] > 0;
	for (int k = 0; k < n; k++) {
		int i = ids[k];
		pp_sreq *q = &r[i];
		if (q->generated == 1) {
			q->first_s = now;
			watch(m, PP_MEAS_TTFT, q->first_s - q->send_s);
		} else {
			itl_req[nitl] = i;
			itl[nitl++] = now - q->last_s;
		}
		q->last_s = now;
		if (ends && q->generated == q->output) {
			/* as pp_serve_finish computes them */
			double ttft = q->first_s - q->send_s, e2el = q->last_s - q->send_s;
			watch(m, PP_MEAS_E2EL, e2el);
			if (q->output > 1)
				watch(m, PP_MEAS_TPOT, (e2el - ttft) / (double)(q->output - 1));
		}
	}
	m->nitl = nitl;
}

void pp_serve_meas_reserve(pp_serve_meas *m, size_t n)
{
	if (n <= m->capitl)
		return;
	m->capitl = n;
	m->itl = pp_xrealloc(m->itl, sizeof(double) * m->capitl);
	m->itl_req = pp_xrealloc(m->itl_req, sizeof(int) * m->capitl);
}

void pp_serve_meas_release(pp_serve_meas *m)
{
	free(m->itl);
	free(m->itl_req);
	memset(m, 0, sizeof(*m));
}

typedef struct fin {
	double t;
	int i;
} fin;

static int by_last(const void *a, const void *b)
{
	const fin *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t ? 1 : x->i - y->i;
}

/* Which requests the statistics count: all, or without the first
 * warmup_requests sent and the last warmup_requests to finish (the
 * duration is then the window from the first counted send to the last
 * counted token). */
static bool *counted(const pp_sreq *r, size_t N, int64_t W)
{
	bool *in = pp_xcalloc(N + 1, sizeof(bool));
	assert(W >= 0 && 2 * (uint64_t)W < (uint64_t)N + (N == 0)); /* pp_serve_check_work */
	for (size_t i = 0; i < N; i++)
		in[i] = (int64_t)i >= W; /* sent in index order */
	if (W > 0) {
		fin *f = pp_xcalloc(N, sizeof(fin));
		for (size_t i = 0; i < N; i++)
			f[i] = (fin){r[i].last_s, (int)i};
		qsort(f, N, sizeof(fin), by_last);
		for (int64_t k = 0; k < W; k++)
			in[f[N - 1 - (size_t)k].i] = false;
		free(f);
	}
	return in;
}

void pp_serve_finish(const pp_serve_setup *su, const pp_sreq *r, size_t N, const double *xfer_s,
		     pp_serve_meas *m, double pct, pp_serve_result *o)
{
	const pp_servespec *sv = &su->sv;
	size_t M = 0;
	int64_t W = sv->warmup_requests;
	bool *in = counted(r, N, W);
	double *ttft = pp_xcalloc(N + 1, sizeof(double)), *tpot = pp_xcalloc(N + 1, sizeof(double)),
	       *e2el = pp_xcalloc(N + 1, sizeof(double));
	size_t ntpot = 0;
	int64_t good = 0;
	double t0 = INFINITY;
	for (size_t i = 0; i < N; i++) {
		const pp_sreq *q = &r[i];
		o->preemptions += q->preemptions;
		if (!in[i])
			continue;
		ttft[M] = q->first_s - q->send_s;
		if (xfer_s && ttft[M] > 0)
			o->transfer_ttft_share += xfer_s[i] / ttft[M];
		e2el[M] = q->last_s - q->send_s;
		double tp = q->output > 1 ? (e2el[M] - ttft[M]) / (double)(q->output - 1) : 0;
		if (q->output > 1)
			tpot[ntpot++] = tp;
		o->total_input_tokens += q->prompt;
		o->total_output_tokens += q->output;
		if (q->last_s > o->duration_s)
			o->duration_s = q->last_s;
		if (q->send_s < t0)
			t0 = q->send_s;
		/* vllm bench serve --goodput: every given bound, TPOT 0 for one token */
		bool ok = (!sv->slo_ttft_s || ttft[M] <= sv->slo_ttft_s) &&
			  (!sv->slo_tpot_s || tp <= sv->slo_tpot_s) &&
			  (!sv->slo_e2el_s || e2el[M] <= sv->slo_e2el_s);
		good += ok;
		M++;
	}
	if (W > 0 && isfinite(t0)) /* the window of the counted requests */
		o->duration_s -= t0;
	if (W > 0) { /* the gaps of the counted requests */
		size_t k = 0;
		for (size_t j = 0; j < m->nitl; j++)
			if (in[m->itl_req[j]])
				m->itl[k++] = m->itl[j];
		m->nitl = k;
	}
	free(in);
	o->completed = (int64_t)M;
	if (M > 0)
		o->transfer_ttft_share /= (double)M;
	o->num_prompts = (int64_t)N;
	double d = o->duration_s > 0 ? o->duration_s : 1e-12;
	o->request_throughput = (double)M / d;
	o->output_throughput = (double)o->total_output_tokens / d;
	o->total_token_throughput = (double)(o->total_input_tokens + o->total_output_tokens) / d;
	o->request_goodput = sv->slo_present ? (double)good / d : 0;
	void (*stat)(double *, size_t, double, pp_serve_stat *) =
		su->pct_only ? pp_serve_pct_of : pp_serve_stat_of;
	stat(ttft, M, pct, &o->ttft);
	stat(tpot, ntpot, pct, &o->tpot);
	stat(e2el, M, pct, &o->e2el);
	stat(m->itl, m->nitl, pct, &o->itl);
	for (int k = 0; !su->pct_only && k < su->npcts && k < PP_SERVE_MAX_PCTS; k++) { /* the arrays are sorted now */
		double p = su->pcts[k];
		o->ttft.pcts[k] = pp_serve_percentile(ttft, M, p);
		o->tpot.pcts[k] = pp_serve_percentile(tpot, ntpot, p);
		o->e2el.pcts[k] = pp_serve_percentile(e2el, M, p);
		o->itl.pcts[k] = pp_serve_percentile(m->itl, m->nitl, p);
	}
	o->slo_met = (!sv->slo_ttft_s || o->ttft.pct <= sv->slo_ttft_s) &&
		     (!sv->slo_tpot_s || o->tpot.pct <= sv->slo_tpot_s) &&
		     (!sv->slo_itl_s || o->itl.pct <= sv->slo_itl_s) &&
		     (!sv->slo_e2el_s || o->e2el.pct <= sv->slo_e2el_s);
	if (o->iterations) {
		o->mean_batch_tokens /= (double)o->iterations;
		o->mean_running /= (double)o->iterations;
	}
	free(ttft);
	free(tpot);
	free(e2el);
}

