/* verdict.c - see verdict.h. */
#include "verdict.h"
#include "args.h"
#include "backend.h"
#include "calib/calibdb.h"
#include "health.h"
#include "input/catalog.h"
#include "core/store.h"
#include "core/util.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The machine as a stored run describes it: GPU name and count, and from
 * topology_json the link matrix, active NVLinks and hosts. *known is false
 * when the run has no link matrix (an imported nccl-tests log). */
static void host_from_run(const pp_calib_run *r, pp_cal_host *h, bool *known)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->gpu_name, sizeof(h->gpu_name), "%s", r->gpu_name ? r->gpu_name : "?");
	snprintf(h->host, sizeof(h->host), "%s", r->host ? r->host : "?");
	h->ngpus = r->gpu_count != PP_CALIB_NULL ? (int)r->gpu_count : 0;
	h->nhosts = 1;
	for (const char *p = r->host; p && *p; p++)
		h->nhosts += *p == ',';
	*known = false;
	cJSON *j = r->topology_json ? cJSON_Parse(r->topology_json) : NULL;
	const cJSON *links = j ? cJSON_GetObjectItemCaseSensitive(j, "links") : NULL;
	const cJSON *gpus = j ? cJSON_GetObjectItemCaseSensitive(j, "gpus") : NULL;
	if (cJSON_IsArray(links) && cJSON_GetArraySize(links) > 1) {
		*known = true;
		h->nvlink_all_pairs = true;
		int a = 0;
		for (const cJSON *row = links->child; row; row = row->next, a++) {
			int b = 0;
			for (const cJSON *c = row->child; c; c = c->next, b++) {
				const char *v = cJSON_IsString(c) ? c->valuestring : "";
				if (a != b && strncmp(v, "NV", 2))
					h->nvlink_all_pairs = false;
				if (!strcmp(v, "NET"))
					h->nhosts = 2;
			}
		}
	}
	int i = 0;
	for (const cJSON *g = cJSON_IsArray(gpus) ? gpus->child : NULL; g && i < PP_CAL_MAX_GPUS;
	     g = g->next, i++) {
		const cJSON *nv = cJSON_GetObjectItemCaseSensitive(g, "nvlinks");
		h->nvlinks_active[i] = cJSON_IsNumber(nv) ? (int)nv->valuedouble : -1;
	}
	cJSON_Delete(j);
}

enum { O_DB = 256, O_SKU, O_ST_EXPECT };

int pp_cal_verdict_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"db", required_argument, NULL, O_DB},
		{"gpu-sku", required_argument, NULL, O_SKU},
		{"storage-expect", required_argument, NULL, O_ST_EXPECT},
		{"help", no_argument, NULL, 'h'},
		{0, 0, 0, 0}};
	const char *db = NULL;
	pp_cal_health_opts ho = {0};
	pp_err err = {0};
	int ch, rc = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case O_DB: db = optarg; break;
		case O_SKU: ho.gpu_sku = optarg; break;
		case O_ST_EXPECT: ho.storage_id = optarg; break;
		case 'h':
			printf("usage: podplan-calibrate verdict RUN [--db DB] [--gpu-sku ID] "
			       "[--storage-expect ID]\n\n"
			       "Judges a stored run again against the current catalogs and\n"
			       "models/health.json (no GPU needed), prints the OK/SLOW table and stores\n"
			       "it with the run. Works for imported nccl-tests logs too (their links are\n"
			       "not recorded: the SKU's NVLink is assumed, shown as 'NVLink?').\n");
			return 0;
		default: return pp_cal_usage_error("%s", "verdict: unknown option");
		}
	}
	if (optind + 1 != argc)
		return pp_cal_usage_error("%s", "verdict takes one RUN id");
	char *end;
	long long id = strtoll(argv[optind], &end, 10);
	if (end == argv[optind] || *end || id <= 0)
		return pp_cal_usage_error("verdict: RUN must be a run id, found '%s'", argv[optind]);
	pp_store *st = NULL;
	pp_catalog *cat = NULL;
	pp_calib_run r;
	pp_calib_meas *rows = NULL;
	size_t n = 0;
	pp_cal_host h;
	pp_sb v = {0}, t = {0};
	bool known;
	int slow = 0;
	pp_calib_run_init(&r);
	if ((rc = pp_catalog_load(&cat, NULL, &err)) || (rc = pp_store_open(&st, db, &err)) ||
	    (rc = pp_calibdb_get_run(st, id, &r, &err)) ||
	    (rc = pp_calibdb_query(st, id, NULL, &rows, &n, &err)))
		goto out;
	host_from_run(&r, &h, &known);
	ho.links_unknown = !known;
	if ((rc = pp_cal_health(cat, &h, &ho, rows, n, &v, &slow, &err)) ||
	    (rc = pp_calibdb_set_verdict(st, id, v.buf, &err)) ||
	    (rc = pp_calibdb_format_verdict(v.buf, &t, &err)))
		goto out;
	printf("# health verdict of run %lld (%s x %d%s; thresholds in models/health.json)\n%s", id,
	       h.gpu_name, h.ngpus, known ? "" : "; links not recorded", t.buf);
out:
	if (rc)
		fprintf(stderr, "podplan-calibrate: %s\n", err.msg);
	pp_sb_release(&v);
	pp_sb_release(&t);
	pp_calib_meas_free(rows, n);
	pp_calib_run_release(&r);
	pp_store_close(st);
	pp_catalog_free(cat);
	return rc ? pp_exit_status(rc) : 0;
}
