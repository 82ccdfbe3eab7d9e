/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_slock.c - sleeping locks: mutex spinning on its owner, rwsem
 * sharing, and the books of their waits. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>

#include "guest/slock.h"
#include "hv/vcpu.h"
#include "stats.h"

#define MAXT 64

/* Spinning time of lock NAME in VM g of vcpus vCPUs, from its share. */
static double
spin_ns(const struct metrics *m, const char *lock, int vcpus)
{
	char name[128];

	snprintf(name, sizeof name, "g.%s.spin_share", lock);
	return tu_metric(m, name) / 100 * vcpus * tu_metric(m, "sim_seconds") * 1e9;
}

/* The owner (vCPU 0) holds m for 100 us, blocks 1 ms holding it, 100 us more;
 * the contender (vCPU 1) arrives at 50 us. */
static const char owner_blocks[] =
    "name: o\nseed: 1\nuntil: done\n" TEST_MACHINE
    "hypervisor: {kind: kvm, scheduler: cfs}\n"
    "vms: [{name: g, vcpus: 2, workload: w, guest: {hz: 0}}]\n"
    "workloads:\n  w:\n    programs:\n"
    "      a: [{lock: m}, {compute: 100us}, %s, {compute: 100us}, {unlock: m}]\n"
    "      b: [{compute: 50us}, {lock: m}, {compute: 10us}, {unlock: m}]\n"
    "    tasks: [{program: a, cpus: [0]}, {program: b, cpus: [1]}]\n";

START_TEST(mutex_spinner_stops_when_the_owner_is_descheduled)
{
	char text[2048];
	struct metrics m;

	snprintf(text, sizeof text, owner_blocks, "{block: 1ms}");
	tu_run(text, 1, NULL, &m);
	ck_assert_double_eq(tu_metric(&m, "g.m.spins"), 1);
	ck_assert_double_eq(tu_metric(&m, "g.m.sleeps"), 1);
	/* it spun from 50 us until the owner left at 100 us, then slept */
	ck_assert_double_lt(fabs(spin_ns(&m, "m", 2) - 50e3), 3e3);
	metrics_free(&m);
	/* an owner that keeps running is spun on to its unlock */
	snprintf(text, sizeof text, owner_blocks, "{compute: 1ms}");
	tu_run(text, 1, NULL, &m);
	ck_assert_double_eq(tu_metric(&m, "g.m.spins"), 1);
	ck_assert_double_eq(tu_metric(&m, "g.m.sleeps"), 0);
	ck_assert_double_eq(tu_metric(&m, "g.m.spin_acquired"), 1);
	ck_assert_double_lt(fabs(spin_ns(&m, "m", 2) - 1.15e6), 5e3);
	metrics_free(&m);
}
END_TEST

/* Owners computing inside m while a hog makes the host preempt their vCPUs. */
static const char preempted_owner[] =
    "name: p\nseed: 1\nduration: 300ms\n"
    "machine: {name: t, sockets: 1, cores_per_socket: 2, threads_per_core: 1, clock: 2GHz}\n"
    "hypervisor: {kind: kvm, scheduler: cfs}\n"
    "vms:\n  - {name: g, vcpus: 2, workload: w, guest: {hz: 0, vcpu_is_preempted: %s}}\n"
    "  - {name: hog, vcpus: 2, workload: hog}\n"
    "workloads:\n"
    "  hog: {program: [{loop: forever, do: [{compute: 3ms}]}]}\n"
    "  w:\n    programs:\n"
    "      t: [{loop: forever, do: [{compute: 20us}, {lock: m}, {compute: 200us}, {unlock: m}]}]\n"
    "    tasks: [{program: t, count: 2}]\n";

START_TEST(mutex_spin_stops_on_a_preempted_owner_vcpu)
{
	char text[2048];
	struct metrics m;
	double with, without;

	snprintf(text, sizeof text, preempted_owner, "false");
	tu_run(text, 1, NULL, &m);
	/* owner_on_cpu alone: the owner task is current, so spinners never stop */
	ck_assert_double_eq(tu_metric(&m, "g.m.sleeps"), 0);
	ck_assert_double_gt(tu_metric(&m, "g.m.spins"), 10);
	without = spin_ns(&m, "m", 2);
	metrics_free(&m);
	snprintf(text, sizeof text, preempted_owner, "true");
	tu_run(text, 1, NULL, &m);
	/* with vcpu_is_preempted, a spinner whose owner's vCPU is preempted sleeps */
	ck_assert_double_gt(tu_metric(&m, "g.m.sleeps"), 0);
	with = spin_ns(&m, "m", 2);
	ck_assert_double_lt(with, without);
	metrics_free(&m);
}
END_TEST

/*
 * The owner (task a, vCPU 1) holds m for 20 ms; the spinner (task b, vCPU 0)
 * comes at 50 us; a hog on vCPU 1's pCPU wakes at 1 ms and the host
 * preempts vCPU 1.  With vcpu_is_preempted, the stop tells the lock
 * (kernel.c cpu_stopped), whose spinner looks, sees the owner preempted and
 * sleeps: it spun until that stop, not until the unlock.
 */
static const char owner_vcpu_stopped[] =
    "name: o\nseed: 1\nuntil: done\n"
    "machine: {name: t, sockets: 1, cores_per_socket: 2, threads_per_core: 1, clock: 2GHz}\n"
    "hypervisor: {kind: kvm, scheduler: cfs}\n"
    "vms:\n  - {name: g, vcpus: 2, workload: w, affinity: [0, 1], "
    "guest: {hz: 0, vcpu_is_preempted: true}}\n"
    "  - {name: hog, vcpus: 1, workload: hog, affinity: [0]}\n"
    "workloads:\n"
    "  hog: {program: [{block: 1ms}, {loop: 20, do: [{compute: 3ms}]}]}\n"
    "  w:\n    programs:\n"
    "      a: [{lock: m}, {compute: 20ms}, {unlock: m}]\n"
    "      b: [{compute: 50us}, {lock: m}, {compute: 10us}, {unlock: m}]\n"
    "    tasks: [{program: a, cpus: [1]}, {program: b, cpus: [0]}]\n";

/* when vCPU 1 (the owner's) is first preempted after the spin began */
static void
owner_out(void *ctx, const struct probe_ev *e)
{
	sim_time_t *t = ctx;

	if (e->kind == PR_RUNSTATE && e->vcpu == 1 && e->aux == RS_RUNNABLE && *t < 0 &&
	    e->t > 50000)
		*t = e->t;
}

START_TEST(mutex_spinner_looks_when_the_owner_vcpu_is_stopped)
{
	sim_time_t out = -1;
	struct probe p = { owner_out, &out };
	struct metrics m;

	tu_run(owner_vcpu_stopped, 1, &p, &m);
	ck_assert_int_gt(out, 100000);
	ck_assert_int_lt(out, 19000000);
	ck_assert_double_eq(tu_metric(&m, "g.m.spins"), 1);
	ck_assert_double_eq(tu_metric(&m, "g.m.sleeps"), 1);
	ck_assert_double_eq(tu_metric(&m, "g.m.spin_acquired"), 0);
	/* from about 50 us (after the entries' costs) to the stop and a line's
	 * transfer; without the stop's look, to the unlock at 20 ms */
	ck_assert_double_lt(fabs(spin_ns(&m, "m", 2) - ((double)out - 50e3)), 10e3);
	metrics_free(&m);
}
END_TEST

/* Holders of each sleeping lock, and open waits, as the probe sees them. */
struct books {
	const struct slock *l;
	int readers, writers, max_readers;
	int bad_excl, bad_wait, checked;
};

static void
watch(void *ctx, const struct probe_ev *e)
{
	struct books *b = ctx;
	const struct slock *l = e->lock;
	int read = e->aux & 1, id = e->aux / 2;
	const struct task *t;
	uint64_t open = 0;

	if (e->kind != PR_SLOCK_TAKEN && e->kind != PR_SLOCK_RELEASE)
		return;
	if (strcmp(l->name, "r") != 0)
		return;
	if (e->kind == PR_SLOCK_TAKEN) {
		if (read)
			b->readers++;
		else
			b->writers++;
		if (b->readers > b->max_readers)
			b->max_readers = b->readers;
		if (b->writers > 1 || (b->writers > 0 && b->readers > 0))
			b->bad_excl++;
		/* the taker waits no more; every finished wait is counted, no open one */
		TAILQ_FOREACH(t, &l->waiters, wait_link) {
			open++;
			b->bad_wait += t->id == id;
		}
		TAILQ_FOREACH(t, &l->spinners, wait_link) {
			open++;
			b->bad_wait += t->id == id;
		}
		b->bad_wait += hist_count(l->st.wait) != l->st.contended - open;
		b->checked++;
	} else if (read)
		b->readers--;
	else
		b->writers--;
}

START_TEST(rwsem_readers_share_writers_exclude)
{
	struct metrics m;
	struct books b;
	struct probe p = { watch, &b };
	struct scenario sc;
	struct vs_err err = { "" };
	struct run_opts o = { .wall_clock = 0, .check = 2, .probe = &p };

	memset(&b, 0, sizeof b);
	ck_assert_msg(tu_load(&sc,
	    "name: rw\nseed: 4\nuntil: done\n"
	    "machine: {name: t, sockets: 1, cores_per_socket: 4, threads_per_core: 1, clock: 2GHz}\n"
	    "hypervisor: {kind: kvm, scheduler: cfs}\n"
	    "vms:\n  - {name: g, vcpus: 4, workload: w, guest: {hz: 1000}}\n"
	    "  - {name: hog, vcpus: 2, workload: hog}\n"
	    "workloads:\n"
	    "  hog: {program: [{loop: forever, do: [{compute: 3ms}]}]}\n"
	    "  w:\n    locks: {r: {kind: rwsem}}\n    programs:\n"
	    "      rd: [{loop: 300, do: [{compute: {dist: exponential, mean: 20us}},\n"
	    "           {lock: {name: r, read: true}}, {compute: 40us}, {unlock: {name: r, read: true}}]}]\n"
	    "      wr: [{loop: 100, do: [{compute: {dist: exponential, mean: 100us}}, {lock: r},\n"
	    "           {compute: 20us}, {block: 50us}, {unlock: r}]}]\n"
	    "    tasks: [{program: rd, count: 5}, {program: wr, count: 2}]\n", &err) == 0,
	    "%s", err.msg);
	metrics_init(&m);
	ck_assert_msg(run_once(&sc, 4, &o, &m, &err) == 0, "%s", err.msg);
	ck_assert_double_eq(tu_metric(&m, "completed"), 1);
	ck_assert_double_eq(tu_metric(&m, "g.r.acquisitions"), 5 * 300 + 2 * 100);
	ck_assert_int_eq(b.checked, 5 * 300 + 2 * 100);
	ck_assert_int_eq(b.bad_excl, 0);
	ck_assert_int_eq(b.bad_wait, 0);
	ck_assert_int_gt(b.max_readers, 1);
	ck_assert_double_gt(tu_metric(&m, "g.r.sleeps"), 0);	/* readers behind writers */
	ck_assert_int_eq(b.readers, 0);
	ck_assert_int_eq(b.writers, 0);
	metrics_free(&m);
	scen_free(&sc);
}
END_TEST

START_TEST(bad_sleeping_lock_input_is_refused)
{
	struct scenario sc;
	struct vs_err err = { "" };

	ck_assert_int_ne(tu_load(&sc, "name: x\nseed: 1\nduration: 1ms\n" TEST_MACHINE
	    "hypervisor: {kind: kvm, scheduler: cfs}\n"
	    "vms: [{name: g, vcpus: 2, workload: w}]\n"
	    "workloads:\n  w:\n    programs: {p: [{lock: {name: m, read: true}}, {unlock: m}]}\n"
	    "    tasks: [{program: p}]\n", &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "kind: rwsem"));
	scen_free(&sc);	/* a failed load may hold parts */
	ck_assert_int_ne(tu_load(&sc, "name: x\nseed: 1\nduration: 1ms\n" TEST_MACHINE
	    "hypervisor: {kind: kvm, scheduler: cfs}\n"
	    "vms: [{name: g, vcpus: 2, workload: w}]\n"
	    "workloads:\n  w:\n    locks: {m: {kind: futex}}\n"
	    "    programs: {p: [{lock: m}, {unlock: m}]}\n    tasks: [{program: p}]\n", &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "unknown sleeping lock kind 'futex'"));
	scen_free(&sc);	/* a failed load may hold parts */
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("slock");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, mutex_spinner_stops_when_the_owner_is_descheduled);
	tcase_add_test(tc, mutex_spin_stops_on_a_preempted_owner_vcpu);
	tcase_add_test(tc, mutex_spinner_looks_when_the_owner_vcpu_is_stopped);
	tcase_add_test(tc, rwsem_readers_share_writers_exclude);
	tcase_add_test(tc, bad_sleeping_lock_input_is_refused);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(suite());
}
