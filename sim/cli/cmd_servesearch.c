/*
 * cmd_servesearch.c - podplan serve --search SCENARIO.json [--rate R]
 * [--seed N] [--provider P] [--tier T] [--top K] [--json | --csv]
 * [--exhaustive]: the cheapest serving layout and replica count for a
 * target request rate at the scenario's SLO (plan/serveplan.h), the
 * options it ran, the pick and why, and $ per 1M output tokens at the
 * rate. cmd_serve.c hands over when --search is among the arguments.
 */
#include "cli/plancmd.h"
#include "plan/serveplanout.h"
#include "serve/requests.h"
#include "core/util.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void help(void)
{
	printf("usage: podplan serve --search SCENARIO.json [--rate R] [--seed N] [--provider P]\n"
	       "                     [--tier T] [--top K] [--json | --csv] [--exhaustive]\n"
	       "                     [--no-disagg]\n\n"
	       "Finds the serving deployment that meets the scenario's \"slo\" at a target request\n"
	       "rate on the fewest GPUs of the scenario's GPU (the least $ per hour at any one\n"
	       "price): tensor_parallel_size, pipeline_parallel_size, enable_expert_parallel (MoE),\n"
	       "max_num_seqs, max_num_batched_tokens and data_parallel_size (replicas). Serving keys\n"
	       "the scenario gives stay fixed; leave one out to search it. Every option is simulated\n"
	       "as `podplan serve` runs it (same workload and seed); layouts that do not fit, whose\n"
	       "shortest request alone misses the SLO, or that cannot beat the best option found\n"
	       "(more replicas of a layout never miss where fewer meet) are not run further.\n"
	       "Ties on GPUs go to the most headroom: the least slack over the SLO's bounds.\n"
	       "Disaggregated prefill/decode layouts (a prefill pool of 1 to 8 instances of each TP\n"
	       "beside decode instances of each TP, the KV cache sent as vLLM's NixlConnector does)\n"
	       "run beside the co-located ones; the pick says which won and why.\n\n"
	       "  --rate R        target requests/s, or inf (every request at once; default:\n"
	       "                  workload.request_rate; a trace: its inter-arrival times scaled\n"
	       "                  so that its mean rate is R, default as recorded)\n"
	       "  --seed N        the workload's seed (default: workload.seed, else 0)\n"
	       "  --provider P, --tier T  the $/GPU-hour from prices.json (default: the cheapest\n"
	       "                  provider's on_demand price, or the scenario's search section)\n"
	       "  --top K         layouts in the table (default 10)\n"
	       "  --json          {target, slo, price, space, counts, pick (with its serving section),\n"
	       "                  layouts: [...], evaluated: [every simulation], why}\n"
	       "  --csv           one row per simulation at the target rate (RFC 4180)\n"
	       "  --exhaustive    no pruning but memory: every layout at 1, 2, ... replicas up to its\n"
	       "                  first meeting the SLO (slow; checks the pruning)\n"
	       "  --no-disagg     co-located layouts only\n\n"
	       "Progress goes to stderr past a second (past 2 s a line every 5 s when it is\n"
	       "a pipe or file apart from stdout). Exit status 1 when no option meets\n"
	       "the SLO, 2 for bad input.\n");
}

typedef struct prog {
	bool on;          /* stderr is a terminal: one line rewritten in place */
	bool lines;       /* else stderr is a pipe or file apart from stdout: whole lines */
	double last;      /* 0: nothing printed yet */
} prog;

/* Whether stderr is a file or pipe other than stdout's (a log beside the
 * result), not the same stream (2>&1: the result stays clean). */
static bool stderr_apart(void)
{
	struct stat a, b;
	return fstat(1, &a) == 0 && fstat(2, &b) == 0 && (a.st_dev != b.st_dev || a.st_ino != b.st_ino);
}

/* A progress line: past a second, rewritten in place ten times a second
 * on a terminal; else, where stderr goes apart from stdout (piped, a
 * log), past 2 s a whole line every 5 s, so a slow search says what it
 * is doing wherever its stderr goes. */
static void on_progress(const pp_splan_progress *p, void *ctx)
{
	prog *g = ctx;
	double now = pp_mono_s();
	if (!(g->on || g->lines) || p->elapsed_s < (g->on ? 1.0 : 2.0) ||
	    now - g->last < (g->on ? 0.1 : 5.0))
		return;
	g->last = now;
	fprintf(stderr, "%sserve --search: %d/%d layouts, %d simulations, ", g->on ? "\r\033[K" : "",
		p->done, p->total, p->sims);
	if (p->best_gpus)
		fprintf(stderr, "best so far %d GPUs, ", p->best_gpus);
	fprintf(stderr, "%.1f s%s", p->elapsed_s, g->on ? "" : "\n");
	fflush(stderr);
}

int pp_cmd_serve_search(int argc, char **argv)
{
	static const struct option opts[] = {
		{"search", no_argument, NULL, 'S'},         {"rate", required_argument, NULL, 'r'},
		{"seed", required_argument, NULL, 's'},     {"provider", required_argument, NULL, 'P'},
		{"tier", required_argument, NULL, 'T'},     {"top", required_argument, NULL, 'k'},
		{"json", no_argument, NULL, 'j'},           {"csv", no_argument, NULL, 'c'},
		{"exhaustive", no_argument, NULL, 'X'},     {"help", no_argument, NULL, 'h'},
		{"no-disagg", no_argument, NULL, 'D'},
		{0, 0, 0, 0}};
	bool json = false, csv = false, exhaustive = false, seed_given = false, no_disagg = false;
	const char *provider = NULL, *tier = NULL;
	unsigned long seed = 0;
	double rate = NAN;
	long top = 10;
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		char *end;
		switch (ch) {
		case 'S':
			break;
		case 'r':
			if (pp_cli_parse_num("serve", "--rate", optarg, PP_SERVE_RATE_MIN,
					     PP_SERVE_RATE_MAX, true, "requests per second "
					     "(workload.request_rate)", &rate))
				return 2; /* the usage error, printed */
			break;
		case 's':
			if (pp_cli_parse_seed("serve", optarg, &seed))
				return 2; /* the usage error, printed */
			seed_given = true;
			break;
		case 'P': provider = optarg; break;
		case 'T': tier = optarg; break;
		case 'k':
			top = strtol(optarg, &end, 10);
			if (*end || end == optarg || top < 1 || top > 100000)
				return pp_cli_usage_error("serve", "--top: found \"%s\", expected 1 to 100000",
							  optarg);
			break;
		case 'j': json = true; break;
		case 'c': csv = true; break;
		case 'X': exhaustive = true; break;
		case 'D': no_disagg = true; break;
		case 'h': help(); return 0;
		default: return pp_cli_usage_error("serve", "--search: unknown option (see podplan serve "
						   "--search --help)");
		}
	}
	if (optind + 1 != argc)
		return pp_cli_usage_error("serve", "--search: expected one scenario file");
	if (json && csv)
		return pp_cli_usage_error("serve", "--json and --csv exclude each other");
	pp_cli_scenario l;
	pp_err err = {0};
	int rc = pp_cli_load_scenario(&l, "serve", argv[optind], NULL, NULL, PP_CLI_SERVING);
	if (rc)
		goto out;
	const pp_scenario *s = &l.s;
	const pp_catalog *cat = l.cat;
	if (!isnan(rate) && pp_serve_trace_factor(&s->serve, &rate, &err)) {
		rc = pp_cli_usage_error("serve", "%s", err.msg);
		goto out;
	}
	/* the price: prices.json through the scenario's search section and the flags */
	pp_size_spec spec = s->search;
	if (provider)
		snprintf(spec.provider, sizeof(spec.provider), "%s", provider);
	if (tier)
		snprintf(spec.tier, sizeof(spec.tier), "%s", tier);
	double usd = NAN;
	char what[256];
	pp_err perr = {0};
	if (pp_size_price(cat, &spec, s->cluster.gpu, &usd, what, sizeof(what), &perr)) {
		if (provider || tier) {
			rc = pp_cli_usage_error("serve", "--search: %s", perr.msg);
			goto out;
		}
		usd = NAN;
		snprintf(what, sizeof(what), "%s", perr.msg);
	}
	const char *rate_from = !isnan(rate) ? "--rate"
				: s->serve.trace ? "default" : "workload.request_rate";
	prog pg = {pp_cli_tty(), !pp_cli_tty() && stderr_apart(), 0};
	uint64_t sd = seed_given ? seed : s->serve.seed;
	pp_splan_opts o = {rate, sd, usd, exhaustive, on_progress, &pg, !no_disagg, &l.cal};
	pp_splan_result r;
	rc = pp_splan_run(s, cat, &o, &r, &err);
	if (pg.on && pg.last > 0)
		fprintf(stderr, "\r\033[K");
	else if (pg.last > 0 && !rc)
		fprintf(stderr, "serve --search: done in %.1f s\n", r.elapsed_s);
	if (rc) {
		rc = pp_cli_fail(&err);
		goto out;
	}
	pp_sb out = {0};
	if (json)
		pp_splan_to_json(s, &r, rate_from, what, sd, exhaustive, &out);
	else if (csv)
		pp_splan_to_csv(s, &r, &out);
	else
		pp_splan_to_text(s, &r, rate_from, what, sd, (int)top, &out);
	fputs(out.buf ? out.buf : "", stdout);
	pp_sb_release(&out);
	rc = r.pick < 0 ? 1 : 0;
	pp_splan_result_release(&r);
out:
	pp_cli_scenario_release(&l);
	return rc;
}
