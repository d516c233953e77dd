/*
 * backend.h - the measurement layer of podplan-calibrate, as an interface.
 *
 * The sweep (sweep.h) asks a backend for one measurement at a time and
 * records it; it never sees CUDA, NCCL or MPI. Two backends exist: the GPU
 * one (gpu.h: CUDA + NCCL + cuBLASLt, one process for all GPUs or one MPI
 * rank per GPU) and a fake (fake.c) with synthetic timings, so that the
 * sweep, the database writes and the kill-safety are tested on a machine
 * without a GPU. This header includes no CUDA, NCCL or MPI header.
 *
 * SPMD: under MPI every rank runs the same sweep and calls the backend in
 * the same order; the backend synchronises the ranks; only the root (rank
 * 0) records and prints. A single process is its own root.
 *
 * Return values of the measuring calls: 0 = measured; PP_CAL_SKIPPED (> 0)
 * = not measurable here (no fp8 kernels, not enough memory), with the
 * reason in stats->note; < 0 = a PP_E* error that ends the run (an NCCL
 * error, a hang past the timeout, a failed canary).
 */
#ifndef PP_CAL_BACKEND_H
#define PP_CAL_BACKEND_H

#include "input/catalog.h"
#include "input/hw.h"
#include "core/pp.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PP_CAL_SKIPPED 1
#define PP_CAL_MAX_GPUS 64

/* The collectives (pp_coll, pp_coll_names: all_reduce, all_gather,
 * reduce_scatter, broadcast, alltoall, sendrecv) are the simulator's own,
 * from hw.h, so that measurements and the model name them alike. */

/* Element types of the collectives, by nccl-tests' names. */
typedef enum pp_cdtype { PP_CDT_FLOAT, PP_CDT_BF16, PP_CDT_HALF, PP_CDT_COUNT } pp_cdtype;
extern const char *const pp_cdtype_names[PP_CDT_COUNT]; /* float bfloat16 half */
size_t pp_cdtype_bytes(pp_cdtype t);

typedef enum pp_mem_kind {
	PP_MEM_D2D_MEMCPY,  /* cudaMemcpyAsync device to device; GB/s counts read + write */
	PP_MEM_D2D_KERNEL,  /* a 16-byte-vector copy kernel; read + write */
	PP_MEM_H2D,         /* pinned host to device */
	PP_MEM_D2H,         /* device to pinned host */
	PP_MEM_COUNT
} pp_mem_kind;

/* How one measurement iterates: warm-up iterations, then `repeats` timed
 * repeats of `batch` back-to-back iterations each (batch chosen from a
 * pilot iteration so that a repeat lasts about target_s, at most
 * max_batch); the statistics are over the repeats, per iteration. */
typedef struct pp_cal_iters {
	int warmup;
	int repeats;
	int min_repeats;      /* repeats may shrink to this to stay inside max_s */
	double target_s;
	int max_batch;
	double max_s;         /* soft cap on one measurement's timed part */
	double timeout_s;     /* a wait longer than this is a hang: the run stops */
	bool check;           /* verify results (collectives: every element; GEMMs: samples) */
	double gap_s;         /* the GPU left idle this long before the warm-up (0: none) */
} pp_cal_iters;

/* Per-iteration times over the repeats, in seconds. */
typedef struct pp_cal_stats {
	double med_s, min_s, max_s;
	int repeats;          /* 0 = not measured (another rank's GPU, skipped) */
	int batch;
	int64_t wrong;        /* elements that failed the check; -1 = not checked */
	char note[160];       /* method, algorithm, why skipped */
} pp_cal_stats;

typedef struct pp_cal_coll_req {
	pp_coll op;
	pp_cdtype dtype;
	size_t bytes;         /* nccl-tests' "size": max(send, recv) bytes of one rank */
	size_t count;         /* the count argument of the NCCL call */
	size_t send_bytes, recv_bytes;
	bool inplace;
	int nranks;           /* communicator: the first nranks GPUs */
	int root;
} pp_cal_coll_req;

typedef struct pp_cal_gemm_req {
	pp_dtype dtype;       /* bf16 fp16 fp8 (e4m3) tf32 */
	int64_t m, n, k;      /* D[m x n] = A[m x k] B[k x n] */
	char name[64];        /* "square" or "llama3-8b.tp2.fc1.fwd" */
	int device;           /* -1: every GPU in turn, else that GPU only */
	/* A decode-shaped linear layer: m tokens through a weight of n
	 * outputs x k inputs, run as torch.nn.functional.linear calls cuBLAS
	 * (TN: cuBLAS m = the n outputs, n = the m tokens, the weight
	 * transposed), the weight read from HBM, not L2: successive
	 * iterations cycle through copies of it spanning at least
	 * rotate_bytes. */
	bool decode;
	size_t rotate_bytes;
	/* A training shape issued as PyTorch's linear layers issue it
	 * (--torch-layouts): 1 the forward (m tokens, n outputs, k inputs) as
	 * TN with cuBLAS m = n, n = m; 2 the input gradient (m tokens, n inputs,
	 * k outputs) as NN with cuBLAS m = n, n = m; 3 the weight gradient (m
	 * inputs, n outputs, k tokens) as NT. 0: NN as given (bf16), TN (fp8). */
	int torch_pass;
} pp_cal_gemm_req;

/* A sustained run: GEMMs of one shape back to back on every GPU of the job
 * at once for `seconds`, timed and sampled (clocks, power, throttle
 * reasons through NVML) every interval_s; before it, on each GPU in turn,
 * the burst rate of the same shape by the sweep's iteration protocol. */
typedef struct pp_cal_sustain_req {
	pp_dtype dtype;       /* bf16 fp16 fp8 tf32 */
	int64_t m, n, k;
	double seconds;
	double interval_s;
} pp_cal_sustain_req;

#define PP_CAL_MAX_SAMPLES 1200

/* One interval of a sustained run on one GPU. NAN (or reasons -1) where
 * NVML cannot say. */
typedef struct pp_cal_sample {
	double t_s;           /* end of the interval, GPU time since the run began */
	double interval_s;    /* GPU time of the interval */
	int gemms;            /* GEMMs in it */
	double sm_clock_mhz, mem_clock_mhz, power_w, temp_c; /* read while it ran */
	int64_t reasons;      /* NVML clocks-event (throttle) reasons, a bitmask */
} pp_cal_sample;

/* A sustained run's result on one GPU. */
typedef struct pp_cal_sustain_res {
	pp_cal_stats burst;   /* per-GEMM times of the burst measurement; repeats 0: not this GPU */
	int nsamples;
	pp_cal_sample samples[PP_CAL_MAX_SAMPLES];
	double power_limit_w, max_sm_clock_mhz; /* NAN when NVML cannot say */
	char note[160];       /* algorithm, NVML availability */
} pp_cal_sustain_res;

typedef struct pp_cal_storage_req {
	const char *dir;
	size_t bytes;         /* file size */
	size_t block;         /* bytes per write()/read() */
	bool write;           /* write (then the read request reads the same file) */
	int repeats;
} pp_cal_storage_req;

/* Provenance of the machine, filled by describe(). topology_json is heap
 * (caller frees): {"gpus": [...], "links": [["X","NV18"],...],
 * "nvlinks": [[0,18],...], "nvlinks_active": [18,...], "links_from": "...",
 * "nics": [...], "nvidia_smi_topo": "..."}. */
typedef struct pp_cal_host {
	char host[256];
	char gpu_name[128];
	int ngpus, nhosts;
	char driver[64], cuda[32], nccl[32];
	int cpu_cores;
	int64_t mem_bytes;
	char *topology_json;
	/* what the health verdict needs from the topology */
	int nvlinks_active[PP_CAL_MAX_GPUS];   /* active NVLink links per GPU; -1 unknown */
	bool nvlink_all_pairs;                 /* every pair of GPUs talks over NVLink */
} pp_cal_host;

typedef struct pp_cal_backend pp_cal_backend;

typedef struct pp_cal_backend_ops {
	const char *name;
	int (*describe)(pp_cal_backend *b, pp_cal_host *out, pp_err *err);
	/* Allocate buffers for the largest request of the sweep. */
	int (*prepare)(pp_cal_backend *b, size_t coll_send_bytes, size_t coll_recv_bytes,
		       size_t gemm_a_bytes, size_t gemm_b_bytes, size_t gemm_d_bytes,
		       size_t mem_bytes, pp_err *err);
	/* Make the communicator of the first nranks GPUs current and run the
	 * canary on it: all-reduce each rank's id, expect n(n-1)/2 everywhere. */
	int (*group)(pp_cal_backend *b, int nranks, double timeout_s, pp_err *err);
	int (*collective)(pp_cal_backend *b, const pp_cal_coll_req *r, const pp_cal_iters *it,
			  pp_cal_stats *out, pp_err *err);
	/* per_gpu has one entry per GPU of the job; unmeasured ones get repeats 0. */
	int (*gemm)(pp_cal_backend *b, const pp_cal_gemm_req *r, const pp_cal_iters *it,
		    pp_cal_stats *per_gpu, pp_err *err);
	int (*mem)(pp_cal_backend *b, pp_mem_kind k, size_t bytes, const pp_cal_iters *it,
		   pp_cal_stats *per_gpu, pp_err *err);
	/* per_gpu (heap, one per GPU of the job) gets each GPU's burst
	 * figure and samples; the burst part iterates as `it` says. */
	int (*sustained)(pp_cal_backend *b, const pp_cal_sustain_req *r, const pp_cal_iters *it,
			 pp_cal_sustain_res *per_gpu, pp_err *err);
	/* Root only measures; other ranks wait for it. */
	int (*storage)(pp_cal_backend *b, const pp_cal_storage_req *r, pp_cal_stats *out,
		       pp_err *err);
	/* Stop every rank after an error on one (MPI_Abort); NULL = nothing to do. */
	void (*abort_all)(pp_cal_backend *b, int status);
	void (*close)(pp_cal_backend *b);
} pp_cal_backend_ops;

struct pp_cal_backend {
	const pp_cal_backend_ops *ops;
	int ngpus;            /* GPUs in the job, over all ranks */
	int rank, nprocs;     /* 0 and 1 without MPI */
	bool root;
	void *impl;
};

/* The fake backend: ngpus pretend H200-like GPUs; each measurement sleeps
 * delay_s (0 = none) so that a test can kill the process mid-sweep. */
int pp_cal_fake_new(int ngpus, double delay_s, pp_cal_backend **out, pp_err *err);

/* Median, min and max of n per-iteration times (sorts t). */
void pp_cal_stats_from(double *t, int n, int batch, pp_cal_stats *out);

#endif
