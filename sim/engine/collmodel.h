/*
 * collmodel.h - which collective model served which traffic of a training
 * step: for each kind of traffic (tensor-parallel collectives, the
 * context-parallel exchange, expert-parallel all-to-all, data-parallel
 * gradient reduction and parameter all-gather, pipeline send/recv, the
 * tied-embedding all-reduce) the collective, its group and message sizes,
 * and the calibration fit piece pp_coll_time() / pp_p2p_time() used for
 * it, or none (the catalog's model). The choice is read from
 * pp_coll_fit_used() / pp_p2p_fit_used(), the lookups the costs use; the
 * sizes from the workload's op list and the step's payloads (stepcost.h);
 * nothing is costed again.
 */
#ifndef PP_COLLMODEL_H
#define PP_COLLMODEL_H

#include "engine/collective.h"
#include "input/hw.h"
#include "input/scenario.h"

typedef struct pp_coll_use {
	const char *traffic;       /* "TP", "CP", "EP", "DP", "DP experts", "PP", "embedding" */
	const char *what;          /* "gradient reduction (a bucket)", "K/V ring", ... */
	const char *op;            /* pp_coll_names[], "sendrecv" for point-to-point */
	int nranks, per_node;
	pp_scope scope;            /* intra-node or across nodes */
	double min_bytes, max_bytes; /* the message sizes asked about */
	const pp_coll_fit *fit;    /* into hw->fits; NULL: the catalog's model */
	int piece;                 /* fit's piece; -1 without a fit */
	int calls;                 /* ops or payloads folded into this entry */
} pp_coll_use;

/* The uses of scenario s on hw, one per (traffic, what, op, group, fit
 * piece), in a heap array the caller frees; *n gets the count. */
pp_coll_use *pp_coll_uses(const pp_scenario *s, const pp_hw *hw, int *n);

#endif
