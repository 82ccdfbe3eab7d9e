/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_files.c - a lockbench measurement written as a validation case
 * (validation/README.md's formats): the measured table with its
 * provenance, the scenario of this machine, one scenario per row, the case
 * (one declared calibration row, every other row a prediction), and the
 * calibration of the one unknown.
 *
 * What the scenario takes from the machine and from lockbench is a priori:
 * the topology and line costs (machine probe), the scheduler and HZ of the
 * running kernel, lockbench's compute and hold plus its clock reads
 * (calibrated at its start, not taken from any measured row).  The only
 * measured value the fit reads is the calibration row's.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hv/sched.h"
#include "lab.h"
#include "registry.h"
#include "yparam.h"

/* Rows of the measured table that carry a wait: contended ones. */
static int
has_wait(const struct lab_row *r)
{
	return r->threads >= 2;
}

static double
col_max(const struct lab_bench *b, enum lab_col c)
{
	double m = 0;
	int i;

	for (i = 0; i < b->nrows; i++)
		if (b->rows[i].s[c].max > m)
			m = b->rows[i].s[c].max;
	return m;
}

static double
col_min(const struct lab_bench *b, enum lab_col c)
{
	double m = INFINITY;
	int i;

	for (i = 0; i < b->nrows; i++)
		if (b->rows[i].s[c].min < m)
			m = b->rows[i].s[c].min;
	return m;
}

/* The provenance, as '# ' lines (the first is the table's source). */
static void
provenance(FILE *o, const struct lab_case *lc, const struct lab_host *h,
    const struct lab_bench *b)
{
	char *vm = lab_host_vm_text(h);
	int i, nbusy = 0;

	fprintf(o, "# source: `vlocksim lab` on %s, %s: lockbench (bench/lab/lockbench.c) run "
	    "on this machine; raw data lockbench.csv, lockbench-threads.csv\n", h->hostname,
	    lc->date);
	fprintf(o, "# machine: %s, %d CPUs online; kernel %s (%s); %s\n", h->cpu, h->cpus,
	    h->kernel, h->kernel_build, vm);
	if (lc->setting != NULL)
		fprintf(o, "# inside: %s\n# load before: not sampled (a guest)\n", lc->setting);
	else
		fprintf(o, "# load before (1-min load average, lockbench --sample): %.2f; other "
		    "processes' CPU %.1f%%, steal %.1f%% over the sample\n", lc->idle.load1,
		    100 * lc->idle.others, 100 * lc->idle.steal);
	fprintf(o, "# load during (1-min load average at each run's end, lockbench's own "
	    "threads included): up to %.2f; other processes' CPU up to %.1f%%, steal up to "
	    "%.1f%% of the CPU time in a run\n", col_max(b, LC_LOAD1), 100 * col_max(b, LC_OTHERS),
	    100 * col_max(b, LC_STEAL));
	fprintf(o, "# lockbench: compute %g ns, hold %g ns, plus its clock reads (%.2f ns "
	    "each: 1 in compute, 2 in the section); %g s per run after %g s of warm-up, %d "
	    "replications interleaved; busy loop %.3f iterations/ns at the start (median "
	    "trial %.3f), recalibrated before each run: %.3f to %.3f\n",
	    b->compute_ns, b->hold_ns, b->clock_ns, b->duration, b->warmup, b->reps,
	    b->iters_per_ns, b->iters_per_ns_median, col_min(b, LC_RATE), col_max(b, LC_RATE));
	fprintf(o, "# ops_per_sec: acquisitions per second, all threads; wait_mean_ns: from "
	    "before the acquire call to acquired, mean; rows tN: N threads\n");
	fprintf(o, "# busy rows (a replication where other processes took more than %.0f%% "
	    "of the CPU, or the host stole more than %.0f%%):", 100 * lc->max_others,
	    100 * lc->max_steal);
	for (i = 0; i < b->nrows; i++)
		if (b->rows[i].busy) {
			fprintf(o, " t%d/%s", b->rows[i].threads, b->rows[i].lock);
			nbusy++;
		}
	fprintf(o, "%s\n", nbusy ? "" : " none");
	nbusy = 0;
	fprintf(o, "# packed rows (a replication where more than %.0f%% of the CPU time was idle "
	    "while the threads waited runnable more than %.0f%% of theirs: the kernel did not "
	    "spread them):", 100 * LAB_PACKED, 100 * LAB_PACKED);
	for (i = 0; i < b->nrows; i++)
		if (b->rows[i].packed) {
			fprintf(o, " t%d/%s", b->rows[i].threads, b->rows[i].lock);
			nbusy++;
		}
	fprintf(o, "%s\n", nbusy ? "" : " none");
	free(vm);
}

static void
measured_csv(FILE *o, const struct lab_case *lc, const struct lab_host *h,
    const struct lab_bench *b)
{
	int i;

	provenance(o, lc, h, b);
	fprintf(o, "setup,variant,metric,unit,mean,sd,n\n");
	for (i = 0; i < b->nrows; i++) {
		const struct lab_row *r = &b->rows[i];

		fprintf(o, "t%d,%s,ops_per_sec,1/s,%.1f,%.1f,%d\n", r->threads, r->lock,
		    r->s[LC_OPS].mean, r->s[LC_OPS].sd, r->s[LC_OPS].n);
	}
	for (i = 0; i < b->nrows; i++) {
		const struct lab_row *r = &b->rows[i];

		if (has_wait(r))
			fprintf(o, "t%d-wait,%s,wait_mean_ns,ns,%.1f,%.1f,%d\n", r->threads,
			    r->lock, r->s[LC_WAIT].mean, r->s[LC_WAIT].sd, r->s[LC_WAIT].n);
	}
}

/* Everything lockbench measured, one row per lock and thread count. */
static void
table_csv(FILE *o, const struct lab_case *lc, const struct lab_host *h,
    const struct lab_bench *b)
{
	static const enum lab_col cols[] = { LC_OPS, LC_JAIN, LC_MIN_SHARE, LC_MAX_SHARE,
		LC_WAIT, LC_HO_MEAN, LC_HO_P50, LC_HO_P99, LC_HOLD, LC_DELAY, LC_CS, LC_IVCS };
	static const char *const names[] = { "ops_per_sec", "jain", "min_share", "max_share",
		"wait_mean_ns", "handover_mean_ns", "handover_p50_ns", "handover_p99_ns",
		"hold_mean_ns", "run_delay_share", "cs_per_sec", "ivcs_per_sec" };
	size_t k;
	int i;

	(void)lc;
	(void)h;
	fprintf(o, "lock,model,threads,reps");
	for (k = 0; k < sizeof cols / sizeof cols[0]; k++)
		fprintf(o, ",%s,%s_sd", names[k], names[k]);
	fprintf(o, ",others_cpu_max,steal_max,idle_cpu_max,busy,packed,valid\n");
	for (i = 0; i < b->nrows; i++) {
		const struct lab_row *r = &b->rows[i];

		fprintf(o, "%s,\"%s\",%d,%d", r->lock, r->model, r->threads, r->s[LC_OPS].n);
		for (k = 0; k < sizeof cols / sizeof cols[0]; k++)
			fprintf(o, ",%.6g,%.6g", r->s[cols[k]].mean, r->s[cols[k]].sd);
		fprintf(o, ",%.4f,%.4f,%.4f,%d,%d,%d\n", r->s[LC_OTHERS].max, r->s[LC_STEAL].max,
		    r->s[LC_IDLE].max, r->busy, r->packed, !r->invalid);
	}
}

/* Whether the host's scheduler has parameter name (EEVDF's base_slice): asked
 * of its ops table, not of its name. */
static int
sched_takes(const char *sched, const char *name)
{
	const struct sched_ops *o = registry_sched(sched);

	return o != NULL && (vs_param_find(o->params, name) != NULL ||
	    vs_param_find(o->params_more, name) != NULL);
}

static void
scenario_yaml(FILE *o, const struct lab_case *lc, const struct lab_host *h,
    const struct lab_bench *b)
{
	const struct lab_row *r0 = &b->rows[0];
	char *vm = lab_host_vm_text(h);
	/* lockbench.c loop_overhead: the lock is held from t2 - t1 and the
	 * clock read before t1; the rest of an iteration is outside it */
	const double hold = b->section_ns + b->clock_ns;

	fprintf(o, "# vlocksim lab on %s, %s: lockbench's loop as the model runs it.\n"
	    "# Written by `vlocksim lab`; case.yaml sets vms[0].vcpus (the threads)\n"
	    "# and vms[0].lock per row; row-tN-LOCK.yaml is each row as a scenario.\n",
	    h->hostname, lc->date);
	fprintf(o, "# The host: kernel %s runs the threads under %s (6.6+: EEVDF, before:\n"
	    "# CFS), CONFIG_HZ %d (%s)%s.  Bare metal as the model knows it (kind none):\n"
	    "# the threads are the VM's vCPUs, the machine's CPUs its pCPUs.\n", h->kernel,
	    lab_host_scheduler(h), h->hz ? h->hz : 250, h->hz ? h->hz_source :
	    "not found: Debian's 250", lab_host_delay_dequeue(h) ?
	    ", DELAY_DEQUEUE on (6.12+ kernel/sched/features.h)" : "");
	fprintf(o, "# This machine is %s;\n# a host above it is not modelled (steal: "
	    "measured.csv's header).\n", vm);
	free(vm);
	fprintf(o, "name: %s\nseed: 1\nreps: %d\nuntil: duration\nduration: %gms\n",
	    lc->name, lc->sim_reps, lc->sim_duration_ms);
	/* the model leaves out what lockbench left out: its threads' start */
	if (b->warmup > 0)
		fprintf(o, "warmup: %gms                  # lockbench's --warmup (lockbench.csv "
		    "warmup_s), then the duration\n", b->warmup * 1e3);
	fprintf(o, "machine: machine.yaml          # vlocksim machine probe, at the lab's start\n"
	    "calibration: calibrated.yaml   # the fit of calibration.yaml\n");
	fprintf(o, "hypervisor:\n  kind: none\n  scheduler: %s\n", lab_host_scheduler(h));
	if (sched_takes(lab_host_scheduler(h), "base_slice"))
		fprintf(o, "  params: {hz: %d, base_slice: %s%s}\n", h->hz ? h->hz : 250,
		    lab_host_base_slice(h), lab_host_delay_dequeue(h) ? ", delay_dequeue: true" :
		    "");
	else
		fprintf(o, "  params: {hz: %d}\n", h->hz ? h->hz : 250);
	fprintf(o, "vms:\n  - {name: host, vcpus: %d, lock: %s, workload: bench}\n",
	    r0->threads, r0->model);
	fprintf(o, "workloads:\n  bench:\n"
	    "    # lockbench's shared counter, owner flag and last release time: one line\n"
	    "    locks: {l: {cs_lines: 1}}\n    program:\n      - loop: forever\n"
	    "        do:\n");
	if (b->loop_ns > 0 && b->section_ns > 0 && !(b->loop_ns > hold))
		/* clock_ns is timed apart from the loop: on a busy machine the two
		 * can disagree, and a negative compute is no measurement */
		fprintf(o, "          # lockbench's loop (%.2f ns) was not longer than its section "
		    "(%.2f ns)\n          # and a clock read (%.2f ns): noise of a busy machine; "
		    "the nominal timing instead\n", b->loop_ns, b->section_ns, b->clock_ns);
	if (b->loop_ns > hold && b->section_ns > 0) {
		fprintf(o, "          # lockbench's loop measured with no lock: %.2f ns an iteration,\n"
		    "          # %.2f ns from t1 to t2 (compute %g ns, hold %g ns asked)\n",
		    b->loop_ns, b->section_ns, b->compute_ns, b->hold_ns);
		fprintf(o, "          - compute: %.2fns   # the iteration - the section\n",
		    b->loop_ns - hold);
		fprintf(o, "          - acquire: l\n");
		fprintf(o, "          - compute: %.2fns   # t2 - t1 + the clock read (%.2f ns) "
		    "before t1\n", hold, b->clock_ns);
	} else {
		fprintf(o, "          - compute: %.2fns   # compute %g ns + 1 clock read (%.2f ns)\n",
		    b->compute_ns + b->clock_ns, b->compute_ns, b->clock_ns);
		fprintf(o, "          - acquire: l\n");
		fprintf(o, "          - compute: %.2fns   # hold %g ns + 2 clock reads\n",
		    b->hold_ns + 2 * b->clock_ns, b->hold_ns);
	}
	fprintf(o, "          - release: l\n          - count: ops\n");
	fprintf(o, "metrics: [host.ops_per_sec, host.l.wait_mean_ns, host.l.hold_mean_ns,\n"
	    "          host.l.contended_share, ctx_switches]\n");
}

static void
row_yaml(FILE *o, const struct lab_case *lc, const struct lab_row *r)
{
	fprintf(o, "# lockbench's %s with %d threads, row t%d/%s of case.yaml:\n"
	    "#   vlocksim run row-t%d-%s.yaml\n", r->lock, r->threads, r->threads, r->lock,
	    r->threads, r->lock);
	fprintf(o, "include: scenario.yaml\nname: %s-t%d-%s\n", lc->name, r->threads, r->lock);
	fprintf(o, "vms:\n  - {name: host, vcpus: %d, lock: %s, workload: bench}\n", r->threads,
	    r->model);
}

static int
uniq_threads(const struct lab_bench *b, int *out)
{
	int i, k, n = 0;

	for (i = 0; i < b->nrows; i++) {
		for (k = 0; k < n && out[k] != b->rows[i].threads; k++)
			;
		if (k == n)
			out[n++] = b->rows[i].threads;
	}
	return n;
}

static void
case_yaml(FILE *o, const struct lab_case *lc, const struct lab_host *h,
    const struct lab_bench *b)
{
	int *thr = xcalloc((size_t)b->nrows + 1, sizeof *thr), nt = uniq_threads(b, thr);
	int i, k;

	fprintf(o, "# vlocksim lab on %s, %s: lockbench's locks x threads measured here\n"
	    "# (measured.csv; raw data lockbench.csv).  One calibration row, declared before\n"
	    "# the fit: t%d/%s, whose throughput fits the line transfer between two cores\n"
	    "# (calibration.yaml); every other row, and every wait row, is a prediction.\n",
	    h->hostname, lc->date, lc->cal_threads, lc->cal_lock);
	fprintf(o, "name: %s\ntitle: \"lockbench on %s (%s, %d CPUs, kernel %s), calibrated on "
	    "t%d/%s\"\n", lc->name, h->hostname, h->cpu, h->cpus, h->kernel, lc->cal_threads,
	    lc->cal_lock);
	fprintf(o, "scenario: \"scenario.yaml\"\nmeasured: \"measured.csv\"\n"
	    "metric: host.ops_per_sec\ntolerance: {rel: %g, or_sd: true}\nreps: %d\nsetups:\n",
	    lc->tol_rel, lc->sim_reps);
	for (k = 0; k < nt; k++)
		fprintf(o, "  t%d: [\"vms[0].vcpus=%d\"]\n", thr[k], thr[k]);
	for (k = 0; k < nt; k++)
		if (thr[k] >= 2)
			fprintf(o, "  t%d-wait: [\"vms[0].vcpus=%d\"]\n", thr[k], thr[k]);
	fprintf(o, "variants:\n");
	for (i = 0; i < b->nrows; i++) {
		for (k = 0; k < i && strcmp(b->rows[k].lock, b->rows[i].lock) != 0; k++)
			;
		if (k == i)
			fprintf(o, "  %s: [\"vms[0].lock=%s\"]\n", b->rows[i].lock, b->rows[i].model);
	}
	fprintf(o, "rows:\n  - {row: t%d/%s, role: calibration}\n", lc->cal_threads,
	    lc->cal_lock);
	for (i = 0; i < b->nrows; i++)
		if (!(b->rows[i].threads == lc->cal_threads &&
		    strcmp(b->rows[i].lock, lc->cal_lock) == 0))
			fprintf(o, "  - {row: t%d/%s, role: prediction}\n", b->rows[i].threads,
			    b->rows[i].lock);
	for (i = 0; i < b->nrows; i++)
		if (has_wait(&b->rows[i]))
			fprintf(o, "  - {row: t%d-wait/%s, role: prediction, metric: "
			    "host.l.wait_mean_ns}\n", b->rows[i].threads, b->rows[i].lock);
	free(thr);
}

static void
calibration_yaml(FILE *o, const struct lab_case *lc, const struct lab_host *h,
    const struct lab_bench *b)
{
	/* the fit's range; a probe on a loaded machine can measure past it */
	const double lo = 1, hi = 2000;
	char txt[32];
	double start;
	int plausible;

	/* calibrate wants the start strictly inside, as written (%.4g): a probe
	 * at or past an edge (a loaded machine) is no plausible start */
	snprintf(txt, sizeof txt, "%.4g", lc->line_ns);
	start = strtod(txt, NULL);
	plausible = start > lo && start < hi;
	if (!plausible)
		start = 100;

	(void)h;
	(void)b;

	fprintf(o, "# The lab's one unknown, fitted on its declared calibration row\n"
	    "# (t%d/%s of case.yaml): the cost of moving a cache line between two\n"
	    "# cores, which a contended hand-over pays twice (the releaser's store,\n"
	    "# the waiter's miss; models/README.md \"Cache-line cost model\").  It\n"
	    "# starts from the probe's ping-pong (%s).\n", lc->cal_threads, lc->cal_lock,
	    plausible ? "machine.yaml" : "none plausible: 100 ns");
	fprintf(o, "name: %s\ncases: [\"case.yaml\"]\nparams:\n"
	    "  - {path: machine.costs.line_socket, unit: ns, min: %g, max: %g, start: %.4g}\n"
	    "reps: %d\nmax_iter: 40\ntol: 0.001\noutput: \"calibrated.yaml\"\n", lc->name,
	    lo, hi, start, lc->sim_reps);
}

/* The fit's start, until `vlocksim calibrate` replaces the file. */
static void
calibrated_yaml(FILE *o, const struct lab_case *lc, const struct lab_host *h,
    const struct lab_bench *b)
{
	(void)h;
	(void)b;
	fprintf(o, "# The fit's start (calibration.yaml), until `vlocksim calibrate` "
	    "replaces it.\nset:\n  - \"machine.costs.line_socket=%.4gns\"\n",
	    lc->line_ns > 0 ? lc->line_ns : 100);
}

/* One file of dir, written whole by fn. */
static int
write_one(const char *dir, const char *file, void (*fn)(FILE *, const struct lab_case *,
    const struct lab_host *, const struct lab_bench *), const struct lab_case *lc,
    const struct lab_host *h, const struct lab_bench *b, const struct lab_row *row,
    struct vs_err *err)
{
	char *buf = NULL, *path = xasprintf("%s/%s", dir, file);
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	int rc;

	if (o == NULL)
		vs_fatal("open_memstream failed");
	if (row != NULL)
		row_yaml(o, lc, row);
	else
		fn(o, lc, h, b);
	fclose(o);
	rc = vs_write_file_atomic(path, buf, len, err);
	free(buf);
	free(path);
	return rc;
}

int
lab_write_measured(const char *dir, const char *prefix, const struct lab_case *lc,
    const struct lab_host *h, const struct lab_bench *b, struct vs_err *err)
{
	char *m = xasprintf("%s-measured.csv", prefix), *t = xasprintf("%s-lab-table.csv", prefix);
	int rc = write_one(dir, m, measured_csv, lc, h, b, NULL, err) ||
	    write_one(dir, t, table_csv, lc, h, b, NULL, err) ? -1 : 0;

	free(m);
	free(t);
	return rc;
}

int
lab_write_case(const char *dir, const struct lab_case *lc, const struct lab_host *h,
    const struct lab_bench *b, struct vs_err *err)
{
	static const struct {
		const char *file;
		void (*fn)(FILE *, const struct lab_case *, const struct lab_host *,
		    const struct lab_bench *);
	} files[] = {
		{ "measured.csv", measured_csv }, { "lab-table.csv", table_csv },
		{ "scenario.yaml", scenario_yaml }, { "case.yaml", case_yaml },
		{ "calibration.yaml", calibration_yaml }, { "calibrated.yaml", calibrated_yaml },
	};
	size_t k;
	int i, rc = 0;

	if (lab_bench_find(b, lc->cal_lock, lc->cal_threads) == NULL)
		return vs_errf(err, NULL, 0, 0, "vlocksim lab: --calibrate %s/t%d: lockbench did "
		    "not run that lock with that many threads", lc->cal_lock, lc->cal_threads);
	for (k = 0; rc == 0 && k < sizeof files / sizeof files[0]; k++)
		rc = write_one(dir, files[k].file, files[k].fn, lc, h, b, NULL, err);
	for (i = 0; rc == 0 && i < b->nrows; i++) {
		char *f = xasprintf("row-t%d-%s.yaml", b->rows[i].threads, b->rows[i].lock);

		rc = write_one(dir, f, NULL, lc, h, b, &b->rows[i], err);
		free(f);
	}
	return rc;
}
