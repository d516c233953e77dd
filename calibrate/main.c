/*
 * main.c - podplan-calibrate: measure a GPU pod (NCCL collectives, cuBLASLt
 * GEMMs, memory and host copies, storage, topology) into the podplan store,
 * and judge its health against the catalogs.
 *
 *   podplan-calibrate [sweep] [options]          one process, every GPU
 *   mpirun -np N podplan-calibrate [options]     one rank per GPU (Open MPI)
 *
 * The sweep's options are args.h's; the subcommands overlap.h, replay.h and
 * verdict.h. A sweep runs in steps: open the backend (fake, one process or
 * one MPI rank per GPU), plan the measurements, begin the run in the store,
 * measure, judge; the root rank alone writes the store and prints.
 */
#include "args.h"
#include "core/fmt.h"
#include "backend.h"
#include "calib/calibdb.h"
#include "input/catalog.h"
#include "gpu.h"
#include "health.h"
#include "mpiglue.h"
#include "overlap.h"
#include "plan.h"
#include "replay.h"
#include "core/jsonout.h"
#include "core/store.h"
#include "sweep.h"
#include "core/util.h"
#include "verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* The command line as given; an argument holding white space or a quote is
 * written as a JSON string literal, so that the line reads back. */
static char *join_argv(int argc, char **argv)
{
	pp_sb sb = {0};
	for (int i = 0; i < argc; i++) {
		if (i)
			pp_sb_adds(&sb, " ");
		if (strpbrk(argv[i], " \t\"'")) {
			cJSON *lit = pp_json_str(NULL, NULL, argv[i]);
			pp_json_print(lit, false, &sb);
			cJSON_Delete(lit);
		} else {
			pp_sb_adds(&sb, argv[i]);
		}
	}
	return pp_sb_detach(&sb);
}

/* The run's extra_json: the writer (pid, host: a dead writer's run reads
 * as interrupted), the backend, the sweep's settings, NCCL's environment. */
static char *run_extra(const pp_cal_args *c, const pp_cal_backend *b, bool fake)
{
	const pp_cal_opts *o = &c->o;
	char host[256] = "";
	if (gethostname(host, sizeof(host) - 1))
		host[0] = '\0';
	cJSON *x = pp_json_obj(NULL, NULL);
	pp_json_int(x, "pid", (int64_t)getpid());
	pp_json_str(x, "writer_host", host);
	pp_json_str(x, "backend", b->ops->name);
	pp_json_str(x, "mode", fake ? "fake" : b->nprocs > 1 ? "mpi" : "single-process");
	pp_json_int(x, "nprocs", b->nprocs);
	cJSON *sw = pp_json_obj(x, "sweep");
	pp_json_bool(sw, "quick", o->quick);
	pp_json_int(sw, "minbytes", (int64_t)o->min_bytes);
	pp_json_int(sw, "maxbytes", (int64_t)o->max_bytes);
	pp_json_int(sw, "stepfactor", o->step_factor);
	pp_json_int(sw, "stepbytes", (int64_t)o->step_bytes);
	pp_json_str(sw, "datatype", pp_cdtype_names[o->coll_dtype]);
	pp_json_int(sw, "repeats", o->coll_it.repeats);
	pp_json_int(sw, "warmup", o->coll_it.warmup);
	pp_json_bool(sw, "check", o->coll_it.check);
	pp_json_int(sw, "square_max", o->square_max);
	pp_json_str(sw, "models", o->models ? o->models : "");
	if (o->do_decode) {
		pp_json_str(sw, "decode_models", o->decode_models ? o->decode_models : "");
		pp_json_int(sw, "decode_max_m", o->decode_max_m);
	}
	if (o->do_sustained) {
		pp_json_num(sw, "sustained_s", o->sustained_s, 6);
		pp_json_int(sw, "sustained_size", o->sustained_size);
		pp_json_num(sw, "sample_s", o->sample_s, 6);
	}
	cJSON *env = pp_json_obj(x, "nccl_env");
	for (char **e = environ; *e; e++) {
		if (strncmp(*e, "NCCL_", 5) && strncmp(*e, "CUDA_VISIBLE", 12))
			continue;
		const char *eq = strchr(*e, '=');
		if (!eq)
			continue;
		char key[128];
		snprintf(key, sizeof(key), "%.*s", (int)(eq - *e), *e);
		pp_json_str(env, key, eq + 1);
	}
	if (c->label)
		pp_json_str(x, "label", c->label);
	return pp_json_finish(x, false);
}

static int fail(const pp_cal_backend *b, const pp_err *err)
{
	if (b && b->nprocs > 1)
		fprintf(stderr, "podplan-calibrate: rank %d: %s\n", b->rank,
			err->msg[0] ? err->msg : "unknown error");
	else
		fprintf(stderr, "podplan-calibrate: %s\n", err->msg[0] ? err->msg : "unknown error");
	return pp_exit_status(err->code ? err->code : PP_EINTERNAL);
}

/* One sweep: what each step needs and leaves for the next. */
typedef struct job {
	pp_cal_args a;
	char *cmdline;           /* argv as given, stored with the run */
	pp_cal_backend *b;
	pp_catalog *cat;
	pp_cal_host host;
	pp_cal_item *items;      /* the plan */
	size_t nitems;
	pp_store *st;            /* the root's; NULL on the other ranks */
	int64_t run;
	bool run_open;           /* begun in the store and not yet ended */
	char *extra;             /* the run's extra_json */
	unsigned char *done;     /* a resumed run: the items measured before (nitems) */
	pp_cal_sweep sw;
} job;

static bool same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The newest run of this store that this one continues: the same source,
 * command line (so the same plan), host, GPU and GPU count, left
 * "running" by a writer of this host that is gone (interrupted). 0 when
 * none. */
static int resumable_run(pp_store *st, const pp_calib_run *want, int64_t *id, pp_err *err)
{
	pp_calib_run *runs = NULL;
	size_t n = 0;
	int rc = pp_calibdb_list_runs(st, &runs, &n, err);
	*id = 0;
	for (size_t i = n; i-- > 0 && !rc && !*id;) {
		const pp_calib_run *r = &runs[i];
		if (same_text(r->source, want->source) && same_text(r->command_line, want->command_line) &&
		    same_text(r->host, want->host) && same_text(r->gpu_name, want->gpu_name) &&
		    r->gpu_count == want->gpu_count &&
		    !strcmp(pp_calibdb_effective_status(r), "interrupted"))
			*id = r->id;
	}
	for (size_t i = 0; i < n; i++)
		pp_calib_run_release(&runs[i]);
	free(runs);
	return rc;
}

/* Continue run id: this process becomes its writer, and the items its
 * rows hold are marked done. */
static int resume_run(job *j, int64_t id, size_t *ndone, pp_err *err)
{
	pp_calib_run upd;
	pp_calib_meas *rows = NULL;
	size_t n = 0;
	int rc;
	pp_calib_run_init(&upd);
	upd.extra_json = j->extra;
	if ((rc = pp_calibdb_update_run(j->st, id, &upd, err)) ||
	    (rc = pp_calibdb_query(j->st, id, NULL, &rows, &n, err)))
		return rc;
	j->done = pp_xcalloc(j->nitems ? j->nitems : 1, 1);
	*ndone = pp_cal_sweep_done(j->items, j->nitems, rows, n, j->done);
	pp_calib_meas_free(rows, n);
	j->run = id;
	return 0;
}

/* The fake pod, this process's GPUs, or this rank's GPU under mpirun. */
static int open_backend(job *j, int *argc, char ***argv, pp_err *err)
{
	if (j->a.fake_gpus)
		return pp_cal_fake_new(j->a.fake_gpus, j->a.fake_delay_s, &j->b, err);
	if (pp_mpi_launched() && !pp_mpi_available()) {
		pp_errf(err, PP_EINPUT, "started by mpirun, but this podplan-calibrate was built "
			"without MPI: run it once without mpirun (it drives every GPU itself)");
		return PP_EINPUT;
	}
	pp_cal_gpu_opts go = {.ngpus = j->a.ngpus, .mpi = pp_mpi_launched()};
	if (go.mpi && j->a.ngpus)
		fprintf(stderr, "podplan-calibrate: --gpus is ignored under mpirun (one "
			"rank per GPU)\n");
	return pp_cal_gpu_new(&go, argc, argv, &j->b, err);
}

/* The measurement list for the backend's GPUs, and the machine. */
static int plan(job *j, pp_err *err)
{
	int rc;
	if ((rc = pp_catalog_load(&j->cat, NULL, err)) ||
	    (rc = pp_cal_plan(&j->a.o, j->cat, j->b->ngpus, &j->items, &j->nitems, err)) ||
	    (rc = j->b->ops->describe(j->b, &j->host, err)))
		return rc;
	return 0;
}

/* The root: the run in the store, with its provenance, and the header. */
static int begin_run(job *j, pp_err *err)
{
	const pp_cal_host *h = &j->host;
	const pp_cal_backend *b = j->b;
	double est = 0;
	char estb[32];
	int rc;
	for (size_t i = 0; i < j->nitems; i++)
		est += j->items[i].est_s;
	if (!b->root)
		return 0;
	pp_calib_run r;
	pp_calib_run_init(&r);
	j->extra = run_extra(&j->a, b, j->a.fake_gpus > 0);
	r.source = j->a.fake_gpus ? "fake" : "podplan-calibrate";
	r.command_line = j->cmdline;
	r.host = h->host;
	r.gpu_name = h->gpu_name;
	r.gpu_count = h->ngpus;
	r.driver_version = h->driver;
	r.cuda_version = h->cuda;
	r.nccl_version = h->nccl;
	r.cpu_cores = h->cpu_cores;
	r.mem_bytes = h->mem_bytes;
	r.topology_json = h->topology_json;
	r.extra_json = j->extra;
	int64_t old = 0;
	size_t ndone = 0;
	if ((rc = pp_store_open(&j->st, j->a.db, err)) ||
	    (rc = resumable_run(j->st, &r, &old, err)))
		return rc;
	if (old)
		rc = resume_run(j, old, &ndone, err);
	else
		rc = pp_calibdb_begin_run(j->st, &r, &j->run, err);
	if (rc)
		return rc;
	j->run_open = true;
	if (old)
		printf("# resuming run %lld (interrupted; the same options on this host): %zu of %zu "
		       "planned items were measured before and are not measured again\n",
		       (long long)old, ndone, j->nitems);
	printf("# podplan-calibrate %s: run %lld in %s\n# %d x %s on %s (%d host%s), driver %s, "
	       "CUDA %s, NCCL %s; %s mode; %zu measurements planned (about %s)\n", PP_VERSION,
	       (long long)j->run, pp_store_path(j->st), h->ngpus, h->gpu_name, h->host, h->nhosts,
	       h->nhosts == 1 ? "" : "s", h->driver, h->cuda, h->nccl,
	       j->a.fake_gpus ? "fake" : b->nprocs > 1 ? "MPI (one rank per GPU)" : "single-process",
	       j->nitems, pp_fmt_duration(est, estb, sizeof(estb)));
	return 0;
}

/* Every rank: buffers for the largest item, then the sweep. */
static int measure(job *j, pp_err *err)
{
	pp_cal_backend *b = j->b;
	pp_cal_plan_max mx;
	int rc;
	pp_cal_plan_maxima(j->items, j->nitems, &mx);
	/* the root knows what a resumed run holds; every rank skips the same
	 * items (a collective needs them all) */
	unsigned char resumed = j->done != NULL;
	pp_mpi_bcast(&resumed, 1, 0);
	if (resumed) {
		if (!j->done)
			j->done = pp_xcalloc(j->nitems ? j->nitems : 1, 1);
		pp_mpi_bcast(j->done, j->nitems, 0);
	}
	if ((rc = b->ops->prepare(b, mx.coll_send, mx.coll_recv, mx.gemm_a, mx.gemm_b, mx.gemm_d,
				  mx.mem, err)))
		return rc;
	j->sw = (pp_cal_sweep){.st = j->st, .run_id = j->run, .be = b, .opts = &j->a.o, .host = &j->host,
			       .out = b->root ? stdout : NULL,
			       .progress = b->root && (j->a.progress == 1 ||
						       (j->a.progress < 0 && isatty(2))),
			       .done = j->done};
	return pp_cal_sweep_run(&j->sw, j->items, j->nitems, err);
}

/* The root: the health verdict of what the run holds, the run ended
 * complete, the summary. *status: 1 when result elements were wrong, 3
 * with --strict and a SLOW row, else left. */
static int judge(job *j, int *status, pp_err *err)
{
	if (!j->b->root)
		return 0;
	pp_calib_meas *rows = NULL;
	size_t nrows = 0;
	pp_sb verdict = {0}, table = {0};
	pp_cal_health_opts ho = {.gpu_sku = j->a.gpu_sku, .storage_id = j->a.storage_expect};
	const pp_cal_sweep *sw = &j->sw;
	int slow = 0, rc;
	char el[32];
	long long run = (long long)j->run;
	if ((rc = pp_calibdb_query(j->st, j->run, NULL, &rows, &nrows, err)) ||
	    (rc = pp_cal_health(j->cat, &j->host, &ho, rows, nrows, &verdict, &slow, err)) ||
	    (rc = pp_calibdb_end_run(j->st, j->run, "complete", verdict.buf, err)) ||
	    (rc = pp_calibdb_format_verdict(verdict.buf, &table, err)))
		goto out;
	j->run_open = false;
	printf("\n# health verdict (%s x %d; thresholds in models/health.json)\n%s",
	       j->host.gpu_name, j->host.ngpus, table.buf);
	printf("\n# run %lld complete: %zu rows in %s (%zu skipped); 'podplan calib show %lld', "
	       "'podplan calib export %lld --csv'\n", run, sw->recorded,
	       pp_fmt_duration(sw->elapsed_s, el, sizeof(el)), sw->skipped, run, run);
	if (sw->wrong) {
		fprintf(stderr, "podplan-calibrate: %lld result elements were wrong (see the "
			"#wrong columns)\n", (long long)sw->wrong);
		*status = 1;
	} else if (j->a.strict && slow) {
		*status = 3;
	}
out:
	pp_calib_meas_free(rows, nrows);
	pp_sb_release(&verdict);
	pp_sb_release(&table);
	return rc;
}

/* A step failed: the message, the run marked failed (its rows kept), the
 * other ranks stopped. Returns the exit status. */
static int abandon(job *j, const pp_err *err)
{
	int status = fail(j->b, err);
	if (j->run_open) {
		pp_err e2 = {0};
		pp_calibdb_end_run(j->st, j->run, "failed", NULL, &e2);
		fprintf(stderr, "podplan-calibrate: run %lld marked failed; its %s measurements are kept\n",
			(long long)j->run, "completed");
	}
	if (j->b && j->b->ops->abort_all && j->b->nprocs > 1)
		j->b->ops->abort_all(j->b, status);
	return status;
}

static void job_release(job *j)
{
	if (j->b)
		j->b->ops->close(j->b);
	pp_store_close(j->st);
	pp_catalog_free(j->cat);
	free(j->items);
	free(j->done);
	free(j->host.topology_json);
	free(j->extra);
	free(j->cmdline);
}

int main(int argc, char **argv)
{
	job j;
	pp_err err = {0};
	int rc, status = 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "overlap"))
		return pp_cal_overlap_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "replay"))
		return pp_cal_replay_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "verdict"))
		return pp_cal_verdict_main(argc - 1, argv + 1);
	memset(&j, 0, sizeof(j));
	j.cmdline = join_argv(argc, argv); /* before getopt_long permutes argv */
	if ((rc = pp_cal_args_parse(argc, argv, &j.a))) {
		free(j.cmdline);
		return rc < 0 ? 0 : rc;
	}
	if ((rc = open_backend(&j, &argc, &argv, &err)))
		status = fail(j.b, &err);
	else if ((rc = plan(&j, &err)) || (rc = begin_run(&j, &err)) || (rc = measure(&j, &err)) ||
		 (rc = judge(&j, &status, &err)))
		status = abandon(&j, &err);
	job_release(&j);
	return status;
}
