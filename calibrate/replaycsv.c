/* replaycsv.c - see replaycsv.h. */
#include "replaycsv.h"
#include "core/csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

void pp_rcsv_step_row(pp_sb *out, const pp_rcsv_step *r)
{
	pp_csvw w;
	pp_csvw_init(&w, out);
	pp_csvw_text(&w, r->config);
	pp_csvw_fixed(&w, r->predicted_s, 6);
	pp_csvw_fixed(&w, r->measured_s, 6);
	pp_csvw_fixed(&w, 100 * r->error, 2);
	pp_csvw_fixed(&w, r->measured_min_s, 6);
	pp_csvw_fixed(&w, r->measured_max_s, 6);
	pp_csvw_int(&w, r->steps);
	pp_csvw_int(&w, r->warmup);
	pp_csvw_fixed(&w, r->plan_s, 6);
	pp_csvw_text(&w, r->profile);
	pp_csvw_text(&w, r->scenario);
	pp_csvw_end(&w);
}

void pp_rcsv_gemm_row(pp_sb *out, const char *config, const char *name, int64_t m, int64_t n,
		      int64_t k, int64_t batch, int count, double sim_s, double measured_s)
{
	char shape[96];
	snprintf(shape, sizeof(shape), "%lldx%lldx%lld", (long long)m, (long long)n, (long long)k);
	pp_csvw w;
	pp_csvw_init(&w, out);
	pp_csvw_text(&w, config);
	pp_csvw_text(&w, "gemm");
	pp_csvw_text(&w, name);
	pp_csvw_text(&w, shape);
	pp_csvw_int(&w, (long long)batch);
	pp_csvw_fixed(&w, 2.0 * (double)m * (double)n * (double)k * (double)batch, 0);
	pp_csvw_int(&w, count);
	pp_csvw_sci(&w, sim_s, 6);
	pp_csvw_sci(&w, measured_s, 6);
	pp_csvw_end(&w);
}

void pp_rcsv_mem_row(pp_sb *out, const char *config, const char *name, double bytes, int count,
		     double sim_s, double measured_s)
{
	pp_csvw w;
	pp_csvw_init(&w, out);
	pp_csvw_text(&w, config);
	pp_csvw_text(&w, "mem");
	pp_csvw_text(&w, name);
	pp_csvw_empty(&w);
	pp_csvw_int(&w, 1);
	pp_csvw_fixed(&w, bytes, 0);
	pp_csvw_int(&w, count);
	pp_csvw_sci(&w, sim_s, 6);
	pp_csvw_sci(&w, measured_s, 6);
	pp_csvw_end(&w);
}

int pp_rcsv_append(const char *path, const char *header, pp_sb *rows, pp_err *err)
{
	char *old = NULL;
	size_t len = 0;
	struct stat st;
	pp_sb sb = {0};
	int rc = 0;
	if (!path || !rows->len)
		return 0;
	if (!stat(path, &st)) {
		if ((rc = pp_read_file(path, (size_t)1 << 30, &old, &len, err)))
			return rc;
		pp_sb_add(&sb, old, len);
		if (len && old[len - 1] != '\n')
			pp_sb_adds(&sb, PP_CSV_EOL);
	} else {
		pp_csvw w;
		pp_csvw_init(&w, &sb);
		pp_csvw_header(&w, header);
	}
	pp_sb_add(&sb, rows->buf, rows->len);
	if (!(rc = pp_write_file_atomic(path, sb.buf, sb.len, err))) {
		rows->len = 0;
		rows->buf[0] = '\0';
	}
	free(old);
	pp_sb_release(&sb);
	return rc;
}
