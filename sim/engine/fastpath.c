/* fastpath.c - see fastpath.h. */
#include "engine/fastpath.h"
#include "engine/program.h"
#include "engine/stepcost.h"
#include "engine/stages.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* ---- workload cache ---- */

typedef struct ckey {
	int tp, cp;
	int64_t mbs;
	int sp, rc, piped;
	int ep, etp;             /* MoE: the expert layout shapes the op list */
	int zero, dpn;           /* where the stack's ops read them (FSDP2 copies, autocast
				  * casts, DDP buckets); 0 elsewhere */
	int node;                /* GPUs per node as the groups are placed */
	/* the inter-node network where the op list reads it
	 * (pp_workload_reads_network), else 0: the NIC rate, NICs and GPUs per
	 * node, latency, oversubscription (their bits) */
	uint64_t net[5];
} ckey;

/* A slot of the hash table: the key and where its workload is. The
 * workloads (1.6 KB each) sit in their own array, so that the table a
 * search grows to thousands of keys stays small to zero and rehash. */
typedef struct centry {
	bool used;
	ckey k;
	size_t w;                /* index into ws */
} centry;

/* A quick bound kept: what it reads (pp_fp_bound_quick_ns) and its value.
 * gen: the cache's qgen when it was kept; a slot of another generation is
 * empty, so that forgetting the bounds is one increment and not a table
 * to zero again and grow again for every search. */
typedef struct qentry {
	uint32_t gen;
	ckey k;
	int pp, vpp;
	int64_t m;
	int64_t lb;
} qentry;

/* The most workloads a cache holds (some 1.6 KB each): podplan size's
 * cache over a SKU's options meets some 20,000 keys on the 530B model;
 * a search alone, a few hundred to a few thousand. */
#define CACHE_MAX 32768

struct pp_fp_cache {
	centry *tab;
	size_t cap, n;
	pp_workload *ws;
	size_t wcap;
	int builds;
	qentry *qtab;
	size_t qcap, qn;
	uint32_t qgen;           /* the generation of the bounds kept (qentry.gen) */
	size_t max;              /* the most workloads held (CACHE_MAX) */
};

pp_fp_cache *pp_fp_cache_new(void)
{
	pp_fp_cache *c = pp_xcalloc(1, sizeof(*c));
	c->cap = 256;
	c->tab = pp_xcalloc(c->cap, sizeof(centry));
	c->max = CACHE_MAX;
	c->qgen = 1;
	return c;
}

void pp_fp_cache_set_max(pp_fp_cache *c, size_t max)
{
	c->max = max > 0 ? max : 1;
}

void pp_fp_cache_free(pp_fp_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		pp_workload_release(&c->ws[i]);
	free(c->ws);
	free(c->tab);
	free(c->qtab);
	free(c);
}

int pp_fp_cache_builds(const pp_fp_cache *c)
{
	return c->builds;
}

void pp_fp_cache_forget_bounds(pp_fp_cache *c)
{
	c->qn = 0;
	if (++c->qgen == 0) { /* after 2^32 searches: every slot empty again */
		if (c->qtab)
			memset(c->qtab, 0, sizeof(qentry) * c->qcap);
		c->qgen = 1;
	}
}

/* The key's fields, each times its own odd constant and summed, then
 * mixed (MurmurHash3's fmix64): the products do not wait on one another,
 * where a chained FNV-style round per field did; a search looks keys up
 * millions of times. Only where a key sits in a table depends on it. */
static uint64_t mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

static uint64_t khash(const ckey *k)
{
	/* the small fields packed two to a word: each fits in 32 bits */
	uint64_t a = (uint64_t)(uint32_t)k->tp << 32 | (uint32_t)k->cp;
	uint64_t b = (uint64_t)(uint32_t)k->sp << 32 | (uint32_t)k->rc;
	uint64_t c = (uint64_t)(uint32_t)k->piped << 32 | (uint32_t)k->ep;
	uint64_t d = (uint64_t)(uint32_t)k->etp << 32 | (uint32_t)k->zero;
	uint64_t e = (uint64_t)(uint32_t)k->dpn << 32 | (uint32_t)k->node;
	uint64_t h = a * 0x9e3779b97f4a7c15ull + (uint64_t)k->mbs * 0xc2b2ae3d27d4eb4full +
		     b * 0x165667b19e3779f9ull + c * 0xd6e8feb86659fd93ull +
		     d * 0xff51afd7ed558ccdull + e * 0xc4ceb9fe1a85ec53ull +
		     k->net[0] * 0x94d049bb133111ebull + k->net[1] * 0xbf58476d1ce4e5b9ull +
		     k->net[2] * 0x27d4eb2f165667c5ull + k->net[3] * 0x85ebca77c2b2ae63ull +
		     k->net[4] * 0x9fb21c651e98df25ull;
	return mix64(h);
}

static bool keq(const ckey *a, const ckey *b)
{
	return a->tp == b->tp && a->cp == b->cp && a->mbs == b->mbs && a->sp == b->sp &&
	       a->rc == b->rc && a->piped == b->piped && a->ep == b->ep && a->etp == b->etp &&
	       a->zero == b->zero && a->dpn == b->dpn && a->node == b->node &&
	       !memcmp(a->net, b->net, sizeof(a->net));
}

static uint64_t bits(double v)
{
	uint64_t b;
	memcpy(&b, &v, sizeof(b));
	return b;
}

static centry *slot(pp_fp_cache *c, const ckey *k)
{
	size_t i = (size_t)(khash(k) & (c->cap - 1));
	while (c->tab[i].used && !keq(&c->tab[i].k, k))
		i = (i + 1) & (c->cap - 1);
	return &c->tab[i];
}

static void grow(pp_fp_cache *c)
{
	centry *old = c->tab;
	size_t ocap = c->cap;
	c->cap *= 2;
	c->tab = pp_xcalloc(c->cap, sizeof(centry));
	for (size_t i = 0; i < ocap; i++)
		if (old[i].used)
			*slot(c, &old[i].k) = old[i];
	free(old);
}

/* What the op list depends on; everything else pp_workload_set_layout
 * patches. */
static ckey key_of(const pp_scenario *s, const pp_hw *hw)
{
	const pp_parallel *p = &s->parallel;
	const pp_training *tr = &s->training;
	const pp_stack *st = &tr->stack;
	/* the op list reads the ZeRO stage through FSDP2's copies, autocast's
	 * casts (ZeRO-3 holds 16-bit parameters) and DDP's buckets, and the DP
	 * size through FSDP2's copies (workload.c) */
	bool z = st->fsdp2_copies || st->autocast || st->ddp_bucket_copies;
	ckey k = {p->tp, p->cp, tr->micro_batch_size, p->sequence_parallel && p->tp > 1,
		  (int)tr->recompute, p->pp > 1, p->ep, p->etp, z ? p->zero_stage : 0,
		  st->fsdp2_copies || st->ddp_bucket_copies ? p->dp : 0,
		  pp_workload_node_gpus(s), {0, 0, 0, 0, 0}};
	if (pp_workload_reads_network(s)) {
		k.net[0] = bits(hw->nic_Bps);
		k.net[1] = (uint64_t)hw->nics_per_node << 32 | (uint32_t)hw->gpus_per_node;
		k.net[2] = bits(hw->inter_lat_s);
		k.net[3] = bits(hw->oversubscription);
		k.net[4] = 1;
	}
	/* calibrated collectives (fits) are the hw's own: no sharing across hws */
	if (hw->nfits)
		k.net[4] |= (uint64_t)(uintptr_t)hw << 1;
	return k;
}

void pp_fp_workload(pp_fp_cache *c, const pp_scenario *s, const pp_hw *hw, pp_workload *w)
{
	ckey k = key_of(s, hw);
	centry *e = slot(c, &k);
	if (!e->used) {
		if (c->n >= c->max) { /* full: emptied, the next keys built afresh */
			memset(c->tab, 0, sizeof(centry) * c->cap);
			c->n = 0;
			e = slot(c, &k);
		}
		if (2 * (c->n + 1) > c->cap) {
			grow(c);
			e = slot(c, &k);
		}
		if (c->n == c->wcap) {
			c->wcap = c->wcap ? 2 * c->wcap : 256;
			c->ws = pp_xrealloc(c->ws, sizeof(pp_workload) * c->wcap);
		}
		e->used = true;
		e->k = k;
		e->w = c->n;
		pp_workload_build(&c->ws[e->w], s, hw);
		/* the op list is read by nothing the cache serves (fastpath.h) */
		pp_workload *b = &c->ws[e->w];
		free(b->ops);
		b->ops = NULL;
		b->nops = b->cap = 0;
		c->n++;
		c->builds++;
	}
	*w = c->ws[e->w];
	pp_workload_set_layout(w, s);
}

/* ---- the walk: the step's program, each task's end computed as it is issued ---- */

/* The fast backend of program.h: a handle is the task's end (ns). Every
 * resource serves its tasks in issue order (streams by definition, links
 * because each has one sending stage whose releases come in its program
 * order), so a task starts at max(its resource's last end, its
 * dependencies' ends) with no event queue. */
typedef struct fast {
	int64_t *free;   /* per resource: when it is next free */
	int nres, cap;
	int64_t span;    /* latest end so far */
	int64_t tasks;   /* issued */
	/* the steady-state check (program.h): at each of the program's last
	 * marks (ring slot n % PP_STEADY_MARKS), the resources' free times
	 * (slot i at mfree + i x mnres), the tasks issued, the epoch from
	 * which a resource used since is stamped (touch), the state's hash */
	int64_t *mfree;
	int mnres, mslots, nmarks;
	int64_t mtasks[PP_STEADY_MARKS];
	uint32_t mepoch[PP_STEADY_MARKS];
	uint64_t mhash[PP_STEADY_MARKS];
	uint32_t *touch;
	uint32_t epoch;
	int64_t limit;   /* a task that ends after it makes the step longer: stop */
	bool over;       /* one did */
} fast;

static int fast_resource(void *ctx, const char *name, int rank, bool in_order)
{
	(void)name;
	(void)rank;
	(void)in_order;
	fast *f = ctx;
	if (f->nres == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 16;
		f->free = pp_xrealloc(f->free, sizeof(int64_t) * (size_t)f->cap);
		f->touch = pp_xrealloc(f->touch, sizeof(uint32_t) * (size_t)f->cap);
	}
	f->free[f->nres] = 0;
	f->touch[f->nres] = 0;
	return f->nres++;
}

static int64_t fast_task(void *ctx, int res, int64_t dur_ns, const pp_des_tag *tag,
			 const int64_t *deps, int ndeps)
{
	(void)tag;
	fast *f = ctx;
	int64_t start = f->free[res];
	for (int i = 0; i < ndeps; i++)
		if (deps[i] > start)
			start = deps[i];
	int64_t end = start + (dur_ns > 0 ? dur_ns : 0);
	f->tasks++;
	f->free[res] = end;
	f->touch[res] = f->epoch;
	if (end > f->span) {
		f->span = end;
		f->over |= end > f->limit;
	}
	return end;
}

/* Record the resources at the program's newest mark (its state hash h,
 * relative to ref); returns the hash of both. The resources are those of
 * the steady part: none is created before pp_program_finish. */
static uint64_t fast_mark(fast *f, uint64_t h, int64_t ref)
{
	if (f->mslots && f->mnres != f->nres)
		f->nmarks = f->mslots = 0;  /* (not reached) */
	if (f->nmarks == f->mslots && f->mslots < PP_STEADY_MARKS) {
		f->mslots = f->mslots ? 2 * f->mslots : 8;
		if (f->mslots > PP_STEADY_MARKS)
			f->mslots = PP_STEADY_MARKS;
		f->mnres = f->nres;
		f->mfree = pp_xrealloc(f->mfree, sizeof(int64_t) * (size_t)f->mslots * (size_t)f->nres);
	}
	int i = f->nmarks % PP_STEADY_MARKS;
	uint32_t since = f->nmarks ? f->mepoch[(f->nmarks - 1) % PP_STEADY_MARKS] : 1;
	for (int r = 0; r < f->nres; r++)
		if (f->touch[r] >= since) {
			h = (h ^ (uint64_t)r) * 1099511628211ull;
			h = (h ^ (uint64_t)(f->free[r] - ref)) * 1099511628211ull;
		}
	memcpy(f->mfree + (size_t)i * (size_t)f->mnres, f->free, sizeof(int64_t) * (size_t)f->nres);
	f->mtasks[i] = f->tasks;
	f->mepoch[i] = ++f->epoch;
	f->mhash[i] = h;
	f->nmarks++;
	return h;
}

/* The slot of the mark q before the newest. */
static int fast_slot(const fast *f, int q)
{
	return (f->nmarks - 1 - q) % PP_STEADY_MARKS;
}

/* Every resource used since the mark q before the newest is free dt later
 * than it was then. */
static bool fast_periodic(const fast *f, int q, int64_t dt)
{
	int i = fast_slot(f, q);
	const int64_t *was = f->mfree + (size_t)i * (size_t)f->mnres;
	for (int r = 0; r < f->nres; r++)
		if (f->touch[r] >= f->mepoch[i] && f->free[r] != was[r] + dt)
			return false;
	return true;
}

/* k more cycles like the one since the mark q before the newest. */
static void fast_skip(fast *f, int q, int64_t k, int64_t dt)
{
	int i = fast_slot(f, q);
	for (int r = 0; r < f->nres; r++)
		if (f->touch[r] >= f->mepoch[i]) {
			f->free[r] += k * dt;
			f->span = max64(f->span, f->free[r]);
		}
	f->tasks += k * (f->tasks - f->mtasks[i]);
	f->nmarks = 0;
}

/* Advance every stage while its next unit has its input, up to unit lim[st]
 * (lim NULL: to its end), until *stop; true when every stage got there. A
 * stage that
 * moved puts its two neighbours back on the work list: their units are
 * what it can have unblocked. The order in which stages are advanced does
 * not change any time computed. */
static bool drive(pp_program *p, int P, int units, const int *lim, int *work, bool *queued,
		  fast *f)
{
	const bool *stop = &f->over;
	int head = 0, n = P;
	for (int st = 0; st < P; st++) {
		work[st] = st;
		queued[st] = true;
	}
	while (n > 0) {
		int st = work[head];
		head = (head + 1) % P;
		n--;
		queued[st] = false;
		int moved = pp_program_run(p, st, lim ? lim[st] : units, stop);
		if (*stop && moved)
			return false;
		if (!moved)
			continue;

		int nb[2] = {(st + 1) % P, (st + P - 1) % P};
		for (int k = 0; k < 2; k++)
			if (!queued[nb[k]]) {
				work[(head + n) % P] = nb[k];
				n++;
				queued[nb[k]] = true;
			}
	}
	for (int st = 0; st < P; st++)
		if (units - pp_program_left(p, st) != (lim ? lim[st] : units))
			return false;
	return true;
}

int64_t pp_fp_run(const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
		  const pp_sched_opts *ablate, pp_stage_busy *busy, int64_t *tasks)
{
	return pp_fp_run_stats(s, hw, w, ablate, busy, tasks, NULL);
}

/* Whether the step cannot end by f's limit whatever its tasks to come do
 * (pp_program_end_bound_ns); sets f->over then. */
static bool beyond(fast *f, pp_program *p)
{
	if (!f->over && f->limit < INT64_MAX)
		f->over = pp_program_end_bound_ns(p, f->free) > f->limit;
	return f->over;
}

/* pp_fp_run_stats(), stopping with INT64_MAX once a task ends after limit
 * or the step can no longer end by it. */
static int64_t walk(const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
		    const pp_sched_opts *ablate, pp_stage_busy *busy, int64_t *tasks,
		    pp_fp_stats *stats, int64_t limit)
{
	pp_fp_stats st0 = {0, 0, 0, 0};
	if (!stats)
		stats = &st0;
	*stats = st0;
	if (s->training.num_microbatches < 1)
		return -1;
	pp_stepcost c;
	pp_stepcost_init(&c, s, hw, w, ablate);
	fast f;
	memset(&f, 0, sizeof(f));
	f.limit = limit;
	pp_sink sink = {&f, fast_resource, fast_task, NULL, true, true, busy == NULL};
	pp_program *p = pp_program_new(&c, &sink);
	int64_t result = -1;
	int P = c.P, units = pp_schedule_count(s);
	int *work = pp_xmalloc(sizeof(int) * (size_t)P * 2);
	int *lim = work + P;
	bool *queued = pp_xmalloc(sizeof(bool) * (size_t)P);
	/* checkpoint by checkpoint through the steady part until the state
	 * is one it was q checkpoints before, moved on (program.h), then on
	 * whole cycles of q periods at once */
	bool skipped = false;
	for (int cp = 0; !skipped && pp_program_checkpoint(p, 0, 0) >= 0; cp++) {
		if (!pp_program_may_skip(p, cp))
			break; /* no cycle found from here on could be moved over */
		bool all = true;
		for (int st = 0; st < P; st++)
			all &= (lim[st] = pp_program_checkpoint(p, st, cp)) >= 0;
		/* the end bound at checkpoints 0, 1, 2, 4, 8, ...: O(stages) each */
		if (!all || !drive(p, P, units, lim, work, queued, &f) ||
		    ((cp & (cp - 1)) == 0 && beyond(&f, p)))
			break;
		uint64_t h;
		int64_t ref, dt;
		if (!pp_program_mark(p, &h, &ref)) {
			f.nmarks = 0;
			continue;
		}
		h = fast_mark(&f, h, ref);
		for (int q = 1; q < PP_STEADY_MARKS && q < f.nmarks && !skipped; q++)
			if (f.mhash[fast_slot(&f, q)] == h && pp_program_periodic(p, q, &dt) &&
			    fast_periodic(&f, q, dt)) {
				int64_t k = pp_program_skippable(p, q);
				int64_t before = 0, after = 0;
				for (int st = 0; st < P; st++)
					before += pp_program_left(p, st);
				pp_program_skip(p, q, k, dt, busy != NULL);
				fast_skip(&f, q, k, dt);
				f.over |= f.span > f.limit;
				for (int st = 0; st < P; st++)
					after += pp_program_left(p, st);
				stats->skipped = before - after;
				stats->cycle = q;
				stats->checkpoint = cp;
				skipped = true;
			}
	}
	bool done = !beyond(&f, p) && drive(p, P, units, NULL, work, queued, &f);
	free(work);
	free(queued);
	if (f.over) {
		result = INT64_MAX;
		goto out;
	}
	if (!done)
		goto out;
	pp_program_finish(p, busy);
	result = f.over ? INT64_MAX : f.span;
	stats->units = (int64_t)units * P - stats->skipped;
	if (tasks)
		*tasks = f.tasks + pp_program_coalesced(p);
out:
	pp_program_free(p);
	free(f.free);
	free(f.mfree);
	free(f.touch);
	pp_stepcost_release(&c);
	return result;
}

int64_t pp_fp_run_stats(const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
			const pp_sched_opts *ablate, pp_stage_busy *busy, int64_t *tasks,
			pp_fp_stats *stats)
{
	return walk(s, hw, w, ablate, busy, tasks, stats, INT64_MAX);
}

int64_t pp_fp_step_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w)
{
	return pp_fp_run(s, hw, w, NULL, NULL, NULL);
}

int64_t pp_fp_step_within_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
			     int64_t limit_ns)
{
	return walk(s, hw, w, NULL, NULL, NULL, NULL, limit_ns);
}

/* ---- the bound ---- */

/* Lower bound on when the DP stream of a stage finishes the gradient
 * buckets of its last backward unit (chunk 0, vs = st), given that the
 * unit's last compute task ends no earlier than e. The unit's tasks run
 * back to back, so the task a bucket follows ends no earlier than e minus
 * the tasks after it; the stream is busy until dp_free (-1: not known)
 * with what it carried before. */
static int64_t tail_reduce(const pp_stepcost *c, int vs, int64_t e, int64_t dp_free)
{
	const pp_workload *w = c->w;
	int L = c->layers[vs];
	double acc = vs == c->NV - 1 ? w->trainable_head : 0;
	int64_t fin = dp_free;
	/* the backward tasks below layer l: layers 0 .. l-1 and the embedding */
	int64_t below = vs == 0 ? c->unit.b_embed : 0;
	for (int l = 0; l < L; l++)
		below += c->unit.b_layer[pp_stepcost_kind(c, vs, l)];
	for (int l = L - 1; l >= 0; l--) {
		const pp_layer_cost *lc = &w->lk[pp_stepcost_kind(c, vs, l)];
		below -= c->unit.b_layer[pp_stepcost_kind(c, vs, l)];
		acc += lc->trainable - lc->trainable_expert;
		if (acc >= c->bucket_params) {
			fin = max64(fin, e - below) + pp_stepcost_reduce(c, acc).ns;
			acc = 0;
		}
	}
	if (vs == 0)
		acc += w->trainable_embed;
	if (acc > 0)
		fin = max64(fin, e) + pp_stepcost_reduce(c, acc).ns;
	return fin;
}

/* The tight bound's DP stream of stage st (overlap_grad_reduce, not
 * ZeRO-3, non-blocking sends): it is busy until g with the gathers at the
 * start; each chunk's gradient buckets follow that chunk's last backward
 * unit in the order those units run, and a unit ends no earlier than the
 * stage's first start (head) plus every unit up to it back to back (busy
 * less the units after it, found by walking the schedule from its end).
 * Chunk 0's is the stage's last unit, which ends no earlier than e. When
 * the stream is done with the last bucket; -1 with none. */
static int64_t dp_stream_end(const pp_scenario *s, const pp_stepcost *c, int st, int64_t head,
			     int64_t busy, int64_t e, int64_t g)
{
	int V = c->V, P = c->P, n = pp_schedule_count(s), found = 0;
	int64_t after = 0;
	int64_t *end = pp_xmalloc(sizeof(int64_t) * (size_t)V);
	int *order = pp_xmalloc(sizeof(int) * (size_t)V);
	for (int k = 0; k < V; k++)
		end[k] = -1;
	for (int i = n - 1; i >= 0 && found < V; i--) {
		pp_unit u = pp_schedule_unit(s, st, i);
		int vs = u.chunk * P + st;
		if (!u.fwd && end[u.chunk] < 0) {
			end[u.chunk] = head + busy - after;
			order[found++] = u.chunk;
		}
		after += pp_stepcost_unit_ns(c, vs, u.fwd);
	}
	int64_t fin = g > 0 ? g : -1;
	for (int j = found - 1; j >= 0; j--) {
		int k = order[j];
		int64_t ek = k == 0 && e > end[k] ? e : end[k];
		fin = tail_reduce(c, k * P + st, ek, fin);
	}
	free(end);
	free(order);
	return fin;
}

static int64_t bound_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w, bool tight)
{
	pp_stepcost f;
	pp_stepcost_init(&f, s, hw, w, NULL);
	int P = f.P, V = f.V, NV = f.NV;
	int64_t M = f.M;
	int64_t lb = f.data_ns;
	int64_t *busy = pp_xmalloc(sizeof(int64_t) * (size_t)P * 7);
	int64_t *opt = busy + P, *tailsend = opt + P, *head = tailsend + P, *E = head + P,
		*dpend = E + P, *gath = dpend + P;
	bool blocking = !s->training.overlap_p2p_comm && P > 1;
	const pp_task_ns *u = &f.unit;
	/* ZeRO-3 runs dense models only (one layer kind) */
	int64_t ag_l = f.z3_gather[PP_PART_LAYER][0].ns, ag_e = f.z3_gather[PP_PART_EMBED][0].ns,
		ag_h = f.z3_gather[PP_PART_HEAD][0].ns;
	int64_t rs_l = f.z3_scatter[PP_PART_LAYER][0].ns, rs_e = f.z3_scatter[PP_PART_EMBED][0].ns,
		rs_h = f.z3_scatter[PP_PART_HEAD][0].ns;
	int64_t h = 0;
	enum { SEEN = 4 };
	double seen[SEEN][PP_LAYER_KINDS];
	int64_t seen_opt[SEEN];
	int nseen = 0;
	for (int st = 0; st < P; st++) {
		int64_t b = 0, dpz = 0;
		for (int k = 0; k < V; k++) {
			int vs = k * P + st;
			int64_t L = f.layers[vs];
			b += M * (pp_stepcost_layers_ns(&f, vs, true) + pp_stepcost_layers_ns(&f, vs, false));
			dpz += M * L * ((f.z3_bwd_gather ? 2 : 1) * ag_l + rs_l);
			if (blocking && vs < NV - 1)
				b += M * f.p2p_ns[st];
			if (blocking && vs > 0)
				b += M * f.p2p_ns[(st + P - 1) % P];
		}
		if (st == 0) {
			b += M * (u->f_embed + u->b_embed);
			dpz += M * ((f.z3_bwd_gather ? 2 : 1) * ag_e + rs_e);
		}
		if (st == P - 1) {
			b += M * (u->f_head + u->b_head);
			dpz += M * ((f.z3_bwd_gather ? 2 : 1) * ag_h + rs_h);
		}
		busy[st] = b;
		/* the optimizer reads the stage's trained parameters: a stage
		 * between the first and the last with the layers (by kind) of an
		 * earlier one steps as long */
		double n[PP_LAYER_KINDS];
		int again = -1;
		if (st > 0 && st < P - 1) {
			pp_stage_kinds(s, st, n);
			for (int i = 0; i < nseen && again < 0; i++)
				if (!memcmp(seen[i], n, sizeof(n)))
					again = i;
		}
		if (again >= 0) {
			opt[st] = seen_opt[again];
		} else {
			opt[st] = pp_stepcost_optimizer(&f, st).ns;
			if (st > 0 && st < P - 1 && nseen < SEEN) {
				memcpy(seen[nseen], n, sizeof(n));
				seen_opt[nseen++] = opt[st];
			}
		}
		tailsend[st] = blocking && st > 0 ? f.p2p_ns[st - 1] : 0;
		head[st] = h;
		h += pp_stepcost_unit_ns(&f, st, true) + f.p2p_ns[st];
		if (f.zero3) /* one stream carries every gather and reduce-scatter */
			lb = max64(lb, dpz + opt[st]);
		/* tight: the distributed optimizer's gathers at the start hold the
		 * stage's data-parallel stream, back to back, before its reduces */
		gath[st] = tight ? pp_program_start_gathers_ns(&f, st) : 0;
		lb = max64(lb, gath[st]);
		lb = max64(lb, head[st] + busy[st] + opt[st]);
	}
	/* tight: the chains of round trips through stage 0 (program.h), on
	 * the slow fabrics where sends, not the streams, make the step */
	int64_t *trips = tight ? pp_xmalloc(sizeof(int64_t) * (size_t)P) : NULL;
	bool tripped = tight && pp_program_round_trips_ns(&f, trips) >= 0;
	/* E[st]: the end of stage st's last backward, which every later stage's
	 * last backward feeds */
	for (int st = P - 1; st >= 0; st--) {
		E[st] = head[st] + busy[st] - tailsend[st];
		if (tripped)
			E[st] = max64(E[st], trips[st]);
		if (st < P - 1) {
			int64_t B0 = pp_stepcost_unit_ns(&f, st, false);
			E[st] = max64(E[st], E[st + 1] + f.p2p_ns[st] + B0);
		}
	}
	/* bucket tails are the same for stages of the same shape */
	int64_t cache_l = -1, cache_tail = 0, cache_e = 0;
	for (int st = 0; st < P; st++) {
		dpend[st] = -1;
		if (f.zero3) {
			dpend[st] = E[st] + (st == 0 ? rs_e : rs_l);
		} else if (tight && w->dp.n > 1 && s->training.overlap_grad_reduce && !blocking) {
			dpend[st] = dp_stream_end(s, &f, st, head[st], busy[st], E[st], gath[st]);
		} else if (w->dp.n > 1 && s->training.overlap_grad_reduce) {
			bool plain = st != 0 && st != NV - 1 && f.one_kind && !gath[st];
			if (plain && cache_l == f.layers[st]) {
				dpend[st] = E[st] + (cache_tail - cache_e);
			} else {
				dpend[st] = tail_reduce(&f, st, E[st], gath[st] ? gath[st] : -1);
				if (plain) {
					cache_l = f.layers[st];
					cache_tail = dpend[st];
					cache_e = E[st];
				}
			}
		}
	}
	int64_t ar_end = -1;
	if (f.embed_ar.ns >= 0) {
		int64_t a = max64(E[0] + tailsend[0], E[P - 1] + tailsend[P - 1]);
		a = max64(a, max64(dpend[0], dpend[P - 1]));
		ar_end = a + f.embed_ar.ns;
	}
	for (int st = 0; st < P; st++) {
		int64_t start = max64(E[st] + tailsend[st], dpend[st]);
		if (ar_end >= 0 && (st == 0 || st == P - 1))
			start = max64(start, ar_end);
		lb = max64(lb, start + opt[st]);
	}
	free(busy);
	free(trips);
	pp_stepcost_release(&f);
	return lb;
}

int64_t pp_fp_bound_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w)
{
	return bound_ns(s, hw, w, false);
}

int64_t pp_fp_bound_tight_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w)
{
	return bound_ns(s, hw, w, true);
}

int64_t pp_fp_bound_quick_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w)
{
	const pp_parallel *p = &s->parallel;
	int64_t M = s->training.num_microbatches;
	pp_task_ns u = pp_task_durations(w, pp_pipeline_stretch(s, hw));
	int64_t lb = 0;
	for (int st = 0; st < p->pp; st++) {
		double n[PP_LAYER_KINDS];
		pp_stage_kinds(s, st, n);
		int64_t b = 0;
		for (int k = 0; k < PP_LAYER_KINDS; k++)
			b += (int64_t)n[k] * (u.f_layer[k] + u.b_layer[k]);
		if (st == 0)
			b += u.f_embed + u.b_embed;
		if (st == p->pp - 1)
			b += u.f_head + u.b_head;
		lb = max64(lb, M * b);
	}
	return lb;
}

static uint64_t qhash(const qentry *q)
{
	uint64_t v = (uint64_t)(uint32_t)q->pp << 32 | (uint32_t)q->vpp;
	return mix64(khash(&q->k) + v * 0x9e3779b97f4a7c15ull +
		     (uint64_t)q->m * 0xc2b2ae3d27d4eb4full);
}

static qentry *qslot(qentry *tab, size_t cap, const qentry *q)
{
	size_t i = (size_t)(qhash(q) & (cap - 1));
	while (tab[i].gen == q->gen && !(keq(&tab[i].k, &q->k) && tab[i].pp == q->pp &&
				tab[i].vpp == q->vpp && tab[i].m == q->m))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

int64_t pp_fp_bound_quick_cached_ns(pp_fp_cache *c, const pp_scenario *s, const pp_hw *hw)
{
	qentry q = {c->qgen, key_of(s, hw), s->parallel.pp, s->parallel.vpp, s->training.num_microbatches,
		    0};
	if (!c->qtab) {
		c->qcap = 1024;
		c->qtab = pp_xcalloc(c->qcap, sizeof(qentry));
	}
	qentry *e = qslot(c->qtab, c->qcap, &q);
	if (e->gen == q.gen)
		return e->lb;
	if (2 * (c->qn + 1) > c->qcap) {
		qentry *old = c->qtab;
		size_t ocap = c->qcap;
		c->qcap *= 2;
		c->qtab = pp_xcalloc(c->qcap, sizeof(qentry));
		for (size_t i = 0; i < ocap; i++)
			if (old[i].gen == q.gen)
				*qslot(c->qtab, c->qcap, &old[i]) = old[i];
		free(old);
		e = qslot(c->qtab, c->qcap, &q);
	}
	pp_workload w;
	pp_fp_workload(c, s, hw, &w);
	q.lb = pp_fp_bound_quick_ns(s, hw, &w);
	*e = q;
	c->qn++;
	return q.lb;
}
