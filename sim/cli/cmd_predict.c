/*
 * cmd_predict.c - podplan predict SCENARIO.json [--json]
 *                 podplan trace SCENARIO.json -o FILE
 */
#include "cli/cli.h"
#include "calib/evidence.h"
#include "calib/headroom.h"
#include "core/warn.h"
#include "engine/predict.h"
#include "engine/predictout.h"
#include "engine/trace.h"
#include "input/plausible.h"
#include "core/util.h"
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static void help_predict(void)
{
	printf("usage: podplan predict SCENARIO.json [--json] [--ops] [--schedule] [--calibration DB:PROFILE[@VERSION]]\n\n"
	       "Simulates one training step of the scenario (discrete-event, one simulated GPU per\n"
	       "pipeline stage) and prints step time, throughput, MFU/HFU, time to train, the\n"
	       "step-time breakdown, memory per GPU with a fits/does-not-fit verdict, and where\n"
	       "each hardware parameter came from (catalog or calibration).\n\n"
	       "  --ops     the op list of one micro-batch: shapes, FLOPs, bytes, time per op\n"
	       "  --schedule\n"
	       "            after the prediction, each pipeline rank's actions as the event\n"
	       "            simulation ran them (F forward, B full backward, I input gradient,\n"
	       "            W weight gradient, & an overlapped pair), with start and end, and\n"
	       "            each rank's idle time between its first and last action\n"
	       "  --calibration DB:PROFILE[@VERSION]\n"
	       "            use a fitted calibration profile (podplan fit) instead of the catalog's\n"
	       "            defaults where it has parameters; the scenario's \"calibration\" section\n"
	       "            does the same. The output then says which fitted collective model\n"
	       "            (op, scope, ranks, size piece) served each kind of traffic (TP, CP,\n"
	       "            EP, DP, PP, tied embedding), or 'catalog' where no fit applies\n"
	       "            (--json: collective_models)\n"
	       "  -j, --json\n"
	       "            machine-readable: step_time_s, tokens_per_s, mfu, hfu,\n"
	       "            model_tflops_per_gpu, memory{per_gpu_bytes, capacity_bytes, fits,\n"
	       "            breakdown, peak_phase (the eager PyTorch step's phase, frameworks.json\n"
	       "            eager_memory)}, breakdown{compute_s, tp_comm_exposed_s, dp_comm_exposed_s,\n"
	       "            pp_bubble_s, pp_comm_exposed_s, optimizer_s, data_s},\n"
	       "            tp_cp_comm_exposed{tensor_parallel_s, context_parallel_s} (the two parts\n"
	       "            of tp_comm_exposed_s), time_to_train_s\n\n"
	       "MFU counts model FLOPs (Narayanan et al. SC'21 eq. 3, no recompute) over the dense\n"
	       "peak of the training precision; HFU adds recomputation. Both count attention at\n"
	       "the full s x s score matrix, as Megatron-LM's TFLOP/s do; the executed-FLOPs line\n"
	       "counts what the kernels run (a flash kernel skips causal attention's masked half).\n"
	       "A prediction above the best published MFU for its GPU and precision\n"
	       "(models/plausibility.json) is warned about. The breakdown adds up to\n"
	       "the step time on the critical pipeline stage; exposed communication is measured\n"
	       "by re-simulating the step with that traffic free.\n\n"
	       "Uncertainty: the 80%% interval of the step a real run would measure, from\n"
	       "podplan's errors on the validated runs nearest to this layout (same GPU\n"
	       "architecture and dense/MoE; framework, parallelism mix and scale; the sets of\n"
	       "models/validation, predicted now), with the runs it rests on; where none is\n"
	       "near, the wider band of every validated run of its kind, said so\n"
	       "(sim/calib/evidence.h; podplan validate --coverage checks it). --json: interval.\n");
}

/* engine times and sizes carry nine significant digits, ratios six */
int pp_cmd_predict(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'}, {"ops", no_argument, NULL, 'O'},
		{"schedule", no_argument, NULL, 'S'},
		{"calibration", required_argument, NULL, 'C'}, {"help", no_argument, NULL, 'h'},
		{0, 0, 0, 0}};
	bool json = false, ops = false, sched = false;
	const char *calib = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'O': ops = true; break;
		case 'S': sched = true; break;
		case 'C': calib = optarg; break;
		case 'h': help_predict(); return 0;
		default: return pp_cli_usage_error("predict", "unknown option");
		}
	}
	if (optind + 1 != argc)
		return pp_cli_usage_error("predict", "expected one scenario file");
	if (sched && (json || ops))
		return pp_cli_usage_error("predict", "--schedule prints text: not with --json or --ops");
	pp_cli_scenario l;
	int rc = pp_cli_load_scenario(&l, "predict", argv[optind], calib, NULL, 0);
	pp_sb out = {0};
	if (!rc && ops) {
		pp_predict_ops_text(&l.s, &l.hw, &out);
	} else if (!rc) {
		pp_result r;
		pp_err err = {0};
		char **warn = NULL;
		int nwarn = 0;
		pp_sb timeline = {0};
		pp_predict_opts po = {NULL, sched ? &timeline : NULL};
		pp_scenario_plausibility(&l.s, &warn, &nwarn);
		pp_headroom hr;
		pp_err herr = {0};
		pp_band band;
		if ((rc = pp_predict(&l.s, &l.hw, &po, &r, &err)))
			rc = pp_cli_fail(&err);
		else
			pp_evidence_band_of(l.cat, &l.s, r.step_time_s, &band);
		char why[512];
		if (!rc && !pp_headroom_measured(l.cat, l.s.training.stack.framework, &hr, &herr) &&
		    pp_headroom_check(&hr, r.memory.total_bytes, r.memory.capacity_bytes, why, sizeof(why)))
			pp_warn_addf(&warn, &nwarn, "memory: %s", why);
		if (rc)
			;
		else if (json)
			pp_predict_to_json(&l.s, &l.hw, &r, &band, l.cat, warn, nwarn, &out);
		else
			pp_predict_to_text(&l.s, &l.hw, &r, &band, l.cat, warn, nwarn, &out);
		if (!rc && sched)
			pp_sb_adds(&out, timeline.buf ? timeline.buf : "");
		pp_sb_release(&timeline);
		pp_warn_free(warn, nwarn);
	}
	fputs(out.buf ? out.buf : "", stdout);
	pp_sb_release(&out);
	pp_cli_scenario_release(&l);
	return rc;
}

int pp_cmd_trace(int argc, char **argv)
{
	static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
					     {"calibration", required_argument, NULL, 'C'},
					     {"help", no_argument, NULL, 'h'},
					     {0, 0, 0, 0}};
	const char *outp = NULL, *calib = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': outp = optarg; break;
		case 'C': calib = optarg; break;
		case 'h':
			printf("usage: podplan trace SCENARIO.json -o FILE.json [--calibration DB:PROFILE[@VERSION]]\n\n"
			       "Writes the simulated step as a Chrome/Perfetto trace: one process per\n"
			       "pipeline stage, one track per stream (compute, data-parallel comm) and per\n"
			       "stage-to-stage link; F<mb>/B<mb> tasks per layer. Open it in\n"
			       "https://ui.perfetto.dev or chrome://tracing.\n\n"
			       "  -o, --output FILE.json  where to write the trace (required)\n"
			       "  --calibration DB:PROFILE[@VERSION]\n"
			       "            a fitted calibration profile, as podplan predict uses it\n"
			       "            (default: the scenario's calibration section)\n");
			return 0;
		default: return pp_cli_usage_error("trace", "unknown option");
		}
	}
	if (optind + 1 != argc)
		return pp_cli_usage_error("trace", "expected one scenario file");
	if (!outp)
		return pp_cli_usage_error("trace", "-o FILE is required");
	pp_cli_scenario l;
	int rc = pp_cli_load_scenario(&l, "trace", argv[optind], calib, NULL, 0);
	if (!rc) {
		pp_result r;
		pp_err err = {0};
		pp_trace *tr = pp_trace_new();
		pp_predict_opts po = {tr, NULL};
		if ((rc = pp_predict(&l.s, &l.hw, &po, &r, &err)) ||
		    (rc = pp_trace_write(tr, outp, &err)))
			rc = pp_cli_fail(&err);
		else
			fprintf(stderr, "wrote %s (step %.3f s)\n", outp, r.step_time_s);
		pp_trace_free(tr);
	}
	pp_cli_scenario_release(&l);
	return rc;
}
