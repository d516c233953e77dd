/*
 * test_goodput.c - the Young/Daly checkpoint interval against its formula,
 * Daly's efficiency against a direct simulation of the failure/restart
 * process (a second method), and its first-order limit.
 */
#include "cost/goodput.h"
#include "harness.h"
#include "cost/montecarlo.h"

#include <math.h>

static void test_young_daly_formula(void)
{
	/* delta = 60 s, M = 10 h = 36000 s: Young sqrt(2 x 60 x 36000) = 2078.461 s */
	CHECK_NEAR(pp_gp_young_s(60, 36000), 2078.461, 1e-6);
	/* Daly eq. 37: x = delta / 2M = 60/72000 = 8.3333e-4;
	 * sqrt(2 delta M) [1 + sqrt(x)/3 + x/9] - delta
	 * = 2078.461 x (1 + 0.0096225 + 0.0000926) - 60 = 2038.653 s */
	CHECK_NEAR(pp_gp_daly_s(60, 36000), 2038.653, 1e-5);
	/* delta >= 2M: checkpoint once per MTBF */
	CHECK_NEAR(pp_gp_daly_s(100, 40), 40, 1e-12);
}

/* Daly's interval is (near) the maximum of the efficiency: scan tau. */
static void test_daly_is_optimal(void)
{
	double delta = 30, R = 600, M = 4 * 3600.0;
	double best_tau = 0, best = 0;
	for (double tau = 60; tau < 20000; tau += 1) {
		double g = pp_gp_efficiency(tau, delta, R, M);
		if (g > best) {
			best = g;
			best_tau = tau;
		}
	}
	double daly = pp_gp_daly_s(delta, M);
	CHECK_NEAR(daly, best_tau, 0.02);
	CHECK(pp_gp_efficiency(daly, delta, R, M) >= best * (1 - 1e-5));
}

/* A second method: simulate segments of tau work + delta checkpoint with
 * exponential failures (mean M); a failure loses the segment and costs R
 * of restart, during which failures can also strike (Daly's model). */
static void test_efficiency_vs_simulation(void)
{
	double tau = 1800, delta = 120, R = 900, M = 3 * 3600.0;
	pp_mc *mc = pp_mc_new(7);
	double wall = 0;
	const int segs = 200000;
	for (int s = 0; s < segs; s++) {
		for (;;) {
			double x = -M * log(1 - pp_mc_uniform(mc));
			if (x >= tau + delta) {
				wall += tau + delta;
				break;
			}
			wall += x;
			for (;;) {
				double y = -M * log(1 - pp_mc_uniform(mc));
				if (y >= R) {
					wall += R;
					break;
				}
				wall += y;
			}
		}
	}
	pp_mc_free(mc);
	double sim = segs * tau / wall;
	CHECK_NEAR(pp_gp_efficiency(tau, delta, R, M), sim, 0.01);
}

static void test_first_order_limit(void)
{
	/* delta, R << M: 1 - g ~ delta/tau + (tau + delta)/2M + R/M */
	double tau = 600, delta = 5, R = 60, M = 1e6;
	double g = pp_gp_efficiency(tau, delta, R, M);
	double approx = 1 - (delta / tau + (tau + delta) / (2 * M) + R / M);
	CHECK_NEAR(g, approx, 1e-4);
	/* nothing fails: only the checkpoint writes cost time */
	CHECK_NEAR(pp_gp_efficiency(600, 6, 60, INFINITY), 600.0 / 606.0, 1e-12);
}

static void test_cluster_eval(void)
{
	/* Llama 3: 419 interruptions / (54 d x 24 h x 16,384 GPUs) = 1.9733e-5 per GPU-hour;
	 * on 16,384 GPUs that is 0.3233 per hour, MTBF 3.093 h = 11,135 s */
	pp_goodput_in in = {0};
	in.failures_per_gpu_hour = 419.0 / (54 * 24 * 16384.0);
	in.num_gpus = 16384;
	in.nodes = 2048;
	in.checkpoint_write_s = 60;
	in.restart_s = 900;
	pp_goodput g;
	pp_goodput_eval(&in, &g);
	CHECK_NEAR(g.interrupts_per_hour, 419.0 / (54 * 24), 1e-9);
	CHECK_NEAR(g.mtbf_s, 3600.0 * 54 * 24 / 419.0, 1e-9);
	CHECK_NEAR(g.interval_s, pp_gp_daly_s(60, g.mtbf_s), 1e-12);
	CHECK_NEAR(g.checkpoint_share + g.rework_share + g.restart_share, 1 - g.goodput, 1e-9);
	/* more GPUs fail more often: goodput never rises with scale */
	in.num_gpus = 1024;
	in.nodes = 128;
	pp_goodput small;
	pp_goodput_eval(&in, &small);
	CHECK(small.goodput > g.goodput);
	/* spot: a 17.5% monthly interruption share is -ln(0.825)/730.5 = 2.6334e-4 per node-hour */
	CHECK_NEAR(pp_gp_spot_rate_per_hour(0.175, 730.5), 2.6334e-4, 1e-4);
	in.spot_per_node_hour = pp_gp_spot_rate_per_hour(0.175, 730.5);
	pp_goodput spot;
	pp_goodput_eval(&in, &spot);
	CHECK(spot.goodput < small.goodput);
}

int main(void)
{
	RUN(test_young_daly_formula);
	RUN(test_daly_is_optimal);
	RUN(test_efficiency_vs_simulation);
	RUN(test_first_order_limit);
	RUN(test_cluster_eval);
	return pp_t_done("test_goodput");
}
