/*
 * evidence.h - how sure a prediction is, from the evidence the repository
 * holds: podplan's errors on the published and measured runs of its
 * validation sets, the validated runs nearest to a layout, and the 80%
 * interval of the step a real run of that layout would measure.
 *
 * The validation sets (each row: a scenario stating the published
 * configuration, and the measured step): models/validation/
 * bridge-published.csv, mcore-published.csv, moe-published.csv,
 * torchtitan-published.csv (`podplan validate --replay`) and the framework
 * set models/calibrations/framework-h200.csv (models/validation/README.md).
 * Every row is predicted again when the evidence is loaded (pp_predict on
 * the row's scenario, its calibration section applied as predict applies
 * it), so the errors are the present engine's, never a stored figure.
 *
 * Near: a validated run is near a layout when it has the same GPU
 * architecture (gpus.json "arch": ampere, hopper, blackwell) and the same
 * kind of model (dense or MoE), and its distance is at most 1, where the
 * distance adds 0 for the same framework, 0.5 for one of the same family
 * (Megatron: megatron-lm-2022, megatron-core, nemo; PyTorch-native:
 * pytorch, torchtitan, deepspeed), 1 otherwise; 0.5 for each of TP, PP,
 * DP, EP, CP present (> 1) in one and not the other; and |log2 of the
 * ratio of GPU counts| / 4 (16 times the scale counts as 1).
 *
 * The interval, on x = ln(measured / predicted) of the near runs (at
 * least 3; else the default band below):
 *   - n >= 9: distribution-free, from order statistics: with
 *     r = floor(0.1 (n + 1)), [x_(r), x_(n+1-r)] holds a further run of
 *     the same population with probability (n + 1 - 2r) / (n + 1) >= 0.8
 *     (Wilks 1941; Hahn, Meeker & Escobar, Statistical Intervals, 2nd ed.
 *     2017, ch. 5);
 *   - 3 <= n < 9 (too few for order statistics at 80%): the normal
 *     prediction interval mean +- t(0.90, n - 1) s sqrt(1 + 1/n) (Hahn,
 *     Meeker & Escobar ch. 4), wider the fewer the runs.
 * Default band, where fewer than 3 runs are near: the same rule over every
 * validated run of the same kind of model (dense or MoE; every validated
 * run where that kind has fewer than 3), stated as "no validated run near
 * this layout".
 */
#ifndef PP_EVIDENCE_H
#define PP_EVIDENCE_H

#include "engine/band.h"
#include "input/catalog.h"
#include "input/scenario.h"
#include <stdbool.h>

/* What makes two layouts alike. */
typedef struct pp_evkey {
	char framework[32];
	char arch[16];
	int tp, pp, dp, ep, cp;
	int gpus;
	bool moe;
} pp_evkey;

typedef struct pp_evrow {
	char set[24];          /* "bridge", "mcore", "moe", "torchtitan", "framework" */
	char config[96];       /* the row's id */
	char family[96];       /* the model (its name): leave-one-family-out drops them all */
	pp_evkey key;
	double predicted_s, measured_s;
	double x;              /* ln(measured / predicted) */
} pp_evrow;

typedef struct pp_evidence {
	pp_evrow *rows;
	int n;
	int skipped;           /* rows whose scenario did not predict (why: first of them) */
	char skipped_why[256];
} pp_evidence;

/* The key of a scenario's layout on its cluster. */
void pp_evkey_of(pp_evkey *k, const pp_scenario *s);
/* The distance above (INFINITY across architectures or dense/MoE). */
double pp_evkey_distance(const pp_evkey *a, const pp_evkey *b);

/* Read the validation sets under cat's directory (models/) and predict
 * every measured row. Errors: PP_EIO / PP_EINPUT of a set that cannot be
 * read. A row whose scenario fails is skipped and counted. */
int pp_evidence_load(pp_evidence *ev, const pp_catalog *cat, pp_err *err);
void pp_evidence_release(pp_evidence *ev);
/* The evidence of cat, loaded on the first call and kept for the process
 * (callers must not free it); NULL with err when it cannot be loaded. */
const pp_evidence *pp_evidence_shared(const pp_catalog *cat, pp_err *err);

/* The interval of a prediction of predicted_s seconds for layout k, from
 * the rows of ev but row exclude (-1: none) and, when exclude_family is
 * not NULL, every row of that family. b->on false (with why) only when
 * ev has fewer than 3 rows left. */
void pp_evidence_band(const pp_evidence *ev, const pp_evkey *k, double predicted_s, int exclude,
		      const char *exclude_family, pp_band *b);
/* The same for scenario s (its key), from the shared evidence of cat;
 * b->on false with why when the evidence cannot be loaded. */
void pp_evidence_band_of(const pp_catalog *cat, const pp_scenario *s, double predicted_s,
			 pp_band *b);

/* Coverage of the stated intervals on the validation sets themselves: per
 * set, each row's interval computed without it (leave-one-out) and without
 * its family (leave-one-family-out), whether it holds the measured step,
 * and the intervals' half-widths. */
typedef struct pp_evcov {
	char set[24];
	int n;
	int loo_in, lofo_in;       /* rows whose measured step is inside */
	int loo_near, lofo_near;   /* rows whose interval rests on near runs */
	double loo_med_hw_near;    /* median half-width over those (NAN: none) */
	double loo_med_hw;         /* over every row */
	double lofo_med_hw_near, lofo_med_hw;
} pp_evcov;
/* Fills out[0 .. nsets) (one per set, in load order, then "all"); returns
 * the count (at most max). */
int pp_evidence_coverage(const pp_evidence *ev, pp_evcov *out, int max);

#endif
