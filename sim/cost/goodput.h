/*
 * goodput.h - how much of a training run's wall time does useful work when
 * hardware fails and spot capacity is reclaimed: the cluster's mean time
 * between interruptions, the optimum checkpoint interval (Young 1974; Daly
 * 2006), and the expected useful fraction with checkpoint writes, lost work
 * and restarts (Daly 2006, eq. 20). Pure functions; every rate is passed in
 * (the defaults live in models/tco.json).
 *
 * Model: interruptions arrive as a Poisson process (exponential times
 * between them) at rate num_gpus x failures_per_gpu_hour + nodes x
 * spot_per_node_hour; every interruption costs the work since the last
 * checkpoint plus restart_s (reschedule, re-initialise, reload). Writing a
 * checkpoint blocks training for checkpoint_write_s.
 */
#ifndef PP_GOODPUT_H
#define PP_GOODPUT_H

/* Young's first-order optimum interval between checkpoints, seconds:
 * sqrt(2 delta M) (Young 1974). */
double pp_gp_young_s(double delta_s, double mtbf_s);

/* Daly's higher-order optimum (Daly 2006, eq. 37): for delta < 2M,
 * sqrt(2 delta M) [1 + (1/3) sqrt(delta / 2M) + (1/9) (delta / 2M)] - delta,
 * else M. */
double pp_gp_daly_s(double delta_s, double mtbf_s);

/* Useful fraction of wall time with checkpoints every tau_s of work
 * (Daly 2006, eq. 20: T_wall = M e^(R/M) (e^((tau+delta)/M) - 1) T_s / tau):
 * tau / (M e^(R/M) (e^((tau+delta)/M) - 1)). 1 when mtbf is infinite. */
double pp_gp_efficiency(double tau_s, double delta_s, double restart_s, double mtbf_s);

/* Interruptions per node-hour from a monthly interruption share f (the
 * AWS Spot Instance Advisor's "frequency of interruption"): -ln(1 - f) /
 * hours_per_month. */
double pp_gp_spot_rate_per_hour(double monthly_fraction, double hours_per_month);

typedef struct pp_goodput_in {
	double failures_per_gpu_hour;
	int num_gpus;
	int nodes;
	double spot_per_node_hour;    /* 0 when not on spot */
	double checkpoint_write_s;    /* blocking time of one checkpoint */
	double restart_s;             /* per interruption: detect, reschedule, reload */
	double checkpoint_interval_s; /* 0 = Daly optimum */
} pp_goodput_in;

typedef struct pp_goodput {
	double interrupts_per_hour;   /* of the whole cluster */
	double mtbf_s;                /* INFINITY when nothing fails */
	double interval_s;            /* checkpoint interval used */
	double goodput;               /* useful fraction of wall time */
	double checkpoint_share;      /* wall-time shares, adding up with goodput to ~1 */
	double rework_share;
	double restart_share;
} pp_goodput;

void pp_goodput_eval(const pp_goodput_in *in, pp_goodput *out);

#endif
