/*
 * csv.h - RFC 4180 CSV: the reader (quoted fields, doubled quotes, embedded
 * commas and newlines, CRLF or LF) and the one writer every CSV podplan
 * writes goes through (reports, cost, search, size, history, calib export,
 * validate, podplan-calibrate replay --csv and --op-csv).
 *
 * Reader: reads a whole text; rows and fields are owned by the pp_csv and
 * freed by pp_csv_release().
 *
 * Writer (pp_csvw): appends cells and rows to a pp_sb the caller owns.
 *  - Line ending: CRLF after every row, the header included. RFC 4180 s.2.1
 *    asks for it, spreadsheets and Python's csv module read it, the
 *    report's CSVs and `cost --csv` already wrote it, and pp_csv_parse reads
 *    it back; one ending for every file, so a diff or a concatenation of two
 *    podplan CSVs never mixes them.
 *  - Quoting: a cell holding a comma, a double quote, CR or LF is quoted,
 *    quotes doubled (RFC 4180 s.2.6-2.7); others are written bare.
 *  - Formula injection (OWASP "CSV Injection"): a text cell whose first
 *    character is = + - @, TAB or CR would be run as a formula by a
 *    spreadsheet; it gets a leading single quote, which spreadsheets show
 *    as text. A text cell that is a plain decimal number ("-3.5", "+2",
 *    "-1e-3") is a number, not a formula, and stays as it is; number cells
 *    (pp_csvw_num and friends) are never touched.
 * Hand-written: Debian's libcsv (libcsv-dev) quotes fields but knows
 * nothing of formula cells, so the test for them would be written here
 * anyway, and the quoting is ten lines beside it.
 */
#ifndef PP_CSV_H
#define PP_CSV_H

#include "core/pp.h"
#include "core/util.h"
#include <stdbool.h>

typedef struct pp_csv {
	char ***rows;     /* rows[i][j], NUL-terminated strings */
	int *nfields;
	int nrows;
} pp_csv;

/* Parse text (name for messages). The first row is the header when the
 * caller says so; pp_csv_col() finds a column by name. Blank lines are
 * left out. A quoted field never closed is PP_EINPUT naming the line it
 * opened on, and nothing is left to release. Memory: one block per row,
 * about the text's size plus 8 bytes a field. */
int pp_csv_parse(pp_csv *c, const char *name, const char *text, pp_err *err);
/* As pp_csv_parse, and a text of more than max_rows rows (header
 * included) is PP_EINPUT, found before the rows beyond are stored. */
int pp_csv_parse_max(pp_csv *c, const char *name, const char *text, int max_rows, pp_err *err);
/* The first row only (the header), the rest of text left unread: a
 * reader checks the columns before it parses a large file. */
int pp_csv_parse_header(pp_csv *c, const char *name, const char *text, pp_err *err);
/* Read path (at most 256 MiB) and parse it. */
int pp_csv_load(pp_csv *c, const char *path, pp_err *err);
/* Read path and parse it, at most max_bytes and max_rows (0: any number of
 * rows); larger is PP_EINPUT. */
int pp_csv_load_max(pp_csv *c, const char *path, size_t max_bytes, int max_rows, pp_err *err);
void pp_csv_release(pp_csv *c);
/* Index of the header column named name, or -1. */
int pp_csv_col(const pp_csv *c, const char *name);
/* Field j of row i, "" when the row is shorter. */
const char *pp_csv_get(const pp_csv *c, int i, int j);

/* ---- writing ---- */

#define PP_CSV_EOL "\r\n"

typedef struct pp_csvw {
	pp_sb *out;       /* borrowed: rows are appended to it */
	int ncells;       /* cells written on the current row */
} pp_csvw;

void pp_csvw_init(pp_csvw *w, pp_sb *out);
/* A text cell, quoted and neutralised as above; NULL is an empty cell. */
void pp_csvw_text(pp_csvw *w, const char *s);
/* A number cell, %.*g with sig significant digits; empty when not finite
 * (an undefined value). */
void pp_csvw_num(pp_csvw *w, double v, int sig);
/* A number cell with a fixed number of decimals (%.*f); empty when not
 * finite. */
void pp_csvw_fixed(pp_csvw *w, double v, int decimals);
/* A number cell in exponent form with a fixed number of decimals (%.*e:
 * 1.234560e-04); empty when not finite. */
void pp_csvw_sci(pp_csvw *w, double v, int decimals);
void pp_csvw_int(pp_csvw *w, long long v);
/* "true" or "false". */
void pp_csvw_bool(pp_csvw *w, bool v);
/* An empty cell. */
void pp_csvw_empty(pp_csvw *w);
/* Cells from a comma-separated list of plain names (a header, or part of
 * one: no name may hold a comma or a quote); the row stays open. */
void pp_csvw_names(pp_csvw *w, const char *names);
/* pp_csvw_names and the end of the row: a whole header line. */
void pp_csvw_header(pp_csvw *w, const char *names);
/* End the row (PP_CSV_EOL). A row with no cell is an empty line. */
void pp_csvw_end(pp_csvw *w);

#endif
