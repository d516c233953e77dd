/* sweep.c - see sweep.h. */
#include "sweep.h"
#include "core/fmt.h"
#include "calib/calibdb.h"
#include "calib/fit.h"
#include "core/jsonout.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *pp_cal_coll_scope(const pp_cal_host *h)
{
	if (h->nhosts > 1)
		return "net";
	return h->nvlink_all_pairs ? "nvlink" : "pcie";
}

static const char *const mem_ops[PP_MEM_COUNT] = {"cudaMemcpy", "copy_kernel", "pinned", "pinned"};
static const char *const mem_kinds[PP_MEM_COUNT] = {"memcpy", "memcpy", "h2d", "d2h"};

/* The section header printed above a run of similar rows. */
static void section(pp_cal_sweep *sw, const pp_cal_item *it, char *last, size_t n)
{
	char key[160];
	switch (it->kind) {
	case PP_ITEM_COLL:
		snprintf(key, sizeof(key), "c %s %d %s %d", pp_coll_names[it->coll.op], it->coll.nranks,
			 pp_cdtype_names[it->coll.dtype], it->coll.inplace);
		break;
	case PP_ITEM_GEMM:
		snprintf(key, sizeof(key), "g %s %d %d", pp_dtype_names[it->gemm.dtype],
			 !strcmp(it->gemm.name, "square"), it->gemm.decode);
		break;
	case PP_ITEM_SUSTAINED:
		snprintf(key, sizeof(key), "s %s", pp_dtype_names[it->sustain.dtype]);
		break;
	case PP_ITEM_MEM:
		snprintf(key, sizeof(key), "m %d", it->mem);
		break;
	default:
		snprintf(key, sizeof(key), "%d", it->kind);
	}
	if (!strcmp(key, last) || !sw->out)
		return;
	snprintf(last, n, "%s", key);
	FILE *f = sw->out;
	switch (it->kind) {
	case PP_ITEM_COLL:
		fprintf(f, "\n# collective %s, %d ranks, %s, %s (size = max(send, recv) bytes per rank; "
			   "times per iteration)\n", pp_coll_names[it->coll.op], it->coll.nranks,
			pp_cdtype_names[it->coll.dtype], it->coll.inplace ? "in-place" : "out-of-place");
		fprintf(f, "#%11s %12s %10s %10s %10s %10s %10s %6s %6s\n", "size", "count", "median_us",
			"min_us", "max_us", "algbw GB/s", "busbw GB/s", "batch", "#wrong");
		break;
	case PP_ITEM_GEMM:
		if (it->gemm.decode) {
			fprintf(f, "\n# gemm %s (cuBLASLt), decode shapes: m tokens x n outputs x k inputs "
				   "per TP shard, run as nn.Linear (TN), weights read from HBM; TFLOP/s = "
				   "2mnk / median time, GB/s = operand + output bytes / median time\n",
				pp_dtype_names[it->gemm.dtype]);
			fprintf(f, "#%3s %7s %7s %7s %10s %10s %8s %8s %6s  %s\n", "GPU", "m", "n", "k",
				"median_us", "max_us", "TFLOP/s", "GB/s", "#wrong", "shape");
			break;
		}
		fprintf(f, "\n# gemm %s (cuBLASLt), %s; TFLOP/s = 2mnk / median time\n",
			pp_dtype_names[it->gemm.dtype],
			strcmp(it->gemm.name, "square") ? "transformer shapes per TP shard" : "square");
		fprintf(f, "#%3s %7s %7s %7s %10s %10s %8s %6s  %s\n", "GPU", "m", "n", "k", "median_us",
			"max_us", "TFLOP/s", "#wrong", "shape");
		break;
	case PP_ITEM_MEM:
		fprintf(f, "\n# %s %s (GB/s = bytes %s / median time)\n", mem_kinds[it->mem],
			mem_ops[it->mem], it->mem <= PP_MEM_D2D_KERNEL ? "read + written" : "copied");
		fprintf(f, "#%3s %12s %10s %10s %10s %9s\n", "GPU", "bytes", "median_us", "min_us",
			"max_us", "GB/s");
		break;
	case PP_ITEM_SUSTAINED:
		fprintf(f, "\n# sustained gemm %s %lldx%lldx%lld (cuBLASLt): back to back for %.0f s on "
			   "every GPU at once, clocks, power and throttle reasons read through NVML every "
			   "%.0f ms; burst = the sweep's protocol just before\n",
			pp_dtype_names[it->sustain.dtype], (long long)it->sustain.m,
			(long long)it->sustain.n, (long long)it->sustain.k, it->sustain.seconds,
			it->sustain.interval_s * 1e3);
		fprintf(f, "#%3s %8s %8s %10s %9s %9s %8s  %s\n", "GPU", "t_s", "TFLOP/s", "of burst",
			"SM MHz", "power W", "temp C", "throttle reasons");
		break;
	case PP_ITEM_STORAGE:
		fprintf(f, "\n# storage (%s): checkpoint-sized file, GB/s = bytes / wall time\n",
			it->storage.dir);
		fprintf(f, "#%-14s %12s %10s %10s %9s %6s  %s\n", "kind", "bytes", "median_s", "max_s",
			"GB/s", "#wrong", "method");
		break;
	default:
		break;
	}
}

/* Store one measurement with its extra JSON (the tree is freed). */
static int record(pp_cal_sweep *sw, pp_calib_meas *m, cJSON *extra, pp_err *err)
{
	int64_t id = 0;
	int rc = 0;
	char *text = pp_json_finish(extra, false);
	m->extra_json = text;
	if (!sw->st)
		goto out;
	if ((rc = pp_calibdb_add(sw->st, sw->run_id, m, &id, err)))
		goto out;
	sw->recorded++;
	if (sw->on_record)
		sw->on_record(sw->ctx, id);
out:
	m->extra_json = NULL;
	free(text);
	return rc;
}

static void stats_cols(pp_calib_meas *m, const pp_cal_stats *s)
{
	m->time_us = s->med_s * 1e6;
	m->time_min_us = s->min_s * 1e6;
	m->time_max_us = s->max_s * 1e6;
	m->repeats = s->repeats;
	m->wrong = s->wrong >= 0 ? s->wrong : PP_CALIB_NULL;
}

static int do_coll(pp_cal_sweep *sw, const pp_cal_item *it, const pp_cal_iters *iters, pp_err *err)
{
	pp_cal_stats s = {0};
	int rc = sw->be->ops->collective(sw->be, &it->coll, iters, &s, err);
	if (rc < 0)
		return rc;
	if (!sw->be->root)
		return 0;
	if (rc == PP_CAL_SKIPPED) {
		sw->skipped++;
		if (sw->out)
			fprintf(sw->out, "%12zu  skipped: %s\n", it->coll.bytes, s.note);
		return 0;
	}
	pp_calib_meas m;
	pp_calib_meas_init(&m);
	m.kind = "collective";
	m.op = pp_coll_names[it->coll.op];
	m.dtype = pp_cdtype_names[it->coll.dtype];
	m.nranks = it->coll.nranks;
	m.bytes = (int64_t)it->coll.bytes;
	m.inplace = it->coll.inplace;
	stats_cols(&m, &s);
	m.algbw_GBps = (double)it->coll.bytes / s.med_s / 1e9;
	m.busbw_GBps = m.algbw_GBps * pp_cal_busbw_factor(it->coll.op, it->coll.nranks);
	m.scope = pp_cal_coll_scope(sw->host);
	if (s.wrong > 0)
		sw->wrong += s.wrong;
	cJSON *x = pp_json_obj(NULL, NULL);
	pp_json_int(x, "count", (int64_t)it->coll.count);
	pp_json_int(x, "batch", s.batch);
	pp_json_int(x, "warmup", iters->warmup);
	pp_json_int(x, "root", it->coll.root);
	pp_json_str(x, "stat", "median");
	if (sw->out)
		fprintf(sw->out, "%12zu %12zu %10.2f %10.2f %10.2f %10.2f %10.2f %6d %6lld\n",
			it->coll.bytes, it->coll.count, m.time_us, m.time_min_us, m.time_max_us,
			m.algbw_GBps, m.busbw_GBps, s.batch, (long long)s.wrong);
	return record(sw, &m, x, err);
}

static int do_gemm(pp_cal_sweep *sw, const pp_cal_item *it, const pp_cal_iters *iters, pp_err *err)
{
	pp_cal_stats s[PP_CAL_MAX_GPUS];
	memset(s, 0, sizeof(s));
	int rc = sw->be->ops->gemm(sw->be, &it->gemm, iters, s, err);
	if (rc < 0)
		return rc;
	if (!sw->be->root)
		return 0;
	if (rc == PP_CAL_SKIPPED) {
		sw->skipped++;
		if (sw->out)
			fprintf(sw->out, "   %7lld %7lld %7lld  skipped: %s\n", (long long)it->gemm.m,
				(long long)it->gemm.n, (long long)it->gemm.k, s[0].note);
		return 0;
	}
	for (int d = 0; d < sw->be->ngpus && d < PP_CAL_MAX_GPUS; d++) {
		if (!s[d].repeats)
			continue;
		pp_calib_meas m;
		pp_calib_meas_init(&m);
		m.kind = it->gemm.decode ? "gemm_decode" : "gemm";
		m.op = it->gemm.name;
		m.dtype = pp_dtype_names[it->gemm.dtype];
		m.m = it->gemm.m;
		m.n = it->gemm.n;
		m.k = it->gemm.k;
		m.device = d;
		stats_cols(&m, &s[d]);
		m.tflops = 2.0 * (double)it->gemm.m * (double)it->gemm.n * (double)it->gemm.k /
			   s[d].med_s / 1e12;
		m.scope = "local";
		if (s[d].wrong > 0)
			sw->wrong += s[d].wrong;
		cJSON *x = pp_json_obj(NULL, NULL);
		pp_json_int(x, "batch", s[d].batch);
		pp_json_int(x, "warmup", iters->warmup);
		pp_json_str(x, "stat", "median");
		pp_json_str(x, "note", s[d].note);
		if (it->gemm.decode) {
			double ib = (double)pp_cal_gemm_in_bytes(it->gemm.dtype);
			double bytes = ((double)m.m * (double)m.k + (double)m.n * (double)m.k) * ib +
				       (double)m.m * (double)m.n * (double)pp_cal_gemm_out_bytes(it->gemm.dtype);
			m.GBps = bytes / s[d].med_s / 1e9;
			pp_json_str(x, "layout", "nn.Linear: TN, cuBLAS m = n outputs, n = m tokens");
			pp_json_int(x, "rotate_bytes", (int64_t)it->gemm.rotate_bytes);
			pp_json_num(x, "bytes", bytes, 17);
			if (sw->out)
				fprintf(sw->out, "%4d %7lld %7lld %7lld %10.2f %10.2f %8.1f %8.0f %6lld  %s\n", d,
					(long long)m.m, (long long)m.n, (long long)m.k, m.time_us,
					m.time_max_us, m.tflops, m.GBps, (long long)s[d].wrong, it->gemm.name);
		} else if (sw->out) {
			fprintf(sw->out, "%4d %7lld %7lld %7lld %10.2f %10.2f %8.1f %6lld  %s\n", d,
				(long long)m.m, (long long)m.n, (long long)m.k, m.time_us, m.time_max_us,
				m.tflops, (long long)s[d].wrong, it->gemm.name);
		}
		if ((rc = record(sw, &m, x, err)))
			return rc;
	}
	return 0;
}

static int do_mem(pp_cal_sweep *sw, const pp_cal_item *it, const pp_cal_iters *iters, pp_err *err)
{
	pp_cal_stats s[PP_CAL_MAX_GPUS];
	memset(s, 0, sizeof(s));
	int rc = sw->be->ops->mem(sw->be, it->mem, it->mem_bytes, iters, s, err);
	if (rc < 0)
		return rc;
	if (!sw->be->root)
		return 0;
	if (rc == PP_CAL_SKIPPED) {
		sw->skipped++;
		if (sw->out)
			fprintf(sw->out, "     %12zu  skipped: %s\n", it->mem_bytes, s[0].note);
		return 0;
	}
	double moved = (double)it->mem_bytes * (it->mem <= PP_MEM_D2D_KERNEL ? 2.0 : 1.0);
	for (int d = 0; d < sw->be->ngpus && d < PP_CAL_MAX_GPUS; d++) {
		if (!s[d].repeats)
			continue;
		pp_calib_meas m;
		pp_calib_meas_init(&m);
		m.kind = mem_kinds[it->mem];
		m.op = mem_ops[it->mem];
		m.bytes = (int64_t)it->mem_bytes;
		m.device = d;
		stats_cols(&m, &s[d]);
		m.GBps = moved / s[d].med_s / 1e9;
		m.scope = it->mem >= PP_MEM_H2D ? "pcie" : "local";
		if (s[d].wrong > 0)
			sw->wrong += s[d].wrong;
		cJSON *x = pp_json_obj(NULL, NULL);
		pp_json_int(x, "batch", s[d].batch);
		pp_json_str(x, "counted", it->mem <= PP_MEM_D2D_KERNEL ? "read+written" : "copied");
		pp_json_str(x, "stat", "median");
		if (sw->out)
			fprintf(sw->out, "%4d %12zu %10.2f %10.2f %10.2f %9.2f\n", d, it->mem_bytes,
				m.time_us, m.time_min_us, m.time_max_us, m.GBps);
		if ((rc = record(sw, &m, x, err)))
			return rc;
	}
	return 0;
}

static int do_storage(pp_cal_sweep *sw, const pp_cal_item *it, pp_err *err)
{
	pp_cal_stats s = {0};
	int rc = sw->be->ops->storage(sw->be, &it->storage, &s, err);
	if (rc < 0)
		return rc;
	if (!sw->be->root)
		return 0;
	const char *kind = it->storage.write ? "storage_write" : "storage_read";
	if (rc == PP_CAL_SKIPPED) {
		sw->skipped++;
		if (sw->out)
			fprintf(sw->out, " %-14s skipped: %s\n", kind, s.note);
		return 0;
	}
	pp_calib_meas m;
	pp_calib_meas_init(&m);
	m.kind = kind;
	m.op = s.note;
	m.bytes = (int64_t)it->storage.bytes;
	stats_cols(&m, &s);
	m.GBps = (double)it->storage.bytes / s.med_s / 1e9;
	m.scope = "local";
	if (s.wrong > 0)
		sw->wrong += s.wrong;
	cJSON *x = pp_json_obj(NULL, NULL);
	pp_json_int(x, "block", (int64_t)it->storage.block);
	pp_json_str(x, "stat", "median");
	pp_json_str(x, "dir", it->storage.dir ? it->storage.dir : "");
	if (sw->out)
		fprintf(sw->out, " %-14s %12zu %10.3f %10.3f %9.3f %6lld  %s\n", kind, it->storage.bytes,
			s.med_s, s.max_s, m.GBps, (long long)s.wrong, s.note);
	return record(sw, &m, x, err);
}

/* One row of kind "gemm_sustained" per GPU for the burst figure (op
 * "burst": the sweep's statistics per GEMM) and per sample (op "sample":
 * time_us the interval's mean per GEMM; extra_json t_s, interval_s, gemms,
 * the NVML readings), then the GPU's summary line (fit.h's summary, the
 * one 'podplan fit' uses). */
static int record_sustained(pp_cal_sweep *sw, const pp_cal_sustain_req *r, int d,
			    const pp_cal_sustain_res *res, const pp_cal_iters *iters, pp_err *err)
{
	double flop = 2.0 * (double)r->m * (double)r->n * (double)r->k;
	int rc;
	char names[160];
	pp_calib_meas m;
	pp_calib_meas_init(&m);
	m.kind = "gemm_sustained";
	m.op = "burst";
	m.dtype = pp_dtype_names[r->dtype];
	m.m = r->m;
	m.n = r->n;
	m.k = r->k;
	m.device = d;
	m.scope = "local";
	stats_cols(&m, &res->burst);
	m.tflops = flop / res->burst.med_s / 1e12;
	if (res->burst.wrong > 0)
		sw->wrong += res->burst.wrong;
	cJSON *x = pp_json_obj(NULL, NULL);
	pp_json_int(x, "batch", res->burst.batch);
	pp_json_int(x, "warmup", iters->warmup);
	pp_json_str(x, "stat", "median");
	pp_json_str(x, "note", res->note);
	if ((rc = record(sw, &m, x, err)))
		return rc;
	pp_fit_sample *fs = pp_xcalloc((size_t)(res->nsamples > 0 ? res->nsamples : 1), sizeof(*fs));
	for (int i = 0; i < res->nsamples; i++) {
		const pp_cal_sample *q = &res->samples[i];
		pp_calib_meas_init(&m);
		m.kind = "gemm_sustained";
		m.op = "sample";
		m.dtype = pp_dtype_names[r->dtype];
		m.m = r->m;
		m.n = r->n;
		m.k = r->k;
		m.device = d;
		m.scope = "local";
		m.time_us = q->interval_s / (q->gemms > 0 ? q->gemms : 1) * 1e6;
		m.repeats = q->gemms;
		m.tflops = flop * q->gemms / q->interval_s / 1e12;
		x = pp_json_obj(NULL, NULL);
		pp_json_fixed(x, "t_s", q->t_s, 6);
		pp_json_fixed(x, "interval_s", q->interval_s, 6);
		pp_json_int(x, "gemms", q->gemms);
		pp_json_num(x, "sm_clock_MHz", q->sm_clock_mhz, 6);
		pp_json_num(x, "mem_clock_MHz", q->mem_clock_mhz, 6);
		pp_json_num(x, "power_W", q->power_w, 6);
		pp_json_num(x, "temp_C", q->temp_c, 6);
		pp_json_int(x, "reasons", q->reasons);
		pp_json_str(x, "throttle", pp_fit_reason_names(q->reasons, names, sizeof(names)));
		pp_json_num(x, "power_limit_W", res->power_limit_w, 6);
		pp_json_num(x, "max_sm_clock_MHz", res->max_sm_clock_mhz, 6);
		pp_json_fixed(x, "seconds", r->seconds, 3);
		if ((rc = record(sw, &m, x, err)))
			goto out;
		fs[i] = (pp_fit_sample){.t_s = q->t_s, .interval_s = q->interval_s,
					.flop = flop * q->gemms, .sm_clock_hz = q->sm_clock_mhz * 1e6,
					.power_w = q->power_w, .temp_c = q->temp_c, .reasons = q->reasons};
		/* about one line a second */
		int every = (int)lround(1.0 / (r->interval_s > 0 ? r->interval_s : 1));
		if (sw->out && (i % (every > 0 ? every : 1) == 0 || i == res->nsamples - 1))
			fprintf(sw->out, "%4d %8.2f %8.1f %10.3f %9.0f %9.1f %8.0f  %s\n", d, q->t_s,
				m.tflops, m.tflops * 1e12 * res->burst.med_s / flop, q->sm_clock_mhz,
				q->power_w, q->temp_c, names);
	}
	pp_sustained_summary sum;
	pp_err sub = {0};
	if (sw->out && !pp_fit_sustained_summary(flop / res->burst.med_s, fs, res->nsamples, &sum, &sub))
		fprintf(sw->out, "# GPU %d %s: burst %.1f TFLOP/s; the second half of %.1f s back to back "
			"%.1f TFLOP/s = %.3f +- %.3f of burst; SM clock %.0f -> %.0f MHz, %.0f W (limit "
			"%.0f W), %.0f C; throttle reasons: %s\n", d, pp_dtype_names[r->dtype],
			sum.burst_flops / 1e12, sum.seconds, sum.sustained_flops / 1e12, sum.fraction,
			sum.fraction_ci, sum.first_sm_clock_hz / 1e6, sum.sm_clock_hz / 1e6, sum.power_w,
			res->power_limit_w, sum.temp_c, pp_fit_reason_names(sum.reasons, names, sizeof(names)));
out:
	free(fs);
	return rc;
}

static int do_sustained(pp_cal_sweep *sw, const pp_cal_item *it, const pp_cal_iters *iters,
			pp_err *err)
{
	pp_cal_sustain_res *res = pp_xcalloc((size_t)sw->be->ngpus, sizeof(*res));
	int rc = sw->be->ops->sustained(sw->be, &it->sustain, iters, res, err);
	if (rc < 0 || !sw->be->root)
		goto out;
	if (rc == PP_CAL_SKIPPED) {
		sw->skipped++;
		if (sw->out)
			fprintf(sw->out, "     skipped: %s\n", res[0].note);
		rc = 0;
		goto out;
	}
	for (int d = 0; d < sw->be->ngpus && !rc; d++)
		if (res[d].burst.repeats && res[d].nsamples)
			rc = record_sustained(sw, &it->sustain, d, &res[d], iters, err);
out:
	free(res);
	return rc;
}

static const char *item_label(const pp_cal_item *it, char *buf, size_t n)
{
	char b[32];
	switch (it->kind) {
	case PP_ITEM_GROUP:
		snprintf(buf, n, "communicator of %d GPUs", it->coll.nranks);
		break;
	case PP_ITEM_COLL:
		snprintf(buf, n, "%s %d GPUs %s%s", pp_coll_names[it->coll.op], it->coll.nranks,
			 pp_fmt_bytes((double)it->coll.bytes, b, sizeof(b)),
			 it->coll.inplace ? " in-place" : "");
		break;
	case PP_ITEM_GEMM:
		snprintf(buf, n, "gemm %s %lldx%lldx%lld", pp_dtype_names[it->gemm.dtype],
			 (long long)it->gemm.m, (long long)it->gemm.n, (long long)it->gemm.k);
		break;
	case PP_ITEM_MEM:
		snprintf(buf, n, "%s %s %s", mem_kinds[it->mem], mem_ops[it->mem],
			 pp_fmt_bytes((double)it->mem_bytes, b, sizeof(b)));
		break;
	case PP_ITEM_SUSTAINED:
		snprintf(buf, n, "sustained gemm %s %lld^3 for %.0f s", pp_dtype_names[it->sustain.dtype],
			 (long long)it->sustain.m, it->sustain.seconds);
		break;
	default:
		snprintf(buf, n, "storage %s %s", it->storage.write ? "write" : "read",
			 pp_fmt_bytes((double)it->storage.bytes, b, sizeof(b)));
	}
	return buf;
}

static void progress(const pp_cal_item *it, size_t i, size_t n, double done_est,
		     double total_est, double elapsed)
{
	char label[96], el[32], left[32];
	/* Rescale the plan's estimates by how fast the sweep has really gone. */
	double rate = done_est > 0 && elapsed > 1 ? elapsed / done_est : 1.0;
	double rem = (total_est - done_est) * rate;
	fprintf(stderr, "\r\033[K[%3.0f%%] %zu/%zu %s | %s elapsed, about %s left",
		100.0 * done_est / (total_est > 0 ? total_est : 1), i + 1, n,
		item_label(it, label, sizeof(label)), pp_fmt_duration(elapsed, el, sizeof(el)),
		pp_fmt_duration(rem, left, sizeof(left)));
	fflush(stderr);
}

int pp_cal_sweep_run(pp_cal_sweep *sw, const pp_cal_item *items, size_t n, pp_err *err)
{
	double total = 0, done = 0, t0 = pp_mono_s();
	char last[160] = "";
	int rc = 0;
	for (size_t i = 0; i < n; i++)
		total += items[i].est_s;
	for (size_t i = 0; i < n && !rc; i++) {
		const pp_cal_item *it = &items[i];
		if (sw->done && sw->done[i]) {
			done += it->est_s;
			continue;
		}
		if (sw->progress && sw->be->root)
			progress(it, i, n, done, total, pp_mono_s() - t0);
		if (sw->be->root)
			section(sw, it, last, sizeof(last));
		switch (it->kind) {
		case PP_ITEM_GROUP:
			rc = sw->be->ops->group(sw->be, it->coll.nranks, sw->opts->coll_it.timeout_s, err);
			break;
		case PP_ITEM_COLL:
			rc = do_coll(sw, it, &sw->opts->coll_it, err);
			break;
		case PP_ITEM_GEMM:
			rc = do_gemm(sw, it, it->gemm.decode ? &sw->opts->decode_it : &sw->opts->gemm_it, err);
			break;
		case PP_ITEM_SUSTAINED:
			rc = do_sustained(sw, it, &sw->opts->gemm_it, err);
			break;
		case PP_ITEM_MEM:
			rc = do_mem(sw, it, &sw->opts->mem_it, err);
			break;
		case PP_ITEM_STORAGE:
			rc = do_storage(sw, it, err);
			break;
		}
		done += it->est_s;
		if (sw->out)
			fflush(sw->out);
	}
	if (sw->progress && sw->be->root)
		fprintf(stderr, "\r\033[K");
	sw->elapsed_s = pp_mono_s() - t0;
	return rc;
}

static bool str_is(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* Whether a stored row is one of item it's. */
static bool row_of_item(const pp_calib_meas *q, const pp_cal_item *it)
{
	switch (it->kind) {
	case PP_ITEM_COLL:
		return str_is(q->kind, "collective") && str_is(q->op, pp_coll_names[it->coll.op]) &&
		       str_is(q->dtype, pp_cdtype_names[it->coll.dtype]) &&
		       q->nranks == it->coll.nranks && q->bytes == (int64_t)it->coll.bytes &&
		       q->inplace == (it->coll.inplace ? 1 : 0);
	case PP_ITEM_GEMM:
		return str_is(q->kind, it->gemm.decode ? "gemm_decode" : "gemm") &&
		       str_is(q->op, it->gemm.name) && str_is(q->dtype, pp_dtype_names[it->gemm.dtype]) &&
		       q->m == it->gemm.m && q->n == it->gemm.n && q->k == it->gemm.k;
	case PP_ITEM_MEM:
		return str_is(q->kind, mem_kinds[it->mem]) && str_is(q->op, mem_ops[it->mem]) &&
		       q->bytes == (int64_t)it->mem_bytes;
	case PP_ITEM_STORAGE:
		return str_is(q->kind, it->storage.write ? "storage_write" : "storage_read") &&
		       q->bytes == (int64_t)it->storage.bytes;
	case PP_ITEM_SUSTAINED:
		return str_is(q->kind, "gemm_sustained") &&
		       str_is(q->dtype, pp_dtype_names[it->sustain.dtype]) && q->m == it->sustain.m &&
		       q->n == it->sustain.n && q->k == it->sustain.k;
	case PP_ITEM_GROUP:
		break;
	}
	return false;
}

size_t pp_cal_sweep_done(const pp_cal_item *items, size_t n, const pp_calib_meas *rows,
			 size_t nrows, unsigned char *done)
{
	size_t ndone = 0;
	for (size_t i = 0; i < n; i++) {
		done[i] = 0;
		for (size_t r = 0; r < nrows && !done[i]; r++)
			done[i] = row_of_item(&rows[r], &items[i]);
	}
	/* a group switch is needed while one of its collectives is not done */
	for (size_t i = 0; i < n; i++) {
		if (items[i].kind != PP_ITEM_GROUP)
			continue;
		bool all = true;
		for (size_t k = i + 1; k < n && items[k].kind != PP_ITEM_GROUP && all; k++)
			if (items[k].kind == PP_ITEM_COLL)
				all = done[k];
		done[i] = all;
	}
	for (size_t i = 0; i < n; i++)
		ndone += done[i] != 0;
	return ndone;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void pp_cal_stats_from(double *t, int n, int batch, pp_cal_stats *out)
{
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	out->repeats = n;
	out->batch = batch;
	out->min_s = t[0];
	out->max_s = t[n - 1];
	/* the median of an even count is the mean of the middle two */
	out->med_s = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}
