/*
 * servespace.h - the serving deployments `podplan serve --search` may run
 * (plan/serveplan.h searches them): the values of each serving key the
 * scenario leaves out, each layout as the scenario file with those keys
 * set, and loading one as `podplan serve` would.
 *
 * The values: TP 1, 2, 4 ... up to the node's GPUs; PP 1, 2, 4 ... up to
 * 16 stages and the layer count; expert parallelism off and on for MoE
 * models (on only with TP > 1: over one rank it is no EP); max_num_seqs
 * 64 ... 1024 and max_num_batched_tokens 2048 ... 16384 in powers of two
 * plus the engine's defaults; a key the scenario gives keeps its value.
 * Layouts are enumerated TP, PP, EP, max_num_seqs, max_num_batched_tokens,
 * the last fastest. Replicas: beyond one node whole nodes (the scenario
 * loader's rule for cluster.num_gpus, pp_layout_check).
 */
#ifndef PP_SERVESPACE_H
#define PP_SERVESPACE_H

#include "calib/hwres.h"
#include "input/catalog.h"
#include "input/hw.h"
#include "input/scenario.h"
#include "serve/servesim.h"
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

/* One replica's layout and scheduler limits (vLLM's engine arguments). */
typedef struct pp_serve_layout {
	int tp, pp;
	bool ep;                      /* enable_expert_parallel (MoE only) */
	int64_t max_num_seqs, max_num_batched_tokens;
	/* disaggregated prefill/decode (serving.disaggregation): tp, pp, ep and
	 * the limits are then both pools', the replicas the decode instances,
	 * and the prefill pool prefill_dp instances of prefill_tp GPUs */
	bool disagg;
	int prefill_tp, prefill_dp;
} pp_serve_layout;

#define PP_SSPACE_MAX_VALUES 16

typedef struct pp_serve_space {
	int tp[PP_SSPACE_MAX_VALUES], pp[PP_SSPACE_MAX_VALUES], ep[2];
	int64_t seqs[PP_SSPACE_MAX_VALUES], toks[PP_SSPACE_MAX_VALUES];
	int ntp, npp, nep, nseqs, ntoks;
	int64_t def_seqs, def_toks;   /* what the scenario runs with */
	bool moe;
	bool dp_fixed;                /* the scenario gives data_parallel_size */
	char words[600];              /* the space in words */
	char fixed[300];              /* the keys the scenario fixed, in words ("" none) */
} pp_serve_space;

/* s's space (a serving scenario), with up to max_replicas replicas. */
void pp_serve_space_of(const pp_scenario *s, int max_replicas, pp_serve_space *sp);

/* The layouts of sp in enumeration order: *out a heap array the caller
 * frees; returns how many. */
int pp_serve_space_layouts(const pp_serve_space *sp, pp_serve_layout **out);

/* How many of l's scheduler limits differ from the scenario's values. */
int pp_serve_layout_changed(const pp_serve_space *sp, const pp_serve_layout *l);

/* Whether gpus GPUs on nodes of gpn load: at most a node, or whole nodes. */
bool pp_serve_whole_nodes(int64_t gpus, int gpn);

/* s's scenario document with layout l at dp replicas: the serving keys
 * set and cluster.num_gpus = tp x pp x dp (what `podplan serve` runs);
 * disaggregated, serving.disaggregation with prefill_dp prefill instances
 * of prefill_tp and dp decode instances of tp, kv_transfer_config.link
 * auto, and cluster.num_gpus = prefill_tp x prefill_dp + tp x dp (PP 1);
 * co-located, the scenario's own disaggregation section is dropped. The
 * caller deletes it. */
cJSON *pp_serve_space_scenario(const pp_scenario *s, const pp_serve_layout *l, int dp);

/* "TP 4 x PP 1, EP, seqs 256, tokens 8192"; disaggregated "prefill 2 x
 * TP 1 + decode TP 2, seqs 256, tokens 8192" */
const char *pp_serve_layout_str(const pp_serve_layout *l, bool moe, char *buf, size_t n);

/* A layout loaded (one replica) and set up for pp_serve_run. */
typedef struct pp_serve_cand {
	pp_scenario s;
	pp_hw hw;
	pp_serve_setup su;
	bool have_s, have_su;
} pp_serve_cand;

enum { PP_CAND_OK, PP_CAND_INVALID, PP_CAND_NO_FIT };

/* Load layout l of s at one replica through the scenario loader and set
 * it up as `podplan serve` does. *verdict: PP_CAND_OK (c->su ready), or
 * PP_CAND_INVALID (the loader refuses it) / PP_CAND_NO_FIT (one request
 * of max_model_len does not fit the KV cache) with why[n] (the message,
 * without the generated text's position); these return 0. Any other
 * failure is returned. Release c in every case. Its hardware is
 * resolved with hwcal (calib/hwres.h; NULL: the catalog's). */
int pp_serve_cand_init(pp_serve_cand *c, const pp_scenario *s, const pp_catalog *cat,
		       const pp_hwcal *hwcal,
		       const pp_serve_layout *l, int *verdict, char *why, size_t n, pp_err *err);
void pp_serve_cand_release(pp_serve_cand *c);

#endif
