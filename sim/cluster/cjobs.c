/* cjobs.c - see cjobs.h: the job table, podplan's own CSV, format detection
 * and the time parsers the importers share (cjobimport.c). */
#include "cluster/cjobs.h"
#include "cluster/cjobsint.h"
#include "core/csv.h"
#include "core/util.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_cjob_fmt_names[PP_CJF_COUNT] = {"auto", "podplan", "sacct", "acme",
						      "helios", "philly", "openb"};
const char *const pp_cjob_state_names[PP_CJS_COUNT] = {"", "COMPLETED", "CANCELLED", "FAILED"};
const char *const pp_cjob_kind_names[PP_CJK_COUNT] = {"other", "pretrain", "finetune", "eval",
						       "serve"};

void pp_cjobs_init(pp_cjobs *j)
{
	memset(j, 0, sizeof(*j));
	pp_cjobs_queue(j, "default");
}

void pp_cjobs_release(pp_cjobs *j)
{
	free(j->v);
	free(j->ids);
	for (int i = 0; i < j->nqueues; i++)
		free(j->queues[i]);
	free(j->queues);
	for (int i = 0; i < j->nscenarios; i++)
		free(j->scenarios[i]);
	free(j->scenarios);
	memset(j, 0, sizeof(*j));
}

pp_cjob *pp_cjobs_add(pp_cjobs *j, const char *id)
{
	if (j->n == j->cap) {
		j->cap = j->cap ? 2 * j->cap : 1024;
		j->v = pp_xrealloc(j->v, (size_t)j->cap * sizeof(*j->v));
	}
	size_t n = strlen(id) + 1;
	if (j->ids_len + n > j->ids_cap) {
		j->ids_cap = (j->ids_cap ? 2 * j->ids_cap : 16384) + n;
		j->ids = pp_xrealloc(j->ids, j->ids_cap);
	}
	pp_cjob *x = &j->v[j->n++];
	memset(x, 0, sizeof(*x));
	x->id_off = (uint32_t)j->ids_len;
	memcpy(j->ids + j->ids_len, id, n);
	j->ids_len += n;
	x->work_s = NAN;
	x->limit_s = NAN;
	x->gpu_milli = 1000;
	x->scenario = -1;
	return x;
}

const char *pp_cjobs_id(const pp_cjobs *j, const pp_cjob *job)
{
	return j->ids ? j->ids + job->id_off : "";
}

int pp_cjobs_queue(pp_cjobs *j, const char *name)
{
	/* the last one found first: records come in runs of one queue */
	if (j->last_queue < j->nqueues && !strcmp(j->queues[j->last_queue], name))
		return j->last_queue;
	for (int i = 0; i < j->nqueues; i++)
		if (!strcmp(j->queues[i], name))
			return j->last_queue = i;
	j->queues = pp_xrealloc(j->queues, (size_t)(j->nqueues + 1) * sizeof(char *));
	j->queues[j->nqueues] = pp_xstrdup(name);
	return j->last_queue = j->nqueues++;
}

static int cmp_submit(const void *a, const void *b)
{
	const pp_cjob *x = a, *y = b;
	if (x->submit_s != y->submit_s)
		return x->submit_s < y->submit_s ? -1 : 1;
	return x->id_off < y->id_off ? -1 : x->id_off > y->id_off;
}

void pp_cjobs_finish(pp_cjobs *j)
{
	if (!j->n)
		return;
	/* id_off grows with the order read: the tie-break keeps the sort stable */
	bool sorted = true;
	for (int i = 1; i < j->n && sorted; i++)
		sorted = cmp_submit(&j->v[i - 1], &j->v[i]) <= 0;
	if (!sorted)
		qsort(j->v, (size_t)j->n, sizeof(*j->v), cmp_submit);
	double t0 = j->v[0].submit_s;
	if (t0 != 0) {
		j->t0_unix_s += t0;
		for (int i = 0; i < j->n; i++)
			j->v[i].submit_s -= t0;
	}
}

/* days from 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
 * days_from_civil, public domain) */
static long days_from_civil(long y, unsigned m, unsigned d)
{
	y -= m <= 2;
	long era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (long)doe - 719468;
}

double pp_cjobs_parse_time(const char *s)
{
	int y, mo, d, h, mi, n = 0;
	double sec;
	char sep;
	if (sscanf(s, "%4d-%2d-%2d%c%2d:%2d:%lf%n", &y, &mo, &d, &sep, &h, &mi, &sec, &n) != 7 ||
	    (sep != ' ' && sep != 'T') || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || !(sec >= 0 && sec < 61))
		return -1;
	double t = (double)days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400.0 + h * 3600.0 +
		   mi * 60.0 + sec;
	const char *z = s + n;
	if (*z == '+' || *z == '-') {
		int oh, om = 0;
		if (sscanf(z + 1, "%2d:%2d", &oh, &om) < 1)
			return -1;
		double off = oh * 3600.0 + om * 60.0;
		t -= *z == '+' ? off : -off;
	} else if (*z == 'Z') {
		/* UTC */
	} else if (*z && *z != ' ') {
		return -1;
	}
	return t;
}

double pp_cjobs_parse_slurm_duration(const char *s)
{
	if (!strcmp(s, "UNLIMITED") || !strcmp(s, "Partition_Limit"))
		return INFINITY;
	long dd = 0, a = 0, b = 0, c = 0;
	int n = 0;
	const char *p = s;
	if (strchr(s, '-')) {
		if (sscanf(p, "%ld-%n", &dd, &n) != 1 || dd < 0)
			return -1;
		p += n;
	}
	int k = sscanf(p, "%ld:%ld:%ld%n", &a, &b, &c, &n);
	if (k == 3 && !p[n])
		return dd * 86400.0 + a * 3600.0 + b * 60.0 + c;
	k = sscanf(p, "%ld:%ld%n", &a, &b, &n);
	if (k == 2 && !p[n])
		return dd ? dd * 86400.0 + a * 3600.0 + b * 60.0 : a * 60.0 + b;
	k = sscanf(p, "%ld%n", &a, &n);
	if (k == 1 && !p[n])
		return dd ? dd * 86400.0 + a * 3600.0 : a * 60.0;
	return -1;
}

int cj_num(const char *file, int row, const char *col, const char *s, double lo, double hi,
	   double *out, pp_err *err)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v) || v < lo || v > hi)
		return pp_errf(err, PP_EINPUT, "%s:%d: column %s: found \"%s\", expected a number "
			       "in [%g, %g]", file, row, col, s, lo, hi);
	*out = v;
	return 0;
}

int cj_int(const char *file, int row, const char *col, const char *s, long lo, long hi,
	   int32_t *out, pp_err *err)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (end == s || *end || v < lo || v > hi)
		return pp_errf(err, PP_EINPUT, "%s:%d: column %s: found \"%s\", expected an integer "
			       "in [%ld, %ld]", file, row, col, s, lo, hi);
	*out = (int32_t)v;
	return 0;
}

int cj_time(const char *file, int row, const char *col, const char *s, double *out, pp_err *err)
{
	double t = pp_cjobs_parse_time(s);
	if (t < 0)
		return pp_errf(err, PP_EINPUT, "%s:%d: column %s: found \"%s\", expected a date and "
			       "time YYYY-MM-DD HH:MM:SS (an offset +HH:MM allowed)", file, row, col,
			       s);
	*out = t;
	return 0;
}

int cj_need(const char *file, const pp_csv *c, const char *const *cols, int n, int *idx,
	    const char *fmt, pp_err *err)
{
	for (int i = 0; i < n; i++) {
		idx[i] = pp_csv_col(c, cols[i]);
		if (idx[i] < 0)
			return pp_errf(err, PP_EINPUT, "%s:1: header: no column \"%s\"; expected the "
				       "%s columns (docs/cluster.md)", file, cols[i], fmt);
	}
	return 0;
}

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
	    cm = pp_csv_col(c, "gpu_milli"), ck = pp_csv_col(c, "kind");
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
		if ((rc = cj_int(file, row, "gpus", pp_csv_get(c, i, idx[1]), 1, 10000000, &x->gpus,
				 err)) ||
		    (rc = cj_num(file, row, "submit_s", pp_csv_get(c, i, idx[2]), 0, 1e12,
				 &x->submit_s, err)))
			return rc;
		if (cq >= 0 && (v = pp_csv_get(c, i, cq))[0])
			x->queue = pp_cjobs_queue(j, v);
		if (cn >= 0 && (v = pp_csv_get(c, i, cn))[0] &&
		    (rc = cj_int(file, row, "nodes", v, 1, 1000000, &x->nodes, err)))
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

void pp_cjobs_write_csv(const pp_cjobs *j, pp_sb *out)
{
	static const char *const topo[] = {"", "none", "preferred", "required"};
	pp_csvw w;
	pp_csvw_init(&w, out);
	pp_csvw_header(&w, "job_id,queue,gpus,nodes,submit_s,duration_s,time_limit_s,scenario,"
			   "tokens,checkpoint_interval_s,checkpoint_bytes,async_checkpoint,priority,"
			   "spot,topology,gpu_milli,kind");
	for (int i = 0; i < j->n; i++) {
		const pp_cjob *x = &j->v[i];
		pp_csvw_text(&w, pp_cjobs_id(j, x));
		pp_csvw_text(&w, x->queue < j->nqueues ? j->queues[x->queue] : "");
		pp_csvw_int(&w, x->gpus);
		if (x->nodes)
			pp_csvw_int(&w, x->nodes);
		else
			pp_csvw_empty(&w);
		pp_csvw_num(&w, x->submit_s, 15);
		pp_csvw_num(&w, x->work_s, 15);
		pp_csvw_num(&w, x->limit_s, 15);
		pp_csvw_text(&w, x->scenario >= 0 ? j->scenarios[x->scenario] : "");
		if (x->scenario >= 0)
			pp_csvw_num(&w, x->tokens, 15);
		else
			pp_csvw_empty(&w);
		pp_csvw_num(&w, x->ckpt_interval_s, 15);
		pp_csvw_num(&w, x->ckpt_bytes, 15);
		pp_csvw_bool(&w, x->async_ckpt);
		pp_csvw_int(&w, x->priority);
		pp_csvw_bool(&w, x->spot);
		pp_csvw_text(&w, topo[x->topo < 4 ? x->topo : 0]);
		pp_csvw_int(&w, x->gpu_milli);
		pp_csvw_text(&w, pp_cjob_kind_names[x->kind < PP_CJK_COUNT ? x->kind : 0]);
		pp_csvw_end(&w);
	}
}
