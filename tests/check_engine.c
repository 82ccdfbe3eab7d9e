/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_engine.c - the engine, runstates, SMT rates, determinism, streams. */
#include "testutil.h"

#include <math.h>
#include <signal.h>

#include "engine.h"
#include "ffsnap.h"
#include "hv/vcpu.h"
#include "hw/machine.h"
#include "yconf.h"

static int order[16], norder;

static void
record(void *s, void *arg, int64_t data)
{
	order[norder++] = (int)data;
}

START_TEST(engine_runs_in_time_order_and_stops_at_end)
{
	struct sim s;
	evq_id id;

	norder = 0;
	sim_init(&s, 1, 100);
	sim_at(&s, 50, record, NULL, 2);
	sim_at(&s, 10, record, NULL, 1);
	id = sim_at(&s, 20, record, NULL, 9);
	sim_at(&s, 50, record, NULL, 3);	/* same time: after the first 50 */
	sim_at(&s, 150, record, NULL, 4);	/* past the end */
	sim_cancel(&s, &id);
	ck_assert_uint_eq(id, EVQ_NONE);
	sim_run(&s);
	ck_assert_int_eq(norder, 3);
	ck_assert_int_eq(order[0], 1);
	ck_assert_int_eq(order[1], 2);
	ck_assert_int_eq(order[2], 3);
	ck_assert_int_eq(s.now, 100);
	ck_assert_uint_eq(s.events, 3);
	sim_destroy(&s);
}
END_TEST

/* fold_end (engine.h), the bound of guest.c's folds: the end or the cap,
 * the earlier, taken anew by sim_run (a rig's end moves between runs), and
 * -1 once stopped (sim_stop, sim_fail), so no step is taken past either. */
START_TEST(fold_end_follows_the_end_and_a_stop)
{
	struct sim s;

	sim_init(&s, 1, 100);
	ck_assert_int_eq(s.fold_end, 100);
	s.end = 40;
	sim_run(&s);
	ck_assert_int_eq(s.fold_end, 40);
	sim_stop(&s);
	ck_assert_int_eq(s.fold_end, -1);
	sim_destroy(&s);
	sim_init(&s, 1, SIM_NEVER);
	ck_assert(s.fold_end == SIM_TIME_CAP);
	sim_fail(&s, SIM_FAIL_CAP, NULL);
	ck_assert_int_eq(s.fold_end, -1);
	sim_destroy(&s);
}
END_TEST

/* sim_advance_known's bound is fold_end: a step past the end, or any step
 * once stopped, is a broken invariant and aborts, as sim_advance's does
 * (_i: 0 and 1 past the end, 2 before it after a stop). */
START_TEST(advance_known_aborts_past_the_end_or_a_stop)
{
	struct sim s;

	sim_init(&s, 1, 100);
	if (_i == 2)
		sim_stop(&s);
	sim_advance_known(&s, _i == 0 ? 101 : _i == 1 ? SIM_NEVER : 50);
	sim_destroy(&s);
}
END_TEST

/* ... and up to the end it moves the clock. */
START_TEST(advance_known_moves_up_to_the_end)
{
	struct sim s;

	sim_init(&s, 1, 100);
	sim_advance_known(&s, 40);
	ck_assert_int_eq(s.now, 40);
	sim_advance_known(&s, 100);
	ck_assert_int_eq(s.now, 100);
	sim_destroy(&s);
}
END_TEST

static sim_time_t nt[8];
static int nnt;

/* Notes sim_next_time; data 1 also defers data 2, data 0 defers 1 and 3. */
static void
note_next(void *sp, void *arg, int64_t data)
{
	struct sim *s = sp;

	(void)arg;
	if (data == 0) {
		sim_defer(s, note_next, NULL, 1);
		sim_defer(s, note_next, NULL, 3);
	}
	nt[nnt++] = sim_next_time(s);
	if (data == 1)
		sim_defer(s, note_next, NULL, 2);
}

/* sim_next_time is now while an event is held (engine.h next), in the
 * event that held it and in a held one that runs before another, and the
 * queue's next once none is held, in the last held one too. */
START_TEST(next_time_is_now_while_an_event_is_held)
{
	struct sim s;

	nnt = 0;
	sim_init(&s, 1, 100);
	sim_at(&s, 10, note_next, NULL, 0);
	sim_at(&s, 20, record, NULL, 0);
	ck_assert_int_eq(sim_next_time(&s), 10);
	sim_run(&s);
	ck_assert_int_eq(nnt, 4);	/* 0, 1 (3 held), 3 (2 held), 2 */
	ck_assert_int_eq(nt[0], 10);
	ck_assert_int_eq(nt[1], 10);
	ck_assert_int_eq(nt[2], 10);
	ck_assert_int_eq(nt[3], 20);
	ck_assert_int_eq(sim_next_time(&s), SIM_NEVER);
	sim_destroy(&s);
}
END_TEST

/* A's work: defer 5, then push 6 for now (data 1: not) and 8 for later. */
static void
raise_some(void *sp, void *arg, int64_t data)
{
	struct sim *s = sp;

	(void)arg;
	sim_defer(s, record, NULL, 5);
	if (data != 1)
		sim_at(s, s->now, record, NULL, 6);
	sim_at(s, 20, record, NULL, 8);
}

/* sim_defer (43038c9): a held event runs where sim_at(now) would have put it
 * - after what was queued for now before it, before what was queued after -
 * and counts as an event, run at once or pushed. */
START_TEST(a_deferred_event_keeps_the_place_sim_at_gives)
{
	struct sim s;

	/* something else due at now, queued before: it runs first */
	norder = 0;
	sim_init(&s, 1, 100);
	sim_at(&s, 10, raise_some, NULL, 0);
	sim_at(&s, 10, record, NULL, 1);
	sim_run(&s);
	ck_assert_int_eq(norder, 4);
	ck_assert_int_eq(order[0], 1);
	ck_assert_int_eq(order[1], 5);
	ck_assert_int_eq(order[2], 6);
	ck_assert_int_eq(order[3], 8);
	ck_assert_uint_eq(s.events, 5);
	sim_destroy(&s);

	/* nothing else due at now: it runs at once, before 8 */
	norder = 0;
	sim_init(&s, 1, 100);
	sim_at(&s, 10, raise_some, NULL, 1);
	sim_run(&s);
	ck_assert_int_eq(norder, 2);
	ck_assert_int_eq(order[0], 5);
	ck_assert_int_eq(order[1], 8);
	ck_assert_int_eq(s.now, 100);
	ck_assert_uint_eq(s.events, 3);
	sim_destroy(&s);
}
END_TEST

/* Record, then stop the run (data 3: from a deferred event it holds). */
static void
record_stop(void *sp, void *arg, int64_t data)
{
	struct sim *s = sp;

	record(sp, arg, data);
	if (data == 3)
		sim_defer(s, record_stop, NULL, 4);
	else
		sim_stop(s);
}

/* Record, then hold a deferred event (data + 1). */
static void
record_defer(void *sp, void *arg, int64_t data)
{
	record(sp, arg, data);
	sim_defer(sp, record, NULL, data + 1);
}

/* sim_run's loop (engine.c): a stop ends the run after its event, from an
 * event or a deferred one, through the pop's bound (fold_end), with the
 * rest left pending; an event held by a handler runs at that event's end
 * (attn), also one of many in a row.  (Fails with the pop bound by the end
 * alone, or defer_hold's attn left alone: the run goes on past the stop,
 * or the held event waits.) */
START_TEST(an_event_end_sees_a_stop_and_a_held_event)
{
	struct sim s;

	norder = 0;
	sim_init(&s, 1, 100);
	sim_at(&s, 10, record_stop, NULL, 1);
	sim_at(&s, 10, record, NULL, 2);
	sim_at(&s, 20, record, NULL, 9);
	sim_run(&s);
	ck_assert_int_eq(norder, 1);
	ck_assert_int_eq(order[0], 1);
	ck_assert_uint_eq(s.events, 1);
	ck_assert_uint_eq(evq_size(s.q), 2);
	sim_destroy(&s);

	norder = 0;
	sim_init(&s, 1, 100);
	sim_at(&s, 10, record_stop, NULL, 3);
	sim_at(&s, 11, record, NULL, 9);
	sim_run(&s);
	ck_assert_int_eq(norder, 2);
	ck_assert_int_eq(order[1], 4);
	ck_assert_int_eq(s.now, 10);
	ck_assert_uint_eq(s.events, 2);
	ck_assert_uint_eq(evq_size(s.q), 1);
	sim_destroy(&s);

	norder = 0;
	sim_init(&s, 1, 100);
	sim_at(&s, 10, record_defer, NULL, 1);
	sim_at(&s, 11, record, NULL, 9);
	sim_at(&s, 12, record_defer, NULL, 5);
	sim_run(&s);
	ck_assert_int_eq(norder, 5);
	ck_assert_int_eq(order[0], 1);
	ck_assert_int_eq(order[1], 2);
	ck_assert_int_eq(order[2], 9);
	ck_assert_int_eq(order[3], 5);
	ck_assert_int_eq(order[4], 6);
	ck_assert_uint_eq(s.events, 5);
	sim_destroy(&s);
}
END_TEST

/* E of the test below: 7 more deferred (10..16), while 2 is held unpushed. */
static void
raise_seven(void *sp, void *arg, int64_t data)
{
	struct sim *s = sp;
	int i;

	(void)arg;
	order[norder++] = (int)data;
	ck_assert_uint_eq(evq_size(s->q), 0);	/* held, not queued */
	for (i = 10; i < 17; i++)
		sim_defer(s, record, NULL, i);
}

/* A: defer 1, queue E for now, defer 2. */
static void
raise_around(void *sp, void *arg, int64_t data)
{
	struct sim *s = sp;

	(void)arg;
	(void)data;
	sim_defer(s, record, NULL, 1);
	sim_at(s, s->now, raise_seven, NULL, 3);
	sim_defer(s, record, NULL, 2);
}

/* A deferred event behind one queued before it waits, unpushed, for that
 * event's end; those deferred meanwhile follow it, more than SIM_DEFER_MAX
 * held at once as the run ones leave the array. */
START_TEST(a_deferred_event_waits_unpushed_behind_an_earlier_one)
{
	struct sim s;
	static const int want[] = { 1, 3, 2, 10, 11, 12, 13, 14, 15, 16 };
	int i;

	norder = 0;
	sim_init(&s, 1, 100);
	sim_at(&s, 10, raise_around, NULL, 0);
	sim_run(&s);
	ck_assert_int_eq(norder, 10);
	for (i = 0; i < 10; i++)
		ck_assert_int_eq(order[i], want[i]);
	ck_assert_uint_eq(s.events, 11);
	ck_assert_int_eq(s.now, 100);
	sim_destroy(&s);
}
END_TEST

/* Defers SIM_DEFER_MAX + 2 at once, then queues one for now. */
static void
defer_past_full(void *sp, void *arg, int64_t data)
{
	struct sim *s = sp;
	int i;

	(void)arg;
	(void)data;
	for (i = 0; i < SIM_DEFER_MAX + 2; i++)
		sim_defer(s, record, NULL, i);
	sim_at(s, s->now, record, NULL, 15);
}

/* sim_defer with all SIM_DEFER_MAX held and none run (defer_full): the rest
 * are pushed for now, after those held and before what is queued after. */
START_TEST(a_deferred_event_past_the_full_array_is_pushed_in_order)
{
	struct sim s;
	int i;

	norder = 0;
	sim_init(&s, 1, 100);
	sim_at(&s, 10, defer_past_full, NULL, 0);
	sim_run(&s);
	ck_assert_int_eq(norder, SIM_DEFER_MAX + 3);
	for (i = 0; i < SIM_DEFER_MAX + 2; i++)
		ck_assert_int_eq(order[i], i);
	ck_assert_int_eq(order[SIM_DEFER_MAX + 2], 15);
	ck_assert_uint_eq(s.events, SIM_DEFER_MAX + 4);
	sim_destroy(&s);
}
END_TEST

/* A's work: defer 5 (its first stage, queued before, not yet passed). */
static void
defer_one(void *sp, void *arg, int64_t data)
{
	struct sim *s = sp;

	(void)arg;
	(void)data;
	sim_defer(s, record, NULL, 5);
}

/* A two-stage event whose first stage comes before a deferred one (at now,
 * an earlier key): run_deferred passes it (evq_first_before), so its
 * second stage, filed then under a later key, runs after the deferred one,
 * as the event the first stage stands for would have pushed it. */
START_TEST(a_deferred_event_runs_before_a_second_stage_filed_after_it)
{
	struct sim s;

	norder = 0;
	sim_init(&s, 1, 100);
	sim_at(&s, 10, defer_one, NULL, 0);
	sim_at_then(&s, 10, 10, record, NULL, 7);
	sim_at(&s, 20, record, NULL, 8);
	sim_run(&s);
	ck_assert_int_eq(norder, 3);
	ck_assert_int_eq(order[0], 5);
	ck_assert_int_eq(order[1], 7);
	ck_assert_int_eq(order[2], 8);
	ck_assert_uint_eq(s.events, 4);	/* the first stage is no event */
	sim_destroy(&s);
}
END_TEST

/* An event that comes back after data ns, for ever. */
static void
again(void *sp, void *arg, int64_t data)
{
	struct sim *s = sp;

	(void)arg;
	sim_after(s, data, again, NULL, data);
}

/* Issue 29: the limits stop a run as a failure, never an abort. */
START_TEST(limits_stop_a_run_and_say_which)
{
	struct sim s;

	/* the watchdog: time stands still (its bound lowered for the test) */
	sim_init(&s, 1, SIM_NEVER);
	s.stall_events = 1000;
	sim_at(&s, 7, again, NULL, 0);
	sim_run(&s);
	ck_assert_int_eq(s.fail, SIM_FAIL_STALL);
	ck_assert_int_eq(s.now, 7);
	ck_assert_uint_eq(s.events, 1000);
	sim_destroy(&s);
	/* the cap: an event past it is never run, the clock stays under it */
	sim_init(&s, 1, SIM_NEVER);
	sim_at(&s, 0, again, NULL, SIM_TIME_CAP / 3);
	sim_run(&s);
	ck_assert_int_eq(s.fail, SIM_FAIL_CAP);
	ck_assert_int_le(s.now, SIM_TIME_CAP);
	ck_assert_uint_eq(s.events, 4);	/* at 0, cap/3, 2cap/3, cap - 1 */
	sim_destroy(&s);
	/* a draw past the cap saturates one past it: no wrap of now + dt */
	ck_assert_int_eq(sim_ns(1e300), SIM_TIME_CAP + 1);
	ck_assert_int_eq(sim_ns(INFINITY), SIM_TIME_CAP + 1);
	/* sim_ns_nonneg: sim_ns's rounding for ns >= 0, 0 and -0 included */
	{
		static const double ns[] = { 0.0, -0.0, 1e-9, 0.5, 1.0, 1.5, 999.999, 1e6,
		    (double)SIM_TIME_CAP, 1e300, INFINITY };
		size_t i;

		for (i = 0; i < sizeof ns / sizeof ns[0]; i++)
			ck_assert_int_eq(sim_ns_nonneg(ns[i]), sim_ns(ns[i]));
		ck_assert_int_eq(sim_ns_nonneg(0.0), 0);
		ck_assert_int_eq(sim_ns_nonneg(1.5), 2);
	}
	/* --max-events: exactly n events run, the n+1-th is refused */
	sim_init(&s, 1, SIM_NEVER);
	s.max_events = 10;
	sim_at(&s, 0, again, NULL, 5);
	sim_run(&s);
	ck_assert_int_eq(s.fail, SIM_FAIL_EVENTS);
	ck_assert_uint_eq(s.events, 10);
	ck_assert_int_eq(s.now, 45);
	sim_destroy(&s);
	/* ... but a run that ends within n events is no failure */
	sim_init(&s, 1, 95);
	s.max_events = 10;
	sim_at(&s, 0, again, NULL, 10);
	sim_run(&s);
	ck_assert_int_eq(s.fail, SIM_FAIL_NONE);
	ck_assert_uint_eq(s.events, 10);
	ck_assert_int_eq(s.now, 95);
	sim_destroy(&s);
	/* a deadline already past stops at the first look (2^20 events) */
	sim_init(&s, 1, SIM_NEVER);
	s.deadline = 1e-9;
	sim_at(&s, 0, again, NULL, 1);
	sim_run(&s);
	ck_assert_int_eq(s.fail, SIM_FAIL_TIMEOUT);
	ck_assert_uint_eq(s.events, (uint64_t)1 << 20);
	sim_destroy(&s);
}
END_TEST

/* sim_ns's reference: ceil, 0 at most, one past the cap past it */
static sim_time_t
ns_ref(double ns)
{
	if (ns <= 0)
		return 0;
	if (ns > (double)SIM_TIME_CAP)
		return SIM_TIME_CAP + 1;
	return (sim_time_t)ceil(ns);
}

START_TEST(ns_rounds_up_at_the_edges)
{
	/* 0 and -0, subnormals, x.5 and an ulp either side of an integer,
	 * the end of the fractions (2^52, 2^53), the cap and an ulp either
	 * side, huge; each also negated for sim_ns */
	const double cap = (double)SIM_TIME_CAP;
	const double ns[] = { 0.0, -0.0, 4.9e-324, 2.2250738585072014e-308, 1e-9,
	    0.5, 1.0, 1.5, 2.5, nextafter(3.0, 0), nextafter(3.0, 4), 999.999, 1e6,
	    4503599627370495.5, 4503599627370496.0, 4503599627370497.0,
	    9007199254740992.0, 9007199254740994.0, nextafter(cap, 0), cap,
	    nextafter(cap, INFINITY), 1e300, INFINITY };
	size_t i;

	for (i = 0; i < sizeof ns / sizeof ns[0]; i++) {
		ck_assert_int_eq(sim_ns(ns[i]), ns_ref(ns[i]));
		ck_assert_int_eq(sim_ns(-ns[i]), ns_ref(-ns[i]));
		if (!signbit(ns[i]))
			ck_assert_int_eq(sim_ns_nonneg(ns[i]), ns_ref(ns[i]));
	}
	ck_assert_int_eq(sim_ns(1.5), 2);
	ck_assert_int_eq(sim_ns(4.9e-324), 1);
	ck_assert_int_eq(sim_ns(9007199254740992.0), 9007199254740992);
	ck_assert_int_eq(sim_ns_nonneg(-0.0), 0);
	ck_assert_int_eq(sim_ns_nonneg(cap), SIM_TIME_CAP);
	ck_assert_int_eq(sim_ns_nonneg(nextafter(cap, INFINITY)), SIM_TIME_CAP + 1);
}
END_TEST

START_TEST(runstate_accounting_is_exact)
{
	struct vcpu v;

	memset(&v, 0, sizeof v);
	v.rs = RS_OFFLINE;
	vcpu_set_runstate(&v, RS_RUNNABLE, 10);
	vcpu_set_runstate(&v, RS_RUNNING, 25);
	vcpu_set_runstate(&v, RS_BLOCKED, 100);
	vcpu_set_runstate(&v, RS_RUNNING, 130);
	vcpu_account(&v, 200);
	ck_assert_int_eq(v.rs_time[RS_OFFLINE], 10);
	ck_assert_int_eq(v.rs_time[RS_RUNNABLE], 15);
	ck_assert_int_eq(v.rs_time[RS_RUNNING], 75 + 70);
	ck_assert_int_eq(v.rs_time[RS_BLOCKED], 30);
}
END_TEST

/* Four vCPUs, two of them idle: shares add up and idle ones are blocked. */
START_TEST(runstates_add_up_in_a_run)
{
	static const char *text =
	    TEST_MACHINE
	    "duration: 3ms\n"
	    "vms:\n"
	    "  - {name: g, vcpus: 4, threads: 2, lock: ticket, workload: w}\n"
	    "workloads:\n"
	    "  w:\n"
	    "    program:\n"
	    "      - loop: forever\n"
	    "        do:\n"
	    "          - compute: {dist: exponential, mean: 2us}\n"
	    "          - acquire: l\n"
	    "          - compute: 1us\n"
	    "          - release: l\n";
	struct metrics m;
	double sum;

	tu_run(text, 3, NULL, &m);	/* run_once self-checks every vCPU's sum too */
	sum = tu_metric(&m, "g.running_share") + tu_metric(&m, "g.runnable_share") +
	    tu_metric(&m, "g.blocked_share") + tu_metric(&m, "g.offline_share");
	ck_assert_double_eq_tol(sum, 100, 1e-9);
	ck_assert_double_eq_tol(tu_metric(&m, "g.blocked_share"), 50, 0.01);
	ck_assert_double_eq_tol(tu_metric(&m, "sim_seconds"), 3e-3, 1e-12);
	metrics_free(&m);
}
END_TEST

/* vcpus vCPUs computing 1 ms each on one socket of cores x threads_per_core. */
static double
threads_1ms(int cores, int threads_per_core, int vcpus)
{
	char text[1024];
	struct metrics m;
	double t;

	snprintf(text, sizeof text,
	    "machine: {sockets: 1, cores_per_socket: %d, threads_per_core: %d, clock: 2GHz,\n"
	    "  costs: {ctx_switch: 0ns}}\n"
	    "until: done\n"
	    "vms:\n"
	    "  - {name: g, vcpus: %d, workload: w}\n"
	    "workloads:\n"
	    "  w: {program: [{compute: 1ms}]}\n",
	    cores, threads_per_core, vcpus);
	tu_run(text, 1, NULL, &m);
	t = tu_metric(&m, "completion_seconds");
	metrics_free(&m);
	return t;
}

static double
two_threads_1ms(int threads_per_core)
{
	return threads_1ms(threads_per_core == 2 ? 1 : 2, threads_per_core, 2);
}

/* The precomputed tables give machine.h's numbering for every pair of pCPUs. */
START_TEST(machine_dist_follows_the_numbering)
{
	struct vs_err err = { "" };
	struct yc_doc *d = yc_load_string("machine",
	    "{sockets: 3, cores_per_socket: 2, threads_per_core: 2}", &err);
	struct machine m;
	int a, b;

	ck_assert_msg(d != NULL, "%s", err.msg);
	ck_assert_msg(machine_from_yaml(&m, yc_root(d), &err) == 0, "%s", err.msg);
	ck_assert_int_eq(m.npcpus, 12);
	for (a = 0; a < 12; a++) {
		ck_assert_int_eq(machine_core_of(&m, a), a / 2);
		ck_assert_int_eq(machine_socket_of(&m, a), a / 4);
		for (b = 0; b < 12; b++) {
			enum hw_dist want = a == b ? HW_SAME : a / 2 == b / 2 ? HW_SIBLING :
			    a / 4 == b / 4 ? HW_SOCKET : HW_REMOTE;

			ck_assert_int_eq(machine_dist(&m, a, b), want);
		}
		ck_assert_int_eq(machine_dist(&m, a, -1), HW_SAME);	/* no previous pCPU */
	}
	machine_free(&m);
	yc_free(d);
}
END_TEST

START_TEST(smt_sibling_slows_work)
{
	/* Default smt_busy_slowdown 1.3: siblings both computing take 1.3x. */
	ck_assert_double_eq_tol(two_threads_1ms(1), 1e-3, 1e-8);
	ck_assert_double_eq_tol(two_threads_1ms(2), 1.3e-3, 1e-8);
}
END_TEST

/* A core of more than two threads (hv_set_pcpu_load's loops): each thread is
 * slowed by its busiest sibling, and one thread alone runs at full speed. */
START_TEST(smt_wide_core_slows_work)
{
	ck_assert_double_eq_tol(threads_1ms(1, 4, 4), 1.3e-3, 1e-8);
	ck_assert_double_eq_tol(threads_1ms(1, 4, 3), 1.3e-3, 1e-8);
	ck_assert_double_eq_tol(threads_1ms(1, 4, 1), 1e-3, 1e-8);
}
END_TEST

START_TEST(a_spin_is_one_event)
{
	/* One waiter spins for 10 ms: the event count must not grow with it. */
	static const char *text =
	    TEST_MACHINE
	    "until: done\n"
	    "vms:\n"
	    "  - {name: g, vcpus: 2, lock: ticket, workload: w}\n"
	    "workloads:\n"
	    "  w: {program: [{acquire: l}, {compute: 10ms}, {release: l}]}\n";
	struct metrics m;

	tu_run(text, 1, NULL, &m);
	ck_assert_double_lt(tu_metric(&m, "events"), 40);
	metrics_free(&m);
}
END_TEST

static const char *random_two_vms =
    TEST_MACHINE
    "duration: 2ms\n"
    "vms:\n"
    "  - {name: a, vcpus: 2, affinity: \"0-1\", lock: ticket, workload: w}\n"
    "%s"
    "workloads:\n"
    "  w:\n"
    "    program:\n"
    "      - loop: forever\n"
    "        do:\n"
    "          - compute: {dist: exponential, mean: 500ns}\n"
    "          - acquire: l\n"
    "          - compute: {dist: exponential, mean: 100ns}\n"
    "          - release: l\n"
    "          - count: ops\n";

static double
ops_of_a(uint64_t seed, int with_b)
{
	char text[2048];
	struct metrics m;
	double v;

	snprintf(text, sizeof text, random_two_vms,
	    with_b ? "  - {name: b, vcpus: 2, affinity: \"4-5\", workload: w}\n" : "");
	tu_run(text, seed, NULL, &m);
	v = tu_metric(&m, "a.ops");
	metrics_free(&m);
	return v;
}

/* ffsnap.h: two snapshots of the same state a cycle apart match, unless
 * either was refused (lock_tas.c tas_ffs: a TTAS burst under way) */
START_TEST(a_refused_snapshot_matches_none)
{
	int64_t x = 7;
	int r;

	for (r = 0; r < 3; r++) {
		struct ffs a = { 0 }, b = { 0 };

		ffs_begin(&a, 1000);
		ffs_bytes(&a, &x, sizeof x);
		if (r == 1)
			ffs_refuse(&a);
		ffs_end(&a);
		ffs_begin(&b, 2000);
		ffs_bytes(&b, &x, sizeof x);
		if (r == 2)
			ffs_refuse(&b);
		ffs_end(&b);
		ck_assert_int_eq(ffs_same(&a, &b), r == 0);
		ffs_free(&a);
		ffs_free(&b);
	}
}
END_TEST

START_TEST(same_seed_same_numbers_other_seed_other_numbers)
{
	ck_assert_double_eq(ops_of_a(11, 0), ops_of_a(11, 0));
	ck_assert_double_ne(ops_of_a(11, 0), ops_of_a(12, 0));
}
END_TEST

START_TEST(adding_a_vm_does_not_shift_another_vms_numbers)
{
	/* VM b sits on another socket and shares nothing with a. */
	ck_assert_double_eq(ops_of_a(5, 0), ops_of_a(5, 1));
}
END_TEST

static Suite *
engine_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, engine_runs_in_time_order_and_stops_at_end);
	tcase_add_test(tc, fold_end_follows_the_end_and_a_stop);
	tcase_add_loop_test_raise_signal(tc, advance_known_aborts_past_the_end_or_a_stop,
	    SIGABRT, 0, 3);
	tcase_add_test(tc, advance_known_moves_up_to_the_end);
	tcase_add_test(tc, next_time_is_now_while_an_event_is_held);
	tcase_add_test(tc, a_refused_snapshot_matches_none);
	tcase_add_test(tc, a_deferred_event_keeps_the_place_sim_at_gives);
	tcase_add_test(tc, a_deferred_event_waits_unpushed_behind_an_earlier_one);
	tcase_add_test(tc, a_deferred_event_past_the_full_array_is_pushed_in_order);
	tcase_add_test(tc, a_deferred_event_runs_before_a_second_stage_filed_after_it);
	tcase_add_test(tc, limits_stop_a_run_and_say_which);
	tcase_add_test(tc, ns_rounds_up_at_the_edges);
	tcase_add_test(tc, runstate_accounting_is_exact);
	tcase_add_test(tc, runstates_add_up_in_a_run);
	tcase_add_test(tc, machine_dist_follows_the_numbering);
	tcase_add_test(tc, smt_sibling_slows_work);
	tcase_add_test(tc, smt_wide_core_slows_work);
	tcase_add_test(tc, an_event_end_sees_a_stop_and_a_held_event);
	tcase_add_test(tc, a_spin_is_one_event);
	tcase_add_test(tc, same_seed_same_numbers_other_seed_other_numbers);
	tcase_add_test(tc, adding_a_vm_does_not_shift_another_vms_numbers);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(engine_suite());
}
