/* plancmd.c - see plancmd.h. */
#include "cli/plancmd.h"
#include "core/util.h"
#include "cost/costout.h"

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

void pp_plan_weighed(const pp_cost_result *w, pp_size_weighed *v, pp_sb *table, pp_sb *json)
{
	memset(v, 0, sizeof(*v));
	v->recommendation = w->recommendation;
	if (w->recommended >= 0) {
		const pp_cost_option *a = &w->options[w->recommended];
		v->recommended = a->name;
		v->gpu = a->gpu;
		v->num_gpus = a->num_gpus;
		v->fabric = a->fabric;
		v->kind = a->kind == PP_OPT_RENT || a->kind == PP_OPT_BUILD
				  ? pp_option_kind_names[a->kind] : "";
	}
	pp_cost_weighed_text(w, table);
	v->table = table->buf;
	pp_cost_to_json(w, json);
	v->json = json->buf;
}
