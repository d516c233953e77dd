/*
 * cmig.c - MIG profiles and placements (cmig.h has the model and source).
 */
#include "cluster/cmig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The guide's tables (Supported MIG Profiles): A100-SXM4-40GB; A100-SXM4-80GB
 * (its names "change according to the memory proportion"); H100 80GB. The
 * +me variants (media extensions) are left out. The 40 GB table prints
 * 1g.10gb's memory fraction as 1/8; 10 GB of 40 GB and its 4 instances are
 * 2/8, which is used here. */
static const pp_mig_profile a100_40[] = {
	{"1g.5gb", 1, 1, 7},  {"1g.10gb", 1, 2, 4}, {"2g.10gb", 2, 2, 3},
	{"3g.20gb", 3, 4, 2}, {"4g.20gb", 4, 4, 1}, {"7g.40gb", 7, 8, 1}};
static const pp_mig_profile x_80[] = {
	{"1g.10gb", 1, 1, 7}, {"1g.20gb", 1, 2, 4}, {"2g.20gb", 2, 2, 3},
	{"3g.40gb", 3, 4, 2}, {"4g.40gb", 4, 4, 1}, {"7g.80gb", 7, 8, 1}};

static const struct {
	const char *name, *alias;
	const pp_mig_profile *p;
	int n;
} gpus[] = {{"A100-SXM4-40GB", "A100-40GB", a100_40, 6},
	    {"A100-SXM4-80GB", "A100-80GB", x_80, 6},
	    {"H100-80GB", "H100", x_80, 6}};

int pp_mig_gpu(const char *name)
{
	for (int i = 0; i < (int)(sizeof(gpus) / sizeof(gpus[0])); i++)
		if (!strcasecmp(name, gpus[i].name) || !strcasecmp(name, gpus[i].alias))
			return i;
	return -1;
}

const char *pp_mig_gpu_name(int gpu)
{
	return gpus[gpu].name;
}

const char *pp_mig_gpu_list(void)
{
	return "A100-SXM4-40GB, A100-SXM4-80GB or H100-80GB";
}

const pp_mig_profile *pp_mig_find(int gpu, int compute, int mem_gb)
{
	char name[32];
	snprintf(name, sizeof(name), "%dg.%dgb", compute, mem_gb);
	for (int i = 0; i < gpus[gpu].n; i++)
		if (!strcmp(gpus[gpu].p[i].name, name))
			return &gpus[gpu].p[i];
	return NULL;
}

static uint8_t slices(const pp_mig_profile *p, int start)
{
	return (uint8_t)(((1u << p->mem) - 1) << start);
}

int pp_mig_fit(const pp_mig_state *st, const pp_mig_profile *p)
{
	if (st->compute_used + p->compute > PP_MIG_COMPUTE_SLICES)
		return -1;
	for (int i = 0; i < p->instances; i++) {
		int start = i * p->mem;
		if (!(st->mem_used & slices(p, start)))
			return start;
	}
	return -1;
}

void pp_mig_take(pp_mig_state *st, const pp_mig_profile *p, int start)
{
	st->mem_used |= slices(p, start);
	st->compute_used = (uint8_t)(st->compute_used + p->compute);
}

void pp_mig_give(pp_mig_state *st, const pp_mig_profile *p, int start)
{
	st->mem_used &= (uint8_t)~slices(p, start);
	st->compute_used = (uint8_t)(st->compute_used - p->compute);
}

bool pp_mig_parse(const char *s, int *compute, int *mem_gb)
{
	char *end;
	long c = strtol(s, &end, 10);
	if (end == s || c < 1 || c > PP_MIG_COMPUTE_SLICES || strncmp(end, "g.", 2))
		return false;
	const char *m = end + 2;
	long g = strtol(m, &end, 10);
	if (end == m || g < 1 || g > 10000 || strcmp(end, "gb"))
		return false;
	*compute = (int)c;
	*mem_gb = (int)g;
	return true;
}
