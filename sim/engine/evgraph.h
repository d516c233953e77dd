/*
 * evgraph.h - the event graph of one training step: the step's program
 * (program.h, the tasks each pipeline stage issues, with their durations
 * and payloads from stepcost.h) built into a des.h graph, which
 * pp_des_run() then simulates. The graph grows with stages x micro-batches
 * x layers and not with the GPU count.
 */
#ifndef PP_EVGRAPH_H
#define PP_EVGRAPH_H

#include "engine/des.h"
#include "engine/program.h"
#include "engine/stepcost.h"
#include "engine/workload.h"

/* Build the step's graph into d (cleared first), with the ablations of o.
 * busy has pp entries; busy[st].last_task is a task id of d. */
void pp_evgraph_build(pp_des *d, const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
		       const pp_sched_opts *o, pp_stage_busy *busy);

#endif
