/*
 * fit.h - fit simulator parameters to calibration measurements (GSL).
 *
 * Collectives: for each (op, scope, GPU count), out-of-place results are
 * sorted by size and split into 1-3 pieces at measured sizes; each piece is
 * a weighted least-squares line time = alpha + beta x bytes (gsl_fit_wlinear,
 * weights 1/time^2 so every size counts by its relative error), giving
 * busbw = factor / beta. The split with the lowest Bayesian information
 * criterion wins.
 * Confidence intervals: 1.96 standard errors, the covariance scaled by the
 * residual variance (the measurement noise is not known a priori).
 *
 * GEMMs: per dtype, a weighted least-squares fit of time = x / frac x
 * (1 + k0 / k) over compute-bound shapes longer than 20 us, x being the time
 * the shape takes at the full dense peak after its tile and (weighted) wave
 * quantisation: frac is the large-GEMM share of peak, k0 the reduction
 * overhead (both with 95% intervals); the residuals are what the shape model
 * does not explain.
 *
 * Memory: the median achieved bandwidth of the largest memcpy measurements.
 *
 * Overlap: the median over podplan-calibrate overlap pairs (a GEMM or copy
 * batch beside a collective batch, each also timed alone) of the share of
 * the shorter one hidden, (Tc + Tg - Tboth) / min(Tc, Tg), with 1.96
 * standard errors.
 *
 * Sustained GEMMs (rows of kind "gemm_sustained"): calib/sustained.h.
 *
 * Decode-shaped GEMMs (kind "gemm_decode", --only decode): per dtype and
 * token count M, the median over shapes of the datasheet roofline time,
 * max(2mnk / dense peak, operand and output bytes / HBM bandwidth, both
 * from gpus.json), over the measured time: the small-M efficiency curve.
 */
#ifndef PP_FIT_H
#define PP_FIT_H

#include "input/catalog.h"
#include "calib/profile.h"
#include "calib/sustained.h"
#include "core/store.h"

/* A collective measurement for the fitter. */
typedef struct pp_fit_point {
	double bytes, time_s;
} pp_fit_point;

/* Fit one collective's points (any order) into f (op/scope/nranks set by
 * the caller); fills confidence intervals and the rms relative residual.
 * Needs >= 3 points. */
int pp_fit_collective(pp_coll_fit *f, pp_fit_piece_ci *ci, double *rms, const pp_fit_point *pts,
		      int n, pp_err *err);

/* Fit a profile from calibration runs of the store. gpu_id names the
 * catalog SKU (for peaks and the compute model); NULL = from the run's GPU
 * name. */
int pp_fit_runs(pp_store *st, const pp_catalog *cat, const int64_t *runs, int nruns,
		const char *gpu_id, const char *name, pp_profile *out, pp_err *err);

#endif
