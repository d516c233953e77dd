/*
 * catalog.h - the catalogs in models/: GPU SKUs, fabrics, storage, model
 * presets (their architecture: model.h), prices, kernel-efficiency
 * defaults, the best published MFU (checked by plausible.h). Loaded at run
 * time from pp_data_dir(); every figure in the files carries a source and
 * date, and the loaded structs keep the source of the figures the simulator
 * uses.
 *
 * Units: the files use datasheet units with the unit in the key name
 * (memory_gib, memory_tbps, port_unidir_gbytes_per_s); these structs hold SI
 * (bytes, bytes/s, flop/s, s, W).
 *
 * Ownership: pp_catalog_load() returns a heap catalog; every pointer into it
 * stays valid until pp_catalog_free().
 */
#ifndef PP_CATALOG_H
#define PP_CATALOG_H

#include "core/jdoc.h"
#include "core/pp.h"
#include "input/dtype.h"
#include "input/model.h"
#include <stdbool.h>
#include <stdint.h>

/* Where a figure came from: source key (resolved to its title) and date. */
typedef struct pp_prov {
	char source[160];
	char date[24];
	bool estimate;
} pp_prov;

typedef struct pp_gpu {
	char id[32];
	char name[96];
	char arch[16];
	bool sxm;
	double peak_flops[PP_DT_COUNT];   /* dense flop/s; 0 = unsupported */
	pp_prov peak_prov;                /* of the bf16 figure */
	int sm_count;
	double clock_hz;
	double mem_bytes;
	double mem_Bps;
	pp_prov mem_prov;
	int nvlink_gen;                   /* 0 = no NVLink */
	char nvlink_fabric[16];
	double nvlink_Bps;                /* per GPU, per direction */
	int pcie_gen;
	char pcie_fabric[16];
	double tdp_w;
	double sustained;                 /* tensor rate held at the power limit over the burst rate (1: none known) */
	pp_prov sustained_prov;
	/* per dtype, the share of its burst tensor rate a GEMM-dense training
	 * step holds at the SKU's power limit (gpus.json
	 * sustained_gemm_fraction; 1: none known); it applies to the steps of
	 * frameworks whose tensor_clock is "sustained" (frameworks.json) */
	double sustained_gemm[PP_DT_COUNT];
	pp_prov sustained_gemm_prov;
	/* per dtype, the GEMM share of peak measured on this SKU itself
	 * (gpus.json gemm_peak_fraction); 0: the architecture's share
	 * (kernels.json gemm_peak_fraction) applies. For SKUs of one
	 * architecture whose measured shares differ (GB200 against B200's,
	 * MI325X at 1000 W against MI300X's at 750 W) */
	double gemm_frac[PP_DT_COUNT];
	pp_prov gemm_frac_prov;
	int gpus_per_node;                /* GPUs in one node: the box with its CPUs, NICs and disks */
	/* GPUs the SKU's NVLink switches join, at most: gpus_per_node for an
	 * 8-GPU HGX board, 72 across 18 compute trays for an NVL72 rack
	 * (gpus.json node.nvlink_domain_size; gpus_per_node when absent) */
	int nvlink_domain_size;
	char intra_node[16];              /* default intra-node fabric id */
} pp_gpu;

typedef enum pp_fabric_kind {
	PP_FAB_NVLINK,
	PP_FAB_PCIE,
	PP_FAB_INFINIBAND,
	PP_FAB_ROCE,
	PP_FAB_ETHERNET,
	PP_FAB_XGMI,      /* AMD Infinity Fabric: a full mesh of links between a board's GPUs */
	PP_FAB_KIND_COUNT
} pp_fabric_kind;
/* fabrics.json "kind" values, by pp_fabric_kind */
extern const char *const pp_fabric_kind_names[PP_FAB_KIND_COUNT];

typedef struct pp_fabric {
	char id[24];
	char name[96];
	pp_fabric_kind kind;
	bool intra_node;
	double port_Bps;        /* line rate per port (per GPU for NVLink), per direction */
	double efficiency;      /* fraction of line rate NCCL's busbw reaches */
	double latency_s;       /* per hop, small message */
	int switch_ports;       /* radix of the typical switch; 0 for intra-node */
	int ncurve;             /* published all_reduce busbw curve (0 = none) */
	double curve_bytes[48], curve_Bps[48];
	int curve_nranks;
	bool curve_nvls;        /* the curve was measured with NCCL's NVLS algorithm */
	pp_prov curve_prov;
	/* NVLink SHARP (fabrics.json nvls; 0 where the switches have none):
	 * NCCL's NVLS all_reduce algorithm bandwidth over the NVLink bandwidth
	 * its ring sees, and NVLS's latency */
	double nvls_algbw_ratio;
	double nvls_latency_s;
	pp_prov nvls_prov;
	pp_prov bw_prov, eff_prov, lat_prov;
} pp_fabric;

typedef struct pp_storage {
	char id[32];
	char name[96];
	double read_Bps_per_node, write_Bps_per_node;
	double agg_read_Bps, agg_write_Bps;  /* 0 = scales with nodes */
	pp_prov prov;
} pp_storage;

/* Kernel-level efficiency defaults for one GPU architecture: the knobs of the
 * compute model, kept in data so calibration can replace them. */
typedef struct pp_kernel_params {
	char arch[16];
	double gemm_peak_fraction[PP_DT_COUNT]; /* large-GEMM rate / datasheet peak */
	int tile_m, tile_n;                     /* output tile of the typical GEMM kernel */
	double gemm_min_time_s;                 /* floor of one GEMM kernel */
	double mem_bw_fraction;                 /* achieved / datasheet memory bandwidth */
	double attn_peak_fraction;              /* fused flash attention, of dense peak */
	double kernel_overhead_s;               /* launch + tail per kernel */
	double half_tile_eff, quarter_tile_eff; /* smaller GEMM tiles, relative rate */
	double wave_weight;                     /* 1 = full wave-quantisation loss, 0 = none */
	double gemm_k0;                         /* reduction overhead: time x (1 + k0/k) */
	/* a memory-bound GEMM streaming its operands (optional; 0: the copy
	 * bandwidth and no latency): bandwidth share and pipeline latency */
	double gemm_stream_bw_fraction, gemm_stream_latency_s;
	double act_margin;                      /* allocator fragmentation share */
	double elementwise_bw_fraction;         /* norm/dropout/softmax kernels, of datasheet bw */
	double overlap_eff;                     /* share of overlappable comm actually hidden */
	double blocking_pipeline_stall;        /* share a blocking pipeline adds to each stage's work */
	double reserved_bytes;                  /* context + workspaces per GPU */
	/* measured attention kernels (attention_kernels; nseq 0: none): for
	 * each kernel (in input/framework.h's pp_attn_kernel order, from FA2)
	 * the forward with a causal mask, without, and the backward without,
	 * as shares of measured_peak */
	int attn_nseq;
	double attn_seq[8];
	double attn_rate[4][3][8];
	bool attn_have[4];
	/* the curves' head dimension and the rate of the exponentials beside
	 * the matmuls (FLOP/s; 0: no head-dimension scaling) */
	double attn_head_dim, attn_exp_flops, attn_peak_flops;
	pp_prov attn_kernels_prov;
	pp_prov gemm_prov, mem_prov, attn_prov, ovh_prov;
} pp_kernel_params;

/* Defaults of parameter-efficient fine-tuning (models.json "finetune"). */
typedef struct pp_finetune_defaults {
	double lora_rank;          /* adapter rank on every linear layer */
	double nf4_bits_per_param; /* stored size of a 4-bit NF4 weight with its constants */
	pp_prov rank_prov, bits_prov;
} pp_finetune_defaults;

/* Defaults of mixture-of-experts training (models.json "moe"). */
typedef struct pp_moe_defaults {
	double load_imbalance;     /* busiest EP rank's routed tokens / the mean, real routing */
	pp_prov imbalance_prov;
	double ep_comm_sms;        /* SMs the all-to-all kernels hold beside DualPipe's compute */
	pp_prov comm_sms_prov;
} pp_moe_defaults;

/* The best published MFU of a GPU SKU at a precision (plausibility.json). */
typedef struct pp_best_mfu {
	char gpu[32];
	pp_dtype precision;
	double mfu;                /* model FLOP/s over the dense peak of the precision */
	char what[200];            /* the note: the run it comes from */
	pp_prov prov;
} pp_best_mfu;

typedef struct pp_catalog pp_catalog;
typedef struct pp_frameworks pp_frameworks;

int pp_catalog_load(pp_catalog **out, const char *dir, pp_err *err);
void pp_catalog_free(pp_catalog *c);
const char *pp_catalog_dir(const pp_catalog *c);

size_t pp_catalog_ngpus(const pp_catalog *c);
const pp_gpu *pp_catalog_gpu_at(const pp_catalog *c, size_t i);
const pp_gpu *pp_catalog_gpu(const pp_catalog *c, const char *id);
size_t pp_catalog_nfabrics(const pp_catalog *c);
const pp_fabric *pp_catalog_fabric_at(const pp_catalog *c, size_t i);
const pp_fabric *pp_catalog_fabric(const pp_catalog *c, const char *id);
/* Whether GPU g can sit on intra-node fabric f: NVLink needs an NVLink
 * GPU, AMD Infinity Fabric only the GPU's own mesh; PCIe takes any. */
bool pp_gpu_fabric_ok(const pp_gpu *g, const pp_fabric *f);
size_t pp_catalog_nstorage(const pp_catalog *c);
const pp_storage *pp_catalog_storage_at(const pp_catalog *c, size_t i);
const pp_storage *pp_catalog_storage(const pp_catalog *c, const char *id);
size_t pp_catalog_nmodels(const pp_catalog *c);
const pp_model *pp_catalog_model_at(const pp_catalog *c, size_t i);
const pp_model *pp_catalog_model(const pp_catalog *c, const char *id);
/* The preset whose hf_repo is repo ("meta-llama/Meta-Llama-3-70B", case
 * ignored as the Hub ignores it), or NULL. */
const pp_model *pp_catalog_model_hf(const pp_catalog *c, const char *repo);
/* The fine-tuning defaults. */
const pp_finetune_defaults *pp_catalog_finetune(const pp_catalog *c);
/* The mixture-of-experts defaults. */
const pp_moe_defaults *pp_catalog_moe(const pp_catalog *c);
/* The training frameworks (frameworks.json, see input/framework.h). */
const pp_frameworks *pp_catalog_frameworks(const pp_catalog *c);
/* The best published MFU of GPU id at precision dt; NULL when the
 * catalog has none (no warning can be given then). */
const pp_best_mfu *pp_catalog_best_mfu(const pp_catalog *c, const char *gpu, pp_dtype dt);
/* Kernel parameters for a GPU's architecture (falls back to "default"). */
const pp_kernel_params *pp_catalog_kernels(const pp_catalog *c, const char *arch);

/* The parsed documents, for printing with sources (--json) and for the
 * prices and cost figures, which input/prices.h and the cost module read
 * themselves. Kinds: "gpus", "fabrics", "storage", "models", "prices",
 * "kernels", "frameworks", "plausibility", "tco". NULL for an unknown kind. */
const pp_jdoc *pp_catalog_doc(const pp_catalog *c, const char *kind);

/* Ids of every entry of a kind, for did-you-mean. Static within c. */
const char *const *pp_catalog_ids(const pp_catalog *c, const char *kind, size_t *n);

/* Resolve a source key of a document to "title (url)"; the key itself when
 * it is not in the document's sources map. */
const char *pp_catalog_source_title(const pp_catalog *c, const char *kind, const char *key);

#endif
