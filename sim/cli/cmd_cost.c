/*
 * cmd_cost.c - podplan cost SCENARIO.json [--csv] [--json] [--seed N]
 * [--draws N]: the TCO comparison of a scenario's "costs" options, printed
 * by the cost library's serialisers (cost.h).
 */
#include "cli/cli.h"
#include "cost/costout.h"
#include "cost/cost.h"
#include "engine/predict.h"
#include "input/scenario.h"
#include "core/util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the command ---- */

static void help(void)
{
	printf("usage: podplan cost SCENARIO.json [--csv] [--json] [--seed N] [--draws N]\n\n"
	       "Prices the same useful work several ways - rent (on-demand, reserved, spot), build\n"
	       "(servers, derived fat-tree network, storage, facility, support, staff, residual\n"
	       "value), a hosted API (Tier 1) or one 8-GPU node (Tier 4) - as listed in the\n"
	       "scenario's \"costs\" section, and recommends the cheapest with why.\n\n"
	       "Throughput comes from the step-time engine (podplan predict) on each option's\n"
	       "cluster; for an inference work, from podplan serve: one replica of the\n"
	       "scenario's \"serving\" section on each option's GPU, at its highest request\n"
	       "rate meeting the \"slo\" for the \"workload\", with input and output tokens\n"
	       "priced apart (hosted APIs at their two prices). Goodput discounts failures (Llama 3's 419 interruptions in 54 days on\n"
	       "16,384 H100s by default), checkpoint writes at the Young/Daly interval, restarts\n"
	       "and spot reclaims. Monte Carlo varies prices, step-time error, failure rate,\n"
	       "demand and electricity; it never re-simulates (a draw scales the step time).\n\n"
	       "  --json      everything: options with P10/P50/P90, components, cumulative cost\n"
	       "              by month, histogram, build finance (NPV, IRR, payback, crossover,\n"
	       "              break-even utilisation), tornado, sources and dates, warnings\n"
	       "  --csv       one row per option for spreadsheets (RFC 4180)\n"
	       "  --seed N    Monte Carlo seed (default: costs.uncertainty.seed, else tco.json's)\n"
	       "  --draws N   Monte Carlo draws (default 10000; 0 = none)\n\n"
	       "Views: full = all cash over the horizon if this work is all the capacity does;\n"
	       "amortized = the GPU-hours used at the fleet utilisation; marginal = only what the\n"
	       "work causes. Prices: models/prices.json; other TCO figures: models/tco.json.\n"
	       "Exit status 2 for bad input (file:line:col and JSON path in the message).\n");
}

int pp_cmd_cost(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
					     {"json", no_argument, NULL, 'j'},
					     {"csv", no_argument, NULL, 'c'},
					     {"seed", required_argument, NULL, 's'},
					     {"draws", required_argument, NULL, 'd'},
					     {0, 0, 0, 0}};
	pp_cost_opts co = {0};
	co.predict = pp_predict;
	bool json = false, csv = false;
	int ch;
	unsigned long v;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			help();
			return 0;
		case 'j':
			json = true;
			break;
		case 'c':
			csv = true;
			break;
		case 's':
			if (pp_cli_parse_seed("cost", optarg, &v))
				return 2; /* the usage error, printed */
			co.seed_given = true;
			co.seed = v;
			break;
		case 'd':
			if (pp_cli_parse_ulong(optarg, 10000000UL, &v))
				return pp_cli_usage_error("cost", "--draws: found \"%s\", expected an integer "
							  "0..10000000", optarg);
			co.draws_given = true;
			co.draws = (int)v;
			break;
		default:
			return pp_cli_usage_error("cost", "unknown option");
		}
	}
	if (json && csv)
		return pp_cli_usage_error("cost", "--json and --csv: expected one of them");
	if (optind + 1 != argc)
		return pp_cli_usage_error("cost", "expected one scenario file");
	pp_cli_scenario l;
	pp_err err = {0};
	pp_cost_result r;
	memset(&r, 0, sizeof(r));
	int rc = pp_cli_load_scenario(&l, "cost", argv[optind], NULL, NULL, 0);
	if (rc)
		goto out;
	pp_cli_prog pg = {"cost", pp_cli_tty(), false, 0};
	co.progress = pp_cli_serve_progress;
	co.progress_ctx = &pg;
	co.hwcal = &l.cal;
	if ((rc = pp_cost_run(&l.s, l.cat, &co, &r, &err))) {
		pp_cli_serve_progress_end(&pg);
		rc = pp_cli_fail(&err);
		goto out;
	}
	pp_cli_serve_progress_end(&pg);
	pp_sb sb = {0};
	if (json)
		pp_cost_to_json(&r, &sb);
	else if (csv)
		pp_cost_to_csv(&r, &sb);
	else
		pp_cost_to_text(&r, &sb);
	fputs(sb.buf ? sb.buf : "", stdout);
	pp_sb_release(&sb);
	rc = 0;
out:
	pp_cost_result_release(&r);
	pp_cli_scenario_release(&l);
	return rc;
}
