/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd.h - the CLI's commands, one file each (cmd_run.c, cmd_list.c, ...),
 * in the manner of tmux's cmd_entry table.
 */
#ifndef VS_CMD_H
#define VS_CMD_H

#include <limits.h>
#include <stdio.h>

#include "opt.h"
#include "pool.h"
#include "util.h"

#define CMD_EXIT_INPUT 2	/* bad input: message names FILE:LINE:COLUMN */
#define CMD_EXIT_FAIL 1		/* a run-time failure (cannot write output) */
#define CMD_EXIT_MISSED 3	/* validate --strict: a prediction missed its tolerance */
#define CMD_EXIT_STOPPED 4	/* a run stopped at a limit (RUN_STOPPED, cmd_limits_exit) */

struct cmd_mpi;

/*
 * A command: its usage line, help and man page come from these fields and
 * its option declarations (opt.h); main.c parses (parse_X_args) and runs
 * (run_X) it.  One entry per command file; main.c's cmd_table lists them.
 */
struct cmd_entry {
	const char *name;	/* "run", "trace import" */
	const char *args;	/* the operands in the usage line: "SCENARIO" */
	const char *summary;	/* its line in `vlocksim --help`, and the man page's NAME */
	const char *about;	/* --help's text after the usage lines */
	const char *forms;	/* further usage lines, whole ("vlocksim sweep --merge DIR..."), or NULL */
	const struct opt_decl *opts;
	size_t size;		/* of the command's struct X_args */
	/* parse_X_args: fill the (zeroed) struct from argv (argv[0] is "vlocksim
	 * NAME"); 0, or CMD_EXIT_INPUT after saying why */
	int (*parse)(int argc, char **argv, void *args);
	/* run_X: the command; its exit status.  mp: under CMD_MPI, the ranks */
	int (*run)(const void *args, struct cmd_mpi *mp);
	unsigned flags;		/* CMD_MPI: under mpirun every rank runs it (cmd_mpi.c) */
};
#define CMD_MPI 1u

extern const struct cmd_entry cmd_run_entry;
extern const struct cmd_entry cmd_list_entry;
extern const struct cmd_entry cmd_sweep_entry;
extern const struct cmd_entry cmd_validate_entry;
extern const struct cmd_entry cmd_calibrate_entry;
extern const struct cmd_entry cmd_trace_import_entry;
extern const struct cmd_entry cmd_trace_scenario_entry;
extern const struct cmd_entry cmd_machine_probe_entry;
extern const struct cmd_entry cmd_lab_entry;
extern const struct cmd_entry cmd_lab_vm_entry;
/* Every command, in `vlocksim --help`'s order; NULL ends it (main.c). */
extern const struct cmd_entry *const cmd_table[];

/*
 * Options two commands share, declared once: run and sweep change a
 * scenario's values (--seed, --reps, --set); validate and calibrate run on
 * the pool (-j, --cases).  A command's struct holds the struct, its table the
 * macro.
 */
struct scen_args {
	struct opt_list sets;	/* --set PATH=VALUE, in order */
	long long seed, reps;	/* -1: the scenario's */
};
#define CMD_SCEN_OPTS(T) \
	{ "seed", 0, "N", OPT_INT, OPT_AT(T, scen.seed), .min = 0, .max = LLONG_MAX, \
	  .help = "base seed (default: the scenario's seed:)", \
	  .man = "A non-negative integer; replication i uses a stream derived from N and " \
	  "i.  A scenario without seed: has seed 1." }, \
	{ "reps", 0, "N", OPT_INT, OPT_AT(T, scen.reps), .min = 1, .max = 100000, \
	  .help = "replications (default: the scenario's reps:, else 1)", \
	  .man = "With one replication, sd and ci95 are 0." }, \
	{ "set", 0, "PATH=VALUE", OPT_LIST, OPT_AT(T, scen.sets), \
	  .help = "override any scenario value: --set vms[0].vcpus=8", \
	  .man = "Applied in the order given before the scenario is checked; a later " \
	  "override of the same path wins.  PATH names a value by map keys joined with " \
	  "dots and sequence indices in brackets: seed, vms[0].vcpus, " \
	  "hypervisor.scheduler, workloads.spin.program[0].loop.  Missing keys are " \
	  "created, and then checked like any other key (a misspelt one is reported as " \
	  "unknown); indices must exist.  VALUE is parsed as YAML, so it may be a scalar " \
	  "with units (30ms), a flow sequence or mapping ({dist: exponential, mean: " \
	  "50ns}), or the name of a .yaml file, included relative to the current " \
	  "directory.  Errors in an override are reported as --set: PATH: or, for a " \
	  "value, as --set: 1:COLUMN: where COLUMN counts characters of the PATH=VALUE " \
	  "argument." }

/*
 * --timeout and --max-events: every command that simulates takes them, and
 * its run function calls cmd_limits_set (cmd_limits.c) before any run.  A
 * failure that reaches the command as RUN_STOPPED (run.h; a sweep's
 * SWEEP_STOPPED) exits CMD_EXIT_STOPPED: cmd_limits_exit.
 */
struct limit_args {
	double timeout;		/* ns of wall time from the start; 0: none */
	long long max_events;	/* a run's; 0: none */
};
#define CMD_LIMIT_OPTS(T) \
	{ "timeout", 0, "TIME", OPT_TIME, OPT_AT(T, limits.timeout), \
	  .help = "stop after TIME of wall time, such as 90s (vlocksim(1) LIMITS)", \
	  .man = "Counted from the start of the command.  The run under way stops, with " \
	  "its message, and the command exits 4 with nothing half-written (vlocksim(1) " \
	  "LIMITS).  The engine looks every 2^20 events." }, \
	{ "max-events", 0, "N", OPT_INT, OPT_AT(T, limits.max_events), .min = 1, \
	  .max = LLONG_MAX, \
	  .help = "stop a run (a replication) that needs more than N events", \
	  .man = "The command stops with that run's message and exits 4 with nothing " \
	  "half-written (vlocksim(1) LIMITS)." }
void cmd_limits_set(const struct limit_args *);
/* The exit status of a failure rc: CMD_EXIT_STOPPED when rc is RUN_STOPPED
 * or SWEEP_STOPPED, else status. */
int cmd_limits_exit(int rc, int status);

struct pool_args {
	long long jobs;		/* -j */
	const char *cases;	/* --cases DIR, NULL: the data folder's */
};
#define CMD_POOL_OPTS(T, what) \
	CMD_JOBS_OPT(T, what), \
	{ "cases", 0, "DIR", OPT_STR, OPT_AT(T, pool.cases), \
	  .help = "the validation cases (default: validation/cases of the data folder)" }
#define CMD_JOBS_OPT(T, what) \
	{ "jobs", 'j', "N", OPT_INT, OPT_AT(T, pool.jobs), .min = 1, \
	  .max = POOL_MAX_WORKERS, \
	  .help = what " on N worker processes (default: the online CPUs); the " \
	  "output is the same bytes for any N" }
/* OPT_FN for --format table|csv|json (an int holding enum report_fmt). */
int cmd_report_fmt(const char *arg, void *field, const char **why);

/*
 * `machine probe`'s file of this host into f (cmd_machine.c), bounded by
 * budget_ns; *line_socket (when not NULL) is the measured line_socket in
 * ns, -1 when none was plausible; the idle states from sysfs (NULL: /sys).
 * -1 when hwloc cannot read the topology.
 */
int cmd_machine_probe_write(FILE *f, double budget_ns, const char *name, const char *sysfs,
    double *line_socket);


void cmd_usage(FILE *);
/* `vlocksim GROUP --help` (trace, machine): the help of each GROUP command;
 * 0 when GROUP has none. */
int cmd_group_help(const char *group, FILE *);
/* "Try 'vlocksim NAME --help'." on stderr, after a usage error. */
void cmd_try(const char *name);
int cmd_mkdir_p(const char *dir, struct vs_err *err);
int cmd_write_out(const char *dir, const char *file, const char *text, struct vs_err *err);
/*
 * A result set written whole or not at all: cmd_stage_begin makes a folder
 * OUT.tmp.PID beside OUT (checking that OUT's place is writable before any
 * work), files are written there, cmd_stage_commit moves them into OUT
 * (renames need no space), cmd_stage_abort removes them.
 */
char *cmd_stage_begin(const char *out, struct vs_err *err);
int cmd_stage_commit(char *stage, const char *out, struct vs_err *err);
void cmd_stage_abort(char *stage);

/*
 * Under mpirun (cmd_mpi.c): cmd_mpi_begin calls MPI_Init (-1 and a message if
 * it cannot) and silences ranks > 0; a rank > 0 then serves (pool_serve, or
 * validate_serve / calib_serve) and sets served; cmd_mpi_jobs lends rank 0's
 * pool the other ranks; cmd_mpi_end, after every file is written, releases
 * the ranks, says on rank 0's stderr how many runs the other ranks did,
 * finalizes, and returns rc.  Without a launcher they do nothing.
 */
struct cmd_mpi {
	int on, rank, size, served;
};
int cmd_mpi_begin(const char *what, struct cmd_mpi *);
void cmd_mpi_jobs(const struct cmd_mpi *, int jobs_per_rank);
/* Draw a progress line (a terminal, rank 0's under mpirun)? */
int cmd_mpi_progress(const struct cmd_mpi *);
/* A rank > 0 that failed to set up (msg): it serves rank 0 with jobs that
 * fail with msg, so rank 0 says why instead of waiting. */
void cmd_mpi_failed(struct cmd_mpi *, const char *msg);
int cmd_mpi_end(const char *what, struct cmd_mpi *, int rc);

#endif
