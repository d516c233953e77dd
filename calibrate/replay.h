/*
 * replay.h - podplan-calibrate replay: execute the simulated training step
 * of a scenario on the real GPUs of this machine and measure it.
 *
 *   podplan-calibrate replay SCENARIO.json [SCENARIO.json ...] [--steps N]
 *       [--warmup N] [--calibration DB:PROFILE] [--db DB] [--csv OUT]
 *       [--op-csv OUT] [--dry-run]
 *
 * For each scenario: load it with the simulator's own code, resolve the
 * hardware (catalog, then the calibration profile), predict the step
 * (pp_predict), build the replay plan (sim/calib/replayplan.h: the step's event
 * graph as per-GPU instruction lists) and issue it, one thread per GPU in
 * this process (communicators by ncclCommInitAll, one per plan
 * communicator): the same GEMM shapes and dtypes through cuBLASLt
 * (gemm.h; batched attention GEMMs strided-batched), memory-bound kernels
 * of the same bytes (kernels.h pp_k_copy, rotating through a buffer larger
 * than L2 so no op reads a cached copy of the last one), NCCL collectives
 * and send/recv of the same sizes (coll.h), on one CUDA stream per plan
 * stream, cross-stream dependencies as events. Nothing is computed for
 * real: operands are reused scratch buffers.
 *
 * Timing: warm-up steps, then timed steps. Before each step every GPU
 * drains its streams and the threads meet at a barrier; a step's time on
 * a GPU is from an event recorded on its compute stream at the start to
 * one recorded after every stream has joined it; the step time is the
 * largest over the GPUs; the result is the median over the timed steps
 * (min and max reported too). It is printed next to the prediction and,
 * with --csv, appended to a CSV (config,predicted_s,measured_s,...;
 * replaycsv.h).
 *
 * --dry-run builds and checks the plan (no GPU needed): instruction
 * counts, communicators, and the plan executed on paper with the
 * simulator's durations. It matches the simulated step except where TP
 * collectives overlap GEMMs (on paper the side stream hides all it can),
 * where the model charges compute a slowdown beside data-parallel
 * collectives (on a GPU that slowdown just happens: nothing to issue), and
 * by a transfer time where a receiver was busy when the data was ready
 * (receives are posted when the consumer is reached, as frameworks do).
 *
 * Diagnostics: --early-recv posts every receive at the sender's simulated
 * time instead (a posted NCCL receive spins on SMs until its data comes:
 * on 2x H200 this slowed 2-stage pipelines by 6-21%); --no-dp leaves the
 * data-parallel collectives out (their cost inside the step, measured).
 */
#ifndef PP_CAL_REPLAY_H
#define PP_CAL_REPLAY_H

/* The subcommand; argv[0] is "replay". Returns the exit status. */
int pp_cal_replay_main(int argc, char **argv);

#endif
