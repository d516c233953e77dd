/*
 * des.h - a small discrete-event simulator of tasks on resources.
 *
 * A resource is either an in-order stream (a CUDA stream: tasks start in the
 * order they were added, each after the previous one ends) or a FIFO link
 * shared by several producers (a NIC, a storage target: released tasks run
 * one at a time in release order). A task has a duration in int64
 * nanoseconds and starts when its resource lets it and every task it
 * depends on has ended. pp_des_run() processes completion events in time
 * order (ties by task id, so runs are reproducible).
 *
 * Ownership: pp_des_new() returns a heap object; pp_des_clear() keeps the
 * allocations for reuse; pp_des_free() releases everything.
 */
#ifndef PP_DES_H
#define PP_DES_H

#include "core/pp.h"
#include <stdbool.h>
#include <stdint.h>

typedef struct pp_des pp_des;

/* What a task is, for traces and accounting, and what it moves, so that a
 * consumer that executes the graph (the replay) never has to turn a
 * duration back into a size. The meaning of cat, op and group is the
 * caller's (engine/program.h, engine/stepcost.h). */
typedef struct pp_des_tag {
	uint8_t cat;        /* category */
	uint8_t chunk;      /* model chunk (interleaving) */
	int16_t layer;      /* -1 = not a layer task */
	int32_t mb;         /* micro-batch, -1 = none */
	uint8_t op;         /* the collective of a communication task */
	uint8_t group;      /* who takes part */
	uint8_t elem_bytes; /* element size of a communication task */
	uint8_t lkind;      /* a layer task's layer kind */
	/* a forward or backward task's action (pipeorder.h): PP_ACT_WHOLE,
	 * PP_ACT_I or PP_ACT_W, plus PP_TAG_PAIR for an overlapped pair's
	 * forward */
	uint8_t act;
	double bytes;       /* its payload: collective size, transfer, memory traffic */
} pp_des_tag;

#define PP_TAG_PAIR 4

pp_des *pp_des_new(void);
void pp_des_free(pp_des *d);
void pp_des_clear(pp_des *d);

/* Add a resource; name is copied; rank groups resources in traces. */
int pp_des_resource(pp_des *d, const char *name, int rank, bool in_order);
/* Add a task on resource res; returns its id. */
int pp_des_task(pp_des *d, int res, int64_t dur_ns, pp_des_tag tag);
/* task waits for pred to end. */
void pp_des_dep(pp_des *d, int task, int pred);
/* Run to completion. PP_EINTERNAL when tasks remain that can never run
 * (a dependency cycle: a bug in the schedule builder). */
int pp_des_run(pp_des *d, pp_err *err);

int pp_des_ntasks(const pp_des *d);
int pp_des_nresources(const pp_des *d);
int64_t pp_des_start(const pp_des *d, int task);
int64_t pp_des_end(const pp_des *d, int task);
int64_t pp_des_dur(const pp_des *d, int task);
int pp_des_task_resource(const pp_des *d, int task);
pp_des_tag pp_des_task_tag(const pp_des *d, int task);
const char *pp_des_resource_name(const pp_des *d, int res);
int pp_des_resource_rank(const pp_des *d, int res);
/* Latest end over all tasks. */
int64_t pp_des_makespan(const pp_des *d);
/* Events processed by the last run (task completions). */
int64_t pp_des_events(const pp_des *d);
/* The dependency edges as added (edge e: succ waits for pred), for
 * consumers that execute the graph rather than simulate it (the replay). */
int pp_des_nedges(const pp_des *d);
void pp_des_edge(const pp_des *d, int e, int *pred, int *succ);

#endif
