/*
 * cscen.h - step times for cluster jobs that name a podplan scenario: the
 * engine (engine/predict.h) run once per scenario and placement kind, as
 * pp_csim_opts.step wants it.
 *
 * Placement kinds: inside one leaf switch the job sees full bisection
 * (oversubscription 1); across leaves it sees the cluster spec's leaf
 * oversubscription. Each scenario is predicted at most twice.
 *
 * A scenario path in the jobs file is relative to the jobs file's folder
 * (or absolute). A job's gpus must equal its scenario's cluster.num_gpus.
 */
#ifndef PP_CSCEN_H
#define PP_CSCEN_H

#include "cluster/cjobs.h"
#include "cluster/csim.h"
#include "cluster/cspec.h"
#include "input/catalog.h"
#include "input/hw.h"
#include <stdbool.h>

typedef struct pp_cscen pp_cscen;

/* Load every scenario jobs names (none: *out holds an empty table); hwr
 * turns each one's cluster into hardware (NULL: the catalog's figures). */
int pp_cscen_new(pp_cscen **out, const pp_cjobs *jobs, const char *jobs_path,
		 const pp_cspec *spec, const pp_catalog *cat, const pp_hw_resolver *hwr,
		 pp_err *err);
void pp_cscen_free(pp_cscen *c);
/* pp_csim_step_fn: ctx is a pp_cscen. */
int pp_cscen_step(void *ctx, int s, bool spans_leaf, double *step_s, double *tokens_per_step,
		  double *mfu, pp_err *err);

/* One simulation of jobs on spec with the engine's step times for the jobs
 * that name a scenario (loaded here, cat needed then; jobs_path is where
 * their paths are relative to; hwr resolves each one's hardware as the
 * commands do, its own calibration profile applied: input/hw.h): what
 * `podplan cluster`, its sweeps and cost's utilization_from each run. o: progress and per_job (its step
 * fields are set here; NULL = none). Errors: pp_cscen_new's and
 * pp_csim_run's; *r then holds nothing to release. */
int pp_cscen_simulate(const pp_cspec *spec, const pp_cjobs *jobs, const char *jobs_path,
		      const pp_catalog *cat, const pp_hw_resolver *hwr, const pp_csim_opts *o,
		      pp_csim_result *r, pp_err *err);

#endif
