/* cheap.c - see cheap.h. */
#include "cluster/cheap.h"

#include <math.h>

static bool before(const void *pa, const void *pb, void *ctx)
{
	const pp_cev *a = pa, *b = pb;
	(void)ctx;
	return a->t_s < b->t_s || (a->t_s == b->t_s && a->seq < b->seq);
}

void pp_cheap_init(pp_cheap *h)
{
	pp_heap_init(&h->h, sizeof(pp_cev));
	h->seq = 0;
}

void pp_cheap_release(pp_cheap *h)
{
	pp_heap_release(&h->h);
	h->seq = 0;
}

void pp_cheap_push(pp_cheap *h, double t_s, int kind, int who, uint32_t gen)
{
	pp_cev e = {t_s, h->seq++, kind, who, gen};
	pp_heap_push(&h->h, &e, sizeof(e), before, NULL);
}

bool pp_cheap_pop(pp_cheap *h, pp_cev *e)
{
	if (!pp_heap_len(&h->h))
		return false;
	pp_heap_pop(&h->h, e, sizeof(*e), before, NULL);
	return true;
}

double pp_cheap_peek_t(const pp_cheap *h)
{
	const pp_cev *e = pp_heap_top(&h->h);
	return e ? e->t_s : INFINITY;
}
