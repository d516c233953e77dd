/* stages.c - see stages.h. */
#include "engine/stages.h"
#include "engine/pipeorder.h"

int pp_stage_layers(const pp_scenario *s, int vs)
{
	const pp_parallel *p = &s->parallel;
	int L = s->model.num_layers;
	if (p->layout_len > 0) /* Megatron-Core's pipeline_model_parallel_layout */
		return vs < p->layout_len ? p->layout_layers[vs] : 0;
	if (p->first_stage_layers || p->last_stage_layers) {
		/* Megatron-Core's uneven first and last stages (checked to divide
		 * evenly by the scenario loader) */
		int st = vs % p->pp;
		int ends = (p->first_stage_layers > 0) + (p->last_stage_layers > 0);
		int mid = p->pp - ends;
		int rest = L - p->first_stage_layers - p->last_stage_layers;
		int n = st == 0 && p->first_stage_layers ? p->first_stage_layers
			: st == p->pp - 1 && p->last_stage_layers ? p->last_stage_layers
			: rest / (mid > 0 ? mid : 1);
		return n / p->vpp;
	}
	int nv = pp_parallel_nv(p);
	return L / nv + (vs < L % nv ? 1 : 0);
}

int pp_stage_first_layer(const pp_scenario *s, int vs)
{
	int first = 0;
	for (int v = 0; v < vs; v++)
		first += pp_stage_layers(s, v);
	return first;
}

void pp_stage_kinds(const pp_scenario *s, int st, double n[PP_LAYER_KINDS])
{
	const pp_parallel *p = &s->parallel;
	for (int k = 0; k < PP_LAYER_KINDS; k++)
		n[k] = 0;
	bool dense = s->model.num_experts <= 0 && s->model.window <= 0;
	if (dense && p->layout_len <= 0 && !p->first_stage_layers && !p->last_stage_layers &&
	    !pp_schedule_two_chunks(p->schedule)) {
		/* pp_stage_layers' even split summed over the stage's chunks
		 * c P + st: L / nv each, and one more for those below L mod nv */
		int nv = p->pp * p->vpp, rem = s->model.num_layers % nv;
		int more = st < rem ? (rem - 1 - st) / p->pp + 1 : 0;
		n[0] = (double)p->vpp * (s->model.num_layers / nv) + (more < p->vpp ? more : p->vpp);
		return;
	}
	pp_pipe pl = pp_pipe_of(s);
	for (int c = 0; c < p->vpp; c++) {
		int vs = pp_pipe_vs(&pl, st, c), L = pp_stage_layers(s, vs);
		if (dense) {
			n[0] += L;
			continue;
		}
		int first = pp_stage_first_layer(s, vs);
		for (int l = 0; l < L; l++)
			n[pp_model_layer_kind(&s->model, first + l)]++;
	}
}

pp_stage_count pp_stage_count_of(const pp_scenario *s, const pp_workload *w, int st,
				 const double n[PP_LAYER_KINDS])
{
	pp_stage_count c = {0, 0, 0};
	for (int k = 0; k < PP_LAYER_KINDS; k++) {
		const pp_layer_cost *lc = &w->lk[k];
		if (n[k] > 0) {
			c.held += n[k] * lc->params;
			c.trained += n[k] * lc->trainable;
			c.trained_expert += n[k] * lc->trainable_expert;
		}
	}
	if (pp_stage_holds_embed(s, st)) {
		c.held += w->params_embed;
		c.trained += w->trainable_embed;
	}
	if (pp_stage_holds_head(s, st)) {
		c.held += w->params_head;
		c.trained += w->trainable_head;
	}
	return c;
}

static pp_stage_count stage_count(const pp_scenario *s, const pp_workload *w, int st)
{
	double n[PP_LAYER_KINDS];
	pp_stage_kinds(s, st, n);
	return pp_stage_count_of(s, w, st, n);
}

double pp_stage_params(const pp_scenario *s, const pp_workload *w, int st)
{
	return stage_count(s, w, st).held;
}

double pp_stage_trainable(const pp_scenario *s, const pp_workload *w, int st)
{
	return stage_count(s, w, st).trained;
}

double pp_stage_trainable_expert(const pp_scenario *s, const pp_workload *w, int st)
{
	return stage_count(s, w, st).trained_expert;
}

bool pp_stage_holds_head(const pp_scenario *s, int st)
{
	const pp_parallel *p = &s->parallel;
	if (pp_schedule_two_ended(p->schedule))
		return st == 0 || st == p->pp - 1;
	return st == (pp_schedule_vshape(p->schedule) ? 0 : p->pp - 1);
}

bool pp_stage_holds_embed(const pp_scenario *s, int st)
{
	const pp_parallel *p = &s->parallel;
	return st == 0 || (pp_schedule_two_ended(p->schedule) && st == p->pp - 1);
}

double pp_stage_inflight_chunks(const pp_scenario *s, int stage)
{
	const pp_parallel *p = &s->parallel;
	double m = (double)s->training.num_microbatches;
	double n;
	switch (p->schedule) {
	case PP_SCHED_GPIPE:
		n = m;
		break;
	case PP_SCHED_INTERLEAVED:
	{
		/* Megatron-Core's warm-up forwards plus the steady part's one */
		pp_pipe pl = pp_pipe_of(s);
		n = (double)(p->pp - stage - 1) * 2 + (double)(p->vpp - 1) * pp_pipe_group(&pl) + 1;
	}
		if (n > m * p->vpp)
			n = m * p->vpp;
		break;
	case PP_SCHED_ZBH1:
	case PP_SCHED_ZBH2:
	case PP_SCHED_ZBV:
	case PP_SCHED_DUALPIPEV:
	case PP_SCHED_DUALPIPE: {
		/* the listed order's peak (pipelist.c) */
		pp_pipe pl = pp_pipe_of(s);
		n = pp_pipe_peak_inflight(&pl, stage);
		break;
	}
	default:
		n = p->pp - stage;
		if (n > m)
			n = m;
		break;
	}
	return n;
}
