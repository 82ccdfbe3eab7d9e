/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_trace.c - `vlocksim trace import FILE [--format F] [--cpu-hz HZ] [--out FILE.yaml]`:
 * read a real KVM or Xen trace, print a per-vCPU summary, write fitted
 * distributions (format: sim/trace/trace_in.h).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "trace_in.h"
#include "trace_kprof.h"
#include "units.h"
#include "util.h"

static void
trace_usage(FILE *f)
{
	fputs("usage: vlocksim trace import FILE [--format trace-cmd|ftrace|perf-script|xentrace|\n"
	    "                             xenalyze|lock_stat|perf-kvm-stat|trace.dat] [--guest]\n"
	    "                             [--seconds S] [--cpu-hz HZ] [--out FILE.yaml]\n"
	    "                             [--measured FILE.csv --setup NAME [--note TEXT]]\n"
	    "                             [--profile FILE.yaml]\n"
	    "  Prints exits by reason (count, share, rate, time share, mean, min, p50, p99,\n"
	    "  max of exit-to-entry), runstate shares, halts, PLE exits and wake-to-run\n"
	    "  latency per vCPU; from a guest's trace, switches and busy shares per CPU and\n"
	    "  switches, CPU share, run and blocked means per task, and waits per contended\n"
	    "  lock; from lock_stat, per class contentions, wait and hold times.  --out\n"
	    "  writes fitted distributions as YAML.  --cpu-hz is the TSC rate of a Xen trace\n"
	    "  (default 2.4GHz, as xenalyze).  The format is detected when not given.\n"
	    "  --measured writes a measured table (validation/measured format) of per-VM\n"
	    "  runstate shares, exit rates and wake-to-run p50, rows SETUP/VM.METRIC;\n"
	    "  --note adds a provenance line (the trace's source and licence).\n"
	    "  --guest: a guest's own trace (sched_switch, lock:contention_*; no vCPUs\n"
	    "  expected); /proc/lock_stat and perf kvm stat report are detected too;\n"
	    "  --seconds S: the span a lock_stat or perf kvm stat file covers.\n"
	    "  --profile writes the kernel profile alone (lock classes by call site, IPIs,\n"
	    "  TLB shootdowns, fork/exit/faults per busy CPU-second) of a perf script text\n"
	    "  recorded as bench/profile/record.sh does (sim/trace/trace_kprof.h).\n", f);
}

static int
trace_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "cpu-hz", required_argument, NULL, 'c' },
		{ "out", required_argument, NULL, 'o' },
		{ "measured", required_argument, NULL, 'm' },
		{ "setup", required_argument, NULL, 's' },
		{ "note", required_argument, NULL, 'n' },
		{ "guest", no_argument, NULL, 'g' },
		{ "seconds", required_argument, NULL, 'S' },
		{ "profile", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum ti_format fmt = TI_FMT_AUTO;
	const char *out = NULL, *why = NULL, *meas = NULL, *setup = NULL, *note = NULL;
	const char *prof = NULL;
	struct ti_trace *t = NULL;
	struct vs_err err;
	double hz = 0;
	char *text;
	int c, rc = CMD_EXIT_INPUT, guest = 0;
	double secs = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (ti_format_parse(optarg, &fmt) != 0) {
				fprintf(stderr, "vlocksim trace import: --format is trace-cmd, "
				    "ftrace, perf-script, xentrace, xenalyze, lock_stat, perf-kvm-stat "
				    "or trace.dat\n");
				return CMD_EXIT_INPUT;
			}
			break;
		case 'c':
			/* 2.4GHz, or a bare number of Hz. */
			if (units_parse(optarg, UNIT_FREQ, 0, &hz, &why) != 0) {
				char *end;

				hz = strtod(optarg, &end);
				if (*end == '\0' && end != optarg)
					why = NULL;
			}
			/* the range a scenario's `clock:` takes; below ~2 Hz a TSC
			 * delta in ns leaves int64, inf makes every time 0 */
			if (why == NULL && !(hz >= 1e6 && hz <= 1e11))
				why = "must be between 1MHz and 100GHz (a TSC rate)";
			if (why != NULL) {
				fprintf(stderr, "vlocksim trace import: --cpu-hz %s: %s\n", optarg, why);
				return CMD_EXIT_INPUT;
			}
			break;
		case 'o':
			out = optarg;
			break;
		case 'm':
			meas = optarg;
			break;
		case 's':
			setup = optarg;
			break;
		case 'n':
			note = optarg;
			break;
		case 'g':
			guest = 1;
			break;
		case 'p':
			prof = optarg;
			break;
		case 'S':
			if (units_parse(optarg, UNIT_TIME, 0, &secs, &why) != 0 || !(secs > 0)) {
				fprintf(stderr, "vlocksim trace import: --seconds %s: %s\n", optarg,
				    why ? why : "must be positive");
				return CMD_EXIT_INPUT;
			}
			break;
		case 'h':
			trace_usage(stdout);
			return 0;
		default:
			trace_usage(stderr);
			return CMD_EXIT_INPUT;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "vlocksim trace import: name one trace file\n");
		trace_usage(stderr);
		return CMD_EXIT_INPUT;
	}
	if ((meas == NULL) != (setup == NULL) || (note != NULL && meas == NULL) ||
	    (setup != NULL && (setup[0] == '\0' || strpbrk(setup, ",/\n") != NULL))) {
		fprintf(stderr, "vlocksim trace import: --measured FILE.csv and --setup NAME "
		    "go together (NAME without ',' or '/'); --note needs --measured\n");
		return CMD_EXIT_INPUT;
	}
	t = ti_new(hz);
	t->guest_only = guest;
	t->given_seconds = secs / 1e9;
	if (ti_import(t, argv[optind], fmt, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		goto done;
	}
	text = ti_summary(t);
	fputs(text, stdout);
	free(text);
	rc = 0;
	if (out != NULL) {
		text = ti_yaml(t);
		if (vs_write_file_atomic(out, text, strlen(text), &err) != 0) {
			fprintf(stderr, "%s\n", err.msg);
			rc = CMD_EXIT_FAIL;
		}
		free(text);
	}
	if (prof != NULL) {
		text = ti_kprof_text(t);
		if (text == NULL) {
			fprintf(stderr, "vlocksim trace import: --profile: %s has no kernel profile "
			    "events (lock:contention_*, ipi:*, tlb:tlb_flush, sched:sched_process_*, "
			    "page_faults, task_clock): record as bench/profile/record.sh does\n",
			    argv[optind]);
			rc = CMD_EXIT_INPUT;
		} else if (vs_write_file_atomic(prof, text, strlen(text), &err) != 0) {
			fprintf(stderr, "%s\n", err.msg);
			rc = CMD_EXIT_FAIL;
		}
		free(text);
	}
	if (meas != NULL) {
		char *cmd = xstrdup("vlocksim trace"), *c2;
		int i;

		/* The command that produced the table, for its provenance header. */
		for (i = 0; i < argc; i++) {
			int q = strpbrk(argv[i], " \t'\"") != NULL;

			c2 = xasprintf("%s %s%s%s", cmd, q ? "'" : "", argv[i], q ? "'" : "");
			free(cmd);
			cmd = c2;
		}
		text = ti_measured_csv(t, setup, cmd, note);
		if (vs_write_file_atomic(meas, text, strlen(text), &err) != 0) {
			fprintf(stderr, "%s\n", err.msg);
			rc = CMD_EXIT_FAIL;
		}
		free(text);
		free(cmd);
	}
done:
	ti_free(t);
	return rc;
}

int
cmd_trace(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		trace_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? CMD_EXIT_INPUT : 0;
	}
	if (strcmp(argv[1], "import") == 0)
		return trace_import(argc - 1, argv + 1);
	if (strcmp(argv[1], "scenario") == 0)
		return cmd_trace_scenario(argc - 1, argv + 1);
	fprintf(stderr, "vlocksim trace: unknown subcommand '%s' (expected import or "
	    "scenario)\n", argv[1]);
	return CMD_EXIT_INPUT;
}
