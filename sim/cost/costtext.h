/*
 * costtext.h - the recommendation and the work, in words; private to
 * sim/cost/. Includes costdata.h only; cost.c includes it.
 */
#ifndef PP_COSTTEXT_H
#define PP_COSTTEXT_H

#include "cost/costdata.h"

void cost_recommend(ctx *c, int rec, int ru);
void cost_describe_work(ctx *c);

#endif
