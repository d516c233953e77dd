/*
 * cmd_check.c - podplan check SCENARIO.json: validate a scenario and print
 * what it resolves to (defaults filled in, derived sizes).
 */
#include "cli/cli.h"
#include "input/scenario.h"
#include "input/plausible.h"
#include "serve/requests.h"
#include "serve/serveout.h"
#include "core/warn.h"
#include "core/util.h"

#include <getopt.h>
#include <string.h>

int pp_cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			printf("usage: podplan check SCENARIO.json\n\n"
			       "Validates a scenario file: bad input gets file:line:col, the JSON path,\n"
			       "what was found and what was expected, and exit status 2. A valid file\n"
			       "prints the configuration it resolves to, defaults included.\n");
			return 0;
		}
		return pp_cli_usage_error("check", "unknown option");
	}
	if (optind + 1 != argc)
		return pp_cli_usage_error("check", "expected one scenario file");
	pp_cli_scenario l;
	int rc = pp_cli_load_scenario(&l, "check", argv[optind], NULL, NULL, PP_CLI_NO_HW);
	if (rc)
		goto out;
	const pp_servespec *sv = &l.s.serve;
	if (sv->present) { /* the work limits serve, validate, cost and the search apply */
		pp_err err = {0};
		int reps = sv->disagg.present ? sv->disagg.pool[PP_POOL_PREFILL].dp +
							sv->disagg.pool[PP_POOL_DECODE].dp
					      : sv->dp;
		if ((rc = pp_serve_check_work(sv, reps, 1, &err))) {
			rc = pp_cli_fail(&err);
			goto out;
		}
	}
	const pp_model *m = &l.s.model;
	const pp_parallel *p = &l.s.parallel;
	const pp_training *t = &l.s.training;
	const pp_cluster *cl = &l.s.cluster;
	printf("%s: OK (%s)\n", argv[optind], l.s.name);
	printf("  model      %s: %d layers, hidden %d, %d heads (%d groups), ffn %d, vocab %d, seq %d%s\n",
	       l.s.model_origin, m->num_layers, m->hidden_size, m->num_attention_heads,
	       m->num_query_groups, m->ffn_hidden_size, m->vocab_size, m->seq_length,
	       m->swiglu ? ", SwiGLU" : "");
	if (sv->present) { /* what is deployed, not a training layout */
		pp_serve_desc d;
		pp_serve_describe(&l.s, &d);
		printf("  serving    %s\n  scheduler  %s\n  workload   %s\n  slo        %s\n",
		       d.deployment, d.scheduler, d.workload, d.slo);
		char sdom[96];
		printf("  cluster    %d x %s, %d per node (%d nodes)%s, intra %s, inter %s x %d "
		       "NICs/node\n", cl->num_gpus, cl->gpu->id, cl->gpus_per_node, pp_cluster_nodes(cl),
		       pp_cluster_domain_text(cl, sdom, sizeof(sdom)), cl->intra->id, cl->inter->id,
		       cl->nics_per_node);
		const pp_costspec *cs = &l.s.costs;
		if (cs->present) {
			printf("  costs      %s work", pp_work_type_names[cs->work]);
			if (cs->work == PP_WORK_INFERENCE)
				printf(" of %.4g input + %.4g output tokens a month",
				       cs->input_tokens_per_month, cs->output_tokens_per_month);
			printf(", %d option%s:", cs->noptions, cs->noptions == 1 ? "" : "s");
			for (int i = 0; i < cs->noptions; i++)
				printf("%s %s", i ? "," : "", cs->options[i].name);
			printf("\n");
		}
		goto warnings;
	}
	printf("  training   global batch %lld, micro batch %lld, %lld micro-batches, %s, recompute %s, "
	       "%s%s\n", (long long)t->global_batch_size, (long long)t->micro_batch_size,
	       (long long)t->num_microbatches, pp_dtype_names[t->precision],
	       pp_recompute_names[t->recompute], pp_optimizer_names[t->optimizer],
	       t->use_flash_attn ? ", flash attention" : "");
	char sched[64];
	pp_parallel_schedule_text(p, sched, sizeof(sched));
	printf("  parallel   TP %d, PP %d%s%s%s, DP %d, CP %d, SP %s, ZeRO %d\n", p->tp, p->pp,
	       sched[0] ? " (" : "", sched, sched[0] ? ")" : "", p->dp, p->cp,
	       p->sequence_parallel ? "on" : "off", p->zero_stage);
	char dom[96];
	printf("  cluster    %d x %s, %d per node (%d nodes)%s, intra %s, inter %s x %d NICs/node, "
	       "oversubscription %.2g:1, storage %s\n", cl->num_gpus, cl->gpu->id, cl->gpus_per_node,
	       pp_cluster_nodes(cl), pp_cluster_domain_text(cl, dom, sizeof(dom)), cl->intra->id,
	       cl->inter->id, cl->nics_per_node, cl->oversubscription, cl->storage->id);
warnings:;
	char **warn = NULL;
	int nwarn = 0;
	if (pp_scenario_plausibility(&l.s, &warn, &nwarn)) {
		printf("warnings (valid, but probably not what was meant)\n");
		for (int i = 0; i < nwarn; i++)
			printf("  - %s\n", warn[i]);
	}
	pp_warn_free(warn, nwarn);
out:
	pp_cli_scenario_release(&l);
	return rc;
}
