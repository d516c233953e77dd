/*
 * charts.h - the report's figures: each writes one <figure> with its
 * caption and an inline SVG chart (svg.h) into o, from the report's results.
 * Cost charts need a cost result (r->has_cost); the step-time and memory
 * charts work for either kind of report.
 *
 *   chart_cost           full cost per option, stacked by component, P10-P90 whiskers
 *   chart_tradeoff       cost versus time to result (or to start) per option
 *   chart_cumulative     cumulative cost by month: the rent/build crossover
 *   chart_tornado        one-at-a-time sensitivity of the recommended option
 *   chart_distribution   the Monte Carlo distribution of the leading options
 *   chart_steptime_cost  step-time breakdown per option (cost reports)
 *   chart_steptime_pred  step-time breakdown (step-only reports)
 *   chart_memory         memory per GPU against capacity (step-only reports)
 *   chart_serving_latency  an inference work's replicas: p99 TTFT (which 0) or
 *                        TPOT (1) against the request rate, the SLO's bound
 *                        and the busiest hour's rate (the throughput-latency
 *                        curve)
 */
#ifndef PP_CHARTS_H
#define PP_CHARTS_H

#include "report.h"
#include "core/util.h"

/* A <figure> with its caption (title in bold, how below it; how may be
 * NULL), for a chart drawn between the two calls (clusterrep.c too). */
void pp_chart_figure_open(pp_sb *o, const char *id, const char *title, const char *how);
void pp_chart_figure_close(pp_sb *o);
/* One key figure of a page's first screen: its name k, value v and a
 * short line s under it (each escaped). */
void pp_html_kpi(pp_sb *o, const char *k, const char *v, const char *s);

void pp_chart_cost(pp_sb *o, const pp_report *r);
void pp_chart_tradeoff(pp_sb *o, const pp_report *r);
void pp_chart_cumulative(pp_sb *o, const pp_report *r);
void pp_chart_tornado(pp_sb *o, const pp_report *r);
void pp_chart_distribution(pp_sb *o, const pp_report *r);
void pp_chart_steptime_cost(pp_sb *o, const pp_report *r);
void pp_chart_steptime_pred(pp_sb *o, const pp_report *r);
void pp_chart_memory(pp_sb *o, const pp_report *r);
void pp_chart_serving_latency(pp_sb *o, const pp_report *r, int which);

#endif
