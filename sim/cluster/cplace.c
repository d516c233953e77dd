/*
 * cplace.c - nodes, their free GPUs, and where a gang goes (csim.h,
 * "Placement"). Nodes sit in bucket lists by (leaf, whole GPUs free), so
 * finding the fullest node that fits, or a leaf with enough empty nodes,
 * costs a few counters per GPU count rather than a scan of the cluster.
 */
#include "cluster/cfgd.h"
#include "cluster/cmig.h"
#include "cluster/csimint.h"
#include "core/util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int bidx(const cs_sim *s, int leaf, int f)
{
	return leaf * (s->G + 1) + f;
}

static void blist_remove(cs_sim *s, int n)
{
	cs_node *x = &s->nodes[n];
	int b = bidx(s, x->leaf, x->free);
	if (x->prev >= 0)
		s->nodes[x->prev].next = x->next;
	else
		s->bhead[b] = x->next;
	if (x->next >= 0)
		s->nodes[x->next].prev = x->prev;
	x->prev = x->next = -1;
	s->cnt[x->free]--;
	s->cntl[b]--;
}

static void blist_add(cs_sim *s, int n)
{
	cs_node *x = &s->nodes[n];
	int b = bidx(s, x->leaf, x->free);
	x->prev = -1;
	x->next = s->bhead[b];
	if (x->next >= 0)
		s->nodes[x->next].prev = n;
	s->bhead[b] = n;
	s->cnt[x->free]++;
	s->cntl[b]++;
}

/* placement fgd: the typical kinds of the job stream, each job as the
 * GPUs it takes on one node (a share, or its per-node count of whole
 * GPUs); no CPU or GPU model in this simulation */
static void fgd_init(cs_sim *s)
{
	int nj = s->jobs->n;
	pp_fgd_pod *pods = pp_xcalloc((size_t)(nj ? nj : 1), sizeof(*pods));
	for (int j = 0; j < nj; j++) {
		const pp_cjob *x = &s->jobs->v[j];
		int nn, k;
		if (x->gpu_milli < 1000) {
			pods[j].num_gpu = 1;
			pods[j].gpu_milli = x->gpu_milli;
			continue;
		}
		cs_shape(s, x, &nn, &k);
		pods[j].num_gpu = k;
		pods[j].gpu_milli = 1000;
	}
	s->fgd_kinds = pp_fgd_kinds(pods, nj, 95, &s->fgd_nk);
	free(pods);
}

/* MIG: the nodes of a type that declares "mig" (the spec's types hold
 * consecutive nodes, in order); each job's profile must exist on one of
 * them */
static int mig_init(cs_sim *s)
{
	const pp_cspec *sp = s->spec;
	bool any = false;
	for (int t = 0; t < sp->ntypes; t++)
		any |= sp->types[t].mig > 0;
	if (any) {
		s->node_mig = pp_xmalloc((size_t)s->nnodes);
		memset(s->node_mig, -1, (size_t)s->nnodes); /* a spot pool's nodes: not MIG */
		s->mig = pp_xcalloc((size_t)s->nnodes * (size_t)s->G, sizeof(*s->mig));
		for (int t = 0, n = 0; t < sp->ntypes; t++)
			for (int k = 0; k < sp->types[t].count && n < s->nnodes; k++)
				s->node_mig[n++] = (int8_t)(sp->types[t].mig - 1);
	}
	for (int j = 0; j < s->jobs->n; j++) {
		const pp_cjob *x = &s->jobs->v[j];
		if (!x->mig_compute)
			continue;
		bool ok = false;
		for (int t = 0; t < sp->ntypes && !ok; t++)
			ok = sp->types[t].mig > 0 &&
			     pp_mig_find(sp->types[t].mig - 1, x->mig_compute, x->mig_gb);
		if (!ok)
			return pp_errf(s->err, PP_EINPUT, "job %s: mig_profile %dg.%dgb: no node type "
				       "offers it; expected a profile of a node type's \"mig\" GPU "
				       "(cluster/cmig.h: NVIDIA's MIG user guide)",
				       pp_cjobs_id(s->jobs, x), (int)x->mig_compute, (int)x->mig_gb);
	}
	return 0;
}

int cs_place_init(cs_sim *s)
{
	const pp_cspec *sp = s->spec;
	s->G = sp->gpus_per_node;
	/* a spot pool's nodes follow the on-demand ones, in leaves of their own */
	s->spot_first = sp->nodes;
	s->nnodes = sp->nodes + s->spot_nodes;
	int per_leaf = sp->nodes_per_leaf > 0 ? sp->nodes_per_leaf : sp->nodes;
	s->od_leaves = (sp->nodes + per_leaf - 1) / per_leaf;
	s->nleaves = s->od_leaves + (s->spot_nodes + per_leaf - 1) / per_leaf;
	s->leaf_lo = 0;
	s->leaf_hi = s->od_leaves;
	s->nodes = pp_xcalloc((size_t)s->nnodes, sizeof(*s->nodes));
	s->bhead = pp_xmalloc((size_t)s->nleaves * (size_t)(s->G + 1) * sizeof(int));
	for (int i = 0; i < s->nleaves * (s->G + 1); i++)
		s->bhead[i] = -1;
	s->cnt = pp_xcalloc((size_t)s->G + 1, sizeof(int));
	s->cntl = pp_xcalloc((size_t)s->nleaves * (size_t)(s->G + 1), sizeof(int));
	if (s->has_frac) {
		s->milli = pp_xmalloc((size_t)s->nnodes * (size_t)s->G * sizeof(uint16_t));
		for (size_t i = 0; i < (size_t)s->nnodes * (size_t)s->G; i++)
			s->milli[i] = 1000;
		if (sp->placement == PP_CPLACE_FGD)
			fgd_init(s);
	}
	int rc = mig_init(s);
	if (rc)
		return rc;
	/* lemon nodes: every k-th node, so the choice does not draw from the
	 * random stream the failures use */
	int nlemon = (int)(sp->lemon_fraction * s->nnodes + 0.5);
	for (int n = 0; n < s->nnodes; n++) {
		cs_node *x = &s->nodes[n];
		x->free = s->G;
		x->leaf = n < sp->nodes ? n / per_leaf : s->od_leaves + (n - sp->nodes) / per_leaf;
		x->up = true;
		x->lemon = nlemon > 0 && n % (s->nnodes / nlemon > 0 ? s->nnodes / nlemon : 1) == 0 &&
			   n / (s->nnodes / nlemon > 0 ? s->nnodes / nlemon : 1) < nlemon;
		blist_add(s, n);
	}
	s->free_gpus = s->up_gpus = s->nnodes * s->G;
	return 0;
}

void cs_place_release(cs_sim *s)
{
	for (int n = 0; n < s->nnodes; n++)
		free(s->nodes[n].jobs);
	free(s->nodes);
	free(s->bhead);
	free(s->cnt);
	free(s->cntl);
	free(s->milli);
	free(s->fgd_kinds);
	free(s->mig);
	free(s->node_mig);
}

void cs_shape(const cs_sim *s, const pp_cjob *x, int *nodes, int *per_node)
{
	int G = s->G;
	int n = (x->gpus + G - 1) / G;
	if (x->nodes > n)
		n = x->nodes;
	if (n < 1)
		n = 1;
	if (n > x->gpus)
		n = x->gpus;
	*nodes = n;
	*per_node = (x->gpus + n - 1) / n;
}

static void node_add_job(cs_node *x, int j)
{
	if (x->njobs == x->capjobs) {
		x->capjobs = x->capjobs ? 2 * x->capjobs : 4;
		x->jobs = pp_xrealloc(x->jobs, (size_t)x->capjobs * sizeof(int));
	}
	x->jobs[x->njobs++] = j;
}

static void node_drop_job(cs_node *x, int j)
{
	for (int i = 0; i < x->njobs; i++)
		if (x->jobs[i] == j) {
			x->jobs[i] = x->jobs[--x->njobs];
			return;
		}
}

/* take k whole GPUs of node n for job j into slot */
static void take(cs_sim *s, int n, int k, int j, cs_slot *slot)
{
	cs_node *x = &s->nodes[n];
	blist_remove(s, n);
	x->free -= k;
	s->free_gpus -= k;
	blist_add(s, n);
	slot->node = n;
	slot->ngpu = k;
	slot->mask = 0;
	if (s->milli) {
		uint16_t *m = &s->milli[(size_t)n * (size_t)s->G];
		for (int g = 0, got = 0; g < s->G && got < k; g++)
			if (m[g] == 1000) {
				m[g] = 0;
				slot->mask |= 1ull << g;
				got++;
			}
	}
	node_add_job(x, j);
}

/* the fullest (pack) or emptiest (spread) node with at least k whole
 * GPUs free, -1 when none; leaf >= 0 looks there only */
static int pick_node(const cs_sim *s, int k, int leaf)
{
	int G = s->G;
	bool pack = s->spec->placement != PP_CPLACE_SPREAD;
	for (int i = 0; i <= G - k; i++) {
		int f = pack ? k + i : G - i;
		if (s->cnt[f] == 0)
			continue;
		if (leaf >= 0) {
			if (s->cntl[bidx(s, leaf, f)] > 0)
				return s->bhead[bidx(s, leaf, f)];
			continue;
		}
		for (int l = s->leaf_lo; l < s->leaf_hi; l++)
			if (s->cntl[bidx(s, l, f)] > 0)
				return s->bhead[bidx(s, l, f)];
	}
	return -1;
}

static int eligible(const cs_sim *s, int leaf, int k)
{
	int e = 0;
	for (int f = k; f <= s->G; f++)
		e += s->cntl[bidx(s, leaf, f)];
	return e;
}

static int cmp_desc(const void *a, const void *b)
{
	const int *x = a, *y = b;
	return x[0] != y[0] ? (x[0] < y[0] ? 1 : -1) : x[1] - y[1];
}

/* a node that is not MIG with a whole GPU free: the fullest (pack, fgd)
 * or emptiest (spread); -1 when none */
static int pick_plain_node(const cs_sim *s)
{
	bool pack = s->spec->placement != PP_CPLACE_SPREAD;
	int best = -1;
	for (int n = 0; n < s->nnodes; n++) {
		const cs_node *x = &s->nodes[n];
		if (!x->up || x->free < 1 || s->node_mig[n] >= 0 || x->leaf < s->leaf_lo ||
		    x->leaf >= s->leaf_hi)
			continue;
		if (best < 0 || (pack ? x->free < s->nodes[best].free : x->free > s->nodes[best].free))
			best = n;
	}
	return best;
}

/* A MIG instance (cmig.h): on a MIG node's GPU that already holds
 * instances, the one with the most memory slices held (pack), at the
 * lowest start the profile allows; else on a free GPU of the fullest MIG
 * node (the emptiest under spread). The slot keeps the GPU and the start
 * in frac_gpu (gpu x 8 + start). */
static bool place_mig(cs_sim *s, int j, const pp_cjob *x)
{
	if (!s->mig)
		return false;
	int G = s->G, bn = -1, bg = -1, bs = -1, bused = -1, bfree = -1;
	bool spread = s->spec->placement == PP_CPLACE_SPREAD;
	for (int n = 0; n < s->nnodes; n++) {
		if (!s->nodes[n].up || s->node_mig[n] < 0)
			continue;
		const pp_mig_profile *p = pp_mig_find(s->node_mig[n], x->mig_compute, x->mig_gb);
		if (!p)
			continue;
		for (int g = 0; g < G; g++) {
			size_t i = (size_t)n * (size_t)G + (size_t)g;
			bool in_mig = s->mig[i].mem_used != 0;
			if (!in_mig && s->milli[i] != 1000)
				continue; /* a whole-GPU job holds it */
			int st = pp_mig_fit(&s->mig[i], p);
			if (st < 0)
				continue;
			int used = __builtin_popcount(s->mig[i].mem_used);
			int nf = s->nodes[n].free;
			bool better;
			if (bn < 0)
				better = true;
			else if ((used > 0) != (bused > 0))
				better = used > 0;
			else if (used > 0)
				better = used > bused;
			else
				better = spread ? nf > bfree : nf < bfree;
			if (better) {
				bn = n;
				bg = g;
				bs = st;
				bused = used;
				bfree = nf;
			}
		}
	}
	if (bn < 0)
		return false;
	size_t i = (size_t)bn * (size_t)G + (size_t)bg;
	if (s->mig[i].mem_used == 0) { /* the GPU's first instance */
		cs_node *nd = &s->nodes[bn];
		blist_remove(s, bn);
		nd->free--;
		s->free_gpus--;
		blist_add(s, bn);
		s->milli[i] = 0;
	}
	pp_mig_take(&s->mig[i], pp_mig_find(s->node_mig[bn], x->mig_compute, x->mig_gb), bs);
	cs_job *J = &s->js[j];
	J->slots = pp_xcalloc(1, sizeof(cs_slot));
	J->nslots = 1;
	node_add_job(&s->nodes[bn], j);
	J->slots[0].node = bn;
	J->slots[0].ngpu = 0;
	J->frac_gpu = bg * 8 + bs;
	J->alloc_gpus = 0;
	J->spans_leaf = false;
	return true;
}

/* a share by fragmentation gradient descent (cfgd.h): the up node and GPU
 * whose fragmentation grows least, by the integer score; the lowest node
 * and GPU index among equal scores. O(nodes x GPUs^2 x kinds) a share. */
static bool place_frac_fgd(cs_sim *s, int j, int need)
{
	int G = s->G, bn = -1, bg = -1;
	int64_t top = -1;
	uint16_t m2[64];
	for (int n = 0; n < s->nnodes; n++) {
		if (!s->nodes[n].up || (s->node_mig && s->node_mig[n] >= 0))
			continue; /* a MIG node's GPUs serve MIG instances only */
		if (s->nodes[n].leaf < s->leaf_lo || s->nodes[n].leaf >= s->leaf_hi)
			continue; /* the spot pool's nodes or the on-demand ones only */
		const uint16_t *m = &s->milli[(size_t)n * (size_t)G];
		double before = NAN;
		for (int g = 0; g < G; g++) {
			if (m[g] < need)
				continue;
			bool seen = false; /* a GPU with the same free share scores the same */
			for (int h = 0; h < g; h++)
				seen |= m[h] == m[g];
			if (seen)
				continue;
			if (isnan(before))
				before = pp_fgd_frag(s->fgd_kinds, s->fgd_nk, -1, INT32_MAX, m, G);
			memcpy(m2, m, (size_t)G * sizeof(*m2));
			m2[g] = (uint16_t)(m2[g] - need);
			int64_t sc = pp_fgd_score(before, pp_fgd_frag(s->fgd_kinds, s->fgd_nk, -1,
								    INT32_MAX, m2, G));
			if (sc > top) {
				top = sc;
				bn = n;
				bg = g;
			}
		}
	}
	if (bn < 0)
		return false;
	cs_job *J = &s->js[j];
	uint16_t *m = &s->milli[(size_t)bn * (size_t)G + (size_t)bg];
	if (*m == 1000) { /* a whole GPU starts to be shared */
		cs_node *nd = &s->nodes[bn];
		blist_remove(s, bn);
		nd->free--;
		s->free_gpus--;
		blist_add(s, bn);
	}
	*m = (uint16_t)(*m - need);
	J->slots = pp_xcalloc(1, sizeof(cs_slot));
	J->nslots = 1;
	node_add_job(&s->nodes[bn], j);
	J->slots[0].node = bn;
	J->slots[0].ngpu = 0;
	J->frac_gpu = bg;
	J->alloc_gpus = 0;
	J->spans_leaf = false;
	return true;
}

static bool place_frac(cs_sim *s, int j, const pp_cjob *x)
{
	cs_job *J = &s->js[j];
	int need = x->gpu_milli, bn = -1, bg = -1, best = 1001;
	if (s->spec->placement == PP_CPLACE_FGD)
		return place_frac_fgd(s, j, need);
	/* best fit among the partly used GPUs */
	for (int n = 0; n < s->nnodes; n++) {
		if (!s->nodes[n].up || (s->node_mig && s->node_mig[n] >= 0))
			continue; /* a MIG node's GPUs serve MIG instances only */
		if (s->nodes[n].leaf < s->leaf_lo || s->nodes[n].leaf >= s->leaf_hi)
			continue; /* the spot pool's nodes or the on-demand ones only */
		const uint16_t *m = &s->milli[(size_t)n * (size_t)s->G];
		for (int g = 0; g < s->G; g++)
			if (m[g] < 1000 && m[g] >= need && m[g] < best) {
				best = m[g];
				bn = n;
				bg = g;
			}
	}
	J->slots = pp_xcalloc(1, sizeof(cs_slot));
	J->nslots = 1;
	if (bn < 0) {
		int n = s->node_mig ? pick_plain_node(s) : pick_node(s, 1, -1);
		if (n < 0) {
			free(J->slots);
			J->slots = NULL;
			J->nslots = 0;
			return false;
		}
		uint16_t *m = &s->milli[(size_t)n * (size_t)s->G];
		for (bg = 0; m[bg] != 1000; bg++)
			;
		cs_node *nd = &s->nodes[n];
		blist_remove(s, n);
		nd->free--;
		s->free_gpus--;
		blist_add(s, n);
		bn = n;
	}
	s->milli[(size_t)bn * (size_t)s->G + (size_t)bg] -= (uint16_t)need;
	node_add_job(&s->nodes[bn], j);
	J->slots[0].node = bn;
	J->slots[0].ngpu = 0;
	J->frac_gpu = bg;
	J->alloc_gpus = 0;
	J->spans_leaf = false;
	return true;
}

bool cs_place(cs_sim *s, int j)
{
	const pp_cjob *x = &s->jobs->v[j];
	cs_job *J = &s->js[j];
	if (x->mig_compute)
		return place_mig(s, j, x);
	if (x->gpu_milli < 1000)
		return place_frac(s, j, x);
	int nn, k;
	cs_shape(s, x, &nn, &k);
	if (nn * k > s->free_gpus)
		return false;
	if (nn == 1) {
		int n = pick_node(s, k, -1);
		if (n < 0)
			return false;
		J->slots = pp_xcalloc(1, sizeof(cs_slot));
		J->nslots = 1;
		take(s, n, k, j, &J->slots[0]);
		J->alloc_gpus = k;
		J->spans_leaf = false;
		return true;
	}
	int topo = x->topo ? x->topo - 1 : (int)s->spec->topology_mode;
	int per_leaf = s->spec->nodes_per_leaf;
	int leaf = -1;
	int total = 0;
	int *el = pp_xmalloc((size_t)s->nleaves * 2 * sizeof(int));
	for (int l = 0; l < s->nleaves; l++) {
		el[2 * l] = l >= s->leaf_lo && l < s->leaf_hi ? eligible(s, l, k) : 0;
		el[2 * l + 1] = l;
		total += el[2 * l];
	}
	if (total < nn) {
		free(el);
		return false;
	}
	if (topo != PP_CTOPO_NONE && nn <= per_leaf) {
		bool pack = s->spec->placement != PP_CPLACE_SPREAD;
		int best = -1;
		for (int l = 0; l < s->nleaves; l++)
			if (el[2 * l] >= nn &&
			    (best < 0 || (pack ? el[2 * l] < el[2 * best] : el[2 * l] > el[2 * best])))
				best = l;
		leaf = best;
		if (leaf < 0 && topo == PP_CTOPO_REQUIRED) {
			free(el);
			return false;
		}
	}
	J->slots = pp_xcalloc((size_t)nn, sizeof(cs_slot));
	J->nslots = nn;
	int got = 0;
	if (leaf >= 0) {
		for (; got < nn; got++)
			take(s, pick_node(s, k, leaf), k, j, &J->slots[got]);
		J->spans_leaf = false;
	} else {
		/* across leaves: the leaves with the most room first, so the
		 * job spans as few as it can */
		qsort(el, (size_t)s->nleaves, 2 * sizeof(int), cmp_desc);
		int used = 0;
		for (int i = 0; i < s->nleaves && got < nn; i++) {
			int l = el[2 * i + 1], take_n = el[2 * i];
			if (take_n <= 0)
				continue;
			used++;
			for (int c = 0; c < take_n && got < nn; c++, got++)
				take(s, pick_node(s, k, l), k, j, &J->slots[got]);
		}
		J->spans_leaf = used > 1;
	}
	free(el);
	J->alloc_gpus = nn * k;
	return true;
}

void cs_unplace(cs_sim *s, int j)
{
	cs_job *J = &s->js[j];
	const pp_cjob *x = &s->jobs->v[j];
	for (int i = 0; i < J->nslots; i++) {
		cs_slot *sl = &J->slots[i];
		cs_node *nd = &s->nodes[sl->node];
		node_drop_job(nd, j);
		if (x->mig_compute) {
			int g = J->frac_gpu / 8, st = J->frac_gpu % 8;
			size_t mi = (size_t)sl->node * (size_t)s->G + (size_t)g;
			pp_mig_give(&s->mig[mi], pp_mig_find(s->node_mig[sl->node], x->mig_compute,
							     x->mig_gb), st);
			if (s->mig[mi].mem_used == 0) { /* its last instance */
				s->milli[mi] = 1000;
				if (nd->up) {
					blist_remove(s, sl->node);
					nd->free++;
					s->free_gpus++;
					blist_add(s, sl->node);
				}
			}
			continue;
		}
		if (x->gpu_milli < 1000) {
			uint16_t *m = &s->milli[(size_t)sl->node * (size_t)s->G + (size_t)J->frac_gpu];
			*m = (uint16_t)(*m + x->gpu_milli);
			if (*m == 1000 && nd->up) {
				blist_remove(s, sl->node);
				nd->free++;
				s->free_gpus++;
				blist_add(s, sl->node);
			}
			continue;
		}
		if (s->milli)
			for (int g = 0; g < s->G; g++)
				if (sl->mask >> g & 1)
					s->milli[(size_t)sl->node * (size_t)s->G + (size_t)g] = 1000;
		if (!nd->up)
			continue; /* a failed node's GPUs come back with its repair */
		blist_remove(s, sl->node);
		nd->free += sl->ngpu;
		s->free_gpus += sl->ngpu;
		blist_add(s, sl->node);
	}
	free(J->slots);
	J->slots = NULL;
	J->nslots = 0;
	J->alloc_gpus = 0;
}

void cs_node_down(cs_sim *s, int n)
{
	cs_node *x = &s->nodes[n];
	blist_remove(s, n);
	s->free_gpus -= x->free;
	s->up_gpus -= s->G;
	s->down_gpus += s->G;
	x->up = false;
}

void cs_node_up(cs_sim *s, int n)
{
	cs_node *x = &s->nodes[n];
	x->up = true;
	x->free = s->G;
	if (s->milli)
		for (int g = 0; g < s->G; g++)
			s->milli[(size_t)n * (size_t)s->G + (size_t)g] = 1000;
	if (s->mig)
		memset(&s->mig[(size_t)n * (size_t)s->G], 0, (size_t)s->G * sizeof(*s->mig));
	s->free_gpus += s->G;
	s->up_gpus += s->G;
	s->down_gpus -= s->G;
	blist_add(s, n);
}

double cs_frag_for(const cs_sim *s, int j)
{
	const pp_cjob *x = &s->jobs->v[j];
	int nn, k;
	cs_shape(s, x, &nn, &k);
	if (x->gpu_milli < 1000)
		k = 1;
	double frag = 0;
	for (int f = 1; f < k && f <= s->G; f++)
		frag += (double)f * s->cnt[f];
	return frag;
}
