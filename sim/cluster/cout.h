/*
 * cout.h - a cluster simulation's results for people and programs: text,
 * JSON (cJSON) and CSV (core/csv.h's writer), and the what-if comparison
 * of two runs on the same job stream. Formatting lives here so the
 * command stays thin.
 */
#ifndef PP_COUT_H
#define PP_COUT_H

#include "cluster/cjobs.h"
#include "cluster/cspec.h"
#include "cluster/csim.h"
#include "core/util.h"
#include <cjson/cJSON.h>

/* The summary as text: the cluster, the policy, goodput, queueing by size. */
void pp_cout_text(pp_sb *out, const pp_cspec *spec, const pp_cjobs *jobs,
		  const pp_csim_result *r);
/* The same as a cJSON object (caller owns it); per job when r->jobs. */
cJSON *pp_cout_json(const pp_cspec *spec, const pp_cjobs *jobs, const pp_csim_result *r);
/* One row per job (r->jobs needed): job_id,gpus,submit_s,start_s,end_s,
 * queue_s,alloc_s,useful_s,lost_s,ckpt_block_s,restart_s,ettr,
 * interruptions,preemptions,spans_leaf */
void pp_cout_csv_jobs(pp_sb *out, const pp_cjobs *jobs, const pp_csim_result *r);
/* The allocation over time: t_s,alloc_gpus,frag_gpus,down_gpus,pending_gpus */
void pp_cout_csv_timeline(pp_sb *out, const pp_csim_result *r);
/* The what-if comparison's figures, one row each: label (with its unit),
 * run A's and run B's value, and the decimals they are printed with. The
 * $ row only when both runs are priced. Returns the rows filled (at most
 * max; PP_COUT_COMPARE_ROWS holds them all). */
typedef struct pp_cout_row {
	const char *label;
	double a, b;
	int decimals;
} pp_cout_row;
#define PP_COUT_COMPARE_ROWS 11
int pp_cout_compare_rows(const pp_csim_result *a, const pp_csim_result *b, pp_cout_row *rows,
			 int max);
/* What-if: two runs of one job stream side by side, with the differences. */
void pp_cout_compare_text(pp_sb *out, const char *name_a, const pp_csim_result *a,
			  const char *name_b, const pp_csim_result *b);
cJSON *pp_cout_compare_json(const char *name_a, const pp_csim_result *a, const char *name_b,
			    const pp_csim_result *b);

#endif
