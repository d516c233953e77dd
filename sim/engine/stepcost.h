/*
 * stepcost.h - every task duration of one training step, computed in one
 * place and rounded to int64 nanoseconds by pp_ns() and nowhere else:
 *  - the compute-stream work of one micro-batch per part: a layer's
 *    forward, its backward with the recompute before it, the embedding's
 *    and the head-and-loss's forward and backward (kernels plus blocking
 *    TP/CP collectives, from the workload's op costs), stretched by a
 *    blocking pipeline;
 *  - the data-parallel traffic: gradient reduction (all-reduce, or
 *    reduce-scatter under ZeRO), the distributed optimizer's and ZeRO-3's
 *    parameter all-gathers, ZeRO-3's reduce-scatters, each with the
 *    slowdown it causes the compute running beside it;
 *  - stage-to-stage sends, the tied-embedding all-reduce, the optimizer
 *    step, the data read for the next step.
 * Each comes with its payload (the bytes moved, the collective, the group)
 * so that nothing downstream inverts a duration into a size.
 *
 * The event graph (evgraph.c), the closed-form fast path (fastpath.c) and
 * its lower bounds (fpbound.c) read their durations from here; the task
 * structure they share is program.h; the replay plan reads the payloads
 * off the event tags (des.h). Sizes follow nccl-tests (collective.h).
 */
#ifndef PP_STEPCOST_H
#define PP_STEPCOST_H

#include "engine/collective.h"
#include "engine/pipeorder.h"
#include "engine/workload.h"
#include "input/hw.h"
#include "input/scenario.h"

#include <stdbool.h>
#include <stdint.h>

/* Seconds to the int64 nanoseconds of the event simulation (round to
 * nearest). The one rounding of a step's durations. */
int64_t pp_ns(double s);

/* Ablations for the step-time breakdown: the step simulated again with
 * one kind of traffic free. */
typedef struct pp_sched_opts {
	bool no_data;     /* no data-loading read */
	bool no_dp;       /* zero-cost data-parallel traffic (and no slowdown from it) */
	bool no_p2p;      /* zero-cost stage-to-stage transfers, no blocking-pipeline stretch */
} pp_sched_opts;

/* The compute-stream duration (ns) of each task kind of a micro-batch:
 * kernels plus the blocking TP/CP collectives (or the host's time to
 * issue the pass's kernels, when longer), the backward with its recompute,
 * all stretched by k (pp_pipeline_stretch, or 1). */
typedef struct pp_task_ns {
	int64_t f_layer[PP_LAYER_KINDS], b_layer[PP_LAYER_KINDS]; /* by layer kind (PP_LK_*) */
	/* of b_layer, the weight-gradient GEMMs' share: a zero-bubble
	 * schedule's W pass of a layer (its input-gradient pass, B or I, is
	 * b_layer less it) */
	int64_t w_layer[PP_LAYER_KINDS];
	int64_t f_embed, b_embed, f_head, b_head;
} pp_task_ns;
/* pp_task_durations gives every unit paired, by whichever pair saves more
 * (the combined 1F1B schedule's under --overlap-moe-expert-parallel-comm,
 * or DualPipe's): no task is shorter in a step of any schedule
 * (pp_stepcost_init's units), so the fast path's quick bound built on it
 * stays a lower bound. */
pp_task_ns pp_task_durations(const pp_workload *w, double k);

/* --overlap-moe-expert-parallel-comm (Megatron-Core's combined 1F1B,
 * megatron/core/pipeline_parallel/combined_1f1b.py at core_v0.19): in the
 * steady state each forward of a model chunk runs paired with the backward
 * of another micro-batch, so each EP all-to-all runs beside the other's
 * compute (moeops.c wl_moe_pair_saving prices one pair); the warm-up
 * forwards and the cool-down backwards run alone, their all-to-alls
 * exposed. The share of units that run paired, over all stages:
 * without pipelining (combined_1f1b_schedule_for_no_pipelining) the first
 * forward and the last backward run alone, (M - 1) / M; interleaved,
 * stage r runs min(M V, (P - r - 1) 2 + (V - 1) P + 1) units alone
 * (schedules.py get_pp_rank_microbatches, the overlap's extra warm-up
 * forward included). The event graph has one duration per task kind, so
 * every unit's EP time shrinks by this share of the pair's saving: each
 * stage's busy time is right for the stage-mean warm-up, off by (its
 * warm-up - the mean) / (M V) of the saving. 0 without the overlap. */
double pp_stepcost_pair_share(const pp_scenario *s);
/* Whether the schedule's own overlapped pairs (pp_unit pair) hide the EP
 * all-to-alls of an MoE model, whatever the overlap flag: DualPipe's
 * overlapped_forward_backward (deepseek-ai/DualPipe, arXiv:2412.19437 Sec.
 * 3.2.1). Then the pair share is the paired forwards and backwards of the
 * stages' action lists over all of them (weight gradients left out), and
 * each pair saves workload.h pp_dual_pair's hidden EP time less the
 * compute its all-to-all kernels' SMs cost. */
bool pp_schedule_dual_pairs(pp_schedule s);

/* The factor every compute task of a blocking pipeline is stretched by:
 * 1 + kernels.json blocking_pipeline_stall when the step has pipeline stages
 * and "overlap_p2p_comm" is false (Megatron-LM 2021-22's blocking
 * send/recv, which couples neighbouring stages at every micro-batch), else 1.
 * The step-time breakdown books the stretch as pipeline send/recv. */
double pp_pipeline_stretch(const pp_scenario *s, const pp_hw *hw);

/* Who takes part in a task, for its payload (pp_des_tag.group). */
enum {
	PP_GRP_NONE,      /* compute kernels of a micro-batch (the workload's op list) */
	PP_GRP_DP,        /* the data-parallel (x context-parallel) group */
	PP_GRP_EDP,       /* the expert data-parallel group (routed experts' parameters) */
	PP_GRP_PP,        /* a stage-to-stage pair */
	PP_GRP_EMBED,     /* the first and last stage (tied embeddings) */
	PP_GRP_LOCAL,     /* one GPU's memory-bound kernel (the optimizer) */
	PP_GRP_SLOWDOWN,  /* not work of its own: compute slowed by a collective beside it */
	PP_GRP_STORAGE    /* the storage target */
};
#define PP_OP_NONE 0xff

/* A collective or transfer: its time on its own stream, the slowdown it
 * adds to the compute stream where it is issued, and its payload. */
typedef struct pp_comm_cost {
	int64_t ns;           /* on its stream; 0 under the no_dp / no_p2p ablation */
	int64_t slow_ns;      /* added to the compute stream beside it; -1: no such task */
	double bytes;         /* nccl-tests' size (all_gather: output, reduce_scatter: input) */
	pp_coll op;
	uint8_t elem_bytes;   /* 2 (bf16/fp16) or 4 (fp32) */
} pp_comm_cost;

/* Every duration of one step of one layout. Built by pp_stepcost_init from
 * a scenario, its hardware and its workload (all three must outlive it). */
typedef struct pp_stepcost {
	const pp_scenario *s;
	const pp_hw *hw;
	const pp_workload *w;
	pp_sched_opts ab;        /* the ablations applied */
	/* stages, chunks per stage, micro-batches, virtual stages (pp_parallel_nv) */
	int P, V, M, NV;
	pp_pipe pipe;            /* the pipeline's shape (the order of each stage's units) */
	/* the framework's overlaps the step's structure reads (training.overlap_*) */
	bool overlap_grad_reduce, overlap_param_gather, overlap_p2p_comm;
	int *layers;             /* [NV]: layers of each virtual stage */
	int *first;              /* [NV]: the model's index of its first layer */
	int (*kinds)[PP_LAYER_KINDS]; /* [NV]: its layers of each kind */
	const pp_model *model;   /* the layers' kinds (pp_model_layer_kind) */
	bool one_kind;           /* every layer of kind 0 (a dense model) */
	pp_task_ns unit;         /* compute-stream task of one micro-batch per part */
	double pair_share;       /* pp_stepcost_pair_share: 0 without the EP overlap */
	bool dual_pairs;         /* the pairs are DualPipe's (pp_schedule_dual_pairs) */
	int64_t *p2p_ns;         /* [P]: a send over boundary st -> st+1 (st = P-1: the wrap) */
	bool *p2p_same_node;     /* [P]: whether that boundary stays inside a node */
	double p2p_bytes;        /* activation (or its gradient) per micro-batch per GPU */
	double bucket_params;    /* Megatron DDP bucket: max(bucket_bytes / 4, 1M x dp) params */
	bool zero3;              /* ZeRO-3 over more than one data-parallel rank */
	bool z3_bwd_gather;      /* ZeRO-3 gathers each layer again for its backward */
	bool dist_opt_gather;    /* ZeRO-1/2 over more than one rank: the bucketed param all-gather */
	pp_comm_cost z3_gather[3][PP_LAYER_KINDS];  /* ZeRO-3 per task, by pp_part and kind */
	pp_comm_cost z3_scatter[3][PP_LAYER_KINDS];
	pp_comm_cost embed_ar;   /* tied-embedding gradient all-reduce; ns -1: none */
	pp_group embed_group;    /* its group: the first and last stage */
	int64_t data_ns;         /* the next step's batch read from storage; -1: none */
	double data_bytes;
} pp_stepcost;

void pp_stepcost_init(pp_stepcost *c, const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
		      const pp_sched_opts *ablate);
void pp_stepcost_release(pp_stepcost *c);

/* The distributed optimizer's / ZeRO-3's all-gather of params parameters
 * over the data-parallel group. */
pp_comm_cost pp_stepcost_gather(const pp_stepcost *c, double params);
/* The gradient reduction of params parameters: all-reduce without ZeRO,
 * reduce-scatter with (ZeRO-3's per-task reduce-scatter too). */
pp_comm_cost pp_stepcost_reduce(const pp_stepcost *c, double params);
/* The same for routed experts' parameters, over the expert data-parallel
 * group (Megatron-Core reduces and shards them there). */
pp_comm_cost pp_stepcost_gather_expert(const pp_stepcost *c, double params);
pp_comm_cost pp_stepcost_reduce_expert(const pp_stepcost *c, double params);

/* The kind (PP_LK_*) of layer l of virtual stage vs. */
int pp_stepcost_kind(const pp_stepcost *c, int vs, int l);

/* The compute-stream time (ns) of virtual stage vs's layers for one
 * micro-batch, forward or backward (fwd): per layer kind, its layers
 * times that kind's task (unit). Inline: the program issues one a unit. */
static inline int64_t pp_stepcost_layers_ns(const pp_stepcost *c, int vs, bool fwd)
{
	int64_t t = 0;
	for (int k = 0; k < PP_LAYER_KINDS; k++)
		t += (int64_t)c->kinds[vs][k] * (fwd ? c->unit.f_layer[k] : c->unit.b_layer[k]);
	return t;
}
/* One backward task of a layer of kind k as action act (PP_ACT_*): the
 * whole backward, its input-gradient part, or its weight-gradient part. */
static inline int64_t pp_stepcost_bwd_layer_ns(const pp_stepcost *c, int k, int act)
{
	return act == PP_ACT_W ? c->unit.w_layer[k]
	       : act == PP_ACT_I ? c->unit.b_layer[k] - c->unit.w_layer[k] : c->unit.b_layer[k];
}
/* Virtual stage vs's layers for one micro-batch's backward action act. */
static inline int64_t pp_stepcost_bwd_layers_ns(const pp_stepcost *c, int vs, int act)
{
	int64_t t = 0;
	for (int k = 0; k < PP_LAYER_KINDS; k++)
		t += (int64_t)c->kinds[vs][k] * pp_stepcost_bwd_layer_ns(c, k, act);
	return t;
}
/* One unit's compute-stream time (ns): its layers, and the embedding's
 * (vs 0) and the head's (the last virtual stage) tasks where it has them. */
int64_t pp_stepcost_unit_ns(const pp_stepcost *c, int vs, bool fwd);
/* The least a unit puts on its stage's compute stream whatever the
 * backend: the same three terms, each at least 0 ns (the event graph and
 * the fast path run a negative duration as 0 ns). For lower bounds. */
int64_t pp_stepcost_unit_min_ns(const pp_stepcost *c, int vs, bool fwd);
/* The same for an action u (pp_unit: a split backward's input- or
 * weight-gradient part; the embedding's and the head's backward run whole
 * in the input-gradient part). */
int64_t pp_stepcost_act_min_ns(const pp_stepcost *c, int vs, pp_unit u);

/* Stage st's trained parameters per GPU (pp_stage_trainable) and, in
 * *expert, of those the routed experts' (pp_stage_trainable_expert). */
double pp_stepcost_trained(const pp_stepcost *c, int st, double *expert);

/* The optimizer step of stage st: the (ZeRO-sharded) parameters' optimizer
 * traffic as the stack's optimizer runs it plus the gradient-norm and
 * clipping passes, and its scalar all-reduce. */
typedef struct pp_mem_cost {
	double s;         /* seconds, before rounding (the breakdown's optimizer row) */
	int64_t ns;
	double bytes;
} pp_mem_cost;
pp_mem_cost pp_stepcost_optimizer(const pp_stepcost *c, int st);

/* Seconds of compute a unit of each kind adds to a stage's busy time, and
 * the blocking TP/CP and expert-parallel shares of it, unstretched (the
 * breakdown's compute, TP and EP rows): fwd/bwd of a layer of a kind (bwd
 * includes recompute), embed, head. */
typedef struct pp_busy_cost {
	double compute_s, tp_s, ep_s;
	double cp_s; /* of tp_s, the context-parallel exchange */
} pp_busy_cost;
pp_busy_cost pp_stepcost_busy(const pp_stepcost *c, pp_part part, int kind, bool fwd);

#endif
