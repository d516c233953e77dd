/*
 * cudacheck.h - check macros for CUDA, NCCL and cuBLASLt calls, in
 * nccl-tests' CUDACHECK/NCCLCHECK style: on failure they fill the caller's
 * pp_err with file:line, the call and the library's own error string, set
 * rc and jump to the function's `out` label. The function must have
 * `int rc` and `pp_err *err` in scope.
 */
#ifndef PP_CAL_CUDACHECK_H
#define PP_CAL_CUDACHECK_H

#include "core/pp.h"
#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#define CUDA_TRY(call)                                                                          \
	do {                                                                                    \
		cudaError_t e_ = (call);                                                        \
		if (e_ != cudaSuccess) {                                                        \
			rc = pp_errf(err, PP_EIO, "%s:%d: %s: %s (%s)", __FILE__, __LINE__, #call, \
				     cudaGetErrorString(e_), cudaGetErrorName(e_));             \
			goto out;                                                               \
		}                                                                               \
	} while (0)

#define NCCL_TRY(call)                                                                          \
	do {                                                                                    \
		ncclResult_t r_ = (call);                                                       \
		if (r_ != ncclSuccess && r_ != ncclInProgress) {                                \
			const char *l_ = ncclGetLastError(NULL);                                \
			rc = pp_errf(err, PP_EIO, "%s:%d: %s: NCCL %s%s%s", __FILE__, __LINE__,   \
				     #call, ncclGetErrorString(r_), l_ && *l_ ? ": " : "",       \
				     l_ ? l_ : "");                                             \
			goto out;                                                               \
		}                                                                               \
	} while (0)

#define CUBLAS_TRY(call)                                                                        \
	do {                                                                                    \
		cublasStatus_t s_ = (call);                                                     \
		if (s_ != CUBLAS_STATUS_SUCCESS) {                                              \
			rc = pp_errf(err, PP_EIO, "%s:%d: %s: %s (%s)", __FILE__, __LINE__, #call, \
				     cublasLtGetStatusString(s_), cublasLtGetStatusName(s_));   \
			goto out;                                                               \
		}                                                                               \
	} while (0)

#endif
