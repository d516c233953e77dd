/*
 * cfgd.h - GPU-sharing placement on a heterogeneous cluster, and the
 * fragmentation experiment of Weng et al., "Beware of Fragmentation:
 * Scheduling GPU-Sharing Workloads with Fragmentation Gradient Descent",
 * USENIX ATC'23 (FGD), on Alibaba's openb trace
 * (alibaba/clusterdata cluster-trace-gpu-v2023).
 *
 * The mechanism follows the paper's simulator,
 * hkust-adsl/kubernetes-scheduler-simulator @8f3d641:
 *  - a node has a GPU model, CPU (milli), memory (MiB) and up to 8 GPUs,
 *    each with its free share in milli-GPU; a pod asks for CPU, memory,
 *    num_gpu whole GPUs or one share of one GPU (gpu_milli < 1000), and may
 *    name the GPU models it accepts (gpu_spec "V100M16|V100M32");
 *  - a node fits a pod when its CPU, memory and GPUs do (a share: one GPU
 *    with at least gpu_milli free; whole GPUs: num_gpu GPUs fully free)
 *    and its model is one the pod accepts (plugin/open_gpu_share.go and
 *    Kubernetes' NodeResourcesFit);
 *  - best-fit scores a node (1 - (0.5 (cpu_free - cpu_req) / 128000 +
 *    0.5 (gpu_free - gpu_req) / 8000)) x 100, truncated to an integer
 *    (plugin/best_fit_score.go), and puts a share on the fitting GPU with
 *    the least free;
 *  - FGD scores a node sigmoid((F(before) - F(after)) / 1000) x 100,
 *    truncated, F the node's fragmentation (below), and puts a share on the
 *    GPU that scores best (plugin/fgd_score.go);
 *  - the node is the one with the highest integer score, the first by
 *    name among equal ones (the simulator's vendored selectHost, where
 *    Kubernetes draws at random);
 *  - F(node) = sum over the typical pods t of p_t x (the free milli-GPU of
 *    GPUs too small for t when the node can host t, else all its free
 *    milli-GPU) (utils/frag.go NodeGpuShareFragAmountScore: every class
 *    but "Q3 satisfied" is fragment; a CPU-only pod sees all free GPU as
 *    fragment). The typical pods are the trace's most frequent (cpu,
 *    gpu_milli, num_gpu, gpu_spec) kinds, taken in steps of 10 kinds until
 *    they cover 95% of its pods, their frequencies renormalised
 *    (utils/frag.go GetTypicalPods; popularity 95 in the experiments).
 *
 * The experiment (scripts/generate_config_and_run.py with -tune 1.3
 * --shuffle-pod=true, seeds 42..51): the trace's pods in a random order,
 * then pods drawn at random from the trace appended until their GPU
 * requests would pass tune x the cluster's GPUs (simulator.go
 * tuneUpPods), each placed once and never removed; the allocated share of
 * the cluster's milli-GPU is recorded as the arrived requests pass each
 * percent of its capacity (the paper's Fig. 9(a): unallocated GPU =
 * 100 - allocated, against arrived workload).
 *
 * Random draws: GSL's MT19937, seeded; the same seed gives the same run
 * (not the Go simulator's draws: compare means over seeds).
 */
#ifndef PP_CFGD_H
#define PP_CFGD_H

#include "core/pp.h"
#include "core/util.h"
#include <stdbool.h>
#include <stdint.h>

#define PP_FGD_MAX_GPUS 8    /* GPUs a node (the trace's largest nodes) */
#define PP_FGD_MAX_MODELS 64 /* GPU models a cluster (a pod's spec is a bit mask) */
#define PP_FGD_MILLI 1000    /* milli-GPU in one GPU */

typedef struct pp_fgd_node {
	char name[32]; /* sn: ties between equal scores go to the first name */
	int32_t cpu_milli;
	int64_t mem_mib;
	int gpus;
	int model; /* index into pp_fgd_trace.models; -1: no GPU */
} pp_fgd_node;

typedef struct pp_fgd_pod {
	int32_t cpu_milli;
	int64_t mem_mib;
	int num_gpu;    /* 0..8 */
	int gpu_milli;  /* per GPU: 1000 for whole GPUs, < 1000 a share of one */
	uint64_t spec;  /* accepted models (bit i: models[i]); 0: any */
} pp_fgd_pod;

typedef struct pp_fgd_trace {
	pp_fgd_node *nodes;
	int nnodes;
	pp_fgd_pod *pods;
	int npods;
	char models[PP_FGD_MAX_MODELS][24];
	int nmodels;
	int64_t gpu_milli_total; /* the cluster's milli-GPU */
} pp_fgd_trace;

/* Read openb's node list (sn,cpu_milli,memory_mib,gpu,model) and pod list
 * (name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,...), the
 * published CSV formats. A gpu_spec model no node has is kept out of the
 * mask (no node can serve it). Bad input is PP_EINPUT naming the file,
 * the row, the column, what was found and what was expected; nothing is
 * left to release then. */
int pp_fgd_load(pp_fgd_trace *t, const char *nodes_csv, const char *pods_csv, pp_err *err);
void pp_fgd_release(pp_fgd_trace *t);

/* ---- the fragmentation measure, also for the event simulation's
 * placement "fgd" (cplace.c) ---- */

typedef struct pp_fgd_kind {
	int32_t cpu_milli;
	int num_gpu, gpu_milli;
	uint64_t spec;
	double p; /* its frequency among the typical kinds */
} pp_fgd_kind;

/* The typical kinds of pods (cfgd.h above: the most frequent, in steps of
 * 10 kinds until they cover popularity_pct of the pods); heap, *nk of
 * them (at least one slot allocated; caller frees). */
pp_fgd_kind *pp_fgd_kinds(const pp_fgd_pod *pods, int npods, int popularity_pct, int *nk);
/* F of a node of GPU model model (-1: none) with cpu_free milli-CPU and
 * gpu_free[ngpus] milli-GPU free, in milli-GPU. */
double pp_fgd_frag(const pp_fgd_kind *kinds, int nk, int model, int32_t cpu_free,
		   const uint16_t *gpu_free, int ngpus);
/* FGD's node score for F going from before to after:
 * (int)(sigmoid((before - after) / 1000) x 100), 0..100. */
int64_t pp_fgd_score(double before, double after);

typedef enum { PP_FGD_BESTFIT, PP_FGD_FGD } pp_fgd_policy;
extern const char *const pp_fgd_policy_names[2]; /* "bestfit", "fgd" */

typedef struct pp_fgd_opts {
	pp_fgd_policy policy;
	double tune;        /* arrived GPU requests / capacity to reach; <= 0: the trace as is */
	bool shuffle;       /* the trace's pods in a random order (else file order) */
	unsigned long seed;
	int popularity_pct; /* typical pods cover this share of the trace's pods (95) */
} pp_fgd_opts;

#define PP_FGD_MAX_POINTS 301 /* arrived percent 0..300 */

typedef struct pp_fgd_result {
	/* alloc_pct[k]: allocated milli-GPU / capacity x 100 once the arrived
	 * requests first reach k% of capacity; NAN where they never do */
	double alloc_pct[PP_FGD_MAX_POINTS];
	int pods, failed;      /* placed or not */
	int typical;           /* typical pod kinds used by F */
	double arrived_pct;    /* all arrived requests / capacity x 100 */
	double final_alloc_pct;
} pp_fgd_result;

/* Place the trace's pods under o (the experiment above). */
int pp_fgd_run(const pp_fgd_trace *t, const pp_fgd_opts *o, pp_fgd_result *r, pp_err *err);

/* The experiment's figures over runs seeds seed, seed+1, ...: the median
 * (the paper's Fig. 9(a) plots the median of 10 seeds) unallocated GPU share (100 - allocated, percent of capacity) at arrived
 * load_pct for each policy, and the reduction FGD gives,
 * 100 (1 - fgd / bestfit) percent. */
typedef struct pp_fgd_gap {
	double load_pct;
	double unalloc_bestfit_pct, unalloc_fgd_pct, reduction_pct;
	int runs;
} pp_fgd_gap;
int pp_fgd_gap_run(const pp_fgd_trace *t, double tune, unsigned long seed, int runs,
		   const double *loads, int nloads, pp_fgd_gap *out, pp_err *err);

/* The experiment's table: unallocated GPU under best-fit and FGD, and the
 * reduction, at arrived 80, 90, 95, 100, 105, 110, 120, 130% ... up to
 * tune x 100 (not included), medians over runs seeds seed.. (as
 * pp_fgd_gap_run),
 * appended to out. */
int pp_fgd_report(const pp_fgd_trace *t, double tune, unsigned long seed, int runs,
		  pp_sb *out, pp_err *err);

#endif
