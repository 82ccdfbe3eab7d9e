/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exec.h - the executor: independent numbered jobs run by a set of workers,
 * their results collected by one process (the master).
 *
 * A job list (struct exec_job) says how to turn job id into result bytes; the
 * caller (sweep, later validate and calibrate) decides what ids mean and what
 * to do with a result (exec_done_fn), always in the master, so only the master
 * writes files.  Workers come from backends, each an ops table:
 *   fork  local worker processes, one fresh fork per job (exec_fork.c);
 *   mpi   MPI ranks 1..N-1, each running its own fork backend (exec_mpi.c,
 *         only with configure --with-mpi).
 * exec_run() hands ids out in the order given, one at a time as slots free
 * up (work stealing: a long job holds up one slot, never a batch), so the
 * order results arrive in depends on timing; callers that need an order
 * (results.csv) sort by id, never by arrival.
 */
#ifndef VS_EXEC_H
#define VS_EXEC_H

#include <stddef.h>
#include <stdio.h>

#include "util.h"

struct exec_job {
	void *ctx;
	/*
	 * Run job id (in a worker process) with the run's argument: 0 and *out
	 * (malloc'd, *len bytes), or -1 and err filled, or RUN_STOPPED (run.h)
	 * and err when a limit stopped its run (--max-events, --timeout, the
	 * watchdog, the cap on simulated time).
	 */
	int (*run)(void *ctx, size_t id, const char *arg, size_t arglen, char **out,
	    size_t *len, struct vs_err *err);
	/*
	 * The run's argument, handed to every job as it starts (bytes, may be
	 * NULL): what a worker on another rank cannot know from the command line,
	 * e.g. the parameters of one calibration step.  The master may change it
	 * between exec_run calls; a backend sends the value it has at submit.
	 */
	const char *arg;
	size_t arglen;
};

enum exec_status {
	EXEC_OK,		/* buf: the job's result */
	EXEC_FAILED,		/* buf: the message (NUL-terminated) */
	EXEC_STOPPED,		/* as EXEC_FAILED, for a job that returned RUN_STOPPED */
	EXEC_LOST,		/* the worker is gone (a dead rank): the job is handed
				 * out again and the slot is never used again */
};

/* One finished job, as a backend reports it. */
struct exec_event {
	int slot;
	size_t id;
	enum exec_status status;
	char *buf;		/* malloc'd, owned by the receiver */
	size_t len;
};

struct exec_backend;

struct exec_ops {
	const char *name;
	/* Jobs it can run at once. */
	int (*nslots)(struct exec_backend *);
	/* Can free slot take a job now (its worker has started)? */
	int (*ready)(struct exec_backend *, int slot);
	/* Start job id in free slot (0 <= slot < nslots); -1 and err on failure. */
	int (*submit)(struct exec_backend *, int slot, size_t id, struct vs_err *err);
	/*
	 * Wait up to timeout seconds (0: just look) for a running job to end:
	 * 1 and *ev filled, 0 none ended.
	 */
	int (*wait)(struct exec_backend *, double timeout, struct exec_event *ev);
	/* Free it; called with no job running. */
	void (*close)(struct exec_backend *);
};

struct exec_backend {
	const struct exec_ops *ops;
};

/* Local worker processes: jobs slots, each job in a fresh fork (job->arg read
 * at each submit). */
struct exec_backend *exec_fork_new(const struct exec_job *job, int jobs);

#define EXEC_MAX_BACKENDS 4

/* Progress line (done includes jobs found done before the run). */
struct exec_prog {
	FILE *f;		/* NULL: no progress line */
	const char *what;	/* "sweep" */
	const char *unit;	/* "points" */
	const char *item;	/* "point": names a job in messages */
	int quiet;		/* no per-job failure messages: the caller reports */
	/* Not NULL: called instead of drawing the line (f is not used). */
	void (*show)(void *ctx, size_t done, int running, size_t total);
	void *show_ctx;
	size_t total, done, ran;
	size_t ran_by[EXEC_MAX_BACKENDS];	/* of ran: by backend (be[] order) */
	int running;
	double t0;
	double t_ran;		/* when the last of `ran` ended (s after t0) */
	/* What was drawn last, and when: unchanged lines are redrawn once a second. */
	double drawn;
	size_t ldone;
	int lrunning;
};

/*
 * The master's handling of a finished job: 0, or -1 and err (a failure: no
 * more jobs are started, the running ones finish).
 */
typedef int (*exec_done_fn)(void *ctx, size_t id, const char *buf, size_t len,
    struct vs_err *err);

/*
 * Run jobs ids[0..nids-1] on the backends (their slots filled in the order
 * the backends are given), calling done() in this process for every result.
 * After the first failure no new job starts; the running ones are waited for.
 * A lost job is handed out again, before the ones not started yet.
 * *failed: jobs that failed (their messages on stderr as "vlocksim WHAT: ITEM
 * ID: message", unless prog->quiet); *first_failed: the lowest failed id, so
 * the error reported does not depend on timing.  Returns 0 when every job
 * succeeded, -1 otherwise (err: that job's message), or RUN_STOPPED when
 * that job (the lowest failed id) stopped at a limit.
 */
int exec_run(struct exec_backend **be, int nbe, const size_t *ids, size_t nids,
    exec_done_fn done, void *ctx, struct exec_prog *prog, size_t *failed,
    size_t *first_failed, struct vs_err *err);

/* Redraw the progress line if it changed or a second passed (last: always,
 * ending it with a newline). */
void exec_prog_draw(struct exec_prog *, int last);

double exec_now(void);

#endif
