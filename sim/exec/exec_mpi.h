/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exec_mpi.h - MPI ranks as executor workers (configure --with-mpi).
 *
 * Under mpirun (or srun) every rank runs the same command line.  Rank 0 is
 * the master: it owns the job list and every file, and its mpi backend lends
 * it JOBS slots on each rank 1..N-1.  The other ranks serve: each runs the
 * jobs rank 0 sends it in its own fork backend (JOBS at once) and sends the
 * result bytes back.  Messages (MPI_COMM_WORLD): JOB (uint64 id, then the
 * run's argument, exec_job.arg) and STOP from rank 0; RESULT (uint64 id,
 * uint8 status, then the bytes) and ALIVE (every 0.25 s: int64 pid, host
 * name) to rank 0.  A rank silent for 5 s is dead, except that one on rank
 * 0's host whose process the OS still lists (a starved rank on a loaded
 * machine) is waited for up to 60 s; across hosts silence is all there is.
 *
 * The end (exec_mpi_release, after rank 0 has written its results): STOP to
 * every live rank, BYE back from each once its jobs are over (or it is dead,
 * as above), then FIN (did a rank die?) to each.  When one died nobody
 * calls MPI_Finalize, which would wait for it forever (Open MPI 4.1 has no
 * ULFM); otherwise MPI_Finalize runs under a 10 s alarm, for a rank that dies
 * between its BYE and MPI_Finalize: then the process leaves with _exit and
 * the status the run earned (its files were written and flushed before).
 * FIN carries the ranks' pids on rank 0's host: while every other rank's
 * process is there (starved on a loaded machine, not dead), the alarm waits
 * on, up to 30 s.
 * Waiting is an MPI_Iprobe and a 1 ms sleep, never a blocking receive: Open
 * MPI's blocking calls spin a core at 100%, which would take it from the jobs.
 *
 * Without MPI support the functions exist, exec_mpi_launched() still sees an
 * MPI launcher (so the CLI can refuse to run N copies of the same sweep), and
 * exec_mpi_init() fails with a message saying how to build with MPI.
 */
#ifndef VS_EXEC_MPI_H
#define VS_EXEC_MPI_H

#include "exec.h"

/* Started by an MPI launcher with more than one process (environment)? */
int exec_mpi_launched(void);
/* MPI_Init; *rank and *size of MPI_COMM_WORLD.  -1 and err without MPI. */
int exec_mpi_init(int *rank, int *size, struct vs_err *err);
/* Rank 0: ranks 1..size-1 as jobs slots each; job->arg goes with each job. */
struct exec_backend *exec_mpi_new(const struct exec_job *job, int jobs);
/*
 * Ranks > 0: run the jobs rank 0 sends, jobs at once, until it says stop.
 * job NULL: this rank could not set up (fail_msg), every job fails with it.
 */
void exec_mpi_serve(const struct exec_job *job, int jobs, const char *fail_msg);
/*
 * Rank 0 hands jobs to a rank once it has said it is alive, so which rank
 * runs what depends on timing.  Environment VLOCKSIM_MPI_WAIT_READY=1 (tests
 * only): exec_mpi_new waits until every rank has said it, so that on a
 * loaded machine too the other ranks get jobs.
 */
/* Rank 0: tell every serving rank to stop, the end protocol above (once;
 * later calls do nothing).  Call it after the results are written. */
void exec_mpi_release(void);
/*
 * Every rank, last: MPI_Finalize unless a rank is known dead, under the
 * alarm; rc is the status to leave with if MPI_Finalize does not return.
 * Environment VLOCKSIM_MPI_DIE=R:stop|bye|fin|hang (tests only): rank R
 * kills itself on STOP, after its BYE, or just before MPI_Finalize, or hangs
 * there alive; 0:deaf: rank 0 does not listen for 6 s before the end;
 * R:lag|lagend: rank R is silent (alive) for 7 s on its first job or on STOP.
 */
void exec_mpi_finalize(int rc);

#endif
