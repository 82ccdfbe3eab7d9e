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
	int force, perf_sched;
	char **bench;		/* after --: lockbench's own options */
	int nbench;
};

#define A(f) OPT_AT(struct lab_args, f)
static const struct opt_decl lab_opts[] = {
	{ "out", 0, "DIR", OPT_STR, A(out),
	  .help = "the lab's folder (default out/lab): lab.txt, validation.{txt,csv,json}, "
	  "NAME.png, scatter.png, measured.csv, case.yaml, scenario.yaml, row-tN-LOCK.yaml, "
	  "calibration.yaml, calibrated.yaml, machine.yaml, lockbench*.csv",
	  .man = "Written whole or not at all; the raw measurement is kept (and named) when "
	  "a later step fails." },
	{ "name", 0, "NAME", OPT_STR, A(name), .help = "the case's name (default lab)" },
	{ "calibrate", 0, "LOCK/tN", OPT_STR, A(cal),
	  .help = "the one row the line transfer is fitted on (default ticket with as many "
	  "threads as CPUs); every other row is predicted" },
	{ "sim-duration", 0, "T", OPT_TIME, A(sim_duration), .lo = 1e6, .hi = 3600e9,
	  .help = "simulated time per replication of a row (default 200ms)" },
	{ "sim-reps", 0, "N", OPT_INT, A(sim_reps), .min = 1, .max = 1000,
	  .help = "the model's replications per row (default 3)" },
	{ "tolerance", 0, "REL", OPT_NUM, A(tol), .lo = 0.001, .hi = 100,
	  .help = "the case's relative tolerance (default 0.25)" },
	{ "max-load", 0, "L", OPT_NUM, A(max_load), .lo = 0, .hi = 1e6,
	  .help = "the quiet machine's 1-min load at most (default a quarter of the CPUs, "
	  "at least 0.5)" },
	{ "max-others", 0, "F", OPT_NUM, A(max_others), .lo = 0, .hi = 1,
	  .help = "other processes' share of all CPUs at most (default 0.1)" },
	{ "max-steal", 0, "F", OPT_NUM, A(max_steal), .lo = 0, .hi = 1,
	  .help = "steal at most (default 0.02)" },
	{ "wait", 0, "S", OPT_NUM, A(wait), .lo = 0, .hi = 3600,
	  .help = "seconds to wait for a quiet machine (default 120); still busy, lab "
	  "refuses (exit 1) unless --force" },
	{ "force", 0, NULL, OPT_FLAG, A(force),
	  .help = "measure a busy machine anyway; runs in which others or steal passed the "
	  "limits are listed as busy rows" },
	{ "probe-time", 0, "T", OPT_TIME, A(probe_time), .lo = 1e8, .hi = 60e9,
	  .help = "machine probe's budget (default 2s)" },
	{ "perf-sched", 0, NULL, OPT_FLAG, A(perf_sched),
	  .help = "also `perf sched record` one run per lock at the most threads "
	  "(perf-sched-LOCK.txt: perf sched latency)" },
	{ "lockbench", 0, "PATH", OPT_STR, A(lockbench),
	  .help = "the lockbench to run (default: the one installed beside vlocksim, or "
	  "the build tree's)" },
	CMD_JOBS_OPT(struct lab_args, "the model's rows"),
	{ NULL }
};
#undef A

static int
parse_lab_args(int argc, char **argv, void *args)
{
	struct lab_args *o = args;
	int next;

	*o = (struct lab_args){ .out = "out/lab", .name = "lab", .probe_time = 2e9,
	    .sim_duration = 200e6, .sim_reps = 3, .tol = 0.25, .max_load = -1,
	    .max_others = 0.1, .max_steal = 0.02, .wait = 120 };
	o->pool.jobs = pool_default_workers();
	if (opt_parse(&cmd_lab_entry, argc, argv, o, &next))
		return CMD_EXIT_INPUT;
	/* getopt_long stops at "--": what follows is lockbench's. */
	if (next < argc && strcmp(argv[next - 1], "--") != 0) {
		fprintf(stderr, "vlocksim lab: unexpected argument '%s' (lockbench's options "
		    "go after --)\n", argv[next]);
		cmd_try("lab");
		return CMD_EXIT_INPUT;
	}
	o->bench = argv + next;
	o->nbench = argc - next;
	return 0;
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

static int
run_lab(const void *args, struct cmd_mpi *mp)
{
	struct lab_args o = *(const struct lab_args *)args;
	struct lab_host h;
	struct lab_case lc;
	struct lab_bench b = { 0 };
	struct calib cal = { 0 };
	struct vcase vc = { 0 }, *cases[1] = { &vc };
	struct vreport rep = { 0 };
	struct vs_err err;
	char *lockbench = NULL, *models = NULL, *stage = NULL, *p = NULL, *text, date[32];
	char cal_lock[64], **bv;
	double line = -1, secs;
	int rc = CMD_EXIT_INPUT, i, quiet_rc, measured = 0;
	time_t now = time(NULL);
	FILE *f;

	lab_host_read(&h);
	if (o.max_load < 0)
		o.max_load = fmax(0.5, 0.25 * h.cpus);
	lc = (struct lab_case){ .name = o.name, .sim_duration_ms = o.sim_duration / 1e6,
		.sim_reps = (int)o.sim_reps, .tol_rel = o.tol, .max_others = o.max_others,
		.max_steal = o.max_steal, .cal_threads = h.cpus };
	snprintf(cal_lock, sizeof cal_lock, "ticket");
	if (o.cal != NULL && (sscanf(o.cal, "%63[^/]/t%d", cal_lock, &lc.cal_threads) != 2 ||
	    lc.cal_threads < 1)) {
		fprintf(stderr, "vlocksim lab: --calibrate %s: LOCK/tN, e.g. ticket/t%d\n", o.cal,
		    h.cpus);
		return CMD_EXIT_INPUT;
	}
	lc.cal_lock = cal_lock;
	if ((lockbench = lab_lockbench_find(o.lockbench)) == NULL) {
		fprintf(stderr, "vlocksim lab: lockbench not found%s%s (it is built by make: "
		    "bench/lab/lockbench)\n", o.lockbench ? ": " : "", o.lockbench ? o.lockbench :
		    "");
		return CMD_EXIT_INPUT;
	}
	/* Bad lockbench options fail here, before any waiting or measuring. */
	{
		const char *dry[] = { "--dry-run", NULL };

		bv = bench_argv(lockbench, &o, dry);
	}
	i = dry_run(bv, &secs, &err);
	free_argv(bv);
	if (i) {
		fprintf(stderr, "vlocksim lab: lockbench refused the options (above)\n");
		goto clean;
	}
	rc = CMD_EXIT_FAIL;
	if ((stage = cmd_stage_begin(o.out, &err)) == NULL)
		goto fail;
	{
		char *lv[] = { lockbench, (char *)"--list", NULL };

		if (lab_capture(lv, &models, &err))
			goto fail;
	}
	if ((quiet_rc = wait_quiet(lockbench, &o, &lc.idle, &err)) < 0)
		goto fail;
	if (quiet_rc > 0 && !o.force) {
		fprintf(stderr, "vlocksim lab: the machine is busy after %.0f s: load %.2f (limit "
		    "%.2f), other processes %.0f%% of the CPUs (%.0f%%), steal %.1f%% (%.1f%%); "
		    "nothing measured (--force measures anyway, the rows flagged)\n", o.wait,
		    lc.idle.load1, o.max_load, 100 * lc.idle.others, 100 * o.max_others,
		    100 * lc.idle.steal, 100 * o.max_steal);
		goto clean;
	}
	if (quiet_rc > 0)
		fprintf(stderr, "vlocksim lab: measuring a busy machine (--force): see the busy "
		    "rows\n");
	strftime(date, sizeof date, "%Y-%m-%dT%H:%MZ", gmtime(&now));
	lc.date = date;
	/* 2. the machine */
	free(p);
	p = xasprintf("%s/machine.yaml", stage);
	if ((f = fopen(p, "w")) == NULL || cmd_machine_probe_write(f, o.probe_time, h.hostname,
	    &line) != 0 || fclose(f) != 0) {
		vs_errf(&err, NULL, 0, 0, "vlocksim lab: machine probe into %s failed", p);
		goto fail;
	}
	lc.line_ns = line;
	/* 3. lockbench */
	fprintf(stderr, "vlocksim lab: lockbench, about %.0f s\n", secs);
	free(p);
	p = xasprintf("%s/lockbench-threads.csv", stage);
	{
		const char *pt[] = { "--per-thread", p, NULL };

		bv = bench_argv(lockbench, &o, pt);
	}
	free(p);
	p = xasprintf("%s/lockbench.csv", stage);
	i = lab_spawn(bv, p, &err);
	free_argv(bv);
	if (i)
		goto fail;
	measured = 1;
	if (lab_bench_load(&b, p, models, o.max_others, o.max_steal, &err))
		goto fail;
	if (quiet_rc > 0)
		for (i = 0; i < b.nrows; i++)
			b.rows[i].busy = 1;
	if (o.perf_sched)
		perf_sched(stage, lockbench, &o, &b);
	/* 4. the case */
	if (lab_write_case(stage, &lc, &h, &b, &err))
		goto fail;
	/* 5. the fit on the declared row, then every row */
	free(p);
	p = xasprintf("%s/calibration.yaml", stage);
	if (calib_load(&cal, p, stage, &err))
		goto fail;
	cal.jobs = (int)o.pool.jobs;
	if (calib_fit(&cal, isatty(STDERR_FILENO), &err))
		goto fail;
	{
		char d[16];

		/* The file names itself as run from its folder, not the stage's. */
		free(cal.path);
		cal.path = xstrdup("calibration.yaml");
		strftime(d, sizeof d, "%Y-%m-%d", gmtime(&now));
		text = calib_render(&cal, d);
		i = cmd_write_out(stage, "calibrated.yaml", text, &err);
		free(text);
		if (i)
			goto fail;
	}
	free(p);
	p = xasprintf("%s/case.yaml", stage);
	if (vcase_load(&vc, p, &err) || vcase_check(&vc, &err) ||
	    validate_cases(cases, 1, 0, (int)o.pool.jobs, &rep, isatty(STDERR_FILENO), &err))
		goto fail;
	{
		static const struct { int f; const char *file; } outs[] = {
			{ FMT_TABLE, "validation.txt" }, { FMT_CSV, "validation.csv" },
			{ FMT_JSON, "validation.json" } };

		for (i = 0; i < 3; i++) {
			text = vreport_render(&rep, outs[i].f);
			if (cmd_write_out(stage, outs[i].file, text, &err)) {
				free(text);
				goto fail;
			}
			free(text);
		}
	}
	if ((i = vreport_plot(&rep, cases, 1, stage, &err)) < 0)
		goto fail;
	if (i > 0)
		fputs("vlocksim lab: gnuplot not found; plots skipped\n", stderr);
	free(p);
	p = xasprintf("%s/measured.csv", stage);
	text = lab_text(p, &cal, line, &rep, &b);
	if (cmd_write_out(stage, "lab.txt", text, &err)) {
		free(text);
		goto fail;
	}
	if (cmd_stage_commit(stage, o.out, &err)) {
		stage = NULL;
		free(text);
		goto fail;
	}
	stage = NULL;
	fputs(text, stdout);
	printf("written to %s (plot: %s/%s.png)\n", o.out, o.out, o.name);
	free(text);
	rc = 0;
	goto clean;
fail:
	fprintf(stderr, "%s\n", err.msg);
	if (measured && stage != NULL) {
		fprintf(stderr, "vlocksim lab: the measurement is kept in %s\n", stage);
		free(stage);
		stage = NULL;
	}
clean:
	cmd_stage_abort(stage);
	vreport_free(&rep);
	if (vc.path != NULL)
		vcase_free(&vc);
	if (cal.path != NULL)
		calib_free(&cal);
	lab_bench_free(&b);
	free(models);
	free(lockbench);
	free(p);
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
