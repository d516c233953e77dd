/*
 * test_dist.c - core/dist.h outside mpirun: a job of one rank whose every
 * collective is what MPI's collectives give on a one-process communicator
 * (MPI-3.1, chapter 5: a reduction returns its input, a gather or
 * allgather copies the one buffer, a broadcast leaves it), and the
 * self-scheduling slots as plain counters with fetch-and-add semantics.
 * The multi-rank paths run under mpirun in test_search (bench/ times
 * them); here the launch variables are cleared so the program is serial
 * whatever started it.
 */
#include "core/dist.h"
#include "harness.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void one_rank(void)
{
	CHECK(pp_dist_rank() == 0);
	CHECK(pp_dist_size() == 1);
	CHECK(!pp_dist_idle());
	CHECK(!strcmp(pp_dist_describe(), "serial"));
}

static void collectives_are_identities(void)
{
	double v[3] = {3.5, -1, 1e300};
	pp_dist_allreduce_min(v, 3);
	CHECK(v[0] == 3.5 && v[1] == -1 && v[2] == 1e300);
	pp_dist_allreduce_sum(v, 3);
	CHECK(v[0] == 3.5 && v[1] == -1 && v[2] == 1e300);
	const char send[] = "rank 0's row";
	char recv[sizeof(send)] = "";
	pp_dist_gather(send, sizeof(send), recv);
	CHECK(!memcmp(recv, send, sizeof(send)));
	pp_dist_gather(send, sizeof(send), NULL); /* other ranks pass none: harmless */
	int b = 42;
	pp_dist_bcast(&b, sizeof(b));
	CHECK(b == 42);
	void *all = NULL;
	size_t total = 0;
	pp_dist_allgatherv(send, sizeof(send), &all, &total);
	CHECK(total == sizeof(send) && all && all != (void *)send && !memcmp(all, send, total));
	free(all);
}

static void slots_count(void)
{
	pp_dist_slots *w = pp_dist_slots_new(4);
	int64_t v[4] = {-1, -1, -1, -1};
	pp_dist_slot_get(w, 0, 4, v);
	CHECK(v[0] == 0 && v[1] == 0 && v[2] == 0 && v[3] == 0);
	/* fetch-and-add: each call returns the value before it */
	CHECK(pp_dist_slot_add(w, 1, 5) == 0);
	CHECK(pp_dist_slot_add(w, 1, 5) == 5);
	CHECK(pp_dist_slot_add(w, 1, -3) == 10);
	pp_dist_slot_set(w, 3, 99);
	pp_dist_slot_get(w, 1, 3, v);
	CHECK(v[0] == 7 && v[1] == 0 && v[2] == 99);
	pp_dist_slots_free(w);
}

int main(void)
{
	unsetenv("OMPI_COMM_WORLD_SIZE");
	unsetenv("OMPI_COMM_WORLD_RANK");
	pp_dist_init();
	pp_dist_init(); /* idempotent */
	RUN(one_rank);
	RUN(collectives_are_identities);
	RUN(slots_count);
	pp_dist_finalize();
	pp_dist_finalize();
	return pp_t_done("test_dist");
}
