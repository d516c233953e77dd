/*
 * answer.c - the evidence of a search or size answer (answer.h).
 */
#include "plan/answer.h"
#include "calib/evidence.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void key_of(const pp_scenario *s, const pp_layout *l, pp_evkey *k)
{
	pp_evkey_of(k, s);
	k->tp = l->tp;
	k->pp = l->pp;
	k->dp = l->dp;
	k->cp = l->cp;
	k->ep = l->ep;
}

void pp_answer_of(const pp_catalog *cat, const pp_scenario *s, const pp_layout *l,
		  const pp_result *r, pp_answer *a)
{
	memset(a, 0, sizeof(*a));
	pp_err err = {0};
	const pp_evidence *ev = pp_evidence_shared(cat, &err);
	if (ev) {
		pp_evkey k;
		key_of(s, l, &k);
		pp_evidence_band(ev, &k, r->step_time_s, -1, NULL, &a->band);
	} else {
		snprintf(a->band.why, sizeof(a->band.why), "the validation sets: %s", err.msg);
	}
	a->best_mfu = NAN;
	a->step_at_best_s = NAN;
	const pp_best_mfu *b =
		s->cluster.gpu ? pp_catalog_best_mfu(cat, s->cluster.gpu->id, s->training.precision) : NULL;
	if (b && b->mfu > 0) {
		a->best_mfu = b->mfu;
		snprintf(a->best_what, sizeof(a->best_what), "%s", b->what);
		if (r->mfu > b->mfu) {
			a->above_best = true;
			a->step_at_best_s = r->step_time_s * r->mfu / b->mfu;
		}
	}
}

typedef struct ranked {
	double key;
	int i;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
	const ranked *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->i - y->i;
}

void pp_answer_rank_conservative(const pp_catalog *cat, const pp_scenario *s,
				 pp_search_result *r, pp_answer *ans)
{
	int n = r->nbest;
	if (n <= 0)
		return;
	pp_answer *a = pp_xmalloc(sizeof(*a) * (size_t)n);
	ranked *o = pp_xmalloc(sizeof(*o) * (size_t)n);
	for (int i = 0; i < n; i++) {
		pp_answer_of(cat, s, &r->best[i].layout, &r->best[i].result, &a[i]);
		o[i] = (ranked){pp_band_pessimistic(&a[i].band, r->best[i].result.step_time_s), i};
	}
	qsort(o, (size_t)n, sizeof(*o), cmp_ranked);
	pp_search_hit *h = pp_xmalloc(sizeof(*h) * (size_t)n);
	for (int i = 0; i < n; i++) {
		h[i] = r->best[o[i].i];
		if (ans)
			ans[i] = a[o[i].i];
	}
	memcpy(r->best, h, sizeof(*h) * (size_t)n);
	free(h);
	free(o);
	free(a);
}

bool pp_conservative_settled(const pp_catalog *cat, const pp_scenario *s,
			     const pp_search_result *r, int k)
{
	if (r->nbest < k || r->nbest >= r->feasible)
		return true; /* every layout that fits was searched */
	pp_err err = {0};
	const pp_evidence *ev = pp_evidence_shared(cat, &err);
	if (!ev)
		return true; /* no band: the order is the step time's */
	/* the smallest upper factor over every mix of TP, PP, DP, EP, CP on
	 * this cluster (the other keys are the cluster's and the model's) */
	double fmin = INFINITY;
	for (int m = 0; m < 32; m++) {
		pp_evkey key;
		pp_evkey_of(&key, s);
		key.tp = m & 1 ? 2 : 1;
		key.pp = m & 2 ? 2 : 1;
		key.dp = m & 4 ? 2 : 1;
		key.ep = m & 8 ? 2 : 1;
		key.cp = m & 16 ? 2 : 1;
		pp_band b;
		pp_evidence_band(ev, &key, 1.0, -1, NULL, &b);
		if (b.on)
			fmin = fmin < b.f_hi ? fmin : b.f_hi;
	}
	if (!isfinite(fmin))
		return true;
	double kth = 0, slowest = 0;
	for (int i = 0; i < r->nbest; i++)
		slowest = fmax(slowest, r->best[i].result.step_time_s);
	pp_answer a;
	const pp_search_hit *h = &r->best[k - 1];
	pp_answer_of(cat, s, &h->layout, &h->result, &a);
	kth = pp_band_pessimistic(&a.band, h->result.step_time_s);
	return kth <= slowest * fmin;
}
