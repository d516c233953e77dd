/* csv.c - see csv.h. */
#include "core/csv.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One field at p into f (its text, quotes undone); returns where it ends
 * (at the comma, the line end or the NUL), or NULL for a quote never
 * closed. *line counts the newlines passed. */
static const char *field(const char *p, pp_sb *f, int *line)
{
	if (*p != '"') {
		size_t n = strcspn(p, ",\r\n");
		pp_sb_add(f, p, n);
		return p + n;
	}
	for (p++;;) {
		size_t n = strcspn(p, "\"\n");
		pp_sb_add(f, p, n);
		p += n;
		if (!*p)
			return NULL;
		if (*p == '\n') {
			(*line)++;
			pp_sb_add(f, p++, 1);
		} else if (p[1] == '"') {
			pp_sb_add(f, "\"", 1);
			p += 2;
		} else {
			break;
		}
	}
	/* text after the closing quote up to the separator is dropped */
	return p + 1 + strcspn(p + 1, ",\r\n");
}

/* One block per row: the field pointers, then the fields' text, so a row
 * of n one-character fields costs 10 n bytes, not n allocations. */
static char **row_block(const pp_sb *text, const size_t *off, int nf)
{
	char **r = pp_xmalloc(sizeof(char *) * (size_t)nf + text->len + 1);
	char *t = (char *)(r + nf);
	memcpy(t, text->buf ? text->buf : "", text->len);
	t[text->len] = '\0';
	for (int k = 0; k < nf; k++)
		r[k] = t + off[k];
	return r;
}

/* Rows of text into c: at most max_rows (0: no limit); with header_only
 * the first row alone, without reading further. */
static int parse(pp_csv *c, const char *name, const char *text, int max_rows, bool header_only,
		 pp_err *err)
{
	int rc = 0, line = 1, caprows = 0;
	size_t *off = NULL, capf = 0;
	pp_sb row = {0};
	memset(c, 0, sizeof(*c));
	for (const char *p = text; *p && !(header_only && c->nrows);) {
		int nf = 0, start_line = line;
		row.len = 0;
		for (;;) {
			if ((size_t)nf == capf) {
				capf = capf ? capf * 2 : 16;
				off = pp_xrealloc(off, sizeof(*off) * capf);
			}
			off[nf++] = row.len;
			int qline = line;
			const char *e = field(p, &row, &line);
			if (!e) {
				rc = pp_errf(err, PP_EINPUT, "%s:%d: unterminated quoted field (opened on "
					     "line %d), expected a closing \"", name, line, qline);
				goto out;
			}
			pp_sb_add(&row, "", 1); /* the field's NUL */
			p = e;
			if (*p != ',')
				break;
			p++;
		}
		if (*p == '\r')
			p++;
		if (*p == '\n') {
			p++;
			line++;
		}
		if (nf == 1 && row.len == 1) /* a blank line */
			continue;
		if (max_rows > 0 && c->nrows == max_rows) {
			rc = pp_errf(err, PP_EINPUT, "%s:%d: more than %d rows, expected at most %d",
				     name, start_line, max_rows, max_rows);
			goto out;
		}
		if (c->nrows == caprows) {
			caprows = caprows ? caprows * 2 : 64;
			c->rows = pp_xrealloc(c->rows, sizeof(char **) * (size_t)caprows);
			c->nfields = pp_xrealloc(c->nfields, sizeof(int) * (size_t)caprows);
		}
		row.len--; /* the last NUL comes with the block */
		c->rows[c->nrows] = row_block(&row, off, nf);
		c->nfields[c->nrows] = nf;
		c->nrows++;
	}
out:
	free(off);
	pp_sb_release(&row);
	if (rc)
		pp_csv_release(c);
	return rc;
}

int pp_csv_parse(pp_csv *c, const char *name, const char *text, pp_err *err)
{
	return parse(c, name, text, 0, false, err);
}

int pp_csv_parse_max(pp_csv *c, const char *name, const char *text, int max_rows, pp_err *err)
{
	return parse(c, name, text, max_rows, false, err);
}

int pp_csv_parse_header(pp_csv *c, const char *name, const char *text, pp_err *err)
{
	return parse(c, name, text, 0, true, err);
}

int pp_csv_load(pp_csv *c, const char *path, pp_err *err)
{
	return pp_csv_load_max(c, path, 256u << 20, 0, err);
}

int pp_csv_load_max(pp_csv *c, const char *path, size_t max_bytes, int max_rows, pp_err *err)
{
	char *text = NULL;
	memset(c, 0, sizeof(*c));
	int rc = pp_read_file(path, max_bytes, &text, NULL, err);
	if (rc)
		return rc;
	rc = parse(c, path, text, max_rows, false, err);
	free(text);
	return rc;
}

void pp_csv_release(pp_csv *c)
{
	for (int i = 0; i < c->nrows; i++)
		free(c->rows[i]);
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
