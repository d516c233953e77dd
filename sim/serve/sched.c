/* sched.c - see sched.h. */
#include "serve/sched.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct pp_sched {
	const pp_servespec *sv;
	pp_sreq *r;
	pp_kvpool *pool;
	int64_t bs;               /* block size */
	int64_t prefix_blocks;    /* full blocks of the shared prefix */
	int *run;                 /* running, in queue order */
	int nrun, caprun;
	int *wait;                /* waiting, FCFS: wait[whead .. whead + nwait) */
	int whead, nwait, capwait;
	int64_t preemptions, hit_tokens;
	int *loads;               /* remote requests admitted to load their KV, not yet taken */
	int nloads, caploads;
	int *tok;                 /* pp_sched_complete's scratch: the requests that sampled */
	int captok;
	double window;            /* the model's sliding window, tokens; 0 none */
};

enum { ALL, PREFILL, DECODE };

pp_sched *pp_sched_new(const pp_servespec *sv, pp_sreq *reqs, int64_t nblocks, double window)
{
	pp_sched *s = pp_xcalloc(1, sizeof(*s));
	s->window = window;
	s->sv = sv;
	s->r = reqs;
	s->bs = sv->block_size;
	s->prefix_blocks = sv->prefix_caching ? sv->prefix_len / s->bs : 0;
	s->pool = pp_kvpool_new(nblocks, s->prefix_blocks);
	return s;
}

void pp_sched_free(pp_sched *s)
{
	if (!s)
		return;
	pp_kvpool_free(s->pool);
	free(s->run);
	free(s->wait);
	free(s->loads);
	free(s->tok);
	free(s);
}

int pp_sched_waiting(const pp_sched *s) { return s->nwait; }
int pp_sched_running(const pp_sched *s) { return s->nrun; }
int64_t pp_sched_preemptions(const pp_sched *s) { return s->preemptions; }
int64_t pp_sched_hit_tokens(const pp_sched *s) { return s->hit_tokens; }
const pp_kvpool *pp_sched_pool(const pp_sched *s) { return s->pool; }

/* ---- queues ---- */

static void wait_push(pp_sched *s, int i, bool front)
{
	if (s->whead + s->nwait == s->capwait || (front && s->whead == 0)) {
		/* re-centre or grow, leaving room in front for preempted requests */
		int cap = s->capwait < 64 ? 64 : s->capwait;
		while (cap < 2 * s->nwait + 64)
			cap *= 2;
		int *w = pp_xcalloc((size_t)cap, sizeof(int));
		int head = (cap - s->nwait) / 2;
		if (s->nwait)
			memcpy(w + head, s->wait + s->whead, sizeof(int) * (size_t)s->nwait);
		free(s->wait);
		s->wait = w;
		s->capwait = cap;
		s->whead = head;
	}
	if (front)
		s->wait[--s->whead] = i;
	else
		s->wait[s->whead + s->nwait] = i;
	s->nwait++;
}

static int wait_pop(pp_sched *s)
{
	int i = s->wait[s->whead++];
	s->nwait--;
	return i;
}

static void run_push(pp_sched *s, int i)
{
	if (s->nrun == s->caprun) {
		s->caprun = s->caprun ? 2 * s->caprun : 64;
		s->run = pp_xrealloc(s->run, sizeof(int) * (size_t)s->caprun);
	}
	s->run[s->nrun++] = i;
}

static void run_remove(pp_sched *s, int k)
{
	memmove(s->run + k, s->run + k + 1, sizeof(int) * (size_t)(s->nrun - k - 1));
	s->nrun--;
}

void pp_sched_add(pp_sched *s, int i)
{
	s->r[i].state = PP_RQ_WAITING;
	wait_push(s, i, false);
}

/* ---- blocks ---- */

static int64_t blocks_for(const pp_sched *s, int64_t tokens)
{
	return (tokens + s->bs - 1) / s->bs;
}

static void release(pp_sched *s, pp_sreq *q)
{
	pp_kvpool_release(s->pool, q->own, q->pblocks);
	q->own = q->pblocks = 0;
}

/* Blocks for tokens more than q holds; false when the pool is short. */
static bool grow(pp_sched *s, pp_sreq *q, int64_t tokens)
{
	int64_t need = blocks_for(s, tokens) - q->own - q->pblocks;
	if (need <= 0)
		return true;
	if (!pp_kvpool_alloc(s->pool, need))
		return false;
	q->own += need;
	return true;
}

/* Preempt running request k: blocks freed, computed tokens dropped, to
 * the front of the waiting queue. */
static void preempt(pp_sched *s, int k)
{
	int i = s->run[k];
	pp_sreq *q = &s->r[i];
	release(s, q);
	q->computed = 0;
	q->preemptions++;
	q->state = PP_RQ_WAITING;
	s->preemptions++;
	run_remove(s, k);
	wait_push(s, i, true);
}

/* The newest running request not in a batch. */
static int victim(const pp_sched *s)
{
	for (int k = s->nrun - 1; k >= 0; k--)
		if (s->r[s->run[k]].sched_n == 0)
			return k;
	return -1;
}

/* ---- the batch's work ---- */

/* Sum over key counts c+1 .. c+n of min(k, w). */
static double capped_pairs(double c, double n, double w)
{
	if (c + n <= w)
		return n * c + n * (n + 1) / 2;
	if (c + 1 >= w)
		return n * w;
	double full = w - c; /* positions whose key count is still below w */
	return full * c + full * (full + 1) / 2 + (n - full) * w;
}

static void add_work(const pp_sreq *q, int64_t n, pp_fwd_batch *b)
{
	double c = (double)q->computed, nn = (double)n;
	double pairs = nn * c + nn * (nn + 1) / 2, kv = c + nn;
	bool decode = q->computed >= q->prompt;
	if (decode) {
		b->decode_tokens += nn;
		b->decode_pairs += pairs;
		b->decode_kv_read += kv;
	} else {
		b->prefill_tokens += nn;
		b->prefill_pairs += pairs;
		b->prefill_kv_read += kv;
	}
	b->kv_write += nn;
	b->sampled += 1; /* vLLM V1 computes the logits of every scheduled request */
	b->seqs++;
}

/* Windowed layers' work, when the model has a window of w tokens. */
static void add_window_work(const pp_sreq *q, int64_t n, double w, pp_fwd_batch *b)
{
	double c = (double)q->computed, nn = (double)n;
	double pairs = capped_pairs(c, nn, w), kv = c + nn < w + nn ? c + nn : w + nn;
	if (q->computed >= q->prompt) {
		b->decode_pairs_w += pairs;
		b->decode_kv_read_w += kv;
	} else {
		b->prefill_pairs_w += pairs;
		b->prefill_kv_read_w += kv;
	}
}

/* ---- one iteration ---- */

typedef struct pass {
	int64_t budget;
	int n, max;
	int *ids;
	pp_fwd_batch *b;
	bool preempted;
	double window;
} pass;

/* q scheduled for n tokens: its work into the pass's batch. */
static inline void add(pp_sreq *q, int64_t n, pass *p)
{
	q->sched_n = n;
	add_work(q, n, p->b);
	if (p->window > 0)
		add_window_work(q, n, p->window, p->b);
}

static void put(pp_sched *s, pass *p, int i, int64_t n)
{
	add(&s->r[i], n, p);
	p->ids[p->n++] = i;
	p->budget -= n;
}

/* The running requests of the filter's kind, in queue order. The pass's
 * budget, count and batch sums live in locals while it runs: the build's
 * -fno-strict-aliasing would otherwise have every store to a request
 * reload them (and the queue) at every request. The sums are added in
 * the same order as before, so the batch is the same to the bit. A
 * request that holds blocks for its tokens already (the common decode)
 * is checked by a product, not blocks_for()'s division; grow() and its
 * pool calls run only when a block is needed. */
static void pass_running(pp_sched *s, pass *p, int filter)
{
	const pp_servespec *sv = s->sv;
	const bool chunked = sv->chunked_prefill;
	const int64_t bs = s->bs;
	const double window = p->window;
	const int max = p->max;
	pp_sreq *r = s->r;
	int *run = s->run, *ids = p->ids;
	int nrun = s->nrun;
	int64_t budget = p->budget;
	int n_put = p->n;
	pp_fwd_batch b = *p->b;
	/* the budget and the count change only where a request is put: they
	 * are tested once here (none left: no request is looked at) and
	 * after each put, not at every request passed over */
	if (budget <= 0 || n_put >= max)
		nrun = 0;
	for (int k = 0; k < nrun; k++) {
		int i = run[k];
		pp_sreq *q = &r[i];
		if (q->sched_n > 0) /* in flight (pipeline parallelism) */
			continue;
		int64_t computed = q->computed, prompt = q->prompt;
		int64_t need = prompt + q->generated - computed;
		bool prefill = computed < prompt;
		if (need <= 0 || (filter == PREFILL && !prefill) || (filter == DECODE && prefill))
			continue;
		int64_t n = need < budget ? need : budget;
		if (!chunked && n < need) /* a prompt runs whole */
			continue;
		if (computed + n > (q->own + q->pblocks) * bs) { /* grow() has blocks to find */
			bool stop = false, skip = false;
			while (!grow(s, q, computed + n)) {
				int v = sv->preemption ? victim(s) : -1;
				if (v < 0) {
					skip = true;
					break;
				}
				bool self = s->run[v] == i;
				preempt(s, v);
				p->preempted = true;
				if (self) {
					stop = true;
					break;
				}
			}
			nrun = s->nrun; /* preempt() removed victims after k */
			if (stop)
				break;
			if (skip)
				continue;
		}
		q->sched_n = n;
		add_work(q, n, &b);
		if (window > 0)
			add_window_work(q, n, window, &b);
		ids[n_put++] = i;
		budget -= n;
		if (budget <= 0 || n_put >= max)
			break;
	}
	*p->b = b;
	p->budget = budget;
	p->n = n_put;
}

/* Waiting requests, FCFS, while they fit. */
static void pass_waiting(pp_sched *s, pass *p)
{
	const pp_servespec *sv = s->sv;
	while (s->nwait > 0 && p->budget > 0 && p->n < p->max && s->nrun < sv->max_num_seqs) {
		int i = s->wait[s->whead];
		pp_sreq *q = &s->r[i];
		if (q->remote) { /* blocks for its prompt; the KV loads asynchronously */
			int64_t nb = blocks_for(s, q->prompt);
			if (!pp_kvpool_alloc(s->pool, nb))
				break;
			q->own = nb;
			q->remote = false;
			q->loading = true;
			wait_pop(s);
			if (s->nloads == s->caploads) {
				s->caploads = s->caploads ? 2 * s->caploads : 64;
				s->loads = pp_xrealloc(s->loads, sizeof(int) * (size_t)s->caploads);
			}
			s->loads[s->nloads++] = i;
			continue;
		}
		int64_t hit = 0, held = q->own; /* held: a loaded remote prompt's blocks */
		if (!q->started && sv->prefix_caching && q->prefix > 0) {
			int64_t cap = q->prefix / s->bs, last = (q->prompt - 1) / s->bs;
			hit = pp_kvpool_prefix_hit(s->pool, cap < last ? cap : last);
		}
		int64_t computed = held ? q->computed : hit * s->bs;
		int64_t need = q->prompt + q->generated - computed;
		if (!sv->chunked_prefill && need > p->budget)
			break;
		int64_t n = need < p->budget ? need : p->budget;
		int64_t target = computed + n;
		if (sv->output_reserve > 0) {
			int64_t res = q->prompt + (int64_t)ceil(sv->output_reserve * (double)q->max_tokens);
			if (res > target)
				target = res;
		}
		int64_t fresh = blocks_for(s, target) - hit - held;
		if (fresh < 0)
			fresh = 0;
		if (!pp_kvpool_fits(s->pool, fresh + pp_kvpool_prefix_idle(s->pool, hit)))
			break;
		pp_kvpool_ref_prefix(s->pool, hit);
		pp_kvpool_alloc(s->pool, fresh);
		q->pblocks = hit;
		q->own = held + fresh;
		q->computed = computed;
		if (!q->started) {
			q->cached = computed;
			s->hit_tokens += computed;
			q->started = true;
		}
		wait_pop(s);
		q->state = PP_RQ_RUNNING;
		run_push(s, i);
		put(s, p, i, n);
	}
}

int pp_sched_next(pp_sched *s, int *ids, int max, pp_fwd_batch *b)
{
	const pp_servespec *sv = s->sv;
	memset(b, 0, sizeof(*b));
	pass p = {sv->max_num_batched_tokens, 0, max, ids, b, false, s->window};
	if (sv->mixed_batches) {
		pass_running(s, &p, ALL);
		if (!p.preempted)
			pass_waiting(s, &p);
		return p.n;
	}
	/* SGLang: a prefill batch when there is prefill work, else a decode
	 * batch of every running request (its token budget is the batch) */
	if (sv->prefill_first) {
		pass_running(s, &p, PREFILL);
		if (!p.preempted)
			pass_waiting(s, &p);
		if (p.n > 0)
			return p.n;
	}
	p.budget = INT64_MAX / 4;
	pass_running(s, &p, DECODE);
	if (p.n == 0 && !sv->prefill_first) {
		p.budget = sv->max_num_batched_tokens;
		pass_running(s, &p, PREFILL);
		if (!p.preempted)
			pass_waiting(s, &p);
	}
	return p.n;
}

int pp_sched_complete(pp_sched *s, const int *ids, int n, double now, int *done,
		      void (*emit)(void *ctx, const int *ids, int n, double now), void *ctx)
{
	if (n > s->captok) {
		s->captok = n > 2 * s->captok ? n : 2 * s->captok;
		s->tok = pp_xrealloc(s->tok, sizeof(int) * (size_t)s->captok);
	}
	pp_sreq *r = s->r;
	int *tok = s->tok;
	const int64_t prefix_blocks = s->prefix_blocks;
	int nd = 0, nt = 0;
	for (int k = 0; k < n; k++) {
		int i = ids[k];
		pp_sreq *q = &r[i];
		if (q->state != PP_RQ_RUNNING || q->sched_n == 0) /* preempted while in flight */
			continue;
		q->computed += q->sched_n;
		q->sched_n = 0;
		/* full blocks of the shared prefix it computed become cached
		 * (none to look at, and no division per token, without one) */
		if (prefix_blocks > 0) {
			int64_t pfull = q->prefix / s->bs;
			if (pfull > prefix_blocks)
				pfull = prefix_blocks;
			while (q->pblocks < pfull && (q->pblocks + 1) * s->bs <= q->computed &&
			       q->own > 0 && pp_kvpool_adopt_prefix(s->pool, q->pblocks)) {
				q->pblocks++;
				q->own--;
			}
		}
		if (q->computed < q->prompt + q->generated)
			continue; /* a prefill chunk: its sampled token is discarded */
		q->generated++;
		tok[nt++] = i;
		if (q->generated < q->output)
			continue;
		if (!q->hold)
			release(s, q);
		q->state = PP_RQ_DONE;
		for (int j = 0; j < s->nrun; j++)
			if (s->run[j] == i) {
				run_remove(s, j);
				break;
			}
		done[nd++] = i;
	}
	if (nt)
		emit(ctx, tok, nt, now);
	return nd;
}

/* ---- disaggregated prefill/decode ---- */

int pp_sched_take_loads(pp_sched *s, int *ids, int max)
{
	int n = s->nloads < max ? s->nloads : max;
	memcpy(ids, s->loads, sizeof(int) * (size_t)n);
	memmove(s->loads, s->loads + n, sizeof(int) * (size_t)(s->nloads - n));
	s->nloads -= n;
	return n;
}

void pp_sched_loaded(pp_sched *s, int i)
{
	pp_sreq *q = &s->r[i];
	q->loading = false;
	q->started = true; /* no prefix-cache lookup: its blocks hold the prompt */
	q->computed = q->prompt > 0 ? q->prompt - 1 : 0;
	wait_push(s, i, true);
}

void pp_sched_free_held(pp_sched *s, int i)
{
	pp_sreq *q = &s->r[i];
	release(s, q);
	q->hold = false;
}
