/* replay.c - see replay.h. */
#define _GNU_SOURCE 1
#include "replay.h"
#include "core/fmt.h"
#include "backend.h"
#include "coll.h"
#include "cudacheck.h"
#include "gemm.h"
#include "kernels.h"
#include "plan.h"
#include "replaycsv.h"
#include "engine/predict.h"
#include "calib/profile.h"
#include "calib/replaycount.h"
#include "calib/hwres.h"
#include "calib/replayplan.h"
#include "calib/replaysim.h"
#include "engine/evgraph.h"
#include "core/store.h"
#include "stream.h"
#include "core/util.h"

#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORKSPACE ((size_t)32 << 20)      /* cuBLASLt workspace, as the sweep and PyTorch */
#define MEM_PIECE ((size_t)1 << 30)       /* largest single copy kernel */
#define MEM_MIN_RING ((size_t)256 << 20)  /* >> L2 (50 MB on H200) */
#define MAX_STEPS 200

typedef struct opts {
	int steps, warmup;
	const char *calib, *db, *csv, *op_csv;
	bool dry, early_recv, no_dp;
	double timeout_s;
} opts;

/* ---- per-GPU state kept across scenarios ---- */

typedef struct rcache_comm {
	char key[128];
	int n;
	ncclComm_t c[PP_RP_MAX_GPUS];
} rcache_comm;

typedef struct rdev {
	int cuda;
	int sms;
	cudaStream_t st[PP_RS_COUNT];
	cublasLtHandle_t lt;
	void *ws;
	void *A, *B, *D, *msrc, *mdst, *cbuf[PP_RS_COUNT];
	size_t a_b, b_b, d_b, m_b, c_b[PP_RS_COUNT];
	size_t moff;
	/* per scenario */
	pp_gemm_runner *run;
	int nrun;
	cudaEvent_t *ev;
	int nev;
	cudaEvent_t t0[MAX_STEPS], t1[MAX_STEPS], join[PP_RS_COUNT];
	ncclComm_t *comm;  /* per plan communicator; NULL when not a member */
	int *crank;
} rdev;

typedef struct rctx {
	int ngpus;
	rdev dev[PP_RP_MAX_GPUS];
	rcache_comm *comms;
	int ncomms;
	bool started;
	/* the scenario being run */
	const pp_rplan *plan;
	int nsteps;
	double timeout_s;
	pthread_barrier_t bar;
	volatile int failed;
} rctx;

typedef struct rjob {
	rctx *x;
	int g;
	int rc;
	pp_err err;
} rjob;

static int grow(void **p, size_t *have, size_t need, pp_err *err)
{
	int rc = 0;
	if (need <= *have)
		return 0;
	if (*p)
		CUDA_TRY(cudaFree(*p));
	*p = NULL;
	*have = 0;
	CUDA_TRY(cudaMalloc(p, need));
	*have = need;
out:
	return rc;
}

static int ctx_start(rctx *x, int ngpus, pp_err *err)
{
	int rc = 0;
	if (x->started)
		return 0;
	x->ngpus = ngpus;
	for (int g = 0; g < ngpus; g++) {
		rdev *d = &x->dev[g];
		memset(d, 0, sizeof(*d));
		d->cuda = g;
		CUDA_TRY(cudaSetDevice(g));
		CUDA_TRY(cudaDeviceGetAttribute(&d->sms, cudaDevAttrMultiProcessorCount, g));
		for (int s = 0; s < PP_RS_COUNT; s++) {
			CUDA_TRY(cudaStreamCreateWithFlags(&d->st[s], cudaStreamNonBlocking));
			CUDA_TRY(cudaEventCreateWithFlags(&d->join[s], cudaEventDisableTiming));
		}
		for (int i = 0; i < MAX_STEPS; i++) {
			CUDA_TRY(cudaEventCreate(&d->t0[i]));
			CUDA_TRY(cudaEventCreate(&d->t1[i]));
		}
		CUBLAS_TRY(cublasLtCreate(&d->lt));
		CUDA_TRY(cudaMalloc(&d->ws, WORKSPACE));
	}
	x->started = true;
out:
	return rc;
}

/* A communicator per plan communicator, cached by its name and members. */
static int comms_for(rctx *x, const pp_rplan *p, pp_err *err)
{
	int rc = 0;
	for (int g = 0; g < x->ngpus; g++) {
		free(x->dev[g].comm);
		free(x->dev[g].crank);
		x->dev[g].comm = pp_xcalloc((size_t)p->ncomms + 1, sizeof(ncclComm_t));
		x->dev[g].crank = pp_xcalloc((size_t)p->ncomms + 1, sizeof(int));
	}
	for (int c = 0; c < p->ncomms; c++) {
		const pp_rcomm *pc = &p->comms[c];
		char key[128];
		int len = snprintf(key, sizeof(key), "%s:", pc->name);
		for (int i = 0; i < pc->n && len < (int)sizeof(key) - 8; i++)
			len += snprintf(key + len, sizeof(key) - (size_t)len, "%d,", pc->gpus[i]);
		rcache_comm *k = NULL;
		for (int i = 0; i < x->ncomms; i++)
			if (!strcmp(x->comms[i].key, key))
				k = &x->comms[i];
		if (!k) {
			x->comms = pp_xrealloc(x->comms, sizeof(rcache_comm) * (size_t)(x->ncomms + 1));
			k = &x->comms[x->ncomms];
			memset(k, 0, sizeof(*k));
			snprintf(k->key, sizeof(k->key), "%s", key);
			k->n = pc->n;
			NCCL_TRY(ncclCommInitAll(k->c, pc->n, pc->gpus));
			x->ncomms++;
		}
		for (int i = 0; i < pc->n; i++) {
			x->dev[pc->gpus[i]].comm[c] = k->c[i];
			x->dev[pc->gpus[i]].crank[c] = i;
		}
	}
out:
	return rc;
}

static void drop_scenario(rctx *x)
{
	for (int g = 0; g < x->ngpus; g++) {
		rdev *d = &x->dev[g];
		cudaSetDevice(d->cuda);
		for (int i = 0; i < d->nrun; i++)
			pp_gemm_runner_release(&d->run[i]);
		free(d->run);
		d->run = NULL;
		d->nrun = 0;
		for (int i = 0; i < d->nev; i++)
			cudaEventDestroy(d->ev[i]);
		free(d->ev);
		d->ev = NULL;
		d->nev = 0;
	}
}

/* cuBLASLt runner for a plan GEMM; batched GEMMs are strided-batched. */
static int gemm_init(rdev *d, pp_gemm_runner *g, const pp_rgemm *q, pp_err *err)
{
	int rc = pp_gemm_runner_init(g, d->lt, d->ws, WORKSPACE, q->dtype, q->m, q->n, q->k, err);
	cublasLtMatmulPreference_t pref = NULL;
	if (rc > 0) {
		char why[sizeof(err->msg)];
		snprintf(why, sizeof(why), "%s", err->msg);
		rc = pp_errf(err, PP_EINPUT, "%s", why);
	}
	if (rc || q->batch == 1)
		return rc;
	int32_t bc = (int32_t)q->batch;
	int64_t sa = q->m * q->k, sb = q->k * q->n, sd = q->m * q->n;
	int found = 0;
	size_t wsb = WORKSPACE;
	CUBLAS_TRY(cublasLtMatrixLayoutSetAttribute(g->la, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &bc, sizeof(bc)));
	CUBLAS_TRY(cublasLtMatrixLayoutSetAttribute(g->lb, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &bc, sizeof(bc)));
	CUBLAS_TRY(cublasLtMatrixLayoutSetAttribute(g->ld, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &bc, sizeof(bc)));
	CUBLAS_TRY(cublasLtMatrixLayoutSetAttribute(g->la, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sa, sizeof(sa)));
	CUBLAS_TRY(cublasLtMatrixLayoutSetAttribute(g->lb, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sb, sizeof(sb)));
	CUBLAS_TRY(cublasLtMatrixLayoutSetAttribute(g->ld, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sd, sizeof(sd)));
	CUBLAS_TRY(cublasLtMatmulPreferenceCreate(&pref));
	CUBLAS_TRY(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
							&wsb, sizeof(wsb)));
	CUBLAS_TRY(cublasLtMatmulAlgoGetHeuristic(d->lt, g->op, g->la, g->lb, g->ld, g->ld, pref, 1,
						  &g->heur, &found));
	if (!found)
		rc = pp_errf(err, PP_EIO, "cuBLASLt has no kernel for batched GEMM %s %lldx%lldx%lld x%lld",
			     q->name, (long long)q->m, (long long)q->n, (long long)q->k,
			     (long long)q->batch);
out:
	if (pref)
		cublasLtMatmulPreferenceDestroy(pref);
	return rc;
}

static int setup_scenario(rctx *x, const pp_rplan *p, pp_err *err)
{
	int rc = 0;
	for (int g = 0; g < x->ngpus && !rc; g++) {
		rdev *d = &x->dev[g];
		pp_rplan_max m;
		pp_rplan_maxima(p, g, &m);
		CUDA_TRY(cudaSetDevice(d->cuda));
		size_t need_a = (size_t)m.gemm_a + 256, need_b = (size_t)m.gemm_b + 256;
		bool refill = need_a > d->a_b || need_b > d->b_b;
		if ((rc = grow(&d->A, &d->a_b, need_a, err)) || (rc = grow(&d->B, &d->b_b, need_b, err)) ||
		    (rc = grow(&d->D, &d->d_b, (size_t)m.gemm_d + 256, err)))
			goto out;
		if (refill && p->ngemms) {
			/* operands as real numbers of the GEMMs' type (random bit
			 * patterns would hold NaNs and change the power draw) */
			int kt = pp_gemm_in_kt(p->gemms[0].dtype);
			size_t eb = kt == PP_K_FP8E4M3 ? 1 : kt == PP_K_F32 ? 4 : 2;
			CUDA_TRY(pp_k_fill_random(d->A, d->a_b / eb, kt, 11 + (uint64_t)g, d->st[0]));
			CUDA_TRY(pp_k_fill_random(d->B, d->b_b / eb, kt, 23 + (uint64_t)g, d->st[0]));
		}
		size_t ring = (size_t)m.mem < MEM_PIECE ? (size_t)m.mem : MEM_PIECE;
		ring = ring < MEM_MIN_RING ? MEM_MIN_RING : 2 * ring;
		if (ring > d->m_b) {
			if ((rc = grow(&d->msrc, &d->m_b, ring, err)))
				goto out;
			size_t tmp = 0;
			if (d->mdst)
				CUDA_TRY(cudaFree(d->mdst));
			d->mdst = NULL;
			if ((rc = grow(&d->mdst, &tmp, ring, err)))
				goto out;
			CUDA_TRY(pp_k_fill_random(d->msrc, ring / 4, PP_K_F32, 37, d->st[0]));
		}
		d->moff = 0;
		for (int s = 0; s < PP_RS_COUNT; s++) {
			size_t need = (size_t)m.coll[s];
			if (!need || need <= d->c_b[s])
				continue;
			if ((rc = grow(&d->cbuf[s], &d->c_b[s], need + 4096, err)))
				goto out;
			CUDA_TRY(cudaMemsetAsync(d->cbuf[s], 0, d->c_b[s], d->st[0]));
		}
		d->run = pp_xcalloc((size_t)p->ngemms + 1, sizeof(pp_gemm_runner));
		for (int i = 0; i < p->ngemms && !rc; i++) {
			rc = gemm_init(d, &d->run[i], &p->gemms[i], err);
			if (!rc)
				d->nrun = i + 1;
		}
		if (rc)
			goto out;
		d->ev = pp_xcalloc((size_t)p->gpu[g].nevents + 1, sizeof(cudaEvent_t));
		for (int i = 0; i < p->gpu[g].nevents; i++) {
			CUDA_TRY(cudaEventCreateWithFlags(&d->ev[i], cudaEventDisableTiming));
			d->nev = i + 1;
		}
		CUDA_TRY(cudaStreamSynchronize(d->st[0]));
	}
	rc = comms_for(x, p, err);
out:
	return rc;
}

/* ---- issuing ---- */

static int issue_mem(rdev *d, double bytes, cudaStream_t s, pp_err *err)
{
	int rc = 0;
	size_t left = (size_t)llround(bytes / 2);
	while (left > 0) {
		size_t piece = left < MEM_PIECE ? left : MEM_PIECE;
		size_t span = (piece + 255) & ~(size_t)255;
		if (d->moff + span > d->m_b)
			d->moff = 0;
		CUDA_TRY(pp_k_copy((char *)d->mdst + d->moff, (char *)d->msrc + d->moff, piece,
				   d->sms * 4, s));
		d->moff += span;
		left -= piece;
	}
out:
	return rc;
}

static int issue(rdev *d, const pp_rplan *p, const pp_rinstr *r, pp_err *err)
{
	int rc = 0;
	cudaStream_t s = d->st[r->stream];
	pp_cdtype dt = r->elem_bytes == 4 ? PP_CDT_FLOAT : PP_CDT_BF16;
	ncclDataType_t nt = r->elem_bytes == 4 ? ncclFloat32 : ncclBfloat16;
	switch (r->kind) {
	case PP_RI_GEMM:
		rc = pp_gemm_run(&d->run[r->arg], d->A, d->B, d->D, s, err);
		break;
	case PP_RI_MEM:
		rc = issue_mem(d, r->bytes, s, err);
		break;
	case PP_RI_COLL: {
		pp_cal_coll_req q;
		pp_coll_bufs b;
		memset(&q, 0, sizeof(q));
		if (pp_cal_coll_layout((pp_coll)r->coll, dt, (size_t)r->bytes, p->comms[r->comm].n, &q))
			break; /* smaller than one element per rank: nothing to move */
		q.inplace = true;
		pp_coll_bufs_of(&q, d->crank[r->comm], d->cbuf[r->stream], d->cbuf[r->stream], &b);
		rc = pp_coll_issue(&q, d->crank[r->comm], d->comm[r->comm], s, &b, err);
		break;
	}
	case PP_RI_SEND:
		NCCL_TRY(ncclSend(d->cbuf[r->stream], (size_t)r->bytes / r->elem_bytes, nt, r->arg,
				  d->comm[r->comm], s));
		break;
	case PP_RI_RECV:
		NCCL_TRY(ncclRecv(d->cbuf[r->stream], (size_t)r->bytes / r->elem_bytes, nt, r->arg,
				  d->comm[r->comm], s));
		break;
	case PP_RI_RECORD:
		CUDA_TRY(cudaEventRecord(d->ev[r->arg], s));
		break;
	case PP_RI_WAIT:
		CUDA_TRY(cudaStreamWaitEvent(s, d->ev[r->arg], 0));
		break;
	default:
		break;
	}
out:
	return rc;
}

/* One step on one GPU: start event, the plan, every stream joined, end event. */
static int issue_step(rdev *d, const pp_rplan *p, const pp_rgpu *gp, int step, pp_err *err)
{
	int rc = 0;
	cudaStream_t c = d->st[PP_RS_COMPUTE];
	CUDA_TRY(cudaEventRecord(d->t0[step], c));
	for (int s = 1; s < PP_RS_COUNT; s++)
		if (gp->uses[s])
			CUDA_TRY(cudaStreamWaitEvent(d->st[s], d->t0[step], 0));
	for (int i = 0; i < gp->nins && !rc; i++)
		rc = issue(d, p, &gp->ins[i], err);
	if (rc)
		goto out;
	for (int s = 1; s < PP_RS_COUNT; s++)
		if (gp->uses[s]) {
			CUDA_TRY(cudaEventRecord(d->join[s], d->st[s]));
			CUDA_TRY(cudaStreamWaitEvent(c, d->join[s], 0));
		}
	CUDA_TRY(cudaEventRecord(d->t1[step], c));
out:
	return rc;
}

static int drain(rctx *x, rdev *d, pp_err *err)
{
	int rc = 0;
	CUDA_TRY(cudaSetDevice(d->cuda));
	rc = pp_streams_wait(d->st, PP_RS_COUNT, NULL, x->timeout_s, "a replay step", err);
out:
	return rc;
}

static void *gpu_thread(void *arg)
{
	rjob *j = arg;
	rctx *x = j->x;
	rdev *d = &x->dev[j->g];
	const pp_rgpu *gp = &x->plan->gpu[j->g];
	cudaSetDevice(d->cuda);
	for (int step = 0; step < x->nsteps; step++) {
		if (!j->rc)
			j->rc = drain(x, d, &j->err);
		if (j->rc)
			x->failed = 1;
		/* every thread reaches every barrier, failed or not */
		pthread_barrier_wait(&x->bar);
		if (x->failed)
			continue;
		j->rc = issue_step(d, x->plan, gp, step, &j->err);
	}
	if (!j->rc && !x->failed)
		j->rc = drain(x, d, &j->err);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

typedef struct rresult {
	double med_s, min_s, max_s;
	int steps;
} rresult;

static int run_steps(rctx *x, const pp_rplan *p, int warmup, int steps, rresult *res, pp_err *err)
{
	int rc = 0, G = x->ngpus;
	rjob jobs[PP_RP_MAX_GPUS];
	pthread_t th[PP_RP_MAX_GPUS];
	double per[MAX_STEPS];
	x->plan = p;
	x->nsteps = warmup + steps;
	x->failed = 0;
	pthread_barrier_init(&x->bar, NULL, (unsigned)G);
	for (int g = 0; g < G; g++) {
		memset(&jobs[g], 0, sizeof(jobs[g]));
		jobs[g].x = x;
		jobs[g].g = g;
		pthread_create(&th[g], NULL, gpu_thread, &jobs[g]);
	}
	for (int g = 0; g < G; g++)
		pthread_join(th[g], NULL);
	pthread_barrier_destroy(&x->bar);
	for (int g = 0; g < G; g++)
		if (jobs[g].rc) {
			*err = jobs[g].err;
			return pp_errf(err, jobs[g].rc, "GPU %d: %s", g, jobs[g].err.msg);
		}
	for (int i = 0; i < steps; i++) {
		per[i] = 0;
		for (int g = 0; g < G; g++) {
			float ms = 0;
			CUDA_TRY(cudaSetDevice(x->dev[g].cuda));
			CUDA_TRY(cudaEventElapsedTime(&ms, x->dev[g].t0[warmup + i], x->dev[g].t1[warmup + i]));
			if (ms * 1e-3 > per[i])
				per[i] = ms * 1e-3;
		}
	}
	qsort(per, (size_t)steps, sizeof(double), cmp_double);
	res->steps = steps;
	res->min_s = per[0];
	res->max_s = per[steps - 1];
	res->med_s = steps % 2 ? per[steps / 2] : 0.5 * (per[steps / 2 - 1] + per[steps / 2]);
out:
	return rc;
}

/* ---- per-op timings (diagnostics): each distinct GEMM and memory op of
 * GPU 0, alone, back to back ---- */

static int time_alone(rdev *d, const pp_rplan *p, const pp_rinstr *r, double *s_out, pp_err *err)
{
	int rc = 0, reps = 20;
	cudaStream_t c = d->st[PP_RS_COMPUTE];
	CUDA_TRY(cudaSetDevice(d->cuda));
	for (int i = 0; i < 3 && !rc; i++)
		rc = issue(d, p, r, err);
	CUDA_TRY(cudaEventRecord(d->t0[0], c));
	for (int i = 0; i < reps && !rc; i++)
		rc = issue(d, p, r, err);
	CUDA_TRY(cudaEventRecord(d->t1[0], c));
	CUDA_TRY(cudaEventSynchronize(d->t1[0]));
	float ms = 0;
	CUDA_TRY(cudaEventElapsedTime(&ms, d->t0[0], d->t1[0]));
	*s_out = ms * 1e-3 / reps;
out:
	return rc;
}

static int op_stats(rctx *x, const pp_rplan *p, const char *config, pp_sb *csv, pp_err *err)
{
	int rc = 0;
	const pp_rgpu *gp = &p->gpu[0];
	rdev *d = &x->dev[0];
	int *seen_gemm = pp_xcalloc((size_t)p->ngemms + 1, sizeof(int));
	double *mem_b = pp_xcalloc((size_t)gp->nins + 1, sizeof(double));
	int *mem_n = pp_xcalloc((size_t)gp->nins + 1, sizeof(int));
	int *mem_i = pp_xcalloc((size_t)gp->nins + 1, sizeof(int));
	int nm = 0;
	for (int i = 0; i < gp->nins; i++) {
		const pp_rinstr *r = &gp->ins[i];
		if (r->kind == PP_RI_GEMM) {
			seen_gemm[r->arg]++;
		} else if (r->kind == PP_RI_MEM) {
			int k;
			for (k = 0; k < nm && mem_b[k] != r->bytes; k++)
				;
			if (k == nm) {
				mem_b[nm] = r->bytes;
				mem_i[nm++] = i;
			}
			mem_n[k]++;
		}
	}
	for (int i = 0; i < gp->nins && !rc; i++) {
		const pp_rinstr *r = &gp->ins[i];
		if (r->kind != PP_RI_GEMM || seen_gemm[r->arg] <= 0)
			continue;
		const pp_rgemm *q = &p->gemms[r->arg];
		double t;
		if ((rc = time_alone(d, p, r, &t, err)))
			break;
		pp_rcsv_gemm_row(csv, config, q->name, q->m, q->n, q->k, q->batch, seen_gemm[r->arg],
				 r->sim_s, t);
		seen_gemm[r->arg] = -1;
	}
	for (int k = 0; k < nm && !rc; k++) {
		const pp_rinstr *r = &gp->ins[mem_i[k]];
		double t;
		if ((rc = time_alone(d, p, r, &t, err)))
			break;
		pp_rcsv_mem_row(csv, config, r->cat == PP_CAT_OPTIMIZER ? "optimizer" : "elementwise",
				r->bytes, mem_n[k], r->sim_s, t);
	}
	free(seen_gemm);
	free(mem_b);
	free(mem_n);
	free(mem_i);
	return rc;
}

/* ---- the command ---- */

static void help(void)
{
	printf("usage: podplan-calibrate replay SCENARIO.json [SCENARIO.json ...] [options]\n\n"
	       "Executes the simulated training step of each scenario on this machine's GPUs and\n"
	       "measures it: the same GEMMs (shapes, dtypes; cuBLASLt), memory-bound kernels of the\n"
	       "same bytes, the same NCCL collectives and send/recv (sizes, groups), on the same\n"
	       "streams with the same dependencies and overlap as the simulator's event graph\n"
	       "(Megatron rank order: tp fastest, then cp, dp, pp; one thread per GPU). Prints the\n"
	       "measured step time (median over the timed steps) next to the prediction.\n"
	       "The scenario must use every visible GPU (cluster.num_gpus), fit in memory, and set\n"
	       "training.use_flash_attn to false (no fused attention kernel is replayed).\n\n"
	       "  --steps N               timed steps (default 8)\n"
	       "  --warmup N              untimed steps first (default 3)\n"
	       "  --calibration DB:PROFILE[@VERSION]\n"
	       "                          the calibration profile for the prediction (default: the\n"
	       "                          scenario's \"calibration\" section)\n"
	       "  --db DB                 the store in which a profile named without a database is\n"
	       "                          found (default $PODPLAN_DB, else %s)\n"
	       "  --csv FILE              append config,predicted_s,measured_s,error_pct,... to FILE\n"
	       "  --op-csv FILE           append each distinct GEMM and memory op of GPU 0 timed\n"
	       "                          alone next to its modelled time (diagnostics)\n"
	       "  --timeout S             a step longer than S seconds is a hang (default 120)\n"
	       "  --dry-run               build and check the plan only (no GPU): counts, and the\n"
	       "                          plan executed on paper with the modelled durations\n"
	       " diagnostics (the config name gets the variant appended):\n"
	       "  --early-recv            post each pipeline receive at the sender's simulated time\n"
	       "                          (default: when the receiver reaches its consumer)\n"
	       "  --no-dp                 leave out the data-parallel collectives\n\n"
	       "Compare with 'podplan validate --replay FILE.csv'. Exit status: 0 done, 1 an error\n"
	       "or hang, 2 bad input (a scenario that cannot be replayed here).\n",
	       pp_store_default_path());
}

static int parse(int argc, char **argv, opts *o, int *first)
{
	static const struct option lo[] = {
		{"steps", required_argument, NULL, 's'},   {"warmup", required_argument, NULL, 'w'},
		{"calibration", required_argument, NULL, 'c'}, {"db", required_argument, NULL, 'd'},
		{"csv", required_argument, NULL, 'o'},     {"op-csv", required_argument, NULL, 'O'},
		{"timeout", required_argument, NULL, 't'}, {"dry-run", no_argument, NULL, 'n'},
		{"early-recv", no_argument, NULL, 'E'},    {"no-dp", no_argument, NULL, 'N'},
		{"help", no_argument, NULL, 'h'},          {0, 0, 0, 0}};
	int ch;
	char *end;
	memset(o, 0, sizeof(*o));
	o->steps = 8;
	o->warmup = 3;
	o->timeout_s = 120;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		long v;
		switch (ch) {
		case 's':
		case 'w':
			v = strtol(optarg, &end, 10);
			if (end == optarg || *end || v < (ch == 's' ? 1 : 0) || v > MAX_STEPS / 2) {
				fprintf(stderr, "podplan-calibrate replay: --%s: found '%s', expected %d to %d\n",
					ch == 's' ? "steps" : "warmup", optarg, ch == 's', MAX_STEPS / 2);
				return 2;
			}
			*(ch == 's' ? &o->steps : &o->warmup) = (int)v;
			break;
		case 'c': o->calib = optarg; break;
		case 'd': o->db = optarg; break;
		case 'o': o->csv = optarg; break;
		case 'O': o->op_csv = optarg; break;
		case 't':
			o->timeout_s = strtod(optarg, &end);
			if (end == optarg || *end || o->timeout_s <= 0) {
				fprintf(stderr, "podplan-calibrate replay: --timeout: found '%s', expected "
					"seconds\n", optarg);
				return 2;
			}
			break;
		case 'n': o->dry = true; break;
		case 'E': o->early_recv = true; break;
		case 'N': o->no_dp = true; break;
		case 'h': help(); return -1;
		default:
			fprintf(stderr, "Try 'podplan-calibrate replay --help'.\n");
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "podplan-calibrate replay: expected a SCENARIO.json\n"
			"Try 'podplan-calibrate replay --help'.\n");
		return 2;
	}
	*first = optind;
	return 0;
}

/* Hardware of a scenario: catalog, then --calibration, else the scenario's
 * calibration section (its db, else --db, else the default store). */
static int resolve_hw(const opts *o, const pp_catalog *cat, const pp_scenario *s, pp_hw *hw,
		      pp_err *err)
{
	char db[4096] = "", prof[160] = "";
	if (o->calib) {
		const char *colon = strrchr(o->calib, ':');
		if (!colon || colon == o->calib || !colon[1])
			return pp_errf(err, PP_EINPUT, "--calibration %s: expected DB:PROFILE", o->calib);
		snprintf(db, sizeof(db), "%.*s", (int)(colon - o->calib), o->calib);
		snprintf(prof, sizeof(prof), "%s", colon + 1);
	}
	pp_hwcal *cal = pp_xmalloc(sizeof(*cal));
	int rc = pp_hwcal_init(cal, s, o->calib ? db : NULL, o->calib ? prof : NULL, o->db, err);
	if (!rc)
		rc = pp_hw_resolve(hw, cat, &s->cluster, cal, err);
	free(cal);
	return rc;
}

static int one(rctx *x, const opts *o, const pp_catalog *cat, const char *path, pp_sb *rows,
	       pp_sb *oprows, int *visible, pp_err *err)
{
	pp_scenario s;
	pp_hw hw;
	pp_result pr;
	pp_rplan plan;
	bool have_s = false, have_p = false;
	double paper = 0;
	int rc;
	pp_rplan_opts ro = {o->early_recv, o->no_dp};
	char config[192];
	memset(&plan, 0, sizeof(plan));
	if ((rc = pp_scenario_load(&s, path, cat, err)))
		goto out;
	have_s = true;
	if ((rc = resolve_hw(o, cat, &s, &hw, err)) || (rc = pp_predict(&s, &hw, NULL, &pr, err)))
		goto out;
	if (!pr.memory.fits) {
		char a[32], b[32];
		rc = pp_errf(err, PP_EINPUT, "%s: does not fit: %s per GPU of %s (the replay runs "
			     "configurations that could train here)", s.name,
			     pp_fmt_bytes(pr.memory.total_bytes, a, sizeof(a)),
			     pp_fmt_bytes(pr.memory.capacity_bytes, b, sizeof(b)));
		goto out;
	}
	if ((rc = pp_rplan_build(&plan, &s, &hw, &ro, err)))
		goto out;
	snprintf(config, sizeof(config), "%s%s%s", s.name, o->early_recv ? "[early-recv]" : "",
		 o->no_dp ? "[no-dp]" : "");
	have_p = true;
	if ((rc = pp_rplan_simulate(&plan, &paper, err)))
		goto out;
	pp_rplan_counts c;
	pp_rplan_count(&plan, 0, &c);
	printf("# %s: %d GPUs, %d communicators, %d GEMM shapes; GPU 0 issues %d GEMMs, %d memory "
	       "kernels, %d collectives, %d sends, %d receives, %d event waits per step\n", config,
	       plan.ngpus, plan.ncomms, plan.ngemms, c.gemms, c.mems, c.colls, c.sends, c.recvs,
	       c.waits);
	if (o->dry) {
		printf("%-48s predicted %9.2f ms  plan on paper %9.2f ms  (dry run)\n", config,
		       pr.step_time_s * 1e3, paper * 1e3);
		goto out;
	}
	if (*visible < 0) {
		CUDA_TRY(cudaGetDeviceCount(visible));
	}
	if (*visible != plan.ngpus) {
		rc = pp_errf(err, PP_EINPUT, "%s: the scenario has %d GPUs (cluster.num_gpus), this "
			     "machine shows %d: the replay needs them equal", s.name, plan.ngpus,
			     *visible);
		goto out;
	}
	if ((rc = ctx_start(x, plan.ngpus, err)) || (rc = setup_scenario(x, &plan, err)))
		goto out;
	rresult res = {0, 0, 0, 0};
	if ((rc = run_steps(x, &plan, o->warmup, o->steps, &res, err)))
		goto out;
	double e = (pr.step_time_s - res.med_s) / res.med_s;
	printf("%-48s predicted %9.2f ms  measured %9.2f ms (min %.2f, max %.2f, %d steps)  "
	       "error %+6.1f%%\n", config, pr.step_time_s * 1e3, res.med_s * 1e3, res.min_s * 1e3,
	       res.max_s * 1e3, res.steps, 100 * e);
	pp_rcsv_step_row(rows, &(pp_rcsv_step){.config = config, .predicted_s = pr.step_time_s,
					       .measured_s = res.med_s, .error = e,
					       .measured_min_s = res.min_s, .measured_max_s = res.max_s,
					       .steps = res.steps, .warmup = o->warmup, .plan_s = paper,
					       .profile = hw.profile[0] ? hw.profile : "catalog",
					       .scenario = path});
	if (o->op_csv)
		rc = op_stats(x, &plan, config, oprows, err);
out:
	if (x->started)
		drop_scenario(x);
	if (have_p)
		pp_rplan_release(&plan);
	if (have_s)
		pp_scenario_release(&s);
	return rc;
}

int pp_cal_replay_main(int argc, char **argv)
{
	opts o;
	int first, rc, status = 0, visible = -1, done = 0;
	pp_err err = {0};
	pp_catalog *cat = NULL;
	pp_sb rows = {0}, oprows = {0};
	rctx *x = pp_xcalloc(1, sizeof(rctx));
	if ((rc = parse(argc, argv, &o, &first))) {
		free(x);
		return rc < 0 ? 0 : rc;
	}
	x->timeout_s = o.timeout_s;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((rc = pp_catalog_load(&cat, NULL, &err))) {
		fprintf(stderr, "podplan-calibrate replay: %s\n", err.msg);
		status = pp_exit_status(rc);
		goto out;
	}
	for (int i = first; i < argc; i++) {
		if ((rc = one(x, &o, cat, argv[i], &rows, &oprows, &visible, &err))) {
			fprintf(stderr, "podplan-calibrate replay: %s\n", err.msg);
			status = status ? status : pp_exit_status(rc);
			if (rc != PP_EINPUT)
				break; /* a GPU or NCCL failure: the communicators are not to be trusted */
			continue;
		}
		done++;
		/* write as we go: a later failure keeps the replays done */
		if ((rc = pp_rcsv_append(o.csv, PP_RCSV_STEP_HEADER, &rows, &err)) ||
		    (rc = pp_rcsv_append(o.op_csv, PP_RCSV_OP_HEADER, &oprows, &err))) {
			fprintf(stderr, "podplan-calibrate replay: %s\n", err.msg);
			status = 1;
			break;
		}
	}
	if (argc - first > 1)
		printf("# %d of %d scenarios replayed\n", done, argc - first);
out:
	if (x->started) {
		/* after a failure a communicator may hold a hung kernel: abort it */
		for (int i = 0; i < x->ncomms; i++)
			for (int r = 0; r < x->comms[i].n; r++)
				(status ? ncclCommAbort : ncclCommDestroy)(x->comms[i].c[r]);
		for (int g = 0; g < x->ngpus; g++) {
			free(x->dev[g].comm);
			free(x->dev[g].crank);
		}
	}
	free(x->comms);
	free(x);
	pp_sb_release(&rows);
	pp_sb_release(&oprows);
	pp_catalog_free(cat);
	return status;
}
