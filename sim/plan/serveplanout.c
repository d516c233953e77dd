/* serveplanout.c - see serveplanout.h. */
#include "plan/serveplanout.h"
#include "core/csv.h"
#include "core/fmt.h"
#include "core/jsonout.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* engine times and rates: nine significant digits, as search and size */
#define SIG 9

/* The SLO's bounds and the option's values at its percentile. */
typedef struct bounds {
	int n;
	const char *name[4];
	double bound[4], v[4];
} bounds;

static bounds bounds_of(const pp_servespec *sv, const pp_splan_option *o)
{
	bounds b = {0};
	const char *nm[4] = {"TTFT", "TPOT", "ITL", "E2EL"};
	double bd[4] = {sv->slo_ttft_s, sv->slo_tpot_s, sv->slo_itl_s, sv->slo_e2el_s};
	double v[4] = {o ? o->ttft_s : 0, o ? o->tpot_s : 0, o ? o->itl_s : 0, o ? o->e2el_s : 0};
	for (int i = 0; i < 4; i++)
		if (bd[i] > 0) {
			b.name[b.n] = nm[i];
			b.bound[b.n] = bd[i];
			b.v[b.n++] = v[i];
		}
	return b;
}

/* The bound with the least slack. */
static int tightest(const bounds *b)
{
	int k = 0;
	for (int i = 1; i < b->n; i++) /* a stopped run's unmeasured bounds (NAN) last */
		if (isnan(b->v[k]) || 1 - b->v[i] / b->bound[i] < 1 - b->v[k] / b->bound[k])
			k = i;
	return k;
}

/* Why option q misses: its tightest bound over the SLO, or (its bounds met
 * by a run that did not keep up) the rate it completes. */
static void miss_words(const pp_splan_option *q, const bounds *bq, int kq, double offered,
		       pp_sb *w)
{
	char b1[32], b2[32];
	if (isfinite(q->capacity_rps))
		pp_sb_addf(w, "it completes %.4g req/s with every request sent at once, below the "
			      "%.4g offered (its run drained a backlog).", q->capacity_rps, offered);
	else
		pp_sb_addf(w, "%s %s over %s.", bq->name[kq], pp_fmt_ms(bq->v[kq], 1, b1, sizeof(b1)),
			   pp_fmt_ms(bq->bound[kq], 1, b2, sizeof(b2)));
}

static double usd_per_million_output(const pp_splan_result *r, const pp_splan_option *o)
{
	double tps = r->offered_rps * r->mean_output_tokens;
	return isfinite(o->usd_per_hour) && tps > 0 ? o->usd_per_hour / (3600 * tps) * 1e6 : NAN;
}

static void layout_words(const pp_scenario *s, const pp_splan_option *o,
			 const pp_splan_result *r, char *buf, size_t n)
{
	char l[160];
	pp_serve_layout_str(&r->layouts[o->layout].l, s->model.num_experts > 0, l, sizeof(l));
	if (r->layouts[o->layout].l.disagg)
		snprintf(buf, n, "%s x %d decode instance%s", l, o->dp, o->dp == 1 ? "" : "s");
	else
		snprintf(buf, n, "%s x %d replica%s", l, o->dp, o->dp == 1 ? "" : "s");
}

/* The best meeting option of the other kind (disaggregated or not) than
 * the pick's; -1 none. */
static int best_other(const pp_splan_result *r, bool disagg)
{
	int b = -1;
	for (int i = 0; i < r->nopts; i++) {
		const pp_splan_option *x = &r->opts[i];
		if (!x->slo_met || r->layouts[x->layout].l.disagg != disagg)
			continue;
		if (b < 0 || x->gpus < r->opts[b].gpus ||
		    (x->gpus == r->opts[b].gpus && x->headroom > r->opts[b].headroom))
			b = i;
	}
	return b;
}

/* Which won, disaggregated or co-located, and the mechanism. */
static void explain_disagg(const pp_scenario *s, const pp_splan_result *r, pp_sb *w)
{
	const pp_servespec *sv = &s->serve;
	const pp_splan_option *p = &r->opts[r->pick];
	bool pd = r->layouts[p->layout].l.disagg;
	int any = 0;
	for (int i = 0; i < r->nlayouts; i++)
		any += r->layouts[i].l.disagg;
	if (!any)
		return;
	char lb[224], b1[32];
	int o = best_other(r, !pd);
	if (pd) {
		pp_sb_addf(w, " Disaggregated wins: its decode iterations never carry a prefill chunk "
			      "and its prompts never wait behind decodes, for a KV transfer of %s a "
			      "request (%.1f%% of TTFT on average).",
			   pp_fmt_ms(p->mean_transfer_s, 1, b1, sizeof(b1)), 100 * p->transfer_ttft_share);
		/* the co-located option on the most GPUs run within the pick's: what it misses */
		int c = -1;
		for (int i = 0; i < r->nopts; i++) {
			const pp_splan_option *x = &r->opts[i];
			if (r->layouts[x->layout].l.disagg || x->slo_met || x->gpus > p->gpus)
				continue;
			if (c < 0 || x->gpus > r->opts[c].gpus ||
			    (x->gpus == r->opts[c].gpus && x->headroom > r->opts[c].headroom))
				c = i;
		}
		if (c >= 0) {
			const pp_splan_option *q = &r->opts[c];
			bounds bq = bounds_of(sv, q);
			int kq = tightest(&bq);
			layout_words(s, q, r, lb, sizeof(lb));
			pp_sb_addf(w, " Co-located on %d GPU%s (%s) misses: ", q->gpus,
				   q->gpus == 1 ? "" : "s", lb);
			miss_words(q, &bq, kq, r->offered_rps, w);
		}
		if (o >= 0 && r->opts[o].gpus == p->gpus)
			pp_sb_addf(w, " The best co-located option meets it on as many GPUs with less "
				      "headroom (%.1f%%).", 100 * r->opts[o].headroom);
		else if (o >= 0)
			pp_sb_addf(w, " The cheapest co-located option meeting it takes %d GPUs.",
				   r->opts[o].gpus);
		else
			pp_sb_addf(w, " No co-located option run meets it.");
	} else if (o >= 0) {
		layout_words(s, &r->opts[o], r, lb, sizeof(lb));
		pp_sb_addf(w, " Co-located wins: the cheapest disaggregated option meeting it, %s, "
			      "takes %d GPUs.", lb, r->opts[o].gpus);
	} else {
		pp_sb_addf(w, " Co-located wins: no disaggregated layout run meets it on as few GPUs "
			      "(a prefill pool costs its own GPUs).");
	}
}

static void explain(const pp_scenario *s, const pp_splan_result *r, pp_sb *w)
{
	const pp_servespec *sv = &s->serve;
	const pp_splan_option *p = &r->opts[r->pick];
	char lb[224], b1[32], b2[32];
	layout_words(s, p, r, lb, sizeof(lb));
	bounds b = bounds_of(sv, p);
	int k = tightest(&b);
	pp_sb_addf(w, "%s meets the SLO at %.4g req/s on %d GPU%s, the fewest of any option run; "
		      "its tightest bound is %s at %s of %s (%.1f%% headroom).",
		   lb, r->offered_rps, p->gpus, p->gpus == 1 ? "" : "s", b.name[k],
		   pp_fmt_ms(b.v[k], 1, b1, sizeof(b1)), pp_fmt_ms(b.bound[k], 1, b2, sizeof(b2)),
		   100 * p->headroom);
	/* the closest cheaper option */
	int c = -1;
	for (int i = 0; i < r->nopts; i++)
		if (r->opts[i].gpus < p->gpus && (c < 0 || r->opts[i].headroom > r->opts[c].headroom))
			c = i;
	if (c >= 0) {
		const pp_splan_option *q = &r->opts[c];
		bounds bq = bounds_of(sv, q);
		int kq = tightest(&bq);
		layout_words(s, q, r, lb, sizeof(lb));
		pp_sb_addf(w, " The closest option on fewer GPUs, %s (%d GPU%s), misses: ", lb, q->gpus,
			   q->gpus == 1 ? "" : "s");
		miss_words(q, &bq, kq, r->offered_rps, w);
	} else if (p->gpus > 1) {
		int ni = 0, nf = 0, na = 0;
		for (int i = 0; i < r->nlayouts; i++)
			if (r->layouts[i].gpus < p->gpus) {
				ni += r->layouts[i].status == PP_SPLAN_INVALID;
				nf += r->layouts[i].status == PP_SPLAN_NO_FIT;
				na += r->layouts[i].status == PP_SPLAN_ALONE;
			}
		pp_sb_addf(w, " No option on fewer GPUs was run: every layout with fewer GPUs a replica "
			      "is invalid (%d), does not fit (%d) or misses the SLO with its shortest "
			      "request alone (%d).", ni, nf, na);
	}
	/* the runner-up on as many GPUs, in the ranking's order */
	int ties = 0, next = -1, *ord, n = pp_splan_order(r, &ord);
	for (int i = 0; i < n; i++) {
		const pp_splan_layout *L = &r->layouts[ord[i]];
		if (L->status != PP_SPLAN_MEETS || r->opts[L->best].gpus != p->gpus)
			continue;
		ties++;
		if (L->best != r->pick && next < 0)
			next = L->best;
	}
	free(ord);
	if (next >= 0) {
		layout_words(s, &r->opts[next], r, lb, sizeof(lb));
		const char *gs = p->gpus == 1 ? "" : "s";
		if (r->opts[next].headroom == p->headroom)
			pp_sb_addf(w, " %d layouts meet it on %d GPU%s; it ties with %s on headroom and "
				      "keeps more of the scenario's scheduler values (or comes first).",
				   ties, p->gpus, gs, lb);
		else
			pp_sb_addf(w, " Of the %d layouts meeting it on %d GPU%s it has the most headroom "
				      "(next: %s, %.1f%%).", ties, p->gpus, gs, lb,
				   100 * r->opts[next].headroom);
	}
	explain_disagg(s, r, w);
}

static const char *slo_words(const pp_servespec *sv, char *buf, size_t n)
{
	pp_sb o = {0};
	bounds b = bounds_of(sv, NULL);
	char t[32];
	pp_sb_addf(&o, "p%g", sv->slo_percentile);
	for (int i = 0; i < b.n; i++)
		pp_sb_addf(&o, "%s %s <= %s", i ? "," : "", b.name[i],
			   pp_fmt_ms(b.bound[i], 1, t, sizeof(t)));
	snprintf(buf, n, "%s", o.buf);
	pp_sb_release(&o);
	return buf;
}

void pp_splan_to_text(const pp_scenario *s, const pp_splan_result *r, const char *rate_from,
		      const char *price_what, uint64_t seed, int top, pp_sb *out)
{
	const pp_servespec *sv = &s->serve;
	bool moe = s->model.num_experts > 0;
	char sl[160];
	pp_sb_addf(out, "Serve search  %s: %s on %s (nodes of %d), %s, %s weights\n", s->name, s->model.name,
	       s->cluster.gpu->id, s->cluster.gpus_per_node, pp_serve_engine_names[sv->engine],
	       pp_dtype_names[sv->precision]);
	if (sv->trace)
		pp_sb_addf(out, "Target        the trace's arrivals, inter-arrival times x %.4g (%s): "
		       "%.4g req/s, %lld requests; SLO at %s; seed %llu\n", 1 / r->rate, rate_from,
		       r->offered_rps,
		       (long long)r->requests, slo_words(sv, sl, sizeof(sl)), (unsigned long long)seed);
	else
		pp_sb_addf(out, "Target        %.4g req/s (%s), %lld requests; SLO at %s; seed %llu\n", r->rate,
		       rate_from, (long long)r->requests, slo_words(sv, sl, sizeof(sl)),
		       (unsigned long long)seed);
	pp_sb_addf(out, "Space         %s: %d layouts\n", r->space, r->nlayouts);
	if (r->fixed[0])
		pp_sb_addf(out, "Fixed         %s (given by the scenario)\n", r->fixed);
	pp_sb_addf(out, "Layouts       by status: invalid %d, no fit %d, miss the SLO alone %d, dearer at one "
	       "replica %d, miss %d, meet %d\n",
	       r->count[PP_SPLAN_INVALID], r->count[PP_SPLAN_NO_FIT], r->count[PP_SPLAN_ALONE],
	       r->count[PP_SPLAN_DEARER], r->count[PP_SPLAN_MISSES], r->count[PP_SPLAN_MEETS]);
	pp_sb_addf(out, "Simulations   %d at the target rate, %d of a lone request", r->sims, r->alone_sims);
	if (r->reused)
		pp_sb_addf(out, "; %d runs reused (a layout whose max_num_seqs and KV blocks the run "
			   "never reached)", r->reused);
	pp_sb_addf(out, "\n");
	if (isfinite(r->usd_per_gpu_hour))
		pp_sb_addf(out, "Price         $%.4g per GPU-hour (%s)\n", r->usd_per_gpu_hour, price_what);
	else
		pp_sb_addf(out, "Price         none (%s); options rank by GPUs, the same order at any one price\n",
		       price_what);
	int *ord, n = pp_splan_order(r, &ord);
	bounds hb = bounds_of(sv, NULL);
	pp_sb_addf(out, "\nLayouts run at the target rate, best first (latencies at p%g; headroom: the least "
	       "slack over the SLO's bounds; prefill: a disaggregated layout's prefill pool, its "
	       "replicas the decode instances of TP)\n", sv->slo_percentile);
	pp_sb_addf(out, "  %-3s %9s %3s %3s %s%5s %6s %8s %5s %10s", "#", "prefill", "TP", "PP", moe ? " EP " : "",
	       "seqs", "tokens", "replicas", "GPUs", "$/hour");
	for (int i = 0; i < hb.n; i++)
		pp_sb_addf(out, " %7s ms", hb.name[i]);
	pp_sb_addf(out, " %9s  %s\n", "headroom", "result");
	int shown = n < top ? n : top;
	for (int i = 0; i < shown; i++) {
		const pp_splan_layout *L = &r->layouts[ord[i]];
		const pp_splan_option *o = &r->opts[L->best];
		bounds b = bounds_of(sv, o);
		char usd[32] = "-";
		if (isfinite(o->usd_per_hour))
			snprintf(usd, sizeof(usd), "$%.2f", o->usd_per_hour);
		char pre[24] = "-";
		if (L->l.disagg)
			snprintf(pre, sizeof(pre), "%dxTP%d", L->l.prefill_dp, L->l.prefill_tp);
		pp_sb_addf(out, "  %-3d %9s %3d %3d %s%5lld %6lld %8d %5d %10s", i + 1, pre, L->l.tp, L->l.pp,
		       moe ? (L->l.ep ? " on " : " off") : "", (long long)L->l.max_num_seqs,
		       (long long)L->l.max_num_batched_tokens, o->dp, o->gpus, usd);
		for (int k = 0; k < b.n; k++) {
			char v[24] = "-"; /* a stopped run: ">" its lower bound, "-" not measured */
			if (!isnan(b.v[k]))
				snprintf(v, sizeof(v), "%s%.1f", o->stopped ? ">" : "", b.v[k] * 1e3);
			pp_sb_addf(out, " %10s", v);
		}
		pp_sb_addf(out, " %s%7.1f%%  %s\n", o->stopped ? "<" : " ", 100 * o->headroom,
		       L->status == PP_SPLAN_MEETS ? "meets" : o->stopped ? "misses (stopped)" : "misses");
	}
	if (n > shown)
		pp_sb_addf(out, "  (%d more; --json lists every layout and simulation)\n", n - shown);
	free(ord);
	pp_sb_addf(out, "\n");
	if (r->pick < 0) {
		pp_sb_addf(out, "No option run meets the SLO at %.4g req/s.\n", r->offered_rps);
		return;
	}
	const pp_splan_option *p = &r->opts[r->pick];
	char lb[224];
	layout_words(s, p, r, lb, sizeof(lb));
	pp_sb_addf(out, "Pick          %s: %d x %s", lb, p->gpus, s->cluster.gpu->id);
	if (isfinite(p->usd_per_hour))
		pp_sb_addf(out, ", $%.2f per hour", p->usd_per_hour);
	pp_sb_addf(out, "\n");
	double tps = r->offered_rps * r->mean_output_tokens, u = usd_per_million_output(r, p);
	if (isfinite(u))
		pp_sb_addf(out, "              $%.4g per 1M output tokens at %.4g req/s (%.0f output tokens/s, %.1f a "
		       "request)\n", u, r->offered_rps, tps, r->mean_output_tokens);
	pp_sb w = {0};
	explain(s, r, &w);
	pp_sb_addf(out, "Why           %s\n", w.buf);
	pp_sb_release(&w);
	cJSON *j = pp_serve_space_scenario(s, &r->layouts[p->layout].l, p->dp);
	char *cl = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(j, "cluster"));
	char *se = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(j, "serving"));
	pp_sb_addf(out, "Run it with   \"cluster\": %s,\n              \"serving\": %s\n", cl, se);
	free(cl);
	free(se);
	cJSON_Delete(j);
}

static void layout_keys(cJSON *o, const pp_serve_layout *l, bool moe)
{
	pp_json_int(o, "tensor_parallel_size", l->tp);
	pp_json_int(o, "pipeline_parallel_size", l->pp);
	if (moe)
		pp_json_bool(o, "enable_expert_parallel", l->ep);
	pp_json_int(o, "max_num_seqs", l->max_num_seqs);
	pp_json_int(o, "max_num_batched_tokens", l->max_num_batched_tokens);
	if (l->disagg) {
		cJSON *g = pp_json_obj(o, "disaggregation");
		pp_json_int(g, "prefill_tensor_parallel_size", l->prefill_tp);
		pp_json_int(g, "prefill_data_parallel_size", l->prefill_dp);
	}
}

static void option_json(cJSON *o, const pp_splan_result *r, const pp_splan_option *x, bool moe)
{
	layout_keys(o, &r->layouts[x->layout].l, moe);
	pp_json_int(o, "data_parallel_size", x->dp);
	pp_json_int(o, "num_gpus", x->gpus);
	pp_json_num(o, "usd_per_hour", x->usd_per_hour, SIG);
	pp_json_bool(o, "slo_met", x->slo_met);
	if (x->stopped) /* the latencies below: a lower bound where passed, else null */
		pp_json_bool(o, "stopped_when_missed", true);
	pp_json_num(o, "headroom", x->headroom, SIG);
	if (isfinite(x->capacity_rps)) /* met the bounds, not the rate */
		pp_json_num(o, "capacity_request_rate", x->capacity_rps, SIG);
	pp_json_num(o, "ttft_ms", x->ttft_s * 1e3, SIG);
	pp_json_num(o, "tpot_ms", x->tpot_s * 1e3, SIG);
	pp_json_num(o, "itl_ms", x->itl_s * 1e3, SIG);
	pp_json_num(o, "e2el_ms", x->e2el_s * 1e3, SIG);
	pp_json_num(o, "request_throughput", x->request_throughput, SIG);
	pp_json_num(o, "output_throughput", x->output_throughput, SIG);
	pp_json_int(o, "preemptions", x->preemptions);
	if (r->layouts[x->layout].l.disagg) {
		pp_json_num(o, "mean_kv_transfer_ms", x->mean_transfer_s * 1e3, SIG);
		pp_json_num(o, "kv_transfer_share_of_ttft", x->transfer_ttft_share, SIG);
	}
}

void pp_splan_to_json(const pp_scenario *s, const pp_splan_result *r, const char *rate_from,
		      const char *price_what, uint64_t seed, bool exhaustive, pp_sb *out)
{
	const pp_servespec *sv = &s->serve;
	bool moe = s->model.num_experts > 0;
	cJSON *j = pp_json_obj(NULL, NULL);
	pp_json_str(j, "scenario", s->name);
	pp_json_str(j, "gpu", s->cluster.gpu->id);
	pp_json_str(j, "engine", pp_serve_engine_names[sv->engine]);
	pp_json_num(j, "request_rate", r->rate, SIG);
	pp_json_str(j, "request_rate_from", rate_from);
	pp_json_num(j, "offered_request_rate", r->offered_rps, SIG);
	pp_json_int(j, "num_prompts", r->requests);
	pp_json_num(j, "mean_output_tokens", r->mean_output_tokens, SIG);
	pp_json_int(j, "seed", (int64_t)seed);
	cJSON *slo = pp_json_obj(j, "slo");
	pp_json_num(slo, "percentile", sv->slo_percentile, SIG);
	const char *k[4] = {"ttft_ms", "tpot_ms", "itl_ms", "e2el_ms"};
	double bd[4] = {sv->slo_ttft_s, sv->slo_tpot_s, sv->slo_itl_s, sv->slo_e2el_s};
	for (int i = 0; i < 4; i++)
		if (bd[i] > 0)
			pp_json_num(slo, k[i], bd[i] * 1e3, SIG);
	pp_json_num(j, "usd_per_gpu_hour", r->usd_per_gpu_hour, SIG);
	pp_json_str(j, "price_source", price_what);
	pp_json_str(j, "space", r->space);
	pp_json_str(j, "fixed", r->fixed);
	pp_json_bool(j, "exhaustive", exhaustive);
	cJSON *cnt = pp_json_obj(j, "layouts_by_status");
	pp_json_int(cnt, "total", r->nlayouts);
	for (int i = 0; i < PP_SPLAN_NSTATUS; i++)
		pp_json_int(cnt, pp_splan_status_names[i], r->count[i]);
	pp_json_int(j, "simulations", r->sims);
	pp_json_int(j, "alone_simulations", r->alone_sims);
	pp_json_int(j, "reused_simulations", r->reused);
	/* the only key that depends on the clock */
	pp_json_num(j, "elapsed_s", pp_round_us(r->elapsed_s), 15);
	if (r->pick >= 0) {
		const pp_splan_option *p = &r->opts[r->pick];
		cJSON *pk = pp_json_obj(j, "pick");
		option_json(pk, r, p, moe);
		pp_json_num(pk, "usd_per_million_output_tokens", usd_per_million_output(r, p), SIG);
		pp_json_num(pk, "output_tokens_per_s", r->offered_rps * r->mean_output_tokens, SIG);
		cJSON *sc = pp_serve_space_scenario(s, &r->layouts[p->layout].l, p->dp);
		pp_json_add(pk, "cluster", cJSON_DetachItemFromObjectCaseSensitive(sc, "cluster"));
		pp_json_add(pk, "serving", cJSON_DetachItemFromObjectCaseSensitive(sc, "serving"));
		cJSON_Delete(sc);
		pp_sb w = {0};
		explain(s, r, &w);
		pp_json_str(j, "why", w.buf);
		pp_sb_release(&w);
	} else {
		pp_json_null(j, "pick");
		pp_json_str(j, "why", "no option run meets the SLO at the target rate");
	}
	cJSON *ls = pp_json_arr(j, "layouts");
	for (int i = 0; i < r->nlayouts; i++) {
		const pp_splan_layout *L = &r->layouts[i];
		cJSON *o = pp_json_obj(ls, NULL);
		layout_keys(o, &L->l, moe);
		pp_json_str(o, "status", pp_splan_status_names[L->status]);
		pp_json_str(o, "why", L->why);
		pp_json_int(o, "kv_tokens", L->kv_tokens);
		if (L->max_num_seqs_run)
			pp_json_int(o, "max_num_seqs_run", L->max_num_seqs_run);
		pp_json_int(o, "simulations", L->sims);
		if (L->best >= 0)
			pp_json_int(o, "data_parallel_size", r->opts[L->best].dp);
		if (isfinite(L->alone_ttft_s)) {
			cJSON *a = pp_json_obj(o, "alone");
			pp_json_num(a, "ttft_ms", L->alone_ttft_s * 1e3, SIG);
			pp_json_num(a, "tpot_ms", L->alone_tpot_s * 1e3, SIG);
			pp_json_num(a, "e2el_ms", L->alone_e2el_s * 1e3, SIG);
		}
	}
	cJSON *ev = pp_json_arr(j, "evaluated");
	for (int i = 0; i < r->nopts; i++)
		option_json(pp_json_obj(ev, NULL), r, &r->opts[i], moe);
	pp_json_print(j, true, out);
	cJSON_Delete(j);
}

void pp_splan_to_csv(const pp_scenario *s, const pp_splan_result *r, pp_sb *out)
{
	pp_csvw w;
	pp_csvw_init(&w, out);
	pp_csvw_header(&w, "tensor_parallel_size,pipeline_parallel_size,enable_expert_parallel,"
			   "max_num_seqs,max_num_batched_tokens,data_parallel_size,num_gpus,usd_per_hour,"
			   "slo_met,headroom,ttft_ms,tpot_ms,itl_ms,e2el_ms,request_throughput,"
			   "output_throughput,preemptions,prefill_tensor_parallel_size,"
			   "prefill_data_parallel_size,pick");
	for (int i = 0; i < r->nopts; i++) {
		const pp_splan_option *x = &r->opts[i];
		const pp_serve_layout *l = &r->layouts[x->layout].l;
		pp_csvw_int(&w, l->tp);
		pp_csvw_int(&w, l->pp);
		if (s->model.num_experts > 0)
			pp_csvw_bool(&w, l->ep);
		else
			pp_csvw_empty(&w);
		pp_csvw_int(&w, l->max_num_seqs);
		pp_csvw_int(&w, l->max_num_batched_tokens);
		pp_csvw_int(&w, x->dp);
		pp_csvw_int(&w, x->gpus);
		pp_csvw_num(&w, x->usd_per_hour, SIG);
		pp_csvw_bool(&w, x->slo_met);
		pp_csvw_num(&w, x->headroom, SIG);
		pp_csvw_num(&w, x->ttft_s * 1e3, SIG);
		pp_csvw_num(&w, x->tpot_s * 1e3, SIG);
		pp_csvw_num(&w, x->itl_s * 1e3, SIG);
		pp_csvw_num(&w, x->e2el_s * 1e3, SIG);
		pp_csvw_num(&w, x->request_throughput, SIG);
		pp_csvw_num(&w, x->output_throughput, SIG);
		pp_csvw_int(&w, x->preemptions);
		if (l->disagg) {
			pp_csvw_int(&w, l->prefill_tp);
			pp_csvw_int(&w, l->prefill_dp);
		} else {
			pp_csvw_empty(&w);
			pp_csvw_empty(&w);
		}
		pp_csvw_bool(&w, i == r->pick);
		pp_csvw_end(&w);
	}
}
