/*
 * replayplan.h - the simulated step of a scenario turned into what each
 * real GPU must issue to execute it: per GPU, an ordered list of
 * instructions (GEMMs, memory-bound kernels, NCCL collectives and
 * send/recv, event records and waits) on named streams. The GPU executor
 * (calibrate/replay.c) issues the list as it stands; nothing here sees
 * CUDA or NCCL, so the plan is built and checked on any machine.
 *
 * How the step's event graph (evgraph.h, des.h) maps to instructions:
 *  - GPU rank order is Megatron-LM's: tp fastest, then cp, dp, pp. A GPU
 *    runs the tasks of its pipeline stage; its TP and DP peers run the
 *    same list.
 *  - A forward/backward task of a layer, the embedding or the head becomes
 *    that part's op list (workload.h): GEMMs of the same shape and dtype,
 *    memory-bound ops as a copy of the same bytes (half read, half
 *    written), blocking TP/SP collectives on the compute stream. A TP
 *    collective the model overlaps with a GEMM (pp_op.overlap_op) goes on
 *    the TP side stream, launched
 *    before that GEMM and joined after it (Megatron's async TP
 *    all-reduce / SP all-gather and reduce-scatter). A backward task runs
 *    the layer's recompute ops first; of a backward the zero-bubble
 *    schedules split, the input-gradient task runs the recompute and the
 *    backward less its weight-gradient GEMMs, the weight-gradient task
 *    those GEMMs only (pp_op_wgrad).
 *  - Data-parallel gradient reductions and parameter all-gathers (and
 *    ZeRO-3's per-layer ones) go on the DP stream; the tied-embedding
 *    all-reduce on the embedding stream; each task's collective, size and
 *    element size are the payload of its event tag (engine/stepcost.h).
 *    What a task is follows from that tag's group (compute pass, slowdown,
 *    optimizer, DP, stage-to-stage, embedding, storage) and its resource's
 *    stage, never from resource names.
 *  - Stage-to-stage transfers: a send on the sender (on the compute stream
 *    when training.overlap_p2p_comm is false, else on a send stream after
 *    the forward/backward it carries) and a receive on the receiver's
 *    receive stream (the receiver: the stage of the unit that consumes it,
 *    the send's successor in the graph, as the schedule places it: the
 *    next or previous rank in a line, but a V's second chunk flows from
 *    the last rank back to the first and DualPipe's reverse direction
 *    from the last rank down), posted when the receiver's compute stream reaches the
 *    consumer (as frameworks post them: the communication stream waits for
 *    the compute stream first); the consumer waits for it. One NCCL
 *    communicator per direction and kind, so each has one sender and one
 *    receiver; one send and one receive stream per kind and way (with the
 *    kind's line or against it), so a stream's transfers all go to, or
 *    come from, one peer and keep the order the consumer needs them in
 *    (sharing one, a V's two flows block each other).
 *  - The optimizer is a memory-bound copy of its byte count.
 *  - Every dependency edge of the graph between tasks of one GPU on
 *    different streams becomes an event record after the predecessor and
 *    a wait before the successor.
 * Instructions are issued in simulated start order (ties by end, then task
 * id), so every communicator sees its calls in the same order on every
 * member (NCCL's rule), and a wait never precedes its record.
 *
 * Not replayed: data loading (no GPU work), fused flash attention (use
 * "use_flash_attn": false: the attention core is then batched GEMMs plus
 * softmax/dropout kernels), context parallelism.
 */
#ifndef PP_REPLAYPLAN_H
#define PP_REPLAYPLAN_H

#include "engine/collective.h"
#include "input/hw.h"
#include "core/pp.h"
#include "input/scenario.h"
#include <stdbool.h>
#include <stdint.h>

#define PP_RP_MAX_GPUS 64

/* Streams of one GPU. */
enum {
	PP_RS_COMPUTE,
	PP_RS_TP,       /* overlapped TP/SP collectives */
	PP_RS_DP,       /* data-parallel / ZeRO collectives */
	PP_RS_EMBED,    /* tied-embedding all-reduce */
	PP_RS_SEND_F,   /* async pipeline sends of activations */
	PP_RS_SEND_B,   /* ... of gradients */
	PP_RS_RECV_F,
	PP_RS_RECV_B,
	/* the same four for transfers that flow against their kind's line
	 * (a V's second chunk, DualPipe's reverse direction: activations to
	 * the previous rank, gradients to the next), so that one stream never
	 * serves two peers whose transfers the schedule interleaves */
	PP_RS_SEND_F_REV,
	PP_RS_SEND_B_REV,
	PP_RS_RECV_F_REV,
	PP_RS_RECV_B_REV,
	PP_RS_COUNT
};
extern const char *const pp_rs_names[PP_RS_COUNT];

typedef enum pp_ri_kind {
	PP_RI_GEMM,     /* arg = GEMM shape index */
	PP_RI_MEM,      /* bytes = traffic (read + written) */
	PP_RI_COLL,     /* coll over comm; bytes = nccl-tests' size of one rank */
	PP_RI_SEND,     /* bytes to arg (peer's rank in comm) */
	PP_RI_RECV,     /* bytes from arg */
	PP_RI_RECORD,   /* record event arg on the stream */
	PP_RI_WAIT      /* the stream waits for event arg */
} pp_ri_kind;

typedef struct pp_rinstr {
	uint8_t kind;        /* pp_ri_kind */
	uint8_t stream;      /* PP_RS_* */
	uint8_t elem_bytes;  /* collectives and p2p: 2 (bf16) or 4 (fp32) */
	uint8_t cat;         /* the graph task's category (PP_CAT_*) */
	int16_t comm;        /* COLL/SEND/RECV: communicator index */
	int16_t coll;        /* COLL: pp_coll */
	int32_t arg;
	int32_t task;        /* graph task id; -1 = none */
	int32_t op;          /* workload op index; -1 = none */
	double bytes;
	double sim_s;        /* the simulator's duration of this instruction */
} pp_rinstr;

typedef struct pp_rgemm {
	pp_dtype dtype;
	int64_t m, n, k, batch;  /* D[m x n] = A[m x k] B[k x n], batch times */
	double sim_s;
	char name[32];
} pp_rgemm;

typedef struct pp_rcomm {
	char name[48];
	int n;
	int gpus[PP_RP_MAX_GPUS];   /* global GPU ranks, comm rank order */
} pp_rcomm;

typedef struct pp_rgpu {
	int stage, tp_i, cp_i, dp_i;
	pp_rinstr *ins;
	int nins, cap;
	int nevents;
	bool uses[PP_RS_COUNT];
} pp_rgpu;

typedef struct pp_rplan {
	int ngpus;
	pp_rgpu *gpu;
	pp_rcomm *comms;
	int ncomms;
	pp_rgemm *gemms;
	int ngemms;
	double des_step_s;      /* makespan of the simulated graph */
	int64_t graph_tasks, graph_edges;
	int skipped_tasks;      /* data loading */
} pp_rplan;

typedef struct pp_rplan_opts {
	/* post each receive at the sender's simulated time instead of when
	 * the receiver's stream reaches its consumer (a diagnostic: a posted
	 * receive kernel spins on SMs until its data comes) */
	bool early_recv;
	/* leave out the data-parallel collectives (a diagnostic: their cost in
	 * the step, measured) */
	bool no_dp;
} pp_rplan_opts;

/* Build the plan of one step of s on hw (a scenario that the replay can
 * execute: PP_EINPUT with the reason otherwise); o may be NULL (defaults).
 * p is released by pp_rplan_release. */
int pp_rplan_build(pp_rplan *p, const pp_scenario *s, const pp_hw *hw, const pp_rplan_opts *o,
		   pp_err *err);
void pp_rplan_release(pp_rplan *p);

#endif
