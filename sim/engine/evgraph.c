/* evgraph.c - see evgraph.h. */
#include "engine/evgraph.h"

/* The program's backend: a handle is a task id of the graph. */
static int des_resource(void *ctx, const char *name, int rank, bool in_order)
{
	return pp_des_resource(ctx, name, rank, in_order);
}

static int64_t des_task(void *ctx, int res, int64_t dur_ns, const pp_des_tag *tag,
			const int64_t *deps, int ndeps)
{
	int t = pp_des_task(ctx, res, dur_ns, *tag);
	for (int i = 0; i < ndeps; i++)
		if (deps[i] >= 0)
			pp_des_dep(ctx, t, (int)deps[i]);
	return t;
}

static void des_dep(void *ctx, int64_t task, int64_t pred)
{
	pp_des_dep(ctx, (int)task, (int)pred);
}

void pp_evgraph_build(pp_des *d, const pp_scenario *s, const pp_hw *hw, const pp_workload *w,
		       const pp_sched_opts *o, pp_stage_busy *busy)
{
	pp_des_clear(d);
	pp_stepcost c;
	pp_stepcost_init(&c, s, hw, w, o);
	pp_sink sink = {d, des_resource, des_task, des_dep, false, false, false};
	pp_program *p = pp_program_new(&c, &sink);
	/* stage by stage, each in its own order: a unit whose input a later
	 * stage sends gets that dependency when the sender issues it */
	for (int st = 0; st < c.P; st++)
		while (pp_program_left(p, st) > 0)
			pp_program_unit(p, st);
	pp_program_finish(p, busy);
	pp_program_free(p);
	pp_stepcost_release(&c);
}
