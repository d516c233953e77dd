/*
 * args.h - the command line of a podplan-calibrate sweep: one table of its
 * options (long and short name, the argument, where its value goes, the
 * help line) that drives getopt_long, the checking of every value (numbers
 * within their ranges, sizes in nccl-tests' syntax, name lists against the
 * known names with a did-you-mean) and the --help text. CPU only.
 *
 *   podplan-calibrate [sweep] [options]      (podplan-calibrate --help)
 */
#ifndef PP_CAL_ARGS_H
#define PP_CAL_ARGS_H

#include "plan.h"

/* The parts --only and --skip name: collective, gemm, memory, storage,
 * and two measured only when --only names them: decode (decode-shaped
 * GEMMs) and sustained (GEMMs back to back for seconds). */
#define PP_CAL_NPARTS 6
#define PP_CAL_DEFAULT_PARTS 4

typedef struct pp_cal_args {
	pp_cal_opts o;                   /* what to measure and how (plan.h) */
	const char *db;                  /* --db; NULL = $PODPLAN_DB, else the default store */
	const char *gpu_sku, *storage_expect, *label;
	int ngpus;                       /* --gpus; 0 = every visible GPU */
	int fake_gpus;                   /* --fake; 0 = the real GPUs */
	double fake_delay_s;
	int progress;                    /* -1 auto (a terminal), 0 off, 1 on */
	bool strict;
	/* --only and --skip as given (in that order); the parse
	 * folds them into o.do_coll, o.do_gemm, o.do_mem and o.storage_dir */
	bool only[PP_CAL_NPARTS], skip[PP_CAL_NPARTS], only_set;
} pp_cal_args;

/* Parse the sweep's command line (argv[0] the program; an optional
 * "sweep" among the arguments) into a, starting from the defaults
 * (pp_cal_opts_defaults, --quick's when "--quick" is among them). Returns
 * 0 to run; -1 when --help or --version printed what they print (exit
 * status 0); 2, the exit status, after a message on stderr for a bad
 * option, value or combination. getopt_long permutes argv. */
int pp_cal_args_parse(int argc, char **argv, pp_cal_args *a);

/* "podplan-calibrate: " then fmt with arg (fmt holds at most one %s), and
 * "Try 'podplan-calibrate --help'." on stderr. Returns 2, the exit status
 * of a usage error. */
int pp_cal_usage_error(const char *fmt, const char *arg);

#endif
