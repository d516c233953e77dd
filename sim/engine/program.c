/* program.c - see program.h: the tasks a stage issues, unit by unit, and
 * after its last unit. */
#include "engine/programint.h"
#include "engine/stages.h"
#include "core/util.h"

#include <assert.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_cat_names[PP_CAT_COUNT] = {
	"forward", "backward", "send activations", "send gradients", "gradient reduce",
	"parameter all-gather", "embedding all-reduce", "optimizer", "data loading"};

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

/* A forward or backward task of unit u: its action and pair bit too. */
static pp_des_tag utag(int cat, pp_unit u, int layer)
{
	pp_des_tag t = tag(cat, u.chunk, layer, u.mb);
	t.act = (uint8_t)(u.act | (u.pair ? PP_TAG_PAIR : 0));
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
static int64_t dp_task(pp_program *p, pstage *S, const pp_comm_cost *cc, pp_des_tag t, int64_t dep)
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
static int64_t compute_task(pp_program *p, pstage *S, int64_t dur, pp_des_tag t, int part, int kind,
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

static void grad_reduce(pp_program *p, pstage *S, double params, int64_t after)
{
	pp_comm_cost cc = pp_stepcost_reduce(p->c, params);
	S->last_dp = dp_task(p, S, &cc, comm_tag(PP_CAT_GRAD_REDUCE, 0, -1, -1, &cc, PP_GRP_DP), after);
}

/* The routed experts' gradients, over the expert data-parallel group. */
static void grad_reduce_expert(pp_program *p, pstage *S, double params, int64_t after)
{
	pp_comm_cost cc = pp_stepcost_reduce_expert(p->c, params);
	S->last_dp = dp_task(p, S, &cc, comm_tag(PP_CAT_GRAD_REDUCE, 0, -1, -1, &cc, PP_GRP_EDP), after);
}

/* One bucket's gather (layers *first .. l of chunk k), which those layers'
 * first forward waits for. */
static void bucket_gather(pp_program *p, pstage *S, const pp_comm_cost *cc, int group, int k, int l,
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
		int vs = pp_pipe_vs(&c->pipe, st, k);
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
	pstage *S;
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
	pstage *S = &p->st[st];
	int V = p->V;
	for (int k = 0; k < V; k++)
		if (c->layers[pp_pipe_vs(&c->pipe, st, k)] > S->maxl)
			S->maxl = c->layers[pp_pipe_vs(&c->pipe, st, k)];
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
	if (!c->dist_opt_gather || !c->overlap_param_gather)
		return 0;
	int64_t t = 0;
	gather_buckets(c, st, add_gather_ns, &t);
	return t;
}

pp_program *pp_program_new(const pp_stepcost *c, const pp_sink *sink)
{
	const pp_pipe *pl = &c->pipe;
	pp_program *p = pp_xcalloc(1, sizeof(*p));
	p->c = c;
	p->k = *sink;
	p->P = c->P;
	p->V = c->V;
	p->M = c->M;
	p->NV = c->NV;
	p->blocking = !c->overlap_p2p_comm && p->P > 1;
	/* the arrivals; the waiting consumers only for a backend that takes
	 * dependencies later (the closed form issues a unit once its input is in) */
	size_t nk = (size_t)p->NV * p->M, na = sink->dep ? 4 : 2;
	p->arr_f = pp_xmalloc(sizeof(int64_t) * nk * na);
	p->arr_b = p->arr_f + nk;
	p->wait_f = sink->dep ? p->arr_b + nk : NULL;
	p->wait_b = sink->dep ? p->wait_f + nk : NULL;
	for (size_t i = 0; i < na * nk; i++)
		p->arr_f[i] = -1;
	if (sink->dep && pl->schedule == PP_SCHED_DUALPIPEV) {
		p->wait_pair = pp_xmalloc(sizeof(int64_t) * nk);
		for (size_t i = 0; i < nk; i++)
			p->wait_pair[i] = -1;
	}
	p->st = pp_xcalloc((size_t)p->P, sizeof(pstage));
	bool named = !sink->nameless;
	for (int st = 0; st < p->P; st++) {
		char name[48] = "";
		pstage *S = &p->st[st];
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
	bool listed = pp_pipe_listed(pl);
	for (int st = 0; st < p->P; st++) {
		pstage *S = &p->st[st];
		if (!listed)
			S->n = pp_schedule_count(pl);
		else {
			S->acts = pp_xmalloc(sizeof(pp_unit) * (size_t)pp_pipe_list_cap(pl));
			S->n = pp_pipe_list(pl, st, S->acts);
			S->left_min = pp_xmalloc(sizeof(int64_t) * ((size_t)S->n + 1));
			S->left_min[S->n] = 0;
			for (int i = S->n - 1; i >= 0; i--)
				S->left_min[i] = S->left_min[i + 1] +
						 pp_stepcost_act_min_ns(c, pp_pipe_vs(pl, st, S->acts[i].chunk),
									S->acts[i]);
		}
		S->warm = pp_pipe_phases(pl, st, &S->end);
		S->shape = pp_pipe_cursor_shape_of(pl, st);
		S->cur = pp_pipe_cursor_at(&S->shape, 0);
		S->fin = pp_pipe_cursor_at(&S->shape, S->n);
		if (S->n > 0 && S->acts) {
			S->last_unit = S->acts[S->n - 1];
		} else if (S->n > 0) {
			cursor l = pp_pipe_cursor_at(&S->shape, S->n - 1);
			S->last_unit = pp_pipe_cursor_unit(&S->shape, &l);
		}
		S->unit_ns = pp_xmalloc(sizeof(int64_t) * 2 * (size_t)p->V);
		for (int k = 0; k < p->V; k++)
			for (int d = 0; d < 2; d++)
				S->unit_ns[d * p->V + k] = pp_stepcost_unit_min_ns(c, pp_pipe_vs(pl, st, k), d);
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
			/* (listed: the last action that completes weight gradients) */
			pp_unit u = S->acts ? S->acts[i] : pp_schedule_unit(pl, st, i);
			if (!u.fwd && u.act != PP_ACT_I && S->last_b_of_chunk[u.chunk] < 0) {
				S->last_b_of_chunk[u.chunk] = i;
				found++;
			}
		}
		if (S->n > 0)
			S->nextu = S->acts ? S->acts[0] : pp_pipe_cursor_unit(&S->shape, &S->cur);
		S->prev0 = S->prev1 = S->pend_rs = -1;
		S->last = S->last_dp = S->opt = -1;
	}
	return p;
}

void pp_program_free(pp_program *p)
{
	if (!p)
		return;
	for (int st = 0; st < p->P; st++) {
		free(p->st[st].last_b_of_chunk);
		free(p->st[st].first_use);
		free(p->st[st].unit_ns);
		free(p->st[st].acts);
		free(p->st[st].left_min);
		free(p->st[st].gather_of);
		free(p->st[st].gather_e_of);
	}
	free(p->st);
	free(p->arr_f);
	free(p->wait_pair);
	free(p->link_f);
	free(p->cons_f);
	pp_prog_marks_free(p->marks);
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

/* An overlapped pair (pp_unit pair): its forward (stage st's next unit)
 * runs once the backward after it has its input too, as DualPipe's
 * overlapped_forward_backward starts with both chunks' inputs received.
 * The key of that input, or -1 when the backward needs none. */
static int64_t pair_key(const pp_program *p, int st, int i)
{
	const pstage *S = &p->st[st];
	if (!S->acts || i + 1 >= S->n)
		return -1;
	pp_unit b = S->acts[i + 1];
	int vs = pp_pipe_vs(&p->c->pipe, st, b.chunk);
	return vs == p->NV - 1 ? -1 : (int64_t)vs * p->M + b.mb;
}

static bool pair_ready(const pp_program *p, int st)
{
	int64_t k = pair_key(p, st, p->st[st].next);
	return k < 0 || p->arr_b[k] >= 0;
}

bool pp_program_ready(const pp_program *p, int st)
{
	const pstage *S = &p->st[st];
	if (S->next >= S->n)
		return false;
	pp_unit u = S->nextu;
	if (u.act == PP_ACT_W)
		return true; /* after its input-gradient part, earlier on the stage */
	int vs = pp_pipe_vs(&p->c->pipe, st, u.chunk);
	size_t key = (size_t)vs * p->M + u.mb;
	if (u.fwd && u.pair && !pair_ready(p, st))
		return false;
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
	if (arr == p->arr_b && p->wait_pair && p->wait_pair[key] >= 0)
		p->k.dep(p->k.ctx, p->wait_pair[key], h);
}

/* The activation (fwd) or its gradient from virtual stage vs to its
 * neighbour, after the unit's last task `after`. */
static void send(pp_program *p, int st, int vs, pp_unit u, int64_t after)
{
	const pp_stepcost *c = p->c;
	pstage *S = &p->st[st];
	int P = p->P;
	size_t key = (size_t)vs * p->M + u.mb;
	int to = pp_pipe_stage_of(&c->pipe, u.fwd ? vs + 1 : vs - 1);
	if (to == st) {
		/* the V's turn: the next virtual stage is on this stage */
		if (u.fwd)
			arrive(p, p->arr_f, p->wait_f, key + (size_t)p->M, after);
		else
			arrive(p, p->arr_b, p->wait_b, key - (size_t)p->M, after);
		return;
	}
	bool vshape = pp_schedule_vshape(c->pipe.schedule);
	/* the boundary crossed (in a V, down the second leg: the one below) */
	int bnd = vshape ? (to > st ? st : to) : u.fwd ? st : (st + P - 1) % P;
	bool up = vshape ? to > st : u.fwd;
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
		int chunk = vshape ? ((u.fwd ? vs + 1 : vs - 1) >= P) : u.fwd ? vs / P : (vs - 1) / P;
		h = issue(p, up ? p->link_f[bnd] : p->link_b[bnd], cc.ns,
			  comm_tag(cat, chunk, -1, u.mb, &cc, PP_GRP_PP), after, -1, -1);
	}
	if (u.fwd)
		arrive(p, p->arr_f, p->wait_f, key + (size_t)p->M, h);
	else
		arrive(p, p->arr_b, p->wait_b, key - (size_t)p->M, h);
}

/* h, an overlapped pair forward's first task, waits for the gradient of
 * key pk (-1: none) once its sender issues it, where it was not yet. */
static void pair_wait(pp_program *p, int64_t pk, int64_t h)
{
	if (pk >= 0 && p->arr_b[pk] < 0) {
		assert(p->wait_pair);
		p->wait_pair[pk] = h;
	}
}

static void unit_fwd(pp_program *p, int st, pp_unit u)
{
	const pp_stepcost *c = p->c;
	pstage *S = &p->st[st];
	int vs = pp_pipe_vs(&c->pipe, st, u.chunk);
	int L = c->layers[vs];
	size_t key = (size_t)vs * p->M + u.mb;
	int64_t h = -1;
	/* an overlapped pair's forward also waits for its backward's input */
	int64_t pk = u.pair ? pair_key(p, st, S->next - 1) : -1;
	int64_t pin = pk >= 0 ? p->arr_b[pk] : -1;
	if (vs == 0) {
		h = compute_task(p, S, c->unit.f_embed, utag(PP_CAT_FWD, u, PP_LAYER_EMBED),
				 PP_PART_EMBED, 0, false, pin, -1, -1);
		pair_wait(p, pk, h);
		pk = -1;
		pin = -1;
	}
	bool gathers_now = S->gather_of && S->first_use[u.chunk];
	if (p->k.coalesce && !c->zero3 && !gathers_now && L > 0) {
		/* the unit's layers back to back: one task */
		int64_t in = vs > 0 ? p->arr_f[key] : -1;
		h = issue(p, S->comp, pp_stepcost_layers_ns(c, vs, true),
			  utag(PP_CAT_FWD, u, 0), in, pin, -1);
		pair_wait(p, pk, h);
		pk = -1;
		pin = -1;
		p->coalesced += L - 1;
		L = 0;
	}
	for (int l = 0; l < L; l++) {
		int kind = pp_stepcost_kind(c, vs, l);
		int64_t in = l == 0 && vs > 0 ? p->arr_f[key] : -1;
		bool gathers = S->gather_of && S->first_use[u.chunk];
		int64_t g = gathers ? S->gather_of[u.chunk * (S->maxl + 1) + l] : -1;
		int64_t ge = gathers && S->gather_e_of ? S->gather_e_of[u.chunk * (S->maxl + 1) + l] : -1;
		/* a pair is never a chunk's first forward (DualPipeV runs
		 * those alone, in its first two steps): no gathers then */
		assert(pin < 0 || (g < 0 && ge < 0));
		h = compute_task(p, S, c->unit.f_layer[kind], utag(PP_CAT_FWD, u, l),
				 PP_PART_LAYER, kind, false, in, g >= 0 ? g : l == 0 ? pin : -1, ge);
		if (l == 0) {
			pair_wait(p, pk, h);
			pk = -1;
			pin = -1;
		}
		if (l == 0 && vs > 0)
			await_input(p, p->arr_f, p->wait_f, key, h);
	}
	if (S->first_use[u.chunk]) {
		S->first_use[u.chunk] = false;
		p->first_left--;
	}
	if (vs == p->NV - 1)
		h = compute_task(p, S, c->unit.f_head, utag(PP_CAT_FWD, u, PP_LAYER_HEAD),
				 PP_PART_HEAD, 0, false, -1, -1, -1);
	if (!p->k.no_busy)
		pp_prog_unit_busy(S, c, vs, true);
	S->last = h;
	if (vs < p->NV - 1)
		send(p, st, vs, u, h);
}

/* The gradient buckets of a backward unit: dense parameters over DP,
 * routed experts over expert DP, each bucket reduced once it is full
 * (--overlap-grad-reduce) and what is left after the unit's last task. */
typedef struct buckets {
	double dense, expert;
} buckets;

static void bucket_add(pp_program *p, pstage *S, buckets *b, double dense, double expert, int64_t h,
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

/* A backward unit: the whole backward, or of a split one (pp_unit act)
 * the input-gradient part (the layers' backward less their weight
 * gradients, the head's and the embedding's backward whole; it sends the
 * gradient on) or the weight-gradient part (the layers' weight gradients,
 * after the input-gradient part on the same stream; it completes the
 * gradients, so the buckets reduce behind it). */
static void unit_bwd(pp_program *p, int st, pp_unit u, bool reduce_here)
{
	const pp_stepcost *c = p->c;
	const pp_workload *w = c->w;
	pstage *S = &p->st[st];
	int vs = pp_pipe_vs(&c->pipe, st, u.chunk);
	int L = c->layers[vs];
	size_t key = (size_t)vs * p->M + u.mb;
	bool overlap = c->overlap_grad_reduce;
	bool wpart = u.act == PP_ACT_W;
	/* the input of the unit: the gradient from the next virtual stage
	 * (a weight-gradient part has none) */
	bool input = !wpart && vs < p->NV - 1;
	buckets acc = {0, 0};
	int64_t h = -1;
	if (vs == p->NV - 1 && !wpart) {
		h = compute_task(p, S, c->unit.b_head, utag(PP_CAT_BWD, u, PP_LAYER_HEAD),
				 PP_PART_HEAD, 0, true, -1, -1, -1);
	}
	if (vs == p->NV - 1 && reduce_here)
		acc.dense += w->trainable_head;
	if (p->k.coalesce && !c->zero3 && !reduce_here && L > 0) {
		/* the unit's layers back to back: one task */
		h = issue(p, S->comp, pp_stepcost_bwd_layers_ns(c, vs, u.act),
			  utag(PP_CAT_BWD, u, 0), input ? p->arr_b[key] : -1, -1, -1);
		p->coalesced += L - 1;
		L = 0;
	}
	for (int l = L - 1; l >= 0; l--) {
		int kind = pp_stepcost_kind(c, vs, l);
		const pp_layer_cost *lc = &w->lk[kind];
		bool first = l == L - 1 && input;
		h = compute_task(p, S, pp_stepcost_bwd_layer_ns(c, kind, u.act),
				 utag(PP_CAT_BWD, u, l), PP_PART_LAYER, kind, true,
				 first ? p->arr_b[key] : -1, -1, -1);
		if (first)
			await_input(p, p->arr_b, p->wait_b, key, h);
		if (reduce_here)
			bucket_add(p, S, &acc, lc->trainable - lc->trainable_expert, lc->trainable_expert,
				   h, overlap);
	}
	if (vs == 0 && !wpart) {
		h = compute_task(p, S, c->unit.b_embed, utag(PP_CAT_BWD, u, PP_LAYER_EMBED),
				 PP_PART_EMBED, 0, true, -1, -1, -1);
	}
	if (vs == 0 && reduce_here)
		acc.dense += w->trainable_embed;
	/* the whole backward's busy time, booked once: with its input part */
	if (!p->k.no_busy && !wpart)
		pp_prog_unit_busy(S, c, vs, false);
	if (reduce_here && overlap && acc.dense > 0)
		grad_reduce(p, S, acc.dense, h);
	if (reduce_here && overlap && acc.expert > 0)
		grad_reduce_expert(p, S, acc.expert, h);
	if (h >= 0 || !wpart)
		S->last = h;
	if (!wpart && vs > 0)
		send(p, st, vs, u, h);
}

void pp_program_unit(pp_program *p, int st)
{
	pstage *S = &p->st[st];
	/* the stage's first unit: what the step starts with */
	if (S->next == 0 && p->c->dist_opt_gather && p->c->overlap_param_gather)
		stage_gathers(p, st);
	int i = S->next++;
	pp_unit u = S->nextu;
	if (S->acts) {
		if (S->next < S->n)
			S->nextu = S->acts[S->next];
	} else {
		pp_pipe_cursor_step(&S->shape, &S->cur, u.fwd);
		if (S->next < S->n)
			S->nextu = pp_pipe_cursor_unit(&S->shape, &S->cur);
	}
	if (u.act != PP_ACT_W)
		(u.fwd ? p->cons_f : p->cons_b)[pp_pipe_vs(&p->c->pipe, st, u.chunk)]++;
	if (u.fwd)
		unit_fwd(p, st, u);
	else
		unit_bwd(p, st, u, i == S->last_b_of_chunk[u.chunk] && !p->c->zero3 && p->c->w->dp.n > 1);
}

int pp_program_run(pp_program *p, int st, int end, const bool *stop)
{
	pstage *S = &p->st[st];
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
	pstage *S = &p->st[st];
	if (c->zero3 && S->pend_rs >= 0) {
		const pp_comm_cost *rs = &c->z3_scatter[S->pend_part][S->pend_kind];
		S->last_dp = dp_task(p, S, rs, comm_tag(PP_CAT_GRAD_REDUCE, 0, -1, -1, rs, PP_GRP_DP),
				     S->pend_rs);
		S->pend_rs = -1;
	}
	if (!c->zero3 && c->w->dp.n > 1 && !c->overlap_grad_reduce) {
		/* no overlap: the whole stage's gradients after its last
		 * backward, still in buckets */
		double ex, total = pp_stepcost_trained(c, st, &ex);
		total -= ex;
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
	pstage *S = &p->st[st];
	pp_mem_cost m = pp_stepcost_optimizer(c, st);
	pp_des_tag t = tag(PP_CAT_OPTIMIZER, 0, -1, -1);
	t.group = PP_GRP_LOCAL;
	t.bytes = m.bytes;
	S->opt = issue(p, S->comp, m.ns, t, S->last, S->last_dp,
		       st == 0 || st == p->P - 1 ? embed_ar : -1);
	S->opt_s = m.s;
	if (c->dist_opt_gather && !c->overlap_param_gather) {
		double ex, pr = pp_stepcost_trained(c, st, &ex);
		pr -= ex;
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
		const pstage *a = &p->st[0], *b = &p->st[p->P - 1];
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
		const pstage *S = &p->st[st];
		busy[st].compute_s = S->compute_s;
		busy[st].tp_s = S->tp_s;
		busy[st].cp_s = S->cp_s;
		busy[st].ep_s = S->ep_s;
		busy[st].opt_s = S->opt_s;
		busy[st].last_task = S->opt;
	}
}
