/* jsonout.c - see jsonout.h. */
#include "core/jsonout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static cJSON *must(cJSON *item)
{
	if (!item) {
		fputs("podplan: out of memory\n", stderr);
		abort();
	}
	return item;
}

cJSON *pp_json_add(cJSON *parent, const char *key, cJSON *item)
{
	must(item);
	if (!parent)
		return item;
	if (cJSON_IsArray(parent) || !key) {
		cJSON_AddItemToArray(parent, item);
	} else if (!cJSON_AddItemToObject(parent, key, item)) {
		cJSON_Delete(item);
		must(NULL);
	}
	return item;
}

double pp_json_round(double v, int sig)
{
	/* from 10^sig up %.<sig>g needed an exponent; the rounded digits
	 * written out in full would pass for exact ones ("85899345900" for
	 * 85899345920 bytes), so the figure is left whole */
	if (!isfinite(v) || fabs(v) >= pow(10.0, sig))
		return v;
	char buf[64];
	snprintf(buf, sizeof(buf), "%.*g", sig, v);
	return strtod(buf, NULL);
}

cJSON *pp_json_num(cJSON *parent, const char *key, double v, int sig)
{
	if (!isfinite(v))
		return pp_json_null(parent, key);
	return pp_json_add(parent, key, cJSON_CreateNumber(pp_json_round(v, sig)));
}

cJSON *pp_json_fixed(cJSON *parent, const char *key, double v, int decimals)
{
	if (!isfinite(v))
		return pp_json_null(parent, key);
	char buf[400];
	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return pp_json_add(parent, key, cJSON_CreateNumber(strtod(buf, NULL)));
}

cJSON *pp_json_int(cJSON *parent, const char *key, int64_t v)
{
	return pp_json_add(parent, key, cJSON_CreateNumber((double)v));
}

cJSON *pp_json_str(cJSON *parent, const char *key, const char *s)
{
	return pp_json_add(parent, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

cJSON *pp_json_bool(cJSON *parent, const char *key, bool v)
{
	return pp_json_add(parent, key, cJSON_CreateBool(v));
}

cJSON *pp_json_null(cJSON *parent, const char *key)
{
	return pp_json_add(parent, key, cJSON_CreateNull());
}

cJSON *pp_json_obj(cJSON *parent, const char *key)
{
	return pp_json_add(parent, key, cJSON_CreateObject());
}

cJSON *pp_json_arr(cJSON *parent, const char *key)
{
	return pp_json_add(parent, key, cJSON_CreateArray());
}

void pp_json_print(const cJSON *root, bool pretty, pp_sb *out)
{
	char *s = pretty ? cJSON_Print(root) : cJSON_PrintUnformatted(root);
	if (!s) {
		fputs("podplan: out of memory\n", stderr);
		abort();
	}
	pp_sb_adds(out, s);
	if (pretty)
		pp_sb_adds(out, "\n");
	free(s);
}

char *pp_json_finish(cJSON *root, bool pretty)
{
	pp_sb sb = {0};
	pp_json_print(root, pretty, &sb);
	cJSON_Delete(root);
	return pp_sb_detach(&sb);
}
