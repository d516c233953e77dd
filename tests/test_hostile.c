/*
 * test_hostile.c - issue 18's reproducers through the commands, end to end:
 * each hostile input ends with exit status 1 or 2 and a message, within
 * 20 s and (outside the sanitizer build) 4 GB of address space, and
 * leaves nothing it should not have touched.
 *
 *  - hf_config naming a FIFO with no writer (it hung forever);
 *  - a scenario name and a model name with terminal escapes;
 *  - costs.as_of with text after the date (it passed sscanf's check and
 *    was printed raw in HTML and Markdown);
 *  - links planted under the old predictable temporary names of an output
 *    file (FILE.tmp.PID: calib export -o, fit --export -o, trace -o) and of
 *    the report's staging folder (DIR/.podplan-staging.PID): their targets
 *    are never written or emptied;
 *  - sizes that drive memory (a global batch of 10^6 and 10^9 with PP 8,
 *    10^6 layers, search with a global batch of 10^8): refused with the
 *    limit named (input/limits.h's check, at the end of the parse).
 */
#include "harness.h"
#include "core/store.h"
#include "core/util.h"
#include "textutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 4 GiB of address space for the command, unless it is built with ASan
 * (which reserves terabytes of it). */
#ifdef __SANITIZE_ADDRESS__
#define ULIMIT ""
#else
#define ULIMIT "ulimit -v 4194304; "
#endif

/* Run a podplan command line (after "podplan "), bounded; its exit status,
 * its output in *out, its wall time in *took. */
static int run(const char *args, char **out, double *took)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), ULIMIT "timeout -s KILL 30 %s %s", pp_t_bin(), args);
	double t0 = pp_mono_s();
	int rc = pp_t_sh(cmd, out);
	*took = pp_mono_s() - t0;
	return rc;
}

static void write_text(const char *path, const char *text)
{
	pp_err err = {0};
	CHECK(pp_write_file_atomic(path, text, strlen(text), &err) == 0);
}

static const char *tmp(const char *name)
{
	static char buf[4][600];
	static int k;
	char *b = buf[k++ % 4];
	snprintf(b, sizeof(buf[0]), "%s/%s", pp_t_tmpdir(), name);
	return b;
}

#define SMALL_MODEL                                                                          \
	"\"model\": {\"num_layers\": 4, \"hidden_size\": 512, \"num_attention_heads\": 8, "  \
	"\"seq_length\": 512, \"vocab_size\": 32000}"
#define SMALL_REST                                                                           \
	"\"training\": {\"global_batch_size\": 8, \"micro_batch_size\": 1}, \"cluster\": "   \
	"{\"gpu\": \"h100-sxm\", \"num_gpus\": 8, \"gpus_per_node\": 8}"

static void fifo_hf_config(void)
{
	const char *fifo = tmp("config.json");
	CHECK(mkfifo(fifo, 0600) == 0);
	char json[1024], args[1200], *out = NULL;
	snprintf(json, sizeof(json), "{\"model\": {\"hf_config\": \"%s\"}, " SMALL_REST "}", fifo);
	write_text(tmp("hf.json"), json);
	snprintf(args, sizeof(args), "predict %s", tmp("hf.json"));
	double took;
	CHECK(run(args, &out, &took) == 2);
	CHECK_CONTAINS(out, "is a FIFO (named pipe), expected a regular file");
	CHECK(took < 20);
	free(out);
}

static void escapes_in_names(void)
{
	char args[1200], *out = NULL;
	double took;
	write_text(tmp("esc.json"), "{\"name\": \"x\\u001b]0;pwned\\u0007\\u001b[2J\", " SMALL_MODEL
				    ", " SMALL_REST "}");
	snprintf(args, sizeof(args), "predict %s", tmp("esc.json"));
	CHECK(run(args, &out, &took) == 2);
	CHECK(out && !strchr(out, '\x1b') && !strchr(out, '\x07'));
	CHECK_CONTAINS(out, "name: found the string \"x\\x1b]0;pwned\\x07\\x1b[2J\" with a control "
		       "character, expected printable text");
	free(out);
	/* a key with an escape: the did-you-mean message is escaped too */
	write_text(tmp("esc2.json"), "{\"na\\u001bme\": 1, " SMALL_MODEL ", " SMALL_REST "}");
	snprintf(args, sizeof(args), "check %s", tmp("esc2.json"));
	CHECK(run(args, &out, &took) == 2);
	CHECK(out && !strchr(out, '\x1b'));
	free(out);
}

static void as_of_dates(void)
{
	static const struct {
		const char *as_of;
		int rc;
	} cases[] = {{"2026-11-30", 0},
		     {"2026-11-30<script>alert(1)</script>", 2},
		     {"2026-1-1<b>", 2},
		     {"2026-02-30", 2},
		     {"2024-02-29", 0},
		     {"2023-02-29", 2},
		     {"2026-13-01", 2},
		     {" 2026-11-30", 2}};
	for (size_t i = 0; i < PP_ARRAY_LEN(cases); i++) {
		char json[2048], args[1200], *out = NULL;
		snprintf(json, sizeof(json),
			 "{\"model\": {\"preset\": \"llama2-7b\"}, \"training\": {\"global_batch_size\": "
			 "64, \"micro_batch_size\": 1, \"train_tokens\": 1e9}, \"cluster\": {\"gpu\": "
			 "\"h100-sxm\", \"num_gpus\": 8}, \"costs\": {\"as_of\": \"%s\", \"work\": "
			 "{\"type\": \"run\"}, \"options\": [{\"name\": \"rent\", \"kind\": \"rent\", "
			 "\"provider\": \"lambda_8x\", \"tier\": \"on_demand\"}]}}", cases[i].as_of);
		write_text(tmp("asof.json"), json);
		snprintf(args, sizeof(args), "cost %s --draws 10", tmp("asof.json"));
		double took;
		int rc = run(args, &out, &took);
		CHECK(rc == cases[i].rc);
		if (rc != cases[i].rc)
			pp_t_diag("as_of \"%s\": exit %d: %s", cases[i].as_of, rc, out ? out : "");
		if (cases[i].rc)
			CHECK_CONTAINS(out, "costs.as_of: found");
		free(out);
	}
}

/* The last pid the kernel gave out (an attacker reads it too), else ours. */
static long last_pid(void)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "r");
	long p = 0;
	if (!f || fscanf(f, "%ld", &p) != 1)
		p = getpid();
	if (f)
		fclose(f);
	return p;
}

/* Links named FILE.tmp.PID for the next pids, all to one victim. */
static void plant_tmp_links(const char *file, const char *victim, int n)
{
	long last = last_pid();
	for (long p = last + 1; p <= last + n; p++) {
		char l[700];
		snprintf(l, sizeof(l), "%s.tmp.%ld", file, p);
		unlink(l);
		CHECK(symlink(victim, l) == 0);
	}
}

static void output_files_and_links(void)
{
	const char *victim = tmp("victim.txt"), *db = tmp("links.db");
	write_text(victim, "precious\n");
	char args[2048], *out = NULL;
	double took;
	snprintf(args, sizeof(args), "calib import-nccl-tests tests/data/nccl-tests/nccl16.log --db %s",
		 db);
	CHECK(run(args, &out, &took) == 0);
	free(out);
	const char *outputs[] = {tmp("export.csv"), tmp("trace.json")};
	plant_tmp_links(outputs[0], victim, 300);
	snprintf(args, sizeof(args), "calib export -o %s --db %s", outputs[0], db);
	CHECK(run(args, &out, &took) == 0);
	free(out);
	plant_tmp_links(outputs[1], victim, 300);
	snprintf(args, sizeof(args), "trace scenarios/default.json -o %s", outputs[1]);
	CHECK(run(args, &out, &took) == 0);
	free(out);
	char *v = tu_slurp(victim);
	CHECK(v && !strcmp(v, "precious\n"));
	free(v);
	struct stat st;
	for (size_t i = 0; i < PP_ARRAY_LEN(outputs); i++)
		CHECK(lstat(outputs[i], &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0);
}

static void report_staging_link(void)
{
	const char *dir = tmp("rep"), *victim = tmp("victim-dir"), *keep = tmp("victim-dir/keep");
	CHECK(pp_mkdirs(dir, NULL) == 0 && pp_mkdirs(victim, NULL) == 0);
	write_text(keep, "precious\n");
	long last = last_pid();
	for (long p = last + 1; p <= last + 300; p++) {
		char l[700];
		snprintf(l, sizeof(l), "%s/.podplan-staging.%ld", dir, p);
		CHECK(symlink(victim, l) == 0);
	}
	char args[2048], *out = NULL;
	double took;
	snprintf(args, sizeof(args), "report scenarios/default.json -o %s --db %s", dir, tmp("rep.db"));
	CHECK(run(args, &out, &took) == 0);
	free(out);
	char *v = tu_slurp(keep);
	CHECK(v && !strcmp(v, "precious\n"));
	free(v);
}

/* Sizes past the limits: exit 2 and the key named, in bounded time and
 * memory. */
static void huge_sizes(void)
{
	char args[1200], *out = NULL;
	double took;
	write_text(tmp("layers.json"), "{\"model\": {\"num_layers\": 16385, \"hidden_size\": 64, "
				       "\"num_attention_heads\": 1, \"seq_length\": 8, \"vocab_size\": "
				       "8}, " SMALL_REST "}");
	snprintf(args, sizeof(args), "check %s", tmp("layers.json"));
	int rc = run(args, &out, &took);
	CHECK(rc == 2);
	CHECK_CONTAINS(out, "model.num_layers");
	free(out);
	static const struct {
		const char *what, *json;
	} cases[] = {
		{"batch 1e6, PP 8", "{" SMALL_MODEL ", \"training\": {\"global_batch_size\": 1000000}, "
				    "\"parallel\": {\"pipeline_model_parallel_size\": 8}, \"cluster\": "
				    "{\"gpu\": \"h100-sxm\", \"num_gpus\": 8}}"},
		{"batch 1e9, PP 8", "{" SMALL_MODEL ", \"training\": {\"global_batch_size\": 1000000000}, "
				    "\"parallel\": {\"pipeline_model_parallel_size\": 8}, \"cluster\": "
				    "{\"gpu\": \"h100-sxm\", \"num_gpus\": 8}}"},
		{"1e6 layers, PP 8", "{\"model\": {\"num_layers\": 1000000, \"hidden_size\": 512, "
				     "\"num_attention_heads\": 8, \"seq_length\": 512, \"vocab_size\": "
				     "32000}, \"training\": {\"global_batch_size\": 8}, \"parallel\": "
				     "{\"pipeline_model_parallel_size\": 8}, \"cluster\": {\"gpu\": "
				     "\"h100-sxm\", \"num_gpus\": 8}}"},
	};
	for (size_t i = 0; i < PP_ARRAY_LEN(cases); i++) {
		write_text(tmp("huge.json"), cases[i].json);
		snprintf(args, sizeof(args), "predict %s", tmp("huge.json"));
		rc = run(args, &out, &took);
		CHECK(rc == 2);
		CHECK(took < 20);
		CHECK_CONTAINS(out, "expected at most");
		pp_t_diag("%s: exit %d in %.2f s", cases[i].what, rc, took);
		free(out);
	}
	write_text(tmp("search.json"), "{" SMALL_MODEL ", \"training\": {\"global_batch_size\": "
				       "100000000}, \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": "
				       "8}}");
	snprintf(args, sizeof(args), "search %s", tmp("search.json"));
	rc = run(args, &out, &took);
	CHECK(rc == 2 && took < 20);
	free(out);
}

int main(void)
{
	RUN(fifo_hf_config);
	RUN(escapes_in_names);
	RUN(as_of_dates);
	RUN(output_files_and_links);
	RUN(report_staging_link);
	RUN(huge_sizes);
	return pp_t_done("test_hostile");
}
