/*
 * jdoc.h - a JSON document read from a file, with the source positions that
 * error messages need, and typed getters that validate as they read.
 *
 * cJSON gives a tree but no positions; pp_jdoc_locate() re-scans the text to
 * turn a JSON path ("parallel.tensor_model_parallel_size", "gpus[3].id")
 * into line:column. Every getter error reads
 *   FILE:LINE:COL: PATH: found X, expected Y
 * and returns PP_EINPUT.
 *
 * Ownership: the pp_jdoc owns its text and cJSON tree; cJSON pointers handed
 * out stay valid until pp_jdoc_release().
 */
#ifndef PP_JDOC_H
#define PP_JDOC_H

#include "core/pp.h"
#include <cjson/cJSON.h>
#include <stdbool.h>

typedef struct pp_jdoc {
	char *path;   /* as given by the user */
	char *text;
	size_t len;
	cJSON *root;
} pp_jdoc;

/* The largest JSON file podplan reads (bytes). */
#define PP_JDOC_MAX_BYTES (16u * 1024u * 1024u)

/* Read and parse path. Errors: missing/unreadable file, empty file, binary
 * data, JSON syntax (with line:col), a root that is not an object. */
int pp_jdoc_load(pp_jdoc *d, const char *path, pp_err *err);
/* Parse text already in memory; name is used in messages. Copies text. */
int pp_jdoc_parse(pp_jdoc *d, const char *name, const char *text, size_t len, pp_err *err);
void pp_jdoc_release(pp_jdoc *d);

/* Position of the member or element at path (the key, for an object
 * member). *line = 0 when the path is not in the text. */
void pp_jdoc_locate(const pp_jdoc *d, const char *path, int *line, int *col);

/* Format "FILE:LINE:COL: PATH: <msg>" into err; returns PP_EINPUT. */
int pp_jdoc_errf(const pp_jdoc *d, pp_err *err, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A short description of a value for "found ..." ("the string \"x\"",
 * "the number 3.5", "an object"). Returns buf. */
const char *pp_jdoc_describe(const cJSON *v, char *buf, size_t n);

/* Join a path and a key into buf: ("a.b", "c") -> "a.b.c"; ("", "c") -> "c". */
const char *pp_jpath(char *buf, size_t n, const char *parent, const char *key);
/* ("a.b", 3) -> "a.b[3]". */
const char *pp_jpath_idx(char *buf, size_t n, const char *parent, int idx);

/*
 * Typed getters. obj is an object at path parent; key is looked up
 * case-sensitively. When the key is absent: required -> error, else the
 * output is left untouched and 0 is returned (so callers pre-set defaults).
 * *present (may be NULL) says whether the key was there.
 */
int pp_jget_int(const pp_jdoc *d, const cJSON *obj, const char *parent, const char *key,
		bool required, int64_t min, int64_t max, int64_t *out, bool *present, pp_err *err);
int pp_jget_num(const pp_jdoc *d, const cJSON *obj, const char *parent, const char *key,
		bool required, double min, double max, double *out, bool *present, pp_err *err);
int pp_jget_bool(const pp_jdoc *d, const cJSON *obj, const char *parent, const char *key,
		 bool required, bool *out, bool *present, pp_err *err);
/* Copies into out[n]; an over-long string is an error, and so is one
 * holding a control character other than TAB (C0, DEL, C1: util.h
 * pp_has_control_text). */
int pp_jget_str(const pp_jdoc *d, const cJSON *obj, const char *parent, const char *key,
		bool required, char *out, size_t n, bool *present, pp_err *err);
/* A string that must be one of choices; *out is its index. */
int pp_jget_enum(const pp_jdoc *d, const cJSON *obj, const char *parent, const char *key,
		 bool required, const char *const *choices, size_t nchoices, int *out,
		 bool *present, pp_err *err);
/* An object member (or NULL when absent and not required). */
int pp_jget_obj(const pp_jdoc *d, const cJSON *obj, const char *parent, const char *key,
		bool required, const cJSON **out, pp_err *err);

/* Every member of obj must be one of allowed[]; an unknown key is an error
 * with a did-you-mean. Also rejects duplicate keys. */
int pp_jcheck_keys(const pp_jdoc *d, const cJSON *obj, const char *path,
		   const char *const *allowed, size_t nallowed, pp_err *err);

#endif
