/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ckpass.h - Check's assertions with a silent passing path.
 *
 * Check's ck_assert_msg, which every ck_assert_* expands to, calls
 * _mark_point on each passing assertion: a message to the runner, one
 * write(2) each (check.h, Check 0.15).  A test that asserts in a loop paid
 * more for those than for its work: check_evq made 8.4 M writes, 7 CPU-s of
 * its 7, 51 under ASan.  Here a passing assertion marks nothing; a failing
 * one fails as Check's own does, with the same file, line and message.  What
 * is lost: a test killed by a signal is reported after its last explicit
 * mark_point() (or its start), not after its last passing assertion.
 */
#ifndef VS_CKPASS_H
#define VS_CKPASS_H

#include <check.h>

#undef ck_assert_msg
#define ck_assert_msg(expr, ...) \
	((expr) ? (void)0 : \
	    _ck_assert_failed(__FILE__, __LINE__, "Assertion '"#expr"' failed", ## __VA_ARGS__))

#endif
