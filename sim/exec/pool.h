/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pool.h - the worker pool: run independent jobs 0..n-1 in worker processes
 * and hand each job's result (bytes) back to the parent.
 *
 * One job = one fork()ed worker that calls run() and sends what it returns
 * through a pipe, then _exits; at most `workers` run at once, started in the
 * order of idx[].  The parent gets done() for every job that succeeded, in
 * completion order (so a caller that wants the same output for any number of
 * workers stores results by job number and assembles them afterwards).  Each
 * job must depend only on its number: then the bytes are the same for any
 * `workers`.  The parent must hold no state a worker could flush twice: pool
 * calls fflush(NULL) before each fork, and workers leave with _exit.
 *
 * validate and calibrate (vcase_predict_rows, sim/validate/vpredict.c) run
 * on this.  Another backend (e.g. MPI ranks) would provide pool_run with the
 * same contract: run(ctx, i) somewhere that has the same ctx, its bytes to
 * done(ctx, i) in the caller.
 */
#ifndef VS_POOL_H
#define VS_POOL_H

#include <stddef.h>

#include "util.h"

struct pool_job {
	/* In a worker: do job i; *out (malloc'd, *len bytes, may be empty) is its
	 * result.  0, or -1 with err set. */
	int (*run)(void *ctx, size_t i, char **out, size_t *len, struct vs_err *err);
	/* In the parent when job i succeeded, with run's bytes.  NULL: none. */
	void (*done)(void *ctx, size_t i, const char *out, size_t len);
	/* In the parent when job i failed: its worker's error (or how it died).
	 * NULL: none. */
	void (*failed)(void *ctx, size_t i, const char *msg);
	/* In the parent whenever a job starts or ends.  NULL: none. */
	void (*progress)(void *ctx, size_t finished, size_t running, size_t total);
	void *ctx;
};

/* The most workers a -j may ask for. */
#define POOL_MAX_WORKERS 1024

/* Number of online CPUs (1..POOL_MAX_WORKERS): the default for -j. */
int pool_default_workers(void);

/*
 * Run jobs idx[0..n) (idx NULL: 0..n-1) on up to `workers` processes.  After
 * a failure no new job starts; the running ones finish.  Returns 0 when all
 * succeeded, else -1 with *err the failure of the lowest-numbered failed job
 * and *nfailed (if not NULL) the number that failed.
 */
int pool_run(const struct pool_job *, const size_t *idx, size_t n, int workers,
    size_t *nfailed, struct vs_err *err);

#endif
