/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd.h - the CLI's commands, one file each (cmd_run.c, cmd_list.c, ...),
 * in the manner of tmux's cmd_entry table.
 */
#ifndef VS_CMD_H
#define VS_CMD_H

#include <stdio.h>

#include "util.h"

#define CMD_EXIT_INPUT 2	/* bad input: message names FILE:LINE:COLUMN */
#define CMD_EXIT_FAIL 1		/* a run-time failure (cannot write output) */
#define CMD_EXIT_MISSED 3	/* validate --strict: a prediction missed its tolerance */

struct cmd_entry {
	const char *name;
	int (*fn)(int argc, char **argv);	/* argv[0] is "vlocksim NAME" */
	const char *usage;	/* `vlocksim NAME --help`; NULL: fn prints its own */
};

void cmd_usage(FILE *);
/* "Try 'vlocksim NAME --help'." on stderr, after a usage error. */
void cmd_try(const char *name);
int cmd_mkdir_p(const char *dir, struct vs_err *err);
/* An integer option in [min, max]; prints "vlocksim: OPT takes ..." and returns -1 if not. */
int cmd_int_opt(const char *opt, const char *arg, long long min, long long max,
    long long *out);
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
/* A file path we will write later: its folder exists and takes a new file. */
int cmd_check_writable(const char *path, struct vs_err *err);

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

int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_trace_scenario(int argc, char **argv);
int cmd_machine(int argc, char **argv);
int cmd_lab(int argc, char **argv);
/*
 * `machine probe`'s file of this host into f (cmd_machine.c), bounded by
 * budget_ns; *line_socket (when not NULL) is the measured line_socket in
 * ns, -1 when none was plausible.  -1 when hwloc cannot read the topology.
 */
int cmd_machine_probe_write(FILE *f, double budget_ns, const char *name, double *line_socket);


#endif
