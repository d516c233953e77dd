/*
 * predictout.h - a prediction (predict.h) for people and programs: the
 * table and the JSON `podplan predict` prints, and the ops of one
 * micro-batch (`--ops`). Each appends to out and reads its inputs only.
 */
#ifndef PP_PREDICTOUT_H
#define PP_PREDICTOUT_H

#include "core/util.h"
#include "engine/band.h"
#include "engine/predict.h"
#include "input/catalog.h"
#include "input/hw.h"
#include "input/scenario.h"

/* The scenario, the step and its 80% interval (band; NULL: none stated),
 * its breakdown, throughput, MFU/HFU, time to train, memory per GPU,
 * checkpoints, the collective models used when a calibration profile
 * applies, then the nwarn plausibility warnings. */
void pp_predict_to_text(const pp_scenario *s, const pp_hw *hw, const pp_result *r,
			const pp_band *band, const pp_catalog *cat, char *const *warn, int nwarn,
			pp_sb *out);
/* The same as JSON (keys in podplan predict --help): times and sizes to
 * nine significant digits, ratios to six; warnings as an array. */
void pp_predict_to_json(const pp_scenario *s, const pp_hw *hw, const pp_result *r,
			const pp_band *band, const pp_catalog *cat, char *const *warn, int nwarn,
			pp_sb *out);
/* Every op of one micro-batch on one GPU (per layer for layer ops): shape,
 * GFLOP, MB, time and exposed time, with the layer's totals per phase. */
void pp_predict_ops_text(const pp_scenario *s, const pp_hw *hw, pp_sb *out);

#endif
