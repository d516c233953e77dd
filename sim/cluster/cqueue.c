/*
 * cqueue.c - the cluster simulation's waiting jobs (csimint.h): the pending
 * list in priority then submission order, the queues' quotas with
 * borrowing (Kueue's nominal quota and borrowing limit), and EASY
 * backfill's reservation for the blocked job. State the scheduler in
 * csim.c reads and changes; no events are made here.
 */
#include "cluster/csimint.h"

#include <math.h>

/* ---- pending list: by priority (high first), then submission ---- */

bool cs_pend_before(const cs_sim *s, int a, int b)
{
	if (s->js[a].prio != s->js[b].prio)
		return s->js[a].prio > s->js[b].prio;
	double ta = cs_jx(s, a)->submit_s, tb = cs_jx(s, b)->submit_s;
	return ta != tb ? ta < tb : a < b;
}

void cs_pend_insert(cs_sim *s, int j)
{
	cs_job *J = &s->js[j];
	J->st = ST_PEND;
	s->npend++;
	s->pend_gpus += cs_jx(s, j)->gpus;
	if (s->pend_tail < 0) {
		J->prev = J->next = -1;
		s->pend_head = s->pend_tail = j;
		return;
	}
	if (!cs_pend_before(s, j, s->pend_tail)) { /* the common case: an arrival */
		J->prev = s->pend_tail;
		J->next = -1;
		s->js[s->pend_tail].next = j;
		s->pend_tail = j;
		return;
	}
	int at = s->pend_head;
	while (at >= 0 && !cs_pend_before(s, j, at))
		at = s->js[at].next;
	/* insert before at */
	J->next = at;
	J->prev = s->js[at].prev;
	if (J->prev >= 0)
		s->js[J->prev].next = j;
	else
		s->pend_head = j;
	s->js[at].prev = j;
}

void cs_pend_remove(cs_sim *s, int j)
{
	cs_job *J = &s->js[j];
	if (J->prev >= 0)
		s->js[J->prev].next = J->next;
	else
		s->pend_head = J->next;
	if (J->next >= 0)
		s->js[J->next].prev = J->prev;
	else
		s->pend_tail = J->prev;
	J->prev = J->next = -1;
	s->npend--;
	s->pend_gpus -= cs_jx(s, j)->gpus;
}

/* ---- quotas and the backfill reservation ---- */

bool cs_quota_ok(const cs_sim *s, int j)
{
	int q = s->js[j].queue_spec;
	if (q < 0)
		return true;
	const pp_cqueue *Q = &s->spec->queues[q];
	if (Q->nominal_quota_gpus < 0)
		return true;
	int g = cs_jx(s, j)->gpus;
	int after = s->qused[q] + g;
	if (after <= Q->nominal_quota_gpus)
		return true;
	if (Q->borrowing_limit_gpus >= 0 && after > Q->nominal_quota_gpus + Q->borrowing_limit_gpus)
		return false;
	/* borrow only what other queues leave unused of their nominal quota */
	long lendable = 0, borrowed = 0;
	for (int i = 0; i < s->spec->nqueues; i++) {
		const pp_cqueue *o = &s->spec->queues[i];
		if (o->nominal_quota_gpus < 0)
			continue;
		if (s->qused[i] < o->nominal_quota_gpus)
			lendable += o->nominal_quota_gpus - s->qused[i];
		else
			borrowed += s->qused[i] - o->nominal_quota_gpus;
	}
	int over_before = s->qused[q] > Q->nominal_quota_gpus ? s->qused[q] - Q->nominal_quota_gpus : 0;
	int delta = after - Q->nominal_quota_gpus - over_before;
	return borrowed + delta <= lendable;
}

/* Earlier end first; equal ends in the heap's fixed order (core/heap.h). */
static bool end_less(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return ((const cs_end *)a)->end_s < ((const cs_end *)b)->end_s;
}

/* EASY backfill's reservation for blocked job j: the earliest time the
 * running jobs' expected ends free enough GPUs, and what is left over
 * then. The ends are taken from a heap (built in linear time) only as far
 * as the reservation needs: a few, usually, of hundreds running. */
void cs_reserve(cs_sim *s, int j)
{
	int nn, k;
	cs_shape(s, cs_jx(s, j), &nn, &k);
	int need = nn * k;
	pp_heap *h = &s->resv;
	cs_end *e = s->resv_items;
	for (int i = 0; i < s->nrunning; i++)
		e[i] = (cs_end){s->js[s->running[i]].est_end, s->js[s->running[i]].alloc_gpus};
	pp_heap_build(h, e, (size_t)s->nrunning, sizeof(cs_end), end_less, NULL);
	int avail = s->free_gpus;
	s->shadow_s = INFINITY;
	s->extra_gpus = 0;
	while (pp_heap_len(h) > 0) {
		cs_end x;
		pp_heap_pop(h, &x, sizeof(x), end_less, NULL);
		avail += x.gpus;
		if (avail >= need) {
			s->shadow_s = x.end_s;
			s->extra_gpus = avail - need;
			break;
		}
	}
}
