/*
 * test_fit.c - the calibration fit (issue 5): synthetic measurements made
 * from known parameters with noise are recovered within the confidence
 * intervals the fit reports; profiles round-trip through JSON and SQLite;
 * applying a profile changes the simulator's parameters and says so; a
 * hostile profile (missing, NaN-like, huge or fractional figures) is a
 * message, not a crash or an undefined cast.
 */
#include "calib/calibdb.h"
#include "engine/collective.h"
#include "engine/compute.h"
#include "calib/fit.h"
#include "harness.h"
#include "calib/profile.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* True collective model: two regimes, as NCCL's protocols give. */
static const double A1 = 20e-6, B1 = 40e9, A2 = 80e-6, B2 = 180e9, CUT = 4.0 * (1 << 20);

static double true_time(double bytes, int n)
{
	double f = 2.0 * (n - 1) / n;
	return bytes < CUT ? A1 + bytes * f / B1 : A2 + bytes * f / B2;
}

static void collective_recovery(void)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 42);
	pp_fit_point pts[64];
	int n = 0;
	for (double s = 1024; s <= 1024.0 * 1024 * 1024; s *= 2, n++) {
		pts[n].bytes = s;
		pts[n].time_s = true_time(s, 8) * (1 + gsl_ran_gaussian(r, 0.01));
	}
	gsl_rng_free(r);
	pp_coll_fit f;
	memset(&f, 0, sizeof(f));
	f.op = PP_COLL_ALL_REDUCE;
	f.scope = PP_SCOPE_INTRA;
	f.nranks = 8;
	pp_fit_piece_ci ci[PP_FIT_PIECES];
	double rms;
	pp_err err = {0};
	CHECK(pp_fit_collective(&f, ci, &rms, pts, n, &err) == 0);
	pp_t_diag("%d pieces, rms %.2f%%", f.npieces, 100 * rms);
	for (int k = 0; k < f.npieces; k++)
		pp_t_diag("piece %d: [%.3g, %.3g) alpha %.2f +- %.2f us, busbw %.1f +- %.1f GB/s", k,
		          f.piece[k].lo_bytes, f.piece[k].hi_bytes, f.piece[k].alpha_s * 1e6,
		          ci[k].alpha_ci_s * 1e6, f.piece[k].busbw_Bps / 1e9, ci[k].busbw_ci_Bps / 1e9);
	CHECK(f.npieces >= 2);
	CHECK(rms < 0.02);
	/* the large-message piece recovers the true parameters within its CI */
	int last = f.npieces - 1;
	CHECK(fabs(f.piece[last].busbw_Bps - B2) <= ci[last].busbw_ci_Bps);
	CHECK(fabs(f.piece[last].alpha_s - A2) <= ci[last].alpha_ci_s);
	CHECK(fabs(f.piece[0].busbw_Bps - B1) <= ci[0].busbw_ci_Bps);
	CHECK(fabs(f.piece[0].alpha_s - A1) <= ci[0].alpha_ci_s);
	/* the cut lies between measured sizes around the true cut */
	CHECK(f.piece[last].lo_bytes > CUT / 4 && f.piece[last].lo_bytes < CUT * 4);
	/* too few points: a clear error */
	CHECK(pp_fit_collective(&f, ci, &rms, pts, 2, &err) == PP_EINPUT);
}

static void fit_from_store(void)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/fit.db", pp_t_tmpdir());
	pp_store *st;
	pp_err err = {0};
	CHECK(pp_store_open(&st, path, &err) == 0);
	pp_calib_run run;
	pp_calib_run_init(&run);
	run.source = "fake";
	run.command_line = "test_fit";
	run.gpu_name = "NVIDIA H200";
	int64_t id = 0;
	CHECK(pp_calibdb_begin_run(st, &run, &id, &err) == 0);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 7);
	/* collectives over 2 GPUs */
	for (double s = 8192; s <= 1024.0 * 1024 * 1024; s *= 2) {
		pp_calib_meas m;
		pp_calib_meas_init(&m);
		m.kind = "collective";
		m.op = "all_reduce";
		m.dtype = "float";
		m.nranks = 2;
		m.bytes = (int64_t)s;
		m.inplace = 0;
		m.wrong = 0;
		m.scope = "nvlink";
		m.time_us = true_time(s, 2) * 1e6 * (1 + gsl_ran_gaussian(r, 0.01));
		CHECK(pp_calibdb_add(st, id, &m, NULL, &err) == 0);
	}
	/* GEMMs generated from the compute model with a known share of peak */
	const double want_frac = 0.72;
	const pp_gpu *g = pp_catalog_gpu(tu_catalog(), "h200");
	pp_scenario s;
	pp_hw hw;
	CHECK(tu_scenario("{\"model\": {\"preset\": \"gpt-1.7b\"}, \"cluster\": {\"gpu\": \"h200\", "
			  "\"num_gpus\": 8}}", &s, &hw) == 0);
	hw.gemm_frac[PP_DT_BF16] = want_frac;
	int shapes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {16384, 16384, 16384},
			   {8192, 4608, 12288}, {8192, 12288, 4096}, {2048, 28672, 8192},
			   {6144, 6144, 6144}, {12288, 12288, 12288}};
	for (size_t i = 0; i < PP_ARRAY_LEN(shapes); i++) {
		pp_calib_meas m;
		pp_calib_meas_init(&m);
		m.kind = "gemm";
		m.op = "square";
		m.dtype = "bf16";
		m.m = shapes[i][0];
		m.n = shapes[i][1];
		m.k = shapes[i][2];
		double t = pp_gemm_time(&hw, PP_DT_BF16, m.m, m.n, m.k, 1, 2) - hw.kernel_overhead_s;
		m.time_us = t * 1e6 * (1 + gsl_ran_gaussian(r, 0.01));
		m.tflops = 2.0 * m.m * m.n * m.k / (m.time_us * 1e-6) / 1e12;
		CHECK(pp_calibdb_add(st, id, &m, NULL, &err) == 0);
	}
	/* device copies: 4.3 TB/s */
	for (double b = 256.0 * (1 << 20); b <= 4.0 * (1 << 30); b *= 2) {
		pp_calib_meas m;
		pp_calib_meas_init(&m);
		m.kind = "memcpy";
		m.op = "d2d";
		m.bytes = (int64_t)b;
		m.GBps = 4300 * (1 + gsl_ran_gaussian(r, 0.005));
		m.time_us = b / (m.GBps * 1e9) * 1e6;
		CHECK(pp_calibdb_add(st, id, &m, NULL, &err) == 0);
	}
	gsl_rng_free(r);
	CHECK(pp_calibdb_end_run(st, id, "complete", NULL, &err) == 0);

	pp_profile p;
	int rc = pp_fit_runs(st, tu_catalog(), &id, 1, NULL, "synthetic", &p, &err);
	if (rc)
		pp_t_diag("%s", err.msg);
	CHECK(rc == 0);
	CHECK(p.nfits == 1 && p.fits[0].nranks == 2 && p.fits[0].op == PP_COLL_ALL_REDUCE);
	CHECK(p.has_gemm[PP_DT_BF16]);
	pp_t_diag("gemm bf16 %.4f +- %.4f (truth %.2f), memory %.0f GB/s", p.gemm_frac[PP_DT_BF16],
	          p.gemm_frac_ci[PP_DT_BF16], want_frac, p.mem_Bps / 1e9);
	CHECK(fabs(p.gemm_frac[PP_DT_BF16] - want_frac) <= p.gemm_frac_ci[PP_DT_BF16] + 1e-9);
	CHECK(p.has_mem && fabs(p.mem_Bps - 4300e9) <= 4300e9 * 0.01);

	/* save, load, JSON round trip */
	CHECK(pp_profile_save(st, &p, &err) == 0 && p.version == 1);
	CHECK(pp_profile_save(st, &p, &err) == 0 && p.version == 2);
	pp_profile q;
	CHECK(pp_profile_load(st, "synthetic", 0, &q, &err) == 0 && q.version == 2);
	CHECK(q.nfits == p.nfits && q.fits[0].npieces == p.fits[0].npieces);
	CHECK_NEAR(q.fits[0].piece[0].busbw_Bps, p.fits[0].piece[0].busbw_Bps, 1e-6);
	CHECK_NEAR(q.gemm_frac[PP_DT_BF16], p.gemm_frac[PP_DT_BF16], 1e-5);
	CHECK(pp_profile_load(st, "nope", 0, &q, &err) == PP_ENOTFOUND);

	/* applying it: the fitted parameters replace the catalog's */
	pp_hw h2 = hw;
	pp_hw_from_catalog(&h2, tu_catalog(), &s.cluster, &err);
	double before = pp_coll_time(&h2, PP_COLL_ALL_REDUCE, 1 << 30, (pp_group){2, 2});
	pp_profile_apply(&h2, &q);
	double after = pp_coll_time(&h2, PP_COLL_ALL_REDUCE, 1 << 30, (pp_group){2, 2});
	CHECK_NEAR(after, true_time(1 << 30, 2), 0.03);
	CHECK(fabs(after - before) > 1e-6);
	CHECK(h2.gemm_frac[PP_DT_BF16] == q.gemm_frac[PP_DT_BF16]);
	CHECK(h2.profile[0] != '\0');
	(void)g;
	pp_scenario_release(&s);
	pp_store_close(st);

	/* the CLI: fit the newest run, list, export */
	char cmd[1024], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s fit --db %s --name cli", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "all_reduce");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s fit --db %s --export cli", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "podplan-profile/1");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s fit --db %s --export missing", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 2);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s predict --calibration %s:cli tests/data/ddp-70b.json", pp_t_bin(),
		 path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "calibration profile cli");
	free(out);
}

/* The committed H200 profile (fitted from the committed calibration sweep)
 * moves predictions towards what that sweep measured. */
static void committed_h200_profile(void)
{
	char path[512], cmd[1200], *out = NULL;
	snprintf(path, sizeof(path), "%s/h200.db", pp_t_tmpdir());
	snprintf(cmd, sizeof(cmd), "cp models/calibrations/h200-nvlink-2gpu.db %s", path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	free(out);
	pp_store *st;
	pp_err err = {0};
	CHECK(pp_store_open(&st, path, &err) == 0);
	pp_profile p;
	CHECK(pp_profile_load(st, "h200-nvlink-2gpu", 0, &p, &err) == 0);
	/* measured: every bf16 GEMM of the sweep and the 1 GiB all_reduce over 2 GPUs */
	sqlite3_stmt *q;
	double ar_us = 0;
	int ng = 0;
	double shapes[512][4];
	sqlite3_prepare_v2(pp_store_db(st), "SELECT m, n, k, time_us FROM calib_measurements WHERE "
			   "kind = 'gemm' AND dtype = 'bf16' AND time_us > 20", -1, &q, NULL);
	while (sqlite3_step(q) == SQLITE_ROW && ng < 512) {
		for (int c = 0; c < 4; c++)
			shapes[ng][c] = sqlite3_column_double(q, c);
		ng++;
	}
	sqlite3_finalize(q);
	sqlite3_prepare_v2(pp_store_db(st), "SELECT avg(time_us) FROM calib_measurements WHERE "
			   "kind = 'collective' AND op = 'all_reduce' AND nranks = 2 AND inplace = 0 "
			   "AND bytes = 1073741824", -1, &q, NULL);
	if (sqlite3_step(q) == SQLITE_ROW)
		ar_us = sqlite3_column_double(q, 0);
	sqlite3_finalize(q);
	pp_store_close(st);
	CHECK(ng > 100 && ar_us > 0);
	/* tensor_clock burst: the catalog's GEMM rates as they stand, against
	 * the profile's (a GEMM-dense stack would scale the catalog's first) */
	const char *j = "{\"model\": {\"preset\": \"gpt-1.7b\"}, \"training\": {\"global_batch_size\": 16,"
			" \"micro_batch_size\": 4, \"tensor_clock\": \"burst\"}, \"parallel\": "
			"{\"tensor_model_parallel_size\": 2}, "
			"\"cluster\": {\"gpu\": \"h200\", \"num_gpus\": 2}}";
	pp_scenario s;
	pp_hw cat_hw, cal_hw;
	CHECK(tu_scenario(j, &s, &cat_hw) == 0);
	cal_hw = cat_hw;
	pp_profile_apply(&cal_hw, &p);
	/* GEMMs: the profile's predictions are closer to what was measured
	 * (rms of the relative error over the sweep's shapes), and move the
	 * mean in the measured direction */
	double ss_cat = 0, ss_cal = 0, lr_meas = 0, lr_cal = 0;
	for (int i = 0; i < ng; i++) {
		double t = shapes[i][3] * 1e-6;
		double tc = pp_gemm_time(&cat_hw, PP_DT_BF16, shapes[i][0], shapes[i][1], shapes[i][2], 1, 2) -
			    cat_hw.kernel_overhead_s;
		double tp = pp_gemm_time(&cal_hw, PP_DT_BF16, shapes[i][0], shapes[i][1], shapes[i][2], 1, 2) -
			    cal_hw.kernel_overhead_s;
		ss_cat += (tc / t - 1) * (tc / t - 1);
		ss_cal += (tp / t - 1) * (tp / t - 1);
		lr_meas += log(t / tc);
		lr_cal += log(tp / tc);
	}
	double g_cat = sqrt(ss_cat / ng), g_cal = sqrt(ss_cal / ng);
	pp_group two = {2, 2};
	double a_cat = pp_coll_time(&cat_hw, PP_COLL_ALL_REDUCE, 1 << 30, two);
	double a_cal = pp_coll_time(&cal_hw, PP_COLL_ALL_REDUCE, 1 << 30, two);
	pp_t_diag("%d bf16 GEMM shapes: rms error catalog %.1f%%, profile %.1f%%; mean measured/catalog "
	          "%+.1f%%, profile/catalog %+.1f%%", ng, 100 * g_cat, 100 * g_cal,
	          100 * (exp(lr_meas / ng) - 1), 100 * (exp(lr_cal / ng) - 1));
	pp_t_diag("all_reduce 1 GiB / 2 GPUs: measured %.0f us, catalog %.0f, profile %.0f", ar_us,
	          a_cat * 1e6, a_cal * 1e6);
	CHECK(g_cal < g_cat);
	CHECK(lr_meas * lr_cal > 0);
	CHECK(fabs(exp(lr_cal / ng) / exp(lr_meas / ng) - 1) < 0.03);
	CHECK(fabs(a_cal / (ar_us * 1e-6) - 1) < 0.03);
	CHECK(fabs(a_cal - ar_us * 1e-6) < fabs(a_cat - ar_us * 1e-6));
	double gemm_ratio = exp(lr_cal / ng);
	/* a whole step: slower GEMMs than the catalog assumes -> a slower step,
	 * by less than the GEMM ratio (not every op is a GEMM) */
	pp_result r_cat, r_cal;
	CHECK(pp_predict(&s, &cat_hw, NULL, &r_cat, &err) == 0);
	CHECK(pp_predict(&s, &cal_hw, NULL, &r_cal, &err) == 0);
	double step_ratio = r_cal.step_time_s / r_cat.step_time_s;
	pp_t_diag("step: catalog %.1f ms, profile %.1f ms (GEMM ratio %.3f, step ratio %.3f)",
	          r_cat.step_time_s * 1e3, r_cal.step_time_s * 1e3, gemm_ratio, step_ratio);
	if (gemm_ratio > 1)
		CHECK(step_ratio > 1 && step_ratio < gemm_ratio * 1.10);
	else
		CHECK(step_ratio < 1 && step_ratio > gemm_ratio * 0.90);
	pp_scenario_release(&s);
}

/* fit --export's JSON through cJSON: a hand-made profile (a name a
 * printf writer would break, an open-ended last piece, a residual that is
 * undefined) prints as JSON that parses, with the documented keys in
 * order, and reads back to the same figures at the digits printed. */
static void profile_json_roundtrip(void)
{
	pp_profile p;
	memset(&p, 0, sizeof(p));
	snprintf(p.name, sizeof(p.name), "h200 \"lab\"\\2\tnew");
	snprintf(p.gpu, sizeof(p.gpu), "NVIDIA H200");
	p.version = 3;
	p.runs[0] = 4;
	p.runs[1] = 17;
	p.nruns = 2;
	pp_coll_fit *f = &p.fits[0];
	f->op = PP_COLL_ALL_GATHER;
	f->scope = PP_SCOPE_INTER;
	f->nranks = 16;
	f->npieces = 2;
	f->piece[0].hi_bytes = 4194304;
	f->piece[0].alpha_s = 12.5e-6;
	f->piece[0].busbw_Bps = 41.25 * PP_GB;
	f->piece[1].lo_bytes = 4194304;
	f->piece[1].hi_bytes = INFINITY;
	f->piece[1].alpha_s = 80e-6;
	f->piece[1].busbw_Bps = 180 * PP_GB;
	p.fit_ci[0][0] = (pp_fit_piece_ci){.alpha_ci_s = 0.25e-6, .busbw_ci_Bps = 1.5 * PP_GB,
					   .points = 12};
	p.fit_ci[0][1] = (pp_fit_piece_ci){.alpha_ci_s = 2e-6, .busbw_ci_Bps = 3 * PP_GB, .points = 9};
	p.fit_rms[0] = NAN;
	p.nfits = 1;
	p.has_gemm[PP_DT_BF16] = true;
	p.gemm_frac[PP_DT_BF16] = 0.8125;
	p.gemm_frac_ci[PP_DT_BF16] = 0.004;
	p.gemm_k0[PP_DT_BF16] = 96;
	p.gemm_points[PP_DT_BF16] = 40;
	p.gemm_rms[PP_DT_BF16] = 0.0375;
	p.has_mem = true;
	p.mem_Bps = 4275 * PP_GB;
	p.mem_ci_Bps = 12 * PP_GB;
	p.mem_points = 5;
	p.has_overlap = true;
	p.overlap_eff = 0.625;
	p.overlap_ci = 0.05;
	p.overlap_points = 8;

	char *json = pp_profile_to_json(&p);
	cJSON *j = cJSON_Parse(json);
	CHECK(j != NULL);
	/* the top-level keys of profile.h, in that order */
	static const char *const keys[] = {"format", "name", "version", "gpu", "runs", "collectives",
					   "gemm", "memory", "overlap"};
	size_t k = 0;
	for (const cJSON *e = j ? j->child : NULL; e; e = e->next, k++)
		CHECK(k < PP_ARRAY_LEN(keys) && !strcmp(e->string, keys[k]));
	CHECK(k == PP_ARRAY_LEN(keys));
	const cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "collectives"), 0);
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(c0, "rms_rel_residual")));
	const cJSON *p1 = cJSON_GetArrayItem(cJSON_GetObjectItem(c0, "pieces"), 1);
	CHECK(cJSON_GetObjectItem(p1, "hi_bytes") &&
	      cJSON_GetObjectItem(p1, "hi_bytes")->valuedouble == 1e300);
	cJSON_Delete(j);

	pp_profile q;
	pp_err err = {0};
	CHECK(pp_profile_from_json(&q, "roundtrip", json, &err) == 0);
	CHECK(!strcmp(q.name, p.name) && !strcmp(q.gpu, "NVIDIA H200") && q.version == 3);
	CHECK(q.nruns == 2 && q.runs[0] == 4 && q.runs[1] == 17);
	CHECK(q.nfits == 1 && q.fits[0].op == PP_COLL_ALL_GATHER && q.fits[0].scope == PP_SCOPE_INTER);
	CHECK(q.fits[0].nranks == 16 && q.fits[0].npieces == 2 && isnan(q.fit_rms[0]));
	CHECK(q.fits[0].piece[0].hi_bytes == 4194304 && isinf(q.fits[0].piece[1].hi_bytes));
	CHECK_NEAR(q.fits[0].piece[0].alpha_s, 12.5e-6, 1e-12);
	CHECK_NEAR(q.fits[0].piece[0].busbw_Bps, 41.25e9, 1e-12);
	CHECK_NEAR(q.fits[0].piece[1].alpha_s, 80e-6, 1e-12);
	CHECK_NEAR(q.fit_ci[0][0].alpha_ci_s, 0.25e-6, 1e-12);
	CHECK_NEAR(q.fit_ci[0][1].busbw_ci_Bps, 3e9, 1e-12);
	CHECK(q.fit_ci[0][0].points == 12 && q.fit_ci[0][1].points == 9);
	CHECK(q.has_gemm[PP_DT_BF16] && !q.has_gemm[PP_DT_FP8]);
	CHECK(q.gemm_frac[PP_DT_BF16] == 0.8125 && q.gemm_frac_ci[PP_DT_BF16] == 0.004);
	CHECK(q.gemm_k0[PP_DT_BF16] == 96 && q.gemm_points[PP_DT_BF16] == 40);
	CHECK(q.gemm_rms[PP_DT_BF16] == 0.0375);
	CHECK(q.has_mem && q.mem_points == 5);
	CHECK_NEAR(q.mem_Bps, 4275e9, 1e-12);
	CHECK(q.has_overlap && q.overlap_eff == 0.625 && q.overlap_ci == 0.05 && q.overlap_points == 8);
	free(json);
}

/* Sustained GEMMs: hand-made samples whose steady part (from half the
 * run on) is known, in one GPU's rows; the summary, the fit and the
 * throttle names from nvml.h's bits. */
static void sustained_fit(void)
{
	pp_fit_sample s[10];
	pp_sustained_summary sum;
	pp_err err = {0};
	/* 10 samples of 0.1 s ending at 0.1 .. 1.0 s; 1e14 flop each: the rate
	 * 1e15 flop/s in the first half, then 0.9e15 (the interval grows);
	 * the steady part is the samples ending at >= 0.5 s */
	double t = 0;
	for (int i = 0; i < 10; i++) {
		double dt = i < 4 ? 0.1 : 0.1 / 0.9;
		t += dt;
		s[i] = (pp_fit_sample){.t_s = t, .interval_s = dt, .flop = 1e14,
				       .sm_clock_hz = i < 4 ? 1980e6 : 1782e6, .power_w = i < 4 ? 600 : 700,
				       .temp_c = 50 + i, .reasons = i < 4 ? 0 : 0x4};
	}
	CHECK(pp_fit_sustained_summary(1e15, s, 10, &sum, &err) == 0);
	/* the last sample ends at 0.4 + 6 x 0.1111 = 1.0667 s: steady from 0.533 s,
	 * which leaves out the samples ending at 0.4 and 0.5111 */
	CHECK(sum.steady == 5);
	CHECK_NEAR(sum.fraction, 0.9, 1e-9);
	CHECK_NEAR(sum.sustained_flops, 0.9e15, 1e-9);
	CHECK(sum.fraction_ci < 1e-9);
	CHECK(sum.first_sm_clock_hz == 1980e6 && sum.sm_clock_hz == 1782e6 && sum.power_w == 700);
	CHECK(sum.reasons == 0x4);
	CHECK_NEAR(sum.seconds, 0.4 + 6 * 0.1 / 0.9, 1e-12);
	CHECK(pp_fit_sustained_summary(0, s, 10, &sum, &err) == PP_EINPUT);
	CHECK(pp_fit_sustained_summary(1e15, s, 0, &sum, &err) == PP_EINPUT);
	/* NVML's bits (nvml.h nvmlClocksEventReasons*) */
	char b[160];
	CHECK(!strcmp(pp_fit_reason_names(0x4, b, sizeof(b)), "sw_power_cap"));
	CHECK(!strcmp(pp_fit_reason_names(0x48, b, sizeof(b)), "hw_slowdown,hw_thermal_slowdown"));
	CHECK(!strcmp(pp_fit_reason_names(0, b, sizeof(b)), "none"));
	CHECK(!strcmp(pp_fit_reason_names(-1, b, sizeof(b)), "unknown"));
	CHECK(!strcmp(pp_fit_reason_names(0x1004, b, sizeof(b)), "sw_power_cap,0x1000"));

	/* the same run stored as podplan-calibrate stores it, two GPUs: GPU 1
	 * keeps 0.8 of its burst; the profile's fraction is the median of 0.9
	 * and 0.8 */
	char path[512];
	snprintf(path, sizeof(path), "%s/sustained.db", pp_t_tmpdir());
	pp_store *st;
	CHECK(pp_store_open(&st, path, &err) == 0);
	pp_calib_run run;
	pp_calib_run_init(&run);
	run.source = "fake";
	run.command_line = "test_fit";
	run.gpu_name = "NVIDIA H200";
	int64_t id = 0;
	CHECK(pp_calibdb_begin_run(st, &run, &id, &err) == 0);
	const double flop = 2.0 * 8192 * 8192 * 8192;
	for (int dev = 0; dev < 2; dev++) {
		double keep = dev ? 0.8 : 0.9, burst_s = flop / 1e15;
		pp_calib_meas m;
		pp_calib_meas_init(&m);
		m.kind = "gemm_sustained";
		m.op = "burst";
		m.dtype = "bf16";
		m.m = m.n = m.k = 8192;
		m.device = dev;
		m.time_us = burst_s * 1e6;
		CHECK(pp_calibdb_add(st, id, &m, NULL, &err) == 0);
		double tt = 0;
		for (int i = 0; i < 20; i++) {
			int gemms = 10;
			double dt = gemms * burst_s / (i < 5 ? 1.0 : keep);
			tt += dt;
			char x[256];
			snprintf(x, sizeof(x), "{\"t_s\": %.9f, \"interval_s\": %.9f, \"gemms\": %d, "
				 "\"sm_clock_MHz\": %d, \"power_W\": 700, \"temp_C\": 60, \"reasons\": %d, "
				 "\"power_limit_W\": 700}", tt, dt, gemms, i < 5 ? 1980 : 1700 + 50 * dev,
				 i < 5 ? 0 : 4 << dev);
			pp_calib_meas_init(&m);
			m.kind = "gemm_sustained";
			m.op = "sample";
			m.dtype = "bf16";
			m.m = m.n = m.k = 8192;
			m.device = dev;
			m.time_us = dt / gemms * 1e6;
			m.extra_json = x;
			CHECK(pp_calibdb_add(st, id, &m, NULL, &err) == 0);
		}
	}
	CHECK(pp_calibdb_end_run(st, id, "complete", NULL, &err) == 0);
	pp_profile p;
	CHECK(pp_fit_runs(st, tu_catalog(), &id, 1, NULL, "sus", &p, &err) == 0);
	CHECK(p.has_sustained[PP_DT_BF16] && !p.has_sustained[PP_DT_FP8]);
	CHECK_NEAR(p.gemm_sustained_fraction[PP_DT_BF16], 0.85, 1e-6);
	CHECK(p.sustained[PP_DT_BF16].gpus == 2);
	CHECK(p.sustained[PP_DT_BF16].reasons == (0x4 | 0x8));
	CHECK_NEAR(p.sustained[PP_DT_BF16].burst_flops, 1e15, 1e-6);
	CHECK_NEAR(p.sustained[PP_DT_BF16].sm_clock_hz, 1725e6, 1e-9);
	CHECK(p.sustained[PP_DT_BF16].power_limit_w == 700);
	/* the interval covers the spread between the GPUs' fractions */
	CHECK(p.gemm_sustained_ci[PP_DT_BF16] > 0.005 && p.gemm_sustained_ci[PP_DT_BF16] < 0.05);
	/* nothing else was fitted from these rows */
	CHECK(!p.has_gemm[PP_DT_BF16] && !p.nfits && !p.has_mem);
	/* JSON round trip of the new keys */
	char *json = pp_profile_to_json(&p);
	pp_profile q;
	CHECK(pp_profile_from_json(&q, "sus", json, &err) == 0);
	CHECK(q.has_sustained[PP_DT_BF16]);
	CHECK_NEAR(q.gemm_sustained_fraction[PP_DT_BF16], p.gemm_sustained_fraction[PP_DT_BF16], 1e-5);
	CHECK(q.sustained[PP_DT_BF16].reasons == 0xc && q.sustained[PP_DT_BF16].m == 8192);
	CHECK_CONTAINS(json, "\"throttle_reasons\":\t\"sw_power_cap,hw_slowdown\"");
	free(json);
	pp_store_close(st);
}

/* Decode-shaped GEMMs: each row's share of the datasheet roofline is the
 * larger of its flop/s over the dense peak and its bytes/s over the HBM
 * bandwidth (gpus.json's H200: 989.5 TFLOP/s bf16, 4800 GB/s); the curve
 * is their median per token count, interpolated in log2 m. */
static void small_m_fit(void)
{
	char path[512];
	pp_err err = {0};
	snprintf(path, sizeof(path), "%s/smallm.db", pp_t_tmpdir());
	pp_store *st;
	CHECK(pp_store_open(&st, path, &err) == 0);
	pp_calib_run run;
	pp_calib_run_init(&run);
	run.source = "fake";
	run.command_line = "test_fit";
	run.gpu_name = "NVIDIA H200";
	int64_t id = 0;
	CHECK(pp_calibdb_begin_run(st, &run, &id, &err) == 0);
	const pp_gpu *g = pp_catalog_gpu(tu_catalog(), "h200");
	double peak = g->peak_flops[PP_DT_BF16], hbm = g->mem_Bps;
	/* three shapes at m = 1 reaching 0.5, 0.6, 0.7 of HBM; three at m = 4
	 * at 0.8 of it; one at m = 512 at 0.75 of the peak (compute-bound) */
	struct {
		int m, n, k;
		double frac;
		bool compute;
	} rows[] = {{1, 4096, 4096, 0.5, false}, {1, 6144, 4096, 0.6, false},
		    {1, 28672, 4096, 0.7, false}, {4, 4096, 4096, 0.8, false},
		    {4, 6144, 4096, 0.8, false}, {4, 28672, 4096, 0.8, false},
		    {512, 28672, 8192, 0.75, true}};
	for (size_t i = 0; i < PP_ARRAY_LEN(rows); i++) {
		double M = rows[i].m, N = rows[i].n, K = rows[i].k;
		double bytes = (M * K + N * K) * 2 + M * N * 2, flop = 2 * M * N * K;
		double t = rows[i].compute ? flop / (peak * rows[i].frac) : bytes / (hbm * rows[i].frac);
		pp_calib_meas m;
		pp_calib_meas_init(&m);
		m.kind = "gemm_decode";
		m.op = "x.decode";
		m.dtype = "bf16";
		m.m = rows[i].m;
		m.n = rows[i].n;
		m.k = rows[i].k;
		m.device = 0;
		m.wrong = 0;
		m.time_us = t * 1e6;
		m.tflops = flop / t / 1e12;
		m.GBps = bytes / t / 1e9;
		CHECK(pp_calibdb_add(st, id, &m, NULL, &err) == 0);
	}
	CHECK(pp_calibdb_end_run(st, id, "complete", NULL, &err) == 0);
	pp_profile p;
	CHECK(pp_fit_runs(st, tu_catalog(), &id, 1, NULL, "dec", &p, &err) == 0);
	CHECK(p.gemm_small_m_n[PP_DT_BF16] == 3 && p.gemm_small_m_n[PP_DT_FP8] == 0);
	const pp_small_m_point *q = p.gemm_small_m[PP_DT_BF16];
	CHECK(q[0].m == 1 && q[1].m == 4 && q[2].m == 512);
	CHECK_NEAR(q[0].roofline_fraction, 0.6, 1e-9);
	CHECK(q[0].shapes == 3 && fabs(q[0].q25 - 0.5) < 1e-9 && fabs(q[0].q75 - 0.7) < 1e-9);
	CHECK_NEAR(q[1].roofline_fraction, 0.8, 1e-9);
	CHECK_NEAR(q[2].roofline_fraction, 0.75, 1e-9);
	CHECK(p.small_m_peak_flops[PP_DT_BF16] == peak && p.small_m_hbm_Bps[PP_DT_BF16] == hbm);
	/* between 1 and 4 in log2: m = 2 is half way; outside the ends, the ends */
	CHECK_NEAR(pp_profile_small_m_fraction(&p, PP_DT_BF16, 2), 0.7, 1e-9);
	CHECK_NEAR(pp_profile_small_m_fraction(&p, PP_DT_BF16, 0.5), 0.6, 1e-9);
	CHECK_NEAR(pp_profile_small_m_fraction(&p, PP_DT_BF16, 4096), 0.75, 1e-9);
	/* log2 64 is 4 of the 7 steps from 4 to 512 */
	CHECK_NEAR(pp_profile_small_m_fraction(&p, PP_DT_BF16, 64), 0.8 - 0.05 * 4.0 / 7.0, 1e-9);
	CHECK(isnan(pp_profile_small_m_fraction(&p, PP_DT_FP8, 8)));
	/* the decode rows are not large GEMMs: no gemm share from them */
	CHECK(!p.has_gemm[PP_DT_BF16]);
	char *json = pp_profile_to_json(&p);
	pp_profile r;
	CHECK(pp_profile_from_json(&r, "dec", json, &err) == 0);
	CHECK(r.gemm_small_m_n[PP_DT_BF16] == 3 && r.gemm_small_m[PP_DT_BF16][2].m == 512);
	CHECK_NEAR(r.gemm_small_m[PP_DT_BF16][0].roofline_fraction, 0.6, 1e-6);
	CHECK_NEAR(r.small_m_hbm_Bps[PP_DT_BF16], hbm, 1e-6);
	free(json);
	/* podplan fit prints both */
	pp_store_close(st);
	char cmd[1024], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s fit --db %s --name dec2", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "small M, share of the datasheet roofline (990 TFLOP/s, 4800 GB/s)");
	free(out);
}

/* One figure of a valid profile replaced by a hostile one. */
static int load_with(const char *piece_key, const char *value, pp_err *err)
{
	static const char *const keys[] = {"lo_bytes", "hi_bytes", "alpha_us", "busbw_GBps", "points"};
	static const char *const vals[] = {"0", "1e300", "10", "100", "5"};
	char piece[512] = "", json[1024];
	for (size_t i = 0; i < PP_ARRAY_LEN(keys); i++)
		snprintf(piece + strlen(piece), sizeof(piece) - strlen(piece), "%s\"%s\": %s",
			 i ? ", " : "", keys[i], strcmp(keys[i], piece_key) ? vals[i] : value);
	snprintf(json, sizeof(json),
		 "{\"format\": \"podplan-profile/1\", \"name\": \"p\", \"version\": 1, \"runs\": [1],"
		 " \"collectives\": [{\"op\": \"all_reduce\", \"scope\": \"intra_node\", \"nranks\": 8,"
		 " \"pieces\": [{%s}]}]}", piece);
	pp_profile p;
	return pp_profile_from_json(&p, "p.json", json, err);
}

/* A profile is read from a store anyone may have edited: a missing
 * params_json, NaN-like and huge figures, counts that no int holds, are
 * PP_EINPUT naming the path, never a crash or an undefined cast (the
 * sanitizer pass checks float casts). */
static void hostile_profiles(void)
{
	pp_profile p;
	pp_err err = {0};
	CHECK(pp_profile_from_json(&p, "row", NULL, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "no parameters");
	CHECK(load_with("points", "1e300", &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "collectives[0].pieces[0].points: found 1e+300, "
		       "expected an integer in [0, 100000000]");
	CHECK(load_with("busbw_GBps", "1e-300", &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "collectives[0].pieces[0].busbw_GBps");
	CHECK(load_with("alpha_us", "-1", &err) == PP_EINPUT);
	CHECK(load_with("points", "2.5", &err) == PP_EINPUT);
	CHECK(load_with("lo_bytes", "\"x\"", &err) == PP_EINPUT);
	/* a null busbw is the writer's infinite one (times flat in the size) */
	CHECK(load_with("busbw_GBps", "null", &err) == 0);
	static const char *const bad[] = {
		"{\"format\": \"podplan-profile/1\", \"name\": \"p\", \"version\": 1e300}",
		"{\"format\": \"podplan-profile/1\", \"name\": \"p\", \"runs\": [1e300]}",
		"{\"format\": \"podplan-profile/1\", \"name\": \"p\", \"runs\": [\"a\"]}",
		"{\"format\": \"podplan-profile/1\", \"name\": \"p\", \"memory\": {\"points\": -1e30}}",
		"{\"format\": \"podplan-profile/1\", \"name\": \"p\", \"gemm\": {\"bf16\": {\"points\": 1e19}}}",
		"{\"format\": \"podplan-profile/1\", \"name\": \"p\", \"overlap\": {\"efficiency\": 0.5, "
		"\"points\": 3e9}}",
		"{\"format\": \"podplan-profile/1\", \"name\": \"p\", \"collectives\": [{\"op\": "
		"\"all_reduce\", \"nranks\": 1e300, \"pieces\": []}]}",
		"{\"format\": \"podplan-profile/1\", \"name\": \"p\\u001b[2J\"}",
	};
	for (size_t i = 0; i < PP_ARRAY_LEN(bad); i++) {
		memset(&err, 0, sizeof(err));
		int rc = pp_profile_from_json(&p, "p.json", bad[i], &err);
		CHECK(rc == PP_EINPUT && err.msg[0]);
		if (rc != PP_EINPUT)
			pp_t_diag("accepted: %s", bad[i]);
	}
}

/* A podplan store whose profiles table lets params_json be NULL (another
 * writer's, an edit): predict --calibration and fit --export say so and
 * exit 2 (they crashed with SIGSEGV). fit over a run with no
 * measurements: an error, not a memcpy from NULL. */
static void profile_row_without_params(void)
{
	char db[512], cmd[2048];
	snprintf(db, sizeof(db), "%s/noparams.db", pp_t_tmpdir());
	pp_store *st;
	pp_err err = {0};
	CHECK(pp_store_open(&st, db, &err) == 0);
	CHECK(pp_store_exec(st, "DROP TABLE profiles; CREATE TABLE profiles(id INTEGER PRIMARY KEY, "
			    "name TEXT, version INTEGER, created_at REAL, run_ids TEXT, params_json "
			    "TEXT, residuals_json TEXT); INSERT INTO profiles(name, version, created_at, "
			    "run_ids) VALUES ('p', 1, 0, '[]');", &err) == 0);
	pp_calib_run run;
	pp_calib_run_init(&run);
	run.source = "fake";
	run.command_line = "test";
	run.gpu_name = "NVIDIA H100 80GB HBM3";
	int64_t id = 0;
	CHECK(pp_calibdb_begin_run(st, &run, &id, &err) == 0);
	pp_profile p;
	CHECK(pp_profile_load(st, "p", 0, &p, &err) == PP_EINPUT);
	CHECK(pp_fit_runs(st, tu_catalog(), &id, 1, "h100-sxm", "f", &p, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "no measurement to fit");
	pp_store_close(st);
	char *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s predict scenarios/default.json --calibration %s:p", pp_t_bin(),
		 db);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "the profile has no parameters");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s fit --export p --db %s", pp_t_bin(), db);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "the profile has no parameters");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s predict scenarios/default.json --calibration %s:p@99999999999",
		 pp_t_bin(), db);
	CHECK(pp_t_sh(cmd, &out) == 2);
	free(out);
}

int main(void)
{
	RUN(collective_recovery);
	RUN(sustained_fit);
	RUN(small_m_fit);
	RUN(fit_from_store);
	RUN(committed_h200_profile);
	RUN(profile_json_roundtrip);
	RUN(hostile_profiles);
	RUN(profile_row_without_params);
	return pp_t_done("test_fit");
}
