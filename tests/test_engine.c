/*
 * test_engine.c - the step-time engine against hand calculations, published
 * formulas and physical properties:
 *  - DES: in-order streams, FIFO links, dependencies, cycles reported;
 *  - schedules: 1F1B makes (m + p - 1)(f + b) with equal stages, i.e. a
 *    bubble fraction (p-1)/(m+p-1); GPipe the same; interleaved v chunks
 *    m(f+b) + (p-1)(f+b)/v (Narayanan et al. SC'21 Sec. 2.2);
 *  - a collective over 1 GPU costs 0; nccl-tests busbw factors;
 *  - more link bandwidth never increases step time;
 *  - doubling every GPU's work (twice the micro-batches) at least doubles
 *    its compute time;
 *  - model FLOPs of the op list equal Narayanan eq. 3 for GPT models;
 *  - parameter counts (12h^2 + 13h per GPT layer);
 *  - activation memory equals Korthikanti et al. 2022 Table 2 formulas;
 *  - DDP of a 70B model on 80 GB GPUs does not fit, with the breakdown.
 */
#include "engine/collective.h"
#include "engine/des.h"
#include "harness.h"
#include "engine/memory.h"
#include "engine/stages.h"
#include "engine/evgraph.h"
#include "testutil.h"
#include "engine/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void des_basics(void)
{
	pp_des *d = pp_des_new();
	int s0 = pp_des_resource(d, "s0", 0, true);
	int s1 = pp_des_resource(d, "s1", 1, true);
	int link = pp_des_resource(d, "link", 0, false);
	pp_des_tag g = {.cat = 0, .layer = -1, .mb = -1};
	int a = pp_des_task(d, s0, 100, g);
	int b = pp_des_task(d, s0, 50, g);    /* after a: in order */
	int c = pp_des_task(d, s1, 10, g);    /* independent */
	int e = pp_des_task(d, s1, 20, g);    /* waits for b */
	pp_des_dep(d, e, b);
	int l1 = pp_des_task(d, link, 30, g); /* released at 100 (after a) */
	int l2 = pp_des_task(d, link, 30, g); /* released at 10 (after c): runs first */
	pp_des_dep(d, l1, a);
	pp_des_dep(d, l2, c);
	pp_err err = {0};
	CHECK(pp_des_run(d, &err) == 0);
	CHECK(pp_des_start(d, a) == 0 && pp_des_end(d, a) == 100);
	CHECK(pp_des_start(d, b) == 100 && pp_des_end(d, b) == 150);
	CHECK(pp_des_start(d, c) == 0);
	CHECK(pp_des_start(d, e) == 150 && pp_des_end(d, e) == 170);
	CHECK(pp_des_start(d, l2) == 10 && pp_des_end(d, l2) == 40);
	CHECK(pp_des_start(d, l1) == 100 && pp_des_end(d, l1) == 130);
	CHECK(pp_des_makespan(d) == 170);
	/* a cycle is reported, not looped on */
	pp_des_clear(d);
	s0 = pp_des_resource(d, "s0", 0, true);
	a = pp_des_task(d, s0, 1, g);
	b = pp_des_task(d, s0, 1, g);
	pp_des_dep(d, a, b); /* a waits for b, but b is behind a on the stream */
	CHECK(pp_des_run(d, &err) == PP_EINTERNAL);
	pp_des_free(d);
}

/* Equal stages, forward f and backward b per (stage, micro-batch, chunk),
 * zero-cost transfers: the makespan of a schedule. */
static int64_t pipeline_makespan(pp_scenario *s, int64_t f, int64_t bw)
{
	int P = s->parallel.pp, V = s->parallel.vpp, M = (int)s->training.num_microbatches;
	pp_des *d = pp_des_new();
	int *F = malloc(sizeof(int) * (size_t)(P * V * M)), *B = malloc(sizeof(int) * (size_t)(P * V * M));
	pp_unit *order = malloc(sizeof(pp_unit) * (size_t)(2 * M * V));
	pp_pipe pl = pp_pipe_of(s);
	for (int st = 0; st < P; st++) {
		int r = pp_des_resource(d, "stage", st, true);
		int n = pp_schedule_order(&pl, st, order);
		for (int i = 0; i < n; i++) {
			int vs = order[i].chunk * P + st;
			pp_des_tag g = {.cat = 0, .layer = -1, .mb = order[i].mb};
			int t = pp_des_task(d, r, order[i].fwd ? f : bw, g);
			(order[i].fwd ? F : B)[vs * M + order[i].mb] = t;
		}
	}
	for (int vs = 0; vs < P * V; vs++)
		for (int j = 0; j < M; j++) {
			if (vs > 0)
				pp_des_dep(d, F[vs * M + j], F[(vs - 1) * M + j]);
			if (vs < P * V - 1)
				pp_des_dep(d, B[vs * M + j], B[(vs + 1) * M + j]);
			else
				pp_des_dep(d, B[vs * M + j], F[vs * M + j]);
		}
	pp_err err = {0};
	int64_t m = pp_des_run(d, &err) ? -1 : pp_des_makespan(d);
	free(F);
	free(B);
	free(order);
	pp_des_free(d);
	return m;
}

static void schedule_bubbles(void)
{
	pp_scenario s;
	memset(&s, 0, sizeof(s));
	s.model.num_layers = 32;
	const int64_t f = 1000, b = 2000;
	int cases[][3] = {{4, 8, 1}, {4, 16, 1}, {8, 64, 1}, {2, 3, 1}, {4, 8, 2}, {4, 16, 4}, {8, 64, 3}};
	for (size_t i = 0; i < PP_ARRAY_LEN(cases); i++) {
		int p = cases[i][0], m = cases[i][1], v = cases[i][2];
		s.parallel.pp = p;
		s.parallel.vpp = v;
		s.parallel.schedule = v > 1 ? PP_SCHED_INTERLEAVED : PP_SCHED_1F1B;
		s.training.num_microbatches = m;
		int64_t got = pipeline_makespan(&s, f, b);
		double want;
		if (v == 1) /* (m + p - 1)(f + b): bubble (p-1)/(m+p-1) of the step */
			want = (double)(m + p - 1) * (f + b);
		else /* chunk costs are f/v, b/v: m(f+b) + (p-1)(f+b)/v */
			want = -1;
		if (v == 1) {
			CHECK_NEAR((double)got, want, 1e-12);
			double bubble = (got - (double)m * (f + b)) / got;
			CHECK_NEAR(bubble, (double)(p - 1) / (m + p - 1), 1e-12);
		} else {
			/* per-chunk costs f and b here: ideal m v (f+b), bubble (p-1)(f+b) */
			double ideal = (double)m * v * (f + b);
			CHECK_NEAR((double)got, ideal + (p - 1) * (double)(f + b), 1e-12);
		}
		/* GPipe: the same makespan with equal stages */
		if (v == 1) {
			s.parallel.schedule = PP_SCHED_GPIPE;
			CHECK_NEAR((double)pipeline_makespan(&s, f, b), want, 1e-12);
		}
	}
}

static void collectives(void)
{
	pp_scenario s;
	pp_hw hw;
	CHECK(tu_scenario("{\"model\": {\"preset\": \"gpt-1.7b\"}, \"cluster\": {\"gpu\": \"h100-sxm\", "
			  "\"num_gpus\": 16}}", &s, &hw) == 0);
	pp_group one = {1, 1};
	for (int op = 0; op < PP_COLL_COUNT; op++)
		CHECK(pp_coll_time(&hw, (pp_coll)op, 1e9, one) == 0);
	CHECK_NEAR(pp_coll_busbw_factor(PP_COLL_ALL_REDUCE, 8), 2.0 * 7 / 8, 1e-12);
	CHECK_NEAR(pp_coll_busbw_factor(PP_COLL_ALL_GATHER, 8), 7.0 / 8, 1e-12);
	CHECK_NEAR(pp_coll_busbw_factor(PP_COLL_REDUCE_SCATTER, 4), 3.0 / 4, 1e-12);
	CHECK_NEAR(pp_coll_busbw_factor(PP_COLL_BROADCAST, 4), 1.0, 1e-12);
	/* large all_reduce inside a node: time -> 2(n-1)/n S / busbw */
	pp_group node = {8, 8};
	double S = 8.0 * (1 << 30);
	double t = pp_coll_time(&hw, PP_COLL_ALL_REDUCE, S, node);
	double busbw = 2.0 * 7 / 8 * S / t;
	CHECK(busbw > 300e9 && busbw < 500e9); /* NVLink 4: published 370-480 GB/s */
	/* across nodes: one 400G NIC per GPU (48 GB/s) bounds a 1-per-node group */
	pp_group rail = {16, 1};
	t = pp_coll_time(&hw, PP_COLL_ALL_REDUCE, S, rail);
	busbw = 2.0 * 15 / 16 * S / t;
	CHECK(busbw > 40e9 && busbw <= 50e9);
	/* a TP=1 layout has no tensor-parallel communication */
	pp_result r;
	CHECK(tu_step("{\"model\": {\"preset\": \"gpt-1.7b\"}, \"cluster\": {\"gpu\": \"h100-sxm\", "
		      "\"num_gpus\": 8}}", &r) > 0);
	CHECK(r.breakdown.tp_comm_exposed_s == 0);
	pp_scenario_release(&s);
}

static void more_bandwidth_never_slower(void)
{
	const char *fabrics[] = {"eth-10g", "eth-100g", "ib-hdr", "ib-ndr", "ib-xdr"};
	double prev = INFINITY;
	for (size_t i = 0; i < PP_ARRAY_LEN(fabrics); i++) {
		char j[1024];
		snprintf(j, sizeof(j), "{\"model\": {\"preset\": \"gpt-7.5b\"}, \"training\": "
			 "{\"global_batch_size\": 64, \"micro_batch_size\": 1}, \"parallel\": "
			 "{\"tensor_model_parallel_size\": 4, \"pipeline_model_parallel_size\": 2}, "
			 "\"cluster\": {\"gpu\": \"a100-80gb\", \"num_gpus\": 32, \"inter_node\": "
			 "{\"fabric\": \"%s\"}}}", fabrics[i]);
		double t = tu_step(j, NULL);
		CHECK(t > 0 && t <= prev * (1 + 1e-12));
		prev = t;
	}
	prev = INFINITY;
	for (int nics = 1; nics <= 8; nics *= 2) {
		char j[1024];
		snprintf(j, sizeof(j), "{\"model\": {\"preset\": \"gpt-7.5b\"}, \"training\": "
			 "{\"global_batch_size\": 64}, \"parallel\": {\"zero_stage\": 3}, \"cluster\": "
			 "{\"gpu\": \"h100-sxm\", \"num_gpus\": 32, \"inter_node\": {\"fabric\": "
			 "\"roce-400g\", \"nics_per_node\": %d}}}", nics);
		double t = tu_step(j, NULL);
		CHECK(t > 0 && t <= prev * (1 + 1e-12));
		prev = t;
	}
}

static void doubling_work(void)
{
	pp_result r1, r2;
	const char *fmt = "{\"model\": {\"preset\": \"gpt-18.4b\"}, \"training\": "
			  "{\"global_batch_size\": %d}, \"parallel\": {\"tensor_model_parallel_size\": 8,"
			  " \"pipeline_model_parallel_size\": 4}, \"cluster\": {\"gpu\": \"a100-80gb\", "
			  "\"num_gpus\": 64}}";
	char j[1024];
	snprintf(j, sizeof(j), fmt, 16);
	CHECK(tu_step(j, &r1) > 0);
	snprintf(j, sizeof(j), fmt, 32);
	CHECK(tu_step(j, &r2) > 0);
	CHECK(r2.breakdown.compute_s >= 2.0 * r1.breakdown.compute_s * (1 - 1e-9));
	CHECK(r2.step_time_s > r1.step_time_s);
}

static void flops_match_narayanan(void)
{
	const char *rc[] = {"none", "full"};
	for (int k = 0; k < 2; k++) {
		char j[1024];
		snprintf(j, sizeof(j), "{\"model\": {\"preset\": \"gpt-39.1b\"}, \"training\": "
			 "{\"global_batch_size\": 16, \"recompute\": \"%s\", \"use_flash_attn\": %s}, "
			 "\"parallel\": {\"tensor_model_parallel_size\": 8, "
			 "\"pipeline_model_parallel_size\": 2}, \"cluster\": {\"gpu\": \"a100-80gb\", "
			 "\"num_gpus\": 16}}", rc[k], k ? "false" : "true");
		pp_scenario s;
		pp_hw hw;
		pp_result r;
		CHECK(tu_scenario(j, &s, &hw) == 0);
		pp_err err = {0};
		CHECK(pp_predict(&s, &hw, NULL, &r, &err) == 0);
		/* 72 B s l h^2 (1 + s/6h + V/12lh); with full recompute 96 (... V/16lh) */
		double eq3 = pp_flops_narayanan(&s.model, 16, false);
		CHECK_NEAR(r.model_flops_per_step, eq3, 0.002);
		if (k) {
			double eq3r = pp_flops_narayanan(&s.model, 16, true);
			CHECK_NEAR(r.hw_flops_per_step, eq3r, 0.01);
		}
		pp_scenario_release(&s);
	}
}

static void parameter_counts(void)
{
	const pp_model *m = pp_catalog_model(tu_catalog(), "gpt3-175b");
	CHECK(m != NULL);
	if (!m)
		return;
	double h = m->hidden_size;
	/* Narayanan et al. Sec. 5.1: P = 12 l h^2 (1 + 13/12h + (V + s)/12lh) */
	double want = 12.0 * m->num_layers * h * h *
		      (1 + 13.0 / (12 * h) + (m->vocab_size + m->seq_length) / (12.0 * m->num_layers * h));
	CHECK_NEAR(pp_model_params(m), want, 1e-4);
	CHECK_NEAR(pp_model_params(m), 175e9, 0.01);
	const pp_model *l = pp_catalog_model(tu_catalog(), "llama3-70b");
	CHECK(l && fabs(pp_model_params(l) - 70.6e9) / 70.6e9 < 0.01);
	const pp_model *t = pp_catalog_model(tu_catalog(), "gpt-1t");
	CHECK(t && fabs(pp_model_params(t) - 1008e9) / 1008e9 < 0.005);
}

static void activations_korthikanti(void)
{
	/* Korthikanti et al. 2022 Table 2, GPT-3 175B: s=2048, b=1, h=12288,
	 * a=96, t=8, per layer (bytes) */
	const double s = 2048, b = 1, h = 12288, a = 96, t = 8;
	struct {
		const char *rc;
		bool sp;
		double want;
	} cases[] = {
		{"none", false, s * b * h * (10 + 24 / t + 5 * a * s / (h * t))},
		{"none", true, s * b * h / t * (34 + 5 * a * s / h)},
		{"selective", false, s * b * h * (10 + 24 / t)},
		{"selective", true, s * b * h * 34 / t},
		{"full", false, 2 * s * b * h},
		{"full", true, 2 * s * b * h / t},
	};
	for (size_t i = 0; i < PP_ARRAY_LEN(cases); i++) {
		char j[1024];
		snprintf(j, sizeof(j), "{\"model\": {\"preset\": \"gpt3-175b\"}, \"training\": "
			 "{\"global_batch_size\": 64, \"recompute\": \"%s\", \"use_flash_attn\": false, "
			 "\"precision\": \"fp16\"}, \"parallel\": {\"tensor_model_parallel_size\": 8, "
			 "\"pipeline_model_parallel_size\": 8, \"sequence_parallel\": %s}, \"cluster\": "
			 "{\"gpu\": \"a100-80gb\", \"num_gpus\": 64}}", cases[i].rc,
			 cases[i].sp ? "true" : "false");
		pp_scenario sc;
		CHECK(tu_scenario(j, &sc, NULL) == 0);
		CHECK_NEAR(pp_layer_activation_bytes(&sc), cases[i].want, 0.05);
		pp_scenario_release(&sc);
	}
	/* first stage of 1F1B holds L layers' worth (Korthikanti eq. 5: p
	 * micro-batches of L/p layers), interleaved L (1 + (p-1)/(p v)) */
	pp_scenario sc;
	CHECK(tu_scenario("{\"model\": {\"preset\": \"gpt3-175b\"}, \"training\": "
			  "{\"global_batch_size\": 64}, \"parallel\": {\"tensor_model_parallel_size\": 8, "
			  "\"pipeline_model_parallel_size\": 8, \"virtual_pipeline_model_parallel_size\": 3},"
			  " \"cluster\": {\"gpu\": \"a100-80gb\", \"num_gpus\": 64}}", &sc, NULL) == 0);
	double chunks = pp_stage_inflight_chunks(&sc, 0);
	double layers = chunks * 96.0 / (8 * 3);
	CHECK_NEAR(layers, 96.0 * (1 + 7.0 / 24), 1e-9);
	pp_scenario_release(&sc);
}

static void ddp_70b_does_not_fit(void)
{
	pp_result r;
	CHECK(tu_step("{\"model\": {\"preset\": \"llama3-70b\"}, \"training\": "
		      "{\"global_batch_size\": 8}, \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8}}",
		      &r) > 0);
	CHECK(!r.memory.fits);
	/* 2 + 4 + 12 bytes per parameter before any activation */
	CHECK_NEAR(r.memory.weights_bytes + r.memory.grads_bytes + r.memory.optimizer_bytes,
		   70.55e9 * 18.0, 0.01);
	CHECK(r.memory.total_bytes > r.memory.capacity_bytes);
	CHECK_CONTAINS(r.bottleneck, "does not fit");
	char cmd[512], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s predict tests/data/ddp-70b.json", pp_t_bin());
	pp_t_sh(cmd, &out);
	CHECK_CONTAINS(out, "DOES NOT FIT");
	CHECK_CONTAINS(out, "optimizer states");
	free(out);
	/* with tokens to train: no time to train for a layout that cannot
	 * start, only that it cannot */
	char path[512];
	snprintf(path, sizeof(path), "%s/ddp-70b-tokens.json", pp_t_tmpdir());
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("{\"model\": {\"preset\": \"llama3-70b\"}, \"training\": {\"global_batch_size\": 8,"
	      " \"micro_batch_size\": 1, \"train_tokens\": 1e9}, \"parallel\": {\"zero_stage\": 0},"
	      " \"cluster\": {\"gpu\": \"h100-sxm\", \"num_gpus\": 8}}\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s predict %s", pp_t_bin(), path);
	pp_t_sh(cmd, &out);
	CHECK_CONTAINS(out, "DOES NOT FIT");
	CHECK_CONTAINS(out, "Time to train      not runnable: this layout does not fit");
	CHECK(!strstr(out, "steps)"));
	free(out);
}

static void trace_json(void)
{
	pp_scenario s;
	pp_hw hw;
	CHECK(tu_scenario("{\"model\": {\"preset\": \"gpt-1.7b\"}, \"training\": "
			  "{\"global_batch_size\": 8}, \"parallel\": {\"pipeline_model_parallel_size\": 4},"
			  " \"cluster\": {\"gpu\": \"a100-80gb\", \"num_gpus\": 4}}", &s, &hw) == 0);
	pp_trace *tr = pp_trace_new();
	pp_predict_opts o = {tr, NULL};
	pp_result r;
	pp_err err = {0};
	CHECK(pp_predict(&s, &hw, &o, &r, &err) == 0);
	cJSON *j = cJSON_Parse(pp_trace_json(tr));
	CHECK(j != NULL);
	const cJSON *ev = cJSON_GetObjectItemCaseSensitive(j, "traceEvents");
	CHECK(cJSON_IsArray(ev) && cJSON_GetArraySize(ev) > 100);
	/* the 1F1B pattern on stage 0 (p = 4, m = 8): F0 F1 F2 F3 B0 F4 B1 F5 ... */
	const char *want[] = {"F0", "F1", "F2", "F3", "B0", "F4", "B1", "F5", "B2", "F6", "B3", "F7",
			      "B4", "B5", "B6", "B7"};
	size_t k = 0;
	for (const cJSON *e = ev ? ev->child : NULL; e; e = e->next) {
		const cJSON *pid = cJSON_GetObjectItemCaseSensitive(e, "pid");
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
		const cJSON *layer = cJSON_GetObjectItemCaseSensitive(args, "layer");
		if (!cJSON_IsNumber(pid) || pid->valueint != 0 || !cJSON_IsString(name) ||
		    !cJSON_IsNumber(layer) || layer->valueint != 0)
			continue;
		if (k < PP_ARRAY_LEN(want)) {
			char pre[8];
			snprintf(pre, sizeof(pre), "%s ", want[k]);
			if (strncmp(name->valuestring, pre, strlen(pre)))
				pp_t_diag("event %zu: %s, expected %s", k, name->valuestring, want[k]);
			CHECK(!strncmp(name->valuestring, pre, strlen(pre)));
		}
		k++;
	}
	CHECK(k == PP_ARRAY_LEN(want));
	/* one process per stage; the storage the data reads share is not a
	 * fifth stage (issue 17) */
	int stages = 0, storage = 0;
	for (const cJSON *e = ev ? ev->child : NULL; e; e = e->next) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
		if (!cJSON_IsString(name) || strcmp(name->valuestring, "process_name"))
			continue;
		const cJSON *pn = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(e, "args"), "name");
		CHECK(cJSON_IsString(pn));
		if (!cJSON_IsString(pn))
			continue;
		if (!strcmp(pn->valuestring, "storage"))
			storage++;
		else if (!strncmp(pn->valuestring, "stage ", 6) && atoi(pn->valuestring + 6) < 4)
			stages++;
		else
			pp_t_diag("process %s", pn->valuestring), CHECK(0);
	}
	CHECK(stages == 4 && storage <= 1);
	cJSON_Delete(j);
	pp_trace_free(tr);
	pp_scenario_release(&s);
}

/* The interleaved order unit by unit against Megatron-LM's own
 * (megatron/core/pipeline_parallel/schedules.py,
 * forward_backward_pipelining_with_interleaving): num_warmup_microbatches
 * (pp_size - rank - 1) x 2 + (chunks - 1) x pp_size, all of them when
 * microbatches == pp_size or more than the total; then one forward, one
 * backward; get_model_chunk_id (k mod (pp_size chunks)) / pp_size,
 * reversed for a backward; get_microbatch_id_in_model_chunk
 * (k / (pp_size chunks)) pp_size + k mod pp_size. Micro-batch counts
 * pp_size does not divide (from pp_size on): Megatron-Core's
 * get_schedule_table built as its loop builds it, groups of N
 * (pp_pipe_group), warm-up (pp_size - rank - 1) x 2 + (chunks - 1) x N. */
static void interleaved_order_megatron(void)
{
	pp_scenario s;
	memset(&s, 0, sizeof(s));
	s.model.num_layers = 96;
	s.parallel.schedule = PP_SCHED_INTERLEAVED;
	int64_t units = 0, bad = 0;
	for (int P = 2; P <= 9; P++)
		for (int v = 2; v <= 6; v++)
			for (int m = 1; m <= 3 * P; m++) {
				s.parallel.pp = P;
				s.parallel.vpp = v;
				s.training.num_microbatches = m;
				pp_pipe pl = pp_pipe_of(&s);
				int total = m * v;
				if (m % P && m < P)
					continue; /* refused: Megatron-Core needs pp micro-batches */
				/* Megatron-Core's get_schedule_table: groups of N micro-batches,
				 * each chunk by chunk, the last group what is left */
				int N = m % P ? pp_pipe_group(&pl) : P;
				int *tmb = malloc(sizeof(int) * 2 * (size_t)total), *tc = tmb + total, t = 0;
				for (int lo = 0; lo < m; lo += N) {
					int hi = lo + N >= m ? m : lo + N;
					for (int c = 0; c < v; c++)
						for (int b = lo; b < hi; b++, t++) {
							tmb[t] = b;
							tc[t] = c;
						}
				}
				CHECK(t == total);
				for (int r = 0; r < P; r++) {
					int warm = (P - r - 1) * 2 + (v - 1) * N;
					if (m == P || warm > total)
						warm = total;
					int n = pp_schedule_count(&pl), fk = 0, bk = 0;
					CHECK(n == 2 * total);
					pp_unit *order = malloc(sizeof(pp_unit) * (size_t)n);
					CHECK(pp_schedule_order(&pl, r, order) == n);
					for (int i = 0; i < n; i++) {
						bool fwd = i < warm || (fk < total && (i - warm) % 2 == 0);
						int k = fwd ? fk++ : bk++;
						int chunk = m % P ? tc[k] : (k % (P * v)) / P;
						if (!fwd)
							chunk = v - 1 - chunk;
						int mb = m % P ? tmb[k] : (k / (P * v)) * P + k % P;
						pp_unit u = pp_schedule_unit(&pl, r, i);
						bad += u.fwd != fwd || u.chunk != chunk || u.mb != mb;
						/* the in-order reading (the program's cursor) */
						bad += order[i].fwd != fwd || order[i].chunk != chunk ||
						       order[i].mb != mb;
						units++;
					}
					free(order);
				}
				free(tmb);
			}
	pp_t_diag("%lld interleaved units, %lld not Megatron-LM's", (long long)units, (long long)bad);
	CHECK(units > 100000);
	CHECK(bad == 0);
}

/* 1F1B (PipeDream-Flush; Megatron-LM forward_backward_pipelining_without_interleaving:
 * num_warmup_microbatches pp_size - rank - 1, at most the micro-batches,
 * then one forward one backward, then the cool-down backwards) and GPipe
 * (every forward, then every backward from the last micro-batch down),
 * read in order (pp_schedule_order, the program's cursor) and one unit at
 * a time (pp_schedule_unit). */
static void plain_order(void)
{
	pp_scenario s;
	memset(&s, 0, sizeof(s));
	s.model.num_layers = 96;
	int64_t units = 0, bad = 0;
	for (int sch = 0; sch < 3; sch++)
		for (int P = 1; P <= 9; P++)
			for (int m = 1; m <= 3 * P + 2; m++) {
				/* the third: interleaved with one chunk, which is 1F1B */
				s.parallel.schedule = sch == 1 ? PP_SCHED_GPIPE
						      : sch == 0 ? PP_SCHED_1F1B : PP_SCHED_INTERLEAVED;
				s.parallel.pp = P;
				s.parallel.vpp = 1;
				s.training.num_microbatches = m;
				pp_pipe pl = pp_pipe_of(&s);
				int n = pp_schedule_count(&pl);
				CHECK(n == 2 * m);
				pp_unit *order = malloc(sizeof(pp_unit) * (size_t)n);
				for (int r = 0; r < P; r++) {
					int warm = P - r - 1 < m ? P - r - 1 : m, fk = 0, bk = 0;
					CHECK(pp_schedule_order(&pl, r, order) == n);
					for (int i = 0; i < n; i++) {
						bool fwd;
						int mb;
						if (sch == 1) {
							fwd = i < m;
							mb = fwd ? i : 2 * m - 1 - i;
						} else {
							fwd = i < warm || (fk < m && (i - warm) % 2 == 0);
							mb = fwd ? fk++ : bk++;
						}
						pp_unit u = pp_schedule_unit(&pl, r, i);
						bad += u.fwd != fwd || u.chunk != 0 || u.mb != mb;
						bad += order[i].fwd != fwd || order[i].chunk != 0 ||
						       order[i].mb != mb;
						units++;
					}
				}
				free(order);
			}
	pp_t_diag("%lld 1F1B and GPipe units, %lld not the schedule's", (long long)units,
		  (long long)bad);
	CHECK(units > 5000);
	CHECK(bad == 0);
}

int main(void)
{
	RUN(des_basics);
	RUN(schedule_bubbles);
	RUN(interleaved_order_megatron);
	RUN(plain_order);
	RUN(collectives);
	RUN(more_bandwidth_never_slower);
	RUN(doubling_work);
	RUN(flops_match_narayanan);
	RUN(parameter_counts);
	RUN(activations_korthikanti);
	RUN(ddp_70b_does_not_fit);
	RUN(trace_json);
	return pp_t_done("test_engine");
}
