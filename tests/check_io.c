/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_io.c - the path of a guest device access (hv/hv_io.h): on KVM,
 * MMIO costs the PIO path of the same end plus the emulator's decode, an
 * ioeventfd write takes the fast MMIO bus for less than the user-space MMIO
 * path; Xen has no fast path; bare metal has no exit for either.
 */
#include "testutil.h"

#define DUR_NS 20e6

/* One vCPU doing nothing but `io: IO` for 20 ms on a 2 GHz pCPU of its own;
 * costs are the machine defaults (machine.c), whose sources the test checks. */
static void
run_io(const char *kind, const char *io, struct metrics *m)
{
	char text[1024];

	snprintf(text, sizeof text,
	    "name: io\nseed: 1\nuntil: duration\nduration: 20ms\n"
	    "machine: {name: t, sockets: 1, cores_per_socket: 1, threads_per_core: 1, "
	    "clock: 2GHz}\n"
	    "hypervisor: {kind: %s, scheduler: pinned}\n"
	    "vms:\n  - {name: g, vcpus: 1, lock: ticket, workload: w}\n"
	    "workloads:\n  w:\n    program:\n      - loop: forever\n        do:\n"
	    "          - io: %s\n          - count: n\n", kind, io);
	tu_run(text, 1, NULL, m);
}

/* ns per access: an exit's round trip from the exit time it was charged
 * (io_exit_cpu_share); a bare-metal access (no exit) from the run's length
 * over the accesses, within a ns (the first starts after the switch-in) */
static double
per_access(const char *kind, const char *io, const char *path, double *exits)
{
	struct metrics m;
	double n, p, t;

	run_io(kind, io, &m);
	n = tu_metric(&m, "g.n");
	p = tu_metric(&m, path);
	*exits = tu_metric(&m, "io_exits");
	ck_assert_msg(p >= n && p <= n + 1, "%s %s: %g accesses counted on %s, %g done", kind,
	    io, p, path, n);
	if (*exits > 0)
		t = tu_metric(&m, "io_exit_cpu_share") / 100 * DUR_NS / *exits;
	else
		t = DUR_NS / (n + 0.5);
	metrics_free(&m);
	return t;
}

/* 2 GHz: a cycle is 0.5 ns */
#define CYC(c) ((c) * 0.5)

START_TEST(kvm_mmio_costs_pio_plus_the_decode)
{
	double ex, pk = per_access("kvm", "pio-kernel", "io_path_pio_kernel", &ex);
	double mk = per_access("kvm", "mmio-kernel", "io_path_mmio_kernel", &ex);
	double pu = per_access("kvm", "pio-user", "io_path_pio_user", &ex);
	double mu = per_access("kvm", "mmio-user", "io_path_mmio_user", &ex);
	double fast = per_access("kvm", "mmio-ioeventfd", "io_path_mmio_fast", &ex);
	double tol = 0.01;

	/* kvm-unit-tests 00bfecaa: in-kernel in 7237, in to QEMU's PM timer 24615 */
	ck_assert_double_eq_tol(pk, CYC(7237), tol);
	ck_assert_double_eq_tol(pu, CYC(24615), tol);
	/* MMIO: the same path and the decode, emulated in 7237 - vmcall 3898 */
	ck_assert_double_eq_tol(mk - pk, CYC(3339), 2 * tol);
	ck_assert_double_eq_tol(mu - pu, CYC(3339), 2 * tol);
	/* the ioeventfd write: an exit and a bus write, as the in-kernel out (4451) */
	ck_assert_double_eq_tol(fast, CYC(4451), tol);
	ck_assert(fast < mu && fast < mk);
	ck_assert_double_gt(ex, 0);
}
END_TEST

START_TEST(xen_decodes_every_mmio)
{
	double ex, mu = per_access("xen", "mmio-user", "io_path_mmio_user", &ex);
	double ev = per_access("xen", "mmio-ioeventfd", "io_path_mmio_user", &ex);

	ck_assert_double_eq_tol(ev, mu, 1e-9);
}
END_TEST

/* Bare metal: no exit for any device access, each an uncached access. */
static const char *const kinds[] = { "pio-kernel", "pio-user", "mmio-kernel", "mmio-user",
	"mmio-ioeventfd" };

START_TEST(bare_metal_has_no_exit)
{
	double ex, t = per_access("none", kinds[_i], "io_path_device", &ex);

	ck_assert_double_eq(ex, 0);
	ck_assert_double_eq_tol(t, 1000, 1);	/* costs.dev_access */
}
END_TEST

/* A scenario without io: shows no io_path metric (output as before). */
START_TEST(no_io_no_path_metrics)
{
	struct metrics m;
	size_t i;

	tu_run("name: x\nseed: 1\nuntil: duration\nduration: 1ms\n" TEST_MACHINE
	    "hypervisor: {kind: kvm, scheduler: pinned}\n"
	    "vms:\n  - {name: g, vcpus: 1, lock: ticket, workload: w}\n"
	    "workloads:\n  w:\n    program:\n      - loop: forever\n        do:\n"
	    "          - compute: 1us\n", 1, NULL, &m);
	for (i = 0; i < m.n; i++)
		ck_assert_msg(strncmp(m.names[i], "io_path_", 8) != 0, "%s shown", m.names[i]);
	metrics_free(&m);
}
END_TEST

static Suite *
io_suite(void)
{
	Suite *s = suite_create("io");
	TCase *tc = tcase_create("paths");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, kvm_mmio_costs_pio_plus_the_decode);
	tcase_add_test(tc, xen_decodes_every_mmio);
	tcase_add_loop_test(tc, bare_metal_has_no_exit, 0, 5);
	tcase_add_test(tc, no_io_no_path_metrics);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(io_suite());
}
