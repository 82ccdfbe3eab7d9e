/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_stats.c - tw on a hand-computed trace, hist quantiles and mean, a
 * histogram's growing octave range (order and merges change nothing), its
 * pending samples counted by reads, growth and merges, zeros, a bad
 * sample's abort, rep mean/sd/ci95 on known data, fsum_repeat against its
 * loop.
 */
#include "stats.h"

#include <check.h>
#include <math.h>
#include <signal.h>

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

/* The same samples in any order, or split and merged, give the same bytes:
 * the octave range grows down, up and in the middle, and the copies keep
 * every count where the full table would have it. */
START_TEST(test_hist_grow)
{
	enum { N = 600 };
	static double x[N];
	struct hist *up = hist_new(), *down = hist_new(), *wide = hist_new();
	struct hist *a = hist_new(), *b = hist_new(), *m = hist_new();
	struct hist *mid = hist_new(), *rest = hist_new(), *mid2 = hist_new(), *rest2 = hist_new();
	uint64_t s = 12345;
	double q;
	int i;

	for (i = 0; i < N; i++) {	/* 2^-12 .. 2^52: under, buckets, over */
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		x[i] = ldexp(1 + (double)(s >> 11) / 9007199254740992.0, (int)(s >> 58) - 12);
	}
	hist_add(wide, ldexp(1, -10));	/* the whole range first */
	hist_add(wide, ldexp(1.99, 49));
	for (i = 0; i < N; i++) {
		hist_add(up, x[i]);
		hist_add(down, x[N - 1 - i]);
		hist_add(i < N / 2 ? b : a, x[i]);	/* a: the later half */
		hist_add(wide, x[i]);
		/* mid: 2^0 .. 2^20 only, inside rest's range after the merge */
		hist_add(x[i] >= 1 && x[i] < ldexp(1, 21) ? mid : rest, x[i]);
		hist_add(x[i] >= 1 && x[i] < ldexp(1, 21) ? mid2 : rest2, x[i]);
	}
	hist_add(rest, ldexp(1, -10));
	hist_add(rest, ldexp(1.99, 49));
	hist_add(rest2, ldexp(1, -10));
	hist_add(rest2, ldexp(1.99, 49));
	hist_merge(rest, mid);		/* a narrower range into the middle of a wider */
	hist_merge(mid2, rest2);	/* a wider range around a narrower */
	hist_add(up, ldexp(1, -10));
	hist_add(up, ldexp(1.99, 49));
	hist_add(down, ldexp(1.99, 49));
	hist_add(down, ldexp(1, -10));
	hist_add(a, ldexp(1, -10));
	hist_add(b, ldexp(1.99, 49));
	hist_merge(a, b);		/* b's octaves below and above a's */
	hist_merge(m, a);		/* into an empty one */
	ck_assert_uint_eq(hist_count(m), N + 2);
	for (q = 0; q <= 1.0; q += 1.0 / 512) {
		double w = hist_quantile(wide, q);

		ck_assert_double_eq(hist_quantile(up, q), w);
		ck_assert_double_eq(hist_quantile(down, q), w);
		ck_assert_double_eq(hist_quantile(a, q), w);
		ck_assert_double_eq(hist_quantile(m, q), w);
		ck_assert_double_eq(hist_quantile(rest, q), w);
		ck_assert_double_eq(hist_quantile(mid2, q), w);
	}
	hist_free(mid);
	hist_free(rest);
	hist_free(mid2);
	hist_free(rest2);
	hist_free(up);
	hist_free(down);
	hist_free(wide);
	hist_free(a);
	hist_free(b);
	hist_free(m);
}
END_TEST

/* Samples whose bucket counts still wait (stats.c HIST_PEND) are counted
 * by every read, before the bucket table moves, and in a merge. */
START_TEST(test_hist_pending)
{
	struct hist *h = hist_new(), *g = hist_new(), *src = hist_new(), *dst = hist_new();
	int i;

	for (i = 0; i < 3; i++)
		hist_add(h, 100);
	ck_assert_double_eq_tol(hist_quantile(h, 0.5), 100, 2);	/* a read counts them */
	for (i = 0; i < 5; i++)
		hist_add(g, 100);
	hist_add(g, 0.5);	/* an octave below: the table moves */
	hist_add(g, 1e6);	/* and one above */
	ck_assert_double_eq_tol(hist_quantile(g, 0.1), 0.5, 0.01);
	ck_assert_double_eq_tol(hist_quantile(g, 0.5), 100, 2);
	ck_assert_double_eq_tol(hist_quantile(g, 0.75), 100, 2);
	for (i = 0; i < 4; i++)
		hist_add(src, 1000);
	hist_merge(dst, src);	/* a merge counts src's */
	ck_assert_double_eq_tol(hist_quantile(dst, 0.5), 1000, 20);
	for (i = 0; i < 100; i++)	/* many batches, then the rest */
		hist_add(h, i < 50 ? 7 : 70);
	ck_assert_double_eq_tol(hist_quantile(h, 0.25), 7, 0.2);
	ck_assert_double_eq_tol(hist_quantile(h, 0.75), 70, 2);
	ck_assert_uint_eq(hist_count(h), 103);
	hist_free(h);
	hist_free(g);
	hist_free(src);
	hist_free(dst);
}
END_TEST

/* Zeros (hist_add's inline path, stats.h): counted, in the mean and the
 * quantiles, the extremes; alone, and below other samples. */
START_TEST(test_hist_zeros)
{
	struct hist *h = hist_new();
	int i;

	for (i = 0; i < 10; i++)
		hist_add(h, 0);
	ck_assert_uint_eq(hist_count(h), 10);
	ck_assert_double_eq(hist_mean(h), 0);
	ck_assert_double_eq(hist_quantile(h, 0), 0);
	ck_assert_double_eq(hist_quantile(h, 0.5), 0);
	ck_assert_double_eq(hist_quantile(h, 1), 0);
	for (i = 0; i < 10; i++)
		hist_add(h, 64);
	ck_assert_uint_eq(hist_count(h), 20);
	ck_assert_double_eq(hist_mean(h), 32);
	ck_assert_double_eq(hist_quantile(h, 0.4), 0);
	ck_assert_double_eq_tol(hist_quantile(h, 0.6), 64, 1);
	ck_assert_double_eq(hist_quantile(h, 1), 64);
	hist_free(h);
}
END_TEST

/* A negative, NaN or infinite sample is a model bug: hist_add aborts, also
 * when b[] covers the octave of its magnitude (the sign bit or the
 * exponent field alone takes it off the common path, to the check). */
static const double hist_bad[] = { -5, -0x1p-20, -0x1.8p60, NAN, -NAN, INFINITY, -INFINITY };

START_TEST(test_hist_bad_sample)
{
	struct hist *h = hist_new();

	hist_add(h, 4);
	hist_add(h, 7);
	hist_add(h, -0.0);	/* a zero, as +0 */
	ck_assert_uint_eq(hist_count(h), 3);
	ck_assert_double_eq(hist_quantile(h, 0), 0);
	hist_add(h, hist_bad[_i]);
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

/* The loop that fsum_repeat stands for. */
static double
sum_loop(double s, const double *c, int n, int64_t k)
{
	int64_t i;
	int j;

	for (i = 0; i < k; i++)
		for (j = 0; j < n; j++)
			s += c[j];
	return s;
}

/* fsum_repeat gives the loop's bits: sums that cross binades, ties (a c of
 * half an ulp, whose rounding follows the sum's parity), zeros, c larger
 * than the sum, tiny c that round away, and random ones. */
START_TEST(test_fsum_repeat_is_the_loop)
{
	static const double fixed[][3] = {
		{ 1.0, 0x1p-53, 0 },		/* half an ulp of 1: a tie each time */
		{ 1.0, 0x1p-52, 0x1p-54 },
		{ 0x1p52, 0.5, 1.5 },		/* ties at 2^52 */
		{ 3.0, 1e-300, 2.0 },
		{ 0.0, 0.1, 0.2 },
		{ 1e6, 0.1, 0 },
		{ 100.0, 1e9, 7.25 },
	};
	uint64_t x = 88172645463325252ULL;
	size_t i;
	int t;

	for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
		double a = sum_loop(fixed[i][0], &fixed[i][1], 2, 5000);
		double b = fsum_repeat(fixed[i][0], &fixed[i][1], 2, 5000);

		ck_assert_msg(a == b, "case %zu: %a loop, %a repeat", i, a, b);
	}
	for (t = 0; t < 300; t++) {
		double c[4], s;
		int n = 1 + t % 4, j;
		int64_t k;

		for (j = 0; j < n; j++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* costs of ns to us, some of them a few ulps' worth */
			c[j] = (double)(x % 100000) / (double)(1 + (x >> 40) % 1000);
		}
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		s = (double)(x % 1000000) * 0.37;
		k = 1 + (int64_t)((x >> 32) % 20000);
		ck_assert_msg(sum_loop(s, c, n, k) == fsum_repeat(s, c, n, k),
		    "trial %d: %a loop, %a repeat", t, sum_loop(s, c, n, k),
		    fsum_repeat(s, c, n, k));
	}
}
END_TEST

static Suite *
stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 0);

	tcase_add_test(tc, test_tw_hand);
	tcase_add_test(tc, test_hist_uniform);
	tcase_add_test(tc, test_hist_range);
	tcase_add_test(tc, test_hist_grow);
	tcase_add_test(tc, test_hist_pending);
	tcase_add_test(tc, test_hist_zeros);
	tcase_add_loop_test_raise_signal(tc, test_hist_bad_sample, SIGABRT, 0,
	    (int)(sizeof hist_bad / sizeof hist_bad[0]));
	tcase_add_test(tc, test_rep_known);
	tcase_add_test(tc, test_fsum_repeat_is_the_loop);
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
