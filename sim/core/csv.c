/* csv.c - see csv.h. */
#include "core/csv.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int pp_csv_parse(pp_csv *c, const char *name, const char *text, pp_err *err)
{
	memset(c, 0, sizeof(*c));
	int caprows = 0;
	const char *p = text;
	int line = 1;
	while (*p) {
		char **fields = NULL;
		int nf = 0, capf = 0;
		for (;;) {
			pp_sb f = {0};
			if (*p == '"') {
				int start_line = line;
				p++;
				for (;;) {
					if (!*p) {
						pp_sb_release(&f);
						for (int k = 0; k < nf; k++)
							free(fields[k]);
						free(fields);
						return pp_errf(err, PP_EINPUT, "%s:%d: unterminated quoted field "
							       "(opened on line %d), expected a closing \"",
							       name, line, start_line);
					}
					if (*p == '"' && p[1] == '"') {
						pp_sb_add(&f, "\"", 1);
						p += 2;
					} else if (*p == '"') {
						p++;
						break;
					} else {
						if (*p == '\n')
							line++;
						pp_sb_add(&f, p, 1);
						p++;
					}
				}
				while (*p && *p != ',' && *p != '\n' && *p != '\r')
					p++;
			} else {
				const char *q = p;
				while (*q && *q != ',' && *q != '\n' && *q != '\r')
					q++;
				pp_sb_add(&f, p, (size_t)(q - p));
				p = q;
			}
			if (nf == capf) {
				capf = capf ? capf * 2 : 16;
				fields = pp_xrealloc(fields, sizeof(char *) * (size_t)capf);
			}
			fields[nf++] = pp_sb_detach(&f);
			if (*p == ',') {
				p++;
				continue;
			}
			if (*p == '\r')
				p++;
			if (*p == '\n') {
				p++;
				line++;
			}
			break;
		}
		if (nf == 1 && fields[0][0] == '\0') { /* blank line */
			free(fields[0]);
			free(fields);
			continue;
		}
		if (c->nrows == caprows) {
			caprows = caprows ? caprows * 2 : 64;
			c->rows = pp_xrealloc(c->rows, sizeof(char **) * (size_t)caprows);
			c->nfields = pp_xrealloc(c->nfields, sizeof(int) * (size_t)caprows);
		}
		c->rows[c->nrows] = fields;
		c->nfields[c->nrows] = nf;
		c->nrows++;
	}
	return 0;
}

int pp_csv_load(pp_csv *c, const char *path, pp_err *err)
{
	char *text = NULL;
	memset(c, 0, sizeof(*c));
	int rc = pp_read_file(path, 256u << 20, &text, NULL, err);
	if (rc)
		return rc;
	rc = pp_csv_parse(c, path, text, err);
	free(text);
	return rc;
}

void pp_csv_release(pp_csv *c)
{
	for (int i = 0; i < c->nrows; i++) {
		for (int j = 0; j < c->nfields[i]; j++)
			free(c->rows[i][j]);
		free(c->rows[i]);
	}
	free(c->rows);
	free(c->nfields);
	memset(c, 0, sizeof(*c));
}

int pp_csv_col(const pp_csv *c, const char *name)
{
	if (c->nrows == 0)
		return -1;
	for (int j = 0; j < c->nfields[0]; j++)
		if (!strcmp(c->rows[0][j], name))
			return j;
	return -1;
}

const char *pp_csv_get(const pp_csv *c, int i, int j)
{
	if (i < 0 || i >= c->nrows || j < 0 || j >= c->nfields[i])
		return "";
	return c->rows[i][j];
}

/* ---- writing ---- */

void pp_csvw_init(pp_csvw *w, pp_sb *out)
{
	w->out = out;
	w->ncells = 0;
}

static void sep(pp_csvw *w)
{
	if (w->ncells++)
		pp_sb_add(w->out, ",", 1);
}

/* A plain decimal number: [+-] digits [. digits] [(e|E) [+-] digits], at
 * least one digit before the exponent. Nothing else (no spaces, no inf or
 * nan, no hex), so "-1+2" or "-A1" are formulas. */
static bool is_number(const char *s)
{
	const char *p = s;
	if (*p == '+' || *p == '-')
		p++;
	size_t digits = strspn(p, "0123456789");
	p += digits;
	if (*p == '.') {
		size_t frac = strspn(p + 1, "0123456789");
		digits += frac;
		p += 1 + frac;
	}
	if (!digits)
		return false;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		size_t exp = strspn(p, "0123456789");
		if (!exp)
			return false;
		p += exp;
	}
	return *p == '\0';
}

static void csv_cell(pp_sb *out, const char *s)
{
	if (!s)
		return;
	/* OWASP "CSV Injection": a leading ' keeps a formula text */
	bool neutralise = *s && strchr("=+-@\t\r", *s) && !is_number(s);
	bool quote = strpbrk(s, ",\"\n\r") != NULL;
	if (!neutralise && !quote) {
		pp_sb_adds(out, s);
		return;
	}
	if (quote)
		pp_sb_add(out, "\"", 1);
	if (neutralise)
		pp_sb_add(out, "'", 1);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			pp_sb_add(out, "\"", 1);
		pp_sb_add(out, p, 1);
	}
	if (quote)
		pp_sb_add(out, "\"", 1);
}

void pp_csvw_text(pp_csvw *w, const char *s)
{
	sep(w);
	csv_cell(w->out, s);
}

void pp_csvw_num(pp_csvw *w, double v, int sig)
{
	sep(w);
	if (isfinite(v))
		pp_sb_addf(w->out, "%.*g", sig, v);
}

void pp_csvw_fixed(pp_csvw *w, double v, int decimals)
{
	sep(w);
	if (isfinite(v))
		pp_sb_addf(w->out, "%.*f", decimals, v);
}

void pp_csvw_sci(pp_csvw *w, double v, int decimals)
{
	sep(w);
	if (isfinite(v))
		pp_sb_addf(w->out, "%.*e", decimals, v);
}

void pp_csvw_int(pp_csvw *w, long long v)
{
	sep(w);
	pp_sb_addf(w->out, "%lld", v);
}

void pp_csvw_bool(pp_csvw *w, bool v)
{
	sep(w);
	pp_sb_adds(w->out, v ? "true" : "false");
}

void pp_csvw_empty(pp_csvw *w)
{
	sep(w);
}

void pp_csvw_names(pp_csvw *w, const char *names)
{
	for (const char *p = names; *p;) {
		size_t n = strcspn(p, ",");
		char name[256];
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		pp_csvw_text(w, name);
		p += n;
		if (*p == ',')
			p++;
	}
}

void pp_csvw_header(pp_csvw *w, const char *names)
{
	pp_csvw_names(w, names);
	pp_csvw_end(w);
}

void pp_csvw_end(pp_csvw *w)
{
	pp_sb_adds(w->out, PP_CSV_EOL);
	w->ncells = 0;
}
