/*
 * cspotsim.c - the spot pool in the cluster simulation (csim.h, "Spot
 * pool"; the spec: cspot.h). The pool's nodes follow the on-demand nodes
 * (s->spot_first on) in leaves of their own (s->od_leaves on), so
 * placement keeps the two apart by the range of leaves it may use.
 *
 * A spot node is SP_AVAIL, SP_LEAVING (reclaim notice given: taken out of
 * placement, its jobs run on) or SP_OUT (gone). A node taken out of
 * placement goes through cs_node_down(), which counts it as failed;
 * here the count of failed GPUs (s->down_gpus) is put back, so that "down"
 * stays infrastructure failures and the pool's absence is integrated
 * apart (s->spot_out_gpu_s).
 */
#include "cluster/csimint.h"
#include "core/util.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>

static const pp_cspot *pool(const cs_sim *s)
{
	return &s->spec->spot;
}

/* the pool's absence integrated up to now */
static void out_advance(cs_sim *s)
{
	s->spot_out_gpu_s += (double)s->spot_out * s->G * (s->now - s->spot_t);
	s->spot_t = s->now;
}

/* the next reclaim of rate mode: a new draw (the available count changed) */
static void rate_push(cs_sim *s)
{
	double lam = pool(s)->reclaims_per_node_s * s->spot_avail;
	s->spot_gen++;
	if (lam <= 0 || s->finished >= s->njobs)
		return;
	pp_cheap_push(&s->heap, s->now + gsl_ran_exponential(s->rng, 1.0 / lam), EV_SPOT_RATE, -1,
		      s->spot_gen);
}

/* pool node i is out of placement from now; a node down for a failure
 * leaves the failures' count (its repair is void: cs_spot_repair_skip) */
static void take_out(cs_sim *s, int i)
{
	int n = s->spot_first + i;
	if (s->nodes[n].up)
		cs_node_down(s, n);
	s->down_gpus -= s->G;
}

/* pool node i comes (back) into placement */
static void bring_back(cs_sim *s, int i)
{
	int n = s->spot_first + i;
	out_advance(s);
	s->spot_out--;
	s->spot_st[i] = SP_AVAIL;
	s->spot_avail++;
	if (!s->nodes[n].up) {
		s->down_gpus += s->G; /* cs_node_up takes them off */
		cs_node_up(s, n);
	}
	s->dirty = true;
}

/* A reclaim of pool node i: the notice now, the node gone at t_gone. */
static void notice(cs_sim *s, int i, double t_gone)
{
	int n = s->spot_first + i;
	double left = t_gone - s->now;
	s->spot_st[i] = SP_LEAVING;
	s->spot_avail--;
	s->r->spot_reclaims++;
	take_out(s, i);
	cs_node *nd = &s->nodes[n];
	/* emergency checkpoints first: their events come before the node goes */
	for (int k = 0; k < nd->njobs; k++) {
		int j = nd->jobs[k];
		cs_job *J = &s->js[j];
		const pp_cjob *x = cs_jx(s, j);
		if (J->spot_ckpt || J->st != ST_RUN || !(x->ckpt_bytes > 0) || j >= s->norig)
			continue;
		double w = isfinite(s->spec->fs_write_Bps) ? x->ckpt_bytes / s->spec->fs_write_Bps : 0;
		if (w > left)
			continue;
		cs_fs_cancel(s, j); /* a write in flight gives way to this one */
		cs_settle(s, j);
		J->phase = PH_CKPT_BLOCK;
		J->spot_ckpt = true;
		J->gen++;
		pp_cheap_push(&s->heap, s->now + w, EV_SPOT_CKPT, j, J->gen);
	}
	pp_cheap_push(&s->heap, t_gone, EV_SPOT_TERM, i, 0);
}

/* pick an available pool node uniformly */
static int pick_avail(cs_sim *s)
{
	unsigned long k = gsl_rng_uniform_int(s->rng, (unsigned long)s->spot_avail);
	for (int i = 0; i < s->spot_nodes; i++)
		if (s->spot_st[i] == SP_AVAIL && k-- == 0)
			return i;
	return -1;
}

/* trace point i: its event comes notice_s early when it takes nodes */
static void trace_push(cs_sim *s, int i)
{
	const pp_cspot *p = pool(s);
	if (i >= p->ntrace)
		return;
	s->spot_trace_i = i;
	double t = p->trace_t_s[i];
	if (i > 0 && p->trace_nodes[i] < p->trace_nodes[i - 1])
		t = fmax(s->now, t - p->notice_s);
	pp_cheap_push(&s->heap, t, EV_SPOT_AVAIL, i, 0);
}

static void on_trace(cs_sim *s, int i)
{
	const pp_cspot *p = pool(s);
	int target = p->trace_nodes[i];
	int leaving = s->spot_nodes - s->spot_avail - s->spot_out;
	/* the nodes there once those leaving have gone (and the owed come back) */
	int future = s->spot_avail + s->spot_owed;
	double t_gone = fmax(s->now, p->trace_t_s[i]);
	if (future > target) {
		int cut = s->spot_owed < future - target ? s->spot_owed : future - target;
		s->spot_owed -= cut;
		future -= cut;
		while (future > target && s->spot_avail > 0) {
			notice(s, pick_avail(s), t_gone);
			future--;
		}
	} else {
		for (int k = 0; k < s->spot_nodes && future < target; k++)
			if (s->spot_st[k] == SP_OUT) {
				bring_back(s, k);
				future++;
			}
		/* still short: nodes now leaving come straight back when they go */
		int owe = target - future, can = leaving - s->spot_owed;
		s->spot_owed += owe < can ? owe : can;
	}
	if (s->finished < s->njobs)
		trace_push(s, i + 1);
}

static void on_term(cs_sim *s, int i)
{
	int n = s->spot_first + i;
	cs_node *nd = &s->nodes[n];
	while (nd->njobs > 0) {
		int j = nd->jobs[nd->njobs - 1];
		s->r->spot_killed++;
		cs_kill_job(s, j, CS_KILL_SPOT);
	}
	out_advance(s);
	s->spot_st[i] = SP_OUT;
	s->spot_out++;
	s->dirty = true;
	if (s->spot_owed > 0) {
		s->spot_owed--;
		bring_back(s, i);
	} else if (!pool(s)->ntrace) {
		pp_cheap_push(&s->heap, s->now + pool(s)->replace_s, EV_SPOT_BACK, i, 0);
	}
}

void cs_spot_event(cs_sim *s, const pp_cev *e)
{
	switch (e->kind) {
	case EV_SPOT_AVAIL:
		on_trace(s, e->who);
		break;
	case EV_SPOT_RATE:
		if (e->gen != s->spot_gen || s->spot_avail <= 0)
			break;
		notice(s, pick_avail(s), s->now + pool(s)->notice_s);
		rate_push(s);
		break;
	case EV_SPOT_TERM:
		on_term(s, e->who);
		break;
	case EV_SPOT_CKPT: {
		cs_job *J = &s->js[e->who];
		if (J->gen != e->gen || J->st != ST_RUN || !J->spot_ckpt)
			break;
		J->ckpt_done = J->done; /* the emergency checkpoint is written */
		s->r->spot_ckpt_saved++;
		cs_kill_job(s, e->who, CS_KILL_SPOT);
		break;
	}
	case EV_SPOT_BACK:
		if (s->spot_st[e->who] == SP_OUT) {
			bring_back(s, e->who);
			rate_push(s);
		}
		break;
	default:
		break;
	}
}

void cs_spot_init(cs_sim *s)
{
	const pp_cspot *p = pool(s);
	s->spot_st = pp_xcalloc((size_t)s->spot_nodes + 1, 1);
	s->spot_avail = s->spot_nodes;
	s->spot_t = 0;
	if (p->ntrace) {
		/* the first point sets the pool at time 0: no notice, no jobs yet */
		for (int i = p->trace_nodes[0]; i < s->spot_nodes; i++) {
			take_out(s, i);
			s->spot_st[i] = SP_OUT;
			s->spot_avail--;
			s->spot_out++;
		}
		trace_push(s, 1);
	} else {
		rate_push(s);
	}
}

bool cs_spot_place(cs_sim *s, int j)
{
	bool ok = false;
	if (cs_jx(s, j)->spot) {
		s->leaf_lo = s->od_leaves;
		s->leaf_hi = s->nleaves;
		ok = cs_place(s, j);
		s->leaf_lo = 0;
		s->leaf_hi = s->od_leaves;
	}
	if (!ok)
		ok = cs_place(s, j);
	return ok;
}

int cs_spot_free_gpus(const cs_sim *s)
{
	int f = 0;
	for (int i = 0; i < s->spot_nodes; i++)
		if (s->nodes[s->spot_first + i].up)
			f += s->nodes[s->spot_first + i].free;
	return f;
}

bool cs_spot_repair_skip(cs_sim *s, int n)
{
	if (n < s->spot_first)
		return false;
	/* a reclaimed node's repair is void; one given back is up already */
	int i = n - s->spot_first;
	if (s->spot_st[i] != SP_AVAIL)
		return true;
	return s->nodes[n].up;
}

void cs_spot_finish(cs_sim *s)
{
	out_advance(s);
	pp_csim_result *r = s->r;
	r->gpu_s_spot_available = (double)s->spot_nodes * s->G * s->now - s->spot_out_gpu_s;
}

void cs_spot_release(cs_sim *s)
{
	free(s->spot_st);
	s->spot_st = NULL;
}
