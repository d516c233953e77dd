/*
 * frameworkint.h - private to the framework family: framework.c (loading
 * models/frameworks.json, looking its entries up, checking a behaviour's
 * value) and fwstack.c (resolving a scenario's stack from them). The
 * public contract is framework.h.
 */
#ifndef PP_FRAMEWORKINT_H
#define PP_FRAMEWORKINT_H

#include "input/framework.h"

/* A tensor-parallel overlap implementation (frameworks.json "tp_overlap"). */
typedef struct tpo_impl {
	char id[32];
	int ag_splits, rs_splits;  /* 0: one chunk per tensor-parallel rank */
	double rs_sms, bulk_sms;
} tpo_impl;

typedef struct fw {
	char id[32], name[96], version[96];
	const cJSON *def[PP_BEH_COUNT];      /* each default's figure object */
	char origin[PP_BEH_COUNT][448];
	int tpo;                             /* PP_TPO_* this framework's tp_comm_overlap runs */
	bool torch_compile;                  /* has a torch.compile path */
	bool fsdp2_copies;                   /* ZeRO-3 is FSDP2 (optional fsdp2_copies) */
	bool ddp_bucket_copies;              /* DDP copies into its buckets (optional) */
	bool eager_memory;                   /* optional eager_memory */
	double optim_temp_states;            /* its optimizer_temp_states */
	unsigned schedules;                  /* optional pipeline_schedules: 1 << pp_schedule */
	char schedules_origin[448];
} fw;

struct pp_frameworks {
	const pp_jdoc *d;
	fw *fws;
	size_t nfw;
	pp_ce_impl *ce;
	size_t nce;
	pp_eltw_impl *el;
	size_t nel;
	pp_optim_impl *op;
	size_t nop;
	pp_fp8_impl *f8;
	size_t nf8;
	tpo_impl tpo[PP_TPO_COUNT];
	struct {
		bool overlapped;
		double fwd, bwd_q, bwd_kv;
	} cpi[PP_CPC_COUNT];
	const char **ids;
};

/* tensor_clock's values: "burst", "sustained". */
extern const char *const pp_fw_clock_names[2];

/* The index of s in names[n], or -1. */
int pp_fw_name_index(const char *const *names, int n, const char *s);

/* An implementation or framework of f by id; NULL when f has none. */
const pp_ce_impl *pp_fw_find_ce(const pp_frameworks *f, const char *id);
const pp_eltw_impl *pp_fw_find_el(const pp_frameworks *f, const char *id);
const pp_optim_impl *pp_fw_find_op(const pp_frameworks *f, const char *id);
const pp_fp8_impl *pp_fw_find_f8(const pp_frameworks *f, const char *id);
const fw *pp_fw_find(const pp_frameworks *f, const char *id);

/* Check a value v (at path, in document d) against behaviour b's type and
 * the implementation ids of f: a framework's default (is_default) or a
 * scenario's training key. A default of attention_kernel may be an object
 * {arch: id, ..., "default": id}. Returns 0 or PP_EINPUT (found ...,
 * expected ...). */
int pp_fw_check_value(const pp_frameworks *f, const pp_jdoc *d, int b, const cJSON *v,
		      const char *path, bool is_default, pp_err *err);

#endif
