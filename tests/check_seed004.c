/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_seed004.c - what seed 004 added: the memory bandwidth model, per-VM
 * metrics, per-row metrics and absolute tolerances in validation cases, and
 * the seed 004 case files themselves (they must keep loading).
 */
#include "testutil.h"

#include <glob.h>
#include <math.h>

#include "validate.h"

static const char *
srcdir(void)
{
	const char *s = getenv("top_srcdir");

	return s ? s : ".";
}

/* 2 sockets x 2 cores x 2 threads; 8 GiB/s per socket, 6 GiB/s per core. */
#define MEM_MACHINE \
	"machine: {name: t, sockets: 2, cores_per_socket: 2, threads_per_core: 2, " \
	"clock: 2GHz, costs: {mem_bw_socket: 8GiB, mem_bw_core: 6GiB, ctx_switch: 0ns}}\n"

/* VM x streams X, VM y streams Y; one vCPU each, pinned to px and py. */
static void
stream2(const char *px, const char *x, const char *py, const char *y, struct metrics *m)
{
	char *text = xasprintf("name: bw\nuntil: done\n" MEM_MACHINE
	    "hypervisor: {kind: none, scheduler: pinned}\n"
	    "vms:\n"
	    "  - {name: x, vcpus: 1, affinity: \"%s\", workload: wx}\n"
	    "  - {name: y, vcpus: 1, affinity: \"%s\", workload: wy}\n"
	    "workloads:\n"
	    "  wx: {program: [{memory: %s}]}\n"
	    "  wy: {program: [{memory: %s}]}\n", px, py, x, y);

	tu_run(text, 1, NULL, m);
	free(text);
}

START_TEST(one_alone_gets_min_of_core_and_socket)
{
	struct metrics m;

	/* y streams nothing: x alone draws min(6, 8) = 6 GiB/s. */
	stream2("0", "1GiB", "2", "0B", &m);
	ck_assert_double_eq_tol(tu_metric(&m, "x.vm_seconds"), 1.0 / 6, 1e-6);
	metrics_free(&m);
}
END_TEST

START_TEST(two_on_one_socket_share_it)
{
	struct metrics m;

	/* Different cores of socket 0: 8 / 2 = 4 GiB/s each. */
	stream2("0", "1GiB", "2", "1GiB", &m);
	ck_assert_double_eq_tol(tu_metric(&m, "x.vm_seconds"), 0.25, 1e-6);
	ck_assert_double_eq_tol(tu_metric(&m, "y.vm_seconds"), 0.25, 1e-6);
	metrics_free(&m);
}
END_TEST

START_TEST(other_socket_does_not_share)
{
	struct metrics m;

	/* pCPU 4 is on socket 1: both draw 6 GiB/s. */
	stream2("0", "1GiB", "4", "1GiB", &m);
	ck_assert_double_eq_tol(tu_metric(&m, "x.vm_seconds"), 1.0 / 6, 1e-6);
	ck_assert_double_eq_tol(tu_metric(&m, "y.vm_seconds"), 1.0 / 6, 1e-6);
	metrics_free(&m);
}
END_TEST

START_TEST(rerated_when_one_stops)
{
	struct metrics m;

	/*
	 * Both at 4 GiB/s until y's 0.5 GiB are done at 0.125 s; then x's
	 * remaining 0.5 GiB go at 6 GiB/s: 0.125 + 1/12 s.
	 */
	stream2("0", "1GiB", "2", "512MiB", &m);
	ck_assert_double_eq_tol(tu_metric(&m, "y.vm_seconds"), 0.125, 1e-6);
	ck_assert_double_eq_tol(tu_metric(&m, "x.vm_seconds"), 0.125 + 1.0 / 12, 1e-6);
	metrics_free(&m);
}
END_TEST

START_TEST(compute_is_not_bandwidth)
{
	struct metrics m;
	char *text = xasprintf("name: bw\nuntil: done\n" MEM_MACHINE
	    "hypervisor: {kind: none, scheduler: pinned}\n"
	    "vms:\n"
	    "  - {name: x, vcpus: 1, affinity: \"0\", workload: wx}\n"
	    "  - {name: y, vcpus: 1, affinity: \"2\", workload: wy}\n"
	    "workloads:\n"
	    "  wx: {program: [{memory: 1GiB}]}\n"
	    "  wy: {program: [{compute: 100ms}, {count: n}]}\n");

	/* A computing vCPU of the socket takes no bandwidth. */
	tu_run(text, 1, NULL, &m);
	ck_assert_double_eq_tol(tu_metric(&m, "x.vm_seconds"), 1.0 / 6, 1e-6);
	ck_assert_double_eq_tol(tu_metric(&m, "y.vm_seconds"), 0.1, 1e-6);
	ck_assert_double_eq_tol(tu_metric(&m, "y.n_per_vm_sec"), 1 / (1.0 / 6), 1e-3);
	metrics_free(&m);
	free(text);
}
END_TEST

START_TEST(tolerance_abs_and_rel)
{
	struct vcase c;
	struct mrow r;

	memset(&c, 0, sizeof c);
	memset(&r, 0, sizeof r);
	r.mean = 73.67;
	c.tol_rel = 0.05;
	ck_assert(vcase_within(&c, &r, 73.67 * 1.049));
	ck_assert(!vcase_within(&c, &r, 73.67 * 1.051));
	c.tol_abs = 2;		/* percentage points */
	ck_assert(vcase_within(&c, &r, 75.6));
	ck_assert(!vcase_within(&c, &r, 75.7));
	ck_assert(!vcase_within(&c, &r, 71.6));
	r.sd = 3;
	ck_assert_int_eq(vcase_judge(&c, &r, 75.6), RULE_ABS);
	ck_assert_int_eq(vcase_judge(&c, &r, 75.7), RULE_MISS);
	c.tol_or_sd = 1;
	ck_assert(vcase_within(&c, &r, 76.6));
	ck_assert_int_eq(vcase_judge(&c, &r, 76.6), RULE_SD);
	c.tol_abs = 0;
	ck_assert_int_eq(vcase_judge(&c, &r, 73.67 * 1.049), RULE_REL);
}
END_TEST

/* Busy 2-vCPU VMs pinned per node (10 vCPUs on 8 pCPUs), with or without a
 * dom0 of 8 unpinned vCPUs that run 10% of the time: the pCPUs the guests'
 * vCPUs occupy, and dom0's. */
static double
busy_guest_pcpus(int dom0, double *dom0_pcpus)
{
	char *text = xasprintf("name: d0\nuntil: duration\nduration: 1s\n" MEM_MACHINE
	    "hypervisor: {kind: xen, scheduler: credit}\n"
	    "vms:\n"
	    "  - {name: a, count: 3, vcpus: 2, affinity: \"0-3\", workload: busy}\n"
	    "  - {name: b, count: 2, vcpus: 2, affinity: \"4-7\", workload: busy}\n"
	    "  - {name: dom0, count: %d, vcpus: 8, workload: dom0}\n"
	    "workloads:\n"
	    "  busy: {program: [{loop: forever, do: [{compute: 10ms}]}]}\n"
	    "  dom0: {program: [{loop: forever, do: [{compute: {dist: exponential, mean: 100us}},"
	    " {sleep: {dist: exponential, mean: 900us}}]}]}\n"
	    "metrics: [a.running_share, b.running_share]\n", dom0);
	struct metrics m;
	double v;

	tu_run(text, 1, NULL, &m);
	v = (6 * tu_metric(&m, "a.running_share") + 4 * tu_metric(&m, "b.running_share")) / 100;
	if (dom0_pcpus != NULL)
		*dom0_pcpus = dom0 ? 8 * tu_metric(&m, "dom0.running_share") / 100 : 0;
	metrics_free(&m);
	free(text);
	return v;
}

/* The host is never empty: dom0's vCPUs (xentrace, backends) run too, and
 * the busy guests' vCPUs lose what they take (seed 004's runstate rows). */
START_TEST(dom0_takes_its_share_from_busy_guests)
{
	double d0, alone = busy_guest_pcpus(0, NULL), with = busy_guest_pcpus(1, &d0);

	/* the 10 busy vCPUs fill all 8 pCPUs */
	ck_assert_double_eq_tol(alone, 8, 0.05);
	/* dom0 runs a good part of its 10% duty cycle on 8 vCPUs (0.8 pCPU;
	 * its woken vCPUs also wait, at weight 256 like every domain) ... */
	ck_assert_double_gt(d0, 0.4);
	ck_assert_double_lt(d0, 0.85);
	/* ... and the guests lose just that */
	ck_assert_double_eq_tol(alone - with, d0, 0.05);
}
END_TEST

/* sysbench-cpu (configs/presets/sysbench-cpu.yaml), 300 requests of 1 ms, in
 * a VM whose vCPUs sit on pCPUs 0 and 2 (bare metal, pinned; SMT slowdown
 * 2); with hog, a busy VM on pCPU 3 halves vCPU 1's speed.  The VM's time. */
static double
sysbench_cpu_seconds(int hog)
{
	char path[] = "/tmp/vlocksim-test-XXXXXX";
	char *top = realpath(srcdir(), NULL);	/* the scenario is in /tmp */
	char *text = xasprintf("name: sbcpu\nuntil: done\nduration: 10s\n"
	    "machine: {name: t, sockets: 1, cores_per_socket: 2, threads_per_core: 2, "
	    "clock: 2GHz, costs: {smt_busy_slowdown: 2}}\n"
	    "hypervisor: {kind: none, scheduler: pinned}\n"
	    "vms:\n"
	    "  - {name: s, vcpus: 2, affinity: \"0,2\", workload: cpu}\n"
	    "  - {name: h, count: %d, vcpus: 1, affinity: \"3\", workload: hog}\n"
	    "workloads:\n"
	    "  cpu: %s/configs/presets/sysbench-cpu.yaml\n"
	    "  hog: {program: [{loop: forever, do: [{compute: 1ms}]}]}\n", hog, top);
	static char set_len[] = "workloads.cpu.programs.request[0].compute=1ms";
	static char set_n[] = "workloads.cpu.programs.run[0].spawn.count=300";
	char *sets[] = { set_len, set_n };
	struct run_opts o = { .wall_clock = 0, .check = 1 };
	struct scenario sc;
	struct vs_err err = { "" };
	struct metrics m;
	int fd = mkstemp(path);
	FILE *f;
	double v;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	if (scen_load(&sc, path, sets, 2, &err) != 0)
		ck_abort_msg("%s", err.msg);
	unlink(path);
	metrics_init(&m);
	if (run_once(&sc, 1, &o, &m, &err) != 0)
		ck_abort_msg("%s", err.msg);
	v = tu_metric(&m, "s.vm_seconds");
	ck_assert_double_eq(tu_metric(&m, "s.events"), 300);
	metrics_free(&m);
	scen_free(&sc);
	free(text);
	free(top);
	return v;
}

/* sysbench 0.4 sb_cpu.c cpu_get_request: both threads take requests from one
 * counter, so a thread slowed by a busy SMT sibling just does fewer: 300 ms
 * of requests over speeds 1 + 1/2 take 200 ms, not the 300 ms that a fixed
 * 150 per thread would (the slow thread's share at half speed). */
START_TEST(sysbench_cpu_threads_share_the_requests)
{
	double alone = sysbench_cpu_seconds(0), slowed = sysbench_cpu_seconds(1);

	ck_assert_double_eq_tol(alone, 0.150, 0.150 * 0.03);
	ck_assert_double_eq_tol(slowed, 0.200, 0.200 * 0.03);
}
END_TEST

/* Every seed 004 case loads, and each row's metric is the table's. */
START_TEST(seed004_cases_load)
{
	char *pat = xasprintf("%s/validation/cases/seed004*.yaml", srcdir());
	glob_t g;
	size_t i;
	int j, runstate = 0;

	ck_assert_int_eq(glob(pat, 0, NULL, &g), 0);
	ck_assert_uint_ge(g.gl_pathc, 4);
	for (i = 0; i < g.gl_pathc; i++) {
		struct vcase c;
		struct vs_err err;

		if (vcase_load(&c, g.gl_pathv[i], &err))
			ck_abort_msg("%s", err.msg);
		for (j = 0; j < c.nrows; j++) {
			const struct mrow *m = vcase_measured(&c, &c.rows[j]);

			ck_assert_ptr_nonnull(m);
			ck_assert_str_eq(vcase_metric(&c, &c.rows[j]), m->metric);
		}
		if (strcmp(c.name, "seed004-runstate") == 0) {
			runstate = 1;
			ck_assert_double_eq(c.tol_abs, 2);
			ck_assert_str_eq(vcase_metric(&c, &c.rows[2]), "a.runnable_share");
		}
		vcase_free(&c);
	}
	ck_assert(runstate);
	globfree(&g);
	free(pat);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("seed004");
	TCase *bw = tcase_create("membw"), *vc = tcase_create("vcase");
	tcase_set_timeout(bw, 0);
	tcase_set_timeout(vc, 0);

	tcase_add_test(bw, one_alone_gets_min_of_core_and_socket);
	tcase_add_test(bw, two_on_one_socket_share_it);
	tcase_add_test(bw, other_socket_does_not_share);
	tcase_add_test(bw, rerated_when_one_stops);
	tcase_add_test(bw, compute_is_not_bandwidth);
	tcase_add_test(vc, tolerance_abs_and_rel);
	tcase_add_test(vc, seed004_cases_load);
	tcase_add_test(bw, dom0_takes_its_share_from_busy_guests);
	tcase_add_test(bw, sysbench_cpu_threads_share_the_requests);
	suite_add_tcase(s, bw);
	suite_add_tcase(s, vc);
	return tu_main(s);
}
