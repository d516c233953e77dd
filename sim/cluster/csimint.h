/*
 * csimint.h - the state the cluster simulation's files share (csim.c: the
 * event loop and the scheduler; cplace.c: nodes and placement; cstats.c:
 * what the run measured). Times in seconds from the first submission,
 * work in units of the job's progress (seconds of compute for a replayed
 * job, steps for a scenario job), bytes.
 */
#ifndef PP_CSIMINT_H
#define PP_CSIMINT_H

#include "cluster/cheap.h"
#include "cluster/csim.h"
#include <gsl/gsl_rng.h>
#include <stdint.h>

enum { ST_WAIT, ST_PEND, ST_RUN, ST_DONE };
enum { PH_RESTART, PH_COMPUTE, PH_STAGE, PH_CKPT_BLOCK, PH_FLOW_WAIT };
enum { EV_ARRIVE, EV_SEG, EV_FLOW, EV_NODEFAIL, EV_INTR, EV_REPAIR, EV_BGPASS };

typedef struct cs_slot {
	int node;
	int ngpu;                /* whole GPUs taken on it */
	uint64_t mask;           /* which GPUs (clusters with fractional jobs only) */
} cs_slot;

typedef struct cs_node {
	int free;                /* whole GPUs free */
	int leaf;
	bool up, lemon;
	int prev, next;          /* in its (leaf, free) bucket list */
	int *jobs;               /* jobs placed on it */
	int njobs, capjobs;
} cs_node;

typedef struct cs_job {
	uint8_t st, phase;
	bool needs_restart, spans_leaf, flow_async, gave_up;
	uint32_t gen;
	int prev, next;          /* pending list */
	int run_pos;             /* index in running[], -1 */
	int queue_spec;          /* index into spec->queues, -1 = none */
	int prio;
	int alloc_gpus;          /* GPUs it holds: per-node share x nodes */
	double work, done, ckpt_done, rate;   /* units; rate in units/s */
	double next_ckpt_at;     /* units */
	double seg_t0, seg_done0, phase_t0, attempt_t0;
	double est_end;          /* backfill's expected end of this attempt */
	int flow;                /* index into the file system's flows, -1 */
	cs_slot *slots;
	int nslots;
	int frac_gpu;            /* fractional job: node slot's GPU index */
	double compute_s, lost_s, ckpt_block_s, restart_s, alloc_s;
	double start_s, end_s, mfu;
	int interruptions, preemptions;
} cs_job;

typedef struct cs_flow {
	int job;
	double v_end;            /* virtual time at which it is written */
	double t0;               /* when it started */
	double snapshot;         /* the job's done units it commits */
} cs_flow;

/* A running job's expected end and the GPUs it frees then (cs_reserve). */
typedef struct cs_end {
	double end_s;
	int gpus;
} cs_end;

typedef struct cs_sim {
	const pp_cspec *spec;
	const pp_cjobs *jobs;
	const pp_csim_opts *opts;
	pp_csim_result *r;
	pp_err *err;
	gsl_rng *rng;
	pp_cheap heap;
	double now;
	int G;                   /* GPUs per node */
	int nleaves;
	cs_node *nodes;
	int nnodes;
	int *bhead;              /* [leaf * (G + 1) + free] -> first node, -1 */
	int *cnt;                /* [free] nodes up with that many whole GPUs free */
	int *cntl;               /* [leaf * (G + 1) + free] */
	uint16_t *milli;         /* [node * G + gpu] free thousandths; fractional clusters only */
	bool has_frac;
	struct pp_fgd_kind *fgd_kinds; /* placement fgd: the job stream's typical kinds (cfgd.h) */
	struct pp_mig_state *mig; /* [node * G + gpu] MIG instances (cmig.h); NULL: no MIG nodes */
	int8_t *node_mig;         /* [node] cmig.h's GPU of a MIG node type, -1 not MIG */
	int fgd_nk;
	int free_gpus, up_gpus, down_gpus;
	cs_job *js;
	int njobs, finished, arrived;
	int pend_head, pend_tail, npend;
	double pend_gpus;
	int *running;
	int nrunning;
	pp_heap resv;            /* cs_reserve()'s heap of running jobs' ends (cs_end) */
	cs_end *resv_items;      /* and its input: one a job */
	/* scheduler */
	bool blocked;            /* a job is blocked since the last full pass */
	int blocked_job;
	double shadow_s;         /* its reservation */
	int extra_gpus;
	bool dirty;              /* resources freed: a full pass is due */
	/* Slurm's batch dispatch (spec->batch_dispatch; cs_batch_arrival) */
	bool bg_pending;         /* a background pass is pushed */
	double bg_last_s;        /* the last background pass */
	int *qused;              /* GPUs in use per spec queue */
	/* file system */
	cs_flow *flows;
	int nflows, capflows;
	double fs_v, fs_t;       /* virtual time and when it was last advanced */
	uint32_t fs_gen;
	double ckpt_write_sum;
	/* failures */
	double fail_rate_max;    /* per node-second, the largest node weight's */
	/* accounting */
	double t_last;
	double frag_now;
	pp_csim_tpoint *bins;
	int nbins;
	double bin_w;
	int next_progress;
} cs_sim;

/* job j's record */
static inline const pp_cjob *cs_jx(const cs_sim *s, int j)
{
	return &s->jobs->v[j];
}

/* cqueue.c */
/* whether pending job a goes before b: priority (high first), submission */
bool cs_pend_before(const cs_sim *s, int a, int b);
/* job j into / out of the pending list */
void cs_pend_insert(cs_sim *s, int j);
void cs_pend_remove(cs_sim *s, int j);
/* whether job j's queue may take its GPUs now (nominal quota, borrowing) */
bool cs_quota_ok(const cs_sim *s, int j);
/* EASY backfill's reservation for blocked job j: s->shadow_s, s->extra_gpus */
void cs_reserve(cs_sim *s, int j);
/* A batch job arrived with spec->batch_dispatch on: the time of the
 * background pass that will consider it (pushed as EV_BGPASS unless one
 * is pending already). */
void cs_batch_arrival(cs_sim *s);
/* The background pass ran now. */
void cs_batch_pass(cs_sim *s);

/* cfs.c */
/* advance the file system's virtual time to s->now */
void cs_fs_advance(cs_sim *s);
/* the event of the next flow end (a new generation: older ones are stale) */
void cs_fs_reschedule(cs_sim *s);
/* job j starts writing bytes (async: staged from host RAM) */
void cs_fs_add(cs_sim *s, int j, double bytes, bool async_);
/* flow i is done or dropped */
void cs_fs_drop(cs_sim *s, int i);
/* job j's flow, if any, cancelled (the job was killed) */
void cs_fs_cancel(cs_sim *s, int j);

/* cplace.c */
int cs_place_init(cs_sim *s);
void cs_place_release(cs_sim *s);
/* place job j now; false when it does not fit */
bool cs_place(cs_sim *s, int j);
/* give back what job j holds */
void cs_unplace(cs_sim *s, int j);
/* nodes and per-node GPUs job j asks for */
void cs_shape(const cs_sim *s, const pp_cjob *x, int *nodes, int *per_node);
/* take node n out (failure) / put it back (repair) */
void cs_node_down(cs_sim *s, int n);
void cs_node_up(cs_sim *s, int n);
/* free GPUs that job j could not use (fragmentation with respect to it) */
double cs_frag_for(const cs_sim *s, int j);

/* cstats.c */
void cs_stats_advance(cs_sim *s, double t);
int cs_stats_finish(cs_sim *s);

#endif
