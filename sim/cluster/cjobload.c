/* cjobload.c - see cjobs.h: a job file read, its format detected and
 * handed to podplan's own CSV reader (here) or an importer (cjobimport.c). */
#include "cluster/cjobs.h"
#include "cluster/cjobsint.h"
#include "cluster/cmig.h"
#include "core/csv.h"
#include "core/util.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int scenario_index(pp_cjobs *j, const char *path)
{
	for (int i = 0; i < j->nscenarios; i++)
		if (!strcmp(j->scenarios[i], path))
			return i;
	j->scenarios = pp_xrealloc(j->scenarios, (size_t)(j->nscenarios + 1) * sizeof(char *));
	j->scenarios[j->nscenarios] = pp_xstrdup(path);
	return j->nscenarios++;
}

static int enum_of(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

/* podplan's own columns */
static int parse_podplan(pp_cjobs *j, const char *file, const pp_csv *c, pp_err *err)
{
	static const char *const req[] = {"job_id", "gpus", "submit_s"};
	static const char *const topo[] = {"", "none", "preferred", "required"};
	int idx[3], rc;
	if ((rc = cj_need(file, c, req, 3, idx, "podplan jobs", err)))
		return rc;
	int cq = pp_csv_col(c, "queue"), cn = pp_csv_col(c, "nodes"),
	    cd = pp_csv_col(c, "duration_s"), cl = pp_csv_col(c, "time_limit_s"),
	    cs = pp_csv_col(c, "scenario"), ct = pp_csv_col(c, "tokens"),
	    cci = pp_csv_col(c, "checkpoint_interval_s"), ccb = pp_csv_col(c, "checkpoint_bytes"),
	    cca = pp_csv_col(c, "async_checkpoint"), cp = pp_csv_col(c, "priority"),
	    csp = pp_csv_col(c, "spot"), cto = pp_csv_col(c, "topology"),
	    cm = pp_csv_col(c, "gpu_milli"), ck = pp_csv_col(c, "kind"),
	    cmig = pp_csv_col(c, "mig_profile");
	const int csv_serve[4] = {pp_csv_col(c, "replicas_min"), pp_csv_col(c, "replicas_max"),
				  pp_csv_col(c, "replica_rps"), pp_csv_col(c, "demand_rps")};
	bool serving = csv_serve[0] >= 0 || csv_serve[1] >= 0 || csv_serve[2] >= 0 ||
		       csv_serve[3] >= 0;
	if (cd < 0 && cs < 0)
		return pp_errf(err, PP_EINPUT, "%s:1: header: no column \"duration_s\" nor "
			       "\"scenario\"; expected a run time or a podplan scenario per job",
			       file);
	for (int i = 1; i < c->nrows; i++) {
		int row = i + 1;
		const char *id = pp_csv_get(c, i, idx[0]);
		if (!id[0])
			return pp_errf(err, PP_EINPUT, "%s:%d: column job_id: found an empty cell, "
				       "expected an id", file, row);
		pp_cjob *x = pp_cjobs_add(j, id);
		const char *v;
		if ((rc = cj_int(file, row, "gpus", pp_csv_get(c, i, idx[1]), 1, CJ_MAX_GPUS, &x->gpus,
				 err)) ||
		    (rc = cj_num(file, row, "submit_s", pp_csv_get(c, i, idx[2]), 0, 1e12,
				 &x->submit_s, err)))
			return rc;
		if (cq >= 0 && (v = pp_csv_get(c, i, cq))[0])
			x->queue = pp_cjobs_queue(j, v);
		if (cn >= 0 && (v = pp_csv_get(c, i, cn))[0] &&
		    (rc = cj_int(file, row, "nodes", v, 1, CJ_MAX_NODES, &x->nodes, err)))
			return rc;
		if (cd >= 0 && (v = pp_csv_get(c, i, cd))[0] &&
		    (rc = cj_num(file, row, "duration_s", v, 0, 1e10, &x->work_s, err)))
			return rc;
		if (cl >= 0 && (v = pp_csv_get(c, i, cl))[0] &&
		    (rc = cj_num(file, row, "time_limit_s", v, 0, 1e10, &x->limit_s, err)))
			return rc;
		if (cs >= 0 && (v = pp_csv_get(c, i, cs))[0])
			x->scenario = scenario_index(j, v);
		if (ct >= 0 && (v = pp_csv_get(c, i, ct))[0] &&
		    (rc = cj_num(file, row, "tokens", v, 1, 1e18, &x->tokens, err)))
			return rc;
		if (x->scenario >= 0 && !(x->tokens > 0))
			return pp_errf(err, PP_EINPUT, "%s:%d: column tokens: found an empty cell "
				       "beside a scenario, expected the tokens to train", file, row);
		if (x->scenario < 0 && isnan(x->work_s))
			return pp_errf(err, PP_EINPUT, "%s:%d: column duration_s: found an empty "
				       "cell and no scenario, expected a run time in seconds", file,
				       row);
		if (cci >= 0 && (v = pp_csv_get(c, i, cci))[0] &&
		    (rc = cj_num(file, row, "checkpoint_interval_s", v, 0, 1e9, &x->ckpt_interval_s,
				 err)))
			return rc;
		if (ccb >= 0 && (v = pp_csv_get(c, i, ccb))[0] &&
		    (rc = cj_num(file, row, "checkpoint_bytes", v, 0, 1e18, &x->ckpt_bytes, err)))
			return rc;
		if (cca >= 0 && (v = pp_csv_get(c, i, cca))[0]) {
			int e = enum_of(v, (const char *const[]){"false", "true", "0", "1"}, 4);
			if (e < 0)
				return pp_errf(err, PP_EINPUT, "%s:%d: column async_checkpoint: found "
					       "\"%s\", expected true or false", file, row, v);
			x->async_ckpt = e == 1 || e == 3;
		}
		if (cp >= 0 && (v = pp_csv_get(c, i, cp))[0] &&
		    (rc = cj_int(file, row, "priority", v, -1000000, 1000000, &x->priority, err)))
			return rc;
		if (csp >= 0 && (v = pp_csv_get(c, i, csp))[0]) {
			int e = enum_of(v, (const char *const[]){"false", "true", "0", "1"}, 4);
			if (e < 0)
				return pp_errf(err, PP_EINPUT, "%s:%d: column spot: found \"%s\", "
					       "expected true or false", file, row, v);
			x->spot = e == 1 || e == 3;
		}
		if (cto >= 0 && (v = pp_csv_get(c, i, cto))[0]) {
			int e = enum_of(v, topo, 4);
			if (e < 0)
				return pp_errf(err, PP_EINPUT, "%s:%d: column topology: found \"%s\", "
					       "expected none, preferred or required", file, row, v);
			x->topo = (uint8_t)e; /* 1 none, 2 preferred, 3 required; 0 = the spec's */
		}
		if (cm >= 0 && (v = pp_csv_get(c, i, cm))[0] &&
		    (rc = cj_int(file, row, "gpu_milli", v, 1, 1000, &x->gpu_milli, err)))
			return rc;
		if (cmig >= 0 && (v = pp_csv_get(c, i, cmig))[0]) {
			int mc, mg;
			if (!pp_mig_parse(v, &mc, &mg))
				return pp_errf(err, PP_EINPUT, "%s:%d: column mig_profile: found \"%s\", "
					       "expected a MIG profile such as 1g.10gb or 3g.40gb", file,
					       row, v);
			if (x->gpus != 1)
				return pp_errf(err, PP_EINPUT, "%s:%d: column mig_profile: found %s "
					       "with %d GPUs, expected a MIG instance only for a 1-GPU "
					       "job", file, row, v, (int)x->gpus);
			x->mig_compute = (uint8_t)mc;
			x->mig_gb = (uint16_t)mg;
			/* its share of the GPU's compute, for the accounting (a share < 1) */
			x->gpu_milli = (1000 * mc + 3) / 7 < 1000 ? (1000 * mc + 3) / 7 : 999;
		}
		if (x->gpu_milli < 1000 && x->gpus != 1)
			return pp_errf(err, PP_EINPUT, "%s:%d: column gpu_milli: found %d with %d "
				       "GPUs, expected a share of one GPU only for a 1-GPU job", file,
				       row, (int)x->gpu_milli, (int)x->gpus);
		if (ck >= 0 && (v = pp_csv_get(c, i, ck))[0]) {
			int e = enum_of(v, pp_cjob_kind_names, PP_CJK_COUNT);
			if (e < 0)
				return pp_errf(err, PP_EINPUT, "%s:%d: column kind: found \"%s\", "
					       "expected other, pretrain, finetune, eval or serve",
					       file, row, v);
			x->kind = (uint8_t)e;
		}
		if (serving && (rc = cj_serve_cols(j, file, c, i, x, csv_serve, err)))
			return rc;
	}
	return 0;
}

pp_cjob_fmt pp_cjobs_detect(const char *text, size_t len)
{
	size_t i = 0;
	while (i < len && isspace((unsigned char)text[i]))
		i++;
	if (i < len && (text[i] == '[' || text[i] == '{'))
		return PP_CJF_PHILLY;
	size_t e = i;
	while (e < len && text[e] != '\n')
		e++;
	char line[1024];
	size_t n = e - i < sizeof(line) - 1 ? e - i : sizeof(line) - 1;
	memcpy(line, text + i, n);
	line[n] = 0;
	if (strchr(line, '|') && strstr(line, "JobID"))
		return PP_CJF_SACCT;
	if (strstr(line, "gpu_milli") && strstr(line, "creation_time"))
		return PP_CJF_OPENB;
	if (strstr(line, "node_num") && strstr(line, "gpu_num") && strstr(line, "vc"))
		return PP_CJF_HELIOS;
	if (strstr(line, "node_num") && strstr(line, "gpu_num"))
		return PP_CJF_ACME;
	return PP_CJF_PODPLAN;
}

int pp_cjobs_parse(pp_cjobs *j, const char *name, const char *text, size_t len,
		   pp_cjob_fmt fmt, pp_err *err)
{
	pp_cjobs_init(j);
	if (fmt == PP_CJF_AUTO)
		fmt = pp_cjobs_detect(text, len);
	j->fmt = fmt;
	int rc;
	if (fmt == PP_CJF_PHILLY) {
		rc = cj_parse_philly(j, name, text, len, err);
	} else {
		pp_csv c;
		char *copy = NULL;
		const char *t = text;
		if (fmt == PP_CJF_SACCT) {
			/* '|'-separated, no quoting (--parsable2): read as CSV after
			 * turning the separators into commas, a cell holding a comma
			 * quoted */
			pp_sb sb = {0};
			pp_sb_add(&sb, "", 0);
			const char *s = text;
			bool cell_has_comma = false;
			size_t cell_start = 0;
			for (size_t k = 0; k <= len; k++) {
				char ch = k < len ? s[k] : '\n';
				if (ch == '|' || ch == '\n' || ch == '\r') {
					if (cell_has_comma) {
						pp_sb_adds(&sb, "\"");
						pp_sb_add(&sb, s + cell_start, k - cell_start);
						pp_sb_adds(&sb, "\"");
					} else {
						pp_sb_add(&sb, s + cell_start, k - cell_start);
					}
					if (k < len)
						pp_sb_add(&sb, ch == '|' ? "," : &ch, 1);
					cell_start = k + 1;
					cell_has_comma = false;
				} else if (ch == ',' || ch == '"') {
					cell_has_comma = true;
				}
			}
			copy = pp_sb_detach(&sb);
			t = copy;
		}
		rc = pp_csv_parse(&c, name, t, err);
		free(copy);
		if (rc) {
			pp_cjobs_release(j);
			return rc;
		}
		if (c.nrows < 1)
			rc = pp_errf(err, PP_EINPUT, "%s: found an empty file, expected a header "
				     "line and job rows", name);
		else if (fmt == PP_CJF_PODPLAN)
			rc = parse_podplan(j, name, &c, err);
		else if (fmt == PP_CJF_SACCT)
			rc = cj_parse_sacct(j, name, &c, err);
		else if (fmt == PP_CJF_ACME || fmt == PP_CJF_HELIOS)
			rc = cj_parse_acme(j, name, &c, fmt == PP_CJF_HELIOS, err);
		else
			rc = cj_parse_openb(j, name, &c, err);
		pp_csv_release(&c);
	}
	if (!rc && j->n == 0)
		rc = pp_errf(err, PP_EINPUT, "%s: found no GPU job that ran (%d records left out), "
			     "expected at least one", name, j->skipped);
	if (rc) {
		pp_cjobs_release(j);
		return rc;
	}
	pp_cjobs_finish(j);
	return 0;
}

int pp_cjobs_load(pp_cjobs *j, const char *path, pp_cjob_fmt fmt, pp_err *err)
{
	char *text;
	size_t len;
	pp_cjobs_init(j);
	pp_cjobs_release(j);
	int rc = pp_read_file(path, (size_t)2 << 30, &text, &len, err);
	if (rc)
		return rc;
	rc = pp_cjobs_parse(j, path, text, len, fmt, err);
	free(text);
	return rc;
}

