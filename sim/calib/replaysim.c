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

int pp_rplan_simulate(const pp_rplan *p, double *step_s, pp_err *err)
{
	int rc = 0, G = p->ngpus, C = p->ncomms;
	/* per communicator and member: its calls in issue order */
	seqref **seq = pp_xcalloc((size_t)(C * PP_RP_MAX_GPUS + 1), sizeof(seqref *));
	int *nseq = pp_xcalloc((size_t)(C * PP_RP_MAX_GPUS + 1), sizeof(int));
	int **pos = pp_xcalloc((size_t)G, sizeof(int *));      /* call index of an instruction */
	double **evt = pp_xcalloc((size_t)G, sizeof(double *));
	double **arr = pp_xcalloc((size_t)G, sizeof(double *)); /* arrival at a call, -1 not yet */
	int *sqn = pp_xcalloc((size_t)(G * PP_RS_COUNT), sizeof(int));
	int *head = pp_xcalloc((size_t)(G * PP_RS_COUNT), sizeof(int));
	double *now = pp_xcalloc((size_t)(G * PP_RS_COUNT), sizeof(double));
	int **sqi = pp_xcalloc((size_t)(G * PP_RS_COUNT), sizeof(int *)); /* per stream: its instructions */
	for (int g = 0; g < G; g++) {
		const pp_rgpu *gp = &p->gpu[g];
		pos[g] = pp_xcalloc((size_t)gp->nins + 1, sizeof(int));
		arr[g] = pp_xcalloc((size_t)gp->nins + 1, sizeof(double));
		evt[g] = pp_xcalloc((size_t)gp->nevents + 1, sizeof(double));
		bool *recorded = pp_xcalloc((size_t)gp->nevents + 1, sizeof(bool));
		for (int e = 0; e < gp->nevents; e++)
			evt[g][e] = -1;
		for (int s = 0; s < PP_RS_COUNT; s++)
			sqi[g * PP_RS_COUNT + s] = pp_xmalloc(sizeof(int) * (size_t)(gp->nins + 1));
		for (int i = 0; i < gp->nins && !rc; i++) {
			const pp_rinstr *r = &gp->ins[i];
			int s = r->stream;
			sqi[g * PP_RS_COUNT + s][sqn[g * PP_RS_COUNT + s]++] = i;
			arr[g][i] = -1;
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
				seq[key] = pp_xrealloc(seq[key], sizeof(seqref) * (size_t)(nseq[key] + 1));
				pos[g][i] = nseq[key];
				seq[key][nseq[key]++] = (seqref){g, i};
			}
		}
		free(recorded);
	}
	/* NCCL's rule: the same calls in the same order on every member */
	for (int c = 0; c < C && !rc; c++) {
		const pp_rcomm *cm = &p->comms[c];
		int n0 = nseq[c * PP_RP_MAX_GPUS];
		for (int m = 1; m < cm->n && !rc; m++)
			if (nseq[c * PP_RP_MAX_GPUS + m] != n0)
				rc = pp_errf(err, PP_EINTERNAL, "communicator %s: member 0 issues %d calls, "
					     "member %d issues %d", cm->name, n0, m,
					     nseq[c * PP_RP_MAX_GPUS + m]);
		for (int k = 0; k < n0 && !rc; k++) {
			seqref a = seq[c * PP_RP_MAX_GPUS][k];
			const pp_rinstr *ra = &p->gpu[a.gpu].ins[a.ins];
			for (int m = 1; m < cm->n && !rc; m++) {
				seqref bb = seq[c * PP_RP_MAX_GPUS + m][k];
				const pp_rinstr *rb = &p->gpu[bb.gpu].ins[bb.ins];
				bool p2p = ra->kind != PP_RI_COLL;
				bool ok = p2p ? ((ra->kind == PP_RI_SEND && rb->kind == PP_RI_RECV) ||
						 (ra->kind == PP_RI_RECV && rb->kind == PP_RI_SEND))
					      : rb->kind == PP_RI_COLL && ra->coll == rb->coll;
				ok = ok && fabs(ra->bytes - rb->bytes) <= 1e-9 * ra->bytes;
				if (!ok)
					rc = pp_errf(err, PP_EINTERNAL, "communicator %s: call %d differs "
						     "between GPU %d and GPU %d (kind, collective or size)",
						     cm->name, k, a.gpu, bb.gpu);
			}
		}
	}
	/* run: each stream in order until nothing moves */
	bool moved = true;
	while (moved && !rc) {
		moved = false;
		for (int g = 0; g < G; g++) {
			const pp_rgpu *gp = &p->gpu[g];
			for (int s = 0; s < PP_RS_COUNT; s++) {
				int q = g * PP_RS_COUNT + s;
				while (head[q] < sqn[q]) {
					int i = sqi[q][head[q]];
					const pp_rinstr *r = &gp->ins[i];
					if (r->kind == PP_RI_GEMM || r->kind == PP_RI_MEM) {
						now[q] += r->sim_s;
					} else if (r->kind == PP_RI_RECORD) {
						evt[g][r->arg] = now[q];
					} else if (r->kind == PP_RI_WAIT) {
						if (evt[g][r->arg] < 0)
							break;
						if (evt[g][r->arg] > now[q])
							now[q] = evt[g][r->arg];
					} else {
						/* a communication call: starts when every member
						 * has reached it */
						arr[g][i] = now[q];
						int c = r->comm, k = pos[g][i];
						double start = 0;
						bool all = true;
						for (int m = 0; m < p->comms[c].n; m++) {
							seqref o = seq[c * PP_RP_MAX_GPUS + m][k];
							double a = arr[o.gpu][o.ins];
							if (a < 0)
								all = false;
							else if (a > start)
								start = a;
						}
						if (!all)
							break;
						double end = start + r->sim_s;
						for (int m = 0; m < p->comms[c].n; m++) {
							seqref o = seq[c * PP_RP_MAX_GPUS + m][k];
							if (o.gpu == g && o.ins == i)
								continue;
							int oq = o.gpu * PP_RS_COUNT +
								 p->gpu[o.gpu].ins[o.ins].stream;
							now[oq] = end;
							head[oq]++;
							arr[o.gpu][o.ins] = -2; /* done */
						}
						now[q] = end;
					}
					head[q]++;
					moved = true;
				}
			}
		}
	}
	double mk = 0;
	for (int g = 0; g < G && !rc; g++)
		for (int s = 0; s < PP_RS_COUNT; s++) {
			int q = g * PP_RS_COUNT + s;
			if (head[q] < sqn[q]) {
				const pp_rinstr *r = &p->gpu[g].ins[sqi[q][head[q]]];
				rc = pp_errf(err, PP_EINTERNAL, "replay plan deadlocks: GPU %d stream %s "
					     "stops at instruction %d (kind %d, task %d)", g, pp_rs_names[s],
					     sqi[q][head[q]], r->kind, r->task);
				break;
			}
			if (now[q] > mk)
				mk = now[q];
		}
	*step_s = mk;
	for (int i = 0; i < C * PP_RP_MAX_GPUS; i++)
		free(seq[i]);
	for (int g = 0; g < G; g++) {
		free(pos[g]);
		free(evt[g]);
		free(arr[g]);
		for (int s = 0; s < PP_RS_COUNT; s++)
			free(sqi[g * PP_RS_COUNT + s]);
	}
	free(seq);
	free(nseq);
	free(pos);
	free(evt);
	free(arr);
	free(sqn);
	free(head);
	free(now);
	free(sqi);
	return rc;
}
