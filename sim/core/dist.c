/* dist.c - see dist.h. No MPI header: the prototypes below are MPI's, with
 * every handle (MPI_Comm, MPI_Datatype, MPI_Op) as the pointer it is in
 * Open MPI. */
#include "core/dist.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*mpi_init_fn)(int *, char ***);
typedef int (*mpi_initialized_fn)(int *);
typedef int (*mpi_finalize_fn)(void);
typedef int (*mpi_comm_int_fn)(void *, int *);
typedef int (*mpi_allreduce_fn)(const void *, void *, int, void *, void *, void *);
typedef int (*mpi_gather_fn)(const void *, int, void *, void *, int, void *, int, void *);
typedef int (*mpi_bcast_fn)(void *, int, void *, int, void *);
typedef int (*mpi_abort_fn)(void *, int);

static struct {
	bool done;            /* pp_dist_init ran */
	bool active;          /* MPI initialised by us, size > 1 */
	bool idle;            /* mpirun without libmpi, rank > 0 */
	bool finalized;
	int rank, size;
	char what[160];
	void *lib;
	mpi_finalize_fn finalize;
	mpi_allreduce_fn allreduce;
	mpi_gather_fn gather;
	mpi_bcast_fn bcast;
	mpi_abort_fn abort_;
	void *comm_world, *t_double, *t_byte, *op_min, *op_sum;
} D = {.rank = 0, .size = 1};

static int env_int(const char *name)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return -1;
	char *end;
	long x = strtol(v, &end, 10);
	return *end || x < 0 || x > INT_MAX ? -1 : (int)x;
}

/* dlsym() returns an object pointer; converting it to a function pointer
 * through memcpy is what POSIX documents for this. */
static bool sym(void *lib, const char *name, void *fnptr, size_t size)
{
	void *p = dlsym(lib, name);
	if (!p)
		return false;
	memcpy(fnptr, &p, size);
	return true;
}

#define SYM(name, var) sym(D.lib, name, &(var), sizeof(var))

static void check(int rc, const char *call)
{
	if (rc == 0)
		return;
	fprintf(stderr, "podplan: %s failed (MPI error %d) on rank %d\n", call, rc, D.rank);
	if (D.abort_)
		D.abort_(D.comm_world, 1);
	exit(1);
}

void pp_dist_init(void)
{
	if (D.done)
		return;
	D.done = true;
	snprintf(D.what, sizeof(D.what), "serial");
	int size = env_int("OMPI_COMM_WORLD_SIZE");
	int rank = env_int("OMPI_COMM_WORLD_RANK");
	if (size <= 1 || rank < 0 || rank >= size)
		return;
	mpi_init_fn init = NULL;
	mpi_initialized_fn initialized = NULL;
	mpi_comm_int_fn comm_rank = NULL, comm_size = NULL;
	/* RTLD_GLOBAL: Open MPI's own plugins resolve libmpi symbols */
	D.lib = dlopen("libmpi.so.40", RTLD_NOW | RTLD_GLOBAL);
	if (D.lib) {
		D.comm_world = dlsym(D.lib, "ompi_mpi_comm_world");
		D.t_double = dlsym(D.lib, "ompi_mpi_double");
		D.t_byte = dlsym(D.lib, "ompi_mpi_byte");
		D.op_min = dlsym(D.lib, "ompi_mpi_op_min");
		D.op_sum = dlsym(D.lib, "ompi_mpi_op_sum");
	}
	if (!D.lib || !SYM("MPI_Init", init) || !SYM("MPI_Initialized", initialized) ||
	    !SYM("MPI_Finalize", D.finalize) || !SYM("MPI_Comm_rank", comm_rank) ||
	    !SYM("MPI_Comm_size", comm_size) || !SYM("MPI_Allreduce", D.allreduce) ||
	    !SYM("MPI_Gather", D.gather) || !SYM("MPI_Bcast", D.bcast) ||
	    !SYM("MPI_Abort", D.abort_) || !D.comm_world || !D.t_double || !D.t_byte ||
	    !D.op_min || !D.op_sum) {
		/* rank 0 does the whole job; the others stay out of the way */
		if (rank == 0)
			fprintf(stderr, "podplan: under mpirun (%d ranks) but %s; rank 0 runs the "
					"whole sweep alone\n", size,
				D.lib ? "libmpi.so.40 lacks an expected symbol (not Open MPI?)"
				      : "libmpi.so.40 cannot be loaded");
		snprintf(D.what, sizeof(D.what), "mpirun without a usable libmpi.so.40: rank 0 "
			 "runs alone");
		D.idle = rank > 0;
		if (D.lib)
			dlclose(D.lib);
		D.lib = NULL;
		D.abort_ = NULL;
		return;
	}
	int flag = 0;
	check(initialized(&flag), "MPI_Initialized");
	if (!flag)
		check(init(NULL, NULL), "MPI_Init");
	check(comm_rank(D.comm_world, &D.rank), "MPI_Comm_rank");
	check(comm_size(D.comm_world, &D.size), "MPI_Comm_size");
	D.active = D.size > 1;
	snprintf(D.what, sizeof(D.what), "Open MPI, %d ranks", D.size);
}

void pp_dist_finalize(void)
{
	if (!D.lib || D.finalized)
		return;
	D.finalized = true;
	check(D.finalize(), "MPI_Finalize");
	D.active = false;
	/* libmpi stays loaded: its atexit handlers may still run */
}

int pp_dist_rank(void)
{
	return D.rank;
}

int pp_dist_size(void)
{
	return D.active ? D.size : 1;
}

bool pp_dist_idle(void)
{
	return D.idle;
}

const char *pp_dist_describe(void)
{
	return D.done ? D.what : "serial";
}

void pp_dist_allreduce_min(double *v, int n)
{
	if (!D.active)
		return;
	double *tmp = malloc(sizeof(double) * (size_t)n);
	if (!tmp)
		abort();
	check(D.allreduce(v, tmp, n, D.t_double, D.op_min, D.comm_world), "MPI_Allreduce");
	memcpy(v, tmp, sizeof(double) * (size_t)n);
	free(tmp);
}

void pp_dist_allreduce_sum(double *v, int n)
{
	if (!D.active)
		return;
	double *tmp = malloc(sizeof(double) * (size_t)n);
	if (!tmp)
		abort();
	check(D.allreduce(v, tmp, n, D.t_double, D.op_sum, D.comm_world), "MPI_Allreduce");
	memcpy(v, tmp, sizeof(double) * (size_t)n);
	free(tmp);
}

void pp_dist_gather(const void *send, size_t bytes, void *recv)
{
	if (!D.active) {
		if (recv && recv != send)
			memcpy(recv, send, bytes);
		return;
	}
	if (bytes > INT_MAX) {
		fprintf(stderr, "podplan: gather of %zu bytes is too large\n", bytes);
		check(1, "MPI_Gather");
	}
	check(D.gather(send, (int)bytes, D.t_byte, recv, (int)bytes, D.t_byte, 0, D.comm_world),
	      "MPI_Gather");
}

void pp_dist_bcast(void *buf, size_t bytes)
{
	if (!D.active)
		return;
	if (bytes > INT_MAX) {
		fprintf(stderr, "podplan: broadcast of %zu bytes is too large\n", bytes);
		check(1, "MPI_Bcast");
	}
	check(D.bcast(buf, (int)bytes, D.t_byte, 0, D.comm_world), "MPI_Bcast");
}
