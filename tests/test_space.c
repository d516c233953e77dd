/*
 * test_space.c - the training layouts search and size walk (plan/space.h),
 * counted by hand on small spaces of gpt-1.7b (24 layers, 24 heads) on 8
 * GPUs with a global batch of 16: the keys left free, the equivalences
 * left out, the interleaving depths, the order, the streamed walk against
 * the list, a layout set into a scenario, a layout in words, and the
 * nearest batches named when no layout fits the given keys.
 */
#include "harness.h"
#include "plan/space.h"
#include "testutil.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE "{\"name\": \"sp\", \"model\": {\"preset\": \"gpt-1.7b\"}, \"cluster\": {\"gpu\": " \
	     "\"h100-sxm\", \"num_gpus\": %d}, "

static int load(pp_scenario *s, const char *json)
{
	pp_hw hw;
	return tu_scenario_unchecked(json, s, &hw);
}

/* TP, CP, PP, micro-batch and recompute given on 8 GPUs: DP 8 is left,
 * and ZeRO 0-3 (DP > 1); one SP value (TP 1), one depth (PP 1), one EP
 * (dense): 4 layouts in ZeRO order. Recompute searched: none and full
 * with flash attention (selective keeps what none keeps), all three
 * without: 8 and 12. */
static void dp_only(void)
{
	char json[1024];
	snprintf(json, sizeof(json), BASE "\"training\": {\"global_batch_size\": 16, "
		 "\"micro_batch_size\": 1, \"recompute\": \"none\"}, \"parallel\": "
		 "{\"tensor_model_parallel_size\": 1, \"pipeline_model_parallel_size\": 1, "
		 "\"context_parallel_size\": 1}}", 8);
	pp_scenario s;
	if (load(&s, json)) {
		CHECK(0);
		return;
	}
	pp_layout *l = NULL;
	size_t n = 0;
	char space[640];
	pp_err err = {0};
	CHECK(pp_space_enumerate(&s, &l, &n, space, sizeof(space), &err) == 0);
	CHECK(n == 4);
	for (size_t i = 0; i < n && i < 4; i++) {
		CHECK(l[i].tp == 1 && l[i].pp == 1 && l[i].cp == 1 && l[i].dp == 8);
		CHECK(l[i].zero_stage == (int)i);
		CHECK(!l[i].sp && l[i].vpp == 1 && l[i].ep == 1 && l[i].micro_batch_size == 1);
		CHECK(l[i].recompute == PP_RC_NONE);
	}
	CHECK_CONTAINS(space, "TP 1 (given), PP 1 (given), DP 8, CP 1 (given)");
	CHECK_CONTAINS(space, "ZeRO {0,1,2,3}");
	CHECK_CONTAINS(space, "recompute none (given)");
	free(l);
	pp_scenario_release(&s);

	for (int flash = 1; flash >= 0; flash--) {
		snprintf(json, sizeof(json), BASE "\"training\": {\"global_batch_size\": 16, "
			 "\"micro_batch_size\": 1, \"use_flash_attn\": %s}, \"parallel\": "
			 "{\"tensor_model_parallel_size\": 1, \"pipeline_model_parallel_size\": 1, "
			 "\"context_parallel_size\": 1}}", 8, flash ? "true" : "false");
		if (load(&s, json)) {
			CHECK(0);
			return;
		}
		CHECK(pp_space_enumerate(&s, &l, &n, NULL, 0, &err) == 0);
		CHECK(n == (flash ? 8u : 12u));
		int sel = 0;
		for (size_t i = 0; i < n; i++)
			sel += l[i].recompute == PP_RC_SELECTIVE;
		CHECK(sel == (flash ? 0 : 4));
		free(l);
		pp_scenario_release(&s);
	}
}

/* TP 2, micro-batch 1, ZeRO-1 and SP off given: PP 1, 2, 4 (DP 4, 2, 1).
 * Depths: PP 1 none; PP 2 (8 micro-batches) 1 and every v with
 * 24 % (2 v) == 0: 2, 3, 4, 6, 12; PP 4 (16 micro-batches) 1 and v | 6:
 * 2, 3, 6. Schedules: at depth 1 1F1B, ZB-H1, ZB-H2; at depth 2
 * interleaved, ZB-V, DualPipeV, DualPipe (24 layers split evenly over 2 pp
 * stages, at least 2 pp micro-batches, ZeRO-1; DualPipe an even PP and
 * micro-batch count); deeper interleaved. 1 + (3 + 4 + 4) + (3 + 4 + 2) =
 * 21 layouts, PP ascending, depths ascending. */
static void interleaving(void)
{
	char json[1024];
	snprintf(json, sizeof(json), BASE "\"training\": {\"global_batch_size\": 16, "
		 "\"micro_batch_size\": 1, \"recompute\": \"none\"}, \"parallel\": "
		 "{\"tensor_model_parallel_size\": 2, \"context_parallel_size\": 1, "
		 "\"zero_stage\": 1, \"sequence_parallel\": false}, \"search\": "
		 "{\"pipeline_schedules\": [\"1f1b\", \"zb-h1\", \"zb-h2\", \"interleaved\", \"zbv\", "
		 "\"dualpipev\", \"dualpipe\"]}}", 8);
	pp_scenario s;
	if (load(&s, json)) {
		CHECK(0);
		return;
	}
	pp_layout *l = NULL;
	size_t n = 0;
	pp_err err = {0};
	CHECK(pp_space_enumerate(&s, &l, &n, NULL, 0, &err) == 0);
	enum { F = PP_SCHED_1F1B, H1 = PP_SCHED_ZBH1, H2 = PP_SCHED_ZBH2, I = PP_SCHED_INTERLEAVED,
	       V = PP_SCHED_ZBV, D = PP_SCHED_DUALPIPEV, T = PP_SCHED_DUALPIPE };
	static const int pp[] = {1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 4, 4, 4, 4, 4, 4, 4, 4, 4};
	static const int vpp[] = {1, 1, 1, 1, 2, 2, 2, 2, 3, 4, 6, 12, 1, 1, 1, 2, 2, 2, 2, 3, 6};
	static const int sch[] = {F, F, H1, H2, I, V, D, T, I, I, I, I, F, H1, H2, I, V, D, T, I, I};
	CHECK(n == PP_ARRAY_LEN(pp));
	for (size_t i = 0; i < n && i < PP_ARRAY_LEN(pp); i++) {
		CHECK(l[i].pp == pp[i] && l[i].vpp == vpp[i]);
		CHECK(l[i].dp == 8 / (2 * pp[i]));
		CHECK((int)l[i].schedule == sch[i]);
		CHECK(l[i].zero_stage == 1 && !l[i].sp);
	}
	free(l);
	pp_scenario_release(&s);
}

typedef struct seen {
	pp_layout *l;
	uint32_t *idx;
	size_t n, cap;
} seen;

/* Without search.pipeline_schedules the pipelines keep to the schedules
 * the framework ships (frameworks.json pipeline_schedules): Megatron-Core
 * 1F1B and interleaved; PyTorch's pipelining also ZB-V and DualPipeV
 * (GPipe left out); DeepSpeed 1F1B and ZB-H1 (Megatron-DeepSpeed). */
static unsigned schedules_of(const char *framework)
{
	char json[1024];
	snprintf(json, sizeof(json), BASE "\"training\": {\"global_batch_size\": 16, "
		 "\"micro_batch_size\": 1, \"recompute\": \"none\", \"framework\": \"%s\"}, "
		 "\"parallel\": {\"tensor_model_parallel_size\": 2, \"context_parallel_size\": 1, "
		 "\"zero_stage\": 1, \"sequence_parallel\": false}}", 8, framework);
	pp_scenario s;
	if (load(&s, json)) {
		CHECK(0);
		return 0;
	}
	pp_layout *l = NULL;
	size_t n = 0;
	pp_err err = {0};
	unsigned got = 0;
	CHECK(pp_space_enumerate(&s, &l, &n, NULL, 0, &err) == 0);
	for (size_t i = 0; i < n; i++)
		if (l[i].pp > 1)
			got |= 1u << l[i].schedule;
	CHECK(got == pp_space_schedules(&s));
	free(l);
	pp_scenario_release(&s);
	return got;
}

static void framework_schedules(void)
{
	enum { F = 1u << PP_SCHED_1F1B, H1 = 1u << PP_SCHED_ZBH1, I = 1u << PP_SCHED_INTERLEAVED,
	       V = 1u << PP_SCHED_ZBV, D = 1u << PP_SCHED_DUALPIPEV };
	CHECK(schedules_of("megatron-core") == (F | I));
	CHECK(schedules_of("nemo") == (F | I));
	CHECK(schedules_of("pytorch") == (F | I | V | D));
	CHECK(schedules_of("torchtitan") == (F | I | V));
	CHECK(schedules_of("deepspeed") == (F | H1));
}

static void keep(void *ctx, const pp_layout *l, uint32_t idx)
{
	seen *k = ctx;
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 64;
		k->l = pp_xrealloc(k->l, k->cap * sizeof(*k->l));
		k->idx = pp_xrealloc(k->idx, k->cap * sizeof(*k->idx));
	}
	k->l[k->n] = *l;
	k->idx[k->n++] = idx;
}

/* Field by field: a struct's padding bytes are unspecified (a copy or an
 * initialiser need not carry them), so memcmp cannot compare layouts. */
static bool layout_eq(const pp_layout *a, const pp_layout *b)
{
	return a->tp == b->tp && a->pp == b->pp && a->dp == b->dp && a->cp == b->cp &&
	       a->vpp == b->vpp && a->zero_stage == b->zero_stage && a->sp == b->sp &&
	       a->schedule == b->schedule && a->recompute == b->recompute &&
	       a->micro_batch_size == b->micro_batch_size && a->ep == b->ep;
}

/* The streamed walk gives the list's layouts, in its order, numbered 0..n-1,
 * on a space with every key free. */
static void walk_is_the_list(void)
{
	char json[512];
	snprintf(json, sizeof(json), BASE "\"training\": {\"global_batch_size\": 16}}", 8);
	pp_scenario s;
	if (load(&s, json)) {
		CHECK(0);
		return;
	}
	pp_layout *l = NULL;
	size_t n = 0, nw = 0;
	char a[640], b[640];
	pp_err err = {0};
	CHECK(pp_space_enumerate(&s, &l, &n, a, sizeof(a), &err) == 0);
	seen k = {0};
	CHECK(pp_space_walk(&s, keep, &k, &nw, b, sizeof(b), &err) == 0);
	CHECK(n > 100 && nw == n && k.n == n);
	CHECK(!strcmp(a, b));
	bool same = true;
	for (size_t i = 0; i < n && i < k.n; i++)
		same &= k.idx[i] == i && layout_eq(&k.l[i], &l[i]);
	CHECK(same);
	free(k.l);
	free(k.idx);
	free(l);
	pp_scenario_release(&s);
}

/* A layout into a scenario: its keys, and the micro-batch count derived,
 * 16 / (2 x 2) = 4; EP 0 reads as 1. */
static void apply(void)
{
	char json[512];
	snprintf(json, sizeof(json), BASE "\"training\": {\"global_batch_size\": 16}}", 8);
	pp_scenario s;
	if (load(&s, json)) {
		CHECK(0);
		return;
	}
	pp_layout l = {2, 2, 2, 1, 2, 3, true, PP_SCHED_INTERLEAVED, PP_RC_FULL, 2, 0};
	pp_layout_apply(&s, &l);
	CHECK(s.parallel.tp == 2 && s.parallel.pp == 2 && s.parallel.dp == 2 && s.parallel.cp == 1);
	CHECK(s.parallel.vpp == 2 && s.parallel.zero_stage == 3 && s.parallel.sequence_parallel);
	CHECK(s.parallel.schedule == PP_SCHED_INTERLEAVED && s.parallel.ep == 1);
	CHECK(s.training.micro_batch_size == 2 && s.training.recompute == PP_RC_FULL);
	CHECK(s.training.num_microbatches == 4);
	pp_scenario_release(&s);
}

static void in_words(void)
{
	char buf[256];
	pp_layout a = {8, 16, 40, 1, 2, 1, true, PP_SCHED_INTERLEAVED, PP_RC_SELECTIVE, 1, 1};
	CHECK(!strcmp(pp_layout_str(&a, buf, sizeof(buf)),
		      "TP 8 x PP 16 x DP 40 x CP 1, interleaved x2, micro-batch 1, ZeRO-1, SP, "
		      "recompute selective"));
	pp_layout b = {1, 1, 8, 1, 1, 0, false, PP_SCHED_1F1B, PP_RC_NONE, 4, 4};
	CHECK(!strcmp(pp_layout_str(&b, buf, sizeof(buf)),
		      "TP 1 x PP 1 x DP 8 x CP 1, no pipeline, micro-batch 4, ZeRO-0, recompute "
		      "none, EP 4"));
	pp_layout c = {1, 4, 2, 1, 1, 0, false, PP_SCHED_GPIPE, PP_RC_FULL, 1, 1};
	CHECK_CONTAINS(pp_layout_str(&c, buf, sizeof(buf)), "PP 4 x DP 2 x CP 1, GPipe,");
	/* the short form of tables */
	CHECK(!strcmp(pp_layout_short(&a, buf, sizeof(buf)),
		      "TP8 PP16 DP40 CP1 v2 mb1 ZeRO-1 SP selective"));
	CHECK(!strcmp(pp_layout_short(&b, buf, sizeof(buf)), "TP1 PP1 DP8 CP1 EP4 - mb4 ZeRO-0 none"));
	CHECK(!strcmp(pp_layout_short(&c, buf, sizeof(buf)), "TP1 PP4 DP2 CP1 gpipe mb1 ZeRO-0 full"));
}

/* A batch of 100 on 64 GPUs with TP, PP and CP fixed at 1: DP 64 does not
 * divide it; the nearest batches it does are 64 and 128. */
static void nearest_batches(void)
{
	char json[1024];
	snprintf(json, sizeof(json), BASE "\"training\": {\"global_batch_size\": 100, "
		 "\"micro_batch_size\": 1}, \"parallel\": {\"tensor_model_parallel_size\": 1, "
		 "\"pipeline_model_parallel_size\": 1, \"context_parallel_size\": 1}}", 64);
	pp_scenario s;
	if (load(&s, json)) {
		CHECK(0);
		return;
	}
	pp_layout *l = NULL;
	size_t n = 0;
	pp_err err = {0};
	CHECK(pp_space_enumerate(&s, &l, &n, NULL, 0, &err) == PP_EINPUT);
	CHECK_CONTAINS(err.msg, "no layout of 64 GPUs fits the given keys");
	CHECK_CONTAINS(err.msg, "are 64 and 128");
	pp_scenario_release(&s);
}

int main(void)
{
	RUN(dp_only);
	RUN(interleaving);
	RUN(framework_schedules);
	RUN(walk_is_the_list);
	RUN(apply);
	RUN(in_words);
	RUN(nearest_batches);
	return pp_t_done("test_space");
}
