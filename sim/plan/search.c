/* search.c - see search.h. */
#include "plan/search.h"
#include "core/dist.h"
#include "core/heap.h"
#include "engine/fastpath.h"
#include "engine/memory.h"
#include "engine/evgraph.h"
#include "input/prices.h"
#include "core/util.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A layout that fits, as the search keeps it. */
typedef struct feas {
	pp_layout l;
	uint32_t idx;              /* in enumeration order */
	int64_t quick;             /* pp_fp_bound_quick_ns (0 when exhaustive) */
	int64_t bound;             /* pp_fp_bound_ns; -1 until computed */
} feas;

/* A heap entry: the key, ties broken by enumeration index; f indexes the
 * feasible list. */
typedef struct hent {
	int64_t key;
	uint32_t idx, f;
} hent;

typedef struct best {
	int64_t step, bound;
	uint32_t idx, pad;
	pp_layout l;
} best;

/* The frontier's order: the key, then the enumeration index (unique, so
 * the order is total and core/heap.h's order of equal elements is moot). */
static bool hless(const void *pa, const void *pb, void *ctx)
{
	const hent *a = pa, *b = pb;
	(void)ctx;
	return a->key < b->key || (a->key == b->key && a->idx < b->idx);
}

static bool best_less(const best *a, const best *b)
{
	return a->step < b->step || (a->step == b->step && a->idx < b->idx);
}

static int cmp_best(const void *a, const void *b)
{
	const best *x = a, *y = b;
	return best_less(x, y) ? -1 : best_less(y, x) ? 1 : 0;
}

/* Keep the k smallest, sorted. */
static void top_insert(best *top, int *n, int k, best b)
{
	if (*n == k && !best_less(&b, &top[k - 1]))
		return;
	int i = *n < k ? (*n)++ : k - 1;
	while (i > 0 && best_less(&b, &top[i - 1])) {
		top[i] = top[i - 1];
		i--;
	}
	top[i] = b;
}

static int64_t des_step(const pp_scenario *s, const pp_hw *hw, const pp_workload *w, pp_des *d,
			pp_err *err)
{
	pp_stage_busy *busy = pp_xcalloc((size_t)s->parallel.pp, sizeof(pp_stage_busy));
	pp_sched_opts o = {false, false, false};
	pp_evgraph_build(d, s, hw, w, &o, busy);
	int64_t t = pp_des_run(d, err) ? -1 : pp_des_makespan(d);
	free(busy);
	return t;
}

static void progress(const pp_search_opts *o, int phase, int64_t done, int64_t total,
		     int64_t sims, int64_t to_sim, double t0)
{
	if (!o->progress)
		return;
	pp_search_progress p = {phase, done, total, sims, to_sim, pp_mono_s() - t0};
	o->progress(&p, o->progress_ctx);
}

/* Pruning by monotonicity: within one (TP, CP, PP, DP), layouts come in
 * ascending micro-batch size, and the memory a layout needs grows with
 * it, the rest fixed (memory.h: activations, the logits and the
 * recompute buffer scale with the micro-batch, the in-flight count times
 * the micro-batch never falls; tests/test_search.c checks it on every
 * layout of its spaces). A (interleave, SP, ZeRO, recompute, EP) that
 * missed the capacity at one size misses it at every larger one: those
 * are counted as not fitting without a workload or a memory estimate. The
 * margin keeps rounding at the capacity's edge out of it. */
#define MISS_SLOTS 1024
#define MISS_MARGIN 1e-9

/* The streamed evaluation: every candidate of this rank through the
 * workload cache and the memory estimate, the ones that fit kept with
 * their quick bound. */
typedef struct walk {
	const pp_scenario *s;
	const pp_hw *hw;
	const pp_search_opts *o;
	pp_scenario x;
	pp_fp_cache *cache;
	int R;
	pp_dist_slots *slots;      /* R > 1: slot 0 hands out groups */
	int64_t gidx, mine;        /* the current group's index; the group this rank has */
	feas *fe;
	size_t nfe, cap;
	int64_t nofit, seen;
	int group[4];              /* TP, CP, PP, DP of the misses below */
	uint32_t gen;              /* misses of earlier groups are stale */
	struct {
		uint64_t key;
		uint32_t gen;
	} miss[MISS_SLOTS];
	double t0;
} walk;

static uint64_t miss_key(const pp_layout *l)
{
	return (uint64_t)l->schedule << 56 | (uint64_t)l->vpp << 48 | (uint64_t)l->sp << 40 |
	       (uint64_t)l->zero_stage << 32 |
	       (uint64_t)l->recompute << 24 | (uint64_t)(uint32_t)l->ep;
}

static bool miss_has(const walk *k, uint64_t key)
{
	size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 54);
	for (; k->miss[i].gen == k->gen; i = (i + 1) % MISS_SLOTS)
		if (k->miss[i].key == key)
			return true;
	return false;
}

static void miss_add(walk *k, uint64_t key)
{
	size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 54), n = 0;
	for (; k->miss[i].gen == k->gen; i = (i + 1) % MISS_SLOTS)
		if (++n == MISS_SLOTS / 2)
			return; /* full enough: prune no further in this group */
	k->miss[i].key = key;
	k->miss[i].gen = k->gen;
}

static void visit(void *ctx, const pp_layout *l, uint32_t idx)
{
	walk *k = ctx;
	if (l->tp != k->group[0] || l->cp != k->group[1] || l->pp != k->group[2] ||
	    l->dp != k->group[3]) {
		k->gen++;
		k->gidx++;
		k->group[0] = l->tp;
		k->group[1] = l->cp;
		k->group[2] = l->pp;
		k->group[3] = l->dp;
	}
	/* under MPI the groups (each TP x CP x PP x DP) are handed out one at
	 * a time, to whichever rank asks first: the counter's values rise, so
	 * one pass over the enumeration meets every group a rank is given */
	if (k->R > 1) {
		while (k->mine < k->gidx)
			k->mine = pp_dist_slot_add(k->slots, 0, 1);
		if (k->mine != k->gidx)
			return;
	}
	uint64_t key = miss_key(l);
	if (miss_has(k, key)) {
		k->nofit++;
	} else {
		pp_layout_apply(&k->x, l);
		pp_workload w;
		pp_fp_workload(k->cache, &k->x, k->hw, &w);
		pp_memory mem;
		pp_memory_estimate(&k->x, k->hw, &w, &mem);
		/* the headroom kept free for the caching allocator (search.h) */
		double usable = mem.capacity_bytes * (1 - k->o->headroom);
		if (!(mem.total_bytes <= usable)) {
			k->nofit++;
			if (mem.total_bytes > usable * (1 + MISS_MARGIN))
				miss_add(k, key);
		} else {
			if (k->nfe == k->cap) {
				k->cap = k->cap ? 2 * k->cap : 1024;
				k->fe = pp_xrealloc(k->fe, sizeof(feas) * k->cap);
			}
			feas *f = &k->fe[k->nfe++];
			f->l = *l;
			f->idx = idx;
			f->quick = k->o->exhaustive ? 0 : pp_fp_bound_quick_cached_ns(k->cache, &k->x,
											 k->hw);
			f->bound = -1;
		}
	}
	if ((++k->seen & 4095) == 0)
		progress(k->o, 0, k->seen, 0, 0, 0, k->t0);
}

struct pp_search_fit {
	bool filled;
	size_t n;                  /* candidates enumerated */
	int64_t nofit;
	feas *fe;                  /* those that fit, in enumeration order (no bounds) */
	size_t nfe;
	char space[640];
};

pp_search_fit *pp_search_fit_new(void)
{
	return pp_xcalloc(1, sizeof(pp_search_fit));
}

void pp_search_fit_free(pp_search_fit *f)
{
	if (!f)
		return;
	free(f->fe);
	free(f);
}

/* The walk's list from a kept fit: the same candidates, in the same order,
 * with this cluster's quick bounds (they read its links). */
static void walk_from_fit(walk *k, const pp_search_fit *f)
{
	k->nfe = k->cap = f->nfe;
	k->fe = pp_xmalloc(sizeof(feas) * (f->nfe ? f->nfe : 1));
	memcpy(k->fe, f->fe, sizeof(feas) * f->nfe);
	k->nofit = f->nofit;
	k->seen = (int64_t)f->n;
	for (size_t i = 0; i < k->nfe; i++) {
		feas *c = &k->fe[i];
		c->bound = -1;
		c->quick = 0;
		if (k->o->exhaustive)
			continue;
		pp_layout_apply(&k->x, &c->l);
		c->quick = pp_fp_bound_quick_cached_ns(k->cache, &k->x, k->hw);
	}
}

static void fit_keep(pp_search_fit *f, const walk *k, size_t n, const char *space)
{
	f->filled = true;
	f->n = n;
	f->nofit = k->nofit;
	f->nfe = k->nfe;
	f->fe = pp_xmalloc(sizeof(feas) * (k->nfe ? k->nfe : 1));
	if (k->nfe) /* none fits: k->fe may be NULL, which memcpy may not be given */
		memcpy(f->fe, k->fe, sizeof(feas) * k->nfe);
	snprintf(f->space, sizeof(f->space), "%s", space);
}

/* The simulation of candidate c: its step, INT64_MAX when the fast path
 * finds it longer than thr (the k-th best so far: it cannot enter the
 * top k, and its walk stops there), or -1 with err set. */
static int64_t simulate(const pp_scenario *s, const pp_hw *hw, walk *wk, pp_scenario *x,
			pp_des *des, const feas *c, int64_t thr, pp_err *err)
{
	pp_layout_apply(x, &c->l);
	pp_workload w;
	pp_fp_workload(wk->cache, x, hw, &w);
	int64_t step = des ? des_step(x, hw, &w, des, err) : pp_fp_step_within_ns(x, hw, &w, thr);
	if (step < 0 && !des)
		pp_errf(err, PP_EINTERNAL, "%s: the fast path stalled on layout #%u", s->name, c->idx);
	return step;
}

static int64_t full_bound(const pp_hw *hw, walk *wk, pp_scenario *x, const feas *c)
{
	pp_layout_apply(x, &c->l);
	pp_workload w;
	pp_fp_workload(wk->cache, x, hw, &w);
	return pp_fp_bound_ns(x, hw, &w);
}

/* The tighter bound of c (fastpath.h): a layout whose bound is under the
 * k-th best but this one is not cannot enter the top k; it is counted as
 * simulated (the count is the bound's) and not run. */
static int64_t tight_bound(const pp_hw *hw, walk *wk, pp_scenario *x, const feas *c)
{
	pp_layout_apply(x, &c->l);
	pp_workload w;
	pp_fp_workload(wk->cache, x, hw, &w);
	return pp_fp_bound_tight_ns(x, hw, &w);
}

/* One rank: best first. The candidate of the smallest bound is simulated
 * once its full bound is known and no quick bound of one not yet bounded
 * is below it (a quick bound is below the full one); it stops when both
 * are above the k-th best simulated step: none left can enter the top k
 * (ties included). */
static int best_first(const pp_scenario *s, const pp_hw *hw, const pp_search_opts *o, walk *wk,
		      pp_des *des, best *top, int *ntop, int64_t *sims, pp_err *err)
{
	int k = o->top_k < 1 ? 1 : o->top_k;
	bool ex = o->exhaustive;
	size_t nfe = wk->nfe;
	/* hq: by quick bound, every feasible layout; hb: by full bound, those
	 * popped from hq (each layout passes through both at most once) */
	pp_heap hq, hb;
	pp_heap_init(&hq, sizeof(hent));
	pp_heap_init(&hb, sizeof(hent));
	pp_heap_reserve(&hb, nfe);
	hent *all = pp_xmalloc(sizeof(hent) * (nfe + 1));
	for (size_t i = 0; i < nfe; i++)
		all[i] = (hent){wk->fe[i].quick, wk->fe[i].idx, (uint32_t)i};
	pp_heap_build(&hq, all, nfe, sizeof(hent), hless, NULL);
	free(all);
	pp_scenario x = *s;
	int rc = 0;
	for (;;) {
		int64_t thr = *ntop == k ? top[k - 1].step : INT64_MAX;
		const hent *qt = pp_heap_top(&hq), *bt = pp_heap_top(&hb);
		bool sim = bt && (!qt || bt->key <= qt->key);
		if ((!sim && !qt) || (!ex && (sim ? bt->key : qt->key) > thr))
			break;
		hent e;
		pp_heap_pop(sim ? &hb : &hq, &e, sizeof(e), hless, NULL);
		feas *c = &wk->fe[e.f];
		if (!sim) {
			c->bound = ex ? 0 : full_bound(hw, wk, &x, c);
			pp_heap_push(&hb, &(hent){c->bound, c->idx, e.f}, sizeof(hent), hless, NULL);
			continue;
		}
		if (!ex && tight_bound(hw, wk, &x, c) > thr)
			continue; /* cannot enter the top k (thr only falls) */
		int64_t step = simulate(s, hw, wk, &x, des, c, ex ? INT64_MAX : thr, err);
		if (step < 0) {
			rc = PP_EINTERNAL;
			break;
		}
		top_insert(top, ntop, k, (best){step, c->bound, c->idx, 0, c->l});
		++*sims;
		int64_t left = (int64_t)(pp_heap_len(&hq) + pp_heap_len(&hb));
		progress(o, 1, *sims, (int64_t)nfe, *sims, left, wk->t0);
	}
	pp_heap_release(&hq);
	pp_heap_release(&hb);
	return rc;
}

/* The simulation work of an exhaustive search, for the order of a
 * self-scheduled list: units (stages x chunks x micro-batches), a layer
 * task each under ZeRO-3. */
static double work_of(const pp_scenario *s, const pp_layout *l)
{
	double m = (double)s->training.global_batch_size / ((double)l->dp * l->micro_batch_size);
	double per = l->zero_stage == 3 ? (double)s->model.num_layers / ((double)l->pp * l->vpp) : 1;
	return m * l->pp * l->vpp * (1 + per);
}

static const pp_scenario *work_scenario;

static int cmp_work(const void *a, const void *b)
{
	const feas *x = a, *y = b;
	double u = work_of(work_scenario, &x->l), v = work_of(work_scenario, &y->l);
	if (u != v)
		return u > v ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_quick(const void *a, const void *b)
{
	const feas *x = a, *y = b;
	if (x->quick != y->quick)
		return x->quick < y->quick ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Several ranks: every rank holds the same list of the candidates that
 * fit, in order of their quick bound (exhaustive: the most work first, so
 * the last ones handed out are short), and takes the next one from a
 * shared counter (slot 1) whenever it is free, with no rounds and no rank
 * waiting on another. Each rank publishes its k-th best step (slot 2 + r);
 * the smallest of those, never below the k-th best over all, is the
 * threshold: a candidate whose bound exceeds it is not simulated, and the
 * first whose quick bound does ends the rank's share (every later one's
 * is larger). So every candidate whose full bound is under the final k-th
 * best is simulated, as serially. */
static int self_scheduled(const pp_scenario *s, const pp_hw *hw, const pp_search_opts *o,
			  walk *wk, pp_des *des, best *top, int *ntop, int64_t *sims, int r, int R,
			  pp_err *err)
{
	int k = o->top_k < 1 ? 1 : o->top_k;
	bool ex = o->exhaustive;
	work_scenario = s;
	qsort(wk->fe, wk->nfe, sizeof(feas), ex ? cmp_work : cmp_quick);
	for (size_t i = 0; i < wk->nfe; i++)
		wk->fe[i].bound = -1;
	int64_t *tau = pp_xmalloc(sizeof(int64_t) * (size_t)R);
	pp_scenario x = *s;
	int rc = 0;
	for (;;) {
		int64_t j = pp_dist_slot_add(wk->slots, 1, 1);
		if (j >= (int64_t)wk->nfe)
			break;
		feas *c = &wk->fe[j];
		int64_t thr = INT64_MAX;
		if (!ex) {
			pp_dist_slot_get(wk->slots, 2, R, tau);
			for (int i = 0; i < R; i++)
				if (tau[i] > 0 && tau[i] < thr)
					thr = tau[i];
			if (c->quick > thr)
				break;
		}
		c->bound = ex ? 0 : full_bound(hw, wk, &x, c);
		if (c->bound > thr || (!ex && tight_bound(hw, wk, &x, c) > thr))
			continue;
		int64_t step = simulate(s, hw, wk, &x, des, c, ex ? INT64_MAX : thr, err);
		if (step < 0) {
			rc = PP_EINTERNAL;
			break;
		}
		bool was = *ntop == k;
		int64_t before = was ? top[k - 1].step : 0;
		top_insert(top, ntop, k, (best){step, c->bound, c->idx, 0, c->l});
		++*sims;
		if (!ex && *ntop == k && (!was || top[k - 1].step < before))
			pp_dist_slot_set(wk->slots, 2 + r, top[k - 1].step);
		progress(o, 1, *sims, (int64_t)wk->nfe, *sims, (int64_t)wk->nfe - j, wk->t0);
	}
	free(tau);
	return rc;
}

static int search_once(const pp_scenario *s, const pp_hw *hw, const pp_search_opts *o,
		       pp_search_result *out, pp_err *err)
{
	int R = o->local ? 1 : pp_dist_size(), r = o->local ? 0 : pp_dist_rank();
	int k = o->top_k < 1 ? 1 : o->top_k;
	int rc = 0;
	bool ex = o->exhaustive;
	walk *wk = pp_xcalloc(1, sizeof(*wk));
	wk->s = s;
	wk->hw = hw;
	wk->o = o;
	wk->x = *s;
	pp_search_fit *fit = R == 1 ? o->fit : NULL;
	wk->cache = o->cache ? o->cache : pp_fp_cache_new();
	if (o->cache)
		pp_fp_cache_forget_bounds(wk->cache);
	int builds0 = pp_fp_cache_builds(wk->cache);
	wk->R = R;
	wk->slots = R > 1 ? pp_dist_slots_new(2 + R) : NULL;
	wk->gidx = -1;
	wk->mine = -1;
	wk->gen = 1;
	wk->t0 = pp_mono_s();
	size_t n = 0;
	best *top = pp_xmalloc(sizeof(best) * (size_t)k);
	pp_des *des = o->des ? pp_des_new() : NULL;
	if (fit && fit->filled) {
		n = fit->n;
		snprintf(out->space, sizeof(out->space), "%s", fit->space);
		walk_from_fit(wk, fit);
	} else {
		if ((rc = pp_space_walk(s, visit, wk, &n, out->space, sizeof(out->space), err)))
			goto out;
		if (fit)
			fit_keep(fit, wk, n, out->space);
	}

	size_t nfe = wk->nfe;
	int ntop = 0;
	int64_t sims = 0, under = 0;
	if (R == 1) {
		rc = best_first(s, hw, o, wk, des, top, &ntop, &sims, err);
	} else {
		/* every rank's candidates that fit, in one list on every rank */
		void *g;
		size_t bytes;
		pp_dist_allgatherv(wk->fe, sizeof(feas) * wk->nfe, &g, &bytes);
		free(wk->fe);
		wk->fe = g;
		wk->nfe = wk->cap = nfe = bytes / sizeof(feas);
		rc = self_scheduled(s, hw, o, wk, des, top, &ntop, &sims, r, R, err);
	}
	/* every rank takes part in what follows, a failed one too */
	if (R > 1) {
		double f = rc ? -1 : 0;
		pp_dist_allreduce_min(&f, 1);
		if (f < 0 && !rc)
			rc = pp_errf(err, PP_EINTERNAL, "%s: a simulation failed on another rank",
				     s->name);
	}
	if (rc)
		goto out;

	/* gather every rank's top k on rank 0, merge, and give it to all */
	best *all = pp_xmalloc(sizeof(best) * (size_t)k * (size_t)R);
	best *mine_k = pp_xcalloc((size_t)k, sizeof(best));
	for (int i = 0; i < k; i++)
		mine_k[i] = i < ntop ? top[i] : (best){INT64_MAX, INT64_MAX, UINT32_MAX, 0, {0}};
	if (R > 1) {
		pp_dist_gather(mine_k, sizeof(best) * (size_t)k, r == 0 ? all : NULL);
		if (r == 0)
			qsort(all, (size_t)k * (size_t)R, sizeof(best), cmp_best);
		pp_dist_bcast(all, sizeof(best) * (size_t)k);
	} else {
		memcpy(all, mine_k, sizeof(best) * (size_t)k);
	}
	int nbest = 0;
	while (nbest < k && all[nbest].step != INT64_MAX)
		nbest++;
	/* simulated: the layouts whose bound is not above the k-th best (what
	 * a serial run simulates); one not bounded has a quick bound above it */
	int64_t gk = nbest == k ? all[k - 1].step : INT64_MAX;
	for (size_t i = 0; i < nfe; i++)
		under += ex ? R == 1 || wk->fe[i].bound >= 0
			    : wk->fe[i].bound >= 0 && wk->fe[i].bound <= gk;
	/* the feasible list is every rank's under MPI: count it once */
	double cnt[5] = {(double)wk->nofit, R > 1 && r > 0 ? 0 : (double)nfe, (double)under,
			 (double)sims, (double)(pp_fp_cache_builds(wk->cache) - builds0)};
	if (R > 1)
		pp_dist_allreduce_sum(cnt, 5);
	out->evaluated = (int64_t)n;
	out->no_fit = (int64_t)cnt[0];
	out->feasible = (int64_t)cnt[1];
	out->simulated = (int64_t)cnt[2];
	out->bounded = out->feasible - out->simulated;
	out->sims_run = (int64_t)cnt[3];
	out->workloads_built = (int)cnt[4];
	out->ranks = R;
	out->nbest = nbest;
	out->best = pp_xcalloc((size_t)(nbest ? nbest : 1), sizeof(pp_search_hit));
	for (int i = 0; i < nbest; i++) {
		out->best[i].layout = all[i].l;
		out->best[i].index = all[i].idx;
		out->best[i].step_ns = all[i].step;
		out->best[i].bound_ns = all[i].bound;
	}
	free(all);
	free(mine_k);
out:
	free(top);
	free(wk->fe);
	pp_dist_slots_free(wk->slots);
	pp_des_free(des);
	if (!o->cache)
		pp_fp_cache_free(wk->cache);
	free(wk);
	return rc;
}

/* pp_predict() of every hit; hit i on rank i mod R, then shared. */
static int predict_best(const pp_scenario *s, const pp_hw *hw, bool local, pp_search_result *out,
			pp_err *err)
{
	int R = local ? 1 : pp_dist_size(), r = local ? 0 : pp_dist_rank(), k = out->nbest, rc = 0;
	if (!k)
		return 0;
	pp_result *mine = pp_xcalloc((size_t)k, sizeof(pp_result));
	double failed = 0;
	pp_scenario x = *s;
	for (int i = r; i < k; i += R) {
		pp_layout_apply(&x, &out->best[i].layout);
		if ((rc = pp_predict(&x, hw, NULL, &mine[i], err))) {
			failed = 1;
			break;
		}
	}
	if (R > 1) {
		/* every rank must take part before any can give up */
		double f = -failed;
		pp_dist_allreduce_min(&f, 1);
		if (f < 0) {
			if (!rc)
				rc = pp_errf(err, PP_EINTERNAL, "%s: a prediction failed on another rank",
					     s->name);
			free(mine);
			return rc;
		}
		pp_result *all = r == 0 ? pp_xmalloc(sizeof(pp_result) * (size_t)k * (size_t)R) : NULL;
		pp_dist_gather(mine, sizeof(pp_result) * (size_t)k, all);
		if (r == 0)
			for (int i = 0; i < k; i++)
				mine[i] = all[(size_t)(i % R) * (size_t)k + (size_t)i];
		free(all);
		pp_dist_bcast(mine, sizeof(pp_result) * (size_t)k);
	}
	if (!rc)
		for (int i = 0; i < k; i++)
			out->best[i].result = mine[i];
	free(mine);
	return rc;
}

int pp_search_run(const pp_scenario *s, const pp_hw *hw, const pp_search_opts *o,
		  pp_search_result *out, pp_err *err)
{
	double t0 = pp_mono_s();
	memset(out, 0, sizeof(*out));
	int rc = 0;
	pp_search_opts oo = *o;
	for (int attempt = 0; attempt < 2; attempt++) {
		if ((rc = search_once(s, hw, &oo, out, err)))
			goto out;
		/* the winners through the full engine (breakdown, memory, MFU),
		 * dealt out to the ranks and shared */
		if ((rc = predict_best(s, hw, o->local, out, err)))
			goto out;
		bool agree = true;
		for (int i = 0; i < out->nbest; i++) {
			pp_search_hit *h = &out->best[i];
			if (llround(h->result.step_time_s * 1e9) != h->step_ns)
				agree = false;
			h->usd_per_million_tokens = NAN;
			if (o->usd_per_gpu_hour > 0)
				h->usd_per_million_tokens =
					pp_price_rent_usd(o->usd_per_gpu_hour, s->cluster.num_gpus,
							  h->result.step_time_s) /
					h->result.tokens_per_step * 1e6;
		}
		if (agree || oo.des)
			break;
		/* the fast path and the event simulation disagree (a bug): redo
		 * it with the event simulation */
		out->fell_back = true;
		free(out->best);
		out->best = NULL;
		oo.des = true;
	}
	out->elapsed_s = pp_mono_s() - t0;
out:
	return rc;
}

void pp_search_result_release(pp_search_result *r)
{
	if (!r)
		return;
	free(r->best);
	memset(r, 0, sizeof(*r));
}
