/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exec_mpi.h - MPI ranks as executor workers (configure --with-mpi).
 *
 * Under mpirun (or srun) every rank runs the same command line.  Rank 0 is
 * the master: it owns the job list and every file, and its mpi backend lends
 * it JOBS slots on each rank 1..N-1.  The other ranks serve: each runs the
 * jobs rank 0 sends it in its own fork backend (JOBS at once) and sends the
 * result bytes back.  Messages (MPI_COMM_WORLD): JOB (uint64 id) and STOP
 * from rank 0; RESULT (uint64 id, uint8 status, then the bytes) to rank 0.
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
/* Rank 0: ranks 1..size-1 as jobs slots each. */
struct exec_backend *exec_mpi_new(int jobs);
/*
 * Ranks > 0: run the jobs rank 0 sends, jobs at once, until it says stop.
 * job NULL: this rank could not set up (fail_msg), every job fails with it.
 */
void exec_mpi_serve(const struct exec_job *job, int jobs, const char *fail_msg);
/* Rank 0: tell every serving rank to stop (once; later calls do nothing). */
void exec_mpi_release(void);
void exec_mpi_finalize(void);

#endif
