/*
 * fuzz_serve.c - a serving scenario (serving, workload, slo) and a trace
 * CSV through `podplan serve`: the first byte picks the rate (bits 0-1:
 * the workload's, every request at once, --max-rate's bisection, or the
 * byte's top bits / 4 requests/s), the rest up to a NUL byte is the
 * scenario, after it the trace file workload.trace may name ("t.csv"
 * beside it). Parsed as a file, the deployment set up, the workload cut to
 * 8 requests of at most 4096 tokens in all (fuzzserve.h) and simulated,
 * the text and JSON output rendered.
 */
#include "fuzzserve.h"
#include "fuzzutil.h"
#include "input/hw.h"
#include "serve/serveout.h"
#include "serve/servesim.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned sel = data[0];
	const uint8_t *tr;
	size_t ntr;
	char *text = fz_split(data + 1, size - 1, &tr, &ntr);
	if (!fz_write("t.csv", tr, ntr)) {
		free(text);
		return 0;
	}
	pp_scenario s;
	if (fz_serve_parse(text, strlen(text), &s)) {
		free(text);
		return 0;
	}
	if (fz_serve_small(&s, 8, 4096)) {
		pp_hw hw;
		pp_serve_setup su;
		pp_err err = {0};
		int rc = pp_hw_from_catalog(&hw, fz_catalog(), &s.cluster, &err);
		fz_check_err(rc, err.msg, "pp_hw_from_catalog");
		if (!rc) {
			rc = pp_serve_setup_init(&su, &s, &hw, &err);
			fz_check_err(rc, err.msg, "pp_serve_setup_init");
		}
		if (!rc) {
			pp_serve_result r;
			double rate = s.serve.trace ? 1.0 : s.serve.request_rate;
			int runs = 0;
			switch (sel & 3) {
			case 1: rate = INFINITY; break;
			case 2: break;
			case 3: rate = (double)(sel >> 2) / 4 + 0.25; break;
			default: break;
			}
			if ((sel & 3) == 2 && s.serve.slo_present)
				rc = pp_serve_max_rate(&su, s.serve.seed, 0.05, &rate, &r, &runs, &err);
			else
				rc = pp_serve_run(&su, rate, s.serve.seed, &r, &err);
			fz_check_err(rc, err.msg, "pp_serve_run");
			if (!rc) {
				pp_sb o = {0};
				pp_serve_search mr = {rate, runs};
				pp_serve_to_text(&su, &r, (sel & 3) == 2 ? &mr : NULL, &o);
				pp_serve_to_json(&su, &r, (sel & 3) == 2 ? &mr : NULL, &o);
				pp_sb_release(&o);
				pp_serve_result_release(&r);
			}
			pp_serve_setup_release(&su);
		}
	}
	pp_scenario_release(&s);
	free(text);
	return 0;
}
