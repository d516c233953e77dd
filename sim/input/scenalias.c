/* scenalias.c - see scenalias.h. */
#include "input/scenalias.h"

#include <stdlib.h>
#include <string.h>

typedef enum {
	AL_SAME,      /* the value as given, under the podplan key */
	AL_ZERO1,     /* true: zero_stage 1 (Megatron's distributed optimizer), false: 0 */
	AL_TRUE_TO,   /* true: the podplan key set to `to_value`; false is refused */
	AL_FP8,       /* Megatron's --fp8-format (hybrid, e4m3) or true: precision fp8 */
	AL_DTYPE,     /* vLLM's dtype: auto, bfloat16, float16, half -> bf16 */
	AL_QUANT,     /* vLLM's quantization: fp8 -> precision fp8 */
	AL_VPP,       /* layers a virtual stage -> virtual_pipeline_model_parallel_size */
	AL_ZB,        /* the zero-bubble fork's --enable-zero-bubble with its pending
		       * backwards (p: ZB-H1, 2p: ZB-H2) or --zero-bubble-v-schedule */
	AL_ZBV_MEM,   /* --zero-bubble-v-schedule-mem-setup: zb (ZB-V) only */
	AL_DROP       /* accepted and dropped: cannot change the step */
} al_conv;

static const struct alias {
	const char *section, *alias;
	al_conv conv;
	const char *to_section, *to_key, *to_value;
	const char *why;
} aliases[] = {
	{"training", "use_distributed_optimizer", AL_ZERO1, "parallel", "zero_stage", NULL,
	 "true: ZeRO-1 over the data-parallel group, as Megatron's distributed optimizer shards "
	 "the optimizer state; false: 0"},
	{"parallel", "use_distributed_optimizer", AL_ZERO1, "parallel", "zero_stage", NULL,
	 "as under training"},
	{"training", "recompute_granularity", AL_SAME, "training", "recompute", NULL,
	 "full or selective (Megatron's --recompute-granularity)"},
	{"training", "bf16", AL_TRUE_TO, "training", "precision", "bf16", "true: bf16"},
	{"training", "fp16", AL_TRUE_TO, "training", "precision", "fp16", "true: fp16"},
	{"training", "fp8", AL_FP8, "training", "precision", "fp8",
	 "hybrid, e4m3 (Megatron's --fp8-format) or true: fp8"},
	{"training", "seq_length", AL_SAME, "model", "seq_length", NULL,
	 "Megatron's --seq-length, podplan's model.seq_length"},
	{"parallel", "num_layers_per_virtual_pipeline_stage", AL_VPP, "parallel",
	 "virtual_pipeline_model_parallel_size", NULL,
	 "num_layers / (pipeline_model_parallel_size x this)"},
	{"training", "pipeline_schedule", AL_SAME, "parallel", "pipeline_schedule", NULL,
	 "the same names, under training"},
	/* sail-sg/zero-bubble-pipeline-parallelism's Megatron flags
	 * (megatron/core/zbpp_utils.py add_zero_bubble_args) */
	{"parallel", "enable_zero_bubble", AL_ZB, "parallel", "pipeline_schedule", NULL,
	 "true with zero_bubble_max_pending_backward = pipeline_model_parallel_size (ZB-H1, "
	 "zb-h1) or twice it (ZB-H2, zb-h2), or with zero_bubble_v_schedule (zbv); false: "
	 "nothing (the zero-bubble fork's --enable-zero-bubble; its \"auto\" memory limit "
	 "solves a schedule from measured times and is not read)"},
	{"training", "enable_zero_bubble", AL_ZB, "parallel", "pipeline_schedule", NULL,
	 "as under parallel"},
	{"parallel", "zero_bubble_v_schedule", AL_TRUE_TO, "parallel", "pipeline_schedule", "zbv",
	 "true: zbv (the zero-bubble fork's --zero-bubble-v-schedule)"},
	{"training", "zero_bubble_v_schedule", AL_TRUE_TO, "parallel", "pipeline_schedule", "zbv",
	 "as under parallel"},
	{"parallel", "zero_bubble_v_schedule_mem_setup", AL_ZBV_MEM, NULL, NULL, NULL,
	 "zb (ZB-V's memory, the fork's default); min and half (V-Min, V-Half) are not read"},
	{"training", "zero_bubble_v_schedule_mem_setup", AL_ZBV_MEM, NULL, NULL, NULL,
	 "as under parallel"},
	{"parallel", "zero_bubble_max_pending_backward", AL_DROP, NULL, NULL, NULL,
	 "read with enable_zero_bubble (no effect without it)"},
	{"training", "zero_bubble_max_pending_backward", AL_DROP, NULL, NULL, NULL,
	 "as under parallel"},
	{"training", "lr", AL_DROP, NULL, NULL, NULL, "a learning rate: the same kernels whatever its value"},
	{"training", "min_lr", AL_DROP, NULL, NULL, NULL, "as lr"},
	{"training", "weight_decay", AL_DROP, NULL, NULL, NULL, "as lr"},
	{"training", "adam_beta1", AL_DROP, NULL, NULL, NULL, "as lr"},
	{"training", "adam_beta2", AL_DROP, NULL, NULL, NULL, "as lr"},
	{"training", "clip_grad", AL_DROP, NULL, NULL, NULL, "as lr"},
	{"training", "seed", AL_DROP, NULL, NULL, NULL, "a random seed: the same kernels"},
	{"serving", "quantization", AL_QUANT, "serving", "precision", NULL,
	 "vLLM's quantization: fp8 (any other method is refused)"},
	{"serving", "dtype", AL_DTYPE, "serving", "precision", NULL,
	 "vLLM's dtype: auto, bfloat16, float16 or half: bf16 unless the weights are fp8 (quantization, or precision fp8), whose activations are 16-bit too (float32 is refused)"},
	{"workload", "random_input_len", AL_SAME, "workload", "input_len", NULL, "vllm bench serve's name"},
	{"workload", "random_output_len", AL_SAME, "workload", "output_len", NULL, "vllm bench serve's name"},
	{"workload", "random_range_ratio", AL_SAME, "workload", "range_ratio", NULL, "vllm bench serve's name"},
	{"workload", "random_prefix_len", AL_SAME, "workload", "prefix_len", NULL, "vllm bench serve's name"},
};

void pp_scen_alias_table(pp_sb *out)
{
	pp_sb_adds(out, "Scenario files: the launch configurations' names accepted as aliases\n\n"
			"| alias | becomes | how |\n|---|---|---|\n");
	for (size_t i = 0; i < PP_ARRAY_LEN(aliases); i++) {
		const struct alias *a = &aliases[i];
		pp_sb_addf(out, "| `%s.%s` | ", a->section, a->alias);
		if (!a->to_key)
			pp_sb_adds(out, "ignored");
		else
			pp_sb_addf(out, "`%s.%s`", a->to_section, a->to_key);
		pp_sb_addf(out, " | %s |\n", a->why);
	}
}

/* The layers of the scenario's model: inline num_layers, or the preset's. */
static int model_layers(const pp_jdoc *d, const pp_catalog *cat)
{
	const cJSON *mo = cJSON_GetObjectItemCaseSensitive(d->root, "model");
	const cJSON *nl = cJSON_GetObjectItemCaseSensitive(mo, "num_layers");
	if (cJSON_IsNumber(nl))
		return (int)nl->valuedouble;
	const cJSON *pr = cJSON_GetObjectItemCaseSensitive(mo, "preset");
	const pp_model *m = cJSON_IsString(pr) ? pp_catalog_model(cat, pr->valuestring) : NULL;
	return m ? m->num_layers : 0;
}

static cJSON *convert(const pp_jdoc *d, const pp_catalog *cat, const struct alias *a,
		      const cJSON *v, const char *path, pp_err *err, int *rc)
{
	char what[96];
	*rc = 0;
	switch (a->conv) {
	case AL_SAME:
		return cJSON_Duplicate(v, true);
	case AL_ZERO1:
		if (cJSON_IsBool(v))
			return cJSON_CreateNumber(cJSON_IsTrue(v) ? 1 : 0);
		break;
	case AL_TRUE_TO:
		if (cJSON_IsTrue(v))
			return cJSON_CreateString(a->to_value);
		break;
	case AL_FP8:
		if (cJSON_IsTrue(v) || (cJSON_IsString(v) && (!strcmp(v->valuestring, "hybrid") ||
							     !strcmp(v->valuestring, "e4m3"))))
			return cJSON_CreateString("fp8");
		break;
	case AL_DTYPE:
		if (cJSON_IsString(v) && (!strcmp(v->valuestring, "auto") ||
					  !strcmp(v->valuestring, "bfloat16") ||
					  !strcmp(v->valuestring, "float16") || !strcmp(v->valuestring, "half")))
			return cJSON_CreateString("bf16");
		break;
	case AL_QUANT:
		if (cJSON_IsString(v) && !strcmp(v->valuestring, "fp8"))
			return cJSON_CreateString("fp8");
		break;
	case AL_VPP: {
		const cJSON *par = cJSON_GetObjectItemCaseSensitive(d->root, "parallel");
		const cJSON *pp = cJSON_GetObjectItemCaseSensitive(par, "pipeline_model_parallel_size");
		int L = model_layers(d, cat), P = cJSON_IsNumber(pp) ? (int)pp->valuedouble : 1;
		int n = cJSON_IsNumber(v) ? (int)v->valuedouble : 0;
		if (n >= 1 && L > 0 && P >= 1 && L % (P * n) == 0 && cJSON_IsNumber(v) &&
		    v->valuedouble == n)
			return cJSON_CreateNumber(L / (P * n));
		*rc = pp_jdoc_errf(d, err, path, "found %s with %d layers on %d pipeline stages; expected "
				   "a whole number of layers a virtual stage that divides the layers of "
				   "each stage (or virtual_pipeline_model_parallel_size%s)",
				   pp_jdoc_describe(v, what, sizeof(what)), L, P,
				   L ? "" : "; the model's layers are not known before its config is read");
		return NULL;
	}
	case AL_ZB: {
		if (cJSON_IsFalse(v))
			return NULL;
		if (!cJSON_IsTrue(v))
			break;
		const cJSON *sec = cJSON_GetObjectItemCaseSensitive(d->root, a->section);
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sec, "zero_bubble_v_schedule")))
			return cJSON_CreateString("zbv"); /* the V flag implies this one */
		const cJSON *par = cJSON_GetObjectItemCaseSensitive(d->root, "parallel");
		const cJSON *pp = cJSON_GetObjectItemCaseSensitive(par, "pipeline_model_parallel_size");
		const cJSON *mp = cJSON_GetObjectItemCaseSensitive(sec, "zero_bubble_max_pending_backward");
		int P = cJSON_IsNumber(pp) ? (int)pp->valuedouble : 0;
		/* the fork reads the flag as a string ("auto" or a count) */
		long n = cJSON_IsNumber(mp) ? (long)mp->valuedouble
			 : cJSON_IsString(mp) ? strtol(mp->valuestring, NULL, 10) : 0;
		if (P > 0 && n == P)
			return cJSON_CreateString("zb-h1");
		if (P > 0 && n == 2 * P)
			return cJSON_CreateString("zb-h2");
		*rc = pp_jdoc_errf(d, err, path, "found true with zero_bubble_max_pending_backward %s "
				   "on %d pipeline stages; expected it at pipeline_model_parallel_size "
				   "(ZB-H1) or twice it (ZB-H2), or zero_bubble_v_schedule, or "
				   "parallel.pipeline_schedule (the fork's \"auto\" limit solves a "
				   "schedule from measured times, not read)",
				   mp ? pp_jdoc_describe(mp, what, sizeof(what)) : "(not given: auto)", P);
		return NULL;
	}
	case AL_ZBV_MEM:
		if (cJSON_IsString(v) && !strcmp(v->valuestring, "zb"))
			return NULL;
		break;
	case AL_DROP:
		return NULL;
	}
	*rc = pp_jdoc_errf(d, err, path, "found %s; expected %s", pp_jdoc_describe(v, what, sizeof(what)),
			   a->why);
	return NULL;
}

int pp_scen_aliases(pp_jdoc *d, const pp_catalog *cat, pp_err *err)
{
	for (size_t i = 0; i < PP_ARRAY_LEN(aliases); i++) {
		const struct alias *a = &aliases[i];
		cJSON *sec = cJSON_GetObjectItemCaseSensitive(d->root, a->section);
		cJSON *v = cJSON_IsObject(sec) ? cJSON_GetObjectItemCaseSensitive(sec, a->alias) : NULL;
		if (!v)
			continue;
		char path[128];
		pp_jpath(path, sizeof(path), a->section, a->alias);
		int rc;
		cJSON *nv = convert(d, cat, a, v, path, err, &rc);
		if (rc)
			return rc;
		if (nv) {
			cJSON *to = cJSON_GetObjectItemCaseSensitive(d->root, a->to_section);
			if (!to)
				to = cJSON_AddObjectToObject(d->root, a->to_section);
			if (!cJSON_IsObject(to)) {
				cJSON_Delete(nv);
				return pp_jdoc_errf(d, err, a->to_section, "found no object; expected the "
						    "section %s.%s is written into", a->to_section, a->to_key);
			}
			cJSON *old = cJSON_GetObjectItemCaseSensitive(to, a->to_key);
			if (old) {
				/* 16-bit activations beside FP8 weights: vLLM's dtype with its
				 * quantization, consistent */
				bool same = cJSON_Compare(old, nv, true) ||
					    (a->conv == AL_DTYPE && cJSON_IsString(old) &&
					     !strcmp(old->valuestring, "fp8"));
				cJSON_Delete(nv);
				if (!same)
					return pp_jdoc_errf(d, err, path, "found beside %s.%s with another "
							    "value; expected one of the two", a->to_section,
							    a->to_key);
			} else {
				cJSON_AddItemToObject(to, a->to_key, nv);
			}
		}
		cJSON_DeleteItemFromObjectCaseSensitive(sec, a->alias);
	}
	return 0;
}
