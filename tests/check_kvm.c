/* check_kvm.c - KVM mechanisms: pause-loop exits, directed yield, halt/kick. */
#include "testutil.h"

#include <math.h>

#include "hv/vcpu.h"

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

/* Overcommitted KVM guest on a ticket-family lock, watched from outside. */
static const char *overcommitted =
    "machine: {cores_per_socket: 4, threads_per_core: 1, clock: 2GHz}\n"
    "duration: 60ms\n"
    "hypervisor: {kind: kvm, scheduler: cfs, spin_handler: \"%s\", ple: {window: 4096cycles}}\n"
    "vms:\n"
    "  - {name: g, vcpus: 8, lock: %s, workload: w}\n"
    "  - {name: hog, vcpus: 4, workload: h}\n"
    "workloads:\n"
    "  w:\n"
    "    program:\n"
    "      - loop: forever\n"
    "        do:\n"
    "          - compute: {dist: exponential, mean: 5us}\n"
    "          - acquire: l\n"
    "          - compute: {dist: exponential, mean: 1us}\n"
    "          - release: l\n"
    "  h: {program: [{loop: forever, do: [{compute: 1ms}]}]}\n";

struct watch {
	int rs[64];		/* last runstate per vCPU, from PR_RUNSTATE */
	int halted[64];		/* between PR_HALT and running again */
	int yields, bad_yields;
	int kicked;		/* the vCPU last kicked, -1 none */
	const void *kick_lock;
	int kicks, kicked_took, other_took;
};

static void
watch_fn(void *ctx, const struct probe_ev *e)
{
	struct watch *w = ctx;

	switch (e->kind) {
	case PR_RUNSTATE:
		w->rs[e->vcpu] = e->aux;
		if (e->aux != RS_BLOCKED)	/* woken: its wait queue is no longer active */
			w->halted[e->vcpu] = 0;
		break;
	case PR_HALT:
		w->halted[e->vcpu] = 1;
		break;
	case PR_YIELD_TO:
		w->yields++;
		/* never a running vCPU, never a halted (blocked) one */
		if (w->rs[e->aux] == RS_RUNNING || w->rs[e->aux] == RS_BLOCKED ||
		    w->halted[e->aux])
			w->bad_yields++;
		break;
	case PR_KICK:
		w->kicks++;
		w->kicked = e->aux;
		w->kick_lock = e->lock;
		break;
	case PR_LOCK_TAKEN:
		if (w->kicked >= 0 && e->lock == w->kick_lock) {
			if (e->vcpu == w->kicked)
				w->kicked_took++;
			else
				w->other_took++;
			w->kicked = -1;
		}
		break;
	default:
		break;
	}
}

static void
watch_run(const char *handler, const char *lock, struct watch *w, struct metrics *m)
{
	char text[2048];
	struct probe p = { watch_fn, w };

	memset(w, 0, sizeof *w);
	w->kicked = -1;
	snprintf(text, sizeof text, overcommitted, handler, lock);
	tu_run(text, 5, &p, m);
}

START_TEST(directed_yield_never_targets_running_or_halted)
{
	static const char *const handlers[] = { "3.2", "3.10" };
	struct watch w;
	struct metrics m;

	watch_run(handlers[_i], "pv-ticket", &w, &m);
	ck_assert_int_gt(w.yields, 10);
	ck_assert_int_eq(w.bad_yields, 0);
	ck_assert_double_eq(tu_metric(&m, "yield_to_ok"), w.yields);
	metrics_free(&m);
}
END_TEST

START_TEST(a_kicked_waiter_takes_the_lock_next)
{
	struct watch w;
	struct metrics m;

	watch_run("3.2", "pv-ticket", &w, &m);
	ck_assert_int_gt(w.kicks, 10);
	ck_assert_int_eq(w.other_took, 0);
	ck_assert_int_eq(w.kicked_took, w.kicks);
	metrics_free(&m);
}
END_TEST

/* One thread halts for 20 us at a time; with a 50 us poll it never sleeps. */
static double
polls_ok(const char *poll)
{
	char text[1024];
	struct metrics m;
	double n;

	snprintf(text, sizeof text,
	    "machine: {cores_per_socket: 2, threads_per_core: 1, clock: 2GHz}\n"
	    "until: done\n"
	    "hypervisor: {kind: kvm, scheduler: cfs, halt_poll: %s}\n"
	    "vms:\n"
	    "  - {name: g, vcpus: 1, workload: w}\n"
	    "workloads:\n"
	    "  w: {program: [{loop: 100, do: [{compute: 5us}, {sleep: 20us}]}]}\n", poll);
	tu_run(text, 1, NULL, &m);
	n = tu_metric(&m, "halt_polls_ok");
	ck_assert_double_eq(tu_metric(&m, "hlt_exits"), 100);
	metrics_free(&m);
	return n;
}

START_TEST(halt_polling_catches_short_halts)
{
	ck_assert_double_eq(polls_ok("0ns"), 0);
	ck_assert_double_eq(polls_ok("50us"), 100);
	ck_assert_double_eq(polls_ok("5us"), 0);
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
	tcase_add_loop_test(tc, directed_yield_never_targets_running_or_halted, 0, 2);
	tcase_add_test(tc, a_kicked_waiter_takes_the_lock_next);
	tcase_add_test(tc, halt_polling_catches_short_halts);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(kvm_suite());
}
