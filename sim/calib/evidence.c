/*
 * evidence.c - prediction intervals from podplan's errors on its
 * validation sets (evidence.h).
 */
#include "calib/evidence.h"
#include "calib/hwres.h"
#include "calib/replayval.h"
#include "engine/predict.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the sets, under the catalog's directory (models/) */
static const struct {
	const char *set, *path;
} sets[] = {
	{"bridge", "validation/bridge-published.csv"},
	{"mcore", "validation/mcore-published.csv"},
	{"moe", "validation/moe-published.csv"},
	{"torchtitan", "validation/torchtitan-published.csv"},
	{"framework", "calibrations/framework-h200.csv"},
};

#define MIN_NEAR 3
#define NEAR_DISTANCE 1.0
#define LEVEL 0.80 /* the order-statistic rule below is written for it */

/* 0: Megatron's family, 1: PyTorch-native, 2: other (frameworks.json ids) */
static int fw_family(const char *id)
{
	static const char *const megatron[] = {"megatron-lm-2022", "megatron-core", "nemo"};
	static const char *const torch[] = {"pytorch", "torchtitan", "deepspeed"};
	for (size_t i = 0; i < PP_ARRAY_LEN(megatron); i++)
		if (!strcmp(id, megatron[i]))
			return 0;
	for (size_t i = 0; i < PP_ARRAY_LEN(torch); i++)
		if (!strcmp(id, torch[i]))
			return 1;
	return 2;
}

void pp_evkey_of(pp_evkey *k, const pp_scenario *s)
{
	memset(k, 0, sizeof(*k));
	snprintf(k->framework, sizeof(k->framework), "%s", s->training.stack.framework);
	snprintf(k->arch, sizeof(k->arch), "%s", s->cluster.gpu ? s->cluster.gpu->arch : "");
	k->tp = s->parallel.tp;
	k->pp = s->parallel.pp;
	k->dp = s->parallel.dp;
	k->ep = s->parallel.ep;
	k->cp = s->parallel.cp;
	k->gpus = s->cluster.num_gpus;
	k->moe = s->model.num_experts > 0;
}

double pp_evkey_distance(const pp_evkey *a, const pp_evkey *b)
{
	if (strcmp(a->arch, b->arch) || a->moe != b->moe)
		return INFINITY;
	double d = 0;
	if (strcmp(a->framework, b->framework))
		d += fw_family(a->framework) == fw_family(b->framework) && fw_family(a->framework) < 2
			     ? 0.5 : 1.0;
	int pa[5] = {a->tp, a->pp, a->dp, a->ep, a->cp}, pb[5] = {b->tp, b->pp, b->dp, b->ep, b->cp};
	for (int i = 0; i < 5; i++)
		d += 0.5 * ((pa[i] > 1) != (pb[i] > 1));
	if (a->gpus > 0 && b->gpus > 0)
		d += fabs(log2((double)a->gpus / b->gpus)) / 4;
	return d;
}

/* a scenario path of a set ("models/validation/..." from the repository
 * root, as the scripts write them) under the catalog's directory */
static char *scenario_path(const char *dir, const char *path)
{
	if (path[0] != '/' && !strncmp(path, "models/", 7))
		return pp_path_join(dir, path + 7);
	return pp_xstrdup(path);
}

static void skip(pp_evidence *ev, const char *config, const pp_err *e)
{
	if (!ev->skipped++)
		snprintf(ev->skipped_why, sizeof(ev->skipped_why), "%s: %s", config, e->msg);
}

static int load_set(pp_evidence *ev, const pp_catalog *cat, const char *set, const char *rel,
		    pp_err *err)
{
	char *path = pp_path_join(pp_catalog_dir(cat), rel);
	pp_replayset v;
	int rc = pp_replayval_load(path, &v, err);
	free(path);
	if (rc)
		return rc;
	ev->rows = pp_xrealloc(ev->rows, sizeof(pp_evrow) * (size_t)(ev->n + v.n));
	for (int i = 0; i < v.n; i++) {
		const pp_replay_row *r = &v.rows[i];
		if (!isfinite(r->measured_s) || r->measured_s <= 0 || !r->scenario[0])
			continue; /* pending: no measurement yet */
		char *sp = scenario_path(pp_catalog_dir(cat), r->scenario);
		pp_scenario s;
		pp_hwcal cal;
		pp_hw hw;
		pp_result res;
		pp_err e = {0};
		int lrc = pp_scenario_load(&s, sp, cat, &e);
		free(sp);
		if (lrc) {
			skip(ev, r->config, &e);
			continue;
		}
		if ((lrc = pp_hwcal_init(&cal, &s, NULL, NULL, NULL, &e)) ||
		    (lrc = pp_hw_resolve(&hw, cat, &s.cluster, &cal, &e)) ||
		    (lrc = pp_predict(&s, &hw, NULL, &res, &e)) || !(res.step_time_s > 0)) {
			skip(ev, r->config, &e);
			pp_scenario_release(&s);
			continue;
		}
		pp_evrow *w = &ev->rows[ev->n++];
		memset(w, 0, sizeof(*w));
		snprintf(w->set, sizeof(w->set), "%s", set);
		snprintf(w->config, sizeof(w->config), "%s", r->config);
		snprintf(w->family, sizeof(w->family), "%s",
			 s.model.name[0] ? s.model.name : s.model.id[0] ? s.model.id : r->config);
		pp_evkey_of(&w->key, &s);
		w->predicted_s = res.step_time_s;
		w->measured_s = r->measured_s;
		w->x = log(r->measured_s / res.step_time_s);
		pp_scenario_release(&s);
	}
	pp_replayset_release(&v);
	return 0;
}

int pp_evidence_load(pp_evidence *ev, const pp_catalog *cat, pp_err *err)
{
	memset(ev, 0, sizeof(*ev));
	for (size_t i = 0; i < PP_ARRAY_LEN(sets); i++) {
		int rc = load_set(ev, cat, sets[i].set, sets[i].path, err);
		if (rc) {
			pp_evidence_release(ev);
			return rc;
		}
	}
	return 0;
}

void pp_evidence_release(pp_evidence *ev)
{
	free(ev->rows);
	memset(ev, 0, sizeof(*ev));
}

const pp_evidence *pp_evidence_shared(const pp_catalog *cat, pp_err *err)
{
	/* kept per catalog directory: a catalog freed and another loaded
	 * at the same address from elsewhere is not mistaken for it */
	static pp_evidence ev;
	static const pp_catalog *of;
	static char dir[4096];
	static bool loaded;
	if (loaded && of == cat && !strcmp(dir, pp_catalog_dir(cat)))
		return &ev;
	if (loaded)
		pp_evidence_release(&ev);
	loaded = false;
	if (pp_evidence_load(&ev, cat, err))
		return NULL;
	of = cat;
	snprintf(dir, sizeof(dir), "%s", pp_catalog_dir(cat));
	loaded = true;
	return &ev;
}

/* the rule of evidence.h over x[0..n), sorted */
static void interval_of(const double *x, int n, pp_band *b)
{
	if (n >= 9) {
		/* in integers: (1 - 0.8) / 2 x 20 is 1.9999... in doubles */
		int r = (n + 1) / 10;
		b->f_lo = exp(x[r - 1]);
		b->f_hi = exp(x[n - r]);
		b->coverage = (double)(n + 1 - 2 * r) / (n + 1);
		snprintf(b->method, sizeof(b->method), "order statistics %d and %d of %d", r, n + 1 - r,
			 n);
	} else {
		double m = gsl_stats_mean(x, 1, (size_t)n), sd = gsl_stats_sd_m(x, 1, (size_t)n, m);
		double t = gsl_cdf_tdist_Pinv(1 - (1 - LEVEL) / 2, n - 1);
		double h = t * sd * sqrt(1 + 1.0 / n);
		b->f_lo = exp(m - h);
		b->f_hi = exp(m + h);
		b->coverage = LEVEL;
		snprintf(b->method, sizeof(b->method), "t-based, %d degrees of freedom", n - 1);
	}
}

typedef struct near_row {
	double d;
	int i;
} near_row;

static int cmp_near(const void *a, const void *b)
{
	const near_row *x = a, *y = b;
	if (x->d != y->d)
		return x->d < y->d ? -1 : 1;
	return x->i - y->i;
}

void pp_evidence_band(const pp_evidence *ev, const pp_evkey *k, double predicted_s, int exclude,
		      const char *exclude_family, pp_band *b)
{
	memset(b, 0, sizeof(*b));
	b->predicted_s = predicted_s;
	near_row *nr = pp_xmalloc(sizeof(near_row) * (size_t)(ev->n + 1));
	double *x = pp_xmalloc(sizeof(double) * (size_t)(ev->n + 1));
	double *kind = pp_xmalloc(sizeof(double) * (size_t)(ev->n + 1));
	int nn = 0, pool = 0, nkind = 0;
	for (int i = 0; i < ev->n; i++) {
		if (i == exclude || (exclude_family && !strcmp(ev->rows[i].family, exclude_family)))
			continue;
		x[pool++] = ev->rows[i].x;
		if (ev->rows[i].key.moe == k->moe)
			kind[nkind++] = ev->rows[i].x;
		double d = pp_evkey_distance(k, &ev->rows[i].key);
		if (d <= NEAR_DISTANCE)
			nr[nn++] = (near_row){d, i};
	}
	b->pool = pool;
	if (nn >= MIN_NEAR) {
		qsort(nr, (size_t)nn, sizeof(*nr), cmp_near);
		for (int j = 0; j < nn; j++)
			x[j] = ev->rows[nr[j].i].x;
		b->near = true;
		b->n = nn;
		for (int j = 0; j < nn && j < PP_BAND_LISTED; j++)
			snprintf(b->rows[b->nlisted++], sizeof(b->rows[0]), "%s", ev->rows[nr[j].i].config);
	} else if (nkind >= MIN_NEAR) {
		memcpy(x, kind, sizeof(double) * (size_t)nkind);
		b->n = nkind;
		snprintf(b->kind, sizeof(b->kind), "%s", k->moe ? "MoE" : "dense");
	} else if (pool >= MIN_NEAR) {
		b->n = pool;
	} else {
		snprintf(b->why, sizeof(b->why), "fewer than %d validated runs", MIN_NEAR);
		goto out;
	}
	gsl_sort(x, 1, (size_t)b->n);
	interval_of(x, b->n, b);
	b->lo_s = predicted_s * b->f_lo;
	b->hi_s = predicted_s * b->f_hi;
	b->on = true;
out:
	free(nr);
	free(x);
	free(kind);
}

void pp_evidence_band_of(const pp_catalog *cat, const pp_scenario *s, double predicted_s,
			 pp_band *b)
{
	pp_err err = {0};
	const pp_evidence *ev = pp_evidence_shared(cat, &err);
	if (!ev) {
		memset(b, 0, sizeof(*b));
		snprintf(b->why, sizeof(b->why), "the validation sets: %s", err.msg);
		return;
	}
	pp_evkey k;
	pp_evkey_of(&k, s);
	pp_evidence_band(ev, &k, predicted_s, -1, NULL, b);
}

static double median(double *v, int n)
{
	if (!n)
		return NAN;
	gsl_sort(v, 1, (size_t)n);
	return gsl_stats_median_from_sorted_data(v, 1, (size_t)n);
}

/* one set's figures (set NULL: every row) */
static void cover(const pp_evidence *ev, const char *set, pp_evcov *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->set, sizeof(c->set), "%s", set ? set : "all");
	double *hw[4];
	for (int j = 0; j < 4; j++)
		hw[j] = pp_xmalloc(sizeof(double) * (size_t)(ev->n + 1));
	int nh[4] = {0};
	for (int i = 0; i < ev->n; i++) {
		const pp_evrow *r = &ev->rows[i];
		if (set && strcmp(r->set, set))
			continue;
		c->n++;
		for (int fam = 0; fam < 2; fam++) {
			pp_band b;
			pp_evidence_band(ev, &r->key, r->predicted_s, i, fam ? r->family : NULL, &b);
			if (!b.on)
				continue;
			bool in = r->measured_s >= b.lo_s && r->measured_s <= b.hi_s;
			double h = pp_band_half_width(&b);
			hw[2 * fam + 1][nh[2 * fam + 1]++] = h;
			if (b.near)
				hw[2 * fam][nh[2 * fam]++] = h;
			if (fam) {
				c->lofo_in += in;
				c->lofo_near += b.near;
			} else {
				c->loo_in += in;
				c->loo_near += b.near;
			}
		}
	}
	c->loo_med_hw_near = median(hw[0], nh[0]);
	c->loo_med_hw = median(hw[1], nh[1]);
	c->lofo_med_hw_near = median(hw[2], nh[2]);
	c->lofo_med_hw = median(hw[3], nh[3]);
	for (int j = 0; j < 4; j++)
		free(hw[j]);
}

int pp_evidence_coverage(const pp_evidence *ev, pp_evcov *out, int max)
{
	int n = 0;
	for (size_t i = 0; i < PP_ARRAY_LEN(sets) && n < max; i++)
		cover(ev, sets[i].set, &out[n++]);
	if (n < max)
		cover(ev, NULL, &out[n++]);
	return n;
}
