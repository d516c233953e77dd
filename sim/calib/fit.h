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
 * Sustained GEMMs (rows of kind "gemm_sustained", podplan-calibrate --only
 * sustained): per GPU, the rate over the steady part of the back-to-back
 * run (the samples from half the run's length on, pp_fit_sustained_summary)
 * over the burst rate the sweep's protocol gave the same shape just
 * before; per dtype the median over GPUs (and runs) is the profile's
 * gemm_sustained_fraction, with 1.96 standard errors of the steady
 * samples' fractions.
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

/* One interval of a sustained run, as the fit and podplan-calibrate's
 * summary read it; NAN (reasons -1) where NVML could not say. */
typedef struct pp_fit_sample {
	double t_s, interval_s, flop;        /* the interval's end, length, work */
	double sm_clock_hz, power_w, temp_c;
	int64_t reasons;
} pp_fit_sample;

/* A sustained run on one GPU summed up. The steady part is the samples
 * whose end lies at or past half the last one's: the clocks of a GPU at
 * its power limit settle within a second or two of load (the power
 * controller), so the second half of a 10 s run is past that; a thermal
 * steady state over minutes is not what it measures. */
typedef struct pp_sustained_summary {
	double burst_flops;                  /* the burst measurement's rate */
	double sustained_flops;              /* median rate of the steady samples */
	double fraction;                     /* sustained / burst */
	double fraction_ci;                  /* 1.96 standard errors of the steady fractions */
	double first_sm_clock_hz;            /* the first sample's clock */
	double sm_clock_hz, power_w, temp_c; /* medians over the steady part; NAN unknown */
	int64_t reasons;                     /* union over the steady part; -1 unknown */
	double seconds;                      /* the last sample's end */
	int samples, steady;
} pp_sustained_summary;

/* Sum up n samples (in time order) of a run whose burst rate was
 * burst_flops. PP_EINPUT when there is no sample or no burst rate. */
int pp_fit_sustained_summary(double burst_flops, const pp_fit_sample *s, int n,
			     pp_sustained_summary *out, pp_err *err);

/* NVML's clocks-event (throttle) reason bits as names, comma-separated
 * ("sw_power_cap,hw_slowdown"; "none" for 0, "unknown" for -1), after the
 * nvmlClocksEventReasons constants of nvml.h
 * (https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html). */
const char *pp_fit_reason_names(int64_t reasons, char *buf, size_t n);

/* Fit a profile from calibration runs of the store. gpu_id names the
 * catalog SKU (for peaks and the compute model); NULL = from the run's GPU
 * name. */
int pp_fit_runs(pp_store *st, const pp_catalog *cat, const int64_t *runs, int nruns,
		const char *gpu_id, const char *name, pp_profile *out, pp_err *err);

#endif
