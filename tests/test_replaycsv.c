/*
 * test_replaycsv.c - the CSV files podplan-calibrate replay appends to
 * (calibrate/replaycsv.c, compiled in directly: it includes no CUDA
 * header): the rows go through the one CSV writer (CRLF, quoting,
 * formula-leading names neutralised), a new file gets its header once,
 * an old file is appended to as it is, and `podplan validate --replay`
 * reads what the replay wrote.
 *
 * Expected cells are written by hand from the figures put in (%.6f times,
 * %.2f error, %.6e op times, 2mnk x batch FLOPs).
 */
#include "../calibrate/replaycsv.c"

#include "calib/replayval.h"
#include "core/csv.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path)
{
	char *t = NULL;
	pp_err err = {0};
	if (pp_read_file(path, 1 << 20, &t, NULL, &err))
		pp_t_diag("%s", err.msg);
	return t;
}

static void step_rows(void)
{
	char path[512], cmd[1200], *out = NULL;
	pp_err err = {0};
	snprintf(path, sizeof(path), "%s/replay.csv", pp_t_tmpdir());
	pp_sb rows = {0};
	/* predicted 10% over and 10% under what was measured */
	pp_rcsv_step_row(&rows, &(pp_rcsv_step){.config = "h200x2-ddp", .predicted_s = 0.55,
						.measured_s = 0.5, .error = 0.1, .measured_min_s = 0.49,
						.measured_max_s = 0.5125, .steps = 8, .warmup = 3,
						.plan_s = 0.5375, .profile = "h200 v3",
						.scenario = "scenarios/replay/a.json"});
	CHECK(!strcmp(rows.buf, "h200x2-ddp,0.550000,0.500000,10.00,0.490000,0.512500,8,3,0.537500,"
				"h200 v3,scenarios/replay/a.json\r\n"));
	CHECK(pp_rcsv_append(path, PP_RCSV_STEP_HEADER, &rows, &err) == 0 && rows.len == 0);
	CHECK(pp_rcsv_append(path, PP_RCSV_STEP_HEADER, &rows, &err) == 0); /* nothing to add */
	CHECK(pp_rcsv_append(NULL, PP_RCSV_STEP_HEADER, &rows, &err) == 0);
	pp_rcsv_step_row(&rows, &(pp_rcsv_step){.config = "=cmd|' /C calc'!A0, pp2", .predicted_s = 0.45,
						.measured_s = 0.5, .error = -0.1, .measured_min_s = 0.5,
						.measured_max_s = 0.5, .steps = 8, .warmup = 3,
						.plan_s = 0.45, .profile = "catalog",
						.scenario = "b.json"});
	CHECK(!strcmp(rows.buf, "\"'=cmd|' /C calc'!A0, pp2\",0.450000,0.500000,-10.00,0.500000,"
				"0.500000,8,3,0.450000,catalog,b.json\r\n"));
	CHECK(pp_rcsv_append(path, PP_RCSV_STEP_HEADER, &rows, &err) == 0);
	pp_sb_release(&rows);
	char *text = slurp(path);
	CHECK(text && !strncmp(text, "config,predicted_s,measured_s,error_pct,measured_min_s,"
				     "measured_max_s,steps,warmup,plan_s,profile,scenario\r\n", 95));
	/* the header once, and no bare LF */
	CHECK(text && strstr(text + 1, "config,") == NULL);
	int lf = 0, crlf = 0;
	for (const char *p = text; p && *p; p++)
		if (*p == '\n') {
			lf++;
			crlf += p > text && p[-1] == '\r';
		}
	CHECK(lf == 3 && crlf == 3);
	free(text);
	pp_replayset v;
	CHECK(pp_replayval_load(path, &v, &err) == 0);
	CHECK(v.n == 2 && !strcmp(v.rows[1].config, "'=cmd|' /C calc'!A0, pp2"));
	CHECK(v.n == 2 && !strcmp(v.rows[0].profile, "h200 v3") &&
	      !strcmp(v.rows[0].scenario, "scenarios/replay/a.json"));
	CHECK_NEAR(v.mean_abs, 0.1, 1e-9);
	pp_replayset_release(&v);
	snprintf(cmd, sizeof(cmd), "%s validate --replay %s", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "2 replayed steps: mean |error| 10.0%, max 10.0%");
	free(out);
}

/* A file from before (LF rows, the last line unterminated) is kept as it
 * is and gets a line end before the new rows. */
static void append_to_old_file(void)
{
	char path[512];
	pp_err err = {0};
	snprintf(path, sizeof(path), "%s/old.csv", pp_t_tmpdir());
	FILE *f = fopen(path, "w");
	if (!f) {
		CHECK(0);
		return;
	}
	fputs("config,predicted_s,measured_s\na,1.0,0.9", f);
	fclose(f);
	pp_sb rows = {0};
	pp_sb_adds(&rows, "b,2.000000,2.000000\r\n");
	CHECK(pp_rcsv_append(path, "x,y", &rows, &err) == 0);
	pp_sb_release(&rows);
	char *text = slurp(path);
	CHECK(text && !strcmp(text, "config,predicted_s,measured_s\na,1.0,0.9\r\nb,2.000000,2.000000\r\n"));
	free(text);
	pp_replayset v;
	CHECK(pp_replayval_load(path, &v, &err) == 0);
	CHECK(v.n == 2 && v.rows[1].measured_s == 2.0);
	pp_replayset_release(&v);
}

static void op_rows(void)
{
	pp_sb sb = {0};
	/* 2 x 2048 x 6912 x 2304 = 65,229,815,808 FLOPs */
	pp_rcsv_gemm_row(&sb, "cfg", "fc1", 2048, 6912, 2304, 1, 24, 1.5e-4, 1.625e-4);
	/* batched: 2 x 128 x 128 x 64 x 96 */
	pp_rcsv_gemm_row(&sb, "cfg", "-attn,qk", 128, 128, 64, 96, 48, 2e-6, 2.5e-6);
	pp_rcsv_mem_row(&sb, "cfg", "optimizer", 6815744000.0, 1, 0.0031, 0.003375);
	CHECK(!strcmp(sb.buf, "cfg,gemm,fc1,2048x6912x2304,1,65229815808,24,1.500000e-04,1.625000e-04\r\n"
			      "cfg,gemm,\"'-attn,qk\",128x128x64,96,201326592,48,2.000000e-06,2.500000e-06\r\n"
			      "cfg,mem,optimizer,,1,6815744000,1,3.100000e-03,3.375000e-03\r\n"));
	pp_csv c;
	pp_err err = {0};
	CHECK(pp_csv_parse(&c, "ops", sb.buf, &err) == 0 && c.nrows == 3 && c.nfields[2] == 9);
	pp_csv_release(&c);
	pp_sb_release(&sb);
}

int main(void)
{
	RUN(step_rows);
	RUN(append_to_old_file);
	RUN(op_rows);
	return pp_t_done("test_replaycsv");
}
