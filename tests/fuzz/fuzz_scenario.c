/*
 * fuzz_scenario.c - a scenario file through the whole pipeline: parse
 * (with hf_config, costs and every section), podplan's size limits,
 * predict (report without costs) or the cost engine (report with costs),
 * and the report's page, Markdown and CSVs rendered in memory.
 *
 * For speed the engine runs only on scenarios far under the limits of
 * input/limits.h (a few thousand pipeline tasks, 1024 layers): the limits
 * themselves are tested in tests/test_limits.c. A scenario's calibration
 * section is dropped after parsing (no store is opened), and a serving
 * workload is cut to 16 requests of at most 32 output tokens for the costs
 * (the serving costs simulate it at many
 * rates per option: the shipped board scenario took 25 s under ASan).
 */
#include "fuzzutil.h"
#include "input/limits.h"
#include "input/scenario.h"
#include "report.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const pp_catalog *cat = fz_catalog();
	char *text = fz_text(data, size);
	pp_scenario s;
	pp_err err = {0};
	int rc = pp_scenario_parse(&s, "fuzz.json", text, size, cat, &err);
	fz_check_err(rc, err.msg, "pp_scenario_parse");
	if (rc)
		goto out;
	/* the line scenario.c's parse ends with (input/limits.h) */
	rc = pp_scenario_check_limits(&s, &err);
	fz_check_err(rc, err.msg, "pp_scenario_check_limits");
	if (!rc && pp_limit_pipeline_tasks(&s.training, &s.parallel) <= 4096 &&
	    s.model.num_layers <= 1024 && s.cluster.num_gpus <= 1 << 17) {
		s.calib_db[0] = s.calib_profile[0] = '\0';
		/* serving costs simulate the workload at many rates per option,
		 * read again from the document: 16 requests keep a run short */
		if (s.serve.num_prompts > 16)
			s.serve.num_prompts = 16;
		/* (where the document leaves them out, their defaults - 1,000
		 * requests - would be simulated: the cut is written in) */
		cJSON *wl = cJSON_GetObjectItemCaseSensitive(s.doc.root, "workload");
		if (!wl && cJSON_IsObject(s.doc.root) &&
		    cJSON_GetObjectItemCaseSensitive(s.doc.root, "serving"))
			wl = cJSON_AddObjectToObject(s.doc.root, "workload");
		if (cJSON_IsObject(wl)) {
			cJSON *np = cJSON_GetObjectItemCaseSensitive(wl, "num_prompts");
			if (!np)
				cJSON_AddNumberToObject(wl, "num_prompts", 16);
			else if (cJSON_IsNumber(np) && np->valuedouble > 16)
				cJSON_SetNumberValue(np, 16);
			/* and at most 32 tokens out each (each one an iteration) */
			cJSON *ol = cJSON_GetObjectItemCaseSensitive(wl, "output_len");
			if (!ol)
				cJSON_AddNumberToObject(wl, "output_len", 32);
			else if (cJSON_IsNumber(ol) && ol->valuedouble > 32)
				cJSON_SetNumberValue(ol, 32);
		}
		pp_report r;
		pp_report_opts o;
		memset(&o, 0, sizeof(o));
		o.draws_given = true;
		o.draws = 32;
		o.seed_given = true;
		o.seed = 7;
		o.now_s = 1.7e9;
		o.store_path = "/nonexistent/podplan-fuzz.db";
		memset(&err, 0, sizeof(err));
		rc = pp_report_build(&r, &s, cat, "fuzz.json", &o, &err);
		fz_check_err(rc, err.msg, "pp_report_build");
		if (!rc) {
			pp_sb html = {0}, md = {0};
			pp_report_file files[PP_REPORT_MAX_FILES];
			memset(files, 0, sizeof(files));
			pp_report_html(&r, &html);
			pp_report_md(&r, &md);
			int n = pp_report_csv(&r, files, PP_REPORT_MAX_FILES);
			pp_report_files_release(files, n);
			pp_sb_release(&html);
			pp_sb_release(&md);
			pp_report_release(&r);
		}
	}
	pp_scenario_release(&s);
out:
	free(text);
	return 0;
}
