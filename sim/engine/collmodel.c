/* collmodel.c - see collmodel.h. */
#include "engine/collmodel.h"
#include "engine/stepcost.h"
#include "engine/workload.h"
#include "core/util.h"

#include <string.h>

typedef struct uses {
	pp_coll_use *u;
	int n, cap;
} uses;

static void add(uses *U, const char *traffic, const char *what, const char *op, pp_group g,
		double bytes, const pp_coll_fit *fit, int piece)
{
	if (g.n <= 1 || bytes <= 0)
		return;
	int per = g.per_node < 1 ? 1 : g.per_node;
	pp_scope scope = (g.n + per - 1) / per > 1 ? PP_SCOPE_INTER : PP_SCOPE_INTRA;
	for (int i = 0; i < U->n; i++) {
		pp_coll_use *e = &U->u[i];
		if (!strcmp(e->traffic, traffic) && !strcmp(e->what, what) && !strcmp(e->op, op) &&
		    e->nranks == g.n && e->per_node == g.per_node && e->fit == fit && e->piece == piece) {
			if (bytes < e->min_bytes)
				e->min_bytes = bytes;
			if (bytes > e->max_bytes)
				e->max_bytes = bytes;
			e->calls++;
			return;
		}
	}
	if (U->n == U->cap) {
		U->cap = U->cap ? 2 * U->cap : 16;
		U->u = pp_xrealloc(U->u, sizeof(*U->u) * (size_t)U->cap);
	}
	U->u[U->n++] = (pp_coll_use){traffic, what, op, g.n, g.per_node, scope, bytes, bytes, fit,
				     piece, 1};
}

static void coll(uses *U, const pp_hw *hw, const char *traffic, const char *what, pp_coll op,
		 pp_group g, double bytes)
{
	int piece;
	const pp_coll_fit *f = pp_coll_fit_used(hw, op, bytes, g, &piece);
	add(U, traffic, what, pp_coll_names[op], g, bytes, f, piece);
}

static void p2p(uses *U, const pp_hw *hw, const char *traffic, const char *what, double bytes,
		bool same_node)
{
	int piece;
	const pp_coll_fit *f = pp_p2p_fit_used(hw, bytes, same_node, &piece);
	pp_group g = {2, same_node ? 2 : 1};
	add(U, traffic, what, pp_coll_names[PP_COLL_SENDRECV], g, bytes, f, piece);
}

pp_coll_use *pp_coll_uses(const pp_scenario *s, const pp_hw *hw, int *n)
{
	uses U = {0};
	pp_workload w;
	pp_workload_build(&w, s, hw);
	/* the collectives of a micro-batch's passes */
	for (int i = 0; i < w.nops; i++) {
		const pp_op *o = &w.ops[i];
		if (o->kind != PP_OP_COMM)
			continue;
		if (o->cp && o->coll == PP_COLL_SENDRECV)
			/* the K/V ring: cp - 1 sends of one chunk, same node or not
			 * as workload.c costs them */
			p2p(&U, hw, "CP", "K/V ring send/recv", o->msg_bytes,
			    o->group.per_node == o->group.n);
		else if (o->cp)
			coll(&U, hw, "CP", "K/V all-gather / gradient reduce-scatter", o->coll, o->group,
			     o->msg_bytes);
		else if (o->ep)
			coll(&U, hw, "EP", "token dispatch / combine", o->coll, o->group, o->bytes);
		else
			coll(&U, hw, "TP", "tensor-parallel (and sequence-parallel) collectives", o->coll,
			     o->group, o->bytes);
	}
	/* the step's payloads: a full gradient bucket (the last may be
	 * smaller), the parameter all-gathers, stage-to-stage sends */
	pp_stepcost c;
	pp_stepcost_init(&c, s, hw, &w, NULL);
	if (w.dp.n > 1) {
		pp_comm_cost r = pp_stepcost_reduce(&c, c.bucket_params);
		coll(&U, hw, "DP", s->parallel.cp > 1 ? "gradient reduction over DP x CP (a full bucket)"
						      : "gradient reduction (a full bucket)",
		     r.op, w.dp, r.bytes);
		if (c.dist_opt_gather) {
			pp_comm_cost gth = pp_stepcost_gather(&c, c.bucket_params);
			coll(&U, hw, "DP", "parameter all-gather (a full bucket)", gth.op, w.dp, gth.bytes);
		}
		for (int k = 0; c.zero3 && k < 3; k++)
			for (int lk = 0; lk < PP_LAYER_KINDS; lk++) {
				if ((k != PP_PART_LAYER && lk > 0) || (k == PP_PART_LAYER && !w.lk[lk].count))
					continue;
				coll(&U, hw, "DP", "ZeRO-3 parameter all-gather", c.z3_gather[k][lk].op, w.dp,
				     c.z3_gather[k][lk].bytes);
				coll(&U, hw, "DP", "ZeRO-3 gradient reduce-scatter", c.z3_scatter[k][lk].op,
				     w.dp, c.z3_scatter[k][lk].bytes);
			}
	}
	if (s->model.num_experts > 0 && w.edp.n > 1) {
		pp_comm_cost r = pp_stepcost_reduce_expert(&c, c.bucket_params);
		coll(&U, hw, "DP experts", "expert gradient reduction (a full bucket)", r.op, w.edp,
		     r.bytes);
	}
	/* stage to stage; the last stage sends back to the first only when
	 * each stage holds several chunks (interleaved) */
	for (int st = 0; c.P > 1 && st < (c.V > 1 ? c.P : c.P - 1); st++)
		p2p(&U, hw, "PP", "activations / their gradients", c.p2p_bytes, c.p2p_same_node[st]);
	if (c.embed_ar.ns >= 0)
		coll(&U, hw, "embedding", "tied-embedding gradient all-reduce", c.embed_ar.op,
		     c.embed_group, c.embed_ar.bytes);
	pp_stepcost_release(&c);
	pp_workload_release(&w);
	*n = U.n;
	return U.u;
}
