/*
 * ncclop.h - which nccl-tests collective a log section measured, and
 * nccl-tests' bus-bandwidth factor of each.
 *
 * A section's collective, named by --op or by the log ("# Collective test
 * starting: X_perf"), is checked against the rows' busbw/algbw ratio,
 * which nccl-tests fixes per collective (doc/PERFORMANCE.md): a mismatch
 * is an error. Only rows whose printed bandwidths tell the ratio (each
 * known to 0.5% through its rounding: >= 1 GB/s at two decimals) are
 * judged; the error cites the first such row that does not fit and the
 * collectives whose factor fits every such row. A section that names nothing is read from its columns
 * (size/count ratio, redop, root) narrowed by that ratio; when several
 * collectives fit alike (all_gather and alltoall print the same columns
 * and ratio), it is an error asking for --op.
 */
#ifndef PP_NCCLOP_H
#define PP_NCCLOP_H

#include "calib/nccllog.h"

/* Names of the collectives nccl-tests has, for --op and did-you-mean. */
extern const char *const pp_nccl_ops[];
extern const size_t pp_nccl_nops;

/* nccl-tests' bus-bandwidth factor for op over n ranks (busbw = algbw x
 * factor; https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md
 * and each src/OP.cu's GetBw): all_reduce 2(n-1)/n; all_gather,
 * reduce_scatter, alltoall, gather, scatter (n-1)/n; broadcast, reduce,
 * sendrecv, hypercube 1. */
double pp_nccl_busbw_factor(const char *op, int nranks);

/* Whether op is one of pp_nccl_ops. */
bool pp_nccl_op_known(const char *op);

/* Check the collective s names (s->op, named by s->op_from: "option" or
 * "log") against its rows, or, when it names none, find the one its rows
 * fit and set s->op and s->op_from ("columns", "busbw/algbw ratio and
 * columns"). s has rows and s->nranks > 0. PP_EINPUT naming name:line
 * (what was named, the ratio found, which collectives fit) otherwise. */
int pp_nccl_section_identify(const char *name, pp_nccl_section *s, pp_err *err);

#endif
