/* sortd.c - see sortd.h. */
#include "core/sortd.h"
#include "core/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t key_of(double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof(u));
	return u >> 63 ? ~u : u ^ 0x8000000000000000ull;
}

static double value_of(uint64_t k)
{
	uint64_t u = k >> 63 ? k ^ 0x8000000000000000ull : ~k;
	double v;
	memcpy(&v, &u, sizeof(v));
	return v;
}

/* x is read whole before out, one of the passes' two buffers, is written:
 * out may be x. Digits of 16 bits (four passes) for large n; below
 * SMALL_N keys, digits of 8 bits (eight passes over few keys), so that
 * clearing and summing 4 x 65,536 counts does not cost more than the keys
 * (cost weighing sorts 10,000 draws per option). Either way the output is
 * the keys in ascending order: the same doubles in the same order. */
enum { SMALL_N = 1 << 16 };

void pp_sort_doubles(const double *x, size_t n, double *out)
{
	if (n == 0)
		return;
	int bits = n < SMALL_N ? 8 : 16, passes = 64 / bits;
	size_t radix = (size_t)1 << bits, mask = radix - 1;
	uint64_t *a = pp_xmalloc(n * sizeof(uint64_t)), *b = (uint64_t *)(void *)out;
	uint64_t *mine = a;
	size_t *cnt = pp_xcalloc((size_t)passes * radix, sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		a[i] = key_of(x[i]);
		for (int d = 0; d < passes; d++)
			cnt[(size_t)d * radix + ((a[i] >> (bits * d)) & mask)]++;
	}
	for (int d = 0; d < passes; d++) {
		size_t *c = cnt + (size_t)d * radix;
		if (c[a[0] >> (bits * d) & mask] == n)
			continue; /* every key has this digit */
		size_t sum = 0;
		for (size_t v = 0; v < radix; v++) {
			size_t t = c[v];
			c[v] = sum;
			sum += t;
		}
		for (size_t i = 0; i < n; i++)
			b[c[(a[i] >> (bits * d)) & mask]++] = a[i];
		uint64_t *t = a;
		a = b;
		b = t;
	}
	/* the keys back to doubles in out, in place when they are there */
	for (size_t i = 0; i < n; i++) {
		double v = value_of(a[i]);
		memcpy(out + i, &v, sizeof(v));
	}
	free(mine);
	free(cnt);
}
