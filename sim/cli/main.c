/*
 * main.c - the podplan command: dispatch to a subcommand.
 */
#include "cli/cli.h"
#include "core/pp.h"

#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
} cmds[] = {
	{"predict", pp_cmd_predict, "step time, MFU, memory fit and bottleneck of a scenario"},
	{"trace", pp_cmd_trace, "write the simulated step as a Chrome/Perfetto trace"},
	{"validate", pp_cmd_validate, "predict published runs (CSV) and print the errors"},
	{"cost", pp_cmd_cost, "rent vs build vs lower tier: TCO, $/1M tokens, goodput, P10-P90"},
	{"report", pp_cmd_report, "HTML/Markdown/CSV report with charts; --compare two runs"},
	{"history", pp_cmd_history, "past report runs: scenario, version, answer, where written"},
	{"search", pp_cmd_search, "the fastest parallel layouts for a model, batch and cluster"},
	{"size", pp_cmd_size, "the cheapest cluster (SKU, GPUs, fabric) for a deadline or budget"},
	{"cluster", pp_cmd_cluster, "many jobs on one cluster: queue, placement, failures, goodput"},
	{"serve", pp_cmd_serve, "serving: vllm bench serve's throughput and latencies, KV capacity, SLO"},
	{"fit", pp_cmd_fit, "fit a calibration profile from calibration runs; list, export"},
	{"import", pp_cmd_import, "a Megatron-LM launch script or a vllm serve command line as a scenario"},
	{"check", pp_cmd_check, "validate a scenario file and print what it resolves to"},
	{"catalog", pp_cmd_catalog, "print the GPU, fabric, storage, model and price catalogs"},
	{"calib", pp_cmd_calib, "calibration runs: list, show, export CSV, import nccl-tests logs"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: podplan <command> [options]\n\n"
		   "podplan answers: rent a GPU cluster, build one, or stay on a lower tier?\n"
		   "It simulates training steps, prices them, and calibrates against real pods.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < PP_ARRAY_LEN(cmds); i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\n'podplan <command> --help' for a command's options; 'podplan --version'\n"
		   "for podplan's version.\n"
		   "Environment: PODPLAN_DATA (catalog dir), PODPLAN_DB (SQLite store).\n");
}

int main(int argc, char **argv)
{
#ifdef __GLIBC__
	/* a search or size run frees and allocates the same few hundred
	 * kilobytes thousands of times (each simulated layout's walk): keep
	 * them in the heap rather than handing them back to the kernel and
	 * faulting them in again each time (0.4 s of page faults in a
	 * 160-option size run) */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("podplan %s\n", PP_VERSION);
		return 0;
	}
	for (size_t i = 0; i < PP_ARRAY_LEN(cmds); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "podplan: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
