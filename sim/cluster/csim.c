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

/* ---- running jobs ---- */

static void run_add(cs_sim *s, int j)
{
	s->js[j].run_pos = s->nrunning;
	s->running[s->nrunning++] = j;
}

static void run_remove(cs_sim *s, int j)
{
	int p = s->js[j].run_pos;
	int last = s->running[--s->nrunning];
	s->running[p] = last;
	s->js[last].run_pos = p;
	s->js[j].run_pos = -1;
}

static void push_seg(cs_sim *s, int j, double dt)
{
	pp_cheap_push(&s->heap, s->now + dt, EV_SEG, j, s->js[j].gen);
}

static void start_compute(cs_sim *s, int j)
{
	cs_job *J = &s->js[j];
	const pp_cjob *x = cs_jx(s, j);
	J->phase = PH_COMPUTE;
	J->seg_t0 = s->now;
	J->seg_done0 = J->done;
	double target = J->work;
	if (x->ckpt_interval_s > 0 && x->ckpt_bytes > 0 && J->next_ckpt_at < target)
		target = J->next_ckpt_at;
	push_seg(s, j, (target - J->done) / J->rate);
}

/* progress of a compute segment up to now */
static void settle_compute(cs_sim *s, int j)
{
	cs_job *J = &s->js[j];
	if (J->phase != PH_COMPUTE)
		return;
	double d = J->seg_done0 + (s->now - J->seg_t0) * J->rate;
	J->compute_s += s->now - J->seg_t0;
	J->done = d < J->work ? d : J->work;
	J->seg_t0 = s->now;
	J->seg_done0 = J->done;
}

static void phase_time(cs_sim *s, int j)
{
	cs_job *J = &s->js[j];
	double dt = s->now - J->phase_t0;
	if (J->phase == PH_RESTART)
		J->restart_s += dt;
	else if (J->phase == PH_STAGE || J->phase == PH_CKPT_BLOCK || J->phase == PH_FLOW_WAIT)
		J->ckpt_block_s += dt;
}

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
	run_add(s, j);
	if (J->queue_spec >= 0)
		s->qused[J->queue_spec] += x->gpus;
	bool first = isnan(J->start_s);
	if (first)
		J->start_s = s->now;
	J->attempt_t0 = s->now;
	int rc = job_rate(s, j);
	if (rc)
		return rc;
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
		push_seg(s, j, s->spec->restart_s);
	} else {
		start_compute(s, j);
	}
	return 0;
}

static void end_attempt(cs_sim *s, int j)
{
	cs_job *J = &s->js[j];
	const pp_cjob *x = cs_jx(s, j);
	settle_compute(s, j);
	phase_time(s, j);
	J->alloc_s += s->now - J->attempt_t0;
	s->r->gpu_s_allocated += (s->now - J->attempt_t0) *
				 (x->gpu_milli < 1000 ? x->gpu_milli / 1000.0 : J->alloc_gpus);
	cs_fs_cancel(s, j);
	cs_unplace(s, j);
	run_remove(s, j);
	if (J->queue_spec >= 0)
		s->qused[J->queue_spec] -= x->gpus;
	J->gen++;
	s->dirty = true;
}

static void finish_job(cs_sim *s, int j)
{
	cs_job *J = &s->js[j];
	end_attempt(s, j);
	J->st = ST_DONE;
	J->end_s = s->now;
	s->finished++;
}

/* a failure or a preemption: the work since the last checkpoint is lost */
static void kill_job(cs_sim *s, int j, bool preempted)
{
	cs_job *J = &s->js[j];
	end_attempt(s, j);
	double lost = J->done - J->ckpt_done;
	if (lost > 0)
		J->lost_s += lost / J->rate;
	J->done = J->ckpt_done;
	const pp_cjob *x = cs_jx(s, j);
	if (x->ckpt_interval_s > 0 && x->ckpt_bytes > 0)
		J->next_ckpt_at = J->done + x->ckpt_interval_s * J->rate;
	J->needs_restart = true;
	if (preempted) {
		J->preemptions++;
		s->r->preemptions++;
	} else {
		J->interruptions++;
		if (s->spec->max_requeue >= 0 && J->interruptions > s->spec->max_requeue) {
			/* past MaxBatchRequeue: the job ends failed, its work undone */
			J->st = ST_DONE;
			J->end_s = NAN;
			J->gave_up = true;
			s->finished++;
			s->r->gave_up++;
			return;
		}
	}
	cs_pend_insert(s, j);
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
		push_seg(s, j, x->ckpt_bytes / nodes / s->spec->host_copy_Bps);
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
		phase_time(s, j);
		J->needs_restart = false;
		start_compute(s, j);
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
			finish_job(s, j);
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
		phase_time(s, j);
		cs_fs_add(s, j, x->ckpt_bytes, true);
		start_compute(s, j);
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
		if (f->v_end > s->fs_v * (1 + 1e-12) + 1e-3) {
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
			phase_time(s, j);
			start_compute(s, j);
		} else if (J->phase == PH_FLOW_WAIT) {
			phase_time(s, j);
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
			kill_job(s, j, false);
		}
		pp_cheap_push(&s->heap, s->now + s->spec->repair_s, EV_REPAIR, n, 0);
	}
	push_next_failure(s);
}

/* ---- the scheduler ---- */

/* preempt lower-priority jobs (run at least the exempt time) for j */
static bool preempt_for(cs_sim *s, int j)
{
	int nn, k;
	cs_shape(s, cs_jx(s, j), &nn, &k);
	int need = nn * k, can = s->free_gpus;
	int *vict = pp_xmalloc((size_t)s->nrunning * sizeof(int) + 1);
	int nv = 0;
	for (int i = 0; i < s->nrunning; i++) {
		int r = s->running[i];
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
			kill_job(s, vict[a], true);
			ok = cs_place(s, j);
		}
	}
	free(vict);
	return ok;
}

static int try_start(cs_sim *s, int j, bool *started)
{
	*started = false;
	if (!cs_place(s, j))
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
		J->work = x->scenario < 0 ? x->work_s : 0;
		J->rate = 1;
		if (x->gpu_milli < 1000)
			s->has_frac = true;
	}
	if ((rc = check_jobs(s)) || (rc = cs_place_init(s)))
		return rc;
	double wmax = sp->lemon_fraction > 0 ? sp->lemon_factor : 1.0;
	s->fail_rate_max = sp->infra_failures_per_node_s * wmax;
	/* arrivals are pushed one ahead: the heap stays small */
	if (s->njobs)
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
			cs_pend_insert(s, e.who);
			if (sp->batch_dispatch) {
				cs_batch_arrival(s);
			} else {
				batch_arrivals++;
				last_arrived = e.who;
			}
			s->arrived++;
			if (e.who + 1 < s->njobs)
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
				kill_job(s, e.who, false);
			}
			break;
		case EV_REPAIR:
			cs_node_up(s, e.who);
			s->dirty = true;
			break;
		case EV_BGPASS:
			cs_batch_pass(s);
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
		settle_compute(s, j);
		phase_time(s, j);
		J->alloc_s += s->now - J->attempt_t0;
		s->r->gpu_s_allocated += (s->now - J->attempt_t0) * J->alloc_gpus;
	}
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
	s.njobs = jobs->n;
	s.pend_head = s.pend_tail = -1;
	s.bg_last_s = -INFINITY;
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
	out->njobs = s.njobs;
	int rc = run(&s);
	if (!rc)
		rc = cs_stats_finish(&s);
	out->wall_s = pp_mono_s() - t0;
	for (int j = 0; j < s.njobs; j++)
		free(s.js[j].slots);
	if (s.nodes)
		cs_place_release(&s);
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
