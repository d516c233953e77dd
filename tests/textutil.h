/*
 * textutil.h - text helpers shared by the report tests (test_svg,
 * test_report, test_history): counting and finding in a text, UTF-8
 * validity, an RFC 4180 CSV reader written independently of the program's
 * CSV writer (so the tests check the writer against a second reading), and
 * reading a file whole.
 */
#ifndef PP_TEXTUTIL_H
#define PP_TEXTUTIL_H

#include <stdbool.h>
#include <stddef.h>

/* Occurrences of needle in hay (0 when hay is NULL). */
int tu_count(const char *hay, const char *needle);
/* hay from the first needle on; "" when it is not there (or hay is NULL). */
const char *tu_after(const char *hay, const char *needle);
/* Offset of the first needle in hay, -1 when it is not there. */
long tu_pos(const char *hay, const char *needle);
/* Whether s is well-formed UTF-8 (lead bytes and continuation bytes). */
bool tu_utf8_valid(const char *s);
/* RFC 4180: split a CSV text into records (CRLF outside quotes) and count
 * fields; returns the records, fills fields[i] for the first max records.
 * -1 on a malformed quote or a bare LF. */
int tu_csv_shape(const char *s, int *fields, int max);
/* Field k (0-based) of record r of a CSV text, unquoted, into buf (n
 * bytes); returns buf ("" when there is no such field). */
const char *tu_csv_field(const char *s, int r, int k, char *buf, size_t n);
/* The column of the header field name in record 0, -1 when absent. */
int tu_csv_col(const char *csv, const char *name);
/* A file's contents as a heap string (the caller frees), NULL when it
 * cannot be read; at most 64 MiB. */
char *tu_slurp(const char *path);

#endif
