/*
 * replaysim.h - a replay plan (replayplan.h) executed on paper: every
 * instruction takes its modelled duration, so the plan's step time can be
 * set beside the event simulation's before a GPU runs it, and the rules
 * NCCL and CUDA impose on the plan are checked on any machine.
 */
#ifndef PP_REPLAYSIM_H
#define PP_REPLAYSIM_H

#include "calib/replayplan.h"

/* Execute the plan on paper, with every instruction taking its sim_s:
 * streams in order, waits after their records, a collective starting when
 * every member has reached it and taking sim_s, a send/recv pair likewise.
 * Checks what NCCL and CUDA require: each communicator's calls in the same
 * order (same kind, size) on every member, every wait after its record, no
 * deadlock. *step_s = the latest end. PP_EINTERNAL with the first
 * violation otherwise. */
int pp_rplan_simulate(const pp_rplan *p, double *step_s, pp_err *err);

#endif
