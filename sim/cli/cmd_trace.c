/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_trace.c - `vlocksim trace import FILE`: read a real KVM or Xen trace
 * (or a guest's, a lock_stat, a perf kvm stat report), print a per-vCPU
 * summary, write fitted distributions (format: sim/trace/trace_in.h) and a
 * measured table.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "trace_in.h"
#include "trace_kprof.h"
#include "util.h"

#define IMPORT_FORMATS "trace-cmd, ftrace, perf-script, xentrace, xenalyze, lock_stat, " \
	"perf-kvm-stat or trace.dat"

struct import_args {
	int format;		/* enum ti_format */
	double cpu_hz;		/* 0: the default */
	const char *out, *measured, *setup, *note, *profile;
	int guest;
	double seconds;		/* ns, 0: the file's own span */
	const char *file;	/* the operand */
	int argc;		/* the command line, for --measured's header */
	char **argv;
};

static int
parse_format(const char *arg, void *field, const char **why)
{
	enum ti_format f;

	if (ti_format_parse(arg, &f) != 0) {
		*why = "is " IMPORT_FORMATS;
		return -1;
	}
	*(int *)field = (int)f;
	return 0;
}

#define A(f) OPT_AT(struct import_args, f)
static const struct opt_decl import_opts[] = {
	{ "format", 0, "FORMAT", OPT_FN, A(format), .parse = parse_format,
	  .help = IMPORT_FORMATS " (default: detected from the file)" },
	{ "guest", 0, NULL, OPT_FLAG, A(guest),
	  .help = "a guest's own trace (sched_switch, lock:contention_*): no vCPUs expected",
	  .man = "Prints the tasks' run and blocked times, the idle share and the "
	  "contended waits per lock address." },
	{ "seconds", 0, "S", OPT_TIME, A(seconds),
	  .help = "the span a lock_stat or perf kvm stat file covers (rates need it)" },
	{ "cpu-hz", 0, "HZ", OPT_FREQ, A(cpu_hz), .lo = 1e6, .hi = 1e11,
	  .help = "the TSC rate of a Xen trace (default 2.4GHz, as xenalyze; a bare number "
	  "is Hz)" },
	{ "out", 0, "FILE.yaml", OPT_STR, A(out),
	  .help = "write the fitted distributions as YAML (layout: sim/trace/trace_in.h)",
	  .man = "Maximum-likelihood fits (exponential, lognormal, gamma; the lowest AIC "
	  "wins, KS D reported) as {dist: ...} values that scenarios and calibrate can "
	  "use." },
	{ "measured", 0, "FILE.csv", OPT_STR, A(measured),
	  .help = "write a measured table (validation/measured format) of per-VM runstate "
	  "shares, exit rates and wake-to-run p50, rows SETUP/VM.METRIC; needs --setup" },
	{ "setup", 0, "NAME", OPT_STR, A(setup),
	  .help = "the setup column of --measured's rows (no ',' or '/')" },
	{ "note", 0, "TEXT", OPT_STR, A(note),
	  .help = "a provenance line in --measured's header (the trace's source and licence)" },
	{ "profile", 0, "FILE.yaml", OPT_STR, A(profile),
	  .help = "write the kernel profile alone (lock classes by call site, IPIs, TLB "
	  "shootdowns, fork/exit/faults per busy CPU-second) of a perf script text "
	  "recorded as bench/profile/record.sh does (sim/trace/trace_kprof.h)" },
	{ NULL }
};
#undef A

static int
parse_import_args(int argc, char **argv, void *args)
{
	struct import_args *a = args;

	a->format = TI_FMT_AUTO;
	if (opt_parse_operands(&cmd_trace_import_entry, argc, argv, a, 1, "trace file",
	    &a->file))
		return CMD_EXIT_INPUT;
	a->argc = argc;
	a->argv = argv;
	if ((a->measured == NULL) != (a->setup == NULL) || (a->note != NULL &&
	    a->measured == NULL) || (a->setup != NULL && (a->setup[0] == '\0' ||
	    strpbrk(a->setup, ",/\n") != NULL))) {
		fprintf(stderr, "vlocksim trace import: --measured FILE.csv and --setup NAME "
		    "go together (NAME without ',' or '/'); --note needs --measured\n");
		return CMD_EXIT_INPUT;
	}
	return 0;
}

/* The command that produced a table, for its provenance header. */
static char *
command_line(int argc, char **argv)
{
	char *cmd = xstrdup(argv[0]), *c2;	/* "vlocksim trace import" */
	int i;

	for (i = 1; i < argc; i++) {
		int q = strpbrk(argv[i], " \t'\"") != NULL;

		c2 = xasprintf("%s %s%s%s", cmd, q ? "'" : "", argv[i], q ? "'" : "");
		free(cmd);
		cmd = c2;
	}
	return cmd;
}

/* text written whole to path; 0 or CMD_EXIT_FAIL after the message. */
static int
write_whole(const char *path, char *text)
{
	struct vs_err err;
	int c = vs_write_file_atomic(path, text, strlen(text), &err);

	if (c)
		fprintf(stderr, "%s\n", err.msg);
	free(text);
	return c ? CMD_EXIT_FAIL : 0;
}

/* --profile: the kernel profile of a perf recording; 0 or the exit status. */
static int
write_profile(const struct ti_trace *t, const struct import_args *a)
{
	char *text = ti_kprof_text(t);

	if (text == NULL) {
		fprintf(stderr, "vlocksim trace import: --profile: %s has no kernel profile "
		    "events (lock:contention_*, ipi:*, tlb:tlb_flush, sched:sched_process_*, "
		    "page_faults, task_clock): record as bench/profile/record.sh does\n",
		    a->file);
		return CMD_EXIT_INPUT;
	}
	return write_whole(a->profile, text);
}

static int
run_trace_import(const void *args, struct cmd_mpi *mp)
{
	const struct import_args *a = args;
	struct ti_trace *t = ti_new(a->cpu_hz);
	struct vs_err err;
	char *text, *cmd;
	int c, rc = CMD_EXIT_INPUT;

	t->guest_only = a->guest;
	t->given_seconds = a->seconds / 1e9;
	if (ti_import(t, a->file, (enum ti_format)a->format, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		goto done;
	}
	text = ti_summary(t);
	fputs(text, stdout);
	free(text);
	rc = 0;
	if (a->out != NULL && write_whole(a->out, ti_yaml(t)))
		rc = CMD_EXIT_FAIL;
	if (a->profile != NULL && (c = write_profile(t, a)) != 0)
		rc = c;
	if (a->measured != NULL) {
		cmd = command_line(a->argc, a->argv);
		if (write_whole(a->measured, ti_measured_csv(t, a->setup, cmd, a->note)))
			rc = CMD_EXIT_FAIL;
		free(cmd);
	}
done:
	ti_free(t);
	return rc;
}

const struct cmd_entry cmd_trace_import_entry = {
	.name = "trace import",
	.args = "FILE",
	.summary = "per-vCPU summary of a real KVM/Xen/guest trace or lock_stat",
	.about = "Reads trace-cmd report or raw ftrace text, perf script text, trace.dat "
	    "(when built with libtracecmd), a xentrace binary, a xenalyze summary, perf kvm "
	    "stat report output or /proc/lock_stat, and prints exits by reason (count, "
	    "share, rate, time share, mean, min, p50, p99, max of exit-to-entry), runstate "
	    "shares, halts, PLE exits and wake-to-run latency per vCPU and overall; from a "
	    "guest's trace, switches and busy shares per CPU and switches, CPU share, run "
	    "and blocked means per task, and waits per contended lock; from lock_stat, per "
	    "class contentions, wait and hold times.  A host trace from which no vCPU comes "
	    "out is an error (exit 2); a guest's own trace is read with --guest.",
	.opts = import_opts,
	.size = sizeof(struct import_args),
	.parse = parse_import_args,
	.run = run_trace_import,
};
