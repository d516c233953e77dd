/* health.c - see health.h. */
#include "health.h"

#include <stdio.h>
#include <string.h>

int pp_cal_health(const pp_catalog *cat, const pp_cal_host *host, const pp_cal_health_opts *o,
		  const pp_calib_meas *rows, size_t n, pp_sb *json, int *slow, pp_err *err)
{
	pp_verdict_host h;
	memset(&h, 0, sizeof(h));
	snprintf(h.host, sizeof(h.host), "%s", host->host);
	snprintf(h.gpu_name, sizeof(h.gpu_name), "%s", host->gpu_name);
	h.ngpus = host->ngpus;
	h.nhosts = host->nhosts;
	h.nvlink_all_pairs = host->nvlink_all_pairs;
	for (int i = 0; i < PP_VERDICT_MAX_GPUS && i < PP_CAL_MAX_GPUS; i++)
		h.nvlinks_active[i] = host->nvlinks_active[i];
	return pp_verdict_judge(cat, &h, o, rows, n, json, slow, err);
}
