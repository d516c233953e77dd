/* fpbound.c - see fastpath.h: the lower bounds on the step time. */
#include "engine/fastpath.h"
#include "engine/program.h"
#include "engine/stages.h"
#include "engine/stepcost.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* Lower bound on when the DP stream of a stage finishes the gradient
 * buckets of its last backward unit (chunk 0, vs = st), given that the
 * unit's last compute task ends no earlier than e. The unit's tasks run
 * back to back, so the task a bucket follows ends no earlier than e minus
 * the tasks after it; the stream is busy until dp_free (-1: not known)
 * with what it carried before. */
static int64_t tail_reduce(const pp_stepcost *c, int vs, int64_t e, int64_t dp_free)
{
	const pp_workload *w = c->w;
	int L = c->layers[vs];
	double acc = vs == c->NV - 1 ? w->trainable_head : 0;
	int64_t fin = dp_free;
	/* the backward tasks below layer l: layers 0 .. l-1 and the embedding */
	int64_t below = (vs == 0 ? c->unit.b_embed : 0) + pp_stepcost_layers_ns(c, vs, false);
	for (int l = L - 1; l >= 0; l--) {
		const pp_layer_cost *lc = &w->lk[pp_stepcost_kind(c, vs, l)];
		below -= c->unit.b_layer[pp_stepcost_kind(c, vs, l)];
		acc += lc->trainable - lc->trainable_expert;
		if (acc >= c->bucket_params) {
			fin = max64(fin, e - below) + pp_stepcost_reduce(c, acc).ns;
			acc = 0;
		}
	}
	if (vs == 0)
		acc += w->trainable_embed;
	if (acc > 0)
		fin = max64(fin, e) + pp_stepcost_reduce(c, acc).ns;
	return fin;
}

/* The tight bound's DP stream of stage st (overlap_grad_reduce, not
 * ZeRO-3, non-blocking sends): it is busy until g with the gathers at the
 * start; each chunk's gradient buckets follow that chunk's last backward
 * unit in the order those units run, and a unit ends no earlier than the
 * stage's first start (head) plus every unit up to it back to back (busy
 * less the units after it, found by walking the schedule from its end).
 * Chunk 0's is the stage's last unit, which ends no earlier than e. When
 * the stream is done with the last bucket; -1 with none. */
static int64_t dp_stream_end(const pp_stepcost *c, int st, int64_t head,
			     int64_t busy, int64_t e, int64_t g)
{
	int V = c->V, P = c->P, n = pp_schedule_count(&c->pipe), found = 0;
	int64_t after = 0;
	int64_t *end = pp_xmalloc(sizeof(int64_t) * (size_t)V);
	int *order = pp_xmalloc(sizeof(int) * (size_t)V);
	for (int k = 0; k < V; k++)
		end[k] = -1;
	for (int i = n - 1; i >= 0 && found < V; i--) {
		pp_unit u = pp_schedule_unit(&c->pipe, st, i);
		int vs = u.chunk * P + st;
		if (!u.fwd && end[u.chunk] < 0) {
			end[u.chunk] = head + busy - after;
			order[found++] = u.chunk;
		}
		after += pp_stepcost_unit_ns(c, vs, u.fwd);
	}
	int64_t fin = g > 0 ? g : -1;
	for (int j = found - 1; j >= 0; j--) {
		int k = order[j];
		int64_t ek = k == 0 && e > end[k] ? e : end[k];
		fin = tail_reduce(c, k * P + st, ek, fin);
	}
	free(end);
	free(order);
	return fin;
}

static int64_t bound_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w, bool tight)
{
	pp_stepcost f;
	pp_stepcost_init(&f, s, hw, w, NULL);
	int P = f.P, V = f.V, NV = f.NV;
	int64_t M = f.M;
	int64_t lb = f.data_ns;
	int64_t *busy = pp_xmalloc(sizeof(int64_t) * (size_t)P * 7);
	int64_t *opt = busy + P, *tailsend = opt + P, *head = tailsend + P, *E = head + P,
		*dpend = E + P, *gath = dpend + P;
	bool blocking = !f.overlap_p2p_comm && P > 1;
	const pp_task_ns *u = &f.unit;
	/* ZeRO-3 runs dense models only (one layer kind) */
	int64_t ag_l = f.z3_gather[PP_PART_LAYER][0].ns, ag_e = f.z3_gather[PP_PART_EMBED][0].ns,
		ag_h = f.z3_gather[PP_PART_HEAD][0].ns;
	int64_t rs_l = f.z3_scatter[PP_PART_LAYER][0].ns, rs_e = f.z3_scatter[PP_PART_EMBED][0].ns,
		rs_h = f.z3_scatter[PP_PART_HEAD][0].ns;
	int64_t h = 0;
	enum { SEEN = 4 };
	double seen[SEEN][PP_LAYER_KINDS];
	int64_t seen_opt[SEEN];
	int nseen = 0;
	bool vshape = pp_schedule_two_chunks(f.pipe.schedule), listed = pp_pipe_listed(&f.pipe);
	/* each chunk's micro-batches (DualPipe: a direction's, half) */
	int64_t Mc = pp_pipe_chunk_mbs(&f.pipe);
	for (int st = 0; st < P; st++) {
		int64_t b = 0, dpz = 0;
		for (int k = 0; k < V; k++) {
			int vs = pp_pipe_vs(&f.pipe, st, k);
			int64_t L = f.layers[vs];
			b += Mc * (pp_stepcost_layers_ns(&f, vs, true) + pp_stepcost_layers_ns(&f, vs, false));
			dpz += Mc * L * ((f.z3_bwd_gather ? 2 : 1) * ag_l + rs_l);
			/* each chunk's embedding and head */
			if (vs == 0) {
				b += Mc * (u->f_embed + u->b_embed);
				dpz += Mc * ((f.z3_bwd_gather ? 2 : 1) * ag_e + rs_e);
			}
			if (vs == NV - 1) {
				b += Mc * (u->f_head + u->b_head);
				dpz += Mc * ((f.z3_bwd_gather ? 2 : 1) * ag_h + rs_h);
			}
			if (vshape) {
				/* in a V (or DualPipe) the sends go either way, none at
				 * the turn */
				for (int d = -1; d <= 1; d += 2) {
					int to = vs + d;
					if (!blocking || to < 0 || to >= NV)
						continue;
					int ts = pp_pipe_stage_of(&f.pipe, to, k);
					if (ts != st)
						b += Mc * f.p2p_ns[ts < st ? ts : st];
				}
				continue;
			}
			if (blocking && vs < NV - 1)
				b += M * f.p2p_ns[st];
			if (blocking && vs > 0)
				b += M * f.p2p_ns[(st + P - 1) % P];
		}
		busy[st] = b;
		/* the optimizer reads the stage's trained parameters: a stage
		 * between the first and the last with the layers (by kind) of an
		 * earlier one steps as long */
		double n[PP_LAYER_KINDS];
		int again = -1;
		if (st > 0 && st < P - 1) {
			pp_stage_kinds(s, st, n);
			for (int i = 0; i < nseen && again < 0; i++)
				if (!memcmp(seen[i], n, sizeof(n)))
					again = i;
		}
		if (again >= 0) {
			opt[st] = seen_opt[again];
		} else {
			opt[st] = pp_stepcost_optimizer(&f, st).ns;
			if (st > 0 && st < P - 1 && nseen < SEEN) {
				memcpy(seen[nseen], n, sizeof(n));
				seen_opt[nseen++] = opt[st];
			}
		}
		tailsend[st] = blocking && st > 0 ? f.p2p_ns[st - 1] : 0;
		head[st] = h;
		h += pp_stepcost_unit_ns(&f, st, true) + f.p2p_ns[st];
		/* DualPipe: the reverse direction starts at the last stage */
		if (pp_schedule_two_ended(f.pipe.schedule))
			head[st] = 0;
		if (f.zero3) /* one stream carries every gather and reduce-scatter */
			lb = max64(lb, dpz + opt[st]);
		/* tight: the distributed optimizer's gathers at the start hold the
		 * stage's data-parallel stream, back to back, before its reduces */
		gath[st] = tight ? pp_program_start_gathers_ns(&f, st) : 0;
		lb = max64(lb, gath[st]);
		lb = max64(lb, head[st] + busy[st] + opt[st]);
	}
	/* tight: the chains of round trips through stage 0 (program.h), on
	 * the slow fabrics where sends, not the streams, make the step */
	int64_t *trips = tight ? pp_xmalloc(sizeof(int64_t) * (size_t)P) : NULL;
	bool tripped = tight && pp_program_round_trips_ns(&f, trips) >= 0;
	/* E[st]: the end of stage st's last backward, which every later stage's
	 * last backward feeds */
	for (int st = P - 1; st >= 0; st--) {
		E[st] = head[st] + busy[st] - tailsend[st];
		if (tripped)
			E[st] = max64(E[st], trips[st]);
		if (st < P - 1 && !listed) {
			int64_t B0 = pp_stepcost_unit_ns(&f, st, false);
			E[st] = max64(E[st], E[st + 1] + f.p2p_ns[st] + B0);
		}
	}
	/* bucket tails are the same for stages of the same shape */
	int64_t cache_l = -1, cache_tail = 0, cache_e = 0;
	for (int st = 0; st < P; st++) {
		dpend[st] = -1;
		if (listed) {
			/* a listed schedule's last units need not complete
			 * chunk 0's gradients: its streams alone */
		} else if (f.zero3) {
			dpend[st] = E[st] + (st == 0 ? rs_e : rs_l);
		} else if (tight && w->dp.n > 1 && f.overlap_grad_reduce && !blocking) {
			dpend[st] = dp_stream_end(&f, st, head[st], busy[st], E[st], gath[st]);
		} else if (w->dp.n > 1 && f.overlap_grad_reduce) {
			bool plain = st != 0 && st != NV - 1 && f.one_kind && !gath[st];
			if (plain && cache_l == f.layers[st]) {
				dpend[st] = E[st] + (cache_tail - cache_e);
			} else {
				dpend[st] = tail_reduce(&f, st, E[st], gath[st] ? gath[st] : -1);
				if (plain) {
					cache_l = f.layers[st];
					cache_tail = dpend[st];
					cache_e = E[st];
				}
			}
		}
	}
	int64_t ar_end = -1;
	if (f.embed_ar.ns >= 0) {
		int64_t a = max64(E[0] + tailsend[0], E[P - 1] + tailsend[P - 1]);
		a = max64(a, max64(dpend[0], dpend[P - 1]));
		ar_end = a + f.embed_ar.ns;
	}
	for (int st = 0; st < P; st++) {
		int64_t start = max64(E[st] + tailsend[st], dpend[st]);
		if (ar_end >= 0 && (st == 0 || st == P - 1))
			start = max64(start, ar_end);
		lb = max64(lb, start + opt[st]);
	}
	free(busy);
	free(trips);
	pp_stepcost_release(&f);
	return lb;
}

int64_t pp_fp_bound_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w)
{
	return bound_ns(s, hw, w, false);
}

int64_t pp_fp_bound_tight_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w)
{
	return bound_ns(s, hw, w, true);
}

int64_t pp_fp_bound_quick_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w)
{
	const pp_parallel *p = &s->parallel;
	int64_t M = s->training.num_microbatches;
	pp_task_ns u = pp_task_durations(w, pp_pipeline_stretch(s, hw));
	int64_t lb = 0;
	for (int st = 0; st < p->pp; st++) {
		double n[PP_LAYER_KINDS];
		pp_stage_kinds(s, st, n);
		int64_t b = 0;
		for (int k = 0; k < PP_LAYER_KINDS; k++)
			b += (int64_t)n[k] * (u.f_layer[k] + u.b_layer[k]);
		if (pp_stage_holds_embed(s, st))
			b += u.f_embed + u.b_embed;
		if (pp_stage_holds_head(s, st))
			b += u.f_head + u.b_head;
		/* DualPipe: each of the two stages a rank holds (and the
		 * embedding and the head at either end) runs half the
		 * micro-batches, one direction's */
		lb = max64(lb, (pp_schedule_two_ended(p->schedule) ? M / 2 : M) * b);
	}
	return lb;
}
