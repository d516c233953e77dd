/* plan.c - see plan.h. */
#include "plan.h"
#include "calib/ncclimport.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_cdtype_names[PP_CDT_COUNT] = {"float", "bfloat16", "half"};

size_t pp_cdtype_bytes(pp_cdtype t)
{
	return t == PP_CDT_FLOAT ? 4 : 2;
}

void pp_cal_opts_defaults(pp_cal_opts *o, bool quick)
{
	memset(o, 0, sizeof(*o));
	o->quick = quick;
	o->do_coll = o->do_gemm = o->do_mem = true;
	/* nccl-tests' usual sweep, 8 B to 8 GiB by factors of 2 (1 and 4 GiB
	 * included); --quick steps by 4 from 16 B, which still lands on 1 GiB
	 * (16 x 4^13). */
	o->min_bytes = quick ? 16 : 8;
	o->max_bytes = quick ? (size_t)1 << 30 : (size_t)8 << 30;
	o->step_bytes = (size_t)1 << 20;
	o->step_factor = quick ? 4 : 2;
	for (int i = 0; i < PP_COLL_COUNT; i++)
		o->ops[i] = true;
	o->coll_dtype = PP_CDT_FLOAT;
	o->gemm_dtypes[PP_DT_BF16] = o->gemm_dtypes[PP_DT_FP16] = true;
	o->gemm_dtypes[PP_DT_FP8] = o->gemm_dtypes[PP_DT_TF32] = true;
	o->square_min = 256;
	o->square_max = quick ? 8192 : 16384;
	o->models = quick ? "llama3-8b" : "all";
	o->shapes_bwd = !quick;
	o->mem_min = (size_t)1 << 20;
	o->mem_max = quick ? (size_t)1 << 30 : (size_t)4 << 30;
	o->storage_bytes = quick ? (size_t)512 << 20 : (size_t)4 << 30;
	o->storage_block = (size_t)64 << 20;
	o->storage_repeats = quick ? 1 : 2;
	/* Iterations: enough repeats for a stable median; a repeat batches
	 * back-to-back iterations until it lasts ~2 ms so that small messages
	 * are not dominated by event overhead (nccl-tests times 20 iterations). */
	pp_cal_iters c = {.warmup = quick ? 2 : 5, .repeats = quick ? 5 : 20, .min_repeats = quick ? 3 : 5,
			  .target_s = quick ? 1e-3 : 2e-3, .max_batch = 200, .max_s = quick ? 0.1 : 0.4,
			  .timeout_s = 120, .check = true};
	o->coll_it = c;
	o->gemm_it = c;
	o->gemm_it.warmup = quick ? 2 : 3;
	o->gemm_it.max_s = quick ? 0.05 : 0.12;
	o->mem_it = c;
	/* decode shapes take microseconds each and there are hundreds: the
	 * quick settings, which still give a stable median at that scale */
	o->decode_models = "llama3-8b,llama3-70b";
	o->decode_tps[0] = 1, o->decode_tps[1] = 2, o->decode_tps[2] = 4, o->decode_tps[3] = 8;
	o->ndecode_tps = 4;
	o->decode_max_m = 512;
	o->decode_dtypes[PP_DT_BF16] = true;
	o->decode_it = c;
	o->decode_it.warmup = 2;
	o->decode_it.repeats = 7;
	o->decode_it.min_repeats = 3;
	o->decode_it.target_s = 1e-3;
	o->decode_it.max_s = 0.03;
	/* sustained: past the seconds in which a GPU at its power limit
	 * settles its clocks (issue 14 asks for >= 10 s), a sample each 100 ms
	 * as nvidia-smi -lms 100 reads them */
	o->sustained_dtypes[PP_DT_BF16] = o->sustained_dtypes[PP_DT_FP8] = true;
	o->sustained_size = 8192;
	o->sustained_s = 12;
	o->sample_s = 0.1;
}

int pp_cal_parse_size(const char *s, size_t *out, pp_err *err)
{
	char *end;
	double v = strtod(s, &end);
	double unit = 1;
	if (end == s || !isfinite(v) || v < 0)
		goto bad;
	if (*end == 'K' || *end == 'k')
		unit = 1024.0;
	else if (*end == 'M' || *end == 'm')
		unit = 1024.0 * 1024;
	else if (*end == 'G' || *end == 'g')
		unit = 1024.0 * 1024 * 1024;
	else if (*end)
		goto bad;
	if (*end && end[1])
		goto bad;
	if (v * unit > 1e15)
		goto bad;
	*out = (size_t)(v * unit);
	return 0;
bad:
	return pp_errf(err, PP_EINPUT, "size '%s': expected a number of bytes with an optional K, M "
		       "or G suffix (powers of 1024), as nccl-tests' -b/-e take", s);
}

size_t pp_cal_sizes(size_t min, size_t max, size_t step_bytes, int step_factor, size_t *out,
		    size_t cap)
{
	size_t n = 0;
	if (step_factor <= 1 && step_bytes == 0)
		step_bytes = 1; /* nccl-tests would loop forever; we step by one byte */
	for (size_t s = min; s <= max;) {
		if (n < cap)
			out[n] = s;
		n++;
		size_t next = step_factor > 1 ? s * (size_t)step_factor : s + step_bytes;
		if (next <= s) /* overflow, or min 0 with a factor */
			break;
		s = next;
	}
	return n;
}

int pp_cal_coll_layout(pp_coll op, pp_cdtype dt, size_t size, int nranks, pp_cal_coll_req *r)
{
	size_t ws = pp_cdtype_bytes(dt), count = size / ws, n = (size_t)(nranks > 0 ? nranks : 1);
	r->op = op;
	r->dtype = dt;
	r->nranks = nranks;
	r->root = 0;
	switch (op) {
	case PP_COLL_ALL_GATHER: /* send count/n, receive n of them */
		r->count = count / n;
		r->send_bytes = r->count * ws;
		r->recv_bytes = r->count * ws * n;
		break;
	case PP_COLL_REDUCE_SCATTER: /* send n chunks, receive one */
		r->count = count / n;
		r->send_bytes = r->count * ws * n;
		r->recv_bytes = r->count * ws;
		break;
	case PP_COLL_ALL_TO_ALL: /* n chunks each way; count is per peer */
		r->count = count / n;
		r->send_bytes = r->recv_bytes = r->count * ws * n;
		break;
	default: /* all_reduce, broadcast, sendrecv */
		r->count = count;
		r->send_bytes = r->recv_bytes = count * ws;
		break;
	}
	r->bytes = r->send_bytes > r->recv_bytes ? r->send_bytes : r->recv_bytes;
	return r->count ? 0 : PP_CAL_SKIPPED;
}

double pp_cal_busbw_factor(pp_coll op, int nranks)
{
	return pp_nccl_busbw_factor(pp_coll_names[op], nranks);
}

size_t pp_cal_gemm_in_bytes(pp_dtype dt)
{
	return dt == PP_DT_FP8 ? 1 : dt == PP_DT_BF16 || dt == PP_DT_FP16 ? 2 : 4;
}

size_t pp_cal_gemm_out_bytes(pp_dtype dt)
{
	return dt == PP_DT_FP8 || dt == PP_DT_BF16 ? 2 : dt == PP_DT_FP16 ? 2 : 4;
}

/* A growable item list. */
typedef struct ilist {
	pp_cal_item *v;
	size_t n, cap;
} ilist;

static pp_cal_item *push(ilist *l, pp_item_kind kind)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->v = pp_xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	pp_cal_item *it = &l->v[l->n++];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	return it;
}

/* Rough durations for the progress line's time-left estimate only: an
 * H100-class GPU (600 TFLOP/s on GEMMs, 300 GB/s bus bandwidth, 3 TB/s
 * copies, 40 GB/s host copies) plus fixed costs per measurement. The
 * sweep rescales them by the rate it actually observes. */
static double est_iters(const pp_cal_iters *it, double t)
{
	double batch = t > 0 ? ceil(it->target_s / t) : 1;
	if (batch > it->max_batch)
		batch = it->max_batch;
	if (batch < 1)
		batch = 1;
	double reps = it->repeats;
	if (reps * batch * t > it->max_s)
		reps = fmax(it->min_repeats, floor(it->max_s / (batch * t)));
	return (it->warmup + 1 + reps * batch) * t + 0.004 + it->gap_s;
}

static void add_square_gemms(ilist *l, const pp_cal_opts *o, int ngpus)
{
	for (int dt = 0; dt < PP_DT_COUNT; dt++) {
		if (!o->gemm_dtypes[dt])
			continue;
		for (int64_t s = o->square_min; s <= o->square_max; s *= 2) {
			pp_cal_item *it = push(l, PP_ITEM_GEMM);
			it->gemm.dtype = (pp_dtype)dt;
			it->gemm.m = it->gemm.n = it->gemm.k = s;
			snprintf(it->gemm.name, sizeof(it->gemm.name), "square");
			it->gemm.device = -1;
			double t = 2.0 * (double)s * (double)s * (double)s / 6e14;
			it->est_s = ngpus * est_iters(&o->gemm_it, t);
		}
	}
}

static bool model_selected(const char *list, const char *id)
{
	if (!strcmp(list, "all"))
		return true;
	size_t n = strlen(id);
	for (const char *p = list; (p = strstr(p, id)); p++)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* Megatron pads the vocabulary to a multiple of 128 x TP. */
static int64_t padded_vocab(int64_t v, int tp)
{
	int64_t q = 128 * (int64_t)tp;
	return (v + q - 1) / q * q;
}

static bool have_shape(const ilist *l, size_t from, pp_dtype dt, int64_t m, int64_t n, int64_t k,
		       bool decode)
{
	for (size_t i = from; i < l->n; i++)
		if (l->v[i].kind == PP_ITEM_GEMM && l->v[i].gemm.dtype == dt && l->v[i].gemm.m == m &&
		    l->v[i].gemm.n == n && l->v[i].gemm.k == k && l->v[i].gemm.decode == decode)
			return true;
	return false;
}

/* The linear layers of one transformer layer and the output layer, per
 * tensor-parallel shard (Megatron column/row split): with h hidden, a
 * heads, g query groups, d = h/a, f the FFN size:
 *   qkv    (a + 2g) d / tp x h      proj   h x h / tp
 *   fc1    f' / tp x h (f' = 2f with SwiGLU)   fc2  h x f / tp
 *   logits V / tp x h
 * as (out, in). Returns how many (5), or 0 when tp does not divide the
 * model. */
typedef struct linear {
	const char *name;
	int64_t out, in;
} linear;

static int model_linears(const pp_model *md, int tp, linear lin[5])
{
	int64_t h = md->hidden_size, a = md->num_attention_heads;
	int64_t g = md->num_query_groups > 0 ? md->num_query_groups : a;
	int64_t f = md->ffn_hidden_size;
	if (a % tp || g % tp || f % tp || h % tp)
		return 0;
	int64_t d = h / a;
	lin[0] = (linear){"qkv", (a + 2 * g) * d / tp, h};
	lin[1] = (linear){"proj", h, h / tp};
	lin[2] = (linear){"fc1", f * (md->swiglu ? 2 : 1) / tp, h};
	lin[3] = (linear){"fc2", h, f / tp};
	lin[4] = (linear){"logits", padded_vocab(md->vocab_size, tp) / tp, h};
	return 5;
}

/* Every preset of a comma-separated list must exist; opt names the option
 * in the message. */
static int check_models(const char *list, const char *opt, const pp_catalog *cat, pp_err *err)
{
	if (!strcmp(list, "all") || !strcmp(list, "none"))
		return 0;
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", list);
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (!pp_catalog_model(cat, t)) {
			size_t nids;
			const char *const *ids = pp_catalog_ids(cat, "models", &nids);
			const char *dym = pp_did_you_mean(t, ids, nids);
			return pp_errf(err, PP_EINPUT, "%s: no preset '%s' in models.json%s%s%s", opt, t,
				       dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
		}
	return 0;
}

/* The training shapes of the linear layers: with T tokens (--tokens, else
 * one sequence of seq_length), (m, n, k) = (T, out, in) forward; backward
 * adds dgrad (T, in, out) and wgrad (in, out, T). Shapes already listed
 * are not repeated. */
static int add_model_gemms(ilist *l, const pp_cal_opts *o, const pp_catalog *cat, int ngpus,
			   pp_err *err)
{
	int tps[PP_CAL_MAX_TP + 1], ntps = 0, rc;
	if (o->ntps) {
		for (int i = 0; i < o->ntps; i++)
			tps[ntps++] = o->tps[i];
	} else {
		tps[ntps++] = 1;
		if (ngpus > 1)
			tps[ntps++] = ngpus;
	}
	if ((rc = check_models(o->models, "--models", cat, err)))
		return rc;
	if (!strcmp(o->models, "none"))
		return 0;
	size_t from = l->n;
	for (size_t mi = 0; mi < pp_catalog_nmodels(cat); mi++) {
		const pp_model *md = pp_catalog_model_at(cat, mi);
		if (!model_selected(o->models, md->id))
			continue;
		for (int ti = 0; ti < ntps; ti++) {
			int tp = tps[ti];
			int64_t T = o->shape_tokens > 0 ? o->shape_tokens : md->seq_length;
			linear lin[5];
			int nl = model_linears(md, tp, lin);
			for (int li = 0; li < nl; li++) {
				for (int pass = 0; pass < (o->shapes_bwd ? 3 : 1); pass++) {
					static const char *const pn[] = {"fwd", "dgrad", "wgrad"};
					int64_t m = pass == 2 ? lin[li].in : T;
					int64_t n = pass == 1 ? lin[li].in : lin[li].out;
					int64_t k = pass == 0 ? lin[li].in : pass == 1 ? lin[li].out : T;
					if (have_shape(l, from, PP_DT_BF16, m, n, k, false))
						continue;
					pp_cal_item *it = push(l, PP_ITEM_GEMM);
					it->gemm.dtype = PP_DT_BF16;
					it->gemm.m = m;
					it->gemm.n = n;
					it->gemm.k = k;
					it->gemm.device = o->shapes_all_gpus ? -1 : 0;
					it->gemm.torch_pass = o->torch_layouts ? pass + 1 : 0;
					if (o->shape_tokens > 0)
						snprintf(it->gemm.name, sizeof(it->gemm.name), "%s.t%lld.tp%d.%s.%s",
							 md->id, (long long)T, tp, lin[li].name, pn[pass]);
					else
						snprintf(it->gemm.name, sizeof(it->gemm.name), "%s.tp%d.%s.%s",
							 md->id, tp, lin[li].name, pn[pass]);
					double t = 2.0 * (double)m * (double)n * (double)k / 6e14 + 5e-6;
					it->est_s = (o->shapes_all_gpus ? ngpus : 1) * est_iters(&o->gemm_it, t);
				}
			}
		}
	}
	return 0;
}

/* The decode shapes: the same linear layers with M = 1, 2, 4 ...
 * decode_max_m tokens (a decode batch), (m, n, k) = (M, out, in), on GPU 0,
 * each run as nn.Linear runs it and its weight read from HBM. Shapes
 * already listed are not repeated; the name says where a shape first came
 * from ("llama3-8b.tp2.qkv.decode"). */
static int add_decode_gemms(ilist *l, const pp_cal_opts *o, const pp_catalog *cat, pp_err *err)
{
	int rc;
	if ((rc = check_models(o->decode_models, "--decode-models", cat, err)))
		return rc;
	if (!strcmp(o->decode_models, "none"))
		return 0;
	size_t from = l->n;
	for (int dt = 0; dt < PP_DT_COUNT; dt++) {
		if (!o->decode_dtypes[dt])
			continue;
		for (size_t mi = 0; mi < pp_catalog_nmodels(cat); mi++) {
			const pp_model *md = pp_catalog_model_at(cat, mi);
			if (!model_selected(o->decode_models, md->id))
				continue;
			for (int ti = 0; ti < o->ndecode_tps; ti++) {
				linear lin[5];
				int nl = model_linears(md, o->decode_tps[ti], lin);
				for (int li = 0; li < nl; li++)
					for (int64_t M = 1; M <= o->decode_max_m; M *= 2) {
						if (have_shape(l, from, (pp_dtype)dt, M, lin[li].out, lin[li].in,
							       true))
							continue;
						pp_cal_item *it = push(l, PP_ITEM_GEMM);
						it->gemm.dtype = (pp_dtype)dt;
						it->gemm.m = M;
						it->gemm.n = lin[li].out;
						it->gemm.k = lin[li].in;
						it->gemm.device = 0;
						it->gemm.decode = true;
						it->gemm.rotate_bytes = PP_CAL_DECODE_ROTATE_BYTES;
						snprintf(it->gemm.name, sizeof(it->gemm.name), "%s.tp%d.%s.decode",
							 md->id, o->decode_tps[ti], lin[li].name);
						double w = (double)lin[li].in * (double)lin[li].out *
							   (double)pp_cal_gemm_in_bytes((pp_dtype)dt);
						double t = fmax(2.0 * (double)M * w / 6e14, w / 3e12) + 5e-6;
						it->est_s = est_iters(&o->decode_it, t) + 1e-3;
					}
			}
		}
	}
	return 0;
}

/* One sustained run per dtype: the burst measurement on each GPU in turn,
 * then the back-to-back part on all at once. */
static void add_sustained(ilist *l, const pp_cal_opts *o, int ngpus)
{
	for (int dt = 0; dt < PP_DT_COUNT; dt++) {
		if (!o->sustained_dtypes[dt])
			continue;
		pp_cal_item *it = push(l, PP_ITEM_SUSTAINED);
		it->sustain.dtype = (pp_dtype)dt;
		it->sustain.m = it->sustain.n = it->sustain.k = o->sustained_size;
		it->sustain.seconds = o->sustained_s;
		it->sustain.interval_s = o->sample_s;
		double s = (double)o->sustained_size;
		it->est_s = o->sustained_s + ngpus * est_iters(&o->gemm_it, 2.0 * s * s * s / 6e14) + 0.5;
	}
}

int pp_cal_plan(const pp_cal_opts *o, const pp_catalog *cat, int ngpus, pp_cal_item **items,
		size_t *n, pp_err *err)
{
	ilist l = {0};
	int rc = 0;
	*items = NULL;
	*n = 0;
	if (o->do_coll && ngpus >= 2) {
		int groups[PP_CAL_MAX_GROUPS + 1], ng = 0;
		if (o->ngroups) {
			for (int i = 0; i < o->ngroups; i++) {
				if (o->groups[i] < 2 || o->groups[i] > ngpus) {
					rc = pp_errf(err, PP_EINPUT, "--groups: a group of %d GPUs; this job "
						     "has %d (groups need 2 to %d)", o->groups[i], ngpus, ngpus);
					goto out;
				}
				groups[ng++] = o->groups[i];
			}
		} else {
			for (int g = 2; g < ngpus && ng < PP_CAL_MAX_GROUPS; g *= 2)
				groups[ng++] = g;
			groups[ng++] = ngpus;
		}
		size_t sizes[64];
		size_t ns = pp_cal_sizes(o->min_bytes, o->max_bytes, o->step_bytes, o->step_factor,
					 sizes, PP_ARRAY_LEN(sizes));
		if (ns > PP_ARRAY_LEN(sizes)) {
			rc = pp_errf(err, PP_EINPUT, "-b %zu -e %zu gives %zu sizes; at most %zu per sweep "
				     "(use a larger -f)", o->min_bytes, o->max_bytes, ns,
				     PP_ARRAY_LEN(sizes));
			goto out;
		}
		for (int gi = 0; gi < ng; gi++) {
			pp_cal_item *g = push(&l, PP_ITEM_GROUP);
			g->coll.nranks = groups[gi];
			g->est_s = 1.0; /* communicator set-up and canary */
			for (int op = 0; op < PP_COLL_COUNT; op++) {
				if (!o->ops[op])
					continue;
				/* NCCL's point-to-point calls have no in-place form */
				bool p2p = op == PP_COLL_ALL_TO_ALL || op == PP_COLL_SENDRECV;
				for (int inplace = 0; inplace <= (p2p ? 0 : 1); inplace++) {
					for (size_t si = 0; si < ns; si++) {
						pp_cal_coll_req r;
						if (pp_cal_coll_layout((pp_coll)op, o->coll_dtype, sizes[si],
								       groups[gi], &r))
							continue;
						r.inplace = inplace;
						pp_cal_item *it = push(&l, PP_ITEM_COLL);
						it->coll = r;
						double t = 20e-6 + (double)r.bytes *
							pp_cal_busbw_factor((pp_coll)op, groups[gi]) / 3e11;
						it->est_s = est_iters(&o->coll_it, t) + (double)r.bytes / 1e12;
					}
				}
			}
		}
	}
	if (o->do_gemm) {
		add_square_gemms(&l, o, ngpus);
		if ((rc = add_model_gemms(&l, o, cat, ngpus, err)))
			goto out;
	}
	if (o->do_decode && (rc = add_decode_gemms(&l, o, cat, err)))
		goto out;
	if (o->do_sustained)
		add_sustained(&l, o, ngpus);
	if (o->do_mem) {
		for (int k = 0; k < PP_MEM_COUNT; k++) {
			bool host = k == PP_MEM_H2D || k == PP_MEM_D2H;
			size_t max = host && o->mem_max > ((size_t)1 << 30) ? (size_t)1 << 30 : o->mem_max;
			for (size_t b = host ? (size_t)64 << 10 : o->mem_min; b <= max; b *= 4) {
				pp_cal_item *it = push(&l, PP_ITEM_MEM);
				it->mem = (pp_mem_kind)k;
				it->mem_bytes = b;
				double t = 5e-6 + (double)b / (host ? 4e10 : 1.5e12);
				it->est_s = ngpus * est_iters(&o->mem_it, t);
			}
		}
	}
	if (o->storage_dir) {
		for (int w = 1; w >= 0; w--) {
			pp_cal_item *it = push(&l, PP_ITEM_STORAGE);
			it->storage.dir = o->storage_dir;
			it->storage.bytes = o->storage_bytes;
			it->storage.block = o->storage_block;
			it->storage.write = w;
			it->storage.repeats = o->storage_repeats;
			it->est_s = o->storage_repeats * (double)o->storage_bytes / 1.5e9;
		}
	}
out:
	if (rc) {
		free(l.v);
		return rc;
	}
	*items = l.v;
	*n = l.n;
	return 0;
}

size_t pp_cal_decode_copies(const pp_cal_gemm_req *r, size_t *stride)
{
	size_t w = (size_t)r->n * (size_t)r->k * pp_cal_gemm_in_bytes(r->dtype);
	*stride = (w + 255) / 256 * 256;
	size_t copies = *stride ? (r->rotate_bytes + *stride - 1) / *stride : 1;
	return copies > 0 ? copies : 1;
}

void pp_cal_gemm_cublas(const pp_cal_gemm_req *r, int64_t *cm, int64_t *cn, bool *ta, bool *tb)
{
	bool swap = r->decode || r->torch_pass == 1 || r->torch_pass == 2;
	*cm = swap ? r->n : r->m;
	*cn = swap ? r->m : r->n;
	*ta = r->torch_pass ? r->torch_pass == 1 : r->decode || r->dtype == PP_DT_FP8;
	*tb = r->torch_pass == 3;
}

void pp_cal_plan_maxima(const pp_cal_item *items, size_t n, pp_cal_plan_max *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		const pp_cal_item *it = &items[i];
		if (it->kind == PP_ITEM_COLL) {
			if (it->coll.send_bytes > out->coll_send)
				out->coll_send = it->coll.send_bytes;
			if (it->coll.recv_bytes > out->coll_recv)
				out->coll_recv = it->coll.recv_bytes;
		} else if (it->kind == PP_ITEM_GEMM || it->kind == PP_ITEM_SUSTAINED) {
			pp_dtype dt = it->kind == PP_ITEM_GEMM ? it->gemm.dtype : it->sustain.dtype;
			int64_t M = it->kind == PP_ITEM_GEMM ? it->gemm.m : it->sustain.m;
			int64_t N = it->kind == PP_ITEM_GEMM ? it->gemm.n : it->sustain.n;
			int64_t K = it->kind == PP_ITEM_GEMM ? it->gemm.k : it->sustain.k;
			size_t ib = pp_cal_gemm_in_bytes(dt);
			size_t ob = pp_cal_gemm_out_bytes(dt);
			int64_t cm = M, cn = N;
			bool ta, tb;
			if (it->kind == PP_ITEM_GEMM)
				pp_cal_gemm_cublas(&it->gemm, &cm, &cn, &ta, &tb);
			size_t a = (size_t)cm * (size_t)K * ib;
			size_t b = (size_t)K * (size_t)cn * ib;
			size_t d = (size_t)M * (size_t)N * ob;
			if (it->kind == PP_ITEM_GEMM && it->gemm.decode) {
				/* the weight (n x k) is the A operand as nn.Linear runs
				 * it, in copies spanning rotate_bytes; the tokens (m x k)
				 * are B */
				size_t stride, copies = pp_cal_decode_copies(&it->gemm, &stride);
				a = stride * copies;
			}
			if (a > out->gemm_a)
				out->gemm_a = a;
			if (b > out->gemm_b)
				out->gemm_b = b;
			if (d > out->gemm_d)
				out->gemm_d = d;
		} else if (it->kind == PP_ITEM_MEM) {
			if (it->mem_bytes > out->mem)
				out->mem = it->mem_bytes;
		}
	}
}
