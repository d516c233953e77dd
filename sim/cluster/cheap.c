/* cheap.c - see cheap.h. */
#include "cluster/cheap.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>

static bool before(const pp_cev *a, const pp_cev *b)
{
	return a->t_s < b->t_s || (a->t_s == b->t_s && a->seq < b->seq);
}

void pp_cheap_init(pp_cheap *h)
{
	h->v = NULL;
	h->n = h->cap = 0;
	h->seq = 0;
}

void pp_cheap_release(pp_cheap *h)
{
	free(h->v);
	pp_cheap_init(h);
}

void pp_cheap_push(pp_cheap *h, double t_s, int kind, int who, uint32_t gen)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 256;
		h->v = pp_xrealloc(h->v, (size_t)h->cap * sizeof(*h->v));
	}
	pp_cev e = {t_s, h->seq++, kind, who, gen};
	int i = h->n++;
	while (i > 0) {
		int p = (i - 1) / 2;
		if (!before(&e, &h->v[p]))
			break;
		h->v[i] = h->v[p];
		i = p;
	}
	h->v[i] = e;
}

bool pp_cheap_pop(pp_cheap *h, pp_cev *e)
{
	if (!h->n)
		return false;
	*e = h->v[0];
	pp_cev last = h->v[--h->n];
	int i = 0;
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		const pp_cev *best = &last;
		if (l < h->n && before(&h->v[l], best)) {
			m = l;
			best = &h->v[l];
		}
		if (r < h->n && before(&h->v[r], best))
			m = r;
		if (m == i)
			break;
		h->v[i] = h->v[m];
		i = m;
	}
	if (h->n)
		h->v[i] = last;
	return true;
}

double pp_cheap_peek_t(const pp_cheap *h)
{
	return h->n ? h->v[0].t_s : INFINITY;
}
