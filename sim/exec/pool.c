/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pool.c - the worker pool as a layer over the executor (see pool.h): one
 * fork backend for the local workers, the mpi backend for the other ranks.
 */
#include "pool.h"

#include <stdlib.h>
#include <unistd.h>

#include "exec.h"
#include "exec_mpi.h"

static int ranks_jobs;	/* > 0: rank 0 of an MPI run, this many jobs per rank */
static size_t ran_all, ran_ranks;	/* jobs done, and of them on other ranks */

int
pool_default_workers(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > POOL_MAX_WORKERS ? POOL_MAX_WORKERS : (int)n;
}

void
pool_use_ranks(int jobs_per_rank)
{
	ranks_jobs = jobs_per_rank;
}

static int
pool_done(void *ctx, size_t id, const char *buf, size_t len, struct vs_err *err)
{
	const struct pool_job *pj = ctx;

	if (pj->done != NULL)
		pj->done(pj->ctx, id, buf, len);
	return 0;
}

static void
pool_show(void *ctx, size_t done, int running, size_t total)
{
	const struct pool_job *pj = ctx;

	pj->progress(pj->ctx, done, (size_t)running, total);
}

int
pool_run(const struct pool_job *pj, const size_t *idx, size_t n, const char *arg,
    size_t arglen, int workers, size_t *nfailed, struct vs_err *err)
{
	struct exec_job job = { pj->ctx, pj->run, arg, arglen };
	struct exec_prog pg = { .what = "pool", .unit = "jobs", .item = "job",
		.quiet = 1, .t0 = exec_now() };
	struct exec_backend *be[2];
	size_t *ids = xcalloc(n + 1, sizeof *ids), i, failed = 0, first;
	int nbe = 0, rc;

	VS_ASSERT(workers >= 1);
	if (nfailed != NULL)
		*nfailed = 0;
	if (n == 0) {
		free(ids);
		return 0;
	}
	for (i = 0; i < n; i++)
		ids[i] = idx != NULL ? idx[i] : i;
	if (pj->progress != NULL) {
		pg.show = pool_show;
		pg.show_ctx = (void *)pj;
	}
	pg.total = n;
	be[nbe++] = exec_fork_new(&job, (size_t)workers > n ? (int)n : workers);
	if (ranks_jobs > 0)
		be[nbe++] = exec_mpi_new(&job, ranks_jobs);
	rc = exec_run(be, nbe, ids, n, pool_done, (void *)pj, &pg, &failed, &first, err);
	ran_all += pg.ran;
	if (nbe > 1)
		ran_ranks += pg.ran_by[1];
	for (i = 0; i < (size_t)nbe; i++)
		be[i]->ops->close(be[i]);
	free(ids);
	if (nfailed != NULL)
		*nfailed = failed;
	return rc;
}

void
pool_ran(size_t *all, size_t *on_ranks)
{
	*all = ran_all;
	*on_ranks = ran_ranks;
}

void
pool_serve(const struct pool_job *pj, int jobs, const char *fail_msg)
{
	struct exec_job job = { pj != NULL ? pj->ctx : NULL, pj != NULL ? pj->run : NULL,
		NULL, 0 };

	exec_mpi_serve(pj != NULL ? &job : NULL, jobs, fail_msg);
}
