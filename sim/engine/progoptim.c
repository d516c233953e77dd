/* progoptim.c - see program.h: the optimizer's side of the step, around
 * the units program.c issues: the distributed optimizer's parameter
 * gathers that the first forwards wait for (overlapped), and what a stage
 * issues after its last unit (the gradient reductions left, the tied
 * embeddings' all-reduce, the optimizer step and the gathers after it,
 * the next step's data loading). */
#include "engine/programint.h"
#include "core/util.h"

#include <stdlib.h>

/* One bucket's gather (layers *first .. l of chunk k), which those layers'
 * first forward waits for. */
static void bucket_gather(pp_program *p, pstage *S, const pp_comm_cost *cc, int group, int k, int l,
			  int64_t *of, int *first)
{
	int64_t h = pp_prog_dp_task(p, S, cc,
				    pp_prog_comm_tag(PP_CAT_PARAM_GATHER, k, l, -1, cc, group), -1);
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
void pp_prog_stage_gathers(pp_program *p, int st)
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

/* What a stage issues after its last unit and before its optimizer. */
static void stage_tail(pp_program *p, int st)
{
	const pp_stepcost *c = p->c;
	pstage *S = &p->st[st];
	if (c->zero3 && S->pend_rs >= 0) {
		const pp_comm_cost *rs = &c->z3_scatter[S->pend_part][S->pend_kind];
		S->last_dp = pp_prog_dp_task(p, S, rs,
					     pp_prog_comm_tag(PP_CAT_GRAD_REDUCE, 0, -1, -1, rs,
							      PP_GRP_DP),
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
			pp_prog_grad_reduce(p, S, chunk, S->last);
			total -= chunk;
		}
		while (ex > 0) {
			double chunk = ex > c->bucket_params ? c->bucket_params : ex;
			pp_prog_grad_reduce_expert(p, S, chunk, S->last);
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
	pp_des_tag t = pp_prog_tag(PP_CAT_OPTIMIZER, 0, -1, -1);
	t.group = PP_GRP_LOCAL;
	t.bytes = m.bytes;
	S->opt = pp_prog_issue(p, S->comp, m.ns, t, S->last, S->last_dp,
			       st == 0 || st == p->P - 1 ? embed_ar : -1);
	S->opt_s = m.s;
	if (c->dist_opt_gather && !c->overlap_param_gather) {
		double ex, pr = pp_stepcost_trained(c, st, &ex);
		pr -= ex;
		while (pr > 0) {
			double chunk = pr > c->bucket_params ? c->bucket_params : pr;
			pp_comm_cost cc = pp_stepcost_gather(c, chunk);
			pp_prog_dp_task(p, S, &cc,
					pp_prog_comm_tag(PP_CAT_PARAM_GATHER, 0, -1, -1, &cc, PP_GRP_DP),
					S->opt);
			pr -= chunk;
		}
		while (ex > 0) {
			double chunk = ex > c->bucket_params ? c->bucket_params : ex;
			pp_comm_cost cc = pp_stepcost_gather_expert(c, chunk);
			pp_prog_dp_task(p, S, &cc,
					pp_prog_comm_tag(PP_CAT_PARAM_GATHER, 0, -1, -1, &cc, PP_GRP_EDP),
					S->opt);
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
		pp_des_tag t = pp_prog_comm_tag(PP_CAT_EMBED_ALLREDUCE, 0, -1, -1, &c->embed_ar,
						PP_GRP_EMBED);
		int64_t deps[4] = {a->last, a->last_dp, b->last, b->last_dp};
		ar = p->k.task(p->k.ctx, p->embed_res, c->embed_ar.ns, &t, deps, 4);
	}
	for (int st = 0; st < p->P; st++)
		stage_optimizer(p, st, ar);
	/* data loading for the next step, on the storage target */
	if (c->data_ns >= 0) {
		int sto = p->k.resource(p->k.ctx, "storage", p->P, false);
		pp_des_tag t = pp_prog_tag(PP_CAT_DATA, 0, -1, -1);
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
