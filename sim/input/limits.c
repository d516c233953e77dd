/* limits.c - see limits.h. */
#include "input/limits.h"

#include <math.h>

double pp_limit_pipeline_tasks(const pp_training *t, const pp_parallel *p)
{
	double per = (double)t->micro_batch_size * (p->dp > 0 ? p->dp : 1);
	double mb = per > 0 ? floor((double)t->global_batch_size / per) : 0;
	/* DualPipe: each of a rank's two chunks runs half the micro-batches */
	if (pp_schedule_two_ended(p->schedule))
		mb /= 2;
	return (double)(p->pp > 0 ? p->pp : 1) * (p->vpp > 0 ? p->vpp : 1) * mb;
}

double pp_limit_step_flop(const pp_scenario *s)
{
	const pp_model *m = &s->model;
	double h = m->hidden_size, L = m->num_layers, f = m->ffn_hidden_size;
	double mlp = (m->swiglu ? 3.0 : 2.0) * h; /* GEMMs of the MLP per FFN column */
	double layer = 4.0 * h * h;              /* Q, K, V, output: an upper estimate with GQA */
	double dense = mlp * f, moe = dense;
	if (m->num_experts > 0)
		moe = mlp * ((double)m->moe_router_topk * m->moe_ffn_hidden_size +
			     m->moe_shared_expert_intermediate_size);
	double moe_layers = 0;
	for (int i = 0; m->num_experts > 0 && i < m->num_layers; i++)
		moe_layers += pp_model_layer_moe(m, i);
	double active = L * layer + (L - moe_layers) * dense + moe_layers * moe + 2.0 * m->vocab_size * h;
	double tokens = (double)s->training.global_batch_size * m->seq_length;
	double per_token = 6.0 * active + 12.0 * L * m->seq_length * h;
	if (s->training.recompute == PP_RC_FULL)
		per_token *= 8.0 / 6.0;
	return per_token * tokens;
}

int pp_scenario_check_limits(const pp_scenario *s, pp_err *err)
{
	const pp_jdoc *d = &s->doc;
	const pp_model *m = &s->model;
	static const char *const fmt = "found %lld, expected at most %lld (podplan's limit on a "
				       "size that drives memory and time)";
	const struct {
		const char *path;
		long long v, max;
	} size[] = {
		{"model.num_layers", m->num_layers, PP_LIMIT_LAYERS},
		{"model.hidden_size", m->hidden_size, PP_LIMIT_HIDDEN},
		{"model.ffn_hidden_size", m->ffn_hidden_size, PP_LIMIT_HIDDEN},
		{"model.moe_ffn_hidden_size", m->moe_ffn_hidden_size, PP_LIMIT_HIDDEN},
		{"model.moe_shared_expert_intermediate_size", m->moe_shared_expert_intermediate_size,
		 PP_LIMIT_HIDDEN},
		{"model.seq_length", m->seq_length, PP_LIMIT_SEQ},
		{"model.vocab_size", m->vocab_size, PP_LIMIT_VOCAB},
		{"model.num_experts", m->num_experts, PP_LIMIT_EXPERTS},
		{"training.global_batch_size", (long long)s->training.global_batch_size,
		 PP_LIMIT_GLOBAL_BATCH},
	};
	for (size_t i = 0; i < PP_ARRAY_LEN(size); i++)
		if (size[i].v > size[i].max)
			return pp_jdoc_errf(d, err, size[i].path, fmt, size[i].v, size[i].max);
	const pp_training *t = &s->training;
	const pp_parallel *p = &s->parallel;
	double tasks = pp_limit_pipeline_tasks(t, p);
	if (tasks > PP_LIMIT_PIPELINE_TASKS)
		return pp_jdoc_errf(d, err, "training.global_batch_size",
				    "found %lld sequences: %d stages x %d chunks x %.0f micro-batches "
				    "= %.4g pipeline tasks per step, expected at most %d (a larger "
				    "micro_batch_size or data_parallel_size makes fewer)",
				    (long long)t->global_batch_size, p->pp, p->vpp > 0 ? p->vpp : 1,
				    tasks / ((double)p->pp * (p->vpp > 0 ? p->vpp : 1)), tasks,
				    PP_LIMIT_PIPELINE_TASKS);
	double mb = tasks / ((double)p->pp * (p->vpp > 0 ? p->vpp : 1));
	if (mb * m->num_layers > PP_LIMIT_LAYER_PASSES)
		return pp_jdoc_errf(d, err, "training.global_batch_size",
				    "found %lld sequences: %.0f micro-batches x %d layers = %.4g layer "
				    "passes per step, expected at most %d (a larger micro_batch_size or "
				    "data_parallel_size makes fewer)", (long long)t->global_batch_size, mb,
				    m->num_layers, mb * m->num_layers, PP_LIMIT_LAYER_PASSES);
	const pp_gpu *g = s->cluster.gpu;
	double peak = g ? g->peak_flops[t->precision] : 0;
	double ideal = peak > 0 && s->cluster.num_gpus > 0
			       ? pp_limit_step_flop(s) / (peak * s->cluster.num_gpus)
			       : 0;
	if (ideal > PP_LIMIT_IDEAL_STEP_S)
		return pp_jdoc_errf(d, err, "training.global_batch_size",
				    "found a step of %.3g FLOPs, %.3g s on %d GPUs at their peak alone "
				    "(%.0f days); expected at most %.0f s (podplan's limit: check the "
				    "model and batch sizes)", pp_limit_step_flop(s), ideal,
				    s->cluster.num_gpus, ideal / 86400, PP_LIMIT_IDEAL_STEP_S);
	return 0;
}
