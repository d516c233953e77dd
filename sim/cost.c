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
#include "cost.h"
#include "finance.h"
#include "goodput.h"
#include "montecarlo.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_option_kind_names[PP_OPT_KIND_COUNT] = {"rent", "build", "api", "tier4"};
const char *const pp_cost_comp_names[PP_CC_COUNT] = {"gpu_time", "idle_commitment", "servers",
						     "network", "storage", "facility", "support",
						     "staff", "api"};

enum { TIER_OD, TIER_R1, TIER_R3, TIER_SPOT, TIER_CB, TIER_OWN, TIER_API };
static const char *const tier_keys[] = {"on_demand", "reserved_1y", "reserved_3y", "spot",
					"capacity_block", "own", "api"};

#define MAX_GROUPS 64

/* Everything resolved once per run. */
typedef struct ctx {
	const pp_scenario *s;
	const pp_catalog *cat;
	const pp_costspec *cs;
	pp_cost_result *r;
	pp_jdoc tco;
	const cJSON *prices;
	int rc;
	pp_err *err;
	/* work */
	int work;
	double runs, train_tokens, tokens_per_job, jobs_per_month, tokens_per_month, output_fraction;
	double cap_tokens_pm;
	double horizon_m;
	bool horizon_given;
	double params;
	/* finance */
	double disc, dep_years, salvage, fleet_util, ooms;
	int residual;
	/* goodput */
	bool goodput;
	double fail, fail_lo, fail_hi, restart_s, interval_s, write_override, setup_s;
	double spot_node_h, spot_reacquire_s, spot_max_nodes;
	/* build */
	int facility;
	double pue, kwh, kwh_lo, kwh_hi, colo, support, software, staff_usd, lead_m, integ, haircut;
	double idle_frac, draw_frac, gpus_per_fte, min_fte, buy_usd_per_tb, min_tb, ckpts_kept;
	/* rent */
	double rent_tb_usd, rent_fte_per_1000;
	/* inference, qlora */
	double inf_ref_params, inf_eff, inf_peak;
	double q_bits, q_rank, q_adapter_bytes, q_dequant;
	/* uncertainty */
	double sig_step, sig_price, sig_price_est, sig_capex_min, dem_lo, dem_hi, stale_months;
	int as_of_y, as_of_m;
} ctx;

/* One option, resolved. */
typedef struct oin {
	const pp_costspec_option *spec;
	int kind, tier, method;
	bool owned;
	double rate, rate_sigma, commit_m;
	const pp_gpu *gpu;
	int n, nodes, gpn, group;
	bool feasible;
	char why[256];
	double tok_s, step_s, mfu, mem, cap, ckpt_bytes, ckpt_write_s, ckpt_load_s;
	pp_breakdown bd;    /* step_s's parts (reports' step-time chart) */
	double inf_tok_s;
	/* owned */
	double server_usd, server_kw, servers, net_usd, switch_kw, tb, capex_sigma, fte, lead_m;
	int nswitches, nlinks, tiers;
	/* api */
	double api_usd_per_mtok, api_sigma;
} oin;

/* One Monte Carlo draw (or the base case: every factor 1). */
typedef struct draw {
	double step, price, capex, fail, demand, kwh;
} draw;

typedef struct ev {
	double total, comp[PP_CC_COUNT], marginal, amortized, gpu_hours, ttt, goodput, interval_s;
	double replicas, tokens, window_m, used_gpu_h_per_year_avail;
	int nm;
} ev;

/* ---- small helpers ---- */

static int fail_data(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail_data(ctx *c, const char *fmt, ...)
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

static void warnf(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warnf(ctx *c, const char *fmt, ...)
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

static const cJSON *jpath(const cJSON *root, const char *path)
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
static void add_source(ctx *c, const char *item, double value, const char *unit, const char *src,
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
	const cJSON *so = src ? jpath(jpath(doc, "sources"), src) : NULL;
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
static double tco(ctx *c, const char *path, const char *unit)
{
	const cJSON *f = jpath(c->tco.root, path);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, "value");
	if (!cJSON_IsNumber(v)) {
		fail_data(c, "%s: missing figure %s.value (a number)", c->tco.path, path);
		return NAN;
	}
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(f, "source");
	const cJSON *date = cJSON_GetObjectItemCaseSensitive(f, "date");
	char item[128];
	snprintf(item, sizeof(item), "tco.json %s", path);
	add_source(c, item, v->valuedouble, unit, cJSON_IsString(src) ? src->valuestring : NULL, "tco",
		   cJSON_IsString(date) ? date->valuestring : NULL,
		   cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "estimate")));
	return v->valuedouble;
}

/* A prices.json figure object {value, source, date, estimate} (or any
 * object with "value"); item names it in the sources table. */
static double pfig(ctx *c, const cJSON *f, const char *item, const char *unit, bool *estimate)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, "value");
	if (!cJSON_IsNumber(v))
		return NAN;
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(f, "source");
	const cJSON *date = cJSON_GetObjectItemCaseSensitive(f, "date");
	bool est = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "estimate"));
	if (estimate)
		*estimate = est;
	add_source(c, item, v->valuedouble, unit, cJSON_IsString(src) ? src->valuestring : NULL,
		   "prices", cJSON_IsString(date) ? date->valuestring : NULL, est);
	return v->valuedouble;
}

static double price_at(ctx *c, const char *path, const char *unit)
{
	const cJSON *f = jpath(c->prices, path);
	char item[128];
	snprintf(item, sizeof(item), "prices.json %s", path);
	double v = pfig(c, f, item, unit, NULL);
	if (isnan(v))
		fail_data(c, "models/prices.json: missing figure %s.value", path);
	return v;
}

static double pick(double given, double dflt)
{
	return isnan(given) ? dflt : given;
}

static const cJSON *sku_of(ctx *c, const pp_gpu *g, const char **sku_name)
{
	const cJSON *map = jpath(c->tco.root, "gpu_price_skus");
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(map, g->id);
	if (!cJSON_IsString(k))
		return NULL;
	*sku_name = k->valuestring;
	return jpath(jpath(c->prices, "skus"), k->valuestring);
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
static double lora_params(const pp_model *m, double rank)
{
	double h = m->hidden_size, f = m->ffn_hidden_size;
	double kv = (double)m->num_query_groups * (h / m->num_attention_heads);
	double per = (h + h) + 2 * (h + kv) + (h + h);
	per += (m->swiglu ? 3 : 2) * (h + f);
	return m->num_layers * rank * per;
}

/* ---- network: a folded-Clos (fat tree) over the NIC ports ---- */

typedef struct netplan {
	int endpoints, switches, links, tiers;
} netplan;

/* Leaves take `down` endpoints each (down:up = oversubscription:1); two
 * tiers while the spines can reach every leaf (leaves <= radix), else a
 * three-tier Clos whose upper tiers are non-blocking. Rail-optimised
 * wiring uses the same switch count (rails are leaf groups). */
static void plan_network(int endpoints, int radix, double oversub, netplan *np)
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
		const pp_fabric *f = pp_catalog_fabric(c->cat, o->gpu->intra_node);
		if (f)
			cl->intra = f;
		cl->nics_per_node = cl->gpus_per_node;
	}
	if (o->num_gpus)
		cl->num_gpus = o->num_gpus;
	if (o->gpus_per_node) {
		cl->gpus_per_node = o->gpus_per_node;
		if (!o->nics_per_node)
			cl->nics_per_node = o->gpus_per_node;
	}
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
	if (cl->intra->kind == PP_FAB_NVLINK && !cl->gpu->nvlink_gen) {
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

/* Predict the option's step on its (modified) cluster; fills throughput,
 * memory and checkpoint figures, and handles lora/qlora. */
static int run_engine(ctx *c, const pp_cost_opts *opts, const pp_costspec_option *sp, oin *o,
		      pp_scenario *x)
{
	pp_hw hw;
	pp_result res;
	int rc;
	int method = o->method;
	bool adapters = method == PP_FT_LORA || method == PP_FT_QLORA;
	if (adapters)
		x->training.recompute = PP_RC_FULL; /* (Q)LoRA trains with activation checkpointing */
	if ((rc = pp_hw_from_catalog(&hw, c->cat, &x->cluster, c->err)))
		return rc;
	memset(&res, 0, sizeof(res));
	pp_predict_opts po = {0};
	if ((rc = opts->predict(x, &hw, &po, &res, c->err))) {
		char msg[PP_ERR_MAX];
		snprintf(msg, sizeof(msg), "%s", c->err->msg);
		return pp_errf(c->err, rc, "option \"%s\": %s", sp ? sp->name : "(scenario)", msg);
	}
	o->n = x->cluster.num_gpus;
	o->gpn = x->cluster.gpus_per_node;
	o->nodes = pp_cluster_nodes(&x->cluster);
	o->gpu = x->cluster.gpu;
	o->cap = res.memory.capacity_bytes > 0 ? res.memory.capacity_bytes : x->cluster.gpu->mem_bytes;
	o->mfu = res.mfu;
	double P = res.params_total > 0 ? res.params_total : c->params;
	if (!adapters) {
		o->step_s = res.step_time_s;
		o->bd = res.breakdown;
		o->tok_s = res.tokens_per_s;
		o->mem = res.memory.total_bytes;
		o->ckpt_bytes = res.checkpoint_bytes;
		o->ckpt_write_s = res.checkpoint_write_s;
		o->feasible = res.memory.fits;
		if (!o->feasible)
			snprintf(o->why, sizeof(o->why), "does not fit: %.1f GiB per GPU needed, %.1f GiB "
				 "available with every weight trained (add pipeline/tensor/context "
				 "parallelism or recompute; for a fine-tune, \"method\": \"qlora\")",
				 o->mem / PP_GIB, o->cap / PP_GIB);
	} else {
		/* Frozen base: no weight gradients, so with full recompute the
		 * FLOPs are fwd + recompute fwd + input-grad bwd = 6N of the 8N
		 * per token (Dettmers et al. 2023; Korthikanti et al. 2022). */
		double A = lora_params(&x->model, c->q_rank);
		double shard = (double)x->parallel.tp * x->parallel.pp;
		const pp_breakdown *b = &res.breakdown;
		double k = 0.75 * (method == PP_FT_QLORA ? 1.0 + c->q_dequant : 1.0);
		double small = P > 0 ? A / P : 0;
		o->step_s = (b->compute_s + b->pp_bubble_s) * k + b->tp_comm_exposed_s +
			    b->pp_comm_exposed_s + b->data_s + (b->dp_comm_exposed_s + b->optimizer_s) * small;
		/* the same terms, kept apart for the step-time breakdown */
		o->bd = *b;
		o->bd.compute_s *= k;
		o->bd.pp_bubble_s *= k;
		o->bd.dp_comm_exposed_s *= small;
		o->bd.optimizer_s *= small;
		if (o->step_s <= 0)
			o->step_s = res.step_time_s * 0.75;
		o->tok_s = res.tokens_per_step / o->step_s;
		double wbytes = method == PP_FT_QLORA ? c->q_bits / 8.0 : 2.0;
		o->mem = P * wbytes / shard + A * c->q_adapter_bytes / shard + res.memory.activations_bytes +
			 res.memory.temp_bytes + res.memory.fragmentation_bytes;
		o->ckpt_bytes = A * c->q_adapter_bytes;
		o->ckpt_write_s = res.checkpoint_bytes > 0 ? res.checkpoint_write_s * o->ckpt_bytes /
							     res.checkpoint_bytes : 0;
		o->feasible = o->mem <= o->cap;
		if (!o->feasible)
			snprintf(o->why, sizeof(o->why), "does not fit even with %s: %.1f GiB per GPU "
				 "needed, %.1f GiB available", pp_ft_method_names[method], o->mem / PP_GIB,
				 o->cap / PP_GIB);
	}
	double rd = hw.storage_read_Bps * o->nodes;
	if (hw.storage_agg_read_Bps > 0 && rd > hw.storage_agg_read_Bps)
		rd = hw.storage_agg_read_Bps;
	o->ckpt_load_s = rd > 0 ? o->ckpt_bytes / rd : 0;
	return 0;
}

static double tier_term_months(int tier)
{
	return tier == TIER_R1 ? 12 : tier == TIER_R3 ? 36 : 0;
}

static void label_option(oin *o, pp_cost_option *out)
{
	char money[32];
	switch (o->kind) {
	case PP_OPT_API:
		snprintf(out->label, sizeof(out->label), "hosted API %s, $%.2f per 1M tokens",
			 out->provider, o->api_usd_per_mtok);
		break;
	case PP_OPT_BUILD:
		snprintf(out->label, sizeof(out->label), "build %d x %s (%d nodes%s%s), %s capex", o->n,
			 o->gpu->name, o->nodes, o->nodes > 1 ? ", " : "",
			 o->nodes > 1 ? out->fabric : "",
			 pp_fmt_usd(o->server_usd * o->servers + o->net_usd, money, sizeof(money)));
		break;
	default:
		if (o->owned)
			snprintf(out->label, sizeof(out->label), "own one %d x %s node (%s)", o->n,
				 o->gpu->name, pp_fmt_usd(o->server_usd, money, sizeof(money)));
		else
			snprintf(out->label, sizeof(out->label), "rent %d x %s, %s %s, $%.2f/GPU-h", o->n,
				 o->gpu->name, out->provider, out->tier, o->rate);
	}
}

static int resolve_option(ctx *c, const pp_cost_opts *opts, int idx, oin *o, pp_cost_option *out)
{
	const pp_costspec_option *sp = &c->cs->options[idx];
	const pp_jdoc *d = &c->s->doc;
	char path[96];
	int rc;
	memset(o, 0, sizeof(*o));
	o->spec = sp;
	o->kind = sp->kind;
	o->method = sp->method >= 0 ? sp->method : (int)c->cs->method;
	o->feasible = true;
	snprintf(out->name, sizeof(out->name), "%s", sp->name);
	out->kind = (pp_option_kind)sp->kind;
	snprintf(out->method, sizeof(out->method), "%s", pp_ft_method_names[o->method]);
	if (o->kind == PP_OPT_API) {
		o->tier = TIER_API;
		snprintf(out->provider, sizeof(out->provider), "%s", sp->price);
		snprintf(out->tier, sizeof(out->tier), "api");
		const cJSON *ft = jpath(c->prices, "hosted_api.fine_tuning_usd_per_1m_training_tokens");
		const cJSON *inf = jpath(c->prices, "hosted_api.inference_usd_per_1m_tokens");
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
			return pp_jdoc_errf(d, c->err, pp_jpath(path, sizeof(path), sp->path, "price"),
					    "found \"%s\", an inference price, for a training work; "
					    "expected a key of hosted_api.fine_tuning_usd_per_1m_training_tokens",
					    sp->price);
		if (f) {
			const cJSON *val = cJSON_GetObjectItemCaseSensitive(f, "value");
			const cJSON *rg = cJSON_GetObjectItemCaseSensitive(f, "range");
			if (cJSON_IsNumber(val))
				v = val->valuedouble;
			else if (cJSON_GetArraySize(rg) == 2) {
				double lo = cJSON_GetArrayItem(rg, 0)->valuedouble;
				double hi = cJSON_GetArrayItem(rg, 1)->valuedouble;
				v = sqrt(lo * hi);
				est = true;
				o->api_sigma = log(hi / lo) / (2 * 1.2816);
			}
		} else if (fi) {
			const cJSON *in = cJSON_GetObjectItemCaseSensitive(fi, "input");
			const cJSON *ou = cJSON_GetObjectItemCaseSensitive(fi, "output");
			if (cJSON_IsNumber(in) && cJSON_IsNumber(ou))
				v = in->valuedouble * (1 - c->output_fraction) +
				    ou->valuedouble * c->output_fraction;
		}
		if (isnan(v) || v <= 0)
			return pp_jdoc_errf(d, c->err, pp_jpath(path, sizeof(path), sp->path, "price"),
					    "prices.json has no number for \"%s\" (%s); expected a priced "
					    "API", sp->price,
					    cJSON_IsString(cJSON_GetObjectItemCaseSensitive(f, "note"))
						    ? cJSON_GetObjectItemCaseSensitive(f, "note")->valuestring
						    : "no value");
		add_source(c, item, v, "usd_per_1m_tokens", cJSON_IsString(src) ? src->valuestring : NULL,
			   "prices", cJSON_IsString(date) ? date->valuestring : NULL, est);
		o->api_usd_per_mtok = v;
		if (o->api_sigma == 0)
			o->api_sigma = est ? c->sig_price_est : c->sig_price;
		/* size classes in the key: le16B, 16_80B, gt300B */
		double lo = 0, hi = INFINITY;
		const char *k = sp->price;
		const char *u = strstr(k, "le");
		int a, b;
		const char *last = strrchr(k, '_');
		if ((u = strstr(k, "_le")) && sscanf(u, "_le%dB", &a) == 1)
			hi = a * 1e9;
		else if ((u = strstr(k, "_gt")) && sscanf(u, "_gt%dB", &a) == 1)
			lo = a * 1e9;
		else if (last) {
			const char *q = last - 1;
			while (q > k && *q != '_')
				q--;
			if (sscanf(q, "_%d_%dB", &a, &b) == 2) {
				lo = a * 1e9;
				hi = b * 1e9;
			}
		}
		if (c->work != PP_WORK_INFERENCE && (c->params < lo * 0.999 || c->params > hi * 1.001)) {
			o->feasible = false;
			snprintf(o->why, sizeof(o->why), "the price \"%s\" is for models of %.0f-%.0fB "
				 "parameters; this model has %.1fB", sp->price, lo / 1e9,
				 isfinite(hi) ? hi / 1e9 : 1e4, c->params / 1e9);
		}
		if (strstr(k, "openai") || strstr(k, "anthropic"))
			warnf(c, "option \"%s\" prices fine-tuning or serving of the provider's own closed "
			      "model, not %s: the model differs from the scenario's", sp->name,
			      c->s->model.name);
		label_option(o, out);
		return 0;
	}
	/* A cluster option: the scenario with the option's overrides. */
	pp_scenario x = *c->s;
	if ((rc = apply_overrides(c, sp, &x)))
		return rc;
	o->owned = o->kind == PP_OPT_BUILD || (o->kind == PP_OPT_TIER4 && sp->own);
	if (o->kind == PP_OPT_TIER4 && pp_cluster_nodes(&x.cluster) > 1)
		return pp_jdoc_errf(d, c->err, sp->path, "option \"%s\": a tier4 option is one node; "
				    "found %d GPUs on nodes of %d; expected at most %d GPUs", sp->name,
				    x.cluster.num_gpus, x.cluster.gpus_per_node, x.cluster.gpus_per_node);
	snprintf(out->gpu, sizeof(out->gpu), "%s", x.cluster.gpu->id);
	out->num_gpus = x.cluster.num_gpus;
	snprintf(out->fabric, sizeof(out->fabric), "%s",
		 pp_cluster_nodes(&x.cluster) > 1 ? x.cluster.inter->id : "");
	/* throughput */
	if (c->work != PP_WORK_INFERENCE) {
		int m = o->method == PP_FT_AUTO ? PP_FT_FULL : o->method;
		o->method = m;
		pp_scenario y = x;
		if ((rc = run_engine(c, opts, sp, o, &y)))
			return rc;
		if (!o->feasible && sp->method < 0 && c->cs->method == PP_FT_AUTO) {
			o->method = PP_FT_QLORA;
			y = x;
			if ((rc = run_engine(c, opts, sp, o, &y)))
				return rc;
		}
		snprintf(out->method, sizeof(out->method), "%s", pp_ft_method_names[o->method]);
	} else {
		o->n = x.cluster.num_gpus;
		o->gpn = x.cluster.gpus_per_node;
		o->nodes = pp_cluster_nodes(&x.cluster);
		o->gpu = x.cluster.gpu;
		o->cap = x.cluster.gpu->mem_bytes;
		double per = sp->inference_tokens_per_s_per_gpu;
		if (isnan(per)) {
			char p2[96];
			snprintf(p2, sizeof(p2), "inference.tokens_per_s_per_gpu.%s", o->gpu->id);
			if (!cJSON_IsObject(jpath(c->tco.root, p2))) {
				o->feasible = false;
				snprintf(o->why, sizeof(o->why), "no inference throughput figure for %s in "
					 "tco.json; give the option \"inference_tokens_per_s_per_gpu\"",
					 o->gpu->id);
				per = 0;
			} else {
				per = tco(c, p2, "tokens_per_s");
			}
		}
		o->inf_tok_s = per * o->n * c->inf_eff * (c->inf_ref_params / c->params);
		/* FP8 weights (1 byte/param) of one replica must fit */
		o->mem = c->params / o->n;
		if (o->feasible && o->mem > o->cap * 0.9) {
			o->feasible = false;
			snprintf(o->why, sizeof(o->why), "does not fit: %.0f GiB of FP8 weights on %d x "
				 "%.0f GiB", c->params / PP_GIB, o->n, o->cap / PP_GIB);
		}
		o->tok_s = o->inf_tok_s;
	}
	const char *skuname = NULL;
	const cJSON *sku = sku_of(c, o->gpu, &skuname);
	if (!sku)
		return pp_jdoc_errf(d, c->err, sp->path, "option \"%s\": no prices for GPU \"%s\" "
				    "(tco.json gpu_price_skus has no entry); expected a GPU with "
				    "prices in prices.json", sp->name, o->gpu->id);
	char item[160];
	if (!o->owned) {
		int t = 0;
		for (int i = 0; i < 5; i++)
			if (!strcmp(sp->tier, tier_keys[i]))
				t = i;
		o->tier = t;
		snprintf(out->provider, sizeof(out->provider), "%s", sp->provider);
		snprintf(out->tier, sizeof(out->tier), "%s", tier_keys[t]);
		const cJSON *prov = cJSON_GetObjectItemCaseSensitive(jpath(sku, "cloud_prices"), sp->provider);
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(prov, tier_keys[t]);
		bool est = false;
		snprintf(item, sizeof(item), "%s %s %s", skuname, sp->provider, tier_keys[t]);
		double rate = cJSON_IsObject(f) ? pfig(c, f, item, "usd_per_gpu_hour", &est) : NAN;
		if (!isnan(sp->usd_per_gpu_hour)) {
			rate = sp->usd_per_gpu_hour;
			est = false;
			snprintf(item, sizeof(item), "%s %s %s (scenario override)", skuname, sp->provider,
				 tier_keys[t]);
			add_source(c, item, rate, "usd_per_gpu_hour", "scenario file", "prices",
				   c->r->as_of, false);
		}
		if (isnan(rate)) {
			pp_sb avail = {0};
			const cJSON *it;
			cJSON_ArrayForEach(it, prov)
			if (cJSON_IsObject(it))
				pp_sb_addf(&avail, "%s%s", avail.len ? ", " : "", it->string);
			rc = pp_jdoc_errf(d, c->err, pp_jpath(path, sizeof(path), sp->path, prov ? "tier" :
								"provider"),
					  "option \"%s\": prices.json has no %s price from \"%s\" for %s; "
					  "%s%s (or give \"usd_per_gpu_hour\")", sp->name, tier_keys[t],
					  sp->provider, skuname, prov ? "priced tiers: " :
					  "that provider does not rent this GPU", avail.buf ? avail.buf : "");
			pp_sb_release(&avail);
			return rc;
		}
		o->rate = rate;
		o->rate_sigma = est ? c->sig_price_est : c->sig_price;
		o->commit_m = pick(sp->commitment_months, tier_term_months(t));
		if (t == TIER_SPOT && o->nodes > c->spot_max_nodes)
			warnf(c, "option \"%s\" needs %d spot nodes at once; getting (and keeping) that much "
			      "spot capacity is unlikely, so its time to train is optimistic", sp->name,
			      o->nodes);
		double fte = isnan(sp->staff_fte) ? c->rent_fte_per_1000 * o->n / 1000.0 : sp->staff_fte;
		o->fte = fte;
	} else {
		o->tier = TIER_OWN;
		snprintf(out->provider, sizeof(out->provider), "own");
		snprintf(out->tier, sizeof(out->tier), "own");
		const cJSON *srv = jpath(jpath(c->tco.root, "servers"), o->gpu->id);
		double price, kw, gpus;
		bool est = false;
		if (srv) {
			snprintf(item, sizeof(item), "%s server (tco.json)", o->gpu->id);
			char p2[96];
			snprintf(p2, sizeof(p2), "servers.%s.price_usd", o->gpu->id);
			price = tco(c, p2, "usd");
			snprintf(p2, sizeof(p2), "servers.%s.max_power_kw", o->gpu->id);
			kw = tco(c, p2, "kw");
			gpus = cJSON_GetObjectItemCaseSensitive(srv, "gpus")->valuedouble;
			est = true;
		} else {
			const cJSON *sv = cJSON_GetObjectItemCaseSensitive(sku, "server");
			const cJSON *pv = cJSON_GetObjectItemCaseSensitive(sv, "price_usd");
			const cJSON *kv = cJSON_GetObjectItemCaseSensitive(sv, "max_power_kw");
			const cJSON *gv = cJSON_GetObjectItemCaseSensitive(sv, "gpus");
			if (!cJSON_IsNumber(pv) || !cJSON_IsNumber(kv) || !cJSON_IsNumber(gv))
				return fail_data(c, "models/prices.json: skus.%s.server needs price_usd, "
						 "max_power_kw and gpus", skuname);
			price = pv->valuedouble;
			kw = kv->valuedouble;
			gpus = gv->valuedouble;
			est = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sv, "estimate"));
			const cJSON *ps = cJSON_GetObjectItemCaseSensitive(sv, "price_source");
			const cJSON *pd = cJSON_GetObjectItemCaseSensitive(sv, "price_date");
			snprintf(item, sizeof(item), "%s server price", skuname);
			add_source(c, item, price, "usd", cJSON_IsString(ps) ? ps->valuestring : NULL,
				   "prices", cJSON_IsString(pd) ? pd->valuestring : NULL, est);
			const cJSON *ks = cJSON_GetObjectItemCaseSensitive(sv, "max_power_source");
			snprintf(item, sizeof(item), "%s server max power", skuname);
			add_source(c, item, kw, "kw", cJSON_IsString(ks) ? ks->valuestring : NULL,
				   "prices", NULL,
				   cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sv, "max_power_estimate")));
			/* server-price spread from alt_prices: sigma = ln(max/min) / (2 x 1.2816) */
			double lo = price, hi = price;
			const cJSON *alt;
			cJSON_ArrayForEach(alt, cJSON_GetObjectItemCaseSensitive(sv, "alt_prices"))
			{
				const cJSON *av = cJSON_GetObjectItemCaseSensitive(alt, "value");
				if (cJSON_IsNumber(av)) {
					lo = fmin(lo, av->valuedouble);
					hi = fmax(hi, av->valuedouble);
				}
			}
			o->capex_sigma = log(hi / lo) / (2 * 1.2816);
		}
		double per_gpu = price / gpus;
		o->server_usd = isnan(sp->server_usd) ? per_gpu * o->gpn : sp->server_usd;
		o->server_kw = kw / gpus * o->gpn;
		o->servers = o->nodes;
		o->capex_sigma = fmax(o->capex_sigma, est ? c->sig_price_est : c->sig_capex_min);
		/* network */
		if (o->nodes > 1) {
			const pp_fabric *fab = x.cluster.inter;
			char p2[96];
			netplan np;
			plan_network(o->nodes * x.cluster.nics_per_node, fab->switch_ports,
				     x.cluster.oversubscription, &np);
			snprintf(p2, sizeof(p2), "network.%s", fab->id);
			if (!jpath(c->tco.root, p2))
				return fail_data(c, "%s: no network prices for fabric \"%s\"", c->tco.path,
						 fab->id);
			snprintf(p2, sizeof(p2), "network.%s.switch_usd", fab->id);
			double sw = tco(c, p2, "usd");
			snprintf(p2, sizeof(p2), "network.%s.link_usd", fab->id);
			double ln = tco(c, p2, "usd");
			snprintf(p2, sizeof(p2), "network.%s.nic_usd", fab->id);
			double nic = tco(c, p2, "usd");
			snprintf(p2, sizeof(p2), "network.%s.switch_power_w", fab->id);
			double swp = tco(c, p2, "w");
			o->net_usd = np.switches * sw + np.links * ln + np.endpoints * nic;
			o->switch_kw = np.switches * swp / 1000.0;
			o->nswitches = np.switches;
			o->nlinks = np.links;
			o->tiers = np.tiers;
		}
		/* shared storage: dataset + kept checkpoints; a single box uses local disks */
		if (o->nodes > 1) {
			double tok = c->work == PP_WORK_RUN ? c->train_tokens
				     : c->work == PP_WORK_RECURRING ? c->tokens_per_job
				     : c->cap_tokens_pm;
			double bytes = tok * c->s->training.data_bytes_per_token + c->ckpts_kept * o->ckpt_bytes;
			o->tb = isnan(c->cs->storage_tb) ? fmax(c->min_tb, bytes / 1e12) : c->cs->storage_tb;
		}
		double gpus_all = o->n;
		o->fte = isnan(sp->staff_fte) ? fmax(c->min_fte, gpus_all / c->gpus_per_fte) : sp->staff_fte;
		o->lead_m = pick(sp->lead_time_months, c->lead_m);
	}
	if (!o->owned && o->nodes > 1) {
		double tok = c->work == PP_WORK_RUN ? c->train_tokens
			     : c->work == PP_WORK_RECURRING ? c->tokens_per_job
			     : c->cap_tokens_pm;
		double bytes = tok * c->s->training.data_bytes_per_token + c->ckpts_kept * o->ckpt_bytes;
		o->tb = fmax(c->min_tb, bytes / 1e12);
	}
	label_option(o, out);
	return 0;
}

/* ---- evaluation: one option, one set of inputs ---- */

static double overlap(double a0, double a1, double b0, double b1)
{
	double lo = fmax(a0, b0), hi = fmin(a1, b1);
	return hi > lo ? hi - lo : 0;
}

static double residual_fraction(const ctx *c, double age_years, double haircut)
{
	if (c->residual == 1)
		return pp_fin_book_value(1.0, c->salvage, c->dep_years, age_years);
	return pp_fin_market_value(1.0, c->ooms, age_years) * (1.0 - haircut);
}

/* Work per month (cluster-seconds of one replica's throughput) etc. */
static void evaluate(const ctx *c, const oin *o, const draw *d, bool with_goodput, ev *e,
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
		double rf = residual_fraction(c, age, c->haircut);
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
		double salv = (servers + net + store) * residual_fraction(c, life, c->haircut);
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
	c->stale_months = tco(c, "uncertainty.stale_months", "months");
	/* finance (prices.json ops) */
	c->disc = pick(cs->discount_rate, price_at(c, "ops.finance.discount_rate", "fraction"));
	c->dep_years = pick(cs->depreciation_years, 0);
	if (c->dep_years == 0) {
		const cJSON *dv = jpath(c->prices, "ops.depreciation_years.default");
		c->dep_years = cJSON_IsNumber(dv) ? dv->valuedouble : NAN;
		add_source(c, "prices.json ops.depreciation_years.default", c->dep_years, "years",
			   "depr_filings", "prices", "2025", false);
	}
	c->salvage = pick(cs->salvage_fraction, 0);
	c->fleet_util = pick(cs->fleet_utilization,
			     price_at(c, "ops.utilization.allocation_target_research", "fraction"));
	double amort = price_at(c, "ops.depreciation_years.epoch_amortization_rate_per_year", "per_year");
	c->ooms = amort / log(10.0);
	c->residual = cs->residual < 0 ? 0 : cs->residual;
	/* goodput */
	c->goodput = cs->goodput;
	c->fail = pick(cs->failures_per_gpu_hour, tco(c, "failures.per_gpu_hour", "per_gpu_hour"));
	c->fail_lo = c->fail * tco(c, "failures.range_low_factor", "factor");
	c->fail_hi = c->fail * tco(c, "failures.range_high_factor", "factor");
	c->restart_s = pick(cs->restart_s, tco(c, "restart.restart_s", "s"));
	c->interval_s = cs->checkpoint_interval_s;
	c->write_override = cs->checkpoint_write_s;
	c->setup_s = pick(cs->job_setup_s, tco(c, "restart.job_setup_s", "s"));
	c->ckpts_kept = tco(c, "restart.checkpoints_kept", "count");
	c->spot_node_h = pp_gp_spot_rate_per_hour(tco(c, "spot.interruptions_per_instance_month",
						      "fraction"), PP_HOURS_PER_MONTH);
	c->spot_reacquire_s = tco(c, "spot.reacquire_s", "s");
	c->spot_max_nodes = tco(c, "spot.max_nodes_warn", "nodes");
	/* build */
	c->facility = cs->facility < 0 ? 0 : cs->facility;
	c->pue = pick(cs->pue, price_at(c, "facility.pue.other", "ratio"));
	c->kwh = pick(cs->usd_per_kwh, price_at(c, "facility.electricity_usd_per_kwh.us_industrial_2025",
						"usd_per_kwh"));
	const cJSON *rg = jpath(c->prices, "facility.electricity_usd_per_kwh.range_for_sensitivity");
	const cJSON *lo = cJSON_GetObjectItemCaseSensitive(rg, "low");
	const cJSON *hi = cJSON_GetObjectItemCaseSensitive(rg, "high");
	c->kwh_lo = cJSON_IsNumber(lo) ? lo->valuedouble : c->kwh;
	c->kwh_hi = cJSON_IsNumber(hi) ? hi->valuedouble : c->kwh;
	c->colo = pick(cs->colo_usd_per_kw_month,
		       price_at(c, "facility.colocation_usd_per_kw_month.na_primary_250_500kw",
				"usd_per_kw_month"));
	c->support = pick(cs->support_fraction,
			  price_at(c, "ops.maintenance_support_pct_of_capex_per_year.default",
				   "fraction_per_year"));
	c->software = pick(cs->software_usd_per_gpu_year, 0);
	c->staff_usd = pick(cs->staff_usd_per_fte_year,
			    price_at(c, "ops.staffing.loaded_cost_usd_per_fte_year", "usd_per_year"));
	c->lead_m = pick(cs->lead_time_months, tco(c, "build.lead_time_months", "months"));
	c->integ = pick(cs->integration_fraction, tco(c, "build.integration_fraction", "fraction"));
	c->haircut = pick(cs->resale_haircut, tco(c, "build.resale_haircut", "fraction"));
	c->idle_frac = tco(c, "build.idle_draw_fraction", "fraction");
	c->draw_frac = price_at(c, "facility.avg_draw_fraction_of_server_tdp_training", "fraction");
	c->gpus_per_fte = tco(c, "build.staff_gpus_per_fte", "gpus");
	c->min_fte = tco(c, "build.min_staff_fte", "fte");
	c->buy_usd_per_tb = tco(c, "storage.purchased_usd_per_tb", "usd_per_tb");
	c->min_tb = tco(c, "storage.min_tb", "tb");
	/* rent */
	c->rent_tb_usd = pick(cs->storage_usd_per_tb_month,
			      price_at(c, "storage.cloud_parallel_fs_usd_per_tb_month", "usd_per_tb_month"));
	c->rent_fte_per_1000 = tco(c, "rent.staff_fte_per_1000_gpus", "fte");
	/* inference, qlora */
	if (c->work == PP_WORK_INFERENCE) {
		c->inf_ref_params = tco(c, "inference.reference_params", "params");
		c->inf_eff = tco(c, "inference.serving_efficiency", "fraction");
		c->inf_peak = tco(c, "inference.peak_to_average", "ratio");
	}
	c->q_bits = tco(c, "qlora.bits_per_param", "bits");
	c->q_rank = tco(c, "qlora.lora_rank", "rank");
	c->q_adapter_bytes = tco(c, "qlora.adapter_bytes_per_param", "bytes");
	c->q_dequant = tco(c, "qlora.dequant_overhead", "fraction");
	/* uncertainty */
	bool calibrated = c->s->calib_profile[0] != 0;
	c->sig_step = pick(cs->step_time_sigma, tco(c, calibrated ? "uncertainty.step_time_sigma_calibrated"
						    : "uncertainty.step_time_sigma", "sigma"));
	c->sig_price = pick(cs->price_sigma, tco(c, "uncertainty.price_sigma", "sigma"));
	c->sig_price_est = fmax(c->sig_price, tco(c, "uncertainty.price_sigma_estimate", "sigma"));
	c->sig_capex_min = tco(c, "uncertainty.capex_sigma_min", "sigma");
	c->dem_lo = tco(c, "uncertainty.utilization_low_factor", "factor");
	c->dem_hi = tco(c, "uncertainty.utilization_high_factor", "factor");
	return c->rc;
}

static int resolve_work(ctx *c)
{
	const pp_costspec *cs = c->cs;
	const pp_scenario *s = c->s;
	c->work = cs->work;
	c->runs = cs->runs;
	c->train_tokens = pick(cs->train_tokens, s->training.train_tokens);
	c->tokens_per_job = cs->tokens_per_job;
	c->jobs_per_month = cs->jobs_per_month;
	c->tokens_per_month = cs->tokens_per_month;
	c->output_fraction = pick(cs->output_fraction, 0.5);
	c->params = model_params(&s->model);
	if (c->work == PP_WORK_RUN && !(c->train_tokens > 0))
		return pp_jdoc_errf(&s->doc, c->err, "costs.work", "a \"run\" work needs "
				    "costs.work.train_tokens or training.train_tokens");
	c->horizon_given = !isnan(cs->horizon_months);
	c->horizon_m = c->horizon_given ? cs->horizon_months : 0;
	if (!c->horizon_given && c->work != PP_WORK_RUN)
		c->horizon_m = tco(c, "uncertainty.horizon_months_default", "months");
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
	int rc = run_engine(c, opts, NULL, &ref, &x);
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

static const draw base_draw = {1, 1, 1, 1, 1, 1};

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
			  residual_fraction(c, win, c->haircut);
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

/* ---- Monte Carlo, tornado, recommendation ---- */

static int group_of(const oin *oi, int n, int i)
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

static void monte_carlo(ctx *c, oin *oi, int n, unsigned long seed, int draws)
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
		draw dr = base_draw;
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
			evaluate(c, &oi[i], &di, true, &e, NULL, 0);
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
	evaluate(c, o, d, true, &e, NULL, 0);
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
			draw d = base_draw;
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

static void tornado(ctx *c, oin *oi, int rec, int ru)
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

static const char *fmt_tokens(double t, char *buf, size_t n)
{
	if (t >= 1e12)
		snprintf(buf, n, "%.3gT", t / 1e12);
	else if (t >= 1e9)
		snprintf(buf, n, "%.3gB", t / 1e9);
	else if (t >= 1e6)
		snprintf(buf, n, "%.3gM", t / 1e6);
	else
		snprintf(buf, n, "%.3g", t);
	return buf;
}

static const char *fmt_time(double s, char *buf, size_t n)
{
	if (!isfinite(s))
		return snprintf(buf, n, "n/a"), buf;
	return pp_fmt_duration(s, buf, n);
}

/* A spot option bigger than tco.json's spot.max_nodes_warn nodes. */
static bool oin_nodes_over(const ctx *c, const pp_cost_option *o)
{
	const pp_gpu *g = pp_catalog_gpu(c->cat, o->gpu);
	int gpn = g && g->gpus_per_node > 0 ? g->gpus_per_node : 8;
	return (o->num_gpus + gpn - 1) / gpn > c->spot_max_nodes;
}

static void recommend(ctx *c, int rec, int ru)
{
	pp_cost_result *r = c->r;
	pp_sb sb = {0};
	char a[32], b[32], x[32], t[32];
	if (rec < 0) {
		pp_sb_adds(&sb, "No option can do this work:");
		for (int i = 0; i < r->noptions; i++)
			pp_sb_addf(&sb, " %s: %s.", r->options[i].name, r->options[i].infeasible_why);
		goto out;
	}
	const pp_cost_option *o = &r->options[rec];
	pp_sb_addf(&sb, "%s (%s) is the cheapest: %s for %s", o->name, o->label,
		   pp_fmt_usd(o->usd_total, a, sizeof(a)), r->work);
	if (isfinite(o->usd_per_million_tokens))
		pp_sb_addf(&sb, ", $%.3g per 1M tokens", o->usd_per_million_tokens);
	if (r->draws > 0)
		pp_sb_addf(&sb, " (P10-P90 %s-%s)", pp_fmt_usd(o->p10_usd, a, sizeof(a)),
			   pp_fmt_usd(o->p90_usd, b, sizeof(b)));
	if (isfinite(o->time_to_train_s))
	{
		char tk[32];
		if (c->work == PP_WORK_RECURRING)
			pp_sb_addf(&sb, "; one job takes %s", fmt_time(o->time_to_train_s, t, sizeof(t)));
		else
			pp_sb_addf(&sb, "; one %s-token run takes %s",
				   fmt_tokens(c->train_tokens, tk, sizeof(tk)),
				   fmt_time(o->time_to_train_s, t, sizeof(t)));
	}
	if (o->lead_time_s > 0)
		pp_sb_addf(&sb, " after a %s lead time", fmt_time(o->lead_time_s, t, sizeof(t)));
	pp_sb_adds(&sb, ".");
	if (!strcmp(o->tier, "spot") && oin_nodes_over(c, o)) {
		int alt = -1;
		for (int i = 0; i < r->noptions; i++)
			if (r->options[i].feasible && strcmp(r->options[i].tier, "spot") &&
			    (alt < 0 || r->options[i].usd_total < r->options[alt].usd_total))
				alt = i;
		pp_sb_addf(&sb, " Caution: it needs %d spot GPUs at once, which clouds rarely grant;",
			   o->num_gpus);
		if (alt >= 0)
			pp_sb_addf(&sb, " the cheapest option without that risk is %s at %s.",
				   r->options[alt].name, pp_fmt_usd(r->options[alt].usd_total, a, sizeof(a)));
	}
	if (ru >= 0) {
		const pp_cost_option *u = &r->options[ru];
		double d = u->usd_total - o->usd_total;
		pp_sb_addf(&sb, " The runner-up, %s, costs %s: %s (%.0f%%) more.", u->name,
			   pp_fmt_usd(u->usd_total, a, sizeof(a)), pp_fmt_usd(d, b, sizeof(b)),
			   100.0 * d / o->usd_total);
	}
	if (r->draws > 0) {
		pp_sb_addf(&sb, " It is the cheapest in %.0f%% of %d Monte Carlo draws (seed %lu)",
			   100 * o->p_cheapest, r->draws, r->seed);
		pp_sb_adds(&sb, o->p_cheapest < 0.6 ? ", so the choice is within the uncertainty: look "
						     "at the tornado for what decides it." : ".");
	}
	if (r->ntornado > 0) {
		const pp_tornado_row *tr = &r->tornado[0];
		pp_sb_addf(&sb, " The largest driver is %s (%s to %s).", tr->driver,
			   pp_fmt_usd(fmin(tr->low_usd, tr->high_usd), a, sizeof(a)),
			   pp_fmt_usd(fmax(tr->low_usd, tr->high_usd), b, sizeof(b)));
		for (int i = 0; i < r->ntornado; i++)
			if (r->tornado[i].low_margin_usd < 0 || r->tornado[i].high_margin_usd < 0) {
				pp_sb_addf(&sb, " At the %s end of \"%s\" the runner-up would win.",
					   r->tornado[i].low_margin_usd < 0 ? "low" : "high",
					   r->tornado[i].driver);
				break;
			}
	}
	/* build economics of the cheapest owned option, whichever option won */
	int own = -1;
	for (int i = 0; i < r->noptions; i++)
		if (r->options[i].fin.valid && r->options[i].feasible &&
		    (own < 0 || r->options[i].usd_total < r->options[own].usd_total))
			own = i;
	for (int i = own; i >= 0 && i < r->noptions; i++) {
		const pp_cost_option *b2 = &r->options[i];
		const pp_cost_fin *f = &b2->fin;
		pp_sb_addf(&sb, " Building (%s) instead of renting (%s): NPV %s at %.0f%%", b2->name,
			   f->versus, pp_fmt_usd(f->npv_usd, a, sizeof(a)), 100 * f->discount_rate);
		if (isfinite(f->irr))
			pp_sb_addf(&sb, ", IRR %.0f%%", 100 * f->irr);
		if (isfinite(f->payback_months))
			pp_sb_addf(&sb, ", payback in %.1f months", f->payback_months);
		if (isfinite(f->breakeven_utilization))
			pp_sb_addf(&sb, ", breaks even with renting on $/token at %.0f%% utilisation",
				   100 * f->breakeven_utilization);
		else
			pp_sb_adds(&sb, ", never breaks even on $/token even at 100% utilisation");
		if (isfinite(f->crossover_month))
			pp_sb_addf(&sb, ", cumulative cost crosses below renting in month %.0f",
				   f->crossover_month);
		pp_sb_adds(&sb, ".");
		break;
	}
	/* the fastest, when it is not the cheapest */
	int fast = -1;
	for (int i = 0; i < r->noptions; i++)
		if (r->options[i].feasible && isfinite(r->options[i].time_to_train_s) &&
		    (fast < 0 || r->options[i].time_to_train_s + r->options[i].lead_time_s <
				 r->options[fast].time_to_train_s + r->options[fast].lead_time_s))
			fast = i;
	if (fast >= 0 && fast != rec && isfinite(o->time_to_train_s)) {
		const pp_cost_option *f = &r->options[fast];
		pp_sb_addf(&sb, " Fastest is %s (%s), for %s more.", f->name,
			   fmt_time(f->time_to_train_s + f->lead_time_s, t, sizeof(t)),
			   pp_fmt_usd(f->usd_total - o->usd_total, x, sizeof(x)));
	}
out:
	snprintf(r->recommendation, sizeof(r->recommendation), "%s", sb.buf ? sb.buf : "");
	pp_sb_release(&sb);
}

static void describe_work(ctx *c)
{
	char tk[32];
	pp_cost_result *r = c->r;
	switch (c->work) {
	case PP_WORK_RUN:
		snprintf(r->work, sizeof(r->work), "%g run%s of %s tokens", c->runs, c->runs == 1 ? "" : "s",
			 fmt_tokens(c->train_tokens, tk, sizeof(tk)));
		r->runs = c->runs;
		break;
	case PP_WORK_RECURRING:
		snprintf(r->work, sizeof(r->work), "%.3g jobs/month of %s tokens for %.0f months",
			 c->jobs_per_month, fmt_tokens(c->tokens_per_job, tk, sizeof(tk)), c->horizon_m);
		r->runs = c->jobs_per_month * c->horizon_m;
		break;
	case PP_WORK_CAPACITY:
		snprintf(r->work, sizeof(r->work), "steady training of %s tokens/month for %.0f months",
			 fmt_tokens(c->cap_tokens_pm, tk, sizeof(tk)), c->horizon_m);
		break;
	default:
		snprintf(r->work, sizeof(r->work), "serving %s tokens/month for %.0f months, 24/7",
			 fmt_tokens(c->tokens_per_month, tk, sizeof(tk)), c->horizon_m);
	}
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
		    : (unsigned long)tco(&c, "uncertainty.seed", "seed");
	out->draws = opts->draws_given ? opts->draws : c.cs->draws >= 0 ? c.cs->draws
		     : (int)tco(&c, "uncertainty.draws", "draws");
	if ((rc = c.rc))
		goto out;
	int n = c.cs->noptions;
	out->options = pp_xcalloc((size_t)n, sizeof(*out->options));
	out->noptions = n;
	oi = pp_xcalloc((size_t)n, sizeof(*oi));
	for (int i = 0; i < n; i++) {
		if ((rc = resolve_option(&c, opts, i, &oi[i], &out->options[i])) || (rc = c.rc))
			goto out;
	}
	for (int i = 0; i < n; i++)
		oi[i].group = group_of(oi, n, i);
	if (c.work == PP_WORK_RUN && !c.horizon_given) {
		double h = 0;
		for (int i = 0; i < n; i++) {
			ev e;
			evaluate(&c, &oi[i], &base_draw, true, &e, NULL, 0);
			if (oi[i].kind != PP_OPT_API)
				h = fmax(h, e.window_m);
		}
		c.horizon_m = h > 0 ? h : 1;
	}
	out->horizon_months = c.horizon_m;
	describe_work(&c);
	for (int i = 0; i < n; i++) {
		ev e, e0;
		evaluate(&c, &oi[i], &base_draw, true, &e, NULL, 0);
		pp_cost_option *o = &out->options[i];
		o->nmonths = e.nm;
		o->cum_usd = pp_xcalloc((size_t)e.nm + 1, sizeof(double));
		evaluate(&c, &oi[i], &base_draw, true, &e, o->cum_usd, e.nm + 1);
		fill_option(&c, &oi[i], &e, o);
		evaluate(&c, &oi[i], &base_draw, false, &e0, NULL, 0);
		o->usd_lost_work = e.total - e0.total;
		if (out->tokens_total == 0)
			out->tokens_total = e.tokens;
		if (!o->feasible)
			warnf(&c, "option \"%s\" cannot do the work: %s", o->name, o->infeasible_why);
		if (e.replicas > 1 && c.work != PP_WORK_INFERENCE)
			warnf(&c, "option \"%s\" needs %.0f copies of its cluster to keep up with the demand",
			      o->name, e.replicas);
		if ((oi[i].tier == TIER_R1 || oi[i].tier == TIER_R3) &&
		    e.window_m < ceil(e.window_m / oi[i].commit_m - 1e-9) * oi[i].commit_m - 1e-6)
			warnf(&c, "option \"%s\": the %.0f-month commitment outlasts the work (%.1f months); "
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
	monte_carlo(&c, oi, n, out->seed, out->draws);
	tornado(&c, oi, out->recommended, out->runner_up);
	out->mc_elapsed_s = pp_mono_s() - tm;
	recommend(&c, out->recommended, out->runner_up);
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
		warnf(&c, "%d price%s older than %.0f months at %s, check before deciding: %s", nstale,
		      nstale > 1 ? "s are" : " is", c.stale_months, out->as_of, stale.buf);
	if (nund)
		warnf(&c, "%d price%s undated, check before deciding: %s", nund, nund > 1 ? "s are" : " is",
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
