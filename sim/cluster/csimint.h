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
enum { EV_ARRIVE, EV_SEG, EV_FLOW, EV_NODEFAIL, EV_INTR, EV_REPAIR, EV_BGPASS,
       /* spot pool (cspotsim.c) and serving deployments (cserve.c) */
       EV_SPOT_AVAIL, EV_SPOT_RATE, EV_SPOT_TERM, EV_SPOT_CKPT, EV_SPOT_BACK, EV_SERVE };
/* why a running job is killed (cs_kill_job) */
enum { CS_KILL_FAILURE, CS_KILL_PREEMPT, CS_KILL_SPOT };
/* a spot node's state */
enum { SP_AVAIL, SP_LEAVING, SP_OUT };

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
	bool spot_ckpt;          /* writing an emergency checkpoint in a reclaim's notice */
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

/* A serving deployment (cserve.c): its replicas are jobs appended after
 * the stream's own (cs_sim.norig on), parked (ST_WAIT) when not wanted. */
typedef struct cs_dep {
	int job;                 /* the deployment's row */
	int rep0, nrep;          /* its replicas: jobs rep0 .. rep0 + nrep - 1 */
	int want;                /* replicas the autoscaler asks for this hour */
	int serving;             /* replicas past their start-up, serving now */
	int hour;                /* hours since its submission */
	bool ended;
	double end_s;            /* submission + lifetime */
	double rps_now;          /* requests/s asked this hour */
	double t_last;           /* the integrals below run to here */
	double demand_req, served_req, replica_s;
} cs_dep;

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
	/* spot pool (cspotsim.c); spot_nodes 0 = none */
	int spot_first, spot_nodes;  /* spot nodes are [spot_first, spot_first + spot_nodes) */
	int od_leaves;           /* leaves of the on-demand nodes; the pool's leaves follow */
	int leaf_lo, leaf_hi;    /* the leaves cs_place may use now */
	uint8_t *spot_st;        /* [spot node] SP_AVAIL, SP_LEAVING, SP_OUT */
	int spot_avail;          /* spot nodes SP_AVAIL */
	int spot_out;            /* spot nodes SP_OUT */
	int spot_owed;           /* nodes a trace gave back while they were still leaving */
	int spot_trace_i;        /* the next trace point */
	uint32_t spot_gen;       /* rate mode: reclaim draws older than this are stale */
	double spot_out_gpu_s;   /* GPU-seconds out, integrated up to spot_t */
	double spot_t;
	/* serving deployments (cserve.c) */
	int norig;               /* the stream's own jobs; replicas follow up to njobs */
	cs_dep *deps;
	int ndeps;
	int *rep_dep;            /* [j - norig]: replica j's deployment */
	pp_cjobs jx;             /* the stream with the replicas appended (arrays owned,
				    names borrowed) */
} cs_sim;

/* job j's record */
static inline const pp_cjob *cs_jx(const cs_sim *s, int j)
{
	return &s->jobs->v[j];
}

/* csjob.c: a job's attempts */
void cs_run_add(cs_sim *s, int j);
void cs_run_remove(cs_sim *s, int j);
/* job j's next segment ends dt from now */
void cs_push_seg(cs_sim *s, int j, double dt);
/* job j computes toward its next checkpoint or its end */
void cs_start_compute(cs_sim *s, int j);
/* a compute segment's progress up to now */
void cs_settle_compute(cs_sim *s, int j);
/* the time of job j's phase so far, counted where it belongs */
void cs_phase_time(cs_sim *s, int j);
/* job j stops: its GPUs back, its attempt's time counted */
void cs_stop_job(cs_sim *s, int j);
/* job j is done */
void cs_finish_job(cs_sim *s, int j);
/* job j is killed (CS_KILL_*): the work since its last checkpoint is lost, it requeues */
void cs_kill_job(cs_sim *s, int j, int cause);
/* job j's progress and phase time counted up to now */
void cs_settle(cs_sim *s, int j);

/* cspotsim.c */
/* the pool's nodes set out as the trace's first point says; the first event */
void cs_spot_init(cs_sim *s);
/* place job j: a spot job on the pool first, then on-demand nodes; others on-demand only */
bool cs_spot_place(cs_sim *s, int j);
void cs_spot_event(cs_sim *s, const pp_cev *e);
/* whole GPUs free on the pool's nodes that placement may use */
int cs_spot_free_gpus(const cs_sim *s);
/* whether node n's repair is to be left alone (a spot node reclaimed or back) */
bool cs_spot_repair_skip(cs_sim *s, int n);
/* the pool's results into s->r */
void cs_spot_finish(cs_sim *s);
void cs_spot_release(cs_sim *s);

/* cservetally.c */
/* deployment d's integrals up to now */
void cs_serve_acc(cs_sim *s, cs_dep *d);
/* replica j starts (+1) or stops (-1) serving */
void cs_serve_count(cs_sim *s, int j, int delta);
/* replica j's work: until its deployment ends */
void cs_serve_work(cs_sim *s, int j);

/* cserve.c */
/* the replicas appended to the stream (s->jx) when it has deployments */
void cs_serve_init(cs_sim *s);
/* deployment row j arrives: its hours start */
void cs_serve_arrive(cs_sim *s, int j);
void cs_serve_event(cs_sim *s, const pp_cev *e);
void cs_serve_finish(cs_sim *s);
/* replicas ended (not in the result's finished jobs) */
int cs_serve_replicas_done(const cs_sim *s);
void cs_serve_release(cs_sim *s);

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
