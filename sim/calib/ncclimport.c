/* ncclimport.c - see ncclimport.h. */
#include "calib/ncclimport.h"
#include "core/jsonout.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The run's extra_json: the file, its hash, what each section held. */
static char *log_extra(const char *path, const char *hash, const pp_nccl_log *log)
{
	cJSON *o = pp_json_obj(NULL, NULL);
	pp_json_str(o, "file", path);
	pp_json_str(o, "fnv1a64", hash);
	cJSON *secs = pp_json_arr(o, "sections");
	for (size_t i = 0; i < log->nsections; i++) {
		const pp_nccl_section *s = &log->sections[i];
		if (!s->nrows)
			continue;
		cJSON *e = pp_json_obj(secs, NULL);
		pp_json_str(e, "op", s->op);
		pp_json_str(e, "op_from", s->op_from);
		pp_json_str(e, "params", s->params);
		pp_json_str(e, "hosts", s->hosts);
		pp_json_int(e, "nranks", s->nranks);
		pp_json_int(e, "line", s->line);
		pp_json_int(e, "rows", (int64_t)s->nrows);
		if (isfinite(s->avg_busbw_GBps))
			pp_json_num(e, "avg_busbw_GBps", s->avg_busbw_GBps, 9);
		if (s->out_of_bounds != PP_CALIB_NULL)
			pp_json_int(e, "out_of_bounds", s->out_of_bounds);
	}
	if (log->warnings[0])
		pp_json_str(o, "warnings", log->warnings);
	return pp_json_finish(o, false);
}

/* A row's extra_json: nccl-tests reports means; its count, op and line. */
static char *row_extra(const pp_nccl_row *row, int g)
{
	cJSON *o = pp_json_obj(NULL, NULL);
	pp_json_str(o, "stat", "mean");
	pp_json_int(o, "count", row->count);
	pp_json_str(o, "redop", row->redop);
	pp_json_int(o, "root", row->root);
	pp_json_int(o, "line", row->line);
	if (isfinite(row->max_error[g]))
		pp_json_num(o, "max_error", row->max_error[g], 9);
	return pp_json_finish(o, false);
}

static int store_log(pp_store *st, const char *path, const char *text, size_t len,
		     const pp_ncclimport_opts *opts, const pp_nccl_log *log, int64_t *run_id,
		     pp_err *err)
{
	pp_calib_run run;
	pp_sb cmd = {0};
	char *extra = NULL;
	int rc = 0, maxranks = 0;
	const pp_nccl_section *first = NULL;
	char hash[17];
	pp_hash_hex(text, len, hash);
	for (size_t i = 0; i < log->nsections; i++) {
		const pp_nccl_section *s = &log->sections[i];
		if (!s->nrows)
			continue;
		if (!first)
			first = s;
		if (s->nranks > maxranks)
			maxranks = s->nranks;
	}
	pp_sb_addf(&cmd, "podplan calib import-nccl-tests %s", path);
	extra = log_extra(path, hash, log);

	pp_calib_run_init(&run);
	run.source = "nccl-tests";
	run.command_line = cmd.buf;
	run.host = first->hosts;
	run.gpu_name = first->gpu_name[0] ? first->gpu_name : NULL;
	run.gpu_count = maxranks;
	/* nccl-library=22803 is NCCL_VERSION_CODE: major*10000 + minor*100 + patch */
	char ver[32] = "";
	long code = first->nccl_version[0] ? strtol(first->nccl_version, NULL, 10) : 0;
	if (code >= 20900)
		snprintf(ver, sizeof(ver), "%ld.%ld.%ld", code / 10000, code / 100 % 100, code % 100);
	else if (first->nccl_version[0])
		snprintf(ver, sizeof(ver), "%s", first->nccl_version);
	run.nccl_version = ver[0] ? ver : NULL;
	run.extra_json = extra;
	if ((rc = pp_store_exec(st, "BEGIN IMMEDIATE", err)))
		goto out;
	if ((rc = pp_calibdb_begin_run(st, &run, run_id, err)))
		goto rollback;
	for (size_t i = 0; i < log->nsections && !rc; i++) {
		const pp_nccl_section *s = &log->sections[i];
		const char *scope = opts && opts->scope ? opts->scope : s->nhosts > 1 ? "net" : NULL;
		for (size_t r = 0; r < s->nrows && !rc; r++) {
			const pp_nccl_row *row = &s->rows[r];
			for (int g = 0; g < 2 && !rc; g++) {
				if (!row->has[g])
					continue;
				char *ex = row_extra(row, g);
				pp_calib_meas m;
				pp_calib_meas_init(&m);
				m.kind = "collective";
				m.op = s->op;
				m.dtype = row->type;
				m.nranks = s->nranks;
				m.bytes = row->size_bytes;
				m.inplace = g;
				m.time_us = row->time_us[g];
				m.algbw_GBps = row->algbw_GBps[g];
				m.busbw_GBps = row->busbw_GBps[g];
				m.repeats = s->iters > 0 ? s->iters : PP_CALIB_NULL;
				m.wrong = row->wrong[g];
				m.scope = scope;
				m.extra_json = ex;
				rc = pp_calibdb_add(st, *run_id, &m, NULL, err);
				free(ex);
			}
		}
	}
	if (!rc)
		rc = pp_calibdb_end_run(st, *run_id, "complete", NULL, err);
	if (!rc) {
		rc = pp_store_exec(st, "COMMIT", err);
		goto out;
	}
rollback:
	sqlite3_exec(pp_store_db(st), "ROLLBACK", NULL, NULL, NULL);
out:
	pp_sb_release(&cmd);
	free(extra);
	return rc;
}

int pp_ncclimport_text(pp_store *st, const char *path, const char *text, size_t len,
		       const pp_ncclimport_opts *opts, int64_t *run_id, pp_nccl_log *log, pp_err *err)
{
	pp_nccl_log local;
	pp_nccl_log *lg = log ? log : &local;
	memset(lg, 0, sizeof(*lg));
	if (memchr(text, '\0', len))
		return pp_errf(err, PP_EINPUT, "%s: binary data, expected nccl-tests' text output", path);
	int rc = pp_nccl_log_parse(path, text, opts, lg, err);
	if (!rc) {
		rc = store_log(st, path, text, len, opts, lg, run_id, err);
		if (rc || !log)
			pp_nccl_log_release(lg);
	}
	return rc;
}

int pp_ncclimport_file(pp_store *st, const char *path, const pp_ncclimport_opts *opts,
		       int64_t *run_id, pp_nccl_log *log, pp_err *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc = pp_read_file(path, PP_NCCL_MAX_BYTES, &text, &len, err);
	if (rc)
		return rc;
	rc = pp_ncclimport_text(st, path, text, len, opts, run_id, log, err);
	free(text);
	return rc;
}
