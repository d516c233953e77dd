/*
 * costserve.c - an inference work's throughput on a cluster option from
 * podplan serve (costserve.h): one replica simulated per GPU, its rate at
 * the SLO, the replica time of an input and an output token, its KV cache
 * and its throughput-latency curve; the $ per 1M input and output tokens
 * of each option.
 */
#include "cost/costserve.h"
#include "calib/hwres.h"
#include "input/hw.h"
#include "input/servespec.h"
#include "serve/requests.h"
#include "serve/servesim.h"

#include <limits.h>
#include <math.h>

/* How much longer the prompts (then the outputs) are for their marginal
 * replica time: 50% (a step well above the max-rate search's 1%
 * resolution). */
static const double marginal_step = 0.5;

/* Rates of the curve, as multiples of the replica's max rate. */
static const double curve_at[] = {0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.25, 1.5};

/* A replica simulated on one GPU, pair of fabrics and node size. */
typedef struct cost_serve_memo {
	const pp_gpu *gpu;
	const pp_fabric *intra, *inter;
	int gpus_per_node;
	bool feasible;
	char why[256];
	pp_cost_serving sv;           /* the per-replica fields */
	double mean_in, mean_out;     /* tokens a request, as simulated */
	int64_t num_prompts;
	double mem_bytes, mem_capacity_bytes;
	double elapsed_s;
} cost_serve_memo;

/* rates at which a workload's requests are sent: requests/s, or for a
 * trace a factor on its own rate, whose requests/s are factor x unit */
typedef struct rates {
	double unit;                  /* requests/s at engine rate 1 */
} rates;

static double rps_of(const rates *u, double engine_rate)
{
	return engine_rate * u->unit;
}

static void point_of(const pp_serve_result *r, double rate_rps, pp_cost_serve_point *p)
{
	p->request_rate = rate_rps;
	p->request_throughput = r->request_throughput;
	p->output_throughput = r->output_throughput;
	p->ttft_s = r->ttft.pct;
	p->tpot_s = r->tpot.pct;
	p->itl_s = r->itl.pct;
	p->e2el_s = r->e2el.pct;
	p->slo_met = r->slo_met;
	p->not_sustained = r->not_sustained;
	p->capacity_rps = r->capacity_rps;
}

/* One replica's capacity under su's workload: the offline throughput,
 * the rate the SLO allows, the rate it is sized at (*cap, engine units),
 * the run there (*at) and the mean lengths. *met false: the SLO fails even
 * at 1% of the offline throughput. */
typedef struct capacity {
	double offline_rps, slo_rps, cap_rps, cap_rate;
	double mean_in, mean_out;
	bool met;
	pp_serve_result at;
	double at_rps;
} capacity;

static int capacity_of(const pp_serve_setup *su, const rates *u, uint64_t seed, capacity *k,
		       int *runs, pp_err *err)
{
	pp_serve_result off, best;
	int rc, n = 0;
	memset(k, 0, sizeof(*k));
	if ((rc = pp_serve_run(su, INFINITY, seed, &off, err)))
		return rc;
	(*runs)++;
	double done = off.completed > 0 ? (double)off.completed : 1;
	k->mean_in = (double)off.total_input_tokens / done;
	k->mean_out = (double)off.total_output_tokens / done;
	k->offline_rps = off.request_throughput;
	k->met = true;
	if (!su->sv.slo_present || !(u->unit > 0)) {
		/* no bound on latency (or a trace sent all at once): the
		 * replica completes what it completes offline */
		k->slo_rps = k->cap_rps = k->offline_rps;
		k->cap_rate = u->unit > 0 ? k->offline_rps / u->unit : INFINITY;
		k->at = off;
		k->at_rps = k->offline_rps;
		return 0;
	}
	double rate = 0;
	if ((rc = pp_serve_max_rate_from(su, seed, 0.01, &off, &rate, &best, &n, err)))
		return rc;
	*runs += n;
	if (!(rate > 0)) {
		k->met = false;
		k->at = best;
		k->at_rps = rps_of(u, best.request_rate);
		return 0;
	}
	k->slo_rps = isinf(rate) ? INFINITY : rps_of(u, rate);
	if (k->slo_rps <= k->offline_rps) {
		k->cap_rps = k->slo_rps;
		k->cap_rate = rate;
		k->at = best;
		k->at_rps = k->cap_rps;
		return 0;
	}
	/* the SLO holds past what the replica completes (or with every
	 * request at once): it is sized at its offline throughput, and the
	 * latency shown is the run at that rate */
	k->cap_rps = k->offline_rps;
	k->cap_rate = k->offline_rps / u->unit;
	if ((rc = pp_serve_run(su, k->cap_rate, seed, &k->at, err)))
		return rc;
	(*runs)++;
	k->at_rps = k->cap_rps;
	return 0;
}

/* The longest prompt (without its shared prefix) and output su's
 * workload draws, for the scale that keeps prompts within
 * max_model_len. */
static void longest(const pp_servespec *sv, double *in, double *out)
{
	/* a normal or lognormal length's tail taken to 3 standard deviations */
	*in = pp_servework_longest(sv, 0, 3);
	*out = pp_servework_longest(sv, 1, 3);
}

/* su's workload with every prompt (its own part, not a shared prefix; L =
 * 0) or every output (L = 1) f times as long: into *sv2 (a trace's rows
 * into *rows, heap, the caller frees). */
static void scaled_workload(const pp_servespec *sv, int which, double f, pp_servespec *sv2,
			    pp_trace_row **rows)
{
	*sv2 = *sv;
	*rows = NULL;
	if (sv->trace) {
		*rows = pp_xmalloc(sv->ntrace * sizeof(**rows));
		for (size_t i = 0; i < sv->ntrace; i++) {
			(*rows)[i] = sv->trace[i];
			int64_t *len = which ? &(*rows)[i].output_len : &(*rows)[i].input_len;
			*len = (int64_t)llround((double)*len * f);
		}
		sv2->trace = *rows;
		return;
	}
	pp_lendist *L = which ? &sv2->output : &sv2->input;
	L->mean *= f;
	L->stddev *= f;
	L->min = (int64_t)llround((double)L->min * f);
	L->max = (int64_t)fmin((double)sv->max_model_len - 1, (double)L->max * f);
	if (L->min > L->max)
		L->min = L->max;
}

/* The replica time one more input (which 0) or output (1) token takes at
 * the SLO: capacity again with those lengths f times as long (1 +
 * marginal_step, less when the longest request would pass max_model_len),
 * dT / dm; *f 1 and NAN when they cannot grow. A workload that then misses
 * the SLO at every rate counts at the lowest rate tried (an upper bound of
 * its capacity). */
static int marginal_s(const pp_serve_setup *su, const rates *u, const capacity *k0, int which,
		      double *f, double *dTdm, int *runs, pp_err *err)
{
	const pp_servespec *sp = &su->sv;
	double in_max, out_max;
	longest(sp, &in_max, &out_max);
	double room = (double)sp->max_model_len - 1 - (double)sp->prefix_len;
	double grow = which ? (room - in_max) / out_max : (room - out_max) / in_max;
	double m0 = which ? k0->mean_out : k0->mean_in;
	*f = fmin(1 + marginal_step, grow);
	*dTdm = NAN;
	if (!(*f >= 1.1) || !(m0 > 0)) {
		*f = 1;
		return 0;
	}
	pp_serve_setup su2 = *su;
	pp_trace_row *rows;
	capacity k;
	scaled_workload(sp, which, *f, &su2.sv, &rows);
	int rc = capacity_of(&su2, u, sp->seed, &k, runs, err);
	free(rows);
	if (rc)
		return rc;
	double cap = k.met ? k.cap_rps : k.at_rps;
	double dm = (which ? k.mean_out : k.mean_in) - m0;
	if (dm > 0 && cap > 0)
		*dTdm = fmax(0, (1 / cap - 1 / k0->cap_rps) / dm);
	return 0;
}

/* The replica of x's serving section on x's GPU: the spec re-derived for
 * that GPU (the engine's defaults depend on it), one replica (dp 1). */
static int setup_replica(ctx *c, const pp_scenario *x, pp_scenario *y, pp_hw *hw,
			 pp_serve_setup *su, bool *ok, char *why, size_t nwhy)
{
	pp_err e = {0};
	*ok = false;
	*y = *x;
	pp_cluster cl = x->cluster;
	cl.num_gpus = c->s->cluster.num_gpus; /* the deployment the section was checked on */
	int rc = pp_servespec_parse(&y->serve, &c->s->doc, &x->model, &cl, c->cat, &e);
	if (rc == PP_EINPUT) {
		snprintf(why, nwhy, "its GPU cannot run the serving section: %s", e.msg);
		return 0;
	}
	if (rc)
		return pp_errf(c->err, rc, "%s", e.msg);
	if ((rc = pp_hw_resolve(hw, c->cat, &y->cluster, c->hwcal, c->err)))
		goto fail;
	rc = pp_serve_setup_init(su, y, hw, &e);
	if (rc == PP_EINPUT) {
		snprintf(why, nwhy, "a serving replica does not fit: %s", e.msg);
		rc = 0;
		goto fail;
	}
	if (rc) {
		pp_errf(c->err, rc, "%s", e.msg);
		goto fail;
	}
	su->sv.dp = 1;
	su->pct_only = true; /* the cost reads each run's SLO percentiles alone */
	*ok = true;
	return 0;
fail:
	pp_servespec_release(&y->serve);
	return rc;
}

static void describe_slo(const pp_servespec *sv, const pp_serve_result *r, char *b, size_t n)
{
	snprintf(b, n, "p%g TTFT %.0f ms, TPOT %.1f ms, ITL %.1f ms, E2EL %.0f ms",
		 sv->slo_percentile, r->ttft.pct * 1e3, r->tpot.pct * 1e3, r->itl.pct * 1e3,
		 r->e2el.pct * 1e3);
}

/* The simulations one option's sizing may run (a bound: the offline run
 * is shared with pp_serve_max_rate_from, and its run at 1% is made only
 * when no probe meets the SLO): capacity_of (the offline run,
 * pp_serve_max_rate's probes at 1% and 150% and its bisection to 1% over
 * a factor of 150, about 8, and the run at the cap) and marginal_s's two
 * searches of the same kind. */
#define COST_SERVE_RUNS 40

/* Simulate the replica of option cluster x into m. */
static int measure(ctx *c, const pp_scenario *x, cost_serve_memo *m)
{
	pp_scenario y;
	pp_hw hw;
	pp_serve_setup su;
	bool ok;
	double t0 = pp_mono_s();
	int rc = setup_replica(c, x, &y, &hw, &su, &ok, m->why, sizeof(m->why));
	if (rc || !ok)
		return rc;
	pp_cost_serving *sv = &m->sv;
	const pp_servespec *sp = &su.sv;
	sv->simulated = true;
	snprintf(sv->engine, sizeof(sv->engine), "%s", pp_serve_engine_names[sp->engine]);
	sv->tp = sp->tp;
	sv->pp = sp->pp;
	sv->gpus_per_replica = pp_servespec_unit_gpus(sp); /* disaggregated: both pools, one unit */
	sv->kv_tokens = su.mem.kv_tokens;
	sv->num_gpu_blocks = su.mem.num_gpu_blocks;
	sv->max_concurrency = su.mem.max_concurrency;
	sv->kv_cache_bytes_per_gpu = su.mem.kv_cache_bytes;
	sv->weights_bytes_per_gpu = su.mem.weights_bytes;
	sv->memory_budget_bytes_per_gpu = su.mem.budget_bytes;
	m->mem_bytes = su.mem.weights_bytes + su.mem.activation_bytes + su.mem.sampler_bytes +
		       su.mem.reserve_bytes + su.mem.kv_cache_bytes;
	m->mem_capacity_bytes = su.mem.device_bytes;
	m->num_prompts = sp->trace ? (int64_t)sp->ntrace : sp->num_prompts;
	rates u = {1};
	if (sp->trace) {
		double span = sp->ntrace > 1 ? sp->trace[sp->ntrace - 1].arrival_s - sp->trace[0].arrival_s
					     : 0;
		u.unit = span > 0 ? (double)(sp->ntrace - 1) / span : 0;
	}
	uint64_t seed = sp->seed;
	capacity k0;
	/* the sizing below runs up to COST_SERVE_RUNS simulations: bounded
	 * before the first (requests.h) */
	if ((rc = pp_serve_check_work(sp, sp->dp, COST_SERVE_RUNS, c->err)))
		goto out;
	if ((rc = capacity_of(&su, &u, seed, &k0, &sv->runs, c->err)))
		goto out;
	m->mean_in = k0.mean_in;
	m->mean_out = k0.mean_out;
	if (!k0.met) {
		char got[160];
		describe_slo(sp, &k0.at, got, sizeof(got));
		snprintf(m->why, sizeof(m->why), "a replica (TP %d x PP %d) misses the SLO even at "
			 "%.3g requests/s, 1%% of what it completes at once: %s", sp->tp, sp->pp,
			 k0.at_rps, got);
		goto out;
	}
	sv->offline_rps = k0.offline_rps;
	sv->slo_rate_rps = k0.slo_rps;
	sv->max_rate_rps = k0.cap_rps;
	sv->input_tokens_per_s = k0.cap_rps * k0.mean_in;
	sv->output_tokens_per_s = k0.cap_rps * k0.mean_out;
	point_of(&k0.at, k0.at_rps, &sv->at_max);
	/* the replica time of an input and of an output token: the marginal
	 * time of each (the same search with longer prompts, then longer
	 * outputs), a request's time T0 split in proportion to them */
	double T0 = 1 / k0.cap_rps, a, b;
	if ((rc = marginal_s(&su, &u, &k0, 0, &sv->input_scale, &a, &sv->runs, c->err)) ||
	    (rc = marginal_s(&su, &u, &k0, 1, &sv->output_scale, &b, &sv->runs, c->err)))
		goto out;
	double ti = a * k0.mean_in, to = b * k0.mean_out;
	double share = isfinite(ti) && isfinite(to) && ti + to > 0
		? ti / (ti + to) : k0.mean_in / (k0.mean_in + k0.mean_out); /* tokens alike */
	sv->s_per_input_token = k0.mean_in > 0 ? share * T0 / k0.mean_in : 0;
	sv->s_per_output_token = k0.mean_out > 0 ? (1 - share) * T0 / k0.mean_out : 0;
	if (c->opts && c->opts->serve_curve && isfinite(k0.cap_rate)) {
		for (size_t i = 0; i < PP_ARRAY_LEN(curve_at) && sv->ncurve < PP_COST_CURVE_MAX; i++) {
			pp_serve_result r;
			double rate = curve_at[i] * k0.cap_rate;
			if (curve_at[i] == 1.0) {
				sv->curve[sv->ncurve++] = sv->at_max;
				continue;
			}
			if ((rc = pp_serve_run(&su, rate, seed, &r, c->err)))
				goto out;
			sv->runs++;
			/* a point past what the replica completes at once is a
			 * burst it drained: no SLO verdict there (issue 31) */
			pp_serve_judge_sustained(&r, k0.offline_rps);
			point_of(&r, rps_of(&u, rate), &sv->curve[sv->ncurve++]);
		}
	}
	m->feasible = true;
out:
	m->elapsed_s = pp_mono_s() - t0;
	pp_serve_setup_release(&su);
	pp_servespec_release(&y.serve);
	return rc;
}

/* The memo of x's GPU, fabrics and node size, simulated on first use. */
static int memo_of(ctx *c, const pp_scenario *x, cost_serve_memo **out)
{
	const pp_cluster *cl = &x->cluster;
	for (int i = 0; i < c->nserve_memo; i++) {
		cost_serve_memo *m = &c->serve_memo[i];
		if (m->gpu == cl->gpu && m->intra == cl->intra && m->inter == cl->inter &&
		    m->gpus_per_node == cl->gpus_per_node) {
			*out = m;
			return 0;
		}
	}
	c->serve_memo = pp_xrealloc(c->serve_memo, (size_t)(c->nserve_memo + 1) * sizeof(*c->serve_memo));
	cost_serve_memo *m = &c->serve_memo[c->nserve_memo++];
	memset(m, 0, sizeof(*m));
	m->gpu = cl->gpu;
	m->intra = cl->intra;
	m->inter = cl->inter;
	m->gpus_per_node = cl->gpus_per_node;
	if (c->opts && c->opts->progress) {
		char what[96];
		snprintf(what, sizeof(what), "%s, TP %d x PP %d", cl->gpu->id, c->s->serve.tp,
			 c->s->serve.pp);
		c->opts->progress(c->opts->progress_ctx, what);
	}
	int rc = measure(c, x, m);
	c->r->inference.simulations += m->sv.runs;
	c->r->inference.serve_elapsed_s += m->elapsed_s;
	*out = m;
	return rc;
}

/* A typed-in throughput (no serving section): the user's tokens/s per GPU,
 * input and output alike; FP8 weights (1 byte a parameter) of one copy
 * must fit in 90% of its GPUs' memory. */
static void typed_throughput(ctx *c, const pp_costspec_option *sp, oin *o)
{
	o->tokens_per_s = sp->inference_tokens_per_s_per_gpu * o->num_gpus;
	o->w_in = o->w_out = 1;
	o->mem_capacity_bytes = o->gpu->mem_bytes;
	o->mem_bytes = c->model_params / o->num_gpus;
	char item[160];
	snprintf(item, sizeof(item), "option %s inference_tokens_per_s_per_gpu (typed in)",
		 sp->name);
	cost_add_source(c, item, sp->inference_tokens_per_s_per_gpu, "tokens_per_s",
			"scenario file", "prices", c->r->as_of, false);
	if (o->mem_bytes > o->mem_capacity_bytes * 0.9) {
		o->feasible = false;
		snprintf(o->why, sizeof(o->why), "does not fit: %.0f GiB of FP8 weights on %d x "
			 "%.0f GiB", c->model_params / PP_GIB, o->num_gpus,
			 o->mem_capacity_bytes / PP_GIB);
	}
}

int cost_serve_throughput(ctx *c, const pp_costspec_option *sp, const pp_scenario *x, oin *o,
			  pp_cost_option *out)
{
	const pp_jdoc *d = &c->s->doc;
	char path[96];
	o->num_gpus = x->cluster.num_gpus;
	o->gpus_per_node = x->cluster.gpus_per_node;
	o->nodes = pp_cluster_nodes(&x->cluster);
	o->gpu = x->cluster.gpu;
	bool typed = !isnan(sp->inference_tokens_per_s_per_gpu);
	if (!c->s->serve.present) {
		if (!typed)
			return pp_jdoc_errf(d, c->err, sp->path, "option \"%s\": an inference work needs "
					    "the scenario's \"serving\" section (podplan serve "
					    "simulates the throughput at the \"slo\"), or the option's "
					    "\"inference_tokens_per_s_per_gpu\"", sp->name);
		typed_throughput(c, sp, o);
		return 0;
	}
	if (typed)
		return pp_jdoc_errf(d, c->err,
				    pp_jpath(path, sizeof(path), sp->path,
					     "inference_tokens_per_s_per_gpu"),
				    "found beside the scenario's \"serving\" section, which simulates "
				    "the throughput; expected one of them (drop the key, or the "
				    "section)");
	int per = pp_servespec_unit_gpus(&c->s->serve);
	if (o->num_gpus % per)
		return pp_jdoc_errf(d, c->err, sp->path, "option \"%s\": %d GPUs do not hold whole "
				    "serving replicas of %d GPUs (tensor %d x pipeline %d%s); expected "
				    "a multiple of %d (set the option's cluster.num_gpus)",
				    sp->name, o->num_gpus, per, c->s->serve.tp, c->s->serve.pp,
				    c->s->serve.disagg.present ? ", both disaggregated pools" : "",
				    per);
	cost_serve_memo *m;
	int rc = memo_of(c, x, &m);
	if (rc)
		return rc;
	out->serving = m->sv;
	out->serving.replicas_per_cluster = o->num_gpus / per;
	o->mem_bytes = m->mem_bytes;
	o->mem_capacity_bytes = m->mem_capacity_bytes;
	if (!m->feasible) {
		o->feasible = false;
		snprintf(o->why, sizeof(o->why), "%s", m->why);
		return 0;
	}
	const pp_cost_serving *sv = &m->sv;
	double mix = m->mean_in + m->mean_out; /* tokens a request */
	o->tokens_per_s = out->serving.replicas_per_cluster * sv->max_rate_rps * mix;
	o->w_in = sv->s_per_input_token * sv->max_rate_rps * mix;
	o->w_out = sv->s_per_output_token * sv->max_rate_rps * mix;
	return 0;
}

void cost_serve_split(const ctx *c, const oin *o, double usd_total, pp_cost_option *out)
{
	out->usd_per_million_input_tokens = out->usd_per_million_output_tokens = NAN;
	if (c->work != PP_WORK_INFERENCE)
		return;
	if (o->kind == PP_OPT_API) {
		out->usd_per_million_input_tokens = o->api_usd_per_1m_input;
		out->usd_per_million_output_tokens = o->api_usd_per_1m_output;
		return;
	}
	double in = c->input_tokens_per_month, ou = c->output_tokens_per_month;
	double H = c->horizon_months;
	double wi = o->w_in * in, wo = o->w_out * ou;
	double share = wi + wo > 0 ? wi / (wi + wo) : 0;
	pp_cost_serving *sv = &out->serving;
	sv->input_cost_share = share;
	if (!o->feasible)
		return;
	out->usd_per_million_input_tokens = in > 0 ? usd_total * share / (in * H / 1e6) : NAN;
	out->usd_per_million_output_tokens = ou > 0 ? usd_total * (1 - share) / (ou * H / 1e6) : NAN;
	if (sv->simulated && sv->max_rate_rps > 0) {
		/* the busiest hour at the workload's mix, and the replicas for it */
		const pp_cost_inference *inf = &c->r->inference;
		double mix = inf->mean_input_len + inf->mean_output_len;
		double teq = wi + wo; /* sizing tokens a month */
		sv->peak_rps = mix > 0 ? teq / mix / PP_SECONDS_PER_MONTH * c->inference_peak_to_average
				       : NAN;
		double need = fmax(1, ceil(sv->peak_rps / sv->max_rate_rps - 1e-9));
		sv->replicas_needed = need < INT_MAX ? (int)need : INT_MAX; /* cost.c refuses past PP_COST_MAX_GPUS */
	}
}

void cost_serve_describe(ctx *c, const oin *oi, int n)
{
	pp_cost_inference *inf = &c->r->inference;
	if (c->work != PP_WORK_INFERENCE)
		return;
	const pp_servespec *sv = &c->s->serve;
	inf->present = true;
	inf->simulated = sv->present;
	inf->input_tokens_per_month = c->input_tokens_per_month;
	inf->output_tokens_per_month = c->output_tokens_per_month;
	inf->peak_to_average = c->inference_peak_to_average;
	inf->slo_present = sv->slo_present;
	inf->slo_ttft_s = sv->slo_ttft_s;
	inf->slo_tpot_s = sv->slo_tpot_s;
	inf->slo_itl_s = sv->slo_itl_s;
	inf->slo_e2el_s = sv->slo_e2el_s;
	inf->slo_percentile = sv->slo_present ? sv->slo_percentile : 0;
	for (int i = 0; i < c->nserve_memo; i++)
		if (c->serve_memo[i].mean_in + c->serve_memo[i].mean_out > 0) {
			inf->mean_input_len = c->serve_memo[i].mean_in;
			inf->mean_output_len = c->serve_memo[i].mean_out;
			inf->num_prompts = c->serve_memo[i].num_prompts;
			break;
		}
	double mix = inf->mean_input_len + inf->mean_output_len;
	if (mix > 0)
		inf->requests_per_month = c->tokens_per_month / mix;
	if (sv->present && !sv->slo_present)
		cost_warnf(c, "the scenario has no \"slo\": each serving replica is sized at what it "
			   "completes with every request sent at once, with no bound on latency");
	double vin = c->input_tokens_per_month, vout = c->output_tokens_per_month;
	if (mix > 0 && vin + vout > 0) {
		double want = inf->mean_input_len / mix, got = vin / (vin + vout);
		if (fabs(got - want) > 0.05)
			cost_warnf(c, "the volume is %.0f%% input tokens, the workload's request mix "
				   "(%.0f in / %.0f out a request) %.0f%%: the replicas are sized by the "
				   "replica time each token takes at the mix, which holds only near it",
				   100 * got, inf->mean_input_len, inf->mean_output_len, 100 * want);
	}
	for (int i = 0; i < n; i++)
		if (oi[i].kind != PP_OPT_API && !sv->present)
			cost_warnf(c, "option \"%s\": throughput is the scenario's typed-in "
				   "inference_tokens_per_s_per_gpu (%.4g tokens/s per GPU, input and "
				   "output tokens alike), not simulated; a \"serving\" section with "
				   "a \"workload\" and an \"slo\" would simulate it (podplan serve)",
				   c->r->options[i].name, oi[i].spec->inference_tokens_per_s_per_gpu);
}
