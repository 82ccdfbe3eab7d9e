/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_trace_scenario.c - `vlocksim trace scenario GUEST_TRACE [HOST_TRACE]
 * --machine M.yaml --out my.yaml`: a runnable scenario from a guest's own
 * recording (sched_switch/sched_wakeup, lock:contention_*, /proc/lock_stat),
 * and the measured table its 1x run is checked against (trace_scen.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "registry.h"
#include "trace_in.h"
#include "trace_scen.h"
#include "util.h"

struct tscen_args {
	const char *machine, *out, *lock_stat, *lock, *measured, *setup, *workload;
	double seconds;		/* ns, 0: the trace's span */
	long long vcpus, max_locks;	/* 0: from the trace, the default */
	char **traces;		/* operands: the guest's trace, the host's */
	int ntraces;
	int argc;		/* the command line, for the scenario's header */
	char **argv;
};

/* --lock KIND: a lock of the registry */
static int
parse_lock(const char *arg, void *field, const char **why)
{
	if (registry_lock(arg) == NULL) {
		*why = "not a lock (vlocksim list shows them)";
		return -1;
	}
	*(const char **)field = arg;
	return 0;
}

#define A(f) OPT_AT(struct tscen_args, f)
static const struct opt_decl tscen_opts[] = {
	{ "machine", 0, "M.yaml", OPT_STR, A(machine), .flags = OPT_REQUIRED,
	  .help = "the host's machine file (vlocksim machine probe writes one)" },
	{ "out", 0, "FILE.yaml", OPT_STR, A(out), .flags = OPT_REQUIRED,
	  .help = "the scenario to write" },
	{ "lock-stat", 0, "FILE", OPT_STR, A(lock_stat),
	  .help = "the guest's /proc/lock_stat of the same span, beside its trace" },
	{ "seconds", 0, "S", OPT_TIME, A(seconds),
	  .help = "the span lock_stat covers (default: the trace's)" },
	{ "vcpus", 0, "N", OPT_INT, A(vcpus), .min = 1, .max = 4096,
	  .help = "the guest's CPUs (default: those in sched_switch)" },
	{ "lock", 0, "KIND", OPT_FN, A(lock), .parse = parse_lock,
	  .def = "pv-qspinlock", .help = "the traced VM's spinlock" },
	{ "max-locks", 0, "N", OPT_INT, A(max_locks), .min = 1, .max = 64,
	  .help = "the lock_stat classes kept, by share of time held (default 4)" },
	{ "measured", 0, "FILE.csv", OPT_STR, A(measured),
	  .help = "also write what the 1x run should reproduce (lock rates, hold and wait "
	  "means, idle share) as a measured table; needs --setup" },
	{ "setup", 0, "NAME", OPT_STR, A(setup),
	  .help = "the setup column of --measured's rows (no ',' or '/')" },
	{ "workload", 0, "FILE.yaml", OPT_STR, A(workload),
	  .help = "also write the workload alone, for a preset to include" },
	{ NULL }
};
#undef A

static int
parse_tscen_args(int argc, char **argv, void *args)
{
	struct tscen_args *a = args;
	int next;

	if (opt_parse(&cmd_trace_scenario_entry, argc, argv, a, &next))
		return CMD_EXIT_INPUT;
	a->traces = argv + next;
	a->ntraces = argc - next;
	a->argc = argc;
	a->argv = argv;
	if (a->ntraces < 1 || a->ntraces > 2 || a->machine == NULL || a->out == NULL) {
		fprintf(stderr, "vlocksim trace scenario: name the guest trace (and optionally "
		    "the host's), --machine M.yaml and --out FILE.yaml\n");
		cmd_try("trace scenario");
		return CMD_EXIT_INPUT;
	}
	if ((a->measured == NULL) != (a->setup == NULL) || (a->setup != NULL &&
	    (a->setup[0] == '\0' || strpbrk(a->setup, ",/\n") != NULL))) {
		fprintf(stderr, "vlocksim trace scenario: --measured FILE.csv and --setup NAME "
		    "go together (NAME without ',' or '/')\n");
		return CMD_EXIT_INPUT;
	}
	return 0;
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

/* The workload alone, for a preset: workloads: {mine: {include: FILE}}. */
static int
write_workload(struct ti_trace *g, const struct ti_scen_opts *so, const char *path,
    struct vs_err *err)
{
	char *wbuf = NULL;
	size_t wlen = 0;
	FILE *o = open_memstream(&wbuf, &wlen);
	struct ti_wl_opts wo = so->wl;
	int c;

	if (o == NULL)
		vs_fatal("open_memstream: out of memory");
	c = ti_guest_workload(g, o, &wo, 0, err);
	fclose(o);
	if (c == 0)
		c = vs_write_file_atomic(path, wbuf, wlen, err);
	free(wbuf);
	return c;
}

/* The scenario, the workload and the measured table; 0 or -1 with err. */
static int
write_outputs(const struct tscen_args *a, struct ti_trace *g, struct ti_trace *h,
    const struct ti_scen_opts *so, struct vs_err *err)
{
	char *text = ti_scenario_yaml(g, h, so, err);
	int c;

	if (text == NULL)
		return -2;	/* bad input */
	c = vs_write_file_atomic(a->out, text, strlen(text), err);
	free(text);
	if (c || (a->workload != NULL && write_workload(g, so, a->workload, err)))
		return -1;
	if (a->measured == NULL)
		return 0;
	text = ti_guest_measured_csv(g, so, a->setup);
	c = vs_write_file_atomic(a->measured, text, strlen(text), err);
	free(text);
	return c;
}

/* "vlocksim trace scenario ARGS...", for the scenario's header (malloc'd). */
static char *
command_line(int argc, char **argv)
{
	char *cmd = xstrdup(argv[0]), *c2;
	int i;

	for (i = 1; i < argc; i++) {
		c2 = xasprintf("%s %s", cmd, argv[i]);
		free(cmd);
		cmd = c2;
	}
	return cmd;
}

static int
run_trace_scenario(const void *args, struct cmd_mpi *mp)
{
	const struct tscen_args *a = args;
	char *cmd = command_line(a->argc, a->argv);
	struct ti_scen_opts so = { .machine = a->machine, .lock_kind = a->lock,
	    .command = cmd, .lockstat_path = a->lock_stat };
	struct ti_trace *g = ti_new(0), *h = NULL;
	struct vs_err err;
	int c, rc = CMD_EXIT_INPUT;

	so.wl.seconds = a->seconds / 1e9;
	so.wl.cpus = (int)a->vcpus;
	so.wl.max_locks = (int)a->max_locks;
	if (import_guest(g, a->traces[0], &err) ||
	    (a->lock_stat != NULL && import_guest(g, a->lock_stat, &err)))
		goto fail;
	if (a->ntraces == 2) {
		h = ti_new(0);
		if (ti_import(h, a->traces[1], TI_FMT_AUTO, &err))
			goto fail;
	}
	if ((c = write_outputs(a, g, h, &so, &err)) != 0) {
		rc = c == -2 ? CMD_EXIT_INPUT : CMD_EXIT_FAIL;
		goto fail;
	}
	printf("%s: scenario from %s (%d guest CPUs, %.6g s)%s%s\n", a->out, a->traces[0],
	    so.wl.cpus > 0 ? so.wl.cpus : ti_guest_ncpus(g), so.wl.seconds > 0 ?
	    so.wl.seconds : (double)(g->t_last - g->t_first) / 1e9, a->measured ?
	    "; measured table " : "", a->measured ? a->measured : "");
	rc = 0;
	goto done;
fail:
	fprintf(stderr, "%s\n", err.msg);
done:
	ti_free(g);
	ti_free(h);
	free(cmd);
	return rc;
}

const struct cmd_entry cmd_trace_scenario_entry = {
	.name = "trace scenario",
	.args = "GUEST_TRACE [HOST_TRACE]",
	.summary = "a runnable scenario from a guest's own recording",
	.about = "GUEST_TRACE is the guest's own trace (trace-cmd report, tracefs or perf "
	    "script text, or trace.dat: sched_switch, sched_wakeup, lock:contention_begin/"
	    "end), or its /proc/lock_stat; HOST_TRACE the host's trace of the same run "
	    "(noted in the header).  Writes a scenario with the VM 'traced' and a hog VM of "
	    "count 0: vlocksim sweep my.yaml --vary vms[1].count=0,1,2,3",
	.opts = tscen_opts,
	.size = sizeof(struct tscen_args),
	.parse = parse_tscen_args,
	.run = run_trace_scenario,
};
