/* space.c - see space.h. */
#include "plan/space.h"
#include "core/jsonout.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

#define MAX_VALS 2048          /* divisors: at most 1,344 below 1e9 */
#define MAX_CANDIDATES 50000000 /* ~2 GB of layouts: ask for fixed keys beyond */

/* ---- the space ---- */

typedef struct vals {
	int64_t v[MAX_VALS];
	int n;
} vals;

static void vadd(vals *s, int64_t x)
{
	for (int i = 0; i < s->n; i++)
		if (s->v[i] == x)
			return;
	if (s->n < MAX_VALS)
		s->v[s->n++] = x;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Divisors of n in ascending order (at most MAX_VALS). */
static void divisors(int64_t n, vals *out)
{
	out->n = 0;
	vals hi = {.n = 0};
	for (int64_t d = 1; d * d <= n; d++) {
		if (n % d)
			continue;
		vadd(out, d);
		if (d != n / d)
			vadd(&hi, n / d);
	}
	for (int i = hi.n - 1; i >= 0; i--)
		vadd(out, hi.v[i]);
}

static void describe_vals(pp_sb *sb, const char *name, vals *s, bool fixed)
{
	qsort(s->v, (size_t)s->n, sizeof(int64_t), cmp_i64);
	pp_sb_addf(sb, "%s%s ", sb->len ? ", " : "", name);
	if (s->n == 1) {
		pp_sb_addf(sb, "%lld%s", (long long)s->v[0], fixed ? " (given)" : "");
		return;
	}
	pp_sb_adds(sb, "{");
	for (int i = 0; i < s->n; i++) {
		if (s->n > 12 && i == 6) {
			pp_sb_addf(sb, ",...(%d more)...", s->n - 9);
			i = s->n - 3;
		}
		pp_sb_addf(sb, "%s%lld", i ? "," : "", (long long)s->v[i]);
	}
	pp_sb_adds(sb, "}");
}

/* The enumeration: each valid layout goes to emit(ctx, layout, its
 * index in enumeration order) as it is found, none is kept. */
typedef struct gen {
	pp_space_emit_fn emit;
	void *ctx;
	size_t n;
	vals tp, pp, dp, cp, vpp, mbs, zero, sp, rc, sched;
	bool overflow;
} gen;

static void push(gen *g, const pp_layout *l)
{
	if (g->n == MAX_CANDIDATES) {
		g->overflow = true;
		return;
	}
	uint32_t idx = (uint32_t)g->n++;
	g->emit(g->ctx, l, idx);
	vadd(&g->tp, l->tp);
	vadd(&g->pp, l->pp);
	vadd(&g->dp, l->dp);
	vadd(&g->cp, l->cp);
	vadd(&g->vpp, l->vpp);
	vadd(&g->mbs, l->micro_batch_size);
	vadd(&g->zero, l->zero_stage);
	vadd(&g->sp, l->sp);
	vadd(&g->rc, l->recompute);
	if (l->pp > 1)
		vadd(&g->sched, l->schedule);
}

/* The recompute modes to search: the given one, else none, selective
 * (not with flash attention, where it keeps what none keeps - Megatron-LM
 * 2022's core recompute has nothing to redo, Megatron-Core's redoes the
 * kernel for no memory - unless the stack's selective is TorchTitan's op
 * policy, which keeps less) and full. */
static int recompute_options(const pp_scenario *s, pp_recompute rcs[3])
{
	int nrc = 0;
	if (s->given & PP_GIVEN_RECOMPUTE) {
		rcs[nrc++] = s->training.recompute;
	} else {
		rcs[nrc++] = PP_RC_NONE;
		if (!s->training.use_flash_attn || s->training.stack.sac == PP_SAC_TORCHTITAN_OP)
			rcs[nrc++] = PP_RC_SELECTIVE;
		rcs[nrc++] = PP_RC_FULL;
	}
	return nrc;
}

unsigned pp_space_schedules(const pp_scenario *s)
{
	if (s->search.schedules)
		return s->search.schedules;
	unsigned shipped = s->training.stack.schedules;
	return (shipped ? shipped : ~0u) & ~(1u << PP_SCHED_GPIPE);
}

/* The (interleaving depth, schedule) pairs to search for pp stages and mb
 * micro-batches (into vv[], ss[]): the given depth, else 1 and every depth
 * v <= 64 with the layers dividing into pp x v chunks; at depth 1 1F1B,
 * ZB-H1 and ZB-H2, deeper interleaved 1F1B (from pp micro-batches on) and
 * at depth 2 ZB-V, DualPipeV and DualPipe (even layouts only: a V-shaped
 * layout is not read); a given schedule alone. pp_layout_check refuses
 * the rest (ZeRO-3 with the zero-bubble ones, DualPipeV's and DualPipe's
 * 2 pp micro-batches, DualPipe's odd stage or micro-batch counts).
 * The schedules are pp_space_schedules'. */
#define MAX_SCHED_OPTIONS (4 + 3 * 63)
static int schedule_options(const pp_scenario *s, int pp, int64_t mb, int *vv, pp_schedule *ss)
{
	unsigned given = s->given;
	const pp_parallel *par = &s->parallel;
	bool sched = given & PP_GIVEN_SCHEDULE;
	pp_schedule gs = par->schedule;
	bool even = !par->layout_len && !par->first_stage_layers && !par->last_stage_layers;
	unsigned mask = pp_space_schedules(s);
	if (pp < 2)
		mask = 1u << PP_SCHED_1F1B;
	int n = 0;
	for (int v = 1; v <= 64; v++) {
		if (given & PP_GIVEN_VPP ? v != par->vpp
					 : v > 1 && (pp < 2 || s->model.num_layers % (pp * v)))
			continue;
		bool vfit = v == 2 && pp > 1 && even && s->model.num_layers % (2 * pp) == 0;
		if (v == 1) {
			if (sched) {
				if (gs != PP_SCHED_INTERLEAVED && !pp_schedule_two_chunks(gs)) {
					vv[n] = v;
					ss[n++] = gs;
				}
				continue;
			}
			const pp_schedule one[] = {PP_SCHED_1F1B, PP_SCHED_GPIPE, PP_SCHED_ZBH1,
						   PP_SCHED_ZBH2};
			for (size_t k = 0; k < PP_ARRAY_LEN(one); k++)
				if (mask & 1u << one[k]) {
					vv[n] = v;
					ss[n++] = one[k];
				}
			continue;
		}
		if ((sched ? gs == PP_SCHED_INTERLEAVED : (mask >> PP_SCHED_INTERLEAVED) & 1) &&
		    mb >= pp) {
			vv[n] = v;
			ss[n++] = PP_SCHED_INTERLEAVED;
		}
		for (int k = 0; k < 3 && vfit; k++) {
			pp_schedule x = k == 2 ? PP_SCHED_DUALPIPE : k ? PP_SCHED_DUALPIPEV : PP_SCHED_ZBV;
			if (sched ? gs == x : (mask >> x) & 1) {
				vv[n] = v;
				ss[n++] = x;
			}
		}
	}
	return n;
}

/* Every valid layout of TP tp x CP cp x PP pp x DP dp: micro-batch,
 * interleaving, SP, ZeRO stage and recompute, in enumeration order. */
static void add_layouts(gen *g, const pp_scenario *s, int tp, int cp, int pp, int dp,
			const pp_recompute *rcs, int nrc)
{
	const pp_training *tr = &s->training;
	unsigned given = s->given;
	int64_t gbs = tr->global_batch_size;
	pp_training t = *tr;
	/* expert parallelism: the given size, or every divisor of the expert
	 * count whose expert grid (etp x ep) the stage's ranks hold */
	int eps[64], neps = 0;
	int ranks = tp * cp * dp, etp = s->parallel.etp > 0 ? s->parallel.etp : tp;
	if (s->model.num_experts <= 0)
		eps[neps++] = 1;
	else if (given & PP_GIVEN_EP)
		eps[neps++] = s->parallel.ep;
	else
		for (int e = 1; e <= s->model.num_experts && neps < 64; e++)
			if (s->model.num_experts % e == 0 && ranks % (etp * e) == 0)
				eps[neps++] = e;
	vals mbss;
	if (given & PP_GIVEN_MBS) {
		mbss.n = 1;
		mbss.v[0] = tr->micro_batch_size;
	} else {
		divisors(gbs / dp, &mbss);
	}
	for (int d = 0; d < mbss.n; d++) {
		int64_t mbs = mbss.v[d];
		if (gbs % (mbs * dp))
			continue;
		int vv[MAX_SCHED_OPTIONS];
		pp_schedule ss[MAX_SCHED_OPTIONS];
		int nv = schedule_options(s, pp, gbs / (mbs * dp), vv, ss);
		for (int e = 0; e < nv; e++) {
			int nsp = (given & PP_GIVEN_SP) || tp == 1 ? 1 : 2;
			for (int f = 0; f < nsp; f++) {
				bool sp = given & PP_GIVEN_SP ? s->parallel.sequence_parallel
							      : f == 1;
				int z0 = 0, z1 = (int64_t)dp * cp > 1 ? 3 : 0;
				if (given & PP_GIVEN_ZERO)
					z0 = z1 = s->parallel.zero_stage;
				for (int z = z0; z <= z1; z++) {
					for (int r = 0; r < nrc * neps; r++) {
						pp_layout l = {tp,      pp, dp, cp,
							       vv[e],   z,  sp, ss[e],
							       rcs[r / neps], mbs, eps[r % neps]};
						pp_parallel p = s->parallel;
						p.tp = tp;
						p.pp = pp;
						p.dp = dp;
						p.cp = cp;
						p.vpp = l.vpp;
						p.schedule = l.schedule;
						p.ep = l.ep;
						p.zero_stage = z;
						p.sequence_parallel = sp;
						t.micro_batch_size = mbs;
						const char *key;
						if (pp_layout_check(&s->model, &t, &p, &s->cluster,
								    &key, NULL, 0))
							continue;
						push(g, &l);
					}
				}
			}
		}
	}
}

/* The space g enumerated, in words, into space[nspace]. */
static void describe_space(gen *g, const pp_scenario *s, char *space, size_t nspace)
{
	unsigned given = s->given;
	pp_sb sb = {0};
	describe_vals(&sb, "TP", &g->tp, given & PP_GIVEN_TP);
	describe_vals(&sb, "PP", &g->pp, given & PP_GIVEN_PP);
	describe_vals(&sb, "DP", &g->dp, given & PP_GIVEN_DP);
	describe_vals(&sb, "CP", &g->cp, given & PP_GIVEN_CP);
	describe_vals(&sb, "interleave", &g->vpp, given & PP_GIVEN_VPP);
	if (g->sched.n > 1) {
		/* in pp_schedule's order */
		pp_sb_adds(&sb, ", schedule {");
		for (int i = 0, first = 1; i < PP_SCHED_COUNT; i++)
			for (int j = 0; j < g->sched.n; j++)
				if (g->sched.v[j] == i) {
					pp_sb_addf(&sb, "%s%s", first ? "" : ",", pp_schedule_names[i]);
					first = 0;
				}
		pp_sb_adds(&sb, "}");
		if (!s->search.schedules && s->training.stack.schedules)
			pp_sb_addf(&sb, " (those %s ships; search.pipeline_schedules adds others)",
				   s->training.stack.framework);
	}
	describe_vals(&sb, "micro-batch", &g->mbs, given & PP_GIVEN_MBS);
	describe_vals(&sb, "ZeRO", &g->zero, given & PP_GIVEN_ZERO);
	pp_sb_addf(&sb, ", SP %s%s", g->sp.n == 2 ? "{off,on}" : g->sp.v[0] ? "on" : "off",
		   given & PP_GIVEN_SP ? " (given)" : "");
	pp_sb_adds(&sb, ", recompute ");
	pp_sb_adds(&sb, g->rc.n > 1 ? "{" : "");
	for (int i = 0, first = 1; i < 3; i++)
		for (int j = 0; j < g->rc.n; j++)
			if (g->rc.v[j] == i) {
				pp_sb_addf(&sb, "%s%s", first ? "" : ",", pp_recompute_names[i]);
				first = 0;
			}
	pp_sb_adds(&sb, g->rc.n > 1 ? "}" : given & PP_GIVEN_RECOMPUTE ? " (given)" : "");
	snprintf(space, nspace, "%s", sb.buf);
	pp_sb_release(&sb);
}

int pp_space_walk(const pp_scenario *s, pp_space_emit_fn emit, void *ctx, size_t *nout,
		  char *space, size_t nspace, pp_err *err)
{
	const pp_model *m = &s->model;
	unsigned given = s->given;
	int64_t N = s->cluster.num_gpus, gbs = s->training.global_batch_size;
	/* about 200 KB of value lists: fine on the stack */
	gen g;
	memset(&g, 0, sizeof(g));
	g.emit = emit;
	g.ctx = ctx;
	vals tps, cps, pps;
	divisors(N, &tps);
	divisors(N, &cps);
	divisors(N, &pps);
	pp_recompute rcs[3];
	int nrc = recompute_options(s, rcs);
	int64_t near_lo = 0, near_hi = 0; /* the nearest batches some layout takes */
	for (int a = 0; a < tps.n; a++) {
		int tp = (int)tps.v[a];
		if (given & PP_GIVEN_TP ? tp != s->parallel.tp
					: m->num_attention_heads % tp || m->ffn_hidden_size % tp ||
						  (m->num_query_groups % tp && tp % m->num_query_groups))
			continue;
		for (int b = 0; b < cps.n; b++) {
			int cp = (int)cps.v[b];
			if (given & PP_GIVEN_CP ? cp != s->parallel.cp
						: cp > 1 && m->seq_length % (2 * cp))
				continue;
			if (N % ((int64_t)tp * cp))
				continue;
			for (int c = 0; c < pps.n; c++) {
				int pp = (int)pps.v[c];
				if (given & PP_GIVEN_PP ? pp != s->parallel.pp : pp > m->num_layers)
					continue;
				if (N % ((int64_t)tp * cp * pp))
					continue;
				int dp = (int)(N / ((int64_t)tp * cp * pp));
				if ((given & PP_GIVEN_DP) && dp != s->parallel.dp)
					continue;
				if (gbs % dp) {
					/* the batches this data-parallel size would take */
					if (gbs > dp && gbs / dp * dp > near_lo)
						near_lo = gbs / dp * dp;
					if (near_hi == 0 || (gbs / dp + 1) * dp < near_hi)
						near_hi = (gbs / dp + 1) * dp;
					continue;
				}
				add_layouts(&g, s, tp, cp, pp, dp, rcs, nrc);
			}
		}
	}
	if (g.overflow) {
		return pp_errf(err, PP_EINPUT, "%s: the space has more than %d candidate layouts; fix "
			       "some keys in the scenario's parallel section (e.g. "
			       "context_parallel_size or training.micro_batch_size)", s->name,
			       MAX_CANDIDATES);
	}
	if (!g.n) {
		char near[160] = "";
		if (near_hi && near_lo)
			snprintf(near, sizeof(near), "; the nearest global batch sizes a data-parallel "
				 "size divides are %lld and %lld", (long long)near_lo, (long long)near_hi);
		else if (near_hi)
			snprintf(near, sizeof(near), "; the smallest global batch size a data-parallel "
				 "size divides is %lld", (long long)near_hi);
		return pp_errf(err, PP_EINPUT, "%s: no layout of %lld GPUs fits the given keys (global "
			       "batch %lld, %d layers, %d heads%s)%s; check the fixed parallel keys "
			       "and training.global_batch_size", s->name, (long long)N,
			       (long long)gbs, m->num_layers, m->num_attention_heads,
			       given ? ", some parallel keys fixed" : "", near);
	}
	if (space && nspace)
		describe_space(&g, s, space, nspace);
	*nout = g.n;
	return 0;
}

typedef struct list {
	pp_layout *c;
	size_t n, cap;
} list;

static void append(void *ctx, const pp_layout *l, uint32_t idx)
{
	list *a = ctx;
	(void)idx;
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 4096;
		a->c = pp_xrealloc(a->c, sizeof(pp_layout) * a->cap);
	}
	a->c[a->n++] = *l;
}

int pp_space_enumerate(const pp_scenario *s, pp_layout **out, size_t *nout, char *space,
		       size_t nspace, pp_err *err)
{
	list a = {NULL, 0, 0};
	int rc = pp_space_walk(s, append, &a, nout, space, nspace, err);
	if (rc) {
		free(a.c);
		return rc;
	}
	*out = a.c;
	return 0;
}

void pp_layout_apply(pp_scenario *s, const pp_layout *l)
{
	pp_parallel *p = &s->parallel;
	p->tp = l->tp;
	p->pp = l->pp;
	p->dp = l->dp;
	p->cp = l->cp;
	p->ep = l->ep > 0 ? l->ep : 1;
	p->vpp = l->vpp;
	p->zero_stage = l->zero_stage;
	p->sequence_parallel = l->sp;
	p->schedule = l->schedule;
	s->training.micro_batch_size = l->micro_batch_size;
	s->training.recompute = l->recompute;
	pp_layout_derive(&s->training, p);
}

const char *pp_layout_str(const pp_layout *l, char *buf, size_t n)
{
	char sched[32], ep[24] = "";
	if (l->ep > 1)
		snprintf(ep, sizeof(ep), ", EP %d", l->ep);
	if (l->pp == 1)
		snprintf(sched, sizeof(sched), "no pipeline");
	else if (l->vpp > 1 && l->schedule == PP_SCHED_INTERLEAVED)
		snprintf(sched, sizeof(sched), "interleaved x%d", l->vpp);
	else if (l->schedule == PP_SCHED_GPIPE || l->schedule == PP_SCHED_1F1B)
		snprintf(sched, sizeof(sched), "%s", l->schedule == PP_SCHED_GPIPE ? "GPipe" : "1F1B");
	else
		snprintf(sched, sizeof(sched), "%s", pp_schedule_names[l->schedule]);
	snprintf(buf, n, "TP %d x PP %d x DP %d x CP %d, %s, micro-batch %lld, ZeRO-%d%s, "
		 "recompute %s%s", l->tp, l->pp, l->dp, l->cp, sched, (long long)l->micro_batch_size,
		 l->zero_stage, l->sp ? ", SP" : "", pp_recompute_names[l->recompute], ep);
	return buf;
}

const char *pp_layout_short(const pp_layout *l, char *buf, size_t n)
{
	char sched[16];
	if (l->pp == 1)
		snprintf(sched, sizeof(sched), "-");
	else if (l->vpp > 1 && l->schedule == PP_SCHED_INTERLEAVED)
		snprintf(sched, sizeof(sched), "v%d", l->vpp);
	else /* 1f1b, gpipe, zb-h1, zb-h2, zbv, dualpipev, dualpipe */
		snprintf(sched, sizeof(sched), "%s", pp_schedule_names[l->schedule]);
	char ep[16] = "";
	if (l->ep > 1)
		snprintf(ep, sizeof(ep), " EP%d", l->ep);
	snprintf(buf, n, "TP%d PP%d DP%d CP%d%s %s mb%lld ZeRO-%d%s %s", l->tp, l->pp, l->dp, l->cp,
		 ep, sched, (long long)l->micro_batch_size, l->zero_stage, l->sp ? " SP" : "",
		 pp_recompute_names[l->recompute]);
	return buf;
}

void pp_layout_json(cJSON *o, const pp_layout *l, int64_t mbs_count)
{
	pp_json_int(o, "tensor_model_parallel_size", l->tp);
	pp_json_int(o, "pipeline_model_parallel_size", l->pp);
	pp_json_int(o, "data_parallel_size", l->dp);
	pp_json_int(o, "context_parallel_size", l->cp);
	pp_json_int(o, "virtual_pipeline_model_parallel_size", l->vpp);
	if (l->ep > 1)
		pp_json_int(o, "expert_model_parallel_size", l->ep);
	pp_json_bool(o, "sequence_parallel", l->sp);
	pp_json_int(o, "zero_stage", l->zero_stage);
	pp_json_str(o, "pipeline_schedule", pp_schedule_names[l->schedule]);
	pp_json_int(o, "micro_batch_size", l->micro_batch_size);
	pp_json_str(o, "recompute", pp_recompute_names[l->recompute]);
	pp_json_int(o, "num_microbatches", mbs_count);
}
