/* fwstack.c - see framework.h: a scenario's software stack, resolved from
 * the frameworks of frameworks.json (frameworkint.h) and its training
 * keys. */
#include "input/frameworkint.h"
#include "core/util.h"

#include <stdio.h>
#include <string.h>

static pp_attn_kernel attn_of(const cJSON *v)
{
	return (pp_attn_kernel)pp_fw_name_index(pp_attn_kernel_names, PP_ATTN_COUNT, v->valuestring);
}

pp_attn_kernel pp_stack_attention(const pp_stack *st, const char *arch)
{
	for (int i = 0; i < st->nattn_arch; i++)
		if (arch && !strcmp(st->attn_arch[i], arch))
			return st->attn_arch_k[i];
	return st->attn;
}

/* Apply value v of behaviour b (checked) to st. */
static void apply(pp_stack *st, const pp_frameworks *f, int b, const cJSON *v)
{
	switch (b) {
	case PP_BEH_ATTN:
		st->nattn_arch = 0;
		if (cJSON_IsObject(v)) {
			for (const cJSON *e = v->child; e; e = e->next) {
				if (!strcmp(e->string, "default"))
					st->attn = attn_of(e);
				else if (st->nattn_arch < 6) {
					snprintf(st->attn_arch[st->nattn_arch], sizeof(st->attn_arch[0]), "%s",
						 e->string);
					st->attn_arch_k[st->nattn_arch++] = attn_of(e);
				}
			}
		} else {
			st->attn = attn_of(v);
		}
		break;
	case PP_BEH_CE: st->ce = *pp_fw_find_ce(f, v->valuestring); break;
	case PP_BEH_ELTW: st->eltw = *pp_fw_find_el(f, v->valuestring); break;
	case PP_BEH_OPTIM: st->optim = *pp_fw_find_op(f, v->valuestring); break;
	case PP_BEH_FP8: st->fp8 = *pp_fw_find_f8(f, v->valuestring); break;
	case PP_BEH_FUSED_PROJ: st->fused_proj = cJSON_IsTrue(v); break;
	case PP_BEH_SAC: st->sac = pp_fw_name_index(pp_sac_names, PP_SAC_COUNT, v->valuestring); break;
	case PP_BEH_GRAD_FP32:
		st->grad_reduce = cJSON_IsString(v) ? PP_GRED_MEGATRON
				  : cJSON_IsTrue(v) ? PP_GRED_FP32 : PP_GRED_TRAIN_DTYPE;
		break;
	case PP_BEH_RESHARD: st->reshard_after_forward = cJSON_IsTrue(v); break;
	case PP_BEH_TP_OVERLAP: st->tp_overlap = cJSON_IsTrue(v) ? PP_TPO_TE : PP_TPO_NONE; break;
	case PP_BEH_CUDA_GRAPHS: st->cuda_graphs = cJSON_IsTrue(v); break;
	case PP_BEH_HOST_ISSUE: st->host_issue_s = v->valuedouble * 1e-6; break;
	case PP_BEH_MASTER_FP32: st->master_fp32 = cJSON_IsTrue(v); break;
	case PP_BEH_AUTOCAST: st->autocast = cJSON_IsTrue(v); break;
	case PP_BEH_TENSOR_CLOCK:
		st->sustained_clock = pp_fw_name_index(pp_fw_clock_names, 2, v->valuestring) == 1;
		break;
	case PP_BEH_CP_COMM:
		st->cp_comm = pp_fw_name_index(pp_cpc_names, PP_CPC_COUNT, v->valuestring);
		st->cp_overlapped = f->cpi[st->cp_comm].overlapped;
		st->cp_merge_fwd = f->cpi[st->cp_comm].fwd;
		st->cp_merge_bwd_q = f->cpi[st->cp_comm].bwd_q;
		st->cp_merge_bwd_kv = f->cpi[st->cp_comm].bwd_kv;
		break;
	default: break;
	}
}

/* tp_comm_overlap on: the framework's implementation and its parameters */
static void set_tpo(pp_stack *st, const pp_frameworks *f, int k)
{
	const tpo_impl *t = &f->tpo[k];
	st->tp_overlap = k;
	st->tpo_ag_splits = t->ag_splits;
	st->tpo_rs_splits = t->rs_splits;
	st->tpo_rs_sms = t->rs_sms;
	st->tpo_bulk_sms = t->bulk_sms;
}

static void set_defaults(pp_stack *st, const pp_frameworks *f, const fw *x)
{
	memset(st, 0, sizeof(*st));
	snprintf(st->framework, sizeof(st->framework), "%s", x->id);
	snprintf(st->framework_name, sizeof(st->framework_name), "%s", x->name);
	snprintf(st->version, sizeof(st->version), "%s", x->version);
	st->fsdp2_copies = x->fsdp2_copies;
	st->ddp_bucket_copies = x->ddp_bucket_copies;
	st->eager_memory = x->eager_memory;
	st->optim_temp_states = x->optim_temp_states;
	st->schedules = x->schedules;
	snprintf(st->schedules_origin, sizeof(st->schedules_origin), "%s", x->schedules_origin);
	st->ddp = -1;
	for (int b = 0; b < PP_BEH_COUNT; b++) {
		apply(st, f, b, x->def[b]);
		snprintf(st->origin[b], sizeof(st->origin[b]), "%s", x->origin[b]);
	}
}

/* The elementwise kernels of the same code on an fp32 residual stream. */
static void set_amp(pp_stack *st, const pp_frameworks *f)
{
	st->eltw_amp = st->eltw;
	if (st->eltw.autocast[0])
		st->eltw_amp = *pp_fw_find_el(f, st->eltw.autocast);
}

int pp_stack_default(pp_stack *st, const pp_frameworks *f, const char *id, pp_err *err)
{
	const fw *x = pp_fw_find(f, id);
	if (!x)
		return pp_errf(err, PP_EINPUT, "frameworks.json: no framework \"%s\"", id);
	set_defaults(st, f, x);
	/* the default tp_comm_overlap means the framework's implementation */
	if (st->tp_overlap)
		set_tpo(st, f, x->tpo);
	set_amp(st, f);
	return 0;
}

int pp_stack_resolve(pp_stack *st, const pp_frameworks *f, const pp_jdoc *d, const cJSON *t,
		     pp_err *err)
{
	char id[32] = "megatron-core";
	int rc;
	bool present = false;
	if (t && (rc = pp_jget_str(d, t, "training", "framework", false, id, sizeof(id), &present, err)))
		return rc;
	const fw *x = pp_fw_find(f, id);
	if (!x) {
		const char *dym = pp_did_you_mean(id, f->ids, f->nfw);
		pp_sb list = {0};
		for (size_t i = 0; i < f->nfw; i++)
			pp_sb_addf(&list, "%s\"%s\"", i ? ", " : "", f->ids[i]);
		rc = dym ? pp_jdoc_errf(d, err, "training.framework", "unknown framework \"%s\", did "
					"you mean \"%s\"?", id, dym)
			 : pp_jdoc_errf(d, err, "training.framework", "unknown framework \"%s\"; "
					"expected one of %s (models/frameworks.json)", id, list.buf);
		pp_sb_release(&list);
		return rc;
	}
	set_defaults(st, f, x);
	if (!t)
		goto overlap;
	/* torch.compile: a TorchTitan or plain PyTorch path only; it compiles
	 * the blocks' elementwise chains */
	if ((rc = pp_jget_bool(d, t, "training", "torch_compile", false, &st->torch_compile, &present,
			       err)))
		return rc;
	if (st->torch_compile && !x->torch_compile)
		return pp_jdoc_errf(d, err, "training.torch_compile", "found true with framework \"%s\", "
				    "which has no torch.compile path; expected false or the key left "
				    "out", x->id);
	if (st->torch_compile) {
		st->eltw = *pp_fw_find_el(f, "compiled");
		snprintf(st->origin[PP_BEH_ELTW], sizeof(st->origin[PP_BEH_ELTW]),
			 "scenario training.torch_compile (each block compiled)");
	}
	bool ddp;
	if ((rc = pp_jget_bool(d, t, "training", "ddp", false, &ddp, &present, err)))
		return rc;
	if (present)
		st->ddp = ddp;
	for (int b = 0; b < PP_BEH_COUNT; b++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, pp_beh_keys[b]);
		char p[96];
		if (!v)
			continue;
		pp_jpath(p, sizeof(p), "training", pp_beh_keys[b]);
		if ((rc = pp_fw_check_value(f, d, b, v, p, false, err)))
			return rc;
		apply(st, f, b, v);
		snprintf(st->origin[b], sizeof(st->origin[b]), "scenario %s", p);
	}
	/* use_flash_attn false is the unfused core; true asks for a fused one */
	const cJSON *fa = cJSON_GetObjectItemCaseSensitive(t, "use_flash_attn");
	if (cJSON_IsFalse(fa)) {
		if (cJSON_GetObjectItemCaseSensitive(t, "attention_kernel") && st->attn != PP_ATTN_UNFUSED)
			return pp_jdoc_errf(d, err, "training.attention_kernel", "found \"%s\" with "
					    "use_flash_attn false; expected \"unfused\" or one of the "
					    "two keys left out", pp_attn_kernel_names[st->attn]);
		st->attn = PP_ATTN_UNFUSED;
		st->nattn_arch = 0;
		snprintf(st->origin[PP_BEH_ATTN], sizeof(st->origin[PP_BEH_ATTN]),
			 "scenario training.use_flash_attn false");
	} else if (cJSON_IsTrue(fa) && st->attn == PP_ATTN_UNFUSED && !st->nattn_arch) {
		if (cJSON_GetObjectItemCaseSensitive(t, "attention_kernel"))
			return pp_jdoc_errf(d, err, "training.attention_kernel", "found \"unfused\" with "
					    "use_flash_attn true; expected a fused kernel (\"fa2\", "
					    "\"fa3\", \"cudnn\", \"catalog\")");
		st->attn = PP_ATTN_FA2;
		st->nattn_arch = 0;
		snprintf(st->origin[PP_BEH_ATTN], sizeof(st->origin[PP_BEH_ATTN]),
			 "scenario training.use_flash_attn true (FlashAttention 2)");
	}
	if (st->tp_overlap && x->tpo == PP_TPO_NONE)
		return pp_jdoc_errf(d, err, "training.tp_comm_overlap", "found true with framework "
				    "\"%s\", which has no tensor-parallel communication overlap; expected "
				    "false", x->id);
overlap:
	if (st->tp_overlap)
		set_tpo(st, f, x->tpo);
	set_amp(st, f);
	return 0;
}
