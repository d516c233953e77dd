/*
 * validate.h - predict published training runs and report the error.
 *
 * Input: a CSV in the layout of shared/reference/validation-public.csv
 * (source, table_or_section, model, layers, hidden, heads, seq_len,
 * global_batch_tokens_or_seqs, gpu_sku, num_gpus, gpus_per_node,
 * intra_node_fabric, inter_node_fabric, TP, PP, DP, CP, zero_stage_or_fsdp,
 * recompute, precision, measured_metric, measured_value, notes). A row is
 * predicted when its configuration is complete and its metric is one podplan
 * computes; like is compared with like: iteration time against step time,
 * Megatron's recompute-inclusive TFLOP/s (eq. 3 with 96 B s l h^2) against
 * the same formula over the predicted step, MFU against MFU, HFU against
 * HFU, per-layer forward+backward time against the costed layer.
 *
 * Assumptions where a paper is silent, applied to every row alike and
 * printed with the table: micro-batch 1 unless the notes give it; vocabulary
 * 51,200 for GPT rows (Megatron's padded GPT-2 vocabulary) unless the notes
 * give it; unfused attention (these runs predate flash attention); no
 * overlap of the data-parallel all-reduce (not in Megatron-LM then); the
 * interleaved schedule where the notes say so, with 3 model chunks per stage
 * when the stage's layers divide by 3, else 2, else none.
 */
#ifndef PP_VALIDATE_H
#define PP_VALIDATE_H

#include "input/catalog.h"
#include "input/hw.h"
#include "core/util.h"

typedef struct pp_valrow {
	int csv_row;                 /* 1-based line in the CSV (header = 1) */
	char group[96];              /* paper and table */
	char model[64];
	char config[128];
	char metric[48];
	double measured, predicted;
	double error;                /* (predicted - measured) / measured */
	bool primary;                /* counts toward the table's error summary */
} pp_valrow;

typedef struct pp_valset {
	pp_valrow *rows;
	int n;
	int skipped;
	char skipped_why[2048];
} pp_valset;

/* What a validation CSV may hold (the published table is 74 kB, 139
 * rows; each row is one prediction): larger is PP_EINPUT before anything
 * is predicted. */
#define PP_VALIDATE_MAX_BYTES ((size_t)4 << 20)
#define PP_VALIDATE_MAX_ROWS 2000

/* Predict every usable row of the CSV at path, on the hardware hwr
 * resolves for the row's scenario (input/hw.h: the caller passes
 * calib/hwres.h's pp_hw_of_scenario, as every command resolves hardware;
 * NULL: the catalog's figures). The header is checked before the rows
 * are parsed. */
int pp_validate_csv(const pp_catalog *cat, const pp_hw_resolver *hwr, const char *path,
		    pp_valset *out, pp_err *err);
/* The same for a CSV text already read (path names it in messages). */
int pp_validate_text(const pp_catalog *cat, const pp_hw_resolver *hwr, const char *path,
		     const char *text, pp_valset *out, pp_err *err);
void pp_valset_release(pp_valset *v);

/* Mean and max absolute error of the rows of a group (all groups when
 * group is NULL), primary rows only. Returns the count. */
int pp_valset_summary(const pp_valset *v, const char *group, double *mean, double *max);

#endif
