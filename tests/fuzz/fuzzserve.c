/* fuzzserve.c - see fuzzserve.h. */
#include "fuzzserve.h"
#include "fuzzutil.h"
#include "input/limits.h"
#include "serve/requests.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fz_serve_parse(const char *text, size_t n, pp_scenario *s)
{
	char name[300];
	snprintf(name, sizeof(name), "%s/s.json", fz_tmpdir());
	pp_err err = {0};
	int rc = pp_scenario_parse(s, name, text, n, fz_catalog(), &err);
	fz_check_err(rc, err.msg, "pp_scenario_parse");
	if (rc)
		return rc;
	rc = pp_scenario_check_limits(s, &err);
	fz_check_err(rc, err.msg, "pp_scenario_check_limits");
	if (rc)
		pp_scenario_release(s);
	return rc;
}

bool fz_serve_small(pp_scenario *s, size_t max_prompts, double max_tokens)
{
	pp_servespec *sv = &s->serve;
	if (!sv->present)
		return false;
	if (sv->trace && sv->ntrace > max_prompts)
		sv->ntrace = max_prompts;
	if (sv->trace)
		sv->num_prompts = (int64_t)sv->ntrace;
	else if (sv->num_prompts > (int64_t)max_prompts)
		sv->num_prompts = (int64_t)max_prompts;
	/* short requests: a prompt of at most 256 tokens (and a shared prefix
	 * of 128), an output of 32, so that the cut keeps the request count */
	if (sv->trace) {
		for (size_t i = 0; i < sv->ntrace; i++) {
			if (sv->trace[i].input_len > 256)
				sv->trace[i].input_len = 256;
			if (sv->trace[i].output_len > 32)
				sv->trace[i].output_len = 32;
		}
	} else {
		pp_lendist *L[2] = {&sv->input, &sv->output};
		const double cap[2] = {256, 32};
		for (int k = 0; k < 2; k++) {
			if (L[k]->mean > cap[k])
				L[k]->mean = cap[k];
			if (L[k]->max > (int64_t)(2 * cap[k]))
				L[k]->max = (int64_t)(2 * cap[k]);
			if (L[k]->min > L[k]->max)
				L[k]->min = L[k]->max;
			if (L[k]->stddev > cap[k])
				L[k]->stddev = cap[k];
		}
		if (sv->prefix_len > 128)
			sv->prefix_len = 128;
	}
	int64_t n = sv->num_prompts;
	if (2 * sv->warmup_requests >= n)
		sv->warmup_requests = n > 0 ? (n - 1) / 2 : 0;
	return n > 0 && pp_serve_work_tokens(sv) <= max_tokens && sv->dp <= 8 &&
	       s->model.num_layers <= 256 && s->cluster.num_gpus <= 4096;
}

char *fz_split(const uint8_t *data, size_t size, const uint8_t **b, size_t *nb)
{
	const uint8_t *z = memchr(data, 0, size);
	size_t na = z ? (size_t)(z - data) : size;
	*b = z ? z + 1 : data + size;
	*nb = z ? size - na - 1 : 0;
	return fz_text(data, na);
}
