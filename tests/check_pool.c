/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_pool.c - the worker pool (sim/exec/pool.h): results by job, failures. */
#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "testutil.h"

#define PJOBS 7
#define PBIG (300 * 1024)	/* more than a pipe holds: the parent must read while waiting */

struct pt {
	char *got[PJOBS];
	size_t len[PJOBS];
	size_t maxrun;
};

static int
pt_run(void *ctx, size_t i, const char *arg, size_t arglen, char **out, size_t *len,
    struct vs_err *err)
{
	size_t n = i == 2 ? PBIG : 16, k;

	if (arg != NULL) {
		/* The run's argument, with the job's number. */
		*out = xasprintf("%zu:%.*s", i, (int)arglen, arg);
		*len = strlen(*out);
		return 0;
	}
	if (i == 3 || i == 5)
		return vs_errf(err, NULL, 0, 0, "job %zu fails", i);
	if (i == 6)
		raise(SIGKILL);	/* a crash, without a core file */
	*out = xmalloc(n);
	for (k = 0; k < n; k++)
		(*out)[k] = (char)('a' + (i * 7 + k) % 26);
	*len = n;
	return 0;
}

static void
pt_done(void *ctx, size_t i, const char *out, size_t len)
{
	struct pt *p = ctx;

	p->got[i] = xmalloc(len + 1);
	memcpy(p->got[i], out, len);
	p->got[i][len] = '\0';
	p->len[i] = len;
}

static void
pt_progress(void *ctx, size_t finished, size_t running, size_t total)
{
	struct pt *p = ctx;

	if (running > p->maxrun)
		p->maxrun = running;
}

START_TEST(pool_results_by_job)
{
	static const size_t ok[] = { 0, 1, 2, 4 };
	int workers = _i ? 3 : 1;
	struct pt p;
	struct pool_job pj = { pt_run, pt_done, pt_progress, &p };
	struct vs_err err;
	size_t nf = 99, i, k;

	memset(&p, 0, sizeof p);
	ck_assert_int_eq(pool_run(&pj, ok, 4, NULL, 0, workers, &nf, &err), 0);
	ck_assert_uint_eq(nf, 0);
	ck_assert_uint_le(p.maxrun, (size_t)workers);
	if (workers > 1)
		ck_assert_uint_gt(p.maxrun, 1);
	for (k = 0; k < 4; k++) {
		i = ok[k];
		ck_assert_uint_eq(p.len[i], i == 2 ? PBIG : 16);
		ck_assert_int_eq(p.got[i][p.len[i] - 1], 'a' + (int)((i * 7 + p.len[i] - 1) % 26));
		free(p.got[i]);
	}
}
END_TEST

START_TEST(pool_argument)
{
	struct pt p;
	struct pool_job pj = { pt_run, pt_done, NULL, &p };
	struct vs_err err;
	size_t i;

	/* Every job of a run gets its argument; the next run gets the next one. */
	memset(&p, 0, sizeof p);
	ck_assert_int_eq(pool_run(&pj, NULL, 3, "x=1", 3, 2, NULL, &err), 0);
	ck_assert_str_eq(p.got[0], "0:x=1");
	ck_assert_str_eq(p.got[2], "2:x=1");
	for (i = 0; i < 3; i++)
		free(p.got[i]);
	ck_assert_int_eq(pool_run(&pj, NULL, 3, "x=2.5", 5, 2, NULL, &err), 0);
	ck_assert_str_eq(p.got[1], "1:x=2.5");
	for (i = 0; i < 3; i++)
		free(p.got[i]);
}
END_TEST

START_TEST(pool_failures)
{
	struct pt p;
	struct pool_job pj = { pt_run, pt_done, NULL, &p };
	struct vs_err err;
	size_t nf = 0, i;

	memset(&p, 0, sizeof p);
	/* All at once: both failures and the crash are seen; the error is job 3's. */
	ck_assert_int_eq(pool_run(&pj, NULL, PJOBS, NULL, 0, PJOBS, &nf, &err), -1);
	ck_assert_uint_eq(nf, 3);
	ck_assert_str_eq(err.msg, "job 3 fails");
	for (i = 0; i < PJOBS; i++)
		free(p.got[i]);
	/* One at a time: nothing starts after the first failure. */
	memset(&p, 0, sizeof p);
	ck_assert_int_eq(pool_run(&pj, NULL, PJOBS, NULL, 0, 1, &nf, &err), -1);
	ck_assert_uint_eq(nf, 1);
	ck_assert_str_eq(err.msg, "job 3 fails");
	ck_assert_ptr_nonnull(p.got[2]);
	ck_assert_ptr_null(p.got[4]);
	for (i = 0; i < PJOBS; i++)
		free(p.got[i]);
	/* A worker that dies says how. */
	{
		static const size_t six[] = { 6 };

		memset(&p, 0, sizeof p);
		ck_assert_int_eq(pool_run(&pj, six, 1, NULL, 0, 2, &nf, &err), -1);
		ck_assert_ptr_nonnull(strstr(err.msg, "killed by signal"));
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("pool");
	TCase *tc = tcase_create("pool");

	tcase_set_timeout(tc, 0);
	tcase_add_loop_test(tc, pool_results_by_job, 0, 2);
	tcase_add_test(tc, pool_failures);
	tcase_add_test(tc, pool_argument);
	suite_add_tcase(s, tc);
	return tu_main(s);
}
