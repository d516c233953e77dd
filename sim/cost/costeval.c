/*
 * costeval.c - pricing one resolved option over the monthly schedule
 * (costeval.h): a closed form that Monte Carlo and the tornado re-run per
 * draw; the Monte Carlo draws; the one-at-a-time tornado.
 */
#include "cost/costeval.h"
#include "core/dist.h"

const draw cost_base_draw = {1, 1, 1, 1, 1, 1};

/* ---- evaluation: one option, one set of inputs ---- */

static double overlap(double a0, double a1, double b0, double b1)
{
	double lo = fmax(a0, b0), hi = fmin(a1, b1);
	return hi > lo ? hi - lo : 0;
}

double cost_residual_fraction(const ctx *c, double age_years, double haircut)
{
	if (c->residual_book == 1)
		return pp_fin_book_value(1.0, c->salvage_fraction, c->depreciation_years,
					 age_years);
	return pp_fin_market_value(1.0, c->market_decay_ooms_per_year, age_years) * (1.0 - haircut);
}


void cost_eval_prepare(ctx *c)
{
	pp_fin_annuity_init(&c->life_annuity, c->discount_rate_per_year, c->depreciation_years);
	c->life_residual = cost_residual_fraction(c, c->depreciation_years, c->resale_haircut);
}

/* API option: tokens x the price per token, paid as the tokens are used. */
static void evaluate_api(const ctx *c, const oin *o, const draw *d, ev *e, double *cum, int cum_n)
{
	double H = c->horizon_months;
	double per_month = 0, total_tok = 0;
	switch (c->work) {
	case PP_WORK_RUN:
		total_tok = c->runs * c->train_tokens;
		break;
	case PP_WORK_RECURRING:
		per_month = c->jobs_per_month * c->tokens_per_job * d->demand;
		break;
	case PP_WORK_CAPACITY:
		per_month = c->capacity_tokens_per_month * d->demand;
		break;
	default:
		per_month = c->tokens_per_month * d->demand;
	}
	double price = o->api_usd_per_1m_tokens * d->price / 1e6;
	double win = c->work == PP_WORK_RUN ? (c->horizon_given ? H : 1) : H;
	e->window_months = win;
	e->nmonths = (int)ceil(win - 1e-9);
	if (c->work == PP_WORK_RUN) {
		e->tokens = total_tok;
		e->comp_usd[PP_CC_API] = total_tok * price;
	} else {
		e->tokens = per_month * H;
		e->comp_usd[PP_CC_API] = e->tokens * price;
	}
	e->total_usd = e->marginal_usd = e->amortized_usd = e->comp_usd[PP_CC_API];
	e->replicas = 1;
	if (cum) {
		for (int m = 0; m < cum_n; m++) {
			double upto = c->work == PP_WORK_RUN ? (m >= 1 ? total_tok : 0)
							     : per_month * fmin((double)m, H);
			cum[m] = upto * price;
		}
	}
}

/* o's goodput inputs under d (goodput.h), every byte set: two options
 * whose inputs compare equal under one draw do under every draw (only the
 * failure rate is drawn, the same for every option). */
static void goodput_in_of(const ctx *c, const oin *o, const draw *d, pp_goodput_in *gi)
{
	memset(gi, 0, sizeof(*gi));
	gi->failures_per_gpu_hour = c->failures_per_gpu_hour * d->failures;
	gi->num_gpus = o->num_gpus;
	gi->nodes = o->nodes;
	gi->spot_per_node_hour = o->tier == TIER_SPOT ? c->spot_interruptions_per_node_hour : 0;
	gi->checkpoint_write_s = isnan(c->checkpoint_write_s) ? o->checkpoint_write_s
							      : c->checkpoint_write_s;
	gi->restart_s = c->restart_s + o->checkpoint_load_s +
			(o->tier == TIER_SPOT ? c->spot_reacquire_s : 0);
	gi->checkpoint_interval_s = isnan(c->checkpoint_interval_s) ? 0 : c->checkpoint_interval_s;
}

/* Useful fraction of o's wall time under d (failures, checkpoints,
 * restarts, spot interruptions; goodput.h); 1 without goodput and for
 * inference. Sets e->goodput and e->checkpoint_interval_s. known: the
 * goodput of an option with the same inputs under d (goodput_in_of), or
 * NULL; made, when not NULL: o's goodput, for the options after it. */
static void cluster_goodput(const ctx *c, const oin *o, const draw *d, bool with_goodput,
			    const pp_goodput *known, pp_goodput *made, ev *e)
{
	double g = 1;
	if (with_goodput && c->goodput_on && c->work != PP_WORK_INFERENCE) {
		pp_goodput gp;
		if (known) {
			gp = *known;
		} else {
			pp_goodput_in gi;
			goodput_in_of(c, o, d, &gi);
			pp_goodput_eval(&gi, &gp);
		}
		if (made)
			*made = gp;
		g = gp.goodput;
		e->checkpoint_interval_s = gp.interval_s;
	}
	e->goodput = g;
}

/* What the monthly schedule of a cluster option needs under one draw.
 * Months count from the order (owned: the lead time comes first). */
typedef struct sched {
	double busy_total_s;         /* PP_WORK_RUN: cluster-seconds of every run */
	double busy_per_month_s;     /* other works: cluster-seconds of busy time a month */
	double replicas;             /* clusters needed to keep up */
	double lead_months, work_end_months, window_months;
	int nmonths;
	double gpus, nodes_all;      /* one replica's GPUs; every replica's nodes */
	bool reserved;
	double usd_per_gpu_hour;     /* drawn */
	double kw_active, kw_idle;   /* one server training, idle */
	double usd_per_kwh;          /* drawn */
	double servers_usd, network_usd, storage_usd, hw_capex_usd, integration_usd; /* owned */
	double kw_provisioned;       /* servers and switches of every replica */
} sched;

/* The work's demand at throughput eff (tokens/s with goodput) as busy
 * cluster time and replicas; sets e's time to train and tokens. */
static void work_demand(const ctx *c, const oin *o, const draw *d, double eff, ev *e, sched *s)
{
	double month_s = PP_SECONDS_PER_MONTH, H = c->horizon_months;
	double busy_total = 0, busy_pm = 0, replicas = 1;
	switch (c->work) {
	case PP_WORK_RUN: {
		double job = c->train_tokens / eff + c->job_setup_s;
		busy_total = c->runs * job;
		e->time_to_train_s = job;
		e->tokens = c->runs * c->train_tokens;
		break;
	}
	case PP_WORK_RECURRING: {
		double job = c->tokens_per_job / eff + c->job_setup_s;
		busy_pm = c->jobs_per_month * d->demand * job;
		e->time_to_train_s = job;
		e->tokens = H * c->jobs_per_month * d->demand * c->tokens_per_job;
		break;
	}
	case PP_WORK_CAPACITY:
		busy_pm = c->capacity_tokens_per_month * d->demand / eff;
		e->tokens = H * c->capacity_tokens_per_month * d->demand;
		if (c->train_tokens > 0) /* time of one run of training.train_tokens */
			e->time_to_train_s = c->train_tokens / eff + c->job_setup_s;
		break;
	default: {
		/* sizing tokens/s of one copy of the cluster against the busiest
		 * hour's (costserve.h) */
		double capacity = eff;
		double sized = o->w_in * c->input_tokens_per_month + o->w_out * c->output_tokens_per_month;
		double peak = sized * d->demand / month_s * c->inference_peak_to_average;
		replicas = capacity > 0 ? fmax(1, ceil(peak / capacity - 1e-9)) : 1;
		busy_pm = replicas * month_s;
		e->tokens = H * c->tokens_per_month * d->demand;
	}
	}
	if (c->work == PP_WORK_RECURRING || c->work == PP_WORK_CAPACITY)
		replicas = fmax(1, ceil(busy_pm / month_s - 1e-9));
	e->replicas = replicas;
	s->busy_total_s = busy_total;
	s->busy_per_month_s = busy_pm;
	s->replicas = replicas;
}

/* The window, the drawn prices and the owned capex of s. */
static void schedule_of(const ctx *c, const oin *o, const draw *d, ev *e, sched *s)
{
	double H = c->horizon_months;
	double lead = o->owned ? o->lead_time_months : 0;
	double work_end = c->work == PP_WORK_RUN ? lead + s->busy_total_s / PP_SECONDS_PER_MONTH
						 : lead + H;
	double win = c->work == PP_WORK_RUN ? (c->horizon_given ? fmax(H, work_end) : work_end)
					    : lead + H;
	s->lead_months = lead;
	s->work_end_months = work_end;
	s->window_months = e->window_months = win;
	double nmd = ceil(win - 1e-9);
	/* past the longest schedule (price_base_case: cannot do the work) the
	 * months are not walked, and never past an int */
	int nm = nmd < 1 ? 1 : nmd > PP_COST_MAX_MONTHS ? PP_COST_MAX_MONTHS + 1 : (int)nmd;
	s->nmonths = e->nmonths = nm;
	s->gpus = o->num_gpus;
	s->nodes_all = o->nodes * s->replicas;
	s->reserved = o->tier == TIER_R1 || o->tier == TIER_R3;
	s->usd_per_gpu_hour = o->usd_per_gpu_hour * d->price;
	s->kw_active = o->server_kw * c->active_draw_fraction;
	s->kw_idle = o->server_kw * c->idle_draw_fraction;
	s->usd_per_kwh = c->usd_per_kwh * d->electricity;
	s->servers_usd = s->network_usd = s->storage_usd = s->hw_capex_usd = s->integration_usd = 0;
	if (o->owned) {
		s->servers_usd = o->server_usd * o->num_servers * s->replicas * d->capex;
		s->network_usd = o->network_usd * s->replicas;
		s->storage_usd = o->storage_tb * c->storage_buy_usd_per_tb;
		s->hw_capex_usd = s->servers_usd + s->network_usd + s->storage_usd;
		s->integration_usd = s->hw_capex_usd * c->integration_fraction;
	}
	s->kw_provisioned = (o->server_kw * o->nodes + o->switch_kw) * s->replicas;
}

/* Month m's costs (m = 1..nmonths, a = the part of the month in the
 * window) of a rented option into e's components; its total. */
static double rent_month(const ctx *c, const oin *o, const sched *s, double gpu_h, double a,
			 ev *e)
{
	double rate = s->usd_per_gpu_hour;
	double st = o->storage_tb * c->storage_rent_usd_per_tb_month * a;
	double sf = o->staff_fte * s->replicas * c->staff_usd_per_fte_year / 12.0 * a;
	double month_cost = 0;
	e->comp_usd[PP_CC_STORAGE] += st;
	e->comp_usd[PP_CC_STAFF] += sf;
	month_cost += st + sf;
	if (!s->reserved) { /* a commitment's cash is its payment schedule (commit_cash) */
		e->comp_usd[PP_CC_GPU_TIME] += gpu_h * rate;
		e->marginal_usd += gpu_h * rate;
		month_cost += gpu_h * rate;
	}
	return month_cost;
}

/* The same for an owned option over [t0, t1) with busy cluster-seconds
 * busy: energy, colocation, support and staff. */
static double own_month(const ctx *c, const oin *o, const sched *s, double t0, double t1,
			double a, double busy, ev *e)
{
	double month_h = PP_HOURS_PER_MONTH;
	double dl = overlap(s->lead_months, s->window_months, t0, t1);
	double avail_node_h = dl * month_h * s->nodes_all;
	double act_node_h = busy / 3600.0 * o->nodes;
	if (act_node_h > avail_node_h)
		act_node_h = avail_node_h;
	double kwh = (act_node_h * s->kw_active + (avail_node_h - act_node_h) * s->kw_idle +
		      o->switch_kw * s->replicas * dl * month_h) * c->pue;
	double fac = kwh * s->usd_per_kwh;
	if (c->facility_owned == 0)
		fac += s->kw_provisioned * c->colo_usd_per_kw_month * dl;
	double sup =
		(c->support_fraction_per_year * (s->servers_usd + s->network_usd + s->storage_usd) +
		 c->software_usd_per_gpu_year * s->gpus * s->replicas) *
		dl / 12.0;
	double sf = o->staff_fte * s->replicas * c->staff_usd_per_fte_year / 12.0 * a;
	e->comp_usd[PP_CC_FACILITY] += fac;
	e->comp_usd[PP_CC_SUPPORT] += sup;
	e->comp_usd[PP_CC_STAFF] += sf;
	e->marginal_usd += act_node_h * (s->kw_active - s->kw_idle) * c->pue * s->usd_per_kwh;
	return fac + sup + sf;
}

/* The amortized view: the GPU-hours used at the option's fully loaded cost
 * per used GPU-hour at the fleet utilisation (cost.h). */
static double amortized_usd(const ctx *c, const oin *o, const sched *s, const ev *e,
			    double used_h_total)
{
	if (!o->owned) {
		double rate = s->reserved && o->contract_set ? o->usd_per_gpu_hour : s->usd_per_gpu_hour;
		double gpu = s->reserved ? used_h_total * rate / c->fleet_utilization
					 : e->comp_usd[PP_CC_GPU_TIME];
		return gpu + e->comp_usd[PP_CC_STORAGE] + e->comp_usd[PP_CC_STAFF];
	}
	double U = c->fleet_utilization;
	double N = s->gpus, replicas = s->replicas;
	double salv = (s->servers_usd + s->network_usd + s->storage_usd) * c->life_residual;
	double eac = pp_fin_annuity_eac(&c->life_annuity, s->hw_capex_usd + s->integration_usd, salv);
	double fixed =
		eac + c->support_fraction_per_year * s->hw_capex_usd +
		c->software_usd_per_gpu_year * N * replicas +
		o->staff_fte * replicas * c->staff_usd_per_fte_year +
		(c->facility_owned == 0 ? s->kw_provisioned * c->colo_usd_per_kw_month * 12 : 0);
	double node_h = PP_HOURS_PER_YEAR * s->nodes_all;
	double energy =
		node_h * (U * s->kw_active + (1 - U) * s->kw_idle) * c->pue * s->usd_per_kwh +
		o->switch_kw * replicas * PP_HOURS_PER_YEAR * c->pue * s->usd_per_kwh;
	double per_used = (fixed + energy) / (N * replicas * PP_HOURS_PER_YEAR * U);
	return used_h_total * per_used;
}

/* A reserved option's commitments under one draw. */
typedef struct commit {
	double contract_usd;  /* the contract of the base case: its size, months and price fixed */
	double extra_usd;     /* what the draw needs beyond it, at the drawn price */
	double months;        /* until the last commitment ends */
	double gpu_hours;     /* committed, contract and extra */
} commit;

/* The contract (o->contract_*, or this draw's own need before it is set)
 * and what this draw needs beyond it: more replicas for its whole need,
 * more terms for the contracted replicas. */
static void commitments(const oin *o, const sched *s, double win, commit *k)
{
	double term = o->commit_months, H = PP_HOURS_PER_MONTH, N = s->gpus;
	double need_m = ceil(win / term - 1e-9) * term;
	double reps = o->contract_set ? o->contract_replicas : s->replicas;
	double cm = o->contract_set ? o->contract_months : need_m;
	double extra_gm = fmax(0, s->replicas - reps) * need_m + reps * fmax(0, need_m - cm);
	k->contract_usd = N * reps * H * cm * o->usd_per_gpu_hour;
	k->extra_usd = N * extra_gm * H * s->usd_per_gpu_hour;
	k->months = fmax(cm, need_m);
	k->gpu_hours = N * H * (reps * cm + extra_gm);
}

/* Book commitments k on cum (months 0..nmonths, cum_n entries) as they are
 * paid: each term of commit_months starts with its upfront part and pays
 * the rest in equal monthly instalments over the term; months past the
 * work (nm_work) carry the last month's running total. */
static void commit_cash(const oin *o, const commit *k, int nm_work, int nmonths, double *cum,
			int cum_n)
{
	for (int m = nm_work + 1; m <= nmonths && m < cum_n; m++)
		cum[m] = cum[nm_work < cum_n ? nm_work : cum_n - 1];
	double term = o->commit_months, total = k->contract_usd + k->extra_usd;
	double terms = k->months / term, per_term = terms > 0 ? total / terms : 0;
	double paid = 0;
	for (int m = 0; m <= nmonths && m < cum_n; m++) {
		double into = fmod((double)m, term); /* months into the current term */
		if (m < k->months - 1e-9 && into < 1e-9)
			paid += per_term * o->upfront_fraction;
		if (m >= 1 && m <= k->months + 1e-9)
			paid += per_term * (1 - o->upfront_fraction) / term;
		cum[m] += paid;
	}
}

/* cost_evaluate, with cluster_goodput's known and made */
static void evaluate(const ctx *c, const oin *o, const draw *d, bool with_goodput,
		     const pp_goodput *known, pp_goodput *made, ev *e, double *cum, int cum_n)
{
	memset(e, 0, sizeof(*e));
	e->time_to_train_s = NAN;
	e->goodput = 1;
	if (o->kind == PP_OPT_API) {
		evaluate_api(c, o, d, e, cum, cum_n);
		return;
	}
	double tok_s = o->tokens_per_s / d->step;
	cluster_goodput(c, o, d, with_goodput, known, made, e);
	sched s;
	work_demand(c, o, d, tok_s * e->goodput, e, &s);
	schedule_of(c, o, d, e, &s);
	double win = s.window_months;
	int nm = s.nmonths;
	commit k = {0};
	if (s.reserved) {
		commitments(o, &s, win, &k);
		e->nmonths = (int)fmin(fmax(nm, ceil(k.months - 1e-9)), PP_COST_MAX_MONTHS + 1);
	}
	double running = e->capex_usd = o->owned ? s.hw_capex_usd + s.integration_usd : 0;
	if (cum && cum_n > 0)
		cum[0] = running;
	double used_h_total = 0;
	for (int m = 1; m <= nm; m++) {
		double t0 = m - 1, t1 = fmin((double)m, win);
		double a = t1 - t0;
		double busy = overlap(s.lead_months, s.work_end_months, t0, t1) *
			      (c->work == PP_WORK_RUN ? PP_SECONDS_PER_MONTH : s.busy_per_month_s);
		double gpu_h = busy * s.gpus / 3600.0;
		used_h_total += gpu_h;
		running += o->owned ? own_month(c, o, &s, t0, t1, a, busy, e)
				    : rent_month(c, o, &s, gpu_h, a, e);
		if (cum && m < cum_n)
			cum[m] = running;
	}
	e->gpu_hours = used_h_total;
	if (s.reserved) {
		/* whole commitments: the hours used (at the commitments' average
		 * rate) and the idle rest, paid on the payment schedule */
		double commit_usd = k.contract_usd + k.extra_usd;
		double used_usd = k.gpu_hours > 0 ? fmin(used_h_total, k.gpu_hours) * commit_usd /
							    k.gpu_hours : 0;
		e->comp_usd[PP_CC_GPU_TIME] += used_usd;
		e->comp_usd[PP_CC_IDLE_COMMIT] += commit_usd - used_usd;
		e->contract_usd = k.contract_usd;
		if (cum)
			commit_cash(o, &k, nm, e->nmonths, cum, cum_n);
	}
	if (o->owned) {
		/* the capex net of the residual value at the window's end */
		double rf = cost_residual_fraction(c, fmax(0, win - s.lead_months) / 12.0,
						   c->resale_haircut);
		e->comp_usd[PP_CC_SERVERS] = s.servers_usd * (1 - rf) + s.integration_usd;
		e->comp_usd[PP_CC_NETWORK] = s.network_usd * (1 - rf);
		e->comp_usd[PP_CC_STORAGE] = s.storage_usd * (1 - rf);
		double resid = (s.servers_usd + s.network_usd + s.storage_usd) * rf;
		running -= resid;
		if (cum && nm < cum_n)
			cum[nm] = running;
	}
	e->total_usd = 0;
	for (int j = 0; j < PP_CC_COUNT; j++)
		e->total_usd += e->comp_usd[j];
	e->amortized_usd = amortized_usd(c, o, &s, e, used_h_total);
}

void cost_evaluate(const ctx *c, const oin *o, const draw *d, bool with_goodput, ev *e,
		   double *cum, int cum_n)
{
	evaluate(c, o, d, with_goodput, NULL, NULL, e, cum, cum_n);
}

/* ---- Monte Carlo, tornado, recommendation ---- */

int cost_group_of(const oin *oi, int n, int i)
{
	for (int j = 0; j < i && j < n; j++)
		if (oi[j].gpu && oi[j].gpu == oi[i].gpu && oi[j].calibrated == oi[i].calibrated)
			return oi[j].group;
	return i;
}

static double price_sigma_of(const oin *o)
{
	return o->kind == PP_OPT_API ? o->api_price_sigma : o->owned ? 0 : o->price_sigma;
}

/* Every rank's block of draws [d0, d1) of every option's samples to every
 * rank (one option at a time: a block stays far below MPI's int count at
 * the schema's 1e7 draws), and the counts of draws each option won
 * summed. */
static void gather_draws(pp_cost_result *r, int n, int draws, int d0, int d1, int *wins)
{
	for (int i = 0; i < n; i++) {
		void *all = NULL;
		size_t bytes = 0;
		pp_dist_allgatherv(r->options[i].samples + d0, sizeof(double) * (size_t)(d1 - d0), &all,
				   &bytes);
		/* the blocks in rank order are the draws in order */
		memcpy(r->options[i].samples, all, sizeof(double) * (size_t)draws);
		free(all);
	}
	double *w = pp_xmalloc(sizeof(double) * (size_t)n + 1);
	for (int i = 0; i < n; i++)
		w[i] = wins[i];
	pp_dist_allreduce_sum(w, n);
	for (int i = 0; i < n; i++)
		wins[i] = (int)w[i];
	free(w);
}

/* A lognormal factor, or (!value: another rank's draw) the random numbers
 * it takes consumed without computing it (1 returned). */
static double lognormal(pp_mc *mc, double sigma, bool value)
{
	if (value)
		return pp_mc_lognormal(mc, sigma);
	pp_mc_lognormal_skip(mc, sigma);
	return 1.0;
}

void cost_monte_carlo(ctx *c, oin *oi, int n, unsigned long seed, int draws)
{
	pp_cost_result *r = c->r;
	for (int i = 0; i < n; i++)
		r->options[i].p10_usd = r->options[i].p50_usd = r->options[i].p90_usd =
			r->options[i].mean_usd = r->options[i].p_cheapest = NAN;
	if (draws <= 0)
		return;
	/* this rank's draws: [d0, d1) (all of them unless spread over ranks) */
	int R = c->opts && c->opts->spread_draws ? pp_dist_size() : 1;
	int rank = R > 1 ? pp_dist_rank() : 0;
	int d0 = (int)((int64_t)draws * rank / R), d1 = (int)((int64_t)draws * (rank + 1) / R);
	pp_mc *mc = pp_mc_new(seed);
	if (!mc) {
		if (R > 1) /* the other ranks wait in the gather: out of memory, as pp_xmalloc */
			abort();
		return;
	}
	double stepf[MAX_GROUPS], capexf[MAX_GROUPS], capsig[MAX_GROUPS], stepsig[MAX_GROUPS];
	double stepmu[MAX_GROUPS];
	for (int g = 0; g < MAX_GROUPS; g++) {
		capsig[g] = 0;
		stepsig[g] = c->step_sigma;
		stepmu[g] = 0;
	}
	for (int i = 0; i < n; i++) {
		capsig[oi[i].group] = fmax(capsig[oi[i].group], oi[i].capex_sigma);
		/* one per group */
		cost_step_spread(c, &oi[i], &stepmu[oi[i].group], &stepsig[oi[i].group]);
	}
	int *wins = pp_xcalloc((size_t)n, sizeof(int));
	/* options with the same goodput inputs (a cluster rented and built,
	 * from several providers) share one goodput per draw: gsame[i], the
	 * first of them */
	int *gsame = pp_xmalloc(sizeof(int) * (size_t)n);
	pp_goodput *gps = pp_xmalloc(sizeof(pp_goodput) * (size_t)n);
	for (int i = 0; i < n; i++) {
		gsame[i] = i;
		if (oi[i].kind == PP_OPT_API)
			continue;
		pp_goodput_in gi, gj;
		goodput_in_of(c, &oi[i], &cost_base_draw, &gi);
		for (int j = 0; j < i && gsame[i] == i; j++) {
			if (oi[j].kind == PP_OPT_API)
				continue;
			goodput_in_of(c, &oi[j], &cost_base_draw, &gj);
			if (!memcmp(&gi, &gj, sizeof(gi)))
				gsame[i] = j;
		}
	}
	/* only options that can be obtained compete, when any can (cost.h) */
	bool only_obtainable = false;
	for (int i = 0; i < n; i++)
		only_obtainable |= r->options[i].feasible && r->options[i].obtainable &&
				   r->options[i].meets_target;
	for (int i = 0; i < n; i++) {
		r->options[i].samples = pp_xmalloc((size_t)draws * sizeof(double));
		r->options[i].nsamples = draws;
		r->options[i].q01_usd = r->options[i].q99_usd = NAN;
	}
	double kwh_lo =
		c->usd_per_kwh > 0 ? fmin(c->usd_per_kwh_lo, c->usd_per_kwh) / c->usd_per_kwh : 1;
	double kwh_hi =
		c->usd_per_kwh > 0 ? fmax(c->usd_per_kwh_hi, c->usd_per_kwh) / c->usd_per_kwh : 1;
	double fail = c->failures_per_gpu_hour;
	double f_lo = fail > 0 ? c->failures_per_gpu_hour_lo / fail : 1;
	double f_hi = fail > 0 ? c->failures_per_gpu_hour_hi / fail : 1;
	for (int d = 0; d < draws; d++) {
		bool mine = d >= d0 && d < d1;
		draw dr = cost_base_draw;
		dr.failures = pp_mc_loguniform(mc, f_lo, f_hi);
		dr.demand = pp_mc_triangular(mc, c->demand_lo_factor, 1.0, c->demand_hi_factor);
		dr.electricity = pp_mc_triangular(mc, kwh_lo, 1.0, kwh_hi);
		for (int g = 0; g < n; g++) {
			stepf[g] = exp(stepmu[g]) * lognormal(mc, stepsig[g], mine);
			capexf[g] = lognormal(mc, capsig[g], mine);
		}
		int best = -1;
		double best_usd = INFINITY;
		for (int i = 0; i < n; i++) {
			draw di = dr;
			di.step = stepf[oi[i].group];
			di.capex = capexf[oi[i].group];
			di.price = lognormal(mc, price_sigma_of(&oi[i]), mine);
			if (!mine) /* another rank's draw: its numbers consumed, not evaluated */
				continue;
			ev e;
			evaluate(c, &oi[i], &di, true, gsame[i] != i ? &gps[gsame[i]] : NULL, &gps[i],
				 &e, NULL, 0);
			r->options[i].samples[d] = e.total_usd;
			if (oi[i].feasible && r->options[i].meets_target &&
			    (!only_obtainable || r->options[i].obtainable) && e.total_usd < best_usd) {
				best_usd = e.total_usd;
				best = i;
			}
		}
		if (best >= 0)
			wins[best]++;
	}
	if (R > 1)
		gather_draws(r, n, draws, d0, d1, wins);
	for (int i = 0; i < n; i++) {
		pp_mc_stats st;
		pp_mc_summarize(r->options[i].samples, (size_t)draws, &st);
		r->options[i].p10_usd = st.p10;
		r->options[i].p50_usd = st.p50;
		r->options[i].p90_usd = st.p90;
		r->options[i].mean_usd = st.mean;
		r->options[i].q01_usd = st.q01;
		r->options[i].q99_usd = st.q99;
		r->options[i].p_cheapest = only_obtainable && !r->options[i].obtainable
						   ? NAN : (double)wins[i] / draws;
	}
	free(wins);
	free(gsame);
	free(gps);
	pp_mc_free(mc);
}

typedef enum { DRV_STEP, DRV_FAIL, DRV_DEMAND, DRV_KWH, DRV_PRICE, DRV_CAPEX } drv_kind;

static double eval_total(const ctx *c, const oin *o, const draw *d)
{
	ev e;
	cost_evaluate(c, o, d, true, &e, NULL, 0);
	return e.total_usd;
}

static void tornado_row(ctx *c, oin *oi, int rec, int ru, drv_kind k, int target, const char *name,
			const char *unit, double base_in, double lo_in, double hi_in, double lo_f,
			double hi_f)
{
	pp_cost_result *r = c->r;
	double vals[2][2];
	double f[2] = {lo_f, hi_f};
	for (int s = 0; s < 2; s++) {
		for (int w = 0; w < 2; w++) {
			int idx = w ? ru : rec;
			if (idx < 0) {
				vals[s][w] = NAN;
				continue;
			}
			draw d = cost_base_draw;
			bool applies = target < 0 || target == idx;
			if (applies) {
				switch (k) {
				case DRV_STEP: d.step = f[s]; break;
				case DRV_FAIL: d.failures = f[s]; break;
				case DRV_DEMAND: d.demand = f[s]; break;
				case DRV_KWH: d.electricity = f[s]; break;
				case DRV_PRICE: d.price = f[s]; break;
				case DRV_CAPEX: d.capex = f[s]; break;
				}
			}
			vals[s][w] = eval_total(c, &oi[idx], &d);
		}
	}
	r->tornado = pp_xrealloc(r->tornado, (size_t)(r->ntornado + 1) * sizeof(*r->tornado));
	pp_tornado_row *t = &r->tornado[r->ntornado++];
	memset(t, 0, sizeof(*t));
	snprintf(t->driver, sizeof(t->driver), "%s", name);
	snprintf(t->unit, sizeof(t->unit), "%s", unit);
	t->base_input = base_in;
	t->low_input = lo_in;
	t->high_input = hi_in;
	t->low_usd = vals[0][0];
	t->high_usd = vals[1][0];
	t->low_margin_usd = vals[0][1] - vals[0][0];
	t->high_margin_usd = vals[1][1] - vals[1][0];
	t->swing_usd = fabs(t->high_usd - t->low_usd);
}

static int cmp_swing(const void *a, const void *b)
{
	double x = ((const pp_tornado_row *)a)->swing_usd, y = ((const pp_tornado_row *)b)->swing_usd;
	return (x < y) - (x > y);
}

void cost_tornado(ctx *c, oin *oi, int rec, int ru)
{
	if (rec < 0)
		return;
	double q10 = 0.10, q90 = 0.90;
	double mu, sigma;
	cost_step_spread(c, &oi[rec], &mu, &sigma);
	double s10 = exp(mu) * pp_mc_lognormal_q(sigma, q10), s90 = exp(mu) * pp_mc_lognormal_q(sigma, q90);
	tornado_row(c, oi, rec, ru, DRV_STEP, -1, "step-time prediction error", "factor", 1, s10, s90,
		    s10, s90);
	if (c->failures_per_gpu_hour > 0 && c->goodput_on && c->work != PP_WORK_INFERENCE)
		tornado_row(c, oi, rec, ru, DRV_FAIL, -1, "failure rate", "per_gpu_hour",
			    c->failures_per_gpu_hour, c->failures_per_gpu_hour_lo,
			    c->failures_per_gpu_hour_hi,
			    c->failures_per_gpu_hour_lo / c->failures_per_gpu_hour,
			    c->failures_per_gpu_hour_hi / c->failures_per_gpu_hour);
	if (c->work != PP_WORK_RUN) {
		double d10 = pp_mc_triangular_q(c->demand_lo_factor, 1, c->demand_hi_factor, q10);
		double d90 = pp_mc_triangular_q(c->demand_lo_factor, 1, c->demand_hi_factor, q90);
		tornado_row(c, oi, rec, ru, DRV_DEMAND, -1, "demand (utilisation of plan)", "factor", 1,
			    d10, d90, d10, d90);
	}
	if (c->usd_per_kwh > 0 && (oi[rec].owned || (ru >= 0 && oi[ru].owned)))
		tornado_row(c, oi, rec, ru, DRV_KWH, -1, "electricity price", "usd_per_kwh",
			    c->usd_per_kwh, c->usd_per_kwh_lo, c->usd_per_kwh_hi,
			    c->usd_per_kwh_lo / c->usd_per_kwh, c->usd_per_kwh_hi / c->usd_per_kwh);
	int who[2] = {rec, ru};
	for (int w = 0; w < 2; w++) {
		int i = who[w];
		if (i < 0)
			continue;
		const oin *o = &oi[i];
		char name[48];
		if (o->owned) {
			double l = pp_mc_lognormal_q(o->capex_sigma, q10), h = pp_mc_lognormal_q(o->capex_sigma, q90);
			snprintf(name, sizeof(name), "%.30s server price", c->r->options[i].name);
			tornado_row(c, oi, rec, ru, DRV_CAPEX, i, name, "usd_per_server", o->server_usd,
				    o->server_usd * l, o->server_usd * h, l, h);
		} else {
			double sg = price_sigma_of(o);
			double l = pp_mc_lognormal_q(sg, q10), h = pp_mc_lognormal_q(sg, q90);
			double base = o->kind == PP_OPT_API ? o->api_usd_per_1m_tokens
							    : o->usd_per_gpu_hour;
			snprintf(name, sizeof(name), "%.30s price", c->r->options[i].name);
			tornado_row(c, oi, rec, ru, DRV_PRICE, i, name,
				    o->kind == PP_OPT_API ? "usd_per_1m_tokens" : "usd_per_gpu_hour", base,
				    base * l, base * h, l, h);
		}
	}
	qsort(c->r->tornado, (size_t)c->r->ntornado, sizeof(pp_tornado_row), cmp_swing);
}

