/* costlora.c - see costlora.h: the LoRA/QLoRA stand-in. */
#include "cost/costlora.h"
#include "input/costspec.h"

double cost_lora_params(const pp_model *m, double rank)
{
	double h = m->hidden_size, f = m->ffn_hidden_size;
	double kv = (double)m->num_query_groups * (h / m->num_attention_heads);
	double per = (h + h) + 2 * (h + kv) + (h + h);
	per += (m->swiglu ? 3 : 2) * (h + f);
	return m->num_layers * rank * per;
}

void cost_adapter_result(const pp_scenario *s, int method, double params,
			 const cost_adapter_figs *f, pp_result *res)
{
	double A = cost_lora_params(&s->model, f->lora_rank);
	double shard = (double)s->parallel.tp * s->parallel.pp;
	const pp_breakdown b = res->breakdown;
	double k = 0.75 * (method == PP_FT_QLORA ? 1.0 + f->qlora_dequant_fraction : 1.0);
	double small = params > 0 ? A / params : 0;
	double full_step_s = res->step_time_s;
	res->step_time_s = (b.compute_s + b.pp_bubble_s) * k + b.tp_comm_exposed_s +
			   b.pp_comm_exposed_s + b.data_s +
			   (b.dp_comm_exposed_s + b.optimizer_s) * small;
	/* the same terms, kept apart for the step-time breakdown */
	res->breakdown.compute_s *= k;
	res->breakdown.pp_bubble_s *= k;
	res->breakdown.dp_comm_exposed_s *= small;
	res->breakdown.optimizer_s *= small;
	if (res->step_time_s <= 0)
		res->step_time_s = full_step_s * 0.75;
	res->tokens_per_s = res->tokens_per_step / res->step_time_s;
	double wbytes = method == PP_FT_QLORA ? f->qlora_bits_per_param / 8.0 : 2.0;
	const pp_memory *m = &res->memory;
	res->memory.total_bytes = params * wbytes / shard + A * f->adapter_bytes_per_param / shard +
				  m->activations_bytes + m->temp_bytes + m->fragmentation_bytes;
	res->memory.fits = res->memory.total_bytes <= res->memory.capacity_bytes;
	double full_ckpt_bytes = res->checkpoint_bytes;
	res->checkpoint_bytes = A * f->adapter_bytes_per_param;
	res->checkpoint_write_s =
		full_ckpt_bytes > 0
			? res->checkpoint_write_s * res->checkpoint_bytes / full_ckpt_bytes
			: 0;
}
