/* cscen.c - see cscen.h. */
#include "cluster/cscen.h"
#include "engine/predict.h"
#include "input/hw.h"
#include "input/scenario.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
	pp_scenario sc;
	bool loaded;
	bool have[2];          /* [spans_leaf] */
	double step_s[2], tps[2], mfu[2];
} entry;

struct pp_cscen {
	entry *e;
	int n;
	const pp_catalog *cat;
	pp_hw_resolver hwr;    /* fn NULL: the catalog's figures */
	double oversub;        /* across leaves */
};

int pp_cscen_new(pp_cscen **out, const pp_cjobs *jobs, const char *jobs_path,
		 const pp_cspec *spec, const pp_catalog *cat, const pp_hw_resolver *hwr,
		 pp_err *err)
{
	pp_cscen *c = pp_xcalloc(1, sizeof(*c));
	c->n = jobs->nscenarios;
	c->e = pp_xcalloc((size_t)c->n + 1, sizeof(entry));
	c->cat = cat;
	if (hwr)
		c->hwr = *hwr;
	c->oversub = spec->oversubscription;
	*out = c;
	char dir[4096] = ".";
	const char *slash = jobs_path ? strrchr(jobs_path, '/') : NULL;
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - jobs_path), jobs_path);
	for (int i = 0; i < c->n; i++) {
		const char *p = jobs->scenarios[i];
		char *full = p[0] == '/' ? pp_xstrdup(p) : pp_path_join(dir, p);
		int rc = pp_scenario_load(&c->e[i].sc, full, cat, err);
		free(full);
		if (rc) {
			pp_cscen_free(c);
			*out = NULL;
			return rc;
		}
		c->e[i].loaded = true;
	}
	for (int j = 0; j < jobs->n; j++) {
		const pp_cjob *x = &jobs->v[j];
		if (x->scenario < 0)
			continue;
		int want = c->e[x->scenario].sc.cluster.num_gpus;
		if (x->gpus != want) {
			int rc = pp_errf(err, PP_EINPUT, "%s: job %s: found %d GPUs, expected the %d "
					 "of its scenario %s (cluster.num_gpus)", jobs_path,
					 pp_cjobs_id(jobs, x), (int)x->gpus, want,
					 jobs->scenarios[x->scenario]);
			pp_cscen_free(c);
			*out = NULL;
			return rc;
		}
	}
	return 0;
}

void pp_cscen_free(pp_cscen *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n; i++)
		if (c->e[i].loaded)
			pp_scenario_release(&c->e[i].sc);
	free(c->e);
	free(c);
}

int pp_cscen_step(void *ctx, int s, bool spans_leaf, double *step_s, double *tokens_per_step,
		  double *mfu, pp_err *err)
{
	pp_cscen *c = ctx;
	entry *e = &c->e[s];
	int k = spans_leaf ? 1 : 0;
	if (!e->have[k]) {
		pp_scenario x = e->sc;
		x.cluster.oversubscription = spans_leaf ? c->oversub : 1.0;
		pp_hw hw;
		pp_result r;
		int rc = pp_hw_resolve_with(&c->hwr, c->cat, &x, &x.cluster, &hw, err);
		if (!rc)
			rc = pp_predict(&x, &hw, NULL, &r, err);
		if (rc)
			return rc;
		e->step_s[k] = r.step_time_s;
		e->tps[k] = r.tokens_per_step;
		e->mfu[k] = r.mfu;
		e->have[k] = true;
	}
	*step_s = e->step_s[k];
	*tokens_per_step = e->tps[k];
	*mfu = e->mfu[k];
	return 0;
}

int pp_cscen_simulate(const pp_cspec *spec, const pp_cjobs *jobs, const char *jobs_path,
		      const pp_catalog *cat, const pp_hw_resolver *hwr, const pp_csim_opts *o,
		      pp_csim_result *r, pp_err *err)
{
	pp_cscen *sc = NULL;
	int rc;
	memset(r, 0, sizeof(*r));
	if (jobs->nscenarios && (rc = pp_cscen_new(&sc, jobs, jobs_path, spec, cat, hwr, err)))
		return rc;
	pp_csim_opts x = {0};
	if (o)
		x = *o;
	x.step = sc ? pp_cscen_step : NULL;
	x.step_ctx = sc;
	rc = pp_csim_run(spec, jobs, &x, r, err);
	pp_cscen_free(sc);
	return rc;
}
