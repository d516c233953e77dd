/*
 * cjobs.h - the job stream a cluster simulation replays: podplan's own jobs
 * CSV, and importers for the job records engineers and researchers have.
 *
 * Formats (pp_cjobs_load picks one from the file's first bytes, or the
 * caller names it):
 *   podplan  CSV: job_id,user,queue,gpus,nodes,submit_s,duration_s,
 *            time_limit_s,scenario,tokens,checkpoint_interval_s,
 *            checkpoint_bytes,async_checkpoint,priority,spot,topology,
 *            gpu_milli,kind,replicas_min,replicas_max,replica_rps,
 *            demand_rps (job_id, gpus, submit_s and duration_s or
 *            scenario + tokens required; the rest optional, any order).
 *            A row of kind serve with replica_rps and demand_rps is a
 *            serving deployment (pp_cserve_dep): gpus and nodes are one
 *            replica's, duration_s its lifetime; demand_rps is one number,
 *            hourly values separated by ';' (hour 0 = its submission,
 *            repeating), or a CSV file "hour,rps" relative to the jobs file
 *   sacct    Slurm `sacct --parsable2` ('|'-separated, a header line):
 *            JobID, Submit, Start, End (or Elapsed), AllocTRES (or
 *            ReqTRES) with gres/gpu=N, NNodes, Partition, User, State,
 *            Timelimit; job steps (JobID with a '.') are skipped
 *   acme     InternLM/AcmeTrace data/job_trace/trace_{seren,kalos}.csv:
 *            job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,
 *            start_time,end_time,duration,queue,gpu_time
 *   helios   S-Lab-System-Group/HeliosData cluster_log.csv: job_id,user,vc,
 *            gpu_num,cpu_num,node_num,state,submit_time,start_time,
 *            end_time,duration,queue (vc becomes the queue)
 *   philly   msr-fiddle/philly-traces cluster_job_log (JSON array of
 *            {status, vc, jobid, attempts[{start_time,end_time,
 *            detail[{ip,gpus[]}]}], submitted_time, user}); the GPUs of the
 *            first attempt, the run time the sum of the attempts'
 *   openb    alibaba/clusterdata cluster-trace-gpu-v2023
 *            openb_pod_list_*.csv: name,cpu_milli,memory_mib,num_gpu,
 *            gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,
 *            scheduled_time (gpu_milli < 1000: a share of one GPU)
 * CPU-only records (no GPU) and records that never ran (no start) are left
 * out and counted in skipped. Times become seconds from the earliest
 * submission.
 *
 * Errors: PP_EINPUT "FILE:ROW: column NAME: found X, expected Y" (rows
 * count from 1, the header is row 1), nothing kept.
 *
 * Memory: 80 bytes a job plus its id; names of queues and scenarios are
 * kept once.
 */
#ifndef PP_CJOBS_H
#define PP_CJOBS_H

#include "core/pp.h"
#include "core/util.h"
#include <stdbool.h>
#include <stdint.h>

typedef enum pp_cjob_fmt {
	PP_CJF_AUTO, PP_CJF_PODPLAN, PP_CJF_SACCT, PP_CJF_ACME, PP_CJF_HELIOS, PP_CJF_PHILLY,
	PP_CJF_OPENB, PP_CJF_COUNT
} pp_cjob_fmt;
extern const char *const pp_cjob_fmt_names[PP_CJF_COUNT];

/* recorded end state, where the source gives one */
typedef enum pp_cjob_state {
	PP_CJS_UNKNOWN, PP_CJS_COMPLETED, PP_CJS_CANCELLED, PP_CJS_FAILED, PP_CJS_COUNT
} pp_cjob_state;
extern const char *const pp_cjob_state_names[PP_CJS_COUNT];

/* what the job is; the generator's mix and the per-kind tables */
typedef enum pp_cjob_kind {
	PP_CJK_OTHER, PP_CJK_PRETRAIN, PP_CJK_FINETUNE, PP_CJK_EVAL, PP_CJK_SERVE, PP_CJK_COUNT
} pp_cjob_kind;
extern const char *const pp_cjob_kind_names[PP_CJK_COUNT];

typedef struct pp_cjob {
	double submit_s;          /* from the stream's first submission */
	double work_s;            /* run time on the placement it was recorded on (replay);
				     NAN for a scenario job until the engine gives it */
	double limit_s;           /* the user's time limit (backfill's estimate); NAN = work_s */
	double ckpt_interval_s;   /* 0 = no checkpoints */
	double ckpt_bytes;        /* one checkpoint, the whole job */
	double tokens;            /* scenario jobs: tokens to train */
	int32_t gpus;             /* whole GPUs; 1 for a fractional job */
	int32_t nodes;            /* 0 = as few as the GPUs need */
	int32_t gpu_milli;        /* 1000 = whole GPUs; less: a share of one GPU */
	int32_t queue;            /* index into pp_cjobs.queues */
	int32_t scenario;         /* index into pp_cjobs.scenarios, -1 none */
	int32_t priority;
	uint32_t id_off;          /* job id: offset into pp_cjobs.ids */
	int32_t serve;            /* index into pp_cjobs.serve: a serving deployment; -1 none */
	uint8_t spot, topo, kind, state, async_ckpt;
	uint8_t mig_compute;      /* a MIG instance "Ng.Mgb": N (cmig.h); 0 = none */
	uint16_t mig_gb;          /* and M */
} pp_cjob;

/* A serving deployment: replicas of the job's gpus (and nodes) each,
 * scaled every hour to the demand, between min and max. */
typedef struct pp_cserve_dep {
	int32_t min_replicas, max_replicas;
	double replica_rps;       /* requests/s one replica sustains */
	double *demand_rps;       /* requests/s asked, hour by hour from the submission */
	int nhours;               /* the curve repeats every nhours */
} pp_cserve_dep;

typedef struct pp_cjobs {
	pp_cjob *v;
	int n, cap;
	char *ids;                /* NUL-separated job ids */
	size_t ids_len, ids_cap;
	char **queues;            /* queue (partition, vc) names; queues[0] = "default" */
	int nqueues;
	int last_queue;            /* the queue found last (records come in runs) */
	char **scenarios;         /* scenario paths as written */
	int nscenarios;
	pp_cserve_dep *serve;     /* serving deployments */
	int nserve;
	pp_cjob_fmt fmt;
	int skipped;              /* records left out: CPU-only, never started, job steps */
	double t0_unix_s;         /* the earliest submission, unix seconds (0 when relative) */
} pp_cjobs;

void pp_cjobs_init(pp_cjobs *j);
void pp_cjobs_release(pp_cjobs *j);
/* Read path in format fmt (PP_CJF_AUTO: detect). */
int pp_cjobs_load(pp_cjobs *j, const char *path, pp_cjob_fmt fmt, pp_err *err);
/* The same from text in memory (name for messages). */
int pp_cjobs_parse(pp_cjobs *j, const char *name, const char *text, size_t len,
		   pp_cjob_fmt fmt, pp_err *err);
/* The format text looks like (never PP_CJF_AUTO; PP_CJF_PODPLAN when unsure). */
pp_cjob_fmt pp_cjobs_detect(const char *text, size_t len);

/* Append a job (id copied); returns it. */
pp_cjob *pp_cjobs_add(pp_cjobs *j, const char *id);
const char *pp_cjobs_id(const pp_cjobs *j, const pp_cjob *job);
/* Index of the queue named name, added when new. */
int pp_cjobs_queue(pp_cjobs *j, const char *name);
/* Sort by submission time (stable) and shift times to start at 0. */
void pp_cjobs_finish(pp_cjobs *j);

/* The jobs as podplan's CSV (the columns above; empty cells where a job
 * has no value), through core/csv.h's writer. */
void pp_cjobs_write_csv(const pp_cjobs *j, pp_sb *out);

/* A UTC date-time "YYYY-MM-DD[ T]HH:MM:SS[+HH:MM|Z| TZ]" as unix seconds;
 * -1 when s is not one. */
double pp_cjobs_parse_time(const char *s);
/* A Slurm duration "[D-]HH:MM:SS", "MM:SS", "MM" or "UNLIMITED" (INFINITY);
 * -1 when s is not one. */
double pp_cjobs_parse_slurm_duration(const char *s);

#endif
