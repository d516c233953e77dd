/*
 * plancmd.h - what the two planning commands, `podplan search`
 * (cmd_search.c) and `podplan size` (cmd_size.c), share: progress on a
 * terminal, loading a scenario for planning, and a layout in words, JSON
 * and CSV.
 */
#ifndef PP_PLANCMD_H
#define PP_PLANCMD_H

#include "cli/cli.h"
#include "core/csv.h"
#include "core/jsonout.h"
#include "plan/search.h"
#include "plan/size.h"
#include <stdbool.h>

/* Engine times and sizes carry nine significant digits, ratios six. */
#define PP_PLAN_SIG 9
#define PP_PLAN_SIG_RATIO 6

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

/* "TP8 PP16 DP40 CP1 1f1b mb1 ZeRO-1 SP selective" for tables. */
const char *pp_plan_short_layout(const pp_layout *l, char *buf, size_t n);
/* The layout's keys (as the scenario's parallel and training sections
 * name them) added to the object o; mbs_count is its micro-batch count. */
void pp_plan_layout_json(cJSON *o, const pp_layout *l, int64_t mbs_count);

#endif
