/*
 * replaycount.h - what one GPU's list of a replay plan (replayplan.h)
 * holds: the largest buffers it needs, which the executor allocates once
 * (calibrate/replay.c), and its instruction counts and volumes, for
 * reports and tests.
 */
#ifndef PP_REPLAYCOUNT_H
#define PP_REPLAYCOUNT_H

#include "calib/replayplan.h"

/* Largest buffers a GPU needs (bytes): GEMM operands, memory-kernel
 * source/destination, and per stream one collective buffer (in place). */
typedef struct pp_rplan_max {
	double gemm_a, gemm_b, gemm_d, mem, coll[PP_RS_COUNT];
} pp_rplan_max;
void pp_rplan_maxima(const pp_rplan *p, int gpu, pp_rplan_max *m);

/* Counts over one GPU's list, for reports and tests. */
typedef struct pp_rplan_counts {
	int gemms, mems, colls, sends, recvs, records, waits;
	double gemm_flops, mem_bytes, coll_bytes[PP_RS_COUNT], p2p_bytes;
} pp_rplan_counts;
void pp_rplan_count(const pp_rplan *p, int gpu, pp_rplan_counts *c);

#endif
