/* sustained.c - see sustained.h. */
#include "calib/sustained.h"
#include "core/jsonget.h"
#include "calib/fitstat.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int pp_fit_sustained_summary(double burst_flops, const pp_fit_sample *s, int n,
			     pp_sustained_summary *out, pp_err *err)
{
	memset(out, 0, sizeof(*out));
	if (n < 1 || !(burst_flops > 0))
		return pp_errf(err, PP_EINPUT, "a sustained run needs samples and a burst rate (%d "
			       "samples, burst %g flop/s)", n, burst_flops);
	double half = 0.5 * s[n - 1].t_s;
	double *rate = pp_xmalloc(sizeof(double) * (size_t)n), *clk = pp_xmalloc(sizeof(double) * (size_t)n),
	       *pw = pp_xmalloc(sizeof(double) * (size_t)n), *tc = pp_xmalloc(sizeof(double) * (size_t)n);
	int k = 0;
	bool known = false;
	out->reasons = 0;
	for (int i = 0; i < n; i++) {
		if (s[i].t_s < half || !(s[i].interval_s > 0))
			continue;
		rate[k] = s[i].flop / s[i].interval_s;
		clk[k] = s[i].sm_clock_hz;
		pw[k] = s[i].power_w;
		tc[k] = s[i].temp_c;
		if (s[i].reasons >= 0) {
			out->reasons |= s[i].reasons;
			known = true;
		}
		k++;
	}
	if (!known)
		out->reasons = -1;
	double mean = 0, var = 0;
	for (int i = 0; i < k; i++)
		mean += rate[i] / burst_flops / k;
	for (int i = 0; i < k; i++)
		var += pow(rate[i] / burst_flops - mean, 2) / (k > 1 ? k - 1 : 1);
	out->burst_flops = burst_flops;
	out->sustained_flops = pp_fit_median(rate, k);
	out->fraction = out->sustained_flops / burst_flops;
	out->fraction_ci = k > 1 ? 1.96 * sqrt(var / k) : 0;
	out->first_sm_clock_hz = s[0].sm_clock_hz;
	out->sm_clock_hz = pp_fit_median_finite(clk, k);
	out->power_w = pp_fit_median_finite(pw, k);
	out->temp_c = pp_fit_median_finite(tc, k);
	out->seconds = s[n - 1].t_s;
	out->samples = n;
	out->steady = k;
	free(rate);
	free(clk);
	free(pw);
	free(tc);
	return k ? 0 : pp_errf(err, PP_EINPUT, "a sustained run with no timed sample");
}

const char *pp_fit_reason_names(int64_t reasons, char *buf, size_t n)
{
	/* nvml.h, nvmlClocksEventReasons: bit -> what limits the clocks */
	static const struct {
		int64_t bit;
		const char *name;
	} names[] = {{0x1, "gpu_idle"}, {0x2, "applications_clocks_setting"}, {0x4, "sw_power_cap"},
		     {0x8, "hw_slowdown"}, {0x10, "sync_boost"}, {0x20, "sw_thermal_slowdown"},
		     {0x40, "hw_thermal_slowdown"}, {0x80, "hw_power_brake_slowdown"},
		     {0x100, "display_clock_setting"}};
	if (n)
		buf[0] = '\0';
	if (reasons < 0) {
		snprintf(buf, n, "unknown");
		return buf;
	}
	if (reasons == 0) {
		snprintf(buf, n, "none");
		return buf;
	}
	int64_t rest = reasons;
	for (size_t i = 0; i < PP_ARRAY_LEN(names); i++)
		if (reasons & names[i].bit) {
			size_t l = strlen(buf);
			snprintf(buf + l, n > l ? n - l : 0, "%s%s", l ? "," : "", names[i].name);
			rest &= ~names[i].bit;
		}
	if (rest) {
		size_t l = strlen(buf);
		snprintf(buf + l, n > l ? n - l : 0, "%s0x%llx", l ? "," : "", (unsigned long long)rest);
	}
	return buf;
}

static bool same_gemm_group(const pp_calib_meas *a, const pp_calib_meas *b)
{
	return a->run_id == b->run_id && a->device == b->device && a->m == b->m && a->n == b->n &&
	       a->k == b->k && a->dtype && b->dtype && !strcmp(a->dtype, b->dtype);
}

void pp_fit_sustained(const pp_calib_meas *all, size_t nall, pp_profile *out)
{
	size_t cap = nall ? nall : 1;
	pp_fit_sample *smp = pp_xmalloc(sizeof(*smp) * cap);
	double *fr = pp_xmalloc(sizeof(double) * cap), *bu = pp_xmalloc(sizeof(double) * cap),
	       *su = pp_xmalloc(sizeof(double) * cap), *ck = pp_xmalloc(sizeof(double) * cap),
	       *ck0 = pp_xmalloc(sizeof(double) * cap), *pw = pp_xmalloc(sizeof(double) * cap),
	       *pl = pp_xmalloc(sizeof(double) * cap), *tc = pp_xmalloc(sizeof(double) * cap),
	       *fs = pp_xmalloc(sizeof(double) * cap);
	for (int dt = 0; dt < PP_DT_COUNT; dt++) {
		int ng = 0, nfs = 0;
		pp_profile_sustained *ps = &out->sustained[dt];
		memset(ps, 0, sizeof(*ps));
		ps->reasons = -1;
		ps->seconds = INFINITY;
		for (size_t i = 0; i < nall; i++) {
			const pp_calib_meas *b = &all[i];
			if (!b->kind || strcmp(b->kind, "gemm_sustained") || !b->op || strcmp(b->op, "burst") ||
			    !b->dtype || strcmp(b->dtype, pp_dtype_names[dt]) || !(b->time_us > 0) ||
			    b->m == PP_CALIB_NULL)
				continue;
			double flop = 2.0 * (double)b->m * (double)b->n * (double)b->k;
			int ns = 0;
			double limit = NAN;
			for (size_t j = 0; j < nall; j++) {
				const pp_calib_meas *q = &all[j];
				if (!q->kind || strcmp(q->kind, "gemm_sustained") || !q->op ||
				    strcmp(q->op, "sample") || !same_gemm_group(b, q) || !q->extra_json)
					continue;
				cJSON *x = cJSON_Parse(q->extra_json);
				pp_fit_sample *p = &smp[ns];
				p->t_s = pp_json_get_num(x, "t_s", NAN);
				p->interval_s = pp_json_get_num(x, "interval_s", NAN);
				p->flop = flop * pp_json_get_num(x, "gemms", NAN);
				p->sm_clock_hz = pp_json_get_num(x, "sm_clock_MHz", NAN) * 1e6;
				p->power_w = pp_json_get_num(x, "power_W", NAN);
				p->temp_c = pp_json_get_num(x, "temp_C", NAN);
				p->reasons = (int64_t)pp_json_get_num(x, "reasons", -1);
				double l = pp_json_get_num(x, "power_limit_W", NAN);
				if (isfinite(l))
					limit = l;
				cJSON_Delete(x);
				if (isfinite(p->t_s) && p->interval_s > 0 && p->flop > 0)
					ns++;
			}
			pp_sustained_summary sum;
			pp_err sub = {0};
			if (pp_fit_sustained_summary(flop / (b->time_us * 1e-6), smp, ns, &sum, &sub))
				continue;
			fr[ng] = sum.fraction;
			bu[ng] = sum.burst_flops;
			su[ng] = sum.sustained_flops;
			ck[ng] = sum.sm_clock_hz;
			ck0[ng] = sum.first_sm_clock_hz;
			pw[ng] = sum.power_w;
			tc[ng] = sum.temp_c;
			pl[ng] = limit;
			ng++;
			/* the steady samples' fractions, pooled over GPUs, for the interval */
			for (int k = 0; k < ns; k++)
				if (smp[k].t_s >= 0.5 * smp[ns - 1].t_s)
					fs[nfs++] = smp[k].flop / smp[k].interval_s / sum.burst_flops;
			if (sum.reasons >= 0)
				ps->reasons = (ps->reasons < 0 ? 0 : ps->reasons) | sum.reasons;
			ps->points += sum.steady;
			if (sum.seconds < ps->seconds)
				ps->seconds = sum.seconds;
			ps->m = b->m;
			ps->n = b->n;
			ps->k = b->k;
		}
		if (!ng)
			continue;
		double mean = 0, var = 0;
		for (int i = 0; i < nfs; i++)
			mean += fs[i] / nfs;
		for (int i = 0; i < nfs; i++)
			var += (fs[i] - mean) * (fs[i] - mean) / (nfs > 1 ? nfs - 1 : 1);
		out->has_sustained[dt] = true;
		out->gemm_sustained_fraction[dt] = pp_fit_median(fr, ng);
		out->gemm_sustained_ci[dt] = nfs > 1 ? 1.96 * sqrt(var / nfs) : 0;
		ps->gpus = ng;
		ps->burst_flops = pp_fit_median(bu, ng);
		ps->sustained_flops = pp_fit_median(su, ng);
		ps->sm_clock_hz = pp_fit_median_finite(ck, ng);
		ps->first_sm_clock_hz = pp_fit_median_finite(ck0, ng);
		ps->power_w = pp_fit_median_finite(pw, ng);
		ps->power_limit_w = pp_fit_median_finite(pl, ng);
		ps->temp_c = pp_fit_median_finite(tc, ng);
	}
	free(smp);
	free(fr);
	free(bu);
	free(su);
	free(ck);
	free(ck0);
	free(pw);
	free(pl);
	free(tc);
	free(fs);
}
