/* size.c - see size.h. */
#include "plan/size.h"
#include "core/fmt.h"
#include "core/dist.h"
#include "engine/fastpath.h"
#include "input/prices.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_size_status_names[6] = {"searched", "no valid layout", "does not fit",
					      "no price", "cannot meet (bound)",
					      "cannot win (bound)"};

/* ---- the "search" object ---- */

static int id_list(const pp_jdoc *d, const cJSON *o, const char *key, const pp_catalog *cat,
		   bool gpus, void **out, int *n, pp_err *err)
{
	char path[96];
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!a)
		return 0;
	pp_jpath(path, sizeof(path), "search", key);
	char buf[64];
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1 ||
	    cJSON_GetArraySize(a) > PP_SIZE_MAX_LIST)
		return pp_jdoc_errf(d, err, path, "found %s, expected an array of 1 to %d %s ids",
				    pp_jdoc_describe(a, buf, sizeof(buf)), PP_SIZE_MAX_LIST,
				    gpus ? "GPU" : "fabric");
	int i = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, a)
	{
		char ep[112];
		pp_jpath_idx(ep, sizeof(ep), path, i);
		if (!cJSON_IsString(e))
			return pp_jdoc_errf(d, err, ep, "found %s, expected a %s id",
					    pp_jdoc_describe(e, buf, sizeof(buf)), gpus ? "GPU" : "fabric");
		const void *p = gpus ? (const void *)pp_catalog_gpu(cat, e->valuestring)
				     : (const void *)pp_catalog_fabric(cat, e->valuestring);
		if (!gpus && p && ((const pp_fabric *)p)->intra_node)
			p = NULL;
		if (!p) {
			size_t nid;
			const char *const *ids = pp_catalog_ids(cat, gpus ? "gpus" : "fabrics", &nid);
			const char *dym = pp_did_you_mean(e->valuestring, ids, nid);
			return pp_jdoc_errf(d, err, ep, "found \"%s\", expected a%s %s id of the catalog%s%s%s",
					    e->valuestring, gpus ? "" : "n inter-node",
					    gpus ? "GPU" : "fabric", dym ? " (did you mean \"" : "",
					    dym ? dym : "", dym ? "\"?)" : "");
		}
		out[i++] = (void *)p;
	}
	*n = i;
	return 0;
}

int pp_size_spec_parse(const pp_scenario *s, const pp_catalog *cat, pp_size_spec *spec,
		       pp_err *err)
{
	static const char *const keys[] = {"top", "gpus", "num_gpus", "fabrics", "provider", "tier",
					   "usd_per_gpu_hour"};
	memset(spec, 0, sizeof(*spec));
	const pp_jdoc *d = &s->doc;
	const cJSON *o;
	int rc;
	char buf[64];
	if ((rc = pp_jget_obj(d, d->root, "", "search", false, &o, err)) || !o)
		return rc;
	if ((rc = pp_jcheck_keys(d, o, "search", keys, PP_ARRAY_LEN(keys), err)))
		return rc;
	int64_t top = 0;
	if ((rc = pp_jget_int(d, o, "search", "top", false, 1, 1000, &top, NULL, err)) ||
	    (rc = pp_jget_str(d, o, "search", "provider", false, spec->provider,
			      sizeof(spec->provider), NULL, err)) ||
	    (rc = pp_jget_str(d, o, "search", "tier", false, spec->tier, sizeof(spec->tier), NULL,
			      err)))
		return rc;
	spec->top = (int)top;
	void *tmp[PP_SIZE_MAX_LIST];
	if ((rc = id_list(d, o, "gpus", cat, true, tmp, &spec->ngpus, err)))
		return rc;
	for (int i = 0; i < spec->ngpus; i++)
		spec->gpus[i] = tmp[i];
	if ((rc = id_list(d, o, "fabrics", cat, false, tmp, &spec->nfabrics, err)))
		return rc;
	for (int i = 0; i < spec->nfabrics; i++)
		spec->fabrics[i] = tmp[i];
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "num_gpus");
	if (a) {
		if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1 ||
		    cJSON_GetArraySize(a) > PP_SIZE_MAX_LIST)
			return pp_jdoc_errf(d, err, "search.num_gpus", "found %s, expected an array of "
					    "1 to %d GPU counts", pp_jdoc_describe(a, buf, sizeof(buf)),
					    PP_SIZE_MAX_LIST);
		const cJSON *e;
		cJSON_ArrayForEach(e, a)
		{
			char ep[64];
			pp_jpath_idx(ep, sizeof(ep), "search.num_gpus", spec->ncounts);
			if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) ||
			    e->valuedouble < 1 || e->valuedouble > 4194304)
				return pp_jdoc_errf(d, err, ep, "found %s, expected a whole number of "
						    "GPUs from 1 to 4194304",
						    pp_jdoc_describe(e, buf, sizeof(buf)));
			spec->counts[spec->ncounts++] = (int)e->valuedouble;
		}
	}
	const cJSON *pr = cJSON_GetObjectItemCaseSensitive(o, "usd_per_gpu_hour");
	if (pr) {
		if (!cJSON_IsObject(pr))
			return pp_jdoc_errf(d, err, "search.usd_per_gpu_hour", "found %s, expected an "
					    "object of GPU id -> $ per GPU-hour",
					    pp_jdoc_describe(pr, buf, sizeof(buf)));
		const cJSON *e;
		cJSON_ArrayForEach(e, pr)
		{
			char ep[96];
			pp_jpath(ep, sizeof(ep), "search.usd_per_gpu_hour", e->string);
			const pp_gpu *g = pp_catalog_gpu(cat, e->string);
			if (!g)
				return pp_jdoc_errf(d, err, ep, "found the GPU \"%s\", expected a GPU id "
						    "of the catalog", e->string);
			if (!cJSON_IsNumber(e) || e->valuedouble <= 0 || e->valuedouble > 1e4)
				return pp_jdoc_errf(d, err, ep, "found %s, expected a price in $ per "
						    "GPU-hour above 0",
						    pp_jdoc_describe(e, buf, sizeof(buf)));
			if (spec->nprices == PP_SIZE_MAX_LIST)
				return pp_jdoc_errf(d, err, ep, "expected at most %d prices",
						    PP_SIZE_MAX_LIST);
			spec->price_gpu[spec->nprices] = g;
			spec->price_usd[spec->nprices++] = e->valuedouble;
		}
	}
	return 0;
}

/* ---- prices ---- */

int pp_size_price(const pp_catalog *cat, const pp_size_spec *spec, const pp_gpu *g, double *usd,
		  char *what, size_t n, pp_err *err)
{
	for (int i = 0; i < spec->nprices; i++)
		if (spec->price_gpu[i] == g) {
			*usd = spec->price_usd[i];
			snprintf(what, n, "scenario search.usd_per_gpu_hour");
			return 0;
		}
	char *tpath = pp_path_join(pp_catalog_dir(cat), "tco.json");
	pp_jdoc tco;
	int rc = pp_jdoc_load(&tco, tpath, err);
	free(tpath);
	if (rc)
		return rc;
	pp_price p;
	rc = pp_price_lookup(cat, cJSON_GetObjectItemCaseSensitive(tco.root, "gpu_price_skus"), g,
			     spec->provider, spec->tier, &p, err);
	if (!rc) {
		*usd = p.usd_per_gpu_hour;
		snprintf(what, n, "%s %s, %s, %s%s", p.provider, p.tier, p.source ? p.source : "?",
			 p.date ? p.date : "undated", p.estimate ? " [estimate]" : "");
	}
	pp_jdoc_release(&tco);
	return rc;
}

/* ---- options ---- */

typedef struct opt_in {
	pp_size_option o;
	pp_scenario x;
	pp_hw hw;
	bool valid;      /* hw resolved */
	int order;
	pp_search_fit *fit; /* shared by the options that differ only in fabric and NICs */
	pp_fp_cache *cache; /* shared by the options that differ only in GPU count, fabric, NICs */
} opt_in;

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
	pp_dtype dt = y.training.precision, adt = dt == PP_DT_FP8 ? PP_DT_BF16 : dt;
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
			 const pp_hwcal *hwcal, opt_in **out, int *nout, pp_err *err)
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
	opt_in *o = pp_xcalloc((size_t)cap, sizeof(opt_in));
	int n = 0;
	for (int a = 0; a < ng; a++) {
		const pp_gpu *g = gpus[a];
		bool same = g == s->cluster.gpu;
		int G = same ? s->cluster.gpus_per_node : g->gpus_per_node;
		if (G < 1)
			G = 8;
		int counts[PP_SIZE_MAX_LIST + 8], nc = 0;
		if (spec->ncounts) {
			for (int i = 0; i < spec->ncounts; i++)
				counts[nc++] = spec->counts[i];
		} else {
			static const double mult[] = {0.25, 0.5, 1, 2, 4};
			for (size_t i = 0; i < PP_ARRAY_LEN(mult); i++) {
				double c = s->cluster.num_gpus * mult[i];
				int v = c <= G ? (int)c : (int)(llround(c / G) * G);
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
		 * once (each look-up reads the price file) */
		double usd = NAN;
		char what[sizeof(o->o.price_what)];
		bool priced = !pp_size_price(cat, spec, g, &usd, what, sizeof(what), NULL);
		for (int b = 0; b < nc; b++)
			for (int c = 0; c < nf; c++) {
				opt_in *oi = &o[n];
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
					snprintf(op->why, sizeof(op->why), "no %s price in prices.json",
						 spec->tier[0] ? spec->tier : "on_demand");
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
static bool same_fit(const opt_in *a, const opt_in *b)
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
static bool same_engine(const opt_in *a, const opt_in *b)
{
	const pp_cluster *x = &a->x.cluster, *y = &b->x.cluster;
	return x->gpu == y->gpu && x->gpus_per_node == y->gpus_per_node && x->intra == y->intra &&
	       a->hw.nfits == 0 && b->hw.nfits == 0;
}

/* One kept fit per group of options that share it, one workload cache per
 * group of options that share it (in build order); the fits into
 * fits[*nfits] and the caches into caches[*ncaches] for the caller to free. */
static void share_fits(opt_in *oi, int n, pp_search_fit **fits, int *nfits,
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
static int cmp_bound(const opt_in *x, const opt_in *y, double u, double v)
{
	u = isnan(u) ? INFINITY : u;
	v = isnan(v) ? INFINITY : v;
	if (u != v)
		return u < v ? -1 : 1;
	return x->order - y->order;
}

static int cmp_lb_usd(const void *a, const void *b)
{
	const opt_in *x = a, *y = b;
	return cmp_bound(x, y, x->o.lb_usd, y->o.lb_usd);
}

static int cmp_lb_time(const void *a, const void *b)
{
	const opt_in *x = a, *y = b;
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

/* A time to train in the unit that suits it ("18.2 min", "3.5 h", "22.5
 * days"), never "0.0 days". */
static const char *span(double s, char *buf, size_t n)
{
	return pp_fmt_duration(s, buf, n);
}

static void label(const pp_size_option *o, char *buf, size_t n)
{
	snprintf(buf, n, "%d x %s (%s)", o->num_gpus, o->gpu->id, o->inter->id);
}

/* Lower bounds on every valid option's time to train and its cost. */
static void bound_options(const pp_scenario *s, opt_in *oi, int n, double steps)
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

/* Whether op's bounds rule it out against the target and the best found
 * so far (best_usd: cheapest meeting the deadline; best_time: fastest
 * within the budget); sets its status and why when they do. */
static bool ruled_out(const pp_size_opts *o, pp_size_option *op, double best_usd, double best_time)
{
	bool budget = o->budget_usd > 0, deadline = o->deadline_s > 0;
	char b1[32];
	if (deadline && op->lb_train_s > o->deadline_s) {
		op->status = PP_SIZE_SKIP_SLOW;
		snprintf(op->why, sizeof(op->why), "needs at least %s",
			 span(op->lb_train_s, b1, sizeof(b1)));
		return true;
	}
	if ((deadline && op->lb_usd >= best_usd) || (budget && op->lb_usd > o->budget_usd)) {
		op->status = PP_SIZE_SKIP_DEAR;
		snprintf(op->why, sizeof(op->why), "costs at least %s",
			 pp_fmt_usd(op->lb_usd, b1, sizeof(b1)));
		return true;
	}
	if (budget && op->lb_train_s >= best_time) {
		op->status = PP_SIZE_SKIP_SLOW;
		snprintf(op->why, sizeof(op->why), "needs at least %s",
			 span(op->lb_train_s, b1, sizeof(b1)));
		return true;
	}
	return false;
}

/* What an option's search found, as a record one rank can send another
 * (no pointers). */
typedef struct opt_res {
	int rc;                      /* 0, or the search's error */
	pp_size_status status;
	char why[256];
	int64_t evaluated, feasible, simulated;
	pp_search_hit best;
	double train_s, usd;
	bool meets;
} opt_res;

/* The layout search of option oi (on this rank alone): its best layout,
 * time to train and cost, and whether it meets the target, into *res. An
 * error (res->rc, err) only when a search fails for another reason than
 * no valid layout. */
static int search_option(const pp_size_opts *o, const opt_in *oi, double steps, opt_res *res,
			 pp_err *err)
{
	const pp_size_option *op = &oi->o;
	bool budget = o->budget_usd > 0, deadline = o->deadline_s > 0;
	pp_search_opts so = {1, false, false, op->usd_per_gpu_hour, o->progress, o->progress_ctx,
			     true, oi->fit, oi->cache};
	pp_search_result sr;
	pp_err e = {0};
	memset(res, 0, sizeof(*res));
	int rc = pp_search_run(&oi->x, &oi->hw, &so, &sr, &e);
	if (rc == PP_EINPUT) {
		res->status = PP_SIZE_NO_LAYOUT;
		snprintf(res->why, sizeof(res->why), "no valid layout");
		return 0;
	}
	if (rc)
		return res->rc = pp_errf(err, rc, "%s", e.msg);
	res->evaluated = sr.evaluated;
	res->feasible = sr.feasible;
	res->simulated = sr.simulated;
	if (!sr.nbest) {
		res->status = PP_SIZE_NO_FIT;
		snprintf(res->why, sizeof(res->why), "none of %lld layouts fits in %s memory",
			 (long long)sr.evaluated, op->gpu->id);
	} else {
		res->status = PP_SIZE_SEARCHED;
		res->best = sr.best[0];
		res->train_s = steps * res->best.result.step_time_s;
		res->usd = pp_price_rent_usd(op->usd_per_gpu_hour, op->num_gpus, res->train_s);
		res->meets = deadline ? res->train_s <= o->deadline_s
			     : budget ? res->usd <= o->budget_usd
				      : true;
	}
	pp_search_result_release(&sr);
	return 0;
}

/* A search's record into its option and the totals. */
static void apply_res(pp_size_option *op, const opt_res *res, pp_size_result *out)
{
	out->searches++;
	op->status = res->status;
	snprintf(op->why, sizeof(op->why), "%s", res->why);
	if (res->status == PP_SIZE_NO_LAYOUT)
		return;
	out->evaluated += res->evaluated;
	out->simulated += res->simulated;
	out->feasible += res->feasible;
	op->evaluated = res->evaluated;
	op->feasible = res->feasible;
	op->simulated = res->simulated;
	if (res->status == PP_SIZE_SEARCHED) {
		op->best = res->best;
		op->train_s = res->train_s;
		op->usd = res->usd;
		op->meets = res->meets;
	}
}

/* Whether option i is searched at all (the options in order of their
 * bound, the best so far ruling out the rest); ruled_out fills its status
 * when not. */
static bool to_search(const pp_size_opts *o, opt_in *oi, double best_usd, double best_time)
{
	pp_size_option *op = &oi->o;
	return oi->valid && op->status != PP_SIZE_NO_PRICE &&
	       !ruled_out(o, op, best_usd, best_time);
}

/* Serially: each option in order, searched unless the best so far rules
 * it out. */
static int search_serial(const pp_size_opts *o, opt_in *oi, int n, double steps,
			 pp_size_result *out, pp_err *err)
{
	double best_usd = INFINITY, best_time = INFINITY;
	for (int i = 0; i < n; i++) {
		pp_size_option *op = &oi[i].o;
		if (!to_search(o, &oi[i], best_usd, best_time))
			continue;
		if (o->on_option)
			o->on_option(i, n, op, o->progress_ctx);
		opt_res res;
		int rc = search_option(o, &oi[i], steps, &res, err);
		if (rc)
			return rc;
		apply_res(op, &res, out);
		if (op->status == PP_SIZE_SEARCHED && op->meets && op->usd < best_usd)
			best_usd = op->usd;
		if (op->status == PP_SIZE_SEARCHED && op->meets && op->train_s < best_time)
			best_time = op->train_s;
	}
	return 0;
}

static int64_t bits_of(double v)
{
	int64_t b;
	memcpy(&b, &v, sizeof(b));
	return b;
}

static double double_of(int64_t b)
{
	double v;
	memcpy(&v, &b, sizeof(v));
	return v;
}

/* An option's place in the queues: the first options of its cache and of
 * its fit, and its own (queues_of). */
typedef struct qkey {
	int cache, fit, i;
} qkey;

static int cmp_qkey(const void *a, const void *b)
{
	const qkey *x = a, *y = b;
	if (x->cache != y->cache)
		return x->cache < y->cache ? -1 : 1;
	if (x->fit != y->fit)
		return x->fit < y->fit ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Under MPI, the order in which the options are handed out: with a
 * deadline or a budget, the serial order as one queue (what is found
 * first rules out the rest), one option at a time; with neither every
 * option is searched whatever the order, so the options are grouped by
 * workload cache (one per SKU, share_fits), within it by search fit (the
 * options that differ only in fabric: one enumeration), and cut into one
 * queue per rank, so that a rank builds the workloads of its own SKUs and
 * not of every SKU; a rank then takes a whole fit's options at a time
 * (one taken from another rank's queue builds its fit once, not once per
 * option). ord: the options in queue order; queue q is ord[start[q] ..
 * start[q + 1]); unit[k] .. unit[k + 1] the positions in ord of the k-th
 * unit handed out, queue q's units ustart[q] .. ustart[q + 1]. Returns the
 * number of queues. */
static int queues_of(const pp_size_opts *o, const opt_in *oi, int n, int R, int *ord, int *start,
		     int *unit, int *ustart)
{
	int Q = 1;
	if (o->deadline_s > 0 || o->budget_usd > 0 || R < 2) {
		for (int i = 0; i < n; i++)
			ord[i] = i;
		start[0] = 0;
		start[1] = n;
	} else {
		/* by cache in order of first appearance, within it by fit in order
		 * of first appearance, then in the serial order */
		qkey *k = pp_xmalloc(sizeof(qkey) * ((size_t)n + 1));
		for (int i = 0; i < n; i++) {
			k[i] = (qkey){i, i, i};
			for (int j = 0; j < i && (k[i].cache == i || k[i].fit == i); j++) {
				if (k[i].cache == i && oi[j].cache == oi[i].cache)
					k[i].cache = j;
				if (k[i].fit == i && oi[j].fit == oi[i].fit)
					k[i].fit = j;
			}
		}
		qsort(k, (size_t)n, sizeof(qkey), cmp_qkey);
		for (int i = 0; i < n; i++)
			ord[i] = k[i].i;
		free(k);
		/* the queues cut at a fit's end, near an equal count */
		Q = R;
		start[0] = 0;
		for (int q = 1; q < R; q++) {
			int c = (int)((int64_t)n * q / R);
			while (c > start[q - 1] && c < n && oi[ord[c]].fit == oi[ord[c - 1]].fit)
				c++;
			start[q] = c;
		}
		start[R] = n;
	}
	/* the units: one option each in one queue, else a fit's run */
	int k = 0;
	for (int q = 0; q < Q; q++) {
		ustart[q] = k;
		for (int p = start[q]; p < start[q + 1]; p++)
			if (Q == 1 || p == start[q] || oi[ord[p]].fit != oi[ord[p - 1]].fit)
				unit[k++] = p;
	}
	ustart[Q] = k;
	unit[k] = n;
	return Q;
}

/* Under MPI: each option to whichever rank asks first (a shared counter
 * per queue, slot q: queues_of), its own queue first, then the queue with
 * the most left, searched there alone. What a rank finds is published as
 * it is found: slots Q + 2i and Q + 1 + 2i hold option i's cost and time
 * when it meets the target (0: not known, or it does not; Q the number
 * of queues). Before searching option i a rank takes the best of what is known
 * of the options before it; that is never better than what the serial
 * run knows there, so an option it rules out the serial run rules out
 * too, and it may search one the serial run would not. Afterwards the
 * searches' records go to every rank and the serial decisions are made
 * again in order on all the results: the same options searched, the
 * same counts, the same output as the serial run. */
static int search_scheduled(const pp_size_opts *o, opt_in *oi, int n, double steps,
			    pp_size_result *out, pp_err *err)
{
	int R = pp_dist_size(), r = pp_dist_rank(), rc = 0;
	int *ord = pp_xmalloc(sizeof(int) * ((size_t)n + 1));
	int *start = pp_xmalloc(sizeof(int) * ((size_t)R + 2));
	int *unit = pp_xmalloc(sizeof(int) * ((size_t)n + 2));
	int *ustart = pp_xmalloc(sizeof(int) * ((size_t)R + 2));
	int Q = queues_of(o, oi, n, R, ord, start, unit, ustart), cq = Q > 1 ? r % Q : 0;
	pp_dist_slots *w = pp_dist_slots_new(Q + 2 * n);
	opt_res *res = pp_xcalloc((size_t)n + 1, sizeof(opt_res));
	int *have = pp_xcalloc((size_t)n + 1, sizeof(int));
	int64_t *known = pp_xmalloc(sizeof(int64_t) * (size_t)(2 * n + 1));
	int64_t *taken = pp_xmalloc(sizeof(int64_t) * ((size_t)Q + 1));
	for (int p = 0, pend = 0;;) {
		if (p == pend) { /* the next unit */
			int64_t t = pp_dist_slot_add(w, cq, 1);
			if (t >= ustart[cq + 1] - ustart[cq]) {
				/* this queue is done: the one with the most options left */
				pp_dist_slot_get(w, 0, Q, taken);
				int most = 0;
				cq = -1;
				for (int u = 0; u < Q; u++) {
					int64_t tu = taken[u] < ustart[u + 1] - ustart[u]
							     ? taken[u] : ustart[u + 1] - ustart[u];
					int left = start[u + 1] - unit[ustart[u] + tu];
					if (left > most) {
						most = left;
						cq = u;
					}
				}
				if (cq < 0)
					break;
				continue;
			}
			p = unit[ustart[cq] + t];
			pend = unit[ustart[cq] + t + 1];
		}
		int64_t i = ord[p++];
		double best_usd = INFINITY, best_time = INFINITY;
		if (i > 0)
			pp_dist_slot_get(w, Q, (int)(2 * i), known);
		for (int j = 0; j < i; j++) {
			if (known[2 * j] && double_of(known[2 * j]) < best_usd)
				best_usd = double_of(known[2 * j]);
			if (known[2 * j + 1] && double_of(known[2 * j + 1]) < best_time)
				best_time = double_of(known[2 * j + 1]);
		}
		opt_in probe = oi[i];  /* ruled_out marks the option: decided again below */
		if (!to_search(o, &probe, best_usd, best_time))
			continue;
		if (o->on_option)
			o->on_option((int)i, n, &oi[i].o, o->progress_ctx);
		if ((rc = search_option(o, &oi[i], steps, &res[i], err)))
			break;
		have[i] = 1;
		if (res[i].status == PP_SIZE_SEARCHED && res[i].meets) {
			pp_dist_slot_set(w, (int)(Q + 2 * i), bits_of(res[i].usd));
			pp_dist_slot_set(w, (int)(Q + 1 + 2 * i), bits_of(res[i].train_s));
		}
	}
	/* a rank that failed stops; every rank still takes part below */
	double f = rc ? -1 : 0;
	pp_dist_allreduce_min(&f, 1);
	if (f < 0 && !rc)
		rc = pp_errf(err, PP_EINTERNAL, "a layout search failed on another rank");
	/* every record to rank 0, the searching rank's kept, and back to all */
	size_t rec = sizeof(opt_res) + sizeof(int);
	char *mine = pp_xmalloc(rec * (size_t)n + 1);
	for (int i = 0; i < n; i++) {
		memcpy(mine + rec * (size_t)i, &res[i], sizeof(opt_res));
		memcpy(mine + rec * (size_t)i + sizeof(opt_res), &have[i], sizeof(int));
	}
	char *all = r == 0 ? pp_xmalloc(rec * (size_t)n * (size_t)R + 1) : NULL;
	pp_dist_gather(mine, rec * (size_t)n, all);
	if (r == 0)
		for (int i = 0; i < n; i++)
			for (int q = 0; q < R; q++) {
				const char *e = all + rec * ((size_t)q * (size_t)n + (size_t)i);
				int h;
				memcpy(&h, e + sizeof(opt_res), sizeof(int));
				if (h) {
					memcpy(&res[i], e, sizeof(opt_res));
					have[i] = 1;
				}
			}
	pp_dist_bcast(res, sizeof(opt_res) * (size_t)n);
	pp_dist_bcast(have, sizeof(int) * (size_t)n);
	free(all);
	free(mine);
	/* the serial decisions, on every result */
	double best_usd = INFINITY, best_time = INFINITY;
	for (int i = 0; i < n && !rc; i++) {
		pp_size_option *op = &oi[i].o;
		if (!to_search(o, &oi[i], best_usd, best_time))
			continue;
		if (!have[i]) { /* not reached: a rank rules out only what the serial run does */
			rc = pp_errf(err, PP_EINTERNAL, "option %d was not searched", i);
			break;
		}
		apply_res(op, &res[i], out);
		if (op->status == PP_SIZE_SEARCHED && op->meets && op->usd < best_usd)
			best_usd = op->usd;
		if (op->status == PP_SIZE_SEARCHED && op->meets && op->train_s < best_time)
			best_time = op->train_s;
	}
	free(known);
	free(taken);
	free(have);
	free(res);
	free(ustart);
	free(unit);
	free(start);
	free(ord);
	pp_dist_slots_free(w);
	return rc;
}

/* The answer and why, in sentences, when one option meets the target. */
static void explain_answer(const pp_size_result *out, const pp_size_opts *o, pp_sb *why)
{
	bool budget = o->budget_usd > 0, deadline = o->deadline_s > 0;
	char l1[96], l2[200], b1[32], b2[32], b3[32];
	const pp_size_option *a = &out->opt[out->answer];
	label(a, l1, sizeof(l1));
	pp_sb_addf(why, "%s trains %.3g tokens in %s for %s", l1, out->train_tokens,
		   span(a->train_s, b1, sizeof(b1)), pp_fmt_usd(a->usd, b2, sizeof(b2)));
	if (deadline)
		pp_sb_addf(why, ", the cheapest option within the %.3g-day deadline",
			   o->deadline_s / 86400.0);
	else if (budget)
		pp_sb_addf(why, ", the fastest option within the %s budget",
			   pp_fmt_usd(o->budget_usd, b3, sizeof(b3)));
	else
		pp_sb_adds(why, ", the cheapest option");
	pp_sb_addf(why, " (best layout %s, %.1f%% MFU, $%.3g per GPU-hour).",
		   pp_layout_str(&a->best.layout, l2, sizeof(l2)), 100 * a->best.result.mfu,
		   a->usd_per_gpu_hour);
	/* the runner-up, and a cheaper option that misses */
	for (int i = out->answer + 1; i < out->n; i++) {
		const pp_size_option *r = &out->opt[i];
		if (r->status != PP_SIZE_SEARCHED || !r->meets)
			continue;
		label(r, l1, sizeof(l1));
		if (budget)
			pp_sb_addf(why, " Next fastest within budget: %s, %s for %s.", l1,
				   span(r->train_s, b1, sizeof(b1)),
				   pp_fmt_usd(r->usd, b2, sizeof(b2)));
		else
			pp_sb_addf(why, " Next cheapest: %s, %s more (%s).", l1,
				   pp_fmt_usd(r->usd - a->usd, b1, sizeof(b1)),
				   span(r->train_s, b2, sizeof(b2)));
		break;
	}
	for (int i = 0; i < out->n && deadline; i++) {
		const pp_size_option *r = &out->opt[i];
		if (r->status != PP_SIZE_SEARCHED || r->meets || !(r->usd < a->usd))
			continue;
		label(r, l1, sizeof(l1));
		pp_sb_addf(why, " Cheaper but too slow: %s, %s for %s.", l1,
			   span(r->train_s, b1, sizeof(b1)), pp_fmt_usd(r->usd, b2, sizeof(b2)));
		break;
	}
}

/* Why no option meets the target, and what the closest ones reach. */
static void explain_none(const pp_size_result *out, const pp_size_opts *o, pp_sb *why)
{
	bool budget = o->budget_usd > 0, deadline = o->deadline_s > 0;
	char b1[32];
	pp_sb_addf(why, "No option %s.",
		   deadline ? "trains within the deadline"
		   : budget ? "trains within the budget"
			    : "can train the model");
	double fastest = INFINITY, cheapest = INFINITY;
	for (int i = 0; i < out->n; i++)
		if (out->opt[i].status == PP_SIZE_SEARCHED) {
			if (out->opt[i].train_s < fastest)
				fastest = out->opt[i].train_s;
			if (out->opt[i].usd < cheapest)
				cheapest = out->opt[i].usd;
		}
	if (deadline && isfinite(fastest))
		pp_sb_addf(why, " The fastest option searched needs %s; add GPUs (search."
			   "num_gpus), a faster SKU, or relax the deadline.",
			   span(fastest, b1, sizeof(b1)));
	if (budget && isfinite(cheapest))
		pp_sb_addf(why, " The cheapest option searched costs %s.",
			   pp_fmt_usd(cheapest, b1, sizeof(b1)));
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
	opt_in *oi = NULL;
	int n = 0, rc;
	if ((rc = build_options(s, cat, &o->spec, o->hwcal, &oi, &n, err)))
		return rc;
	bound_options(s, oi, n, steps);
	pp_search_fit **fits = pp_xcalloc((size_t)n + 1, sizeof(pp_search_fit *));
	pp_fp_cache **caches = pp_xcalloc((size_t)n + 1, sizeof(pp_fp_cache *));
	int nfits = 0, ncaches = 0;
	share_fits(oi, n, fits, &nfits, caches, &ncaches);
	bool budget = o->budget_usd > 0;
	qsort(oi, (size_t)n, sizeof(opt_in), budget ? cmp_lb_time : cmp_lb_usd);
	/* options in order of their bound; the best so far rules out the rest */
	rc = pp_dist_size() > 1 ? search_scheduled(o, oi, n, steps, out, err)
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
	if (out->answer >= 0)
		explain_answer(out, o, &why);
	else
		explain_none(out, o, &why);
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
