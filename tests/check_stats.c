/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_stats.c - tw on a hand-computed trace, hist quantiles and mean,
 * rep mean/sd/ci95 on known data.
 */
#include "stats.h"

#include <check.h>
#include <math.h>

START_TEST(test_tw_hand)
{
	struct tw w;

	/* Level 2 on [0,10), 5 on [10,15), 1 on [15,20): (20+25+5)/20 = 2.5. */
	tw_init(&w, 0, 2);
	ck_assert_double_eq(tw_mean(&w, 0), 2);
	tw_set(&w, 10, 5);
	tw_add(&w, 15, -4);
	ck_assert_double_eq_tol(tw_mean(&w, 20), 2.5, 1e-12);
	/* Same trace started at 100: start matters, not 0. */
	tw_init(&w, 100, 0);
	tw_add(&w, 100, 3);
	tw_add(&w, 130, 1);		/* 3 for 30, then 4 for 10 */
	ck_assert_double_eq_tol(tw_mean(&w, 140), (90.0 + 40.0) / 40.0, 1e-12);
	ck_assert_double_eq_tol(tw_mean(&w, 130), 3.0, 1e-12);
}
END_TEST

START_TEST(test_hist_uniform)
{
	static const double qs[] = { 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999 };
	struct hist *h = hist_new();
	size_t i;
	int v;

	ck_assert_uint_eq(hist_count(h), 0);
	for (v = 1; v <= 10000; v++)
		hist_add(h, v);
	ck_assert_uint_eq(hist_count(h), 10000);
	ck_assert_double_eq_tol(hist_mean(h), 5000.5, 1e-9);
	for (i = 0; i < sizeof qs / sizeof qs[0]; i++) {
		double want = 1 + qs[i] * 9999, got = hist_quantile(h, qs[i]);

		ck_assert_msg(fabs(got - want) <= 0.02 * want,
		    "q=%g: got %g want %g", qs[i], got, want);
	}
	ck_assert_double_eq(hist_quantile(h, 0), 1);
	ck_assert_double_eq(hist_quantile(h, 1), 10000);
	hist_free(h);
}
END_TEST

START_TEST(test_hist_range)
{
	struct hist *h = hist_new();
	double v, got;
	int i;

	/*
	 * A point mass between a 0 and a 1e17 (so min/max cannot clamp): the
	 * median comes from inside v's bucket and must be within 2% of v.
	 */
	for (v = 1.7e-3; v < 1e15; v *= 13.3) {
		hist_add(h, 0);
		for (i = 0; i < 3; i++)
			hist_add(h, v);
		hist_add(h, 1e17);
		got = hist_quantile(h, 0.5);
		hist_free(h);
		h = hist_new();
		ck_assert_msg(fabs(got - v) <= 0.02 * v, "v=%g got %g", v, got);
	}
	/* Zeros, tiny and huge values are counted and kept in order. */
	for (i = 0; i < 50; i++)
		hist_add(h, 0);
	for (i = 0; i < 30; i++)
		hist_add(h, 1e-6);
	for (i = 0; i < 20; i++)
		hist_add(h, 1e17);
	ck_assert_uint_eq(hist_count(h), 100);
	ck_assert_double_eq_tol(hist_mean(h), (30e-6 + 20e17) / 100, 1e3);
	ck_assert_double_eq(hist_quantile(h, 0.3), 0);
	ck_assert(hist_quantile(h, 0.6) > 0 && hist_quantile(h, 0.6) <= 1e-3);
	ck_assert_double_eq_tol(hist_quantile(h, 0.95), 1e17, 1e15);
	hist_free(h);
}
END_TEST

START_TEST(test_rep_known)
{
	static const double xs[] = { 1, 2, 3, 4, 5 };
	struct rep r;
	size_t i;

	rep_init(&r);
	ck_assert_double_eq(rep_sd(&r), 0);
	ck_assert_double_eq(rep_ci95(&r), 0);
	rep_add(&r, 7);
	ck_assert_double_eq(rep_mean(&r), 7);
	ck_assert_double_eq(rep_sd(&r), 0);
	ck_assert_double_eq(rep_ci95(&r), 0);
	rep_init(&r);
	for (i = 0; i < 5; i++)
		rep_add(&r, xs[i]);
	ck_assert_double_eq_tol(rep_mean(&r), 3, 1e-12);
	ck_assert_double_eq_tol(rep_sd(&r), 1.5811388, 1e-6);
	/* t(0.975, 4) = 2.776445 */
	ck_assert_double_eq_tol(rep_ci95(&r), 2.776445 * 1.5811388 / sqrt(5), 1e-5);
	ck_assert_double_eq_tol(rep_ci95(&r), 1.9632, 1e-4);
	/* Welford must survive a large offset. */
	rep_init(&r);
	for (i = 0; i < 5; i++)
		rep_add(&r, 1e9 + xs[i]);
	ck_assert_double_eq_tol(rep_sd(&r), 1.5811388, 1e-6);
}
END_TEST

static Suite *
stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_tw_hand);
	tcase_add_test(tc, test_hist_uniform);
	tcase_add_test(tc, test_hist_range);
	tcase_add_test(tc, test_rep_known);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(stats_suite());
	int failures;

	srunner_run_all(sr, CK_NORMAL);
	failures = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failures ? 1 : 0;
}
