/* timeline.c - see timeline.h. */
#include "engine/timeline.h"
#include "engine/program.h"

#include <stdlib.h>

int pp_timeline_of(const pp_des *d, pp_action_span **out)
{
	int nt = pp_des_ntasks(d), nr = 0, n = 0;
	for (int t = 0; t < nt; t++) {
		int r = pp_des_resource_rank(d, pp_des_task_resource(d, t));
		nr = r + 1 > nr ? r + 1 : nr;
	}
	/* per rank, its current action (-1: none yet) */
	int *cur = pp_xmalloc(sizeof(int) * (size_t)(nr > 0 ? nr : 1));
	for (int r = 0; r < nr; r++)
		cur[r] = -1;
	pp_action_span *a = pp_xmalloc(sizeof(pp_action_span) * (size_t)(nt > 0 ? nt : 1));
	for (int t = 0; t < nt; t++) {
		pp_des_tag g = pp_des_task_tag(d, t);
		if (g.cat != PP_CAT_FWD && g.cat != PP_CAT_BWD)
			continue;
		int r = pp_des_resource_rank(d, pp_des_task_resource(d, t));
		pp_unit u = {g.cat == PP_CAT_FWD, g.chunk, g.mb, (uint8_t)(g.act & 3),
			     (g.act & PP_TAG_PAIR) != 0};
		pp_action_span *c = cur[r] >= 0 ? &a[cur[r]] : NULL;
		if (c && c->u.fwd == u.fwd && c->u.chunk == u.chunk && c->u.mb == u.mb &&
		    c->u.act == u.act) {
			c->end_ns = pp_des_end(d, t) > c->end_ns ? pp_des_end(d, t) : c->end_ns;
			continue;
		}
		a[n] = (pp_action_span){r, u, pp_des_start(d, t), pp_des_end(d, t)};
		cur[r] = n++;
	}
	free(cur);
	/* rank by rank, each in its issue order (stable: insertion by rank) */
	pp_action_span *s = pp_xmalloc(sizeof(pp_action_span) * (size_t)(n > 0 ? n : 1));
	int k = 0;
	for (int r = 0; r < nr; r++)
		for (int i = 0; i < n; i++)
			if (a[i].rank == r)
				s[k++] = a[i];
	free(a);
	*out = s;
	return n;
}

void pp_timeline_text(const pp_des *d, const char *title, pp_sb *out)
{
	pp_action_span *a;
	int n = pp_timeline_of(d, &a);
	pp_sb_addf(out, "\nPipeline schedule: %s\n", title);
	pp_sb_adds(out, "  each rank's actions as run: F forward, B full backward, I input gradient, "
			"W weight gradient,\n  <micro-batch>c<chunk>, & an overlapped pair's forward; "
			"start-end in ms\n");
	/* the busiest rank: every other rank's pace is its pace, so a rank
	 * with less work idles at least the difference, waiting on it */
	int64_t most = 0;
	int slow = 0;
	for (int i = 0; i < n;) {
		int r = a[i].rank, j = i;
		int64_t busy = 0;
		for (; j < n && a[j].rank == r; j++)
			busy += a[j].end_ns - a[j].start_ns;
		if (busy > most) {
			most = busy;
			slow = r;
		}
		i = j;
	}
	for (int i = 0; i < n;) {
		int r = a[i].rank, j = i;
		int64_t busy = 0, first = a[i].start_ns, last = a[i].end_ns;
		for (; j < n && a[j].rank == r; j++) {
			busy += a[j].end_ns - a[j].start_ns;
			first = a[j].start_ns < first ? a[j].start_ns : first;
			last = a[j].end_ns > last ? a[j].end_ns : last;
		}
		int64_t idle = last - first - busy, wait = most - busy;
		wait = wait < idle ? wait : idle;
		pp_sb_addf(out, "rank %d: %d actions, busy %.3f ms, idle %.3f ms between its first "
				"and last: %.3f ms the schedule's bubble, %.3f ms waiting on busier rank %d\n",
			   r, j - i, busy / 1e6, idle / 1e6, (idle - wait) / 1e6, wait / 1e6, slow);
		for (int k = i; k < j; k++) {
			pp_unit u = a[k].u;
			pp_sb_addf(out, "  %s%dc%d%s %.3f-%.3f",
				   pp_unit_name(u), u.mb, u.chunk, u.pair ? "&" : "", a[k].start_ns / 1e6,
				   a[k].end_ns / 1e6);
			if ((k - i) % 6 == 5 || k == j - 1)
				pp_sb_adds(out, "\n");
		}
		i = j;
	}
	free(a);
}
