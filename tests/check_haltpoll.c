/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_haltpoll.c - the guest's cpuidle-haltpoll (models/guest/haltpoll.c):
 * its governor step by step against Linux drivers/cpuidle/governors/
 * haltpoll.c, and in a guest: a wake inside the poll window takes no HLT
 * exit and no IPI, a wake after it does; host and guest polling are told
 * apart in their costs and metrics, and %C0 counts both as busy.
 */
#include "testutil.h"
#include "guest/haltpoll.h"

/* cpuidle-haltpoll's defaults (governors/haltpoll.c module parameters) */
static const struct ghp_cfg defaults = { 200000, 2, 50000, 2, 1 };

/* haltpoll_select: halt while poll_limit_ns is 0; after a halt, poll; after
 * a poll, poll again unless it ran out (poll_time_limit) */
START_TEST(select_follows_haltpoll_select)
{
	struct ghp_cpu d = { 0, 0, 0 };
	struct ghp_cfg off = defaults;

	ck_assert_int_eq(ghp_select(&defaults, &d), GHP_HALT);	/* enable: limit 0 */
	d.limit_ns = 50000;
	ck_assert_int_eq(ghp_select(&defaults, &d), GHP_POLL);	/* last: halt */
	ghp_reflect(&defaults, &d, GHP_POLL, 0);
	ck_assert_int_eq(ghp_select(&defaults, &d), GHP_POLL);	/* a wake in the window */
	d.time_limit = 1;
	ck_assert_int_eq(ghp_select(&defaults, &d), GHP_HALT);	/* it ran out: halt */
	off.max_ns = 0;		/* the driver not loaded */
	ck_assert_int_eq(ghp_select(&off, &d), GHP_HALT);
}
END_TEST

/* adjust_poll_limit after each halt, with the defaults: grow from 0 to
 * grow_start, x2 up to guest_halt_poll_ns, never for a halt the limit
 * covered; a halt longer than guest_halt_poll_ns halves it (integers) */
START_TEST(grow_and_shrink_follow_adjust_poll_limit)
{
	static const double halts[] = { 20000, 80000, 80000, 150000, 199000, 200000, 200001,
		300000, 1e6, 1e6, 1e6, 1e6, 1e6 };
	static const double want[] = { 50000, 100000, 100000, 200000, 200000, 200000, 100000,
		50000, 25000, 12500, 6250, 3125, 1562 };
	struct ghp_cpu d = { 0, 0, 0 };
	size_t i;

	for (i = 0; i < sizeof halts / sizeof halts[0]; i++) {
		ghp_reflect(&defaults, &d, GHP_HALT, halts[i]);
		ck_assert_msg(d.limit_ns == want[i], "halt %zu (%.0f ns): limit %.0f, want %.0f",
		    i, halts[i], d.limit_ns, want[i]);
		ck_assert_int_eq(d.last_poll, 0);
	}
	/* the cap: 150 us x 2 is clamped to guest_halt_poll_ns */
	d.limit_ns = 150000;
	ghp_reflect(&defaults, &d, GHP_HALT, 180000);
	ck_assert_double_eq(d.limit_ns, 200000);
	/* a poll changes no limit */
	ghp_reflect(&defaults, &d, GHP_POLL, 1e9);
	ck_assert_double_eq(d.limit_ns, 200000);
	ck_assert_int_eq(d.last_poll, 1);
}
END_TEST

START_TEST(shrink_switches)
{
	struct ghp_cfg c = defaults;
	struct ghp_cpu d = { 100000, 0, 0 };

	c.allow_shrink = 0;		/* guest_halt_poll_allow_shrink=N */
	ghp_reflect(&c, &d, GHP_HALT, 1e6);
	ck_assert_double_eq(d.limit_ns, 100000);
	c.allow_shrink = 1;
	c.shrink = 0;			/* guest_halt_poll_shrink=0: to 0 */
	ghp_reflect(&c, &d, GHP_HALT, 1e6);
	ck_assert_double_eq(d.limit_ns, 0);
	c.shrink = 3;
	c.grow = 3;
	c.grow_start_ns = 10000;
	ghp_reflect(&c, &d, GHP_HALT, 20000);	/* 0 x 3 < grow_start */
	ck_assert_double_eq(d.limit_ns, 10000);
	ghp_reflect(&c, &d, GHP_HALT, 20000);
	ck_assert_double_eq(d.limit_ns, 30000);
	ghp_reflect(&c, &d, GHP_HALT, 1e6);	/* 30000 / 3 */
	ck_assert_double_eq(d.limit_ns, 10000);
}
END_TEST

/*
 * Two pinned vCPUs: p on vCPU 0 computes `work`, then wakes c on vCPU 1,
 * 50 times; c waits, then computes 1 us.  No tick, no kernel timers, so c's
 * vCPU idles only for p.  hv is the hypervisor's extra keys, hp the guest's
 * halt_poll, cst the machine's cstates.
 */
static void
pair(const char *hv, const char *hp, const char *work, const char *cst, struct metrics *m)
{
	char text[2048];

	snprintf(text, sizeof text,
	    "machine: {cores_per_socket: 2, threads_per_core: 1, clock: 2GHz, cstates: %s}\n"
	    "until: done\n"
	    "hypervisor: {kind: kvm, scheduler: pinned%s}\n"
	    "vms:\n"
	    "  - {name: g, vcpus: 2, workload: w, guest: {hz: 0, timers: false, halt_poll: %s}}\n"
	    "workloads:\n  w:\n    programs:\n"
	    "      p: [{loop: 50, do: [{compute: %s}, {wake: q}]}]\n"
	    "      c: [{loop: 50, do: [{wait: q}, {compute: 1us}]}]\n"
	    "    tasks:\n"
	    "      - {program: p, count: 1, cpus: [0]}\n"
	    "      - {program: c, count: 1, cpus: [1]}\n", cst, hv, hp, work);
	tu_run(text, 1, NULL, m);
}

static int
has(const struct metrics *m, const char *name)
{
	return metrics_find(m, name) >= 0;
}

/*
 * 20 us between wakes: c's vCPU halts once (the limit starts at 0), the
 * 20 us halt grows the limit to grow_start (50 us), and from then on every
 * wake comes inside the poll: it finds the vCPU polling (TIF_POLLING_NRFLAG),
 * so no reschedule IPI, no IPI exit, no HLT exit.
 */
START_TEST(a_wake_inside_the_window_takes_no_exit)
{
	struct metrics m;

	pair("", "200us", "20us", "[]", &m);
	ck_assert_double_eq(tu_metric(&m, "hlt_exits"), 1);
	ck_assert_double_eq(tu_metric(&m, "ipi_exits"), 1);
	ck_assert_double_eq(tu_metric(&m, "g.resched_ipis"), 1);
	ck_assert_double_eq(tu_metric(&m, "g.guest_polls_ok"), 49);
	ck_assert_double_eq(tu_metric(&m, "g.guest_polls_failed"), 0);
	ck_assert_double_gt(tu_metric(&m, "g.guest_poll_cpu_share"), 50);
	ck_assert(!has(&m, "halt_polls_succeeded"));	/* no host polling */
	metrics_free(&m);
}
END_TEST

/*
 * 100 us between wakes with grow_start 30 us: the limit settles at 60 us
 * (halts of 100, then 70 us grow it, then halts of 40 us leave it), so every
 * wake after the first comes after a poll that ran out and an HLT: one HLT
 * exit and one IPI per wake.
 */
START_TEST(a_wake_after_the_window_takes_the_hlt_exit)
{
	struct metrics m;

	pair("", "{max: 200us, grow_start: 30us}", "100us", "[]", &m);
	ck_assert_double_eq(tu_metric(&m, "hlt_exits"), 50);
	ck_assert_double_eq(tu_metric(&m, "ipi_exits"), 50);
	ck_assert_double_eq(tu_metric(&m, "g.guest_polls_ok"), 0);
	ck_assert_double_eq(tu_metric(&m, "g.guest_polls_failed"), 49);
	metrics_free(&m);
	/* without the driver: the same exits, and no guest-poll metrics */
	pair("", "0ns", "100us", "[]", &m);
	ck_assert_double_eq(tu_metric(&m, "hlt_exits"), 50);
	ck_assert(!has(&m, "g.guest_polls_ok"));
	metrics_free(&m);
}
END_TEST

/*
 * The host's halt polling catches the same wakes, but each one paid the HLT
 * exit, the IPI's exit and the VM entry back: it shows in halt_polls_*, not
 * in guest_polls_*, and the run is slower than with the guest's poll.  Both
 * keep the pCPU in C0; without either, c's pCPU idles in C-states.
 */
START_TEST(host_and_guest_polls_are_told_apart)
{
	struct metrics m;
	double guest, host;

	pair("", "200us", "20us", "[{name: C1, exit_latency: 3us, target_residency: 6us}]", &m);
	guest = tu_metric(&m, "sim_seconds");
	ck_assert_double_eq(tu_metric(&m, "c0_share"), 100);
	metrics_free(&m);
	pair(", halt_poll: 200us", "0ns", "20us",
	    "[{name: C1, exit_latency: 3us, target_residency: 6us}]", &m);
	host = tu_metric(&m, "sim_seconds");
	ck_assert_double_eq(tu_metric(&m, "hlt_exits"), 50);
	ck_assert_double_eq(tu_metric(&m, "ipi_exits"), 50);
	ck_assert_double_eq(tu_metric(&m, "halt_polls_succeeded"), 50);
	ck_assert(!has(&m, "g.guest_polls_ok"));
	ck_assert_double_eq(tu_metric(&m, "c0_share"), 100);
	metrics_free(&m);
	ck_assert_msg(guest < host, "guest poll %.9f s, host poll %.9f s", guest, host);
	pair("", "0ns", "20us", "[{name: C1, exit_latency: 3us, target_residency: 6us}]", &m);
	ck_assert_double_lt(tu_metric(&m, "c0_share"), 100);
	metrics_free(&m);
}
END_TEST

static Suite *
haltpoll_suite(void)
{
	Suite *s = suite_create("haltpoll");
	TCase *tc = tcase_create("haltpoll");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, select_follows_haltpoll_select);
	tcase_add_test(tc, grow_and_shrink_follow_adjust_poll_limit);
	tcase_add_test(tc, shrink_switches);
	tcase_add_test(tc, a_wake_inside_the_window_takes_no_exit);
	tcase_add_test(tc, a_wake_after_the_window_takes_the_hlt_exit);
	tcase_add_test(tc, host_and_guest_polls_are_told_apart);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(haltpoll_suite());
}
