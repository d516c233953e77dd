/*
 * gemm.h - one GEMM shape through cuBLASLt, ready to run many times: the
 * runner podplan-calibrate times, and the step replay (issue 5) reuses.
 *
 * D[m x n] = A[m x k] B[k x n], column-major, beta = 0:
 *   bf16, fp16  A, B, D in that type, fp32 accumulation (CUBLAS_COMPUTE_32F)
 *   tf32        A, B, D fp32, CUBLAS_COMPUTE_32F_FAST_TF32
 *   fp8         A, B e4m3, D bf16, fp32 accumulation; A is transposed
 *               ("TN", stored k x m), the layout Hopper's fp8 kernels need
 * The algorithm is cuBLASLt's own first heuristic choice for the shape and
 * the workspace, as cuBLAS and PyTorch use it.
 *
 * pp_gemm_runner_init_layout chooses the layout instead: transa true is
 * "TN" in any dtype, the layout torch.nn.functional.linear gives cuBLAS
 * (y = x W^T with W stored [out, in] row-major: cuBLAS m = out, n =
 * tokens, k = in, A = W transposed).
 */
#ifndef PP_CAL_GEMM_H
#define PP_CAL_GEMM_H

#include "input/catalog.h"
#include "core/pp.h"
#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <stdbool.h>

typedef struct pp_gemm_runner {
	cublasLtHandle_t lt;        /* borrowed */
	void *workspace;            /* borrowed, device memory */
	size_t workspace_bytes;
	pp_dtype dtype;
	int64_t m, n, k;
	bool transa, transb;
	cublasLtMatmulDesc_t op;
	cublasLtMatrixLayout_t la, lb, ld;
	cublasLtMatmulHeuristicResult_t heur;
	float alpha, beta;
} pp_gemm_runner;

/* Set up the descriptors and ask cuBLASLt for an algorithm. PP_CAL_SKIPPED
 * (see backend.h) with a note in err when cuBLASLt has none for this GPU
 * (fp8 before Hopper/Ada); < 0 on errors. */
int pp_gemm_runner_init(pp_gemm_runner *g, cublasLtHandle_t lt, void *workspace,
			size_t workspace_bytes, pp_dtype dt, int64_t m, int64_t n, int64_t k,
			pp_err *err);
/* The same with A transposed (k x m as stored) or not and B transposed (n
 * x k as stored) or not, whatever the dtype (fp8 needs transa and not
 * transb). */
int pp_gemm_runner_init_layout(pp_gemm_runner *g, cublasLtHandle_t lt, void *workspace,
			       size_t workspace_bytes, pp_dtype dt, int64_t m, int64_t n, int64_t k,
			       bool transa, bool transb, pp_err *err);
/* Enqueue one GEMM on stream s. */
int pp_gemm_run(pp_gemm_runner *g, const void *A, const void *B, void *D, cudaStream_t s,
		pp_err *err);
void pp_gemm_runner_release(pp_gemm_runner *g);

/* kernels.h element types of a dtype's A/B and D. */
int pp_gemm_in_kt(pp_dtype dt);
int pp_gemm_out_kt(pp_dtype dt);

#endif
