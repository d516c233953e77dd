/*
 * coll.h - issue one NCCL collective of a request on one rank, with
 * nccl-tests' buffer conventions, and the data-check helpers around it.
 * Reused by the step replay (issue 5) for its collectives.
 *
 * Buffers: sendbuf and recvbuf are a rank's base pointers, at least
 * r->send_bytes and r->recv_bytes long. In place, as nccl-tests: all_reduce
 * and broadcast use recvbuf for both; all_gather's input is the rank's
 * slice of recvbuf (offset rank x count); reduce_scatter's input is the
 * whole of recvbuf and its output the rank's slice. alltoall and sendrecv
 * (grouped ncclSend/ncclRecv; sendrecv sends to rank+1 and receives from
 * rank-1, a ring shift) have no in-place form.
 */
#ifndef PP_CAL_COLL_H
#define PP_CAL_COLL_H

#include "backend.h"
#include <cuda_runtime_api.h>
#include <nccl.h>

/* Where a rank's input and output live, and their element counts. */
typedef struct pp_coll_bufs {
	void *in, *out;
	size_t in_count, out_count;
	size_t chunk;    /* the per-rank count of the split collectives */
} pp_coll_bufs;

void pp_coll_bufs_of(const pp_cal_coll_req *r, int rank, void *sendbuf, void *recvbuf,
		     pp_coll_bufs *b);

/* Enqueue the collective for `rank` on comm/stream (inside the caller's
 * ncclGroupStart/End when one thread drives several ranks). */
int pp_coll_issue(const pp_cal_coll_req *r, int rank, ncclComm_t comm, cudaStream_t s,
		  const pp_coll_bufs *b, pp_err *err);

/* kernels.h element type of a collective dtype, and the value range that
 * keeps sums over nranks exact in it. */
int pp_coll_kt(pp_cdtype t);
uint32_t pp_coll_modulus(pp_cdtype t, int nranks);

/* Poison the output (NaN/0xff bytes), fill the input with the check
 * pattern of seed; then, after the collective, count wrong elements into
 * *d_wrong. */
int pp_coll_prepare_check(const pp_cal_coll_req *r, int rank, const pp_coll_bufs *b,
			  void *recvbuf, uint64_t seed, cudaStream_t s, pp_err *err);
int pp_coll_check(const pp_cal_coll_req *r, int rank, const pp_coll_bufs *b, uint64_t seed,
		  unsigned long long *d_wrong, cudaStream_t s, pp_err *err);

#endif
