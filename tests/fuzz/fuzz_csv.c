/*
 * fuzz_csv.c - CSV in: the first byte picks the reader. 0: the RFC 4180
 * reader, every field written back through the one writer (pp_csvw) and
 * read again, which must give the field back (a formula cell with its
 * leading quote); 1: `podplan validate` (published runs, each usable row
 * predicted); 2: `podplan validate --replay` (replayed steps) and its CSV
 * out.
 */
#include "fuzzutil.h"
#include "calib/replayval.h"
#include "calib/validate.h"
#include "core/csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void roundtrip(const pp_csv *c)
{
	pp_sb sb = {0};
	pp_csvw w;
	pp_csvw_init(&w, &sb);
	for (int i = 0; i < c->nrows; i++) {
		for (int j = 0; j < c->nfields[i]; j++)
			pp_csvw_text(&w, c->rows[i][j]);
		pp_csvw_end(&w);
	}
	pp_csv d;
	pp_err err = {0};
	if (pp_csv_parse(&d, "again.csv", sb.buf ? sb.buf : "", &err)) {
		fprintf(stderr, "fuzz: the writer's CSV does not parse: %s\n", err.msg);
		abort();
	}
	/* blank rows (one empty field) are left out on reading */
	for (int i = 0, k = 0; i < c->nrows; i++) {
		if (c->nfields[i] == 1 && !c->rows[i][0][0])
			continue;
		if (k >= d.nrows || d.nfields[k] != c->nfields[i])
			abort();
		for (int j = 0; j < c->nfields[i]; j++) {
			const char *a = c->rows[i][j], *b = d.rows[k][j];
			if (strcmp(a, b) && !(b[0] == '\'' && !strcmp(a, b + 1)))
				abort();
		}
		k++;
	}
	pp_csv_release(&d);
	pp_sb_release(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char *text = fz_text(data + 1, size - 1);
	pp_err err = {0};
	int rc;
	switch (data[0] % 3) {
	case 0: {
		pp_csv c;
		rc = pp_csv_parse_max(&c, "fuzz.csv", text, 4096, &err);
		fz_check_err(rc, err.msg, "pp_csv_parse");
		if (!rc) {
			roundtrip(&c);
			pp_csv_release(&c);
		}
		break;
	}
	case 1: {
		pp_valset v;
		rc = pp_validate_text(fz_catalog(), NULL, "fuzz.csv", text, &v, &err);
		fz_check_err(rc, err.msg, "pp_validate_text");
		if (!rc) {
			double mean, max;
			pp_valset_summary(&v, NULL, &mean, &max);
			pp_valset_release(&v);
		}
		break;
	}
	default: {
		pp_replayset v;
		rc = pp_replayval_parse("fuzz.csv", text, &v, &err);
		fz_check_err(rc, err.msg, "pp_replayval_parse");
		if (!rc) {
			pp_sb sb = {0};
			pp_replayval_csv(&v, &sb);
			pp_sb_release(&sb);
			pp_replayset_release(&v);
		}
		break;
	}
	}
	free(text);
	return 0;
}
