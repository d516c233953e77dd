/* gpu.c - see gpu.h. */
#include "gpu.h"
#include "core/fmt.h"
#include "coll.h"
#include "cudacheck.h"
#include "gemm.h"
#include "kernels.h"
#include "mpiglue.h"
#include "plan.h"
#include "storage.h"
#include "stream.h"
#include "topo.h"
#include "nvmlrt.h"
#include "core/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REPEATS 64
#define GEMM_WORKSPACE ((size_t)32 << 20)  /* PyTorch's cuBLASLt workspace on Hopper */
#define GEMM_CHECK_SAMPLES 64
#define HOST_COPY_MAX ((size_t)1 << 30)

typedef struct dev {
	int cuda;                /* CUDA device index */
	int rank;                /* rank in the job */
	cudaStream_t s;
	cublasLtHandle_t lt;
	void *ws;
	void *send, *recv;
	size_t send_bytes, recv_bytes;
	void *A, *B, *D;
	size_t a_bytes, b_bytes, d_bytes;
	int filled;              /* dtype + 1 whose random data A and B hold; 0 none */
	void *msrc, *mdst, *host;
	size_t m_bytes, host_bytes;
	unsigned long long *wrong;
	int *canary;
	ncclComm_t all, grp;
	pp_evtrain ev;
} dev;

typedef struct gpu {
	int nlocal;
	dev d[PP_CAL_MAX_GPUS];
	bool mpi;
	int group;
	uint64_t seed;
} gpu;

static dev *local_rank_dev(gpu *g, int rank)
{
	for (int i = 0; i < g->nlocal; i++)
		if (g->d[i].rank == rank)
			return &g->d[i];
	return NULL;
}

static int wait_devs(gpu *g, dev **ds, int n, bool nccl, double timeout_s, const char *what,
		     pp_err *err)
{
	cudaStream_t s[PP_CAL_MAX_GPUS];
	ncclComm_t c[PP_CAL_MAX_GPUS];
	(void)g;
	for (int i = 0; i < n; i++) {
		s[i] = ds[i]->s;
		c[i] = nccl ? ds[i]->grp : NULL;
	}
	return pp_streams_wait(s, n, c, timeout_s, what, err);
}

/* ---- describe ---- */

static int g_describe(pp_cal_backend *b, pp_cal_host *h, pp_err *err)
{
	gpu *g = b->impl;
	pp_cal_gpu_desc *all = pp_xcalloc((size_t)b->ngpus, sizeof(*all));
	int rc = 0;
	for (int i = 0; i < g->nlocal && !rc; i++)
		rc = pp_cal_gpu_describe(g->d[i].cuda, g->d[i].rank, &all[g->d[i].rank], err);
	int bad = rc != 0;
	pp_mpi_max_int(&bad, 1);
	if (bad) {
		if (!rc)
			rc = pp_errf(err, PP_EIO, "another rank could not describe its GPU");
		goto out;
	}
	if (g->mpi) {
		pp_cal_gpu_desc mine = all[b->rank];
		pp_mpi_allgather(&mine, sizeof(mine), all);
	}
	rc = pp_cal_topology(all, b->ngpus, h, err);
out:
	free(all);
	return rc;
}

/* ---- buffers ---- */

static int alloc_dev(dev *d, size_t cs, size_t cr, size_t ga, size_t gb, size_t gd, size_t mem,
		     pp_err *err)
{
	int rc = 0;
	size_t free_b = 0, total_b = 0, host = mem < HOST_COPY_MAX ? mem : HOST_COPY_MAX;
	size_t need = cs + cr + ga + gb + gd + 2 * mem + GEMM_WORKSPACE + ((size_t)256 << 20);
	CUDA_TRY(cudaSetDevice(d->cuda));
	CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
	if (need > free_b) {
		char nb[32], fb[32];
		rc = pp_errf(err, PP_EINPUT, "GPU %d: the sweep needs %s of device memory, %s is free; "
			     "lower -e (collectives), --square-max or --mem-max, or pick fewer --models",
			     d->rank, pp_fmt_bytes((double)need, nb, sizeof(nb)),
			     pp_fmt_bytes((double)free_b, fb, sizeof(fb)));
		goto out;
	}
	if (cs)
		CUDA_TRY(cudaMalloc(&d->send, cs));
	if (cr)
		CUDA_TRY(cudaMalloc(&d->recv, cr));
	d->send_bytes = cs;
	d->recv_bytes = cr;
	if (ga)
		CUDA_TRY(cudaMalloc(&d->A, ga));
	if (gb)
		CUDA_TRY(cudaMalloc(&d->B, gb));
	if (gd)
		CUDA_TRY(cudaMalloc(&d->D, gd));
	d->a_bytes = ga;
	d->b_bytes = gb;
	d->d_bytes = gd;
	if (mem) {
		CUDA_TRY(cudaMalloc(&d->msrc, mem));
		CUDA_TRY(cudaMalloc(&d->mdst, mem));
		CUDA_TRY(pp_k_fill_random(d->msrc, mem / 4, PP_K_F32, 7, d->s));
		CUDA_TRY(cudaHostAlloc(&d->host, host, cudaHostAllocDefault));
		memset(d->host, 0x5a, host);
	}
	d->m_bytes = mem;
	d->host_bytes = host;
	CUDA_TRY(cudaStreamSynchronize(d->s));
out:
	return rc;
}

static int g_prepare(pp_cal_backend *b, size_t cs, size_t cr, size_t ga, size_t gb, size_t gd,
		     size_t mem, pp_err *err)
{
	gpu *g = b->impl;
	int rc = 0;
	for (int i = 0; i < g->nlocal && !rc; i++)
		rc = alloc_dev(&g->d[i], cs, cr, ga, gb, gd, mem, err);
	int bad = rc != 0;
	pp_mpi_max_int(&bad, 1);
	if (bad && !rc)
		rc = pp_errf(err, PP_EIO, "another rank could not allocate its buffers");
	return rc;
}

/* ---- communicators and the canary ---- */

static void drop_groups(gpu *g)
{
	for (int i = 0; i < g->nlocal; i++) {
		dev *d = &g->d[i];
		if (d->grp && d->grp != d->all)
			ncclCommDestroy(d->grp);
		d->grp = NULL;
	}
}

static int g_group(pp_cal_backend *b, int nranks, double timeout_s, pp_err *err)
{
	gpu *g = b->impl;
	int rc = 0, np = 0, bad = 0;
	dev *P[PP_CAL_MAX_GPUS];
	drop_groups(g);
	if (nranks == b->ngpus) {
		for (int i = 0; i < g->nlocal; i++)
			g->d[i].grp = g->d[i].all;
	} else if (!g->mpi) {
		ncclComm_t c[PP_CAL_MAX_GPUS];
		int devs[PP_CAL_MAX_GPUS];
		for (int i = 0; i < nranks; i++)
			devs[i] = g->d[i].cuda;
		NCCL_TRY(ncclCommInitAll(c, nranks, devs));
		for (int i = 0; i < nranks; i++)
			g->d[i].grp = c[i];
	} else {
		dev *d = &g->d[0];
		NCCL_TRY(ncclCommSplit(d->all, d->rank < nranks ? 0 : NCCL_SPLIT_NOCOLOR, d->rank,
				       &d->grp, NULL));
	}
	g->group = nranks;
	/* the canary: all-reduce of the rank ids, n(n-1)/2 on every rank */
	for (int i = 0; i < g->nlocal; i++)
		if (g->d[i].rank < nranks)
			P[np++] = &g->d[i];
	if (np) {
		int got[PP_CAL_MAX_GPUS];
		for (int i = 0; i < np; i++) {
			CUDA_TRY(cudaSetDevice(P[i]->cuda));
			CUDA_TRY(cudaMemcpyAsync(P[i]->canary, &P[i]->rank, sizeof(int),
						 cudaMemcpyHostToDevice, P[i]->s));
		}
		NCCL_TRY(ncclGroupStart());
		for (int i = 0; i < np; i++)
			NCCL_TRY(ncclAllReduce(P[i]->canary, P[i]->canary, 1, ncclInt32, ncclSum, P[i]->grp,
					       P[i]->s));
		NCCL_TRY(ncclGroupEnd());
		char what[96];
		snprintf(what, sizeof(what), "the canary all-reduce on %d GPUs", nranks);
		if ((rc = wait_devs(g, P, np, true, timeout_s, what, err)))
			goto out;
		for (int i = 0; i < np; i++) {
			CUDA_TRY(cudaMemcpy(&got[i], P[i]->canary, sizeof(int), cudaMemcpyDeviceToHost));
			if (got[i] != nranks * (nranks - 1) / 2 && !bad) {
				bad = 1;
				rc = pp_errf(err, PP_EIO, "canary failed on the communicator of %d GPUs: "
					     "rank %d summed the rank ids to %d, expected %d; NCCL is "
					     "moving wrong data (check the driver, NVLink errors in "
					     "nvidia-smi nvlink -e, dmesg for Xid)", nranks, P[i]->rank,
					     got[i], nranks * (nranks - 1) / 2);
			}
		}
	}
out:
	bad = rc != 0;
	pp_mpi_max_int(&bad, 1);
	if (bad && !rc)
		rc = pp_errf(err, PP_EIO, "the canary failed on another rank (see its message)");
	return rc;
}

/* ---- the timing loop ---- */

typedef int (*issue_fn)(void *ctx, pp_err *err);

/* Batch B iterations per repeat so that a repeat lasts about target_s; R
 * repeats, fewer when they would pass max_s. */
static void batch_plan(const pp_cal_iters *it, double pilot, int *B, int *R)
{
	int b = pilot > 0 ? (int)ceil(it->target_s / pilot) : 1;
	b = b < 1 ? 1 : b > it->max_batch ? it->max_batch : b;
	int r = it->repeats;
	if (r * b * pilot > it->max_s)
		r = (int)floor(it->max_s / (b * pilot));
	r = r < it->min_repeats ? it->min_repeats : r > MAX_REPEATS ? MAX_REPEATS : r;
	*B = b;
	*R = r < 1 ? 1 : r;
}

/* Warm up, pick the batch from a pilot iteration, then time `repeats`
 * batches back to back with one event between each; the time of a repeat
 * is the slowest participant's. */
static int time_loop(gpu *g, dev **P, int np, bool nccl, bool across_ranks, issue_fn issue,
		     void *ctx, const pp_cal_iters *it, const char *what, pp_cal_stats *out,
		     pp_err *err)
{
	int rc = 0, R, B;
	double t[MAX_REPEATS + 1];
	if (it->gap_s > 0) { /* the clocks back from the power limit: a burst */
		if ((rc = wait_devs(g, P, np, nccl, it->timeout_s, what, err)))
			return rc;
		struct timespec ts = {(time_t)it->gap_s,
				      (long)((it->gap_s - (double)(time_t)it->gap_s) * 1e9)};
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
	for (int w = 0; w < it->warmup && !rc; w++)
		rc = issue(ctx, err);
	if (rc || (rc = wait_devs(g, P, np, nccl, it->timeout_s, what, err)))
		return rc;
	/* pilot */
	double pilot = 0;
	for (int i = 0; i < np; i++) {
		CUDA_TRY(cudaSetDevice(P[i]->cuda));
		CUDA_TRY(cudaEventRecord(P[i]->ev.ev[0], P[i]->s));
	}
	if ((rc = issue(ctx, err)))
		goto out;
	for (int i = 0; i < np; i++) {
		CUDA_TRY(cudaSetDevice(P[i]->cuda));
		CUDA_TRY(cudaEventRecord(P[i]->ev.ev[1], P[i]->s));
	}
	if ((rc = wait_devs(g, P, np, nccl, it->timeout_s, what, err)))
		goto out;
	for (int i = 0; i < np; i++) {
		double s;
		if ((rc = pp_evtrain_gap(&P[i]->ev, 0, &s, err)))
			goto out;
		if (s > pilot)
			pilot = s;
	}
	if (across_ranks)
		pp_mpi_max_double(&pilot, 1);
	batch_plan(it, pilot, &B, &R);
	if (across_ranks)
		pp_mpi_barrier();
	for (int i = 0; i < np; i++) {
		CUDA_TRY(cudaSetDevice(P[i]->cuda));
		CUDA_TRY(cudaEventRecord(P[i]->ev.ev[0], P[i]->s));
	}
	for (int r = 0; r < R; r++) {
		for (int k = 0; k < B; k++)
			if ((rc = issue(ctx, err)))
				goto out;
		for (int i = 0; i < np; i++) {
			CUDA_TRY(cudaSetDevice(P[i]->cuda));
			CUDA_TRY(cudaEventRecord(P[i]->ev.ev[r + 1], P[i]->s));
		}
	}
	if ((rc = wait_devs(g, P, np, nccl, it->timeout_s, what, err)))
		goto out;
	for (int r = 0; r < R; r++) {
		t[r] = 0;
		for (int i = 0; i < np; i++) {
			double s;
			if ((rc = pp_evtrain_gap(&P[i]->ev, r, &s, err)))
				goto out;
			if (s > t[r])
				t[r] = s;
		}
	}
	if (across_ranks)
		pp_mpi_max_double(t, R);
	for (int r = 0; r < R; r++)
		t[r] /= B;
	pp_cal_stats_from(t, R, B, out);
out:
	return rc;
}

/* ---- collectives ---- */

typedef struct coll_ctx {
	const pp_cal_coll_req *r;
	dev **P;
	int np;
	pp_coll_bufs bufs[PP_CAL_MAX_GPUS];
} coll_ctx;

static int coll_issue(void *vc, pp_err *err)
{
	coll_ctx *c = vc;
	int rc = 0;
	NCCL_TRY(ncclGroupStart());
	for (int i = 0; i < c->np && !rc; i++)
		rc = pp_coll_issue(c->r, c->P[i]->rank, c->P[i]->grp, c->P[i]->s, &c->bufs[i], err);
	NCCL_TRY(ncclGroupEnd());
out:
	return rc;
}

static int coll_check(gpu *g, coll_ctx *c, const pp_cal_iters *it, const char *what,
		      int64_t *wrong, pp_err *err)
{
	int rc = 0;
	uint64_t seed = ++g->seed * 1000003u;
	for (int i = 0; i < c->np; i++) {
		CUDA_TRY(cudaSetDevice(c->P[i]->cuda));
		if ((rc = pp_coll_prepare_check(c->r, c->P[i]->rank, &c->bufs[i], c->P[i]->recv, seed,
						c->P[i]->s, err)))
			goto out;
		CUDA_TRY(cudaMemsetAsync(c->P[i]->wrong, 0, sizeof(unsigned long long), c->P[i]->s));
	}
	if ((rc = coll_issue(c, err)) || (rc = wait_devs(g, c->P, c->np, true, it->timeout_s, what, err)))
		goto out;
	*wrong = 0;
	for (int i = 0; i < c->np; i++) {
		unsigned long long w = 0;
		CUDA_TRY(cudaSetDevice(c->P[i]->cuda));
		if ((rc = pp_coll_check(c->r, c->P[i]->rank, &c->bufs[i], seed, c->P[i]->wrong,
					c->P[i]->s, err)))
			goto out;
		CUDA_TRY(cudaMemcpyAsync(&w, c->P[i]->wrong, sizeof(w), cudaMemcpyDeviceToHost, c->P[i]->s));
		CUDA_TRY(cudaStreamSynchronize(c->P[i]->s));
		*wrong += (int64_t)w;
	}
out:
	return rc;
}

static int g_coll(pp_cal_backend *b, const pp_cal_coll_req *r, const pp_cal_iters *it,
		  pp_cal_stats *out, pp_err *err)
{
	gpu *g = b->impl;
	coll_ctx c = {.r = r};
	dev *P[PP_CAL_MAX_GPUS];
	int rc = 0;
	char what[128], bs[32];
	memset(out, 0, sizeof(*out));
	out->wrong = -1;
	if (r->nranks != g->group)
		return pp_errf(err, PP_EINTERNAL, "collective on %d ranks, communicator of %d",
			       r->nranks, g->group);
	for (int i = 0; i < g->nlocal; i++)
		if (g->d[i].rank < r->nranks)
			P[c.np++] = &g->d[i];
	if (!c.np) {
		/* this rank is outside the group: take part in the MPI steps of
		 * time_loop() and the check so that the ranks stay in step */
		double pilot = 0, t[MAX_REPEATS];
		int B, R;
		int64_t w = 0;
		pp_mpi_max_double(&pilot, 1);
		batch_plan(it, pilot, &B, &R);
		pp_mpi_barrier();
		memset(t, 0, sizeof(t));
		pp_mpi_max_double(t, R);
		if (it->check)
			pp_mpi_sum_i64(&w, 1);
		return 0;
	}
	c.P = P;
	for (int i = 0; i < c.np; i++) {
		if (r->send_bytes > P[i]->send_bytes || r->recv_bytes > P[i]->recv_bytes)
			return pp_errf(err, PP_EINTERNAL, "collective buffers too small");
		pp_coll_bufs_of(r, P[i]->rank, P[i]->send, P[i]->recv, &c.bufs[i]);
	}
	snprintf(what, sizeof(what), "%s of %s on %d GPUs", pp_coll_names[r->op],
		 pp_fmt_bytes((double)r->bytes, bs, sizeof(bs)), r->nranks);
	if (it->check) {
		/* sane data for the timed iterations too */
		uint64_t seed = ++g->seed;
		for (int i = 0; i < c.np; i++) {
			CUDA_TRY(cudaSetDevice(P[i]->cuda));
			if ((rc = pp_coll_prepare_check(r, P[i]->rank, &c.bufs[i], P[i]->recv, seed,
							P[i]->s, err)))
				goto out;
		}
	}
	if ((rc = time_loop(g, P, c.np, true, g->mpi, coll_issue, &c, it, what, out, err)))
		goto out;
	if (it->check) {
		int64_t w = 0;
		if ((rc = coll_check(g, &c, it, what, &w, err)))
			goto out;
		if (g->mpi)
			pp_mpi_sum_i64(&w, 1);
		out->wrong = w;
	}
out:
	return rc;
}

/* ---- per-GPU measurements: GEMMs and copies ---- */

typedef struct gemm_ctx {
	pp_gemm_runner run;
	dev *d;
	size_t copies, stride, next;  /* decode: A cycles through copies of the weight */
} gemm_ctx;

static int gemm_issue(void *vc, pp_err *err)
{
	gemm_ctx *c = vc;
	const char *A = (const char *)c->d->A;
	if (c->copies > 1) {
		A += c->next * c->stride;
		c->next = (c->next + 1) % c->copies;
	}
	return pp_gemm_run(&c->run, A, c->d->B, c->d->D, c->d->s, err);
}

static int gemm_one(gpu *g, dev *d, const pp_cal_gemm_req *r, const pp_cal_iters *it,
		    pp_cal_stats *out, pp_err *err)
{
	int rc = 0, ikt = pp_gemm_in_kt(r->dtype);
	size_t ib = pp_cal_gemm_in_bytes(r->dtype), ob = pp_cal_gemm_out_bytes(r->dtype);
	gemm_ctx c = {.d = d, .copies = 1};
	bool have_runner = false;
	char what[128];
	/* what cuBLAS is asked (plan.h pp_cal_gemm_cublas) */
	int64_t cm, cn;
	bool ta, tb;
	pp_cal_gemm_cublas(r, &cm, &cn, &ta, &tb);
	static const char *const lay[] = {"", ", TN (forward)", ", NN (input gradient)",
					  ", NT (weight gradient)"};
	size_t a_need = (size_t)(cm * r->k) * ib, b_need = (size_t)(r->k * cn) * ib;
	if (r->decode) {
		c.copies = pp_cal_decode_copies(r, &c.stride);
		a_need = c.copies * c.stride;
	}
	CUDA_TRY(cudaSetDevice(d->cuda));
	if (a_need > d->a_bytes || b_need > d->b_bytes || (size_t)(r->m * r->n) * ob > d->d_bytes)
		return pp_errf(err, PP_EINTERNAL, "GEMM buffers too small");
	if (d->filled != (int)r->dtype + 1) {
		CUDA_TRY(pp_k_fill_random(d->A, d->a_bytes / ib, ikt, 11, d->s));
		CUDA_TRY(pp_k_fill_random(d->B, d->b_bytes / ib, ikt, 13, d->s));
		d->filled = (int)r->dtype + 1;
	}
	rc = pp_gemm_runner_init_layout(&c.run, d->lt, d->ws, GEMM_WORKSPACE, r->dtype, cm, cn, r->k,
					ta, tb, err);
	if (rc == PP_CAL_SKIPPED) {
		snprintf(out->note, sizeof(out->note), "%s", err->msg);
		return PP_CAL_SKIPPED;
	}
	if (rc)
		goto out;
	have_runner = true;
	snprintf(what, sizeof(what), "GEMM %s %lldx%lldx%lld on GPU %d", pp_dtype_names[r->dtype],
		 (long long)r->m, (long long)r->n, (long long)r->k, d->rank);
	if ((rc = time_loop(g, &d, 1, false, false, gemm_issue, &c, it, what, out, err)))
		goto out;
	int algo_id = -1;
	size_t sz = 0;
	cublasLtMatmulAlgoConfigGetAttribute(&c.run.heur.algo, CUBLASLT_ALGO_CONFIG_ID, &algo_id,
					     sizeof(algo_id), &sz);
	if (r->decode)
		snprintf(out->note, sizeof(out->note), "cuBLASLt heuristic #1 (algo %d), workspace %zu "
			 "MiB, TN, %zu weight copies", algo_id, GEMM_WORKSPACE >> 20, c.copies);
	else
		snprintf(out->note, sizeof(out->note), "cuBLASLt heuristic #1 (algo %d), workspace %zu MiB%s",
			 algo_id, GEMM_WORKSPACE >> 20,
			 r->torch_pass >= 1 && r->torch_pass <= 3 ? lay[r->torch_pass] : "");
	out->wrong = -1;
	if (it->check) {
		unsigned long long w = 0;
		if (c.copies > 1) {
			/* D from the first copy of the weight, the one checked */
			c.next = 0;
			c.copies = 1;
			if ((rc = gemm_issue(&c, err)))
				goto out;
		}
		CUDA_TRY(cudaMemsetAsync(d->wrong, 0, sizeof(w), d->s));
		CUDA_TRY(pp_k_gemm_check(d->A, d->B, d->D, cm, cn, r->k, c.run.transa, c.run.transb, ikt,
					 pp_gemm_out_kt(r->dtype), r->dtype == PP_DT_TF32,
					 GEMM_CHECK_SAMPLES, ++g->seed, d->wrong, d->s));
		CUDA_TRY(cudaMemcpyAsync(&w, d->wrong, sizeof(w), cudaMemcpyDeviceToHost, d->s));
		CUDA_TRY(cudaStreamSynchronize(d->s));
		out->wrong = (int64_t)w;
	}
out:
	if (have_runner)
		pp_gemm_runner_release(&c.run);
	return rc;
}

typedef struct mem_ctx {
	dev *d;
	pp_mem_kind k;
	size_t bytes;
} mem_ctx;

static int mem_issue(void *vc, pp_err *err)
{
	mem_ctx *c = vc;
	dev *d = c->d;
	int rc = 0;
	switch (c->k) {
	case PP_MEM_D2D_MEMCPY:
		CUDA_TRY(cudaMemcpyAsync(d->mdst, d->msrc, c->bytes, cudaMemcpyDeviceToDevice, d->s));
		break;
	case PP_MEM_D2D_KERNEL:
		CUDA_TRY(pp_k_copy(d->mdst, d->msrc, c->bytes, 0, d->s));
		break;
	case PP_MEM_H2D:
		CUDA_TRY(cudaMemcpyAsync(d->mdst, d->host, c->bytes, cudaMemcpyHostToDevice, d->s));
		break;
	default:
		CUDA_TRY(cudaMemcpyAsync(d->host, d->msrc, c->bytes, cudaMemcpyDeviceToHost, d->s));
		break;
	}
out:
	return rc;
}

static int mem_one(gpu *g, dev *d, pp_mem_kind k, size_t bytes, const pp_cal_iters *it,
		   pp_cal_stats *out, pp_err *err)
{
	int rc = 0;
	mem_ctx c = {.d = d, .k = k, .bytes = bytes};
	char what[96];
	CUDA_TRY(cudaSetDevice(d->cuda));
	if (bytes > d->m_bytes || (k >= PP_MEM_H2D && bytes > d->host_bytes)) {
		snprintf(out->note, sizeof(out->note), "larger than the copy buffers");
		return PP_CAL_SKIPPED;
	}
	snprintf(what, sizeof(what), "a %zu-byte copy on GPU %d", bytes, d->rank);
	rc = time_loop(g, &d, 1, false, false, mem_issue, &c, it, what, out, err);
	out->wrong = -1;
	snprintf(out->note, sizeof(out->note), "%s", k == PP_MEM_D2D_KERNEL ? "16-byte vector copy kernel" :
		 "cudaMemcpyAsync");
out:
	return rc;
}

/* Each GPU in turn (the others idle at a barrier), gathered to every rank. */
static int per_gpu(pp_cal_backend *b, int only, int (*one)(gpu *, dev *, const void *,
							      const pp_cal_iters *, pp_cal_stats *, pp_err *),
		   const void *req, const pp_cal_iters *it, pp_cal_stats *per, pp_err *err)
{
	gpu *g = b->impl;
	int rc = 0, skipped = 0;
	memset(per, 0, sizeof(*per) * (size_t)b->ngpus);
	for (int r = 0; r < b->ngpus && !rc; r++) {
		if (only >= 0 && r != only)
			continue;
		if (g->mpi)
			pp_mpi_barrier();
		dev *d = local_rank_dev(g, r);
		if (!d)
			continue;
		rc = one(g, d, req, it, &per[r], err);
		if (rc == PP_CAL_SKIPPED) {
			skipped = 1;
			rc = 0;
			per[r].repeats = 0;
			if (r)
				memcpy(per[0].note, per[r].note, sizeof(per[0].note));
		}
	}
	int bad = rc != 0;
	pp_mpi_max_int(&bad, 1);
	if (bad)
		return rc ? rc : pp_errf(err, PP_EIO, "a measurement failed on another rank");
	if (g->mpi) {
		pp_cal_stats mine = per[b->rank];
		pp_cal_stats *all = pp_xcalloc((size_t)b->ngpus, sizeof(*all));
		pp_mpi_allgather(&mine, sizeof(mine), all);
		memcpy(per, all, sizeof(*all) * (size_t)b->ngpus);
		free(all);
		pp_mpi_max_int(&skipped, 1);
	}
	return skipped ? PP_CAL_SKIPPED : 0;
}

static int gemm_adapter(gpu *g, dev *d, const void *req, const pp_cal_iters *it, pp_cal_stats *out,
			pp_err *err)
{
	return gemm_one(g, d, req, it, out, err);
}

static int g_gemm(pp_cal_backend *b, const pp_cal_gemm_req *r, const pp_cal_iters *it,
		  pp_cal_stats *per, pp_err *err)
{
	return per_gpu(b, r->device, gemm_adapter, r, it, per, err);
}

/* ---- sustained GEMMs ---- */

/* Wait for an event, polling, with a deadline. */
static int wait_event(cudaEvent_t e, double timeout_s, const char *what, pp_err *err)
{
	int rc = 0;
	double t0 = pp_mono_s();
	for (;;) {
		cudaError_t q = cudaEventQuery(e);
		if (q == cudaSuccess)
			break;
		if (q != cudaErrorNotReady)
			CUDA_TRY(q);
		if (pp_mono_s() - t0 > timeout_s) {
			rc = pp_errf(err, PP_EIO, "%s: no progress in %.0f s (a hang?)", what, timeout_s);
			goto out;
		}
		struct timespec ts = {0, 200000};
		nanosleep(&ts, NULL);
	}
out:
	return rc;
}

/* One GPU's part of the back-to-back run. */
typedef struct srun {
	dev *d;
	gemm_ctx c;
	bool have_runner;
	cudaEvent_t *ev;          /* ev[i]: before batch i */
	int nev;
	pp_nvml_dev h;            /* NULL: no NVML for this GPU */
	int batch;
	pp_cal_sustain_res *res;
} srun;

static int enqueue_batch(srun *u, int i, pp_err *err)
{
	int rc = 0;
	CUDA_TRY(cudaSetDevice(u->d->cuda));
	for (int k = 0; k < u->batch && !rc; k++)
		rc = gemm_issue(&u->c, err);
	if (!rc)
		CUDA_TRY(cudaEventRecord(u->ev[i + 1], u->d->s));
out:
	return rc;
}

/* Every local GPU at once: batches of about interval_s back to back, two
 * queued at any time, so the GPU never waits for the host; batch j's NVML
 * reading is taken while it runs (once batch j-1 is done), its time is the
 * GPU time between the events around it. Stops at the first batch that
 * ends past `seconds` (or when the samples are full), then checks the
 * last GEMM's output. */
static int sustain_local(gpu *g, const pp_cal_sustain_req *r, const pp_cal_iters *it, srun *U,
			 int nu, const pp_nvml *nv, pp_err *err)
{
	int rc = 0, j = 0;
	char what[128];
	snprintf(what, sizeof(what), "sustained GEMM %s %lldx%lldx%lld", pp_dtype_names[r->dtype],
		 (long long)r->m, (long long)r->n, (long long)r->k);
	for (int u = 0; u < nu; u++) {
		CUDA_TRY(cudaSetDevice(U[u].d->cuda));
		CUDA_TRY(cudaEventRecord(U[u].ev[0], U[u].d->s));
		if ((rc = enqueue_batch(&U[u], 0, err)))
			goto out;
	}
	for (j = 0;; j++) {
		bool more = j + 2 < U[0].nev && j + 1 < PP_CAL_MAX_SAMPLES;
		for (int u = 0; u < nu && more; u++)
			if ((rc = enqueue_batch(&U[u], j + 1, err)))
				goto out;
		pp_nvml_reading rd[PP_CAL_MAX_GPUS];
		for (int u = 0; u < nu; u++) {
			if ((rc = wait_event(U[u].ev[j], it->timeout_s, what, err)))
				goto out;
			pp_nvml_read(nv, U[u].h, &rd[u]);
		}
		double tmin = INFINITY;
		for (int u = 0; u < nu; u++) {
			float ms = 0, ms0 = 0;
			if ((rc = wait_event(U[u].ev[j + 1], it->timeout_s, what, err)))
				goto out;
			CUDA_TRY(cudaEventElapsedTime(&ms, U[u].ev[j], U[u].ev[j + 1]));
			CUDA_TRY(cudaEventElapsedTime(&ms0, U[u].ev[0], U[u].ev[j + 1]));
			pp_cal_sample *q = &U[u].res->samples[U[u].res->nsamples++];
			q->t_s = ms0 * 1e-3;
			q->interval_s = ms * 1e-3;
			q->gemms = U[u].batch;
			q->sm_clock_mhz = rd[u].sm_clock_mhz;
			q->mem_clock_mhz = rd[u].mem_clock_mhz;
			q->power_w = rd[u].power_w;
			q->temp_c = rd[u].temp_c;
			q->reasons = rd[u].reasons;
			if (q->t_s < tmin)
				tmin = q->t_s;
		}
		if (!more || tmin >= r->seconds)
			break;
	}
out:
	/* whatever is still queued finishes before the buffers are reused */
	for (int u = 0; u < nu; u++) {
		cudaSetDevice(U[u].d->cuda);
		cudaStreamSynchronize(U[u].d->s);
	}
	(void)g;
	return rc;
}

/* Each local GPU's runner, events and NVML handle; the power limit and
 * the highest SM clock NVML gives. */
static int sustain_setup(gpu *g, const pp_cal_sustain_req *r, pp_cal_sustain_res *per, srun *U,
			 const pp_nvml *nv, pp_err *err)
{
	int rc = 0;
	for (int u = 0; u < g->nlocal; u++) {
		srun *x = &U[u];
		pp_cal_sustain_res *res = &per[g->d[u].rank];
		x->d = &g->d[u];
		x->res = res;
		x->c = (gemm_ctx){.d = x->d, .copies = 1};
		x->batch = (int)lround(r->interval_s / res->burst.med_s);
		x->batch = x->batch < 1 ? 1 : x->batch;
		x->nev = (int)ceil(r->seconds / r->interval_s) + 8;
		x->nev = x->nev > PP_CAL_MAX_SAMPLES + 2 ? PP_CAL_MAX_SAMPLES + 2 : x->nev;
		x->ev = pp_xcalloc((size_t)x->nev, sizeof(cudaEvent_t));
		CUDA_TRY(cudaSetDevice(x->d->cuda));
		for (int e = 0; e < x->nev; e++)
			CUDA_TRY(cudaEventCreate(&x->ev[e]));
		if ((rc = pp_gemm_runner_init(&x->c.run, x->d->lt, x->d->ws, GEMM_WORKSPACE, r->dtype, r->m,
					      r->n, r->k, err)))
			goto out;
		x->have_runner = true;
		if (nv->lib) {
			char pci[32];
			unsigned mw = 0, mhz = 0;
			CUDA_TRY(cudaDeviceGetPCIBusId(pci, sizeof(pci), x->d->cuda));
			if (nv->by_pci(pci, &x->h) != 0)
				x->h = NULL;
			if (x->h && nv->power_limit && nv->power_limit(x->h, &mw) == 0)
				res->power_limit_w = mw * 1e-3;
			if (x->h && nv->max_clock && nv->max_clock(x->h, PP_NVML_CLOCK_SM, &mhz) == 0)
				res->max_sm_clock_mhz = mhz;
		}
		snprintf(res->note + strlen(res->note), sizeof(res->note) - strlen(res->note),
			 "; %d GEMMs a sample; NVML %s", x->batch, x->h ? "read" : "not available");
	}
out:
	return rc;
}

/* The last GEMM's output on each local GPU against a float recomputation;
 * wrong elements add to the burst figure's count. */
static int sustain_check(gpu *g, const pp_cal_sustain_req *r, srun *U, pp_err *err)
{
	int rc = 0, ikt = pp_gemm_in_kt(r->dtype);
	for (int u = 0; u < g->nlocal; u++) {
		srun *x = &U[u];
		unsigned long long w = 0;
		CUDA_TRY(cudaSetDevice(x->d->cuda));
		CUDA_TRY(cudaMemsetAsync(x->d->wrong, 0, sizeof(w), x->d->s));
		CUDA_TRY(pp_k_gemm_check(x->d->A, x->d->B, x->d->D, r->m, r->n, r->k, x->c.run.transa,
					 x->c.run.transb, ikt,
					 pp_gemm_out_kt(r->dtype), r->dtype == PP_DT_TF32,
					 GEMM_CHECK_SAMPLES, ++g->seed, x->d->wrong, x->d->s));
		CUDA_TRY(cudaMemcpyAsync(&w, x->d->wrong, sizeof(w), cudaMemcpyDeviceToHost, x->d->s));
		CUDA_TRY(cudaStreamSynchronize(x->d->s));
		if (w)
			x->res->burst.wrong = (x->res->burst.wrong > 0 ? x->res->burst.wrong : 0) + (int64_t)w;
	}
out:
	return rc;
}

/* The burst figure on each GPU in turn (as the sweep's squares), then the
 * back-to-back part on every GPU of the job at once (under MPI the ranks
 * start together after a barrier); every rank takes each MPI step, so
 * that a failure on one stops all. */
static int g_sustained(pp_cal_backend *b, const pp_cal_sustain_req *r, const pp_cal_iters *it,
		       pp_cal_sustain_res *per, pp_err *err)
{
	gpu *g = b->impl;
	int rc = 0, skipped = 0, bad;
	srun U[PP_CAL_MAX_GPUS];
	pp_cal_stats *burst = pp_xcalloc((size_t)b->ngpus, sizeof(*burst));
	pp_cal_gemm_req q = {.dtype = r->dtype, .m = r->m, .n = r->n, .k = r->k, .device = -1};
	pp_nvml nv;
	pp_nvml_open(&nv);
	memset(U, 0, sizeof(U));
	snprintf(q.name, sizeof(q.name), "square");
	rc = per_gpu(b, -1, gemm_adapter, &q, it, burst, err);
	if (rc < 0)
		goto out; /* per_gpu stopped every rank alike */
	skipped = rc == PP_CAL_SKIPPED;
	rc = 0;
	for (int i = 0; i < b->ngpus; i++) {
		memset(&per[i], 0, sizeof(per[i]));
		per[i].burst = burst[i];
		per[i].power_limit_w = per[i].max_sm_clock_mhz = NAN;
		snprintf(per[i].note, sizeof(per[i].note), "%s", burst[i].note);
	}
	if (skipped) {
		rc = PP_CAL_SKIPPED;
		goto out;
	}
	rc = sustain_setup(g, r, per, U, &nv, err);
	bad = rc != 0;
	pp_mpi_max_int(&bad, 1);
	if (bad) {
		rc = rc ? rc : pp_errf(err, PP_EIO, "the sustained run failed on another rank");
		goto out;
	}
	if (g->mpi)
		pp_mpi_barrier();
	rc = sustain_local(g, r, it, U, g->nlocal, &nv, err);
	if (!rc && it->check)
		rc = sustain_check(g, r, U, err);
	bad = rc != 0;
	pp_mpi_max_int(&bad, 1);
	if (bad) {
		rc = rc ? rc : pp_errf(err, PP_EIO, "the sustained run failed on another rank");
		goto out;
	}
	if (g->mpi) {
		pp_cal_sustain_res *all = pp_xcalloc((size_t)b->ngpus, sizeof(*all));
		pp_mpi_allgather(&per[b->rank], sizeof(*all), all);
		memcpy(per, all, sizeof(*all) * (size_t)b->ngpus);
		free(all);
	}
out:
	for (int u = 0; u < g->nlocal; u++) {
		srun *x = &U[u];
		if (!x->d)
			continue;
		cudaSetDevice(x->d->cuda);
		if (x->have_runner)
			pp_gemm_runner_release(&x->c.run);
		for (int e = 0; x->ev && e < x->nev; e++)
			if (x->ev[e])
				cudaEventDestroy(x->ev[e]);
		free(x->ev);
	}
	pp_nvml_close(&nv);
	free(burst);
	return rc;
}

typedef struct mem_req {
	pp_mem_kind k;
	size_t bytes;
} mem_req;

static int mem_adapter(gpu *g, dev *d, const void *req, const pp_cal_iters *it, pp_cal_stats *out,
		       pp_err *err)
{
	const mem_req *m = req;
	return mem_one(g, d, m->k, m->bytes, it, out, err);
}

static int g_mem(pp_cal_backend *b, pp_mem_kind k, size_t bytes, const pp_cal_iters *it,
		 pp_cal_stats *per, pp_err *err)
{
	mem_req m = {k, bytes};
	return per_gpu(b, -1, mem_adapter, &m, it, per, err);
}

static int g_storage(pp_cal_backend *b, const pp_cal_storage_req *r, pp_cal_stats *out,
		     pp_err *err)
{
	gpu *g = b->impl;
	int rc = 0;
	memset(out, 0, sizeof(*out));
	if (b->root)
		rc = pp_cal_storage_run(r, out, err);
	if (g->mpi) {
		int bad = rc < 0;
		pp_mpi_max_int(&bad, 1);
		if (bad && !rc)
			rc = pp_errf(err, PP_EIO, "the storage measurement failed on rank 0");
	}
	return rc;
}

static void g_abort(pp_cal_backend *b, int status)
{
	gpu *g = b->impl;
	if (g->mpi)
		pp_mpi_abort(status);
}

static void g_close(pp_cal_backend *b)
{
	if (!b)
		return;
	gpu *g = b->impl;
	drop_groups(g);
	for (int i = 0; i < g->nlocal; i++) {
		dev *d = &g->d[i];
		cudaSetDevice(d->cuda);
		if (d->all)
			ncclCommDestroy(d->all);
		pp_evtrain_release(&d->ev);
		cudaFree(d->send);
		cudaFree(d->recv);
		cudaFree(d->A);
		cudaFree(d->B);
		cudaFree(d->D);
		cudaFree(d->msrc);
		cudaFree(d->mdst);
		cudaFree(d->ws);
		cudaFree(d->wrong);
		cudaFree(d->canary);
		if (d->host)
			cudaFreeHost(d->host);
		if (d->lt)
			cublasLtDestroy(d->lt);
		if (d->s)
			cudaStreamDestroy(d->s);
	}
	if (g->mpi)
		pp_mpi_finalize();
	free(g);
	free(b);
}

static const pp_cal_backend_ops gpu_ops = {
	.name = "gpu",
	.describe = g_describe,
	.prepare = g_prepare,
	.group = g_group,
	.collective = g_coll,
	.gemm = g_gemm,
	.mem = g_mem,
	.sustained = g_sustained,
	.storage = g_storage,
	.abort_all = g_abort,
	.close = g_close,
};

static int init_dev(dev *d, int cuda, int rank, pp_err *err)
{
	int rc = 0;
	d->cuda = cuda;
	d->rank = rank;
	CUDA_TRY(cudaSetDevice(cuda));
	CUDA_TRY(cudaStreamCreateWithFlags(&d->s, cudaStreamNonBlocking));
	CUBLAS_TRY(cublasLtCreate(&d->lt));
	CUDA_TRY(cudaMalloc(&d->ws, GEMM_WORKSPACE));
	CUDA_TRY(cudaMalloc((void **)&d->wrong, sizeof(*d->wrong)));
	CUDA_TRY(cudaMalloc((void **)&d->canary, sizeof(*d->canary)));
	rc = pp_evtrain_init(&d->ev, cuda, MAX_REPEATS + 1, err);
out:
	return rc;
}

int pp_cal_gpu_new(const pp_cal_gpu_opts *o, int *argc, char ***argv, pp_cal_backend **out,
		   pp_err *err)
{
	int rc = 0, nvis = 0;
	pp_cal_backend *b = pp_xcalloc(1, sizeof(*b));
	gpu *g = pp_xcalloc(1, sizeof(*g));
	b->ops = &gpu_ops;
	b->impl = g;
	b->nprocs = 1;
	b->root = true;
	*out = NULL;
	int local = 0;
	if (o->mpi) {
		int rank = 0, size = 1;
		if ((rc = pp_mpi_init(argc, argv, &rank, &size, &local, err)))
			goto out;
		g->mpi = true;
		b->rank = rank;
		b->nprocs = size;
		b->root = rank == 0;
		b->ngpus = size;
	}
	CUDA_TRY(cudaGetDeviceCount(&nvis));
	if (nvis < 1) {
		rc = pp_errf(err, PP_EIO, "no CUDA GPU is visible (CUDA_VISIBLE_DEVICES, driver?)");
		goto out;
	}
	if (g->mpi) {
		if (local >= nvis) {
			rc = pp_errf(err, PP_EINPUT, "rank %d is local rank %d on its host, which has %d "
				     "GPUs: start at most one rank per GPU (mpirun -np N, N <= GPUs "
				     "per host x hosts)", b->rank, local, nvis);
			goto out;
		}
		g->nlocal = 1;
		if ((rc = init_dev(&g->d[0], local, b->rank, err)))
			goto out;
		ncclUniqueId id;
		if (b->root)
			NCCL_TRY(ncclGetUniqueId(&id));
		pp_mpi_bcast(&id, sizeof(id), 0);
		CUDA_TRY(cudaSetDevice(local));
		NCCL_TRY(ncclCommInitRank(&g->d[0].all, b->ngpus, id, b->rank));
	} else {
		int n = o->ngpus > 0 ? o->ngpus : nvis;
		if (n > nvis || n > PP_CAL_MAX_GPUS) {
			rc = pp_errf(err, PP_EINPUT, "--gpus %d: %d GPUs are visible", n, nvis);
			goto out;
		}
		b->ngpus = g->nlocal = n;
		int devs[PP_CAL_MAX_GPUS];
		ncclComm_t c[PP_CAL_MAX_GPUS];
		for (int i = 0; i < n; i++) {
			devs[i] = i;
			if ((rc = init_dev(&g->d[i], i, i, err)))
				goto out;
		}
		if (n > 1) {
			NCCL_TRY(ncclCommInitAll(c, n, devs));
			for (int i = 0; i < n; i++)
				g->d[i].all = c[i];
		}
	}
	*out = b;
out:
	if (rc) {
		if (g->mpi) {
			/* every rank must stop, not only this one */
			fprintf(stderr, "podplan-calibrate: rank %d: %s\n", b->rank, err->msg);
			pp_mpi_abort(pp_exit_status(rc));
		}
		g_close(b);
	}
	return rc;
}
