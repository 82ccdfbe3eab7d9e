/* check_kvm.c - KVM mechanisms: pause-loop exits, directed yield, halt/kick. */
#include "testutil.h"

#include <math.h>

/* One vCPU holds the lock for `hold`, the other spins; PLE window 4096 cycles. */
static double
ple_exits(const char *hold, const char *extra)
{
	char text[2048];
	struct metrics m;
	double n;

	snprintf(text, sizeof text,
	    "machine: {cores_per_socket: 2, threads_per_core: 1, clock: 2GHz,\n"
	    "  costs: {ctx_switch: 0ns, exit_ple: 1000ns}}\n"
	    "until: done\n"
	    "hypervisor: {kind: kvm, scheduler: pinned, ple: {window: 4096cycles%s}}\n"
	    "vms:\n"
	    "  - {name: g, vcpus: 2, lock: ticket, workload: w}\n"
	    "workloads:\n"
	    "  w: {program: [{acquire: l}, {compute: %s}, {release: l}]}\n", extra, hold);
	tu_run(text, 1, NULL, &m);
	n = tu_metric(&m, "ple_exits");
	metrics_free(&m);
	return n;
}

START_TEST(ple_exit_only_when_spin_outlasts_window)
{
	/* Window = 2048 ns; each exit costs 1000 ns, then a new window starts. */
	ck_assert_double_eq(ple_exits("1900ns", ""), 0);
	ck_assert_double_eq(ple_exits("2200ns", ""), 1);
	ck_assert_double_eq_tol(ple_exits("1ms", ""), floor(1e6 / 3048.0), 1);
}
END_TEST

START_TEST(dynamic_window_grows_on_each_exit)
{
	/* grow 2: windows 2, 4, 8, 16, ... us: a 1 ms spin sees only a few exits. */
	double n = ple_exits("1ms", ", dynamic: true");

	ck_assert_double_ge(n, 8);
	ck_assert_double_le(n, 10);
}
END_TEST

START_TEST(no_ple_means_plain_spinning)
{
	static const char *text =
	    "machine: {cores_per_socket: 2, threads_per_core: 1, clock: 2GHz}\n"
	    "until: done\n"
	    "hypervisor: {kind: kvm, scheduler: pinned}\n"
	    "vms:\n"
	    "  - {name: g, vcpus: 2, lock: ticket, workload: w}\n"
	    "workloads:\n"
	    "  w: {program: [{acquire: l}, {compute: 1ms}, {release: l}]}\n";
	struct metrics m;

	tu_run(text, 1, NULL, &m);
	ck_assert_double_eq(tu_metric(&m, "ple_exits"), 0);
	metrics_free(&m);
}
END_TEST

static Suite *
kvm_suite(void)
{
	Suite *s = suite_create("kvm");
	TCase *tc = tcase_create("ple");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, ple_exit_only_when_spin_outlasts_window);
	tcase_add_test(tc, dynamic_window_grows_on_each_exit);
	tcase_add_test(tc, no_ple_means_plain_spinning);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(kvm_suite());
}
