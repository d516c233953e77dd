/*
 * verdict.h - podplan-calibrate verdict: judge a stored calibration run
 * again, without a GPU (new catalogs or thresholds, another
 * --storage-expect, an imported nccl-tests log), print the OK/SLOW table
 * and store it with the run.
 *
 *   podplan-calibrate verdict RUN [--db DB] [--gpu-sku ID] [--storage-expect ID]
 *
 * The machine is the one the run describes: its GPU name and count, and
 * from its topology_json the link matrix, active NVLinks and hosts. A run
 * with no link matrix (an imported nccl-tests log) is judged with the
 * SKU's NVLink assumed. CPU only.
 */
#ifndef PP_CAL_VERDICT_H
#define PP_CAL_VERDICT_H

/* The subcommand; argv[0] is "verdict". Returns the exit status. */
int pp_cal_verdict_main(int argc, char **argv);

#endif
