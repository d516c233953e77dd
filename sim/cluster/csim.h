/*
 * csim.h - many jobs on one cluster: an event-driven simulation of the
 * queue, gang admission, placement, failures, checkpoints on a shared file
 * system, and what the cluster delivers.
 *
 * Data flow: pp_cjobs (cjobs.h) + pp_cspec (cspec.h) -> events (arrival,
 * end of a compute segment, checkpoint write done, node failure, job
 * interruption, node repaired) popped in time order from a binary heap ->
 * per-job and per-cluster results (pp_csim_result) -> cost (utilisation).
 *
 * Mechanisms, each with its source:
 *  - Gang admission: a job starts only when all its GPUs are placed at once.
 *    Strict FIFO (Slurm sched/builtin: nothing passes a blocked head) or
 *    EASY backfill (Lifka 1995; Slurm sched/backfill): the first blocked
 *    job gets a reservation at the earliest time enough GPUs free up (the
 *    "shadow time", from the running jobs' time limits) and a later job may
 *    start now if it ends before the shadow time or uses only GPUs the
 *    reservation leaves over; backfill looks at max_job_test pending jobs.
 *  - Slurm's dispatch of batch jobs (spec batch_dispatch, cqueue.c
 *    cs_batch_arrival): an arrival waits for slurmctld's background pass
 *    (once a second, batch_sched_delay after the last pass, or the full
 *    pass every sched_interval); a job's end still schedules at once. Off,
 *    a job is considered the instant it arrives. Queueing delays are
 *    recorded at the spec's time_resolution_s (sacct: whole seconds).
 *  - Queues with quotas (Kueue ClusterQueue nominalQuota, borrowingLimit):
 *    a queue past its nominal quota borrows only what other queues leave
 *    unused. Priorities order the queue; with preempt_mode "requeue" a
 *    blocked job preempts lower-priority jobs that have run at least
 *    preempt_exempt_time_s (Slurm PreemptMode=REQUEUE, PreemptExemptTime).
 *  - Placement: a job of at most one node's GPUs goes on one node (the
 *    fullest that fits with "pack", the emptiest with "spread"); a larger
 *    job takes ceil(gpus / nodes) GPUs on each of its nodes, inside one
 *    leaf switch when the topology is required or preferred and it fits
 *    there (Kueue TAS, Slurm topology/tree). A share of one GPU (gpu_milli)
 *    goes on the partly used GPU it fills best (openb's fractional pods).
 *  - Failures: node failures, a Poisson process per node at the
 *    infrastructure rate (lemon nodes lemon_factor times it), take the node
 *    out for repair_time_s and kill every job on it; other interruptions
 *    (the all-cause rate less the infrastructure one, per node a job
 *    holds) kill the job and leave the node. A killed job loses the work
 *    since its last committed checkpoint, is requeued at its original
 *    place in the queue, and pays restart_s when it starts again; past
 *    max_requeue interruptions (Slurm MaxBatchRequeue) it ends failed
 *    (Kokolis et al., arXiv 2410.21680, s. 4).
 *  - Checkpoints: every checkpoint_interval_s of compute a job writes
 *    checkpoint_bytes to the shared file system; concurrent writes share
 *    its write bandwidth equally (processor sharing), so bursts slow each
 *    other. A synchronous checkpoint blocks the job until written; an
 *    asynchronous one blocks only while each node copies its shard to host
 *    RAM at host_copy_GBps, then writes in the background (PyTorch DCP
 *    async_save); a checkpoint counts once it is written.
 *  - Spot pool (cspotsim.c): nodes beside the cluster's that only spot
 *    jobs use (first; a spot job finding no room there runs on the
 *    on-demand nodes at the lowest priority). Their number follows an
 *    availability trace, or each available node is reclaimed at a rate
 *    per node-hour and replaced replacement_s later. A reclaim names a
 *    node chosen uniformly among those available, notice_s ahead (AWS:
 *    2 min; GCP: 30 s; cspot.h has the sources): nothing new is placed on
 *    it; a job on it whose checkpoint (checkpoint_bytes at the file
 *    system's whole write bandwidth, alone) fits in the notice writes one
 *    and leaves, losing nothing; the others run on and are killed when
 *    the node goes, losing the work since their last checkpoint. Either
 *    way the gang pays restart_s and requeues (not counted against
 *    max_requeue). Spot GPU-hours held are priced at the pool's own price.
 *    EASY backfill's reservation and the fragmentation count see the
 *    pool's GPUs together with the cluster's (an approximation).
 *  - Serving deployments (cserve.c): a job of kind serve with a demand
 *    curve runs as replicas of its GPUs, each a gang at a priority above
 *    every training job. At its submission and every hour after, the
 *    autoscaler asks for ceil(demand / replica_rps) replicas within
 *    [min, max] (Kubernetes' HPA rule, desired = ceil(current x metric /
 *    target), at hourly steps); extra ones are stopped, pending ones
 *    first; a started replica serves after restart_s (loading the model:
 *    the scale-up delay). Served requests: min(demand, serving replicas x
 *    replica_rps), integrated over time. All replicas end with the
 *    deployment's lifetime (duration_s).
 *  - A job that names a podplan scenario runs tokens / tokens-per-step
 *    steps at the engine's step time for the placement it got (pp_cscen:
 *    inside one leaf, full bisection; across leaves, the spec's
 *    oversubscription).
 *
 * Reproducible: every random draw comes from one generator seeded with the
 * spec's seed.
 *
 * Ownership: pp_csim_run() fills a caller-owned result whose arrays are
 * heap-allocated; pp_csim_result_release() frees them.
 */
#ifndef PP_CSIM_H
#define PP_CSIM_H

#include "cluster/cjobs.h"
#include "cluster/cspec.h"
#include "core/pp.h"
#include <stdbool.h>

/* Step time of scenario s (index into jobs->scenarios) on the placement a
 * job got: spans_leaf says whether its nodes sit under more than one leaf
 * switch. Fills *step_s, *tokens_per_step and *mfu (program goodput). */
typedef int (*pp_csim_step_fn)(void *ctx, int s, bool spans_leaf, double *step_s,
			       double *tokens_per_step, double *mfu, pp_err *err);

typedef struct pp_csim_opts {
	pp_csim_step_fn step;        /* required when a job names a scenario */
	void *step_ctx;
	/* progress: called about every 1% of the jobs; may be NULL */
	void (*progress)(void *ctx, int done, int total);
	void *progress_ctx;
	bool per_job;                /* fill result.jobs */
} pp_csim_opts;

/* one job's outcome */
typedef struct pp_csim_job {
	double start_s;              /* first start; NAN when it never ran */
	double end_s;                /* completion; NAN when it did not finish */
	double queue_s;              /* first start - submission */
	double alloc_s;              /* wall time holding GPUs, every attempt */
	double useful_s;             /* compute that counted (not lost to failures) */
	double lost_s;               /* compute lost to failures and preemptions */
	double ckpt_block_s;         /* time blocked writing or staging checkpoints */
	double restart_s;            /* relaunch time paid */
	double ettr;                 /* useful_s / (end_s - start_s) */
	int interruptions;           /* failures that killed it */
	int preemptions;
	bool spans_leaf;             /* its last placement crossed leaf switches */
} pp_csim_job;

#define PP_CSIM_SIZE_BUCKETS 6
/* "1", "2-8", "9-64", "65-512", "513+", "all" */
extern const char *const pp_csim_bucket_names[PP_CSIM_SIZE_BUCKETS];
/* The size bucket (0..4) of a job of gpus GPUs. */
int pp_csim_bucket_of(int gpus);

typedef struct pp_csim_qstat {
	int n;
	double mean_s, median_s, p99_s;
} pp_csim_qstat;

typedef struct pp_csim_tpoint {
	double t_s;                  /* bin start */
	double alloc_gpus;           /* mean allocated GPUs over the bin */
	double frag_gpus;            /* mean free GPUs the first pending job could not use */
	double down_gpus;            /* mean GPUs on failed nodes */
	double pending_gpus;         /* mean GPUs asked for by pending jobs */
} pp_csim_tpoint;

typedef struct pp_csim_result {
	int njobs, finished;
	pp_csim_job *jobs;           /* njobs, when opts.per_job */
	double makespan_s;           /* first submission to last completion, or the spec's
					horizon_s when longer (the cluster is held that long) */
	double gpus;
	double gpu_s_available;      /* GPUs x makespan, less the GPU-seconds down */
	double gpu_s_allocated;
	double gpu_s_useful;         /* compute that counted */
	double gpu_s_lost, gpu_s_ckpt, gpu_s_restart;
	double gpu_s_down;
	double gpu_s_fragmented;     /* free while a pending job could not use them */
	/* Google's ML productivity goodput (arXiv 2502.06982): scheduling x
	 * runtime x program */
	double sched_goodput;        /* allocated / available */
	double runtime_goodput;      /* useful / allocated */
	double program_goodput;      /* the engine's MFU, GPU-time weighted over scenario
					jobs; NAN when no job names a scenario */
	double goodput;              /* the product (program goodput 1 when NAN) */
	double usd_per_useful_gpu_hour; /* NAN without cost.usd_per_gpu_hour */
	double mean_ettr;            /* over finished jobs, weighted by their GPUs x time */
	pp_csim_qstat queue[PP_CSIM_SIZE_BUCKETS];
	int infra_failures, interruptions, preemptions, checkpoints;
	int gave_up;                 /* jobs ended failed past max_requeue */
	double mean_ckpt_write_s;    /* one checkpoint's write, start to written */
	/* spot pool (zero without one) */
	int spot_reclaims;           /* nodes reclaimed */
	int spot_ckpt_saved;         /* gangs that wrote a checkpoint in the notice and left */
	int spot_killed;             /* gangs killed when their node went */
	double gpu_s_spot_available; /* the pool's GPUs x time it had them (in gpu_s_available) */
	double gpu_s_spot_allocated; /* held by jobs on the pool (in gpu_s_allocated) */
	double usd_on_demand, usd_spot; /* the two parts of usd_per_useful_gpu_hour's cost */
	/* serving deployments (zero without one) */
	int deployments;
	double serve_demand_req;     /* requests asked for over the deployments' lifetimes */
	double serve_served_req;     /* of which served */
	double serve_replica_s;      /* replica-seconds serving */
	double gpu_s_serving;        /* GPU-seconds held by replicas (the rest: training) */
	pp_csim_tpoint *timeline;
	int ntimeline;
	long long events;
	unsigned long seed;
	double wall_s;               /* how long the simulation took */
} pp_csim_result;

/* Simulate jobs on spec. Errors: PP_EINPUT for a job the cluster can never
 * hold (more GPUs than it has, more nodes than a required topology level
 * gives), naming the job; what the step callback returns. */
int pp_csim_run(const pp_cspec *spec, const pp_cjobs *jobs, const pp_csim_opts *opts,
		pp_csim_result *out, pp_err *err);
void pp_csim_result_release(pp_csim_result *r);
/* The queueing-delay distribution of size bucket b (PP_CSIM_SIZE_BUCKETS - 1:
 * every job) as npts quantiles: q_s[k] the delay at probability
 * k / (npts - 1), by the same order statistics as r->queue (numpy's
 * linear quantile). Needs r->jobs (pp_csim_opts.per_job). Returns the
 * number of jobs in the bucket that started (0: q_s untouched). */
int pp_csim_queue_quantiles(const pp_cjobs *jobs, const pp_csim_result *r, int b, double *q_s,
			    int npts);

#endif
