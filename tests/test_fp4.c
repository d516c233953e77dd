/*
 * test_fp4.c - the block-scaled FP4 serving precisions (nvfp4, mxfp4)
 * against values derived without podplan:
 *  - bytes an element from the formats' definitions: NVFP4 4 bits + an
 *    8-bit E4M3 scale per 16 elements = 4.5 bits (NVIDIA's NVFP4 blog,
 *    2025-06-24); MXFP4 4 bits + an 8-bit E8M0 scale per 32 = 4.25 bits
 *    (OCP MX v1.0);
 *  - Llama-2-70B's weights on one B200 (NVFP4) and one MI355X (MXFP4),
 *    counted by hand from the model's shapes (80 layers of hidden 8192,
 *    8 KV heads of 128, FFN 28672, vocabulary 32000; the embedding, the
 *    head and the final norm in bf16);
 *  - one large FP4 GEMM's time on B200 by hand: 2mnk over the dense FP4
 *    peak (9,000 TFLOP/s, klockwood_b200) times the GEMM share, which for
 *    FP4 is Blackwell's fp8 MAMF share (0.763, kernels.json) where none is
 *    published, on a shape of whole tiles and whole waves; GB200 takes its
 *    own fp8 share (0.723, gpus.json) the same way;
 *  - refusals: NVFP4 on H100 and MXFP4 on MI300X (no FP4 tensor cores),
 *    NVFP4 on MI355X (CDNA 4 has MXFP4 only), FP4 for training; each exit
 *    2 naming the GPU or the JSON path.
 */
#include "engine/compute.h"
#include "harness.h"
#include "serve/servesim.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void bytes_per_element(void)
{
	CHECK_NEAR(pp_dtype_bytes(PP_DT_NVFP4), 4.5 / 8, 1e-15);
	CHECK_NEAR(pp_dtype_bytes(PP_DT_MXFP4), 4.25 / 8, 1e-15);
	CHECK(pp_dtype_is_fp4(PP_DT_NVFP4) && pp_dtype_is_fp4(PP_DT_MXFP4));
	CHECK(!pp_dtype_is_fp4(PP_DT_FP8));
	CHECK(pp_dtype_attn(PP_DT_NVFP4) == PP_DT_BF16 && pp_dtype_attn(PP_DT_MXFP4) == PP_DT_BF16);
	CHECK(!strcmp(pp_dtype_names[PP_DT_NVFP4], "nvfp4"));
	CHECK(!strcmp(pp_dtype_names[PP_DT_MXFP4], "mxfp4"));
}

/* Llama-2-70B served on one GPU of kind gpu in precision prec. */
static int setup70(const char *gpu, const char *prec, pp_scenario *s, pp_hw *hw,
		   pp_serve_setup *su)
{
	char j[700];
	snprintf(j, sizeof(j), "{\"name\": \"t\", \"model\": {\"preset\": \"llama2-70b\"}, "
		 "\"cluster\": {\"gpu\": \"%s\", \"num_gpus\": 1}, \"serving\": {\"engine\": "
		 "\"trtllm\", \"precision\": \"%s\", \"kv_cache_dtype\": \"fp8\", "
		 "\"max_model_len\": 2048}, \"workload\": {\"num_prompts\": 1, \"input_len\": 16, "
		 "\"output_len\": 4}}", gpu, prec);
	return tu_serve_setup(j, s, hw, su);
}

static void weights_70b(void)
{
	double h = 8192, kv = 2 * 8 * 128, f = 28672, V = 32000;
	/* q, k+v, o, gate+up+down; two RMSNorms */
	double layer = h * h + h * kv + h * h + 3 * h * f;
	double layers = 80 * layer;
	CHECK_NEAR(layers, 68451041280.0, 1e-12);
	/* the embedding, the head and the final norm stay 16-bit, as in the
	 * NVFP4 and MXFP4 checkpoints; the layers' two RMSNorms are counted
	 * in the layers' dtype (1.3M elements: the checkpoints keep them in
	 * bf16, 1.9 MB more, 5e-5 of the total) */
	double norms = 80 * 2 * h, sixteen = 2 * V * h + h;
	struct {
		const char *gpu, *prec;
		double bits;
	} c[] = {{"b200", "nvfp4", 4.5}, {"b200", "NVFP4", 4.5}, {"b200", "modelopt_fp4", 4.5},
		 {"mi355x", "mxfp4", 4.25}, {"b200", "mxfp4", 4.25}};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		pp_scenario s;
		pp_hw hw;
		pp_serve_setup su;
		if (setup70(c[i].gpu, c[i].prec, &s, &hw, &su)) {
			CHECK(!"setup");
			pp_scenario_release(&s);
			continue;
		}
		double want = (layers + norms) * c[i].bits / 8 + sixteen * 2;
		pp_t_diag("%s %s: weights %.4f GB (hand %.4f GB)", c[i].gpu, c[i].prec,
			  su.mem.weights_bytes / 1e9, want / 1e9);
		CHECK_NEAR(su.mem.weights_bytes, want, 1e-9);
		/* 38.50 GB (nvfp4) or 36.36 GB (mxfp4) of layers + 1.05 GB */
		CHECK_NEAR(su.mem.weights_bytes / 1e9, c[i].bits == 4.5 ? 39.5530 : 37.4139, 1e-5);
		pp_serve_setup_release(&su);
		pp_scenario_release(&s);
	}
}

static void gemm_time(void)
{
	pp_scenario s;
	pp_hw hw;
	int rc = tu_scenario("{\"name\": \"t\", \"model\": {\"preset\": \"llama3-8b\"}, \"cluster\": "
			     "{\"gpu\": \"b200\", \"num_gpus\": 8}}", &s, &hw);
	pp_scenario_release(&s);
	CHECK(rc == 0);
	if (rc)
		return;
	/* the fixture: B200's dense FP4 peak and Blackwell's fp8 share */
	double peak = 9000e12, frac = 0.763;
	CHECK_NEAR(hw.peak_flops[PP_DT_NVFP4], peak, 1e-12);
	CHECK_NEAR(hw.peak_flops[PP_DT_MXFP4], peak, 1e-12);
	CHECK_NEAR(hw.gemm_frac[PP_DT_NVFP4], frac, 1e-12);
	CHECK_NEAR(hw.gemm_frac[PP_DT_MXFP4], frac, 1e-12);
	CHECK(hw.sustained == 1 && hw.gemm_k0 == 0 && hw.tile_m == 128 && hw.tile_n == 256 &&
	      hw.sm_count == 148);
	/* 74 x 8 = 592 tiles of 128 x 256 = 4 whole waves over 148 SMs */
	double m = 128 * 74, n = 256 * 8, k = 16384;
	double t_hand = 2 * m * n * k / (peak * frac) + 2.5e-6; /* + one launch (kernels.json) */
	/* the operands at 4.5 bits stream in well under that time */
	double bytes = (m * k + k * n) * 4.5 / 8 + m * n * 2;
	CHECK(bytes / (8e12 * 0.85) < 0.5 * t_hand);
	double t = pp_gemm_time(&hw, PP_DT_NVFP4, m, n, k, 1, 2);
	pp_t_diag("B200 NVFP4 GEMM %gx%gx%g: %.2f us, by hand %.2f us", m, n, k, t * 1e6,
		  t_hand * 1e6);
	CHECK_NEAR(t, t_hand, 1e-9);
	/* the same GEMM in fp8 takes the FP4 one's compute twice over */
	double t8 = pp_gemm_time(&hw, PP_DT_FP8, m, n, k, 1, 2);
	CHECK_NEAR(t8 - 2.5e-6, 2 * (t - 2.5e-6), 1e-9);
	/* GB200: its own fp8 share (gpus.json gemm_peak_fraction 0.723) over
	 * its 10,000 TFLOP/s dense FP4 */
	rc = tu_scenario("{\"name\": \"t\", \"model\": {\"preset\": \"llama3-8b\"}, \"cluster\": "
			 "{\"gpu\": \"gb200\", \"num_gpus\": 4}}", &s, &hw);
	pp_scenario_release(&s);
	CHECK(rc == 0);
	if (rc)
		return;
	CHECK_NEAR(hw.peak_flops[PP_DT_NVFP4], 10000e12, 1e-12);
	CHECK_NEAR(hw.gemm_frac[PP_DT_NVFP4], 0.723, 1e-12);
	CHECK_NEAR(hw.gemm_frac[PP_DT_MXFP4], 0.723, 1e-12);
	/* MI355X: MXFP4 only, 10,000 TFLOP/s (an estimate: twice FP8) */
	rc = tu_scenario("{\"name\": \"t\", \"model\": {\"preset\": \"llama3-8b\"}, \"cluster\": "
			 "{\"gpu\": \"mi355x\", \"num_gpus\": 8}}", &s, &hw);
	pp_scenario_release(&s);
	CHECK(rc == 0);
	if (rc)
		return;
	CHECK_NEAR(hw.peak_flops[PP_DT_MXFP4], 10000e12, 1e-12);
	CHECK(hw.peak_flops[PP_DT_NVFP4] == 0);
	/* its own measured shares (gpus.json gemm_peak_fraction: AMD's Gluon
	 * GEMM tutorial on MI355X, 5255 of 10,000 and 3257 of 5,000 TFLOP/s),
	 * so MXFP4 does not take FP8's */
	CHECK_NEAR(hw.gemm_frac[PP_DT_MXFP4], 0.526, 1e-12);
	CHECK_NEAR(hw.gemm_frac[PP_DT_FP8], 0.651, 1e-12);
}

static void refused(void)
{
	static const struct {
		const char *file, *want1, *want2;
	} c[] = {
		{"tests/bad/serve_nvfp4_on_h100.json", "GPU \"h100-sxm\"", "no NVFP4 tensor cores"},
		{"tests/bad/serve_mxfp4_on_mi300x.json", "GPU \"mi300x\"", "no MXFP4 tensor cores"},
		{"tests/bad/serve_nvfp4_on_mi355x.json", "GPU \"mi355x\"", "bf16, fp16, fp8, mxfp4"},
		{"tests/bad/train_nvfp4.json", "training.precision", "\"nvfp4\""},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char cmd[600], *out = NULL;
		snprintf(cmd, sizeof(cmd), "%s %s %s", pp_t_bin(), i == 3 ? "check" : "serve",
			 c[i].file);
		CHECK(pp_t_sh(cmd, &out) == 2);
		CHECK_CONTAINS(out, c[i].want1);
		CHECK_CONTAINS(out, c[i].want2);
		free(out);
	}
}

int main(void)
{
	RUN(bytes_per_element);
	RUN(weights_70b);
	RUN(gemm_time);
	RUN(refused);
	return pp_t_done("test_fp4");
}
