/* pipelist.c - see pipeorder.h: the schedules written as per-rank action
 * lists.
 *
 * ZB-H1 and ZB-H2 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR
 * 2024, and sail-sg/zero-bubble-pipeline-parallelism): 1F1B's order of
 * forwards and input gradients (B) after a warm-up of w forwards, rank r
 * (of p) running its weight gradients (W) d behind: after each B from its
 * (d + 1)-th on, the oldest W still to run; the d left over at the end.
 * ZB-H1: w = p - 1 - r (1F1B's, p micro-batches held), d = r; bubble
 * (p - 1)(F + B - W). ZB-H2: w = 2 (p - 1 - r) (2 p - 1 held on rank 0),
 * d = 2 r, the tail's W moved so that the ranks' spans form the paper's
 * parallelogram; bubble (p - 1)(F + B - 2 W) from 2 p - 1 micro-batches.
 *
 * ZB-V and DualPipeV: PyTorch's ScheduleZBVZeroBubble and
 * ScheduleDualPipeV (torch/distributed/pipelining/schedules.py,
 * _calculate_single_rank_operations), the latter DualPipe's eight steps
 * (deepseek-ai/DualPipe dualpipe/dualpipev.py) on a V of 2 p stages. The
 * idle slots PyTorch's lists carry are left out: the engine starts an
 * action once its input is there.
 *
 * DualPipe (deepseek-ai/DualPipe @3da1bbe dualpipe/dualpipe.py, step()):
 * rank r of p runs the same eight steps in half_rank h = min(r, p - 1 - r),
 * num_half_ranks p / 2 and half_num_chunks m / 2 (the micro-batches of
 * each direction) as dualpipev.py's in rank, num_ranks and num_chunks, its
 * phases swapped on the second half of the ranks ("phase ^=
 * is_in_second_half": phase 0 is the forward direction on ranks below
 * p / 2, the reverse one above); step 1 nF0, 2 nF0F1, 3 nB1W1F1 (zero
 * bubble), 4 nF0B1F1B0 (overlapped pairs; the middle ranks' first pair
 * not overlapped), 5 nB1F1B0, 6 nB1B0 (the second half zero bubble),
 * 7 nWB0, 8 nW.
 *
 * Interleaved 1F1B with a micro-batch count the stages do not divide
 * (Llama 3, arXiv 2407.21783 Sec. 3.3.2; Megatron-Core's
 * forward_backward_pipelining_with_interleaving, get_schedule_table and
 * get_pp_rank_microbatches in megatron/core/pipeline_parallel/
 * schedules.py): micro-batches run chunk by chunk in groups of N
 * (microbatch_group_size_per_vp_stage), the last group of m mod N (if not
 * 0) the same way; rank r's warm-up is 2 (p - 1 - r) + (v - 1) N forwards,
 * then one forward one backward, then the cool-down backwards, backward k
 * of the k-th forward's micro-batch on chunk v - 1 - c. */
#include "engine/pipeorder.h"
#include "core/util.h"

#include <stdlib.h>

bool pp_pipe_listed(const pp_pipe *pl)
{
	return pl->schedule == PP_SCHED_ZBH1 || pl->schedule == PP_SCHED_ZBH2 ||
	       pl->schedule == PP_SCHED_ZBV || pl->schedule == PP_SCHED_DUALPIPEV ||
	       pl->schedule == PP_SCHED_DUALPIPE ||
	       (pl->schedule == PP_SCHED_INTERLEAVED && pl->vpp > 1 && pl->pp > 1 &&
		pl->m % pl->pp != 0);
}

int pp_pipe_group(const pp_pipe *pl)
{
	int P = pl->pp, m = pl->m;
	if (m % P == 0 || m < P)
		return P;
	/* Megatron-Core takes N in [p, m] with m mod N 0 or at least p (a
	 * last group smaller than p would stall the stages); the least such */
	for (int N = P; N < m; N++)
		if (m % N == 0 || m % N >= P)
			return N;
	return m;
}


int pp_pipe_list_cap(const pp_pipe *pl)
{
	/* a forward, an input and a weight gradient per micro-batch and chunk */
	return 3 * pl->m * pl->vpp;
}

typedef struct out {
	pp_unit *u;
	int n;
	int m;       /* micro-batches: actions on later ones are left out (ZB-V) */
} out;

static void put(out *o, bool fwd, int chunk, int mb, int act, bool pair)
{
	if (mb >= o->m)
		return;
	if (o->u)
		o->u[o->n] = (pp_unit){fwd, chunk, mb, (uint8_t)act, pair};
	o->n++;
}

static void zbh(out *o, int warm, int d)
{
	int m = o->m, w = 0;
	if (warm > m)
		warm = m;
	for (int j = 0; j < warm; j++)
		put(o, true, 0, j, PP_ACT_WHOLE, false);
	for (int j = 0; j < m; j++) {
		if (warm + j < m)
			put(o, true, 0, warm + j, PP_ACT_WHOLE, false);
		put(o, false, 0, j, PP_ACT_I, false);
		if (j >= d)
			put(o, false, 0, w++, PP_ACT_W, false);
	}
	while (w < m)
		put(o, false, 0, w++, PP_ACT_W, false);
}

/* ScheduleZBVZeroBubble._calculate_single_rank_operations */
static void zbv(out *o, int p, int r)
{
	int n = o->m, mc = 2 * p - 1 > n ? 2 * p - 1 : n;
	int f0 = 0, f1 = 0, b0 = 0, b1 = 0;
	for (int i = 0; i < 2 * (p - r) - 1; i++)
		put(o, true, 0, f0++, PP_ACT_WHOLE, false);
	for (int i = 0; i < r; i++) {
		put(o, true, 1, f1++, PP_ACT_WHOLE, false);
		put(o, true, 0, f0++, PP_ACT_WHOLE, false);
	}
	for (int i = 0; i < p - r; i++) {
		put(o, true, 1, f1++, PP_ACT_WHOLE, false);
		put(o, false, 1, b1, PP_ACT_I, false);
		put(o, false, 1, b1++, PP_ACT_W, false);
	}
	while (f1 < f0 || f0 < mc) {
		if (f0 < mc)
			put(o, true, 0, f0++, PP_ACT_WHOLE, false);
		put(o, false, 0, b0, PP_ACT_I, false);
		put(o, false, 0, b0++, PP_ACT_W, false);
		put(o, true, 1, f1++, PP_ACT_WHOLE, false);
		put(o, false, 1, b1, PP_ACT_I, false);
		put(o, false, 1, b1++, PP_ACT_W, false);
	}
	int w0 = b0, w1 = b1;
	for (int i = 0; i < r; i++) {
		put(o, false, 0, b0++, PP_ACT_I, false);
		put(o, false, 1, b1++, PP_ACT_I, false);
	}
	for (int i = 0; i < p - r; i++) {
		put(o, false, 0, b0++, PP_ACT_I, false);
		put(o, false, 0, w0++, PP_ACT_W, false);
	}
	while (w1 < b1)
		put(o, false, 1, w1++, PP_ACT_W, false);
	while (w0 < b0)
		put(o, false, 0, w0++, PP_ACT_W, false);
}

/* ScheduleDualPipeV._calculate_single_rank_operations: counters per chunk
 * and direction, the weight gradients of input-gradient-only backwards
 * queued (FIFO, WeightGradStore) */
typedef struct dpv {
	out *o;
	int f[2], b[2];
	int *qc, *qm;         /* the queue: each input gradient's weight gradient once */
	int qh, qn;
} dpv;

static void dpv_f(dpv *d, int c, bool pair)
{
	put(d->o, true, c, d->f[c]++, PP_ACT_WHOLE, pair);
}

static void dpv_b(dpv *d, int c, bool full)
{
	int mb = d->b[c]++;
	put(d->o, false, c, mb, full ? PP_ACT_WHOLE : PP_ACT_I, false);
	if (!full) {
		int t = d->qh + d->qn++;
		d->qc[t] = c;
		d->qm[t] = mb;
	}
}

static void dpv_w(dpv *d)
{
	if (!d->qn)
		return;
	put(d->o, false, d->qc[d->qh], d->qm[d->qh], PP_ACT_W, false);
	d->qh++;
	d->qn--;
}

static void dualpipev(out *o, int p, int r)
{
	int n = o->m;
	dpv d = {o, {0, 0}, {0, 0}, NULL, NULL, 0, 0};
	d.qc = pp_xmalloc(sizeof(int) * 2 * (size_t)(2 * n + 2));
	d.qm = d.qc + 2 * n + 2;
	for (int i = 0; i < (p - r - 1) * 2; i++)
		dpv_f(&d, 0, false);
	for (int i = 0; i < r + 1; i++) {
		dpv_f(&d, 0, false);
		dpv_f(&d, 1, false);
	}
	for (int i = 0; i < p - r - 1; i++) {
		dpv_b(&d, 1, false);
		dpv_w(&d);
		dpv_f(&d, 1, false);
	}
	for (int i = 0; i < n - 2 * p + r + 1; i++) {
		if (i == 0 && r == p - 1) {
			/* the middle of the V does not overlap its first pair */
			dpv_f(&d, 0, false);
			dpv_b(&d, 1, true);
		} else {
			dpv_f(&d, 0, true);
			dpv_b(&d, 1, true);
		}
		dpv_f(&d, 1, true);
		dpv_b(&d, 0, true);
	}
	for (int i = 0; i < p - r - 1; i++) {
		dpv_b(&d, 1, true);
		dpv_f(&d, 1, true);
		dpv_b(&d, 0, true);
	}
	int s6 = r + 1;
	bool zb = false;
	for (int i = 0; i < s6; i++) {
		if (i == s6 / 2 && r % 2 == 1)
			zb = true;
		dpv_b(&d, 1, !zb);
		if (i == s6 / 2 && r % 2 == 0)
			zb = true;
		dpv_b(&d, 0, !zb);
	}
	for (int i = 0; i < p - r - 1; i++) {
		dpv_w(&d);
		dpv_b(&d, 0, !zb);
	}
	for (int i = 0; i < r + 1; i++)
		dpv_w(&d);
	free(d.qc);
}

/* dualpipe.py's step() on rank r of p: dualpipev()'s steps on p / 2
 * ranks in half_rank, each direction's m / 2 micro-batches, then each
 * action's phase made the direction (chunk) and its micro-batch
 * numbered in it (chunk 1's from m / 2 on) */
static void dualpipe(out *o, int p, int r)
{
	int half = o->m / 2, h = r < p - 1 - r ? r : p - 1 - r, first = o->n;
	int swap = r >= p / 2;
	out d = {o->u, o->n, half};
	dualpipev(&d, p / 2, h);
	for (int i = first; o->u && i < d.n; i++) {
		pp_unit *x = &o->u[i];
		x->chunk ^= swap;
		if (x->chunk == 1)
			x->mb += half;
	}
	o->n = d.n;
}

/* get_schedule_table's entry k: micro-batch *mb, chunk *c */
static void group_entry(int m, int v, int N, int k, int *mb, int *c)
{
	int lastmin = (m - 1) / N * N, L = m - lastmin;
	if (k < lastmin * v) {
		int o = k % (N * v);
		*c = o / N;
		*mb = k / (N * v) * N + o % N;
	} else {
		int o = k - lastmin * v;
		*c = o / L;
		*mb = lastmin + o % L;
	}
}

static void interleaved(out *o, const pp_pipe *pl, int r)
{
	int m = pl->m, v = pl->vpp, N = pp_pipe_group(pl), total = m * v;
	int warm = 2 * (pl->pp - 1 - r) + (v - 1) * N;
	if (warm > total)
		warm = total;
	int kf = 0, kb = 0, mb, c;
	for (; kf < warm; kf++) {
		group_entry(m, v, N, kf, &mb, &c);
		put(o, true, c, mb, PP_ACT_WHOLE, false);
	}
	for (; kb < total; kb++) {
		if (kf < total) {
			group_entry(m, v, N, kf++, &mb, &c);
			put(o, true, c, mb, PP_ACT_WHOLE, false);
		}
		group_entry(m, v, N, kb, &mb, &c);
		put(o, false, v - 1 - c, mb, PP_ACT_WHOLE, false);
	}
}

int pp_pipe_list(const pp_pipe *pl, int st, pp_unit *u)
{
	out o = {u, 0, pl->m};
	switch (pl->schedule) {
	case PP_SCHED_ZBH1:
		zbh(&o, pl->pp - 1 - st, st);
		break;
	case PP_SCHED_ZBH2:
		zbh(&o, 2 * (pl->pp - 1 - st), 2 * st);
		break;
	case PP_SCHED_ZBV:
		zbv(&o, pl->pp, st);
		break;
	case PP_SCHED_DUALPIPEV:
		dualpipev(&o, pl->pp, st);
		break;
	case PP_SCHED_DUALPIPE:
		dualpipe(&o, pl->pp, st);
		break;
	case PP_SCHED_INTERLEAVED:
		if (pp_pipe_listed(pl))
			interleaved(&o, pl, st);
		break;
	default:
		return 0;
	}
	return o.n;
}

const char *pp_unit_name(pp_unit u)
{
	if (u.fwd)
		return "F";
	return u.act == PP_ACT_I ? "I" : u.act == PP_ACT_W ? "W" : "B";
}
