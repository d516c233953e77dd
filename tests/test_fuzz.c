/*
 * test_fuzz.c - seeded random damage to the shipped scenario files (byte
 * flips, truncations, extreme numbers, swapped layouts) through the whole
 * pipeline in-process: parse, predict, cost. Every outcome must be success
 * or a clean PP_EINPUT with a message; the sanitizer pass of `make test`
 * turns any memory error or leak into a failure.
 */
#include "cost/cost.h"
#include "harness.h"
#include "testutil.h"
#include "core/util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ULL; /* xorshift64*, fixed seed */

static uint64_t next(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static const char *const extremes[] = {"0", "-1", "1e308", "1e-300", "2147483648", "3.5",
				       "65536", "9007199254740993", "-0", "7"};

static char *mutate(const char *src, size_t len, size_t *outlen)
{
	char *b = pp_xmalloc(len + 64);
	memcpy(b, src, len);
	size_t n = len;
	switch (next() % 4) {
	case 0: /* flip a few bytes */
		for (int i = 0, k = 1 + (int)(next() % 4); i < k; i++)
			b[next() % n] = (char)(next() % 256);
		break;
	case 1: /* truncate */
		n = next() % n;
		break;
	case 2: { /* an extreme number in place of a digit run */
		size_t i = next() % n;
		while (i < n && (b[i] < '0' || b[i] > '9'))
			i++;
		if (i < n) {
			size_t j = i;
			while (j < n && b[j] >= '0' && b[j] <= '9')
				j++;
			const char *x = extremes[next() % PP_ARRAY_LEN(extremes)];
			pp_sb sb = {0};
			pp_sb_add(&sb, b, i);
			pp_sb_adds(&sb, x);
			pp_sb_add(&sb, b + j, n - j);
			free(b);
			n = sb.len;
			b = pp_sb_detach(&sb);
		}
		break;
	}
	default: { /* a parallel size swapped for another */
		char *p = strstr(b, "_parallel_size\": ");
		if (p && (size_t)(p - b) + 17 < n)
			p[17] = (char)('0' + next() % 10);
		break;
	}
	}
	*outlen = n;
	return b;
}

static void damaged_scenarios(void)
{
	DIR *dir = opendir("scenarios");
	CHECK(dir != NULL);
	if (!dir)
		return;
	char *files[64];
	int nf = 0;
	struct dirent *e;
	while ((e = readdir(dir)) && nf < 64)
		if (strstr(e->d_name, ".json"))
			files[nf++] = pp_path_join("scenarios", e->d_name);
	closedir(dir);
	CHECK(nf >= 6);
	int ok = 0, rejected = 0, bad = 0;
	for (int it = 0; it < 240; it++) {
		char *text = NULL;
		size_t len = 0;
		pp_err err = {0};
		if (pp_read_file(files[it % nf], 1 << 20, &text, &len, &err))
			continue;
		size_t mlen;
		char *m = mutate(text, len, &mlen);
		pp_scenario s;
		int rc = pp_scenario_parse(&s, files[it % nf], m, mlen, tu_catalog(), &err);
		if (rc == 0) {
			pp_hw hw;
			pp_result r;
			rc = pp_hw_from_catalog(&hw, tu_catalog(), &s.cluster, &err);
			if (!rc)
				rc = pp_predict(&s, &hw, NULL, &r, &err);
			if (!rc && s.costs.present && it % 4 == 0) {
				pp_cost_opts co = {0};
				co.predict = pp_predict;
				co.draws = 100;
				co.draws_given = true;
				pp_cost_result cr;
				rc = pp_cost_run(&s, tu_catalog(), &co, &cr, &err);
				if (!rc)
					pp_cost_result_release(&cr);
			}
			pp_scenario_release(&s);
		}
		if (rc == 0)
			ok++;
		else if (rc == PP_EINPUT && err.msg[0])
			rejected++;
		else {
			bad++;
			pp_t_diag("iteration %d (%s): rc %d: %s", it, files[it % nf], rc, err.msg);
		}
		free(m);
		free(text);
	}
	pp_t_diag("240 damaged files: %d accepted, %d rejected with a message, %d other", ok, rejected,
	          bad);
	CHECK(bad == 0);
	CHECK(rejected > 50);
	for (int i = 0; i < nf; i++)
		free(files[i]);
}

int main(void)
{
	RUN(damaged_scenarios);
	return pp_t_done("test_fuzz");
}
