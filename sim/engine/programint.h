/*
 * programint.h - the program family's private header (as SQLite's
 * vdbeInt.h is the VDBE's): included by its .c files only, never from
 * outside sim/engine/'s program family. program.h is the contract.
 *
 *   pipeorder.c   the order of a stage's units (pipeorder.h) and its cursor
 *   program.c     issuing: the tasks of each unit
 *   progoptim.c   the optimizer's side: the parameter gathers the first
 *                 forwards wait for, and what follows a stage's last unit
 *   progbusy.c    the busy time a unit adds to its stage's account
 *   progbound.c   lower bounds on the step's end from the program's structure
 *   progsteady.c  the steady state: marks, the period check, the skip
 *
 * The family reads the step through its costs (pp_stepcost: durations,
 * payloads, the pipeline's shape, the framework's overlaps), never the
 * scenario itself.
 *
 * Units: durations and handles in int64 nanoseconds (a handle is a task id
 * for the event graph, a task's end for the fast path; -1: no task),
 * parameter counts in parameters.
 */
#ifndef PP_PROGRAMINT_H
#define PP_PROGRAMINT_H

#include "engine/program.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* ---- pipeorder.c ---- */

/* The phases of a stage's 1F1B or interleaved schedule: units [0, warm)
 * are the warm-up forwards, [warm, *end) alternate a forward and a
 * backward (the steady part), [*end, 2 x forwards) are the cool-down
 * backwards. Returns warm. */
int pp_pipe_phases(const pp_pipe *pl, int stage, int *end);
/* Unit i of a stage whose phases are warm and end (pp_pipe_phases). */
pp_unit pp_pipe_unit_at(const pp_pipe *pl, int warm, int end, int i);

/* A stage's schedule read in order without pp_pipe_unit_at's divisions: unit i is
 * the forward or the backward that pp_pipe_unit_at's phases say, and a forward
 * (backward) is the next of its direction, k = the forwards (backwards)
 * before it; k = (g v + c) P + r is kept digit by digit (r, c, g), which
 * gives pp_pipe_unit_at's chunk c (backward: v - 1 - c) and micro-batch g P + r.
 * 1F1B (v = 1, P = INT_MAX: the micro-batch is k) and GPipe (forwards,
 * then the backwards of micro-batches m - 1 down to 0) are the same digits. */
typedef struct cursor {
	int i;
	int r[2], c[2], g[2];      /* [0] backwards, [1] forwards */
} cursor;

typedef struct cursor_shape {
	int warm, end, m, P, v;
	bool gpipe;
} cursor_shape;

/* A stage's cursor shape (its phases, micro-batches, and the digits' bases). */
cursor_shape pp_pipe_cursor_shape_of(const pp_pipe *pl, int stage);
/* The cursor at unit i: the forwards and backwards before it by phase. */
cursor pp_pipe_cursor_at(const cursor_shape *h, int i);

/* The unit at cursor u (inline: the walk reads one per unit). */
static inline pp_unit pp_pipe_cursor_unit(const cursor_shape *h, const cursor *u)
{
	int i = u->i;
	bool fwd = h->gpipe ? i < h->m : i < h->warm || (i < h->end && ((i - h->warm) & 1) == 0);
	int d = fwd;
	int mb = u->g[d] * (h->P == INT_MAX ? 0 : h->P) + u->r[d];
	if (h->gpipe && !fwd)
		mb = h->m - 1 - mb;
	return (pp_unit){fwd, fwd ? u->c[1] : h->v - 1 - u->c[0], mb, PP_ACT_WHOLE, false};
}

/* Past unit u (the cursor's), to the next. */
static inline void pp_pipe_cursor_step(const cursor_shape *h, cursor *c, bool fwd)
{
	int d = fwd;
	c->i++;
	if (++c->r[d] == h->P) {
		c->r[d] = 0;
		if (++c->c[d] == h->v) {
			c->c[d] = 0;
			c->g[d]++;
		}
	}
}

/* The units of chunk j among the first k of a direction, k's digits
 * (cursor): whole groups of v x P, then the chunks before its own. */
static inline int64_t pp_pipe_chunk_units(const cursor_shape *h, const cursor *u, int d, int j)
{
	if (h->P == INT_MAX)
		return j == 0 ? u->r[d] : 0;
	int64_t n = (int64_t)u->g[d] * h->P;
	return n + (j < u->c[d] ? h->P : j == u->c[d] ? u->r[d] : 0);
}

/* ---- the program's state (program.c) ---- */

/* One stage's issue state. */
typedef struct pstage {
	int n, next;               /* units of the stage (pp_schedule_unit), the next to issue */
	int warm, end;             /* its phases (pp_pipe_phases) */
	cursor_shape shape;        /* the same, for its cursor */
	cursor cur;                /* at unit `next` */
	cursor fin;                /* at unit n: every forward and backward */
	int64_t *unit_ns;          /* [2 V]: a unit's compute-stream time at least, by chunk,
				    * backward then forward (progbound.c) */
	pp_unit *acts;             /* a listed schedule's actions (pp_pipe_list); NULL: the cursor */
	int64_t *left_min;         /* listed: [n + 1], the least compute-stream time of
				    * units i .. n - 1 (progbound.c) */
	pp_unit last_unit;         /* unit n - 1 */
	pp_unit nextu;             /* unit `next` */
	int comp, dp;              /* its compute and data-parallel streams */
	int *last_b_of_chunk;      /* [V]: the unit whose backward reduces that chunk's gradients */
	bool *first_use;           /* [V]: no forward of the chunk issued yet */
	int64_t *gather_of;        /* [V * (maxl + 1)]: distributed optimizer's gather of a layer */
	int64_t *gather_e_of;      /* ... of its routed experts (over expert DP); NULL: dense */
	int maxl;
	/* ZeRO-3: the two previous compute tasks (prefetch depth 1), the
	 * backward task whose reduce-scatter is still to issue, and its part */
	int64_t prev0, prev1, pend_rs;
	int pend_part, pend_kind;
	int64_t last;              /* the last unit's last compute-stream task (or its send) */
	int64_t last_dp;           /* the DP task the optimizer waits for */
	int64_t opt;
	double compute_s, tp_s, ep_s, opt_s;
	double cp_s; /* of tp_s, context-parallel */
} pstage;

struct pp_program {
	const pp_stepcost *c;
	pp_sink k;
	int P, V, M, NV;
	bool blocking;             /* sends on the compute stream (no overlap_p2p_comm) */
	pstage *st;
	int64_t *arr_f, *arr_b;    /* [NV * M]: the task bringing a unit its input; -1 not yet */
	int64_t *wait_f, *wait_b;  /* [NV * M]: a consumer issued before that task */
	/* [NV * M] (listed schedules with a backend that takes dependencies
	 * later): an overlapped pair's forward issued before the gradient its
	 * backward reads, which it waits for too */
	int64_t *wait_pair;
	int *link_f, *link_b;      /* [P]: boundary st -> st+1 and back */
	int embed_res;
	int64_t coalesced;         /* layer tasks issued as part of another */
	int *cons_f, *cons_b;      /* [NV]: forward / backward units of each virtual stage issued */
	int first_left;            /* (stage, chunk)s whose first forward is still to come */
	struct marks *marks;       /* the steady-state check's records (pp_program_mark) */
};

/* The busy time a unit of virtual stage vs adds to stage S's accounting,
 * in the order its tasks run (progbusy.c; program.c books each unit it
 * issues, progsteady.c the units it moves over). */
void pp_prog_unit_busy(pstage *S, const pp_stepcost *c, int vs, bool fwd);

/* ---- the tasks (program.c issues the units', progoptim.c the rest) ---- */

static inline pp_des_tag pp_prog_tag(int cat, int chunk, int layer, int mb)
{
	pp_des_tag t;
	memset(&t, 0, sizeof(t));
	t.cat = (uint8_t)cat;
	t.chunk = (uint8_t)chunk;
	t.layer = (int16_t)layer;
	t.mb = mb;
	t.op = PP_OP_NONE;
	t.group = PP_GRP_NONE;
	return t;
}

/* A communication task's tag: its collective, group and payload too. */
static inline pp_des_tag pp_prog_comm_tag(int cat, int chunk, int layer, int mb,
					  const pp_comm_cost *cc, int group)
{
	pp_des_tag t = pp_prog_tag(cat, chunk, layer, mb);
	t.op = (uint8_t)cc->op;
	t.group = (uint8_t)group;
	t.elem_bytes = cc->elem_bytes;
	t.bytes = cc->bytes;
	return t;
}

/* A task of dur ns on resource res after the tasks d0, d1 and d2 (-1:
 * none), to the backend; its handle. */
static inline int64_t pp_prog_issue(pp_program *p, int res, int64_t dur, pp_des_tag t, int64_t d0,
				    int64_t d1, int64_t d2)
{
	int64_t deps[3] = {d0, d1, d2};
	return p->k.task(p->k.ctx, res, dur, &t, deps, 3);
}

/* A data-parallel collective on stage S's DP stream after dep, and the
 * slowdown it causes on the compute stream. */
static inline int64_t pp_prog_dp_task(pp_program *p, pstage *S, const pp_comm_cost *cc,
				      pp_des_tag t, int64_t dep)
{
	int64_t h = pp_prog_issue(p, S->dp, cc->ns, t, dep, -1, -1);
	if (cc->slow_ns >= 0) {
		pp_des_tag sl = t;
		sl.group = PP_GRP_SLOWDOWN;
		sl.op = PP_OP_NONE;
		sl.bytes = 0;
		pp_prog_issue(p, S->comp, cc->slow_ns, sl, -1, -1, -1);
	}
	return h;
}

/* A gradient reduce of params dense parameters over DP after `after`,
 * the task the optimizer waits for. */
static inline void pp_prog_grad_reduce(pp_program *p, pstage *S, double params, int64_t after)
{
	pp_comm_cost cc = pp_stepcost_reduce(p->c, params);
	S->last_dp = pp_prog_dp_task(p, S, &cc,
				     pp_prog_comm_tag(PP_CAT_GRAD_REDUCE, 0, -1, -1, &cc, PP_GRP_DP),
				     after);
}

/* The routed experts' gradients, over the expert data-parallel group. */
static inline void pp_prog_grad_reduce_expert(pp_program *p, pstage *S, double params,
					      int64_t after)
{
	pp_comm_cost cc = pp_stepcost_reduce_expert(p->c, params);
	S->last_dp = pp_prog_dp_task(p, S, &cc,
				     pp_prog_comm_tag(PP_CAT_GRAD_REDUCE, 0, -1, -1, &cc, PP_GRP_EDP),
				     after);
}

/* ---- progoptim.c ---- */

/* The distributed optimizer's overlapped parameter gathers of stage st at
 * the start of the step, each layer's first forward waiting for its
 * buckets (pstage gather_of, gather_e_of); program.c calls it before the
 * stage's first unit. */
void pp_prog_stage_gathers(pp_program *p, int st);

/* ---- progsteady.c ---- */

/* Free the steady-state check's records (NULL: nothing). */
void pp_prog_marks_free(struct marks *r);

#endif
