/* gemm.c - see gemm.h. */
#include "gemm.h"
#include "backend.h"
#include "cudacheck.h"
#include "kernels.h"

#include <string.h>

int pp_gemm_in_kt(pp_dtype dt)
{
	return dt == PP_DT_FP8 ? PP_K_FP8E4M3 : dt == PP_DT_BF16 ? PP_K_BF16 :
	       dt == PP_DT_FP16 ? PP_K_F16 : PP_K_F32;
}

int pp_gemm_out_kt(pp_dtype dt)
{
	return dt == PP_DT_FP8 || dt == PP_DT_BF16 ? PP_K_BF16 : dt == PP_DT_FP16 ? PP_K_F16 : PP_K_F32;
}

static cudaDataType_t cuda_type(int kt)
{
	return kt == PP_K_FP8E4M3 ? CUDA_R_8F_E4M3 : kt == PP_K_BF16 ? CUDA_R_16BF :
	       kt == PP_K_F16 ? CUDA_R_16F : CUDA_R_32F;
}

int pp_gemm_runner_init(pp_gemm_runner *g, cublasLtHandle_t lt, void *workspace,
			size_t workspace_bytes, pp_dtype dt, int64_t m, int64_t n, int64_t k,
			pp_err *err)
{
	return pp_gemm_runner_init_layout(g, lt, workspace, workspace_bytes, dt, m, n, k,
					  dt == PP_DT_FP8, false, err);
}

int pp_gemm_runner_init_layout(pp_gemm_runner *g, cublasLtHandle_t lt, void *workspace,
			       size_t workspace_bytes, pp_dtype dt, int64_t m, int64_t n, int64_t k,
			       bool transa, bool transb, pp_err *err)
{
	int rc = 0, found = 0;
	cublasLtMatmulPreference_t pref = NULL;
	memset(g, 0, sizeof(*g));
	g->lt = lt;
	g->workspace = workspace;
	g->workspace_bytes = workspace_bytes;
	g->dtype = dt;
	g->m = m;
	g->n = n;
	g->k = k;
	g->alpha = 1.0f;
	g->beta = 0.0f;
	g->transa = transa;
	g->transb = transb;
	if (dt != PP_DT_BF16 && dt != PP_DT_FP16 && dt != PP_DT_FP8 && dt != PP_DT_TF32)
		return pp_errf(err, PP_EINPUT, "GEMM dtype %s: expected bf16, fp16, fp8 or tf32",
			       pp_dtype_names[dt]);
	cublasComputeType_t ct = dt == PP_DT_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
	cudaDataType_t ti = cuda_type(pp_gemm_in_kt(dt)), to = cuda_type(pp_gemm_out_kt(dt));
	cublasOperation_t ta = g->transa ? CUBLAS_OP_T : CUBLAS_OP_N, tb = g->transb ? CUBLAS_OP_T : CUBLAS_OP_N;
	CUBLAS_TRY(cublasLtMatmulDescCreate(&g->op, ct, CUDA_R_32F));
	CUBLAS_TRY(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)));
	CUBLAS_TRY(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)));
	/* A as stored: m x k, or k x m when transposed */
	CUBLAS_TRY(cublasLtMatrixLayoutCreate(&g->la, ti, g->transa ? (uint64_t)k : (uint64_t)m,
					      g->transa ? (uint64_t)m : (uint64_t)k,
					      g->transa ? k : m));
	/* B as stored: k x n, or n x k when transposed */
	CUBLAS_TRY(cublasLtMatrixLayoutCreate(&g->lb, ti, g->transb ? (uint64_t)n : (uint64_t)k,
					      g->transb ? (uint64_t)k : (uint64_t)n,
					      g->transb ? n : k));
	CUBLAS_TRY(cublasLtMatrixLayoutCreate(&g->ld, to, (uint64_t)m, (uint64_t)n, m));
	CUBLAS_TRY(cublasLtMatmulPreferenceCreate(&pref));
	CUBLAS_TRY(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
							&workspace_bytes, sizeof(workspace_bytes)));
	cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(lt, g->op, g->la, g->lb, g->ld, g->ld, pref,
							   1, &g->heur, &found);
	if (st == CUBLAS_STATUS_NOT_SUPPORTED || (st == CUBLAS_STATUS_SUCCESS && found == 0)) {
		rc = PP_CAL_SKIPPED;
		pp_errf(err, PP_CAL_SKIPPED, "cuBLASLt has no %s %s kernel for %lldx%lldx%lld on this GPU",
			pp_dtype_names[dt], transa ? "TN" : "NN", (long long)m, (long long)n, (long long)k);
		goto out;
	}
	CUBLAS_TRY(st);
out:
	if (pref)
		cublasLtMatmulPreferenceDestroy(pref);
	if (rc)
		pp_gemm_runner_release(g);
	return rc;
}

int pp_gemm_run(pp_gemm_runner *g, const void *A, const void *B, void *D, cudaStream_t s,
		pp_err *err)
{
	int rc = 0;
	CUBLAS_TRY(cublasLtMatmul(g->lt, g->op, &g->alpha, A, g->la, B, g->lb, &g->beta, D, g->ld, D,
				  g->ld, &g->heur.algo, g->workspace, g->workspace_bytes, s));
out:
	return rc;
}

void pp_gemm_runner_release(pp_gemm_runner *g)
{
	if (g->ld)
		cublasLtMatrixLayoutDestroy(g->ld);
	if (g->lb)
		cublasLtMatrixLayoutDestroy(g->lb);
	if (g->la)
		cublasLtMatrixLayoutDestroy(g->la);
	if (g->op)
		cublasLtMatmulDescDestroy(g->op);
	g->ld = g->lb = g->la = NULL;
	g->op = NULL;
}
