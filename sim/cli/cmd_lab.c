/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_lab.c - `vlocksim lab`: a measurement of this machine next to the
 * model's prediction of it.
 *
 *   1. wait until the machine is quiet (1-min load, other processes' CPU and
 *      steal over a 1 s sample), or refuse (--force measures anyway and the
 *      rows say so);
 *   2. `machine probe` into machine.yaml;
 *   3. lockbench over locks x thread counts x replications (lockbench.csv,
 *      lockbench-threads.csv), optionally one `perf sched` recording;
 *   4. the validation case (lab_files.c): measured.csv with its provenance,
 *      scenario.yaml (kind none, the running kernel's scheduler), a scenario
 *      per row, case.yaml, calibration.yaml;
 *   5. `calibrate` on the one declared row, `validate` the case: validation.*,
 *      NAME.png (measured +- sd in the tolerance band beside predicted),
 *      scatter.png; lab.txt, the table with what lockbench saw besides.
 *
 * A command rather than a script: it reuses machine probe, calibrate and
 * validate in-process (their plots, reports and honesty rules), refuses bad
 * options with exit 2 before anything runs, and writes its folder whole or
 * not at all; lockbench stays a program of its own, so that it can run
 * where vlocksim does not (a guest's initramfs).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calibrate.h"
#include "cmd.h"
#include "lab.h"
#include "pool.h"
#include "report.h"
#include "units.h"
#include "validate.h"

struct lab_args {
	const char *out, *name, *lockbench, *cal;
	double probe_time, sim_duration, tol;
	double max_load, max_others, max_steal, wait;
	long long sim_reps;
	struct pool_args pool;	/* -j */
	struct limit_args limits;
	int force, perf_sched;
	char **bench;		/* after --: lockbench's own options */
	int nbench;
};

#define A(f) OPT_AT(struct lab_args, f)
static const struct opt_decl lab_opts[] = {
	{ "out", 0, "DIR", OPT_STR, A(out), .def = "out/lab",
	  .help = "the lab's folder: lab.txt, validation.{txt,csv,json}, "
	  "NAME.png, scatter.png, measured.csv, case.yaml, scenario.yaml, row-tN-LOCK.yaml, "
	  "calibration.yaml, calibrated.yaml, machine.yaml, lockbench*.csv",
	  .man = "Written whole or not at all; the raw measurement is kept (and named) when "
	  "a later step fails." },
	{ "name", 0, "NAME", OPT_STR, A(name), .def = "lab", .help = "the case's name" },
	{ "calibrate", 0, "LOCK/tN", OPT_STR, A(cal),
	  .help = "the one row the line transfer is fitted on (default ticket with as many "
	  "threads as CPUs); every other row is predicted" },
	{ "sim-duration", 0, "T", OPT_TIME, A(sim_duration), .lo = 1e6, .hi = 3600e9,
	  .def = "200ms", .help = "simulated time per replication of a row" },
	{ "sim-reps", 0, "N", OPT_INT, A(sim_reps), .min = 1, .max = 1000,
	  .def = "3", .help = "the model's replications per row" },
	{ "tolerance", 0, "REL", OPT_NUM, A(tol), .lo = 0.001, .hi = 100,
	  .def = "0.25", .help = "the case's relative tolerance" },
	{ "max-load", 0, "L", OPT_NUM, A(max_load), .lo = 0, .hi = 1e6,
	  .help = "the quiet machine's 1-min load at most (default a quarter of the CPUs, "
	  "at least 0.5)" },
	{ "max-others", 0, "F", OPT_NUM, A(max_others), .lo = 0, .hi = 1,
	  .def = "0.1", .help = "other processes' share of all CPUs at most" },
	{ "max-steal", 0, "F", OPT_NUM, A(max_steal), .lo = 0, .hi = 1,
	  .def = "0.02", .help = "steal at most" },
	{ "wait", 0, "S", OPT_NUM, A(wait), .lo = 0, .hi = 3600,
	  .def = "120", .help = "seconds to wait for a quiet machine; still busy, lab "
	  "refuses (exit 1) unless --force" },
	{ "force", 0, NULL, OPT_FLAG, A(force),
	  .help = "measure a busy machine anyway; runs in which others or steal passed the "
	  "limits are listed as busy rows" },
	{ "probe-time", 0, "T", OPT_TIME, A(probe_time), .lo = 1e8, .hi = 60e9,
	  .def = "2s", .help = "machine probe's budget" },
	{ "perf-sched", 0, NULL, OPT_FLAG, A(perf_sched),
	  .help = "also `perf sched record` one run per lock at the most threads "
	  "(perf-sched-LOCK.txt: perf sched latency)" },
	{ "lockbench", 0, "PATH", OPT_STR, A(lockbench),
	  .help = "the lockbench to run (default: the one installed beside vlocksim, or "
	  "the build tree's)" },
	CMD_JOBS_OPT(struct lab_args, "the model's rows"),
	CMD_LIMIT_OPTS(struct lab_args),
	{ NULL }
};
#undef A

static int
parse_lab_args(int argc, char **argv, void *args)
{
	struct lab_args *o = args;

	o->max_load = -1;	/* computed in run_lab: a quarter of the CPUs, at least 0.5 */
	o->pool.jobs = pool_default_workers();
	return opt_parse_passed(&cmd_lab_entry, argc, argv, o, "lockbench's", &o->bench,
	    &o->nbench);
}

/* lockbench, its options after --, then extra (NULL-terminated, malloc'd). */
static char **
bench_argv(const char *lockbench, const struct lab_args *o, const char *const *extra)
{
	char **v = xcalloc((size_t)o->nbench + 16, sizeof *v);
	int n = 0, i;

	v[n++] = xstrdup(lockbench);
	for (i = 0; i < o->nbench; i++)
		v[n++] = xstrdup(o->bench[i]);
	for (i = 0; extra != NULL && extra[i] != NULL; i++)
		v[n++] = xstrdup(extra[i]);
	return v;
}

static void
free_argv(char **v)
{
	int i;

	for (i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

static int
busy(const struct lab_args *o, const struct lab_idle *s)
{
	return s->load1 > o->max_load || s->others > o->max_others || s->steal > o->max_steal;
}

/* Wait for a quiet machine; 1 if it stayed busy. */
static int
wait_quiet(const char *lockbench, const struct lab_args *o, struct lab_idle *s,
    struct vs_err *err)
{
	time_t t0 = time(NULL), said = 0;

	for (;;) {
		if (lab_sample(lockbench, 1, s, err))
			return -1;
		if (!busy(o, s))
			return 0;
		if (difftime(time(NULL), t0) >= o->wait)
			return 1;
		if (said == 0 || difftime(time(NULL), said) >= 15) {
			fprintf(stderr, "vlocksim lab: waiting for a quiet machine: load %.2f (limit "
			    "%.2f), others %.0f%% (%.0f%%), steal %.1f%% (%.1f%%)\n", s->load1,
			    o->max_load, 100 * s->others, 100 * o->max_others, 100 * s->steal,
			    100 * o->max_steal);
			said = time(NULL);
		}
		sleep(4);
	}
}

/* lockbench --dry-run: the seconds the runs will take. */
static int
dry_run(char **argv, double *secs, struct vs_err *err)
{
	char *text, *nl;
	int runs;

	*secs = 0;
	if (lab_capture(argv, &text, err))
		return -1;
	if ((nl = strchr(text, '\n')) == NULL || sscanf(nl + 1, "%d,%lf", &runs, secs) != 2)
		*secs = 0;
	free(text);
	return 0;
}

/* One `perf sched record` of lockbench per lock at the most threads, then
 * `perf sched latency` of it into perf-sched-LOCK.txt. */
static void
perf_sched(const char *stage, const char *lockbench, const struct lab_args *o,
    const struct lab_bench *b)
{
	char *data = xasprintf("%s/perf.data", stage), top[16];
	int i, k, t = 0;

	for (i = 0; i < b->nrows; i++)
		if (b->rows[i].threads > t)
			t = b->rows[i].threads;
	snprintf(top, sizeof top, "%d", t);
	for (i = 0; i < b->nrows; i++) {
		const char *rec[] = { "perf", "sched", "record", "-q", "-o", data, "--", NULL };
		const char *extra[] = { "--locks", b->rows[i].lock, "--threads", top, "--duration",
			"0.5", "--warmup", "0.1", "--reps", "1", NULL };
		const char *lat[] = { "perf", "sched", "latency", "-i", data, NULL };
		char **bv, **v, *txt, *null = xasprintf("%s/perf.out", stage);
		struct vs_err err;
		int n = 0, j;

		for (k = 0; k < i && strcmp(b->rows[k].lock, b->rows[i].lock) != 0; k++)
			;
		if (k < i) {
			free(null);
			continue;
		}
		bv = bench_argv(lockbench, o, extra);
		v = xcalloc(64 + (size_t)o->nbench, sizeof *v);
		for (j = 0; rec[j] != NULL; j++)
			v[n++] = (char *)rec[j];
		for (j = 0; bv[j] != NULL; j++)
			v[n++] = bv[j];
		txt = xasprintf("%s/perf-sched-%s.txt", stage, b->rows[i].lock);
		if (lab_spawn(v, null, &err) || lab_spawn((char *const *)lat, txt, &err)) {
			fprintf(stderr, "vlocksim lab: perf sched for %s: %s (skipped)\n",
			    b->rows[i].lock, err.msg);
			unlink(txt);
		}
		unlink(null);
		free(null);
		free(txt);
		free(v);
		free_argv(bv);
	}
	unlink(data);
	free(data);
	data = xasprintf("%s/perf.data.old", stage);
	unlink(data);
	free(data);
}

/* lab.txt: provenance, the fit, then per row measured, predicted, error and
 * what lockbench saw besides. */
static char *
lab_text(const char *measured_csv, const struct calib *cal, double probe_line,
    const struct vreport *rep, const struct lab_bench *b)
{
	FILE *m = fopen(measured_csv, "r");
	size_t len = 0;
	char *s = NULL, line[1024];
	FILE *f = open_memstream(&s, &len);
	char probe[32];
	int i;

	if (f == NULL)
		vs_fatal("out of memory");
	snprintf(probe, sizeof probe, probe_line > 0 ? "%.4g ns" : "none", probe_line);
	while (m != NULL && fgets(line, sizeof line, m) != NULL && line[0] == '#')
		fputs(line, f);
	if (m != NULL)
		fclose(m);
	fprintf(f, "# fit: %s = %.4g ns (probe: %s), objective %.3g after %d evaluations\n",
	    cal->params[0].paths[0], cal->params[0].value, probe, cal->objective, cal->evals);
	fprintf(f, "%-18s %-11s %12s %10s %12s %8s %-6s %6s %6s %9s %6s\n", "row", "role",
	    "measured", "sd", "predicted", "error", "within", "flag", "jain", "ho_p50_ns",
	    "delay");
	for (i = 0; i < rep->n; i++) {
		const struct vresult *r = &rep->r[i];
		const struct lab_row *lr = NULL;
		char lock[64];
		int thr;

		if (sscanf(r->row, "t%d%*[^/]/%63s", &thr, lock) == 2 ||
		    sscanf(r->row, "t%d/%63s", &thr, lock) == 2)
			lr = lab_bench_find(b, lock, thr);
		fprintf(f, "%-18s %-11s %12.5g %10.3g %12.5g %+7.1f%% %-6s %6s", r->row,
		    vrole_name(r->role), r->measured, r->measured_sd, r->predicted,
		    100 * r->rel_error, r->within ? "yes" : "no", lr == NULL ? "" :
		    lr->busy ? "BUSY" : lr->packed ? "PACKED" : "");
		if (lr != NULL)
			fprintf(f, " %6.3f %9.0f %6.3f\n", lr->s[LC_JAIN].mean, lr->s[LC_HO_P50].mean,
			    lr->s[LC_DELAY].mean);
		else
			fputc('\n', f);
	}
	fclose(f);
	return s;
}

/* What a lab run holds from its first step to its last. */
struct lab_run {
	struct lab_args o;
	struct lab_host h;
	struct lab_case lc;
	struct lab_bench b;
	struct calib cal;
	struct vcase vc;
	struct vreport rep;
	char *lockbench, *models, *stage;
	char cal_lock[64], date[32];
	double line, secs;	/* the probe's line transfer; lockbench's own estimate */
	int quiet_rc, measured;	/* still busy after --wait; lockbench.csv written */
	int sim_rc;		/* the fit's or the predictions' failure (RUN_STOPPED: a limit) */
	time_t now;
};

/* --calibrate, lockbench and its options: bad ones fail before any waiting or measuring. */
static int
lab_check(struct lab_run *r, struct vs_err *err)
{
	const char *dry[] = { "--dry-run", NULL };
	char **bv;
	int rc;

	snprintf(r->cal_lock, sizeof r->cal_lock, "ticket");
	if (r->o.cal != NULL && (sscanf(r->o.cal, "%63[^/]/t%d", r->cal_lock,
	    &r->lc.cal_threads) != 2 || r->lc.cal_threads < 1))
		return vs_errf(err, NULL, 0, 0, "vlocksim lab: --calibrate %s: LOCK/tN, e.g. "
		    "ticket/t%d", r->o.cal, r->h.cpus);
	r->lc.cal_lock = r->cal_lock;
	if ((r->lockbench = lab_lockbench_find(r->o.lockbench)) == NULL)
		return vs_errf(err, NULL, 0, 0, "vlocksim lab: lockbench not found%s%s (it is "
		    "built by make: bench/lab/lockbench)", r->o.lockbench ? ": " : "",
		    r->o.lockbench ? r->o.lockbench : "");
	bv = bench_argv(r->lockbench, &r->o, dry);
	rc = dry_run(bv, &r->secs, err);
	free_argv(bv);
	if (rc)
		return vs_errf(err, NULL, 0, 0, "vlocksim lab: lockbench refused the options "
		    "(above)");
	return 0;
}

/* 1. The staging folder, lockbench's lock list, a quiet machine; 1: still busy. */
static int
lab_wait(struct lab_run *r, struct vs_err *err)
{
	char *lv[] = { r->lockbench, (char *)"--list", NULL };
	const struct lab_args *o = &r->o;
	const struct lab_idle *s = &r->lc.idle;

	if ((r->stage = cmd_stage_begin(o->out, err)) == NULL ||
	    lab_capture(lv, &r->models, err) ||
	    (r->quiet_rc = wait_quiet(r->lockbench, o, &r->lc.idle, err)) < 0)
		return -1;
	if (r->quiet_rc > 0 && !o->force) {
		fprintf(stderr, "vlocksim lab: the machine is busy after %.0f s: load %.2f (limit "
		    "%.2f), other processes %.0f%% of the CPUs (%.0f%%), steal %.1f%% (%.1f%%); "
		    "nothing measured (--force measures anyway, the rows flagged)\n", o->wait,
		    s->load1, o->max_load, 100 * s->others, 100 * o->max_others,
		    100 * s->steal, 100 * o->max_steal);
		return 1;
	}
	if (r->quiet_rc > 0)
		fprintf(stderr, "vlocksim lab: measuring a busy machine (--force): see the busy "
		    "rows\n");
	return 0;
}

/* 2. machine probe into machine.yaml, 3. lockbench into lockbench*.csv. */
static int
lab_measure(struct lab_run *r, struct vs_err *err)
{
	char *p = xasprintf("%s/machine.yaml", r->stage), *csv, **bv;
	const char *pt[] = { "--per-thread", NULL, NULL };
	FILE *f;
	int i, rc = -1;

	strftime(r->date, sizeof r->date, "%Y-%m-%dT%H:%MZ", gmtime(&r->now));
	r->lc.date = r->date;
	if ((f = fopen(p, "w")) == NULL || cmd_machine_probe_write(f, r->o.probe_time,
	    r->h.hostname, NULL, &r->line) != 0 || fclose(f) != 0) {
		vs_errf(err, NULL, 0, 0, "vlocksim lab: machine probe into %s failed", p);
		free(p);
		return -1;
	}
	free(p);
	r->lc.line_ns = r->line;
	fprintf(stderr, "vlocksim lab: lockbench, about %.0f s\n", r->secs);
	p = xasprintf("%s/lockbench-threads.csv", r->stage);
	pt[1] = p;
	bv = bench_argv(r->lockbench, &r->o, pt);
	csv = xasprintf("%s/lockbench.csv", r->stage);
	if (lab_spawn(bv, csv, err) == 0) {
		r->measured = 1;
		if (lab_bench_load(&r->b, csv, r->models, r->o.max_others, r->o.max_steal,
		    err) == 0) {
			for (i = 0; r->quiet_rc > 0 && i < r->b.nrows; i++)
				r->b.rows[i].busy = 1;
			if (r->o.perf_sched)
				perf_sched(r->stage, r->lockbench, &r->o, &r->b);
			rc = 0;
		}
	}
	free_argv(bv);
	free(csv);
	free(p);
	return rc;
}

/* 4. the case (lab_files.c), 5. the fit on the declared row: calibrated.yaml. */
static int
lab_fit(struct lab_run *r, struct vs_err *err)
{
	char *p, *text, d[16];
	int rc = -1;

	if (lab_write_case(r->stage, &r->lc, &r->h, &r->b, err))
		return -1;
	p = xasprintf("%s/calibration.yaml", r->stage);
	if (calib_load(&r->cal, p, r->stage, err) == 0) {
		r->cal.jobs = (int)r->o.pool.jobs;
		if ((r->sim_rc = calib_fit(&r->cal, isatty(STDERR_FILENO), err)) == 0) {
			/* The file names itself as run from its folder, not the stage's. */
			free(r->cal.path);
			r->cal.path = xstrdup("calibration.yaml");
			strftime(d, sizeof d, "%Y-%m-%d", gmtime(&r->now));
			text = calib_render(&r->cal, d);
			rc = cmd_write_out(r->stage, "calibrated.yaml", text, err);
			free(text);
		}
	}
	free(p);
	return rc;
}

/* 5. every row predicted: validation.{txt,csv,json}, the plots; lab.txt's text. */
static char *
lab_predict(struct lab_run *r, struct vs_err *err)
{
	static const struct { int f; const char *file; } outs[] = {
		{ FMT_TABLE, "validation.txt" }, { FMT_CSV, "validation.csv" },
		{ FMT_JSON, "validation.json" } };
	struct vcase *cases[1] = { &r->vc };
	char *p = xasprintf("%s/case.yaml", r->stage), *m, *text = NULL;
	int i, rc;

	rc = vcase_load(&r->vc, p, err) || vcase_check(&r->vc, err) ? -1 :
	    (r->sim_rc = validate_cases(cases, 1, 0, (int)r->o.pool.jobs, &r->rep,
	    isatty(STDERR_FILENO), err));
	for (i = 0; i < 3 && rc == 0; i++) {
		text = vreport_render(&r->rep, outs[i].f);
		rc = cmd_write_out(r->stage, outs[i].file, text, err);
		free(text);
		text = NULL;
	}
	if (rc == 0 && (i = vreport_plot(&r->rep, cases, 1, r->stage, err)) < 0)
		rc = -1;
	else if (rc == 0 && i > 0)
		fputs("vlocksim lab: gnuplot not found; plots skipped\n", stderr);
	if (rc == 0) {
		m = xasprintf("%s/measured.csv", r->stage);
		text = lab_text(m, &r->cal, r->line, &r->rep, &r->b);
		free(m);
		if (cmd_write_out(r->stage, "lab.txt", text, err)) {
			free(text);
			text = NULL;
		}
	}
	free(p);
	return text;
}

static void
lab_run_free(struct lab_run *r)
{
	cmd_stage_abort(r->stage);
	vreport_free(&r->rep);
	if (r->vc.path != NULL)
		vcase_free(&r->vc);
	if (r->cal.path != NULL)
		calib_free(&r->cal);
	lab_bench_free(&r->b);
	free(r->models);
	free(r->lockbench);
}

static int
run_lab(const void *args, struct cmd_mpi *mp)
{
	struct lab_run r = { .o = *(const struct lab_args *)args, .line = -1,
		.now = time(NULL) };
	struct vs_err err;
	char *text = NULL;
	int rc = CMD_EXIT_INPUT, w;

	cmd_limits_set(&r.o.limits);
	lab_host_read(&r.h);
	if (r.o.max_load < 0)
		r.o.max_load = fmax(0.5, 0.25 * r.h.cpus);
	r.lc = (struct lab_case){ .name = r.o.name, .sim_duration_ms = r.o.sim_duration / 1e6,
		.sim_reps = (int)r.o.sim_reps, .tol_rel = r.o.tol, .max_others = r.o.max_others,
		.max_steal = r.o.max_steal, .cal_threads = r.h.cpus };
	if (lab_check(&r, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		goto clean;
	}
	rc = CMD_EXIT_FAIL;
	if ((w = lab_wait(&r, &err)) > 0)
		goto clean;
	if (w < 0 || lab_measure(&r, &err) || lab_fit(&r, &err) ||
	    (text = lab_predict(&r, &err)) == NULL)
		goto fail;
	w = cmd_stage_commit(r.stage, r.o.out, &err);
	r.stage = NULL;
	if (w)
		goto fail;
	fputs(text, stdout);
	printf("written to %s (plot: %s/%s.png)\n", r.o.out, r.o.out, r.o.name);
	rc = 0;
	goto clean;
fail:
	fprintf(stderr, "%s\n", err.msg);
	rc = cmd_limits_exit(r.sim_rc, rc);
	if (r.measured && r.stage != NULL) {
		fprintf(stderr, "vlocksim lab: the measurement is kept in %s\n", r.stage);
		free(r.stage);
		r.stage = NULL;
	}
clean:
	free(text);
	lab_run_free(&r);
	return rc;
}

const struct cmd_entry cmd_lab_entry = {
	.name = "lab",
	.forms = "vlocksim lab [OPTION...] -- LOCKBENCH-OPTION...",
	.summary = "lockbench measured here, calibrated on one row, the rest predicted: a "
	    "validation case of this machine, with plots",
	.about = "Measures this machine with lockbench (bench/lab/lockbench.c: threads "
	    "looping compute -> acquire -> hold -> release on ticket, tas, ttas, mcs, mutex "
	    "and adaptive locks, 1 to 4x the CPUs), writes the measurement as a validation "
	    "case of this machine (kind none, the running kernel's scheduler and HZ, the "
	    "probe's costs), fits the line transfer on ONE declared row and predicts every "
	    "other row.  It waits for a quiet machine first.  After --, lockbench's own "
	    "options (lockbench --help: --locks, --threads, --compute, --hold, --duration, "
	    "--reps ...).  Exit 1 also when lockbench fails.",
	.opts = lab_opts,
	.size = sizeof(struct lab_args),
	.parse = parse_lab_args,
	.run = run_lab,
};
