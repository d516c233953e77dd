/*
 * test_scenario.c - scenario files: every malformed file in tests/bad/ gives
 * exit status 2 and a message naming the file and the JSON path (as listed
 * in tests/bad/EXPECT), without crashing or hanging; valid files resolve to
 * the documented defaults; hf_config is read (the mixture-of-experts keys and
 * families: test_moe_input.c).
 */
#include "harness.h"
#include "testutil.h"
#include "input/plausible.h"
#include "core/warn.h"

#include <stdbool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void malformed_files(void)
{
	FILE *f = fopen("tests/bad/EXPECT", "r");
	CHECK(f != NULL);
	if (!f)
		return;
	char line[512];
	int n = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		char *tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab = '\0';
		char *expect = tab + 1;
		expect[strcspn(expect, "\n")] = '\0';
		char cmd[1024], *out = NULL;
		snprintf(cmd, sizeof(cmd), "timeout 20 %s check tests/bad/%s", pp_t_bin(), line);
		int st = pp_t_sh(cmd, &out);
		if (st != 2)
			pp_t_diag("%s: exit status %d, expected 2", line, st);
		CHECK(st == 2);
		char path[600];
		snprintf(path, sizeof(path), "tests/bad/%s", line);
		CHECK_CONTAINS(out, path);
		CHECK_CONTAINS(out, expect);
		CHECK(strstr(out, "Sanitizer") == NULL && strstr(out, "runtime error") == NULL);
		free(out);
		n++;
	}
	fclose(f);
	CHECK(n >= 30);
}

static void missing_file_and_usage(void)
{
	char cmd[512], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s check /nonexistent/x.json", pp_t_bin());
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "/nonexistent/x.json");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s predict", pp_t_bin());
	CHECK(pp_t_sh(cmd, &out) == 2);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s no-such-command", pp_t_bin());
	CHECK(pp_t_sh(cmd, &out) == 2);
	free(out);
}

static void defaults(void)
{
	pp_scenario s;
	/* data_parallel_size derived, gpus_per_node and intra_node from the SKU,
	 * global batch = micro batch x dp when omitted */
	const char *j = "{\"model\": {\"preset\": \"llama3-8b\"}, \"parallel\": "
			"{\"tensor_model_parallel_size\": 2}, \"cluster\": {\"gpu\": \"h100-sxm\", "
			"\"num_gpus\": 16}}";
	CHECK(tu_scenario(j, &s, NULL) == 0);
	CHECK(s.parallel.dp == 8);
	CHECK(s.cluster.gpus_per_node == 8);
	CHECK(!strcmp(s.cluster.intra->id, "nvlink4"));
	CHECK(s.training.global_batch_size == 8);
	CHECK(s.training.num_microbatches == 1);
	CHECK(s.training.precision == PP_DT_BF16);
	CHECK(s.model.num_query_groups == 8 && s.model.swiglu);
	CHECK(!(s.given & PP_GIVEN_DP) && (s.given & PP_GIVEN_TP));
	pp_scenario_release(&s);
	/* PCIe cards default to a PCIe fabric inside the node */
	j = "{\"model\": {\"preset\": \"llama3-8b\"}, \"cluster\": {\"gpu\": \"rtx4090\", \"num_gpus\": 8}}";
	CHECK(tu_scenario(j, &s, NULL) == 0);
	CHECK(s.cluster.intra->kind == PP_FAB_PCIE);
	pp_scenario_release(&s);
}

static void hf_config(void)
{
	pp_scenario s;
	pp_err err = {0};
	/* relative paths resolve against the scenario file's directory */
	const char *j = "{\"model\": {\"hf_config\": \"llama-2-7b-config.json\"}, \"cluster\": "
			"{\"gpu\": \"a100-80gb\", \"num_gpus\": 8}}";
	int rc = pp_scenario_parse(&s, "tests/data/x.json", j, strlen(j), tu_catalog(), &err);
	if (rc)
		pp_t_diag("%s", err.msg);
	CHECK(rc == 0);
	CHECK(s.model.num_layers == 32 && s.model.hidden_size == 4096);
	CHECK(s.model.ffn_hidden_size == 11008 && s.model.vocab_size == 32000);
	CHECK(s.model.seq_length == 4096 && s.model.swiglu && !s.model.tied_embeddings);
	/* a dense Llama stays dense: no experts, MLA, window or explicit head size */
	CHECK(s.model.num_query_groups == 32 && s.model.num_experts == 0 && s.model.head_dim == 0);
	CHECK(!s.model.multi_latent_attention && s.model.window == 0 && s.model.moe_list_len == 0);
	CHECK(!strcmp(s.model.id, "hf") && !strcmp(s.model.name, "llama-2-7b-config.json"));
	pp_scenario_release(&s);
}

static void shipped_scenarios_valid(void)
{
	char *out = NULL;
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "for f in scenarios/*.json; do %s check \"$f\" >/dev/null || "
		 "echo \"BAD $f\"; done", pp_t_bin());
	pp_t_sh(cmd, &out);
	CHECK(strstr(out, "BAD") == NULL);
	if (strstr(out, "BAD"))
		pp_t_diag("%s", out);
	free(out);
}

/* inputs that parse but mislead: each plausibility check fires on its slip
 * and on nothing shipped (issue 17) */
static int warnings_of(const char *json, char ***w)
{
	pp_scenario s;
	pp_hw hw;
	int n = 0;
	*w = NULL;
	CHECK(tu_scenario(json, &s, &hw) == 0);
	pp_scenario_plausibility(&s, w, &n);
	pp_scenario_release(&s);
	return n;
}

static bool any_contains(char **w, int n, const char *text)
{
	for (int i = 0; i < n; i++)
		if (strstr(w[i], text))
			return true;
	return false;
}

static void plausibility(void)
{
	char **w;
	int n = warnings_of("{\"model\": {\"preset\": \"gpt-1.7b\"}, \"training\": "
			    "{\"global_batch_size\": 64, \"train_tokens\": 2e12, \"bucket_size\": 4e7}, "
			    "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 32}}", &w);
	CHECK(n == 0);
	pp_warn_free(w, n);
	n = warnings_of("{\"model\": {\"preset\": \"gpt-1.7b\"}, \"training\": "
			"{\"global_batch_size\": 64, \"train_tokens\": 15, \"bucket_size\": 40}, "
			"\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 32, \"gpus_per_node\": 16, "
			"\"storage\": {\"write_gbytes_per_s_per_node\": 1000}}, \"costs\": {\"work\": "
			"{\"type\": \"run\", \"train_tokens\": 2e9}, \"options\": [{\"name\": \"r\", "
			"\"kind\": \"rent\", \"provider\": \"lambda_8x\"}]}}", &w);
	CHECK(n == 5);
	CHECK(any_contains(w, n, "training.train_tokens is 15, less than one step's 131072 tokens"));
	CHECK(any_contains(w, n, "training.bucket_size is 40 parameters"));
	CHECK(any_contains(w, n, "cluster.gpus_per_node is 16, but one NVIDIA H100 SXM5 80GB node "
			   "holds 8"));
	CHECK(any_contains(w, n, "storage write bandwidth per node (1000 GB/s) is more than the "
			   "node's 16 x ib-ndr NICs carry (800 GB/s)"));
	CHECK(any_contains(w, n, "costs.work.train_tokens (2e+09) differs from "
			   "training.train_tokens (15)"));
	for (int i = 0; n != 5 && i < n; i++)
		pp_t_diag("%s", w[i]);
	pp_warn_free(w, n);
	/* the commands say it: check, predict (text and JSON) */
	char *out = NULL, cmd[512];
	snprintf(cmd, sizeof(cmd), "f=$(mktemp); printf '%%s' '{\"model\": {\"preset\": "
		 "\"gpt-1.7b\"}, \"training\": {\"global_batch_size\": 64, \"train_tokens\": 15}, "
		 "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 32}}' >$f; %s check $f; "
		 "%s predict $f; %s predict --json $f; rm -f $f", pp_t_bin(), pp_t_bin(), pp_t_bin());
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK(out && strstr(out, "warnings (valid, but probably not what was meant)"));
	CHECK(out && strstr(out, "Warnings (valid input, probably not what was meant)"));
	CHECK(out && strstr(out, "\"warnings\":"));
	free(out);
	/* nothing shipped trips a check */
	snprintf(cmd, sizeof(cmd), "for f in scenarios/*.json scenarios/*/*.json; do %s check "
		 "\"$f\" | grep -q '^warnings' && echo \"WARN $f\"; done; true", pp_t_bin());
	pp_t_sh(cmd, &out);
	CHECK(out && !strstr(out, "WARN"));
	if (out && strstr(out, "WARN"))
		pp_t_diag("%s", out);
	free(out);
}

int main(void)
{
	RUN(malformed_files);
	RUN(missing_file_and_usage);
	RUN(defaults);
	RUN(hf_config);
	RUN(shipped_scenarios_valid);
	RUN(plausibility);
	return pp_t_done("test_scenario");
}
