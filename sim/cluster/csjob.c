/*
 * csjob.c - a job's attempts in the cluster simulation (csimint.h): the
 * running set, compute segments and their progress, the time each phase
 * takes, and an attempt's end (done, stopped, killed and requeued). The
 * event loop (csim.c), the spot pool (cspotsim.c) and the serving
 * deployments (cserve.c) all end attempts through here.
 */
#include "cluster/csimint.h"

#include <math.h>

/* ---- running jobs ---- */

void cs_run_add(cs_sim *s, int j)
{
	s->js[j].run_pos = s->nrunning;
	s->running[s->nrunning++] = j;
}

void cs_run_remove(cs_sim *s, int j)
{
	int p = s->js[j].run_pos;
	int last = s->running[--s->nrunning];
	s->running[p] = last;
	s->js[last].run_pos = p;
	s->js[j].run_pos = -1;
}

void cs_push_seg(cs_sim *s, int j, double dt)
{
	pp_cheap_push(&s->heap, s->now + dt, EV_SEG, j, s->js[j].gen);
}

void cs_start_compute(cs_sim *s, int j)
{
	cs_job *J = &s->js[j];
	const pp_cjob *x = cs_jx(s, j);
	J->phase = PH_COMPUTE;
	if (j >= s->norig)
		cs_serve_count(s, j, +1);
	J->seg_t0 = s->now;
	J->seg_done0 = J->done;
	double target = J->work;
	if (x->ckpt_interval_s > 0 && x->ckpt_bytes > 0 && J->next_ckpt_at < target)
		target = J->next_ckpt_at;
	cs_push_seg(s, j, (target - J->done) / J->rate);
}

/* progress of a compute segment up to now */
void cs_settle_compute(cs_sim *s, int j)
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

void cs_settle(cs_sim *s, int j)
{
	cs_settle_compute(s, j);
	cs_phase_time(s, j);
	s->js[j].phase_t0 = s->now;
}

void cs_phase_time(cs_sim *s, int j)
{
	cs_job *J = &s->js[j];
	double dt = s->now - J->phase_t0;
	if (J->phase == PH_RESTART)
		J->restart_s += dt;
	else if (J->phase == PH_STAGE || J->phase == PH_CKPT_BLOCK || J->phase == PH_FLOW_WAIT)
		J->ckpt_block_s += dt;
}

void cs_stop_job(cs_sim *s, int j)
{
	cs_job *J = &s->js[j];
	const pp_cjob *x = cs_jx(s, j);
	if (j >= s->norig && J->phase == PH_COMPUTE)
		cs_serve_count(s, j, -1);
	cs_settle_compute(s, j);
	cs_phase_time(s, j);
	J->alloc_s += s->now - J->attempt_t0;
	double held = (s->now - J->attempt_t0) *
		      (x->gpu_milli < 1000 ? x->gpu_milli / 1000.0 : J->alloc_gpus);
	s->r->gpu_s_allocated += held;
	if (s->spot_nodes && J->nslots && J->slots[0].node >= s->spot_first)
		s->r->gpu_s_spot_allocated += held;
	if (j >= s->norig)
		s->r->gpu_s_serving += held;
	cs_fs_cancel(s, j);
	cs_unplace(s, j);
	cs_run_remove(s, j);
	if (J->queue_spec >= 0)
		s->qused[J->queue_spec] -= x->gpus;
	J->gen++;
	s->dirty = true;
}

void cs_finish_job(cs_sim *s, int j)
{
	cs_job *J = &s->js[j];
	cs_stop_job(s, j);
	J->st = ST_DONE;
	J->end_s = s->now;
	s->finished++;
}

/* a failure, a preemption or a spot reclaim: the work since the last
 * checkpoint is lost (a serving replica holds none to lose) */
void cs_kill_job(cs_sim *s, int j, int cause)
{
	cs_job *J = &s->js[j];
	cs_stop_job(s, j);
	J->spot_ckpt = false;
	if (j >= s->norig)
		J->ckpt_done = J->done;
	double lost = J->done - J->ckpt_done;
	if (lost > 0)
		J->lost_s += lost / J->rate;
	J->done = J->ckpt_done;
	const pp_cjob *x = cs_jx(s, j);
	if (x->ckpt_interval_s > 0 && x->ckpt_bytes > 0)
		J->next_ckpt_at = J->done + x->ckpt_interval_s * J->rate;
	J->needs_restart = true;
	if (cause == CS_KILL_SPOT) {
		J->preemptions++; /* counted by cause in cspotsim.c */
	} else if (cause == CS_KILL_PREEMPT) {
		J->preemptions++;
		s->r->preemptions++;
	} else {
		J->interruptions++;
		if (s->spec->max_requeue >= 0 && J->interruptions > s->spec->max_requeue &&
		    j < s->norig) {
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
