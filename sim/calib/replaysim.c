/* replaysim.c - see replaysim.h. */
#include "calib/replaysim.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int comm_rank(const pp_rplan *p, int comm, int gpu)
{
	for (int i = 0; i < p->comms[comm].n; i++)
		if (p->comms[comm].gpus[i] == gpu)
			return i;
	return -1;
}

/* ---- the plan executed on paper ---- */

typedef struct seqref {
	int gpu, ins;
} seqref;

/* The plan being executed on paper. */
typedef struct paper {
	const pp_rplan *p;
	int G, C;
	seqref **seq;   /* [comm * PP_RP_MAX_GPUS + member]: its calls in issue order */
	int *nseq;
	int **pos;      /* [gpu][ins]: the call's index in its communicator's sequence */
	double **evt;   /* [gpu][event]: when it was recorded, -1 not yet */
	double **arr;   /* [gpu][ins]: arrival at a call, -1 not yet, -2 done */
	int *sqn, *head, **sqi; /* [gpu * PP_RS_COUNT + stream]: its instructions, the next */
	double *now;    /* [gpu * PP_RS_COUNT + stream]: its clock */
} paper;

/* Index every GPU's instructions per stream and per communicator; check
 * that each wait follows a record of its event and each call's GPU is a
 * member of its communicator. */
static int index_plan(paper *x, pp_err *err)
{
	const pp_rplan *p = x->p;
	int rc = 0, G = x->G, C = x->C;
	x->seq = pp_xcalloc((size_t)(C * PP_RP_MAX_GPUS + 1), sizeof(seqref *));
	x->nseq = pp_xcalloc((size_t)(C * PP_RP_MAX_GPUS + 1), sizeof(int));
	x->pos = pp_xcalloc((size_t)G, sizeof(int *));
	x->evt = pp_xcalloc((size_t)G, sizeof(double *));
	x->arr = pp_xcalloc((size_t)G, sizeof(double *));
	x->sqn = pp_xcalloc((size_t)(G * PP_RS_COUNT), sizeof(int));
	x->head = pp_xcalloc((size_t)(G * PP_RS_COUNT), sizeof(int));
	x->now = pp_xcalloc((size_t)(G * PP_RS_COUNT), sizeof(double));
	x->sqi = pp_xcalloc((size_t)(G * PP_RS_COUNT), sizeof(int *));
	for (int g = 0; g < G; g++) {
		const pp_rgpu *gp = &p->gpu[g];
		x->pos[g] = pp_xcalloc((size_t)gp->nins + 1, sizeof(int));
		x->arr[g] = pp_xcalloc((size_t)gp->nins + 1, sizeof(double));
		x->evt[g] = pp_xcalloc((size_t)gp->nevents + 1, sizeof(double));
		bool *recorded = pp_xcalloc((size_t)gp->nevents + 1, sizeof(bool));
		for (int e = 0; e < gp->nevents; e++)
			x->evt[g][e] = -1;
		for (int s = 0; s < PP_RS_COUNT; s++)
			x->sqi[g * PP_RS_COUNT + s] = pp_xmalloc(sizeof(int) * (size_t)(gp->nins + 1));
		for (int i = 0; i < gp->nins && !rc; i++) {
			const pp_rinstr *r = &gp->ins[i];
			int q = g * PP_RS_COUNT + r->stream;
			x->sqi[q][x->sqn[q]++] = i;
			x->arr[g][i] = -1;
			if (r->kind == PP_RI_RECORD) {
				recorded[r->arg] = true;
			} else if (r->kind == PP_RI_WAIT && !recorded[r->arg]) {
				rc = pp_errf(err, PP_EINTERNAL, "GPU %d instruction %d: waits for event %d "
					     "before any record of it", g, i, r->arg);
			} else if (r->kind == PP_RI_COLL || r->kind == PP_RI_SEND || r->kind == PP_RI_RECV) {
				int cr = comm_rank(p, r->comm, g);
				if (cr < 0) {
					rc = pp_errf(err, PP_EINTERNAL, "GPU %d uses communicator %s it is not "
						     "a member of", g, p->comms[r->comm].name);
					break;
				}
				int key = r->comm * PP_RP_MAX_GPUS + cr;
				x->seq[key] = pp_xrealloc(x->seq[key], sizeof(seqref) * (size_t)(x->nseq[key] + 1));
				x->pos[g][i] = x->nseq[key];
				x->seq[key][x->nseq[key]++] = (seqref){g, i};
			}
		}
		free(recorded);
	}
	return rc;
}

/* NCCL's rule: the same calls in the same order on every member. */
static int check_order(const paper *x, pp_err *err)
{
	const pp_rplan *p = x->p;
	for (int c = 0; c < x->C; c++) {
		const pp_rcomm *cm = &p->comms[c];
		int n0 = x->nseq[c * PP_RP_MAX_GPUS];
		for (int m = 1; m < cm->n; m++)
			if (x->nseq[c * PP_RP_MAX_GPUS + m] != n0)
				return pp_errf(err, PP_EINTERNAL, "communicator %s: member 0 issues %d calls, "
					       "member %d issues %d", cm->name, n0, m,
					       x->nseq[c * PP_RP_MAX_GPUS + m]);
		for (int k = 0; k < n0; k++) {
			seqref a = x->seq[c * PP_RP_MAX_GPUS][k];
			const pp_rinstr *ra = &p->gpu[a.gpu].ins[a.ins];
			for (int m = 1; m < cm->n; m++) {
				seqref bb = x->seq[c * PP_RP_MAX_GPUS + m][k];
				const pp_rinstr *rb = &p->gpu[bb.gpu].ins[bb.ins];
				bool p2p = ra->kind != PP_RI_COLL;
				bool ok = p2p ? ((ra->kind == PP_RI_SEND && rb->kind == PP_RI_RECV) ||
						 (ra->kind == PP_RI_RECV && rb->kind == PP_RI_SEND))
					      : rb->kind == PP_RI_COLL && ra->coll == rb->coll;
				ok = ok && fabs(ra->bytes - rb->bytes) <= 1e-9 * ra->bytes;
				if (!ok)
					return pp_errf(err, PP_EINTERNAL, "communicator %s: call %d differs "
						       "between GPU %d and GPU %d (kind, collective or size)",
						       cm->name, k, a.gpu, bb.gpu);
			}
		}
	}
	return 0;
}

/* GPU g's communication call i, reached on stream q at its clock: it
 * starts when every member has reached it; false while one has not. */
static bool try_call(paper *x, int g, int i, int q)
{
	const pp_rplan *p = x->p;
	const pp_rinstr *r = &p->gpu[g].ins[i];
	x->arr[g][i] = x->now[q];
	int c = r->comm, k = x->pos[g][i];
	double start = 0;
	for (int m = 0; m < p->comms[c].n; m++) {
		seqref o = x->seq[c * PP_RP_MAX_GPUS + m][k];
		double a = x->arr[o.gpu][o.ins];
		if (a < 0)
			return false;
		if (a > start)
			start = a;
	}
	double end = start + r->sim_s;
	for (int m = 0; m < p->comms[c].n; m++) {
		seqref o = x->seq[c * PP_RP_MAX_GPUS + m][k];
		if (o.gpu == g && o.ins == i)
			continue;
		int oq = o.gpu * PP_RS_COUNT + p->gpu[o.gpu].ins[o.ins].stream;
		x->now[oq] = end;
		x->head[oq]++;
		x->arr[o.gpu][o.ins] = -2; /* done */
	}
	x->now[q] = end;
	return true;
}

/* Each stream in order until nothing moves. */
static void run_streams(paper *x)
{
	const pp_rplan *p = x->p;
	bool moved = true;
	while (moved) {
		moved = false;
		for (int g = 0; g < x->G; g++) {
			const pp_rgpu *gp = &p->gpu[g];
			for (int s = 0; s < PP_RS_COUNT; s++) {
				int q = g * PP_RS_COUNT + s;
				while (x->head[q] < x->sqn[q]) {
					int i = x->sqi[q][x->head[q]];
					const pp_rinstr *r = &gp->ins[i];
					if (r->kind == PP_RI_GEMM || r->kind == PP_RI_MEM) {
						x->now[q] += r->sim_s;
					} else if (r->kind == PP_RI_RECORD) {
						x->evt[g][r->arg] = x->now[q];
					} else if (r->kind == PP_RI_WAIT) {
						if (x->evt[g][r->arg] < 0)
							break;
						if (x->evt[g][r->arg] > x->now[q])
							x->now[q] = x->evt[g][r->arg];
					} else if (!try_call(x, g, i, q)) {
						break;
					}
					x->head[q]++;
					moved = true;
				}
			}
		}
	}
}

static void paper_release(paper *x)
{
	for (int i = 0; x->seq && i < x->C * PP_RP_MAX_GPUS; i++)
		free(x->seq[i]);
	for (int g = 0; g < x->G; g++) {
		if (x->pos)
			free(x->pos[g]);
		if (x->evt)
			free(x->evt[g]);
		if (x->arr)
			free(x->arr[g]);
		for (int s = 0; x->sqi && s < PP_RS_COUNT; s++)
			free(x->sqi[g * PP_RS_COUNT + s]);
	}
	free(x->seq);
	free(x->nseq);
	free(x->pos);
	free(x->evt);
	free(x->arr);
	free(x->sqn);
	free(x->head);
	free(x->now);
	free(x->sqi);
}

int pp_rplan_simulate(const pp_rplan *p, double *step_s, pp_err *err)
{
	paper x;
	memset(&x, 0, sizeof(x));
	x.p = p;
	x.G = p->ngpus;
	x.C = p->ncomms;
	int rc = index_plan(&x, err);
	if (!rc)
		rc = check_order(&x, err);
	if (!rc)
		run_streams(&x);
	double mk = 0;
	for (int g = 0; g < x.G && !rc; g++)
		for (int s = 0; s < PP_RS_COUNT; s++) {
			int q = g * PP_RS_COUNT + s;
			if (x.head[q] < x.sqn[q]) {
				const pp_rinstr *r = &p->gpu[g].ins[x.sqi[q][x.head[q]]];
				rc = pp_errf(err, PP_EINTERNAL, "replay plan deadlocks: GPU %d stream %s "
					     "stops at instruction %d (kind %d, task %d)", g, pp_rs_names[s],
					     x.sqi[q][x.head[q]], r->kind, r->task);
				break;
			}
			if (x.now[q] > mk)
				mk = x.now[q];
		}
	*step_s = mk;
	paper_release(&x);
	return rc;
}
