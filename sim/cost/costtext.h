/*
 * costtext.h - the recommendation and the work, in words; private to
 * sim/cost/. Includes costdata.h only; cost.c includes it.
 */
#ifndef PP_COSTTEXT_H
#define PP_COSTTEXT_H

#include "cost/costdata.h"

/* The recommendation (option rec, runner-up ru; -1: none) in sentences,
 * into c->r->recommendation. */
void cost_recommend(ctx *c, int rec, int ru);
/* The work in words ("1 run of 2.00T tokens"), into c->r->work, and the
 * runs it counts. */
void cost_describe_work(ctx *c);

#endif
