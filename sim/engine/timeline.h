/*
 * timeline.h - a simulated step's pipeline schedule as each rank ran it:
 * its forward and backward actions (pipeorder.h: a forward F, a full
 * backward B, an input gradient I, a weight gradient W; an overlapped
 * pair's forward marked) in the order its compute stream ran them, each
 * with its start and end, read off a finished event simulation.
 */
#ifndef PP_TIMELINE_H
#define PP_TIMELINE_H

#include "engine/des.h"
#include "engine/pipeorder.h"
#include "core/util.h"

typedef struct pp_action_span {
	int rank;
	pp_unit u;
	int64_t start_ns, end_ns;
} pp_action_span;

/* The actions of every rank of the finished simulation d, rank by rank and
 * in the order each ran them (a unit's layer tasks are one action). The
 * array is malloc'd; the caller frees it. Returns the count. */
int pp_timeline_of(const pp_des *d, pp_action_span **out);

/* The same as text into out: per rank its busy time, its idle time
 * between its first and its last action, split into the schedule's bubble
 * and the time it waits on the busiest rank (at least the work that rank
 * has more: it sets every rank's pace; so a user tells an imbalanced
 * layout from the schedule's own bubble), then each action as
 * F<mb>c<chunk> (B, I, W; "&" after an overlapped pair's forward) with its
 * start and end in milliseconds. title names the schedule. */
void pp_timeline_text(const pp_des *d, const char *title, pp_sb *out);

#endif
