/*
 * scenario.h - a what-if scenario: model, training, parallel layout,
 * cluster, calibration and cost inputs, read from a JSON file and validated.
 *
 * Keys follow Megatron-LM's argument names (tensor_model_parallel_size,
 * global_batch_size, ...) so a launch configuration can be pasted in. The
 * full key reference with defaults is in README.md ("Scenario files").
 * Keys beginning with "_" or "//" are comments and ignored.
 *
 * This is the first step of the data flow: file -> pp_scenario (validated)
 * -> workload -> simulation -> results -> costs -> report. Nothing
 * downstream re-reads the file, except that error messages about the costs
 * section use the kept document for positions.
 */
#ifndef PP_SCENARIO_H
#define PP_SCENARIO_H

#include "input/catalog.h"
#include "input/costspec.h"
#include "input/framework.h"
#include "input/layout.h"
#include "input/servespec.h"
#include "input/sizespec.h"
#include "input/topology.h"
#include "core/jdoc.h"
#include <stdbool.h>

typedef enum pp_recompute { PP_RC_NONE, PP_RC_SELECTIVE, PP_RC_FULL } pp_recompute;
typedef enum pp_optimizer { PP_OPTIM_ADAM, PP_OPTIM_SGD } pp_optimizer;

extern const char *const pp_recompute_names[3];
extern const char *const pp_optimizer_names[2];

/* Megatron-Core's recompute_modules (TransformerConfig, core_v0.19) that
 * podplan models: the core attention (recompute "selective"), and the
 * memory DeepSeek-V3 saves by recomputing (arXiv:2412.19437 Sec. 3.2.3 and
 * 3.3.2): the RMSNorms' outputs, MLA's up-projections (Q, K, V rebuilt
 * from the latents) and the MoE SwiGLU's output. */
enum {
	PP_RCM_CORE_ATTN = 1 << 0,
	PP_RCM_LAYERNORM = 1 << 1,
	PP_RCM_MLA_UP_PROJ = 1 << 2,
	PP_RCM_MOE_ACT = 1 << 3
};
#define PP_RCM_COUNT 4
extern const char *const pp_recompute_module_names[PP_RCM_COUNT];

typedef struct pp_training {
	int64_t global_batch_size;
	int64_t micro_batch_size;
	pp_dtype precision;
	pp_recompute recompute;
	unsigned recompute_modules;   /* PP_RCM_*: training.recompute_modules; without it
				       * PP_RCM_CORE_ATTN under recompute "selective" */
	/* the inputs of linear layers kept for the backward in FP8 (DeepSeek-V3
	 * Sec. 3.3.2-3.3.3, training.fp8_activation_cache; precision fp8) */
	bool fp8_act_cache;
	pp_optimizer optimizer;
	/* bytes of Adam's first and second moments (Megatron-Core's
	 * exp_avg_dtype / exp_avg_sq_dtype: fp32 4, bf16 2); 0: the default
	 * (fp32 beside fp32 master weights, else the parameters' dtype) */
	int exp_avg_bytes, exp_avg_sq_bytes;
	double train_tokens;          /* 0 = not given */
	bool use_flash_attn;          /* fused attention core (default true) */
	bool overlap_grad_reduce;     /* DP gradient reduction overlapped with backward */
	bool overlap_param_gather;    /* ZeRO/distributed-optimizer all-gather overlapped */
	bool fp8_param_gather;        /* FP8 parameters gathered in 8 bits (Megatron's
				       * --fp8-param-gather; precision fp8 only) */
	bool overlap_p2p_comm;        /* pipeline send/recv asynchronous (else blocking) */
	double bucket_bytes;          /* DP gradient bucket (Megatron: 40M params) */
	double data_bytes_per_token;  /* bytes read from storage per training token */
	int64_t num_microbatches;     /* derived: gbs / (mbs * dp) */
	/* mixture of experts (Megatron's names) */
	int moe_token_dispatcher;     /* PP_MOE_ALLTOALL or PP_MOE_ALLGATHER (Megatron's default);
				       * "flex" (DeepEP) is refused */
	double moe_expert_capacity_factor; /* 0: dropless; else tokens per expert capped at
					    * factor x the mean (the rest dropped) */
	double moe_load_imbalance;    /* busiest EP rank's tokens / the mean (>= 1); default
				       * models.json "moe".load_imbalance, 1 for a dense model */
	bool moe_shared_expert_overlap; /* shared expert beside the dispatch/combine all-to-alls */
	bool moe_grouped_gemm;        /* local experts in one grouped GEMM (else one GEMM each) */
	/* Megatron-Core's --overlap-moe-expert-parallel-comm: the combined 1F1B
	 * schedule, one micro-batch's forward beside another's backward so each
	 * EP all-to-all runs on a communication stream beside the other's
	 * compute (steady state; stepcost.h); --delay-wgrad-compute: the expert
	 * weight gradients wait for the backward dispatch to hide it */
	bool overlap_moe_expert_parallel_comm;
	bool delay_wgrad_compute;
	/* the SMs the EP all-to-all kernels hold while DualPipe's overlapped
	 * pairs run them beside compute (training.moe_ep_comm_sms; default
	 * models.json "moe".ep_comm_sms, DeepSeek-V3's 20) */
	int moe_ep_comm_sms;
	pp_ft_method finetune;        /* full (default), lora, qlora: a frozen base with adapters */
	int lora_rank;                /* adapter rank (lora, qlora) */
	double base_weight_bytes;     /* bytes per frozen base weight (lora: 2, qlora: NF4); 0: full */
	pp_stack stack;               /* training.framework and its behaviours (input/framework.h) */
} pp_training;

enum { PP_MOE_ALLTOALL, PP_MOE_ALLGATHER };
extern const char *const pp_moe_dispatcher_names[2];

/* Which of the searchable parallel/training keys the file gave (search
 * fixes these and explores the rest). */
enum {
	PP_GIVEN_TP = 1 << 0,
	PP_GIVEN_PP = 1 << 1,
	PP_GIVEN_DP = 1 << 2,
	PP_GIVEN_CP = 1 << 3,
	PP_GIVEN_VPP = 1 << 4,
	PP_GIVEN_SP = 1 << 5,
	PP_GIVEN_ZERO = 1 << 6,
	PP_GIVEN_MBS = 1 << 7,
	PP_GIVEN_RECOMPUTE = 1 << 8,
	PP_GIVEN_SCHEDULE = 1 << 9,
	PP_GIVEN_EP = 1 << 10          /* expert_model_parallel_size */
};

typedef struct pp_cluster {
	const pp_gpu *gpu;
	int num_gpus;
	int gpus_per_node;            /* GPUs per node (CPU sockets, NICs, local disks) */
	/* GPUs one NVLink domain joins (cluster.nvlink_domain_size), whole
	 * nodes; 0: derived (pp_cluster_domain_gpus) */
	int nvlink_domain_size;
	const pp_fabric *intra;       /* inside an NVLink domain (a node's PCIe where none) */
	bool nvls_off;                /* cluster.nccl_nvls_enable false (NCCL_NVLS_ENABLE=0); a
				       * cluster built elsewhere (zeroed) keeps NCCL's default, on */
	const pp_fabric *inter;       /* between nodes (NIC fabric) */
	int nics_per_node;
	double oversubscription;      /* >= 1; 1 = full bisection */
	bool rail_optimized;          /* rail-optimised vs plain fat tree */
	const pp_storage *storage;
	double storage_read_Bps;      /* per node, after overrides */
	double storage_write_Bps;
} pp_cluster;

typedef struct pp_scenario {
	char name[128];
	char description[512];
	char hash[17];                /* FNV-1a of the file bytes */
	pp_model model;
	char model_origin[300];       /* "preset gpt3-175b", "hf_config PATH", "inline" */
	pp_training training;
	pp_parallel parallel;
	unsigned given;               /* PP_GIVEN_* */
	pp_cluster cluster;
	char calib_db[512];           /* "" = none */
	char calib_profile[128];
	pp_costspec costs;
	pp_servespec serve;           /* "serving", "workload", "slo" (serve.present) */
	pp_size_spec search;          /* "search" (all zeros when absent) */
	pp_jdoc doc;                  /* kept for error positions */
} pp_scenario;

/* Load and validate. On PP_EINPUT the message names file:line:col, the JSON
 * path, what was found and what was expected. cat must outlive s. On any
 * failure nothing stays allocated (releasing s anyway is harmless). */
int pp_scenario_load(pp_scenario *s, const char *path, const pp_catalog *cat, pp_err *err);
int pp_scenario_parse(pp_scenario *s, const char *name, const char *text, size_t len,
		      const pp_catalog *cat, pp_err *err);
void pp_scenario_release(pp_scenario *s);

/* As pp_scenario_load, but without checking the layout as a whole
 * (pp_layout_check): for `podplan search`, which fills in the keys the file
 * left out and checks every candidate itself. Each given key is still
 * parsed and range-checked. */
int pp_scenario_load_unchecked(pp_scenario *s, const char *path, const pp_catalog *cat, pp_err *err);
int pp_scenario_parse_unchecked(pp_scenario *s, const char *name, const char *text, size_t len,
				const pp_catalog *cat, pp_err *err);

/* Number of nodes the cluster spans. */
int pp_cluster_nodes(const pp_cluster *c);


#endif
