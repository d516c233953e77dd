/* fpcache.c - see fastpath.h: the workloads of a scenario family and the
 * quick bounds of its layouts, kept. */
#include "engine/fastpath.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

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

/* A slot of the hash table: where the key and its workload are (their
 * index + 1; 0: empty) and 32 bits of the key's hash, so that a probe
 * past other keys reads no workload. The workloads (1.7 KB each) and
 * their keys sit in blocks of their own, which never move: the table a
 * search grows to thousands of keys stays small to zero and rehash, and
 * a new block is the only memory a new workload touches (a growing array
 * copied at each doubling touched some 2 x its size). */
typedef struct centry {
	uint32_t w1;
	uint32_t tag;
} centry;

typedef struct wslot {
	ckey k;
	pp_workload w;
} wslot;

#define WBLK 256         /* workloads a block (some 450 KB) */

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
	wslot **blk;             /* n workloads in blocks of WBLK */
	size_t nblk;
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
		pp_workload_release(&c->blk[i / WBLK][i % WBLK].w);
	for (size_t b = 0; b < c->nblk; b++)
		free(c->blk[b]);
	free(c->blk);
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

static wslot *at(const pp_fp_cache *c, size_t i)
{
	return &c->blk[i / WBLK][i % WBLK];
}

/* The slot of key k (hash h): its own, or the empty one it would take. */
static centry *slot(pp_fp_cache *c, const ckey *k, uint64_t h)
{
	size_t i = (size_t)(h & (c->cap - 1));
	uint32_t tag = (uint32_t)(h >> 32);
	while (c->tab[i].w1 && !(c->tab[i].tag == tag && keq(&at(c, c->tab[i].w1 - 1)->k, k)))
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
		if (old[i].w1) { /* the keys are distinct: the first empty slot */
			const ckey *k = &at(c, old[i].w1 - 1)->k;
			size_t j = (size_t)(khash(k) & (c->cap - 1));
			while (c->tab[j].w1)
				j = (j + 1) & (c->cap - 1);
			c->tab[j] = old[i];
		}
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
		  pp_workload_domain_gpus(s), {0, 0, 0, 0, 0}};
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
	uint64_t h = khash(&k);
	centry *e = slot(c, &k, h);
	if (!e->w1) {
		if (c->n >= c->max) { /* full: emptied, the next keys built afresh */
			memset(c->tab, 0, sizeof(centry) * c->cap);
			c->n = 0;
			e = slot(c, &k, h);
		}
		if (2 * (c->n + 1) > c->cap) {
			grow(c);
			e = slot(c, &k, h);
		}
		if (c->n / WBLK == c->nblk) {
			c->blk = pp_xrealloc(c->blk, sizeof(wslot *) * (c->nblk + 1));
			c->blk[c->nblk++] = pp_xmalloc(sizeof(wslot) * WBLK);
		}
		wslot *ws = at(c, c->n);
		e->w1 = (uint32_t)(c->n + 1);
		e->tag = (uint32_t)(h >> 32);
		ws->k = k;
		pp_workload_build(&ws->w, s, hw);
		/* the op list is read by nothing the cache serves (fastpath.h) */
		free(ws->w.ops);
		ws->w.ops = NULL;
		ws->w.nops = ws->w.cap = 0;
		c->n++;
		c->builds++;
	}
	*w = at(c, e->w1 - 1)->w;
	pp_workload_set_layout(w, s);
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
	/* the schedule orders the units (and a V, ZB-V or DualPipeV, places
	 * the chunks otherwise than interleaving) */
	int vkey = s->parallel.vpp + ((int)s->parallel.schedule << 20);
	qentry q = {c->qgen, key_of(s, hw), s->parallel.pp, vkey, s->training.num_microbatches, 0};
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
