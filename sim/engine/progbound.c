/* progbound.c - see program.h: lower bounds on the step's end from the
 * program's structure (pp_program_round_trips_ns, pp_program_end_bound_ns). */
#include "engine/programint.h"
#include "core/util.h"

#include <limits.h>
#include <stdlib.h>

static int64_t nonneg(int64_t t)
{
	return t > 0 ? t : 0;
}

int64_t pp_program_round_trips_ns(const pp_stepcost *c, int64_t *e_last)
{
	int P = c->P, M = c->M;
	if (c->V != 1 || P < 2 || M < P || c->pipe.schedule == PP_SCHED_GPIPE ||
	    pp_pipe_listed(&c->pipe))
		return -1;
	/* r[e]: from the end of F(k) on stage 0 to the end of B(k - warm(e))
	 * there, through stages 0..e: the forward's sends and units up to e,
	 * e's backward right after it (its steady part), the backward's
	 * sends and units down to 0 */
	int64_t *r = pp_xmalloc(sizeof(int64_t) * ((size_t)P + (size_t)M));
	int64_t *y = r + P;  /* y[j]: the end of B(j) on stage 0 at the earliest */
	int64_t fw = 0, bw = 0;
	int64_t f0 = pp_stepcost_unit_min_ns(c, 0, true), b0 = pp_stepcost_unit_min_ns(c, 0, false);
	for (int e = 0; e < P; e++) {
		if (e > 0) {
			int64_t cs = nonneg(c->p2p_ns[e - 1]);
			fw += cs + pp_stepcost_unit_min_ns(c, e, true);
			bw += cs + pp_stepcost_unit_min_ns(c, e - 1, false);
		}
		r[e] = fw + pp_stepcost_unit_min_ns(c, e, false) + bw;
	}
	/* stage 0 runs F(0..P-2), then F(P-1+j), B(j) for j = 0..M-P, then
	 * the cool-down's backwards: F(k) ends no earlier than k + 1
	 * forwards (k < P), or than B(k - P) and a forward */
#define END_F(k) ((k) < P ? ((int64_t)(k) + 1) * f0 : y[(k) - P] + f0)
	for (int j = 0; j < M; j++) {
		int64_t t = j > 0 ? y[j - 1] + b0 : 0;
		/* F(k) on stage e is followed by B(j) with k = j + warm(e) <= M - 1 */
		for (int e = j + P - M > 0 ? j + P - M : 0; e < P; e++) {
			int k = j + P - 1 - e;
			int64_t v = END_F(k) + r[e];
			if (v > t)
				t = v;
		}
		y[j] = t;
	}
	/* the last forward's round trip, its backward through every stage:
	 * stage st's last unit is B(M - 1) */
	int64_t z = END_F(M - 1);
#undef END_F
	int64_t back = r[P - 1] - bw; /* up to B(M - 1)'s end on the last stage */
	for (int st = P - 1; st >= 0; st--) {
		e_last[st] = z + back;
		if (st > 0)
			back += nonneg(c->p2p_ns[st - 1]) + pp_stepcost_unit_min_ns(c, st - 1, false);
	}
	if (y[M - 1] > e_last[0])
		e_last[0] = y[M - 1];
	free(r);
	return e_last[0];
}

/* The least time stage st's units not yet issued put on its compute
 * stream, which runs its tasks in issue order: it is busy at least that
 * long after its last task so far. */
static int64_t left_ns(const pp_program *p, int st)
{
	const pstage *S = &p->st[st];
	if (S->left_min)
		return S->left_min[S->next];
	const cursor_shape *h = &S->shape;
	int64_t t = 0;
	for (int j = 0; j < h->v; j++) {
		/* forwards of chunk j: digit j; backwards: digit v - 1 - j */
		int64_t f = pp_pipe_chunk_units(h, &S->fin, 1, j) - pp_pipe_chunk_units(h, &S->cur, 1, j);
		int64_t b = pp_pipe_chunk_units(h, &S->fin, 0, h->v - 1 - j) -
			    pp_pipe_chunk_units(h, &S->cur, 0, h->v - 1 - j);
		t += f * S->unit_ns[p->V + j] + b * S->unit_ns[j];
	}
	return t;
}

/* Units of a one-chunk schedule (1F1B, GPipe) after a stage's last
 * forward: the cool-down's backwards, and the steady part's last backward
 * where there is one (pp_pipe_phases; GPipe: every backward). */
static int64_t after_last_forward(const pstage *S)
{
	if (S->shape.gpipe)
		return S->n - S->shape.m;
	return S->end > S->warm ? S->n - S->end + 1 : S->n - S->warm;
}

int64_t pp_program_end_bound_ns(pp_program *p, const int64_t *res_free)
{
	const pp_stepcost *c = p->c;
	/* links (one chunk, overlapped sends): each carries its stage's
	 * forwards (or backwards) in order, one send a unit, and the last
	 * arrives for the receiver's last forward (or last unit) */
	bool links = p->V == 1 && p->P > 1 && !p->blocking;
	/* a listed schedule: its streams alone (the chains below read
	 * 1F1B's and the interleaved schedule's last units) */
	bool listed = pp_pipe_listed(&c->pipe);
	links &= !listed;
	int64_t lb = 0, e_next = -1;
	for (int st = p->P - 1; st >= 0; st--) {
		pstage *S = &p->st[st];
		bool left = S->next < S->n;
		/* the stream runs the units to come after what it has: the last
		 * ends no earlier than e */
		int64_t e = res_free[S->comp] + left_ns(p, st);
		/* the last unit, a backward of chunk 0, takes its input from the
		 * next stage's same backward when that is the next stage's last
		 * unit (still to come): its send, then this unit's tasks */
		const pstage *N = st + 1 < p->P ? &p->st[st + 1] : NULL;
		if (!listed && left && e_next >= 0 && !S->last_unit.fwd && S->last_unit.chunk == 0 &&
		    !N->last_unit.fwd && N->last_unit.chunk == 0 && N->last_unit.mb == S->last_unit.mb) {
			int64_t via = e_next + nonneg(c->p2p_ns[st]) + S->unit_ns[0];
			if (via > e)
				e = via;
		}
		if (links && N) {
			/* the next stage's backwards still to send, on link_b[st] */
			int64_t n = pp_pipe_chunk_units(&N->shape, &N->fin, 0, 0) -
				    pp_pipe_chunk_units(&N->shape, &N->cur, 0, 0);
			int64_t via = res_free[p->link_b[st]] + n * nonneg(c->p2p_ns[st]) + S->unit_ns[0];
			if (via > e)
				e = via;
		}
		if (links && st > 0) {
			/* the previous stage's forwards still to send, on
			 * link_f[st - 1]; the last feeds this stage's last forward,
			 * which the backwards after it follow */
			const pstage *B = &p->st[st - 1];
			int64_t n = pp_pipe_chunk_units(&B->shape, &B->fin, 1, 0) -
				    pp_pipe_chunk_units(&B->shape, &B->cur, 1, 0);
			int64_t via = res_free[p->link_f[st - 1]] + n * nonneg(c->p2p_ns[st - 1]) +
				      S->unit_ns[1] + after_last_forward(S) * S->unit_ns[0];
			if (via > e)
				e = via;
		}
		if (e > lb)
			lb = e;
		e_next = left ? e : -1;
	}
	return lb;
}
