/*
 * mpiglue.h - the few MPI operations podplan-calibrate needs, behind an
 * interface without MPI types. Built with Open MPI when the Makefile finds
 * mpicc (-DPP_HAVE_MPI); otherwise every call is a single-process no-op
 * and pp_mpi_launched() still tells when mpirun started us (so that the
 * user gets a clear message instead of N independent runs).
 */
#ifndef PP_CAL_MPI_H
#define PP_CAL_MPI_H

#include "core/pp.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when the environment says mpirun/srun started this process with
 * more than one rank (OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_SIZE > 1). */
bool pp_mpi_launched(void);
/* True when this build has MPI. */
bool pp_mpi_available(void);

/* MPI_Init; rank, size and the rank's index on its host (from
 * OMPI_COMM_WORLD_LOCAL_RANK or a split by host name). */
int pp_mpi_init(int *argc, char ***argv, int *rank, int *size, int *local_rank, pp_err *err);
void pp_mpi_finalize(void);
bool pp_mpi_active(void);

void pp_mpi_barrier(void);
void pp_mpi_bcast(void *buf, size_t bytes, int root);
/* recv (root only) gets size x bytes, rank order. */
void pp_mpi_gather(const void *send, size_t bytes, void *recv, int root);
void pp_mpi_allgather(const void *send, size_t bytes, void *recv);
void pp_mpi_max_double(double *v, int n);
void pp_mpi_sum_i64(int64_t *v, int n);
void pp_mpi_max_int(int *v, int n);
_Noreturn void pp_mpi_abort(int status);

#endif
