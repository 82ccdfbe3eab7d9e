/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_mpi.c - a command under mpirun: every rank runs the same command line;
 * rank 0 does the command and writes everything, the other ranks run its
 * jobs until it releases them: pool jobs (pool.h) for validate and calibrate,
 * points for sweep (its own backends, sweep.h).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

#include "cmd.h"
#include "exec_mpi.h"
#include "pool.h"

int
cmd_mpi_begin(const char *what, struct cmd_mpi *mp)
{
	struct vs_err err;

	mp->on = mp->rank = mp->served = 0;
	mp->size = 1;
	if (!exec_mpi_launched())
		return 0;
	if (exec_mpi_init(&mp->rank, &mp->size, &err)) {
		fprintf(stderr, "vlocksim %s: %s\n", what, err.msg);
		return -1;
	}
	mp->on = 1;
	if (mp->rank != 0) {
		/* Rank 0 alone speaks: the others say nothing, not even --help. */
		opterr = 0;
		if (freopen("/dev/null", "w", stderr) == NULL ||
		    freopen("/dev/null", "w", stdout) == NULL)
			vs_fatal("cannot silence rank %d", mp->rank);
	}
	return 0;
}

void
cmd_mpi_jobs(const struct cmd_mpi *mp, int jobs)
{
	if (mp->on && mp->rank == 0 && mp->size > 1)
		pool_use_ranks(jobs);
}

int
cmd_mpi_progress(const struct cmd_mpi *mp)
{
	/* Open MPI gives a rank a pty for stdout (stderr is a pipe): rank 0's
	 * terminal is that of mpirun. */
	return isatty(STDERR_FILENO) || (mp->on && isatty(STDOUT_FILENO));
}

void
cmd_mpi_failed(struct cmd_mpi *mp, const char *msg)
{
	if (!mp->on || mp->rank == 0 || mp->served)
		return;
	/* Rank 0 may have set up where this rank could not: its jobs say why. */
	pool_serve(NULL, 1, msg);
	mp->served = 1;
}

int
cmd_mpi_end(const char *what, struct cmd_mpi *mp, int rc)
{
	size_t all, remote;

	if (!mp->on)
		return rc;
	if (mp->rank == 0) {
		exec_mpi_release();
		pool_ran(&all, &remote);
		if (all > 0 && mp->size == 2)
			fprintf(stderr, "vlocksim %s: %zu of %zu runs on rank 1\n", what,
			    remote, all);
		else if (all > 0)
			fprintf(stderr, "vlocksim %s: %zu of %zu runs on ranks 1-%d\n", what,
			    remote, all, mp->size - 1);
	}
	else if (!mp->served)
		/* Never leave rank 0 waiting for a rank that could not set up. */
		pool_serve(NULL, 1, "rank could not read its command line");
	exec_mpi_finalize(rc);
	return rc;
}
