/*
 * histint.h - what history.c (record, list) and compare.c (`report
 * --compare`) share, private to the two: reading a runs row and the JSON
 * of a stored record.
 */
#ifndef PP_HISTINT_H
#define PP_HISTINT_H

#include "history.h"
#include <cjson/cJSON.h>

/* Column i of the current row as text; "" for NULL. */
const char *pp_hist_col_text(sqlite3_stmt *q, int i);
/* Unix seconds t as "YYYY-MM-DD HH:MM" (UTC). */
void pp_hist_fmt_time(double t, char *buf, size_t n);
/* o[k] when it is a string, else NULL; o[k] when it is a number, else NAN. */
const char *pp_hist_str(const cJSON *o, const char *k);
double pp_hist_num(const cJSON *o, const char *k);
/* The option named name in a stored results record, or NULL. */
const cJSON *pp_hist_option(const cJSON *res, const char *name);

#endif
