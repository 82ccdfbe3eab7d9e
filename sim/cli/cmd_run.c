/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_run.c - `vlocksim run`: one scenario, its replications, its report. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "datadir.h"
#include "plot.h"
#include "progress.h"
#include "report.h"
#include "run.h"
#include "scenario.h"
#include "timeline.h"
#include "trace_lockout.h"
#include "trace_out.h"
#include "util.h"

#define RUN_TIMELINE_NS 2000000			/* --timeline's window without --trace-window */

struct run_args {
	struct scen_args scen;
	struct limit_args limits;
	int format;		/* enum report_fmt */
	const char *out, *trace, *window, *lock_stat, *timeline;
	int no_wall_clock;
	double trace_limit;	/* bytes, 0: none */
	int check;		/* run_opts.check: off, end, kernel, full */
	const char *scenario;	/* the operand */
	sim_time_t tw_from, tw_to;	/* --trace-window */
};

#define A(f) OPT_AT(struct run_args, f)
static const struct opt_decl run_opts[] = {
	CMD_SCEN_OPTS(struct run_args),
	{ "format", 0, "table|csv|json", OPT_FN, A(format), .parse = cmd_report_fmt,
	  .def = "table", .help = "standard output as a table, CSV or JSON",
	  .man = "table is a header line (scenario NAME seed N reps N) and one aligned line "
	  "per metric.  csv has the header metric,unit,mean,sd,ci95,n and one row per "
	  "metric; n is the number of replications that produced the metric.  json is an "
	  "object with the keys scenario, seed, reps and metrics, which maps each metric "
	  "name to {\"mean\": ..., \"sd\": ..., \"ci95\": ..., \"unit\": ...}; a value that is "
	  "not a finite number is written as null." },
	{ "out", 0, "DIR", OPT_STR, A(out),
	  .help = "also write DIR/results.txt, results.csv and results.json",
	  .man = "DIR and its parents are created as needed.  The set is whole or absent: "
	  "the files are written into DIR.tmp.PID beside DIR (created before anything is "
	  "simulated, so an unwritable place is found at once) and moved into DIR only "
	  "when all of them, and the --trace file, were written; on any failure nothing "
	  "is left.  Nothing is created when the scenario has an error." },
	{ "no-wall-clock", 0, NULL, OPT_FLAG, A(no_wall_clock),
	  .help = "report events_per_sec as 0, so that the output repeats byte for byte" },
	{ "check", 0, "off|end|kernel|full", OPT_ENUM, A(check),
	  .def = "end", .help = "how much the run checks itself, as vlocksim(1) INVARIANTS says",
	  .man = "end checks conservation at the end of each replication, kernel also the "
	  "guest kernel's run queues at every switch, full adds the costly invariants (FIFO "
	  "order, no vCPU on two pCPUs, locks free at the end)." },
	{ "trace", 0, "FILE.json[.gz]", OPT_STR, A(trace),
	  .help = "replication 1 as Chrome/Perfetto trace-event JSON (.gz: gzip)",
	  .man = "Open it in ui.perfetto.dev or chrome://tracing: a lane per pCPU with a "
	  "slice per vCPU run; per vCPU a runstate lane and a lock lane; a waiters counter "
	  "per lock.  Same run, same bytes; the file is written only if the run succeeds." },
	{ "trace-limit", 0, "SIZE", OPT_SIZE, A(trace_limit),
	  /* 256MiB: Perfetto UI opens this much easily */
	  .def = "256MiB", .help = "keep the trace under SIZE (0: no limit): past it the "
	  "window ends, and run names the window that fit",
	  .man = "The file then holds the first window that fits, and run says so on "
	  "standard error with that window (--trace-window 0:12345.678us); choose another "
	  "with --trace-window." },
	{ "lock-stat", 0, "FILE", OPT_STR, A(lock_stat),
	  .help = "replication 1's locks as /proc/lock_stat text (version 0.4)",
	  .man = "As a guest with CONFIG_LOCK_STAT would show them; `vlocksim trace "
	  "scenario` reads it back." },
	{ "timeline", 0, "FILE.png|FILE.svg", OPT_STR, A(timeline),
	  .help = "a gnuplot picture of replication 1: runstate per vCPU, lock holders and "
	  "waiters, exits (the first 2 ms unless --trace-window)",
	  .man = "Per vCPU its runstate above its lock state (waiting, halted, holding), "
	  "with exits and kicks marked; FILE.dat beside it holds the bars." },
	{ "trace-window", 0, "FROM:TO", OPT_STR, A(window),
	  .help = "only [FROM, TO) of simulated time in --trace and --timeline, e.g. "
	  "10ms:12ms" },
	CMD_LIMIT_OPTS(struct run_args),
	{ NULL }
};
#undef A

static int
parse_run_args(int argc, char **argv, void *args)
{
	struct run_args *a = args;
	struct vs_err err;

	a->scen.seed = a->scen.reps = -1;
	a->tw_to = SIM_NEVER;
	if (opt_parse_operands(&cmd_run_entry, argc, argv, a, 1, "scenario file", &a->scenario))
		return CMD_EXIT_INPUT;
	if (a->window != NULL && ((a->trace == NULL && a->timeline == NULL) ||
	    trace_out_window(a->window, &a->tw_from, &a->tw_to, &err))) {
		fprintf(stderr, "vlocksim run: %s\n", a->trace == NULL && a->timeline == NULL ?
		    "--trace-window needs --trace FILE.json or --timeline FILE.png" : err.msg);
		return CMD_EXIT_INPUT;
	}
	if (a->timeline != NULL && !timeline_path_ok(a->timeline)) {
		fprintf(stderr, "vlocksim run: --timeline %s: the picture is FILE.png or "
		    "FILE.svg\n", a->timeline);
		return CMD_EXIT_INPUT;
	}
	return 0;
}

/* Up to three probe consumers on one run (--trace, --lock-stat, --timeline). */
struct tee_probe {
	struct probe p;
	const struct probe *a, *b, *c;
};

static void
tee_fn(void *ctx, const struct probe_ev *e)
{
	struct tee_probe *t = ctx;

	if (t->a != NULL)
		t->a->fn(t->a->ctx, e);
	if (t->b != NULL)
		t->b->fn(t->b->ctx, e);
	if (t->c != NULL)
		t->c->fn(t->c->ctx, e);
}

/* What one run builds from its arguments. */
struct run_state {
	struct scenario sc;
	int loaded;
	struct msum sum;
	char *stage;		/* --out's staging folder */
	long long seed;
	int reps;
	struct trace_out *tr;
	struct lock_out *lo;
	struct timeline *tl;
	struct tee_probe tee;
	struct vs_err err;
};

/* Everything checked before the first event: plot script, scenario, metrics, outputs. */
static int
run_prepare(const struct run_args *a, struct run_state *r)
{
	static const char *const gp[] = { "timeline.gp" };
	char *path, *why;
	int c;

	if (a->timeline != NULL && plot_ready(gp, 1, &r->err) < 0) {
		fprintf(stderr, "vlocksim run: %s\n", r->err.msg);
		return CMD_EXIT_INPUT;
	}
	if ((path = vs_scenario_find(a->scenario, &why)) == NULL) {
		fprintf(stderr, "%s\n", why);
		free(why);
		return CMD_EXIT_INPUT;
	}
	c = scen_load(&r->sc, path, a->scen.sets.v, a->scen.sets.n, &r->err);
	free(path);
	r->loaded = 1;
	if (c || run_check_metrics(&r->sc, &r->err)) {
		fprintf(stderr, "%s\n", r->err.msg);
		return CMD_EXIT_INPUT;
	}
	if ((a->out != NULL && (r->stage = cmd_stage_begin(a->out, &r->err)) == NULL) ||
	    (a->trace != NULL && vs_out_writable(a->trace, &r->err)) ||
	    (a->lock_stat != NULL && vs_out_writable(a->lock_stat, &r->err))) {
		fprintf(stderr, "%s\n", r->err.msg);
		return CMD_EXIT_FAIL;
	}
	r->seed = a->scen.seed >= 0 ? a->scen.seed : (long long)r->sc.seed;
	r->reps = a->scen.reps >= 0 ? (int)a->scen.reps : r->sc.reps;
	return 0;
}

/* The observers of replication 1; the others run unwatched. */
static void
run_watch(const struct run_args *a, struct run_state *r)
{
	if (a->trace != NULL) {
		r->tr = trace_out_new(&r->sc, a->tw_from, a->tw_to);
		trace_out_set_limit(r->tr, (size_t)a->trace_limit);
		r->tee.a = trace_out_probe(r->tr);
	}
	if (a->lock_stat != NULL) {
		r->lo = lock_out_new();
		r->tee.b = lock_out_probe(r->lo);
	}
	if (a->timeline != NULL) {
		/* A picture is readable over a short window: 2 ms unless one is given. */
		if (a->window == NULL)
			fprintf(stderr, "vlocksim run: --timeline shows 0:2ms of simulated time; "
			    "choose another window with --trace-window FROM:TO\n");
		r->tl = timeline_new(&r->sc, a->window ? a->tw_from : 0,
		    a->window ? a->tw_to : RUN_TIMELINE_NS);
		r->tee.c = timeline_probe(r->tl);
	}
	r->tee.p.fn = tee_fn;
	r->tee.p.ctx = &r->tee;
}

/* A long run's line on a terminal: replications done (the current one's
 * share of its duration cap when it has one), simulated time. */
struct run_prog {
	struct progress p;
	int rep, reps;
	double cap_ns;
};

static void
run_progress(void *arg, double now_ns)
{
	struct run_prog *rp = arg;
	char d[64];

	snprintf(d, sizeof d, "rep %d, %.3g s simulated", rp->rep + 1, now_ns * 1e-9);
	progress_show(&rp->p, rp->rep + (rp->cap_ns > 0 ? now_ns / rp->cap_ns : 0), rp->reps,
	    "reps", d);
}

static int
run_replicate(const struct run_args *a, struct run_state *r)
{
	struct run_opts ro = { .wall_clock = !a->no_wall_clock, .check = a->check };
	struct run_prog rp = { .reps = r->reps };
	int i, c = 0;

	progress_start(&rp.p, isatty(STDERR_FILENO) ? stderr : NULL, "run");
	rp.cap_ns = r->sc.duration != SIM_NEVER ? (double)(r->sc.warmup + r->sc.duration) : 0;
	ro.progress = run_progress;
	ro.progress_arg = &rp;
	for (i = 0; c == 0 && i < r->reps; i++) {
		struct metrics m;

		ro.probe = i == 0 && (r->tee.a || r->tee.b || r->tee.c) ? &r->tee.p : NULL;
		rp.rep = i;
		metrics_init(&m);
		c = run_once(&r->sc, run_seed((uint64_t)r->seed, i), &ro, &m, &r->err);
		if (c == 0)
			msum_add(&r->sum, &m);
		metrics_free(&m);
	}
	progress_end(&rp.p);
	if (c)
		fprintf(stderr, "%s\n", r->err.msg);
	return c ? cmd_limits_exit(c, CMD_EXIT_INPUT) : 0;
}

/* "1234.567us", as --trace-window takes it */
static const char *
fmt_us(sim_time_t ns, char *buf, size_t n)
{
	snprintf(buf, n, "%.3fus", (double)ns / 1e3);
	return buf;
}

/* The trace, lock_stat and timeline files; 0 or -1 with r->err. */
static int
run_write_watched(const struct run_args *a, struct run_state *r)
{
	char x[32], y[32], *title;
	int c;

	if (r->tr != NULL && trace_out_write(r->tr, a->trace, &r->err))
		return -1;
	if (r->tr != NULL && trace_out_cut(r->tr) >= 0)
		fprintf(stderr, "vlocksim run: the trace of the whole window is larger than "
		    "--trace-limit (%.0f MiB): %s has its first window that fits, "
		    "--trace-window %s:%s; choose another with --trace-window FROM:TO, "
		    "or --trace-limit 0 for all of it\n", a->trace_limit / 1048576, a->trace,
		    fmt_us(a->tw_from, x, sizeof x), fmt_us(trace_out_cut(r->tr), y, sizeof y));
	if (r->lo != NULL && lock_out_write(r->lo, a->lock_stat, &r->err))
		return -1;
	if (r->stage != NULL) {
		c = cmd_stage_commit(r->stage, a->out, &r->err);
		r->stage = NULL;
		if (c)
			return -1;
	}
	if (r->tl == NULL)
		return 0;
	title = xasprintf("%s, seed %lld, replication 1: %s", r->sc.name, r->seed,
	    a->window != NULL ? a->window : "0:2ms");
	c = timeline_write(r->tl, a->timeline, title, &r->err);
	free(title);
	if (c > 0)
		fprintf(stderr, "vlocksim run: no gnuplot: only %s.dat written\n", a->timeline);
	return c < 0 ? -1 : 0;
}

/* --out's three reports, the watched files, then the report on stdout. */
static int
run_write(const struct run_args *a, struct run_state *r)
{
	static const struct { enum report_fmt f; const char *file; } outs[] = {
		{ FMT_TABLE, "results.txt" }, { FMT_CSV, "results.csv" },
		{ FMT_JSON, "results.json" } };
	struct report_info ri = { .scenario = r->sc.name, .seed = (uint64_t)r->seed,
	    .reps = r->reps, .only = r->sc.nmetrics > 0 ? r->sc.metrics : NULL,
	    .nonly = r->sc.nmetrics };
	char *text;
	int i, c;

	for (i = 0; r->stage != NULL && i < 3; i++) {
		text = report_render(outs[i].f, &ri, &r->sum);
		c = cmd_write_out(r->stage, outs[i].file, text, &r->err);
		free(text);
		if (c)
			goto fail;
	}
	if (run_write_watched(a, r))
		goto fail;
	text = report_render((enum report_fmt)a->format, &ri, &r->sum);
	fputs(text, stdout);
	free(text);
	return 0;
fail:
	fprintf(stderr, "%s\n", r->err.msg);
	return CMD_EXIT_FAIL;
}

static int
run_run(const void *args, struct cmd_mpi *mp)
{
	const struct run_args *a = args;
	struct run_state r;
	int rc;

	cmd_limits_set(&a->limits);
	memset(&r, 0, sizeof r);
	msum_init(&r.sum);
	if ((rc = run_prepare(a, &r)) == 0) {
		run_watch(a, &r);
		if ((rc = run_replicate(a, &r)) == 0)
			rc = run_write(a, &r);
	}
	cmd_stage_abort(r.stage);
	trace_out_free(r.tr);
	lock_out_free(r.lo);
	timeline_free(r.tl);
	msum_free(&r.sum);
	if (r.loaded)
		scen_free(&r.sc);
	return rc;
}

const struct cmd_entry cmd_run_entry = {
	.name = "run",
	.args = "SCENARIO",
	.summary = "run a scenario, print its metrics (mean, sd, 95% CI)",
	.about = "Runs SCENARIO (a .yaml file, or the NAME of a shipped example such as "
	    "ticket-4threads) --reps times and prints each metric's mean, sd and 95% CI.  "
	    "On a terminal a run longer than a second shows its progress on stderr.",
	.opts = run_opts,
	.size = sizeof(struct run_args),
	.parse = parse_run_args,
	.run = run_run,
};
