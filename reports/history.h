/*
 * history.h - report runs in the SQLite store (table runs, kind "report"):
 * record one and list them (`podplan history`; history.c), and compare two
 * (`podplan report --compare A B`; compare.c): what changed in the inputs (scenario keys, the
 * prices and other figures used with their dates, catalog files, podplan
 * version, Monte Carlo seed and draws, calibration), what changed in the
 * results (the answer, each option's cost and time, warnings), and which
 * input changes explain which result changes.
 *
 * The record is pp_report_inputs_json / pp_report_results_json (report.h);
 * the table needs no column beyond migration 1's.
 */
#ifndef PP_HISTORY_H
#define PP_HISTORY_H

#include "report.h"
#include "core/store.h"
#include <stdbool.h>

/* Insert the run (kind "report"); *id gets its row id. */
int pp_history_record(pp_store *st, const pp_report *r, const char *out_dir, int64_t *id,
		      pp_err *err);

/* Past runs, newest first, at most limit (<= 0: all); scenario NULL = all.
 * Text table (control bytes of stored names escaped as \xNN), or CSV (RFC
 * 4180, the cells as stored) with csv. An unknown scenario name is
 * PP_ENOTFOUND with the closest recorded name. */
int pp_history_list(pp_store *st, const char *scenario, int limit, bool csv, pp_sb *out,
		    pp_err *err);

/* What changed from run a to run b, and why, as text (control bytes of
 * stored names escaped as \xNN). PP_ENOTFOUND for a run that does not
 * exist; PP_EDB for a run whose JSON columns do not parse. */
int pp_history_compare(pp_store *st, int64_t a, int64_t b, pp_sb *out, pp_err *err);

#endif
