/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_sweep.c - sweep grids (lists, ranges, units, products, errors) and runs. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plot.h"
#include "sweep.h"
#include "testutil.h"

#define SCEN \
	"name: t\nseed: 3\nreps: 2\nuntil: done\n" TEST_MACHINE \
	"hypervisor: {kind: kvm, scheduler: pinned}\n" \
	"vms:\n  - {name: g, vcpus: 2, lock: ticket, workload: w}\n" \
	"workloads:\n  w:\n    locks: {l: {cs_lines: 1}}\n    program:\n" \
	"      - loop: 300\n        do:\n          - acquire: l\n" \
	"          - compute: {dist: exponential, mean: 50ns}\n" \
	"          - release: l\n          - count: it\n" \
	"metrics: [g.it, g.l.wait_mean_ns]\n"

static char tdir[64];

/* A scratch folder holding s.yaml (SCEN). */
static char *
scratch(void)
{
	char *p;
	FILE *f;

	strcpy(tdir, "/tmp/vlocksim-sweep-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tdir));
	p = xasprintf("%s/s.yaml", tdir);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(SCEN, f);
	fclose(f);
	return p;
}

static void
rm_rf(const char *d)
{
	char *cmd = xasprintf("rm -rf '%s'", d);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = xmalloc((size_t)n + 1);
	ck_assert_int_eq((long)fread(buf, 1, (size_t)n, f), n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The values of the one axis that arg gives, joined by '|'. */
static char *
vals(const char *arg)
{
	struct sweep sw;
	struct vs_err err = { "" };
	char *s = xstrdup(""), *t;
	int i;

	sweep_init(&sw, "x.yaml");
	if (sweep_add_vary(&sw, arg, &err))
		ck_abort_msg("%s: %s", arg, err.msg);
	ck_assert_int_eq(sw.naxes, 1);
	for (i = 0; i < sw.axes[0].nvals; i++) {
		t = xasprintf("%s%s%s", s, i ? "|" : "", sw.axes[0].vals[i]);
		free(s);
		s = t;
	}
	sweep_free(&sw);
	return s;
}

#define VALS(arg, want) do { char *v_ = vals(arg); \
	ck_assert_str_eq(v_, want); free(v_); } while (0)

static void
put(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, n, f), n);
	fclose(f);
}

/* Issue 14 D5: gnuplot exits 0 on a full disk; its files are checked whole. */
START_TEST(plot_outputs_checked)
{
	static const unsigned char png[] = { 0x89, 'P', 'N', 'G', 1, 2, 3, 0, 0, 0, 0, 'I', 'E',
	    'N', 'D', 0xae, 0x42, 0x60, 0x82 };
	char dir[] = "/tmp/vlocksim-plot.XXXXXX", base[64], p[80];
	struct vs_err err;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(base, sizeof base, "%s/x", dir);
	snprintf(p, sizeof p, "%s.png", base);
	put(p, png, sizeof png);
	snprintf(p, sizeof p, "%s.svg", base);
	put(p, "<svg>\n</svg>\n\n", 14);
	ck_assert_int_eq(plot_check_outputs(base, &err), 0);
	put(p, "<svg>\n<g>", 9);	/* cut short */
	ck_assert_int_eq(plot_check_outputs(base, &err), -1);
	ck_assert(strstr(err.msg, "x.svg: gnuplot's output is truncated") != NULL);
	put(p, "", 0);			/* nothing written */
	ck_assert_int_eq(plot_check_outputs(base, &err), -1);
	put(p, "<svg></svg>", 11);
	snprintf(p, sizeof p, "%s.png", base);
	put(p, png, sizeof png - 4);	/* no CRC: truncated */
	ck_assert_int_eq(plot_check_outputs(base, &err), -1);
	ck_assert(strstr(err.msg, "x.png") != NULL);
	unlink(p);
	ck_assert_int_eq(plot_check_outputs(base, &err), -1);
	ck_assert(strstr(err.msg, "gnuplot wrote no file") != NULL);
	snprintf(p, sizeof p, "%s.svg", base);
	unlink(p);
	rmdir(dir);
}
END_TEST

START_TEST(lists)
{
	struct sweep sw;
	struct vs_err err;

	VALS("vms[0].vcpus=1,2,4", "1|2|4");
	VALS("hypervisor.scheduler=pinned", "pinned");
	VALS("a.b=2us,5us", "2us|5us");
	sweep_init(&sw, "x.yaml");
	ck_assert_int_eq(sweep_add_vary(&sw, "vms[0].vcpus=1,2,4", &err), 0);
	ck_assert_str_eq(sw.axes[0].path, "vms[0].vcpus");
	ck_assert_ptr_nonnull(sw.axes[0].unit);
	ck_assert_str_eq(sw.axes[0].unit, "");
	ck_assert(sw.axes[0].num[2] == 4);
	ck_assert_int_eq(sweep_add_vary(&sw, "hypervisor.scheduler=pinned,cfs", &err), 0);
	ck_assert_ptr_null(sw.axes[1].unit);	/* not numbers: a categorical axis */
	sweep_free(&sw);
}
END_TEST

/* Issue 30: a distribution (a YAML flow mapping) is one value, not split at its commas. */
START_TEST(flow_values)
{
	char *scen;
	struct sweep sw;
	struct vs_err err;
	char **s;
	int n;

	VALS("w.compute={dist: exponential, mean: 5ns},{dist: exponential, mean: 9ns}",
	    "{dist: exponential, mean: 5ns}|{dist: exponential, mean: 9ns}");
	VALS("w.x=[1, 2],[3]", "[1, 2]|[3]");
	VALS("w.x={a: 1}", "{a: 1}");			/* a colon in braces: no range */
	VALS("w.x={a: 1}, {b: \"x,y\"}, 'p,q'", "{a: 1}|{b: \"x,y\"}|'p,q'");
	VALS("w.x=it's,b", "it's|b");			/* an apostrophe inside a word */
	VALS("w.x=1, 2", "1|2");
	/* each is a --set value of its own, run as YAML */
	scen = scratch();
	sweep_init(&sw, scen);
	ck_assert_int_eq(sweep_add_vary(&sw, "workloads.w.program[0].do[1].compute="
	    "{dist: exponential, mean: 5ns},{dist: gamma, mean: 9ns, shape: 2}", &err), 0);
	ck_assert_int_eq(sweep_npoints(&sw), 2);
	s = sweep_point_sets(&sw, 1, &n);
	ck_assert_str_eq(s[0], "workloads.w.program[0].do[1].compute="
	    "{dist: gamma, mean: 9ns, shape: 2}");
	sweep_free_sets(s, n);
	ck_assert_msg(sweep_prepare(&sw, &err) == 0, "%s", err.msg);
	sweep_free(&sw);
	rm_rf(tdir);
	free(scen);
}
END_TEST

START_TEST(ranges)
{
	struct sweep sw;
	struct vs_err err;

	VALS("x=1:4:0.5", "1|1.5|2|2.5|3|3.5|4");
	VALS("x=1ms:3ms:1ms", "1ms|2ms|3ms");
	VALS("x=0.1:0.3:0.1", "0.1|0.2|0.3");	/* stop included despite rounding */
	VALS("x=0:1:0.3", "0|0.3|0.6|0.9");	/* stop not on the grid */
	VALS("x=4:1:-1.5", "4|2.5|1");
	VALS("x=-1:1:1", "-1|0|1");
	VALS("x=2:2:1", "2");
	VALS("x=100cycles:300cycles:100cycles", "100cycles|200cycles|300cycles");
	sweep_init(&sw, "x.yaml");
	ck_assert_int_eq(sweep_add_vary(&sw, "x=1ms:3ms:1ms", &err), 0);
	ck_assert_str_eq(sw.axes[0].unit, "ms");
	ck_assert(sw.axes[0].num[1] == 2);
	sweep_free(&sw);
}
END_TEST

START_TEST(products)
{
	struct sweep sw;
	struct vs_err err;
	char **s;
	int n, idx[3];

	sweep_init(&sw, "x.yaml");
	sweep_add_set(&sw, "reps=1");
	ck_assert_int_eq(sweep_npoints(&sw), 1);
	ck_assert_int_eq(sweep_add_vary(&sw, "a=1,2", &err), 0);
	ck_assert_int_eq(sweep_add_vary(&sw, "b=x,y,z", &err), 0);
	ck_assert_int_eq(sweep_add_vary(&sw, "c=1us:2us:1us", &err), 0);
	ck_assert_int_eq(sweep_npoints(&sw), 12);
	/* The first --vary varies slowest, the last fastest. */
	sweep_point_index(&sw, 0, idx);
	ck_assert(idx[0] == 0 && idx[1] == 0 && idx[2] == 0);
	sweep_point_index(&sw, 1, idx);
	ck_assert(idx[0] == 0 && idx[1] == 0 && idx[2] == 1);
	sweep_point_index(&sw, 2, idx);
	ck_assert(idx[0] == 0 && idx[1] == 1 && idx[2] == 0);
	sweep_point_index(&sw, 11, idx);
	ck_assert(idx[0] == 1 && idx[1] == 2 && idx[2] == 1);
	s = sweep_point_sets(&sw, 7, &n);	/* a=2 (7 / 6), b=x (7 % 6 / 2 = 0), c=2us */
	ck_assert_int_eq(n, 4);
	ck_assert_str_eq(s[0], "reps=1");	/* fixed --set first: a varied path wins */
	ck_assert_str_eq(s[1], "a=2");
	ck_assert_str_eq(s[2], "b=x");
	ck_assert_str_eq(s[3], "c=2us");
	sweep_free_sets(s, n);
	sweep_free(&sw);
}
END_TEST

START_TEST(errors)
{
	static const struct { const char *arg, *msg; } bad[] = {
		{ "novalue", "expected PATH=V1,V2" },
		{ "=1,2", "expected PATH=V1,V2" },
		{ "a=", "expected PATH=V1,V2" },
		{ "a=1,,2", "empty value" },
		{ "a=1,", "empty value" },
		{ "a=1:2", "expected PATH=START:STOP:STEP" },
		{ "a=1:2:3:4", "expected PATH=START:STOP:STEP" },
		{ "a=x:y:z", "expected PATH=START:STOP:STEP" },
		{ "a=1ms:3us:1ms", "same unit" },
		{ "a=1ms:3ms:1", "same unit" },
		{ "a=1:3:0", "STEP must be nonzero" },
		{ "a=3:1:1", "lead from START to STOP" },
		{ "a=0:1e9:1", "more than" },
		{ "a={x: 1", "unbalanced {...} or [...]" },
		{ "a={x: 1}},2", "unbalanced {...} or [...]" },
		{ "a=[1, 2", "unbalanced" },
		{ "a={x: \"1}", "unbalanced quote" },
		{ "a={x: 1},,{y: 2}", "empty value" },
	};
	struct sweep sw;
	struct vs_err err;
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		sweep_init(&sw, "x.yaml");
		err.msg[0] = '\0';
		ck_assert_msg(sweep_add_vary(&sw, bad[i].arg, &err) != 0, "%s accepted",
		    bad[i].arg);
		ck_assert_msg(strstr(err.msg, bad[i].msg) != NULL, "%s: '%s' lacks '%s'",
		    bad[i].arg, err.msg, bad[i].msg);
		ck_assert_int_eq(sw.naxes, 0);
		sweep_free(&sw);
	}
	sweep_init(&sw, "x.yaml");
	ck_assert_int_eq(sweep_add_vary(&sw, "a=1,2", &err), 0);
	ck_assert_int_ne(sweep_add_vary(&sw, "a=3", &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "already varied"));
	ck_assert_int_eq(sweep_add_vary(&sw, "b=1:1000:1", &err), 0);
	ck_assert_int_ne(sweep_add_vary(&sw, "c=1:100:1", &err), 0);	/* 200000 points */
	ck_assert_ptr_nonnull(strstr(err.msg, "points"));
	sweep_free(&sw);
}
END_TEST

/* A bad value in one point is found before anything runs, naming the point. */
START_TEST(prepare_checks_every_point)
{
	char *scen = scratch();
	struct sweep sw;
	struct vs_err err;

	sweep_init(&sw, scen);
	ck_assert_int_eq(sweep_add_vary(&sw, "vms[0].vcpus=1,2,four", &err), 0);
	ck_assert_int_ne(sweep_prepare(&sw, &err), 0);
	ck_assert_msg(strncmp(err.msg, "--set:1:14: 'vcpus' must be an integer", 38) == 0,
	    "%s", err.msg);
	ck_assert_ptr_nonnull(strstr(err.msg, "[sweep point 2: vms[0].vcpus=four]"));
	sweep_free(&sw);

	/* A pinned scheduler cannot overcommit: found by the dry run at time 0. */
	sweep_init(&sw, scen);
	ck_assert_int_eq(sweep_add_vary(&sw, "vms[0].vcpus=2,9", &err), 0);
	ck_assert_int_ne(sweep_prepare(&sw, &err), 0);
	ck_assert_msg(strstr(err.msg, "[sweep point 1: vms[0].vcpus=9]") != NULL, "%s",
	    err.msg);
	sweep_free(&sw);

	sweep_init(&sw, scen);
	ck_assert_int_eq(sweep_add_vary(&sw, "vms[0].bogus=1", &err), 0);
	ck_assert_int_ne(sweep_prepare(&sw, &err), 0);
	ck_assert_msg(strstr(err.msg, "unknown key 'bogus'") != NULL, "%s", err.msg);
	sweep_free(&sw);

	/* Columns: the metrics filter plus events, never events_per_sec. */
	sweep_init(&sw, scen);
	ck_assert_int_eq(sweep_add_vary(&sw, "vms[0].vcpus=1,2", &err), 0);
	ck_assert_int_eq(sweep_prepare(&sw, &err), 0);
	ck_assert_int_eq(sw.ncols, 3);
	ck_assert_str_eq(sw.cols[0], "events");
	ck_assert_str_eq(sw.cols[1], "g.it");
	ck_assert_str_eq(sw.cols[2], "g.l.wait_mean_ns");
	ck_assert_str_eq(sw.units[2], "ns");
	sweep_free(&sw);
	rm_rf(tdir);
	free(scen);
}
END_TEST

static struct sweep *
grid(const char *scen, int reps)
{
	struct sweep *sw = xmalloc(sizeof *sw);
	struct vs_err err;

	sweep_init(sw, scen);
	sw->reps = reps;
	ck_assert_int_eq(sweep_add_vary(sw, "vms[0].vcpus=1,2,3", &err), 0);
	ck_assert_int_eq(sweep_add_vary(sw,
	    "workloads.w.program[0].do[1].compute.mean=20ns:60ns:20ns", &err), 0);
	if (sweep_prepare(sw, &err))
		ck_abort_msg("%s", err.msg);
	return sw;
}

/* sweep_exec on jobs local workers: 0, -1 or SWEEP_REFUSED, *ran filled. */
static int
exec_rc(struct sweep *sw, const char *dir, int jobs, struct sweep_ran *ran,
    struct vs_err *err)
{
	struct exec_job job;
	struct exec_backend *be;
	int rc;

	mkdir(dir, 0777);
	sweep_job(sw, &job);
	be = exec_fork_new(&job, jobs);
	rc = sweep_exec(sw, dir, &be, 1, NULL, ran, err);
	be->ops->close(be);
	return rc;
}

static void
exec(struct sweep *sw, const char *dir, int jobs, size_t want_ran)
{
	struct vs_err err;
	struct sweep_ran ran = { 99, 99, 99 };

	if (exec_rc(sw, dir, jobs, &ran, &err))
		ck_abort_msg("%s: %s", dir, err.msg);
	ck_assert_int_eq(ran.ran, want_ran);
	ck_assert_int_eq(ran.missing, 0);
}

START_TEST(parallel_same_bytes_and_resume)
{
	char *scen = scratch(), *d1 = xasprintf("%s/j1", tdir), *d2 = xasprintf("%s/j2", tdir);
	char *r1, *r2, *r, *p, *line;
	struct sweep *sw = grid(scen, 2), *sw3;
	struct vs_err err;
	struct sweep_ran ran;
	int rows = 0;

	exec(sw, d1, 1, 9);
	exec(sw, d2, 2, 9);
	p = xasprintf("%s/results.csv", d1);
	r1 = slurp(p);
	free(p);
	p = xasprintf("%s/results.csv", d2);
	r2 = slurp(p);
	free(p);
	ck_assert_str_eq(r1, r2);	/* -j 2 gives the bytes of -j 1 */

	/* Grid order, and real values: g.it is 300 loops per vCPU. */
	line = strtok(r1, "\n");
	ck_assert_str_eq(line, "vms[0].vcpus,workloads.w.program[0].do[1].compute.mean,"
	    "events_mean,events_sd,events_ci95,g.it_mean,g.it_sd,g.it_ci95,"
	    "g.l.wait_mean_ns_mean,g.l.wait_mean_ns_sd,g.l.wait_mean_ns_ci95");
	while ((line = strtok(NULL, "\n")) != NULL) {
		char v[8], c[16];
		double ev, it;

		ck_assert_int_eq(sscanf(line, "%7[^,],%15[^,],%lf,%*[^,],%*[^,],%lf", v, c,
		    &ev, &it), 4);
		ck_assert_int_eq(atoi(v), 1 + rows / 3);
		ck_assert_int_eq(atoi(c), 20 + 20 * (rows % 3));
		ck_assert_msg(it == 300.0 * atoi(v), "%s", line);
		ck_assert(ev > 0);
		rows++;
	}
	ck_assert_int_eq(rows, 9);

	/* A lost point (a kill before its rename) is run again, nothing else. */
	p = xasprintf("%s/points/00004.csv", d2);
	ck_assert_int_eq(unlink(p), 0);
	free(p);
	exec(sw, d2, 2, 1);
	p = xasprintf("%s/results.csv", d2);
	r = slurp(p);
	ck_assert_str_eq(r, r2);
	free(r);
	exec(sw, d2, 2, 0);		/* all done: nothing runs, same results */
	r = slurp(p);
	ck_assert_str_eq(r, r2);
	free(r);
	free(p);

	/* Other arguments on the same folder are refused, and nothing changes. */
	sw3 = grid(scen, 3);
	ck_assert_int_eq(exec_rc(sw3, d2, 1, &ran, &err), SWEEP_REFUSED);
	ck_assert_msg(strstr(err.msg, "recorded 'reps 2', now 'reps 3'") != NULL, "%s",
	    err.msg);
	p = xasprintf("%s/results.csv", d2);
	r = slurp(p);
	ck_assert_str_eq(r, r2);
	free(r);
	free(p);

	sweep_free(sw3);
	free(sw3);
	sweep_free(sw);
	free(sw);
	free(r1);
	free(r2);
	rm_rf(tdir);
	free(d1);
	free(d2);
	free(scen);
}
END_TEST

/* Files in DIR/points (finished or not). */
static int
count_points(const char *dir)
{
	char *cmd = xasprintf("ls '%s/points' | grep -c '^[0-9]*\\.csv$'", dir);
	FILE *f = popen(cmd, "r");
	int n = -1;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%d", &n), 1);
	pclose(f);
	free(cmd);
	return n;
}

START_TEST(shards_and_merge)
{
	char *scen = scratch(), *whole = xasprintf("%s/whole", tdir);
	char *shared = xasprintf("%s/shared", tdir), *d[3], *p, *r0, *r;
	struct sweep *sw = grid(scen, 2), *m;
	struct sweep_ran ran;
	struct vs_err err;
	int k;

	exec(sw, whole, 2, 9);
	p = xasprintf("%s/results.csv", whole);
	r0 = slurp(p);
	free(p);

	/* Shards K/3 share out the grid i mod 3 = K-1: 3 points each. */
	for (k = 0; k < 3; k++) {
		sw->shard = k;
		sw->nshards = 3;
		d[k] = xasprintf("%s/s%d", tdir, k + 1);
		ck_assert_int_eq(exec_rc(sw, d[k], 2, &ran, &err), 0);
		ck_assert_int_eq(ran.share, 3);
		ck_assert_int_eq(ran.ran, 3);
		ck_assert_int_eq(ran.missing, 6);
		ck_assert_int_eq(count_points(d[k]), 3);
		p = xasprintf("%s/points/%05d.csv", d[k], k + 3);
		ck_assert_int_eq(access(p, F_OK), 0);
		free(p);
		p = xasprintf("%s/results.csv", d[k]);
		ck_assert_int_ne(access(p, F_OK), 0);	/* not while points are missing */
		free(p);

		/* The same shards into one shared folder: the last builds results.csv. */
		ck_assert_int_eq(exec_rc(sw, shared, 1, &ran, &err), 0);
		ck_assert_int_eq(ran.missing, (size_t)(6 - 3 * k));
	}
	p = xasprintf("%s/results.csv", shared);
	r = slurp(p);
	ck_assert_str_eq(r, r0);
	free(r);
	free(p);

	/* Merge the separate shard folders: the grid comes from sweep.meta. */
	ck_assert_int_eq(sweep_from_dir(m = xmalloc(sizeof *m), d[0], &err), 0);
	ck_assert_int_eq(sweep_prepare(m, &err), 0);
	ck_assert_int_eq(sweep_merge(m, d[0], d, 2, &ran, &err), -1);	/* 3/3 missing */
	ck_assert_msg(strstr(err.msg, "3 point(s) missing in every folder, first point 2")
	    != NULL, "%s", err.msg);
	ck_assert_int_eq(sweep_merge(m, d[0], d, 3, &ran, &err), 0);
	ck_assert_int_eq(ran.ran, 3);	/* 3/3's; the failed try copied 2/3's */
	p = xasprintf("%s/results.csv", d[0]);
	r = slurp(p);
	ck_assert_str_eq(r, r0);
	free(r);
	free(p);
	sweep_free(m);
	free(m);

	/* A folder of another sweep is refused. */
	m = grid(scen, 3);
	ck_assert_int_eq(exec_rc(m, d[1], 1, &ran, &err), SWEEP_REFUSED);
	ck_assert_int_eq(sweep_merge(m, whole, d, 1, &ran, &err), SWEEP_REFUSED);
	sweep_free(m);
	free(m);

	for (k = 0; k < 3; k++)
		free(d[k]);
	sweep_free(sw);
	free(sw);
	free(r0);
	rm_rf(tdir);
	free(whole);
	free(shared);
	free(scen);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("sweep");
	TCase *tc = tcase_create("grid");

	tcase_add_test(tc, lists);
	tcase_add_test(tc, flow_values);
	tcase_add_test(tc, plot_outputs_checked);
	tcase_add_test(tc, ranges);
	tcase_add_test(tc, products);
	tcase_add_test(tc, errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("run");
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, prepare_checks_every_point);
	tcase_add_test(tc, parallel_same_bytes_and_resume);
	tcase_add_test(tc, shards_and_merge);
	suite_add_tcase(s, tc);
	return tu_main(s);
}
