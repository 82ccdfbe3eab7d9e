/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_warmup.c - a scenario's warm-up (scenario key `warmup`): the metrics
 * cover the interval after it and nothing before.
 *
 * The model does not know of the warm-up, so a run of warmup W and duration
 * D is, event for event, the run of duration W + D; its metrics are that
 * run's books minus those of the run of duration W: every count exactly, and
 * every rate, time share and mean wait weighted by its interval (or its
 * acquisitions).
 */
#include <math.h>

#include "testutil.h"

#define SRC VS_TOP_SRCDIR "/configs/"

/* KVM with PLE and halt polling, guest tasks with IPIs, a mmap_sem and the
 * guest's cpuidle-haltpoll, a spinlock VM and a hog, overcommitted 3:1: most
 * of the books. */
static const char scen_fmt[] =
	"name: w\nseed: 3\nreps: 1\nuntil: duration\nduration: %s\nwarmup: %s\n"
	"machine: {include: " SRC "machines/x5570.yaml, sockets: 1}\n"
	"hypervisor:\n  kind: kvm\n  scheduler: cfs\n  ple: {enabled: true}\n"
	"  halt_poll: {policy: dynamic}\n"
	"vms:\n"
	"  - {name: guest, vcpus: 4, workload: " SRC "presets/ebizzy.yaml,\n"
	"     guest: {ipi: {mode: physical}, halt_poll: 200us}}\n"
	"  - {name: lk, vcpus: 4, lock: pv-qspinlock, workload: slab}\n"
	"  - {name: hog, vcpus: 4, workload: " SRC "presets/cpuhog.yaml}\n"
	"workloads:\n  slab:\n    program:\n      - loop: forever\n        do:\n"
	"          - compute: {dist: exponential, mean: 3us}\n"
	"          - acquire: l\n          - compute: 200ns\n          - release: l\n"
	"          - count: calls\n";

static void
run_wd(const char *dur, const char *warm, struct metrics *m)
{
	char text[4096];

	snprintf(text, sizeof text, scen_fmt, dur, warm);
	tu_run(text, 3, NULL, m);
}

/* The simulator's own work counts the whole run (metric_doc.c). */
static int
cost_figure(const char *name)
{
	return strcmp(name, "events") == 0 || strcmp(name, "host_ticks_skipped") == 0 ||
	    strcmp(name, "guest_ticks_skipped") == 0 ||
	    strcmp(name, "steps_folded") == 0 || strcmp(name, "events_per_sec") == 0;
}

static int
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Shares whose denominator is simulated time (vCPU or CPU time). */
static int
time_share(const char *name)
{
	static const char *const sfx[] = { "running_share", "runnable_share", "blocked_share",
		"offline_share", "guest_idle_share", "cpu_share", "ipi_wait_share", NULL };
	int i;

	for (i = 0; sfx[i] != NULL; i++)
		if (ends_with(name, sfx[i]))
			return 1;
	return 0;
}

static void
close_to(const char *name, double got, double want)
{
	double tol = 1e-9 * fmax(1, fmax(fabs(got), fabs(want)));

	ck_assert_msg(fabs(got - want) <= tol, "%s: %.12g after the warm-up, %.12g from the "
	    "runs without", name, got, want);
}

/* Warm-up 20.00013 ms, then 30 ms, against the runs of 20.00013 ms and of
 * 50.00013 ms without one.  W lies off every tick and off every event of
 * these runs: an event at W itself counts before the end of the short run
 * but after the reset of the long one (20.0001 ms was the lk VM's take of
 * its lock since cut switch-ins are no longer owed, guest.c guest_stop). */
START_TEST(test_interval_after)
{
	struct metrics w, a, b;
	const double tw = 20.00013e-3, td = 30e-3;
	size_t i;
	int counts = 0, rates = 0, shares = 0, waits = 0;

	run_wd("30ms", "20.00013ms", &w);
	run_wd("20.00013ms", "0s", &a);
	run_wd("50.00013ms", "0s", &b);
	ck_assert_uint_eq(w.n, b.n);
	close_to("sim_seconds", tu_metric(&w, "sim_seconds"), td);
	for (i = 0; i < w.n; i++) {
		const char *nm = w.names[i];
		double vw = w.vals[i], va = tu_metric(&a, nm), vb = b.vals[i];

		ck_assert_str_eq(nm, b.names[i]);
		if (cost_figure(nm))
			continue;
		if (strcmp(w.units[i], "count") == 0) {
			ck_assert_msg(vw == vb - va, "%s: %.0f after the warm-up, %.0f - %.0f without",
			    nm, vw, vb, va);
			counts++;
		} else if (ends_with(nm, "_per_busy_cpu_s")) {
			continue;	/* per busy CPU-second: not the interval's time */
		} else if (strcmp(w.units[i], "1/s") == 0) {
			close_to(nm, vw * td, vb * (tw + td) - va * tw);
			rates++;
		} else if (time_share(nm)) {
			close_to(nm, vw * td, vb * (tw + td) - va * tw);
			shares++;
		} else if (ends_with(nm, ".wait_mean_ns") && !strstr(nm, "ipi")) {
			char acq[300];
			int k;

			/* a spinlock's mean over its acquisitions (a sleeping lock's
			 * is over its contended waits: left out) */
			snprintf(acq, sizeof acq, "%.*s.acquisitions",
			    (int)(strlen(nm) - strlen(".wait_mean_ns")), nm);
			k = metrics_find(&w, acq);
			if (k < 0 || strstr(nm, "mmap_sem") != NULL)
				continue;
			close_to(nm, vw * w.vals[k], vb * tu_metric(&b, acq) - va * tu_metric(&a, acq));
			waits++;
		}
	}
	/* the scenario exercised what this test claims to check */
	ck_assert_int_ge(counts, 20);
	ck_assert_int_ge(rates, 2);
	ck_assert_int_ge(shares, 10);
	ck_assert_int_ge(waits, 1);
	ck_assert_double_gt(tu_metric(&w, "lk.calls"), 1000);
	ck_assert_double_gt(tu_metric(&w, "ple_exits"), 0);
	metrics_free(&w);
	metrics_free(&a);
	metrics_free(&b);
}
END_TEST

/* A counter that grows linearly: the warm-up's count is not in it, its rate
 * is the loop's. */
START_TEST(test_linear_counter)
{
	static const char fmt[] =
		"name: lin\nseed: 1\nuntil: duration\nduration: 20ms\nwarmup: %s\n"
		"machine: {name: t, sockets: 1, cores_per_socket: 1, threads_per_core: 1, "
		"clock: 2GHz}\n"
		"hypervisor: {kind: none, scheduler: pinned}\n"
		"vms:\n  - {name: v, vcpus: 1, workload: w}\n"
		"workloads:\n  w:\n    program:\n      - compute: 3ms\n"
		"      - loop: forever\n        do:\n          - compute: 1us\n"
		"          - count: it\n";
	char text[1024];
	struct metrics m0, m1;

	snprintf(text, sizeof text, fmt, "0s");
	tu_run(text, 1, NULL, &m0);
	snprintf(text, sizeof text, fmt, "7.0005ms");
	tu_run(text, 1, NULL, &m1);
	/* without: the 3 ms start-up counts nothing, nor does the first switch to
	 * the vCPU (costs.ctx_switch) */
	ck_assert_double_lt(tu_metric(&m0, "v.it"), 17000);
	ck_assert_double_eq(tu_metric(&m0, "ctx_switches"), 1);
	/* with: the iterations ending in (7.0005, 27.0005] ms, no switch */
	ck_assert_double_eq(tu_metric(&m1, "v.it"), 20000);
	ck_assert_double_eq(tu_metric(&m1, "ctx_switches"), 0);
	ck_assert_double_eq_tol(tu_metric(&m1, "v.it_per_sec"), 1e6, 1e-6);
	ck_assert_double_eq_tol(tu_metric(&m1, "sim_seconds"), 20e-3, 1e-15);
	ck_assert_double_eq_tol(tu_metric(&m1, "v.running_share"), 100, 1e-9);
	metrics_free(&m0);
	metrics_free(&m1);
}
END_TEST

/* The pCPUs' C-state books (c0_share, cstate_wakes, cstate_exit_seconds)
 * cover the interval after the warm-up too, an idle period open at its end
 * included: vCPUs that sleep leave their pCPUs idle in C-states (x5570's
 * nehalem_cstates).  Warm-up 7.0005 ms, then 20 ms, against runs without. */
static void
run_idle(const char *dur, const char *warm, struct metrics *m)
{
	static const char fmt[] =
		"name: ci\nseed: 5\nuntil: duration\nduration: %s\nwarmup: %s\n"
		"machine: {include: " SRC "machines/x5570.yaml, sockets: 1}\n"
		"hypervisor: {kind: kvm, scheduler: cfs}\n"
		"vms:\n  - {name: v, vcpus: 4, workload: w}\n"
		"workloads:\n  w:\n    program:\n      - loop: forever\n        do:\n"
		"          - compute: {dist: exponential, mean: 300us}\n"
		"          - sleep: {dist: exponential, mean: 700us}\n";
	char text[2048];

	snprintf(text, sizeof text, fmt, dur, warm);
	tu_run(text, 3, NULL, m);
}

START_TEST(test_cstates_after)
{
	struct metrics w, a, b;
	double tw = 7.0005e-3, td = 20e-3;

	run_idle("20ms", "7.0005ms", &w);
	run_idle("7.0005ms", "0s", &a);
	run_idle("27.0005ms", "0s", &b);
	ck_assert_double_gt(tu_metric(&a, "cstate_wakes"), 10);
	ck_assert_double_lt(tu_metric(&b, "c0_share"), 90);
	ck_assert_double_eq(tu_metric(&w, "cstate_wakes"),
	    tu_metric(&b, "cstate_wakes") - tu_metric(&a, "cstate_wakes"));
	close_to("c0_share", tu_metric(&w, "c0_share") * td,
	    tu_metric(&b, "c0_share") * (tw + td) - tu_metric(&a, "c0_share") * tw);
	close_to("cstate_exit_seconds", tu_metric(&w, "cstate_exit_seconds"),
	    tu_metric(&b, "cstate_exit_seconds") - tu_metric(&a, "cstate_exit_seconds"));
	metrics_free(&w);
	metrics_free(&a);
	metrics_free(&b);
}
END_TEST

/* Bad input: a warm-up needs a measured interval of fixed length. */
START_TEST(test_refused)
{
	struct scenario sc;
	struct vs_err err = { "" };
	static const char base[] = TEST_MACHINE
		"hypervisor: {kind: none, scheduler: pinned}\n"
		"vms:\n  - {name: v, vcpus: 1, workload: w}\n"
		"workloads:\n  w:\n    program:\n      - compute: 1ms\n";
	char text[1024];

	snprintf(text, sizeof text, "warmup: 1ms\n%s", base);
	ck_assert_int_ne(tu_load(&sc, text, &err), 0);
	ck_assert_msg(strstr(err.msg, ":1:9: a 'warmup' needs 'until: duration'") != NULL, "%s",
	    err.msg);
	snprintf(text, sizeof text, "warmup: 1ms\nuntil: done\nduration: 5ms\n%s", base);
	ck_assert_int_ne(tu_load(&sc, text, &err), 0);
	snprintf(text, sizeof text, "warmup: 1e18ns\nduration: 5ms\n%s", base);
	ck_assert_int_ne(tu_load(&sc, text, &err), 0);
	ck_assert_msg(strstr(err.msg, "past the cap") != NULL, "%s", err.msg);
	snprintf(text, sizeof text, "warmup: -1ms\nduration: 5ms\n%s", base);
	ck_assert_int_ne(tu_load(&sc, text, &err), 0);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("warmup");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_interval_after);
	tcase_add_test(tc, test_linear_counter);
	tcase_add_test(tc, test_cstates_after);
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(suite());
}
