/*
 * health.h - podplan-calibrate's health verdict: the sweep's machine
 * (pp_cal_host, from the backend) judged by the CPU verdict of
 * sim/calib/verdict.h, which holds the computation and its sources.
 */
#ifndef PP_CAL_HEALTH_H
#define PP_CAL_HEALTH_H

#include "backend.h"
#include "calib/calibdb.h"
#include "calib/verdict.h"
#include "input/catalog.h"

typedef pp_verdict_opts pp_cal_health_opts;

/* pp_verdict_judge() on host's GPU name, counts and NVLink state. */
int pp_cal_health(const pp_catalog *cat, const pp_cal_host *host, const pp_cal_health_opts *o,
		  const pp_calib_meas *rows, size_t n, pp_sb *json, int *slow, pp_err *err);

#endif
