/* kvcap.c - see kvcap.h. */
#include "serve/kvcap.h"
#include "engine/stages.h"
#include "engine/workload.h"

#include <math.h>
#include <string.h>

/* The profiling sampler over rows of the vocabulary: the 16-bit logits,
 * their fp32 copy and the fp32 probabilities live at once. */
static double sampler_bytes(double rows, double vocab)
{
	return rows * vocab * (2.0 + 4.0 + 4.0);
}

void pp_serve_memory_of(const pp_scenario *rs, const pp_servespec *sv, const pp_hw *hw,
			const pp_forward *f, pp_serve_memory *out)
{
	memset(out, 0, sizeof(*out));
	const pp_parallel *p = &rs->parallel;
	pp_workload w;
	pp_workload_build(&w, rs, hw);
	double wb = pp_dtype_bytes(sv->precision);
	out->device_bytes = sv->device_total_bytes > 0 ? sv->device_total_bytes : hw->mem_capacity_bytes;
	out->activation_bytes = pp_forward_peak_activation_bytes(f, (double)sv->max_num_batched_tokens);
	out->sampler_bytes = sampler_bytes((double)sv->max_num_seqs, rs->model.vocab_size);
	double peak = out->activation_bytes > out->sampler_bytes ? out->activation_bytes
								 : out->sampler_bytes;
	out->reserve_bytes = hw->reserved_bytes;
	double per_layer = pp_kv_bytes_per_token(&rs->model, p->tp, sv->kv_bytes) / rs->model.num_layers;
	int64_t best = -1;
	for (int st = 0; st < p->pp; st++) {
		double params = pp_stage_params(rs, &w, st);
		double sixteen = (st == 0 ? w.params_embed : 0) + (st == p->pp - 1 ? w.params_head : 0);
		double weights = (params - sixteen) * wb + sixteen * 2.0;
		double budget, kv;
		switch (sv->kv_rule) {
		case PP_KVRULE_TRTLLM:
			budget = out->device_bytes;
			kv = sv->gpu_memory_utilization * (budget - weights - peak - out->reserve_bytes);
			break;
		case PP_KVRULE_SGLANG: {
			double chunk = (double)sv->max_num_batched_tokens;
			double reserve = sv->sg_reserve_base_bytes +
					 sv->sg_reserve_per_chunk_token * (chunk > 2048 ? chunk : 2048) +
					 sv->sg_reserve_per_graph_bs * (double)sv->cudagraph_max +
					 sv->sg_reserve_per_8_ranks * p->tp * p->pp / 8.0;
			if (out->device_bytes > sv->sg_big_bytes && reserve < sv->sg_reserve_floor_bytes)
				reserve = sv->sg_reserve_floor_bytes;
			budget = out->device_bytes - reserve;
			kv = budget - weights;
			break;
		}
		default:
			budget = sv->gpu_memory_utilization * out->device_bytes;
			kv = budget - weights - peak - out->reserve_bytes;
			break;
		}
		double layers = 0, n[PP_LAYER_KINDS];
		pp_stage_kinds(rs, st, n);
		for (int k = 0; k < PP_LAYER_KINDS; k++)
			layers += n[k];
		double per_token = per_layer * layers;
		int64_t blocks = kv > 0 ? (int64_t)floor(kv / (sv->block_size * per_token)) : 0;
		if (best < 0 || blocks < best) {
			best = blocks;
			out->stage = st;
			out->budget_bytes = budget;
			out->weights_bytes = weights;
			out->kv_cache_bytes = kv > 0 ? kv : 0;
			out->kv_bytes_per_token = per_token;
		}
	}
	pp_workload_release(&w);
	out->num_gpu_blocks = best;
	out->kv_tokens = best * sv->block_size;
	out->max_concurrency = (double)out->kv_tokens / (double)sv->max_model_len;
	out->fits = out->kv_tokens >= sv->max_model_len;
}
