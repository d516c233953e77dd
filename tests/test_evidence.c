/*
 * test_evidence.c - prediction intervals from the validation sets
 * (calib/evidence.h): the order-statistic and t-based rules against hand
 * calculations on synthetic evidence, what counts as near, the default
 * band where nothing is, and the repository's sets predicted now (every
 * row a finite error, each row's interval without it) with the coverage
 * the command prints.
 */
#include "harness.h"
#include "testutil.h"
#include "calib/evidence.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pp_evkey key(const char *fw, const char *arch, int tp, int pp, int dp, int gpus, bool moe)
{
	pp_evkey k;
	memset(&k, 0, sizeof(k));
	snprintf(k.framework, sizeof(k.framework), "%s", fw);
	snprintf(k.arch, sizeof(k.arch), "%s", arch);
	k.tp = tp;
	k.pp = pp;
	k.dp = dp;
	k.ep = k.cp = 1;
	k.gpus = gpus;
	k.moe = moe;
	return k;
}

/* n rows of one key whose measured / predicted are f[i] */
static void synth(pp_evidence *ev, const pp_evkey *k, const double *f, int n)
{
	memset(ev, 0, sizeof(*ev));
	ev->rows = pp_xcalloc((size_t)n, sizeof(pp_evrow));
	for (int i = 0; i < n; i++) {
		pp_evrow *r = &ev->rows[ev->n++];
		snprintf(r->set, sizeof(r->set), "s");
		snprintf(r->config, sizeof(r->config), "row%d", i);
		snprintf(r->family, sizeof(r->family), "fam%d", i % 3);
		r->key = *k;
		r->predicted_s = 1;
		r->measured_s = f[i];
		r->x = log(f[i]);
	}
}

static void distance_rules(void)
{
	pp_evkey a = key("megatron-core", "hopper", 8, 4, 16, 512, false);
	pp_evkey b = a;
	CHECK(pp_evkey_distance(&a, &b) == 0);
	b.moe = true;
	CHECK(isinf(pp_evkey_distance(&a, &b)));
	b = a;
	snprintf(b.arch, sizeof(b.arch), "blackwell");
	CHECK(isinf(pp_evkey_distance(&a, &b)));
	b = a;
	snprintf(b.framework, sizeof(b.framework), "nemo"); /* the same family */
	CHECK_NEAR(pp_evkey_distance(&a, &b), 0.5, 1e-12);
	snprintf(b.framework, sizeof(b.framework), "torchtitan");
	CHECK_NEAR(pp_evkey_distance(&a, &b), 1.0, 1e-12);
	b = a;
	b.pp = 1;          /* no pipeline: one dimension of the mix */
	b.gpus = 32;       /* 16 times smaller: 1 */
	CHECK_NEAR(pp_evkey_distance(&a, &b), 1.5, 1e-12);
}

/* 19 runs: r = floor(0.1 x 20) = 2, the 2nd and 18th of the sorted
 * factors, coverage 16/20 */
static void order_statistics(void)
{
	pp_evkey k = key("megatron-core", "hopper", 2, 2, 4, 16, false);
	double f[19];
	for (int i = 0; i < 19; i++)
		f[i] = 0.80 + 0.02 * ((i * 7) % 19); /* a permutation of 0.80 .. 1.16 */
	pp_evidence ev;
	synth(&ev, &k, f, 19);
	pp_band b;
	pp_evidence_band(&ev, &k, 10.0, -1, NULL, &b);
	CHECK(b.on && b.near);
	CHECK(b.n == 19);
	CHECK_NEAR(b.f_lo, 0.82, 1e-9);
	CHECK_NEAR(b.f_hi, 1.14, 1e-9);
	CHECK_NEAR(b.lo_s, 8.2, 1e-9);
	CHECK_NEAR(b.hi_s, 11.4, 1e-9);
	CHECK_NEAR(b.coverage, 0.8, 1e-12);
	CHECK(b.nlisted == PP_BAND_LISTED);
	/* without row 0 (factor 0.80, the smallest): 18 runs, r = 1, the
	 * smallest left (0.82) and the largest (1.16) */
	pp_evidence_band(&ev, &k, 10.0, 0, NULL, &b);
	CHECK(b.n == 18);
	CHECK_NEAR(b.f_lo, 0.82, 1e-9);
	CHECK_NEAR(b.f_hi, 1.16, 1e-9);
	pp_evidence_release(&ev);
}

/* 4 runs: mean +- t(0.9, 3) s sqrt(1 + 1/4) on the logs, t = 1.637744
 * (a table of Student's t) */
static void t_based(void)
{
	pp_evkey k = key("megatron-core", "hopper", 2, 2, 4, 16, false);
	double f[4] = {0.9, 1.0, 1.1, 1.2};
	pp_evidence ev;
	synth(&ev, &k, f, 4);
	double m = 0, ss = 0;
	for (int i = 0; i < 4; i++)
		m += log(f[i]) / 4;
	for (int i = 0; i < 4; i++)
		ss += (log(f[i]) - m) * (log(f[i]) - m);
	double h = 1.637744 * sqrt(ss / 3) * sqrt(1.25);
	pp_band b;
	pp_evidence_band(&ev, &k, 2.0, -1, NULL, &b);
	CHECK(b.on && b.near && b.n == 4);
	CHECK_NEAR(b.f_lo, exp(m - h), 1e-5);
	CHECK_NEAR(b.f_hi, exp(m + h), 1e-5);
	CHECK(strstr(b.method, "t-based") != NULL);
	/* the family of row 0 (rows 0 and 3) left out: 2 near, too few; the
	 * default band (of 2 rows) is too few as well */
	pp_evidence_band(&ev, &k, 2.0, -1, "fam0", &b);
	CHECK(!b.on);
	pp_evidence_release(&ev);
}

/* A layout far from every run (another GPU count by 2^10, another mix)
 * gets the default band of its kind, wider, and says so. */
static void default_band(void)
{
	pp_evkey k = key("megatron-core", "hopper", 1, 1, 8, 8, false);
	double f[12];
	for (int i = 0; i < 12; i++)
		f[i] = 0.7 + 0.05 * i;
	pp_evidence ev;
	synth(&ev, &k, f, 12);
	pp_evkey far = key("megatron-core", "hopper", 8, 8, 128, 8192, false);
	pp_band b;
	pp_evidence_band(&ev, &far, 1.0, -1, NULL, &b);
	CHECK(b.on && !b.near && b.n == 12);
	CHECK(strcmp(b.kind, "dense") == 0);
	pp_sb sb = {0};
	pp_band_text(&b, "", &sb);
	CHECK_CONTAINS(sb.buf, "no validated run near this layout");
	pp_sb_release(&sb);
	/* the table column: the interval, a star for the default band */
	char col[48];
	pp_band t = {.on = true, .near = false, .lo_s = 2.914, .hi_s = 4.0612};
	CHECK(!strcmp(pp_band_short(&t, col, sizeof(col)), "2.91-4.06 s*"));
	t.near = true;
	CHECK(!strcmp(pp_band_short(&t, col, sizeof(col)), "2.91-4.06 s"));
	t.on = false;
	CHECK(!strcmp(pp_band_short(&t, col, sizeof(col)), "-"));
	/* an MoE layout: no MoE run at all, so every run */
	far.moe = true;
	pp_evidence_band(&ev, &far, 1.0, -1, NULL, &b);
	CHECK(b.on && !b.near && b.n == 12 && !b.kind[0]);
	pp_evidence_release(&ev);
}

/* The repository's sets, predicted now: every row has a finite error, the
 * rows are those the CSVs hold (a measured step and a scenario), and the
 * coverage counts agree with a count made here from the bands. */
static void repository_sets(void)
{
	pp_evidence ev;
	pp_err err = {0};
	int rc = pp_evidence_load(&ev, tu_catalog(), &err);
	CHECK(rc == 0);
	if (rc) {
		pp_t_diag("%s", err.msg);
		return;
	}
	CHECK(ev.skipped == 0);
	CHECK(ev.n >= 50);
	int sets[5] = {0};
	const char *names[5] = {"bridge", "mcore", "moe", "torchtitan", "framework"};
	for (int i = 0; i < ev.n; i++) {
		CHECK(isfinite(ev.rows[i].x) && ev.rows[i].predicted_s > 0);
		for (int j = 0; j < 5; j++)
			sets[j] += !strcmp(ev.rows[i].set, names[j]);
	}
	for (int j = 0; j < 5; j++)
		CHECK(sets[j] >= 5);
	pp_evcov cv[8];
	int n = pp_evidence_coverage(&ev, cv, 8);
	CHECK(n == 6);
	int in = 0;
	for (int i = 0; i < ev.n; i++) {
		pp_band b;
		pp_evidence_band(&ev, &ev.rows[i].key, ev.rows[i].predicted_s, i, NULL, &b);
		in += b.on && ev.rows[i].measured_s >= b.lo_s && ev.rows[i].measured_s <= b.hi_s;
		/* a row's own interval never rests on itself */
		for (int j = 0; j < b.nlisted; j++)
			CHECK(strcmp(b.rows[j], ev.rows[i].config) != 0);
	}
	CHECK(cv[5].n == ev.n && cv[5].loo_in == in);
	pp_t_diag("%d validated rows; leave-one-out coverage %d of %d", ev.n, in, ev.n);
	pp_evidence_release(&ev);
}

int main(void)
{
	RUN(distance_rules);
	RUN(order_statistics);
	RUN(t_based);
	RUN(default_band);
	RUN(repository_sets);
	return pp_t_done("test_evidence");
}
