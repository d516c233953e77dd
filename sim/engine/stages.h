/*
 * stages.h - the pipeline-stage partition: which layers each (virtual)
 * pipeline stage holds, of which kind, the parameters that makes per GPU,
 * and how many micro-batches a stage holds activations for at its peak.
 *
 * Layers: Megatron-LM's even split over pp x vpp virtual stages (the
 * remainder to the first), Megatron-Core's decoder_first/last_pipeline_
 * num_layers, or its pipeline_model_parallel_layout; virtual stage vs is
 * chunk vs / pp of stage vs % pp (in a V and under DualPipe as
 * pipeorder.h pp_pipe_vs places them), and virtual stages hold
 * consecutive layers in vs order. DualPipe cuts the model into pp virtual
 * stages, each held by two ranks (pp_parallel_nv).
 *
 * In-flight micro-batches: GPipe m; 1F1B min(p - s, m); interleaved
 * (p - s - 1) x 2 + (v - 1) p + 1 model chunks (Megatron's warm-up, at
 * most m v), which for the first stage is L (1 + (p-1)/(p v)) layers
 * (Korthikanti et al. 2022, arXiv:2205.05198, eq. 5).
 *
 * The memory models (memory.h, memeager.h), the step costs (stepcost.h),
 * the program's gradient reductions, the fast path's bounds, the forward
 * pass of serving and the KV-cache capacity read the partition here.
 */
#ifndef PP_STAGES_H
#define PP_STAGES_H

#include "engine/workload.h"
#include "input/scenario.h"

/* Layers held by virtual stage vs (0 .. pp_parallel_nv - 1: pp x vpp, pp
 * under DualPipe): the even split (the
 * remainder to the first virtual stages), or Megatron-Core's
 * decoder_first/last_pipeline_num_layers or layout. */
int pp_stage_layers(const pp_scenario *s, int vs);
/* The model's index of virtual stage vs's first layer (virtual stages
 * hold consecutive layers in vs order). */
int pp_stage_first_layer(const pp_scenario *s, int vs);
/* Stage st's layers of each kind (PP_LK_*), over its chunks. */
void pp_stage_kinds(const pp_scenario *s, int st, double n[PP_LAYER_KINDS]);

/* The parameters pipeline stage st holds per GPU (after the TP split,
 * before ZeRO sharding): its layers over every chunk, the embedding on
 * stage 0, the head on the last (pp_stage_holds_embed, _head). */
typedef struct pp_stage_count {
	double held;            /* every parameter the stage holds */
	double trained;         /* the trained ones (all, or the adapters under fine-tuning) */
	double trained_expert;  /* of those, the routed experts' (no embedding or head) */
} pp_stage_count;
/* Stage st's count given its layers by kind n (pp_stage_kinds). */
pp_stage_count pp_stage_count_of(const pp_scenario *s, const pp_workload *w, int st,
				 const double n[PP_LAYER_KINDS]);
/* One figure of it from the partition (pp_stage_kinds(s, st)): held,
 * trained, trained_expert. */
double pp_stage_params(const pp_scenario *s, const pp_workload *w, int st);
double pp_stage_trainable(const pp_scenario *s, const pp_workload *w, int st);
double pp_stage_trainable_expert(const pp_scenario *s, const pp_workload *w, int st);

/* Whether stage st holds the output layer (the head, the loss): the last,
 * or in a V (ZB-V, DualPipeV) the first, where the V turns back; under
 * DualPipe the first and the last (each direction's last stage). */
bool pp_stage_holds_head(const pp_scenario *s, int st);
/* Whether stage st holds the input embedding: the first, and under
 * DualPipe the last too (the reverse direction's first stage). */
bool pp_stage_holds_embed(const pp_scenario *s, int st);
/* Micro-batches (model chunks, when interleaved) whose activations stage
 * `stage` holds at its peak (see above). */
double pp_stage_inflight_chunks(const pp_scenario *s, int stage);

#endif
