/*
 * sizeout.h - a sizing's result (size.h) for people and programs: the
 * text, JSON and CSV `podplan size` prints. Each appends to out; the
 * result, the scenario and the weighing are read only.
 *
 * The answer comes from weighing the searched clusters with podplan
 * cost's engine (cost/cost.h), which runs above this layer: the caller
 * weighs and hands the formatters what they print of it, as a
 * pp_size_weighed (cli/plancmd.h fills one from a pp_cost_result).
 */
#ifndef PP_SIZEOUT_H
#define PP_SIZEOUT_H

#include "calib/headroom.h"
#include "core/util.h"
#include "input/catalog.h"
#include "input/scenario.h"
#include "plan/size.h"
#include <stdbool.h>

/* What the weighing says, as the size formatters print it. */
typedef struct pp_size_weighed {
	const char *recommendation;  /* the answer in sentences ("": none) */
	const char *recommended;     /* the answer's option name; NULL: none */
	/* the answer's cluster, where the answer is one (gpu NULL: none) */
	const char *gpu;             /* catalog GPU id */
	int num_gpus;
	const char *fabric;          /* inter-node fabric id; "": any */
	const char *kind;            /* "rent" or "build" where the answer rents or
					builds that cluster, else "" */
	const char *table;           /* every weighed option as a table, text */
	const char *json;            /* the whole weighing as JSON (podplan cost --json) */
} pp_size_weighed;

/* The sizing, the target, the counts, the answer, the evidence of the
 * answer's and the fastest cluster, every option's best layout rented,
 * plausibility warnings, then w's table. cat: the validation sets and
 * plausibility figures; conservative: the times are the pessimistic ends
 * of the intervals. w NULL: not weighed. */
void pp_size_to_text(const pp_catalog *cat, const pp_scenario *s, const pp_size_result *r,
		     const pp_size_weighed *w, const pp_headroom *hr, bool conservative,
		     pp_sb *out);
/* Everything: the counts, every option with its status, bounds and best
 * layout, the answer and the weighing whole. w NULL: "weighed" is null. */
void pp_size_to_json(const pp_catalog *cat, const pp_scenario *s, const pp_size_result *r,
		     const pp_size_weighed *w, const pp_headroom *hr, pp_sb *out);
/* One RFC 4180 row per option, header first. */
void pp_size_to_csv(const pp_size_result *r, const pp_size_weighed *w, pp_sb *out);

#endif
