/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exec_fork.c - the fork backend: every job in a fresh fork of this process,
 * its result sent back through a pipe, so only the master writes files.
 *
 * The parent holds no engine state when it forks (sweep.c); a child runs one
 * job, writes the bytes (or its error message) to the pipe and _exits (no
 * stdio flush of the parent's buffers, no atexit handlers).  A child dies with
 * the parent (PR_SET_PDEATHSIG), so a killed run leaves no orphan behind to
 * race the restarted one.  The parent waits for the pid it started, never for
 * any child (waitpid(-1) would steal an MPI launcher's or a caller's).
 */
#include "exec.h"
#include "run.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define FORK_EXIT_STOPPED 4	/* a child whose job returned RUN_STOPPED */

struct fslot {
	pid_t pid;		/* 0: free */
	int fd;			/* read end of the child's pipe */
	size_t id;
	char *buf;
	size_t len, cap;
};

struct exec_fork {
	struct exec_backend be;
	const struct exec_job *job;
	int n;
	struct fslot *s;
};

static int
fork_nslots(struct exec_backend *be)
{
	return ((struct exec_fork *)be)->n;
}

static int
fork_ready(struct exec_backend *be, int slot)
{
	return 1;
}

static void
write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(1);
		p += w;
		n -= (size_t)w;
	}
}

/* The child: run job id, its result to fd.  Never returns. */
static void
fork_child(struct exec_fork *x, size_t id, int fd, pid_t parent)
{
	struct vs_err err;
	char *out = NULL;
	size_t len = 0;
	int i, rc;

#ifdef __linux__
	/* Die with the parent: a killed run leaves no worker behind. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* ... which comes too late for a parent that died before the prctl */
	if (getppid() != parent)
		_exit(1);
#endif
	for (i = 0; i < x->n; i++)
		if (x->s[i].pid != 0)
			close(x->s[i].fd);
	rc = x->job->run(x->job->ctx, id, x->job->arg, x->job->arglen, &out, &len, &err);
	if (rc == 0) {
		write_all(fd, out, len);
		_exit(0);
	}
	write_all(fd, err.msg, strlen(err.msg));
	_exit(rc == RUN_STOPPED ? FORK_EXIT_STOPPED : 1);
}

static int
fork_submit(struct exec_backend *be, int slot, size_t id, struct vs_err *err)
{
	struct exec_fork *x = (struct exec_fork *)be;
	struct fslot *s = &x->s[slot];
	int p[2];
	pid_t pid, parent = getpid();

	VS_ASSERT(s->pid == 0);
	if (pipe(p) != 0)
		return vs_errf(err, NULL, 0, 0, "cannot start a worker: pipe: %s",
		    strerror(errno));
	fflush(NULL);	/* a child must not inherit unwritten output */
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return vs_errf(err, NULL, 0, 0, "cannot start a worker: %s", strerror(errno));
	}
	if (pid == 0) {
		close(p[0]);
		fork_child(x, id, p[1], parent);
	}
	close(p[1]);
	s->pid = pid;
	s->fd = p[0];
	s->id = id;
	s->len = 0;
	return 0;
}

/* Slot i's pipe is at EOF: reap the child and report. */
static void
fork_reap(struct exec_fork *x, int i, struct exec_event *ev)
{
	struct fslot *s = &x->s[i];
	int st;

	close(s->fd);
	while (waitpid(s->pid, &st, 0) < 0)
		if (errno != EINTR)
			vs_fatal("waitpid: %s", strerror(errno));
	ev->slot = i;
	ev->id = s->id;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		ev->status = EXEC_OK;
		ev->buf = s->buf;
		ev->len = s->len;
		s->buf = NULL;
		s->cap = 0;
	} else {
		ev->status = WIFEXITED(st) && WEXITSTATUS(st) == FORK_EXIT_STOPPED ?
		    EXEC_STOPPED : EXEC_FAILED;
		if (WIFSIGNALED(st))
			ev->buf = xasprintf("killed by signal %d", WTERMSIG(st));
		else
			ev->buf = xasprintf("%.*s", (int)s->len, s->buf ? s->buf : "");
		ev->len = strlen(ev->buf);
	}
	s->pid = 0;
	s->len = 0;
}

static int
fork_wait(struct exec_backend *be, double timeout, struct exec_event *ev)
{
	struct exec_fork *x = (struct exec_fork *)be;
	struct pollfd *pf = xcalloc((size_t)x->n, sizeof *pf);
	int *slot = xcalloc((size_t)x->n, sizeof *slot), n = 0, i, r, got = 0;
	ssize_t k;

	for (i = 0; i < x->n; i++)
		if (x->s[i].pid != 0) {
			pf[n].fd = x->s[i].fd;
			pf[n].events = POLLIN;
			slot[n++] = i;
		}
	r = poll(pf, (nfds_t)n, (int)(timeout * 1000));
	if (r < 0 && errno != EINTR)
		vs_fatal("poll: %s", strerror(errno));
	for (i = 0; r > 0 && i < n && !got; i++) {
		struct fslot *s = &x->s[slot[i]];

		if (pf[i].revents == 0)
			continue;
		VS_GROW(s->buf, s->cap, s->len + 65536);
		k = read(s->fd, s->buf + s->len, s->cap - s->len - 1);
		if (k > 0) {
			s->len += (size_t)k;
		} else if (k == 0 || errno != EINTR) {
			s->buf[s->len] = '\0';
			fork_reap(x, slot[i], ev);
			got = 1;
		}
	}
	free(pf);
	free(slot);
	return got;
}

static void
fork_close(struct exec_backend *be)
{
	struct exec_fork *x = (struct exec_fork *)be;
	int i;

	for (i = 0; i < x->n; i++) {
		VS_ASSERT(x->s[i].pid == 0);
		free(x->s[i].buf);
	}
	free(x->s);
	free(x);
}

static const struct exec_ops fork_ops = {
	.name = "fork",
	.nslots = fork_nslots,
	.ready = fork_ready,
	.submit = fork_submit,
	.wait = fork_wait,
	.close = fork_close,
};

struct exec_backend *
exec_fork_new(const struct exec_job *job, int jobs)
{
	struct exec_fork *x = xcalloc(1, sizeof *x);

	VS_ASSERT(jobs >= 1);
	x->be.ops = &fork_ops;
	x->job = job;
	x->n = jobs;
	x->s = xcalloc((size_t)jobs, sizeof *x->s);
	return &x->be;
}
