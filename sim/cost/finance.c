/* finance.c - see finance.h. */
#include "cost/finance.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>

double pp_fin_npv(double rate, const double *cf, size_t n)
{
	double v = 0, disc = 1;
	for (size_t t = 0; t < n; t++) {
		v += cf[t] / disc;
		disc *= 1.0 + rate;
	}
	return v;
}

typedef struct irr_arg {
	const double *cf;
	size_t n;
} irr_arg;

static double npv_at(double r, void *p)
{
	const irr_arg *a = p;
	return pp_fin_npv(r, a->cf, a->n);
}

double pp_fin_irr(const double *cf, size_t n)
{
	/* Bracket the root on a grid first: NPV(r) of a conventional
	 * investment falls monotonically, but a non-conventional one can have
	 * several roots; the first sign change from the low end is taken. */
	irr_arg a = {cf, n};
	const double lo0 = -0.99, hi0 = 10.0;
	const int steps = 200;
	double lo = lo0, flo = npv_at(lo, &a), hi = NAN;
	for (int i = 1; i <= steps; i++) {
		double r = lo0 + (hi0 - lo0) * i / steps;
		double f = npv_at(r, &a);
		if (f == 0)
			return r;
		if ((flo < 0) != (f < 0)) {
			hi = r;
			break;
		}
		lo = r;
		flo = f;
	}
	if (isnan(hi))
		return NAN;
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	gsl_function F = {npv_at, &a};
	gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
	double root = NAN;
	if (s && gsl_root_fsolver_set(s, &F, lo, hi) == GSL_SUCCESS) {
		for (int it = 0; it < 200; it++) {
			if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
				break;
			root = gsl_root_fsolver_root(s);
			double xl = gsl_root_fsolver_x_lower(s), xu = gsl_root_fsolver_x_upper(s);
			if (gsl_root_test_interval(xl, xu, 0, 1e-12) == GSL_SUCCESS)
				break;
		}
	}
	if (s)
		gsl_root_fsolver_free(s);
	gsl_set_error_handler(old);
	return root;
}

static double payback_of(const double *cf, size_t n, double rate, int discounted)
{
	double cum = 0, disc = 1;
	for (size_t t = 0; t < n; t++) {
		double v = discounted ? cf[t] / disc : cf[t];
		double prev = cum;
		cum += v;
		if (cum >= 0) {
			if (t == 0 || v <= 0)
				return (double)t;
			/* linear inside period t: prev < 0 <= cum */
			return (double)(t - 1) + (-prev) / v;
		}
		disc *= 1.0 + rate;
	}
	return NAN;
}

double pp_fin_payback(const double *cf, size_t n)
{
	return payback_of(cf, n, 0, 0);
}

double pp_fin_discounted_payback(double rate, const double *cf, size_t n)
{
	return payback_of(cf, n, rate, 1);
}

double pp_fin_monthly_rate(double annual)
{
	return pow(1.0 + annual, 1.0 / 12.0) - 1.0;
}

double pp_fin_annual_rate(double monthly)
{
	return pow(1.0 + monthly, 12.0) - 1.0;
}

double pp_fin_crf(double rate, double periods)
{
	if (periods <= 0)
		return NAN;
	if (fabs(rate) < 1e-12)
		return 1.0 / periods;
	return rate / (1.0 - pow(1.0 + rate, -periods));
}

void pp_fin_annuity_init(pp_fin_annuity *a, double annual_rate, double years)
{
	a->growth = pow(1.0 + annual_rate, years);
	a->crf = pp_fin_crf(annual_rate, years);
}

double pp_fin_annuity_eac(const pp_fin_annuity *a, double capex, double salvage)
{
	return (capex - salvage / a->growth) * a->crf;
}

double pp_fin_eac(double capex, double salvage, double annual_rate, double years)
{
	pp_fin_annuity a;
	pp_fin_annuity_init(&a, annual_rate, years);
	return pp_fin_annuity_eac(&a, capex, salvage);
}

double pp_fin_book_value(double cost, double salvage_fraction, double years, double age_years)
{
	double salvage = cost * salvage_fraction;
	if (years <= 0 || age_years >= years)
		return salvage;
	if (age_years <= 0)
		return cost;
	return cost - (cost - salvage) * age_years / years;
}

double pp_fin_market_value(double price, double ooms_per_year, double age_years)
{
	if (age_years <= 0)
		return price;
	return price * pow(10.0, -ooms_per_year * age_years);
}

void pp_fin_epoch_amortized(const pp_epoch_in *in, pp_epoch_out *out)
{
	out->value_per_chip_usd = pp_fin_market_value(in->price_per_chip_usd, in->ooms_per_year,
						      in->years_owned_before_run);
	/* Replacing hardware at k OOM/year of progress is optimal at a rate of
	 * k ln(10) per year (Epoch AI, "The longest training run"). */
	out->usd_per_chip_hour = out->value_per_chip_usd * in->ooms_per_year * log(10.0) /
				 in->hours_per_year;
	out->hardware_usd = out->usd_per_chip_hour * in->chip_hours;
	out->interconnect_usd = out->hardware_usd * in->interconnect_fraction /
				(1.0 - in->interconnect_fraction);
	double kw = in->chip_tdp_w / 1000.0 * in->chip_to_server * in->tdp_fraction * in->pue;
	out->energy_usd = kw * in->chip_hours * in->usd_per_kwh;
	out->total_usd = out->hardware_usd + out->interconnect_usd + out->energy_usd;
}
