/*
 * report.c - see report.h: computing a report (cost engine or predict,
 * calibration verdict, warnings), the JSON it is recorded with, and the
 * helpers the renderers share. Rendering is in html.c, md.c, csvout.c;
 * writing the files in write.c.
 */
#include "report.h"
#include "core/fmt.h"
#include "calib/calibdb.h"
#include "calib/evidence.h"
#include "calib/hwres.h"
#include "calib/profile.h"
#include "core/jsonget.h"
#include "core/jsonout.h"
#include "core/store.h"
#include "core/warn.h"
#include "input/plausible.h"

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

/* Step-breakdown parts in the table's order (engine/breakdown.h). */
const char *const pp_report_bd_colors[PP_BD_COUNT] = {"#4e79a7", "#f28e2b", "#b07aa1", "#e15759",
						      "#bab0ac", "#76b7b2", "#59a14f", "#edc948"};




/* path below dir (a directory, no trailing '/'): the rest after "dir/", else NULL */
static const char *below(const char *path, const char *dir)
{
	size_t l = dir ? strlen(dir) : 0;
	while (l > 1 && dir[l - 1] == '/')
		l--;
	if (l < 2 || strncmp(path, dir, l) || path[l] != '/')
		return NULL;
	return path + l + 1;
}

const char *pp_report_public_path(const char *path, char *buf, size_t n)
{
	char cwd[4096];
	const char *rest;
	if (!path || path[0] != '/')
		snprintf(buf, n, "%s", path ? path : "");
	else if (getcwd(cwd, sizeof(cwd)) && (rest = below(path, cwd)))
		snprintf(buf, n, "%s", rest);
	else if ((rest = below(path, getenv("HOME"))))
		snprintf(buf, n, "~/%s", rest);
	else
		snprintf(buf, n, "%s", path);
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
		char rg[64];
		pp_sb_addf(out, "%s (%s) is the cheapest%s: %s", o->name, o->label,
			   cr->risked >= 0 ? " option that can be obtained" : "",
			   pp_fmt_usd(o->usd_total, a, sizeof(a)));
		if (isfinite(o->p10_usd) && isfinite(o->p90_usd))
			pp_sb_addf(out, " (P10-P90 %s)",
				   pp_fmt_usd_range(o->p10_usd, o->p90_usd, "-", rg, sizeof(rg)));
		pp_sb_addf(out, " for %s", cr->work);
		if (isfinite(o->usd_per_million_tokens))
			pp_sb_addf(out, ", $%.3g per 1M tokens", o->usd_per_million_tokens);
		double t = pp_report_time_to_result(o);
		if (isfinite(t))
			pp_sb_addf(out, ", done in %s", pp_fmt_span(t, d, sizeof(d)));
		pp_sb_adds(out, ".");
		if (cr->risked >= 0)
			pp_sb_addf(out, " %s would cost %s but may not be obtainable.",
				   cr->options[cr->risked].name,
				   pp_fmt_usd(cr->options[cr->risked].usd_total, b, sizeof(b)));
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
				   pp_fmt_span(p->time_to_train_s, a, sizeof(a)));
		else
			pp_sb_adds(out, " run");
		pp_sb_addf(out, ": %s per step, %s tokens/s, MFU %.1f%%; %s of %s per GPU (%s).",
			   pp_fmt_span(p->step_time_s, b, sizeof(b)),
			   pp_fmt_count(p->tokens_per_s, ts, sizeof(ts)), 100 * p->mfu,
			   pp_fmt_bytes(p->memory.total_bytes, c, sizeof(c)),
			   pp_fmt_bytes(p->memory.capacity_bytes, d, sizeof(d)),
			   p->memory.fits ? "fits" : "does NOT fit");
	}
}

/* ---- building ---- */

static void warn(pp_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(pp_report *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pp_warn_vaddf(&r->warnings, &r->nwarnings, fmt, ap);
	va_end(ap);
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
		snprintf(v.check, sizeof(v.check), "%s", pp_json_get_str(x, "check", ""));
		snprintf(v.scope, sizeof(v.scope), "%s", pp_json_get_str(x, "scope", ""));
		snprintf(v.unit, sizeof(v.unit), "%s", pp_json_get_str(x, "unit", ""));
		snprintf(v.verdict, sizeof(v.verdict), "%s", pp_json_get_str(x, "verdict", ""));
		const char *cause = pp_json_get_str(x, "cause", "");
		snprintf(v.cause, sizeof(v.cause), "%s", *cause ? cause : pp_json_get_str(x, "basis", ""));
		v.measured = pp_json_get_num(x, "measured", NAN);
		v.expected = pp_json_get_num(x, "expected", NAN);
		v.ratio = pp_json_get_num(x, "ratio", NAN);
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

/* Which calibration applies, in words (r->calib_note), and the health
 * verdict of each run its profile was fitted from (read_verdict). */
static void calibration(pp_report *r, const pp_hwcal *cal)
{
	const pp_scenario *s = r->s;
	if (!cal->on) {
		snprintf(r->calib_note, sizeof(r->calib_note), "No calibration profile is named: every "
			 "hardware parameter comes from the catalogs (models/*.json), with the source "
			 "listed below.");
		return;
	}
	const pp_profile *p = &cal->prof;
	pp_store *st = NULL;
	pp_err err = {0};
	if (pp_store_open(&st, cal->db, &err)) {
		warn(r, "calibration database: %s", err.msg);
		return;
	}
	pp_sb runs = {0};
	for (int i = 0; i < p->nruns; i++)
		pp_sb_addf(&runs, "%s%lld", i ? ", " : "", (long long)p->runs[i]);
	snprintf(r->calib_note, sizeof(r->calib_note), "Calibration profile \"%s\" version %d in %s, "
		 "fitted from calibration run%s %s.", cal->name, p->version, cal->db,
		 p->nruns == 1 ? "" : "s", runs.buf ? runs.buf : "(none)");
	pp_sb_release(&runs);
	for (int i = 0; i < p->nruns; i++)
		read_verdict(r, st, p->runs[i], cal->db);
	pp_store_close(st);
	size_t l = strlen(r->calib_note);
	if (r->have_cost)
		snprintf(r->calib_note + l, sizeof(r->calib_note) - l, " The cost engine applies it to "
			 "the options on the hardware it measured (%s, %s inside nodes, %s across), "
			 "with the narrower step-time uncertainty of a calibrated prediction; options "
			 "on other hardware keep the catalog's figures and uncertainty.",
			 s->cluster.gpu->id, s->cluster.intra->id, s->cluster.inter->id);
	else if (r->hw.profile[0])
		snprintf(r->calib_note + l, sizeof(r->calib_note) - l, " Applied to the step: the "
			 "parameters marked calibrated below.");
}

int pp_report_build(pp_report *r, const pp_scenario *s, const pp_catalog *cat,
		    const char *scenario_path, const pp_report_opts *o, pp_err *err)
{
	double t0 = pp_mono_s();
	int rc;
	pp_hwcal *own = NULL;
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
	/* the hardware as every command resolves it (calib/hwres.h): a
	 * profile named but not there refuses the report as it refuses predict */
	const pp_hwcal *cal = o ? o->hwcal : NULL;
	if (!cal) {
		own = pp_xmalloc(sizeof(*own));
		if ((rc = pp_hwcal_init(own, s, NULL, NULL, o ? o->store_path : NULL, err)))
			goto out;
		cal = own;
	}
	if ((rc = pp_hw_resolve(&r->hw, cat, &s->cluster, cal, err)))
		goto out;
	if (s->costs.present) {
		pp_cost_opts co;
		memset(&co, 0, sizeof(co));
		co.predict = pp_predict;
		co.serve_curve = true; /* the serving section's throughput-latency chart */
		co.hwcal = cal;
		if (o) {
			co.progress = o->progress;
			co.progress_ctx = o->progress_ctx;
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
		pp_predict_opts po;
		memset(&po, 0, sizeof(po));
		if ((rc = pp_predict(s, &r->hw, &po, &r->pred, err)))
			goto out;
		r->have_pred = true;
		pp_evidence_band_of(r->cat, s, r->pred.step_time_s, &r->band);
		pp_scenario_plausibility(s, &r->warnings, &r->nwarnings);
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
	calibration(r, cal);
	rc = 0;
out:
	free(own);
	r->elapsed_s = pp_mono_s() - t0;
	if (rc)
		pp_report_release(r);
	return rc;
}

void pp_report_release(pp_report *r)
{
	if (r->have_cost)
		pp_cost_result_release(&r->cost);
	pp_warn_free(r->warnings, r->nwarnings);
	free(r->verdict);
	r->warnings = NULL;
	r->verdict = NULL;
	r->nwarnings = r->nverdict = 0;
	r->have_cost = r->have_pred = false;
}

/* ---- the stored record ---- */

/* dollars, times and sizes: ten significant digits */
#define SIG 10

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Hashes of the catalog's *.json files, sorted by name. */
static void catalog_hashes(const char *dir, cJSON *files)
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
	for (size_t i = 0; i < n; i++) {
		char *path = pp_path_join(dir, names[i]), *text = NULL, h[17] = "";
		size_t len = 0;
		pp_err err = {0};
		if (pp_read_file(path, (size_t)64 << 20, &text, &len, &err) == 0)
			pp_hash_hex(text, len, h);
		pp_json_str(files, names[i], h);
		free(text);
		free(path);
		free(names[i]);
	}
	free(names);
}

void pp_report_inputs_json(const pp_report *r, pp_sb *sb)
{
	const pp_scenario *s = r->s;
	cJSON *j = pp_json_obj(NULL, NULL);
	pp_json_str(j, "scenario_file", r->scenario_path);
	pp_json_str(j, "scenario_hash", s->hash);
	pp_json_str(j, "podplan_version", PP_VERSION);
	if (s->doc.root)
		pp_json_add(j, "scenario", cJSON_Duplicate(s->doc.root, 1));
	else
		pp_json_null(j, "scenario");
	if (r->have_cost) {
		pp_json_int(j, "seed", (int64_t)r->cost.seed);
		pp_json_int(j, "draws", r->cost.draws);
	}
	cJSON *cal = pp_json_obj(j, "calibration");
	pp_json_str(cal, "db", s->calib_db[0] ? s->calib_db : NULL);
	pp_json_str(cal, "profile", s->calib_profile[0] ? s->calib_profile : NULL);
	pp_json_str(cal, "applied_profile", r->hw.profile[0] ? r->hw.profile : NULL);
	cJSON *cat = pp_json_obj(j, "catalog");
	/* the files are known by their hashes; a directory of this machine is
	 * not recorded (a public form, else its last component) */
	char cdir[1024];
	pp_report_public_path(pp_catalog_dir(r->cat), cdir, sizeof(cdir));
	if (cdir[0] == '/') {
		const char *base = strrchr(cdir, '/');
		memmove(cdir, base + 1, strlen(base + 1) + 1);
	}
	pp_json_str(cat, "dir", cdir);
	catalog_hashes(pp_catalog_dir(r->cat), pp_json_obj(cat, "files"));
	cJSON *figs = pp_json_arr(j, "figures");
	for (int i = 0; r->have_cost && i < r->cost.nsources; i++) {
		const pp_cost_source *f = &r->cost.sources[i];
		cJSON *x = pp_json_obj(figs, NULL);
		pp_json_str(x, "item", f->item);
		pp_json_num(x, "value", f->value, SIG);
		pp_json_str(x, "unit", f->unit);
		pp_json_str(x, "date", f->date);
		pp_json_str(x, "source", f->source);
		pp_json_bool(x, "estimate", f->estimate);
	}
	cJSON *par = pp_json_obj(j, "parameters");
	for (int i = 0; i < r->hw.norigins; i++)
		pp_json_str(par, r->hw.origins[i].name, r->hw.origins[i].origin);
	pp_json_print(j, false, sb);
	cJSON_Delete(j);
}

static void option_record(cJSON *arr, const pp_cost_option *o)
{
	cJSON *x = pp_json_obj(arr, NULL);
	pp_json_str(x, "name", o->name);
	pp_json_str(x, "kind", pp_option_kind_names[o->kind]);
	pp_json_str(x, "label", o->label);
	pp_json_str(x, "provider", o->provider);
	pp_json_str(x, "tier", o->tier);
	pp_json_str(x, "gpu", o->gpu);
	pp_json_int(x, "num_gpus", o->num_gpus);
	pp_json_bool(x, "feasible", o->feasible);
	pp_json_str(x, "infeasible_why", o->infeasible_why);
	static const char *const keys[] = {
		"usd_total", "p10_usd", "p50_usd", "p90_usd", "p_cheapest", "usd_per_million_tokens",
		"time_to_train_s", "lead_time_s", "step_time_s", "tokens_per_s", "mfu", "goodput",
		"memory_per_gpu_bytes"};
	const double vals[] = {o->usd_total, o->p10_usd, o->p50_usd, o->p90_usd, o->p_cheapest,
			       o->usd_per_million_tokens, o->time_to_train_s, o->lead_time_s,
			       o->step_time_s, o->tokens_per_s, o->mfu, o->goodput,
			       o->memory_per_gpu_bytes};
	for (size_t k = 0; k < PP_ARRAY_LEN(keys); k++)
		pp_json_num(x, keys[k], vals[k], SIG);
	cJSON *comp = pp_json_obj(x, "components");
	for (int k = 0; k < PP_CC_COUNT; k++)
		pp_json_num(comp, pp_cost_comp_names[k], o->components[k], SIG);
	pp_breakdown_json(x, "breakdown", &o->breakdown, SIG);
}

static void predict_record(cJSON *j, const pp_report *r)
{
	const pp_result *p = &r->pred;
	cJSON *x = pp_json_obj(j, "predict");
	pp_json_num(x, "step_time_s", p->step_time_s, SIG);
	pp_band_json(&r->band, x);
	pp_json_num(x, "tokens_per_s", p->tokens_per_s, SIG);
	pp_json_num(x, "mfu", p->mfu, SIG);
	pp_json_num(x, "hfu", p->hfu, SIG);
	pp_json_num(x, "time_to_train_s", r->s->training.train_tokens > 0 ? p->time_to_train_s : NAN,
		    SIG);
	pp_json_num(x, "memory_per_gpu_bytes", p->memory.total_bytes, SIG);
	pp_json_num(x, "memory_capacity_bytes", p->memory.capacity_bytes, SIG);
	pp_json_bool(x, "fits", p->memory.fits);
	pp_json_str(x, "bottleneck", p->bottleneck);
	pp_breakdown_json(x, "breakdown", &p->breakdown, SIG);
}

void pp_report_results_json(const pp_report *r, const char *out_dir, pp_sb *sb)
{
	pp_sb h = {0};
	pp_report_headline(r, &h);
	cJSON *j = pp_json_obj(NULL, NULL);
	pp_json_str(j, "kind", r->have_cost ? "cost" : "predict");
	pp_json_str(j, "output_dir", out_dir);
	pp_json_str(j, "headline", h.buf ? h.buf : "");
	pp_sb_release(&h);
	if (r->have_cost) {
		const pp_cost_result *c = &r->cost;
		pp_json_str(j, "recommended", c->recommended >= 0 ? c->options[c->recommended].name : NULL);
		pp_json_str(j, "runner_up", c->runner_up >= 0 ? c->options[c->runner_up].name : NULL);
		pp_json_str(j, "recommendation", c->recommendation);
		pp_json_str(j, "work", c->work);
		pp_json_num(j, "horizon_months", c->horizon_months, SIG);
		pp_json_int(j, "seed", (int64_t)c->seed);
		pp_json_int(j, "draws", c->draws);
		cJSON *opts = pp_json_arr(j, "options");
		for (int i = 0; i < c->noptions; i++)
			option_record(opts, &c->options[i]);
	}
	if (r->have_pred)
		predict_record(j, r);
	cJSON *w = pp_json_arr(j, "warnings");
	for (int i = 0; i < r->nwarnings; i++)
		pp_json_str(w, NULL, r->warnings[i]);
	pp_json_print(j, false, sb);
	cJSON_Delete(j);
}
