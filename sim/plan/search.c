/* search.c - see search.h. */
#include "plan/search.h"
#include "core/dist.h"
#include "engine/fastpath.h"
#include "engine/memory.h"
#include "engine/schedule.h"
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

typedef struct gen {
	pp_layout *c;
	size_t n, cap;
	vals tp, pp, dp, cp, vpp, mbs, zero, sp, rc;
	bool overflow;
} gen;

static void push(gen *g, const pp_layout *l)
{
	if (g->n == MAX_CANDIDATES) {
		g->overflow = true;
		return;
	}
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 4096;
		g->c = pp_xrealloc(g->c, sizeof(pp_layout) * g->cap);
	}
	g->c[g->n++] = *l;
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

int pp_search_enumerate(const pp_scenario *s, pp_layout **out, size_t *nout, char *space,
			size_t nspace, pp_err *err)
{
	const pp_model *m = &s->model;
	unsigned given = s->given;
	int64_t N = s->cluster.num_gpus, gbs = s->training.global_batch_size;
	/* about 200 KB of value lists: fine on the stack */
	gen g;
	memset(&g, 0, sizeof(g));
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
		free(g.c);
		return pp_errf(err, PP_EINPUT, "%s: the space has more than %d candidate layouts; fix "
			       "some keys in the scenario's parallel section (e.g. "
			       "context_parallel_size or training.micro_batch_size)", s->name,
			       MAX_CANDIDATES);
	}
	if (!g.n) {
		free(g.c);
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
	*out = g.c;
	*nout = g.n;
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

typedef struct cand {
	int64_t bound;
	uint32_t idx;
} cand;

typedef struct best {
	int64_t step, bound;
	uint32_t idx, pad;
} best;

static int cmp_cand(const void *a, const void *b)
{
	const cand *x = a, *y = b;
	if (x->bound != y->bound)
		return x->bound < y->bound ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
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
	pp_schedule_build(d, s, hw, w, &o, busy);
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

/* How many of the sorted candidates have bound <= t. */
static int64_t count_le(const cand *c, int64_t n, int64_t t)
{
	int64_t lo = 0, hi = n;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (c[mid].bound <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Which rank evaluates a layout: by its workload (TP, CP, micro-batch, SP,
 * recompute, pipelined), so each workload is built on one rank only. */
static int owner(const pp_layout *l, int R)
{
	uint64_t v[6] = {(uint64_t)l->tp, (uint64_t)l->cp, (uint64_t)l->micro_batch_size,
			 (uint64_t)(l->sp && l->tp > 1), (uint64_t)l->recompute, (uint64_t)(l->pp > 1)};
	uint64_t h = 1469598103934665603ull;
	for (int i = 0; i < 6; i++) {
		h ^= v[i];
		h *= 1099511628211ull;
		h ^= h >> 31;
	}
	if (l->ep > 1) { /* MoE: the workload depends on EP too */
		h ^= (uint64_t)l->ep;
		h *= 1099511628211ull;
	}
	return (int)(h % (uint64_t)R);
}

static int search_once(const pp_scenario *s, const pp_hw *hw, const pp_search_opts *o,
		       const pp_layout *lay, size_t n, pp_search_result *out, pp_err *err)
{
	double t0 = pp_mono_s();
	int R = pp_dist_size(), r = pp_dist_rank();
	int k = o->top_k < 1 ? 1 : o->top_k;
	int rc = 0;
	pp_scenario x = *s;
	pp_fp_cache *cache = pp_fp_cache_new();
	pp_des *des = o->des ? pp_des_new() : NULL;
	cand *fe = pp_xmalloc(sizeof(cand) * (n + 1));
	int64_t nfe = 0, nofit = 0, mine = 0;
	for (size_t i = 0; i < n; i++) {
		if (R > 1 && owner(&lay[i], R) != r)
			continue;
		pp_layout_apply(&x, &lay[i]);
		pp_workload w;
		pp_fp_workload(cache, &x, hw, &w);
		pp_memory mem;
		pp_memory_estimate(&x, hw, &w, &mem);
		if (!mem.fits) {
			nofit++;
		} else {
			fe[nfe].idx = (uint32_t)i;
			fe[nfe].bound = o->exhaustive ? 0 : pp_fp_bound_ns(&x, hw, &w);
			nfe++;
		}
		if ((++mine & 4095) == 0)
			progress(o, 0, mine, (int64_t)(n / (size_t)R), 0, 0, t0);
	}
	qsort(fe, (size_t)nfe, sizeof(cand), cmp_cand);

	best *top = pp_xmalloc(sizeof(best) * (size_t)k);
	int ntop = 0;
	int64_t pos = 0, sims = 0;
	int64_t tau = INT64_MAX; /* the smallest k-th best any rank has reported */
	bool done = false;
	for (;;) {
		double round_end = pp_mono_s() + 0.002;
		int in_round = 0;
		while (!done) {
			if (pos == nfe) {
				done = true;
				break;
			}
			int64_t thr = ntop == k && top[k - 1].step < tau ? top[k - 1].step : tau;
			cand c = fe[pos];
			if (!o->exhaustive && c.bound > thr) {
				done = true;
				break;
			}
			pp_layout_apply(&x, &lay[c.idx]);
			pp_workload w;
			pp_fp_workload(cache, &x, hw, &w);
			int64_t step = des ? des_step(&x, hw, &w, des, err) : pp_fp_step_ns(&x, hw, &w);
			if (step < 0) {
				if (!des)
					pp_errf(err, PP_EINTERNAL, "%s: the fast path stalled on layout "
						"#%u", s->name, c.idx);
				rc = PP_EINTERNAL;
				goto out;
			}
			top_insert(top, &ntop, k, (best){step, c.bound, c.idx, 0});
			pos++;
			sims++;
			if (o->progress) {
				int64_t t = ntop == k && top[k - 1].step < tau ? top[k - 1].step : tau;
				progress(o, 1, pos, nfe, sims,
					 o->exhaustive ? nfe - pos : count_le(fe, nfe, t) - pos, t0);
			}
			if (R > 1 && (++in_round >= 64 || pp_mono_s() > round_end))
				break;
		}
		if (R == 1)
			break;
		/* share the pruning threshold; stop when every rank is done */
		double v[2] = {ntop == k ? (double)top[k - 1].step : INFINITY, done ? 1.0 : 0.0};
		pp_dist_allreduce_min(v, 2);
		if (v[0] < (double)tau)
			tau = (int64_t)v[0];
		if (v[1] == 1.0)
			break;
	}

	/* gather every rank's top k on rank 0, merge, and give it to all */
	best *all = pp_xmalloc(sizeof(best) * (size_t)k * (size_t)R);
	best *mine_k = pp_xmalloc(sizeof(best) * (size_t)k);
	for (int i = 0; i < k; i++)
		mine_k[i] = i < ntop ? top[i] : (best){INT64_MAX, INT64_MAX, UINT32_MAX, 0};
	pp_dist_gather(mine_k, sizeof(best) * (size_t)k, r == 0 ? all : NULL);
	if (r == 0)
		qsort(all, (size_t)k * (size_t)R, sizeof(best), cmp_best);
	pp_dist_bcast(all, sizeof(best) * (size_t)k);
	int nbest = 0;
	while (nbest < k && all[nbest].step != INT64_MAX)
		nbest++;
	int64_t gk = nbest == k ? all[k - 1].step : INT64_MAX;
	double cnt[5] = {(double)nofit, (double)nfe,
			 (double)(o->exhaustive ? nfe : count_le(fe, nfe, gk)), (double)sims,
			 (double)pp_fp_cache_builds(cache)};
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
		out->best[i].layout = lay[all[i].idx];
		out->best[i].index = all[i].idx;
		out->best[i].step_ns = all[i].step;
		out->best[i].bound_ns = all[i].bound;
	}
	free(all);
	free(mine_k);
out:
	free(top);
	free(fe);
	pp_des_free(des);
	pp_fp_cache_free(cache);
	return rc;
}

/* pp_predict() of every hit; hit i on rank i mod R, then shared. */
static int predict_best(const pp_scenario *s, const pp_hw *hw, pp_search_result *out, pp_err *err)
{
	int R = pp_dist_size(), r = pp_dist_rank(), k = out->nbest, rc = 0;
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
	pp_layout *lay = NULL;
	size_t n = 0;
	int rc = pp_search_enumerate(s, &lay, &n, out->space, sizeof(out->space), err);
	if (rc)
		return rc;
	pp_search_opts oo = *o;
	for (int attempt = 0; attempt < 2; attempt++) {
		if ((rc = search_once(s, hw, &oo, lay, n, out, err)))
			goto out;
		/* the winners through the full engine (breakdown, memory, MFU),
		 * dealt out to the ranks and shared */
		if ((rc = predict_best(s, hw, out, err)))
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
	free(lay);
	return rc;
}

void pp_search_result_release(pp_search_result *r)
{
	if (!r)
		return;
	free(r->best);
	memset(r, 0, sizeof(*r));
}
