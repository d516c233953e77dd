/*
 * serveplanout.h - a serving deployment search's result (serveplan.h) for
 * people and programs: the text, JSON and CSV `podplan serve --search`
 * prints. Each appends to out; the result and scenario are read only.
 */
#ifndef PP_SERVEPLANOUT_H
#define PP_SERVEPLANOUT_H

#include "core/util.h"
#include "input/scenario.h"
#include "plan/serveplan.h"
#include <stdbool.h>
#include <stdint.h>

/* The summary, the layouts run best first (top of them), the pick and why,
 * and the scenario keys to run it. rate_from says where the target rate
 * came from ("--rate", "workload.request_rate", "default"); price_what the
 * GPU-hour price's source (or why there is none); seed the workload's. */
void pp_splan_to_text(const pp_scenario *s, const pp_splan_result *r, const char *rate_from,
		      const char *price_what, uint64_t seed, int top, pp_sb *out);
/* Everything the search did: every layout with its status and why, every
 * simulation, the pick; figures to nine significant digits, elapsed_s to
 * the microsecond. */
void pp_splan_to_json(const pp_scenario *s, const pp_splan_result *r, const char *rate_from,
		      const char *price_what, uint64_t seed, bool exhaustive, pp_sb *out);
/* One RFC 4180 row per simulation run at the target rate, header first. */
void pp_splan_to_csv(const pp_scenario *s, const pp_splan_result *r, pp_sb *out);

#endif
