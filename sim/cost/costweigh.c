/*
 * costweigh.c - pp_cost_weigh (cost.h): the clusters `podplan size` found,
 * each rented and built, beside the lower tiers of the scenario's own
 * "costs" section (hosted APIs, one-node options), priced by pp_cost_run.
 * The TCO engine stays the one place a cluster is priced: size only says
 * which clusters and layouts are worth pricing.
 */
#include "cost/costdata.h"
#include "cost/costown.h"
#include "input/costspec.h"

/* "rent-64xh100-sxm-ib-ndr": unique per GPU, count and fabric. */
static void cand_name(const pp_cost_candidate *k, const char *kind, char *buf, size_t n)
{
	if (k->num_gpus > k->gpus_per_node)
		snprintf(buf, n, "%s-%dx%.20s-%.16s", kind, k->num_gpus, k->gpu->id, k->inter->id);
	else
		snprintf(buf, n, "%s-%dx%.20s", kind, k->num_gpus, k->gpu->id);
}

static void cand_option(const pp_cost_candidate *k, int idx, int kind, pp_costspec_option *o)
{
	memset(o, 0, sizeof(*o));
	pp_costspec_option_defaults(o);
	o->kind = kind;
	cand_name(k, kind == PP_OPT_RENT ? "rent" : "build", o->name, sizeof(o->name));
	snprintf(o->path, sizeof(o->path), "search (sized cluster %d)", idx + 1);
	if (kind == PP_OPT_RENT) {
		snprintf(o->provider, sizeof(o->provider), "%s", k->provider ? k->provider : "");
		snprintf(o->tier, sizeof(o->tier), "%s", k->tier && *k->tier ? k->tier : "on_demand");
		o->usd_per_gpu_hour = k->usd_per_gpu_hour;
	}
	o->has_cluster = true;
	pp_costspec_cluster *c = &o->cluster;
	c->gpu = k->gpu;
	c->num_gpus = k->num_gpus;
	c->gpus_per_node = k->gpus_per_node;
	c->nics_per_node = k->nics_per_node;
	c->inter = k->inter;
	c->tp = k->tp;
	c->pp = k->pp;
	c->cp = k->cp;
	c->vpp = k->vpp;
	c->sequence_parallel = k->sequence_parallel;
	c->zero_stage = k->zero_stage;
	c->recompute = k->recompute;
	c->micro_batch_size = k->micro_batch_size;
}

/* A lower tier of the scenario's own options that can price one training
 * run: a one-node option, or a hosted fine-tuning API (not an inference
 * price). */
static bool lower_tier(const ctx *c, const pp_costspec_option *o)
{
	if (o->kind == PP_OPT_TIER4)
		return true;
	if (o->kind != PP_OPT_API)
		return false;
	const cJSON *ft =
		cost_jpath(c->prices, "hosted_api.fine_tuning_usd_per_1m_training_tokens");
	return cJSON_GetObjectItemCaseSensitive(ft, o->price) != NULL;
}

int pp_cost_weigh(const pp_scenario *s, const pp_catalog *cat, const pp_cost_opts *opts,
		  const pp_cost_candidate *cand, int n, pp_cost_result *out, pp_err *err)
{
	memset(out, 0, sizeof(*out));
	out->recommended = out->runner_up = out->risked = -1;
	if (!(s->training.train_tokens > 0) && !(s->costs.present && s->costs.train_tokens > 0))
		return pp_errf(err, PP_EINPUT, "%s: training.train_tokens is not given; expected the "
			       "tokens of the run to price", s->name);
	if (n > PP_COST_MAX_CANDIDATES)
		n = PP_COST_MAX_CANDIDATES;
	/* the catalogs, to know which candidates can be built and which of the
	 * scenario's options are lower tiers of a training run */
	ctx c;
	pp_cost_result probe;
	memset(&probe, 0, sizeof(probe));
	int rc = cost_ctx_open(&c, s, cat, opts ? opts->tco_path : NULL, &probe, err);
	pp_scenario x = *s;
	pp_costspec *cs = &x.costs;
	pp_costspec_option *o = NULL;
	if (rc) {
		cost_ctx_close(&c);
		pp_cost_result_release(&probe);
		goto out;
	}
	if (!s->costs.present)
		pp_costspec_defaults(cs);
	cs->present = true;
	cs->work = PP_WORK_RUN;
	cs->runs = 1;
	cs->horizon_months = NAN; /* one run: the window it needs */
	int nmax = 2 * n + s->costs.noptions, k = 0;
	o = pp_xcalloc((size_t)nmax + 1, sizeof(*o));
	for (int i = 0; i < n; i++) {
		cand_option(&cand[i], i, PP_OPT_RENT, &o[k++]);
		if (cost_can_own(&c, cand[i].gpu, cand[i].inter, cand[i].num_gpus > cand[i].gpus_per_node))
			cand_option(&cand[i], i, PP_OPT_BUILD, &o[k++]);
	}
	for (int i = 0; s->costs.present && i < s->costs.noptions && k < 64; i++)
		if (lower_tier(&c, &s->costs.options[i]))
			o[k++] = s->costs.options[i];
	cs->options = o;
	cs->noptions = k < 64 ? k : 64;
	cost_ctx_close(&c);
	pp_cost_result_release(&probe);
	rc = pp_cost_run(&x, cat, opts, out, err);
out:
	free(o);
	return rc;
}
