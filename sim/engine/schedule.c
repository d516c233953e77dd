/* schedule.c - see schedule.h. */
#include "engine/schedule.h"
#include "engine/collective.h"
#include "engine/compute.h"
#include "engine/memory.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_cat_names[PP_CAT_COUNT] = {
	"forward", "backward", "send activations", "send gradients", "gradient reduce",
	"parameter all-gather", "embedding all-reduce", "optimizer", "data loading"};

static int64_t ns(double s)
{
	return (int64_t)llround(s * 1e9);
}

int pp_schedule_order(const pp_scenario *s, int stage, pp_unit *out)
{
	const pp_parallel *p = &s->parallel;
	int m = (int)s->training.num_microbatches;
	int n = 0;
	if (p->schedule == PP_SCHED_GPIPE) {
		for (int j = 0; j < m; j++)
			out[n++] = (pp_unit){true, 0, j};
		for (int j = m - 1; j >= 0; j--)
			out[n++] = (pp_unit){false, 0, j};
		return n;
	}
	if (p->schedule == PP_SCHED_1F1B || p->vpp == 1) {
		int warm = p->pp - stage - 1;
		if (warm > m)
			warm = m;
		for (int j = 0; j < warm; j++)
			out[n++] = (pp_unit){true, 0, j};
		for (int i = 0; i < m - warm; i++) {
			out[n++] = (pp_unit){true, 0, warm + i};
			out[n++] = (pp_unit){false, 0, i};
		}
		for (int i = m - warm; i < m; i++)
			out[n++] = (pp_unit){false, 0, i};
		return n;
	}
	/* Megatron-LM interleaved 1F1B (forward_backward_pipelining_with_interleaving) */
	int P = p->pp, v = p->vpp, total = m * v;
	int warm = (P - stage - 1) * 2 + (v - 1) * P;
	if (m == P || warm > total)
		warm = total;
	int rest = total - warm;
#define FCHUNK(k) (((k) / P) % v)
#define BCHUNK(k) (v - 1 - ((k) / P) % v)
#define MB(k) (((k) / (P * v)) * P + (k) % P)
	for (int k = 0; k < warm; k++)
		out[n++] = (pp_unit){true, FCHUNK(k), MB(k)};
	for (int i = 0; i < rest; i++) {
		int k = warm + i;
		out[n++] = (pp_unit){true, FCHUNK(k), MB(k)};
		out[n++] = (pp_unit){false, BCHUNK(i), MB(i)};
	}
	for (int i = rest; i < total; i++)
		out[n++] = (pp_unit){false, BCHUNK(i), MB(i)};
#undef FCHUNK
#undef BCHUNK
#undef MB
	return n;
}

typedef struct builder {
	pp_des *d;
	const pp_scenario *s;
	const pp_hw *hw;
	const pp_workload *w;
	const pp_sched_opts *o;
	int P, V, M;
	pp_task_ns dur;                           /* compute-stream task durations */
	int *first_f, *last_f, *first_b, *last_b; /* [vs * M + mb] */
	int *send_f, *send_b;                     /* blocking sends on the compute stream */
	int64_t *p2p_dur;                         /* per boundary st -> st+1 */
	double bucket_params;
	int comp_res;                             /* the stage being built's compute stream */
} builder;

static pp_des_tag tag(int cat, int chunk, int layer, int mb)
{
	return (pp_des_tag){(uint8_t)cat, (uint8_t)chunk, (int16_t)layer, mb};
}

/* ZeRO-3: a gather before each compute task (prefetched one task ahead)
 * and a reduce-scatter after each backward task, all on the DP stream. */
typedef struct z3 {
	int dp_res;
	int prev_compute[2]; /* the two previous compute tasks, for prefetch depth 1 */
	int pending_rs;      /* a backward task whose reduce-scatter is still to emit */
	double pending_params;
} z3;

/* A collective on the data-parallel stream slows the compute running
 * beside it: its NCCL kernels take SMs and memory bandwidth for the bytes
 * each GPU sends, receives and reduces. That GPU-side work lasts as long as
 * the collective takes at the intra-node rate (t_local); a slower fabric
 * stretches the collective, not the work. The share (1 - overlap_eff) of
 * min(its time, t_local) is added to the compute stream where it is issued,
 * as workload.c charges a TP collective that overlaps a GEMM; beside an
 * idle compute stream it costs nothing (it ends before the collective).
 * overlap_eff: the catalog prior, or measured by podplan-calibrate overlap
 * (a GEMM or copy beside an NVLink collective vs each alone). */
static void interference(builder *b, int64_t comm_ns, pp_coll op, double bytes, pp_des_tag tg)
{
	double f = 1.0 - b->hw->overlap_eff;
	if (f <= 0 || comm_ns <= 0)
		return;
	pp_group local = {b->w->dp.n, b->w->dp.n};
	double t = fmin((double)comm_ns, 1e9 * pp_coll_time(b->hw, op, bytes, local));
	pp_des_task(b->d, b->comp_res, (int64_t)llround(f * t), tg);
}

static double ag_time(const builder *b, double params)
{
	return pp_coll_time(b->hw, PP_COLL_ALL_GATHER,
			    params * b->w->param_gather_bytes_per_param, b->w->dp);
}

static double rs_time(const builder *b, double params)
{
	return pp_coll_time(b->hw, PP_COLL_REDUCE_SCATTER,
			    params * b->w->grad_comm_bytes_per_param, b->w->dp);
}

/* Add one compute-stream task, with the ZeRO-3 traffic around it. */
static int compute_task(builder *b, z3 *z, int res, int64_t dur, pp_des_tag tg, double params,
			bool bwd)
{
	int agt = -1;
	if (z && params > 0) {
		int64_t ag = b->o->no_dp ? 0 : ns(ag_time(b, params));
		agt = pp_des_task(b->d, z->dp_res, ag, tag(PP_CAT_PARAM_GATHER, tg.chunk, tg.layer, tg.mb));
		pp_des_dep(b->d, agt, z->prev_compute[0]);
		interference(b, ag, PP_COLL_ALL_GATHER, params * b->w->param_gather_bytes_per_param,
			     tag(PP_CAT_PARAM_GATHER, tg.chunk, tg.layer, tg.mb));
		if (z->pending_rs >= 0) {
			int64_t rs = b->o->no_dp ? 0 : ns(rs_time(b, z->pending_params));
			int rst = pp_des_task(b->d, z->dp_res, rs, tag(PP_CAT_GRAD_REDUCE, 0, -1, -1));
			pp_des_dep(b->d, rst, z->pending_rs);
			interference(b, rs, PP_COLL_REDUCE_SCATTER,
				     z->pending_params * b->w->grad_comm_bytes_per_param,
				     tag(PP_CAT_GRAD_REDUCE, 0, -1, -1));
			z->pending_rs = -1;
		}
	}
	int t = pp_des_task(b->d, res, dur, tg);
	if (agt >= 0)
		pp_des_dep(b->d, t, agt);
	if (z) {
		z->prev_compute[0] = z->prev_compute[1];
		z->prev_compute[1] = t;
		if (bwd && params > 0) {
			z->pending_rs = t;
			z->pending_params = params;
		}
	}
	return t;
}

static void grad_reduce(builder *b, int dp_res, double params, int after, int *last_dp)
{
	const pp_workload *w = b->w;
	pp_coll op = b->s->parallel.zero_stage == 0 ? PP_COLL_ALL_REDUCE : PP_COLL_REDUCE_SCATTER;
	double bytes = params * w->grad_comm_bytes_per_param;
	/* nccl-tests' size for reduce_scatter is the whole (unsharded) input */
	int64_t dur = b->o->no_dp ? 0 : ns(pp_coll_time(b->hw, op, bytes, w->dp));
	int t = pp_des_task(b->d, dp_res, dur, tag(PP_CAT_GRAD_REDUCE, 0, -1, -1));
	pp_des_dep(b->d, t, after);
	interference(b, dur, op, bytes, tag(PP_CAT_GRAD_REDUCE, 0, -1, -1));
	*last_dp = t;
}

static void build_stage(builder *b, int st, int comp_res, int dp_res, pp_unit *order,
			pp_stage_busy *busy, int *last_dp_out, int *opt_task_out, int *embed_dep)
{
	const pp_scenario *s = b->s;
	const pp_parallel *p = &s->parallel;
	const pp_workload *w = b->w;
	int P = b->P, V = b->V, M = b->M;
	int zero = p->zero_stage;
	bool overlap_grad = s->training.overlap_grad_reduce;
	bool overlap_ag = s->training.overlap_param_gather;
	int n = pp_schedule_order(s, st, order);
	int last_dp = -1;
	b->comp_res = comp_res;

	/* the last backward unit of each chunk (its backward carries the
	 * gradient reduction of that chunk) */
	int last_b_of_chunk[256];
	for (int c = 0; c < V; c++)
		last_b_of_chunk[c] = -1;
	for (int i = 0; i < n; i++)
		if (!order[i].fwd)
			last_b_of_chunk[order[i].chunk] = i;

	/* distributed optimizer: parameter all-gather per bucket at the start
	 * of the step, each layer's first forward waiting for its bucket */
	int *ag_of = NULL; /* [chunk * maxlayers + layer] */
	int maxl = 0;
	for (int c = 0; c < V; c++) {
		int l = pp_stage_layers(s, c * P + st);
		if (l > maxl)
			maxl = l;
	}
	bool dist_opt_ag = (zero == 1 || zero == 2) && w->dp.n > 1;
	if (dist_opt_ag && overlap_ag) {
		ag_of = pp_xmalloc(sizeof(int) * (size_t)(V * (maxl + 1)));
		for (int c = 0; c < V; c++) {
			int vs = c * P + st;
			int L = pp_stage_layers(s, vs);
			double acc = (vs == 0) ? w->params_embed : 0;
			int first_in_bucket = 0;
			for (int l = 0; l < L; l++) {
				acc += w->params_layer;
				bool last = l == L - 1;
				if (acc >= b->bucket_params || last) {
					double pr = acc + (last && vs == P * V - 1 ? w->params_head : 0);
					int64_t dur = b->o->no_dp ? 0 : ns(ag_time(b, pr));
					int t = pp_des_task(b->d, dp_res, dur,
							    tag(PP_CAT_PARAM_GATHER, c, l, -1));
					interference(b, dur, PP_COLL_ALL_GATHER,
						     pr * w->param_gather_bytes_per_param,
						     tag(PP_CAT_PARAM_GATHER, c, l, -1));
					for (int k = first_in_bucket; k <= l; k++)
						ag_of[c * (maxl + 1) + k] = t;
					first_in_bucket = l + 1;
					acc = 0;
				}
			}
		}
	}

	z3 zs = {dp_res, {-1, -1}, -1, 0}, *z = zero == 3 && w->dp.n > 1 ? &zs : NULL;
	bool first_use[256];
	for (int c = 0; c < V; c++)
		first_use[c] = true;
	double tp_total = 0, compute_total = 0;
	int last = -1;
	for (int i = 0; i < n; i++) {
		pp_unit u = order[i];
		int vs = u.chunk * P + st;
		int L = pp_stage_layers(s, vs);
		int key = vs * M + u.mb;
		bool reduce_here = !u.fwd && i == last_b_of_chunk[u.chunk] && !z && w->dp.n > 1;
		double acc = 0;
		if (u.fwd) {
			if (vs == 0) {
				int t = compute_task(b, z, comp_res, b->dur.f_embed,
						     tag(PP_CAT_FWD, u.chunk, PP_LAYER_EMBED, u.mb),
						     w->params_embed, false);
				b->first_f[key] = t;
				compute_total += w->embed.fwd.compute_s;
				tp_total += w->embed.fwd.comm_s;
			}
			for (int l = 0; l < L; l++) {
				int t = compute_task(b, z, comp_res, b->dur.f_layer,
						     tag(PP_CAT_FWD, u.chunk, l, u.mb), w->params_layer,
						     false);
				if (l == 0 && vs != 0)
					b->first_f[key] = t;
				if (ag_of && first_use[u.chunk])
					pp_des_dep(b->d, t, ag_of[u.chunk * (maxl + 1) + l]);
				b->last_f[key] = t;
			}
			first_use[u.chunk] = false;
			compute_total += L * w->layer.fwd.compute_s;
			tp_total += L * w->layer.fwd.comm_s;
			if (vs == P * V - 1) {
				int t = compute_task(b, z, comp_res, b->dur.f_head,
						     tag(PP_CAT_FWD, u.chunk, PP_LAYER_HEAD, u.mb),
						     w->params_head, false);
				b->last_f[key] = t;
				compute_total += w->head.fwd.compute_s;
				tp_total += w->head.fwd.comm_s;
			}
		} else {
			if (vs == P * V - 1) {
				int t = compute_task(b, z, comp_res, b->dur.b_head,
						     tag(PP_CAT_BWD, u.chunk, PP_LAYER_HEAD, u.mb),
						     w->params_head, true);
				b->first_b[key] = t;
				compute_total += w->head.bwd.compute_s;
				tp_total += w->head.bwd.comm_s;
				if (reduce_here)
					acc += w->params_head;
			}
			for (int l = L - 1; l >= 0; l--) {
				int t = compute_task(b, z, comp_res, b->dur.b_layer,
						     tag(PP_CAT_BWD, u.chunk, l, u.mb), w->params_layer, true);
				if (l == L - 1 && vs != P * V - 1)
					b->first_b[key] = t;
				b->last_b[key] = t;
				if (reduce_here) {
					acc += w->params_layer;
					if (overlap_grad && acc >= b->bucket_params) {
						grad_reduce(b, dp_res, acc, t, &last_dp);
						acc = 0;
					}
				}
			}
			compute_total += L * (w->layer.bwd.compute_s + w->layer.recompute.compute_s);
			tp_total += L * (w->layer.bwd.comm_s + w->layer.recompute.comm_s);
			if (vs == 0) {
				int t = compute_task(b, z, comp_res, b->dur.b_embed,
						     tag(PP_CAT_BWD, u.chunk, PP_LAYER_EMBED, u.mb),
						     w->params_embed, true);
				b->last_b[key] = t;
				compute_total += w->embed.bwd.compute_s;
				tp_total += w->embed.bwd.comm_s;
				if (reduce_here)
					acc += w->params_embed;
			}
			if (reduce_here && overlap_grad && acc > 0)
				grad_reduce(b, dp_res, acc, b->last_b[key], &last_dp);
		}
		last = b->last_b[key] >= 0 && !u.fwd ? b->last_b[key] : b->last_f[key];
		/* Megatron without --overlap-p2p-communication: the send blocks the
		 * sender's compute stream until the transfer is done */
		if (!s->training.overlap_p2p_comm && P > 1) {
			if (u.fwd && vs < P * V - 1) {
				int t = pp_des_task(b->d, comp_res, b->p2p_dur[st],
						    tag(PP_CAT_P2P_FWD, u.chunk, -1, u.mb));
				b->send_f[key] = t;
				last = t;
			} else if (!u.fwd && vs > 0) {
				int t = pp_des_task(b->d, comp_res,
						    b->p2p_dur[(st + P - 1) % P],
						    tag(PP_CAT_P2P_BWD, u.chunk, -1, u.mb));
				b->send_b[key] = t;
				last = t;
			}
		}
	}
	if (z && z->pending_rs >= 0) {
		int64_t rs = b->o->no_dp ? 0 : ns(rs_time(b, z->pending_params));
		int rst = pp_des_task(b->d, z->dp_res, rs, tag(PP_CAT_GRAD_REDUCE, 0, -1, -1));
		pp_des_dep(b->d, rst, z->pending_rs);
		interference(b, rs, PP_COLL_REDUCE_SCATTER,
			     z->pending_params * w->grad_comm_bytes_per_param,
			     tag(PP_CAT_GRAD_REDUCE, 0, -1, -1));
		last_dp = rst;
	}
	if (!z && w->dp.n > 1 && !overlap_grad) {
		/* no overlap: the whole stage's gradients after its last backward,
		 * still in buckets */
		double total = 0;
		for (int c = 0; c < V; c++)
			total += pp_stage_layers(s, c * P + st) * w->params_layer;
		if (st == 0)
			total += w->params_embed;
		if (st == P - 1)
			total += w->params_head;
		while (total > 0) {
			double chunk = total > b->bucket_params ? b->bucket_params : total;
			grad_reduce(b, dp_res, chunk, last, &last_dp);
			total -= chunk;
		}
	}
	if (z && last_dp < 0)
		last_dp = zs.prev_compute[1];
	*last_dp_out = last_dp;
	*embed_dep = last;

	/* optimizer on the stage's (shard of) parameters */
	double params = 0;
	for (int c = 0; c < V; c++)
		params += pp_stage_layers(s, c * P + st) * w->params_layer;
	if (st == 0)
		params += w->params_embed;
	if (st == P - 1)
		params += w->params_head;
	double local = zero >= 1 ? params / w->dp.n : params;
	double opt_s = pp_mem_time(b->hw, local * (w->optimizer_bytes_per_param + 4.0)) +
		       2.0 * b->hw->coll_launch_s; /* grad-norm pass and its scalar all-reduce */
	int opt = pp_des_task(b->d, comp_res, ns(opt_s), tag(PP_CAT_OPTIMIZER, 0, -1, -1));
	pp_des_dep(b->d, opt, last);
	if (last_dp >= 0)
		pp_des_dep(b->d, opt, last_dp);
	*opt_task_out = opt;
	busy->compute_s = compute_total;
	busy->tp_s = tp_total;
	busy->opt_s = opt_s;
	busy->last_task = opt;
	if (dist_opt_ag && !overlap_ag) {
		double pr = params;
		while (pr > 0) {
			double chunk = pr > b->bucket_params ? b->bucket_params : pr;
			int64_t dur = b->o->no_dp ? 0 : ns(ag_time(b, chunk));
			int t = pp_des_task(b->d, dp_res, dur, tag(PP_CAT_PARAM_GATHER, 0, -1, -1));
			pp_des_dep(b->d, t, opt);
			interference(b, dur, PP_COLL_ALL_GATHER, chunk * w->param_gather_bytes_per_param,
				     tag(PP_CAT_PARAM_GATHER, 0, -1, -1));
			pr -= chunk;
		}
	}
	free(ag_of);
}

pp_task_ns pp_task_durations(const pp_workload *w, double k)
{
	const pp_part_cost *lc = &w->layer;
	pp_task_ns t;
	t.f_layer = ns(k * (lc->fwd.compute_s + lc->fwd.comm_s));
	t.b_layer = ns(k * (lc->bwd.compute_s + lc->bwd.comm_s + lc->recompute.compute_s +
			    lc->recompute.comm_s));
	t.f_embed = ns(k * (w->embed.fwd.compute_s + w->embed.fwd.comm_s));
	t.b_embed = ns(k * (w->embed.bwd.compute_s + w->embed.bwd.comm_s));
	t.f_head = ns(k * (w->head.fwd.compute_s + w->head.fwd.comm_s));
	t.b_head = ns(k * (w->head.bwd.compute_s + w->head.bwd.comm_s));
	return t;
}

double pp_pipeline_stretch(const pp_scenario *s, const pp_hw *hw)
{
	if (s->parallel.pp < 2 || s->training.overlap_p2p_comm)
		return 1;
	return 1 + hw->blocking_pipeline_stall;
}

void pp_schedule_build(pp_des *d, const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
		       const pp_sched_opts *o, pp_stage_busy *busy)
{
	pp_des_clear(d);
	const pp_parallel *p = &s->parallel;
	builder b;
	memset(&b, 0, sizeof(b));
	b.d = d;
	b.s = s;
	b.hw = hw;
	b.w = w;
	b.o = o;
	b.P = p->pp;
	b.V = p->vpp;
	b.M = (int)s->training.num_microbatches;
	b.dur = pp_task_durations(w, o->no_p2p ? 1 : pp_pipeline_stretch(s, hw));
	/* Megatron DDP bucket: max(40M, 1M x dp) parameters */
	double bucket = s->training.bucket_bytes / 4.0;
	if (bucket < 1e6 * w->dp.n)
		bucket = 1e6 * w->dp.n;
	b.bucket_params = bucket;
	size_t nk = (size_t)b.P * b.V * b.M;
	b.first_f = pp_xmalloc(sizeof(int) * nk);
	b.last_f = pp_xmalloc(sizeof(int) * nk);
	b.first_b = pp_xmalloc(sizeof(int) * nk);
	b.last_b = pp_xmalloc(sizeof(int) * nk);
	b.send_f = pp_xmalloc(sizeof(int) * nk);
	b.send_b = pp_xmalloc(sizeof(int) * nk);
	for (size_t i = 0; i < nk; i++)
		b.first_f[i] = b.last_f[i] = b.first_b[i] = b.last_b[i] = b.send_f[i] = b.send_b[i] = -1;
	b.p2p_dur = pp_xmalloc(sizeof(int64_t) * (size_t)b.P);
	for (int st = 0; st < b.P; st++) {
		bool same = st == b.P - 1 ? (s->cluster.num_gpus <= s->cluster.gpus_per_node)
					  : pp_stage_link_same_node(s, st);
		b.p2p_dur[st] = o->no_p2p ? 0 : ns(pp_p2p_time(hw, w->p2p_bytes, same));
	}
	pp_unit *order = pp_xmalloc(sizeof(pp_unit) * (size_t)(2 * b.M * b.V));

	int *comp = pp_xmalloc(sizeof(int) * (size_t)b.P);
	int *dpr = pp_xmalloc(sizeof(int) * (size_t)b.P);
	for (int st = 0; st < b.P; st++) {
		char name[48];
		snprintf(name, sizeof(name), "stage %d compute", st);
		comp[st] = pp_des_resource(d, name, st, true);
		snprintf(name, sizeof(name), "stage %d data-parallel comm", st);
		dpr[st] = pp_des_resource(d, name, st, true);
	}
	int *last_dp = pp_xmalloc(sizeof(int) * (size_t)b.P);
	int *opt = pp_xmalloc(sizeof(int) * (size_t)b.P);
	int *edep = pp_xmalloc(sizeof(int) * (size_t)b.P);
	for (int st = 0; st < b.P; st++)
		build_stage(&b, st, comp[st], dpr[st], order, &busy[st], &last_dp[st], &opt[st],
			    &edep[st]);

	/* stage-to-stage transfers (one link per direction per boundary) */
	if (b.P > 1 && !s->training.overlap_p2p_comm) {
		int NV = b.P * b.V;
		for (int vs = 0; vs + 1 < NV; vs++) {
			for (int j = 0; j < b.M; j++) {
				pp_des_dep(d, b.first_f[(vs + 1) * b.M + j], b.send_f[vs * b.M + j]);
				pp_des_dep(d, b.first_b[vs * b.M + j], b.send_b[(vs + 1) * b.M + j]);
			}
		}
	} else if (b.P > 1) {
		int *lf = pp_xmalloc(sizeof(int) * (size_t)b.P);
		int *lb = pp_xmalloc(sizeof(int) * (size_t)b.P);
		int64_t *dur = b.p2p_dur;
		for (int st = 0; st < b.P; st++) {
			char name[48];
			snprintf(name, sizeof(name), "link %d->%d", st, (st + 1) % b.P);
			lf[st] = pp_des_resource(d, name, st, false);
			snprintf(name, sizeof(name), "link %d->%d", (st + 1) % b.P, st);
			lb[st] = pp_des_resource(d, name, (st + 1) % b.P, false);
		}
		int NV = b.P * b.V;
		for (int vs = 0; vs + 1 < NV; vs++) {
			int st = vs % b.P;
			for (int j = 0; j < b.M; j++) {
				int t = pp_des_task(d, lf[st], dur[st], tag(PP_CAT_P2P_FWD, vs / b.P, -1, j));
				pp_des_dep(d, t, b.last_f[vs * b.M + j]);
				pp_des_dep(d, b.first_f[(vs + 1) * b.M + j], t);
				t = pp_des_task(d, lb[st], dur[st], tag(PP_CAT_P2P_BWD, vs / b.P, -1, j));
				pp_des_dep(d, t, b.last_b[(vs + 1) * b.M + j]);
				pp_des_dep(d, b.first_b[vs * b.M + j], t);
			}
		}
		free(lf);
		free(lb);
	}
	if (b.P > 1) {
		/* tied word embeddings: gradient all-reduce between the first and
		 * last stage before their optimizer steps */
		if (s->model.tied_embeddings) {
			int link = pp_des_resource(d, "embedding group", 0, false);
			double bytes = w->params_embed * 4.0;
			pp_group g = {2, s->cluster.num_gpus <= s->cluster.gpus_per_node ? 2 : 1};
			int64_t du = o->no_dp ? 0 : ns(pp_coll_time(hw, PP_COLL_ALL_REDUCE, bytes, g));
			int t = pp_des_task(d, link, du, tag(PP_CAT_EMBED_ALLREDUCE, 0, -1, -1));
			int ends[2] = {0, b.P - 1};
			for (int e = 0; e < 2; e++) {
				pp_des_dep(d, t, edep[ends[e]]);
				if (last_dp[ends[e]] >= 0)
					pp_des_dep(d, t, last_dp[ends[e]]);
				pp_des_dep(d, opt[ends[e]], t);
			}
		}
	}

	/* data loading for the next step, on the storage target */
	if (!o->no_data) {
		int sto = pp_des_resource(d, "storage", b.P, false);
		int nodes = pp_cluster_nodes(&s->cluster);
		double bytes = (double)s->training.global_batch_size * s->model.seq_length *
			       s->training.data_bytes_per_token;
		double t_node = bytes / nodes / hw->storage_read_Bps;
		if (hw->storage_agg_read_Bps > 0 && bytes / hw->storage_agg_read_Bps > t_node)
			t_node = bytes / hw->storage_agg_read_Bps;
		pp_des_task(d, sto, ns(t_node), tag(PP_CAT_DATA, 0, -1, -1));
	}
	free(order);
	free(comp);
	free(dpr);
	free(last_dp);
	free(opt);
	free(edep);
	free(b.send_f);
	free(b.send_b);
	free(b.p2p_dur);
	free(b.first_f);
	free(b.last_f);
	free(b.first_b);
	free(b.last_b);
}
