/*
 * canchor.h - the cluster simulation's validation anchors: each published
 * figure (Meta's failure rates and MTTF, Llama 3's interruptions and
 * storage, PyTorch's async checkpointing, Acme's queueing, the FGD
 * paper's fragmentation gap on openb when the trace is fetched: cfgd.h) recomputed by
 * the simulation or its analytic counterpart, with the error, the
 * tolerance and the source. `podplan cluster --validate [--csv]` prints
 * them; models/validation/cluster.csv is that CSV; tests/test_cluster_anchors
 * asserts each.
 */
#ifndef PP_CANCHOR_H
#define PP_CANCHOR_H

#include "input/catalog.h"
#include "input/hw.h"
#include "core/pp.h"
#include "core/util.h"
#include <stdbool.h>

typedef struct pp_canchor {
	char id[64];
	char metric[48];
	double predicted, published;
	double error_pct;        /* (predicted - published) / published */
	double tol_pct;          /* the acceptance; NAN: a bound, see pass */
	bool pass;
	char source[320];
	char notes[640];
} pp_canchor;

/* The anchors, computed (several seconds: the Acme replays draw and
 * simulate 663,813 and 19,907 jobs, each with 5 generator seeds; the openb
 * rows add about 10 s where the trace is fetched: 10 seeds, 2 with quick).
 * *out is heap (caller frees), *n its count.
 * quick: the Acme replays on their first 100,000 jobs (tests). hwr: how
 * the checkpoint rows' scenarios get their hardware (input/hw.h; NULL:
 * the catalog's figures). */
int pp_canchor_compute(const pp_catalog *cat, const pp_hw_resolver *hwr, const char *models_dir,
		       bool quick, pp_canchor **out, int *n, pp_err *err);
/* Compute and print: a table, or the CSV of models/validation/cluster.csv. */
int pp_canchor_run(const pp_catalog *cat, const pp_hw_resolver *hwr, const char *models_dir,
		   bool csv, pp_sb *out, pp_err *err);

/* The analytic pieces, exported for the tests: */
/* Mean time to an infrastructure failure of a job on nodes nodes at r_f
 * per node-second (Kokolis et al.: MTTF = 1 / (N r_f)). */
double pp_canchor_mttf_s(double nodes, double rf_per_node_s);
/* Expected ETTR of one job that checkpoints every interval_s of compute
 * with a blocking write of write_s, restarts in restart_s, and is
 * interrupted at rate_per_s (first order: each interruption wastes the
 * restart and half a compute-and-write cycle; Kokolis et al. s. 5, the
 * same terms). */
double pp_canchor_ettr(double interval_s, double write_s, double restart_s, double rate_per_s);
/* The restart time at which pp_canchor_ettr() gives ettr (its inverse in
 * restart_s): a longer restart gives less. */
double pp_canchor_restart_for_ettr(double interval_s, double write_s, double ettr,
				   double rate_per_s);
/* The checkpoint interval that maximises it: sqrt(2 write_s / rate)
 * (Young 1974; Kokolis et al.'s delta_cp*). */
double pp_canchor_opt_interval_s(double write_s, double rate_per_s);

#endif
