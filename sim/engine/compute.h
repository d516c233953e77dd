/*
 * compute.h - time of one kernel on one GPU: a roofline (FLOPs against
 * bytes moved) with a shape-dependent GEMM efficiency.
 *
 * GEMM efficiency = (large-GEMM share of peak for the dtype, from data)
 *                 x tile quantisation (padding of M and N up to the tile)
 *                 x wave quantisation (tiles over the SM count; weighted,
 *                   since persistent/Stream-K kernels hide most of it)
 *                 / (1 + k0 / k) (per-tile prologue/epilogue over the k loop),
 * taking the best of the default tile, its transpose and two smaller tiles
 * (what cuBLAS's heuristics do). The memory side is the operands' bytes
 * at the GEMM streaming bandwidth after its pipeline latency where the
 * architecture's data give them (kernels.json gemm_stream_bw_fraction and
 * gemm_stream_latency_us, fitted on measured memory-bound GEMMs;
 * tests/test_gemm_stream.c), else at the copy bandwidth. Sources: NVIDIA "GEMM performance
 * background" (tile and wave quantisation), Bekman's MAMF table for the
 * large-GEMM shares (models/kernels.json).
 */
#ifndef PP_COMPUTE_H
#define PP_COMPUTE_H

#include "input/hw.h"

/* Efficiency of a (batch x) m x n x k GEMM, in (0, 1]: the share of the
 * dtype's dense peak it reaches, before the memory roofline. */
double pp_gemm_efficiency(const pp_hw *hw, pp_dtype dt, double m, double n, double k, double batch);

/* The share of its burst tensor rate dtype dt runs at on hw, for a GEMM
 * (gemm) or attention: the SKU's power rating (sustained_clock_fraction)
 * and, in a GEMM-dense step (hw->dense_on), the power limit's hold on the
 * clocks (dense_sustained) unless a calibration profile measured that
 * dtype's GEMMs (gemm_measured). */
double pp_tensor_share(const pp_hw *hw, pp_dtype dt, bool gemm);

/* Seconds for batch GEMMs of m x n x k in dtype dt (inputs dt, output
 * out_bytes per element), kernel overhead included. */
double pp_gemm_time(const pp_hw *hw, pp_dtype dt, double m, double n, double k, double batch,
		    double out_bytes);

/* Seconds for a memory-bound kernel (normalisation, dropout, softmax,
 * activation, optimizer) moving bytes (read + written), at the achieved
 * elementwise bandwidth. */
double pp_mem_time(const pp_hw *hw, double bytes);

/* The same for n kernels moving bytes between them (an eager chain). */
double pp_mem_time_n(const pp_hw *hw, double bytes, int n);
/* The same at over_copy x the device's copy rate (hw mem_Bps), the rate an
 * implementation's kernels were measured at; over_copy <= 0: the
 * hardware's elementwise rate, as pp_mem_time_n. */
double pp_mem_time_at(const pp_hw *hw, double bytes, int n, double over_copy);

/* Seconds for a fused (flash) attention kernel executing flops with bytes
 * of input/output traffic, at the architecture's single catalog share of
 * peak (kernels.json attn_peak_fraction). */
double pp_attn_time(const pp_hw *hw, pp_dtype dt, double flops, double bytes);

/* The share of the dense bf16 peak attention kernel k reaches at sequence
 * length seq, forward or backward, with or without a causal mask: the
 * measured curves of kernels.json attention_kernels (linear in log(seq),
 * held at the ends; a causal backward is the unmasked backward times the
 * forward's causal/unmasked ratio), or attn_peak_fraction where the
 * architecture has no curve for k. FLOPs of a causal kernel are counted as
 * half the score matrix, as the curves' source counts them. */
double pp_attn_rate(const pp_hw *hw, pp_attn_kernel k, bool bwd, bool causal, double seq);

/* The rate of a fused attention kernel at head dimension d over its rate
 * at the curves' head dimension d0 (kernels.json attention_kernels
 * head_dim, exp_tflops). Per score, the matmuls take 4d FLOPs forward (Q.K
 * and P.V) and 10d backward (Q.K again, dP, dV, dQ, dK: 2.5x, as the
 * executed FLOPs count them) on the tensor cores at the curves' peak P,
 * and one exponential on the special-function units at E (FlashAttention-3,
 * Shah et al. 2024, Sec. 3: 989 TFLOP/s of matmul against 3.9 TFLOP/s of
 * exponentials on an H100 SXM5); with the two in sequence a score costs
 * m d / P + 1 / E, so the rate is (d / d0) (m d0 / P + 1 / E) / (m d / P +
 * 1 / E). 1 without the figures. */
double pp_attn_head_dim_factor(const pp_hw *hw, bool bwd, double d);

/* Seconds for attention kernel k (a pass over flops and bytes, at seq,
 * with heads of d: Q.K and P.V sizes' mean). */
double pp_attn_time_k(const pp_hw *hw, pp_dtype dt, pp_attn_kernel k, bool bwd, bool causal,
		      double seq, double d, double flops, double bytes);

#endif
