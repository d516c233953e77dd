/* search.c - see search.h. */
#include "plan/search.h"
#include "core/dist.h"
#include "engine/fastpath.h"
#include "engine/memory.h"
#include "engine/evgraph.h"
#include "input/prices.h"
#include "core/util.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VALS 2048          /* divisors: at most 1,344 below 1e9 */
#define MAX_CANDIDATES 50000000 /* ~2 GB of layouts: ask for fixed keys beyond */

/* ---- the space ---- */

typedef struct vals {
	int64_t v[MAX_VALS];
	int n;
} vals;

static void vadd(vals *s, int64_t x)
{
	for (int i = 0; i < s->n; i++)
		if (s->v[i] == x)
			return;
	if (s->n < MAX_VALS)
		s->v[s->n++] = x;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Divisors of n in ascending order (at most MAX_VALS). */
static void divisors(int64_t n, vals *out)
{
	out->n = 0;
	vals hi = {.n = 0};
	for (int64_t d = 1; d * d <= n; d++) {
		if (n % d)
			continue;
		vadd(out, d);
		if (d != n / d)
			vadd(&hi, n / d);
	}
	for (int i = hi.n - 1; i >= 0; i--)
		vadd(out, hi.v[i]);
}

static void describe_vals(pp_sb *sb, const char *name, vals *s, bool fixed)
{
	qsort(s->v, (size_t)s->n, sizeof(int64_t), cmp_i64);
	pp_sb_addf(sb, "%s%s ", sb->len ? ", " : "", name);
	if (s->n == 1) {
		pp_sb_addf(sb, "%lld%s", (long long)s->v[0], fixed ? " (given)" : "");
		return;
	}
	pp_sb_adds(sb, "{");
	for (int i = 0; i < s->n; i++) {
		if (s->n > 12 && i == 6) {
			pp_sb_addf(sb, ",...(%d more)...", s->n - 9);
			i = s->n - 3;
		}
		pp_sb_addf(sb, "%s%lld", i ? "," : "", (long long)s->v[i]);
	}
	pp_sb_adds(sb, "}");
}

/* The enumeration: each valid layout goes to emit(ctx, layout, its
 * index in enumeration order) as it is found, none is kept. */
typedef void (*emit_fn)(void *ctx, const pp_layout *l, uint32_t idx);

typedef struct gen {
	emit_fn emit;
	void *ctx;
	size_t n;
	vals tp, pp, dp, cp, vpp, mbs, zero, sp, rc;
	bool overflow;
} gen;

static void push(gen *g, const pp_layout *l)
{
	if (g->n == MAX_CANDIDATES) {
		g->overflow = true;
		return;
	}
	uint32_t idx = (uint32_t)g->n++;
	g->emit(g->ctx, l, idx);
	vadd(&g->tp, l->tp);
	vadd(&g->pp, l->pp);
	vadd(&g->dp, l->dp);
	vadd(&g->cp, l->cp);
	vadd(&g->vpp, l->vpp);
	vadd(&g->mbs, l->micro_batch_size);
	vadd(&g->zero, l->zero_stage);
	vadd(&g->sp, l->sp);
	vadd(&g->rc, l->recompute);
}

/* The recompute modes to search: the given one, else none, selective
 * (not with flash attention, where it keeps what none keeps - Megatron-LM
 * 2022's core recompute has nothing to redo, Megatron-Core's redoes the
 * kernel for no memory - unless the stack's selective is TorchTitan's op
 * policy, which keeps less) and full. */
static int recompute_options(const pp_scenario *s, pp_recompute rcs[3])
{
	int nrc = 0;
	if (s->given & PP_GIVEN_RECOMPUTE) {
		rcs[nrc++] = s->training.recompute;
	} else {
		rcs[nrc++] = PP_RC_NONE;
		if (!s->training.use_flash_attn || s->training.stack.sac == PP_SAC_TORCHTITAN_OP)
			rcs[nrc++] = PP_RC_SELECTIVE;
		rcs[nrc++] = PP_RC_FULL;
	}
	return nrc;
}

/* The interleaving depths to search for pp stages and mb micro-batches
 * (into vv[66]): the given one, else 1 and every depth v <= 64 with the
 * layers dividing into pp x v chunks, as the schedule allows. */
static int interleave_options(const pp_scenario *s, int pp, int64_t mb, int *vv)
{
	unsigned given = s->given;
	int nv = 0;
	if (given & PP_GIVEN_VPP) {
		vv[nv++] = s->parallel.vpp;
		return nv;
	}
	bool sched = given & PP_GIVEN_SCHEDULE;
	if (!sched || s->parallel.schedule != PP_SCHED_INTERLEAVED)
		vv[nv++] = 1;
	if (!sched || s->parallel.schedule == PP_SCHED_INTERLEAVED)
		for (int v = 2; v <= 64 && pp > 1; v++)
			if (s->model.num_layers % (pp * v) == 0 && mb % pp == 0)
				vv[nv++] = v;
	return nv;
}

/* Every valid layout of TP tp x CP cp x PP pp x DP dp: micro-batch,
 * interleaving, SP, ZeRO stage and recompute, in enumeration order. */
static void add_layouts(gen *g, const pp_scenario *s, int tp, int cp, int pp, int dp,
			const pp_recompute *rcs, int nrc)
{
	const pp_training *tr = &s->training;
	unsigned given = s->given;
	int64_t gbs = tr->global_batch_size;
	pp_training t = *tr;
	/* expert parallelism: the given size, or every divisor of the expert
	 * count whose expert grid (etp x ep) the stage's ranks hold */
	int eps[64], neps = 0;
	int ranks = tp * cp * dp, etp = s->parallel.etp > 0 ? s->parallel.etp : tp;
	if (s->model.num_experts <= 0)
		eps[neps++] = 1;
	else if (given & PP_GIVEN_EP)
		eps[neps++] = s->parallel.ep;
	else
		for (int e = 1; e <= s->model.num_experts && neps < 64; e++)
			if (s->model.num_experts % e == 0 && ranks % (etp * e) == 0)
				eps[neps++] = e;
	vals mbss;
	if (given & PP_GIVEN_MBS) {
		mbss.n = 1;
		mbss.v[0] = tr->micro_batch_size;
	} else {
		divisors(gbs / dp, &mbss);
	}
	for (int d = 0; d < mbss.n; d++) {
		int64_t mbs = mbss.v[d];
		if (gbs % (mbs * dp))
			continue;
		int vv[66];
		int nv = interleave_options(s, pp, gbs / (mbs * dp), vv);
		for (int e = 0; e < nv; e++) {
			int nsp = (given & PP_GIVEN_SP) || tp == 1 ? 1 : 2;
			for (int f = 0; f < nsp; f++) {
				bool sp = given & PP_GIVEN_SP ? s->parallel.sequence_parallel
							      : f == 1;
				int z0 = 0, z1 = (int64_t)dp * cp > 1 ? 3 : 0;
				if (given & PP_GIVEN_ZERO)
					z0 = z1 = s->parallel.zero_stage;
				for (int z = z0; z <= z1; z++) {
					for (int r = 0; r < nrc * neps; r++) {
						pp_layout l = {tp,      pp, dp, cp,
							       vv[e],   z,  sp, PP_SCHED_1F1B,
							       rcs[r / neps], mbs, eps[r % neps]};
						if (vv[e] > 1)
							l.schedule = PP_SCHED_INTERLEAVED;
						else if (given & PP_GIVEN_SCHEDULE)
							l.schedule = s->parallel.schedule;
						pp_parallel p = s->parallel;
						p.tp = tp;
						p.pp = pp;
						p.dp = dp;
						p.cp = cp;
						p.vpp = l.vpp;
						p.schedule = l.schedule;
						p.ep = l.ep;
						p.zero_stage = z;
						p.sequence_parallel = sp;
						t.micro_batch_size = mbs;
						const char *key;
						char why[8];
						if (pp_layout_check(&s->model, &t, &p, &s->cluster,
								    &key, why, sizeof(why)))
							continue;
						push(g, &l);
					}
				}
			}
		}
	}
}

/* The space g enumerated, in words, into space[nspace]. */
static void describe_space(gen *g, unsigned given, char *space, size_t nspace)
{
	pp_sb sb = {0};
	describe_vals(&sb, "TP", &g->tp, given & PP_GIVEN_TP);
	describe_vals(&sb, "PP", &g->pp, given & PP_GIVEN_PP);
	describe_vals(&sb, "DP", &g->dp, given & PP_GIVEN_DP);
	describe_vals(&sb, "CP", &g->cp, given & PP_GIVEN_CP);
	describe_vals(&sb, "interleave", &g->vpp, given & PP_GIVEN_VPP);
	describe_vals(&sb, "micro-batch", &g->mbs, given & PP_GIVEN_MBS);
	describe_vals(&sb, "ZeRO", &g->zero, given & PP_GIVEN_ZERO);
	pp_sb_addf(&sb, ", SP %s%s", g->sp.n == 2 ? "{off,on}" : g->sp.v[0] ? "on" : "off",
		   given & PP_GIVEN_SP ? " (given)" : "");
	pp_sb_adds(&sb, ", recompute ");
	pp_sb_adds(&sb, g->rc.n > 1 ? "{" : "");
	for (int i = 0, first = 1; i < 3; i++)
		for (int j = 0; j < g->rc.n; j++)
			if (g->rc.v[j] == i) {
				pp_sb_addf(&sb, "%s%s", first ? "" : ",", pp_recompute_names[i]);
				first = 0;
			}
	pp_sb_adds(&sb, g->rc.n > 1 ? "}" : given & PP_GIVEN_RECOMPUTE ? " (given)" : "");
	snprintf(space, nspace, "%s", sb.buf);
	pp_sb_release(&sb);
}

/* Every valid layout of s's space to emit, in enumeration order; *nout
 * gets the count and space[nspace] the space in words. */
static int enumerate(const pp_scenario *s, emit_fn emit, void *ctx, size_t *nout, char *space,
		     size_t nspace, pp_err *err)
{
	const pp_model *m = &s->model;
	unsigned given = s->given;
	int64_t N = s->cluster.num_gpus, gbs = s->training.global_batch_size;
	/* about 200 KB of value lists: fine on the stack */
	gen g;
	memset(&g, 0, sizeof(g));
	g.emit = emit;
	g.ctx = ctx;
	vals tps, cps, pps;
	divisors(N, &tps);
	divisors(N, &cps);
	divisors(N, &pps);
	pp_recompute rcs[3];
	int nrc = recompute_options(s, rcs);
	int64_t near_lo = 0, near_hi = 0; /* the nearest batches some layout takes */
	for (int a = 0; a < tps.n; a++) {
		int tp = (int)tps.v[a];
		if (given & PP_GIVEN_TP ? tp != s->parallel.tp
					: m->num_attention_heads % tp || m->ffn_hidden_size % tp ||
						  (m->num_query_groups % tp && tp % m->num_query_groups))
			continue;
		for (int b = 0; b < cps.n; b++) {
			int cp = (int)cps.v[b];
			if (given & PP_GIVEN_CP ? cp != s->parallel.cp
						: cp > 1 && m->seq_length % (2 * cp))
				continue;
			if (N % ((int64_t)tp * cp))
				continue;
			for (int c = 0; c < pps.n; c++) {
				int pp = (int)pps.v[c];
				if (given & PP_GIVEN_PP ? pp != s->parallel.pp : pp > m->num_layers)
					continue;
				if (N % ((int64_t)tp * cp * pp))
					continue;
				int dp = (int)(N / ((int64_t)tp * cp * pp));
				if ((given & PP_GIVEN_DP) && dp != s->parallel.dp)
					continue;
				if (gbs % dp) {
					/* the batches this data-parallel size would take */
					if (gbs > dp && gbs / dp * dp > near_lo)
						near_lo = gbs / dp * dp;
					if (near_hi == 0 || (gbs / dp + 1) * dp < near_hi)
						near_hi = (gbs / dp + 1) * dp;
					continue;
				}
				add_layouts(&g, s, tp, cp, pp, dp, rcs, nrc);
			}
		}
	}
	if (g.overflow) {
		return pp_errf(err, PP_EINPUT, "%s: the space has more than %d candidate layouts; fix "
			       "some keys in the scenario's parallel section (e.g. "
			       "context_parallel_size or training.micro_batch_size)", s->name,
			       MAX_CANDIDATES);
	}
	if (!g.n) {
		char near[160] = "";
		if (near_hi && near_lo)
			snprintf(near, sizeof(near), "; the nearest global batch sizes a data-parallel "
				 "size divides are %lld and %lld", (long long)near_lo, (long long)near_hi);
		else if (near_hi)
			snprintf(near, sizeof(near), "; the smallest global batch size a data-parallel "
				 "size divides is %lld", (long long)near_hi);
		return pp_errf(err, PP_EINPUT, "%s: no layout of %lld GPUs fits the given keys (global "
			       "batch %lld, %d layers, %d heads%s)%s; check the fixed parallel keys "
			       "and training.global_batch_size", s->name, (long long)N,
			       (long long)gbs, m->num_layers, m->num_attention_heads,
			       given ? ", some parallel keys fixed" : "", near);
	}
	if (space && nspace)
		describe_space(&g, given, space, nspace);
	*nout = g.n;
	return 0;
}

typedef struct list {
	pp_layout *c;
	size_t n, cap;
} list;

static void append(void *ctx, const pp_layout *l, uint32_t idx)
{
	list *a = ctx;
	(void)idx;
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 4096;
		a->c = pp_xrealloc(a->c, sizeof(pp_layout) * a->cap);
	}
	a->c[a->n++] = *l;
}

int pp_search_enumerate(const pp_scenario *s, pp_layout **out, size_t *nout, char *space,
			size_t nspace, pp_err *err)
{
	list a = {NULL, 0, 0};
	int rc = enumerate(s, append, &a, nout, space, nspace, err);
	if (rc) {
		free(a.c);
		return rc;
	}
	*out = a.c;
	return 0;
}

void pp_layout_apply(pp_scenario *s, const pp_layout *l)
{
	pp_parallel *p = &s->parallel;
	p->tp = l->tp;
	p->pp = l->pp;
	p->dp = l->dp;
	p->cp = l->cp;
	p->ep = l->ep > 0 ? l->ep : 1;
	p->vpp = l->vpp;
	p->zero_stage = l->zero_stage;
	p->sequence_parallel = l->sp;
	p->schedule = l->schedule;
	s->training.micro_batch_size = l->micro_batch_size;
	s->training.recompute = l->recompute;
	pp_layout_derive(&s->training, p);
}

const char *pp_layout_str(const pp_layout *l, char *buf, size_t n)
{
	char sched[32], ep[24] = "";
	if (l->ep > 1)
		snprintf(ep, sizeof(ep), ", EP %d", l->ep);
	if (l->pp == 1)
		snprintf(sched, sizeof(sched), "no pipeline");
	else if (l->vpp > 1)
		snprintf(sched, sizeof(sched), "interleaved x%d", l->vpp);
	else
		snprintf(sched, sizeof(sched), "%s", l->schedule == PP_SCHED_GPIPE ? "GPipe" : "1F1B");
	snprintf(buf, n, "TP %d x PP %d x DP %d x CP %d, %s, micro-batch %lld, ZeRO-%d%s, "
		 "recompute %s%s", l->tp, l->pp, l->dp, l->cp, sched, (long long)l->micro_batch_size,
		 l->zero_stage, l->sp ? ", SP" : "", pp_recompute_names[l->recompute], ep);
	return buf;
}

/* ---- the search ---- */

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

static bool hless(const hent *a, const hent *b)
{
	return a->key < b->key || (a->key == b->key && a->idx < b->idx);
}

static void sift_down(hent *h, size_t n, size_t i)
{
	hent e = h[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && hless(&h[c + 1], &h[c]))
			c++;
		if (!hless(&h[c], &e))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = e;
}

static void heapify(hent *h, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(h, n, i);
}

static hent heap_pop(hent *h, size_t *n)
{
	hent top = h[0];
	h[0] = h[--*n];
	if (*n)
		sift_down(h, *n, 0);
	return top;
}

static void heap_push(hent *h, size_t *n, hent e)
{
	size_t i = (*n)++;
	while (i > 0) {
		size_t up = (i - 1) / 2;
		if (!hless(&e, &h[up]))
			break;
		h[i] = h[up];
		i = up;
	}
	h[i] = e;
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
	return (uint64_t)l->vpp << 48 | (uint64_t)l->sp << 40 | (uint64_t)l->zero_stage << 32 |
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
		if (!mem.fits) {
			k->nofit++;
			if (mem.total_bytes > mem.capacity_bytes * (1 + MISS_MARGIN))
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
	size_t nfe = wk->nfe, nq = nfe, nb = 0;
	hent *hq = pp_xmalloc(sizeof(hent) * (nfe + 1));
	hent *hb = pp_xmalloc(sizeof(hent) * (nfe + 1));
	for (size_t i = 0; i < nfe; i++)
		hq[i] = (hent){wk->fe[i].quick, wk->fe[i].idx, (uint32_t)i};
	heapify(hq, nq);
	pp_scenario x = *s;
	int rc = 0;
	for (;;) {
		int64_t thr = *ntop == k ? top[k - 1].step : INT64_MAX;
		bool sim = nb && (!nq || hb[0].key <= hq[0].key);
		if ((!sim && !nq) || (!ex && (sim ? hb[0].key : hq[0].key) > thr))
			break;
		hent e = heap_pop(sim ? hb : hq, sim ? &nb : &nq);
		feas *c = &wk->fe[e.f];
		if (!sim) {
			c->bound = ex ? 0 : full_bound(hw, wk, &x, c);
			heap_push(hb, &nb, (hent){c->bound, c->idx, e.f});
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
		progress(o, 1, *sims, (int64_t)nfe, *sims, (int64_t)(nq + nb), wk->t0);
	}
	free(hq);
	free(hb);
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
		if ((rc = enumerate(s, visit, wk, &n, out->space, sizeof(out->space), err)))
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
		/* the fast path no longer mirrors the schedule: redo it exactly */
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
