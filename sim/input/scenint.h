/*
 * scenint.h - private to the scenario parser's files: scenario.c (the top
 * level, the model, cluster, calibration and costs sections, the defaults
 * derived once every section is read), scentrain.c (the training section
 * and the framework's behaviours) and scenparallel.c (the parallel
 * section). scenario.c calls the section parsers below in the order the
 * keys depend on each other: model, training, parallel, cluster,
 * calibration, serving, the framework's behaviours, costs. Each reads its
 * section from s->doc into its part of s; errors as scenario.h says
 * (PP_EINPUT, file:line:col, JSON path, found, expected).
 */
#ifndef PP_SCENINT_H
#define PP_SCENINT_H

#include "input/scenario.h"

/* "training" (absent: the defaults); needs s->model. */
int pp_scen_parse_training(pp_scenario *s, const pp_catalog *cat, pp_err *err);
/* "parallel" (absent: every size 1); records the keys given in s->given. */
int pp_scen_parse_parallel(pp_scenario *s, pp_err *err);
/* training.framework and the behaviour keys (framework.h) into
 * s->training.stack; the attention kernel decides use_flash_attn. */
int pp_scen_parse_stack(pp_scenario *s, const pp_catalog *cat, pp_err *err);

#endif
