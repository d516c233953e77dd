/*
 * bench_ref.c - the reference workload `make bench` divides every figure
 * by (issue 19): a fixed CPU job that uses no podplan code, so its time
 * moves with the machine, not with the engine. It sorts 2^16
 * pseudo-random doubles eight times (libc qsort: comparisons, branches, a
 * merge buffer, as the search's and Monte Carlo's sorting), then walks a
 * 128 KiB table in a data-dependent order 2^24 times (integer hashing, as
 * the fast path's state hashing and the workload cache), and folds the
 * results into a checksum that is printed so nothing is optimised away.
 * Everything stays in the core's caches, like podplan's hot loops: its CPU
 * time barely moves when other jobs load the machine (0.150-0.165 s at a
 * load average of 12 on the 2-core build machine), where a job that
 * misses the caches slows several times.
 *
 * Prints one line: "ref_cpu_s ref_wall_s checksum" for the fastest of
 * REPEATS runs, or of argv[1] runs (CPU time of this process,
 * CLOCK_PROCESS_CPUTIME_ID; wall time CLOCK_MONOTONIC). The fastest is the run least slowed by other
 * work on the machine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NSORT (1u << 16)
#define NTAB (1u << 14) /* uint64 entries: 128 KiB */
#define NWALK (1u << 24)
#define NSORTS 8
#define REPEATS 3 /* unless argv[1] says how many */

static double clock_s(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static uint64_t job(double *v, uint64_t *tab)
{
	uint64_t s = 0x9E3779B97F4A7C15ull, sum = 0;
	for (int r = 0; r < NSORTS; r++) {
		for (uint32_t i = 0; i < NSORT; i++)
			v[i] = (double)(xorshift(&s) >> 11) * 0x1p-53;
		qsort(v, NSORT, sizeof(double), cmp_double);
		for (uint32_t i = 0; i < NSORT; i += 4096)
			sum += (uint64_t)(v[i] * 1e9);
	}
	for (uint32_t i = 0; i < NTAB; i++)
		tab[i] = xorshift(&s);
	uint64_t h = 1;
	for (uint32_t i = 0; i < NWALK; i++) {
		uint64_t *e = &tab[h & (NTAB - 1)];
		h = (h ^ *e) * 0x100000001B3ull;
		if (h & 1)
			*e += i;
		else
			h ^= h >> 29;
	}
	return sum ^ h;
}

int main(int argc, char **argv)
{
	int repeats = argc > 1 ? atoi(argv[1]) : REPEATS;
	if (repeats < 1)
		repeats = 1;
	double *v = malloc(sizeof(double) * NSORT);
	uint64_t *tab = malloc(sizeof(uint64_t) * NTAB);
	if (!v || !tab) {
		fprintf(stderr, "bench_ref: out of memory\n");
		return 1;
	}
	double best_cpu = 1e300, best_wall = 1e300;
	uint64_t check = 0;
	for (int r = 0; r < repeats; r++) {
		double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
		check = job(v, tab);
		double c = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0, w = clock_s(CLOCK_MONOTONIC) - w0;
		if (c < best_cpu)
			best_cpu = c;
		if (w < best_wall)
			best_wall = w;
	}
	printf("%.6f %.6f %016llx\n", best_cpu, best_wall, (unsigned long long)check);
	free(v);
	free(tab);
	return 0;
}
