/*
 * finance.h - the finance arithmetic of the TCO engine: NPV, IRR, payback,
 * capital recovery, residual value, and Epoch AI's amortised-hardware
 * training cost (Cottier et al. 2024). Pure functions of their arguments:
 * no catalog, no globals, every rate and constant passed in.
 *
 * Conventions: a cash-flow array cf[0..n-1] holds one value per period,
 * cf[0] at time 0 (undiscounted), cf[t] at the end of period t; outflows
 * negative. Rates are per period unless the name says annual.
 */
#ifndef PP_FINANCE_H
#define PP_FINANCE_H

#include <stddef.h>

/* Hours in a year of 365.25 days and in an average month (definitions,
 * not measurements). */
#define PP_HOURS_PER_YEAR 8766.0
#define PP_HOURS_PER_MONTH (PP_HOURS_PER_YEAR / 12.0)
#define PP_SECONDS_PER_MONTH (PP_HOURS_PER_MONTH * 3600.0)

/* Net present value: sum of cf[t] / (1 + rate)^t. */
double pp_fin_npv(double rate, const double *cf, size_t n);

/* Internal rate of return per period: the rate in (-0.99, 10) at which the
 * NPV is zero, found with GSL's Brent solver. NAN when the NPV does not
 * change sign over that range (no IRR, e.g. all flows negative). */
double pp_fin_irr(const double *cf, size_t n);

/* Payback: the (fractional) period at which the cumulative cash flow first
 * turns >= 0, linearly interpolated inside the period; 0 when cf[0] >= 0;
 * NAN when it never does within n periods. */
double pp_fin_payback(const double *cf, size_t n);
/* Same on discounted flows cf[t] / (1 + rate)^t. */
double pp_fin_discounted_payback(double rate, const double *cf, size_t n);

/* (1 + annual)^(1/12) - 1: the monthly rate equivalent to an annual one. */
double pp_fin_monthly_rate(double annual);
/* (1 + monthly)^12 - 1. */
double pp_fin_annual_rate(double monthly);

/* Capital recovery factor r / (1 - (1 + r)^-n): the level payment per
 * period that repays 1 over n periods at rate r (1/n at r = 0). */
double pp_fin_crf(double rate, double periods);

/* Equivalent annual cost of an asset bought for capex, sold for salvage
 * after `years`: (capex - salvage / (1 + r)^years) x CRF(r, years). */
double pp_fin_eac(double capex, double salvage, double annual_rate, double years);

/* pp_fin_eac's two factors for one rate and life, computed once where
 * many assets share them (each Monte Carlo draw of an owned option):
 * pp_fin_annuity_eac(&a, capex, salvage) after pp_fin_annuity_init(&a,
 * annual_rate, years) equals pp_fin_eac(capex, salvage, annual_rate,
 * years) bit for bit (pp_fin_eac is computed through them). */
typedef struct pp_fin_annuity {
	double growth;  /* (1 + r)^years */
	double crf;     /* pp_fin_crf(r, years) */
} pp_fin_annuity;
void pp_fin_annuity_init(pp_fin_annuity *a, double annual_rate, double years);
double pp_fin_annuity_eac(const pp_fin_annuity *a, double capex, double salvage);

/* Book value under straight-line depreciation to salvage_fraction of cost
 * over `years`; never below the salvage value. */
double pp_fin_book_value(double cost, double salvage_fraction, double years, double age_years);

/* Market value of hardware after age_years when price-performance improves
 * by ooms_per_year orders of magnitude a year (Epoch AI: 0.14):
 * price x 10^(-ooms_per_year x age_years). */
double pp_fin_market_value(double price, double ooms_per_year, double age_years);

/*
 * Epoch AI's amortised hardware + energy cost of a training run (Cottier et
 * al. 2024, "The rising costs of training frontier AI models", arXiv
 * 2405.21015, sec. 2.1; epoch-research/training-cost-trends):
 *   value      = price_per_chip x 10^(-ooms_per_year x years_owned_before_run)
 *   $/chip-hr  = value x (ooms_per_year x ln 10) / hours_per_year
 *   hardware   = $/chip-hr x chip_hours
 *   interconnect = hardware x f / (1 - f)
 *   energy     = chip_tdp_kw x chip_to_server x tdp_fraction x pue x chip_hours x usd_per_kwh
 */
typedef struct pp_epoch_in {
	double price_per_chip_usd;    /* server price per GPU at acquisition */
	double years_owned_before_run;/* acquisition to training start */
	double ooms_per_year;         /* GPU price-performance trend */
	double chip_hours;            /* GPUs x training hours */
	double interconnect_fraction; /* share of cluster capex */
	double chip_tdp_w;
	double chip_to_server;        /* server power per GPU / GPU TDP */
	double tdp_fraction;          /* average draw / server TDP during training */
	double pue;
	double usd_per_kwh;
	double hours_per_year;
} pp_epoch_in;

typedef struct pp_epoch_out {
	double value_per_chip_usd;    /* depreciated to the training start */
	double usd_per_chip_hour;
	double hardware_usd, interconnect_usd, energy_usd, total_usd;
} pp_epoch_out;

void pp_fin_epoch_amortized(const pp_epoch_in *in, pp_epoch_out *out);

#endif
