/* fastpath.c - see fastpath.h: the closed-form backend of the step's
 * program. The workload cache is fpcache.c, the lower bounds fpbound.c. */
#include "engine/fastpath.h"
#include "engine/program.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

/* The walk: the step's program, each task's end computed as it is issued. */

/* The fast backend of program.h: a handle is the task's end (ns). Every
 * resource serves its tasks in issue order (streams by definition, links
 * because each has one sending stage whose releases come in its program
 * order), so a task starts at max(its resource's last end, its
 * dependencies' ends) with no event queue. */
typedef struct fast {
	int64_t *free;   /* per resource: when it is next free */
	int nres, cap;
	int64_t span;    /* latest end so far */
	int64_t tasks;   /* issued */
	/* the steady-state check (program.h): at each of the program's last
	 * marks (ring slot n % PP_STEADY_MARKS), the resources' free times
	 * (slot i at mfree + i x mnres), the tasks issued, the epoch from
	 * which a resource used since is stamped (touch), the state's hash */
	int64_t *mfree;
	int mnres, mslots, nmarks;
	int64_t mtasks[PP_STEADY_MARKS];
	uint32_t mepoch[PP_STEADY_MARKS];
	uint64_t mhash[PP_STEADY_MARKS];
	uint32_t *touch;
	uint32_t epoch;
	int64_t limit;   /* a task that ends after it makes the step longer: stop */
	bool over;       /* one did */
} fast;

static int fast_resource(void *ctx, const char *name, int rank, bool in_order)
{
	(void)name;
	(void)rank;
	(void)in_order;
	fast *f = ctx;
	if (f->nres == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 16;
		f->free = pp_xrealloc(f->free, sizeof(int64_t) * (size_t)f->cap);
		f->touch = pp_xrealloc(f->touch, sizeof(uint32_t) * (size_t)f->cap);
	}
	f->free[f->nres] = 0;
	f->touch[f->nres] = 0;
	return f->nres++;
}

static int64_t fast_task(void *ctx, int res, int64_t dur_ns, const pp_des_tag *tag,
			 const int64_t *deps, int ndeps)
{
	(void)tag;
	fast *f = ctx;
	int64_t start = f->free[res];
	for (int i = 0; i < ndeps; i++)
		if (deps[i] > start)
			start = deps[i];
	int64_t end = start + (dur_ns > 0 ? dur_ns : 0);
	f->tasks++;
	f->free[res] = end;
	f->touch[res] = f->epoch;
	if (end > f->span) {
		f->span = end;
		f->over |= end > f->limit;
	}
	return end;
}

/* Record the resources at the program's newest mark (its state hash h,
 * relative to ref); returns the hash of both. The resources are those of
 * the steady part: none is created before pp_program_finish. */
static uint64_t fast_mark(fast *f, uint64_t h, int64_t ref)
{
	if (f->mslots && f->mnres != f->nres)
		f->nmarks = f->mslots = 0;  /* (not reached) */
	if (f->nmarks == f->mslots && f->mslots < PP_STEADY_MARKS) {
		f->mslots = f->mslots ? 2 * f->mslots : 8;
		if (f->mslots > PP_STEADY_MARKS)
			f->mslots = PP_STEADY_MARKS;
		f->mnres = f->nres;
		f->mfree = pp_xrealloc(f->mfree, sizeof(int64_t) * (size_t)f->mslots * (size_t)f->nres);
	}
	int i = f->nmarks % PP_STEADY_MARKS;
	uint32_t since = f->nmarks ? f->mepoch[(f->nmarks - 1) % PP_STEADY_MARKS] : 1;
	for (int r = 0; r < f->nres; r++)
		if (f->touch[r] >= since) {
			h = (h ^ (uint64_t)r) * 1099511628211ull;
			h = (h ^ (uint64_t)(f->free[r] - ref)) * 1099511628211ull;
		}
	memcpy(f->mfree + (size_t)i * (size_t)f->mnres, f->free, sizeof(int64_t) * (size_t)f->nres);
	f->mtasks[i] = f->tasks;
	f->mepoch[i] = ++f->epoch;
	f->mhash[i] = h;
	f->nmarks++;
	return h;
}

/* The slot of the mark q before the newest. */
static int fast_slot(const fast *f, int q)
{
	return (f->nmarks - 1 - q) % PP_STEADY_MARKS;
}

/* Every resource used since the mark q before the newest is free dt later
 * than it was then. */
static bool fast_periodic(const fast *f, int q, int64_t dt)
{
	int i = fast_slot(f, q);
	const int64_t *was = f->mfree + (size_t)i * (size_t)f->mnres;
	for (int r = 0; r < f->nres; r++)
		if (f->touch[r] >= f->mepoch[i] && f->free[r] != was[r] + dt)
			return false;
	return true;
}

/* k more cycles like the one since the mark q before the newest. */
static void fast_skip(fast *f, int q, int64_t k, int64_t dt)
{
	int i = fast_slot(f, q);
	for (int r = 0; r < f->nres; r++)
		if (f->touch[r] >= f->mepoch[i]) {
			f->free[r] += k * dt;
			if (f->free[r] > f->span)
				f->span = f->free[r];
		}
	f->tasks += k * (f->tasks - f->mtasks[i]);
	f->nmarks = 0;
}

/* Advance every stage while its next unit has its input, up to unit lim[st]
 * (lim NULL: to its end), until *stop; true when every stage got there. A
 * stage that
 * moved puts its two neighbours back on the work list: their units are
 * what it can have unblocked. The order in which stages are advanced does
 * not change any time computed. */
static bool drive(pp_program *p, int P, int units, const int *lim, int *work, bool *queued,
		  fast *f)
{
	const bool *stop = &f->over;
	int head = 0, n = P;
	for (int st = 0; st < P; st++) {
		work[st] = st;
		queued[st] = true;
	}
	while (n > 0) {
		int st = work[head];
		head = (head + 1) % P;
		n--;
		queued[st] = false;
		int moved = pp_program_run(p, st, lim ? lim[st] : units, stop);
		if (*stop && moved)
			return false;
		if (!moved)
			continue;

		int nb[2] = {(st + 1) % P, (st + P - 1) % P};
		for (int k = 0; k < 2; k++)
			if (!queued[nb[k]]) {
				work[(head + n) % P] = nb[k];
				n++;
				queued[nb[k]] = true;
			}
	}
	for (int st = 0; st < P; st++)
		if (units - pp_program_left(p, st) != (lim ? lim[st] : units))
			return false;
	return true;
}

int64_t pp_fp_run(const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
		  const pp_sched_opts *ablate, pp_stage_busy *busy, int64_t *tasks)
{
	return pp_fp_run_stats(s, hw, w, ablate, busy, tasks, NULL);
}

/* Whether the step cannot end by f's limit whatever its tasks to come do
 * (pp_program_end_bound_ns); sets f->over then. */
static bool beyond(fast *f, pp_program *p)
{
	if (!f->over && f->limit < INT64_MAX)
		f->over = pp_program_end_bound_ns(p, f->free) > f->limit;
	return f->over;
}

/* pp_fp_run_stats(), stopping with INT64_MAX once a task ends after limit
 * or the step can no longer end by it. */
static int64_t walk(const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
		    const pp_sched_opts *ablate, pp_stage_busy *busy, int64_t *tasks,
		    pp_fp_stats *stats, int64_t limit)
{
	pp_fp_stats st0 = {0, 0, 0, 0};
	if (!stats)
		stats = &st0;
	*stats = st0;
	if (s->training.num_microbatches < 1)
		return -1;
	pp_stepcost c;
	pp_stepcost_init(&c, s, hw, w, ablate);
	fast f;
	memset(&f, 0, sizeof(f));
	f.limit = limit;
	pp_sink sink = {&f, fast_resource, fast_task, NULL, true, true, busy == NULL};
	pp_program *p = pp_program_new(&c, &sink);
	int64_t result = -1;
	int P = c.P, units = pp_schedule_count(&c.pipe);
	int *work = pp_xmalloc(sizeof(int) * (size_t)P * 2);
	int *lim = work + P;
	bool *queued = pp_xmalloc(sizeof(bool) * (size_t)P);
	/* checkpoint by checkpoint through the steady part until the state
	 * is one it was q checkpoints before, moved on (program.h), then on
	 * whole cycles of q periods at once */
	bool skipped = false;
	for (int cp = 0; !skipped && pp_program_checkpoint(p, 0, 0) >= 0; cp++) {
		if (!pp_program_may_skip(p, cp))
			break; /* no cycle found from here on could be moved over */
		bool all = true;
		for (int st = 0; st < P; st++)
			all &= (lim[st] = pp_program_checkpoint(p, st, cp)) >= 0;
		/* the end bound at checkpoints 0, 1, 2, 4, 8, ...: O(stages) each */
		if (!all || !drive(p, P, units, lim, work, queued, &f) ||
		    ((cp & (cp - 1)) == 0 && beyond(&f, p)))
			break;
		uint64_t h;
		int64_t ref, dt;
		if (!pp_program_mark(p, &h, &ref)) {
			f.nmarks = 0;
			continue;
		}
		h = fast_mark(&f, h, ref);
		for (int q = 1; q < PP_STEADY_MARKS && q < f.nmarks && !skipped; q++)
			if (f.mhash[fast_slot(&f, q)] == h && pp_program_periodic(p, q, &dt) &&
			    fast_periodic(&f, q, dt)) {
				int64_t k = pp_program_skippable(p, q);
				int64_t before = 0, after = 0;
				for (int st = 0; st < P; st++)
					before += pp_program_left(p, st);
				pp_program_skip(p, q, k, dt, busy != NULL);
				fast_skip(&f, q, k, dt);
				f.over |= f.span > f.limit;
				for (int st = 0; st < P; st++)
					after += pp_program_left(p, st);
				stats->skipped = before - after;
				stats->cycle = q;
				stats->checkpoint = cp;
				skipped = true;
			}
	}
	bool done = !beyond(&f, p) && drive(p, P, units, NULL, work, queued, &f);
	free(work);
	free(queued);
	if (f.over) {
		result = INT64_MAX;
		goto out;
	}
	if (!done)
		goto out;
	pp_program_finish(p, busy);
	result = f.over ? INT64_MAX : f.span;
	stats->units = (int64_t)units * P - stats->skipped;
	if (tasks)
		*tasks = f.tasks + pp_program_coalesced(p);
out:
	pp_program_free(p);
	free(f.free);
	free(f.mfree);
	free(f.touch);
	pp_stepcost_release(&c);
	return result;
}

int64_t pp_fp_run_stats(const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
			const pp_sched_opts *ablate, pp_stage_busy *busy, int64_t *tasks,
			pp_fp_stats *stats)
{
	return walk(s, hw, w, ablate, busy, tasks, stats, INT64_MAX);
}

int64_t pp_fp_step_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w)
{
	return pp_fp_run(s, hw, w, NULL, NULL, NULL);
}

int64_t pp_fp_step_within_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
			     int64_t limit_ns)
{
	return walk(s, hw, w, NULL, NULL, NULL, NULL, limit_ns);
}
