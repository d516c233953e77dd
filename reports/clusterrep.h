/*
 * clusterrep.h - the report of a cluster simulation (sim/cluster/csim.h):
 * a section of the scenario report when costs.finance.utilization_from
 * names one (report.h), or a page of its own (`podplan cluster ...
 * --report DIR`).
 *
 * The section: what was simulated, the headline figures, four charts
 * drawn with svg.h - the allocation over time (allocated, fragmented, down
 * and pending GPUs), the queueing-delay CDF by job size, the goodput
 * waterfall (available -> scheduling -> runtime -> program goodput ->
 * useful GPU-hours, with $ per useful GPU-hour) and, for a what-if, the
 * GPU-hours of both runs - then the queueing table by size and the what-if
 * table (cout.h's rows). Every figure comes from the simulation's result;
 * nothing is computed here but chart ranges and the shares the bars show.
 *
 * The page and its files carry no clock and no machine path: the same run
 * gives the same bytes, but for summary.md's last line (the simulation's
 * wall time, as `podplan cluster` prints it).
 */
#ifndef PP_CLUSTERREP_H
#define PP_CLUSTERREP_H

#include "cluster/cjobs.h"
#include "cluster/csim.h"
#include "cluster/cspec.h"
#include "core/util.h"
#include "report.h"

typedef struct pp_report_cluster {
	const char *spec_path, *jobs_path;  /* as given; jobs_path NULL for generated jobs */
	const char *jobs_what;              /* how the jobs came ("generated from seren"); may be NULL */
	const pp_cspec *spec;
	const pp_cjobs *jobs;
	const pp_csim_result *r;            /* r->jobs needed for the CDF (else it says so) */
	/* a what-if or --compare run on the same jobs; spec_b NULL = none */
	const char *name_b;
	const pp_cspec *spec_b;
	const pp_csim_result *rb;
	const char *utilization_from;       /* the cost engine's sentence; NULL outside a cost report */
} pp_report_cluster;

/* The view of the cluster simulation a cost report's utilisation came
 * from (r->cost.cluster); false when there is none. */
bool pp_report_cluster_of(const pp_report *r, pp_report_cluster *c);
/* <section id="cluster"> with its charts and tables; appends to o. */
void pp_report_cluster_section(pp_sb *o, const pp_report_cluster *c);
/* A whole self-contained page around the section (html.c: the report's
 * CSS). */
void pp_report_cluster_page(pp_sb *o, const pp_report_cluster *c);
/* The CSV files of the numbers the charts show, names prefixed by prefix
 * ("" or "cluster_"): PREFIXtimeline.csv (t_s, allocated, fragmented,
 * down, pending GPUs) and PREFIXqueue_cdf.csv (bucket, probability,
 * queue_s). Appends to files from *n, at most max. */
void pp_report_cluster_csv(const pp_report_cluster *c, const char *prefix, pp_report_file *files,
			   int *n, int max);
/* The page's files written to dir as pp_report_files_write writes them
 * (write.c):
 * index.html, summary.md (`podplan cluster`'s text), timeline.csv,
 * queue_cdf.csv and jobs.csv (one row per job, when r->jobs). names (may
 * be NULL) gets the names written. Errors: PP_EIO naming the path. */
int pp_report_cluster_write(const pp_report_cluster *c, const char *dir, pp_sb *names,
			    pp_err *err);

#endif
