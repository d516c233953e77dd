#include "input/plausible.h"
#include "core/fmt.h"
#include "core/util.h"
#include "core/warn.h"

#include <math.h>
#include <stdio.h>

/* Megatron-LM's --ddp-bucket-size is a parameter count; its default is
 * max(40,000,000, 1,000,000 x DP) (megatron/core/distributed/
 * distributed_data_parallel.py). A bucket of fewer than a million
 * parameters is a unit slip (MB or millions) more often than a choice. */
#define BUCKET_PARAMS_MIN 1e6

static const cJSON *training_key(const pp_scenario *s, const char *key)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(s->doc.root, "training");
	return cJSON_IsObject(t) ? cJSON_GetObjectItemCaseSensitive(t, key) : NULL;
}

int pp_scenario_plausibility(const pp_scenario *s, char ***items, int *n)
{
	int before = *n;
	const pp_training *t = &s->training;
	const pp_cluster *c = &s->cluster;
	char b1[32];

	double step_tokens = (double)t->global_batch_size * s->model.seq_length;
	if (t->train_tokens > 0 && t->train_tokens < step_tokens)
		pp_warn_addf(items, n, "training.train_tokens is %.6g, less than one step's %.6g tokens "
			     "(global batch %lld x sequence %d): train_tokens counts tokens, so 15T is "
			     "15e12",
			     t->train_tokens, step_tokens, (long long)t->global_batch_size,
			     s->model.seq_length);

	const cJSON *bucket = training_key(s, "bucket_size");
	if (cJSON_IsNumber(bucket) && bucket->valuedouble < BUCKET_PARAMS_MIN)
		pp_warn_addf(items, n, "training.bucket_size is %.6g parameters (%s of fp32 gradients): "
			     "Megatron-LM's --ddp-bucket-size counts parameters, default max(40M, 1M x "
			     "DP); a bucket this small splits the gradient reduction into many tiny "
			     "all-reduces, each paying NCCL's latency",
			     bucket->valuedouble, pp_fmt_bytes(bucket->valuedouble * 4, b1, sizeof(b1)));

	if (c->gpu && c->gpu->gpus_per_node > 0 && c->gpus_per_node > c->gpu->gpus_per_node) {
		if (c->gpu->nvlink_domain_size > c->gpu->gpus_per_node)
			pp_warn_addf(items, n, "cluster.gpus_per_node is %d, but one %s node holds %d "
				     "GPUs and its NVLink domain %d (gpus.json): nodes of %d give each "
				     "node the CPUs, NICs and disks of %d; set "
				     "cluster.nvlink_domain_size for the domain instead",
				     c->gpus_per_node, c->gpu->name, c->gpu->gpus_per_node,
				     c->gpu->nvlink_domain_size, c->gpus_per_node, c->gpus_per_node);
		else
			pp_warn_addf(items, n, "cluster.gpus_per_node is %d, but one %s node holds %d "
				     "GPUs (gpus.json): the intra-node fabric is taken to join %d GPUs, "
				     "which no such board does",
				     c->gpus_per_node, c->gpu->name, c->gpu->gpus_per_node,
				     c->gpus_per_node);
	}
	if (c->nics_per_node > c->gpus_per_node)
		pp_warn_addf(items, n, "cluster.inter_node.nics_per_node is %d on nodes of %d GPUs: "
			     "more compute NICs than GPUs (an HGX board or an NVL72 tray has one per "
			     "GPU; a %s node holds %d GPUs)",
			     c->nics_per_node, c->gpus_per_node, c->gpu ? c->gpu->id : "?",
			     c->gpu ? c->gpu->gpus_per_node : 0);

	if (c->inter && c->nics_per_node > 0) {
		double nic = c->nics_per_node * c->inter->port_Bps;
		double most = fmax(c->storage_write_Bps, c->storage_read_Bps);
		if (most > nic)
			pp_warn_addf(items, n, "storage %s bandwidth per node (%.4g GB/s) is more than "
				     "the node's %d x %s NICs carry (%.4g GB/s): storage traffic shares "
				     "those links unless the node has separate storage NICs",
				     c->storage_write_Bps >= c->storage_read_Bps ? "write" : "read",
				     most / 1e9, c->nics_per_node, c->inter->id, nic / 1e9);
	}

	const pp_costspec *cs = &s->costs;
	if (cs->present && cs->work == PP_WORK_RUN && isfinite(cs->train_tokens) &&
	    t->train_tokens > 0 && fabs(cs->train_tokens - t->train_tokens) > 1e-9 * t->train_tokens)
		pp_warn_addf(items, n, "costs.work.train_tokens (%.6g) differs from "
			     "training.train_tokens (%.6g): the costs price %.6g tokens, while predict's "
			     "time to train counts %.6g",
			     cs->train_tokens, t->train_tokens, cs->train_tokens, t->train_tokens);
	return *n - before;
}

int pp_catalog_mfu_check(const pp_catalog *c, const pp_gpu *gpu, pp_dtype dt, double mfu, char *buf,
			 size_t n)
{
	const pp_best_mfu *b = gpu ? pp_catalog_best_mfu(c, gpu->id, dt) : NULL;
	if (!b || !(mfu > b->mfu))
		return 0;
	snprintf(buf, n, "predicted MFU %.1f%% is above the best published for %s at %s, %.1f%% "
		 "(plausibility.json, %s: %s); no run has shown it, check the inputs before relying "
		 "on it", 100.0 * mfu, gpu->name, pp_dtype_names[dt], 100.0 * b->mfu, b->prov.source,
		 b->what);
	return 1;
}
