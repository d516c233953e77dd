/* cgen.c - see cgen.h. */
#include "cluster/cgen.h"
#include "core/csv.h"
#include "core/util.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KMAX 24

/* P(1 GPU) = p1 (NAN: the geometric law's own r^0 share), P(2^k) for
 * k >= 1 proportional to r^k */
static void size_weights(double r, double p1, int kmax, double *w)
{
	double sum = 0;
	for (int k = 0; k <= kmax; k++)
		sum += w[k] = pow(r, k);
	for (int k = 0; k <= kmax; k++)
		w[k] /= sum;
	if (!isnan(p1) && kmax > 0) {
		double tail = 1 - w[0];
		for (int k = 1; k <= kmax; k++)
			w[k] *= (1 - p1) / tail;
		w[0] = p1;
	}
}

static double size_mean(double r, double p1, int kmax)
{
	double w[KMAX + 1], m = 0;
	size_weights(r, p1, kmax, w);
	for (int k = 0; k <= kmax; k++)
		m += w[k] * ldexp(1, k);
	return m;
}

static double fit_r(double p1, int kmax, double mean)
{
	double lo = 1e-9, hi = 64;
	for (int i = 0; i < 200; i++) {
		double mid = 0.5 * (lo + hi);
		if (size_mean(mid, p1, kmax) < mean)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* fraction of the stream's run times at or below t */
static double cdf_run(const double *w, int kmax, double mu, double sigma, double beta, double t)
{
	double c = 0;
	for (int k = 0; k <= kmax; k++)
		c += w[k] * gsl_cdf_ugaussian_P((log(t) - mu - beta * k * M_LN2) / sigma);
	return c;
}

static double mean_run(const double *w, int kmax, double mu, double sigma, double beta)
{
	double m = 0;
	for (int k = 0; k <= kmax; k++)
		m += w[k] * exp(mu + beta * k * M_LN2 + 0.5 * sigma * sigma);
	return m;
}

/* mu with the stream's median run time at median */
static double solve_mu(const double *w, int kmax, double sigma, double beta, double median)
{
	double lo = -50, hi = 50;
	for (int i = 0; i < 200; i++) {
		double mid = 0.5 * (lo + hi);
		if (cdf_run(w, kmax, mid, sigma, beta, median) > 0.5)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

int pp_cgen_fit_params(const pp_cgen_params *p, pp_cgen_fit *f, pp_err *err)
{
	memset(f, 0, sizeof(*f));
	int kmax = 0;
	while (kmax < KMAX && ldexp(1, kmax + 1) <= p->max_gpus)
		kmax++;
	f->kmax = kmax;
	if (!(p->mean_gpus >= 1 && p->mean_gpus < ldexp(1, kmax)))
		return pp_errf(err, PP_EINPUT, "%s: mean GPUs a job %g, expected between 1 and the "
			       "largest job's %d", p->name, p->mean_gpus, p->max_gpus);
	if (!(p->mean_run_s > p->median_run_s && p->median_run_s > 0))
		return pp_errf(err, PP_EINPUT, "%s: mean run time %g s and median %g s, expected a "
			       "mean above the median (a right-skewed law)", p->name, p->mean_run_s,
			       p->median_run_s);
	/* one parameter first: the geometric law's r for the mean; when its
	 * median is above a published median of 1 GPU, P(1) is raised to the
	 * least that meets it (0.5) and r refitted on the rest */
	f->p1 = NAN;
	f->r = fit_r(NAN, kmax, p->mean_gpus);
	double w[KMAX + 1];
	size_weights(f->r, NAN, kmax, w);
	if (p->median_gpus <= 1 && w[0] < 0.5) {
		f->p1 = 0.5;
		f->r = fit_r(0.5, kmax, p->mean_gpus);
	}
	size_weights(f->r, f->p1, kmax, w);
	f->p1 = w[0];
	double c = 0;
	f->median_gpus = 1;
	for (int k = 0; k <= kmax; k++) {
		c += w[k];
		if (c >= 0.5) {
			f->median_gpus = ldexp(1, k);
			break;
		}
	}
	/* beta from the GPU time a job: the ratio E[s t] / E[t] does not
	 * depend on mu and sigma */
	f->beta = 0;
	if (!isnan(p->mean_gpu_s)) {
		double want = p->mean_gpu_s / p->mean_run_s;
		double blo = -3, bhi = 3;
		for (int i = 0; i < 200; i++) {
			double b = 0.5 * (blo + bhi), num = 0, den = 0;
			for (int k = 0; k <= kmax; k++) {
				double e = w[k] * exp(b * k * M_LN2);
				num += e * ldexp(1, k);
				den += e;
			}
			if (num / den < want)
				blo = b;
			else
				bhi = b;
		}
		f->beta = 0.5 * (blo + bhi);
	}
	/* sigma (with mu from the median) so the mean run time is met */
	double slo = 1e-3, shi = 6;
	for (int i = 0; i < 100; i++) {
		double sg = 0.5 * (slo + shi);
		double mu = solve_mu(w, kmax, sg, f->beta, p->median_run_s);
		if (mean_run(w, kmax, mu, sg, f->beta) < p->mean_run_s)
			slo = sg;
		else
			shi = sg;
	}
	f->sigma = 0.5 * (slo + shi);
	f->mu = solve_mu(w, kmax, f->sigma, f->beta, p->median_run_s);
	return 0;
}

int pp_cgen_draw(const pp_cgen_params *p, const pp_cgen_fit *f, pp_cjobs *out, pp_err *err)
{
	(void)err;
	pp_cjobs_init(out);
	out->fmt = PP_CJF_PODPLAN;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, p->seed);
	double w[KMAX + 1];
	size_weights(f->r, f->p1, f->kmax, w);
	double t = 0;
	char id[32];
	for (int i = 0; i < p->njobs; i++) {
		t += gsl_ran_exponential(rng, 1.0 / p->jobs_per_s);
		double u = gsl_rng_uniform(rng), c = 0;
		int k = 0;
		for (; k < f->kmax; k++) {
			c += w[k];
			if (u < c)
				break;
		}
		double run = exp(f->mu + f->beta * k * M_LN2 + f->sigma * gsl_ran_ugaussian(rng));
		if (run > p->max_run_s)
			run = p->max_run_s;
		snprintf(id, sizeof(id), "g%d", i + 1);
		pp_cjob *x = pp_cjobs_add(out, id);
		x->submit_s = t;
		x->gpus = (int32_t)ldexp(1, k);
		x->work_s = run;
	}
	gsl_rng_free(rng);
	pp_cjobs_finish(out);
	return 0;
}

int pp_cgen_preset(const char *models_dir, const char *id, pp_cgen_params *p, int *gpus,
		   pp_err *err)
{
	static const char *const cols[] = {"id", "gpus", "period_days", "gpu_job_num",
					   "avg_run_time_gpu", "med_run_time_gpu", "max_run_time_gpu",
					   "avg_gpu_num", "med_gpu_num", "max_gpu", "gpu_time_total"};
	char *path = pp_path_join(models_dir, "cluster/trace-summaries.csv");
	pp_csv c;
	int rc = pp_csv_load(&c, path, err);
	if (rc) {
		free(path);
		return rc;
	}
	int idx[11];
	for (int i = 0; i < 11; i++)
		if ((idx[i] = pp_csv_col(&c, cols[i])) < 0) {
			rc = pp_errf(err, PP_EINPUT, "%s:1: no column %s", path, cols[i]);
			goto out;
		}
	rc = pp_errf(err, PP_EINPUT, "--generate %s: no such row in %s; expected one of its ids",
		     id, "models/cluster/trace-summaries.csv");
	for (int i = 1; i < c.nrows; i++) {
		if (strcmp(pp_csv_get(&c, i, idx[0]), id))
			continue;
		double v[11];
		for (int k = 1; k < 11; k++)
			v[k] = atof(pp_csv_get(&c, i, idx[k]));
		memset(p, 0, sizeof(*p));
		snprintf(p->name, sizeof(p->name), "%s", id);
		*gpus = (int)v[1];
		p->njobs = (int)v[3];
		p->jobs_per_s = v[3] / (v[2] * 86400.0);
		p->mean_run_s = v[4];
		p->median_run_s = v[5];
		p->max_run_s = v[6];
		p->mean_gpus = v[7];
		p->median_gpus = v[8];
		p->max_gpus = (int)v[9];
		p->mean_gpu_s = v[10] > 0 ? v[10] / v[3] : NAN;
		p->seed = 1;
		memset(err, 0, sizeof(*err));
		rc = 0;
		break;
	}
out:
	pp_csv_release(&c);
	free(path);
	return rc;
}
