/* clusterrep.c - see clusterrep.h. */
#include "clusterrep.h"
#include "charts.h"
#include "cluster/cout.h"
#include "core/csv.h"
#include "core/fmt.h"
#include "cost/costcluster.h"
#include "svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* quantiles a CDF is drawn and written with: every percent */
#define CDF_POINTS 101

static const char *const bucket_colors[PP_CSIM_SIZE_BUCKETS] = {"#4e79a7", "#f28e2b", "#59a14f",
								 "#b07aa1", "#e15759", "#1d232a"};

static void esc(pp_sb *o, const char *s)
{
	pp_sb_add_html(o, s ? s : "");
}


static void chart_allocation(pp_sb *o, const pp_report_cluster *c)
{
	const pp_csim_result *r = c->r;
	int n = r->ntimeline;
	double *x = pp_xcalloc((size_t)n + 1, sizeof(double));
	double *y[4];
	for (int k = 0; k < 4; k++)
		y[k] = pp_xcalloc((size_t)n + 1, sizeof(double));
	for (int i = 0; i < n; i++) {
		const pp_csim_tpoint *p = &r->timeline[i];
		x[i] = p->t_s;
		y[0][i] = p->alloc_gpus;
		y[1][i] = p->frag_gpus;
		y[2][i] = p->down_gpus;
		y[3][i] = p->pending_gpus;
	}
	pp_svg_series s[4] = {{"allocated", "#4e79a7", n, x, y[0], true},
			      {"fragmented (free, unusable by the first pending job)", "#f28e2b", n,
			       x, y[1], false},
			      {"down (failed nodes in repair)", "#e15759", n, x, y[2], false},
			      {"pending (asked for by queued jobs)", "#9c755f", n, x, y[3], false}};
	char cap[300];
	snprintf(cap, sizeof(cap), "Mean GPUs over each of %d time bins of the %.0f-GPU cluster; "
		 "pending can exceed the cluster (it counts what the queue asks for).", n, r->gpus);
	pp_chart_figure_open(o, "fig-cluster-allocation", "Allocation over time", cap);
	pp_svg_frame f = {"chart-cluster-allocation", "GPUs allocated, fragmented, down and pending "
			  "over time", "Lines: mean GPUs in each state per time bin.", 0, 0,
			  PP_SVG_SECONDS, PP_SVG_NUM, "time since the first submission", "GPUs"};
	pp_svg_lines(o, &f, s, 4, NULL, 0, "The simulation recorded no time.");
	pp_chart_figure_close(o);
	for (int k = 0; k < 4; k++)
		free(y[k]);
	free(x);
}

static void chart_queue_cdf(pp_sb *o, const pp_report_cluster *c)
{
	pp_svg_series s[PP_CSIM_SIZE_BUCKETS];
	double q[PP_CSIM_SIZE_BUCKETS][CDF_POINTS], p[CDF_POINTS];
	char names[PP_CSIM_SIZE_BUCKETS][64];
	int ns = 0;
	for (int k = 0; k < CDF_POINTS; k++)
		p[k] = (double)k / (CDF_POINTS - 1);
	for (int b = 0; b < PP_CSIM_SIZE_BUCKETS; b++) {
		int n = pp_csim_queue_quantiles(c->jobs, c->r, b, q[b], CDF_POINTS);
		if (!n)
			continue;
		snprintf(names[b], sizeof(names[b]), "%s GPU%s (%d jobs)", pp_csim_bucket_names[b],
			 strcmp(pp_csim_bucket_names[b], "1") ? "s" : "", n);
		if (b == PP_CSIM_SIZE_BUCKETS - 1)
			snprintf(names[b], sizeof(names[b]), "all sizes (%d jobs)", n);
		s[ns++] = (pp_svg_series){names[b], bucket_colors[b], CDF_POINTS, q[b], p,
					  b == PP_CSIM_SIZE_BUCKETS - 1};
	}
	pp_chart_figure_open(o, "fig-cluster-queue", "Queueing delay by job size",
			     "Share of the jobs of each size (GPUs) that waited at most the time on "
			     "the x axis from submission to their first start; a line that rises "
			     "late is a size that waits.");
	pp_svg_frame f = {"chart-cluster-queue", "Cumulative distribution of the queueing delay by "
			  "job size", "Lines: the empirical CDF of each size bucket's queueing "
			  "delay, at every percentile.", 0, 0, PP_SVG_SECONDS, PP_SVG_PCT,
			  "queueing delay", "share of the jobs"};
	pp_svg_lines(o, &f, s, ns, NULL, 0,
		     c->r->jobs ? "No job started." : "Per-job results were not kept.");
	pp_chart_figure_close(o);
}

/* the steps of the waterfall, GPU-hours: level[k] carried into step k + 1 */
static int waterfall(const pp_csim_result *r, double *level, double *lost)
{
	level[0] = r->gpu_s_available / 3600;
	lost[0] = r->gpu_s_down / 3600;
	level[1] = r->gpu_s_allocated / 3600;
	lost[1] = level[0] - level[1];
	level[2] = r->gpu_s_useful / 3600;
	lost[2] = level[1] - level[2];
	if (isnan(r->program_goodput))
		return 3;
	level[3] = level[2] * r->program_goodput;
	lost[3] = level[2] - level[3];
	return 4;
}

static void chart_waterfall(pp_sb *o, const pp_report_cluster *c)
{
	const pp_csim_result *r = c->r;
	static const char *const cat[] = {"available", "scheduling goodput", "runtime goodput",
					  "program goodput"};
	static const char *const ser[] = {"carried on", "lost at this step"};
	static const char *const col[] = {"#4e79a7", "#e15759"};
	double level[4], lost[4], v[8];
	int n = waterfall(r, level, lost);
	char lab[4][96], note3[160];
	const char *endl[4] = {NULL}, *note[4] = {NULL};
	double held = r->gpus * r->makespan_s / 3600;
	for (int k = 0; k < 4; k++) {
		if (k < n) {
			v[2 * k] = level[k];
			v[2 * k + 1] = lost[k];
			snprintf(lab[k], sizeof(lab[k]), "%.0f GPU-h (%.1f%% of held)", level[k],
				 held > 0 ? 100 * level[k] / held : NAN);
			endl[k] = lab[k];
		} else {
			v[2 * k] = v[2 * k + 1] = NAN;
			snprintf(note3, sizeof(note3), "no job names a scenario: replayed run times "
				 "carry no MFU");
			note[k] = note3;
		}
	}
	char cap[400], u[48];
	snprintf(cap, sizeof(cap), "GPU-hours the cluster was held (GPUs x makespan), then what each "
		 "factor of goodput = scheduling x runtime x program (Google MPG, arXiv 2502.06982) "
		 "keeps. Useful GPU-hours at the end: %.0f%s%s.", level[n - 1],
		 isnan(r->usd_per_useful_gpu_hour) ? "" : "; $ per useful GPU-hour ",
		 isnan(r->usd_per_useful_gpu_hour)
			 ? ""
			 : (snprintf(u, sizeof(u), "%.3f", r->usd_per_useful_gpu_hour), u));
	pp_chart_figure_open(o, "fig-cluster-goodput", "Goodput waterfall", cap);
	pp_svg_bars b = {4, 2, cat, ser, col, v, NULL, NULL, NULL, note, endl, -1};
	pp_svg_frame f = {"chart-cluster-goodput", "Goodput waterfall in GPU-hours",
			  "Stacked bars: each step's GPU-hours carried on and lost.", 0, 0, PP_SVG_NUM,
			  PP_SVG_NUM, "GPU-hours", NULL};
	pp_svg_hbars(o, &f, &b);
	pp_chart_figure_close(o);
}

/* GPU-hours of a run by what they did */
static void breakdown(const pp_csim_result *r, double *v)
{
	double held = r->gpus * r->makespan_s, alloc = r->gpu_s_allocated;
	v[0] = r->gpu_s_useful / 3600;
	v[1] = (alloc - r->gpu_s_useful) / 3600;
	v[2] = r->gpu_s_fragmented / 3600;
	v[3] = (held - alloc - r->gpu_s_fragmented - r->gpu_s_down) / 3600;
	v[4] = r->gpu_s_down / 3600;
}

static void chart_compare(pp_sb *o, const pp_report_cluster *c)
{
	static const char *const ser[] = {"useful", "lost, checkpoints, restarts", "fragmented",
					  "idle", "down"};
	static const char *const col[] = {"#4e79a7", "#e15759", "#f28e2b", "#bab0ac", "#9c755f"};
	char na[200], nb[200];
	snprintf(na, sizeof(na), "A: %s", c->spec_path);
	snprintf(nb, sizeof(nb), "B: %s", c->name_b);
	const char *cat[2] = {na, nb};
	double v[10];
	breakdown(c->r, v);
	breakdown(c->rb, v + 5);
	pp_chart_figure_open(o, "fig-cluster-whatif", "What-if: where the GPU-hours went",
			     "The same job stream on both clusters: each run's GPU-hours (GPUs x "
			     "makespan) by what they did.");
	pp_svg_bars b = {2, 5, cat, ser, col, v, NULL, NULL, NULL, NULL, NULL, -1};
	pp_svg_frame f = {"chart-cluster-whatif", "GPU-hours of both runs by use",
			  "Stacked bars, one per run.", 0, 0, PP_SVG_NUM, PP_SVG_NUM, "GPU-hours",
			  NULL};
	pp_svg_hbars(o, &f, &b);
	pp_chart_figure_close(o);
}

static void queue_table(pp_sb *o, const pp_csim_result *r)
{
	char b1[32], b2[32], b3[32];
	pp_sb_adds(o, "<h3>Queueing delay by job size</h3>\n<table class=\"narrow\"><thead><tr>"
		      "<th>size (GPUs)</th><th class=\"n\">jobs</th><th class=\"n\">mean</th>"
		      "<th class=\"n\">median</th><th class=\"n\">p99</th></tr></thead>\n<tbody>\n");
	for (int b = 0; b < PP_CSIM_SIZE_BUCKETS; b++) {
		const pp_csim_qstat *q = &r->queue[b];
		if (!q->n)
			continue;
		pp_sb_adds(o, "<tr><td>");
		esc(o, pp_csim_bucket_names[b]);
		pp_sb_addf(o, "</td><td class=\"n\">%d</td><td class=\"n\">", q->n);
		esc(o, pp_fmt_wait(q->mean_s, b1, sizeof(b1)));
		pp_sb_adds(o, "</td><td class=\"n\">");
		esc(o, pp_fmt_wait(q->median_s, b2, sizeof(b2)));
		pp_sb_adds(o, "</td><td class=\"n\">");
		esc(o, pp_fmt_wait(q->p99_s, b3, sizeof(b3)));
		pp_sb_adds(o, "</td></tr>\n");
	}
	pp_sb_adds(o, "</tbody></table>\n");
}

static void compare_table(pp_sb *o, const pp_report_cluster *c)
{
	pp_cout_row rows[PP_COUT_COMPARE_ROWS];
	int n = pp_cout_compare_rows(c->r, c->rb, rows, PP_COUT_COMPARE_ROWS);
	pp_sb_adds(o, "<table class=\"narrow\"><thead><tr><th></th><th class=\"n\">A</th>"
		      "<th class=\"n\">B</th><th class=\"n\">B - A</th></tr></thead>\n<tbody>\n");
	for (int i = 0; i < n; i++) {
		int d = rows[i].decimals;
		pp_sb_adds(o, "<tr><td>");
		esc(o, rows[i].label);
		pp_sb_addf(o, "</td><td class=\"n\">%.*f</td><td class=\"n\">%.*f</td>"
			      "<td class=\"n\">%.*f</td></tr>\n", d, rows[i].a, d, rows[i].b, d,
			   rows[i].b - rows[i].a);
	}
	pp_sb_adds(o, "</tbody></table>\n");
}

bool pp_report_cluster_of(const pp_report *r, pp_report_cluster *c)
{
	memset(c, 0, sizeof(*c));
	if (!r->have_cost || !r->cost.cluster)
		return false;
	const pp_cost_cluster *k = r->cost.cluster;
	c->spec_path = k->spec_path;
	c->jobs_path = k->jobs_path;
	c->spec = &k->spec;
	c->jobs = &k->jobs;
	c->r = &k->r;
	c->utilization_from = r->cost.utilization_from;
	return true;
}

void pp_report_cluster_section(pp_sb *o, const pp_report_cluster *c)
{
	const pp_cspec *sp = c->spec;
	const pp_csim_result *r = c->r;
	char a[64], b[64];
	pp_sb_adds(o, "<section id=\"cluster\"><h2>Cluster simulation</h2>\n<p>");
	pp_sb_addf(o, "%d jobs ", r->njobs);
	if (c->jobs_path) {
		pp_sb_adds(o, "from <code>");
		esc(o, c->jobs_path);
		pp_sb_adds(o, "</code> ");
	} else if (c->jobs_what) {
		esc(o, c->jobs_what);
		pp_sb_adds(o, " ");
	}
	pp_sb_adds(o, "on <code>");
	esc(o, c->spec_path);
	pp_sb_adds(o, "</code> (");
	esc(o, sp->name[0] ? sp->name : "unnamed");
	pp_sb_addf(o, "): %d nodes, %d GPUs; %s, placement %s, topology %s; seed %lu. "
		      "%d finished over a makespan of ", sp->nodes, sp->gpus,
		   sp->sched == PP_CSCHED_FIFO ? "FIFO (sched/builtin)"
					       : "EASY backfill (sched/backfill)",
		   pp_cplace_names[sp->placement], pp_ctopo_names[sp->topology_mode], r->seed,
		   r->finished);
	esc(o, pp_fmt_wait(r->makespan_s, a, sizeof(a)));
	pp_sb_adds(o, ".</p>\n");
	if (c->utilization_from) {
		pp_sb_adds(o, "<p>Utilisation for the build options: ");
		esc(o, c->utilization_from);
		pp_sb_adds(o, ".</p>\n");
	}
	pp_sb_adds(o, "<div class=\"kpis\">\n");
	pp_html_kpi(o, "scheduling goodput", pp_fmt_pct(r->sched_goodput, 1, a, sizeof(a)),
	    "allocated of available GPU-hours");
	snprintf(b, sizeof(b), "runtime %.1f%%%s", 100 * r->runtime_goodput,
		 isnan(r->program_goodput) ? "" : ", program included");
	pp_html_kpi(o, "goodput", pp_fmt_pct(r->goodput, 1, a, sizeof(a)), b);
	char q1[32], q2[32];
	snprintf(b, sizeof(b), "median %s",
		 pp_fmt_wait(r->queue[PP_CSIM_SIZE_BUCKETS - 1].median_s, q2, sizeof(q2)));
	pp_html_kpi(o, "mean queueing delay", pp_fmt_wait(r->queue[PP_CSIM_SIZE_BUCKETS - 1].mean_s, q1, sizeof(q1)),
	    b);
	if (isnan(r->usd_per_useful_gpu_hour)) {
		pp_html_kpi(o, "$ per useful GPU-hour", "-", "the spec gives no cost.usd_per_gpu_hour");
	} else {
		snprintf(a, sizeof(a), "$%.3f", r->usd_per_useful_gpu_hour);
		snprintf(b, sizeof(b), "at $%.3f per available GPU-hour", sp->usd_per_gpu_hour);
		pp_html_kpi(o, "$ per useful GPU-hour", a, b);
	}
	pp_sb_adds(o, "</div>\n<div class=\"grid\">\n");
	chart_allocation(o, c);
	chart_queue_cdf(o, c);
	chart_waterfall(o, c);
	pp_sb_adds(o, "</div>\n");
	queue_table(o, r);
	pp_sb_addf(o, "<p class=\"note\">Failures %d, other interruptions %d, preemptions %d, "
		      "given up %d; %d checkpoints (mean write ", r->infra_failures,
		   r->interruptions, r->preemptions, r->gave_up, r->checkpoints);
	esc(o, pp_fmt_wait(r->mean_ckpt_write_s, a, sizeof(a)));
	pp_sb_addf(o, "); mean ETTR %.3f.</p>\n", r->mean_ettr);
	if (c->spec_b) {
		pp_sb_adds(o, "<h3>What-if: B = ");
		esc(o, c->name_b);
		pp_sb_adds(o, "</h3>\n");
		compare_table(o, c);
		pp_sb_adds(o, "<div class=\"grid\">\n");
		chart_compare(o, c);
		pp_sb_adds(o, "</div>\n");
	}
	pp_sb_adds(o, "</section>\n");
}

static pp_csvw *add_file(pp_report_file *files, int *n, int max, const char *prefix,
			 const char *name, pp_csvw *w)
{
	if (*n >= max)
		return NULL;
	pp_report_file *f = &files[(*n)++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s%s", prefix, name);
	pp_csvw_init(w, &f->body);
	return w;
}

void pp_report_cluster_csv(const pp_report_cluster *c, const char *prefix, pp_report_file *files,
			   int *n, int max)
{
	pp_csvw w;
	if (*n < max) {
		pp_report_file *f = &files[*n];
		memset(f, 0, sizeof(*f));
		snprintf(f->name, sizeof(f->name), "%stimeline.csv", prefix);
		pp_cout_csv_timeline(&f->body, c->r);
		(*n)++;
	}
	if (add_file(files, n, max, prefix, "queue_cdf.csv", &w)) {
		pp_csvw_header(&w, "bucket,jobs,probability,queue_s");
		double q[CDF_POINTS];
		for (int b = 0; b < PP_CSIM_SIZE_BUCKETS; b++) {
			int nj = pp_csim_queue_quantiles(c->jobs, c->r, b, q, CDF_POINTS);
			for (int k = 0; nj && k < CDF_POINTS; k++) {
				pp_csvw_text(&w, pp_csim_bucket_names[b]);
				pp_csvw_int(&w, nj);
				pp_csvw_fixed(&w, (double)k / (CDF_POINTS - 1), 2);
				pp_csvw_num(&w, q[k], 9);
				pp_csvw_end(&w);
			}
		}
	}
}
