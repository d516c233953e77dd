/*
 * csim.c - the cluster simulation's event loop and scheduler (csim.h says
 * what is modelled and from which source; cqueue.c keeps the waiting jobs,
 * cfs.c the file system's flows, cplace.c places, cstats.c measures).
 */
#include "cluster/csimint.h"
#include "core/util.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS_UNITS 1e-9

static int job_rate(cs_sim *s, int j)
{
	cs_job *J = &s->js[j];
	const pp_cjob *x = cs_jx(s, j);
	if (x->scenario < 0) {
		J->rate = 1;
		J->work = x->work_s;
		J->mfu = NAN;
		return 0;
	}
	double step, tps, mfu;
	if (!s->opts->step)
		return pp_errf(s->err, PP_EINPUT, "job %s names scenario %s, and this run has no "
			       "engine to time it", pp_cjobs_id(s->jobs, x),
			       s->jobs->scenarios[x->scenario]);
	int rc = s->opts->step(s->opts->step_ctx, x->scenario, J->spans_leaf, &step, &tps, &mfu,
			       s->err);
	if (rc)
		return rc;
	double steps = ceil(x->tokens / tps);
	/* progress carries over as a fraction when the placement changes */
	if (J->work > 0 && J->work != steps) {
		double fd = J->done / J->work, fc = J->ckpt_done / J->work;
		J->done = fd * steps;
		J->ckpt_done = fc * steps;
		J->next_ckpt_at = J->next_ckpt_at / J->work * steps;
	}
	J->work = steps;
	J->rate = 1.0 / step;
	J->mfu = mfu;
	return 0;
}

static double draw_exp(cs_sim *s, double rate)
{
	return rate > 0 ? gsl_ran_exponential(s->rng, 1.0 / rate) : INFINITY;
}

static int start_job(cs_sim *s, int j)
{
	cs_job *J = &s->js[j];
	const pp_cjob *x = cs_jx(s, j);
	cs_pend_remove(s, j);
	J->st = ST_RUN;
	J->gen++;
	cs_run_add(s, j);
	if (J->queue_spec >= 0)
		s->qused[J->queue_spec] += x->gpus;
	bool first = isnan(J->start_s);
	if (first)
		J->start_s = s->now;
	J->attempt_t0 = s->now;
	int rc = job_rate(s, j);
	if (rc)
		return rc;
	if (j >= s->norig)
		cs_serve_work(s, j);
	if (first)
		J->next_ckpt_at = x->ckpt_interval_s > 0 && x->ckpt_bytes > 0
					  ? x->ckpt_interval_s * J->rate
					  : INFINITY;
	double limit = !isnan(x->limit_s) && x->scenario < 0 ? x->limit_s : J->work / J->rate;
	double left = J->work > 0 ? (J->work - J->done) / J->work * limit : 0;
	J->est_end = s->now + (J->needs_restart ? s->spec->restart_s : 0) + left;
	/* the interruptions that are not node failures: per node held */
	double other = s->spec->interruptions_per_node_s - s->spec->infra_failures_per_node_s;
	double nodes_held = x->gpu_milli < 1000 ? (double)x->gpu_milli / 1000.0 / s->G
						: (double)J->alloc_gpus / s->G;
	double t_int = draw_exp(s, other * nodes_held);
	if (isfinite(t_int))
		pp_cheap_push(&s->heap, s->now + t_int, EV_INTR, j, J->gen);
	J->phase_t0 = s->now;
	if (J->needs_restart && s->spec->restart_s > 0) {
		J->phase = PH_RESTART;
		cs_push_seg(s, j, s->spec->restart_s);
	} else {
		cs_start_compute(s, j);
	}
	return 0;
}

/* ---- checkpoints ---- */

static void begin_checkpoint(cs_sim *s, int j)
{
	cs_job *J = &s->js[j];
	const pp_cjob *x = cs_jx(s, j);
	J->next_ckpt_at = J->done + x->ckpt_interval_s * J->rate;
	J->phase_t0 = s->now;
	if (x->async_ckpt) {
		/* each node copies its shard to host RAM in parallel */
		int nodes = J->nslots > 0 ? J->nslots : 1;
		J->phase = PH_STAGE;
		cs_push_seg(s, j, x->ckpt_bytes / nodes / s->spec->host_copy_Bps);
	} else {
		J->phase = PH_CKPT_BLOCK;
		cs_fs_add(s, j, x->ckpt_bytes, false);
	}
}

static void on_seg(cs_sim *s, int j)
{
	cs_job *J = &s->js[j];
	const pp_cjob *x = cs_jx(s, j);
	switch (J->phase) {
	case PH_RESTART:
		cs_phase_time(s, j);
		J->needs_restart = false;
		cs_start_compute(s, j);
		break;
	case PH_COMPUTE: {
		/* the segment ended at its target: the end of the work or the
		 * next checkpoint */
		double target = J->work;
		if (x->ckpt_interval_s > 0 && x->ckpt_bytes > 0 && J->next_ckpt_at < target)
			target = J->next_ckpt_at;
		J->compute_s += s->now - J->seg_t0;
		J->done = target;
		J->seg_t0 = s->now;
		J->seg_done0 = target;
		if (J->done >= J->work) {
			cs_finish_job(s, j);
			break;
		}
		J->phase_t0 = s->now;
		if (J->flow >= 0) { /* the previous asynchronous write is not done */
			J->phase = PH_FLOW_WAIT;
			break;
		}
		begin_checkpoint(s, j);
		break;
	}
	case PH_STAGE:
		cs_phase_time(s, j);
		cs_fs_add(s, j, x->ckpt_bytes, true);
		cs_start_compute(s, j);
		break;
	default:
		break;
	}
}

static void on_flow(cs_sim *s)
{
	cs_fs_advance(s);
	for (int i = 0; i < s->nflows;) {
		cs_flow *f = &s->flows[i];
		/* done within rounding: the bytes left would not move the clock
		 * (at a clock of days, an ulp is tens of picoseconds), so waiting
		 * for them would repeat this instant for ever */
		double left_s = (f->v_end - s->fs_v) * s->nflows / s->spec->fs_write_Bps;
		if (f->v_end > s->fs_v * (1 + 1e-12) + 1e-3 && s->now + left_s > s->now) {
			i++;
			continue;
		}
		int j = f->job;
		cs_job *J = &s->js[j];
		J->ckpt_done = f->snapshot;
		s->r->checkpoints++;
		s->ckpt_write_sum += s->now - f->t0;
		cs_fs_drop(s, i);
		if (J->phase == PH_CKPT_BLOCK) {
			cs_phase_time(s, j);
			cs_start_compute(s, j);
		} else if (J->phase == PH_FLOW_WAIT) {
			cs_phase_time(s, j);
			begin_checkpoint(s, j);
		}
	}
	cs_fs_reschedule(s);
}

/* ---- failures ---- */

static void push_next_failure(cs_sim *s)
{
	double lam = s->fail_rate_max * s->nnodes;
	if (lam <= 0 || s->finished >= s->njobs)
		return;
	pp_cheap_push(&s->heap, s->now + draw_exp(s, lam), EV_NODEFAIL, -1, 0);
}

static void on_node_failure(cs_sim *s)
{
	/* thinning: a node drawn uniformly fails with probability its rate
	 * over the largest rate (lemon nodes at the largest) */
	int n = (int)gsl_rng_uniform_int(s->rng, (unsigned long)s->nnodes);
	double w = s->nodes[n].lemon ? s->spec->lemon_factor : 1.0;
	double wmax = s->spec->lemon_fraction > 0 ? s->spec->lemon_factor : 1.0;
	bool hit = w >= wmax || gsl_rng_uniform(s->rng) < w / wmax;
	if (hit && s->nodes[n].up) {
		s->r->infra_failures++;
		cs_node_down(s, n);
		cs_node *nd = &s->nodes[n];
		while (nd->njobs > 0) {
			int j = nd->jobs[nd->njobs - 1];
			s->r->interruptions++;
			cs_kill_job(s, j, CS_KILL_FAILURE);
		}
		pp_cheap_push(&s->heap, s->now + s->spec->repair_s, EV_REPAIR, n, 0);
	}
	push_next_failure(s);
}

/* ---- the scheduler ---- */

/* a spot pool decides which nodes a job may use */
static bool place(cs_sim *s, int j)
{
	return s->spot_nodes ? cs_spot_place(s, j) : cs_place(s, j);
}

/* preempt lower-priority jobs (run at least the exempt time) for j */
static bool preempt_for(cs_sim *s, int j)
{
	int nn, k;
	cs_shape(s, cs_jx(s, j), &nn, &k);
	/* an on-demand job gains nothing from the spot pool's GPUs */
	bool od_only = s->spot_nodes && !cs_jx(s, j)->spot;
	int need = nn * k, can = s->free_gpus - (od_only ? cs_spot_free_gpus(s) : 0);
	int *vict = pp_xmalloc((size_t)s->nrunning * sizeof(int) + 1);
	int nv = 0;
	for (int i = 0; i < s->nrunning; i++) {
		int r = s->running[i];
		if (od_only && s->js[r].nslots && s->js[r].slots[0].node >= s->spot_first)
			continue;
		if (s->js[r].prio < s->js[j].prio &&
		    s->now - s->js[r].attempt_t0 >= s->spec->preempt_exempt_s) {
			vict[nv++] = r;
			can += s->js[r].alloc_gpus;
		}
	}
	bool ok = false;
	if (can >= need) {
		/* the lowest priority first, the most recently started among equals */
		for (int a = 0; a < nv; a++)
			for (int b = a + 1; b < nv; b++) {
				cs_job *A = &s->js[vict[a]], *B = &s->js[vict[b]];
				if (B->prio < A->prio || (B->prio == A->prio && B->attempt_t0 > A->attempt_t0)) {
					int t = vict[a];
					vict[a] = vict[b];
					vict[b] = t;
				}
			}
		for (int a = 0; a < nv && !ok; a++) {
			cs_kill_job(s, vict[a], CS_KILL_PREEMPT);
			ok = place(s, j);
		}
	}
	free(vict);
	return ok;
}

static int try_start(cs_sim *s, int j, bool *started)
{
	*started = false;
	if (!place(s, j))
		return 0;
	*started = true;
	return start_job(s, j);
}

static int schedule(cs_sim *s, int arrived)
{
	const pp_cspec *sp = s->spec;
	bool backfill = sp->sched == PP_CSCHED_BACKFILL;
	int rc;
	bool ok;
	if (!s->dirty && arrived >= 0) {
		/* nothing freed since the last pass: only the new job can move */
		if (!cs_quota_ok(s, arrived))
			return 0;
		if (!s->blocked) {
			if ((rc = try_start(s, arrived, &ok)) || ok)
				return rc;
			if (sp->preempt && preempt_for(s, arrived))
				return start_job(s, arrived);
			s->blocked = true;
			s->blocked_job = arrived;
			if (backfill)
				cs_reserve(s, arrived);
			return 0;
		}
		if (!backfill || s->npend > sp->backfill_max_job_test + 1 ||
		    cs_pend_before(s, arrived, s->blocked_job))
			return 0;
		const pp_cjob *x = cs_jx(s, arrived);
		double est = !isnan(x->limit_s) ? x->limit_s : x->work_s;
		if (x->scenario >= 0)
			est = INFINITY;
		int nn, k;
		cs_shape(s, x, &nn, &k);
		bool ends_before = s->now + est <= s->shadow_s;
		if (!ends_before && nn * k > s->extra_gpus)
			return 0;
		if ((rc = try_start(s, arrived, &ok)) || !ok)
			return rc;
		if (!ends_before)
			s->extra_gpus -= nn * k;
		return 0;
	}
	s->dirty = false;
	s->blocked = false;
	int tested = 0;
	for (int j = s->pend_head; j >= 0;) {
		int next = s->js[j].next;
		if (!cs_quota_ok(s, j)) {
			j = next;
			continue;
		}
		if (!s->blocked) {
			if ((rc = try_start(s, j, &ok)))
				return rc;
			if (!ok && sp->preempt && preempt_for(s, j)) {
				if ((rc = start_job(s, j)))
					return rc;
				ok = true;
				next = s->pend_head; /* the victims went back into the queue */
			}
			if (!ok) {
				s->blocked = true;
				s->blocked_job = j;
				if (!backfill)
					break;
				cs_reserve(s, j);
			}
		} else {
			if (++tested > sp->backfill_max_job_test || s->free_gpus == 0)
				break;
			const pp_cjob *x = cs_jx(s, j);
			int nn, k;
			cs_shape(s, x, &nn, &k);
			double est = !isnan(x->limit_s) ? x->limit_s : x->work_s;
			if (x->scenario >= 0)
				est = INFINITY;
			bool ends_before = s->now + est <= s->shadow_s;
			if (ends_before || nn * k <= s->extra_gpus) {
				if ((rc = try_start(s, j, &ok)))
					return rc;
				if (ok && !ends_before)
					s->extra_gpus -= nn * k;
			}
		}
		j = next;
	}
	return 0;
}

/* ---- the run ---- */

static int check_jobs(const cs_sim *s)
{
	const pp_cspec *sp = s->spec;
	for (int j = 0; j < s->njobs; j++) {
		const pp_cjob *x = cs_jx(s, j);
		int nn, k;
		cs_shape(s, x, &nn, &k);
		if (nn * k > sp->gpus || nn > sp->nodes)
			return pp_errf(s->err, PP_EINPUT, "job %s: found %d GPUs on %d nodes, expected "
				       "at most the cluster's %d GPUs on %d nodes",
				       pp_cjobs_id(s->jobs, x), (int)x->gpus, nn, sp->gpus, sp->nodes);
		int topo = x->topo ? x->topo - 1 : (int)sp->topology_mode;
		if (topo == PP_CTOPO_REQUIRED && x->topo && nn > sp->nodes_per_leaf)
			return pp_errf(s->err, PP_EINPUT, "job %s: found %d nodes with topology "
				       "required, expected at most a leaf's %d nodes",
				       pp_cjobs_id(s->jobs, x), nn, sp->nodes_per_leaf);
		if (x->gpu_milli < 1000 && sp->gpus_per_node > 64)
			return pp_errf(s->err, PP_EINPUT, "job %s: a share of a GPU on nodes of %d GPUs; "
				       "expected at most 64 GPUs a node for GPU sharing",
				       pp_cjobs_id(s->jobs, x), sp->gpus_per_node);
	}
	return 0;
}

static int run(cs_sim *s)
{
	int rc;
	const pp_cspec *sp = s->spec;
	for (int j = 0; j < s->njobs; j++) {
		cs_job *J = &s->js[j];
		const pp_cjob *x = cs_jx(s, j);
		J->prev = J->next = J->run_pos = J->flow = -1;
		J->start_s = J->end_s = NAN;
		J->queue_spec = x->queue < s->jobs->nqueues ?
					pp_cspec_queue(sp, s->jobs->queues[x->queue]) : -1;
		J->prio = x->priority + (J->queue_spec >= 0 ? sp->queues[J->queue_spec].priority : 0);
		if (x->spot)
			J->prio -= 1000000; /* spot work yields to everything */
		if (j >= s->norig)
			J->prio += 1000000; /* serving goes before training */
		J->work = x->scenario < 0 ? x->work_s : 0;
		J->rate = 1;
		if (x->gpu_milli < 1000)
			s->has_frac = true;
	}
	if ((rc = check_jobs(s)) || (rc = cs_place_init(s)))
		return rc;
	if (s->spot_nodes)
		cs_spot_init(s);
	double wmax = sp->lemon_fraction > 0 ? sp->lemon_factor : 1.0;
	s->fail_rate_max = sp->infra_failures_per_node_s * wmax;
	/* arrivals are pushed one ahead: the heap stays small */
	if (s->norig)
		pp_cheap_push(&s->heap, cs_jx(s, 0)->submit_s, EV_ARRIVE, 0, 0);
	push_next_failure(s);
	pp_cev e;
	int step = s->njobs / 100 > 0 ? s->njobs / 100 : 1;
	int batch_arrivals = 0, last_arrived = -1;
	while (s->finished < s->njobs && pp_cheap_pop(&s->heap, &e)) {
		if (sp->horizon_s > 0 && e.t_s > sp->horizon_s)
			break;
		cs_stats_advance(s, e.t_s);
		s->now = e.t_s;
		s->r->events++;
		switch (e.kind) {
		case EV_ARRIVE:
			if (s->ndeps && cs_jx(s, e.who)->serve >= 0) {
				cs_serve_arrive(s, e.who);
			} else {
				cs_pend_insert(s, e.who);
				if (sp->batch_dispatch) {
					cs_batch_arrival(s);
				} else {
					batch_arrivals++;
					last_arrived = e.who;
				}
			}
			s->arrived++;
			if (e.who + 1 < s->norig)
				pp_cheap_push(&s->heap, cs_jx(s, e.who + 1)->submit_s, EV_ARRIVE,
					      e.who + 1, 0);
			break;
		case EV_SEG:
			if (s->js[e.who].gen == e.gen && s->js[e.who].st == ST_RUN)
				on_seg(s, e.who);
			break;
		case EV_FLOW:
			if (e.gen == s->fs_gen)
				on_flow(s);
			break;
		case EV_NODEFAIL:
			on_node_failure(s);
			break;
		case EV_INTR:
			if (s->js[e.who].gen == e.gen && s->js[e.who].st == ST_RUN) {
				s->r->interruptions++;
				cs_kill_job(s, e.who, CS_KILL_FAILURE);
			}
			break;
		case EV_REPAIR:
			if (s->spot_nodes && cs_spot_repair_skip(s, e.who))
				break;
			cs_node_up(s, e.who);
			s->dirty = true;
			break;
		case EV_BGPASS:
			cs_batch_pass(s);
			break;
		case EV_SERVE:
			cs_serve_event(s, &e);
			break;
		default:
			cs_spot_event(s, &e);
			break;
		}
		/* schedule once every event of this instant is in */
		if (pp_cheap_peek_t(&s->heap) == s->now)
			continue;
		if (s->dirty || batch_arrivals > 1)
			rc = schedule(s, -1);
		else if (batch_arrivals == 1)
			rc = schedule(s, last_arrived);
		if (rc)
			return rc;
		batch_arrivals = 0;
		s->frag_now = s->pend_head >= 0 && s->blocked ? cs_frag_for(s, s->pend_head) : 0;
		if (s->opts->progress && s->finished >= s->next_progress) {
			s->opts->progress(s->opts->progress_ctx, s->finished, s->njobs);
			s->next_progress = s->finished + step;
		}
	}
	/* a cluster held for a horizon is available all of it, busy or not */
	if (sp->horizon_s > s->now) {
		cs_stats_advance(s, sp->horizon_s);
		s->now = sp->horizon_s;
	}
	/* jobs still running at the horizon: their time so far */
	for (int i = 0; i < s->nrunning; i++) {
		int j = s->running[i];
		cs_job *J = &s->js[j];
		cs_settle_compute(s, j);
		cs_phase_time(s, j);
		J->alloc_s += s->now - J->attempt_t0;
		double held = (s->now - J->attempt_t0) * J->alloc_gpus;
		s->r->gpu_s_allocated += held;
		if (s->spot_nodes && J->nslots && J->slots[0].node >= s->spot_first)
			s->r->gpu_s_spot_allocated += held;
		if (j >= s->norig)
			s->r->gpu_s_serving += held;
	}
	if (s->spot_nodes)
		cs_spot_finish(s);
	if (s->ndeps)
		cs_serve_finish(s);
	return 0;
}

int pp_csim_run(const pp_cspec *spec, const pp_cjobs *jobs, const pp_csim_opts *opts,
		pp_csim_result *out, pp_err *err)
{
	static const pp_csim_opts none = {0};
	memset(out, 0, sizeof(*out));
	cs_sim s;
	memset(&s, 0, sizeof(s));
	s.spec = spec;
	s.jobs = jobs;
	s.opts = opts ? opts : &none;
	s.r = out;
	s.err = err;
	s.njobs = s.norig = jobs->n;
	s.pend_head = s.pend_tail = -1;
	s.bg_last_s = -INFINITY;
	s.spot_nodes = spec->spot.nodes;
	if (jobs->nserve)
		cs_serve_init(&s);
	s.G = spec->gpus_per_node;
	double t0 = pp_mono_s();
	s.js = pp_xcalloc((size_t)s.njobs + 1, sizeof(*s.js));
	s.running = pp_xmalloc(((size_t)s.njobs + 1) * sizeof(int));
	s.resv_items = pp_xmalloc(((size_t)s.njobs + 1) * sizeof(cs_end));
	pp_heap_init(&s.resv, sizeof(cs_end));
	pp_heap_reserve(&s.resv, (size_t)s.njobs + 1);
	s.qused = pp_xcalloc((size_t)spec->nqueues + 1, sizeof(int));
	s.rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(s.rng, spec->seed);
	pp_cheap_init(&s.heap);
	out->seed = spec->seed;
	out->njobs = s.norig;
	int rc = run(&s);
	if (!rc)
		rc = cs_stats_finish(&s);
	if (!rc && s.ndeps)
		out->finished -= cs_serve_replicas_done(&s);
	out->wall_s = pp_mono_s() - t0;
	for (int j = 0; j < s.njobs; j++)
		free(s.js[j].slots);
	if (s.nodes)
		cs_place_release(&s);
	cs_spot_release(&s);
	cs_serve_release(&s);
	free(s.js);
	free(s.running);
	free(s.resv_items);
	pp_heap_release(&s.resv);
	free(s.qused);
	free(s.flows);
	gsl_rng_free(s.rng);
	pp_cheap_release(&s.heap);
	if (rc) {
		free(s.bins);
		pp_csim_result_release(out);
	}
	return rc;
}

void pp_csim_result_release(pp_csim_result *r)
{
	free(r->jobs);
	free(r->timeline);
	r->jobs = NULL;
	r->timeline = NULL;
}
