/*
 * check_locks.c - the lock algorithms tas, qspinlock, pv-qspinlock,
 * combining (and ticket, pv-ticket): mutual exclusion under overcommitted
 * host schedulers (preemption), FIFO order, combining runs each section
 * once, pv-qspinlock never strands a halted waiter, the TAS storm.
 */
#include "testutil.h"

#include "guest/lock.h"
#include "guest/workload.h"
#include "hv/vcpu.h"
#include "yconf.h"

#define MAXV 64
#define MAXEV (1 << 16)

/* Watches one lock's events; vCPU ids are small in these scenarios. */
struct watch {
	int holder, violations, releases, ntake, narr, fifo_bad;
	int arrivals[MAXEV], takes[MAXEV];
	int waits[MAXV], taken[MAXV];
	int waiting[MAXV], halted[MAXV];
	int check_after, stranded, halts, kicks, delegated;
	int wait_pcpu[MAXV];
};

/* Lock free, someone waits, and every waiter is halted with no kick: stuck. */
static void
check_stranded(struct watch *w)
{
	int i, nw = 0, nh = 0;

	if (w->holder != -1)
		return;
	for (i = 0; i < MAXV; i++) {
		nw += w->waiting[i];
		nh += w->waiting[i] && w->halted[i];
	}
	if (nw > 0 && nh == nw)
		w->stranded++;
}

static void
watch_fn(void *ctx, const struct probe_ev *e)
{
	struct watch *w = ctx;

	/* No ck_assert here: Check logs every passing assertion (a write). */
	if (e->vcpu < 0 || e->vcpu >= MAXV || (e->kind == PR_KICK &&
	    (e->aux < 0 || e->aux >= MAXV))) {
		w->violations++;
		return;
	}
	switch (e->kind) {
	case PR_LOCK_WAIT:
		if (w->narr < MAXEV)
			w->arrivals[w->narr++] = e->vcpu;
		w->waits[e->vcpu]++;
		w->waiting[e->vcpu] = 1;
		w->wait_pcpu[e->vcpu] = e->pcpu;
		break;
	case PR_LOCK_TAKEN:
		if (w->holder != -1)
			w->violations++;
		w->holder = e->vcpu;
		if (w->ntake < MAXEV)
			w->takes[w->ntake++] = e->vcpu;
		w->taken[e->vcpu]++;
		w->waiting[e->vcpu] = 0;
		if (e->pcpu != w->wait_pcpu[e->vcpu])
			w->delegated++;
		break;
	case PR_LOCK_RELEASE:
		if (w->holder != e->vcpu)
			w->violations++;
		w->holder = -1;
		w->releases++;
		/* The release's kick (if any) comes as the next probe event. */
		w->check_after = 1;
		return;
	case PR_HALT:
		w->halts++;
		w->halted[e->vcpu] = 1;
		break;
	case PR_KICK:
		w->kicks++;
		w->halted[e->aux] = 0;
		break;
	case PR_RUNSTATE:
		if (e->aux == RS_RUNNING)
			w->halted[e->vcpu] = 0;
		break;
	}
	if (w->check_after || e->kind == PR_HALT)
		check_stranded(w);
	w->check_after = 0;
}

static struct watch *
watch_new(void)
{
	static struct watch w;

	memset(&w, 0, sizeof w);
	w.holder = -1;
	return &w;
}

static const char *const locks[] = {
	"ticket", "pv-ticket", "tas", "{kind: tas, pause: false}", "qspinlock",
	"pv-qspinlock", "combining",
};
#define NLOCKS ((int)(sizeof locks / sizeof locks[0]))
#define NSEEDS 30

/*
 * 8 vCPUs on 4 pCPUs under cfs or credit: the host scheduler preempts lock
 * holders and waiters.  "pinned": 8 pCPUs, one per vCPU, no preemption.
 */
static void
overcommit_run(const char *lock, uint64_t seed, const char *sched, int loops,
    struct watch *w, struct metrics *m)
{
	char text[2048];
	struct probe p = { watch_fn, w };

	snprintf(text, sizeof text,
	    "machine: {name: t, sockets: 1, cores_per_socket: %d, threads_per_core: 2,"
	    " clock: 2GHz}\n"
	    "until: done\n"
	    "duration: 120ms\n"
	    "hypervisor: {scheduler: %s}\n"
	    "vms:\n"
	    "  - {name: g, vcpus: 8, lock: %s, workload: w}\n"
	    "workloads:\n"
	    "  w:\n"
	    "    locks: {l: {cs_lines: 2}}\n"
	    "    program:\n"
	    "      - loop: %d\n"
	    "        do:\n"
	    "          - compute: {dist: exponential, mean: 10us}\n"
	    "          - acquire: l\n"
	    "          - compute: {dist: uniform, min: 200ns, max: 4us}\n"
	    "          - release: l\n"
	    "          - count: ops\n",
	    strcmp(sched, "pinned") == 0 ? 4 : 2, sched, lock, loops);
	tu_run(text, seed, &p, m);
}

START_TEST(every_lock_is_exclusive_under_preemption)
{
	const char *lock = locks[_i % NLOCKS];
	uint64_t seed = 100 + (uint64_t)(_i / NLOCKS);
	struct watch *w = watch_new();
	struct metrics m;
	int v;

	overcommit_run(lock, seed, (_i / NLOCKS) % 2 ? "credit" : "cfs", 100000, w, &m);
	ck_assert_msg(w->violations == 0, "%s seed %d: %d exclusion violations", lock,
	    (int)seed, w->violations);
	ck_assert_int_gt(w->ntake, 500);
	/* Preemption really happened (8 vCPUs, 4 pCPUs). */
	ck_assert_double_gt(tu_metric(&m, "ctx_switches"), 10);
	ck_assert_int_eq(w->stranded, 0);
	for (v = 0; v < 8; v++)
		ck_assert_int_le(w->taken[v], w->waits[v]);
	metrics_free(&m);
}
END_TEST

/* Ticket and qspinlock hand the lock over in arrival order, preempted or not. */
START_TEST(ticket_and_qspinlock_are_fifo_under_preemption)
{
	const char *lock = _i % 2 ? "qspinlock" : "ticket";
	struct watch *w = watch_new();
	struct metrics m;
	int i;

	overcommit_run(lock, 7 + (uint64_t)_i, _i / 2 % 2 ? "credit" : "cfs", 100000, w, &m);
	ck_assert_int_eq(w->violations, 0);
	ck_assert_int_gt(w->ntake, 100);
	for (i = 0; i < w->ntake; i++)
		ck_assert_msg(w->takes[i] == w->arrivals[i],
		    "%s: take %d went to vCPU %d, but vCPU %d arrived first", lock, i,
		    w->takes[i], w->arrivals[i]);
	ck_assert_double_gt(tu_metric(&m, "g.l.contended_share"), 20);
	metrics_free(&m);
}
END_TEST

/* The unfair TAS lock is not FIFO: the same check must fail for it. */
START_TEST(tas_is_not_fifo)
{
	struct watch *w = watch_new();
	struct metrics m;
	int i, out_of_order = 0;

	overcommit_run("tas", 7, "cfs", 100000, w, &m);
	for (i = 0; i < w->ntake; i++)
		out_of_order += w->takes[i] != w->arrivals[i];
	ck_assert_int_gt(out_of_order, 10);
	metrics_free(&m);
}
END_TEST

START_TEST(combining_runs_every_section_once)
{
	/* Preempted handovers of a small batch stall for whole host slices. */
	static const char *const how[][2] = {
		{ "combining", "cfs" }, { "combining", "credit" },
		{ "{kind: combining, max_batch: 3}", "pinned" },
		{ "{kind: combining, max_batch: 1}", "pinned" },
	};
	struct watch *w = watch_new();
	struct metrics m;
	int v;

	overcommit_run(how[_i][0], 21 + (uint64_t)_i, how[_i][1], 2000, w, &m);
	ck_assert_double_eq(tu_metric(&m, "completed"), 1);
	ck_assert_int_eq(w->violations, 0);
	for (v = 0; v < 8; v++) {
		ck_assert_int_eq(w->waits[v], 2000);
		ck_assert_int_eq(w->taken[v], 2000);
	}
	ck_assert_int_eq(w->releases, 8 * 2000);
	ck_assert_double_eq(tu_metric(&m, "g.ops"), 8 * 2000);
	/* Sections ran on another vCPU's pCPU (delegation), except with
	 * max_batch 1, where every combiner serves only its own section. */
	if (_i == 3)
		ck_assert_int_eq(w->delegated, 0);
	else
		ck_assert_int_gt(w->delegated, 1000);
	metrics_free(&m);
}
END_TEST

START_TEST(combining_rejects_a_section_that_is_not_compute)
{
	static const char *good =
	    "program:\n"
	    "  - loop: 3\n"
	    "    do: [{acquire: l}, {compute: 1us}, {compute: 2us}, {release: l}]\n";
	static const char *bad =
	    "program:\n"
	    "  - loop: 3\n"
	    "    do:\n"
	    "      - acquire: l\n"
	    "      - count: x\n"
	    "      - release: l\n";
	struct vs_err err = { "" };
	struct yc_doc *d;
	struct workload *wl;

	d = yc_load_string("good.yaml", good, &err);
	ck_assert_ptr_nonnull(d);
	wl = wl_from_yaml("good", yc_root(d), 2e9, &err);
	ck_assert_ptr_nonnull(wl);
	ck_assert_int_eq(wl_check_sections(wl, &err), 0);
	wl_free(wl);
	yc_free(d);
	d = yc_load_string("bad.yaml", bad, &err);
	wl = wl_from_yaml("bad", yc_root(d), 2e9, &err);
	ck_assert_ptr_nonnull(wl);	/* fine for other locks */
	ck_assert_int_eq(wl_check_sections(wl, &err), -1);
	ck_assert_msg(strstr(err.msg, "bad.yaml:4:") != NULL, "message: %s", err.msg);
	wl_free(wl);
	yc_free(d);
}
END_TEST

/* Delegation keeps the data in one cache: faster than ticket when cs_lines is large. */
START_TEST(combining_beats_ticket_by_the_cache_line_model)
{
	static const char *fmt =
	    TEST_MACHINE
	    "until: done\n"
	    "vms:\n"
	    "  - {name: g, vcpus: 8, lock: %s, workload: w}\n"
	    "workloads:\n"
	    "  w:\n"
	    "    locks: {l: {cs_lines: %d}}\n"
	    "    program:\n"
	    "      - loop: 3000\n"
	    "        do: [{compute: 100ns}, {acquire: l}, {compute: 50ns}, {release: l}]\n";
	char text[1024];
	struct metrics m;
	double t[2][2];
	int i, lines;

	for (lines = 0; lines < 2; lines++)
		for (i = 0; i < 2; i++) {
			snprintf(text, sizeof text, fmt, i ? "combining" : "ticket",
			    lines ? 8 : 0);
			tu_run(text, 1, NULL, &m);
			t[lines][i] = tu_metric(&m, "completion_seconds");
			metrics_free(&m);
		}
	/* With 8 data lines per section combining wins clearly ... */
	ck_assert_double_lt(t[1][1], 0.7 * t[1][0]);
	/* ... and the gain grows with the data moved (it comes from the lines). */
	ck_assert_double_gt(t[1][0] / t[1][1], t[0][0] / t[0][1]);
}
END_TEST

START_TEST(pvqspinlock_halts_kicks_and_never_strands)
{
	struct watch *w = watch_new();
	struct metrics m;

	/* A short spin threshold makes waiters halt often under preemption. */
	overcommit_run("{kind: pv-qspinlock, spin_threshold: 64}", 40 + (uint64_t)_i,
	    _i % 2 ? "credit" : "cfs", 1500, w, &m);
	ck_assert_double_eq(tu_metric(&m, "completed"), 1);
	ck_assert_int_eq(w->violations, 0);
	ck_assert_int_eq(w->stranded, 0);
	ck_assert_int_gt(w->halts, 10);
	ck_assert_int_gt(w->kicks, 10);
	ck_assert_int_eq(w->ntake, 8 * 1500);
	metrics_free(&m);
}
END_TEST

/* pv-qspinlock spins SPIN_THRESHOLD x pause before it halts: none if the lock is short. */
START_TEST(pvqspinlock_spins_before_halting)
{
	static const char *text =
	    TEST_MACHINE
	    "until: done\n"
	    "vms:\n"
	    "  - {name: g, vcpus: 2, lock: pv-qspinlock, workload: w}\n"
	    "workloads:\n"
	    "  w: {program: [{acquire: l}, {compute: %s}, {release: l}]}\n";
	char buf[1024];
	struct metrics m;

	/* 32768 x 5 ns (10 cycles at 2 GHz) = 164 us of spinning first. */
	snprintf(buf, sizeof buf, text, "100us");
	tu_run(buf, 1, NULL, &m);
	ck_assert_double_eq(tu_metric(&m, "hlt_exits"), 0);
	metrics_free(&m);
	snprintf(buf, sizeof buf, text, "1ms");
	tu_run(buf, 1, NULL, &m);
	ck_assert_double_eq(tu_metric(&m, "hlt_exits"), 1);
	/* Halted, kicked at release: waits about 1 ms, not forever. */
	ck_assert_double_gt(tu_metric(&m, "g.l.wait_mean_ns"), 0.45e6);
	ck_assert_double_lt(tu_metric(&m, "g.l.wait_mean_ns"), 0.6e6);
	metrics_free(&m);
}
END_TEST

static double
tas_time(int pause)
{
	char text[1024];
	struct metrics m;
	double t;

	snprintf(text, sizeof text,
	    TEST_MACHINE
	    "until: done\n"
	    "vms:\n"
	    "  - {name: g, vcpus: 8, lock: {kind: tas, pause: %s}, workload: w}\n"
	    "workloads:\n"
	    "  w:\n"
	    "    locks: {l: {cs_lines: 1}}\n"
	    "    program:\n"
	    "      - loop: 2000\n"
	    "        do: [{compute: 50ns}, {acquire: l}, {compute: 100ns}, {release: l}]\n",
	    pause ? "true" : "false");
	tu_run(text, 1, NULL, &m);
	t = tu_metric(&m, "completion_seconds");
	metrics_free(&m);
	return t;
}

START_TEST(tas_without_pause_is_slower)
{
	double with = tas_time(1), without = tas_time(0);

	ck_assert_msg(without > 1.2 * with, "no pause %g s, pause %g s", without, with);
}
END_TEST

START_TEST(virt_fallback_qspinlock_is_tas)
{
	static const char *fmt =
	    TEST_MACHINE
	    "until: done\n"
	    "vms:\n"
	    "  - {name: g, vcpus: 6, lock: %s, workload: w}\n"
	    "workloads:\n"
	    "  w: {program: [{loop: 500, do: [{compute: {dist: exponential, mean: 200ns}},"
	    " {acquire: l}, {compute: 50ns}, {release: l}]}]}\n";
	char text[1024];
	struct metrics m;
	double a, b;

	snprintf(text, sizeof text, fmt, "tas");
	tu_run(text, 3, NULL, &m);
	a = tu_metric(&m, "completion_seconds");
	metrics_free(&m);
	snprintf(text, sizeof text, fmt, "{kind: qspinlock, virt_fallback: true}");
	tu_run(text, 3, NULL, &m);
	b = tu_metric(&m, "completion_seconds");
	metrics_free(&m);
	ck_assert_double_eq(a, b);
}
END_TEST

static Suite *
locks_suite(void)
{
	Suite *s = suite_create("locks");
	TCase *tc = tcase_create("algorithms");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, every_lock_is_exclusive_under_preemption, 0,
	    NLOCKS * NSEEDS);
	tcase_add_loop_test(tc, ticket_and_qspinlock_are_fifo_under_preemption, 0, 6);
	tcase_add_test(tc, tas_is_not_fifo);
	tcase_add_loop_test(tc, combining_runs_every_section_once, 0, 4);
	tcase_add_test(tc, combining_rejects_a_section_that_is_not_compute);
	tcase_add_test(tc, combining_beats_ticket_by_the_cache_line_model);
	tcase_add_loop_test(tc, pvqspinlock_halts_kicks_and_never_strands, 0, 6);
	tcase_add_test(tc, pvqspinlock_spins_before_halting);
	tcase_add_test(tc, tas_without_pause_is_slower);
	tcase_add_test(tc, virt_fallback_qspinlock_is_tas);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(locks_suite());
}
