/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_idle.c - idle pCPUs (hv_idle.c): C-states, their exit latency on a
 * wake, the governor's choice, %C0; bare metal without VM exits. */
#include "testutil.h"

#include <math.h>

/* One vCPU on a pinned (tickless) host: n times compute 10 us, sleep `sleep`
 * (HLT, then a timer's interrupt wakes it). */
static void
sleeper(const char *kind, const char *cstates, int n, const char *sleep, struct metrics *m)
{
	char text[2048];

	snprintf(text, sizeof text,
	    "machine: {cores_per_socket: 2, threads_per_core: 1, clock: 2GHz, cstates: %s}\n"
	    "until: done\n"
	    "hypervisor: {kind: %s, scheduler: pinned}\n"
	    "vms:\n"
	    "  - {name: g, vcpus: 1, workload: w}\n"
	    "workloads:\n"
	    "  w: {program: [{loop: %d, do: [{compute: 10us}, {sleep: %s}]}]}\n",
	    cstates, kind, n, sleep);
	tu_run(text, 1, NULL, m);
}

#define C1_5US "[{name: C1, exit_latency: 5us, target_residency: 5us}]"

/* Each wake of the sleeping vCPU finds its pCPU in C1 (the only state: the
 * poll state's history grows to its residency, then C1 until the wake, no
 * tick on a pinned host) and runs 5 us later: the run is 20 x 5 us longer. */
START_TEST(a_wake_pays_the_exit_latency)
{
	static const char *const kinds[] = { "kvm", "none", "xen" };
	struct metrics on, off;
	const char *kind = kinds[_i];

	sleeper(kind, "[]", 20, "1ms", &off);
	sleeper(kind, C1_5US, 20, "1ms", &on);
	ck_assert_double_eq(tu_metric(&off, "cstate_wakes"), 0);
	ck_assert_double_eq(tu_metric(&on, "cstate_wakes"), 20);
	ck_assert_double_eq_tol(tu_metric(&on, "cstate_exit_seconds"), 20 * 5e-6, 1e-12);
	ck_assert_double_eq_tol(tu_metric(&on, "completion_seconds") -
	    tu_metric(&off, "completion_seconds"), 20 * 5e-6, 1e-12);
	/* without states the idle pCPUs poll (C0); with them, they sleep */
	ck_assert_double_eq(tu_metric(&off, "c0_share"), 100);
	ck_assert_double_lt(tu_metric(&on, "c0_share"), 10);
	metrics_free(&on);
	metrics_free(&off);
}
END_TEST

#define C1_C6 "[{name: C1, exit_latency: 1us, target_residency: 2us}, " \
    "{name: C6, exit_latency: 100us, target_residency: 500us}]"

/* menu: idle periods of 1 ms make C6 worth it once the history shows them;
 * periods of 100 us never reach its 500 us residency: C1 once the history
 * is of them (before, mixed with the poll state's passes, it is no typical
 * interval, and with no timer known the governor goes deep: a few C6). */
START_TEST(the_governor_picks_by_the_idle_history)
{
	struct metrics lng, shrt;
	double x;

	sleeper("kvm", C1_C6, 40, "1ms", &lng);
	sleeper("kvm", C1_C6, 40, "100us", &shrt);
	ck_assert_double_eq(tu_metric(&shrt, "cstate_wakes"), 40);
	x = tu_metric(&shrt, "cstate_exit_seconds");
	ck_assert_double_ge(x, 40 * 1e-6);
	ck_assert_double_le(x, 32 * 1e-6 + 8 * 100e-6);
	/* all but the first few wakes (history still short) leave C6 */
	x = tu_metric(&lng, "cstate_exit_seconds");
	ck_assert_double_ge(x, 32 * 100e-6);
	ck_assert_double_le(x, 40 * 100e-6);
	metrics_free(&lng);
	metrics_free(&shrt);
}
END_TEST

/* A guest kernel's tasks (ticks, reschedule IPIs, idle HLTs, I/O) and PV
 * hypercalls: on KVM they exit, on bare metal nothing does. */
static void
tasks(const char *kind, struct metrics *m)
{
	char text[2048];

	snprintf(text, sizeof text,
	    "machine: {cores_per_socket: 4, threads_per_core: 1, clock: 2GHz}\n"
	    "until: done\n"
	    "hypervisor: {kind: %s, scheduler: cfs}\n"
	    "vms:\n"
	    "  - {name: g, vcpus: 4, lock: ticket, workload: w, guest: {hz: 1000}}\n"
	    "workloads:\n"
	    "  w:\n"
	    "    locks: {k: {cs_lines: 1}}\n"
	    "    programs:\n"
	    "      make: [{spawn: {program: cc, count: 40, parallel: 6}}, {join: children}]\n"
	    "      cc: [{compute: {dist: exponential, mean: 500us}},\n"
	    "           {block: {dist: exponential, mean: 200us}}, {io: pio-kernel},\n"
	    "           {acquire: k}, {compute: 2us}, {release: k}]\n"
	    "    tasks: [{program: make}]\n", kind);
	tu_run(text, 1, NULL, m);
}

/*
 * The governor sees a halted vCPU's armed timer (hv.c park, hv_idle.c): one
 * task on one vCPU of a pinned (tickless) host with the default nehalem
 * states, ten 5 ms sleeps, then eight of 100 us, each a hrtimer (block).
 * The first three wakes find C1 (the history starts at zero), the next
 * seven C6, and every 100 us sleep C3: its timer 100 us away caps the
 * prediction, though the typical interval of the last eight periods is still
 * ~5 ms at the first of them, which alone would pick C6 (200 us exit).
 * 3 x 3 + 7 x 200 + 8 x 20 us; without the timer 180 us more.
 */
START_TEST(the_governor_sees_a_halted_vcpus_timer)
{
	static const char text[] =
	    "machine: {cores_per_socket: 2, threads_per_core: 1, clock: 2GHz}\n"
	    "until: done\n"
	    "hypervisor: {kind: kvm, scheduler: pinned}\n"
	    "vms:\n"
	    "  - {name: g, vcpus: 1, workload: w, guest: {hz: 0, timers: false}}\n"
	    "workloads:\n  w:\n    programs:\n      s:\n"
	    "        - {loop: 10, do: [{compute: 10us}, {block: 5ms}]}\n"
	    "        - {loop: 8, do: [{compute: 10us}, {block: 100us}]}\n"
	    "    tasks:\n      - {program: s, count: 1}\n";
	struct metrics m;

	tu_run(text, 1, NULL, &m);
	ck_assert_double_eq(tu_metric(&m, "cstate_wakes"), 18);
	ck_assert_double_eq_tol(tu_metric(&m, "cstate_exit_seconds"),
	    (3 * 3 + 7 * 200 + 8 * 20) * 1e-6, 1e-12);
	metrics_free(&m);
}
END_TEST

START_TEST(bare_metal_has_no_exits)
{
	static const char *const exits[] = { "hlt_exits", "ipi_exits", "timer_exits", "io_exits",
	    "hypercalls", "ple_exits" };
	struct metrics kvm, none;
	size_t i;

	tasks("kvm", &kvm);
	tasks("none", &none);
	/* the same kernel work happens on both ... */
	ck_assert_double_gt(tu_metric(&none, "g.resched_ipis"), 10);
	ck_assert_double_gt(tu_metric(&none, "wakes"), 10);
	/* ... and exits only in a VM */
	ck_assert_double_gt(tu_metric(&kvm, "hlt_exits"), 10);
	ck_assert_double_gt(tu_metric(&kvm, "ipi_exits"), 10);
	ck_assert_double_gt(tu_metric(&kvm, "timer_exits"), 10);
	ck_assert_double_gt(tu_metric(&kvm, "io_exits"), 10);
	for (i = 0; i < sizeof exits / sizeof exits[0]; i++)
		ck_assert_msg(tu_metric(&none, exits[i]) == 0, "bare metal: %s = %g", exits[i],
		    tu_metric(&none, exits[i]));
	metrics_free(&kvm);
	metrics_free(&none);
}
END_TEST

static Suite *
idle_suite(void)
{
	Suite *s = suite_create("idle");
	TCase *tc = tcase_create("cstates");

	tcase_set_timeout(tc, 0);
	tcase_add_loop_test(tc, a_wake_pays_the_exit_latency, 0, 3);
	tcase_add_test(tc, the_governor_picks_by_the_idle_history);
	tcase_add_test(tc, the_governor_sees_a_halted_vcpus_timer);
	tcase_add_test(tc, bare_metal_has_no_exits);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(idle_suite());
}
