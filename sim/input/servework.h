/*
 * servework.h - the "workload" section of a serving scenario (servespec.h
 * holds the fields): `vllm bench serve`'s names, or a trace CSV. Private to
 * the input layer's serving parser (servespec.c calls it).
 */
#ifndef PP_SERVEWORK_H
#define PP_SERVEWORK_H

#include "input/servespec.h"

/* A trace CSV (workload.trace): read as every file podplan reads (a
 * regular file, at most PP_TRACE_MAX_BYTES), at most PP_TRACE_MAX_ROWS
 * rows (each one request: the serving simulation's own limit), plain
 * decimal numbers (no hexadecimal, white space, inf or nan), arrivals in
 * time order and within PP_TRACE_MAX_ARRIVAL_S (the simulation's span). */
#define PP_TRACE_MAX_BYTES ((size_t)64 << 20)
#define PP_TRACE_MAX_ROWS 1000000
#define PP_TRACE_MAX_ARRIVAL_S 1e9

/* Fill sv's workload fields from wl (NULL: the defaults of vllm bench
 * serve's random dataset: 1000 prompts of 1024 tokens in, 128 out, all at
 * t = 0). A trace path is read relative to the scenario file. Needs
 * sv->max_model_len. */
int pp_servework_parse(pp_servespec *sv, const pp_jdoc *d, const cJSON *wl, pp_err *err);

#endif
