/*
 * fuzzserve.h - what the serving targets of tests/fuzz/ share: a scenario
 * text parsed as `podplan serve` reads a file (its trace beside it in the
 * scratch folder), and the cut that keeps one simulation short under the
 * sanitizers (a few requests of a few tokens: the work limits themselves
 * are tested in tests/test_serve_hostile.c).
 */
#ifndef PP_FUZZSERVE_H
#define PP_FUZZSERVE_H

#include "input/scenario.h"
#include <stdbool.h>
#include <stddef.h>

/* Parse text as fz_tmpdir()/s.json (a workload.trace is read beside it)
 * and check podplan's size limits: 0 with *s to release, or the error
 * (checked to carry a message). */
int fz_serve_parse(const char *text, size_t n, pp_scenario *s);

/* Cut s's serving workload to at most max_prompts requests (trace rows
 * too) and the warm-up to what they leave; true when what remains is at
 * most max_tokens tokens (pp_serve_work_tokens) and worth simulating. */
bool fz_serve_small(pp_scenario *s, size_t max_prompts, double max_tokens);

/* Split data at its first NUL: *a the text before (NUL-terminated heap
 * copy), *b and *nb what follows (pointer into data). */
char *fz_split(const uint8_t *data, size_t size, const uint8_t **b, size_t *nb);

#endif
