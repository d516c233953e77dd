/* nccllog.c - see nccllog.h. */
#include "calib/ncclop.h"
#include "core/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOK 64

/* Copy s into d[n], cutting it short when it does not fit. */
static void cpy(char *d, size_t n, const char *s)
{
	size_t l = strlen(s);
	if (l >= n)
		l = n - 1;
	memcpy(d, s, l);
	d[l] = '\0';
}

/* Split s (modified) at white space into at most MAX_TOK tokens. */
static int tokenize(char *s, char **tok)
{
	int n = 0;
	char *save = NULL;
	for (char *t = strtok_r(s, " \t\r\n", &save); t && n < MAX_TOK; t = strtok_r(NULL, " \t\r\n", &save))
		tok[n++] = t;
	return n;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* The largest size or count a row may give: 2^53 bytes (8 PiB), exact in
 * a double; nccl-tests' own sizes stop at a few GiB. */
#define MAX_COUNT 9007199254740992LL

/* t as a whole number 0..max into *v: digits only, no sign, no overflow. */
static bool parse_count(const char *t, long long max, long long *v)
{
	if (!all_digits(t))
		return false;
	errno = 0;
	long long x = strtoll(t, NULL, 10);
	if (errno || x > max)
		return false;
	*v = x;
	return true;
}

/* Column layout read from the header line. */
enum { COL_TIME, COL_ALGBW, COL_BUSBW, COL_WRONG, COL_ERROR, COL_OTHER };
typedef struct layout {
	int nbase;          /* size count type [redop] [root] */
	int redop_at, root_at; /* their positions, -1 when absent (old logs) */
	int ngroups;        /* 1 or 2 */
	int group_w[2];
	int kind[2][16];    /* COL_* per column of a group */
	int first_group;    /* 0 when group 0 is out-of-place, 1 when the only group is in-place */
	int trailing;       /* timestamp tokens after the groups (0 or 2) */
	bool valid;
} layout;

static int parse_header(char *line, const char *label_line, layout *L)
{
	char *tok[MAX_TOK];
	int n = tokenize(line + 1, tok), i = 0;
	memset(L, 0, sizeof(*L));
	static const char *const base[] = {"size", "count", "type"};
	for (i = 0; i < 3; i++)
		if (i >= n || strcmp(tok[i], base[i]))
			return -1;
	L->redop_at = L->root_at = -1;
	for (; i < n && (!strcmp(tok[i], "redop") || !strcmp(tok[i], "root")); i++)
		*(!strcmp(tok[i], "redop") ? &L->redop_at : &L->root_at) = i;
	L->nbase = i;
	while (i < n) {
		if (!strcmp(tok[i], "time") || !strcmp(tok[i], "cputime")) {
			if (L->ngroups == 2)
				return -1;
			L->ngroups++;
		} else if (!strcmp(tok[i], "timestamp")) {
			L->trailing = 2; /* "YYYY-MM-DD HH:MM:SS" */
			i++;
			continue;
		} else if (L->ngroups == 0) {
			return -1;
		}
		int g = L->ngroups - 1, c = L->group_w[g]++;
		if (c >= 16)
			return -1;
		L->kind[g][c] = !strcmp(tok[i], "time") || !strcmp(tok[i], "cputime") ? COL_TIME :
				!strcmp(tok[i], "algbw") ? COL_ALGBW :
				!strcmp(tok[i], "busbw") ? COL_BUSBW :
				!strcmp(tok[i], "#wrong") ? COL_WRONG :
				!strcmp(tok[i], "error") ? COL_ERROR : COL_OTHER;
		i++;
	}
	if (L->ngroups == 0)
		return -1;
	L->first_group = 0;
	if (L->ngroups == 1 && label_line && strstr(label_line, "in-place") &&
	    !strstr(label_line, "out-of-place"))
		L->first_group = 1;
	L->valid = true;
	return 0;
}

static void section_init(pp_nccl_section *s, int line)
{
	memset(s, 0, sizeof(*s));
	s->line = line;
	s->avg_busbw_GBps = NAN;
	s->out_of_bounds = PP_CALIB_NULL;
}

/* "#  Rank  3 Group  0 Pid  1234 on   node01 device  3 [0000:18:00] NVIDIA H100 80GB HBM3"
 * (older logs have no Group, and "[0x18]"). Adds the rank and host. */
typedef struct rankset {
	int ranks[4096];
	int n;
} rankset;

static int parse_rank_line(const char *line, pp_nccl_section *s, rankset *rs)
{
	char buf[1024], *tok[MAX_TOK];
	snprintf(buf, sizeof(buf), "%s", line + 1);
	int n = tokenize(buf, tok), rank = -1;
	const char *host = NULL;
	for (int i = 0; i + 1 < n; i++) {
		long long v;
		if (!strcmp(tok[i], "Rank") && parse_count(tok[i + 1], 0x7fffffff, &v))
			rank = (int)v;
		else if (!strcmp(tok[i], "on"))
			host = tok[i + 1];
	}
	if (rank < 0 || !host)
		return -1;
	bool seen = false;
	for (int i = 0; i < rs->n; i++)
		seen |= rs->ranks[i] == rank;
	if (!seen && rs->n < (int)PP_ARRAY_LEN(rs->ranks))
		rs->ranks[rs->n++] = rank;
	s->nranks = rs->n;
	/* hosts: a comma-separated set */
	char pat[300];
	snprintf(pat, sizeof(pat), ",%s,", host);
	char have[300];
	snprintf(have, sizeof(have), ",%s,", s->hosts);
	if (!strstr(have, pat)) {
		size_t l = strlen(s->hosts);
		if (l + strlen(host) + 2 < sizeof(s->hosts))
			snprintf(s->hosts + l, sizeof(s->hosts) - l, "%s%s", l ? "," : "", host);
		s->nhosts++;
	}
	const char *br = strchr(line, ']');
	if (br && !s->gpu_name[0]) {
		br++;
		while (*br == ' ')
			br++;
		snprintf(s->gpu_name, sizeof(s->gpu_name), "%s", br);
		size_t l = strlen(s->gpu_name);
		while (l && isspace((unsigned char)s->gpu_name[l - 1]))
			s->gpu_name[--l] = '\0';
	}
	return 0;
}

static bool parse_num(const char *t, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(t, &end);
	return end != t && !*end && errno == 0 && isfinite(*v);
}

static int parse_row(const char *name, int lineno, char *line, const layout *L, pp_nccl_row *r,
		     pp_err *err)
{
	char *tok[MAX_TOK];
	int n = tokenize(line, tok);
	memset(r, 0, sizeof(*r));
	r->line = lineno;
	r->root = -1;
	for (int g = 0; g < 2; g++) {
		r->wrong[g] = PP_CALIB_NULL;
		r->time_us[g] = r->algbw_GBps[g] = r->busbw_GBps[g] = r->max_error[g] = NAN;
	}
	int full = L->nbase + L->group_w[0] + (L->ngroups > 1 ? L->group_w[1] : 0);
	int groups_present = L->ngroups, skip_first = 0;
	if (n == full + L->trailing || n == full) {
		/* every group present */
	} else if (L->ngroups == 2 && (n == full - L->group_w[0] || n == full - L->group_w[0] + L->trailing)) {
		groups_present = 1; /* out-of-place left out (nccl-tests prints blanks) */
		skip_first = 1;
	} else {
		return pp_errf(err, PP_EINPUT, "%s:%d: a result row with %d fields; the header above "
			       "it has %d", name, lineno, n, full);
	}
	long long size, count;
	if (!parse_count(tok[0], MAX_COUNT, &size) || !parse_count(tok[1], MAX_COUNT, &count))
		return pp_errf(err, PP_EINPUT, "%s:%d: size and count must be whole numbers up to "
			       "2^53, found '%s' '%s'", name, lineno, tok[0], tok[1]);
	r->size_bytes = size;
	r->count = count;
	cpy(r->type, sizeof(r->type), tok[2]);
	cpy(r->redop, sizeof(r->redop), L->redop_at >= 0 ? tok[L->redop_at] : "");
	r->root_known = L->root_at >= 0;
	if (L->root_at >= 0) {
		const char *rt = tok[L->root_at];
		long long v;
		if (!strcmp(rt, "-1"))
			r->root = -1;
		else if (parse_count(rt, 0x7fffffff, &v))
			r->root = (int)v;
		else
			return pp_errf(err, PP_EINPUT, "%s:%d: found root '%s', expected a rank or -1",
				       name, lineno, rt);
	}
	int t = L->nbase;
	for (int g = skip_first; g < skip_first + groups_present; g++) {
		int slot = L->ngroups == 1 ? L->first_group : g;
		r->has[slot] = true;
		for (int c = 0; c < L->group_w[g]; c++, t++) {
			double v = NAN;
			bool na = !strcmp(tok[t], "N/A");
			if (!na && !parse_num(tok[t], &v))
				return pp_errf(err, PP_EINPUT, "%s:%d: field %d: found '%s', expected a "
					       "number", name, lineno, t + 1, tok[t]);
			switch (L->kind[g][c]) {
			case COL_TIME: r->time_us[slot] = v; break;
			case COL_ALGBW: r->algbw_GBps[slot] = v; break;
			case COL_BUSBW: r->busbw_GBps[slot] = v; break;
			case COL_WRONG:
				/* a count of wrong elements: whole, not negative, and
				 * small enough for int64 (1e30 is a damaged log) */
				if (!na && !(v >= 0 && v <= (double)MAX_COUNT && v == floor(v)))
					return pp_errf(err, PP_EINPUT, "%s:%d: field %d: found '%s', expected "
						       "the number of wrong elements (a whole number) or "
						       "N/A", name, lineno, t + 1, tok[t]);
				r->wrong[slot] = na ? PP_CALIB_NULL : (int64_t)v;
				break;
			case COL_ERROR: r->max_error[slot] = v; break;
			default: break;
			}
		}
		if (!isfinite(r->time_us[slot]) || r->time_us[slot] <= 0)
			return pp_errf(err, PP_EINPUT, "%s:%d: found time '%s', expected a positive "
				       "number of microseconds", name, lineno, tok[t - L->group_w[g]]);
	}
	return 0;
}

static void trim_copy(char *dst, size_t n, const char *src)
{
	while (*src == '#' || *src == ' ')
		src++;
	cpy(dst, n, src);
	size_t l = strlen(dst);
	while (l && isspace((unsigned char)dst[l - 1]))
		dst[--l] = '\0';
}

static int finish_section(const char *name, pp_nccl_section *s, const pp_ncclimport_opts *o,
			  pp_nccl_log *log, pp_err *err)
{
	if (o && o->nranks > 0)
		s->nranks = o->nranks;
	if (s->nrows == 0)
		return 0;
	if (s->nranks <= 0)
		return pp_errf(err, PP_EINPUT, "%s:%d: no '# Using devices' rank list before the "
			       "results, so the number of ranks is unknown; pass --nranks N",
			       name, s->line);
	int rc = 0;
	if (o && o->op) {
		snprintf(s->op, sizeof(s->op), "%s", o->op);
		snprintf(s->op_from, sizeof(s->op_from), "option");
	}
	if ((rc = pp_nccl_section_identify(name, s, err)))
		return rc;
	/* Wrong elements: NCCL delivered results that differ from the
	 * expected ones (nccl-tests' check, src/common.cu). The rows are
	 * kept as evidence, loudly: their machine is faulty. */
	int64_t wrong = 0;
	int nwrong = 0;
	const pp_nccl_row *first = NULL;
	int first_g = 0;
	for (size_t i = 0; i < s->nrows; i++)
		for (int g = 0; g < 2; g++)
			if (s->rows[i].has[g] && s->rows[i].wrong[g] != PP_CALIB_NULL &&
			    s->rows[i].wrong[g] > 0) {
				if (!first) {
					first = &s->rows[i];
					first_g = g;
				}
				nwrong++;
				wrong += s->rows[i].wrong[g];
			}
	if (first) {
		size_t l = strlen(log->warnings);
		snprintf(log->warnings + l, sizeof(log->warnings) - l,
			 "%s%s:%d: %d result%s of %s report%s wrong elements (%lld in all; the first "
			 "%lld at %lld bytes %s): NCCL delivered wrong data, a faulty GPU, NVLink, "
			 "NIC or driver; the rows are stored, 'podplan calib verdict' judges them "
			 "WRONG and 'podplan fit' refuses the run", l ? "; " : "", name, first->line,
			 nwrong, nwrong == 1 ? "" : "s", s->op, nwrong == 1 ? "s" : "",
			 (long long)wrong, (long long)first->wrong[first_g],
			 (long long)first->size_bytes, first_g ? "in-place" : "out-of-place");
	}
	if (s->out_of_bounds != PP_CALIB_NULL && s->out_of_bounds > 0) {
		size_t l = strlen(log->warnings);
		snprintf(log->warnings + l, sizeof(log->warnings) - l,
			 "%s%s:%d: the footer counts %lld out-of-bounds values: results outside "
			 "nccl-tests' tolerance", l ? "; " : "", name, s->line,
			 (long long)s->out_of_bounds);
	}
	/* nccl-tests' footer is the mean busbw over every printed result. */
	if (isfinite(s->avg_busbw_GBps)) {
		double sum = 0;
		int cnt = 0;
		for (size_t i = 0; i < s->nrows; i++)
			for (int g = 0; g < 2; g++)
				if (s->rows[i].has[g]) {
					sum += s->rows[i].busbw_GBps[g];
					cnt++;
				}
		double mean = cnt ? sum / cnt : 0;
		/* the rows carry two decimals: allow their rounding */
		if (fabs(mean - s->avg_busbw_GBps) > 0.005 + 1e-3 * s->avg_busbw_GBps) {
			size_t l = strlen(log->warnings);
			snprintf(log->warnings + l, sizeof(log->warnings) - l,
				 "%s%s:%d: the footer's average bus bandwidth %.4g GB/s differs from the "
				 "rows' mean %.4g GB/s (truncated or edited log?)", l ? "; " : "", name,
				 s->line, s->avg_busbw_GBps, mean);
		}
	}
	return 0;
}

void pp_nccl_log_release(pp_nccl_log *log)
{
	for (size_t i = 0; i < log->nsections; i++)
		free(log->sections[i].rows);
	free(log->sections);
	memset(log, 0, sizeof(*log));
}

/* A new section takes the collective and NCCL version printed above its
 * "# nThread" line (pend_op, pend_ver), which are then consumed. */
static pp_nccl_section *new_section(pp_nccl_log *log, int line, char *pend_op, int *pend_op_line,
				    char *pend_ver)
{
	log->sections = pp_xrealloc(log->sections, (log->nsections + 1) * sizeof(*log->sections));
	pp_nccl_section *s = &log->sections[log->nsections++];
	section_init(s, line);
	if (pend_op[0]) {
		snprintf(s->op, sizeof(s->op), "%s", pend_op);
		snprintf(s->op_from, sizeof(s->op_from), "log");
		s->op_line = *pend_op_line;
	}
	*pend_op_line = 0;
	snprintf(s->nccl_version, sizeof(s->nccl_version), "%s", pend_ver);
	pend_op[0] = pend_ver[0] = '\0';
	return s;
}

int pp_nccl_log_parse(const char *name, const char *text, const pp_ncclimport_opts *opts,
		      pp_nccl_log *out, pp_err *err)
{
	int rc = 0, lineno = 0, pend_op_line = 0;
	size_t cap = 0, total_rows = 0;
	char label[1024] = "", prev[1024] = "", pend_op[32] = "", pend_ver[32] = "";
	layout L = {0};
	rankset *rs = pp_xcalloc(1, sizeof(*rs));
	pp_nccl_section *s = NULL;
	memset(out, 0, sizeof(*out));
	if (opts && opts->op && !pp_nccl_op_known(opts->op)) {
		const char *dym = pp_did_you_mean(opts->op, pp_nccl_ops, pp_nccl_nops);
		rc = pp_errf(err, PP_EINPUT, "--op: unknown collective '%s'%s%s%s", opts->op,
			     dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
		goto out;
	}
	for (const char *p = text; *p && !rc;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[1024];
		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1), p);
		p = nl ? nl + 1 : p + len;
		lineno++;
		const char *q = line;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == '#') {
			char tmp[1024], *tok[MAX_TOK];
			snprintf(tmp, sizeof(tmp), "%s", q + 1);
			int n = tokenize(tmp, tok);
			if (n >= 2 && !strcmp(tok[0], "nThread")) {
				if (s)
					rc = finish_section(name, s, opts, out, err);
				if (rc)
					break;
				s = new_section(out, lineno, pend_op, &pend_op_line, pend_ver);
				cap = 0;
				rs->n = 0;
				L.valid = false;
				trim_copy(s->params, sizeof(s->params), q);
				for (int i = 1; i + 1 < n; i++) {
					long long it;
					if (!strcmp(tok[i], "iters:") && strcmp(tok[i - 1], "warmup") &&
					    strcmp(tok[i - 1], "agg") && parse_count(tok[i + 1], 0x7fffffff, &it))
						s->iters = (int)it;
				}
			} else if (n >= 3 && !strcmp(tok[0], "nccl-tests") && !strcmp(tok[1], "version")) {
				for (int i = 2; i < n; i++)
					if (!strncmp(tok[i], "nccl-library=", 13))
						snprintf(pend_ver, sizeof(pend_ver), "%s", tok[i] + 13);
			} else if (n >= 4 && !strcmp(tok[0], "Collective") && !strcmp(tok[2], "starting:")) {
				/* printed before "# nThread": applies to the next section */
				char opname[64];
				const char *b = strrchr(tok[3], '/');
				snprintf(opname, sizeof(opname), "%s", b ? b + 1 : tok[3]);
				char *suf = strstr(opname, "_perf");
				if (suf)
					*suf = '\0';
				if (!pp_nccl_op_known(opname)) {
					rc = pp_errf(err, PP_EINPUT, "%s:%d: the log names the program '%s', "
						     "expected one of nccl-tests' all_reduce, all_gather, "
						     "reduce_scatter, broadcast, reduce, alltoall, sendrecv, "
						     "gather, scatter or hypercube _perf", name, lineno,
						     pp_tty(tok[3]));
					break;
				}
				cpy(pend_op, sizeof(pend_op), opname);
				pend_op_line = lineno;
			} else if (n >= 2 && !strcmp(tok[0], "Rank")) {
				if (!s)
					s = new_section(out, lineno, pend_op, &pend_op_line, pend_ver);
				if (parse_rank_line(q, s, rs))
					rc = pp_errf(err, PP_EINPUT, "%s:%d: a device line without 'Rank N' "
						     "and 'on HOST'", name, lineno);
			} else if (n >= 4 && !strcmp(tok[0], "size") && !strcmp(tok[1], "count")) {
				snprintf(label, sizeof(label), "%s", prev);
				char h[1024];
				snprintf(h, sizeof(h), "%s", q);
				if (parse_header(h, label, &L))
					rc = pp_errf(err, PP_EINPUT, "%s:%d: a results header this importer "
						     "does not know (expected 'size count type [redop] "
						     "[root] time algbw busbw #wrong ...')", name, lineno);
				if (!s)
					s = new_section(out, lineno, pend_op, &pend_op_line, pend_ver);
			} else if (s && n >= 5 && !strcmp(tok[0], "Avg") && !strcmp(tok[1], "bus")) {
				double v;
				if (parse_num(tok[4], &v))
					s->avg_busbw_GBps = v;
			} else if (s && n >= 6 && !strcmp(tok[0], "Out") && !strcmp(tok[2], "bounds")) {
				long long oob;
				if (parse_count(tok[5], MAX_COUNT, &oob))
					s->out_of_bounds = oob;
			}
			snprintf(prev, sizeof(prev), "%s", q);
			continue;
		}
		char tmp[1024], *tok[MAX_TOK];
		snprintf(tmp, sizeof(tmp), "%s", q);
		int n = tokenize(tmp, tok);
		if (n == 0 || !all_digits(tok[0]))
			continue; /* NCCL INFO lines, blank lines, program chatter */
		if (!s || !L.valid) {
			rc = pp_errf(err, PP_EINPUT, "%s:%d: a result row before any column header "
				     "('#  size  count  type ...')", name, lineno);
			break;
		}
		if (++total_rows > PP_NCCL_MAX_ROWS) {
			rc = pp_errf(err, PP_EINPUT, "%s:%d: found more than %d result rows; expected at "
				     "most %d (every collective at every size on thousands of ranks is a "
				     "few thousand)", name, lineno, PP_NCCL_MAX_ROWS, PP_NCCL_MAX_ROWS);
			break;
		}
		if (s->nrows == cap) {
			cap = cap ? 2 * cap : 64;
			s->rows = pp_xrealloc(s->rows, cap * sizeof(*s->rows));
		}
		char row[1024];
		snprintf(row, sizeof(row), "%s", q);
		if ((rc = parse_row(name, lineno, row, &L, &s->rows[s->nrows], err)))
			break;
		s->nrows++;
	}
	if (!rc && s)
		rc = finish_section(name, s, opts, out, err);
	if (!rc) {
		size_t rows = 0;
		for (size_t i = 0; i < out->nsections; i++)
			rows += out->sections[i].nrows;
		if (!rows)
			rc = pp_errf(err, PP_EINPUT, "%s: no nccl-tests result rows found (expected "
				     "lines like '  1048576  262144  float  sum  -1  ...')", name);
	}
out:
	free(rs);
	if (rc)
		pp_nccl_log_release(out);
	return rc;
}
