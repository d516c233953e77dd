/* goodput.c - see goodput.h. */
#include "cost/goodput.h"

#include <math.h>

double pp_gp_young_s(double delta_s, double mtbf_s)
{
	return sqrt(2.0 * delta_s * mtbf_s);
}

double pp_gp_daly_s(double delta_s, double mtbf_s)
{
	if (!isfinite(mtbf_s))
		return INFINITY;
	if (delta_s >= 2.0 * mtbf_s)
		return mtbf_s;
	double x = delta_s / (2.0 * mtbf_s);
	return sqrt(2.0 * delta_s * mtbf_s) * (1.0 + sqrt(x) / 3.0 + x / 9.0) - delta_s;
}

double pp_gp_efficiency(double tau_s, double delta_s, double restart_s, double mtbf_s)
{
	if (!isfinite(mtbf_s))
		return tau_s > 0 && isfinite(tau_s) ? tau_s / (tau_s + delta_s) : 1.0;
	if (tau_s <= 0)
		return 0;
	/* expm1 keeps precision when (tau + delta) << M. */
	double wall_per_work = mtbf_s * exp(restart_s / mtbf_s) * expm1((tau_s + delta_s) / mtbf_s) /
			       tau_s;
	return 1.0 / wall_per_work;
}

double pp_gp_spot_rate_per_hour(double monthly_fraction, double hours_per_month)
{
	if (monthly_fraction <= 0)
		return 0;
	if (monthly_fraction >= 1)
		return INFINITY;
	return -log1p(-monthly_fraction) / hours_per_month;
}

void pp_goodput_eval(const pp_goodput_in *in, pp_goodput *out)
{
	double rate = in->failures_per_gpu_hour * in->num_gpus + in->spot_per_node_hour * in->nodes;
	out->interrupts_per_hour = rate;
	out->mtbf_s = rate > 0 ? 3600.0 / rate : INFINITY;
	double delta = in->checkpoint_write_s > 0 ? in->checkpoint_write_s : 0;
	if (in->checkpoint_interval_s > 0)
		out->interval_s = in->checkpoint_interval_s;
	else if (delta > 0)
		out->interval_s = pp_gp_daly_s(delta, out->mtbf_s);
	else
		out->interval_s = isfinite(out->mtbf_s) ? out->mtbf_s * 1e-3 : INFINITY;
	if (!isfinite(out->mtbf_s)) {
		out->goodput = isfinite(out->interval_s) ? out->interval_s / (out->interval_s + delta) : 1.0;
		out->checkpoint_share = 1.0 - out->goodput;
		out->rework_share = out->restart_share = 0;
		return;
	}
	out->goodput = pp_gp_efficiency(out->interval_s, delta, in->restart_s, out->mtbf_s);
	/* First-order split of the loss (Young): checkpoints delta/tau, rework
	 * (tau + delta)/2M, restarts R/M; scaled to add up to 1 - goodput. */
	double c = delta / out->interval_s;
	double w = (out->interval_s + delta) / (2.0 * out->mtbf_s);
	double r = in->restart_s / out->mtbf_s;
	double loss = 1.0 - out->goodput, sum = c + w + r;
	double k = sum > 0 ? loss / sum : 0;
	out->checkpoint_share = c * k;
	out->rework_share = w * k;
	out->restart_share = r * k;
}
