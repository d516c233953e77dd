/* hw.c - see hw.h. */
#include "input/hw.h"
#include "core/util.h"

#include <stdarg.h>
#include <string.h>

const char *const pp_coll_names[PP_COLL_COUNT] = {"all_reduce", "all_gather", "reduce_scatter",
						  "broadcast", "alltoall", "sendrecv"};

void pp_hw_set_origin(pp_hw *hw, const char *name, const char *fmt, ...)
{
	int i;
	for (i = 0; i < hw->norigins; i++)
		if (!strcmp(hw->origins[i].name, name))
			break;
	if (i == hw->norigins) {
		if (hw->norigins == PP_HW_MAX_ORIGINS)
			return;
		hw->norigins++;
	}
	hw->origins[i].name = name;
	va_list ap;
	va_start(ap, fmt);
	char full[1024];
	vsnprintf(full, sizeof(full), fmt, ap);
	va_end(ap);
	/* a text too long is cut at a word, never inside one, and says so */
	char *o = hw->origins[i].origin;
	size_t cap = sizeof(hw->origins[i].origin);
	if (strlen(full) < cap) {
		memcpy(o, full, strlen(full) + 1);
		return;
	}
	size_t cut = cap - 4;
	while (cut > 0 && full[cut] != ' ')
		cut--;
	snprintf(o, cap, "%.*s ...", (int)cut, full);
}

static void prov_origin(pp_hw *hw, const char *name, const pp_catalog *cat, const char *kind,
			const pp_prov *p)
{
	pp_hw_set_origin(hw, name, "catalog %s.json: %s (%s)%s", kind,
			 pp_catalog_source_title(cat, kind, p->source), p->date,
			 p->estimate ? " [estimate]" : "");
}

bool pp_hw_has_sustained(const pp_hw *hw)
{
	for (int t = 0; t < PP_DT_COUNT; t++)
		if (hw->dense_sustained[t] < 1)
			return true;
	return false;
}

int pp_hw_from_catalog(pp_hw *hw, const pp_catalog *cat, const pp_cluster *cl, pp_err *err)
{
	memset(hw, 0, sizeof(*hw));
	const pp_gpu *g = cl->gpu;
	const pp_kernel_params *k = pp_catalog_kernels(cat, g->arch);
	if (!k)
		return pp_errf(err, PP_EINPUT, "%s/kernels.json: no entry for architecture \"%s\" and no "
			       "\"default\"", pp_catalog_dir(cat), g->arch);
	for (int t = 0; t < PP_DT_COUNT; t++) {
		hw->peak_flops[t] = g->peak_flops[t];
		hw->gemm_frac[t] = k->gemm_peak_fraction[t] > 0 ? k->gemm_peak_fraction[t] : 0.8;
		/* a share measured on the SKU itself before its architecture's */
		if (g->gemm_frac[t] > 0)
			hw->gemm_frac[t] = g->gemm_frac[t];
	}
	hw->sm_count = g->sm_count > 0 ? g->sm_count : 100;
	hw->tile_m = k->tile_m;
	hw->tile_n = k->tile_n;
	hw->gemm_min_s = k->gemm_min_time_s;
	hw->half_tile_eff = k->half_tile_eff;
	hw->wave_weight = k->wave_weight;
	hw->gemm_k0 = k->gemm_k0;
	hw->quarter_tile_eff = k->quarter_tile_eff;
	hw->act_margin = k->act_margin;
	hw->reserved_bytes = k->reserved_bytes;
	hw->elementwise_Bps = g->mem_Bps * k->elementwise_bw_fraction;
	hw->overlap_eff = k->overlap_eff;
	hw->blocking_pipeline_stall = k->blocking_pipeline_stall;
	hw->mem_Bps = g->mem_Bps * k->mem_bw_fraction;
	hw->gemm_stream_Bps = g->mem_Bps * k->gemm_stream_bw_fraction; /* 0: mem_Bps */
	hw->gemm_stream_lat_s = k->gemm_stream_latency_s;
	hw->attn_frac = k->attn_peak_fraction;
	hw->attn_nseq = k->attn_nseq;
	for (int i = 0; i < k->attn_nseq; i++)
		hw->attn_seq[i] = k->attn_seq[i];
	for (int j = 0; j < 3; j++) {
		hw->attn_have[PP_ATTN_FA2 + j] = k->attn_have[j];
		for (int ps = 0; ps < 3; ps++)
			for (int i = 0; i < k->attn_nseq; i++)
				hw->attn_rate[PP_ATTN_FA2 + j][ps][i] = k->attn_rate[j][ps][i];
	}
	hw->attn_head_dim = k->attn_head_dim;
	hw->attn_exp_flops = k->attn_exp_flops;
	hw->attn_peak_flops = k->attn_peak_flops;
	if (k->attn_nseq)
		prov_origin(hw, "attention_kernels", cat, "kernels", &k->attn_kernels_prov);
	hw->sustained = g->sustained > 0 ? g->sustained : 1;
	if (g->sustained < 1)
		prov_origin(hw, "sustained_clock_fraction", cat, "gpus", &g->sustained_prov);
	for (int t = 0; t < PP_DT_COUNT; t++)
		hw->dense_sustained[t] = g->sustained_gemm[t] > 0 ? g->sustained_gemm[t] : 1;
	if (pp_hw_has_sustained(hw))
		pp_hw_set_origin(hw, "sustained_gemm", "catalog gpus.json: bf16 %.3f, fp8 %.3f of the "
				 "burst rate in a GEMM-dense step (frameworks.json tensor_clock "
				 "\"sustained\"): %s (%s)%s", hw->dense_sustained[PP_DT_BF16],
				 hw->dense_sustained[PP_DT_FP8],
				 pp_catalog_source_title(cat, "gpus", g->sustained_gemm_prov.source),
				 g->sustained_gemm_prov.date, g->sustained_gemm_prov.estimate ? " [estimate]" : "");
	hw->kernel_overhead_s = k->kernel_overhead_s;
	hw->mem_capacity_bytes = g->mem_bytes;
	prov_origin(hw, "peak_flops", cat, "gpus", &g->peak_prov);
	if (g->gemm_frac[PP_DT_BF16] > 0 || g->gemm_frac[PP_DT_FP8] > 0)
		prov_origin(hw, "gemm_efficiency", cat, "gpus", &g->gemm_frac_prov);
	else
		prov_origin(hw, "gemm_efficiency", cat, "kernels", &k->gemm_prov);
	prov_origin(hw, "memory_bandwidth", cat, "kernels", &k->mem_prov);
	prov_origin(hw, "attention_efficiency", cat, "kernels", &k->attn_prov);
	prov_origin(hw, "kernel_overhead", cat, "kernels", &k->ovh_prov);

	const pp_fabric *in = cl->intra;
	/* NVLink: per-GPU bandwidth comes from the SKU (links x generation);
	 * PCIe: one x16 slot per GPU. */
	double port = in->kind == PP_FAB_NVLINK && g->nvlink_Bps > 0 ? g->nvlink_Bps : in->port_Bps;
	hw->intra_Bps = port * in->efficiency;
	hw->intra_lat_s = in->latency_s;
	hw->intra_ncurve = in->ncurve;
	for (int i = 0; i < in->ncurve; i++) {
		hw->intra_curve_bytes[i] = in->curve_bytes[i];
		hw->intra_curve_Bps[i] = in->curve_Bps[i];
	}
	hw->intra_curve_nvls = in->curve_nvls;
	hw->nvls_algbw_ratio = cl->nvls_off ? 0 : in->nvls_algbw_ratio;
	hw->nvls_lat_s = in->nvls_latency_s;
	if (hw->nvls_algbw_ratio > 0)
		prov_origin(hw, "nvls_allreduce", cat, "fabrics", &in->nvls_prov);
	if (in->ncurve)
		pp_hw_set_origin(hw, "intra_node_busbw_curve", "catalog fabrics.json: published "
				 "nccl-tests all_reduce curve for %s (%s, %s)", in->id,
				 pp_catalog_source_title(cat, "fabrics", in->curve_prov.source),
				 in->curve_prov.date);
	prov_origin(hw, "intra_node_busbw", cat, "fabrics", &in->eff_prov);
	const pp_fabric *ex = cl->inter;
	hw->nic_Bps = ex->port_Bps * ex->efficiency;
	hw->inter_lat_s = ex->latency_s;
	prov_origin(hw, "nic_bandwidth", cat, "fabrics", &ex->eff_prov);
	hw->gpus_per_node = cl->gpus_per_node;
	hw->nics_per_node = cl->nics_per_node;
	hw->oversubscription = cl->oversubscription;
	hw->coll_launch_s = k->kernel_overhead_s * 4.0;
	pp_hw_set_origin(hw, "collective_latency", "catalog fabrics.json latency_us per hop, plus "
			 "4 kernel overheads per NCCL call");
	hw->storage_read_Bps = cl->storage_read_Bps;
	hw->storage_write_Bps = cl->storage_write_Bps;
	hw->storage_agg_read_Bps = cl->storage->agg_read_Bps;
	hw->storage_agg_write_Bps = cl->storage->agg_write_Bps;
	prov_origin(hw, "storage_bandwidth", cat, "storage", &cl->storage->prov);
	return 0;
}

int pp_hw_resolve_with(const pp_hw_resolver *r, const pp_catalog *cat, const pp_scenario *s,
		       const pp_cluster *cl, pp_hw *hw, pp_err *err)
{
	if (r && r->fn)
		return r->fn(r->ctx, cat, s, cl, hw, err);
	return pp_hw_from_catalog(hw, cat, cl, err);
}
