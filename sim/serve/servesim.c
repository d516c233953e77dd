/* servesim.c - see servesim.h: the event simulation of one run (the set-up
 * it runs: servesetup.c; runs at other rates: serverate.c). */
#include "serve/servesim.h"
#include "serve/clientmeas.h"
#include "serve/requests.h"
#include "serve/sched.h"
#include "engine/collective.h"
#include "core/heap.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ev {
	double t;
	int rep, slot;  /* slot -1: a wake-up (the first stage is free again); -2: request
			 * req's KV has reached decode instance rep */
	int req;
} ev;

enum { EV_WAKE = -1, EV_KV = -2 };

typedef struct rep {
	pp_sched *sch;
	const pp_servespec *sv;  /* its pool's (co-located: the setup's) */
	pp_forward *fwd;
	int pool;                /* PP_POOL_*; -1 co-located */
	int64_t iterations;
	double busy_s, batch_tokens, running;
	double stage_free[PP_FWD_MAX_STAGES];
	int inflight;
	int **ids;      /* per slot: the batch's requests */
	int *n;         /* per slot: how many; -1 free */
	double wake;    /* a pending wake-up's time; 0 none */
} rep;

typedef struct run {
	const pp_serve_setup *su;
	pp_sreq *r;             /* what the client sees (disaggregated: the decode side) */
	pp_sreq *rp;            /* disaggregated: the prefill instances' requests */
	size_t N;
	rep *reps;
	int R, P;
	int npre;               /* disaggregated: reps[0 .. npre) prefill, the rest decode */
	double link_bytes_per_token, total_bytes_per_token;
	double *xfer_s, *pdone_s; /* per request: the transfer's time, prefill finished at */
	pp_heap heap;            /* of ev, by time */
	pp_serve_meas meas;     /* the client's inter-token gaps */
	int *done;
	int cin, maxin;
	size_t rr, rr2;         /* round-robin cursors (prefill / co-located, decode) */
	pp_serve_result *out;
} run;

/* The event queue's order: by time alone. Events of one instant come out
 * in core/heap.h's order of equal elements (fixed by the pushes and pops,
 * not push order), the order this simulation's own heap gave them
 * (tests/test_heap.c checks it), so its outputs are unchanged. */
static bool ev_before(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return ((const ev *)a)->t < ((const ev *)b)->t;
}

static void heap_push(run *s, ev e)
{
	pp_heap_push(&s->heap, &e, sizeof(e), ev_before, NULL);
}

/* The earliest event's time; INFINITY when none. */
static double heap_next_t(const run *s)
{
	const ev *e = pp_heap_top(&s->heap);
	return e ? e->t : INFINITY;
}

static ev heap_pop(run *s)
{
	ev top;
	pp_heap_pop(&s->heap, &top, sizeof(top), ev_before, NULL);
	return top;
}

static void emit(void *ctx, const int *tok, int n, double now)
{
	run *s = ctx;
	pp_serve_meas_tokens(&s->meas, s->r, tok, n, now);
}

/* Decode instance ri admitted remote requests: their KV transfers start
 * now (servesim.h). */
static void start_loads(run *s, int ri, double now)
{
	int ids[64], n;
	rep *R = &s->reps[ri];
	while ((n = pp_sched_take_loads(R->sch, ids, 64)) > 0)
		for (int k = 0; k < n; k++) {
			int i = ids[k];
			double prompt = (double)s->r[i].prompt;
			double t = pp_p2p_time(&s->su->hw, prompt * s->link_bytes_per_token,
					       s->su->xfer_same_node);
			s->xfer_s[i] = t;
			s->out->kv_transfer_bytes += prompt * s->total_bytes_per_token;
			s->out->kv_transfers++;
			s->out->transfer_s += t;
			s->out->mean_decode_wait_s += now - s->pdone_s[i];
			heap_push(s, (ev){now + t, ri, EV_KV, i});
		}
}

/* Launch the replica's next batches at now while a slot and its first
 * stage are free. */
static void try_launch(run *s, int ri, double now)
{
	rep *R = &s->reps[ri];
	while (R->inflight < s->P && R->stage_free[0] <= now) {
		int slot = 0;
		while (R->n[slot] >= 0)
			slot++;
		pp_fwd_batch b;
		int n = pp_sched_next(R->sch, R->ids[slot], (int)R->sv->max_num_seqs + 1, &b);
		if (R->pool == PP_POOL_DECODE)
			start_loads(s, ri, now);
		if (n == 0)
			return;
		pp_fwd_cost c;
		pp_forward_cost(R->fwd, &b, &c);
		double t = now, hop = s->P > 1 ? c.p2p_s / (s->P - 1) : 0;
		for (int st = 0; st < s->P; st++) {
			double start = t > R->stage_free[st] ? t : R->stage_free[st];
			R->stage_free[st] = start + c.stage_s[st];
			t = R->stage_free[st] + (st + 1 < s->P ? hop : 0);
		}
		R->n[slot] = n;
		R->inflight++;
		heap_push(s, (ev){t, ri, slot, 0});
		pp_serve_result *o = s->out;
		o->iterations++;
		o->graphed_iterations += c.graphed;
		o->mean_batch_tokens += b.prefill_tokens + b.decode_tokens;
		o->mean_running += pp_sched_running(R->sch);
		if (pp_sched_running(R->sch) > o->peak_running)
			o->peak_running = pp_sched_running(R->sch);
		o->busy_s += c.total_s;
		R->iterations++;
		R->busy_s += c.total_s;
		R->batch_tokens += b.prefill_tokens + b.decode_tokens;
		R->running += pp_sched_running(R->sch);
		o->compute_s += c.compute_s;
		o->tp_comm_s += c.tp_comm_s;
		o->ep_comm_s += c.ep_comm_s;
		o->launch_s += c.launch_s;
		o->p2p_s += c.p2p_s;
	}
	if (R->inflight < s->P && R->stage_free[0] > now && R->wake != R->stage_free[0]) {
		R->wake = R->stage_free[0];
		heap_push(s, (ev){R->wake, ri, EV_WAKE, 0});
	}
}

/* The instance of reps[lo .. hi) the load balancer sends a request to;
 * *rr its round-robin cursor. */
static int pick_replica(run *s, int lo, int hi, size_t *rr)
{
	const pp_servespec *sv = &s->su->sv;
	if (hi - lo == 1)
		return lo;
	if (sv->lb_policy == PP_LB_ROUND_ROBIN)
		return lo + (int)((*rr)++ % (size_t)(hi - lo));
	int best = lo;
	double bs = INFINITY;
	for (int i = lo; i < hi; i++) {
		double score = sv->lb_waiting_weight * pp_sched_waiting(s->reps[i].sch) +
			       pp_sched_running(s->reps[i].sch);
		if (score < bs) {
			bs = score;
			best = i;
		}
	}
	return best;
}

static void emit_none(void *ctx, const int *tok, int n, double now)
{
	(void)ctx, (void)tok, (void)n, (void)now; /* the prefill instance's token: the proxy drops it */
}

static void new_rep(run *s, rep *R, const pp_servespec *sv, pp_forward *f,
		    const pp_serve_memory *m, pp_sreq *reqs, int pool, double window)
{
	R->sv = sv;
	R->fwd = f;
	R->pool = pool;
	R->sch = pp_sched_new(sv, reqs, m->num_gpu_blocks, window);
	R->ids = pp_xcalloc((size_t)s->P, sizeof(int *));
	R->n = pp_xcalloc((size_t)s->P, sizeof(int));
	for (int k = 0; k < s->P; k++) {
		R->ids[k] = pp_xcalloc((size_t)sv->max_num_seqs + 2, sizeof(int));
		R->n[k] = -1;
	}
}

/* The per-pool figures and the transfers' share, once the run is over. */
static void pool_figures(run *s)
{
	pp_serve_result *o = s->out;
	o->disagg = true;
	for (int i = 0; i < s->R; i++) {
		const rep *R = &s->reps[i];
		int k = R->pool;
		o->pool[k].instances++;
		o->pool[k].iterations += R->iterations;
		o->pool[k].busy_s += R->busy_s;
		o->pool[k].mean_batch_tokens += R->batch_tokens;
		o->pool[k].mean_running += R->running;
		o->pool[k].preemptions += pp_sched_preemptions(R->sch);
	}
	for (int k = 0; k < PP_NPOOLS; k++) {
		double it = (double)o->pool[k].iterations;
		if (it > 0) {
			o->pool[k].mean_batch_tokens /= it;
			o->pool[k].mean_running /= it;
		}
		/* busy_s sums every stage's time: per GPU of the pipeline */
		double span = o->pool[k].instances * s->P * o->duration_s;
		o->pool[k].utilisation = span > 0 ? o->pool[k].busy_s / span : 0;
	}
	if (o->kv_transfers > 0) {
		o->mean_transfer_s = o->transfer_s / (double)o->kv_transfers;
		o->mean_decode_wait_s /= (double)o->kv_transfers;
	}
}

/* A run stop_when_missed stopped: the verdict and the bounds that gave
 * it; every other latency and throughput figure NAN (servesim.h). */
static void stopped_figures(run *s, const int64_t *need)
{
	pp_serve_result *o = s->out;
	o->stopped = true;
	o->slo_met = false;
	o->num_prompts = (int64_t)s->N;
	o->duration_s = o->request_throughput = o->output_throughput = NAN;
	o->total_token_throughput = o->request_goodput = NAN;
	pp_serve_stat *st[4] = {&o->ttft, &o->tpot, &o->e2el, &o->itl};
	for (int k = 0; k < 4; k++) {
		st[k]->mean = st[k]->std = st[k]->median = st[k]->p99 = st[k]->pct = NAN;
		for (int j = 0; j < PP_SERVE_MAX_PCTS; j++)
			st[k]->pcts[j] = NAN;
		if (k < 3 && s->meas.over[k] >= need[k])
			st[k]->pct = s->meas.over_min[k];
	}
	if (o->iterations) {
		o->mean_batch_tokens /= (double)o->iterations;
		o->mean_running /= (double)o->iterations;
	}
}

/* Replica i has something new to schedule now. */
static void touch(bool *touched, int *lo, int *hi, int i)
{
	touched[i] = true;
	if (i < *lo)
		*lo = i;
	if (i > *hi)
		*hi = i;
}

int pp_serve_run(const pp_serve_setup *su, double request_rate, uint64_t seed,
		 pp_serve_result *out, pp_err *err)
{
	const pp_servespec *sv = &su->sv;
	memset(out, 0, sizeof(*out));
	out->request_rate = request_rate;
	out->seed = seed;
	run s = {0};
	pp_heap_init(&s.heap, sizeof(ev));
	s.su = su;
	s.out = out;
	s.P = sv->pp;
	int reps = su->disagg ? su->pool[PP_POOL_PREFILL].sv.dp + su->pool[PP_POOL_DECODE].sv.dp : sv->dp;
	int rc = pp_serve_check_work(sv, reps, 1, err);
	if (rc)
		return rc;
	pp_serve_requests(sv, request_rate, seed, &s.r, &s.N);
	int64_t rejected = 0;
	if ((rc = pp_serve_admit(sv, s.r, &s.N, &rejected, err))) {
		free(s.r);
		return rc;
	}
	out->rejected = rejected;
	out->offered_rps = pp_serve_offered_rps(sv, request_rate, s.r, s.N);
	if (s.N > 0 && s.r[s.N - 1].arrival_s > PP_SERVE_LIMIT_SPAN_S) {
		rc = pp_errf(err, PP_EINPUT, "serve: the %zu requests' arrivals span %.3g s at request "
			     "rate %.3g, past the limit of %.0f s (the clock is double seconds: beyond "
			     "it latencies lose sub-microsecond resolution); expected a higher "
			     "workload.request_rate, fewer workload.num_prompts or a trace of a "
			     "shorter span", s.N, s.r[s.N - 1].arrival_s, request_rate,
			     PP_SERVE_LIMIT_SPAN_S);
		free(s.r);
		return rc;
	}
	double window = su->replica.model.window;
	int64_t maxseqs = sv->max_num_seqs;
	if (su->disagg) {
		const pp_serve_pool *pp_ = &su->pool[PP_POOL_PREFILL], *pd = &su->pool[PP_POOL_DECODE];
		s.npre = pp_->sv.dp;
		s.R = pp_->sv.dp + pd->sv.dp;
		/* each GPU sends its share of the layers and heads to its peer; the
		 * pool with the larger share per GPU sets the bytes a link carries */
		s.link_bytes_per_token = pp_->mem.kv_bytes_per_token > pd->mem.kv_bytes_per_token
						 ? pp_->mem.kv_bytes_per_token
						 : pd->mem.kv_bytes_per_token;
		s.total_bytes_per_token = pp_kv_bytes_per_token(&su->s->model, pp_->sv.tp, sv->kv_bytes) *
					  pp_->sv.tp;
		s.rp = pp_xcalloc(s.N + 1, sizeof(pp_sreq));
		s.xfer_s = pp_xcalloc(s.N + 1, sizeof(double));
		s.pdone_s = pp_xcalloc(s.N + 1, sizeof(double));
		for (size_t i = 0; i < s.N; i++) {
			s.rp[i] = s.r[i];
			s.rp[i].output = s.rp[i].max_tokens = 1; /* the proxy's max_tokens = 1 */
			s.rp[i].hold = true;
		}
		s.reps = pp_xcalloc((size_t)s.R, sizeof(rep));
		for (int i = 0; i < s.R; i++) {
			const pp_serve_pool *pl = i < s.npre ? pp_ : pd;
			new_rep(&s, &s.reps[i], &pl->sv, pl->fwd, &pl->mem, i < s.npre ? s.rp : s.r,
				i < s.npre ? PP_POOL_PREFILL : PP_POOL_DECODE, window);
		}
		if (pp_->sv.max_num_seqs > maxseqs)
			maxseqs = pp_->sv.max_num_seqs;
	} else {
		s.R = sv->dp;
		s.reps = pp_xcalloc((size_t)s.R, sizeof(rep));
		for (int i = 0; i < s.R; i++)
			new_rep(&s, &s.reps[i], sv, su->fwd, &su->mem, s.r, -1, window);
	}
	s.done = pp_xcalloc((size_t)maxseqs + 2, sizeof(int));
	bool *touched = pp_xcalloc((size_t)s.R, sizeof(bool));
	int tlo = s.R, thi = -1; /* the touched ones lie in [tlo, thi]: the loops below skip the rest */
	size_t next = 0, ndone = 0, tick = s.N / 20 + 1;
	int C = sv->max_concurrency > 0 ? (int)sv->max_concurrency : 0;
	int front = su->disagg ? s.npre : s.R; /* the instances a client's request reaches */
	/* stop_when_missed: how many requests over a bound make its
	 * percentile certainly over it (servesim.h) */
	int64_t need[3] = {INT64_MAX, INT64_MAX, INT64_MAX};
	if (su->stop_when_missed > 0 && sv->slo_present && sv->warmup_requests == 0) {
		size_t ntpot = 0;
		for (size_t i = 0; i < s.N; i++)
			ntpot += s.r[i].output > 1;
		const double b[3] = {sv->slo_ttft_s, sv->slo_tpot_s, sv->slo_e2el_s};
		const size_t n[3] = {s.N, ntpot, s.N};
		for (int k = 0; k < 3; k++)
			if (b[k] > 0 && n[k] > 0) {
				/* the rank pp_serve_pct_of takes */
				size_t lhs = (size_t)(int)(sv->slo_percentile / 100.0 * (double)(n[k] - 1));
				if (lhs >= n[k])
					lhs = n[k] - 1;
				need[k] = (int64_t)(n[k] - lhs);
				s.meas.bound[k] = su->stop_when_missed * b[k];
			}
	}
	size_t gaps = 0; /* every request's tokens after its first */
	for (size_t i = 0; i < s.N; i++)
		gaps += s.r[i].output > 1 ? (size_t)(s.r[i].output - 1) : 0;
	pp_serve_meas_reserve(&s.meas, gaps);
	bool stopped = false;
	double now = 0;
	while (ndone < s.N) {
		if (s.meas.over[0] >= need[0] || s.meas.over[1] >= need[1] || s.meas.over[2] >= need[2]) {
			stopped = true;
			break;
		}
		double t_send = INFINITY, t_ev = heap_next_t(&s);
		if (next < s.N && (C == 0 || s.cin < C))
			t_send = s.r[next].arrival_s > now ? s.r[next].arrival_s : now;
		double t = t_send < t_ev ? t_send : t_ev;
		if (!isfinite(t)) {
			rc = pp_errf(err, PP_EINTERNAL, "serve: %zu of %zu requests can never run (a "
				     "request needs more KV blocks than a replica has)", s.N - ndone, s.N);
			goto out;
		}
		now = t;
		/* every iteration ending now, then every send due now, then the
		 * replicas they touched schedule. A client at its concurrency cap
		 * sends its next request only once a response has reached it, and
		 * the engine starts its next iteration as soon as it has sent its
		 * responses (TensorRT-LLM's executionLoop: enqueueNewResponses,
		 * then fetchNewRequests of what is queued, then forwardAsync;
		 * vLLM's EngineCore busy loop: the input queue drained without
		 * waiting, then step): so the replicas schedule before such
		 * replies and a reply joins the iteration after, or at once when
		 * its replica has nothing to run (both engines then wait for a
		 * request). */
		bool capped = C > 0 && s.cin >= C;
		size_t ended = ndone;
		while (heap_next_t(&s) <= now) {
			ev e = heap_pop(&s);
			rep *R = &s.reps[e.rep];
			touch(touched, &tlo, &thi, e.rep);
			if (e.slot == EV_WAKE) {
				if (R->wake == e.t)
					R->wake = 0;
				continue;
			}
			if (e.slot == EV_KV) { /* the KV arrived: decode can run it, prefill frees it */
				pp_sched_loaded(R->sch, e.req);
				int pr = s.rp[e.req].replica;
				pp_sched_free_held(s.reps[pr].sch, e.req);
				touch(touched, &tlo, &thi, pr);
				continue;
			}
			if (R->pool == PP_POOL_PREFILL) {
				int nd = pp_sched_complete(R->sch, R->ids[e.slot], R->n[e.slot], now, s.done,
							   emit_none, &s);
				R->n[e.slot] = -1;
				R->inflight--;
				for (int k = 0; k < nd; k++) { /* to a decode instance */
					int i = s.done[k];
					int d = pick_replica(&s, s.npre, s.R, &s.rr2);
					s.pdone_s[i] = now;
					s.r[i].replica = d;
					s.r[i].remote = true;
					pp_sched_add(s.reps[d].sch, i);
					touch(touched, &tlo, &thi, d);
				}
				continue;
			}
			int nd = pp_sched_complete(R->sch, R->ids[e.slot], R->n[e.slot], now, s.done, emit,
						   &s);
			R->n[e.slot] = -1;
			R->inflight--;
			ndone += (size_t)nd;
			s.cin -= nd;
			if (su->progress && nd && ndone / tick != (ndone - (size_t)nd) / tick)
				su->progress(su->progress_ctx, (double)ndone / (double)s.N);
		}
		if (capped && ndone > ended && next < s.N && s.r[next].arrival_s <= now)
			for (int i = tlo; i <= thi; i++)
				if (touched[i])
					try_launch(&s, i, now);
		while (next < s.N && (C == 0 || s.cin < C) && s.r[next].arrival_s <= now) {
			pp_sreq *q = &s.r[next];
			q->send_s = now;
			int ri = pick_replica(&s, 0, front, &s.rr);
			if (su->disagg) {
				s.rp[next].send_s = now;
				s.rp[next].replica = ri;
			} else {
				q->replica = ri;
			}
			pp_sched_add(s.reps[ri].sch, (int)next);
			touch(touched, &tlo, &thi, ri);
			s.cin++;
			if (s.cin > out->max_concurrent_requests)
				out->max_concurrent_requests = s.cin;
			next++;
		}
		for (int i = tlo; i <= thi; i++)
			if (touched[i]) {
				touched[i] = false;
				try_launch(&s, i, now);
			}
		tlo = s.R;
		thi = -1;
	}
	for (int i = 0; i < s.R; i++) {
		int64_t d = pp_kvpool_peak_demand(pp_sched_pool(s.reps[i].sch));
		if (d > out->peak_kv_demand)
			out->peak_kv_demand = d;
	}
	if (stopped) {
		stopped_figures(&s, need);
		goto out;
	}
	for (int i = 0; i < s.R; i++) {
		const pp_kvpool *kp = pp_sched_pool(s.reps[i].sch);
		out->prefix_hit_tokens += pp_sched_hit_tokens(s.reps[i].sch);
		out->blocks_held_at_end += pp_kvpool_total(kp) - pp_kvpool_free_blocks(kp);
	}
	if (su->disagg)
		for (size_t i = 0; i < s.N; i++)
			out->preemptions += s.rp[i].preemptions;
	pp_serve_finish(su, s.r, s.N, s.xfer_s, &s.meas, sv->slo_present ? sv->slo_percentile : 99,
			out);
	if (su->disagg)
		pool_figures(&s);
out:
	for (int i = 0; i < s.R; i++) {
		pp_sched_free(s.reps[i].sch);
		for (int k = 0; k < s.P; k++)
			free(s.reps[i].ids[k]);
		free(s.reps[i].ids);
		free(s.reps[i].n);
	}
	free(s.reps);
	pp_heap_release(&s.heap);
	pp_serve_meas_release(&s.meas);
	free(s.done);
	free(s.rp);
	free(s.xfer_s);
	free(s.pdone_s);
	if (su->keep_requests && rc == 0) {
		out->requests = s.r;
		out->nrequests = s.N;
	} else {
		free(s.r);
	}
	free(touched);
	return rc;
}

void pp_serve_result_release(pp_serve_result *r)
{
	free(r->requests);
	r->requests = NULL;
	r->nrequests = 0;
}
