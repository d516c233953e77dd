/*
 * answer.h - what a search or size answer rests on: the 80% interval of
 * each layout's step from the validated runs near it (calib/evidence.h),
 * the best published MFU of its GPU and precision (plausibility.json) and
 * the step at that figure where the prediction is above it, and the
 * ranking by the pessimistic end of the interval (--conservative).
 */
#ifndef PP_ANSWER_H
#define PP_ANSWER_H

#include "engine/band.h"
#include "engine/predict.h"
#include "input/catalog.h"
#include "input/scenario.h"
#include "plan/search.h"
#include "plan/space.h"

typedef struct pp_answer {
	pp_band band;              /* the layout's interval */
	double best_mfu;           /* the best published for its GPU and precision; NAN: none */
	char best_what[200];       /* the run it comes from */
	bool above_best;           /* the predicted MFU is above it */
	double step_at_best_s;     /* the step at that MFU (step x MFU / best), where above */
} pp_answer;

/* The evidence for layout l of scenario s (its cluster) predicted as r. */
void pp_answer_of(const pp_catalog *cat, const pp_scenario *s, const pp_layout *l,
		  const pp_result *r, pp_answer *a);

/* Order r's hits by the pessimistic end of their interval (step x the
 * interval's upper factor; ties keep the search's order) and fill ans[i]
 * for the hits in their new order (ans: r->nbest entries, or NULL). The
 * search ranks by step time first: call it with top k large enough that
 * the answer cannot change (pp_conservative_settled). */
void pp_answer_rank_conservative(const pp_catalog *cat, const pp_scenario *s,
				 pp_search_result *r, pp_answer *ans);
/* Whether the first k of the conservative order are final: the k-th
 * pessimistic step is at most the step of the slowest hit searched times
 * the smallest upper factor any layout of s's cluster can have. */
bool pp_conservative_settled(const pp_catalog *cat, const pp_scenario *s,
			     const pp_search_result *r, int k);

#endif
