/*
 * catalog.h - the catalogs in models/: GPU SKUs, fabrics, storage, model
 * presets, prices, kernel-efficiency defaults. Loaded at run time from
 * pp_data_dir(); every figure in the files carries a source and date, and
 * the loaded structs keep the source of the figures the simulator uses.
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
#include <stdbool.h>
#include <stdint.h>

typedef enum pp_dtype {
	PP_DT_FP32,
	PP_DT_TF32,
	PP_DT_BF16,
	PP_DT_FP16,
	PP_DT_FP8,
	PP_DT_COUNT
} pp_dtype;

extern const char *const pp_dtype_names[PP_DT_COUNT];
/* Bytes per element a dtype's tensors take (fp8: 1, bf16/fp16: 2, fp32/tf32: 4). */
double pp_dtype_bytes(pp_dtype dt);

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
	int gpus_per_node;
	char intra_node[16];              /* default intra-node fabric id */
} pp_gpu;

typedef enum pp_fabric_kind {
	PP_FAB_NVLINK,
	PP_FAB_PCIE,
	PP_FAB_INFINIBAND,
	PP_FAB_ROCE,
	PP_FAB_ETHERNET
} pp_fabric_kind;

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
	pp_prov curve_prov;
	pp_prov bw_prov, eff_prov, lat_prov;
} pp_fabric;

typedef struct pp_storage {
	char id[32];
	char name[96];
	double read_Bps_per_node, write_Bps_per_node;
	double agg_read_Bps, agg_write_Bps;  /* 0 = scales with nodes */
	pp_prov prov;
} pp_storage;

/* Longest 0/1 moe_layer_freq list podplan keeps (the int form has no limit). */
#define PP_MOE_LIST_MAX 1024

typedef struct pp_model {
	char id[48];
	char name[96];
	int num_layers;
	int hidden_size;
	int num_attention_heads;
	int num_query_groups;
	int ffn_hidden_size;
	int vocab_size;
	int seq_length;
	bool swiglu;
	bool tied_embeddings;
	double params_published;   /* 0 = unknown */
	double params_active_published; /* mixture of experts: per token; 0 = unknown */
	/* the published active count leaves the input embedding out (OpenAI's
	 * gpt-oss card, DeepSeek's README_WEIGHTS); else it counts every
	 * parameter but the routed experts a token does not use */
	bool params_active_published_no_embedding;
	int head_dim;              /* attention head size (Megatron kv_channels); 0 = hidden / heads */
	/* multi-head latent attention (DeepSeek-V2/V3, Megatron's names): the
	 * query through a rank-q_lora_rank bottleneck (0: none), keys and values
	 * through one of kv_lora_rank; heads of qk_head_dim + qk_pos_emb_head_dim
	 * (the decoupled RoPE part) for Q.K and v_head_dim for V */
	bool multi_latent_attention;
	int q_lora_rank, kv_lora_rank, qk_head_dim, qk_pos_emb_head_dim, v_head_dim;
	/* sliding-window attention: layer i attends to the last `window` tokens
	 * when i % window_freq == 0 (gpt-oss: 128 on even layers); 0: none */
	int window, window_freq;
	/* mixture of experts (Megatron's names); num_experts 0: dense */
	int num_experts;           /* routed experts of an MoE layer */
	int moe_router_topk;       /* experts per token */
	int moe_ffn_hidden_size;   /* one expert's FFN size */
	int moe_shared_expert_intermediate_size; /* all shared experts together; 0: none */
	int moe_layer_freq;        /* int form: layer i is MoE when i % moe_layer_freq == 0 */
	int moe_list_len;          /* > 0: the 0/1 list form, one entry per layer */
	uint8_t moe_list[PP_MOE_LIST_MAX];
	/* multi-token prediction (Megatron's --mtp-num-layers, DeepSeek-V3's
	 * MTP module): depths after the last layer on the last stage, each an
	 * embedding, two RMSNorms, a 2h -> h projection, one layer of the last
	 * layer's kind, a norm and the output layer's logits and loss; 0: none */
	int mtp_num_layers;
} pp_model;

/* Layer kinds the step engine costs separately: MoE or dense, windowed
 * attention or full. */
enum { PP_LK_MOE = 1, PP_LK_WINDOW = 2, PP_LAYER_KINDS = 4 };
/* Whether layer i (0-based) of m is an MoE layer / windowed, and its kind. */
bool pp_model_layer_moe(const pp_model *m, int i);
int pp_model_layer_kind(const pp_model *m, int i);
/* The head size of m's (non-MLA) attention. */
int pp_model_head_dim(const pp_model *m);

/* The optional architecture keys that a preset (models.json) and a
 * scenario's model section share, with Megatron-LM's names: head_dim (or
 * kv_channels, Megatron's name), multi-head latent attention, a sliding
 * window (window_size tokens on layer i when i % window_layer_freq == 0:
 * podplan's names, Megatron has no such argument) and mixture of experts. */
#define PP_MODEL_ARCH_KEYS                                                                        \
	"head_dim", "kv_channels", "multi_latent_attention", "q_lora_rank", "kv_lora_rank",       \
		"qk_head_dim", "qk_pos_emb_head_dim", "v_head_dim", "window_size",                \
		"window_layer_freq", "num_experts", "moe_router_topk", "moe_ffn_hidden_size",     \
		"moe_shared_expert_intermediate_size", "moe_layer_freq"

/*
 * Read the PP_MODEL_ARCH_KEYS members of o (an object at JSON path path of
 * d) into m, over what m holds already (a preset's or a config.json's
 * values): a key that is absent leaves its field alone. Defaults, when a key
 * turns a feature on: multi_latent_attention true -> Megatron-Core's
 * MLATransformerConfig dataclass dims (q_lora_rank 512, kv_lora_rank 512,
 * qk_head_dim 128, qk_pos_emb_head_dim 64, v_head_dim 128; the CLI's
 * defaults differ: no query compression and kv_lora_rank 32);
 * num_experts > 0 -> moe_router_topk 2 and moe_layer_freq 1 (Megatron's),
 * moe_ffn_hidden_size = ffn_hidden_size; window_size -> window_layer_freq 1.
 * num_experts 0 or multi_latent_attention false clear their fields.
 * Errors (PP_EINPUT, file:line:col, path, found, expected): wrong types and
 * ranges, both head_dim and kv_channels, a key of a feature the model then
 * does not have (MoE keys without num_experts, MLA dims without
 * multi_latent_attention, head_dim with it, window_layer_freq without
 * window_size), a moe_layer_freq list of other than 0/1 or longer than
 * PP_MOE_LIST_MAX. Checks that involve several fields: pp_model_check.
 */
int pp_model_read_arch(const pp_jdoc *d, const cJSON *o, const char *path, pp_model *m,
		       pp_err *err);

/* Check a model as a whole: the head count divides hidden_size (unless
 * head_dim is given or attention is MLA), the query groups divide the heads
 * (MLA: no groups, num_query_groups must equal the heads), moe_router_topk
 * <= num_experts, a moe_layer_freq list has one entry per layer. Returns 0,
 * or PP_EINPUT with *key the field's name (relative: "num_query_groups")
 * and why a "found ..., expected ..." sentence. */
int pp_model_check(const pp_model *m, const char **key, char *why, size_t n);

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
size_t pp_catalog_nstorage(const pp_catalog *c);
const pp_storage *pp_catalog_storage_at(const pp_catalog *c, size_t i);
const pp_storage *pp_catalog_storage(const pp_catalog *c, const char *id);
size_t pp_catalog_nmodels(const pp_catalog *c);
const pp_model *pp_catalog_model_at(const pp_catalog *c, size_t i);
const pp_model *pp_catalog_model(const pp_catalog *c, const char *id);
/* The fine-tuning defaults. */
const pp_finetune_defaults *pp_catalog_finetune(const pp_catalog *c);
/* The mixture-of-experts defaults. */
const pp_moe_defaults *pp_catalog_moe(const pp_catalog *c);
/* The training frameworks (frameworks.json, see input/framework.h). */
const pp_frameworks *pp_catalog_frameworks(const pp_catalog *c);
/* The best published MFU of GPU id at precision dt; NULL when the
 * catalog has none (no warning can be given then). */
const pp_best_mfu *pp_catalog_best_mfu(const pp_catalog *c, const char *gpu, pp_dtype dt);
/* Whether a prediction's MFU (a fraction, Megatron's count) is above the
 * best published for gpu at precision dt; if so, a sentence saying so,
 * naming the figure and its source, is written to buf. 0 when it is not
 * (or the catalog has no figure for the pair). */
int pp_catalog_mfu_check(const pp_catalog *c, const pp_gpu *gpu, pp_dtype dt, double mfu, char *buf,
			 size_t n);
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
