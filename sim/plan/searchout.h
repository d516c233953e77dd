/*
 * searchout.h - a layout search's result (search.h) for people and
 * programs: the text, JSON and CSV `podplan search` prints. Each appends
 * to out; the result, the scenario and the answers are read only.
 */
#ifndef PP_SEARCHOUT_H
#define PP_SEARCHOUT_H

#include "calib/headroom.h"
#include "core/util.h"
#include "input/catalog.h"
#include "input/scenario.h"
#include "plan/answer.h"
#include "plan/search.h"

/* Engine times and sizes carry nine significant digits, ratios six (the
 * search's and size's JSON and CSV). */
#define PP_PLAN_SIG 9
#define PP_PLAN_SIG_RATIO 6

/* What the hits were ranked by. */
enum pp_search_rank {
	PP_RANK_TIME,           /* step time */
	PP_RANK_COST,           /* $ per token */
	PP_RANK_PESSIMISTIC,    /* the pessimistic end of the 80% interval */
};

/* What the search's result is printed with, beside the result. */
typedef struct pp_search_out {
	enum pp_search_rank rank;
	double usd_per_gpu_hour;   /* the price $/token is at; NAN: none */
	const char *price_what;    /* its source, or why there is none */
	const pp_answer *ans;      /* one per hit shown (r->nbest) */
	const pp_headroom *hr;     /* the memory kept free */
} pp_search_out;

/* The scenario and the space, the counts, the price, the top hits with
 * their intervals, #1's uncertainty and plausibility, the step-time
 * breakdowns and why #1 wins; with no hit, the one line that says none
 * fits (for --json and --csv too). cat: the plausibility figures. */
void pp_search_to_text(const pp_catalog *cat, const pp_scenario *s, const pp_search_result *r,
		       const pp_search_out *o, pp_sb *out);
/* The counts, the price, every hit shown with its layout keys, interval,
 * figures, memory and breakdown, and why #1 wins; elapsed_s to the
 * microsecond. r has at least one hit. */
void pp_search_to_json(const pp_catalog *cat, const pp_scenario *s, const pp_search_result *r,
		       const pp_search_out *o, pp_sb *out);
/* One RFC 4180 row per hit shown, header first. */
void pp_search_to_csv(const pp_scenario *s, const pp_search_result *r, pp_sb *out);

/* Why #1 wins, in sentences: its step, MFU and overhead, what differs from
 * the runner-up and by how much, its memory. r has at least one hit. */
void pp_search_explain(const pp_search_result *r, pp_sb *out);

#endif
