/*
 * test_topology.c - the NVLink domain as its own level (input/topology.h
 * pp_cluster_domain_gpus, engine/collective.h): a cluster has nodes (CPUs,
 * NICs, disks) and NVLink domains (8 GPUs on an HGX board, 72 across the
 * 18 four-GPU compute trays of a GB200 NVL72 rack). Placement puts groups
 * in domains; the NICs stay per node. Expected counts are worked out by
 * hand from the rack's shape (NVIDIA's GB200 NVL72 page, CoreWeave's
 * gb200-4x instances in racks of 18) and Megatron-LM's rank order
 * (tp fastest, then cp, dp, pp).
 */
#include "harness.h"
#include "engine/collective.h"
#include "engine/workload.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A Llama 3 8B on `gpus` GPUs of sku, TP tp x PP 1, the rest DP; extra is
 * spliced into "cluster". */
static void job(char *buf, size_t n, const char *sku, int gpus, int tp, const char *extra)
{
	snprintf(buf, n,
		 "{\"model\": {\"preset\": \"llama3-8b\", \"seq_length\": 4096}, "
		 "\"training\": {\"global_batch_size\": %d, \"micro_batch_size\": 1, "
		 "\"precision\": \"bf16\"}, "
		 "\"parallel\": {\"tensor_model_parallel_size\": %d, "
		 "\"pipeline_model_parallel_size\": 1}, "
		 "\"cluster\": {\"gpu\": \"%s\", \"num_gpus\": %d%s%s}}",
		 gpus / tp * 4, tp, sku, gpus, extra[0] ? ", " : "", extra);
}

/* The error text of a scenario that must fail, in msg. */
static int parse_err(const char *json, char *msg, size_t n)
{
	pp_scenario s;
	pp_err err = {0};
	int rc = pp_scenario_parse(&s, "test.json", json, strlen(json), tu_catalog(), &err);
	pp_scenario_release(&s);
	snprintf(msg, n, "%s", err.msg);
	return rc;
}

/* GB200 NVL72: nodes of 4 (one compute tray), domains of 72 (the rack);
 * 576 GPUs = 144 trays = 8 racks; one NIC per GPU by default. */
static void gb200_shape(void)
{
	char js[1024];
	pp_scenario s;
	pp_hw hw;
	job(js, sizeof(js), "gb200", 576, 8, "");
	CHECK(tu_scenario(js, &s, &hw) == 0);
	CHECK(s.cluster.gpus_per_node == 4);
	CHECK(pp_cluster_domain_gpus(&s.cluster) == 72);
	CHECK(pp_cluster_nodes(&s.cluster) == 144);
	CHECK(pp_cluster_domains(&s.cluster) == 8);
	CHECK(s.cluster.nics_per_node == 4 && hw.gpus_per_node == 4);
	/* TP 8 at stride 1: all 8 ranks in one domain; the DP group (72
	 * ranks at stride 8) has 72 / 8 = 9 members per domain, 8 domains */
	CHECK(pp_workload_domain_gpus(&s) == 72);
	pp_group tp = pp_group_place(8, 1, pp_workload_domain_gpus(&s));
	pp_group dp = pp_group_place(72, 8, pp_workload_domain_gpus(&s));
	CHECK(tp.n == 8 && tp.per_node == 8);
	CHECK(dp.n == 72 && dp.per_node == 9);
	/* across domains, the 9 members own 9 NICs (one per GPU): the busbw
	 * is the lesser of NVLink and 9 NICs */
	CHECK_NEAR(pp_coll_busbw(&hw, dp), fmin(hw.intra_Bps, 9 * hw.nic_Bps), 1e-12);
	/* inside the domain, NVLink alone */
	CHECK_NEAR(pp_coll_busbw(&hw, tp), hw.intra_Bps, 1e-12);
	pp_scenario_release(&s);

	/* left to podplan, the largest whole-tray part of a rack that tiles
	 * the cluster: 256 = 4 x 64 (NVIDIA's Megatron-Bridge GB200 runs),
	 * 108 = 3 x 36, 144 = 2 x 72; 40 fits in one rack */
	const int want[][2] = {{256, 64}, {108, 36}, {144, 72}, {40, 72}};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		job(js, sizeof(js), "gb200", want[i][0], 4, "");
		CHECK(tu_scenario(js, &s, NULL) == 0);
		CHECK(pp_cluster_domain_gpus(&s.cluster) == want[i][1]);
		pp_scenario_release(&s);
	}

	/* an HGX B200 board: node and domain are the same 8 GPUs; cut into
	 * nodes of 4, its switches do not join two of them */
	job(js, sizeof(js), "b200", 64, 8, "");
	CHECK(tu_scenario(js, &s, &hw) == 0);
	CHECK(pp_cluster_domain_gpus(&s.cluster) == 8 && pp_cluster_nodes(&s.cluster) == 8);
	pp_scenario_release(&s);
	job(js, sizeof(js), "h100-sxm", 64, 4, "\"gpus_per_node\": 4");
	CHECK(tu_scenario(js, &s, &hw) == 0);
	CHECK(pp_cluster_domain_gpus(&s.cluster) == 4 && pp_cluster_nodes(&s.cluster) == 16);
	pp_scenario_release(&s);
}

/* A job that takes part of a rack as its domain (Megatron-Bridge's GB200
 * runs: domains of 64) is the same physics whether written as domains
 * of 64 on trays of 4 (one NIC per GPU) or, as podplan had it before the
 * domain was its own level, as nodes of 64 with 64 NICs. */
static void part_rack_same_as_old_node(void)
{
	char a[1024], b[1024];
	job(a, sizeof(a), "gb200", 128, 4, "\"nvlink_domain_size\": 64");
	job(b, sizeof(b), "gb200", 128, 4, "\"gpus_per_node\": 64");
	double ta = tu_step(a, NULL), tb = tu_step(b, NULL);
	CHECK(ta > 0 && tb > 0);
	CHECK_NEAR(ta, tb, 1e-12);
}

/* More of the job inside NVLink never slows it: TP 8 inside a 72-GPU
 * domain against TP 8 split over two trays' NICs (domains of 4). */
static void bigger_domain_never_slower(void)
{
	char a[1024], b[1024];
	job(a, sizeof(a), "gb200", 144, 8, "");
	job(b, sizeof(b), "gb200", 144, 8, "\"nvlink_domain_size\": 4");
	double rack = tu_step(a, NULL), tray = tu_step(b, NULL);
	CHECK(rack > 0 && tray > 0);
	CHECK(rack < tray);
}

/* Real racks' shapes are accepted; impossible ones are refused naming the
 * SKU's shape. */
static void shapes_and_refusals(void)
{
	char js[1024], msg[512];
	pp_scenario s;
	/* an NVL72 rack written as one node: 72 NICs (was refused above 64) */
	job(js, sizeof(js), "gb200", 144, 8,
	    "\"gpus_per_node\": 72, \"inter_node\": {\"nics_per_node\": 72}");
	CHECK(tu_scenario(js, &s, NULL) == 0);
	CHECK(s.cluster.nics_per_node == 72 && pp_cluster_domain_gpus(&s.cluster) == 72);
	pp_scenario_release(&s);

	job(js, sizeof(js), "gb200", 144, 8, "\"nvlink_domain_size\": 70");
	CHECK(parse_err(js, msg, sizeof(msg)) != 0);
	pp_t_contains(msg, "cluster.nvlink_domain_size", __FILE__, __LINE__);
	pp_t_contains(msg, "a gb200 node holds 4, its domain 72", __FILE__, __LINE__);

	job(js, sizeof(js), "gb200", 144, 8, "\"nvlink_domain_size\": 144");
	CHECK(parse_err(js, msg, sizeof(msg)) != 0);
	pp_t_contains(msg, "join at most 72 GPUs (4 per node)", __FILE__, __LINE__);

	job(js, sizeof(js), "h100-sxm", 32, 8, "\"nvlink_domain_size\": 16");
	CHECK(parse_err(js, msg, sizeof(msg)) != 0);
	pp_t_contains(msg, "h100-sxm join at most 8 GPUs", __FILE__, __LINE__);

	job(js, sizeof(js), "l40s", 32, 8, "\"nvlink_domain_size\": 16");
	CHECK(parse_err(js, msg, sizeof(msg)) != 0);
	pp_t_contains(msg, "only NVLink switches join GPUs across nodes", __FILE__, __LINE__);

	/* 108 GPUs in racks of 72 given: one and a half racks */
	job(js, sizeof(js), "gb200", 108, 4, "\"nvlink_domain_size\": 72");
	CHECK(parse_err(js, msg, sizeof(msg)) != 0);
	pp_t_contains(msg, "NVLink domains of 72", __FILE__, __LINE__);
}

int main(void)
{
	RUN(gb200_shape);
	RUN(part_rack_same_as_old_node);
	RUN(bigger_domain_never_slower);
	RUN(shapes_and_refusals);
	return pp_t_done("test_topology");
}
