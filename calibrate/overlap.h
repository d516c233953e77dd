/*
 * overlap.h - podplan-calibrate overlap: how much of a collective hides
 * behind compute running beside it, measured, into the calibration store.
 *
 *   podplan-calibrate overlap [--db DB] [--repeats N] [--label TEXT]
 *
 * For each pair of a compute batch (cuBLASLt GEMMs of transformer shapes,
 * or a memory-bound copy kernel) and a collective batch (all_reduce,
 * all_gather, reduce_scatter of several sizes over every GPU), on every GPU
 * at once: the compute alone (Tg), the collectives alone (Tc), and both
 * started together on two streams (Tboth); each the slowest GPU, the median
 * over the repeats. The compute batch is about twice as long as the
 * collectives, as when a data-parallel collective runs under the backward
 * pass. A row of kind "overlap" per pair (time_us = Tboth; extra_json:
 * compute_us, comm_us, both_us, the counts) goes into a calibration run of
 * its own; `podplan fit` turns the rows into the profile's overlap
 * efficiency, the share of the shorter side hidden:
 *   e = (Tc + Tg - Tboth) / min(Tc, Tg)
 * (1 = perfectly hidden; 0 = the two serialise).
 */
#ifndef PP_CAL_OVERLAP_H
#define PP_CAL_OVERLAP_H

/* The subcommand; argv[0] is "overlap". Returns the exit status. */
int pp_cal_overlap_main(int argc, char **argv);

#endif
