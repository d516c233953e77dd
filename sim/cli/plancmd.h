/*
 * plancmd.h - what the two planning commands, `podplan search`
 * (cmd_search.c) and `podplan size` (cmd_size.c), share: progress on a
 * terminal, loading a scenario for planning, and what size's formatters
 * print of the cost engine's weighing (plan/ may not include cost/).
 */
#ifndef PP_PLANCMD_H
#define PP_PLANCMD_H

#include "cli/cli.h"
#include "core/csv.h"
#include "core/jsonout.h"
#include "plan/search.h"
#include "cost/cost.h"
#include "plan/size.h"
#include "plan/sizeout.h"
#include <stdbool.h>

/* Progress on stderr when it is a terminal. */
typedef struct pp_plan_prog {
	bool on;
	double last;
	double phase1_at;  /* elapsed when simulation started; < 0 before */
	char prefix[96];
} pp_plan_prog;

/* A pp_search_progress_fn; ctx is a pp_plan_prog. */
void pp_plan_on_progress(const pp_search_progress *p, void *ctx);
/* Clear the progress line. */
void pp_plan_progress_end(pp_plan_prog *g);

typedef struct pp_plan_loaded {
	pp_cli_scenario c;
	pp_size_spec spec;
} pp_plan_loaded;

/* pp_cli_load_scenario (unchecked: the search fills what it leaves out;
 * the calibration profile calib, or the scenario's), then its sizing spec;
 * the scenario must give training.global_batch_size. Prints its own
 * error; returns the exit status. cmd: "search" or "size". */
int pp_plan_load(pp_plan_loaded *l, const char *path, const char *cmd, const char *calib);
void pp_plan_unload(pp_plan_loaded *l);

/* What the size formatters (plan/sizeout.h) print of the cost engine's
 * weighing w: v's strings point into w, table (w's options as text) and
 * json (w whole, podplan cost --json), which the caller releases after
 * printing. */
void pp_plan_weighed(const pp_cost_result *w, pp_size_weighed *v, pp_sb *table, pp_sb *json);

#endif
