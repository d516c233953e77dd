/*
 * kernels.h - the GPU kernels of podplan-calibrate (kernels.cu), behind a C
 * interface: data fills, result checks, a memory-bound copy of N bytes.
 * Each launcher enqueues on the given stream and returns the launch's CUDA
 * error (cudaSuccess when queued).
 */
#ifndef PP_CAL_KERNELS_H
#define PP_CAL_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types the kernels know. */
enum { PP_K_F32, PP_K_BF16, PP_K_F16, PP_K_FP8E4M3 };
/* Collectives the check kernel knows. */
enum { PP_K_ALL_REDUCE, PP_K_ALL_GATHER, PP_K_REDUCE_SCATTER, PP_K_BROADCAST, PP_K_ALLTOALL,
       PP_K_SENDRECV };

/* n elements of type kt, uniform in [-1, 1) from a counter hash of
 * (index, seed): reproducible, and never all zeros (zeros make GEMMs look
 * faster than real data does). */
cudaError_t pp_k_fill_random(void *p, size_t n, int kt, uint64_t seed, cudaStream_t s);

/* Collective test data: element i of rank r is the integer
 * v(r, i) = hash(r, i, seed) mod modulus, so that sums over ranks are exact
 * in every type (the caller picks modulus so that nranks x (modulus - 1)
 * fits the type's integer range). */
cudaError_t pp_k_coll_fill(void *p, size_t n, int kt, int rank, uint64_t seed, uint32_t modulus,
			   cudaStream_t s);

/* Compare n output elements of rank `rank` with what collective `op`
 * (PP_K_ALL_REDUCE ...) must produce from pp_k_coll_fill inputs; chunk is the
 * per-rank count of the split collectives. Adds mismatches to *d_wrong
 * (device memory). */
cudaError_t pp_k_coll_check(const void *p, size_t n, int kt, int op, int rank, int nranks,
			    size_t chunk, int root, uint64_t seed, uint32_t modulus,
			    unsigned long long *d_wrong, cudaStream_t s);

/* The memory-bound kernel: copy bytes from src to dst with 16-byte vector
 * accesses in a grid-stride loop (blocks 0 = one wave per SM x 4). It reads
 * and writes `bytes` each, the traffic of an elementwise op. */
cudaError_t pp_k_copy(void *dst, const void *src, size_t bytes, int blocks, cudaStream_t s);

/* Check `samples` elements of D = A x B (column-major; A is m x k, or
 * stored k x m when transa; B is k x n; D is m x n) against a float
 * recomputation from the same inputs. in_kt is A's and B's type, out_kt D's.
 * Tolerance: the output type's rounding plus the inputs' (tf32) and the
 * accumulation order's, scaled by the products' magnitude. Adds failures to
 * *d_wrong. */
cudaError_t pp_k_gemm_check(const void *A, const void *B, const void *D, int64_t m, int64_t n,
			    int64_t k, int transa, int transb, int in_kt, int out_kt, int tf32, int samples,
			    uint64_t seed, unsigned long long *d_wrong, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
