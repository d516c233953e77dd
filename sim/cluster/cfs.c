/*
 * cfs.c - the shared file system of the cluster simulation (csimint.h):
 * every checkpoint being written is a flow, and the flows share the file
 * system's write bandwidth equally (processor sharing, kept in virtual
 * time: fs_v grows at bandwidth / flows, a flow ends when fs_v reaches its
 * v_end), so bursts slow each other down; the next flow end is an event.
 */
#include "cluster/csimint.h"
#include "core/util.h"

#include <math.h>

void cs_fs_advance(cs_sim *s)
{
	if (s->nflows > 0)
		s->fs_v += (s->now - s->fs_t) * s->spec->fs_write_Bps / s->nflows;
	s->fs_t = s->now;
}

void cs_fs_reschedule(cs_sim *s)
{
	s->fs_gen++;
	if (!s->nflows)
		return;
	double vmin = INFINITY;
	for (int i = 0; i < s->nflows; i++)
		if (s->flows[i].v_end < vmin)
			vmin = s->flows[i].v_end;
	double dt = (vmin - s->fs_v) * s->nflows / s->spec->fs_write_Bps;
	pp_cheap_push(&s->heap, s->now + (dt > 0 ? dt : 0), EV_FLOW, -1, s->fs_gen);
}

void cs_fs_add(cs_sim *s, int j, double bytes, bool async_)
{
	cs_fs_advance(s);
	if (s->nflows == s->capflows) {
		s->capflows = s->capflows ? 2 * s->capflows : 16;
		s->flows = pp_xrealloc(s->flows, (size_t)s->capflows * sizeof(*s->flows));
	}
	cs_flow *f = &s->flows[s->nflows++];
	f->job = j;
	f->v_end = s->fs_v + bytes;
	f->t0 = s->now;
	f->snapshot = s->js[j].done;
	s->js[j].flow = s->nflows - 1;
	s->js[j].flow_async = async_;
	cs_fs_reschedule(s);
}

void cs_fs_drop(cs_sim *s, int i)
{
	s->js[s->flows[i].job].flow = -1;
	s->flows[i] = s->flows[--s->nflows];
	if (i < s->nflows)
		s->js[s->flows[i].job].flow = i;
}

void cs_fs_cancel(cs_sim *s, int j)
{
	int i = s->js[j].flow;
	if (i < 0)
		return;
	cs_fs_advance(s);
	cs_fs_drop(s, i);
	cs_fs_reschedule(s);
}
