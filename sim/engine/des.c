/* des.c - see des.h. */
#include "engine/des.h"
#include "core/heap.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

typedef struct res {
	char name[48];
	int rank;
	bool in_order;
	bool busy;
	int *tasks;        /* in-order: tasks in program order */
	int ntasks, cap;
	int head;
	pp_heap fifo;      /* FIFO: released task ids (int), by (release, id) */
} res;

typedef struct ev {
	int64_t t;
	int task;
} ev;

struct pp_des {
	res *res;
	int nres, capres;
	int ntask, captask;
	int *task_res;
	int64_t *dur, *start, *end, *rel;
	int *npred;
	bool *released, *done;
	pp_des_tag *tag;
	int *epred, *esucc; /* edges */
	int nedge, capedge;
	int *off, *adj;     /* CSR of successors, built by run */
	pp_heap ev;         /* completion events (ev), by (time, task) */
	int64_t events;
};

static bool ev_less(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	const ev *x = a, *y = b;
	return x->t < y->t || (x->t == y->t && x->task < y->task);
}

static bool fifo_less(const void *a, const void *b, void *ctx)
{
	const pp_des *d = ctx;
	int x = *(const int *)a, y = *(const int *)b;
	return d->rel[x] < d->rel[y] || (d->rel[x] == d->rel[y] && x < y);
}

pp_des *pp_des_new(void)
{
	pp_des *d = pp_xcalloc(1, sizeof(pp_des));
	pp_heap_init(&d->ev, sizeof(ev));
	return d;
}

void pp_des_clear(pp_des *d)
{
	for (int i = 0; i < d->nres; i++) {
		d->res[i].ntasks = 0;
		pp_heap_clear(&d->res[i].fifo);
		d->res[i].head = 0;
		d->res[i].busy = false;
	}
	d->nres = 0;
	d->ntask = 0;
	d->nedge = 0;
	pp_heap_clear(&d->ev);
	d->events = 0;
}

void pp_des_free(pp_des *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->capres; i++) {
		free(d->res[i].tasks);
		pp_heap_release(&d->res[i].fifo);
	}
	free(d->res);
	free(d->task_res);
	free(d->dur);
	free(d->start);
	free(d->end);
	free(d->rel);
	free(d->npred);
	free(d->released);
	free(d->done);
	free(d->tag);
	free(d->epred);
	free(d->esucc);
	free(d->off);
	free(d->adj);
	pp_heap_release(&d->ev);
	free(d);
}

int pp_des_resource(pp_des *d, const char *name, int rank, bool in_order)
{
	if (d->nres == d->capres) {
		int cap = d->capres ? d->capres * 2 : 16;
		d->res = pp_xrealloc(d->res, sizeof(res) * (size_t)cap);
		memset(d->res + d->capres, 0, sizeof(res) * (size_t)(cap - d->capres));
		d->capres = cap;
	}
	res *r = &d->res[d->nres];
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->rank = rank;
	r->in_order = in_order;
	r->ntasks = r->head = 0;
	if (!r->fifo.size) /* a new slot (zeroed); a reused one keeps its array */
		pp_heap_init(&r->fifo, sizeof(int));
	pp_heap_clear(&r->fifo);
	r->busy = false;
	return d->nres++;
}

#define GROW(ptr, cap, n) ((ptr) = pp_xrealloc((ptr), sizeof(*(ptr)) * (size_t)(cap)))

int pp_des_task(pp_des *d, int r, int64_t dur_ns, pp_des_tag tag)
{
	if (d->ntask == d->captask) {
		int cap = d->captask ? d->captask * 2 : 1024;
		GROW(d->task_res, cap, 0);
		GROW(d->dur, cap, 0);
		GROW(d->start, cap, 0);
		GROW(d->end, cap, 0);
		GROW(d->rel, cap, 0);
		GROW(d->npred, cap, 0);
		GROW(d->released, cap, 0);
		GROW(d->done, cap, 0);
		GROW(d->tag, cap, 0);
		d->captask = cap;
	}
	int t = d->ntask++;
	d->task_res[t] = r;
	d->dur[t] = dur_ns < 0 ? 0 : dur_ns;
	d->start[t] = d->end[t] = -1;
	d->npred[t] = 0;
	d->tag[t] = tag;
	res *rs = &d->res[r];
	if (rs->in_order) {
		if (rs->ntasks == rs->cap) {
			rs->cap = rs->cap ? rs->cap * 2 : 64;
			GROW(rs->tasks, rs->cap, 0);
		}
		rs->tasks[rs->ntasks++] = t;
	} else {
		rs->ntasks++;
	}
	return t;
}

void pp_des_dep(pp_des *d, int task, int pred)
{
	if (pred < 0 || task < 0)
		return;
	if (d->nedge == d->capedge) {
		d->capedge = d->capedge ? d->capedge * 2 : 1024;
		GROW(d->epred, d->capedge, 0);
		GROW(d->esucc, d->capedge, 0);
	}
	d->epred[d->nedge] = pred;
	d->esucc[d->nedge] = task;
	d->nedge++;
	d->npred[task]++;
}

static void start_task(pp_des *d, res *r, int t, int64_t now)
{
	r->busy = true;
	d->start[t] = now;
	d->end[t] = now + d->dur[t];
	ev e = {d->end[t], t};
	pp_heap_push(&d->ev, &e, sizeof(e), ev_less, NULL);
}

static void try_start(pp_des *d, int ri, int64_t now)
{
	res *r = &d->res[ri];
	if (r->busy)
		return;
	if (r->in_order) {
		if (r->head < r->ntasks && d->released[r->tasks[r->head]])
			start_task(d, r, r->tasks[r->head], now);
	} else if (pp_heap_len(&r->fifo)) {
		int t;
		pp_heap_pop(&r->fifo, &t, sizeof(t), fifo_less, d);
		start_task(d, r, t, now);
	}
}

static void release(pp_des *d, int t, int64_t now)
{
	d->released[t] = true;
	d->rel[t] = now;
	res *r = &d->res[d->task_res[t]];
	if (!r->in_order)
		pp_heap_push(&r->fifo, &t, sizeof(t), fifo_less, d);
	try_start(d, d->task_res[t], now);
}

int pp_des_run(pp_des *d, pp_err *err)
{
	int n = d->ntask;
	d->off = pp_xrealloc(d->off, sizeof(int) * (size_t)(n + 1));
	d->adj = pp_xrealloc(d->adj, sizeof(int) * (size_t)(d->nedge ? d->nedge : 1));
	memset(d->off, 0, sizeof(int) * (size_t)(n + 1));
	for (int e = 0; e < d->nedge; e++)
		d->off[d->epred[e] + 1]++;
	for (int i = 0; i < n; i++)
		d->off[i + 1] += d->off[i];
	{
		int *fill = pp_xmalloc(sizeof(int) * (size_t)(n + 1));
		memcpy(fill, d->off, sizeof(int) * (size_t)(n + 1));
		for (int e = 0; e < d->nedge; e++)
			d->adj[fill[d->epred[e]]++] = d->esucc[e];
		free(fill);
	}
	for (int i = 0; i < n; i++) {
		d->released[i] = false;
		d->done[i] = false;
	}
	for (int i = 0; i < d->nres; i++) {
		d->res[i].head = 0;
		pp_heap_clear(&d->res[i].fifo);
		d->res[i].busy = false;
	}
	pp_heap_clear(&d->ev);
	d->events = 0;
	for (int t = 0; t < n; t++)
		if (d->npred[t] == 0)
			release(d, t, 0);
	int ndone = 0;
	/* npred is consumed; keep a copy to allow re-running */
	int *left = pp_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
	memcpy(left, d->npred, sizeof(int) * (size_t)n);
	while (pp_heap_len(&d->ev)) {
		ev e;
		pp_heap_pop(&d->ev, &e, sizeof(e), ev_less, NULL);
		int t = e.task;
		d->events++;
		d->done[t] = true;
		ndone++;
		int ri = d->task_res[t];
		res *r = &d->res[ri];
		r->busy = false;
		if (r->in_order)
			r->head++;
		for (int k = d->off[t]; k < d->off[t + 1]; k++) {
			int s = d->adj[k];
			if (--left[s] == 0)
				release(d, s, e.t);
		}
		try_start(d, ri, e.t);
	}
	free(left);
	if (ndone != n)
		return pp_errf(err, PP_EINTERNAL, "simulation stalled: %d of %d tasks could not run "
			       "(dependency cycle in the schedule)", n - ndone, n);
	return 0;
}

int pp_des_ntasks(const pp_des *d) { return d->ntask; }
int pp_des_nresources(const pp_des *d) { return d->nres; }
int64_t pp_des_start(const pp_des *d, int t) { return d->start[t]; }
int64_t pp_des_end(const pp_des *d, int t) { return d->end[t]; }
int64_t pp_des_dur(const pp_des *d, int t) { return d->dur[t]; }
int pp_des_task_resource(const pp_des *d, int t) { return d->task_res[t]; }
pp_des_tag pp_des_task_tag(const pp_des *d, int t) { return d->tag[t]; }
const char *pp_des_resource_name(const pp_des *d, int r) { return d->res[r].name; }
int pp_des_resource_rank(const pp_des *d, int r) { return d->res[r].rank; }
int64_t pp_des_events(const pp_des *d) { return d->events; }
int pp_des_nedges(const pp_des *d) { return d->nedge; }

void pp_des_edge(const pp_des *d, int e, int *pred, int *succ)
{
	*pred = d->epred[e];
	*succ = d->esucc[e];
}

int64_t pp_des_makespan(const pp_des *d)
{
	int64_t m = 0;
	for (int t = 0; t < d->ntask; t++)
		if (d->end[t] > m)
			m = d->end[t];
	return m;
}
