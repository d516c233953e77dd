/* kvpool.c - see kvpool.h. The free queue is a doubly linked list of
 * nodes: a run of anonymous blocks (a count) or one cached prefix block. */
#include "serve/kvpool.h"
#include "core/util.h"

#include <stdlib.h>

typedef struct node {
	int64_t count;   /* anonymous blocks; 0 for a prefix block's node */
	int64_t j;       /* the prefix block (count == 0) */
	int prev, next;
} node;

struct pp_kvpool {
	int64_t total, nfree;
	int64_t peak_demand;     /* the most blocks in use plus asked for, at any ask */
	node *nodes;
	int nnodes, cap, spare;  /* spare: head of the list of unused nodes */
	int head, tail;
	int64_t np;              /* prefix blocks */
	int *ref;                /* readers of each prefix block */
	bool *cached;
	int *at;                 /* its node while idle in the queue, else -1 */
};

static int node_new(pp_kvpool *p)
{
	int i;
	if (p->spare >= 0) {
		i = p->spare;
		p->spare = p->nodes[i].next;
	} else {
		if (p->nnodes == p->cap) {
			p->cap = p->cap ? 2 * p->cap : 64;
			p->nodes = pp_xrealloc(p->nodes, sizeof(node) * (size_t)p->cap);
		}
		i = p->nnodes++;
	}
	p->nodes[i].prev = p->nodes[i].next = -1;
	return i;
}

static void unlink_node(pp_kvpool *p, int i)
{
	node *n = &p->nodes[i];
	if (n->prev >= 0)
		p->nodes[n->prev].next = n->next;
	else
		p->head = n->next;
	if (n->next >= 0)
		p->nodes[n->next].prev = n->prev;
	else
		p->tail = n->prev;
	n->next = p->spare;
	p->spare = i;
}

static void append(pp_kvpool *p, int64_t count, int64_t j)
{
	if (count > 0 && p->tail >= 0 && p->nodes[p->tail].count > 0) {
		p->nodes[p->tail].count += count;
		return;
	}
	int i = node_new(p);
	p->nodes[i].count = count;
	p->nodes[i].j = j;
	p->nodes[i].prev = p->tail;
	if (p->tail >= 0)
		p->nodes[p->tail].next = i;
	else
		p->head = i;
	p->tail = i;
}

pp_kvpool *pp_kvpool_new(int64_t nblocks, int64_t prefix_blocks)
{
	pp_kvpool *p = pp_xcalloc(1, sizeof(*p));
	p->total = p->nfree = nblocks > 0 ? nblocks : 0;
	p->head = p->tail = p->spare = -1;
	p->np = prefix_blocks > 0 ? prefix_blocks : 0;
	p->ref = pp_xcalloc((size_t)p->np + 1, sizeof(int));
	p->cached = pp_xcalloc((size_t)p->np + 1, sizeof(bool));
	p->at = pp_xcalloc((size_t)p->np + 1, sizeof(int));
	for (int64_t j = 0; j < p->np; j++)
		p->at[j] = -1;
	if (p->nfree)
		append(p, p->nfree, 0);
	return p;
}

void pp_kvpool_free(pp_kvpool *p)
{
	if (!p)
		return;
	free(p->nodes);
	free(p->ref);
	free(p->cached);
	free(p->at);
	free(p);
}

int64_t pp_kvpool_free_blocks(const pp_kvpool *p) { return p->nfree; }
int64_t pp_kvpool_total(const pp_kvpool *p) { return p->total; }

bool pp_kvpool_prefix_cached(const pp_kvpool *p, int64_t j)
{
	return j >= 0 && j < p->np && p->cached[j];
}

int64_t pp_kvpool_prefix_hit(const pp_kvpool *p, int64_t max)
{
	int64_t n = 0;
	while (n < max && n < p->np && p->cached[n])
		n++;
	return n;
}

int64_t pp_kvpool_prefix_idle(const pp_kvpool *p, int64_t n)
{
	int64_t idle = 0;
	for (int64_t j = 0; j < n && j < p->np; j++)
		idle += p->cached[j] && p->ref[j] == 0;
	return idle;
}

bool pp_kvpool_fits(pp_kvpool *p, int64_t n)
{
	int64_t d = p->total - p->nfree + (n > 0 ? n : 0);
	if (d > p->peak_demand)
		p->peak_demand = d;
	return n <= p->nfree;
}

int64_t pp_kvpool_peak_demand(const pp_kvpool *p)
{
	return p->peak_demand;
}

bool pp_kvpool_alloc(pp_kvpool *p, int64_t n)
{
	if (n <= 0)
		return true;
	if (!pp_kvpool_fits(p, n))
		return false;
	p->nfree -= n;
	while (n > 0) {
		int i = p->head;
		node *h = &p->nodes[i];
		if (h->count > 0) {
			int64_t take = h->count < n ? h->count : n;
			h->count -= take;
			n -= take;
			if (h->count == 0)
				unlink_node(p, i);
		} else { /* an idle cached prefix block: evicted */
			p->cached[h->j] = false;
			p->at[h->j] = -1;
			unlink_node(p, i);
			n--;
		}
	}
	return true;
}

void pp_kvpool_ref_prefix(pp_kvpool *p, int64_t n)
{
	for (int64_t j = 0; j < n && j < p->np; j++) {
		if (p->ref[j] == 0 && p->at[j] >= 0) {
			unlink_node(p, p->at[j]);
			p->at[j] = -1;
			p->nfree--;
		}
		p->ref[j]++;
	}
}

bool pp_kvpool_adopt_prefix(pp_kvpool *p, int64_t j)
{
	if (j < 0 || j >= p->np || p->cached[j])
		return false;
	p->cached[j] = true;
	p->ref[j] = 1;
	return true;
}

void pp_kvpool_release(pp_kvpool *p, int64_t own, int64_t nprefix)
{
	if (own > 0) {
		append(p, own, 0);
		p->nfree += own;
	}
	for (int64_t j = (nprefix < p->np ? nprefix : p->np) - 1; j >= 0; j--) {
		if (--p->ref[j] > 0)
			continue;
		append(p, 0, j);
		p->at[j] = p->tail;
		p->nfree++;
	}
}
