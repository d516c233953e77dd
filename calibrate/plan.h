/*
 * plan.h - what a calibration sweep measures, in order: the options of
 * podplan-calibrate, nccl-tests' size semantics, and the list of
 * measurements they expand to. CPU only; no CUDA.
 *
 * Sizes follow nccl-tests: -b MIN -e MAX, then -f FACTOR (multiply) or
 * -i STEP (add, when the factor is 1); a size is the larger of one rank's
 * send and receive buffers in bytes, and the NCCL count is derived from it
 * per collective exactly as nccl-tests' getCollByteCount does.
 */
#ifndef PP_CAL_PLAN_H
#define PP_CAL_PLAN_H

#include "backend.h"
#include "input/catalog.h"

typedef enum pp_item_kind {
	PP_ITEM_GROUP,    /* switch to the communicator of coll.nranks GPUs (+ canary) */
	PP_ITEM_COLL,
	PP_ITEM_GEMM,
	PP_ITEM_MEM,
	PP_ITEM_STORAGE,
	PP_ITEM_SUSTAINED /* GEMMs back to back for seconds, sampled (sustain) */
} pp_item_kind;

typedef struct pp_cal_item {
	pp_item_kind kind;
	pp_cal_coll_req coll;
	pp_cal_gemm_req gemm;
	pp_mem_kind mem;
	size_t mem_bytes;
	pp_cal_storage_req storage;
	pp_cal_sustain_req sustain;
	double est_s;     /* expected duration, for the progress line */
} pp_cal_item;

#define PP_CAL_MAX_TP 8
#define PP_CAL_MAX_GROUPS 16

typedef struct pp_cal_opts {
	/* collectives */
	bool do_coll;
	size_t min_bytes, max_bytes, step_bytes;
	int step_factor;
	bool ops[PP_COLL_COUNT];
	pp_cdtype coll_dtype;
	int groups[PP_CAL_MAX_GROUPS];  /* group sizes; ngroups 0 = 2, 4, 8, ... and all GPUs */
	int ngroups;
	/* GEMMs */
	bool do_gemm;
	bool gemm_dtypes[PP_DT_COUNT];
	int64_t square_min, square_max; /* powers of two between them */
	const char *models;             /* "all", "none" or a comma-separated list of presets */
	int shape_tokens;               /* M of the model shapes; 0 = the preset's seq_length */
	int tps[PP_CAL_MAX_TP];         /* tensor-parallel degrees; ntps 0 = 1 and the GPU count */
	int ntps;
	bool shapes_bwd;                /* backward GEMMs (dgrad, wgrad) of the model shapes too */
	bool shapes_all_gpus;           /* model shapes on every GPU (default: the first) */
	bool torch_layouts;             /* model shapes in PyTorch's layouts (TN, NN, NT) */
	/* decode-shaped GEMMs (measured only when --only names "decode"): the
	 * linear layers of decode_models per TP shard of decode_tps, for
	 * M = 1, 2, 4 ... decode_max_m tokens, in decode_dtypes */
	bool do_decode;
	const char *decode_models;      /* comma-separated presets */
	int decode_tps[PP_CAL_MAX_TP];
	int ndecode_tps;
	int64_t decode_max_m;
	bool decode_dtypes[PP_DT_COUNT];
	/* sustained GEMMs (only when --only names "sustained"): a square of
	 * sustained_size per dtype, back to back for sustained_s seconds on
	 * every GPU at once, sampled every sample_s */
	bool do_sustained;
	bool sustained_dtypes[PP_DT_COUNT];
	int64_t sustained_size;
	double sustained_s, sample_s;
	/* memory */
	bool do_mem;
	size_t mem_min, mem_max;        /* sizes, x4 steps */
	/* storage */
	const char *storage_dir;        /* NULL: no storage measurement */
	size_t storage_bytes, storage_block;
	int storage_repeats;
	pp_cal_iters coll_it, gemm_it, mem_it;
	pp_cal_iters decode_it;         /* decode GEMMs: short, many shapes */
	bool quick;
} pp_cal_opts;

/* The defaults of a full sweep (quick = the --quick pass of about a minute). */
void pp_cal_opts_defaults(pp_cal_opts *o, bool quick);

/* nccl-tests' size syntax: a number with an optional K, M or G suffix
 * (powers of 1024), "8", "64K", "1.5M", "8G". PP_EINPUT otherwise. */
int pp_cal_parse_size(const char *s, size_t *out, pp_err *err);

/* The sizes nccl-tests visits for -b min -e max -f factor -i step: min,
 * then times factor while factor > 1, else plus step, while <= max. Writes
 * at most cap of them into out and returns how many there are. */
size_t pp_cal_sizes(size_t min, size_t max, size_t step_bytes, int step_factor, size_t *out,
		    size_t cap);

/* Fill r's count, send_bytes, recv_bytes and bytes (the size nccl-tests
 * prints) for op over nranks at a requested size, as nccl-tests does:
 * all_gather, reduce_scatter and alltoall split the size among the ranks
 * (rounding the per-rank count down). Returns PP_CAL_SKIPPED when the count
 * comes out 0. */
int pp_cal_coll_layout(pp_coll op, pp_cdtype dt, size_t size, int nranks, pp_cal_coll_req *r);

/* algbw = bytes / time; busbw = algbw x nccl-tests' factor for op and n. */
double pp_cal_busbw_factor(pp_coll op, int nranks);

/* Expand the options into the measurement list (heap; caller frees) for a
 * job of ngpus GPUs. Model presets come from the catalog. */
int pp_cal_plan(const pp_cal_opts *o, const pp_catalog *cat, int ngpus, pp_cal_item **items,
		size_t *n, pp_err *err);

/* The weight copies a decode GEMM cycles through, at least this many
 * bytes in all: ten times the H100's L2 (50 MB, NVIDIA's H100 Tensor Core
 * GPU architecture whitepaper), so that each iteration reads its weight
 * from HBM as a decode step does (the other layers' weights evict it
 * between uses). A method setting, not a model figure. */
#define PP_CAL_DECODE_ROTATE_BYTES ((size_t)512 << 20)

/* A decode GEMM's weight copies: how many, each stride bytes apart
 * (256-byte aligned), so that they span at least r->rotate_bytes. */
size_t pp_cal_decode_copies(const pp_cal_gemm_req *r, size_t *stride);

/* What cuBLAS is asked for a GEMM request: D[cm x cn] = op(A) op(B) over
 * r->k, A transposed (ta) or not, B transposed (tb) or not. As given (NN;
 * fp8 TN); a decode shape and PyTorch's forward and input gradient
 * (torch_pass 1, 2) as nn.Linear calls it, cuBLAS m = the request's n;
 * the weight gradient (torch_pass 3) NT. A holds cm x k elements, B k x cn. */
void pp_cal_gemm_cublas(const pp_cal_gemm_req *r, int64_t *cm, int64_t *cn, bool *ta, bool *tb);

/* The largest buffers the plan needs on one GPU. */
typedef struct pp_cal_plan_max {
	size_t coll_send, coll_recv, gemm_a, gemm_b, gemm_d, mem;
} pp_cal_plan_max;
void pp_cal_plan_maxima(const pp_cal_item *items, size_t n, pp_cal_plan_max *out);

/* Bytes of one element of a GEMM operand (fp8 1, bf16/fp16 2, tf32 4) and
 * of its output (fp8 GEMMs write bf16; tf32 writes fp32). */
size_t pp_cal_gemm_in_bytes(pp_dtype dt);
size_t pp_cal_gemm_out_bytes(pp_dtype dt);

#endif
