/* replayplan.c - see replayplan.h. */
#include "calib/replayplan.h"
#include "engine/des.h"
#include "engine/evgraph.h"
#include "engine/pipeorder.h"
#include "core/util.h"
#include "engine/workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_rs_names[PP_RS_COUNT] = {"compute", "tp", "dp", "embed",
					      "send-f", "send-b", "recv-f", "recv-b",
					      "send-f-rev", "send-b-rev", "recv-f-rev", "recv-b-rev"};

/* One thing a GPU issues: a graph task of its stage, or the receive of a
 * transfer some other stage sends to it. */
enum { U_FWD_BWD, U_SEND_BLOCKING, U_OPT, U_DP, U_EMBED, U_SEND, U_RECV, U_NONE };
typedef struct unit {
	int64_t k0, k1;   /* sort key: simulated start, end, task id */
	int task;
	int ktask;        /* task id in the sort key (a late receive: its consumer's) */
	int late_stream;  /* a receive posted when this stream reaches its consumer; -1 */
	int kind;
	int stream;
	int ev;           /* event recorded after it, -1 none */
	bool need_ev;
	int dep0, ndep;   /* into deps[] */
} unit;

typedef struct bld {
	pp_rplan *p;
	const pp_scenario *s;
	const pp_hw *hw;
	pp_workload w;
	pp_des *d;
	int *pred_off, *pred;   /* CSR of predecessors per task */
	int *dst;               /* [task]: a stage-to-stage send's receiving stage; -1 */
	int T, P, t, cp, dp;
	bool blocking;          /* pipeline sends on the compute stream */
	pp_rplan_opts o;
	pp_err *err;
} bld;

/* The units of one GPU and their dependencies. */
typedef struct gunits {
	unit *u;
	int n;
	int *own, *recv;        /* [task]: its unit on this GPU (issued, received); -1 */
	int *deps, ndeps, capdeps;
} gunits;

/* ---- small helpers ---- */

static int gpu_of(const bld *b, int st, int ti, int ci, int di)
{
	return ti + b->t * (ci + b->cp * (di + b->dp * st));
}

static pp_rinstr *push(pp_rgpu *g)
{
	if (g->nins == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 256;
		g->ins = pp_xrealloc(g->ins, sizeof(pp_rinstr) * (size_t)g->cap);
	}
	pp_rinstr *r = &g->ins[g->nins++];
	memset(r, 0, sizeof(*r));
	r->task = -1;
	r->op = -1;
	r->comm = -1;
	return r;
}

static int comm_get(pp_rplan *p, const char *name, const int *gpus, int n)
{
	for (int i = 0; i < p->ncomms; i++)
		if (!strcmp(p->comms[i].name, name))
			return i;
	p->comms = pp_xrealloc(p->comms, sizeof(pp_rcomm) * (size_t)(p->ncomms + 1));
	pp_rcomm *c = &p->comms[p->ncomms];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->n = n;
	for (int i = 0; i < n; i++)
		c->gpus[i] = gpus[i];
	return p->ncomms++;
}

static int tp_comm(bld *b, const pp_rgpu *g)
{
	int gs[PP_RP_MAX_GPUS];
	char nm[48];
	for (int i = 0; i < b->t; i++)
		gs[i] = gpu_of(b, g->stage, i, g->cp_i, g->dp_i);
	snprintf(nm, sizeof(nm), "tp s%d c%d d%d", g->stage, g->cp_i, g->dp_i);
	return comm_get(b->p, nm, gs, b->t);
}

/* The expert groups of GPU g (Megatron-Core's order inside a stage: etp
 * fastest, then ep, then expert DP, over the stage's tp x cp x dp ranks):
 * which = PP_GK_EP, PP_GK_ETP or PP_GK_TPEP; edp: the expert DP group. */
static int expert_comm(bld *b, const pp_rgpu *g, int which, bool edp)
{
	int etp = pp_parallel_etp(&b->s->parallel), ep = b->s->parallel.ep > 0 ? b->s->parallel.ep : 1;
	int n = b->t * b->cp * b->dp;
	int li = g->tp_i + b->t * (g->cp_i + b->cp * g->dp_i);
	int e_t = li % etp, e_p = (li / etp) % ep, e_d = li / (etp * ep);
	int gs[PP_RP_MAX_GPUS], m = 0;
	for (int j = 0; j < n && m < PP_RP_MAX_GPUS; j++) {
		int jt = j % etp, jp = (j / etp) % ep, jd = j / (etp * ep);
		bool in = edp ? (jt == e_t && jp == e_p)
			  : which == PP_GK_EP ? (jt == e_t && jd == e_d)
			  : which == PP_GK_ETP ? (jp == e_p && jd == e_d) : jd == e_d;
		if (in)
			gs[m++] = g->stage * n + j;
	}
	char nm[48];
	if (edp)
		snprintf(nm, sizeof(nm), "edp s%d t%d p%d", g->stage, e_t, e_p);
	else if (which == PP_GK_EP)
		snprintf(nm, sizeof(nm), "ep s%d t%d d%d", g->stage, e_t, e_d);
	else if (which == PP_GK_ETP)
		snprintf(nm, sizeof(nm), "etp s%d p%d d%d", g->stage, e_p, e_d);
	else
		snprintf(nm, sizeof(nm), "tpep s%d d%d", g->stage, e_d);
	return comm_get(b->p, nm, gs, m);
}

static int dp_comm(bld *b, const pp_rgpu *g)
{
	int gs[PP_RP_MAX_GPUS], n = 0;
	char nm[48];
	for (int di = 0; di < b->dp; di++)
		for (int ci = 0; ci < b->cp; ci++)
			gs[n++] = gpu_of(b, g->stage, g->tp_i, ci, di);
	snprintf(nm, sizeof(nm), "dp s%d t%d", g->stage, g->tp_i);
	return comm_get(b->p, nm, gs, n);
}

static int embed_comm(bld *b, const pp_rgpu *g)
{
	int gs[2] = {gpu_of(b, 0, g->tp_i, g->cp_i, g->dp_i),
		     gpu_of(b, b->P - 1, g->tp_i, g->cp_i, g->dp_i)};
	char nm[48];
	snprintf(nm, sizeof(nm), "embed t%d c%d d%d", g->tp_i, g->cp_i, g->dp_i);
	return comm_get(b->p, nm, gs, 2);
}

/* One communicator per direction and kind: one sender, one receiver. */
static int p2p_comm(bld *b, const pp_rgpu *g, int src, int dst, bool fwd)
{
	int gs[2] = {gpu_of(b, src, g->tp_i, g->cp_i, g->dp_i),
		     gpu_of(b, dst, g->tp_i, g->cp_i, g->dp_i)};
	char nm[48];
	snprintf(nm, sizeof(nm), "p2p-%c s%d->s%d t%d c%d d%d", fwd ? 'f' : 'b', src, dst, g->tp_i,
		 g->cp_i, g->dp_i);
	return comm_get(b->p, nm, gs, 2);
}

static int gemm_get(pp_rplan *p, const pp_op *o, pp_err *err, int *out)
{
	double v[4] = {o->m, o->n, o->k, o->batch};
	int64_t iv[4];
	for (int i = 0; i < 4; i++) {
		iv[i] = llround(v[i]);
		if (iv[i] < 1 || fabs(v[i] - (double)iv[i]) > 1e-6)
			return pp_errf(err, PP_EINPUT, "GEMM %s has a non-integer shape %gx%gx%g (batch %g): "
				       "the layout does not divide the model evenly", o->name, o->m,
				       o->n, o->k, o->batch);
	}
	for (int i = 0; i < p->ngemms; i++) {
		const pp_rgemm *r = &p->gemms[i];
		if (r->dtype == o->dtype && r->m == iv[0] && r->n == iv[1] && r->k == iv[2] &&
		    r->batch == iv[3]) {
			*out = i;
			return 0;
		}
	}
	p->gemms = pp_xrealloc(p->gemms, sizeof(pp_rgemm) * (size_t)(p->ngemms + 1));
	pp_rgemm *r = &p->gemms[p->ngemms];
	r->dtype = o->dtype;
	r->m = iv[0];
	r->n = iv[1];
	r->k = iv[2];
	r->batch = iv[3];
	r->sim_s = o->time_s;
	snprintf(r->name, sizeof(r->name), "%s", o->name);
	*out = p->ngemms++;
	return 0;
}

/* ---- op lists ---- */

static int ev_new(pp_rgpu *g)
{
	return g->nevents++;
}

static void rec(pp_rgpu *g, int stream, int ev)
{
	pp_rinstr *r = push(g);
	r->kind = PP_RI_RECORD;
	r->stream = (uint8_t)stream;
	r->arg = ev;
	g->uses[stream] = true;
}

static void wait_ev(pp_rgpu *g, int stream, int ev)
{
	pp_rinstr *r = push(g);
	r->kind = PP_RI_WAIT;
	r->stream = (uint8_t)stream;
	r->arg = ev;
	g->uses[stream] = true;
}

/* ---- op lists ---- */

static int emit_op(bld *b, pp_rgpu *g, int oi, int stream, int task, int cat)
{
	const pp_op *o = &b->w.ops[oi];
	pp_rinstr *r;
	int gi = 0, rc;
	switch (o->kind) {
	case PP_OP_GEMM:
		if ((rc = gemm_get(b->p, o, b->err, &gi)))
			return rc;
		r = push(g);
		r->kind = PP_RI_GEMM;
		r->arg = gi;
		break;
	case PP_OP_MEM:
		r = push(g);
		r->kind = PP_RI_MEM;
		r->bytes = o->bytes;
		break;
	case PP_OP_COMM:
		r = push(g);
		r->kind = PP_RI_COLL;
		r->coll = (int16_t)o->coll;
		r->comm = (int16_t)(o->ep ? expert_comm(b, g, o->gkind, false) : tp_comm(b, g));
		r->bytes = o->bytes;
		r->elem_bytes = (uint8_t)b->w.act_bytes;
		break;
	default:
		return pp_errf(b->err, PP_EINPUT, "op %s: fused attention is not replayed; set "
			       "training.use_flash_attn to false (the attention core then runs as "
			       "batched GEMMs plus softmax/dropout kernels)", o->name);
	}
	r->stream = (uint8_t)stream;
	r->op = oi;
	r->task = task;
	r->cat = (uint8_t)cat;
	r->sim_s = o->time_s;
	g->uses[stream] = true;
	return 0;
}

/* The ops of one pass (part, phase) in order, with each overlapped TP
 * collective on the TP stream around the GEMM it hides behind (the
 * workload names it: pp_op.overlap_op). act: of a backward split as the
 * zero-bubble schedules split it, PP_ACT_I leaves out the weight-gradient
 * GEMMs (pp_op_wgrad) and PP_ACT_W keeps only them (stepcost.c's I and W
 * passes); PP_ACT_WHOLE every op. A collective whose GEMM is left out
 * runs blocking. */
static int emit_pass(bld *b, pp_rgpu *g, pp_part part, int lkind, pp_phase ph, int act, int task,
		     int cat)
{
	const pp_workload *w = &b->w;
	int n = 0, rc = 0;
	int *idx = pp_xmalloc(sizeof(int) * (size_t)(w->nops + 1));
	int *at = pp_xmalloc(sizeof(int) * (size_t)(w->nops + 1));     /* op -> position */
	int *partner = pp_xmalloc(sizeof(int) * (size_t)(w->nops + 1)); /* position -> position */
	for (int i = 0; i < w->nops; i++) {
		at[i] = -1;
		bool wg = pp_op_wgrad(&w->ops[i]);
		bool keep = act == PP_ACT_WHOLE || (act == PP_ACT_W) == wg;
		if (act == PP_ACT_W && w->ops[i].kind == PP_OP_COMM)
			keep = false;
		if (keep && w->ops[i].part == part && w->ops[i].phase == ph &&
		    (part != PP_PART_LAYER || w->ops[i].layer_kind == lkind)) {
			at[i] = n;
			idx[n++] = i;
		}
	}
	for (int i = 0; i < n; i++) {
		const pp_op *o = &w->ops[idx[i]];
		partner[i] = o->kind == PP_OP_COMM && o->overlap_op >= 0 ? at[o->overlap_op] : -1;
	}
	for (int i = 0; i < n && !rc; i++) {
		const pp_op *o = &w->ops[idx[i]];
		if (o->kind == PP_OP_COMM && partner[i] >= 0)
			continue;
		int att = 0;
		for (int k = 0; k < n; k++)
			att += partner[k] == i;
		if (!att) {
			rc = emit_op(b, g, idx[i], PP_RS_COMPUTE, task, cat);
			continue;
		}
		int e1 = ev_new(g), e2 = ev_new(g);
		rec(g, PP_RS_COMPUTE, e1);
		wait_ev(g, PP_RS_TP, e1);
		for (int k = 0; k < n && !rc; k++)
			if (partner[k] == i)
				rc = emit_op(b, g, idx[k], PP_RS_TP, task, cat);
		rec(g, PP_RS_TP, e2);
		if (!rc)
			rc = emit_op(b, g, idx[i], PP_RS_COMPUTE, task, cat);
		wait_ev(g, PP_RS_COMPUTE, e2);
	}
	free(idx);
	free(at);
	free(partner);
	return rc;
}

/* ---- graph -> units ---- */

static void preds(bld *b)
{
	int n = pp_des_ntasks(b->d), ne = pp_des_nedges(b->d);
	b->pred_off = pp_xcalloc((size_t)n + 1, sizeof(int));
	b->pred = pp_xmalloc(sizeof(int) * (size_t)(ne ? ne : 1));
	for (int e = 0; e < ne; e++) {
		int pr, su;
		pp_des_edge(b->d, e, &pr, &su);
		b->pred_off[su + 1]++;
	}
	for (int i = 0; i < n; i++)
		b->pred_off[i + 1] += b->pred_off[i];
	int *fill = pp_xmalloc(sizeof(int) * (size_t)(n + 1));
	memcpy(fill, b->pred_off, sizeof(int) * (size_t)(n + 1));
	for (int e = 0; e < ne; e++) {
		int pr, su;
		pp_des_edge(b->d, e, &pr, &su);
		b->pred[fill[su]++] = pr;
	}
	free(fill);
}

static int rank_of(const pp_des *d, int t)
{
	return pp_des_resource_rank(d, pp_des_task_resource(d, t));
}

/* The stage each stage-to-stage send goes to: the stage of the unit that
 * consumes it, which the event graph has as the send's successor on
 * another stage. The program placed that unit (program.c send(),
 * pp_pipe_stage_of): rank + 1 or rank - 1 in a line, but in a V (ZB-V,
 * DualPipeV) the second chunk's forwards flow from the last rank back to
 * the first, and under DualPipe the reverse direction's micro-batches
 * flow down, so neither the category nor the link says where it goes. */
static int send_dsts(bld *b)
{
	int n = pp_des_ntasks(b->d), ne = pp_des_nedges(b->d);
	b->dst = pp_xmalloc(sizeof(int) * (size_t)(n + 1));
	for (int t = 0; t < n; t++)
		b->dst[t] = -1;
	for (int e = 0; e < ne; e++) {
		int pr, su;
		pp_des_edge(b->d, e, &pr, &su);
		if (pp_des_task_tag(b->d, pr).group != PP_GRP_PP)
			continue;
		int r = rank_of(b->d, su);
		if (r == rank_of(b->d, pr))
			continue; /* the sender's own next task (a blocking send) */
		if (b->dst[pr] >= 0 && b->dst[pr] != r)
			return pp_errf(b->err, PP_EINTERNAL, "replay plan: send task %d feeds stages "
				       "%d and %d", pr, b->dst[pr], r);
		b->dst[pr] = r;
	}
	for (int t = 0; t < n; t++)
		if (pp_des_task_tag(b->d, t).group == PP_GRP_PP && b->dst[t] < 0)
			return pp_errf(b->err, PP_EINTERNAL, "replay plan: send task %d has no "
				       "consumer on another stage", t);
	return 0;
}

static int unit_cmp(const void *a, const void *bb)
{
	const unit *x = a, *y = bb;
	if (x->k0 != y->k0)
		return x->k0 < y->k0 ? -1 : 1;
	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	if (x->ktask != y->ktask)
		return x->ktask < y->ktask ? -1 : 1;
	/* a late receive goes just before its consumer */
	if ((x->kind == U_RECV) != (y->kind == U_RECV))
		return x->kind == U_RECV ? -1 : 1;
	return x->task < y->task ? -1 : x->task > y->task;
}

/* The stream of send task t from stage src (or of its receive): by
 * kind, and whether it flows with its kind's line (activations to the
 * next rank, gradients to the previous, around the ring) or against it. */
static int p2p_stream(const bld *b, int t, int src, bool fwd, bool recv)
{
	bool rev = b->dst[t] != (fwd ? (src + 1) % b->P : (src + b->P - 1) % b->P);
	if (recv)
		return rev ? (fwd ? PP_RS_RECV_F_REV : PP_RS_RECV_B_REV) : fwd ? PP_RS_RECV_F : PP_RS_RECV_B;
	return rev ? (fwd ? PP_RS_SEND_F_REV : PP_RS_SEND_B_REV) : fwd ? PP_RS_SEND_F : PP_RS_SEND_B;
}

/* The units of GPU g: the tasks of its stage (what each is follows from
 * its tag's group, its resource's stage and the category) and the
 * receives of what other stages send it. */
static void collect_units(bld *b, const pp_rgpu *g, gunits *G)
{
	pp_des *d = b->d;
	int n = pp_des_ntasks(d), st = g->stage, gid = (int)(g - b->p->gpu);
	G->u = pp_xmalloc(sizeof(unit) * (size_t)(2 * n + 1));
	G->own = pp_xmalloc(sizeof(int) * (size_t)(n + 1));
	G->recv = pp_xmalloc(sizeof(int) * (size_t)(n + 1));
	for (int t = 0; t < n; t++) {
		G->own[t] = G->recv[t] = -1;
		pp_des_tag tg = pp_des_task_tag(d, t);
		int rank = rank_of(d, t); /* issuing stage */
		bool fwd = tg.cat == PP_CAT_P2P_FWD;
		unit x = {pp_des_start(d, t), pp_des_end(d, t), t, t, -1, 0, PP_RS_COMPUTE, -1, false, 0, 0};
		bool mine = rank == st;
		switch (tg.group) {
		case PP_GRP_NONE: x.kind = U_FWD_BWD; break;
		/* compute slowed by a collective beside it: nothing to issue */
		case PP_GRP_SLOWDOWN: x.kind = U_NONE; break;
		case PP_GRP_LOCAL: x.kind = U_OPT; break;
		case PP_GRP_DP:
		case PP_GRP_EDP:
			x.kind = U_DP;
			x.stream = PP_RS_DP;
			break;
		case PP_GRP_PP:
			x.kind = b->blocking ? U_SEND_BLOCKING : U_SEND;
			x.stream = b->blocking ? PP_RS_COMPUTE : p2p_stream(b, t, rank, fwd, false);
			break;
		case PP_GRP_EMBED:
			mine = st == 0 || st == b->P - 1;
			x.kind = U_EMBED;
			x.stream = PP_RS_EMBED;
			break;
		default: /* data loading: no GPU work */
			mine = false;
			b->p->skipped_tasks += gid == 0;
			break;
		}
		if (mine) {
			G->own[t] = G->n;
			G->u[G->n++] = x;
		}
		if (tg.group == PP_GRP_PP && b->dst[t] == st) {
			x.kind = U_RECV;
			x.stream = p2p_stream(b, t, rank, fwd, true);
			G->recv[t] = G->n;
			G->u[G->n++] = x;
		}
	}
}

/* Dependencies between this GPU's units on different streams; remote ones
 * are carried by the communication itself. */
static void link_units(bld *b, gunits *G)
{
	for (int i = 0; i < G->n; i++) {
		unit *x = &G->u[i];
		x->dep0 = G->ndeps;
		if (x->kind == U_RECV)
			continue;
		int t = x->task;
		for (int k = b->pred_off[t]; k < b->pred_off[t + 1]; k++) {
			int pr = b->pred[k], du = G->own[pr] >= 0 ? G->own[pr] : G->recv[pr];
			if (du < 0 || G->u[du].stream == x->stream)
				continue;
			if (G->ndeps == G->capdeps) {
				G->capdeps = G->capdeps ? 2 * G->capdeps : 256;
				G->deps = pp_xrealloc(G->deps, sizeof(int) * (size_t)G->capdeps);
			}
			G->deps[G->ndeps++] = du;
			G->u[du].need_ev = true;
		}
		x->ndep = G->ndeps - x->dep0;
	}
	/* a receive is posted when its first consumer's stream gets there (as
	 * frameworks do: the communication stream waits for the compute
	 * stream), not at the sender's time: a posted receive kernel occupies
	 * SMs while it waits */
	if (b->o.early_recv)
		return;
	for (int i = 0; i < G->n; i++) {
		const unit *x = &G->u[i];
		for (int k = 0; k < x->ndep; k++) {
			unit *r = &G->u[G->deps[x->dep0 + k]];
			if (r->kind != U_RECV)
				continue;
			bool first = r->late_stream < 0 || x->k0 < r->k0 ||
				     (x->k0 == r->k0 && (x->k1 < r->k1 ||
							 (x->k1 == r->k1 && x->task < r->ktask)));
			if (first) {
				r->k0 = x->k0;
				r->k1 = x->k1;
				r->ktask = x->task;
				r->late_stream = x->stream;
			}
		}
	}
}

/* The instruction of unit x (none for a pass or a slowdown; a pass's ops
 * are emitted here too). */
static int emit_unit(bld *b, pp_rgpu *g, unit *x)
{
	pp_des *d = b->d;
	int rc = 0, st = g->stage;
	pp_des_tag tg = pp_des_task_tag(d, x->task);
	int rank = rank_of(d, x->task);
	bool fwd = tg.cat == PP_CAT_P2P_FWD;
	pp_rinstr *r = NULL;
	switch (x->kind) {
	case U_FWD_BWD: {
		pp_part part = tg.layer == PP_LAYER_EMBED ? PP_PART_EMBED
			       : tg.layer == PP_LAYER_HEAD ? PP_PART_HEAD : PP_PART_LAYER;
		if (tg.cat == PP_CAT_FWD)
			return emit_pass(b, g, part, tg.lkind, PP_PH_FWD, PP_ACT_WHOLE, x->task, tg.cat);
		/* a zero-bubble schedule's split backward: the layers' input-
		 * gradient part (with the recompute) and weight-gradient part
		 * apart; the head's and the embedding's backward run whole in the
		 * input-gradient part (program.c unit_bwd) */
		int act = part == PP_PART_LAYER ? (tg.act & 3) : PP_ACT_WHOLE;
		if (part == PP_PART_LAYER && act != PP_ACT_W)
			rc = emit_pass(b, g, part, tg.lkind, PP_PH_RECOMPUTE, PP_ACT_WHOLE, x->task,
				       tg.cat);
		if (!rc)
			rc = emit_pass(b, g, part, tg.lkind, PP_PH_BWD, act, x->task, tg.cat);
		return rc;
	}
	case U_NONE:
		return 0;
	case U_OPT:
		r = push(g);
		r->kind = PP_RI_MEM;
		break;
	case U_DP:
		if (b->o.no_dp)
			return 0;
		r = push(g);
		r->kind = PP_RI_COLL;
		r->coll = tg.op;
		r->comm = (int16_t)(tg.group == PP_GRP_EDP ? expert_comm(b, g, PP_GK_EP, true)
							   : dp_comm(b, g));
		break;
	case U_EMBED:
		r = push(g);
		r->kind = PP_RI_COLL;
		r->coll = tg.op;
		r->comm = (int16_t)embed_comm(b, g);
		break;
	case U_SEND_BLOCKING:
	case U_SEND:
		r = push(g);
		r->kind = PP_RI_SEND;
		r->comm = (int16_t)p2p_comm(b, g, st, b->dst[x->task], fwd);
		r->arg = 1;
		break;
	case U_RECV:
		if (x->late_stream >= 0) {
			int e = ev_new(g);
			rec(g, x->late_stream, e);
			wait_ev(g, x->stream, e);
		}
		r = push(g);
		r->kind = PP_RI_RECV;
		r->comm = (int16_t)p2p_comm(b, g, rank, st, fwd);
		r->arg = 0;
		break;
	}
	/* the payload the graph's task carries */
	r->bytes = tg.bytes;
	r->elem_bytes = tg.elem_bytes;
	r->stream = (uint8_t)x->stream;
	r->task = x->task;
	r->cat = tg.cat;
	r->sim_s = pp_des_dur(d, x->task) * 1e-9;
	g->uses[x->stream] = true;
	return 0;
}

static int build_gpu(bld *b, pp_rgpu *g)
{
	int rc = 0;
	gunits G;
	memset(&G, 0, sizeof(G));
	collect_units(b, g, &G);
	link_units(b, &G);
	/* issue order; deps[] hold unit indices before sorting: map them */
	int nu = G.n;
	int *order = pp_xmalloc(sizeof(int) * (size_t)(nu + 1));
	int *pos = pp_xmalloc(sizeof(int) * (size_t)(nu + 1));
	unit *tmp = pp_xmalloc(sizeof(unit) * (size_t)(nu + 1));
	memcpy(tmp, G.u, sizeof(unit) * (size_t)nu);
	for (int i = 0; i < nu; i++)
		tmp[i].ev = i; /* original index, carried through the sort */
	qsort(tmp, (size_t)nu, sizeof(unit), unit_cmp);
	for (int i = 0; i < nu; i++) {
		order[i] = tmp[i].ev;
		pos[tmp[i].ev] = i;
	}
	free(tmp);
	for (int oi = 0; oi < nu && !rc; oi++) {
		unit *x = &G.u[order[oi]];
		for (int k = 0; k < x->ndep && !rc; k++) {
			const unit *dd = &G.u[G.deps[x->dep0 + k]];
			if (pos[G.deps[x->dep0 + k]] > oi || dd->ev < 0)
				rc = pp_errf(b->err, PP_EINTERNAL, "replay plan: task %d waits for task %d "
					     "issued after it", x->task, dd->task);
			else
				wait_ev(g, x->stream, dd->ev);
		}
		if (!rc)
			rc = emit_unit(b, g, x);
		if (x->need_ev) {
			x->ev = ev_new(g);
			rec(g, x->stream, x->ev);
		}
	}
	free(order);
	free(pos);
	free(G.deps);
	free(G.own);
	free(G.recv);
	free(G.u);
	return rc;
}

int pp_rplan_build(pp_rplan *p, const pp_scenario *s, const pp_hw *hw, const pp_rplan_opts *o,
		   pp_err *err)
{
	int rc = 0;
	memset(p, 0, sizeof(*p));
	const pp_parallel *par = &s->parallel;
	long ng = (long)par->tp * par->cp * par->dp * par->pp;
	if (s->training.use_flash_attn)
		return pp_errf(err, PP_EINPUT, "%s: training.use_flash_attn is true: the replay has no "
			       "fused attention kernel; set it to false (the attention core then runs as "
			       "batched GEMMs plus softmax/dropout kernels, and the simulator costs it "
			       "the same way)", s->name);
	if (s->training.stack.host_issue_s > 0 && !s->training.stack.cuda_graphs)
		return pp_errf(err, PP_EINPUT, "%s: framework \"%s\" issues kernels from Python "
			       "(host_issue_us), which the replay does not: set training.framework "
			       "\"podplan-replay\" (the op list the replay runs) or host_issue_us 0",
			       s->name, s->training.stack.framework);
	if (par->cp > 1)
		return pp_errf(err, PP_EINPUT, "%s: context parallelism is not replayed "
			       "(parallel.context_parallel_size must be 1)", s->name);
	if (ng > PP_RP_MAX_GPUS || ng != s->cluster.num_gpus)
		return pp_errf(err, PP_EINPUT, "%s: the layout needs %ld GPUs, the cluster has %d (the "
			       "replay runs at most %d)", s->name, ng, s->cluster.num_gpus,
			       PP_RP_MAX_GPUS);
	bld b;
	memset(&b, 0, sizeof(b));
	b.p = p;
	b.s = s;
	b.hw = hw;
	b.err = err;
	if (o)
		b.o = *o;
	b.P = par->pp;
	b.t = par->tp;
	b.cp = par->cp;
	b.dp = par->dp;
	b.blocking = !s->training.overlap_p2p_comm && b.P > 1;
	pp_workload_build(&b.w, s, hw);
	b.d = pp_des_new();
	pp_stage_busy *busy = pp_xcalloc((size_t)b.P, sizeof(pp_stage_busy));
	pp_sched_opts so = {false, false, false};
	pp_evgraph_build(b.d, s, hw, &b.w, &so, busy);
	if ((rc = pp_des_run(b.d, err)))
		goto out;
	p->des_step_s = pp_des_makespan(b.d) * 1e-9;
	p->graph_tasks = pp_des_ntasks(b.d);
	p->graph_edges = pp_des_nedges(b.d);
	preds(&b);
	if ((rc = send_dsts(&b)))
		goto out;
	p->ngpus = (int)ng;
	p->gpu = pp_xcalloc((size_t)ng, sizeof(pp_rgpu));
	for (int gi = 0; gi < p->ngpus && !rc; gi++) {
		pp_rgpu *g = &p->gpu[gi];
		g->tp_i = gi % b.t;
		g->cp_i = (gi / b.t) % b.cp;
		g->dp_i = (gi / (b.t * b.cp)) % b.dp;
		g->stage = gi / (b.t * b.cp * b.dp);
		rc = build_gpu(&b, g);
	}
out:
	free(busy);
	free(b.pred_off);
	free(b.pred);
	free(b.dst);
	pp_des_free(b.d);
	pp_workload_release(&b.w);
	if (rc)
		pp_rplan_release(p);
	return rc;
}

void pp_rplan_release(pp_rplan *p)
{
	for (int i = 0; p->gpu && i < p->ngpus; i++)
		free(p->gpu[i].ins);
	free(p->gpu);
	free(p->comms);
	free(p->gemms);
	memset(p, 0, sizeof(*p));
}
