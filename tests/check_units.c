/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_units.c - units_parse(): every unit, separators, and the errors.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

static double
ok(const char *text, enum unit_kind kind, double hz)
{
	const char *why = NULL;
	double v = -1;

	ck_assert_msg(units_parse(text, kind, hz, &v, &why) == 0,
	    "'%s' should parse, got: %s", text, why ? why : "?");
	return v;
}

static const char *
bad(const char *text, enum unit_kind kind, double hz)
{
	const char *why = NULL;
	double v = 0;

	ck_assert_msg(units_parse(text, kind, hz, &v, &why) == -1,
	    "'%s' should fail, got %g", text, v);
	ck_assert_ptr_nonnull(why);
	return why;
}

START_TEST(test_time)
{
	ck_assert_double_eq(ok("5ns", UNIT_TIME, 0), 5);
	ck_assert_double_eq(ok("5us", UNIT_TIME, 0), 5000);
	ck_assert_double_eq(ok("5\xc2\xb5s", UNIT_TIME, 0), 5000);
	ck_assert_double_eq(ok("5ms", UNIT_TIME, 0), 5e6);
	ck_assert_double_eq(ok("5s", UNIT_TIME, 0), 5e9);
	ck_assert_double_eq(ok("2.5 us", UNIT_TIME, 0), 2500);
	ck_assert_double_eq(ok("  1e3 ns ", UNIT_TIME, 0), 1000);
	ck_assert_double_eq(ok("0.5ms", UNIT_TIME, 0), 5e5);
}
END_TEST

START_TEST(test_cycles)
{
	double v = ok("4096cycles", UNIT_TIME, 2.93e9);

	ck_assert_double_eq_tol(v, 1397.95, 0.005);
	ck_assert_double_eq_tol(ok("4096 cycles", UNIT_TIME, 2.93e9), v, 1e-9);
	ck_assert_str_eq(bad("4096cycles", UNIT_TIME, 0), "cycles need a clock rate");
}
END_TEST

START_TEST(test_freq)
{
	ck_assert_double_eq(ok("100Hz", UNIT_FREQ, 0), 100);
	ck_assert_double_eq(ok("2kHz", UNIT_FREQ, 0), 2000);
	ck_assert_double_eq(ok("3MHz", UNIT_FREQ, 0), 3e6);
	ck_assert_double_eq(ok("2.93GHz", UNIT_FREQ, 0), 2.93e9);
	ck_assert_double_eq(ok("2.93 ghz", UNIT_FREQ, 0), 2.93e9);
	bad("2.93", UNIT_FREQ, 0);
	bad("2.93 GB", UNIT_FREQ, 0);
}
END_TEST

START_TEST(test_size)
{
	ck_assert_double_eq(ok("64B", UNIT_SIZE, 0), 64);
	ck_assert_double_eq(ok("4KiB", UNIT_SIZE, 0), 4096);
	ck_assert_double_eq(ok("2MiB", UNIT_SIZE, 0), 2097152);
	ck_assert_double_eq(ok("1GiB", UNIT_SIZE, 0), 1073741824.0);
	ck_assert_ptr_nonnull(strstr(bad("4KB", UNIT_SIZE, 0), "KiB"));
	ck_assert_ptr_nonnull(strstr(bad("4MB", UNIT_SIZE, 0), "ambiguous"));
	ck_assert_ptr_nonnull(strstr(bad("4GB", UNIT_SIZE, 0), "ambiguous"));
}
END_TEST

START_TEST(test_rate)
{
	ck_assert_double_eq(ok("15000/s", UNIT_RATE, 0), 15000);
	ck_assert_double_eq(ok("15000Hz", UNIT_RATE, 0), 15000);
	ck_assert_double_eq(ok("1/ms", UNIT_RATE, 0), 1000);
	ck_assert_double_eq(ok("2 / us", UNIT_RATE, 0), 2e6);
	ck_assert_double_eq(ok("3kHz", UNIT_RATE, 0), 3000);
	bad("15000", UNIT_RATE, 0);
	bad("15000/parsec", UNIT_RATE, 0);
}
END_TEST

START_TEST(test_none)
{
	ck_assert_double_eq(ok("1e6", UNIT_NONE, 0), 1e6);
	ck_assert_double_eq(ok("4000000", UNIT_NONE, 0), 4e6);
	ck_assert_double_eq(ok("0.5", UNIT_NONE, 0), 0.5);
	ck_assert_double_eq(ok("4_000_000", UNIT_NONE, 0), 4e6);
	ck_assert_double_eq(ok("-3", UNIT_NONE, 0), -3);
	ck_assert_double_eq(ok(".25", UNIT_NONE, 0), 0.25);
	bad("5us", UNIT_NONE, 0);
}
END_TEST

START_TEST(test_errors)
{
	ck_assert_str_eq(bad("5", UNIT_TIME, 0), "needs a unit (ns, us, ms, s or cycles)");
	ck_assert_ptr_nonnull(strstr(bad("5 parsecs", UNIT_TIME, 0), "unknown time unit"));
	ck_assert_str_eq(bad("cycles", UNIT_TIME, 2.93e9), "not a number");
	bad("", UNIT_NONE, 0);
	bad("abc", UNIT_NONE, 0);
	bad("nan", UNIT_NONE, 0);
	bad("inf", UNIT_NONE, 0);
	bad("infinity", UNIT_TIME, 0);
	bad("0x10", UNIT_NONE, 0);
	bad("1e999", UNIT_NONE, 0);
	bad("1e999 ns", UNIT_TIME, 0);
	bad("_1", UNIT_NONE, 0);
	bad("1__0", UNIT_NONE, 0);
	bad("1_", UNIT_NONE, 0);
	bad("5 5", UNIT_NONE, 0);
	bad("5e", UNIT_NONE, 0);
	bad("5 MS", UNIT_TIME, 0);
}
END_TEST

START_TEST(test_kind_names)
{
	ck_assert_str_eq(units_kind_name(UNIT_TIME), "time");
	ck_assert_str_eq(units_kind_name(UNIT_NONE), "number");
	ck_assert_str_eq(units_kind_name(UNIT_RATE), "rate");
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("units");
	TCase *tc = tcase_create("parse");
	SRunner *sr;
	int failures;

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, test_time);
	tcase_add_test(tc, test_cycles);
	tcase_add_test(tc, test_freq);
	tcase_add_test(tc, test_size);
	tcase_add_test(tc, test_rate);
	tcase_add_test(tc, test_none);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_kind_names);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failures = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failures ? 1 : 0;
}
