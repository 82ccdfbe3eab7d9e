/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pool.h - the worker pool: run independent jobs 0..n-1 on the executor
 * (exec.h) and hand each job's result (bytes) back to the caller.
 *
 * A layer over exec_run: the jobs go to `workers` local fork()ed workers
 * and, in rank 0 of an MPI run that called pool_use_ranks(), to the other
 * ranks as well, where pool_serve() runs them.  The caller gets done() for
 * every job that succeeded, in completion order (so a caller that wants the
 * same output for any number of workers stores results by job number and
 * assembles them afterwards).  Each job must depend only on its number and
 * the run's argument (bytes every job of one pool_run gets): then the bytes
 * are the same for any `workers` and any number of ranks.  A rank learns
 * what job i means from the same command line, and what changes between runs
 * (a calibration step's parameters) from the argument, which is sent along
 * with each job.  The parent must hold no state a worker could flush twice:
 * the fork backend calls fflush(NULL) before each fork, and workers leave
 * with _exit.
 *
 * validate and calibrate (vcase_predict_rows, sim/validate/vpredict.c) run
 * on this.
 */
#ifndef VS_POOL_H
#define VS_POOL_H

#include <stddef.h>

#include "util.h"

struct pool_job {
	/* In a worker: do job i with the run's argument (arg, arglen bytes; may
	 * be NULL); *out (malloc'd, *len bytes, may be empty) is its result.  0,
	 * or -1 or RUN_STOPPED (run.h) with err set. */
	int (*run)(void *ctx, size_t i, const char *arg, size_t arglen, char **out,
	    size_t *len, struct vs_err *err);
	/* In the parent when job i succeeded, with run's bytes.  NULL: none. */
	void (*done)(void *ctx, size_t i, const char *out, size_t len);
	/* In the parent whenever a job starts or ends.  NULL: none. */
	void (*progress)(void *ctx, size_t finished, size_t running, size_t total);
	void *ctx;
};

/* The most workers a -j may ask for. */
#define POOL_MAX_WORKERS 1024

/* Number of online CPUs (1..POOL_MAX_WORKERS): the default for -j. */
int pool_default_workers(void);

/*
 * Rank 0 of an MPI run (exec_mpi.h): from now on pool_run also hands jobs to
 * ranks 1..N-1, jobs_per_rank at once on each.  0: local workers only.
 */
void pool_use_ranks(int jobs_per_rank);

/*
 * Run jobs idx[0..n) (idx NULL: 0..n-1) on up to `workers` local processes
 * (and the ranks), each with the argument arg (arglen bytes, NULL: none).
 * After a failure no new job starts; the running ones finish.  Returns 0
 * when all succeeded, else -1 (RUN_STOPPED when that job's run returned
 * RUN_STOPPED: a limit stopped it) with *err the failure of the
 * lowest-numbered failed job and *nfailed (if not NULL) the number that failed.
 */
int pool_run(const struct pool_job *, const size_t *idx, size_t n, const char *arg,
    size_t arglen, int workers, size_t *nfailed, struct vs_err *err);

/* Jobs pool_run ran so far in this process, and how many of them on other
 * ranks. */
void pool_ran(size_t *all, size_t *on_ranks);

/*
 * Ranks > 0 of an MPI run: run rank 0's pool_run jobs (pj->run only), jobs
 * at once, until rank 0 releases the ranks.  pj NULL: this rank could not
 * set up; every job it is sent fails with fail_msg.
 */
void pool_serve(const struct pool_job *pj, int jobs, const char *fail_msg);

#endif
