/*
 * test_report.c - the report of a scenario (reports/report.h): the page's
 * structure and content for a cost scenario, a QLoRA scenario and a
 * step-only scenario and a serving one, the CSV files (RFC 4180 field counts, rows against
 * the result, golden headers), the escaping of hostile names in HTML, SVG,
 * Markdown and CSV, a scenario where nothing fits, the SLOW calibration
 * verdict, and how long rendering every scenario takes. The chart
 * primitives are tested in test_svg.c, the report command and its history
 * in test_history.c.
 *
 * Prices come from the fixed fixture (tests/data/catalog/), so the dated
 * warnings and the answers do not move with a price update of models/.
 *
 * Golden files (formats only) live in tests/golden/; regenerate them with
 *   PP_UPDATE_GOLDEN=1 build/tests/test_report
 * and read the diff before committing.
 */
#include "calib/calibdb.h"
#include "calib/profile.h"
#include "core/fmt.h"
#include "harness.h"
#include "report.h"
#include "core/store.h"
#include "testutil.h"
#include "textutil.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define S70 "scenarios/llama70b-2T-tokens-rent-h100-or-build-h100-or-h200.json"
#define SQLORA "scenarios/qlora-13b-weekly-tier4-box-or-tier5-pod-or-api.json"
#define SDEF "scenarios/default.json"
#define SSERVE "tests/data/serve-cost-8b.json"
#define NOW 1764547200.0 /* 2025-12-01 00:00 UTC: a pinned report timestamp */

/* ---- helpers ---- */

static int load_build(const char *path, int draws, pp_scenario *s, pp_report *r)
{
	pp_err err = {0};
	memset(s, 0, sizeof(*s));
	if (pp_scenario_load(s, path, tu_catalog(), &err)) {
		pp_t_diag("%s", err.msg);
		pp_scenario_release(s);
		return -1;
	}
	pp_report_opts o;
	memset(&o, 0, sizeof(o));
	o.now_s = NOW;
	if (draws >= 0) {
		o.draws_given = true;
		o.draws = draws;
	}
	if (pp_report_build(r, s, tu_catalog(), path, &o, &err)) {
		pp_t_diag("%s", err.msg);
		pp_scenario_release(s);
		return -1;
	}
	return 0;
}

static int build_text(const char *name, const char *json, pp_scenario *s, pp_report *r)
{
	pp_err err = {0};
	if (pp_scenario_parse(s, name, json, strlen(json), tu_catalog(), &err)) {
		pp_t_diag("%s", err.msg);
		pp_scenario_release(s);
		return -1;
	}
	pp_report_opts o;
	memset(&o, 0, sizeof(o));
	o.now_s = NOW;
	if (pp_report_build(r, s, tu_catalog(), name, &o, &err)) {
		pp_t_diag("%s", err.msg);
		pp_scenario_release(s);
		return -1;
	}
	return 0;
}

/* The structure of a page: section and figure ids and h2 titles in order,
 * then the Markdown headings. */
static void structure(const char *html, const char *md, pp_sb *out)
{
	/* walk the tags in document order */
	static const char *const tags[] = {"<section id=\"", "<figure id=\"", "<h2>", "<svg class=\"chart\" id=\""};
	const char *p = html;
	for (;;) {
		const char *best = NULL;
		int bt = -1;
		for (int t = 0; t < 4; t++) {
			const char *q = strstr(p, tags[t]);
			if (q && (!best || q < best)) {
				best = q;
				bt = t;
			}
		}
		if (!best)
			break;
		const char *v = best + strlen(tags[bt]);
		const char *e = strpbrk(v, bt == 2 ? "<" : "\"");
		if (!e)
			break;
		static const char *const kinds[] = {"section", "figure", "h2", "svg"};
		/* formats only: a heading's count, "(4)", is data */
		const char *cut = bt == 2 ? strstr(v, " (") : NULL;
		if (cut && cut < e)
			e = cut;
		pp_sb_addf(out, "html %s %.*s\n", kinds[bt], (int)(e - v), v);
		p = e;
	}
	for (const char *l = md; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		if (n > 3 && !strncmp(l, "## ", 3))
			pp_sb_addf(out, "md %.*s\n", (int)n, l);
		l += n + (e ? 1 : 0);
	}
}

/* Compare text with a golden file, or write it when PP_UPDATE_GOLDEN is set. */
static void golden(const char *file, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "tests/golden/%s", file);
	const char *upd = getenv("PP_UPDATE_GOLDEN");
	if (upd && *upd) {
		pp_err err = {0};
		CHECK(pp_write_file_atomic(path, text, strlen(text), &err) == 0);
		pp_t_diag("wrote %s", path);
		return;
	}
	char *want = tu_slurp(path);
	CHECK(want != NULL);
	if (want && strcmp(want, text)) {
		pp_t_diag("golden %s differs; got:\n%s  (PP_UPDATE_GOLDEN=1 build/tests/test_report "
		          "regenerates it)", path, text);
		CHECK(!"golden file matches");
	}
	free(want);
}

/* ---- the report of a cost scenario ---- */

static void check_csvs(const pp_report *r, const char *golden_name)
{
	pp_report_file files[PP_REPORT_MAX_FILES];
	int n = pp_report_csv(r, files, PP_REPORT_MAX_FILES);
	CHECK(n >= 5);
	pp_sb heads = {0};
	for (int i = 0; i < n; i++) {
		const char *body = files[i].body.buf;
		int fields[4096];
		int rows = tu_csv_shape(body, fields, 4096);
		CHECK(rows >= 1);
		for (int k = 1; k < rows && k < 4096; k++)
			if (fields[k] != fields[0]) {
				pp_t_diag("%s row %d: %d fields, header has %d", files[i].name, k, fields[k],
				          fields[0]);
				CHECK(fields[k] == fields[0]);
				break;
			}
		const char *e = strstr(body, "\r\n");
		pp_sb_addf(&heads, "%s: %.*s\n", files[i].name, e ? (int)(e - body) : 0, body);
		if (r->have_cost && !strcmp(files[i].name, "options.csv")) {
			CHECK(rows == r->cost.noptions + 1);
			/* the recommended row's usd_total is the engine's, to 10 digits */
			int ct = tu_csv_col(body, "usd_total"), cr = tu_csv_col(body, "recommended");
			char b[64];
			for (int k = 1; k < rows; k++)
				if (!strcmp(tu_csv_field(body, k, cr, b, sizeof(b)), "true")) {
					double v = strtod(tu_csv_field(body, k, ct, b, sizeof(b)), NULL);
					CHECK_NEAR(v, r->cost.options[r->cost.recommended].usd_total, 1e-9);
				}
		}
		if (r->have_cost && !strcmp(files[i].name, "cumulative_cost.csv")) {
			int want = 1;
			for (int k = 0; k < r->cost.noptions; k++)
				if (r->cost.options[k].cum_usd)
					want += r->cost.options[k].nmonths + 1;
			CHECK(rows == want);
		}
		if (r->have_cost && !strcmp(files[i].name, "sources.csv"))
			CHECK(rows == r->cost.nsources + 1);
	}
	golden(golden_name, heads.buf);
	pp_sb_release(&heads);
	pp_report_files_release(files, n);
}

static void test_report_cost(void)
{
	pp_scenario s;
	pp_report r;
	if (load_build(S70, 2000, &s, &r))
		{
		CHECK(!"report builds");
		return;
	}
	const pp_cost_result *c = &r.cost;
	CHECK(r.have_cost && c->noptions >= 2);
	pp_sb html = {0}, md = {0};
	pp_report_html(&r, &html);
	pp_report_md(&r, &md);
	const char *h = html.buf;
	/* self-contained: no script, no external resource of any kind */
	CHECK(strstr(h, "<script") == NULL);
	CHECK(strstr(h, " src=") == NULL);
	CHECK(strstr(h, "url(") == NULL);
	CHECK(strstr(h, "@import") == NULL);
	CHECK(strstr(h, "<link") == NULL);
	CHECK(strstr(h, "<img") == NULL && strstr(h, "<iframe") == NULL);
	CHECK_CONTAINS(h, "@media print");
	CHECK(tu_utf8_valid(h));
	/* the question and the answer first */
	long pa = tu_pos(h, "<section id=\"answer\""), pw = tu_pos(h, "id=\"warnings\""),
	     po = tu_pos(h, "<section id=\"options\""), pc = tu_pos(h, "<section id=\"charts\"");
	CHECK(pa > 0 && pa < pw && pw < po && po < pc);
	CHECK_CONTAINS(h, c->question);
	/* the cheapest feasible option that can be obtained, found here by a
	 * scan, is the answer; the 1,024-GPU spot option is cheaper but needs
	 * 128 spot nodes at once: the risked alternative, never the answer */
	int best = -1, cheapest = -1;
	for (int i = 0; i < c->noptions; i++) {
		const pp_cost_option *x = &c->options[i];
		if (x->feasible && (cheapest < 0 || x->usd_total < c->options[cheapest].usd_total))
			cheapest = i;
		if (x->feasible && x->obtainable &&
		    (best < 0 || x->usd_total < c->options[best].usd_total))
			best = i;
	}
	CHECK(best == c->recommended);
	CHECK(cheapest >= 0 && !strcmp(c->options[cheapest].tier, "spot"));
	CHECK(!c->options[cheapest].obtainable && c->risked == cheapest);
	CHECK(c->options[best].obtainable && strcmp(c->options[best].tier, "spot"));
	/* no warning doubts the answer; one doubts the spot option */
	for (int i = 0; i < r.nwarnings; i++) {
		if (strstr(r.warnings[i], "may not be obtainable"))
			CHECK(strstr(r.warnings[i], c->options[cheapest].name) != NULL);
		char q[96];
		snprintf(q, sizeof(q), "\"%s\"", c->options[best].name);
		if (strstr(r.warnings[i], q))
			CHECK(strstr(r.warnings[i], "obtainable") == NULL);
	}
	char money[32];
	pp_fmt_usd(c->options[best].usd_total, money, sizeof(money));
	char *ans = strndup(h + pa, (size_t)(pw - pa));
	CHECK_CONTAINS(ans, c->options[best].name);
	CHECK_CONTAINS(ans, money);
	CHECK_CONTAINS(ans, "P10-P90");
	CHECK_CONTAINS(ans, "may not be obtainable");
	CHECK_CONTAINS(ans, c->options[cheapest].name);
	free(ans);
	/* six charts, each an inline SVG inside its figure */
	static const char *const charts[] = {"cost", "tradeoff", "cumulative", "tornado", "distribution",
					     "steptime"};
	for (size_t i = 0; i < PP_ARRAY_LEN(charts); i++) {
		char a[64], b[80];
		snprintf(a, sizeof(a), "<figure id=\"fig-%s\">", charts[i]);
		snprintf(b, sizeof(b), "<svg class=\"chart\" id=\"chart-%s\"", charts[i]);
		CHECK_CONTAINS(h, a);
		CHECK_CONTAINS(h, b);
		CHECK(tu_pos(h, a) < tu_pos(h, b));
	}
	CHECK(tu_count(h, "<svg class=\"chart\"") == 6);
	/* every option with a simulated step: its parts add up to the step (the
	 * breakdown the chart stacks) and it has a row in the chart */
	const char *st = tu_after(h, "id=\"chart-steptime\"");
	for (int i = 0; i < c->noptions; i++) {
		const pp_cost_option *o = &c->options[i];
		if (!isfinite(o->step_time_s))
			continue;
		double p[PP_BD_COUNT], sum = 0;
		pp_breakdown_values(&o->breakdown, p);
		for (int k = 0; k < PP_BD_COUNT; k++)
			sum += p[k];
		CHECK_NEAR(sum, o->step_time_s, 1e-3);
		CHECK_CONTAINS(st, o->name);
	}
	/* warnings: prices dated 2024 are more than 12 months before the as-of date */
	CHECK_CONTAINS(tu_after(h, "id=\"warnings\""), "older than 12 months");
	CHECK_CONTAINS(h, "<span class=\"tag old\">old</span>");
	/* assumptions: every figure is listed with its date */
	for (int i = 0; i < c->nsources; i++) {
		pp_sb e = {0};
		pp_sb_add_html(&e, c->sources[i].item);
		CHECK_CONTAINS(tu_after(h, "id=\"assumptions\""), e.buf);
		pp_sb_release(&e);
	}
	/* markdown */
	CHECK_CONTAINS(md.buf, "**Answer:**");
	CHECK_CONTAINS(md.buf, "## Options");
	CHECK_CONTAINS(md.buf, "## Warnings");
	/* golden structure */
	pp_sb g = {0};
	structure(h, md.buf, &g);
	golden("report-structure-cost.txt", g.buf);
	pp_sb_release(&g);
	check_csvs(&r, "report-csv-headers-cost.txt");
	/* the record: results carry the answer, inputs every figure's date */
	pp_sb in = {0}, res = {0};
	pp_report_inputs_json(&r, &in);
	pp_report_results_json(&r, "/tmp/x", &res);
	cJSON *ji = cJSON_Parse(in.buf), *jr = cJSON_Parse(res.buf);
	CHECK(ji && jr);
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(ji, "figures")) == c->nsources);
	CHECK(cJSON_IsString(cJSON_GetObjectItem(jr, "recommended")) &&
	      !strcmp(cJSON_GetObjectItem(jr, "recommended")->valuestring, c->options[best].name));
	CHECK(cJSON_IsObject(cJSON_GetObjectItem(cJSON_GetObjectItem(ji, "catalog"), "files")));
	cJSON_Delete(ji);
	cJSON_Delete(jr);
	pp_sb_release(&in);
	pp_sb_release(&res);
	pp_sb_release(&html);
	pp_sb_release(&md);
	pp_report_release(&r);
	pp_scenario_release(&s);
}

static void test_report_qlora(void)
{
	pp_scenario s;
	pp_report r;
	if (load_build(SQLORA, 500, &s, &r))
		{
		CHECK(!"report builds");
		return;
	}
	const pp_cost_result *c = &r.cost;
	int adapters = 0;
	for (int i = 0; i < c->noptions; i++) {
		const pp_cost_option *o = &c->options[i];
		if (!isfinite(o->step_time_s))
			continue;
		adapters += !strcmp(o->method, "qlora") || !strcmp(o->method, "lora");
		double p[PP_BD_COUNT], sum = 0;
		pp_breakdown_values(&o->breakdown, p);
		for (int k = 0; k < PP_BD_COUNT; k++)
			sum += p[k];
		/* the adapter rescaling applied part by part still adds up to the step */
		CHECK_NEAR(sum, o->step_time_s, 1e-3);
		CHECK(o->breakdown.compute_s > 0);
	}
	CHECK(adapters >= 1);
	pp_sb html = {0};
	pp_report_html(&r, &html);
	/* a hosted API option gets a note in the step chart, not an empty bar */
	bool api = false;
	for (int i = 0; i < c->noptions; i++)
		api |= c->options[i].kind == PP_OPT_API;
	if (api)
		CHECK_CONTAINS(tu_after(html.buf, "id=\"chart-steptime\""), "hosted API: nothing simulated");
	pp_sb_release(&html);
	pp_report_release(&r);
	pp_scenario_release(&s);
}

/* An inference work with a serving section: its serving section after the
 * charts (the replicas' table and the two throughput-latency charts), $ per
 * 1M input and output tokens in the answer, the serving CSVs (golden
 * headers and structure). */
static void test_report_serving(void)
{
	pp_scenario s;
	pp_report r;
	if (load_build(SSERVE, 200, &s, &r)) {
		CHECK(!"report builds");
		return;
	}
	const pp_cost_result *c = &r.cost;
	CHECK(c->inference.present && c->inference.simulated);
	pp_sb html = {0}, md = {0};
	pp_report_html(&r, &html);
	pp_report_md(&r, &md);
	const char *h = html.buf;
	long pc = tu_pos(h, "<section id=\"charts\""), ps = tu_pos(h, "<section id=\"serving\""),
	     pf = tu_pos(h, "<section id=\"finance\"");
	CHECK(pc > 0 && pc < ps && ps < pf);
	const char *sv = tu_after(h, "<section id=\"serving\"");
	CHECK_CONTAINS(sv, "<table class=\"serving\">");
	CHECK_CONTAINS(sv, "<figure id=\"fig-serving-ttft\">");
	CHECK_CONTAINS(sv, "<figure id=\"fig-serving-tpot\">");
	CHECK_CONTAINS(sv, "SLO: p99 TTFT &lt;= 500 ms");
	CHECK(tu_count(h, "<svg class=\"chart\"") == 8);
	/* every simulated option's curve: from a quarter to 1.5 times its max rate */
	for (int i = 0; i < c->noptions; i++) {
		const pp_cost_serving *v = &c->options[i].serving;
		if (c->options[i].kind == PP_OPT_API)
			continue;
		CHECK(v->ncurve == 8);
		CHECK_NEAR(v->curve[0].request_rate, 0.25 * v->max_rate_rps, 1e-9);
		CHECK_NEAR(v->curve[v->ncurve - 1].request_rate, 1.5 * v->max_rate_rps, 1e-9);
		for (int k = 1; k < v->ncurve; k++)
			CHECK(v->curve[k].request_rate > v->curve[k - 1].request_rate);
	}
	/* the answer's $ per 1M tokens says input and output */
	CHECK_CONTAINS(tu_after(h, "<div class=\"kpis\">"), " in / ");
	CHECK_CONTAINS(md.buf, "## Serving");
	pp_sb g = {0};
	structure(h, md.buf, &g);
	golden("report-structure-serving.txt", g.buf);
	pp_sb_release(&g);
	check_csvs(&r, "report-csv-headers-serving.txt");
	pp_sb_release(&html);
	pp_sb_release(&md);
	pp_report_release(&r);
	pp_scenario_release(&s);
}

static void test_report_predict(void)
{
	pp_scenario s;
	pp_report r;
	if (load_build(SDEF, -1, &s, &r))
		{
		CHECK(!"report builds");
		return;
	}
	CHECK(!r.have_cost && r.have_pred);
	pp_sb html = {0}, md = {0};
	pp_report_html(&r, &html);
	pp_report_md(&r, &md);
	CHECK(tu_count(html.buf, "<svg class=\"chart\"") == 2);
	CHECK_CONTAINS(html.buf, "id=\"chart-steptime\"");
	CHECK_CONTAINS(html.buf, "id=\"chart-memory\"");
	CHECK_CONTAINS(html.buf, "no &quot;costs&quot; section");
	/* the time to train: tokens / (tokens per step) x step time, by hand */
	double steps = ceil(s.training.train_tokens / r.pred.tokens_per_step);
	CHECK_NEAR(r.pred.time_to_train_s, steps * r.pred.step_time_s, 1e-3);
	char d[48];
	CHECK_CONTAINS(html.buf, pp_fmt_span(r.pred.time_to_train_s, d, sizeof(d)));
	pp_sb g = {0};
	structure(html.buf, md.buf, &g);
	golden("report-structure-predict.txt", g.buf);
	pp_sb_release(&g);
	check_csvs(&r, "report-csv-headers-predict.txt");
	pp_sb_release(&html);
	pp_sb_release(&md);
	pp_report_release(&r);
	pp_scenario_release(&s);
}

/* ---- escaping ---- */

#define HOSTILE_SCENARIO                                                                         \
	"{\"name\": \"<script>alert(1)</script>\",\n"                                            \
	" \"description\": \"<img src=x onerror=alert(2)> & \\\"quoted\\\" 'q'\",\n"             \
	" \"model\": {\"preset\": \"llama2-7b\", \"seq_length\": 4096},\n"                       \
	" \"training\": {\"global_batch_size\": 64, \"micro_batch_size\": 1, \"train_tokens\": 1e10},\n" \
	" \"parallel\": {\"zero_stage\": 1},\n"                                                  \
	" \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8},\n"                              \
	" \"costs\": {\"work\": {\"type\": \"run\"}, \"uncertainty\": {\"draws\": 300, \"seed\": 3},\n" \
	"  \"options\": [\n"                                                                     \
	"   {\"name\": \"<b>bold</b>&\\\"'\", \"kind\": \"rent\", \"provider\": \"lambda_8x\", \"tier\": \"on_demand\"},\n" \
	"   {\"name\": \"=HYPERLINK(\\\"http://x\\\")\", \"kind\": \"build\"}]}}\n"

static void test_escaping(void)
{
	pp_scenario s;
	pp_report r;
	if (build_text("hostile.json", HOSTILE_SCENARIO, &s, &r))
		{
		CHECK(!"hostile scenario builds");
		return;
	}
	pp_sb html = {0}, md = {0};
	pp_report_html(&r, &html);
	pp_report_md(&r, &md);
	const char *h = html.buf;
	CHECK(strstr(h, "<script") == NULL);
	CHECK(strstr(h, "<img") == NULL);
	CHECK(strstr(h, "<b>bold") == NULL);
	CHECK_CONTAINS(h, "<title>&lt;script&gt;alert(1)&lt;/script&gt; - podplan report</title>");
	CHECK_CONTAINS(h, "&lt;img src=x onerror=alert(2)&gt; &amp; &quot;quoted&quot; &#39;q&#39;");
	/* in SVG text too: the option name as a bar label of the cost chart */
	const char *svg = tu_after(h, "<svg class=\"chart\" id=\"chart-cost\"");
	const char *end = strstr(svg, "</svg>");
	char *one = strndup(svg, end ? (size_t)(end - svg) : strlen(svg));
	CHECK_CONTAINS(one, "&lt;b&gt;bold&lt;/b&gt;&amp;&quot;&#39;");
	free(one);
	/* Markdown: no raw HTML */
	CHECK(strstr(md.buf, "<script") == NULL && strstr(md.buf, "<b>") == NULL);
	CHECK_CONTAINS(md.buf, "&lt;script&gt;alert(1)&lt;/script&gt;");
	/* CSV: a formula-looking name stays text in a spreadsheet */
	pp_report_file files[PP_REPORT_MAX_FILES];
	int n = pp_report_csv(&r, files, PP_REPORT_MAX_FILES);
	for (int i = 0; i < n; i++)
		if (!strcmp(files[i].name, "step_time.csv")) {
			CHECK_CONTAINS(files[i].body.buf, "\"'=HYPERLINK(\"\"http://x\"\")\"");
			CHECK_CONTAINS(files[i].body.buf, "\"<b>bold</b>&\"\"'\"");
		}
	pp_report_files_release(files, n);
	pp_sb_release(&html);
	pp_sb_release(&md);
	pp_report_release(&r);
	pp_scenario_release(&s);
}

/* No option fits: the page says so first and every chart still renders. */
static void test_nothing_fits(void)
{
	static const char json[] =
		"{\"name\": \"70b-on-one-node\", \"model\": {\"preset\": \"llama3-70b\", \"seq_length\": 4096},"
		" \"training\": {\"global_batch_size\": 64, \"micro_batch_size\": 1, \"train_tokens\": 1e9},"
		" \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8},"
		" \"costs\": {\"work\": {\"type\": \"run\"}, \"uncertainty\": {\"draws\": 200, \"seed\": 1},"
		" \"options\": [{\"name\": \"rent\", \"kind\": \"rent\", \"provider\": \"lambda_8x\", "
		"\"tier\": \"on_demand\"}]}}";
	pp_scenario s;
	pp_report r;
	if (build_text("nofit.json", json, &s, &r)) {
		CHECK(!"scenario builds");
		return;
	}
	/* 70B parameters x 16 bytes (bf16 weights and grads, fp32 Adam) / 8 GPUs = 140 GB > 80 GB */
	CHECK(r.cost.recommended < 0);
	pp_sb html = {0}, h = {0};
	pp_report_html(&r, &html);
	pp_report_headline(&r, &h);
	CHECK_CONTAINS(h.buf, "No option can do the work");
	CHECK_CONTAINS(tu_after(html.buf, "<section id=\"answer\""), "No option can do the work");
	CHECK(tu_count(html.buf, "<svg class=\"chart\"") == 6);
	CHECK(strstr(html.buf, "--draws N") == NULL); /* draws were asked for: not the hint */
	pp_sb_release(&html);
	pp_sb_release(&h);
	pp_report_release(&r);
	pp_scenario_release(&s);
}

/* ---- calibration verdict ---- */

static const char *const verdict_json =
	"{\"format\": \"podplan-verdict/1\", \"gpu\": \"h100-sxm\", \"rows\": ["
	"{\"check\": \"all_reduce busbw\", \"scope\": \"8 GPUs\", \"measured\": 118.0, "
	"\"expected\": 360.0, \"unit\": \"GB/s\", \"ratio\": 0.328, \"verdict\": \"SLOW\", "
	"\"basis\": \"nvlink4 x 0.8\", \"cause\": \"P2P through host memory (NVLink down?)\"},"
	"{\"check\": \"bf16 GEMM\", \"scope\": \"GPU 0\", \"measured\": 700, \"expected\": 720, "
	"\"unit\": \"TFLOP/s\", \"ratio\": 0.97, \"verdict\": \"OK\", \"basis\": \"peak x 0.72\"}]}";

static void test_calibration_verdict(void)
{
	char db[512];
	snprintf(db, sizeof(db), "%s/calib.db", pp_t_tmpdir());
	pp_store *st = NULL;
	pp_err err = {0};
	CHECK(pp_store_open(&st, db, &err) == 0);
	if (!st)
		return;
	pp_calib_run info;
	pp_calib_run_init(&info);
	info.source = "fake";
	info.command_line = "podplan-calibrate --test";
	info.host = "pod-7";
	info.gpu_name = "NVIDIA H100 80GB HBM3";
	info.gpu_count = 8;
	int64_t id = 0;
	CHECK(pp_calibdb_begin_run(st, &info, &id, &err) == 0);
	CHECK(pp_calibdb_end_run(st, id, "complete", verdict_json, &err) == 0);
	/* a profile of that run, with no fitted parameter */
	pp_profile p;
	memset(&p, 0, sizeof(p));
	snprintf(p.name, sizeof(p.name), "pod-a");
	p.runs[0] = id;
	p.nruns = 1;
	CHECK(pp_profile_save(st, &p, &err) == 0 && p.version == 1);
	pp_store_close(st);
	/* the profile's run: its SLOW verdict; a run id or a name the store
	 * lacks is no profile, refused as podplan predict refuses it */
	static const char *const profiles[] = {"pod-a", "1", "nope"};
	for (int k = 0; k < 3; k++) {
		char json[1024];
		snprintf(json, sizeof(json), "{\"name\": \"calib\", \"model\": {\"preset\": \"llama2-7b\"},"
			 "\"training\": {\"global_batch_size\": 64, \"micro_batch_size\": 1},"
			 "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8},"
			 "\"calibration\": {\"db\": \"%s\", \"profile\": \"%s\"}}", db, profiles[k]);
		pp_scenario s;
		pp_report r;
		if (k > 0) {
			CHECK(build_text("calib.json", json, &s, &r) != 0);
			continue;
		}
		if (build_text("calib.json", json, &s, &r)) {
			CHECK(!"calibration scenario builds");
			continue;
		}
		pp_sb all = {0};
		for (int i = 0; i < r.nwarnings; i++)
			pp_sb_addf(&all, "%s\n", r.warnings[i]);
		CHECK_CONTAINS(all.buf, "SLOW fabric verdict");
		CHECK_CONTAINS(all.buf, "all_reduce busbw (8 GPUs) measured 118 GB/s, expected 360 GB/s");
		CHECK_CONTAINS(all.buf, "pod-7");
		CHECK(r.nverdict == 2);
		pp_sb html = {0};
		pp_report_html(&r, &html);
		CHECK_CONTAINS(tu_after(html.buf, "id=\"calibration\""), "<span class=\"tag slow\">SLOW</span>");
		pp_sb_release(&html);
		CHECK_CONTAINS(r.calib_note, "version 1");
		pp_sb_release(&all);
		pp_report_release(&r);
		pp_scenario_release(&s);
	}
	/* a db that does not exist: refused, and no file created */
	char json[1024], missing[600];
	snprintf(missing, sizeof(missing), "%s/missing.db", pp_t_tmpdir());
	snprintf(json, sizeof(json), "{\"name\": \"calib\", \"model\": {\"preset\": \"llama2-7b\"},"
		 "\"training\": {\"global_batch_size\": 64, \"micro_batch_size\": 1},"
		 "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8},"
		 "\"calibration\": {\"db\": \"%s\", \"profile\": \"x\"}}", missing);
	pp_scenario s;
	pp_report r;
	CHECK(build_text("calib.json", json, &s, &r) != 0);
	struct stat sb;
	CHECK(stat(missing, &sb) != 0);
}

/* ---- speed ---- */

static void test_speed(void)
{
	DIR *d = opendir("scenarios");
	struct dirent *e;
	double total = 0;
	int n = 0;
	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 6 || strcmp(e->d_name + l - 5, ".json"))
			continue;
		char path[600];
		snprintf(path, sizeof(path), "scenarios/%s", e->d_name);
		double t0 = pp_mono_s();
		pp_scenario s;
		pp_report r;
		if (load_build(path, -1, &s, &r)) {
			CHECK(!"every scenario gets a report");
			continue;
		}
		double t1 = pp_mono_s();
		pp_sb html = {0}, md = {0};
		pp_report_html(&r, &html);
		pp_report_md(&r, &md);
		pp_report_file files[PP_REPORT_MAX_FILES];
		int nf = pp_report_csv(&r, files, PP_REPORT_MAX_FILES);
		pp_report_files_release(files, nf);
		double t2 = pp_mono_s();
		pp_t_diag("%-60s engines %.3f s, render %.3f s, %zu KB", e->d_name, t1 - t0, t2 - t1,
		          html.len / 1024);
		bool curve = r.have_cost && r.cost.inference.simulated;
		/* a utilisation from a cluster simulation draws its three charts */
		int cluster = r.have_cost && r.cost.cluster ? 3 : 0;
		CHECK(tu_count(html.buf, "<svg class=\"chart\"") ==
		      (r.have_cost ? 6 + 2 * curve + cluster : 2));
		/* the pricing and rendering; an inference work's serving
		 * simulations are podplan serve's time (bench/bench_serve.sh) */
		total += t2 - t0 - r.cost.inference.serve_elapsed_s;
		n++;
		pp_sb_release(&html);
		pp_sb_release(&md);
		pp_report_release(&r);
		pp_scenario_release(&s);
	}
	if (d)
		closedir(d);
	pp_t_diag("%d scenarios in %.2f s (default Monte Carlo draws)", n, total);
	CHECK(n >= 2);
	CHECK(total < 30); /* a few seconds normally; ASan/UBSan is several times slower */
}
/* ---- the command line ---- */

/* "report -o" without a directory: one message (getopt's and podplan's
 * were both printed), exit status 2, nothing recorded. */
static void test_cli_missing_value(void)
{
	static const char *const args[] = {"-o", "--output"};
	for (size_t i = 0; i < PP_ARRAY_LEN(args); i++) {
		char cmd[1024], *out = NULL;
		snprintf(cmd, sizeof(cmd), "%s report %s %s 2>&1", pp_t_bin(), SDEF, args[i]);
		CHECK(pp_t_sh(cmd, &out) == 2);
		CHECK(tu_count(out, "podplan report:") == 1);
		CHECK(strstr(out, "requires an argument") == NULL);
		CHECK_CONTAINS(out, "expected a value");
		free(out);
	}
}

int main(void)
{
	pp_t_fixture_data();
	RUN(test_report_cost);
	RUN(test_report_qlora);
	RUN(test_report_serving);
	RUN(test_report_predict);
	RUN(test_escaping);
	RUN(test_nothing_fits);
	RUN(test_calibration_verdict);
	RUN(test_speed);
	RUN(test_cli_missing_value);
	return pp_t_done("test_report");
}
