/*
 * report.c - see report.h: computing a report (cost engine or predict,
 * calibration verdict, warnings), the JSON it is recorded with, and the
 * helpers the renderers share. Rendering is in html.c, md.c, csvout.c;
 * writing the files in write.c.
 */
#include "report.h"
#include "calib/calibdb.h"
#include "calib/profile.h"
#include "core/store.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- shared helpers ---- */

static const char *const option_colors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
					    "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
					    "#9c755f", "#bab0ac"};

const char *pp_report_option_color(int i)
{
	return option_colors[(i < 0 ? 0 : i) % (int)PP_ARRAY_LEN(option_colors)];
}

/* Components in cost.h's order: gpu_time, idle_commitment, servers, network,
 * storage, facility, support, staff, api. Idle commitment is waste: red. */
const char *const pp_report_comp_colors[PP_CC_COUNT] = {"#4e79a7", "#e15759", "#59a14f",
							"#76b7b2", "#edc948", "#f28e2b",
							"#b07aa1", "#ff9da7", "#9c755f"};
const char *const pp_report_comp_words[PP_CC_COUNT] = {
	"GPU time", "idle commitment", "servers (net of resale)", "network (net of resale)",
	"storage", "power and facility", "support", "staff", "API charges"};

const char *const pp_report_bd_colors[PP_REPORT_NBD] = {"#4e79a7", "#f28e2b", "#e15759", "#bab0ac",
							"#76b7b2", "#59a14f", "#edc948"};
const char *const pp_report_bd_words[PP_REPORT_NBD] = {
	"compute", "tensor/context-parallel comm (exposed)", "data-parallel comm (exposed)",
	"pipeline bubble", "pipeline send/recv (exposed)", "optimizer step", "data loading (exposed)"};
const char *const pp_report_bd_keys[PP_REPORT_NBD] = {
	"compute_s", "tp_comm_exposed_s", "dp_comm_exposed_s", "pp_bubble_s", "pp_comm_exposed_s",
	"optimizer_s", "data_s"};

void pp_report_bd_parts(const pp_breakdown *b, double out[PP_REPORT_NBD])
{
	out[0] = b->compute_s;
	out[1] = b->tp_comm_exposed_s;
	out[2] = b->dp_comm_exposed_s;
	out[3] = b->pp_bubble_s;
	out[4] = b->pp_comm_exposed_s;
	out[5] = b->optimizer_s;
	out[6] = b->data_s;
}

const char *pp_report_usd(double v, char *buf, size_t n)
{
	if (!isfinite(v))
		return snprintf(buf, n, "-"), buf;
	return pp_fmt_usd(v, buf, n);
}

const char *pp_report_dur(double s, char *buf, size_t n)
{
	if (!isfinite(s))
		return snprintf(buf, n, "-"), buf;
	/* finance reads long spans in months (of 365.25/12 days) */
	if (s >= 60 * 86400.0)
		return snprintf(buf, n, "%.1f months", s / (365.25 / 12 * 86400.0)), buf;
	return pp_fmt_duration(s, buf, n);
}

const char *pp_report_count(double v, char *buf, size_t n)
{
	if (!isfinite(v))
		return snprintf(buf, n, "-"), buf;
	char d[48];
	snprintf(d, sizeof(d), "%.0f", fabs(v));
	size_t len = strlen(d), o = 0;
	if (v < 0 && o + 1 < n)
		buf[o++] = '-';
	for (size_t i = 0; i < len && o + 2 < n; i++) {
		buf[o++] = d[i];
		if ((len - i - 1) % 3 == 0 && i + 1 < len)
			buf[o++] = ',';
	}
	buf[o] = '\0';
	return buf;
}

double pp_report_time_to_result(const pp_cost_option *o)
{
	if (!isfinite(o->time_to_train_s))
		return NAN;
	return o->time_to_train_s + (isfinite(o->lead_time_s) ? o->lead_time_s : 0);
}

const char *pp_report_kind_word(const pp_cost_option *o)
{
	switch (o->kind) {
	case PP_OPT_RENT:
		return "rent";
	case PP_OPT_BUILD:
		return "build";
	case PP_OPT_API:
		return "hosted API";
	default:
		return strcmp(o->tier, "own") ? "one node, rented" : "one node, owned";
	}
}

void pp_report_headline(const pp_report *r, pp_sb *out)
{
	char a[32], b[32], c[32], d[32];
	if (r->have_cost) {
		const pp_cost_result *cr = &r->cost;
		if (cr->recommended < 0) {
			pp_sb_adds(out, "No option can do the work");
			for (int i = 0; i < cr->noptions; i++)
				pp_sb_addf(out, "%s %s: %s", i ? ";" : ":", cr->options[i].name,
					   cr->options[i].infeasible_why);
			pp_sb_adds(out, ".");
			return;
		}
		const pp_cost_option *o = &cr->options[cr->recommended];
		pp_sb_addf(out, "%s (%s) is the cheapest: %s", o->name, o->label,
			   pp_report_usd(o->usd_total, a, sizeof(a)));
		if (isfinite(o->p10_usd) && isfinite(o->p90_usd))
			pp_sb_addf(out, " (P10-P90 %s-%s)", pp_report_usd(o->p10_usd, b, sizeof(b)),
				   pp_report_usd(o->p90_usd, c, sizeof(c)));
		pp_sb_addf(out, " for %s", cr->work);
		if (isfinite(o->usd_per_million_tokens))
			pp_sb_addf(out, ", $%.3g per 1M tokens", o->usd_per_million_tokens);
		double t = pp_report_time_to_result(o);
		if (isfinite(t))
			pp_sb_addf(out, ", done in %s", pp_report_dur(t, d, sizeof(d)));
		pp_sb_adds(out, ".");
		return;
	}
	if (r->have_pred) {
		const pp_result *p = &r->pred;
		const pp_cluster *cl = &r->s->cluster;
		char tk[32], ts[32];
		pp_sb_addf(out, "%d x %s", cl->num_gpus, cl->gpu->name);
		if (r->s->training.train_tokens > 0)
			pp_sb_addf(out, " train %s tokens in %s",
				   pp_fmt_tokens(r->s->training.train_tokens, tk, sizeof(tk)),
				   pp_report_dur(p->time_to_train_s, a, sizeof(a)));
		else
			pp_sb_adds(out, " run");
		pp_sb_addf(out, ": %s per step, %s tokens/s, MFU %.1f%%; %s of %s per GPU (%s).",
			   pp_report_dur(p->step_time_s, b, sizeof(b)),
			   pp_report_count(p->tokens_per_s, ts, sizeof(ts)), 100 * p->mfu,
			   pp_fmt_bytes(p->memory.total_bytes, c, sizeof(c)),
			   pp_fmt_bytes(p->memory.capacity_bytes, d, sizeof(d)),
			   p->memory.fits ? "fits" : "does NOT fit");
	}
}

/* ---- building ---- */

static void warn(pp_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(pp_report *r, const char *fmt, ...)
{
	pp_sb sb = {0};
	va_list ap;
	va_start(ap, fmt);
	pp_sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	for (int i = 0; i < r->nwarnings; i++)
		if (!strcmp(r->warnings[i], sb.buf)) {
			pp_sb_release(&sb);
			return;
		}
	r->warnings = pp_xrealloc(r->warnings, (size_t)(r->nwarnings + 1) * sizeof(char *));
	r->warnings[r->nwarnings++] = pp_sb_detach(&sb);
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

static double jnumv(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* A check about links rather than compute: the "SLOW fabric" case. */
static bool fabric_check(const char *check, const char *scope)
{
	static const char *const words[] = {"busbw", "bandwidth", "all_reduce", "all_gather",
					    "reduce_scatter", "alltoall", "sendrecv", "p2p",
					    "nvlink", "pcie", "nic", "net"};
	for (size_t i = 0; i < PP_ARRAY_LEN(words); i++)
		if (strstr(check, words[i]) || strstr(scope, words[i]))
			return true;
	return false;
}

/* Read one calibration run's verdict into r->verdict; warn for SLOW rows. */
static void read_verdict(pp_report *r, pp_store *st, int64_t id, const char *db)
{
	pp_calib_run run;
	pp_err err = {0};
	pp_calib_run_init(&run);
	if (pp_calibdb_get_run(st, id, &run, &err)) {
		warn(r, "calibration run %lld named by profile \"%s\" is not in %s: its health verdict "
		     "is unknown", (long long)id, r->s->calib_profile, db);
		return;
	}
	cJSON *j = run.verdict_json ? cJSON_Parse(run.verdict_json) : NULL;
	const cJSON *rows = j ? cJSON_GetObjectItemCaseSensitive(j, "rows") : NULL;
	if (!cJSON_IsArray(rows)) {
		warn(r, "calibration run %lld (%s) has no health verdict (status %s): whether its pod "
		     "is healthy is unknown", (long long)id, run.host ? run.host : "unknown host",
		     pp_calibdb_effective_status(&run));
		goto out;
	}
	int slow = 0;
	pp_sb what = {0};
	bool fabric = false;
	for (const cJSON *x = rows->child; x; x = x->next) {
		pp_report_verdict v;
		memset(&v, 0, sizeof(v));
		v.run_id = id;
		snprintf(v.check, sizeof(v.check), "%s", jstr(x, "check"));
		snprintf(v.scope, sizeof(v.scope), "%s", jstr(x, "scope"));
		snprintf(v.unit, sizeof(v.unit), "%s", jstr(x, "unit"));
		snprintf(v.verdict, sizeof(v.verdict), "%s", jstr(x, "verdict"));
		snprintf(v.cause, sizeof(v.cause), "%s", *jstr(x, "cause") ? jstr(x, "cause")
									  : jstr(x, "basis"));
		v.measured = jnumv(x, "measured");
		v.expected = jnumv(x, "expected");
		v.ratio = jnumv(x, "ratio");
		r->verdict = pp_xrealloc(r->verdict, (size_t)(r->nverdict + 1) * sizeof(*r->verdict));
		r->verdict[r->nverdict++] = v;
		if (strcmp(v.verdict, "SLOW"))
			continue;
		fabric |= fabric_check(v.check, v.scope);
		pp_sb_addf(&what, "%s%s%s%s%s measured %.4g %s, expected %.4g %s (%.2f)%s%s", slow ? "; " : "",
			   v.check, *v.scope ? " (" : "", v.scope, *v.scope ? ")" : "", v.measured, v.unit,
			   v.expected, v.unit, v.ratio, *v.cause ? ": " : "", v.cause);
		slow++;
	}
	if (slow) {
		char gpus[160] = "";
		if (run.gpu_name && run.gpu_count != PP_CALIB_NULL)
			snprintf(gpus, sizeof(gpus), ", %lld x %s", (long long)run.gpu_count, run.gpu_name);
		warn(r, "SLOW %s verdict from calibration run %lld (%s%s): %s. Predictions from catalog "
		     "figures overstate this pod's speed: repair it, or calibrate (podplan fit) and "
		     "re-run before deciding.", fabric ? "fabric" : "health", (long long)id,
		     run.host ? run.host : "unknown host", gpus, what.buf);
	}
	pp_sb_release(&what);
out:
	cJSON_Delete(j);
	pp_calib_run_release(&run);
}

/* The runs a profile was fitted from: the profiles table (latest version),
 * or a run id given as the profile. */
static int profile_runs(pp_store *st, const char *spec, int64_t *ids, int max, int *version)
{
	sqlite3_stmt *q = NULL;
	int n = -1;
	char profile[160];
	snprintf(profile, sizeof(profile), "%s", spec);
	char *at = strchr(profile, '@'); /* NAME@VERSION, as podplan predict takes it */
	int want = 0;
	if (at) {
		*at = '\0';
		want = atoi(at + 1);
	}
	*version = 0;
	if (sqlite3_prepare_v2(pp_store_db(st), "SELECT version, run_ids FROM profiles WHERE name = ?1 "
				"AND (?2 = 0 OR version = ?2) ORDER BY version DESC LIMIT 1", -1, &q,
				NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, profile, -1, SQLITE_STATIC);
		sqlite3_bind_int(q, 2, want);
		if (sqlite3_step(q) == SQLITE_ROW) {
			*version = sqlite3_column_int(q, 0);
			cJSON *a = cJSON_Parse((const char *)sqlite3_column_text(q, 1));
			n = 0;
			for (const cJSON *x = a ? a->child : NULL; x && n < max; x = x->next)
				if (cJSON_IsNumber(x))
					ids[n++] = (int64_t)x->valuedouble;
			cJSON_Delete(a);
		}
	}
	sqlite3_finalize(q);
	if (n < 0 && *profile && strspn(profile, "0123456789") == strlen(profile) && max > 0) {
		ids[0] = strtoll(profile, NULL, 10);
		n = 1;
	}
	return n;
}

/* The store a scenario's calibration profile lives in: its "db", else the
 * report's store, else the default one (as podplan predict). */
static const char *calib_db(const pp_scenario *s, const pp_report_opts *o)
{
	return s->calib_db[0] ? s->calib_db
	       : o && o->store_path ? o->store_path : pp_store_default_path();
}

static void calibration(pp_report *r, const pp_report_opts *o)
{
	const pp_scenario *s = r->s;
	if (!s->calib_db[0] && !s->calib_profile[0]) {
		snprintf(r->calib_note, sizeof(r->calib_note), "No calibration profile is named: every "
			 "hardware parameter comes from the catalogs (models/*.json), with the source "
			 "listed below.");
		return;
	}
	const char *db = calib_db(s, o);
	if (access(db, R_OK) != 0) {
		snprintf(r->calib_note, sizeof(r->calib_note), "The scenario names calibration profile "
			 "\"%s\" in %s, which does not exist.", s->calib_profile, db);
		warn(r, "calibration database %s not found: profile \"%s\" cannot be checked, and the "
		     "pod's health verdict (SLOW links) is unknown", db, s->calib_profile);
		return;
	}
	pp_store *st = NULL;
	pp_err err = {0};
	if (pp_store_open(&st, db, &err)) {
		warn(r, "calibration database: %s", err.msg);
		return;
	}
	int64_t ids[32];
	int version = 0;
	int n = profile_runs(st, s->calib_profile, ids, (int)PP_ARRAY_LEN(ids), &version);
	if (n < 0) {
		snprintf(r->calib_note, sizeof(r->calib_note), "The scenario names calibration profile "
			 "\"%s\", which is not in %s.", s->calib_profile, db);
		warn(r, "calibration profile \"%s\" is not in %s ('podplan fit' lists the profiles): the "
		     "pod's health verdict is unknown", s->calib_profile, db);
	} else {
		pp_sb runs = {0};
		for (int i = 0; i < n; i++)
			pp_sb_addf(&runs, "%s%lld", i ? ", " : "", (long long)ids[i]);
		if (version > 0)
			snprintf(r->calib_note, sizeof(r->calib_note), "Calibration profile \"%s\" "
				 "version %d in %s, fitted from calibration run%s %s.", s->calib_profile,
				 version, db, n == 1 ? "" : "s", runs.buf ? runs.buf : "(none)");
		else
			snprintf(r->calib_note, sizeof(r->calib_note), "Calibration run %s in %s "
				 "(named as the profile).", runs.buf ? runs.buf : "-", db);
		pp_sb_release(&runs);
		for (int i = 0; i < n; i++)
			read_verdict(r, st, ids[i], db);
	}
	pp_store_close(st);
	size_t l = strlen(r->calib_note);
	if (r->have_cost)
		snprintf(r->calib_note + l, sizeof(r->calib_note) - l, " The cost engine prices every "
			 "option with the catalog's hardware figures (the parameters below) and the "
			 "narrower step-time uncertainty of a calibrated scenario.");
	else if (r->hw.profile[0])
		snprintf(r->calib_note + l, sizeof(r->calib_note) - l, " Applied to the step: the "
			 "parameters marked calibrated below.");
}

int pp_report_build(pp_report *r, const pp_scenario *s, const pp_catalog *cat,
		    const char *scenario_path, const pp_report_opts *o, pp_err *err)
{
	double t0 = pp_mono_s();
	int rc;
	memset(r, 0, sizeof(*r));
	r->s = s;
	r->cat = cat;
	snprintf(r->scenario_path, sizeof(r->scenario_path), "%s",
		 scenario_path ? scenario_path : s->doc.path ? s->doc.path : "");
	r->generated_s = o && o->now_s > 0 ? o->now_s : pp_now_s();
	time_t t = (time_t)r->generated_s;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(r->generated, sizeof(r->generated), "%Y-%m-%d %H:%M UTC", &tm);
	if ((rc = pp_hw_from_catalog(&r->hw, cat, &s->cluster, err)))
		goto out;
	if (s->costs.present) {
		pp_cost_opts co;
		memset(&co, 0, sizeof(co));
		co.predict = pp_predict;
		if (o) {
			co.seed_given = o->seed_given;
			co.seed = o->seed;
			co.draws_given = o->draws_given;
			co.draws = o->draws;
		}
		if ((rc = pp_cost_run(s, cat, &co, &r->cost, err)))
			goto out;
		r->have_cost = true;
		for (int i = 0; i < r->cost.nwarnings; i++)
			warn(r, "%s", r->cost.warnings[i]);
	} else {
		/* the scenario's calibration profile, applied as podplan predict does */
		const char *db = calib_db(s, o);
		pp_err perr = {0};
		if (s->calib_profile[0] && access(db, R_OK) == 0 &&
		    pp_profile_apply_spec(&r->hw, db, s->calib_profile, &perr))
			warn(r, "calibration profile \"%s\" could not be applied (%s): the step below uses "
			     "the catalog's figures", s->calib_profile, perr.msg);
		pp_predict_opts po;
		memset(&po, 0, sizeof(po));
		if ((rc = pp_predict(s, &r->hw, &po, &r->pred, err)))
			goto out;
		r->have_pred = true;
		char a[32], b[32];
		if (!r->pred.memory.fits)
			warn(r, "does not fit in memory: %s per GPU needed on pipeline stage %d, %s "
			     "available; add pipeline/tensor parallelism, ZeRO or recomputation",
			     pp_fmt_bytes(r->pred.memory.total_bytes, a, sizeof(a)), r->pred.memory.worst_stage,
			     pp_fmt_bytes(r->pred.memory.capacity_bytes, b, sizeof(b)));
		if (s->training.train_tokens <= 0)
			warn(r, "training.train_tokens is not given: no time to train");
		warn(r, "no \"costs\" section: nothing is priced; add one to compare renting, building, "
		     "a hosted API or one node (README, \"Costs\")");
	}
	calibration(r, o);
	rc = 0;
out:
	r->elapsed_s = pp_mono_s() - t0;
	if (rc)
		pp_report_release(r);
	return rc;
}

void pp_report_release(pp_report *r)
{
	if (r->have_cost)
		pp_cost_result_release(&r->cost);
	for (int i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	free(r->verdict);
	r->warnings = NULL;
	r->verdict = NULL;
	r->nwarnings = r->nverdict = 0;
	r->have_cost = r->have_pred = false;
}

/* ---- the stored record ---- */

static void jkn(pp_sb *sb, const char *key, double v)
{
	pp_sb_addf(sb, "\"%s\": ", key);
	if (isfinite(v))
		pp_sb_addf(sb, "%.10g", v);
	else
		pp_sb_adds(sb, "null");
}

static void js(pp_sb *sb, const char *key, const char *v)
{
	pp_sb_addf(sb, "\"%s\": ", key);
	if (v)
		pp_sb_add_json(sb, v);
	else
		pp_sb_adds(sb, "null");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Hashes of the catalog's *.json files, sorted by name. */
static void catalog_hashes(const char *dir, pp_sb *sb)
{
	DIR *d = dir ? opendir(dir) : NULL;
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l > 5 && !strcmp(e->d_name + l - 5, ".json")) {
			names = pp_xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = pp_xstrdup(e->d_name);
		}
	}
	if (d)
		closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	pp_sb_adds(sb, "{");
	for (size_t i = 0; i < n; i++) {
		char *path = pp_path_join(dir, names[i]), *text = NULL, h[17] = "";
		size_t len = 0;
		pp_err err = {0};
		if (pp_read_file(path, (size_t)64 << 20, &text, &len, &err) == 0)
			pp_hash_hex(text, len, h);
		pp_sb_addf(sb, "%s", i ? ", " : "");
		js(sb, names[i], h);
		free(text);
		free(path);
		free(names[i]);
	}
	free(names);
	pp_sb_adds(sb, "}");
}

void pp_report_inputs_json(const pp_report *r, pp_sb *sb)
{
	const pp_scenario *s = r->s;
	pp_sb_adds(sb, "{");
	js(sb, "scenario_file", r->scenario_path);
	pp_sb_adds(sb, ", ");
	js(sb, "scenario_hash", s->hash);
	pp_sb_adds(sb, ", ");
	js(sb, "podplan_version", PP_VERSION);
	pp_sb_adds(sb, ", \"scenario\": ");
	char *doc = s->doc.root ? cJSON_PrintUnformatted(s->doc.root) : NULL;
	pp_sb_adds(sb, doc ? doc : "null");
	free(doc);
	if (r->have_cost)
		pp_sb_addf(sb, ", \"seed\": %lu, \"draws\": %d", r->cost.seed, r->cost.draws);
	pp_sb_adds(sb, ", \"calibration\": {");
	js(sb, "db", s->calib_db[0] ? s->calib_db : NULL);
	pp_sb_adds(sb, ", ");
	js(sb, "profile", s->calib_profile[0] ? s->calib_profile : NULL);
	pp_sb_adds(sb, ", ");
	js(sb, "applied_profile", r->hw.profile[0] ? r->hw.profile : NULL);
	pp_sb_adds(sb, "}, \"catalog\": {");
	js(sb, "dir", pp_catalog_dir(r->cat));
	pp_sb_adds(sb, ", \"files\": ");
	catalog_hashes(pp_catalog_dir(r->cat), sb);
	pp_sb_adds(sb, "}, \"figures\": [");
	for (int i = 0; r->have_cost && i < r->cost.nsources; i++) {
		const pp_cost_source *f = &r->cost.sources[i];
		pp_sb_adds(sb, i ? ",\n {" : "\n {");
		js(sb, "item", f->item);
		pp_sb_adds(sb, ", ");
		jkn(sb, "value", f->value);
		pp_sb_adds(sb, ", ");
		js(sb, "unit", f->unit);
		pp_sb_adds(sb, ", ");
		js(sb, "date", f->date);
		pp_sb_adds(sb, ", ");
		js(sb, "source", f->source);
		pp_sb_addf(sb, ", \"estimate\": %s}", f->estimate ? "true" : "false");
	}
	pp_sb_adds(sb, "], \"parameters\": {");
	for (int i = 0; i < r->hw.norigins; i++) {
		pp_sb_adds(sb, i ? ", " : "");
		js(sb, r->hw.origins[i].name, r->hw.origins[i].origin);
	}
	pp_sb_adds(sb, "}}");
}

static void breakdown_json(pp_sb *sb, const pp_breakdown *b)
{
	double v[PP_REPORT_NBD];
	pp_report_bd_parts(b, v);
	pp_sb_adds(sb, "{");
	for (int k = 0; k < PP_REPORT_NBD; k++) {
		pp_sb_adds(sb, k ? ", " : "");
		jkn(sb, pp_report_bd_keys[k], v[k]);
	}
	pp_sb_adds(sb, "}");
}

void pp_report_results_json(const pp_report *r, const char *out_dir, pp_sb *sb)
{
	pp_sb h = {0};
	pp_report_headline(r, &h);
	pp_sb_adds(sb, "{");
	js(sb, "kind", r->have_cost ? "cost" : "predict");
	pp_sb_adds(sb, ", ");
	js(sb, "output_dir", out_dir);
	pp_sb_adds(sb, ", ");
	js(sb, "headline", h.buf ? h.buf : "");
	pp_sb_release(&h);
	if (r->have_cost) {
		const pp_cost_result *c = &r->cost;
		pp_sb_adds(sb, ", ");
		js(sb, "recommended", c->recommended >= 0 ? c->options[c->recommended].name : NULL);
		pp_sb_adds(sb, ", ");
		js(sb, "runner_up", c->runner_up >= 0 ? c->options[c->runner_up].name : NULL);
		pp_sb_adds(sb, ", ");
		js(sb, "recommendation", c->recommendation);
		pp_sb_adds(sb, ", ");
		js(sb, "work", c->work);
		pp_sb_adds(sb, ", ");
		jkn(sb, "horizon_months", c->horizon_months);
		pp_sb_addf(sb, ", \"seed\": %lu, \"draws\": %d, \"options\": [", c->seed, c->draws);
		for (int i = 0; i < c->noptions; i++) {
			const pp_cost_option *o = &c->options[i];
			pp_sb_adds(sb, i ? ",\n {" : "\n {");
			js(sb, "name", o->name);
			pp_sb_adds(sb, ", ");
			js(sb, "kind", pp_option_kind_names[o->kind]);
			pp_sb_adds(sb, ", ");
			js(sb, "label", o->label);
			pp_sb_adds(sb, ", ");
			js(sb, "provider", o->provider);
			pp_sb_adds(sb, ", ");
			js(sb, "tier", o->tier);
			pp_sb_adds(sb, ", ");
			js(sb, "gpu", o->gpu);
			pp_sb_addf(sb, ", \"num_gpus\": %d, \"feasible\": %s, ", o->num_gpus,
				   o->feasible ? "true" : "false");
			js(sb, "infeasible_why", o->infeasible_why);
			static const char *const keys[] = {
				"usd_total", "p10_usd", "p50_usd", "p90_usd", "p_cheapest",
				"usd_per_million_tokens", "time_to_train_s", "lead_time_s", "step_time_s",
				"tokens_per_s", "mfu", "goodput", "memory_per_gpu_bytes"};
			double vals[] = {o->usd_total, o->p10_usd, o->p50_usd, o->p90_usd, o->p_cheapest,
					 o->usd_per_million_tokens, o->time_to_train_s, o->lead_time_s,
					 o->step_time_s, o->tokens_per_s, o->mfu, o->goodput,
					 o->memory_per_gpu_bytes};
			for (size_t k = 0; k < PP_ARRAY_LEN(keys); k++) {
				pp_sb_adds(sb, ", ");
				jkn(sb, keys[k], vals[k]);
			}
			pp_sb_adds(sb, ", \"components\": {");
			for (int k = 0; k < PP_CC_COUNT; k++) {
				pp_sb_adds(sb, k ? ", " : "");
				jkn(sb, pp_cost_comp_names[k], o->components[k]);
			}
			pp_sb_adds(sb, "}, \"breakdown\": ");
			breakdown_json(sb, &o->breakdown);
			pp_sb_adds(sb, "}");
		}
		pp_sb_adds(sb, "]");
	}
	if (r->have_pred) {
		const pp_result *p = &r->pred;
		pp_sb_adds(sb, ", \"predict\": {");
		jkn(sb, "step_time_s", p->step_time_s);
		pp_sb_adds(sb, ", ");
		jkn(sb, "tokens_per_s", p->tokens_per_s);
		pp_sb_adds(sb, ", ");
		jkn(sb, "mfu", p->mfu);
		pp_sb_adds(sb, ", ");
		jkn(sb, "hfu", p->hfu);
		pp_sb_adds(sb, ", ");
		jkn(sb, "time_to_train_s", r->s->training.train_tokens > 0 ? p->time_to_train_s : NAN);
		pp_sb_adds(sb, ", ");
		jkn(sb, "memory_per_gpu_bytes", p->memory.total_bytes);
		pp_sb_adds(sb, ", ");
		jkn(sb, "memory_capacity_bytes", p->memory.capacity_bytes);
		pp_sb_addf(sb, ", \"fits\": %s, ", p->memory.fits ? "true" : "false");
		js(sb, "bottleneck", p->bottleneck);
		pp_sb_adds(sb, ", \"breakdown\": ");
		breakdown_json(sb, &p->breakdown);
		pp_sb_adds(sb, "}");
	}
	pp_sb_adds(sb, ", \"warnings\": [");
	for (int i = 0; i < r->nwarnings; i++) {
		pp_sb_adds(sb, i ? ", " : "");
		pp_sb_add_json(sb, r->warnings[i]);
	}
	pp_sb_adds(sb, "]}");
}
