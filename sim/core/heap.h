/*
 * heap.h - a binary min-heap of fixed-size elements (an array, the least
 * at index 0), ordered by the caller's less(a, b, ctx): a priority queue
 * for event simulations (des.c's events and FIFO links; servesim.c's event
 * queue) and best-first searches (plan/search.c's frontier). Written here
 * because neither C11 nor the libraries podplan uses (GSL, cJSON, SQLite)
 * has one; the algorithm is Williams' (CACM 7(6), 1964) with Floyd's
 * bottom-up build (CACM 7(12), 1964), as in Knuth TAOCP vol. 3, 5.2.3.
 *
 * The comparator and the element size come with each call, as qsort's
 * do, and the sifts are inline: a caller that passes its own static less
 * and sizeof its element type gets a heap as fast as one written for that
 * type (the compiler calls less directly and inlines it, and each copy is
 * a move or two), which a queue popped millions of times per simulation
 * needs (des.c's event queue: no slower than its own heap was). Every call
 * on one heap must pass the same less, ctx and size (the size is checked
 * against pp_heap_init's).
 *
 * Order: less must be a strict weak order. Elements that compare equal
 * come out in an order fixed by the sequence of pushes and pops (the same
 * on every run and every machine), but not in push order: where their
 * order matters, give less a tie-breaker (a task id, a sequence number).
 * Push is the sift-up that stops at the first parent not greater than
 * the new element; pop moves the last element down from the root past
 * every child less than it (the smaller child first, the left one on a
 * tie) - the sift of the heaps podplan wrote by hand before, so that their
 * users keep their order of equal elements.
 *
 * Ownership: the heap owns its array (pp_heap_init .. pp_heap_release;
 * a zeroed pp_heap is not initialised: it has no element size); elements
 * are copied in and out by value, so *e must not lie in the heap's array.
 * Costs: push and pop O(log n) comparisons, build O(n); the array grows
 * by doubling and pp_heap_clear keeps it. Allocation failure exits
 * (pp_xrealloc).
 */
#ifndef PP_HEAP_H
#define PP_HEAP_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Whether a comes before b. */
typedef bool (*pp_heap_less_fn)(const void *a, const void *b, void *ctx);

typedef struct pp_heap {
	unsigned char *v;  /* n elements, size bytes each, v[0] the least; one spare slot */
	size_t n;          /* elements held */
	size_t cap;        /* slots allocated, the spare (the element being moved) included */
	size_t size;       /* bytes per element */
} pp_heap;

/* An empty heap of elements of `size` bytes (> 0); allocates nothing. */
void pp_heap_init(pp_heap *h, size_t size);
/* Free the array; h is then empty, its element size kept. */
void pp_heap_release(pp_heap *h);
/* Room for n elements without a reallocation. */
void pp_heap_reserve(pp_heap *h, size_t n);

/* Empty it, keeping the array for reuse. */
static inline void pp_heap_clear(pp_heap *h)
{
	h->n = 0;
}
/* Elements held. */
static inline size_t pp_heap_len(const pp_heap *h)
{
	return h->n;
}
/* The least element, in the heap's array (valid until the next push,
 * pop or build); NULL when empty. */
static inline const void *pp_heap_top(const pp_heap *h)
{
	return h->n ? h->v : NULL;
}

/* ---- the sifts (inline; see above) ---- */

/* Put the element in the spare slot at slot i of the first n, moving it
 * down past every child less than it (the smaller child first). */
static inline void pp_heap_sift_down_(pp_heap *h, size_t i, size_t n, size_t size,
				      pp_heap_less_fn less, void *ctx)
{
	unsigned char *v = h->v;
	const unsigned char *e = v + (h->cap - 1) * size;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && less(v + (c + 1) * size, v + c * size, ctx))
			c++;
		if (!less(v + c * size, e, ctx))
			break;
		memcpy(v + i * size, v + c * size, size);
		i = c;
	}
	memcpy(v + i * size, e, size);
}

/* Add a copy of *e, of size bytes (the heap's element size). */
static inline void pp_heap_push(pp_heap *h, const void *e, size_t size, pp_heap_less_fn less,
				void *ctx)
{
	assert(size == h->size);
	if (h->n + 2 > h->cap)
		pp_heap_reserve(h, h->n + 1);
	unsigned char *v = h->v;
	size_t i = h->n++;
	while (i > 0) {
		size_t up = (i - 1) / 2;
		if (!less(e, v + up * size, ctx))
			break;
		memcpy(v + i * size, v + up * size, size);
		i = up;
	}
	memcpy(v + i * size, e, size);
}

/* Remove the least element, copying it to *out (may be NULL); the heap
 * must not be empty. */
static inline void pp_heap_pop(pp_heap *h, void *out, size_t size, pp_heap_less_fn less,
			       void *ctx)
{
	assert(size == h->size && h->n > 0);
	if (out)
		memcpy(out, h->v, size);
	size_t n = --h->n;
	if (!n)
		return;
	memcpy(h->v + (h->cap - 1) * size, h->v + n * size, size);
	pp_heap_sift_down_(h, 0, n, size, less, ctx);
}

/* Replace the contents by copies of items[0 .. n) in O(n) (Floyd). */
static inline void pp_heap_build(pp_heap *h, const void *items, size_t n, size_t size,
				 pp_heap_less_fn less, void *ctx)
{
	assert(size == h->size);
	pp_heap_reserve(h, n);
	if (n)
		memcpy(h->v, items, n * size);
	h->n = n;
	for (size_t i = n / 2; i-- > 0;) {
		memcpy(h->v + (h->cap - 1) * size, h->v + i * size, size);
		pp_heap_sift_down_(h, i, n, size, less, ctx);
	}
}

#endif
