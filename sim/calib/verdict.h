/*
 * verdict.h - the fabric and GPU health verdict of a calibration run: each
 * measured peak against what the catalogs expect for the SKU and its links,
 * OK or SLOW with the ratio and the likely cause. CPU only: podplan calib
 * verdict / calib show and podplan-calibrate (at the end of a sweep, and
 * its verdict subcommand) all judge through pp_verdict_judge().
 *
 * Expectations (the catalog files named, thresholds in models/health.json):
 *   collective busbw   NVLink: gpus.json unidir NVLink bandwidth (all the
 *                      SKU's links; a SLOW row names links found down) x
 *                      fabrics.json achievable_fraction x health.json's
 *                      collective_factor for the op (all_gather and
 *                      reduce_scatter trail all_reduce on healthy pods);
 *                      PCIe: the PCIe fabric's line rate x its
 *                      achievable_fraction x the same factor. Inter-node:
 *                      not judged (the NICs are not in the catalog). A busbw
 *                      still rising at the largest size is "n/a", not SLOW:
 *                      the sweep stopped too early to judge.
 *   gemm TFLOP/s       gpus.json dense peak x kernels.json gemm_peak_fraction
 *   gemm peers         slowest GPU / fastest GPU, bf16 squares
 *   memcpy GB/s        gpus.json HBM bandwidth x kernels.json mem_bw_fraction
 *                      (copies and host copies: the largest size only, as
 *                      smaller device copies sit in L2)
 *   h2d, d2h GB/s      the PCIe fabric's line rate x health.json host_copy_fraction
 *   storage GB/s       storage.json per-node read/write of the tier named
 *   correctness        any element that failed a check: WRONG
 */
#ifndef PP_VERDICT_H
#define PP_VERDICT_H

#include "calib/calibdb.h"
#include "core/store.h"
#include "core/util.h"
#include "input/catalog.h"
#include <stdbool.h>

#define PP_VERDICT_MAX_GPUS 64

/* What the verdict needs to know of the machine. */
typedef struct pp_verdict_host {
	char host[256];                          /* comma-separated host names */
	char gpu_name[128];                      /* as the driver names it */
	int ngpus, nhosts;
	int nvlinks_active[PP_VERDICT_MAX_GPUS]; /* active NVLink links per GPU; <= 0 unknown */
	bool nvlink_all_pairs;                   /* every pair of GPUs talks over NVLink */
} pp_verdict_host;

typedef struct pp_verdict_opts {
	const char *gpu_sku;     /* catalog GPU id; NULL = from the GPU name via health.json */
	const char *storage_id;  /* storage.json tier; NULL = health.json default_storage */
	bool links_unknown;      /* no link matrix (an imported log): assume the SKU's NVLink */
} pp_verdict_opts;

/* Judge rows (a run's measurements) of the machine described by host.
 * Appends the verdict as compact JSON built with cJSON (the format
 * pp_calibdb_format_verdict() prints: {"format": "podplan-verdict/1",
 * "gpu", "gpu_name", "thresholds", "rows": [{"check", "scope",
 * "measured", "expected", "unit", "ratio", "ok_at_least", "verdict",
 * "basis", "cause"}], "slow", "wrong"}: the SLOW rows, the WRONG rows) to
 * json, nothing on an error; *slow (may be NULL) gets the number of rows
 * that fail, SLOW or WRONG. Errors: models/health.json
 * missing or malformed (PP_EINPUT), an unknown gpu_sku or storage_id
 * (PP_EINPUT). */
int pp_verdict_judge(const pp_catalog *cat, const pp_verdict_host *host, const pp_verdict_opts *o,
		     const pp_calib_meas *rows, size_t n, pp_sb *json, int *slow, pp_err *err);

/* The machine as a stored run describes it: GPU name and count, hosts, and
 * from topology_json the link matrix and active NVLinks. *links_known is
 * false when the run has no link matrix (an imported nccl-tests log). */
void pp_verdict_host_from_run(const pp_calib_run *r, pp_verdict_host *h, bool *links_known);

/* Judge stored run id again (its rows, its machine; o->links_unknown is
 * set from the run): the verdict JSON appended to json, *slow as above,
 * *host and *links_known as pp_verdict_host_from_run() gives them. Errors:
 * no such run (PP_EINPUT), those of pp_verdict_judge(). Stores nothing. */
int pp_verdict_of_run(pp_store *st, const pp_catalog *cat, int64_t id, const pp_verdict_opts *o,
		      pp_sb *json, int *slow, pp_verdict_host *host, bool *links_known, pp_err *err);

#endif
