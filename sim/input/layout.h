/*
 * layout.h - a parallel layout: Megatron-LM's tensor, pipeline, data,
 * context and expert parallel sizes, ZeRO stage, the pipeline's split of
 * the layers and its schedule; the sizes derived from it; and whether it is
 * valid for a model, training settings and cluster. The scenario loader
 * checks a file's layout with pp_layout_check, `podplan search` and the
 * cost options each layout they generate (plan/, cost/); the engine reads
 * the derived sizes.
 */
#ifndef PP_LAYOUT_H
#define PP_LAYOUT_H

#include "input/model.h"
#include <stdbool.h>
#include <stddef.h>

/* scenario.h */
typedef struct pp_training pp_training;
typedef struct pp_cluster pp_cluster;

/* Upper bound of a parallel size or a GPU count as a file is read: it
 * catches typos and int overflow and is no limit of the simulation (those
 * are limits.h's). */
#define PP_LAYOUT_SIZE_MAX 4194304

/* The pipeline schedules (engine/pipelist.c writes all but the first
 * three as per-rank action lists): 1F1B, GPipe, Megatron's interleaved
 * 1F1B, the zero-bubble ZB-H1 and ZB-H2
 * (sail-sg/zero-bubble-pipeline-parallelism), ZB-V (PyTorch's
 * ScheduleZBVZeroBubble), DualPipeV (PyTorch's ScheduleDualPipeV,
 * deepseek-ai/DualPipe dualpipev.py) and DualPipe itself (deepseek-ai/
 * DualPipe dualpipe.py: two-ended, rank r holding stage r of the forward
 * direction and stage pp - 1 - r of the reverse one). */
typedef enum pp_schedule {
	PP_SCHED_1F1B,
	PP_SCHED_GPIPE,
	PP_SCHED_INTERLEAVED,
	PP_SCHED_ZBH1,
	PP_SCHED_ZBV,
	PP_SCHED_DUALPIPEV,
	PP_SCHED_ZBH2,
	PP_SCHED_DUALPIPE
} pp_schedule;
#define PP_SCHED_COUNT 8
extern const char *const pp_schedule_names[PP_SCHED_COUNT];
/* The schedule a name gives: ours (pp_schedule_names), PyTorch's
 * torch.distributed.pipelining class names (Schedule1F1B, ScheduleGPipe,
 * ScheduleInterleaved1F1B, ScheduleZBVZeroBubble, ScheduleDualPipeV) or
 * the zero-bubble fork's (ZB1P, ZB2P); -1 for none. Case-insensitive. */
int pp_schedule_lookup(const char *name);
/* Whether the schedule holds two chunks per rank in a V (stage r and
 * 2 x pp - 1 - r): ZB-V and DualPipeV. Inline: the pipeline walks ask it
 * tens of millions of times a search. */
static inline bool pp_schedule_vshape(pp_schedule s)
{
	return s == PP_SCHED_ZBV || s == PP_SCHED_DUALPIPEV;
}
/* Whether the schedule is two-ended (DualPipe): two chunks per rank,
 * rank r holding stage r of the direction fed at rank 0 (chunk 0) and
 * stage pp - 1 - r of the one fed at rank pp - 1 (chunk 1), half the
 * micro-batches each way; a micro-batch runs through pp stages, not 2 pp. */
static inline bool pp_schedule_two_ended(pp_schedule s)
{
	return s == PP_SCHED_DUALPIPE;
}
/* Whether the schedule holds two chunks per rank (vpp 2, never given
 * otherwise): a V or two-ended. */
static inline bool pp_schedule_two_chunks(pp_schedule s)
{
	return pp_schedule_vshape(s) || pp_schedule_two_ended(s);
}

#define PP_LAYOUT_MAX 1024

typedef struct pp_parallel {
	int tp, pp, dp, cp, vpp;      /* vpp = 1: not interleaved */
	int ep, etp;                  /* expert model / expert tensor parallel sizes (MoE) */
	bool sequence_parallel;
	int zero_stage;               /* 0..3 */
	int first_stage_layers;       /* decoder_first_pipeline_num_layers; 0 = even split */
	int last_stage_layers;        /* decoder_last_pipeline_num_layers; 0 = even split */
	pp_schedule schedule;
	/* pipeline_model_parallel_layout (Megatron-Core's, e.g. "Et|(tt|)*30mL"):
	 * the decoder layers of each virtual stage in Megatron's order (virtual
	 * stage = chunk x PP + stage), the embedding on the first, the MTP
	 * depths and the loss on the last; layout_len 0: none */
	int layout_len;
	int layout_mtp;               /* its 'm' (must equal model.mtp_num_layers) */
	unsigned short layout_layers[PP_LAYOUT_MAX];
} pp_parallel;

/* The model's pipeline stages (virtual stages: the pieces the layers are
 * cut into, pipeline_model_parallel_layout's entries): pp x vpp, but pp
 * under DualPipe, whose two chunks a rank are two stages of one pp-stage
 * model (each held twice, once per direction). */
static inline int pp_parallel_nv(const pp_parallel *p)
{
	return pp_schedule_two_ended(p->schedule) ? p->pp : p->pp * p->vpp;
}

/* The pipeline schedule as people name it: "1F1B", "GPipe", "interleaved
 * 1F1B, 5 virtual stages" (Megatron's --virtual-pipeline-model-parallel-size);
 * "" without pipeline parallelism. Returns buf. */
const char *pp_parallel_schedule_text(const pp_parallel *p, char *buf, size_t n);

/* Check a layout against a model and cluster, as the scenario loader does;
 * used by search for generated candidates. Returns 0 when valid, else
 * PP_EINPUT with why (a sentence) and *key set to the offending key's
 * JSON path. With n 0 (why may be NULL) the sentence is not written: a
 * search that only asks whether a layout is valid skips its formatting. */
int pp_layout_check(const pp_model *m, const pp_training *t, const pp_parallel *p,
		    const pp_cluster *c, const char **key, char *why, size_t n);

/* Fill derived fields (num_microbatches) after a caller changed a layout. */
void pp_layout_derive(pp_training *t, const pp_parallel *p);

/* The tensor-parallel size against the attention heads, the first rule
 * of pp_layout_check: the loader applies it before it derives the data-
 * parallel size, with or without the check of the layout as a whole.
 * Returns 0 or PP_EINPUT as pp_layout_check. */
int pp_layout_check_heads(const pp_model *m, const pp_parallel *p, const char **key, char *why,
			  size_t n);

/* The expert tensor-parallel size: expert_tensor_parallel_size, else (not
 * given) the tensor-parallel size, Megatron-Core's default. */
int pp_parallel_etp(const pp_parallel *p);
/* The expert data-parallel size: tp x cp x dp / (etp x ep). */
int pp_parallel_edp(const pp_parallel *p);

#endif
