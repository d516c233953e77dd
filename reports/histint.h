/*
 * histint.h - what history.c (record, list) and compare.c (`report
 * --compare`) share, private to the two: reading a runs row and the JSON
 * of a stored record (its figures through core/jsonget.h).
 */
#ifndef PP_HISTINT_H
#define PP_HISTINT_H

#include "history.h"
#include "core/jsonget.h"
#include <cjson/cJSON.h>

/* Column i of the current row as text; "" for NULL. */
const char *pp_hist_col_text(sqlite3_stmt *q, int i);
/* Unix seconds t as "YYYY-MM-DD HH:MM" (UTC). */
void pp_hist_fmt_time(double t, char *buf, size_t n);
/* The option named name in a stored results record, or NULL. */
const cJSON *pp_hist_option(const cJSON *res, const char *name);

/* The store's path as messages show it (pp_report_public_path). */
const char *pp_hist_store(pp_store *st, char *buf, size_t n);

#endif
