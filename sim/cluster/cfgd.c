/*
 * cfgd.c - best-fit and fragmentation-gradient-descent placement of
 * GPU-sharing pods on a heterogeneous cluster, and the openb
 * fragmentation experiment (cfgd.h has the model and its sources).
 */
#include "cluster/cfgd.h"
#include "cluster/cjobsint.h"
#include "core/csv.h"
#include "core/sortd.h"
#include "core/util.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_fgd_policy_names[2] = {"bestfit", "fgd"};

/* best_fit_score.go normalises by the largest node it expects
 * (open-gpu-share/utils/const.go MaxSpecCpu, MaxSpecGpu) */
#define MAX_SPEC_CPU 128000.0
#define MAX_SPEC_GPU 8000.0

void pp_fgd_release(pp_fgd_trace *t)
{
	free(t->nodes);
	free(t->pods);
	memset(t, 0, sizeof(*t));
}

static int model_index(pp_fgd_trace *t, const char *name, bool add)
{
	for (int i = 0; i < t->nmodels; i++)
		if (!strcmp(t->models[i], name))
			return i;
	if (!add)
		return -1;
	if (t->nmodels == PP_FGD_MAX_MODELS)
		return -2;
	snprintf(t->models[t->nmodels], sizeof(t->models[0]), "%s", name);
	return t->nmodels++;
}

static int load_nodes(pp_fgd_trace *t, const char *file, pp_err *err)
{
	static const char *const req[] = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};
	pp_csv c;
	int idx[5], rc;
	if ((rc = pp_csv_load(&c, file, err)))
		return rc;
	if ((rc = cj_need(file, &c, req, 5, idx, "openb_node_list_*.csv (sn,cpu_milli,"
			  "memory_mib,gpu,model)", err)))
		goto out;
	if (c.nrows < 2) {
		rc = pp_errf(err, PP_EINPUT, "%s: no nodes, expected one row a node after the "
			     "header", file);
		goto out;
	}
	t->nodes = pp_xcalloc((size_t)c.nrows, sizeof(*t->nodes));
	for (int i = 1; i < c.nrows; i++) {
		int row = i + 1;
		pp_fgd_node *n = &t->nodes[t->nnodes];
		int32_t g;
		double mem;
		if ((rc = cj_int(file, row, "cpu_milli", pp_csv_get(&c, i, idx[1]), 0, 100000000,
				 &n->cpu_milli, err)) ||
		    (rc = cj_num(file, row, "memory_mib", pp_csv_get(&c, i, idx[2]), 0, 1e12, &mem,
				 err)) ||
		    (rc = cj_int(file, row, "gpu", pp_csv_get(&c, i, idx[3]), 0, PP_FGD_MAX_GPUS,
				 &g, err)))
			goto out;
		n->mem_mib = (int64_t)mem;
		n->gpus = g;
		snprintf(n->name, sizeof(n->name), "%s", pp_csv_get(&c, i, idx[0]));
		n->model = -1;
		const char *m = pp_csv_get(&c, i, idx[4]);
		if (g > 0) {
			if (!m[0] || !strcmp(m, "nan")) {
				rc = pp_errf(err, PP_EINPUT, "%s:%d: column model: found \"%s\" on a "
					     "node with %d GPUs, expected its GPU model (e.g. "
					     "V100M32)", file, row, m, (int)g);
				goto out;
			}
			n->model = model_index(t, m, true);
			if (n->model < 0) {
				rc = pp_errf(err, PP_EINPUT, "%s:%d: column model: \"%s\" is GPU model "
					     "%d, expected at most %d models", file, row, m,
					     PP_FGD_MAX_MODELS + 1, PP_FGD_MAX_MODELS);
				goto out;
			}
		}
		t->gpu_milli_total += (int64_t)g * PP_FGD_MILLI;
		t->nnodes++;
	}
	if (t->gpu_milli_total == 0)
		rc = pp_errf(err, PP_EINPUT, "%s: no node has a GPU, expected a GPU cluster "
			     "(openb_node_list_gpu_node.csv)", file);
out:
	pp_csv_release(&c);
	return rc;
}

/* "V100M16|V100M32" -> the bit mask of the cluster's models named; 0 for
 * "" or "nan" (any); a model no node has adds no bit, and a spec naming
 * none of the cluster's models is ~0 with no node's bit: UINT64_MAX would
 * accept all, so it is the bit above the models */
static uint64_t spec_mask(const pp_fgd_trace *t, const char *s)
{
	if (!s[0] || !strcmp(s, "nan"))
		return 0;
	uint64_t m = 0;
	char name[64];
	while (*s) {
		size_t k = strcspn(s, "|");
		snprintf(name, sizeof(name), "%.*s", (int)(k < 63 ? k : 63), s);
		int i = model_index((pp_fgd_trace *)t, name, false);
		if (i >= 0)
			m |= (uint64_t)1 << i;
		s += k;
		if (*s)
			s++;
	}
	if (!m) /* no node can serve it: a bit no node carries */
		m = t->nmodels < 64 ? (uint64_t)1 << t->nmodels : 0;
	return m;
}

static int load_pods(pp_fgd_trace *t, const char *file, pp_err *err)
{
	static const char *const req[] = {"name", "cpu_milli", "memory_mib", "num_gpu",
					  "gpu_milli", "gpu_spec"};
	pp_csv c;
	int idx[6], rc;
	if ((rc = pp_csv_load(&c, file, err)))
		return rc;
	if ((rc = cj_need(file, &c, req, 6, idx, "openb_pod_list_*.csv (name,cpu_milli,"
			  "memory_mib,num_gpu,gpu_milli,gpu_spec,...)", err)))
		goto out;
	if (c.nrows < 2) {
		rc = pp_errf(err, PP_EINPUT, "%s: no pods, expected one row a pod after the "
			     "header", file);
		goto out;
	}
	t->pods = pp_xcalloc((size_t)c.nrows, sizeof(*t->pods));
	for (int i = 1; i < c.nrows; i++) {
		int row = i + 1;
		pp_fgd_pod *p = &t->pods[t->npods];
		int32_t g, milli;
		double mem;
		if ((rc = cj_int(file, row, "cpu_milli", pp_csv_get(&c, i, idx[1]), 0, 100000000,
				 &p->cpu_milli, err)) ||
		    (rc = cj_num(file, row, "memory_mib", pp_csv_get(&c, i, idx[2]), 0, 1e12, &mem,
				 err)) ||
		    (rc = cj_int(file, row, "num_gpu", pp_csv_get(&c, i, idx[3]), 0,
				 PP_FGD_MAX_GPUS, &g, err)) ||
		    (rc = cj_int(file, row, "gpu_milli", pp_csv_get(&c, i, idx[4]), 0, PP_FGD_MILLI,
				 &milli, err)))
			goto out;
		if (g > 1 && milli != PP_FGD_MILLI) {
			rc = pp_errf(err, PP_EINPUT, "%s:%d: column gpu_milli: found %d with num_gpu "
				     "%d, expected 1000 (a share only of one GPU)", file, row,
				     (int)milli, (int)g);
			goto out;
		}
		if ((g == 0) != (milli == 0)) {
			rc = pp_errf(err, PP_EINPUT, "%s:%d: column gpu_milli: found %d with num_gpu "
				     "%d, expected 0 exactly when num_gpu is 0", file, row,
				     (int)milli, (int)g);
			goto out;
		}
		p->mem_mib = (int64_t)mem;
		p->num_gpu = g;
		p->gpu_milli = milli;
		p->spec = g ? spec_mask(t, pp_csv_get(&c, i, idx[5])) : 0;
		t->npods++;
	}
out:
	pp_csv_release(&c);
	return rc;
}

int pp_fgd_load(pp_fgd_trace *t, const char *nodes_csv, const char *pods_csv, pp_err *err)
{
	memset(t, 0, sizeof(*t));
	int rc = load_nodes(t, nodes_csv, err);
	if (!rc)
		rc = load_pods(t, pods_csv, err);
	if (rc)
		pp_fgd_release(t);
	return rc;
}

/* ---- the cluster's state and the fragmentation measure ---- */

typedef struct state {
	const pp_fgd_trace *t;
	int32_t *cpu;            /* free CPU milli, per node */
	int64_t *mem;            /* free MiB */
	uint16_t (*gl)[PP_FGD_MAX_GPUS]; /* free milli-GPU, per node and GPU */
	double *frag;            /* F(node) now (FGD) */
	pp_fgd_kind *ty;
	int nty;
} state;

static bool accessible(uint64_t spec, int model)
{
	return !spec || (model >= 0 && model < 64 && (spec >> model & 1));
}

double pp_fgd_frag(const pp_fgd_kind *kinds, int nk, int model, int32_t cpu_free,
		   const uint16_t *gpu_free, int ngpus)
{
	int total = 0;
	for (int g = 0; g < ngpus; g++)
		total += gpu_free[g];
	if (!total)
		return 0;
	double f = 0;
	for (int k = 0; k < nk; k++) {
		const pp_fgd_kind *y = &kinds[k];
		if (!y->gpu_milli || !accessible(y->spec, model)) {
			f += y->p * total; /* CPU-only ("XL/XR") or no access */
			continue;
		}
		int fit = 0, small = 0;
		for (int g = 0; g < ngpus; g++) {
			if (gpu_free[g] >= y->gpu_milli)
				fit++;
			else
				small += gpu_free[g];
		}
		f += y->p * (fit >= y->num_gpu && cpu_free >= y->cpu_milli ? small : total);
	}
	return f;
}

static double frag(const state *s, int model, int32_t cpu, const uint16_t *gl, int ng)
{
	return pp_fgd_frag(s->ty, s->nty, model, cpu, gl, ng);
}

static bool fits(const state *s, int n, const pp_fgd_pod *p)
{
	const pp_fgd_node *nd = &s->t->nodes[n];
	if (s->cpu[n] < p->cpu_milli || s->mem[n] < p->mem_mib)
		return false;
	if (!p->num_gpu)
		return true;
	if (!accessible(p->spec, nd->model))
		return false;
	int ok = 0;
	for (int g = 0; g < nd->gpus; g++)
		ok += s->gl[n][g] >= p->gpu_milli;
	return ok >= p->num_gpu;
}

static bool is_share(const pp_fgd_pod *p)
{
	return p->num_gpu == 1 && p->gpu_milli < PP_FGD_MILLI;
}

/* The GPU best-fit gives a share: the least free that fits */
static int bestfit_gpu(const state *s, int n, const pp_fgd_pod *p)
{
	int best = -1;
	for (int g = 0; g < s->t->nodes[n].gpus; g++)
		if (s->gl[n][g] >= p->gpu_milli && (best < 0 || s->gl[n][g] < s->gl[n][best]))
			best = g;
	return best;
}

static int64_t bestfit_score(const state *s, int n, const pp_fgd_pod *p)
{
	int free_gpu = 0;
	for (int g = 0; g < s->t->nodes[n].gpus; g++)
		free_gpu += s->gl[n][g];
	double sc = 0.5 * (s->cpu[n] - p->cpu_milli) / MAX_SPEC_CPU +
		    0.5 * (free_gpu - (double)p->gpu_milli * p->num_gpu) / MAX_SPEC_GPU;
	return (int64_t)((1.0 - sc) * 100);
}

int64_t pp_fgd_score(double before, double after)
{
	return (int64_t)(100.0 / (1.0 + exp(-(before - after) / PP_FGD_MILLI)));
}

/* FGD's score of node n for p, and (a share) the GPU it would take */
static int64_t fgd_score(const state *s, int n, const pp_fgd_pod *p, int *gpu)
{
	const pp_fgd_node *nd = &s->t->nodes[n];
	uint16_t gl[PP_FGD_MAX_GPUS];
	memcpy(gl, s->gl[n], sizeof(gl));
	int32_t cpu = s->cpu[n] - p->cpu_milli;
	*gpu = -1;
	if (is_share(p)) {
		int64_t best = 0;
		for (int g = 0; g < nd->gpus; g++) {
			if (gl[g] < p->gpu_milli)
				continue;
			bool seen = false; /* a GPU with the same free share scores the same */
			for (int h = 0; h < g; h++)
				seen |= s->gl[n][h] == gl[g];
			if (seen)
				continue;
			gl[g] = (uint16_t)(gl[g] - p->gpu_milli);
			int64_t sc = pp_fgd_score(s->frag[n], frag(s, nd->model, cpu, gl, nd->gpus));
			gl[g] = s->gl[n][g];
			if (*gpu < 0 || sc > best) {
				best = sc;
				*gpu = g;
			}
		}
		return best;
	}
	for (int g = 0, left = p->num_gpu; g < nd->gpus && left; g++)
		if (gl[g] == PP_FGD_MILLI) {
			gl[g] = 0;
			left--;
		}
	return pp_fgd_score(s->frag[n], frag(s, nd->model, cpu, gl, nd->gpus));
}

/* Place p: the node with the highest score; among equal scores the one
 * whose name sorts first (the simulator's selectHost, patched "for
 * reproducibility" in its vendored generic_scheduler.go, where
 * Kubernetes draws at random); -1 when none fits */
static int place(state *s, const pp_fgd_pod *p, pp_fgd_policy pol)
{
	int chosen = -1, chosen_gpu = -1;
	int64_t top = 0;
	for (int n = 0; n < s->t->nnodes; n++) {
		if (!fits(s, n, p))
			continue;
		int gpu = -1;
		int64_t sc = pol == PP_FGD_FGD ? fgd_score(s, n, p, &gpu) : bestfit_score(s, n, p);
		if (chosen < 0 || sc > top ||
		    (sc == top && strcmp(s->t->nodes[n].name, s->t->nodes[chosen].name) < 0)) {
			top = sc;
			chosen = n;
			chosen_gpu = gpu;
		}
	}
	if (chosen < 0)
		return -1;
	const pp_fgd_node *nd = &s->t->nodes[chosen];
	s->cpu[chosen] -= p->cpu_milli;
	s->mem[chosen] -= p->mem_mib;
	if (is_share(p)) {
		int g = pol == PP_FGD_FGD ? chosen_gpu : bestfit_gpu(s, chosen, p);
		s->gl[chosen][g] = (uint16_t)(s->gl[chosen][g] - p->gpu_milli);
	} else {
		for (int g = 0, left = p->num_gpu; g < nd->gpus && left; g++)
			if (s->gl[chosen][g] == PP_FGD_MILLI) {
				s->gl[chosen][g] = 0;
				left--;
			}
	}
	if (pol == PP_FGD_FGD)
		s->frag[chosen] = frag(s, nd->model, s->cpu[chosen], s->gl[chosen], nd->gpus);
	return chosen;
}

static bool same_kind(const pp_fgd_pod *a, const pp_fgd_kind *b)
{
	return a->cpu_milli == b->cpu_milli && a->num_gpu == b->num_gpu &&
	       a->gpu_milli == b->gpu_milli && a->spec == b->spec;
}

/* Kinds of equal count keep their first appearance's order (qsort is not
 * stable: the index breaks the tie). */
typedef struct kind_ix {
	pp_fgd_kind k;
	int count, first;
} kind_ix;

static int by_count_then_first(const void *a, const void *b)
{
	const kind_ix *x = a, *y = b;
	if (x->count != y->count)
		return y->count > x->count ? 1 : -1;
	return (x->first > y->first) - (x->first < y->first);
}

pp_fgd_kind *pp_fgd_kinds(const pp_fgd_pod *pods, int npods, int popularity_pct, int *nk)
{
	kind_ix *v = NULL;
	int n = 0, cap = 0;
	for (int i = 0; i < npods; i++) {
		const pp_fgd_pod *p = &pods[i];
		int j = 0;
		while (j < n && !same_kind(p, &v[j].k))
			j++;
		if (j == n) {
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				v = pp_xrealloc(v, (size_t)cap * sizeof(*v));
			}
			v[n].k = (pp_fgd_kind){p->cpu_milli, p->num_gpu, p->gpu_milli, p->spec, 0};
			v[n].count = 0;
			v[n].first = i;
			n++;
		}
		v[j].count++;
	}
	if (n)
		qsort(v, (size_t)n, sizeof(*v), by_count_then_first);
	double want = popularity_pct * (double)npods / 100.0, cum = 0;
	int take = 0;
	while (cum < want && take < n) {
		int step = take + 10;
		while (take < step && take < n)
			cum += v[take++].count;
	}
	pp_fgd_kind *ty = pp_xcalloc((size_t)(take ? take : 1), sizeof(*ty));
	for (int i = 0; i < take; i++) {
		ty[i] = v[i].k;
		ty[i].p = v[i].count / cum;
	}
	free(v);
	*nk = take;
	return ty;
}

int pp_fgd_run(const pp_fgd_trace *t, const pp_fgd_opts *o, pp_fgd_result *r, pp_err *err)
{
	(void)err;
	memset(r, 0, sizeof(*r));
	for (int k = 0; k < PP_FGD_MAX_POINTS; k++)
		r->alloc_pct[k] = NAN;
	state s = {.t = t};
	int nn = t->nnodes;
	s.cpu = pp_xcalloc((size_t)nn, sizeof(*s.cpu));
	s.mem = pp_xcalloc((size_t)nn, sizeof(*s.mem));
	s.gl = pp_xcalloc((size_t)nn, sizeof(*s.gl));
	s.frag = pp_xcalloc((size_t)nn, sizeof(*s.frag));
	s.ty = pp_fgd_kinds(t->pods, t->npods, o->popularity_pct > 0 ? o->popularity_pct : 95,
			    &s.nty);
	r->typical = s.nty;
	for (int n = 0; n < nn; n++) {
		s.cpu[n] = t->nodes[n].cpu_milli;
		s.mem[n] = t->nodes[n].mem_mib;
		for (int g = 0; g < t->nodes[n].gpus; g++)
			s.gl[n][g] = PP_FGD_MILLI;
		s.frag[n] = frag(&s, t->nodes[n].model, s.cpu[n], s.gl[n], t->nodes[n].gpus);
	}
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, o->seed);

	/* the pods in order: shuffled, then tuned to tune x capacity */
	int np = t->npods, cap = np;
	int *order = pp_xcalloc((size_t)cap, sizeof(*order));
	for (int i = 0; i < np; i++)
		order[i] = i;
	if (o->shuffle)
		for (int i = np - 1; i > 0; i--) {
			int j = (int)gsl_rng_uniform_int(rng, (unsigned long)i + 1);
			int x = order[i];
			order[i] = order[j];
			order[j] = x;
		}
	double capm = (double)t->gpu_milli_total;
	if (o->tune > 0) {
		double target = o->tune * capm, sum = 0;
		for (int i = 0; i < np; i++)
			sum += (double)t->pods[i].gpu_milli * t->pods[i].num_gpu;
		while (sum > target && np > 0) { /* tuneDownPods */
			int j = (int)gsl_rng_uniform_int(rng, (unsigned long)np);
			sum -= (double)t->pods[order[j]].gpu_milli * t->pods[order[j]].num_gpu;
			memmove(&order[j], &order[j + 1], (size_t)(np - j - 1) * sizeof(*order));
			np--;
		}
		for (;;) { /* tuneUpPods: draw until the next would pass the target */
			int j = (int)gsl_rng_uniform_int(rng, (unsigned long)t->npods);
			double req = (double)t->pods[j].gpu_milli * t->pods[j].num_gpu;
			if (sum + req > target)
				break;
			sum += req;
			if (np == cap) {
				cap *= 2;
				order = pp_xrealloc(order, (size_t)cap * sizeof(*order));
			}
			order[np++] = j;
		}
	}

	double arrived = 0, alloc = 0;
	int next = 0;
	for (int i = 0; i < np; i++) {
		const pp_fgd_pod *p = &t->pods[order[i]];
		double req = (double)p->gpu_milli * p->num_gpu;
		arrived += req;
		if (place(&s, p, o->policy) >= 0) {
			alloc += req;
			r->pods++;
		} else {
			r->failed++;
		}
		int reached = (int)floor(100.0 * arrived / capm + 1e-9);
		while (next <= reached && next < PP_FGD_MAX_POINTS)
			r->alloc_pct[next++] = 100.0 * alloc / capm;
	}
	r->arrived_pct = 100.0 * arrived / capm;
	r->final_alloc_pct = 100.0 * alloc / capm;
	gsl_rng_free(rng);
	free(order);
	free(s.cpu);
	free(s.mem);
	free(s.gl);
	free(s.frag);
	free(s.ty);
	return 0;
}

static double median(const double *x, int n)
{
	double *y = pp_xcalloc((size_t)n, sizeof(*y));
	pp_sort_doubles(x, (size_t)n, y);
	double m = n % 2 ? y[n / 2] : 0.5 * (y[n / 2 - 1] + y[n / 2]);
	free(y);
	return m;
}

int pp_fgd_gap_run(const pp_fgd_trace *t, double tune, unsigned long seed, int runs,
		   const double *loads, int nloads, pp_fgd_gap *out, pp_err *err)
{
	for (int l = 0; l < nloads; l++) {
		out[l] = (pp_fgd_gap){.load_pct = loads[l], .runs = runs};
		if (!(loads[l] >= 0 && loads[l] < PP_FGD_MAX_POINTS))
			return pp_errf(err, PP_EINPUT, "load %g%%: expected 0..%d", loads[l],
				       PP_FGD_MAX_POINTS - 1);
	}
	/* u[(pol * nloads + l) * runs + k]: run k's unallocated share */
	double *u = pp_xcalloc((size_t)(2 * nloads * runs), sizeof(*u));
	int rc = 0;
	for (int k = 0; k < runs && !rc; k++)
		for (int pol = 0; pol < 2 && !rc; pol++) {
			pp_fgd_opts o = {.policy = (pp_fgd_policy)pol, .tune = tune, .shuffle = true,
					 .seed = seed + (unsigned long)k, .popularity_pct = 95};
			pp_fgd_result r;
			if ((rc = pp_fgd_run(t, &o, &r, err)))
				break;
			for (int l = 0; l < nloads; l++)
				u[(pol * nloads + l) * runs + k] = 100.0 - r.alloc_pct[(int)loads[l]];
		}
	for (int l = 0; l < nloads && !rc; l++) {
		out[l].unalloc_bestfit_pct = median(&u[l * runs], runs);
		out[l].unalloc_fgd_pct = median(&u[(nloads + l) * runs], runs);
		out[l].reduction_pct = 100.0 * (1.0 - out[l].unalloc_fgd_pct /
							out[l].unalloc_bestfit_pct);
	}
	free(u);
	return rc;
}

int pp_fgd_report(const pp_fgd_trace *t, double tune, unsigned long seed, int runs,
		  pp_sb *out, pp_err *err)
{
	static const double want[] = {80, 90, 95, 100, 105, 110, 120, 130, 150, 200, 300};
	double loads[sizeof(want) / sizeof(want[0])];
	int nl = 0;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (want[i] < floor(100 * tune + 1e-9)) /* the last percent is never quite reached */
			loads[nl++] = want[i];
	if (!nl)
		return pp_errf(err, PP_EINPUT, "--tune %g: expected at least 0.9 (the table starts "
			       "at 80%% of capacity arrived)", tune);
	pp_fgd_gap g[sizeof(want) / sizeof(want[0])];
	int rc = pp_fgd_gap_run(t, tune, seed, runs, loads, nl, g, err);
	if (rc)
		return rc;
	int gpus = 0;
	for (int n = 0; n < t->nnodes; n++)
		gpus += t->nodes[n].gpus;
	pp_fgd_opts o = {.policy = PP_FGD_BESTFIT, .tune = 0, .popularity_pct = 95};
	pp_fgd_result r;
	if ((rc = pp_fgd_run(t, &o, &r, err)))
		return rc;
	pp_sb_addf(out, "fragmentation: %d nodes, %d GPUs of %d models; %d pods in the trace "
		   "(%.1f%% of the GPUs requested), %d typical kinds\n",
		   t->nnodes, gpus, t->nmodels, t->npods, r.arrived_pct, r.typical);
	pp_sb_addf(out, "arrivals: the trace shuffled, then pods drawn from it until the "
		   "requests reach %.0f%% of the GPUs; placed once, never removed\n",
		   100 * tune);
	pp_sb_addf(out, "runs: %d, seeds %lu..%lu (GSL MT19937)\n\n", runs, seed,
		   seed + (unsigned long)runs - 1);
	pp_sb_addf(out, "unallocated GPU, %% of the cluster's GPUs (median over runs)\n");
	pp_sb_addf(out, "%8s %9s %9s %10s\n", "arrived", "best-fit", "FGD", "reduction");
	for (int l = 0; l < nl; l++)
		pp_sb_addf(out, "%7.0f%% %8.2f%% %8.2f%% %9.1f%%\n", g[l].load_pct,
			   g[l].unalloc_bestfit_pct, g[l].unalloc_fgd_pct, g[l].reduction_pct);
	return 0;
}
