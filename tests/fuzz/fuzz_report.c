/*
 * fuzz_report.c - the report writer on hostile names: the input's lines
 * are the scenario's name, its description and up to four API options'
 * names (any bytes: control characters, markup, formula leaders, invalid
 * UTF-8, quotes), put into a small training scenario with a costs section
 * through cJSON (so the JSON is well formed and the names reach the
 * parser as given). A scenario that parses is built into a report and
 * written to a folder of the scratch directory (every file replaced as
 * `podplan report -o` does), and every file written must be a regular
 * file directly in that folder.
 */
#include "fuzzutil.h"
#include "input/scenario.h"
#include "report.h"
#include "core/util.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every entry of dir must be a regular file (no folder, link or escape). */
static void check_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char p[600];
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
			fprintf(stderr, "fuzz: the report wrote %s, not a regular file\n", p);
			abort();
		}
	}
	if (d)
		closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_text(data, size), *line[6] = {0};
	int n = 0;
	for (char *p = text; p && n < 6;) {
		line[n++] = p;
		char *nl = memchr(p, '\n', strlen(p));
		if (nl)
			*nl = 0;
		p = nl ? nl + 1 : NULL;
	}
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "name", n > 0 ? line[0] : "r");
	if (n > 1)
		cJSON_AddStringToObject(root, "description", line[1]);
	cJSON *m = cJSON_AddObjectToObject(root, "model");
	cJSON_AddNumberToObject(m, "num_layers", 2);
	cJSON_AddNumberToObject(m, "hidden_size", 256);
	cJSON_AddNumberToObject(m, "num_attention_heads", 4);
	cJSON_AddNumberToObject(m, "seq_length", 256);
	cJSON_AddNumberToObject(m, "vocab_size", 1000);
	cJSON *t = cJSON_AddObjectToObject(root, "training");
	cJSON_AddNumberToObject(t, "global_batch_size", 8);
	cJSON_AddNumberToObject(t, "micro_batch_size", 1);
	cJSON_AddNumberToObject(t, "train_tokens", 1e9);
	cJSON *c = cJSON_AddObjectToObject(root, "cluster");
	cJSON_AddStringToObject(c, "gpu", "h100-sxm");
	cJSON_AddNumberToObject(c, "num_gpus", 8);
	cJSON_AddNumberToObject(c, "gpus_per_node", 8);
	cJSON *cs = cJSON_AddObjectToObject(root, "costs");
	cJSON *w = cJSON_AddObjectToObject(cs, "work");
	cJSON_AddStringToObject(w, "type", "run");
	cJSON *opts = cJSON_AddArrayToObject(cs, "options");
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", "rent");
	cJSON_AddStringToObject(o, "kind", "rent");
	cJSON_AddStringToObject(o, "provider", "runpod");
	cJSON_AddStringToObject(o, "tier", "on_demand");
	cJSON_AddItemToArray(opts, o);
	for (int i = 2; i < n; i++) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", line[i]);
		cJSON_AddStringToObject(o, "kind", "api");
		cJSON_AddStringToObject(o, "price", "openai_gpt-5.4-mini");
		cJSON_AddItemToArray(opts, o);
	}
	char *json = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	pp_scenario s;
	pp_err err = {0};
	int rc = json ? pp_scenario_parse(&s, "r.json", json, strlen(json), fz_catalog(), &err) : -1;
	if (json)
		fz_check_err(rc, err.msg, "pp_scenario_parse");
	if (!rc) {
		pp_report r;
		pp_report_opts ro;
		memset(&ro, 0, sizeof(ro));
		ro.draws_given = ro.seed_given = true;
		ro.draws = 8;
		ro.seed = 1;
		ro.now_s = 1.7e9;
		ro.store_path = "/nonexistent/podplan-fuzz.db";
		rc = pp_report_build(&r, &s, fz_catalog(), "r.json", &ro, &err);
		fz_check_err(rc, err.msg, "pp_report_build");
		if (!rc) {
			char dir[400];
			snprintf(dir, sizeof(dir), "%s/out", fz_tmpdir());
			pp_sb names = {0};
			memset(&err, 0, sizeof(err));
			rc = pp_report_write(&r, dir, NULL, &names, &err);
			fz_check_err(rc, err.msg, "pp_report_write");
			check_dir(dir);
			pp_sb_release(&names);
			pp_report_release(&r);
		}
		pp_scenario_release(&s);
	}
	free(json);
	free(text);
	return 0;
}
