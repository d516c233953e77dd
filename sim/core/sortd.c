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
 * out may be x. */
void pp_sort_doubles(const double *x, size_t n, double *out)
{
	if (n == 0)
		return;
	uint64_t *a = pp_xmalloc(n * sizeof(uint64_t)), *b = (uint64_t *)(void *)out;
	uint64_t *mine = a;
	size_t *cnt = pp_xcalloc((size_t)4 << 16, sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		a[i] = key_of(x[i]);
		for (int d = 0; d < 4; d++)
			cnt[((size_t)d << 16) + ((a[i] >> (16 * d)) & 0xffff)]++;
	}
	for (int d = 0; d < 4; d++) {
		size_t *c = cnt + ((size_t)d << 16);
		if (c[a[0] >> (16 * d) & 0xffff] == n)
			continue; /* every key has this digit */
		size_t sum = 0;
		for (size_t v = 0; v < 65536; v++) {
			size_t t = c[v];
			c[v] = sum;
			sum += t;
		}
		for (size_t i = 0; i < n; i++)
			b[c[(a[i] >> (16 * d)) & 0xffff]++] = a[i];
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
