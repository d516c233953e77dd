/*
 * gpu.h - the real measurement backend: CUDA, NCCL and cuBLASLt.
 *
 * Two launch modes, as nccl-tests has:
 *   - one process driving every visible GPU (or the first `ngpus`), its
 *     communicators made with ncclCommInitAll;
 *   - one rank per GPU under mpirun (Open MPI at build time): rank 0 makes
 *     the ncclUniqueId and broadcasts it with MPI_Bcast, each rank calls
 *     ncclCommInitRank on the GPU of its local rank. This is also the
 *     multi-node path.
 * Groups smaller than the job get their own communicator (ncclCommInitAll
 * of the first n GPUs, or ncclCommSplit under MPI).
 */
#ifndef PP_CAL_GPU_H
#define PP_CAL_GPU_H

#include "backend.h"

typedef struct pp_cal_gpu_opts {
	int ngpus;          /* single process: the first ngpus GPUs; 0 = all visible */
	bool mpi;           /* one rank per GPU (the process was started by mpirun) */
} pp_cal_gpu_opts;

/* Start CUDA (and MPI), pick the GPU(s), create the communicators. argc and
 * argv go to MPI_Init. */
int pp_cal_gpu_new(const pp_cal_gpu_opts *o, int *argc, char ***argv, pp_cal_backend **out,
		   pp_err *err);

#endif
