/* dist.c - see dist.h. No MPI header: the prototypes below are MPI's, with
 * every handle (MPI_Comm, MPI_Datatype, MPI_Op) as the pointer it is in
 * Open MPI. */
#include "core/dist.h"

#include <dlfcn.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

typedef int (*mpi_init_fn)(int *, char ***);
typedef int (*mpi_initialized_fn)(int *);
typedef int (*mpi_finalize_fn)(void);
typedef int (*mpi_comm_int_fn)(void *, int *);
typedef int (*mpi_allreduce_fn)(const void *, void *, int, void *, void *, void *);
typedef int (*mpi_gather_fn)(const void *, int, void *, void *, int, void *, int, void *);
typedef int (*mpi_bcast_fn)(void *, int, void *, int, void *);
typedef int (*mpi_abort_fn)(void *, int);
typedef int (*mpi_allgather_fn)(const void *, int, void *, void *, int, void *, void *);
typedef int (*mpi_allgatherv_fn)(const void *, int, void *, void *, const int *, const int *,
				 void *, void *);
/* MPI_Aint is a long in Open MPI; MPI_Win and MPI_Info are pointers */
typedef int (*mpi_win_allocate_fn)(long, int, void *, void *, void *, void *);
typedef int (*mpi_win_lock_all_fn)(int, void *);
typedef int (*mpi_win_unlock_all_fn)(void *);
typedef int (*mpi_win_free_fn)(void *);
typedef int (*mpi_win_flush_fn)(int, void *);
typedef int (*mpi_fetch_and_op_fn)(const void *, void *, void *, int, long, void *, void *);
typedef int (*mpi_accumulate_fn)(const void *, int, void *, int, long, int, void *, void *,
				 void *);
typedef int (*mpi_get_accumulate_fn)(const void *, int, void *, void *, int, void *, int, long,
				     int, void *, void *, void *);

static struct {
	bool done;            /* pp_dist_init ran */
	bool active;          /* MPI initialised by us, size > 1 */
	bool idle;            /* mpirun without libmpi, rank > 0 */
	bool finalized;
	bool opost_off;       /* rank 0's stdout terminal without OPOST */
	int rank, size;
	char what[160];
	void *lib;
	mpi_finalize_fn finalize;
	mpi_allreduce_fn allreduce;
	mpi_gather_fn gather;
	mpi_bcast_fn bcast;
	mpi_abort_fn abort_;
	mpi_allgather_fn allgather;
	mpi_allgatherv_fn allgatherv;
	mpi_win_allocate_fn win_allocate;
	mpi_win_lock_all_fn win_lock_all;
	mpi_win_unlock_all_fn win_unlock_all;
	mpi_win_free_fn win_free;
	mpi_win_flush_fn win_flush;
	mpi_fetch_and_op_fn fetch_and_op;
	mpi_accumulate_fn accumulate;
	mpi_get_accumulate_fn get_accumulate;
	void *comm_world, *t_double, *t_byte, *t_int64, *t_int, *op_min, *op_sum, *op_replace,
		*op_no_op, *info_null;
} D = {.rank = 0, .size = 1};

static void *dup_bytes(const void *p, size_t n)
{
	void *c = malloc(n ? n : 1);
	if (!c)
		abort();
	if (n)
		memcpy(c, p, n);
	return c;
}

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

/* Under mpirun a rank's stdout is a pseudo-terminal that mpirun reads
 * and copies to its own stdout (Open MPI's I/O forwarding), so the C
 * library buffers it by line: size --json's 0.35 MB then goes out in
 * thousands of writes, each one waiting on mpirun's event loop (0.03 s on
 * the 2-core build machine). Rank 0 buffers it in blocks instead; the
 * commands flush it when their output is complete. Open MPI 4.1 leaves
 * the terminal's output processing (OPOST) on with nothing for it to do
 * (no newline translation, no tab expansion): the kernel still walks
 * every byte, 0.3 MB in 25 ms of the rank's CPU against 3 ms without it,
 * so it is turned off when it changes no byte, and back on at
 * pp_dist_finalize. Called before anything is written to stdout. */
static void block_buffer_stdout(void)
{
	static char buf[1 << 16];
	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	struct termios t;
	if (env_int("PODPLAN_MPI_RAW_STDOUT") != 0 && !tcgetattr(STDOUT_FILENO, &t) &&
	    t.c_oflag == OPOST) { /* PODPLAN_MPI_RAW_STDOUT=0: left as it is */
		t.c_oflag = 0;
		D.opost_off = !tcsetattr(STDOUT_FILENO, TCSANOW, &t);
	}
}

/* The terminal's output processing as block_buffer_stdout found it. */
static void restore_opost(void)
{
	struct termios t;
	if (!D.opost_off)
		return;
	D.opost_off = false;
	fflush(stdout);
	if (!tcgetattr(STDOUT_FILENO, &t)) {
		t.c_oflag |= OPOST;
		(void)tcsetattr(STDOUT_FILENO, TCSANOW, &t);
	}
}

/* Open MPI 4.1's ranks talk to mpirun's PMIx server over a loopback TCP
 * socket that PMIx 4.2 opens without TCP_NODELAY: a rank's small messages
 * then wait on the server's delayed acknowledgement (Nagle's algorithm
 * against the kernel's 40 ms delayed ACK). MPI_Finalize's fence is such a
 * message: 43 ms of a rank's idle time on the 2-core build machine, 2 ms
 * with the option set (strace of mpirun: the fence request reaches the
 * server 37 ms after it is written). Sets TCP_NODELAY on every TCP stream
 * socket of this process: podplan opens none, so right after MPI_Init they
 * are Open MPI's, among the lowest free descriptors of a process that has
 * few open (hence the bound). */
static void tcp_nodelay_all(void)
{
	for (int fd = 0; fd < 1024; fd++) {
		int type = 0, one = 1;
		socklen_t len = sizeof(type);
		struct sockaddr_storage a;
		socklen_t alen = sizeof(a);
		if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) || type != SOCK_STREAM ||
		    getsockname(fd, (struct sockaddr *)&a, &alen) ||
		    (a.ss_family != AF_INET && a.ss_family != AF_INET6))
			continue;
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
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
	/* every rank on this node (mpirun's local size is the world's) and no
	 * transport chosen by the user (mpirun --mca reaches a rank as these
	 * variables): shared memory only, as Open MPI's docs name it (btl
	 * vader in 4.1, an alias of sm in 5.0). MPI_Init then probes no
	 * network stack (UCX, libfabric, PSM, InfiniBand verbs): 0.2 s of the
	 * 0.4 s start-up on the 2-core build machine */
	if (env_int("OMPI_COMM_WORLD_LOCAL_SIZE") == size && !getenv("OMPI_MCA_pml") &&
	    !getenv("OMPI_MCA_btl") && !getenv("OMPI_MCA_mtl")) {
		setenv("OMPI_MCA_pml", "ob1", 0);
		setenv("OMPI_MCA_btl", "self,vader", 0);
	}
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
		D.op_replace = dlsym(D.lib, "ompi_mpi_op_replace");
		D.op_no_op = dlsym(D.lib, "ompi_mpi_op_no_op");
		D.t_int64 = dlsym(D.lib, "ompi_mpi_int64_t");
		D.t_int = dlsym(D.lib, "ompi_mpi_int");
		D.info_null = dlsym(D.lib, "ompi_mpi_info_null");
	}
	if (!D.lib || !SYM("MPI_Init", init) || !SYM("MPI_Initialized", initialized) ||
	    !SYM("MPI_Finalize", D.finalize) || !SYM("MPI_Comm_rank", comm_rank) ||
	    !SYM("MPI_Comm_size", comm_size) || !SYM("MPI_Allreduce", D.allreduce) ||
	    !SYM("MPI_Gather", D.gather) || !SYM("MPI_Bcast", D.bcast) ||
	    !SYM("MPI_Abort", D.abort_) || !SYM("MPI_Allgather", D.allgather) ||
	    !SYM("MPI_Allgatherv", D.allgatherv) || !SYM("MPI_Win_allocate", D.win_allocate) ||
	    !SYM("MPI_Win_lock_all", D.win_lock_all) ||
	    !SYM("MPI_Win_unlock_all", D.win_unlock_all) || !SYM("MPI_Win_free", D.win_free) ||
	    !SYM("MPI_Win_flush", D.win_flush) || !SYM("MPI_Fetch_and_op", D.fetch_and_op) ||
	    !SYM("MPI_Accumulate", D.accumulate) || !SYM("MPI_Get_accumulate", D.get_accumulate) ||
	    !D.comm_world || !D.t_double || !D.t_byte || !D.t_int64 || !D.t_int || !D.op_min ||
	    !D.op_sum || !D.op_replace || !D.op_no_op || !D.info_null) {
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
	if (!flag) {
		check(init(NULL, NULL), "MPI_Init");
		if (env_int("PODPLAN_MPI_NODELAY") != 0) /* 0: as Open MPI leaves them */
			tcp_nodelay_all();
	}
	check(comm_rank(D.comm_world, &D.rank), "MPI_Comm_rank");
	check(comm_size(D.comm_world, &D.size), "MPI_Comm_size");
	D.active = D.size > 1;
	snprintf(D.what, sizeof(D.what), "Open MPI, %d ranks", D.size);
	if (D.active && D.rank == 0)
		block_buffer_stdout();
}

void pp_dist_finalize(void)
{
	if (!D.lib || D.finalized)
		return;
	D.finalized = true;
	restore_opost();
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

void pp_dist_allgatherv(const void *send, size_t bytes, void **out, size_t *total)
{
	if (!D.active) {
		*out = dup_bytes(send, bytes);
		*total = bytes;
		return;
	}
	if (bytes > INT_MAX) {
		fprintf(stderr, "podplan: allgather of %zu bytes is too large\n", bytes);
		check(1, "MPI_Allgatherv");
	}
	int mine = (int)bytes, *counts = malloc(sizeof(int) * (size_t)D.size * 2);
	if (!counts)
		abort();
	int *displs = counts + D.size;
	check(D.allgather(&mine, 1, D.t_int, counts, 1, D.t_int, D.comm_world), "MPI_Allgather");
	size_t sum = 0;
	for (int r = 0; r < D.size; r++) {
		if (sum > INT_MAX) {
			fprintf(stderr, "podplan: allgather of %zu bytes is too large\n", sum);
			check(1, "MPI_Allgatherv");
		}
		displs[r] = (int)sum;
		sum += (size_t)counts[r];
	}
	char *buf = malloc(sum ? sum : 1);
	if (!buf)
		abort();
	check(D.allgatherv(send, mine, D.t_byte, buf, counts, displs, D.t_byte, D.comm_world),
	      "MPI_Allgatherv");
	free(counts);
	*out = buf;
	*total = sum;
}

struct pp_dist_slots {
	int64_t *local;  /* serial, or rank 0's window memory */
	void *win;       /* MPI_Win; NULL serial */
	int n;
};

pp_dist_slots *pp_dist_slots_new(int n)
{
	pp_dist_slots *w = calloc(1, sizeof(*w));
	if (!w)
		abort();
	w->n = n;
	if (!D.active) {
		w->local = calloc((size_t)(n > 0 ? n : 1), sizeof(int64_t));
		if (!w->local)
			abort();
		return w;
	}
	long size = D.rank == 0 ? (long)n * (long)sizeof(int64_t) : 0;
	check(D.win_allocate(size, (int)sizeof(int64_t), D.info_null, D.comm_world, &w->local,
			     &w->win),
	      "MPI_Win_allocate");
	if (D.rank == 0)
		memset(w->local, 0, (size_t)size);
	/* every slot is 0 before any rank touches one */
	double v = 0;
	pp_dist_allreduce_sum(&v, 1);
	check(D.win_lock_all(0, w->win), "MPI_Win_lock_all");
	return w;
}

void pp_dist_slots_free(pp_dist_slots *w)
{
	if (!w)
		return;
	if (w->win) {
		check(D.win_unlock_all(w->win), "MPI_Win_unlock_all");
		check(D.win_free(&w->win), "MPI_Win_free");
	} else {
		free(w->local);
	}
	free(w);
}

int64_t pp_dist_slot_add(pp_dist_slots *w, int i, int64_t add)
{
	if (!w->win) {
		int64_t old = w->local[i];
		w->local[i] += add;
		return old;
	}
	int64_t old = 0;
	check(D.fetch_and_op(&add, &old, D.t_int64, 0, i, D.op_sum, w->win), "MPI_Fetch_and_op");
	check(D.win_flush(0, w->win), "MPI_Win_flush");
	return old;
}

void pp_dist_slot_set(pp_dist_slots *w, int i, int64_t v)
{
	if (!w->win) {
		w->local[i] = v;
		return;
	}
	check(D.accumulate(&v, 1, D.t_int64, 0, i, 1, D.t_int64, D.op_replace, w->win),
	      "MPI_Accumulate");
	check(D.win_flush(0, w->win), "MPI_Win_flush");
}

void pp_dist_slot_get(pp_dist_slots *w, int i, int n, int64_t *v)
{
	if (!w->win) {
		memcpy(v, w->local + i, sizeof(int64_t) * (size_t)n);
		return;
	}
	check(D.get_accumulate(NULL, 0, D.t_int64, v, n, D.t_int64, 0, i, n, D.t_int64, D.op_no_op,
			       w->win),
	      "MPI_Get_accumulate");
	check(D.win_flush(0, w->win), "MPI_Win_flush");
}
