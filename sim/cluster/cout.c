/* cout.c - see cout.h. */
#include "cluster/cout.h"
#include "core/csv.h"
#include "core/fmt.h"
#include "core/jsonout.h"

#include <math.h>
#include <stdio.h>

void pp_cout_text(pp_sb *out, const pp_cspec *sp, const pp_cjobs *jobs, const pp_csim_result *r)
{
	char b1[32], b2[32], b3[32];
	pp_sb_addf(out, "cluster %s: %d nodes x %d GPUs = %d GPUs, %d nodes a leaf (%.3g:1 "
		   "oversubscribed), NVLink domain %d GPUs\n",
		   sp->name[0] ? pp_tty(sp->name) : "(unnamed)", sp->nodes, sp->gpus_per_node,
		   sp->gpus, sp->nodes_per_leaf, sp->oversubscription, sp->nvlink_domain_gpus);
	pp_sb_addf(out, "policy: %s, placement %s, topology %s, preemption %s; file system "
		   "%.4g GB/s write\n", sp->sched == PP_CSCHED_FIFO ? "FIFO (sched/builtin)"
		   : "EASY backfill (sched/backfill)", pp_cplace_names[sp->placement],
		   pp_ctopo_names[sp->topology_mode], sp->preempt ? "requeue" : "off",
		   sp->fs_write_Bps / PP_GB);
	pp_sb_addf(out, "reliability: %.3g infrastructure failures and %.3g interruptions per "
		   "1,000 node-days, repair %s, restart %s; seed %lu\n",
		   sp->infra_failures_per_node_s * 86400e3, sp->interruptions_per_node_s * 86400e3,
		   pp_fmt_wait(sp->repair_s, b1, sizeof(b1)), pp_fmt_wait(sp->restart_s, b2, sizeof(b2)), r->seed);
	pp_sb_addf(out, "jobs: %d (%s format, %d records left out), %d finished, makespan %s\n",
		   r->njobs, pp_cjob_fmt_names[jobs->fmt], jobs->skipped, r->finished,
		   pp_fmt_wait(r->makespan_s, b3, sizeof(b3)));
	pp_sb_addf(out, "\ngoodput = scheduling x runtime x program (Google MPG, arXiv 2502.06982)\n");
	pp_sb_addf(out, "  scheduling goodput  %6.1f%%  allocated of available GPU-hours\n",
		   100 * r->sched_goodput);
	pp_sb_addf(out, "  runtime goodput     %6.1f%%  useful of allocated (lost %.1f%%, "
		   "checkpoints %.1f%%, restarts %.1f%%)\n", 100 * r->runtime_goodput,
		   100 * r->gpu_s_lost / r->gpu_s_allocated, 100 * r->gpu_s_ckpt / r->gpu_s_allocated,
		   100 * r->gpu_s_restart / r->gpu_s_allocated);
	if (isnan(r->program_goodput))
		pp_sb_addf(out, "  program goodput          -   (no job names a scenario: replayed "
			   "run times carry no MFU)\n");
	else
		pp_sb_addf(out, "  program goodput     %6.1f%%  the engine's MFU, GPU-time weighted\n",
			   100 * r->program_goodput);
	pp_sb_addf(out, "  goodput             %6.1f%%\n", 100 * r->goodput);
	double held = r->gpus * r->makespan_s + r->gpu_s_spot_available; /* the pool's, as it had them */
	pp_sb_addf(out, "  idle %.1f%%, fragmented %.1f%%, down %.1f%% of GPU-hours; "
		   "mean ETTR %.3f\n",
		   100 * (1 - r->gpu_s_allocated / held) -
			   100 * (r->gpu_s_fragmented + r->gpu_s_down) / held,
		   100 * r->gpu_s_fragmented / held, 100 * r->gpu_s_down / held, r->mean_ettr);
	if (!isnan(r->usd_per_useful_gpu_hour) && !sp->spot.nodes)
		pp_sb_addf(out, "  $ per useful GPU-hour  %.3f (at $%.3f per available GPU-hour)\n",
			   r->usd_per_useful_gpu_hour, sp->usd_per_gpu_hour);
	else if (!isnan(r->usd_per_useful_gpu_hour))
		pp_sb_addf(out, "  $ per useful GPU-hour  %.3f (on-demand $%.0f at $%.3f per available "
			   "GPU-hour + spot $%.0f at $%.3f per GPU-hour held)\n",
			   r->usd_per_useful_gpu_hour, r->usd_on_demand, sp->usd_per_gpu_hour,
			   r->usd_spot, sp->spot.usd_per_gpu_hour);
	pp_sb_addf(out, "  failures %d, interruptions %d, preemptions %d, given up %d, checkpoints "
		   "%d (mean write %s)\n", r->infra_failures, r->interruptions, r->preemptions,
		   r->gave_up, r->checkpoints, pp_fmt_wait(r->mean_ckpt_write_s, b1, sizeof(b1)));
	if (sp->spot.nodes) {
		if (sp->spot.ntrace)
			pp_sb_addf(out, "\nspot pool: %d nodes x %d GPUs, availability from a trace of %d "
				   "points, notice %s\n", sp->spot.nodes, sp->gpus_per_node,
				   sp->spot.ntrace, pp_fmt_wait(sp->spot.notice_s, b1, sizeof(b1)));
		else
			pp_sb_addf(out, "\nspot pool: %d nodes x %d GPUs, %.4g reclaims per node-hour, "
				   "replaced after %s, notice %s\n", sp->spot.nodes, sp->gpus_per_node,
				   sp->spot.reclaims_per_node_s * 3600,
				   pp_fmt_wait(sp->spot.replace_s, b2, sizeof(b2)),
				   pp_fmt_wait(sp->spot.notice_s, b1, sizeof(b1)));
		pp_sb_addf(out, "  nodes reclaimed %d; gangs preempted by a reclaim: %d checkpointed in "
			   "the notice, %d killed; by priority: %d\n", r->spot_reclaims,
			   r->spot_ckpt_saved, r->spot_killed, r->preemptions);
		pp_sb_addf(out, "  spot GPU-hours held %.1f of %.1f available\n",
			   r->gpu_s_spot_allocated / 3600, r->gpu_s_spot_available / 3600);
	}
	if (r->deployments) {
		pp_sb_addf(out, "\nserving: %d deployment%s, %.1f%% of %.4g requests served, %.1f "
			   "replica-hours\n", r->deployments, r->deployments > 1 ? "s" : "",
			   r->serve_demand_req > 0 ? 100 * r->serve_served_req / r->serve_demand_req
						   : 100.0,
			   r->serve_demand_req, r->serve_replica_s / 3600);
		pp_sb_addf(out, "  GPU-hours held: serving %.1f, training %.1f\n",
			   r->gpu_s_serving / 3600, (r->gpu_s_allocated - r->gpu_s_serving) / 3600);
	}
	pp_sb_addf(out, "\nqueueing delay by job size (GPUs)\n  %-8s %9s %10s %10s %10s\n", "size",
		   "jobs", "mean", "median", "p99");
	for (int b = 0; b < PP_CSIM_SIZE_BUCKETS; b++) {
		const pp_csim_qstat *q = &r->queue[b];
		if (!q->n)
			continue;
		pp_sb_addf(out, "  %-8s %9d %10s %10s %10s\n", pp_csim_bucket_names[b], q->n,
			   pp_fmt_wait(q->mean_s, b1, sizeof(b1)), pp_fmt_wait(q->median_s, b2, sizeof(b2)),
			   pp_fmt_wait(q->p99_s, b3, sizeof(b3)));
	}
	pp_sb_addf(out, "\n%lld events in %.3f s\n", r->events, r->wall_s);
}

static void qjson(cJSON *o, const pp_csim_result *r)
{
	cJSON *q = pp_json_obj(o, "queue_delay_by_size");
	for (int b = 0; b < PP_CSIM_SIZE_BUCKETS; b++) {
		cJSON *x = pp_json_obj(q, pp_csim_bucket_names[b]);
		pp_json_int(x, "jobs", r->queue[b].n);
		pp_json_num(x, "mean_s", r->queue[b].mean_s, 9);
		pp_json_num(x, "median_s", r->queue[b].median_s, 9);
		pp_json_num(x, "p99_s", r->queue[b].p99_s, 9);
	}
}

static void summary_json(cJSON *o, const pp_csim_result *r)
{
	pp_json_int(o, "jobs", r->njobs);
	pp_json_int(o, "finished", r->finished);
	pp_json_num(o, "makespan_s", r->makespan_s, 9);
	pp_json_num(o, "gpu_hours_available", r->gpu_s_available / 3600, 9);
	pp_json_num(o, "gpu_hours_allocated", r->gpu_s_allocated / 3600, 9);
	pp_json_num(o, "gpu_hours_useful", r->gpu_s_useful / 3600, 9);
	pp_json_num(o, "gpu_hours_lost", r->gpu_s_lost / 3600, 9);
	pp_json_num(o, "gpu_hours_checkpoint", r->gpu_s_ckpt / 3600, 9);
	pp_json_num(o, "gpu_hours_restart", r->gpu_s_restart / 3600, 9);
	pp_json_num(o, "gpu_hours_fragmented", r->gpu_s_fragmented / 3600, 9);
	pp_json_num(o, "gpu_hours_down", r->gpu_s_down / 3600, 9);
	pp_json_num(o, "scheduling_goodput", r->sched_goodput, 6);
	pp_json_num(o, "runtime_goodput", r->runtime_goodput, 6);
	pp_json_num(o, "program_goodput", r->program_goodput, 6);
	pp_json_num(o, "goodput", r->goodput, 6);
	pp_json_num(o, "mean_ettr", r->mean_ettr, 6);
	pp_json_num(o, "usd_per_useful_gpu_hour", r->usd_per_useful_gpu_hour, 10);
	pp_json_int(o, "infra_failures", r->infra_failures);
	pp_json_int(o, "interruptions", r->interruptions);
	pp_json_int(o, "preemptions", r->preemptions);
	pp_json_int(o, "gave_up", r->gave_up);
	pp_json_int(o, "checkpoints", r->checkpoints);
	pp_json_num(o, "mean_checkpoint_write_s", r->mean_ckpt_write_s, 9);
	if (r->gpu_s_spot_available > 0 || r->spot_reclaims) {
		cJSON *sp = pp_json_obj(o, "spot");
		pp_json_int(sp, "nodes_reclaimed", r->spot_reclaims);
		pp_json_int(sp, "preempted_checkpointed", r->spot_ckpt_saved);
		pp_json_int(sp, "preempted_killed", r->spot_killed);
		pp_json_num(sp, "gpu_hours_available", r->gpu_s_spot_available / 3600, 9);
		pp_json_num(sp, "gpu_hours_held", r->gpu_s_spot_allocated / 3600, 9);
		pp_json_num(sp, "usd_on_demand", r->usd_on_demand, 10);
		pp_json_num(sp, "usd_spot", r->usd_spot, 10);
	}
	if (r->deployments) {
		cJSON *sv = pp_json_obj(o, "serving");
		pp_json_int(sv, "deployments", r->deployments);
		pp_json_num(sv, "requests_asked", r->serve_demand_req, 10);
		pp_json_num(sv, "requests_served", r->serve_served_req, 10);
		pp_json_num(sv, "served_fraction", r->serve_demand_req > 0
			    ? r->serve_served_req / r->serve_demand_req : NAN, 6);
		pp_json_num(sv, "replica_hours", r->serve_replica_s / 3600, 9);
		pp_json_num(sv, "gpu_hours_serving", r->gpu_s_serving / 3600, 9);
		pp_json_num(sv, "gpu_hours_training", (r->gpu_s_allocated - r->gpu_s_serving) / 3600, 9);
	}
	qjson(o, r);
	pp_json_int(o, "events", r->events);
	pp_json_int(o, "seed", (int64_t)r->seed);
}

cJSON *pp_cout_json(const pp_cspec *sp, const pp_cjobs *jobs, const pp_csim_result *r)
{
	cJSON *o = pp_json_obj(NULL, NULL);
	cJSON *c = pp_json_obj(o, "cluster");
	pp_json_str(c, "name", sp->name);
	pp_json_int(c, "nodes", sp->nodes);
	pp_json_int(c, "gpus", sp->gpus);
	pp_json_int(c, "nodes_per_leaf", sp->nodes_per_leaf);
	pp_json_str(c, "scheduler", pp_csched_names[sp->sched]);
	pp_json_str(c, "placement", pp_cplace_names[sp->placement]);
	pp_json_str(c, "topology_mode", pp_ctopo_names[sp->topology_mode]);
	pp_json_str(o, "jobs_format", pp_cjob_fmt_names[jobs->fmt]);
	pp_json_int(o, "records_left_out", jobs->skipped);
	summary_json(o, r);
	cJSON *t = pp_json_arr(o, "timeline");
	for (int i = 0; i < r->ntimeline; i++) {
		cJSON *p = pp_json_obj(t, NULL);
		pp_json_num(p, "t_s", r->timeline[i].t_s, 9);
		pp_json_num(p, "alloc_gpus", r->timeline[i].alloc_gpus, 6);
		pp_json_num(p, "frag_gpus", r->timeline[i].frag_gpus, 6);
		pp_json_num(p, "down_gpus", r->timeline[i].down_gpus, 6);
		pp_json_num(p, "pending_gpus", r->timeline[i].pending_gpus, 6);
	}
	if (r->jobs) {
		cJSON *a = pp_json_arr(o, "per_job");
		for (int j = 0; j < r->njobs; j++) {
			const pp_csim_job *x = &r->jobs[j];
			cJSON *p = pp_json_obj(a, NULL);
			pp_json_str(p, "job_id", pp_cjobs_id(jobs, &jobs->v[j]));
			pp_json_num(p, "queue_s", x->queue_s, 9);
			pp_json_num(p, "end_s", x->end_s, 9);
			pp_json_num(p, "ettr", x->ettr, 6);
			pp_json_int(p, "interruptions", x->interruptions);
		}
	}
	return o;
}

void pp_cout_csv_jobs(pp_sb *out, const pp_cjobs *jobs, const pp_csim_result *r)
{
	pp_csvw w;
	pp_csvw_init(&w, out);
	pp_csvw_header(&w, "job_id,gpus,submit_s,start_s,end_s,queue_s,alloc_s,useful_s,lost_s,"
			   "ckpt_block_s,restart_s,ettr,interruptions,preemptions,spans_leaf");
	for (int j = 0; r->jobs && j < r->njobs; j++) {
		const pp_csim_job *x = &r->jobs[j];
		const pp_cjob *in = &jobs->v[j];
		pp_csvw_text(&w, pp_cjobs_id(jobs, in));
		pp_csvw_int(&w, in->gpus);
		pp_csvw_num(&w, in->submit_s, 12);
		pp_csvw_num(&w, x->start_s, 12);
		pp_csvw_num(&w, x->end_s, 12);
		pp_csvw_num(&w, x->queue_s, 9);
		pp_csvw_num(&w, x->alloc_s, 9);
		pp_csvw_num(&w, x->useful_s, 9);
		pp_csvw_num(&w, x->lost_s, 9);
		pp_csvw_num(&w, x->ckpt_block_s, 9);
		pp_csvw_num(&w, x->restart_s, 9);
		pp_csvw_num(&w, x->ettr, 6);
		pp_csvw_int(&w, x->interruptions);
		pp_csvw_int(&w, x->preemptions);
		pp_csvw_bool(&w, x->spans_leaf);
		pp_csvw_end(&w);
	}
}

void pp_cout_csv_timeline(pp_sb *out, const pp_csim_result *r)
{
	pp_csvw w;
	pp_csvw_init(&w, out);
	pp_csvw_header(&w, "t_s,alloc_gpus,frag_gpus,down_gpus,pending_gpus");
	for (int i = 0; i < r->ntimeline; i++) {
		const pp_csim_tpoint *p = &r->timeline[i];
		pp_csvw_num(&w, p->t_s, 12);
		pp_csvw_num(&w, p->alloc_gpus, 6);
		pp_csvw_num(&w, p->frag_gpus, 6);
		pp_csvw_num(&w, p->down_gpus, 6);
		pp_csvw_num(&w, p->pending_gpus, 6);
		pp_csvw_end(&w);
	}
}

int pp_cout_compare_rows(const pp_csim_result *a, const pp_csim_result *b, pp_cout_row *rows,
			 int max)
{
	const pp_csim_qstat *qa = &a->queue[PP_CSIM_SIZE_BUCKETS - 1],
			    *qb = &b->queue[PP_CSIM_SIZE_BUCKETS - 1];
	pp_cout_row all[] = {
		{"GPUs", a->gpus, b->gpus, 0},
		{"makespan (h)", a->makespan_s / 3600, b->makespan_s / 3600, 2},
		{"scheduling goodput (%)", 100 * a->sched_goodput, 100 * b->sched_goodput, 2},
		{"runtime goodput (%)", 100 * a->runtime_goodput, 100 * b->runtime_goodput, 2},
		{"goodput (%)", 100 * a->goodput, 100 * b->goodput, 2},
		{"mean queueing delay (s)", qa->mean_s, qb->mean_s, 1},
		{"median queueing delay (s)", qa->median_s, qb->median_s, 1},
		{"p99 queueing delay (s)", qa->p99_s, qb->p99_s, 1},
		{"fragmented GPU-hours", a->gpu_s_fragmented / 3600, b->gpu_s_fragmented / 3600, 1},
		{"useful GPU-hours", a->gpu_s_useful / 3600, b->gpu_s_useful / 3600, 1},
		{"$ per useful GPU-hour", a->usd_per_useful_gpu_hour, b->usd_per_useful_gpu_hour, 4}};
	int n = 0, last = (int)(sizeof(all) / sizeof(all[0])) - 1;
	for (int i = 0; i <= last && n < max; i++) {
		if (i == last && (isnan(all[i].a) || isnan(all[i].b)))
			continue; /* the $ row only when both runs are priced */
		rows[n++] = all[i];
	}
	return n;
}

void pp_cout_compare_text(pp_sb *out, const char *na, const pp_csim_result *a, const char *nb,
			  const pp_csim_result *b)
{
	pp_sb_addf(out, "what-if on the same %d jobs: A = %s, B = %s\n", a->njobs, pp_tty(na),
		   pp_tty(nb));
	pp_sb_addf(out, "  %-30s %14s %14s %10s\n", "", "A", "B", "B - A");
	pp_cout_row rows[PP_COUT_COMPARE_ROWS];
	int n = pp_cout_compare_rows(a, b, rows, PP_COUT_COMPARE_ROWS);
	for (int i = 0; i < n; i++) {
		int d = rows[i].decimals;
		pp_sb_addf(out, "  %-30s %14.*f %14.*f %14.*f\n", rows[i].label, d, rows[i].a, d,
			   rows[i].b, d, rows[i].b - rows[i].a);
	}
}

cJSON *pp_cout_compare_json(const char *na, const pp_csim_result *a, const char *nb,
			    const pp_csim_result *b)
{
	cJSON *o = pp_json_obj(NULL, NULL);
	cJSON *x = pp_json_obj(o, "a"), *y = pp_json_obj(o, "b");
	pp_json_str(x, "name", na);
	pp_json_str(y, "name", nb);
	summary_json(x, a);
	summary_json(y, b);
	return o;
}
