/*
 * test_cluster_cost.c - build-vs-rent with the utilisation from a cluster
 * simulation (costs.finance.utilization_from, sim/cost/costcluster.c):
 * the shipped scenario's verdict turns from building (the constant 70%)
 * to renting, the utilisation used is the one `podplan cluster` reports
 * for the same spec and jobs, and the result says where it came from.
 */
#include "harness.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cJSON *run_json(const char *args)
{
	char cmd[1024], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s %s 2>/dev/null", pp_t_bin(), args);
	int rc = pp_t_sh(cmd, &out);
	CHECK(rc == 0);
	cJSON *j = cJSON_Parse(out);
	free(out);
	CHECK(j != NULL);
	return j;
}

static const char *recommended(const cJSON *j)
{
	const cJSON *opts = cJSON_GetObjectItem(j, "options");
	const cJSON *rec = cJSON_GetObjectItem(j, "recommended");
	if (cJSON_IsString(rec))
		return rec->valuestring;
	const cJSON *o;
	cJSON_ArrayForEach(o, opts)
	{
		const cJSON *r = cJSON_GetObjectItem(o, "recommended");
		if (cJSON_IsTrue(r))
			return cJSON_GetObjectItem(o, "name")->valuestring;
	}
	return "";
}

static void test_verdict_changes(void)
{
	cJSON *a = run_json("cost scenarios/multinode-10gbe-or-infiniband-ndr.json --json --draws 0");
	cJSON *b = run_json("cost scenarios/team-cluster-utilization-build-or-rent.json --json "
			    "--draws 0");
	cJSON *c = run_json("cluster scenarios/cluster/h100-32.json "
			    "scenarios/cluster/team-month-jobs.csv --json");
	if (!a || !b || !c)
		goto out;
	pp_t_diag("constant 70%%: %s; simulated: %s", recommended(a), recommended(b));
	CHECK(!strncmp(recommended(a), "build", 5));
	CHECK(!strncmp(recommended(b), "rent", 4));
	const cJSON *uf = cJSON_GetObjectItem(b, "utilization_from");
	CHECK(cJSON_IsString(uf) && strstr(uf->valuestring, "cluster simulation"));
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(a, "utilization_from")));
	/* the figure priced is the cluster command's scheduling goodput */
	double sg = cJSON_GetObjectItem(c, "scheduling_goodput")->valuedouble, used = NAN;
	const cJSON *src;
	cJSON_ArrayForEach(src, cJSON_GetObjectItem(b, "sources"))
	{
		const cJSON *it = cJSON_GetObjectItem(src, "item");
		if (cJSON_IsString(it) && strstr(it->valuestring, "utilization_from"))
			used = cJSON_GetObjectItem(src, "value")->valuedouble;
	}
	CHECK_NEAR(used, sg, 1e-6);
	CHECK(sg < 0.7);
out:
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(c);
}

static void test_bad_paths(void)
{
	char path[1024], cmd[2048], *out = NULL;
	snprintf(path, sizeof(path), "%s/s.json", pp_t_tmpdir());
	FILE *f = fopen("scenarios/team-cluster-utilization-build-or-rent.json", "r");
	char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strstr(buf, "\"finance\"");
	CHECK(p != NULL);
	FILE *g = fopen(path, "w");
	fwrite(buf, 1, (size_t)(p - buf), g);
	fputs("\"finance\": {\"utilization\": 0.5, \"utilization_from\": {\"cluster\": \"x.json\", "
	      "\"jobs\": \"y.csv\"}}}}\n", g);
	fclose(g);
	snprintf(cmd, sizeof(cmd), "%s cost %s --draws 0 2>&1", pp_t_bin(), path);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "costs.finance.utilization_from");
	free(out);
}

int main(void)
{
	RUN(test_verdict_changes);
	RUN(test_bad_paths);
	return pp_t_done("test_cluster_cost");
}
