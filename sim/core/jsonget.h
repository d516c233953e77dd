/*
 * jsonget.h - reading a name or a figure out of a cJSON object where a
 * missing key, or one of another type, is not an error but has a default:
 * what podplan stored itself (a run record, a health verdict, a
 * measurement's extra JSON, a profile) and optional catalog text (health
 * causes). Input a person wrote and that must be right (scenarios, catalog
 * figures) goes through jdoc.h instead, which names the JSON path of what
 * is wrong.
 *
 * o may be NULL (the default is returned). A returned string is borrowed
 * from o: it lives as long as the tree.
 */
#ifndef PP_JSONGET_H
#define PP_JSONGET_H

#include <cjson/cJSON.h>

/* o[key] when it is a string, else def. */
const char *pp_json_get_str(const cJSON *o, const char *key, const char *def);
/* o[key] when it is a number, else def (NAN for "undefined"). */
double pp_json_get_num(const cJSON *o, const char *key, double def);

#endif
