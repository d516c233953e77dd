/* textutil.c - see textutil.h. */
#include "textutil.h"

#include "core/util.h"

#include <string.h>

int tu_count(const char *hay, const char *needle)
{
	int n = 0;
	size_t l = strlen(needle);
	for (const char *p = hay; p && (p = strstr(p, needle)); p += l)
		n++;
	return n;
}

const char *tu_after(const char *hay, const char *needle)
{
	const char *p = hay ? strstr(hay, needle) : NULL;
	return p ? p : "";
}

long tu_pos(const char *hay, const char *needle)
{
	const char *p = strstr(hay, needle);
	return p ? (long)(p - hay) : -1;
}

bool tu_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		int n = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2
			: (*p & 0xF8) == 0xF0 ? 3 : -1;
		if (n < 0)
			return false;
		p++;
		for (int i = 0; i < n; i++, p++)
			if ((*p & 0xC0) != 0x80)
				return false;
	}
	return true;
}

int tu_csv_shape(const char *s, int *fields, int max)
{
	int rec = 0, f = 1;
	bool q = false, at_start = true;
	for (const char *p = s; *p; p++) {
		if (q) {
			if (*p == '"') {
				if (p[1] == '"')
					p++;
				else
					q = false;
			}
			continue;
		}
		if (*p == '"') {
			if (!at_start)
				return -1;
			q = true;
			at_start = false;
		} else if (*p == ',') {
			f++;
			at_start = true;
		} else if (*p == '\r' && p[1] == '\n') {
			if (rec < max)
				fields[rec] = f;
			rec++;
			f = 1;
			at_start = true;
			p++;
		} else if (*p == '\n') {
			return -1;
		} else {
			at_start = false;
		}
	}
	return q ? -1 : rec;
}

const char *tu_csv_field(const char *s, int r, int k, char *buf, size_t n)
{
	int rec = 0, f = 0;
	size_t o = 0;
	bool q = false;
	buf[0] = '\0';
	for (const char *p = s; *p; p++) {
		bool here = rec == r && f == k;
		if (q) {
			if (*p == '"' && p[1] == '"') {
				if (here && o + 1 < n)
					buf[o++] = '"';
				p++;
			} else if (*p == '"') {
				q = false;
			} else if (here && o + 1 < n) {
				buf[o++] = *p;
			}
			continue;
		}
		if (*p == '"')
			q = true;
		else if (*p == ',')
			f++;
		else if (*p == '\r' && p[1] == '\n') {
			rec++;
			f = 0;
			p++;
		} else if (here && o + 1 < n)
			buf[o++] = *p;
		if (rec > r)
			break;
	}
	buf[o] = '\0';
	return buf;
}

int tu_csv_col(const char *csv, const char *name)
{
	char b[128];
	for (int k = 0; k < 200; k++) {
		tu_csv_field(csv, 0, k, b, sizeof(b));
		if (!b[0])
			return -1;
		if (!strcmp(b, name))
			return k;
	}
	return -1;
}

char *tu_slurp(const char *path)
{
	char *t = NULL;
	size_t n;
	pp_err err = {0};
	if (pp_read_file(path, (size_t)64 << 20, &t, &n, &err))
		return NULL;
	return t;
}
