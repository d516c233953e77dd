/* csv.c - see csv.h. */
#include "core/csv.h"
#include "core/util.h"

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
