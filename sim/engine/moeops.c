/*
 * moeops.c - the MLP of a mixture-of-experts layer as Megatron-Core runs
 * it (megatron/core/transformer/moe/, token_dispatcher.py at core_v0.19):
 *   router GEMM and top-k; permutation 1 (each token copied once per chosen
 *   expert, grouped by destination); the dispatch: an all-to-all over the
 *   expert-parallel group (alltoall dispatcher) then an all-gather over the
 *   expert-TP group, or one all-gather over the expert-TP x EP group
 *   (allgather dispatcher, Megatron's default); permutation 2 (by local
 *   expert); the local experts' fc1, activation and fc2 (one grouped GEMM,
 *   --moe-grouped-gemm, or one GEMM per expert); the way back (unsort,
 *   reduce-scatter, all-to-all); unpermute with the routing weights; and the
 *   shared experts, a dense TP MLP beside it (overlapping the dispatch and
 *   combine with --moe-shared-expert-overlap: its fc1 behind the dispatch,
 *   its fc2 behind the combine).
 *
 * Sizes. T_m tokens enter on this rank (the sequence-parallel shard); it
 * dispatches T_m k copies of h elements (nccl-tests' alltoall size: the
 * per-rank buffer). A local expert receives n = T_m k EP ETP / E rows on
 * average; the busiest rank n x imbalance (the load-imbalance factor,
 * capped by a capacity factor: tokens past capacity are dropped), and the
 * step waits for it: the expert GEMMs, and the all-to-alls whose busiest
 * receiver gets imbalance x the mean. The MFU convention counts the mean
 * (the work of the top-k experts of every token: Megatron's
 * num_floating_point_operations).
 */
#include "engine/opsint.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A GEMM of every local expert: batch El of m x n x k at the busiest
 * rank's rows (m), one grouped kernel or one kernel per expert; model FLOPs
 * at the mean rows (avg_m). */
static void expert_gemm(ctx *c, const dims *x, const char *name, double m, double n, double k,
			double avg_m, bool count)
{
	double El = x->El;
	if (x->serve && x->El_act < x->El) {
		/* serving: only the experts some token chose run, and only their
		 * weights are read; their rows are the local rows over them */
		El = x->El_act;
		m = m * x->El / El;
		avg_m = avg_m * x->El / El;
	}
	pp_op *o = wl_gemm(c, name, m, n, k, El, false);
	o->model_flops = count ? 2.0 * avg_m * n * k * El : 0;
	if (!x->grouped) /* one kernel per expert */
		o->time_s = El * pp_gemm_time(c->hw, c->dt, m, n, k, 1, c->act);
}

/* The shared experts: a dense MLP of S on every token, TP-split like the
 * dense MLP. fc1 (with its SP all-gather) and fc2 (with its reduce-scatter)
 * apart, so the overlap can put each beside an all-to-all; returns the
 * GEMM's index. */
static int shared_fc1(ctx *c, const dims *x, pp_group tp, bool count)
{
	if (x->sp)
		wl_comm(c, "shared.allgather", PP_COLL_ALL_GATHER, x->T * x->h * c->act, tp, -1);
	double n = (x->swiglu ? 2.0 : 1.0) * x->S / x->t;
	wl_block_linear(c, x, "shared.fc1", x->T, n, x->h, x->swiglu ? 2 : 1, count);
	int g = c->w->nops - 1;
	wl_mem(c, "shared.act", x->T * x->S / x->t * c->act * (x->swiglu ? 3.0 : 2.0));
	return g;
}

static int shared_fc2(ctx *c, const dims *x, pp_group tp, bool count)
{
	wl_block_linear(c, x, "shared.fc2", x->T, x->h, x->S / x->t, 1, count);
	int g = c->w->nops - 1;
	wl_comm(c, x->sp ? "shared.reducescatter" : "shared.allreduce",
		x->sp ? PP_COLL_REDUCE_SCATTER : PP_COLL_ALL_REDUCE, x->T * x->h * c->act, tp, -1);
	return g;
}

/* Serving (vLLM's FusedMoE without data-parallel attention): every TP rank
 * holds all of the batch's tokens after the attention's all-reduce, routes
 * them (the router replicated), runs its local experts (all E split over
 * the TP ranks by FFN columns, or E / TP whole experts each under
 * enable_expert_parallel) on the rows that chose them, adds the shared
 * experts' output, and one all-reduce over the TP group sums the partial
 * outputs: no all-to-all. */
static void serve_moe(ctx *c, const dims *x, pp_group tp, bool count)
{
	double act = c->act, T = x->T;
	double copies = T * x->topk;
	double fc1_n = (x->swiglu ? 2.0 : 1.0) * x->Fm / x->etp;
	wl_gemm(c, "router", T, x->E, x->h, 1, count);
	wl_mem(c, "router.topk", T * x->E * 8.0);
	wl_mem(c, "moe.permute", copies / x->ep * x->h * act * 2.0);
	expert_gemm(c, x, "experts.fc1", x->n_busy, fc1_n, x->h, x->n_avg, count);
	wl_mem(c, x->swiglu ? "experts.swiglu" : "experts.gelu",
	       copies / x->ep * x->Fm / x->etp * act * (x->swiglu ? 3.0 : 2.0));
	expert_gemm(c, x, "experts.fc2", x->n_busy, x->h, x->Fm / x->etp, x->n_avg, count);
	wl_mem(c, "moe.unpermute", copies / x->ep * x->h * act * 2.0 + T * x->h * act);
	if (x->S > 0) {
		double n = (x->swiglu ? 2.0 : 1.0) * x->S / x->t;
		wl_block_linear(c, x, "shared.fc1", T, n, x->h, x->swiglu ? 2 : 1, count);
		wl_mem(c, "shared.act", T * x->S / x->t * act * (x->swiglu ? 3.0 : 2.0));
		wl_block_linear(c, x, "shared.fc2", T, x->h, x->S / x->t, 1, count);
	}
	wl_comm(c, "moe.allreduce", PP_COLL_ALL_REDUCE, T * x->h * act, tp, -1);
}

void wl_moe_fwd(ctx *c, const dims *x, pp_group tp, bool count)
{
	if (x->serve) {
		serve_moe(c, x, tp, count);
		return;
	}
	double act = c->act, Tm = x->Tn;
	double copies = Tm * x->topk;                     /* token copies this rank sends */
	double a2a = copies * x->h * act * x->imb;        /* the busiest receiver's share */
	double rows = x->El * x->n_busy;                  /* the local experts' rows */
	double fc1_n = (x->swiglu ? 2.0 : 1.0) * x->Fm / x->etp;
	bool a2a_disp = x->dispatcher == PP_MOE_ALLTOALL;
	bool overlap = x->S > 0 && x->shared_overlap && a2a_disp;
	int sh1 = -1, sh2 = -1;
	if (x->S > 0 && !overlap) { /* before the router, serially */
		shared_fc1(c, x, tp, count);
		shared_fc2(c, x, tp, count);
	}
	wl_gemm(c, "router", Tm, x->E, x->h, 1, count);
	wl_mem(c, "router.topk", Tm * x->E * 8.0); /* fp32 scores, softmax or sigmoid, top-k */
	wl_mem(c, "moe.permute", copies * x->h * act * 2.0);
	if (a2a_disp) {
		if (overlap)
			sh1 = shared_fc1(c, x, tp, count);
		wl_comm_ep(c, "ep.dispatch", PP_COLL_ALL_TO_ALL, a2a, x->epg, PP_GK_EP, sh1);
		wl_comm_ep(c, "etp.allgather", PP_COLL_ALL_GATHER, a2a * x->etp, x->etpg, PP_GK_ETP, -1);
	} else {
		wl_comm_ep(c, "ep.allgather", PP_COLL_ALL_GATHER, Tm * x->h * act * x->etp * x->ep,
			   x->tpepg, PP_GK_TPEP, -1);
	}
	if (x->El > 1)
		wl_mem(c, "moe.sort", rows * x->h * act * 2.0);
	expert_gemm(c, x, "experts.fc1", x->n_busy, fc1_n, x->h, x->n_avg, count);
	wl_mem(c, x->swiglu ? "experts.swiglu" : "experts.gelu",
	       rows * x->Fm / x->etp * act * (x->swiglu ? 3.0 : 2.0));
	expert_gemm(c, x, "experts.fc2", x->n_busy, x->h, x->Fm / x->etp, x->n_avg, count);
	if (x->El > 1)
		wl_mem(c, "moe.unsort", rows * x->h * act * 2.0);
	if (a2a_disp) {
		wl_comm_ep(c, "etp.reducescatter", PP_COLL_REDUCE_SCATTER, a2a * x->etp, x->etpg, PP_GK_ETP, -1);
		if (overlap)
			sh2 = shared_fc2(c, x, tp, count);
		wl_comm_ep(c, "ep.combine", PP_COLL_ALL_TO_ALL, a2a, x->epg, PP_GK_EP, sh2);
	} else {
		wl_comm_ep(c, "ep.reducescatter", PP_COLL_REDUCE_SCATTER,
			   Tm * x->h * act * x->etp * x->ep, x->tpepg, PP_GK_TPEP, -1);
	}
	/* back to token order, the k outputs weighted and summed, plus the shared */
	wl_mem(c, "moe.unpermute", copies * x->h * act * 2.0 + Tm * x->h * act * (x->S > 0 ? 2.0 : 1.0));
}

/* The shared experts' backward: fc2's (after its SP all-gather), the
 * activation's, fc1's; returns the op the dispatch-side all-to-all can hide
 * behind (fc1's weight gradient) and sets *dg to fc1's dgrad. */
static int shared_bwd_fc2(ctx *c, const dims *x, pp_group tp)
{
	int dg;
	if (x->sp)
		wl_comm(c, "shared.allgather_grad", PP_COLL_ALL_GATHER, x->T * x->h * c->act, tp, -1);
	int wg = wl_block_linear_bwd(c, x, "shared.fc2", x->T, x->h, x->S / x->t, 1, &dg);
	wl_mem(c, "shared.act.bwd", x->T * x->S / x->t * c->act * (x->swiglu ? 5.0 : 3.0));
	return wg;
}

static int shared_bwd_fc1(ctx *c, const dims *x, int *dg)
{
	double n = (x->swiglu ? 2.0 : 1.0) * x->S / x->t;
	return wl_block_linear_bwd(c, x, "shared.fc1", x->T, n, x->h, x->swiglu ? 2 : 1, dg);
}

void wl_moe_bwd(ctx *c, const dims *x, pp_group tp)
{
	double act = c->act, Tm = x->Tn;
	double copies = Tm * x->topk;
	double a2a = copies * x->h * act * x->imb;
	double rows = x->El * x->n_busy;
	double fc1_n = (x->swiglu ? 2.0 : 1.0) * x->Fm / x->etp;
	bool a2a_disp = x->dispatcher == PP_MOE_ALLTOALL;
	bool overlap = x->S > 0 && x->shared_overlap && a2a_disp;
	int dg = -1, wg = -1, sh2 = -1, sh1 = -1;
	wl_mem(c, "moe.unpermute.bwd", copies * x->h * act * 2.0 + Tm * x->h * act);
	if (a2a_disp) {
		if (overlap)
			sh2 = shared_bwd_fc2(c, x, tp);
		wl_comm_ep(c, "ep.combine.bwd", PP_COLL_ALL_TO_ALL, a2a, x->epg, PP_GK_EP, sh2);
		wl_comm_ep(c, "etp.allgather.bwd", PP_COLL_ALL_GATHER, a2a * x->etp, x->etpg, PP_GK_ETP, -1);
	} else {
		wl_comm_ep(c, "ep.allgather.bwd", PP_COLL_ALL_GATHER, Tm * x->h * act * x->etp * x->ep,
			   x->tpepg, PP_GK_TPEP, -1);
	}
	if (x->El > 1)
		wl_mem(c, "moe.unsort.bwd", rows * x->h * act * 2.0);
	expert_gemm(c, x, "experts.fc2.dgrad", x->n_busy, x->Fm / x->etp, x->h, x->n_avg, true);
	expert_gemm(c, x, "experts.fc2.wgrad", x->Fm / x->etp, x->h, x->n_busy, 0, false);
	/* the weight gradients' model FLOPs at the mean rows */
	c->w->ops[c->w->nops - 1].model_flops = 2.0 * x->Fm / x->etp * x->h * x->n_avg * x->El;
	wl_mem(c, x->swiglu ? "experts.swiglu.bwd" : "experts.gelu.bwd",
	       rows * x->Fm / x->etp * act * (x->swiglu ? 5.0 : 3.0));
	expert_gemm(c, x, "experts.fc1.dgrad", x->n_busy, x->h, fc1_n, x->n_avg, true);
	expert_gemm(c, x, "experts.fc1.wgrad", x->h, fc1_n, x->n_busy, 0, false);
	c->w->ops[c->w->nops - 1].model_flops = 2.0 * x->h * fc1_n * x->n_avg * x->El;
	if (x->El > 1)
		wl_mem(c, "moe.sort.bwd", rows * x->h * act * 2.0);
	if (a2a_disp) {
		wl_comm_ep(c, "etp.reducescatter.bwd", PP_COLL_REDUCE_SCATTER, a2a * x->etp, x->etpg, PP_GK_ETP, -1);
		if (overlap)
			sh1 = shared_bwd_fc1(c, x, &dg);
		wl_comm_ep(c, "ep.dispatch.bwd", PP_COLL_ALL_TO_ALL, a2a, x->epg, PP_GK_EP, sh1);
	} else {
		wl_comm_ep(c, "ep.reducescatter.bwd", PP_COLL_REDUCE_SCATTER,
			   Tm * x->h * act * x->etp * x->ep, x->tpepg, PP_GK_TPEP, -1);
	}
	wl_mem(c, "moe.permute.bwd", copies * x->h * act * 2.0);
	int rdg;
	wl_linear_bwd(c, "router", Tm, x->E, x->h, 1, &rdg);
	wl_mem(c, "router.topk.bwd", Tm * x->E * 8.0);
	if (x->S > 0 && !overlap) {
		shared_bwd_fc2(c, x, tp);
		wg = shared_bwd_fc1(c, x, &dg);
	} else if (overlap) {
		wg = sh1;
	}
	/* the gradients of the routed path, the shared path and the residual */
	wl_mem(c, "moe.grad_add", Tm * x->h * act * 3.0);
	if (x->S > 0)
		wl_colpar_grad_comm(c, x, tp, dg, wg, 2);
	else
		wl_mem(c, "ln2.bwd", 3.0 * act * x->Tn * x->h);
}

/* --overlap-moe-expert-parallel-comm (Megatron-Core core_v0.19,
 * megatron/core/models/common/model_chunk_schedule_plan.py
 * TransformerLayerSchedulePlan.run): the forward of one micro-batch's layer
 * and the backward of another's run as one pair, the all-to-alls on a
 * communication stream, in this order on each stream:
 *   comm:    combine_bwd     | dispatch_fwd, dispatch_bwd         | combine_fwd
 *   compute: pre_dispatch_fwd | mlp_bwd, mlp_bwd_dw, mlp_fwd       | pre_dispatch_bwd
 * each waiting for its input: dispatch_fwd for pre_dispatch_fwd, mlp_bwd
 * for combine_bwd, dispatch_bwd for mlp_bwd (its dgrad; with
 * --delay-wgrad-compute the experts' weight gradients, mlp_bwd_dw, come
 * after it, else inside mlp_bwd), mlp_fwd for dispatch_fwd, combine_fwd
 * for mlp_fwd, pre_dispatch_bwd for dispatch_bwd. The segments are cut
 * from the op lists at the EP collectives (the first run of them is the
 * dispatch side, the second the combine side): pre_dispatch = attention,
 * router and permutation; mlp = sort, experts, unsort; the unpermute and
 * the residual after the combine (and their backward before combine_bwd)
 * stay on the compute stream, the combine's inputs and outputs; the
 * recompute pass joins pre_dispatch_bwd.
 * The pair's end is the later stream's; the saving against running the two
 * passes one after the other is hidden at the catalog's overlap efficiency
 * (SM and memory contention, as comm_op hides a TP collective), and split
 * between the passes by their all-to-all time (never more than those). */
typedef struct seg {
	double pre, mlp, mlp_dw, post; /* compute on either side of the EP collectives */
	double k1, k2;                 /* the first and second run of EP collectives */
} seg;

static void cut(const pp_workload *w, int from, int to, bool delay_wgrad, seg *g)
{
	int run = 0; /* 0: before the EP collectives, 1: in the first run, 2: between, ... */
	for (int i = from; i < to; i++) {
		const pp_op *o = &w->ops[i];
		bool ep = o->kind == PP_OP_COMM && o->ep;
		if (ep && run % 2 == 0)
			run++;
		else if (!ep && run % 2 == 1)
			run++;
		double t = ep ? o->time_s : o->kind == PP_OP_COMM ? o->exposed_s : o->time_s;
		bool dw = delay_wgrad && !strncmp(o->name, "experts.", 8) && strstr(o->name, ".wgrad");
		switch (run) {
		case 0: g->pre += t; break;
		case 1: g->k1 += t; break;
		case 2: *(dw ? &g->mlp_dw : &g->mlp) += t; break;
		case 3: g->k2 += t; break;
		default: g->post += t; break;
		}
	}
}

/* The pair's timeline: the two streams as above, every compute segment
 * taking x times as long (x = 1: the compute has every SM). */
typedef struct pairtl {
	double pair;            /* the pair's end */
	double serial;          /* the two passes one after the other, compute at x = 1 */
	double fwd_k, bwd_k;    /* the EP collectives of the forward and the backward */
	double fwd_c, bwd_c;    /* the compute of each (at x = 1) */
} pairtl;

static pairtl pair_timeline(ctx *c, int a0, int a1, int a2, int a3, bool delay_wgrad, double x)
{
	seg f = {0}, b = {0}, r = {0};
	cut(c->w, a0, a1, false, &f);
	cut(c->w, a1, a2, delay_wgrad, &b);
	cut(c->w, a2, a3, false, &r);
	pairtl t;
	t.fwd_k = f.k1 + f.k2;
	t.bwd_k = b.k1 + b.k2;
	double pre_f = f.pre, mlp_f = f.mlp;                /* forward compute */
	double pre_b = b.post + r.pre + r.k1 + r.mlp + r.k2 + r.post;
	t.fwd_c = pre_f + mlp_f + f.post;
	t.bwd_c = b.pre + b.mlp + b.mlp_dw + pre_b;
	/* the two streams */
	double cs = x * b.pre;                              /* unpermute_bwd */
	double k = cs + b.k1;                               /* combine_bwd */
	double k_comb_b = k;
	cs += x * pre_f;                                    /* pre_dispatch_fwd */
	k = fmax(k, cs) + f.k1;                             /* dispatch_fwd */
	double k_disp_f = k;
	cs = fmax(cs, k_comb_b) + x * b.mlp;                /* mlp_bwd */
	k = fmax(k, cs) + b.k2;                             /* dispatch_bwd */
	double k_disp_b = k;
	cs += x * b.mlp_dw;                                 /* mlp_bwd_dw */
	cs = fmax(cs, k_disp_f) + x * mlp_f;                /* mlp_fwd */
	k = fmax(k, cs) + f.k2;                             /* combine_fwd */
	cs = fmax(cs, k_disp_b) + x * pre_b;                /* pre_dispatch_bwd */
	t.pair = fmax(cs, k) + x * f.post;                  /* unpermute_fwd */
	t.serial = t.fwd_c + t.bwd_c + t.fwd_k + t.bwd_k;
	return t;
}

void wl_moe_pair_saving(ctx *c, int a0, int a1, int a2, int a3, bool delay_wgrad,
			double *save_fwd, double *save_bwd)
{
	pairtl t = pair_timeline(c, a0, a1, a2, a3, delay_wgrad, 1.0);
	double kk = t.fwd_k + t.bwd_k;
	double save = fmin(kk, c->hw->overlap_eff * fmax(0.0, t.serial - t.pair));
	*save_fwd = kk > 0 ? save * t.fwd_k / kk : 0;
	*save_bwd = save - *save_fwd;
}

void wl_moe_dualpipe_pair(ctx *c, int a0, int a1, int a2, int a3, int comm_sms,
			  pp_dual_pair *out)
{
	int n = c->hw->sm_count;
	double x = n > comm_sms && comm_sms > 0 ? (double)n / (n - comm_sms) : 1.0;
	pairtl t = pair_timeline(c, a0, a1, a2, a3, false, x);
	double kk = t.fwd_k + t.bwd_k, cc = t.fwd_c + t.bwd_c;
	/* the compute stream's wait for the collectives is what stays exposed */
	double hide = fmax(0.0, kk - fmax(0.0, t.pair - x * cc));
	double slow = (x - 1.0) * cc;
	out->hide_fwd_s = kk > 0 ? hide * t.fwd_k / kk : 0;
	out->hide_bwd_s = hide - out->hide_fwd_s;
	out->slow_fwd_s = (x - 1.0) * t.fwd_c;
	out->slow_bwd_s = slow - out->slow_fwd_s;
}
