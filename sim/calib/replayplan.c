/* replayplan.c - see replayplan.h. */
#include "calib/replayplan.h"
#include "engine/des.h"
#include "engine/memory.h"
#include "engine/schedule.h"
#include "core/util.h"
#include "engine/workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_rs_names[PP_RS_COUNT] = {"compute", "tp", "dp", "embed",
					      "send-f", "send-b", "recv-f", "recv-b"};

/* What a graph resource is, from the names schedule.c gives them. */
enum { RES_COMPUTE, RES_DP, RES_LINK, RES_EMBED, RES_OTHER };
typedef struct rclass {
	int kind;
	int stage;     /* COMPUTE, DP */
	int src, dst;  /* LINK */
} rclass;

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
	rclass *rc;
	int *pred_off, *pred;   /* CSR of predecessors per task */
	int T, P, t, cp, dp;
	pp_rplan_opts o;
	pp_err *err;
} bld;

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

static int comm_rank(const pp_rplan *p, int comm, int gpu)
{
	for (int i = 0; i < p->comms[comm].n; i++)
		if (p->comms[comm].gpus[i] == gpu)
			return i;
	return -1;
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

double pp_rplan_invert_coll(const pp_hw *hw, pp_coll op, pp_group g, double seconds)
{
	/* smallest size whose modelled time reaches seconds (to half a
	 * nanosecond: the graph holds int64 ns); the model grows with size */
	double lo = 1, hi = 1e14, want = seconds - 0.5e-9;
	if (pp_coll_time(hw, op, lo, g) >= want)
		return lo;
	for (int i = 0; i < 200 && hi - lo > 0.5; i++) {
		double mid = 0.5 * (lo + hi);
		if (pp_coll_time(hw, op, mid, g) >= want)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
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

static int elem_of(const bld *b)
{
	pp_dtype p = b->s->training.precision;
	return p == PP_DT_FP32 || p == PP_DT_TF32 ? 4 : 2;
}

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
		r->comm = (int16_t)tp_comm(b, g);
		r->bytes = o->bytes;
		r->elem_bytes = (uint8_t)elem_of(b);
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
 * collective on the TP stream around the GEMM it hides behind. */
static int emit_pass(bld *b, pp_rgpu *g, pp_part part, pp_phase ph, int task, int cat)
{
	const pp_workload *w = &b->w;
	int n = 0, rc = 0;
	int *idx = pp_xmalloc(sizeof(int) * (size_t)(w->nops + 1));
	int *partner = pp_xmalloc(sizeof(int) * (size_t)(w->nops + 1));
	for (int i = 0; i < w->nops; i++)
		if (w->ops[i].part == part && w->ops[i].phase == ph)
			idx[n++] = i;
	for (int i = 0; i < n; i++) {
		const pp_op *o = &w->ops[idx[i]];
		partner[i] = -1;
		if (o->kind != PP_OP_COMM || o->overlap_s <= 0)
			continue;
		/* the GEMM whose duration the model hid it behind, else the
		 * nearest GEMM before it */
		int near = -1;
		for (int j = i - 1; j >= 0 && j >= i - 4; j--) {
			const pp_op *q = &w->ops[idx[j]];
			if (q->kind != PP_OP_GEMM)
				continue;
			if (near < 0)
				near = j;
			if (q->time_s == o->overlap_s) {
				partner[i] = j;
				break;
			}
		}
		if (partner[i] < 0)
			partner[i] = near;
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
	free(partner);
	return rc;
}

/* ---- graph -> units ---- */

static void classify(bld *b)
{
	int nr = pp_des_nresources(b->d);
	b->rc = pp_xcalloc((size_t)nr, sizeof(rclass));
	for (int r = 0; r < nr; r++) {
		const char *nm = pp_des_resource_name(b->d, r);
		rclass *c = &b->rc[r];
		int x, y;
		char tail[32];
		c->kind = RES_OTHER;
		if (sscanf(nm, "stage %d %31s", &x, tail) == 2) {
			c->stage = x;
			c->kind = !strcmp(tail, "compute") ? RES_COMPUTE : RES_DP;
		} else if (sscanf(nm, "link %d->%d", &x, &y) == 2) {
			c->kind = RES_LINK;
			c->src = x;
			c->dst = y;
		} else if (!strcmp(nm, "embedding group")) {
			c->kind = RES_EMBED;
		}
	}
}

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

static double stage_params(const bld *b, int st)
{
	const pp_scenario *s = b->s;
	double params = 0;
	for (int c = 0; c < s->parallel.vpp; c++)
		params += pp_stage_layers(s, c * b->P + st) * b->w.params_layer;
	if (st == 0)
		params += b->w.params_embed;
	if (st == b->P - 1)
		params += b->w.params_head;
	return s->parallel.zero_stage >= 1 ? params / b->w.dp.n : params;
}

static int build_gpu(bld *b, pp_rgpu *g)
{
	pp_des *d = b->d;
	int n = pp_des_ntasks(d), rc = 0, st = g->stage, gid = (int)(g - b->p->gpu);
	unit *u = pp_xmalloc(sizeof(unit) * (size_t)(2 * n + 1));
	int nu = 0;
	int *own = pp_xmalloc(sizeof(int) * (size_t)n), *recv = pp_xmalloc(sizeof(int) * (size_t)n);
	int *deps = NULL, ndeps = 0, capdeps = 0;
	const pp_parallel *par = &b->s->parallel;
	for (int t = 0; t < n; t++) {
		own[t] = recv[t] = -1;
		const rclass *c = &b->rc[pp_des_task_resource(d, t)];
		pp_des_tag tg = pp_des_task_tag(d, t);
		unit x = {pp_des_start(d, t), pp_des_end(d, t), t, t, -1, 0, 0, -1, false, 0, 0};
		bool mine = false, to_me = false;
		switch (c->kind) {
		case RES_COMPUTE:
			if (c->stage == st) {
				mine = true;
				x.stream = PP_RS_COMPUTE;
				/* gradient-reduce / parameter-gather tasks on the compute
				 * stream are the modelled slowdown of compute under a
				 * concurrent collective: nothing to issue */
				x.kind = tg.cat == PP_CAT_FWD || tg.cat == PP_CAT_BWD ? U_FWD_BWD
					 : tg.cat == PP_CAT_OPTIMIZER                ? U_OPT
					 : tg.cat == PP_CAT_P2P_FWD || tg.cat == PP_CAT_P2P_BWD ? U_SEND_BLOCKING
												   : U_NONE;
			} else if (tg.cat == PP_CAT_P2P_FWD || tg.cat == PP_CAT_P2P_BWD) {
				int dst = tg.cat == PP_CAT_P2P_FWD ? (c->stage + 1) % b->P
								   : (c->stage + b->P - 1) % b->P;
				to_me = dst == st;
			}
			break;
		case RES_DP:
			if (c->stage == st) {
				mine = true;
				x.stream = PP_RS_DP;
				x.kind = U_DP;
			}
			break;
		case RES_LINK:
			if (c->src == st) {
				mine = true;
				x.kind = U_SEND;
				x.stream = tg.cat == PP_CAT_P2P_FWD ? PP_RS_SEND_F : PP_RS_SEND_B;
			}
			to_me = c->dst == st;
			break;
		case RES_EMBED:
			if (st == 0 || st == b->P - 1) {
				mine = true;
				x.kind = U_EMBED;
				x.stream = PP_RS_EMBED;
			}
			break;
		default:
			b->p->skipped_tasks += gid == 0;
			break;
		}
		if (mine) {
			own[t] = nu;
			u[nu++] = x;
		}
		if (to_me) {
			x.kind = U_RECV;
			x.stream = tg.cat == PP_CAT_P2P_FWD ? PP_RS_RECV_F : PP_RS_RECV_B;
			recv[t] = nu;
			u[nu++] = x;
		}
	}
	/* dependencies between this GPU's units; remote ones are carried by
	 * the communication itself */
	for (int i = 0; i < nu; i++) {
		u[i].dep0 = ndeps;
		if (u[i].kind == U_RECV)
			continue;
		int t = u[i].task;
		for (int k = b->pred_off[t]; k < b->pred_off[t + 1]; k++) {
			int pr = b->pred[k], du = own[pr] >= 0 ? own[pr] : recv[pr];
			if (du < 0 || u[du].stream == u[i].stream)
				continue;
			if (ndeps == capdeps) {
				capdeps = capdeps ? 2 * capdeps : 256;
				deps = pp_xrealloc(deps, sizeof(int) * (size_t)capdeps);
			}
			deps[ndeps++] = du;
			u[du].need_ev = true;
		}
		u[i].ndep = ndeps - u[i].dep0;
	}
	/* a receive is posted when its first consumer's stream gets there (as
	 * frameworks do: the communication stream waits for the compute
	 * stream), not at the sender's time: a posted receive kernel occupies
	 * SMs while it waits */
	if (!b->o.early_recv) {
		for (int i = 0; i < nu; i++) {
			for (int k = 0; k < u[i].ndep; k++) {
				unit *r = &u[deps[u[i].dep0 + k]];
				if (r->kind != U_RECV)
					continue;
				bool first = r->late_stream < 0 || u[i].k0 < r->k0 ||
					     (u[i].k0 == r->k0 && (u[i].k1 < r->k1 ||
								   (u[i].k1 == r->k1 && u[i].task < r->ktask)));
				if (first) {
					r->k0 = u[i].k0;
					r->k1 = u[i].k1;
					r->ktask = u[i].task;
					r->late_stream = u[i].stream;
				}
			}
		}
	}
	/* issue order; deps[] hold unit indices before sorting: map them */
	int *order = pp_xmalloc(sizeof(int) * (size_t)(nu + 1));
	int *pos = pp_xmalloc(sizeof(int) * (size_t)(nu + 1));
	{
		unit *tmp = pp_xmalloc(sizeof(unit) * (size_t)(nu + 1));
		memcpy(tmp, u, sizeof(unit) * (size_t)nu);
		for (int i = 0; i < nu; i++)
			tmp[i].ev = i; /* original index, carried through the sort */
		qsort(tmp, (size_t)nu, sizeof(unit), unit_cmp);
		for (int i = 0; i < nu; i++) {
			order[i] = tmp[i].ev;
			pos[tmp[i].ev] = i;
		}
		free(tmp);
	}
	double p2p_bytes = b->w.p2p_bytes;
	for (int oi = 0; oi < nu && !rc; oi++) {
		unit *x = &u[order[oi]];
		for (int k = 0; k < x->ndep; k++) {
			unit *dd = &u[deps[x->dep0 + k]];
			if (pos[deps[x->dep0 + k]] > oi || dd->ev < 0) {
				rc = pp_errf(b->err, PP_EINTERNAL, "replay plan: task %d waits for task %d "
					     "issued after it", x->task, dd->task);
				break;
			}
			wait_ev(g, x->stream, dd->ev);
		}
		pp_des_tag tg = pp_des_task_tag(d, x->task);
		double dur = pp_des_dur(d, x->task) * 1e-9;
		pp_rinstr *r = NULL;
		const rclass *c = &b->rc[pp_des_task_resource(d, x->task)];
		switch (x->kind) {
		case U_FWD_BWD: {
			pp_part part = tg.layer == PP_LAYER_EMBED ? PP_PART_EMBED
				       : tg.layer == PP_LAYER_HEAD ? PP_PART_HEAD : PP_PART_LAYER;
			if (tg.cat == PP_CAT_FWD) {
				rc = emit_pass(b, g, part, PP_PH_FWD, x->task, tg.cat);
			} else {
				if (part == PP_PART_LAYER)
					rc = emit_pass(b, g, part, PP_PH_RECOMPUTE, x->task, tg.cat);
				if (!rc)
					rc = emit_pass(b, g, part, PP_PH_BWD, x->task, tg.cat);
			}
			break;
		}
		case U_OPT:
			r = push(g);
			r->kind = PP_RI_MEM;
			r->bytes = stage_params(b, st) * (b->w.optimizer_bytes_per_param + 4.0);
			break;
		case U_NONE:
			break;
		case U_DP: {
			if (b->o.no_dp)
				break;
			bool gather = tg.cat == PP_CAT_PARAM_GATHER;
			pp_coll op = gather ? PP_COLL_ALL_GATHER
				     : par->zero_stage == 0 ? PP_COLL_ALL_REDUCE : PP_COLL_REDUCE_SCATTER;
			r = push(g);
			r->kind = PP_RI_COLL;
			r->coll = (int16_t)op;
			r->comm = (int16_t)dp_comm(b, g);
			r->bytes = pp_rplan_invert_coll(b->hw, op, b->w.dp, dur);
			r->elem_bytes = (uint8_t)(gather ? b->w.param_gather_bytes_per_param
						  : b->w.grad_comm_bytes_per_param);
			break;
		}
		case U_EMBED:
			r = push(g);
			r->kind = PP_RI_COLL;
			r->coll = PP_COLL_ALL_REDUCE;
			r->comm = (int16_t)embed_comm(b, g);
			r->bytes = b->w.params_embed * 4.0;
			r->elem_bytes = 4;
			break;
		case U_SEND_BLOCKING:
		case U_SEND: {
			bool fwd = tg.cat == PP_CAT_P2P_FWD;
			int dst = x->kind == U_SEND ? c->dst : fwd ? (st + 1) % b->P : (st + b->P - 1) % b->P;
			r = push(g);
			r->kind = PP_RI_SEND;
			r->comm = (int16_t)p2p_comm(b, g, st, dst, fwd);
			r->arg = 1;
			r->bytes = p2p_bytes;
			r->elem_bytes = (uint8_t)elem_of(b);
			break;
		}
		case U_RECV: {
			bool fwd = tg.cat == PP_CAT_P2P_FWD;
			int src = c->kind == RES_LINK ? c->src : c->stage;
			if (x->late_stream >= 0) {
				int e = ev_new(g);
				rec(g, x->late_stream, e);
				wait_ev(g, x->stream, e);
			}
			r = push(g);
			r->kind = PP_RI_RECV;
			r->comm = (int16_t)p2p_comm(b, g, src, st, fwd);
			r->arg = 0;
			r->bytes = p2p_bytes;
			r->elem_bytes = (uint8_t)elem_of(b);
			break;
		}
		}
		if (r) {
			r->stream = (uint8_t)x->stream;
			r->task = x->task;
			r->cat = tg.cat;
			r->sim_s = dur;
			g->uses[x->stream] = true;
		}
		if (x->need_ev) {
			x->ev = ev_new(g);
			rec(g, x->stream, x->ev);
		}
	}
	free(order);
	free(pos);
	free(deps);
	free(own);
	free(recv);
	free(u);
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
	pp_workload_build(&b.w, s, hw);
	b.d = pp_des_new();
	pp_stage_busy *busy = pp_xcalloc((size_t)b.P, sizeof(pp_stage_busy));
	pp_sched_opts so = {false, false, false};
	pp_schedule_build(b.d, s, hw, &b.w, &so, busy);
	if ((rc = pp_des_run(b.d, err)))
		goto out;
	p->des_step_s = pp_des_makespan(b.d) * 1e-9;
	p->graph_tasks = pp_des_ntasks(b.d);
	p->graph_edges = pp_des_nedges(b.d);
	classify(&b);
	preds(&b);
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
	free(b.rc);
	free(b.pred_off);
	free(b.pred);
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

/* ---- the plan executed on paper ---- */

typedef struct seqref {
	int gpu, ins;
} seqref;

int pp_rplan_simulate(const pp_rplan *p, double *step_s, pp_err *err)
{
	int rc = 0, G = p->ngpus, C = p->ncomms;
	/* per communicator and member: its calls in issue order */
	seqref **seq = pp_xcalloc((size_t)(C * PP_RP_MAX_GPUS + 1), sizeof(seqref *));
	int *nseq = pp_xcalloc((size_t)(C * PP_RP_MAX_GPUS + 1), sizeof(int));
	int **pos = pp_xcalloc((size_t)G, sizeof(int *));      /* call index of an instruction */
	double **evt = pp_xcalloc((size_t)G, sizeof(double *));
	double **arr = pp_xcalloc((size_t)G, sizeof(double *)); /* arrival at a call, -1 not yet */
	int *sqn = pp_xcalloc((size_t)(G * PP_RS_COUNT), sizeof(int));
	int *head = pp_xcalloc((size_t)(G * PP_RS_COUNT), sizeof(int));
	double *now = pp_xcalloc((size_t)(G * PP_RS_COUNT), sizeof(double));
	int **sqi = pp_xcalloc((size_t)(G * PP_RS_COUNT), sizeof(int *)); /* per stream: its instructions */
	for (int g = 0; g < G; g++) {
		const pp_rgpu *gp = &p->gpu[g];
		pos[g] = pp_xcalloc((size_t)gp->nins + 1, sizeof(int));
		arr[g] = pp_xcalloc((size_t)gp->nins + 1, sizeof(double));
		evt[g] = pp_xcalloc((size_t)gp->nevents + 1, sizeof(double));
		bool *recorded = pp_xcalloc((size_t)gp->nevents + 1, sizeof(bool));
		for (int e = 0; e < gp->nevents; e++)
			evt[g][e] = -1;
		for (int s = 0; s < PP_RS_COUNT; s++)
			sqi[g * PP_RS_COUNT + s] = pp_xmalloc(sizeof(int) * (size_t)(gp->nins + 1));
		for (int i = 0; i < gp->nins && !rc; i++) {
			const pp_rinstr *r = &gp->ins[i];
			int s = r->stream;
			sqi[g * PP_RS_COUNT + s][sqn[g * PP_RS_COUNT + s]++] = i;
			arr[g][i] = -1;
			if (r->kind == PP_RI_RECORD) {
				recorded[r->arg] = true;
			} else if (r->kind == PP_RI_WAIT && !recorded[r->arg]) {
				rc = pp_errf(err, PP_EINTERNAL, "GPU %d instruction %d: waits for event %d "
					     "before any record of it", g, i, r->arg);
			} else if (r->kind == PP_RI_COLL || r->kind == PP_RI_SEND || r->kind == PP_RI_RECV) {
				int cr = comm_rank(p, r->comm, g);
				if (cr < 0) {
					rc = pp_errf(err, PP_EINTERNAL, "GPU %d uses communicator %s it is not "
						     "a member of", g, p->comms[r->comm].name);
					break;
				}
				int key = r->comm * PP_RP_MAX_GPUS + cr;
				seq[key] = pp_xrealloc(seq[key], sizeof(seqref) * (size_t)(nseq[key] + 1));
				pos[g][i] = nseq[key];
				seq[key][nseq[key]++] = (seqref){g, i};
			}
		}
		free(recorded);
	}
	/* NCCL's rule: the same calls in the same order on every member */
	for (int c = 0; c < C && !rc; c++) {
		const pp_rcomm *cm = &p->comms[c];
		int n0 = nseq[c * PP_RP_MAX_GPUS];
		for (int m = 1; m < cm->n && !rc; m++)
			if (nseq[c * PP_RP_MAX_GPUS + m] != n0)
				rc = pp_errf(err, PP_EINTERNAL, "communicator %s: member 0 issues %d calls, "
					     "member %d issues %d", cm->name, n0, m,
					     nseq[c * PP_RP_MAX_GPUS + m]);
		for (int k = 0; k < n0 && !rc; k++) {
			seqref a = seq[c * PP_RP_MAX_GPUS][k];
			const pp_rinstr *ra = &p->gpu[a.gpu].ins[a.ins];
			for (int m = 1; m < cm->n && !rc; m++) {
				seqref bb = seq[c * PP_RP_MAX_GPUS + m][k];
				const pp_rinstr *rb = &p->gpu[bb.gpu].ins[bb.ins];
				bool p2p = ra->kind != PP_RI_COLL;
				bool ok = p2p ? ((ra->kind == PP_RI_SEND && rb->kind == PP_RI_RECV) ||
						 (ra->kind == PP_RI_RECV && rb->kind == PP_RI_SEND))
					      : rb->kind == PP_RI_COLL && ra->coll == rb->coll;
				ok = ok && fabs(ra->bytes - rb->bytes) <= 1e-9 * ra->bytes;
				if (!ok)
					rc = pp_errf(err, PP_EINTERNAL, "communicator %s: call %d differs "
						     "between GPU %d and GPU %d (kind, collective or size)",
						     cm->name, k, a.gpu, bb.gpu);
			}
		}
	}
	/* run: each stream in order until nothing moves */
	bool moved = true;
	while (moved && !rc) {
		moved = false;
		for (int g = 0; g < G; g++) {
			const pp_rgpu *gp = &p->gpu[g];
			for (int s = 0; s < PP_RS_COUNT; s++) {
				int q = g * PP_RS_COUNT + s;
				while (head[q] < sqn[q]) {
					int i = sqi[q][head[q]];
					const pp_rinstr *r = &gp->ins[i];
					if (r->kind == PP_RI_GEMM || r->kind == PP_RI_MEM) {
						now[q] += r->sim_s;
					} else if (r->kind == PP_RI_RECORD) {
						evt[g][r->arg] = now[q];
					} else if (r->kind == PP_RI_WAIT) {
						if (evt[g][r->arg] < 0)
							break;
						if (evt[g][r->arg] > now[q])
							now[q] = evt[g][r->arg];
					} else {
						/* a communication call: starts when every member
						 * has reached it */
						arr[g][i] = now[q];
						int c = r->comm, k = pos[g][i];
						double start = 0;
						bool all = true;
						for (int m = 0; m < p->comms[c].n; m++) {
							seqref o = seq[c * PP_RP_MAX_GPUS + m][k];
							double a = arr[o.gpu][o.ins];
							if (a < 0)
								all = false;
							else if (a > start)
								start = a;
						}
						if (!all)
							break;
						double end = start + r->sim_s;
						for (int m = 0; m < p->comms[c].n; m++) {
							seqref o = seq[c * PP_RP_MAX_GPUS + m][k];
							if (o.gpu == g && o.ins == i)
								continue;
							int oq = o.gpu * PP_RS_COUNT +
								 p->gpu[o.gpu].ins[o.ins].stream;
							now[oq] = end;
							head[oq]++;
							arr[o.gpu][o.ins] = -2; /* done */
						}
						now[q] = end;
					}
					head[q]++;
					moved = true;
				}
			}
		}
	}
	double mk = 0;
	for (int g = 0; g < G && !rc; g++)
		for (int s = 0; s < PP_RS_COUNT; s++) {
			int q = g * PP_RS_COUNT + s;
			if (head[q] < sqn[q]) {
				const pp_rinstr *r = &p->gpu[g].ins[sqi[q][head[q]]];
				rc = pp_errf(err, PP_EINTERNAL, "replay plan deadlocks: GPU %d stream %s "
					     "stops at instruction %d (kind %d, task %d)", g, pp_rs_names[s],
					     sqi[q][head[q]], r->kind, r->task);
				break;
			}
			if (now[q] > mk)
				mk = now[q];
		}
	*step_s = mk;
	for (int i = 0; i < C * PP_RP_MAX_GPUS; i++)
		free(seq[i]);
	for (int g = 0; g < G; g++) {
		free(pos[g]);
		free(evt[g]);
		free(arr[g]);
		for (int s = 0; s < PP_RS_COUNT; s++)
			free(sqi[g * PP_RS_COUNT + s]);
	}
	free(seq);
	free(nseq);
	free(pos);
	free(evt);
	free(arr);
	free(sqn);
	free(head);
	free(now);
	free(sqi);
	return rc;
}

/* ---- sizes and counts ---- */

static double in_bytes(pp_dtype dt)
{
	return dt == PP_DT_FP8 ? 1 : dt == PP_DT_BF16 || dt == PP_DT_FP16 ? 2 : 4;
}

static double out_bytes(pp_dtype dt)
{
	return dt == PP_DT_FP8 || dt == PP_DT_BF16 || dt == PP_DT_FP16 ? 2 : 4;
}

void pp_rplan_maxima(const pp_rplan *p, int gpu, pp_rplan_max *m)
{
	memset(m, 0, sizeof(*m));
	const pp_rgpu *g = &p->gpu[gpu];
	for (int i = 0; i < g->nins; i++) {
		const pp_rinstr *r = &g->ins[i];
		double v;
		switch (r->kind) {
		case PP_RI_GEMM: {
			const pp_rgemm *q = &p->gemms[r->arg];
			double bt = (double)q->batch;
			v = bt * q->m * q->k * in_bytes(q->dtype);
			m->gemm_a = v > m->gemm_a ? v : m->gemm_a;
			v = bt * q->k * q->n * in_bytes(q->dtype);
			m->gemm_b = v > m->gemm_b ? v : m->gemm_b;
			v = bt * q->m * q->n * out_bytes(q->dtype);
			m->gemm_d = v > m->gemm_d ? v : m->gemm_d;
			break;
		}
		case PP_RI_MEM:
			v = r->bytes / 2;
			m->mem = v > m->mem ? v : m->mem;
			break;
		case PP_RI_COLL:
		case PP_RI_SEND:
		case PP_RI_RECV:
			m->coll[r->stream] = r->bytes > m->coll[r->stream] ? r->bytes : m->coll[r->stream];
			break;
		default:
			break;
		}
	}
}

void pp_rplan_count(const pp_rplan *p, int gpu, pp_rplan_counts *c)
{
	memset(c, 0, sizeof(*c));
	const pp_rgpu *g = &p->gpu[gpu];
	for (int i = 0; i < g->nins; i++) {
		const pp_rinstr *r = &g->ins[i];
		switch (r->kind) {
		case PP_RI_GEMM: {
			const pp_rgemm *q = &p->gemms[r->arg];
			c->gemms++;
			c->gemm_flops += 2.0 * q->m * q->n * q->k * q->batch;
			break;
		}
		case PP_RI_MEM:
			c->mems++;
			c->mem_bytes += r->bytes;
			break;
		case PP_RI_COLL:
			c->colls++;
			c->coll_bytes[r->stream] += r->bytes;
			break;
		case PP_RI_SEND:
			c->sends++;
			c->p2p_bytes += r->bytes;
			break;
		case PP_RI_RECV: c->recvs++; break;
		case PP_RI_RECORD: c->records++; break;
		case PP_RI_WAIT: c->waits++; break;
		default: break;
		}
	}
}
