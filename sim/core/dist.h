/*
 * dist.h - sweeps spread over the ranks of an Open MPI job, with no MPI
 * header and no link-time dependency on MPI (sim/ builds and runs without
 * it).
 *
 * Under `mpirun -np N podplan ...` Open MPI sets OMPI_COMM_WORLD_SIZE and
 * OMPI_COMM_WORLD_RANK; pp_dist_init() then loads libmpi.so.40 with dlopen()
 * and resolves the few entry points it needs with dlsym(). Handles are the
 * addresses of Open MPI's predefined objects (ompi_mpi_comm_world,
 * ompi_mpi_double, ompi_mpi_byte, ompi_mpi_op_min, ompi_mpi_op_sum), which
 * is what MPI_COMM_WORLD, MPI_DOUBLE, ... expand to in Open MPI's mpi.h;
 * this ties the module to Open MPI's ABI (libmpi.so.40: Open MPI 3.x-5.x),
 * which is the one Debian ships. Outside mpirun, or with one rank, every
 * call below is a cheap no-op on a job of size 1.
 *
 * Without libmpi (the library is missing) under a multi-rank mpirun, rank 0
 * does all the work alone and the other ranks are told to leave quietly
 * (pp_dist_idle()), so the output is still the serial output, once.
 *
 * Collectives must be called by every rank in the same order. Errors inside
 * MPI abort the job (MPI_ERRORS_ARE_FATAL, Open MPI's default).
 */
#ifndef PP_DIST_H
#define PP_DIST_H

#include "core/pp.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Detect an Open MPI launch and initialise MPI (idempotent). Never fails:
 * problems fall back to serial with a note on stderr (rank 0 only). */
void pp_dist_init(void);
/* Finalize MPI if pp_dist_init() initialised it (idempotent). */
void pp_dist_finalize(void);

int pp_dist_rank(void);
int pp_dist_size(void);
/* True on ranks > 0 of an mpirun job that could not load libmpi: they
 * should exit 0 without output while rank 0 runs serially. */
bool pp_dist_idle(void);
/* A line for people: "serial", "Open MPI, 2 ranks", "mpirun without
 * libmpi.so.40: rank 0 runs alone". Static string. */
const char *pp_dist_describe(void);

/* In-place element-wise minimum / sum of n doubles over all ranks; every
 * rank gets the result. */
void pp_dist_allreduce_min(double *v, int n);
void pp_dist_allreduce_sum(double *v, int n);
/* Gather `bytes` from every rank into recv on rank 0 (size x bytes, rank
 * order); recv may be NULL on other ranks. */
void pp_dist_gather(const void *send, size_t bytes, void *recv);
/* Copy rank 0's buf to every rank. */
void pp_dist_bcast(void *buf, size_t bytes);
/* Every rank's `bytes` (which may differ by rank) concatenated in rank
 * order into *out (heap, caller frees; *total its size), on every rank. */
void pp_dist_allgatherv(const void *send, size_t bytes, void **out, size_t *total);

/* Shared counters for self-scheduling: n int64 slots held by rank 0 (an
 * MPI-3 window, MPI_Win_allocate, in a passive-target epoch for its
 * lifetime), each read and written atomically by any rank without rank 0
 * taking part (one-sided MPI_Fetch_and_op / MPI_Accumulate /
 * MPI_Get_accumulate: on one node Open MPI's osc/sm does them in shared
 * memory; no rank polls for requests). Every slot starts at 0. Serial:
 * plain memory. Creating and freeing are collective. */
typedef struct pp_dist_slots pp_dist_slots;
pp_dist_slots *pp_dist_slots_new(int n);
void pp_dist_slots_free(pp_dist_slots *w);
/* Slot i += add, atomically; returns its value before. */
int64_t pp_dist_slot_add(pp_dist_slots *w, int i, int64_t add);
/* Slot i = v, atomically (visible to every rank when it returns). */
void pp_dist_slot_set(pp_dist_slots *w, int i, int64_t v);
/* Slots i .. i + n - 1 into v, each atomically. */
void pp_dist_slot_get(pp_dist_slots *w, int i, int n, int64_t *v);

#endif
