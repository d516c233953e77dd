/* mpiglue.c - see mpiglue.h. */
#include "mpiglue.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef PP_HAVE_MPI
#include <mpi.h>
#endif

static bool active;

bool pp_mpi_launched(void)
{
	const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
	for (size_t i = 0; i < PP_ARRAY_LEN(vars); i++) {
		const char *v = getenv(vars[i]);
		if (v && atoi(v) > 1)
			return true;
	}
	return false;
}

bool pp_mpi_available(void)
{
#ifdef PP_HAVE_MPI
	return true;
#else
	return false;
#endif
}

bool pp_mpi_active(void)
{
	return active;
}

#ifdef PP_HAVE_MPI

int pp_mpi_init(int *argc, char ***argv, int *rank, int *size, int *local_rank, pp_err *err)
{
	if (MPI_Init(argc, argv) != MPI_SUCCESS)
		return pp_errf(err, PP_EIO, "MPI_Init failed");
	active = true;
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	MPI_Comm_size(MPI_COMM_WORLD, size);
	const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
	if (!lr)
		lr = getenv("MPI_LOCALRANKID");
	if (!lr)
		lr = getenv("SLURM_LOCALID");
	if (lr) {
		*local_rank = atoi(lr);
	} else {
		/* ranks sharing a host, in rank order (nccl-tests does the same
		 * with host name hashes) */
		MPI_Comm node;
		MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, *rank, MPI_INFO_NULL, &node);
		MPI_Comm_rank(node, local_rank);
		MPI_Comm_free(&node);
	}
	return 0;
}

void pp_mpi_finalize(void)
{
	if (active)
		MPI_Finalize();
	active = false;
}

void pp_mpi_barrier(void)
{
	if (active)
		MPI_Barrier(MPI_COMM_WORLD);
}

void pp_mpi_bcast(void *buf, size_t bytes, int root)
{
	if (active)
		MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD);
}

void pp_mpi_gather(const void *send, size_t bytes, void *recv, int root)
{
	if (active)
		MPI_Gather(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD);
	else
		memcpy(recv, send, bytes);
}

void pp_mpi_allgather(const void *send, size_t bytes, void *recv)
{
	if (active)
		MPI_Allgather(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
	else
		memcpy(recv, send, bytes);
}

void pp_mpi_max_double(double *v, int n)
{
	if (active)
		MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

void pp_mpi_sum_i64(int64_t *v, int n)
{
	if (active)
		MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
}

void pp_mpi_max_int(int *v, int n)
{
	if (active)
		MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
}

void pp_mpi_abort(int status)
{
	if (active)
		MPI_Abort(MPI_COMM_WORLD, status);
	exit(status);
}

#else /* no MPI in this build */

int pp_mpi_init(int *argc, char ***argv, int *rank, int *size, int *local_rank, pp_err *err)
{
	(void)argc, (void)argv, (void)rank, (void)size, (void)local_rank;
	return pp_errf(err, PP_EINPUT, "this podplan-calibrate was built without MPI (no mpicc at "
		       "build time): run it once, without mpirun, to drive every GPU of the host");
}

void pp_mpi_finalize(void) {}
void pp_mpi_barrier(void) {}
void pp_mpi_bcast(void *buf, size_t bytes, int root) { (void)buf, (void)bytes, (void)root; }
void pp_mpi_gather(const void *send, size_t bytes, void *recv, int root)
{
	(void)root;
	memcpy(recv, send, bytes);
}
void pp_mpi_allgather(const void *send, size_t bytes, void *recv) { memcpy(recv, send, bytes); }
void pp_mpi_max_double(double *v, int n) { (void)v, (void)n; }
void pp_mpi_sum_i64(int64_t *v, int n) { (void)v, (void)n; }
void pp_mpi_max_int(int *v, int n) { (void)v, (void)n; }
void pp_mpi_abort(int status) { exit(status); }

#endif
