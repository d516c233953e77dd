/*
 * fake.c - a backend with no GPU: a pretend pod of H200-like GPUs joined by
 * NVLink, with timings from a latency + bandwidth model. It exists so that
 * the sweep, the store writes, the verdict and a kill mid-sweep can be
 * tested on any machine (podplan-calibrate --fake). Its figures mean
 * nothing about real hardware.
 *
 * PODPLAN_FAKE_FAIL=canary makes the canary fail (a wrong all-reduce sum),
 * for testing that path.
 *
 * Decode-shaped GEMMs take max(flops / rate, bytes / FAKE_DECODE_BPS) plus
 * the launch; a sustained run starts at FAKE_BOOST_MHZ and settles
 * exponentially (time constant FAKE_SETTLE_S) to FAKE_CAPPED_MHZ at the
 * power limit, the rate in proportion to the clock, so that a test knows
 * the sustained fraction to expect: FAKE_CAPPED_MHZ / FAKE_BOOST_MHZ.
 */
#include "backend.h"
#include "plan.h"
#include "core/jsonout.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct fake {
	double delay_s;
	int group;
	unsigned tick;
} fake;

/* Model figures: roughly what an H200 pair measures; see the file comment. */
#define FAKE_BUSBW_BPS 3.7e11
#define FAKE_COLL_LAT_S 12e-6
#define FAKE_GEMM_FLOPS 7.7e14
#define FAKE_HBM_BPS 4.3e12
#define FAKE_PCIE_BPS 5.3e10
#define FAKE_DISK_BPS 2.0e9
#define FAKE_DECODE_BPS 3.6e12
#define FAKE_BOOST_MHZ 1980.0
#define FAKE_CAPPED_MHZ 1755.0
#define FAKE_SETTLE_S 0.5
#define FAKE_POWER_LIMIT_W 700.0

static void nap(const fake *f)
{
	if (f->delay_s <= 0)
		return;
	struct timespec ts = {(time_t)f->delay_s, (long)((f->delay_s - (double)(time_t)f->delay_s) * 1e9)};
	nanosleep(&ts, NULL);
}

/* t with a small deterministic spread over the repeats. */
static void fill(fake *f, double t, const pp_cal_iters *it, pp_cal_stats *s)
{
	double v[64];
	int n = it->repeats < 64 ? it->repeats : 64;
	if (n < 1)
		n = 1;
	for (int i = 0; i < n; i++)
		v[i] = t * (1.0 + 0.004 * (double)((f->tick++ * 7u) % 5u) - 0.008);
	pp_cal_stats_from(v, n, 1, s);
	s->wrong = it->check ? 0 : -1;
}

static int f_describe(pp_cal_backend *b, pp_cal_host *h, pp_err *err)
{
	(void)err;
	memset(h, 0, sizeof(*h));
	snprintf(h->host, sizeof(h->host), "fake-host");
	snprintf(h->gpu_name, sizeof(h->gpu_name), "NVIDIA H200");
	snprintf(h->driver, sizeof(h->driver), "fake");
	snprintf(h->cuda, sizeof(h->cuda), "fake");
	snprintf(h->nccl, sizeof(h->nccl), "fake");
	h->ngpus = b->ngpus;
	h->nhosts = 1;
	h->cpu_cores = 32;
	h->mem_bytes = (int64_t)256 << 30;
	h->nvlink_all_pairs = true;
	cJSON *t = pp_json_obj(NULL, NULL);
	pp_json_str(t, "links_from", "fake backend");
	cJSON *links = pp_json_arr(t, "links");
	for (int i = 0; i < b->ngpus && i < PP_CAL_MAX_GPUS; i++) {
		h->nvlinks_active[i] = 18;
		cJSON *row = pp_json_arr(links, NULL);
		for (int j = 0; j < b->ngpus; j++)
			pp_json_str(row, NULL, i == j ? "X" : "NV18");
	}
	pp_json_arr(t, "nics");
	h->topology_json = pp_json_finish(t, false);
	return 0;
}

static int f_prepare(pp_cal_backend *b, size_t cs, size_t cr, size_t ga, size_t gb, size_t gd,
		     size_t mem, pp_err *err)
{
	(void)b, (void)cs, (void)cr, (void)ga, (void)gb, (void)gd, (void)mem, (void)err;
	return 0;
}

static int f_group(pp_cal_backend *b, int nranks, double timeout_s, pp_err *err)
{
	fake *f = b->impl;
	const char *fail = getenv("PODPLAN_FAKE_FAIL");
	(void)timeout_s;
	if (nranks < 2 || nranks > b->ngpus)
		return pp_errf(err, PP_EINTERNAL, "fake: a group of %d of %d GPUs", nranks, b->ngpus);
	if (fail && !strcmp(fail, "canary"))
		return pp_errf(err, PP_EIO, "canary failed on the communicator of %d GPUs: rank 1 "
			       "summed %d, expected %d (fake failure)", nranks, nranks * (nranks - 1) / 2 + 1,
			       nranks * (nranks - 1) / 2);
	f->group = nranks;
	nap(f);
	return 0;
}

static int f_coll(pp_cal_backend *b, const pp_cal_coll_req *r, const pp_cal_iters *it,
		  pp_cal_stats *s, pp_err *err)
{
	fake *f = b->impl;
	if (r->nranks != f->group)
		return pp_errf(err, PP_EINTERNAL, "fake: collective on %d ranks, communicator has %d",
			       r->nranks, f->group);
	double t = FAKE_COLL_LAT_S +
		   (double)r->bytes * pp_cal_busbw_factor(r->op, r->nranks) / FAKE_BUSBW_BPS;
	fill(f, t, it, s);
	nap(f);
	return 0;
}

static int f_gemm(pp_cal_backend *b, const pp_cal_gemm_req *r, const pp_cal_iters *it,
		  pp_cal_stats *per, pp_err *err)
{
	fake *f = b->impl;
	(void)err;
	double scale = r->dtype == PP_DT_FP8 ? 1.7 : r->dtype == PP_DT_TF32 ? 0.5 : 1.0;
	double t = 2.0 * (double)r->m * (double)r->n * (double)r->k / (FAKE_GEMM_FLOPS * scale) + 6e-6;
	if (r->decode) {
		double ib = (double)pp_cal_gemm_in_bytes(r->dtype);
		double bytes = ((double)r->m * (double)r->k + (double)r->n * (double)r->k) * ib +
			       (double)r->m * (double)r->n * (double)pp_cal_gemm_out_bytes(r->dtype);
		double tc = t - 6e-6, tm = bytes / FAKE_DECODE_BPS;
		t = (tc > tm ? tc : tm) + 6e-6;
	}
	for (int d = 0; d < b->ngpus && d < PP_CAL_MAX_GPUS; d++) {
		if (r->device >= 0 && d != r->device)
			continue;
		fill(f, t, it, &per[d]);
		snprintf(per[d].note, sizeof(per[d].note), "fake");
	}
	nap(f);
	return 0;
}

static int f_mem(pp_cal_backend *b, pp_mem_kind k, size_t bytes, const pp_cal_iters *it,
		 pp_cal_stats *per, pp_err *err)
{
	fake *f = b->impl;
	(void)err;
	double t = k <= PP_MEM_D2D_KERNEL ? 3e-6 + 2.0 * (double)bytes / FAKE_HBM_BPS
					  : 8e-6 + (double)bytes / FAKE_PCIE_BPS;
	for (int d = 0; d < b->ngpus && d < PP_CAL_MAX_GPUS; d++)
		fill(f, t, it, &per[d]);
	nap(f);
	return 0;
}

/* The clock t seconds into back-to-back load. */
static double fake_clock_mhz(double t)
{
	return FAKE_CAPPED_MHZ + (FAKE_BOOST_MHZ - FAKE_CAPPED_MHZ) * exp(-t / FAKE_SETTLE_S);
}

static int f_sustained(pp_cal_backend *b, const pp_cal_sustain_req *r, const pp_cal_iters *it,
		       pp_cal_sustain_res *per, pp_err *err)
{
	fake *f = b->impl;
	(void)err;
	double scale = r->dtype == PP_DT_FP8 ? 1.7 : r->dtype == PP_DT_TF32 ? 0.5 : 1.0;
	double t1 = 2.0 * (double)r->m * (double)r->n * (double)r->k / (FAKE_GEMM_FLOPS * scale);
	int batch = (int)lround(r->interval_s / t1);
	batch = batch < 1 ? 1 : batch;
	for (int d = 0; d < b->ngpus && d < PP_CAL_MAX_GPUS; d++) {
		pp_cal_sustain_res *s = &per[d];
		memset(s, 0, sizeof(*s));
		fill(f, t1, it, &s->burst);
		s->power_limit_w = FAKE_POWER_LIMIT_W;
		s->max_sm_clock_mhz = FAKE_BOOST_MHZ;
		snprintf(s->note, sizeof(s->note), "fake");
		double t = 0;
		while (t < r->seconds && s->nsamples < PP_CAL_MAX_SAMPLES) {
			pp_cal_sample *q = &s->samples[s->nsamples++];
			/* the rate follows the clock at the interval's start */
			double mhz = fake_clock_mhz(t);
			q->gemms = batch;
			q->interval_s = batch * t1 * FAKE_BOOST_MHZ / mhz;
			t += q->interval_s;
			q->t_s = t;
			q->sm_clock_mhz = mhz;
			q->mem_clock_mhz = 3201;
			q->power_w = mhz < FAKE_BOOST_MHZ - 1 ? FAKE_POWER_LIMIT_W : 650;
			q->temp_c = 40 + 20 * (1 - exp(-t / 5));
			q->reasons = mhz < FAKE_BOOST_MHZ - 1 ? 0x4 : 0; /* sw_power_cap */
		}
	}
	nap(f);
	return 0;
}

static int f_storage(pp_cal_backend *b, const pp_cal_storage_req *r, pp_cal_stats *s, pp_err *err)
{
	fake *f = b->impl;
	pp_cal_iters it = {.repeats = r->repeats, .check = true};
	(void)err;
	fill(f, (double)r->bytes / FAKE_DISK_BPS, &it, s);
	snprintf(s->note, sizeof(s->note), "fake");
	nap(f);
	return 0;
}

static void f_close(pp_cal_backend *b)
{
	if (!b)
		return;
	free(b->impl);
	free(b);
}

static const pp_cal_backend_ops fake_ops = {
	.name = "fake",
	.describe = f_describe,
	.prepare = f_prepare,
	.group = f_group,
	.collective = f_coll,
	.gemm = f_gemm,
	.mem = f_mem,
	.sustained = f_sustained,
	.storage = f_storage,
	.abort_all = NULL,
	.close = f_close,
};

int pp_cal_fake_new(int ngpus, double delay_s, pp_cal_backend **out, pp_err *err)
{
	if (ngpus < 1 || ngpus > PP_CAL_MAX_GPUS)
		return pp_errf(err, PP_EINPUT, "--fake: %d GPUs; expected 1 to %d", ngpus,
			       PP_CAL_MAX_GPUS);
	pp_cal_backend *b = pp_xcalloc(1, sizeof(*b));
	fake *f = pp_xcalloc(1, sizeof(*f));
	f->delay_s = delay_s;
	b->ops = &fake_ops;
	b->ngpus = ngpus;
	b->rank = 0;
	b->nprocs = 1;
	b->root = true;
	b->impl = f;
	*out = b;
	return 0;
}
