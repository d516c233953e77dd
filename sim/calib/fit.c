/* fit.c - see fit.h. */
#include "calib/fit.h"
#include "calib/calibdb.h"
#include "calib/fitstat.h"
#include "calib/hwres.h"
#include "engine/collective.h"
#include "engine/compute.h"
#include "core/jsonget.h"
#include "core/util.h"

#include <ctype.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_pt(const void *a, const void *b)
{
	double x = ((const pp_fit_point *)a)->bytes, y = ((const pp_fit_point *)b)->bytes;
	return x < y ? -1 : x > y;
}

typedef struct line {
	double a, b, ca, cb; /* intercept, slope, 95% half-widths */
	double rss;          /* weighted (relative) residual sum of squares */
} line;

/* Weighted least squares t = a + b x over pts[lo, hi), weights 1/t^2; a
 * negative intercept is refitted through the origin. */
static void fit_line(const pp_fit_point *pts, int lo, int hi, line *L)
{
	int n = hi - lo;
	double *x = pp_xmalloc(sizeof(double) * (size_t)n), *y = pp_xmalloc(sizeof(double) * (size_t)n),
	       *w = pp_xmalloc(sizeof(double) * (size_t)n);
	for (int i = 0; i < n; i++) {
		x[i] = pts[lo + i].bytes;
		y[i] = pts[lo + i].time_s;
		w[i] = 1.0 / (y[i] * y[i]);
	}
	double c0, c1, v00, v01, v11, chisq;
	gsl_fit_wlinear(x, 1, w, 1, y, 1, (size_t)n, &c0, &c1, &v00, &v01, &v11, &chisq);
	double scale = n > 2 ? chisq / (n - 2) : 1.0;
	if (c0 < 0 || !isfinite(c0)) {
		double sumsq = 0;
		gsl_fit_wmul(x, 1, w, 1, y, 1, (size_t)n, &c1, &v11, &sumsq);
		c0 = 0;
		v00 = 0;
		chisq = sumsq;
		scale = n > 1 ? chisq / (n - 1) : 1.0;
	}
	L->a = c0;
	L->b = c1;
	L->ca = 1.96 * sqrt(v00 * scale);
	L->cb = 1.96 * sqrt(v11 * scale);
	L->rss = chisq;
	free(x);
	free(y);
	free(w);
}

int pp_fit_collective(pp_coll_fit *f, pp_fit_piece_ci *ci, double *rms, const pp_fit_point *in,
		      int n, pp_err *err)
{
	if (n < 3)
		return pp_errf(err, PP_EINPUT, "%s over %d GPUs: %d sizes measured, need at least 3 "
			       "to fit", pp_coll_names[f->op], f->nranks, n);
	pp_fit_point *pts = pp_xmalloc(sizeof(pp_fit_point) * (size_t)n);
	memcpy(pts, in, sizeof(pp_fit_point) * (size_t)n);
	qsort(pts, (size_t)n, sizeof(pp_fit_point), cmp_pt);
	const int minp = 3;
	double best_aic = INFINITY;
	int best_k = 1, best_cut[PP_FIT_PIECES] = {0};
	/* 1, 2 or 3 pieces; cuts between measured sizes, at least minp points
	 * per piece; BIC: n ln(rss/n) + ln(n) x parameters */
	for (int k = 1; k <= 3; k++) {
		int c1_max = k >= 2 ? n - minp * (k - 1) : 0;
		for (int c1 = k >= 2 ? minp : n; c1 <= (k >= 2 ? c1_max : n); c1++) {
			for (int c2 = k == 3 ? c1 + minp : n; c2 <= (k == 3 ? n - minp : n); c2++) {
				int cuts[4] = {0, k >= 2 ? c1 : n, k == 3 ? c2 : n, n};
				double rss = 0;
				for (int p = 0; p < k; p++) {
					line L;
					fit_line(pts, cuts[p], cuts[p + 1], &L);
					rss += L.rss;
				}
				double aic = n * log((rss + 1e-300) / n) + log((double)n) * (3 * k - 1);
				if (aic < best_aic - 1e-9) {
					best_aic = aic;
					best_k = k;
					best_cut[0] = cuts[1];
					best_cut[1] = cuts[2];
				}
				if (k < 3)
					break;
			}
			if (k < 2)
				break;
		}
	}
	int cuts[4] = {0, best_k >= 2 ? best_cut[0] : n, best_k == 3 ? best_cut[1] : n, n};
	double factor = pp_coll_busbw_factor(f->op, f->nranks);
	double ss = 0;
	f->npieces = best_k;
	for (int p = 0; p < best_k; p++) {
		line L;
		fit_line(pts, cuts[p], cuts[p + 1], &L);
		f->piece[p].lo_bytes = p ? 0.5 * (pts[cuts[p] - 1].bytes + pts[cuts[p]].bytes) : 0;
		f->piece[p].hi_bytes = p + 1 < best_k ? 0.5 * (pts[cuts[p + 1] - 1].bytes +
							      pts[cuts[p + 1]].bytes)
						      : INFINITY;
		f->piece[p].alpha_s = L.a;
		f->piece[p].busbw_Bps = L.b > 0 ? factor / L.b : INFINITY;
		ci[p].alpha_ci_s = L.ca;
		/* d(busbw) = factor / b^2 db */
		ci[p].busbw_ci_Bps = L.b > 0 ? factor / (L.b * L.b) * L.cb : 0;
		ci[p].points = cuts[p + 1] - cuts[p];
		for (int i = cuts[p]; i < cuts[p + 1]; i++) {
			double pred = L.a + L.b * pts[i].bytes;
			double r = pred / pts[i].time_s - 1.0;
			ss += r * r;
		}
	}
	*rms = sqrt(ss / n);
	free(pts);
	return 0;
}

/* ---- from the store ---- */

static const char *gpu_from_name(const char *name)
{
	char low[128];
	size_t i;
	for (i = 0; name && name[i] && i + 1 < sizeof(low); i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	low[i] = '\0';
	if (strstr(low, "h200"))
		return "h200";
	if (strstr(low, "h100") && strstr(low, "pcie"))
		return "h100-pcie";
	if (strstr(low, "h100"))
		return "h100-sxm";
	if (strstr(low, "a100") && strstr(low, "40"))
		return "a100-40gb";
	if (strstr(low, "a100"))
		return "a100-80gb";
	if (strstr(low, "b200"))
		return "b200";
	if (strstr(low, "l40s"))
		return "l40s";
	if (strstr(low, "4090"))
		return "rtx4090";
	return NULL;
}

static int hw_for_gpu(const pp_catalog *cat, const pp_gpu *g, pp_hw *hw, pp_err *err)
{
	pp_cluster cl;
	memset(&cl, 0, sizeof(cl));
	cl.gpu = g;
	cl.num_gpus = g->gpus_per_node;
	cl.gpus_per_node = g->gpus_per_node;
	cl.intra = pp_catalog_fabric(cat, g->intra_node);
	cl.inter = pp_catalog_fabric(cat, "ib-ndr");
	cl.nics_per_node = g->gpus_per_node;
	cl.oversubscription = 1;
	cl.storage = pp_catalog_storage_at(cat, 0);
	if (!cl.intra || !cl.inter || !cl.storage)
		return pp_errf(err, PP_EINPUT, "catalog lacks the fabrics or storage to fit %s", g->id);
	cl.storage_read_Bps = cl.storage->read_Bps_per_node;
	cl.storage_write_Bps = cl.storage->write_Bps_per_node;
	/* the baseline a profile is fitted against: the catalog's figures, no
	 * profile (one fitted over another would compound) */
	return pp_hw_resolve(hw, cat, &cl, NULL, err);
}

static int coll_of(const char *op)
{
	for (int i = 0; op && i < PP_COLL_COUNT; i++)
		if (!strcmp(op, pp_coll_names[i]))
			return i;
	return -1;
}

static int dtype_of(const char *d)
{
	for (int i = 0; d && i < PP_DT_COUNT; i++)
		if (!strcmp(d, pp_dtype_names[i]))
			return i;
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* A run with wrong results (a checked element that differed: nccl-tests'
 * #wrong, podplan-calibrate's check) was measured on a faulty machine, so
 * none of its timings is calibration data: PP_EINPUT naming the run, how
 * many rows and elements, and the first row. */
static int refuse_wrong(int64_t run, const pp_calib_meas *rows, size_t n, pp_err *err)
{
	int64_t wrong = 0;
	int nrows = 0;
	const pp_calib_meas *first = NULL;
	for (size_t i = 0; i < n; i++)
		if (rows[i].wrong != PP_CALIB_NULL && rows[i].wrong > 0) {
			if (!first)
				first = &rows[i];
			nrows++;
			wrong += rows[i].wrong;
		}
	if (!first)
		return 0;
	char b[32] = "";
	if (first->bytes != PP_CALIB_NULL)
		snprintf(b, sizeof(b), " %lld bytes", (long long)first->bytes);
	return pp_errf(err, PP_EINPUT, "fit: run %lld has %d measurement%s with wrong results "
		       "(%lld wrong elements; the first: %s %s%s%s, %lld wrong): the machine "
		       "delivered wrong data (a faulty GPU, NVLink, NIC or driver), so its timings "
		       "are not calibration data; expected runs without wrong elements (fix the "
		       "machine and measure again, or leave the run out with --run)", (long long)run,
		       nrows, nrows == 1 ? "" : "s", (long long)wrong, first->kind ? first->kind : "",
		       first->op ? first->op : "", b,
		       first->inplace == 1 ? " in-place" : first->inplace == 0 ? " out-of-place" : "",
		       (long long)first->wrong);
}

/* Every measurement of the runs into *all (heap; pp_calib_meas_free),
 * their ids into out->runs, the first run's GPU name into out->gpu; when
 * *gpu_id is NULL, the catalog GPU of the first run whose name tells it. */
static int collect_runs(pp_store *st, const int64_t *runs, int nruns, const char **gpu_id,
			pp_profile *out, pp_calib_meas **all, size_t *nall, pp_err *err)
{
	int rc;
	for (int r = 0; r < nruns; r++) {
		pp_calib_run run;
		pp_calib_run_init(&run);
		if ((rc = pp_calibdb_get_run(st, runs[r], &run, err)))
			return rc;
		if (!*gpu_id)
			*gpu_id = gpu_from_name(run.gpu_name);
		if (!out->gpu[0])
			snprintf(out->gpu, sizeof(out->gpu), "%s", run.gpu_name ? run.gpu_name : "");
		pp_calib_run_release(&run);
		pp_calib_meas *rows = NULL;
		size_t n = 0;
		if ((rc = pp_calibdb_query(st, runs[r], NULL, &rows, &n, err)))
			return rc;
		if ((rc = refuse_wrong(runs[r], rows, n, err))) {
			pp_calib_meas_free(rows, n);
			return rc;
		}
		if (n) { /* a run without measurements has rows == NULL */
			*all = pp_xrealloc(*all, sizeof(pp_calib_meas) * (*nall + n));
			memcpy(*all + *nall, rows, sizeof(pp_calib_meas) * n);
			*nall += n;
		}
		free(rows); /* the strings now belong to all[] */
		out->runs[out->nruns++] = runs[r];
	}
	return 0;
}

/* ---- collectives ---- */

static pp_scope scope_of(const pp_calib_meas *m)
{
	return m->scope && !strcmp(m->scope, "net") ? PP_SCOPE_INTER : PP_SCOPE_INTRA;
}

/* A point for the fit of op over nranks in scope sc: an out-of-place
 * result, every element correct, with a size and a time. */
static bool coll_point(const pp_calib_meas *q, int op, int nranks, pp_scope sc)
{
	if (!q->kind || strcmp(q->kind, "collective") || coll_of(q->op) != op ||
	    q->nranks != nranks || (q->inplace != PP_CALIB_NULL && q->inplace) ||
	    (q->wrong != PP_CALIB_NULL && q->wrong > 0) || q->bytes == PP_CALIB_NULL ||
	    q->bytes <= 0 || !(q->time_us > 0))
		return false;
	return scope_of(q) == sc;
}

static bool has_fit(const pp_profile *out, int op, pp_scope sc, int nranks)
{
	for (int f = 0; f < out->nfits; f++)
		if (out->fits[f].op == (pp_coll)op && out->fits[f].scope == sc &&
		    out->fits[f].nranks == nranks)
			return true;
	return false;
}

/* One fit per (op, scope, nranks) of the collective rows, in the order
 * the groups first appear, for those with >= 3 points that fit. */
static void fit_collectives(const pp_calib_meas *all, size_t nall, pp_profile *out)
{
	pp_fit_point *pts = pp_xmalloc(sizeof(pp_fit_point) * (nall ? nall : 1));
	for (size_t i = 0; i < nall; i++) {
		const pp_calib_meas *m = &all[i];
		if (!m->kind || strcmp(m->kind, "collective") || m->nranks == PP_CALIB_NULL)
			continue;
		int op = coll_of(m->op);
		if (op < 0)
			continue;
		pp_scope sc = scope_of(m);
		int nr = (int)m->nranks;
		if (has_fit(out, op, sc, nr) || out->nfits == PP_HW_MAX_FITS)
			continue;
		int np = 0;
		for (size_t j = i; j < nall; j++)
			if (coll_point(&all[j], op, nr, sc)) {
				pts[np].bytes = (double)all[j].bytes;
				pts[np].time_s = all[j].time_us * 1e-6;
				np++;
			}
		pp_coll_fit *f = &out->fits[out->nfits];
		f->op = (pp_coll)op;
		f->scope = sc;
		f->nranks = nr;
		pp_err sub = {0};
		if (np >= 3 && pp_fit_collective(f, out->fit_ci[out->nfits], &out->fit_rms[out->nfits],
						 pts, np, &sub) == 0)
			out->nfits++;
	}
	free(pts);
}

/* ---- GEMMs ---- */

/* The compute-bound GEMM rows of dtype dt longer than 20 us as rows of
 * the design matrix X (t_comp, t_comp / K), y (the measured time less the
 * per-kernel overhead) and w (1 / y^2); t_comp is the shape's time at the
 * dense peak after tile and (weighted) wave quantisation. Returns how many. */
static size_t gemm_points(const pp_calib_meas *all, size_t nall, const pp_hw *hw, int dt,
			  gsl_matrix *X, gsl_vector *y, gsl_vector *w)
{
	pp_hw unit = *hw;
	unit.gemm_frac[dt] = 1.0;
	unit.gemm_k0 = 0;
	size_t n = 0;
	for (size_t i = 0; i < nall; i++) {
		const pp_calib_meas *m = &all[i];
		if (!m->kind || strcmp(m->kind, "gemm") || dtype_of(m->dtype) != dt ||
		    m->m == PP_CALIB_NULL || !(m->time_us > 20))
			continue;
		double M = (double)m->m, N = (double)m->n, K = (double)m->k;
		/* the compute model adds the per-kernel overhead to every GEMM
		 * itself: fit what remains of the measured time without it */
		double flops = 2 * M * N * K, t = m->time_us * 1e-6 - hw->kernel_overhead_s;
		double eff = pp_gemm_efficiency(&unit, (pp_dtype)dt, M, N, K, 1);
		double t_comp = flops / (hw->peak_flops[dt] * eff);
		double t_mem = (M * K + K * N + M * N) * pp_dtype_bytes((pp_dtype)dt) / hw->mem_Bps;
		if (t_comp < t_mem || t <= 0)
			continue; /* memory-bound: says nothing about the tensor cores */
		gsl_matrix_set(X, n, 0, t_comp);
		gsl_matrix_set(X, n, 1, t_comp / K);
		gsl_vector_set(y, n, t);
		gsl_vector_set(w, n, 1.0 / (t * t));
		n++;
	}
	return n;
}

/* Weighted least squares y = a x0 + b x1 over the first n (>= 4) rows:
 * frac = 1/a and k0 = b/a into out's dtype dt, with 95% intervals (the
 * delta method) and the rms relative residual. A negative b (no
 * measurable k overhead) is refitted as a slope only. */
static void gemm_solve(const gsl_matrix *X, const gsl_vector *y, const gsl_vector *w, size_t n,
		       int dt, pp_profile *out)
{
	gsl_matrix_const_view Xv = gsl_matrix_const_submatrix(X, 0, 0, n, 2);
	gsl_vector_const_view yv = gsl_vector_const_subvector(y, 0, n),
			      wv = gsl_vector_const_subvector(w, 0, n);
	gsl_vector *c = gsl_vector_alloc(2);
	gsl_matrix *cov = gsl_matrix_alloc(2, 2);
	gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(n, 2);
	double chisq;
	gsl_multifit_wlinear(&Xv.matrix, &wv.vector, &yv.vector, c, cov, &chisq, ws);
	double a = gsl_vector_get(c, 0), b = gsl_vector_get(c, 1);
	double scale = chisq / (double)(n - 2);
	double va = gsl_matrix_get(cov, 0, 0) * scale, vb = gsl_matrix_get(cov, 1, 1) * scale,
	       vab = gsl_matrix_get(cov, 0, 1) * scale;
	if (b < 0) { /* no measurable k overhead: slope only */
		b = 0;
		double sxy = 0, sxx = 0;
		for (size_t i = 0; i < n; i++) {
			double xi = gsl_matrix_get(X, i, 0), wi = gsl_vector_get(w, i);
			sxy += wi * xi * gsl_vector_get(y, i);
			sxx += wi * xi * xi;
		}
		a = sxy / sxx;
		va = 0;
		vb = vab = 0;
		double rss = 0;
		for (size_t i = 0; i < n; i++) {
			double r = a * gsl_matrix_get(X, i, 0) - gsl_vector_get(y, i);
			rss += gsl_vector_get(w, i) * r * r;
		}
		va = rss / (double)(n - 1) / sxx;
	}
	out->has_gemm[dt] = true;
	out->gemm_frac[dt] = 1.0 / a;
	out->gemm_frac_ci[dt] = 1.96 * sqrt(va) / (a * a);
	out->gemm_k0[dt] = b / a;
	/* var(b/a) by the delta method */
	double vk = vb / (a * a) + b * b * va / (a * a * a * a) - 2 * b * vab / (a * a * a);
	out->gemm_k0_ci[dt] = 1.96 * sqrt(vk > 0 ? vk : 0);
	out->gemm_points[dt] = (int)n;
	double ss = 0;
	for (size_t i = 0; i < n; i++) {
		double pred = a * gsl_matrix_get(X, i, 0) + b * gsl_matrix_get(X, i, 1);
		double r = pred / gsl_vector_get(y, i) - 1;
		ss += r * r;
	}
	out->gemm_rms[dt] = sqrt(ss / (double)n);
	gsl_multifit_linear_free(ws);
	gsl_matrix_free(cov);
	gsl_vector_free(c);
}

/* Per dtype with a peak: time = x / frac x (1 + k0 / k), x the time the
 * shape takes at the dense peak after tile and (weighted) wave
 * quantisation: linear in x and x/k, so weighted least squares gives
 * 1/frac and k0/frac. A dtype needs 4 points. */
static void fit_gemms(const pp_calib_meas *all, size_t nall, const pp_hw *hw, pp_profile *out)
{
	for (int dt = 0; dt < PP_DT_COUNT; dt++) {
		if (hw->peak_flops[dt] <= 0)
			continue;
		size_t cap = nall ? nall : 1;
		gsl_matrix *X = gsl_matrix_alloc(cap, 2);
		gsl_vector *y = gsl_vector_alloc(cap), *w = gsl_vector_alloc(cap);
		size_t n = gemm_points(all, nall, hw, dt, X, y, w);
		if (n >= 4)
			gemm_solve(X, y, w, n, dt, out);
		gsl_matrix_free(X);
		gsl_vector_free(y);
		gsl_vector_free(w);
	}
}

/* ---- memory, overlap ---- */

/* Memory-bound kernels: the median device copy bandwidth of buffers of
 * 64 MiB and more, half the range as its interval. */
static void fit_memory(const pp_calib_meas *all, size_t nall, pp_profile *out)
{
	double *bw = pp_xmalloc(sizeof(double) * (nall ? nall : 1));
	int nb = 0;
	for (size_t i = 0; i < nall; i++) {
		const pp_calib_meas *m = &all[i];
		if (m->kind && !strcmp(m->kind, "memcpy") && m->bytes != PP_CALIB_NULL &&
		    m->bytes >= (64 << 20) && m->GBps > 0)
			bw[nb++] = m->GBps * PP_GB;
	}
	if (nb) {
		qsort(bw, (size_t)nb, sizeof(double), cmp_double);
		out->has_mem = true;
		out->mem_Bps = bw[nb / 2];
		out->mem_ci_Bps = nb > 1 ? (bw[nb - 1] - bw[0]) / 2 : 0;
		out->mem_points = nb;
	}
	free(bw);
}

/* Overlap: per pair (podplan-calibrate overlap), the share of the shorter
 * side hidden when both run at once, e = (Tc + Tg - Tboth) / min(Tc, Tg),
 * clamped to [0, 1]; the profile takes the median, its interval 1.96
 * standard errors. */
static void fit_overlap(const pp_calib_meas *all, size_t nall, pp_profile *out)
{
	double *ov = pp_xmalloc(sizeof(double) * (nall ? nall : 1));
	int no = 0;
	for (size_t i = 0; i < nall; i++) {
		const pp_calib_meas *m = &all[i];
		if (!m->kind || strcmp(m->kind, "overlap") || !m->extra_json)
			continue;
		cJSON *j = cJSON_Parse(m->extra_json);
		double a = pp_json_get_num(j, "comm_us", NAN), c = pp_json_get_num(j, "compute_us", NAN);
		if (a > 0 && c > 0 && m->time_us > 0) {
			double e = (a + c - m->time_us) / (a < c ? a : c);
			ov[no++] = e < 0 ? 0 : e > 1 ? 1 : e;
		}
		cJSON_Delete(j);
	}
	if (no) {
		double mean = 0, var = 0;
		for (int i = 0; i < no; i++)
			mean += ov[i] / no;
		for (int i = 0; i < no; i++)
			var += (ov[i] - mean) * (ov[i] - mean) / (no > 1 ? no - 1 : 1);
		qsort(ov, (size_t)no, sizeof(double), cmp_double);
		out->has_overlap = true;
		out->overlap_eff = no % 2 ? ov[no / 2] : 0.5 * (ov[no / 2 - 1] + ov[no / 2]);
		out->overlap_ci = 1.96 * sqrt(var / no);
		out->overlap_points = no;
	}
	free(ov);
}

/* ---- decode-shaped GEMMs ---- */

/* Per dtype and token count: the median share of the datasheet roofline,
 * max(achieved flop/s / dense peak, achieved bytes/s / HBM bandwidth), the
 * time at the roofline over the time measured. */
static void fit_small_m(const pp_calib_meas *all, size_t nall, const pp_gpu *g, pp_profile *out)
{
	double *f = pp_xmalloc(sizeof(double) * (nall ? nall : 1)),
	       *t = pp_xmalloc(sizeof(double) * (nall ? nall : 1)),
	       *bw = pp_xmalloc(sizeof(double) * (nall ? nall : 1));
	for (int dt = 0; dt < PP_DT_COUNT; dt++) {
		double peak = g->peak_flops[dt], hbm = g->mem_Bps;
		if (!(peak > 0) || !(hbm > 0))
			continue;
		/* the token counts measured, increasing */
		double ms[PP_PROFILE_MAX_SMALL_M];
		int nm = 0;
		for (size_t i = 0; i < nall; i++) {
			const pp_calib_meas *q = &all[i];
			if (!q->kind || strcmp(q->kind, "gemm_decode") || dtype_of(q->dtype) != dt ||
			    q->m == PP_CALIB_NULL || q->m <= 0 || !(q->time_us > 0) || !(q->GBps > 0) ||
			    !(q->tflops > 0) || (q->wrong != PP_CALIB_NULL && q->wrong > 0))
				continue;
			bool have = false;
			for (int j = 0; j < nm; j++)
				have |= ms[j] == (double)q->m;
			if (!have && nm < PP_PROFILE_MAX_SMALL_M)
				ms[nm++] = (double)q->m;
		}
		qsort(ms, (size_t)nm, sizeof(double), cmp_double);
		for (int j = 0; j < nm; j++) {
			int n = 0;
			for (size_t i = 0; i < nall; i++) {
				const pp_calib_meas *q = &all[i];
				if (!q->kind || strcmp(q->kind, "gemm_decode") || dtype_of(q->dtype) != dt ||
				    (double)q->m != ms[j] || !(q->time_us > 0) || !(q->GBps > 0) ||
				    !(q->tflops > 0) || (q->wrong != PP_CALIB_NULL && q->wrong > 0))
					continue;
				double fc = q->tflops * 1e12 / peak, fm = q->GBps * PP_GB / hbm;
				f[n] = fc > fm ? fc : fm;
				t[n] = q->time_us * 1e-6;
				bw[n] = q->GBps * PP_GB;
				n++;
			}
			pp_small_m_point *p = &out->gemm_small_m[dt][out->gemm_small_m_n[dt]++];
			p->m = ms[j];
			p->shapes = n;
			qsort(f, (size_t)n, sizeof(double), cmp_double);
			/* quartiles by the nearest-rank method: the ceil(p n)-th value */
			p->q25 = f[(int)ceil(0.25 * n) - 1];
			p->q75 = f[(int)ceil(0.75 * n) - 1];
			p->roofline_fraction = pp_fit_median(f, n);
			p->median_s = pp_fit_median(t, n);
			p->median_Bps = pp_fit_median(bw, n);
		}
		if (out->gemm_small_m_n[dt]) {
			out->small_m_peak_flops[dt] = peak;
			out->small_m_hbm_Bps[dt] = hbm;
		}
	}
	free(f);
	free(t);
	free(bw);
}

static bool fitted_any(const pp_profile *out)
{
	bool any = out->nfits || out->has_mem || out->has_overlap;
	for (int dt = 0; dt < PP_DT_COUNT; dt++)
		any |= out->has_gemm[dt] || out->has_sustained[dt] || out->gemm_small_m_n[dt] > 0;
	return any;
}

int pp_fit_runs(pp_store *st, const pp_catalog *cat, const int64_t *runs, int nruns,
		const char *gpu_id, const char *name, pp_profile *out, pp_err *err)
{
	int rc = 0;
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", name);
	pp_calib_meas *all = NULL;
	size_t nall = 0;
	pp_hw hw;
	if (nruns < 1 || nruns > PP_PROFILE_MAX_RUNS)
		return pp_errf(err, PP_EINPUT, "fit: expected 1 to %d runs", PP_PROFILE_MAX_RUNS);
	if ((rc = collect_runs(st, runs, nruns, &gpu_id, out, &all, &nall, err)))
		goto out;
	const pp_gpu *g = gpu_id ? pp_catalog_gpu(cat, gpu_id) : NULL;
	if (!g) {
		rc = pp_errf(err, PP_EINPUT, "fit: cannot tell which catalog GPU \"%s\" is; pass --gpu ID",
			     out->gpu);
		goto out;
	}
	if ((rc = hw_for_gpu(cat, g, &hw, err)))
		goto out;
	fit_collectives(all, nall, out);
	fit_gemms(all, nall, &hw, out);
	fit_memory(all, nall, out);
	fit_overlap(all, nall, out);
	pp_fit_sustained(all, nall, out);
	fit_small_m(all, nall, g, out);
	if (!fitted_any(out))
		rc = pp_errf(err, PP_EINPUT, "fit: the runs hold no measurement to fit (collectives "
			     "with >= 3 sizes, compute-bound GEMMs, large copies, sustained or decode "
			     "GEMMs)");
out:
	pp_calib_meas_free(all, nall);
	return rc;
}
