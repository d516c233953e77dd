/* size.c - see size.h. */
#include "plan/sizeopt.h"
#include "core/dist.h"
#include "input/prices.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_size_status_names[6] = {"searched", "no valid layout", "does not fit",
					      "no price", "cannot meet (bound)",
					      "cannot win (bound)"};

/* A lower bound on any layout's step time on x's cluster: the step's
 * executed FLOPs (no recompute unless the scenario fixes it, TP 1, CP 1:
 * splitting never removes work) over every GPU at the SKU's best rate. */
static double step_bound_s(const pp_scenario *s, const pp_scenario *x, const pp_hw *hw)
{
	pp_scenario y = *x;
	pp_layout l = {1, 1, y.cluster.num_gpus, 1, 1, 0, false, PP_SCHED_1F1B,
		       (s->given & PP_GIVEN_RECOMPUTE) ? s->training.recompute : PP_RC_NONE, 1, 1};
	pp_layout_apply(&y, &l);
	pp_workload w;
	pp_workload_build(&w, &y, hw);
	double per_mb = pp_workload_layer_flops(&w, PP_FL_PASSES | PP_FL_RECOMPUTE) +
			w.embed.fwd.flops + w.embed.bwd.flops + w.head.fwd.flops + w.head.bwd.flops;
	pp_workload_release(&w);
	pp_dtype dt = y.training.precision, adt = pp_dtype_attn(dt);
	double tile = 1.0;
	if (hw->half_tile_eff > tile)
		tile = hw->half_tile_eff;
	if (hw->quarter_tile_eff > tile)
		tile = hw->quarter_tile_eff;
	double rate = hw->peak_flops[dt] * hw->gemm_frac[dt] * tile;
	if (hw->peak_flops[adt] * hw->attn_frac > rate)
		rate = hw->peak_flops[adt] * hw->attn_frac;
	if (hw->peak_flops[dt] * hw->attn_frac > rate)
		rate = hw->peak_flops[dt] * hw->attn_frac;
	if (rate <= 0)
		return 0;
	return (double)y.training.global_batch_size * per_mb / (y.cluster.num_gpus * rate);
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int build_options(const pp_scenario *s, const pp_catalog *cat, const pp_size_spec *spec,
			 const pp_hwcal *hwcal, size_opt **out, int *nout, pp_err *err)
{
	const pp_gpu *gpus[PP_SIZE_MAX_LIST * 2];
	int ng = 0;
	if (spec->ngpus) {
		for (int i = 0; i < spec->ngpus; i++)
			gpus[ng++] = spec->gpus[i];
	} else {
		for (size_t i = 0; i < pp_catalog_ngpus(cat) && ng < PP_SIZE_MAX_LIST; i++) {
			const pp_gpu *g = pp_catalog_gpu_at(cat, i);
			double usd;
			char what[8];
			if (g->peak_flops[s->training.precision] <= 0)
				continue;
			if (g != s->cluster.gpu && pp_size_price(cat, spec, g, &usd, what, sizeof(what),
								 NULL))
				continue;
			gpus[ng++] = g;
		}
	}
	const pp_fabric *fabs[PP_SIZE_MAX_LIST];
	int nf = 0;
	if (spec->nfabrics)
		for (int i = 0; i < spec->nfabrics; i++)
			fabs[nf++] = spec->fabrics[i];
	else
		fabs[nf++] = s->cluster.inter;
	int cap = ng * nf * (PP_SIZE_MAX_LIST + 8);
	size_opt *o = pp_xcalloc((size_t)cap, sizeof(size_opt));
	int n = 0;
	for (int a = 0; a < ng; a++) {
		const pp_gpu *g = gpus[a];
		bool same = g == s->cluster.gpu;
		int G = same ? s->cluster.gpus_per_node : g->gpus_per_node;
		if (G < 1)
			G = 8;
		/* counts in whole NVLink domains where the scenario fixes them */
		int R = same && s->cluster.nvlink_domain_size > G ? s->cluster.nvlink_domain_size : G;
		int counts[PP_SIZE_MAX_LIST + 8], nc = 0;
		if (spec->ncounts) {
			for (int i = 0; i < spec->ncounts; i++)
				counts[nc++] = spec->counts[i];
		} else {
			static const double mult[] = {0.25, 0.5, 1, 2, 4};
			for (size_t i = 0; i < PP_ARRAY_LEN(mult); i++) {
				double c = s->cluster.num_gpus * mult[i];
				int v = c <= G   ? (int)c
					: c <= R ? (int)(llround(c / G) * G)
						 : (int)(llround(c / R) * R);
				if (v < 1)
					continue;
				bool dup = false;
				for (int j = 0; j < nc; j++)
					dup |= counts[j] == v;
				if (!dup)
					counts[nc++] = v;
			}
			qsort(counts, (size_t)nc, sizeof(int), cmp_int);
		}
		/* the SKU's price, the same for every count and fabric: looked up
		 * once */
		double usd = NAN;
		char what[sizeof(o->o.price_what)];
		bool priced = !pp_size_price(cat, spec, g, &usd, what, sizeof(what), NULL);
		for (int b = 0; b < nc; b++)
			for (int c = 0; c < nf; c++) {
				size_opt *oi = &o[n];
				oi->order = n;
				n++;
				pp_size_option *op = &oi->o;
				op->gpu = g;
				op->num_gpus = counts[b];
				op->gpus_per_node = G;
				op->nics_per_node = same ? s->cluster.nics_per_node : G;
				op->inter = fabs[c];
				op->usd_per_gpu_hour = NAN;
				op->lb_train_s = op->lb_usd = NAN;
				op->train_s = op->usd = NAN;
				oi->x = *s;
				pp_cluster *cl = &oi->x.cluster;
				cl->gpu = g;
				cl->num_gpus = counts[b];
				cl->gpus_per_node = G;
				if (!same) /* the SKU's own domain */
					cl->nvlink_domain_size = 0;
				cl->nics_per_node = op->nics_per_node;
				cl->inter = fabs[c];
				if (!same) {
					const pp_fabric *in = pp_catalog_fabric(cat, g->intra_node);
					if (in)
						cl->intra = in;
				}
				if (priced) {
					op->usd_per_gpu_hour = usd;
					memcpy(op->price_what, what, sizeof(what));
				} else {
					op->usd_per_gpu_hour = NAN;
					op->status = PP_SIZE_NO_PRICE;
					snprintf(op->why, sizeof(op->why), "no public %s%s%s price for "
						 "%s in prices.json (give search.usd_per_gpu_hour.%s)",
						 spec->tier[0] ? spec->tier : "on_demand",
						 spec->provider[0] ? " " : "", spec->provider, g->id,
						 g->id);
				}
				pp_err e = {0};
				if (pp_hw_resolve(&oi->hw, cat, cl, hwcal, &e)) {
					op->status = PP_SIZE_NO_LAYOUT;
					snprintf(op->why, sizeof(op->why), "%.250s", e.msg);
				} else {
					oi->valid = true;
				}
			}
	}
	(void)err;
	*out = o;
	*nout = n;
	return 0;
}

/* Whether two options' searches fit the same layouts: clusters that differ
 * at most in the inter-node fabric and the NICs per node, on GPUs of the
 * same memory (search.h: pp_search_fit). */
static bool same_fit(const size_opt *a, const size_opt *b)
{
	const pp_cluster *x = &a->x.cluster, *y = &b->x.cluster;
	return x->gpu == y->gpu && x->num_gpus == y->num_gpus &&
	       x->gpus_per_node == y->gpus_per_node && x->intra == y->intra &&
	       x->oversubscription == y->oversubscription && x->rail_optimized == y->rail_optimized &&
	       x->storage == y->storage && x->storage_read_Bps == y->storage_read_Bps &&
	       x->storage_write_Bps == y->storage_write_Bps &&
	       a->hw.mem_capacity_bytes == b->hw.mem_capacity_bytes &&
	       a->hw.reserved_bytes == b->hw.reserved_bytes && a->hw.act_margin == b->hw.act_margin;
}

/* Whether two options' searches may share one workload cache
 * (fastpath.h): the same SKU on nodes of the same size and link, with no
 * calibrated collectives; GPU count, fabric and NICs may differ. */
static bool same_engine(const size_opt *a, const size_opt *b)
{
	const pp_cluster *x = &a->x.cluster, *y = &b->x.cluster;
	return x->gpu == y->gpu && x->gpus_per_node == y->gpus_per_node && x->intra == y->intra &&
	       a->hw.nfits == 0 && b->hw.nfits == 0;
}

/* One kept fit per group of options that share it, one workload cache per
 * group of options that share it (in build order); the fits into
 * fits[*nfits] and the caches into caches[*ncaches] for the caller to free. */
static void share_fits(size_opt *oi, int n, pp_search_fit **fits, int *nfits,
		       pp_fp_cache **caches, int *ncaches)
{
	*nfits = *ncaches = 0;
	for (int i = 0; i < n; i++) {
		if (!oi[i].valid)
			continue;
		for (int j = 0; j < i && !oi[i].fit; j++)
			if (oi[j].valid && same_fit(&oi[i], &oi[j]))
				oi[i].fit = oi[j].fit;
		if (!oi[i].fit)
			oi[i].fit = fits[(*nfits)++] = pp_search_fit_new();
		for (int j = 0; j < i && !oi[i].cache; j++)
			if (oi[j].valid && same_engine(&oi[i], &oi[j]))
				oi[i].cache = oi[j].cache;
		if (!oi[i].cache)
			oi[i].cache = caches[(*ncaches)++] = pp_fp_cache_new();
	}
}

/* Options by one of their bounds (NAN last), then in build order. */
static int cmp_bound(const size_opt *x, const size_opt *y, double u, double v)
{
	u = isnan(u) ? INFINITY : u;
	v = isnan(v) ? INFINITY : v;
	if (u != v)
		return u < v ? -1 : 1;
	return x->order - y->order;
}

static int cmp_lb_usd(const void *a, const void *b)
{
	const size_opt *x = a, *y = b;
	return cmp_bound(x, y, x->o.lb_usd, y->o.lb_usd);
}

static int cmp_lb_time(const void *a, const void *b)
{
	const size_opt *x = a, *y = b;
	return cmp_bound(x, y, x->o.lb_train_s, y->o.lb_train_s);
}

/* Output order: searched options by cost (by time for a budget), then
 * the others by their bound. */
static int cmp_out(const pp_size_option *x, const pp_size_option *y, bool by_time)
{
	bool sx = x->status == PP_SIZE_SEARCHED, sy = y->status == PP_SIZE_SEARCHED;
	if (sx != sy)
		return sx ? -1 : 1;
	double u, v;
	if (sx) {
		u = by_time ? x->train_s : x->usd;
		v = by_time ? y->train_s : y->usd;
	} else {
		u = x->lb_usd;
		v = y->lb_usd;
	}
	if (isnan(u))
		u = INFINITY;
	if (isnan(v))
		v = INFINITY;
	if (u != v)
		return u < v ? -1 : 1;
	if (x->gpu != y->gpu)
		return strcmp(x->gpu->id, y->gpu->id);
	if (x->num_gpus != y->num_gpus)
		return x->num_gpus - y->num_gpus;
	return strcmp(x->inter->id, y->inter->id);
}

static int cmp_out_cost(const void *a, const void *b)
{
	return cmp_out(a, b, false);
}

static int cmp_out_time(const void *a, const void *b)
{
	return cmp_out(a, b, true);
}

/* Lower bounds on every valid option's time to train and its cost. */
static void bound_options(const pp_scenario *s, size_opt *oi, int n, double steps)
{
	for (int i = 0; i < n; i++) {
		pp_size_option *op = &oi[i].o;
		if (!oi[i].valid)
			continue;
		double lb = step_bound_s(s, &oi[i].x, &oi[i].hw);
		op->lb_train_s = steps * lb;
		op->lb_usd = pp_price_rent_usd(op->usd_per_gpu_hour, op->num_gpus, op->lb_train_s);
	}
}

/* Serially: each option in order, searched unless the best so far rules
 * it out. */
static int search_serial(const pp_size_opts *o, size_opt *oi, int n, double steps,
			 pp_size_result *out, pp_err *err)
{
	double best_usd = INFINITY, best_time = INFINITY;
	for (int i = 0; i < n; i++) {
		pp_size_option *op = &oi[i].o;
		if (!size_to_search(o, &oi[i], best_usd, best_time))
			continue;
		if (o->on_option)
			o->on_option(i, n, op, o->progress_ctx);
		size_res res;
		int rc = size_search_option(o, &oi[i], steps, &res, err);
		if (rc)
			return rc;
		size_record(op, &res, out, &best_usd, &best_time);
	}
	return 0;
}

int pp_size_run(const pp_scenario *s, const pp_catalog *cat, const pp_size_opts *o,
		pp_size_result *out, pp_err *err)
{
	double t0 = pp_mono_s();
	memset(out, 0, sizeof(*out));
	out->answer = -1;
	out->deadline_s = o->deadline_s;
	out->budget_usd = o->budget_usd;
	double tokens = s->training.train_tokens;
	if (!(tokens > 0))
		return pp_errf(err, PP_EINPUT, "%s: training.train_tokens is not given; expected the "
			       "number of tokens to train on (the time to train and its cost depend on "
			       "it)", s->name);
	out->train_tokens = tokens;
	double tokens_per_step = (double)s->training.global_batch_size * s->model.seq_length;
	double steps = ceil(tokens / tokens_per_step);
	size_opt *oi = NULL;
	int n = 0, rc;
	if ((rc = build_options(s, cat, &o->spec, o->hwcal, &oi, &n, err)))
		return rc;
	bound_options(s, oi, n, steps);
	pp_search_fit **fits = pp_xcalloc((size_t)n + 1, sizeof(pp_search_fit *));
	pp_fp_cache **caches = pp_xcalloc((size_t)n + 1, sizeof(pp_fp_cache *));
	int nfits = 0, ncaches = 0;
	share_fits(oi, n, fits, &nfits, caches, &ncaches);
	bool budget = o->budget_usd > 0;
	qsort(oi, (size_t)n, sizeof(size_opt), budget ? cmp_lb_time : cmp_lb_usd);
	/* options in order of their bound; the best so far rules out the rest */
	rc = pp_dist_size() > 1 ? size_search_scheduled(o, oi, n, steps, out, err)
				: search_serial(o, oi, n, steps, out, err);
	if (rc)
		goto out;
	out->opt = pp_xcalloc((size_t)n, sizeof(pp_size_option));
	for (int i = 0; i < n; i++)
		out->opt[i] = oi[i].o;
	out->n = n;
	qsort(out->opt, (size_t)n, sizeof(pp_size_option), budget ? cmp_out_time : cmp_out_cost);
	/* the answer: cheapest that meets (fastest within a budget) */
	for (int i = 0; i < n && out->answer < 0; i++)
		if (out->opt[i].status == PP_SIZE_SEARCHED && out->opt[i].meets)
			out->answer = i;
	pp_sb why = {0};
	size_explain(out, o, &why);
	snprintf(out->why, sizeof(out->why), "%s", why.buf ? why.buf : "");
	pp_sb_release(&why);
	rc = 0;
out:
	for (int i = 0; i < nfits; i++)
		pp_search_fit_free(fits[i]);
	free(fits);
	for (int i = 0; i < ncaches; i++)
		pp_fp_cache_free(caches[i]);
	free(caches);
	free(oi);
	out->elapsed_s = pp_mono_s() - t0;
	return rc;
}

void pp_size_result_release(pp_size_result *r)
{
	if (!r)
		return;
	free(r->opt);
	memset(r, 0, sizeof(*r));
}
