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
 *    runs beside compute (hw overlap_eff).
 * JSON form (podplan fit --export): {"format": "podplan-profile/1", "name",
 * "version", "gpu", "runs": [...], "collectives": [{"op", "scope", "nranks",
 * "pieces": [{"lo_bytes", "hi_bytes", "alpha_us", "alpha_ci_us",
 * "busbw_GBps", "busbw_ci_GBps", "points"}], "rms_rel_residual"}], "gemm":
 * {"bf16": {"peak_fraction", "ci", "k0", "k0_ci", "points",
 * "rms_rel_residual"}},
 * "memory": {"GBps", "ci_GBps", "points"}, "overlap": {"efficiency", "ci", "points"}},
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
} pp_profile;

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

/* Open DB and apply PROFILE ("DB:PROFILE" or "DB:PROFILE@VERSION") to hw. */
int pp_profile_apply_spec(pp_hw *hw, const char *db, const char *profile, pp_err *err);

#endif
