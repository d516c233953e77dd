/*
 * costdata.c - the run context of the TCO engine (costdata.h): the work and
 * the assumptions resolved once per run from the scenario's costs section,
 * tco.json and prices.json; the readers of their figures, each recorded in
 * the result's sources with its date; warnings; failing on bad data.
 */
#include "cost/costdata.h"
#include "calib/hwres.h"
#include "core/warn.h"
#include "engine/workload.h"

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
	va_start(ap, fmt);
	pp_warn_vaddf(&c->r->warnings, &c->r->nwarnings, fmt, ap);
	va_end(ap);
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

/* Months from a data date ("2026-11-09", "2024-Q4", "2024-H2", "2026",
 * "2026-11-09 (derived)") to as_of; NAN when undated. A year, half or
 * quarter counts from its last month, and an as_of inside it (or a date
 * after as_of) is 0 months old, never negative. */
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
	int age = (c->as_of_year - y) * 12 + (c->as_of_month - m);
	return age > 0 ? (double)age : 0.0;
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
	const pp_jdoc *models = pp_catalog_doc(c->cat, "models");
	const cJSON *doc = !strcmp(kind, "tco")      ? c->tco->root
			   : !strcmp(kind, "models") ? (models ? models->root : NULL)
						     : c->prices;
	/* a source is a key of the file's "sources", or a key and the row it
	 * points at: "epoch_prices_db (NVIDIA H100 SXM5 80GB, 2025-01-31, ...)" */
	char key[64] = "";
	const char *detail = NULL;
	if (src) {
		const char *sp = strstr(src, " (");
		size_t kl = sp ? (size_t)(sp - src) : strlen(src);
		if (kl < sizeof(key) && !memchr(src, '.', kl)) {
			memcpy(key, src, kl);
			key[kl] = '\0';
			detail = sp ? sp + 1 : NULL;
		}
	}
	const cJSON *so = key[0] ? cJSON_GetObjectItemCaseSensitive(cost_jpath(doc, "sources"), key)
				 : NULL;
	const char *what = NULL;
	if (so) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(so, "title");
		if (!cJSON_IsString(t))
			t = cJSON_GetObjectItemCaseSensitive(so, "what");
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(so, "url");
		if (cJSON_IsString(t))
			what = t->valuestring;
		if (cJSON_IsString(u))
			url = u->valuestring;
	}
	if (what && detail)
		snprintf(s->source, sizeof(s->source), "%s %s", what, detail);
	else
		snprintf(s->source, sizeof(s->source), "%s", what ? what : title);
	snprintf(s->url, sizeof(s->url), "%s", url);
	snprintf(s->date, sizeof(s->date), "%s", date ? date : "undated");
	s->estimate = estimate;
	s->assumption = !strcmp(key, "podplan_assumption");
	s->age_months = age_months(c, date);
}

/* A {value, source, date, estimate} figure of tco.json at path. */
void cost_source_finetune(ctx *c, int method)
{
	const pp_finetune_defaults *ft = pp_catalog_finetune(c->cat);
	cost_add_source(c, "models.json finetune.lora_rank", ft->lora_rank, "rank",
			ft->rank_prov.source, "models", ft->rank_prov.date, ft->rank_prov.estimate);
	if (method == PP_FT_QLORA)
		cost_add_source(c, "models.json finetune.nf4_bits_per_param", ft->nf4_bits_per_param,
				"bits", ft->bits_prov.source, "models", ft->bits_prov.date,
				ft->bits_prov.estimate);
}

double cost_tco(ctx *c, const char *path, const char *unit)
{
	const cJSON *f = cost_jpath(c->tco->root, path);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, "value");
	if (!cJSON_IsNumber(v)) {
		cost_fail_data(c, "%s: missing figure %s.value (a number)", c->tco->path, path);
		return NAN;
	}
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(f, "source");
	const cJSON *date = cJSON_GetObjectItemCaseSensitive(f, "date");
	char item[128];
	snprintf(item, sizeof(item), "tco.json %s", path);
	cost_add_source(c, item, v->valuedouble, unit,
			cJSON_IsString(src) ? src->valuestring : NULL, "tco",
			cJSON_IsString(date) ? date->valuestring : NULL,
			cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "estimate")));
	return v->valuedouble;
}

/* A prices.json figure object {value, source, date, estimate} (or any
 * object with "value"); item names it in the sources table. */
static double prices_figure(ctx *c, const cJSON *f, const char *item, const char *unit, bool *estimate)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, "value");
	if (!cJSON_IsNumber(v))
		return NAN;
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(f, "source");
	const cJSON *date = cJSON_GetObjectItemCaseSensitive(f, "date");
	bool est = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "estimate"));
	if (estimate)
		*estimate = est;
	cost_add_source(c, item, v->valuedouble, unit,
			cJSON_IsString(src) ? src->valuestring : NULL, "prices",
			cJSON_IsString(date) ? date->valuestring : NULL, est);
	return v->valuedouble;
}

static double price_at(ctx *c, const char *path, const char *unit)
{
	const cJSON *f = cost_jpath(c->prices, path);
	char item[128];
	snprintf(item, sizeof(item), "prices.json %s", path);
	double v = prices_figure(c, f, item, unit, NULL);
	if (isnan(v))
		cost_fail_data(c, "models/prices.json: missing figure %s.value", path);
	return v;
}

double cost_pick(double given, double dflt)
{
	return isnan(given) ? dflt : given;
}

/* z of the 90th percentile of a standard normal, rounded: a P10-P90
 * range [lo, hi] of a lognormal figure has sigma ln(hi / lo) / (2 z). */
#define Z90 1.2816

double cost_sigma_of_range(double lo, double hi)
{
	return log(hi / lo) / (2 * Z90);
}

const cJSON *cost_sku_of(ctx *c, const pp_gpu *g, const char **sku_name)
{
	*sku_name = pp_price_sku(c->sku_map, g);
	return *sku_name ? cost_jpath(cost_jpath(c->prices, "skus"), *sku_name) : NULL;
}

static int load_assumptions(ctx *c)
{
	const pp_costspec *cs = c->cs;
	/* as_of */
	const char *asof = cs->as_of[0] ? cs->as_of : NULL;
	const cJSON *ta = cJSON_GetObjectItemCaseSensitive(c->tco->root, "as_of");
	if (!asof)
		asof = cJSON_IsString(ta) ? ta->valuestring : "2026-11-30";
	snprintf(c->r->as_of, sizeof(c->r->as_of), "%.10s", asof);
	c->as_of_year = atoi(asof);
	c->as_of_month = atoi(asof + 5);
	c->stale_months = cost_tco(c, "uncertainty.stale_months", "months");
	c->r->stale_months = c->stale_months;
	/* finance (prices.json ops) */
	c->discount_rate_per_year =
		cost_pick(cs->discount_rate, price_at(c, "ops.finance.discount_rate", "fraction"));
	c->depreciation_years = cost_pick(cs->depreciation_years, 0);
	if (c->depreciation_years == 0) {
		const cJSON *dv = cost_jpath(c->prices, "ops.depreciation_years.default");
		c->depreciation_years = cJSON_IsNumber(dv) ? dv->valuedouble : NAN;
		cost_add_source(c, "prices.json ops.depreciation_years.default",
				c->depreciation_years, "years", "depr_filings", "prices", "2025",
				false);
	}
	c->salvage_fraction = cost_pick(cs->salvage_fraction, 0);
	c->fleet_utilization =
		cost_pick(cs->fleet_utilization,
			  price_at(c, "ops.utilization.allocation_target_research", "fraction"));
	char usrc[512];
	if (cost_cluster_utilization(c, usrc, sizeof(usrc)))
		return c->rc = c->err && c->err->code ? c->err->code : PP_EINPUT;
	if (usrc[0])
		cost_add_source(c, "finance.utilization_from (cluster simulation)",
				c->fleet_utilization, "fraction", usrc, "simulation", "", false);
	double amort =
		price_at(c, "ops.depreciation_years.epoch_amortization_rate_per_year", "per_year");
	c->market_decay_ooms_per_year = amort / log(10.0);
	c->residual_book = cs->residual < 0 ? 0 : cs->residual;
	/* goodput */
	c->goodput_on = cs->goodput;
	c->failures_per_gpu_hour = cost_pick(cs->failures_per_gpu_hour,
					     cost_tco(c, "failures.per_gpu_hour", "per_gpu_hour"));
	c->failures_per_gpu_hour_lo =
		c->failures_per_gpu_hour * cost_tco(c, "failures.range_low_factor", "factor");
	c->failures_per_gpu_hour_hi =
		c->failures_per_gpu_hour * cost_tco(c, "failures.range_high_factor", "factor");
	c->restart_s = cost_pick(cs->restart_s, cost_tco(c, "restart.restart_s", "s"));
	c->checkpoint_interval_s = cs->checkpoint_interval_s;
	c->checkpoint_write_s = cs->checkpoint_write_s;
	c->job_setup_s = cost_pick(cs->job_setup_s, cost_tco(c, "restart.job_setup_s", "s"));
	c->checkpoints_kept = cost_tco(c, "restart.checkpoints_kept", "count");
	c->spot_interruptions_per_node_hour = pp_gp_spot_rate_per_hour(
		cost_tco(c, "spot.interruptions_per_instance_month", "fraction"),
		PP_HOURS_PER_MONTH);
	c->spot_reacquire_s = cost_tco(c, "spot.reacquire_s", "s");
	c->spot_max_nodes = cost_tco(c, "spot.max_nodes_obtainable", "nodes");
	/* build */
	c->facility_owned = cs->facility < 0 ? 0 : cs->facility;
	c->pue = cost_pick(cs->pue, price_at(c, "facility.pue.other", "ratio"));
	c->usd_per_kwh = cost_pick(
		cs->usd_per_kwh,
		price_at(c, "facility.electricity_usd_per_kwh.us_industrial_2025", "usd_per_kwh"));
	const cJSON *rg =
		cost_jpath(c->prices, "facility.electricity_usd_per_kwh.range_for_sensitivity");
	const cJSON *lo = cJSON_GetObjectItemCaseSensitive(rg, "low");
	const cJSON *hi = cJSON_GetObjectItemCaseSensitive(rg, "high");
	c->usd_per_kwh_lo = cJSON_IsNumber(lo) ? lo->valuedouble : c->usd_per_kwh;
	c->usd_per_kwh_hi = cJSON_IsNumber(hi) ? hi->valuedouble : c->usd_per_kwh;
	c->colo_usd_per_kw_month =
		cost_pick(cs->colo_usd_per_kw_month,
			  price_at(c, "facility.colocation_usd_per_kw_month.na_primary_250_500kw",
				   "usd_per_kw_month"));
	c->support_fraction_per_year =
		cost_pick(cs->support_fraction,
			  price_at(c, "ops.maintenance_support_pct_of_capex_per_year.default",
				   "fraction_per_year"));
	c->software_usd_per_gpu_year = cost_pick(cs->software_usd_per_gpu_year, 0);
	c->staff_usd_per_fte_year =
		cost_pick(cs->staff_usd_per_fte_year,
			  price_at(c, "ops.staffing.loaded_cost_usd_per_fte_year", "usd_per_year"));
	c->lead_time_months =
		cost_pick(cs->lead_time_months, cost_tco(c, "build.lead_time_months", "months"));
	c->integration_fraction = cost_pick(cs->integration_fraction,
					    cost_tco(c, "build.integration_fraction", "fraction"));
	c->resale_haircut =
		cost_pick(cs->resale_haircut, cost_tco(c, "build.resale_haircut", "fraction"));
	c->idle_draw_fraction = cost_tco(c, "build.idle_draw_fraction", "fraction");
	c->active_draw_fraction =
		price_at(c, "facility.avg_draw_fraction_of_server_tdp_training", "fraction");
	c->gpus_per_fte = cost_tco(c, "build.staff_gpus_per_fte", "gpus");
	c->min_fte = cost_tco(c, "build.min_staff_fte", "fte");
	c->storage_buy_usd_per_tb = cost_tco(c, "storage.purchased_usd_per_tb", "usd_per_tb");
	c->storage_min_tb = cost_tco(c, "storage.min_tb", "tb");
	/* rent */
	c->storage_rent_usd_per_tb_month = cost_pick(
		cs->storage_usd_per_tb_month,
		price_at(c, "storage.cloud_parallel_fs_usd_per_tb_month", "usd_per_tb_month"));
	c->rent_fte_per_1000_gpus = cost_tco(c, "rent.staff_fte_per_1000_gpus", "fte");
	/* inference */
	if (c->work == PP_WORK_INFERENCE)
		c->inference_peak_to_average =
			cost_pick(cs->peak_to_average,
				  cost_tco(c, "inference.peak_to_average", "ratio"));
	/* uncertainty */
	c->step_sigma = c->step_sigma_calibrated = NAN;
	if (!(c->hwcal && c->hwcal->on)) /* else cost_step_sigmas, once the options are known */
		c->step_sigma = cost_pick(cs->step_time_sigma,
					  cost_tco(c, "uncertainty.step_time_sigma", "sigma"));
	c->price_sigma =
		cost_pick(cs->price_sigma, cost_tco(c, "uncertainty.price_sigma", "sigma"));
	c->price_sigma_estimate =
		fmax(c->price_sigma, cost_tco(c, "uncertainty.price_sigma_estimate", "sigma"));
	c->capex_sigma_min = cost_tco(c, "uncertainty.capex_sigma_min", "sigma");
	c->demand_lo_factor = cost_tco(c, "uncertainty.utilization_low_factor", "factor");
	c->demand_hi_factor = cost_tco(c, "uncertainty.utilization_high_factor", "factor");
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
	c->input_tokens_per_month = cs->input_tokens_per_month;
	c->output_tokens_per_month = cs->output_tokens_per_month;
	c->model_params = pp_model_params(&s->model); /* the engine's count */
	if (c->work == PP_WORK_RUN && !(c->train_tokens > 0))
		return pp_jdoc_errf(&s->doc, c->err, "costs.work",
				    "a \"run\" work needs "
				    "costs.work.train_tokens or training.train_tokens");
	c->horizon_given = !isnan(cs->horizon_months);
	c->horizon_months = c->horizon_given ? cs->horizon_months : 0;
	if (!c->horizon_given && c->work != PP_WORK_RUN)
		c->horizon_months = cost_tco(c, "uncertainty.horizon_months_default", "months");
	return c->rc;
}

int cost_ctx_open(ctx *c, const pp_scenario *s, const pp_catalog *cat, const char *tco_path,
		  pp_cost_result *r, pp_err *err)
{
	memset(c, 0, sizeof(*c));
	c->s = s;
	c->cat = cat;
	c->cs = &s->costs;
	c->r = r;
	c->err = err;
	const pp_jdoc *pd = pp_catalog_doc(cat, "prices");
	if (!pd || !pd->root)
		return pp_errf(err, PP_EIO, "the prices catalog is not loaded");
	c->prices = pd->root;
	/* the catalog's tco.json, read with it; another file only when asked */
	c->tco = pp_catalog_doc(cat, "tco");
	if (tco_path) {
		if (pp_jdoc_load(&c->tco_own, tco_path, err)) {
			if (err)
				err->code = PP_EIO; /* keep the loader's message */
			return PP_EIO;
		}
		c->tco = &c->tco_own;
	}
	if (!c->tco || !c->tco->root)
		return pp_errf(err, PP_EIO, "the tco catalog is not loaded");
	c->sku_map = cost_jpath(c->tco->root, "gpu_price_skus");
	return 0;
}

int cost_ctx_calibration(ctx *c, const pp_hwcal *given)
{
	if (given || !c->s->calib_profile[0]) {
		c->hwcal = given;
		return 0;
	}
	c->own_hwcal = pp_xmalloc(sizeof(*c->own_hwcal));
	c->hwcal = c->own_hwcal;
	return pp_hwcal_init(c->own_hwcal, c->s, NULL, NULL, NULL, c->err);
}

void cost_ctx_close(ctx *c)
{
	free(c->own_hwcal);
	c->own_hwcal = NULL;
	c->hwcal = NULL;
	pp_jdoc_release(&c->tco_own);
	free(c->serve_memo);
	c->serve_memo = NULL;
	c->nserve_memo = 0;
	free(c->engine_memo);
	c->engine_memo = NULL;
	c->nengine_memo = 0;
}

int cost_ctx_resolve(ctx *c)
{
	int rc;
	if ((rc = resolve_work(c)) || (rc = load_assumptions(c)))
		return rc;
	return 0;
}
