/* kernels.cu - see kernels.h. */
#include "kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

static __device__ __forceinline__ uint64_t mix64(uint64_t x)
{
	/* splitmix64 finaliser (Steele, Lea, Flood 2014) */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

static __device__ __forceinline__ float ld(const void *p, size_t i, int kt)
{
	switch (kt) {
	case PP_K_BF16: return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
	case PP_K_F16: return __half2float(((const __half *)p)[i]);
	case PP_K_FP8E4M3: return (float)(((const __nv_fp8_e4m3 *)p)[i]);
	default: return ((const float *)p)[i];
	}
}

static __device__ __forceinline__ void st(void *p, size_t i, int kt, float v)
{
	switch (kt) {
	case PP_K_BF16: ((__nv_bfloat16 *)p)[i] = __float2bfloat16_rn(v); break;
	case PP_K_F16: ((__half *)p)[i] = __float2half_rn(v); break;
	case PP_K_FP8E4M3: ((__nv_fp8_e4m3 *)p)[i] = __nv_fp8_e4m3(v); break;
	default: ((float *)p)[i] = v; break;
	}
}

static int grid_for(size_t n, int threads)
{
	size_t b = (n + (size_t)threads - 1) / (size_t)threads;
	return (int)(b > 65535u * 8u ? 65535u * 8u : (b ? b : 1));
}

static __global__ void fill_random_k(void *p, size_t n, int kt, uint64_t seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		uint64_t h = mix64(i * 0x9e3779b97f4a7c15ull + seed);
		float u = (float)(h >> 40) * (1.0f / 16777216.0f); /* [0, 1) */
		st(p, i, kt, 2.0f * u - 1.0f);
	}
}

extern "C" cudaError_t pp_k_fill_random(void *p, size_t n, int kt, uint64_t seed, cudaStream_t s)
{
	fill_random_k<<<grid_for(n, 256), 256, 0, s>>>(p, n, kt, seed);
	return cudaGetLastError();
}

static __device__ __forceinline__ uint32_t cval(int rank, size_t i, uint64_t seed, uint32_t mod)
{
	uint64_t h = mix64(i * 0x9e3779b97f4a7c15ull + (uint64_t)(rank + 1) * 0xd1b54a32d192ed03ull + seed);
	return (uint32_t)(h >> 32) % mod;
}

static __global__ void coll_fill_k(void *p, size_t n, int kt, int rank, uint64_t seed, uint32_t mod)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		st(p, i, kt, (float)cval(rank, i, seed, mod));
}

extern "C" cudaError_t pp_k_coll_fill(void *p, size_t n, int kt, int rank, uint64_t seed,
				      uint32_t modulus, cudaStream_t s)
{
	coll_fill_k<<<grid_for(n, 256), 256, 0, s>>>(p, n, kt, rank, seed, modulus);
	return cudaGetLastError();
}


static __global__ void coll_check_k(const void *p, size_t n, int kt, int op, int rank, int nranks,
				    size_t chunk, int root, uint64_t seed, uint32_t mod,
				    unsigned long long *wrong)
{
	unsigned long long bad = 0;
	for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < n;
	     j += (size_t)gridDim.x * blockDim.x) {
		uint32_t want = 0;
		switch (op) {
		case PP_K_ALL_REDUCE:
			for (int r = 0; r < nranks; r++)
				want += cval(r, j, seed, mod);
			break;
		case PP_K_ALL_GATHER: want = cval((int)(j / chunk), j % chunk, seed, mod); break;
		case PP_K_REDUCE_SCATTER:
			for (int r = 0; r < nranks; r++)
				want += cval(r, (size_t)rank * chunk + j, seed, mod);
			break;
		case PP_K_BROADCAST: want = cval(root, j, seed, mod); break;
		case PP_K_ALLTOALL: want = cval((int)(j / chunk), (size_t)rank * chunk + j % chunk, seed, mod); break;
		default: want = cval((rank - 1 + nranks) % nranks, j, seed, mod); break;
		}
		/* every value is an integer the type holds exactly */
		if (ld(p, j, kt) != (float)want)
			bad++;
	}
	if (bad)
		atomicAdd(wrong, bad);
}

extern "C" cudaError_t pp_k_coll_check(const void *p, size_t n, int kt, int op, int rank,
				       int nranks, size_t chunk, int root, uint64_t seed,
				       uint32_t modulus, unsigned long long *d_wrong, cudaStream_t s)
{
	coll_check_k<<<grid_for(n, 256), 256, 0, s>>>(p, n, kt, op, rank, nranks, chunk ? chunk : 1,
						      root, seed, modulus, d_wrong);
	return cudaGetLastError();
}

static __global__ void copy_k(uint4 *__restrict__ dst, const uint4 *__restrict__ src, size_t n16,
			      char *__restrict__ dtail, const char *__restrict__ stail, size_t tail)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	/* two independent 16-byte loads in flight per thread */
	for (; i + stride < n16; i += 2 * stride) {
		uint4 a = src[i], b = src[i + stride];
		dst[i] = a;
		dst[i + stride] = b;
	}
	if (i < n16)
		dst[i] = src[i];
	size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (t < tail)
		dtail[t] = stail[t];
}

extern "C" cudaError_t pp_k_copy(void *dst, const void *src, size_t bytes, int blocks, cudaStream_t s)
{
	if (blocks <= 0) {
		int dev = 0, sms = 0;
		cudaGetDevice(&dev);
		cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
		blocks = (sms > 0 ? sms : 80) * 4;
	}
	size_t n16 = bytes / 16, tail = bytes % 16;
	copy_k<<<blocks, 512, 0, s>>>((uint4 *)dst, (const uint4 *)src, n16,
				       (char *)dst + n16 * 16, (const char *)src + n16 * 16, tail);
	return cudaGetLastError();
}

/* One warp per sampled element. */
static __global__ void gemm_check_k(const void *A, const void *B, const void *D, int64_t m,
				    int64_t n, int64_t k, int transa, int transb, int in_kt, int out_kt, int tf32,
				    int samples, uint64_t seed, unsigned long long *wrong)
{
	int warp = (int)((blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32), lane = threadIdx.x % 32;
	if (warp >= samples)
		return;
	uint64_t h = mix64(seed + (uint64_t)warp * 0x9e3779b97f4a7c15ull);
	int64_t i = (int64_t)(h % (uint64_t)m), j = (int64_t)((h >> 32) % (uint64_t)n);
	double acc = 0, sq = 0;
	for (int64_t l = lane; l < k; l += 32) {
		float a = ld(A, transa ? (size_t)(l + i * k) : (size_t)(i + l * m), in_kt);
		float b = ld(B, transb ? (size_t)(j + l * n) : (size_t)(l + j * k), in_kt);
		double pr = (double)a * (double)b;
		acc += pr;
		sq += pr * pr;
	}
	for (int o = 16; o; o /= 2) {
		acc += __shfl_down_sync(0xffffffffu, acc, o);
		sq += __shfl_down_sync(0xffffffffu, sq, o);
	}
	if (lane)
		return;
	double got = (double)ld(D, (size_t)(i + j * m), out_kt);
	/* output rounding: half an ulp of bf16 (2^-8 relative), fp16 (2^-11),
	 * fp32 (2^-24), doubled; input rounding to tf32 (2^-11 per operand),
	 * and fp32 accumulation in another order, on the root of the summed
	 * squared products (random signs add up like a random walk), x8. */
	double out_rel = out_kt == PP_K_BF16 ? 1.0 / 128 : out_kt == PP_K_F16 ? 1.0 / 1024 : 1.0 / 8388608;
	double in_rel = tf32 ? 1.0 / 512 : 1.0 / 4096;
	double tol = out_rel * fabs(acc) + 8.0 * in_rel * sqrt(sq) + 1e-6;
	if (!(fabs(got - acc) <= tol))
		atomicAdd(wrong, 1ull);
}

extern "C" cudaError_t pp_k_gemm_check(const void *A, const void *B, const void *D, int64_t m,
				       int64_t n, int64_t k, int transa, int transb, int in_kt, int out_kt,
				       int tf32, int samples, uint64_t seed,
				       unsigned long long *d_wrong, cudaStream_t s)
{
	int threads = 256, blocks = (samples * 32 + threads - 1) / threads;
	gemm_check_k<<<blocks, threads, 0, s>>>(A, B, D, m, n, k, transa, transb, in_kt, out_kt, tf32,
						samples, seed, d_wrong);
	return cudaGetLastError();
}
