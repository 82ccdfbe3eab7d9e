/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_lock.c - guest lock algorithms: mutual exclusion and order. */
#include "testutil.h"

#include "guest/lock.h"

#define MAXV 64

/* Watches lock events: who holds, in what order waiters arrived and took it. */
struct watch {
	const void *lock;
	int holder;
	int arrivals[1 << 16], takes[1 << 16];
	int narr, ntake, violations, releases;
};

static void
watch_fn(void *ctx, const struct probe_ev *e)
{
	struct watch *w = ctx;

	switch (e->kind) {
	case PR_LOCK_WAIT:
		if (w->narr < (1 << 16))
			w->arrivals[w->narr++] = e->vcpu;
		break;
	case PR_LOCK_TAKEN:
		if (w->holder != -1)
			w->violations++;
		w->holder = e->vcpu;
		if (w->ntake < (1 << 16))
			w->takes[w->ntake++] = e->vcpu;
		break;
	case PR_LOCK_RELEASE:
		if (w->holder != e->vcpu)
			w->violations++;
		w->holder = -1;
		w->releases++;
		break;
	default:
		break;
	}
}

static const char *ticket_contended =
    TEST_MACHINE
    "until: done\n"
    "vms:\n"
    "  - {name: g, vcpus: 6, lock: ticket, workload: w}\n"
    "workloads:\n"
    "  w:\n"
    "    program:\n"
    "      - loop: 2000\n"
    "        do:\n"
    "          - compute: {dist: exponential, mean: 100ns}\n"
    "          - acquire: l\n"
    "          - compute: {dist: uniform, min: 10ns, max: 200ns}\n"
    "          - release: l\n";

START_TEST(ticket_is_fifo_and_exclusive)
{
	static struct watch w;
	struct probe p = { watch_fn, &w };
	struct metrics m;
	int i;

	memset(&w, 0, sizeof w);
	w.holder = -1;
	tu_run(ticket_contended, 7 + (uint64_t)_i, &p, &m);
	ck_assert_int_eq(w.violations, 0);
	ck_assert_int_eq(w.ntake, 6 * 2000);
	ck_assert_int_eq(w.releases, 6 * 2000);
	/* FIFO: the lock is taken in exactly the order acquire() was entered. */
	for (i = 0; i < w.ntake; i++)
		ck_assert_msg(w.takes[i] == w.arrivals[i],
		    "take %d went to vCPU %d, but vCPU %d arrived first", i, w.takes[i],
		    w.arrivals[i]);
	/* It was really contended, or the test proves nothing. */
	ck_assert_double_gt(tu_metric(&m, "g.l.contended_share"), 50);
	metrics_free(&m);
}
END_TEST

START_TEST(ticket_waiter_needs_its_turn)
{
	/*
	 * Two threads on SMT siblings; one holds the lock for 1 ms of work while
	 * the other spins, which slows the holder by smt_spin_slowdown (1.5).
	 */
	static const char *text =
	    "machine: {cores_per_socket: 1, threads_per_core: 2, clock: 2GHz,\n"
	    "  costs: {ctx_switch: 0ns, smt_spin_slowdown: 1.5}}\n"
	    "until: done\n"
	    "vms:\n"
	    "  - {name: g, vcpus: 2, lock: ticket, workload: w}\n"
	    "workloads:\n"
	    "  w:\n"
	    "    program:\n"
	    "      - acquire: l\n"
	    "      - compute: 1ms\n"
	    "      - release: l\n";
	struct metrics m;

	tu_run(text, 1, NULL, &m);
	/* Waits: 0 and 1.5 ms; then the second holder runs 1 ms alone. */
	ck_assert_double_eq_tol(tu_metric(&m, "g.l.wait_mean_ns"), 0.75e6, 100);
	ck_assert_double_eq_tol(tu_metric(&m, "completion_seconds"), 2.5e-3, 1e-7);
	metrics_free(&m);
}
END_TEST

static Suite *
lock_suite(void)
{
	Suite *s = suite_create("lock");
	TCase *tc = tcase_create("ticket");

	tcase_set_timeout(tc, 0);
	tcase_add_loop_test(tc, ticket_is_fifo_and_exclusive, 0, 5);
	tcase_add_test(tc, ticket_waiter_needs_its_turn);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(lock_suite());
}
