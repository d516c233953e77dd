/* plancmd.c - see plancmd.h. */
#include "cli/plancmd.h"
#include "core/util.h"

#include <math.h>
#include <string.h>

void pp_plan_on_progress(const pp_search_progress *p, void *ctx)
{
	pp_plan_prog *g = ctx;
	if (!g->on)
		return;
	if (p->phase == 0)
		g->phase1_at = -1;
	else if (g->phase1_at < 0)
		g->phase1_at = p->elapsed_s;
	double now = pp_mono_s();
	if (now - g->last < 0.1)
		return;
	g->last = now;
	double rate = p->elapsed_s > 0 ? p->done / p->elapsed_s : 0;
	if (p->phase == 0) {
		fprintf(stderr, "\r\033[K%sfitting %lld candidates, %.0f/s", g->prefix,
			(long long)p->done, rate);
	} else {
		double dt = p->elapsed_s - g->phase1_at;
		double srate = dt > 0 ? p->simulated / dt : 0;
		fprintf(stderr, "\r\033[K%ssimulating in order of the bound: %lld done, %.0f/s; "
			"at most %lld more", g->prefix, (long long)p->simulated, srate,
			(long long)p->to_simulate);
	}
	fflush(stderr);
}

void pp_plan_progress_end(pp_plan_prog *g)
{
	if (g->on && g->last > 0)
		fprintf(stderr, "\r\033[K");
	g->last = 0;
}

int pp_plan_load(pp_plan_loaded *l, const char *path, const char *cmd, const char *calib)
{
	pp_err err = {0};
	int rc = pp_cli_load_scenario(&l->c, cmd, path, calib, NULL, PP_CLI_UNCHECKED);
	if (rc)
		return rc;
	l->spec = l->c.s.search;
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(l->c.s.doc.root, "training");
	if (!cJSON_GetObjectItemCaseSensitive(t, "global_batch_size")) {
		pp_jdoc_errf(&l->c.s.doc, &err, "training", "has no global_batch_size; expected one "
			     "(the search keeps the global batch fixed and splits it)");
		return pp_cli_fail(&err);
	}
	return 0;
}

void pp_plan_unload(pp_plan_loaded *l)
{
	pp_cli_scenario_release(&l->c);
}

const char *pp_plan_short_layout(const pp_layout *l, char *buf, size_t n)
{
	char sched[16];
	if (l->pp == 1)
		snprintf(sched, sizeof(sched), "-");
	else if (l->vpp > 1 && l->schedule == PP_SCHED_INTERLEAVED)
		snprintf(sched, sizeof(sched), "v%d", l->vpp);
	else /* 1f1b, gpipe, zb-h1, zb-h2, zbv, dualpipev, dualpipe */
		snprintf(sched, sizeof(sched), "%s", pp_schedule_names[l->schedule]);
	char ep[16] = "";
	if (l->ep > 1)
		snprintf(ep, sizeof(ep), " EP%d", l->ep);
	snprintf(buf, n, "TP%d PP%d DP%d CP%d%s %s mb%lld ZeRO-%d%s %s", l->tp, l->pp, l->dp, l->cp,
		 ep, sched, (long long)l->micro_batch_size, l->zero_stage, l->sp ? " SP" : "",
		 pp_recompute_names[l->recompute]);
	return buf;
}

void pp_plan_layout_json(cJSON *o, const pp_layout *l, int64_t mbs_count)
{
	pp_json_int(o, "tensor_model_parallel_size", l->tp);
	pp_json_int(o, "pipeline_model_parallel_size", l->pp);
	pp_json_int(o, "data_parallel_size", l->dp);
	pp_json_int(o, "context_parallel_size", l->cp);
	pp_json_int(o, "virtual_pipeline_model_parallel_size", l->vpp);
	if (l->ep > 1)
		pp_json_int(o, "expert_model_parallel_size", l->ep);
	pp_json_bool(o, "sequence_parallel", l->sp);
	pp_json_int(o, "zero_stage", l->zero_stage);
	pp_json_str(o, "pipeline_schedule", pp_schedule_names[l->schedule]);
	pp_json_int(o, "micro_batch_size", l->micro_batch_size);
	pp_json_str(o, "recompute", pp_recompute_names[l->recompute]);
	pp_json_int(o, "num_microbatches", mbs_count);
}
