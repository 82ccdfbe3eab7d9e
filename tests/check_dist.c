/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_dist.c - distributions: sample means against analytic means, the
 * truncated normal, empirical sets (inline and CSV), and YAML errors.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ckpass.h"
#include "dist.h"
#include "rng.h"
#include "yconf.h"

#define NDRAWS	200000

static struct yc_doc *
load(const char *text)
{
	struct vs_err err = { "" };
	struct yc_doc *doc = yc_load_string("d.yaml", text, &err);

	ck_assert_msg(doc != NULL, "load failed: %s", err.msg);
	return doc;
}

static struct dist *
build(struct yc_doc *doc, const char *path)
{
	struct vs_err err = { "" };
	struct dist *d = dist_from_yaml(yc_lookup(yc_root(doc), path), UNIT_TIME,
	    2.93e9, &err);

	ck_assert_msg(d != NULL, "%s: %s", path, err.msg);
	return d;
}

/* dist_from_yaml must fail on doc's "d" with exactly msg. */
static void
build_err(const char *text, const char *msg)
{
	struct yc_doc *doc = load(text);
	struct vs_err err = { "" };
	struct dist *d = dist_from_yaml(yc_lookup(yc_root(doc), "d"), UNIT_TIME, 0, &err);

	ck_assert_msg(d == NULL, "'%s' should fail", text);
	ck_assert_str_eq(err.msg, msg);
	yc_free(doc);
}

/*
 * Sample mean of NDRAWS draws within 3 standard errors of the analytic
 * mean, and within 1% of it.
 */
static void
check_mean(struct dist *d, double mean, double sd)
{
	struct rng *r = rng_new(42, RNG_ENTITY(RNG_KIND_VM, 1));
	double sum = 0, m, tol = 3 * sd / sqrt(NDRAWS);
	int i;

	ck_assert_double_eq_tol(dist_mean(d), mean, 1e-9 * mean);
	for (i = 0; i < NDRAWS; i++)
		sum += dist_sample(d, r);
	m = sum / NDRAWS;
	ck_assert_msg(fabs(m - mean) <= tol, "sample mean %g, expected %g +- %g", m, mean, tol);
	ck_assert_msg(fabs(m - mean) <= 0.01 * mean, "sample mean %g not within 1%% of %g",
	    m, mean);
	rng_free(r);
}

START_TEST(test_parametric)
{
	struct yc_doc *doc = load(
	    "c1: 5us\n"
	    "c2: {dist: const, value: 4096cycles}\n"
	    "e: {dist: exponential, mean: 2us}\n"
	    "u: {dist: uniform, min: 1us, max: 3us}\n"
	    "n: {dist: normal, mean: 2us, sd: 500ns}\n"
	    "l: {dist: lognormal, mean: 2us, sd: 1us}\n"
	    "g: {dist: gamma, shape: 2, mean: 2us}\n");
	struct dist *d;
	struct rng *r = rng_new(1, 1);

	d = build(doc, "c1");
	ck_assert(dist_is_const(d));
	ck_assert_double_eq(dist_sample(d, r), 5000);
	ck_assert_double_eq(dist_mean(d), 5000);
	dist_free(d);
	d = build(doc, "c2");
	ck_assert(dist_is_const(d));
	ck_assert_double_eq_tol(dist_sample(d, r), 1397.95, 0.005);
	dist_free(d);

	d = build(doc, "e");
	ck_assert(!dist_is_const(d));
	check_mean(d, 2000, 2000);
	dist_free(d);
	d = build(doc, "u");
	check_mean(d, 2000, 2000 / sqrt(12));
	dist_free(d);
	d = build(doc, "n");
	check_mean(d, 2000, 500);
	dist_free(d);
	d = build(doc, "l");
	check_mean(d, 2000, 1000);
	dist_free(d);
	d = build(doc, "g");
	check_mean(d, 2000, 2000 / sqrt(2));
	dist_free(d);
	rng_free(r);
	yc_free(doc);
}
END_TEST

START_TEST(test_uniform_bounds_and_scale)
{
	struct yc_doc *doc = load("u: {dist: uniform, min: 1us, max: 3us}\n");
	struct dist *d = build(doc, "u");
	struct rng *r = rng_new(7, 3);
	double x;
	int i;

	for (i = 0; i < 10000; i++) {
		x = dist_sample(d, r);
		ck_assert(x >= 1000 && x <= 3000);
	}
	dist_scale(d, 2);
	ck_assert_double_eq(dist_mean(d), 4000);
	for (i = 0; i < 10000; i++) {
		x = dist_sample(d, r);
		ck_assert(x >= 2000 && x <= 6000);
	}
	dist_free(d);
	d = dist_const(3);
	dist_scale(d, 0.5);
	ck_assert_double_eq(dist_sample(d, r), 1.5);
	ck_assert_double_eq(dist_mean(d), 1.5);
	dist_free(d);
	rng_free(r);
	yc_free(doc);
}
END_TEST

START_TEST(test_normal_truncated)
{
	struct yc_doc *doc = load("n: {dist: normal, mean: 1us, sd: 2us}\n");
	struct dist *d = build(doc, "n");
	struct rng *r = rng_new(3, 9);
	int i;

	for (i = 0; i < NDRAWS; i++)
		ck_assert(dist_sample(d, r) >= 0);
	dist_free(d);
	rng_free(r);
	yc_free(doc);
}
END_TEST

START_TEST(test_empirical_inline)
{
	struct yc_doc *doc = load("e: {dist: empirical, samples: [1us, 2us, 4us]}\n");
	struct dist *d = build(doc, "e");
	struct rng *r = rng_new(5, 5);
	double x, m = 7000.0 / 3;
	int i, seen[3] = { 0, 0, 0 };

	ck_assert_double_eq_tol(dist_mean(d), m, 1e-9);
	for (i = 0; i < 30000; i++) {
		x = dist_sample(d, r);
		ck_assert(x == 1000 || x == 2000 || x == 4000);
		seen[x == 1000 ? 0 : x == 2000 ? 1 : 2]++;
	}
	ck_assert(seen[0] > 9000 && seen[1] > 9000 && seen[2] > 9000);
	/* sd of {1,2,4}us around 7/3 us. */
	check_mean(d, m, sqrt((pow(1000 - m, 2) + pow(2000 - m, 2) + pow(4000 - m, 2)) / 3));
	dist_free(d);
	rng_free(r);
	yc_free(doc);
}
END_TEST

START_TEST(test_empirical_file)
{
	char tmpl[] = "/tmp/check_dist.XXXXXX";
	char *dir = mkdtemp(tmpl), *csv, *yaml, *bad, *msg;
	struct yc_doc *doc;
	struct dist *d;
	struct vs_err err;
	FILE *f;

	ck_assert_ptr_nonnull(dir);
	csv = xasprintf("%s/hold.csv", dir);
	f = fopen(csv, "w");
	fputs("# hold times\n1,cpu0\n\n  2  # us\n3000ns\n6\n", f);
	fclose(f);
	yaml = xasprintf("%s/s.yaml", dir);
	f = fopen(yaml, "w");
	fputs("d: {dist: empirical, file: hold.csv, unit: us}\n"
	    "b: {dist: empirical, file: bad.csv}\n"
	    "m: {dist: empirical, file: missing.csv}\n"
	    "x: {dist: empirical, file: hold.csv, unit: parsec}\n", f);
	fclose(f);
	bad = xasprintf("%s/bad.csv", dir);
	f = fopen(bad, "w");
	fputs("# ok\n10\n  abc\n", f);
	fclose(f);

	doc = yc_load(yaml, &err);
	ck_assert_msg(doc != NULL, "%s", err.msg);
	d = build(doc, "d");
	ck_assert_double_eq_tol(dist_mean(d), 3000, 1e-9);
	dist_free(d);

	ck_assert_ptr_null(dist_from_yaml(yc_lookup(yc_root(doc), "b"), UNIT_TIME, 0, &err));
	msg = xasprintf("%s:3:3: bad sample 'abc': not a number", bad);
	ck_assert_str_eq(err.msg, msg);
	free(msg);
	ck_assert_ptr_null(dist_from_yaml(yc_lookup(yc_root(doc), "m"), UNIT_TIME, 0, &err));
	msg = xasprintf("%s:3:28: cannot read samples file 'missing.csv': "
	    "No such file or directory", yaml);
	ck_assert_str_eq(err.msg, msg);
	free(msg);
	ck_assert_ptr_null(dist_from_yaml(yc_lookup(yc_root(doc), "x"), UNIT_TIME, 0, &err));
	msg = xasprintf("%s:4:44: 'unit' = 'parsec': unknown time unit "
	    "(expected ns, us, ms, s or cycles)", yaml);
	ck_assert_str_eq(err.msg, msg);
	free(msg);
	yc_free(doc);

	unlink(csv);
	unlink(bad);
	unlink(yaml);
	rmdir(dir);
	free(csv);
	free(bad);
	free(yaml);
}
END_TEST

START_TEST(test_errors)
{
	build_err("d: {dist: weibull, mean: 1us}\n",
	    "d.yaml:1:11: 'dist' must be one of: const, exponential, uniform, normal, "
	    "lognormal, gamma, empirical; got 'weibull'");
	build_err("d: {dist: exponential, mean: 1us, sd: 2us}\n",
	    "d.yaml:1:35: unknown key 'sd' (expected one of: dist, mean)");
	build_err("d: {dist: exponential}\n", "d.yaml:1:4: missing key 'mean'");
	build_err("d: {mean: 1us}\n", "d.yaml:1:4: missing key 'dist'");
	build_err("d: 5\n", "d.yaml:1:4: '5' needs a unit (ns, us, ms, s or cycles)");
	build_err("d: {dist: exponential, mean: 5}\n",
	    "d.yaml:1:30: 'mean' = '5' needs a unit (ns, us, ms, s or cycles)");
	build_err("d:\n  dist: uniform\n  min: 3us\n  max: 1us\n",
	    "d.yaml:4:8: 'max' = 1us (1000ns) is out of range [3000ns, 1e+18ns]");
	build_err("d: {dist: gamma, shape: 0, mean: 1us}\n",
	    "d.yaml:1:25: 'shape' must be > 0");
	build_err("d: [1us]\n", "d.yaml:1:4: expected a distribution (a value like 5us, "
	    "or a mapping with 'dist:'), got a sequence");
	build_err("d: {dist: empirical, samples: []}\n", "d.yaml:1:31: 'samples' is empty");
	build_err("d: {dist: empirical, samples: [1us, 2]}\n",
	    "d.yaml:1:37: '2' needs a unit (ns, us, ms, s or cycles)");
	build_err("d: {dist: empirical}\n",
	    "d.yaml:1:4: empirical needs 'samples' (a list) or 'file' (a CSV)");
	build_err("d: {dist: normal, mean: -1us, sd: 1us}\n",
	    "d.yaml:1:25: 'mean' = -1us (-1000ns) is out of range [0ns, 1e+18ns]");
}
END_TEST
/* rng_exp.c: the tables follow the ziggurat's set-up recurrence, and the
 * draws are Exp(1): mean, variance, the tail beyond r and the
 * Kolmogorov-Smirnov distance (a fixed seed: deterministic). */
static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

START_TEST(test_exp_ziggurat)
{
	const double r0 = 7.697117470131487, v = 3.949659822581572e-3, m2 = 16777216.0;
	const double *w, *f;
	const uint32_t *k = rng_zig_tables(&w, &f);
	double x = r0, prev = r0, q = v / exp(-r0), sum = 0, sum2 = 0, dmax = 0, *s;
	struct rng *rs = rng_new(7, RNG_ENTITY(RNG_KIND_VCPU, 3));
	gsl_rng *g = rng_gsl(rs);
	int i, n = 1000000, tail = 0;

	ck_assert_uint_eq(k[0], (uint32_t)(r0 / q * m2));
	ck_assert_uint_eq(k[1], 0);
	ck_assert_double_eq_tol(w[0], q / m2, 1e-22);
	ck_assert_double_eq_tol(w[255], r0 / m2, 1e-22);
	for (i = 254; i >= 1; i--) {
		x = -log(v / x + exp(-x));
		ck_assert_int_le(abs((int)k[i + 1] - (int)(uint32_t)(x / prev * m2)), 1);
		ck_assert_double_eq_tol(f[i], exp(-x), 1e-15);
		ck_assert_double_eq_tol(w[i], x / m2, 1e-21);
		prev = x;
	}
	s = malloc((size_t)n * sizeof *s);
	for (i = 0; i < n; i++) {
		s[i] = rng_exp_gsl(g);
		ck_assert(s[i] >= 0);
		sum += s[i];
		sum2 += s[i] * s[i];
		tail += s[i] > r0;
	}
	/* mean 1, variance 1 (sd of the sample mean 1/sqrt(n), of the
	 * variance about sqrt(8/n)); the tail holds exp(-r) of the mass */
	ck_assert_double_eq_tol(sum / n, 1.0, 5 / sqrt(n));
	ck_assert_double_eq_tol(sum2 / n - (sum / n) * (sum / n), 1.0, 5 * sqrt(8.0 / n));
	ck_assert_double_eq_tol(tail, n * exp(-r0), 5 * sqrt(n * exp(-r0)));
	qsort(s, (size_t)n, sizeof *s, cmp_double);
	for (i = 0; i < n; i++) {
		double c = 1 - exp(-s[i]), d1 = fabs(c - (double)i / n), d2 = fabs((double)(i + 1) / n - c);

		dmax = fmax(dmax, fmax(d1, d2));
	}
	/* the KS 1% critical value, 1.63 / sqrt(n) */
	ck_assert_msg(dmax < 1.63 / sqrt(n), "KS distance %g", dmax);
	free(s);
	rng_free(rs);
}
END_TEST

/* rng.h: rng_word_gsl is gsl_rng_get, word for word, on taus2 (rng.c's
 * generator, in line) and on any other generator (through GSL). */
START_TEST(test_word_is_gsl)
{
	struct rng *a = rng_new(11, RNG_ENTITY(RNG_KIND_VCPU, 5));
	struct rng *b = rng_new(11, RNG_ENTITY(RNG_KIND_VCPU, 5));
	gsl_rng *m1 = gsl_rng_alloc(gsl_rng_mt19937), *m2 = gsl_rng_alloc(gsl_rng_mt19937);
	int i;

	for (i = 0; i < 1000000; i++)
		ck_assert_uint_eq(rng_word_gsl(rng_gsl(a)), (uint32_t)gsl_rng_get(rng_gsl(b)));
	for (i = 0; i < 1000; i++)
		ck_assert_uint_eq(rng_word_gsl(m1), (uint32_t)gsl_rng_get(m2));
	gsl_rng_free(m1);
	gsl_rng_free(m2);
	rng_free(a);
	rng_free(b);
}
END_TEST

/* dist.h: dist_sample's first test (exp_pos) takes an unscaled exponential
 * of mean > 0 inline, with the values and stream dist_sample_other gives it;
 * a scaled one goes out of line (dist_scale clears exp_pos) and gives the
 * scaled values; one of mean 0 and a constant go past it and draw nothing. */
START_TEST(test_exp_pos)
{
	struct yc_doc *doc = load("e: {dist: exponential, mean: 2us}\n"
	    "z: {dist: exponential, mean: 0ns}\n"
	    "c: 5us\n");
	struct rng *a = rng_new(5, RNG_ENTITY(RNG_KIND_VCPU, 2));
	struct rng *b = rng_new(5, RNG_ENTITY(RNG_KIND_VCPU, 2));
	unsigned long p[3];
	struct dist *d = build(doc, "e"), *u;
	int i;

	ck_assert(d->exp_pos);
	for (i = 0; i < 1000; i++)
		ck_assert(dist_sample(d, a) == dist_sample_other(d, b));
	dist_scale(d, 0.75);
	ck_assert(!d->exp_pos);
	u = build(doc, "e");	/* unscaled, on b's stream (where a's is now) */
	for (i = 0; i < 1000; i++)
		ck_assert(dist_sample(d, a) == dist_sample(u, b) * 0.75);
	dist_free(u);
	dist_free(d);
	d = build(doc, "z");
	ck_assert(!d->exp_pos);
	memcpy(p, a->state, sizeof p);
	ck_assert(dist_sample(d, a) == 0);
	ck_assert(memcmp(p, a->state, sizeof p) == 0);
	dist_free(d);
	d = build(doc, "c");
	ck_assert(!d->exp_pos);
	ck_assert_double_eq(dist_sample(d, a), 5000);
	dist_free(d);
	rng_free(a);
	rng_free(b);
	yc_free(doc);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("dist");
	TCase *tc = tcase_create("dist");
	SRunner *sr;
	int failures;

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, test_parametric);
	tcase_add_test(tc, test_uniform_bounds_and_scale);
	tcase_add_test(tc, test_normal_truncated);
	tcase_add_test(tc, test_empirical_inline);
	tcase_add_test(tc, test_empirical_file);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_exp_ziggurat);
	tcase_add_test(tc, test_word_is_gsl);
	tcase_add_test(tc, test_exp_pos);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failures = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failures ? 1 : 0;
}
