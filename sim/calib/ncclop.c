/* ncclop.c - see ncclop.h. */
#include "calib/ncclop.h"
#include "core/util.h"

#include <math.h>
#include <string.h>

const char *const pp_nccl_ops[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast",
				   "reduce", "alltoall", "sendrecv", "gather", "scatter",
				   "hypercube"};
const size_t pp_nccl_nops = PP_ARRAY_LEN(pp_nccl_ops);

double pp_nccl_busbw_factor(const char *op, int nranks)
{
	double n = nranks > 0 ? nranks : 1;
	if (!strcmp(op, "all_reduce"))
		return 2.0 * (n - 1) / n;
	if (!strcmp(op, "all_gather") || !strcmp(op, "reduce_scatter") || !strcmp(op, "alltoall") ||
	    !strcmp(op, "gather") || !strcmp(op, "scatter"))
		return (n - 1) / n;
	return 1.0; /* broadcast, reduce, sendrecv, hypercube (its algbw counts n-1 blocks) */
}

bool pp_nccl_op_known(const char *op)
{
	for (size_t i = 0; i < pp_nccl_nops; i++)
		if (!strcmp(op, pp_nccl_ops[i]))
			return true;
	return false;
}


static int word_size(const char *type)
{
	static const struct {
		const char *name;
		int bytes;
	} t[] = {{"int8", 1}, {"uint8", 1}, {"char", 1}, {"f8e4m3", 1}, {"f8e5m2", 1},
		 {"half", 2}, {"float16", 2}, {"bfloat16", 2}, {"bf16", 2},
		 {"int32", 4}, {"uint32", 4}, {"int", 4}, {"float", 4}, {"float32", 4},
		 {"int64", 8}, {"uint64", 8}, {"double", 8}, {"float64", 8}};
	for (size_t i = 0; i < PP_ARRAY_LEN(t); i++)
		if (!strcmp(type, t[i].name))
			return t[i].bytes;
	return 0;
}

/* What the columns of row r allow of op over nranks, as nccl-tests prints
 * them (src/OP.cu, OPGetCollByteCount and the row's redop and root): a
 * reduction prints its redop, the others "none"; broadcast, reduce, gather
 * and scatter print their root, the others -1; all_gather, reduce_scatter,
 * alltoall, gather, scatter and hypercube print the per-rank count (size =
 * count x type size x nranks), the others the whole count. A log without
 * the redop or root column, or with an unknown type, constrains less. */
static bool columns_allow(const char *op, const pp_nccl_row *r, int nranks)
{
	bool op_reduces = !strcmp(op, "all_reduce") || !strcmp(op, "reduce_scatter") || !strcmp(op, "reduce");
	bool op_rooted = !strcmp(op, "broadcast") || !strcmp(op, "reduce") || !strcmp(op, "gather") ||
			 !strcmp(op, "scatter");
	bool op_per_rank = !strcmp(op, "all_gather") || !strcmp(op, "reduce_scatter") ||
			   !strcmp(op, "alltoall") || !strcmp(op, "gather") || !strcmp(op, "scatter") ||
			   !strcmp(op, "hypercube");
	if (r->redop[0] && op_reduces != (strcmp(r->redop, "none") != 0))
		return false;
	if (r->root_known && op_rooted != (r->root >= 0))
		return false;
	int ws = word_size(r->type);
	if (!ws)
		return true;
	/* size = count x ws [x nranks], by division: the product of a
	 * damaged row's count could overflow int64 */
	int64_t unit = (int64_t)ws * (op_per_rank && nranks > 1 ? nranks : 1);
	return r->size_bytes % unit == 0 && r->size_bytes / unit == r->count;
}

/* Half the last printed digit of a bandwidth: nccl-tests prints it six
 * wide with getFloatStr (src/util.cu), two decimals below 1000, one below
 * 10000, none above. */
static double half_digit(double v)
{
	v = fabs(v);
	return v < 1000 ? 0.005 : v < 10000 ? 0.05 : 0.5;
}

/* Whether a printed (algbw, busbw) pair tells the ratio: each to within
 * 0.5% by its printed rounding. A small message's "0.02 0.02" (either
 * could be 0.015 or 0.025) fits every factor or none by rounding alone:
 * judging it names collectives its ratio says nothing about. */
static bool judgeable(const pp_nccl_row *r, int g)
{
	double a = r->algbw_GBps[g], b = r->busbw_GBps[g];
	return r->has[g] && isfinite(a) && isfinite(b) && half_digit(a) <= 0.005 * fabs(a) &&
	       half_digit(b) <= 0.005 * fabs(b);
}

/* Whether every judgeable (algbw, busbw) pair of s fits busbw = algbw x f
 * within the printed rounding of both (true when none is judgeable: no
 * evidence against). The first pair that does not fit goes to *bad_row,
 * *bad_g. */
static bool ratio_fits(const pp_nccl_section *s, double f, const pp_nccl_row **bad_row, int *bad_g)
{
	for (size_t i = 0; i < s->nrows; i++)
		for (int g = 0; g < 2; g++) {
			const pp_nccl_row *r = &s->rows[i];
			if (!judgeable(r, g))
				continue;
			double tol = half_digit(r->busbw_GBps[g]) + f * half_digit(r->algbw_GBps[g]) + 1e-9;
			if (fabs(r->busbw_GBps[g] - f * r->algbw_GBps[g]) > tol) {
				if (bad_row) {
					*bad_row = r;
					*bad_g = g;
				}
				return false;
			}
		}
	return true;
}

/* The collectives in ops[] (n_ops of them) as "a, b or c" into buf. */
static void list_ops(const char *const *ops, int n_ops, char *buf, size_t n)
{
	buf[0] = '\0';
	for (int i = 0; i < n_ops; i++) {
		size_t l = strlen(buf);
		snprintf(buf + l, n - l, "%s%s", i == 0 ? "" : i + 1 == n_ops ? " or " : ", ", ops[i]);
	}
	if (!n_ops)
		snprintf(buf, n, "no nccl-tests collective");
}

/* "2(n-1)/n = 1.75" for op over n ranks. */
static void factor_text(const char *op, int nranks, char *buf, size_t n)
{
	double f = pp_nccl_busbw_factor(op, nranks);
	const char *form = !strcmp(op, "all_reduce") ? "2(n-1)/n" : f == 1.0 ? "1" : "(n-1)/n";
	if (!strcmp(form, "1"))
		snprintf(buf, n, "1");
	else
		snprintf(buf, n, "%s = %.4g", form, f);
}

/* Check the named collective (s->op, named by s->op_from) against the
 * busbw/algbw ratio of the rows; nccl-tests fixes the ratio per collective
 * (doc/PERFORMANCE.md, https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md). */
static int check_named(const char *name, const pp_nccl_section *s, pp_err *err)
{
	const pp_nccl_row *bad = NULL;
	int g = 0;
	if (ratio_fits(s, pp_nccl_busbw_factor(s->op, s->nranks), &bad, &g))
		return 0;
	const char *fit[16];
	int nfit = 0;
	for (size_t i = 0; i < pp_nccl_nops && nfit < 16; i++)
		if (ratio_fits(s, pp_nccl_busbw_factor(pp_nccl_ops[i], s->nranks), NULL, NULL))
			fit[nfit++] = pp_nccl_ops[i];
	char fits[256], ft[48], where[48] = "";
	list_ops(fit, nfit, fits, sizeof(fits));
	factor_text(s->op, s->nranks, ft, sizeof(ft));
	if (!strcmp(s->op_from, "log") && s->op_line > 0)
		snprintf(where, sizeof(where), " at line %d", s->op_line);
	return pp_errf(err, PP_EINPUT, "%s:%d: the %s%s names %s, whose busbw is algbw x %s on %d "
		       "ranks; found busbw/algbw %.2f/%.2f = %.4g (%s), which fits %s (nccl-tests "
		       "doc/PERFORMANCE.md); check the log, or name the collective with --op",
		       name, bad->line, !strcmp(s->op_from, "option") ? "--op option" : "log", where,
		       s->op, ft, s->nranks, bad->busbw_GBps[g], bad->algbw_GBps[g],
		       bad->busbw_GBps[g] / bad->algbw_GBps[g], g ? "in-place" : "out-of-place", fits);
}

/* No name: the collectives the columns allow, narrowed by the ratio. */
static int infer_op(const char *name, pp_nccl_section *s, pp_err *err)
{
	const char *col[16], *both[16];
	int ncol = 0, nboth = 0;
	for (size_t i = 0; i < pp_nccl_nops && ncol < 16; i++) {
		bool ok = true;
		for (size_t r = 0; r < s->nrows && ok; r++)
			ok = columns_allow(pp_nccl_ops[i], &s->rows[r], s->nranks);
		if (!ok)
			continue;
		col[ncol++] = pp_nccl_ops[i];
		if (ratio_fits(s, pp_nccl_busbw_factor(pp_nccl_ops[i], s->nranks), NULL, NULL))
			both[nboth++] = pp_nccl_ops[i];
	}
	char cl[256], bl[256];
	list_ops(col, ncol, cl, sizeof(cl));
	list_ops(both, nboth, bl, sizeof(bl));
	if (nboth == 1) {
		snprintf(s->op, sizeof(s->op), "%s", both[0]);
		snprintf(s->op_from, sizeof(s->op_from), "%s",
			 ncol == 1 ? "columns" : "busbw/algbw ratio and columns");
		return 0;
	}
	const char *hint = "name it with --op (one of all_reduce, all_gather, reduce_scatter, "
			   "broadcast, reduce, alltoall, sendrecv, gather, scatter, hypercube)";
	if (!ncol)
		return pp_errf(err, PP_EINPUT, "%s:%d: the log does not name its collective and its "
			       "columns (size, count, type, redop, root) fit no nccl-tests collective "
			       "over %d ranks; %s", name, s->rows[0].line, s->nranks, hint);
	if (!nboth)
		return pp_errf(err, PP_EINPUT, "%s:%d: the log does not name its collective; its "
			       "columns fit %s, but its busbw/algbw ratio fits none of them over %d "
			       "ranks (nccl-tests doc/PERFORMANCE.md); %s", name, s->rows[0].line, cl,
			       s->nranks, hint);
	return pp_errf(err, PP_EINPUT, "%s:%d: the log does not name its collective (no '# Collective "
		       "test starting' line) and its columns and busbw/algbw ratio over %d ranks fit "
		       "%s alike; %s", name, s->rows[0].line, s->nranks, bl, hint);
}

int pp_nccl_section_identify(const char *name, pp_nccl_section *s, pp_err *err)
{
	return s->op[0] ? check_named(name, s, err) : infer_op(name, s, err);
}
