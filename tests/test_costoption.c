/*
 * test_costoption.c - one option of a costs section (input/costoption.h),
 * parsed directly from JSON text against the fixed price fixture
 * (tests/data/catalog): what each kind needs and may not have, the
 * catalog ids it names, a payment only with a reserved tier, the cluster,
 * layout and batch overrides, and "not given" as costoption.h defines it.
 * The rules are costspec.h's table of kinds (README "Costs"); every
 * expected key below is the one that rule names.
 */
#include "core/jdoc.h"
#include "harness.h"
#include "input/costoption.h"
#include "input/scenario.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

/* Parse json as option costs.options[0]; returns the code, *o filled. */
static int parse(const char *json, pp_costspec_option *o, pp_err *err)
{
	pp_jdoc d;
	memset(err, 0, sizeof(*err));
	memset(o, 0, sizeof(*o));
	int rc = pp_jdoc_parse(&d, "costs.json", json, strlen(json), err);
	if (rc)
		return rc;
	rc = pp_costspec_option_parse(&d, tu_catalog(), d.root, "costs.options[0]", o, err);
	pp_jdoc_release(&d);
	return rc;
}

static void kinds(void)
{
	pp_costspec_option o;
	pp_err err;
	CHECK(parse("{\"name\": \"r\", \"kind\": \"rent\", \"provider\": \"lambda_8x\"}", &o, &err) == 0);
	CHECK(o.kind == 0 && !strcmp(o.provider, "lambda_8x") && !strcmp(o.tier, "on_demand"));
	CHECK(!strcmp(o.path, "costs.options[0]") && !o.has_cluster);
	/* not given: NAN figures, -1 enums and the scenario's cluster */
	CHECK(isnan(o.usd_per_gpu_hour) && isnan(o.server_usd) && isnan(o.staff_fte));
	CHECK(o.method == -1 && o.payment == -1 && o.cluster.zero_stage == -1);
	CHECK(o.cluster.gpu == NULL && o.cluster.num_gpus == 0 && o.cluster.recompute == -1);
	CHECK(parse("{\"name\": \"b\", \"kind\": \"build\", \"server_usd\": 300000}", &o, &err) == 0);
	CHECK(o.kind == 1 && o.server_usd == 300000);
	CHECK(parse("{\"name\": \"a\", \"kind\": \"api\", \"price\": \"together_llama-3.3-70b\"}", &o,
		    &err) == 0);
	CHECK(o.kind == 2 && !strcmp(o.price, "together_llama-3.3-70b"));
	CHECK(parse("{\"name\": \"t\", \"kind\": \"tier4\", \"own\": false, \"provider\": \"runpod\", "
		    "\"tier\": \"spot\"}", &o, &err) == 0);
	CHECK(o.kind == 3 && !o.own && !strcmp(o.tier, "spot"));
	CHECK(parse("{\"name\": \"r3\", \"kind\": \"rent\", \"provider\": \"lambda_8x\", \"tier\": "
		    "\"reserved_3y\", \"payment\": \"monthly\"}", &o, &err) == 0);
	CHECK(o.payment == PP_PAY_MONTHLY);
}

static void refused(void)
{
	static const struct {
		const char *json, *says;
	} bad[] = {
		{"{\"name\": \"r\", \"kind\": \"rent\"}", "needs \"provider\""},
		{"{\"name\": \"r\", \"kind\": \"rent\", \"provider\": \"lambda_8y\"}",
		 "did you mean \"lambda_8x\""},
		{"{\"name\": \"r\", \"kind\": \"rent\", \"provider\": \"runpod\", \"price\": "
		 "\"together_llama-3.3-70b\"}", "costs.options[0].price"},
		{"{\"name\": \"b\", \"kind\": \"build\", \"tier\": \"spot\"}", "costs.options[0].tier"},
		{"{\"name\": \"a\", \"kind\": \"api\"}", "needs \"price\""},
		{"{\"name\": \"a\", \"kind\": \"api\", \"price\": \"together_llama-3.3-70b\", "
		 "\"cluster\": {}}", "costs.options[0].cluster"},
		{"{\"name\": \"t\", \"kind\": \"tier4\"}", "needs \"own\""},
		{"{\"name\": \"t\", \"kind\": \"tier4\", \"own\": true, \"provider\": \"runpod\"}",
		 "costs.options[0].provider"},
		{"{\"name\": \"r\", \"kind\": \"rent\", \"provider\": \"runpod\", \"payment\": "
		 "\"upfront\"}", "costs.options[0].payment"},
		{"{\"name\": \"r\", \"kind\": \"lease\"}", "costs.options[0].kind"},
		{"{\"name\": \"r\", \"kind\": \"rent\", \"provider\": \"runpod\", \"speed\": 1}",
		 "costs.options[0].speed"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pp_costspec_option o;
		pp_err err;
		CHECK(parse(bad[i].json, &o, &err) == PP_EINPUT);
		CHECK_CONTAINS(err.msg, bad[i].says);
		CHECK_CONTAINS(err.msg, "costs.json:1:");
	}
}

static void overrides(void)
{
	pp_costspec_option o;
	pp_err err;
	CHECK(parse("{\"name\": \"b\", \"kind\": \"build\", \"cluster\": {\"gpu\": \"h100-sxm\", "
		    "\"num_gpus\": 512, \"intra_node\": \"nvlink4\", \"inter_node\": {\"fabric\": "
		    "\"ib-ndr\", \"nics_per_node\": 4, \"topology\": \"fat-tree\"}}, \"parallel\": "
		    "{\"tensor_model_parallel_size\": 8, \"zero_stage\": 1}, \"training\": "
		    "{\"micro_batch_size\": 2, \"recompute\": \"full\"}}", &o, &err) == 0);
	const pp_costspec_cluster *c = &o.cluster;
	CHECK(o.has_cluster && c->gpu == pp_catalog_gpu(tu_catalog(), "h100-sxm"));
	CHECK(c->num_gpus == 512 && c->intra == pp_catalog_fabric(tu_catalog(), "nvlink4"));
	CHECK(c->inter == pp_catalog_fabric(tu_catalog(), "ib-ndr") && c->nics_per_node == 4);
	CHECK(c->rail_optimized == 0 && c->tp == 8 && c->pp == 0 && c->zero_stage == 1);
	CHECK(c->micro_batch_size == 2 && c->recompute == PP_RC_FULL);
	CHECK(c->sequence_parallel == -1); /* kept */
	/* an inter-node fabric where the intra-node one goes, and the reverse */
	CHECK(parse("{\"name\": \"b\", \"kind\": \"build\", \"cluster\": {\"intra_node\": "
		    "\"ib-ndr\"}}", &o, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "expected an intra-node fabric");
	CHECK(parse("{\"name\": \"b\", \"kind\": \"build\", \"cluster\": {\"inter_node\": "
		    "{\"fabric\": \"nvlink4\"}}}", &o, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "expected an inter-node fabric");
	CHECK(parse("{\"name\": \"b\", \"kind\": \"build\", \"parallel\": "
		    "{\"tensor_model_parallel_size\": 4194305}}", &o, &err) == PP_EINPUT);
}

int main(void)
{
	pp_t_fixture_data();
	RUN(kinds);
	RUN(refused);
	RUN(overrides);
	return pp_t_done("test_costoption");
}
