/*
 * fuzz_catalog.c - one catalog file replaced by the input: the first byte
 * picks which (gpus, fabrics, storage, models, kernels, prices, tco,
 * health), the rest is its text; the others are the real ones (links into
 * $PODPLAN_DATA, else models/). The catalog is loaded (every reference
 * checked), and when it loads, a small scenario on each of its first GPUs
 * is resolved to hardware parameters.
 */
#include "fuzzutil.h"
#include "input/hw.h"
#include "input/scenario.h"
#include "core/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const files[] = {"gpus.json",   "fabrics.json", "storage.json", "models.json",
				    "kernels.json", "prices.json",  "tco.json",     "health.json"};
static char dir[PATH_MAX];

/* dir: a catalog folder of links to the real files, made once */
static const char *catalog_dir(void)
{
	if (dir[0])
		return dir;
	char real[PATH_MAX];
	if (!realpath(pp_data_dir(), real))
		abort();
	snprintf(dir, sizeof(dir), "%s/catalog", fz_tmpdir());
	if (pp_mkdirs(dir, NULL))
		abort();
	for (size_t i = 0; i < PP_ARRAY_LEN(files); i++) {
		char from[PATH_MAX + 64], to[PATH_MAX + 64];
		snprintf(from, sizeof(from), "%s/%s", real, files[i]);
		snprintf(to, sizeof(to), "%s/%s", dir, files[i]);
		if (symlink(from, to) != 0)
			abort();
	}
	return dir;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *d = catalog_dir();
	char real[PATH_MAX], path[PATH_MAX + 64], name[80];
	if (!realpath(pp_data_dir(), real))
		abort();
	size_t k = data[0] % PP_ARRAY_LEN(files);
	snprintf(name, sizeof(name), "catalog/%s", files[k]);
	snprintf(path, sizeof(path), "%s/%s", d, files[k]);
	unlink(path);
	if (!fz_write(name, data + 1, size - 1))
		return 0;
	pp_catalog *cat = NULL;
	pp_err err = {0};
	int rc = pp_catalog_load(&cat, d, &err);
	fz_check_err(rc, err.msg, "pp_catalog_load");
	for (size_t i = 0; !rc && i < 4; i++) {
		const pp_gpu *g = pp_catalog_gpu_at(cat, i);
		if (!g)
			break;
		pp_sb sc = {0};
		pp_sb_addf(&sc, "{\"model\": {\"num_layers\": 4, \"hidden_size\": 256, "
			   "\"num_attention_heads\": 4, \"seq_length\": 128, \"vocab_size\": 1000}, "
			   "\"training\": {\"global_batch_size\": 8, \"micro_batch_size\": 1}, "
			   "\"cluster\": {\"gpu\": \"%s\", \"num_gpus\": 8, \"gpus_per_node\": 8}}", g->id);
		pp_scenario s;
		pp_hw hw;
		pp_err e = {0};
		int r = pp_scenario_parse(&s, "cat.json", sc.buf, sc.len, cat, &e);
		if (!r) {
			r = pp_hw_from_catalog(&hw, cat, &s.cluster, &e);
			pp_scenario_release(&s);
		}
		fz_check_err(r, e.msg, "scenario on a fuzzed catalog");
		pp_sb_release(&sc);
	}
	pp_catalog_free(cat);
	/* the real file back for the next input */
	unlink(path);
	char from[PATH_MAX + 64];
	snprintf(from, sizeof(from), "%s/%s", real, files[k]);
	if (symlink(from, path) != 0)
		abort();
	return 0;
}
