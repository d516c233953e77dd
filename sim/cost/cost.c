/*
 * cost.c - see cost.h. The TCO engine: resolve every option (prices,
 * servers, derived network, storage, staff) from the catalogs, get its
 * throughput from the step-time engine once, then price the work over a
 * monthly schedule with a closed-form evaluation that Monte Carlo and the
 * tornado re-run cheaply (no re-simulation per draw: a draw scales the
 * predicted step time by an error factor).
 *
 * Output formats (JSON, CSV, text) are in cmd_cost.c.
 */
#include "cost/costint.h"

const char *const pp_option_kind_names[PP_OPT_KIND_COUNT] = {"rent", "build", "api", "tier4"};
const char *const pp_cost_comp_names[PP_CC_COUNT] = {"gpu_time", "idle_commitment", "servers",
						     "network", "storage", "facility", "support",
						     "staff", "api"};

const char *const pp_cost_tier_keys[] = {"on_demand", "reserved_1y", "reserved_3y", "spot",
					 "capacity_block", "own", "api"};

/* ---- small helpers ---- */

int cost_fail_data(ctx *c, const char *fmt, ...)
{
	if (c->rc)
		return c->rc;
	va_list ap;
	char buf[PP_ERR_MAX];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	c->rc = pp_errf(c->err, PP_EINPUT, "%s", buf);
	return c->rc;
}

void cost_warnf(ctx *c, const char *fmt, ...)
{
	va_list ap;
	pp_sb sb = {0};
	va_start(ap, fmt);
	pp_sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	pp_cost_result *r = c->r;
	for (int i = 0; i < r->nwarnings; i++)
		if (!strcmp(r->warnings[i], sb.buf)) {
			pp_sb_release(&sb);
			return;
		}
	r->warnings = pp_xrealloc(r->warnings, (size_t)(r->nwarnings + 1) * sizeof(char *));
	r->warnings[r->nwarnings++] = pp_sb_detach(&sb);
}

const cJSON *cost_jpath(const cJSON *root, const char *path)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", path);
	const cJSON *o = root;
	for (char *tok = strtok(buf, "."); tok && o; tok = strtok(NULL, "."))
		o = cJSON_GetObjectItemCaseSensitive(o, tok);
	return o;
}

/* Months since as_of of a data date ("2026-11-09", "2024-Q4", "2024-H2",
 * "2026", "2026-11-09 (derived)"); NAN when undated. */
static double age_months(const ctx *c, const char *date)
{
	if (!date || strlen(date) < 4)
		return NAN;
	for (int i = 0; i < 4; i++)
		if (date[i] < '0' || date[i] > '9')
			return NAN;
	int y = atoi(date), m = 12; /* a year, half or quarter counts from its end */
	if (date[4] == '-') {
		if (date[5] == 'Q')
			m = 3 * atoi(date + 6);
		else if (date[5] == 'H')
			m = 6 * atoi(date + 6);
		else if (date[5] >= '0' && date[5] <= '9')
			m = atoi(date + 5);
	}
	if (m < 1 || m > 12)
		m = 1;
	return (double)((c->as_of_y - y) * 12 + (c->as_of_m - m));
}

/* Record a figure used in the sources table (deduplicated by item). */
void cost_add_source(ctx *c, const char *item, double value, const char *unit, const char *src,
		       const char *kind, const char *date, bool estimate)
{
	pp_cost_result *r = c->r;
	for (int i = 0; i < r->nsources; i++)
		if (!strcmp(r->sources[i].item, item))
			return;
	r->sources = pp_xrealloc(r->sources, (size_t)(r->nsources + 1) * sizeof(*r->sources));
	pp_cost_source *s = &r->sources[r->nsources++];
	memset(s, 0, sizeof(*s));
	snprintf(s->item, sizeof(s->item), "%s", item);
	s->value = value;
	snprintf(s->unit, sizeof(s->unit), "%s", unit ? unit : "");
	const char *title = src ? src : "";
	const char *url = "";
	const cJSON *doc = !strcmp(kind, "tco") ? c->tco.root : c->prices;
	const cJSON *so = src ? cost_jpath(cost_jpath(doc, "sources"), src) : NULL;
	if (so) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(so, "title");
		if (!cJSON_IsString(t))
			t = cJSON_GetObjectItemCaseSensitive(so, "what");
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(so, "url");
		if (cJSON_IsString(t))
			title = t->valuestring;
		if (cJSON_IsString(u))
			url = u->valuestring;
	}
	snprintf(s->source, sizeof(s->source), "%s", title);
	snprintf(s->url, sizeof(s->url), "%s", url);
	snprintf(s->date, sizeof(s->date), "%s", date ? date : "undated");
	s->estimate = estimate;
	s->age_months = age_months(c, date);
}

/* A {value, source, date, estimate} figure of tco.json at path. */
double cost_tco(ctx *c, const char *path, const char *unit)
{
	const cJSON *f = cost_jpath(c->tco.root, path);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, "value");
	if (!cJSON_IsNumber(v)) {
		cost_fail_data(c, "%s: missing figure %s.value (a number)", c->tco.path, path);
		return NAN;
	}
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(f, "source");
	const cJSON *date = cJSON_GetObjectItemCaseSensitive(f, "date");
	char item[128];
	snprintf(item, sizeof(item), "tco.json %s", path);
	cost_add_source(c, item, v->valuedouble, unit, cJSON_IsString(src) ? src->valuestring : NULL, "tco",
		   cJSON_IsString(date) ? date->valuestring : NULL,
		   cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "estimate")));
	return v->valuedouble;
}

/* A prices.json figure object {value, source, date, estimate} (or any
 * object with "value"); item names it in the sources table. */
double cost_pfig(ctx *c, const cJSON *f, const char *item, const char *unit, bool *estimate)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, "value");
	if (!cJSON_IsNumber(v))
		return NAN;
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(f, "source");
	const cJSON *date = cJSON_GetObjectItemCaseSensitive(f, "date");
	bool est = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "estimate"));
	if (estimate)
		*estimate = est;
	cost_add_source(c, item, v->valuedouble, unit, cJSON_IsString(src) ? src->valuestring : NULL,
		   "prices", cJSON_IsString(date) ? date->valuestring : NULL, est);
	return v->valuedouble;
}

static double price_at(ctx *c, const char *path, const char *unit)
{
	const cJSON *f = cost_jpath(c->prices, path);
	char item[128];
	snprintf(item, sizeof(item), "prices.json %s", path);
	double v = cost_pfig(c, f, item, unit, NULL);
	if (isnan(v))
		cost_fail_data(c, "models/prices.json: missing figure %s.value", path);
	return v;
}

double cost_pick(double given, double dflt)
{
	return isnan(given) ? dflt : given;
}

const cJSON *cost_sku_of(ctx *c, const pp_gpu *g, const char **sku_name)
{
	const cJSON *map = cost_jpath(c->tco.root, "gpu_price_skus");
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(map, g->id);
	if (!cJSON_IsString(k))
		return NULL;
	*sku_name = k->valuestring;
	return cost_jpath(cost_jpath(c->prices, "skus"), k->valuestring);
}

/* Parameters of a dense decoder model: embeddings (once when tied) + per
 * layer attention (GQA), MLP (SwiGLU: 3 matrices) and two norms. */
static double model_params(const pp_model *m)
{
	if (m->params_published > 0)
		return m->params_published;
	double h = m->hidden_size, f = m->ffn_hidden_size;
	double kv = (double)m->num_query_groups * (h / m->num_attention_heads);
	double attn = 2 * h * h + 2 * h * kv;
	double mlp = (m->swiglu ? 3 : 2) * h * f;
	double emb = (double)m->vocab_size * h * (m->tied_embeddings ? 1 : 2);
	return m->num_layers * (attn + mlp + 2 * h) + emb + h;
}

/* LoRA adapter parameters at rank r on every linear layer. */
double cost_lora_params(const pp_model *m, double rank)
{
	double h = m->hidden_size, f = m->ffn_hidden_size;
	double kv = (double)m->num_query_groups * (h / m->num_attention_heads);
	double per = (h + h) + 2 * (h + kv) + (h + h);
	per += (m->swiglu ? 3 : 2) * (h + f);
	return m->num_layers * rank * per;
}

/* ---- network: a folded-Clos (fat tree) over the NIC ports ---- */


/* Leaves take `down` endpoints each (down:up = oversubscription:1); two
 * tiers while the spines can reach every leaf (leaves <= radix), else a
 * three-tier Clos whose upper tiers are non-blocking. Rail-optimised
 * wiring uses the same switch count (rails are leaf groups). */
void cost_plan_network(int endpoints, int radix, double oversub, netplan *np)
{
	memset(np, 0, sizeof(*np));
	np->endpoints = endpoints;
	if (endpoints <= 0 || radix <= 1)
		return;
	if (endpoints <= radix) {
		np->switches = 1;
		np->links = endpoints;
		np->tiers = 1;
		return;
	}
	int down = (int)floor(radix * oversub / (1.0 + oversub));
	if (down < 1)
		down = 1;
	if (down >= radix)
		down = radix - 1;
	int up = radix - down;
	int leaves = (endpoints + down - 1) / down;
	if (leaves <= radix) {
		int spines = (leaves * up + radix - 1) / radix;
		np->switches = leaves + spines;
		np->links = endpoints + leaves * up;
		np->tiers = 2;
		return;
	}
	int half = radix / 2;
	int aggs = (leaves * up + half - 1) / half;
	int cores = (aggs * half + radix - 1) / radix;
	np->switches = leaves + aggs + cores;
	np->links = endpoints + leaves * up + aggs * half;
	np->tiers = 3;
}

/* ---- the run ---- */

static int load_assumptions(ctx *c)
{
	const pp_costspec *cs = c->cs;
	/* as_of */
	const char *asof = cs->as_of[0] ? cs->as_of : NULL;
	const cJSON *ta = cJSON_GetObjectItemCaseSensitive(c->tco.root, "as_of");
	if (!asof)
		asof = cJSON_IsString(ta) ? ta->valuestring : "2026-11-30";
	snprintf(c->r->as_of, sizeof(c->r->as_of), "%.10s", asof);
	c->as_of_y = atoi(asof);
	c->as_of_m = atoi(asof + 5);
	c->stale_months = cost_tco(c, "uncertainty.stale_months", "months");
	/* finance (prices.json ops) */
	c->disc = cost_pick(cs->discount_rate, price_at(c, "ops.finance.discount_rate", "fraction"));
	c->dep_years = cost_pick(cs->depreciation_years, 0);
	if (c->dep_years == 0) {
		const cJSON *dv = cost_jpath(c->prices, "ops.depreciation_years.default");
		c->dep_years = cJSON_IsNumber(dv) ? dv->valuedouble : NAN;
		cost_add_source(c, "prices.json ops.depreciation_years.default", c->dep_years, "years",
			   "depr_filings", "prices", "2025", false);
	}
	c->salvage = cost_pick(cs->salvage_fraction, 0);
	c->fleet_util = cost_pick(cs->fleet_utilization,
			     price_at(c, "ops.utilization.allocation_target_research", "fraction"));
	double amort = price_at(c, "ops.depreciation_years.epoch_amortization_rate_per_year", "per_year");
	c->ooms = amort / log(10.0);
	c->residual = cs->residual < 0 ? 0 : cs->residual;
	/* goodput */
	c->goodput = cs->goodput;
	c->fail = cost_pick(cs->failures_per_gpu_hour, cost_tco(c, "failures.per_gpu_hour", "per_gpu_hour"));
	c->fail_lo = c->fail * cost_tco(c, "failures.range_low_factor", "factor");
	c->fail_hi = c->fail * cost_tco(c, "failures.range_high_factor", "factor");
	c->restart_s = cost_pick(cs->restart_s, cost_tco(c, "restart.restart_s", "s"));
	c->interval_s = cs->checkpoint_interval_s;
	c->write_override = cs->checkpoint_write_s;
	c->setup_s = cost_pick(cs->job_setup_s, cost_tco(c, "restart.job_setup_s", "s"));
	c->ckpts_kept = cost_tco(c, "restart.checkpoints_kept", "count");
	c->spot_node_h = pp_gp_spot_rate_per_hour(cost_tco(c, "spot.interruptions_per_instance_month",
						      "fraction"), PP_HOURS_PER_MONTH);
	c->spot_reacquire_s = cost_tco(c, "spot.reacquire_s", "s");
	c->spot_max_nodes = cost_tco(c, "spot.max_nodes_warn", "nodes");
	/* build */
	c->facility = cs->facility < 0 ? 0 : cs->facility;
	c->pue = cost_pick(cs->pue, price_at(c, "facility.pue.other", "ratio"));
	c->kwh = cost_pick(cs->usd_per_kwh, price_at(c, "facility.electricity_usd_per_kwh.us_industrial_2025",
						"usd_per_kwh"));
	const cJSON *rg = cost_jpath(c->prices, "facility.electricity_usd_per_kwh.range_for_sensitivity");
	const cJSON *lo = cJSON_GetObjectItemCaseSensitive(rg, "low");
	const cJSON *hi = cJSON_GetObjectItemCaseSensitive(rg, "high");
	c->kwh_lo = cJSON_IsNumber(lo) ? lo->valuedouble : c->kwh;
	c->kwh_hi = cJSON_IsNumber(hi) ? hi->valuedouble : c->kwh;
	c->colo = cost_pick(cs->colo_usd_per_kw_month,
		       price_at(c, "facility.colocation_usd_per_kw_month.na_primary_250_500kw",
				"usd_per_kw_month"));
	c->support = cost_pick(cs->support_fraction,
			  price_at(c, "ops.maintenance_support_pct_of_capex_per_year.default",
				   "fraction_per_year"));
	c->software = cost_pick(cs->software_usd_per_gpu_year, 0);
	c->staff_usd = cost_pick(cs->staff_usd_per_fte_year,
			    price_at(c, "ops.staffing.loaded_cost_usd_per_fte_year", "usd_per_year"));
	c->lead_m = cost_pick(cs->lead_time_months, cost_tco(c, "build.lead_time_months", "months"));
	c->integ = cost_pick(cs->integration_fraction, cost_tco(c, "build.integration_fraction", "fraction"));
	c->haircut = cost_pick(cs->resale_haircut, cost_tco(c, "build.resale_haircut", "fraction"));
	c->idle_frac = cost_tco(c, "build.idle_draw_fraction", "fraction");
	c->draw_frac = price_at(c, "facility.avg_draw_fraction_of_server_tdp_training", "fraction");
	c->gpus_per_fte = cost_tco(c, "build.staff_gpus_per_fte", "gpus");
	c->min_fte = cost_tco(c, "build.min_staff_fte", "fte");
	c->buy_usd_per_tb = cost_tco(c, "storage.purchased_usd_per_tb", "usd_per_tb");
	c->min_tb = cost_tco(c, "storage.min_tb", "tb");
	/* rent */
	c->rent_tb_usd = cost_pick(cs->storage_usd_per_tb_month,
			      price_at(c, "storage.cloud_parallel_fs_usd_per_tb_month", "usd_per_tb_month"));
	c->rent_fte_per_1000 = cost_tco(c, "rent.staff_fte_per_1000_gpus", "fte");
	/* inference, qlora */
	if (c->work == PP_WORK_INFERENCE) {
		c->inf_ref_params = cost_tco(c, "inference.reference_params", "params");
		c->inf_eff = cost_tco(c, "inference.serving_efficiency", "fraction");
		c->inf_peak = cost_tco(c, "inference.peak_to_average", "ratio");
	}
	c->q_bits = cost_tco(c, "qlora.bits_per_param", "bits");
	c->q_rank = cost_tco(c, "qlora.lora_rank", "rank");
	c->q_adapter_bytes = cost_tco(c, "qlora.adapter_bytes_per_param", "bytes");
	c->q_dequant = cost_tco(c, "qlora.dequant_overhead", "fraction");
	/* uncertainty */
	bool calibrated = c->s->calib_profile[0] != 0;
	c->sig_step = cost_pick(cs->step_time_sigma, cost_tco(c, calibrated ? "uncertainty.step_time_sigma_calibrated"
						    : "uncertainty.step_time_sigma", "sigma"));
	c->sig_price = cost_pick(cs->price_sigma, cost_tco(c, "uncertainty.price_sigma", "sigma"));
	c->sig_price_est = fmax(c->sig_price, cost_tco(c, "uncertainty.price_sigma_estimate", "sigma"));
	c->sig_capex_min = cost_tco(c, "uncertainty.capex_sigma_min", "sigma");
	c->dem_lo = cost_tco(c, "uncertainty.utilization_low_factor", "factor");
	c->dem_hi = cost_tco(c, "uncertainty.utilization_high_factor", "factor");
	return c->rc;
}

static int resolve_work(ctx *c)
{
	const pp_costspec *cs = c->cs;
	const pp_scenario *s = c->s;
	c->work = cs->work;
	c->runs = cs->runs;
	c->train_tokens = cost_pick(cs->train_tokens, s->training.train_tokens);
	c->tokens_per_job = cs->tokens_per_job;
	c->jobs_per_month = cs->jobs_per_month;
	c->tokens_per_month = cs->tokens_per_month;
	c->output_fraction = cost_pick(cs->output_fraction, 0.5);
	c->params = model_params(&s->model);
	if (c->work == PP_WORK_RUN && !(c->train_tokens > 0))
		return pp_jdoc_errf(&s->doc, c->err, "costs.work", "a \"run\" work needs "
				    "costs.work.train_tokens or training.train_tokens");
	c->horizon_given = !isnan(cs->horizon_months);
	c->horizon_m = c->horizon_given ? cs->horizon_months : 0;
	if (!c->horizon_given && c->work != PP_WORK_RUN)
		c->horizon_m = cost_tco(c, "uncertainty.horizon_months_default", "months");
	return c->rc;
}

/* Steady training: tokens per month of the scenario's own cluster at the
 * given utilisation (or GPU-hours). */
static int capacity_tokens(ctx *c, const pp_cost_opts *opts)
{
	if (c->work != PP_WORK_CAPACITY)
		return 0;
	oin ref;
	memset(&ref, 0, sizeof(ref));
	ref.method = c->cs->method == PP_FT_AUTO ? PP_FT_FULL : (int)c->cs->method;
	pp_scenario x = *c->s;
	int rc = cost_run_engine(c, opts, NULL, &ref, &x);
	if (rc)
		return rc;
	double per_gpu_h = ref.tok_s * 3600.0 / ref.n;
	double gpu_h = !isnan(c->cs->gpu_hours_per_month) ? c->cs->gpu_hours_per_month
		       : c->cs->utilization * ref.n * PP_HOURS_PER_MONTH;
	c->cap_tokens_pm = gpu_h * per_gpu_h;
	return 0;
}

static void fill_option(const ctx *c, const oin *o, const ev *e, pp_cost_option *out)
{
	out->feasible = o->feasible;
	snprintf(out->infeasible_why, sizeof(out->infeasible_why), "%s", o->why);
	bool cluster = o->kind != PP_OPT_API;
	out->step_time_s = cluster && c->work != PP_WORK_INFERENCE ? o->step_s : NAN;
	out->tokens_per_s = cluster ? o->tok_s : NAN;
	out->mfu = cluster && c->work != PP_WORK_INFERENCE ? o->mfu : NAN;
	if (cluster && c->work != PP_WORK_INFERENCE)
		out->breakdown = o->bd;
	out->memory_per_gpu_bytes = cluster ? o->mem : NAN;
	out->memory_capacity_bytes = cluster ? o->cap : NAN;
	out->goodput = cluster ? e->goodput : NAN;
	out->checkpoint_interval_s = cluster && isfinite(e->interval_s) && e->interval_s > 0
					     ? e->interval_s : NAN;
	out->tokens_per_s_effective = cluster ? o->tok_s * e->goodput : NAN;
	out->time_to_train_s = e->ttt;
	out->lead_time_s = o->owned ? o->lead_m * PP_SECONDS_PER_MONTH : 0;
	out->gpu_hours_used = cluster ? e->gpu_hours : NAN;
	out->replicas = e->replicas;
	out->net_switches = o->nswitches;
	out->net_links = o->nlinks;
	out->net_tiers = o->tiers;
	out->storage_tb = o->tb;
	out->usd_total = e->total;
	out->usd_amortized = e->amortized;
	out->usd_marginal = e->marginal;
	double runs = c->work == PP_WORK_RUN ? c->runs
		      : c->work == PP_WORK_RECURRING ? c->jobs_per_month * c->horizon_m : NAN;
	out->usd_per_run = runs > 0 ? e->total / runs : NAN;
	out->usd_per_million_tokens = e->tokens > 0 ? e->total / (e->tokens / 1e6) : NAN;
	out->usd_per_million_tokens_marginal = e->tokens > 0 ? e->marginal / (e->tokens / 1e6) : NAN;
	out->usd_per_gpu_hour_used = cluster && e->gpu_hours > 0 ? e->total / e->gpu_hours : NAN;
	memcpy(out->components, e->comp, sizeof(out->components));
}

const draw cost_base_draw = {1, 1, 1, 1, 1, 1};

/* Build-vs-rent finance of owned option b against rent option v. */
static void finance_of(const ctx *c, const oin *ob, const pp_cost_option *b, const oin *ov,
		       const pp_cost_option *v, pp_cost_fin *f)
{
	memset(f, 0, sizeof(*f));
	f->valid = true;
	snprintf(f->versus, sizeof(f->versus), "%s", v->name);
	f->discount_rate = c->disc;
	f->utilization = c->fleet_util;
	int n = b->nmonths > v->nmonths ? b->nmonths : v->nmonths;
	double *cf = pp_xcalloc((size_t)n + 1, sizeof(double));
	for (int m = 0; m <= n; m++) {
		double cb = b->cum_usd[m < b->nmonths ? m : b->nmonths];
		double pb = m ? b->cum_usd[(m - 1) < b->nmonths ? m - 1 : b->nmonths] : 0;
		double cv = v->cum_usd[m < v->nmonths ? m : v->nmonths];
		double pv = m ? v->cum_usd[(m - 1) < v->nmonths ? m - 1 : v->nmonths] : 0;
		cf[m] = (cv - pv) - (cb - pb); /* rent avoided minus build cost */
	}
	f->capex_usd = b->cum_usd[0];
	double win = fmax(0, (double)b->nmonths - ob->lead_m) / 12.0;
	f->residual_usd = (ob->server_usd * ob->servers + ob->net_usd + ob->tb * c->buy_usd_per_tb) *
			  cost_residual_fraction(c, win, c->haircut);
	double mr = pp_fin_monthly_rate(c->disc);
	f->npv_usd = pp_fin_npv(mr, cf, (size_t)n + 1);
	double irr_m = pp_fin_irr(cf, (size_t)n + 1);
	f->irr = isnan(irr_m) ? NAN : pp_fin_annual_rate(irr_m);
	f->payback_months = pp_fin_payback(cf, (size_t)n + 1);
	f->discounted_payback_months = pp_fin_discounted_payback(mr, cf, (size_t)n + 1);
	f->crossover_month = NAN;
	for (int m = 1; m <= n; m++) {
		double cb = b->cum_usd[m < b->nmonths ? m : b->nmonths];
		double cv = v->cum_usd[m < v->nmonths ? m : v->nmonths];
		if (cb <= cv) {
			f->crossover_month = m;
			break;
		}
	}
	free(cf);
	/* fully loaded $ per used GPU-hour at the fleet utilisation */
	f->usd_per_gpu_hour_used = b->gpu_hours_used > 0 ? b->usd_amortized / b->gpu_hours_used : NAN;
	/* break-even utilisation: build $/token (F/U + V)/t_b = rent $/token
	 * r/t_v, with F the fixed and V the variable cost per GPU-hour. */
	double U = c->fleet_util;
	double kw_act = ob->server_kw * c->draw_frac, kw_idle = ob->server_kw * c->idle_frac;
	double V = (kw_act - kw_idle) * c->pue * c->kwh / ob->gpn;
	double per_used = f->usd_per_gpu_hour_used;
	double F = (per_used - V) * U; /* per available GPU-hour */
	double tb = ob->tok_s * b->goodput, tv = ov->tok_s * v->goodput;
	double rent_per_tok = v->gpu_hours_used > 0 ? (v->components[PP_CC_GPU_TIME] +
						       v->components[PP_CC_IDLE_COMMIT]) /
						      v->gpu_hours_used / (tv / ov->n)
						: NAN;
	double denom = rent_per_tok * (tb / ob->n) - V;
	f->breakeven_utilization = denom > 0 ? F / denom : NAN;
	if (!(f->breakeven_utilization > 0 && f->breakeven_utilization <= 1))
		f->breakeven_utilization = NAN;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int pp_cost_histogram(const pp_cost_option *o, int nbins, double *lo, double *hi, int *counts)
{
	if (!o->samples || o->nsamples == 0 || nbins <= 0)
		return 0;
	if (*lo >= *hi) {
		double *s = pp_xmalloc((size_t)o->nsamples * sizeof(double));
		memcpy(s, o->samples, (size_t)o->nsamples * sizeof(double));
		int n = o->nsamples;
		qsort(s, (size_t)n, sizeof(double), cmp_double);
		*lo = s[(int)(0.01 * (n - 1))];
		*hi = s[(int)(0.99 * (n - 1))];
		if (*hi <= *lo)
			*hi = *lo + 1;
		free(s);
	}
	memset(counts, 0, (size_t)nbins * sizeof(int));
	int counted = 0;
	double w = (*hi - *lo) / nbins;
	for (int i = 0; i < o->nsamples; i++) {
		double x = o->samples[i];
		if (x < *lo || x >= *hi)
			continue;
		int b = (int)((x - *lo) / w);
		if (b >= nbins)
			b = nbins - 1;
		counts[b]++;
		counted++;
	}
	return counted;
}

void pp_cost_result_release(pp_cost_result *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->noptions; i++) {
		free(r->options[i].samples);
		free(r->options[i].cum_usd);
	}
	free(r->options);
	free(r->tornado);
	free(r->sources);
	for (int i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	memset(r, 0, sizeof(*r));
}

int pp_cost_run(const pp_scenario *s, const pp_catalog *cat, const pp_cost_opts *opts,
		pp_cost_result *out, pp_err *err)
{
	double t0 = pp_mono_s();
	memset(out, 0, sizeof(*out));
	out->recommended = out->runner_up = -1;
	if (!opts || !opts->predict)
		return pp_errf(err, PP_EINTERNAL, "pp_cost_run: no step-time predictor given");
	if (!s->costs.present)
		return pp_errf(err, PP_EINPUT, "%s: no \"costs\" section; expected one with \"work\" and "
			       "\"options\" (README, \"Costs: rent vs build vs lower tier\")", s->doc.path);
	ctx c;
	memset(&c, 0, sizeof(c));
	c.s = s;
	c.cat = cat;
	c.cs = &s->costs;
	c.r = out;
	c.err = err;
	oin *oi = NULL;
	int rc;
	const pp_jdoc *pd = pp_catalog_doc(cat, "prices");
	if (!pd || !pd->root)
		return pp_errf(err, PP_EIO, "the prices catalog is not loaded");
	c.prices = pd->root;
	char *tpath = opts->tco_path ? pp_xstrdup(opts->tco_path) : pp_path_join(pp_data_dir(), "tco.json");
	rc = pp_jdoc_load(&c.tco, tpath, err);
	free(tpath);
	if (rc) {
		rc = PP_EIO;
		err->code = rc;
		goto out;
	}
	snprintf(out->scenario, sizeof(out->scenario), "%s", s->name);
	snprintf(out->question, sizeof(out->question), "%s", s->description);
	if ((rc = resolve_work(&c)) || (rc = load_assumptions(&c)) || (rc = capacity_tokens(&c, opts)))
		goto out;
	out->seed = opts->seed_given ? opts->seed : c.cs->seed_given ? c.cs->seed
		    : (unsigned long)cost_tco(&c, "uncertainty.seed", "seed");
	out->draws = opts->draws_given ? opts->draws : c.cs->draws >= 0 ? c.cs->draws
		     : (int)cost_tco(&c, "uncertainty.draws", "draws");
	if ((rc = c.rc))
		goto out;
	int n = c.cs->noptions;
	out->options = pp_xcalloc((size_t)n, sizeof(*out->options));
	out->noptions = n;
	oi = pp_xcalloc((size_t)n, sizeof(*oi));
	for (int i = 0; i < n; i++) {
		if ((rc = cost_resolve_option(&c, opts, i, &oi[i], &out->options[i])) || (rc = c.rc))
			goto out;
	}
	for (int i = 0; i < n; i++)
		oi[i].group = cost_group_of(oi, n, i);
	if (c.work == PP_WORK_RUN && !c.horizon_given) {
		double h = 0;
		for (int i = 0; i < n; i++) {
			ev e;
			cost_evaluate(&c, &oi[i], &cost_base_draw, true, &e, NULL, 0);
			if (oi[i].kind != PP_OPT_API)
				h = fmax(h, e.window_m);
		}
		c.horizon_m = h > 0 ? h : 1;
	}
	out->horizon_months = c.horizon_m;
	cost_describe_work(&c);
	for (int i = 0; i < n; i++) {
		ev e, e0;
		cost_evaluate(&c, &oi[i], &cost_base_draw, true, &e, NULL, 0);
		pp_cost_option *o = &out->options[i];
		o->nmonths = e.nm;
		o->cum_usd = pp_xcalloc((size_t)e.nm + 1, sizeof(double));
		cost_evaluate(&c, &oi[i], &cost_base_draw, true, &e, o->cum_usd, e.nm + 1);
		fill_option(&c, &oi[i], &e, o);
		cost_evaluate(&c, &oi[i], &cost_base_draw, false, &e0, NULL, 0);
		o->usd_lost_work = e.total - e0.total;
		if (out->tokens_total == 0)
			out->tokens_total = e.tokens;
		if (!o->feasible)
			cost_warnf(&c, "option \"%s\" cannot do the work: %s", o->name, o->infeasible_why);
		if (e.replicas > 1 && c.work != PP_WORK_INFERENCE)
			cost_warnf(&c, "option \"%s\" needs %.0f copies of its cluster to keep up with the demand",
			      o->name, e.replicas);
		if ((oi[i].tier == TIER_R1 || oi[i].tier == TIER_R3) &&
		    e.window_m < ceil(e.window_m / oi[i].commit_m - 1e-9) * oi[i].commit_m - 1e-6)
			cost_warnf(&c, "option \"%s\": the %.0f-month commitment outlasts the work (%.1f months); "
			      "the idle remainder is paid", o->name, oi[i].commit_m, e.window_m);
	}
	/* ranking */
	for (int i = 0; i < n; i++) {
		if (!out->options[i].feasible)
			continue;
		if (out->recommended < 0 || out->options[i].usd_total < out->options[out->recommended].usd_total) {
			out->runner_up = out->recommended;
			out->recommended = i;
		} else if (out->runner_up < 0 ||
			   out->options[i].usd_total < out->options[out->runner_up].usd_total) {
			out->runner_up = i;
		}
	}
	/* build-vs-rent finance against the cheapest rented cluster */
	int vs = -1;
	for (int i = 0; i < n; i++)
		if (out->options[i].feasible && !oi[i].owned && oi[i].kind != PP_OPT_API &&
		    (vs < 0 || out->options[i].usd_total < out->options[vs].usd_total))
			vs = i;
	for (int i = 0; i < n; i++)
		if (oi[i].owned && vs >= 0)
			finance_of(&c, &oi[i], &out->options[i], &oi[vs], &out->options[vs],
				   &out->options[i].fin);
	double tm = pp_mono_s();
	cost_monte_carlo(&c, oi, n, out->seed, out->draws);
	cost_tornado(&c, oi, out->recommended, out->runner_up);
	out->mc_elapsed_s = pp_mono_s() - tm;
	cost_recommend(&c, out->recommended, out->runner_up);
	/* stale or undated prices, one warning each */
	pp_sb stale = {0}, undated = {0};
	int nstale = 0, nund = 0;
	for (int i = 0; i < out->nsources; i++) {
		const pp_cost_source *sr = &out->sources[i];
		if (strncmp(sr->unit, "usd", 3))
			continue;
		if (isnan(sr->age_months)) {
			pp_sb_addf(&undated, "%s%s", nund++ ? "; " : "", sr->item);
		} else if (sr->age_months > c.stale_months) {
			pp_sb_addf(&stale, "%s%s (%s)", nstale++ ? "; " : "", sr->item, sr->date);
		}
	}
	if (nstale)
		cost_warnf(&c, "%d price%s older than %.0f months at %s, check before deciding: %s", nstale,
		      nstale > 1 ? "s are" : " is", c.stale_months, out->as_of, stale.buf);
	if (nund)
		cost_warnf(&c, "%d price%s undated, check before deciding: %s", nund, nund > 1 ? "s are" : " is",
		      undated.buf);
	pp_sb_release(&stale);
	pp_sb_release(&undated);
	rc = 0;
out:
	free(oi);
	pp_jdoc_release(&c.tco);
	if (rc) /* on failure the result holds nothing */
		pp_cost_result_release(out);
	out->elapsed_s = pp_mono_s() - t0;
	return rc;
}
