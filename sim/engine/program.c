/* program.c - see program.h. */
#include "engine/program.h"
#include "engine/stages.h"
#include "core/util.h"

#include <assert.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_cat_names[PP_CAT_COUNT] = {
	"forward", "backward", "send activations", "send gradients", "gradient reduce",
	"parameter all-gather", "embedding all-reduce", "optimizer", "data loading"};

int pp_schedule_count(const pp_scenario *s)
{
	return 2 * (int)s->training.num_microbatches * s->parallel.vpp;
}

/* The phases of a stage's 1F1B or interleaved schedule: units [0, warm)
 * are the warm-up forwards, [warm, *end) alternate a forward and a
 * backward (the steady part), [*end, 2 x forwards) are the cool-down
 * backwards. Returns warm. */
static int schedule_phases(const pp_scenario *s, int stage, int *end)
{
	const pp_parallel *p = &s->parallel;
	int m = (int)s->training.num_microbatches;
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

/* Unit i of a stage whose phases are warm and end (schedule_phases). */
static pp_unit unit_at(const pp_scenario *s, int warm, int end, int i)
{
	const pp_parallel *p = &s->parallel;
	int m = (int)s->training.num_microbatches;
	if (p->schedule == PP_SCHED_GPIPE) /* every forward, then every backward in reverse */
		return i < m ? (pp_unit){true, 0, i} : (pp_unit){false, 0, 2 * m - 1 - i};
	if (p->schedule == PP_SCHED_1F1B || p->vpp == 1) {
		/* warm-up forwards, one forward one backward, cool-down backwards */
		if (i < warm)
			return (pp_unit){true, 0, i};
		if (i < end) {
			int j = i - warm;
			return j % 2 == 0 ? (pp_unit){true, 0, warm + j / 2} : (pp_unit){false, 0, j / 2};
		}
		return (pp_unit){false, 0, i - warm - (m - warm)};
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
	return (pp_unit){fwd, fwd ? c : v - 1 - c, (q / v) * P + r};
}

pp_unit pp_schedule_unit(const pp_scenario *s, int stage, int i)
{
	int end, warm = schedule_phases(s, stage, &end);
	return unit_at(s, warm, end, i);
}

/* A stage's schedule read in order without unit_at's divisions: unit i is
 * the forward or the backward that unit_at's phases say, and a forward
 * (backward) is the next of its direction, k = the forwards (backwards)
 * before it; k = (g v + c) P + r is kept digit by digit (r, c, g), which
 * gives unit_at's chunk c (backward: v - 1 - c) and micro-batch g P + r.
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

static cursor_shape cursor_shape_of(const pp_scenario *s, int stage)
{
	const pp_parallel *p = &s->parallel;
	cursor_shape h;
	h.warm = schedule_phases(s, stage, &h.end);
	h.m = (int)s->training.num_microbatches;
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
static cursor cursor_at(const cursor_shape *h, int i)
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

static pp_unit cursor_unit(const cursor_shape *h, const cursor *u)
{
	int i = u->i;
	bool fwd = h->gpipe ? i < h->m : i < h->warm || (i < h->end && ((i - h->warm) & 1) == 0);
	int d = fwd;
	int mb = u->g[d] * (h->P == INT_MAX ? 0 : h->P) + u->r[d];
	if (h->gpipe && !fwd)
		mb = h->m - 1 - mb;
	return (pp_unit){fwd, fwd ? u->c[1] : h->v - 1 - u->c[0], mb};
}

/* Past unit u (the cursor's), to the next. */
static void cursor_step(const cursor_shape *h, cursor *c, bool fwd)
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

int pp_schedule_order(const pp_scenario *s, int stage, pp_unit *out)
{
	int n = pp_schedule_count(s);
	cursor_shape h = cursor_shape_of(s, stage);
	cursor c = cursor_at(&h, 0);
	for (int i = 0; i < n; i++) {
		out[i] = cursor_unit(&h, &c);
		cursor_step(&h, &c, out[i].fwd);
	}
	return n;
}

/* One stage's issue state. */
typedef struct stage {
	int n, next;               /* units of the stage (pp_schedule_unit), the next to issue */
	int warm, end;             /* its phases (schedule_phases) */
	cursor_shape shape;        /* the same, for its cursor */
	cursor cur;                /* at unit `next` */
	cursor fin;                /* at unit n: every forward and backward */
	int64_t *unit_ns;          /* [2 V]: a unit's compute-stream time at least, by chunk,
				    * backward then forward (left_ns) */
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
} stage;

struct pp_program {
	const pp_stepcost *c;
	pp_sink k;
	int P, V, M, NV;
	bool blocking;             /* sends on the compute stream (no overlap_p2p_comm) */
	stage *st;
	int64_t *arr_f, *arr_b;    /* [NV * M]: the task bringing a unit its input; -1 not yet */
	int64_t *wait_f, *wait_b;  /* [NV * M]: a consumer issued before that task */
	int *link_f, *link_b;      /* [P]: boundary st -> st+1 and back */
	int embed_res;
	int64_t coalesced;         /* layer tasks issued as part of another */
	int *cons_f, *cons_b;      /* [NV]: forward / backward units of each virtual stage issued */
	int first_left;            /* (stage, chunk)s whose first forward is still to come */
	struct marks *marks;       /* the steady-state check's records (pp_program_mark) */
};

static pp_des_tag tag(int cat, int chunk, int layer, int mb)
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

static pp_des_tag comm_tag(int cat, int chunk, int layer, int mb, const pp_comm_cost *cc, int group)
{
	pp_des_tag t = tag(cat, chunk, layer, mb);
	t.op = (uint8_t)cc->op;
	t.group = (uint8_t)group;
	t.elem_bytes = cc->elem_bytes;
	t.bytes = cc->bytes;
	return t;
}

static int64_t issue(pp_program *p, int res, int64_t dur, pp_des_tag t, int64_t d0, int64_t d1,
		     int64_t d2)
{
	int64_t deps[3] = {d0, d1, d2};
	return p->k.task(p->k.ctx, res, dur, &t, deps, 3);
}

/* A data-parallel collective on stage S's DP stream after dep, and the
 * slowdown it causes on the compute stream. */
static int64_t dp_task(pp_program *p, stage *S, const pp_comm_cost *cc, pp_des_tag t, int64_t dep)
{
	int64_t h = issue(p, S->dp, cc->ns, t, dep, -1, -1);
	if (cc->slow_ns >= 0) {
		pp_des_tag sl = t;
		sl.group = PP_GRP_SLOWDOWN;
		sl.op = PP_OP_NONE;
		sl.bytes = 0;
		issue(p, S->comp, cc->slow_ns, sl, -1, -1, -1);
	}
	return h;
}

static double part_params(const pp_program *p, int part, int kind, bool trained)
{
	const pp_workload *w = p->c->w;
	if (trained)
		return part == PP_PART_LAYER ? w->lk[kind].trainable
		       : part == PP_PART_EMBED ? w->trainable_embed : w->trainable_head;
	return part == PP_PART_LAYER ? w->lk[kind].params
	       : part == PP_PART_EMBED ? w->params_embed : w->params_head;
}

/* One compute-stream task (of a layer of kind `kind`) after d0, d1 and d2
 * (d2 is free under ZeRO-3, which has none of the other gathers), with
 * ZeRO-3's traffic around it: the gather of its parameters (after the
 * task before the previous one: one task of prefetch; for a backward task
 * only when the stack reshards after the forward) and the reduce-scatter
 * of the previous backward task. */
static int64_t compute_task(pp_program *p, stage *S, int64_t dur, pp_des_tag t, int part, int kind,
			    bool bwd, int64_t d0, int64_t d1, int64_t d2)
{
	const pp_stepcost *c = p->c;
	bool z = c->zero3 && part_params(p, part, kind, false) > 0;
	int64_t gather = -1;
	t.lkind = (uint8_t)kind;
	if (z && (!bwd || c->z3_bwd_gather)) {
		const pp_comm_cost *ag = &c->z3_gather[part][kind];
		gather = dp_task(p, S, ag,
				 comm_tag(PP_CAT_PARAM_GATHER, t.chunk, t.layer, t.mb, ag, PP_GRP_DP),
				 S->prev0);
	}
	if (z) {
		if (S->pend_rs >= 0) {
			const pp_comm_cost *rs = &c->z3_scatter[S->pend_part][S->pend_kind];
			dp_task(p, S, rs, comm_tag(PP_CAT_GRAD_REDUCE, 0, -1, -1, rs, PP_GRP_DP), S->pend_rs);
			S->pend_rs = -1;
		}
	}
	int64_t h = issue(p, S->comp, dur, t, d0, d1, gather >= 0 ? gather : d2);
	if (c->zero3) {
		S->prev0 = S->prev1;
		S->prev1 = h;
		if (bwd && z && part_params(p, part, kind, true) > 0) {
			S->pend_rs = h;
			S->pend_part = part;
			S->pend_kind = kind;
		}
	}
	return h;
}

static void grad_reduce(pp_program *p, stage *S, double params, int64_t after)
{
	pp_comm_cost cc = pp_stepcost_reduce(p->c, params);
	S->last_dp = dp_task(p, S, &cc, comm_tag(PP_CAT_GRAD_REDUCE, 0, -1, -1, &cc, PP_GRP_DP), after);
}

/* The routed experts' gradients, over the expert data-parallel group. */
static void grad_reduce_expert(pp_program *p, stage *S, double params, int64_t after)
{
	pp_comm_cost cc = pp_stepcost_reduce_expert(p->c, params);
	S->last_dp = dp_task(p, S, &cc, comm_tag(PP_CAT_GRAD_REDUCE, 0, -1, -1, &cc, PP_GRP_EDP), after);
}

/* The busy time of a unit's layers: per kind, the count of them times one
 * layer (a dense model's unit: one term, L layers). */
static void busy_layers(stage *S, const pp_stepcost *c, int vs, bool fwd)
{
	for (int k = 0; k < PP_LAYER_KINDS; k++) {
		int n = c->kinds[vs][k];
		if (!n)
			continue;
		pp_busy_cost b = pp_stepcost_busy(c, PP_PART_LAYER, k, fwd);
		S->compute_s += n * b.compute_s;
		S->tp_s += n * b.tp_s;
		S->cp_s += n * b.cp_s;
		S->ep_s += n * b.ep_s;
	}
}

static void busy_add(stage *S, const pp_stepcost *c, pp_part part, bool fwd)
{
	pp_busy_cost b = pp_stepcost_busy(c, part, 0, fwd);
	S->compute_s += 1 * b.compute_s;
	S->tp_s += 1 * b.tp_s;
	S->cp_s += 1 * b.cp_s;
	S->ep_s += 1 * b.ep_s;
}

/* The busy time a unit of virtual stage vs adds, in the order its tasks
 * run: embedding, layers, head forward; head, layers, embedding backward. */
static void unit_busy(stage *S, const pp_stepcost *c, int vs, bool fwd)
{
	if (fwd && vs == 0)
		busy_add(S, c, PP_PART_EMBED, true);
	if (!fwd && vs == c->NV - 1)
		busy_add(S, c, PP_PART_HEAD, false);
	busy_layers(S, c, vs, fwd);
	if (fwd && vs == c->NV - 1)
		busy_add(S, c, PP_PART_HEAD, true);
	if (!fwd && vs == 0)
		busy_add(S, c, PP_PART_EMBED, false);
}

/* One bucket's gather (layers *first .. l of chunk k), which those layers'
 * first forward waits for. */
static void bucket_gather(pp_program *p, stage *S, const pp_comm_cost *cc, int group, int k, int l,
			  int64_t *of, int *first)
{
	int64_t h = dp_task(p, S, cc, comm_tag(PP_CAT_PARAM_GATHER, k, l, -1, cc, group), -1);
	for (int j = *first; j <= l; j++)
		of[k * (S->maxl + 1) + j] = h;
	*first = l + 1;
}

/* The distributed optimizer's bucketed parameter all-gather of stage st
 * (of what it updated: dense parameters over DP, routed experts over
 * expert DP), in issue order: each bucket to fn(ctx, its cost, its group
 * (PP_GRP_DP or PP_GRP_EDP), chunk k, its last layer l). */
typedef void (*gather_fn)(void *ctx, const pp_comm_cost *cc, int group, int k, int l);

static bool has_experts(const pp_workload *w)
{
	bool experts = false;
	for (int k = 0; k < PP_LAYER_KINDS; k++)
		experts |= w->lk[k].count > 0 && w->lk[k].trainable_expert > 0;
	return experts;
}

static void gather_buckets(const pp_stepcost *c, int st, gather_fn fn, void *ctx)
{
	const pp_workload *w = c->w;
	int P = c->P, V = c->V;
	bool experts = has_experts(w);
	for (int k = 0; k < V; k++) {
		int vs = k * P + st;
		int L = c->layers[vs];
		double acc = vs == 0 ? w->trainable_embed : 0, acc_e = 0;
		for (int l = 0; l < L; l++) {
			const pp_layer_cost *lc = &w->lk[pp_stepcost_kind(c, vs, l)];
			acc += lc->trainable - lc->trainable_expert;
			acc_e += lc->trainable_expert;
			bool last = l == L - 1;
			if (acc >= c->bucket_params || last) {
				double pr = acc + (last && vs == P * V - 1 ? w->trainable_head : 0);
				pp_comm_cost cc = pp_stepcost_gather(c, pr);
				fn(ctx, &cc, PP_GRP_DP, k, l);
				acc = 0;
			}
			if (experts && (acc_e >= c->bucket_params || (last && acc_e > 0))) {
				pp_comm_cost cc = pp_stepcost_gather_expert(c, acc_e);
				fn(ctx, &cc, PP_GRP_EDP, k, l);
				acc_e = 0;
			}
		}
	}
}

typedef struct gather_issue {
	pp_program *p;
	stage *S;
	int first, first_e;
	int k;
} gather_issue;

static void issue_gather(void *ctx, const pp_comm_cost *cc, int group, int k, int l)
{
	gather_issue *g = ctx;
	if (k != g->k) {
		g->k = k;
		g->first = g->first_e = 0;
	}
	if (group == PP_GRP_DP)
		bucket_gather(g->p, g->S, cc, group, k, l, g->S->gather_of, &g->first);
	else
		bucket_gather(g->p, g->S, cc, group, k, l, g->S->gather_e_of, &g->first_e);
}

/* The gathers at the start of the step, each layer's first forward
 * waiting for its buckets. */
static void stage_gathers(pp_program *p, int st)
{
	const pp_stepcost *c = p->c;
	stage *S = &p->st[st];
	int P = p->P, V = p->V;
	for (int k = 0; k < V; k++)
		if (c->layers[k * P + st] > S->maxl)
			S->maxl = c->layers[k * P + st];
	size_t n = (size_t)(V * (S->maxl + 1));
	S->gather_of = pp_xmalloc(sizeof(int64_t) * n);
	if (has_experts(c->w)) {
		S->gather_e_of = pp_xmalloc(sizeof(int64_t) * n);
		for (size_t i = 0; i < n; i++)
			S->gather_e_of[i] = -1;
	}
	gather_issue g = {p, S, 0, 0, 0};
	gather_buckets(c, st, issue_gather, &g);
}

static void add_gather_ns(void *ctx, const pp_comm_cost *cc, int group, int k, int l)
{
	(void)group;
	(void)k;
	(void)l;
	*(int64_t *)ctx += cc->ns;
}

int64_t pp_program_start_gathers_ns(const pp_stepcost *c, int st)
{
	if (!c->dist_opt_gather || !c->s->training.overlap_param_gather)
		return 0;
	int64_t t = 0;
	gather_buckets(c, st, add_gather_ns, &t);
	return t;
}

static int64_t nonneg(int64_t t)
{
	return t > 0 ? t : 0;
}

int64_t pp_program_round_trips_ns(const pp_stepcost *c, int64_t *e_last)
{
	int P = c->P, M = c->M;
	if (c->V != 1 || P < 2 || M < P || c->s->parallel.schedule == PP_SCHED_GPIPE)
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

pp_program *pp_program_new(const pp_stepcost *c, const pp_sink *sink)
{
	const pp_scenario *s = c->s;
	pp_program *p = pp_xcalloc(1, sizeof(*p));
	p->c = c;
	p->k = *sink;
	p->P = c->P;
	p->V = c->V;
	p->M = c->M;
	p->NV = c->NV;
	p->blocking = !s->training.overlap_p2p_comm && p->P > 1;
	/* the arrivals; the waiting consumers only for a backend that takes
	 * dependencies later (the closed form issues a unit once its input is in) */
	size_t nk = (size_t)p->NV * p->M, na = sink->dep ? 4 : 2;
	p->arr_f = pp_xmalloc(sizeof(int64_t) * nk * na);
	p->arr_b = p->arr_f + nk;
	p->wait_f = sink->dep ? p->arr_b + nk : NULL;
	p->wait_b = sink->dep ? p->wait_f + nk : NULL;
	for (size_t i = 0; i < na * nk; i++)
		p->arr_f[i] = -1;
	p->st = pp_xcalloc((size_t)p->P, sizeof(stage));
	bool named = !sink->nameless;
	for (int st = 0; st < p->P; st++) {
		char name[48] = "";
		stage *S = &p->st[st];
		if (named)
			snprintf(name, sizeof(name), "stage %d compute", st);
		S->comp = p->k.resource(p->k.ctx, name, st, true);
		if (named)
			snprintf(name, sizeof(name), "stage %d data-parallel comm", st);
		S->dp = p->k.resource(p->k.ctx, name, st, true);
	}
	p->link_f = pp_xmalloc(sizeof(int) * (size_t)p->P * 2);
	p->link_b = p->link_f + p->P;
	if (p->P > 1 && !p->blocking) {
		for (int st = 0; st < p->P; st++) {
			char name[48] = "";
			if (named)
				snprintf(name, sizeof(name), "link %d->%d", st, (st + 1) % p->P);
			p->link_f[st] = p->k.resource(p->k.ctx, name, st, false);
			if (named)
				snprintf(name, sizeof(name), "link %d->%d", (st + 1) % p->P, st);
			p->link_b[st] = p->k.resource(p->k.ctx, name, (st + 1) % p->P, false);
		}
	}
	p->embed_res = c->embed_ar.ns >= 0 ? p->k.resource(p->k.ctx, "embedding group", 0, false) : -1;
	p->cons_f = pp_xcalloc((size_t)p->NV * 2, sizeof(int));
	p->cons_b = p->cons_f + p->NV;
	for (int st = 0; st < p->P; st++) {
		stage *S = &p->st[st];
		S->n = pp_schedule_count(s);
		S->warm = schedule_phases(s, st, &S->end);
		S->shape = cursor_shape_of(s, st);
		S->cur = cursor_at(&S->shape, 0);
		S->fin = cursor_at(&S->shape, S->n);
		if (S->n > 0) {
			cursor l = cursor_at(&S->shape, S->n - 1);
			S->last_unit = cursor_unit(&S->shape, &l);
		}
		S->unit_ns = pp_xmalloc(sizeof(int64_t) * 2 * (size_t)p->V);
		for (int k = 0; k < p->V; k++)
			for (int d = 0; d < 2; d++)
				S->unit_ns[d * p->V + k] = pp_stepcost_unit_min_ns(c, k * p->P + st, d);
		S->last_b_of_chunk = pp_xmalloc(sizeof(int) * (size_t)p->V);
		S->first_use = pp_xmalloc(sizeof(bool) * (size_t)p->V);
		for (int k = 0; k < p->V; k++) {
			S->last_b_of_chunk[k] = -1;
			S->first_use[k] = true;
		}
		p->first_left += p->V;
		/* every chunk's last backward lies in the schedule's tail: scan
		 * back from the end until each chunk is found */
		int found = 0;
		for (int i = S->n - 1; i >= 0 && found < p->V; i--) {
			pp_unit u = pp_schedule_unit(s, st, i);
			if (!u.fwd && S->last_b_of_chunk[u.chunk] < 0) {
				S->last_b_of_chunk[u.chunk] = i;
				found++;
			}
		}
		if (S->n > 0)
			S->nextu = cursor_unit(&S->shape, &S->cur);
		S->prev0 = S->prev1 = S->pend_rs = -1;
		S->last = S->last_dp = S->opt = -1;
	}
	return p;
}

static void marks_free(struct marks *r);

void pp_program_free(pp_program *p)
{
	if (!p)
		return;
	for (int st = 0; st < p->P; st++) {
		free(p->st[st].last_b_of_chunk);
		free(p->st[st].first_use);
		free(p->st[st].unit_ns);
		free(p->st[st].gather_of);
		free(p->st[st].gather_e_of);
	}
	free(p->st);
	free(p->arr_f);
	free(p->link_f);
	free(p->cons_f);
	marks_free(p->marks);
	free(p);
}

int64_t pp_program_coalesced(const pp_program *p)
{
	return p->coalesced;
}

int pp_program_left(const pp_program *p, int st)
{
	return p->st[st].n - p->st[st].next;
}

bool pp_program_ready(const pp_program *p, int st)
{
	const stage *S = &p->st[st];
	if (S->next >= S->n)
		return false;
	pp_unit u = S->nextu;
	int vs = u.chunk * p->P + st;
	size_t key = (size_t)vs * p->M + u.mb;
	if (u.fwd)
		return vs == 0 || p->arr_f[key] >= 0;
	return vs == p->NV - 1 || p->arr_b[key] >= 0;
}

/* first is the first task of unit key, which needs the input arr[key]:
 * when its sender has not issued that yet, first waits for it later. */
static void await_input(pp_program *p, const int64_t *arr, int64_t *wait, size_t key, int64_t first)
{
	if (arr[key] < 0) {
		assert(p->k.dep);
		wait[key] = first;
	}
}

/* The sender issued h, which brings unit key its input. */
static void arrive(pp_program *p, int64_t *arr, const int64_t *wait, size_t key, int64_t h)
{
	arr[key] = h;
	if (wait && wait[key] >= 0)
		p->k.dep(p->k.ctx, wait[key], h);
}

/* The activation (fwd) or its gradient from virtual stage vs to its
 * neighbour, after the unit's last task `after`. */
static void send(pp_program *p, int st, int vs, pp_unit u, int64_t after)
{
	const pp_stepcost *c = p->c;
	stage *S = &p->st[st];
	int P = p->P;
	size_t key = (size_t)vs * p->M + u.mb;
	int bnd = u.fwd ? st : (st + P - 1) % P; /* the boundary crossed */
	pp_comm_cost cc = {c->p2p_ns[bnd], -1, c->p2p_bytes, PP_COLL_SENDRECV,
			   (uint8_t)c->w->act_bytes};
	int cat = u.fwd ? PP_CAT_P2P_FWD : PP_CAT_P2P_BWD;
	int64_t h;
	if (p->blocking) {
		/* Megatron without --overlap-p2p-communication: the send blocks
		 * the sender's compute stream until the transfer is done */
		h = issue(p, S->comp, cc.ns, comm_tag(cat, u.chunk, -1, u.mb, &cc, PP_GRP_PP), -1, -1, -1);
		S->last = h;
	} else {
		int chunk = u.fwd ? vs / P : (vs - 1) / P;
		h = issue(p, u.fwd ? p->link_f[bnd] : p->link_b[bnd], cc.ns,
			  comm_tag(cat, chunk, -1, u.mb, &cc, PP_GRP_PP), after, -1, -1);
	}
	if (u.fwd)
		arrive(p, p->arr_f, p->wait_f, key + (size_t)p->M, h);
	else
		arrive(p, p->arr_b, p->wait_b, key - (size_t)p->M, h);
}

static void unit_fwd(pp_program *p, int st, pp_unit u)
{
	const pp_stepcost *c = p->c;
	stage *S = &p->st[st];
	int vs = u.chunk * p->P + st;
	int L = c->layers[vs];
	size_t key = (size_t)vs * p->M + u.mb;
	int64_t h = -1;
	if (vs == 0) {
		h = compute_task(p, S, c->unit.f_embed, tag(PP_CAT_FWD, u.chunk, PP_LAYER_EMBED, u.mb),
				 PP_PART_EMBED, 0, false, -1, -1, -1);
	}
	bool gathers_now = S->gather_of && S->first_use[u.chunk];
	if (p->k.coalesce && !c->zero3 && !gathers_now && L > 0) {
		/* the unit's layers back to back: one task */
		int64_t in = vs > 0 ? p->arr_f[key] : -1;
		h = issue(p, S->comp, pp_stepcost_layers_ns(c, vs, true),
			  tag(PP_CAT_FWD, u.chunk, 0, u.mb), in, -1, -1);
		p->coalesced += L - 1;
		L = 0;
	}
	for (int l = 0; l < L; l++) {
		int kind = pp_stepcost_kind(c, vs, l);
		int64_t in = l == 0 && vs > 0 ? p->arr_f[key] : -1;
		bool gathers = S->gather_of && S->first_use[u.chunk];
		int64_t g = gathers ? S->gather_of[u.chunk * (S->maxl + 1) + l] : -1;
		int64_t ge = gathers && S->gather_e_of ? S->gather_e_of[u.chunk * (S->maxl + 1) + l] : -1;
		h = compute_task(p, S, c->unit.f_layer[kind], tag(PP_CAT_FWD, u.chunk, l, u.mb),
				 PP_PART_LAYER, kind, false, in, g, ge);
		if (l == 0 && vs > 0)
			await_input(p, p->arr_f, p->wait_f, key, h);
	}
	if (S->first_use[u.chunk]) {
		S->first_use[u.chunk] = false;
		p->first_left--;
	}
	if (vs == p->NV - 1)
		h = compute_task(p, S, c->unit.f_head, tag(PP_CAT_FWD, u.chunk, PP_LAYER_HEAD, u.mb),
				 PP_PART_HEAD, 0, false, -1, -1, -1);
	if (!p->k.no_busy)
		unit_busy(S, c, vs, true);
	S->last = h;
	if (p->P > 1 && vs < p->NV - 1)
		send(p, st, vs, u, h);
}

/* The gradient buckets of a backward unit: dense parameters over DP,
 * routed experts over expert DP, each bucket reduced once it is full
 * (--overlap-grad-reduce) and what is left after the unit's last task. */
typedef struct buckets {
	double dense, expert;
} buckets;

static void bucket_add(pp_program *p, stage *S, buckets *b, double dense, double expert, int64_t h,
		       bool flush_full)
{
	const pp_stepcost *c = p->c;
	b->dense += dense;
	b->expert += expert;
	if (!flush_full)
		return;
	if (b->dense >= c->bucket_params) {
		grad_reduce(p, S, b->dense, h);
		b->dense = 0;
	}
	if (b->expert >= c->bucket_params) {
		grad_reduce_expert(p, S, b->expert, h);
		b->expert = 0;
	}
}

static void unit_bwd(pp_program *p, int st, pp_unit u, bool reduce_here)
{
	const pp_stepcost *c = p->c;
	const pp_workload *w = c->w;
	stage *S = &p->st[st];
	int vs = u.chunk * p->P + st;
	int L = c->layers[vs];
	size_t key = (size_t)vs * p->M + u.mb;
	bool overlap = c->s->training.overlap_grad_reduce;
	buckets acc = {0, 0};
	int64_t h = -1;
	if (vs == p->NV - 1) {
		h = compute_task(p, S, c->unit.b_head, tag(PP_CAT_BWD, u.chunk, PP_LAYER_HEAD, u.mb),
				 PP_PART_HEAD, 0, true, -1, -1, -1);
		if (reduce_here)
			acc.dense += w->trainable_head;
	}
	if (p->k.coalesce && !c->zero3 && !reduce_here && L > 0) {
		/* the unit's layers back to back: one task */
		h = issue(p, S->comp, pp_stepcost_layers_ns(c, vs, false),
			  tag(PP_CAT_BWD, u.chunk, 0, u.mb), vs < p->NV - 1 ? p->arr_b[key] : -1, -1, -1);
		p->coalesced += L - 1;
		L = 0;
	}
	for (int l = L - 1; l >= 0; l--) {
		int kind = pp_stepcost_kind(c, vs, l);
		const pp_layer_cost *lc = &w->lk[kind];
		bool first = l == L - 1 && vs < p->NV - 1;
		h = compute_task(p, S, c->unit.b_layer[kind], tag(PP_CAT_BWD, u.chunk, l, u.mb),
				 PP_PART_LAYER, kind, true, first ? p->arr_b[key] : -1, -1, -1);
		if (first)
			await_input(p, p->arr_b, p->wait_b, key, h);
		if (reduce_here)
			bucket_add(p, S, &acc, lc->trainable - lc->trainable_expert, lc->trainable_expert,
				   h, overlap);
	}
	if (vs == 0) {
		h = compute_task(p, S, c->unit.b_embed, tag(PP_CAT_BWD, u.chunk, PP_LAYER_EMBED, u.mb),
				 PP_PART_EMBED, 0, true, -1, -1, -1);
		if (reduce_here)
			acc.dense += w->trainable_embed;
	}
	if (!p->k.no_busy)
		unit_busy(S, c, vs, false);
	if (reduce_here && overlap && acc.dense > 0)
		grad_reduce(p, S, acc.dense, h);
	if (reduce_here && overlap && acc.expert > 0)
		grad_reduce_expert(p, S, acc.expert, h);
	S->last = h;
	if (p->P > 1 && vs > 0)
		send(p, st, vs, u, h);
}

void pp_program_unit(pp_program *p, int st)
{
	stage *S = &p->st[st];
	/* the stage's first unit: what the step starts with */
	if (S->next == 0 && p->c->dist_opt_gather && p->c->s->training.overlap_param_gather)
		stage_gathers(p, st);
	int i = S->next++;
	pp_unit u = S->nextu;
	cursor_step(&S->shape, &S->cur, u.fwd);
	if (S->next < S->n)
		S->nextu = cursor_unit(&S->shape, &S->cur);
	(u.fwd ? p->cons_f : p->cons_b)[u.chunk * p->P + st]++;
	if (u.fwd)
		unit_fwd(p, st, u);
	else
		unit_bwd(p, st, u, i == S->last_b_of_chunk[u.chunk] && !p->c->zero3 && p->c->w->dp.n > 1);
}

/* The units of chunk j among the first k of a direction, k's digits
 * (cursor): whole groups of v x P, then the chunks before its own. */
static int64_t chunk_units(const cursor_shape *h, const cursor *u, int d, int j)
{
	if (h->P == INT_MAX)
		return j == 0 ? u->r[d] : 0;
	int64_t n = (int64_t)u->g[d] * h->P;
	return n + (j < u->c[d] ? h->P : j == u->c[d] ? u->r[d] : 0);
}

/* The least time stage st's units not yet issued put on its compute
 * stream, which runs its tasks in issue order: it is busy at least that
 * long after its last task so far. */
static int64_t left_ns(const pp_program *p, int st)
{
	const stage *S = &p->st[st];
	const cursor_shape *h = &S->shape;
	int64_t t = 0;
	for (int j = 0; j < h->v; j++) {
		/* forwards of chunk j: digit j; backwards: digit v - 1 - j */
		int64_t f = chunk_units(h, &S->fin, 1, j) - chunk_units(h, &S->cur, 1, j);
		int64_t b = chunk_units(h, &S->fin, 0, h->v - 1 - j) -
			    chunk_units(h, &S->cur, 0, h->v - 1 - j);
		t += f * S->unit_ns[p->V + j] + b * S->unit_ns[j];
	}
	return t;
}

/* Units of a one-chunk schedule (1F1B, GPipe) after a stage's last
 * forward: the cool-down's backwards, and the steady part's last backward
 * where there is one (schedule_phases; GPipe: every backward). */
static int64_t after_last_forward(const stage *S)
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
	int64_t lb = 0, e_next = -1;
	for (int st = p->P - 1; st >= 0; st--) {
		stage *S = &p->st[st];
		bool left = S->next < S->n;
		/* the stream runs the units to come after what it has: the last
		 * ends no earlier than e */
		int64_t e = res_free[S->comp] + left_ns(p, st);
		/* the last unit, a backward of chunk 0, takes its input from the
		 * next stage's same backward when that is the next stage's last
		 * unit (still to come): its send, then this unit's tasks */
		const stage *N = st + 1 < p->P ? &p->st[st + 1] : NULL;
		if (left && e_next >= 0 && !S->last_unit.fwd && S->last_unit.chunk == 0 &&
		    !N->last_unit.fwd && N->last_unit.chunk == 0 && N->last_unit.mb == S->last_unit.mb) {
			int64_t via = e_next + nonneg(c->p2p_ns[st]) + S->unit_ns[0];
			if (via > e)
				e = via;
		}
		if (links && N) {
			/* the next stage's backwards still to send, on link_b[st] */
			int64_t n = chunk_units(&N->shape, &N->fin, 0, 0) -
				    chunk_units(&N->shape, &N->cur, 0, 0);
			int64_t via = res_free[p->link_b[st]] + n * nonneg(c->p2p_ns[st]) + S->unit_ns[0];
			if (via > e)
				e = via;
		}
		if (links && st > 0) {
			/* the previous stage's forwards still to send, on
			 * link_f[st - 1]; the last feeds this stage's last forward,
			 * which the backwards after it follow */
			const stage *B = &p->st[st - 1];
			int64_t n = chunk_units(&B->shape, &B->fin, 1, 0) -
				    chunk_units(&B->shape, &B->cur, 1, 0);
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

int pp_program_run(pp_program *p, int st, int end, const bool *stop)
{
	stage *S = &p->st[st];
	int moved = 0;
	while (S->next < end && pp_program_ready(p, st)) {
		pp_program_unit(p, st);
		moved++;
		if (*stop)
			break;
	}
	return moved;
}

/* What a stage issues after its last unit and before its optimizer. */
static void stage_tail(pp_program *p, int st)
{
	const pp_stepcost *c = p->c;
	stage *S = &p->st[st];
	if (c->zero3 && S->pend_rs >= 0) {
		const pp_comm_cost *rs = &c->z3_scatter[S->pend_part][S->pend_kind];
		S->last_dp = dp_task(p, S, rs, comm_tag(PP_CAT_GRAD_REDUCE, 0, -1, -1, rs, PP_GRP_DP),
				     S->pend_rs);
		S->pend_rs = -1;
	}
	if (!c->zero3 && c->w->dp.n > 1 && !c->s->training.overlap_grad_reduce) {
		/* no overlap: the whole stage's gradients after its last
		 * backward, still in buckets */
		double ex = pp_stage_trainable_expert(c->s, c->w, st);
		double total = pp_stage_trainable(c->s, c->w, st) - ex;
		while (total > 0) {
			double chunk = total > c->bucket_params ? c->bucket_params : total;
			grad_reduce(p, S, chunk, S->last);
			total -= chunk;
		}
		while (ex > 0) {
			double chunk = ex > c->bucket_params ? c->bucket_params : ex;
			grad_reduce_expert(p, S, chunk, S->last);
			ex -= chunk;
		}
	}
	if (c->zero3 && S->last_dp < 0)
		S->last_dp = S->prev1;
}

static void stage_optimizer(pp_program *p, int st, int64_t embed_ar)
{
	const pp_stepcost *c = p->c;
	stage *S = &p->st[st];
	pp_mem_cost m = pp_stepcost_optimizer(c, st);
	pp_des_tag t = tag(PP_CAT_OPTIMIZER, 0, -1, -1);
	t.group = PP_GRP_LOCAL;
	t.bytes = m.bytes;
	S->opt = issue(p, S->comp, m.ns, t, S->last, S->last_dp,
		       st == 0 || st == p->P - 1 ? embed_ar : -1);
	S->opt_s = m.s;
	if (c->dist_opt_gather && !c->s->training.overlap_param_gather) {
		double ex = pp_stage_trainable_expert(c->s, c->w, st);
		double pr = pp_stage_trainable(c->s, c->w, st) - ex;
		while (pr > 0) {
			double chunk = pr > c->bucket_params ? c->bucket_params : pr;
			pp_comm_cost cc = pp_stepcost_gather(c, chunk);
			dp_task(p, S, &cc, comm_tag(PP_CAT_PARAM_GATHER, 0, -1, -1, &cc, PP_GRP_DP), S->opt);
			pr -= chunk;
		}
		while (ex > 0) {
			double chunk = ex > c->bucket_params ? c->bucket_params : ex;
			pp_comm_cost cc = pp_stepcost_gather_expert(c, chunk);
			dp_task(p, S, &cc, comm_tag(PP_CAT_PARAM_GATHER, 0, -1, -1, &cc, PP_GRP_EDP), S->opt);
			ex -= chunk;
		}
	}
}

void pp_program_finish(pp_program *p, pp_stage_busy *busy)
{
	const pp_stepcost *c = p->c;
	for (int st = 0; st < p->P; st++)
		stage_tail(p, st);
	/* tied word embeddings: the gradient all-reduce between the first and
	 * last stage before their optimizer steps */
	int64_t ar = -1;
	if (p->embed_res >= 0) {
		const stage *a = &p->st[0], *b = &p->st[p->P - 1];
		pp_des_tag t = comm_tag(PP_CAT_EMBED_ALLREDUCE, 0, -1, -1, &c->embed_ar, PP_GRP_EMBED);
		int64_t deps[4] = {a->last, a->last_dp, b->last, b->last_dp};
		ar = p->k.task(p->k.ctx, p->embed_res, c->embed_ar.ns, &t, deps, 4);
	}
	for (int st = 0; st < p->P; st++)
		stage_optimizer(p, st, ar);
	/* data loading for the next step, on the storage target */
	if (c->data_ns >= 0) {
		int sto = p->k.resource(p->k.ctx, "storage", p->P, false);
		pp_des_tag t = tag(PP_CAT_DATA, 0, -1, -1);
		t.group = PP_GRP_STORAGE;
		t.bytes = c->data_bytes;
		p->k.task(p->k.ctx, sto, c->data_ns, &t, NULL, 0);
	}
	for (int st = 0; busy && st < p->P; st++) {
		const stage *S = &p->st[st];
		busy[st].compute_s = S->compute_s;
		busy[st].tp_s = S->tp_s;
		busy[st].cp_s = S->cp_s;
		busy[st].ep_s = S->ep_s;
		busy[st].opt_s = S->opt_s;
		busy[st].last_task = S->opt;
	}
}

/* ---- the steady state (program.h) ---- */

/* The period of the steady part of the schedule, in units per stage, and
 * the micro-batches a period moves on; false for GPipe (no steady part in
 * which forwards and backwards alternate). */
static bool period_of(const pp_program *p, int *T, int *S)
{
	const pp_parallel *par = &p->c->s->parallel;
	if (par->schedule == PP_SCHED_GPIPE)
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
	int64_t i = schedule_phases(p->c->s, st, &end) + (int64_t)c * T;
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

static void marks_free(struct marks *r)
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

static void stage_handles(const stage *S, int64_t h[4])
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
		const stage *S = &p->st[st];
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
		const stage *X = &p->st[st];
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
		const stage *X = &p->st[st];
		/* in the steady part unit i + T is unit i with the micro-batch S
		 * on (1F1B: F(warm + j), B(j); interleaved: the chunk and the
		 * micro-batch's place in its group of P repeat every P x v
		 * forwards and backwards); stop short of the cool-down and of any
		 * chunk's last backward (its gradient reduction) */
		int end;
		schedule_phases(p->c->s, st, &end);
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
		stage *X = &p->st[st];
		/* the busy time of the units passed over, added unit by unit as
		 * issuing them would: k times the period's units */
		for (int j = 0; busy && j < T; j++)
			per[j] = unit_at(c->s, X->warm, X->end, X->next + j);
		for (int64_t r = 0; busy && r < k; r++)
			for (int j = 0; j < T; j++)
				unit_busy(X, c, per[j].chunk * p->P + st, per[j].fwd);
		X->next += (int)(k * T);
		X->cur = cursor_at(&X->shape, X->next);
		if (X->next < X->n)
			X->nextu = cursor_unit(&X->shape, &X->cur);
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
