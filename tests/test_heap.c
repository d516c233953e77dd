/*
 * test_heap.c - the binary heap (core/heap.h), against second methods:
 *  - pops come out in qsort's order, after pushes and after a build;
 *  - interleaved pushes and pops always pop the least of what is held, by
 *    a linear scan of a plain array holding the same elements;
 *  - a comparator reading its context (task ids ordered by a release time
 *    the caller holds, as des.c's links do);
 *  - equal elements come out in the order of the hand-written heaps the
 *    heap replaced (the sift of des.c and serve/servesim.c, written out
 *    below from their code at 638b76f), so their users keep their order;
 *  - clear keeps the array, release frees it, zero and one element.
 */
#include "core/heap.h"
#include "harness.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool int_less(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return *(const int *)a < *(const int *)b;
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

/* a fixed xorshift: the same draws on every run */
static uint32_t rng = 2463534242u;
static uint32_t draw(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static void sorted_like_qsort(void)
{
	enum { N = 5000 };
	int *x = malloc(sizeof(int) * N), *y = malloc(sizeof(int) * N);
	for (int i = 0; i < N; i++)
		x[i] = (int)(draw() % 1000); /* many ties */
	memcpy(y, x, sizeof(int) * N);
	qsort(y, N, sizeof(int), int_cmp);
	pp_heap h;
	pp_heap_init(&h, sizeof(int));
	for (int i = 0; i < N; i++)
		pp_heap_push(&h, &x[i], sizeof(int), int_less, NULL);
	CHECK(pp_heap_len(&h) == N);
	bool ok = true;
	for (int i = 0; i < N; i++) {
		int v = -1;
		CHECK(pp_heap_top(&h) && *(const int *)pp_heap_top(&h) == y[i]);
		pp_heap_pop(&h, &v, sizeof(int), int_less, NULL);
		ok &= v == y[i];
	}
	CHECK(ok);
	CHECK(pp_heap_len(&h) == 0 && pp_heap_top(&h) == NULL);
	/* the same from a build */
	pp_heap_build(&h, x, N, sizeof(int), int_less, NULL);
	ok = true;
	for (int i = 0; i < N; i++) {
		int v;
		pp_heap_pop(&h, &v, sizeof(int), int_less, NULL);
		ok &= v == y[i];
	}
	CHECK(ok);
	pp_heap_release(&h);
	free(x);
	free(y);
}

static void interleaved_least(void)
{
	enum { OPS = 20000, MAXN = 600 };
	int held[MAXN], n = 0;
	pp_heap h;
	pp_heap_init(&h, sizeof(int));
	bool ok = true;
	for (int op = 0; op < OPS; op++) {
		bool push = n == 0 || (n < MAXN && draw() % 3 != 0);
		if (push) {
			int v = (int)(draw() % 5000) - 2500;
			held[n++] = v;
			pp_heap_push(&h, &v, sizeof(int), int_less, NULL);
		} else {
			int least = 0;
			for (int i = 1; i < n; i++)
				if (held[i] < held[least])
					least = i;
			int v;
			pp_heap_pop(&h, &v, sizeof(int), int_less, NULL);
			ok &= v == held[least];
			held[least] = held[--n];
		}
		ok &= pp_heap_len(&h) == (size_t)n;
	}
	CHECK(ok);
	pp_heap_release(&h);
}

/* ids ordered by (rel[id], id), rel held by the caller */
static bool by_release(const void *a, const void *b, void *ctx)
{
	const int64_t *rel = ctx;
	int x = *(const int *)a, y = *(const int *)b;
	return rel[x] < rel[y] || (rel[x] == rel[y] && x < y);
}

static void context_comparator(void)
{
	int64_t rel[6] = {30, 10, 30, 20, 10, 0};
	pp_heap h;
	pp_heap_init(&h, sizeof(int));
	for (int id = 0; id < 6; id++)
		pp_heap_push(&h, &id, sizeof(int), by_release, rel);
	/* by hand: release 0 (id 5), 10 (ids 1, 4), 20 (id 3), 30 (ids 0, 2) */
	int want[6] = {5, 1, 4, 3, 0, 2}, got[6];
	for (int i = 0; i < 6; i++)
		pp_heap_pop(&h, &got[i], sizeof(int), by_release, rel);
	CHECK(!memcmp(got, want, sizeof(want)));
	pp_heap_release(&h);
}

/* An event keyed by time alone, as servesim.c's queue is: equal times
 * keep the payload's order as that queue's own sift gave it. */
typedef struct tev {
	double t;
	int id;
} tev;

static bool tev_less(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return ((const tev *)a)->t < ((const tev *)b)->t;
}

/* servesim.c's heap_push / heap_pop at 638b76f (des.c's were the same
 * sift with a tie-breaker) */
static void old_push(tev *h, int *n, tev e)
{
	int i = (*n)++;
	while (i > 0) {
		int up = (i - 1) / 2;
		if (h[up].t <= e.t)
			break;
		h[i] = h[up];
		i = up;
	}
	h[i] = e;
}

static tev old_pop(tev *h, int *n)
{
	tev top = h[0], last = h[--*n];
	int i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1].t < h[c].t)
			c++;
		if (h[c].t >= last.t)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n > 0)
		h[i] = last;
	return top;
}

static void ties_as_before(void)
{
	enum { OPS = 20000, MAXN = 512 };
	tev *ref = malloc(sizeof(tev) * MAXN);
	int n = 0, next = 0;
	pp_heap h;
	pp_heap_init(&h, sizeof(tev));
	bool ok = true, saw_tie_out_of_order = false;
	int last_id = -1;
	double last_t = -1;
	for (int op = 0; op < OPS; op++) {
		if (n == 0 || (n < MAXN && draw() % 2)) {
			tev e = {(double)(draw() % 8), next++}; /* eight times: ties all along */
			old_push(ref, &n, e);
			pp_heap_push(&h, &e, sizeof(tev), tev_less, NULL);
		} else {
			tev a = old_pop(ref, &n), b;
			pp_heap_pop(&h, &b, sizeof(tev), tev_less, NULL);
			ok &= a.t == b.t && a.id == b.id;
			if (b.t == last_t && b.id < last_id)
				saw_tie_out_of_order = true;
			last_t = b.t;
			last_id = b.id;
		}
	}
	CHECK(ok);
	/* the property the order keeps is the old heaps', not push order */
	CHECK(saw_tie_out_of_order);
	pp_heap_release(&h);
	free(ref);
}

static void small_and_reuse(void)
{
	pp_heap h;
	pp_heap_init(&h, sizeof(int));
	CHECK(pp_heap_top(&h) == NULL);
	pp_heap_build(&h, NULL, 0, sizeof(int), int_less, NULL);
	CHECK(pp_heap_len(&h) == 0);
	int v = 7, out = 0;
	pp_heap_push(&h, &v, sizeof(int), int_less, NULL);
	pp_heap_pop(&h, &out, sizeof(int), int_less, NULL);
	CHECK(out == 7 && pp_heap_len(&h) == 0);
	for (int i = 100; i > 0; i--)
		pp_heap_push(&h, &i, sizeof(int), int_less, NULL);
	const unsigned char *arr = h.v;
	size_t cap = h.cap;
	pp_heap_clear(&h);
	CHECK(pp_heap_len(&h) == 0 && h.v == arr && h.cap == cap);
	v = 3;
	pp_heap_push(&h, &v, sizeof(int), int_less, NULL);
	v = 1;
	pp_heap_push(&h, &v, sizeof(int), int_less, NULL);
	pp_heap_pop(&h, NULL, sizeof(int), int_less, NULL);
	CHECK(*(const int *)pp_heap_top(&h) == 3);
	pp_heap_reserve(&h, 1000);
	CHECK(h.cap > 1000 && pp_heap_len(&h) == 1);
	pp_heap_release(&h);
	CHECK(h.v == NULL && pp_heap_len(&h) == 0);
	/* usable again after a release */
	pp_heap_push(&h, &v, sizeof(int), int_less, NULL);
	CHECK(pp_heap_len(&h) == 1);
	pp_heap_release(&h);
}

int main(void)
{
	RUN(sorted_like_qsort);
	RUN(interleaved_least);
	RUN(context_comparator);
	RUN(ties_as_before);
	RUN(small_and_reuse);
	return pp_t_done("test_heap");
}
