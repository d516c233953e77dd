/*
 * cmd_catalog.c - podplan catalog [gpus|fabrics|storage|models|prices|kernels]
 * [--json]: the catalogs as a summary table plus every figure with its
 * source and date; --json prints the catalog data as loaded, sources included.
 */
#include "input/catalog.h"
#include "cli/cli.h"
#include "input/prices.h"
#include "input/framework.h"
#include "core/util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char *const kinds[] = {"gpus",   "fabrics", "storage",    "models",
				    "prices", "kernels", "frameworks", "plausibility"};

static void help(void)
{
	fputs("usage: podplan catalog [gpus|fabrics|storage|models|prices|kernels|frameworks|plausibility]\n"
	       "                       [--json]\n\n"
	       "Prints a catalog of the data directory (PODPLAN_DATA, else the models/\n"
	       "folder of the checkout or prefix podplan runs from): a summary table,\n"
	       "then every figure with its source and date (estimates marked). With no\n"
	       "kind, prints all of them. frameworks lists each training framework's\n"
	       "defaults with the code path each was read from; plausibility the best\n"
	       "published MFU per GPU and precision.\n"
	       "  -j, --json   the catalog data as loaded, each entry with its sources\n", stdout);
}

/* Print every figure object (one with "value") under node, depth-first. */
static void walk_figures(const pp_catalog *cat, const char *kind, const cJSON *node,
			 const char *path, const char *id)
{
	if (!cJSON_IsObject(node))
		return;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(node, "value");
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(node, "source");
	if (v && cJSON_IsNumber(v) && src) {
		const cJSON *date = cJSON_GetObjectItemCaseSensitive(node, "date");
		const cJSON *unit = cJSON_GetObjectItemCaseSensitive(node, "unit");
		const cJSON *est = cJSON_GetObjectItemCaseSensitive(node, "estimate");
		printf("  %-16s %-44s %12.6g %-18s %s%s [%s]\n", id, path, v->valuedouble,
		       cJSON_IsString(unit) ? unit->valuestring : "",
		       cJSON_IsTrue(est) ? "ESTIMATE " : "",
		       cJSON_IsString(src) ? pp_catalog_source_title(cat, kind, src->valuestring) : "?",
		       cJSON_IsString(date) ? date->valuestring : "no date");
		return;
	}
	for (const cJSON *c = node->child; c; c = c->next) {
		char p[512];
		if (!c->string || !strcmp(c->string, "sources"))
			continue;
		pp_jpath(p, sizeof(p), path, c->string);
		walk_figures(cat, kind, c, p, id);
	}
}

static void print_gpus(const pp_catalog *cat)
{
	printf("GPUs (%zu)\n", pp_catalog_ngpus(cat));
	printf("  %-10s %-30s %8s %8s %8s %8s %8s %8s %7s %8s %8s %5s %6s\n", "id", "name", "fp32",
	       "tf32", "bf16", "fp8", "nvfp4", "mxfp4", "mem", "mem bw", "NVLink", "PCIe", "TDP");
	printf("  %-10s %-30s %8s %8s %8s %8s %8s %8s %7s %8s %8s %5s %6s\n", "", "", "TFLOP/s",
	       "TFLOP/s", "TFLOP/s", "TFLOP/s", "TFLOP/s", "TFLOP/s", "GiB", "TB/s", "GB/s/dir", "gen",
	       "W");
	for (size_t i = 0; i < pp_catalog_ngpus(cat); i++) {
		const pp_gpu *g = pp_catalog_gpu_at(cat, i);
		/* the optional dtypes: "-" where the SKU has no such tensor cores */
		char opt[3][16], nv[16];
		const pp_dtype od[3] = {PP_DT_FP8, PP_DT_NVFP4, PP_DT_MXFP4};
		for (int j = 0; j < 3; j++) {
			if (g->peak_flops[od[j]] > 0)
				snprintf(opt[j], sizeof(opt[j]), "%.1f", g->peak_flops[od[j]] / PP_TERA);
			else
				snprintf(opt[j], sizeof(opt[j]), "-");
		}
		if (g->nvlink_gen)
			snprintf(nv, sizeof(nv), "%.0f", g->nvlink_Bps / PP_GB);
		else
			snprintf(nv, sizeof(nv), "none");
		printf("  %-10s %-30.30s %8.1f %8.1f %8.1f %8s %8s %8s %7.0f %8.2f %8s %5d %6.0f\n",
		       g->id, g->name, g->peak_flops[PP_DT_FP32] / PP_TERA,
		       g->peak_flops[PP_DT_TF32] / PP_TERA, g->peak_flops[PP_DT_BF16] / PP_TERA, opt[0],
		       opt[1], opt[2], g->mem_bytes / PP_GIB,
		       g->mem_Bps / PP_TERA, nv, g->pcie_gen, g->tdp_w);
	}
}

static void print_fabrics(const pp_catalog *cat)
{
	printf("Fabrics (%zu)\n", pp_catalog_nfabrics(cat));
	printf("  %-10s %-36s %-10s %-6s %10s %6s %9s %6s\n", "id", "name", "kind", "scope",
	       "GB/s/dir", "eff", "latency", "radix");
	for (size_t i = 0; i < pp_catalog_nfabrics(cat); i++) {
		const pp_fabric *f = pp_catalog_fabric_at(cat, i);
		printf("  %-10s %-36.36s %-10s %-6s %10.2f %6.2f %7.2fus %6d\n", f->id, f->name,
		       pp_fabric_kind_names[f->kind], f->intra_node ? "intra" : "inter", f->port_Bps / PP_GB,
		       f->efficiency, f->latency_s * 1e6, f->switch_ports);
	}
}

static void print_storage(const pp_catalog *cat)
{
	printf("Storage (%zu)\n", pp_catalog_nstorage(cat));
	printf("  %-18s %-40s %10s %10s %10s %10s\n", "id", "name", "rd/node", "wr/node", "rd agg",
	       "wr agg");
	for (size_t i = 0; i < pp_catalog_nstorage(cat); i++) {
		const pp_storage *s = pp_catalog_storage_at(cat, i);
		printf("  %-18s %-40.40s %8.1fGB %8.1fGB %8.0fGB %8.0fGB  (GB/s; 0 = scales per node)\n",
		       s->id, s->name, s->read_Bps_per_node / PP_GB, s->write_Bps_per_node / PP_GB,
		       s->agg_read_Bps / PP_GB, s->agg_write_Bps / PP_GB);
	}
}

static void print_models(const pp_catalog *cat)
{
	printf("Model presets (%zu)\n", pp_catalog_nmodels(cat));
	printf("  %-20s %7s %7s %6s %6s %7s %8s %7s %6s\n", "id", "layers", "hidden", "heads",
	       "groups", "ffn", "vocab", "seq", "swiglu");
	for (size_t i = 0; i < pp_catalog_nmodels(cat); i++) {
		const pp_model *m = pp_catalog_model_at(cat, i);
		printf("  %-20s %7d %7d %6d %6d %7d %8d %7d %6s\n", m->id, m->num_layers,
		       m->hidden_size, m->num_attention_heads, m->num_query_groups, m->ffn_hidden_size,
		       m->vocab_size, m->seq_length, m->swiglu ? "yes" : "no");
	}
}

static void print_figures(const pp_catalog *cat, const char *kind)
{
	const pp_jdoc *d = pp_catalog_doc(cat, kind);
	printf("\n%s: every figure, with its source and date\n", kind);
	const char *arrays[] = {"gpus", "fabrics", "storage", "models", "archs"};
	for (size_t a = 0; a < PP_ARRAY_LEN(arrays); a++) {
		const cJSON *arr = cJSON_GetObjectItemCaseSensitive(d->root, arrays[a]);
		if (!cJSON_IsArray(arr))
			continue;
		for (const cJSON *e = arr->child; e; e = e->next) {
			const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
			if (!id)
				id = cJSON_GetObjectItemCaseSensitive(e, "arch");
			walk_figures(cat, kind, e, "", cJSON_IsString(id) ? id->valuestring : "?");
		}
		return;
	}
	/* prices: keyed objects rather than arrays */
	for (const cJSON *c = d->root->child; c; c = c->next) {
		if (!c->string || !strcmp(c->string, "sources") || !strcmp(c->string, "meta"))
			continue;
		if (!strcmp(c->string, "skus")) {
			for (const cJSON *s = c->child; s; s = s->next)
				walk_figures(cat, kind, s, "", s->string);
		} else {
			walk_figures(cat, kind, c, "", c->string);
		}
	}
}

/* The training frameworks: each one's defaults and where they come from. */
static void print_frameworks(const pp_catalog *cat)
{
	const pp_frameworks *f = pp_catalog_frameworks(cat);
	size_t n = 0;
	const char *const *ids = pp_frameworks_ids(f, &n);
	printf("Training frameworks (%zu; training.framework, each behaviour its own training key)\n", n);
	for (size_t i = 0; i < n; i++) {
		pp_stack st;
		pp_err err = {0};
		if (pp_stack_default(&st, f, ids[i], &err))
			continue;
		printf("  %s: %s (%s)\n", st.framework, st.framework_name, st.version);
		printf("    attention %s (Hopper %s), cross entropy %s, elementwise %s, optimizer %s, "
		       "fp8 %s, selective recompute %s, context parallel %s, host issue %.1f us\n",
		       pp_attn_kernel_names[st.attn],
		       pp_attn_kernel_names[pp_stack_attention(&st, "hopper")], st.ce.id, st.eltw.id,
		       st.optim.id, st.fp8.id, pp_sac_names[st.sac], pp_cpc_names[st.cp_comm],
		       st.host_issue_s * 1e6);
		for (int b = 0; b < PP_BEH_COUNT; b++)
			printf("    %-22s %s\n", pp_beh_keys[b], st.origin[b]);
	}
}

static void print_plausibility(const pp_catalog *cat)
{
	printf("Best published MFU per GPU and precision (warned about above it)\n");
	for (size_t i = 0; i < pp_catalog_ngpus(cat); i++) {
		const pp_gpu *g = pp_catalog_gpu_at(cat, i);
		for (int t = 0; t < PP_DT_COUNT; t++) {
			const pp_best_mfu *b = pp_catalog_best_mfu(cat, g->id, (pp_dtype)t);
			if (b)
				printf("  %-20s %-5s %5.1f%%  %s: %s (%s)%s\n", g->id, pp_dtype_names[t],
				       100 * b->mfu, b->prov.source, b->what, b->prov.date,
				       b->prov.estimate ? " [estimate]" : "");
		}
	}
}

/* The keys a costs option of kind "api" takes as "price" (prices.json
 * hosted_api), each with its group's prices, before the figures. */
static void print_api_keys(const pp_catalog *cat)
{
	size_t n = 0;
	const char **keys = pp_price_api_keys(cat, &n);
	const pp_jdoc *pd = pp_catalog_doc(cat, "prices");
	const cJSON *api = pd ? cJSON_GetObjectItemCaseSensitive(pd->root, "hosted_api") : NULL;
	const cJSON *ft = cJSON_GetObjectItemCaseSensitive(api, "fine_tuning_usd_per_1m_training_tokens");
	const cJSON *inf = cJSON_GetObjectItemCaseSensitive(api, "inference_usd_per_1m_tokens");
	printf("Hosted API price keys (%zu; a costs option {\"kind\": \"api\", \"price\": KEY})\n", n);
	for (size_t i = 0; i < n; i++) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(ft, keys[i]);
		const cJSON *e = f ? f : cJSON_GetObjectItemCaseSensitive(inf, keys[i]);
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "value");
		const cJSON *in = cJSON_GetObjectItemCaseSensitive(e, "input");
		const cJSON *out = cJSON_GetObjectItemCaseSensitive(e, "output");
		const cJSON *rg = cJSON_GetObjectItemCaseSensitive(e, "range");
		/* a key named for its unit (OpenAI's reinforcement fine-tuning bills hours) */
		const char *unit = strstr(keys[i], "_usd_per_hour") ? "usd per hour of training"
								    : "usd per 1M training tokens";
		if (f && cJSON_IsNumber(v))
			printf("  %-36s fine-tuning  %8g %s\n", keys[i], v->valuedouble, unit);
		else if (f && cJSON_GetArraySize(rg) == 2)
			printf("  %-36s fine-tuning  %g to %g %s (a range)\n", keys[i],
			       cJSON_GetArrayItem(rg, 0)->valuedouble, cJSON_GetArrayItem(rg, 1)->valuedouble,
			       unit);
		else if (!f && cJSON_IsNumber(in) && cJSON_IsNumber(out))
			printf("  %-36s inference    %8g / %g usd per 1M input / output tokens\n", keys[i],
			       in->valuedouble, out->valuedouble);
		else
			printf("  %-36s %s, no price listed\n", keys[i], f ? "fine-tuning" : "inference");
	}
	free(keys);
	printf("\n");
}

static void print_kind(const pp_catalog *cat, const char *kind)
{
	if (!strcmp(kind, "frameworks") || !strcmp(kind, "plausibility")) {
		if (kind[0] == 'f')
			print_frameworks(cat);
		else
			print_plausibility(cat);
		printf("\n");
		return;
	}
	if (!strcmp(kind, "gpus"))
		print_gpus(cat);
	else if (!strcmp(kind, "fabrics"))
		print_fabrics(cat);
	else if (!strcmp(kind, "storage"))
		print_storage(cat);
	else if (!strcmp(kind, "models"))
		print_models(cat);
	else if (!strcmp(kind, "prices")) {
		print_api_keys(cat);
		puts("Prices (per GPU-hour unless stated; from the catalog's prices.json)");
	}
	else
		printf("Kernel efficiency defaults (per GPU architecture)\n");
	print_figures(cat, kind);
	printf("\n");
}

int pp_cmd_catalog(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	bool json = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'h': help(); return 0;
		default: return pp_cli_usage_error("catalog", "unknown option");
		}
	}
	const char *kind = optind < argc ? argv[optind] : NULL;
	if (kind) {
		size_t i;
		for (i = 0; i < PP_ARRAY_LEN(kinds); i++)
			if (!strcmp(kind, kinds[i]))
				break;
		if (i == PP_ARRAY_LEN(kinds)) {
			const char *dym = pp_did_you_mean(kind, kinds, PP_ARRAY_LEN(kinds));
			return pp_cli_usage_error("catalog", "unknown catalog '%s'%s%s%s; expected gpus, "
						  "fabrics, storage, models, prices, kernels, "
						  "frameworks or plausibility", kind,
						  dym ? " (did you mean '" : "", dym ? dym : "",
						  dym ? "'?)" : "");
		}
		if (optind + 1 < argc)
			return pp_cli_usage_error("catalog", "unexpected argument '%s'", argv[optind + 1]);
	}
	pp_catalog *cat;
	int rc = pp_cli_catalog(&cat);
	if (rc)
		return rc;
	if (json) {
		cJSON *out = cJSON_CreateObject();
		for (size_t i = 0; i < PP_ARRAY_LEN(kinds); i++) {
			if (kind && strcmp(kind, kinds[i]))
				continue;
			cJSON *dup = cJSON_Duplicate(pp_catalog_doc(cat, kinds[i])->root, 1);
			if (kind) {
				cJSON_Delete(out);
				out = dup;
			} else {
				cJSON_AddItemToObject(out, kinds[i], dup);
			}
		}
		char *s = cJSON_Print(out);
		printf("%s\n", s);
		free(s);
		cJSON_Delete(out);
	} else {
		for (size_t i = 0; i < PP_ARRAY_LEN(kinds); i++)
			if (!kind || !strcmp(kind, kinds[i]))
				print_kind(cat, kinds[i]);
	}
	pp_catalog_free(cat);
	return 0;
}
