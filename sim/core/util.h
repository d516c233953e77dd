/*
 * util.h - small helpers every module uses: growable strings, whole-file
 * reads, atomic file writes, edit distance for did-you-mean, the data
 * directory.
 */
#ifndef PP_UTIL_H
#define PP_UTIL_H

#include "core/pp.h"
#include <stdarg.h>
#include <stdbool.h>
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
/* Append s for a terminal: every control byte (C0 controls such as ESC,
 * TAB and LF, DEL, and the UTF-8 C1 controls C2 80..9F) as the four
 * characters \xNN, so a name from a file or the store cannot move the
 * cursor, recolour or retitle the terminal; other bytes as they are. */
void pp_sb_add_tty(pp_sb *sb, const char *s);
/* s escaped as pp_sb_add_tty into buf[n] (cut short when it does not fit;
 * NULL prints as ""); returns buf. */
const char *pp_tty_str(const char *s, char *buf, size_t n);
/* pp_tty_str into one of 16 static buffers of 4 KiB used in turn: for a
 * few values of one printf call in a command (not thread-safe). */
const char *pp_tty(const char *s);
/* Escape, as pp_sb_add_tty, every control byte but LF of what sb holds
 * from offset from on: text built for a terminal from stored names. A NUL
 * byte in that part ends it. */
void pp_sb_tty_from(pp_sb *sb, size_t from);
/* True when s holds a control byte as above. */
bool pp_has_control(const char *s);
/* The same, TAB allowed (white space inside a line of text). */
bool pp_has_control_text(const char *s);
/* True when s is well-formed UTF-8 (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF). */
bool pp_utf8_valid(const char *s);
/* A decimal number as a person writes it: [+-]digits[.digits][(e|E)[+-]digits]
 * and nothing else (no white space, hexadecimal, inf or nan, which strtod
 * takes), finite as a double. 0, or -1 with *out untouched. */
int pp_parse_decimal(const char *s, double *out);
/* Take ownership of the buffer (never NULL); sb becomes empty. */
char *pp_sb_detach(pp_sb *sb);

void *pp_xmalloc(size_t n);
void *pp_xcalloc(size_t n, size_t size);
void *pp_xrealloc(void *p, size_t n);
char *pp_xstrdup(const char *s);

/* Read a whole file into a NUL-terminated heap buffer (*out, caller frees).
 * Fails with PP_EINPUT when the file is missing or unreadable (it is the
 * user's path), naming the path, and when it is not a regular file (a
 * directory, a FIFO, a device: opened without blocking, so a FIFO with no
 * writer cannot hang the program, and /dev/zero cannot fill memory).
 * max_bytes bounds the size read; a larger file is PP_EINPUT before any of
 * it is read. */
int pp_read_file(const char *path, size_t max_bytes, char **out, size_t *len, pp_err *err);

/* Write data to path atomically: a temporary file in the same directory
 * (PATH.tmp.XXXXXX, a name no one can guess beforehand, created with
 * O_CREAT | O_EXCL, so a link planted under it is never followed; mode
 * 0666 less the umask, as a plain open would give), fsync, rename. rename
 * replaces a link at path itself, never its target. A failure leaves no
 * partial file at path. */
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

/* FNV-1a 64-bit hash of bytes, printed as 16 hex digits into buf[17]. */
void pp_hash_hex(const void *data, size_t n, char buf[17]);

#endif
