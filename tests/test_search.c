/*
 * test_search.c - layout search and sizing (issue 8):
 *  - the fast path equals the event simulation, to the nanosecond, on every
 *    candidate of four spaces (1F1B/GPipe/interleaved, ZB-H1/H2, ZB-V,
 *    DualPipeV, DualPipe, interleaved with any micro-batch count, ZeRO 0-3, every
 *    overlap flag off, uneven stages, tied and untied embeddings, GQA, CP),
 *    and its lower bound never exceeds it;
 *  - the cached workloads equal pp_workload_build() field for field;
 *  - the pruned search returns the same top k as running pp_predict() on
 *    every candidate and sorting (a second method, no pruning, no fast path);
 *  - the winner's numbers equal `podplan predict` on that layout;
 *  - `mpirun -np 2` prints byte for byte what the serial run prints;
 *  - `podplan size` picks what sizing every option by brute force picks
 *    (priced by hand from the price fixture, tests/data/catalog/), and its
 *    skip bounds are below the real figures;
 *  - the equivalences the enumeration relies on (ZeRO-k with one data
 *    replica = ZeRO-0; selective = no recompute under flash attention);
 *  - Narayanan et al. SC'21 Table 1: the published layouts against the
 *    best the search finds (sanity check; assumptions in table1()).
 */
#include "engine/fastpath.h"
#include "harness.h"
#include "engine/memory.h"
#include "engine/evgraph.h"
#include "plan/search.h"
#include "plan/size.h"
#include "testutil.h"
#include "core/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int64_t des_ns(const pp_scenario *s, const pp_hw *hw, const pp_workload *w)
{
	pp_des *d = pp_des_new();
	pp_stage_busy *busy = pp_xcalloc((size_t)s->parallel.pp, sizeof(pp_stage_busy));
	pp_sched_opts o = {false, false, false};
	pp_evgraph_build(d, s, hw, w, &o, busy);
	pp_err err = {0};
	int64_t t = pp_des_run(d, &err) ? -1 : pp_des_makespan(d);
	free(busy);
	pp_des_free(d);
	return t;
}

/* GPT 1.7B (18 layers) on 2 nodes: tied embeddings, unfused attention
 * (selective recompute searched), uneven stages (18 layers over 4 or 8). */
#define GPT_SPACE(extra_training, extra)                                                          \
	"{\"name\": \"gpt\", \"model\": {\"preset\": \"gpt-1.7b\", \"num_layers\": 18}, "          \
	"\"training\": {\"global_batch_size\": 8, \"use_flash_attn\": false" extra_training "}, "    \
	extra "\"cluster\": {\"gpu\": \"a100-80gb\", \"num_gpus\": 16, \"intra_node\": \"nvlink3\", " \
	"\"inter_node\": {\"fabric\": \"ib-hdr\", \"nics_per_node\": 8}}}"

/* every schedule podplan lists, whatever the framework ships */
#define ALL_SCHEDULES                                                                             \
	"\"search\": {\"pipeline_schedules\": [\"1f1b\", \"interleaved\", \"zb-h1\", \"zb-h2\", " \
	"\"zbv\", \"dualpipev\"]}, "

static const char *const spaces[] = {
	GPT_SPACE("", ALL_SCHEDULES),
	/* every overlap off: blocking sends, gradient and parameter traffic after the step */
	GPT_SPACE(", \"overlap_grad_reduce\": false, \"overlap_param_gather\": false, "
		  "\"overlap_p2p_comm\": false, \"precision\": \"fp16\", \"recompute\": \"full\"", ""),
	GPT_SPACE(", \"recompute\": \"selective\"", "\"parallel\": {\"pipeline_schedule\": \"gpipe\"}, "),
	/* Llama: untied, GQA (8 groups), SwiGLU, flash attention, CP; 2 nodes of 8 */
	"{\"name\": \"llama\", \"model\": {\"preset\": \"llama3-8b\", \"num_layers\": 12, "
	"\"seq_length\": 2048}, \"training\": {\"global_batch_size\": 32, \"recompute\": \"none\"}, "
	"\"cluster\": {\"gpu\": "
	"\"h100-sxm\", \"num_gpus\": 16, \"inter_node\": {\"fabric\": \"ib-ndr\", \"nics_per_node\": "
	"4, \"oversubscription\": 2}}}",
	/* a slow fabric: the distributed optimizer's gathers hold the DP stream
	 * for much of the step (the tight bound's term) */
	"{\"name\": \"slow\", \"model\": {\"preset\": \"gpt-1.7b\", \"num_layers\": 12}, "
	"\"training\": {\"global_batch_size\": 16, \"recompute\": \"selective\"}, "
	"\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 16, \"inter_node\": {\"fabric\": "
	"\"eth-10g\", \"nics_per_node\": 1}}}",
	/* PyTorch's stack: its op list reads the ZeRO stage (FSDP2's copies,
	 * autocast's casts over fp32 parameters, DDP's buckets) and the DP size
	 * (FSDP2's copies), so the workload cache keys on them */
	"{\"name\": \"torch\", \"model\": {\"preset\": \"llama3-8b\", \"num_layers\": 4, "
	"\"seq_length\": 1024}, \"training\": {\"global_batch_size\": 16, \"recompute\": \"none\", "
	"\"framework\": \"pytorch\", \"master_weights_fp32\": true}, "
	"\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8}}",
	/* a batch of 6: micro-batch counts the stages do not divide (3 on 2,
	 * 6 on 4: interleaved in groups, pp_pipe_group) */
	"{\"name\": \"odd\", \"model\": {\"preset\": \"gpt-1.7b\", \"num_layers\": 12}, "
	"\"training\": {\"global_batch_size\": 6, \"recompute\": \"none\"}, "
	"\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8}}",
	/* DualPipe, which no framework's list has, named: 8 layers on 2 and 4
	 * ranks of two stages each, even micro-batch counts from 2 PP on */
	"{\"name\": \"dual\", \"model\": {\"preset\": \"gpt-1.7b\", \"num_layers\": 8}, "
	"\"training\": {\"global_batch_size\": 16, \"recompute\": \"none\"}, "
	"\"search\": {\"pipeline_schedules\": [\"1f1b\", \"dualpipe\"]}, "
	"\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8}}",
};

/* The cached workload f is the built one w field for field, but the op
 * list, which the cache does not keep (fastpath.h). */
static bool same_but_ops(const pp_workload *f, const pp_workload *w)
{
	pp_workload g = *f;
	if (g.ops || g.nops || g.cap)
		return false;
	g.ops = w->ops;
	g.nops = w->nops;
	g.cap = w->cap;
	return !memcmp(&g, w, sizeof(g));
}

static void fastpath_exact(void)
{
	int64_t total = 0, bad = 0, badb = 0, badw = 0, badq = 0, badt = 0, raised = 0, badl = 0, badk = 0;
	int64_t rebuilt = 0, by_sched[PP_SCHED_COUNT] = {0}, uneven_m = 0;
	double tight = 0;
	for (size_t sp = 0; sp < PP_ARRAY_LEN(spaces); sp++) {
		pp_scenario s;
		pp_hw hw;
		if (tu_scenario_unchecked(spaces[sp], &s, &hw)) {
			CHECK(0);
			continue;
		}
		pp_layout *lay;
		size_t n;
		pp_err err = {0};
		CHECK(pp_space_enumerate(&s, &lay, &n, NULL, 0, &err) == 0);
		pp_fp_cache *c = pp_fp_cache_new();
		/* and one that holds 7 workloads, emptied whenever it is full */
		pp_fp_cache *c7 = pp_fp_cache_new();
		pp_fp_cache_set_max(c7, 7);
		pp_scenario x = s;
		for (size_t i = 0; i < n; i++) {
			pp_layout_apply(&x, &lay[i]);
			if (lay[i].pp > 1)
				by_sched[lay[i].schedule]++;
			uneven_m += lay[i].schedule == PP_SCHED_INTERLEAVED &&
				    x.training.num_microbatches % lay[i].pp;
			pp_workload w, f, f7;
			pp_workload_build(&w, &x, &hw);
			pp_fp_workload(c, &x, &hw, &f);
			pp_fp_workload(c7, &x, &hw, &f7);
			badw += !same_but_ops(&f, &w) || !same_but_ops(&f7, &w);
			int64_t d = des_ns(&x, &hw, &w);
			int64_t fp = pp_fp_step_ns(&x, &hw, &w);
			/* the walk stopped at a limit: the step up to it, longer above */
			badl += pp_fp_step_within_ns(&x, &hw, &w, fp) != fp ||
				pp_fp_step_within_ns(&x, &hw, &w, fp + 1) != fp ||
				(fp > 0 && pp_fp_step_within_ns(&x, &hw, &w, fp - 1) != INT64_MAX) ||
				(fp > 0 && pp_fp_step_within_ns(&x, &hw, &w, fp / 2) != INT64_MAX);
			int64_t b = pp_fp_bound_ns(&x, &hw, &w);
			badq += pp_fp_bound_quick_ns(&x, &hw, &w) > b;
			/* the kept quick bound is the one computed */
			badk += pp_fp_bound_quick_cached_ns(c, &x, &hw) != pp_fp_bound_quick_ns(&x, &hw, &w);
			int64_t bt = pp_fp_bound_tight_ns(&x, &hw, &w);
			if (fp != d && bad++ < 5) {
				char buf[200];
				pp_t_diag("space %zu %s: fast %lld, event simulation %lld", sp,
				          pp_layout_str(&lay[i], buf, sizeof(buf)), (long long)fp,
				          (long long)d);
			}
			badb += b > d;
			badt += bt < b || bt > d;
			raised += bt > b;
			tight += (double)b / (double)d;
			pp_workload_release(&w);
			total++;
		}
		/* c7 was emptied: it built some keys again */
		rebuilt += pp_fp_cache_builds(c7) - pp_fp_cache_builds(c);
		pp_fp_cache_free(c7);
		pp_fp_cache_free(c);
		free(lay);
		pp_scenario_release(&s);
		pp_t_diag("space %zu: %zu layouts", sp, n);
	}
	pp_t_diag("%lld layouts: %lld fast-path mismatches, %lld bound violations, %lld quick "
	          "bounds above the bound, %lld workload mismatches; bound / exact %.3f on average",
	          (long long)total, (long long)bad, (long long)badb, (long long)badq, (long long)badw,
	          tight / total);
	pp_t_diag("tight bound: %lld outside [bound, exact], %lld above the bound", (long long)badt,
	          (long long)raised);
	pp_t_diag("walk with a limit: %lld layouts where it differs from the step; %lld kept quick "
	          "bounds that differ", (long long)badl, (long long)badk);
	pp_t_diag("a cache of 7 workloads built %lld more than one of 32,768", (long long)rebuilt);
	/* space 0 ranks every schedule but GPipe (given in space 2) and DualPipe
	 * (named in space 7) */
	for (int k = 0; k < PP_SCHED_COUNT; k++) {
		pp_t_diag("pipelines with schedule %s: %lld", pp_schedule_names[k],
			  (long long)by_sched[k]);
		CHECK(by_sched[k] > 0);
	}
	pp_t_diag("interleaved with micro-batches the stages do not divide: %lld", (long long)uneven_m);
	CHECK(uneven_m > 0);
	CHECK(rebuilt > 0);
	CHECK(total > 1500);
	CHECK(badl == 0);
	CHECK(badk == 0);
	CHECK(bad == 0);
	CHECK(badb == 0);
	CHECK(badq == 0);
	CHECK(badw == 0);
	CHECK(badt == 0);
	CHECK(raised >= 50);
}

/* One workload cache for the searches of clusters that differ only in GPU
 * count and inter-node network (podplan size's options of one SKU,
 * fastpath.h): on every layout of the spaces above and of a mixture of
 * experts, and the same layout at twice the data parallelism on twice the
 * GPUs over another network, the cached workload of either is the one
 * built for it, field for field, whichever asked first; the layouts whose
 * collectives stay inside a node share one. Some layouts' op lists differ
 * between the two (a TP or CP group across nodes, experts), so a key
 * without the network fails. */
static void cache_across_fabrics(void)
{
	const char *moe = "{\"name\": \"moe\", \"model\": {\"preset\": \"mixtral-8x7b\", "
			  "\"num_layers\": 4}, \"training\": {\"global_batch_size\": 64}, "
			  "\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 32, \"inter_node\": "
			  "{\"fabric\": \"ib-ndr\", \"nics_per_node\": 8}}}";
	int64_t total = 0, badw = 0, badk = 0, differ = 0, shared = 0, qdiff = 0;
	int builds = 0;
	for (size_t sp = 0; sp <= PP_ARRAY_LEN(spaces); sp++) {
		pp_scenario s;
		pp_hw hw, hw2;
		if (tu_scenario_unchecked(sp < PP_ARRAY_LEN(spaces) ? spaces[sp] : moe, &s, &hw)) {
			CHECK(0);
			continue;
		}
		pp_scenario s2 = s;
		s2.cluster.inter = pp_catalog_fabric(tu_catalog(), strcmp(s.cluster.inter->id, "eth-10g")
								      ? "eth-10g" : "ib-ndr");
		s2.cluster.nics_per_node = 1;
		s2.cluster.num_gpus *= 2;
		s2.training.global_batch_size *= 2;
		pp_err err = {0};
		CHECK(s2.cluster.inter && pp_hw_from_catalog(&hw2, tu_catalog(), &s2.cluster, &err) == 0);
		pp_layout *lay;
		size_t n;
		CHECK(pp_space_enumerate(&s, &lay, &n, NULL, 0, &err) == 0);
		pp_fp_cache *c = pp_fp_cache_new();
		pp_scenario x = s, x2 = s2;
		for (size_t i = 0; i < n; i++) {
			pp_layout l2 = lay[i];
			l2.dp *= 2;
			pp_layout_apply(&x, &lay[i]);
			pp_layout_apply(&x2, &l2);
			pp_workload w[2], f[2];
			pp_workload_build(&w[0], &x, &hw);
			pp_workload_build(&w[1], &x2, &hw2);
			/* either network first */
			for (int k = 0; k < 2; k++) {
				int j = (int)(i + (size_t)k) % 2;
				pp_fp_workload(c, j ? &x2 : &x, j ? &hw2 : &hw, &f[j]);
			}
			for (int j = 0; j < 2; j++)
				badw += !same_but_ops(&f[j], &w[j]);
			differ += w[0].nops != w[1].nops ||
				  memcmp(w[0].ops, w[1].ops, sizeof(pp_op) * (size_t)w[0].nops);
			shared += !pp_workload_reads_network(&x);
			/* the kept quick bounds are one cluster's: forgotten before
			 * the other's (a search on another cluster does so) */
			int64_t q0 = pp_fp_bound_quick_ns(&x, &hw, &w[0]);
			int64_t q1 = pp_fp_bound_quick_ns(&x2, &hw2, &w[1]);
			pp_fp_cache_forget_bounds(c);
			badk += pp_fp_bound_quick_cached_ns(c, &x, &hw) != q0;
			pp_fp_cache_forget_bounds(c);
			badk += pp_fp_bound_quick_cached_ns(c, &x2, &hw2) != q1;
			qdiff += q0 != q1 && !pp_workload_reads_network(&x);
			pp_workload_release(&w[0]);
			pp_workload_release(&w[1]);
			total++;
		}
		builds += pp_fp_cache_builds(c);
		pp_fp_cache_free(c);
		free(lay);
		pp_scenario_release(&s);
	}
	pp_t_diag("%lld layouts on two clusters, one cache: %lld workload mismatches, %lld kept quick "
		  "bounds that differ; %lld layouts whose op list differs by cluster, %lld with every "
		  "collective inside a node (shared), %lld of them with quick bounds that differ "
		  "by cluster; %d workloads built",
		  (long long)total, (long long)badw, (long long)badk, (long long)differ,
		  (long long)shared, (long long)qdiff, builds);
	CHECK(total > 1500);
	CHECK(badw == 0);
	CHECK(badk == 0);
	CHECK(differ > 100);
	CHECK(shared > 500);
}

/* What the search's pruning by monotonicity relies on (search.c): the rest
 * of a layout fixed, its memory per GPU never falls as the micro-batch
 * grows. Every layout of the spaces above and of the 530B question,
 * against the same layout at the next smaller micro-batch. */
static void memory_monotone(void)
{
	const char *more[] = {
		"{\"name\": \"530b\", \"model\": {\"preset\": \"gpt-530b\"}, \"training\": "
		"{\"global_batch_size\": 2560, \"use_flash_attn\": false}, \"cluster\": {\"gpu\": "
		"\"a100-80gb\", \"num_gpus\": 5120, \"intra_node\": \"nvlink3\", \"inter_node\": "
		"{\"fabric\": \"ib-hdr\", \"nics_per_node\": 8}}}",
		/* MoE: the experts' token rows grow with the micro-batch too */
		"{\"name\": \"moe\", \"model\": {\"preset\": \"mixtral-8x7b\"}, \"training\": "
		"{\"global_batch_size\": 256}, \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 64, "
		"\"inter_node\": {\"fabric\": \"ib-ndr\", \"nics_per_node\": 8}}}",
	};
	int64_t pairs = 0, falls = 0;
	for (size_t sp = 0; sp < PP_ARRAY_LEN(spaces) + PP_ARRAY_LEN(more); sp++) {
		const char *json = sp < PP_ARRAY_LEN(spaces) ? spaces[sp] : more[sp - PP_ARRAY_LEN(spaces)];
		pp_scenario s;
		pp_hw hw;
		if (tu_scenario_unchecked(json, &s, &hw)) {
			CHECK(0);
			continue;
		}
		pp_layout *lay;
		size_t n;
		pp_err err = {0};
		CHECK(pp_space_enumerate(&s, &lay, &n, NULL, 0, &err) == 0);
		double *mem = pp_xmalloc(sizeof(double) * (n + 1));
		pp_fp_cache *c = pp_fp_cache_new();
		pp_scenario x = s;
		for (size_t i = 0; i < n; i++) {
			pp_layout_apply(&x, &lay[i]);
			pp_workload w;
			pp_fp_workload(c, &x, &hw, &w);
			pp_memory m;
			pp_memory_estimate(&x, &hw, &w, &m);
			mem[i] = m.total_bytes;
			/* the same layout at the largest smaller micro-batch seen */
			for (size_t j = i; j-- > 0;) {
				pp_layout a = lay[j], b = lay[i];
				if (a.micro_batch_size >= b.micro_batch_size)
					continue;
				a.micro_batch_size = b.micro_batch_size;
				if (memcmp(&a, &b, sizeof(a)))
					continue;
				pairs++;
				if (mem[i] < mem[j] * (1 - 1e-12) && falls++ < 3) {
					char buf[200];
					pp_t_diag("%s: %.6g bytes, %.6g at micro-batch %lld",
					          pp_layout_str(&lay[i], buf, sizeof(buf)), mem[i], mem[j],
					          (long long)lay[j].micro_batch_size);
				}
				break;
			}
		}
		pp_fp_cache_free(c);
		free(mem);
		free(lay);
		pp_scenario_release(&s);
	}
	pp_t_diag("%lld layouts against the next smaller micro-batch: %lld need less memory",
	          (long long)pairs, (long long)falls);
	CHECK(pairs > 10000);
	CHECK(falls == 0);
}

typedef struct ref {
	int64_t step;
	uint32_t idx;
} ref;

static int cmp_ref(const void *a, const void *b)
{
	const ref *x = a, *y = b;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Brute force with the full engine: pp_predict() on every candidate. */
static void against_predict(const char *json, int k)
{
	pp_scenario s;
	pp_hw hw;
	if (tu_scenario_unchecked(json, &s, &hw)) {
		CHECK(0);
		return;
	}
	pp_layout *lay;
	size_t n;
	pp_err err = {0};
	CHECK(pp_space_enumerate(&s, &lay, &n, NULL, 0, &err) == 0);
	ref *r = pp_xmalloc(sizeof(ref) * n);
	size_t nr = 0, nofit = 0;
	pp_result *res = pp_xcalloc(n, sizeof(pp_result));
	pp_scenario x = s;
	for (size_t i = 0; i < n; i++) {
		pp_layout_apply(&x, &lay[i]);
		CHECK(pp_predict(&x, &hw, NULL, &res[i], &err) == 0);
		if (!res[i].memory.fits) {
			nofit++;
			continue;
		}
		r[nr].step = llround(res[i].step_time_s * 1e9);
		r[nr].idx = (uint32_t)i;
		nr++;
	}
	qsort(r, nr, sizeof(ref), cmp_ref);
	for (int des = 0; des < 2; des++) {
		pp_search_opts o = {k, false, des == 1, 0, NULL, NULL, false, NULL, NULL, 0};
		pp_search_result sr;
		CHECK(pp_search_run(&s, &hw, &o, &sr, &err) == 0);
		CHECK(sr.evaluated == (int64_t)n);
		CHECK(sr.no_fit == (int64_t)nofit);
		CHECK(sr.feasible == (int64_t)nr);
		CHECK(sr.simulated <= sr.feasible && sr.simulated >= (nr < (size_t)k ? (int64_t)nr : k));
		CHECK(!sr.fell_back);
		CHECK(sr.nbest == (nr < (size_t)k ? (int)nr : k));
		for (int i = 0; i < sr.nbest; i++) {
			const pp_search_hit *h = &sr.best[i];
			CHECK(h->index == r[i].idx);
			CHECK(h->step_ns == r[i].step);
			CHECK(h->result.step_time_s == res[r[i].idx].step_time_s);
			CHECK(h->result.mfu == res[r[i].idx].mfu);
			CHECK(h->result.memory.total_bytes == res[r[i].idx].memory.total_bytes);
			CHECK(h->result.breakdown.pp_bubble_s == res[r[i].idx].breakdown.pp_bubble_s);
		}
		if (!des)
			pp_t_diag("%zu candidates, %zu fit, top %d identical; the search simulated %lld",
			          n, nr, sr.nbest, (long long)sr.simulated);
		pp_search_result_release(&sr);
	}
	free(res);
	free(r);
	free(lay);
	pp_scenario_release(&s);
}

static void pruned_equals_brute_force(void)
{
	/* 16 A100s, recompute and everything else searched */
	against_predict("{\"name\": \"b\", \"model\": {\"preset\": \"gpt-1.7b\", \"num_layers\": 12}, "
			"\"training\": {\"global_batch_size\": 8, \"use_flash_attn\": false}, "
			"\"cluster\": {\"gpu\": "
			"\"a100-80gb\", \"num_gpus\": 16, \"intra_node\": \"nvlink3\", \"inter_node\": "
			"{\"fabric\": \"ib-hdr\", \"nics_per_node\": 8}}}", 8);
	/* a memory-tight model on 40 GB parts, some keys fixed, k = 1 */
	against_predict("{\"name\": \"c\", \"model\": {\"preset\": \"gpt-7.5b\", \"num_layers\": 12}, "
			"\"training\": {\"global_batch_size\": 16, \"recompute\": \"full\"}, "
			"\"parallel\": {\"sequence_parallel\": true}, \"cluster\": {\"gpu\": "
			"\"a100-40gb\", \"num_gpus\": 8}}", 1);
}

/* ---- through the command line ---- */

static char *write_tmp(const char *name, const char *text)
{
	char *p = pp_path_join(pp_t_tmpdir(), name);
	FILE *f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
	return p;
}

static cJSON *run_json(const char *args, int *status)
{
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s %s 2>/dev/null", pp_t_bin(), args);
	*status = pp_t_sh(cmd, &out);
	cJSON *j = cJSON_Parse(out);
	if (!j)
		pp_t_diag("not JSON: %.300s", out);
	free(out);
	return j;
}

static double jnum(const cJSON *o, const char *path)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", path);
	const cJSON *c = o;
	for (char *save, *t = strtok_r(buf, ".", &save); t; t = strtok_r(NULL, ".", &save))
		c = cJSON_GetObjectItemCaseSensitive(c, t);
	return cJSON_IsNumber(c) ? c->valuedouble : NAN;
}

/* search --json, then the winner's layout written into the scenario and
 * run through `podplan predict --json`: the same numbers. */
static void check_winner(const char *space_json, const char *name)
{
	char file[64];
	snprintf(file, sizeof(file), "%s.json", name);
	char *sc = write_tmp(file, space_json);
	char args[1024];
	int st;
	snprintf(args, sizeof(args), "search %s --json --top 3", sc);
	cJSON *j = run_json(args, &st);
	CHECK(st == 0 && j);
	const cJSON *best = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "best"), 0);
	CHECK(best != NULL);
	CHECK(jnum(j, "evaluated") >= jnum(j, "feasible") && jnum(j, "feasible") >= jnum(j, "simulated"));
	CHECK(jnum(j, "elapsed_s") >= 0);
	if (!best) {
		cJSON_Delete(j);
		free(sc);
		return;
	}
	/* the scenario with every layout key fixed to the winner's */
	cJSON *scen = cJSON_Parse(space_json);
	cJSON *tr = cJSON_GetObjectItemCaseSensitive(scen, "training");
	cJSON_DeleteItemFromObjectCaseSensitive(tr, "micro_batch_size");
	cJSON_DeleteItemFromObjectCaseSensitive(tr, "recompute");
	cJSON_AddNumberToObject(tr, "micro_batch_size", jnum(best, "micro_batch_size"));
	cJSON_AddStringToObject(tr, "recompute",
				cJSON_GetObjectItemCaseSensitive(best, "recompute")->valuestring);
	cJSON_DeleteItemFromObjectCaseSensitive(scen, "parallel");
	cJSON *par = cJSON_AddObjectToObject(scen, "parallel");
	static const char *const keys[] = {"tensor_model_parallel_size", "pipeline_model_parallel_size",
					   "data_parallel_size", "context_parallel_size",
					   "virtual_pipeline_model_parallel_size", "zero_stage"};
	for (size_t i = 0; i < PP_ARRAY_LEN(keys); i++)
		cJSON_AddNumberToObject(par, keys[i], jnum(best, keys[i]));
	cJSON_AddBoolToObject(par, "sequence_parallel",
			      cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(best, "sequence_parallel")));
	cJSON_AddStringToObject(par, "pipeline_schedule",
				cJSON_GetObjectItemCaseSensitive(best, "pipeline_schedule")->valuestring);
	char *text = cJSON_Print(scen);
	snprintf(file, sizeof(file), "%s-winner.json", name);
	char *pc = write_tmp(file, text);
	snprintf(args, sizeof(args), "predict %s --json", pc);
	cJSON *p = run_json(args, &st);
	CHECK(st == 0 && p);
	CHECK(jnum(best, "step_time_s") == jnum(p, "step_time_s"));
	CHECK(jnum(best, "mfu") == jnum(p, "mfu"));
	CHECK(jnum(best, "tokens_per_s") == jnum(p, "tokens_per_s"));
	CHECK(jnum(best, "memory.per_gpu_bytes") == jnum(p, "memory.per_gpu_bytes"));
	static const char *const terms[] = {"compute_s", "tp_comm_exposed_s", "ep_comm_exposed_s",
					    "dp_comm_exposed_s", "pp_bubble_s", "pp_comm_exposed_s",
					    "optimizer_s", "data_s"};
	for (size_t i = 0; i < PP_ARRAY_LEN(terms); i++) {
		char k[64];
		snprintf(k, sizeof(k), "breakdown.%s", terms[i]);
		CHECK(jnum(best, k) == jnum(p, k));
	}
	pp_t_diag("%s: winner TP %.0f x PP %.0f x DP %.0f: search %.9g s, podplan predict %.9g s",
	          name, jnum(best, "tensor_model_parallel_size"), jnum(best, "pipeline_model_parallel_size"),
	          jnum(best, "data_parallel_size"), jnum(best, "step_time_s"), jnum(p, "step_time_s"));
	cJSON_Delete(p);
	cJSON_Delete(scen);
	cJSON_Delete(j);
	free(text);
	free(pc);
	free(sc);
}

static void winner_equals_predict(void)
{
	check_winner(spaces[3], "llama");
	/* with a calibration profile (the committed H200 one): search applies it
	 * as predict does */
	char json[2048];
	char cwd[2048];
	char *db = pp_path_join(getcwd(cwd, sizeof(cwd)) ? cwd : ".",
				"models/calibrations/h200-nvlink-2gpu.db");
	snprintf(json, sizeof(json),
		 "{\"name\": \"cal\", \"model\": {\"preset\": \"llama3-8b\", \"num_layers\": 8, "
		 "\"seq_length\": 2048}, \"training\": {\"global_batch_size\": 8}, \"calibration\": "
		 "{\"db\": \"%s\", \"profile\": \"h200-nvlink-2gpu\"}, \"cluster\": {\"gpu\": "
		 "\"h200\", \"num_gpus\": 2}}", db);
	check_winner(json, "calibrated");
	free(db);
}

static void cli_errors(void)
{
	char cmd[2048], *out = NULL;
	char *nogbs = write_tmp("nogbs.json", "{\"model\": {\"preset\": \"gpt-1.7b\"}, \"cluster\": "
					      "{\"gpu\": \"a100-80gb\", \"num_gpus\": 8}}");
	snprintf(cmd, sizeof(cmd), "%s search %s", pp_t_bin(), nogbs);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "global_batch_size");
	free(out);
	char *typo = write_tmp("typo.json", "{\"model\": {\"preset\": \"gpt-1.7b\"}, \"training\": "
					    "{\"global_batch_size\": 16}, \"search\": {\"gpu\": [\"h100-sxm\"]}, "
					    "\"cluster\": {\"gpu\": \"a100-80gb\", \"num_gpus\": 8}}");
	snprintf(cmd, sizeof(cmd), "%s search %s", pp_t_bin(), typo);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "search.gpu");
	CHECK_CONTAINS(out, "gpus");
	free(out);
	/* a batch no data-parallel size divides: the nearest ones that work (issue 17) */
	char *odd = write_tmp("odd.json", "{\"model\": {\"preset\": \"gpt-1.7b\"}, \"training\": "
					  "{\"global_batch_size\": 100, \"micro_batch_size\": 1}, \"parallel\": "
					  "{\"tensor_model_parallel_size\": 1, \"pipeline_model_parallel_size\": 1, "
					  "\"context_parallel_size\": 1}, \"cluster\": {\"gpu\": \"h100-sxm\", "
					  "\"num_gpus\": 64}}");
	snprintf(cmd, sizeof(cmd), "%s search %s", pp_t_bin(), odd);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "nearest global batch sizes a data-parallel size divides are 64 and 128");
	free(out);
	free(odd);
	/* sizing needs the token count */
	snprintf(cmd, sizeof(cmd), "%s size %s --deadline 10", pp_t_bin(), nogbs);
	CHECK(pp_t_sh(cmd, &out) == 2);
	free(out);
	char *ok = write_tmp("ok.json", "{\"model\": {\"preset\": \"gpt-1.7b\"}, \"training\": "
					"{\"global_batch_size\": 16}, \"cluster\": {\"gpu\": \"a100-80gb\", "
					"\"num_gpus\": 8}}");
	snprintf(cmd, sizeof(cmd), "%s size %s --deadline 10", pp_t_bin(), ok);
	CHECK(pp_t_sh(cmd, &out) == 2);
	CHECK_CONTAINS(out, "train_tokens");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s search %s --top 0", pp_t_bin(), ok);
	CHECK(pp_t_sh(cmd, &out) == 2);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s size %s --deadline 3 --budget 9", pp_t_bin(), ok);
	CHECK(pp_t_sh(cmd, &out) == 2);
	free(out);
	/* no progress on stderr when it is not a terminal */
	snprintf(cmd, sizeof(cmd), "%s search %s 2>&1 >/dev/null", pp_t_bin(), ok);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK(out[0] == '\0');
	free(out);
	snprintf(cmd, sizeof(cmd), "%s search %s", pp_t_bin(), ok);
	CHECK(pp_t_sh(cmd, &out) == 0);
	CHECK_CONTAINS(out, "Why #1 wins");
	CHECK_CONTAINS(out, "Step-time breakdown");
	free(out);
	free(nogbs);
	free(typo);
	free(ok);
}

/* ---- distributed ---- */

static void mpi_identical(void)
{
	char *out = NULL;
	if (pp_t_sh("command -v mpirun", &out) != 0) {
		pp_t_skip("mpirun not found (Debian: openmpi-bin)");
		free(out);
		return;
	}
	free(out);
	char *sc = write_tmp("m.json", spaces[0]);
	char *sz = write_tmp("sz.json",
			     "{\"name\": \"sz\", \"model\": {\"preset\": \"gpt-1.7b\"}, \"training\": "
			     "{\"global_batch_size\": 64, \"train_tokens\": 2e10}, \"search\": {\"gpus\": "
			     "[\"a100-80gb\", \"h100-sxm\"], \"num_gpus\": [8, 16, 32]}, \"cluster\": "
			     "{\"gpu\": \"a100-80gb\", \"num_gpus\": 16}}");
	/* Open MPI's own allocations are reported as leaks under ASan: not ours */
	const char *mpirun = "ASAN_OPTIONS=detect_leaks=0 mpirun --oversubscribe --allow-run-as-root "
			     "-np 2";
	char *errf = pp_path_join(pp_t_tmpdir(), "mpi.err");
	struct {
		const char *args;
		const char *file;
	} runs[] = {{"search %s --verbose", sc},
		    {"search %s --json | grep -v -e '\"elapsed_s\"' -e '\"candidates_per_s\"'", sc},
		    {"search %s --exhaustive --json | grep -v -e '\"elapsed_s\"' -e "
		     "'\"candidates_per_s\"'", sc},
		    {"size %s --deadline 2", sz},
		    /* every option, and the fastest within a budget: the ranks search
		     * options the serial run does not, the output is still its */
		    {"size %s --json | grep -v -e '\"elapsed_s\"' -e '\"mc_elapsed_s\"'", sz},
		    {"size %s --budget 20000 --json | grep -v -e '\"elapsed_s\"' -e "
		     "'\"mc_elapsed_s\"'", sz}};
	for (size_t i = 0; i < PP_ARRAY_LEN(runs); i++) {
		char args[1024], cmd[2048], *a = NULL, *b = NULL;
		snprintf(args, sizeof(args), runs[i].args, runs[i].file);
		/* stdout only: the comparison is of what the user gets */
		char *sp = strchr(args, '|');
		char head[1024], tail[512] = "";
		snprintf(head, sizeof(head), "%.*s", sp ? (int)(sp - args) : (int)strlen(args), args);
		if (sp)
			snprintf(tail, sizeof(tail), "%s", sp);
		snprintf(cmd, sizeof(cmd), "%s %s 2>/dev/null %s", pp_t_bin(), head, tail);
		int s1 = pp_t_sh(cmd, &a);
		snprintf(cmd, sizeof(cmd), "%s %s %s 2>%s %s", mpirun, pp_t_bin(), head, errf, tail);
		int s2 = pp_t_sh(cmd, &b);
		CHECK(s1 == 0 && s2 == 0);
		CHECK(strlen(a) > 200);
		CHECK(!strcmp(a, b));
		if (strcmp(a, b))
			pp_t_diag("differs: podplan %s\n--- serial\n%.800s\n--- mpirun -np 2\n%.800s",
			          args, a, b);
		free(a);
		free(b);
		if (i == 0) {
			/* the summary on stderr says the work was split over two ranks */
			char *e = NULL;
			size_t len;
			pp_err err = {0};
			CHECK(pp_read_file(errf, 1 << 20, &e, &len, &err) == 0);
			CHECK_CONTAINS(e, "Open MPI, 2 ranks");
			free(e);
		}
	}
	free(errf);
	free(sc);
	free(sz);
}

/* ---- sizing ---- */

/* The rate size prices a part at, by hand: the cheapest on-demand $/GPU-h
 * of the price fixture (tests/data/catalog/prices.json) - A100 80 GB $1.79
 * (RunPod), H100 SXM $3.99 (Lambda, RunPod) - or the scenario's own. */
static double hand_rate(const char *gpu)
{
	if (!strcmp(gpu, "a100-80gb"))
		return 1.79;
	if (!strcmp(gpu, "h100-sxm"))
		return 3.99;
	if (!strcmp(gpu, "l40s"))
		return 0.9; /* search.usd_per_gpu_hour */
	return NAN;
}

static void size_matches_brute_force(void)
{
	const char *json =
		"{\"name\": \"sz\", \"model\": {\"preset\": \"gpt-1.7b\"}, \"training\": "
		"{\"global_batch_size\": 64, \"train_tokens\": 2e10}, \"search\": {\"gpus\": "
		"[\"a100-80gb\", \"h100-sxm\", \"l40s\"], \"num_gpus\": [8, 16, 32, 64], "
		"\"fabrics\": [\"ib-hdr\", \"eth-100g\"], "
		"\"usd_per_gpu_hour\": {\"l40s\": 0.9}}, \"cluster\": {\"gpu\": \"a100-80gb\", "
		"\"num_gpus\": 16}}";
	pp_scenario s;
	pp_hw hw;
	if (tu_scenario_unchecked(json, &s, &hw)) {
		CHECK(0);
		return;
	}
	pp_err err = {0};
	pp_size_opts o;
	memset(&o, 0, sizeof(o));
	o.spec = s.search;
	CHECK(o.spec.ngpus == 3 && o.spec.ncounts == 4 && o.spec.nprices == 1);
	double steps = ceil(2e10 / (64.0 * 2048));
	/* a deadline, a budget, neither (every option searched) */
	for (int mode = 0; mode < 3; mode++) {
		o.deadline_s = mode == 0 ? 1.5 * 86400 : 0;
		o.budget_usd = mode == 1 ? 3000 : 0;
		pp_size_result r;
		CHECK(pp_size_run(&s, tu_catalog(), &o, &r, &err) == 0);
		CHECK(r.n == 24);
		/* brute force: search every option (k = 1), cost it, pick */
		double best_key = INFINITY;
		int best_gpu = -1, best_n = -1, skipped = 0;
		for (int i = 0; i < r.n; i++) {
			const pp_size_option *op = &r.opt[i];
			pp_scenario x = s;
			x.cluster.gpu = op->gpu;
			x.cluster.num_gpus = op->num_gpus;
			x.cluster.gpus_per_node = op->gpus_per_node;
			x.cluster.nics_per_node = op->nics_per_node;
			x.cluster.inter = op->inter;
			if (op->gpu != s.cluster.gpu)
				x.cluster.intra = pp_catalog_fabric(tu_catalog(), op->gpu->intra_node);
			pp_hw h2;
			CHECK(pp_hw_from_catalog(&h2, tu_catalog(), &x.cluster, &err) == 0);
			pp_search_opts so = {1, false, false, 0, NULL, NULL, false, NULL, NULL, 0};
			pp_search_result sr;
			if (pp_search_run(&x, &h2, &so, &sr, &err) || !sr.nbest)
				continue;
			double t = steps * sr.best[0].result.step_time_s;
			CHECK(op->usd_per_gpu_hour == hand_rate(op->gpu->id));
			double usd = hand_rate(op->gpu->id) * op->num_gpus * t / 3600.0;
			/* skip bounds are bounds */
			CHECK(op->lb_train_s <= t * (1 + 1e-12));
			CHECK(op->lb_usd <= usd * (1 + 1e-12));
			if (op->status == PP_SIZE_SEARCHED) {
				CHECK(op->train_s == t);
				CHECK(fabs(op->usd - usd) <= 1e-9 * usd);
				/* the options of one GPU and count share what fits
				 * (pp_search_fit): the counts of a search of its own */
				CHECK(op->evaluated == sr.evaluated && op->feasible == sr.feasible &&
				      op->simulated == sr.simulated);
				const pp_layout *a = &op->best.layout, *b = &sr.best[0].layout;
				/* field by field: the struct's padding is not copied alike */
				CHECK(a->tp == b->tp && a->pp == b->pp && a->dp == b->dp &&
				      a->cp == b->cp && a->vpp == b->vpp &&
				      a->zero_stage == b->zero_stage && a->sp == b->sp &&
				      a->schedule == b->schedule && a->recompute == b->recompute &&
				      a->micro_batch_size == b->micro_batch_size && a->ep == b->ep);
			} else {
				skipped++;
			}
			bool meets = mode == 0 ? t <= o.deadline_s : mode == 1 ? usd <= o.budget_usd : true;
			double key = mode == 1 ? t : usd;
			if (meets && key < best_key) {
				best_key = key;
				best_gpu = (int)(op->gpu - pp_catalog_gpu_at(tu_catalog(), 0));
				best_n = op->num_gpus;
			}
			pp_search_result_release(&sr);
		}
		CHECK(r.answer >= 0);
		if (r.answer >= 0) {
			const pp_size_option *a = &r.opt[r.answer];
			CHECK((int)(a->gpu - pp_catalog_gpu_at(tu_catalog(), 0)) == best_gpu);
			CHECK(a->num_gpus == best_n);
			pp_t_diag("%s: %d x %s, %.2f days, $%.0f (%d of %d options skipped by bounds)",
			          mode == 0 ? "deadline 1.5 days" : mode == 1 ? "budget $3000" : "no target",
			          a->num_gpus, a->gpu->id,
			          a->train_s / 86400, a->usd, skipped, r.n);
		}
		pp_size_result_release(&r);
	}
	pp_scenario_release(&s);
}

/* ---- the equivalences the enumeration uses ---- */

static double step_of(const char *json)
{
	pp_result r;
	return tu_step(json, &r);
}

static void equivalences(void)
{
	/* one data replica: ZeRO 1-3 shard over one rank, i.e. nothing */
	const char *z =
		"{\"model\": {\"preset\": \"gpt-1.7b\"}, \"training\": {\"global_batch_size\": 8}, "
		"\"parallel\": {\"tensor_model_parallel_size\": 4, \"pipeline_model_parallel_size\": "
		"2, \"zero_stage\": %d}, \"cluster\": {\"gpu\": \"a100-80gb\", \"num_gpus\": 8}}";
	char buf[1024];
	snprintf(buf, sizeof(buf), z, 0);
	double t0 = step_of(buf);
	for (int k = 1; k <= 3; k++) {
		snprintf(buf, sizeof(buf), z, k);
		CHECK(t0 > 0 && step_of(buf) == t0);
	}
	/* flash attention stores no scores: Megatron-LM 2022's selective
	 * recompute (the unfused core) = none; Megatron-Core's checkpoints the
	 * core attention anyway, the same memory for one more forward kernel */
	const char *f = "{\"model\": {\"preset\": \"llama3-8b\"}, \"training\": {\"global_batch_size\": "
			"8, \"recompute\": \"%s\"%s}, \"parallel\": {\"tensor_model_parallel_size\": 8}, "
			"\"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8}}";
	const char *old = ", \"selective_recompute\": \"attention-core\"";
	pp_result a, b, c;
	snprintf(buf, sizeof(buf), f, "none", old);
	double ta = tu_step(buf, &a);
	snprintf(buf, sizeof(buf), f, "selective", old);
	double tb = tu_step(buf, &b);
	CHECK(ta > 0 && ta == tb);
	CHECK(a.memory.total_bytes == b.memory.total_bytes);
	snprintf(buf, sizeof(buf), f, "selective", "");
	double tc = tu_step(buf, &c);
	CHECK(tc > ta);
	CHECK(c.memory.total_bytes == a.memory.total_bytes);
}

/* ---- Narayanan et al. SC'21 Table 1 ---- */

/*
 * Sanity check: the published layout against the best the search finds.
 * Assumptions (marked): model presets gpt-1.7b ... gpt-1t, the GPU count
 * and global batch of Table 1; A100 80 GB, 8 per node, NVLink3, 8 x HDR
 * InfiniBand; the 2021 Megatron-LM software of the paper, as
 * sim/calib/validate.c models those rows: fp16, full recompute, no sequence or
 * context parallelism, no distributed optimizer (ZeRO-0), unfused
 * attention, no gradient/parameter/p2p overlap, micro-batch 1. The paper's
 * weak-scaling design fixes the data-parallel size of each row (32 up to
 * 76.1B, then 24, 15, 9, 6); the search chooses the TP x PP split and the
 * interleaving among the schedules that software ran (1F1B and
 * interleaved: search.pipeline_schedules). Published: TP/PP of the table, interleaving as
 * validate.c infers it (3 or 2 chunks when the stage's layers allow).
 *
 * Result with the current engine: 8 of 10 rows are within 10%. For 18.4B
 * and 39.1B the engine prefers TP 1-2 with deeper pipelines to the
 * published TP 8 by 24-26% (the paper's Sec. 5.4 measured TP within a
 * node as best): an engine disagreement with practitioners about the cost
 * of TP 8 against pipelining, which only measurements of both layouts on
 * an 8-GPU node can settle (scenarios/replay8). The test holds the
 * figures README.md publishes: the eight other rows within 10% (it fails
 * if any leaves 10%), and the two disagreements no worse than the
 * published 24-26% (a ratio at most 1.265, the figure to its last digit).
 */
static void table1(void)
{
	static const struct {
		const char *preset;
		int gpus, gbs, tp, pp, dp, vpp;
		bool known_disagreement;
	} rows[] = {
		{"gpt-1.7b", 32, 512, 1, 1, 32, 1, false},
		{"gpt-3.6b", 64, 512, 2, 1, 32, 1, false},
		{"gpt-7.5b", 128, 512, 4, 1, 32, 1, false},
		{"gpt-18.4b", 256, 1024, 8, 1, 32, 1, true},
		{"gpt-39.1b", 512, 1536, 8, 2, 32, 3, true},
		{"gpt-76.1b", 1024, 1792, 8, 4, 32, 3, false},
		{"gpt-145.6b", 1536, 2304, 8, 8, 24, 2, false},
		{"gpt-310.1b", 1920, 2160, 8, 16, 15, 3, false},
		{"gpt-529.6b", 2520, 2520, 8, 35, 9, 3, false},
		{"gpt-1t", 3072, 3072, 8, 64, 6, 2, false},
	};
	const char *common =
		"\"training\": {\"global_batch_size\": %d, \"micro_batch_size\": 1, \"precision\": "
		"\"fp16\", \"recompute\": \"full\", \"use_flash_attn\": false, \"overlap_grad_reduce\": "
		"false, \"overlap_param_gather\": false, \"overlap_p2p_comm\": false}, \"cluster\": "
		"{\"gpu\": \"a100-80gb\", \"num_gpus\": %d, \"gpus_per_node\": 8, \"intra_node\": "
		"\"nvlink3\", \"inter_node\": {\"fabric\": \"ib-hdr\", \"nics_per_node\": 8}}, "
		"\"search\": {\"pipeline_schedules\": [\"1f1b\", \"interleaved\"]}";
	pp_t_diag("%-11s %6s %-13s %9s %-13s %9s %7s", "model", "GPUs", "published", "step s",
	          "search best", "step s", "ratio");
	int within = 0;
	for (size_t i = 0; i < PP_ARRAY_LEN(rows); i++) {
		char tail[1024], json[2048];
		snprintf(tail, sizeof(tail), common, rows[i].gbs, rows[i].gpus);
		snprintf(json, sizeof(json),
			 "{\"name\": \"%s\", \"model\": {\"preset\": \"%s\"}, \"parallel\": "
			 "{\"data_parallel_size\": %d, \"context_parallel_size\": 1, "
			 "\"sequence_parallel\": false, \"zero_stage\": 0}, %s}",
			 rows[i].preset, rows[i].preset, rows[i].dp, tail);
		pp_scenario s;
		pp_hw hw;
		if (tu_scenario_unchecked(json, &s, &hw)) {
			CHECK(0);
			continue;
		}
		pp_search_opts o = {1, false, false, 0, NULL, NULL, false, NULL, NULL, 0};
		pp_search_result r;
		pp_err err = {0};
		CHECK(pp_search_run(&s, &hw, &o, &r, &err) == 0 && r.nbest == 1);
		pp_scenario pub = s;
		pp_layout l = {rows[i].tp, rows[i].pp, rows[i].dp, 1, rows[i].vpp, 0, false,
			       rows[i].vpp > 1 ? PP_SCHED_INTERLEAVED : PP_SCHED_1F1B, PP_RC_FULL, 1, 1};
		pp_layout_apply(&pub, &l);
		pp_result pr;
		CHECK(pp_predict(&pub, &hw, NULL, &pr, &err) == 0);
		CHECK(pr.memory.fits);
		if (r.nbest != 1) {
			pp_scenario_release(&s);
			continue;
		}
		double ratio = pr.step_time_s / r.best[0].result.step_time_s;
		/* the search's best is never slower than a layout of its space */
		CHECK(ratio >= 1.0);
		char p1[32], p2[32];
		snprintf(p1, sizeof(p1), "TP%d PP%d v%d", rows[i].tp, rows[i].pp, rows[i].vpp);
		const pp_layout *b = &r.best[0].layout;
		snprintf(p2, sizeof(p2), "TP%d PP%d v%d", b->tp, b->pp, b->vpp);
		pp_t_diag("%-11s %6d %-13s %9.3f %-13s %9.3f %6.3f%s", rows[i].preset, rows[i].gpus, p1,
		          pr.step_time_s, p2, r.best[0].result.step_time_s, ratio,
		          ratio <= 1.10                 ? ""
		          : rows[i].known_disagreement ? "  (known engine disagreement)"
		                                       : "  FAIL");
		within += ratio <= 1.10;
		if (!rows[i].known_disagreement)
			CHECK(ratio <= 1.10);
		else /* TP 1-2 with deeper pipelines, 24-26% faster than the published TP 8 */
			CHECK(ratio <= 1.265 && b->tp <= 2);
		pp_search_result_release(&r);
		pp_scenario_release(&s);
	}
	pp_t_diag("%d of %zu published layouts within 10%% of the search's best (README: 8 of 10)",
	          within, PP_ARRAY_LEN(rows));
	CHECK(within >= 8);
}

int main(void)
{
	pp_t_fixture_data(); /* size's $: fixed prices */
	RUN(fastpath_exact);
	RUN(cache_across_fabrics);
	RUN(memory_monotone);
	RUN(pruned_equals_brute_force);
	RUN(equivalences);
	RUN(winner_equals_predict);
	RUN(cli_errors);
	RUN(size_matches_brute_force);
	RUN(mpi_identical);
	RUN(table1);
	return pp_t_done("test_search");
}
