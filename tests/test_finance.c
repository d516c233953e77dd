/*
 * test_finance.c - NPV, IRR, payback, capital recovery and residual value
 * against hand-computed cases (the arithmetic is written out beside each).
 */
#include "cost/finance.h"
#include "harness.h"

#include <math.h>

static void test_npv_hand(void)
{
	/* -1000 + 300/1.1 + 400/1.21 + 500/1.331
	 * = -1000 + 272.7273 + 330.5785 + 375.6574 = -21.0368 */
	double cf[] = {-1000, 300, 400, 500};
	CHECK_NEAR(pp_fin_npv(0.10, cf, 4), -21.0368, 1e-4);
	/* at rate 0 the NPV is the plain sum */
	CHECK_NEAR(pp_fin_npv(0, cf, 4), 200.0, 1e-12);
}

static void test_irr_hand(void)
{
	/* -100 then +110 one period later: 10% exactly */
	double a[] = {-100, 110};
	CHECK_NEAR(pp_fin_irr(a, 2), 0.10, 1e-9);
	/* -100, 0, +121: (1+r)^2 = 1.21 -> 10% */
	double b[] = {-100, 0, 121};
	CHECK_NEAR(pp_fin_irr(b, 3), 0.10, 1e-9);
	/* 3-period annuity of 500 on 1000: annuity factor 2 -> r = 23.3752% (textbook tables) */
	double c[] = {-1000, 500, 500, 500};
	CHECK_NEAR(pp_fin_irr(c, 4), 0.233752, 1e-4);
	/* -1000, 300, 400, 500: the NPV above is negative at 10%, so IRR < 10%; 8.8963% */
	double d[] = {-1000, 300, 400, 500};
	CHECK_NEAR(pp_fin_irr(d, 4), 0.088963, 1e-3);
	/* never pays back: no IRR */
	double e[] = {-1000, -10, -10};
	CHECK(isnan(pp_fin_irr(e, 3)));
}

static void test_payback_hand(void)
{
	/* cumulative -700, -300, +200: 2 full periods + 300/500 of the third */
	double a[] = {-1000, 300, 400, 500};
	CHECK_NEAR(pp_fin_payback(a, 4), 2.6, 1e-12);
	/* discounted at 10% the cumulative ends at -21.04: never */
	CHECK(isnan(pp_fin_discounted_payback(0.10, a, 4)));
	/* -1000, 600, 600: 1 + 400/600 */
	double b[] = {-1000, 600, 600};
	CHECK_NEAR(pp_fin_payback(b, 3), 1.0 + 400.0 / 600.0, 1e-12);
	/* discounted at 10%: -1000, +545.45 (cum -454.55), +495.87 -> 1 + 454.55/495.87 = 1.9167 */
	CHECK_NEAR(pp_fin_discounted_payback(0.10, b, 3), 1.91667, 1e-4);
	double c[] = {0, 5};
	CHECK(pp_fin_payback(c, 2) == 0);
}

static void test_crf_eac_hand(void)
{
	/* CRF(10%, 3) = 0.1 / (1 - 1.1^-3) = 0.1 / 0.248685 = 0.402115 */
	CHECK_NEAR(pp_fin_crf(0.10, 3), 0.402115, 1e-5);
	CHECK_NEAR(pp_fin_crf(0, 4), 0.25, 1e-12);
	/* EAC: (1000 - 100/1.331) x 0.402115 = 924.869 x 0.402115 = 371.904 */
	CHECK_NEAR(pp_fin_eac(1000, 100, 0.10, 3), 371.904, 1e-5);
	/* monthly equivalent of 12%/year: 1.12^(1/12) - 1 = 0.9488793% */
	CHECK_NEAR(pp_fin_monthly_rate(0.12), 0.009488793, 1e-6);
	CHECK_NEAR(pp_fin_annual_rate(pp_fin_monthly_rate(0.12)), 0.12, 1e-12);
	/* a level monthly payment: NPV of 12 payments of CRF(r_m,12) at r_m repays 1 */
	double r = pp_fin_monthly_rate(0.12), cf[13];
	cf[0] = -1;
	for (int i = 1; i <= 12; i++)
		cf[i] = pp_fin_crf(r, 12);
	CHECK_NEAR(pp_fin_npv(r, cf, 13), 0.0, 1e-9);
}

static void test_residual_hand(void)
{
	/* straight line 1000 -> 100 over 5 years; after 2 years 1000 - 900 x 2/5 = 640 */
	CHECK_NEAR(pp_fin_book_value(1000, 0.10, 5, 2), 640, 1e-12);
	CHECK_NEAR(pp_fin_book_value(1000, 0.10, 5, 9), 100, 1e-12);
	CHECK_NEAR(pp_fin_book_value(1000, 0.10, 5, 0), 1000, 1e-12);
	/* Epoch's 0.14 OOM/year: 10^-0.14 = 0.724436 after one year */
	CHECK_NEAR(pp_fin_market_value(1, 0.14, 1), 0.724436, 1e-5);
	CHECK_NEAR(pp_fin_market_value(1, 0.14, 0), 1.0, 1e-12);
}

/* Properties: NPV falls as the rate rises for a conventional investment,
 * and the IRR is where it crosses zero. */
static void test_npv_monotone(void)
{
	double cf[] = {-500, 200, 200, 200};
	double prev = INFINITY;
	for (int i = 0; i <= 40; i++) {
		double v = pp_fin_npv(i * 0.01, cf, 4);
		CHECK(v < prev);
		prev = v;
	}
	double irr = pp_fin_irr(cf, 4);
	CHECK(pp_fin_npv(irr - 0.001, cf, 4) > 0);
	CHECK(pp_fin_npv(irr + 0.001, cf, 4) < 0);
}

int main(void)
{
	RUN(test_npv_hand);
	RUN(test_irr_hand);
	RUN(test_payback_hand);
	RUN(test_crf_eac_hand);
	RUN(test_residual_hand);
	RUN(test_npv_monotone);
	return pp_t_done("test_finance");
}
