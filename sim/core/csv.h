/*
 * csv.h - an RFC 4180 CSV reader: quoted fields, doubled quotes, embedded
 * commas and newlines, CRLF. Reads a whole text; rows and fields are owned
 * by the pp_csv and freed by pp_csv_release().
 */
#ifndef PP_CSV_H
#define PP_CSV_H

#include "core/pp.h"

typedef struct pp_csv {
	char ***rows;     /* rows[i][j], NUL-terminated strings */
	int *nfields;
	int nrows;
} pp_csv;

/* Parse text (name for messages). The first row is the header when the
 * caller says so; pp_csv_col() finds a column by name. */
int pp_csv_parse(pp_csv *c, const char *name, const char *text, pp_err *err);
int pp_csv_load(pp_csv *c, const char *path, pp_err *err);
void pp_csv_release(pp_csv *c);
/* Index of the header column named name, or -1. */
int pp_csv_col(const pp_csv *c, const char *name);
/* Field j of row i, "" when the row is shorter. */
const char *pp_csv_get(const pp_csv *c, int i, int j);

#endif
