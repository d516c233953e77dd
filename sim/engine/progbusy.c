/* progbusy.c - the busy time (compute, TP, CP, EP seconds) a unit of a
 * virtual stage adds to its stage's account: one home for program.c, which
 * books each unit it issues, and progsteady.c, which books the units a
 * steady state skips. */
#include "engine/programint.h"

/* The busy time of a unit's layers: per kind, the count of them times one
 * layer (a dense model's unit: one term, L layers). */
static void busy_layers(pstage *S, const pp_stepcost *c, int vs, bool fwd)
{
	for (int k = 0; k < PP_LAYER_KINDS; k++) {
		int n = c->kinds[vs][k];
		if (!n)
			continue;
		pp_busy_cost b = pp_stepcost_busy(c, PP_PART_LAYER, k, fwd);
		S->compute_s += n * b.compute_s;
		S->tp_s += n * b.tp_s;
		S->cp_s += n * b.cp_s;
		S->ep_s += n * b.ep_s;
	}
}

static void busy_add(pstage *S, const pp_stepcost *c, pp_part part, bool fwd)
{
	pp_busy_cost b = pp_stepcost_busy(c, part, 0, fwd);
	S->compute_s += 1 * b.compute_s;
	S->tp_s += 1 * b.tp_s;
	S->cp_s += 1 * b.cp_s;
	S->ep_s += 1 * b.ep_s;
}

/* The busy time a unit of virtual stage vs adds, in the order its tasks
 * run: embedding, layers, head forward; head, layers, embedding backward. */
void pp_prog_unit_busy(pstage *S, const pp_stepcost *c, int vs, bool fwd)
{
	if (fwd && vs == 0)
		busy_add(S, c, PP_PART_EMBED, true);
	if (!fwd && vs == c->NV - 1)
		busy_add(S, c, PP_PART_HEAD, false);
	busy_layers(S, c, vs, fwd);
	if (fwd && vs == c->NV - 1)
		busy_add(S, c, PP_PART_HEAD, true);
	if (!fwd && vs == 0)
		busy_add(S, c, PP_PART_EMBED, false);
}
