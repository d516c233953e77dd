/*
 * costoption.h - one option of a scenario's "costs" section (costspec.h):
 * its kind (rent, build, hosted API, one 8-GPU node), where its price comes
 * from (a provider and tier of prices.json, or a hosted-API price key), its
 * own figures (a price per GPU-hour, a server's price, a commitment, lead
 * time, staff), and the cluster, layout and batch it runs with instead of
 * the scenario's. Parsed strictly: what each kind needs and may not have,
 * catalog ids checked (did-you-mean), errors FILE:LINE:COL and the JSON
 * path.
 */
#ifndef PP_COSTOPTION_H
#define PP_COSTOPTION_H

#include "core/jdoc.h"
#include "core/pp.h"
#include <stdbool.h>
#include <stdint.h>

typedef struct pp_catalog pp_catalog;
typedef struct pp_gpu pp_gpu;
typedef struct pp_fabric pp_fabric;
typedef struct pp_storage pp_storage;

/* How a reserved tier's commitment is paid: all of it when it starts, part
 * then and the rest monthly, or in equal monthly instalments over its term
 * (the total is the same; only when it is paid differs). */
typedef enum pp_payment {
	PP_PAY_UPFRONT,
	PP_PAY_PARTIAL,
	PP_PAY_MONTHLY,
	PP_PAY_COUNT
} pp_payment;
extern const char *const pp_payment_names[PP_PAY_COUNT];

/* Cluster/layout overrides of one option; NULL / 0 / -1 = the scenario's. */
typedef struct pp_costspec_cluster {
	const pp_gpu *gpu;
	int num_gpus;
	int gpus_per_node;
	int nvlink_domain_size;       /* 0 = keep the scenario's, or derive */
	const pp_fabric *intra;
	const pp_fabric *inter;
	int nics_per_node;
	double oversubscription;      /* 0 = keep */
	int rail_optimized;           /* -1 keep, 0 fat tree, 1 rail-optimised */
	const pp_storage *storage;
	int tp, pp, cp, vpp;          /* 0 = keep (dp is re-derived from num_gpus) */
	int sequence_parallel;        /* -1 keep */
	int zero_stage;               /* -1 keep */
	int64_t micro_batch_size;     /* 0 = keep */
	int64_t global_batch_size;    /* 0 = keep (must stay divisible) */
	int recompute;                /* -1 keep, else pp_recompute */
} pp_costspec_cluster;

/* Options' kinds, as pp_option_kind in cost.h: 0 rent, 1 build, 2 api, 3 tier4. */
typedef struct pp_costspec_option {
	char name[64];
	int kind;
	char provider[64];            /* rent / tier4-rented: prices.json cloud_prices key */
	char tier[32];                /* on_demand | reserved_1y | reserved_3y | spot | capacity_block */
	char price[64];               /* api: hosted_api price key */
	bool own;                     /* tier4: bought (true) or rented */
	double usd_per_gpu_hour;      /* NAN = catalog */
	double server_usd;            /* NAN = catalog: price of one server */
	double commitment_months;     /* NAN = the tier's term */
	int payment;                  /* reserved tiers: pp_payment; -1 = the provider's default
					 (prices.json ops.reservation_payment) */
	double lead_time_months;      /* NAN = tco.json */
	double staff_fte;             /* NAN = rule of thumb */
	double inference_tokens_per_s_per_gpu; /* inference without a "serving" section: the
					  user's throughput (input and output tokens alike);
					  NAN = not given (an error then: nothing else
					  gives one) */
	int method;                   /* -1 = the work's */
	pp_costspec_cluster cluster;
	bool has_cluster;
	char path[48];                /* "costs.options[2]", for messages */
} pp_costspec_option;

/* What "not given" is for an option (costspec.h's pp_costspec_defaults
 * for the section): NAN numbers, -1 counts and enums, the scenario's
 * cluster. */
void pp_costspec_option_defaults(pp_costspec_option *o);

/* The option object opt at JSON path op ("costs.options[2]") of d into *o
 * (its defaults first); cat resolves the catalog ids. Returns 0 or
 * PP_EINPUT: a wrong type or range, an unknown key or id, a key its kind
 * may not have or a key it needs missing, a payment without a reserved
 * tier. Whether the provider prices the option's GPU and tier is checked
 * when pricing. */
int pp_costspec_option_parse(const pp_jdoc *d, const pp_catalog *cat, const cJSON *opt,
			     const char *op, pp_costspec_option *o, pp_err *err);

#endif
