/* csweep.c - see csweep.h. */
#include "cluster/csweep.h"
#include "cluster/cscen.h"
#include "core/csv.h"
#include "core/dist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char known_keys[] = "add_nodes, scheduler, placement, fs_scale or topology";

static int named(const char *key, const char *v, const char *const *names, int n, int *out,
		 pp_err *err)
{
	char list[160] = "";
	for (int i = 0; i < n; i++) {
		if (!strcmp(v, names[i])) {
			*out = i;
			return 0;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i == 0 ? "" : i == n - 1 ? " or " : ", ", names[i]);
	}
	return pp_errf(err, PP_EINPUT, "%s=%s: found \"%s\", expected %s", key, v, v, list);
}

int pp_cspec_set(pp_cspec *s, const char *key, const char *v, pp_err *err)
{
	char *end;
	int k = 0;
	if (!strcmp(key, "add_nodes")) {
		long n = strtol(v, &end, 10);
		if (*end || end == v || n < -s->types[0].count + 1 || n > 1000000)
			return pp_errf(err, PP_EINPUT, "add_nodes=%s: expected an integer that leaves "
				       "at least one node of type %s (it has %d)", v,
				       s->types[0].name[0] ? s->types[0].name : "1",
				       s->types[0].count);
		s->types[0].count += (int)n;
		s->nodes += (int)n;
		s->gpus += (int)n * s->types[0].gpus_per_node;
		return 0;
	}
	if (!strcmp(key, "fs_scale")) {
		double x = strtod(v, &end);
		if (*end || end == v || !(x > 0 && x < 1e6))
			return pp_errf(err, PP_EINPUT, "fs_scale=%s: expected a positive factor "
				       "below 1e6", v);
		s->fs_write_Bps *= x;
		s->fs_read_Bps *= x;
		return 0;
	}
	if (!strcmp(key, "scheduler")) {
		if (named(key, v, pp_csched_names, 2, &k, err))
			return PP_EINPUT;
		s->sched = (pp_csched)k;
		return 0;
	}
	if (!strcmp(key, "placement")) {
		if (named(key, v, pp_cplace_names, 3, &k, err))
			return PP_EINPUT;
		s->placement = (pp_cplace)k;
		return 0;
	}
	if (!strcmp(key, "topology")) {
		if (named(key, v, pp_ctopo_names, 3, &k, err))
			return PP_EINPUT;
		s->topology_mode = (pp_ctopo)k;
		return 0;
	}
	return pp_errf(err, PP_EINPUT, "%s=%s: unknown key \"%s\"; expected %s", key, v, key,
		       known_keys);
}

int pp_cspec_set_kv(pp_cspec *s, const char *kv, pp_err *err)
{
	const char *eq = strchr(kv, '=');
	char key[64];
	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(key))
		return pp_errf(err, PP_EINPUT, "%s: expected KEY=VALUE, KEY one of %s", kv,
			       known_keys);
	snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
	return pp_cspec_set(s, key, eq + 1, err);
}

int pp_csweep_add(pp_csweep *w, const char *spec, const pp_cspec *base, pp_err *err)
{
	const char *eq = strchr(spec, '=');
	if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof(w->axes[0].key))
		return pp_errf(err, PP_EINPUT, "--sweep %s: expected KEY=V1,V2,..., KEY one of %s",
			       spec, known_keys);
	if (w->naxes == PP_CSWEEP_MAX_AXES)
		return pp_errf(err, PP_EINPUT, "--sweep %s: at most %d keys", spec,
			       PP_CSWEEP_MAX_AXES);
	pp_csweep_axis a;
	memset(&a, 0, sizeof(a));
	snprintf(a.key, sizeof(a.key), "%.*s", (int)(eq - spec), spec);
	for (int i = 0; i < w->naxes; i++)
		if (!strcmp(w->axes[i].key, a.key))
			return pp_errf(err, PP_EINPUT, "--sweep %s: key %s given twice; expected "
				       "its values in one list", spec, a.key);
	const char *p = eq + 1;
	for (;;) {
		const char *c = strchr(p, ',');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		if (l == 0 || l >= sizeof(a.values[0]))
			return pp_errf(err, PP_EINPUT, "--sweep %s: found an %s value, expected "
				       "V1,V2,... each 1 to %zu characters", spec,
				       l ? "overlong" : "empty", sizeof(a.values[0]) - 1);
		if (a.nvalues == PP_CSWEEP_MAX_VALUES)
			return pp_errf(err, PP_EINPUT, "--sweep %s: at most %d values a key", spec,
				       PP_CSWEEP_MAX_VALUES);
		snprintf(a.values[a.nvalues], sizeof(a.values[0]), "%.*s", (int)l, p);
		/* checked on the base spec now, so the run cannot fail on it later */
		pp_cspec t;
		pp_cspec_copy(&t, base);
		pp_err e = {0};
		int rc = pp_cspec_set(&t, a.key, a.values[a.nvalues], &e);
		pp_cspec_release(&t);
		if (rc)
			return pp_errf(err, rc, "--sweep %s: %s", spec, e.msg);
		a.nvalues++;
		if (!c)
			break;
		p = c + 1;
	}
	long long np = (w->naxes ? w->npoints : 1) * (long long)a.nvalues;
	if (np > PP_CSWEEP_MAX_POINTS)
		return pp_errf(err, PP_EINPUT, "--sweep %s: the grid would have %lld points, "
			       "expected at most %d", spec, np, PP_CSWEEP_MAX_POINTS);
	w->axes[w->naxes++] = a;
	w->npoints = (int)np;
	return 0;
}

/* mixed radix, the last axis fastest */
static int digit(const pp_csweep *w, int i, int a)
{
	for (int b = w->naxes - 1; b > a; b--)
		i /= w->axes[b].nvalues;
	return i % w->axes[a].nvalues;
}

const char *pp_csweep_value(const pp_csweep *w, int i, int a)
{
	return w->axes[a].values[digit(w, i, a)];
}

int pp_csweep_spec(const pp_csweep *w, int i, const pp_cspec *base, pp_cspec *out, pp_err *err)
{
	pp_cspec_copy(out, base);
	for (int a = 0; a < w->naxes; a++) {
		int rc = pp_cspec_set(out, w->axes[a].key, pp_csweep_value(w, i, a), err);
		if (rc) {
			pp_cspec_release(out);
			return rc;
		}
	}
	return 0;
}

typedef struct prog_ctx {
	pp_csweep_progress_fn fn;
	void *ctx;
	int point, done, npoints;
} prog_ctx;

static void on_jobs(void *ctx, int done, int total)
{
	prog_ctx *p = ctx;
	p->fn(p->ctx, p->point, p->done, p->npoints, done, total);
}

static int cmp_row(const void *a, const void *b)
{
	const pp_csweep_row *x = a, *y = b;
	return (x->point > y->point) - (x->point < y->point);
}

int pp_csweep_run(const pp_csweep *w, const pp_cspec *base, const pp_cjobs *jobs,
		  const char *jobs_path, const pp_catalog *cat, const pp_hw_resolver *hwr,
		  pp_csweep_progress_fn progress, void *progress_ctx, pp_csweep_row **rows,
		  pp_err *err)
{
	int n = w->npoints;
	pp_csweep_row *mine = pp_xcalloc((size_t)n + 1, sizeof(*mine));
	int nmine = 0;
	/* slot 0: the next point to hand out; slot 1: points done */
	pp_dist_slots *slots = pp_dist_slots_new(2);
	prog_ctx pc = {progress, progress_ctx, 0, 0, n};
	for (;;) {
		int64_t i = pp_dist_slot_add(slots, 0, 1);
		if (i >= n)
			break;
		pp_csweep_row *row = &mine[nmine++];
		row->point = (int)i;
		pc.point = (int)i;
		if (progress) {
			int64_t d;
			pp_dist_slot_get(slots, 1, 1, &d);
			pc.done = (int)d;
			progress(progress_ctx, pc.point, pc.done, n, 0, jobs->n);
		}
		pp_cspec s;
		row->rc = pp_csweep_spec(w, (int)i, base, &s, &row->err);
		if (!row->rc) {
			pp_csim_opts o = {0};
			o.progress = progress ? on_jobs : NULL;
			o.progress_ctx = &pc;
			row->rc = pp_cscen_simulate(&s, jobs, jobs_path, cat, hwr, &o, &row->r, &row->err);
			pp_csim_result_release(&row->r);
			pp_cspec_release(&s);
		}
		/* the summary travels between ranks as bytes: no pointers in it */
		row->r.jobs = NULL;
		row->r.timeline = NULL;
		row->r.ntimeline = 0;
		row->r.wall_s = 0;
		pp_dist_slot_add(slots, 1, 1);
	}
	pp_dist_slots_free(slots);
	void *all = NULL;
	size_t total = 0;
	pp_dist_allgatherv(mine, (size_t)nmine * sizeof(*mine), &all, &total);
	free(mine);
	pp_csweep_row *r = all;
	if (total != (size_t)n * sizeof(*r)) {
		free(all);
		return pp_errf(err, PP_EINTERNAL, "sweep: gathered %zu bytes, expected %d points",
			       total, n);
	}
	qsort(r, (size_t)n, sizeof(*r), cmp_row);
	*rows = r;
	for (int i = 0; i < n; i++)
		if (r[i].rc) {
			if (err)
				*err = r[i].err;
			return r[i].rc;
		}
	return 0;
}

/* the columns after the axes: name, header, value of a row */
static double col_value(const pp_csim_result *r, int c)
{
	switch (c) {
	case 0: return r->gpus;
	case 1: return r->makespan_s / 3600;
	case 2: return 100 * r->sched_goodput;
	case 3: return 100 * r->runtime_goodput;
	case 4: return 100 * r->goodput;
	case 5: return r->queue[PP_CSIM_SIZE_BUCKETS - 1].mean_s;
	case 6: return r->queue[PP_CSIM_SIZE_BUCKETS - 1].median_s;
	case 7: return r->queue[PP_CSIM_SIZE_BUCKETS - 1].p99_s;
	case 8: return r->gpu_s_fragmented / 3600;
	case 9: return r->gpu_s_useful / 3600;
	default: return r->usd_per_useful_gpu_hour;
	}
}

void pp_csweep_text(pp_sb *out, const pp_csweep *w, const pp_csweep_row *rows)
{
	static const char *const head[] = {"GPUs", "makespan_h", "sched_%", "runtime_%",
					   "goodput_%", "queue_mean_s", "queue_med_s",
					   "queue_p99_s", "frag_GPU_h", "useful_GPU_h",
					   "$/useful_GPU_h"};
	static const char *const fmt[] = {"%6.0f", "%11.2f", "%8.2f", "%10.2f", "%10.2f",
					  "%13.1f", "%12.1f", "%12.1f", "%11.1f", "%13.1f",
					  "%15.4f"};
	bool usd = false;
	for (int i = 0; i < w->npoints; i++)
		if (!isnan(rows[i].r.usd_per_useful_gpu_hour))
			usd = true;
	int ncol = usd ? 11 : 10;
	int kw[PP_CSWEEP_MAX_AXES];
	pp_sb_addf(out, "sweep of %d points on the same %d jobs (seed %lu)\n", w->npoints,
		   w->npoints ? rows[0].r.njobs : 0, w->npoints ? rows[0].r.seed : 0UL);
	for (int a = 0; a < w->naxes; a++) {
		kw[a] = (int)strlen(w->axes[a].key);
		for (int v = 0; v < w->axes[a].nvalues; v++)
			if ((int)strlen(w->axes[a].values[v]) > kw[a])
				kw[a] = (int)strlen(w->axes[a].values[v]);
		pp_sb_addf(out, "%s%-*s", a ? " " : "", kw[a], w->axes[a].key);
	}
	for (int c = 0; c < ncol; c++) {
		char f[16];
		int width = atoi(fmt[c] + 1);
		snprintf(f, sizeof(f), " %%%ds", width);
		pp_sb_addf(out, f, head[c]);
	}
	pp_sb_adds(out, "\n");
	for (int i = 0; i < w->npoints; i++) {
		for (int a = 0; a < w->naxes; a++)
			pp_sb_addf(out, "%s%-*s", a ? " " : "", kw[a], pp_csweep_value(w, i, a));
		for (int c = 0; c < ncol; c++) {
			pp_sb_adds(out, " ");
			pp_sb_addf(out, fmt[c], col_value(&rows[i].r, c));
		}
		pp_sb_adds(out, "\n");
	}
}

void pp_csweep_csv(pp_sb *out, const pp_csweep *w, const pp_csweep_row *rows)
{
	pp_csvw c;
	pp_csvw_init(&c, out);
	for (int a = 0; a < w->naxes; a++)
		pp_csvw_text(&c, w->axes[a].key);
	pp_csvw_header(&c, "gpus,makespan_s,scheduling_goodput,runtime_goodput,program_goodput,"
			   "goodput,queue_mean_s,queue_median_s,queue_p99_s,gpu_hours_fragmented,"
			   "gpu_hours_useful,usd_per_useful_gpu_hour");
	for (int i = 0; i < w->npoints; i++) {
		const pp_csim_result *r = &rows[i].r;
		for (int a = 0; a < w->naxes; a++)
			pp_csvw_text(&c, pp_csweep_value(w, i, a));
		pp_csvw_num(&c, r->gpus, 12);
		pp_csvw_num(&c, r->makespan_s, 12);
		pp_csvw_num(&c, r->sched_goodput, 6);
		pp_csvw_num(&c, r->runtime_goodput, 6);
		pp_csvw_num(&c, r->program_goodput, 6);
		pp_csvw_num(&c, r->goodput, 6);
		pp_csvw_num(&c, r->queue[PP_CSIM_SIZE_BUCKETS - 1].mean_s, 9);
		pp_csvw_num(&c, r->queue[PP_CSIM_SIZE_BUCKETS - 1].median_s, 9);
		pp_csvw_num(&c, r->queue[PP_CSIM_SIZE_BUCKETS - 1].p99_s, 9);
		pp_csvw_num(&c, r->gpu_s_fragmented / 3600, 9);
		pp_csvw_num(&c, r->gpu_s_useful / 3600, 9);
		pp_csvw_num(&c, r->usd_per_useful_gpu_hour, 9);
		pp_csvw_end(&c);
	}
}
