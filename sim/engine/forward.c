/* forward.c - see forward.h. */
#include "engine/forward.h"
#include "engine/stages.h"
#include "engine/opsint.h"
#include "core/util.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* An op's memoized duration and what it is. */
enum { OC_COMPUTE, OC_ATTN, OC_TP, OC_EP };
typedef struct mop {
	double t, flops, bytes;
	unsigned char cls;
} mop;

/* Sums over a segment's ops, in op order: all, compute and attention,
 * TP and EP collectives, executed FLOPs, bytes. */
typedef struct segsum {
	double sum, comp, tpc, epc, fl, by;
} segsum;

/* The op times of one batch shape: each layer kind's, the embedding's,
 * the head's. */
#define NSEG (PP_LAYER_KINDS + 2)
typedef struct entry {
	bool used;
	double tpad, tact, rows;
	bool graphed;
	int parts;        /* prefill (1) and decode (2) tokens present: MLA's attention ops */
	int n[NSEG];
	mop *ops[NSEG];
	/* the sums over each segment's ops before its first attention op
	 * (a0; n when none): what every batch of the shape adds first */
	int a0[NSEG];
	segsum pre[NSEG];
	double min_t;     /* the shortest op (the closed-form launch test) */
	double p2p_s;     /* the stage-to-stage sends, summed */
} entry;

#define CACHE 2048

struct pp_forward {
	const pp_scenario *s;
	const pp_hw *hw;
	pp_fwd_opts o;
	dims base;
	dims ax;                /* attention_times' scratch: base with a batch's fields */
	pp_group tp;
	int nstages;
	double kinds[PP_FWD_MAX_STAGES][PP_LAYER_KINDS];
	/* per stage, the segments it runs (their layers, or its embedding
	 * or head: reps > 0) in segment order: the iteration's walk skips
	 * the rest without testing each */
	int nsegs[PP_FWD_MAX_STAGES];
	unsigned char segs[PP_FWD_MAX_STAGES][NSEG];
	double reps[PP_FWD_MAX_STAGES][NSEG];
	bool present[PP_LAYER_KINDS]; /* some stage holds layers of the kind */
	bool ar_applies;
	const pp_ar_curve *curve;
	pp_workload w;          /* scratch op list */
	double *times;          /* scratch: one segment's op times (seg_times) */
	int ncap;
	/* the memo of batch shapes: entries are set up when first hashed
	 * to (seen), so a replica that costs a few hundred shapes (the
	 * serving search sets up hundreds of replicas) does not clear and
	 * walk all CACHE of them */
	entry *cache;
	unsigned char seen[CACHE];
};

/* ---- dimensions ---- */

static void base_dims(pp_forward *f)
{
	const pp_model *m = &f->s->model;
	const pp_parallel *p = &f->s->parallel;
	dims *x = &f->base;
	memset(x, 0, sizeof(*x));
	wl_dims_model(x, m, p->tp);
	x->b = 1;
	x->flash = true;
	x->serve = true;
	x->kvb = pp_kv_bytes_per_token(m, p->tp, f->o.kv_bytes) / m->num_layers;
	x->sampler_passes = f->o.sampler_passes;
	if (m->num_experts > 0) {
		bool ep = p->ep > 1;
		x->E = m->num_experts;
		x->topk = m->moe_router_topk;
		x->Fm = m->moe_ffn_hidden_size;
		x->S = m->moe_shared_expert_intermediate_size;
		x->ep = ep ? p->ep : 1;
		x->etp = ep ? 1 : p->tp;
		x->El = x->E / x->ep;
		x->imb = 1;
		x->grouped = true; /* vLLM's fused_moe: one grouped kernel per GEMM */
	}
}

/* The batch's dimensions at t tokens (padded) of which the batch's own. */
/* Whether any stage holds layers of kind k. */
static bool kind_present(const pp_forward *f, int k)
{
	return f->present[k];
}

/* Sets every field of x that depends on the batch (the rest is f->base's). */
static void batch_fields(dims *x, const pp_fwd_batch *b, double t)
{
	x->T = x->Tn = x->s = x->sl = t;
	x->pf_tok = b->prefill_tokens;
	x->dc_tok = b->decode_tokens;
	x->pf_pairs = b->prefill_pairs;
	x->dc_pairs = b->decode_pairs;
	x->pf_kv = b->prefill_kv_read;
	x->dc_kv = b->decode_kv_read;
	x->pf_pairs_w = b->prefill_pairs_w;
	x->dc_pairs_w = b->decode_pairs_w;
	x->pf_kv_w = b->prefill_kv_read_w;
	x->dc_kv_w = b->decode_kv_read_w;
	x->kv_write = b->kv_write;
	x->rows = b->sampled > 0 ? (t > b->prefill_tokens + b->decode_tokens ? t : b->sampled) : 0;
	if (x->E > 0) {
		/* rows per local expert; the local share of the experts hit */
		x->n_avg = x->n_busy = t * x->topk / x->E;
		x->El_act = x->El * pp_forward_experts_hit(x->E, x->topk, t) / x->E;
		if (x->El_act < 1 && x->El >= 1)
			x->El_act = 1;
	}
}

static void batch_dims(dims *x, const pp_forward *f, const pp_fwd_batch *b, double t)
{
	*x = f->base;
	batch_fields(x, b, t);
}

double pp_forward_experts_hit(double E, double k, double t)
{
	if (E <= 0 || t <= 0)
		return 0;
	return E * (1.0 - pow(1.0 - k / E, t));
}

/* ---- the op list of one batch shape ---- */

static double allreduce_curve_s(const pp_ar_curve *c, double bytes)
{
	if (bytes <= c->bytes[0])
		return c->s[0];
	int i = 1;
	while (i < c->n - 1 && c->bytes[i] < bytes)
		i++;
	double u = (log(bytes) - log(c->bytes[i - 1])) / (log(c->bytes[i]) - log(c->bytes[i - 1]));
	return c->s[i - 1] + u * (c->s[i] - c->s[i - 1]);
}

double pp_forward_allreduce_s(const pp_forward *f, double bytes)
{
	if (f->ar_applies && bytes <= f->curve->bytes[f->curve->n - 1])
		return allreduce_curve_s(f->curve, bytes);
	return pp_coll_time(f->hw, PP_COLL_ALL_REDUCE, bytes, f->tp);
}

static void layer_ops(ctx *c, const dims *x, pp_group tp)
{
	wl_attention_fwd(c, x, tp, true, false);
	wl_mem(c, "ln2", 4.0 * c->act * x->Tn * x->h); /* fused residual add + RMSNorm */
	if (x->moe)
		wl_moe_fwd(c, x, tp, true);
	else
		wl_mlp_fwd(c, x, tp, true);
}

/* Sums over ops [from, to) of segment seg added to g in op order, its
 * attention ops (from the first of them on) at[] of this batch. */
static void seg_add(const entry *e, int seg, int from, int to, const double *at, const double *afl,
		    const double *aby, const int *na, segsum *g)
{
	double sum = g->sum, comp = g->comp, tpc = g->tpc, epc = g->epc, fl = g->fl, by = g->by;
	int ai = 0;
	for (int i = from; i < to; i++) {
		const mop *m = &e->ops[seg][i];
		double t = m->t, mf = m->flops, mb = m->bytes;
		if (m->cls == OC_ATTN && seg < PP_LAYER_KINDS && ai < na[seg]) {
			t = at[seg * 4 + ai];
			mf = afl[seg * 4 + ai];
			mb = aby[seg * 4 + ai];
			ai++;
		}
		sum += t;
		fl += mf;
		by += mb;
		if (m->cls == OC_TP)
			tpc += t;
		else if (m->cls == OC_EP)
			epc += t;
		else
			comp += t;
	}
	*g = (segsum){sum, comp, tpc, epc, fl, by};
}

/* Memoize ops [from, w.nops) as segment seg of e: durations (the TP
 * all-reduces at the custom all-reduce's where it applies) and classes. */
static void keep(pp_forward *f, entry *e, int seg, int from)
{
	int n = f->w.nops - from;
	e->ops[seg] = pp_xrealloc(e->ops[seg], sizeof(mop) * (size_t)(n > 0 ? n : 1));
	e->n[seg] = n;
	for (int i = 0; i < n; i++) {
		pp_op *o = &f->w.ops[from + i];
		mop *m = &e->ops[seg][i];
		m->flops = o->flops;
		m->bytes = o->kind == PP_OP_COMM ? 0 : o->bytes;
		if (o->kind == PP_OP_COMM) {
			double t = o->exposed_s;
			if (!o->ep && o->coll == PP_COLL_ALL_REDUCE && o->group.n == f->tp.n)
				t = pp_forward_allreduce_s(f, o->bytes);
			m->t = t;
			m->cls = o->ep ? OC_EP : OC_TP;
		} else {
			m->t = o->time_s;
			m->cls = o->kind == PP_OP_ATTN ? OC_ATTN : OC_COMPUTE;
		}
		if (m->t < e->min_t)
			e->min_t = m->t;
	}
	int a0 = 0;
	while (a0 < n && e->ops[seg][a0].cls != OC_ATTN)
		a0++;
	e->a0[seg] = a0;
	e->pre[seg] = (segsum){0, 0, 0, 0, 0, 0};
	seg_add(e, seg, 0, a0, NULL, NULL, NULL, NULL, &e->pre[seg]);
}

/* The op builder's context of a forward pass: the layers' ops in the
 * scenario's precision (FP8 and FP4 GEMMs keep 16-bit attention), no framework
 * stack. */
static ctx fwd_ctx(pp_forward *f)
{
	pp_dtype dt = f->s->training.precision;
	ctx c = {&f->w, f->hw, dt, pp_dtype_attn(dt), 2.0, PP_PART_LAYER, PP_PH_FWD, 0,
		 NULL, PP_ATTN_CATALOG, false, false, 0, false};
	return c;
}

static void build(pp_forward *f, entry *e, const pp_fwd_batch *b, double tpad)
{
	ctx c = fwd_ctx(f);
	dims x;
	batch_dims(&x, f, b, tpad);
	f->w.nops = 0;
	e->min_t = INFINITY;
	for (int k = 0; k < PP_LAYER_KINDS; k++) {
		e->n[k] = 0;
		if (!kind_present(f, k))
			continue;
		c.kind = k;
		x.moe = (k & PP_LK_MOE) != 0;
		x.windowed = (k & PP_LK_WINDOW) != 0;
		int from = f->w.nops;
		layer_ops(&c, &x, f->tp);
		keep(f, e, k, from);
	}
	/* the embedding and the head stay 16-bit */
	c.dt = c.attn_dt = PP_DT_BF16;
	c.kind = 0;
	c.part = PP_PART_EMBED;
	int from = f->w.nops;
	wl_embed_fwd(&c, &x, f->tp);
	keep(f, e, PP_LAYER_KINDS, from);
	c.part = PP_PART_HEAD;
	from = f->w.nops;
	wl_head_fwd(&c, &x, f->tp, true);
	keep(f, e, PP_LAYER_KINDS + 1, from);
	/* vLLM's pipeline stages pass the hidden states and, for Llama-style
	 * models, the residual (IntermediateTensors); each TP rank sends 1/t */
	double send_bytes = (f->base.swiglu ? 2.0 : 1.0) * tpad * f->base.h * 2.0 / f->base.t;
	e->p2p_s = 0;
	for (int st = 0; st + 1 < f->nstages; st++)
		e->p2p_s += pp_p2p_time(f->hw, send_bytes, pp_stage_link_same_domain(f->s, st));
}

/* The attention ops of this batch, in layer-kind order, costed anew:
 * the core's ops alone (the projections around it are the entry's, and
 * the core's ops read nothing they set), without building an op list. */
static void attention_times(pp_forward *f, const pp_fwd_batch *b, double tpad, double *t,
			    double *fl, double *by, int *n)
{
	ctx c = fwd_ctx(f);
	dims *x = &f->ax; /* f->base's but for the batch's fields, set here */
	batch_fields(x, b, tpad);
	for (int k = 0; k < PP_LAYER_KINDS; k++) {
		n[k] = 0;
		if (!kind_present(f, k))
			continue;
		c.kind = k;
		x->moe = (k & PP_LK_MOE) != 0;
		x->windowed = (k & PP_LK_WINDOW) != 0;
		wl_attn_fig a[WL_SERVE_ATTN_MAX];
		int na = wl_serve_attention_core(&c, x, a);
		for (int i = 0; i < na; i++) {
			t[k * 4 + i] = a[i].time_s;
			fl[k * 4 + i] = a[i].flops;
			by[k * 4 + i] = a[i].bytes;
		}
		n[k] = na;
	}
}

/* ---- the iteration ---- */

static entry *lookup(pp_forward *f, double tpad, double tact, double rows, bool graphed, int parts)
{
	uint64_t h = (uint64_t)tpad * 1000003u ^ (uint64_t)tact * 10007u ^ (uint64_t)rows * 101u ^
		     (uint64_t)graphed ^ (uint64_t)parts << 40;
	h ^= h >> 29;
	size_t slot = h % CACHE;
	entry *e = &f->cache[slot];
	if (!f->seen[slot]) {
		memset(e, 0, sizeof(*e));
		f->seen[slot] = 1;
		return e;
	}
	if (e->used && e->tpad == tpad && e->tact == tact && e->rows == rows && e->graphed == graphed &&
	    e->parts == parts)
		return e;
	e->used = false;
	return e;
}

double pp_forward_padded(const pp_forward *f, double n, bool decode_only)
{
	if (!decode_only || n > (double)f->o.graph_max_tokens || n <= 0)
		return n;
	if (n <= 1)
		return 1;
	if (n <= 2)
		return 2;
	if (n <= 4)
		return 4;
	return 8.0 * ceil(n / 8.0);
}

/* Segment seg's sums for this batch: the entry's prefix, then the ops
 * from the first attention op on, added in the same order as a walk
 * from the first op would add them. */
static void seg_sums(const entry *e, int seg, const double *at, const double *afl,
		     const double *aby, const int *na, segsum *g)
{
	*g = e->pre[seg];
	if (e->a0[seg] < e->n[seg]) /* else no attention op: the prefix is the whole */
		seg_add(e, seg, e->a0[seg], e->n[seg], at, afl, aby, na, g);
}

/* Segment seg's op times in order, its attention ops this batch's: the
 * launch-bound walk below reads them once per layer. In f's scratch. */
static const double *seg_times(pp_forward *f, const entry *e, int seg, const double *at,
			       const int *na)
{
	int n = e->n[seg];
	if (n > f->ncap) {
		f->ncap = n;
		f->times = pp_xrealloc(f->times, sizeof(double) * (size_t)n);
	}
	int ai = 0;
	for (int i = 0; i < n; i++) {
		const mop *m = &e->ops[seg][i];
		f->times[i] = m->t;
		if (m->cls == OC_ATTN && seg < PP_LAYER_KINDS && ai < na[seg])
			f->times[i] = at[seg * 4 + ai++];
	}
	return f->times;
}

void pp_forward_cost(pp_forward *f, const pp_fwd_batch *b, pp_fwd_cost *out)
{
	/* every field but the stages' times, which are written for each of
	 * the nstages below (the array is most of the struct) */
	memset(out, 0, offsetof(pp_fwd_cost, stage_s));
	memset(&out->p2p_s, 0, sizeof(*out) - offsetof(pp_fwd_cost, p2p_s));
	double tact = b->prefill_tokens + b->decode_tokens;
	bool decode_only = b->prefill_tokens <= 0 && tact > 0;
	bool graphed = decode_only && f->o.graph_max_tokens > 0 && tact <= (double)f->o.graph_max_tokens;
	double tpad = graphed ? pp_forward_padded(f, tact, true) : tact;
	double rows = b->sampled;
	int parts = (b->prefill_tokens > 0) | (b->decode_tokens > 0) << 1;
	entry *e = lookup(f, tpad, tact, rows, graphed, parts);
	if (!e->used) {
		build(f, e, b, tpad);
		e->used = true;
		e->tpad = tpad;
		e->tact = tact;
		e->rows = rows;
		e->graphed = graphed;
		e->parts = parts;
	}
	double at[PP_LAYER_KINDS * 4], afl[PP_LAYER_KINDS * 4], aby[PP_LAYER_KINDS * 4];
	int na[PP_LAYER_KINDS];
	attention_times(f, b, tpad, at, afl, aby, na);
	double L = graphed ? f->o.launch_graph_s : f->o.launch_eager_s;
	double min_t = e->min_t;
	for (int k = 0; k < PP_LAYER_KINDS; k++)
		for (int i = 0; i < na[k]; i++)
			if (at[k * 4 + i] < min_t)
				min_t = at[k * 4 + i];
	bool closed = min_t >= L; /* the GPU never waits for the host after the first launch */
	segsum sg[NSEG];
	for (int seg = 0; seg < NSEG; seg++)
		if (e->n[seg])
			seg_sums(e, seg, at, afl, aby, na, &sg[seg]);
	out->nstages = f->nstages;
	out->graphed = graphed;
	out->tokens = tpad;
	for (int st = 0; st < f->nstages; st++) {
		double cpu = 0, gpu = 0, busy = 0;
		for (int j = 0; j < f->nsegs[st]; j++) {
			int seg = f->segs[st][j];
			double reps = f->reps[st][j];
			if (!e->n[seg])
				continue;
			const segsum *g = &sg[seg];
			out->compute_s += reps * g->comp;
			out->tp_comm_s += reps * g->tpc;
			out->ep_comm_s += reps * g->epc;
			out->flops += reps * g->fl;
			out->bytes += reps * g->by;
			out->kernels += (int)reps * e->n[seg];
			busy += reps * g->sum;
			if (closed) {
				if (cpu == 0)
					cpu = L;
				gpu = (gpu > cpu ? gpu : cpu) + reps * g->sum;
				cpu += reps * e->n[seg] * L;
				continue;
			}
			const double *ts = seg_times(f, e, seg, at, na);
			for (int r = 0; r < (int)reps; r++)
				for (int i = 0; i < e->n[seg]; i++) {
					cpu += L;
					gpu = (gpu > cpu ? gpu : cpu) + ts[i];
				}
		}
		out->stage_s[st] = gpu;
		out->launch_s += gpu - busy;
		out->total_s += gpu;
	}
	out->p2p_s = e->p2p_s;
	out->total_s += out->p2p_s;
}

/* ---- set-up ---- */

int pp_forward_new(pp_forward **out, const pp_scenario *s, const pp_hw *hw, const pp_fwd_opts *o,
		   pp_err *err)
{
	*out = NULL;
	const pp_parallel *p = &s->parallel;
	if (p->pp > PP_FWD_MAX_STAGES)
		return pp_errf(err, PP_EINPUT, "%d pipeline stages; podplan serve models at most %d",
			       p->pp, PP_FWD_MAX_STAGES);
	pp_forward *f = pp_xcalloc(1, sizeof(*f));
	f->cache = pp_xmalloc(sizeof(entry) * CACHE);
	f->s = s;
	f->hw = hw;
	f->o = *o;
	f->tp = pp_group_place(p->tp, 1, pp_workload_domain_gpus(s));
	f->nstages = p->pp;
	for (int st = 0; st < p->pp; st++) {
		pp_stage_kinds(s, st, f->kinds[st]);
		for (int k = 0; k < PP_LAYER_KINDS; k++)
			f->present[k] |= f->kinds[st][k] > 0;
		for (int seg = 0; seg < NSEG; seg++) {
			double reps = seg < PP_LAYER_KINDS ? f->kinds[st][seg]
				      : seg == PP_LAYER_KINDS ? (st == 0) : (st == p->pp - 1);
			if (reps <= 0)
				continue;
			f->segs[st][f->nsegs[st]] = (unsigned char)seg;
			f->reps[st][f->nsegs[st]++] = reps;
		}
	}
	base_dims(f);
	f->ax = f->base;
	/* the measured custom all-reduce: on its fabric, inside a node */
	f->curve = NULL;
	for (int i = 0; i < o->nar; i++)
		if (o->ar[i].tp >= p->tp && o->ar[i].n > 0 && (!f->curve || o->ar[i].tp < f->curve->tp))
			f->curve = &o->ar[i];
	f->ar_applies = o->custom_allreduce && f->curve && p->tp > 1 && f->tp.per_node == f->tp.n &&
			o->ar_intra_node && s->cluster.intra && !strcmp(s->cluster.intra->id, o->ar_intra_node);
	*out = f;
	return 0;
}

void pp_forward_free(pp_forward *f)
{
	if (!f)
		return;
	for (int i = 0; i < CACHE; i++)
		if (f->seen[i])
			for (int k = 0; k < NSEG; k++)
				free(f->cache[i].ops[k]);
	free(f->cache);
	pp_workload_release(&f->w);
	free(f->times);
	free(f);
}

double pp_forward_peak_activation_bytes(const pp_forward *f, double t)
{
	const dims *x = &f->base;
	double act = 2.0;
	double stream = 2.0 * t * x->h * act;                       /* hidden states, residual */
	double attn = t * (x->qw + 2.0 * x->g * x->d) / x->t * act  /* qkv */
		      + t * x->qw / x->t * act;                     /* attention output */
	double mlp = t * (x->swiglu ? 3.0 : 2.0) * x->f / x->t * act; /* gate_up and its product */
	double moe = 0;
	if (x->E > 0)
		moe = t * x->E * 4.0 + t * x->topk / x->ep * x->h * act * 2.0 +
		      t * x->topk / x->ep * (x->swiglu ? 3.0 : 2.0) * x->Fm / x->etp * act;
	double peak = attn > mlp ? attn : mlp;
	if (moe > peak)
		peak = moe;
	return stream + peak;
}
