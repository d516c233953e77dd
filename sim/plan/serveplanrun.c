/* serveplanrun.c - see serveplanint.h: the runs a serve --search asks
 * for, each simulated as `podplan serve` runs it or reused from an earlier
 * run that makes the same decisions, and judged as
 * pp_serve_check_sustained judges a run. */
#include "plan/serveplanint.h"
#include "input/prices.h"
#include "serve/servesim.h"
#include "core/util.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What the search reads of one run (pp_serve_result's figures). */
typedef struct runfig {
	bool slo_met, stopped;
	double ttft_s, tpot_s, itl_s, e2el_s;
	double request_throughput, output_throughput, offered_rps;
	double mean_transfer_s, transfer_ttft_share;
	int64_t preemptions;
	int64_t peak_running, peak_kv;
} runfig;

/* A run another layout may reuse (reuse()): vLLM, co-located, no shared
 * prefix; its layout's keys but max_num_seqs, the rate (INFINITY: the
 * sustained check's all-at-once run), whether it could stop, and the
 * scheduler's limits it ran under. */
typedef struct pp_splan_memo {
	int tp, pp, ep, dp;
	double rate;
	bool stop;
	int64_t tokens, graph, seqs, blocks;
	runfig f;
} memo;

void pp_splan_report(pp_splan_ctx *c)
{
	if (!c->o->progress)
		return;
	pp_splan_progress p = {c->done, c->r->nlayouts, c->r->sims + c->r->alone_sims,
			       c->best_gpus == INT_MAX ? 0 : c->best_gpus, pp_mono_s() - c->t0};
	c->o->progress(&p, c->o->progress_ctx);
}

/* Whether the candidate's runs may be reused: vLLM co-located without a
 * shared prefix in its prefix cache (the only pool state a run reads
 * besides whether blocks are free). */
static bool reusable(const pp_splan_ctx *c, const pp_serve_cand *cd, const pp_splan_layout *L)
{
	const pp_servespec *sv = &cd->su.sv;
	return !c->o->exhaustive && sv->engine == PP_ENG_VLLM && !L->l.disagg &&
	       !(sv->prefix_len > 0 && sv->prefix_caching);
}

/* An earlier run that is this one: a layout alike but for max_num_seqs
 * and the KV blocks (the scheduler's only reads of either are "running <
 * max_num_seqs" at admission and whether blocks are free), whose run
 * never had max_num_seqs requests running nor asked for more blocks than
 * either pool has, makes the same decisions at every step under either
 * setting: its figures are this run's. NULL if none. */
static const runfig *reuse(const pp_splan_ctx *c, const pp_serve_cand *cd, const pp_splan_layout *L,
			   int dp, double rate, bool stop)
{
	const pp_servespec *sv = &cd->su.sv;
	if (!reusable(c, cd, L))
		return NULL;
	for (int i = 0; i < c->nmemos; i++) {
		const memo *m = &c->memos[i];
		if (m->tp != L->l.tp || m->pp != L->l.pp || m->ep != L->l.ep || m->dp != dp ||
		    m->rate != rate || m->stop != stop || m->tokens != sv->max_num_batched_tokens ||
		    m->graph != sv->cudagraph_max)
			continue;
		if (m->f.peak_running >= m->seqs || m->f.peak_running >= sv->max_num_seqs ||
		    m->f.peak_kv > m->blocks || m->f.peak_kv > cd->su.mem.num_gpu_blocks)
			continue;
		return &m->f;
	}
	return NULL;
}

/* Layout li (set up in cd) at dp replicas and rate into *f, reused or
 * simulated (*sims counts the latter); stop: stop the run once the SLO is
 * certainly missed. 0 or a negative error. */
static int run_fig(pp_splan_ctx *c, pp_serve_cand *cd, int li, int dp, double rate, bool stop,
		   runfig *f, int *sims, pp_err *err)
{
	pp_splan_layout *L = &c->r->layouts[li];
	const runfig *old = reuse(c, cd, L, dp, rate, stop);
	if (old) {
		*f = *old;
		c->r->reused++;
		return 0;
	}
	pp_serve_setup su = cd->su; /* the same replica (its forward and memory), dp of them */
	su.sv.dp = dp;
	if (su.disagg) { /* dp decode instances beside the layout's prefill pool */
		su.pool[PP_POOL_DECODE].sv.dp = dp;
		su.xfer_same_node =
			L->fixed_gpus + L->gpus * dp <= pp_cluster_domain_gpus(&c->s->cluster);
	}
	su.progress = NULL;
	su.keep_requests = false;
	su.stop_when_missed = stop ? PP_SERVE_STOP_FACTOR : 0;
	pp_serve_result x;
	int rc = pp_serve_run(&su, rate, c->o->seed, &x, err);
	if (rc)
		return rc;
	(*sims)++;
	*f = (runfig){x.slo_met, x.stopped, x.ttft.pct, x.tpot.pct, x.itl.pct, x.e2el.pct,
		      x.request_throughput, x.output_throughput, x.offered_rps, x.mean_transfer_s,
		      x.transfer_ttft_share, x.preemptions, x.peak_running, x.peak_kv_demand};
	pp_serve_result_release(&x);
	if (reusable(c, cd, L)) {
		const pp_servespec *sv = &cd->su.sv;
		c->memos = pp_xrealloc(c->memos, sizeof(memo) * (size_t)(c->nmemos + 1));
		c->memos[c->nmemos++] = (memo){L->l.tp, L->l.pp, L->l.ep, dp, rate, stop,
					       sv->max_num_batched_tokens, sv->cudagraph_max,
					       sv->max_num_seqs, cd->su.mem.num_gpu_blocks, *f};
	}
	return 0;
}

static double headroom_of(const pp_servespec *sv, const runfig *x)
{
	double h = INFINITY;
	const double b[4] = {sv->slo_ttft_s, sv->slo_tpot_s, sv->slo_itl_s, sv->slo_e2el_s};
	const double v[4] = {x->ttft_s, x->tpot_s, x->itl_s, x->e2el_s};
	for (int i = 0; i < 4; i++)
		if (b[i] > 0 && 1 - v[i] / b[i] < h)
			h = 1 - v[i] / b[i];
	return h;
}

/* Layout li (set up in cd) at op->dp replicas into op (its layout, dp
 * and gpus set), judged as pp_serve_check_sustained judges a run: a met
 * run below PP_SERVE_SUSTAINED of the offered rate must complete that
 * rate with every request sent at once. The simulations run, or a
 * negative error. */
static int simulate(pp_splan_ctx *c, pp_serve_cand *cd, int li, bool stop, pp_splan_option *op,
		    pp_err *err)
{
	pp_splan_result *r = c->r;
	int sims = 0;
	runfig x;
	int rc = run_fig(c, cd, li, op->dp, r->rate, stop, &x, &sims, err);
	if (rc)
		return rc;
	op->slo_met = x.slo_met;
	op->stopped = x.stopped;
	op->headroom = headroom_of(&cd->su.sv, &x);
	op->capacity_rps = NAN;
	if (x.slo_met && isfinite(x.offered_rps) &&
	    !(x.request_throughput >= PP_SERVE_SUSTAINED * x.offered_rps)) {
		runfig cap;
		if ((rc = run_fig(c, cd, li, op->dp, INFINITY, false, &cap, &sims, err)))
			return rc;
		if (cap.request_throughput < x.offered_rps) {
			/* a drained burst is not the rate kept up: no verdict, no price */
			op->slo_met = false;
			op->capacity_rps = cap.request_throughput;
			op->headroom = cap.request_throughput / r->offered_rps - 1;
		}
	}
	op->ttft_s = x.ttft_s;
	op->tpot_s = x.tpot_s;
	op->itl_s = x.itl_s;
	op->e2el_s = x.e2el_s;
	op->request_throughput = x.request_throughput;
	op->output_throughput = x.output_throughput;
	op->preemptions = x.preemptions;
	op->mean_transfer_s = x.mean_transfer_s;
	op->transfer_ttft_share = x.transfer_ttft_share;
	return sims;
}

int pp_splan_run_at(pp_splan_ctx *c, pp_serve_cand *cd, int li, int dp, pp_err *err)
{
	pp_splan_result *r = c->r;
	pp_splan_layout *L = &r->layouts[li];
	if (r->nopts == c->capopts) {
		c->capopts = c->capopts ? 2 * c->capopts : 64;
		r->opts = pp_xrealloc(r->opts, sizeof(*r->opts) * (size_t)c->capopts);
	}
	pp_splan_option *op = &r->opts[r->nopts];
	memset(op, 0, sizeof(*op));
	op->layout = li;
	op->dp = dp;
	op->gpus = L->fixed_gpus + L->gpus * dp;
	op->usd_per_hour = isfinite(c->o->usd_per_gpu_hour)
				   ? pp_price_rent_usd(c->o->usd_per_gpu_hour, op->gpus, 3600)
				   : NAN;
	int rc = simulate(c, cd, li, !c->o->exhaustive, op, err);
	if (rc < 0)
		return rc;
	r->sims += rc;
	L->sims += rc > 0;
	pp_splan_report(c);
	return r->nopts++;
}

int pp_splan_run_whole(pp_splan_ctx *c, const pp_catalog *cat, int q, pp_err *err)
{
	pp_splan_option *op = &c->r->opts[q];
	pp_splan_layout *L = &c->r->layouts[op->layout];
	pp_serve_cand cd;
	int verdict;
	char why[320];
	int rc = pp_serve_cand_init(&cd, c->s, cat, c->o->hwcal, &L->l, &verdict, why, sizeof(why),
				    err);
	if (!rc && verdict == PP_CAND_OK && (rc = simulate(c, &cd, op->layout, false, op, err)) > 0) {
		c->r->sims += rc;
		L->sims++;
		rc = 0;
	}
	pp_serve_cand_release(&cd);
	return rc < 0 ? rc : 0;
}

