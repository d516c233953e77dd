/*
 * cgen.h - a seeded job stream for a cluster that does not exist yet, drawn
 * from published distributions (a trace summary's row: job count over its
 * period, GPUs per job, run times, GPU time).
 *
 * The model, and what each parameter is fitted to:
 *  - arrivals: a Poisson process at jobs / period (the summary's GPU job
 *    count over the trace's days);
 *  - GPUs per job: powers of two 1, 2, 4, ... up to the largest job, with
 *    P(2^k) proportional to r^k, r fitted so the mean is the summary's
 *    average GPUs; when that law's median is above a published median of
 *    1 GPU, P(1) is set to the least that meets it (0.5) and r refitted on
 *    the larger sizes (larger medians are checked, not fitted);
 *  - run time given the size s: lognormal, ln t = mu + beta ln s + sigma Z,
 *    capped at the longest run; mu, sigma, beta fitted so the stream's
 *    median and mean run time and its mean GPU time per job (the summary's
 *    total GPU time over its jobs) are the summary's. beta says how much
 *    longer large jobs run (0: size and run time independent).
 * Nothing else (no queueing figure) enters the fit: queueing delay is what
 * a simulation of the stream predicts.
 */
#ifndef PP_CGEN_H
#define PP_CGEN_H

#include "cluster/cjobs.h"
#include "core/pp.h"

typedef struct pp_cgen_params {
	char name[64];
	double jobs_per_s;       /* arrival rate */
	int njobs;               /* jobs to draw */
	double mean_gpus;
	double median_gpus;      /* checked */
	int max_gpus;            /* a power of two */
	double mean_run_s, median_run_s, max_run_s;
	double mean_gpu_s;       /* mean GPUs x run time per job; NAN = size and time independent */
	unsigned long seed;
} pp_cgen_params;

typedef struct pp_cgen_fit {
	double r;                /* size ratio P(2^(k+1)) / P(2^k) */
	int kmax;
	double p1;               /* P(1 GPU); the draw uses it as fitted */
	double mu, sigma, beta;
	double median_gpus;      /* of the fitted size law */
} pp_cgen_fit;

/* Fit the model to p. PP_EINPUT when p cannot be met (a mean below the
 * median, a mean size above the largest). */
int pp_cgen_fit_params(const pp_cgen_params *p, pp_cgen_fit *f, pp_err *err);
/* Draw p->njobs jobs (ids "g1", "g2", ...) into *out (initialised here). */
int pp_cgen_draw(const pp_cgen_params *p, const pp_cgen_fit *f, pp_cjobs *out, pp_err *err);

/* A row of models/cluster/trace-summaries.csv by its id ("seren", ...):
 * fills p (njobs = the row's GPU jobs) and *gpus, the cluster's GPUs. */
int pp_cgen_preset(const char *models_dir, const char *id, pp_cgen_params *p, int *gpus,
		   pp_err *err);

#endif
