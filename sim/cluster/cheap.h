/*
 * cheap.h - the cluster simulation's event queue: a binary min-heap of
 * (time, sequence, kind, subject, generation) records.
 *
 * The typed face of core/heap.h for the cluster simulation: the event
 * record and its order. Ties in time are broken by the push sequence
 * number, so events of one instant come out in the order they were pushed,
 * the same on every machine.
 *
 * Ownership: the heap owns its array; pp_cheap_release() frees it.
 */
#ifndef PP_CHEAP_H
#define PP_CHEAP_H

#include "core/heap.h"
#include <stdbool.h>
#include <stdint.h>

typedef struct pp_cev {
	double t_s;        /* when, seconds from the trace's start */
	uint64_t seq;      /* push order: the tie-break */
	int32_t kind;      /* the simulation's event kind */
	int32_t who;       /* a job or node index */
	uint32_t gen;      /* the subject's generation when pushed: stale events are skipped */
} pp_cev;

typedef struct pp_cheap {
	pp_heap h;         /* of pp_cev */
	uint64_t seq;
} pp_cheap;

void pp_cheap_init(pp_cheap *h);
void pp_cheap_release(pp_cheap *h);
/* Push an event (seq is assigned here). Allocation failure aborts. */
void pp_cheap_push(pp_cheap *h, double t_s, int kind, int who, uint32_t gen);
/* Pop the earliest event into *e; false when empty. */
bool pp_cheap_pop(pp_cheap *h, pp_cev *e);
/* The earliest event's time; INFINITY when empty. */
double pp_cheap_peek_t(const pp_cheap *h);

#endif
