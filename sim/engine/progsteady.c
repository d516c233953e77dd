/* progsteady.c - see program.h: the steady state, found and moved over
 * (pp_program_checkpoint .. pp_program_skip). */
#include "engine/programint.h"
#include "core/util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The period of the steady part of the schedule, in units per stage, and
 * the micro-batches a period moves on; false for GPipe (no steady part in
 * which forwards and backwards alternate). */
static bool period_of(const pp_program *p, int *T, int *S)
{
	const pp_pipe *par = &p->c->pipe;
	if (par->schedule == PP_SCHED_GPIPE || pp_pipe_listed(par))
		return false;
	if (par->schedule == PP_SCHED_1F1B || par->vpp == 1) {
		*T = 2;  /* one forward, one backward */
		*S = 1;
	} else {
		*T = 2 * p->P * p->V;  /* every chunk of P micro-batches, forward and backward */
		*S = p->P;
	}
	return true;
}

int pp_program_checkpoint(const pp_program *p, int st, int c)
{
	int T, S;
	if (p->k.dep || !period_of(p, &T, &S))
		return -1;
	int end;
	int64_t i = pp_pipe_phases(&p->c->pipe, st, &end) + (int64_t)c * T;
	return i <= p->st[st].n ? (int)i : -1;
}

/* The inputs sent to virtual stage vs and not yet used: arr from key
 * (vs, cons) while set (senders send and receivers use in micro-batch
 * order, so they are contiguous). */
static int window(const pp_program *p, const int64_t *arr, int vs, int cons, const int64_t **out)
{
	size_t key = (size_t)vs * p->M + (size_t)cons;
	int w = 0;
	while (cons + w < p->M && arr[key + (size_t)w] >= 0)
		w++;
	*out = arr + key;
	return w;
}

/* What the units to come can read, at one pp_program_mark(). */
typedef struct mark {
	int *next, *cons;          /* [P], [2 NV] */
	int *wlen;                 /* [2 NV]: arrivals in flight per virtual stage, F then B */
	int *pend;                 /* [2 P]: ZeRO-3's pending reduce-scatter's part and kind */
	int64_t *h;                /* [4 P]: prev0, prev1, pend_rs, last */
	int64_t *win;              /* the arrivals in flight, in wlen's order */
	size_t nwin, capwin;
	int64_t coalesced;
} mark;

/* The last PP_STEADY_MARKS marks, newest at (n - 1) % PP_STEADY_MARKS. */
struct marks {
	mark m[PP_STEADY_MARKS];
	int n;
};

void pp_prog_marks_free(struct marks *r)
{
	if (!r)
		return;
	for (int i = 0; i < PP_STEADY_MARKS; i++) {
		free(r->m[i].next);
		free(r->m[i].h);
		free(r->m[i].win);
	}
	free(r);
}

/* The mark q checkpoints before the newest (0: the newest); NULL when
 * not recorded. */
static const mark *mark_back(const pp_program *p, int q)
{
	const struct marks *r = p->marks;
	if (!r || q < 0 || q >= PP_STEADY_MARKS || q >= r->n)
		return NULL;
	return &r->m[(r->n - 1 - q) % PP_STEADY_MARKS];
}

/* FNV-1a, a word at a time */
static uint64_t hash_add(uint64_t h, int64_t v)
{
	h ^= (uint64_t)v;
	h *= 1099511628211ull;
	return h ^ (h >> 29);
}

static void stage_handles(const pstage *S, int64_t h[4])
{
	h[0] = S->prev0;
	h[1] = S->prev1;
	h[2] = S->pend_rs;
	h[3] = S->last;
}

bool pp_program_mark(pp_program *p, uint64_t *hash, int64_t *ref)
{
	int P = p->P, NV = p->NV;
	if (p->first_left > 0) {
		if (p->marks)
			p->marks->n = 0;  /* checkpoints must follow each other */
		return false;  /* a chunk's first forward (the parameter gathers) to come */
	}
	if (!p->marks)
		p->marks = pp_xcalloc(1, sizeof(*p->marks));
	mark *m = &p->marks->m[p->marks->n % PP_STEADY_MARKS];
	if (!m->next) {
		/* one block of ints: next, cons, wlen, pend */
		m->next = pp_xmalloc(sizeof(int) * ((size_t)P * 3 + (size_t)NV * 4));
		m->cons = m->next + P;
		m->wlen = m->cons + 2 * NV;
		m->pend = m->wlen + 2 * NV;
		m->h = pp_xmalloc(sizeof(int64_t) * (size_t)P * 4);
	}
	p->marks->n++;
	for (int st = 0; st < P; st++) {
		const pstage *S = &p->st[st];
		m->next[st] = S->next;
		m->pend[2 * st] = S->pend_part;
		m->pend[2 * st + 1] = S->pend_kind;
		stage_handles(S, m->h + 4 * st);
	}
	m->nwin = 0;
	for (int d = 0; d < 2; d++)
		for (int vs = 0; vs < NV; vs++) {
			int cons = (d ? p->cons_b : p->cons_f)[vs];
			const int64_t *a;
			int w = window(p, d ? p->arr_b : p->arr_f, vs, cons, &a);
			m->cons[d * NV + vs] = cons;
			m->wlen[d * NV + vs] = w;
			if (m->nwin + (size_t)w > m->capwin) {
				m->capwin = 2 * (m->nwin + (size_t)w) + 64;
				m->win = pp_xrealloc(m->win, sizeof(int64_t) * m->capwin);
			}
			if (w) /* an empty window may have no array yet */
				memcpy(m->win + m->nwin, a, sizeof(int64_t) * (size_t)w);
			m->nwin += (size_t)w;
		}
	m->coalesced = p->coalesced;
	/* the state relative to stage 0's last task, which a cycle repeats */
	int64_t r0 = m->h[3];
	uint64_t h = 1469598103934665603ull;
	for (int st = 0; st < P; st++) {
		h = hash_add(h, m->pend[2 * st] * 64 + m->pend[2 * st + 1]);
		for (int i = 0; i < 4; i++)
			h = hash_add(h, m->h[4 * st + i] < 0 ? -1 : m->h[4 * st + i] - r0);
	}
	for (int i = 0; i < 2 * NV; i++)
		h = hash_add(h, m->wlen[i]);
	for (size_t i = 0; i < m->nwin; i++)
		h = hash_add(h, m->win[i] - r0);
	*hash = h;
	*ref = r0;
	return true;
}

/* a is b moved on by dt (both no task, or both tasks) */
static bool moved(int64_t a, int64_t b, int64_t dt)
{
	return a < 0 ? b < 0 : b >= 0 && a == b + dt;
}

bool pp_program_periodic(const pp_program *p, int q, int64_t *dt)
{
	const mark *m = mark_back(p, q);
	int T, S, P = p->P, NV = p->NV;
	if (q < 1 || !m || !period_of(p, &T, &S))
		return false;
	if (p->st[0].last < 0 || m->h[3] < 0)
		return false;
	int64_t d = p->st[0].last - m->h[3];
	for (int st = 0; st < P; st++) {
		const pstage *X = &p->st[st];
		int64_t h[4];
		stage_handles(X, h);
		if (X->next != m->next[st] + q * T || X->pend_part != m->pend[2 * st] ||
		    X->pend_kind != m->pend[2 * st + 1])
			return false;
		for (int i = 0; i < 4; i++)
			if (!moved(h[i], m->h[4 * st + i], d))
				return false;
	}
	size_t off = 0;
	for (int dir = 0; dir < 2; dir++)
		for (int vs = 0; vs < NV; vs++) {
			int cons = (dir ? p->cons_b : p->cons_f)[vs];
			const int64_t *a;
			int w = window(p, dir ? p->arr_b : p->arr_f, vs, cons, &a);
			if (cons != m->cons[dir * NV + vs] + q * S || w != m->wlen[dir * NV + vs])
				return false;
			for (int j = 0; j < w; j++)
				if (a[j] != m->win[off + (size_t)j] + d)
					return false;
			off += (size_t)w;
		}
	*dt = d;
	return true;
}

bool pp_program_may_skip(const pp_program *p, int c)
{
	int T, S;
	if (!period_of(p, &T, &S))
		return false;
	for (int st = 0; st < p->P; st++)
		if ((int64_t)(c + 1) * T > p->st[st].end - p->st[st].warm)
			return false;
	return true;
}

int64_t pp_program_skippable(const pp_program *p, int q)
{
	int T, S;
	if (q < 1 || !mark_back(p, q) || !period_of(p, &T, &S))
		return 0;
	T *= q;
	S *= q;
	int64_t k = INT64_MAX;
	for (int st = 0; st < p->P && k > 0; st++) {
		const pstage *X = &p->st[st];
		/* in the steady part unit i + T is unit i with the micro-batch S
		 * on (1F1B: F(warm + j), B(j); interleaved: the chunk and the
		 * micro-batch's place in its group of P repeat every P x v
		 * forwards and backwards); stop short of the cool-down and of any
		 * chunk's last backward (its gradient reduction) */
		int end;
		pp_pipe_phases(&p->c->pipe, st, &end);
		for (int ch = 0; ch < p->V; ch++)
			if (X->last_b_of_chunk[ch] >= X->next && X->last_b_of_chunk[ch] < end)
				end = X->last_b_of_chunk[ch];
		int64_t n = end > X->next ? (end - X->next) / T : 0;
		if (n < k)
			k = n;
	}
	/* the inputs in flight move on k x S micro-batches: they stay in the step */
	for (int dir = 0; dir < 2 && k > 0; dir++)
		for (int vs = 0; vs < p->NV; vs++) {
			int cons = (dir ? p->cons_b : p->cons_f)[vs];
			const int64_t *a;
			int w = window(p, dir ? p->arr_b : p->arr_f, vs, cons, &a);
			if (w > 0 && (int64_t)cons + w - 1 + k * S >= p->M)
				k = (p->M - cons - w) / S;
		}
	return k > 0 ? k : 0;
}

void pp_program_skip(pp_program *p, int q, int64_t k, int64_t dt, bool busy)
{
	int T, S;
	const mark *m = mark_back(p, q);
	if (q < 1 || k <= 0 || !m || !period_of(p, &T, &S))
		return;
	T *= q;
	S *= q;
	const pp_stepcost *c = p->c;
	int64_t shift = k * dt;
	pp_unit *per = busy ? pp_xmalloc(sizeof(pp_unit) * (size_t)T) : NULL;
	for (int st = 0; st < p->P; st++) {
		pstage *X = &p->st[st];
		/* the busy time of the units passed over, added unit by unit as
		 * issuing them would: k times the period's units */
		for (int j = 0; busy && j < T; j++)
			per[j] = pp_pipe_unit_at(&c->pipe, X->warm, X->end, X->next + j);
		for (int64_t r = 0; busy && r < k; r++)
			for (int j = 0; j < T; j++)
				pp_prog_unit_busy(X, c, per[j].chunk * p->P + st, per[j].fwd);
		X->next += (int)(k * T);
		X->cur = pp_pipe_cursor_at(&X->shape, X->next);
		if (X->next < X->n)
			X->nextu = pp_pipe_cursor_unit(&X->shape, &X->cur);
		int64_t *h[4] = {&X->prev0, &X->prev1, &X->pend_rs, &X->last};
		for (int i = 0; i < 4; i++)
			if (*h[i] >= 0)
				*h[i] += shift;
	}
	for (int dir = 0; dir < 2; dir++)
		for (int vs = 0; vs < p->NV; vs++) {
			int *cons = &(dir ? p->cons_b : p->cons_f)[vs];
			int64_t *arr = dir ? p->arr_b : p->arr_f;
			const int64_t *a;
			int w = window(p, arr, vs, *cons, &a);
			size_t from = (size_t)vs * p->M + (size_t)*cons, to = from + (size_t)(k * S);
			for (int j = w - 1; j >= 0; j--)  /* top down: the ranges may overlap */
				arr[to + (size_t)j] = arr[from + (size_t)j] + shift;
			*cons += (int)(k * S);
		}
	p->coalesced += k * (p->coalesced - m->coalesced);
	p->marks->n = 0;  /* the marks are of units passed over */
	free(per);
}
