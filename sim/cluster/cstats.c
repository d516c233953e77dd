/*
 * cstats.c - what a cluster simulation measured: the allocation over time
 * (bins whose width doubles when the run outlasts them), and at the end the
 * per-job outcomes, queueing delay by job size and the goodput
 * decomposition (csim.h).
 */
#include "cluster/csimint.h"
#include "core/sortd.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_csim_bucket_names[PP_CSIM_SIZE_BUCKETS] = {"1", "2-8", "9-64", "65-512",
								  "513+", "all"};

static void bins_init(cs_sim *s)
{
	int P = s->spec->timeline_points;
	s->nbins = P;
	s->bins = pp_xcalloc((size_t)P, sizeof(*s->bins));
	double last = s->njobs ? s->jobs->v[s->njobs - 1].submit_s : 0;
	s->bin_w = last > 0 ? 2 * last / P : 3600.0;
	for (int i = 0; i < P; i++)
		s->bins[i].t_s = i * s->bin_w;
}

/* halve the resolution: bin i takes bins 2i and 2i+1 */
static void bins_merge(cs_sim *s)
{
	int P = s->nbins;
	for (int i = 0; i < P / 2; i++) {
		pp_csim_tpoint a = s->bins[2 * i], b = s->bins[2 * i + 1];
		s->bins[i].alloc_gpus = a.alloc_gpus + b.alloc_gpus;
		s->bins[i].frag_gpus = a.frag_gpus + b.frag_gpus;
		s->bins[i].down_gpus = a.down_gpus + b.down_gpus;
		s->bins[i].pending_gpus = a.pending_gpus + b.pending_gpus;
	}
	for (int i = P / 2; i < P; i++)
		memset(&s->bins[i], 0, sizeof(s->bins[i]));
	s->bin_w *= 2;
	for (int i = 0; i < P; i++)
		s->bins[i].t_s = i * s->bin_w;
}

/* integrals over [t_last, t): the bins hold GPU-seconds until the end */
void cs_stats_advance(cs_sim *s, double t)
{
	if (!s->bins)
		bins_init(s);
	double a = s->t_last;
	if (t <= a)
		return;
	double alloc = s->up_gpus - s->free_gpus, frag = s->frag_now, down = s->down_gpus,
	       pend = s->pend_gpus;
	s->r->gpu_s_fragmented += frag * (t - a);
	s->r->gpu_s_down += down * (t - a);
	while (t > s->nbins * s->bin_w)
		bins_merge(s);
	while (a < t) {
		int i = (int)(a / s->bin_w);
		if (i < s->nbins - 1 && (i + 1) * s->bin_w <= a)
			i++; /* a on a bin edge, rounded down */
		if (i > s->nbins - 1)
			i = s->nbins - 1;
		double e = i >= s->nbins - 1 ? t : fmin((i + 1) * s->bin_w, t);
		if (e <= a)
			e = t;
		double d = e - a;
		s->bins[i].alloc_gpus += alloc * d;
		s->bins[i].frag_gpus += frag * d;
		s->bins[i].down_gpus += down * d;
		s->bins[i].pending_gpus += pend * d;
		a = e;
	}
	s->t_last = t;
}

int pp_csim_bucket_of(int gpus)
{
	return gpus <= 1 ? 0 : gpus <= 8 ? 1 : gpus <= 64 ? 2 : gpus <= 512 ? 3 : 4;
}

/* a time as a trace records it, at the spec's resolution */
static double rec_time(const cs_sim *s, double t)
{
	double r = s->spec->time_resolution_s;
	return r > 0 ? floor(t / r) * r : t;
}

/* the order statistic numpy's default (linear) quantile gives, of n sorted
 * values */
static double quantile(const double *v, int n, double p)
{
	double h = p * (n - 1);
	int lo = (int)h;
	return v[lo] + (h - lo) * (lo + 1 < n ? v[lo + 1] - v[lo] : 0);
}

static void qstat(double *v, int n, pp_csim_qstat *q)
{
	q->n = n;
	if (!n) {
		q->mean_s = q->median_s = q->p99_s = NAN;
		return;
	}
	pp_sort_doubles(v, (size_t)n, v);
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += v[i];
	q->mean_s = sum / n;
	q->median_s = quantile(v, n, 0.5);
	q->p99_s = quantile(v, n, 0.99);
}

int pp_csim_queue_quantiles(const pp_cjobs *jobs, const pp_csim_result *r, int b, double *q_s,
			    int npts)
{
	if (!r->jobs || npts < 2)
		return 0;
	double *v = pp_xmalloc(((size_t)r->njobs + 1) * sizeof(double));
	int n = 0;
	for (int j = 0; j < r->njobs; j++) {
		if (isnan(r->jobs[j].start_s))
			continue;
		if (b < PP_CSIM_SIZE_BUCKETS - 1 && pp_csim_bucket_of(jobs->v[j].gpus) != b)
			continue;
		v[n++] = r->jobs[j].queue_s;
	}
	if (n) {
		pp_sort_doubles(v, (size_t)n, v);
		for (int k = 0; k < npts; k++)
			q_s[k] = quantile(v, n, (double)k / (npts - 1));
	}
	free(v);
	return n;
}

int cs_stats_finish(cs_sim *s)
{
	pp_csim_result *r = s->r;
	const pp_cspec *sp = s->spec;
	if (!s->bins)
		bins_init(s);
	r->makespan_s = s->now;
	r->gpus = sp->gpus;
	r->gpu_s_available = sp->gpus * r->makespan_s - r->gpu_s_down + r->gpu_s_spot_available;
	r->finished = s->finished;
	double *qv[PP_CSIM_SIZE_BUCKETS];
	int qn[PP_CSIM_SIZE_BUCKETS] = {0};
	for (int b = 0; b < PP_CSIM_SIZE_BUCKETS; b++)
		qv[b] = pp_xmalloc(((size_t)s->njobs + 1) * sizeof(double));
	if (s->opts->per_job)
		r->jobs = pp_xcalloc((size_t)s->njobs + 1, sizeof(*r->jobs));
	double ettr_w = 0, ettr_sum = 0, mfu_w = 0, mfu_sum = 0;
	for (int j = 0; j < s->njobs; j++) {
		const cs_job *J = &s->js[j];
		const pp_cjob *x = &s->jobs->v[j];
		double g = x->gpu_milli < 1000 ? x->gpu_milli / 1000.0 : x->gpus;
		double useful = J->compute_s - J->lost_s;
		r->gpu_s_useful += g * useful;
		r->gpu_s_lost += g * J->lost_s;
		r->gpu_s_ckpt += g * J->ckpt_block_s;
		r->gpu_s_restart += g * J->restart_s;
		double ettr = NAN;
		if (J->st == ST_DONE && J->end_s > J->start_s && x->serve < 0) {
			ettr = useful / (J->end_s - J->start_s);
			ettr_sum += ettr * g * (J->end_s - J->start_s);
			ettr_w += g * (J->end_s - J->start_s);
		}
		if (!isnan(J->mfu)) {
			mfu_sum += J->mfu * g * J->compute_s;
			mfu_w += g * J->compute_s;
		}
		/* the delay as the trace records it: each time cut to the
		 * spec's resolution (Slurm's time_t: whole seconds) */
		double q = rec_time(s, J->start_s) - rec_time(s, x->submit_s);
		if (!isnan(J->start_s) && x->serve < 0) {
			int b = pp_csim_bucket_of(x->gpus);
			qv[b][qn[b]++] = q;
			qv[PP_CSIM_SIZE_BUCKETS - 1][qn[PP_CSIM_SIZE_BUCKETS - 1]++] = q;
		}
		if (r->jobs) {
			pp_csim_job *o = &r->jobs[j];
			o->start_s = J->start_s;
			o->end_s = J->st == ST_DONE ? J->end_s : NAN;
			o->queue_s = q;
			o->alloc_s = J->alloc_s;
			o->useful_s = useful;
			o->lost_s = J->lost_s;
			o->ckpt_block_s = J->ckpt_block_s;
			o->restart_s = J->restart_s;
			o->ettr = ettr;
			o->interruptions = J->interruptions;
			o->preemptions = J->preemptions;
			o->spans_leaf = J->spans_leaf;
		}
	}
	for (int b = 0; b < PP_CSIM_SIZE_BUCKETS; b++) {
		qstat(qv[b], qn[b], &r->queue[b]);
		free(qv[b]);
	}
	r->mean_ettr = ettr_w > 0 ? ettr_sum / ettr_w : NAN;
	r->sched_goodput = r->gpu_s_available > 0 ? r->gpu_s_allocated / r->gpu_s_available : NAN;
	r->runtime_goodput = r->gpu_s_allocated > 0 ? r->gpu_s_useful / r->gpu_s_allocated : NAN;
	r->program_goodput = mfu_w > 0 ? mfu_sum / mfu_w : NAN;
	r->goodput = r->sched_goodput * r->runtime_goodput *
		     (isnan(r->program_goodput) ? 1 : r->program_goodput);
	/* on-demand GPUs are paid all the time; spot GPUs while jobs hold them */
	r->usd_on_demand = sp->usd_per_gpu_hour * sp->gpus * r->makespan_s / 3600;
	r->usd_spot = sp->spot.nodes ? sp->spot.usd_per_gpu_hour * r->gpu_s_spot_allocated / 3600 : 0;
	r->usd_per_useful_gpu_hour =
		!isnan(sp->usd_per_gpu_hour) && !isnan(r->usd_spot) && r->gpu_s_useful > 0
			? (r->usd_on_demand + r->usd_spot) / (r->gpu_s_useful / 3600)
			: NAN;
	r->mean_ckpt_write_s = r->checkpoints ? s->ckpt_write_sum / r->checkpoints : NAN;
	/* the bins that the run reached, as means */
	int used = (int)ceil(r->makespan_s / s->bin_w);
	if (used < 1)
		used = 1;
	if (used > s->nbins)
		used = s->nbins;
	r->ntimeline = used;
	r->timeline = s->bins;
	s->bins = NULL;
	for (int i = 0; i < used; i++) {
		double w = fmin(s->bin_w, r->makespan_s - i * s->bin_w);
		if (w <= 0)
			w = s->bin_w;
		pp_csim_tpoint *p = &r->timeline[i];
		p->alloc_gpus /= w;
		p->frag_gpus /= w;
		p->down_gpus /= w;
		p->pending_gpus /= w;
	}
	return 0;
}
