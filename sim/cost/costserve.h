/*
 * costserve.h - an inference work's throughput on a cluster option, from
 * podplan serve (serve/servesim.h), for the TCO engine. Private to
 * sim/cost/; includes costopt.h (for oin). sim/LAYERS lets the cost layer
 * include the serve layer: the cost engine runs the serving simulation
 * itself, through serve's entry points (pp_serve_setup_init,
 * pp_serve_run, pp_serve_max_rate), as it runs the step-time engine for
 * training.
 *
 * What is simulated: one serving replica - the scenario's "serving"
 * section (engine, tensor_parallel_size x pipeline_parallel_size, its
 * limits; defaults re-derived for the option's GPU by
 * pp_servespec_parse) on the option's GPU and fabric - sent the
 * scenario's "workload" (its request mix: input and output lengths):
 *   1. every request at once: what the replica completes (offline_rps);
 *   2. `podplan serve --max-rate`: the highest rate meeting the "slo";
 *      the replica is sized at that rate, at most offline_rps;
 *   3. the same search with every prompt input_scale times as long (2,
 *      less when that would not fit max_model_len): the replica time an
 *      input token adds at the SLO, s_in = (1/r1 - 1/r0) / (m_in1 - m_in0);
 *      an output token takes the rest of a request's time, s_out =
 *      (1/r0 - s_in m_in0) / m_out (both clamped to >= 0, the sum kept);
 *   4. with pp_cost_opts.serve_curve, the workload at a sweep of rates
 *      around the max rate (the reports' throughput-latency curve).
 * Options on the same GPU, fabrics and node size share one simulation.
 *
 * How the work is sized (costeval.c): a month's input and output tokens
 * need s_in x input + s_out x output replica-seconds; at the busiest hour
 * (x peak_to_average) that is the serving replicas needed, and the copies
 * of the option's cluster are those replicas over the replicas one copy
 * holds, rounded up. In the engine's units: sizing tokens w_in x input +
 * w_out x output (w = s x max_rate x (m_in + m_out), so a volume at the
 * workload's mix sizes as its own token count) against o->tokens_per_s =
 * replicas_per_cluster x max_rate x (m_in + m_out).
 *
 * Without a "serving" section an option must give
 * inference_tokens_per_s_per_gpu (the user's figure, input and output
 * tokens alike: w_in = w_out = 1), and the output says so.
 */
#ifndef PP_COSTSERVE_H
#define PP_COSTSERVE_H

#include "cost/costopt.h"

/* The throughput of cluster option o (spec sp) on x, the scenario with the
 * option's cluster, for an inference work: o->tokens_per_s, w_in, w_out,
 * memory and feasibility, and out->serving. A replica that does not fit
 * or cannot meet the SLO makes the option infeasible with why, not an
 * error. Errors: PP_EINPUT naming sp's JSON path (a typed-in throughput
 * beside a serving section, neither of them, a cluster that holds no
 * whole replica), or the simulation's. */
int cost_serve_throughput(ctx *c, const pp_costspec_option *sp, const pp_scenario *x, oin *o,
			  pp_cost_option *out);

/* The inference figures of option o priced at usd_total over the horizon
 * (cost.c, after the base case): its $ per 1M input and output tokens,
 * the serving replicas and the busiest hour's rate the work needs. NAN
 * for other works. */
void cost_serve_split(const ctx *c, const oin *o, double usd_total, pp_cost_option *out);

/* The result's inference block (volumes, mix, SLO, simulations) and the
 * warnings about them (a volume off the workload's mix, a typed-in
 * throughput). After every option is resolved. */
void cost_serve_describe(ctx *c, const oin *oi, int n);

#endif
