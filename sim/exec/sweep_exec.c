/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sweep_exec.c - running the points of a sweep that are not done yet (this
 * shard's) on the exec backends, then results.csv.
 *
 * Processes: the master only loads scenarios (and frees them) and dry-runs
 * them at time 0 (every GSL generator and the event queue are freed before
 * run_once returns), so it holds no engine state when a backend forks.  A
 * worker runs one point (point_run) and hands its file text back; the master
 * checks it and writes DIR/points/NNNNN.csv with vs_write_file_atomic, so
 * only one process ever writes DIR, whatever the backend (exec.h).
 */
#include "sweep_impl.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metrics.h"
#include "run.h"
#include "scenario.h"

/* The job of point i (in a worker): run it, its point file text. */
static int
point_run(void *ctx, size_t i, const char *arg, size_t arglen, char **out, size_t *len,
    struct vs_err *err)
{
	const struct sweep *sw = ctx;
	struct run_opts ro = { .wall_clock = 0, .check = 1 };
	struct scenario sc;
	struct msum sum;
	uint64_t seed;
	int reps, rc = -1;	/* or run_reps's failure: RUN_STOPPED passes up */

	sweep_lock_drop();	/* a worker writes nothing in DIR: the lock is its master's */
	msum_init(&sum);
	if (sweep_point_load(sw, i, &sc, &seed, &reps, err) == 0) {
		if ((rc = run_reps(&sc, seed, reps, &ro, &sum, err)) == 0) {
			*out = sweep_point_text(sw, i, &sum);
			*len = strlen(*out);
		}
		scen_free(&sc);
	}
	msum_free(&sum);
	if (rc)
		sweep_point_err(sw, i, err);
	return rc;
}

void
sweep_job(const struct sweep *sw, struct exec_job *job)
{
	memset(job, 0, sizeof *job);
	job->ctx = (void *)sw;
	job->run = point_run;
}

/* Is point i this process's share (--shard K/N: i mod N = K-1)? */
static int
in_shard(const struct sweep *sw, size_t i)
{
	return sw->nshards <= 1 || i % (size_t)sw->nshards == (size_t)sw->shard;
}

struct sweep_done {
	const struct sweep *sw;
	const char *dir;
};

/* A worker's result for point i: checked, then DIR/points/NNNNN.csv (atomic). */
static int
point_done(void *ctx, size_t i, const char *buf, size_t len, struct vs_err *err)
{
	const struct sweep_done *d = ctx;
	char *h = sweep_header(d->sw), *path;
	size_t hl = strlen(h);
	int rc;

	rc = len > hl && strncmp(buf, h, hl) == 0 && memchr(buf, '\0', len) == NULL &&
	    memchr(buf + hl, '\n', len - hl) == buf + len - 1;
	free(h);
	if (!rc)
		return vs_errf(err, NULL, 0, 0, "a worker sent a result that is not a "
		    "point of this sweep (another build or scenario on that node?)");
	path = sweep_point_path(d->dir, i);
	rc = vs_write_file_atomic(path, buf, len, err);
	free(path);
	return rc;
}

/* Temp files of writers killed before their rename: never read, just litter.
 * Only this shard's: another shard's writer may be between write and rename. */
static void
clean_temps(const struct sweep *sw, const char *dir)
{
	char *pdir = xasprintf("%s/points", dir), *p, *end;
	struct dirent *e;
	unsigned long long i;
	DIR *d;

	if ((d = opendir(pdir)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (strstr(e->d_name, ".csv.tmp.") == NULL)
				continue;
			i = strtoull(e->d_name, &end, 10);
			if (end == e->d_name || !in_shard(sw, (size_t)i))
				continue;
			p = xasprintf("%s/%s", pdir, e->d_name);
			unlink(p);
			free(p);
		}
		closedir(d);
	}
	free(pdir);
}

/* Points of this shard not done yet (todo), and whether every point is done. */
static int
find_todo(const struct sweep *sw, const char *dir, size_t *todo, size_t *ntodo,
    size_t *nmissing, struct vs_err *err)
{
	size_t i;
	char *row;
	int bad;

	*ntodo = *nmissing = 0;
	for (i = 0; i < sw->npoints; i++) {
		row = sweep_point_row(sw, dir, i, &bad);
		if (bad) {
			char *path = sweep_point_path(dir, i);

			vs_errf(err, NULL, 0, 0, "%s: not a point of this sweep (other "
			    "columns)", path);
			free(path);
			return -1;
		}
		if (row == NULL) {
			(*nmissing)++;
			if (in_shard(sw, i))
				todo[(*ntodo)++] = i;
		}
		free(row);
	}
	return 0;
}

int
sweep_exec(const struct sweep *sw, const char *dir, struct exec_backend **be, int nbe,
    FILE *progress, struct sweep_ran *ran, struct vs_err *err)
{
	struct exec_prog pg = { .f = progress, .what = "sweep", .unit = "points",
		.item = "point", .t0 = exec_now() };
	struct sweep_done d = { sw, dir };
	size_t *todo = xcalloc(sw->npoints, sizeof *todo), ntodo, nmiss, failed, first;
	int rc;

	VS_ASSERT(sw->npoints == sweep_npoints(sw));
	memset(ran, 0, sizeof *ran);
	if ((rc = sweep_meta_claim(sw, dir, err)) != 0)
		goto out;
	clean_temps(sw, dir);
	if ((rc = find_todo(sw, dir, todo, &ntodo, &nmiss, err)) != 0)
		goto out;
	for (size_t i = 0; i < sw->npoints; i++)
		ran->share += in_shard(sw, i);
	pg.total = ran->share;
	pg.done = ran->share - ntodo;
	rc = exec_run(be, nbe, todo, ntodo, point_done, &d, &pg, &failed, &first, err);
	ran->ran = pg.ran;
	ran->missing = nmiss - pg.ran;
	if (rc) {
		char *m = xstrdup(err->msg);

		rc = rc == RUN_STOPPED ? SWEEP_STOPPED : -1;
		vs_errf(err, NULL, 0, 0, "%zu point(s) failed, first point %zu (%s); the "
		    "finished ones are kept, run again to resume", failed, first, m);
		free(m);
		goto out;
	}
	/* A shard builds results.csv only when the other shards are done too. */
	if (ran->missing == 0)
		rc = sweep_results_write(sw, dir, err);
out:
	free(todo);
	return rc;
}
