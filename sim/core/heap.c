/* heap.c - see heap.h. */
#include "core/heap.h"
#include "core/util.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define AT(h, i) ((h)->v + (i) * (h)->size)

void pp_heap_init(pp_heap *h, size_t size, pp_heap_less_fn less, void *ctx)
{
	assert(size > 0 && less);
	memset(h, 0, sizeof(*h));
	h->size = size;
	h->less = less;
	h->ctx = ctx;
}

void pp_heap_release(pp_heap *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}

void pp_heap_clear(pp_heap *h)
{
	h->n = 0;
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

/* Move the element at the spare slot down from slot i of a heap of n:
 * past every child less than it, the smaller child first. */
static void sift_down(pp_heap *h, size_t i, size_t n)
{
	const unsigned char *e = AT(h, h->cap - 1);
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && h->less(AT(h, c + 1), AT(h, c), h->ctx))
			c++;
		if (!h->less(AT(h, c), e, h->ctx))
			break;
		memcpy(AT(h, i), AT(h, c), h->size);
		i = c;
	}
	memcpy(AT(h, i), e, h->size);
}

void pp_heap_push(pp_heap *h, const void *e)
{
	pp_heap_reserve(h, h->n + 1);
	size_t i = h->n++;
	while (i > 0) {
		size_t up = (i - 1) / 2;
		if (!h->less(e, AT(h, up), h->ctx))
			break;
		memcpy(AT(h, i), AT(h, up), h->size);
		i = up;
	}
	memcpy(AT(h, i), e, h->size);
}

void pp_heap_pop(pp_heap *h, void *out)
{
	assert(h->n > 0);
	if (out)
		memcpy(out, h->v, h->size);
	size_t n = --h->n;
	if (!n)
		return;
	memcpy(AT(h, h->cap - 1), AT(h, n), h->size);
	sift_down(h, 0, n);
}

void pp_heap_build(pp_heap *h, const void *items, size_t n)
{
	pp_heap_reserve(h, n);
	if (n)
		memcpy(h->v, items, n * h->size);
	h->n = n;
	for (size_t i = n / 2; i-- > 0;) {
		memcpy(AT(h, h->cap - 1), AT(h, i), h->size);
		sift_down(h, i, n);
	}
}
