/*
 * scenalias.h - the launch configurations' own names accepted in a scenario
 * file where they are unambiguous (Megatron-LM's use_distributed_optimizer,
 * recompute_granularity, bf16 / fp16 / fp8, seq_length under training,
 * num_layers_per_virtual_pipeline_stage; vLLM's dtype and quantization;
 * vllm bench serve's random_input_len, random_output_len, ...), each
 * rewritten to podplan's key before the sections are read, or dropped with
 * the reason (optimizer hyper-parameters). One table (scenalias.c), printed
 * by pp_scen_alias_table for `podplan import --mapping`.
 */
#ifndef PP_SCENALIAS_H
#define PP_SCENALIAS_H

#include "input/catalog.h"
#include "core/jdoc.h"
#include "core/util.h"

/* Rewrite the aliases of d's tree in place. Errors (PP_EINPUT, naming the
 * alias's JSON path): a value the alias does not take, an alias given
 * beside its podplan key with a different value. */
int pp_scen_aliases(pp_jdoc *d, const pp_catalog *cat, pp_err *err);
/* The alias table as Markdown. */
void pp_scen_alias_table(pp_sb *out);

#endif
