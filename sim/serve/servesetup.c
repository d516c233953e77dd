/* servesetup.c - see servesim.h: a serving deployment set up for its runs
 * (each instance's layout, forward cost, memory and KV capacity; the
 * pools of a disaggregated one). */
#include "serve/servesim.h"
#include "core/util.h"

#include <stdio.h>
#include <string.h>

/* One instance's layout from sv, its forward cost and its memory, as
 * `podplan serve` sets up a replica; path names the section in messages. */
static int replica_init(const pp_scenario *s, pp_servespec *sv, pp_hw *hw, pp_scenario *r,
			pp_forward **fwd, pp_serve_memory *mem, const char *path, pp_err *err)
{
	*r = *s;
	pp_parallel *p = &r->parallel;
	p->tp = sv->tp;
	p->pp = sv->pp;
	p->dp = p->cp = p->vpp = 1;
	p->sequence_parallel = false;
	p->zero_stage = 0;
	p->first_stage_layers = p->last_stage_layers = 0;
	p->schedule = PP_SCHED_1F1B;
	p->ep = sv->expert_parallel ? sv->tp : 1;
	p->etp = sv->expert_parallel ? 1 : 0;
	pp_training *t = &r->training;
	t->precision = sv->precision;
	t->micro_batch_size = t->global_batch_size = t->num_microbatches = 1;
	t->recompute = PP_RC_NONE;
	t->use_flash_attn = true;
	t->finetune = PP_FT_FULL;
	t->base_weight_bytes = 0;
	r->cluster.num_gpus = sv->tp * sv->pp;
	pp_fwd_opts o = {sv->kv_bytes, sv->launch_eager_s, sv->launch_graph_s, sv->cudagraph_max,
			 sv->sampler_passes, sv->custom_allreduce, sv->ar, 4, sv->ar_intra_node};
	int rc = pp_forward_new(fwd, r, hw, &o, err);
	if (rc)
		return rc;
	pp_serve_memory_of(r, sv, hw, *fwd, mem);
	if (sv->seqs_from_kv) { /* SGLang's max_running_requests */
		double n = (double)mem->kv_tokens / (double)sv->max_model_len * sv->sg_max_running_scale;
		if (n < sv->sg_max_running_floor)
			n = sv->sg_max_running_floor;
		if (n < (double)sv->max_num_seqs)
			sv->max_num_seqs = (int64_t)n;
	}
	if (!mem->fits) {
		double need = (double)sv->max_model_len * mem->kv_bytes_per_token;
		rc = pp_jdoc_errf(&s->doc, err, path, "found room for %lld KV tokens (%.2f GiB of KV "
				  "cache per GPU after %.2f GiB of weights), fewer than max_model_len = %lld "
				  "(%.2f GiB); expected a shorter max_model_len, a higher "
				  "gpu_memory_utilization or more tensor/pipeline parallelism (vLLM refuses "
				  "to start)", (long long)mem->kv_tokens, mem->kv_cache_bytes / PP_GIB,
				  mem->weights_bytes / PP_GIB, (long long)sv->max_model_len,
				  need / PP_GIB);
		pp_forward_free(*fwd);
		*fwd = NULL;
		return rc;
	}
	return 0;
}

int pp_serve_setup_init(pp_serve_setup *su, const pp_scenario *s, const pp_hw *hw, pp_err *err)
{
	memset(su, 0, sizeof(*su));
	su->s = s;
	su->sv = s->serve;
	su->hw = *hw;
	if (!su->sv.disagg.present)
		return replica_init(s, &su->sv, &su->hw, &su->replica, &su->fwd, &su->mem, "serving",
				    err);
	su->disagg = true;
	su->xfer_same_node = su->sv.disagg.link == PP_LINK_INTRA;
	for (int k = 0; k < PP_NPOOLS; k++) {
		pp_serve_pool *pl = &su->pool[k];
		const pp_serve_pool_spec *ps = &su->sv.disagg.pool[k];
		pl->sv = su->sv;
		pl->sv.tp = ps->tp;
		pl->sv.dp = ps->dp;
		pl->sv.max_num_seqs = ps->max_num_seqs;
		pl->sv.max_num_batched_tokens = ps->max_num_batched_tokens;
		pl->sv.cudagraph_max = ps->cudagraph_max;
		pl->sv.seqs_from_kv = su->sv.seqs_from_kv && !(ps->given & PP_SG_SEQS);
		char path[64];
		snprintf(path, sizeof(path), "serving.disaggregation.%s", pp_pool_names[k]);
		int rc = replica_init(s, &pl->sv, &su->hw, &pl->replica, &pl->fwd, &pl->mem, path, err);
		if (rc) {
			pp_serve_setup_release(su);
			return rc;
		}
	}
	/* what single-pool readers see: the decode pool */
	const pp_serve_pool *d = &su->pool[PP_POOL_DECODE];
	su->replica = d->replica;
	su->fwd = d->fwd;
	su->mem = d->mem;
	su->sv.tp = d->sv.tp;
	su->sv.dp = d->sv.dp;
	su->sv.max_num_seqs = d->sv.max_num_seqs;
	su->sv.max_num_batched_tokens = d->sv.max_num_batched_tokens;
	su->sv.cudagraph_max = d->sv.cudagraph_max;
	return 0;
}

void pp_serve_setup_release(pp_serve_setup *su)
{
	if (su->disagg) {
		for (int k = 0; k < PP_NPOOLS; k++) {
			pp_forward_free(su->pool[k].fwd);
			su->pool[k].fwd = NULL;
		}
	} else {
		pp_forward_free(su->fwd);
	}
	su->fwd = NULL;
}
