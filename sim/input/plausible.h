/*
 * plausible.h - inputs that parse but are probably not what the user meant:
 * a scenario the engine will happily simulate, whose answer would mislead.
 * Each finding is a warning sentence (core/warn.h) naming the JSON path,
 * what was found and what is usual, never an error: the file is valid.
 *
 * The checks (README, "Scenario files"):
 *   - training.train_tokens below one step's tokens (15 meant 15T);
 *   - training.bucket_size below 1M parameters (Megatron counts parameters,
 *     not MB: --ddp-bucket-size, default max(40M, 1M x DP));
 *   - cluster.gpus_per_node above what the SKU's node holds (16 on an 8-GPU
 *     HGX board);
 *   - storage write or read bandwidth per node above what the node's NICs
 *     carry (storage traffic goes over them unless the node has its own);
 *   - costs.work.train_tokens different from training.train_tokens (the
 *     costs price one, time to train uses the other);
 * and, of a prediction, an MFU above the best published for the GPU and
 * precision (plausibility.json, pp_catalog_best_mfu).
 */
#ifndef PP_PLAUSIBLE_H
#define PP_PLAUSIBLE_H

#include "input/scenario.h"

/* Add a sentence to (*items, *n) per finding; returns how many were added. */
int pp_scenario_plausibility(const pp_scenario *s, char ***items, int *n);

/* Whether a prediction's MFU (a fraction, Megatron's count) is above the
 * best published for gpu at precision dt; if so, a sentence saying so,
 * naming the figure and its source, is written to buf. 0 when it is not
 * (or the catalog has no figure for the pair). */
int pp_catalog_mfu_check(const pp_catalog *c, const pp_gpu *gpu, pp_dtype dt, double mfu, char *buf,
			 size_t n);

#endif
