/*
 * kvpool.h - a replica's paged KV cache: a pool of blocks of block_size
 * tokens with vLLM V1's free queue and prefix cache (vllm/v1/core/
 * block_pool.py, kv_cache_manager.py at 0307428d).
 *
 * Free blocks wait in one queue in eviction order: allocation takes them
 * from the front, and a freed request's blocks join the back tail-first
 * (its own blocks, then its prefix blocks deepest first), so the blocks
 * freed longest ago are evicted first and a prefix's last blocks before
 * its first. Only full blocks are cached. The workload has one shared
 * prefix (vllm bench serve's --random-prefix-len); its full blocks are the
 * only ones a later request can hit, so the pool tracks them by index and
 * every other block as a count. A cached prefix block with no reader stays
 * in the free queue, still a hit until it is evicted; a hit on it takes it
 * out of the queue.
 */
#ifndef PP_KVPOOL_H
#define PP_KVPOOL_H

#include <stdbool.h>
#include <stdint.h>

typedef struct pp_kvpool pp_kvpool;

/* A pool of nblocks; the shared prefix has prefix_blocks full blocks. */
pp_kvpool *pp_kvpool_new(int64_t nblocks, int64_t prefix_blocks);
void pp_kvpool_free(pp_kvpool *p);

int64_t pp_kvpool_free_blocks(const pp_kvpool *p);   /* in the free queue (cached or not) */
int64_t pp_kvpool_total(const pp_kvpool *p);

/* Leading prefix blocks cached now (the hit a new request can get), at
 * most max. */
int64_t pp_kvpool_prefix_hit(const pp_kvpool *p, int64_t max);
/* Of the first n prefix blocks, how many sit unreferenced in the free
 * queue (taking them uses free blocks). */
int64_t pp_kvpool_prefix_idle(const pp_kvpool *p, int64_t n);
/* Whether n blocks are free, noting the ask: pp_kvpool_peak_demand is
 * the most blocks in use plus asked for (by this or pp_kvpool_alloc) at
 * any ask. A run whose peak demand stays within a smaller pool's blocks
 * never had an ask refused there either, so it runs the same on it. */
bool pp_kvpool_fits(pp_kvpool *p, int64_t n);
int64_t pp_kvpool_peak_demand(const pp_kvpool *p);
/* Take n fresh blocks from the front of the queue (evicting cached prefix
 * blocks popped); false, with nothing taken, when fewer are free. */
bool pp_kvpool_alloc(pp_kvpool *p, int64_t n);
/* Reference prefix blocks [0, n) (all cached): out of the queue if idle. */
void pp_kvpool_ref_prefix(pp_kvpool *p, int64_t n);
/* A request's own block now holds prefix block j (it computed it, j not
 * cached): j becomes cached and referenced; the pool's counts stay. */
bool pp_kvpool_adopt_prefix(pp_kvpool *p, int64_t j);
/* Release a request: own blocks to the queue, then prefix blocks
 * [0, nprefix) unreferenced, deepest first. */
void pp_kvpool_release(pp_kvpool *p, int64_t own, int64_t nprefix);
/* Whether prefix block j is cached. */
bool pp_kvpool_prefix_cached(const pp_kvpool *p, int64_t j);

#endif
