/* impmap.c - the importers' mapping table printed from their rules
 * (import.h): docs/importers.md holds its output, checked by
 * tests/readme.sh. */
#include "input/impint.h"
#include "input/hfconfig.h"
#include "input/scenalias.h"

#include <string.h>

static void table(pp_sb *out, const char *title, const pp_imp_rule *r, size_t n)
{
	static const char *const act[] = {"mapped", "ignored", "refused"};
	pp_sb_addf(out, "%s\n\n| argument | | scenario key, or why |\n|---|---|---|\n", title);
	for (size_t i = 0; i < n; i++) {
		pp_sb_addf(out, "| `%s`%s | %s | ", r[i].name, r[i].nvals ? " V" : "", act[r[i].act]);
		if (r[i].act == PP_IMP_MAP)
			pp_sb_addf(out, "`%s`: %s |\n", r[i].key, r[i].why);
		else
			pp_sb_addf(out, "%s |\n", r[i].why);
	}
}

int pp_import_mapping(const char *kind, pp_sb *out)
{
	bool all = !kind;
	if (!all && strcmp(kind, "megatron") && strcmp(kind, "vllm") && strcmp(kind, "nemo") &&
	    strcmp(kind, "hf") &&
	    strcmp(kind, "scenario"))
		return -1;
	if (all || !strcmp(kind, "megatron"))
		table(out, "podplan import megatron: Megatron-LM's and torchrun's arguments",
		      pp_imp_megatron_rules, pp_imp_megatron_nrules);
	if (all)
		pp_sb_adds(out, "\n");
	if (all || !strcmp(kind, "vllm")) {
		table(out, "podplan import vllm: vllm serve's arguments", pp_imp_vllm_rules,
		      pp_imp_vllm_nrules);
		pp_sb_adds(out, "\n");
		table(out, "podplan import vllm: vllm bench serve's arguments", pp_imp_bench_rules,
		      pp_imp_bench_nrules);
	}
	if (all)
		pp_sb_adds(out, "\n");
	if (all || !strcmp(kind, "nemo"))
		table(out, "podplan import nemo: a Megatron-Bridge recipe's fields (cfg.SECTION.KEY)",
		      pp_imp_bridge_rules, pp_imp_bridge_nrules);
	if (all)
		pp_sb_adds(out, "\n");
	if (all || !strcmp(kind, "hf")) {
		pp_sb_adds(out, "model.hf_config: the keys of a Hugging Face config.json\n\n");
		pp_hfconfig_accepted(out);
	}
	if (all)
		pp_sb_adds(out, "\n");
	if (all || !strcmp(kind, "scenario"))
		pp_scen_alias_table(out);
	return 0;
}
