/*
 * fuzz_ncclimport.c - nccl-tests' standard output imported: the first
 * byte picks the file name (which can name the collective), --op and
 * --nranks as a user might give them; the rest is the log, parsed and
 * stored as a calibration run in a store in memory, which every reader of
 * fuzzutil.h's fz_read_store then reads (list, export, fit, ...).
 */
#include "fuzzutil.h"
#include "calib/ncclimport.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {"logs/all_reduce_perf.log", "nccl.log", "all_gather-16.txt",
				    "reduce_scatter_perf-2node.log"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	pp_ncclimport_opts o = {0};
	unsigned sel = data[0];
	if (sel & 0x10)
		o.op = (sel & 0x20) ? "alltoall" : "all_reduce";
	if (sel & 0x40)
		o.nranks = (sel & 0x80) ? 16 : 2;
	if (sel & 0x08)
		o.scope = "nvlink";
	char *text = fz_text(data + 1, size - 1);
	pp_store *st = fz_store();
	pp_nccl_log log;
	pp_err err = {0};
	int64_t id = 0;
	int rc = pp_ncclimport_text(st, names[sel % 4], text, size - 1, &o, &id, &log, &err);
	fz_check_err(rc, err.msg, "pp_ncclimport_text");
	if (!rc) {
		pp_nccl_log_release(&log);
		fz_read_store(st);
	}
	free(text);
	return 0;
}
