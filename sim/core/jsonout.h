/*
 * jsonout.h - JSON output through cJSON: what podplan prints or stores as
 * JSON is built as a cJSON tree with these helpers and printed by cJSON,
 * so strings are always escaped and the text always parses.
 *
 * Numbers: a figure below 10^sig is added rounded to the significant digits
 * it carries (pp_json_num's sig: 9 for engine times and sizes, 6 for ratios,
 * 10 for dollars), then cJSON prints it (%.15g, %.17g when that does not
 * read back): the digits are those %.<sig>g gives. A larger figure, which
 * %.<sig>g wrote with an exponent, is printed whole: its rounded digits
 * written out would pass for exact ones (85899345920 bytes, not
 * "85899345900" nor "8.58993459e+10"). NaN and infinity are JSON null
 * (cJSON_CreateNumber would cast NaN to int: undefined behaviour).
 *
 * Every helper adds the new item to parent, under key when parent is an
 * object, at the end when it is an array (key NULL), and returns it; a
 * NULL parent returns the item unattached. Keys keep the order they are
 * added in. Allocation failure aborts, as pp_xmalloc does.
 */
#ifndef PP_JSONOUT_H
#define PP_JSONOUT_H

#include "core/util.h"
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

/* v rounded to sig significant digits (what %.<sig>g prints, read back);
 * v itself when not finite or not below 10^sig. */
double pp_json_round(double v, int sig);

cJSON *pp_json_num(cJSON *parent, const char *key, double v, int sig);
/* A figure with a fixed number of decimals (what %.<decimals>f prints,
 * read back: 0.9986 for a ratio printed %.4f); null when not finite. */
cJSON *pp_json_fixed(cJSON *parent, const char *key, double v, int decimals);
/* An integer (a count, an id, a seed): every digit printed below 1e15. */
cJSON *pp_json_int(cJSON *parent, const char *key, int64_t v);
/* A string; NULL is null. */
cJSON *pp_json_str(cJSON *parent, const char *key, const char *s);
cJSON *pp_json_bool(cJSON *parent, const char *key, bool v);
cJSON *pp_json_null(cJSON *parent, const char *key);
/* A new empty object or array. */
cJSON *pp_json_obj(cJSON *parent, const char *key);
cJSON *pp_json_arr(cJSON *parent, const char *key);
/* Attach an existing item (ownership passes to parent). */
cJSON *pp_json_add(cJSON *parent, const char *key, cJSON *item);

/* Append root's text to out: cJSON_Print's layout (one key a line, tab
 * indents) with a final newline when pretty, cJSON_PrintUnformatted's
 * (no white space, no newline) otherwise. */
void pp_json_print(const cJSON *root, bool pretty, pp_sb *out);
/* root's text as pp_json_print lays it out, in a heap string the caller
 * frees; root is deleted (for a tree built only to be stored or returned). */
char *pp_json_finish(cJSON *root, bool pretty);

#endif
