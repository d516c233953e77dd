/* fastpath.c - see fastpath.h. The task structure mirrors schedule.c
 * (build_stage, pp_schedule_build); keep the two in step. */
#include "engine/fastpath.h"
#include "engine/collective.h"
#include "engine/compute.h"
#include "engine/memory.h"
#include "engine/schedule.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int64_t ns(double s)
{
	return (int64_t)llround(s * 1e9);
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* ---- workload cache ---- */

typedef struct ckey {
	int tp, cp;
	int64_t mbs;
	int sp, rc, piped;
} ckey;

typedef struct centry {
	bool used;
	ckey k;
	pp_workload w;
} centry;

struct pp_fp_cache {
	centry *tab;
	size_t cap, n;
	int builds;
};

pp_fp_cache *pp_fp_cache_new(void)
{
	pp_fp_cache *c = pp_xcalloc(1, sizeof(*c));
	c->cap = 256;
	c->tab = pp_xcalloc(c->cap, sizeof(centry));
	return c;
}

void pp_fp_cache_free(pp_fp_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->cap; i++)
		if (c->tab[i].used)
			pp_workload_release(&c->tab[i].w);
	free(c->tab);
	free(c);
}

int pp_fp_cache_builds(const pp_fp_cache *c)
{
	return c->builds;
}

static uint64_t khash(const ckey *k)
{
	uint64_t h = 1469598103934665603ull;
	uint64_t v[6] = {(uint64_t)k->tp, (uint64_t)k->cp, (uint64_t)k->mbs, (uint64_t)k->sp,
			 (uint64_t)k->rc, (uint64_t)k->piped};
	for (int i = 0; i < 6; i++) {
		h ^= v[i];
		h *= 1099511628211ull;
		h ^= h >> 29;
	}
	return h;
}

static bool keq(const ckey *a, const ckey *b)
{
	return a->tp == b->tp && a->cp == b->cp && a->mbs == b->mbs && a->sp == b->sp &&
	       a->rc == b->rc && a->piped == b->piped;
}

static centry *slot(pp_fp_cache *c, const ckey *k)
{
	size_t i = (size_t)(khash(k) & (c->cap - 1));
	while (c->tab[i].used && !keq(&c->tab[i].k, k))
		i = (i + 1) & (c->cap - 1);
	return &c->tab[i];
}

static void grow(pp_fp_cache *c)
{
	centry *old = c->tab;
	size_t ocap = c->cap;
	c->cap *= 2;
	c->tab = pp_xcalloc(c->cap, sizeof(centry));
	for (size_t i = 0; i < ocap; i++)
		if (old[i].used)
			*slot(c, &old[i].k) = old[i];
	free(old);
}

/* workload.c's place(): a group of n ranks at stride `stride` on nodes of
 * G GPUs has min(n, G / stride) members per node. */
static pp_group place(int n, int stride, int gpus_per_node)
{
	pp_group g = {n, 1};
	if (stride < gpus_per_node) {
		int fit = gpus_per_node / stride;
		g.per_node = n < fit ? n : fit;
	}
	return g;
}

void pp_fp_workload(pp_fp_cache *c, const pp_scenario *s, const pp_hw *hw, pp_workload *w)
{
	const pp_parallel *p = &s->parallel;
	const pp_training *tr = &s->training;
	/* what the op list depends on; everything else is patched below */
	ckey k = {p->tp, p->cp, tr->micro_batch_size, p->sequence_parallel && p->tp > 1,
		  (int)tr->recompute, p->pp > 1};
	centry *e = slot(c, &k);
	if (!e->used) {
		if (2 * (c->n + 1) > c->cap) {
			grow(c);
			e = slot(c, &k);
		}
		e->used = true;
		e->k = k;
		pp_workload_build(&e->w, s, hw);
		c->n++;
		c->builds++;
	}
	*w = e->w;
	/* fields that depend on the data-parallel size and the ZeRO stage
	 * (workload.c, pp_workload_build) */
	int G = s->cluster.gpus_per_node < s->cluster.num_gpus ? s->cluster.gpus_per_node
							       : s->cluster.num_gpus;
	w->dp = place(p->dp * p->cp, p->tp, G);
	w->pp_group_ = place(p->pp, p->tp * p->cp * p->dp, G);
	bool mixed = tr->precision != PP_DT_FP32 && tr->precision != PP_DT_TF32;
	w->grad_comm_bytes_per_param =
		mixed && (p->zero_stage >= 2 || tr->precision != PP_DT_BF16) ? 2.0 : 4.0;
}

/* ---- durations shared by the walk and the bound ---- */

typedef struct fp {
	const pp_scenario *s;
	const pp_hw *hw;
	const pp_workload *w;
	int P, V, M, NV;
	int zero;
	bool z3, dist_ag, overlap_grad, overlap_ag, overlap_p2p;
	pp_task_ns dur;    /* compute-stream task durations */
	int64_t *p2p;      /* [P] */
	int *layers;       /* [NV] */
	double bucket;
	int64_t ag_l, ag_e, ag_h, rs_l, rs_e, rs_h; /* ZeRO-3 per task */
	int64_t data;      /* data-loading read */
	int64_t ar;        /* tied-embedding all-reduce, -1 none */
	pp_coll red_op;
} fp;

static double ag_time(const fp *f, double params)
{
	return pp_coll_time(f->hw, PP_COLL_ALL_GATHER, params * f->w->param_gather_bytes_per_param,
			    f->w->dp);
}

static double rs_time(const fp *f, double params)
{
	return pp_coll_time(f->hw, PP_COLL_REDUCE_SCATTER, params * f->w->grad_comm_bytes_per_param,
			    f->w->dp);
}

static int64_t red_ns(const fp *f, double params)
{
	return ns(pp_coll_time(f->hw, f->red_op, params * f->w->grad_comm_bytes_per_param, f->w->dp));
}

/* schedule.c interference(): a data-parallel collective of comm ns adds
 * (1 - overlap_eff) x min(comm, its time at the intra-node rate) to the
 * compute stream where it is issued */
static int64_t itf(const fp *f, int64_t comm, pp_coll op, double bytes)
{
	double x = 1.0 - f->hw->overlap_eff;
	if (x <= 0 || comm <= 0)
		return 0;
	pp_group local = {f->w->dp.n, f->w->dp.n};
	double t = fmin((double)comm, 1e9 * pp_coll_time(f->hw, op, bytes, local));
	return (int64_t)llround(x * t);
}

static double stage_params(const fp *f, int st)
{
	const pp_workload *w = f->w;
	double params = 0;
	for (int c = 0; c < f->V; c++)
		params += f->layers[c * f->P + st] * w->params_layer;
	if (st == 0)
		params += w->params_embed;
	if (st == f->P - 1)
		params += w->params_head;
	return params;
}

static int64_t opt_ns(const fp *f, int st)
{
	double params = stage_params(f, st);
	double local = f->zero >= 1 ? params / f->w->dp.n : params;
	double opt_s = pp_mem_time(f->hw, local * (f->w->optimizer_bytes_per_param + 4.0)) +
		       2.0 * f->hw->coll_launch_s;
	return ns(opt_s);
}

static void fp_init(fp *f, const pp_scenario *s, const pp_hw *hw, const pp_workload *w)
{
	memset(f, 0, sizeof(*f));
	const pp_parallel *p = &s->parallel;
	f->s = s;
	f->hw = hw;
	f->w = w;
	f->P = p->pp;
	f->V = p->vpp;
	f->M = (int)s->training.num_microbatches;
	f->NV = f->P * f->V;
	f->zero = p->zero_stage;
	f->z3 = p->zero_stage == 3 && w->dp.n > 1;
	f->dist_ag = (p->zero_stage == 1 || p->zero_stage == 2) && w->dp.n > 1;
	f->overlap_grad = s->training.overlap_grad_reduce;
	f->overlap_ag = s->training.overlap_param_gather;
	f->overlap_p2p = s->training.overlap_p2p_comm;
	f->dur = pp_task_durations(w, pp_pipeline_stretch(s, hw)); /* no ablations here */
	double bucket = s->training.bucket_bytes / 4.0;
	if (bucket < 1e6 * w->dp.n)
		bucket = 1e6 * w->dp.n;
	f->bucket = bucket;
	f->p2p = pp_xmalloc(sizeof(int64_t) * (size_t)f->P);
	for (int st = 0; st < f->P; st++) {
		bool same = st == f->P - 1 ? (s->cluster.num_gpus <= s->cluster.gpus_per_node)
					   : pp_stage_link_same_node(s, st);
		f->p2p[st] = ns(pp_p2p_time(hw, w->p2p_bytes, same));
	}
	f->layers = pp_xmalloc(sizeof(int) * (size_t)f->NV);
	for (int vs = 0; vs < f->NV; vs++)
		f->layers[vs] = pp_stage_layers(s, vs);
	if (f->z3) {
		f->ag_l = ns(ag_time(f, w->params_layer));
		f->ag_e = ns(ag_time(f, w->params_embed));
		f->ag_h = ns(ag_time(f, w->params_head));
		f->rs_l = ns(rs_time(f, w->params_layer));
		f->rs_e = ns(rs_time(f, w->params_embed));
		f->rs_h = ns(rs_time(f, w->params_head));
	}
	f->red_op = p->zero_stage == 0 ? PP_COLL_ALL_REDUCE : PP_COLL_REDUCE_SCATTER;
	int nodes = pp_cluster_nodes(&s->cluster);
	double bytes = (double)s->training.global_batch_size * s->model.seq_length *
		       s->training.data_bytes_per_token;
	double t_node = bytes / nodes / hw->storage_read_Bps;
	if (hw->storage_agg_read_Bps > 0 && bytes / hw->storage_agg_read_Bps > t_node)
		t_node = bytes / hw->storage_agg_read_Bps;
	f->data = ns(t_node);
	f->ar = -1;
	if (f->P > 1 && s->model.tied_embeddings) {
		double b = w->params_embed * 4.0;
		pp_group g = {2, s->cluster.num_gpus <= s->cluster.gpus_per_node ? 2 : 1};
		f->ar = ns(pp_coll_time(hw, PP_COLL_ALL_REDUCE, b, g));
	}
}

static void fp_release(fp *f)
{
	free(f->p2p);
	free(f->layers);
}

/* ---- the walk ---- */

typedef struct stg {
	pp_unit *order;
	int n, next;
	int64_t comp, dp;          /* when the compute / DP stream is next free */
	int64_t last_dp;           /* end of the stage's last DP task the optimizer waits for; -1 */
	int64_t prev0, prev1;      /* ZeRO-3: ends of the two previous compute tasks; -1 none */
	int64_t pend_rs;           /* ZeRO-3: end of the backward task whose reduce-scatter is due */
	double pend_params;
	int64_t *ag;               /* distributed optimizer: end of each layer's bucket gather */
	int maxl;
	bool *first_use;
	int *last_b_of_chunk;
	int64_t opt_end;
	int64_t edep;              /* end of the last unit's last task (the embedding all-reduce waits) */
} stg;

typedef struct walk {
	fp f;
	stg *st;
	int64_t *arr_f, *arr_b;    /* [vs * M + mb]: input arrival, -1 not yet */
	int64_t *lf, *lb;          /* link free times */
	int64_t span;
} walk;

static void seen(walk *k, int64_t t)
{
	if (t > k->span)
		k->span = t;
}

/* A compute-stream task (schedule.c compute_task), after `dep` (0 = none). */
static int64_t ctask(walk *k, stg *S, int64_t dur, double params, int which, bool bwd, int64_t dep)
{
	const fp *f = &k->f;
	int64_t ready = dep;
	if (f->z3 && params > 0) {
		int64_t ag = which == 0 ? f->ag_l : which == 1 ? f->ag_e : f->ag_h;
		int64_t start = max64(S->dp, S->prev0 < 0 ? 0 : S->prev0);
		int64_t agend = start + ag;
		S->dp = agend;
		seen(k, agend);
		double pr = which == 0 ? f->w->params_layer : which == 1 ? f->w->params_embed
									  : f->w->params_head;
		S->comp += itf(f, ag, PP_COLL_ALL_GATHER, pr * f->w->param_gather_bytes_per_param);
		if (S->pend_rs >= 0) {
			int64_t rs = S->pend_params == f->w->params_layer ? f->rs_l
				     : S->pend_params == f->w->params_embed ? f->rs_e
									    : f->rs_h;
			S->dp = max64(S->dp, S->pend_rs) + rs;
			S->pend_rs = -1;
			seen(k, S->dp);
			S->comp += itf(f, rs, PP_COLL_REDUCE_SCATTER,
				       S->pend_params * f->w->grad_comm_bytes_per_param);
		}
		seen(k, S->comp);
		ready = max64(ready, agend);
	}
	int64_t end = max64(S->comp, ready) + dur;
	S->comp = end;
	seen(k, end);
	if (f->z3) {
		S->prev0 = S->prev1;
		S->prev1 = end;
		if (bwd && params > 0) {
			S->pend_rs = end;
			S->pend_params = params;
		}
	}
	return end;
}

static void greduce(walk *k, stg *S, double params, int64_t after)
{
	int64_t d = red_ns(&k->f, params);
	S->dp = max64(S->dp, after) + d;
	S->last_dp = S->dp;
	seen(k, S->dp);
	S->comp += itf(&k->f, d, k->f.red_op, params * k->f.w->grad_comm_bytes_per_param);
	seen(k, S->comp);
}

static bool unit_ready(const walk *k, int st, const pp_unit *u)
{
	const fp *f = &k->f;
	int vs = u->chunk * f->P + st;
	if (u->fwd)
		return vs == 0 || k->arr_f[(size_t)vs * f->M + u->mb] >= 0;
	return vs == f->NV - 1 || k->arr_b[(size_t)vs * f->M + u->mb] >= 0;
}

static void run_unit(walk *k, int st)
{
	const fp *f = &k->f;
	const pp_workload *w = f->w;
	stg *S = &k->st[st];
	int i = S->next++;
	pp_unit u = S->order[i];
	int P = f->P, NV = f->NV, M = f->M;
	int vs = u.chunk * P + st;
	int L = f->layers[vs];
	size_t key = (size_t)vs * M + u.mb;
	int64_t end = 0;
	if (u.fwd) {
		int64_t arr = vs > 0 ? k->arr_f[key] : 0;
		if (vs == 0)
			end = ctask(k, S, f->dur.f_embed, w->params_embed, 1, false, 0);
		for (int l = 0; l < L; l++) {
			int64_t dep = l == 0 && vs != 0 ? arr : 0;
			if (S->ag && S->first_use[u.chunk])
				dep = max64(dep, S->ag[u.chunk * (S->maxl + 1) + l]);
			end = ctask(k, S, f->dur.f_layer, w->params_layer, 0, false, dep);
		}
		S->first_use[u.chunk] = false;
		if (vs == NV - 1)
			end = ctask(k, S, f->dur.f_head, w->params_head, 2, false, 0);
	} else {
		int64_t arr = vs < NV - 1 ? k->arr_b[key] : 0;
		bool reduce_here = i == S->last_b_of_chunk[u.chunk] && !f->z3 && w->dp.n > 1;
		double acc = 0;
		if (vs == NV - 1) {
			end = ctask(k, S, f->dur.b_head, w->params_head, 2, true, 0);
			if (reduce_here)
				acc += w->params_head;
		}
		for (int l = L - 1; l >= 0; l--) {
			int64_t dep = l == L - 1 && vs != NV - 1 ? arr : 0;
			end = ctask(k, S, f->dur.b_layer, w->params_layer, 0, true, dep);
			if (reduce_here && f->overlap_grad) {
				acc += w->params_layer;
				if (acc >= f->bucket) {
					greduce(k, S, acc, end);
					acc = 0;
				}
			} else if (reduce_here) {
				acc += w->params_layer;
			}
		}
		if (vs == 0) {
			end = ctask(k, S, f->dur.b_embed, w->params_embed, 1, true, 0);
			if (reduce_here)
				acc += w->params_embed;
		}
		if (reduce_here && f->overlap_grad && acc > 0)
			greduce(k, S, acc, end);
	}
	if (P < 2)
		return;
	if (!f->overlap_p2p) {
		/* blocking send on the compute stream; the receiver waits for it */
		if (u.fwd && vs < NV - 1) {
			S->comp += f->p2p[st];
			k->arr_f[key + (size_t)M] = S->comp;
			seen(k, S->comp);
		} else if (!u.fwd && vs > 0) {
			S->comp += f->p2p[(st + P - 1) % P];
			k->arr_b[key - (size_t)M] = S->comp;
			seen(k, S->comp);
		}
		return;
	}
	if (u.fwd && vs < NV - 1) {
		k->lf[st] = max64(k->lf[st], end) + f->p2p[st];
		k->arr_f[key + (size_t)M] = k->lf[st];
		seen(k, k->lf[st]);
	} else if (!u.fwd && vs > 0) {
		int link = (vs - 1) % P;
		k->lb[link] = max64(k->lb[link], end) + f->p2p[link];
		k->arr_b[key - (size_t)M] = k->lb[link];
		seen(k, k->lb[link]);
	}
}

static void stage_start(walk *k, int st)
{
	const fp *f = &k->f;
	const pp_workload *w = f->w;
	stg *S = &k->st[st];
	int P = f->P, V = f->V;
	S->order = pp_xmalloc(sizeof(pp_unit) * (size_t)(2 * f->M * V));
	S->n = pp_schedule_order(f->s, st, S->order);
	S->last_dp = -1;
	S->prev0 = S->prev1 = S->pend_rs = -1;
	S->first_use = pp_xmalloc(sizeof(bool) * (size_t)V);
	S->last_b_of_chunk = pp_xmalloc(sizeof(int) * (size_t)V);
	for (int c = 0; c < V; c++) {
		S->first_use[c] = true;
		S->last_b_of_chunk[c] = -1;
	}
	for (int i = 0; i < S->n; i++)
		if (!S->order[i].fwd)
			S->last_b_of_chunk[S->order[i].chunk] = i;
	if (!(f->dist_ag && f->overlap_ag))
		return;
	/* the distributed optimizer's bucketed parameter all-gather, first on
	 * the DP stream; each layer's first forward waits for its bucket */
	for (int c = 0; c < V; c++)
		if (f->layers[c * P + st] > S->maxl)
			S->maxl = f->layers[c * P + st];
	S->ag = pp_xmalloc(sizeof(int64_t) * (size_t)(V * (S->maxl + 1)));
	for (int c = 0; c < V; c++) {
		int vs = c * P + st;
		int L = f->layers[vs];
		double acc = vs == 0 ? w->params_embed : 0;
		int first = 0;
		for (int l = 0; l < L; l++) {
			acc += w->params_layer;
			bool last = l == L - 1;
			if (acc >= f->bucket || last) {
				double pr = acc + (last && vs == P * V - 1 ? w->params_head : 0);
				int64_t d = ns(ag_time(f, pr));
				S->dp += d;
				seen(k, S->dp);
				S->comp += itf(f, d, PP_COLL_ALL_GATHER, pr * w->param_gather_bytes_per_param);
				seen(k, S->comp);
				for (int j = first; j <= l; j++)
					S->ag[c * (S->maxl + 1) + j] = S->dp;
				first = l + 1;
				acc = 0;
			}
		}
	}
}

int64_t pp_fp_step_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w)
{
	if (s->training.num_microbatches < 1)
		return -1;
	walk k;
	memset(&k, 0, sizeof(k));
	fp_init(&k.f, s, hw, w);
	fp *f = &k.f;
	int P = f->P;
	size_t nk = (size_t)f->NV * f->M;
	k.arr_f = pp_xmalloc(sizeof(int64_t) * nk);
	k.arr_b = pp_xmalloc(sizeof(int64_t) * nk);
	for (size_t i = 0; i < nk; i++)
		k.arr_f[i] = k.arr_b[i] = -1;
	k.lf = pp_xcalloc((size_t)P, sizeof(int64_t));
	k.lb = pp_xcalloc((size_t)P, sizeof(int64_t));
	k.st = pp_xcalloc((size_t)P, sizeof(stg));
	k.span = f->data;
	int64_t result = -1;
	long left = 0;
	for (int st = 0; st < P; st++) {
		stage_start(&k, st);
		left += k.st[st].n;
	}
	/* every stage runs until it waits for a neighbour; the order in which
	 * stages are advanced does not change any time computed */
	while (left > 0) {
		bool moved = false;
		for (int st = 0; st < P; st++) {
			stg *S = &k.st[st];
			while (S->next < S->n && unit_ready(&k, st, &S->order[S->next])) {
				run_unit(&k, st);
				left--;
				moved = true;
			}
		}
		if (!moved)
			goto out;
	}
	/* after the last unit: pending reductions, the optimizer, gathers */
	for (int st = 0; st < P; st++) {
		stg *S = &k.st[st];
		S->edep = S->comp;
		if (f->z3 && S->pend_rs >= 0) {
			int64_t rs = S->pend_params == w->params_layer ? f->rs_l
				     : S->pend_params == w->params_embed ? f->rs_e
									 : f->rs_h;
			S->dp = max64(S->dp, S->pend_rs) + rs;
			S->last_dp = S->dp;
			seen(&k, S->dp);
			S->comp += itf(f, rs, PP_COLL_REDUCE_SCATTER,
				       S->pend_params * w->grad_comm_bytes_per_param);
			seen(&k, S->comp);
		}
		if (!f->z3 && w->dp.n > 1 && !f->overlap_grad) {
			double total = 0;
			for (int c = 0; c < f->V; c++)
				total += f->layers[c * P + st] * w->params_layer;
			if (st == 0)
				total += w->params_embed;
			if (st == P - 1)
				total += w->params_head;
			int64_t after = S->comp;
			while (total > 0) {
				double chunk = total > f->bucket ? f->bucket : total;
				greduce(&k, S, chunk, after);
				total -= chunk;
			}
		}
		if (f->z3 && S->last_dp < 0)
			S->last_dp = S->prev1;
	}
	int64_t ar_end = -1;
	if (f->ar >= 0) {
		int64_t start = max64(k.st[0].edep, k.st[P - 1].edep);
		start = max64(start, max64(k.st[0].last_dp, k.st[P - 1].last_dp));
		ar_end = start + f->ar;
		seen(&k, ar_end);
	}
	for (int st = 0; st < P; st++) {
		stg *S = &k.st[st];
		int64_t start = max64(S->comp, S->last_dp);
		if (ar_end >= 0 && (st == 0 || st == P - 1))
			start = max64(start, ar_end);
		S->opt_end = start + opt_ns(f, st);
		seen(&k, S->opt_end);
		if (f->dist_ag && !f->overlap_ag) {
			double pr = stage_params(f, st);
			int64_t c = S->opt_end;
			while (pr > 0) {
				double chunk = pr > f->bucket ? f->bucket : pr;
				int64_t d = ns(ag_time(f, chunk));
				S->dp = max64(S->dp, S->opt_end) + d;
				seen(&k, S->dp);
				c += itf(f, d, PP_COLL_ALL_GATHER, chunk * w->param_gather_bytes_per_param);
				seen(&k, c);
				pr -= chunk;
			}
		}
	}
	result = k.span;
out:
	for (int st = 0; st < P; st++) {
		free(k.st[st].order);
		free(k.st[st].ag);
		free(k.st[st].first_use);
		free(k.st[st].last_b_of_chunk);
	}
	free(k.st);
	free(k.arr_f);
	free(k.arr_b);
	free(k.lf);
	free(k.lb);
	fp_release(f);
	return result;
}

/* ---- the bound ---- */

/* Lower bound on when the DP stream of a stage finishes the gradient
 * buckets of its last backward unit (chunk 0, vs = st), given that the
 * unit's last compute task ends no earlier than e. The unit's tasks run
 * back to back, so the task a bucket follows ends no earlier than e minus
 * the tasks after it. */
static int64_t tail_reduce(const fp *f, int st, int64_t e)
{
	const pp_workload *w = f->w;
	int vs = st, L = f->layers[vs];
	double acc = vs == f->NV - 1 ? w->params_head : 0;
	int64_t fin = -1;
	for (int l = L - 1; l >= 0; l--) {
		acc += w->params_layer;
		if (acc >= f->bucket) {
			int64_t after = (int64_t)l * f->dur.b_layer + (vs == 0 ? f->dur.b_embed : 0);
			fin = max64(fin, e - after) + red_ns(f, acc);
			acc = 0;
		}
	}
	if (vs == 0)
		acc += w->params_embed;
	if (acc > 0)
		fin = max64(fin, e) + red_ns(f, acc);
	return fin;
}

int64_t pp_fp_bound_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w)
{
	fp f;
	fp_init(&f, s, hw, w);
	int P = f.P, V = f.V, NV = f.NV;
	int64_t M = f.M;
	int64_t lb = f.data;
	int64_t *busy = pp_xmalloc(sizeof(int64_t) * (size_t)P * 6);
	int64_t *opt = busy + P, *tailsend = opt + P, *head = tailsend + P, *E = head + P,
		*dpend = E + P;
	bool blocking = !f.overlap_p2p && P > 1;
	int64_t h = 0;
	for (int st = 0; st < P; st++) {
		int64_t b = 0, dpz = 0;
		for (int c = 0; c < V; c++) {
			int vs = c * P + st;
			int64_t L = f.layers[vs];
			b += M * L * (f.dur.f_layer + f.dur.b_layer);
			dpz += M * L * (2 * f.ag_l + f.rs_l);
			if (blocking && vs < NV - 1)
				b += M * f.p2p[st];
			if (blocking && vs > 0)
				b += M * f.p2p[(st + P - 1) % P];
		}
		if (st == 0) {
			b += M * (f.dur.f_embed + f.dur.b_embed);
			dpz += M * (2 * f.ag_e + f.rs_e);
		}
		if (st == P - 1) {
			b += M * (f.dur.f_head + f.dur.b_head);
			dpz += M * (2 * f.ag_h + f.rs_h);
		}
		busy[st] = b;
		opt[st] = opt_ns(&f, st);
		tailsend[st] = blocking && st > 0 ? f.p2p[st - 1] : 0;
		head[st] = h;
		int64_t L0 = f.layers[st];
		h += L0 * f.dur.f_layer + (st == 0 ? f.dur.f_embed : 0) + (st == NV - 1 ? f.dur.f_head : 0) +
		     f.p2p[st];
		if (f.z3) /* one stream carries every gather and reduce-scatter */
			lb = max64(lb, dpz + opt[st]);
		lb = max64(lb, head[st] + busy[st] + opt[st]);
	}
	/* E[st]: the end of stage st's last backward, which every later stage's
	 * last backward feeds */
	for (int st = P - 1; st >= 0; st--) {
		E[st] = head[st] + busy[st] - tailsend[st];
		if (st < P - 1) {
			int64_t L0 = f.layers[st];
			int64_t B0 = L0 * f.dur.b_layer + (st == 0 ? f.dur.b_embed : 0) +
				     (st == NV - 1 ? f.dur.b_head : 0);
			E[st] = max64(E[st], E[st + 1] + f.p2p[st] + B0);
		}
	}
	/* bucket tails are the same for stages of the same shape */
	int64_t cache_l = -1, cache_tail = 0, cache_e = 0;
	for (int st = 0; st < P; st++) {
		dpend[st] = -1;
		if (f.z3) {
			dpend[st] = E[st] + (st == 0 ? f.rs_e : f.rs_l);
		} else if (w->dp.n > 1 && f.overlap_grad) {
			bool plain = st != 0 && st != NV - 1;
			if (plain && cache_l == f.layers[st]) {
				dpend[st] = E[st] + (cache_tail - cache_e);
			} else {
				dpend[st] = tail_reduce(&f, st, E[st]);
				if (plain) {
					cache_l = f.layers[st];
					cache_tail = dpend[st];
					cache_e = E[st];
				}
			}
		}
	}
	int64_t ar_end = -1;
	if (f.ar >= 0) {
		int64_t a = max64(E[0] + tailsend[0], E[P - 1] + tailsend[P - 1]);
		a = max64(a, max64(dpend[0], dpend[P - 1]));
		ar_end = a + f.ar;
	}
	for (int st = 0; st < P; st++) {
		int64_t start = max64(E[st] + tailsend[st], dpend[st]);
		if (ar_end >= 0 && (st == 0 || st == P - 1))
			start = max64(start, ar_end);
		lb = max64(lb, start + opt[st]);
	}
	free(busy);
	fp_release(&f);
	return lb;
}
