/* serveplan.c - see serveplan.h: the search over the layouts (the lone
 * screen, each layout's fewest replicas, the pick, the ranking); the runs
 * it asks for: serveplanrun.c. */
#include "plan/serveplanint.h"
#include "core/fmt.h"
#include "serve/requests.h"
#include "serve/servesim.h"
#include "core/util.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_splan_status_names[PP_SPLAN_NSTATUS] = {
	"invalid", "no_fit", "misses_alone", "dearer", "misses", "meets"};

/* The options the answer's words compare by headroom (the closest on
 * fewer GPUs than the pick; with a disaggregated pick, the co-located
 * miss on the most GPUs within the pick's) chosen from exact figures:
 * while the choice is a stopped run (its headroom an upper bound), that
 * run is run to its end and the choice made again. */
static int exact_choices(pp_splan_ctx *c, const pp_catalog *cat, pp_err *err)
{
	pp_splan_result *r = c->r;
	if (r->pick < 0)
		return 0;
	for (int pass = 0; pass < 2; pass++) {
		for (;;) {
			const pp_splan_option *p = &r->opts[r->pick];
			if (pass == 1 && !r->layouts[p->layout].l.disagg)
				break;
			int w = -1;
			for (int i = 0; i < r->nopts; i++) {
				const pp_splan_option *x = &r->opts[i];
				if (pass == 0 && x->gpus < p->gpus &&
				    (w < 0 || x->headroom > r->opts[w].headroom))
					w = i;
				if (pass == 1 && !r->layouts[x->layout].l.disagg && !x->slo_met &&
				    x->gpus <= p->gpus &&
				    (w < 0 || x->gpus > r->opts[w].gpus ||
				     (x->gpus == r->opts[w].gpus && x->headroom > r->opts[w].headroom)))
					w = i;
			}
			if (w < 0 || !r->opts[w].stopped)
				break;
			int rc = pp_splan_run_whole(c, cat, w, err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* The lone-request screen: 1 when the layout cannot meet the SLO. */
static int alone(pp_splan_ctx *c, pp_serve_cand *cd, pp_splan_layout *L, pp_err *err)
{
	const pp_servespec *sv = &cd->su.sv;
	int64_t outs[2] = {c->min_output, c->min_output2};
	int n = c->min_output2 && c->min_output2 != c->min_output ? 2 : 1;
	for (int k = 0; k < n; k++) {
		pp_serve_setup su = cd->su;
		pp_servespec *w = &su.sv;
		w->dp = 1;
		if (su.disagg) /* the layout's prefill pool, one decode instance */
			su.pool[PP_POOL_DECODE].sv.dp = 1;
		w->trace = NULL;
		w->ntrace = 0;
		w->num_prompts = 1;
		w->prefix_len = 0;
		w->max_concurrency = 0;
		w->input = (pp_lendist){PP_LEN_FIXED, (double)c->min_prompt, 0, 0, 1, w->max_model_len};
		w->output = (pp_lendist){PP_LEN_FIXED, (double)outs[k], 0, 0, 1, w->max_model_len};
		su.progress = NULL;
		su.keep_requests = false;
		pp_serve_result x;
		int rc = pp_serve_run(&su, INFINITY, 0, &x, err);
		if (rc)
			return rc;
		c->r->alone_sims++;
		char b1[32], b2[32];
		if (k == 0) {
			L->alone_ttft_s = x.ttft.pct;
			L->alone_e2el_s = x.e2el.pct;
			/* Little's law: keeping up with the rate holds at least rate x
			 * latency requests in flight; past the workload's requests, its
			 * run is a burst drained, and says nothing of the rate */
			double inflight = c->r->offered_rps * x.e2el.pct;
			if (isfinite(c->r->offered_rps) && inflight > (double)c->r->requests) {
				snprintf(L->why, sizeof(L->why), "at %.4g req/s the shortest request alone "
					 "(%s end to end) needs %.3g requests in flight, more than the "
					 "workload's %lld: its run would be a burst, not that rate kept up "
					 "(more workload.num_prompts or a lower rate)", c->r->offered_rps,
					 pp_fmt_duration(x.e2el.pct, b1, sizeof(b1)), inflight,
					 (long long)c->r->requests);
				return 1;
			}
			if (c->screen_ttft && sv->slo_ttft_s && x.ttft.pct > sv->slo_ttft_s) {
				snprintf(L->why, sizeof(L->why), "the shortest request alone (%lld tokens "
					 "in) has a TTFT of %s, over the SLO's %s", (long long)c->min_prompt,
					 pp_fmt_duration(x.ttft.pct, b1, sizeof(b1)),
					 pp_fmt_duration(sv->slo_ttft_s, b2, sizeof(b2)));
				return 1;
			}
			if (c->screen_ttft && sv->slo_e2el_s && x.e2el.pct > sv->slo_e2el_s) {
				snprintf(L->why, sizeof(L->why), "the shortest request alone (%lld in, %lld "
					 "out) takes %s end to end, over the SLO's %s",
					 (long long)c->min_prompt, (long long)outs[k],
					 pp_fmt_duration(x.e2el.pct, b1, sizeof(b1)),
					 pp_fmt_duration(sv->slo_e2el_s, b2, sizeof(b2)));
				return 1;
			}
		}
		if (outs[k] >= 2) {
			L->alone_tpot_s = x.tpot.pct;
			if (sv->slo_tpot_s && x.tpot.pct > sv->slo_tpot_s) {
				snprintf(L->why, sizeof(L->why), "the shortest request alone decodes at a "
					 "TPOT of %s, over the SLO's %s", pp_fmt_duration(x.tpot.pct, b1,
					 sizeof(b1)), pp_fmt_duration(sv->slo_tpot_s, b2, sizeof(b2)));
				return 1;
			}
		}
	}
	return 0;
}

/* Replica counts for a replica of g GPUs on nodes of gpn that load, up to
 * the first count of at least cap. Whole nodes recur with a period of at
 * most gpn replicas (fixed + g dp mod gpn is periodic in dp), so a layout
 * that has none within gpn past cap never has one (a prefill pool of 4
 * beside decode instances of 8 on nodes of 8): the loop stops there
 * rather than counting to INT_MAX / 2. */
static int replica_counts(int fixed, int g, int gpn, int cap, int *out, int max)
{
	int n = 0;
	for (int dp = 1; n < max && dp <= cap + gpn; dp++) {
		int64_t gpus = fixed + (int64_t)g * dp;
		if (gpus > INT_MAX / 2)
			break;
		if (pp_serve_whole_nodes(gpus, gpn))
			out[n++] = dp;
		if (dp >= cap && n > 0 && out[n - 1] == dp)
			break;
	}
	return n;
}

static void why_missed(pp_splan_ctx *c, pp_splan_layout *L, int opt, const char *tail)
{
	const pp_splan_option *op = &c->r->opts[opt];
	snprintf(L->why, sizeof(L->why), "misses the SLO at %d replica%s (%d GPUs)%s", op->dp,
		 op->dp == 1 ? "" : "s", op->gpus, tail);
}

/* The fewest replicas of layout li meeting the SLO, within the pruning
 * rules (or every count, exhaustive). */
static int search_layout(pp_splan_ctx *c, pp_serve_cand *cd, int li, pp_err *err)
{
	pp_splan_layout *L = &c->r->layouts[li];
	const int *D = c->dps;
	int n = c->ndps, rc;
	if (c->o->exhaustive) {
		for (int i = 0; i < n; i++) {
			if ((rc = pp_splan_run_at(c, cd, li, D[i], err)) < 0)
				return rc;
			L->best = rc;
			if (c->r->opts[rc].slo_met) {
				L->status = PP_SPLAN_MEETS;
				return 0;
			}
		}
		L->status = PP_SPLAN_MISSES;
		why_missed(c, L, L->best, ", the most worth running (as many replicas as requests in "
			   "flight)");
		return 0;
	}
	int lo = -1, hi = -1, hopt = -1;   /* D[lo] misses (-1: none known), D[hi] meets */
	int cap = -1;
	for (int i = 0; i < n; i++)
		if (c->best_gpus != INT_MAX && L->fixed_gpus + (int64_t)L->gpus * D[i] <= c->best_gpus)
			cap = i;
	if (c->best_gpus != INT_MAX && cap < 0) {
		L->status = PP_SPLAN_DEARER;
		snprintf(L->why, sizeof(L->why), "one replica takes %d GPUs, more than the best "
			 "option's %d", L->fixed_gpus + L->gpus * D[0], c->best_gpus);
		return 0;
	}
	/* a run's time grows with its replicas (each iterates on its own):
	 * where the cap lies beyond a node, its fewest meeting count is
	 * sought upwards from one replica, as before any option meets, the
	 * runs below it short (an overloaded run stops once it certainly
	 * misses), rather than from a run at the cap */
	bool upward = c->best_gpus == INT_MAX ||
		      L->fixed_gpus + (int64_t)L->gpus * D[cap] > c->s->cluster.gpus_per_node;
	if (upward) {
		int top = c->best_gpus == INT_MAX ? n - 1 : cap;
		/* double the index until a count meets */
		for (int i = 0, step = 1;; i = i + step < top ? i + step : top, step *= 2) {
			if ((rc = pp_splan_run_at(c, cd, li, D[i], err)) < 0)
				return rc;
			if (c->r->opts[rc].slo_met) {
				hi = i;
				hopt = rc;
				break;
			}
			lo = i;
			L->best = rc;
			if (i == top) {
				L->status = PP_SPLAN_MISSES;
				why_missed(c, L, rc, c->best_gpus == INT_MAX
					   ? ", the most worth running (as many replicas as requests in flight)"
					   : "; fewer miss too (more replicas never hurt), more cost more "
					     "than the best option");
				return 0;
			}
		}
	} else {
		if ((rc = pp_splan_run_at(c, cd, li, D[cap], err)) < 0)
			return rc;
		if (!c->r->opts[rc].slo_met) {
			L->best = rc;
			L->status = PP_SPLAN_MISSES;
			why_missed(c, L, rc, "; fewer miss too (more replicas never hurt), more cost "
				   "more than the best option");
			return 0;
		}
		hi = cap;
		hopt = rc;
	}
	while (hi - lo > 1) {
		int mid = lo < 0 ? hi / 2 : (lo + hi) / 2;
		if (mid == hi)
			mid = hi - 1;
		if ((rc = pp_splan_run_at(c, cd, li, D[mid], err)) < 0)
			return rc;
		if (c->r->opts[rc].slo_met) {
			hi = mid;
			hopt = rc;
		} else {
			lo = mid;
		}
	}
	L->best = hopt;
	L->status = PP_SPLAN_MEETS;
	return 0;
}

/* Better option: fewer GPUs, then more headroom, then the earlier layout. */
static bool better(const pp_splan_result *r, int a, int b)
{
	const pp_splan_option *x = &r->opts[a], *y = &r->opts[b];
	if (x->gpus != y->gpus)
		return x->gpus < y->gpus;
	if (x->headroom != y->headroom)
		return x->headroom > y->headroom;
	const pp_splan_layout *la = &r->layouts[x->layout], *lb = &r->layouts[y->layout];
	if (la->changed != lb->changed)
		return la->changed < lb->changed;
	return la->index < lb->index;
}

static const pp_splan_result *sort_r;
static int *sort_eval;   /* evaluation order keys */

static int by_eval(const void *a, const void *b)
{
	int i = *(const int *)a, j = *(const int *)b;
	return sort_eval[i] != sort_eval[j] ? (sort_eval[i] < sort_eval[j] ? -1 : 1) : i - j;
}

static int by_rank(const void *a, const void *b)
{
	const pp_splan_result *r = sort_r;
	const pp_splan_layout *x = &r->layouts[*(const int *)a], *y = &r->layouts[*(const int *)b];
	bool mx = x->status == PP_SPLAN_MEETS, my = y->status == PP_SPLAN_MEETS;
	if (mx != my)
		return mx ? -1 : 1;
	if (mx)
		return better(r, x->best, y->best) ? -1 : better(r, y->best, x->best) ? 1 : 0;
	double hx = r->opts[x->best].headroom, hy = r->opts[y->best].headroom;
	if (hx != hy)
		return hx > hy ? -1 : 1;
	return x->index - y->index;
}

int pp_splan_order(const pp_splan_result *r, int **order)
{
	int *o = pp_xcalloc((size_t)r->nlayouts + 1, sizeof(int)), n = 0;
	for (int i = 0; i < r->nlayouts; i++)
		if ((r->layouts[i].status == PP_SPLAN_MEETS || r->layouts[i].status == PP_SPLAN_MISSES) &&
		    r->layouts[i].best >= 0)
			o[n++] = i;
	sort_r = r;
	qsort(o, (size_t)n, sizeof(int), by_rank);
	*order = o;
	return n;
}

/* The workload's requests at the rate: the shortest, the mean output, the
 * rate the client sends at. */
static int workload_facts(pp_splan_ctx *c, pp_err *err)
{
	const pp_servespec *sv = &c->s->serve;
	pp_splan_result *r = c->r;
	pp_sreq *q;
	size_t N;
	pp_serve_requests(sv, r->rate, c->o->seed, &q, &N);
	int64_t rejected = 0;
	int rc = pp_serve_admit(sv, q, &N, &rejected, err);
	if (rc || N == 0) {
		free(q);
		return rc ? rc : pp_errf(err, PP_EINPUT, "serve --search: the workload has no requests");
	}
	c->min_prompt = c->min_output = INT64_MAX;
	c->min_output2 = 0;
	double out = 0;
	for (size_t i = 0; i < N; i++) {
		if (q[i].prompt < c->min_prompt)
			c->min_prompt = q[i].prompt;
		if (q[i].output < c->min_output)
			c->min_output = q[i].output;
		if (q[i].output >= 2 && (!c->min_output2 || q[i].output < c->min_output2))
			c->min_output2 = q[i].output;
		out += (double)q[i].output;
	}
	r->requests = (int64_t)N;
	r->mean_output_tokens = out / (double)N;
	r->offered_rps = pp_serve_offered_rps(sv, r->rate, q, N);
	free(q);
	c->screen_ttft = !(sv->prefix_caching && sv->prefix_len > 0 && sv->prefix_fraction > 0);
	int64_t inflight = sv->max_concurrency > 0 && sv->max_concurrency < (int64_t)N
				   ? sv->max_concurrency : (int64_t)N;
	r->max_replicas = inflight > INT_MAX / 4 ? INT_MAX / 4 : (int)inflight;
	return 0;
}

#define MAX_PREFILL_INSTANCES 8

/* The disaggregated layouts: a prefill pool of 1 .. MAX_PREFILL_INSTANCES
 * instances of each TP of the space beside decode instances of each TP
 * (PP 1, the scenario's expert parallelism and scheduler limits). */
static void add_disagg_layouts(const pp_scenario *s, const pp_serve_space *sp, pp_splan_result *r)
{
	int n = sp->ntp * sp->ntp * MAX_PREFILL_INSTANCES;
	r->layouts = pp_xrealloc(r->layouts, sizeof(*r->layouts) * (size_t)(r->nlayouts + n + 1));
	for (int a = 0; a < sp->ntp; a++)
		for (int x = 1; x <= MAX_PREFILL_INSTANCES; x++)
			for (int b = 0; b < sp->ntp; b++) {
				pp_splan_layout *L = &r->layouts[r->nlayouts];
				memset(L, 0, sizeof(*L));
				L->l = (pp_serve_layout){sp->tp[b], 1, s->serve.expert_parallel && sp->tp[b] > 1,
							 sp->def_seqs, sp->def_toks, true, sp->tp[a], x};
				L->index = r->nlayouts++;
				L->gpus = sp->tp[b];
				L->fixed_gpus = sp->tp[a] * x;
				L->best = -1;
				L->alone_ttft_s = L->alone_tpot_s = L->alone_e2el_s = NAN;
			}
	snprintf(r->space + strlen(r->space), sizeof(r->space) - strlen(r->space),
		 "; and disaggregated: prefill 1 to %d instances x TP {same} beside decode TP {same} "
		 "(PP 1, scheduler limits as the scenario's)", MAX_PREFILL_INSTANCES);
}

int pp_splan_run(const pp_scenario *s, const pp_catalog *cat, const pp_splan_opts *o,
		 pp_splan_result *out, pp_err *err)
{
	memset(out, 0, sizeof(*out));
	out->pick = -1;
	const pp_servespec *sv = &s->serve;
	if (!sv->present)
		return pp_errf(err, PP_EINPUT, "serve --search: %s has no \"serving\" section",
			       s->doc.path);
	if (!sv->slo_present)
		return pp_errf(err, PP_EINPUT, "serve --search: %s has no \"slo\" section; expected "
			       "the bounds to meet (ttft_ms, tpot_ms, itl_ms or e2el_ms at a percentile)",
			       s->doc.path);
	out->rate = isnan(o->rate) ? (sv->trace ? 1.0 : sv->request_rate) : o->rate;
	if (!isfinite(out->rate) || !(out->rate > 0))
		return pp_errf(err, PP_EINPUT, "serve --search: %s: workload.request_rate is \"inf\" "
			       "(every request at once); expected a target request rate: give one "
			       "in the scenario or with --rate R", s->doc.path);
	out->usd_per_gpu_hour = o->usd_per_gpu_hour;
	pp_splan_ctx c = {s, o, out, 0, NULL, 0, INT_MAX, pp_mono_s(), 0, 0, 0, 0, true, NULL, 0};
	int rc = workload_facts(&c, err);
	if (rc)
		return rc;
	pp_serve_space sp;
	pp_serve_space_of(s, out->max_replicas, &sp);
	snprintf(out->fixed, sizeof(out->fixed), "%s", sp.fixed);
	snprintf(out->space, sizeof(out->space), "%s", sp.words);
	/* the layouts, in enumeration order */
	pp_serve_layout *ls;
	out->nlayouts = pp_serve_space_layouts(&sp, &ls);
	out->layouts = pp_xcalloc((size_t)out->nlayouts + 1, sizeof(*out->layouts));
	for (int i = 0; i < out->nlayouts; i++) {
		pp_splan_layout *L = &out->layouts[i];
		L->l = ls[i];
		L->index = i;
		L->changed = pp_serve_layout_changed(&sp, &ls[i]);
		L->gpus = ls[i].tp * ls[i].pp;
		L->best = -1;
		L->alone_ttft_s = L->alone_tpot_s = L->alone_e2el_s = NAN;
	}
	free(ls);
	if (o->disagg) /* prefill pools of 1 .. 8 instances x decode TPs */
		add_disagg_layouts(s, &sp, out);
	/* the search's simulated work, bounded before its first run (issue 31) */
	if ((rc = pp_serve_check_search_work(sv, out->nlayouts, err))) {
		pp_splan_result_release(out);
		return rc;
	}
	/* visit by GPUs a replica, the scenario's scheduler values first */
	int *ord = pp_xcalloc((size_t)out->nlayouts, sizeof(int));
	sort_eval = pp_xcalloc((size_t)out->nlayouts, sizeof(int));
	for (int i = 0; i < out->nlayouts; i++) {
		ord[i] = i;
		sort_eval[i] = (out->layouts[i].fixed_gpus + out->layouts[i].gpus) * 4 +
			       out->layouts[i].changed;
	}
	qsort(ord, (size_t)out->nlayouts, sizeof(int), by_eval);
	free(sort_eval);
	sort_eval = NULL;
	c.dps = pp_xcalloc((size_t)out->max_replicas + 2, sizeof(int));
	int valid = 0;
	for (int k = 0; k < out->nlayouts; k++) {
		int li = ord[k];
		pp_splan_layout *L = &out->layouts[li];
		c.done = k;
		if (!o->exhaustive && c.best_gpus != INT_MAX && L->fixed_gpus + L->gpus > c.best_gpus) {
			L->status = PP_SPLAN_DEARER;
			snprintf(L->why, sizeof(L->why), "one replica takes %d GPUs, more than the best "
				 "option's %d", L->fixed_gpus + L->gpus, c.best_gpus);
			valid++; /* not loaded; counted as a candidate of the space */
			continue;
		}
		pp_serve_cand cd;
		int verdict;
		if ((rc = pp_serve_cand_init(&cd, s, cat, o->hwcal, &L->l, &verdict, L->why,
					      sizeof(L->why), err))) {
			pp_serve_cand_release(&cd);
			goto out;
		}
		if (verdict != PP_CAND_OK) {
			L->status = verdict == PP_CAND_INVALID ? PP_SPLAN_INVALID : PP_SPLAN_NO_FIT;
			valid += verdict == PP_CAND_NO_FIT;
			pp_serve_cand_release(&cd);
			pp_splan_report(&c);
			continue;
		}
		L->kv_tokens = cd.su.mem.kv_tokens;
		L->max_num_seqs_run = cd.su.sv.max_num_seqs;
		valid++;
		if (sp.dp_fixed && !L->l.disagg) {
			c.dps[0] = sv->dp;
			c.ndps = pp_serve_whole_nodes((int64_t)L->gpus * sv->dp, s->cluster.gpus_per_node);
		} else {
			c.ndps = replica_counts(L->fixed_gpus, L->gpus, s->cluster.gpus_per_node,
						out->max_replicas, c.dps, out->max_replicas + 2);
		}
		int a = 0;
		if (c.ndps == 0) {
			L->status = PP_SPLAN_INVALID;
			snprintf(L->why, sizeof(L->why), "%d replicas of %d GPUs do not fill whole nodes "
				 "of %d", c.dps[0], L->gpus, s->cluster.gpus_per_node);
		} else if (!o->exhaustive && (a = alone(&c, &cd, L, err)) < 0) {
			rc = a;
			pp_serve_cand_release(&cd);
			goto out;
		} else if (a == 1) {
			L->status = PP_SPLAN_ALONE;
		} else if ((rc = search_layout(&c, &cd, li, err))) {
			pp_serve_cand_release(&cd);
			goto out;
		}
		pp_serve_cand_release(&cd);
		if (L->status == PP_SPLAN_MEETS) {
			if (out->pick < 0 || better(out, L->best, out->pick))
				out->pick = L->best;
			if (out->opts[L->best].gpus < c.best_gpus)
				c.best_gpus = out->opts[L->best].gpus;
			snprintf(L->why, sizeof(L->why), "meets the SLO at %d replica%s (%d GPUs)",
				 out->opts[L->best].dp, out->opts[L->best].dp == 1 ? "" : "s",
				 out->opts[L->best].gpus);
		}
		pp_splan_report(&c);
	}
	c.done = out->nlayouts;
	if ((rc = exact_choices(&c, cat, err)))
		goto out;
	pp_splan_report(&c);
	for (int i = 0; i < out->nlayouts; i++)
		out->count[out->layouts[i].status]++;
	if (!valid) {
		const pp_splan_layout *L = &out->layouts[0];
		rc = pp_errf(err, PP_EINPUT, "serve --search: no layout of the space (%s) is valid; "
			     "the first: %s", out->space, L->why);
		goto out;
	}
	rc = 0;
out:
	out->elapsed_s = pp_mono_s() - c.t0;
	free(ord);
	free(c.dps);
	free(c.memos);
	if (rc)
		pp_splan_result_release(out);
	return rc;
}

void pp_splan_result_release(pp_splan_result *r)
{
	free(r->layouts);
	free(r->opts);
	r->layouts = NULL;
	r->opts = NULL;
	r->nlayouts = r->nopts = 0;
	r->pick = -1;
}
