/*
 * csweep.h - a cluster spec changed by named knobs (the what-if keys), and
 * sweeps: the same job stream simulated on every point of a grid of such
 * changes, shared out over the ranks of an MPI job (core/dist.h) when run
 * under `mpirun -np N`, the table the same byte for byte as the serial
 * run's.
 *
 * Knobs (pp_cspec_set): add_nodes=N (nodes of the first node type; the
 * total must stay >= 1), scheduler=builtin|backfill, placement=pack|spread,
 * fs_scale=X (the file system's read and write bandwidth times X > 0),
 * topology=none|preferred|required.
 *
 * A sweep is one or more axes "KEY=V1,V2,..."; the grid is their product,
 * the first axis outermost (the last one changes fastest), at most
 * PP_CSWEEP_MAX_POINTS points. Each point is one pp_cscen_simulate() of the
 * same jobs with the spec's seed, so a point's figures do not depend on
 * which rank ran it or in what order.
 *
 * Distribution: the points are handed out one at a time from a shared
 * counter (pp_dist_slots), so a rank that drew short simulations takes
 * more; the summaries are gathered on every rank in point order. Serial
 * and one-rank runs take the points in order.
 */
#ifndef PP_CSWEEP_H
#define PP_CSWEEP_H

#include "cluster/cjobs.h"
#include "cluster/csim.h"
#include "cluster/cspec.h"
#include "core/util.h"
#include "input/catalog.h"
#include "input/hw.h"

#define PP_CSWEEP_MAX_AXES 8
#define PP_CSWEEP_MAX_VALUES 64
#define PP_CSWEEP_MAX_POINTS 4096

/* Set one knob on s. Errors: PP_EINPUT naming the key and the value, what
 * was found and what was expected (an unknown key lists the known ones). */
int pp_cspec_set(pp_cspec *s, const char *key, const char *value, pp_err *err);
/* "KEY=VALUE" split and set; PP_EINPUT without an '='. */
int pp_cspec_set_kv(pp_cspec *s, const char *kv, pp_err *err);

typedef struct pp_csweep_axis {
	char key[32];
	char values[PP_CSWEEP_MAX_VALUES][32];
	int nvalues;
} pp_csweep_axis;

typedef struct pp_csweep {
	pp_csweep_axis axes[PP_CSWEEP_MAX_AXES];
	int naxes;
	int npoints;                 /* the product of the axes' value counts */
} pp_csweep;

/* One point's outcome. r holds the summary only (jobs and timeline NULL);
 * rc and err are the simulation's when it failed. */
typedef struct pp_csweep_row {
	int point;
	int rc;
	pp_err err;
	pp_csim_result r;
} pp_csweep_row;

/* Add an axis "KEY=V1,V2,..." (a key may appear once; values are checked
 * against base, so a value that cannot apply - an unknown name, add_nodes
 * leaving no node - is refused here, before anything runs). Errors:
 * PP_EINPUT as pp_cspec_set's, or for an empty value, a repeated key, too
 * many axes, values or points. */
int pp_csweep_add(pp_csweep *w, const char *spec, const pp_cspec *base, pp_err *err);
/* The spec of point i: a deep copy of base with each axis' value set
 * (pp_cspec_release it). */
int pp_csweep_spec(const pp_csweep *w, int i, const pp_cspec *base, pp_cspec *out, pp_err *err);
/* Point i's value of axis a. */
const char *pp_csweep_value(const pp_csweep *w, int i, int a);

/* progress: point (0-based) started or running, done points over all
 * ranks, jobs done of its simulation (as pp_csim_opts.progress) */
typedef void (*pp_csweep_progress_fn)(void *ctx, int point, int points_done, int npoints,
				       int jobs_done, int njobs);

/* Run every point (hwr: as pp_cscen_simulate's); every rank of an MPI job calls it alike. *rows (heap,
 * w->npoints, point order; caller frees) on every rank. Returns 0, or the
 * first failing point's code with its message in err (the same point the
 * serial run stops at; the other points still ran). */
int pp_csweep_run(const pp_csweep *w, const pp_cspec *base, const pp_cjobs *jobs,
		  const char *jobs_path, const pp_catalog *cat, const pp_hw_resolver *hwr,
		  pp_csweep_progress_fn progress, void *progress_ctx, pp_csweep_row **rows,
		  pp_err *err);

/* The table for people: one line a point, the axes' values, then GPUs,
 * makespan, scheduling / runtime goodput and their product, mean, median
 * and p99 queueing delay, fragmented GPU-hours, useful GPU-hours and $ per
 * useful GPU-hour (when the spec prices GPU-hours). No wall time: the same
 * bytes from any run. */
void pp_csweep_text(pp_sb *out, const pp_csweep *w, const pp_csweep_row *rows);
/* The same as CSV (core/csv.h): the axes' keys, then gpus, makespan_s,
 * scheduling_goodput, runtime_goodput, program_goodput, goodput,
 * queue_mean_s, queue_median_s, queue_p99_s, gpu_hours_fragmented,
 * gpu_hours_useful, usd_per_useful_gpu_hour. */
void pp_csweep_csv(pp_sb *out, const pp_csweep *w, const pp_csweep_row *rows);

#endif
