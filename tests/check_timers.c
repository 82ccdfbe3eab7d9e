/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_timers.c - guest timers (models/guest/gtimer.c) and busy_wait:
 * an idle tickless guest wakes at the rate of its kernel services' timers
 * and only for the non-deferrable ones; a sleeping task's hrtimer wakes its
 * halted vCPU at expiry; busy_wait ends at start + T of wall time however
 * the vCPU was preempted, where compute needs T of CPU time; on Xen the
 * PV timer (pv_timer) re-arms by hypercall; the per-vCPU form's `sleep:`
 * idles with interrupts on, so its timers and tick wake it.
 */
#include <math.h>

#include "testutil.h"
#include "guest/guest.h"
#include "hv/hv.h"

/* 8 idle vCPUs (the one task sleeps past the end), KVM, a pCPU each. */
#define IDLE_GUEST(DUR, EXTRA) \
	"name: idle\nseed: 1\nreps: 1\nuntil: duration\nduration: " DUR "\n" TEST_MACHINE \
	"hypervisor: {kind: kvm, scheduler: cfs}\n" \
	"vms:\n  - {name: g, vcpus: 8, workload: w" EXTRA "}\n" \
	"workloads:\n  w:\n    programs:\n      s:\n        - block: 1000s\n" \
	"    tasks:\n      - {program: s, count: 1}\n"

/*
 * The services that wake an idle vCPU (gtimer.c): the softlockup watchdog's
 * hrtimer, every 4 s on each vCPU, and the clocksource watchdog's timer,
 * every 0.5 s on one vCPU at a time; vmstat_update is deferrable and never
 * wakes one; khungtaskd's 120 s is past the end.
 */
START_TEST(idle_wakes_at_services_rate)
{
	struct metrics m;
	double wakes, runs;

	tu_run(IDLE_GUEST("20s", ""), 1, NULL, &m);
	wakes = tu_metric(&m, "g.timer_wakes");
	runs = tu_metric(&m, "g.timer_runs");
	/* softlockup at 4, 8, 12 and 16 s on each vCPU (plus its phase, so the
	 * 20 s one falls past the end): 32; clocksource every 0.5 s, re-armed
	 * from its run (a wake later each time): 39 or 40 */
	ck_assert_msg(wakes >= 32 + 39 && wakes <= 32 + 40, "%.0f timer wakes in 20 s", wakes);
	ck_assert_double_eq(tu_metric(&m, "g.guest_ticks"), 0);	/* tickless, never busy */
	ck_assert_double_eq(tu_metric(&m, "g.timer_irqs"), wakes);
	/* vmstat_update ran, deferred to those wakes: at most one per vCPU each */
	ck_assert_msg(runs > wakes && runs <= 2 * wakes, "%.0f runs, %.0f wakes", runs, wakes);
	/* one HLT to start with per vCPU, one after each wake */
	ck_assert_double_eq(tu_metric(&m, "hlt_exits"), 8 + wakes);
	metrics_free(&m);

	tu_run(IDLE_GUEST("20s", ", guest: {timers: false}"), 1, NULL, &m);
	ck_assert_double_eq(tu_metric(&m, "g.timer_wakes"), 0);
	ck_assert_double_eq(tu_metric(&m, "hlt_exits"), 8);
	metrics_free(&m);
}
END_TEST

/* A busy guest: the tick runs, so wheel timers ride on it (no interrupt of
 * their own), the hrtimer still interrupts, and vmstat_update runs each
 * second on every vCPU. */
START_TEST(busy_guest_timers_ride_the_tick)
{
	static const char text[] =
	    "name: busy\nseed: 1\nreps: 1\nuntil: duration\nduration: 10s\n" TEST_MACHINE
	    "hypervisor: {kind: kvm, scheduler: cfs}\n"
	    "vms:\n  - {name: g, vcpus: 8, workload: w}\n"
	    "workloads:\n  w:\n    programs:\n      s:\n        - loop: forever\n"
	    "          do:\n            - compute: 1ms\n"
	    "    tasks:\n      - {program: s, count: 8}\n";
	struct metrics m;
	double irqs, runs;

	tu_run(text, 1, NULL, &m);
	irqs = tu_metric(&m, "g.timer_irqs");
	runs = tu_metric(&m, "g.timer_runs");
	ck_assert_double_eq(tu_metric(&m, "g.timer_wakes"), 0);
	ck_assert_double_eq(irqs, 8 * 2);	/* softlockup at 4 s and 8 s on each vCPU */
	/* + clocksource 19-20, vmstat 9-10 per vCPU */
	ck_assert_msg(runs >= 16 + 19 + 8 * 9 && runs <= 16 + 20 + 8 * 10, "%.0f runs", runs);
	metrics_free(&m);
}
END_TEST

/* What a probe saw of vCPU 0: its HLT exits and wakes, and its exits for
 * I/O (hypercall: a wait starts after it; pio-kernel: it ended), with when
 * it last left and regained its pCPU. */
struct seen {
	sim_time_t hlt[8], wake[8];
	int nhlt, nwake;
	sim_time_t probe[64], start[64], end[64], off_after_start[64], back[64];
	int skip[64];
	int nstart, nend;
	sim_time_t left, came;
	double hc_ns;		/* a hypercall exit's cost, ns */
};

static void
watch(void *ctx, const struct probe_ev *e)
{
	struct seen *s = ctx;

	if (e->vcpu != 0)
		return;
	if (e->kind == PR_HLT_EXIT && s->nhlt < 8)
		s->hlt[s->nhlt++] = e->t;
	else if (e->kind == PR_WAKE && s->nwake < 8)
		s->wake[s->nwake++] = e->t;
	else if (e->kind == PR_RUNSTATE && e->aux != RS_RUNNING)
		s->left = e->t;
	else if (e->kind == PR_RUNSTATE)
		s->came = e->t;
	else if (e->kind == PR_IO_EXIT && e->aux == IO_HYPERCALL && s->nstart < 64) {
		s->probe[s->nstart] = e->t;
		s->start[s->nstart] = e->t + (sim_time_t)llround(s->hc_ns);
		s->off_after_start[s->nstart] = -1;
		s->nstart++;
	} else if (e->kind == PR_IO_EXIT && s->nend < s->nstart) {
		int i = s->nend++;

		s->end[i] = e->t;
		/* preempted during the wait, and back on a pCPU at came */
		s->off_after_start[i] = s->left > s->start[i] ? s->left : -1;
		s->back[i] = s->came;
		/* preempted inside the hypercall's exit: its start is not known here */
		s->skip[i] = s->left > s->probe[i] && s->left <= s->start[i];
	}
}

/* A task's sleep (block:) is a hrtimer on its vCPU: the idle vCPU halts,
 * the host wakes it at the expiry, and the task runs on after the timer's
 * interrupt (costs.timer_tick) and the guest's switch to it. */
START_TEST(sleep_timer_wakes_vcpu_at_expiry)
{
	static const char text[] =
	    /* TEST_MACHINE without C-states: the times here are the timer's (a 5 ms
	     * idle otherwise puts the pCPU in C6, 200 us to leave: check_idle) */
	    "name: nap\nseed: 1\nreps: 1\nuntil: duration\nduration: 20ms\n"
	    "machine: {name: t, sockets: 2, cores_per_socket: 2, threads_per_core: 2, clock: 2GHz,"
	    " cstates: []}\n"
	    "hypervisor: {kind: kvm, scheduler: cfs}\n"
	    /* without the scheduler's locks: the times below are the timer's and
	     * the switch's (check_rqlock has the locks' own) */
	    "vms:\n  - {name: g, vcpus: 1, workload: w, guest: {timers: false, "
	    "sched_locks: false}}\n"
	    "workloads:\n  w:\n    programs:\n      s:\n        - compute: 1ms\n"
	    "        - block: 5ms\n        - compute: 1ms\n        - block: 100ms\n"
	    "    tasks:\n      - {program: s, count: 1}\n";
	struct seen s = { .nhlt = 0 };
	struct probe p = { watch, &s };
	struct metrics m;
	struct run_opts o = { .wall_clock = 0, .check = 2, .probe = &p };
	struct scenario sc;
	struct vs_err err = { "" };
	/* TEST_MACHINE's clock: 2 GHz; timer_tick 4000 cycles, guest_ctx_switch 6000 */
	sim_time_t tick = 2000, sw = 3000, d;

	ck_assert_int_eq(tu_load(&sc, text, &err), 0);
	metrics_init(&m);
	ck_assert_int_eq(run_once(&sc, 1, &o, &m, &err), 0);
	scen_free(&sc);
	ck_assert_int_ge(s.nhlt, 2);
	ck_assert_int_ge(s.nwake, 1);
	/* the block's HLT, then the wake at exactly its expiry */
	ck_assert_int_eq(s.wake[0], s.hlt[0] + 5000000);
	/* the next halt: after the timer's interrupt, the switch to the task and its 1 ms */
	d = s.hlt[1] - s.wake[0];
	ck_assert_msg(d >= 1000000 + tick + sw && d < 1000000 + tick + sw + 20000,
	    "the task halted again %lld ns after its wake", (long long)d);
	ck_assert_double_eq(tu_metric(&m, "g.timer_irqs"), 1);
	ck_assert_double_eq(tu_metric(&m, "g.timer_wakes"), 1);
	ck_assert_double_eq(tu_metric(&m, "timer_exits"), 1);
	metrics_free(&m);
}
END_TEST

/* A VM whose one vCPU waits 10 ms at a time, beside a hog on a 1-pCPU
 * host: the host preempts it in the middle of its waits. */
static void
wait_under_preemption(const char *prim, struct seen *s)
{
	char text[2048];
	struct probe p = { watch, s };
	struct metrics m;
	struct run_opts o = { .wall_clock = 0, .check = 2, .probe = &p };
	struct scenario sc;
	struct vs_err err = { "" };

	snprintf(text, sizeof text,
	    "name: bw\nseed: 1\nreps: 1\nuntil: duration\nduration: 300ms\n"
	    "machine: {name: t, sockets: 1, cores_per_socket: 1, threads_per_core: 1, "
	    "clock: 2GHz}\n"
	    "hypervisor: {kind: kvm, scheduler: cfs}\n"
	    "vms:\n  - {name: a, vcpus: 1, workload: w}\n  - {name: b, vcpus: 1, workload: hog}\n"
	    "workloads:\n  w:\n    program:\n      - loop: forever\n        do:\n"
	    "          - io: hypercall\n          - %s: 10ms\n          - io: pio-kernel\n"
	    "  hog:\n    program:\n      - loop: forever\n        do:\n          - compute: 1ms\n",
	    prim);
	memset(s, 0, sizeof *s);
	s->hc_ns = 3898 / 2.0;	/* costs.exit_hypercall at 2 GHz */
	ck_assert_int_eq(tu_load(&sc, text, &err), 0);
	metrics_init(&m);
	ck_assert_int_eq(run_once(&sc, 1, &o, &m, &err), 0);
	scen_free(&sc);
	metrics_free(&m);
	ck_assert_int_ge(s->nend, 5);
}

START_TEST(busy_wait_ends_on_wall_clock)
{
	struct seen s;
	int i, early_back = 0, late_back = 0, slow = 0;

	wait_under_preemption("busy_wait", &s);
	for (i = 0; i < s.nend; i++) {
		sim_time_t dl = s.start[i] + 10000000;

		if (s.skip[i])
			continue;
		if (s.off_after_start[i] < 0) {
			ck_assert_int_eq(s.end[i], dl);	/* never preempted */
		} else if (s.back[i] <= dl) {
			ck_assert_int_eq(s.end[i], dl);	/* preempted, back before its deadline */
			early_back++;
		} else {
			ck_assert_int_ge(s.end[i], s.back[i]);	/* at once when back */
			ck_assert_int_lt(s.end[i], s.back[i] + 100000);
			late_back++;
		}
	}
	ck_assert_int_gt(early_back, 0);
	ck_assert_int_gt(late_back + early_back, 1);

	/* compute needs 10 ms on the CPU: a preempted one ends later */
	wait_under_preemption("compute", &s);
	for (i = 0; i < s.nend; i++)
		if (!s.skip[i] && s.off_after_start[i] >= 0) {
			ck_assert_int_gt(s.end[i], s.start[i] + 10000000);
			slow++;
		}
	ck_assert_int_gt(slow, 0);
}
END_TEST

/* 8 vCPUs of the per-vCPU form, each thread sleeping past the end. */
#define SLEEPING_THREADS(DUR, GUEST) \
	"name: idle\nseed: 1\nreps: 1\nuntil: duration\nduration: " DUR "\n" TEST_MACHINE \
	"hypervisor: {kind: kvm, scheduler: cfs}\n" \
	"vms:\n  - {name: g, vcpus: 8, workload: w, guest: " GUEST "}\n" \
	"workloads:\n  w:\n    program:\n      - sleep: 1000s\n"

/*
 * The per-vCPU form's sleep is its vCPU's idle (Linux safe_halt: interrupts
 * on): with the services' timers on, they wake it at the idle task form's
 * rate (idle_wakes_at_services_rate), each wake a handler and one more HLT;
 * a tickless sleep stops the tick, and without NO_HZ the tick wakes it HZ
 * times a second.  Before, the sleep halted with interrupts off: one HLT per
 * vCPU and nothing else in 20 s.
 */
START_TEST(per_vcpu_sleep_wakes_for_timers_and_tick)
{
	struct metrics m;
	double irqs, ticks;

	/* the per-vCPU form reports no guest kernel counters: the host's exits */
	tu_run(SLEEPING_THREADS("20s", "{timers: true}"), 1, NULL, &m);
	irqs = tu_metric(&m, "timer_exits");
	ck_assert_msg(irqs >= 32 + 39 && irqs <= 32 + 40, "%.0f timer interrupts in 20 s", irqs);
	ck_assert_double_eq(tu_metric(&m, "hlt_exits"), 8 + irqs);
	metrics_free(&m);

	tu_run(SLEEPING_THREADS("20s", "{timers: false}"), 1, NULL, &m);
	ck_assert_double_eq(tu_metric(&m, "timer_exits"), 0);
	ck_assert_double_eq(tu_metric(&m, "hlt_exits"), 8);
	metrics_free(&m);

	/* HZ 250, tickless: the sleep stops the tick; not tickless: 250 a second */
	tu_run(SLEEPING_THREADS("2s", "{hz: 250}"), 1, NULL, &m);
	ck_assert_double_le(tu_metric(&m, "timer_exits"), 8);
	ck_assert_double_le(tu_metric(&m, "hlt_exits"), 16);
	metrics_free(&m);
	tu_run(SLEEPING_THREADS("2s", "{hz: 250, tickless: false}"), 1, NULL, &m);
	ticks = tu_metric(&m, "timer_exits");
	ck_assert_msg(fabs(ticks - 8 * 500) <= 8, "%.0f ticks in 2 s on 8 vCPUs", ticks);
	ck_assert_double_eq(tu_metric(&m, "hlt_exits"), 8 + ticks);
	metrics_free(&m);
}
END_TEST

/* One task computing 100 ms on Xen (a pCPU per vCPU), HZ 1000; tick exits
 * of timer_tick 4000 cycles, a hypercall 6000 (2 GHz). */
static void
xen_tick_run(const char *pv, struct metrics *m)
{
	char text[1024];

	snprintf(text, sizeof text, "name: xt\nseed: 1\nreps: 1\nuntil: done\n"
	    "machine: {name: t, sockets: 1, cores_per_socket: 2, threads_per_core: 1, "
	    "clock: 2GHz, costs: {timer_tick: 4000cycles, exit_hypercall: 6000cycles}}\n"
	    "hypervisor: {kind: xen, scheduler: credit, pv_timer: %s}\n"
	    "vms:\n  - {name: g, vcpus: 1, workload: w, guest: {hz: 1000, timers: false}}\n"
	    "workloads:\n  w:\n    programs:\n      s: [{compute: 100ms}]\n"
	    "    tasks: [{program: s}]\n", pv);
	tu_run(text, 1, NULL, m);
}

/*
 * Xen's PV timer (Linux 3.2 arch/x86/xen/time.c): each tick re-arms with
 * VCPUOP_set_singleshot_timer, a hypercall in place of the LAPIC deadline
 * write: one hypercall per tick, and a tick costs the interrupt's half of
 * timer_tick (1 us) plus the hypercall (3 us) instead of timer_tick (2 us).
 */
START_TEST(xen_pv_timer_rearms_by_hypercall)
{
	struct metrics m;
	double t_lapic, t_pv, n_lapic, n_pv, extra;

	xen_tick_run("false", &m);
	n_lapic = tu_metric(&m, "g.guest_ticks");
	t_lapic = tu_metric(&m, "completion_seconds");
	ck_assert_double_gt(n_lapic, 99);
	ck_assert_double_eq(tu_metric(&m, "timer_exits"), n_lapic);
	ck_assert_double_eq(tu_metric(&m, "hypercalls"), 0);
	metrics_free(&m);
	xen_tick_run("true", &m);
	n_pv = tu_metric(&m, "g.guest_ticks");
	t_pv = tu_metric(&m, "completion_seconds");
	ck_assert_double_eq(tu_metric(&m, "timer_exits"), n_pv);
	ck_assert_double_eq(tu_metric(&m, "hypercalls"), n_pv);
	metrics_free(&m);
	/* each tick 1 us longer: n ticks of 4 us against n of 2 us, +- a tick */
	extra = t_pv - t_lapic;
	ck_assert_msg(fabs(extra - (n_pv * 4e-6 - n_lapic * 2e-6)) <= 4e-6,
	    "pv %.0f ticks, lapic %.0f, %.3g s longer", n_pv, n_lapic, extra);
	ck_assert_double_gt(extra, 0.9 * n_lapic * 2e-6);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("timers");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, idle_wakes_at_services_rate);
	tcase_add_test(tc, busy_guest_timers_ride_the_tick);
	tcase_add_test(tc, sleep_timer_wakes_vcpu_at_expiry);
	tcase_add_test(tc, busy_wait_ends_on_wall_clock);
	tcase_add_test(tc, xen_pv_timer_rearms_by_hypercall);
	tcase_add_test(tc, per_vcpu_sleep_wakes_for_timers_and_tick);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(suite());
}
