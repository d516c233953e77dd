/* serveout.c - see serveout.h. */
#include "serve/serveout.h"
#include "core/fmt.h"
#include "core/jsonout.h"
#include "serve/requests.h"

#include <math.h>
#include <string.h>

#define SIG 9
#define SIG_RATIO 6

static const char *rate_str(double r, char *buf, size_t n)
{
	if (isinf(r))
		snprintf(buf, n, "inf");
	else
		snprintf(buf, n, "%.4g", r);
	return buf;
}

static void line(pp_sb *o, const char *k, const char *fmt, double v)
{
	char val[64];
	snprintf(val, sizeof(val), fmt, v);
	pp_sb_addf(o, "%-40s %s\n", k, val);
}

static void stat_block(pp_sb *o, const char *title, const char *abbr, const pp_serve_stat *s,
		       double pct)
{
	char k[64];
	int pad = (50 - (int)strlen(title) - 2) / 2;
	pp_sb_addf(o, "%.*s %s %.*s\n", pad, "-------------------------", title,
		   50 - pad - (int)strlen(title) - 2, "-------------------------");
	snprintf(k, sizeof(k), "Mean %s (ms):", abbr);
	line(o, k, "%.2f", s->mean * 1e3);
	snprintf(k, sizeof(k), "Median %s (ms):", abbr);
	line(o, k, "%.2f", s->median * 1e3);
	snprintf(k, sizeof(k), "P99 %s (ms):", abbr);
	line(o, k, "%.2f", s->p99 * 1e3);
	if (pct != 99 && pct != 50) {
		snprintf(k, sizeof(k), "P%g %s (ms):", pct, abbr);
		line(o, k, "%.2f", s->pct * 1e3);
	}
}

/* The pools of a disaggregated deployment: each instance's limits and KV
 * capacity, how busy the pool was, and the KV transfers. */
static void pools_text(const pp_serve_setup *su, const pp_serve_result *r, pp_sb *o)
{
	char b1[32], b2[32], b3[32];
	pp_sb_addf(o, "\nPools (vLLM kv_role kv_producer / kv_consumer)\n");
	pp_sb_addf(o, "  %-8s %9s %3s %12s %22s %15s %10s %11s %12s %11s\n", "pool", "instances", "TP",
		   "max_num_seqs", "max_num_batched_tokens", "KV tokens each", "iterations",
		   "utilisation", "mean tokens", "preemptions");
	for (int k = 0; k < PP_NPOOLS; k++) {
		const pp_serve_pool *pl = &su->pool[k];
		pp_sb_addf(o, "  %-8s %9d %3d %12lld %22lld %15lld %10lld %10.1f%% %12.1f %11lld\n",
			   pp_pool_names[k], pl->sv.dp, pl->sv.tp, (long long)pl->sv.max_num_seqs,
			   (long long)pl->sv.max_num_batched_tokens, (long long)pl->mem.kv_tokens,
			   (long long)r->pool[k].iterations, 100 * r->pool[k].utilisation,
			   r->pool[k].mean_batch_tokens, (long long)r->pool[k].preemptions);
	}
	pp_sb_addf(o, "  KV transfer: %lld requests, %s in all; mean %s each (latency + bytes / "
		   "bandwidth, after the prefill), %.1f%% of TTFT on average; mean wait for decode "
		   "blocks %s\n", (long long)r->kv_transfers, pp_fmt_bytes(r->kv_transfer_bytes, b1,
		   sizeof(b1)), pp_fmt_duration(r->mean_transfer_s, b2, sizeof(b2)),
		   100 * r->transfer_ttft_share, pp_fmt_duration(r->mean_decode_wait_s, b3, sizeof(b3)));
}

void pp_serve_to_text(const pp_serve_setup *su, const pp_serve_result *r,
		      const pp_serve_search *mr, pp_sb *o)
{
	const pp_scenario *s = su->s;
	const pp_servespec *sv = &su->sv;
	const pp_serve_memory *m = &su->mem;
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
	pp_sb_addf(o, "Scenario   %s\n", s->name);
	pp_sb_addf(o, "Model      %s (%s), %d layers, hidden %d, %d heads (%d KV), %s weights\n",
		   s->model.name, s->model_origin, s->model.num_layers, s->model.hidden_size,
		   s->model.num_attention_heads, s->model.num_query_groups,
		   pp_dtype_names[sv->precision]);
	if (su->disagg)
		pp_sb_addf(o, "Serving    %s, disaggregated: %d prefill instance%s x TP %d + %d decode "
			   "instance%s x TP %d, PP %d%s on %d x %s, KV cache over %s (%s)\n",
			   pp_serve_engine_names[sv->engine], su->pool[0].sv.dp,
			   su->pool[0].sv.dp == 1 ? "" : "s", su->pool[0].sv.tp, su->pool[1].sv.dp,
			   su->pool[1].sv.dp == 1 ? "" : "s", su->pool[1].sv.tp, sv->pp,
			   sv->expert_parallel ? " (expert parallel)" : "", s->cluster.num_gpus,
			   s->cluster.gpu->id, su->xfer_same_node ? "the node's fabric" : "the NICs",
			   sv->disagg.kv_connector);
	pp_sb_addf(o, "%s    %s: %d replica%s x TP %d x PP %d%s on %d x %s; max_num_seqs %lld, "
		   "max_num_batched_tokens %lld, max_model_len %lld, block_size %d, chunked prefill "
		   "%s, prefix caching %s, kv_cache_dtype %s, CUDA graphs up to %lld\n",
		   su->disagg ? "  decode" : "Serving", pp_serve_engine_names[sv->engine], sv->dp, sv->dp == 1 ? "" : "s", sv->tp, sv->pp,
		   sv->expert_parallel ? " (expert parallel)" : "", s->cluster.num_gpus,
		   s->cluster.gpu->id, (long long)sv->max_num_seqs,
		   (long long)sv->max_num_batched_tokens, (long long)sv->max_model_len, sv->block_size,
		   sv->chunked_prefill ? "on" : "off", sv->prefix_caching ? "on" : "off",
		   sv->kv_cache_dtype, (long long)sv->cudagraph_max);
	if (sv->trace) { /* its own figures, and the rate its arrivals were replayed at */
		pp_trace_facts f;
		pp_serve_trace_facts(sv, &f);
		char b7[32];
		pp_sb_addf(o, "Workload   %zu requests from a trace: input mean %.1f, median %.0f; output "
			   "mean %.1f, median %.0f tokens; arrivals over %s, mean rate %s req/s; ",
			   f.rows, f.input_mean, f.input_median, f.output_mean, f.output_median,
			   pp_fmt_duration(f.duration_s, b7, sizeof(b7)),
			   rate_str(f.mean_rps, b1, sizeof(b1)));
		if (isinf(r->request_rate))
			pp_sb_addf(o, "replayed all at once\n");
		else if (r->request_rate == 1 || isnan(f.mean_rps))
			pp_sb_addf(o, "replayed at their recorded times\n");
		else
			pp_sb_addf(o, "replayed at %s req/s (inter-arrival times x %.4g)\n",
				   rate_str(r->request_rate * f.mean_rps, b1, sizeof(b1)),
				   1 / r->request_rate);
	} else {
		pp_sb_addf(o, "Workload   %lld prompts, input %s %.0f, output %s %.0f, request rate %s "
			   "(burstiness %g)%s, seed %llu\n", (long long)r->num_prompts,
			   pp_len_kind_names[sv->input.kind], sv->input.mean,
			   pp_len_kind_names[sv->output.kind], sv->output.mean,
			   rate_str(r->request_rate, b1, sizeof(b1)), sv->burstiness,
			   sv->max_concurrency ? ", closed loop" : "", (unsigned long long)r->seed);
	}
	if (sv->max_concurrency)
		pp_sb_addf(o, "           max_concurrency %lld\n", (long long)sv->max_concurrency);
	if (su->disagg)
		pools_text(su, r, o);
	pp_sb_addf(o, "\nKV cache (per %s, as vLLM logs it)\n", su->disagg ? "decode instance" : "replica");
	pp_sb_addf(o, "  # GPU blocks: %lld\n", (long long)m->num_gpu_blocks);
	pp_sb_addf(o, "  GPU KV cache size: %lld tokens\n", (long long)m->kv_tokens);
	pp_sb_addf(o, "  Maximum concurrency for %lld tokens per request: %.2fx\n",
		   (long long)sv->max_model_len, m->max_concurrency);
	pp_sb_addf(o, "  KV bytes per token per GPU: %.0f (%s)\n", m->kv_bytes_per_token,
		   s->model.multi_latent_attention ? "MLA latent, on every TP rank" : "K and V");
	pp_sb_addf(o, "\nMemory per GPU (stage %d): %s of %s the engine may use (%s total)\n",
		   m->stage, pp_fmt_bytes(m->weights_bytes + m->kv_cache_bytes + m->reserve_bytes +
					  (m->activation_bytes > m->sampler_bytes ? m->activation_bytes
										  : m->sampler_bytes),
					  b1, sizeof(b1)),
		   pp_fmt_bytes(m->budget_bytes, b2, sizeof(b2)), pp_fmt_bytes(m->device_bytes, b3,
									 sizeof(b3)));
	pp_sb_addf(o, "  weights                     %12s\n", pp_fmt_bytes(m->weights_bytes, b4, sizeof(b4)));
	pp_sb_addf(o, "  KV cache                    %12s\n", pp_fmt_bytes(m->kv_cache_bytes, b5, sizeof(b5)));
	pp_sb_addf(o, "  activation peak (profile)   %12s\n",
		   pp_fmt_bytes(m->activation_bytes > m->sampler_bytes ? m->activation_bytes
								 : m->sampler_bytes, b6, sizeof(b6)));
	pp_sb_addf(o, "  non-torch (context, NCCL)   %12s\n", pp_fmt_bytes(m->reserve_bytes, b6, sizeof(b6)));
	if (mr && !isnan(mr->rate)) {
		pp_sb_addf(o, "\nMax rate   %s req/s meets the SLO (bisection, %d runs)\n",
			   rate_str(pp_serve_configured_rps(sv, mr->rate), b1, sizeof(b1)), mr->runs);
		if (mr->rate == 0)
			pp_sb_addf(o, "           the SLO fails even at 1%% of the offline throughput; the "
				   "figures below are at that rate\n");
	}
	pp_sb_addf(o, "\n============ Serving Benchmark Result ============\n");
	line(o, "Successful requests:", "%.0f", (double)r->completed);
	if (sv->reject_over_length)
		line(o, "Rejected requests (over max_model_len):", "%.0f", (double)r->rejected);
	double rps = pp_serve_configured_rps(sv, r->request_rate);
	if (isinf(rps) || isnan(rps))
		pp_sb_addf(o, "%-40s %s\n", "Request rate configured (RPS):",
			   isinf(rps) ? "inf" : "as recorded");
	else
		line(o, "Request rate configured (RPS):", "%.2f", rps);
	line(o, "Benchmark duration (s):", "%.2f", r->duration_s);
	line(o, "Total input tokens:", "%.0f", (double)r->total_input_tokens);
	line(o, "Total generated tokens:", "%.0f", (double)r->total_output_tokens);
	line(o, "Request throughput (req/s):", "%.2f", r->request_throughput);
	if (sv->slo_present)
		line(o, "Request goodput (req/s):", "%.2f", r->request_goodput);
	line(o, "Output token throughput (tok/s):", "%.2f", r->output_throughput);
	line(o, "Total Token throughput (tok/s):", "%.2f", r->total_token_throughput);
	line(o, "Max concurrent requests:", "%.0f", (double)r->max_concurrent_requests);
	double pct = sv->slo_present ? sv->slo_percentile : 99;
	stat_block(o, "Time to First Token", "TTFT", &r->ttft, pct);
	stat_block(o, "Time per Output Token (excl. 1st token)", "TPOT", &r->tpot, pct);
	stat_block(o, "Inter-token Latency", "ITL", &r->itl, pct);
	stat_block(o, "End-to-end Latency", "E2EL", &r->e2el, pct);
	pp_sb_addf(o, "==================================================\n");
	if (r->not_sustained)
		pp_sb_addf(o, "\nRate       NOT sustained: %s req/s offered, %s req/s completed over the "
			   "run, and %s req/s with every request sent at once (the deployment's "
			   "capacity on these requests): the run drained a backlog, its latencies are "
			   "not those of the offered rate kept up\n", rate_str(r->offered_rps, b1, sizeof(b1)),
			   rate_str(r->request_throughput, b2, sizeof(b2)),
			   rate_str(r->capacity_rps, b3, sizeof(b3)));
	if (sv->slo_present) {
		pp_sb_addf(o, "\nSLO at p%g: ", sv->slo_percentile);
		const char *sep = "";
		struct {
			const char *n;
			double bound, got;
		} b[] = {{"TTFT", sv->slo_ttft_s, r->ttft.pct}, {"TPOT", sv->slo_tpot_s, r->tpot.pct},
			 {"ITL", sv->slo_itl_s, r->itl.pct}, {"E2EL", sv->slo_e2el_s, r->e2el.pct}};
		for (size_t i = 0; i < 4; i++)
			if (b[i].bound > 0) {
				pp_sb_addf(o, "%s%s %.1f ms <= %.1f ms %s", sep, b[i].n, b[i].got * 1e3,
					   b[i].bound * 1e3, b[i].got <= b[i].bound ? "yes" : "NO");
				sep = "; ";
			}
		pp_sb_addf(o, " -> %s\n", r->not_sustained ? "not judged (the rate was not sustained)"
					   : r->slo_met ? "holds" : "does NOT hold");
	}
	double it = r->iterations ? (double)r->iterations : 1;
	pp_sb_addf(o, "\nEngine     %lld iterations (%.0f%% as CUDA graphs), mean %.0f tokens and %.0f "
		   "running requests an iteration, %lld preemptions, %lld prefix-cache hit tokens\n",
		   (long long)r->iterations, 100.0 * (double)r->graphed_iterations / it,
		   r->mean_batch_tokens, r->mean_running, (long long)r->preemptions,
		   (long long)r->prefix_hit_tokens);
	double busy = r->busy_s > 0 ? r->busy_s : 1;
	pp_sb_addf(o, "           iteration time: compute %.1f%%, TP all-reduce %.1f%%, EP %.1f%%, "
		   "kernel launch %.1f%%, pipeline sends %.1f%%\n", 100 * r->compute_s / busy,
		   100 * r->tp_comm_s / busy, 100 * r->ep_comm_s / busy, 100 * r->launch_s / busy,
		   100 * r->p2p_s / busy);
	pp_sb_addf(o, "           %s\n", sv->defaults_note);
}

static void stat_json(cJSON *j, const char *name, const pp_serve_stat *s, const pp_servespec *sv)
{
	char k[48];
	snprintf(k, sizeof(k), "mean_%s_ms", name);
	pp_json_num(j, k, s->mean * 1e3, SIG);
	snprintf(k, sizeof(k), "median_%s_ms", name);
	pp_json_num(j, k, s->median * 1e3, SIG);
	snprintf(k, sizeof(k), "std_%s_ms", name);
	pp_json_num(j, k, s->std * 1e3, SIG);
	snprintf(k, sizeof(k), "p99_%s_ms", name);
	pp_json_num(j, k, s->p99 * 1e3, SIG);
	if (sv->slo_present && sv->slo_percentile != 99) {
		snprintf(k, sizeof(k), "p%g_%s_ms", sv->slo_percentile, name);
		pp_json_num(j, k, s->pct * 1e3, SIG);
	}
}

void pp_serve_to_json(const pp_serve_setup *su, const pp_serve_result *r,
		      const pp_serve_search *mr, pp_sb *out)
{
	const pp_servespec *sv = &su->sv;
	const pp_serve_memory *m = &su->mem;
	cJSON *j = pp_json_obj(NULL, NULL);
	pp_json_str(j, "scenario", su->s->name);
	pp_json_int(j, "num_prompts", r->num_prompts);
	double rps = pp_serve_configured_rps(sv, r->request_rate);
	if (isinf(rps))
		pp_json_str(j, "request_rate", "inf");
	else if (isnan(rps))
		pp_json_null(j, "request_rate");
	else
		pp_json_num(j, "request_rate", rps, SIG);
	pp_json_num(j, "burstiness", sv->burstiness, SIG_RATIO);
	if (sv->max_concurrency)
		pp_json_int(j, "max_concurrency", sv->max_concurrency);
	else
		pp_json_null(j, "max_concurrency");
	pp_json_int(j, "completed", r->completed);
	if (sv->reject_over_length)
		pp_json_int(j, "rejected", r->rejected);
	pp_json_num(j, "duration", r->duration_s, SIG);
	pp_json_int(j, "total_input_tokens", r->total_input_tokens);
	pp_json_int(j, "total_output_tokens", r->total_output_tokens);
	pp_json_num(j, "request_throughput", r->request_throughput, SIG);
	if (sv->slo_present)
		pp_json_num(j, "request_goodput", r->request_goodput, SIG);
	else
		pp_json_null(j, "request_goodput");
	pp_json_num(j, "output_throughput", r->output_throughput, SIG);
	pp_json_num(j, "total_token_throughput", r->total_token_throughput, SIG);
	pp_json_int(j, "max_concurrent_requests", r->max_concurrent_requests);
	stat_json(j, "ttft", &r->ttft, sv);
	stat_json(j, "tpot", &r->tpot, sv);
	stat_json(j, "itl", &r->itl, sv);
	stat_json(j, "e2el", &r->e2el, sv);
	pp_json_int(j, "seed", (int64_t)r->seed);
	cJSON *e = pp_json_obj(j, "serving");
	pp_json_str(e, "engine", pp_serve_engine_names[sv->engine]);
	pp_json_int(e, "tensor_parallel_size", sv->tp);
	pp_json_int(e, "pipeline_parallel_size", sv->pp);
	pp_json_int(e, "data_parallel_size", sv->dp);
	pp_json_bool(e, "enable_expert_parallel", sv->expert_parallel);
	pp_json_str(e, "precision", pp_dtype_names[sv->precision]);
	pp_json_int(e, "max_num_seqs", sv->max_num_seqs);
	pp_json_int(e, "max_num_batched_tokens", sv->max_num_batched_tokens);
	pp_json_int(e, "max_model_len", sv->max_model_len);
	pp_json_int(e, "block_size", sv->block_size);
	pp_json_num(e, "gpu_memory_utilization", sv->gpu_memory_utilization, SIG_RATIO);
	pp_json_bool(e, "enable_chunked_prefill", sv->chunked_prefill);
	pp_json_bool(e, "enable_prefix_caching", sv->prefix_caching);
	pp_json_str(e, "kv_cache_dtype", sv->kv_cache_dtype);
	pp_json_int(e, "cuda_graph_max_batch", sv->cudagraph_max);
	pp_json_str(e, "defaults", sv->defaults_note);
	if (su->disagg) {
		cJSON *dg = pp_json_obj(e, "disaggregation");
		for (int q = 0; q < PP_NPOOLS; q++) {
			const pp_serve_pool *pl = &su->pool[q];
			cJSON *po = pp_json_obj(dg, pp_pool_names[q]);
			pp_json_str(po, "kv_role", q == PP_POOL_PREFILL ? "kv_producer" : "kv_consumer");
			pp_json_int(po, "tensor_parallel_size", pl->sv.tp);
			pp_json_int(po, "data_parallel_size", pl->sv.dp);
			pp_json_int(po, "max_num_seqs", pl->sv.max_num_seqs);
			pp_json_int(po, "max_num_batched_tokens", pl->sv.max_num_batched_tokens);
			pp_json_int(po, "num_gpu_blocks", pl->mem.num_gpu_blocks);
			pp_json_int(po, "gpu_kv_cache_tokens", pl->mem.kv_tokens);
			pp_json_num(po, "kv_bytes_per_token_per_gpu", pl->mem.kv_bytes_per_token, SIG);
			pp_json_int(po, "iterations", r->pool[q].iterations);
			pp_json_num(po, "utilisation", r->pool[q].utilisation, SIG_RATIO);
			pp_json_num(po, "busy_s", r->pool[q].busy_s, SIG);
			pp_json_num(po, "mean_batch_tokens", r->pool[q].mean_batch_tokens, SIG);
			pp_json_num(po, "mean_running", r->pool[q].mean_running, SIG);
			pp_json_int(po, "preemptions", r->pool[q].preemptions);
		}
		cJSON *x = pp_json_obj(dg, "kv_transfer");
		pp_json_str(x, "kv_connector", sv->disagg.kv_connector);
		pp_json_str(x, "link", su->xfer_same_node ? "intra_node" : "inter_node");
		pp_json_int(x, "transfers", r->kv_transfers);
		pp_json_num(x, "bytes", r->kv_transfer_bytes, SIG);
		pp_json_num(x, "mean_transfer_ms", r->mean_transfer_s * 1e3, SIG);
		pp_json_num(x, "mean_share_of_ttft", r->transfer_ttft_share, SIG_RATIO);
		pp_json_num(x, "mean_decode_wait_ms", r->mean_decode_wait_s * 1e3, SIG);
	}
	cJSON *k = pp_json_obj(j, "kv_cache");
	pp_json_int(k, "num_gpu_blocks", m->num_gpu_blocks);
	pp_json_int(k, "gpu_kv_cache_tokens", m->kv_tokens);
	pp_json_num(k, "max_concurrency_at_max_model_len", m->max_concurrency, SIG_RATIO);
	pp_json_num(k, "kv_bytes_per_token_per_gpu", m->kv_bytes_per_token, SIG);
	cJSON *mem = pp_json_obj(j, "memory");
	pp_json_num(mem, "device_bytes", m->device_bytes, SIG);
	pp_json_num(mem, "budget_bytes", m->budget_bytes, SIG);
	pp_json_num(mem, "weights_bytes", m->weights_bytes, SIG);
	pp_json_num(mem, "kv_cache_bytes", m->kv_cache_bytes, SIG);
	pp_json_num(mem, "activation_peak_bytes",
		    m->activation_bytes > m->sampler_bytes ? m->activation_bytes : m->sampler_bytes, SIG);
	pp_json_num(mem, "non_torch_bytes", m->reserve_bytes, SIG);
	pp_json_int(mem, "stage", m->stage);
	if (sv->slo_present) {
		cJSON *sl = pp_json_obj(j, "slo");
		pp_json_num(sl, "percentile", sv->slo_percentile, SIG_RATIO);
		if (sv->slo_ttft_s)
			pp_json_num(sl, "ttft_ms", sv->slo_ttft_s * 1e3, SIG);
		if (sv->slo_tpot_s)
			pp_json_num(sl, "tpot_ms", sv->slo_tpot_s * 1e3, SIG);
		if (sv->slo_itl_s)
			pp_json_num(sl, "itl_ms", sv->slo_itl_s * 1e3, SIG);
		if (sv->slo_e2el_s)
			pp_json_num(sl, "e2el_ms", sv->slo_e2el_s * 1e3, SIG);
		pp_json_bool(sl, "met", r->slo_met);
		if (r->not_sustained)
			pp_json_str(sl, "verdict", "not sustained");
	}
	if (r->not_sustained) {
		cJSON *x = pp_json_obj(j, "rate");
		pp_json_bool(x, "sustained", false);
		pp_json_num(x, "offered_rps", r->offered_rps, SIG);
		pp_json_num(x, "achieved_rps", r->request_throughput, SIG);
		pp_json_num(x, "capacity_rps", r->capacity_rps, SIG);
	}
	if (mr && !isnan(mr->rate)) {
		cJSON *x = pp_json_obj(j, "max_rate");
		double mrps = pp_serve_configured_rps(sv, mr->rate);
		if (isinf(mrps))
			pp_json_str(x, "request_rate", "inf");
		else
			pp_json_num(x, "request_rate", mrps, SIG);
		pp_json_int(x, "runs", mr->runs);
	}
	cJSON *g = pp_json_obj(j, "engine");
	pp_json_int(g, "iterations", r->iterations);
	pp_json_int(g, "graphed_iterations", r->graphed_iterations);
	pp_json_int(g, "preemptions", r->preemptions);
	pp_json_int(g, "prefix_hit_tokens", r->prefix_hit_tokens);
	pp_json_num(g, "mean_batch_tokens", r->mean_batch_tokens, SIG);
	pp_json_num(g, "mean_running", r->mean_running, SIG);
	pp_json_num(g, "busy_s", r->busy_s, SIG);
	pp_json_num(g, "compute_s", r->compute_s, SIG);
	pp_json_num(g, "tp_comm_s", r->tp_comm_s, SIG);
	pp_json_num(g, "ep_comm_s", r->ep_comm_s, SIG);
	pp_json_num(g, "launch_s", r->launch_s, SIG);
	pp_json_num(g, "p2p_s", r->p2p_s, SIG);
	pp_json_print(j, true, out);
	cJSON_Delete(j);
}

/* The KV cache's element type as kv_cache_dtype resolves to it. */
static const char *kv_dtype_words(const pp_servespec *sv)
{
	if (sv->kv_bytes == 1)
		return "fp8";
	if (sv->kv_bytes == 2)
		return "bf16";
	if (sv->kv_bytes == 4)
		return "fp32";
	return sv->kv_bytes == 0.5 ? "fp4" : "?";
}

static void len_words(const pp_lendist *L, char *b, size_t n)
{
	switch (L->kind) {
	case PP_LEN_UNIFORM:
		snprintf(b, n, "uniform %.0f..%.0f (mean %.0f, range_ratio %g)",
			 floor(L->mean * (1 - L->range_ratio)), ceil(L->mean * (1 + L->range_ratio)),
			 L->mean, L->range_ratio);
		break;
	case PP_LEN_NORMAL:
	case PP_LEN_LOGNORMAL:
		snprintf(b, n, "%s mean %.0f, stddev %.0f", pp_len_kind_names[L->kind], L->mean,
			 L->stddev);
		break;
	default:
		snprintf(b, n, "%.0f", L->mean);
		break;
	}
}

void pp_serve_describe(const pp_scenario *s, pp_serve_desc *d)
{
	memset(d, 0, sizeof(*d));
	const pp_servespec *sv = &s->serve;
	if (!sv->present)
		return;
	char pre[200] = "";
	if (sv->disagg.present) {
		const pp_serve_pool_spec *a = &sv->disagg.pool[PP_POOL_PREFILL],
					 *b = &sv->disagg.pool[PP_POOL_DECODE];
		snprintf(pre, sizeof(pre), "disaggregated: %d prefill instance%s x TP %d + %d decode "
			 "instance%s x TP %d, KV cache sent by %s, ", a->dp, a->dp == 1 ? "" : "s", a->tp,
			 b->dp, b->dp == 1 ? "" : "s", b->tp,
			 sv->disagg.kv_connector[0] ? sv->disagg.kv_connector : "the connector");
	}
	int gpus = sv->disagg.present ? sv->disagg.pool[PP_POOL_PREFILL].dp *
						sv->disagg.pool[PP_POOL_PREFILL].tp * sv->pp +
					sv->disagg.pool[PP_POOL_DECODE].dp *
						sv->disagg.pool[PP_POOL_DECODE].tp * sv->pp
				      : sv->tp * sv->pp * sv->dp;
	char lay[160];
	if (sv->disagg.present)
		snprintf(lay, sizeof(lay), "PP %d", sv->pp);
	else
		snprintf(lay, sizeof(lay), "TP %d x PP %d x DP %d (replica%s)", sv->tp, sv->pp, sv->dp,
			 sv->dp == 1 ? "" : "s");
	snprintf(d->deployment, sizeof(d->deployment), "%s, %s%s, %d GPUs of %d x %s, expert "
		 "parallel %s, %s weights and GEMMs, KV cache %s (kv_cache_dtype %s)",
		 pp_serve_engine_names[sv->engine], pre, lay, gpus, s->cluster.num_gpus,
		 s->cluster.gpu->id, sv->expert_parallel ? "on" : "off",
		 pp_dtype_names[sv->precision], kv_dtype_words(sv), sv->kv_cache_dtype);
	char seqs[48];
	if (sv->seqs_from_kv)
		snprintf(seqs, sizeof(seqs), "from the KV cache's size");
	else
		snprintf(seqs, sizeof(seqs), "%lld", (long long)sv->max_num_seqs);
	char util[48];
	if (sv->gpu_memory_utilization > 0)
		snprintf(util, sizeof(util), "%g", sv->gpu_memory_utilization);
	else
		snprintf(util, sizeof(util), "derived by the engine");
	snprintf(d->scheduler, sizeof(d->scheduler), "max_num_seqs %s, max_num_batched_tokens %lld, "
		 "max_model_len %lld, block_size %d, chunked prefill %s, prefix caching %s, "
		 "gpu_memory_utilization %s, CUDA graphs up to batch %lld%s", seqs,
		 (long long)sv->max_num_batched_tokens, (long long)sv->max_model_len, sv->block_size,
		 sv->chunked_prefill ? "on" : "off", sv->prefix_caching ? "on" : "off", util,
		 (long long)sv->cudagraph_max,
		 sv->enforce_eager ? " (enforce_eager: none)" : "");
	char rate[48], b1[32], cap[48] = "", pfx[96] = "", over[64] = "";
	if (sv->max_concurrency)
		snprintf(cap, sizeof(cap), ", max_concurrency %lld", (long long)sv->max_concurrency);
	if (sv->reject_over_length)
		snprintf(over, sizeof(over), ", requests over max_model_len rejected");
	if (sv->trace) {
		pp_trace_facts f;
		pp_serve_trace_facts(sv, &f);
		const char *base = strrchr(sv->trace_path, '/');
		snprintf(d->workload, sizeof(d->workload), "trace %s: %zu requests, input mean %.1f "
			 "(median %.0f), output mean %.1f (median %.0f) tokens, arrivals over %s at a mean "
			 "%s req/s, replayed as recorded%s%s, seed %llu", base ? base + 1 : sv->trace_path,
			 f.rows, f.input_mean, f.input_median, f.output_mean, f.output_median,
			 pp_fmt_duration(f.duration_s, b1, sizeof(b1)), rate_str(f.mean_rps, rate,
			 sizeof(rate)), cap, over, (unsigned long long)sv->seed);
	} else {
		char in[96], out[96];
		len_words(&sv->input, in, sizeof(in));
		len_words(&sv->output, out, sizeof(out));
		if (sv->prefix_len > 0)
			snprintf(pfx, sizeof(pfx), ", a shared prefix of %lld tokens on %g of them",
				 (long long)sv->prefix_len, sv->prefix_fraction);
		snprintf(d->workload, sizeof(d->workload), "%lld prompts, input %s, output %s tokens%s, "
			 "%s%s%s%s%s, seed %llu", (long long)sv->num_prompts, in, out, pfx,
			 isinf(sv->request_rate) ? "all sent at once" : "request rate ",
			 isinf(sv->request_rate) ? "" : rate_str(sv->request_rate, rate, sizeof(rate)),
			 isinf(sv->request_rate) ? ""
			 : sv->burstiness == 1 ? " req/s (Poisson)" : " req/s (gamma arrivals)", cap, over,
			 (unsigned long long)sv->seed);
	}
	if (!sv->slo_present) {
		snprintf(d->slo, sizeof(d->slo), "none");
		return;
	}
	size_t k = (size_t)snprintf(d->slo, sizeof(d->slo), "p%g", sv->slo_percentile);
	struct {
		const char *n;
		double v;
	} b[] = {{"TTFT", sv->slo_ttft_s}, {"TPOT", sv->slo_tpot_s}, {"ITL", sv->slo_itl_s},
		 {"E2EL", sv->slo_e2el_s}};
	const char *sep = " ";
	for (size_t i = 0; i < 4 && k < sizeof(d->slo); i++)
		if (b[i].v > 0) {
			k += (size_t)snprintf(d->slo + k, sizeof(d->slo) - k, "%s%s <= %g ms", sep, b[i].n,
					      b[i].v * 1e3);
			sep = ", ";
		}
}
