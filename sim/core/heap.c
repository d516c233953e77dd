/* heap.c - see heap.h: the array's allocation (the sifts are inline). */
#include "core/heap.h"
#include "core/util.h"

#include <stdlib.h>

void pp_heap_init(pp_heap *h, size_t size)
{
	assert(size > 0);
	memset(h, 0, sizeof(*h));
	h->size = size;
}

void pp_heap_release(pp_heap *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}

void pp_heap_reserve(pp_heap *h, size_t n)
{
	/* one slot beyond the elements: the element being moved */
	if (n + 1 <= h->cap)
		return;
	size_t cap = h->cap ? h->cap : 64;
	while (cap < n + 1)
		cap *= 2;
	h->v = pp_xrealloc(h->v, cap * h->size);
	h->cap = cap;
}
