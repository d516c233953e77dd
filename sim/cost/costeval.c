/*
 * costeval.c - pricing one resolved option over the monthly schedule
 * (costeval.h): a closed form that Monte Carlo and the tornado re-run per
 * draw; the Monte Carlo draws; the one-at-a-time tornado.
 */
#include "cost/costeval.h"

const draw cost_base_draw = {1, 1, 1, 1, 1, 1};

/* ---- evaluation: one option, one set of inputs ---- */

static double overlap(double a0, double a1, double b0, double b1)
{
	double lo = fmax(a0, b0), hi = fmin(a1, b1);
	return hi > lo ? hi - lo : 0;
}

double cost_residual_fraction(const ctx *c, double age_years, double haircut)
{
	if (c->residual == 1)
		return pp_fin_book_value(1.0, c->salvage, c->dep_years, age_years);
	return pp_fin_market_value(1.0, c->ooms, age_years) * (1.0 - haircut);
}

/* Work per month (cluster-seconds of one replica's throughput) etc. */
void cost_evaluate(const ctx *c, const oin *o, const draw *d, bool with_goodput, ev *e,
		     double *cum, int cum_n)
{
	memset(e, 0, sizeof(*e));
	double month_s = PP_SECONDS_PER_MONTH, month_h = PP_HOURS_PER_MONTH;
	double H = c->horizon_m;
	e->ttt = NAN;
	e->goodput = 1;
	if (o->kind == PP_OPT_API) {
		double per_month = 0, total_tok = 0;
		switch (c->work) {
		case PP_WORK_RUN:
			total_tok = c->runs * c->train_tokens;
			break;
		case PP_WORK_RECURRING:
			per_month = c->jobs_per_month * c->tokens_per_job * d->demand;
			break;
		case PP_WORK_CAPACITY:
			per_month = c->cap_tokens_pm * d->demand;
			break;
		default:
			per_month = c->tokens_per_month * d->demand;
		}
		double price = o->api_usd_per_mtok * d->price / 1e6;
		double win = c->work == PP_WORK_RUN ? (c->horizon_given ? H : 1) : H;
		e->window_m = win;
		e->nm = (int)ceil(win - 1e-9);
		if (c->work == PP_WORK_RUN) {
			e->tokens = total_tok;
			e->comp[PP_CC_API] = total_tok * price;
		} else {
			e->tokens = per_month * H;
			e->comp[PP_CC_API] = e->tokens * price;
		}
		e->total = e->marginal = e->amortized = e->comp[PP_CC_API];
		e->replicas = 1;
		if (cum) {
			for (int m = 0; m < cum_n; m++) {
				double upto = c->work == PP_WORK_RUN ? (m >= 1 ? total_tok : 0)
								     : per_month * fmin((double)m, H);
				cum[m] = upto * price;
			}
		}
		return;
	}
	/* throughput with goodput */
	double tok_s = o->tok_s / d->step;
	double g = 1;
	if (with_goodput && c->goodput && c->work != PP_WORK_INFERENCE) {
		pp_goodput_in gi = {0};
		gi.failures_per_gpu_hour = c->fail * d->fail;
		gi.num_gpus = o->n;
		gi.nodes = o->nodes;
		gi.spot_per_node_hour = o->tier == TIER_SPOT ? c->spot_node_h : 0;
		gi.checkpoint_write_s = isnan(c->write_override) ? o->ckpt_write_s : c->write_override;
		gi.restart_s = c->restart_s + o->ckpt_load_s +
			       (o->tier == TIER_SPOT ? c->spot_reacquire_s : 0);
		gi.checkpoint_interval_s = isnan(c->interval_s) ? 0 : c->interval_s;
		pp_goodput gp;
		pp_goodput_eval(&gi, &gp);
		g = gp.goodput;
		e->interval_s = gp.interval_s;
	}
	e->goodput = g;
	double eff = tok_s * g;
	/* demand -> busy cluster-seconds */
	double busy_total = 0, busy_pm = 0, replicas = 1;
	switch (c->work) {
	case PP_WORK_RUN: {
		double job = c->train_tokens / eff + c->setup_s;
		busy_total = c->runs * job;
		e->ttt = job;
		e->tokens = c->runs * c->train_tokens;
		break;
	}
	case PP_WORK_RECURRING: {
		double job = c->tokens_per_job / eff + c->setup_s;
		busy_pm = c->jobs_per_month * d->demand * job;
		e->ttt = job;
		e->tokens = H * c->jobs_per_month * d->demand * c->tokens_per_job;
		break;
	}
	case PP_WORK_CAPACITY:
		busy_pm = c->cap_tokens_pm * d->demand / eff;
		e->tokens = H * c->cap_tokens_pm * d->demand;
		if (c->train_tokens > 0) /* time of one run of training.train_tokens */
			e->ttt = c->train_tokens / eff + c->setup_s;
		break;
	default: {
		double capacity = eff; /* tokens/s of one replica */
		double peak = c->tokens_per_month * d->demand / month_s * c->inf_peak;
		replicas = fmax(1, ceil(peak / capacity - 1e-9));
		busy_pm = replicas * month_s;
		e->tokens = H * c->tokens_per_month * d->demand;
	}
	}
	if (c->work == PP_WORK_RECURRING || c->work == PP_WORK_CAPACITY)
		replicas = fmax(1, ceil(busy_pm / month_s - 1e-9));
	e->replicas = replicas;
	double lead = o->owned ? o->lead_m : 0;
	double work_end = c->work == PP_WORK_RUN ? lead + busy_total / month_s : lead + H;
	double win = c->work == PP_WORK_RUN ? (c->horizon_given ? fmax(H, work_end) : work_end)
					    : lead + H;
	e->window_m = win;
	int nm = (int)ceil(win - 1e-9);
	if (nm < 1)
		nm = 1;
	e->nm = nm;
	double N = o->n, nodes_all = o->nodes * replicas;
	bool reserved = o->tier == TIER_R1 || o->tier == TIER_R3;
	double rate = o->rate * d->price;
	double kw_act = o->server_kw * c->draw_frac, kw_idle = o->server_kw * c->idle_frac;
	double kwh_price = c->kwh * d->kwh;
	double hw_capex = 0, integ = 0, net = 0, store = 0, servers = 0;
	if (o->owned) {
		servers = o->server_usd * o->servers * replicas * d->capex;
		net = o->net_usd * replicas;
		store = o->tb * c->buy_usd_per_tb;
		hw_capex = servers + net + store;
		integ = hw_capex * c->integ;
	}
	double kw_prov = (o->server_kw * o->nodes + o->switch_kw) * replicas;
	double running = o->owned ? hw_capex + integ : 0;
	if (cum && cum_n > 0)
		cum[0] = running;
	double used_h_total = 0;
	for (int m = 1; m <= nm; m++) {
		double t0 = m - 1, t1 = fmin((double)m, win);
		double a = t1 - t0;
		double busy;
		if (c->work == PP_WORK_RUN)
			busy = overlap(lead, work_end, t0, t1) * month_s;
		else
			busy = overlap(lead, work_end, t0, t1) * busy_pm;
		double gpu_h = busy * N / 3600.0;
		used_h_total += gpu_h;
		double month_cost = 0;
		if (!o->owned) {
			double st = o->tb * c->rent_tb_usd * a;
			double sf = o->fte * replicas * c->staff_usd / 12.0 * a;
			e->comp[PP_CC_STORAGE] += st;
			e->comp[PP_CC_STAFF] += sf;
			month_cost += st + sf;
			if (reserved) {
				double commit = N * replicas * month_h * a * rate;
				month_cost += commit;
			} else {
				e->comp[PP_CC_GPU_TIME] += gpu_h * rate;
				e->marginal += gpu_h * rate;
				month_cost += gpu_h * rate;
			}
		} else {
			double dl = overlap(lead, win, t0, t1);
			double avail_node_h = dl * month_h * nodes_all;
			double act_node_h = busy / 3600.0 * o->nodes;
			if (act_node_h > avail_node_h)
				act_node_h = avail_node_h;
			double kwh = (act_node_h * kw_act + (avail_node_h - act_node_h) * kw_idle +
				      o->switch_kw * replicas * dl * month_h) * c->pue;
			double fac = kwh * kwh_price;
			if (c->facility == 0)
				fac += kw_prov * c->colo * dl;
			double sup = (c->support * (servers + net + store) + c->software * N * replicas) *
				     dl / 12.0;
			double sf = o->fte * replicas * c->staff_usd / 12.0 * a;
			e->comp[PP_CC_FACILITY] += fac;
			e->comp[PP_CC_SUPPORT] += sup;
			e->comp[PP_CC_STAFF] += sf;
			e->marginal += act_node_h * (kw_act - kw_idle) * c->pue * kwh_price;
			month_cost += fac + sup + sf;
		}
		running += month_cost;
		if (cum && m < cum_n)
			cum[m] = running;
	}
	e->gpu_hours = used_h_total;
	if (reserved) {
		double span = win;
		double committed_m = ceil(span / o->commit_m - 1e-9) * o->commit_m;
		double commit_usd = N * replicas * month_h * committed_m * rate;
		double used_usd = used_h_total * rate;
		e->comp[PP_CC_GPU_TIME] += used_usd;
		e->comp[PP_CC_IDLE_COMMIT] += commit_usd - used_usd;
		double tail = N * replicas * month_h * (committed_m - span) * rate;
		running += tail;
		if (cum && nm < cum_n)
			cum[nm] = running;
	}
	if (o->owned) {
		double age = fmax(0, win - lead) / 12.0;
		double rf = cost_residual_fraction(c, age, c->haircut);
		e->comp[PP_CC_SERVERS] = servers * (1 - rf) + integ;
		e->comp[PP_CC_NETWORK] = net * (1 - rf);
		e->comp[PP_CC_STORAGE] = store * (1 - rf);
		double resid = (servers + net + store) * rf;
		running -= resid;
		if (cum && nm < cum_n)
			cum[nm] = running;
	}
	e->total = 0;
	for (int k = 0; k < PP_CC_COUNT; k++)
		e->total += e->comp[k];
	/* amortized view */
	if (!o->owned) {
		double gpu = reserved ? used_h_total * rate / c->fleet_util : e->comp[PP_CC_GPU_TIME];
		e->amortized = gpu + e->comp[PP_CC_STORAGE] + e->comp[PP_CC_STAFF];
	} else {
		double U = c->fleet_util;
		double life = c->dep_years;
		double salv = (servers + net + store) * cost_residual_fraction(c, life, c->haircut);
		double eac = pp_fin_eac(hw_capex + integ, salv, c->disc, life);
		double fixed = eac + c->support * hw_capex + c->software * N * replicas +
			       o->fte * replicas * c->staff_usd + (c->facility == 0 ? kw_prov * c->colo * 12 : 0);
		double node_h = PP_HOURS_PER_YEAR * nodes_all;
		double energy = node_h * (U * kw_act + (1 - U) * kw_idle) * c->pue * kwh_price +
				o->switch_kw * replicas * PP_HOURS_PER_YEAR * c->pue * kwh_price;
		double per_used = (fixed + energy) / (N * replicas * PP_HOURS_PER_YEAR * U);
		e->amortized = used_h_total * per_used;
	}
}

/* ---- Monte Carlo, tornado, recommendation ---- */

int cost_group_of(const oin *oi, int n, int i)
{
	for (int j = 0; j < i && j < n; j++)
		if (oi[j].gpu && oi[j].gpu == oi[i].gpu)
			return oi[j].group;
	return i;
}

static double price_sigma_of(const oin *o)
{
	return o->kind == PP_OPT_API ? o->api_sigma : o->owned ? 0 : o->rate_sigma;
}

void cost_monte_carlo(ctx *c, oin *oi, int n, unsigned long seed, int draws)
{
	pp_cost_result *r = c->r;
	for (int i = 0; i < n; i++)
		r->options[i].p10_usd = r->options[i].p50_usd = r->options[i].p90_usd =
			r->options[i].mean_usd = r->options[i].p_cheapest = NAN;
	if (draws <= 0)
		return;
	pp_mc *mc = pp_mc_new(seed);
	if (!mc)
		return;
	double stepf[MAX_GROUPS], capexf[MAX_GROUPS], capsig[MAX_GROUPS];
	for (int g = 0; g < MAX_GROUPS; g++)
		capsig[g] = 0;
	for (int i = 0; i < n; i++)
		capsig[oi[i].group] = fmax(capsig[oi[i].group], oi[i].capex_sigma);
	int *wins = pp_xcalloc((size_t)n, sizeof(int));
	for (int i = 0; i < n; i++) {
		r->options[i].samples = pp_xmalloc((size_t)draws * sizeof(double));
		r->options[i].nsamples = draws;
	}
	double kwh_lo = c->kwh > 0 ? fmin(c->kwh_lo, c->kwh) / c->kwh : 1;
	double kwh_hi = c->kwh > 0 ? fmax(c->kwh_hi, c->kwh) / c->kwh : 1;
	double f_lo = c->fail > 0 ? c->fail_lo / c->fail : 1, f_hi = c->fail > 0 ? c->fail_hi / c->fail : 1;
	for (int d = 0; d < draws; d++) {
		draw dr = cost_base_draw;
		dr.fail = pp_mc_loguniform(mc, f_lo, f_hi);
		dr.demand = pp_mc_triangular(mc, c->dem_lo, 1.0, c->dem_hi);
		dr.kwh = pp_mc_triangular(mc, kwh_lo, 1.0, kwh_hi);
		for (int g = 0; g < n; g++) {
			stepf[g] = pp_mc_lognormal(mc, c->sig_step);
			capexf[g] = pp_mc_lognormal(mc, capsig[g]);
		}
		int best = -1;
		double best_usd = INFINITY;
		for (int i = 0; i < n; i++) {
			draw di = dr;
			di.step = stepf[oi[i].group];
			di.capex = capexf[oi[i].group];
			di.price = pp_mc_lognormal(mc, price_sigma_of(&oi[i]));
			ev e;
			cost_evaluate(c, &oi[i], &di, true, &e, NULL, 0);
			r->options[i].samples[d] = e.total;
			if (oi[i].feasible && e.total < best_usd) {
				best_usd = e.total;
				best = i;
			}
		}
		if (best >= 0)
			wins[best]++;
	}
	for (int i = 0; i < n; i++) {
		pp_mc_stats st;
		pp_mc_summarize(r->options[i].samples, (size_t)draws, &st);
		r->options[i].p10_usd = st.p10;
		r->options[i].p50_usd = st.p50;
		r->options[i].p90_usd = st.p90;
		r->options[i].mean_usd = st.mean;
		r->options[i].p_cheapest = (double)wins[i] / draws;
	}
	free(wins);
	pp_mc_free(mc);
}

typedef enum { DRV_STEP, DRV_FAIL, DRV_DEMAND, DRV_KWH, DRV_PRICE, DRV_CAPEX } drv_kind;

static double eval_total(const ctx *c, const oin *o, const draw *d)
{
	ev e;
	cost_evaluate(c, o, d, true, &e, NULL, 0);
	return e.total;
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
				case DRV_FAIL: d.fail = f[s]; break;
				case DRV_DEMAND: d.demand = f[s]; break;
				case DRV_KWH: d.kwh = f[s]; break;
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
	double s10 = pp_mc_lognormal_q(c->sig_step, q10), s90 = pp_mc_lognormal_q(c->sig_step, q90);
	tornado_row(c, oi, rec, ru, DRV_STEP, -1, "step-time prediction error", "factor", 1, s10, s90,
		    s10, s90);
	if (c->fail > 0 && c->goodput && c->work != PP_WORK_INFERENCE)
		tornado_row(c, oi, rec, ru, DRV_FAIL, -1, "failure rate", "per_gpu_hour", c->fail,
			    c->fail_lo, c->fail_hi, c->fail_lo / c->fail, c->fail_hi / c->fail);
	if (c->work != PP_WORK_RUN) {
		double d10 = pp_mc_triangular_q(c->dem_lo, 1, c->dem_hi, q10);
		double d90 = pp_mc_triangular_q(c->dem_lo, 1, c->dem_hi, q90);
		tornado_row(c, oi, rec, ru, DRV_DEMAND, -1, "demand (utilisation of plan)", "factor", 1,
			    d10, d90, d10, d90);
	}
	if (c->kwh > 0 && (oi[rec].owned || (ru >= 0 && oi[ru].owned)))
		tornado_row(c, oi, rec, ru, DRV_KWH, -1, "electricity price", "usd_per_kwh", c->kwh,
			    c->kwh_lo, c->kwh_hi, c->kwh_lo / c->kwh, c->kwh_hi / c->kwh);
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
			double base = o->kind == PP_OPT_API ? o->api_usd_per_mtok : o->rate;
			snprintf(name, sizeof(name), "%.30s price", c->r->options[i].name);
			tornado_row(c, oi, rec, ru, DRV_PRICE, i, name,
				    o->kind == PP_OPT_API ? "usd_per_1m_tokens" : "usd_per_gpu_hour", base,
				    base * l, base * h, l, h);
		}
	}
	qsort(c->r->tornado, (size_t)c->r->ntornado, sizeof(pp_tornado_row), cmp_swing);
}

