/*
 * cqueue.c - the cluster simulation's waiting jobs (csimint.h): the pending
 * list in priority then submission order, the queues' quotas with
 * borrowing (Kueue's nominal quota and borrowing limit), and EASY
 * backfill's reservation for the blocked job, and when Slurm's
 * background pass considers a submitted batch job. State the scheduler in
 * csim.c reads and changes; the only event made here is that pass.
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

/* ---- Slurm's dispatch of batch jobs ---- */

/* SchedMD/slurm @09d36e4 (slurm-22-05-11-1, as in 17.11 and 23.02):
 * _slurm_rpc_submit_batch_job (proc_req.c) creates the job with
 * job_allocate(..., allocate=false), which never starts it, and calls
 * queue_job_scheduler(), which only counts the request.
 * _slurmctld_background (controller.c) sleeps 10 x 100 ms, takes
 * time(NULL) (whole seconds), and calls schedule() when
 * difftime(now, last_sched_time) >= batch_sched_delay (default 3), or a
 * full pass when sched_interval (default 60) has passed since the last
 * one; both set last_sched_time. A job's end (epilog complete) calls
 * schedule() at once: csim.c runs a pass on every event that frees GPUs,
 * as before. A pass started at tick time tau starts jobs at time(NULL) =
 * floor(tau).
 * The loop's ticks come one a second at no fixed point of the second
 * (its work adds to the sleep); arrivals' fractions of a second are
 * uniform, so the phase does not change the distribution of delays, and
 * ticks are taken at the middle of each second, k + TICK_PHASE. (From
 * slurm-23-11 on the loop waits until time(NULL) + 1, so the phase is 0.) */
#define TICK_PHASE 0.5

void cs_batch_arrival(cs_sim *s)
{
	if (s->bg_pending)
		return;
	const pp_cspec *sp = s->spec;
	double k = floor(s->now - TICK_PHASE) + 1; /* the next tick's second */
	double last = s->bg_last_s;                /* the last pass's second */
	double full = INFINITY;
	if (sp->sched_interval_s > 0) {
		/* full passes on their own clock, from time 0 */
		double kf = floor((k - 1) / sp->sched_interval_s) * sp->sched_interval_s;
		if (kf > last)
			last = kf;
		full = kf + sp->sched_interval_s;
	}
	if (k < last + sp->batch_sched_delay_s)
		k = ceil(last + sp->batch_sched_delay_s);
	if (k > full)
		k = full;
	s->bg_pending = true;
	pp_cheap_push(&s->heap, k + TICK_PHASE, EV_BGPASS, -1, 0);
}

void cs_batch_pass(cs_sim *s)
{
	s->bg_pending = false;
	s->bg_last_s = floor(s->now);
	s->dirty = true; /* schedule() walks the whole pending queue */
}
