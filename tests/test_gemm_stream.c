/*
 * test_gemm_stream.c - the GEMM streaming figures of models/kernels.json
 * (hopper: gemm_stream_bw_fraction, gemm_stream_latency_us) against the
 * measurement they come from, models/calibrations/serving-launch-h200.txt
 * (24 bf16 GEMMs on one H200, M = 1-4096, PyTorch):
 *  - the fit itself, redone here by least squares on the memory-bound
 *    points (M <= 32: time = a + bytes / B, the tensor cores idle): the
 *    catalog's bandwidth is B / 4.8 TB/s and its latency a less the
 *    per-kernel overhead the model adds to every kernel;
 *  - pp_gemm_time against every measured point: the memory-bound ones
 *    within 5%, all but the one where cuBLAS picks a slow kernel (M = 128,
 *    N = 28672) within 15%, and an rms error below the plain copy-
 *    bandwidth roofline's (what the model did before the figures). Near
 *    the ridge (M = 256) the model, max(compute, memory), is up to 15%
 *    fast: the kernels overlap loads and math imperfectly there, which the
 *    2x H200 training replays (M >= 2048) do not show, so no blend of the
 *    two sides is modelled.
 * The numbers are this file's regression, not the program's output.
 */
#include "engine/compute.h"
#include "harness.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MEAS "models/calibrations/serving-launch-h200.txt"

typedef struct pt {
	double m, k, n, us;
} pt;

static int load(pt *p, int max)
{
	FILE *f = fopen(MEAS, "r");
	if (!f)
		return -1;
	char line[256];
	int n = 0;
	while (fgets(line, sizeof(line), f) && n < max) {
		pt q;
		if (sscanf(line, "GEMM M=%lf K=%lf N=%lf us=%lf", &q.m, &q.k, &q.n, &q.us) == 4)
			p[n++] = q;
	}
	fclose(f);
	return n;
}

static double bytes_of(const pt *q)
{
	return 2.0 * (q->m * q->k + q->k * q->n + q->m * q->n); /* bf16 in and out */
}

static int h200(pp_hw *hw)
{
	pp_scenario s;
	int rc = tu_scenario("{\"name\": \"t\", \"model\": {\"preset\": \"llama3-8b\"}, \"cluster\": "
			     "{\"gpu\": \"h200\", \"num_gpus\": 1}}", &s, hw);
	pp_scenario_release(&s);
	return rc;
}

static void fit(void)
{
	pt p[64];
	int n = load(p, 64);
	CHECK(n == 24);
	pp_hw hw;
	if (n < 24 || h200(&hw)) {
		CHECK(0);
		return;
	}
	/* least squares t = a + x / B over the memory-bound points */
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (p[i].m > 32)
			continue;
		double x = bytes_of(&p[i]), y = p[i].us * 1e-6;
		sx += x, sy += y, sxx += x * x, sxy += x * y;
		k++;
	}
	CHECK(k == 9);
	double slope = (k * sxy - sx * sy) / (k * sxx - sx * sx), a = (sy - slope * sx) / k;
	double B = 1.0 / slope;
	pp_t_diag("memory-bound GEMMs: a = %.2f us, B = %.3f TB/s (%.3f of 4.8)", a * 1e6, B / 1e12,
		  B / 4.8e12);
	CHECK_NEAR(hw.gemm_stream_Bps, B, 0.005);
	CHECK(fabs(hw.gemm_stream_lat_s + hw.kernel_overhead_s - a) < 0.1e-6);
}

static void model(void)
{
	pt p[64];
	int n = load(p, 64);
	pp_hw hw;
	if (n < 24 || h200(&hw)) {
		CHECK(0);
		return;
	}
	pp_hw old = hw; /* the roofline at the copy bandwidth, no stream latency */
	old.gemm_stream_Bps = 0;
	old.gemm_stream_lat_s = 0;
	double ss = 0, ss_old = 0;
	int used = 0;
	for (int i = 0; i < n; i++) {
		double t = pp_gemm_time(&hw, PP_DT_BF16, p[i].m, p[i].n, p[i].k, 1, 2.0) * 1e6;
		double t0 = pp_gemm_time(&old, PP_DT_BF16, p[i].m, p[i].n, p[i].k, 1, 2.0) * 1e6;
		double e = t / p[i].us - 1, e0 = t0 / p[i].us - 1;
		if (p[i].m == 128 && p[i].n == 28672)
			continue; /* cuBLAS's slow pick: 209 us, slower than M = 256 */
		if (p[i].m <= 32 && fabs(e) > 0.05)
			pp_t_diag("M=%.0f K=%.0f N=%.0f: %+.1f%%", p[i].m, p[i].k, p[i].n, 100 * e);
		CHECK(p[i].m > 32 || fabs(e) <= 0.05);
		CHECK(fabs(e) <= 0.15);
		ss += e * e;
		ss_old += e0 * e0;
		used++;
	}
	double rms = sqrt(ss / used), rms_old = sqrt(ss_old / used);
	pp_t_diag("%d GEMMs: rms %.1f%% (copy-bandwidth roofline %.1f%%)", used, 100 * rms,
		  100 * rms_old);
	CHECK(rms < rms_old);
	CHECK(rms <= 0.075);
}

int main(void)
{
	RUN(fit);
	RUN(model);
	return pp_t_done("test_gemm_stream");
}
