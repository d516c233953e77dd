/*
 * cmd_import.c - podplan import megatron|vllm|nemo FILE: a launch configuration
 * as users keep it read into a podplan scenario (input/import.h), checked
 * as `podplan check` checks a file before anything is written.
 */
#include "cli/cli.h"
#include "input/import.h"
#include "input/scenario.h"
#include "core/util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char *const kinds[] = {"megatron", "vllm", "nemo", "hf", "scenario"};

static int usage(void)
{
	printf("usage: podplan import megatron|vllm|nemo FILE [--gpu ID] [--num-gpus N]\n"
	       "                      [--vocab-size N] [--model PRESET|config.json]\n"
	       "                      [--recipe NAME] [-o OUT.json]\n"
	       "       podplan import --mapping [megatron|vllm|nemo|hf|scenario]\n\n"
	       "Reads a launch configuration into a podplan scenario (stdout, or -o OUT.json):\n"
	       "  megatron  a Megatron-LM / Megatron-Core launch script, command line or argument\n"
	       "            file (torchrun's --nproc_per_node x --nnodes give the GPUs)\n"
	       "  vllm      a `vllm serve` command line and, optionally, a `vllm bench serve` one\n"
	       "            in the same file (the workload; without it, bench serve's defaults)\n"
	       "  nemo      a Megatron-Bridge recipe module (NeMo's recipes, Python as published):\n"
	       "            the recipe function's cfg.SECTION.KEY = VALUE statements; the GPUs\n"
	       "            from its name (..._32gpu_h100_...), the model from the preset that\n"
	       "            names its Hugging Face repository\n"
	       "Every argument is mapped to a scenario key, ignored with the reason, or refused\n"
	       "by name (exit 2) when it changes the step and podplan does not model it;\n"
	       "--mapping prints the table. The scenario is checked as `podplan check` checks\n"
	       "it before it is written.\n\n"
	       "  --gpu ID          cluster.gpu (podplan catalog gpus; default h100-sxm)\n"
	       "  --num-gpus N      cluster.num_gpus (default: what the text launches)\n"
	       "  --vocab-size N    megatron: the tokenizer's vocabulary when the text has none;\n"
	       "                    nemo: a Hugging Face tokenizer's (padded as Bridge pads it)\n"
	       "  --model X         vllm, nemo: a preset id or a config.json for the model\n"
	       "                    (vllm default: the repository's name as a preset id; nemo:\n"
	       "                    the preset whose hf_repo the recipe names)\n"
	       "  --recipe NAME     nemo: the recipe function (default: the file's only one)\n"
	       "  -o, --output OUT  write the scenario there (atomically) instead of stdout\n"
	       "  --mapping         print the mapping table (Markdown) and exit; hf: the keys\n"
	       "                    of a Hugging Face config.json (model.hf_config), read or\n"
	       "                    accepted with the reason; scenario: the launch\n"
	       "                    configurations' names a scenario file accepts as aliases\n");
	return 0;
}

int pp_cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
					     {"gpu", required_argument, NULL, 'g'},
					     {"num-gpus", required_argument, NULL, 'n'},
					     {"vocab-size", required_argument, NULL, 'v'},
					     {"model", required_argument, NULL, 'm'},
					     {"output", required_argument, NULL, 'o'},
					     {"mapping", no_argument, NULL, 'M'},
					     {"recipe", required_argument, NULL, 'r'},
					     {0, 0, 0, 0}};
	pp_import_opts o = {0};
	const char *output = NULL;
	bool mapping = false;
	unsigned long u;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return usage();
		case 'g':
			o.gpu = optarg;
			break;
		case 'n':
			if (pp_cli_parse_ulong(optarg, 1000000, &u) || !u)
				return pp_cli_usage_error("import", "--num-gpus: expected a whole number "
							  "from 1 to 1000000");
			o.num_gpus = (int)u;
			break;
		case 'v':
			if (pp_cli_parse_ulong(optarg, 100000000, &u) || !u)
				return pp_cli_usage_error("import", "--vocab-size: expected a whole "
							  "number from 1 to 100000000");
			o.vocab_size = (int)u;
			break;
		case 'm':
			o.model = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'M':
			mapping = true;
			break;
		case 'r':
			o.recipe = optarg;
			break;
		default:
			return pp_cli_usage_error("import", "unknown option");
		}
	}
	if (mapping) {
		if (argc - optind > 1)
			return pp_cli_usage_error("import", "--mapping takes at most one importer");
		pp_sb sb = {0};
		if (pp_import_mapping(optind < argc ? argv[optind] : NULL, &sb)) {
			const char *dym = pp_did_you_mean(argv[optind], kinds, 5);
			return pp_cli_usage_error("import", "unknown table \"%s\"%s%s%s; expected "
						  "megatron, vllm, nemo, hf or scenario", argv[optind],
						  dym ? ", did you mean \"" : "", dym ? dym : "",
						  dym ? "\"?" : "");
		}
		fputs(sb.buf, stdout);
		pp_sb_release(&sb);
		return 0;
	}
	if (argc - optind != 2)
		return pp_cli_usage_error("import", "expected an importer (megatron, vllm or nemo) and a "
					  "file");
	const char *kind = argv[optind], *path = argv[optind + 1];
	bool meg = !strcmp(kind, "megatron"), nemo = !strcmp(kind, "nemo");
	if (!meg && !nemo && strcmp(kind, "vllm")) {
		const char *dym = pp_did_you_mean(kind, kinds, 3);
		return pp_cli_usage_error("import", "unknown importer \"%s\"%s%s%s; expected megatron, "
					  "vllm or nemo", kind, dym ? ", did you mean \"" : "",
					  dym ? dym : "", dym ? "\"?" : "");
	}
	pp_err err = {0};
	char *text = NULL, *json = NULL;
	size_t len = 0;
	cJSON *sc = NULL;
	pp_catalog *cat = NULL;
	pp_scenario s;
	bool parsed = false;
	int rc;
	if ((rc = pp_cli_catalog(&cat)))
		goto out;
	o.cat = cat;
	rc = pp_read_file(path, 4u << 20, &text, &len, &err);
	if (!rc)
		rc = meg ? pp_import_megatron(path, text, &o, &sc, &err)
			 : nemo ? pp_import_nemo(path, text, &o, &sc, &err)
				: pp_import_vllm(path, text, &o, &sc, &err);
	if (rc) {
		rc = pp_cli_fail(&err);
		goto out;
	}
	json = cJSON_Print(sc);
	/* checked where it will lie: a relative hf_config reads from there */
	if ((rc = pp_scenario_parse(&s, output ? output : path, json, strlen(json), cat, &err))) {
		fprintf(stderr, "podplan import: the scenario read from %s is not valid:\n", path);
		rc = pp_cli_fail(&err);
		goto out;
	}
	parsed = true;
	pp_sb sb = {0};
	pp_sb_adds(&sb, json);
	pp_sb_adds(&sb, "\n");
	if (output) {
		if (pp_write_file_atomic(output, sb.buf, sb.len, &err))
			rc = pp_cli_fail(&err);
	} else {
		fputs(sb.buf, stdout);
	}
	pp_sb_release(&sb);
out:
	if (parsed)
		pp_scenario_release(&s);
	pp_catalog_free(cat);
	cJSON_Delete(sc);
	free(json);
	free(text);
	return rc;
}
