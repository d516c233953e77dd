/*
 * costspec.h - the "costs" section of a scenario: what work is priced and
 * which price and finance assumptions override the catalog's defaults.
 * Parsed strictly (unknown keys are errors) as part of loading a scenario.
 */
#ifndef PP_COSTSPEC_H
#define PP_COSTSPEC_H

#include "jdoc.h"
#include "pp.h"
#include <stdbool.h>

typedef struct pp_catalog pp_catalog;

typedef struct pp_costspec {
	bool present;
} pp_costspec;

/* obj is the "costs" object at JSON path `path` of d (NULL when absent). */
int pp_costspec_parse(pp_costspec *cs, const pp_jdoc *d, const cJSON *obj, const char *path,
		      const pp_catalog *cat, pp_err *err);
void pp_costspec_release(pp_costspec *cs);

#endif
