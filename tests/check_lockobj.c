/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_lockobj.c - a lock class of instances (a lock per object: `locks:
 * {NAME: {instances: N}}`, `acquire: {name: NAME, by: ...}`): each acquire
 * takes the instance its `by` names, instances never serialise each other,
 * the class's metrics add up its instances, a class of one is the plain
 * lock byte for byte, and an instance that does not exist is refused at load.
 */
#include "testutil.h"

#include "guest/lock.h"

#define NV 4
#define NI 8

/* 4 pinned vCPUs of one VM; every vCPU loops acquire, section, release. */
static const char fmt[] =
    "name: o\nseed: 1\nuntil: done\n" TEST_MACHINE
    "hypervisor: {kind: kvm, scheduler: pinned}\n"
    "vms: [{name: g, vcpus: 4, lock: ticket, workload: w}]\n"
    "workloads:\n  w:\n    locks: {k: {instances: %d, cs_lines: 1}}\n"
    "    program:\n      - loop: 2000\n        do:\n"
    "          - compute: {dist: exponential, mean: 300ns}\n"
    "          - acquire: %s\n          - compute: 200ns\n          - release: k\n";

/* The task form: tasks of two address spaces, each pinned to one vCPU. */
static const char tasks_fmt[] =
    "name: o\nseed: 1\nuntil: done\n" TEST_MACHINE
    "hypervisor: {kind: kvm, scheduler: pinned}\n"
    "vms: [{name: g, vcpus: 4, lock: ticket, workload: w}]\n"
    "workloads:\n  w:\n    locks: {k: {instances: %d}}\n"
    "    programs:\n      t:\n        - loop: 500\n          do:\n"
    "            - compute: {dist: exponential, mean: 300ns}\n"
    "            - acquire: {name: k, by: %s}\n            - compute: 200ns\n"
    "            - release: k\n"
    "    tasks: [{program: t, mm: a, cpus: [0]}, {program: t, mm: a, cpus: [1]},\n"
    "            {program: t, mm: b, cpus: [2]}, {program: t, mm: b, cpus: [3]}]\n";

/* Which vCPU took which instance: taken[instance][vcpu]. */
struct took {
	long taken[NI][NV];
	long n;
};

static void
on_ev(void *ctx, const struct probe_ev *e)
{
	struct took *t = ctx;
	const struct glock *l = e->lock;
	int i = 0;

	if (e->kind != PR_LOCK_TAKEN || tu_sched_lock(e))
		return;
	ck_assert(e->vcpu >= 0 && e->vcpu < NV);
	if (strchr(l->name, '[') != NULL)
		ck_assert_int_eq(sscanf(strchr(l->name, '['), "[%d]", &i), 1);
	ck_assert(i >= 0 && i < NI);
	t->taken[i][e->vcpu]++;
	t->n++;
}

static void
run_took(const char *text, struct took *t, struct metrics *m)
{
	struct probe p = { on_ev, t };

	memset(t, 0, sizeof *t);
	tu_run(text, 1, &p, m);
}

/* vCPUs that took instance i. */
static int
takers(const struct took *t, int i)
{
	int v, n = 0;

	for (v = 0; v < NV; v++)
		n += t->taken[i][v] > 0;
	return n;
}

/* by: vcpu - instance v is vCPU v's own (this_rq()): never contended, where
 * the one lock they share is. */
START_TEST(per_vcpu_instances_are_never_shared)
{
	char text[2048];
	struct metrics m;
	struct took t;
	int i, v;

	snprintf(text, sizeof text, fmt, NV, "{name: k, by: vcpu}");
	run_took(text, &t, &m);
	for (i = 0; i < NV; i++)
		for (v = 0; v < NV; v++)
			ck_assert_int_eq(t.taken[i][v], i == v ? 2000 : 0);
	ck_assert_double_eq(tu_metric(&m, "g.k.acquisitions"), (double)t.n);
	ck_assert_double_eq(tu_metric(&m, "g.k.acquisitions"), NV * 2000);
	ck_assert_double_eq(tu_metric(&m, "g.k.contended_share"), 0);
	ck_assert_double_eq(tu_metric(&m, "g.k.wait_mean_ns"), 0);
	metrics_free(&m);
	snprintf(text, sizeof text, fmt, 1, "k");
	run_took(text, &t, &m);
	ck_assert_int_eq(takers(&t, 0), NV);
	ck_assert_double_gt(tu_metric(&m, "g.k.contended_share"), 10);
	metrics_free(&m);
}
END_TEST

/* by: mm - one instance per address space; by: task - the task's index
 * modulo the instances; by: INDEX - that one, whoever takes it. */
START_TEST(by_mm_task_and_index)
{
	char text[2048];
	struct metrics m;
	struct took t;
	int v;

	snprintf(text, sizeof text, tasks_fmt, 2, "mm");
	run_took(text, &t, &m);
	ck_assert_int_eq(takers(&t, 0), 2);
	ck_assert_int_eq(takers(&t, 1), 2);
	ck_assert(t.taken[0][0] > 0 && t.taken[0][1] > 0);	/* mm a: vCPUs 0, 1 */
	ck_assert(t.taken[1][2] > 0 && t.taken[1][3] > 0);	/* mm b: vCPUs 2, 3 */
	ck_assert_double_eq(tu_metric(&m, "g.k.acquisitions"), 4 * 500);
	metrics_free(&m);
	/* 4 tasks made one after another: consecutive indices, one instance each */
	snprintf(text, sizeof text, tasks_fmt, 4, "task");
	run_took(text, &t, &m);
	for (v = 0; v < NV; v++)
		ck_assert_int_eq(takers(&t, v), 1);
	ck_assert_double_eq(tu_metric(&m, "g.k.contended_share"), 0);
	metrics_free(&m);
	/* two tasks per instance */
	snprintf(text, sizeof text, tasks_fmt, 2, "task");
	run_took(text, &t, &m);
	ck_assert_int_eq(takers(&t, 0), 2);
	ck_assert_int_eq(takers(&t, 1), 2);
	metrics_free(&m);
	snprintf(text, sizeof text, tasks_fmt, 3, "2");
	run_took(text, &t, &m);
	ck_assert_int_eq(takers(&t, 0) + takers(&t, 1), 0);
	ck_assert_int_eq(takers(&t, 2), NV);
	ck_assert_double_gt(tu_metric(&m, "g.k.contended_share"), 10);
	metrics_free(&m);
}
END_TEST

/* by: random - a draw from the vCPU's stream: every instance, in even
 * shares, less contended than one lock, and the same run for the same seed. */
START_TEST(by_random_spreads_and_repeats)
{
	char text[2048];
	struct metrics m, m2;
	struct took t;
	size_t j;
	int i, v;

	snprintf(text, sizeof text, fmt, NI, "{name: k, by: random}");
	run_took(text, &t, &m);
	for (i = 0; i < NI; i++) {
		long n = 0;

		for (v = 0; v < NV; v++)
			n += t.taken[i][v];
		/* 8000 draws into 8: 1000 each, sd about 30 */
		ck_assert_int_gt(n, 850);
		ck_assert_int_lt(n, 1150);
		ck_assert_int_eq(takers(&t, i), NV);
	}
	ck_assert_double_lt(tu_metric(&m, "g.k.contended_share"), 25);
	tu_run(text, 1, NULL, &m2);
	ck_assert_uint_eq(m.n, m2.n);
	for (j = 0; j < m.n; j++)
		ck_assert_msg(m.vals[j] == m2.vals[j], "%s", m.names[j]);
	metrics_free(&m);
	metrics_free(&m2);
}
END_TEST

/* A class of one, named with any `by`, is the plain lock: every metric the same. */
START_TEST(one_instance_is_the_plain_lock)
{
	static const char *const bys[] = { "{name: k, by: 0}", "{name: k, by: random}",
	    "{name: k, by: vcpu}" };
	char text[2048];
	struct metrics m, m2;
	size_t b, i;

	snprintf(text, sizeof text, fmt, 1, "k");
	tu_run(text, 1, NULL, &m);
	for (b = 0; b < sizeof bys / sizeof bys[0]; b++) {
		snprintf(text, sizeof text, fmt, 1, bys[b]);
		tu_run(text, 1, NULL, &m2);
		ck_assert_uint_eq(m.n, m2.n);
		for (i = 0; i < m.n; i++)
			ck_assert_msg(m.vals[i] == m2.vals[i], "%s: %s", bys[b], m.names[i]);
		metrics_free(&m2);
	}
	metrics_free(&m);
}
END_TEST

/* An instance that does not exist, or none named where there are several:
 * refused at load with the place. */
START_TEST(bad_instances_are_refused_at_load)
{
	static const struct { int n; const char *acq, *msg; } bad[] = {
		{ 4, "{name: k, by: 4}", ":14:36: lock 'k' has no instance 4 (it has 4: 0 to 3" },
		{ 4, "k", ":14:13: lock 'k' has 4 instances: name the one to take" },
		{ 4, "{name: k, by: cpu}", ":14:36: 'by' takes vcpu, task, mm, random or an" },
		{ 4, "{name: k}", ":14:22: 'acquire' as a mapping takes 'name' and 'by'" },
		{ 0, "k", ":9:28: 'instances' = 0 is out of range [1, 4096]" },
	};
	char text[2048];
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct scenario sc;
		struct vs_err err = { "" };

		snprintf(text, sizeof text, fmt, bad[i].n, bad[i].acq);
		ck_assert_int_ne(tu_load(&sc, text, &err), 0);
		ck_assert_msg(strstr(err.msg, bad[i].msg) != NULL, "%s: %s", bad[i].acq, err.msg);
	}
}
END_TEST

/* Sleeping locks and wait queues: two senders, two receivers, each pair on
 * its own pipe (a mutex of two instances and a queue of two, by task:
 * tasks 0 and 2 share instance 0, 1 and 3 instance 1). */
static const char pipes_fmt[] =
    "name: o\nseed: 1\nuntil: duration\nduration: 20ms\n" TEST_MACHINE
    "hypervisor: {kind: kvm, scheduler: pinned}\n"
    "vms: [{name: g, vcpus: 4, workload: w}]\n"
    "workloads:\n  w:\n    locks: {p: {kind: mutex, instances: %d}}\n"
    "    queues: {q: 2}\n"
    "    programs:\n"
    "      s: [{loop: 200, do: [{lock: %s}, {compute: 2us}, {unlock: p},\n"
    "          {wake: {on: q, by: %s}}]}]\n"
    "      r: [{loop: 200, do: [{wait: {on: q, by: task}}, {lock: %s}, {compute: 2us},\n"
    "          {unlock: p}, {count: got}]}]\n"
    "    tasks: [{program: s, cpus: [0]}, {program: s, cpus: [1]},\n"
    "            {program: r, cpus: [2]}, {program: r, cpus: [3]}]\n";

START_TEST(sleeping_locks_and_queues_have_instances)
{
	char text[2048];
	struct metrics m;

	/* each receiver takes its sender's tokens: all 400 messages read */
	snprintf(text, sizeof text, pipes_fmt, 2, "{name: p, by: task}", "task",
	    "{name: p, by: task}");
	tu_run(text, 1, NULL, &m);
	ck_assert_double_eq(tu_metric(&m, "g.got"), 400);
	ck_assert_double_eq(tu_metric(&m, "g.p.acquisitions"), 800);
	metrics_free(&m);
	/* every wake to queue 0: its receiver reads 200, the other none */
	snprintf(text, sizeof text, pipes_fmt, 2, "{name: p, by: task}", "0",
	    "{name: p, by: task}");
	tu_run(text, 1, NULL, &m);
	ck_assert_double_eq(tu_metric(&m, "g.got"), 200);
	metrics_free(&m);
	/* one mutex: its four users wait for each other; one per vCPU: never */
	snprintf(text, sizeof text, pipes_fmt, 1, "p", "task", "p");
	tu_run(text, 1, NULL, &m);
	ck_assert_double_gt(tu_metric(&m, "g.p.spins"), 0);
	ck_assert_double_gt(tu_metric(&m, "g.p.wait_mean_ns"), 0);
	metrics_free(&m);
	snprintf(text, sizeof text, pipes_fmt, 4, "{name: p, by: vcpu}", "task",
	    "{name: p, by: vcpu}");
	tu_run(text, 1, NULL, &m);
	ck_assert_double_eq(tu_metric(&m, "g.p.spins"), 0);
	ck_assert_double_eq(tu_metric(&m, "g.p.wait_mean_ns"), 0);
	ck_assert_double_eq(tu_metric(&m, "g.p.acquisitions"), 800);
	metrics_free(&m);
}
END_TEST

/* ... and their bad inputs, at load with the place. */
START_TEST(bad_sleeping_and_queue_instances_are_refused)
{
	static const struct { int n; const char *lk, *wk, *msg; } bad[] = {
		{ 2, "{name: p, by: 2}", "task", "sleeping lock 'p' has no instance 2 (it has 2" },
		{ 2, "p", "task", "sleeping lock 'p' has 2 instances: name the one to take" },
		{ 2, "{name: p, by: task}", "5", "wait queue 'q' has no instance 5 (it has 2: 0 "
		  "to 1: workloads.w.queues.q)" },
		{ 2, "{name: p, by: task}", "vcpus", "'by' takes vcpu, task, mm, random or an" },
	};
	char text[2048];
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct scenario sc;
		struct vs_err err = { "" };

		snprintf(text, sizeof text, pipes_fmt, bad[i].n, bad[i].lk, bad[i].wk, bad[i].lk);
		ck_assert_int_ne(tu_load(&sc, text, &err), 0);
		ck_assert_msg(strstr(err.msg, bad[i].msg) != NULL && strstr(err.msg, ":1") != NULL,
		    "%s: %s", bad[i].lk, err.msg);
	}
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("lockobj");
	TCase *tc = tcase_create("instances");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, per_vcpu_instances_are_never_shared);
	tcase_add_test(tc, by_mm_task_and_index);
	tcase_add_test(tc, by_random_spreads_and_repeats);
	tcase_add_test(tc, one_instance_is_the_plain_lock);
	tcase_add_test(tc, bad_instances_are_refused_at_load);
	tcase_add_test(tc, sleeping_locks_and_queues_have_instances);
	tcase_add_test(tc, bad_sleeping_and_queue_instances_are_refused);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(suite());
}
