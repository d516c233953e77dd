/* program.c - see program.h: the tasks a stage issues, unit by unit
 * (what comes before its first unit and after its last: progoptim.c). */
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

/* A forward or backward task of unit u: its action and pair bit too. */
static pp_des_tag utag(int cat, pp_unit u, int layer)
{
	pp_des_tag t = pp_prog_tag(cat, u.chunk, layer, u.mb);
	t.act = (uint8_t)(u.act | (u.pair ? PP_TAG_PAIR : 0));
	return t;
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
		gather = pp_prog_dp_task(p, S, ag,
					 pp_prog_comm_tag(PP_CAT_PARAM_GATHER, t.chunk, t.layer, t.mb,
							  ag, PP_GRP_DP),
					 S->prev0);
	}
	if (z) {
		if (S->pend_rs >= 0) {
			const pp_comm_cost *rs = &c->z3_scatter[S->pend_part][S->pend_kind];
			pp_prog_dp_task(p, S, rs,
					pp_prog_comm_tag(PP_CAT_GRAD_REDUCE, 0, -1, -1, rs, PP_GRP_DP),
					S->pend_rs);
			S->pend_rs = -1;
		}
	}
	int64_t h = pp_prog_issue(p, S->comp, dur, t, d0, d1, gather >= 0 ? gather : d2);
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
	if (sink->dep && pp_schedule_dual_pairs(pl->schedule)) {
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
	int to = pp_pipe_stage_of(&c->pipe, u.fwd ? vs + 1 : vs - 1, u.chunk);
	if (to == st) {
		/* the V's turn: the next virtual stage is on this stage */
		if (u.fwd)
			arrive(p, p->arr_f, p->wait_f, key + (size_t)p->M, after);
		else
			arrive(p, p->arr_b, p->wait_b, key - (size_t)p->M, after);
		return;
	}
	/* a V or DualPipe: sends go either way between neighbours */
	bool vshape = pp_schedule_two_chunks(c->pipe.schedule);
	bool two_ended = pp_schedule_two_ended(c->pipe.schedule);
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
		h = pp_prog_issue(p, S->comp, cc.ns,
				  pp_prog_comm_tag(cat, u.chunk, -1, u.mb, &cc, PP_GRP_PP), -1, -1, -1);
		S->last = h;
	} else {
		int chunk = two_ended ? u.chunk
			    : vshape ? ((u.fwd ? vs + 1 : vs - 1) >= P) : u.fwd ? vs / P : (vs - 1) / P;
		h = pp_prog_issue(p, up ? p->link_f[bnd] : p->link_b[bnd], cc.ns,
			  pp_prog_comm_tag(cat, chunk, -1, u.mb, &cc, PP_GRP_PP), after, -1, -1);
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
		h = pp_prog_issue(p, S->comp, pp_stepcost_layers_ns(c, vs, true),
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
		pp_prog_grad_reduce(p, S, b->dense, h);
		b->dense = 0;
	}
	if (b->expert >= c->bucket_params) {
		pp_prog_grad_reduce_expert(p, S, b->expert, h);
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
		h = pp_prog_issue(p, S->comp, pp_stepcost_bwd_layers_ns(c, vs, u.act),
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
		pp_prog_grad_reduce(p, S, acc.dense, h);
	if (reduce_here && overlap && acc.expert > 0)
		pp_prog_grad_reduce_expert(p, S, acc.expert, h);
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
		pp_prog_stage_gathers(p, st);
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
