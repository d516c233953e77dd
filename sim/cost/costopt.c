/*
 * costopt.c - resolving one cost option (costopt.h): the scenario with the
 * option's overrides, its throughput from the step-time engine (LoRA and
 * QLoRA as the engine predicts them), its API or rent price, storage and staff; an
 * owned option's parts come from costown.c.
 */
#include "calib/evidence.h"
#include "cost/costopt.h"
#include "calib/hwres.h"
#include "core/fmt.h"
#include "cost/costown.h"
#include "engine/breakdown.h"
#include "cost/montecarlo.h"
#include "cost/costserve.h"

const char *const pp_cost_tier_keys[] = {"on_demand", "reserved_1y", "reserved_3y", "spot",
					 "capacity_block", "own", "api"};

/* ---- resolving options ---- */

static int apply_overrides(ctx *c, const pp_costspec_option *sp, pp_scenario *x)
{
	const pp_costspec_cluster *o = &sp->cluster;
	pp_cluster *cl = &x->cluster;
	pp_parallel *p = &x->parallel;
	pp_training *t = &x->training;
	if (o->gpu && o->gpu != cl->gpu) {
		cl->gpu = o->gpu;
		cl->gpus_per_node = o->gpu->gpus_per_node;
		cl->nvlink_domain_size = 0; /* the new SKU's */
		const pp_fabric *f = pp_catalog_fabric(c->cat, o->gpu->intra_node);
		if (f)
			cl->intra = f;
		cl->nics_per_node = cl->gpus_per_node;
	}
	if (o->num_gpus)
		cl->num_gpus = o->num_gpus;
	if (o->gpus_per_node) {
		if (o->gpus_per_node != cl->gpus_per_node)
			cl->nvlink_domain_size = 0;
		cl->gpus_per_node = o->gpus_per_node;
		if (!o->nics_per_node)
			cl->nics_per_node = o->gpus_per_node;
	}
	if (o->nvlink_domain_size)
		cl->nvlink_domain_size = o->nvlink_domain_size;
	if (o->intra)
		cl->intra = o->intra;
	if (o->inter)
		cl->inter = o->inter;
	if (o->nics_per_node)
		cl->nics_per_node = o->nics_per_node;
	if (o->oversubscription > 0)
		cl->oversubscription = o->oversubscription;
	if (o->rail_optimized >= 0)
		cl->rail_optimized = o->rail_optimized;
	if (o->storage) {
		cl->storage = o->storage;
		cl->storage_read_Bps = o->storage->read_Bps_per_node;
		cl->storage_write_Bps = o->storage->write_Bps_per_node;
	}
	if (!pp_gpu_fabric_ok(cl->gpu, cl->intra)) {
		const pp_fabric *f = pp_catalog_fabric(c->cat, cl->gpu->intra_node);
		if (f)
			cl->intra = f;
	}
	if (o->tp)
		p->tp = o->tp;
	if (o->pp)
		p->pp = o->pp;
	if (o->cp)
		p->cp = o->cp;
	if (o->vpp) {
		p->vpp = o->vpp;
		p->schedule = o->vpp > 1 ? PP_SCHED_INTERLEAVED : PP_SCHED_1F1B;
	}
	if (p->vpp > 1 && p->pp < 2) {
		p->vpp = 1;
		p->schedule = PP_SCHED_1F1B;
	}
	if (o->sequence_parallel >= 0)
		p->sequence_parallel = o->sequence_parallel;
	if (o->zero_stage >= 0)
		p->zero_stage = o->zero_stage;
	if (o->micro_batch_size)
		t->micro_batch_size = o->micro_batch_size;
	if (o->global_batch_size)
		t->global_batch_size = o->global_batch_size;
	if (o->recompute >= 0)
		t->recompute = (pp_recompute)o->recompute;
	if (c->work == PP_WORK_INFERENCE)
		return 0; /* serving: the replica's layout is the "serving" section's */
	int64_t denom = (int64_t)p->tp * p->pp * p->cp;
	if (cl->num_gpus % denom)
		return pp_jdoc_errf(&c->s->doc, c->err, sp->path, "option \"%s\": %d GPUs do not divide "
				    "into tensor %d x pipeline %d x context %d; expected a multiple "
				    "(set the option's \"parallel\")", sp->name, cl->num_gpus, p->tp,
				    p->pp, p->cp);
	p->dp = (int)(cl->num_gpus / denom);
	if (!o->global_batch_size && t->global_batch_size % (t->micro_batch_size * p->dp)) {
		/* keep the tokens per step close to the scenario's */
		int64_t per = t->micro_batch_size * p->dp;
		int64_t g = (t->global_batch_size + per - 1) / per * per;
		t->global_batch_size = g;
	}
	const char *key = NULL;
	char why[512];
	if (pp_layout_check(&x->model, t, p, cl, &key, why, sizeof(why)))
		return pp_jdoc_errf(&c->s->doc, c->err, sp->path, "option \"%s\": %s: %s", sp->name,
				    key, why);
	pp_layout_derive(t, p);
	return 0;
}

static void take_cluster(oin *o, const pp_cluster *cl)
{
	o->num_gpus = cl->num_gpus;
	o->gpus_per_node = cl->gpus_per_node;
	o->nodes = pp_cluster_nodes(cl);
	o->gpu = cl->gpu;
}

/* A training step the engine predicted in this run, with the scenario it
 * was asked about: options that ask about the same scenario byte for byte
 * (a cluster rented and built: `podplan size` weighs every searched one
 * both ways) get the same prediction without asking again. Equal bytes
 * are equal inputs, so the prediction is the one the engine would give;
 * a scenario that differs only in padding is predicted anew. */
typedef struct cost_engine_memo {
	pp_scenario x;
	pp_result res;
	double storage_read_Bps, storage_agg_read_Bps; /* of its hardware */
	bool calibrated;               /* its hardware had the profile applied */
} cost_engine_memo;

/* Predict the option's step on its (modified) cluster x; fills throughput,
 * memory and checkpoint figures. For lora/qlora the engine predicts the
 * adapters' training itself (training.finetune), with full recompute. */
static int run_engine(ctx *c, const pp_cost_opts *opts, const pp_costspec_option *sp, oin *o,
		      pp_scenario *x)
{
	pp_hw hw;
	pp_result res;
	int rc;
	bool adapters = o->method == PP_FT_LORA || o->method == PP_FT_QLORA;
	if (adapters) {
		x->training.recompute = PP_RC_FULL; /* (Q)LoRA trains with activation checkpointing */
		pp_training_set_finetune(&x->training, (pp_ft_method)o->method, c->cat);
		cost_source_finetune(c, o->method);
	}
	const cost_engine_memo *m = NULL;
	for (int i = 0; i < c->nengine_memo && !m; i++)
		if (!memcmp(&c->engine_memo[i].x, x, sizeof(*x)))
			m = &c->engine_memo[i];
	if (m) {
		res = m->res;
		hw.storage_read_Bps = m->storage_read_Bps;
		hw.storage_agg_read_Bps = m->storage_agg_read_Bps;
		o->calibrated = m->calibrated;
	} else {
		if ((rc = pp_hw_resolve(&hw, c->cat, &x->cluster, c->hwcal, c->err)))
			return rc;
		o->calibrated = hw.profile[0] != 0;
		memset(&res, 0, sizeof(res));
		pp_predict_opts po = {0};
		if ((rc = opts->predict(x, &hw, &po, &res, c->err))) {
			char msg[PP_ERR_MAX];
			snprintf(msg, sizeof(msg), "%s", c->err->msg);
			return pp_errf(c->err, rc, "option \"%s\": %s", sp ? sp->name : "(scenario)",
				       msg);
		}
		c->engine_memo = pp_xrealloc(c->engine_memo, sizeof(cost_engine_memo) *
							     ((size_t)c->nengine_memo + 1));
		cost_engine_memo *n = &c->engine_memo[c->nengine_memo++];
		n->x = *x;
		n->res = res;
		n->storage_read_Bps = hw.storage_read_Bps;
		n->storage_agg_read_Bps = hw.storage_agg_read_Bps;
		n->calibrated = o->calibrated;
	}
	take_cluster(o, &x->cluster);
	o->mem_capacity_bytes = res.memory.capacity_bytes > 0 ? res.memory.capacity_bytes
							      : x->cluster.gpu->mem_bytes;
	o->mfu = res.mfu;
	o->step_time_s = res.step_time_s;
	if (c->work != PP_WORK_INFERENCE)
		pp_evidence_band_of(c->cat, x, res.step_time_s, &o->band);
	o->breakdown = res.breakdown;
	o->tokens_per_s = res.tokens_per_s;
	o->step_scale = 1;
	if (opts->conservative && o->band.on) {
		/* the pessimistic end: the step and its parts longer, the
		 * throughput lower, by the same factor */
		o->step_scale = o->band.f_hi;
		o->step_time_s *= o->step_scale;
		o->tokens_per_s /= o->step_scale;
		for (int k = 0; k < PP_BD_COUNT; k++)
			*(double *)((char *)&o->breakdown + pp_breakdown_fields[k].offset) *= o->step_scale;
	}
	o->mem_bytes = res.memory.total_bytes;
	o->checkpoint_bytes = res.checkpoint_bytes;
	o->checkpoint_write_s = res.checkpoint_write_s;
	o->feasible = res.memory.fits;
	if (!o->feasible && !adapters)
		snprintf(o->why, sizeof(o->why), "does not fit: %.1f GiB per GPU needed, %.1f GiB "
			 "available with every weight trained (add pipeline/tensor/context "
			 "parallelism or recompute; for a fine-tune, \"method\": \"qlora\")",
			 o->mem_bytes / PP_GIB, o->mem_capacity_bytes / PP_GIB);
	else if (!o->feasible)
		snprintf(o->why, sizeof(o->why), "does not fit even with %s: %.1f GiB per GPU "
			 "needed, %.1f GiB available", pp_ft_method_names[o->method],
			 o->mem_bytes / PP_GIB, o->mem_capacity_bytes / PP_GIB);
	double rd = hw.storage_read_Bps * o->nodes;
	if (hw.storage_agg_read_Bps > 0 && rd > hw.storage_agg_read_Bps)
		rd = hw.storage_agg_read_Bps;
	o->checkpoint_load_s = rd > 0 ? o->checkpoint_bytes / rd : 0;
	return 0;
}

static double tier_term_months(int tier)
{
	return tier == TIER_R1 ? 12 : tier == TIER_R3 ? 36 : 0;
}

void cost_label_option(const oin *o, pp_cost_option *out)
{
	char money[32], fleet[160];
	double reps = out->replicas > 1 ? out->replicas : 1;
	if (o->kind != PP_OPT_API) {
		if (reps > 1)
			snprintf(fleet, sizeof(fleet), "%.0f x %d x %s", reps, o->num_gpus,
				 o->gpu->name);
		else
			snprintf(fleet, sizeof(fleet), "%d x %s", o->num_gpus, o->gpu->name);
	}
	switch (o->kind) {
	case PP_OPT_API:
		if (isfinite(o->api_usd_per_1m_input))
			snprintf(out->label, sizeof(out->label), "hosted API %s, $%.2f in / $%.2f out "
				 "per 1M tokens", out->provider, o->api_usd_per_1m_input,
				 o->api_usd_per_1m_output);
		else
			snprintf(out->label, sizeof(out->label), "hosted API %s, $%.2f per 1M tokens",
				 out->provider, o->api_usd_per_1m_tokens);
		break;
	case PP_OPT_BUILD:
		snprintf(out->label, sizeof(out->label), "build %s (%d node%s%s%s%s), %s capex",
			 fleet, o->nodes, o->nodes > 1 ? "s" : "", reps > 1 ? " each" : "",
			 o->nodes > 1 ? ", " : "", o->nodes > 1 ? out->fabric : "",
			 pp_fmt_usd(out->capex_usd, money, sizeof(money)));
		break;
	default:
		if (o->owned)
			snprintf(out->label, sizeof(out->label), "own %s%s node%s (%s capex)",
				 reps > 1 ? "" : "one ", fleet, reps > 1 ? "s" : "",
				 pp_fmt_usd(out->capex_usd, money, sizeof(money)));
		else
			snprintf(out->label, sizeof(out->label), "rent %s, %s %s%s%s, $%.2f/GPU-h",
				 fleet, out->provider, out->tier, out->payment[0] ? " paid " : "",
				 out->payment, o->usd_per_gpu_hour);
	}
}

/* ---- api options ---- */

/* The price of API option sp ($ per 1M training tokens; for an inference
 * work its input and its output price, and their blend at the work's
 * input and output volumes, which prices the work: input x p_in + output x
 * p_out), recorded in the sources, with its sigma: from the file's range
 * when it gives one instead of a value, else the price sigma. */
static int api_price(ctx *c, const pp_costspec_option *sp, oin *o)
{
	const pp_jdoc *d = &c->s->doc;
	char path[96];
	const cJSON *ft =
		cost_jpath(c->prices, "hosted_api.fine_tuning_usd_per_1m_training_tokens");
	const cJSON *inf = cost_jpath(c->prices, "hosted_api.inference_usd_per_1m_tokens");
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(ft, sp->price);
	const cJSON *fi = cJSON_GetObjectItemCaseSensitive(inf, sp->price);
	char item[128];
	snprintf(item, sizeof(item), "API %s $/1M tokens", sp->price);
	const cJSON *date = cJSON_GetObjectItemCaseSensitive(f ? f : fi, "date");
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(f ? f : fi, "source");
	bool est = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f ? f : fi, "estimate"));
	double v = NAN;
	if (f && c->work == PP_WORK_INFERENCE)
		return pp_jdoc_errf(d, c->err, pp_jpath(path, sizeof(path), sp->path, "price"),
				    "found \"%s\", a fine-tuning price, for an inference work; "
				    "expected a key of hosted_api.inference_usd_per_1m_tokens",
				    sp->price);
	if (fi && c->work != PP_WORK_INFERENCE)
		return pp_jdoc_errf(
			d, c->err, pp_jpath(path, sizeof(path), sp->path, "price"),
			"found \"%s\", an inference price, for a training work; "
			"expected a key of hosted_api.fine_tuning_usd_per_1m_training_tokens",
			sp->price);
	if (f) {
		const cJSON *val = cJSON_GetObjectItemCaseSensitive(f, "value");
		const cJSON *rg = cJSON_GetObjectItemCaseSensitive(f, "range");
		if (cJSON_IsNumber(val)) {
			v = val->valuedouble;
		} else if (cJSON_GetArraySize(rg) == 2) {
			double lo = cJSON_GetArrayItem(rg, 0)->valuedouble;
			double hi = cJSON_GetArrayItem(rg, 1)->valuedouble;
			v = sqrt(lo * hi);
			est = true;
			o->api_price_sigma = cost_sigma_of_range(lo, hi);
		}
	} else if (fi) {
		const cJSON *in = cJSON_GetObjectItemCaseSensitive(fi, "input");
		const cJSON *ou = cJSON_GetObjectItemCaseSensitive(fi, "output");
		double vi = c->input_tokens_per_month, vo = c->output_tokens_per_month;
		if (cJSON_IsNumber(in) && cJSON_IsNumber(ou) && in->valuedouble > 0 &&
		    ou->valuedouble > 0) {
			o->api_usd_per_1m_input = in->valuedouble;
			o->api_usd_per_1m_output = ou->valuedouble;
			v = (vi * in->valuedouble + vo * ou->valuedouble) / (vi + vo);
			char it[160];
			snprintf(it, sizeof(it), "API %s $/1M input tokens", sp->price);
			cost_add_source(c, it, in->valuedouble, "usd_per_1m_tokens",
					cJSON_IsString(src) ? src->valuestring : NULL, "prices",
					cJSON_IsString(date) ? date->valuestring : NULL, est);
			snprintf(it, sizeof(it), "API %s $/1M output tokens", sp->price);
			cost_add_source(c, it, ou->valuedouble, "usd_per_1m_tokens",
					cJSON_IsString(src) ? src->valuestring : NULL, "prices",
					cJSON_IsString(date) ? date->valuestring : NULL, est);
		}
	}
	if (isnan(v) || v <= 0) {
		const cJSON *note = cJSON_GetObjectItemCaseSensitive(f, "note");
		return pp_jdoc_errf(d, c->err, pp_jpath(path, sizeof(path), sp->path, "price"),
				    "prices.json has no number for \"%s\" (%s); expected a priced "
				    "API",
				    sp->price,
				    cJSON_IsString(note) ? note->valuestring : "no value");
	}
	if (!fi)
		cost_add_source(c, item, v, "usd_per_1m_tokens",
				cJSON_IsString(src) ? src->valuestring : NULL, "prices",
				cJSON_IsString(date) ? date->valuestring : NULL, est);
	o->api_usd_per_1m_tokens = v;
	if (o->api_price_sigma == 0)
		o->api_price_sigma = est ? c->price_sigma_estimate : c->price_sigma;
	return 0;
}

/* The model sizes an API price key is for, in parameters: "..._le16B"
 * (up to 16B), "..._gt300B" (above 300B), "..._16_80B"; [0, inf) when the
 * key names none. */
static void api_size_class(const char *k, double *lo, double *hi)
{
	*lo = 0;
	*hi = INFINITY;
	const char *u;
	int a, b;
	const char *last = strrchr(k, '_');
	if ((u = strstr(k, "_le")) && sscanf(u, "_le%dB", &a) == 1) {
		*hi = a * 1e9;
	} else if ((u = strstr(k, "_gt")) && sscanf(u, "_gt%dB", &a) == 1) {
		*lo = a * 1e9;
	} else if (last) {
		const char *q = last - 1;
		while (q > k && *q != '_')
			q--;
		if (sscanf(q, "_%d_%dB", &a, &b) == 2) {
			*lo = a * 1e9;
			*hi = b * 1e9;
		}
	}
}

static int resolve_api(ctx *c, const pp_costspec_option *sp, oin *o, pp_cost_option *out)
{
	int rc;
	o->tier = TIER_API;
	snprintf(out->provider, sizeof(out->provider), "%s", sp->price);
	snprintf(out->tier, sizeof(out->tier), "api");
	if ((rc = api_price(c, sp, o)))
		return rc;
	double lo, hi;
	api_size_class(sp->price, &lo, &hi);
	if (c->work != PP_WORK_INFERENCE &&
	    (c->model_params < lo * 0.999 || c->model_params > hi * 1.001)) {
		o->feasible = false;
		snprintf(o->why, sizeof(o->why), "the price \"%s\" is for models of %.0f-%.0fB "
			 "parameters; this model has %.1fB", sp->price, lo / 1e9,
			 isfinite(hi) ? hi / 1e9 : 1e4, c->model_params / 1e9);
	}
	if (strstr(sp->price, "openai") || strstr(sp->price, "anthropic"))
		cost_warnf(
			c,
			"option \"%s\" prices fine-tuning or serving of the provider's own closed "
			"model, not %s: the model differs from the scenario's",
			sp->name, c->s->model.name);
	return 0;
}

/* ---- cluster options: throughput ---- */

/* Training: the engine's step on x; the auto method falls back to qlora
 * when every weight trained does not fit. */
static int training_throughput(ctx *c, const pp_cost_opts *opts, const pp_costspec_option *sp,
			       const pp_scenario *x, oin *o, pp_cost_option *out)
{
	int rc;
	o->method = o->method == PP_FT_AUTO ? PP_FT_FULL : o->method;
	pp_scenario y = *x;
	if ((rc = run_engine(c, opts, sp, o, &y)))
		return rc;
	if (!o->feasible && sp->method < 0 && c->cs->method == PP_FT_AUTO) {
		o->method = PP_FT_QLORA;
		y = *x;
		if ((rc = run_engine(c, opts, sp, o, &y)))
			return rc;
	}
	snprintf(out->method, sizeof(out->method), "%s", pp_ft_method_names[o->method]);
	return 0;
}

/* ---- cluster options: prices and parts ---- */

/* How a reserved option's commitment is paid: the option's "payment",
 * else prices.json's ops.reservation_payment for the provider's cloud (the
 * provider key up to its first '_': "aws_p5.48xlarge" -> "aws"), else its
 * default; partial pays tco.json's rent.partial_upfront_fraction of each
 * commitment when it starts. Recorded in the sources. */
static int reservation_payment(ctx *c, const pp_costspec_option *sp, oin *o,
			       pp_cost_option *out)
{
	char cloud[32], item[160];
	const char *prov = out->provider;
	const char *u = strchr(prov, '_');
	snprintf(cloud, sizeof(cloud), "%.*s", u ? (int)(u - prov) : 31, prov);
	const cJSON *rp = cost_jpath(c->prices, "ops.reservation_payment");
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(rp, "by_cloud"), cloud);
	if (!f)
		f = cJSON_GetObjectItemCaseSensitive(rp, "default");
	int pay = sp->payment;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, "value");
	if (pay < 0) {
		for (int k = 0; k < PP_PAY_COUNT && cJSON_IsString(v); k++)
			if (!strcmp(v->valuestring, pp_payment_names[k]))
				pay = k;
		if (pay < 0)
			return cost_fail_data(c, "models/prices.json: ops.reservation_payment needs a "
					      "\"default\" {\"value\": \"upfront|partial|monthly\", ...}");
	}
	o->payment = pay;
	o->upfront_fraction = pay == PP_PAY_UPFRONT ? 1 : pay == PP_PAY_MONTHLY ? 0
			      : cost_tco(c, "rent.partial_upfront_fraction", "fraction");
	snprintf(out->payment, sizeof(out->payment), "%s", pp_payment_names[pay]);
	if (sp->payment < 0) {
		const cJSON *src = cJSON_GetObjectItemCaseSensitive(f, "source");
		const cJSON *date = cJSON_GetObjectItemCaseSensitive(f, "date");
		snprintf(item, sizeof(item), "reservation payment (%s default): %s", cloud,
			 pp_payment_names[pay]);
		cost_add_source(c, item, o->upfront_fraction, "fraction_upfront",
				cJSON_IsString(src) ? src->valuestring : NULL, "prices",
				cJSON_IsString(date) ? date->valuestring : NULL,
				cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "estimate")));
	}
	return c->rc;
}

/* A rented option's $/GPU-hour (prices.json through pp_price_lookup(), or
 * the option's own), its sigma and commitment, the spot-size warning and
 * the platform staff. */
static int resolve_rent(ctx *c, const pp_costspec_option *sp, const char *skuname, oin *o,
			pp_cost_option *out)
{
	const pp_jdoc *d = &c->s->doc;
	char path[96], item[160];
	int rc;
	int t = 0;
	for (int i = 0; i < 5; i++)
		if (!strcmp(sp->tier, pp_cost_tier_keys[i]))
			t = i;
	o->tier = t;
	const char *tier = pp_cost_tier_keys[t];
	snprintf(out->provider, sizeof(out->provider), "%s", sp->provider);
	snprintf(out->tier, sizeof(out->tier), "%s", tier);
	pp_price p;
	double rate = NAN;
	bool est = false;
	if (!pp_price_lookup(c->cat, c->sku_map, o->gpu, sp->provider, tier, &p, NULL)) {
		rate = p.usd_per_gpu_hour;
		est = p.estimate;
		if (!sp->provider[0]) /* no provider named (podplan size): the cheapest */
			snprintf(out->provider, sizeof(out->provider), "%s", p.provider);
		snprintf(item, sizeof(item), "%s %s %s", skuname, out->provider, tier);
		cost_add_source(c, item, rate, "usd_per_gpu_hour", p.source, "prices", p.date, est);
		snprintf(o->price_date, sizeof(o->price_date), "%s", p.date ? p.date : "");
	}
	if (!isnan(sp->usd_per_gpu_hour)) {
		rate = sp->usd_per_gpu_hour;
		est = false;
		if (!sp->provider[0]) /* the option's own price, from no provider of the catalog */
			snprintf(out->provider, sizeof(out->provider), "scenario price");
		snprintf(item, sizeof(item), "%s %s %s (scenario override)", skuname, out->provider,
			 tier);
		cost_add_source(c, item, rate, "usd_per_gpu_hour", "scenario file", "prices",
				c->r->as_of, false);
		snprintf(o->price_date, sizeof(o->price_date), "%s", c->r->as_of);
	}
	if (isnan(rate)) {
		pp_sb avail = {0};
		bool listed = pp_price_tiers(c->cat, skuname, sp->provider, &avail);
		rc = pp_jdoc_errf(
			d, c->err,
			pp_jpath(path, sizeof(path), sp->path, listed ? "tier" : "provider"),
			"option \"%s\": prices.json has no %s price from \"%s\" for %s; "
			"%s%s (or give \"usd_per_gpu_hour\")",
			sp->name, tier, sp->provider, skuname,
			listed ? "priced tiers: " : "that provider does not rent this GPU",
			avail.buf ? avail.buf : "");
		pp_sb_release(&avail);
		return rc;
	}
	o->usd_per_gpu_hour = rate;
	o->price_sigma = est ? c->price_sigma_estimate : c->price_sigma;
	o->commit_months = cost_pick(sp->commitment_months, tier_term_months(t));
	if ((t == TIER_R1 || t == TIER_R3) && (rc = reservation_payment(c, sp, o, out)))
		return rc;
	o->staff_fte = isnan(sp->staff_fte) ? c->rent_fte_per_1000_gpus * o->num_gpus / 1000.0
					    : sp->staff_fte;
	return 0;
}

/* The shared file system of a multi-node cluster: the dataset of one run
 * or job (a month of steady training) and the kept checkpoints, at least
 * tco.json's storage.min_tb. One node uses its local disks. */
static double shared_storage_tb(const ctx *c, const oin *o)
{
	double tok = c->work == PP_WORK_RUN ? c->train_tokens
		     : c->work == PP_WORK_RECURRING ? c->tokens_per_job
		     : c->capacity_tokens_per_month;
	double bytes = tok * c->s->training.data_bytes_per_token +
		       c->checkpoints_kept * o->checkpoint_bytes;
	return fmax(c->storage_min_tb, bytes / 1e12);
}

/* A cluster option: the scenario with the option's overrides, then its
 * throughput, its price or parts, and its storage. */
static int resolve_cluster(ctx *c, const pp_cost_opts *opts, const pp_costspec_option *sp,
			   oin *o, pp_cost_option *out)
{
	const pp_jdoc *d = &c->s->doc;
	int rc;
	pp_scenario x = *c->s;
	if ((rc = apply_overrides(c, sp, &x)))
		return rc;
	o->owned = o->kind == PP_OPT_BUILD || (o->kind == PP_OPT_TIER4 && sp->own);
	/* A tier4 option is the class of one server of at most 8 GPUs: no
	 * fabric between nodes, no shared file system, no cluster staff. More
	 * GPUs, or a "node" made larger than the box, would be priced as
	 * several servers or rented instances under the tier4 name; the user
	 * who wrote tier4 meant one box, so the scenario is refused (a
	 * multi-node option is "rent" or "build"). */
	if (o->kind == PP_OPT_TIER4 &&
	    (pp_cluster_nodes(&x.cluster) > 1 || x.cluster.num_gpus > PP_TIER4_MAX_GPUS)) {
		char path[160];
		int nodes = pp_cluster_nodes(&x.cluster);
		return pp_jdoc_errf(d, c->err,
				    sp->cluster.num_gpus ? pp_jpath(path, sizeof(path), sp->path,
								    "cluster.num_gpus") : sp->path,
				    "option \"%s\": found %d GPUs (%d node%s of %d), expected a tier4 "
				    "option to be one node of at most %d GPUs; use kind \"rent\" or "
				    "\"build\" for a cluster of several nodes", sp->name,
				    x.cluster.num_gpus, nodes, nodes == 1 ? "" : "s",
				    x.cluster.gpus_per_node, PP_TIER4_MAX_GPUS);
	}
	snprintf(out->gpu, sizeof(out->gpu), "%s", x.cluster.gpu->id);
	out->num_gpus = x.cluster.num_gpus;
	snprintf(out->fabric, sizeof(out->fabric), "%s",
		 pp_cluster_nodes(&x.cluster) > 1 ? x.cluster.inter->id : "");
	if (c->work != PP_WORK_INFERENCE)
		rc = training_throughput(c, opts, sp, &x, o, out);
	else
		rc = cost_serve_throughput(c, sp, &x, o, out);
	if (rc)
		return rc;
	const char *skuname = NULL;
	const cJSON *sku = cost_sku_of(c, o->gpu, &skuname);
	/* a GPU with no public price in prices.json is priced by the option */
	bool own_price = o->owned ? !isnan(sp->server_usd) : !isnan(sp->usd_per_gpu_hour);
	if (!sku && !own_price)
		return pp_jdoc_errf(d, c->err, sp->path, "option \"%s\": no public price for GPU "
				    "\"%s\" in prices.json (tco.json gpu_price_skus has no entry); "
				    "expected \"%s\" on the option", sp->name, o->gpu->id,
				    o->owned ? "server_usd" : "usd_per_gpu_hour");
	if (!skuname)
		skuname = o->gpu->id;
	rc = o->owned ? cost_resolve_owned(c, sp, skuname, sku, &x.cluster, o, out)
		      : resolve_rent(c, sp, skuname, o, out);
	if (rc)
		return rc;
	if (o->nodes > 1)
		o->storage_tb = o->owned && !isnan(c->cs->storage_tb) ? c->cs->storage_tb
								      : shared_storage_tb(c, o);
	return 0;
}

int cost_resolve_option(ctx *c, const pp_cost_opts *opts, int idx, oin *o, pp_cost_option *out)
{
	const pp_costspec_option *sp = &c->cs->options[idx];
	memset(o, 0, sizeof(*o));
	o->api_usd_per_1m_input = o->api_usd_per_1m_output = NAN;
	o->spec = sp;
	o->kind = sp->kind;
	o->method = sp->method >= 0 ? sp->method : (int)c->cs->method;
	o->feasible = true;
	snprintf(out->name, sizeof(out->name), "%s", sp->name);
	out->kind = (pp_option_kind)sp->kind;
	snprintf(out->method, sizeof(out->method), "%s", pp_ft_method_names[o->method]);
	if (o->kind == PP_OPT_API)
		return resolve_api(c, sp, o, out);
	return resolve_cluster(c, opts, sp, o, out);
}

int cost_capacity_tokens(ctx *c, const pp_cost_opts *opts)
{
	if (c->work != PP_WORK_CAPACITY)
		return 0;
	oin ref;
	memset(&ref, 0, sizeof(ref));
	ref.method = c->cs->method == PP_FT_AUTO ? PP_FT_FULL : (int)c->cs->method;
	pp_scenario x = *c->s;
	int rc = run_engine(c, opts, NULL, &ref, &x);
	if (rc)
		return rc;
	double per_gpu_h = ref.tokens_per_s * 3600.0 / ref.num_gpus;
	double gpu_h = !isnan(c->cs->gpu_hours_per_month) ? c->cs->gpu_hours_per_month
		       : c->capacity_utilization * ref.num_gpus * PP_HOURS_PER_MONTH;
	c->capacity_tokens_per_month = gpu_h * per_gpu_h;
	return 0;
}

void cost_step_sigmas(ctx *c, const oin *oi, int n)
{
	if (!(c->hwcal && c->hwcal->on))
		return;
	bool cal = false;
	for (int i = 0; i < n; i++)
		cal |= oi[i].calibrated;
	/* the catalog's sigma always (every option not calibrated, an API's draws) */
	c->step_sigma = cost_pick(c->cs->step_time_sigma,
				  cost_tco(c, "uncertainty.step_time_sigma", "sigma"));
	if (cal)
		c->step_sigma_calibrated =
			cost_pick(c->cs->step_time_sigma,
				  cost_tco(c, "uncertainty.step_time_sigma_calibrated", "sigma"));
}

double cost_step_sigma_of(const ctx *c, const oin *o)
{
	return o->calibrated ? c->step_sigma_calibrated : c->step_sigma;
}

void cost_step_spread(const ctx *c, const oin *o, double *mu, double *sigma)
{
	/* costs.uncertainty.step_time_sigma, where the scenario gives one, wins */
	if (isnan(c->cs->step_time_sigma) && o->band.on && o->band.f_lo > 0 &&
	    o->band.f_hi >= o->band.f_lo) {
		double z90 = log(pp_mc_lognormal_q(1.0, 0.90)); /* the normal's 90th percentile */
		/* around the prediction, whatever step the base case took */
		*mu = (log(o->band.f_lo) + log(o->band.f_hi)) / 2 - log(o->step_scale > 0 ? o->step_scale : 1);
		*sigma = (log(o->band.f_hi) - log(o->band.f_lo)) / (2 * z90);
		return;
	}
	*mu = 0;
	*sigma = cost_step_sigma_of(c, o);
}
