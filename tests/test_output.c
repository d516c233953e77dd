/*
 * test_output.c - the output formats every command shares: the CSV writer
 * (RFC 4180 quoting, CRLF, formula cells neutralised, numbers left alone),
 * the JSON helpers (escaping, rounding, null for undefined figures, the
 * lenient readers), the warning list and the step-breakdown table (each
 * key names the struct field it reads).
 *
 * Expected texts are written by hand from RFC 4180 and the OWASP "CSV
 * Injection" rule; the round trips read back with the CSV reader and cJSON.
 * End to end, a scenario and a calibration run whose names are formulas go
 * through cost --csv, the report's CSVs, history --csv and calib export
 * --csv, and no cell of theirs would run in a spreadsheet.
 */
#include "calib/calibdb.h"
#include "calib/validate.h"
#include "core/csv.h"
#include "core/jsonget.h"
#include "core/jsonout.h"
#include "core/store.h"
#include "core/warn.h"
#include "engine/breakdown.h"
#include "engine/predict.h"
#include "engine/predictout.h"
#include "harness.h"
#include "testutil.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *one_row(const char *const *cells, int n)
{
	pp_sb sb = {0};
	pp_csvw w;
	pp_csvw_init(&w, &sb);
	for (int i = 0; i < n; i++)
		pp_csvw_text(&w, cells[i]);
	pp_csvw_end(&w);
	return pp_sb_detach(&sb);
}

static void csv_quoting(void)
{
	static const char *const cells[] = {"plain", "a,b", "say \"hi\"", "two\nlines", "", NULL};
	char *row = one_row(cells, 6);
	CHECK(!strcmp(row, "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",,\r\n"));
	pp_csv c;
	pp_err err = {0};
	CHECK(pp_csv_parse(&c, "t", row, &err) == 0);
	CHECK(c.nrows == 1 && c.nfields[0] == 6);
	for (int i = 0; i < 5; i++)
		CHECK(!strcmp(pp_csv_get(&c, 0, i), cells[i]));
	pp_csv_release(&c);
	free(row);
}

/* The reader on hostile text: a quote never closed is an error naming
 * its line, with nothing left to free (the sanitizer pass sees a leak);
 * a row cap and the header alone; a long row of empty fields costs a
 * block, not an allocation per field. */
static void csv_reader_limits(void)
{
	pp_csv c;
	pp_err err = {0};
	CHECK(pp_csv_parse(&c, "t.csv", "a,b\r\n1,2\r\n3,\"never\nclosed", &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "t.csv:4: unterminated quoted field (opened on line 3)");
	CHECK(c.nrows == 0 && c.rows == NULL);
	CHECK(pp_csv_parse_max(&c, "t.csv", "h\n1\n\n2\n3\n", 3, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "t.csv:5: more than 3 rows, expected at most 3");
	CHECK(pp_csv_parse_max(&c, "t.csv", "h\n1\n\n2\n", 3, &err) == 0 && c.nrows == 3);
	pp_csv_release(&c);
	CHECK(pp_csv_parse_header(&c, "t.csv", "\nx,\"y,z\"\n1,\"unterminated", &err) == 0);
	CHECK(c.nrows == 1 && c.nfields[0] == 2 && !strcmp(pp_csv_get(&c, 0, 1), "y,z"));
	pp_csv_release(&c);
	size_t n = 2000000;
	char *row = pp_xmalloc(n + 1);
	memset(row, ',', n);
	row[n] = '\0';
	double t0 = pp_mono_s();
	CHECK(pp_csv_parse(&c, "wide.csv", row, &err) == 0);
	CHECK(c.nrows == 1 && c.nfields[0] == (int)n + 1 && !*pp_csv_get(&c, 0, (int)n));
	pp_t_diag("a row of %zu empty fields parsed in %.2f s", n + 1, pp_mono_s() - t0);
	pp_csv_release(&c);
	free(row);
}

static void csv_formulas(void)
{
	/* every formula lead OWASP names gets a leading quote, quoted as RFC
	 * 4180 needs when the cell holds a comma or quote */
	static const char *const cells[] = {"=1+2", "+A1", "-2+3", "@SUM(A1)", "\tx", "\rx",
					    "=HYPERLINK(\"http://x\",\"y\")", "-", "-inf", "a=b"};
	char *row = one_row(cells, 10);
	CHECK(!strcmp(row, "'=1+2,'+A1,'-2+3,'@SUM(A1),'\tx,\"'\rx\","
			   "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",'-,'-inf,a=b\r\n"));
	free(row);
	/* numbers written as text stay numbers */
	static const char *const nums[] = {"-3.5", "+2", "-1e-3", "-.5", "+7.", "-2E+10", "42"};
	row = one_row(nums, 7);
	CHECK(!strcmp(row, "-3.5,+2,-1e-3,-.5,+7.,-2E+10,42\r\n"));
	free(row);
	/* but not things that only start like one */
	static const char *const not_nums[] = {"-1e", "-.", "+1 ", "-0x10", "-1,5"};
	row = one_row(not_nums, 5);
	CHECK(!strcmp(row, "'-1e,'-.,'+1 ,'-0x10,\"'-1,5\"\r\n"));
	free(row);
}

static void csv_numbers(void)
{
	pp_sb sb = {0};
	pp_csvw w;
	pp_csvw_init(&w, &sb);
	pp_csvw_header(&w, "a,b,c,d,e,f,g,h,i");
	pp_csvw_num(&w, -3.5, 10);
	pp_csvw_num(&w, 1.0 / 3.0, 6);
	pp_csvw_num(&w, NAN, 6);
	pp_csvw_fixed(&w, 2.0 / 3.0, 2);
	pp_csvw_int(&w, -12);
	pp_csvw_bool(&w, true);
	pp_csvw_empty(&w);
	pp_csvw_sci(&w, -1.0 / 4096, 3);
	pp_csvw_sci(&w, INFINITY, 3);
	pp_csvw_end(&w);
	CHECK(!strcmp(sb.buf, "a,b,c,d,e,f,g,h,i\r\n-3.5,0.333333,,0.67,-12,true,,-2.441e-04,\r\n"));
	pp_sb_release(&sb);
}

static void json_helpers(void)
{
	cJSON *o = pp_json_obj(NULL, NULL);
	pp_json_str(o, "name", "a \"quoted\"\nname\\");
	pp_json_str(o, "none", NULL);
	pp_json_num(o, "third", 1.0 / 3.0, 9);
	pp_json_num(o, "big", 85899345920.0, 9);
	pp_json_num(o, "nan", NAN, 9);
	pp_json_num(o, "inf", INFINITY, 9);
	pp_json_int(o, "count", 3000000000LL);
	pp_json_bool(o, "fits", false);
	cJSON *a = pp_json_arr(o, "list");
	pp_json_num(a, NULL, 1.5, 9);
	pp_json_int(a, NULL, 2);
	pp_sb sb = {0};
	pp_json_print(o, false, &sb);
	CHECK(!strcmp(sb.buf, "{\"name\":\"a \\\"quoted\\\"\\nname\\\\\",\"none\":null,"
			      "\"third\":0.333333333,\"big\":85899345920,\"nan\":null,\"inf\":null,"
			      "\"count\":3000000000,\"fits\":false,\"list\":[1.5,2]}"));
	cJSON *back = cJSON_Parse(sb.buf);
	CHECK(back && !strcmp(cJSON_GetObjectItem(back, "name")->valuestring, "a \"quoted\"\nname\\"));
	cJSON_Delete(back);
	pp_sb_release(&sb);
	pp_json_print(o, true, &sb);
	CHECK(sb.len > 2 && sb.buf[sb.len - 1] == '\n' && sb.buf[sb.len - 2] == '}');
	pp_sb_release(&sb);
	cJSON_Delete(o);
	CHECK(pp_json_round(0.1234567891234, 9) == 0.123456789);
	CHECK(pp_json_round(-2.5e-7, 2) == -2.5e-7);
	CHECK(pp_json_round(123456.7, 6) == 123457 && pp_json_round(1234567.8, 6) == 1234567.8);
}

/* pp_json_fixed keeps what %.Nf printed; pp_json_finish hands back the
 * text and frees the tree (the sanitizer pass would see a leak). */
static void json_fixed_finish(void)
{
	cJSON *o = pp_json_obj(NULL, NULL);
	pp_json_fixed(o, "ratio", 0.99857, 4);
	pp_json_fixed(o, "us", 1234.56789, 3);
	pp_json_fixed(o, "one", 1.0, 4);
	pp_json_fixed(o, "nan", NAN, 4);
	char *t = pp_json_finish(o, false);
	CHECK(!strcmp(t, "{\"ratio\":0.9986,\"us\":1234.568,\"one\":1,\"nan\":null}"));
	free(t);
	t = pp_json_finish(pp_json_str(NULL, NULL, "say \"hi\""), false);
	CHECK(!strcmp(t, "\"say \\\"hi\\\"\""));
	free(t);
}

/* The lenient readers: the value when the key holds that type, else the
 * caller's default; a NULL object is an empty one. */
static void json_getters(void)
{
	cJSON *o = cJSON_Parse("{\"s\": \"text\", \"n\": 2.5, \"z\": null, \"b\": true}");
	CHECK(o != NULL);
	CHECK(!strcmp(pp_json_get_str(o, "s", "d"), "text"));
	CHECK(!strcmp(pp_json_get_str(o, "n", "d"), "d") && pp_json_get_str(o, "gone", NULL) == NULL);
	CHECK(!strcmp(pp_json_get_str(o, "S", ""), ""));  /* keys are case-sensitive */
	CHECK(pp_json_get_num(o, "n", 0) == 2.5 && pp_json_get_num(o, "s", -1) == -1);
	CHECK(isnan(pp_json_get_num(o, "z", NAN)) && pp_json_get_num(o, "b", 7) == 7);
	CHECK(pp_json_get_num(NULL, "n", 3) == 3 && !strcmp(pp_json_get_str(NULL, "s", "x"), "x"));
	cJSON_Delete(o);
}

/* The warning list: printf-style, a sentence once, first-added order. */
static void warning_list(void)
{
	char **w = NULL;
	int n = 0;
	pp_warn_addf(&w, &n, "price %s is %d months old", "h100", 14);
	pp_warn_addf(&w, &n, "no calibration");
	pp_warn_addf(&w, &n, "price %s is %d months old", "h100", 14);
	pp_warn_addf(&w, &n, "price %s is %d months old", "h200", 14);
	CHECK(n == 3);
	CHECK(n == 3 && !strcmp(w[0], "price h100 is 14 months old") && !strcmp(w[1], "no calibration") &&
	      !strcmp(w[2], "price h200 is 14 months old"));
	pp_warn_free(w, n);
}

static void breakdown_table(void)
{
	/* the keys are the struct's field names, each reading its own field */
	pp_breakdown b = {.compute_s = 1, .tp_comm_exposed_s = 2, .ep_comm_exposed_s = 3,
			  .dp_comm_exposed_s = 4, .pp_bubble_s = 5, .pp_comm_exposed_s = 6,
			  .optimizer_s = 7, .data_s = 8};
	static const char *const keys[PP_BD_COUNT] = {"compute_s", "tp_comm_exposed_s",
						      "ep_comm_exposed_s", "dp_comm_exposed_s",
						      "pp_bubble_s", "pp_comm_exposed_s", "optimizer_s",
						      "data_s"};
	double v[PP_BD_COUNT];
	pp_breakdown_values(&b, v);
	for (int k = 0; k < PP_BD_COUNT; k++) {
		CHECK(!strcmp(pp_breakdown_fields[k].key, keys[k]));
		CHECK(pp_breakdown_get(&b, k) == k + 1 && v[k] == k + 1);
		CHECK(strlen(pp_breakdown_fields[k].short_label) <= 9);
		CHECK((int)strlen(pp_breakdown_fields[k].label) <= pp_breakdown_label_width());
	}
	/* the Markdown summary's four columns: TP, EP, DP and p2p are communication */
	double g[PP_BD_GROUPS];
	pp_breakdown_groups(&b, g);
	CHECK(g[PP_BD_COMPUTE] == 1 && g[PP_BD_COMM] == 2 + 3 + 4 + 6 && g[PP_BD_BUBBLE] == 5 &&
	      g[PP_BD_OTHER] == 7 + 8);
	CHECK(strcmp(pp_breakdown_label(5, true), pp_breakdown_label(5, false)));
	CHECK(!strcmp(pp_breakdown_label(4, true), pp_breakdown_label(4, false)));
	pp_sb sb = {0};
	pp_csvw w;
	pp_csvw_init(&w, &sb);
	pp_breakdown_csv_names(&w);
	pp_csvw_end(&w);
	pp_breakdown_csv(&w, &b, 9);
	pp_csvw_end(&w);
	pp_breakdown_csv(&w, NULL, 9);
	pp_csvw_end(&w);
	CHECK(!strcmp(sb.buf, "compute_s,tp_comm_exposed_s,ep_comm_exposed_s,dp_comm_exposed_s,"
			      "pp_bubble_s,pp_comm_exposed_s,optimizer_s,data_s\r\n"
			      "1,2,3,4,5,6,7,8\r\n,,,,,,,\r\n"));
	pp_sb_release(&sb);
	cJSON *j = pp_breakdown_json(NULL, NULL, &b, 9);
	pp_json_print(j, false, &sb);
	CHECK(!strcmp(sb.buf, "{\"compute_s\":1,\"tp_comm_exposed_s\":2,\"ep_comm_exposed_s\":3,"
			      "\"dp_comm_exposed_s\":4,\"pp_bubble_s\":5,\"pp_comm_exposed_s\":6,"
			      "\"optimizer_s\":7,\"data_s\":8}"));
	pp_sb_release(&sb);
	cJSON_Delete(j);
}

/* ---- end to end: no CSV podplan writes holds a formula cell ---- */

/* Cells of text (CSV) that a spreadsheet would run, counted; and the
 * rows, which must end in CRLF. */
static int formula_cells(const char *what, const char *text)
{
	pp_csv c;
	pp_err err = {0};
	if (pp_csv_parse(&c, what, text, &err)) {
		printf("  %s: %s\n", what, err.msg);
		return 1;
	}
	int bad = 0;
	for (int i = 0; i < c.nrows; i++)
		for (int j = 0; j < c.nfields[i]; j++) {
			const char *v = c.rows[i][j];
			char *end;
			if (!*v || !strchr("=+-@\t\r", *v))
				continue;
			(void)strtod(v, &end);
			if (*end) {
				printf("  %s row %d: formula cell %s\n", what, i + 1, v);
				bad++;
			}
		}
	pp_csv_release(&c);
	for (const char *p = strchr(text, '\n'); p; p = strchr(p + 1, '\n'))
		if (p == text || p[-1] != '\r') {
			printf("  %s: a row ends in a bare LF\n", what);
			bad++;
			break;
		}
	return bad;
}

static int formula_cells_of(const char *cmd)
{
	char *out = NULL;
	int st = pp_t_sh(cmd, &out);
	if (st != 0)
		printf("  %s: exit status %d\n%s\n", cmd, st, out ? out : "");
	int bad = st != 0 || formula_cells(cmd, out ? out : "");
	free(out);
	return bad;
}

static void no_formula_cells(void)
{
	const char *t = pp_t_tmpdir(), *bin = pp_t_bin();
	char scen[512], db[512], dir[512], cmd[2048];
	snprintf(scen, sizeof(scen), "%s/formula.json", t);
	snprintf(db, sizeof(db), "%s/formula.db", t);
	snprintf(dir, sizeof(dir), "%s/formula-report", t);
	FILE *f = fopen(scen, "w");
	if (!f) {
		CHECK(!"scenario written");
		return;
	}
	fputs("{\"name\": \"@SUM(1,2)\", \"description\": \"-2+3\",\n"
	      " \"model\": {\"preset\": \"llama2-7b\", \"seq_length\": 4096},\n"
	      " \"training\": {\"global_batch_size\": 64, \"micro_batch_size\": 1, \"train_tokens\": 1e10},\n"
	      " \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8},\n"
	      " \"costs\": {\"work\": {\"type\": \"run\"}, \"uncertainty\": {\"draws\": 200, \"seed\": 3},\n"
	      "  \"options\": [{\"name\": \"=HYPERLINK(\\\"http://x\\\")\", \"kind\": \"rent\",\n"
	      "   \"provider\": \"lambda_8x\", \"tier\": \"on_demand\"},\n"
	      "   {\"name\": \"+cmd|' /C calc'!A0\", \"kind\": \"build\"}]}}\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s cost %s --csv", bin, scen);
	CHECK(formula_cells_of(cmd) == 0);
	snprintf(cmd, sizeof(cmd), "%s report %s -o %s --db %s >/dev/null 2>&1", bin, scen, dir, db);
	char *out = NULL;
	CHECK(pp_t_sh(cmd, &out) == 0);
	free(out);
	int nfiles = 0;
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		if (l < 5 || strcmp(e->d_name + l - 4, ".csv"))
			continue;
		snprintf(cmd, sizeof(cmd), "cat %s/%s", dir, e->d_name);
		CHECK(formula_cells_of(cmd) == 0);
		nfiles++;
	}
	if (d)
		closedir(d);
	CHECK(nfiles >= 8); /* options.csv among them */
	snprintf(cmd, sizeof(cmd), "%s history --db %s --csv", bin, db);
	CHECK(formula_cells_of(cmd) == 0);
	/* calib export: a measurement whose names look like formulas */
	pp_store *st = NULL;
	pp_err err = {0};
	CHECK(pp_store_open(&st, db, &err) == 0);
	pp_calib_run r;
	pp_calib_run_init(&r);
	r.source = "=source";
	r.command_line = "@cmd";
	int64_t run = 0, id = 0;
	CHECK(st && pp_calibdb_begin_run(st, &r, &run, &err) == 0);
	pp_calib_meas m;
	pp_calib_meas_init(&m);
	m.kind = "gemm";
	m.op = "=1+2";
	m.dtype = "-bf16";
	m.scope = "@scope";
	m.time_us = 12.5;
	m.tflops = -3.5; /* a negative number stays a number */
	CHECK(st && pp_calibdb_add(st, run, &m, &id, &err) == 0);
	pp_store_close(st);
	snprintf(cmd, sizeof(cmd), "%s calib export %lld --csv --db %s", bin, (long long)run, db);
	CHECK(formula_cells_of(cmd) == 0);
	snprintf(cmd, sizeof(cmd), "%s calib export %lld --csv --db %s", bin, (long long)run, db);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "\r\ngemm,'=1+2,'-bf16,");
	CHECK_CONTAINS(out, ",12.5,,,-3.5,");
	free(out);
}

/* validate builds a scenario per published row: a quote and a backslash
 * in the model name are text, and the row is predicted, not skipped */
static void validate_quoted_model(void)
{
	pp_csv pub;
	pp_err err = {0};
	CHECK(pp_csv_load(&pub, "models/validation/validation-public.csv", &err) == 0);
	int model = pp_csv_col(&pub, "model");
	CHECK(model >= 0 && pub.nrows > 1);
	pp_sb text = {0};
	pp_csvw w;
	pp_csvw_init(&w, &text);
	for (int i = 0; i < 2; i++) {
		for (int j = 0; j < pub.nfields[i]; j++)
			pp_csvw_text(&w, i == 1 && j == model ? "GPT \"1.7B\" \\ v2" : pub.rows[i][j]);
		pp_csvw_end(&w);
	}
	pp_csv_release(&pub);
	char path[512];
	snprintf(path, sizeof(path), "%s/quoted.csv", pp_t_tmpdir());
	FILE *f = fopen(path, "w");
	CHECK(f && fputs(text.buf, f) >= 0);
	if (f)
		fclose(f);
	pp_sb_release(&text);
	pp_valset v;
	CHECK(pp_validate_csv(tu_catalog(), NULL, path, &v, &err) == 0);
	CHECK(v.n >= 1 && v.skipped == 0);
	CHECK(v.n >= 1 && !strcmp(v.rows[0].model, "GPT \"1.7B\" \\ v2"));
	pp_valset_release(&v);
}

/* predict's Experts line: Qwen3-30B-A3B routes each token to 8 of 128
 * experts, each 768 wide (moe_ffn_hidden_size); the width is not the pool
 * the top 8 are drawn from. */
static void predict_experts_line(void)
{
	pp_scenario s;
	pp_hw hw;
	if (tu_scenario("{\"model\": {\"preset\": \"qwen3-30b-a3b\"}, \"training\": "
			"{\"global_batch_size\": 64}, \"parallel\": {\"expert_model_parallel_size\": 8}, "
			"\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8}}", &s, &hw)) {
		CHECK(0);
		return;
	}
	pp_result r;
	pp_err err = {0};
	if (pp_predict(&s, &hw, NULL, &r, &err)) {
		pp_t_diag("predict: %s", err.msg);
		CHECK(0);
		pp_scenario_release(&s);
		return;
	}
	pp_sb out = {0};
	pp_predict_to_text(&s, &hw, &r, NULL, tu_catalog(), NULL, 0, &out);
	CHECK_CONTAINS(out.buf, "\nExperts    128 routed (top 8), 768 wide, ");
	CHECK(!strstr(out.buf, " of 768"));
	pp_sb_release(&out);
	pp_scenario_release(&s);
}

int main(void)
{
	RUN(csv_quoting);
	RUN(csv_reader_limits);
	RUN(csv_formulas);
	RUN(csv_numbers);
	RUN(json_helpers);
	RUN(json_fixed_finish);
	RUN(json_getters);
	RUN(warning_list);
	RUN(breakdown_table);
	RUN(no_formula_cells);
	RUN(validate_quoted_model);
	RUN(predict_experts_line);
	return pp_t_done("test_output");
}
