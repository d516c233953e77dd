/* stepcost.c - see stepcost.h. */
#include "engine/stepcost.h"
#include "engine/compute.h"
#include "engine/stages.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* llround(x): the nearest integer, halves away from zero, without libm's
 * call (a search rounds millions of durations). For |x| < 2^62 the
 * truncation is exact and so is x less it, so the comparison with 0.5
 * decides as llround does; NaN, infinities and the rest go to llround. */
static inline int64_t round_half_away(double x)
{
	if (!(fabs(x) < 0x1p62))
		return (int64_t)llround(x);
	int64_t r = (int64_t)x;
	double f = x - (double)r;
	if (f >= 0.5)
		r++;
	else if (f <= -0.5)
		r--;
	return r;
}

int64_t pp_ns(double s)
{
	return round_half_away(s * 1e9);
}

/* The compute-stream seconds of a pass: kernels and the exposed TP/CP and
 * EP collectives (ep_comm_s is 0 for a dense layer, so a dense layer's sum
 * is kernels + TP/CP exactly) less save (the EP time a combined 1F1B pair
 * hides, 0 without --overlap-moe-expert-parallel-comm), or the host's time
 * to issue its kernels when that is longer (eager PyTorch without CUDA
 * graphs: the GPU waits for the Python side; host_s is 0 for a stack that
 * is not host-bound). */
static double gpu_s(const pp_pass_cost *p, double save)
{
	return p->compute_s + p->comm_s + p->ep_comm_s - save;
}

static double pass_s(const pp_pass_cost *p, double save)
{
	double g = gpu_s(p, save);
	return g > p->host_s ? g : p->host_s;
}

/* The host-bound excess of a pass (booked as compute by the breakdown). */
static double host_excess_s(const pp_pass_cost *p, double save)
{
	double g = gpu_s(p, save);
	return p->host_s > g ? p->host_s - g : 0;
}

/* The seconds a pair takes off one pass of a part (a layer of kind k or
 * the head) and, of that, the compute it adds (DualPipe's SMs held by the
 * all-to-all kernels), per pair: Megatron-Core's combined 1F1B pair, or
 * under a DualPipe schedule DualPipe's (workload.h pp_dual_pair). */
typedef struct psave {
	double net_s, slow_s;
} psave;

static psave pair_save(const pp_workload *w, bool dual, pp_part part, int k, bool fwd)
{
	psave r = {0, 0};
	if (part == PP_PART_EMBED)
		return r;
	const pp_dual_pair *d = part == PP_PART_LAYER ? &w->lk[k].dual : &w->head_dual;
	if (dual) {
		r.slow_s = fwd ? d->slow_fwd_s : d->slow_bwd_s;
		r.net_s = (fwd ? d->hide_fwd_s : d->hide_bwd_s) - r.slow_s;
	} else if (part == PP_PART_LAYER) {
		r.net_s = fwd ? w->lk[k].ep_pair_save_fwd_s : w->lk[k].ep_pair_save_bwd_s;
	} else {
		r.net_s = fwd ? w->head_pair_save_fwd_s : w->head_pair_save_bwd_s;
	}
	return r;
}

/* phi: the share of a layer's forwards and backwards that run paired
 * (pp_stepcost_pair_share); 0 without the overlap. dual: DualPipe's pairs;
 * -1: whichever pair saves more (a lower bound on either). */
static pp_task_ns task_durations(const pp_workload *w, double k, double phi, int dual)
{
	pp_task_ns t;
	memset(&t, 0, sizeof(t));
	for (int i = 0; i < PP_LAYER_KINDS; i++) {
		const pp_layer_cost *l = &w->lk[i];
		const pp_part_cost *lc = &l->cost;
		if (!l->count)
			continue;
		double sf = pair_save(w, dual == 1, PP_PART_LAYER, i, true).net_s;
		double sb = pair_save(w, dual == 1, PP_PART_LAYER, i, false).net_s;
		if (dual < 0) {
			sf = fmax(sf, pair_save(w, true, PP_PART_LAYER, i, true).net_s);
			sb = fmax(sb, pair_save(w, true, PP_PART_LAYER, i, false).net_s);
		}
		t.f_layer[i] = pp_ns(k * pass_s(&lc->fwd, phi * sf));
		t.b_layer[i] = pp_ns(k * (pass_s(&lc->bwd, phi * sb) + pass_s(&lc->recompute, 0)));
		t.w_layer[i] = pp_ns(k * lc->bwd.wgrad_s);
		if (t.w_layer[i] > t.b_layer[i])
			t.w_layer[i] = t.b_layer[i];
		if (t.w_layer[i] < 0)
			t.w_layer[i] = 0;
	}
	double hf = pair_save(w, dual == 1, PP_PART_HEAD, 0, true).net_s;
	double hb = pair_save(w, dual == 1, PP_PART_HEAD, 0, false).net_s;
	if (dual < 0) {
		hf = fmax(hf, pair_save(w, true, PP_PART_HEAD, 0, true).net_s);
		hb = fmax(hb, pair_save(w, true, PP_PART_HEAD, 0, false).net_s);
	}
	t.f_embed = pp_ns(k * pass_s(&w->embed.fwd, 0));
	t.b_embed = pp_ns(k * pass_s(&w->embed.bwd, 0));
	t.f_head = pp_ns(k * pass_s(&w->head.fwd, phi * hf));
	t.b_head = pp_ns(k * pass_s(&w->head.bwd, phi * hb));
	return t;
}

pp_task_ns pp_task_durations(const pp_workload *w, double k)
{
	return task_durations(w, k, 1.0, -1);
}

bool pp_schedule_dual_pairs(pp_schedule s)
{
	return s == PP_SCHED_DUALPIPEV || s == PP_SCHED_DUALPIPE;
}

/* DualPipe: the forwards and backwards of stage st's list that run in an
 * overlapped pair (a pair forward and the backward after it), of all its
 * forwards and backwards (weight-gradient actions carry no EP time) */
static void dual_pairs(const pp_pipe *pl, int st, pp_unit *u, double *paired, double *units)
{
	int n = pp_pipe_list(pl, st, u);
	for (int i = 0; i < n; i++) {
		if (u[i].act == PP_ACT_W)
			continue;
		*units += 1;
		if ((u[i].fwd && u[i].pair) || (i > 0 && u[i - 1].fwd && u[i - 1].pair))
			*paired += 1;
	}
}

double pp_stepcost_pair_share(const pp_scenario *s)
{
	if (pp_schedule_dual_pairs(s->parallel.schedule) && s->parallel.pp > 1 &&
	    s->model.num_experts > 0) {
		pp_pipe pl = pp_pipe_of(s);
		pp_unit *u = pp_xmalloc(sizeof(*u) * (size_t)pp_pipe_list_cap(&pl));
		double paired = 0, units = 0;
		for (int st = 0; st < pl.pp; st++)
			dual_pairs(&pl, st, u, &paired, &units);
		free(u);
		return units > 0 ? paired / units : 0;
	}
	if (!s->training.overlap_moe_expert_parallel_comm)
		return 0;
	int P = s->parallel.pp, V = s->parallel.vpp;
	double M = (double)s->training.num_microbatches;
	if (M < 1)
		return 0;
	if (P < 2) /* combined_1f1b_schedule_for_no_pipelining: M - 1 pairs */
		return (M - 1) / M;
	/* get_pp_rank_microbatches: (P - rank - 1) x 2 + (V - 1) x the group
	 * size per virtual stage (Megatron's default: P) warm-up forwards, one
	 * more under the overlap, capped at all M x V */
	double units = M * V, alone = 0;
	for (int st = 0; st < P; st++)
		alone += fmin(units, (double)(P - st - 1) * 2 + (double)(V - 1) * P + 1);
	return 1.0 - alone / (P * units);
}
double pp_pipeline_stretch(const pp_scenario *s, const pp_hw *hw)
{
	if (s->parallel.pp < 2 || s->training.overlap_p2p_comm)
		return 1;
	return 1 + hw->blocking_pipeline_stall;
}

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
static int64_t slowdown_ns(const pp_stepcost *c, int64_t comm_ns, pp_coll op, double bytes,
			   pp_group g)
{
	double f = 1.0 - c->hw->overlap_eff;
	if (f <= 0 || comm_ns <= 0)
		return -1;
	pp_group local = {g.n, g.n};
	double t = fmin((double)comm_ns, 1e9 * pp_coll_time(c->hw, op, bytes, local));
	return round_half_away(f * t);
}

static pp_comm_cost group_comm(const pp_stepcost *c, pp_coll op, double bytes, double elem,
			       pp_group g)
{
	pp_comm_cost k;
	k.op = op;
	k.bytes = bytes;
	k.elem_bytes = (uint8_t)elem;
	k.ns = c->ab.no_dp ? 0 : pp_ns(pp_coll_time(c->hw, op, bytes, g));
	k.slow_ns = slowdown_ns(c, k.ns, op, bytes, g);
	return k;
}

static pp_comm_cost dp_comm(const pp_stepcost *c, pp_coll op, double bytes, double elem)
{
	return group_comm(c, op, bytes, elem, c->w->dp);
}

pp_comm_cost pp_stepcost_gather(const pp_stepcost *c, double params)
{
	double b = c->w->param_gather_bytes_per_param;
	return dp_comm(c, PP_COLL_ALL_GATHER, params * b, b);
}

pp_comm_cost pp_stepcost_reduce(const pp_stepcost *c, double params)
{
	double b = c->w->grad_comm_bytes_per_param;
	pp_coll op = c->s->parallel.zero_stage == 0 ? PP_COLL_ALL_REDUCE : PP_COLL_REDUCE_SCATTER;
	return dp_comm(c, op, params * b, b);
}

pp_comm_cost pp_stepcost_gather_expert(const pp_stepcost *c, double params)
{
	double b = c->w->param_gather_bytes_per_param;
	return group_comm(c, PP_COLL_ALL_GATHER, params * b, b, c->w->edp);
}

pp_comm_cost pp_stepcost_reduce_expert(const pp_stepcost *c, double params)
{
	double b = c->w->grad_comm_bytes_per_param;
	pp_coll op = c->s->parallel.zero_stage == 0 ? PP_COLL_ALL_REDUCE : PP_COLL_REDUCE_SCATTER;
	return group_comm(c, op, params * b, b, c->w->edp);
}

int pp_stepcost_kind(const pp_stepcost *c, int vs, int l)
{
	return c->one_kind ? 0 : pp_model_layer_kind(c->model, c->first[vs] + l);
}

static int64_t nonneg(int64_t t)
{
	return t > 0 ? t : 0;
}

int64_t pp_stepcost_unit_ns(const pp_stepcost *c, int vs, bool fwd)
{
	const pp_task_ns *u = &c->unit;
	int64_t t = pp_stepcost_layers_ns(c, vs, fwd);
	if (vs == 0)
		t += fwd ? u->f_embed : u->b_embed;
	if (vs == c->NV - 1)
		t += fwd ? u->f_head : u->b_head;
	return t;
}

int64_t pp_stepcost_unit_min_ns(const pp_stepcost *c, int vs, bool fwd)
{
	const pp_task_ns *u = &c->unit;
	int64_t t = nonneg(pp_stepcost_layers_ns(c, vs, fwd));
	if (vs == 0)
		t += nonneg(fwd ? u->f_embed : u->b_embed);
	if (vs == c->NV - 1)
		t += nonneg(fwd ? u->f_head : u->b_head);
	return t;
}

int64_t pp_stepcost_act_min_ns(const pp_stepcost *c, int vs, pp_unit u)
{
	if (u.fwd || u.act == PP_ACT_WHOLE)
		return pp_stepcost_unit_min_ns(c, vs, u.fwd);
	int64_t t = 0;
	for (int k = 0; k < PP_LAYER_KINDS; k++)
		if (c->kinds[vs][k])
			t += (int64_t)c->kinds[vs][k] * nonneg(pp_stepcost_bwd_layer_ns(c, k, u.act));
	if (u.act == PP_ACT_I && vs == 0)
		t += nonneg(c->unit.b_embed);
	if (u.act == PP_ACT_I && vs == c->NV - 1)
		t += nonneg(c->unit.b_head);
	return t;
}

double pp_stepcost_trained(const pp_stepcost *c, int st, double *expert)
{
	*expert = pp_stage_trainable_expert(c->s, c->w, st);
	return pp_stage_trainable(c->s, c->w, st);
}

pp_mem_cost pp_stepcost_optimizer(const pp_stepcost *c, int st)
{
	double params = pp_stage_trainable(c->s, c->w, st);
	double local = params;
	if (c->s->parallel.zero_stage >= 1) {
		/* the distributed optimizer shards dense parameters over DP and
		 * experts over expert DP */
		double ex = pp_stage_trainable_expert(c->s, c->w, st);
		local = ex > 0 ? (params - ex) / c->w->dp.n + ex / c->w->edp.n : params / c->w->dp.n;
	}
	pp_mem_cost m;
	m.bytes = local * (c->w->optimizer_bytes_per_param + c->w->clip_bytes_per_param);
	/* the optimizer's traffic, then the grad-norm pass and its scalar all-reduce */
	m.s = pp_mem_time(c->hw, m.bytes) + 2.0 * c->hw->coll_launch_s;
	m.ns = pp_ns(m.s);
	return m;
}

pp_busy_cost pp_stepcost_busy(const pp_stepcost *c, pp_part part, int kind, bool fwd)
{
	const pp_workload *w = c->w;
	const pp_part_cost *pc = part == PP_PART_LAYER ? &w->lk[kind].cost
				 : part == PP_PART_EMBED ? &w->embed : &w->head;
	pp_busy_cost b;
	/* the time the pairs save (0 without them): EP time hidden, less
	 * under DualPipe the compute the SMs held for it add */
	psave pf = pair_save(w, c->dual_pairs, part, kind, true);
	psave pb = pair_save(w, c->dual_pairs, part, kind, false);
	double sf = c->pair_share * pf.net_s, sb = c->pair_share * pb.net_s;
	double xf = c->pair_share * pf.slow_s, xb = c->pair_share * pb.slow_s;
	if (fwd) {
		b.compute_s = pc->fwd.compute_s + xf + host_excess_s(&pc->fwd, sf);
		b.tp_s = pc->fwd.comm_s;
		b.cp_s = pc->fwd.cp_comm_s;
		b.ep_s = pc->fwd.ep_comm_s - sf - xf;
	} else if (part == PP_PART_LAYER) {
		b.compute_s = pc->bwd.compute_s + pc->recompute.compute_s + xb +
			      host_excess_s(&pc->bwd, sb) + host_excess_s(&pc->recompute, 0);
		b.tp_s = pc->bwd.comm_s + pc->recompute.comm_s;
		b.cp_s = pc->bwd.cp_comm_s + pc->recompute.cp_comm_s;
		b.ep_s = pc->bwd.ep_comm_s + pc->recompute.ep_comm_s - sb - xb;
	} else {
		b.compute_s = pc->bwd.compute_s + xb + host_excess_s(&pc->bwd, sb);
		b.tp_s = pc->bwd.comm_s;
		b.cp_s = pc->bwd.cp_comm_s;
		b.ep_s = pc->bwd.ep_comm_s - sb - xb;
	}
	return b;
}

void pp_stepcost_init(pp_stepcost *c, const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
		      const pp_sched_opts *ablate)
{
	memset(c, 0, sizeof(*c));
	const pp_parallel *p = &s->parallel;
	c->s = s;
	c->hw = hw;
	c->w = w;
	if (ablate)
		c->ab = *ablate;
	c->P = p->pp;
	c->V = p->vpp;
	c->M = (int)s->training.num_microbatches;
	c->NV = pp_parallel_nv(p);
	c->pipe = pp_pipe_of(s);
	c->overlap_grad_reduce = s->training.overlap_grad_reduce;
	c->overlap_param_gather = s->training.overlap_param_gather;
	c->overlap_p2p_comm = s->training.overlap_p2p_comm;
	c->layers = pp_xmalloc(sizeof(int) * (size_t)c->NV);
	c->first = pp_xmalloc(sizeof(int) * (size_t)c->NV);
	c->kinds = pp_xcalloc((size_t)c->NV, sizeof(*c->kinds));
	c->model = &s->model;
	c->one_kind = w->lk[0].count == s->model.num_layers;
	for (int vs = 0, first = 0; vs < c->NV; vs++) {
		c->layers[vs] = pp_stage_layers(s, vs);
		c->first[vs] = first;
		first += c->layers[vs];
		for (int l = 0; l < c->layers[vs]; l++)
			c->kinds[vs][pp_stepcost_kind(c, vs, l)]++;
	}
	c->pair_share = pp_stepcost_pair_share(s);
	c->dual_pairs = pp_schedule_dual_pairs(s->parallel.schedule);
	c->unit = task_durations(w, c->ab.no_p2p ? 1 : pp_pipeline_stretch(s, hw), c->pair_share,
				 c->dual_pairs);

	/* Megatron DDP bucket: max(40M, 1M x dp) parameters */
	double bucket = s->training.bucket_bytes / 4.0;
	if (bucket < 1e6 * w->dp.n)
		bucket = 1e6 * w->dp.n;
	c->bucket_params = bucket;

	c->p2p_bytes = w->p2p_bytes;
	c->p2p_ns = pp_xmalloc(sizeof(int64_t) * (size_t)c->P);
	c->p2p_same_node = pp_xmalloc(sizeof(bool) * (size_t)c->P);
	int64_t p2p[2] = {-1, -1}; /* a send between nodes, inside one: the same for every stage */
	for (int st = 0; st < c->P; st++) {
		bool same = st == c->P - 1 ? pp_cluster_domains(&s->cluster) == 1
					   : pp_stage_link_same_domain(s, st);
		c->p2p_same_node[st] = same;
		if (p2p[same] < 0)
			p2p[same] = c->ab.no_p2p ? 0 : pp_ns(pp_p2p_time(hw, w->p2p_bytes, same));
		c->p2p_ns[st] = p2p[same];
	}

	c->zero3 = p->zero_stage == 3 && w->dp.n > 1;
	/* FSDP's reshard_after_forward: a layer's parameters are freed after
	 * its forward and gathered again for its backward; without, the
	 * forward's gather serves the backward of the same micro-batch */
	c->z3_bwd_gather = c->zero3 && s->training.stack.reshard_after_forward;
	c->dist_opt_gather = (p->zero_stage == 1 || p->zero_stage == 2) && w->dp.n > 1;
	if (c->zero3) {
		double gb = w->param_gather_bytes_per_param;
		for (int k = 0; k < 3; k++)
			for (int lk = 0; lk < PP_LAYER_KINDS; lk++) {
				if (k != PP_PART_LAYER && lk > 0)
					continue;
				double pr = k == PP_PART_LAYER ? w->lk[lk].params
					    : k == PP_PART_EMBED ? w->params_embed : w->params_head;
				double tr = k == PP_PART_LAYER ? w->lk[lk].trainable
					    : k == PP_PART_EMBED ? w->trainable_embed : w->trainable_head;
				/* a frozen base is gathered at its stored size */
				c->z3_gather[k][lk] =
					dp_comm(c, PP_COLL_ALL_GATHER,
						(pr - tr) * w->base_weight_bytes + tr * gb, gb);
				c->z3_scatter[k][lk] = pp_stepcost_reduce(c, tr);
			}
	}

	/* tied word embeddings: the gradient all-reduce between the first and
	 * last stage, in fp32 */
	c->embed_ar.ns = -1;
	c->embed_ar.slow_ns = -1;
	/* (in a V the first stage holds both, under DualPipe the first and the
	 * last each: nothing to reduce between stages) */
	if (c->P > 1 && s->model.tied_embeddings && w->trainable_embed > 0 &&
	    !pp_schedule_two_chunks(c->pipe.schedule)) {
		pp_group g = {2, pp_cluster_domains(&s->cluster) == 1 ? 2 : 1};
		c->embed_group = g;
		c->embed_ar.op = PP_COLL_ALL_REDUCE;
		c->embed_ar.bytes = w->params_embed * 4.0;
		c->embed_ar.elem_bytes = 4;
		c->embed_ar.ns = c->ab.no_dp ? 0
					     : pp_ns(pp_coll_time(hw, PP_COLL_ALL_REDUCE, c->embed_ar.bytes, g));
	}

	/* the next step's tokens, read by every node from its storage share,
	 * capped by the storage system's aggregate rate */
	c->data_ns = -1;
	c->data_bytes = (double)s->training.global_batch_size * s->model.seq_length *
			s->training.data_bytes_per_token;
	if (!c->ab.no_data) {
		int nodes = pp_cluster_nodes(&s->cluster);
		double t_node = c->data_bytes / nodes / hw->storage_read_Bps;
		if (hw->storage_agg_read_Bps > 0 && c->data_bytes / hw->storage_agg_read_Bps > t_node)
			t_node = c->data_bytes / hw->storage_agg_read_Bps;
		c->data_ns = pp_ns(t_node);
	}
}

void pp_stepcost_release(pp_stepcost *c)
{
	free(c->layers);
	free(c->first);
	free(c->kinds);
	free(c->p2p_ns);
	free(c->p2p_same_node);
	memset(c, 0, sizeof(*c));
}
