/* verdict.c - see verdict.h. */
#include "verdict.h"
#include "args.h"
#include "backend.h"
#include "calib/calibdb.h"
#include "calib/verdict.h"
#include "input/catalog.h"
#include "core/store.h"
#include "core/util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	pp_verdict_opts ho = {0};
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
			       "not recorded: the SKU's NVLink is assumed, shown as 'NVLink?').\n"
			       "Exit status 1 when a check is WRONG (wrong results).\n");
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
	pp_verdict_host h;
	pp_sb v = {0}, t = {0};
	bool known;
	int slow = 0;
	if ((rc = pp_catalog_load(&cat, NULL, &err)) || (rc = pp_store_open(&st, db, &err)) ||
	    (rc = pp_verdict_of_run(st, cat, id, &ho, &v, &slow, &h, &known, &err)) ||
	    (rc = pp_calibdb_set_verdict(st, id, v.buf, &err)) ||
	    (rc = pp_calibdb_format_verdict(v.buf, &t, &err)))
		goto out;
	printf("# health verdict of run %lld (%s x %d%s; thresholds in models/health.json)\n%s", id,
	       h.gpu_name, h.ngpus, known ? "" : "; links not recorded", t.buf);
out:
	if (rc)
		fprintf(stderr, "podplan-calibrate: %s\n", err.msg);
	/* wrong results: exit 1, as the sweep that found them does */
	bool wrong = !rc && pp_calibdb_verdict_count(v.buf, "WRONG") > 0;
	pp_sb_release(&v);
	pp_sb_release(&t);
	pp_store_close(st);
	pp_catalog_free(cat);
	return rc ? pp_exit_status(rc) : wrong ? 1 : 0;
}
