/*
 * cspec.h - a cluster and its scheduling policy, as `podplan cluster`
 * reads them from a JSON file: the nodes, the NVLink domain apart from the
 * node, the leaf/spine fabric, the shared file system, the scheduler, the
 * queues with their quotas, placement and reliability.
 *
 * Key names follow Slurm (slurm.conf) and Kueue where they have one
 * (docs/cluster.md has the table): scheduler.type "builtin" (strict FIFO,
 * SchedulerType=sched/builtin) or "backfill" (EASY backfill,
 * sched/backfill) with backfill.max_job_test (bf_max_job_test);
 * preempt_mode "off" | "requeue" (PreemptMode) with preempt_exempt_time_s
 * (PreemptExemptTime); queues[] are Kueue ClusterQueues with
 * nominal_quota_gpus and borrowing_limit_gpus; placement "pack" | "spread"
 * (Kueue TAS MostAllocated | LeastAllocated) | "fgd" (pack, and shares of
 * a GPU by fragmentation gradient descent, cluster/cfgd.h); topology_mode "required" |
 * "preferred" | "none" (kueue.x-k8s.io/podset-required-topology |
 * -preferred-topology) at the leaf switch (Slurm topology/tree's leaf).
 *
 * Units inside: seconds, bytes, bytes/s; the file gives GB/s and GiB where
 * its key says so. Reliability keeps apart the infrastructure failure rate
 * (a node breaks, is repaired; Meta's r_f, failures per 1,000 node-days)
 * and the all-cause job-interruption rate (software, user, infrastructure:
 * the job restarts, the node stays), as Kokolis et al. (arXiv 2410.21680)
 * measure them.
 *
 * Ownership: pp_cspec_release() frees the arrays.
 */
#ifndef PP_CSPEC_H
#define PP_CSPEC_H

#include "core/pp.h"
#include <stdbool.h>

typedef enum pp_csched { PP_CSCHED_FIFO, PP_CSCHED_BACKFILL } pp_csched;
typedef enum pp_cplace { PP_CPLACE_PACK, PP_CPLACE_SPREAD, PP_CPLACE_FGD } pp_cplace;
typedef enum pp_ctopo { PP_CTOPO_NONE, PP_CTOPO_PREFERRED, PP_CTOPO_REQUIRED } pp_ctopo;

extern const char *const pp_csched_names[2];   /* "builtin", "backfill" */
extern const char *const pp_cplace_names[3];   /* "pack", "spread", "fgd" */
extern const char *const pp_ctopo_names[3];    /* "none", "preferred", "required" */

typedef struct pp_cnode_type {
	char name[48];
	char gpu[48];                /* catalog GPU id, informative */
	int count;                   /* nodes of this type */
	int gpus_per_node;
	int cpus_per_node;
	double ram_bytes;            /* host RAM: async checkpoints stage through it */
	int nics_per_node;
	double nvme_bytes;           /* local NVMe */
	int mig;                     /* its GPUs in MIG mode: 1 + cmig.h's GPU; 0 = not */
} pp_cnode_type;

typedef struct pp_cqueue {
	char name[48];
	int nominal_quota_gpus;      /* -1 = no quota */
	int borrowing_limit_gpus;    /* beyond nominal, from idle capacity; -1 = unlimited */
	int priority;                /* higher first; may preempt lower */
} pp_cqueue;

/* A spot pool (cspot.h reads it): nodes of the cluster's node size that
 * only spot jobs use, whose availability follows a trace or a reclaim
 * rate, each reclaim announced notice_s ahead. */
typedef struct pp_cspot {
	int nodes;                   /* 0 = no spot pool */
	double reclaims_per_node_s;  /* rate mode: per available node-second; 0 with a trace */
	double replace_s;            /* rate mode: a reclaimed node is back after this */
	double notice_s;             /* the warning before a node is taken */
	double usd_per_gpu_hour;     /* spot price per GPU-hour held; NAN = none */
	double *trace_t_s;           /* trace mode: ascending, the first 0 */
	int *trace_nodes;            /* nodes available from trace_t_s[i] on */
	int ntrace;                  /* 0 = rate mode */
} pp_cspot;

typedef struct pp_cspec {
	char name[128];
	char path[512];              /* as given; "" when parsed from text */
	pp_cnode_type *types;
	int ntypes;
	int nodes, gpus;             /* derived totals */
	int gpus_per_node;           /* the largest of the node types */
	int nvlink_domain_gpus;      /* 8, or 72 for NVL72 racks; >= gpus_per_node */
	int nodes_per_leaf;          /* nodes under one leaf switch */
	double oversubscription;     /* leaf uplinks : downlinks, >= 1 */
	double fs_read_Bps, fs_write_Bps;   /* shared file system, sustained */
	double fs_metadata_ops_per_s;       /* informative */
	double host_copy_Bps;        /* per node, GPU -> host RAM (async checkpoint staging) */
	/* scheduler */
	pp_csched sched;
	int backfill_max_job_test;   /* pending jobs a backfill pass looks at */
	pp_cplace placement;
	pp_ctopo topology_mode;
	bool preempt;                /* PreemptMode=REQUEUE */
	double preempt_exempt_s;     /* minimum runtime before a job may be preempted */
	/* Slurm's dispatch of submitted batch jobs (SchedMD/slurm
	 * src/slurmctld/proc_req.c _slurm_rpc_submit_batch_job: a submission
	 * only calls queue_job_scheduler(); controller.c _slurmctld_background,
	 * waking once a second, runs schedule() when batch_sched_delay seconds
	 * have passed since its last pass, and a full pass every
	 * sched_interval). Off (the default, and a zeroed struct): an arrival
	 * is considered the instant it comes. */
	bool batch_dispatch;         /* on: set by scheduler.batch_sched_delay_s */
	double batch_sched_delay_s;  /* SchedulerParameters=batch_sched_delay (Slurm: 3) */
	double sched_interval_s;     /* SchedulerParameters=sched_interval (Slurm: 60); 0 = none */
	double time_resolution_s;    /* queueing delays as the trace records them: start and
					submission each cut to this (Slurm's time_t, sacct:
					1); 0 = exact */
	pp_cqueue *queues;
	int nqueues;
	/* reliability */
	double infra_failures_per_node_s;     /* r_f, per node-second */
	double interruptions_per_node_s;      /* all causes, >= r_f; the rest leaves the node up */
	double repair_s;             /* a failed node is out this long */
	double restart_s;            /* a killed job's relaunch, reload and warm-up */
	int max_requeue;             /* interruptions a job survives; past them it ends failed
					(Slurm MaxBatchRequeue, default 5); -1 = no limit */
	double lemon_fraction;       /* nodes failing lemon_factor times as often */
	double lemon_factor;
	/* money */
	double usd_per_gpu_hour;     /* the cluster's fully loaded cost per available GPU-hour; NAN = none */
	pp_cspot spot;               /* the spot pool, beside the nodes above (not in nodes, gpus) */
	unsigned long seed;
	double horizon_s;            /* the period simulated: jobs past it are cut off, and the
					cluster counts as available all of it; 0 = until the
					last job ends */
	int timeline_points;         /* allocation samples over the run */
} pp_cspec;

/* Read a spec file. Errors: PP_EINPUT naming FILE:LINE:COL, the JSON path,
 * what was found and what was expected. */
int pp_cspec_load(pp_cspec *s, const char *path, pp_err *err);
int pp_cspec_parse(pp_cspec *s, const char *name, const char *text, size_t len, pp_err *err);
void pp_cspec_release(pp_cspec *s);
/* A deep copy (what-if variants). */
void pp_cspec_copy(pp_cspec *dst, const pp_cspec *src);
/* Index of the queue named name, or -1. */
int pp_cspec_queue(const pp_cspec *s, const char *name);

#endif
