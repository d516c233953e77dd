/* predict.c - see predict.h. */
#include "engine/predict.h"
#include "engine/fastpath.h"
#include "engine/memory.h"
#include "engine/evgraph.h"
#include "engine/timeline.h"
#include "engine/stepcost.h"
#include "engine/trace.h"
#include "input/limits.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How the step is run: the closed-form walk of the step's program (the
 * same tasks and durations as the event graph, to the nanosecond, in
 * memory that holds two numbers a unit and no graph), or the event
 * simulation itself when a trace is wanted or the walk stalls (a cycle the
 * event simulation then reports). */
typedef struct sim {
	bool fast;
	pp_des *d;
	int64_t tasks;
} sim;

static int run(sim *m, const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
	       pp_sched_opts o, pp_stage_busy *busy, int64_t *makespan, pp_err *err)
{
	if (m->fast) {
		int64_t t = pp_fp_run(s, hw, w, &o, busy, &m->tasks);
		if (t >= 0) {
			*makespan = t;
			return 0;
		}
		m->fast = false;
	}
	/* the event graph holds every task: the walk's larger limit does not
	 * apply to it */
	double tasks = pp_limit_pipeline_tasks(&s->training, &s->parallel);
	if (tasks > PP_LIMIT_EVENT_TASKS)
		return pp_errf(err, PP_EINPUT, "%s: %.4g pipeline tasks per step (%d stages x %d "
			       "chunks x %lld micro-batches), expected at most %d for the event "
			       "simulation (a trace); a larger micro_batch_size or data_parallel_size "
			       "makes fewer", s->name, tasks, s->parallel.pp, s->parallel.vpp,
			       (long long)s->training.num_microbatches, PP_LIMIT_EVENT_TASKS);
	if (!m->d)
		m->d = pp_des_new();
	pp_evgraph_build(m->d, s, hw, w, &o, busy);
	int rc = pp_des_run(m->d, err);
	if (!rc) {
		*makespan = pp_des_makespan(m->d);
		m->tasks = pp_des_events(m->d);
	}
	return rc;
}

/* When stage st's optimizer ends (its busy entry from the last run). */
static int64_t stage_end(const sim *m, const pp_stage_busy *b)
{
	return m->fast ? b->last_task : pp_des_end(m->d, (int)b->last_task);
}

static void bottleneck(pp_result *r)
{
	const pp_breakdown *b = &r->breakdown;
	struct {
		const char *what;
		double s;
	} terms[] = {
		{"pipeline bubble", b->pp_bubble_s},
		{"tensor-parallel communication", b->tp_comm_exposed_s - r->cp_comm_exposed_s},
		{"context-parallel communication", r->cp_comm_exposed_s},
		{"expert-parallel communication", b->ep_comm_exposed_s},
		{"data-parallel communication", b->dp_comm_exposed_s},
		{"pipeline send/recv", b->pp_comm_exposed_s},
		{"optimizer step", b->optimizer_s},
		{"data loading", b->data_s},
	};
	size_t best = 0;
	for (size_t i = 1; i < PP_ARRAY_LEN(terms); i++)
		if (terms[i].s > terms[best].s)
			best = i;
	double share = r->step_time_s > 0 ? terms[best].s / r->step_time_s : 0;
	if (!r->memory.fits)
		snprintf(r->bottleneck, sizeof(r->bottleneck), "memory: does not fit (%.0f%% of capacity)",
			 100.0 * r->memory.total_bytes / r->memory.capacity_bytes);
	else if (share < 0.05)
		snprintf(r->bottleneck, sizeof(r->bottleneck), "compute (kernels %.0f%% of the step)",
			 100.0 * b->compute_s / r->step_time_s);
	else
		snprintf(r->bottleneck, sizeof(r->bottleneck), "%s (%.0f%% of the step)", terms[best].what,
			 100.0 * share);
}

int pp_predict(const pp_scenario *s, const pp_hw *hw, const pp_predict_opts *opts, pp_result *out,
	       pp_err *err)
{
	int rc = 0;
	memset(out, 0, sizeof(*out));
	const pp_parallel *p = &s->parallel;
	const pp_training *tr = &s->training;
	if (tr->num_microbatches < 1)
		return pp_errf(err, PP_EINPUT, "%s: the layout gives no micro-batches", s->name);
	pp_workload w;
	pp_workload_build(&w, s, hw);
	sim m = {!(opts && (opts->trace || opts->timeline)), NULL, 0};
	pp_stage_busy *busy = pp_xcalloc((size_t)p->pp, sizeof(pp_stage_busy));
	int64_t t_full, t_nodata, t_nodp, t_nop2p;
	pp_sched_opts o = {false, false, false};
	if ((rc = run(&m, s, hw, &w, o, busy, &t_full, err)))
		goto out;
	out->events = m.tasks;
	if (opts && opts->trace)
		pp_trace_capture(opts->trace, m.d, s->name);
	if (opts && opts->timeline) {
		char title[96];
		pp_parallel_schedule_text(&s->parallel, title, sizeof(title));
		pp_timeline_text(m.d, title[0] ? title : "one stage", opts->timeline);
	}
	/* The ablations, each run again unless its answer is exact without:
	 * the data read has a stream of its own and nothing waits for it, so
	 * the step without it is the step when the read ends earlier; a step
	 * with no data-parallel or tied-embedding traffic loses nothing without
	 * it; one stage has no sends. The event count stays that of four runs
	 * (what was simulated is one step and its three ablations). */
	pp_stepcost sc;
	pp_stepcost_init(&sc, s, hw, &w, NULL);
	bool dp_traffic = w.dp.n > 1 || w.edp.n > 1 || sc.embed_ar.ns >= 0;
	int64_t data_ns = sc.data_ns;
	pp_stepcost_release(&sc);
	o.no_data = true;
	if (t_full > data_ns)
		t_nodata = t_full;
	else if ((rc = run(&m, s, hw, &w, o, busy, &t_nodata, err)))
		goto out;
	o.no_dp = true;
	if (!dp_traffic)
		t_nodp = t_nodata;
	else if ((rc = run(&m, s, hw, &w, o, busy, &t_nodp, err)))
		goto out;
	o.no_p2p = true;
	if (p->pp < 2)
		t_nop2p = t_nodp;
	else if ((rc = run(&m, s, hw, &w, o, busy, &t_nop2p, err)))
		goto out;
	out->events += 3 * out->events;

	double T = t_full * 1e-9;
	out->step_time_s = T;
	/* the critical stage: the one whose optimizer ends last without comm */
	int crit = 0;
	int64_t latest = -1;
	for (int st = 0; st < p->pp; st++) {
		int64_t e = stage_end(&m, &busy[st]);
		if (e > latest) {
			latest = e;
			crit = st;
		}
	}
	pp_breakdown *b = &out->breakdown;
	b->data_s = (t_full - t_nodata) * 1e-9;
	b->dp_comm_exposed_s = (t_nodata - t_nodp) * 1e-9;
	b->pp_comm_exposed_s = (t_nodp - t_nop2p) * 1e-9;
	b->compute_s = busy[crit].compute_s;
	b->tp_comm_exposed_s = busy[crit].tp_s;
	out->cp_comm_exposed_s = busy[crit].cp_s;
	b->ep_comm_exposed_s = busy[crit].ep_s;
	b->optimizer_s = busy[crit].opt_s;
	double bubble = t_nop2p * 1e-9 - b->compute_s - b->tp_comm_exposed_s - b->ep_comm_exposed_s -
			b->optimizer_s;
	b->pp_bubble_s = bubble > 0 ? bubble : 0;

	double mbs_total = (double)tr->global_batch_size / tr->micro_batch_size;
	double ranks = (double)p->tp * p->cp; /* op costs are per TP and CP rank */
	double per_mb_model = p->pp > 0 ? pp_workload_layer_flops(&w, PP_FL_MODEL | PP_FL_PASSES) +
						  w.embed.fwd.model_flops + w.embed.bwd.model_flops +
						  w.head.fwd.model_flops + w.head.bwd.model_flops
					: 0;
	double per_mb_hw = per_mb_model + pp_workload_layer_flops(&w, PP_FL_MODEL | PP_FL_RECOMPUTE);
	double per_mb_exec = p->pp > 0 ? pp_workload_layer_flops(&w, PP_FL_PASSES | PP_FL_RECOMPUTE) +
						 w.embed.fwd.flops + w.embed.bwd.flops + w.head.fwd.flops +
						 w.head.bwd.flops
				       : 0;
	out->exec_flops_per_step = per_mb_exec * ranks * mbs_total;
	out->model_flops_per_step = per_mb_model * ranks * mbs_total;
	out->hw_flops_per_step = per_mb_hw * ranks * mbs_total;
	double peak = hw->peak_flops[tr->precision] * s->cluster.num_gpus;
	out->mfu = out->model_flops_per_step / (T * peak);
	out->hfu = out->hw_flops_per_step / (T * peak);
	out->model_tflops_per_gpu = out->model_flops_per_step / T / s->cluster.num_gpus / PP_TERA;
	out->hw_tflops_per_gpu = out->hw_flops_per_step / T / s->cluster.num_gpus / PP_TERA;
	out->exec_util = out->exec_flops_per_step / (T * peak);
	out->exec_tflops_per_gpu = out->exec_flops_per_step / T / s->cluster.num_gpus / PP_TERA;
	out->tokens_per_step = (double)tr->global_batch_size * s->model.seq_length;
	out->tokens_per_s = out->tokens_per_step / T;
	if (tr->train_tokens > 0) {
		out->steps_to_train = ceil(tr->train_tokens / out->tokens_per_step);
		out->time_to_train_s = out->steps_to_train * T;
	}
	pp_memory_estimate(s, hw, &w, &out->memory);
	out->params_total = w.params_total;
	out->params_active = w.params_active;
	bool mixed = tr->precision != PP_DT_FP32 && tr->precision != PP_DT_TF32;
	double opt_bytes = tr->optimizer == PP_OPTIM_ADAM ? 8.0 : 4.0;
	/* what a restart needs: the trained weights with their master copy and
	 * optimizer state (a frozen base is reloaded from the base model) */
	out->params_trainable = w.trainable_total;
	out->checkpoint_bytes = w.trainable_total * ((mixed ? 2.0 + 4.0 : 4.0) + opt_bytes);
	double wr = hw->storage_write_Bps * pp_cluster_nodes(&s->cluster);
	if (hw->storage_agg_write_Bps > 0 && hw->storage_agg_write_Bps < wr)
		wr = hw->storage_agg_write_Bps;
	out->checkpoint_write_s = out->checkpoint_bytes / wr;
	bottleneck(out);
out:
	free(busy);
	pp_des_free(m.d);
	pp_workload_release(&w);
	return rc;
}
