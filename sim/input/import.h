/*
 * import.h - podplan's importers: a launch configuration as users keep it
 * (a Megatron-LM / Megatron-Core launch script, command line or argument
 * file; a `vllm serve` command line with, optionally, a `vllm bench serve`
 * one) read into a podplan scenario. Every argument is mapped to a
 * scenario key, ignored with the reason (logging, paths, seeds, checkpoint
 * intervals, optimizer hyper-parameters), or refused by name (PP_EINPUT)
 * when it changes the step or the serving iteration and podplan does not
 * model it. The rules are one table per importer (impmegatron.c,
 * impvllm.c); pp_import_mapping prints them, so the documentation
 * (docs/importers.md) is generated from the code.
 */
#ifndef PP_IMPORT_H
#define PP_IMPORT_H

#include "core/pp.h"
#include "core/util.h"
#include "input/catalog.h"

#include <cjson/cJSON.h>

/* What the launch text does not say: the cluster it runs on and, where the
 * text does not name it, the model. */
typedef struct pp_import_opts {
	const char *gpu;   /* cluster.gpu (a catalog id); NULL: "h100-sxm" */
	int num_gpus;      /* cluster.num_gpus; 0: torchrun's nproc_per_node x nnodes
			      (Megatron) or the serving layout's GPUs (vLLM) */
	int vocab_size;    /* Megatron: the tokenizer's vocabulary when the text gives
			      neither --vocab-size nor a GPT-2 vocabulary file; 0: none */
	const char *model; /* vLLM: a preset id or a config.json path for the served
			      model; NULL: the repository's name read as a preset id;
			      nemo: the same, NULL: the preset whose hf_repo the recipe
			      names */
	const char *recipe; /* nemo: the recipe function; NULL: the module's only one */
	const pp_catalog *cat; /* nemo: the presets, found by their Hugging Face name */
} pp_import_opts;

/* Read the Megatron launch text (name: its file name, for messages) into a
 * new scenario object *out (the caller frees it with cJSON_Delete).
 * Errors: PP_EINPUT naming file:line, the argument, what was found and
 * expected (an unknown argument, a refused one, a value that is not a
 * number, an argument given twice with different values). */
int pp_import_megatron(const char *name, const char *text, const pp_import_opts *o, cJSON **out,
		       pp_err *err);
/* The same for the first `vllm serve` command line of text and, when the
 * text has one, its first `vllm bench serve` command line (the workload). */
int pp_import_vllm(const char *name, const char *text, const pp_import_opts *o, cJSON **out,
		   pp_err *err);

/* The same for a Megatron-Bridge recipe module (NeMo's recipes; Python,
 * as published): the recipe function o->recipe is read statement by
 * statement, `cfg.SECTION.KEY = VALUE` with literal or module-constant
 * values from `_pretrain_common()`'s defaults on. Errors: PP_EINPUT naming
 * file:line and the statement or field (a statement podplan does not
 * read, an unknown field, a refused one turned on, a value not a literal). */
int pp_import_nemo(const char *name, const char *text, const pp_import_opts *o, cJSON **out,
		   pp_err *err);

/* The mapping table of importer kind ("megatron", "vllm", "nemo", or "hf": the
 * keys of a Hugging Face config.json that model.hf_config reads or
 * accepts; NULL: all of them) as Markdown: argument, what podplan does with it, the scenario
 * key or the reason. -1 for an unknown kind. */
int pp_import_mapping(const char *kind, pp_sb *out);

#endif
