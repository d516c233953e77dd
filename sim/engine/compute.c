/* compute.c - see compute.h. */
#include "engine/compute.h"

#include <math.h>

static double tile_wave_eff(double m, double n, double batch, double tm, double tn, int sms,
			    double wave_weight)
{
	double tiles_m = ceil(m / tm), tiles_n = ceil(n / tn);
	double tile_util = (m * n) / (tiles_m * tm * tiles_n * tn);
	double tiles = tiles_m * tiles_n * batch;
	double waves = ceil(tiles / sms);
	double wave_util = tiles / (waves * sms);
	/* persistent / Stream-K kernels (Hopper cuBLAS) spread the last partial
	 * wave: only wave_weight of its loss remains */
	return tile_util * (1.0 - wave_weight + wave_weight * wave_util);
}

double pp_tensor_share(const pp_hw *hw, pp_dtype dt, bool gemm)
{
	double s = hw->sustained > 0 ? hw->sustained : 1;
	if (hw->dense_on && hw->dense_sustained[dt] > 0 && !(gemm && hw->gemm_measured[dt]))
		s *= hw->dense_sustained[dt];
	return s;
}

double pp_gemm_efficiency(const pp_hw *hw, pp_dtype dt, double m, double n, double k, double batch)
{
	double tm = hw->tile_m, tn = hw->tile_n, w = hw->wave_weight;
	int sms = hw->sm_count;
	double best = tile_wave_eff(m, n, batch, tm, tn, sms, w);
	double e = tile_wave_eff(m, n, batch, tn, tm, sms, w);
	if (e > best)
		best = e;
	e = hw->half_tile_eff * tile_wave_eff(m, n, batch, tm, tn / 2, sms, w);
	if (e > best)
		best = e;
	e = hw->half_tile_eff * tile_wave_eff(m, n, batch, tn / 2, tm, sms, w);
	if (e > best)
		best = e;
	e = hw->quarter_tile_eff * tile_wave_eff(m, n, batch, tm / 2, tn / 2, sms, w);
	if (e > best)
		best = e;
	/* the per-tile prologue and epilogue, amortised over the k loop */
	return hw->gemm_frac[dt] * best / (1.0 + hw->gemm_k0 / k);
}

double pp_gemm_time(const pp_hw *hw, pp_dtype dt, double m, double n, double k, double batch,
		    double out_bytes)
{
	if (m <= 0 || n <= 0 || k <= 0 || batch <= 0)
		return 0;
	double flops = 2.0 * m * n * k * batch;
	double eff = pp_gemm_efficiency(hw, dt, m, n, k, batch);
	/* the tensor rate the SKU holds at its power limit (gpus.json) */
	double t_compute = flops / (hw->peak_flops[dt] * eff * pp_tensor_share(hw, dt, true));
	double in_b = pp_dtype_bytes(dt);
	double bytes = batch * ((m * k + k * n) * in_b + m * n * out_bytes);
	/* the operands stream in at the GEMM's own bandwidth after the memory
	 * pipeline's latency (kernels.json gemm_stream_*) */
	double bw = hw->gemm_stream_Bps > 0 ? hw->gemm_stream_Bps : hw->mem_Bps;
	double t_mem = hw->gemm_stream_lat_s + bytes / bw;
	double t = t_compute > t_mem ? t_compute : t_mem;
	if (t < hw->gemm_min_s)
		t = hw->gemm_min_s;
	return t + hw->kernel_overhead_s;
}

double pp_mem_time(const pp_hw *hw, double bytes)
{
	return pp_mem_time_at(hw, bytes, 1, 0);
}

double pp_mem_time_n(const pp_hw *hw, double bytes, int n)
{
	return pp_mem_time_at(hw, bytes, n, 0);
}

double pp_mem_time_at(const pp_hw *hw, double bytes, int n, double over_copy)
{
	if (bytes <= 0)
		return 0;
	double bw = over_copy > 0 ? hw->mem_Bps * over_copy : hw->elementwise_Bps;
	return bytes / bw + (n > 0 ? n : 1) * hw->kernel_overhead_s;
}

static double curve(const pp_hw *hw, const double *r, double seq)
{
	int n = hw->attn_nseq;
	if (seq <= hw->attn_seq[0])
		return r[0];
	if (seq >= hw->attn_seq[n - 1])
		return r[n - 1];
	int i = 1;
	while (hw->attn_seq[i] < seq)
		i++;
	double a = log(hw->attn_seq[i - 1]), b = log(hw->attn_seq[i]), x = log(seq);
	return r[i - 1] + (r[i] - r[i - 1]) * (x - a) / (b - a);
}

double pp_attn_rate(const pp_hw *hw, pp_attn_kernel k, bool bwd, bool causal, double seq)
{
	if (k <= PP_ATTN_CATALOG || k >= PP_ATTN_UNFUSED || !hw->attn_have[k] || hw->attn_nseq < 2)
		return hw->attn_frac;
	double fc = curve(hw, hw->attn_rate[k][0], seq), fn = curve(hw, hw->attn_rate[k][1], seq);
	if (!bwd)
		return causal ? fc : fn;
	double b = curve(hw, hw->attn_rate[k][2], seq);
	return causal ? b * fc / fn : b;
}

double pp_attn_head_dim_factor(const pp_hw *hw, bool bwd, double d)
{
	double d0 = hw->attn_head_dim, E = hw->attn_exp_flops, P = hw->attn_peak_flops;
	if (d0 <= 0 || E <= 0 || P <= 0 || d <= 0)
		return 1;
	double m = bwd ? 10.0 : 4.0;
	return (d / d0) * (m * d0 / P + 1.0 / E) / (m * d / P + 1.0 / E);
}

double pp_attn_time_k(const pp_hw *hw, pp_dtype dt, pp_attn_kernel k, bool bwd, bool causal,
		      double seq, double d, double flops, double bytes)
{
	if (flops <= 0)
		return 0;
	if (k <= PP_ATTN_CATALOG || k >= PP_ATTN_UNFUSED || !hw->attn_have[k] || hw->attn_nseq < 2)
		return pp_attn_time(hw, dt, flops, bytes);
	double rate = pp_attn_rate(hw, k, bwd, causal, seq) * pp_attn_head_dim_factor(hw, bwd, d) *
		      hw->peak_flops[dt] * pp_tensor_share(hw, dt, false);
	double t_compute = flops / rate;
	double t_mem = bytes / hw->mem_Bps;
	return (t_compute > t_mem ? t_compute : t_mem) + hw->kernel_overhead_s;
}

double pp_attn_time(const pp_hw *hw, pp_dtype dt, double flops, double bytes)
{
	if (flops <= 0)
		return 0;
	/* fp32 has no fused attention kernel in practice; attention then runs
	 * at the tf32/fp32 GEMM rate, which the dtype's peak already reflects. */
	double t_compute = flops / (hw->peak_flops[dt] * hw->attn_frac * pp_tensor_share(hw, dt, false));
	double t_mem = bytes / hw->mem_Bps;
	return (t_compute > t_mem ? t_compute : t_mem) + hw->kernel_overhead_s;
}
