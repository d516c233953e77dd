/* overlap.c - see overlap.h. */
#include "overlap.h"
#include "core/fmt.h"
#include "backend.h"
#include "calib/calibdb.h"
#include "coll.h"
#include "cudacheck.h"
#include "gemm.h"
#include "kernels.h"
#include "plan.h"
#include "core/jsonout.h"
#include "core/store.h"
#include "stream.h"
#include "core/util.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WORKSPACE ((size_t)32 << 20)
#define OPERAND ((size_t)128 << 20)       /* A, B, D: the largest shape below fits */
#define COPY_RING ((size_t)512 << 20)     /* copies rotate through more than L2 */
#define COLL_MAX ((size_t)512 << 20)
#define MAX_GPUS 16

/* Compute that runs under a data-parallel collective in training: the
 * linear layers of the validation models' sizes, and an elementwise copy. */
static const struct {
	const char *name;
	int64_t m, n, k;        /* 0: a copy of `copy` bytes */
	size_t copy;
} computes[] = {
	{"gemm 2048x9216x2304 bf16", 2048, 9216, 2304, 0},
	{"gemm 4096x3072x12288 bf16", 4096, 3072, 12288, 0},
	{"gemm 4096x11008x4096 bf16", 4096, 11008, 4096, 0},
	{"copy 64 MiB", 0, 0, 0, (size_t)64 << 20},
};
static const pp_coll colls[] = {PP_COLL_ALL_REDUCE, PP_COLL_ALL_GATHER, PP_COLL_REDUCE_SCATTER};
static const size_t sizes[] = {(size_t)16 << 20, (size_t)128 << 20, (size_t)512 << 20};

typedef struct odev {
	int cuda, sms;
	cudaStream_t cs, ns;
	cublasLtHandle_t lt;
	void *ws, *A, *B, *D, *src, *dst, *cbuf;
	size_t off;
	ncclComm_t comm;
	cudaEvent_t e0, e1, ej;
	pp_gemm_runner run;
} odev;

typedef struct octx {
	int n;
	odev d[MAX_GPUS];
	double timeout_s;
} octx;

static int start(octx *x, pp_err *err)
{
	int rc = 0, devs[MAX_GPUS];
	for (int g = 0; g < x->n; g++) {
		odev *d = &x->d[g];
		d->cuda = devs[g] = g;
		CUDA_TRY(cudaSetDevice(g));
		CUDA_TRY(cudaDeviceGetAttribute(&d->sms, cudaDevAttrMultiProcessorCount, g));
		CUDA_TRY(cudaStreamCreateWithFlags(&d->cs, cudaStreamNonBlocking));
		CUDA_TRY(cudaStreamCreateWithFlags(&d->ns, cudaStreamNonBlocking));
		CUDA_TRY(cudaEventCreate(&d->e0));
		CUDA_TRY(cudaEventCreate(&d->e1));
		CUDA_TRY(cudaEventCreateWithFlags(&d->ej, cudaEventDisableTiming));
		CUBLAS_TRY(cublasLtCreate(&d->lt));
		CUDA_TRY(cudaMalloc(&d->ws, WORKSPACE));
		CUDA_TRY(cudaMalloc(&d->A, OPERAND));
		CUDA_TRY(cudaMalloc(&d->B, OPERAND));
		CUDA_TRY(cudaMalloc(&d->D, OPERAND));
		CUDA_TRY(cudaMalloc(&d->src, COPY_RING));
		CUDA_TRY(cudaMalloc(&d->dst, COPY_RING));
		CUDA_TRY(cudaMalloc(&d->cbuf, COLL_MAX));
		CUDA_TRY(pp_k_fill_random(d->A, OPERAND / 2, PP_K_BF16, 3 + (uint64_t)g, d->cs));
		CUDA_TRY(pp_k_fill_random(d->B, OPERAND / 2, PP_K_BF16, 5 + (uint64_t)g, d->cs));
		CUDA_TRY(pp_k_fill_random(d->src, COPY_RING / 4, PP_K_F32, 7, d->cs));
		CUDA_TRY(cudaMemsetAsync(d->cbuf, 0, COLL_MAX, d->cs));
		CUDA_TRY(cudaStreamSynchronize(d->cs));
	}
	ncclComm_t c[MAX_GPUS];
	NCCL_TRY(ncclCommInitAll(c, x->n, devs));
	for (int g = 0; g < x->n; g++)
		x->d[g].comm = c[g];
out:
	return rc;
}

static int compute_one(odev *d, int ci, pp_err *err)
{
	int rc = 0;
	if (computes[ci].m)
		return pp_gemm_run(&d->run, d->A, d->B, d->D, d->cs, err);
	size_t b = computes[ci].copy;
	if (d->off + b > COPY_RING)
		d->off = 0;
	CUDA_TRY(pp_k_copy((char *)d->dst + d->off, (char *)d->src + d->off, b, d->sms * 4, d->cs));
	d->off += b;
out:
	return rc;
}

/* ng compute ops on every GPU's compute stream and nc collectives on its
 * communication stream, started together; *t_s = the slowest GPU's time
 * from the start to both done. */
static int batch(octx *x, int ci, int ng, const pp_cal_coll_req *q, int nc, double *t_s,
		 pp_err *err)
{
	int rc = 0;
	cudaStream_t ss[2 * MAX_GPUS];
	for (int g = 0; g < x->n; g++) {
		odev *d = &x->d[g];
		CUDA_TRY(cudaSetDevice(d->cuda));
		CUDA_TRY(cudaEventRecord(d->e0, d->cs));
		CUDA_TRY(cudaStreamWaitEvent(d->ns, d->e0, 0));
	}
	for (int i = 0; i < (ng > nc ? ng : nc); i++) {
		if (i < nc) {
			NCCL_TRY(ncclGroupStart());
			for (int g = 0; g < x->n && !rc; g++) {
				pp_coll_bufs b;
				pp_coll_bufs_of(q, g, x->d[g].cbuf, x->d[g].cbuf, &b);
				rc = pp_coll_issue(q, g, x->d[g].comm, x->d[g].ns, &b, err);
			}
			NCCL_TRY(ncclGroupEnd());
			if (rc)
				goto out;
		}
		if (i < ng)
			for (int g = 0; g < x->n && !rc; g++) {
				CUDA_TRY(cudaSetDevice(x->d[g].cuda));
				rc = compute_one(&x->d[g], ci, err);
			}
		if (rc)
			goto out;
	}
	for (int g = 0; g < x->n; g++) {
		odev *d = &x->d[g];
		CUDA_TRY(cudaSetDevice(d->cuda));
		CUDA_TRY(cudaEventRecord(d->ej, d->ns));
		CUDA_TRY(cudaStreamWaitEvent(d->cs, d->ej, 0));
		CUDA_TRY(cudaEventRecord(d->e1, d->cs));
		ss[g] = d->cs;
	}
	for (int g = 0; g < x->n; g++) {
		CUDA_TRY(cudaSetDevice(x->d[g].cuda));
		if ((rc = pp_streams_wait(&ss[g], 1, NULL, x->timeout_s, "an overlap batch", err)))
			goto out;
	}
	*t_s = 0;
	for (int g = 0; g < x->n; g++) {
		float ms = 0;
		CUDA_TRY(cudaSetDevice(x->d[g].cuda));
		CUDA_TRY(cudaEventElapsedTime(&ms, x->d[g].e0, x->d[g].e1));
		if (ms * 1e-3 > *t_s)
			*t_s = ms * 1e-3;
	}
out:
	return rc;
}

static int cmp_d(const void *a, const void *b)
{
	double p = *(const double *)a, q = *(const double *)b;
	return p < q ? -1 : p > q;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_d);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct pair_res {
	double tg, tc, tb, tb_min, tb_max;
	int ng, nc;
} pair_res;

static int pair(octx *x, int ci, const pp_cal_coll_req *q, int reps, pair_res *r, pp_err *err)
{
	int rc = 0;
	double t1g, t1c, g[64], c[64], b[64], w;
	if ((rc = batch(x, ci, 10, q, 0, &t1g, err)) || (rc = batch(x, ci, 0, q, 3, &t1c, err)))
		return rc;
	t1g /= 10;
	t1c /= 3;
	/* collectives for about 2 ms, compute about twice as long */
	int nc = (int)lround(2e-3 / t1c);
	nc = nc < 1 ? 1 : nc;
	int ng = (int)ceil(2.0 * nc * t1c / t1g);
	ng = ng < 1 ? 1 : ng;
	if ((rc = batch(x, ci, ng, q, nc, &w, err)))
		return rc;
	for (int i = 0; i < reps && !rc; i++) {
		if (!(rc = batch(x, ci, ng, q, 0, &g[i], err)) && !(rc = batch(x, ci, 0, q, nc, &c[i], err)))
			rc = batch(x, ci, ng, q, nc, &b[i], err);
	}
	if (rc)
		return rc;
	r->ng = ng;
	r->nc = nc;
	r->tg = median(g, reps);
	r->tc = median(c, reps);
	r->tb = median(b, reps);
	r->tb_min = b[0];
	r->tb_max = b[reps - 1];
	return 0;
}

static void help(void)
{
	printf("usage: podplan-calibrate overlap [--db DB] [--repeats N] [--label TEXT]\n\n"
	       "Measures how much of a collective hides behind compute running beside it, on every\n"
	       "visible GPU at once (one process, ncclCommInitAll): for each pair of a compute batch\n"
	       "(bf16 GEMMs of transformer shapes, or a 64 MiB copy kernel) and a collective batch\n"
	       "(all_reduce, all_gather, reduce_scatter of 16 MiB, 128 MiB, 512 MiB), the compute\n"
	       "alone (Tg), the collectives alone (Tc) and both started together on two streams\n"
	       "(Tboth), the slowest GPU, the median of the repeats. Stores one row of kind\n"
	       "\"overlap\" per pair in a calibration run of its own; 'podplan fit' turns them into\n"
	       "the profile's overlap efficiency, the median of (Tc + Tg - Tboth) / min(Tc, Tg).\n\n"
	       "  --db DB        the store (default $PODPLAN_DB, else %s)\n"
	       "  --repeats N    repeats per pair (default 5)\n"
	       "  --label TEXT   a note stored with the run\n"
	       "  --timeout S    a batch longer than S seconds is a hang (default 60)\n", pp_store_default_path());
}

typedef struct overlap_args {
	const char *db, *label;
	int reps;                /* repeats per pair */
	double timeout_s;        /* a batch longer than this is a hang */
} overlap_args;

/* Returns 0 to run, -1 after --help, or 2 (the exit status) after a
 * message for a bad option. */
static int parse_args(int argc, char **argv, overlap_args *a)
{
	static const struct option lo[] = {{"db", required_argument, NULL, 'd'},
					   {"repeats", required_argument, NULL, 'r'},
					   {"label", required_argument, NULL, 'l'},
					   {"timeout", required_argument, NULL, 't'},
					   {"help", no_argument, NULL, 'h'},
					   {0, 0, 0, 0}};
	int ch;
	*a = (overlap_args){.reps = 5, .timeout_s = 60};
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		char *end;
		switch (ch) {
		case 'd': a->db = optarg; break;
		case 'l': a->label = optarg; break;
		case 'r':
			a->reps = (int)strtol(optarg, &end, 10);
			if (end == optarg || *end || a->reps < 1 || a->reps > 64) {
				fprintf(stderr, "podplan-calibrate overlap: --repeats: expected 1 to 64\n");
				return 2;
			}
			break;
		case 't':
			a->timeout_s = strtod(optarg, &end);
			if (end == optarg || *end || a->timeout_s <= 0) {
				fprintf(stderr, "podplan-calibrate overlap: --timeout: expected seconds\n");
				return 2;
			}
			break;
		case 'h': help(); return -1;
		default:
			fprintf(stderr, "Try 'podplan-calibrate overlap --help'.\n");
			return 2;
		}
	}
	return 0;
}

/* The calibration run of the overlap rows, with the machine's provenance,
 * and the header line. */
static int begin_run(const octx *x, const overlap_args *a, int argc, char **argv, pp_store **st,
		     int64_t *run, pp_err *err)
{
	int rc = 0;
	struct cudaDeviceProp prop;
	char host[256] = "", cmd[512] = "podplan-calibrate overlap", ncclv[32], *extra = NULL;
	int drv = 0, rtv = 0, nv = 0;
	CUDA_TRY(cudaGetDeviceProperties(&prop, 0));
	cudaDriverGetVersion(&drv);
	cudaRuntimeGetVersion(&rtv);
	ncclGetVersion(&nv);
	if (gethostname(host, sizeof(host) - 1))
		host[0] = '\0';
	for (int i = 1; i < argc; i++)
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %s", argv[i]);
	char dv[32], cv[32];
	snprintf(dv, sizeof(dv), "CUDA driver %d.%d", drv / 1000, drv % 1000 / 10);
	snprintf(cv, sizeof(cv), "%d.%d", rtv / 1000, rtv % 1000 / 10);
	snprintf(ncclv, sizeof(ncclv), "%d.%d.%d", nv / 10000, nv / 100 % 100, nv % 100);
	cJSON *ex = pp_json_obj(NULL, NULL);
	pp_json_str(ex, "what", "overlap");
	pp_json_int(ex, "repeats", a->reps);
	pp_json_str(ex, "label", a->label ? a->label : "");
	extra = pp_json_finish(ex, false);
	pp_calib_run r;
	pp_calib_run_init(&r);
	r.source = "podplan-calibrate";
	r.command_line = cmd;
	r.host = host;
	r.gpu_name = prop.name;
	r.gpu_count = x->n;
	r.driver_version = dv;
	r.cuda_version = cv;
	r.nccl_version = ncclv;
	r.extra_json = extra;
	if ((rc = pp_store_open(st, a->db, err)) || (rc = pp_calibdb_begin_run(*st, &r, run, err)))
		goto out;
	printf("# podplan-calibrate overlap: run %lld in %s; %d x %s, NCCL %s; %d repeats\n",
	       (long long)*run, pp_store_path(*st), x->n, prop.name, ncclv, a->reps);
out:
	free(extra);
	return rc;
}

/* The share of the shorter side hidden, as measured (may leave [0, 1]). */
static double hidden_of(const pair_res *pr)
{
	return (pr->tc + pr->tg - pr->tb) / (pr->tc < pr->tg ? pr->tc : pr->tg);
}

static void print_pair(size_t ci, pp_coll op, const pp_cal_coll_req *q, const pair_res *pr)
{
	char sz[32];
	printf("%-28s %-15s %9s %10.1f %10.1f %10.1f %6.0f%%\n", computes[ci].name, pp_coll_names[op],
	       pp_fmt_bytes((double)q->bytes, sz, sizeof(sz)), pr->tg * 1e6, pr->tc * 1e6, pr->tb * 1e6,
	       100 * hidden_of(pr));
}

/* One row of kind "overlap": time_us = Tboth; extra_json the parts. */
static int store_pair(pp_store *st, int64_t run, int nranks, size_t ci, pp_coll op,
		      const pp_cal_coll_req *q, const pair_res *pr, int reps, pp_err *err)
{
	cJSON *x = pp_json_obj(NULL, NULL);
	pp_json_str(x, "compute", computes[ci].name);
	pp_json_fixed(x, "compute_us", pr->tg * 1e6, 3);
	pp_json_fixed(x, "comm_us", pr->tc * 1e6, 3);
	pp_json_fixed(x, "both_us", pr->tb * 1e6, 3);
	pp_json_int(x, "n_compute", pr->ng);
	pp_json_int(x, "n_comm", pr->nc);
	pp_json_int(x, "copy_bytes", (int64_t)computes[ci].copy);
	char *ex = pp_json_finish(x, false);
	pp_calib_meas m;
	pp_calib_meas_init(&m);
	m.kind = "overlap";
	m.op = pp_coll_names[op];
	m.dtype = "bfloat16";
	m.nranks = nranks;
	m.bytes = (int64_t)q->bytes;
	m.inplace = 1;
	if (computes[ci].m) {
		m.m = computes[ci].m;
		m.n = computes[ci].n;
		m.k = computes[ci].k;
	}
	m.time_us = pr->tb * 1e6;
	m.time_min_us = pr->tb_min * 1e6;
	m.time_max_us = pr->tb_max * 1e6;
	m.repeats = reps;
	m.scope = "nvlink";
	m.extra_json = ex;
	int rc = pp_calibdb_add(st, run, &m, NULL, err);
	free(ex);
	return rc;
}

/* Every pair of compute ci with a collective batch: measured, printed,
 * stored; each pair's hidden share (clamped to [0, 1]) appended to effs
 * while it has room (64). */
static int run_compute(octx *x, size_t ci, int reps, pp_store *st, int64_t run, double *effs,
		       int *ne, pp_err *err)
{
	int rc = 0;
	if (computes[ci].m) {
		for (int g = 0; g < x->n && !rc; g++) {
			CUDA_TRY(cudaSetDevice(x->d[g].cuda));
			rc = pp_gemm_runner_init(&x->d[g].run, x->d[g].lt, x->d[g].ws, WORKSPACE, PP_DT_BF16,
						 computes[ci].m, computes[ci].n, computes[ci].k, err);
		}
		if (rc)
			goto out;
	}
	for (size_t oi = 0; oi < PP_ARRAY_LEN(colls) && !rc; oi++)
		for (size_t si = 0; si < PP_ARRAY_LEN(sizes) && !rc; si++) {
			pp_cal_coll_req q;
			memset(&q, 0, sizeof(q));
			pp_cal_coll_layout(colls[oi], PP_CDT_BF16, sizes[si], x->n, &q);
			q.inplace = true;
			pair_res pr;
			if ((rc = pair(x, (int)ci, &q, reps, &pr, err)))
				break;
			double hid = hidden_of(&pr);
			if (*ne < 64)
				effs[(*ne)++] = hid < 0 ? 0 : hid > 1 ? 1 : hid;
			print_pair(ci, colls[oi], &q, &pr);
			rc = store_pair(st, run, x->n, ci, colls[oi], &q, &pr, reps, err);
		}
	if (computes[ci].m)
		for (int g = 0; g < x->n; g++)
			pp_gemm_runner_release(&x->d[g].run);
out:
	return rc;
}

int pp_cal_overlap_main(int argc, char **argv)
{
	overlap_args a;
	int rc = 0, status = 0;
	pp_err e = {0}, *err = &e;
	pp_store *st = NULL;
	int64_t run = 0;
	bool open_run = false;
	double effs[64];
	int ne = 0;
	if ((rc = parse_args(argc, argv, &a)))
		return rc < 0 ? 0 : rc;
	octx *x = pp_xcalloc(1, sizeof(octx));
	x->timeout_s = a.timeout_s;
	setvbuf(stdout, NULL, _IOLBF, 0);
	CUDA_TRY(cudaGetDeviceCount(&x->n));
	if (x->n < 2 || x->n > MAX_GPUS) {
		rc = pp_errf(err, PP_EINPUT, "overlap needs 2 to %d GPUs, found %d", MAX_GPUS, x->n);
		goto out;
	}
	if ((rc = start(x, err)) || (rc = begin_run(x, &a, argc, argv, &st, &run, err)))
		goto out;
	open_run = true;
	printf("%-28s %-15s %9s %10s %10s %10s %7s\n", "compute", "collective", "size", "Tg (us)",
	       "Tc (us)", "Tboth (us)", "hidden");
	for (size_t ci = 0; ci < PP_ARRAY_LEN(computes) && !rc; ci++)
		rc = run_compute(x, ci, a.reps, st, run, effs, &ne, err);
	if (rc)
		goto out;
	printf("# median share hidden over %d pairs: %.0f%% ('podplan fit' stores it as the "
	       "profile's overlap efficiency)\n", ne, 100 * median(effs, ne));
	rc = pp_calibdb_end_run(st, run, "complete", NULL, err);
	open_run = false;
out:
	if (rc) {
		fprintf(stderr, "podplan-calibrate overlap: %s\n", err->msg);
		status = pp_exit_status(rc);
		if (open_run) {
			pp_err e2 = {0};
			pp_calibdb_end_run(st, run, "failed", NULL, &e2);
		}
	}
	for (int g = 0; g < x->n && g < MAX_GPUS; g++)
		if (x->d[g].comm)
			(status ? ncclCommAbort : ncclCommDestroy)(x->d[g].comm);
	pp_store_close(st);
	free(x);
	return status;
}
