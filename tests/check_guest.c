/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_guest.c - the guest kernel: tasks, its scheduler, idle, ticks. */
#include "testutil.h"

#include <math.h>

#include "guest/gsched.h"
#include "guest/gvm.h"
#include "hv/hv.h"

/* no C-states: the wake latencies here are the guest's (check_idle has the exits) */
#define HOST "machine: {name: t, sockets: 2, cores_per_socket: 2, threads_per_core: 2, " \
    "clock: 2GHz, cstates: []}\n" "hypervisor: {kind: kvm, scheduler: cfs}\n"

/* Run with the full self-check (the guest's run queues at every switch). */
static void
run_full(const char *text, uint64_t seed, struct metrics *m)
{
	tu_run_check(text, seed, NULL, 2, m);
}

START_TEST(block_resumes_after_t_plus_wake_latency)
{
	struct metrics m;
	double done, lat;

	run_full("name: b\nseed: 1\nuntil: done\n" HOST
	    /* without the scheduler's locks: the costs summed below are the
	     * switch's and the timer's (check_rqlock has the locks' own) */
	    "vms: [{name: g, vcpus: 1, workload: w, guest: {hz: 0, sched_locks: false}}]\n"
	    "workloads:\n  w:\n    programs: {p: [{compute: 1ms}, {block: 10ms}, {compute: 1ms}]}\n"
	    "    tasks: [{program: p}]\n", 1, &m);
	done = tu_metric(&m, "completion_seconds") * 1e9;
	lat = tu_metric(&m, "g.wake_latency_mean_ns");
	ck_assert_double_gt(lat, 0);
	ck_assert_double_lt(lat, 50e3);		/* a host wake and a switch, not a tick */
	/* the host's first switch-in (6000 cycles at 2 GHz), 12 ms of program, the
	 * host's wake of the halted vCPU at the sleep's hrtimer (wake_ipi 8000 and
	 * ctx_switch 6000 cycles), the timer interrupt whose handler wakes the task
	 * (timer_tick 4000 cycles), and the wakeup's latency from there
	 * (histogram: within 2%) */
	ck_assert_double_lt(fabs(done - 3e3 - 12e6 - (4e3 + 3e3) - 2e3 - lat), 0.02 * lat + 2);
	ck_assert_double_eq(tu_metric(&m, "g.task_wakeups"), 1);
	metrics_free(&m);
}
END_TEST

START_TEST(fewer_tasks_than_vcpus_halt_the_rest)
{
	struct metrics m;

	run_full("name: h\nseed: 1\nduration: 1s\n" HOST
	    "vms: [{name: g, vcpus: 4, workload: w}]\n"
	    "workloads:\n  w:\n    programs: {p: [{loop: forever, do: [{compute: 1ms}]}]}\n"
	    "    tasks: [{program: p, count: 2}]\n", 1, &m);
	/* two vCPUs compute, two halt in the idle loop: the host sees them blocked */
	ck_assert_double_lt(fabs(tu_metric(&m, "g.running_share") - 50), 0.5);
	ck_assert_double_lt(fabs(tu_metric(&m, "g.blocked_share") - 50), 0.5);
	ck_assert_double_lt(fabs(tu_metric(&m, "g.guest_idle_share") - 50), 0.5);
	ck_assert_double_eq(tu_metric(&m, "g.runnable_share") + tu_metric(&m, "g.running_share") +
	    tu_metric(&m, "g.blocked_share") + tu_metric(&m, "g.offline_share"), 100);
	ck_assert_double_gt(tu_metric(&m, "hlt_exits"), 0);
	metrics_free(&m);
}
END_TEST

/* Many tasks, blocking and waking, over fewer vCPUs under host overcommit:
 * the full self-check aborts if a task is ever current on two vCPUs, queued
 * twice, or outside its affinity; a holder switched out aborts in preempt(). */
static const char churn[] =
    "name: c\nseed: 3\nuntil: done\n"
    "machine: {name: t, sockets: 2, cores_per_socket: 4, threads_per_core: 1, clock: 2GHz}\n"
    "hypervisor: {kind: kvm, scheduler: cfs}\n"
    "vms:\n  - {name: g, vcpus: 4, lock: ticket, workload: w, guest: {hz: 1000}}\n"
    "  - {name: hog, vcpus: 8, workload: hog}\n"
    "workloads:\n"
    "  hog: {program: [{loop: forever, do: [{compute: 3ms}]}]}\n"
    "  w:\n    locks: {k: {cs_lines: 1}}\n"
    "    programs:\n"
    "      make: [{spawn: {program: cc, count: 60, parallel: 12}}, {join: children}]\n"
    "      cc:\n"
    "        - loop: 20\n"
    "          do: [{compute: {dist: exponential, mean: 200us}}, {acquire: k},\n"
    "               {compute: 3ms}, {release: k}, {block: {dist: exponential, mean: 300us}}]\n"
    "    tasks: [{program: make}, {program: cc, count: 3, cpus: [1, 2]}]\n";

START_TEST(tasks_never_on_two_vcpus_and_holders_stay)
{
	struct metrics m;

	char text[2048];
	char *hog;

	run_full(churn, 1, &m);
	ck_assert_double_eq(tu_metric(&m, "completed"), 1);
	ck_assert_double_gt(tu_metric(&m, "g.task_migrations"), 0);
	ck_assert_double_gt(tu_metric(&m, "g.guest_ctx_switches"), 100);
	ck_assert_double_eq(tu_metric(&m, "g.k.acquisitions"), (60 + 3) * 20);
	/* the host preempts holders (lock-holder preemption): holds grow */
	ck_assert_double_gt(tu_metric(&m, "g.k.hold_mean_ns"), 3.1e6);
	metrics_free(&m);
	/* Without the hog the host never preempts; ticks fall inside the 3 ms
	 * sections at HZ 1000, yet the guest never cuts one: the hold time is the
	 * section plus its line transfers and the ticks' handlers (2 us each). */
	snprintf(text, sizeof text, "%s", churn);
	hog = strstr(text, "  - {name: hog, vcpus: 8, workload: hog}\n");
	ck_assert_ptr_nonnull(hog);
	memmove(hog, hog + strlen("  - {name: hog, vcpus: 8, workload: hog}\n"),
	    strlen(hog + strlen("  - {name: hog, vcpus: 8, workload: hog}\n")) + 1);
	run_full(text, 1, &m);
	ck_assert_double_lt(fabs(tu_metric(&m, "g.k.hold_mean_ns") - 3e6), 10e3);
	ck_assert_double_gt(tu_metric(&m, "g.guest_ticks"), 1000);
	metrics_free(&m);
}
END_TEST

START_TEST(tasks_share_a_vcpu_by_weight)
{
	struct metrics m;
	double a, b, want = 1024.0 / 335.0;	/* nice 0 against nice 5 */

	run_full("name: w\nseed: 1\nduration: 3s\n" HOST
	    "vms: [{name: g, vcpus: 1, workload: w}]\n"
	    "workloads:\n  w:\n    programs:\n"
	    "      a: [{loop: forever, do: [{compute: 100us}, {count: a}]}]\n"
	    "      b: [{loop: forever, do: [{compute: 100us}, {count: b}]}]\n"
	    "    tasks: [{program: a, nice: 0}, {program: b, nice: 5}]\n", 1, &m);
	a = tu_metric(&m, "g.a");
	b = tu_metric(&m, "g.b");
	/* within the guest's granularity: a slice is ms, the run 3 s */
	ck_assert_double_lt(fabs(a / b - want) / want, 0.03);
	metrics_free(&m);
}
END_TEST

/* At the first lock event, each initial task's mask read through
 * gk_task_allowed: want[i] is task i's vCPUs as bits. */
struct masks {
	unsigned want[4];
	int seen;
};

static void
masks_probe(void *ctx, const struct probe_ev *e)
{
	struct masks *mk = ctx;
	const struct glock *l = e->lock;
	const struct gvm *g;
	int i, c;

	if (l == NULL || mk->seen)
		return;
	mk->seen = 1;
	g = gvm_of(l->vm);
	ck_assert_int_eq(g->ntasks, 4);
	for (i = 0; i < 4; i++)
		for (c = 0; c < l->vm->nvcpus; c++)
			ck_assert_msg(gk_task_allowed(g->tasks[i], c) == (int)(mk->want[i] >> c & 1),
			    "task %d, vCPU %d", i, c);
}

/* A task pinned to one vCPU reads a window of a shared one-hot array
 * (gvm.c pinned); its mask is still exactly that vCPU, at either end too. */
START_TEST(pinned_tasks_allow_their_vcpu_only)
{
	struct masks mk = { { 1u << 4, 1u << 0, 0x1f, (1u << 1) | (1u << 3) }, 0 };
	struct probe pr = { masks_probe, &mk };
	struct metrics m;

	tu_run_check("name: p\nseed: 1\nduration: 1ms\n" HOST
	    "vms: [{name: g, vcpus: 5, lock: ticket, workload: w}]\n"
	    "workloads:\n  w:\n    locks: {k: {cs_lines: 1}}\n"
	    "    programs: {p: [{loop: forever, do: [{compute: 10us}, {acquire: k},"
	    " {compute: 1us}, {release: k}]}]}\n"
	    "    tasks: [{program: p, cpus: [4]}, {program: p, cpus: [0, 0]}, {program: p},"
	    " {program: p, cpus: [1, 3]}]\n", 1, &pr, 2, &m);
	ck_assert_int_eq(mk.seen, 1);
	metrics_free(&m);
}
END_TEST

static double
rep_sd_of(const char *text, const char *metric)
{
	struct scenario sc;
	struct vs_err err = { "" };
	struct run_opts o = { .wall_clock = 0, .check = 1 };
	struct msum s;
	double sd;

	if (tu_load(&sc, text, &err) != 0)
		ck_abort_msg("%s", err.msg);
	msum_init(&s);
	ck_assert_int_eq(run_reps(&sc, sc.seed, 4, &o, &s, &err), 0);
	ck_assert_int_ge(msum_find(&s, metric), 0);
	sd = rep_sd(&s.reps[msum_find(&s, metric)]);
	msum_free(&s);
	scen_free(&sc);
	return sd;
}

START_TEST(random_phases_make_replications_differ)
{
	static const char fmt[] = "name: p\nseed: 1\nuntil: done\n" TEST_MACHINE
	    "hypervisor: {kind: kvm, scheduler: pinned}\n"
	    "vms:\n  - {name: g, vcpus: 2, lock: ticket, workload: w, guest: {start_phase: %s}}\n"
	    "workloads:\n"
	    "  w:\n    programs: {p: [{loop: 200, do: [{compute: 1ms}, {acquire: k},"
	    " {compute: 10us}, {release: k}]}]}\n"
	    "    tasks: [{program: p, count: 3}]\n";
	char text[2048];

	snprintf(text, sizeof text, fmt, "aligned");
	ck_assert_double_eq(rep_sd_of(text, "completion_seconds"), 0);
	snprintf(text, sizeof text, fmt, "random");
	ck_assert_double_gt(rep_sd_of(text, "completion_seconds"), 0);
}
END_TEST

START_TEST(fifo_runs_a_task_until_it_blocks)
{
	struct metrics m;

	/* two cpu-bound tasks on one vCPU: FIFO never preempts, so one finishes
	 * before the other starts (2 switches: a, then b, none between) */
	run_full("name: f\nseed: 1\nuntil: done\n" HOST
	    "vms: [{name: g, vcpus: 1, workload: w, guest: {scheduler: fifo, hz: 1000}}]\n"
	    "workloads:\n  w:\n    programs: {p: [{loop: 100, do: [{compute: 1ms}]}]}\n"
	    "    tasks: [{program: p, count: 2}]\n", 1, &m);
	ck_assert_double_eq(tu_metric(&m, "g.guest_ctx_switches"), 2);
	metrics_free(&m);
	run_full("name: f\nseed: 1\nuntil: done\n" HOST
	    "vms: [{name: g, vcpus: 1, workload: w, guest: {scheduler: cfs, hz: 1000}}]\n"
	    "workloads:\n  w:\n    programs: {p: [{loop: 100, do: [{compute: 1ms}]}]}\n"
	    "    tasks: [{program: p, count: 2}]\n", 1, &m);
	ck_assert_double_gt(tu_metric(&m, "g.guest_ctx_switches"), 10);
	metrics_free(&m);
}
END_TEST

/*
 * The guest's EEVDF (gsched_eevdf.c) at its tick, HZ 1000, one vCPU (sysctl
 * factor 1), two tasks of 100 ms: update_deadline reschedules at the first
 * tick after curr's vruntime passes its deadline.  A 0.70 ms slice is used
 * up within every 1 ms tick: a switch at each of the ~200 ticks (and the
 * first switch-in).  A 2.5 ms slice: the first (new-task) deadlines are
 * 1.25 ms away, then each run lasts the 3 ticks that cover 2.5 ms of
 * vruntime: ~200 / 3 switches.  (3.2's CFS: ideal 3 ms, switched at the
 * tick after more than 3 ms ran: every 4th tick, ~50.)  A cfs guest refuses
 * eevdf's keys.
 */
START_TEST(eevdf_tick_preempts_after_a_used_slice)
{
	static const char *const sl[] = { "", ", base_slice: 2.5ms" };
	const double lo[] = { 199, 66 }, hi[] = { 202, 69 };
	struct scenario sc;
	struct vs_err err = { "" };
	struct metrics m;
	char text[1024];
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(text, sizeof text, "name: e\nseed: 1\nuntil: done\n" HOST
		    "vms: [{name: g, vcpus: 1, workload: w, guest: {scheduler: eevdf, hz: 1000%s}}]\n"
		    "workloads:\n  w: {programs: {p: [{compute: 100ms}]}, "
		    "tasks: [{program: p, count: 2}]}\n", sl[i]);
		run_full(text, 1, &m);
		ck_assert_double_ge(tu_metric(&m, "g.guest_ctx_switches"), lo[i]);
		ck_assert_double_le(tu_metric(&m, "g.guest_ctx_switches"), hi[i]);
		metrics_free(&m);
	}
	ck_assert_int_ne(tu_load(&sc, "name: x\n" HOST "vms: [{name: g, vcpus: 1, workload: w,"
	    " guest: {scheduler: cfs, base_slice: 1ms}}]\n"
	    "workloads:\n  w: {programs: {p: [{compute: 1ms}]}, tasks: [{program: p}]}\n",
	    &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "unknown key 'base_slice'"));
	scen_free(&sc);
}
END_TEST

/* A wake from vCPU 0 of a sleeper on vCPU 1, where a long task runs (from
 * 0.5 ms, when the sleeper already waits): under EEVDF the woken sleeper (its
 * lag kept, an earlier deadline) preempts the long task once that is no
 * longer eligible, each time a reschedule IPI to a running vCPU, so
 * preempt_ipis is all of resched_ipis (vCPU 1 never idles meanwhile), for
 * most of the 20 wakes; with wakeup_preemption off there is none. */
START_TEST(a_wakeup_preempting_a_running_vcpu_is_a_preempt_ipi)
{
	static const char *const keys[] = { "", ", wakeup_preemption: false" };
	struct metrics m;
	char text[1024];
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(text, sizeof text, "name: p\nseed: 1\nuntil: done\n" HOST
		    "vms: [{name: g, vcpus: 2, workload: w, guest: {scheduler: eevdf, hz: 250%s}}]\n"
		    "workloads:\n  w:\n    queues: {q: 1}\n"
		    "    programs:\n"
		    "      waker: [{loop: 20, do: [{compute: 1ms}, {wake: q}]}]\n"
		    "      hog: [{block: 500us}, {compute: 40ms}]\n"
		    "      sleeper: [{loop: 20, do: [{wait: q}, {compute: 10us}]}]\n"
		    "    tasks: [{program: waker, cpus: [0]}, {program: hog, cpus: [1]},"
		    " {program: sleeper, cpus: [1]}]\n", keys[i]);
		run_full(text, 1, &m);
		ck_assert_double_eq(tu_metric(&m, "g.preempt_ipis"), tu_metric(&m, "g.resched_ipis"));
		if (i == 0) {
			ck_assert_double_eq(tu_metric(&m, "g.task_wakeups"), 20);
			ck_assert_double_ge(tu_metric(&m, "g.preempt_ipis"), 15);
		} else
			ck_assert_double_eq(tu_metric(&m, "g.preempt_ipis"), 0);
		metrics_free(&m);
	}
}
END_TEST

/* Two wakes from vCPU 0 of sleepers on vCPU 1, 11 ms of vruntime behind
 * its running task, while that task holds a spinlock (preempt_count > 0:
 * the first reschedule stays pending): under 3.2's CFS the first sends a
 * reschedule IPI and the second none, as check_preempt_wakeup returns while
 * test_tsk_need_resched (and resched_task would too).  Main sent two. */
START_TEST(a_pending_reschedule_gets_no_second_ipi)
{
	struct metrics m;

	run_full("name: p\nseed: 1\nuntil: done\n" HOST
	    "vms: [{name: g, vcpus: 2, workload: w, guest: {scheduler: cfs, hz: 250}}]\n"
	    "workloads:\n  w:\n    queues: {q: 1}\n    locks: {s: {}}\n"
	    "    programs:\n"
	    "      waker: [{block: 12ms}, {wake: q}, {compute: 20us}, {wake: q}]\n"
	    "      hog: [{block: 500us}, {compute: 11ms}, {acquire: s}, {compute: 3ms}, {release: s}]\n"
	    "      sleeper: [{wait: q}, {compute: 10us}]\n"
	    "    tasks: [{program: waker, cpus: [0]}, {program: hog, cpus: [1]},"
	    " {program: sleeper, count: 2, cpus: [1]}]\n", 1, &m);
	ck_assert_double_eq(tu_metric(&m, "completed"), 1);
	ck_assert_double_eq(tu_metric(&m, "g.preempt_ipis"), 1);
	ck_assert_double_eq(tu_metric(&m, "g.resched_ipis"), 1);
	metrics_free(&m);
}
END_TEST

/* A sleeper on vCPU 1 woken from vCPU 0 while vCPU 1's task holds a mutex
 * (its credit preempts under CFS): with preempt full the reschedule IPI's
 * return preempts the holder inside its section, the sleeper runs at once;
 * with preempt none (6.18 preempt=none: no irqentry_exit_cond_resched) the
 * holder keeps its vCPU until the unlock, 2.5 ms later.  The wake latency
 * is the mean of three wakes (two ends of a block at no latency).  Main had
 * no none: the holder was always preempted. */
START_TEST(preempt_none_keeps_a_mutex_holder_running)
{
	static const char *const modes[] = { "full", "none" };
	struct metrics m;
	char text[1024];
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(text, sizeof text, "name: p\nseed: 1\nuntil: done\n" HOST
		    "vms: [{name: g, vcpus: 2, workload: w, guest: {scheduler: cfs, hz: 250, "
		    "preempt: %s}}]\n"
		    "workloads:\n  w:\n    queues: {q: 1}\n    locks: {m: {kind: mutex}}\n"
		    "    programs:\n"
		    "      waker: [{block: 12ms}, {wake: q}]\n"
		    "      hog: [{block: 500us}, {compute: 11ms}, {lock: m}, {compute: 3ms},"
		    " {unlock: m}, {compute: 1ms}]\n"
		    "      sleeper: [{wait: q}, {compute: 10us}]\n"
		    "    tasks: [{program: waker, cpus: [0]}, {program: hog, cpus: [1]},"
		    " {program: sleeper, cpus: [1]}]\n", modes[i]);
		run_full(text, 1, &m);
		ck_assert_double_eq(tu_metric(&m, "completed"), 1);
		ck_assert_double_eq(tu_metric(&m, "g.preempt_ipis"), 1);
		if (i == 0)
			ck_assert_double_lt(tu_metric(&m, "g.wake_latency_mean_ns"), 10e3);
		else
			ck_assert_double_gt(tu_metric(&m, "g.wake_latency_mean_ns"), 2.4e6 / 3);
		metrics_free(&m);
	}
}
END_TEST

/* The holder of mutex m takes mutex n 1 ms into m's section (at 12.5 ms,
 * half a millisecond after the wake that asks for its vCPU): preempt
 * voluntary (3.2 CONFIG_PREEMPT_VOLUNTARY: mutex_lock's might_sleep ->
 * might_resched -> _cond_resched) switches there, so the sleeper waits
 * ~0.5 ms; none keeps the holder until m's unlock (~2.5 ms); full switches
 * at the IPI's return.  Wake latency: the mean of three wakes, two at no
 * latency.  Main had no voluntary: the key was refused. */
START_TEST(preempt_voluntary_switches_at_a_nested_mutex_lock)
{
	static const char *const modes[] = { "full", "none", "voluntary" };
	struct metrics m;
	char text[1024];
	int i;

	for (i = 0; i < 3; i++) {
		double lat;

		snprintf(text, sizeof text, "name: p\nseed: 1\nuntil: done\n" HOST
		    "vms: [{name: g, vcpus: 2, workload: w, guest: {scheduler: cfs, hz: 250, "
		    "preempt: %s}}]\n"
		    "workloads:\n  w:\n    queues: {q: 1}\n"
		    "    locks: {m: {kind: mutex}, n: {kind: mutex}}\n"
		    "    programs:\n"
		    "      waker: [{block: 12ms}, {wake: q}]\n"
		    "      hog: [{block: 500us}, {compute: 11ms}, {lock: m}, {compute: 1ms},"
		    " {lock: n}, {compute: 2ms}, {unlock: n}, {unlock: m}, {compute: 1ms}]\n"
		    "      sleeper: [{wait: q}, {compute: 10us}]\n"
		    "    tasks: [{program: waker, cpus: [0]}, {program: hog, cpus: [1]},"
		    " {program: sleeper, cpus: [1]}]\n", modes[i]);
		run_full(text, 1, &m);
		ck_assert_double_eq(tu_metric(&m, "completed"), 1);
		lat = tu_metric(&m, "g.wake_latency_mean_ns") * 3;
		if (i == 0)
			ck_assert_double_lt(lat, 30e3);
		else if (i == 1)
			ck_assert_double_gt(lat, 2.4e6);
		else
			ck_assert_msg(lat > 0.4e6 && lat < 0.6e6, "voluntary: latency %g ns", lat);
		metrics_free(&m);
	}
}
END_TEST

/* `by: {loop: K}`: a waker's loop of 3 wakes queue instances 1, 2, 3 in
 * turn, one per waiter, so all three run and the run completes (each
 * instance wakes its own waiter: a selector stuck on one instance would
 * leave two asleep until the run ends at 50 ms). */
START_TEST(by_loop_names_the_iteration_s_instance)
{
	struct metrics m;

	run_full("name: p\nseed: 1\nuntil: duration\nduration: 50ms\n" HOST
	    "vms: [{name: g, vcpus: 2, workload: w}]\n"
	    "workloads:\n  w:\n    queues: {q: 4}\n"
	    "    programs:\n"
	    "      waker: [{block: 1ms}, {loop: 3, do: [{compute: 10us},"
	    " {wake: {on: q, by: {loop: 1}}}]}]\n"
	    "      w1: [{wait: {on: q, by: 1}}, {count: got1}]\n"
	    "      w2: [{wait: {on: q, by: 2}}, {count: got2}]\n"
	    "      w3: [{wait: {on: q, by: 3}}, {count: got3}]\n"
	    "    tasks: [{program: waker}, {program: w1}, {program: w2}, {program: w3}]\n", 1, &m);
	ck_assert_double_eq(tu_metric(&m, "g.got1"), 1);
	ck_assert_double_eq(tu_metric(&m, "g.got2"), 1);
	ck_assert_double_eq(tu_metric(&m, "g.got3"), 1);
	metrics_free(&m);
}
END_TEST

START_TEST(wait_wake_and_barrier)
{
	struct metrics m;

	/* a producer wakes a consumer 50 times; a barrier of 3 closes the run */
	run_full("name: q\nseed: 1\nuntil: done\n" HOST
	    "vms: [{name: g, vcpus: 2, workload: w}]\n"
	    "workloads:\n  w:\n    programs:\n"
	    "      prod: [{loop: 50, do: [{compute: 100us}, {wake: q}]}, {barrier: {name: e, count: 3}}]\n"
	    "      cons: [{loop: 25, do: [{wait: q}, {count: got}]}, {barrier: {name: e, count: 3}}]\n"
	    "    tasks: [{program: prod}, {program: cons, count: 2}]\n", 1, &m);
	ck_assert_double_eq(tu_metric(&m, "completed"), 1);
	ck_assert_double_eq(tu_metric(&m, "g.got"), 50);
	metrics_free(&m);
}
END_TEST

/* Lock events whose lock's client has a then hook where its host does not
 * fast-forward, or none where it does (interp.c wl_lock_client_slow). */
static void
then_probe(void *ctx, const struct probe_ev *e)
{
	const struct glock *l = e->lock;
	int *bad = ctx;

	if (l != NULL && !tu_sched_lock(e) &&
	    (l->client->then != NULL) != (l->vm->hv->fast_forward != 0))
		(*bad)++;
}

/* program (the lines under `program:`, lock l) run with the fast-forward
 * on (m[0]) and off (m[1]): the same times, and steps folded with it on */
static void
ff_both(const char *program, struct probe *pr, struct metrics m[2])
{
	static const char *const ff[] = { "true", "false" };
	char text[1024];
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(text, sizeof text, "name: w\nseed: 3\nuntil: duration\nduration: 1ms\n"
		    "fast_forward: %s\n" HOST "vms: [{name: g, vcpus: 2, lock: ticket, workload: w}]\n"
		    "workloads:\n  w:\n    locks: {l: {cs_lines: 1}}\n    program:\n%s",
		    ff[i], program);
		tu_run(text, 3, pr, &m[i]);
	}
	ck_assert_double_eq(tu_metric(&m[0], "g.running_share"),
	    tu_metric(&m[1], "g.running_share"));
	ck_assert_double_eq(tu_metric(&m[0], "g.l.wait_mean_ns"),
	    tu_metric(&m[1], "g.l.wait_mean_ns"));
	ck_assert_double_gt(tu_metric(&m[0], "steps_folded"), 0);
}

/*
 * A lock call's caller goes on to its next compute in the call's own step
 * (interp.c wl_lock_then / wl_next_mid, over the walk compile.c next_plan
 * made): past one counter, two counters, a finite loop's end either way
 * and an inner loop's exit, the counters and the loops come out as the slow
 * path's (fast_forward: false, whose locks have no then: the same bytes
 * either way, only the cost tells), with the same times.
 */
START_TEST(lock_calls_walk_to_the_next_compute)
{
	int bad = 0;
	struct probe pr = { then_probe, &bad };
	struct metrics m[2];
	int i;

	ff_both("      - loop: 3\n        do:\n          - count: outer\n"
	    "          - loop: 4\n            do: [{compute: {dist: exponential, mean: 1us}},"
	    " {acquire: l}, {compute: 100ns}, {release: l}, {count: a}]\n"
	    "          - loop: 2\n            do: [{compute: {dist: exponential, mean: 1us}},"
	    " {acquire: l}, {compute: 100ns}, {release: l}, {count: b}, {count: c}]\n", &pr, m);
	ck_assert_int_eq(bad, 0);
	for (i = 0; i < 2; i++) {
		ck_assert_double_eq(tu_metric(&m[i], "g.outer"), 2 * 3);
		ck_assert_double_eq(tu_metric(&m[i], "g.a"), 2 * 3 * 4);
		ck_assert_double_eq(tu_metric(&m[i], "g.b"), 2 * 3 * 2);
		ck_assert_double_eq(tu_metric(&m[i], "g.c"), 2 * 3 * 2);
		metrics_free(&m[i]);
	}
}
END_TEST

/*
 * ... and at a finite loop's end with a compute on both sides (interp.c
 * next_at: nx[1] while the loop goes round, its body's first compute;
 * nx[0] at its last iteration, the compute after it): the draws, so the
 * counts and the times, come out as the slow path's.
 */
START_TEST(lock_calls_pick_the_loop_ends_next_compute)
{
	struct metrics m[2];

	ff_both("      - loop: forever\n        do:\n"
	    "          - loop: 5\n            do: [{compute: {dist: exponential, mean: 1us}},"
	    " {acquire: l}, {compute: 100ns}, {release: l}]\n"
	    "          - compute: {dist: exponential, mean: 3us}\n          - count: d\n", NULL, m);
	ck_assert_double_gt(tu_metric(&m[0], "g.d"), 10);
	ck_assert_double_eq(tu_metric(&m[0], "g.d"), tu_metric(&m[1], "g.d"));
	metrics_free(&m[0]);
	metrics_free(&m[1]);
}
END_TEST

START_TEST(bad_task_input_is_refused)
{
	struct scenario sc;
	struct vs_err err = { "" };

	ck_assert_int_ne(tu_load(&sc, "name: x\n" HOST "vms: [{name: g, vcpus: 2, workload: w}]\n"
	    "workloads:\n  w: {programs: {p: [{spawn: {program: nope}}]}, tasks: [{program: p}]}\n",
	    &err), 0);
	scen_free(&sc);		/* a failed load keeps what it built */
	ck_assert_ptr_nonnull(strstr(err.msg, "no program named 'nope'"));
	scen_free(&sc);	/* a failed load may hold parts */
	ck_assert_int_ne(tu_load(&sc, "name: x\n" HOST "vms: [{name: g, vcpus: 2, workload: w}]\n"
	    "workloads:\n  w: {programs: {p: [{compute: 1ms}]}, tasks: [{program: p, cpus: [5]}]}\n",
	    &err), 0);
	scen_free(&sc);
	ck_assert_ptr_nonnull(strstr(err.msg, "vCPU 5"));
	scen_free(&sc);	/* a failed load may hold parts */
	ck_assert_int_ne(tu_load(&sc, "name: x\n" HOST "vms: [{name: g, vcpus: 2, workload: w,"
	    " guest: {scheduler: bfs}}]\n"
	    "workloads:\n  w: {programs: {p: [{compute: 1ms}]}, tasks: [{program: p}]}\n",
	    &err), 0);
	scen_free(&sc);
	ck_assert_ptr_nonnull(strstr(err.msg, "unknown guest scheduler 'bfs'"));
	scen_free(&sc);	/* a failed load may hold parts */
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("guest");
	TCase *tc = tcase_create("kernel");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, block_resumes_after_t_plus_wake_latency);
	tcase_add_test(tc, fewer_tasks_than_vcpus_halt_the_rest);
	tcase_add_test(tc, tasks_never_on_two_vcpus_and_holders_stay);
	tcase_add_test(tc, pinned_tasks_allow_their_vcpu_only);
	tcase_add_test(tc, tasks_share_a_vcpu_by_weight);
	tcase_add_test(tc, random_phases_make_replications_differ);
	tcase_add_test(tc, fifo_runs_a_task_until_it_blocks);
	tcase_add_test(tc, eevdf_tick_preempts_after_a_used_slice);
	tcase_add_test(tc, a_wakeup_preempting_a_running_vcpu_is_a_preempt_ipi);
	tcase_add_test(tc, a_pending_reschedule_gets_no_second_ipi);
	tcase_add_test(tc, preempt_none_keeps_a_mutex_holder_running);
	tcase_add_test(tc, preempt_voluntary_switches_at_a_nested_mutex_lock);
	tcase_add_test(tc, by_loop_names_the_iteration_s_instance);
	tcase_add_test(tc, wait_wake_and_barrier);
	tcase_add_test(tc, lock_calls_walk_to_the_next_compute);
	tcase_add_test(tc, lock_calls_pick_the_loop_ends_next_compute);
	tcase_add_test(tc, bad_task_input_is_refused);
	suite_add_tcase(s, tc);
	return tu_main(s);
}
