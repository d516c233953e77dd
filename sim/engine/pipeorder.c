/* pipeorder.c - see pipeorder.h; its cursor for the program family is in
 * programint.h. */
#include "engine/pipeorder.h"
#include "engine/programint.h"

#include "core/util.h"

#include <limits.h>
#include <stdlib.h>


/* A listed order costs O(units) to build, and a search asks for the same
 * shape's unit count and peak once per candidate and stage: the answers
 * are kept in a small direct-mapped table keyed on everything the order
 * reads (the shape, and the stage; -1 for the count over all stages). The
 * process is single-threaded (MPI ranks are processes). */
enum { SHAPE_MEMO = 8192 };
static struct shape_memo {
	pp_pipe pl;
	int st;
	int v; /* 0: empty (a count or a peak is at least 1) */
} shape_memo[SHAPE_MEMO];

static struct shape_memo *memo_slot(const pp_pipe *pl, int st)
{
	uint64_t h = (uint64_t)(unsigned)pl->pp * 0x9E3779B97F4A7C15u;
	h ^= (uint64_t)(unsigned)pl->vpp * 0xC2B2AE3D27D4EB4Fu + (uint64_t)pl->schedule;
	h = (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9u;
	h ^= (uint64_t)(unsigned)pl->m * 0x94D049BB133111EBu + (uint64_t)(unsigned)(st + 1);
	h ^= h >> 31;
	return &shape_memo[h % SHAPE_MEMO];
}

static bool memo_get(const pp_pipe *pl, int st, int *v)
{
	const struct shape_memo *e = memo_slot(pl, st);
	if (e->v > 0 && e->st == st && e->pl.pp == pl->pp && e->pl.vpp == pl->vpp &&
	    e->pl.schedule == pl->schedule && e->pl.m == pl->m) {
		*v = e->v;
		return true;
	}
	return false;
}

static void memo_put(const pp_pipe *pl, int st, int v)
{
	*memo_slot(pl, st) = (struct shape_memo){*pl, st, v};
}

int pp_schedule_count(const pp_pipe *pl)
{
	if (pp_pipe_listed(pl)) {
		int most = 0;
		if (memo_get(pl, -1, &most))
			return most;
		for (int st = 0; st < pl->pp; st++) {
			int n = pp_pipe_list(pl, st, NULL);
			most = n > most ? n : most;
		}
		memo_put(pl, -1, most);
		return most;
	}
	return 2 * pl->m * pl->vpp;
}

/* The phases of a stage's 1F1B or interleaved schedule: units [0, warm)
 * are the warm-up forwards, [warm, *end) alternate a forward and a
 * backward (the steady part), [*end, 2 x forwards) are the cool-down
 * backwards. Returns warm. */
int pp_pipe_phases(const pp_pipe *p, int stage, int *end)
{
	int m = p->m;
	if (p->schedule == PP_SCHED_1F1B || p->vpp == 1) {
		int warm = p->pp - stage - 1;
		if (warm > m)
			warm = m;
		*end = warm + 2 * (m - warm);
		return warm;
	}
	int P = p->pp, v = p->vpp, total = m * v;
	int warm = (P - stage - 1) * 2 + (v - 1) * P;
	if (m == P || warm > total)
		warm = total;
	*end = warm + 2 * (total - warm);
	return warm;
}

/* Unit i of a stage whose phases are warm and end (pp_pipe_phases). */
pp_unit pp_pipe_unit_at(const pp_pipe *p, int warm, int end, int i)
{
	int m = p->m;
	if (p->schedule == PP_SCHED_GPIPE) /* every forward, then every backward in reverse */
		return i < m ? (pp_unit){true, 0, i, PP_ACT_WHOLE, false}
			     : (pp_unit){false, 0, 2 * m - 1 - i, PP_ACT_WHOLE, false};
	if (p->schedule == PP_SCHED_1F1B || p->vpp == 1) {
		/* warm-up forwards, one forward one backward, cool-down backwards */
		if (i < warm)
			return (pp_unit){true, 0, i, PP_ACT_WHOLE, false};
		if (i < end) {
			int j = i - warm;
			return j % 2 == 0 ? (pp_unit){true, 0, warm + j / 2, PP_ACT_WHOLE, false}
					  : (pp_unit){false, 0, j / 2, PP_ACT_WHOLE, false};
		}
		return (pp_unit){false, 0, i - warm - (m - warm), PP_ACT_WHOLE, false};
	}
	/* Megatron-LM interleaved 1F1B (forward_backward_pipelining_with_interleaving) */
	int P = p->pp, v = p->vpp, total = m * v;
	int rest = total - warm;
	/* forward (or backward) k: chunk (k / P) mod v (backward: v - 1 minus
	 * it), micro-batch (k / (P v)) P + k mod P, with k / (P v) = (k / P) / v */
	bool fwd;
	int k;
	if (i < warm) {
		fwd = true;
		k = i;
	} else if (i < end) {
		int j = i - warm;
		fwd = j % 2 == 0;
		k = fwd ? warm + j / 2 : j / 2;
	} else {
		fwd = false;
		k = i - warm - rest;
	}
	int q = k / P, r = k % P, c = q % v;
	return (pp_unit){fwd, fwd ? c : v - 1 - c, (q / v) * P + r, PP_ACT_WHOLE, false};
}

pp_unit pp_schedule_unit(const pp_pipe *pl, int stage, int i)
{
	if (pp_pipe_listed(pl)) {
		pp_unit *l = pp_xmalloc(sizeof(pp_unit) * (size_t)pp_pipe_list_cap(pl));
		int n = pp_pipe_list(pl, stage, l);
		pp_unit u = i < n ? l[i] : (pp_unit){false, 0, 0, 0, false};
		free(l);
		return u;
	}
	int end, warm = pp_pipe_phases(pl, stage, &end);
	return pp_pipe_unit_at(pl, warm, end, i);
}

cursor_shape pp_pipe_cursor_shape_of(const pp_pipe *p, int stage)
{
	cursor_shape h;
	h.warm = pp_pipe_phases(p, stage, &h.end);
	h.m = p->m;
	h.gpipe = p->schedule == PP_SCHED_GPIPE;
	bool inter = !h.gpipe && p->schedule != PP_SCHED_1F1B && p->vpp > 1;
	h.P = inter ? p->pp : INT_MAX;
	h.v = inter ? p->vpp : 1;
	return h;
}

static void cursor_digits(const cursor_shape *h, cursor *u, int d, int k)
{
	int q = k / h->P;
	u->r[d] = k % h->P;
	u->c[d] = q % h->v;
	u->g[d] = q / h->v;
}

/* The cursor at unit i: the forwards and backwards before it by phase. */
cursor pp_pipe_cursor_at(const cursor_shape *h, int i)
{
	int kf, kb;
	if (h->gpipe) {
		kf = i < h->m ? i : h->m;
		kb = i - kf;
	} else if (i < h->warm) {
		kf = i;
		kb = 0;
	} else if (i < h->end) {
		kf = h->warm + (i - h->warm + 1) / 2;
		kb = (i - h->warm) / 2;
	} else {
		kf = h->warm + (h->end - h->warm) / 2;
		kb = i - kf;
	}
	cursor u;
	u.i = i;
	cursor_digits(h, &u, 1, kf);
	cursor_digits(h, &u, 0, kb);
	return u;
}

int pp_schedule_order(const pp_pipe *pl, int stage, pp_unit *out)
{
	if (pp_pipe_listed(pl))
		return pp_pipe_list(pl, stage, out);
	int n = pp_schedule_count(pl);
	cursor_shape h = pp_pipe_cursor_shape_of(pl, stage);
	cursor c = pp_pipe_cursor_at(&h, 0);
	for (int i = 0; i < n; i++) {
		out[i] = pp_pipe_cursor_unit(&h, &c);
		pp_pipe_cursor_step(&h, &c, out[i].fwd);
	}
	return n;
}


int pp_pipe_peak_inflight(const pp_pipe *pl, int st)
{
	int peak = 0;
	if (memo_get(pl, st, &peak))
		return peak;
	int n = pp_pipe_listed(pl) ? pp_pipe_list(pl, st, NULL) : pp_schedule_count(pl);
	pp_unit *u = pp_xmalloc(sizeof(pp_unit) * (size_t)(n > 0 ? n : 1));
	if (pp_pipe_listed(pl))
		pp_pipe_list(pl, st, u);
	else
		pp_schedule_order(pl, st, u);
	int held = 0;
	for (int i = 0; i < n; i++) {
		held += u[i].fwd ? 1 : u[i].act != PP_ACT_W ? -1 : 0;
		if (held > peak)
			peak = held;
	}
	free(u);
	memo_put(pl, st, peak);
	return peak;
}
