/*
 * test_validate.c - the engine against published runs (issue 3 acceptance),
 * with the catalog's default A100 parameters, at the figures README.md
 * publishes for `podplan validate models/validation/validation-public.csv`
 * (its table "published table | rows | mean abs. error | max"): Korthikanti
 * et al. 2022 Table 4 per-layer times, Table 5 iteration times and the
 * Sec. 6.3 530B run, Narayanan et al. SC'21 Table 1, the PTD-P rows of its
 * Table 2 (held out of the one fitted constant, blocking_pipeline_stall),
 * the DeepSpeed ZeRO-3 rows of Table 2 and the BLOOM-176B log; and the
 * README's "predicts those published layouts themselves within 6%" for the
 * 18.4B and 39.1B rows of Table 1 (tests/test_search.c's disagreement).
 *
 * A figure printed as 3.0% holds while the value is below 3.05%: each bound
 * is the published figure to its last printed digit, so a regression of a
 * tenth of a point fails here. When the engine improves, the test still
 * passes; update the README's table (and the figures here) with it.
 */
#include "harness.h"
#include "testutil.h"
#include "textutil.h"
#include "calib/validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pp_valset v;

/* The validation of the public CSV, run once by whichever test needs it first. */
static bool loaded(void)
{
	static int rc = 1;
	static bool done;
	if (!done) {
		pp_err err = {0};
		done = true;
		rc = pp_validate_csv(tu_catalog(), NULL, "models/validation/validation-public.csv",
				     &v, &err);
		if (rc)
			pp_t_diag("%s", err.msg);
	}
	CHECK(rc == 0);
	return rc == 0;
}

/* Mean and max |error| of the primary rows of a group whose model names
 * model_has (every row of the group when NULL); returns the count. */
static int summary(const char *group, const char *model_has, double *mean, double *max)
{
	if (!model_has)
		return pp_valset_summary(&v, group, mean, max);
	int n = 0;
	double sum = 0;
	*max = 0;
	for (int i = 0; i < v.n; i++) {
		const pp_valrow *r = &v.rows[i];
		if (!r->primary || strcmp(r->group, group) || !strstr(r->model, model_has))
			continue;
		n++;
		sum += fabs(r->error);
		*max = fmax(*max, fabs(r->error));
	}
	*mean = n ? sum / n : NAN;
	return n;
}

/* One line of README.md's table: the rows, the mean and the max |error| in
 * percent as printed (NAN: not published), half a unit of the last digit. */
static void published(const char *group, const char *model_has, int rows, double mean_pct,
		      double max_pct, double half_pct)
{
	double mean = 0, max = 0;
	int n = summary(group, model_has, &mean, &max);
	char pub[32] = "-";
	if (!isnan(mean_pct))
		snprintf(pub, sizeof(pub), "%.1f%%", mean_pct);
	pp_t_diag("%s%s%s: %d rows, mean |error| %.2f%%, max %.2f%% (README: %d rows, %s, %.*f%%)",
		  group, model_has ? ", rows of " : "", model_has ? model_has : "", n, 100 * mean,
		  100 * max, rows, pub, half_pct < 0.1 ? 1 : 0, max_pct);
	CHECK(n == rows);
	if (!isnan(mean_pct))
		CHECK(mean <= (mean_pct + half_pct) / 100);
	CHECK(max <= (max_pct + half_pct) / 100);
}

static void published_runs(void)
{
	if (!loaded())
		return;
	published("Korthikanti et al. 2022 Table 4", NULL, 5, 0.7, 1.0, 0.05);
	published("Korthikanti et al. 2022 Table 5", NULL, 8, 3.1, 7.3, 0.05);
	published("Korthikanti et al. 2022 Sec 6.3", NULL, 1, 3.9, 3.9, 0.05);
	published("Narayanan et al. SC'21 Table 1", NULL, 10, 4.7, 6.4, 0.05);
	published("BLOOM-176B production run", NULL, 2, 14.1, 14.8, 0.05);
}

/* The held-out rows: Narayanan SC'21 Table 2, PTD-P (2.3% mean, 3.7% max);
 * its DeepSpeed ZeRO-3 rows are published as 59-344% (the README explains
 * why podplan does not reproduce them): they may not get worse. */
static void held_out_rows(void)
{
	if (!loaded())
		return;
	published("Narayanan et al. SC'21 Table 2", "(PTD-P)", 6, 2.3, 3.7, 0.05);
	published("Narayanan et al. SC'21 Table 2", "ZeRO-3", 6, NAN, 344, 0.5);
}

/* README: for 18.4B and 39.1B the search prefers other layouts, but "it
 * predicts those published layouts themselves within 6.1% of their measured
 * throughput". */
static void table1_disagreement_rows(void)
{
	static const char *const models[] = {"GPT 18.4B", "GPT 39.1B"};
	if (!loaded())
		return;
	for (size_t k = 0; k < PP_ARRAY_LEN(models); k++) {
		int n = 0;
		for (int i = 0; i < v.n; i++) {
			const pp_valrow *r = &v.rows[i];
			if (!r->primary || strcmp(r->group, "Narayanan et al. SC'21 Table 1") ||
			    strcmp(r->model, models[k]))
				continue;
			n++;
			pp_t_diag("%s %s: %+.1f%%", r->model, r->metric, 100 * r->error);
			CHECK(fabs(r->error) <= 0.061);
		}
		CHECK(n == 1);
	}
}

static void bad_csv(void)
{
	char cmd[512], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s validate tests/bad/EXPECT", pp_t_bin());
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "missing column");
	free(out);
}

/* A 20 MB file of another layout is refused on its header, at once and
 * without parsing its rows (it took 2.4 GB); a larger file and one with
 * too many rows are refused with the limit named; a row whose micro-batch
 * and DP multiply past a long is skipped (it was undefined behaviour). */
static void hostile_csv(void)
{
	char path[512], cmd[1024], *out = NULL;
	snprintf(path, sizeof(path), "%s/wide.csv", pp_t_tmpdir());
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("a,b,c\n", f);
	for (int i = 0; i < 1900000; i++) /* 3.8 MB of one-character fields */
		fputs("x,", f);
	fputs("\n", f);
	fclose(f);
	pp_valset w;
	pp_err err = {0};
	double t0 = pp_mono_s();
	CHECK(pp_validate_csv(tu_catalog(), NULL, path, &w, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "missing column \"source\"");
	CHECK(pp_mono_s() - t0 < 2);
	f = fopen(path, "w");
	for (int i = 0; f && i < 500000; i++)
		fputs("0123456789\n", f);
	if (f)
		fclose(f);
	snprintf(cmd, sizeof(cmd), "%s validate %s", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "larger than 4194304 bytes");
	free(out);
	/* the published header, then more rows than allowed */
	char *pub = tu_slurp("models/validation/validation-public.csv");
	const char *nl = pub ? strchr(pub, '\n') : NULL;
	f = fopen(path, "w");
	if (f && nl) {
		fwrite(pub, 1, (size_t)(nl - pub + 1), f);
		for (int i = 0; i < PP_VALIDATE_MAX_ROWS + 1; i++)
			fputs("s,t,m,1,1,1,1,1,1,x,1,1,x,x,1,1,1,1,x,x,x,bandwidth,1,n\n", f);
	}
	if (f)
		fclose(f);
	CHECK(pp_validate_csv(tu_catalog(), NULL, path, &w, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "more than 2000 rows");
	/* micro-batch x DP past a long: skipped, not undefined */
	f = fopen(path, "w");
	if (f && nl) {
		fwrite(pub, 1, (size_t)(nl - pub + 1), f);
		fputs("\"Narayanan\",Table 1,GPT x,1,24,2304,24,2048,micro-batch 99999999999999999999,"
		      "A100-SXM4-80GB,32,8,NVLink3,HDR,1,1,99999999999999999999,1,none,full,fp16,"
		      "TFLOPs_per_gpu,137,\"MBS=99999999999999999999\"\n", f);
	}
	if (f)
		fclose(f);
	CHECK(pp_validate_csv(tu_catalog(), NULL, path, &w, &err) == 0);
	CHECK(w.n == 0 && w.skipped == 1);
	pp_valset_release(&w);
	/* escapes in a row's texts: printed as \xNN */
	f = fopen(path, "w");
	if (f && nl) {
		fwrite(pub, 1, (size_t)(nl - pub + 1), f);
		fputs("\"Narayanan \x1b]0;x\x07\",Table 1,GPT 1.7B,1.7,24,2304,24,2048,512 seqs,"
		      "A100-SXM4-80GB,32,8,NVLink3,HDR,1,1,32,1,none,full,fp16,TFLOPs_per_gpu\x1b[2J,"
		      "137,V=51200\n", f);
	}
	if (f)
		fclose(f);
	snprintf(cmd, sizeof(cmd), "%s validate %s", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK(out && !strchr(out, '\x1b') && !strchr(out, '\x07'));
	CHECK_CONTAINS(out, "TFLOPs_per_gpu\\x1b[2J");
	free(out);
	free(pub);
}

int main(void)
{
	RUN(published_runs);
	RUN(held_out_rows);
	RUN(table1_disagreement_rows);
	RUN(bad_csv);
	RUN(hostile_csv);
	pp_valset_release(&v);
	return pp_t_done("test_validate");
}
