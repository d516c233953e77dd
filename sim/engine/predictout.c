/* predictout.c - see predictout.h. */
#include "engine/predictout.h"
#include "core/fmt.h"
#include "core/jsonout.h"
#include "core/util.h"
#include "core/warn.h"
#include "engine/breakdown.h"
#include "engine/collmodel.h"
#include "engine/memory.h"
#include "engine/workload.h"
#include "input/plausible.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* engine times and sizes: nine significant digits; ratios six */
#define SIG 9
#define SIG_RATIO 6

/* "fit all_reduce intra-node n=2, 12.0 MiB - 768.0 MiB: 23.7 us + bytes x
 * factor / 297.2 GB/s" or "catalog (no fit for ...)". */
static void model_text(const pp_coll_use *u, char *buf, size_t n)
{
	const char *scope = u->scope == PP_SCOPE_INTER ? "across nodes" : "intra-node";
	if (!u->fit) {
		snprintf(buf, n, "catalog (the profile has no %s fit %s over %d ranks)", u->op, scope,
			 u->nranks);
		return;
	}
	char lo[32], hi[32];
	const pp_coll_fit *f = u->fit;
	int k = u->piece;
	pp_fmt_bytes(f->piece[k].lo_bytes, lo, sizeof(lo));
	if (k == f->npieces - 1)
		snprintf(hi, sizeof(hi), "up");
	else
		pp_fmt_bytes(f->piece[k].hi_bytes, hi, sizeof(hi));
	snprintf(buf, n, "fit %s %s n=%d, piece %d of %d (%s - %s): %.1f us + bytes x factor / "
		 "%.1f GB/s", pp_coll_names[f->op], scope, f->nranks, k + 1, f->npieces, lo, hi,
		 f->piece[k].alpha_s * 1e6, f->piece[k].busbw_Bps / 1e9);
}

static void coll_models_json(cJSON *j, const pp_scenario *s, const pp_hw *hw)
{
	int n = 0;
	pp_coll_use *u = pp_coll_uses(s, hw, &n);
	cJSON *a = pp_json_arr(j, "collective_models");
	for (int i = 0; i < n; i++) {
		cJSON *e = pp_json_obj(a, NULL);
		pp_json_str(e, "traffic", u[i].traffic);
		pp_json_str(e, "what", u[i].what);
		pp_json_str(e, "op", u[i].op);
		pp_json_int(e, "nranks", u[i].nranks);
		pp_json_str(e, "scope", u[i].scope == PP_SCOPE_INTER ? "inter" : "intra");
		pp_json_num(e, "min_bytes", u[i].min_bytes, SIG);
		pp_json_num(e, "max_bytes", u[i].max_bytes, SIG);
		pp_json_str(e, "model", u[i].fit ? "fit" : "catalog");
		if (u[i].fit) {
			const pp_coll_fit *f = u[i].fit;
			cJSON *fo = pp_json_obj(e, "fit");
			pp_json_str(fo, "op", pp_coll_names[f->op]);
			pp_json_str(fo, "scope", f->scope == PP_SCOPE_INTER ? "inter" : "intra");
			pp_json_int(fo, "nranks", f->nranks);
			pp_json_int(fo, "piece", u[i].piece);
			pp_json_num(fo, "lo_bytes", f->piece[u[i].piece].lo_bytes, SIG);
			if (u[i].piece < f->npieces - 1)
				pp_json_num(fo, "hi_bytes", f->piece[u[i].piece].hi_bytes, SIG);
			pp_json_num(fo, "alpha_s", f->piece[u[i].piece].alpha_s, SIG);
			pp_json_num(fo, "busbw_Bps", f->piece[u[i].piece].busbw_Bps, SIG);
		}
	}
	free(u);
}

static void coll_models_text(pp_sb *out, const pp_scenario *s, const pp_hw *hw)
{
	int n = 0;
	pp_coll_use *u = pp_coll_uses(s, hw, &n);
	pp_sb_addf(out, "\nCollective models (which served which traffic; calibration profile %s)\n",
	       pp_tty(hw->profile));
	if (!n)
		pp_sb_addf(out, "  no collectives: one GPU\n");
	for (int i = 0; i < n; i++) {
		if (!i || strcmp(u[i].traffic, u[i - 1].traffic) || strcmp(u[i].what, u[i - 1].what))
			pp_sb_addf(out, "  %s: %s\n", u[i].traffic, u[i].what);
		char a[32], b[32], what[96], m[256];
		pp_fmt_bytes(u[i].min_bytes, a, sizeof(a));
		pp_fmt_bytes(u[i].max_bytes, b, sizeof(b));
		snprintf(what, sizeof(what), "%s n=%d %s, %s%s%s", u[i].op, u[i].nranks,
			 u[i].scope == PP_SCOPE_INTER ? "across nodes" : "intra-node", a,
			 u[i].min_bytes == u[i].max_bytes ? "" : " - ",
			 u[i].min_bytes == u[i].max_bytes ? "" : b);
		model_text(&u[i], m, sizeof(m));
		pp_sb_addf(out, "    %-44s %s\n", what, m);
	}
	free(u);
}

/* The software stack's behaviours and where each came from. */
static void stack_json(cJSON *j, const pp_scenario *s)
{
	const pp_stack *st = &s->training.stack;
	cJSON *o = pp_json_obj(j, "framework");
	pp_json_str(o, "id", st->framework);
	pp_json_str(o, "version", st->version);
	cJSON *b = pp_json_obj(o, "origins");
	for (int k = 0; k < PP_BEH_COUNT; k++)
		pp_json_str(b, pp_beh_keys[k], st->origin[k]);
}

void pp_predict_to_json(const pp_scenario *s, const pp_hw *hw, const pp_result *r,
			const pp_band *band, const pp_catalog *cat, char *const *warn, int nwarn,
			pp_sb *out)
{
	const pp_memory *m = &r->memory;
	cJSON *j = pp_json_obj(NULL, NULL);
	pp_json_str(j, "scenario", s->name);
	pp_json_num(j, "step_time_s", r->step_time_s, SIG);
	pp_band_json(band, j);
	pp_json_num(j, "tokens_per_step", r->tokens_per_step, SIG);
	pp_json_num(j, "tokens_per_s", r->tokens_per_s, SIG);
	pp_json_num(j, "mfu", r->mfu, SIG_RATIO);
	pp_json_num(j, "hfu", r->hfu, SIG_RATIO);
	pp_json_num(j, "model_tflops_per_gpu", r->model_tflops_per_gpu, SIG_RATIO);
	pp_json_num(j, "hw_tflops_per_gpu", r->hw_tflops_per_gpu, SIG_RATIO);
	pp_json_str(j, "mfu_convention", PP_MFU_CONVENTION);
	pp_json_num(j, "executed_flops_utilization", r->exec_util, SIG_RATIO);
	pp_json_num(j, "executed_tflops_per_gpu", r->exec_tflops_per_gpu, SIG_RATIO);
	char why[1024];
	pp_json_str(j, "plausibility_warning",
		    pp_catalog_mfu_check(cat, s->cluster.gpu, s->training.precision, r->mfu, why,
					 sizeof(why))
			    ? why
			    : NULL);
	pp_json_num(j, "params", r->params_total, SIG);
	pp_json_num(j, "params_total", r->params_total, SIG);
	pp_json_num(j, "params_active", r->params_active, SIG);
	if (s->training.train_tokens > 0) {
		pp_json_num(j, "time_to_train_s", r->time_to_train_s, SIG);
		pp_json_num(j, "steps_to_train", r->steps_to_train, SIG);
	}
	cJSON *mem = pp_json_obj(j, "memory");
	pp_json_num(mem, "per_gpu_bytes", m->total_bytes, SIG);
	pp_json_num(mem, "capacity_bytes", m->capacity_bytes, SIG);
	pp_json_bool(mem, "fits", m->fits);
	pp_json_int(mem, "worst_stage", m->worst_stage);
	if (m->peak_phase[0])
		pp_json_str(mem, "peak_phase", m->peak_phase);
	cJSON *mb = pp_json_obj(mem, "breakdown");
	pp_json_num(mb, "weights_bytes", m->weights_bytes, SIG);
	pp_json_num(mb, "grads_bytes", m->grads_bytes, SIG);
	pp_json_num(mb, "optimizer_bytes", m->optimizer_bytes, SIG);
	pp_json_num(mb, "activations_bytes", m->activations_bytes, SIG);
	pp_json_num(mb, "temp_bytes", m->temp_bytes, SIG);
	pp_json_num(mb, "fragmentation_bytes", m->fragmentation_bytes, SIG);
	pp_breakdown_json(j, "breakdown", &r->breakdown, SIG);
	/* breakdown.tp_comm_exposed_s holds both; each on its own */
	cJSON *tc = pp_json_obj(j, "tp_cp_comm_exposed");
	pp_json_num(tc, "tensor_parallel_s", r->breakdown.tp_comm_exposed_s - r->cp_comm_exposed_s, SIG);
	pp_json_num(tc, "context_parallel_s", r->cp_comm_exposed_s, SIG);
	pp_json_str(j, "bottleneck", r->bottleneck);
	pp_json_num(j, "checkpoint_bytes", r->checkpoint_bytes, SIG);
	pp_json_num(j, "checkpoint_write_s", r->checkpoint_write_s, SIG);
	pp_json_str(j, "calibration_profile", hw->profile[0] ? hw->profile : NULL);
	if (hw->profile[0])
		coll_models_json(j, s, hw);
	stack_json(j, s);
	cJSON *orig = pp_json_obj(j, "parameter_origins");
	for (int i = 0; i < hw->norigins; i++)
		pp_json_str(orig, hw->origins[i].name, hw->origins[i].origin);
	pp_json_int(j, "simulated_events", r->events);
	cJSON *wa = pp_json_arr(j, "warnings");
	for (int i = 0; i < nwarn; i++)
		pp_json_str(wa, NULL, warn[i]);
	pp_json_print(j, true, out);
	cJSON_Delete(j);
}

void pp_predict_ops_text(const pp_scenario *s, const pp_hw *hw, pp_sb *out)
{
	pp_workload w;
	pp_workload_build(&w, s, hw);
	static const char *const kinds[] = {"gemm", "attn", "mem", "comm"};
	static const char *const parts[] = {"layer", "embed", "head"};
	pp_sb_addf(out, "Ops of one micro-batch on one GPU (per layer for layer ops)\n");
	pp_sb_addf(out, "  %-6s %-9s %-24s %-5s %28s %10s %10s %10s %10s\n", "part", "phase", "op", "kind",
	       "shape (m x n x k, batch)", "GFLOP", "MB", "time us", "exposed");
	double tot[3] = {0, 0, 0};
	for (int i = 0; i < w.nops; i++) {
		const pp_op *o = &w.ops[i];
		char shape[64] = "";
		if (o->kind == PP_OP_GEMM)
			snprintf(shape, sizeof(shape), "%.0fx%.0fx%.0f,%.0f", o->m, o->n, o->k, o->batch);
		else if (o->kind == PP_OP_COMM)
			snprintf(shape, sizeof(shape), "%s n=%d/%d", pp_coll_names[o->coll], o->group.n,
				 o->group.per_node);
		double t = o->kind == PP_OP_COMM ? o->exposed_s : o->time_s;
		if (o->part == PP_PART_LAYER)
			tot[o->phase] += t;
		pp_sb_addf(out, "  %-6s %-9s %-24s %-5s %28s %10.2f %10.2f %10.1f %10.1f\n", parts[o->part],
		       pp_phase_names[o->phase], o->name, kinds[o->kind], shape, o->flops / 1e9,
		       (o->kind == PP_OP_COMM ? o->bytes : o->bytes) / 1e6, o->time_s * 1e6, t * 1e6);
	}
	pp_sb_addf(out, "  layer totals: fwd %.1f us, bwd %.1f us, recompute %.1f us\n", tot[0] * 1e6,
	       tot[1] * 1e6, tot[2] * 1e6);
	pp_workload_release(&w);
}

/* Rows of the breakdown and memory tables: a label column as wide as the
 * breakdown's longest label, the figure, its share of the total. */
static void row(pp_sb *out, const char *what, double s, double total)
{
	char buf[32];
	pp_sb_addf(out, "  %-*s %12s %6.1f%%\n", pp_breakdown_label_width(), what,
	       pp_fmt_duration(s, buf, sizeof(buf)), total > 0 ? 100.0 * s / total : 0);
}

static void mrow(pp_sb *out, const char *what, double bytes, double total)
{
	char buf[32];
	pp_sb_addf(out, "  %-*s %12s %6.1f%%\n", pp_breakdown_label_width(), what,
	       pp_fmt_bytes(bytes, buf, sizeof(buf)), total > 0 ? 100.0 * bytes / total : 0);
}

void pp_predict_to_text(const pp_scenario *s, const pp_hw *hw, const pp_result *r,
			const pp_band *band, const pp_catalog *cat, char *const *warn, int nwarn,
			pp_sb *out)
{
	const pp_model *m = &s->model;
	const pp_parallel *p = &s->parallel;
	const pp_training *t = &s->training;
	const pp_cluster *c = &s->cluster;
	char b1[32], b2[32], b3[32];
	pp_sb_addf(out, "Scenario   %s\n", s->name);
	pp_sb_addf(out, "Model      %s: %.1fB parameters, %d layers, hidden %d, %d heads (%d KV groups), "
	       "seq %d\n", s->model_origin, r->params_total / 1e9, m->num_layers, m->hidden_size,
	       m->num_attention_heads, m->num_query_groups, m->seq_length);
	if (m->num_experts > 0)
		pp_sb_addf(out, "Experts    %d routed (top %d), %d wide, %s%.1fB active per token; EP %d, expert TP %d, "
		       "%s dispatcher, load imbalance %.2f%s\n", m->num_experts, m->moe_router_topk,
		       m->moe_ffn_hidden_size,
		       m->moe_shared_expert_intermediate_size ? "shared experts, " : "",
		       r->params_active / 1e9, p->ep, pp_parallel_etp(p),
		       pp_moe_dispatcher_names[t->moe_token_dispatcher], t->moe_load_imbalance,
		       t->moe_expert_capacity_factor > 0 ? ", tokens past capacity dropped" : "");
	if (m->linear_attn_interval > 0) {
		int lin = 0;
		for (int i = 0; i < m->num_layers; i++)
			lin += pp_model_layer_linear(m, i);
		pp_sb_addf(out, "Linear     %d Gated DeltaNet layers (%d key / %d value heads of %d / %d, "
		       "conv %d), %d gated-attention layers\n", lin, m->gdn_k_heads, m->gdn_v_heads,
		       m->gdn_k_dim, m->gdn_v_dim, m->gdn_conv, m->num_layers - lin);
	}
	char sched[64];
	pp_parallel_schedule_text(p, sched, sizeof(sched));
	/* the memory measures beside the recompute mode (DeepSeek-V3's) */
	char rcm[96] = "";
	for (int i = 1; i < PP_RCM_COUNT; i++)
		if (t->recompute_modules & (1u << i))
			snprintf(rcm + strlen(rcm), sizeof(rcm) - strlen(rcm), " + %s",
				 pp_recompute_module_names[i]);
	snprintf(rcm + strlen(rcm), sizeof(rcm) - strlen(rcm), "%s%s",
		 t->fp8_act_cache ? ", fp8 activation cache" : "",
		 t->exp_avg_bytes == 2 || t->exp_avg_sq_bytes == 2 ? ", bf16 Adam moments" : "");
	pp_sb_addf(out, "Layout     TP %d x PP %d x DP %d x CP %d%s%s%s%s, ZeRO-%d, %s; %lld micro-batches of %lld, "
	       "global batch %lld, %s, recompute %s%s\n", p->tp, p->pp, p->dp, p->cp,
	       sched[0] ? " (" : "", sched, sched[0] ? ")" : "",
	       p->sequence_parallel && p->tp > 1 ? " + SP" : "", p->zero_stage,
	       t->use_flash_attn ? "flash attention" : "unfused attention",
	       (long long)t->num_microbatches, (long long)t->micro_batch_size,
	       (long long)t->global_batch_size, pp_dtype_names[t->precision],
	       pp_recompute_names[t->recompute], rcm);
	if (p->first_stage_layers || p->last_stage_layers)
		pp_sb_addf(out, "Stages     %d layers on the first stage, %d on the last, %d on each of the "
		       "others\n", pp_stage_layers(s, 0) * p->vpp, pp_stage_layers(s, p->pp - 1) * p->vpp,
		       p->pp > 2 ? pp_stage_layers(s, 1) * p->vpp : 0);
	if (t->finetune != PP_FT_FULL)
		pp_sb_addf(out, "Fine-tune  %s: frozen %s base, rank-%d adapters on every block linear "
		       "(%.1fM trained parameters)\n", pp_ft_method_names[t->finetune],
		       t->finetune == PP_FT_QLORA ? "NF4" : pp_dtype_names[t->precision], t->lora_rank,
		       r->params_trainable / 1e6);
	char dom[96];
	pp_cluster_domain_text(c, dom, sizeof(dom));
	pp_sb_addf(out, "Cluster    %d x %s (%d nodes of %d%s), %s inside %s, %d x %s per node%s\n",
	       c->num_gpus, c->gpu->name, pp_cluster_nodes(c), c->gpus_per_node, dom, c->intra->id,
	       dom[0] ? "domains" : "nodes", c->nics_per_node, c->inter->id,
	       c->oversubscription > 1 ? " (oversubscribed)" : "");
	const pp_stack *st = &t->stack;
	pp_sb_addf(out, "Framework  %s (%s): %s attention, %s cross entropy, %s elementwise kernels%s%s\n\n",
	       st->framework, st->version,
	       pp_attn_kernel_names[pp_stack_attention(st, c->gpu->arch)], st->ce.id, st->eltw.id,
	       st->tp_overlap ? ", TP comm overlap" : "",
	       t->recompute == PP_RC_SELECTIVE && st->sac == PP_SAC_TORCHTITAN_OP
		       ? ", op-level selective recompute"
		       : "");
	pp_sb_addf(out, "Step time          %s\n", pp_fmt_duration(r->step_time_s, b1, sizeof(b1)));
	if (band) {
		pp_band_text(band, "Uncertainty        ", out);
		pp_sb_adds(out, "\n");
	}
	pp_sb_addf(out, "Throughput         %.0f tokens/s (%.0f per GPU)\n", r->tokens_per_s,
	       r->tokens_per_s / c->num_gpus);
	pp_sb_addf(out, "MFU / HFU          %.1f%% / %.1f%%  (%.0f model TFLOP/s per GPU, peak %.0f; Megatron's "
	       "count: attention at the full s x s scores)\n",
	       100 * r->mfu, 100 * r->hfu, r->model_tflops_per_gpu,
	       hw->peak_flops[t->precision] / PP_TERA);
	pp_sb_addf(out, "Executed FLOPs     %.1f%% of peak  (%.0f TFLOP/s per GPU as the kernels run them: causal "
	       "attention's masked half skipped, recompute included)\n",
	       100 * r->exec_util, r->exec_tflops_per_gpu);
	char why[1024];
	if (pp_catalog_mfu_check(cat, c->gpu, t->precision, r->mfu, why, sizeof(why)))
		pp_sb_addf(out, "Warning            %s\n", why);
	/* a layout that does not fit never trains: no time for a buyer to
	 * plan on, only the reason */
	if (t->train_tokens > 0 && !r->memory.fits)
		pp_sb_addf(out, "Time to train      not runnable: this layout does not fit in GPU "
		       "memory (Memory per GPU below)\n");
	else if (t->train_tokens > 0)
		pp_sb_addf(out, "Time to train      %s  (%.3g tokens, %.0f steps)\n",
		       pp_fmt_duration(r->time_to_train_s, b1, sizeof(b1)), t->train_tokens,
		       r->steps_to_train);
	pp_sb_addf(out, "Bottleneck         %s\n\n", r->bottleneck);
	pp_sb_addf(out, "Step-time breakdown (critical pipeline stage)\n");
	/* a blocking pipeline's stall is booked with its sends (evgraph.h) */
	bool blocking = p->pp > 1 && !t->overlap_p2p_comm;
	for (int k = 0; k < PP_BD_COUNT; k++) {
		/* a dense model has no expert-parallel row to show */
		if (pp_breakdown_fields[k].offset == offsetof(pp_breakdown, ep_comm_exposed_s) &&
		    s->model.num_experts <= 0)
			continue;
		row(out, pp_breakdown_label(k, blocking), pp_breakdown_get(&r->breakdown, k), r->step_time_s);
		/* with context parallelism, the TP/CP row's two parts */
		if (pp_breakdown_fields[k].offset == offsetof(pp_breakdown, tp_comm_exposed_s) &&
		    p->cp > 1) {
			row(out, "  of which tensor-parallel", r->breakdown.tp_comm_exposed_s - r->cp_comm_exposed_s,
			    r->step_time_s);
			row(out, "  of which context-parallel", r->cp_comm_exposed_s, r->step_time_s);
		}
	}
	const pp_memory *mm = &r->memory;
	pp_sb_addf(out, "\nMemory per GPU (stage %d): %s of %s -> %s\n", mm->worst_stage,
	       pp_fmt_bytes(mm->total_bytes, b2, sizeof(b2)),
	       pp_fmt_bytes(mm->capacity_bytes, b3, sizeof(b3)),
	       mm->fits ? "fits" : "DOES NOT FIT");
	if (mm->peak_phase[0])
		pp_sb_addf(out, "  at %s, the largest phase of the eager step (frameworks.json eager_memory)\n",
		       mm->peak_phase);
	mrow(out, "weights", mm->weights_bytes, mm->total_bytes);
	mrow(out, "gradients", mm->grads_bytes, mm->total_bytes);
	mrow(out, "optimizer states", mm->optimizer_bytes, mm->total_bytes);
	mrow(out, "activations (in flight)", mm->activations_bytes, mm->total_bytes);
	mrow(out, "buffers, workspace, context", mm->temp_bytes, mm->total_bytes);
	mrow(out, "fragmentation margin", mm->fragmentation_bytes, mm->total_bytes);
	if (!mm->fits)
		pp_sb_addf(out, "  -> needs %s more per GPU: shard optimizer states (ZeRO), add pipeline or "
		       "tensor parallelism, or recompute activations\n",
		       pp_fmt_bytes(mm->total_bytes - mm->capacity_bytes, b1, sizeof(b1)));
	pp_sb_addf(out, "\nCheckpoint         %s, written in %s\n",
	       pp_fmt_bytes(r->checkpoint_bytes, b1, sizeof(b1)),
	       pp_fmt_duration(r->checkpoint_write_s, b2, sizeof(b2)));
	pp_sb_addf(out, "\nParameters from%s\n", hw->profile[0] ? " (calibration profile applied)" : "");
	for (int i = 0; i < hw->norigins; i++)
		pp_sb_addf(out, "  %-22s %s\n", hw->origins[i].name, hw->origins[i].origin);
	if (hw->profile[0])
		coll_models_text(out, s, hw);
	pp_sb_addf(out, "\nFramework behaviours from\n");
	for (int k = 0; k < PP_BEH_COUNT; k++)
		pp_sb_addf(out, "  %-22s %s\n", pp_beh_keys[k], st->origin[k]);
	if (nwarn)
		pp_sb_addf(out, "\nWarnings (valid input, probably not what was meant)\n");
	for (int i = 0; i < nwarn; i++)
		pp_sb_addf(out, "  - %s\n", warn[i]);
}
