/* coll.c - see coll.h. */
#include "coll.h"
#include "cudacheck.h"
#include "kernels.h"

static ncclDataType_t nccl_type(pp_cdtype t)
{
	return t == PP_CDT_BF16 ? ncclBfloat16 : t == PP_CDT_HALF ? ncclFloat16 : ncclFloat32;
}

int pp_coll_kt(pp_cdtype t)
{
	return t == PP_CDT_BF16 ? PP_K_BF16 : t == PP_CDT_HALF ? PP_K_F16 : PP_K_F32;
}

uint32_t pp_coll_modulus(pp_cdtype t, int nranks)
{
	/* integers are exact up to 2^8 in bf16, 2^11 in fp16, 2^24 in fp32 */
	uint32_t top = t == PP_CDT_BF16 ? 256u : t == PP_CDT_HALF ? 2048u : 1u << 24;
	uint32_t m = top / (uint32_t)(nranks > 0 ? nranks : 1);
	if (m > 251)
		m = 251;
	return m < 2 ? 2 : m;
}

void pp_coll_bufs_of(const pp_cal_coll_req *r, int rank, void *sendbuf, void *recvbuf,
		     pp_coll_bufs *b)
{
	size_t ws = pp_cdtype_bytes(r->dtype);
	char *rb = recvbuf;
	b->chunk = r->count;
	b->in = sendbuf;
	b->out = recvbuf;
	b->in_count = r->send_bytes / ws;
	b->out_count = r->recv_bytes / ws;
	if (!r->inplace)
		return;
	switch (r->op) {
	case PP_COLL_ALL_GATHER:
		b->in = rb + (size_t)rank * r->count * ws;
		break;
	case PP_COLL_REDUCE_SCATTER:
		b->in = rb;
		b->out = rb + (size_t)rank * r->count * ws;
		break;
	default:
		b->in = rb;
		break;
	}
}

int pp_coll_issue(const pp_cal_coll_req *r, int rank, ncclComm_t comm, cudaStream_t s,
		  const pp_coll_bufs *b, pp_err *err)
{
	int rc = 0, n = r->nranks;
	ncclDataType_t t = nccl_type(r->dtype);
	size_t ws = pp_cdtype_bytes(r->dtype);
	switch (r->op) {
	case PP_COLL_ALL_REDUCE:
		NCCL_TRY(ncclAllReduce(b->in, b->out, r->count, t, ncclSum, comm, s));
		break;
	case PP_COLL_ALL_GATHER:
		NCCL_TRY(ncclAllGather(b->in, b->out, r->count, t, comm, s));
		break;
	case PP_COLL_REDUCE_SCATTER:
		NCCL_TRY(ncclReduceScatter(b->in, b->out, r->count, t, ncclSum, comm, s));
		break;
	case PP_COLL_BROADCAST:
		NCCL_TRY(ncclBroadcast(b->in, b->out, r->count, t, r->root, comm, s));
		break;
	case PP_COLL_ALL_TO_ALL:
		/* as nccl-tests: one send and one receive per peer, grouped */
		NCCL_TRY(ncclGroupStart());
		for (int p = 0; p < n; p++) {
			NCCL_TRY(ncclSend((char *)b->in + (size_t)p * r->count * ws, r->count, t, p, comm, s));
			NCCL_TRY(ncclRecv((char *)b->out + (size_t)p * r->count * ws, r->count, t, p, comm, s));
		}
		NCCL_TRY(ncclGroupEnd());
		break;
	case PP_COLL_SENDRECV:
		NCCL_TRY(ncclGroupStart());
		NCCL_TRY(ncclSend(b->in, r->count, t, (rank + 1) % n, comm, s));
		NCCL_TRY(ncclRecv(b->out, r->count, t, (rank - 1 + n) % n, comm, s));
		NCCL_TRY(ncclGroupEnd());
		break;
	default:
		rc = pp_errf(err, PP_EINTERNAL, "collective %d unknown", (int)r->op);
	}
out:
	return rc;
}

int pp_coll_prepare_check(const pp_cal_coll_req *r, int rank, const pp_coll_bufs *b,
			  void *recvbuf, uint64_t seed, cudaStream_t s, pp_err *err)
{
	int rc = 0;
	/* poison first: an element the collective never writes then fails */
	CUDA_TRY(cudaMemsetAsync(recvbuf, 0xff, r->recv_bytes, s));
	CUDA_TRY(pp_k_coll_fill(b->in, b->in_count, pp_coll_kt(r->dtype), rank, seed,
				pp_coll_modulus(r->dtype, r->nranks), s));
out:
	return rc;
}

int pp_coll_check(const pp_cal_coll_req *r, int rank, const pp_coll_bufs *b, uint64_t seed,
		  unsigned long long *d_wrong, cudaStream_t s, pp_err *err)
{
	int rc = 0, kop;
	switch (r->op) {
	case PP_COLL_ALL_REDUCE: kop = PP_K_ALL_REDUCE; break;
	case PP_COLL_ALL_GATHER: kop = PP_K_ALL_GATHER; break;
	case PP_COLL_REDUCE_SCATTER: kop = PP_K_REDUCE_SCATTER; break;
	case PP_COLL_BROADCAST: kop = PP_K_BROADCAST; break;
	case PP_COLL_ALL_TO_ALL: kop = PP_K_ALLTOALL; break;
	default: kop = PP_K_SENDRECV; break;
	}
	size_t n = r->op == PP_COLL_REDUCE_SCATTER ? r->count : b->out_count;
	CUDA_TRY(pp_k_coll_check(b->out, n, pp_coll_kt(r->dtype), kop, rank, r->nranks,
				 r->count, r->root, seed, pp_coll_modulus(r->dtype, r->nranks),
				 d_wrong, s));
out:
	return rc;
}
