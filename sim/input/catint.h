/*
 * catint.h - private to the catalog's files: catalog.c (loading the
 * documents, the hardware, model and plausibility entries, the look-ups),
 * catkernels.c (kernels.json) and catfig.c (the readers they share). The
 * public contract is catalog.h.
 */
#ifndef PP_CATINT_H
#define PP_CATINT_H

#include "input/catalog.h"

/* The documents of models/, in load order (doc_kinds names them). */
enum { DOC_GPUS, DOC_FABRICS, DOC_STORAGE, DOC_MODELS, DOC_PRICES, DOC_KERNELS, DOC_FRAMEWORKS,
       DOC_PLAUSIBILITY, DOC_TCO, DOC_COUNT };

struct pp_catalog {
	char *dir;
	pp_jdoc docs[DOC_COUNT];
	pp_gpu *gpus;
	size_t ngpus;
	pp_fabric *fabrics;
	size_t nfabrics;
	pp_storage *storage;
	size_t nstorage;
	pp_model *models;
	size_t nmodels;
	pp_finetune_defaults finetune;
	pp_moe_defaults moe;
	pp_kernel_params *kernels;
	size_t nkernels;
	pp_frameworks *frameworks;
	pp_best_mfu *best;
	size_t nbest;
	const char **ids[DOC_COUNT];
	size_t nids[DOC_COUNT];
};

/* catfig.c: a figure {"value", "source", "date", "estimate"} at key of obj (JSON
 * path parent.key of d); null when nullable (*out = 0), absent when not
 * required (*out untouched). *out = value x scale; *prov its source and
 * date (prov may be NULL). 0 or PP_EINPUT. */
int pp_cat_fig(const pp_jdoc *d, const cJSON *obj, const char *parent, const char *key,
	       bool required, bool nullable, double scale, double *out, pp_prov *prov, pp_err *err);
/* A required integer in [min, max] at key of o into *out. */
int pp_cat_int(const pp_jdoc *d, const cJSON *o, const char *parent, const char *key,
	       int64_t min, int64_t max, int *out, pp_err *err);
/* The array of entries at the document's top-level key; *rc PP_EINPUT when
 * it is missing or not an array. */
const cJSON *pp_cat_array(const pp_jdoc *d, const char *key, pp_err *err, int *rc);

/* kernels.json into c->kernels (catkernels.c). */
int pp_cat_load_kernels(pp_catalog *c, pp_err *err);

#endif
