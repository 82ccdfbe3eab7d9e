/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_trace_scenario.c - `vlocksim trace scenario GUEST_TRACE [HOST_TRACE]
 * --machine M.yaml --out my.yaml`: a runnable scenario from a guest's own
 * recording (sched_switch/sched_wakeup, lock:contention_*, /proc/lock_stat),
 * and the measured table its 1x run is checked against (trace_scen.h).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "registry.h"
#include "trace_in.h"
#include "trace_scen.h"
#include "units.h"
#include "util.h"

static void
scen_usage(FILE *f)
{
	fputs("usage: vlocksim trace scenario GUEST_TRACE [HOST_TRACE] --machine M.yaml\n"
	    "                               --out my.yaml [--lock-stat FILE] [--seconds S]\n"
	    "                               [--vcpus N] [--lock KIND] [--max-locks N]\n"
	    "                               [--measured FILE.csv --setup NAME]\n"
	    "                               [--workload FILE.yaml]\n"
	    "  GUEST_TRACE: the guest's own trace (trace-cmd report / tracefs / perf script\n"
	    "  text or trace.dat: sched_switch, sched_wakeup, lock:contention_begin/end), or\n"
	    "  its /proc/lock_stat.  --lock-stat adds lock_stat to a trace; --seconds is the\n"
	    "  span lock_stat covers (default: the trace's), --vcpus the guest's CPUs\n"
	    "  (default: those in sched_switch).  HOST_TRACE: the host's trace of the same\n"
	    "  run (noted in the header).  Writes a scenario with the VM 'traced' and a hog\n"
	    "  VM of count 0: vlocksim sweep my.yaml --vary vms[1].count=0,1,2,3\n"
	    "  --workload also writes the workload alone, for a preset to include.\n", f);
}

/* Import path into t (guest side); a malformed line is an error here. */
static int
import_guest(struct ti_trace *t, const char *path, struct vs_err *err)
{
	const char *keep_path = t->path;
	enum ti_format keep_fmt = t->fmt;
	uint64_t skipped = t->nskipped;

	t->guest_only = 1;
	if (ti_import(t, path, TI_FMT_AUTO, err))
		return -1;
	if (t->nskipped > skipped)
		return vs_errf(err, NULL, 0, 0, "%s (%llu malformed lines; a scenario is "
		    "built only from a trace read whole)", t->first_bad,
		    (unsigned long long)(t->nskipped - skipped));
	if (keep_path != NULL) {
		t->path = keep_path;
		t->fmt = keep_fmt;
	}
	return 0;
}

int
cmd_trace_scenario(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "machine", required_argument, NULL, 'M' },
		{ "out", required_argument, NULL, 'o' },
		{ "lock-stat", required_argument, NULL, 'L' },
		{ "seconds", required_argument, NULL, 's' },
		{ "vcpus", required_argument, NULL, 'v' },
		{ "lock", required_argument, NULL, 'k' },
		{ "max-locks", required_argument, NULL, 'x' },
		{ "measured", required_argument, NULL, 'm' },
		{ "setup", required_argument, NULL, 'S' },
		{ "workload", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ti_scen_opts so;
	struct ti_trace *g = NULL, *h = NULL;
	const char *out = NULL, *meas = NULL, *setup = NULL, *why = NULL, *wl = NULL;
	struct vs_err err;
	char *text = NULL, *cmd;
	long long v;
	int c, i, rc = CMD_EXIT_INPUT;

	memset(&so, 0, sizeof so);
	so.lock_kind = "pv-qspinlock";
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'M':
			so.machine = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'L':
			so.lockstat_path = optarg;
			break;
		case 's':
			if (units_parse(optarg, UNIT_TIME, 0, &so.wl.seconds, &why) != 0 ||
			    !(so.wl.seconds > 0)) {
				fprintf(stderr, "vlocksim trace scenario: --seconds %s: %s\n", optarg,
				    why ? why : "must be positive (10s)");
				return CMD_EXIT_INPUT;
			}
			so.wl.seconds /= 1e9;
			break;
		case 'v':
			if (cmd_int_opt("--vcpus", optarg, 1, 4096, &v))
				return CMD_EXIT_INPUT;
			so.wl.cpus = (int)v;
			break;
		case 'x':
			if (cmd_int_opt("--max-locks", optarg, 1, 64, &v))
				return CMD_EXIT_INPUT;
			so.wl.max_locks = (int)v;
			break;
		case 'k':
			if (registry_lock(optarg) == NULL) {
				fprintf(stderr, "vlocksim trace scenario: --lock %s: not a lock "
				    "(vlocksim list shows them)\n", optarg);
				return CMD_EXIT_INPUT;
			}
			so.lock_kind = optarg;
			break;
		case 'm':
			meas = optarg;
			break;
		case 'S':
			setup = optarg;
			break;
		case 'w':
			wl = optarg;
			break;
		case 'h':
			scen_usage(stdout);
			return 0;
		default:
			scen_usage(stderr);
			return CMD_EXIT_INPUT;
		}
	}
	if (optind >= argc || argc - optind > 2 || so.machine == NULL || out == NULL) {
		fprintf(stderr, "vlocksim trace scenario: name the guest trace (and optionally "
		    "the host's), --machine M.yaml and --out FILE.yaml\n");
		scen_usage(stderr);
		return CMD_EXIT_INPUT;
	}
	if ((meas == NULL) != (setup == NULL) ||
	    (setup != NULL && (setup[0] == '\0' || strpbrk(setup, ",/\n") != NULL))) {
		fprintf(stderr, "vlocksim trace scenario: --measured FILE.csv and --setup NAME "
		    "go together (NAME without ',' or '/')\n");
		return CMD_EXIT_INPUT;
	}
	cmd = xstrdup("vlocksim trace");
	for (i = 0; i < argc; i++) {
		char *c2 = xasprintf("%s %s", cmd, argv[i]);

		free(cmd);
		cmd = c2;
	}
	so.command = cmd;
	g = ti_new(0);
	if (import_guest(g, argv[optind], &err))
		goto fail;
	if (so.lockstat_path != NULL && import_guest(g, so.lockstat_path, &err))
		goto fail;
	if (argc - optind == 2) {
		h = ti_new(0);
		if (ti_import(h, argv[optind + 1], TI_FMT_AUTO, &err))
			goto fail;
	}
	text = ti_scenario_yaml(g, h, &so, &err);
	if (text == NULL)
		goto fail;
	rc = CMD_EXIT_FAIL;
	if (vs_write_file_atomic(out, text, strlen(text), &err))
		goto fail;
	free(text);
	text = NULL;
	if (wl != NULL) {
		/* The workload alone, for a preset: workloads: {mine: {include: FILE}}. */
		char *wbuf = NULL;
		size_t wlen = 0;
		FILE *o = open_memstream(&wbuf, &wlen);
		struct ti_wl_opts wo = so.wl;

		if (o == NULL)
			vs_fatal("open_memstream: out of memory");
		c = ti_guest_workload(g, o, &wo, 0, &err);
		fclose(o);
		if (c == 0)
			c = vs_write_file_atomic(wl, wbuf, wlen, &err);
		free(wbuf);
		if (c)
			goto fail;
	}
	if (meas != NULL) {
		text = ti_guest_measured_csv(g, &so, setup);
		if (vs_write_file_atomic(meas, text, strlen(text), &err))
			goto fail;
	}
	printf("%s: scenario from %s (%d guest CPUs, %.6g s)%s%s\n", out, argv[optind],
	    so.wl.cpus > 0 ? so.wl.cpus : ti_guest_ncpus(g), so.wl.seconds > 0 ? so.wl.seconds :
	    (double)(g->t_last - g->t_first) / 1e9, meas ? "; measured table " : "",
	    meas ? meas : "");
	rc = 0;
	goto done;
fail:
	fprintf(stderr, "%s\n", err.msg);
done:
	free(text);
	free(cmd);
	ti_free(g);
	ti_free(h);
	return rc;
}
