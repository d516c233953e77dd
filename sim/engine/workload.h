/*
 * workload.h - the work of one micro-batch on one pipeline stage: the ops
 * of a transformer layer (forward, backward, recompute) with their exact
 * FLOPs and bytes, the first stage's embedding, the last stage's head and
 * loss, and the optimizer step; each op costed on the scenario's hardware.
 *
 * FLOP counts: a GEMM of m x n x k is 2mnk. Attention core (per micro-batch,
 * per TP rank) is 4 b s_q s_kv a d / t in the forward, half of that executed
 * under a causal mask by flash attention; its backward is 2.5x the forward
 * (FlashAttention-2 paper, Sec. 3). Model FLOPs (MFU) count the full s^2
 * attention, as Narayanan et al. SC'21 eq. 3 does; for a GPT model the sum
 * over the op list equals that equation (tests/test_workload.c checks it).
 * Bytes: every input read once, every output written once, plus dropout
 * masks (1 byte per element).
 */
#ifndef PP_WORKLOAD_H
#define PP_WORKLOAD_H

#include "engine/collective.h"
#include "engine/modelsize.h"
#include "input/hw.h"
#include "input/scenario.h"

#include <stdbool.h>
#include <string.h>

typedef enum pp_op_kind { PP_OP_GEMM, PP_OP_ATTN, PP_OP_MEM, PP_OP_COMM } pp_op_kind;
typedef enum pp_phase { PP_PH_FWD, PP_PH_BWD, PP_PH_RECOMPUTE } pp_phase;
typedef enum pp_part { PP_PART_LAYER, PP_PART_EMBED, PP_PART_HEAD } pp_part;
/* The ranks of a layer's collective: the TP group, the expert-parallel
 * group, the expert-TP group, or both expert groups together (Megatron's
 * allgather dispatcher). */
enum { PP_GK_TP, PP_GK_EP, PP_GK_ETP, PP_GK_TPEP };

extern const char *const pp_phase_names[3];

typedef struct pp_op {
	char name[32];
	pp_op_kind kind;
	pp_phase phase;
	pp_part part;
	pp_dtype dtype;
	double m, n, k, batch;    /* GEMM shape (batch = batched GEMMs) */
	double flops;             /* executed */
	double model_flops;       /* in the MFU convention (full s^2 attention) */
	double bytes;             /* device-memory traffic */
	pp_coll coll;             /* PP_OP_COMM */
	pp_group group;
	double overlap_s;         /* compute this collective can hide behind */
	int overlap_op;           /* the GEMM of the same pass it hides behind; -1 none */
	double time_s;            /* costed duration (collectives: full time) */
	double exposed_s;         /* collectives: time on the critical path */
	int layer_kind;           /* PP_PART_LAYER ops: the layer kind (PP_LK_*) */
	bool ep;                  /* an expert-parallel dispatch/combine collective */
	bool cp;                  /* a context-parallel exchange, listed only: its pass's
				   * cp_comm_s / compute_s already hold it */
	double msg_bytes;         /* cp: the size one call moves (a ring: one send) */
	int gkind;                /* collectives: whose ranks (PP_GK_*) */
	int kernels;              /* kernels the host issues for it (an eager chain: several) */
} pp_op;

/* Whether op o is a weight-gradient GEMM (named *.wgrad): what a
 * zero-bubble schedule's W pass runs, the rest of the backward its I
 * pass. */
static inline bool pp_op_wgrad(const pp_op *o)
{
	size_t n = strlen(o->name);
	return o->kind != PP_OP_COMM && n >= 6 && !strcmp(o->name + n - 6, ".wgrad");
}

/* Per-pass cost of one part (a layer, the embedding, the head). */
typedef struct pp_pass_cost {
	double compute_s;   /* kernels on the compute stream */
	double wgrad_s;     /* of compute_s, the weight-gradient GEMMs (the ops named
			     * *.wgrad): what a zero-bubble schedule's W pass runs */
	double comm_s;      /* exposed TP/CP collectives on the compute stream */
	double cp_comm_s;   /* of comm_s, the context-parallel exchange */
	double ep_comm_s;   /* exposed expert-parallel collectives on the compute stream */
	double flops;       /* executed */
	double model_flops;
	int kernels;        /* kernels issued, collectives included */
	double host_s;      /* host time to issue them (stack host_issue_us, no CUDA graphs) */
} pp_pass_cost;

typedef struct pp_part_cost {
	pp_pass_cost fwd, bwd, recompute;
} pp_part_cost;

/* An MoE layer's forward and backward run as one of DualPipe's overlapped
 * pairs (deepseek-ai/DualPipe overlapped_forward_backward; arXiv:2412.19437
 * Sec. 3.2.1-3.2.2): the EP all-to-all seconds each pass hides beside the
 * other's compute, and the compute seconds each gains because the
 * all-to-all kernels hold some of the SMs meanwhile. */
typedef struct pp_dual_pair {
	double hide_fwd_s, hide_bwd_s;
	double slow_fwd_s, slow_bwd_s;
} pp_dual_pair;

/* One kind of layer (PP_LK_*: dense or MoE, full or windowed attention):
 * the cost of one such layer and its parameters on this GPU. */
typedef struct pp_layer_cost {
	int count;                  /* layers of the model of this kind; 0: none */
	pp_part_cost cost;          /* per pass, one layer */
	double params;              /* held on this GPU (after the TP / EP / ETP split) */
	double expert_params;       /* of those, the routed experts' (reduced over expert DP) */
	/* of those, trained (gradients, optimizer, DP reduction): all of them,
	 * or under fine-tuning (training.finetune) the LoRA adapters only */
	double trainable, trainable_expert;
	double cp_comm_s;           /* context-parallel exchange per forward (exposed) */
	/* --overlap-moe-expert-parallel-comm: the seconds a forward and a
	 * backward of this layer save when run as one combined 1F1B pair
	 * (moeops.c wl_moe_pair_saving); 0 without the overlap */
	double ep_pair_save_fwd_s, ep_pair_save_bwd_s;
	/* DualPipe's overlapped pair of this layer (every MoE layer; read
	 * under a DualPipe schedule): moeops.c wl_moe_dualpipe_pair */
	pp_dual_pair dual;
} pp_layer_cost;

typedef struct pp_workload {
	pp_op *ops;
	int nops, cap;
	pp_layer_cost lk[PP_LAYER_KINDS];
	pp_part_cost embed, head;
	/* the head's MTP depths under the EP overlap: their layers' pair saving
	 * (Megatron-Core pairs the MTP layer too, model_chunk_schedule_plan.py) */
	double head_pair_save_fwd_s, head_pair_save_bwd_s;
	pp_dual_pair head_dual;     /* the same under DualPipe's pairs */
	/* parameters per GPU (after TP split) */
	double params_embed;        /* first stage: word (+ position) embeddings */
	double params_head;         /* last stage: final norm (+ untied output layer) */
	double params_total;        /* whole model */
	double params_active;       /* whole model, per token (an MoE layer's top-k experts) */
	double trainable_embed, trainable_head;
	double trainable_total;     /* whole model */
	double base_weight_bytes;   /* bytes of a stored frozen base weight; 0: full training */
	double tokens_per_mb;       /* b x s (whole sequence, all CP ranks) */
	double act_bytes;           /* bytes per activation element (2, or 4 in fp32/tf32) */
	double p2p_bytes;           /* activation sent between stages per micro-batch per GPU */
	double grad_comm_bytes_per_param;  /* DP gradient reduction dtype */
	double param_gather_bytes_per_param;
	double optimizer_bytes_per_param;  /* optimizer step traffic */
	double clip_bytes_per_param;       /* gradient norm and clipping passes */
	double host_issue_s;               /* host time per kernel (0: not host-bound) */
	pp_group tp, cp, dp, pp_group_;    /* placement of the parallel groups */
	pp_group edp;              /* the expert data-parallel group (MoE) */
} pp_workload;

/* Build and cost the op lists. w is owned by the caller (release it). */
void pp_workload_build(pp_workload *w, const pp_scenario *s, const pp_hw *hw);
void pp_workload_release(pp_workload *w);

/* The fields of w that depend on the layout's data-parallel size, ZeRO
 * stage and rank placement (the parallel groups, the gradient reduction
 * dtype), set from s: pp_workload_build calls it, and the fast path's
 * workload cache calls it on a workload built for another DP size. */
void pp_workload_set_layout(pp_workload *w, const pp_scenario *s);

/* Whether pp_workload_build(s) reads the inter-node network (the fabric
 * and the NICs per node of s's cluster): a tensor- or context-parallel
 * group of s's layout across nodes, experts, or a stack whose ops read the
 * data-parallel layout. When false the op list is the same on clusters
 * that differ only there: its collectives run inside one node
 * (pp_coll_time, pp_p2p_time read the intra-node link and the GPU's
 * kernel overhead there). The fast path's workload cache keys on the
 * network only where this is true. */
bool pp_workload_reads_network(const pp_scenario *s);
/* GPUs per NVLink domain as the groups are placed (pp_cluster_domain_gpus;
 * a cluster smaller than a domain: all of it); the only figure of the GPU
 * count the op list reads. */
int pp_workload_domain_gpus(const pp_scenario *s);

/* FLOPs of one micro-batch on this GPU summed over the model's layers of
 * every kind: executed, or in the MFU convention (PP_FL_MODEL); of the
 * forward and backward (PP_FL_PASSES), of the recomputation
 * (PP_FL_RECOMPUTE), or both. */
enum { PP_FL_MODEL = 1, PP_FL_PASSES = 2, PP_FL_RECOMPUTE = 4 };
double pp_workload_layer_flops(const pp_workload *w, int which);

/* Which stage boundaries are inside an NVLink domain (s -> s+1): their send
 * goes over the intra fabric, the others through the NICs. */
bool pp_stage_link_same_domain(const pp_scenario *s, int stage);

/* torch.autocast over fp32 parameters: 16-bit training with fp32 master
 * weights that no ZeRO-3 / FSDP2 MixedPrecisionPolicy casts in its
 * all-gather (that hands the layers 16-bit parameters): the residual
 * stream is fp32 and every linear casts its inputs and weight. */
bool pp_autocast_fp32(const pp_scenario *s);

/* Whether PyTorch DDP's buckets hold a copy of the gradients: the stack
 * copies into them (frameworks.json ddp_bucket_copies), DDP wraps the model
 * (training.ddp, else data-parallel ranks exist) and no ZeRO stage above 1
 * shards the gradients. */
bool pp_ddp_bucket_copies(const pp_scenario *s);

#endif
