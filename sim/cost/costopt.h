/*
 * costopt.h - one cost option, resolved: the scenario with the option's
 * overrides, its throughput from the step-time engine (once), its price or
 * its owned parts (costown.c). Private to sim/cost/. Includes costdata.h;
 * costown.c, costeval.c and cost.c include it, it includes none of them.
 */
#ifndef PP_COSTOPT_H
#define PP_COSTOPT_H

#include "cost/costdata.h"

/* The price tiers, in prices.json's spelling, indexed by TIER_*. */
extern const char *const pp_cost_tier_keys[];

enum { TIER_OD, TIER_R1, TIER_R3, TIER_SPOT, TIER_CB, TIER_OWN, TIER_API };

/*
 * One option, resolved: what cost_evaluate() needs to price it under any
 * draw. Units as in ctx (costdata.h). Rented options leave the owned
 * fields 0; api options leave every cluster field 0.
 */
typedef struct oin {
	const pp_costspec_option *spec; /* the scenario's option (not owned) */
	int kind;                      /* pp_option_kind */
	int tier;                      /* TIER_*: the price tier, TIER_OWN or TIER_API */
	int method;                    /* pp_ft_method actually priced (auto resolved) */
	bool owned;                    /* build, or an owned tier4 node */
	double usd_per_gpu_hour;       /* rented: the price of a GPU-hour */
	double price_sigma;            /* rented: lognormal sigma of that price */
	char price_date[40];           /* rented: the price's date as prices.json gives it, "" none */
	double commit_months;          /* reserved tiers: length of one commitment */
	int payment;                   /* reserved tiers: pp_payment (how the commitment is paid) */
	double upfront_fraction;       /* of each commitment, paid when it starts (1, partial's, 0) */
	/* reserved tiers: the contract signed at the base case (cost.c sets it
	 * after pricing the base case): its replicas and months do not change
	 * with a draw, nor does its price; what a draw needs beyond it is
	 * bought at the drawn price */
	bool contract_set;
	double contract_replicas, contract_months;
	const pp_gpu *gpu;             /* catalog GPU (not owned); NULL for api */
	int num_gpus, nodes, gpus_per_node;
	int group;                     /* Monte Carlo group: options of one GPU share draws */
	bool calibrated;               /* its hardware has the calibration profile applied
					  (calib/hwres.h): its step time's sigma is
					  step_sigma_calibrated */
	bool feasible;                 /* false: why says what stops it */
	char why[256];
	double tokens_per_s;           /* one replica's throughput, before goodput; inference:
					  the sizing tokens/s one copy of the cluster serves */
	/* inference: the sizing tokens of a month are w_in x input + w_out x
	 * output tokens (costserve.h; 1 and 1 with a typed-in throughput) */
	double w_in, w_out;
	double step_time_s;            /* training step, before goodput (0 for inference) */
	pp_band band;                  /* its 80% interval (calib/evidence.h; off for inference) */
	double step_scale;             /* step_time_s over the prediction: the band's upper factor
					  under pp_cost_opts.conservative, else 1 */
	double mfu;                    /* model FLOPs utilisation, fraction */
	double mem_bytes;              /* memory needed per GPU */
	double mem_capacity_bytes;     /* memory per GPU */
	double checkpoint_bytes;       /* one checkpoint (adapters only for lora/qlora) */
	double checkpoint_write_s, checkpoint_load_s;
	pp_breakdown breakdown;        /* step_time_s's parts (reports' step-time chart) */
	/* owned */
	double server_usd;             /* one server of gpus_per_node GPUs */
	double server_kw;              /* its max power */
	double num_servers;            /* servers of one replica (= nodes) */
	double network_usd;            /* NICs, switches and links of one replica */
	double switch_kw;              /* switch power of one replica */
	double storage_tb;             /* shared file system (rented ones too) */
	double capex_sigma;            /* lognormal sigma of the server price */
	double staff_fte;              /* platform staff of one replica (rented ones too) */
	double lead_time_months;       /* order to first step */
	int net_switches, net_links, net_tiers; /* the derived fat tree */
	/* api */
	double api_usd_per_1m_tokens;  /* training price, or the inference prices blended at the
					  work's input and output volumes */
	double api_usd_per_1m_input, api_usd_per_1m_output; /* inference: the two prices */
	double api_price_sigma;        /* lognormal sigma of that price */
} oin;

/* Resolve c->cs->options[idx] into o (what pricing needs) and out (its
 * name, kind, provider, tier, label, GPU, method and feasibility). An
 * option that cannot do the work is feasible = false with why, not an
 * error. Errors: PP_EINPUT naming the option's JSON path (a layout that
 * does not divide, a missing price, a tier4 option of more than one
 * node), or a prediction's error; bad catalog data through
 * cost_fail_data(). */
int cost_resolve_option(ctx *c, const pp_cost_opts *opts, int idx, oin *o, pp_cost_option *out);
/* out->label, for people, from the priced option: what is rented, built or
 * called, every replica counted ("rent 3 x 8 x NVIDIA H100 ...") and an
 * owned option's capex as out->capex_usd holds it (the figure the finance
 * table shows). */
void cost_label_option(const oin *o, pp_cost_option *out);
/* Steady training (PP_WORK_CAPACITY): c->capacity_tokens_per_month, the
 * tokens a month of the scenario's own cluster at costs.work's utilisation
 * (or GPU-hours); 0 for other works. */
int cost_capacity_tokens(ctx *c, const pp_cost_opts *opts);

/* The step-time sigmas of a run with a calibration profile, once its
 * options are resolved: the catalog's where an option is not calibrated,
 * the calibrated one where one is (listed in the sources only then). A
 * run without a profile read step_sigma in cost_ctx_resolve. */
void cost_step_sigmas(ctx *c, const oin *oi, int n);
/* The step-time sigma of option o. */
double cost_step_sigma_of(const ctx *c, const oin *o);
/* The distribution the Monte Carlo draws an option's step-time factor
 * from: the lognormal whose 10th and 90th percentiles are its interval's
 * (calib/evidence.h: the errors of the validated runs near its layout),
 * mu = the mean of their logs, sigma = their distance / (2 x 1.2816); where
 * it has none (api, inference) or the scenario gives
 * costs.uncertainty.step_time_sigma, mu 0 and cost_step_sigma_of. */
void cost_step_spread(const ctx *c, const oin *o, double *mu, double *sigma);

#endif
