/*
 * cli.h - what the podplan subcommands share: their entry points, the
 * common option handling, and error reporting with the exit-status rule
 * (2 for bad input, 1 for anything else).
 */
#ifndef PP_CLI_H
#define PP_CLI_H

#include "calib/hwres.h"
#include "input/catalog.h"
#include "input/hw.h"
#include "input/scenario.h"
#include "core/pp.h"
#include <stdbool.h>
#include <stdio.h>

/* Print "podplan: <msg>" to stderr and return the exit status for code. */
int pp_cli_fail(const pp_err *err);
/* Print a usage error (exit status 2). */
int pp_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Load the catalogs from pp_data_dir(); prints the error itself. */
int pp_cli_catalog(pp_catalog **cat);
/* A decimal option value in [0, max]: 0, or -1 (with *out untouched) for
 * anything else (sign, junk, overflow). */
int pp_cli_parse_ulong(const char *s, unsigned long max, unsigned long *out);
/* --seed's value for command cmd: 0, or the usage error's status (2) with
 * the message printed. */
int pp_cli_parse_seed(const char *cmd, const char *s, unsigned long *out);
/* A number option of command cmd (opt: "--rate"): a plain decimal
 * (pp_parse_decimal) in [min, max], the bounds of the scenario key it
 * overrides, or exactly "inf" when inf_ok; what names the unit in the
 * message. 0, or the usage error's status (2) with the message printed. */
int pp_cli_parse_num(const char *cmd, const char *opt, const char *s, double min, double max,
		     bool inf_ok, const char *what, double *out);

/* What a command on one scenario file starts from (pp_cli_load_scenario). */
typedef struct pp_cli_scenario {
	pp_catalog *cat;
	pp_scenario s;
	pp_hwcal cal;              /* the calibration profile named, if any (cal.on) */
	pp_hw hw;                  /* the scenario's cluster, resolved with cal */
} pp_cli_scenario;

#define PP_CLI_UNCHECKED 1u    /* pp_scenario_load_unchecked: the planners fill the layout */
#define PP_CLI_SERVING 2u      /* the scenario must have a "serving" section */
#define PP_CLI_NO_HW 4u        /* stop after the scenario (check: the file alone) */

/* The prologue of every command on a scenario file: the catalogs, the
 * scenario at path, then (unless PP_CLI_NO_HW) the calibration profile
 * named by `--calibration DB:PROFILE` (calib; NULL when not given) or by
 * the scenario (its db, else default_db, else the default store) and the
 * scenario cluster's hardware resolved with it (calib/hwres.h). Prints its
 * own error ("podplan CMD: ..." for a usage error) and returns the exit
 * status; release l with pp_cli_scenario_release whatever it returned. */
int pp_cli_load_scenario(pp_cli_scenario *l, const char *cmd, const char *path, const char *calib,
			 const char *default_db, unsigned flags);
void pp_cli_scenario_release(pp_cli_scenario *l);
/* True when stderr is a terminal (progress output goes there). */
bool pp_cli_tty(void);
/* A progress line on stderr for the cost engine's serving simulations
 * (pp_cost_opts.progress): "cost: simulating serving on h200, TP 2 x PP 1
 * (2 of ...)" when stderr is a terminal; pp_cli_serve_progress_end()
 * clears it. */
typedef struct pp_cli_prog {
	const char *cmd;
	bool tty, shown;
	int n;
} pp_cli_prog;
void pp_cli_serve_progress(void *ctx, const char *what);
void pp_cli_serve_progress_end(pp_cli_prog *p);

/* Subcommands. Each returns the process exit status. */
int pp_cmd_catalog(int argc, char **argv);
int pp_cmd_check(int argc, char **argv);
int pp_cmd_predict(int argc, char **argv);
int pp_cmd_trace(int argc, char **argv);
int pp_cmd_validate(int argc, char **argv);
int pp_cmd_fit(int argc, char **argv);
int pp_cmd_calib(int argc, char **argv);
int pp_cmd_cost(int argc, char **argv);
int pp_cmd_report(int argc, char **argv);
int pp_cmd_history(int argc, char **argv);
int pp_cmd_search(int argc, char **argv);
int pp_cmd_size(int argc, char **argv);
int pp_cmd_serve(int argc, char **argv);
int pp_cmd_cluster(int argc, char **argv);
int pp_cmd_import(int argc, char **argv);
/* podplan serve --search (cmd_servesearch.c): pp_cmd_serve hands over. */
int pp_cmd_serve_search(int argc, char **argv);

#endif
