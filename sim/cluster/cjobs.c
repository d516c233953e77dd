/* cjobs.c - see cjobs.h: the job table and its CSV (reading a job file:
 * cjobload.c; the cells' parsers: cjcell.c). */
#include "cluster/cjobs.h"
#include "cluster/cjobsint.h"
#include "core/csv.h"
#include "core/util.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_cjob_fmt_names[PP_CJF_COUNT] = {"auto", "podplan", "sacct", "acme",
						      "helios", "philly", "openb"};
const char *const pp_cjob_state_names[PP_CJS_COUNT] = {"", "COMPLETED", "CANCELLED", "FAILED"};
const char *const pp_cjob_kind_names[PP_CJK_COUNT] = {"other", "pretrain", "finetune", "eval",
						       "serve"};

void pp_cjobs_init(pp_cjobs *j)
{
	memset(j, 0, sizeof(*j));
	pp_cjobs_queue(j, "default");
}

void pp_cjobs_release(pp_cjobs *j)
{
	free(j->v);
	free(j->ids);
	for (int i = 0; i < j->nqueues; i++)
		free(j->queues[i]);
	free(j->queues);
	for (int i = 0; i < j->nscenarios; i++)
		free(j->scenarios[i]);
	free(j->scenarios);
	for (int i = 0; i < j->nserve; i++)
		free(j->serve[i].demand_rps);
	free(j->serve);
	memset(j, 0, sizeof(*j));
}

pp_cjob *pp_cjobs_add(pp_cjobs *j, const char *id)
{
	if (j->n == j->cap) {
		j->cap = j->cap ? 2 * j->cap : 1024;
		j->v = pp_xrealloc(j->v, (size_t)j->cap * sizeof(*j->v));
	}
	size_t n = strlen(id) + 1;
	if (j->ids_len + n > j->ids_cap) {
		j->ids_cap = (j->ids_cap ? 2 * j->ids_cap : 16384) + n;
		j->ids = pp_xrealloc(j->ids, j->ids_cap);
	}
	pp_cjob *x = &j->v[j->n++];
	memset(x, 0, sizeof(*x));
	x->id_off = (uint32_t)j->ids_len;
	memcpy(j->ids + j->ids_len, id, n);
	j->ids_len += n;
	x->work_s = NAN;
	x->limit_s = NAN;
	x->gpu_milli = 1000;
	x->scenario = -1;
	x->serve = -1;
	return x;
}

const char *pp_cjobs_id(const pp_cjobs *j, const pp_cjob *job)
{
	return j->ids ? j->ids + job->id_off : "";
}

int pp_cjobs_queue(pp_cjobs *j, const char *name)
{
	/* the last one found first: records come in runs of one queue */
	if (j->last_queue < j->nqueues && !strcmp(j->queues[j->last_queue], name))
		return j->last_queue;
	for (int i = 0; i < j->nqueues; i++)
		if (!strcmp(j->queues[i], name))
			return j->last_queue = i;
	j->queues = pp_xrealloc(j->queues, (size_t)(j->nqueues + 1) * sizeof(char *));
	j->queues[j->nqueues] = pp_xstrdup(name);
	return j->last_queue = j->nqueues++;
}

static int cmp_submit(const void *a, const void *b)
{
	const pp_cjob *x = a, *y = b;
	if (x->submit_s != y->submit_s)
		return x->submit_s < y->submit_s ? -1 : 1;
	return x->id_off < y->id_off ? -1 : x->id_off > y->id_off;
}

void pp_cjobs_finish(pp_cjobs *j)
{
	if (!j->n)
		return;
	/* id_off grows with the order read: the tie-break keeps the sort stable */
	bool sorted = true;
	for (int i = 1; i < j->n && sorted; i++)
		sorted = cmp_submit(&j->v[i - 1], &j->v[i]) <= 0;
	if (!sorted)
		qsort(j->v, (size_t)j->n, sizeof(*j->v), cmp_submit);
	double t0 = j->v[0].submit_s;
	if (t0 != 0) {
		j->t0_unix_s += t0;
		for (int i = 0; i < j->n; i++)
			j->v[i].submit_s -= t0;
	}
}

void pp_cjobs_write_csv(const pp_cjobs *j, pp_sb *out)
{
	static const char *const topo[] = {"", "none", "preferred", "required"};
	pp_csvw w;
	pp_csvw_init(&w, out);
	pp_csvw_header(&w, "job_id,queue,gpus,nodes,submit_s,duration_s,time_limit_s,scenario,"
			   "tokens,checkpoint_interval_s,checkpoint_bytes,async_checkpoint,priority,"
			   "spot,topology,gpu_milli,kind,replicas_min,replicas_max,replica_rps,"
			   "demand_rps");
	for (int i = 0; i < j->n; i++) {
		const pp_cjob *x = &j->v[i];
		pp_csvw_text(&w, pp_cjobs_id(j, x));
		pp_csvw_text(&w, x->queue < j->nqueues ? j->queues[x->queue] : "");
		pp_csvw_int(&w, x->gpus);
		if (x->nodes)
			pp_csvw_int(&w, x->nodes);
		else
			pp_csvw_empty(&w);
		pp_csvw_num(&w, x->submit_s, 15);
		pp_csvw_num(&w, x->work_s, 15);
		pp_csvw_num(&w, x->limit_s, 15);
		pp_csvw_text(&w, x->scenario >= 0 ? j->scenarios[x->scenario] : "");
		if (x->scenario >= 0)
			pp_csvw_num(&w, x->tokens, 15);
		else
			pp_csvw_empty(&w);
		pp_csvw_num(&w, x->ckpt_interval_s, 15);
		pp_csvw_num(&w, x->ckpt_bytes, 15);
		pp_csvw_bool(&w, x->async_ckpt);
		pp_csvw_int(&w, x->priority);
		pp_csvw_bool(&w, x->spot);
		pp_csvw_text(&w, topo[x->topo < 4 ? x->topo : 0]);
		pp_csvw_int(&w, x->gpu_milli);
		pp_csvw_text(&w, pp_cjob_kind_names[x->kind < PP_CJK_COUNT ? x->kind : 0]);
		if (x->serve >= 0 && x->serve < j->nserve) {
			const pp_cserve_dep *d = &j->serve[x->serve];
			pp_sb curve = {0};
			for (int h = 0; h < d->nhours; h++)
				pp_sb_addf(&curve, "%s%.15g", h ? ";" : "", d->demand_rps[h]);
			pp_csvw_int(&w, d->min_replicas);
			pp_csvw_int(&w, d->max_replicas);
			pp_csvw_num(&w, d->replica_rps, 15);
			pp_csvw_text(&w, curve.buf ? curve.buf : "");
			free(curve.buf);
		} else {
			for (int k = 0; k < 4; k++)
				pp_csvw_empty(&w);
		}
		pp_csvw_end(&w);
	}
}
