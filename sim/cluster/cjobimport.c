/*
 * cjobimport.c - importers for published and exported job records (the
 * formats of cjobs.h): Slurm sacct --parsable2, Acme / Helios, Philly,
 * Alibaba openb. Each keeps the fields the simulation replays: submission,
 * GPUs, nodes, run time, queue, recorded end state.
 */
#include "cluster/cjobsint.h"
#include "core/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t slurm_state(const char *s)
{
	if (!strncmp(s, "COMPLETED", 9))
		return PP_CJS_COMPLETED;
	if (!strncmp(s, "CANCELLED", 9))
		return PP_CJS_CANCELLED;
	if (!s[0])
		return PP_CJS_UNKNOWN;
	return PP_CJS_FAILED; /* FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, PREEMPTED */
}

/* GPUs in a TRES string "billing=8,cpu=8,gres/gpu=8,mem=64G,node=1" (or
 * typed "gres/gpu:a100=8"): the untyped count when given, else the sum of
 * the typed ones; -1 when a count is not a number in 0..CJ_MAX_GPUS (or
 * the typed ones sum past it) */
static long tres_gpus(const char *s)
{
	long untyped = -2, typed = 0;
	const char *p = s;
	while ((p = strstr(p, "gres/gpu")) != NULL) {
		const char *q = p + 8;
		bool is_typed = *q == ':';
		while (*q && *q != '=' && *q != ',')
			q++;
		if (*q != '=') {
			p = q;
			continue;
		}
		char *end;
		long v = strtol(q + 1, &end, 10);
		if (end == q + 1 || (*end && *end != ',') || v < 0 || v > CJ_MAX_GPUS)
			return -1;
		if (is_typed && (typed += v) > CJ_MAX_GPUS)
			return -1;
		else
			untyped = v;
		p = end;
	}
	return untyped >= 0 ? untyped : typed;
}

int cj_parse_sacct(pp_cjobs *j, const char *file, const pp_csv *c, pp_err *err)
{
	static const char *const req[] = {"JobID", "Submit", "Start"};
	int idx[3], rc;
	if ((rc = cj_need(file, c, req, 3, idx, "sacct --parsable2 (JobID|Submit|Start|End|"
			  "AllocTRES|...)", err)))
		return rc;
	int ce = pp_csv_col(c, "End"), cel = pp_csv_col(c, "Elapsed"),
	    ctr = pp_csv_col(c, "AllocTRES"), crq = pp_csv_col(c, "ReqTRES"),
	    cnn = pp_csv_col(c, "NNodes"), cpa = pp_csv_col(c, "Partition"),
	    cst = pp_csv_col(c, "State"), ctl = pp_csv_col(c, "Timelimit"),
	    cpr = pp_csv_col(c, "Priority");
	if (ce < 0 && cel < 0)
		return pp_errf(err, PP_EINPUT, "%s:1: header: no column \"End\" nor \"Elapsed\"; "
			       "expected one (sacct --format=...,End or Elapsed)", file);
	if (ctr < 0 && crq < 0)
		return pp_errf(err, PP_EINPUT, "%s:1: header: no column \"AllocTRES\" nor "
			       "\"ReqTRES\"; expected one, for the GPUs (gres/gpu=N)", file);
	for (int i = 1; i < c->nrows; i++) {
		int row = i + 1;
		const char *id = pp_csv_get(c, i, idx[0]);
		if (strchr(id, '.')) { /* a job step: the allocation is its job's */
			j->skipped++;
			continue;
		}
		const char *st = pp_csv_get(c, i, idx[2]);
		if (!strcmp(st, "Unknown") || !strcmp(st, "None") || !st[0]) {
			j->skipped++; /* never started */
			continue;
		}
		const char *tres = pp_csv_get(c, i, ctr >= 0 ? ctr : crq);
		if (ctr >= 0 && !tres[0] && crq >= 0)
			tres = pp_csv_get(c, i, crq);
		long g = tres_gpus(tres);
		if (g < 0)
			return pp_errf(err, PP_EINPUT, "%s:%d: column %s: found \"%s\", expected "
				       "TRES such as cpu=8,gres/gpu=8,node=1 (0 to %d GPUs)", file,
				       row, ctr >= 0 ? "AllocTRES" : "ReqTRES", tres, CJ_MAX_GPUS);
		if (g == 0) {
			j->skipped++; /* CPU-only */
			continue;
		}
		double sub, start, run = -1;
		if ((rc = cj_time(file, row, "Submit", pp_csv_get(c, i, idx[1]), &sub, err)) ||
		    (rc = cj_time(file, row, "Start", st, &start, err)))
			return rc;
		const char *en = ce >= 0 ? pp_csv_get(c, i, ce) : "";
		if (en[0] && strcmp(en, "Unknown")) {
			double end;
			if ((rc = cj_time(file, row, "End", en, &end, err)))
				return rc;
			run = end - start;
		} else if (cel >= 0) {
			const char *el = pp_csv_get(c, i, cel);
			run = pp_cjobs_parse_slurm_duration(el);
			if (!(run >= 0) || isinf(run))
				return pp_errf(err, PP_EINPUT, "%s:%d: column Elapsed: found \"%s\", "
					       "expected [D-]HH:MM:SS", file, row, el);
		} else {
			j->skipped++; /* still running, no end */
			continue;
		}
		if (run < 0)
			return pp_errf(err, PP_EINPUT, "%s:%d: column End: found an end before the "
				       "start, expected End >= Start", file, row);
		pp_cjob *x = pp_cjobs_add(j, id);
		x->submit_s = sub;
		x->work_s = run;
		x->gpus = (int32_t)g;
		if (start < sub)
			x->submit_s = start;
		const char *v;
		if (cnn >= 0 && (v = pp_csv_get(c, i, cnn))[0] &&
		    (rc = cj_int(file, row, "NNodes", v, 1, CJ_MAX_NODES, &x->nodes, err)))
			return rc;
		if (cpa >= 0 && (v = pp_csv_get(c, i, cpa))[0])
			x->queue = pp_cjobs_queue(j, v);
		if (cst >= 0)
			x->state = slurm_state(pp_csv_get(c, i, cst));
		if (ctl >= 0 && (v = pp_csv_get(c, i, ctl))[0]) {
			double tl = pp_cjobs_parse_slurm_duration(v);
			if (tl < 0)
				return pp_errf(err, PP_EINPUT, "%s:%d: column Timelimit: found \"%s\", "
					       "expected [D-]HH:MM:SS or UNLIMITED", file, row, v);
			if (isfinite(tl))
				x->limit_s = tl > run ? tl : run;
		}
		if (cpr >= 0 && (v = pp_csv_get(c, i, cpr))[0]) {
			double pr;
			if ((rc = cj_num(file, row, "Priority", v, 0, 4294967295.0, &pr, err)))
				return rc;
			x->priority = 0; /* Slurm's multifactor priority orders, it is not a class */
		}
	}
	return 0;
}

static uint8_t acme_kind(const char *t)
{
	if (!strcmp(t, "Pretrain"))
		return PP_CJK_PRETRAIN;
	if (!strcmp(t, "SFT") || !strcmp(t, "MLLM"))
		return PP_CJK_FINETUNE;
	if (!strcmp(t, "Evaluation"))
		return PP_CJK_EVAL;
	return PP_CJK_OTHER;
}

int cj_parse_acme(pp_cjobs *j, const char *file, const pp_csv *c, bool helios, pp_err *err)
{
	static const char *const req[] = {"job_id", "gpu_num", "node_num", "submit_time",
					  "start_time", "duration", "state"};
	int idx[7], rc;
	if ((rc = cj_need(file, c, req, 7, idx, helios ? "Helios cluster_log.csv" :
			  "Acme trace_*.csv", err)))
		return rc;
	int cvc = pp_csv_col(c, "vc"), cty = pp_csv_col(c, "type");
	for (int i = 1; i < c->nrows; i++) {
		int row = i + 1;
		int32_t g, nn;
		if ((rc = cj_int(file, row, "gpu_num", pp_csv_get(c, i, idx[1]), 0, CJ_MAX_GPUS, &g,
				 err)))
			return rc;
		const char *st = pp_csv_get(c, i, idx[4]);
		if (g == 0 || !st[0]) {
			j->skipped++;
			continue;
		}
		double sub, start, dur;
		if ((rc = cj_int(file, row, "node_num", pp_csv_get(c, i, idx[2]), 0, CJ_MAX_NODES, &nn,
				 err)) ||
		    (rc = cj_time(file, row, "submit_time", pp_csv_get(c, i, idx[3]), &sub, err)) ||
		    (rc = cj_time(file, row, "start_time", st, &start, err)) ||
		    (rc = cj_num(file, row, "duration", pp_csv_get(c, i, idx[5]), 0, 1e10, &dur,
				 err)))
			return rc;
		pp_cjob *x = pp_cjobs_add(j, pp_csv_get(c, i, idx[0]));
		x->submit_s = sub;
		x->work_s = dur;
		x->gpus = g;
		x->nodes = nn;
		x->state = slurm_state(pp_csv_get(c, i, idx[6]));
		if (cvc >= 0 && pp_csv_get(c, i, cvc)[0])
			x->queue = pp_cjobs_queue(j, pp_csv_get(c, i, cvc));
		if (cty >= 0)
			x->kind = acme_kind(pp_csv_get(c, i, cty));
	}
	return 0;
}

int cj_parse_openb(pp_cjobs *j, const char *file, const pp_csv *c, pp_err *err)
{
	static const char *const req[] = {"name", "num_gpu", "gpu_milli", "qos", "pod_phase",
					  "creation_time", "deletion_time", "scheduled_time"};
	int idx[8], rc;
	if ((rc = cj_need(file, c, req, 8, idx, "openb_pod_list_*.csv", err)))
		return rc;
	for (int i = 1; i < c->nrows; i++) {
		int row = i + 1;
		int32_t g, milli;
		if ((rc = cj_int(file, row, "num_gpu", pp_csv_get(c, i, idx[1]), 0, 64, &g, err)) ||
		    (rc = cj_int(file, row, "gpu_milli", pp_csv_get(c, i, idx[2]), 0, 1000, &milli,
				 err)))
			return rc;
		const char *sch = pp_csv_get(c, i, idx[7]);
		if (g == 0 || !sch[0]) {
			j->skipped++; /* CPU-only, or never scheduled (Pending) */
			continue;
		}
		double cr, del, sc;
		if ((rc = cj_num(file, row, "creation_time", pp_csv_get(c, i, idx[5]), 0, 1e12, &cr,
				 err)) ||
		    (rc = cj_num(file, row, "deletion_time", pp_csv_get(c, i, idx[6]), 0, 1e12, &del,
				 err)) ||
		    (rc = cj_num(file, row, "scheduled_time", sch, 0, 1e12, &sc, err)))
			return rc;
		if (del < sc)
			return pp_errf(err, PP_EINPUT, "%s:%d: column deletion_time: found %.0f before "
				       "scheduled_time %.0f, expected deletion after scheduling", file,
				       row, del, sc);
		if (g > 1 && milli != 1000)
			return pp_errf(err, PP_EINPUT, "%s:%d: column gpu_milli: found %d with num_gpu "
				       "%d, expected 1000 (a share only for one GPU)", file, row,
				       (int)milli, (int)g);
		if (milli == 0) {
			j->skipped++;
			continue;
		}
		pp_cjob *x = pp_cjobs_add(j, pp_csv_get(c, i, idx[0]));
		x->submit_s = cr;
		x->work_s = del - sc;
		x->gpus = g;
		x->gpu_milli = milli;
		x->queue = pp_cjobs_queue(j, pp_csv_get(c, i, idx[3]));
		const char *ph = pp_csv_get(c, i, idx[4]);
		x->state = !strcmp(ph, "Succeeded") ? PP_CJS_COMPLETED
			   : !strcmp(ph, "Failed")  ? PP_CJS_FAILED
						    : PP_CJS_UNKNOWN;
	}
	return 0;
}

static int philly_time(const char *file, int rec, const char *key, const cJSON *v, double *out,
		       pp_err *err)
{
	if (!cJSON_IsString(v)) {
		*out = -1;
		return 0; /* no time recorded: the README allows it */
	}
	double t = pp_cjobs_parse_time(v->valuestring);
	if (t < 0)
		return pp_errf(err, PP_EINPUT, "%s: record %d: %s: found \"%s\", expected a time "
			       "YYYY-MM-DD HH:MM:SS", file, rec, key, v->valuestring);
	*out = t;
	return 0;
}

int cj_parse_philly(pp_cjobs *j, const char *file, const char *text, size_t len, pp_err *err)
{
	const char *endp = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(text, len, &endp, false);
	if (!root)
		return pp_errf(err, PP_EINPUT, "%s: byte %ld: found invalid JSON, expected "
			       "Philly's cluster_job_log (a JSON array of jobs)", file,
			       endp ? (long)(endp - text) : 0L);
	int rc = 0, rec = 0;
	if (!cJSON_IsArray(root)) {
		rc = pp_errf(err, PP_EINPUT, "%s: found a JSON %s at the top, expected an array "
			     "of jobs", file, cJSON_IsObject(root) ? "object" : "value");
		goto out;
	}
	const cJSON *o;
	cJSON_ArrayForEach(o, root)
	{
		rec++;
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "jobid"),
			    *sub = cJSON_GetObjectItemCaseSensitive(o, "submitted_time"),
			    *att = cJSON_GetObjectItemCaseSensitive(o, "attempts"),
			    *vc = cJSON_GetObjectItemCaseSensitive(o, "vc"),
			    *status = cJSON_GetObjectItemCaseSensitive(o, "status");
		if (!cJSON_IsObject(o) || !cJSON_IsString(id) || !cJSON_IsArray(att)) {
			rc = pp_errf(err, PP_EINPUT, "%s: record %d: found no \"jobid\" string or "
				     "\"attempts\" array, expected Philly's job keys (status, vc, "
				     "jobid, attempts, submitted_time, user)", file, rec);
			goto out;
		}
		double ts = -1;
		if ((rc = philly_time(file, rec, "submitted_time", sub, &ts, err)))
			goto out;
		double run = 0, first = -1;
		int gpus = 0;
		bool ok = cJSON_GetArraySize(att) > 0 && ts >= 0;
		const cJSON *a;
		cJSON_ArrayForEach(a, att)
		{
			double s = -1, e = -1;
			if ((rc = philly_time(file, rec, "attempts[].start_time",
					      cJSON_GetObjectItemCaseSensitive(a, "start_time"), &s,
					      err)) ||
			    (rc = philly_time(file, rec, "attempts[].end_time",
					      cJSON_GetObjectItemCaseSensitive(a, "end_time"), &e,
					      err)))
				goto out;
			if (s < 0 || e < 0 || e < s) {
				ok = false;
				break;
			}
			if (first < 0) {
				first = s;
				const cJSON *det = cJSON_GetObjectItemCaseSensitive(a, "detail"), *dd;
				cJSON_ArrayForEach(dd, det)
				{
					const cJSON *g = cJSON_GetObjectItemCaseSensitive(dd, "gpus");
					gpus += cJSON_IsArray(g) ? cJSON_GetArraySize(g) : 0;
				}
			}
			run += e - s;
		}
		if (!ok || gpus == 0) {
			j->skipped++;
			continue;
		}
		pp_cjob *x = pp_cjobs_add(j, id->valuestring);
		x->submit_s = ts <= first ? ts : first;
		x->work_s = run;
		x->gpus = gpus;
		if (cJSON_IsString(vc))
			x->queue = pp_cjobs_queue(j, vc->valuestring);
		const char *s = cJSON_IsString(status) ? status->valuestring : "";
		x->state = !strcmp(s, "Pass")	  ? PP_CJS_COMPLETED
			   : !strcmp(s, "Killed") ? PP_CJS_CANCELLED
			   : !strcmp(s, "Failed") ? PP_CJS_FAILED
						  : PP_CJS_UNKNOWN;
	}
out:
	cJSON_Delete(root);
	return rc;
}
