/*
 * test_output.c - the output formats every command shares: the CSV writer
 * (RFC 4180 quoting, CRLF, formula cells neutralised, numbers left alone),
 * the JSON helpers (escaping, rounding, null for undefined figures) and the
 * step-breakdown table (each key names the struct field it reads).
 *
 * Expected texts are written by hand from RFC 4180 and the OWASP "CSV
 * Injection" rule; the round trips read back with the CSV reader and cJSON.
 */
#include "core/csv.h"
#include "core/jsonout.h"
#include "engine/breakdown.h"
#include "harness.h"

#include <math.h>
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
	pp_csvw_header(&w, "a,b,c,d,e,f,g");
	pp_csvw_num(&w, -3.5, 10);
	pp_csvw_num(&w, 1.0 / 3.0, 6);
	pp_csvw_num(&w, NAN, 6);
	pp_csvw_fixed(&w, 2.0 / 3.0, 2);
	pp_csvw_int(&w, -12);
	pp_csvw_bool(&w, true);
	pp_csvw_empty(&w);
	pp_csvw_end(&w);
	CHECK(!strcmp(sb.buf, "a,b,c,d,e,f,g\r\n-3.5,0.333333,,0.67,-12,true,\r\n"));
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

static void breakdown_table(void)
{
	/* the keys are the struct's field names, each reading its own field */
	pp_breakdown b = {.compute_s = 1, .tp_comm_exposed_s = 2, .dp_comm_exposed_s = 3,
			  .pp_bubble_s = 4, .pp_comm_exposed_s = 5, .optimizer_s = 6, .data_s = 7};
	static const char *const keys[PP_BD_COUNT] = {"compute_s", "tp_comm_exposed_s",
						      "dp_comm_exposed_s", "pp_bubble_s",
						      "pp_comm_exposed_s", "optimizer_s", "data_s"};
	double v[PP_BD_COUNT];
	pp_breakdown_values(&b, v);
	for (int k = 0; k < PP_BD_COUNT; k++) {
		CHECK(!strcmp(pp_breakdown_fields[k].key, keys[k]));
		CHECK(pp_breakdown_get(&b, k) == k + 1 && v[k] == k + 1);
		CHECK(strlen(pp_breakdown_fields[k].short_label) <= 9);
		CHECK((int)strlen(pp_breakdown_fields[k].label) <= pp_breakdown_label_width());
	}
	CHECK(strcmp(pp_breakdown_label(4, true), pp_breakdown_label(4, false)));
	CHECK(!strcmp(pp_breakdown_label(3, true), pp_breakdown_label(3, false)));
	pp_sb sb = {0};
	pp_csvw w;
	pp_csvw_init(&w, &sb);
	pp_breakdown_csv_names(&w);
	pp_csvw_end(&w);
	pp_breakdown_csv(&w, &b, 9);
	pp_csvw_end(&w);
	pp_breakdown_csv(&w, NULL, 9);
	pp_csvw_end(&w);
	CHECK(!strcmp(sb.buf, "compute_s,tp_comm_exposed_s,dp_comm_exposed_s,pp_bubble_s,"
			      "pp_comm_exposed_s,optimizer_s,data_s\r\n1,2,3,4,5,6,7\r\n,,,,,,\r\n"));
	pp_sb_release(&sb);
	cJSON *j = pp_breakdown_json(NULL, NULL, &b, 9);
	pp_json_print(j, false, &sb);
	CHECK(!strcmp(sb.buf, "{\"compute_s\":1,\"tp_comm_exposed_s\":2,\"dp_comm_exposed_s\":3,"
			      "\"pp_bubble_s\":4,\"pp_comm_exposed_s\":5,\"optimizer_s\":6,\"data_s\":7}"));
	pp_sb_release(&sb);
	cJSON_Delete(j);
}

int main(void)
{
	RUN(csv_quoting);
	RUN(csv_formulas);
	RUN(csv_numbers);
	RUN(json_helpers);
	RUN(breakdown_table);
	return pp_t_done("test_output");
}
