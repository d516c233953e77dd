/*
 * schedule.h - the event graph of one training step over the distinct
 * ranks: one simulated GPU per pipeline stage (its tensor-, context- and
 * data-parallel peers behave alike), with a compute stream, a
 * data-parallel communication stream, stage-to-stage links and storage.
 *
 * Tasks are per layer and micro-batch, ordered per stage by the pipeline
 * schedule (GPipe, 1F1B, or Megatron's interleaved 1F1B), so the graph
 * grows with stages x micro-batches x layers and not with the GPU count.
 * Data parallelism adds bucketed gradient reduction overlapped with the last
 * micro-batch's backward (Megatron --overlap-grad-reduce), the distributed
 * optimizer's parameter all-gather, ZeRO-3's per-layer all-gather/prefetch
 * and reduce-scatter, the tied-embedding all-reduce and the optimizer.
 */
#ifndef PP_SCHEDULE_H
#define PP_SCHEDULE_H

#include "engine/des.h"
#include "engine/workload.h"

enum {
	PP_CAT_FWD,
	PP_CAT_BWD,
	PP_CAT_P2P_FWD,
	PP_CAT_P2P_BWD,
	PP_CAT_GRAD_REDUCE,
	PP_CAT_PARAM_GATHER,
	PP_CAT_EMBED_ALLREDUCE,
	PP_CAT_OPTIMIZER,
	PP_CAT_DATA,
	PP_CAT_COUNT
};
extern const char *const pp_cat_names[PP_CAT_COUNT];

/* Layer index tags for the embedding and head tasks. */
#define PP_LAYER_EMBED (-2)
#define PP_LAYER_HEAD (-3)

typedef struct pp_sched_opts {
	bool no_data;     /* ablations for the step-time breakdown: */
	bool no_dp;       /* zero-cost data-parallel traffic, */
	bool no_p2p;      /* zero-cost stage-to-stage transfers */
} pp_sched_opts;

typedef struct pp_stage_busy {
	double compute_s;  /* kernels */
	double tp_s;       /* blocking TP/CP collectives */
	double opt_s;      /* optimizer */
	int last_task;     /* its last compute-stream task */
} pp_stage_busy;

/* Build the step's graph into d (cleared first). busy has pp entries. */
void pp_schedule_build(pp_des *d, const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
		       const pp_sched_opts *o, pp_stage_busy *busy);

/* The order of (forward?, chunk, micro-batch) units a stage runs; returns
 * the count (2 x micro-batches x chunks). out must hold that many. */
typedef struct pp_unit {
	bool fwd;
	int chunk;
	int mb;
} pp_unit;
int pp_schedule_order(const pp_scenario *s, int stage, pp_unit *out);

/* The factor every compute task of a blocking pipeline is stretched by:
 * 1 + kernels.json blocking_pipeline_stall when the step has pipeline stages
 * and "overlap_p2p_comm" is false (Megatron-LM 2021-22's blocking
 * send/recv, which couples neighbouring stages at every micro-batch), else 1.
 * The step-time breakdown books the stretch as pipeline send/recv. */
double pp_pipeline_stretch(const pp_scenario *s, const pp_hw *hw);

/* The compute-stream duration (ns) of each task kind of a micro-batch:
 * kernels plus the blocking TP/CP collectives, the backward with its
 * recompute, all stretched by k (pp_pipeline_stretch, or 1). One
 * definition for the event graph and the fast path, which must agree. */
typedef struct pp_task_ns {
	int64_t f_layer, b_layer, f_embed, b_embed, f_head, b_head;
} pp_task_ns;
pp_task_ns pp_task_durations(const pp_workload *w, double k);

#endif
