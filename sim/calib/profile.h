/*
 * profile.h - a calibration profile: simulator parameters fitted from the
 * measurements of one or more calibration runs, stored in SQLite (table
 * profiles: name, version, the runs it came from, the parameters and the
 * fit residuals) and applied to a scenario's hardware parameters.
 *
 * What a profile holds (all optional):
 *  - per collective, scope (nvlink/pcie inside a node, net across nodes) and
 *    GPU count: a piecewise latency-bandwidth model over message size,
 *    time = alpha + bytes x factor / busbw (nccl-tests' busbw factor), each
 *    piece with 95% confidence intervals;
 *  - per dtype: the large-GEMM share of peak (the compute model's tile and
 *    wave quantisation stays) and the reduction overhead k0 (time x
 *    (1 + k0/k)), with their 95% intervals and residuals;
 *  - the device-memory bandwidth of memory-bound kernels (bytes read +
 *    written per second);
 *  - the overlap efficiency: the share of a collective's time hidden when it
 *    runs beside compute (hw overlap_eff);
 *  - per dtype, the sustained GEMM rate: gemm_sustained_fraction[dt], the
 *    rate GEMMs keep over seconds back to back (clocks at the power limit)
 *    over the burst rate the sweep's protocol measures, so that a rate for
 *    hours of training is gemm_frac[dt] x gemm_sustained_fraction[dt] of
 *    the dense peak (gemm_frac comes from bursts); with the clocks, power
 *    and throttle reasons seen (podplan-calibrate --only sustained);
 *  - per dtype, the small-M GEMM curve: for decode-shaped GEMMs of M = 1,
 *    2, 4 ... 512 tokens, the median share of the datasheet roofline
 *    max(2mnk / dense peak, bytes / HBM bandwidth) they reach
 *    (podplan-calibrate --only decode; pp_profile_small_m_fraction).
 * pp_profile_apply does not apply the last two yet: the engine reads them
 * from the profile once its decode and sustained-rate models use them.
 * JSON form (podplan fit --export): {"format": "podplan-profile/1", "name",
 * "version", "gpu", "runs": [...], "collectives": [{"op", "scope", "nranks",
 * "pieces": [{"lo_bytes", "hi_bytes", "alpha_us", "alpha_ci_us",
 * "busbw_GBps", "busbw_ci_GBps", "points"}], "rms_rel_residual"}], "gemm":
 * {"bf16": {"peak_fraction", "ci", "k0", "k0_ci", "points",
 * "rms_rel_residual"}},
 * "memory": {"GBps", "ci_GBps", "points"}, "overlap": {"efficiency", "ci", "points"},
 * "gemm_sustained": {"bf16": {"fraction", "ci", "burst_TFLOPs",
 * "sustained_TFLOPs", "sm_clock_MHz", "first_sm_clock_MHz", "power_W",
 * "power_limit_W", "temp_C", "seconds", "throttle_reasons" (names),
 * "reasons_mask", "gpus", "points", "shape": [m, n, k]}},
 * "gemm_small_m": {"bf16": {"peak_TFLOPs", "hbm_GBps", "points": [{"m",
 * "roofline_fraction", "q25", "q75", "median_us", "median_GBps",
 * "shapes"}]}}},
 * built with cJSON (core/jsonout.h: cJSON's layout, an undefined figure
 * null, the open-ended last piece's hi_bytes 1e300).
 */
#ifndef PP_PROFILE_H
#define PP_PROFILE_H

#include "input/hw.h"
#include "core/store.h"

#define PP_PROFILE_MAX_RUNS 16

typedef struct pp_fit_piece_ci {
	double alpha_ci_s, busbw_ci_Bps; /* 95% half-widths */
	int points;
} pp_fit_piece_ci;

#define PP_PROFILE_MAX_SMALL_M 16

/* What a sustained run of one dtype showed (fit.h). */
typedef struct pp_profile_sustained {
	double burst_flops, sustained_flops;
	double sm_clock_hz, first_sm_clock_hz, power_w, power_limit_w, temp_c; /* NAN unknown */
	double seconds;
	int64_t reasons;          /* union of NVML throttle reasons over the steady parts; -1 unknown */
	int gpus, points;
	int64_t m, n, k;
} pp_profile_sustained;

/* One point of the small-M curve: decode-shaped GEMMs of m tokens. */
typedef struct pp_small_m_point {
	double m;
	double roofline_fraction;  /* median over the shapes */
	double q25, q75;           /* its quartiles over the shapes */
	double median_s, median_Bps;
	int shapes;
} pp_small_m_point;

typedef struct pp_profile {
	char name[128];
	int version;
	char gpu[96];
	int64_t runs[PP_PROFILE_MAX_RUNS];
	int nruns;
	pp_coll_fit fits[PP_HW_MAX_FITS];
	pp_fit_piece_ci fit_ci[PP_HW_MAX_FITS][PP_FIT_PIECES];
	double fit_rms[PP_HW_MAX_FITS];
	int nfits;
	bool has_gemm[PP_DT_COUNT];
	double gemm_frac[PP_DT_COUNT], gemm_frac_ci[PP_DT_COUNT], gemm_rms[PP_DT_COUNT];
	double gemm_k0[PP_DT_COUNT], gemm_k0_ci[PP_DT_COUNT];
	int gemm_points[PP_DT_COUNT];
	bool has_mem;
	double mem_Bps, mem_ci_Bps;
	int mem_points;
	/* share of a collective hidden behind concurrent compute (GEMMs and
	 * copies), from podplan-calibrate overlap measurements */
	bool has_overlap;
	double overlap_eff, overlap_ci;
	int overlap_points;
	/* sustained GEMM rate over burst rate, per dtype (see above) */
	bool has_sustained[PP_DT_COUNT];
	double gemm_sustained_fraction[PP_DT_COUNT], gemm_sustained_ci[PP_DT_COUNT];
	pp_profile_sustained sustained[PP_DT_COUNT];
	/* the small-M curve per dtype, points in increasing m; its basis, the
	 * datasheet figures it is a share of */
	int gemm_small_m_n[PP_DT_COUNT];
	pp_small_m_point gemm_small_m[PP_DT_COUNT][PP_PROFILE_MAX_SMALL_M];
	double small_m_peak_flops[PP_DT_COUNT], small_m_hbm_Bps[PP_DT_COUNT];
} pp_profile;

/* The small-M curve's roofline share at m tokens: interpolated linearly in
 * log2 m between the measured points, the end points' values outside them;
 * NAN when the profile has no curve for dt. */
double pp_profile_small_m_fraction(const pp_profile *p, pp_dtype dt, double m);

/* JSON text of a profile (heap, caller frees). */
char *pp_profile_to_json(const pp_profile *p);
/* Parse a profile's JSON (as stored or exported). */
int pp_profile_from_json(pp_profile *p, const char *name, const char *json, pp_err *err);

/* Store p under p->name with the next version number (set in p->version). */
int pp_profile_save(pp_store *st, pp_profile *p, pp_err *err);
/* Load name at version (0 = latest). PP_ENOTFOUND when absent. */
int pp_profile_load(pp_store *st, const char *name, int version, pp_profile *p, pp_err *err);

/* Replace the catalog defaults in hw with the profile's parameters and
 * record their origin. A collective fit applies to its (op, scope, GPU
 * count); an all_reduce fit also gives the intra-node busbw curve. */
void pp_profile_apply(pp_hw *hw, const pp_profile *p);

/* Load profile ("NAME" or "NAME@VERSION", the latest version without one)
 * from the store at db (opened read-only). Errors: PP_EINPUT for a
 * malformed version, pp_store_open_ro's and pp_profile_load's. */
int pp_profile_load_spec(const char *db, const char *profile, pp_profile *p, pp_err *err);
/* pp_profile_load_spec, then pp_profile_apply to hw. Commands resolve
 * hardware through calib/hwres.h, which calls these. */
int pp_profile_apply_spec(pp_hw *hw, const char *db, const char *profile, pp_err *err);

#endif
