/*
 * servework.h - the "workload" section of a serving scenario (servespec.h
 * holds the fields): `vllm bench serve`'s names, or a trace CSV. Private to
 * the input layer's serving parser (servespec.c calls it).
 */
#ifndef PP_SERVEWORK_H
#define PP_SERVEWORK_H

#include "input/servespec.h"

/* Fill sv's workload fields from wl (NULL: the defaults of vllm bench
 * serve's random dataset: 1000 prompts of 1024 tokens in, 128 out, all at
 * t = 0). A trace path is read relative to the scenario file. Needs
 * sv->max_model_len. */
int pp_servework_parse(pp_servespec *sv, const pp_jdoc *d, const cJSON *wl, pp_err *err);

#endif
