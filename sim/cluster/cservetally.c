/*
 * cservetally.c - a serving deployment's tallies (cserve.c has the
 * deployments): requests asked for and served, and replica-seconds,
 * integrated as replicas start and stop serving. Kept apart so that a
 * job's attempts (csjob.c) can report to it without calling back into the
 * autoscaler.
 */
#include "cluster/csimint.h"

#include <math.h>

static const pp_cserve_dep *spec_of(const cs_sim *s, const cs_dep *d)
{
	return &s->jobs->serve[cs_jx(s, d->job)->serve];
}

/* the integrals up to now */
void cs_serve_acc(cs_sim *s, cs_dep *d)
{
	if (isnan(d->t_last) || d->ended)
		return;
	double dt = s->now - d->t_last;
	if (dt > 0) {
		double cap = d->serving * spec_of(s, d)->replica_rps;
		d->served_req += fmin(d->rps_now, cap) * dt;
		d->demand_req += d->rps_now * dt;
		d->replica_s += d->serving * dt;
	}
	d->t_last = s->now;
}

void cs_serve_count(cs_sim *s, int j, int delta)
{
	cs_dep *d = &s->deps[s->rep_dep[j - s->norig]];
	cs_serve_acc(s, d);
	d->serving += delta;
}

void cs_serve_work(cs_sim *s, int j)
{
	cs_job *J = &s->js[j];
	const cs_dep *d = &s->deps[s->rep_dep[j - s->norig]];
	J->work = J->done + (d->end_s > s->now ? d->end_s - s->now : 0);
	J->next_ckpt_at = INFINITY;
}
