/* testutil.c - see testutil.h. Linked into every test program. */
#include "testutil.h"

#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

static pp_catalog *cat;

static void free_cat(void)
{
	pp_catalog_free(cat);
}

const pp_catalog *tu_catalog(void)
{
	if (!cat) {
		pp_err err = {0};
		if (pp_catalog_load(&cat, NULL, &err)) {
			fprintf(stderr, "cannot load catalog: %s\n", err.msg);
			exit(1);
		}
		atexit(free_cat);
	}
	return cat;
}

static int load(const char *json, pp_scenario *s, pp_hw *hw, bool checked)
{
	pp_err err = {0};
	int rc = checked ? pp_scenario_parse(s, "test.json", json, strlen(json), tu_catalog(), &err)
			 : pp_scenario_parse_unchecked(s, "test.json", json, strlen(json), tu_catalog(),
						       &err);
	if (!rc && hw)
		rc = pp_hw_from_catalog(hw, tu_catalog(), &s->cluster, &err);
	if (rc)
		pp_t_diag("scenario error: %s", err.msg);
	return rc;
}

int tu_scenario(const char *json, pp_scenario *s, pp_hw *hw)
{
	return load(json, s, hw, true);
}

int tu_scenario_unchecked(const char *json, pp_scenario *s, pp_hw *hw)
{
	return load(json, s, hw, false);
}

int tu_serve_setup(const char *json, pp_scenario *s, pp_hw *hw, pp_serve_setup *su)
{
	if (tu_scenario(json, s, hw))
		return -1;
	pp_err err = {0};
	int rc = pp_serve_setup_init(su, s, hw, &err);
	if (rc)
		pp_t_diag("setup: %s", err.msg);
	return rc;
}

double tu_step(const char *json, pp_result *r)
{
	pp_scenario s;
	pp_hw hw;
	pp_result local;
	if (!r)
		r = &local;
	if (tu_scenario(json, &s, &hw)) {
		pp_scenario_release(&s);
		return -1;
	}
	pp_err err = {0};
	int rc = pp_predict(&s, &hw, NULL, r, &err);
	if (rc)
		pp_t_diag("predict error: %s", err.msg);
	pp_scenario_release(&s);
	return rc ? -1 : r->step_time_s;
}
