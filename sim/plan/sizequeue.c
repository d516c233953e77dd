/* sizequeue.c - a sizing run's option searches shared out over the ranks
 * of an MPI job (sizeopt.h size_search_scheduled; core/dist.h): work
 * queues of options handed out by shared counters, what each rank finds
 * published as it is found, and the serial run's decisions made again on
 * all the records. */
#include "plan/sizeopt.h"
#include "core/dist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int64_t bits_of(double v)
{
	int64_t b;
	memcpy(&b, &v, sizeof(b));
	return b;
}

static double double_of(int64_t b)
{
	double v;
	memcpy(&v, &b, sizeof(v));
	return v;
}

/* An option's place in the queues: the first options of its cache and of
 * its fit, and its own (queues_of). */
typedef struct qkey {
	int cache, fit, i;
} qkey;

static int cmp_qkey(const void *a, const void *b)
{
	const qkey *x = a, *y = b;
	if (x->cache != y->cache)
		return x->cache < y->cache ? -1 : 1;
	if (x->fit != y->fit)
		return x->fit < y->fit ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Under MPI, the order in which the options are handed out: with a
 * deadline or a budget, the serial order as one queue (what is found
 * first rules out the rest), one option at a time; with neither every
 * option is searched whatever the order, so the options are grouped by
 * workload cache (one per SKU, share_fits), within it by search fit (the
 * options that differ only in fabric: one enumeration), and cut into one
 * queue per rank, so that a rank builds the workloads of its own SKUs and
 * not of every SKU; a rank then takes a whole fit's options at a time
 * (one taken from another rank's queue builds its fit once, not once per
 * option). ord: the options in queue order; queue q is ord[start[q] ..
 * start[q + 1]); unit[k] .. unit[k + 1] the positions in ord of the k-th
 * unit handed out, queue q's units ustart[q] .. ustart[q + 1]. Returns the
 * number of queues. */
static int queues_of(const pp_size_opts *o, const size_opt *oi, int n, int R, int *ord, int *start,
		     int *unit, int *ustart)
{
	int Q = 1;
	if (o->deadline_s > 0 || o->budget_usd > 0 || R < 2) {
		for (int i = 0; i < n; i++)
			ord[i] = i;
		start[0] = 0;
		start[1] = n;
	} else {
		/* by cache in order of first appearance, within it by fit in order
		 * of first appearance, then in the serial order */
		qkey *k = pp_xmalloc(sizeof(qkey) * ((size_t)n + 1));
		for (int i = 0; i < n; i++) {
			k[i] = (qkey){i, i, i};
			for (int j = 0; j < i && (k[i].cache == i || k[i].fit == i); j++) {
				if (k[i].cache == i && oi[j].cache == oi[i].cache)
					k[i].cache = j;
				if (k[i].fit == i && oi[j].fit == oi[i].fit)
					k[i].fit = j;
			}
		}
		qsort(k, (size_t)n, sizeof(qkey), cmp_qkey);
		for (int i = 0; i < n; i++)
			ord[i] = k[i].i;
		free(k);
		/* the queues cut at a fit's end, near an equal count */
		Q = R;
		start[0] = 0;
		for (int q = 1; q < R; q++) {
			int c = (int)((int64_t)n * q / R);
			while (c > start[q - 1] && c < n && oi[ord[c]].fit == oi[ord[c - 1]].fit)
				c++;
			start[q] = c;
		}
		start[R] = n;
	}
	/* the units: one option each in one queue, else a fit's run */
	int k = 0;
	for (int q = 0; q < Q; q++) {
		ustart[q] = k;
		for (int p = start[q]; p < start[q + 1]; p++)
			if (Q == 1 || p == start[q] || oi[ord[p]].fit != oi[ord[p - 1]].fit)
				unit[k++] = p;
	}
	ustart[Q] = k;
	unit[k] = n;
	return Q;
}

/* Under MPI: each option to whichever rank asks first (a shared counter
 * per queue, slot q: queues_of), its own queue first, then the queue with
 * the most left, searched there alone. What a rank finds is published as
 * it is found: slots Q + 2i and Q + 1 + 2i hold option i's cost and time
 * when it meets the target (0: not known, or it does not; Q the number
 * of queues). Before searching option i a rank takes the best of what is known
 * of the options before it; that is never better than what the serial
 * run knows there, so an option it rules out the serial run rules out
 * too, and it may search one the serial run would not. Afterwards the
 * searches' records go to every rank and the serial decisions are made
 * again in order on all the results: the same options searched, the
 * same counts, the same output as the serial run. */
int size_search_scheduled(const pp_size_opts *o, size_opt *oi, int n, double steps,
			  pp_size_result *out, pp_err *err)
{
	int R = pp_dist_size(), r = pp_dist_rank(), rc = 0;
	int *ord = pp_xmalloc(sizeof(int) * ((size_t)n + 1));
	int *start = pp_xmalloc(sizeof(int) * ((size_t)R + 2));
	int *unit = pp_xmalloc(sizeof(int) * ((size_t)n + 2));
	int *ustart = pp_xmalloc(sizeof(int) * ((size_t)R + 2));
	int Q = queues_of(o, oi, n, R, ord, start, unit, ustart), cq = Q > 1 ? r % Q : 0;
	pp_dist_slots *w = pp_dist_slots_new(Q + 2 * n);
	size_res *res = pp_xcalloc((size_t)n + 1, sizeof(size_res));
	int *have = pp_xcalloc((size_t)n + 1, sizeof(int));
	int64_t *known = pp_xmalloc(sizeof(int64_t) * (size_t)(2 * n + 1));
	int64_t *taken = pp_xmalloc(sizeof(int64_t) * ((size_t)Q + 1));
	for (int p = 0, pend = 0;;) {
		if (p == pend) { /* the next unit */
			int64_t t = pp_dist_slot_add(w, cq, 1);
			if (t >= ustart[cq + 1] - ustart[cq]) {
				/* this queue is done: the one with the most options left */
				pp_dist_slot_get(w, 0, Q, taken);
				int most = 0;
				cq = -1;
				for (int u = 0; u < Q; u++) {
					int64_t tu = taken[u] < ustart[u + 1] - ustart[u]
							     ? taken[u] : ustart[u + 1] - ustart[u];
					int left = start[u + 1] - unit[ustart[u] + tu];
					if (left > most) {
						most = left;
						cq = u;
					}
				}
				if (cq < 0)
					break;
				continue;
			}
			p = unit[ustart[cq] + t];
			pend = unit[ustart[cq] + t + 1];
		}
		int64_t i = ord[p++];
		double best_usd = INFINITY, best_time = INFINITY;
		if (i > 0)
			pp_dist_slot_get(w, Q, (int)(2 * i), known);
		for (int j = 0; j < i; j++) {
			if (known[2 * j] && double_of(known[2 * j]) < best_usd)
				best_usd = double_of(known[2 * j]);
			if (known[2 * j + 1] && double_of(known[2 * j + 1]) < best_time)
				best_time = double_of(known[2 * j + 1]);
		}
		size_opt probe = oi[i];  /* size_to_search marks the option: decided again below */
		if (!size_to_search(o, &probe, best_usd, best_time))
			continue;
		if (o->on_option)
			o->on_option((int)i, n, &oi[i].o, o->progress_ctx);
		if ((rc = size_search_option(o, &oi[i], steps, &res[i], err)))
			break;
		have[i] = 1;
		if (res[i].status == PP_SIZE_SEARCHED && res[i].meets) {
			pp_dist_slot_set(w, (int)(Q + 2 * i), bits_of(res[i].usd));
			pp_dist_slot_set(w, (int)(Q + 1 + 2 * i), bits_of(res[i].train_s));
		}
	}
	/* a rank that failed stops; every rank still takes part below */
	double f = rc ? -1 : 0;
	pp_dist_allreduce_min(&f, 1);
	if (f < 0 && !rc)
		rc = pp_errf(err, PP_EINTERNAL, "a layout search failed on another rank");
	/* every record to rank 0, the searching rank's kept, and back to all */
	size_t rec = sizeof(size_res) + sizeof(int);
	char *mine = pp_xmalloc(rec * (size_t)n + 1);
	for (int i = 0; i < n; i++) {
		memcpy(mine + rec * (size_t)i, &res[i], sizeof(size_res));
		memcpy(mine + rec * (size_t)i + sizeof(size_res), &have[i], sizeof(int));
	}
	char *all = r == 0 ? pp_xmalloc(rec * (size_t)n * (size_t)R + 1) : NULL;
	pp_dist_gather(mine, rec * (size_t)n, all);
	if (r == 0)
		for (int i = 0; i < n; i++)
			for (int q = 0; q < R; q++) {
				const char *e = all + rec * ((size_t)q * (size_t)n + (size_t)i);
				int h;
				memcpy(&h, e + sizeof(size_res), sizeof(int));
				if (h) {
					memcpy(&res[i], e, sizeof(size_res));
					have[i] = 1;
				}
			}
	pp_dist_bcast(res, sizeof(size_res) * (size_t)n);
	pp_dist_bcast(have, sizeof(int) * (size_t)n);
	free(all);
	free(mine);
	/* the serial decisions, on every result */
	double best_usd = INFINITY, best_time = INFINITY;
	for (int i = 0; i < n && !rc; i++) {
		pp_size_option *op = &oi[i].o;
		if (!size_to_search(o, &oi[i], best_usd, best_time))
			continue;
		if (!have[i]) { /* not reached: a rank rules out only what the serial run does */
			rc = pp_errf(err, PP_EINTERNAL, "option %d was not searched", i);
			break;
		}
		size_record(op, &res[i], out, &best_usd, &best_time);
	}
	free(known);
	free(taken);
	free(have);
	free(res);
	free(ustart);
	free(unit);
	free(start);
	free(ord);
	pp_dist_slots_free(w);
	return rc;
}
