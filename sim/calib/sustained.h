/*
 * sustained.h - GEMMs at the power limit: podplan-calibrate's back-to-back
 * runs of one GEMM shape summed up, and the profile's sustained share of
 * the burst rate fitted from them.
 *
 * Sustained GEMMs (rows of kind "gemm_sustained", podplan-calibrate --only
 * sustained): per GPU, the rate over the steady part of the back-to-back
 * run (the samples from half the run's length on, pp_fit_sustained_summary)
 * over the burst rate the sweep's protocol gave the same shape just
 * before; per dtype the median over GPUs (and runs) is the profile's
 * gemm_sustained_fraction, with 1.96 standard errors of the steady
 * samples' fractions.
 */
#ifndef PP_SUSTAINED_H
#define PP_SUSTAINED_H

#include "calib/calibdb.h"
#include "calib/profile.h"
#include "core/pp.h"
#include <stddef.h>
#include <stdint.h>

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

/* Per dtype: each GPU's burst row of all[0..nall) (kind
 * "gemm_sustained", op "burst") with its samples (op "sample", the same
 * run, GPU and shape) summed up; the median over GPUs into out's
 * gemm_sustained_fraction, gemm_sustained_ci, has_sustained and
 * sustained[] (left unset for a dtype without a burst row). */
void pp_fit_sustained(const pp_calib_meas *all, size_t nall, pp_profile *out);

#endif
