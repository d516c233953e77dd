/*
 * util.h - small helpers every module uses: growable strings, whole-file
 * reads, atomic file writes, edit distance for did-you-mean, the data
 * directory.
 */
#ifndef PP_UTIL_H
#define PP_UTIL_H

#include "core/pp.h"
#include <stdarg.h>
#include <stdio.h>

/* A growable NUL-terminated string (git's strbuf, reduced). Zero-init is a
 * valid empty buffer; pp_sb_release frees it. Allocation failure aborts:
 * a planner that cannot allocate a few KB has nothing sensible to do. */
typedef struct pp_sb {
	char *buf;
	size_t len, cap;
} pp_sb;

void pp_sb_release(pp_sb *sb);
void pp_sb_add(pp_sb *sb, const char *s, size_t n);
void pp_sb_adds(pp_sb *sb, const char *s);
void pp_sb_addf(pp_sb *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pp_sb_vaddf(pp_sb *sb, const char *fmt, va_list ap);
/* Append s escaped for HTML text and attribute values. */
void pp_sb_add_html(pp_sb *sb, const char *s);
/* Take ownership of the buffer (never NULL); sb becomes empty. */
char *pp_sb_detach(pp_sb *sb);

void *pp_xmalloc(size_t n);
void *pp_xcalloc(size_t n, size_t size);
void *pp_xrealloc(void *p, size_t n);
char *pp_xstrdup(const char *s);

/* Read a whole file into a NUL-terminated heap buffer (*out, caller frees).
 * Fails with PP_EINPUT when the file is missing or unreadable (it is the
 * user's path), naming the path. max_bytes bounds the size read. */
int pp_read_file(const char *path, size_t max_bytes, char **out, size_t *len, pp_err *err);

/* Write data to path atomically: a temporary file in the same directory,
 * fsync, rename. A failure leaves no partial file at path. */
int pp_write_file_atomic(const char *path, const char *data, size_t len, pp_err *err);

/* mkdir -p; 0 or PP_EIO. */
int pp_mkdirs(const char *path, pp_err *err);

/* Levenshtein distance, capped at 64 characters per string. */
int pp_edit_distance(const char *a, const char *b);

/* The closest of n candidates to word, or NULL when none is close enough
 * to be a plausible misspelling. */
const char *pp_did_you_mean(const char *word, const char *const *cands, size_t n);

/* The directory holding the catalogs (models/): $PODPLAN_DATA, else
 * <exe>/../models when run from a checkout, else <exe>/../share/podplan/models.
 * Returns a static string. */
const char *pp_data_dir(void);

/* Join directory and name into a static-free heap string. */
char *pp_path_join(const char *dir, const char *name);

/* Seconds since the epoch as a double, wall clock; and a monotonic clock. */
double pp_now_s(void);
double pp_mono_s(void);

/* Format seconds as "3.2 ms", "14.1 s", "2.3 h", "41.0 days". */
const char *pp_fmt_duration(double s, char *buf, size_t n);
/* Format a byte count with binary prefixes: "79.1 GiB". */
const char *pp_fmt_bytes(double b, char *buf, size_t n);
/* Format dollars: "$1.23M", "$412k", "$88". */
const char *pp_fmt_usd(double usd, char *buf, size_t n);

/* Format a token count: "2T", "15.6B", "3.2M", "512"; "-" when not finite. */
const char *pp_fmt_tokens(double t, char *buf, size_t n);

/* FNV-1a 64-bit hash of bytes, printed as 16 hex digits into buf[17]. */
void pp_hash_hex(const void *data, size_t n, char buf[17]);

#endif
