/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pool.c - fork()ed workers with a pipe each (see pool.h).
 *
 * A worker writes one status byte (0 ok, 1 failed) and then its result or
 * its error message, and _exits.  The parent poll()s the pipes of the running
 * workers, so a large result never blocks a worker, and reaps a worker by its
 * pid once its pipe is at EOF (never waitpid(-1): a caller's other children
 * are left alone).  A worker dies with the parent (PR_SET_PDEATHSIG), so a
 * killed run leaves no orphan behind.
 */
#include "pool.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

struct worker {
	pid_t pid;		/* 0: free */
	int fd;
	size_t job;
	char *buf;
	size_t len, cap;
};

int
pool_default_workers(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > POOL_MAX_WORKERS ? POOL_MAX_WORKERS : (int)n;
}

static int
write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Worker: run job i, send status + bytes, never return. */
static void
worker_main(const struct pool_job *pj, size_t i, int fd)
{
	struct vs_err err = { 0 };
	char *out = NULL, st;
	size_t len = 0;
	int rc;

#ifdef __linux__
	prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
	rc = pj->run(pj->ctx, i, &out, &len, &err);
	st = rc == 0 ? 0 : 1;
	if (write_all(fd, &st, 1) ||
	    (rc == 0 ? (len > 0 && write_all(fd, out, len)) :
	    write_all(fd, err.msg, strlen(err.msg))))
		rc = 1;
	free(out);
	close(fd);
	fflush(stderr);
	_exit(rc ? 1 : 0);
}

static int
start(const struct pool_job *pj, struct worker *w, size_t job, struct vs_err *err)
{
	int fds[2];
	pid_t p;

	if (pipe(fds) < 0)
		return vs_errf(err, NULL, 0, 0, "cannot start a worker: %s", strerror(errno));
	fflush(NULL);	/* a worker must not inherit unwritten output */
	if ((p = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		return vs_errf(err, NULL, 0, 0, "cannot start a worker: %s", strerror(errno));
	}
	if (p == 0) {
		close(fds[0]);
		worker_main(pj, job, fds[1]);
	}
	close(fds[1]);
	w->pid = p;
	w->fd = fds[0];
	w->job = job;
	w->len = 0;
	return 0;
}

/* Worker w's pipe is at EOF: reap it; 0 if the job succeeded. */
static int
finish(const struct pool_job *pj, struct worker *w, char *msg, size_t msgsz)
{
	int st, ok;

	close(w->fd);
	while (waitpid(w->pid, &st, 0) < 0)
		if (errno != EINTR)
			vs_fatal("waitpid: %s", strerror(errno));
	w->pid = 0;
	ok = WIFEXITED(st) && WEXITSTATUS(st) == 0 && w->len >= 1 && w->buf[0] == 0;
	if (ok) {
		if (pj->done != NULL)
			pj->done(pj->ctx, w->job, w->buf + 1, w->len - 1);
		return 0;
	}
	if (w->len >= 1 && w->buf[0] == 1)
		snprintf(msg, msgsz, "%.*s", (int)(w->len - 1), w->buf + 1);
	else if (WIFSIGNALED(st))
		snprintf(msg, msgsz, "killed by signal %d", WTERMSIG(st));
	else
		snprintf(msg, msgsz, "worker exited (status %d) without a result", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	if (pj->failed != NULL)
		pj->failed(pj->ctx, w->job, msg);
	return -1;
}

int
pool_run(const struct pool_job *pj, const size_t *idx, size_t n, int workers,
    size_t *nfailed, struct vs_err *err)
{
	struct worker *w;
	struct pollfd *pfd;
	size_t next = 0, running = 0, finished = 0, failed = 0, low = (size_t)-1;
	char msg[sizeof err->msg];
	int k, np;

	VS_ASSERT(workers >= 1);
	if (nfailed != NULL)
		*nfailed = 0;
	if (n == 0)
		return 0;
	if ((size_t)workers > n)
		workers = (int)n;
	w = xcalloc((size_t)workers, sizeof *w);
	pfd = xcalloc((size_t)workers, sizeof *pfd);
	while ((next < n && failed == 0) || running > 0) {
		for (k = 0; k < workers && failed == 0 && next < n; k++) {
			if (w[k].pid != 0)
				continue;
			if (start(pj, &w[k], idx != NULL ? idx[next] : next, err)) {
				failed++;
				low = (size_t)-2;	/* err already says why */
				break;
			}
			next++;
			running++;
		}
		if (pj->progress != NULL)
			pj->progress(pj->ctx, finished, running, n);
		if (running == 0)
			break;
		for (k = 0, np = 0; k < workers; k++)
			if (w[k].pid != 0) {
				pfd[np].fd = w[k].fd;
				pfd[np].events = POLLIN;
				pfd[np].revents = 0;
				np++;
			}
		if (poll(pfd, (nfds_t)np, -1) < 0) {
			if (errno == EINTR)
				continue;
			vs_fatal("poll: %s", strerror(errno));
		}
		for (k = 0, np = 0; k < workers; k++) {
			struct worker *x = &w[k];
			ssize_t r;

			if (x->pid == 0)
				continue;
			if (pfd[np++].revents == 0)
				continue;
			if (x->cap - x->len < 4096) {
				x->cap = x->cap ? 2 * x->cap : 8192;
				x->buf = xrealloc(x->buf, x->cap);
			}
			r = read(x->fd, x->buf + x->len, x->cap - x->len);
			if (r < 0 && errno == EINTR)
				continue;
			if (r > 0) {
				x->len += (size_t)r;
				continue;
			}
			running--;
			finished++;
			if (finish(pj, x, msg, sizeof msg)) {
				failed++;
				if (low != (size_t)-2 && (low == (size_t)-1 || x->job < low)) {
					low = x->job;
					vs_errf(err, NULL, 0, 0, "%s", msg);
				}
			}
		}
	}
	if (pj->progress != NULL)
		pj->progress(pj->ctx, finished, 0, n);
	for (k = 0; k < workers; k++)
		free(w[k].buf);
	free(w);
	free(pfd);
	if (nfailed != NULL)
		*nfailed = failed;
	return failed ? -1 : 0;
}
