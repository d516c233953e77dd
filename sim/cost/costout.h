/*
 * costout.h - a pp_cost_result for people and programs: the three output
 * formats `podplan cost` prints (text, JSON, CSV) and the phrases the
 * reports share with the text. Reads the result only; owns nothing.
 */
#ifndef PP_COSTOUT_H
#define PP_COSTOUT_H

#include "cost/cost.h"

/* The result as JSON (what `podplan cost --json` prints): {"scenario",
 * "seed", "draws", "work", "horizon_months", "options": [{"name", "kind",
 * "usd_total", "usd_per_million_tokens", "time_to_train_s", "p10_usd",
 * "p50_usd", "p90_usd", ...}], "recommendation", "recommended", "tornado",
 * "sources", "warnings", ...}. NAN prints as null. Appends to out. */
void pp_cost_to_json(const pp_cost_result *r, pp_sb *out);
/* One CSV row per option (RFC 4180, header first); columns are stable
 * (new ones go at the end): see PP_COST_CSV_HEADER. Appends to out. */
#define PP_COST_CSV_HEADER                                                                      \
	"scenario,seed,draws,option,kind,provider,tier,gpu,num_gpus,method,feasible,usd_total,"    \
	"usd_amortized,usd_marginal,usd_per_run,usd_per_million_tokens,"                          \
	"usd_per_million_tokens_marginal,usd_per_gpu_hour_used,time_to_train_s,gpu_hours_used,"   \
	"goodput,tokens_per_s,p10_usd,p50_usd,p90_usd,p_cheapest,gpu_time_usd,idle_commitment_usd," \
	"servers_usd,network_usd,storage_usd,facility_usd,support_usd,staff_usd,api_usd,npv_usd,"  \
	"irr,payback_months,crossover_month,breakeven_utilization,recommended,replicas,"            \
	"gpus_priced,capex_usd,lead_time_s,obtainable,payment,risk,usd_per_million_input_tokens," \
	"usd_per_million_output_tokens,serving_max_rate_rps,serving_replicas"
void pp_cost_to_csv(const pp_cost_result *r, pp_sb *out);
/* The readable table and recommendation `podplan cost` prints. */
void pp_cost_to_text(const pp_cost_result *r, pp_sb *out);

/* Every option weighed, one line each (time to result, total, P10 - P90,
 * verdict), and the Monte Carlo's draws, seed and price date: what `podplan
 * size` prints under its layouts. Appends to out. */
void pp_cost_weighed_text(const pp_cost_result *r, pp_sb *out);

/* An inference work's SLO in one phrase ("p99 TTFT <= 450 ms, TPOT <= 40
 * ms", "no SLO"). Returns buf. */
const char *pp_cost_fmt_slo(const pp_cost_inference *f, char *buf, size_t n);
/* The GPUs an option pays for, as tables show them: "1024 x h100-sxm", "3 x
 * 8 x h100-sxm" (three copies of an 8-GPU cluster: gpus_priced 24),
 * "(hosted)" for an API. Returns buf. */
const char *pp_cost_gpus_text(const pp_cost_option *o, char *buf, size_t n);

#endif
