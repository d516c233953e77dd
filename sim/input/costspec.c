/* costspec.c - see costspec.h. */
#include "input/costspec.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_work_type_names[PP_WORK_COUNT] = {"run", "recurring", "capacity", "inference"};

static const char *const top_keys[] = {"description", "work", "horizon_months", "as_of", "finance",
				       "goodput", "build", "rent", "uncertainty", "options"};
static const char *const work_keys[] = {"type", "train_tokens", "runs", "tokens_per_job",
					"jobs_per_month", "utilization", "gpu_hours_per_month",
					"tokens_per_month", "output_fraction", "input_tokens_per_month",
					"output_tokens_per_month", "peak_to_average", "method"};
static const char *const finance_keys[] = {"discount_rate", "depreciation_years", "salvage_fraction",
					   "utilization", "residual", "utilization_from"};
static const char *const goodput_keys[] = {"enabled", "failures_per_gpu_hour", "restart_s",
					   "checkpoint_interval_s", "checkpoint_write_s",
					   "job_setup_s"};
static const char *const build_keys[] = {"facility", "pue", "electricity_usd_per_kwh",
					 "colocation_usd_per_kw_month", "support_fraction_per_year",
					 "software_usd_per_gpu_year", "staff_usd_per_fte_year",
					 "lead_time_months", "storage_tb", "integration_fraction",
					 "resale_haircut"};
static const char *const rent_keys[] = {"storage_usd_per_tb_month"};
static const char *const unc_keys[] = {"draws", "seed", "step_time_sigma", "price_sigma"};
static int num(const pp_jdoc *d, const cJSON *o, const char *p, const char *k, double lo, double hi,
	       double *out, pp_err *err)
{
	return pp_jget_num(d, o, p, k, false, lo, hi, out, NULL, err);
}

/* ---- the sections of "costs" ---- */

/* Not given: NAN, "take the catalog's"; counts and enums -1 or their default. */
void pp_costspec_defaults(pp_costspec *cs)
{
	cs->train_tokens = cs->tokens_per_job = cs->jobs_per_month = NAN;
	cs->utilization = cs->gpu_hours_per_month = cs->tokens_per_month = NAN;
	cs->output_fraction = cs->horizon_months = NAN;
	cs->input_tokens_per_month = cs->output_tokens_per_month = cs->peak_to_average = NAN;
	cs->runs = 1;
	cs->discount_rate = cs->depreciation_years = cs->salvage_fraction = NAN;
	cs->fleet_utilization = NAN;
	cs->residual = -1;
	cs->goodput = true;
	cs->failures_per_gpu_hour = cs->restart_s = cs->checkpoint_interval_s = NAN;
	cs->checkpoint_write_s = cs->job_setup_s = NAN;
	cs->facility = -1;
	cs->pue = cs->usd_per_kwh = cs->colo_usd_per_kw_month = cs->support_fraction = NAN;
	cs->software_usd_per_gpu_year = cs->staff_usd_per_fte_year = cs->lead_time_months = NAN;
	cs->storage_tb = cs->integration_fraction = cs->resale_haircut = NAN;
	cs->storage_usd_per_tb_month = NAN;
	cs->draws = -1;
	cs->step_time_sigma = cs->price_sigma = NAN;
	cs->method = PP_FT_FULL;
}

/* Exactly YYYY-MM-DD, a day the calendar has (Gregorian leap years): the
 * date is printed as it is in the report's HTML and Markdown and read by
 * the cost engine as year and month, so nothing may follow it (sscanf's
 * "%4d-%2d-%2d" let "2026-1-1<b>" through). */
static bool is_date(const char *t)
{
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (strlen(t) != 10 || t[4] != '-' || t[7] != '-')
		return false;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && (t[i] < '0' || t[i] > '9'))
			return false;
	int y = atoi(t), m = atoi(t + 5), dd = atoi(t + 8);
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return y >= 1970 && m >= 1 && m <= 12 && dd >= 1 && dd <= mdays[m - 1] &&
	       !(m == 2 && dd == 29 && !leap);
}

/* The keys of "costs" itself, horizon_months and as_of. */
static int parse_top(pp_costspec *cs, const pp_jdoc *d, const cJSON *obj, const char *path,
		     pp_err *err)
{
	int rc;
	char p[96];
	bool present;
	if ((rc = pp_jcheck_keys(d, obj, path, top_keys, PP_ARRAY_LEN(top_keys), err)) ||
	    (rc = num(d, obj, path, "horizon_months", 1, 240, &cs->horizon_months, err)) ||
	    (rc = pp_jget_str(d, obj, path, "as_of", false, cs->as_of, sizeof(cs->as_of), &present,
			      err)))
		return rc;
	if (present && !is_date(cs->as_of))
		return pp_jdoc_errf(d, err, pp_jpath(p, sizeof(p), path, "as_of"),
				    "found \"%s\", expected a date YYYY-MM-DD", cs->as_of);
	return 0;
}

/* "work" at JSON path p: each type's required keys, and no keys of
 * another type; an inference work's volume as input and output tokens a
 * month (derived from tokens_per_month and output_fraction when given
 * so). */
/* costs.finance.utilization_from given (parsed after the work) */
static bool has_utilization_from(const pp_jdoc *d)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(d->root, "costs");
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(c, "finance");
	return cJSON_GetObjectItemCaseSensitive(f, "utilization_from") != NULL;
}

/* rel against the folder of the file doc */
static void resolve_path(char *out, size_t n, const char *doc, const char *rel)
{
	const char *slash = strrchr(doc, '/');
	if (rel[0] == '/' || !slash)
		snprintf(out, n, "%s", rel);
	else
		snprintf(out, n, "%.*s/%s", (int)(slash - doc), doc, rel);
}

/* finance.utilization_from: {"cluster": SPEC.json, "jobs": JOBS}, each
 * relative to the scenario's folder (podplan cluster, docs/cluster.md) */
static int parse_utilization_from(pp_costspec *cs, const pp_jdoc *d, const cJSON *fin,
				  const char *fp, pp_err *err)
{
	static const char *const keys[] = {"cluster", "jobs"};
	const cJSON *o;
	char p[128], a[512], b[512];
	int rc;
	if ((rc = pp_jget_obj(d, fin, fp, "utilization_from", false, &o, err)) || !o)
		return rc;
	pp_jpath(p, sizeof(p), fp, "utilization_from");
	if ((rc = pp_jcheck_keys(d, o, p, keys, PP_ARRAY_LEN(keys), err)) ||
	    (rc = pp_jget_str(d, o, p, "cluster", true, a, sizeof(a), NULL, err)) ||
	    (rc = pp_jget_str(d, o, p, "jobs", true, b, sizeof(b), NULL, err)))
		return rc;
	if (!isnan(cs->fleet_utilization))
		return pp_jdoc_errf(d, err, p, "found beside finance.utilization; expected one: a "
				    "constant or a cluster simulation");
	resolve_path(cs->utilization_cluster, sizeof(cs->utilization_cluster), d->path, a);
	resolve_path(cs->utilization_jobs, sizeof(cs->utilization_jobs), d->path, b);
	return 0;
}

static int check_work(pp_costspec *cs, const pp_jdoc *d, const cJSON *o, const char *p,
		      pp_err *err)
{
	static const char *const need[PP_WORK_COUNT][2] = {
		{NULL, NULL},
		{"tokens_per_job", "jobs_per_month"},
		{NULL, NULL},
		{NULL, NULL}};
	for (int i = 0; i < 2; i++)
		if (need[cs->work][i] && !cJSON_GetObjectItemCaseSensitive(o, need[cs->work][i]))
			return pp_jdoc_errf(d, err, p, "a \"%s\" work needs \"%s\"",
					    pp_work_type_names[cs->work], need[cs->work][i]);
	static const char *const owner[][2] = {
		{"train_tokens", "run"}, {"runs", "run"},
		{"tokens_per_job", "recurring"}, {"jobs_per_month", "recurring"},
		{"utilization", "capacity"}, {"gpu_hours_per_month", "capacity"},
		{"tokens_per_month", "inference"}, {"output_fraction", "inference"},
		{"input_tokens_per_month", "inference"}, {"output_tokens_per_month", "inference"},
		{"peak_to_average", "inference"}};
	for (size_t i = 0; i < PP_ARRAY_LEN(owner); i++)
		if (cJSON_GetObjectItemCaseSensitive(o, owner[i][0]) &&
		    strcmp(owner[i][1], pp_work_type_names[cs->work])) {
			char q[128];
			return pp_jdoc_errf(d, err, pp_jpath(q, sizeof(q), p, owner[i][0]),
					    "found in a \"%s\" work; expected only in a \"%s\" "
					    "work", pp_work_type_names[cs->work], owner[i][1]);
		}
	if (cs->work == PP_WORK_INFERENCE) {
		/* the volume: input and output tokens a month, or the total and
		 * the output's share of it */
		bool split = !isnan(cs->input_tokens_per_month) || !isnan(cs->output_tokens_per_month);
		bool total = !isnan(cs->tokens_per_month);
		char q[128];
		if (split && total)
			return pp_jdoc_errf(d, err, pp_jpath(q, sizeof(q), p, "tokens_per_month"),
					    "found beside input_tokens_per_month / "
					    "output_tokens_per_month; expected one way of giving the "
					    "volume");
		if (!split && !total)
			return pp_jdoc_errf(d, err, p, "an \"inference\" work needs "
					    "\"input_tokens_per_month\" and \"output_tokens_per_month\" "
					    "(or \"tokens_per_month\" with \"output_fraction\")");
		if (split && (isnan(cs->input_tokens_per_month) || isnan(cs->output_tokens_per_month)))
			return pp_jdoc_errf(d, err, p, "found %s without %s; expected both (tokens a "
					    "month; 0 for none)",
					    isnan(cs->input_tokens_per_month) ? "output_tokens_per_month"
									      : "input_tokens_per_month",
					    isnan(cs->input_tokens_per_month) ? "input_tokens_per_month"
									      : "output_tokens_per_month");
		if (split && !isnan(cs->output_fraction))
			return pp_jdoc_errf(d, err, pp_jpath(q, sizeof(q), p, "output_fraction"),
					    "found beside input_tokens_per_month and "
					    "output_tokens_per_month, which give the split; expected it "
					    "only with tokens_per_month");
		if (split && cs->input_tokens_per_month + cs->output_tokens_per_month <= 0)
			return pp_jdoc_errf(d, err, p, "found no tokens (input and output 0); expected "
					    "a volume to serve");
		if (total) {
			double f = isnan(cs->output_fraction) ? 0.5 : cs->output_fraction;
			cs->input_tokens_per_month = cs->tokens_per_month * (1 - f);
			cs->output_tokens_per_month = cs->tokens_per_month * f;
		}
		cs->tokens_per_month = cs->input_tokens_per_month + cs->output_tokens_per_month;
	}
	if (cs->work == PP_WORK_CAPACITY && isnan(cs->utilization) && isnan(cs->gpu_hours_per_month) &&
	    !has_utilization_from(d))
		return pp_jdoc_errf(d, err, p, "a \"capacity\" work needs \"utilization\" (busy "
				    "share of the scenario's cluster) or \"gpu_hours_per_month\"");
	if (cs->work == PP_WORK_CAPACITY && !isnan(cs->utilization) &&
	    !isnan(cs->gpu_hours_per_month))
		return pp_jdoc_errf(d, err, p, "found both utilization and gpu_hours_per_month; "
				    "expected one of them");
	return 0;
}

static int parse_work(pp_costspec *cs, const pp_jdoc *d, const cJSON *obj, const char *path,
		      pp_err *err)
{
	const cJSON *o;
	char p[96];
	int rc, e;
	bool present;
	if ((rc = pp_jget_obj(d, obj, path, "work", false, &o, err)) || !o)
		return rc;
	pp_jpath(p, sizeof(p), path, "work");
	if ((rc = pp_jcheck_keys(d, o, p, work_keys, PP_ARRAY_LEN(work_keys), err)) ||
	    (rc = pp_jget_enum(d, o, p, "type", true, pp_work_type_names, PP_WORK_COUNT, &e, NULL,
			       err)))
		return rc;
	cs->work = (pp_work_type)e;
	if ((rc = num(d, o, p, "train_tokens", 1, 1e18, &cs->train_tokens, err)) ||
	    (rc = num(d, o, p, "runs", 1, 1e6, &cs->runs, err)) ||
	    (rc = num(d, o, p, "tokens_per_job", 1, 1e18, &cs->tokens_per_job, err)) ||
	    (rc = num(d, o, p, "jobs_per_month", 1e-3, 1e6, &cs->jobs_per_month, err)) ||
	    (rc = num(d, o, p, "utilization", 1e-3, 1, &cs->utilization, err)) ||
	    (rc = num(d, o, p, "gpu_hours_per_month", 1e-3, 1e12, &cs->gpu_hours_per_month, err)) ||
	    (rc = num(d, o, p, "tokens_per_month", 1, 1e20, &cs->tokens_per_month, err)) ||
	    (rc = num(d, o, p, "output_fraction", 0, 1, &cs->output_fraction, err)) ||
	    (rc = num(d, o, p, "input_tokens_per_month", 0, 1e20, &cs->input_tokens_per_month,
		      err)) ||
	    (rc = num(d, o, p, "output_tokens_per_month", 0, 1e20, &cs->output_tokens_per_month,
		      err)) ||
	    (rc = num(d, o, p, "peak_to_average", 1, 100, &cs->peak_to_average, err)) ||
	    (rc = pp_jget_enum(d, o, p, "method", false, pp_ft_method_names, PP_FT_COUNT, &e,
			       &present, err)))
		return rc;
	if (present)
		cs->method = (pp_ft_method)e;
	return check_work(cs, d, o, p, err);
}

static int parse_finance(pp_costspec *cs, const pp_jdoc *d, const cJSON *obj, const char *path,
			 pp_err *err)
{
	static const char *const resid[] = {"market", "book"};
	const cJSON *o;
	char p[96];
	int rc, e;
	bool present;
	if ((rc = pp_jget_obj(d, obj, path, "finance", false, &o, err)) || !o)
		return rc;
	pp_jpath(p, sizeof(p), path, "finance");
	if ((rc = pp_jcheck_keys(d, o, p, finance_keys, PP_ARRAY_LEN(finance_keys), err)) ||
	    (rc = num(d, o, p, "discount_rate", 0, 1, &cs->discount_rate, err)) ||
	    (rc = num(d, o, p, "depreciation_years", 1, 20, &cs->depreciation_years, err)) ||
	    (rc = num(d, o, p, "salvage_fraction", 0, 1, &cs->salvage_fraction, err)) ||
	    (rc = num(d, o, p, "utilization", 0.01, 1, &cs->fleet_utilization, err)) ||
	    (rc = pp_jget_enum(d, o, p, "residual", false, resid, 2, &e, &present, err)) ||
	    (rc = parse_utilization_from(cs, d, o, p, err)))
		return rc;
	if (present)
		cs->residual = e;
	return 0;
}

static int parse_goodput(pp_costspec *cs, const pp_jdoc *d, const cJSON *obj, const char *path,
			 pp_err *err)
{
	const cJSON *o;
	char p[96];
	int rc;
	if ((rc = pp_jget_obj(d, obj, path, "goodput", false, &o, err)) || !o)
		return rc;
	pp_jpath(p, sizeof(p), path, "goodput");
	if ((rc = pp_jcheck_keys(d, o, p, goodput_keys, PP_ARRAY_LEN(goodput_keys), err)) ||
	    (rc = pp_jget_bool(d, o, p, "enabled", false, &cs->goodput, NULL, err)) ||
	    (rc = num(d, o, p, "failures_per_gpu_hour", 0, 1, &cs->failures_per_gpu_hour, err)) ||
	    (rc = num(d, o, p, "restart_s", 0, 1e6, &cs->restart_s, err)) ||
	    (rc = num(d, o, p, "checkpoint_interval_s", 1, 1e7, &cs->checkpoint_interval_s, err)) ||
	    (rc = num(d, o, p, "checkpoint_write_s", 0, 1e6, &cs->checkpoint_write_s, err)) ||
	    (rc = num(d, o, p, "job_setup_s", 0, 1e6, &cs->job_setup_s, err)))
		return rc;
	return 0;
}

static int parse_build(pp_costspec *cs, const pp_jdoc *d, const cJSON *obj, const char *path,
		       pp_err *err)
{
	static const char *const fac[] = {"colocation", "owned"};
	const cJSON *o;
	char p[96];
	int rc, e;
	bool present;
	if ((rc = pp_jget_obj(d, obj, path, "build", false, &o, err)) || !o)
		return rc;
	pp_jpath(p, sizeof(p), path, "build");
	if ((rc = pp_jcheck_keys(d, o, p, build_keys, PP_ARRAY_LEN(build_keys), err)) ||
	    (rc = pp_jget_enum(d, o, p, "facility", false, fac, 2, &e, &present, err)))
		return rc;
	if (present)
		cs->facility = e;
	if ((rc = num(d, o, p, "pue", 1, 3, &cs->pue, err)) ||
	    (rc = num(d, o, p, "electricity_usd_per_kwh", 0, 2, &cs->usd_per_kwh, err)) ||
	    (rc = num(d, o, p, "colocation_usd_per_kw_month", 0, 5000, &cs->colo_usd_per_kw_month,
		      err)) ||
	    (rc = num(d, o, p, "support_fraction_per_year", 0, 1, &cs->support_fraction, err)) ||
	    (rc = num(d, o, p, "software_usd_per_gpu_year", 0, 1e6, &cs->software_usd_per_gpu_year,
		      err)) ||
	    (rc = num(d, o, p, "staff_usd_per_fte_year", 0, 1e7, &cs->staff_usd_per_fte_year, err)) ||
	    (rc = num(d, o, p, "lead_time_months", 0, 60, &cs->lead_time_months, err)) ||
	    (rc = num(d, o, p, "storage_tb", 0, 1e7, &cs->storage_tb, err)) ||
	    (rc = num(d, o, p, "integration_fraction", 0, 1, &cs->integration_fraction, err)) ||
	    (rc = num(d, o, p, "resale_haircut", 0, 1, &cs->resale_haircut, err)))
		return rc;
	return 0;
}

static int parse_rent(pp_costspec *cs, const pp_jdoc *d, const cJSON *obj, const char *path,
		      pp_err *err)
{
	const cJSON *o;
	char p[96];
	int rc;
	if ((rc = pp_jget_obj(d, obj, path, "rent", false, &o, err)) || !o)
		return rc;
	pp_jpath(p, sizeof(p), path, "rent");
	if ((rc = pp_jcheck_keys(d, o, p, rent_keys, PP_ARRAY_LEN(rent_keys), err)) ||
	    (rc = num(d, o, p, "storage_usd_per_tb_month", 0, 1e5, &cs->storage_usd_per_tb_month,
		      err)))
		return rc;
	return 0;
}

static int parse_uncertainty(pp_costspec *cs, const pp_jdoc *d, const cJSON *obj, const char *path,
			     pp_err *err)
{
	const cJSON *o;
	char p[96];
	int rc;
	int64_t v;
	bool present;
	if ((rc = pp_jget_obj(d, obj, path, "uncertainty", false, &o, err)) || !o)
		return rc;
	pp_jpath(p, sizeof(p), path, "uncertainty");
	if ((rc = pp_jcheck_keys(d, o, p, unc_keys, PP_ARRAY_LEN(unc_keys), err)) ||
	    (rc = pp_jget_int(d, o, p, "draws", false, 0, 10000000, &v, &present, err)))
		return rc;
	if (present)
		cs->draws = (int)v;
	if ((rc = pp_jget_int(d, o, p, "seed", false, 0, 4294967295LL, &v, &present, err)))
		return rc;
	if (present) {
		cs->seed_given = true;
		cs->seed = (unsigned long)v;
	}
	if ((rc = num(d, o, p, "step_time_sigma", 0, 2, &cs->step_time_sigma, err)) ||
	    (rc = num(d, o, p, "price_sigma", 0, 2, &cs->price_sigma, err)))
		return rc;
	return 0;
}

/* "options": 1 to 64 option objects with unique names. */
static int parse_options(pp_costspec *cs, const pp_jdoc *d, const cJSON *obj, const char *path,
			 const pp_catalog *cat, pp_err *err)
{
	const cJSON *opts = cJSON_GetObjectItemCaseSensitive(obj, "options");
	char p[96];
	int rc;
	pp_jpath(p, sizeof(p), path, "options");
	if (!opts)
		return pp_jdoc_errf(d, err, path, "missing \"options\": expected a list of the options "
				    "to price (rent, build, api, tier4)");
	if (!cJSON_IsArray(opts) || cJSON_GetArraySize(opts) == 0) {
		char buf[64];
		return pp_jdoc_errf(d, err, p, "found %s, expected a non-empty list of option objects",
				    pp_jdoc_describe(opts, buf, sizeof(buf)));
	}
	int n = cJSON_GetArraySize(opts);
	if (n > 64)
		return pp_jdoc_errf(d, err, p, "found %d options, expected at most 64", n);
	cs->options = pp_xcalloc((size_t)n, sizeof(*cs->options));
	cs->noptions = n;
	for (int i = 0; i < n; i++) {
		char op[48];
		pp_jpath_idx(op, sizeof(op), p, i);
		if ((rc = pp_costspec_option_parse(d, cat, cJSON_GetArrayItem(opts, i), op,
						    &cs->options[i], err)))
			return rc;
		for (int j = 0; j < i; j++)
			if (!strcmp(cs->options[j].name, cs->options[i].name)) {
				char q[80];
				return pp_jdoc_errf(d, err, pp_jpath(q, sizeof(q), op, "name"),
						    "found \"%s\" twice; expected unique option names",
						    cs->options[i].name);
			}
	}
	return 0;
}

int pp_costspec_parse(pp_costspec *cs, const pp_jdoc *d, const cJSON *obj, const char *path,
		      const pp_catalog *cat, pp_err *err)
{
	int rc;
	memset(cs, 0, sizeof(*cs));
	cs->present = obj != NULL;
	pp_costspec_defaults(cs);
	if (!obj)
		return 0;
	if ((rc = parse_top(cs, d, obj, path, err)) || (rc = parse_work(cs, d, obj, path, err)) ||
	    (rc = parse_finance(cs, d, obj, path, err)) || (rc = parse_goodput(cs, d, obj, path, err)) ||
	    (rc = parse_build(cs, d, obj, path, err)) || (rc = parse_rent(cs, d, obj, path, err)) ||
	    (rc = parse_uncertainty(cs, d, obj, path, err)) ||
	    (rc = parse_options(cs, d, obj, path, cat, err)))
		return rc;
	return 0;
}

void pp_costspec_release(pp_costspec *cs)
{
	if (!cs)
		return;
	free(cs->options);
	cs->options = NULL;
	cs->noptions = 0;
}
