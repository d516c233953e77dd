/*
 * sched.h - one replica's scheduler: which requests run in the next
 * iteration and how many tokens each, over a paged KV cache (kvpool.h).
 *
 * vLLM V1 (Scheduler.schedule, vllm/v1/core/sched/scheduler.py at 0307428d):
 *  1. one token budget, max_num_batched_tokens, and at most max_num_seqs
 *     running requests;
 *  2. the running requests first, in queue order, decodes and unfinished
 *     prefill chunks alike: each gets what it still needs (a decode 1, a
 *     prompt its remaining tokens) up to the budget left; a chunk only
 *     with chunked prefill (else a prompt runs whole or waits);
 *  3. a request short of blocks preempts the newest running request: its
 *     blocks are freed, its computed tokens dropped (recompute; V1 never
 *     swaps), and it goes back to the front of the waiting queue; if the
 *     request itself is the newest it stops the pass;
 *  4. then, only if nothing was preempted this step, waiting requests in
 *     FCFS order while the budget, max_num_seqs and free blocks allow; a
 *     new request first takes its prefix-cache hit, in full blocks only
 *     and never its last prompt token; the first one that does not fit
 *     stops admission (head of line);
 *  5. a request's blocks cover its computed plus scheduled tokens; none
 *     are held back (no watermark).
 * The other engines differ in the flags of pp_servespec: TensorRT-LLM's
 * GUARANTEED_NO_EVICT reserves the whole max_tokens at admission and
 * never preempts; SGLang runs prefill batches (admissions and unfinished
 * chunks) before decode batches and never mixes them, reserving 0.7 of
 * max_tokens at admission.
 *
 * With pipeline parallelism several batches are in flight (vLLM's batch
 * queue, one per stage); a request in one is not scheduled again until
 * it completes.
 */
#ifndef PP_SCHED_H
#define PP_SCHED_H

#include "engine/forward.h"
#include "input/servespec.h"
#include "serve/kvpool.h"

enum { PP_RQ_PENDING, PP_RQ_WAITING, PP_RQ_RUNNING, PP_RQ_DONE };

/* A request: what the client sends, the engine's state of it, and what
 * the client measures. Times in seconds from the benchmark's start. */
typedef struct pp_sreq {
	double arrival_s;     /* when the client would send it */
	int64_t prompt;       /* prompt tokens, the shared prefix included */
	int64_t output;       /* tokens it generates (ignore_eos) */
	int64_t max_tokens;   /* its max_tokens (what a reservation covers) */
	int64_t prefix;       /* leading prompt tokens shared with other requests; 0 none */
	int replica;
	int state;            /* PP_RQ_* */
	int64_t computed;     /* tokens whose K and V are in the cache */
	int64_t generated;
	int64_t own;          /* blocks held, besides the shared prefix's */
	int64_t pblocks;      /* shared prefix blocks referenced */
	int64_t cached;       /* prefix-cache hit tokens at its first schedule */
	int64_t sched_n;      /* tokens in the batch in flight (0: none) */
	bool started;         /* scheduled once (a later admission is a resume) */
	/* disaggregated prefill/decode (servesim.h) */
	bool remote;          /* decode side: its prompt's KV comes from a prefill instance */
	bool loading;         /* decode side: blocks allocated, the KV in transit */
	bool hold;            /* prefill side: blocks kept when done, until the KV is sent */
	int preemptions;
	double send_s, first_s, last_s;
} pp_sreq;

typedef struct pp_sched pp_sched;

/* A replica's scheduler over reqs (borrowed; indices into it), with
 * nblocks KV blocks, for a model whose windowed layers attend to window
 * tokens (0: none). */
pp_sched *pp_sched_new(const pp_servespec *sv, pp_sreq *reqs, int64_t nblocks, double window);
void pp_sched_free(pp_sched *s);

/* Request i arrives (joins the back of the waiting queue). */
void pp_sched_add(pp_sched *s, int i);
/* Choose the next iteration: its requests (ids[n], their tokens in
 * reqs[].sched_n) and the batch's work for the forward cost. 0 when
 * nothing can run now. */
int pp_sched_next(pp_sched *s, int *ids, int max, pp_fwd_batch *b);
/* The iteration of ids[n] finished at now: computed tokens advance; a
 * request whose computed tokens reach its known tokens samples one (its
 * first, or the next); *done[] gets the requests that finished (returns
 * their count). emit(ctx, tok, ntok, now) is called once, when any
 * sampled, with the requests that did (each one token, in ids' order;
 * tok is the scheduler's, valid during the call): the caller's work per
 * token runs in one loop rather than a call per token. */
int pp_sched_complete(pp_sched *s, const int *ids, int n, double now, int *done,
		      void (*emit)(void *ctx, const int *tok, int ntok, double now), void *ctx);

/* Disaggregated serving, vLLM's KV-connector path (Scheduler.schedule
 * and _update_waiting_for_remote_kv in vllm/v1/core/sched/scheduler.py;
 * NixlConnector): a decode instance admits a waiting remote request
 * (reqs[i].remote) in FCFS order like any other, but only allocates the
 * blocks of its prompt and starts loading its KV (WAITING_FOR_REMOTE_KVS:
 * no token budget, not running, no prefix-cache lookup);
 * pp_sched_take_loads hands out the requests admitted so since the last
 * call (up to max). When the KV has arrived, pp_sched_loaded puts the
 * request back at the front of the waiting queue with every prompt token
 * computed but the last, which its first iteration recomputes to sample
 * the first output token (vLLM sets num_computed_tokens = num_tokens - 1
 * when the loaded blocks cover the whole prompt). A prefill instance
 * runs a request of one output token (the proxy's max_tokens = 1) and,
 * with reqs[i].hold, keeps its blocks when it finishes (the connector's
 * delayed free) until pp_sched_free_held, once the KV has been read. */
int pp_sched_take_loads(pp_sched *s, int *ids, int max);
void pp_sched_loaded(pp_sched *s, int i);
void pp_sched_free_held(pp_sched *s, int i);

/* What the load balancer reads: waiting and running requests. */
int pp_sched_waiting(const pp_sched *s);
int pp_sched_running(const pp_sched *s);
/* Counters over the run. */
int64_t pp_sched_preemptions(const pp_sched *s);
int64_t pp_sched_hit_tokens(const pp_sched *s);
const pp_kvpool *pp_sched_pool(const pp_sched *s);

#endif
