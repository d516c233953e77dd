/*
 * testutil.h - helpers shared by the engine tests: load the catalog and
 * turn a JSON scenario string into a validated scenario and its hardware.
 */
#ifndef PP_TESTUTIL_H
#define PP_TESTUTIL_H

#include "input/catalog.h"
#include "input/hw.h"
#include "engine/predict.h"
#include "input/scenario.h"
#include "serve/servesim.h"

/* The catalog from $PODPLAN_DATA (tests run from the repo root). Aborts the
 * test program when it cannot be loaded. */
const pp_catalog *tu_catalog(void);
/* Parse json into *s and resolve *hw; returns 0 or the error code (message
 * printed). */
int tu_scenario(const char *json, pp_scenario *s, pp_hw *hw);
/* The same without the size limits' check (pp_scenario_parse_unchecked):
 * for the engine tests that build large layouts on purpose. */
int tu_scenario_unchecked(const char *json, pp_scenario *s, pp_hw *hw);
/* tu_scenario, then the serving setup of the scenario (pp_serve_setup_init);
 * returns 0 or -1 / the error code (message printed). */
int tu_serve_setup(const char *json, pp_scenario *s, pp_hw *hw, pp_serve_setup *su);
/* Predict a JSON scenario; returns the step time (negative on error). */
double tu_step(const char *json, pp_result *r);

#endif
