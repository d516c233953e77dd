/* jdoc.c - see jdoc.h. */
#include "core/jdoc.h"
#include "core/fmt.h"
#include "core/util.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void offset_to_linecol(const char *text, size_t off, int *line, int *col)
{
	int l = 1, c = 1;
	for (size_t i = 0; i < off && text[i]; i++) {
		if (text[i] == '\n') {
			l++;
			c = 1;
		} else {
			c++;
		}
	}
	*line = l;
	*col = c;
}

/* How many objects and arrays are open just before byte off, strings
 * skipped; *in_str: whether off is inside a string. */
static long depth_at(const char *t, size_t off, bool *in_str)
{
	long depth = 0;
	bool str = false;
	for (size_t i = 0; i < off; i++) {
		char c = t[i];
		if (str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				str = false;
		} else if (c == '"') {
			str = true;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			depth--;
		}
	}
	*in_str = str;
	return depth;
}

/* True when the text ends inside a string or with objects/arrays still
 * open: a truncated file rather than a syntax error. */
static bool unbalanced(const char *t, size_t len)
{
	bool str;
	long depth = depth_at(t, len, &str);
	return str || depth > 0;
}

int pp_jdoc_parse(pp_jdoc *d, const char *name, const char *text, size_t len, pp_err *err)
{
	memset(d, 0, sizeof(*d));
	d->path = pp_xstrdup(name);
	d->text = pp_xmalloc(len + 1);
	memcpy(d->text, text, len);
	d->text[len] = '\0';
	d->len = len;

	size_t ws = 0;
	while (ws < len && isspace((unsigned char)text[ws]))
		ws++;
	if (ws == len)
		return pp_errf(err, PP_EINPUT, "%s: the file is empty, expected a JSON object", name);
	if (memchr(text, '\0', len))
		return pp_errf(err, PP_EINPUT,
			       "%s: found binary data (a NUL byte), expected a UTF-8 JSON text", name);
	const char *end = NULL;
	d->root = cJSON_ParseWithLengthOpts(d->text, len, &end, 0);
	if (!d->root) {
		size_t off = end && end >= d->text ? (size_t)(end - d->text) : 0;
		int line, col;
		offset_to_linecol(d->text, off, &line, &col);
		bool in_str;
		/* cJSON refuses the object or array that would open past
		 * CJSON_NESTING_LIMIT and stops on it: only then is the
		 * nesting the cause. */
		if (off < len && (d->text[off] == '[' || d->text[off] == '{') &&
		    depth_at(d->text, off, &in_str) >= CJSON_NESTING_LIMIT && !in_str)
			return pp_errf(err, PP_EINPUT,
				       "%s:%d:%d: found nesting deeper than %d levels of objects "
				       "and arrays, expected at most %d", name, line, col,
				       CJSON_NESTING_LIMIT, CJSON_NESTING_LIMIT);
		if (off >= len || unbalanced(d->text, len))
			return pp_errf(err, PP_EINPUT,
				       "%s:%d:%d: the JSON ends too early (truncated file?), "
				       "expected a complete JSON object", name, line, col);
		unsigned char c = (unsigned char)d->text[off];
		char near[16];
		if (isprint(c))
			snprintf(near, sizeof(near), "'%c'", (char)c);
		else
			snprintf(near, sizeof(near), "byte 0x%02x", c);
		return pp_errf(err, PP_EINPUT,
			       "%s:%d:%d: JSON syntax error near %s, expected valid JSON",
			       name, line, col, near);
	}
	/* cJSON stops at the first complete value; anything but whitespace after
	 * it is an error too. */
	const char *p = end;
	while (p && *p && isspace((unsigned char)*p))
		p++;
	if (p && *p) {
		int line, col;
		offset_to_linecol(d->text, (size_t)(p - d->text), &line, &col);
		return pp_errf(err, PP_EINPUT, "%s:%d:%d: found text after the JSON value, "
			       "expected end of file", name, line, col);
	}
	if (!cJSON_IsObject(d->root))
		return pp_errf(err, PP_EINPUT, "%s:1:1: found %s at the top level, expected a JSON object",
			       name, cJSON_IsArray(d->root) ? "an array" : "a scalar");
	return 0;
}

int pp_jdoc_load(pp_jdoc *d, const char *path, pp_err *err)
{
	char *text = NULL;
	size_t len = 0;
	memset(d, 0, sizeof(*d));
	int rc = pp_read_file(path, PP_JDOC_MAX_BYTES, &text, &len, err);
	if (rc)
		return rc;
	rc = pp_jdoc_parse(d, path, text, len, err);
	free(text);
	return rc;
}

void pp_jdoc_release(pp_jdoc *d)
{
	if (!d)
		return;
	cJSON_Delete(d->root);
	free(d->text);
	free(d->path);
	memset(d, 0, sizeof(*d));
}

/* ---- locating a path in the text ---- */

typedef struct seg {
	const char *key; /* NULL for an index */
	size_t keylen;
	long idx;
} seg;

static const char *skip_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static const char *skip_string(const char *p, const char *e)
{
	/* p at the opening quote */
	for (p++; p < e; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return e;
}

static const char *skip_value(const char *p, const char *e)
{
	int depth = 0;
	while (p < e) {
		p = skip_ws(p, e);
		if (p >= e)
			return e;
		char c = *p;
		if (c == '"') {
			p = skip_string(p, e);
		} else if (c == '{' || c == '[') {
			depth++;
			p++;
			continue;
		} else if (c == '}' || c == ']') {
			depth--;
			p++;
		} else if (c == ',' || c == ':') {
			if (depth == 0)
				return p;
			p++;
			continue;
		} else {
			while (p < e && !strchr(",:]} \t\r\n", *p))
				p++;
		}
		if (depth <= 0)
			return p;
	}
	return e;
}

static const char *find_path(const char *p, const char *e, const seg *s, int n, int i)
{
	p = skip_ws(p, e);
	if (p >= e)
		return NULL;
	if (s[i].key) {
		if (*p != '{')
			return NULL;
		p++;
		for (;;) {
			p = skip_ws(p, e);
			if (p >= e || *p != '"')
				return NULL;
			const char *kstart = p;
			const char *kend = skip_string(p, e);
			size_t klen = (size_t)(kend - kstart) - 2;
			int match = klen == s[i].keylen && !memcmp(kstart + 1, s[i].key, klen);
			p = skip_ws(kend, e);
			if (p >= e || *p != ':')
				return NULL;
			p++;
			if (match)
				return i == n - 1 ? kstart : find_path(p, e, s, n, i + 1);
			p = skip_value(p, e);
			p = skip_ws(p, e);
			if (p >= e || *p != ',')
				return NULL;
			p++;
		}
	} else {
		if (*p != '[')
			return NULL;
		p++;
		for (long k = 0;; k++) {
			p = skip_ws(p, e);
			if (p >= e || *p == ']')
				return NULL;
			if (k == s[i].idx)
				return i == n - 1 ? p : find_path(p, e, s, n, i + 1);
			p = skip_value(p, e);
			p = skip_ws(p, e);
			if (p >= e || *p != ',')
				return NULL;
			p++;
		}
	}
}

void pp_jdoc_locate(const pp_jdoc *d, const char *path, int *line, int *col)
{
	seg segs[64];
	int n = 0;
	*line = 0;
	*col = 0;
	if (!d || !d->text)
		return;
	const char *p = path;
	while (p && *p && n < 64) {
		if (*p == '.') {
			p++;
			continue;
		}
		if (*p == '[') {
			segs[n].key = NULL;
			segs[n].idx = strtol(p + 1, (char **)&p, 10);
			if (*p == ']')
				p++;
			n++;
			continue;
		}
		const char *q = p;
		while (*q && *q != '.' && *q != '[')
			q++;
		segs[n].key = p;
		segs[n].keylen = (size_t)(q - p);
		n++;
		p = q;
	}
	if (n == 0) {
		*line = 1;
		*col = 1;
		return;
	}
	const char *hit = find_path(d->text, d->text + d->len, segs, n, 0);
	if (hit)
		offset_to_linecol(d->text, (size_t)(hit - d->text), line, col);
}

int pp_jdoc_errf(const pp_jdoc *d, pp_err *err, const char *path, const char *fmt, ...)
{
	char msg[PP_ERR_MAX / 2];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	int line = 0, col = 0;
	pp_jdoc_locate(d, path, &line, &col);
	/* Walk up the path until something is in the text (a missing key is
	 * reported at its parent object). */
	char up[512];
	snprintf(up, sizeof(up), "%s", path);
	while (line == 0 && up[0]) {
		char *cut = strrchr(up, '.');
		char *br = strrchr(up, '[');
		if (br && (!cut || br > cut))
			cut = br;
		if (!cut)
			up[0] = '\0';
		else
			*cut = '\0';
		pp_jdoc_locate(d, up, &line, &col);
	}
	if (line == 0) {
		line = 1;
		col = 1;
	}
	return pp_errf(err, PP_EINPUT, "%s:%d:%d: %s: %s", d ? d->path : "?", line, col,
		       path[0] ? path : "(top level)", msg);
}

const char *pp_jdoc_describe(const cJSON *v, char *buf, size_t n)
{
	if (!v)
		snprintf(buf, n, "nothing");
	else if (cJSON_IsString(v))
		snprintf(buf, n, "the string \"%.40s%s\"", v->valuestring,
			 strlen(v->valuestring) > 40 ? "..." : "");
	else if (cJSON_IsNumber(v))
	{
		char num[32];
		snprintf(buf, n, "the number %s", pp_fmt_num(v->valuedouble, num, sizeof(num)));
	}
	else if (cJSON_IsBool(v))
		snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
	else if (cJSON_IsNull(v))
		snprintf(buf, n, "null");
	else if (cJSON_IsArray(v))
		snprintf(buf, n, "an array");
	else
		snprintf(buf, n, "an object");
	return buf;
}

const char *pp_jpath(char *buf, size_t n, const char *parent, const char *key)
{
	if (parent && parent[0])
		snprintf(buf, n, "%s.%s", parent, key);
	else
		snprintf(buf, n, "%s", key);
	return buf;
}

const char *pp_jpath_idx(char *buf, size_t n, const char *parent, int idx)
{
	snprintf(buf, n, "%s[%d]", parent ? parent : "", idx);
	return buf;
}

static const cJSON *member(const pp_jdoc *d, const cJSON *obj, const char *parent, const char *key,
			   bool required, char *path, size_t pn, int *rc, pp_err *err)
{
	pp_jpath(path, pn, parent, key);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	*rc = 0;
	if (!v && required)
		*rc = pp_jdoc_errf(d, err, path, "missing, expected this key to be given");
	return v;
}

int pp_jget_num(const pp_jdoc *d, const cJSON *obj, const char *parent, const char *key,
		bool required, double min, double max, double *out, bool *present, pp_err *err)
{
	char path[512], what[96];
	int rc;
	const cJSON *v = member(d, obj, parent, key, required, path, sizeof(path), &rc, err);
	if (present)
		*present = v != NULL;
	if (!v)
		return rc;
	if (!cJSON_IsNumber(v))
		return pp_jdoc_errf(d, err, path, "found %s, expected a number",
				    pp_jdoc_describe(v, what, sizeof(what)));
	double x = v->valuedouble;
	if (!isfinite(x) || x < min || x > max) {
		char f[32], lo[32], hi[32];
		return pp_jdoc_errf(d, err, path, "found %s, expected a number in [%s, %s]",
				    pp_fmt_num(x, f, sizeof(f)), pp_fmt_num(min, lo, sizeof(lo)),
				    pp_fmt_num(max, hi, sizeof(hi)));
	}
	*out = x;
	return 0;
}

int pp_jget_int(const pp_jdoc *d, const cJSON *obj, const char *parent, const char *key,
		bool required, int64_t min, int64_t max, int64_t *out, bool *present, pp_err *err)
{
	char path[512], what[96];
	int rc;
	const cJSON *v = member(d, obj, parent, key, required, path, sizeof(path), &rc, err);
	if (present)
		*present = v != NULL;
	if (!v)
		return rc;
	if (!cJSON_IsNumber(v))
		return pp_jdoc_errf(d, err, path, "found %s, expected an integer",
				    pp_jdoc_describe(v, what, sizeof(what)));
	double x = v->valuedouble;
	char f[32];
	if (!isfinite(x) || x != floor(x))
		return pp_jdoc_errf(d, err, path, "found %s, expected an integer",
				    pp_fmt_num(x, f, sizeof(f)));
	/* (double)INT64_MAX rounds up to 2^63: compare in int64 once the value
	 * is known to convert (C11 6.3.1.4: out of range is undefined) */
	if (!(x >= -0x1p63 && x < 0x1p63) || (int64_t)x < min || (int64_t)x > max)
		return pp_jdoc_errf(d, err, path, "found %s, expected an integer in [%lld, %lld]",
				    pp_fmt_num(x, f, sizeof(f)),
				    (long long)min, (long long)max);
	*out = (int64_t)x;
	return 0;
}

int pp_jget_bool(const pp_jdoc *d, const cJSON *obj, const char *parent, const char *key,
		 bool required, bool *out, bool *present, pp_err *err)
{
	char path[512], what[96];
	int rc;
	const cJSON *v = member(d, obj, parent, key, required, path, sizeof(path), &rc, err);
	if (present)
		*present = v != NULL;
	if (!v)
		return rc;
	if (!cJSON_IsBool(v))
		return pp_jdoc_errf(d, err, path, "found %s, expected true or false",
				    pp_jdoc_describe(v, what, sizeof(what)));
	*out = cJSON_IsTrue(v);
	return 0;
}

int pp_jget_str(const pp_jdoc *d, const cJSON *obj, const char *parent, const char *key,
		bool required, char *out, size_t n, bool *present, pp_err *err)
{
	char path[512], what[96];
	int rc;
	const cJSON *v = member(d, obj, parent, key, required, path, sizeof(path), &rc, err);
	if (present)
		*present = v != NULL;
	if (!v)
		return rc;
	if (!cJSON_IsString(v))
		return pp_jdoc_errf(d, err, path, "found %s, expected a string",
				    pp_jdoc_describe(v, what, sizeof(what)));
	size_t len = strlen(v->valuestring);
	if (len + 1 > n)
		return pp_jdoc_errf(d, err, path, "found a string of %zu characters, expected at most %zu",
				    len, n - 1);
	/* a name, id, date or path is printed on terminals and in reports: a
	 * newline or an ESC sequence in it is a damaged or hostile file (a TAB
	 * is white space, and moves no cursor but along the line) */
	if (pp_has_control_text(v->valuestring))
		return pp_jdoc_errf(d, err, path, "found %s with a control character, expected "
				    "printable text", pp_jdoc_describe(v, what, sizeof(what)));
	if (!pp_utf8_valid(v->valuestring))
		return pp_jdoc_errf(d, err, path, "found a string that is not valid UTF-8, expected "
				    "UTF-8 text (RFC 8259 sec. 8.1)");
	memcpy(out, v->valuestring, len + 1);
	return 0;
}

int pp_jget_enum(const pp_jdoc *d, const cJSON *obj, const char *parent, const char *key,
		 bool required, const char *const *choices, size_t nchoices, int *out,
		 bool *present, pp_err *err)
{
	char path[512], what[96];
	int rc;
	const cJSON *v = member(d, obj, parent, key, required, path, sizeof(path), &rc, err);
	if (present)
		*present = v != NULL;
	if (!v)
		return rc;
	pp_sb list = {0};
	for (size_t i = 0; i < nchoices; i++)
		pp_sb_addf(&list, "%s\"%s\"", i ? (i + 1 == nchoices ? " or " : ", ") : "", choices[i]);
	if (!cJSON_IsString(v)) {
		rc = pp_jdoc_errf(d, err, path, "found %s, expected one of %s",
				  pp_jdoc_describe(v, what, sizeof(what)), list.buf);
		goto out;
	}
	for (size_t i = 0; i < nchoices; i++) {
		if (!strcmp(v->valuestring, choices[i])) {
			*out = (int)i;
			goto out;
		}
	}
	const char *dym = pp_did_you_mean(v->valuestring, choices, nchoices);
	char hint[128] = "";
	if (dym)
		snprintf(hint, sizeof(hint), " (did you mean \"%s\"?)", dym);
	rc = pp_jdoc_errf(d, err, path, "found %s, expected one of %s%s",
			  pp_jdoc_describe(v, what, sizeof(what)), list.buf, hint);
out:
	pp_sb_release(&list);
	return rc;
}

int pp_jget_obj(const pp_jdoc *d, const cJSON *obj, const char *parent, const char *key,
		bool required, const cJSON **out, pp_err *err)
{
	char path[512], what[96];
	int rc;
	const cJSON *v = member(d, obj, parent, key, required, path, sizeof(path), &rc, err);
	*out = NULL;
	if (!v)
		return rc;
	if (!cJSON_IsObject(v))
		return pp_jdoc_errf(d, err, path, "found %s, expected an object",
				    pp_jdoc_describe(v, what, sizeof(what)));
	*out = v;
	return 0;
}

int pp_jcheck_keys(const pp_jdoc *d, const cJSON *obj, const char *path,
		   const char *const *allowed, size_t nallowed, pp_err *err)
{
	char p[512];
	for (const cJSON *c = obj ? obj->child : NULL; c; c = c->next) {
		const char *k = c->string ? c->string : "";
		/* Keys starting with "_" or "//" are comments, allowed anywhere. */
		if (k[0] == '_' || (k[0] == '/' && k[1] == '/'))
			continue;
		for (const cJSON *e = obj->child; e != c; e = e->next) {
			if (e->string && !strcmp(e->string, k))
				return pp_jdoc_errf(d, err, pp_jpath(p, sizeof(p), path, k),
						    "found this key twice, expected each key once");
		}
		size_t i;
		for (i = 0; i < nallowed; i++)
			if (!strcmp(k, allowed[i]))
				break;
		if (i < nallowed)
			continue;
		const char *dym = pp_did_you_mean(k, allowed, nallowed);
		pp_sb list = {0};
		for (i = 0; i < nallowed; i++)
			pp_sb_addf(&list, "%s%s", i ? ", " : "", allowed[i]);
		int rc;
		if (dym)
			rc = pp_jdoc_errf(d, err, pp_jpath(p, sizeof(p), path, k),
					  "unknown key \"%s\", did you mean \"%s\"?", k, dym);
		else
			rc = pp_jdoc_errf(d, err, pp_jpath(p, sizeof(p), path, k),
					  "unknown key \"%s\", expected one of: %s", k, list.buf);
		pp_sb_release(&list);
		return rc;
	}
	return 0;
}
