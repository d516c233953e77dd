/*
 * cli.h - what the podplan subcommands share: their entry points, the
 * common option handling, and error reporting with the exit-status rule
 * (2 for bad input, 1 for anything else).
 */
#ifndef PP_CLI_H
#define PP_CLI_H

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
/* Apply the calibration profile named by `--calibration DB:PROFILE` (spec,
 * may be NULL), else by the scenario's calibration section (its db, or the
 * default store when only a profile is named), to hw. Prints its own error
 * and returns the exit status; 0 when nothing is named or it applied. */
int pp_cli_calibrate(pp_hw *hw, const pp_scenario *s, const char *cmd, const char *spec);
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
/* podplan serve --search (cmd_servesearch.c): pp_cmd_serve hands over. */
int pp_cmd_serve_search(int argc, char **argv);

#endif
