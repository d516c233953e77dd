/*
 * cserve.c - serving deployments in the cluster simulation (csim.h,
 * "Serving deployments"). A deployment's row stays in the stream as its
 * record; its replicas are jobs appended after the stream's own
 * (cs_sim.norig on), one per replica it may ever have (max_replicas), and
 * sit parked (ST_WAIT) while the autoscaler does not want them. Wanted
 * ones queue like any job, at a priority above training, and may preempt
 * where the spec allows it.
 *
 * The autoscaler's rule is the Kubernetes Horizontal Pod Autoscaler's,
 * desired = ceil(current x currentMetric / targetMetric)
 * (https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/,
 * "Algorithm details"), with requests/s per replica as the metric and the
 * replica's sustained rate as the target: ceil(demand / replica_rps),
 * clamped to [min, max], evaluated at the submission and every hour.
 */
#include "cluster/csimint.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HOUR_S 3600.0

static const pp_cserve_dep *spec_of(const cs_sim *s, const cs_dep *d)
{
	return &s->jobs->serve[cs_jx(s, d->job)->serve];
}

void cs_serve_init(cs_sim *s)
{
	const pp_cjobs *in = s->jobs;
	int n = in->n, nrep = 0;
	for (int j = 0; j < n; j++)
		if (in->v[j].serve >= 0) {
			s->ndeps++;
			nrep += in->serve[in->v[j].serve].max_replicas;
		}
	if (!s->ndeps)
		return;
	s->jx = *in;
	s->jx.v = pp_xmalloc(((size_t)n + (size_t)nrep) * sizeof(pp_cjob));
	memcpy(s->jx.v, in->v, (size_t)n * sizeof(pp_cjob));
	s->jx.n = s->jx.cap = n + nrep;
	s->deps = pp_xcalloc((size_t)s->ndeps, sizeof(cs_dep));
	s->rep_dep = pp_xmalloc(((size_t)nrep + 1) * sizeof(int));
	int k = 0, r = n;
	for (int j = 0; j < n; j++) {
		const pp_cjob *x = &in->v[j];
		if (x->serve < 0)
			continue;
		cs_dep *d = &s->deps[k];
		d->job = j;
		d->rep0 = r;
		d->nrep = in->serve[x->serve].max_replicas;
		d->end_s = x->submit_s + x->work_s;
		d->t_last = NAN;
		for (int i = 0; i < d->nrep; i++, r++) {
			pp_cjob *y = &s->jx.v[r];
			*y = *x;
			y->ckpt_interval_s = 0;
			y->ckpt_bytes = 0;
			y->limit_s = NAN;
			s->rep_dep[r - n] = k;
		}
		k++;
	}
	s->jobs = &s->jx;
	s->njobs = n + nrep;
}

static int find_dep(const cs_sim *s, int j)
{
	int lo = 0, hi = s->ndeps - 1;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (s->deps[mid].job < j)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* the autoscaler's step: as many replicas wanted as the demand needs */
static void scale(cs_sim *s, cs_dep *d)
{
	const pp_cserve_dep *sd = spec_of(s, d);
	d->rps_now = sd->demand_rps[d->hour % sd->nhours];
	double need = ceil(d->rps_now / sd->replica_rps - 1e-9);
	int want = need < sd->min_replicas ? sd->min_replicas
		   : need > sd->max_replicas ? sd->max_replicas : (int)need;
	d->want = want;
	int active = 0;
	for (int i = 0; i < d->nrep; i++) {
		uint8_t st = s->js[d->rep0 + i].st;
		active += st == ST_PEND || st == ST_RUN;
	}
	for (int i = 0; i < d->nrep && active < want; i++) {
		int j = d->rep0 + i;
		cs_job *J = &s->js[j];
		if (J->st != ST_WAIT)
			continue;
		J->needs_restart = true; /* a new replica loads its model first */
		cs_pend_insert(s, j);
		active++;
		s->dirty = true;
	}
	/* fewer: pending ones first, then running ones, the last first */
	for (int i = d->nrep - 1; i >= 0 && active > want; i--) {
		int j = d->rep0 + i;
		if (s->js[j].st == ST_PEND) {
			cs_pend_remove(s, j);
			s->js[j].st = ST_WAIT;
			active--;
			s->dirty = true;
		}
	}
	for (int i = d->nrep - 1; i >= 0 && active > want; i--) {
		int j = d->rep0 + i;
		if (s->js[j].st == ST_RUN) {
			cs_stop_job(s, j);
			s->js[j].st = ST_WAIT;
			active--;
		}
	}
}

static void push_hour(cs_sim *s, int k)
{
	cs_dep *d = &s->deps[k];
	double t = cs_jx(s, d->job)->submit_s + (d->hour + 1) * HOUR_S;
	pp_cheap_push(&s->heap, t < d->end_s ? t : d->end_s, EV_SERVE, k, 0);
}

static void end_dep(cs_sim *s, cs_dep *d)
{
	cs_serve_acc(s, d);
	for (int i = 0; i < d->nrep; i++) {
		int j = d->rep0 + i;
		cs_job *J = &s->js[j];
		if (J->st == ST_RUN) {
			cs_finish_job(s, j);
			continue;
		}
		if (J->st == ST_DONE)
			continue;
		if (J->st == ST_PEND)
			cs_pend_remove(s, j);
		J->st = ST_DONE;
		J->end_s = s->now;
		s->finished++;
	}
	cs_job *D = &s->js[d->job];
	D->st = ST_DONE;
	D->end_s = s->now;
	s->finished++;
	d->ended = true;
	s->dirty = true;
}

void cs_serve_arrive(cs_sim *s, int j)
{
	int k = find_dep(s, j);
	cs_dep *d = &s->deps[k];
	s->js[j].start_s = s->now;
	d->t_last = s->now;
	d->hour = 0;
	if (s->now >= d->end_s) {
		end_dep(s, d);
		return;
	}
	scale(s, d);
	push_hour(s, k);
}

void cs_serve_event(cs_sim *s, const pp_cev *e)
{
	cs_dep *d = &s->deps[e->who];
	if (d->ended)
		return;
	cs_serve_acc(s, d);
	if (s->now >= d->end_s) {
		end_dep(s, d);
		return;
	}
	d->hour++;
	scale(s, d);
	push_hour(s, e->who);
}

void cs_serve_finish(cs_sim *s)
{
	pp_csim_result *r = s->r;
	r->deployments = s->ndeps;
	for (int k = 0; k < s->ndeps; k++) {
		cs_dep *d = &s->deps[k];
		cs_serve_acc(s, d);
		r->serve_demand_req += d->demand_req;
		r->serve_served_req += d->served_req;
		r->serve_replica_s += d->replica_s;
	}
}

int cs_serve_replicas_done(const cs_sim *s)
{
	int n = 0;
	for (int j = s->norig; j < s->njobs; j++)
		n += s->js[j].st == ST_DONE;
	return n;
}

void cs_serve_release(cs_sim *s)
{
	if (!s->ndeps)
		return;
	free(s->jx.v);
	free(s->deps);
	free(s->rep_dep);
	s->deps = NULL;
	s->rep_dep = NULL;
	s->ndeps = 0;
}
