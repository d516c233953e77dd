/*
 * hw.h - the hardware parameters the simulator uses, resolved once per
 * scenario from the catalogs (GPU SKU, kernel-efficiency defaults, fabrics,
 * storage) and, where a calibration profile is named, from measurements.
 *
 * Every parameter records its origin ("catalog: <source>" or
 * "calibration: <profile>") so predict can say which came from where.
 * Nothing below this module reads the catalogs again.
 */
#ifndef PP_HW_H
#define PP_HW_H

#include "input/catalog.h"
#include "input/scenario.h"

typedef enum pp_coll {
	PP_COLL_ALL_REDUCE,
	PP_COLL_ALL_GATHER,
	PP_COLL_REDUCE_SCATTER,
	PP_COLL_BROADCAST,
	PP_COLL_ALL_TO_ALL,
	PP_COLL_SENDRECV,
	PP_COLL_COUNT
} pp_coll;

extern const char *const pp_coll_names[PP_COLL_COUNT];

typedef enum pp_scope { PP_SCOPE_INTRA, PP_SCOPE_INTER, PP_SCOPE_COUNT } pp_scope;

/* A fitted latency-bandwidth model for one collective over one scope and
 * group size, piecewise over message size: for bytes in [lo, hi),
 * time = alpha_s + bytes * factor / busbw_Bps (nccl-tests' busbw). */
#define PP_FIT_PIECES 4
typedef struct pp_coll_fit {
	pp_coll op;
	pp_scope scope;
	int nranks;
	int npieces;
	struct {
		double lo_bytes, hi_bytes, alpha_s, busbw_Bps;
	} piece[PP_FIT_PIECES];
} pp_coll_fit;

typedef struct pp_param_origin {
	const char *name;
	char origin[448];
} pp_param_origin;

#define PP_HW_MAX_ORIGINS 20
#define PP_ATTN_SEQ_MAX 8
#define PP_HW_MAX_FITS 64

typedef struct pp_hw {
	/* compute */
	double peak_flops[PP_DT_COUNT];
	double gemm_frac[PP_DT_COUNT];
	int sm_count;
	int tile_m, tile_n;
	double gemm_min_s;
	double wave_weight;        /* weight of the wave-quantisation loss */
	double gemm_k0;            /* reduction-dimension overhead, elements */
	double gemm_stream_Bps;    /* bandwidth a GEMM streams its operands at; 0: mem_Bps */
	double gemm_stream_lat_s;  /* and the latency before the stream flows */
	double half_tile_eff, quarter_tile_eff;
	double act_margin;         /* fragmentation share of the peak */
	double elementwise_Bps;    /* norm/dropout/softmax/activation kernels */
	double overlap_eff;        /* share of overlappable communication hidden */
	double blocking_pipeline_stall; /* share a blocking pipeline adds to each stage's work */
	double reserved_bytes;     /* context and workspaces per GPU */
	double mem_Bps;            /* achieved device-memory bandwidth */
	double attn_frac;          /* fused attention, share of dense peak ("catalog" kernel) */
	/* per-kernel attention rates (kernels.json attention_kernels): fraction
	 * of the dense bf16 peak against sequence length, forward (causal,
	 * and without mask) and backward (without mask); nseq 0: none known */
	int attn_nseq;
	double attn_seq[PP_ATTN_SEQ_MAX];
	double attn_rate[PP_ATTN_COUNT][3][PP_ATTN_SEQ_MAX];
	bool attn_have[PP_ATTN_COUNT];
	double attn_head_dim;      /* the head dimension the curves were measured at */
	double attn_exp_flops;     /* special-function (exp) rate at the curves' peak; 0: none */
	double attn_peak_flops;    /* the matmul peak the curves were measured at */
	double sustained;          /* tensor rate held at the power limit over the burst rate */
	/* per dtype, the share of the burst tensor rate a GEMM-dense step holds
	 * at the power limit (gpus.json sustained_gemm_fraction; 1 where none
	 * is known or a calibration profile measured the GEMMs: its own
	 * protocol then decides); applied while dense_on, which the workload
	 * build sets for a framework whose tensor_clock is "sustained" */
	double dense_sustained[PP_DT_COUNT];
	bool dense_on;
	/* a calibration profile measured this dtype's GEMMs: their rates stand
	 * as its protocol measured them, unscaled (attention keeps the share) */
	bool gemm_measured[PP_DT_COUNT];
	double kernel_overhead_s;
	double mem_capacity_bytes;
	/* network */
	double intra_Bps;          /* per-GPU busbw reachable inside a node */
	double intra_lat_s;
	int intra_ncurve;          /* published all_reduce busbw curve inside a node */
	double intra_curve_bytes[48], intra_curve_Bps[48];
	bool intra_curve_nvls;     /* the curve was measured with NVLS (its all_reduce) */
	/* NVLink SHARP inside the NVLink domain (fabrics.json nvls): NCCL's
	 * NVLS all_reduce algorithm bandwidth over intra_Bps, and its latency;
	 * ratio 0 where the switches have none or the scenario turns it off */
	double nvls_algbw_ratio;
	double nvls_lat_s;
	double nic_Bps;            /* per NIC, achieved */
	double inter_lat_s;
	int gpus_per_node;
	int nics_per_node;
	double oversubscription;
	double coll_launch_s;      /* NCCL per-collective software floor */
	pp_coll_fit fits[PP_HW_MAX_FITS];
	int nfits;
	/* storage, per node */
	double storage_read_Bps, storage_write_Bps;
	double storage_agg_read_Bps, storage_agg_write_Bps; /* 0 = unlimited */
	/* provenance */
	pp_param_origin origins[PP_HW_MAX_ORIGINS];
	int norigins;
	char profile[128];         /* "" when no calibration profile applies */
} pp_hw;

/* Resolve the parameters for a scenario's cluster from the catalog. */
int pp_hw_from_catalog(pp_hw *hw, const pp_catalog *cat, const pp_cluster *cl, pp_err *err);

/* The way from cluster cl of scenario s to the hardware a prediction runs
 * on, handed down to a layer that loads or builds scenarios but may not
 * include calib/ (cluster/; sim/LAYERS): its callers pass
 * calib/hwres.h's pp_hw_of_scenario, the resolution every command's
 * prologue uses (the catalog's figures, then the calibration profile s
 * names where it describes cl). ctx: the resolver's own. Errors: the
 * resolver's. */
typedef int (*pp_hw_resolve_fn)(void *ctx, const pp_catalog *cat, const pp_scenario *s,
				const pp_cluster *cl, pp_hw *hw, pp_err *err);
typedef struct pp_hw_resolver {
	pp_hw_resolve_fn fn;
	void *ctx;
} pp_hw_resolver;

/* Cluster cl of scenario s resolved by r: r->fn, or pp_hw_from_catalog
 * where r is NULL (a test of a layer alone: the catalog's figures, no
 * profile). */
int pp_hw_resolve_with(const pp_hw_resolver *r, const pp_catalog *cat, const pp_scenario *s,
		       const pp_cluster *cl, pp_hw *hw, pp_err *err);

/* Whether the SKU has a sustained share below 1 for some dtype
 * (dense_sustained): whether a GEMM-dense step runs slower on it. */
bool pp_hw_has_sustained(const pp_hw *hw);

/* Record (or replace) the origin of a named parameter. */
void pp_hw_set_origin(pp_hw *hw, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
