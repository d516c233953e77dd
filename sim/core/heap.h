/*
 * heap.h - a binary min-heap of fixed-size elements (an array, the least
 * at index 0), ordered by the caller's less(a, b, ctx): a priority queue
 * for event simulations (des.c's events and FIFO links; servesim.c's event
 * queue) and best-first searches (plan/search.c's frontier). Written here
 * because neither C11 nor the libraries podplan uses (GSL, cJSON, SQLite)
 * has one; the algorithm is Williams' (CACM 7(6), 1964) with Floyd's
 * bottom-up build (CACM 7(12), 1964), as in Knuth TAOCP vol. 3, 5.2.3.
 *
 * Order: less must be a strict weak order. Elements that compare equal
 * come out in an order fixed by the sequence of pushes and pops (the same
 * on every run and every machine), but not in push order: where their
 * order matters, give less a tie-breaker (a task id, a sequence number).
 * Push is the sift-up that stops at the first parent not greater than
 * the new element; pop moves the last element down from the root past
 * every child less than it (the smaller child first, the left one on a
 * tie) - the two heaps podplan wrote by hand before, so that their users
 * keep their order of equal elements.
 *
 * Ownership: the heap owns its array (pp_heap_init/pp_heap_release, or a
 * zeroed pp_heap after pp_heap_init); elements are copied in and out by
 * value (memcpy of `size` bytes), so they must not point into the heap.
 * Costs: push and pop O(log n) comparisons, build O(n); memory grows by
 * doubling and is kept by pp_heap_clear. Allocation failure exits
 * (pp_xrealloc).
 */
#ifndef PP_HEAP_H
#define PP_HEAP_H

#include <stdbool.h>
#include <stddef.h>

/* Whether a comes before b; ctx is the heap's. */
typedef bool (*pp_heap_less_fn)(const void *a, const void *b, void *ctx);

typedef struct pp_heap {
	unsigned char *v;     /* n elements, size bytes each, v[0] the least; one spare slot */
	size_t n, cap;        /* elements held; room for (cap slots, the spare included) */
	size_t size;          /* bytes per element */
	pp_heap_less_fn less;
	void *ctx;
} pp_heap;

/* An empty heap of elements of `size` bytes (> 0) ordered by less with
 * ctx; allocates nothing yet. */
void pp_heap_init(pp_heap *h, size_t size, pp_heap_less_fn less, void *ctx);
/* Free the array; h is then as after pp_heap_init with nothing held. */
void pp_heap_release(pp_heap *h);
/* Empty it, keeping the array for reuse. */
void pp_heap_clear(pp_heap *h);
/* Room for n elements without a reallocation. */
void pp_heap_reserve(pp_heap *h, size_t n);

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

/* Add a copy of *e. */
void pp_heap_push(pp_heap *h, const void *e);
/* Remove the least element, copying it to *out (may be NULL); the heap
 * must not be empty. */
void pp_heap_pop(pp_heap *h, void *out);
/* Replace the contents by copies of items[0 .. n) in O(n) (Floyd). */
void pp_heap_build(pp_heap *h, const void *items, size_t n);

#endif
